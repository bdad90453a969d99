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

use super::backfill::DeferredPass;
use std::cmp::Ordering;
use std::collections::HashMap;

use super::plan::RunningJob;
use super::{Scheduler, System};
use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::{Placement, Request};
use crate::workload::JobId;

/// Conservative backfilling.
#[derive(Debug, Default)]
pub(crate) struct Conservative {
    /// Waiting jobs in arrival order, with their reservations.
    waiting: Vec<Waiting>,
    pass: DeferredPass,
    /// When each running job started (to tell an early or late end from an end on estimate).
    started: HashMap<JobId, SimTime>,
    /// A job ended off its estimate, or a due start failed: the next pass re-plans everything.
    replan: bool,
}

/// A waiting job and its reservation (none before its first pass).
#[derive(Debug, Clone, Copy)]
struct Waiting {
    job: JobId,
    slot: Option<Slot>,
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
    fn cmp(&self, other: &Moment) -> Ordering {
        self.at
            .total_cmp(&other.at)
            .then(self.stage.cmp(&other.stage))
    }
}

/// A reservation: when (with its stage) and where.
#[derive(Debug, Clone, Copy, PartialEq)]
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

/// One change of the planned machine.
#[derive(Debug, Clone, Copy)]
struct Step {
    when: Moment,
    change: Change,
    /// The waiting job whose reservation this is (`None`: a running job's release).
    owner: Option<JobId>,
    placement: Placement,
}

impl Step {
    fn cmp(&self, other: &Step) -> Ordering {
        self.when
            .cmp(&other.when)
            .then(self.change.cmp(&other.change))
    }
}

/// The planned machine from now on: the state now and its changes in order (by moment, then
/// [`Change`], then insertion).
struct Profile {
    now: SimTime,
    base: Box<dyn Allocator>,
    steps: Vec<Step>,
}

impl Profile {
    /// The machine now (`base`) with the running jobs' releases.
    fn new(now: SimTime, base: Box<dyn Allocator>, running: &[RunningJob]) -> Self {
        let mut p = Profile {
            now,
            base,
            steps: Vec::with_capacity(2 * running.len()),
        };
        // Already in order (time, then job): appending keeps the profile sorted.
        for (at, _, placement) in super::plan::ends_in_order(now, running) {
            p.steps.push(Step {
                when: Moment { at, stage: 0 },
                change: Change::Release,
                owner: None,
                placement,
            });
        }
        p
    }

    /// Inserts a step after every step that does not come after it.
    fn push(&mut self, step: Step) {
        let i = self
            .steps
            .partition_point(|s| s.cmp(&step) != Ordering::Greater);
        self.steps.insert(i, step);
    }

    /// Adds `owner`'s reservation of `length` seconds. A reservation already due that could not
    /// start (on the nodes of an overrunning job) keeps only its part from now on, and is dropped
    /// once over.
    fn reserve(&mut self, owner: JobId, slot: Slot, length: SimTime) {
        self.add(owner, slot, length, true);
    }

    /// [`Profile::reserve`], the steps inserted in order or (`sorted` false) appended.
    fn add(&mut self, owner: JobId, slot: Slot, length: SimTime, sorted: bool) {
        let mut start = slot.when;
        if start.at < self.now {
            start = Moment {
                at: self.now,
                stage: 0,
            };
        }
        let end = slot.when.at + length;
        let release = match end.total_cmp(&start.at) {
            Ordering::Less => return,
            Ordering::Equal if slot.when.at < self.now => return,
            Ordering::Equal => (start, Change::ReleaseInstant),
            Ordering::Greater => (Moment { at: end, stage: 0 }, Change::Release),
        };
        let step = |when, change| Step {
            when,
            change,
            owner: Some(owner),
            placement: slot.placement,
        };
        self.place(step(start, Change::Take), sorted);
        self.place(step(release.0, release.1), sorted);
    }

    /// Inserts `step` in order, or appends it when `sorted` is false (the caller sorts later).
    fn place(&mut self, step: Step, sorted: bool) {
        if sorted {
            self.push(step);
        } else {
            self.steps.push(step);
        }
    }

    /// Adds many reservations at once (one sort instead of an insertion each).
    fn reserve_all(&mut self, slots: impl Iterator<Item = (JobId, Slot, SimTime)>) {
        let before = self.steps.len();
        for (owner, slot, length) in slots {
            self.add(owner, slot, length, false);
        }
        if self.steps.len() > before {
            self.steps.sort_by(Step::cmp); // stable: equal keys keep insertion order
        }
    }

    /// Removes `owner`'s reservation.
    fn cancel(&mut self, owner: JobId) {
        self.steps.retain(|s| s.owner != Some(owner));
    }

