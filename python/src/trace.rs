//! Workloads by name, as the command line names them: a catalogued log (`sdsc-96`) found on the
//! search path and verified by its sha256, an SWF file by path, or a `synth:` label.
//!
//! The search path is the command line's: `$PWA_TRACES`, then `traces/` and `../shared/traces`
//! under the current directory, then under the workspace the extension was built from. Unlike the
//! command line, the package never downloads a missing log: the error says to fetch it with
//! `pwa-replay fetch NAME` (or where to put it).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pwa_replay::catalog::{Catalog, DefaultGrid, TraceEntry};
use pwa_replay::machine::MachineSpec;
use pwa_replay::swf::{ReadOptions, SwfReader};
use pwa_replay::workload::lublin::LublinSpec;
use pwa_replay::workload::synth::SynthSpec;
use pwa_replay::workload::synth_hypercube::HypercubeSpec;
use pwa_replay::workload::tracepath::{self, SearchPath};
use pwa_replay::workload::{Conversion, DropReason, Workload};

/// An error message for Python (the library's error chain, joined by `: `).
pub type Message = String;

/// A workload ready to replay.
pub struct Loaded {
    /// Catalog name, file name, or the synthetic label.
    pub name: String,
    /// sha256 of the uncompressed log (of the label for a synthetic workload).
    pub sha256: String,
    /// The machine the jobs are converted for.
    pub machine: MachineSpec,
    /// The jobs in submit order, unscaled.
    pub workload: Workload,
    /// Records the conversion dropped, by reason.
    pub dropped: BTreeMap<DropReason, u64>,
    /// The schedulers × allocators a study of it replays by default.
    pub grid: DefaultGrid,
}

/// An error and the errors it wraps, `outer: inner: …` (the command line's `{:#}`); a cause
/// the message already quotes is not repeated.
pub fn chain(e: &dyn std::error::Error) -> Message {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let cause = s.to_string();
        if !text.contains(&cause) {
            text = format!("{text}: {cause}");
        }
        source = s.source();
    }
    text
}

/// The catalog: `$PWA_CATALOG` when set, else the built-in one.
pub fn catalog() -> Result<Catalog, Message> {
    match std::env::var_os("PWA_CATALOG") {
        Some(p) => {
            let text = std::fs::read_to_string(&p)
                .map_err(|e| format!("reading catalog $PWA_CATALOG={}: {e}", p.display()))?;
            Catalog::from_toml(&text)
                .map_err(|e| format!("in catalog $PWA_CATALOG={}: {}", p.display(), chain(&e)))
        }
        None => Ok(Catalog::builtin()),
    }
}

/// The search path: `$PWA_TRACES`, then the current directory's and the build workspace's
/// `traces/` and `../shared/traces`.
fn search_path() -> SearchPath {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf);
    let roots: Vec<PathBuf> = std::env::current_dir()
        .ok()
        .into_iter()
        .chain(workspace)
        .collect();
    SearchPath::new(std::env::var_os("PWA_TRACES").as_deref(), &roots)
}

/// Loads `trace` (catalog name, SWF path or `synth:` label) for `machine` (its own when `None`;
/// a file without one is read on a flat machine sized from its header when `flat_ok`).
pub fn load(
    trace: &str,
    machine: Option<MachineSpec>,
    lenient: bool,
    flat_ok: bool,
) -> Result<Loaded, Message> {
    if trace.trim_start().starts_with("synth:") {
        return synthetic(trace, machine);
    }
    let cat = catalog()?;
    if let Some(entry) = cat.get(trace) {
        return load_entry(entry, machine, lenient);
    }
    let path = PathBuf::from(trace);
    if !path.is_file() {
        return Err(format!(
            "`{trace}` is neither a catalogued trace ({}) nor a file",
            cat.names().join(", ")
        ));
    }
    let name = path
        .file_name()
        .map_or_else(|| trace.to_string(), |n| n.to_string_lossy().into_owned());
    let reader = SwfReader::open(&path, read_options(lenient)).map_err(|e| chain(&e))?;
    let machine = match machine {
        Some(m) => m,
        None if flat_ok => flat_from_header(&name, &reader)?,
        None => {
            return Err(format!(
                "`{trace}` is a file, not a catalogued trace: say which machine (machine=\"mesh:22x16\", \"flat:128\", \"hypercube:7\"); with alloc=\"flat\", a flat machine sized from its header is used"
            ));
        }
    };
    let sha256 = tracepath::sha256_uncompressed(&path).map_err(|e| chain(&e))?;
    let conversion = Conversion {
        lenient,
        ..Conversion::for_machine(machine)
    };
    convert(
        name,
        &path,
        sha256,
        reader,
        conversion,
        DefaultGrid::for_machine(machine),
    )
}

