//! `pwa-replay sweep`: a trace under a grid of schedulers × allocators × load factors, in parallel,
//! behind a progress bar; writes the summary table, figures and report (see docs/OUTPUTS.md).
//! Without `--sched` / `--alloc`, the trace's default grid (its catalog entry's, else its machine
//! family's) fills in what is missing, said on stderr.
//!
//! The sweep is the one-panel experiment of its flags ([`SweepSpec`]), run by the experiment
//! executor ([`run::run`]) with the replica cache of `experiment` ([`Replicas`]); this module loads
//! the trace, wraps every replica (stop check, per-job / SWF files, progress, failures) and
//! writes the sweep's own outputs from the results.
//!
//! A `--sched` label with a `py:` part is a Python series ([`Policy::External`], docs/OUTPUTS.md,
//! "Python series"): its digest ([`python::digests`]: its file, relative to the current
//! directory, and the local modules it imports) keys its cells and the sweep's `config_hash`, and
//! each of its replicas is replayed by a worker process ([`Workers::replay_run`]) that returns the
//! schedule too, from which the per-user, per-job and SWF files are written as for a built-in
//! cell.
//!
//! `--shake N` replays every cell N times on shaken input ([`pwa_replay::workload::shake`]) and
//! reports means with 95% intervals. Robustness (docs/OUTPUTS.md, "Robustness"): the output
//! directory is locked against a second sweep; temporaries of killed runs are removed; on Ctrl-C no
//! new cell starts, finished cells stay in the cache and the run exits 130 with a `--resume` hint;
//! a cell whose replay fails (a Python policy that raises) fails alone — the others run and are
//! cached, and the run exits 1 naming every failed cell, as `experiment` does — while the first
//! failure to write (a full disk, say), which every later cell would meet too, stops the sweep
//! the way Ctrl-C does, with its error.
//!
//! `--shard I/N` runs one of `N` parts of the grid ([`sweep::partition`]) into a partial directory
//! that `pwa-replay merge` puts back together; `--slurm N` writes the batch scripts of such a sweep
//! ([`crate::slurm`]). Every run ends with `manifest.json` ([`report::write_outputs`]).

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use anyhow::Context;
use pwa_replay::catalog::DefaultGrid;
use pwa_replay::engine::users::per_user;
use pwa_replay::engine::{self, ReplayOptions, RunMetrics};
use pwa_replay::experiment::external::External;
use pwa_replay::experiment::run::{self, Replica};
use pwa_replay::experiment::sweep::{Given, SweepSpec};
use pwa_replay::experiment::{self, Results};
use pwa_replay::machine::AllocKind;
use pwa_replay::sched::{SchedKind, SchedParseError};
use pwa_replay::sweep::{
    self, Cell, CellError, CellEvent, CellResult, Grid, LoadSpec, Policy, Series, Shard,
};
use pwa_replay::swf::Header;
use pwa_replay::workload::EstimateModel;
use pwa_replay::workload::shake::{DEFAULT_SUBMIT_S, ShakeModel};
use pwa_replay::workload::tracepath::sha256_bytes;

use crate::options::ReplayArgs;
use crate::report::atomic::remove_stale_temporaries;
use crate::report::lock::OutLock;
use crate::report::manifest::{Manifest, SweepInfo, TraceInfo};
use crate::report::progress::{self, Interrupted, Progress};
use crate::report::spread;
use crate::report::table::SummaryRow;
use crate::report::{self, RunConfig, jobs};
use crate::slurm::SlurmArgs;
use crate::study::Replicas;
use crate::study::python::{self, Workers};
use crate::trace::{LoadedTrace, NoMachine, TraceArgs};

