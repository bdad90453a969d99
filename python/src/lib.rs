//! `pwa_replay._native`: the engine of pwa-replay for Python.
//!
//! The pure-Python package `pwa_replay` (beside this crate) wraps these functions: it turns the
//! column dictionaries returned here into polars data frames, so no data-frame library is linked
//! into the extension. Every error of the library reaches Python as `pwa_replay.Error` with the
//! library's message (file, line and field for a malformed log).
//!
//! * [`run`] replays one trace under a built-in scheduler (no Python is called during the replay,
//!   and the interpreter lock is released), a built-in scheduler whose queue order is a Python
//!   function ([`priority::PyPriorityFn`]), or a policy object ([`policy::PyPolicy`]);
//! * [`sweep`] replays a scheduler × allocator × load-factor grid in parallel;
//! * [`experiment`] runs an experiment file and checks its claims;
//! * [`catalog`] and [`stats`] describe the catalogued logs and a workload.

mod policy;
mod priority;
mod trace;

use std::str::FromStr;
use std::sync::{Arc, Mutex, PoisonError};

use pwa_replay::engine::columns::{COLUMNS, JobColumn, Value, job_table};
use pwa_replay::engine::users::{per_user, user_table};
use pwa_replay::engine::{
    Engine, EngineError, NoObserver, Outcome, ReplayOptions, RunMetrics, summarize,
};
use pwa_replay::experiment::external::{self, Instance};
use pwa_replay::experiment::figure::FigureData;
use pwa_replay::experiment::plan::Policy;
use pwa_replay::experiment::run::{
    Replica, replay as replay_experiment_cell, run as run_experiment,
};
use pwa_replay::experiment::sweep::{Given, SweepSpec};
use pwa_replay::experiment::{Plan, figures, verdicts};
use pwa_replay::machine::{AllocKind, Allocator, MachineSpec};
use pwa_replay::sched::{SchedKind, Scheduler};
use pwa_replay::sweep::{Cell, CellError, Grid, LoadSpec, Series};
use pwa_replay::trace::Loader;
use pwa_replay::trace::report::StatsStream;
use pwa_replay::workload::rewrite::InputRewrite;
use pwa_replay::workload::shake::{self, DEFAULT_SUBMIT_S, ShakeModel};
use pwa_replay::workload::{EstimateModel, Workload};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

use priority::{PyPriorityFn, Report};
use trace::{Loaded, Message, chain};

create_exception!(
    pwa_replay,
    Error,
    PyException,
    "An error of pwa-replay: a trace that cannot be read (file, line, field), a label that does not parse, an invalid schedule."
);

fn err(m: Message) -> PyErr {
    Error::new_err(m)
}

/// A label parsed by its `FromStr`, the error naming the parameter.
fn parse<T: FromStr>(what: &str, text: &str) -> PyResult<T>
where
    T::Err: std::fmt::Display,
{
    text.parse()
        .map_err(|e: T::Err| err(format!("{what}={text:?}: {e}")))
}

/// A workload scaled to `load_factor`, shaken when `shake` says with which model and seed (as a
/// replica of a shaking sweep is), with estimates from `estimate`.
fn prepare(
    loaded: &mut Loaded,
    load_factor: f64,
    shake: Option<(ShakeModel, u64)>,
    estimate: EstimateModel,
) -> Result<Workload, Message> {
    // The rule of a sweep's load factors, so that a run accepts what a sweep does.
    pwa_replay::sweep::load_factor(&load_factor.to_string())
        .map_err(|e| format!("load_factor={load_factor}: {e}"))?;
    let jobs = std::mem::take(&mut loaded.workload);
    let mut w = jobs.into_scaled(load_factor).map_err(|e| {
        format!(
            "scaling {} by load factor {load_factor}: {}",
            loaded.name,
            chain(&e)
        )
    })?;
    if let Some((model, seed)) = shake {
        w = shake::shake(&w, seed, &model)
            .map_err(|e| format!("shaking {}: {}", loaded.name, chain(&e)))?;
    }
    w.set_estimates(estimate);
    Ok(w)
}

/// The shaking of a run: `None` unless `shake`; the model's defaults are the command line's.
fn shaking(
    shake: bool,
    submit_s: Option<f64>,
    runtime_frac: Option<f64>,
    seed: Option<u64>,
) -> PyResult<Option<(ShakeModel, u64)>> {
    if !shake {
        if submit_s.is_some() || runtime_frac.is_some() || seed.is_some() {
            return Err(PyValueError::new_err(
                "shake_submit=, shake_runtime= and seed= shake the workload: they need shake=True",
            ));
        }
        return Ok(None);
    }
    let model = ShakeModel {
        submit_s: submit_s.unwrap_or(DEFAULT_SUBMIT_S),
        runtime_frac: runtime_frac.unwrap_or(0.0),
    };
    model
        .check()
        .map_err(|e| PyValueError::new_err(format!("shake_submit= / shake_runtime=: {e}")))?;
    Ok(Some((model, seed.unwrap_or(0))))
}

