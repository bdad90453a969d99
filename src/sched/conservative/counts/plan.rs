//! The count plan of one pass: the changes of the plan in order with the free nodes after each,
//! and on them the general profile's search for a reservation's earliest slot, with the shortcuts
//! of the module above (a reservation that cannot move, gains, runs, the first run that could
//! hold a window); moves, insertions and cancellations that keep the counts up to date.

use std::cmp::Ordering;

use super::marks::Marks;
use super::runs::Runs;
use super::{Gains, Kept, Memo, Spare, Step, changes};
use crate::SimTime;
use crate::resource::{Placement, Request};
use crate::sched::conservative::{Change, Moment, Slot};
use crate::sched::plan::RunningJob;
use crate::workload::JobId;

/// The count plan of one pass.
pub(in crate::sched::conservative) struct Plan {
    now: Moment,
    /// Free nodes now.
    pub(super) base: i32,
    total: i32,
    /// The changes, by moment then [`Change`].
    pub(super) steps: Vec<Step>,
    /// Free nodes after each change.
    pub(super) after: Vec<i32>,
    /// Scratch space of [`Marks`].
    pub(super) marks: Vec<u64>,
    pub(super) gains: Gains,
    /// The runs of the plan as it stands, by threshold: the first `live_runs`, in order of size
    /// (cut back to the changes that stand when changes move; the others keep their space).
    pub(super) runs: Vec<Runs>,
    live_runs: usize,
    /// Whether every take finds its nodes free and no release exceeds the machine (every count
    /// within the machine), as built.
    pub(super) clean: bool,
}

impl Plan {
    /// A plan carried over from the last pass.
    pub(super) fn carried(now: SimTime, total: i32, kept: Kept, spare: Spare) -> Self {
        Plan {
            now: Moment::start_of(now),
            base: kept.base,
            total,
            steps: kept.steps,
            after: kept.after,
            marks: spare.marks,
            gains: Gains::default(),
            runs: spare.runs,
            live_runs: 0,
            clean: true,
        }
    }

    /// The machine now with the running jobs' releases merged into the `reserved` changes (a
    /// release of a running job before a reservation's change of the same moment and kind).
    pub(super) fn new(
        now: SimTime,
        free: i32,
        total: i32,
        running: &[RunningJob],
        reserved: &[Step],
        spare: Spare,
    ) -> Self {
        // The running jobs come in order of estimated end (`System::running_jobs`), so their
        // releases, overrunning ones at now, are in plan order as they come (the order of
        // releases of one moment does not matter on counts).
        debug_assert!(running.is_sorted_by(|a, b| a.est_end <= b.est_end));
        let releases = running.iter().map(|r| {
            let at = Moment::start_of(r.est_end.max(now));
            Step::new(at, Change::Release, r.job, r.placement.nodes())
        });
        let mut steps = spare.steps;
        steps.clear();
        let mut next = 0;
        for r in releases {
            let from = next;
            while reserved
                .get(next)
                .is_some_and(|s| s.cmp(&r) == Ordering::Less)
            {
                next += 1;
            }
            steps.extend_from_slice(&reserved[from..next]);
            steps.push(r);
        }
        steps.extend_from_slice(&reserved[next..]);
        let after = vec![0; steps.len()];
        let mut plan = Plan {
            now: Moment::start_of(now),
            base: free,
            total,
            after,
            steps,
            marks: spare.marks,
            gains: Gains::default(),
            runs: spare.runs,
            live_runs: 0,
            clean: true,
        };
        plan.recount(0, plan.steps.len());
        plan.clean = plan.within_machine(0..plan.steps.len());
        plan
    }

    /// Recomputes the counts after the changes `from..to`.
    fn recount(&mut self, from: usize, to: usize) {
        self.forget_runs_from(from);
        let mut free = from.checked_sub(1).map_or(self.base, |i| self.after[i]);
        for (s, a) in self.steps[from..to].iter().zip(&mut self.after[from..to]) {
            free += s.delta;
            *a = free;
        }
    }

    /// Whether the counts after the changes `changes` are clean (within the machine).
    fn within_machine(&self, changes: std::ops::Range<usize>) -> bool {
        self.after[changes]
            .iter()
            .all(|a| (0..=self.total).contains(a))
    }