/// Options of `pwa-replay sweep`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workload: trace, machine, leniency.
    #[command(flatten)]
    pub input: TraceArgs,
    // The label lists come from the library's registries.
    #[arg(long, value_delimiter = ',', value_name = "S,…", value_parser = sched_label, help = super::sched_help(
        "Schedulers, comma-separated (default: the trace's default grid, see `pwa-replay catalog`); \
         write a gang label's own parameters with `;` here (`gang:slice=600;nmax=4`); a Python \
         series is `py:FILE:Class[:key=value;…]` or `easy:order=py:FILE:function`, FILE relative \
         to the current directory (docs/PYTHON.md)"
    ))]
    pub sched: Vec<Policy>,
    #[arg(long, value_delimiter = ',', value_name = "A,…", help = super::alloc_help(
        "Allocators, comma-separated (default: the trace's default grid)"
    ))]
    pub alloc: Vec<AllocKind>,
    /// Run-time estimate models, comma-separated: exact, user (SWF field 9, the run time where the
    /// log has none), xF (the run time × F), predict and predict:estimate (EASY++'s predictions), tsafrir (modeled user
    /// estimates); a grid dimension (default: the trace's default grid,
    /// else exact).
    #[arg(long, value_delimiter = ',', value_name = "E,…")]
    pub estimate: Vec<EstimateModel>,
    /// The replay options of every cell.
    #[command(flatten)]
    pub options: ReplayArgs,
    /// Load factors: `FROM:TO:STEP`, a list `0.5,1,1.5`, or `auto` (0.1 upwards until every
    /// policy is two points past the knee of its turnaround curve; capped at 3.0;
    /// `auto:FROM:CAP:STEP[:MARGIN]` for another start, cap and step, and MARGIN points kept past
    /// each policy's first saturated load factor instead of 2).
    #[arg(long, default_value = "auto", allow_hyphen_values = true)]
    pub loads: LoadSpec,
    /// Output directory (default `out/<trace>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Reuse cells finished by an earlier run into the same directory (same trace, machine, labels).
    #[arg(long)]
    pub resume: bool,
    /// Also write a per-job Parquet table per cell under `jobs/`.
    #[arg(long)]
    pub per_job: bool,
    /// Also write each cell's simulated schedule as SWF under `swf/`.
    #[arg(long)]
    pub swf_out: bool,
    /// No progress output.
    #[arg(long)]
    pub quiet: bool,
    /// Check every schedule with the independent validator.
    #[arg(long)]
    pub validate: bool,
    /// Log scale on the time axes (applied anyway where a curve spans more than 100×).
    #[arg(long)]
    pub log_y: bool,
    /// Replay every cell N times on shaken input (Tsafrir et al. 2007) and report the mean with a
    /// 95% interval (N ≥ 2; replica seeds derive from the cell).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(2..),
          conflicts_with_all = ["per_job", "swf_out", "slurm"])]
    pub shake: Option<u32>,
    /// `--shake`: submit times move by an offset uniform in ±SECONDS [default: 10].
    #[arg(long, value_name = "SECONDS", requires = "shake")]
    pub shake_submit: Option<f64>,
    /// `--shake`: run times are multiplied by a factor uniform in 1 ± FRACTION (0 ≤ FRACTION < 1)
    /// [default: 0, off].
    #[arg(long, value_name = "FRACTION", requires = "shake")]
    pub shake_runtime: Option<f64>,
    /// Run only part I of N of the grid (I from 0), balanced by expected cost, into a partial
    /// directory for `pwa-replay merge`; needs a fixed load list (not with `--shake` yet).
    #[arg(long, value_name = "I/N", conflicts_with = "shake")]
    pub shard: Option<Shard>,
    /// Slurm job-array scripts (needs a fixed load list; not with `--shake` yet).
    #[command(flatten)]
    pub batch: SlurmArgs,
}

impl Args {
    /// The replicas and model of `--shake`, checked.
    fn shaking(&self) -> anyhow::Result<Option<(u32, ShakeModel)>> {
        let Some(n) = self.shake else {
            return Ok(None);
        };
        let model = ShakeModel {
            submit_s: self.shake_submit.unwrap_or(DEFAULT_SUBMIT_S),
            runtime_frac: self.shake_runtime.unwrap_or(0.0),
        };
        model.check().context("--shake-submit / --shake-runtime")?;
        Ok(Some((n, model)))
    }
}

/// A `--sched` label: a built-in scheduler, or a Python series (a label with a `py:` part, its
/// digest read by [`resolve_python`]).
fn sched_label(label: &str) -> Result<Policy, String> {
    label.parse().map_err(|e: SchedParseError| e.to_string())
}

/// Gives every Python series of `--sched` its digest (its file relative to the current directory
/// and the local modules it imports, [`python::digests`]: one interpreter call for all), which
/// keys its cells: editing the policy's code re-simulates them.
fn resolve_python(sched: &mut [Policy]) -> anyhow::Result<()> {
    let mut external: Vec<&mut External> =
        sched.iter_mut().filter_map(Policy::external_mut).collect();
    if external.is_empty() {
        return Ok(());
    }
    let labels: Vec<String> = external.iter().map(|e| e.label.clone()).collect();
    let digests = python::digests(Path::new("."), &labels).context("--sched")?;
    for (e, d) in external.iter_mut().zip(digests) {
        e.digest = d;
    }
    Ok(())
}

/// The Python series' labels of `--sched`.
fn python_labels(args: &Args) -> Vec<String> {
    args.sched
        .iter()
        .filter_map(Policy::external)
        .map(|e| e.label.clone())
        .collect()
}

/// A cell's replay failed (a Python policy raised, the engine refused the schedule …): the cell
/// fails, the other cells go on.
#[derive(Debug)]
struct Failed(CellError);

impl fmt::Display for Failed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&sweep::chain(&*self.0))
    }
}

