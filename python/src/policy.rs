//! Scheduling policies written in Python.
//!
//! A [`PyPolicy`] is a [`Scheduler`] that holds a Python object and calls its `schedule(state)`
//! once per instant at which something happened, after the instant's departures and arrivals —
//! the pass of the library's backfilling policies ([`DeferredPass`]): a job of run time 0 started
//! by the pass departs at the same instant, and `schedule` is called once more then. The optional
//! hooks `on_arrival(state, job)` and `on_departure(state, jobs)` run as the engine delivers the
//! events (with the same `state`: a hook may start jobs too).
//!
//! The [`State`] a call receives is one object for the whole replay, valid only during a call (kept
//! and used after it, every attribute and the queue raise `RuntimeError`): it
//! keeps the waiting jobs ([`PyJob`], one Python object per job, made once at its arrival) in
//! arrival order, and reaches the engine through a pointer set for the duration of the call.
//! `state.queue` is a live view of them ([`QueueView`]): nothing is copied per call, so a call
//! costs the same with ten jobs waiting or ten thousand. Starting a job removes it at once.
//!
//! Planning mirrors the built-in `easy`: [`State::find`] answers on a snapshot of the machine now
//! (kept in step with the starts made on placements), [`State::earliest_start`] gives a
//! [`PyReservation`] — the head's earliest start if the running jobs end at their estimates and the
//! machine then — whose `admits(placement)` says whether a job on that placement leaves the head
//! its start, and `take(placement)` keeps a job that outlasts the reservation in it.
//!
//! A Python exception stops the calls: the replay ends (its jobs left waiting) and the exception
//! is raised by `run()`, with the simulated time it was raised at as its `sim_time` attribute.

use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use pwa_replay::SimTime;
use pwa_replay::machine::Allocator;
use pwa_replay::packed::{GroupId, PartitionId, QueueId, UserId};
use pwa_replay::resource::{Placement, Request};
use pwa_replay::sched::{DeferredPass, Scheduler, System, plan};
use pwa_replay::workload::{Job, JobId};
use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};
use pyo3::{intern, pyclass, pymethods};

/// The simulated clock, shared by the job objects for their `wait`.
#[derive(Debug, Clone, Default)]
pub(crate) struct Clock(Arc<AtomicU64>);

impl Clock {
    pub(crate) fn set(&self, t: SimTime) {
        self.0.store(t.to_bits(), Ordering::Relaxed);
    }

    fn get(&self) -> SimTime {
        SimTime::from_bits(self.0.load(Ordering::Relaxed))
    }
}

/// A waiting job as a policy or a priority function sees it (its run time is not told, only its
/// estimate).
#[pyclass(frozen, module = "pwa_replay", name = "Job")]
pub struct PyJob {
    /// Position in the workload (what `state.start` takes besides the object).
    #[pyo3(get)]
    index: u32,
    /// The log's job number.
    #[pyo3(get)]
    id: u64,
    /// Submit time (s, after load scaling).
    #[pyo3(get)]
    submit: SimTime,
    /// Nodes requested.
    #[pyo3(get)]
    nodes: u32,
    /// The run-time estimate the policy plans with (s).
    #[pyo3(get)]
    estimate: SimTime,
    /// Processors asked for, in the log's units (before conversion to nodes).
    #[pyo3(get)]
    procs: u32,
    /// The submitting user (SWF field 12), when the log says.
    #[pyo3(get)]
    user: Option<u32>,
    /// The user's group (field 13), when the log says.
    #[pyo3(get)]
    group: Option<u32>,
    /// The queue (field 15), when the log says.
    #[pyo3(get)]
    queue: Option<u32>,
    /// The partition (field 16), when the log says.
    #[pyo3(get)]
    partition: Option<u32>,
    request: Request,
    clock: Clock,
}

impl PyJob {
    /// Job `job` of the workload, its `wait` read on `clock`.
    pub(crate) fn of(job: &Job, clock: &Clock) -> PyJob {
        PyJob {
            index: job.id.0,
            id: job.source_id,
            submit: job.submit,
            nodes: job.request.nodes(),
            estimate: job.estimate,
            procs: job.asked_procs,
            user: job.user.map(UserId::get),
            group: job.group.map(GroupId::get),
            queue: job.queue.map(QueueId::get),
            partition: job.partition.map(PartitionId::get),
            request: job.request,
            clock: clock.clone(),
        }
    }
}

#[pymethods]
impl PyJob {
    /// The request: `WxH` (mesh), `AxBx…` (box), `2^d` (subcube) or the node count (flat).
    #[getter]
    fn shape(&self) -> String {
        request_text(&self.request)
    }

