//! Priority functions written in Python: a queue order `score(job)` or `score(job, now)` for the
//! built-in schedulers (`easy:order=py:prio.py:score`), larger first, ties by arrival.
//!
//! A [`PyPriorityFn`] is the library's [`PriorityFn`]: the library ranks its values as every
//! order's. Each waiting job is one [`PyJob`] made once, at its arrival (again when the engine's
//! estimates change), and dropped when it starts (a static function's, once it has answered);
//! its `wait` reads the clock set for the pass.
//!
//! A function of the job alone is *static*: called once per job, at its arrival. A function of
//! the job and the moment is called at every pass for every waiting job the pass ranks, with
//! one `now` object for the pass: nothing else is allocated per call but the call's arguments
//! and the returned number. Calling it from here one job at a time was the fastest of the ways
//! measured (docs/PYTHON.md, "Speed": a loop in Python per pass, `map` from here, and job
//! attributes in an instance dictionary were each slower).
//!
//! The first exception (or a value that is not a number) stops the calls: the replay ends with
//! the waiting jobs valued 0 (in arrival order), and `run()` raises the exception with the
//! simulated time (`sim_time`) and the job (`job`) it was raised for.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use pwa_replay::SimTime;
use pwa_replay::sched::order::{Priorities, PriorityFn};
use pwa_replay::workload::{Job, JobId};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyFloat;

use crate::policy::{Clock, PyJob};

/// What the calls of one function came to: their count and wall time, the first exception.
#[derive(Default)]
pub struct Report {
    pub calls: u64,
    pub python_s: f64,
    /// The exception, the simulated time and the job it was raised for.
    pub error: Option<(PyErr, SimTime, Option<Py<PyJob>>)>,
}

/// A Python function as a queue order.
pub struct PyPriorityFn {
    func: Py<PyAny>,
    is_static: bool,
    report: Arc<Mutex<Report>>,
}

impl PyPriorityFn {
    /// `func` of `(job)` when `is_static`, else of `(job, now)`; its report.
    pub fn new(func: Py<PyAny>, is_static: bool) -> (PyPriorityFn, Arc<Mutex<Report>>) {
        let report = Arc::new(Mutex::new(Report::default()));
        let f = PyPriorityFn {
            func,
            is_static,
            report: Arc::clone(&report),
        };
        (f, report)
    }
}

impl PriorityFn for PyPriorityFn {
    fn is_static(&self) -> bool {
        self.is_static
    }

    fn start(&self) -> Box<dyn Priorities> {
        Box::new(PyPriorities {
            func: Python::attach(|py| self.func.clone_ref(py)),
            is_static: self.is_static,
            jobs: Vec::new(),
            clock: Clock::default(),
            report: Arc::clone(&self.report),
            failed: false,
        })
    }
}

/// One replay's calls of a [`PyPriorityFn`].
struct PyPriorities {
    func: Py<PyAny>,
    is_static: bool,
    /// The waiting jobs' objects, by job index.
    jobs: Vec<Option<Py<PyJob>>>,
    clock: Clock,
    report: Arc<Mutex<Report>>,
    /// A call raised: no more calls.
    failed: bool,
}

impl PyPriorities {
    /// Calls the function for each of `jobs` into `out` (NaN for a job started already): the
    /// number of calls, or the first error and its job.
    fn call_all(
        &self,
        py: Python<'_>,
        now: SimTime,
        jobs: &[JobId],
        out: &mut Vec<f64>,
    ) -> Result<u64, (PyErr, Py<PyJob>)> {
        let func = self.func.bind(py);
        let mut calls = 0;
        let now_obj = PyFloat::new(py, now);
        for id in jobs {
            let Some(Some(job)) = self.jobs.get(id.index()) else {
                out.push(f64::NAN);
                continue;
            };
            let job = job.bind(py);
            calls += 1;
            let value = if self.is_static {
                func.call1((job,))
            } else {
                func.call1((job, &now_obj))
            };
            match value.and_then(|v| number(&v)) {
                Ok(v) => out.push(v),
                Err(e) => return Err((e, job.clone().unbind())),
            }
        }
        Ok(calls)
    }
}

impl PyPriorities {
    /// Keeps the first error (at `now`, for `job`) and stops the calls.
    fn fail(&mut self, e: PyErr, now: SimTime, job: Option<Py<PyJob>>) {
        let mut report = self.report.lock().unwrap_or_else(PoisonError::into_inner);
        report.error.get_or_insert((e, now, job));
        self.failed = true;
    }
}

/// A returned value as a number: a float, or what converts to one (an int, a numpy scalar).
fn number(v: &Bound<'_, PyAny>) -> PyResult<f64> {
    if let Ok(f) = v.cast::<PyFloat>() {
        return Ok(f.value());
    }
    v.extract::<f64>().map_err(|_| {
        let shown = v.repr().map_or_else(|_| "?".into(), |r| r.to_string());
        PyTypeError::new_err(format!(
            "a priority function returns a number (larger first), not {shown}"
        ))
    })
}

impl Priorities for PyPriorities {
    fn arrived(&mut self, job: &Job, _now: SimTime) {
        if self.failed {
            return;
        }
        Python::attach(|py| {
            let i = job.id.index();
            if self.jobs.len() <= i {
                self.jobs.resize_with(i + 1, || None);
            }
            match Py::new(py, PyJob::of(job, &self.clock)) {
                Ok(obj) => self.jobs[i] = Some(obj),
                Err(e) => self.fail(e, job.submit, None),
            }
        });
    }

    fn values(&mut self, now: SimTime, jobs: &[JobId], out: &mut Vec<f64>) {
        out.clear();
        if !self.failed {
            self.clock.set(now);
            let t0 = Instant::now();
            let result = Python::attach(|py| {
                let values = self.call_all(py, now, jobs, out);
                if self.is_static {
                    // Asked once, at arrival: the object is not needed any more.
                    for id in jobs {
                        self.jobs.get_mut(id.index()).map(Option::take);
                    }
                }
                values
            });
            let mut report = self.report.lock().unwrap_or_else(PoisonError::into_inner);
            report.python_s += t0.elapsed().as_secs_f64();
            match result {
                Ok(calls) => report.calls += calls,
                Err((e, job)) => {
                    report.calls += 1;
                    drop(report);
                    self.fail(e, now, Some(job));
                }
            }
        }
        if self.failed {
            out.clear();
            out.resize(jobs.len(), 0.0);
        }
    }

    fn started(&mut self, job: JobId) {
        if let Some(slot) = self.jobs.get_mut(job.index())
            && slot.is_some()
        {
            Python::attach(|_| *slot = None);
        }
    }
}
