//! Queueing policies: which waiting job to try next.
//!
//! A [`Scheduler`] owns its waiting structure (a FIFO, a window, a bypass queue …) and reacts to the
//! engine's events through the [`System`] view: it may read the clock and the jobs, and it *asks* the
//! engine to start a job with [`System::try_start`]; the engine checks the request (the job has arrived
//! and is not running), asks the allocator where it fits, and records the start. Schedulers never touch
//! the allocator directly, so any scheduler pairs with any allocator.
//!
//! Labels (`fcfs`, `oo`, `oocb:8`, `oocb-incl:8`, `oocb-head:8`, `window:240`, `delay`,
//! `delay:count`, `bq:<seconds>`, `lazy`, `lazy:<seconds>`, `scan-up`, `scan-down:join`, `static`,
//! `largest-first:16`, `gang:slice=600`, `easy`, `easy:sjbf`, `conservative`) are parsed by
//! [`SchedKind`], built with [`SchedKind::build`], and appear unchanged in every table.
//!
//! One file per policy, named as in its paper: `fcfs`, `out_of_order` (OO), `oocb` (OOCB-k),
//! `window_k` (Window-K), `delay` (Delay) and `bypass_queue` (BQ). All but Window-K are a FIFO queue
//! with a *bypass rule* (`queue`): after departures the head is tried while it starts, then later jobs
//! in arrival order as far as the rule allows; the rules differ only in when the head may be bypassed
//! and whether a newcomer that finds a queue is tried at once. The coscheduling report's policies
//! are `largest_first` (its space-sharing baseline and the `nmp_list` with RetryLim) and `gang`
//! (MPJ-CoSched&TS: time-slice classes, suspending and resuming jobs at slice boundaries).
//!
//! The backfilling policies plan with run-time estimates: `easy` (EASY, a reservation for the head)
//! and `conservative` (a reservation for every waiting job). They run one pass per instant, after
//! every completion and arrival of it (`backfill`), or one after every single event under the
//! engine's event passes ([`System::semantics`]), and report their reservations through
//! [`System::promise`].

use std::fmt;
use std::str::FromStr;

mod backfill;
mod bypass_queue;
mod conservative;
mod delay;
mod easy;
mod fcfs;
pub mod gang;
mod largest_first;
mod lazy;
mod oocb;
mod out_of_order;
pub mod plan;
mod queue;
mod scan;
pub mod semantics;
mod static_partition;
mod window_k;

use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::Placement;
use crate::workload::{Job, JobId};

pub use backfill::DeferredPass;
pub use gang::{GangLog, GangParams, gang_with_log};
pub use plan::{Reservation, RunningJob};
pub use scan::{Advance, Arrivals, Blocked, ScanReading};
pub use semantics::Semantics;

