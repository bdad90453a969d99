//! The CLI's trace loader, shared by `stats`, `run` and `sweep`: a catalog name or a raw path →
//! a verified file → SWF records → a [`Workload`] for a machine.
//!
//! * A **catalog name** (`sdsc-96`) is looked up in the catalog (`$PWA_CATALOG`, a TOML file of the
//!   form of `traces/catalog.toml`, else the built-in one), found through the search path, and
//!   verified by the sha256 of its uncompressed bytes before it is parsed. When it is not found and
//!   `$PWA_OFFLINE` is not `1`, it is downloaded once (see `download`) into the first directory of
//!   the search path.
//! * A **raw path** needs a machine: `--machine`, or (where the caller allows it, [`NoMachine`]) a
//!   flat machine sized from the file's header (`MaxProcs`, else `MaxNodes`), said on stderr; its
//!   sha256 is computed and reported.
//! * A **synthetic label** `synth:MODEL,mesh=WxH,jobs=N,rate=R|traffic=T,service=S,seed=N` or
//!   `synth:hypercube,dim=D,…` ([`HypercubeSpec::from_label`]) (see
//!   [`SynthSpec::from_label`]) is generated, not read: the machine is the label's mesh unless
//!   `--machine` overrides it, the trace name is the label as given, there are no filters, and the
//!   "sha256" (the resume cache's key) is the sha256 of the canonical label ([`canonical_label`]:
//!   every parameter spelled out, seed included). With `rate=1`, a load factor is the window-k
//!   paper's load in jobs per time unit.
//!
//! Search path: `$PWA_TRACES` (`:`-separated), then `./traces`, `./../shared/traces` (relative to the
//! current directory), then `traces/` and `../shared/traces` of the workspace this binary was built
//! from (so `target/ci/pwa-replay` finds the repository's traces from any directory).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use anyhow::{Context, bail};
use pwa_replay::catalog::{Catalog, DefaultGrid, TraceEntry};
use pwa_replay::experiment::run::{Prepared, Source};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sweep::CellError;
use pwa_replay::swf::{Header, ReadOptions, SkipReport, SwfReader};
use pwa_replay::workload::lublin::LublinSpec;
use pwa_replay::workload::synth::{ServiceModel, SynthSpec};
use pwa_replay::workload::synth_hypercube::HypercubeSpec;
use pwa_replay::workload::tracepath::{self, SearchPath};
use pwa_replay::workload::{Conversion, DropReason, Job, Workload};

/// The options naming the workload, shared by `stats`, `run` and `sweep` (`#[command(flatten)]`).
#[derive(Debug, Clone, clap::Args)]
pub struct TraceArgs {
    /// Catalogued trace name (`sdsc-96`, see `pwa-replay catalog`), path of an SWF file (plain or
    /// gzip; without --machine, a flat machine sized from its header where the allocator allows
    /// it), or a synthetic workload `synth:MODEL,mesh=WxH,jobs=N,rate=R,seed=N` (MODEL:
    /// uniform, uniform-decreasing, normal). With `rate=1` the load factor is the window-k paper's
    /// load in jobs per time unit. Hypercubes (lazy paper §4):
    /// `synth:hypercube,dim=10,size=uniform|normal,demand=uniform|hyperexp,dist=dependent|independent,load=L,window=T|jobs=N,seed=S`.
    #[arg(long, value_name = "NAME|PATH|synth:…")]
    pub trace: String,
    /// Machine (`mesh:22x16`, `flat:128`, `hypercube:7`); overrides the catalog's (or the
    /// synthetic label's mesh). For a file without it: flat, sized from the header.
    #[arg(long, value_name = "M")]
    pub machine: Option<MachineSpec>,
    /// Skip malformed lines and drop jobs that can never fit (counted) instead of failing.
    #[arg(long)]
    pub lenient: bool,
}

impl TraceArgs {
    /// Loads the workload these options name (see [`load`]).
    pub fn load(&self, no_machine: NoMachine) -> anyhow::Result<LoadedTrace> {
        load(&self.trace, self.machine, self.lenient, no_machine)
    }

    /// Streams the workload: each job goes to `each` in submit order (with the conversion that
    /// made it) and is not kept, so memory does not grow with the log. The returned trace's
    /// workload is empty; everything else is as [`TraceArgs::load`] gives it.
    pub fn load_each(
        &self,
        no_machine: NoMachine,
        each: &mut dyn FnMut(&Conversion, &Job),
    ) -> anyhow::Result<LoadedTrace> {
        load_into(
            &self.trace,
            self.machine,
            self.lenient,
            no_machine,
            Some(each),
        )
    }
}

