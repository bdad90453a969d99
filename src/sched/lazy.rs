//! Lazy scheduling (lazy-scheduling-hypercube.md §3.2, Mohapatra, Yu & Das): one FIFO queue `Q_k` per
//! cube dimension; a job waits for a busy subcube of its own size rather than fragment the machine
//! for a new one.
//!
//! * `N_k`, the queue's threshold, is the number of `k`-cubes allocated: the running `k`-cube jobs
//!   (it goes up when a search succeeds, Lazy_Request step 3, and down when a `k`-cube goes back to the
//!   allocator; a cube handed on by Lazy_Release step 2 leaves it unchanged).
//! * **Lazy_Request(I_k)**: enqueue; if `|Q_k| > N_k` and `stop_alloc` is clear, search a new subcube
//!   for the head of `Q_k` (repeated while the queue stays longer than its threshold and the search
//!   succeeds — one search, as in the paper, unless earlier searches failed).
//! * **Lazy_Release(I_k)**, per released job in release order: (1) if `stop_alloc` is clear and the
//!   oldest waiting job has waited longer than the threshold, set it and save that job's queue `Q_j`;
//!   (2) if `Q_k` is not empty and `stop_alloc` is clear, the released cube goes straight to the head of
//!   `Q_k` (same request), with no merge in between; (3) if `stop_alloc` is set, search a subcube for
//!   the head of `Q_j` and clear the flag on success; (4) the cube otherwise returns to the allocator.
//!   The engine frees the nodes before the scheduler runs, so step 3 already sees them.
//! * After the releases of an instant, while `stop_alloc` is clear, every queue longer than its
//!   threshold searches again (oldest head first): "a queue whose length exceeds the threshold value
//!   tries to find another subcube" (§3.2) is a state, and a search that failed on arrival must be
//!   retried once nodes are freed — without it a queue with `N_k = 0` would wait for the next arrival
//!   of its size.
//! * The waiting-time threshold is `d_t²·λ` (`lazy`), `d_t` the mean queueing delay of the jobs
//!   allocated so far and `λ` the arrivals so far over the time since the first arrival, both updated
//!   at every allocation (infinite until a job has been allocated after a positive elapsed time); or a
//!   fixed `T` (`lazy:T`). While `stop_alloc` is set no other job is allocated.
//! * When the threshold is checked: at releases only, as Lazy_Release step 1 is printed (`lazy`,
//!   `lazy:T`); or also at the instant the oldest waiting job's wait reaches it (`lazy:deadline`,
//!   §3.2 "whenever the waiting time of a job reaches the threshold, it gets priority over all other
//!   jobs"): a timer at the oldest job's submit + threshold sets `stop_alloc` and searches a subcube
//!   for it, then for the next oldest past the threshold, until a search fails.
//!
//! A job's dimension is its subcube's (`Request::Subcube(k)`), or `⌈log2 nodes⌉` for other requests
//! (so the policy runs on any machine; a handed-on cube then needs an equal request).

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::label::Form;
use super::{Scheduler, System};
use crate::SimTime;
use crate::resource::{Placement, Request};
use crate::workload::JobId;

/// The dimension queue of a request: `k` of a `k`-subcube, else `⌈log2 nodes⌉`.
pub(crate) fn cube_dim(req: &Request) -> usize {
    match *req {
        Request::Subcube(k) => usize::from(k),
        other => other.nodes().max(1).next_power_of_two().trailing_zeros() as usize,
    }
}

/// How the maximum tolerated wait is set.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Threshold {
    /// `d_t²·λ`, measured.
    Dynamic,
    /// A fixed number of seconds.
    Fixed(SimTime),
}

/// The running measurements behind `d_t²·λ`.
#[derive(Debug, Clone, Default)]
struct Monitor {
    first_arrival: Option<SimTime>,
    arrivals: u64,
    allocated: u64,
    total_delay: SimTime,
    /// `d_t²·λ` as of the last allocation.
    limit: Option<SimTime>,
}