/// The jobs `first..first + count` of a loaded workload (to its end without `count`), numbered
/// from 0.
fn window(loaded: &Loaded, first: usize, count: Option<usize>) -> Result<Workload, Message> {
    let jobs = &loaded.workload.jobs;
    let end = count.map_or(jobs.len(), |n| first.saturating_add(n).min(jobs.len()));
    if first >= end {
        return Err(format!(
            "{} has {} jobs: first_job={first} with max_jobs={count:?} selects none",
            loaded.name,
            jobs.len()
        ));
    }
    Ok(Workload::from_jobs(
        jobs[first..end].to_vec(),
        loaded.workload.procs_per_node,
    ))
}

/// Adds the metrics to `d` (counts as ints), after the labels already there.
fn add_metrics(d: &Bound<'_, PyDict>, m: &RunMetrics) -> PyResult<()> {
    for c in COLUMNS {
        match (c.get)(m) {
            Value::Count(n) => d.set_item(c.name, n)?,
            Value::Real(x) => d.set_item(c.name, x)?,
        }
    }
    Ok(())
}

/// A table of the library (the per-job or the per-user table) as a dict of lists, in column order.
fn table_dict<'py>(py: Python<'py>, table: Vec<(&str, JobColumn)>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (name, col) in table {
        match col {
            JobColumn::Ids(v) => d.set_item(name, v)?,
            JobColumn::Reals(v) => d.set_item(name, v)?,
            JobColumn::Counts(v) => d.set_item(name, v)?,
            JobColumn::Signed(v) => d.set_item(name, v)?,
            JobColumn::Texts(v) => d.set_item(name, v)?,
            JobColumn::Flags(v) => d.set_item(name, v)?,
        }
    }
    Ok(d)
}

/// The replay options given as keyword arguments, named as the fields of [`ReplayOptions`]
/// (`kill_at_estimate=True`, `dilation="linear:0.5"`); `None` leaves an option at its default.
fn replay_options(given: Option<&Bound<'_, PyDict>>) -> PyResult<ReplayOptions> {
    let Some(given) = given else {
        return Ok(ReplayOptions::default());
    };
    let set = PyDict::new(given.py());
    for (k, v) in given.iter().filter(|(_, v)| !v.is_none()) {
        set.set_item(k, v)?;
    }
    pythonize::depythonize(set.as_any()).map_err(|e| err(format!("replay options: {e}")))
}

/// Every replay option with a value, by name (an option unset is left out), into `d`.
fn add_options(d: &Bound<'_, PyDict>, options: &ReplayOptions) -> PyResult<()> {
    let all = pythonize::pythonize(d.py(), options).map_err(|e| err(e.to_string()))?;
    for (k, v) in all.cast::<PyDict>()?.iter().filter(|(_, v)| !v.is_none()) {
        d.set_item(k, v)?;
    }
    Ok(())
}

/// The scheduler of a replay.
enum Chosen {
    /// A built-in label: no Python runs during the replay.
    Builtin(SchedKind),
    /// A built-in label whose queue order is a Python function: its name, the function and
    /// where its calls are counted.
    Function(SchedKind, String, Arc<PyPriorityFn>, Arc<Mutex<Report>>),
    /// A Python object with `schedule(state)`.
    Python(Py<PyAny>),
}