impl std::error::Error for Failed {}

/// The marker a replica returns when the sweep is stopping (Ctrl-C or an earlier failure).
#[derive(Debug)]
struct Stopped;

impl fmt::Display for Stopped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not started: the sweep is stopping")
    }
}

impl std::error::Error for Stopped {}

/// Runs the subcommand.
pub fn run(mut args: Args) -> anyhow::Result<()> {
    let t0 = Instant::now();
    if (args.shard.is_some() || args.batch.slurm.is_some())
        && matches!(args.loads, LoadSpec::Auto(_))
    {
        anyhow::bail!(
            "--shard and --slurm need a fixed load list (--loads 0.1:3:0.1 or 0.5,1,1.5): `auto` \
             picks load factors from results that one shard cannot see"
        );
    }
    // A missing plot font is an error before any simulation, not after it.
    report::plots::register_font()?;
    let (mut loaded, estimates) = load(&mut args)?;
    let spec = sweep_spec(&args, &loaded)?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new("out").join(&loaded.name));
    if let Some(tasks) = args.batch.slurm {
        return slurm_scripts(&args, &loaded, &out, tasks as usize);
    }
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let lock = OutLock::acquire(&out)?;
    let earlier = earlier_wall_times(&args, &out, &loaded);
    let stale = remove_stale_temporaries(&out)?;
    if stale > 0 && !args.quiet {
        eprintln!("removed {stale} temporary files left by an interrupted run");
    }
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let manifest = Manifest::begin(threads);
    // The jobs move to the executor; the sweep keeps their count.
    let jobs = loaded.workload.jobs.len();
    let (results, tally) = execute(&args, &mut loaded, &spec, (&out, &lock), threads)?;
    let (rows, done) = rows(&loaded, &spec, &results)?;
    let mut grid_cells = spec.cells();
    if grid_cells.is_empty() {
        // `auto`: the cells it climbed to.
        grid_cells = done.iter().map(|r| r.cell.clone()).collect();
    }
    let mut config = config(&args, &loaded, jobs, threads, &tally, t0);
    estimates.record(&mut config);
    config.earlier_wall_s = earlier;
    let manifest = provenance(manifest, &args, &spec, (&loaded, jobs), &grid_cells, &done);
    lock.check()?;
    report::write_outputs(&out, &rows, &config, args.log_y, manifest)?;
    if !args.quiet {
        let earlier: f64 = config.earlier_wall_s.iter().sum();
        eprintln!(
            "{} cells ({} simulated, {} reused) in {:.1} s{} → {}; open {} in a browser",
            rows.len(),
            config.simulated,
            config.reused,
            config.wall_s,
            if earlier > 0.0 {
                format!(" (earlier runs: {earlier:.1} s)")
            } else {
                String::new()
            },
            out.display(),
            out.join(report::html::INDEX).display()
        );
    }
    Ok(())
}

/// The trace the flags name, with the default grid filled in where they name none, the jobs that
/// never fit dropped under `--lenient`, and every allocator checked on its machine; and what the
/// estimate models do with it, said on stderr.
fn load(args: &mut Args) -> anyhow::Result<(LoadedTrace, EstimateNotes)> {
    let no_machine = if args.alloc.iter().all(|&a| a == AllocKind::Flat) {
        NoMachine::FlatFromHeader
    } else {
        NoMachine::Refuse
    };
    let input = args.options.options()?.semantics.input;
    let mut loaded = args.input.load(no_machine, input)?;
    let grid = loaded.grid.for_log(&loaded.workload);
    fill_in_default_grid(args, &loaded.grid, &grid, &loaded.grid_source);
    resolve_python(&mut args.sched)?;
    let (series, once) = series(args)?;
    check_parts(args, series.len())?;
    if args.input.lenient {
        crate::trace::drop_never_fitting(&mut loaded, &args.alloc)?;
    }
    let estimates = EstimateNotes::of(args, &loaded, &once);
    estimates.say(&loaded.name);
    for a in &args.alloc {
        // Fail before any work when an allocator does not suit the machine.
        a.build(loaded.machine).with_context(|| {
            format!(
                "--alloc {a} on {} ({}); leave --alloc out for its default: {} ({})",
                loaded.name,
                loaded.machine,
                labels(&loaded.grid.allocators),
                loaded.grid_source
            )
        })?;
    }
    Ok((loaded, estimates))
}

/// The series the flags name, without those that would repeat another, and the schedulers
/// replayed under the first estimate model only ([`Grid::series_once`]).
fn series(args: &Args) -> anyhow::Result<(Vec<Series>, Vec<SchedKind>)> {
    let grid = Grid {
        schedulers: args.sched.clone(),
        allocators: args.alloc.clone(),
        loads: Vec::new(),
        estimates: args.estimate.clone(),
    };
    Ok(grid.series_once(&args.options.options()?))
}

