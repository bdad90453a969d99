//! The count plan: conservative backfilling on an allocator of interchangeable nodes (flat), where
//! the planned machine is a free-node count after each change of the profile.
//!
//! It answers exactly as the [general profile](super::profile) does, which replays the same changes
//! on allocator snapshots, as long as the profile is *clean*: every take finds the nodes it needs free
//! and no release gives back more than the machine has (`0 ≤ free ≤ total` after every change). Then
//! the general profile never leaves a reservation out as stale, the free count after each change is
//! the same whatever the order of changes that share a moment, and:
//!
//! * the state at a candidate moment is the count after its last change; a window fits when no
//!   change inside it leaves fewer than `n` free, and the changes that do are marked as bits once
//!   per search;
//! * a reservation at slot `s` cannot move: with its own nodes taken out, the general profile finds
//!   it `s` again when no window before `s`'s moment fits (its old slot is still free in a clean
//!   profile). Most reservations of a compression are of this kind, and keep their place without
//!   being taken out and put back;
//! * a reservation can only move into a window that overlaps a *gain*: a stretch of time where the
//!   plan has more free nodes than when the reservation was last planned (on counts, every window
//!   without a gain has no more room than then, and found none). Gains come from jobs that end
//!   before their estimates (`[now, estimated end)`) and from reservations that move or are taken
//!   out (their old span; the span of a reservation of length 0 is its instant, which ends just
//!   after its time: a window may start at that very time). The plan logs each gain's end; a
//!   reservation is only looked for before the latest end logged since it was last planned, and
//!   the counts it reads stop where its windows from there end. A compression after an early end
//!   so looks at the near future, not at the whole plan;
//! * a window that fits lies in a *run* of changes that leave `n` free, lasting the job's length,
//!   unless `n` are free right up to the reservation's own take. Between two changes of the counts
//!   the runs of each size asked for are scanned once, and those longer than every run before them
//!   kept by start, so most reservations of a compression are told they cannot move by a binary
//!   search, and only the others are searched (on KTH-SP2 about 15 % of those looked at). A move
//!   shifts a few changes in the middle of the plan: the runs are cut back to the first change
//!   that moved and scanned on from there, not from now;
//! * a search starts at the first run that could hold a window (the first that lasts the job's
//!   length, or the one that reaches its own take): the counts before it are not marked. A
//!   compression's moves are short (on CTC-SP2 with user estimates a reservation moves ~6 changes
//!   earlier, ~500 changes from now), so a re-plan reads the changes near its slot, not the plan
//!   from now.
//!
//! Each pass checks cleanliness before using the count plan, and hands the pass to the general
//! profile otherwise; in practice profiles stay clean (every reservation is made where it fits). A
//! pass's plan is carried to the next whole, counts included: the takes of the jobs it started go
//! (their releases are those of running jobs now), so do the releases of jobs that ended (an early
//! end adds its nodes to the counts up to its estimated end), and releases of jobs past their
//! estimates move to now, as does the take of a reservation fallen into the past (a start that
//! failed; the general profile plans what is left of it from now, and nothing once it is over);
//! the counts after the changes left stand. The plan is rebuilt from the slots and the running
//! jobs only when a job started late, or the carried counts do not add up to the free nodes now.
//!
//! The plan of one pass is [`plan`]; what it searches with: the runs of changes that leave enough
//! nodes free ([`runs`]) and the changes short of a size, as bits ([`marks`]). This module keeps the
//! plan from pass to pass.

mod marks;
mod plan;
mod runs;

use std::cmp::Ordering;

use super::{Change, Moment, Slot, span};
use crate::SimTime;
use crate::sched::plan::RunningJob;
use crate::workload::JobId;
use runs::Runs;

pub(super) use plan::Plan;