impl Chosen {
    /// The one of `sched` (a label) and `policy` (an object) given; `order_fns` are the Python
    /// functions that queue orders may name: name → `(function, static)`.
    fn of(
        sched: Option<&str>,
        policy: Option<Py<PyAny>>,
        order_fns: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Chosen> {
        match (sched.map(|s| parse("sched", s)).transpose()?, policy) {
            (Some(s), None) => Chosen::builtin(s, order_fns),
            (None, Some(p)) => Ok(Chosen::Python(p)),
            _ => Err(err(
                "give exactly one of sched= (a built-in scheduler label) and policy= (an object with schedule(state))".into(),
            )),
        }
    }

    /// The built-in `s`, with its order's function when `order_fns` holds one by its name.
    fn builtin(s: SchedKind, order_fns: Option<&Bound<'_, PyDict>>) -> PyResult<Chosen> {
        let given = s.order().zip(order_fns).and_then(|((_, name), fns)| {
            let f = fns.get_item(name.as_str()).ok().flatten()?;
            Some((name.as_str().to_string(), f))
        });
        let Some((name, f)) = given else {
            return Ok(Chosen::Builtin(s));
        };
        let (func, is_static): (Py<PyAny>, bool) = f.extract()?;
        let (f, report) = PyPriorityFn::new(func, is_static);
        Ok(Chosen::Function(s, name, Arc::new(f), report))
    }

    /// Replays `workload` under this scheduler: its label, the outcome, and for a Python policy
    /// or priority function its call count and time in `extra`.
    fn replay(
        self,
        py: Python<'_>,
        workload: &Workload,
        allocator: Box<dyn Allocator>,
        options: ReplayOptions,
        extra: &Bound<'_, PyDict>,
    ) -> PyResult<(String, Result<Outcome, EngineError>)> {
        match self {
            Chosen::Builtin(s) => {
                let out = py.detach(|| -> Result<Outcome, EngineError> {
                    let sched = s.build_with(workload, &options.priority()?)?;
                    Engine::new(workload, sched, allocator)
                        .with_options(options)
                        .run(&mut NoObserver)
                });
                Ok((s.to_string(), out))
            }
            Chosen::Function(s, name, f, report) => {
                // The interpreter lock is held: the function is called at every pass.
                let run = || -> Result<Outcome, EngineError> {
                    let mut config = options.priority()?;
                    config.functions.insert(name, f);
                    let sched = s.build_with(workload, &config)?;
                    Engine::new(workload, sched, allocator)
                        .with_options(options)
                        .run(&mut NoObserver)
                };
                let out = run();
                raise_reported(py, s, &report)?;
                let report = report.lock().unwrap_or_else(PoisonError::into_inner);
                extra.set_item("calls", report.calls)?;
                extra.set_item("python_s", report.python_s)?;
                Ok((s.to_string(), out))
            }
            Chosen::Python(p) => {
                let name = format!("python:{}", p.bind(py).get_type().name()?);
                let (scheduler, state) = policy::PyPolicy::new(py, p)?;
                let out = Engine::new(workload, Box::new(scheduler), allocator)
                    .with_options(options)
                    .run(&mut NoObserver);
                let mut st = state.bind(py).borrow_mut();
                if let Some((e, at)) = st.error.take() {
                    e.value(py).setattr("sim_time", at)?;
                    return Err(e);
                }
                extra.set_item("calls", st.calls)?;
                extra.set_item("python_s", st.python_s)?;
                Ok((name, out))
            }
        }
    }
}

/// The exception a priority function of `s` raised during a replay (kept in `report`), raised again
/// with its `sim_time`, its `job` and a note saying where.
fn raise_reported(py: Python<'_>, s: SchedKind, report: &Mutex<Report>) -> PyResult<()> {
    let mut report = report.lock().unwrap_or_else(PoisonError::into_inner);
    let Some((e, at, job)) = report.error.take() else {
        return Ok(());
    };
    let value = e.value(py);
    let shown = match &job {
        Some(j) => format!(" for {}", j.bind(py).repr()?),
        None => String::new(),
    };
    value.setattr("sim_time", at)?;
    value.setattr("job", job)?;
    if value.hasattr("add_note")? {
        let note =
            format!("raised by the priority function of {s}{shown} at simulated time {at} s");
        value.call_method1("add_note", (note,))?;
    }
    Err(e)
}

/// `first_job` (≥ 0) and `max_jobs` (≥ 1, or `None`: to the end), checked as Python values.
fn job_window(first_job: i64, max_jobs: Option<i64>) -> PyResult<(usize, Option<usize>)> {
    let first = usize::try_from(first_job)
        .map_err(|_| PyValueError::new_err(format!("first_job={first_job}: must be 0 or more")))?;
    let count = match max_jobs {
        Some(n) if n < 1 => {
            return Err(PyValueError::new_err(format!(
                "max_jobs={n}: must be 1 or more (None replays to the end)"
            )));
        }
        n => n.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
    };
    Ok((first, count))
}

/// What `run` replays: the trace, its machine and allocator, the jobs kept, load and estimates.
struct RunInput<'a> {
    trace: &'a str,
    machine: Option<MachineSpec>,
    alloc: Option<AllocKind>,
    lenient: bool,
    /// How the log's records are read (the replay's semantics).
    input: InputRewrite,
    first_job: usize,
    max_jobs: Option<usize>,
    load_factor: f64,
    shake: Option<(ShakeModel, u64)>,
    estimate: EstimateModel,
}

impl RunInput<'_> {
    /// The trace loaded, its workload as replayed (windowed, scaled, with estimates) and the
    /// allocator (the trace's first when none was given).
    fn load(&self, py: Python<'_>) -> PyResult<(Loaded, Workload, AllocKind)> {
        let flat_ok = self.alloc.is_none_or(|a| a == AllocKind::Flat);
        let mut loaded = py
            .detach(|| {
                trace::load(
                    self.trace,
                    self.machine,
                    (self.lenient, self.input),
                    flat_ok,
                )
            })
            .map_err(err)?;
        let alloc = match self.alloc {
            Some(a) => a,
            None => *loaded.grid.allocators.first().ok_or_else(|| {
                err(format!(
                    "{} has no default allocator: say alloc=",
                    loaded.name
                ))
            })?,
        };
        if self.lenient {
            loaded
                .workload
                .retain_fitting(loaded.machine, &[alloc])
                .map_err(|e| err(chain(&e)))?;
        }
        if self.first_job > 0 || self.max_jobs.is_some() {
            loaded.workload = window(&loaded, self.first_job, self.max_jobs).map_err(err)?;
        }
        let workload =
            prepare(&mut loaded, self.load_factor, self.shake, self.estimate).map_err(err)?;
        Ok((loaded, workload, alloc))
    }
}

