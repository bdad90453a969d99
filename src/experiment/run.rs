//! Running a plan: every distinct cell once, its replicas seeded by the cell's seed key, series
//! climbing their x values in parallel, deterministic whatever the thread count.
//!
//! The work comes in *units*: a series of a panel with a list of x values (it climbs them in
//! increasing order and stops `margin` points past its [`Stop`](super::plan::Stop) threshold), or a
//! whole `auto` panel (its series climb load factors together until each is past its knee, through
//! [`crate::sweep::run_auto_with`], so an experiment's `auto` panel is exactly a sweep's `--loads
//! auto`). A shard runs some of the units ([`Plan::units`], [`Plan::shard`]: balanced by expected
//! cost); [`Results::merge`] puts shards together.
//!
//! A cell's replicas are computed through the caller's [`Hook`] (the binary's `--resume` cache and
//! Ctrl-C check live there). Cells are memoized by [`Cell::id`]; a cell met by two series at once
//! may be computed twice, never differently. A failed cell does not stop the others: every line
//! and point runs (a series with a stop rule ends its climb at its failed point), and the run's
//! error names every failed cell ([`RunError::Cells`]).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rayon::prelude::*;

use super::external::Instance;
use super::measure;
use super::plan::{Cell, Panel, Plan, Policy, Xs};
use crate::coschedule;
use crate::engine::{self, FragMeter, NoObserver, Observer, RunMetrics};
use crate::replicate::{Estimate, replicate};
use crate::resource::MachineSpec;
use crate::sched::SchedKind;
use crate::sweep::{self, CellError};
use crate::workload::lublin::LublinSpec;
use crate::workload::rewrite::InputRewrite;
use crate::workload::shake;
use crate::workload::synth::SynthSpec;
use crate::workload::synth_hypercube::{Horizon, HypercubeSpec};
use crate::workload::{EstimateModel, Workload};

/// A part of the work that runs on its own: one series of a panel, one point of a series, or a
/// whole `auto` panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unit {
    /// Series `series` of panel `panel`, climbing a list of x values.
    Line {
        /// Panel index.
        panel: usize,
        /// Series index.
        series: usize,
    },
    /// The cell of series `series` of panel `panel` at its `x`-th x value alone (a panel without
    /// a stop rule, whose points are independent: a sweep runs and shards its grid by points).
    Point {
        /// Panel index.
        panel: usize,
        /// Series index.
        series: usize,
        /// Index into the panel's x values.
        x: usize,
    },
    /// Every series of an `auto` panel.
    Auto {
        /// Panel index.
        panel: usize,
    },
}

impl Unit {
    /// The panel the unit belongs to.
    pub fn panel(&self) -> usize {
        match *self {
            Unit::Line { panel, .. } | Unit::Point { panel, .. } | Unit::Auto { panel } => panel,
        }
    }
}

impl Plan {
    /// The positions in [`Plan::units`] that shard `index` of `count` runs: the units, costliest
    /// first, each go to the shard with the least work so far (ties to the lower shard), so the
    /// shards are balanced by expected cost and every unit is in exactly one. A unit's cost is its
    /// cells (x values × series) × the replication maximum × the jobs per workload (10,000 where
    /// the panel does not say); an `auto` panel is one unit, costed at all the loads it may climb.
    pub fn shard(&self, index: usize, count: usize) -> Vec<usize> {
        let count = count.max(1);
        let costs: Vec<f64> = self
            .units()
            .into_iter()
            .map(|u| self.unit_cost(u))
            .collect();
        let mut order: Vec<usize> = (0..costs.len()).collect();
        order.sort_by(|&a, &b| costs[b].total_cmp(&costs[a]).then(a.cmp(&b)));
        let mut load = vec![0.0_f64; count];
        let mut mine = Vec::new();
        for u in order {
            let least = (0..count)
                .min_by(|&a, &b| load[a].total_cmp(&load[b]).then(a.cmp(&b)))
                .unwrap_or(0);
            load[least] += costs[u];
            if least == index {
                mine.push(u);
            }
        }
        mine.sort_unstable();
        mine
    }

