//! The discrete-event simulation of one replay, its validator and its metrics.
//!
//! * [`replay`] (or [`Engine`] for a hand-built scheduler and allocator) runs a [`Workload`] on a
//!   machine and returns an [`Outcome`]: a [`JobRecord`] per job and the allocator's counters.
//! * [`validate()`] checks an outcome *without* the policies' or the allocators' code.
//! * [`summarize`] turns it into the [`RunMetrics`] every table prints; [`users`] measures it
//!   per user (who won and who lost) and how evenly the users fared.
//! * [`ReplayOptions`] are the options of one replay (ending jobs at their estimates, dilation),
//!   one value from every front end to the engine ([`options`] says how to add one).
//! * [`Observer`] hooks (no-op by default) see starts, ends and the state after each instant;
//!   [`TimeSeries`] records queue length and busy nodes over time.
//! * [`Timeline`] indexes a finished replay by time (who holds which node, who waits), and
//!   [`measure_fragmentation`] plays its placements again to measure fragmentation over time;
//!   [`FragMeter`], an observer, gives the same summary while the replay runs, without the
//!   timeline ([`summarize_with_fragmentation`] takes it).
//!
//! # Event order (the contract)
//!
//! Time is [`SimTime`] seconds; every comparison uses [`f64::total_cmp`]. Arrivals come from a cursor
//! over the job list (already sorted by submit time); departures and timers wait in a binary heap keyed
//! by (time, kind's place in the instant, insertion sequence). At one instant `t`:
//!
//! 1. **Departures.** Every departure at `t` is released, in the order the jobs were started (insertion
//!    sequence); then [`Scheduler::on_departure`](crate::sched::Scheduler::on_departure) runs **once**
//!    for all of them ([`System::departed`](crate::sched::System::departed) lists them).
//! 2. **Overruns** (with a predictor only). Every running job whose predicted run time ends at `t`
//!    gets a longer estimate from the predictor; then
//!    [`Scheduler::on_overrun`](crate::sched::Scheduler::on_overrun) runs once.
//! 3. **Arrivals.** Each job submitted at `t`, in workload order, goes through
//!    [`Scheduler::on_arrival`](crate::sched::Scheduler::on_arrival): an arrival sees the nodes freed
//!    at the same instant.
//! 4. **Timers** set for `t`, in the order they were set.
//! 5. [`Observer::on_instant`] with the queue length and busy nodes.
//!
//! A job of run time 0 started at `t` departs at `t` too, in a further departure batch after the
//! stage that started it (so it never frees its nodes under the scheduler's feet). Nothing depends on
//! hash order or wall time: the same input gives the same records.
//!
//! That is the default, `textbook` [`semantics`](crate::sched::semantics).
//! [`ReplayOptions::semantics`] changes it as other simulators do: under
//! [`Passes::Event`](crate::sched::semantics::Passes) each departure and each arrival is delivered
//! alone (`on_departure` then lists one job) and a timer set for `t` fires right after the event
//! that set it, overruns get no `on_overrun`; under
//! [`Order::ArrivalsFirst`](crate::sched::semantics::Order) the stages run overruns, arrivals,
//! departures, timers; under [`Release::Booked`](crate::sched::semantics::Release) the jobs ending
//! at `t` exactly at their estimates are freed before the first stage (on [`Observer::on_end`]),
//! their departures delivered in their stage as usual.
//!
//! # Job progress (time sharing, walltimes)
//!
//! The engine owns each job's progress. A job needs its *service*: its run time, or its estimate when
//! that is shorter and [`ReplayOptions::kill_at_estimate`] is on (the record says `killed`).
//! [`System::suspend`](crate::sched::System::suspend) frees a running job's nodes and adds the time
//! since its last (re)start to its served work; its pending departure becomes *stale*: departures carry
//! the job's run epoch, which every suspension bumps, and a stale one is dropped when popped (a batch
//! of only stale departures makes no [`Scheduler::on_departure`](crate::sched::Scheduler::on_departure)
//! call). [`System::resume`](crate::sched::System::resume) puts the job back on the same nodes, if free,
//! with a departure at `now + remaining`. A job suspended at least once reports its run segments in
//! [`Outcome::segments`]; the validator checks that they span its start to its end, do not overlap,
//! and add up to its service.
//!
//! # Planning
//!
//! Schedulers see [`System::running_jobs`](crate::sched::System::running_jobs) with their estimated
//! ends (`since + estimate − served`), plan on
//! [`System::snapshot`](crate::sched::System::snapshot)s of the allocator, and may start a job on a
//! placement they chose with [`System::try_start_on`](crate::sched::System::try_start_on) (the engine
//! checks it covers the request and is free).
//!
//! # Allocation attempts
//!
//! [`System::try_start`](crate::sched::System::try_start) calls the allocator unless the answer is
//! known: when the request needs more nodes than are free, or when the same request already failed
//! since the last release (feasibility is monotone in the free set, so it fails again). Those skipped
//! checks are counted apart ([`Outcome::skipped_checks`]); [`AllocStats::attempts`] counts real
//! allocator calls only. Their wall time, [`Outcome::alloc_time_s`], is estimated from every 16th call
//! (the first included), scaled to all: a clock read costs as much as a fast allocation.
//!
//! [`Workload`]: crate::workload::Workload