    /// Time waited so far (s).
    #[getter]
    fn wait(&self) -> SimTime {
        self.clock.get() - self.submit
    }

    fn __repr__(&self) -> String {
        format!(
            "Job(id={}, submit={}, shape={}, estimate={})",
            self.id,
            self.submit,
            request_text(&self.request),
            self.estimate
        )
    }
}

/// A request as text, as the per-job table writes shapes.
fn request_text(r: &Request) -> String {
    match r {
        Request::Nodes(n) => n.to_string(),
        Request::Submesh(s) => s.to_string(),
        Request::Block(d) => d.to_string(),
        Request::Subcube(d) => format!("2^{d}"),
    }
}

/// Where a job runs or would run.
#[pyclass(frozen, module = "pwa_replay", name = "Placement")]
pub struct PyPlacement(Placement);

#[pymethods]
impl PyPlacement {
    /// Nodes covered.
    #[getter]
    fn nodes(&self) -> u32 {
        self.0.nodes()
    }

    fn __repr__(&self) -> String {
        format!("Placement({})", self.0)
    }

    fn __eq__(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

/// The earliest start of a waiting job (the head, for EASY) if the running jobs end at their
/// estimates, and the machine as it would be then.
#[pyclass(unsendable, module = "pwa_replay", name = "Reservation")]
pub struct PyReservation {
    /// The reserved start (s).
    #[pyo3(get)]
    start: SimTime,
    head: Request,
    placement: Placement,
    state: Box<dyn Allocator>,
}

#[pymethods]
impl PyReservation {
    /// Free nodes at the reserved start (with the jobs taken in).
    #[getter]
    fn free_nodes(&self) -> u32 {
        self.state.free_nodes()
    }

    /// Where the job would start then.
    #[getter]
    fn placement(&self) -> PyPlacement {
        PyPlacement(self.placement.clone())
    }

    /// Whether a job on `placement` that outlasts the reserved start still leaves the job a
    /// placement then (the placement free then, and the job fitting beside it).
    fn admits(&mut self, placement: &PyPlacement) -> bool {
        self.state.is_free(&placement.0) && self.state.fits_beside(&placement.0, &self.head)
    }

    /// Keeps a job on `placement` that outlasts the reserved start in the machine of then.
    fn take(&mut self, placement: &PyPlacement) {
        self.state.occupy(&placement.0);
    }
}

/// What a policy sees and does during one call (one object for the whole replay).
#[pyclass(unsendable, module = "pwa_replay", name = "State")]
pub struct State {
    /// The engine during a call; `None` outside.
    sys: Option<NonNull<dyn System>>,
    /// Waiting jobs in arrival order.
    queue: Vec<Py<PyJob>>,
    /// The machine now, as a snapshot for [`State::find`] (made on first use in a call).
    now_state: Option<Box<dyn Allocator>>,
    /// The machine's node count (read once).
    nodes: Option<u32>,
    clock: Clock,
    /// The first exception a call raised, and the simulated time it was raised at.
    pub(crate) error: Option<(PyErr, SimTime)>,
    /// Calls made, and their wall time.
    pub(crate) calls: u64,
    pub(crate) python_s: f64,
}

impl State {
    /// The engine of the current call: an error outside a call (a state kept after its call
    /// answers nothing, so that no stale figure passes for a live one).
    fn attached(&self) -> PyResult<NonNull<dyn System>> {
        self.sys.ok_or_else(|| {
            PyRuntimeError::new_err(
                "the scheduling state is only valid during the call it was passed to",
            )
        })
    }

    /// The waiting jobs, during a call.
    fn waiting_jobs(&self) -> PyResult<&[Py<PyJob>]> {
        self.attached()?;
        Ok(&self.queue)
    }

    /// Free nodes now, through a shared borrow (for iterations over the queue).
    fn free_now(&self) -> PyResult<u32> {
        // SAFETY: as in `sys`.
        Ok(unsafe { self.attached()?.as_ref() }.free_nodes())
    }

    fn sys(&mut self) -> PyResult<&mut dyn System> {
        // SAFETY: `sys` is set by `Attached::new` from a live `&mut dyn System` and cleared
        // before that borrow ends; the object is unsendable, so only this thread reaches it.
        Ok(unsafe { self.attached()?.as_mut() })
    }

    /// The job `job` names: a `Job` object or its index.
    fn job_id(job: &Bound<'_, PyAny>) -> PyResult<JobId> {
        if let Ok(j) = job.cast::<PyJob>() {
            return Ok(JobId(j.get().index));
        }
        job.extract::<u32>()
            .map(JobId)
            .map_err(|_| PyTypeError::new_err("expected a Job (or its index)"))
    }

    /// Takes a started job out of the queue (sorted by index: jobs arrive in index order).
    fn remove(&mut self, id: JobId) {
        if let Ok(i) = self.queue.binary_search_by_key(&id.0, |j| j.get().index) {
            self.queue.remove(i);
        }
    }
}

#[pymethods]
impl State {
    /// Simulated time now (s).
    #[getter]
    fn now(&self) -> PyResult<SimTime> {
        self.attached()?;
        Ok(self.clock.get())
    }

    /// The waiting jobs in arrival order, as a live view ([`QueueView`]).
    #[getter]
    fn queue(slf: Bound<'_, Self>) -> PyResult<QueueView> {
        slf.borrow().attached()?;
        Ok(QueueView {
            state: slf.unbind(),
        })
    }

    /// Number of jobs waiting.
    #[getter]
    fn waiting(&self) -> PyResult<usize> {
        Ok(self.waiting_jobs()?.len())
    }

    /// Free nodes now.
    #[getter]
    fn free_nodes(&mut self) -> PyResult<u32> {
        Ok(self.sys()?.free_nodes())
    }

    /// The machine's node count.
    #[getter]
    fn total_nodes(&mut self) -> PyResult<u32> {
        if let Some(n) = self.nodes {
            return Ok(n);
        }
        let n = self.sys()?.snapshot().machine().nodes();
        self.nodes = Some(n);
        Ok(n)
    }

    /// Number of jobs running now.
    #[getter]
    fn running(&mut self) -> PyResult<usize> {
        Ok(self.sys()?.running())
    }

    /// The running jobs as `(index, estimated end, nodes)`, by estimated end.
    fn running_jobs(&mut self) -> PyResult<Vec<(u32, SimTime, u32)>> {
        Ok(self
            .sys()?
            .running_jobs()
            .iter()
            .map(|r| (r.job.0, r.est_end, r.placement.nodes()))
            .collect())
    }

    /// Starts a waiting job now, where the run's allocator places it (or on `placement`, which
    /// must be free): `False` when it does not fit now.
    #[pyo3(signature = (job, placement=None))]
    fn start(
        &mut self,
        job: &Bound<'_, PyAny>,
        placement: Option<PyRef<'_, PyPlacement>>,
    ) -> PyResult<bool> {
        let id = Self::job_id(job)?;
        let sys = self.sys()?;
        let started = match &placement {
            None => sys.try_start(id),
            Some(p) => sys.try_start_on(id, p.0.clone()),
        };
        if started {
            match (&placement, self.now_state.as_mut()) {
                (Some(p), Some(now)) => now.occupy(&p.0),
                _ => self.now_state = None,
            }
            self.remove(id);
        }
        Ok(started)
    }

    /// Where the allocator would place `job` now (`None` when it does not fit), without starting
    /// it.
    fn find(&mut self, job: &Bound<'_, PyAny>) -> PyResult<Option<PyPlacement>> {
        let id = Self::job_id(job)?;
        let sys = self.sys()?;
        let req = sys.job(id).request;
        if self.now_state.is_none() {
            let snapshot = self.sys()?.snapshot();
            self.now_state = Some(snapshot);
        }
        Ok(self
            .now_state
            .as_mut()
            .and_then(|s| s.find(&req))
            .map(PyPlacement))
    }

    /// The earliest start of `job` if the running jobs end at their estimates (overrunning ones
    /// now), with the machine then; `None` when it never fits.
    fn earliest_start(&mut self, job: &Bound<'_, PyAny>) -> PyResult<Option<PyReservation>> {
        let id = Self::job_id(job)?;
        let sys = self.sys()?;
        let head = sys.job(id).request;
        let mut state = sys.snapshot();
        let res = plan::earliest_start(sys.now(), &head, state.as_mut(), &sys.running_jobs());
        Ok(res.map(|r| PyReservation {
            start: r.start,
            head,
            placement: r.placement,
            state,
        }))
    }

    /// Records that `job` was promised a start no later than `at` (its first promise is kept: the
    /// per-job `reserved` and the reservation error of the metrics).
    fn promise(&mut self, job: &Bound<'_, PyAny>, at: SimTime) -> PyResult<()> {
        let id = Self::job_id(job)?;
        self.sys()?.promise(id, at);
        Ok(())
    }
}

/// The waiting jobs as a live sequence: `len`, indexing (`q[0]`, `q[-1]`; a slice is a list),
/// iteration in arrival order. Starting a job removes it at once; an iteration visits every job
/// still waiting when it gets there exactly once (it resumes after the last job it gave), so
/// `for job in state.queue: state.start(job)` neither skips nor repeats. Nothing is copied:
/// `list(state.queue)` takes a snapshot.
#[pyclass(unsendable, module = "pwa_replay", name = "Queue", sequence)]
pub struct QueueView {
    state: Py<State>,
}

#[pymethods]
impl QueueView {
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        Ok(self.state.borrow(py).waiting_jobs()?.len())
    }

    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        index: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let st = self.state.borrow(py);
        let queue = st.waiting_jobs()?;
        let n = queue.len();
        if let Ok(slice) = index.cast::<PySlice>() {
            let ix = slice.indices(n as isize)?;
            let picked = (0..ix.slicelength).map(|k| {
                let i = ix.start + k as isize * ix.step;
                queue[i as usize].bind(py)
            });
            return Ok(PyList::new(py, picked)?.into_any());
        }
        let i: isize = index.extract()?;
        let at = if i < 0 { i + n as isize } else { i };
        usize::try_from(at)
            .ok()
            .and_then(|at| queue.get(at))
            .map(|j| j.bind(py).clone().into_any())
            .ok_or_else(|| PyIndexError::new_err("queue index out of range"))
    }

