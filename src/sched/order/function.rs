//! Priority functions: queue orders whose values come from outside the library — in the Python
//! package, a Python function `score(job, now)` named `order=py:PATH:FUNCTION` in a label.
//!
//! The library holds no interpreter: a front end gives a [`PriorityFn`] under the order's name
//! ([`super::PriorityConfig::functions`]), and a replay asks it for one [`Priorities`] of its own.
//! The values enter the same `Ranking` as every other order's, so the tie rule (arrival), the
//! recomputation at each pass (a static function's ranking kept instead, as a static named
//! order's) and the six ordered schedulers are those of the named orders.
//!
//! A *static* function (its values do not depend on the moment: Python's `score(job)`) is asked
//! once per job, when the job arrives (again when the engine's estimates change), and its value
//! kept; a dynamic one is asked at every pass for all the jobs the pass ranks, in one call.
//!
//! A function cannot fail the replay: the library's schedulers have no error path. A front end
//! whose function raises keeps the first error, answers with any values from then on without
//! calling the function again, and reports the error when the replay returns (the Python
//! package raises it with the job and the simulated time).

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

use crate::SimTime;
use crate::workload::{Job, JobId};

/// A queue order computed outside the library: larger values first, ties by arrival.
pub trait PriorityFn: Send + Sync {
    /// Whether a job's value never changes while it waits: it is then asked once, at arrival.
    fn is_static(&self) -> bool;
    /// The evaluation of one replay (it may keep what it reads of the waiting jobs).
    fn start(&self) -> Box<dyn Priorities>;
}

/// One replay's evaluation of a [`PriorityFn`].
pub trait Priorities: Send {
    /// Job `job` waits from `now` on (told again when its estimate changed).
    fn arrived(&mut self, job: &Job, now: SimTime);
    /// The values at `now` of the jobs `jobs` (each told by [`Priorities::arrived`]), one each,
    /// in order, into `out` (cleared). A NaN goes last. A job may have started already (Window-K
    /// ranks its whole window, started jobs too): its value is not used, NaN will do.
    fn values(&mut self, now: SimTime, jobs: &[JobId], out: &mut Vec<f64>);
    /// Job `job` started: it will not be asked for again (unless it arrives again).
    fn started(&mut self, job: JobId);
}

/// The priority functions a replay may name, by order name (`py:prio.py:score`, or a name the
/// replay defines). Compared by name and identity: two configurations are equal when they hold
/// the same functions.
#[derive(Clone, Default)]
pub struct Functions(BTreeMap<String, Arc<dyn PriorityFn>>);

impl Functions {
    /// Adds function `f` under `name` (replacing one of that name).
    pub fn insert(&mut self, name: impl Into<String>, f: Arc<dyn PriorityFn>) {
        self.0.insert(name.into(), f);
    }

    /// The function called `name`.
    pub fn get(&self, name: &str) -> Option<Function> {
        (self.0.get_key_value(name)).map(|(n, f)| Function {
            name: n.clone(),
            f: Arc::clone(f),
        })
    }

    /// The names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(String::as_str)
    }
}

impl fmt::Debug for Functions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.0.keys()).finish()
    }
}

impl PartialEq for Functions {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && (self.0.iter().zip(&other.0)).all(|((a, f), (b, g))| a == b && Arc::ptr_eq(f, g))
    }
}

/// A resolved priority function: its name and the function.
#[derive(Clone)]
pub struct Function {
    /// The order's name.
    pub name: String,
    /// The function.
    pub f: Arc<dyn PriorityFn>,
}

impl fmt::Debug for Function {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Function({:?})", self.name)
    }
}

impl PartialEq for Function {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && Arc::ptr_eq(&self.f, &other.f)
    }
}

/// A priority function during one replay, as a `Ranking` uses it.
pub(super) struct Evaluation {
    p: Box<dyn Priorities>,
    is_static: bool,
    /// The jobs of a pass (kept for the allocation).
    ids: Vec<JobId>,
}

impl fmt::Debug for Evaluation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Evaluation {{ static: {} }}", self.is_static)
    }
}

impl Evaluation {
    pub(super) fn new(f: &Function) -> Evaluation {
        Evaluation {
            p: f.f.start(),
            is_static: f.f.is_static(),
            ids: Vec::new(),
        }
    }

    /// Job `job` arrived now: a static function's value, asked now once and for all (0 for a
    /// dynamic one, asked at each pass).
    pub(super) fn arrived(&mut self, job: &Job, now: SimTime) -> f64 {
        self.p.arrived(job, now);
        if !self.is_static {
            return 0.0;
        }
        self.ids.clear();
        self.ids.push(job.id);
        let mut one = Vec::with_capacity(1);
        self.p.values(now, &self.ids, &mut one);
        one.first().copied().unwrap_or(f64::NAN)
    }

    /// The values at `now` of the jobs `jobs` (a dynamic function's: a static one's are those
    /// [`Evaluation::arrived`] gave), into `out`.
    pub(super) fn values(
        &mut self,
        now: SimTime,
        jobs: impl Iterator<Item = JobId>,
        out: &mut Vec<f64>,
    ) {
        out.clear();
        self.ids.clear();
        self.ids.extend(jobs);
        self.p.values(now, &self.ids, out);
        // A front end that answers too few values has its jobs last.
        out.resize(self.ids.len(), f64::NAN);
    }

    pub(super) fn started(&mut self, job: JobId) {
        self.p.started(job);
    }
}