/// One change of the planned machine: nodes taken or given back.
#[derive(Debug, Clone, Copy)]
struct Step {
    at: SimTime,
    stage: u32,
    change: Change,
    /// The job whose reservation this is, or whose release (running).
    owner: JobId,
    /// Its effect on the free count: minus the nodes a take takes, the nodes a release gives.
    delta: i32,
}

impl Step {
    fn when(&self) -> Moment {
        Moment {
            at: self.at,
            stage: self.stage,
        }
    }

    /// By moment, then [`Change`].
    fn cmp(&self, other: &Step) -> Ordering {
        self.when()
            .cmp(&other.when())
            .then(self.change.cmp(&other.change))
    }

    /// The end of the gain when this release's reservation leaves the plan: its time, or just
    /// after it for a reservation of length 0 (its instant is free again, and a window may start
    /// at that very time, at the same stage or a later one).
    fn gain_end(&self) -> SimTime {
        if self.change == Change::ReleaseInstant {
            self.at.next_up()
        } else {
            self.at
        }
    }

    /// A change of `n` nodes at `when`.
    fn new(when: Moment, change: Change, owner: JobId, n: u32) -> Self {
        let n = n.cast_signed();
        Step {
            at: when.at,
            stage: when.stage,
            change,
            owner,
            delta: if change == Change::Take { -n } else { n },
        }
    }
}

/// The gains of the plan, for telling which reservations a compression need not look at.
#[derive(Debug, Clone, Default)]
pub(super) struct Gains {
    /// `(number, end)` of the gains that may still matter, numbers rising and ends falling: the
    /// latest end of the gains numbered from `k` on is the end of the first entry numbered `k` or
    /// later (a gain hides every earlier one that ends no later).
    log: Vec<(u64, SimTime)>,
    /// The number of the next gain.
    next: u64,
}

impl Gains {
    /// Logs a gain that ends at `end`.
    fn log(&mut self, end: SimTime) {
        while self.log.last().is_some_and(|&(_, e)| e <= end) {
            self.log.pop();
        }
        self.log.push((self.next, end));
        self.next += 1;
    }

    /// The latest end of the gains logged since a reservation was planned with `seen` gains
    /// logged (`None`: no gain since).
    fn since(&self, seen: u64) -> Option<SimTime> {
        // The gains since are the last entries, mostly few (those of this pass): look from the end.
        let i = self
            .log
            .iter()
            .rposition(|&(k, _)| k < seen)
            .map_or(0, |i| i + 1);
        self.log.get(i).map(|&(_, end)| end)
    }

    /// Forgets the gains over by `now` (no window from now on overlaps them).
    fn forget_until(&mut self, now: SimTime) {
        while self.log.last().is_some_and(|&(_, e)| e <= now) {
            self.log.pop();
        }
    }
}

/// What the count plan remembers of a reservation from pass to pass.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Memo {
    /// The number of gains logged when it was last planned.
    seen: u64,
    /// Where its changes were then.
    near: usize,
}

/// What the count plan keeps between passes.
#[derive(Debug, Clone)]
pub(super) struct Counts {
    total: i32,
    /// The last pass's plan, whole (`None`: rebuild it from the slots and the running jobs).
    kept: Option<Kept>,
    /// The jobs the last pass started, and those that ended since, with their estimated ends.
    started: Vec<(JobId, SimTime)>,
    ended: Vec<(JobId, SimTime)>,
    gains: Gains,
    /// The space of the last pass's plan, for the next one.
    spare: Spare,
}

/// A pass's plan as it was left: its changes (the running jobs' releases and the reservations),
/// the counts after them, and the free nodes then.
#[derive(Debug, Clone)]
struct Kept {
    steps: Vec<Step>,
    after: Vec<i32>,
    base: i32,
}