/// Replays `trace` under `sched` (a built-in label) or `policy` (a Python object with
/// `schedule(state)`) and `alloc`, with the replay options given as further keyword arguments;
/// `order_fns` holds the Python functions a label's order may name (name → `(function,
/// static)`). Returns `[metrics, jobs, users, extra]`: the summary columns (labels first), the
/// per-job and the per-user tables as column lists, and for a policy or a priority function its
/// call count and time.
#[pyfunction]
#[pyo3(signature = (trace, *, machine=None, sched=None, policy=None, order_fns=None, alloc=None,
    load_factor=1.0, estimate="exact", validate=false, lenient=false, first_job=0, max_jobs=None,
    shake=false, shake_submit=None, shake_runtime=None, seed=None, **options))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    trace: &str,
    machine: Option<&str>,
    sched: Option<&str>,
    policy: Option<Py<PyAny>>,
    order_fns: Option<&Bound<'py, PyDict>>,
    alloc: Option<&str>,
    load_factor: f64,
    estimate: &str,
    validate: bool,
    lenient: bool,
    first_job: i64,
    max_jobs: Option<i64>,
    shake: bool,
    shake_submit: Option<f64>,
    shake_runtime: Option<f64>,
    seed: Option<u64>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<[Bound<'py, PyDict>; 4]> {
    let options = replay_options(options)?;
    let (first_job, max_jobs) = job_window(first_job, max_jobs)?;
    let chosen = Chosen::of(sched, policy, order_fns)?;
    let input = RunInput {
        trace,
        machine: machine.map(|m| parse("machine", m)).transpose()?,
        alloc: alloc.map(|a| parse("alloc", a)).transpose()?,
        lenient,
        input: options.semantics.input,
        first_job,
        max_jobs,
        load_factor,
        shake: shaking(shake, shake_submit, shake_runtime, seed)?,
        estimate: parse("estimate", estimate)?,
    };
    let (loaded, workload, alloc) = input.load(py)?;
    let (m, estimate) = (loaded.machine, input.estimate);
    let what = |s: &str| {
        format!(
            "replaying {} on {m} with {s} / {alloc} at load factor {load_factor} ({estimate} estimates)",
            loaded.name
        )
    };
    let allocator = alloc
        .build(m)
        .map_err(|e| err(format!("alloc={alloc} on {m}: {}", chain(&e))))?;
    let extra = PyDict::new(py);
    let (label, outcome) = chosen.replay(py, &workload, allocator, options.clone(), &extra)?;
    let outcome = outcome.map_err(|e| err(format!("{}: {}", what(&label), chain(&e))))?;
    if validate {
        pwa_replay::engine::validate(&workload, m, &outcome).map_err(|e| {
            let what = what(&label);
            err(format!("the schedule is invalid ({what}): {}", chain(&e)))
        })?;
    }
    let d = PyDict::new(py);
    d.set_item("trace", &loaded.name)?;
    d.set_item("sha256", &loaded.sha256)?;
    d.set_item("machine", m.to_string())?;
    d.set_item("scheduler", label)?;
    d.set_item("allocator", alloc.to_string())?;
    d.set_item("load_factor", load_factor)?;
    d.set_item("estimate", estimate.to_string())?;
    let fallbacks = if estimate.reads_requested() {
        workload.without_requested_time()
    } else {
        0
    };
    d.set_item("estimate_fallbacks", fallbacks)?;
    if let Some((_, seed)) = input.shake {
        d.set_item("seed", seed)?;
    }
    add_options(&d, &options)?;
    d.set_item("validated", validate)?;
    d.set_item("alloc_calls_skipped", outcome.skipped_checks)?;
    d.set_item("dropped", loaded.dropped.values().sum::<u64>())?;
    d.set_item("skipped_lines", loaded.skipped.skipped_lines())?;
    add_metrics(&d, &summarize(&workload, m, alloc, &outcome))?;
    let jobs = table_dict(py, job_table(&workload, m, &outcome))?;
    let users = table_dict(py, user_table(&per_user(&workload, &outcome)))?;
    Ok([d, jobs, users, extra])
}

/// Labels of a list argument: `None` → `default`, else each parsed.
fn labels<T: FromStr + Clone>(
    what: &str,
    given: Option<Vec<String>>,
    default: &[T],
) -> PyResult<Vec<T>>
where
    T::Err: std::fmt::Display,
{
    match given {
        None => Ok(default.to_vec()),
        Some(v) => v.iter().map(|s| parse(what, s)).collect(),
    }
}

/// The load factors of a sweep: a spec string, a list of numbers, or `auto` for `None`.
fn load_spec(loads: Option<&Bound<'_, PyAny>>) -> PyResult<LoadSpec> {
    let Some(l) = loads else {
        return parse("loads", "auto");
    };
    match l.extract::<String>() {
        Ok(s) => parse("loads", &s),
        Err(_) => {
            let list: Vec<f64> = l.extract()?;
            let text: Vec<String> = list.iter().map(f64::to_string).collect();
            parse("loads", &text.join(","))
        }
    }
}

