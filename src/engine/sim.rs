//! The event loop of one replay: the [`Engine`], its event queue and the [`System`] view it gives the
//! scheduler.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::time::{Duration, Instant};

use rustc_hash::{FxHashMap, FxHashSet};

mod fork;
mod table;

use std::sync::Arc;

use super::observer::Observer;
use super::{EngineError, JobRecord, Outcome, PolicyProblem, ReplayOptions, Segment};
use crate::SimTime;
use crate::estimate::Predictor;
use crate::machine::{AllocStats, Allocator};
use crate::packed::PackedTime;
use crate::resource::{Placement, Request};
use crate::sched::semantics::{BackfillLength, Order, Passes, Prediction, Release};
use crate::sched::{RunningJob, Scheduler, System};
use crate::workload::{Job, JobId, PredictorKind, Workload};
use table::PerJob;

/// Event kinds, in the order they are handled at one instant under [`Order::DeparturesFirst`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Departure,
    /// A running job reaches the end of its predicted run time (predictors only).
    Overrun,
    Arrival,
    Timer,
}

impl Kind {
    /// Where the kind comes in an instant under `order` (timers always last).
    fn rank(self, order: Order) -> u8 {
        match (order, self) {
            (Order::DeparturesFirst, kind) => kind as u8,
            (Order::ArrivalsFirst, Kind::Overrun) => 0,
            (Order::ArrivalsFirst, Kind::Arrival) => 1,
            (Order::ArrivalsFirst, Kind::Departure) => 2,
            (Order::ArrivalsFirst, Kind::Timer) => 3,
        }
    }
}

/// A time as an integer with the order of [`f64::total_cmp`] (the same transform of its bits), so
/// that the event queue and the running list compare integers.
fn order_key(t: SimTime) -> i64 {
    flip_magnitude_if_negative(t.to_bits().cast_signed())
}

/// The time of an [`order_key`].
fn from_order_key(key: i64) -> SimTime {
    SimTime::from_bits(flip_magnitude_if_negative(key).cast_unsigned())
}

/// The bits of a negative number but its sign flipped (its own inverse).
fn flip_magnitude_if_negative(bits: i64) -> i64 {
    bits ^ ((bits >> 63).cast_unsigned() >> 1).cast_signed()
}

/// A queued departure or timer (arrivals come from a cursor over the job list).
#[derive(Debug, Clone, Copy)]
struct Event {
    /// Its time, as an [`order_key`].
    at: i64,
    /// Its kind's place in the instant ([`Kind::rank`]).
    rank: u8,
    kind: Kind,
    seq: u64,
    /// For a departure the job index (low 32 bits) and the job's run epoch (high 32 bits: a
    /// departure scheduled before a suspension is stale); for a timer the token.
    payload: u64,
}

fn departure_payload(id: JobId, epoch: u32) -> u64 {
    u64::from(id.0) | u64::from(epoch) << 32
}

impl Event {
    fn key_cmp(&self, other: &Self) -> Ordering {
        (self.at, self.rank, self.seq).cmp(&(other.at, other.rank, other.seq))
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.key_cmp(other) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    /// Reversed, so that `BinaryHeap` pops the earliest key first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.key_cmp(self)
    }
}

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Status {
    NotArrived,
    Waiting,
    Running,
    /// Ended at its estimate at this instant and already freed ([`Release::Booked`]); its
    /// departure is still to be delivered.
    Leaving,
    Suspended,
    Done,
}

/// A started job's progress.
#[derive(Debug, Clone, Copy, Default)]
struct Progress {
    /// Service received before the current run segment.
    served: SimTime,
    /// Start of the current (or last) run segment.
    since: SimTime,
    /// Suspensions so far; a departure event carries the epoch it was scheduled in.
    epoch: u32,
    /// While running: when the current segment ends if the job needs exactly its estimate.
    est_end: SimTime,
    /// Times a predictor extended the job's estimate because it outlived it.
    extensions: u32,
}

/// A running job in the order [`System::running_jobs`] lists them: by estimated end (an
/// [`order_key`]), then job id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ByEnd(i64, JobId);

/// Counters of the engine's own work.
#[derive(Debug, Default)]
struct Counters {
    alloc: AllocStats,
    skipped: u64,
    /// Wall time of the timed allocator calls (one in [`TIMED_EVERY`]).
    alloc_time: Duration,
    timed: u64,
}

/// One allocator call in this many is timed: a clock read costs about as much as a buddy
/// allocation (≈ 50 ns in a VM), so timing every call would double what it measures.
const TIMED_EVERY: u64 = 16;

impl Counters {
    /// The allocator's wall time: the timed calls scaled to all calls.
    fn alloc_time_s(&self) -> f64 {
        if self.timed == 0 {
            return 0.0;
        }
        self.alloc_time.as_secs_f64() * self.alloc.attempts as f64 / self.timed as f64
    }
}