/// The engine as a scheduler sees it.
///
/// Starting: [`try_start`](System::try_start) lets the allocator choose the place;
/// [`try_start_on`](System::try_start_on) starts a job on a placement the scheduler planned (it must
/// be free). Planning: [`running_jobs`](System::running_jobs) with their estimated ends,
/// [`snapshot`](System::snapshot) of the allocator to ask what-if questions on, and the basic query
/// [`earliest_start`](System::earliest_start). Time sharing: [`suspend`](System::suspend) and
/// [`resume`](System::resume) (the engine tracks each job's remaining work).
pub trait System {
    /// Current simulated time.
    fn now(&self) -> SimTime;
    /// A job of the workload (any job, waiting or not).
    fn job(&self, id: JobId) -> &Job;
    /// Asks to start `id` now. Returns `true` when the allocator placed it (the job is then running),
    /// `false` when it does not fit now. Starting a job that has not arrived, or twice, is a bug in the
    /// policy: the engine records it as an error and returns `false`.
    fn try_start(&mut self, id: JobId) -> bool;
    /// Asks to start `id` now on `placement`, which must cover exactly its request and be free:
    /// `false` (nothing changes) when it is not free; a placement that does not match the request is
    /// a policy error.
    fn try_start_on(&mut self, id: JobId, placement: Placement) -> bool;
    /// Suspends a running job: its nodes are freed and its remaining work kept. `false` (a policy
    /// error) when it is not running.
    fn suspend(&mut self, id: JobId) -> bool;
    /// Resumes a suspended job on the nodes it held: `false` when they are not all free now (nothing
    /// changes); a policy error when it is not suspended.
    fn resume(&mut self, id: JobId) -> bool;
    /// Free nodes now (a cheap pre-check; `try_start` is the authority).
    fn free_nodes(&self) -> u32;
    /// Number of jobs running now.
    fn running(&self) -> usize;
    /// The jobs running now with their placements and estimated ends, in order of estimated end, then
    /// job id (built on each call, O(running)).
    fn running_jobs(&self) -> Vec<RunningJob>;
    /// Where `id` runs now; `None` when it is not running.
    fn placement(&self, id: JobId) -> Option<Placement>;
    /// A private copy of the allocator in its current state, to plan on.
    fn snapshot(&self) -> Box<dyn Allocator>;
    /// A private allocator of the same kind on the empty machine (e.g. one per time-slice class).
    fn empty_allocator(&self) -> Box<dyn Allocator>;
    /// Asks for [`Scheduler::on_timer`] to be called at `at` (≥ now) with `token`.
    fn set_timer(&mut self, at: SimTime, token: u64);
    /// The jobs whose departure is being delivered by the current [`Scheduler::on_departure`] call,
    /// in release order (empty outside it).
    fn departed(&self) -> &[JobId] {
        &[]
    }
    /// Records that waiting job `id` was promised a start no later than `at` (a reservation). Only the
    /// first promise of a job is kept: it becomes [`JobRecord::reserved`](crate::engine::JobRecord)
    /// and the reservation error of the metrics. Policies without reservations never call it; the
    /// default does nothing.
    fn promise(&mut self, _id: JobId, _at: SimTime) {}
    /// The scheduling semantics of the replay (policies read the few choices that concern them).
    fn semantics(&self) -> Semantics {
        Semantics::default()
    }
    /// The length a backfilling test gives waiting job `id`: its estimate, or its run time under
    /// [`BackfillLength::RunTime`](semantics::BackfillLength) (CQSim's test).
    fn backfill_length(&self, id: JobId) -> SimTime {
        self.job(id).estimate
    }
    /// A number that changes whenever waiting jobs' estimates may have changed (re-prediction
    /// under [`Prediction::EveryPass`](semantics::Prediction)): a policy that copies
    /// estimates at arrival reads them again when it changed.
    fn estimates_epoch(&self) -> u64 {
        0
    }
    /// When and where `id` could start at the earliest if the running jobs end at their estimated
    /// ends (see [`plan::earliest_start`]); `None` when it never fits.
    fn earliest_start(&self, id: JobId) -> Option<Reservation> {
        let mut state = self.snapshot();
        plan::earliest_start(
            self.now(),
            &self.job(id).request,
            state.as_mut(),
            &self.running_jobs(),
        )
    }
}

/// A queueing policy.
///
/// Event contract (see `engine` for the full order at one instant): all departures at an instant are
/// released first and [`Scheduler::on_departure`] runs once for them; then each arrival of that
/// instant is delivered, in workload order, through [`Scheduler::on_arrival`]; timers come last.
pub trait Scheduler: Send {
    /// A job has been submitted. The scheduler either starts it or keeps it waiting.
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System);
    /// One or more jobs have ended and their nodes are free.
    fn on_departure(&mut self, sys: &mut dyn System);
    /// A timer set with [`System::set_timer`] fired.
    fn on_timer(&mut self, _token: u64, _sys: &mut dyn System) {}
    /// Running jobs outlived their predicted run times and were given longer estimates
    /// ([`crate::estimate::Predictor::extend`]); the default ignores it.
    fn on_overrun(&mut self, _sys: &mut dyn System) {}
    /// Number of jobs waiting.
    fn waiting(&self) -> usize;
}

