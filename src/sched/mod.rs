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
//! `largest-first:16`, `gang:slice=600`, `easy`, `easy:sjbf`, `conservative`, and a [queue
//! order](order) for the queue-based ones, `easy:order=wfp3`, `window:240,order=sjf`) follow
//! one grammar, `NAME[:ARG[,ARG…]]` with words and `key=value` pairs ([`label`]); they are parsed
//! into a [`SchedKind`], built with [`SchedKind::build`] (with an order resolved,
//! [`SchedKind::build_with`]), and appear unchanged in every table.
//!
//! # The registry, and adding a scheduler
//!
//! Every scheduler is one line of the `schedulers!` registry below (in the source): its
//! [`SchedKind`] variant (with its parameters' type), the [`Form`](label::Form) that its file
//! defines, and its label syntax, an example and its meaning ([`SCHEDULERS`]). Parsing, printing,
//! [`SchedKind::info`], [`SchedKind::build`], the shard cost ([`SchedKind::cost`]), whether it plans
//! with estimates ([`SchedKind::plans_with_estimates`]) and the papers' name ([`SchedKind::title`])
//! are generated from the lines; help texts, parse errors and the
//! Python `labels()` from [`SCHEDULERS`]. Adding one takes:
//!
//! 1. **A file** `src/sched/<paper_name>.rs` with the policy (a [`Scheduler`]) and a `Form` for
//!    each of its labels, `pub(super) const NAME: Form<P> = Form::new(read, args, build)`: `read`
//!    takes the label's arguments with [`Label`]'s helpers (`bare`, `word`, `count`, `seconds`,
//!    `keyword`, `words`, `pairs`) into `P` (`()` without parameters: `Form::bare(build)`),
//!    `args` writes them back, `build` makes the policy; `.cost(…)` for one much slower than FCFS,
//!    `.title(…)` for the name its paper gives it, `.estimates(…)` for one whose schedule reads
//!    the jobs' run-time estimates (with its parameters, or all of them).
//! 2. **A line** in the registry, in a group named after the file: `/// doc` then `Variant(P) =
//!    NAME, "syntax", "example", "meaning";`.
//!
//! Tests check that every line's example parses back to its own kind and prints as it parses, and
//! that the README's table of policies names every scheduler (its row, with the paper section, is
//! the third thing to write).
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
pub mod label;
pub mod order;
mod ordered;
pub mod plan;
mod queue;
pub mod semantics;

use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::Placement;
use crate::workload::{Job, JobId};

pub use backfill::DeferredPass;
pub use gang::{GangLog, GangParams, gang_with_log};
use label::Label;
use order::{Key, Named, OrderError, OrderName, PriorityConfig};
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
    /// An independent copy of the policy in its current state, which from now on decides as this
    /// one would on the same events (the engine forks a replay to find fair start times,
    /// [`ReplayOptions::fairness`](crate::engine::ReplayOptions::fairness)); `None` for a policy
    /// that cannot be copied (the default: one implemented outside the library).
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        None
    }
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

impl SchedInfo {
    /// The name of the labels of this line (`window`): the syntax up to its arguments.
    pub fn name(&self) -> &'static str {
        let end = self.syntax.find([':', '[']).unwrap_or(self.syntax.len());
        &self.syntax[..end]
    }
}