/// One replay of a workload under a scheduler and an allocator.
///
/// ```
/// use pwa_replay::engine::{Engine, NoObserver};
/// # use pwa_replay::machine::{Allocator, MachineSpec, Placement};
/// # use pwa_replay::sched::SchedKind;
/// # use pwa_replay::workload::{Job, JobId, Request, Workload};
/// # #[derive(Clone)]
/// # struct Flat { n: u32, free: u32 }
/// # impl Allocator for Flat {
/// #     fn machine(&self) -> MachineSpec { MachineSpec::Flat { nodes: self.n } }
/// #     fn find(&mut self, r: &Request) -> Option<Placement> {
/// #         (r.nodes() <= self.free).then(|| Placement::Nodes(r.nodes()))
/// #     }
/// #     fn occupy(&mut self, p: &Placement) { self.free -= p.nodes() }
/// #     fn vacate(&mut self, p: &Placement) { self.free += p.nodes() }
/// #     fn is_free(&self, p: &Placement) -> bool { p.nodes() <= self.free }
/// #     fn free_nodes(&self) -> u32 { self.free }
/// #     fn fits_empty(&self, r: &Request) -> bool { r.nodes() <= self.n }
/// #     fn snapshot(&self) -> Box<dyn Allocator> { Box::new(self.clone()) }
/// # }
/// let job = |i: u32, submit: f64, runtime: f64, n: u32| Job {
///     id: JobId(i), source_id: i as u64 + 1, submit, runtime, estimate: runtime, requested: None,
///     request: Request::Nodes(n), asked_procs: n, user: None,
///     group: None, queue: None, partition: None,
/// };
/// let w = Workload { jobs: vec![job(0, 0.0, 10.0, 3), job(1, 1.0, 5.0, 2)], procs_per_node: 1, predictor: None };
/// let engine = Engine::new(&w, SchedKind::Fcfs.build(), Box::new(Flat { n: 4, free: 4 }));
/// let out = engine.run(&mut NoObserver).unwrap();
/// assert_eq!(out.records[1].start, 10.0); // job 1 waits for job 0's nodes
/// ```
pub struct Engine<'w> {
    sched: Box<dyn Scheduler>,
    state: State<'w>,
}

/// Everything but the scheduler: what [`System`] exposes to it.
struct State<'w> {
    /// The jobs as given: their estimates are the limits of `kill_at_estimate`.
    source: &'w [Job],
    /// The jobs as the scheduler sees them: `source`, with each estimate the predictor's when
    /// there is one (copied then, borrowed otherwise).
    jobs: Cow<'w, [Job]>,
    /// Learns run times while the replay runs and predicts estimates
    /// ([`Workload::predictor`](crate::workload::Workload::predictor)); built when the run starts.
    predictor: Option<Box<dyn Predictor>>,
    predictor_kind: Option<PredictorKind>,
    /// Under [`Prediction::EveryPass`]: the waiting jobs of each user, re-predicted when one of
    /// the user's jobs completes.
    waiting_of_user: FxHashMap<u32, Vec<JobId>>,
    /// Bumped whenever waiting jobs' estimates change ([`System::estimates_epoch`]).
    estimates_epoch: u64,
    /// Under [`Passes::Event`]: timers set for the current instant, fired right after the event.
    due_now: Vec<u64>,
    /// The first estimate each job was given (with a predictor; empty otherwise).
    predictions: Vec<SimTime>,
    alloc: Box<dyn Allocator>,
    /// A copy of the allocator on the empty machine, for [`System::empty_allocator`].
    empty: Box<dyn Allocator>,
    /// Shared with the forks.
    options: Arc<ReplayOptions>,
    /// Each started job's run-time factor under [`ReplayOptions::dilation`] (`None` when off or
    /// before the first start).
    dilation: Option<PerJob<f64>>,
    status: PerJob<Status>,
    /// One record per job; `start` is NaN until the job starts. A waiting job's `reserved` is its
    /// first promised start so far ([`System::promise`]).
    records: PerJob<JobRecord>,
    /// The jobs waiting now (with `progress`'s, the jobs a fork copies).
    waiting: FxHashSet<JobId>,
    /// Under [`ReplayOptions::fairness`], each job's fair start time found by a fork (NaN until
    /// then, and for the jobs that needed none: [`fork`]); empty otherwise, and in a fork.
    fair: Vec<SimTime>,
    /// The progress of the jobs running or suspended now (the others need none: a map, so that
    /// memory grows with the jobs in the machine rather than with the log).
    progress: FxHashMap<JobId, Progress>,
    /// The jobs running now, sorted by estimated end (planners release them in that order); a
    /// vector: tens to hundreds of jobs, inserted and removed by binary search.
    running_ids: Vec<ByEnd>,
    segments: Vec<Segment>,
    events: BinaryHeap<Event>,
    seq: u64,
    now: SimTime,
    next_arrival: usize,
    running: usize,
    busy: u32,
    departed: Vec<JobId>,
    /// Requests that failed since the last release (they fail again until something is freed).
    failed: FxHashSet<Request>,
    counters: Counters,
    error: Option<EngineError>,
}