/// A scheduler label.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SchedKind {
    /// `fcfs`: strict arrival order.
    Fcfs,
    /// `oo`: aggressive out-of-order; any waiting job that fits starts, in arrival order.
    OutOfOrder,
    /// `oocb:k`: out-of-order with constant bound (window-k-mesh.md §2.2, §5): every waiting job
    /// counts the later jobs that overtook it since its arrival, and the head blocks every later job
    /// once it has been overtaken `k` times (`oocb:0` is FCFS).
    Oocb(u32),
    /// `oocb-incl:k`: per-job counters as `oocb`, but Max-Bound `k` counts the head's own
    /// allocation: `k − 1` overtakes (`oocb-incl:1` is FCFS, as §5's aside has it).
    OocbIncl(u32),
    /// `oocb-head:k`: one counter owned by the head and reset for each new head; `k` overtakes
    /// (`oocb-head:0` is FCFS).
    OocbHead(u32),
    /// `window:K`: Window-K (window-k-mesh.md §4).
    Window(u32),
    /// `delay`: the head may be bypassed while its own wait is below λ·W (window-k-mesh.md §2.3, the
    /// literal time reading).
    Delay,
    /// `delay:count`: the head may be overtaken at most ⌈λ·W⌉ times (λ·W as a job count, Little's law).
    DelayCount,
    /// `bq:T`: bypass queue with threshold time `T` (bypass-queue paper, Fig. 2); `bq:inf` never blocks.
    BypassQueue(SimTime),
    /// `lazy`: lazy scheduling (lazy-scheduling-hypercube.md §3.2), waiting threshold d_t²·λ.
    Lazy,
    /// `lazy:T`: lazy scheduling with a fixed waiting threshold of `T` seconds.
    LazyFixed(SimTime),
    /// `lazy:deadline`: lazy scheduling, threshold d_t²·λ checked also when the oldest wait reaches
    /// it (not only at releases).
    LazyDeadline,
    /// `scan-up[:READING]`: scan (Krueger et al., lazy-scheduling-hypercube.md §2.3), towards larger
    /// cubes, under a reading of §2.3 (`join`, `step`, `skip`; [`ScanReading`]).
    ScanUp(ScanReading),
    /// `scan-down[:READING]`: scan towards smaller cubes.
    ScanDown(ScanReading),
    /// `static`: static partitioning (lazy-scheduling-hypercube.md §3.1).
    Static,
    /// `gang[:slice=S,nmax=N,retry=R,switch=C]`: MPJ-CoSched&TS, gang scheduling by time-slice
    /// classes (coscheduling-time-sharing.md §4.2–4.3); `slice=median`: the workload's median run
    /// time ([`GangParams::for_workload`]).
    Gang(GangParams),
    /// `largest-first[:R]`: space sharing in descending size with `RetryLim` R (default 16; the
    /// coscheduling report's baseline, §4.4).
    LargestFirst(u32),
    /// `easy`: EASY backfilling, a reservation for the queue head only (Mu'alem & Feitelson 2001).
    Easy,
    /// `easy:sjbf`: EASY with the shortest (estimated) jobs backfilled first (Tsafrir, Etsion &
    /// Feitelson 2007; with `--estimate predict`, their EASY++).
    EasySjbf,
    /// `conservative`: conservative backfilling, a reservation for every waiting job.
    Conservative,
}

/// One scheduler of the registry: how its label is written, an example, what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedInfo {
    /// Label syntax (`window:K`).
    pub syntax: &'static str,
    /// A label that parses (`window:240`).
    pub example: &'static str,
    /// One line for help texts.
    pub meaning: &'static str,
}