    /// The expected cost of a unit, in job replays.
    pub fn unit_cost(&self, u: Unit) -> f64 {
        let p = &self.panels[u.panel()];
        let cells = match u {
            Unit::Line { .. } => p.xs().len(),
            Unit::Point { .. } => 1,
            Unit::Auto { .. } => p.xs().len() * p.series.len(),
        };
        (cells * p.rule.max) as f64 * p.jobs.unwrap_or(10_000) as f64
    }

    /// Every unit of work, panels in file order, series in legend order.
    pub fn units(&self) -> Vec<Unit> {
        let mut out = Vec::new();
        for (i, p) in self.panels.iter().enumerate() {
            match p.x.values {
                Xs::Auto(_) => out.push(Unit::Auto { panel: i }),
                Xs::List(_) => out.extend((0..p.series.len()).map(|s| Unit::Line {
                    panel: i,
                    series: s,
                })),
            }
        }
        out
    }
}

/// The points one series reached: x and the id of its cell, by increasing x.
pub type LinePoints = Vec<(f64, String)>;

/// What the runs gave: the points of every series run, and the replicas of every cell.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    /// The x values each series (panel, series) reached, each with its cell's id.
    pub lines: BTreeMap<(usize, usize), LinePoints>,
    /// The replicas of every cell, by id.
    pub cells: BTreeMap<String, Vec<RunMetrics>>,
}

impl Results {
    /// Adds a shard's results; a series present in both is an error (the shards overlap).
    pub fn merge(&mut self, other: Results) -> Result<(), String> {
        for (k, v) in other.lines {
            if self.lines.insert(k, v).is_some() {
                return Err(format!("series {} of panel {} is in two parts", k.1, k.0));
            }
        }
        self.cells.extend(other.cells);
        Ok(())
    }

    /// The replicas of the cell at `x` of series (panel, series), if it ran.
    pub fn replicas(&self, panel: usize, series: usize, x: f64) -> Option<&[RunMetrics]> {
        let (_, id) = self
            .lines
            .get(&(panel, series))?
            .iter()
            .find(|(px, _)| *px == x)?;
        self.cells.get(id).map(Vec::as_slice)
    }
}

/// A workload ready for replicas.
#[derive(Debug, Clone)]
pub enum Prepared {
    /// A log, converted for its machine, sorted by submit time (truncated to `jobs`).
    Log {
        /// The jobs.
        workload: Arc<Workload>,
        /// Its machine.
        machine: MachineSpec,
    },
    /// A `synth:` mesh model, generated anew for every replica.
    Synth {
        /// The model.
        spec: SynthSpec,
        /// The machine.
        machine: MachineSpec,
    },
    /// A `synth:hypercube` model.
    Hypercube {
        /// The model.
        spec: HypercubeSpec,
        /// The machine.
        machine: MachineSpec,
    },
    /// A `synth:lublin` model (Lublin & Feitelson 2003) on its flat machine.
    Lublin {
        /// The model.
        spec: LublinSpec,
        /// The machine.
        machine: MachineSpec,
    },
}

impl Prepared {
    /// A `synth:` label (mesh or hypercube model) on `machine` (default: the model's). The label's
    /// own `seed=` is not used: replicas are seeded by their cell's seed key.
    pub fn synthetic(label: &str, machine: Option<MachineSpec>) -> Result<Prepared, CellError> {
        if label.trim().starts_with("synth:hypercube") {
            let (spec, _) = HypercubeSpec::from_label(label)?;
            let machine = machine.unwrap_or(spec.machine());
            return Ok(Prepared::Hypercube { spec, machine });
        }
        if label.trim().starts_with("synth:lublin") {
            let (spec, _) = LublinSpec::from_label(label)?;
            let machine = machine.unwrap_or(spec.machine());
            return Ok(Prepared::Lublin { spec, machine });
        }
        let (spec, _) = SynthSpec::from_label(label)?;
        let machine = machine.unwrap_or(MachineSpec::Mesh { size: spec.mesh });
        Ok(Prepared::Synth { spec, machine })
    }

    /// The machine.
    pub fn machine(&self) -> MachineSpec {
        match self {
            Prepared::Log { machine, .. }
            | Prepared::Synth { machine, .. }
            | Prepared::Hypercube { machine, .. }
            | Prepared::Lublin { machine, .. } => *machine,
        }
    }

