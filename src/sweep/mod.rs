//! Parameter sweeps: scheduler × allocator × load factor, in parallel, bit-identical to serial.
//!
//! A [`Grid`] is the cartesian product of schedulers, allocators, estimate models and load factors
//! in a stable order (scheduler-major as given, then allocator, then estimate model, then load
//! factor); each element is a [`Cell`]. A scheduler is a [`Policy`]: built-in, or [`external`] (a
//! label with a `py:` part, a Python policy or priority function that the caller replays: its cells
//! are labelled, keyed and seeded by the label as written, and the library replays only built-in
//! ones). A [`Series`] is one scheduler + allocator + estimate model: one line in every plot
//! (labelled as before when the estimates are exact).
//!
//! A sweep runs as the one-panel experiment of its grid (`experiment::sweep::SweepSpec`, run by the
//! experiment executor); this module gives it its cells and labels, their seeds, the load lists and
//! [`run_auto_with`], the planner of `--loads auto`: all series climb from 0.1 in steps of 0.1
//! until every one of them is a few points past its knee ([`KneeRule`]), so every series covers
//! the same load factors (as in the paper's figures); the points kept depend only on the results,
//! never on the thread count or timing. The caller supplies the replay of one cell and receives
//! [`CellEvent`]s for progress. [`replay_cell`] is the plain engine-backed replay of one cell.
//!
//! ```
//! use pwa_replay::sweep::{Grid, LoadSpec};
//!
//! let LoadSpec::List(loads) = "0.5:1.5:0.5".parse().unwrap() else { unreachable!() };
//! let grid = Grid {
//!     schedulers: vec!["fcfs".parse().unwrap(), "window:240".parse().unwrap()],
//!     allocators: vec!["mpl".parse().unwrap()],
//!     loads,
//!     estimates: Vec::new(),
//! };
//! let keys: Vec<String> = grid.cells().iter().map(|c| c.key()).collect();
//! assert_eq!(keys[..4], ["fcfs|mpl|0.5", "fcfs|mpl|1", "fcfs|mpl|1.5", "window:240|mpl|0.5"]);
//! ```

pub mod external;
mod knee;
mod loads;
mod policy;
mod shard;

use std::collections::BTreeMap;
use std::fmt;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use sha2::{Digest, Sha256};

use crate::engine::{self, FragMeter, Outcome, ReplayOptions, RunMetrics};
use crate::machine::{AllocKind, MachineSpec};
use crate::sched::SchedKind;
use crate::workload::shake::ShakeModel;
use crate::workload::{EstimateModel, Workload};

pub use knee::{Knee, KneeRule};
pub use loads::{AutoLoads, LoadSpec, LoadSpecError, load_factor};
pub use policy::{EXTERNAL_COST, Policy};
pub use shard::{Shard, ShardError, cell_cost, partition};

/// One simulation of a sweep: a scheduler, an allocator and a load factor.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Queueing policy: built-in, or external ([`Policy`]).
    pub scheduler: Policy,
    /// Processor allocator.
    pub allocator: AllocKind,
    /// Arrival-rate multiplier: submit times are divided by it.
    pub load_factor: f64,
    /// Where the run-time estimates come from ([`EstimateModel::Exact`]: the workload's own).
    pub estimate: EstimateModel,
}

impl Cell {
    /// The series (scheduler + allocator + estimates) this cell belongs to.
    pub fn series(&self) -> Series {
        Series {
            scheduler: self.scheduler.clone(),
            allocator: self.allocator,
            estimate: self.estimate,
        }
    }

    /// The cell's labels joined by `|` (`window:240|mpl|0.3`, then `|user` for estimates other than
    /// exact): stable, unique within a sweep.
    pub fn key(&self) -> String {
        cell_key(
            &self.scheduler,
            self.allocator,
            self.load_factor,
            self.estimate,
        )
    }

    /// A seed derived from the cell's labels only (the first 8 bytes of SHA-256 of [`Cell::key`],
    /// little-endian), for stochastic policies or workloads: the same cell always gets the same seed,
    /// whatever the grid around it.
    pub fn seed(&self) -> u64 {
        let digest = Sha256::digest(self.key().as_bytes());
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(&digest[..8]);
        u64::from_le_bytes(bytes)
    }
}