    fn __iter__(&self, py: Python<'_>) -> PyResult<QueueIter> {
        self.state.borrow(py).attached()?;
        Ok(QueueIter {
            state: self.state.clone_ref(py),
            after: None,
            fitting: false,
            reservation: None,
        })
    }

    /// The waiting jobs after `after` (a job; from the head when `None`), in arrival order, that
    /// need no more nodes than are free when the iteration reaches them — and, with a
    /// `reservation`, that either end (by their estimates) by its start or need no more nodes
    /// than it leaves beside the reserved job (EASY's "extra nodes"; a cheap necessary test, the
    /// placement test is `reservation.admits`). The others are skipped without a Python object
    /// passing by, so a backfilling pass over thousands of waiting jobs visits only those that
    /// could start. Starting jobs (and taking them into the reservation) while iterating is
    /// safe, as for iteration.
    #[pyo3(signature = (after=None, reservation=None))]
    fn fitting(
        &self,
        py: Python<'_>,
        after: Option<&Bound<'_, PyAny>>,
        reservation: Option<Py<PyReservation>>,
    ) -> PyResult<QueueIter> {
        self.state.borrow(py).attached()?;
        Ok(QueueIter {
            state: self.state.clone_ref(py),
            after: after.map(State::job_id).transpose()?.map(|j| j.0),
            fitting: true,
            reservation,
        })
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("Queue({} waiting)", self.state.borrow(py).queue.len())
    }
}