    /// The observation window of a model with one (`synth:hypercube,…,window=T`); `None`: the
    /// observed measures take the window up to the last job's end.
    pub fn window(&self) -> Option<f64> {
        match self {
            Prepared::Hypercube { spec, .. } => match spec.horizon {
                Horizon::Window(t) => Some(t),
                Horizon::Jobs(_) => None,
            },
            _ => None,
        }
    }

    /// The workload replica `seed` of `cell` replays: a model's stream for that seed; a log scaled
    /// by the load factor and shaken with that seed when the cell shakes.
    pub fn instance(&self, cell: &Cell, seed: u64) -> Result<Workload, CellError> {
        let mut w = match self {
            Prepared::Synth { spec, .. } => spec.generate(seed)?,
            Prepared::Hypercube { spec, .. } => spec.generate(seed)?,
            Prepared::Lublin { spec, .. } => spec.generate(seed)?,
            Prepared::Log { workload, .. } => {
                if cell.shake.is_none() && cell.rule.max > 1 {
                    return Err(format!(
                        "{}: replicas of a log are identical unless shaken: add `shake = {{ submit_s = 10 }}` to the panel, or replicate once",
                        cell.workload
                    )
                    .into());
                }
                let scaled = workload.scaled(cell.load_factor.unwrap_or(1.0))?;
                match &cell.shake {
                    Some(model) => shake::shake(&scaled, seed, model)?,
                    None => scaled,
                }
            }
        };
        if !matches!(self, Prepared::Log { .. })
            && let Some(lf) = cell.load_factor
        {
            w = w.scaled(lf)?;
        }
        if cell.estimate != EstimateModel::Exact {
            w.set_estimates(cell.estimate);
        }
        Ok(w)
    }
}

/// Where workloads come from: the caller loads logs (catalog names, SWF paths); `synth:` labels
/// can go to [`Prepared::synthetic`].
pub trait Source: Sync {
    /// The workload named `label` on `machine` (its own when `None`), logs truncated to `jobs`,
    /// their records read as `input` says (the panel's semantics).
    fn prepare(
        &self,
        label: &str,
        machine: Option<MachineSpec>,
        jobs: Option<usize>,
        input: InputRewrite,
    ) -> Result<Prepared, CellError>;
}

/// One replica about to run.
#[derive(Debug, Clone, Copy)]
pub struct Replica<'a> {
    /// Its cell.
    pub cell: &'a Cell,
    /// Its seed.
    pub seed: u64,
    /// Its workload (for a hook that replays it with [`replay`] to keep more than the metrics).
    pub prepared: &'a Prepared,
}

impl Replica<'_> {
    /// What the runner of an external series needs of this replica (its cell's policy must be
    /// external): the workload it replays, the machine, the allocator, the options.
    pub fn instance(&self) -> Result<Instance, CellError> {
        Ok(Instance {
            policy: self.cell.sched.to_string(),
            workload: self.prepared.instance(self.cell, self.seed)?,
            machine: self.prepared.machine().to_string(),
            alloc: self.cell.alloc.to_string(),
            options: self.cell.options.clone(),
        })
    }
}

/// Wraps the computation of every replica: `hook(replica, compute)` returns the replica's metrics,
/// by calling `compute` or from a cache of its own.
pub type Hook<'a> = dyn Fn(&Replica<'_>, &dyn Fn() -> Result<RunMetrics, CellError>) -> Result<RunMetrics, CellError>
    + Sync
    + 'a;

/// Progress of a run.
#[derive(Debug, Clone)]
pub enum Event {
    /// A cell's replicas are in.
    Cell {
        /// `workload: sched+alloc`, with ` @ load factor x` where there is one.
        label: String,
        /// Replicas.
        replicas: usize,
        /// Wall seconds (not deterministic).
        wall_s: f64,
    },
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// A workload could not be prepared.
    #[error("panel `{panel}` (line {line}): workload `{workload}`")]
    Workload {
        /// Panel name.
        panel: String,
        /// Line of its `workload` key.
        line: usize,
        /// The label.
        workload: String,
        /// Why.
        #[source]
        source: CellError,
    },
    /// A cell failed.
    #[error("panel `{panel}`, {series} at x = {x}")]
    Cell {
        /// Panel name.
        panel: String,
        /// Series label.
        series: String,
        /// x value.
        x: f64,
        /// Why.
        #[source]
        source: CellError,
    },
    /// The worker pool could not start.
    #[error("cannot start {0} worker threads")]
    Pool(usize),
    /// Cells failed; every other cell ran (a failed cell ends the climb of its series).
    #[error("{} cell(s) failed:\n{}", .0.len(), failures(.0))]
    Cells(Vec<RunError>),
}

