//! The general plan: the machine now as an allocator snapshot and its planned changes in order; a
//! candidate slot is checked by replaying the changes on further snapshots. Works on every allocator.

use std::cmp::Ordering;

use super::{Change, Moment, Slot, span};
use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::{Placement, Request};
use crate::sched::plan::{RunningJob, ends_in_order};
use crate::workload::JobId;

/// One change of the planned machine.
#[derive(Debug, Clone)]
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
pub(super) struct Profile {
    now: SimTime,
    base: Box<dyn Allocator>,
    steps: Vec<Step>,
}

impl Profile {
    /// The machine now (`base`) with the running jobs' releases.
    pub(super) fn new(now: SimTime, base: Box<dyn Allocator>, running: &[RunningJob]) -> Self {
        let mut p = Profile {
            now,
            base,
            steps: Vec::with_capacity(2 * running.len()),
        };
        // Already in order (time, then job): appending keeps the profile sorted.
        for (at, _, placement) in ends_in_order(now, running) {
            p.steps.push(Step {
                when: Moment::start_of(at),
                change: Change::Release,
                owner: None,
                placement,
            });
        }
        p
    }

    /// Adds many reservations at once, in the order given (one sort instead of an insertion each):
    /// `(owner, slot, length)`.
    pub(super) fn reserve_all(&mut self, slots: impl Iterator<Item = (JobId, Slot, SimTime)>) {
        let before = self.steps.len();
        for (owner, slot, length) in slots {
            for (when, change) in span(&slot, length, self.now).into_iter().flatten() {
                self.steps.push(Step {
                    when,
                    change,
                    owner: Some(owner),
                    placement: slot.placement.clone(),
                });
            }
        }
        if self.steps.len() > before {
            self.steps.sort_by(Step::cmp); // stable: equal keys keep insertion order
        }
    }

    /// Takes `owner`'s reservation (`slot`, none yet for a newcomer) out and puts it back at the
    /// earliest slot the profile leaves for `req` over `length` seconds; `None` (and no reservation)
    /// only when it fits nowhere once everything has ended.
    pub(super) fn replan(
        &mut self,
        owner: JobId,
        req: &Request,
        length: SimTime,
        slot: Option<&Slot>,
    ) -> Option<Slot> {
        self.steps.retain(|s| s.owner != Some(owner));
        let found = self.earliest(req, length, slot.map(|s| &s.placement))?;
        for (when, change) in span(&found, length, self.now).into_iter().flatten() {
            self.push(Step {
                when,
                change,
                owner: Some(owner),
                placement: found.placement.clone(),
            });
        }
        Some(found)
    }

    /// Inserts a step after every step that does not come after it.
    fn push(&mut self, step: Step) {
        let i = self
            .steps
            .partition_point(|s| s.cmp(&step) != Ordering::Greater);
        self.steps.insert(i, step);
    }

    /// The earliest slot of `req` for `length` seconds; `previous` is tried after the allocator's
    /// choice at each candidate moment. `None` only when it fits nowhere once everything has ended.
    fn earliest(
        &self,
        req: &Request,
        length: SimTime,
        previous: Option<&Placement>,
    ) -> Option<Slot> {
        let mut state = self.base.snapshot();
        let mut stale = Vec::new();
        let mut k = 0;
        let mut when = Moment::start_of(self.now);
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
            let old = previous
                .filter(|&p| Some(p) != chosen.as_ref() && state.is_free(p))
                .cloned();
            let tries_old = old.is_some();
            let mut clash = None;
            for p in chosen.into_iter().chain(old) {
                match self.stays_free(state.as_ref(), &stale, k, when.at + length, &p) {
                    Ok(()) => return Some(Slot { when, placement: p }),
                    Err(at) => clash = Some((p, at)),
                }
            }
            when = match clash {
                // Node counts: every start up to the clash has it in its window, so skip there.
                Some((Placement::Nodes(_), at)) if !tries_old => at,
                _ => next_moment(self.steps.get(k).map(|s| s.when), when)?,
            };
        }
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

/// The candidate moment after `when` in a plan whose next change is at `next` (`None`: no change is
/// left): the next stage of the same instant when instant releases are pending there, else `next`.
fn next_moment(next: Option<Moment>, when: Moment) -> Option<Moment> {
    let next = next?;
    if next == when {
        return Some(Moment {
            at: when.at,
            stage: when.stage + 1,
        });
    }
    Some(next)
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