/// The one-panel experiment the flags describe.
fn sweep_spec(args: &Args, loaded: &LoadedTrace) -> anyhow::Result<SweepSpec> {
    let shaking = args.shaking()?;
    let spec = SweepSpec {
        workload: loaded.name.clone(),
        machine: loaded.machine,
        series: series(args)?.0,
        loads: args.loads.clone(),
        replicas: shaking.map_or(1, |(n, _)| n as usize),
        shake: shaking.map(|(_, model)| model),
        options: args.options.options()?,
    };
    // Every label and queue order is checked before anything is written or replayed.
    spec.plan().map_err(anyhow::Error::msg)?;
    Ok(spec)
}

/// Runs the sweep's units (its part of them under `--shard`) on `threads` workers through the
/// replica cache under `out` (which `lock` holds), behind the progress bar; the workload moves to
/// the executor. The results, and the replicas simulated and reused.
fn execute(
    args: &Args,
    loaded: &mut LoadedTrace,
    spec: &SweepSpec,
    (out, lock): (&Path, &OutLock),
    threads: usize,
) -> anyhow::Result<(Results, Tally)> {
    let plan = spec.plan().map_err(anyhow::Error::msg)?;
    let stop = progress::stop_on_ctrl_c()?;
    let units = spec.units(args.shard);
    let loader = crate::trace::loader();
    let context = cell_context(loaded, loaded.workload.jobs.len());
    let replicas = Replicas::with_context(out, args.resume, lock, &stop, &loader, context);
    let open_ended = matches!(spec.loads, LoadSpec::Auto(_));
    let progress = Progress::new(args.quiet, open_ended);
    let source = Given {
        workload: Arc::new(std::mem::take(&mut loaded.workload)),
        machine: loaded.machine,
    };
    let planned = (!open_ended).then_some(units.len());
    let workers = Workers::for_labels(Path::new("."), &python_labels(args))?;
    let mut cells = CellRun::new(args, loaded, out, &replicas, &progress, &stop, planned)?;
    cells.workers = workers.as_ref();
    let hook = |r: &Replica<'_>, _: &dyn Fn() -> Result<RunMetrics, CellError>| cells.replica(r);
    let results = run::run(&plan, &units, &source, &hook, &|_| {}, threads);
    progress.finish();
    let results = cells.finish(results, lock)?;
    let (simulated, reused, damaged) = replicas.tally();
    if damaged > 0 {
        eprintln!(
            "recomputed {damaged} damaged cache entries under {}",
            out.join("cells").display()
        );
    }
    let tally = Tally {
        simulated,
        reused,
        reused_replay_s: replicas.reused_wall_s(),
    };
    Ok((results, tally))
}

/// The replicas a sweep simulated and reused, and the replay time the reused ones had taken.
struct Tally {
    simulated: usize,
    reused: usize,
    reused_replay_s: f64,
}

/// With `--resume`, the wall times of the earlier complete runs of this sweep into `out` (its
/// `sweep.json`, when it is of the same trace), oldest first: the report keeps them beside this
/// run's.
fn earlier_wall_times(args: &Args, out: &Path, loaded: &LoadedTrace) -> Vec<f64> {
    if !args.resume {
        return Vec::new();
    }
    match report::read_config(out) {
        Ok(Some(c)) if c.trace_sha256 == loaded.sha256 => {
            let mut earlier = c.earlier_wall_s;
            earlier.push(c.wall_s);
            earlier
        }
        _ => Vec::new(),
    }
}

/// Refuses more shards (or Slurm tasks) than the grid (of `series` series) has cells: an empty
/// part would fail.
fn check_parts(args: &Args, series: usize) -> anyhow::Result<()> {
    let LoadSpec::List(loads) = &args.loads else {
        return Ok(());
    };
    let cells = series * loads.len();
    let parts = args
        .shard
        .map(|s| s.count)
        .or(args.batch.slurm.map(|n| n as usize));
    match parts {
        Some(n) if n > cells => anyhow::bail!(
            "{n} shards for a grid of {cells} cells: use at most {cells} (one cell per shard)"
        ),
        _ => Ok(()),
    }
}