/// An iteration over the queue: the next job waiting after the last one given (with `fitting`,
/// the next one that needs no more nodes than are free).
#[pyclass(unsendable, module = "pwa_replay")]
pub struct QueueIter {
    state: Py<State>,
    after: Option<u32>,
    fitting: bool,
    reservation: Option<Py<PyReservation>>,
}

#[pymethods]
impl QueueIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyJob>>> {
        let st = self.state.borrow(py);
        let queue = st.waiting_jobs()?;
        let from = match self.after {
            None => 0,
            Some(a) => queue.partition_point(|j| j.get().index <= a),
        };
        let rest = queue.get(from..).unwrap_or_default();
        let job = if self.fitting {
            let free = st.free_now()?;
            let now = st.clock.get();
            // With a reservation: (its start, the nodes it leaves beside the reserved job).
            let shadow = self.reservation.as_ref().map(|r| {
                let r = r.borrow(py);
                (r.start, r.state.free_nodes().saturating_sub(r.head.nodes()))
            });
            rest.iter().find(|j| {
                let j = j.get();
                j.nodes <= free
                    && shadow
                        .is_none_or(|(start, extra)| now + j.estimate <= start || j.nodes <= extra)
            })
        } else {
            rest.first()
        };
        Ok(job.map(|j| {
            self.after = Some(j.get().index);
            j.clone_ref(py)
        }))
    }
}

/// The engine reachable from a [`State`] while this guard lives.
struct Attached<'s, 'py> {
    state: &'s Bound<'py, State>,
}