    /// [`Profile::replan`](super::profile::Profile::replan) on counts. A reservation `slot` (not
    /// fallen into the past) moves only to a slot before it, and every such slot shows before its
    /// moment: its own changes stay where they are unless it moves. `seen` is the number of gains
    /// logged when the reservation was last planned, and becomes the number now. The new slot;
    /// `None` when the reservation keeps its slot (or fits nowhere).
    pub(in crate::sched::conservative) fn replan(
        &mut self,
        owner: JobId,
        req: &Request,
        length: SimTime,
        slot: Option<&Slot>,
        memo: &mut Memo,
    ) -> Option<Slot> {
        let slot = self.replan_since(owner, req, length, slot, memo.seen, &mut memo.near);
        memo.seen = self.gains.next;
        slot
    }

    /// [`replan`](Self::replan) for a reservation last planned with `seen` gains logged, whose
    /// changes were last found `near` that index (and are now found there).
    fn replan_since(
        &mut self,
        owner: JobId,
        req: &Request,
        length: SimTime,
        slot: Option<&Slot>,
        seen: u64,
        near: &mut usize,
    ) -> Option<Slot> {
        let n = i32::try_from(req.nodes())
            .ok()
            .filter(|&n| n > 0 && n <= self.total)?;
        let slot_at = |when| Slot {
            when,
            placement: Placement::Nodes(n.unsigned_abs()),
        };
        match slot {
            Some(s) if s.when.cmp(&self.now) != Ordering::Less => {
                // A slot at a later stage of an instant is looked at again whatever the gains.
                let until = if s.when.stage == 0 {
                    self.gains.since(seen).filter(|&end| end > self.now.at)
                } else {
                    Some(SimTime::INFINITY)
                };
                let until = until?;
                let g = self.first_at(s.when, *near);
                *near = g;
                let from = self.may_move(n, length, g, until.min(s.when.at))?;
                let slot = slot_at(self.earliest(n, length, g, until, from)?);
                self.advance(owner, g, slot.clone(), length);
                Some(slot)
            }
            _ => {
                if slot.is_some() {
                    self.cancel(owner);
                }
                let everything = self.steps.len();
                let slot = slot_at(self.earliest(
                    n,
                    length,
                    everything,
                    SimTime::INFINITY,
                    self.now.at,
                )?);
                self.insert(owner, slot.clone(), length);
                Some(slot)
            }
        }
    }

    /// Whether a reservation of `n` nodes for `length` seconds whose first change is `before` may
    /// find a window that starts by `limit` (`None` only when [`earliest`](Self::earliest) finds
    /// none), and if so, a time no such window starts before. A window that fits lies in a run
    /// of changes that leave `n` free and that starts by `limit`: one that lasts `length`, or the
    /// one that reaches the reservation's own take (the window goes on into its own nodes). So
    /// none starts before the first of those runs.
    fn may_move(
        &mut self,
        n: i32,
        length: SimTime,
        before: usize,
        limit: SimTime,
    ) -> Option<SimTime> {
        let reaches_take = before.checked_sub(1).map_or(self.base, |i| self.after[i]) >= n;
        // Durations are compared as differences: a margin for rounding, and no filter at all for
        // windows too short to tell from one.
        let slack = 1e-9 * (limit.abs() + length);
        if length <= 2.0 * slack {
            return Some(self.now.at);
        }
        let needed = length - slack;
        let take = reaches_take.then_some(before);
        // The runs of a smaller size hold those of `n`: when none of them is long enough, no run
        // of `n` is either. The nearest size scanned up to `n` is tried first (few sizes are
        // scanned between two moves: looked for in order).
        let at = self.runs[..self.live_runs]
            .iter()
            .take_while(|r| r.n <= n)
            .count();
        if let Some(nearest) = at.checked_sub(1) {
            let runs = &mut self.runs[nearest];
            if runs.n == n {
                return runs.first_window(&self.steps, &self.after, limit, needed, take);
            }
            if !reaches_take && !runs.hold(&self.steps, &self.after, limit, needed) {
                return None;
            }
        }
        // No runs of `n` scanned yet: they go in at their place by size.
        let spare = self.live_runs;
        if spare == self.runs.len() {
            self.runs.push(Runs::default());
        }
        self.runs[spare].reset(n, self.now.at, self.base);
        self.runs[at..=spare].rotate_right(1);
        self.live_runs += 1;
        self.runs[at].first_window(&self.steps, &self.after, limit, needed, take)
    }

