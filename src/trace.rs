//! Workloads by name, as the command line and the Python package name them: a catalog name or a
//! raw path → a verified file → SWF records → a [`Workload`] for a machine; or a `synth:` label,
//! generated.
//!
//! * A **catalog name** (`sdsc-96`) is looked up in the catalog (`$PWA_CATALOG`, a TOML file of the
//!   form of `traces/catalog.toml`, else the built-in one), found through the search path, and
//!   verified by the sha256 of its uncompressed bytes before it is parsed. A log that is not on the
//!   search path goes to the caller's [`Fetch`] (the command line downloads it; [`no_fetch`] says
//!   how to get it).
//! * A **raw path** needs a machine, or (where the caller allows it, [`NoMachine`]) a flat machine
//!   sized from the file's header (`MaxProcs`, else `MaxNodes`), noted in [`LoadedTrace::notes`];
//!   its sha256 is computed and reported.
//! * A **synthetic label** `synth:MODEL,mesh=WxH,jobs=N,rate=R|traffic=T,service=S,seed=N`,
//!   `synth:hypercube,…` or `synth:lublin,…` is generated, not read: the machine is the label's
//!   unless one is given, the trace name is the label as given, there are no filters, and the
//!   "sha256" (the resume caches' key) is the sha256 of the canonical label ([`canonical_label`]:
//!   every parameter spelled out, seed included).
//!
//! [`report`] is what `stats` says of a loaded trace.
//!
//! Search path: `$PWA_TRACES` (`:`-separated), then `./traces`, `./../shared/traces` (relative to
//! the current directory), then `traces/` and `../shared/traces` of the workspace this library was
//! built from (so a built binary or extension finds the repository's traces from any directory).

pub mod report;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use crate::catalog::{Catalog, DefaultGrid, TraceEntry};
use crate::experiment::run::{Prepared, Source};
use crate::machine::{AllocKind, MachineSpec};
use crate::sweep::CellError;
pub use crate::sweep::chain;
use crate::swf::{Header, ReadOptions, SkipReport, SwfReader};
use crate::workload::lublin::LublinSpec;
use crate::workload::rewrite::InputRewrite;
use crate::workload::synth::{ServiceModel, SynthSpec};
use crate::workload::synth_hypercube::HypercubeSpec;
use crate::workload::tracepath::{self, SearchPath};
use crate::workload::{Conversion, DropReason, Job, Workload};

/// Why a workload could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// In words: the file, and for a bad record its line and field (the reader's and the
    /// converter's own messages, after what was being done).
    #[error("{0}")]
    Message(String),
    /// A raw SWF file read without a machine, and none could be sized from its header (`what`
    /// says which file and why); callers say how their users name one.
    #[error("{what}: say which machine (e.g. {MACHINE_EXAMPLES})")]
    NeedsMachine {
        /// The file and why it needs one.
        what: String,
    },
    /// A malformed line of a file read strictly: file, line, field and what is wrong. Lenient
    /// reading would skip it (and count it); callers say how their users ask for that.
    #[error("{0}")]
    Malformed(String),
}

/// Machine labels to suggest.
pub const MACHINE_EXAMPLES: &str = "mesh:22x16, flat:128, hypercube:7";

impl LoadError {
    /// `context: error: its causes…` (a cause the message already quotes is not repeated).
    fn with(context: impl std::fmt::Display, e: &dyn std::error::Error) -> LoadError {
        LoadError::Message(format!("{context}: {}", chain(e)))
    }
}

/// What to do with a catalogued log that is not on the search path: put it there and say where
/// (the command line downloads it), or say why not.
pub type Fetch<'a> = &'a (dyn Fn(&TraceEntry, &SearchPath) -> Result<PathBuf, LoadError> + Sync);

/// A [`Fetch`] that never downloads: the error says where the log was looked for and how to get it.
pub fn no_fetch(entry: &TraceEntry, sp: &SearchPath) -> Result<PathBuf, LoadError> {
    let dirs: Vec<String> = sp.dirs().iter().map(|d| d.display().to_string()).collect();
    Err(LoadError::Message(format!(
        "{} ({}) is not on the trace search path ({}): fetch it with `pwa-replay fetch {}`, or \
         put the file in one of those directories or in $PWA_TRACES",
        entry.name,
        entry.file,
        dirs.join(", "),
        entry.name
    )))
}