/// Puts the default grid's schedulers / allocators / estimates where none were named, and says so
/// on stderr: `listed` is the grid as listed (`pwa-replay catalog`), `grid` the one for this log
/// (no `user` estimates when it has no requested times, [`DefaultGrid::for_log`]).
fn fill_in_default_grid(args: &mut Args, listed: &DefaultGrid, grid: &DefaultGrid, source: &str) {
    let mut filled = Vec::new();
    if args.sched.is_empty() {
        args.sched = grid.schedulers.iter().map(|&s| s.into()).collect();
        filled.push(format!("--sched {}", labels(&args.sched)));
    }
    if args.alloc.is_empty() {
        args.alloc = grid.allocators.clone();
        filled.push(format!("--alloc {}", labels(&args.alloc)));
    }
    if args.estimate.is_empty() && !listed.estimates.is_empty() {
        args.estimate = grid.estimates.clone();
        let left_out: Vec<_> = listed
            .estimates
            .iter()
            .filter(|e| !grid.estimates.contains(e))
            .collect();
        let why = if left_out.is_empty() {
            String::new()
        } else {
            format!(
                " (not {}: no job of the log has a requested time)",
                labels(&left_out)
            )
        };
        filled.push(format!("--estimate {}{why}", labels(&args.estimate)));
    }
    if !filled.is_empty() {
        eprintln!("default grid ({source}): {}", filled.join(" "));
    }
}

/// What the estimate models of a sweep do with this log, said once on stderr and recorded in
/// `sweep.json` for the report: how many jobs fall back to their run time under the models that
/// read requested times, and which schedulers were replayed under one model only.
struct EstimateNotes {
    /// The sweep's estimate models.
    models: Vec<EstimateModel>,
    /// Jobs replayed, and those without a requested time.
    jobs: usize,
    without: usize,
    /// Schedulers replayed under the first model only ([`Grid::series_once`]).
    once: Vec<SchedKind>,
}

impl EstimateNotes {
    fn of(args: &Args, loaded: &LoadedTrace, once: &[SchedKind]) -> EstimateNotes {
        EstimateNotes {
            models: args.estimate.clone(),
            jobs: loaded.workload.jobs.len(),
            without: loaded.workload.without_requested_time(),
            once: once.to_vec(),
        }
    }

    /// Says on stderr what fell back and what ran once.
    fn say(&self, trace: &str) {
        if let Some(fallback) = self.fallback() {
            eprintln!("{trace}: {fallback}");
        }
        if let Some(once) = self.replayed_once() {
            eprintln!("{once}");
        }
    }

    /// How many jobs fall back to their run time ([`crate::trace::fallback_note`]).
    fn fallback(&self) -> Option<String> {
        crate::trace::fallback_note(&self.models, self.jobs, self.without)
    }

    /// `fcfs does not plan with run-time estimates: replayed once, under exact`.
    fn replayed_once(&self) -> Option<String> {
        let first = self.models.first()?;
        (!self.once.is_empty()).then(|| {
            format!(
                "{} {} not plan with run-time estimates: replayed once, under {first} (the same \
                 schedule under every model)",
                labels(&self.once),
                if self.once.len() == 1 { "does" } else { "do" }
            )
        })
    }

    /// Puts the notes into the sweep's configuration (`sweep.json`, the reports).
    fn record(&self, c: &mut RunConfig) {
        c.estimate_notes = self
            .fallback()
            .into_iter()
            .chain(self.replayed_once())
            .collect();
    }
}

/// Labels joined by commas, as on the command line.
fn labels<T: ToString>(v: &[T]) -> String {
    v.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The workload every cell of the sweep replays, which its cache keys name (the replay options are
/// in each cell's id, [`experiment::Cell::id`]).
fn cell_context(loaded: &LoadedTrace, jobs: usize) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("trace_sha256".to_string(), loaded.sha256.clone()),
        ("machine".to_string(), loaded.machine.to_string()),
        ("conversion".to_string(), format!("{:?}", loaded.conversion)),
        ("jobs".to_string(), jobs.to_string()),
        ("version".to_string(), env!("CARGO_PKG_VERSION").to_string()),
    ])
}

/// Around every replica the executor runs: the stop check, the cache ([`Replicas`]), the Python
/// workers of external series, the per-cell files, the progress display (a cell starts with its
/// first replica and ends with its last) and the failures: a failed replay fails its cell (the
/// others go on), a failure to write (a full disk, say) stops the sweep.
struct CellRun<'a> {
    args: &'a Args,
    loaded: &'a LoadedTrace,
    out: &'a Path,
    header: Header,
    /// The source log's fields the jobs do not carry, for `--swf-out` (empty without it, or for
    /// a synthetic workload).
    source: jobs::SourceFields,
    replicas: &'a Replicas<'a>,
    progress: &'a Progress,
    stop: &'a AtomicBool,
    /// Cells under way, by [`experiment::Cell::id`]: their progress id, start and replicas done.
    running: Mutex<BTreeMap<String, (usize, Instant, usize)>>,
    /// Cells started, planned (all at once for a list; `auto` plans them as they start) and
    /// finished.
    started: AtomicUsize,
    planned: AtomicUsize,
    finished: AtomicUsize,
    /// The first real failure (the sweep stops on it).
    failure: Mutex<Option<anyhow::Error>>,
    /// The cells whose replay failed, with why (the others run on).
    failed: Mutex<Vec<(Cell, String)>>,
    /// The workers of the Python series (`None` without any).
    workers: Option<&'a Workers>,
}

