//! The command line's face of the library's loader ([`pwa_replay::trace`]): the options naming a
//! workload (`--trace`, `--machine`, `--lenient`), shared by `stats`, `run` and `sweep`; loading
//! that downloads a catalogued log missing from the search path once (see `download`) unless
//! `$PWA_OFFLINE` is `1`; and what was chosen for the user (a flat machine sized from a file's
//! header, jobs dropped as never fitting) said on stderr.

use std::path::PathBuf;

use pwa_replay::catalog::TraceEntry;
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::trace::{self as lib, LoadError};
use pwa_replay::workload::rewrite::InputRewrite;
use pwa_replay::workload::tracepath::SearchPath;
use pwa_replay::workload::{Conversion, EstimateModel, Job};

pub use pwa_replay::trace::{LoadedTrace, NoMachine, catalog, search_path};

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
    /// Loads the workload these options name, its records read as `input` says (the replay's
    /// semantics; see [`lib::load`]).
    pub fn load(&self, no_machine: NoMachine, input: InputRewrite) -> anyhow::Result<LoadedTrace> {
        load_into(
            &self.trace,
            self.machine,
            (self.lenient, input),
            no_machine,
            None,
        )
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
            (self.lenient, InputRewrite::AsLogged),
            no_machine,
            Some(each),
        )
    }
}

/// Loads a catalogued trace by name (downloading it when missing and online), a raw SWF file by
/// path, or generates a `synth:` workload ([`pwa_replay::trace::load`]); notes go to stderr.
fn load_into(
    trace: &str,
    machine: Option<MachineSpec>,
    (lenient, input): (bool, InputRewrite),
    no_machine: NoMachine,
    each: lib::Each<'_>,
) -> anyhow::Result<LoadedTrace> {
    let t = lib::load(trace, machine, lenient, input, no_machine, &download, each).map_err(
        |e| match e {
            LoadError::NeedsMachine { what } => anyhow::anyhow!(
                "{what}: say which machine with --machine (e.g. {}){}",
                lib::MACHINE_EXAMPLES,
                if no_machine == NoMachine::Refuse {
                    "; with --alloc flat, a flat machine sized from its header is used"
                } else {
                    ""
                }
            ),
            LoadError::Malformed(what) => {
                anyhow::anyhow!("{what} (--lenient skips malformed lines and counts them)")
            }
            e => e.into(),
        },
    )?;
    for note in &t.notes {
        eprintln!("{note}");
    }
    if !t.skipped.is_empty() {
        eprintln!("{}: --lenient: {}", t.name, t.skipped);
    }
    Ok(t)
}

/// The [`lib::Fetch`] of the command line: downloads a catalogued log into the first directory of
/// the search path, unless `$PWA_OFFLINE=1` (then the error says how to install it by hand).
pub fn download(entry: &TraceEntry, sp: &SearchPath) -> Result<PathBuf, LoadError> {
    let Some(dir) = sp.dirs().first().cloned() else {
        return Err(LoadError::Message("no trace directory to look in".into()));
    };
    if entry.folder.is_none() {
        return Err(LoadError::Message(format!(
            "{} is not on the search path\n{}",
            entry.file,
            crate::download::offline_help(entry, sp, &dir)
        )));
    }
    if crate::download::offline() {
        return Err(LoadError::Message(format!(
            "{} is not on the search path and PWA_OFFLINE=1 forbids downloading it\n{}",
            entry.file,
            crate::download::offline_help(entry, sp, &dir)
        )));
    }
    eprintln!(
        "{} ({}) is not on the search path; downloading it into {} …",
        entry.name,
        entry.file,
        dir.display()
    );
    crate::download::fetch_entry(entry, &crate::download::base_url(None), &dir).map_err(|e| {
        LoadError::Message(format!(
            "{:#}",
            crate::download::with_help(e, entry, sp, &dir)
        ))
    })
}

/// Drops (and counts) the jobs some allocator of `allocs` can never place (`--lenient`), said on
/// stderr.
pub fn drop_never_fitting(t: &mut LoadedTrace, allocs: &[AllocKind]) -> anyhow::Result<()> {
    let n = t.drop_never_fitting(allocs)?;
    if n > 0 {
        eprintln!(
            "{}: dropped {n} job(s) that {} can never place (--lenient)",
            t.name,
            allocs
                .iter()
                .map(|a| a.label())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// What the estimate models that [read requested times](EstimateModel::reads_requested) among
/// `models` do with a log of `jobs` jobs, `without` of which have none (SWF field 9): a job's run
/// time stands in for its user estimate. `None` when nothing falls back.
pub fn fallback_note(models: &[EstimateModel], jobs: usize, without: usize) -> Option<String> {
    let reading: Vec<String> = models
        .iter()
        .filter(|m| m.reads_requested())
        .map(ToString::to_string)
        .collect();
    if reading.is_empty() || without == 0 {
        return None;
    }
    let under = reading.join(", ");
    Some(match (without == jobs, &reading[..]) {
        (true, [only]) if only == "user" => "no job has a requested time (SWF field 9): user \
             estimates are the run times, the same as exact"
            .to_string(),
        (true, _) => format!(
            "no job has a requested time (SWF field 9): under {under} the run time stands in for \
             every user estimate"
        ),
        (false, _) => format!(
            "{} of {} jobs have no requested time (SWF field 9): under {under} their run time \
             stands in for the user estimate",
            crate::report::human::count(without as u64),
            crate::report::human::count(jobs as u64)
        ),
    })
}

/// The experiments' workload source, downloading missing logs as [`load`] does.
pub type Loader = lib::Loader<'static>;

/// A [`Loader`] that downloads missing logs.
pub fn loader() -> Loader {
    Loader::new(&download)
}