/// What a workload's times are measured in: seconds for logs and for the Lublin–Feitelson model,
/// the abstract time units of the papers' synthetic models (`synth:MODEL`, `synth:hypercube`),
/// whose mean service is 1 or 5 units.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    /// Seconds.
    Seconds,
    /// A synthetic model's time units.
    Model,
}

impl TimeUnit {
    /// The unit of the workload named `label` (a catalog name, a path or a `synth:` label).
    pub fn of(label: &str) -> TimeUnit {
        match label.trim().strip_prefix("synth:") {
            Some(model) if !model.starts_with("lublin") => TimeUnit::Model,
            _ => TimeUnit::Seconds,
        }
    }
}

/// What to do with a raw SWF file given without a machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoMachine {
    /// Fail, asking for a machine (the allocators asked for need a shaped machine).
    Refuse,
    /// A flat machine sized from the header (`MaxProcs`, else `MaxNodes`), noted.
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
    /// What a user should be told about choices made for her (a flat machine sized from the
    /// header).
    pub notes: Vec<String>,
}

impl LoadedTrace {
    /// Drops (and counts as `too_large`) the jobs some allocator of `allocs` can never place
    /// (lenient loading): a request larger than the largest semitorus fits the machine but not
    /// `ep`. Returns how many were dropped.
    pub fn drop_never_fitting(&mut self, allocs: &[AllocKind]) -> Result<u64, LoadError> {
        let n = self
            .workload
            .retain_fitting(self.machine, allocs)
            .map_err(|e| {
                LoadError::with(
                    format!("checking the jobs of {} against the allocators", self.name),
                    &e,
                )
            })?;
        if n > 0 {
            *self.dropped.entry(DropReason::TooLarge).or_insert(0) += n;
        }
        Ok(n)
    }
}

/// The catalog: `$PWA_CATALOG` when set, else the built-in `traces/catalog.toml`.
pub fn catalog() -> Result<Catalog, LoadError> {
    match std::env::var_os("PWA_CATALOG") {
        Some(p) => {
            let text = std::fs::read_to_string(&p).map_err(|e| {
                LoadError::with(format!("reading catalog $PWA_CATALOG={}", p.display()), &e)
            })?;
            Catalog::from_toml(&text).map_err(|e| {
                LoadError::with(format!("in catalog $PWA_CATALOG={}", p.display()), &e)
            })
        }
        None => Ok(Catalog::builtin()),
    }
}

/// The search path: `$PWA_TRACES`, then the current directory's and the build workspace's roots.
pub fn search_path() -> SearchPath {
    let roots: Vec<PathBuf> = std::env::current_dir()
        .ok()
        .into_iter()
        .chain([PathBuf::from(env!("CARGO_MANIFEST_DIR"))])
        .collect();
    SearchPath::new(std::env::var_os("PWA_TRACES").as_deref(), &roots)
}

/// Where converted jobs go: `None`, kept in the workload; `Some`, handed over one by one.
pub type Each<'a> = Option<&'a mut dyn FnMut(&Conversion, &Job)>;

/// Loads a catalogued trace by name, a raw SWF file by path, or generates a `synth:` workload.
///
/// `machine` overrides the catalog's machine (the shape rule becomes the machine's natural one when
/// the catalog's does not suit it); a raw path without it is refused or read on a flat machine
/// sized from its header, as `no_machine` says. `lenient` skips malformed lines instead of failing.
/// `input` reads a log's records as another simulator does (the replay's
/// [`Semantics::input`](crate::sched::semantics::Semantics::input); synthetic workloads have no
/// records and ignore it).
/// A catalogued log not on the search path goes to `fetch`. With `each`, the jobs are handed over
/// one by one (in submit order, with the conversion that made them) instead of kept, so memory does
/// not grow with the log.
pub fn load(
    trace: &str,
    machine: Option<MachineSpec>,
    lenient: bool,
    input: InputRewrite,
    no_machine: NoMachine,
    fetch: Fetch<'_>,
    each: Each<'_>,
) -> Result<LoadedTrace, LoadError> {
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
        return load_entry(entry, machine, (lenient, input), fetch, each);
    }
    let path = PathBuf::from(trace);
    if !path.is_file() {
        return Err(not_found(trace, &path, &cat));
    }
    let name = path
        .file_name()
        .map_or_else(|| trace.to_string(), |n| n.to_string_lossy().into_owned());
    let reader = open(&path, lenient)?;
    let mut notes = Vec::new();
    let machine = match (machine, no_machine) {
        (Some(m), _) => m,
        (None, NoMachine::FlatFromHeader) => {
            let (m, note) = flat_from_header(&name, reader.header())?;
            notes.push(note);
            m
        }
        (None, NoMachine::Refuse) => {
            return Err(LoadError::NeedsMachine {
                what: format!("`{trace}` is a file, not a catalogued trace"),
            });
        }
    };
    let sha256 =
        tracepath::sha256_uncompressed(&path).map_err(|e| LoadError::with(path.display(), &e))?;
    let conversion = Conversion {
        lenient,
        input,
        ..Conversion::for_machine(machine)
    };
    let mut t = convert(
        name,
        path,
        sha256,
        reader,
        conversion,
        family_grid(machine),
        each,
    )?;
    t.notes = notes;
    Ok(t)
}