impl<'a> CellRun<'a> {
    /// The wrapper of a sweep of `planned` cells (`None`: `auto`, planned as they start).
    fn new(
        args: &'a Args,
        loaded: &'a LoadedTrace,
        out: &'a Path,
        replicas: &'a Replicas<'a>,
        progress: &'a Progress,
        stop: &'a AtomicBool,
        planned: Option<usize>,
    ) -> anyhow::Result<Self> {
        let source = if args.swf_out && loaded.path.is_file() {
            jobs::SourceFields::read(&loaded.path)
                .with_context(|| format!("reading {} again for --swf-out", loaded.path.display()))?
        } else {
            jobs::SourceFields::default()
        };
        if let Some(cells) = planned {
            progress.event(CellEvent::Planned { cells });
        }
        Ok(CellRun {
            args,
            loaded,
            out,
            header: swf_header(loaded),
            source,
            replicas,
            progress,
            stop,
            running: Mutex::new(BTreeMap::new()),
            started: AtomicUsize::new(0),
            planned: AtomicUsize::new(planned.unwrap_or(0)),
            finished: AtomicUsize::new(0),
            failure: Mutex::new(None),
            failed: Mutex::new(Vec::new()),
            workers: None,
        })
    }

    /// The run's results, or why there are none: the first failure to write (or the output
    /// directory gone), else the interrupt with the `--resume` hint, else every failed cell.
    fn finish(
        &self,
        results: Result<Results, run::RunError>,
        lock: &OutLock,
    ) -> anyhow::Result<Results> {
        let failure = self
            .failure
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(e) = failure {
            // A cell that failed to write because the directory went away reports the cause.
            lock.check()?;
            return Err(e);
        }
        if self.stop.load(Ordering::SeqCst) {
            return Err(Interrupted {
                finished: self.finished.load(Ordering::SeqCst),
                planned: Some(self.planned.load(Ordering::SeqCst)),
                unit: "cells",
            }
            .into());
        }
        let mut failed =
            std::mem::take(&mut *self.failed.lock().unwrap_or_else(PoisonError::into_inner));
        if !failed.is_empty() {
            failed.sort_by(|(a, _), (b, _)| {
                (a.series().to_string().cmp(&b.series().to_string()))
                    .then(a.load_factor.total_cmp(&b.load_factor))
            });
            let list: Vec<String> = failed
                .iter()
                .map(|(cell, why)| format!("  cell {cell}: {}", why.replace('\n', "\n    ")))
                .collect();
            anyhow::bail!(
                "{} cell(s) failed; the other cells finished and are cached (run again with \
                 --resume to replay only the failed ones):\n{}",
                failed.len(),
                list.join("\n")
            );
        }
        Ok(results?)
    }

    /// One replica of a cell; a failed replay fails its cell, any other failure is kept in
    /// `failure` and stops the sweep.
    fn replica(&self, r: &Replica<'_>) -> Result<RunMetrics, CellError> {
        let cell = r.cell.sweep_cell();
        if self.stop.load(Ordering::SeqCst) {
            return Err(Box::new(Stopped));
        }
        self.started(r.cell, &cell);
        let outputs = self.outputs_exist(&cell);
        match self
            .replicas
            .get_with(r, outputs, &|| self.simulate(r, &cell))
        {
            Ok(m) => {
                self.done(r.cell, &cell);
                Ok(m)
            }
            Err(e) if e.is::<Failed>() => {
                let why = e.to_string();
                self.failed
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((cell.clone(), why));
                self.ended(r.cell, &cell);
                Err(e)
            }
            Err(e) => {
                self.halt(&cell, e);
                Err(Box::new(Stopped))
            }
        }
    }

    /// Keeps the first real failure and stops the sweep; what fails once the sweep is stopping
    /// ([`Stopped`], the cache's refusal) is a consequence, not a cause.
    fn halt(&self, cell: &Cell, e: CellError) {
        if e.is::<Stopped>() || self.stop.swap(true, Ordering::SeqCst) {
            return;
        }
        let mut first = self.failure.lock().unwrap_or_else(PoisonError::into_inner);
        first.get_or_insert(anyhow::Error::from_boxed(e).context(format!("cell {cell} failed")));
    }