/// The grid of a sweep: every scheduler × allocator × estimate model (`None` lists take the
/// trace's default grid), each allocator checked on the machine, a scheduler blind to estimates
/// under the first model only ([`Grid::series_once`] under `options`); with `lenient`, the jobs
/// that fit none of them dropped.
fn sweep_series(
    loaded: &mut Loaded,
    sched: Option<Vec<String>>,
    alloc: Option<Vec<String>>,
    estimate: Option<Vec<String>>,
    lenient: bool,
    options: &ReplayOptions,
) -> PyResult<Vec<Series>> {
    // The command line's default grid: no `user` estimates for a log without requested times.
    let grid = loaded.grid.for_log(&loaded.workload);
    let schedulers = labels("sched", sched, &grid.schedulers)?;
    let allocators = labels("alloc", alloc, &grid.allocators)?;
    let estimates = labels("estimate", estimate, &grid.estimates)?;
    let m = loaded.machine;
    for a in &allocators {
        a.build(m)
            .map_err(|e| err(format!("alloc={a} on {} ({m}): {}", loaded.name, chain(&e))))?;
    }
    if lenient {
        loaded
            .workload
            .retain_fitting(m, &allocators)
            .map_err(|e| err(chain(&e)))?;
    }
    Ok(Grid {
        schedulers: schedulers.into_iter().map(Into::into).collect(),
        allocators,
        loads: Vec::new(),
        estimates,
    }
    .series_once(options)
    .0)
}

/// Runs `spec` on `workload` with the one executor (the command line's sweep: the one-panel
/// experiment of the grid); a validating sweep replays each cell itself to check its schedule.
/// The cells with their metrics, in summary order.
fn run_sweep(
    py: Python<'_>,
    spec: &SweepSpec,
    workload: Workload,
    validate: bool,
    threads: usize,
) -> PyResult<Vec<(Cell, RunMetrics)>> {
    let plan = spec.plan().map_err(err)?;
    let source = Given {
        workload: Arc::new(workload),
        machine: spec.machine,
    };
    let hook = |r: &Replica<'_>, compute: &dyn Fn() -> Result<RunMetrics, CellError>| {
        if validate {
            Ok(replay_experiment_cell(r.prepared, r.cell, r.seed, true)?.metrics)
        } else {
            compute()
        }
    };
    let results = py
        .detach(|| run_experiment(&plan, &spec.units(None), &source, &hook, &|_| {}, threads))
        .map_err(|e| err(format!("sweeping {}: {}", spec.workload, chain(&e))))?;
    Ok(spec
        .replicas(&results)
        .map_err(err)?
        .into_iter()
        .map(|(cell, reps)| (cell, reps[0]))
        .collect())
}

/// The summary table of a sweep of `trace` on `machine` as column lists (`summary.csv`'s columns).
fn summary_columns<'py>(
    py: Python<'py>,
    trace: &str,
    machine: MachineSpec,
    results: &[(Cell, RunMetrics)],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let n = results.len();
    d.set_item("trace", vec![trace; n])?;
    d.set_item("machine", vec![machine.to_string(); n])?;
    let text = |f: &dyn Fn(&Cell) -> String| results.iter().map(|(c, _)| f(c)).collect::<Vec<_>>();
    d.set_item("scheduler", text(&|c| c.scheduler.to_string()))?;
    d.set_item("allocator", text(&|c| c.allocator.to_string()))?;
    let lf: Vec<f64> = results.iter().map(|(c, _)| c.load_factor).collect();
    d.set_item("load_factor", lf)?;
    if results
        .iter()
        .any(|(c, _)| c.estimate != EstimateModel::Exact)
    {
        d.set_item("estimate", text(&|c| c.estimate.to_string()))?;
    }
    for c in COLUMNS {
        if c.is_count() {
            let v: Vec<u64> = results.iter().map(|(_, m)| (c.get)(m).as_u64()).collect();
            d.set_item(c.name, v)?;
        } else {
            let v: Vec<f64> = results.iter().map(|(_, m)| c.of(m)).collect();
            d.set_item(c.name, v)?;
        }
    }
    Ok(d)
}

/// Replays the grid `sched` × `alloc` × `estimate` × `loads` (a list of load factors, or a spec
/// string: `0.5,1`, `0.1:1:0.1`, `auto`) of `trace` on `threads` workers, with the replay options
/// given as further keyword arguments; returns the summary table as column lists, one row per
/// cell, in the command line's `summary.csv` order and columns.
#[pyfunction]
#[pyo3(signature = (trace, *, sched=None, alloc=None, loads=None, machine=None, estimate=None,
    validate=false, lenient=false, threads=None, **options))]