/// The scheduler's view of the engine during one callback.
struct Sys<'a, 'w> {
    st: &'a mut State<'w>,
    obs: &'a mut dyn Observer,
}

impl<'w> Engine<'w> {
    /// An engine over `workload` (sorted by submit time, ids dense) with a fresh scheduler and an
    /// allocator on an empty machine.
    pub fn new(
        workload: &'w Workload,
        sched: Box<dyn Scheduler>,
        alloc: Box<dyn Allocator>,
    ) -> Self {
        let n = workload.jobs.len();
        let predictor = workload.predictor;
        let jobs = match predictor {
            Some(_) => Cow::Owned(workload.jobs.clone()),
            None => Cow::Borrowed(workload.jobs.as_slice()),
        };
        Engine {
            sched,
            state: State {
                source: &workload.jobs,
                predictions: if predictor.is_some() {
                    workload.jobs.iter().map(|j| j.estimate).collect()
                } else {
                    Vec::new()
                },
                predictor: None,
                predictor_kind: predictor,
                waiting_of_user: FxHashMap::default(),
                estimates_epoch: 0,
                due_now: Vec::new(),
                jobs,
                empty: alloc.snapshot(),
                alloc,
                options: Arc::default(),
                dilation: None,
                status: PerJob::Dense(vec![Status::NotArrived; n]),
                records: PerJob::Dense(vec![NOT_STARTED; n]),
                waiting: FxHashSet::default(),
                fair: Vec::new(),
                progress: FxHashMap::default(),
                running_ids: Vec::new(),
                segments: Vec::new(),
                events: BinaryHeap::new(),
                seq: 0,
                now: 0.0,
                next_arrival: 0,
                running: 0,
                busy: 0,
                departed: Vec::new(),
                failed: FxHashSet::default(),
                counters: Counters::default(),
                error: None,
            },
        }
    }

    /// Sets the engine options (default: [`ReplayOptions::default`]).
    pub fn with_options(mut self, options: ReplayOptions) -> Self {
        if options.fairness {
            self.state.fair = vec![SimTime::NAN; self.state.source.len()];
        }
        self.state.options = Arc::new(options);
        self
    }

    /// Runs the replay to the end.
    ///
    /// Fails before simulating if the workload is malformed or a request can never fit the machine;
    /// fails at the end if the scheduler broke the rules or left jobs waiting forever.
    pub fn run(mut self, observer: &mut dyn Observer) -> Result<Outcome, EngineError> {
        let wall = Instant::now();
        self.state.check_workload()?;
        self.check_forkable()?;
        let whole_seconds = self.state.options.semantics.whole_second_predictions;
        self.state.predictor = self
            .state
            .predictor_kind
            .map(|k| k.build_with(whole_seconds));
        let mut instant = None;
        while self.step(&mut instant, observer)? {}
        self.state.finish(wall.elapsed().as_secs_f64())
    }

    /// Handles the next batch of events (`instant`: the key of the instant under way); `false`
    /// when none was left.
    fn step(
        &mut self,
        instant: &mut Option<i64>,
        observer: &mut dyn Observer,
    ) -> Result<bool, EngineError> {
        let Some((key, kind)) = self.state.next_key() else {
            return Ok(false);
        };
        let t = from_order_key(key);
        self.state.now = t;
        if *instant != Some(key) {
            *instant = Some(key);
            self.state.release_booked(observer);
        }
        self.batch(kind, observer)?;
        if let Some(e) = self.state.error.take() {
            return Err(e);
        }
        let instant_over = self.state.next_key().is_none_or(|(next, _)| next != key);
        if instant_over {
            observer.on_instant(t, self.sched.waiting(), self.state.busy);
            observer.on_allocator(t, self.state.alloc.as_mut());
        }
        Ok(true)
    }

    /// Handles every event of one kind at the current time, or under [`Passes::Event`] the next
    /// departure or arrival alone, followed by the timers it set for now.
    fn batch(&mut self, kind: Kind, obs: &mut dyn Observer) -> Result<(), EngineError> {
        let t = self.state.now;
        let single = self.state.options.semantics.passes == Passes::Event;
        match kind {
            Kind::Departure => {
                while let Some(payload) = self.state.pop_event(t, Kind::Departure) {
                    self.state.depart(payload, obs);
                    if single {
                        break;
                    }
                }
                if self.state.departed.is_empty() {
                    return Ok(()); // only stale departures of suspended jobs
                }
                let mut sys = Sys {
                    st: &mut self.state,
                    obs,
                };
                self.sched.on_departure(&mut sys);
                self.state.departed.clear();
            }
            Kind::Overrun => {
                let mut extended = false;
                while let Some(payload) = self.state.pop_event(t, Kind::Overrun) {
                    extended |= self.state.extend(payload);
                }
                if extended && !single {
                    let mut sys = Sys {
                        st: &mut self.state,
                        obs,
                    };
                    self.sched.on_overrun(&mut sys);
                }
            }
            Kind::Arrival => {
                self.measure_fair_start()?;
                while let Some(id) = self.state.arrive(t) {
                    let mut sys = Sys {
                        st: &mut self.state,
                        obs: &mut *obs,
                    };
                    self.sched.on_arrival(id, &mut sys);
                    if single {
                        break;
                    }
                    self.measure_fair_start()?;
                }
            }
            Kind::Timer => {
                while let Some(token) = self.state.pop_event(t, Kind::Timer) {
                    let mut sys = Sys {
                        st: &mut self.state,
                        obs: &mut *obs,
                    };
                    self.sched.on_timer(token, &mut sys);
                }
            }
        }
        self.fire_due_now(obs);
        Ok(())
    }