impl Monitor {
    fn arrived(&mut self, now: SimTime) {
        self.first_arrival.get_or_insert(now);
        self.arrivals += 1;
    }
    fn allocated(&mut self, delay: SimTime, now: SimTime) {
        self.allocated += 1;
        self.total_delay += delay;
        let elapsed = now - self.first_arrival.unwrap_or(now);
        self.limit = (elapsed > 0.0).then(|| {
            let d = self.total_delay / self.allocated as f64;
            d * d * (self.arrivals as f64 / elapsed)
        });
    }
}

/// Lazy scheduling.
#[derive(Debug, Clone)]
pub(crate) struct Lazy {
    threshold: Threshold,
    queues: Vec<VecDeque<JobId>>,
    /// `N_k`.
    servers: Vec<u32>,
    /// `stop_alloc` with the saved queue `j`.
    stop: Option<usize>,
    monitor: Monitor,
    /// `lazy:deadline`: the threshold is also checked when the oldest job's wait reaches it.
    deadline: bool,
    /// The time of the pending deadline timer (`lazy:deadline`).
    armed: Option<SimTime>,
    held: FxHashMap<JobId, Placement>,
    waiting: usize,
    /// Buffers of [`Scheduler::on_departure`], kept between calls.
    scratch: Scratch,
}

/// The departed jobs and the queues in order of their heads' age, during one departure batch.
#[derive(Debug, Clone, Default)]
struct Scratch {
    departed: Vec<JobId>,
    order: Vec<(JobId, usize)>,
}

impl Lazy {
    pub(crate) fn new(threshold: Threshold) -> Self {
        Lazy {
            threshold,
            queues: Vec::new(),
            servers: Vec::new(),
            stop: None,
            monitor: Monitor::default(),
            deadline: false,
            armed: None,
            held: FxHashMap::default(),
            waiting: 0,
            scratch: Scratch::default(),
        }
    }

    /// Lazy scheduling whose threshold is also checked the moment the oldest wait reaches it.
    pub(crate) fn with_deadline(threshold: Threshold) -> Self {
        Lazy {
            deadline: true,
            ..Lazy::new(threshold)
        }
    }

    fn ensure(&mut self, k: usize) {
        if self.queues.len() <= k {
            self.queues.resize_with(k + 1, VecDeque::new);
            self.servers.resize(k + 1, 0);
        }
    }

    /// The maximum tolerated wait now.
    fn limit(&self) -> SimTime {
        match self.threshold {
            Threshold::Fixed(t) => t,
            Threshold::Dynamic => self.monitor.limit.unwrap_or(SimTime::INFINITY),
        }
    }

    /// Books a start of the head of `Q_k` (already started by the engine).
    fn started(&mut self, k: usize, sys: &dyn System) {
        let Some(job) = self.queues[k].pop_front() else {
            return;
        };
        self.waiting -= 1;
        self.servers[k] += 1;
        if let Some(p) = sys.placement(job) {
            self.held.insert(job, p);
        }
        let now = sys.now();
        self.monitor.allocated(now - sys.job(job).submit, now);
    }

    /// Searches a new subcube for the head of `Q_k`.
    fn search(&mut self, k: usize, sys: &mut dyn System) -> bool {
        match self.queues[k].front() {
            Some(&head) if sys.try_start(head) => {
                self.started(k, &*sys);
                true
            }
            _ => false,
        }
    }

    /// Lazy_Request step 2, repeated while `|Q_k| > N_k` and the search succeeds.
    fn grow(&mut self, k: usize, sys: &mut dyn System) {
        while self.stop.is_none()
            && self.queues[k].len() > self.servers[k] as usize
            && self.search(k, sys)
        {}
    }

    /// The queue of the oldest waiting job, and that job.
    fn oldest(&self) -> Option<(usize, JobId)> {
        self.queues
            .iter()
            .enumerate()
            .filter_map(|(k, q)| q.front().map(|&j| (k, j)))
            .min_by_key(|&(_, j)| j)
    }