/// What to do with a raw SWF file given without `--machine`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoMachine {
    /// Fail, asking for `--machine` (the allocators asked for need a shaped machine).
    Refuse,
    /// A flat machine sized from the header (`MaxProcs`, else `MaxNodes`), said on stderr.
    FlatFromHeader,
}

/// A trace ready to simulate.
#[derive(Debug, Clone)]
pub struct LoadedTrace {
    /// Catalog name, the file name of a raw path, or the synthetic label as given.
    pub name: String,
    /// The file read (the label itself for a synthetic workload).
    pub path: PathBuf,
    /// sha256 of the uncompressed bytes (verified for catalogued traces); for a synthetic
    /// workload, of its [`canonical_label`].
    pub sha256: String,
    /// The machine the jobs are converted for.
    pub machine: MachineSpec,
    /// The full conversion used (machine, shape rule, filters, processors per node).
    pub conversion: Conversion,
    /// The jobs, sorted by submit time; submit times as in the file (apply
    /// [`Workload::scaled`] for a load factor, which also shifts the first arrival to 0).
    pub workload: Workload,
    /// Records dropped by the conversion, by reason.
    pub dropped: BTreeMap<DropReason, u64>,
    /// The file's header (`; Key: value` lines).
    pub header: Header,
    /// Lines skipped as malformed (lenient mode only), by reason.
    pub skipped: SkipReport,
    /// The schedulers × allocators a sweep replays when none are named.
    pub grid: DefaultGrid,
    /// Where [`LoadedTrace::grid`] comes from, for humans (`catalog entry sdsc-96`).
    pub grid_source: String,
}

