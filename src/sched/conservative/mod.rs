//! Conservative backfilling (Mu'alem & Feitelson, IEEE TPDS 12(6), 2001, §2): every waiting job holds
//! a reservation, made in arrival order; a job starts early only where it delays no reservation.
//!
//! A reservation is a start time and a placement. The plan is a *profile*: the machine now, the
//! running jobs' releases at their estimated ends (an overrunning job's at "now") and, for each
//! reservation, its placement taken at its start and released at start + estimate. One pass per
//! instant (see [`backfill`](super::backfill)) goes over the waiting jobs in arrival order and, for
//! each, takes its reservation out of the profile and puts it back at the earliest slot the profile
//! leaves (compression): since its old slot is still free, a reservation never moves later unless a
//! running job overran its estimate. A job whose slot is now starts on its reserved placement.
//!
//! Finding a slot (docs/ALGORITHMS.md, "Backfilling on topologies"): candidate start times are now and
//! every later change of the profile, in order; at each, the candidates are the placement the
//! allocator chooses on the machine as planned then, and the job's previous placement; the first that
//! stays free until the job's estimated end (checked after each reservation that starts inside that
//! window) is taken. On a flat machine placements are node counts and this is the textbook free-node
//! profile.
//!
//! Under a [queue order](super::order) (`conservative:order=O`) the passes visit the waiting jobs
//! in rank order instead, values recomputed at each pass (a static order's computed once, at
//! arrival): reservations are made (for the jobs that arrived together) and re-made at
//! compression in that order, each still at the earliest slot the others' reservations leave, so
//! none ever moves later (docs/ALGORITHMS.md, "Queue orders").
//! A pass that compresses ranks the whole queue; one that only plans newcomers ranks the jobs from
//! the first without a reservation on (the others keep theirs whatever their rank).
//!
//! Two plans answer these questions: [`profile`] on any allocator, with allocator snapshots, and
//! [`counts`] on an allocator of interchangeable nodes
//! ([`Allocator::counts_nodes`](crate::machine::Allocator::counts_nodes)), with integer
//! free counts kept from pass to pass. They give the same slots; the count plan gets there without
//! snapshots and without re-planning a reservation that provably cannot move.

pub mod counts;
mod profile;

use std::cmp::Ordering;

use rustc_hash::FxHashMap;

use super::backfill::{BACKFILL_COST, DeferredPass};
use super::label::Form;
use super::order::{Facts, OrderName, Rank, Ranking, rank};
use super::ordered::{order_args, read_order};
use super::{Scheduler, System};
use crate::SimTime;
use crate::resource::{Placement, Request};
use crate::workload::JobId;
use counts::Counts;
use profile::Profile;

/// Conservative backfilling.
#[derive(Debug, Default)]
pub(crate) struct Conservative {
    /// Waiting jobs in arrival order, with their reservations.
    waiting: Vec<Waiting>,
    pass: DeferredPass,
    /// When each running job started (to tell an early or late end from an end on estimate).
    started: FxHashMap<JobId, SimTime>,
    /// A job ended off its estimate, or a due start failed: the next pass re-plans everything.
    replan: bool,
    /// The first `quiet` waiting jobs have slots, none of them before `quiet_until`: a pass that
    /// re-plans nothing before then has nothing to do for them.
    quiet: usize,
    quiet_until: SimTime,
    /// Which plan the allocator allows, found at the first pass.
    mode: Mode,
    /// The queue order, when not arrival order.
    ranking: Option<Box<Ranking>>,
}

/// The plan a run uses.
#[derive(Debug, Clone, Default)]
enum Mode {
    /// Not known before the first pass.
    #[default]
    Unknown,
    /// Allocator snapshots ([`profile`]).
    General,
    /// Node counts ([`counts`]), with the plan carried from pass to pass.
    Counts(Box<Counts>),
}

/// A waiting job, what the passes read of it (copied at arrival), and its reservation (none before
/// its first pass).
#[derive(Debug, Clone)]
struct Waiting {
    job: JobId,
    req: Request,
    estimate: SimTime,
    slot: Option<Slot>,
    /// The engine has its first promise.
    promised: bool,
    /// What the count plan remembers of the reservation.
    memo: counts::Memo,
    /// What the queue order reads of the job (under a queue order).
    facts: Option<Facts>,
}

/// A point of the plan: a time and, within that instant, a *stage*. Stage 0 is the first pass of the
/// instant; stage `s + 1` comes after the jobs of length 0 taken at stage `s` have ended again (the
/// engine's further departure batch and pass at the same instant).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Moment {
    at: SimTime,
    stage: u32,
}

impl Moment {
    /// Stage 0 of `at`.
    fn start_of(at: SimTime) -> Self {
        Moment { at, stage: 0 }
    }