#[allow(clippy::too_many_arguments)]
fn sweep<'py>(
    py: Python<'py>,
    trace: &str,
    sched: Option<Vec<String>>,
    alloc: Option<Vec<String>>,
    loads: Option<&Bound<'py, PyAny>>,
    machine: Option<&str>,
    estimate: Option<Vec<String>>,
    validate: bool,
    lenient: bool,
    threads: Option<usize>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let options = replay_options(options)?;
    let machine: Option<MachineSpec> = machine.map(|m| parse("machine", m)).transpose()?;
    let loads = load_spec(loads)?;
    let allocs_given: Option<Vec<AllocKind>> = alloc
        .clone()
        .map(|v| v.iter().map(|a| parse("alloc", a)).collect())
        .transpose()?;
    let flat_ok = allocs_given
        .as_ref()
        .is_none_or(|v| v.iter().all(|&a| a == AllocKind::Flat));
    let mut loaded = py
        .detach(|| trace::load(trace, machine, (lenient, options.semantics.input), flat_ok))
        .map_err(err)?;
    let series = sweep_series(&mut loaded, sched, alloc, estimate, lenient, &options)?;
    let spec = SweepSpec {
        workload: loaded.name.clone(),
        machine: loaded.machine,
        series,
        loads,
        replicas: 1,
        shake: None,
        options,
    };
    let workload = std::mem::take(&mut loaded.workload);
    let results = run_sweep(py, &spec, workload, validate, threads_or_cores(threads))?;
    summary_columns(py, &loaded.name, loaded.machine, &results)
}

/// The load factors of a fixed load spec (a list, `0.5,1`, `0.1:1:0.1`), in order; `auto` is an
/// error (its load factors depend on the results).
#[pyfunction]
fn load_list(loads: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<f64>> {
    match load_spec(loads)? {
        LoadSpec::List(v) => Ok(v),
        LoadSpec::Auto(_) => Err(PyValueError::new_err(
            "loads=\"auto\" climbs each series to its knee inside the native executor: give a list \
             (or \"0.5,1\", \"0.1:1:0.1\") for a sweep with Python policies",
        )),
    }
}

/// The default grid of `trace` (on `machine`): `(schedulers, allocators, estimates)` as labels.
#[pyfunction]
#[pyo3(signature = (trace, *, machine=None, lenient=false))]
fn default_grid(
    py: Python<'_>,
    trace: &str,
    machine: Option<&str>,
    lenient: bool,
) -> PyResult<(Vec<String>, Vec<String>, Vec<String>)> {
    let machine: Option<MachineSpec> = machine.map(|m| parse("machine", m)).transpose()?;
    let g = py
        .detach(|| {
            trace::load_each(
                trace,
                machine,
                (lenient, InputRewrite::AsLogged),
                true,
                Some(&mut |_, _| {}),
            )
        })
        .map_err(err)?
        .grid;
    fn names<T: ToString>(v: &[T]) -> Vec<String> {
        v.iter().map(ToString::to_string).collect()
    }
    Ok((
        names(&g.schedulers),
        names(&g.allocators),
        names(&g.estimates),
    ))
}

/// `threads`, or the number of cores.
fn threads_or_cores(threads: Option<usize>) -> usize {
    threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    })
}

/// The catalogued logs: one dict per entry (name, description, file, folder (None for a log the
/// archive does not hold), sha256, machine, procs_per_node, schedulers, allocators).
#[pyfunction]
fn catalog<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let cat = trace::catalog().map_err(err)?;
    let list = PyList::empty(py);
    for e in cat.entries() {
        let d = PyDict::new(py);
        d.set_item("name", &e.name)?;
        d.set_item("description", &e.description)?;
        d.set_item("file", &e.file)?;
        d.set_item("folder", &e.folder)?;
        d.set_item("sha256", &e.sha256)?;
        d.set_item("machine", e.conversion.machine.to_string())?;
        d.set_item("procs_per_node", e.conversion.procs_per_node)?;
        let scheds: Vec<String> = e.grid.schedulers.iter().map(|s| s.to_string()).collect();
        let allocs: Vec<String> = e.grid.allocators.iter().map(|a| a.to_string()).collect();
        d.set_item("schedulers", scheds)?;
        d.set_item("allocators", allocs)?;
        list.append(d)?;
    }
    Ok(list)
}

/// The report of `pwa-replay stats --format json` (the same keys and values), as a JSON text: the
/// jobs scaled by `load_factor` when given, their estimates checked under `estimate`.
#[pyfunction]
#[pyo3(signature = (trace, *, machine=None, lenient=false, load_factor=None, estimate="exact"))]
fn stats(
    py: Python<'_>,
    trace: &str,
    machine: Option<&str>,
    lenient: bool,
    load_factor: Option<f64>,
    estimate: &str,
) -> PyResult<String> {
    let machine: Option<MachineSpec> = machine.map(|m| parse("machine", m)).transpose()?;
    let mut acc = StatsStream::new(load_factor, parse("estimate", estimate)?)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let report = py.detach(|| {
        let loaded = trace::load_each(
            trace,
            machine,
            (lenient, InputRewrite::AsLogged),
            true,
            Some(&mut |c, j| acc.push(c, j)),
        )?;
        Ok::<_, Message>(acc.report(&loaded))
    });
    serde_json::to_string(&report.map_err(err)?).map_err(|e| err(e.to_string()))
}