impl LoadedTrace {
    /// Drops (and counts as `too_large`) the jobs some allocator of `allocs` can never place
    /// (`--lenient`): a request larger than the largest semitorus fits the machine but not `ep`.
    pub fn drop_never_fitting(&mut self, allocs: &[AllocKind]) -> anyhow::Result<()> {
        let n = self
            .workload
            .retain_fitting(self.machine, allocs)
            .with_context(|| {
                format!("checking the jobs of {} against the allocators", self.name)
            })?;
        if n > 0 {
            *self.dropped.entry(DropReason::TooLarge).or_insert(0) += n;
            eprintln!(
                "{}: dropped {n} job(s) that {} can never place (--lenient)",
                self.name,
                allocs
                    .iter()
                    .map(|a| a.label())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        Ok(())
    }
}

/// The catalog: `$PWA_CATALOG` when set, else the built-in `traces/catalog.toml`.
pub fn catalog() -> anyhow::Result<Catalog> {
    match std::env::var_os("PWA_CATALOG") {
        Some(p) => {
            let text = std::fs::read_to_string(&p)
                .with_context(|| format!("reading catalog $PWA_CATALOG={}", p.display()))?;
            Catalog::from_toml(&text)
                .with_context(|| format!("in catalog $PWA_CATALOG={}", p.display()))
        }
        None => Ok(Catalog::builtin()),
    }
}

/// The search path: `$PWA_TRACES`, then the current directory's and the build workspace's roots.
pub fn search_path() -> SearchPath {
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

/// Loads a catalogued trace by name, a raw SWF file by path, or generates a `synth:` workload.
///
/// `machine` overrides the catalog's machine (the shape rule becomes the machine's natural one when
/// the catalog's does not suit it); a raw path without it is refused or read on a flat machine
/// sized from its header, as `no_machine` says. `lenient` skips malformed lines and drops jobs that
/// can never fit (counted as `too_large`) instead of failing.
pub fn load(
    trace: &str,
    machine: Option<MachineSpec>,
    lenient: bool,
    no_machine: NoMachine,
) -> anyhow::Result<LoadedTrace> {
    load_into(trace, machine, lenient, no_machine, None)
}

/// Where converted jobs go: `None`, kept in the workload; `Some`, handed over one by one.
type Each<'a> = Option<&'a mut dyn FnMut(&Conversion, &Job)>;

/// [`load`], the jobs kept or (with `each`) streamed.
fn load_into(
    trace: &str,
    machine: Option<MachineSpec>,
    lenient: bool,
    no_machine: NoMachine,
    each: Each<'_>,
) -> anyhow::Result<LoadedTrace> {
    if trace.trim_start().starts_with("synth:") {
        let mut t = load_synth(trace, machine, lenient)?;
        if let Some(each) = each {
            t.workload.jobs.iter().for_each(|j| each(&t.conversion, j));
            t.workload.jobs = Vec::new();
        }
        return Ok(t);
    }
    let cat = catalog()?;
    if let Some(entry) = cat.get(trace) {
        return load_entry(entry, machine, lenient, each);
    }
    let path = PathBuf::from(trace);
    if !path.is_file() {
        bail!(
            "`{trace}` is neither a catalogued trace ({}) nor a file",
            cat.names().join(", ")
        );
    }
    let name = path
        .file_name()
        .map_or_else(|| trace.to_string(), |n| n.to_string_lossy().into_owned());
    let reader = SwfReader::open(&path, read_options(lenient))?;
    let machine = match (machine, no_machine) {
        (Some(m), _) => m,
        (None, NoMachine::FlatFromHeader) => flat_from_header(&name, reader.header())?,
        (None, NoMachine::Refuse) => bail!(
            "`{trace}` is a file, not a catalogued trace: say which machine with --machine (e.g. mesh:22x16, flat:128, hypercube:7); with --alloc flat, a flat machine sized from its header is used"
        ),
    };
    let sha256 = tracepath::sha256_uncompressed(&path)?;
    let conversion = Conversion {
        lenient,
        ..Conversion::for_machine(machine)
    };
    convert(
        name,
        path,
        sha256,
        reader,
        conversion,
        family_grid(machine),
        each,
    )
}

/// The flat machine a raw file's header describes ([`Header::flat_size`]), said on stderr.
fn flat_from_header(name: &str, header: &Header) -> anyhow::Result<MachineSpec> {
    let Some((key, nodes)) = header.flat_size() else {
        bail!(
            "`{name}` has no positive MaxProcs or MaxNodes in its header to size a flat machine from: say which machine with --machine (e.g. flat:128, mesh:22x16)"
        );
    };
    let machine = MachineSpec::Flat { nodes };
    eprintln!(
        "{name}: no --machine given, so a flat machine of {nodes} nodes ({machine}), sized from the header's {key}; say --machine to choose another"
    );
    Ok(machine)
}

/// The machine family's default grid, with its source.
fn family_grid(machine: MachineSpec) -> (DefaultGrid, String) {
    let family = machine.to_string();
    let family = family.split(':').next().unwrap_or("this");
    (
        DefaultGrid::for_machine(machine),
        format!("default for {family} machines"),
    )
}

/// Every parameter of a synthetic workload spelled out in a fixed order, so that labels that differ
/// only in spelling or defaults (`synth:uniform` and `synth:uniform,mesh=32x32,seed=1`) name the
/// same workload: `synth:MODEL,mesh=WxH,jobs=N,rate=R,service=S,seed=N`, then `,dist=D` for a
/// service distribution other than the exponential (so exponential labels keep their cache keys).
pub fn canonical_label(spec: &SynthSpec, seed: u64) -> String {
    let dist = match spec.service {
        ServiceModel::Exponential => String::new(),
        other => format!(",dist={}", other.name()),
    };
    format!(
        "synth:{},mesh={},jobs={},rate={},service={},seed={seed}{dist}",
        spec.sides.name(),
        spec.mesh,
        spec.jobs,
        spec.rate,
        spec.mean_service
    )
}

/// Generates a `synth:` workload (no filters; one processor per node).
fn load_synth(
    label: &str,
    machine: Option<MachineSpec>,
    lenient: bool,
) -> anyhow::Result<LoadedTrace> {
    if label.trim().starts_with("synth:hypercube") {
        return load_synth_hypercube(label, machine, lenient);
    }
    if label.trim().starts_with("synth:lublin") {
        return load_synth_lublin(label, machine, lenient);
    }
    let (spec, seed) = SynthSpec::from_label(label)?;
    let workload = spec
        .generate(seed)
        .with_context(|| format!("generating {label}"))?;
    let machine = machine.unwrap_or(MachineSpec::Mesh { size: spec.mesh });
    let mut header = Header::new();
    header.push("Computer", &format!("synthetic {}", spec.mesh));
    for line in spec.describe() {
        header.push("Note", &line);
    }
    header.push("Note", &format!("seed {seed}"));
    let key = canonical_label(&spec, seed);
    Ok(synthetic(label, machine, lenient, workload, header, &key))
}

/// A generated workload as a loaded trace; `key` (a canonical label) stands in for the file hash in
/// cache keys.
fn synthetic(
    label: &str,
    machine: MachineSpec,
    lenient: bool,
    workload: Workload,
    header: Header,
    key: &str,
) -> LoadedTrace {
    let (grid, grid_source) = family_grid(machine);
    LoadedTrace {
        name: label.trim().to_string(),
        path: PathBuf::from(label.trim()),
        sha256: tracepath::sha256_bytes(key.as_bytes()),
        machine,
        conversion: Conversion {
            lenient,
            ..Conversion::for_machine(machine)
        },
        workload,
        dropped: BTreeMap::new(),
        header,
        skipped: SkipReport::default(),
        grid,
        grid_source,
    }
}

/// Generates a `synth:hypercube,…` workload (lazy-scheduling-hypercube.md §4) on its `hypercube:n`.
fn load_synth_hypercube(
    label: &str,
    machine: Option<MachineSpec>,
    lenient: bool,
) -> anyhow::Result<LoadedTrace> {
    let (spec, seed) = HypercubeSpec::from_label(label)?;
    let workload = spec
        .generate(seed)
        .with_context(|| format!("generating {label}"))?;
    let machine = machine.unwrap_or(spec.machine());
    let mut header = Header::new();
    header.push("Computer", &format!("synthetic {}", spec.machine()));
    for line in spec.describe() {
        header.push("Note", &line);
    }
    Ok(synthetic(
        label,
        machine,
        lenient,
        workload,
        header,
        &spec.label(seed),
    ))
}

/// Generates a `synth:lublin,…` workload (Lublin & Feitelson 2003) on its `flat:N`.
fn load_synth_lublin(
    label: &str,
    machine: Option<MachineSpec>,
    lenient: bool,
) -> anyhow::Result<LoadedTrace> {
    let (spec, seed) = LublinSpec::from_label(label)?;
    let workload = spec
        .generate(seed)
        .with_context(|| format!("generating {label}"))?;
    let mut header = Header::new();
    header.push("Computer", &format!("synthetic {}", spec.machine()));
    for line in spec.describe() {
        header.push("Note", &line);
    }
    header.push("Note", &format!("seed {seed}"));
    let key = format!(
        "synth:lublin,nodes={},jobs={},class={},seed={seed}",
        spec.nodes,
        spec.jobs,
        spec.classes.name()
    );
    let machine = machine.unwrap_or(spec.machine());
    Ok(synthetic(label, machine, lenient, workload, header, &key))
}

fn load_entry(
    entry: &TraceEntry,
    machine: Option<MachineSpec>,
    lenient: bool,
    each: Each<'_>,
) -> anyhow::Result<LoadedTrace> {
    let path = locate(entry)?;
    let sha256 = verify_entry(entry, &path)?;
    let conversion = Conversion {
        lenient,
        ..entry.conversion_for(machine)
    };
    let grid = if conversion.machine == entry.conversion.machine {
        (entry.grid.clone(), format!("catalog entry {}", entry.name))
    } else {
        family_grid(conversion.machine)
    };
    let reader = SwfReader::open(&path, read_options(lenient))?;
    let loaded = convert(
        entry.name.clone(),
        path,
        sha256,
        reader,
        conversion,
        grid,
        each,
    )?;
    if entry.sha256.is_none() && !lenient {
        tracepath::record_hash(&loaded.path, &loaded.sha256);
    }
    Ok(loaded)
}

/// The file of a catalogued trace: found on the search path, or downloaded once when online.
pub fn locate(entry: &TraceEntry) -> anyhow::Result<PathBuf> {
    let sp = search_path();
    if let Some(p) = sp.find(&entry.file) {
        return Ok(p.canonicalize().unwrap_or(p));
    }
    let offline = std::env::var_os("PWA_OFFLINE").is_some_and(|v| v == "1");
    let Some(dir) = sp.dirs().first().cloned() else {
        bail!("no trace directory to look in");
    };
    if offline {
        bail!(
            "{} is not on the search path and PWA_OFFLINE=1 forbids downloading it\n{}",
            entry.file,
            crate::download::offline_help(entry, &sp, &dir)
        );
    }
    eprintln!(
        "{} ({}) is not on the search path; downloading it into {} …",
        entry.name,
        entry.file,
        dir.display()
    );
    crate::download::fetch_entry(entry, &crate::download::base_url(None), &dir)
        .map_err(|e| crate::download::with_help(e, entry, &sp, &dir))
}

/// Verifies a found file ([`tracepath::verify_found`]: the catalog's sha256, else the one
/// recorded beside it, else only computed).
fn verify_entry(entry: &TraceEntry, path: &Path) -> anyhow::Result<String> {
    tracepath::verify_found(path, entry.sha256.as_deref()).with_context(|| {
        format!(
            "{} is not the catalogued {}: delete it and run `pwa-replay fetch {}`",
            path.display(),
            entry.name,
            entry.name
        )
    })
}

/// Reads every record of an opened file and converts it.
fn convert(
    name: String,
    path: PathBuf,
    sha256: String,
    mut reader: SwfReader,
    conversion: Conversion,
    (grid, grid_source): (DefaultGrid, String),
    mut each: Each<'_>,
) -> anyhow::Result<LoadedTrace> {
    let mut converter = conversion.converter()?;
    for record in reader.by_ref() {
        let record = record?;
        let context = || format!("converting {} for {}", path.display(), conversion.machine);
        match each.as_mut() {
            Some(each) => {
                if let Some(job) = converter.convert(&record).with_context(context)? {
                    each(&conversion, &job);
                }
            }
            None => converter.push(&record).with_context(context)?,
        }
    }
    let (header, skipped) = reader.finish();
    let converted = converter.finish();
    Ok(LoadedTrace {
        name,
        path,
        sha256,
        machine: conversion.machine,
        conversion,
        workload: converted.workload,
        dropped: converted.dropped,
        header,
        skipped,
        grid,
        grid_source,
    })
}

fn read_options(lenient: bool) -> ReadOptions {
    if lenient {
        ReadOptions::lenient()
    } else {
        ReadOptions::strict()
    }
}

/// Loads catalogued logs and SWF files once each (remembering their sha256 for cache keys) and
/// reads `synth:` labels.
#[derive(Default)]
pub struct Loader {
    sha256: Mutex<BTreeMap<String, String>>,
}

impl Loader {
    pub fn sha256(&self, label: &str) -> String {
        self.sha256
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(label)
            .cloned()
            .unwrap_or_else(|| tracepath::sha256_bytes(label.as_bytes()))
    }
}

impl Source for Loader {
    fn prepare(
        &self,
        label: &str,
        machine: Option<MachineSpec>,
        jobs: Option<usize>,
    ) -> Result<Prepared, CellError> {
        if label.trim_start().starts_with("synth:") {
            return Prepared::synthetic(label, machine);
        }
        let loaded = load(label, machine, false, NoMachine::FlatFromHeader)
            .map_err(|e| -> CellError { format!("{e:#}").into() })?;
        self.sha256
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(label.to_string(), loaded.sha256.clone());
        let mut workload = loaded.workload;
        if let Some(n) = jobs {
            workload.jobs.truncate(n);
        }
        Ok(Prepared::Log {
            workload: Arc::new(workload),
            machine: loaded.machine,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_labels_spell_out_defaults_and_read_back() {
        let (spec, seed) = SynthSpec::from_label("synth:uniform").unwrap();
        let canon = canonical_label(&spec, seed);
        assert_eq!(
            canon,
            "synth:uniform,mesh=32x32,jobs=10000,rate=1,service=1,seed=1"
        );
        assert_eq!(SynthSpec::from_label(&canon).unwrap(), (spec, seed));
        let (t, s) = SynthSpec::from_label("synth:normal,traffic=2,seed=4").unwrap();
        let back = SynthSpec::from_label(&canonical_label(&t, s)).unwrap();
        assert_eq!(back, (t, s), "a traffic label becomes its rate");
        let (n, s) = SynthSpec::from_label("synth:squares,mesh=8x8,dist=normal").unwrap();
        let canon = canonical_label(&n, s);
        assert!(canon.ends_with(",dist=normal"), "{canon}");
        assert_eq!(SynthSpec::from_label(&canon).unwrap(), (n, s));
    }

    #[test]
    fn a_synthetic_label_loads_on_its_mesh_unless_overridden() {
        let label = "synth:uniform,mesh=8x4,jobs=50,seed=2";
        let t = load(label, None, false, NoMachine::Refuse).unwrap();
        assert_eq!(t.name, label);
        assert_eq!(t.machine.to_string(), "mesh:8x4");
        assert_eq!(t.workload.jobs.len(), 50);
        assert!(t.dropped.is_empty());
        let flat = load(
            label,
            Some(MachineSpec::Flat { nodes: 32 }),
            false,
            NoMachine::Refuse,
        )
        .unwrap();
        assert_eq!(flat.machine.to_string(), "flat:32");
        assert_eq!(
            flat.sha256, t.sha256,
            "the machine is not part of the workload"
        );
        assert!(load("synth:uniform,mesh=8", None, false, NoMachine::Refuse).is_err());
    }
}