/// One line per failure, with its causes.
fn failures(all: &[RunError]) -> String {
    all.iter()
        .map(|e| format!("  {}", sweep::chain(e)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `units` of `plan` on `threads` workers. Lines and points start in the order given (a
/// caller puts its slowest first); the results do not depend on that order.
pub fn run(
    plan: &Plan,
    units: &[Unit],
    source: &dyn Source,
    hook: &Hook<'_>,
    on_event: &(dyn Fn(Event) + Sync),
    threads: usize,
) -> Result<Results, RunError> {
    let threads = threads.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|_| RunError::Pool(threads))?;
    let exec = Executor {
        plan,
        prepared: pool.install(|| prepare(plan, units, source))?,
        hook,
        on_event,
        memo: Mutex::new(BTreeMap::new()),
    };
    // Lines (x: None) and points (x: Some(index)), in the order given.
    let lines: Vec<(usize, usize, Option<usize>)> = units
        .iter()
        .filter_map(|u| match *u {
            Unit::Line { panel, series } => Some((panel, series, None)),
            Unit::Point { panel, series, x } => Some((panel, series, Some(x))),
            Unit::Auto { .. } => None,
        })
        .collect();
    // Each with the index of its first x, so that points join their series in the panel's order
    // of x values. A failed line does not stop the others.
    let outcomes: Vec<Result<Climbed, RunError>> = pool.install(|| {
        lines
            .par_iter()
            .with_max_len(1)
            .map(|&(p, s, x)| match x {
                Some(x) => Ok(((p, s), x, exec.at(p, s, x)?)),
                None => Ok(((p, s), 0, exec.climb(p, s)?)),
            })
            .collect()
    });
    let (mut climbed, mut failed) = (Vec::new(), Vec::new());
    for outcome in outcomes {
        match outcome {
            Ok(line) => climbed.push(line),
            Err(RunError::Cells(all)) => failed.extend(all),
            Err(e) => failed.push(e),
        }
    }
    all_failed(failed)?;
    climbed.sort_by_key(|(line, x, _)| (*line, *x));
    let mut results = Results::default();
    for (line, _, points) in climbed {
        results.lines.entry(line).or_default().extend(points);
    }
    for u in units {
        if let Unit::Auto { panel } = *u {
            results.lines.extend(exec.auto(panel, threads)?);
        }
    }
    let memo = exec
        .memo
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner);
    let used: std::collections::BTreeSet<&String> =
        results.lines.values().flatten().map(|(_, id)| id).collect();
    results.cells = memo
        .into_iter()
        .filter(|(id, _)| used.contains(id))
        .map(|(id, r)| (id, r.as_ref().clone()))
        .collect();
    Ok(results)
}

/// A line's points (the series, the index of its first x, the points).
type Climbed = ((usize, usize), usize, LinePoints);

/// `failed` as one error: none, the one, or [`RunError::Cells`].
fn all_failed(mut failed: Vec<RunError>) -> Result<(), RunError> {
    match failed.len() {
        0 => Ok(()),
        1 => Err(failed.remove(0)),
        _ => Err(RunError::Cells(failed)),
    }
}

/// The distinct workloads of `units`, prepared once each (in parallel).
fn prepare(
    plan: &Plan,
    units: &[Unit],
    source: &dyn Source,
) -> Result<BTreeMap<WorkloadKey, Arc<Prepared>>, RunError> {
    let panels: std::collections::BTreeSet<usize> = units.iter().map(Unit::panel).collect();
    let mut wanted: BTreeMap<WorkloadKey, usize> = BTreeMap::new();
    for panel in panels {
        let p = &plan.panels[panel];
        for x in p.xs() {
            // Every cell of the panel shares the workload at x (checked when planning).
            if let Ok(c) = p.cell(0, x) {
                wanted.insert(key(&c), panel);
            }
        }
    }
    let wanted: Vec<(WorkloadKey, usize)> = wanted.into_iter().collect();
    wanted
        .par_iter()
        .map(|(k, panel)| {
            let p = &plan.panels[*panel];
            let prepared = source
                .prepare(&k.0, p.machine, p.jobs, k.3)
                .map_err(|source| RunError::Workload {
                    panel: p.name.clone(),
                    line: p.line,
                    workload: k.0.clone(),
                    source,
                })?;
            Ok((k.clone(), Arc::new(prepared)))
        })
        .collect()
}

/// Workload label, machine label, jobs, reading of the records.
type WorkloadKey = (String, Option<String>, Option<usize>, InputRewrite);

fn key(c: &Cell) -> WorkloadKey {
    (
        c.workload.clone(),
        c.machine.map(|m| m.to_string()),
        c.jobs,
        c.options.semantics.input,
    )
}

struct Executor<'a> {
    plan: &'a Plan,
    prepared: BTreeMap<WorkloadKey, Arc<Prepared>>,
    hook: &'a Hook<'a>,
    on_event: &'a (dyn Fn(Event) + Sync),
    memo: Mutex<BTreeMap<String, Arc<Vec<RunMetrics>>>>,
}

impl Executor<'_> {
    /// One series up its x values, stopping `margin` points past its threshold. A failed point
    /// ends a climb with a stop rule; without one, the points are independent and the others run.
    fn climb(&self, p: usize, s: usize) -> Result<LinePoints, RunError> {
        let panel = &self.plan.panels[p];
        let mut out = Vec::new();
        let mut failed = Vec::new();
        let mut past: Option<usize> = None;
        for x in panel.xs() {
            if let (Some(n), Some(stop)) = (past, &panel.stop)
                && n >= stop.margin
            {
                break;
            }
            let (cell, runs) = match self.point(panel, s, x) {
                Ok(point) => point,
                Err(e) if panel.stop.is_none() => {
                    failed.push(e);
                    continue;
                }
                Err(e) => return Err(e),
            };
            if let Some(stop) = &panel.stop {
                let v = Estimate::of(&runs, |m| stop.measure.of(m)).mean;
                past = match past {
                    Some(n) => Some(n + 1),
                    None if v > stop.above => Some(0),
                    None => None,
                };
            }
            out.push((x, cell.id()));
        }
        all_failed(failed)?;
        Ok(out)
    }

    /// Series `s` at its `i`-th x value alone.
    fn at(&self, p: usize, s: usize, i: usize) -> Result<LinePoints, RunError> {
        let panel = &self.plan.panels[p];
        let Some(&x) = panel.xs().get(i) else {
            return Err(RunError::Cell {
                panel: panel.name.clone(),
                series: panel.series[s].label.clone(),
                x: f64::NAN,
                source: format!("no x value number {i}").into(),
            });
        };
        let (cell, _) = self.point(panel, s, x)?;
        Ok(vec![(x, cell.id())])
    }

    /// The replicas of series `s` at `x`.
    fn point(
        &self,
        panel: &Panel,
        s: usize,
        x: f64,
    ) -> Result<(Cell, Arc<Vec<RunMetrics>>), RunError> {
        let fail = |source: CellError| RunError::Cell {
            panel: panel.name.clone(),
            series: panel.series[s].label.clone(),
            x,
            source,
        };
        let cell = panel.cell(s, x).map_err(|m| fail(m.into()))?;
        let runs = self.replicas(&cell).map_err(fail)?;
        Ok((cell, runs))
    }

    /// The replicas of `cell`, from the memo or run now.
    fn replicas(&self, cell: &Cell) -> Result<Arc<Vec<RunMetrics>>, CellError> {
        let id = cell.id();
        if let Some(r) = self
            .memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
        {
            return Ok(Arc::clone(r));
        }
        let t0 = Instant::now();
        let prepared = self
            .prepared
            .get(&key(cell))
            .ok_or_else(|| format!("workload {} was not prepared", cell.workload))?;
        let runs = replicate(
            &cell.rule,
            &cell.seed_key,
            |seed| {
                let replica = Replica {
                    cell,
                    seed,
                    prepared,
                };
                (self.hook)(&replica, &|| {
                    Ok(replay(prepared, cell, seed, false)?.metrics)
                })
            },
            |m| cell.watch.of(m),
        )?;
        (self.on_event)(Event::Cell {
            label: format!(
                "{}: {}+{}{}",
                cell.workload,
                cell.sched,
                cell.alloc,
                cell.load_factor
                    .map_or(String::new(), |lf| format!(" @ load factor {lf}"))
            ),
            replicas: runs.len(),
            wall_s: t0.elapsed().as_secs_f64(),
        });
        let runs = Arc::new(runs);
        self.memo
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, Arc::clone(&runs));
        Ok(runs)
    }

    /// An `auto` panel through the sweep's planner: the knee watches the mean turnaround over
    /// each cell's replicas.
    fn auto(
        &self,
        p: usize,
        threads: usize,
    ) -> Result<BTreeMap<(usize, usize), LinePoints>, RunError> {
        let panel = &self.plan.panels[p];
        let Xs::Auto(auto) = panel.x.values else {
            return Ok(BTreeMap::new());
        };
        let series: Vec<sweep::Series> = (0..panel.series.len())
            .filter_map(|s| Some(panel.cell(s, 1.0).ok()?.sweep_cell().series()))
            .collect();
        let index = |c: &sweep::Cell| series.iter().position(|s| *s == c.series());
        let runner = |c: &sweep::Cell| -> Result<RunMetrics, CellError> {
            let s = index(c).ok_or("a series the panel does not have")?;
            let (_, runs) = self
                .point(panel, s, c.load_factor)
                .map_err(|e| -> CellError { Box::new(e) })?;
            Ok(RunMetrics {
                mean_turnaround_s: Estimate::of(&runs, |m| m.mean_turnaround_s).mean,
                ..RunMetrics::default()
            })
        };
        let done =
            sweep::run_auto_with(&series, &auto, threads, &runner, &|_| {}).map_err(|e| {
                RunError::Cell {
                    panel: panel.name.clone(),
                    series: "auto".into(),
                    x: f64::NAN,
                    source: Box::new(e),
                }
            })?;
        let mut lines: BTreeMap<(usize, usize), LinePoints> = BTreeMap::new();
        for r in done {
            let s = index(&r.cell).expect("a series of the panel");
            let cell = panel.cell(s, r.cell.load_factor).expect("checked");
            lines
                .entry((p, s))
                .or_default()
                .push((r.cell.load_factor, cell.id()));
        }
        Ok(lines)
    }
}