/// Runs the experiment file at `path` (docs/EXPERIMENTS.md; `quick`: its short budget) on `threads`
/// workers, with replay options given as further keyword arguments under the file's (as `pwa-replay
/// experiment`'s flags); returns `(points, claims)` as column lists: every figure's points (figure,
/// title, axis labels, series, x, y, ci_low, ci_high, n) and every claim's verdict (figure,
/// statement, holds, measured). The series with a `py:` part are keyed by `digest(label, folder)`
/// and their replicas replayed by `replay(label, folder, instance)` (metrics as JSON texts), the
/// folder being the file's.
#[pyfunction]
#[pyo3(signature = (path, *, quick=false, threads=None, digest=None, replay=None, **options))]
#[allow(clippy::too_many_arguments)]
fn experiment<'py>(
    py: Python<'py>,
    path: &str,
    quick: bool,
    threads: Option<usize>,
    digest: Option<Py<PyAny>>,
    replay: Option<Py<PyAny>>,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let options = replay_options(options)?;
    let text = std::fs::read_to_string(path).map_err(|e| err(format!("reading {path}: {e}")))?;
    let mut plan =
        Plan::with_params(path, &text, quick, &[], &options).map_err(|e| err(chain(&e)))?;
    let folder = match std::path::Path::new(path).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.display().to_string(),
        _ => ".".to_string(),
    };
    if let Some(digest) = &digest {
        plan.resolve_external(|label| {
            digest
                .call1(py, (label, &folder))
                .and_then(|d| d.extract::<String>(py))
                .map_err(|e| e.to_string())
        })
        .map_err(|e| err(format!("{path}: {e}")))?;
    }
    let threads = threads_or_cores(threads);
    let results = py
        .detach(|| {
            let hook = |r: &Replica<'_>, compute: &dyn Fn() -> Result<RunMetrics, CellError>| {
                match (&r.cell.sched, &replay) {
                    (Policy::External(e), Some(replay)) => {
                        replay_external(replay, &e.label, &folder, r)
                    }
                    _ => compute(),
                }
            };
            run_experiment(
                &plan,
                &plan.units(),
                &Loader::default(),
                &hook,
                &|_| {},
                threads,
            )
        })
        .map_err(|e| err(format!("{path}: {}", chain(&e))))?;
    let figs = figures(&plan, &results);
    let points = PyDict::new(py);
    let each = |f: &dyn Fn(&FigureData) -> String| -> Vec<String> {
        figs.iter()
            .flat_map(|fig| std::iter::repeat_n(f(fig), fig.points.len()))
            .collect()
    };
    points.set_item("figure", each(&|f| f.key()))?;
    points.set_item("title", each(&|f| f.title.clone()))?;
    points.set_item("x_label", each(&|f| f.x_label.clone()))?;
    points.set_item("y_label", each(&|f| f.y_label.clone()))?;
    let all = || figs.iter().flat_map(|f| f.points.iter());
    points.set_item(
        "series",
        all().map(|p| p.series.clone()).collect::<Vec<_>>(),
    )?;
    points.set_item("x", all().map(|p| p.x).collect::<Vec<_>>())?;
    points.set_item("y", all().map(|p| p.est.mean).collect::<Vec<_>>())?;
    points.set_item("ci_low", all().map(|p| p.est.ci_low).collect::<Vec<_>>())?;
    points.set_item("ci_high", all().map(|p| p.est.ci_high).collect::<Vec<_>>())?;
    points.set_item("n", all().map(|p| p.est.n).collect::<Vec<_>>())?;
    let v = verdicts(&plan, &figs);
    let claims = PyDict::new(py);
    claims.set_item(
        "figure",
        v.iter().map(|c| c.figure.clone()).collect::<Vec<_>>(),
    )?;
    claims.set_item(
        "statement",
        v.iter().map(|c| c.statement.clone()).collect::<Vec<_>>(),
    )?;
    claims.set_item("holds", v.iter().map(|c| c.holds).collect::<Vec<_>>())?;
    claims.set_item(
        "measured",
        v.iter().map(|c| c.measured.clone()).collect::<Vec<_>>(),
    )?;
    Ok((points, claims))
}