    /// The cell starts with its first replica.
    fn started(&self, c: &experiment::Cell, cell: &Cell) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        if let std::collections::btree_map::Entry::Vacant(v) = running.entry(c.id()) {
            let id = self.started.fetch_add(1, Ordering::SeqCst);
            if matches!(self.args.loads, LoadSpec::Auto(_)) {
                self.planned.fetch_add(1, Ordering::SeqCst);
                self.progress.event(CellEvent::Planned { cells: 1 });
            }
            v.insert((id, Instant::now(), 0));
            self.progress.event(CellEvent::Started {
                id,
                cell: cell.clone(),
            });
        }
    }

    /// The cell ends with its last replica.
    fn done(&self, c: &experiment::Cell, cell: &Cell) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let key = c.id();
        let Some(entry) = running.get_mut(&key) else {
            return;
        };
        entry.2 += 1;
        if entry.2 < c.rule.max {
            return;
        }
        drop(running);
        self.ended(c, cell);
    }

    /// The cell ends: done, or failed (its other replicas do not run).
    fn ended(&self, c: &experiment::Cell, cell: &Cell) {
        let mut running = self.running.lock().unwrap_or_else(PoisonError::into_inner);
        let Some((id, t0, _)) = running.remove(&c.id()) else {
            return;
        };
        drop(running);
        self.finished.fetch_add(1, Ordering::SeqCst);
        self.progress.event(CellEvent::Finished {
            id,
            cell: cell.clone(),
            wall_s: t0.elapsed().as_secs_f64(),
        });
    }

    /// One replay of the replica (by a Python worker for an external series, its schedule then
    /// checked here with `--validate`), its per-user table, and its per-job table and SWF schedule
    /// when asked. A failed replay is [`Failed`]; a failure to write is not.
    fn simulate(&self, r: &Replica<'_>, cell: &Cell) -> Result<RunMetrics, CellError> {
        let machine = self.loaded.machine;
        let replayed = match (&r.cell.sched, self.workers) {
            (Policy::External(_), Some(w)) => w.replay_run(r).and_then(|run| {
                if self.args.validate {
                    engine::validate(&run.workload, machine, &run.outcome)?;
                }
                Ok(run)
            }),
            _ => run::replay(r.prepared, r.cell, r.seed, self.args.validate),
        };
        let run = replayed.map_err(|e| -> CellError { Box::new(Failed(e)) })?;
        let users = per_user(&run.workload, &run.outcome);
        jobs::write_users(&jobs::users_table_path(self.out, cell), &users)?;
        if self.args.per_job {
            let path = jobs::per_job_path(self.out, cell);
            jobs::write_per_job(&path, &run.workload, machine, &run.outcome)?;
        }
        if self.args.swf_out {
            let path = jobs::swf_path(self.out, cell);
            let mut header = self.header.clone();
            header.push("Note", &format!("simulated schedule of {cell}"));
            jobs::write_swf(&path, &header, &run.workload, &run.outcome, &self.source)?;
        }
        Ok(run.metrics)
    }

    fn outputs_exist(&self, cell: &Cell) -> bool {
        jobs::users_table_path(self.out, cell).is_file()
            && (!self.args.per_job || jobs::per_job_path(self.out, cell).is_file())
            && (!self.args.swf_out || jobs::swf_path(self.out, cell).is_file())
    }
}

/// The summary rows in grid order (series by series, load factors as given or climbed) and the
/// cells they are of: each cell's replay, or the mean and spread of its shaken replicas.
fn rows(
    loaded: &LoadedTrace,
    spec: &SweepSpec,
    results: &Results,
) -> anyhow::Result<(Vec<SummaryRow>, Vec<CellResult>)> {
    let mut rows = Vec::new();
    let mut done = Vec::new();
    for (cell, reps) in spec.replicas(results).map_err(anyhow::Error::msg)? {
        let (metrics, spread) = if spec.shake.is_some() {
            let (mean, spread) = spread::aggregate(reps)?;
            (mean, Some(spread))
        } else {
            (reps[0], None)
        };
        rows.push(SummaryRow {
            trace: loaded.name.clone(),
            machine: loaded.machine.to_string(),
            scheduler: cell.scheduler.to_string(),
            allocator: cell.allocator.to_string(),
            estimate: cell.estimate.to_string(),
            load_factor: cell.load_factor,
            metrics,
            spread,
        });
        done.push(CellResult { cell, metrics });
    }
    Ok((rows, done))
}

fn swf_header(loaded: &LoadedTrace) -> Header {
    let mut h = Header::new();
    h.push("Version", "2.2");
    h.push(
        "Computer",
        &format!(
            "{} (simulated by pwa-replay {})",
            loaded.machine,
            env!("CARGO_PKG_VERSION")
        ),
    );
    h.push(
        "Information",
        &format!("source trace {} (sha256 {})", loaded.name, loaded.sha256),
    );
    h.push("MaxNodes", &loaded.machine.nodes().to_string());
    h
}