    /// By time, then stage. Plain comparisons of times: a plan's times are never NaN.
    fn cmp(&self, other: &Moment) -> Ordering {
        if self.at < other.at {
            Ordering::Less
        } else if self.at > other.at {
            Ordering::Greater
        } else {
            self.stage.cmp(&other.stage)
        }
    }
}

/// A reservation: when (with its stage) and where.
#[derive(Debug, Clone, PartialEq)]
struct Slot {
    when: Moment,
    placement: Placement,
}

/// What a step does, in the order the steps of one moment apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Change {
    /// A job ends: its placement is given back.
    Release,
    /// A reservation starts: its placement is taken.
    Take,
    /// A reservation of length 0 ends at its own start: its placement is given back after every take
    /// of the moment (its nodes are free again from the next stage on).
    ReleaseInstant,
}

/// The take and the release of a reservation at `slot` of `length` seconds, as planned at `now`. A
/// reservation already due that could not start (on the nodes of an overrunning job) keeps only its
/// part from now on, and is dropped (`None`) once over.
fn span(slot: &Slot, length: SimTime, now: SimTime) -> Option<[(Moment, Change); 2]> {
    let start = if slot.when.at < now {
        Moment::start_of(now)
    } else {
        slot.when
    };
    let end = slot.when.at + length;
    let release = match end.total_cmp(&start.at) {
        Ordering::Less => return None,
        Ordering::Equal if slot.when.at < now => return None,
        Ordering::Equal => (start, Change::ReleaseInstant),
        Ordering::Greater => (Moment::start_of(end), Change::Release),
    };
    Some([(start, Change::Take), release])
}

/// The plan of one pass.
enum Plan {
    General(Profile),
    Counts(counts::Plan),
}

impl Plan {
    /// Moves `w`'s reservation to the earliest slot the plan leaves it (unchanged when it fits
    /// nowhere).
    fn replan(&mut self, w: &mut Waiting) {
        let slot = match self {
            Plan::General(p) => p.replan(w.job, &w.req, w.estimate, w.slot.as_ref()),
            Plan::Counts(p) => p.replan(w.job, &w.req, w.estimate, w.slot.as_ref(), &mut w.memo),
        };
        if slot.is_some() {
            w.slot = slot;
        }
    }
}

impl Conservative {
    /// Conservative backfilling with its queue in the order of `ranking`.
    pub(crate) fn ranked(ranking: Ranking) -> Self {
        Conservative {
            ranking: Some(Box::new(ranking)),
            ..Conservative::default()
        }
    }

    /// Under a queue order, sorts the waiting jobs from position `from` on by rank (ties by job
    /// id: the vector is not in arrival order once sorted).
    fn rank(&mut self, from: usize, now: SimTime) {
        let Some(ranking) = &mut self.ranking else {
            return;
        };
        ranking.begin(now);
        let mut values = Vec::new();
        let facts = (self.waiting[from..].iter())
            .map(|w| w.facts.as_ref().expect("a ranked job has its facts"));
        ranking.values(facts, &mut values);
        let mut ranked: Vec<(Rank, Waiting)> = (self.waiting.drain(from..).zip(values))
            .map(|(w, v)| (rank(v, w.job.index()), w))
            .collect();
        ranked.sort_unstable_by_key(|(r, _)| *r);
        self.waiting.extend(ranked.into_iter().map(|(_, w)| w));
    }