    /// Under [`Passes::Event`]: fires the timers set for the current instant, in the order they
    /// were set (and those they set in turn).
    fn fire_due_now(&mut self, obs: &mut dyn Observer) {
        let mut next = 0;
        while let Some(&token) = self.state.due_now.get(next) {
            next += 1;
            let mut sys = Sys {
                st: &mut self.state,
                obs: &mut *obs,
            };
            self.sched.on_timer(token, &mut sys);
        }
        self.state.due_now.clear();
    }
}

impl State<'_> {
    /// Rejects malformed workloads and requests that can never fit.
    fn check_workload(&self) -> Result<(), EngineError> {
        let mut last = SimTime::NEG_INFINITY;
        for (i, job) in self.jobs.iter().enumerate() {
            let bad = |problem| EngineError::BadWorkload {
                job: job.id,
                source_id: job.source_id,
                problem,
            };
            if job.id != JobId(i as u32) {
                return Err(bad("job ids are not dense and in order"));
            }
            let finite = |t: SimTime| t.is_finite() && t >= 0.0;
            if !job.submit.is_finite() || !finite(job.runtime) || !finite(job.estimate) {
                return Err(bad(
                    "submit time, run time or estimate is not a finite, non-negative number",
                ));
            }
            if job.submit.total_cmp(&last) == Ordering::Less {
                return Err(bad("jobs are not sorted by submit time"));
            }
            last = job.submit;
            if !self.alloc.fits_empty(&job.request) {
                return Err(EngineError::NeverFits {
                    job: job.id,
                    source_id: job.source_id,
                    request: job.request,
                    machine: self.alloc.machine(),
                });
            }
        }
        Ok(())
    }

    /// The key of the next event (its time as an [`order_key`]): the earlier of the next arrival
    /// and the queue's top.
    fn next_key(&self) -> Option<(i64, Kind)> {
        let order = self.options.semantics.order;
        let arrival = self.jobs.get(self.next_arrival).map(|j| {
            let kind = Kind::Arrival;
            (order_key(j.submit), kind.rank(order), kind)
        });
        let queued = self.events.peek().map(|e| (e.at, e.rank, e.kind));
        let next = match (arrival, queued) {
            (Some(a), Some(q)) => Some(a.min(q)),
            (a, q) => a.or(q),
        };
        next.map(|(key, _, kind)| (key, kind))
    }

    /// Pops the next queued event if it is of `kind` at time `t`.
    fn pop_event(&mut self, t: SimTime, kind: Kind) -> Option<u64> {
        let top = self.events.peek()?;
        if top.kind != kind || top.at != order_key(t) {
            return None;
        }
        self.events.pop().map(|e| e.payload)
    }

    fn push_event(&mut self, at: SimTime, kind: Kind, payload: u64) {
        self.seq += 1;
        self.events.push(Event {
            at: order_key(at),
            rank: kind.rank(self.options.semantics.order),
            kind,
            seq: self.seq,
            payload,
        });
    }

    /// Takes the next arrival at time `t`, if any.
    fn arrive(&mut self, t: SimTime) -> Option<JobId> {
        let job = self.jobs.get(self.next_arrival)?;
        if job.submit.total_cmp(&t) != Ordering::Equal {
            return None;
        }
        let (id, user) = (job.id, job.user);
        self.next_arrival += 1;
        *self.status.get_mut(id.index()) = Status::Waiting;
        self.waiting.insert(id);
        if let Some(p) = self.predictor.as_mut() {
            let estimate = p.predict(&self.source[id.index()]);
            self.jobs.to_mut()[id.index()].estimate = estimate;
            self.predictions[id.index()] = estimate;
            if self.options.semantics.prediction == Prediction::EveryPass
                && let Some(user) = user
            {
                self.waiting_of_user.entry(user.get()).or_default().push(id);
            }
        }
        Some(id)
    }

    /// Under [`Prediction::EveryPass`]: the waiting jobs of the user of job `i`, which just
    /// completed, get new predictions.
    fn repredict_user_of(&mut self, i: usize) {
        let Some(user) = self.source[i].user else {
            return;
        };
        let (Some(waiting), Some(p)) = (
            self.waiting_of_user.get(&user.get()),
            self.predictor.as_mut(),
        ) else {
            return;
        };
        let jobs = self.jobs.to_mut();
        for &w in waiting {
            jobs[w.index()].estimate = p.predict(&self.source[w.index()]);
        }
        self.estimates_epoch += 1;
    }

    /// Under [`Release::Booked`], at the start of an instant: frees the jobs that end now exactly
    /// at their estimates (their departures are still delivered in the instant's order).
    fn release_booked(&mut self, obs: &mut dyn Observer) {
        if self.options.semantics.release != Release::Booked {
            return;
        }
        let now = order_key(self.now);
        let from = self.running_ids.partition_point(|r| r.0 < now);
        let to = self.running_ids.partition_point(|r| r.0 <= now);
        let ending: Vec<JobId> = self.running_ids[from..to]
            .iter()
            .map(|r| r.1)
            .filter(|&id| {
                let p = &self.progress[&id];
                let (service, _) = self.service(id.index());
                p.since + (service - p.served).max(0.0) == self.now
            })
            .collect();
        for id in ending {
            let rec = self.records.get_mut(id.index());
            rec.end = self.now;
            let placement = rec.placement.clone();
            self.stop_running(id, &placement);
            *self.status.get_mut(id.index()) = Status::Leaving;
            obs.on_end(self.now, id, &placement);
        }
    }

    /// Handles an overrun event: a job still running at the end of its predicted run time gets
    /// a longer estimate (and a further overrun event if it outlives that one too). Whether the
    /// estimate changed.
    fn extend(&mut self, payload: u64) -> bool {
        let id = JobId(payload as u32);
        let i = id.index();
        let epoch = (payload >> 32) as u32;
        let Some(predictor) = self.predictor.as_ref() else {
            return false;
        };
        if *self.status.get(i) != Status::Running || self.progress[&id].epoch != epoch {
            return false;
        }
        let current = self.jobs[i].estimate;
        let next = predictor.extend(
            &self.source[i],
            self.predictions[i],
            self.progress[&id].extensions,
        );
        if next <= current {
            return false;
        }
        if let Some(p) = self.progress.get_mut(&id) {
            p.extensions += 1;
        }
        self.unlist_running(id);
        self.jobs.to_mut()[i].estimate = next;
        let (service, _) = self.service(i);
        self.list_running(id, service);
        true
    }

    /// Handles a departure event: a stale one (scheduled before a suspension) is ignored; otherwise
    /// the job ends now and its nodes are freed.
    fn depart(&mut self, payload: u64, obs: &mut dyn Observer) {
        let id = JobId(payload as u32);
        let epoch = (payload >> 32) as u32;
        let i = id.index();
        let leaving = *self.status.get(i) == Status::Leaving;
        if !(leaving || *self.status.get(i) == Status::Running) || self.progress[&id].epoch != epoch
        {
            return;
        }
        let rec = self.records.get_mut(i);
        rec.end = self.now;
        let placement = rec.placement.clone();
        if epoch > 0 {
            self.segments.push(Segment {
                job: id,
                start: self.progress[&id].since,
                end: self.now,
            });
        }
        if !leaving {
            self.stop_running(id, &placement);
        }
        self.progress.remove(&id);
        *self.status.get_mut(i) = Status::Done;
        if self.predictor.is_some() {
            let (service, _) = self.service(i);
            if let Some(p) = self.predictor.as_mut() {
                p.completed(&self.source[i], service);
            }
            if self.options.semantics.prediction == Prediction::EveryPass {
                self.repredict_user_of(i);
            }
        }
        self.departed.push(id);
        if !leaving {
            obs.on_end(self.now, id, &placement);
        }
    }

    /// Takes a running job's nodes back and drops it from the running list.
    fn stop_running(&mut self, id: JobId, placement: &Placement) {
        self.alloc.vacate(placement);
        self.failed.clear();
        self.running -= 1;
        self.busy -= placement.nodes();
        self.unlist_running(id);
    }

    /// Drops a running job from the running list.
    fn unlist_running(&mut self, id: JobId) {
        let key = ByEnd(order_key(self.progress[&id].est_end), id);
        match self.running_ids.binary_search(&key) {
            Ok(at) => {
                self.running_ids.remove(at);
            }
            Err(_) => debug_assert!(false, "job {id:?} was not in the running list"),
        }
    }

    /// Puts a job running since `progress.since` in the running list by its estimated end; with
    /// a predictor, schedules the overrun event of a job that will outlive its estimate.
    fn list_running(&mut self, id: JobId, service: SimTime) {
        let estimate = self.jobs[id.index()].estimate;
        let p = self.progress.entry(id).or_default();
        p.est_end = p.since + (estimate - p.served).max(0.0);
        let (est_end, end) = (p.est_end, p.since + (service - p.served).max(0.0));
        let payload = departure_payload(id, p.epoch);
        let key = ByEnd(order_key(est_end), id);
        let at = self.running_ids.partition_point(|r| *r < key);
        self.running_ids.insert(at, key);
        if self.predictor.is_some() && est_end < end {
            self.push_event(est_end, Kind::Overrun, payload);
        }
    }

    /// Service job `i` needs: its run time, or its (user) estimate when it is shorter and jobs are
    /// killed at their estimates.
    fn service(&self, i: usize) -> (SimTime, bool) {
        let job = &self.source[i];
        let runtime = match &self.dilation {
            Some(factors) => job.runtime * factors.get(i),
            None => job.runtime,
        };
        if self.options.kill_at_estimate && runtime > job.estimate {
            (job.estimate, true)
        } else {
            (runtime, false)
        }
    }

    /// Runs a job on `placement` (already occupied) from now on: a first start or a resume.
    fn run_on(&mut self, id: JobId, placement: &Placement, service: SimTime) {
        let i = id.index();
        let p = self.progress.entry(id).or_default();
        p.since = self.now;
        let end = self.now + (service - p.served).max(0.0);
        let epoch = p.epoch;
        self.list_running(id, service);
        *self.status.get_mut(i) = Status::Running;
        self.running += 1;
        self.busy += placement.nodes();
        self.push_event(end, Kind::Departure, departure_payload(id, epoch));
    }

    /// A first start on a placement already occupied.
    fn begin(&mut self, id: JobId, placement: Placement, obs: &mut dyn Observer) {
        if let Some(model) = self.options.dilation {
            let req = self.source[id.index()].request;
            let factor = model.factor(self.alloc.machine(), &req, &placement);
            let n = self.source.len();
            *(self.dilation)
                .get_or_insert_with(|| PerJob::Dense(vec![1.0; n]))
                .get_mut(id.index()) = factor;
        }
        self.waiting.remove(&id);
        if let Some(user) = self.source[id.index()].user
            && let Some(waiting) = self.waiting_of_user.get_mut(&user.get())
        {
            waiting.retain(|&w| w != id);
        }
        let (service, killed) = self.service(id.index());
        let rec = self.records.get_mut(id.index());
        *rec = JobRecord {
            start: self.now,
            end: self.now + service,
            placement: placement.clone(),
            killed,
            reserved: rec.reserved,
        };
        self.run_on(id, &placement, service);
        obs.on_start(self.now, id, &placement);
    }

    /// The jobs running now, with their estimated ends.
    fn running_jobs(&self) -> Vec<RunningJob> {
        self.running_ids
            .iter()
            .map(|&ByEnd(_, id)| RunningJob {
                job: id,
                since: self.progress[&id].since,
                est_end: self.progress[&id].est_end,
                placement: self.records.get(id.index()).placement.clone(),
            })
            .collect()
    }

    /// Where job `id` is in its life; `None` for an index beyond the log.
    fn status_of(&self, id: JobId) -> Option<Status> {
        (id.index() < self.source.len()).then(|| *self.status.get(id.index()))
    }

    /// Whether `id` is waiting to start; records the policy error otherwise.
    fn check_waiting(&mut self, id: JobId) -> bool {
        match self.status_of(id) {
            Some(Status::Waiting) => true,
            Some(Status::NotArrived) | None => {
                self.policy_error(Some(id), PolicyProblem::NotArrived);
                false
            }
            Some(_) => {
                self.policy_error(Some(id), PolicyProblem::AlreadyStarted);
                false
            }
        }
    }

    /// Records the first policy error.
    fn policy_error(&mut self, job: Option<JobId>, problem: PolicyProblem) {
        self.error.get_or_insert(EngineError::Policy {
            now: self.now,
            job,
            problem,
        });
    }

    /// The engine's side of [`System::try_start`].
    fn try_start(&mut self, id: JobId, obs: &mut dyn Observer) -> bool {
        if !self.check_waiting(id) {
            return false;
        }
        let req = self.jobs[id.index()].request;
        if req.nodes() > self.alloc.free_nodes() || self.failed.contains(&req) {
            self.counters.skipped += 1;
            return false;
        }
        let placement = if self.counters.alloc.attempts.is_multiple_of(TIMED_EVERY) {
            let t0 = Instant::now();
            let placement = self.alloc.allocate(&req);
            self.counters.alloc_time += t0.elapsed();
            self.counters.timed += 1;
            placement
        } else {
            self.alloc.allocate(&req)
        };
        self.counters.alloc.attempts += 1;
        let Some(placement) = placement else {
            self.counters.alloc.failures += 1;
            self.failed.insert(req);
            return false;
        };
        self.begin(id, placement, obs);
        true
    }

    /// The engine's side of [`System::try_start_on`].
    fn try_start_on(&mut self, id: JobId, placement: Placement, obs: &mut dyn Observer) -> bool {
        if !self.check_waiting(id) {
            return false;
        }
        if !covers(&self.jobs[id.index()].request, &placement) {
            self.policy_error(Some(id), PolicyProblem::WrongPlacement);
            return false;
        }
        if !self.alloc.is_free(&placement) {
            return false;
        }
        self.alloc.occupy(&placement);
        self.begin(id, placement, obs);
        true
    }

    /// The engine's side of [`System::suspend`].
    fn suspend(&mut self, id: JobId, obs: &mut dyn Observer) -> bool {
        if self.status_of(id) == Some(Status::Leaving) {
            return false; // already freed at its estimate; its departure is on its way
        }
        if self.status_of(id) != Some(Status::Running) {
            self.policy_error(Some(id), PolicyProblem::NotRunning);
            return false;
        }
        let i = id.index();
        let placement = self.records.get(i).placement.clone();
        let p = self.progress.entry(id).or_default();
        p.served += self.now - p.since;
        p.epoch += 1;
        let since = p.since;
        self.segments.push(Segment {
            job: id,
            start: since,
            end: self.now,
        });
        self.stop_running(id, &placement);
        *self.status.get_mut(i) = Status::Suspended;
        obs.on_suspend(self.now, id, &placement);
        true
    }

    /// The engine's side of [`System::resume`].
    fn resume(&mut self, id: JobId, obs: &mut dyn Observer) -> bool {
        if self.status_of(id) != Some(Status::Suspended) {
            self.policy_error(Some(id), PolicyProblem::NotSuspended);
            return false;
        }
        let placement = self.records.get(id.index()).placement.clone();
        if !self.alloc.is_free(&placement) {
            return false;
        }
        self.alloc.occupy(&placement);
        let (service, _) = self.service(id.index());
        self.run_on(id, &placement, service);
        obs.on_resume(self.now, id, &placement);
        true
    }

    /// The outcome, or the error that no job may be left behind.
    fn finish(self, wall_s: f64) -> Result<Outcome, EngineError> {
        let records = self.records.into_dense();
        let unstarted = |r: &JobRecord| r.start.is_nan();
        let waiting = records.iter().filter(|r| unstarted(r)).count();
        if let Some(first) = records.iter().position(unstarted) {
            return Err(EngineError::Stranded {
                job: JobId(first as u32),
                source_id: self.jobs[first].source_id,
                waiting,
            });
        }
        let mut segments = self.segments;
        segments.sort_by(|a, b| a.job.cmp(&b.job).then(a.start.total_cmp(&b.start)));
        let tori = records
            .iter()
            .map(|r| self.alloc.granted_torus(&r.placement))
            .collect::<Option<Vec<_>>>()
            .unwrap_or_default();
        Ok(Outcome {
            fair_starts: fork::fair_starts(self.fair, &records),
            predictions: self.predictions,
            records,
            tori,
            dilation: self.dilation.map(PerJob::into_dense).unwrap_or_default(),
            segments,
            alloc: self.counters.alloc,
            skipped_checks: self.counters.skipped,
            alloc_time_s: self.counters.alloc_time_s(),
            sim_wall_s: wall_s,
        })
    }
}