/// Why `trace`, neither a catalogued name nor a file, cannot be loaded: a path (it has a directory
/// or an extension) does not exist or is not a file; a name is not catalogued, with the names it
/// likely meant, else every name.
fn not_found(trace: &str, path: &Path, cat: &Catalog) -> LoadError {
    let names = cat.names();
    let near = crate::suggest::did_you_mean(trace, names.iter().copied());
    let looks_like_a_path = path.components().count() > 1 || path.extension().is_some();
    LoadError::Message(match (path.exists(), near) {
        (true, _) => format!("`{trace}` is not a file (a directory?): name an SWF file"),
        (false, None) if looks_like_a_path => format!(
            "`{trace}`: no such file (and not a catalogued trace: `pwa-replay catalog` lists them)"
        ),
        (false, Some(near)) => format!(
            "`{trace}` is not a catalogued trace, {near} (no file of that name either; \
             `pwa-replay catalog` lists them all)"
        ),
        (false, None) => format!(
            "`{trace}` is neither a catalogued trace ({}) nor a file",
            names.join(", ")
        ),
    })
}

fn open(path: &Path, lenient: bool) -> Result<SwfReader, LoadError> {
    let opts = if lenient {
        ReadOptions::lenient()
    } else {
        ReadOptions::strict()
    };
    SwfReader::open(path, opts).map_err(|e| LoadError::Message(chain(&e)))
}

/// The flat machine a raw file's header describes ([`Header::flat_size`]), and the note saying so.
fn flat_from_header(name: &str, header: &Header) -> Result<(MachineSpec, String), LoadError> {
    let Some((key, nodes)) = header.flat_size() else {
        return Err(LoadError::NeedsMachine {
            what: format!(
                "`{name}` has no positive MaxProcs or MaxNodes in its header to size a flat machine from"
            ),
        });
    };
    let machine = MachineSpec::Flat { nodes };
    let note = format!(
        "{name}: no machine given, so a flat machine of {nodes} nodes ({machine}), sized from the header's {key}; name a machine to choose another"
    );
    Ok((machine, note))
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
) -> Result<LoadedTrace, LoadError> {
    let generating = |e: &dyn std::error::Error| LoadError::with(format!("generating {label}"), e);
    let mut header = Header::new();
    let (workload, machine, key) = if label.trim().starts_with("synth:hypercube") {
        let (spec, seed) =
            HypercubeSpec::from_label(label).map_err(|e| LoadError::Message(chain(&e)))?;
        let workload = spec.generate(seed).map_err(|e| generating(&e))?;
        header.push("Computer", &format!("synthetic {}", spec.machine()));
        describe(&mut header, spec.describe(), None);
        (
            workload,
            machine.unwrap_or(spec.machine()),
            spec.label(seed),
        )
    } else if label.trim().starts_with("synth:lublin") {
        let (spec, seed) =
            LublinSpec::from_label(label).map_err(|e| LoadError::Message(chain(&e)))?;
        let workload = spec.generate(seed).map_err(|e| generating(&e))?;
        header.push("Computer", &format!("synthetic {}", spec.machine()));
        describe(&mut header, spec.describe(), Some(seed));
        let key = format!(
            "synth:lublin,nodes={},jobs={},class={},seed={seed}",
            spec.nodes,
            spec.jobs,
            spec.classes.name()
        );
        (workload, machine.unwrap_or(spec.machine()), key)
    } else {
        let (spec, seed) =
            SynthSpec::from_label(label).map_err(|e| LoadError::Message(chain(&e)))?;
        let workload = spec.generate(seed).map_err(|e| generating(&e))?;
        header.push("Computer", &format!("synthetic {}", spec.mesh));
        describe(&mut header, spec.describe(), Some(seed));
        let machine = machine.unwrap_or(MachineSpec::Mesh { size: spec.mesh });
        (workload, machine, canonical_label(&spec, seed))
    };
    let (grid, grid_source) = family_grid(machine);
    Ok(LoadedTrace {
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
        notes: Vec::new(),
    })
}

