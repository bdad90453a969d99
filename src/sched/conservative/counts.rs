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

use std::cmp::Ordering;

use super::{Change, Moment, Slot, span};
use crate::SimTime;
use crate::resource::{Placement, Request};
use crate::sched::plan::RunningJob;
use crate::workload::JobId;

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
#[derive(Debug, Default)]
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
#[derive(Debug)]
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
#[derive(Debug)]
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
#[derive(Debug, Default)]
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

/// The count plan of one pass.
pub(super) struct Plan {
    now: Moment,
    /// Free nodes now.
    base: i32,
    total: i32,
    /// The changes, by moment then [`Change`].
    steps: Vec<Step>,
    /// Free nodes after each change.
    after: Vec<i32>,
    /// Scratch space of [`Marks`].
    marks: Vec<u64>,
    gains: Gains,
    /// The runs of the plan as it stands, by threshold: the first `live_runs`, in order of size
    /// (cut back to the changes that stand when changes move; the others keep their space).
    runs: Vec<Runs>,
    live_runs: usize,
    /// Whether every take finds its nodes free and no release exceeds the machine (every count
    /// within the machine), as built.
    clean: bool,
}

impl Plan {
    /// A plan carried over from the last pass.
    fn carried(now: SimTime, total: i32, kept: Kept, spare: Spare) -> Self {
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
    fn new(
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
    pub(super) fn replan(
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

/// The runs of changes that leave at least `n` nodes free, with how long each lasts, as far as a
/// scan has gone: only the runs that last longer than every run before them are kept (the others
/// change no answer); where a run starts is read back from the counts when asked.
#[derive(Debug, Default)]
struct Runs {
    n: i32,
    /// When the run from now starts (`None`: fewer than `n` are free now).
    from_now: Option<SimTime>,
    /// The changes scanned so far.
    scanned: usize,
    /// The run under way at `scanned`.
    open: Open,
    /// The start of each run that lasts longer than every run before it, in order, how long it
    /// lasts, and the change that ends it.
    starts: Vec<(SimTime, SimTime, usize)>,
    /// The word of bits of the changes `from..to` that leave `n` free, last made:
    /// `(from, to, bits)`.
    word: Option<(usize, usize, u64)>,
}

/// The run under way where a scan stands.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Open {
    /// None is.
    #[default]
    No,
    /// One is, since then.
    Since(SimTime),
    /// Not read back since the scan was cut back (the next scan does).
    Unknown,
}

impl Runs {
    /// No change scanned yet: a run is under way from `now` if `free` are at least `n` (reusing
    /// the space of `self`).
    fn reset(&mut self, n: i32, now: SimTime, free: i32) {
        self.n = n;
        self.from_now = (free >= n).then_some(now);
        self.scanned = 0;
        self.open = self.from_now.map_or(Open::No, Open::Since);
        self.starts.clear();
        self.word = None;
    }

    /// Forgets what the scan read from change `from` on: the runs that start there or later, and
    /// the end of the one under way at `from`, which is under way again (read back by the next
    /// scan). A scan not that far stands.
    fn truncate(&mut self, from: usize) {
        // Its word of bits stands only if none of its changes moves.
        if self.word.is_some_and(|(_, to, _)| to > from) {
            self.word = None;
        }
        if self.scanned <= from {
            return;
        }
        while self.starts.last().is_some_and(|r| r.2 >= from) {
            self.starts.pop();
        }
        self.scanned = from;
        self.open = if from == 0 {
            self.from_now.map_or(Open::No, Open::Since)
        } else {
            Open::Unknown
        };
    }

    /// The start of the run that holds change `j` (`None`: it leaves fewer than `n` free): right
    /// after the last change before it that leaves fewer, read back word by word.
    fn run_holding(&self, steps: &[Step], after: &[i32], j: usize) -> Option<SimTime> {
        if after[j] < self.n {
            return None;
        }
        let mut w = j / 64;
        let mut below = u64::MAX >> (63 - j % 64);
        loop {
            let counts = &after[w * 64..after.len().min(w * 64 + 64)];
            let short = short_of(counts, self.n) & below;
            if short != 0 {
                let last = w * 64 + 63 - short.leading_zeros() as usize;
                return Some(steps[last + 1].at);
            }
            if w == 0 {
                return Some(self.from_now.unwrap_or(steps[0].at));
            }
            w -= 1;
            below = u64::MAX;
        }
    }

    /// Scans on until every run that starts by `limit` has ended (or the changes have), 64
    /// changes at a time: a word of bits tells which of them leave `n` free, and only the starts
    /// and ends of runs (where the bits flip) are looked at one by one.
    fn scan(&mut self, steps: &[Step], after: &[i32], limit: SimTime) {
        let len = steps.len().min(after.len());
        let mut i = self.scanned;
        if self.open == Open::Unknown {
            let start = self.run_holding(&steps[..len], &after[..len], i - 1);
            self.open = start.map_or(Open::No, Open::Since);
        }
        // No run under way and none starts by `limit` before the next change: nothing to scan.
        if self.open == Open::No && steps[..len].get(i).is_none_or(|s| s.at > limit) {
            return;
        }
        let mut longest = self.starts.last().map_or(SimTime::NEG_INFINITY, |r| r.1);
        'words: while i < len {
            let word = i / 64 * 64;
            let end = len.min(word + 64);
            let valid = u64::MAX >> (64 - (end - word));
            let fits = match self.word {
                Some((from, to, bits)) if (from, to) == (word, end) => bits,
                _ => {
                    let bits = !short_of(&after[word..end], self.n) & valid;
                    self.word = Some((word, end, bits));
                    bits
                }
            };
            // The changes from `i` on that end the run under way or start the next: those that
            // differ from the change before them (at `i`, from whether a run is under way).
            let at_i = 1u64 << (i - word);
            let open = if self.open == Open::No { 0 } else { at_i };
            let mut flips = (fits ^ ((fits << 1) & !at_i | open)) & valid & !(at_i - 1);
            while flips != 0 {
                let j = word + flips.trailing_zeros() as usize;
                let at = steps[j].at;
                match self.open {
                    Open::Since(start) => {
                        // Plain comparison: the plan's times are finite.
                        let lasts = at - start;
                        if lasts > longest {
                            longest = lasts;
                            self.starts.push((start, longest, j));
                        }
                        self.open = Open::No;
                    }
                    _ if at <= limit => self.open = Open::Since(at),
                    _ => {
                        i = j;
                        break 'words;
                    }
                }
                flips &= flips - 1;
            }
            i = end;
        }
        self.scanned = i.min(len);
    }

    /// Whether a run that starts by `limit` lasts `needed`, scanning as far as that takes.
    fn hold(&mut self, steps: &[Step], after: &[i32], limit: SimTime, needed: SimTime) -> bool {
        self.scan(steps, after, limit);
        self.longest_from_by(limit) >= needed
    }

    /// The start of the first run that starts by `limit` and lasts `needed` or, if `take` is the
    /// first change of a reservation whose nodes are free right before it, holds the change before
    /// it, if earlier (`None`: no such run), scanning as far as that takes.
    fn first_window(
        &mut self,
        steps: &[Step],
        after: &[i32],
        limit: SimTime,
        needed: SimTime,
        take: Option<usize>,
    ) -> Option<SimTime> {
        let lasting = self
            .hold(steps, after, limit, needed)
            .then(|| self.first_lasting(needed));
        let to_take = take.and_then(|before| self.run_through(steps, after, before, limit));
        match (lasting, to_take) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The start of the first run scanned that lasts `needed`: a record, or the run under way.
    fn first_lasting(&self, needed: SimTime) -> SimTime {
        let k = self.starts.partition_point(|&(_, lasts, _)| lasts < needed);
        let record = self.starts.get(k).map(|r| r.0);
        let open = match self.open {
            Open::Since(start) => Some(start),
            Open::No | Open::Unknown => None,
        };
        record.or(open).unwrap_or(SimTime::NEG_INFINITY)
    }

    /// The start of the run that holds the change before `before` (the run from now when
    /// `before` is 0), scanned to `limit`; `None` when that change leaves too few free or lies in
    /// a run that starts after `limit`.
    fn run_through(
        &self,
        steps: &[Step],
        after: &[i32],
        before: usize,
        limit: SimTime,
    ) -> Option<SimTime> {
        let start = match before.checked_sub(1) {
            None => {
                let first = self.scanned > 0 && after[0] >= self.n;
                self.from_now.or(first.then(|| steps[0].at))
            }
            Some(j) if j < self.scanned => self.run_holding(steps, after, j),
            Some(_) => None,
        };
        start.filter(|&at| at <= limit)
    }

    /// The longest run among those that start by `limit` (scanned that far): infinite when one of
    /// them never ends.
    fn longest_from_by(&self, limit: SimTime) -> SimTime {
        if matches!(self.open, Open::Since(start) if start <= limit) {
            return SimTime::INFINITY;
        }
        let k = self.starts.partition_point(|&(s, _, _)| s <= limit);
        k.checked_sub(1)
            .map_or(SimTime::NEG_INFINITY, |i| self.starts[i].1)
    }
}

/// Bit `j` set where `counts[j]` (at most 64 of them) is below `n`.
fn short_of(counts: &[i32], n: i32) -> u64 {
    // One byte per count first (vector compares), then eight bytes to eight bits.
    let mut bytes = [0u8; 64];
    for (b, &a) in bytes.iter_mut().zip(counts) {
        *b = u8::from(a < n);
    }
    bytes
        .chunks_exact(8)
        .enumerate()
        .fold(0u64, |word, (i, eight)| {
            let eight = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
            // Byte j (0 or 1) lands on bit 56 + j; the top byte is the eight bits.
            let bits = eight.wrapping_mul(0x0102_0408_1020_4080) >> 56;
            word | bits << (8 * i)
        })
}

/// The changes whose count is short of a threshold, as bits, from a word on (the changes before
/// it are never asked about).
struct Marks<'a> {
    words: &'a [u64],
    /// The words of 64 changes not marked.
    skip: usize,
    len: usize,
}

impl<'a> Marks<'a> {
    /// Marks each count in `counts` below `n`, in `buf`, from the word of change `from` on.
    fn new(buf: &'a mut Vec<u64>, counts: &[i32], n: i32, from: usize) -> Self {
        let skip = from / 64;
        buf.clear();
        buf.extend(counts[skip * 64..].chunks(64).map(|c| short_of(c, n)));
        Marks {
            words: buf,
            skip,
            len: counts.len(),
        }
    }

    /// The marks of the `w`th word of changes (`None` past the last one).
    fn word(&self, w: usize) -> Option<&u64> {
        debug_assert!(w >= self.skip, "a change before the first marked word");
        self.words.get(w - self.skip)
    }

    /// The first change of the first run of unmarked changes from `from` on that lasts `length`
    /// (until the next marked change, if any), passing over the shorter ones: only the changes
    /// where the bits flip are looked at.
    fn long_run(&self, from: usize, steps: &[Step], length: SimTime) -> Option<usize> {
        let mut start = None::<usize>;
        let mut w = from / 64;
        // Before `from`, as if marked: an unmarked change there starts a run.
        let mut marked_before = true;
        let mut lowest = 1u64 << (from % 64);
        while let Some(&marks) = self.word(w) {
            let valid = u64::MAX >> (64 - (self.len - w * 64).min(64));
            let before = (marks << 1) & !lowest | if marked_before { lowest } else { 0 };
            let mut flips = (marks ^ before) & valid & !(lowest - 1);
            while flips != 0 {
                let j = w * 64 + flips.trailing_zeros() as usize;
                match start {
                    // Plain comparison: the plan's times are finite.
                    Some(first) if steps[j].at >= steps[first].at + length => return start,
                    Some(_) => start = None,
                    None => start = Some(j),
                }
                flips &= flips - 1;
            }
            marked_before = start.is_none();
            lowest = 1;
            w += 1;
        }
        // A run under way at the end of the marks never ends.
        start
    }

    /// The first marked change at `from` or later.
    fn next(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = *self.word(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                return (i < self.len).then_some(i);
            }
            w += 1;
            bits = *self.word(w)?;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(job: u32, est_end: SimTime, n: u32) -> RunningJob {
        RunningJob {
            job: JobId(job),
            since: 0.0,
            est_end,
            placement: Placement::Nodes(n),
        }
    }

    /// A release of one node at each of `times`: plan steps whose free counts a test sets.
    fn releases_at(times: &[SimTime]) -> Vec<Step> {
        times
            .iter()
            .map(|&at| Step::new(Moment::start_of(at), Change::Release, JobId(0), 1))
            .collect()
    }

    fn slot(at: SimTime, n: u32) -> Slot {
        staged(at, 0, n)
    }

    /// A reservation of `n` nodes at stage `stage` of time `at`.
    fn staged(at: SimTime, stage: u32, n: u32) -> Slot {
        Slot {
            when: Moment { at, stage },
            placement: Placement::Nodes(n),
        }
    }

    /// 10 nodes at 0: job 0 holds 6 until 10; job 1 (8 nodes) is reserved at 10 for 5.
    fn busy() -> Plan {
        let mut counts = Counts::new(10).expect("small machine");
        let slots = [(JobId(1), slot(10.0, 8), 5.0)];
        counts
            .plan(0.0, 4, || vec![running(0, 10.0, 6)], slots.into_iter())
            .expect("clean")
    }

    #[test]
    fn counts_after_each_change() {
        let p = busy();
        assert_eq!(p.after, vec![10, 2, 10], "release 6, take 8, release 8");
    }

    #[test]
    fn a_job_goes_where_its_whole_window_has_room() {
        let mut p = busy();
        // 3 nodes for 20 s clash with the reservation at 10 (2 left): after it ends, at 15.
        assert_eq!(
            p.earliest(3, 20.0, 3, SimTime::INFINITY, 0.0),
            Some(Moment::start_of(15.0))
        );
        // Ending exactly when the reservation starts is fine; 2 nodes fit beside it anyway.
        assert_eq!(
            p.earliest(3, 10.0, 3, SimTime::INFINITY, 0.0),
            Some(Moment::start_of(0.0))
        );
        assert_eq!(
            p.earliest(2, 20.0, 3, SimTime::INFINITY, 0.0),
            Some(Moment::start_of(0.0))
        );
        // 5 nodes are not free before 10, and 2 are left then.
        assert_eq!(
            p.earliest(5, 1.0, 3, SimTime::INFINITY, 0.0),
            Some(Moment::start_of(15.0))
        );
        // Job 1 itself, looking before its own take: no earlier moment has 8 free.
        assert_eq!(p.earliest(8, 5.0, 1, SimTime::INFINITY, 0.0), None);
    }

    #[test]
    fn a_reservation_that_cannot_move_keeps_its_place_and_one_that_can_moves() {
        let mut p = busy();
        let req = Request::Nodes(8);
        let kept = p.replan(
            JobId(1),
            &req,
            5.0,
            Some(&slot(10.0, 8)),
            &mut Memo::default(),
        );
        assert_eq!(kept, None, "it keeps its slot");
        assert_eq!(p.after, vec![10, 2, 10], "nothing taken out or put back");
        // With 10 nodes free now (job 0 ended early, a gain until its estimated end at 10), job 1
        // moves to now.
        let mut counts = Counts::new(10).expect("small machine");
        counts.gained(10.0);
        let slots = [(JobId(1), slot(10.0, 8), 5.0)];
        let mut p = counts
            .plan(1.0, 10, Vec::new, slots.into_iter())
            .expect("clean");
        let moved = p.replan(
            JobId(1),
            &req,
            5.0,
            Some(&slot(10.0, 8)),
            &mut Memo::default(),
        );
        assert_eq!(moved, Some(slot(1.0, 8)));
        assert_eq!(p.after, vec![2, 10]);
    }

    #[test]
    fn a_plan_whose_take_finds_too_few_nodes_is_left_to_the_general_profile() {
        // Job 0 overran and holds 6 of 10; a reservation of 8 at 5 can only have been made on
        // counts the machine no longer has.
        let mut counts = Counts::new(10).expect("small machine");
        let slots = [(JobId(1), slot(5.0, 8), 5.0)];
        assert!(counts.plan(0.0, 4, Vec::new, slots.into_iter()).is_none());
        assert!(
            Counts::new(u32::MAX).is_none(),
            "beyond what i32 counts hold"
        );
    }

    #[test]
    fn a_reservation_looks_before_the_latest_end_of_the_gains_since_it_was_planned() {
        let mut gains = Gains::default();
        assert_eq!(gains.since(0), None, "nothing gained");
        gains.log(50.0);
        gains.log(20.0);
        gains.log(30.0);
        // Planned before all three: the latest end of them all; after the first: of the last two.
        assert_eq!(gains.since(0), Some(50.0));
        assert_eq!(gains.since(1), Some(30.0));
        assert_eq!(gains.since(3), None);
        assert_eq!(
            gains.log.len(),
            2,
            "the gain to 20 is hidden by the later one to 30"
        );
        gains.forget_until(30.0);
        assert_eq!(gains.since(1), None, "a gain over by now opens no window");
        assert_eq!(gains.since(0), Some(50.0));
    }

    #[test]
    fn an_instant_given_back_is_a_gain_at_its_own_time() {
        // 10 nodes: job 0 holds 6 until 5. Reserved at 5: job 1 (4 nodes, length 0) at stage 0,
        // job 3 (7 nodes, 1 s) at stage 1 after job 1's instant; job 2 (8 nodes, length 0) fits
        // neither beside job 1 nor beside job 3, so it is reserved at 6.
        let mut counts = Counts::new(10).expect("small machine");
        let slots = [
            (JobId(1), staged(5.0, 0, 4), 0.0),
            (JobId(2), staged(6.0, 0, 8), 0.0),
            (JobId(3), staged(5.0, 1, 7), 1.0),
        ];
        counts.gained(5.0);
        let mut p = counts
            .plan(
                0.0,
                4,
                || vec![running(0, 5.0, 6)],
                slots.clone().into_iter(),
            )
            .expect("clean");
        // After a gain up to 5, job 1 fits now; job 2 then fits at 5, at stage 0, in the instant
        // job 1 gave back (the snapshot profile finds it there too): that gain ends just after 5.
        let memo = &mut Memo::default();
        let first = p.replan(JobId(1), &Request::Nodes(4), 0.0, Some(&slots[0].1), memo);
        assert_eq!(first, Some(staged(0.0, 0, 4)));
        let memo = &mut Memo::default();
        let second = p.replan(JobId(2), &Request::Nodes(8), 0.0, Some(&slots[1].1), memo);
        assert_eq!(second, Some(staged(5.0, 0, 8)));
    }

    #[test]
    fn a_job_of_length_0_ended_where_it_started_gives_its_instant_back() {
        // 10 nodes, all free at 5. Reserved at 5: job 1 (6 nodes, length 0) at stage 0, job 3 (4
        // nodes, 3 s) at stage 1; job 2 (8 nodes, length 0) fits beside neither: at 8.
        let mut counts = Counts::new(10).expect("small machine");
        let (one, two, three) = (staged(5.0, 0, 6), staged(8.0, 0, 8), staged(5.0, 1, 4));
        let slots = [(JobId(1), one.clone(), 0.0), (JobId(3), three.clone(), 3.0)];
        let mut p = counts
            .plan(
                5.0,
                10,
                Vec::new,
                slots.into_iter().chain([(JobId(2), two.clone(), 0.0)]),
            )
            .expect("clean");
        let memo = &mut Memo::default();
        assert_eq!(
            p.replan(
                JobId(1),
                &Request::Nodes(6),
                0.0,
                Some(&one),
                &mut Memo::default()
            ),
            None
        );
        assert_eq!(
            p.replan(JobId(2), &Request::Nodes(8), 0.0, Some(&two), memo),
            None
        );
        // Job 1 starts at 5 and ends there (stage 1): its nodes are free at stage 0 of 5 too, where
        // job 2 now fits (the snapshot profile, seam test `conservative_plans_on_counts_as_on_
        // snapshots`, finds it there). Nothing ended before its estimate: only the instant is won.
        counts.keep(p, &[(JobId(1), 5.0)]);
        counts.ended(JobId(1), 5.0, 5.0, 5.0);
        let slots = [(JobId(3), three, 3.0), (JobId(2), two.clone(), 0.0)];
        let mut p = counts
            .plan(5.0, 10, Vec::new, slots.into_iter())
            .expect("clean");
        let moved = p.replan(JobId(2), &Request::Nodes(8), 0.0, Some(&two), memo);
        assert_eq!(moved, Some(staged(5.0, 0, 8)));
    }

    #[test]
    fn a_reservation_without_a_gain_since_it_was_planned_stays_and_one_with_a_gain_moves() {
        // 10 nodes: job 0 holds 6 until 10 (estimated); job 1 (8 nodes) is reserved at 10 for 5.
        let mut counts = Counts::new(10).expect("small machine");
        let slots = [(JobId(1), slot(10.0, 8), 5.0)];
        let req = Request::Nodes(8);
        let running = [running(0, 10.0, 6)];
        let mut p = counts
            .plan(0.0, 4, || running.to_vec(), slots.clone().into_iter())
            .expect("clean");
        let mut memo = Memo::default();
        let kept = p.replan(JobId(1), &req, 5.0, Some(&slot(10.0, 8)), &mut memo);
        assert_eq!(kept, None, "it keeps its slot");
        counts.keep(p, &[]);
        // Job 0 ends at 2, before its estimate: the gain [2, 10) lets job 1 start at once, unless
        // it was planned after that gain (then it found no room in it).
        counts.ended(JobId(0), 0.0, 10.0, 2.0);
        let mut p = counts
            .plan(2.0, 10, Vec::new, slots.into_iter())
            .expect("clean");
        let mut fresh = Memo { seen: 1, near: 0 };
        let stays = p.replan(JobId(1), &req, 5.0, Some(&slot(10.0, 8)), &mut fresh);
        assert_eq!(stays, None, "it keeps its slot");
        let mut stale = Memo::default();
        let moves = p.replan(JobId(1), &req, 5.0, Some(&slot(10.0, 8)), &mut stale);
        assert_eq!(moves, Some(slot(2.0, 8)));
        assert_eq!(stale.seen, 2, "its move logged a gain of its own");
    }

    #[test]
    fn runs_of_free_counts_are_scanned_as_far_as_asked_and_measured() {
        // From 0 with 4 free: changes at 10 (2 free), 20 (6), 25 (1), 40 (9), 45 (2).
        let times = [10.0, 20.0, 25.0, 40.0, 45.0];
        let after = [2, 6, 1, 9, 2];
        let steps = releases_at(&times);
        let mut runs = Runs::default();
        runs.reset(3, 0.0, 4);
        runs.scan(&steps, &after, 15.0);
        assert_eq!(
            (runs.scanned, runs.starts.clone()),
            (1, vec![(0.0, 10.0, 0)]),
            "[0, 10) then stop"
        );
        assert_eq!(runs.longest_from_by(15.0), 10.0);
        runs.scan(&steps, &after, 30.0);
        assert_eq!(
            runs.starts,
            vec![(0.0, 10.0, 0)],
            "[20, 25) is shorter: no record"
        );
        assert_eq!(runs.longest_from_by(30.0), 10.0);
        assert_eq!(
            runs.longest_from_by(-1.0),
            SimTime::NEG_INFINITY,
            "none starts that early"
        );
        runs.scan(&steps, &after, 40.0);
        assert_eq!(runs.longest_from_by(40.0), 10.0, "[40, 45) is shorter");
        // A run that never ends (9 free for good) is as long as any job.
        let after = [2, 6, 1, 9, 9];
        runs.reset(3, 0.0, 4);
        runs.scan(&steps, &after, 40.0);
        assert_eq!(runs.longest_from_by(40.0), SimTime::INFINITY);
        assert_eq!(runs.longest_from_by(30.0), 10.0);
    }

    #[test]
    fn runs_cut_back_to_a_change_are_scanned_on_from_there() {
        // From 0 with 4 free: changes at 10 (2 free), 20 (6), 25 (1), 40 (9), 45 (2).
        let times = [10.0, 20.0, 25.0, 40.0, 45.0];
        let steps = releases_at(&times);
        let mut runs = Runs::default();
        runs.reset(3, 0.0, 4);
        runs.scan(&steps, &[2, 6, 1, 9, 2], 50.0);
        assert_eq!(
            runs.longest_from_by(50.0),
            10.0,
            "[0, 10), [20, 25), [40, 45)"
        );
        // The change at 25 now leaves 7 free: [20, 25) grows to [20, 45), under way again at 25.
        runs.truncate(2);
        assert_eq!(
            (runs.scanned, runs.open),
            (2, Open::Unknown),
            "read back when scanned on"
        );
        assert_eq!(
            runs.starts,
            vec![(0.0, 10.0, 0)],
            "the record up to change 0 stands"
        );
        runs.scan(&steps, &[2, 6, 7, 9, 2], 50.0);
        assert_eq!(runs.longest_from_by(50.0), 25.0);
        assert_eq!(runs.longest_from_by(15.0), 10.0);
        // Cut back to the first change, the run from now is under way again.
        runs.truncate(0);
        assert_eq!(
            (runs.scanned, runs.open, runs.starts.len()),
            (0, Open::Since(0.0), 0)
        );
        // A scan that did not reach the change cut back to stands.
        runs.scan(&steps, &[2, 6, 7, 9, 2], 5.0);
        runs.truncate(3);
        assert_eq!(runs.scanned, 1);
    }

    /// [`busy`] kept after its pass, and carried to `now` with `free` nodes free.
    fn carried(
        started: &[(JobId, SimTime)],
        ended: &[(JobId, SimTime)],
        now: SimTime,
        free: i32,
    ) -> Option<Vec<(SimTime, i32)>> {
        let plan = busy();
        let kept = Kept {
            steps: plan.steps,
            after: plan.after,
            base: plan.base,
        };
        let kept = kept.carry(now, free, 10, started, ended)?;
        Some(kept.steps.iter().map(|s| s.at).zip(kept.after).collect())
    }

    #[test]
    fn a_carried_plan_drops_what_is_over_and_keeps_the_rest() {
        // Job 0 (6 nodes) to 10, job 1 (8) reserved [10, 15); 4 free at 0.
        assert_eq!(
            carried(&[], &[], 3.0, 4),
            Some(vec![(10.0, 10), (10.0, 2), (15.0, 10)]),
            "nothing happened"
        );
        assert_eq!(
            carried(&[], &[(JobId(0), 10.0)], 3.0, 10),
            Some(vec![(10.0, 2), (15.0, 10)]),
            "job 0 ended early: its nodes are free until 10"
        );
        assert_eq!(
            carried(&[], &[], 12.0, 4),
            Some(vec![(12.0, 10), (12.0, 2), (15.0, 10)]),
            "job 0 overran: its release and job 1's take (a start that failed) move to now"
        );
        assert_eq!(
            carried(&[], &[], 16.0, 4),
            Some(vec![(16.0, 10)]),
            "job 1's reservation is over before it started: it goes"
        );
        assert_eq!(carried(&[], &[], 3.0, 5), None, "the counts do not add up");
    }

    #[test]
    fn a_carried_plan_moves_an_overrun_to_now_and_drops_a_started_take() {
        // Job 0 ends at 10 as planned, job 1 starts then (its release stays, now a running job's).
        let mut plan = busy();
        plan.steps.retain(|s| s.owner != JobId(0));
        plan.after = vec![2, 10];
        plan.base = 10;
        let kept = Kept {
            steps: plan.steps,
            after: plan.after,
            base: plan.base,
        };
        let kept = kept
            .carry(10.0, 2, 10, &[(JobId(1), 15.0)], &[])
            .expect("carried");
        let rest: Vec<_> = kept.steps.iter().map(|s| (s.at, s.owner)).collect();
        assert_eq!(
            (rest, kept.after.clone()),
            (vec![(15.0, JobId(1))], vec![10])
        );
        // Job 1 runs past its estimate: at 20 its release is taken to be now.
        let kept = kept.carry(20.0, 2, 10, &[], &[]).expect("carried");
        assert_eq!((kept.steps[0].at, kept.after.clone()), (20.0, vec![10]));
        // A job started late (its release planned elsewhere than at its estimated end) rebuilds.
        assert!(kept.carry(20.0, 2, 10, &[(JobId(1), 25.0)], &[]).is_none());
    }

    /// The longest run of counts `>= n` that starts by `limit` (at `now` = 0 with `free`, or at a
    /// change), counted change by change: infinite when one lasts to the end.
    fn longest_by_hand(
        times: &[SimTime],
        after: &[i32],
        n: i32,
        free: i32,
        limit: SimTime,
    ) -> SimTime {
        let mut longest = SimTime::NEG_INFINITY;
        let mut open = (free >= n).then_some(0.0);
        for (&at, &a) in times.iter().zip(after) {
            match open {
                Some(start) if a < n => {
                    longest = longest.max(at - start);
                    open = None;
                }
                None if a >= n && at <= limit => open = Some(at),
                _ => {}
            }
        }
        if open.is_some() {
            SimTime::INFINITY
        } else {
            longest
        }
    }

    /// A run counted by hand: its first change (`None`: the run from now), start, length
    /// (infinite: it never ends) and the change that ends it.
    type RunByHand = (Option<usize>, SimTime, SimTime, usize);

    /// Every run of changes that leave `n` free, counted change by change from now (0, with
    /// `free` free).
    fn runs_by_hand(times: &[SimTime], after: &[i32], n: i32, free: i32) -> Vec<RunByHand> {
        let mut runs = Vec::new();
        let mut open = (free >= n).then_some((None, 0.0));
        for (j, (&at, &a)) in times.iter().zip(after).enumerate() {
            match open {
                Some((first, start)) if a < n => {
                    runs.push((first, start, at - start, j));
                    open = None;
                }
                None if a >= n => open = Some((Some(j), at)),
                _ => {}
            }
        }
        let never = (SimTime::INFINITY, usize::MAX);
        runs.extend(open.map(|(first, start)| (first, start, never.0, never.1)));
        runs
    }

    /// [`Runs::first_window`] counted by hand: the first run that starts by `limit` and lasts
    /// `needed`, or the one that holds the change before `take` if it starts by `limit`, if
    /// earlier.
    fn first_window_by_hand(
        times: &[SimTime],
        after: &[i32],
        (n, free): (i32, i32),
        limit: SimTime,
        needed: SimTime,
        take: Option<usize>,
    ) -> Option<SimTime> {
        let runs = runs_by_hand(times, after, n, free);
        let by_limit = runs.iter().filter(|r| r.1 <= limit);
        let lasting = by_limit.clone().find(|r| r.2 >= needed).map(|r| r.1);
        // The run through the change before the take (the run from now when it is the first).
        let through = |r: &&RunByHand, before: usize| match before.checked_sub(1) {
            None => r.0.is_none_or(|f| f == 0),
            Some(j) => r.0.is_none_or(|f| f <= j) && j < r.3,
        };
        let to_take = take.and_then(|before| by_limit.clone().find(|r| through(r, before)));
        match (lasting, to_take.map(|r| r.1)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    proptest::proptest! {
        /// A scan cut back to any change and resumed on counts changed from there finds the runs
        /// a fresh scan of the new counts finds.
        #[test]
        fn runs_cut_back_and_scanned_on_are_those_counted_by_hand(
            before in proptest::collection::vec(0i32..6, 1..300),
            changed in proptest::collection::vec(0i32..6, 0..300),
            cut in 0usize..300,
            n in 1i32..6,
            free in 0i32..6,
            first in 0u32..320,
            limit in 0u32..320,
        ) {
            let len = before.len();
            let cut = cut % len;
            let mut after = before.clone();
            for (a, &c) in after[cut..].iter_mut().zip(&changed) {
                *a = c;
            }
            let times: Vec<SimTime> = (1u32..).take(len).map(SimTime::from).collect();
            let steps = releases_at(&times);
            let mut runs = Runs::default();
            runs.reset(n, 0.0, free);
            runs.scan(&steps, &before, SimTime::from(first));
            runs.truncate(cut);
            let limit = SimTime::from(limit);
            runs.scan(&steps, &after, limit);
            proptest::prop_assert_eq!(
                runs.longest_from_by(limit),
                longest_by_hand(&times, &after, n, free, limit)
            );
        }

        /// After scans cut back and resumed, the first window of a job and the run through the
        /// change before its take are those counted by hand, with several changes at one time.
        #[test]
        fn first_windows_after_cuts_are_those_counted_by_hand(
            before in proptest::collection::vec(0i32..6, 1..300),
            changed in proptest::collection::vec(0i32..6, 0..300),
            gaps in proptest::collection::vec(0u32..3, 300),
            cut in 0usize..300,
            (n, free) in (1i32..6, 0i32..6),
            (first, limit) in (0u32..400, 0u32..400),
            needed in 0u32..40,
        ) {
            let len = before.len();
            let cut = cut % len;
            let mut after = before.clone();
            for (a, &c) in after[cut..].iter_mut().zip(&changed) {
                *a = c;
            }
            let times: Vec<SimTime> = gaps
                .iter()
                .scan(0u32, |t, &g| {
                    *t += g;
                    Some(SimTime::from(*t))
                })
                .take(len)
                .collect();
            let steps = releases_at(&times);
            let mut runs = Runs::default();
            runs.reset(n, 0.0, free);
            runs.scan(&steps, &before, SimTime::from(first));
            runs.truncate(cut);
            let (limit, needed) = (SimTime::from(limit), SimTime::from(needed));
            for take in [None].into_iter().chain((0..=len).map(Some)) {
                let found = runs.first_window(&steps, &after, limit, needed, take);
                let by_hand =
                    first_window_by_hand(&times, &after, (n, free), limit, needed, take);
                proptest::prop_assert_eq!(found, by_hand, "take {:?}", take);
            }
        }

        /// The word-wise scan finds the runs a change-by-change count finds, across words of 64
        /// changes and with scans resumed at rising limits.
        #[test]
        fn runs_scanned_by_words_are_those_counted_by_hand(
            after in proptest::collection::vec(0i32..6, 0..300),
            n in 1i32..6,
            free in 0i32..6,
            limits in proptest::collection::vec(0u32..320, 1..6),
        ) {
            let times: Vec<SimTime> = (1u32..).take(after.len()).map(SimTime::from).collect();
            let steps = releases_at(&times);
            let mut limits: Vec<SimTime> = limits.into_iter().map(SimTime::from).collect();
            limits.sort_by(SimTime::total_cmp);
            let mut runs = Runs::default();
            runs.reset(n, 0.0, free);
            for limit in limits {
                runs.scan(&steps, &after, limit);
                proptest::prop_assert_eq!(
                    runs.longest_from_by(limit),
                    longest_by_hand(&times, &after, n, free, limit)
                );
            }
        }
    }

    #[test]
    fn a_reservation_moves_only_when_a_run_by_its_limit_is_long_enough_or_reaches_its_take() {
        let mut p = busy();
        // 3 nodes for 20 s: the only run by time 5 is [0, 10) (before its take: 10 free then 2).
        assert_eq!(p.may_move(3, 20.0, 2, 5.0), None);
        assert_eq!(p.may_move(3, 10.0, 2, 5.0), Some(0.0));
        // 5 nodes for 20 s: told by the runs of 3 (those of 5 lie inside them), none scanned.
        assert_eq!(p.may_move(5, 20.0, 2, 5.0), None);
        assert_eq!(p.live_runs, 1);
        // 10 free after job 0's release at 10, right up to job 1's take: 8 nodes for any length
        // may move (up to its take), from 10 on.
        assert_eq!(p.may_move(8, 50.0, 1, 10.0), Some(10.0));
        // 4 nodes free from now up to the take at 10 (before == 0 is the run from now).
        assert_eq!(p.may_move(4, 50.0, 0, 10.0), Some(0.0));
        // 3 nodes for 20 s by time 20: [0, 10) is too short, the run from 15 never ends; no
        // window starts before it, and a search from there finds what one from now finds.
        assert_eq!(p.may_move(3, 20.0, 2, 20.0), Some(15.0));
        let from_now = p.earliest(3, 20.0, 3, SimTime::INFINITY, 0.0);
        assert_eq!(from_now, Some(Moment::start_of(15.0)));
        assert_eq!(p.earliest(3, 20.0, 3, SimTime::INFINITY, 15.0), from_now);
    }

    #[test]
    fn a_gallop_from_any_index_finds_the_partition_point() {
        let steps: Vec<Step> = (0..100u32)
            .map(|k| {
                Step::new(
                    Moment::start_of(f64::from(k / 3)),
                    Change::Release,
                    JobId(k),
                    1,
                )
            })
            .collect();
        for at in [-1.0, 0.0, 5.0, 17.5, 33.0, 40.0] {
            let want = steps.partition_point(|s| s.at < at);
            for near in [0, 1, 15, 16, 50, 99, 100, 500] {
                assert_eq!(
                    gallop(&steps, near, |s| s.at < at),
                    want,
                    "{at} from {near}"
                );
            }
        }
        assert_eq!(gallop(&[], 3, |s| s.at < 1.0), 0);
    }

    #[test]
    fn marks_find_the_next_marked_change() {
        let counts: Vec<i32> = (0..150).map(|i| if i % 70 == 3 { 0 } else { 5 }).collect();
        let mut buf = Vec::new();
        let m = Marks::new(&mut buf, &counts, 1, 0);
        assert_eq!(m.next(0), Some(3));
        assert_eq!(m.next(4), Some(73));
        assert_eq!(m.next(74), Some(143));
        assert_eq!(m.next(144), None);
    }

    #[test]
    fn marks_pass_over_runs_too_short_for_a_job() {
        // 150 changes a second apart, marked at 3, 73 and 143: runs of 1..=69 changes between.
        let counts: Vec<i32> = (0..150).map(|i| if i % 70 == 3 { 0 } else { 5 }).collect();
        let steps: Vec<Step> = (0..150)
            .map(|i| Step::new(Moment::start_of(f64::from(i)), Change::Release, JobId(0), 1))
            .collect();
        let mut buf = Vec::new();
        let m = Marks::new(&mut buf, &counts, 1, 0);
        assert_eq!(m.long_run(0, &steps, 3.0), Some(0), "[0, 3) lasts 3 s");
        assert_eq!(m.long_run(0, &steps, 4.0), Some(4), "then [4, 73)");
        assert_eq!(m.long_run(1, &steps, 69.0), Some(4), "[4, 73) lasts 69 s");
        assert_eq!(
            m.long_run(1, &steps, 70.0),
            Some(144),
            "so does [74, 143): after it"
        );
        assert_eq!(
            m.long_run(3, &steps, 69.0),
            Some(4),
            "a marked change starts no run"
        );
        assert_eq!(
            m.long_run(144, &steps, 1e9),
            Some(144),
            "the last run never ends"
        );
        assert_eq!(m.long_run(150, &steps, 1.0), None, "no change left");
    }
}