impl<'s, 'py> Attached<'s, 'py> {
    fn new(state: &'s Bound<'py, State>, sys: &mut dyn System) -> Self {
        let now = sys.now();
        let ptr: *mut (dyn System + '_) = sys;
        // SAFETY: only the lifetime is erased; `Drop` clears the pointer before the borrow of
        // `sys` this guard was made from ends.
        let ptr: *mut (dyn System + 'static) = unsafe { std::mem::transmute(ptr) };
        let mut st = state.borrow_mut();
        st.sys = NonNull::new(ptr);
        st.clock.set(now);
        Attached { state }
    }
}

impl Drop for Attached<'_, '_> {
    fn drop(&mut self) {
        let mut st = self.state.borrow_mut();
        st.sys = None;
        st.now_state = None;
    }
}

/// A policy object driving a replay.
pub struct PyPolicy {
    policy: Py<PyAny>,
    state: Py<State>,
    on_arrival: bool,
    on_departure: bool,
    pass: DeferredPass,
}

impl PyPolicy {
    /// Wraps `policy` (it must have `schedule`); the returned state outlives the replay and
    /// holds the first exception and the call counters.
    pub fn new(py: Python<'_>, policy: Py<PyAny>) -> PyResult<(PyPolicy, Py<State>)> {
        let p = policy.bind(py);
        if !p.hasattr("schedule")? {
            return Err(PyTypeError::new_err(
                "a policy needs a method schedule(self, state)",
            ));
        }
        let on_arrival = p.hasattr("on_arrival")?;
        let on_departure = p.hasattr("on_departure")?;
        let state = Py::new(
            py,
            State {
                sys: None,
                queue: Vec::new(),
                now_state: None,
                nodes: None,
                clock: Clock::default(),
                error: None,
                calls: 0,
                python_s: 0.0,
            },
        )?;
        Ok((
            PyPolicy {
                policy,
                state: state.clone_ref(py),
                on_arrival,
                on_departure,
                pass: DeferredPass::default(),
            },
            state,
        ))
    }

    /// Calls `method(state, *args)` with the engine attached, unless an earlier call failed.
    fn call<'py>(
        &self,
        py: Python<'py>,
        sys: &mut dyn System,
        method: &Bound<'py, pyo3::types::PyString>,
        extra: Option<Bound<'py, PyAny>>,
    ) {
        let state = self.state.bind(py);
        if state.borrow().error.is_some() {
            return;
        }
        let t0 = Instant::now();
        let result = {
            let _attached = Attached::new(state, sys);
            let policy = self.policy.bind(py);
            match extra {
                None => policy.call_method1(method, (state,)),
                Some(x) => policy.call_method1(method, (state, x)),
            }
        };
        let mut st = state.borrow_mut();
        st.calls += 1;
        st.python_s += t0.elapsed().as_secs_f64();
        if let Err(e) = result {
            st.error = Some((e, st.clock.get()));
        }
    }
}

impl Scheduler for PyPolicy {
    fn on_arrival(&mut self, id: JobId, sys: &mut dyn System) {
        Python::attach(|py| {
            let state = self.state.bind(py);
            let made = Py::new(py, PyJob::of(sys.job(id), &state.borrow().clock));
            match made {
                Ok(obj) => {
                    state.borrow_mut().queue.push(obj.clone_ref(py));
                    if self.on_arrival {
                        let name = intern!(py, "on_arrival");
                        self.call(py, sys, name, Some(obj.into_bound(py).into_any()));
                    }
                }
                Err(e) => {
                    let mut st = state.borrow_mut();
                    st.error = Some((e, st.clock.get()));
                }
            }
        });
        self.pass.arm(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        if self.on_departure {
            Python::attach(|py| {
                let ids: Vec<u32> = sys.departed().iter().map(|j| j.0).collect();
                match PyList::new(py, ids) {
                    Ok(list) => {
                        let name = intern!(py, "on_departure");
                        self.call(py, sys, name, Some(list.into_any()));
                    }
                    Err(e) => {
                        let mut st = self.state.bind(py).borrow_mut();
                        st.error = Some((e, st.clock.get()));
                    }
                }
            });
        }
        self.pass.arm(sys);
    }

    fn on_overrun(&mut self, sys: &mut dyn System) {
        self.pass.arm(sys);
    }

    fn on_timer(&mut self, token: u64, sys: &mut dyn System) {
        if self.pass.fire(token, sys) {
            Python::attach(|py| self.call(py, sys, intern!(py, "schedule"), None));
        }
    }

    fn waiting(&self) -> usize {
        Python::attach(|py| self.state.bind(py).borrow().queue.len())
    }
}