impl Kept {
    /// The plan carried to a pass at `now` with `free` nodes free, after the jobs `started` at the
    /// last pass and those `ended` since: the started jobs' takes go (their releases stay, as the
    /// running jobs' releases they now are), so do the ended jobs' releases (an early one gives its
    /// nodes back until then), and the releases of jobs past their estimates move to now, as do
    /// the takes of reservations fallen into the past (starts that failed; those over go). `None`
    /// when the plan must be rebuilt: a job started late, the changes left do not add up to `free`
    /// now, or a count leaves the machine (the rebuilt plan is then not clean either).
    fn carry(
        mut self,
        now: SimTime,
        free: i32,
        total: i32,
        started: &[(JobId, SimTime)],
        ended: &[(JobId, SimTime)],
    ) -> Option<Kept> {
        // A job started late (from a reservation fallen into the past) is released where it was
        // planned, not at its estimated end.
        for &(job, end) in started {
            self.release_of(job, end)?;
        }
        // Counts that rise are checked against the machine as they do (the others stand).
        let mut clean = true;
        for &(job, end) in ended.iter().filter(|&&(_, end)| end > now) {
            let i = self.release_of(job, end)?;
            let n = self.steps[i].delta;
            self.base += n;
            for a in &mut self.after[..i] {
                *a += n;
                clean &= *a <= total;
            }
            self.steps.remove(i);
            self.after.remove(i);
        }
        // The changes up to now: what is over goes, what overran moves to now, and so does the
        // take of a reservation fallen into the past (a start that failed: the general profile
        // plans what is left of it from now, or nothing once it is over).
        let past = self.steps.partition_point(|s| s.at <= now);
        let fallen = |s: &Step| s.change == Change::Take && s.at < now;
        // Fallen reservations already over (empty but for failed starts).
        let over: Vec<JobId> = (self.steps[..past].iter().enumerate())
            .filter(|&(_, s)| fallen(s))
            .filter(|&(i, s)| {
                let release = self.steps[i + 1..].iter().find(|r| r.owner == s.owner);
                release.is_none_or(|r| r.at <= now)
            })
            .map(|(_, s)| s.owner)
            .collect();
        let gone =
            |job: JobId| started.iter().chain(ended).any(|&(j, _)| j == job) || over.contains(&job);
        let mut kept = 0;
        let mut retimed = false;
        for i in 0..past {
            let mut s = self.steps[i];
            if gone(s.owner) {
                // The counts after the changes left stand when the base takes its place.
                self.base += s.delta;
                continue;
            }
            if s.at < now {
                if fallen(&s) {
                    retimed = true;
                    s.stage = 0;
                }
                s.at = now;
            }
            self.steps[kept] = s;
            kept += 1;
        }
        self.steps.drain(kept..past);
        self.after.drain(kept..past);
        if retimed {
            // A take moved to now goes after the releases of now.
            self.steps[..kept].sort_by(Step::cmp);
        }
        // With the base now, the counts before the changes left: those after them stand.
        let base_then = self.base;
        self.base = free;
        let mut count = free;
        for (s, a) in self.steps[..kept].iter().zip(&mut self.after[..kept]) {
            count += s.delta;
            *a = count;
            clean &= (0..=total).contains(&count);
        }
        (base_then == free && clean).then_some(self)
    }

    /// The index of `job`'s release, planned at `end` (`None`: it is not there).
    fn release_of(&self, job: JobId, end: SimTime) -> Option<usize> {
        let from = self.steps.partition_point(|s| s.at < end);
        let i = from
            + self.steps[from..]
                .iter()
                .take_while(|s| s.at == end)
                .position(|s| s.owner == job && s.change != Change::Take)?;
        Some(i)
    }
}

/// Space a plan needs, kept from pass to pass (the changes: for merging a rebuilt plan into).
#[derive(Debug, Clone, Default)]
struct Spare {
    steps: Vec<Step>,
    marks: Vec<u64>,
    runs: Vec<Runs>,
}

impl Counts {
    /// The count plan of a machine of `total` nodes (`None` beyond what its counts hold).
    pub(super) fn new(total: u32) -> Option<Self> {
        let total = i32::try_from(total).ok()?;
        Some(Counts {
            total,
            kept: None,
            started: Vec::new(),
            ended: Vec::new(),
            gains: Gains::default(),
            spare: Spare::default(),
        })
    }