/// [`Cell::key`] of a cell whose scheduler is any label (an experiment's external series too).
pub fn cell_key(
    scheduler: &dyn fmt::Display,
    allocator: AllocKind,
    load_factor: f64,
    estimate: EstimateModel,
) -> String {
    let key = format!("{scheduler}|{allocator}|{load_factor}");
    match estimate {
        EstimateModel::Exact => key,
        e => format!("{key}|{e}"),
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} @ {}", self.series(), self.load_factor)
    }
}

/// A scheduler + allocator pair under one estimate model: one curve over load factors.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Queueing policy: built-in, or external ([`Policy`]).
    pub scheduler: Policy,
    /// Processor allocator.
    pub allocator: AllocKind,
    /// Run-time estimates.
    pub estimate: EstimateModel,
}

impl Series {
    /// The cell of this series at `load_factor`.
    pub fn at(&self, load_factor: f64) -> Cell {
        Cell {
            scheduler: self.scheduler.clone(),
            allocator: self.allocator,
            load_factor,
            estimate: self.estimate,
        }
    }
}

impl fmt::Display for Series {
    /// `window:240 + mpl`: the label of the series in legends and tables; `easy + flat (user)`
    /// for estimates other than exact.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} + {}", self.scheduler, self.allocator)?;
        match self.estimate {
            EstimateModel::Exact => Ok(()),
            e => write!(f, " ({e})"),
        }
    }
}

/// Schedulers × allocators × load factors.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Grid {
    /// Schedulers (built-in or external), in the order given.
    pub schedulers: Vec<Policy>,
    /// Allocators, in the order given.
    pub allocators: Vec<AllocKind>,
    /// Load factors, in the order given.
    pub loads: Vec<f64>,
    /// Estimate models, in the order given (empty: exact only).
    pub estimates: Vec<EstimateModel>,
}

impl Grid {
    /// Every scheduler × allocator × estimate model, scheduler-major.
    pub fn series(&self) -> Vec<Series> {
        let estimates: &[EstimateModel] = if self.estimates.is_empty() {
            &[EstimateModel::Exact]
        } else {
            &self.estimates
        };
        self.schedulers
            .iter()
            .flat_map(|scheduler| {
                self.allocators.iter().flat_map(move |&allocator| {
                    estimates.iter().map(move |&estimate| Series {
                        scheduler: scheduler.clone(),
                        allocator,
                        estimate,
                    })
                })
            })
            .collect()
    }

    /// [`Grid::series`] without the series that would repeat another: a scheduler that does not
    /// [plan with estimates](Policy::plans_with_estimates) is replayed under the first estimate
    /// model only, its schedule being the same under every one, unless the `options` make the
    /// engine read estimates ([`ReplayOptions::engine_reads_estimates`]: jobs killed at them,
    /// processors booked until them). Also returns those schedulers, to say so once (an external
    /// policy is never among them: it may read estimates).
    pub fn series_once(&self, options: &ReplayOptions) -> (Vec<Series>, Vec<SchedKind>) {
        let first = self.estimates.first().copied();
        let mut once: Vec<SchedKind> = Vec::new();
        let series = self
            .series()
            .into_iter()
            .filter(|s| {
                let blind =
                    !options.engine_reads_estimates() && !s.scheduler.plans_with_estimates();
                let repeat = blind && Some(s.estimate) != first && first.is_some();
                if let Some(sched) = s
                    .scheduler
                    .builtin()
                    .filter(|b| repeat && !once.contains(b))
                {
                    once.push(sched);
                }
                !repeat
            })
            .collect();
        (series, once)
    }

    /// Every cell: scheduler-major, then allocator, then load factor.
    pub fn cells(&self) -> Vec<Cell> {
        self.series()
            .into_iter()
            .flat_map(|s| self.loads.iter().map(move |&lf| s.at(lf)))
            .collect()
    }
}