impl System for Sys<'_, '_> {
    fn now(&self) -> SimTime {
        self.st.now
    }
    fn job(&self, id: JobId) -> &Job {
        &self.st.jobs[id.index()]
    }
    fn try_start(&mut self, id: JobId) -> bool {
        self.st.try_start(id, self.obs)
    }
    fn try_start_on(&mut self, id: JobId, placement: Placement) -> bool {
        self.st.try_start_on(id, placement, self.obs)
    }
    fn suspend(&mut self, id: JobId) -> bool {
        self.st.suspend(id, self.obs)
    }
    fn resume(&mut self, id: JobId) -> bool {
        self.st.resume(id, self.obs)
    }
    fn free_nodes(&self) -> u32 {
        self.st.alloc.free_nodes()
    }
    fn running(&self) -> usize {
        self.st.running
    }
    fn running_jobs(&self) -> Vec<RunningJob> {
        self.st.running_jobs()
    }
    fn placement(&self, id: JobId) -> Option<Placement> {
        (self.st.status_of(id) == Some(Status::Running))
            .then(|| self.st.records.get(id.index()).placement.clone())
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        self.st.alloc.snapshot()
    }
    fn empty_allocator(&self) -> Box<dyn Allocator> {
        self.st.empty.snapshot()
    }
    fn set_timer(&mut self, at: SimTime, token: u64) {
        if at.is_nan() || at < self.st.now {
            self.st.policy_error(None, PolicyProblem::TimerInPast);
            return;
        }
        if self.st.options.semantics.passes == Passes::Event && at == self.st.now {
            self.st.due_now.push(token);
            return;
        }
        self.st.push_event(at, Kind::Timer, token);
    }
    fn backfill_length(&self, id: JobId) -> SimTime {
        let job = &self.st.jobs[id.index()];
        match self.st.options.semantics.backfill_length {
            BackfillLength::Estimate => job.estimate,
            BackfillLength::RunTime if self.st.options.kill_at_estimate => {
                job.runtime.min(self.st.source[id.index()].estimate)
            }
            BackfillLength::RunTime => job.runtime,
        }
    }
    fn estimates_epoch(&self) -> u64 {
        self.st.estimates_epoch
    }
    fn semantics(&self) -> super::Semantics {
        self.st.options.semantics
    }
    fn departed(&self) -> &[JobId] {
        &self.st.departed
    }
    fn promise(&mut self, id: JobId, at: SimTime) {
        let waiting = self.st.status_of(id) == Some(Status::Waiting);
        if waiting && !at.is_nan() {
            let reserved = &mut self.st.records.get_mut(id.index()).reserved;
            if reserved.is_none() {
                *reserved = PackedTime::new(at);
            }
        }
    }
}