pub mod columns;
pub mod dilation;
mod frag_meter;
mod fragmentation;
pub mod locality;
mod metrics;
pub mod observation;
mod observer;
pub mod options;
mod sim;
mod timeline;
pub mod users;
mod validate;

pub use crate::sched::semantics::{Profile, Semantics};
pub use dilation::Dilation;
pub use frag_meter::FragMeter;
pub use fragmentation::{
    FragStep, FragSummary, Fragmentation, measure_fragmentation, summarize_fragmentation,
};
pub use locality::{Locality, box_hops, compact_hops, contiguous_hops, locality};
pub use metrics::{
    FRAGMENTATION_COLUMNS, summarize, summarize_with_fragmentation, summarize_without_fragmentation,
};
pub use observer::{NoObserver, Observer, TimePoint, TimeSeries};
pub use options::ReplayOptions;
pub use sim::Engine;
pub use timeline::{Run, Timeline};
pub use validate::{ValidationError, validate};

use crate::SimTime;
use crate::machine::{AllocKind, AllocStats, Dims, MachineSpec, Placement, SpecError};
use crate::sched::SchedKind;
use crate::workload::{Job, JobId, Request, Workload};

/// What happened to one job.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct JobRecord {
    /// Start time (of its first run segment).
    pub start: SimTime,
    /// End time (of its last run segment; `start + runtime` for a job never suspended).
    pub end: SimTime,
    /// What the allocator granted (a suspended job resumes on the same nodes).
    pub placement: Placement,
    /// Ended at its estimate before its run time was served (`--kill-at-estimate`).
    pub killed: bool,
    /// The first start time a scheduler promised the job while it waited
    /// ([`System::promise`](crate::sched::System::promise)); `None` when it never got a reservation
    /// (8 bytes: [`PackedTime`](crate::packed::PackedTime)).
    pub reserved: Option<crate::packed::PackedTime>,
}

impl JobRecord {
    /// The bounded slowdown of `job`, this its record: max(1, turnaround / max(run time, τ)),
    /// τ = 10 s, the summary's (`mean_bounded_slowdown`).
    pub fn bounded_slowdown(&self, job: &Job) -> f64 {
        ((self.end - job.submit) / job.runtime.max(metrics::SLOWDOWN_BOUND_S)).max(1.0)
    }
}

/// One run segment of a job that was suspended at least once.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Segment {
    /// The job.
    pub job: JobId,
    /// Segment start.
    pub start: SimTime,
    /// Segment end.
    pub end: SimTime,
}

/// The result of one replay: a record per job (indexed by `JobId`) and the allocator's counters.
/// It travels as JSON (an external series' schedule, from its runner to the caller: every time
/// exact, read back with a correctly rounding parser).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    /// `records[i]` is job `JobId(i)`.
    pub records: Vec<JobRecord>,
    /// With a predictor ([`Workload::predictor`](crate::workload::Workload::predictor)), the
    /// estimate each job was given at its submission (`predictions[i]` for job `JobId(i)`), before
    /// any extension; empty otherwise (the jobs' own estimates were used).
    pub predictions: Vec<SimTime>,
    /// The torus each job ran as (`tori[i]` for job `JobId(i)`) when the allocator converts its
    /// placements to tori (semitorus allocation), else empty.
    pub tori: Vec<Dims>,
    /// With [`ReplayOptions::dilation`], the factor each job's run time was stretched by
    /// (`dilation[i]` for job `JobId(i)`, ≥ 1); empty when off.
    pub dilation: Vec<f64>,
    /// With [`ReplayOptions::fairness`], each job's fair start time (`fair_starts[i]` for job
    /// `JobId(i)`): when it would have started had no later job arrived (`engine/sim/fork.rs`);
    /// empty when off.
    pub fair_starts: Vec<SimTime>,
    /// Every run segment of the jobs that were ever suspended, by job then time (empty when no
    /// job was; the others ran in one segment `[start, end)`).
    pub segments: Vec<Segment>,
    /// Allocator calls and failures (real calls only).
    pub alloc: AllocStats,
    /// Start requests answered without calling the allocator (too few free nodes, or the same request
    /// failed since the last release).
    pub skipped_checks: u64,
    /// Wall-clock seconds spent inside the allocator, estimated from every 16th call (not
    /// deterministic).
    pub alloc_time_s: f64,
    /// Wall-clock seconds of the whole replay (not deterministic).
    pub sim_wall_s: f64,
}