/// Progress of a sweep, reported to the caller's callback from the worker threads.
#[derive(Debug, Clone, PartialEq)]
pub enum CellEvent {
    /// `cells` more cells are planned (a fixed grid reports all at once; `auto` one at a time).
    Planned {
        /// How many cells were added to the plan.
        cells: usize,
    },
    /// A worker started a cell; `id` numbers cells in the order they were planned.
    Started {
        /// Plan-order number of the cell.
        id: usize,
        /// The cell.
        cell: Cell,
    },
    /// A worker finished a cell (successfully or not).
    Finished {
        /// Plan-order number of the cell.
        id: usize,
        /// The cell.
        cell: Cell,
        /// Wall-clock seconds the cell took (not deterministic).
        wall_s: f64,
    },
}

/// The metrics of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct CellResult {
    /// What was simulated.
    pub cell: Cell,
    /// What was measured.
    pub metrics: RunMetrics,
}

/// The error a cell's replay may return.
pub type CellError = Box<dyn std::error::Error + Send + Sync>;

/// An error and the errors it wraps, `outer: inner: …`; a cause the text already quotes is not
/// repeated.
pub fn chain(e: &dyn std::error::Error) -> String {
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

/// The replay of one cell, supplied by the caller.
pub type CellRunner<'a> = dyn Fn(&Cell) -> Result<RunMetrics, CellError> + Sync + 'a;

/// The event callback of a sweep.
pub type EventSink<'a> = dyn Fn(CellEvent) + Sync + 'a;

/// Why a sweep failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SweepError {
    /// The worker pool could not be built.
    #[error("cannot start {threads} worker threads: {reason}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// What rayon said.
        reason: String,
    },
    /// A cell's replay failed (the first failing cell in grid order).
    #[error("cell {cell} failed")]
    Cell {
        /// The cell's label.
        cell: String,
        /// The replay's error.
        #[source]
        source: CellError,
    },
}

/// One replayed cell: the load-scaled workload it ran, what happened, and the metrics.
#[derive(Debug, Clone)]
pub struct CellRun {
    /// The workload after load-factor scaling.
    pub workload: Workload,
    /// Start, end and placement of every job.
    pub outcome: Outcome,
    /// The summary.
    pub metrics: RunMetrics,
}

/// Replays one cell: scales `workload` by the cell's load factor, replays it under the cell's
/// scheduler and allocator, checks the schedule with [`engine::validate`] when `validate`, and
/// summarizes it.
pub fn replay_cell(
    workload: &Workload,
    machine: MachineSpec,
    cell: &Cell,
    validate: bool,
) -> Result<CellRun, CellError> {
    replay_cell_with(workload, machine, cell, ReplayOptions::default(), validate)
}

/// [`replay_cell`] with engine options. The cell's estimate model is applied after scaling, except
/// [`EstimateModel::Exact`], which keeps the workload's own estimates (the run times for a trace).
pub fn replay_cell_with(
    workload: &Workload,
    machine: MachineSpec,
    cell: &Cell,
    options: ReplayOptions,
    validate: bool,
) -> Result<CellRun, CellError> {
    replay_replica(workload, machine, cell, options, None, validate)
}

/// [`replay_cell_with`] on a shaken copy of the load-scaled workload: `shake` is the model and the
/// replica's seed (see [`crate::workload::shake`]; `None` replays the workload as it is). Shaking
/// comes after load scaling, so the offsets are in replayed seconds at every load factor.
pub fn replay_replica(
    workload: &Workload,
    machine: MachineSpec,
    cell: &Cell,
    options: ReplayOptions,
    shake: Option<(&ShakeModel, u64)>,
    validate: bool,
) -> Result<CellRun, CellError> {
    let Policy::Builtin(sched) = cell.scheduler else {
        return Err(format!(
            "`{}` runs outside the library (external::Instance)",
            cell.scheduler
        )
        .into());
    };
    let mut workload = workload.scaled(cell.load_factor)?;
    if let Some((model, seed)) = shake {
        workload = crate::workload::shake::shake(&workload, seed, model)?;
    }
    if cell.estimate != EstimateModel::Exact {
        workload.set_estimates(cell.estimate);
    }
    // The fragmentation measures are taken during the run: no second pass over the schedule.
    let mut meter = FragMeter::new(&workload, machine, cell.allocator);
    let outcome = engine::replay_with(
        &workload,
        machine,
        sched,
        cell.allocator,
        options,
        &mut meter,
    )?;
    let frag = meter.finish();
    if validate {
        engine::validate(&workload, machine, &outcome)?;
    }
    let metrics = engine::summarize_with_fragmentation(&workload, machine, &outcome, &frag);
    Ok(CellRun {
        workload,
        outcome,
        metrics,
    })
}