/// Every scheduler, one line each, in the order of help texts and error messages. Help texts,
/// parse errors and docs are generated from it; a test checks that every [`SchedKind`] variant has
/// exactly one line whose example parses back to it.
#[rustfmt::skip]
pub const SCHEDULERS: &[SchedInfo] = &[
    SchedInfo { syntax: "fcfs", example: "fcfs", meaning: "first come, first served" },
    SchedInfo { syntax: "oo", example: "oo", meaning: "out of order: any waiting job that fits starts" },
    SchedInfo { syntax: "oocb:K", example: "oocb:8", meaning: "out of order, the head overtaken at most K times (K ≥ 0)" },
    SchedInfo { syntax: "oocb-incl:K", example: "oocb-incl:8", meaning: "as oocb, K counting the head's own start (K ≥ 1)" },
    SchedInfo { syntax: "oocb-head:K", example: "oocb-head:8", meaning: "as oocb, one counter owned by the head (K ≥ 0)" },
    SchedInfo { syntax: "window:K", example: "window:240", meaning: "Window-K: the first K waiting jobs, in any order (K ≥ 1)" },
    SchedInfo { syntax: "delay", example: "delay", meaning: "the head bypassed while its wait is below λ·W" },
    SchedInfo { syntax: "delay:count", example: "delay:count", meaning: "the head overtaken at most ⌈λ·W⌉ times" },
    SchedInfo { syntax: "bq:SECONDS|bq:inf", example: "bq:100", meaning: "bypass queue with a threshold time" },
    SchedInfo { syntax: "lazy", example: "lazy", meaning: "lazy scheduling, threshold d_t²·λ" },
    SchedInfo { syntax: "lazy:SECONDS", example: "lazy:30", meaning: "lazy scheduling, a fixed threshold" },
    SchedInfo { syntax: "lazy:deadline", example: "lazy:deadline", meaning: "lazy scheduling, d_t²·λ also enforced when a wait reaches it" },
    SchedInfo { syntax: "scan-up[:join,step,skip]", example: "scan-up", meaning: "scan towards larger subcubes (a reading of §2.3)" },
    SchedInfo { syntax: "scan-down[:join,step,skip]", example: "scan-down:join", meaning: "scan towards smaller subcubes" },
    SchedInfo { syntax: "static", example: "static", meaning: "static partitioning" },
    SchedInfo { syntax: "gang[:slice=S,nmax=N,retry=R,switch=C]", example: "gang:slice=600", meaning: "gang scheduling by time-slice classes" },
    SchedInfo { syntax: "largest-first[:R]", example: "largest-first:16", meaning: "space sharing, largest first, R retries" },
    SchedInfo { syntax: "easy", example: "easy", meaning: "EASY backfilling: a reservation for the head" },
    SchedInfo { syntax: "easy:sjbf", example: "easy:sjbf", meaning: "EASY, the shortest estimated jobs backfilled first" },
    SchedInfo { syntax: "conservative", example: "conservative", meaning: "conservative backfilling: a reservation for every job" },
];

/// The label syntaxes of [`SCHEDULERS`], comma-separated (for help texts and errors).
pub fn scheduler_labels() -> String {
    SCHEDULERS
        .iter()
        .map(|s| s.syntax)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A scheduler label that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("scheduler `{0}` is not one of {labels}", labels = scheduler_labels())]
pub struct SchedParseError(pub String);

impl fmt::Display for SchedKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SchedKind::Fcfs => f.write_str("fcfs"),
            SchedKind::OutOfOrder => f.write_str("oo"),
            SchedKind::Oocb(k) => write!(f, "oocb:{k}"),
            SchedKind::OocbIncl(k) => write!(f, "oocb-incl:{k}"),
            SchedKind::OocbHead(k) => write!(f, "oocb-head:{k}"),
            SchedKind::Window(k) => write!(f, "window:{k}"),
            SchedKind::Delay => f.write_str("delay"),
            SchedKind::DelayCount => f.write_str("delay:count"),
            SchedKind::BypassQueue(t) if t.is_infinite() => f.write_str("bq:inf"),
            SchedKind::BypassQueue(t) => write!(f, "bq:{t}"),
            SchedKind::Lazy => f.write_str("lazy"),
            SchedKind::LazyFixed(t) => write!(f, "lazy:{t}"),
            SchedKind::LazyDeadline => f.write_str("lazy:deadline"),
            SchedKind::ScanUp(r) => scan_label(f, "scan-up", r),
            SchedKind::ScanDown(r) => scan_label(f, "scan-down", r),
            SchedKind::Static => f.write_str("static"),
            SchedKind::Gang(p) => write!(f, "{p}"),
            SchedKind::LargestFirst(r) => write!(f, "largest-first:{r}"),
            SchedKind::Easy => f.write_str("easy"),
            SchedKind::EasySjbf => f.write_str("easy:sjbf"),
            SchedKind::Conservative => f.write_str("conservative"),
        }
    }
}