/// A generated workload's description as `Note` header lines (and its seed).
fn describe(header: &mut Header, lines: Vec<String>, seed: Option<u64>) {
    for line in lines {
        header.push("Note", &line);
    }
    if let Some(seed) = seed {
        header.push("Note", &format!("seed {seed}"));
    }
}

fn load_entry(
    entry: &TraceEntry,
    machine: Option<MachineSpec>,
    (lenient, input): (bool, InputRewrite),
    fetch: Fetch<'_>,
    each: Each<'_>,
) -> Result<LoadedTrace, LoadError> {
    let sp = search_path();
    let path = match sp.find(&entry.file) {
        Some(p) => p.canonicalize().unwrap_or(p),
        None => fetch(entry, &sp)?,
    };
    let sha256 = tracepath::verify_found(&path, entry.sha256.as_deref()).map_err(|e| {
        LoadError::with(
            format!(
                "{} is not the catalogued {}: delete it and run `pwa-replay fetch {}`",
                path.display(),
                entry.name,
                entry.name
            ),
            &e,
        )
    })?;
    let conversion = Conversion {
        lenient,
        input,
        ..entry.conversion_for(machine)
    };
    let grid = if conversion.machine == entry.conversion.machine {
        (entry.grid.clone(), format!("catalog entry {}", entry.name))
    } else {
        family_grid(conversion.machine)
    };
    let reader = open(&path, lenient)?;
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

/// Reads every record of an opened file and converts it.
fn convert(
    name: String,
    path: PathBuf,
    sha256: String,
    mut reader: SwfReader,
    conversion: Conversion,
    (grid, grid_source): (DefaultGrid, String),
    mut each: Each<'_>,
) -> Result<LoadedTrace, LoadError> {
    let mut converter = conversion
        .converter()
        .map_err(|e| LoadError::Message(chain(&e)))?;
    let context = || format!("converting {} for {}", path.display(), conversion.machine);
    for record in reader.by_ref() {
        let record = record.map_err(|e| match e.skip_reason() {
            Some(_) => LoadError::Malformed(chain(&e)),
            None => LoadError::Message(chain(&e)),
        })?;
        match each.as_mut() {
            Some(each) => {
                if let Some(job) = converter
                    .convert(&record)
                    .map_err(|e| LoadError::with(context(), &e))?
                {
                    each(&conversion, &job);
                }
            }
            None => converter
                .push(&record)
                .map_err(|e| LoadError::with(context(), &e))?,
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
        notes: Vec::new(),
    })
}

/// An experiment's [`Source`]: loads catalogued logs and SWF files (strictly, a raw file on a flat
/// machine sized from its header unless the panel names one) through its [`Fetch`], remembering
/// their sha256 for cache keys, and reads `synth:` labels.
pub struct Loader<'a> {
    fetch: Fetch<'a>,
    sha256: Mutex<BTreeMap<String, String>>,
}

impl Default for Loader<'_> {
    fn default() -> Self {
        Loader::new(&no_fetch)
    }
}

impl<'a> Loader<'a> {
    /// A loader that hands logs missing from the search path to `fetch`.
    pub fn new(fetch: Fetch<'a>) -> Self {
        Loader {
            fetch,
            sha256: Mutex::new(BTreeMap::new()),
        }
    }

    /// The sha256 of a log this loader read (of the label itself for anything else).
    pub fn sha256(&self, label: &str) -> String {
        self.sha256
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(label)
            .cloned()
            .unwrap_or_else(|| tracepath::sha256_bytes(label.as_bytes()))
    }
}