    /// A gain of the plan up to `end`. A pass that the general profile plans is logged as a gain
    /// without end (it logs none of its own moves), so every reservation is looked at again at the
    /// next pass on counts.
    pub(super) fn gained(&mut self, estimated_end: SimTime) {
        self.gains.log(estimated_end);
    }

    /// A running job that started at `start` and was to end at `estimated_end` has ended at `now`:
    /// its release leaves the plan, and an early end frees its nodes until its estimated end (a
    /// gain; an overrun frees nothing the plan did not already count on). A job of length 0 that
    /// started at `now` held its nodes through its own moment (given back only from the next
    /// stage): ended, it frees that instant too, a gain that ends just after `now`.
    pub(super) fn ended(
        &mut self,
        job: JobId,
        start: SimTime,
        estimated_end: SimTime,
        now: SimTime,
    ) {
        self.ended.push((job, estimated_end));
        if estimated_end > now {
            self.gained(estimated_end);
        } else if start == now && estimated_end == now {
            self.gained(now.next_up());
        }
    }

    /// The plan of a pass at `now` with `free` nodes free, the `running` jobs, and the waiting jobs'
    /// reservations `(owner, slot, length)` in arrival order; `None` when it is not clean (the
    /// general profile must plan this pass). The last pass's plan is carried over when it can be;
    /// else it is rebuilt.
    pub(super) fn plan(
        &mut self,
        now: SimTime,
        free: u32,
        running: impl FnOnce() -> Vec<RunningJob>,
        slots: impl Iterator<Item = (JobId, Slot, SimTime)>,
    ) -> Option<Plan> {
        let free = i32::try_from(free).ok()?;
        let kept = self
            .kept
            .take()
            .and_then(|kept| kept.carry(now, free, self.total, &self.started, &self.ended));
        self.started.clear();
        self.ended.clear();
        let spare = std::mem::take(&mut self.spare);
        let mut plan = match kept {
            Some(kept) => Plan::carried(now, self.total, kept, spare),
            None => {
                let reserved = rebuild(now, slots);
                let plan = Plan::new(now, free, self.total, &running(), &reserved, spare);
                self.spare.steps = reserved;
                plan
            }
        };
        if !plan.clean {
            return None;
        }
        self.gains.forget_until(now);
        plan.gains = std::mem::take(&mut self.gains);
        Some(plan)
    }

    /// Keeps the plan of a pass whose due jobs `started` (with their estimated ends) for the next
    /// pass.
    pub(super) fn keep(&mut self, plan: Plan, started: &[(JobId, SimTime)]) {
        self.kept = Some(Kept {
            steps: plan.steps,
            after: plan.after,
            base: plan.base,
        });
        self.started.extend_from_slice(started);
        self.gains = plan.gains;
        self.spare.marks = plan.marks;
        self.spare.runs = plan.runs;
    }
}

/// The reservations' changes, each reservation as the general profile plans it at `now`, in order
/// (ties in arrival order).
fn rebuild(now: SimTime, slots: impl Iterator<Item = (JobId, Slot, SimTime)>) -> Vec<Step> {
    let mut steps = Vec::new();
    for (owner, slot, length) in slots {
        steps.extend(changes(owner, slot, length, now));
    }
    steps.sort_by(Step::cmp); // stable
    steps
}

/// The take and the release of `owner`'s reservation at `slot`, as planned at `now`.
fn changes(owner: JobId, slot: Slot, length: SimTime, now: SimTime) -> impl Iterator<Item = Step> {
    let n = slot.placement.nodes();
    span(&slot, length, now)
        .into_iter()
        .flatten()
        .map(move |(when, change)| Step::new(when, change, owner, n))
}

#[cfg(test)]
mod tests;