    /// The index of the first change at `at` or later, looked for from index `near` out (a
    /// reservation's changes shift little from pass to pass).
    fn first_at(&self, at: Moment, near: usize) -> usize {
        // Plain comparisons (the plan's times are never NaN), and stages apart: later stages are
        // rare.
        let mut i = gallop(&self.steps, near, |s| s.at < at.at);
        if at.stage > 0 {
            while self
                .steps
                .get(i)
                .is_some_and(|s| s.at == at.at && s.stage < at.stage)
            {
                i += 1;
            }
        }
        i
    }

    /// Cuts the runs back to what the changes before `from` tell (the changes from there on are
    /// about to move or be recounted): a move shifts a few changes in the middle of the plan, and
    /// the runs are scanned on from there rather than from now.
    fn forget_runs_from(&mut self, from: usize) {
        for runs in &mut self.runs[..self.live_runs] {
            runs.truncate(from);
        }
    }

    /// Takes `owner`'s changes out.
    fn cancel(&mut self, owner: JobId) {
        let mine = |s: &Step| s.owner == owner;
        let Some(take) = self.steps.iter().position(mine) else {
            return;
        };
        let release = self.steps[take + 1..]
            .iter()
            .position(mine)
            .map(|i| take + 1 + i);
        let n = -self.steps[take].delta;
        self.gains
            .log(release.map_or(SimTime::INFINITY, |r| self.steps[r].gain_end()));
        let end = release.unwrap_or(self.steps.len());
        self.after[take..end].iter_mut().for_each(|a| *a += n);
        self.forget_runs_from(take);
        for i in release.into_iter().chain([take]) {
            self.steps.remove(i);
            self.after.remove(i);
        }
    }

    /// Moves `owner`'s reservation, whose take is its first change at index `from` or later, to the
    /// earlier `slot`: each change is rotated back to its place, and only the counts from the new
    /// take to the old release change.
    fn advance(&mut self, owner: JobId, from: usize, slot: Slot, length: SimTime) {
        let mine = |s: &Step| s.owner == owner;
        let old_take = from + self.steps[from..].iter().position(mine).expect("its take");
        let old_release =
            old_take + 1 + (self.steps[old_take + 1..].iter().position(mine)).expect("its release");
        let mut new = changes(owner, slot, length, self.now.at);
        let (Some(take), Some(release)) = (new.next(), new.next()) else {
            unreachable!("a slot from now on has a take and a release");
        };
        // The old span is free again up to its release.
        self.gains.log(self.steps[old_release].gain_end());
        // Both changes move earlier (or stay): each goes after the changes before its old place
        // that do not come after it, the take mostly a few places back (looked for from there),
        // the release after the take.
        let first = gallop(&self.steps[..old_take], old_take, |s| {
            s.cmp(&take) != Ordering::Greater
        });
        self.steps[first..=old_take].rotate_right(1);
        self.steps[first] = take;
        let second = first
            + 1
            + self.steps[first + 1..old_release]
                .partition_point(|s| s.cmp(&release) != Ordering::Greater);
        self.steps[second..=old_release].rotate_right(1);
        self.steps[second] = release;
        self.recount(first, old_release + 1);
        debug_assert!(
            self.within_machine(first..old_release + 1),
            "a reservation made where it fits keeps the plan clean"
        );
    }

    /// Puts `owner`'s reservation at `slot` in.
    fn insert(&mut self, owner: JobId, slot: Slot, length: SimTime) {
        let mut range = None::<(usize, usize)>;
        for step in changes(owner, slot, length, self.now.at) {
            let i = self
                .steps
                .partition_point(|s| s.cmp(&step) != Ordering::Greater);
            self.steps.insert(i, step);
            self.after.insert(i, 0);
            range = Some(range.map_or((i, i), |(from, _)| (from, i)));
        }
        // The release gives back what the take took: the counts after it stand.
        if let Some((from, to)) = range {
            self.recount(from, to + 1);
            debug_assert!(
                self.within_machine(from..to + 1),
                "a reservation made where it fits keeps the plan clean"
            );
        }
    }