    /// The pass of one instant. After a job ended off its estimate, every reservation is compressed
    /// in arrival order; otherwise the reservations stand (nothing they were planned on changed) and
    /// only newcomers are planned. Due jobs start.
    fn run(&mut self, sys: &mut dyn System) {
        let now = sys.now();
        let replan = std::mem::take(&mut self.replan);
        // The quiet jobs keep their slots and none of them is due: the pass starts after them.
        let skip = if replan || self.quiet_until <= now {
            0
        } else {
            self.quiet
        };
        self.rank(skip, now);
        let mut plan = self.plan(sys);
        let mut started = Vec::new();
        // The earliest slot after now (none: infinite).
        let mut wake = if skip > 0 {
            self.quiet_until
        } else {
            SimTime::INFINITY
        };
        // The jobs kept, the first of them without a slot, and the earliest slot before it.
        let mut kept = skip;
        let mut unplanned = None;
        let mut quiet_until = wake;
        for i in skip..self.waiting.len() {
            let w = &mut self.waiting[i];
            // A slot at a later stage of an instant now reached is re-planned at this stage.
            let staged = w
                .slot
                .as_ref()
                .is_some_and(|s| s.when.at <= now && s.when.stage > 0);
            if replan || staged || w.slot.is_none() {
                plan.replan(w);
            }
            if let Some(slot) = &w.slot {
                let at = slot.when.at;
                // A slot at a later stage of this instant waits for that stage's pass.
                if at <= now && slot.when.stage == 0 {
                    if sys.try_start_on(w.job, slot.placement.clone()) {
                        if let (Some(r), Some(f)) = (&mut self.ranking, &w.facts) {
                            r.started(f, now);
                        }
                        self.started.insert(w.job, now);
                        started.push((w.job, now + w.estimate));
                        continue;
                    }
                    self.replan = true;
                }
                if !w.promised {
                    // The engine keeps the first promise only.
                    sys.promise(w.job, at);
                    w.promised = true;
                }
                if at > now && at < wake {
                    wake = at;
                }
                if unplanned.is_none() && at < quiet_until {
                    quiet_until = at;
                }
            } else {
                unplanned.get_or_insert(kept);
            }
            if kept < i {
                self.waiting.swap(kept, i);
            }
            kept += 1;
        }
        self.waiting.truncate(kept);
        self.quiet = unplanned.unwrap_or(kept);
        self.quiet_until = quiet_until;
        if let (Mode::Counts(kept), Plan::Counts(plan)) = (&mut self.mode, plan) {
            kept.keep(plan, &started);
        }
        if wake < SimTime::INFINITY {
            self.pass.wake_at(wake, sys);
        }
    }

    /// The plan of this pass: the count plan where the allocator allows it and it reproduces the
    /// general one (see [`counts`]), else the general profile.
    fn plan(&mut self, sys: &dyn System) -> Plan {
        let now = sys.now();
        if let Mode::Unknown = self.mode {
            let base = sys.snapshot();
            let counts = base
                .counts_nodes()
                .then(|| Counts::new(base.machine().nodes()));
            self.mode = counts
                .flatten()
                .map_or(Mode::General, |c| Mode::Counts(Box::new(c)));
        }
        let slots = self
            .waiting
            .iter()
            .filter_map(|w| w.slot.clone().map(|slot| (w.job, slot, w.estimate)));
        if let Mode::Counts(kept) = &mut self.mode {
            // The running jobs are read only when the plan is rebuilt.
            match kept.plan(now, sys.free_nodes(), || sys.running_jobs(), slots.clone()) {
                Some(plan) => return Plan::Counts(plan),
                // The general profile logs no gains: every reservation is looked at next time.
                None => kept.gained(SimTime::INFINITY),
            }
        }
        let mut profile = Profile::new(now, sys.snapshot(), &sys.running_jobs());
        profile.reserve_all(slots);
        Plan::General(profile)
    }
}

impl Scheduler for Conservative {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        let ranking = match &self.ranking {
            Some(r) => Some(Box::new(r.fork()?)),
            None => None,
        };
        Some(Box::new(Conservative {
            waiting: self.waiting.clone(),
            pass: self.pass.clone(),
            started: self.started.clone(),
            replan: self.replan,
            quiet: self.quiet,
            quiet_until: self.quiet_until,
            mode: self.mode.clone(),
            ranking,
        }))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        let facts = (self.ranking.as_mut()).map(|r| r.facts(sys.job(job), &*sys));
        let j = sys.job(job);
        self.waiting.push(Waiting {
            job,
            req: j.request,
            estimate: j.estimate,
            slot: None,
            promised: false,
            memo: counts::Memo::default(),
            facts,
        });
        self.pass.arm(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        if let Some(r) = &mut self.ranking {
            r.departed(&*sys);
        }
        let now = sys.now();
        for id in sys.departed() {
            if let Some(start) = self.started.remove(id) {
                let estimated_end = start + sys.job(*id).estimate;
                self.replan |= estimated_end != now;
                if let Mode::Counts(counts) = &mut self.mode {
                    counts.ended(*id, start, estimated_end, now);
                }
            }
        }
        self.pass.arm(sys);
    }

    fn on_timer(&mut self, token: u64, sys: &mut dyn System) {
        if self.pass.fire(token, sys) {
            self.run(sys);
        }
    }

    fn waiting(&self) -> usize {
        self.waiting.len()
    }
}

/// `conservative`.
pub(in crate::sched) const CONSERVATIVE: Form<()> =
    Form::bare(|_| Box::<Conservative>::default())
        .cost(BACKFILL_COST)
        .estimates(|_| true);
/// `conservative:order=O`: the policy's own build, in arrival order; a replay builds the order with
/// [`SchedKind::build_with`](crate::sched::SchedKind::build_with).
pub(in crate::sched) const ORDERED: Form<OrderName> =
    Form::new(read_order, order_args, |_| (CONSERVATIVE.build)(&())).cost(BACKFILL_COST)
        .estimates(|_| true);