/// The scheduler registry: the policies' files, each with its lines — `Variant[(Params)] = FORM,
/// "syntax", "example", "meaning"` — where `FORM` is the file's [`Form`] of the line (how the
/// label's arguments read into `Params` and back, and how the policy is built). It declares the
/// modules, the [`SchedKind`] variants and [`SCHEDULERS`], and generates parsing, printing,
/// [`SchedKind::info`], [`SchedKind::build`] and the rest from the forms.
macro_rules! schedulers {
    ($($module:ident {
        $($(#[$doc:meta])* $variant:ident $(($param:ty))? = $form:ident,
            $syntax:literal, $example:literal, $meaning:literal;)+
    })+) => {
        $(mod $module;)+

        /// A scheduler label: one variant per line of the registry (see the module source), its
        /// field the line's parameters.
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub enum SchedKind {
            $($($(#[$doc])* $variant $(($param))?,)+)+
        }

        /// Every scheduler, one line each, in the order of help texts and error messages. Help
        /// texts, parse errors and docs are generated from it; a test checks that every line's
        /// example parses back to its own kind.
        pub const SCHEDULERS: &[SchedInfo] = &[
            $($(SchedInfo { syntax: $syntax, example: $example, meaning: $meaning },)+)+
        ];

        /// The lines of the registry, numbered in order (indices into [`SCHEDULERS`]).
        enum Line {
            $($($variant,)+)+
        }

        impl SchedKind {
            /// The line of [`SCHEDULERS`] that describes this kind.
            pub fn info(&self) -> &'static SchedInfo {
                let line = match self {
                    $($(SchedKind::$variant { .. } => Line::$variant,)+)+
                };
                &SCHEDULERS[line as usize]
            }

            /// The kind `label` reads as: the first line of its name whose form takes its
            /// arguments.
            fn read(label: &Label<'_>) -> Option<SchedKind> {
                $($(
                    if SCHEDULERS[Line::$variant as usize].name() == label.name
                        && let Some(_p) = ($module::$form.read)(label)
                    {
                        return Some(SchedKind::$variant $((field!(_p, $param)))?);
                    }
                )+)+
                None
            }

            /// The arguments of this kind's label.
            fn args(&self) -> Vec<String> {
                match self {
                    $($(SchedKind::$variant $((field!(p, $param)))? =>
                        ($module::$form.args)(params!($(p, $param)?)),)+)+
                }
            }

            /// Builds the policy, with an empty queue.
            pub fn build(&self) -> Box<dyn Scheduler> {
                match self {
                    $($(SchedKind::$variant $((field!(p, $param)))? =>
                        ($module::$form.build)(params!($(p, $param)?)),)+)+
                }
            }

            /// The expected cost of a replay relative to FCFS at the same load: 10 for the
            /// backfilling policies (every event re-plans the queue), else 1
            /// ([`crate::sweep::cell_cost`]).
            pub fn cost(&self) -> f64 {
                match self {
                    $($(SchedKind::$variant { .. } => $module::$form.cost,)+)+
                }
            }

            /// Whether the policy plans with run-time estimates (its form's
            /// [`estimates`](label::Form::estimates): the backfilling ones, `easy`, `easy:sjbf`,
            /// `conservative`). Every other one schedules the same under every estimate model
            /// unless the engine reads them too ([`ReplayOptions::engine_reads_estimates`]); a test
            /// replays each under two models.
            ///
            /// [`ReplayOptions::engine_reads_estimates`]: crate::engine::ReplayOptions::engine_reads_estimates
            pub fn plans_with_estimates(&self) -> bool {
                match self {
                    $($(SchedKind::$variant $((field!(p, $param)))? =>
                        ($module::$form.estimates)(params!($(p, $param)?)),)+)+
                }
            }

            /// The name the papers give the policy (`FCFS`, `OO`, `OOCB-8`, `Window-240`,
            /// `Delay`), where it has one.
            pub fn title(&self) -> Option<String> {
                match self {
                    $($(SchedKind::$variant $((field!(p, $param)))? =>
                        $module::$form.title.map(|t| t(params!($(p, $param)?))),)+)+
                }
            }
        }
    };
}

/// The field of a variant bound to `$p` in a pattern (`$t`, its type, only selects this rule).
macro_rules! field {
    ($p:ident, $t:ty) => {
        $p
    };
}

/// The parameters a form is given: the variant's field, or `()` for a variant without one.
macro_rules! params {
    () => {
        &()
    };
    ($p:ident, $t:ty) => {
        $p
    };
}

schedulers! {
    fcfs {
        /// `fcfs`: strict arrival order.
        Fcfs = FCFS, "fcfs", "fcfs", "first come, first served";
        /// `fcfs:order=O`: strict priority, the top of [queue order](order) `O` while it fits.
        FcfsOrdered(OrderName) = ORDERED, "fcfs:order=O", "fcfs:order=sjf",
            "strict priority: the top of queue order O while it fits";
    }
    out_of_order {
        /// `oo`: aggressive out-of-order; any waiting job that fits starts, in arrival order.
        OutOfOrder = OO, "oo", "oo", "out of order: any waiting job that fits starts";
        /// `oo:order=O`: any waiting job that fits starts, in queue order `O`.
        OutOfOrderOrdered(OrderName) = ORDERED, "oo:order=O", "oo:order=sqf",
            "out of order, the jobs tried in queue order O";
    }
    oocb {
        /// `oocb:k`: out-of-order with constant bound (window-k-mesh.md §2.2, §5): every waiting
        /// job counts the later jobs that overtook it since its arrival, and the head blocks every
        /// later job once it has been overtaken `k` times (`oocb:0` is FCFS).
        Oocb(u32) = OOCB, "oocb:K", "oocb:8",
            "out of order, the head overtaken at most K times (K ≥ 0)";
        /// `oocb-incl:k`: per-job counters as `oocb`, but Max-Bound `k` counts the head's own
        /// allocation: `k − 1` overtakes (`oocb-incl:1` is FCFS, as §5's aside has it).
        OocbIncl(u32) = OOCB_INCL, "oocb-incl:K", "oocb-incl:8",
            "as oocb, K counting the head's own start (K ≥ 1)";
        /// `oocb-head:k`: one counter owned by the head and reset for each new head; `k` overtakes
        /// (`oocb-head:0` is FCFS).
        OocbHead(u32) = OOCB_HEAD, "oocb-head:K", "oocb-head:8",
            "as oocb, one counter owned by the head (K ≥ 0)";
    }
    window_k {
        /// `window:K`: Window-K (window-k-mesh.md §4).
        Window(u32) = WINDOW, "window:K", "window:240",
            "Window-K: the first K waiting jobs, in any order (K ≥ 1)";
        /// `window:K,order=O`: Window-K's window, its jobs tried in queue order `O`.
        WindowOrdered((u32, OrderName)) = ORDERED, "window:K,order=O", "window:240,order=sjf",
            "Window-K, the window's jobs tried in queue order O";
    }
    delay {
        /// `delay`: the head may be bypassed while its own wait is below λ·W (window-k-mesh.md
        /// §2.3, the literal time reading).
        Delay = TIME, "delay", "delay", "the head bypassed while its wait is below λ·W";
        /// `delay:count`: the head may be overtaken at most ⌈λ·W⌉ times (λ·W as a job count,
        /// Little's law).
        DelayCount = COUNT, "delay:count", "delay:count", "the head overtaken at most ⌈λ·W⌉ times";
    }
    bypass_queue {
        /// `bq:T`: bypass queue with threshold time `T` (bypass-queue paper, Fig. 2); `bq:inf`
        /// never blocks.
        BypassQueue(SimTime) = BQ, "bq:SECONDS|bq:inf", "bq:100",
            "bypass queue with a threshold time";
        /// `bq:T,order=O`: the bypass queue over queue order `O`.
        BypassQueueOrdered((SimTime, OrderName)) = ORDERED, "bq:SECONDS,order=O",
            "bq:100,order=xf", "bypass queue, the queue in order O";
    }
    lazy {
        /// `lazy`: lazy scheduling (lazy-scheduling-hypercube.md §3.2), waiting threshold d_t²·λ.
        Lazy = DYNAMIC, "lazy", "lazy", "lazy scheduling, threshold d_t²·λ";
        /// `lazy:T`: lazy scheduling with a fixed waiting threshold of `T` seconds.
        LazyFixed(SimTime) = FIXED, "lazy:SECONDS", "lazy:30", "lazy scheduling, a fixed threshold";
        /// `lazy:deadline`: lazy scheduling, threshold d_t²·λ checked also when the oldest wait
        /// reaches it (not only at releases).
        LazyDeadline = DEADLINE, "lazy:deadline", "lazy:deadline",
            "lazy scheduling, d_t²·λ also enforced when a wait reaches it";
    }
    scan {
        /// `scan-up[:READING]`: scan (Krueger et al., lazy-scheduling-hypercube.md §2.3), towards
        /// larger cubes, under a reading of §2.3 (`join`, `step`, `skip`; [`ScanReading`]).
        ScanUp(ScanReading) = UP, "scan-up[:join,step,skip]", "scan-up",
            "scan towards larger subcubes (a reading of §2.3)";
        /// `scan-down[:READING]`: scan towards smaller cubes.
        ScanDown(ScanReading) = DOWN, "scan-down[:join,step,skip]", "scan-down:join",
            "scan towards smaller subcubes";
    }
    static_partition {
        /// `static`: static partitioning (lazy-scheduling-hypercube.md §3.1).
        Static = STATIC, "static", "static", "static partitioning";
    }
    gang {
        /// `gang[:slice=S,nmax=N,retry=R,switch=C]`: MPJ-CoSched&TS, gang scheduling by time-slice
        /// classes (coscheduling-time-sharing.md §4.2–4.3); `slice=median`: the workload's median
        /// run time ([`GangParams::for_workload`]).
        Gang(GangParams) = GANG, "gang[:slice=S,nmax=N,retry=R,switch=C]", "gang:slice=600",
            "gang scheduling by time-slice classes";
    }
    largest_first {
        /// `largest-first[:R]`: space sharing in descending size with `RetryLim` R (default 16;
        /// the coscheduling report's baseline, §4.4).
        LargestFirst(u32) = LARGEST_FIRST, "largest-first[:R]", "largest-first:16",
            "space sharing, largest first, R retries";
    }
    easy {
        /// `easy`: EASY backfilling, a reservation for the queue head only (Mu'alem & Feitelson
        /// 2001).
        Easy = EASY, "easy", "easy", "EASY backfilling: a reservation for the head";
        /// `easy:sjbf`: EASY with the shortest (estimated) jobs backfilled first (Tsafrir, Etsion
        /// & Feitelson 2007; with `--estimate predict`, their EASY++).
        EasySjbf = SJBF, "easy:sjbf", "easy:sjbf",
            "EASY, the shortest estimated jobs backfilled first";
        /// `easy:order=O`: EASY over queue order `O`: the reservation for its top job that does
        /// not fit, the others backfilled in that order.
        EasyOrdered(OrderName) = ORDERED, "easy:order=O", "easy:order=wfp3",
            "EASY, the queue and the backfilling in order O";
    }
    conservative {
        /// `conservative`: conservative backfilling, a reservation for every waiting job.
        Conservative = CONSERVATIVE, "conservative", "conservative",
            "conservative backfilling: a reservation for every job";
        /// `conservative:order=O`: reservations made and re-made in queue order `O`.
        ConservativeOrdered(OrderName) = ORDERED, "conservative:order=O",
            "conservative:order=sjf", "conservative backfilling, reservations in order O";
    }
}

/// The label syntaxes of [`SCHEDULERS`], comma-separated (for help texts and errors).
pub fn scheduler_labels() -> String {
    SCHEDULERS
        .iter()
        .map(|s| s.syntax)
        .collect::<Vec<_>>()
        .join(", ")
}

/// A scheduler label that could not be read: the registry's labels, and what was likely meant
/// ([`label_hint`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("scheduler `{0}` is not one of {labels}{hint}", labels = scheduler_labels(), hint = label_hint(&self.0))]
pub struct SchedParseError(pub String);

/// What a label that does not read likely meant: for a Python policy (`py:…`), where such series
/// run; for a priority function not written `order=py:PATH:FUNCTION`, how it is; for a known name
/// with the wrong arguments, how that name is written (`; window is written window:K`); else the
/// nearest names (`; did you mean `easy`?`); empty when none is near.
fn label_hint(text: &str) -> String {
    let bad_function = Label::read(text).is_some_and(|l| {
        l.args.iter().any(|a| {
            matches!(a, label::Arg::Pair("order", v)
                if v.starts_with("py:") && order::function_ref(v).is_none())
        })
    });
    if bad_function {
        return format!(
            "; a Python priority function is written order=py:PATH:FUNCTION (PATH without `,` \
             or `;`, FUNCTION a Python identifier, at most {} bytes)",
            OrderName::MAX_FUNCTION
        );
    }
    if text.trim_start().starts_with("py:") {
        return "; a Python policy (py:PATH:Class) is a series of the Python package's sweep \
                (pwa_replay.sweep, docs/PYTHON.md): this engine embeds no Python interpreter"
            .into();
    }
    let name = Label::read(text).map_or(text.trim(), |l| l.name);
    let forms: Vec<&str> = SCHEDULERS
        .iter()
        .filter(|i| i.name() == name)
        .map(|i| i.syntax)
        .collect();
    if !forms.is_empty() {
        return format!("; {name} is written {}", forms.join(" or "));
    }
    crate::suggest::did_you_mean(name, SCHEDULERS.iter().map(SchedInfo::name))
        .map_or_else(String::new, |d| format!("; {d}"))
}

impl fmt::Display for SchedKind {
    /// The label: the name, then the arguments the line's form writes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        label::write(f, self.info().name(), &self.args())
    }
}

impl FromStr for SchedKind {
    type Err = SchedParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Label::read(s)
            .as_ref()
            .and_then(SchedKind::read)
            .ok_or_else(|| SchedParseError(s.to_string()))
    }
}

impl SchedKind {
    /// The scheduler for a run of `w`: parameters that depend on the workload resolved
    /// (`gang:slice=median`, [`GangParams::for_workload`]); every other kind as it is.
    pub fn for_workload(self, w: &crate::workload::Workload) -> SchedKind {
        match self {
            SchedKind::Gang(p) => SchedKind::Gang(p.for_workload(w)),
            other => other,
        }
    }
}

impl SchedKind {
    /// Whether the policy serves its queue in a [queue order](order) (`SCHED:order=O`): FCFS
    /// (strict priority), OO, the bypass queue, Window-K, EASY and conservative backfilling. The
    /// others do not: OOCB-k and Delay bound the overtakes of the oldest job, lazy, scan and
    /// static partitioning keep one queue per cube size, gang scheduling and largest-first order by
    /// size by definition.
    pub fn takes_order(self) -> bool {
        matches!(
            self,
            SchedKind::Fcfs
                | SchedKind::OutOfOrder
                | SchedKind::BypassQueue(_)
                | SchedKind::Window(_)
                | SchedKind::Easy
                | SchedKind::Conservative
        )
    }

    /// The policy in arrival order and the queue order of a label `SCHED:order=O`; `None` for
    /// a label without an order.
    pub fn order(self) -> Option<(SchedKind, OrderName)> {
        Some(match self {
            SchedKind::FcfsOrdered(o) => (SchedKind::Fcfs, o),
            SchedKind::OutOfOrderOrdered(o) => (SchedKind::OutOfOrder, o),
            SchedKind::BypassQueueOrdered((t, o)) => (SchedKind::BypassQueue(t), o),
            SchedKind::WindowOrdered((k, o)) => (SchedKind::Window(k), o),
            SchedKind::EasyOrdered(o) => (SchedKind::Easy, o),
            SchedKind::ConservativeOrdered(o) => (SchedKind::Conservative, o),
            _ => return None,
        })
    }

    /// Builds the policy for a replay of `w` whose orders and priority settings are `config`:
    /// a label's order resolved by name ([`PriorityConfig::resolve`]), its fair-share accounts
    /// the users and groups of `w`. [`SchedKind::build`] builds a label with an order in arrival
    /// order.
    pub fn build_with(
        self,
        w: &crate::workload::Workload,
        config: &PriorityConfig,
    ) -> Result<Box<dyn Scheduler>, OrderError> {
        match self.order() {
            Some((base, name)) => base.build_ordered(config.resolve(name.as_str())?, config, w),
            None => Ok(self.build()),
        }
    }

    /// Checks, before any replay, that the label's queue order (if it names one) is a named
    /// order or one `config` defines, and that its expression compiles: what
    /// [`SchedKind::build_with`] would refuse at the start of a replay, without a workload.
    pub fn check_order(self, config: &PriorityConfig) -> Result<(), OrderError> {
        match self.order() {
            Some((_, name)) => config.resolve(name.as_str()).map(|_| ()),
            None => Ok(()),
        }
    }

    /// Builds the policy with its queue in order `key`, for a replay of `w` (the fair-share
    /// accounts are its users and groups); `fcfs` builds the arrival-order policy itself.
    pub fn build_ordered(
        self,
        key: Key,
        config: &PriorityConfig,
        w: &crate::workload::Workload,
    ) -> Result<Box<dyn Scheduler>, OrderError> {
        if !self.takes_order() {
            return Err(OrderError::NoOrder(self.to_string()));
        }
        if key == Key::Named(Named::Fcfs) {
            return Ok(self.build());
        }
        let ranking = order::Ranking::new(key, config, w)?;
        Ok(match self {
            SchedKind::Fcfs => Box::new(ordered::Ordered::new(fcfs::FcfsRule, ranking)),
            SchedKind::OutOfOrder => {
                Box::new(ordered::Ordered::new(out_of_order::OutOfOrderRule, ranking))
            }
            SchedKind::BypassQueue(t) => Box::new(ordered::Ordered::new(
                bypass_queue::BypassQueueRule::new(t),
                ranking,
            )),
            SchedKind::Window(k) => Box::new(window_k::RankedWindowK::new(k, ranking)),
            SchedKind::Easy => Box::new(easy::Easy::ranked(ranking)),
            _ => Box::new(conservative::Conservative::ranked(ranking)),
        })
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

    /// The README's table of policies has a row for every name of the registry.
    #[test]
    fn the_readme_names_every_scheduler() {
        let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"));
        let table = readme
            .split("## Policies and their papers")
            .nth(1)
            .expect("the README's table of policies");
        // The names in the rows' first cells: `oocb:k`, `oocb-incl:k` → oocb, oocb-incl.
        let named: Vec<&str> = table
            .lines()
            .filter_map(|l| l.strip_prefix('|')?.split('|').next())
            .flat_map(|cell| cell.split('`').skip(1).step_by(2))
            .map(|label| label.split([':', '[']).next().unwrap_or(label))
            .collect();
        for info in SCHEDULERS {
            assert!(
                named.contains(&info.name()),
                "README's policies lack {}",
                info.name()
            );
        }
    }

    #[test]
    fn a_misspelt_name_gets_did_you_mean_and_a_known_name_its_syntax() {
        let e = |s: &str| s.parse::<SchedKind>().unwrap_err().to_string();
        assert!(e("eazy").ends_with("; did you mean `easy` or `lazy`?"));
        assert!(e("conservatve").ends_with("; did you mean `conservative`?"));
        assert!(e("windw:240").ends_with("; did you mean `window`?"));
        let window = "; window is written window:K or window:K,order=O";
        assert!(e("window:ten").ends_with(window), "{}", e("window:ten"));
        let lazy = "; lazy is written lazy or lazy:SECONDS or lazy:deadline";
        assert!(e("lazy:soon").ends_with(lazy), "{}", e("lazy:soon"));
        assert!(
            e("zzz").ends_with(", conservative:order=O"),
            "nothing near: {}",
            e("zzz")
        );
    }

    #[test]
    fn priority_functions_are_written_py_path_function() {
        for label in [
            "easy:order=py:prio.py:score",
            "fcfs:order=py:policies/prio.py:score",
            "conservative:order=py:../a b/prio.py:_score2",
            "window:240,order=py:prio.py:score",
            "bq:100,order=py:C:/users/me/prio.py:score",
        ] {
            let kind: SchedKind = label.parse().expect(label);
            assert_eq!(kind.to_string(), label, "round trip");
            let (_, name) = kind.order().expect("an order");
            assert!(order::function_ref(name.as_str()).is_some(), "{label}");
        }
        let (_, name) = "easy:order=py:C:/p.py:f"
            .parse::<SchedKind>()
            .unwrap()
            .order()
            .unwrap();
        assert_eq!(order::function_ref(name.as_str()), Some(("C:/p.py", "f")));
        let long = format!("easy:order=py:{}.py:f", "d/".repeat(130));
        let e = |s: &str| s.parse::<SchedKind>().unwrap_err().to_string();
        for bad in [
            "easy:order=py:prio.py",
            "easy:order=py::score",
            "easy:order=py:prio.py:2score",
            "easy:order=py:prio.py:sc-ore",
            "easy:order=py:prio.py:",
            long.as_str(),
        ] {
            let e = e(bad);
            assert!(
                e.ends_with("FUNCTION a Python identifier, at most 255 bytes)")
                    && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
        assert!(e("lazy:order=py:prio.py:score").contains("lazy is written"));
        let mut c = order::PriorityConfig::default();
        let e = c.define("py:prio.py:score = wait").unwrap_err().to_string();
        assert!(e.contains("the name must start with a letter"), "{e}");
    }

    #[test]
    fn the_parse_error_lists_every_scheduler() {
        let e = "nope".parse::<SchedKind>().unwrap_err().to_string();
        for info in SCHEDULERS {
            assert!(e.contains(info.syntax), "{} missing from: {e}", info.syntax);
        }
    }
}