    /// The earliest moment `n` nodes are free for `length` seconds (the general profile's search,
    /// on counts), looking only at moments before change `before` and before time `until`, and
    /// from time `from` on (no earlier window fits: see [`may_move`](Self::may_move)): `None`
    /// when there is none. Windows from before `until` end before `until + length`: the counts
    /// from there on are not read.
    ///
    /// With `before` the first change of a job's own reservation, this answers for the plan without
    /// that reservation: its changes come from `before` on, and every window that reaches them finds
    /// the nodes free (its slot is still free in a clean plan), so no clash lies beyond `before`.
    ///
    /// The changes that leave fewer than `n` free are marked once; candidates are then only looked
    /// at in runs of unmarked changes long enough to hold the job (a candidate's window must end
    /// before the next marked change, and no candidate of a run starts before its first change).
    fn earliest(
        &mut self,
        n: i32,
        length: SimTime,
        before: usize,
        until: SimTime,
        from: SimTime,
    ) -> Option<Moment> {
        let own = self.steps.get(before).map(Step::when);
        let (read, limit) = if until < SimTime::INFINITY {
            let horizon = until + length;
            let until = Moment::start_of(until);
            let earlier = own.filter(|o| o.cmp(&until) == Ordering::Less);
            let read = self.steps[..before].partition_point(|s| s.at < horizon);
            (read, Some(earlier.unwrap_or(until)))
        } else {
            (before, own)
        };
        // The changes before `from` are neither marked nor looked at.
        let mut when = self.now;
        let mut k = 0;
        if from > when.at {
            when = Moment::start_of(from);
            k = self.steps.partition_point(|s| s.at < from);
        }
        let short = Marks::new(&mut self.marks, &self.after[..read], n, k.min(read));
        loop {
            if limit.is_some_and(|l| when.cmp(&l) != Ordering::Less) {
                return None;
            }
            // The plan at `when`: every earlier change, and the releases and takes of `when`.
            while self
                .steps
                .get(k)
                .is_some_and(|s| match s.when().cmp(&when) {
                    Ordering::Less => true,
                    Ordering::Equal => s.change != Change::ReleaseInstant,
                    Ordering::Greater => false,
                })
            {
                k += 1;
            }
            let free = k.checked_sub(1).map_or(self.base, |i| self.after[i]);
            let mut from = k;
            if free >= n {
                // The first marked change from `k` on is a take: it clashes if inside the window.
                match short.next(k) {
                    Some(b) if self.steps[b].at < when.at + length => from = b,
                    _ => return Some(when),
                }
            }
            // The next candidate: the first change after which `n` are free again, passing over
            // the runs of such changes that end too soon for the job.
            let first = short.long_run(from, &self.steps, length)?;
            let next = &self.steps[first];
            if next.when().cmp(&when) == Ordering::Greater {
                when = next.when();
                if next.change != Change::ReleaseInstant {
                    // Every change before it is in the plan at its moment.
                    k = k.max(first);
                }
            } else {
                // An instant release of `when` leaves `n` free: the next stage.
                when.stage += 1;
            }
        }
    }
}

/// The partition point of `steps` by `before` (true for a prefix of them), looked for from `near`
/// out in steps that double: few probes when it is near.
fn gallop(steps: &[Step], near: usize, before: impl Fn(&Step) -> bool) -> usize {
    let len = steps.len();
    let near = near.min(len);
    let (mut lo, mut hi) = (0, len);
    let mut step = 1;
    if near < len && before(&steps[near]) {
        lo = near + 1;
        while let Some(probe) = Some(near + step).filter(|&p| p < len) {
            if !before(&steps[probe]) {
                hi = probe;
                break;
            }
            lo = probe + 1;
            step *= 2;
        }
    } else {
        hi = near;
        while let Some(probe) = near.checked_sub(step) {
            if before(&steps[probe]) {
                lo = probe + 1;
                break;
            }
            hi = probe;
            step *= 2;
        }
    }
    lo + steps[lo..hi].partition_point(before)
}

#[cfg(test)]
mod tests;