    /// The earliest slot of `req` for `length` seconds; `previous` is tried after the allocator's
    /// choice at each candidate moment. `None` only when it fits nowhere once everything has ended.
    fn earliest(
        &self,
        req: &Request,
        length: SimTime,
        previous: Option<Placement>,
    ) -> Option<Slot> {
        let mut state = self.base.snapshot();
        let mut stale = Vec::new();
        let mut k = 0;
        let mut when = Moment {
            at: self.now,
            stage: 0,
        };
        loop {
            // The plan at `when`: every earlier step, and the releases and takes of `when`.
            while self.steps.get(k).is_some_and(|s| match s.when.cmp(&when) {
                Ordering::Less => true,
                Ordering::Equal => s.change != Change::ReleaseInstant,
                Ordering::Greater => false,
            }) {
                apply(state.as_mut(), &self.steps[k], &mut stale);
                k += 1;
            }
            let chosen = state.find(req);
            let old = previous.filter(|p| Some(*p) != chosen && state.is_free(p));
            let mut clash = None;
            for p in chosen.into_iter().chain(old) {
                match self.stays_free(state.as_ref(), &stale, k, when.at + length, &p) {
                    Ok(()) => return Some(Slot { when, placement: p }),
                    Err(at) => clash = Some((p, at)),
                }
            }
            when = match clash {
                // Node counts: every start up to the clash has it in its window, so skip there.
                Some((Placement::Nodes(_), at)) if old.is_none() => at,
                _ => self.next_moment(k, when)?,
            };
        }
    }

    /// The candidate moment after `when`, given the steps from `k` on: the next stage of the same
    /// instant when instant releases are pending there, else the next step's moment.
    fn next_moment(&self, k: usize, when: Moment) -> Option<Moment> {
        let next = self.steps.get(k)?;
        if next.when == when {
            return Some(Moment {
                at: when.at,
                stage: when.stage + 1,
            });
        }
        Some(next.when)
    }

    /// Whether `p`, free in `state` (the plan just before step `k`, with the `stale` reservations left
    /// out), stays free until `end`; else the moment of the first take that clashes with it.
    fn stays_free(
        &self,
        state: &dyn Allocator,
        stale: &[JobId],
        k: usize,
        end: SimTime,
        p: &Placement,
    ) -> Result<(), Moment> {
        let window = &self.steps[k..];
        let n = window.partition_point(|s| s.when.at < end);
        let window = &window[..n];
        if !window.iter().any(|s| s.change == Change::Take) {
            return Ok(());
        }
        let (mut probe, mut stale) = (state.snapshot(), stale.to_vec());
        for s in window {
            apply(probe.as_mut(), s, &mut stale);
            if s.change == Change::Take && !probe.is_free(p) {
                return Err(s.when);
            }
        }
        Ok(())
    }
}

/// Applies one step to a planned state. A take whose placement is not free there is left out (and
/// so is its release), its owner recorded in `stale`: on an allocator whose free set depends on the
/// order of past allocations (buddy-like semitorus pieces that merge back only when all siblings
/// are free), replaying reservations made in another order can leave a placement split across
/// pieces. The engine checks every real start, so a stale reservation costs only planning quality.
fn apply(state: &mut dyn Allocator, s: &Step, stale: &mut Vec<JobId>) {
    match (s.change, s.owner) {
        (Change::Take, owner) if !state.is_free(&s.placement) => stale.extend(owner),
        (Change::Take, _) => state.occupy(&s.placement),
        (Change::Release | Change::ReleaseInstant, Some(owner)) if stale.contains(&owner) => {
            stale.retain(|&o| o != owner);
        }
        (Change::Release | Change::ReleaseInstant, _) => state.vacate(&s.placement),
    }
}

impl Conservative {
    /// The pass of one instant. After a job ended off its estimate, every reservation is compressed
    /// in arrival order; otherwise the reservations stand (nothing they were planned on changed) and
    /// only newcomers are planned. Due jobs start.
    fn run(&mut self, sys: &mut dyn System) {
        let now = sys.now();
        let replan = std::mem::take(&mut self.replan);
        let mut profile = Profile::new(now, sys.snapshot(), &sys.running_jobs());
        profile.reserve_all(
            self.waiting
                .iter()
                .filter_map(|w| w.slot.map(|slot| (w.job, slot, sys.job(w.job).estimate))),
        );
        let waiting = std::mem::take(&mut self.waiting);
        for mut w in waiting {
            // A slot at a later stage of an instant now reached is re-planned at this stage.
            let staged = w.slot.is_some_and(|s| s.when.at <= now && s.when.stage > 0);
            if replan || staged || w.slot.is_none() {
                self.plan(&mut w, &mut profile, sys);
            }
            let Some(slot) = w.slot else {
                self.waiting.push(w);
                continue;
            };
            // A slot at a later stage of this instant waits for that stage's pass.
            if slot.when.at <= now && slot.when.stage == 0 {
                if sys.try_start_on(w.job, slot.placement) {
                    self.started.insert(w.job, now);
                    continue;
                }
                self.replan = true;
            }
            sys.promise(w.job, slot.when.at);
            self.waiting.push(w);
        }
        let next = self
            .waiting
            .iter()
            .filter_map(|w| w.slot)
            .map(|s| s.when.at);
        if let Some(at) = next.filter(|&t| t > now).min_by(SimTime::total_cmp) {
            self.pass.wake_at(at, sys);
        }
    }

    /// Moves `w`'s reservation to the earliest slot the profile leaves it.
    fn plan(&self, w: &mut Waiting, profile: &mut Profile, sys: &dyn System) {
        let job = sys.job(w.job);
        let (req, length) = (job.request, job.estimate);
        profile.cancel(w.job);
        if let Some(slot) = profile.earliest(&req, length, w.slot.map(|s| s.placement)) {
            profile.reserve(w.job, slot, length);
            w.slot = Some(slot);
        }
    }
}

impl Scheduler for Conservative {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.waiting.push(Waiting { job, slot: None });
        self.pass.arm(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        let now = sys.now();
        for id in sys.departed() {
            if let Some(start) = self.started.remove(id) {
                self.replan |= start + sys.job(*id).estimate != now;
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