/// Runs `--loads auto` for `series` (results series by series, in the order given, each by rising
/// load factor). Each series visits `auto.load(0)`, `auto.load(1)`, … and is *decided* once it has
/// its points up to `auto.margin` points past its first saturated point (by `auto.knee`); the sweep
/// ends at the largest such end over all series (or at the cap), and every series is run up to that
/// common end. Workers pick the next load of the series with the fewest cells in flight, so a few
/// cells past the end may be simulated and discarded; the result never depends on `threads` or
/// timing.
pub fn run_auto_with(
    series: &[Series],
    auto: &AutoLoads,
    threads: usize,
    run: &CellRunner<'_>,
    on_event: &EventSink<'_>,
) -> Result<Vec<CellResult>, SweepError> {
    let pool = pool(threads)?;
    let planner = AutoPlanner::new(series, *auto);
    let workers = threads.max(1);
    pool.scope(|s| {
        for _ in 0..workers {
            s.spawn(|_| planner.work(run, on_event));
        }
    });
    planner.finish()
}

/// The knee of every series present in `results`, in order of first appearance.
pub fn knees(results: &[CellResult], rule: &KneeRule) -> Vec<(Series, Knee)> {
    let mut curves: Vec<(Series, Vec<(f64, f64)>)> = Vec::new();
    for r in results {
        let point = (r.cell.load_factor, r.metrics.mean_turnaround_s);
        match curves.iter_mut().find(|(s, _)| *s == r.cell.series()) {
            Some((_, c)) => c.push(point),
            None => curves.push((r.cell.series(), vec![point])),
        }
    }
    curves
        .into_iter()
        .map(|(s, mut c)| {
            c.sort_by(|a, b| a.0.total_cmp(&b.0));
            (s, rule.knee(&c))
        })
        .collect()
}

fn pool(threads: usize) -> Result<rayon::ThreadPool, SweepError> {
    let threads = threads.max(1);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("pwa-sweep-{i}"))
        .build()
        .map_err(|e| SweepError::ThreadPool {
            threads,
            reason: e.to_string(),
        })
}

fn run_one(
    id: usize,
    cell: &Cell,
    run: &CellRunner<'_>,
    on_event: &EventSink<'_>,
) -> Result<RunMetrics, CellError> {
    on_event(CellEvent::Started {
        id,
        cell: cell.clone(),
    });
    let t0 = Instant::now();
    let r = run(cell);
    let wall_s = t0.elapsed().as_secs_f64();
    on_event(CellEvent::Finished {
        id,
        cell: cell.clone(),
        wall_s,
    });
    r
}

/// Shared state of an `auto` sweep.
struct AutoPlanner {
    auto: AutoLoads,
    state: Mutex<AutoState>,
    wake: Condvar,
}

struct AutoState {
    lines: Vec<Line>,
    in_flight: usize,
    planned: usize,
    /// The first error, by (series index, load index).
    error: Option<((usize, u32), Cell, CellError)>,
}

/// One series of an `auto` sweep.
struct Line {
    series: Series,
    /// Next load index to hand out.
    next: u32,
    in_flight: usize,
    /// Finished points by load index.
    points: BTreeMap<u32, RunMetrics>,
    /// Points this series needs for itself (`margin` past its first saturated one), once known.
    decided: Option<usize>,
    /// No load factor left below the cap.
    exhausted: bool,
}

impl Line {
    /// Points this series needs: decided, or everything up to the cap.
    fn needs(&self) -> Option<usize> {
        self.decided
            .or_else(|| self.exhausted.then_some(self.next as usize))
    }
}