/// The record of a job that has not started.
const NOT_STARTED: JobRecord = JobRecord {
    start: SimTime::NAN,
    end: SimTime::NAN,
    placement: Placement::Nodes(0),
    killed: false,
    reserved: None,
};

/// Whether `p` covers exactly request `req` (a submesh of its shape or its 90° turn when flagged, a
/// box of its extents, a subcube of its dimension, or its node count); a box request or a node
/// count may also be granted a box of power-of-two extents holding the request's node count rounded
/// up to a power of two (semitorus allocation), and any request that rounded count of anonymous
/// nodes (`flat:pow2`). Non-contiguous pieces cover a submesh or box request of at most as many
/// nodes (paging grants whole pages: the surplus is internal fragmentation).
fn covers(req: &Request, p: &Placement) -> bool {
    if let Placement::Block(b) = p
        && crate::resource::is_rounded_semitorus(req, b)
    {
        return true;
    }
    match (*req, p) {
        (Request::Submesh(want), &Placement::Submesh { at, rotated }) => {
            at.shape == if rotated { want.rotated() } else { want }
        }
        (Request::Block(want), Placement::Block(b)) => b.extent == want,
        (Request::Subcube(d), Placement::Subcube(c)) => c.dim() == d,
        (req, &Placement::Nodes(n)) => {
            req.nodes() == n || crate::resource::is_rounded_count(&req, n)
        }
        (Request::Submesh(_) | Request::Block(_), Placement::Pieces(ps)) => {
            ps.nodes() >= req.nodes()
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Beyond the job list, the engine keeps per job of the log a status byte and its record (which
    /// becomes the outcome's); a job's progress and its running-list slot only while it is in the
    /// machine, run segments only for jobs that were suspended.
    #[test]
    fn per_job_state_stays_within_the_memory_budget() {
        let per_job = size_of::<Status>() + size_of::<JobRecord>();
        assert!(per_job <= 64, "{per_job} bytes per job");
        // The job list itself: 80 bytes a job (its optional time, user, group, queue and partition
        // packed, crate::packed).
        assert!(size_of::<Job>() <= 80, "{} bytes per job", size_of::<Job>());
    }

    /// The allocator's wall time is timed on one call in 16 (the first included) and scaled.
    #[test]
    fn allocator_time_is_sampled_and_scaled_to_all_calls() {
        let mut counters = Counters::default();
        assert_eq!(counters.alloc_time_s(), 0.0, "no call, no time");
        counters.alloc.attempts = 40; // calls 0, 16 and 32 timed
        counters.timed = 3;
        counters.alloc_time = Duration::from_micros(3);
        assert!((counters.alloc_time_s() - 40e-6).abs() < 1e-12);
    }

    #[test]
    fn order_keys_order_times_as_total_cmp_and_give_them_back() {
        let times = [
            SimTime::NEG_INFINITY,
            -1e300,
            -2.5,
            -0.0,
            0.0,
            1e-300,
            3.0,
            3.0000000000000004,
            SimTime::INFINITY,
        ];
        for a in times {
            assert_eq!(from_order_key(order_key(a)).to_bits(), a.to_bits());
            for b in times {
                assert_eq!(
                    order_key(a).cmp(&order_key(b)),
                    a.total_cmp(&b),
                    "{a} vs {b}"
                );
            }
        }
    }

    #[test]
    fn events_pop_by_time_then_kind_then_insertion() {
        let ev = |at, kind: Kind, seq| Event {
            at: order_key(at),
            rank: kind.rank(Order::DeparturesFirst),
            kind,
            seq,
            payload: 0,
        };
        let mut heap = BinaryHeap::from([
            ev(2.0, Kind::Departure, 1),
            ev(1.0, Kind::Timer, 2),
            ev(1.0, Kind::Departure, 4),
            ev(1.0, Kind::Departure, 3),
        ]);
        let order: Vec<u64> = std::iter::from_fn(|| heap.pop().map(|e| e.seq)).collect();
        assert_eq!(order, vec![3, 4, 2, 1]);
    }
}