impl Outcome {
    /// Nodes granted to `job` (`r` its record) × time served: its run time (stretched by its
    /// dilation), or its estimate when it was killed there.
    pub fn node_seconds(&self, job: &Job, r: &JobRecord) -> f64 {
        let served = if r.killed {
            job.estimate
        } else {
            match self.dilation.get(job.id.index()) {
                Some(&factor) => job.runtime * factor,
                None => job.runtime,
            }
        };
        f64::from(r.placement.nodes()) * served
    }
}

/// Summary of one replay. Field names are the column names of every table and JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunMetrics {
    /// Jobs replayed.
    pub jobs: u64,
    /// Mean of end − submit.
    pub mean_turnaround_s: f64,
    /// Population variance of end − submit.
    pub var_turnaround: f64,
    /// Mean of start − submit.
    pub mean_wait_s: f64,
    /// Largest start − submit.
    pub max_wait_s: f64,
    /// Median wait (nearest rank).
    pub p50_wait_s: f64,
    /// 95th percentile wait (nearest rank).
    pub p95_wait_s: f64,
    /// 99th percentile wait (nearest rank).
    pub p99_wait_s: f64,
    /// Σ granted nodes × run time / (N × (last end − first submit)), 0..1.
    pub utilization: f64,
    /// Jobs / (last end − first submit).
    pub throughput_per_s: f64,
    /// Last end − first submit.
    pub makespan_s: f64,
    /// Mean of max(1, turnaround / max(run time, 10 s)).
    pub mean_bounded_slowdown: f64,
    /// Throughput / mean wait.
    pub system_power: f64,
    /// Mean over jobs of processors granted − processors asked.
    pub internal_fragmentation: f64,
    /// Jobs ended at their estimate (`--kill-at-estimate`).
    pub killed_jobs: u64,
    /// Allocator calls.
    pub alloc_attempts: u64,
    /// Wall seconds in the allocator (not deterministic).
    pub alloc_time_s: f64,
    /// Wall seconds of the replay (not deterministic).
    pub sim_wall_s: f64,
    /// Time-average share of the nodes idle while some waiting job needs no more nodes than are
    /// idle (loss of capacity, over the makespan), 0..1.
    pub external_fragmentation: f64,
    /// Mean dimensionality of the tori granted (torus allocators; 0 for the others).
    pub mean_torus_dims: f64,
    /// Median bounded slowdown (nearest rank).
    pub p50_bounded_slowdown: f64,
    /// 95th percentile bounded slowdown (nearest rank).
    pub p95_bounded_slowdown: f64,
    /// 99th percentile bounded slowdown (nearest rank).
    pub p99_bounded_slowdown: f64,
    /// Jobs started while an older job was still waiting (backfilled or bypassing).
    pub backfilled_jobs: u64,
    /// `backfilled_jobs / jobs`, 0..1.
    pub backfilled_share: f64,
    /// Mean of start − first promised start over the jobs that got a reservation (0 when none did;
    /// negative when jobs start before their reservation).
    pub mean_reservation_error_s: f64,
    /// Jobs that, as the head of the queue, needed no more nodes than were idle and still found no
    /// placement: delayed by fragmentation alone.
    pub frag_delayed_jobs: u64,
    /// `frag_delayed_jobs / jobs`, 0..1.
    pub frag_delayed_share: f64,
    /// Time-average number of maximal free submeshes (2D mesh; 0 on other topologies).
    pub mean_free_regions: f64,
    /// External fragmentation as the semitorus issue reads it: time-average share of nodes idle
    /// while the *head* of the queue waits needing no more than are idle (0…1; never above
    /// [`external_fragmentation`](Self::external_fragmentation), which counts any waiting job).
    pub head_fragmentation: f64,
    /// Mean of |estimate − run time| / run time over the jobs with a positive run time, the
    /// estimate being what the scheduler was told at submission (a prediction, or the job's own).
    pub mean_estimate_error: f64,
    /// Share of the jobs with a positive run time whose estimate at submission was below it, 0..1.
    pub underestimated_share: f64,
    /// Mean over the jobs of the connected pieces of their nodes ([`locality`]).
    pub mean_pieces: f64,
    /// Mean over the jobs of the mean hop distance between their nodes ([`locality`]).
    pub mean_pairwise_hops: f64,
    /// Jain's index over the users' mean bounded slowdowns ([`users::Fairness`]), 1/n..1.
    pub jain_bounded_slowdown: f64,
    /// The largest of the users' mean waits ([`users::Fairness`]).
    pub worst_user_mean_wait_s: f64,
    /// The largest of the users' mean bounded slowdowns ([`users::Fairness`]).
    pub worst_user_mean_bounded_slowdown: f64,
    /// Jobs started after their fair start times
    /// ([`ReplayOptions::fairness`](options::ReplayOptions::fairness); 0 when not measured).
    pub unfair_jobs: u64,
    /// Σ over the jobs of how long each started after its fair start time (0 when not
    /// measured).
    pub unfair_delay_s: f64,
    /// `unfair_delay_s / jobs`: the mean over all jobs (0 when not measured).
    pub mean_unfair_delay_s: f64,
    /// What an experiment observed of the run beyond this summary (the §4.2 window measures of
    /// [`observation`]); not a column of the summary tables, zero unless asked for.
    pub observed: observation::Observed,
}