/// One replay of `cell` with `seed` ([`Prepared::instance`]): the workload it ran, the outcome and
/// the summary; the schedule checked by [`engine::validate`] when `validate`.
pub fn replay(
    prepared: &Prepared,
    cell: &Cell,
    seed: u64,
    validate: bool,
) -> Result<sweep::CellRun, CellError> {
    let sched = match &cell.sched {
        Policy::Builtin(s) => *s,
        Policy::External(e) => {
            return Err(format!(
                "`{e}` runs outside the library: the caller's hook replays it (external::Instance)"
            )
            .into());
        }
    };
    let workload = prepared.instance(cell, seed)?;
    let machine = prepared.machine();
    let options = cell.options.clone();
    // A summarized cell measures fragmentation during the run; an observing one leaves it out.
    let mut meter = (!cell.observe).then(|| FragMeter::new(&workload, machine, cell.alloc));
    let mut unmetered = NoObserver;
    let observer: &mut dyn Observer = match &mut meter {
        Some(meter) => meter,
        None => &mut unmetered,
    };
    // An observing gang cell keeps the class log (the `gang_classes` measure).
    let (outcome, gang) = match sched {
        SchedKind::Gang(p) if cell.observe => {
            let (out, log) =
                coschedule::replay_gang_with(&workload, machine, p, cell.alloc, options)?;
            (out, Some(log))
        }
        _ => (
            engine::replay_with(&workload, machine, sched, cell.alloc, options, observer)?,
            None,
        ),
    };
    if validate || cell.observe {
        engine::validate(&workload, machine, &outcome)?;
    }
    let metrics = if let Some(meter) = meter {
        engine::summarize_with_fragmentation(&workload, machine, &outcome, &meter.finish())
    } else {
        // An observing cell validates every schedule and leaves out the fragmentation pass (its
        // panel draws no fragmentation column: checked when planning).
        let mut m = engine::summarize_without_fragmentation(&workload, machine, &outcome);
        m.observed = measure::observed(
            &workload,
            &outcome,
            machine.nodes(),
            prepared.window(),
            gang.as_ref(),
        );
        m
    };
    Ok(sweep::CellRun {
        workload,
        outcome,
        metrics,
    })
}