/// The common end of the sweep as far as known: the most points any series needs.
fn common_end(lines: &[Line]) -> usize {
    lines.iter().filter_map(Line::needs).max().unwrap_or(0)
}

impl AutoPlanner {
    fn new(series: &[Series], auto: AutoLoads) -> Self {
        let lines = series
            .iter()
            .map(|series| Line {
                series: series.clone(),
                next: 0,
                in_flight: 0,
                points: BTreeMap::new(),
                decided: None,
                exhausted: auto.load(0).is_none(),
            })
            .collect();
        AutoPlanner {
            auto,
            state: Mutex::new(AutoState {
                lines,
                in_flight: 0,
                planned: 0,
                error: None,
            }),
            wake: Condvar::new(),
        }
    }

    /// A worker: take cells until nothing is left to take and nothing is in flight.
    fn work(&self, run: &CellRunner<'_>, on_event: &EventSink<'_>) {
        while let Some((id, line, idx, cell)) = self.take(on_event) {
            let r = run_one(id, &cell, run, on_event);
            self.record(line, idx, cell, r);
        }
    }

    /// The next cell to run, waiting while other workers' results may open more work.
    fn take(&self, on_event: &EventSink<'_>) -> Option<(usize, usize, u32, Cell)> {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if st.error.is_none()
                && let Some((line, idx, cell)) = self.next_cell(&mut st)
            {
                let id = st.planned;
                st.planned += 1;
                st.in_flight += 1;
                on_event(CellEvent::Planned { cells: 1 });
                return Some((id, line, idx, cell));
            }
            if st.in_flight == 0 {
                return None;
            }
            st = self.wake.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Among series with loads left that are undecided or below the common end, the one with the
    /// fewest cells in flight.
    fn next_cell(&self, st: &mut AutoState) -> Option<(usize, u32, Cell)> {
        let end = common_end(&st.lines);
        let (i, line) = st
            .lines
            .iter_mut()
            .enumerate()
            .filter(|(_, l)| !l.exhausted && (l.decided.is_none() || (l.next as usize) < end))
            .min_by_key(|(i, l)| (l.in_flight, *i))?;
        let idx = line.next;
        let lf = self.auto.load(idx)?;
        line.next += 1;
        line.in_flight += 1;
        line.exhausted = self.auto.load(line.next).is_none();
        Some((i, idx, line.series.at(lf)))
    }

    fn record(&self, line: usize, idx: u32, cell: Cell, r: Result<RunMetrics, CellError>) {
        let mut st = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        st.in_flight -= 1;
        let l = &mut st.lines[line];
        l.in_flight -= 1;
        match r {
            Ok(m) => {
                l.points.insert(idx, m);
                if l.decided.is_none() {
                    l.decided = kept(&self.auto, l);
                }
            }
            Err(e) => {
                if st.error.as_ref().is_none_or(|(at, _, _)| (line, idx) < *at) {
                    st.error = Some(((line, idx), cell, e));
                }
            }
        }
        self.wake.notify_all();
    }

    fn finish(self) -> Result<Vec<CellResult>, SweepError> {
        let st = self
            .state
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some((_, cell, source)) = st.error {
            return Err(SweepError::Cell {
                cell: cell.to_string(),
                source,
            });
        }
        let end = common_end(&st.lines);
        let mut out = Vec::new();
        for l in &st.lines {
            out.extend(l.points.iter().take(end).filter_map(|(&i, &metrics)| {
                Some(CellResult {
                    cell: l.series.at(self.auto.load(i)?),
                    metrics,
                })
            }));
        }
        Ok(out)
    }
}

/// How many leading points a series keeps, once that is decided: `margin` points past the first
/// saturated one of its contiguous finished prefix.
fn kept(auto: &AutoLoads, l: &Line) -> Option<usize> {
    let curve: Vec<(f64, f64)> = (0u32..)
        .map_while(|i| Some((auto.load(i)?, l.points.get(&i)?.mean_turnaround_s)))
        .collect();
    let first = auto.knee.first_saturated(&curve)?;
    let keep = first + auto.margin as usize + 1;
    (curve.len() >= keep).then_some(keep)
}

#[cfg(test)]
mod tests;