    /// Lazy_Release for one released job.
    fn release(&mut self, job: JobId, sys: &mut dyn System) {
        let Some(placement) = self.held.remove(&job) else {
            return;
        };
        let req = sys.job(job).request;
        let k = cube_dim(&req);
        self.ensure(k);
        self.servers[k] -= 1;
        // Step 1: the oldest waiting job past the threshold sets stop_alloc.
        if self.stop.is_none()
            && let Some((j, oldest)) = self.oldest()
            && sys.now() - sys.job(oldest).submit > self.limit()
        {
            self.stop = Some(j);
        }
        // Step 2: the released cube straight to the head of Q_k.
        if self.stop.is_none()
            && let Some(&head) = self.queues[k].front()
            && sys.job(head).request == req
            && sys.try_start_on(head, placement)
        {
            self.started(k, &*sys);
        }
        // Step 3: a new search for the head of the saved queue.
        if let Some(j) = self.stop
            && self.search(j, sys)
        {
            self.stop = None;
        }
    }

    /// `lazy:deadline`: gives the oldest waiting jobs whose wait has reached the threshold priority,
    /// one after the other while their searches succeed, then arms a timer for the next deadline.
    fn enforce(&mut self, sys: &mut dyn System) {
        if !self.deadline {
            return;
        }
        let now = sys.now();
        while self.stop.is_none()
            && let Some((j, oldest)) = self.oldest()
            && now >= sys.job(oldest).submit + self.limit()
        {
            self.stop = Some(j);
            if self.search(j, sys) {
                self.stop = None;
            }
        }
        // While stop_alloc is set the saved job is retried at every release (step 3).
        let due = self
            .oldest()
            .filter(|_| self.stop.is_none())
            .map(|(_, j)| sys.job(j).submit + self.limit())
            .filter(|t| t.is_finite());
        if let Some(at) = due
            && self.armed != Some(at)
        {
            sys.set_timer(at.max(now), 0);
            self.armed = Some(at);
        }
    }
}

impl Scheduler for Lazy {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(self.clone()))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.monitor.arrived(sys.now());
        let k = cube_dim(&sys.job(job).request);
        self.ensure(k);
        self.queues[k].push_back(job);
        self.waiting += 1;
        self.grow(k, sys);
        self.enforce(sys);
    }

    fn on_timer(&mut self, _token: u64, sys: &mut dyn System) {
        if self.armed.is_some_and(|at| at <= sys.now()) {
            self.armed = None;
        }
        self.enforce(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.departed.clear();
        scratch.departed.extend_from_slice(sys.departed());
        for &job in &scratch.departed {
            self.release(job, sys);
        }
        // Only a queue longer than its threshold searches, and no search changes another queue's
        // length or threshold: those queues, oldest head first (rarely more than one).
        scratch.order.clear();
        scratch.order.extend(
            self.queues
                .iter()
                .zip(&self.servers)
                .enumerate()
                .filter(|(_, (q, n))| q.len() > **n as usize)
                .filter_map(|(k, (q, _))| q.front().map(|&j| (j, k))),
        );
        scratch.order.sort_unstable();
        for &(_, k) in &scratch.order {
            self.grow(k, sys);
        }
        self.scratch = scratch;
        self.enforce(sys);
    }

    fn waiting(&self) -> usize {
        self.waiting
    }
}

/// `lazy`: the threshold `d_t²·λ`.
pub(super) const DYNAMIC: Form<()> = Form::bare(|_| Box::new(Lazy::new(Threshold::Dynamic)));

/// `lazy:SECONDS`: a fixed threshold.
pub(super) const FIXED: Form<SimTime> = Form::new(
    |l| l.seconds(),
    |t| vec![t.to_string()],
    |&t| Box::new(Lazy::new(Threshold::Fixed(t))),
);

/// `lazy:deadline`: `d_t²·λ`, also enforced when the oldest wait reaches it.
pub(super) const DEADLINE: Form<()> = Form::new(
    |l| l.keyword("deadline"),
    |_| vec!["deadline".into()],
    |_| Box::new(Lazy::with_deadline(Threshold::Dynamic)),
);