/// `scan-up` / `scan-down`, then `:` and the reading's non-default options, if any.
fn scan_label(f: &mut fmt::Formatter<'_>, name: &str, r: &ScanReading) -> fmt::Result {
    let options = r.to_string();
    if options.is_empty() {
        f.write_str(name)
    } else {
        write!(f, "{name}:{options}")
    }
}

impl FromStr for SchedKind {
    type Err = SchedParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || SchedParseError(s.to_string());
        let count = |a: &str| a.parse::<u32>().ok().filter(|&k| k >= 1).ok_or_else(bad);
        match s.trim().split_once(':') {
            None => match s.trim() {
                "fcfs" => Ok(SchedKind::Fcfs),
                "oo" => Ok(SchedKind::OutOfOrder),
                "delay" => Ok(SchedKind::Delay),
                "lazy" => Ok(SchedKind::Lazy),
                "scan-up" => Ok(SchedKind::ScanUp(ScanReading::default())),
                "scan-down" => Ok(SchedKind::ScanDown(ScanReading::default())),
                "static" => Ok(SchedKind::Static),
                "gang" => Ok(SchedKind::Gang(GangParams::default())),
                "largest-first" => Ok(SchedKind::LargestFirst(GangParams::RETRY)),
                "easy" => Ok(SchedKind::Easy),
                "conservative" => Ok(SchedKind::Conservative),
                _ => Err(bad()),
            },
            Some(("oocb", k)) => k.parse::<u32>().map(SchedKind::Oocb).map_err(|_| bad()),
            Some(("oocb-incl", k)) => Ok(SchedKind::OocbIncl(count(k)?)),
            Some(("oocb-head", k)) => k.parse::<u32>().map(SchedKind::OocbHead).map_err(|_| bad()),
            Some(("delay", "count")) => Ok(SchedKind::DelayCount),
            Some(("easy", "sjbf")) => Ok(SchedKind::EasySjbf),
            Some(("window", k)) => Ok(SchedKind::Window(count(k)?)),
            Some(("bq", "inf")) => Ok(SchedKind::BypassQueue(SimTime::INFINITY)),
            Some(("bq", t)) => t
                .parse::<SimTime>()
                .ok()
                .filter(|t| *t >= 0.0 && t.is_finite())
                .map(SchedKind::BypassQueue)
                .ok_or_else(bad),
            Some(("lazy", "deadline")) => Ok(SchedKind::LazyDeadline),
            Some(("lazy", t)) => t
                .parse::<SimTime>()
                .ok()
                .filter(|t| *t >= 0.0 && t.is_finite())
                .map(SchedKind::LazyFixed)
                .ok_or_else(bad),
            Some(("scan-up", args)) => ScanReading::parse_args(args)
                .map(SchedKind::ScanUp)
                .ok_or_else(bad),
            Some(("scan-down", args)) => ScanReading::parse_args(args)
                .map(SchedKind::ScanDown)
                .ok_or_else(bad),
            Some(("gang", args)) => GangParams::parse_args(args)
                .map(SchedKind::Gang)
                .ok_or_else(bad),
            Some(("largest-first", r)) => r
                .parse::<u32>()
                .map(SchedKind::LargestFirst)
                .map_err(|_| bad()),
            Some(_) => Err(bad()),
        }
    }
}