/// A flat machine of the header's `MaxProcs` (else `MaxNodes`) nodes.
fn flat_from_header(name: &str, reader: &SwfReader) -> Result<MachineSpec, Message> {
    reader
        .header()
        .flat_size()
        .map(|(_, nodes)| MachineSpec::Flat { nodes })
        .ok_or_else(|| {
            format!("`{name}` has no positive MaxProcs or MaxNodes in its header to size a flat machine from: say which machine (machine=\"flat:128\")")
        })
}

fn load_entry(
    entry: &TraceEntry,
    machine: Option<MachineSpec>,
    lenient: bool,
) -> Result<Loaded, Message> {
    let sp = search_path();
    let path = sp.find(&entry.file).ok_or_else(|| {
        format!(
            "{} ({}) is not on the search path ({}): fetch it with `pwa-replay fetch {}` or set $PWA_TRACES to its directory",
            entry.name,
            entry.file,
            sp.dirs()
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            entry.name
        )
    })?;
    let sha256 = tracepath::verify_found(&path, entry.sha256.as_deref()).map_err(|e| {
        format!(
            "{} is not the catalogued {}: {}",
            path.display(),
            entry.name,
            chain(&e)
        )
    })?;
    let conversion = Conversion {
        lenient,
        ..entry.conversion_for(machine)
    };
    let grid = if conversion.machine == entry.conversion.machine {
        entry.grid.clone()
    } else {
        DefaultGrid::for_machine(conversion.machine)
    };
    let reader = SwfReader::open(&path, read_options(lenient)).map_err(|e| chain(&e))?;
    let loaded = convert(entry.name.clone(), &path, sha256, reader, conversion, grid)?;
    if entry.sha256.is_none() && !lenient {
        tracepath::record_hash(&path, &loaded.sha256);
    }
    Ok(loaded)
}

fn convert(
    name: String,
    path: &Path,
    sha256: String,
    mut reader: SwfReader,
    conversion: Conversion,
    grid: DefaultGrid,
) -> Result<Loaded, Message> {
    let mut converter = conversion.converter().map_err(|e| chain(&e))?;
    for record in reader.by_ref() {
        let record = record.map_err(|e| chain(&e))?;
        converter.push(&record).map_err(|e| {
            format!(
                "converting {} for {}: {}",
                path.display(),
                conversion.machine,
                chain(&e)
            )
        })?;
    }
    let converted = converter.finish();
    Ok(Loaded {
        name,
        sha256,
        machine: conversion.machine,
        workload: converted.workload,
        dropped: converted.dropped,
        grid,
    })
}

/// A `synth:` label, generated with the label's own seed on the model's machine unless `machine`.
fn synthetic(label: &str, machine: Option<MachineSpec>) -> Result<Loaded, Message> {
    let text = label.trim();
    let (workload, own) = if text.starts_with("synth:hypercube") {
        let (spec, seed) = HypercubeSpec::from_label(text).map_err(|e| chain(&e))?;
        (spec.generate(seed), spec.machine())
    } else if text.starts_with("synth:lublin") {
        let (spec, seed) = LublinSpec::from_label(text).map_err(|e| chain(&e))?;
        (spec.generate(seed), spec.machine())
    } else {
        let (spec, seed) = SynthSpec::from_label(text).map_err(|e| chain(&e))?;
        (spec.generate(seed), MachineSpec::Mesh { size: spec.mesh })
    };
    let workload = workload.map_err(|e| format!("generating {text}: {}", chain(&e)))?;
    let machine = machine.unwrap_or(own);
    Ok(Loaded {
        name: text.to_string(),
        sha256: tracepath::sha256_bytes(text.as_bytes()),
        machine,
        workload,
        dropped: BTreeMap::new(),
        grid: DefaultGrid::for_machine(machine),
    })
}

fn read_options(lenient: bool) -> ReadOptions {
    if lenient {
        ReadOptions::lenient()
    } else {
        ReadOptions::strict()
    }
}