/// Replays one replica of an external series as the binary hands it to a worker (an
/// [`Instance`] as JSON) under `policy` (a Python object with `schedule(state)`) or `sched` (a
/// scheduler label, its order's Python function in `order_fns` as for [`run`]); returns the
/// worker's reply as JSON text: `{"metrics": {column: number as exact text}}`, with the schedule
/// (`"outcome"`, the library's [`Outcome`](pwa_replay::engine::Outcome) as JSON) when `schedule`.
/// An exception of the policy or function is raised again with its `sim_time`.
#[pyfunction]
#[pyo3(signature = (instance, *, policy=None, sched=None, order_fns=None, validate=false, schedule=false))]
fn replay_instance(
    py: Python<'_>,
    instance: &[u8],
    policy: Option<Py<PyAny>>,
    sched: Option<&str>,
    order_fns: Option<&Bound<'_, PyDict>>,
    validate: bool,
    schedule: bool,
) -> PyResult<String> {
    let instance: Instance = serde_json::from_slice(instance)
        .map_err(|e| err(format!("reading the replica's instance: {e}")))?;
    let mut priority = instance
        .options
        .priority()
        .map_err(|e| err(e.to_string()))?;
    let workload = &instance.workload;
    let built = |s: SchedKind, priority| {
        s.for_workload(workload)
            .build_with(workload, priority)
            .map_err(|e| err(format!("sched={s}: {}", chain(&e))))
    };
    let (scheduler, state, reported): (Box<dyn Scheduler>, _, _) =
        match Chosen::of(sched, policy, order_fns)? {
            Chosen::Builtin(s) => (built(s, &priority)?, None, None),
            Chosen::Function(s, name, f, report) => {
                priority.functions.insert(name, f);
                (built(s, &priority)?, None, Some((s, report)))
            }
            Chosen::Python(p) => {
                let (scheduler, state) = policy::PyPolicy::new(py, p)?;
                (Box::new(scheduler) as Box<dyn Scheduler>, Some(state), None)
            }
        };
    let replayed = external::replay_instance_outcome(&instance, scheduler, validate);
    if let Some((e, at)) = state.and_then(|s| s.bind(py).borrow_mut().error.take()) {
        e.value(py).setattr("sim_time", at)?;
        return Err(e);
    }
    if let Some((s, report)) = reported {
        raise_reported(py, s, &report)?;
    }
    let (metrics, outcome) =
        replayed.map_err(|e| err(format!("{}: {}", instance.policy, chain(&*e))))?;
    let texts: serde_json::Map<String, serde_json::Value> = COLUMNS
        .iter()
        .map(|c| {
            let text = match (c.get)(&metrics) {
                Value::Count(n) => n.to_string(),
                Value::Real(x) => x.to_string(),
            };
            (c.name.to_string(), text.into())
        })
        .collect();
    let mut reply = serde_json::json!({ "metrics": texts });
    if schedule {
        reply["outcome"] = serde_json::to_value(&outcome).map_err(|e| err(e.to_string()))?;
    }
    Ok(reply.to_string())
}

/// Replica `r` of an external series through Python's `replay(label, folder, instance)`.
fn replay_external(
    replay: &Py<PyAny>,
    label: &str,
    folder: &str,
    r: &Replica<'_>,
) -> Result<RunMetrics, CellError> {
    let instance = serde_json::to_vec(&r.instance()?)?;
    let text: String = Python::attach(|py| {
        replay
            .call1(py, (label, folder, PyBytes::new(py, &instance)))
            .and_then(|t| t.extract(py))
    })
    .map_err(|e| format!("replica with seed {}: {e}", r.seed))?;
    let texts: std::collections::BTreeMap<String, String> = serde_json::from_str(&text)?;
    let mut m = RunMetrics::default();
    for c in COLUMNS {
        let text = texts
            .get(c.name)
            .ok_or_else(|| format!("the worker gave no `{}`", c.name))?;
        let value = if c.is_count() {
            Value::Count(text.parse()?)
        } else {
            Value::Real(text.parse()?)
        };
        (c.set)(&mut m, value);
    }
    Ok(m)
}

/// The scheduler and allocator labels the library knows (syntax, example, meaning).
#[pyfunction]
fn labels_known(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let scheds: Vec<(&str, &str, &str)> = pwa_replay::sched::SCHEDULERS
        .iter()
        .map(|s| (s.syntax, s.example, s.meaning))
        .collect();
    d.set_item("schedulers", scheds)?;
    let allocs: Vec<String> = AllocKind::ALL.iter().map(|a| a.to_string()).collect();
    d.set_item("allocators", allocs)?;
    Ok(d)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Error", m.py().get_type::<Error>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(catalog, m)?)?;
    m.add_function(wrap_pyfunction!(stats, m)?)?;
    m.add_function(wrap_pyfunction!(experiment, m)?)?;
    m.add_function(wrap_pyfunction!(labels_known, m)?)?;
    m.add_function(wrap_pyfunction!(load_list, m)?)?;
    m.add_function(wrap_pyfunction!(default_grid, m)?)?;
    m.add_function(wrap_pyfunction!(replay_instance, m)?)?;
    m.add_class::<policy::PyJob>()?;
    m.add_class::<policy::State>()?;
    m.add_class::<policy::QueueView>()?;
    m.add_class::<policy::PyPlacement>()?;
    m.add_class::<policy::PyReservation>()?;
    Ok(())
}