impl SchedKind {
    /// The line of [`SCHEDULERS`] that describes this kind.
    pub fn info(self) -> &'static SchedInfo {
        let i = match self {
            SchedKind::Fcfs => 0,
            SchedKind::OutOfOrder => 1,
            SchedKind::Oocb(_) => 2,
            SchedKind::OocbIncl(_) => 3,
            SchedKind::OocbHead(_) => 4,
            SchedKind::Window(_) => 5,
            SchedKind::Delay => 6,
            SchedKind::DelayCount => 7,
            SchedKind::BypassQueue(_) => 8,
            SchedKind::Lazy => 9,
            SchedKind::LazyFixed(_) => 10,
            SchedKind::LazyDeadline => 11,
            SchedKind::ScanUp(_) => 12,
            SchedKind::ScanDown(_) => 13,
            SchedKind::Static => 14,
            SchedKind::Gang(_) => 15,
            SchedKind::LargestFirst(_) => 16,
            SchedKind::Easy => 17,
            SchedKind::EasySjbf => 18,
            SchedKind::Conservative => 19,
        };
        &SCHEDULERS[i]
    }

    /// The scheduler for a run of `w`: parameters that depend on the workload resolved
    /// (`gang:slice=median`, [`GangParams::for_workload`]); every other kind as it is.
    pub fn for_workload(self, w: &crate::workload::Workload) -> SchedKind {
        match self {
            SchedKind::Gang(p) => SchedKind::Gang(p.for_workload(w)),
            other => other,
        }
    }

    /// Builds the policy, with an empty queue.
    pub fn build(self) -> Box<dyn Scheduler> {
        match self {
            SchedKind::Fcfs => Box::new(fcfs::Fcfs::new(fcfs::FcfsRule)),
            SchedKind::OutOfOrder => {
                Box::new(out_of_order::OutOfOrder::new(out_of_order::OutOfOrderRule))
            }
            SchedKind::Oocb(k) => Box::new(oocb::oocb(oocb::Counter::Job, k)),
            SchedKind::OocbIncl(k) => Box::new(oocb::oocb(oocb::Counter::Job, k.saturating_sub(1))),
            SchedKind::OocbHead(k) => Box::new(oocb::oocb(oocb::Counter::Head, k)),
            SchedKind::Window(k) => Box::new(window_k::WindowK::new(k)),
            SchedKind::Delay => Box::new(delay::delay(delay::Reading::Time)),
            SchedKind::DelayCount => Box::new(delay::delay(delay::Reading::Count)),
            SchedKind::BypassQueue(t) => Box::new(bypass_queue::bypass_queue(t)),
            SchedKind::Lazy => Box::new(lazy::Lazy::new(lazy::Threshold::Dynamic)),
            SchedKind::LazyFixed(t) => Box::new(lazy::Lazy::new(lazy::Threshold::Fixed(t))),
            SchedKind::LazyDeadline => {
                Box::new(lazy::Lazy::with_deadline(lazy::Threshold::Dynamic))
            }
            SchedKind::ScanUp(r) => Box::new(scan::Scan::new(scan::Direction::Up, r)),
            SchedKind::ScanDown(r) => Box::new(scan::Scan::new(scan::Direction::Down, r)),
            SchedKind::Static => Box::new(static_partition::StaticPartition::default()),
            SchedKind::Gang(p) => Box::new(gang::Gang::new(p)),
            SchedKind::LargestFirst(r) => Box::new(largest_first::LargestFirst::new(r)),
            SchedKind::Easy => Box::new(easy::Easy::new(easy::Order::Arrival)),
            SchedKind::EasySjbf => Box::new(easy::Easy::new(easy::Order::ShortestFirst)),
            SchedKind::Conservative => Box::<conservative::Conservative>::default(),
        }
    }
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    #[test]
    fn every_line_of_the_registry_parses_back_to_its_own_kind() {
        for (i, info) in SCHEDULERS.iter().enumerate() {
            let kind: SchedKind = info.example.parse().expect(info.example);
            assert_eq!(kind.info(), info, "{}", info.example);
            let first = SCHEDULERS.iter().position(|o| o.syntax == info.syntax);
            assert_eq!(first, Some(i), "{} listed twice", info.syntax);
            assert_eq!(
                kind.to_string().parse::<SchedKind>(),
                Ok(kind),
                "{kind} round trip"
            );
        }
    }

    #[test]
    fn the_parse_error_lists_every_scheduler() {
        let e = "nope".parse::<SchedKind>().unwrap_err().to_string();
        for info in SCHEDULERS {
            assert!(e.contains(info.syntax), "{} missing from: {e}", info.syntax);
        }
    }
}