/// What a scheduler did wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum PolicyProblem {
    /// Asked to start a job that has not arrived yet.
    NotArrived,
    /// Asked to start a job that is running or done.
    AlreadyStarted,
    /// Set a timer in the past.
    TimerInPast,
    /// Asked to start a job on a placement that does not cover exactly its request.
    WrongPlacement,
    /// Asked to suspend a job that is not running.
    NotRunning,
    /// Asked to resume a job that is not suspended.
    NotSuspended,
}

impl std::fmt::Display for PolicyProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            PolicyProblem::NotArrived => "asked to start a job that has not arrived",
            PolicyProblem::AlreadyStarted => "asked to start a job that already started",
            PolicyProblem::TimerInPast => "set a timer in the past",
            PolicyProblem::WrongPlacement => {
                "asked to start a job on a placement that does not match its request"
            }
            PolicyProblem::NotRunning => "asked to suspend a job that is not running",
            PolicyProblem::NotSuspended => "asked to resume a job that is not suspended",
        })
    }
}

/// Why a replay could not run or finish.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EngineError {
    /// The allocator label does not work on the machine.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// The scheduler's queue order or its settings cannot be used.
    #[error(transparent)]
    Order(#[from] crate::sched::order::OrderError),
    /// A request can never be placed, even on the empty machine.
    #[error("job {source_id} (index {}) asks for {request:?}, which can never fit on {machine}", job.0)]
    NeverFits {
        /// The job.
        job: JobId,
        /// Its number in the source.
        source_id: u64,
        /// What it asks for.
        request: Request,
        /// The machine.
        machine: MachineSpec,
    },
    /// The workload breaks the engine's preconditions.
    #[error("job {source_id} (index {}): {problem}", job.0)]
    BadWorkload {
        /// The first offending job.
        job: JobId,
        /// Its number in the source.
        source_id: u64,
        /// What is wrong.
        problem: &'static str,
    },
    /// The scheduler broke the rules (a bug in the policy).
    #[error("scheduler error at t = {now}: {problem}{}", job.map(|j| format!(" (job index {})", j.0)).unwrap_or_default())]
    Policy {
        /// When.
        now: SimTime,
        /// The job concerned, if any.
        job: Option<JobId>,
        /// What happened.
        problem: PolicyProblem,
    },
    /// Fair start times were asked for a replay whose forks cannot be made.
    #[error("fair start times cannot be measured with {0}")]
    NoFairStart(&'static str),
    /// The run ended with jobs that never started (a policy that never serves them).
    #[error("{waiting} job(s) never started; the first is job {source_id} (index {})", job.0)]
    Stranded {
        /// The first job left waiting.
        job: JobId,
        /// Its number in the source.
        source_id: u64,
        /// How many were left.
        waiting: usize,
    },
}

/// Replays `workload` on `machine` under the scheduler and allocator named by the labels.
pub fn replay(
    workload: &Workload,
    machine: MachineSpec,
    sched: SchedKind,
    alloc: AllocKind,
    observer: &mut dyn Observer,
) -> Result<Outcome, EngineError> {
    replay_with(
        workload,
        machine,
        sched,
        alloc,
        ReplayOptions::default(),
        observer,
    )
}

/// [`replay`] with engine options.
pub fn replay_with(
    workload: &Workload,
    machine: MachineSpec,
    sched: SchedKind,
    alloc: AllocKind,
    options: ReplayOptions,
    observer: &mut dyn Observer,
) -> Result<Outcome, EngineError> {
    let allocator = alloc.build(machine)?;
    let sched = (sched.for_workload(workload)).build_with(workload, &options.priority()?)?;
    Engine::new(workload, sched, allocator)
        .with_options(options)
        .run(observer)
}