impl Source for Loader<'_> {
    fn prepare(
        &self,
        label: &str,
        machine: Option<MachineSpec>,
        jobs: Option<usize>,
        input: InputRewrite,
    ) -> Result<Prepared, CellError> {
        if label.trim_start().starts_with("synth:") {
            return Prepared::synthetic(label, machine);
        }
        let loaded = load(
            label,
            machine,
            false,
            input,
            NoMachine::FlatFromHeader,
            self.fetch,
            None,
        )
        .map_err(|e| -> CellError { e.to_string().into() })?;
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

    fn load_label(label: &str, machine: Option<MachineSpec>) -> Result<LoadedTrace, LoadError> {
        load(
            label,
            machine,
            false,
            InputRewrite::AsLogged,
            NoMachine::Refuse,
            &no_fetch,
            None,
        )
    }

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
        let t = load_label(label, None).unwrap();
        assert_eq!(t.name, label);
        assert_eq!(t.machine.to_string(), "mesh:8x4");
        assert_eq!(t.workload.jobs.len(), 50);
        assert!(t.dropped.is_empty());
        let flat = load_label(label, Some(MachineSpec::Flat { nodes: 32 })).unwrap();
        assert_eq!(flat.machine.to_string(), "flat:32");
        assert_eq!(
            flat.sha256, t.sha256,
            "the machine is not part of the workload"
        );
        assert!(load_label("synth:uniform,mesh=8", None).is_err());
    }

    #[test]
    fn a_missing_log_goes_to_the_fetch_and_a_raw_file_needs_a_machine() {
        let dir = std::env::temp_dir().join(format!("pwa-trace-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let swf = dir.join("tiny.swf");
        std::fs::write(
            &swf,
            "; MaxProcs: 8\n1 0 0 5 2 -1 -1 2 10 -1 1 1 1 -1 1 -1 -1 -1\n",
        )
        .unwrap();
        let path = swf.to_str().unwrap();
        let e = load_label(path, None).unwrap_err();
        assert!(matches!(e, LoadError::NeedsMachine { .. }), "{e}");
        let t = load(
            path,
            None,
            false,
            InputRewrite::AsLogged,
            NoMachine::FlatFromHeader,
            &no_fetch,
            None,
        )
        .unwrap();
        assert_eq!(t.machine, MachineSpec::Flat { nodes: 8 });
        assert!(t.notes[0].contains("MaxProcs"), "{:?}", t.notes);
        let mut seen = 0;
        let streamed = load(
            path,
            Some(MachineSpec::Flat { nodes: 8 }),
            false,
            InputRewrite::AsLogged,
            NoMachine::Refuse,
            &no_fetch,
            Some(&mut |_, _| seen += 1),
        )
        .unwrap();
        assert_eq!((seen, streamed.workload.jobs.len()), (1, 0));
        std::fs::remove_dir_all(&dir).unwrap();
        let mut entry = Catalog::builtin().get("sdsc-96").unwrap().clone();
        entry.file = "no-such-log.swf.gz".into();
        let refused = |e: &TraceEntry, _: &SearchPath| {
            Err(LoadError::Message(format!("{} not here", e.file)))
        };
        let e = load_entry(
            &entry,
            None,
            (false, InputRewrite::AsLogged),
            &refused,
            None,
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "no-such-log.swf.gz not here");
        let e = no_fetch(&entry, &search_path()).unwrap_err();
        assert!(e.to_string().contains("pwa-replay fetch sdsc-96"), "{e}");
    }

    #[test]
    fn a_name_that_is_neither_says_which_it_looked_like() {
        let cat = Catalog::builtin();
        let why = |t: &str| not_found(t, Path::new(t), &cat).to_string();
        let near = why("kth-sp3");
        assert!(near.contains("did you mean `kth-sp2`?"), "{near}");
        assert!(
            !near.contains("sdsc-blue"),
            "no list beside a suggestion: {near}"
        );
        let path = why("/tmp/pwa-no-such-dir/nope.swf");
        assert!(path.contains("no such file"), "{path}");
        assert!(!path.contains("neither"), "{path}");
        assert!(why("nope.swf").contains("no such file"));
        let far = why("no-such-log");
        assert!(
            far.contains("neither a catalogued trace") && far.contains("kth-sp2"),
            "{far}"
        );
        let dir = std::env::temp_dir();
        let e = not_found(dir.to_str().unwrap(), &dir, &cat).to_string();
        assert!(e.contains("not a file"), "{e}");
    }

    #[test]
    fn synthetic_models_keep_time_in_their_own_units_and_lublin_in_seconds() {
        assert_eq!(TimeUnit::of("sdsc-96"), TimeUnit::Seconds);
        assert_eq!(TimeUnit::of("/tmp/w.swf"), TimeUnit::Seconds);
        assert_eq!(TimeUnit::of("synth:lublin,nodes=128"), TimeUnit::Seconds);
        assert_eq!(
            TimeUnit::of("synth:uniform-decreasing,rate=1"),
            TimeUnit::Model
        );
        assert_eq!(TimeUnit::of(" synth:hypercube,dim=7"), TimeUnit::Model);
    }
}