fn config(
    args: &Args,
    loaded: &LoadedTrace,
    jobs: usize,
    threads: usize,
    tally: &Tally,
    t0: Instant,
) -> RunConfig {
    let knee_factor = match &args.loads {
        LoadSpec::Auto(a) => a.knee.factor,
        LoadSpec::List(_) => sweep::KneeRule::default().factor,
    };
    RunConfig {
        trace: loaded.name.clone(),
        trace_path: std::fs::canonicalize(&loaded.path)
            .unwrap_or_else(|_| loaded.path.clone())
            .display()
            .to_string(),
        trace_sha256: loaded.sha256.clone(),
        machine: loaded.machine.to_string(),
        jobs: jobs as u64,
        dropped: loaded.dropped.values().sum(),
        skipped_lines: loaded.skipped.skipped_lines(),
        schedulers: args.sched.iter().map(ToString::to_string).collect(),
        allocators: args.alloc.iter().map(ToString::to_string).collect(),
        estimates: args.estimate.iter().map(ToString::to_string).collect(),
        estimate_notes: Vec::new(),
        loads: args.loads.to_string(),
        knee_factor,
        threads,
        simulated: tally.simulated,
        reused: tally.reused,
        wall_s: t0.elapsed().as_secs_f64(),
        earlier_wall_s: Vec::new(),
        reused_replay_s: tally.reused_replay_s,
        version: env!("CARGO_PKG_VERSION").to_string(),
        shake: args
            .shaking()
            .ok()
            .flatten()
            .map(|(n, model)| format!("{n} replicas, {model}")),
    }
}

/// SHA-256 of everything that defines the sweep's grid and results — trace sha256, machine,
/// conversion, jobs, filters, engine options, the resolved grid, tool version and commit — but not
/// the shard, threads or output directory: shards of one sweep share it.
fn config_hash(
    args: &Args,
    options: &ReplayOptions,
    (loaded, jobs): (&LoadedTrace, usize),
    cells: &[Cell],
) -> String {
    let mut key = cell_context(loaded, jobs);
    if options != &ReplayOptions::default() {
        key.insert("options".into(), options.key());
    }
    key.insert("lenient".into(), args.input.lenient.to_string());
    key.insert("git_commit".into(), env!("PWA_REPLAY_GIT_COMMIT").into());
    let cells: Vec<String> = cells.iter().map(Cell::key).collect();
    key.insert("cells".into(), cells.join(" "));
    // A Python series is its code too: parts run on different code do not merge.
    let digests: Vec<String> = args
        .sched
        .iter()
        .filter_map(Policy::external)
        .map(|e| format!("{}={}", e.label, e.digest))
        .collect();
    if !digests.is_empty() {
        key.insert("python".into(), digests.join(" "));
    }
    sha256_bytes(serde_json::to_string(&key).unwrap_or_default().as_bytes())
}

/// The manifest of a sweep: trace, machine, estimates, grid, shard and seeds.
fn provenance(
    mut m: Manifest,
    args: &Args,
    spec: &SweepSpec,
    (loaded, jobs): (&LoadedTrace, usize),
    grid: &[Cell],
    results: &[CellResult],
) -> Manifest {
    m.trace = Some(TraceInfo {
        name: loaded.name.clone(),
        file: std::fs::canonicalize(&loaded.path)
            .unwrap_or_else(|_| loaded.path.clone())
            .display()
            .to_string(),
        sha256: loaded.sha256.clone(),
    });
    m.conversion = Some(format!("{:?}", loaded.conversion));
    m.machine = Some(loaded.machine.to_string());
    m.estimates = if args.estimate.is_empty() {
        vec![pwa_replay::workload::EstimateModel::Exact.to_string()]
    } else {
        args.estimate.iter().map(ToString::to_string).collect()
    };
    m.sweep = Some(SweepInfo {
        config_hash: config_hash(args, &spec.options, (loaded, jobs), grid),
        cells: grid.iter().map(Cell::key).collect(),
        shard: args.shard.map(|s| s.to_string()),
        seeds: results
            .iter()
            .map(|r| (r.cell.key(), r.cell.seed()))
            .collect(),
        parts: BTreeMap::new(),
    });
    m
}

/// `--slurm N`: writes the job-array and merge scripts and prints how to submit them.
fn slurm_scripts(
    args: &Args,
    loaded: &LoadedTrace,
    out: &Path,
    tasks: usize,
) -> anyhow::Result<()> {
    let argv: Vec<String> = std::env::args().skip(2).collect();
    let name = crate::slurm::job_name(&loaded.name);
    let plan = crate::slurm::Plan {
        command: "sweep",
        sweep_args: &argv,
        tasks,
        options: &args.batch.slurm_opt,
        out,
        name: &name,
        log_y: args.log_y,
    };
    crate::slurm::write_and_announce(&plan)
}
