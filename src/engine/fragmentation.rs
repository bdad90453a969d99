//! Fragmentation of one replay, measured from its [`Timeline`]: why jobs waited although nodes
//! were free.
//!
//! The replay's placements are played again, in time order, on a fresh allocator of the kind that
//! made them (a run's nodes are freed before a run starting at the same instant takes any); after
//! the events of each instant `t` the state holds until the next instant, and gives one
//! [`FragStep`]. With `N` nodes, `idle(t)` free nodes and `W(t)` the waiting jobs
//! (`submit ≤ t < first start`):
//!
//! * **needed nodes** of a job = the nodes its allocator grants it on the empty machine (its request
//!   rounded up where the allocator rounds: buddy, semitorus), else its request's node count;
//! * **lost nodes** `L(t)` = `idle(t)` when some waiting job needs no more nodes than are idle, else
//!   0 ("loss of capacity": idle nodes the queue could have used by count);
//!   **external fragmentation** = `∫ L(t)/N dt / (last end − first submit)`, 0…1;
//! * a job is **delayed by fragmentation** when, at some instant while it waited, it was the head of
//!   the queue (the waiting job submitted first, ties the lower index — no older job had a claim on
//!   the nodes), it needed no more nodes than were idle, and the allocator found no placement for it.
//!   Only its placement stood between it and a start: not the queue order (it was the head), not
//!   the count of free nodes. The head is used rather than any waiting job because a later job may
//!   wait for its turn (FCFS) whatever the free set looks like. A scheduler that holds a head back
//!   on purpose (lazy, delay) does not count: the allocator *would* have placed it;
//!   **share** = delayed jobs / jobs;
//! * **free regions** `R(t)` on a 2D mesh = the number of maximal free submeshes (window-k-mesh.md
//!   Definition 1; `Mesh::count_maximal_free_submeshes`): how many separate holes the free set is in;
//!   **mean free regions** = `∫ R(t) dt / (last end − first submit)`. It is 0 on other topologies
//!   (and when a placement is not a submesh, e.g. the `flat` allocator on a mesh): a k-D box or a
//!   subcube count is not implemented, and 0 keeps tables comparable (`NaN` would break equality).
//!
//! Internal fragmentation (granted − asked processors) needs no replay; it is in
//! [`summarize`](super::summarize).

use rustc_hash::FxHashMap;

use super::Timeline;
use crate::SimTime;
use crate::machine::{AllocKind, Allocator, MachineSpec, Mesh, Placement, RegionCounter, Request};
use crate::workload::Job;

/// The state of the machine and queue from `t` until the next step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FragStep {
    /// Simulated time.
    pub t: SimTime,
    /// Nodes held by running jobs.
    pub busy_nodes: u32,
    /// Jobs waiting.
    pub waiting: u32,
    /// Idle nodes some waiting job could use by count (`L(t)` of the module doc), else 0.
    pub lost_nodes: u32,
    /// Idle nodes while the head of the queue could use them by count, else 0.
    pub head_lost_nodes: u32,
    /// Maximal free submeshes (2D mesh only).
    pub free_regions: Option<u32>,
}

impl FragStep {
    /// What the step adds to the averages of [`FragSummary`] on `nodes` nodes: the lost and
    /// head-lost shares and the free regions.
    pub(super) fn values(&self, nodes: u32) -> [f64; 3] {
        let n = f64::from(nodes);
        [
            f64::from(self.lost_nodes) / n,
            f64::from(self.head_lost_nodes) / n,
            f64::from(self.free_regions.unwrap_or(0)),
        ]
    }
}

/// The fragmentation measures of one replay (see the module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Fragmentation {
    /// The machine's nodes.
    pub nodes: u32,
    /// First submit and last end.
    pub span: (SimTime, SimTime),
    /// One step per instant at which anything changed, in time order.
    pub steps: Vec<FragStep>,
    /// `delayed[i]`: job `i` was delayed by fragmentation.
    pub delayed: Vec<bool>,
}

impl Fragmentation {
    /// External fragmentation: time-average of `L(t)/N` over the span, 0…1.
    pub fn external(&self) -> f64 {
        let n = f64::from(self.nodes);
        if n == 0.0 {
            return 0.0;
        }
        self.time_average(|s| f64::from(s.lost_nodes) / n)
    }

    /// External fragmentation counted only while the head of the queue fits by node count: the
    /// time-average of `L_head(t)/N`, 0…1.
    pub fn external_head(&self) -> f64 {
        let n = f64::from(self.nodes);
        if n == 0.0 {
            return 0.0;
        }
        self.time_average(|s| f64::from(s.head_lost_nodes) / n)
    }

    /// Jobs delayed by fragmentation.
    pub fn delayed_jobs(&self) -> u64 {
        self.delayed.iter().filter(|&&d| d).count() as u64
    }

    /// Delayed jobs / jobs (0 without jobs).
    pub fn delayed_share(&self) -> f64 {
        if self.delayed.is_empty() {
            0.0
        } else {
            self.delayed_jobs() as f64 / self.delayed.len() as f64
        }
    }

    /// Time-average number of maximal free submeshes (0 off a 2D mesh).
    pub fn mean_free_regions(&self) -> f64 {
        self.time_average(|s| f64::from(s.free_regions.unwrap_or(0)))
    }

    /// `∫ f(step) dt / span`, each step lasting until the next (0 for an empty span).
    fn time_average(&self, f: impl Fn(&FragStep) -> f64) -> f64 {
        let (first, last) = self.span;
        let mut avg = TimeAverages::new(first);
        for s in &self.steps {
            avg.push([f(s)], s.t, s.t <= last);
        }
        let [a] = avg.finish(last);
        a
    }
}

/// The fragmentation measures of one replay without its steps (see the module doc): what
/// [`summarize`](super::summarize) reports, accumulated step by step, so a long replay keeps no
/// step list.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FragSummary {
    /// [`Fragmentation::external`].
    pub external: f64,
    /// [`Fragmentation::external_head`].
    pub external_head: f64,
    /// [`Fragmentation::delayed_jobs`].
    pub delayed_jobs: u64,
    /// [`Fragmentation::delayed_share`].
    pub delayed_share: f64,
    /// [`Fragmentation::mean_free_regions`].
    pub mean_free_regions: f64,
}

impl FragSummary {
    /// The summary of the averages of [`FragStep::values`] on `nodes` nodes, `delayed_jobs` of
    /// `jobs` delayed. Without nodes the shares are not finite; they are reported 0 as
    /// [`Fragmentation::external`] does.
    pub(super) fn new(
        [lost, head_lost, regions]: [f64; 3],
        nodes: u32,
        delayed_jobs: u64,
        jobs: usize,
    ) -> Self {
        let zero_nodes = |avg: f64| if nodes == 0 { 0.0 } else { avg };
        FragSummary {
            external: zero_nodes(lost),
            external_head: zero_nodes(head_lost),
            delayed_jobs,
            delayed_share: if jobs == 0 {
                0.0
            } else {
                delayed_jobs as f64 / jobs as f64
            },
            mean_free_regions: regions,
        }
    }
}

/// `∫ v(t) dt / (last − first)` of `N` step functions over `[first, last]`, fed step by step (each
/// value holds until the next step, the last until `last`), also before `last` is known: a step
/// whose end may lie past it waits until it is known not to (the meter, frag_meter.rs). Every step
/// adds its clipped area in order, so the sums are the same, bit for bit, however `last` is learnt.
pub(super) struct TimeAverages<const N: usize> {
    first: SimTime,
    area: [f64; N],
    /// The last step: its time and values.
    open: Option<(SimTime, [f64; N])>,
    /// Closed steps (time, end, values) whose end may lie past the span's end, in order.
    pending: Vec<(SimTime, SimTime, [f64; N])>,
}

impl<const N: usize> TimeAverages<N> {
    pub(super) fn new(first: SimTime) -> Self {
        TimeAverages {
            first,
            // -0.0: the neutral element `Iterator::sum` starts from, so the sign of a zero is kept.
            area: [-0.0; N],
            open: None,
            pending: Vec::new(),
        }
    }

    /// A step at `t`; `inside`: the span's end is known to be at `t` or later.
    pub(super) fn push(&mut self, values: [f64; N], t: SimTime, inside: bool) {
        if let Some((t0, v)) = self.open.take() {
            self.pending.push((t0, t, v));
        }
        self.open = Some((t, values));
        if inside {
            self.settle(t);
        }
    }

    /// Adds the pending steps, `end` being the span's end or a time no later than it and no
    /// earlier than any pending step's end.
    fn settle(&mut self, end: SimTime) {
        for (t, next, v) in self.pending.drain(..) {
            let dt = (next.min(end) - t.max(self.first)).max(0.0);
            for (area, v) in self.area.iter_mut().zip(v) {
                *area += v * dt;
            }
        }
    }

    /// The averages over `[first, last]` (0 for an empty span).
    pub(super) fn finish(mut self, last: SimTime) -> [f64; N] {
        if last.total_cmp(&self.first).is_le() {
            return [0.0; N];
        }
        if let Some((t, v)) = self.open.take() {
            self.pending.push((t, last, v));
        }
        self.settle(last);
        let span = last - self.first;
        self.area.map(|a| a / span)
    }
}

/// Measures the fragmentation of the replay in `tl`, made by allocator `alloc`, keeping every step
/// (pictures and the viewer draw them).
pub fn measure_fragmentation(tl: &Timeline<'_>, alloc: AllocKind) -> Fragmentation {
    let mut steps: Vec<FragStep> = Vec::new();
    let delayed = play(tl, alloc, |s| steps.push(s));
    Fragmentation {
        nodes: tl.machine().nodes(),
        span: tl.span(),
        steps,
        delayed,
    }
}

/// The measures of [`measure_fragmentation`] without keeping the steps: equal, bit for bit, to
/// its `external()`, `external_head()`, … .
pub fn summarize_fragmentation(tl: &Timeline<'_>, alloc: AllocKind) -> FragSummary {
    let (first, last) = tl.span();
    let nodes = tl.machine().nodes();
    let mut averages = TimeAverages::new(first);
    let delayed = play(tl, alloc, |s| {
        averages.push(s.values(nodes), s.t, s.t <= last)
    });
    let delayed_jobs = delayed.iter().filter(|&&d| d).count() as u64;
    FragSummary::new(averages.finish(last), nodes, delayed_jobs, delayed.len())
}

/// Plays the replay in `tl` again (see [`measure_fragmentation`]), handing each step to `on_step`
/// in time order; returns which jobs were delayed by fragmentation.
///
/// The changes are taken instant by instant from four streams each sorted by time (ends, starts,
/// submits, first starts) and applied in that order within an instant, each stream by index; the
/// queue's head and its smallest need are kept by a cursor and a count per need, not a sorted set.
/// Cost: `O((R + J) log(R + J))` for the sorts plus one allocator question and one free-region
/// count per instant.
fn play(tl: &Timeline<'_>, alloc: AllocKind, mut on_step: impl FnMut(FragStep)) -> Vec<bool> {
    let machine = tl.machine();
    let jobs = &tl.workload().jobs;
    let runs = tl.runs();
    let starts = tl.first_starts();
    let n_jobs = starts.len();
    let mut state = State::new(machine, alloc);
    let needed: Vec<u32> = jobs[..n_jobs]
        .iter()
        .map(|j| state.needed(&j.request))
        .collect();
    let mut vacate = Stream::sorted_by(runs.len(), |k| runs[k].end);
    let mut occupy = Stream::sorted_by(runs.len(), |k| runs[k].start);
    let mut arrive = Stream::sorted_by(n_jobs, |i| jobs[i].submit);
    let mut leave = Stream::sorted_by(n_jobs, |i| starts[i]);
    let mut queue = Queue::new(n_jobs, machine.nodes());
    let mut delayed = vec![false; n_jobs];
    while let Some(t) = [vacate.peek(), occupy.peek(), arrive.peek(), leave.peek()]
        .into_iter()
        .flatten()
        .min_by(f64::total_cmp)
    {
        vacate.take_at(t, |k| state.vacate(&runs[k].placement));
        occupy.take_at(t, |k| state.occupy(&runs[k].placement));
        arrive.take_at(t, |i| queue.arrive(i, needed[i]));
        leave.take_at(t, |i| queue.leave(i, needed[i]));
        let (step, newly_delayed) = state.step(t, &mut queue, jobs, |h| delayed[h], None);
        if let Some(h) = newly_delayed {
            delayed[h] = true;
        }
        on_step(step);
    }
    delayed
}

/// Indices in time order (ties by index), consumed instant by instant. Indices whose times are in
/// order already (starts of runs, submits of a workload) need no list; others keep a sorted list of
/// 4-byte indices, the times read where they are.
struct Stream<F> {
    /// `time(i)`: the time of index `i`.
    time: F,
    len: usize,
    /// The indices in time order, or `None` when that is `0..len`.
    order: Option<Vec<u32>>,
    next: usize,
}

impl<F: Fn(usize) -> SimTime> Stream<F> {
    /// Indices `0..len` sorted by `time(i)`, then `i`.
    fn sorted_by(len: usize, time: F) -> Self {
        let in_order = (1..len).all(|i| time(i - 1).total_cmp(&time(i)).is_le());
        let order = (!in_order).then(|| {
            let mut order: Vec<u32> = (0..len as u32).collect();
            order.sort_unstable_by(|&a, &b| {
                time(a as usize)
                    .total_cmp(&time(b as usize))
                    .then(a.cmp(&b))
            });
            order
        });
        Stream {
            time,
            len,
            order,
            next: 0,
        }
    }

    /// The next index, if any.
    fn index(&self) -> Option<usize> {
        match &self.order {
            _ if self.next >= self.len => None,
            Some(order) => Some(order[self.next] as usize),
            None => Some(self.next),
        }
    }

    fn peek(&self) -> Option<SimTime> {
        self.index().map(&self.time)
    }

    /// Calls `f` on every index whose time equals `t`, in order.
    fn take_at(&mut self, t: SimTime, mut f: impl FnMut(usize)) {
        while let Some(i) = self.index() {
            if (self.time)(i) != t {
                break;
            }
            f(i);
            self.next += 1;
        }
    }
}

/// The waiting jobs: the head (lowest index) by a cursor over one bit per job, the count of
/// waiting jobs per needed node count in a Fenwick tree (is some waiting job's need ≤ idle?).
pub(super) struct Queue {
    /// Bit `i % 64` of word `i / 64`: job `i` waits.
    waiting: Vec<u64>,
    pub(super) len: u32,
    /// No waiting job has an index below it.
    cursor: usize,
    /// Fenwick tree over needs `0..=nodes` (a larger need never fits: it is not counted).
    by_need: Vec<u32>,
}

impl Queue {
    /// An empty queue of `jobs` jobs on `nodes` nodes.
    pub(super) fn new(jobs: usize, nodes: u32) -> Self {
        Queue {
            waiting: vec![0; jobs.div_ceil(64)],
            len: 0,
            cursor: 0,
            by_need: vec![0; nodes as usize + 2],
        }
    }

    fn bit(i: usize) -> (usize, u64) {
        (i / 64, 1 << (i % 64))
    }

    /// Job `i`, needing `need` nodes, starts waiting (again: no change).
    pub(super) fn arrive(&mut self, i: usize, need: u32) {
        let (w, b) = Self::bit(i);
        if self.waiting[w] & b == 0 {
            self.waiting[w] |= b;
            self.len += 1;
            self.cursor = self.cursor.min(i);
            self.count(need, true);
        }
    }

    /// Job `i`, needing `need` nodes, stops waiting (if it waited).
    pub(super) fn leave(&mut self, i: usize, need: u32) {
        let (w, b) = Self::bit(i);
        if self.waiting[w] & b != 0 {
            self.waiting[w] &= !b;
            self.len -= 1;
            self.count(need, false);
        }
    }

    /// The waiting job submitted first (the lowest index), if any.
    pub(super) fn head(&mut self) -> Option<usize> {
        if self.len == 0 {
            return None;
        }
        let mut w = self.cursor / 64;
        let mut word = self.waiting[w] & (u64::MAX << (self.cursor % 64));
        while word == 0 {
            w += 1;
            word = self.waiting[w];
        }
        self.cursor = w * 64 + word.trailing_zeros() as usize;
        Some(self.cursor)
    }

    /// Adds (or removes) one waiting job at `need` in the Fenwick tree.
    fn count(&mut self, need: u32, add: bool) {
        let mut k = need as usize + 1;
        while k < self.by_need.len() {
            if add {
                self.by_need[k] += 1;
            } else {
                self.by_need[k] -= 1;
            }
            k += k & k.wrapping_neg();
        }
    }

    /// Whether some waiting job needs no more than `idle` nodes.
    pub(super) fn any_fits(&self, idle: u32) -> bool {
        let mut k = (idle as usize + 1).min(self.by_need.len() - 1);
        let mut sum = 0;
        while k > 0 {
            sum += self.by_need[k];
            k &= k - 1;
        }
        sum > 0
    }
}

/// The replayed free/busy state: the allocator (for placement questions), a mesh bitmap (for free
/// regions: the allocator's own when its state is one, [`Allocator::mesh`]) and the idle count. A
/// placement that does not fit the state (a hand-made outcome) switches the part it does not fit
/// off instead of panicking. A state that [watches](Self::watching) a replay keeps no allocator of
/// its own: each step asks the replay's.
pub(super) struct State {
    nodes: u32,
    busy: u32,
    /// The replayed allocator (none when watching, or once a placement did not fit it).
    alloc: Option<Box<dyn Allocator>>,
    /// The allocator on the empty machine, for needed node counts (none asked of it when it
    /// grants what is requested).
    empty: Option<Box<dyn Allocator>>,
    /// The allocator grants what is requested: a need is the request's own count.
    exact: bool,
    needed: FxHashMap<Request, u32>,
    /// The last head of the queue asked about and its need (a head waits many instants).
    head_need: Option<(usize, u32)>,
    /// A mesh of its own, when the allocator keeps none.
    mesh: Option<Mesh>,
    /// Free regions are counted on the allocator's mesh (gone with the allocator).
    shared_mesh: bool,
    /// Counts free regions, recounting only what a change can have touched.
    counter: RegionCounter,
    /// Free regions of the current mesh state, computed when asked after a change.
    regions: Option<u32>,
}

impl State {
    pub(super) fn new(machine: MachineSpec, alloc: AllocKind) -> Self {
        let mut state = Self::watching(machine, alloc);
        state.alloc = alloc.build(machine).ok();
        state
    }

    /// The state of a replay on `machine` by `alloc` that the replay's own allocator answers for
    /// (passed to each [`step`](Self::step)): only a mesh bitmap where that allocator keeps none.
    pub(super) fn watching(machine: MachineSpec, alloc: AllocKind) -> Self {
        let empty = alloc.build(machine).ok();
        let shared_mesh = empty.as_ref().is_some_and(|a| a.mesh().is_some());
        let mesh = match machine {
            MachineSpec::Mesh { size } if !shared_mesh => Some(Mesh::new(size)),
            _ => None,
        };
        State {
            nodes: machine.nodes(),
            busy: 0,
            alloc: None,
            exact: empty.as_ref().is_some_and(|a| a.grants_requested_nodes()),
            empty,
            needed: FxHashMap::default(),
            head_need: None,
            mesh,
            shared_mesh,
            counter: RegionCounter::default(),
            regions: None,
        }
    }

    /// The nodes `req` holds once placed: its own count where the allocator grants what is
    /// requested, else what it grants on the empty machine (its own count where it fits nowhere).
    pub(super) fn needed(&mut self, req: &Request) -> u32 {
        if self.exact {
            return req.nodes();
        }
        if let Some(&n) = self.needed.get(req) {
            return n;
        }
        let granted = self.empty.as_mut().and_then(|a| a.find(req));
        let n = granted.map_or(req.nodes(), |p| p.nodes());
        self.needed.insert(*req, n);
        n
    }

    pub(super) fn idle(&self) -> u32 {
        self.nodes.saturating_sub(self.busy)
    }

    pub(super) fn occupy(&mut self, p: &Placement) {
        self.take(p, true);
    }

    /// [`occupy`](Self::occupy) for a placement the engine granted on the same free set: free by
    /// construction, so not checked (the check costs as much as the occupying).
    pub(super) fn occupy_granted(&mut self, p: &Placement) {
        self.take(p, false);
    }

    fn take(&mut self, p: &Placement, check: bool) {
        self.busy = self.busy.saturating_add(p.nodes());
        if let Some(a) = &mut self.alloc {
            if !check || a.is_free(p) {
                a.occupy(p);
            } else {
                self.alloc = None;
            }
        }
        self.mesh_change(p, Some(check));
    }

    pub(super) fn vacate(&mut self, p: &Placement) {
        self.busy = self.busy.saturating_sub(p.nodes());
        if let Some(a) = &mut self.alloc {
            a.vacate(p);
        }
        self.mesh_change(p, None);
    }

    /// The mesh bitmap follows an occupy (`Some(check)`: whether to check that `p` is free) or a
    /// vacate (`None`).
    fn mesh_change(&mut self, p: &Placement, occupy: Option<bool>) {
        if self.shared_mesh {
            self.regions = None;
            return;
        }
        let Some(mesh) = &mut self.mesh else { return };
        self.regions = None;
        match (p, occupy) {
            (Placement::Submesh { at, .. }, Some(check)) if !check || mesh.is_free(at) => {
                mesh.occupy(at)
            }
            (Placement::Submesh { at, .. }, None) => mesh.vacate(at),
            _ => self.mesh = None,
        }
    }

    /// Whether the allocator (`watched`, else the state's own) finds no place for `req` now (false
    /// when there is none): [`Allocator::fits`], which some allocators answer without ranking
    /// placements.
    fn cannot_place(&mut self, req: &Request, watched: Option<&mut (dyn Allocator + '_)>) -> bool {
        match watched {
            Some(a) => !a.fits(req),
            None => self.alloc.as_mut().is_some_and(|a| !a.fits(req)),
        }
    }

    /// The free regions now, on the allocator's mesh (`watched`, else the state's own) or the
    /// state's own bitmap.
    fn regions(&mut self, watched: Option<&(dyn Allocator + '_)>) -> Option<u32> {
        let mesh = if self.shared_mesh {
            match watched {
                Some(a) => a.mesh()?,
                None => self.alloc.as_ref()?.mesh()?,
            }
        } else {
            self.mesh.as_ref()?
        };
        if self.regions.is_none() {
            let holes = self.counter.count(mesh);
            self.regions = Some(holes as u32);
        }
        self.regions
    }

    /// The step at `t` of this state and `queue` (the state after the events of `t`), and the head
    /// of the queue if it is delayed by fragmentation now and was not found so before
    /// (`known_delayed(head)`; the allocator is not asked again for such a head). A state that
    /// watches a replay is given the replay's allocator as `watched`.
    pub(super) fn step(
        &mut self,
        t: SimTime,
        queue: &mut Queue,
        jobs: &[Job],
        known_delayed: impl Fn(usize) -> bool,
        mut watched: Option<&mut dyn Allocator>,
    ) -> (FragStep, Option<usize>) {
        let idle = self.idle();
        let mut head_fits = false;
        let mut newly_delayed = None;
        if let Some(h) = queue.head() {
            let req = &jobs[h].request;
            let need = match self.head_need {
                Some((i, need)) if i == h => need,
                _ => self.needed(req),
            };
            self.head_need = Some((h, need));
            head_fits = need <= idle;
            if head_fits && !known_delayed(h) && self.cannot_place(req, watched.as_deref_mut()) {
                newly_delayed = Some(h);
            }
        }
        let fits = queue.any_fits(idle);
        let step = FragStep {
            t,
            busy_nodes: self.nodes - idle,
            waiting: queue.len,
            lost_nodes: if fits { idle } else { 0 },
            head_lost_nodes: if head_fits { idle } else { 0 },
            free_regions: self.regions(watched.as_deref()),
        };
        (step, newly_delayed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{JobRecord, Outcome};
    use crate::machine::{Coord, Shape, Submesh};
    use crate::workload::{Job, Workload};

    fn job(i: u32, submit: f64, w: u32, h: u32) -> Job {
        Job::sample(i, submit, 1.0, Request::Submesh(Shape::new(w, h)))
    }

    /// A run on `(x, y)`-based `w × h`.
    fn rec(start: f64, end: f64, (x, y): (u32, u32), (w, h): (u32, u32)) -> JobRecord {
        JobRecord {
            start,
            end,
            placement: Placement::Submesh {
                at: Submesh {
                    base: Coord { x, y },
                    shape: Shape::new(w, h),
                },
                rotated: false,
            },
            killed: false,
            reserved: None,
        }
    }

    fn outcome(records: Vec<JobRecord>) -> Outcome {
        Outcome {
            records,
            ..Default::default()
        }
    }

    const MESH_4X2: MachineSpec = MachineSpec::Mesh {
        size: Shape::new(4, 2),
    };

    #[test]
    fn a_head_blocked_by_holes_is_delayed_by_fragmentation() {
        // 4×2 mesh. Columns 1 and 3 are busy over [0, 10) and [0, 20): columns 0 and 2 are free,
        // 4 idle nodes but no free 2×2. Job 2 (2×2) heads the queue from 0 and starts at 10.
        //   t ∈ [0, 10): idle 4, job 2 needs 4 → lost 4, no place → delayed; holes: 2 columns.
        //   t ∈ [10, 20): job 2 on (0,0)-(1,1), column 2 idle, nobody waits; 1 hole.
        let w = Workload::from_jobs(
            vec![job(0, 0.0, 1, 2), job(1, 0.0, 1, 2), job(2, 0.0, 2, 2)],
            1,
        );
        let out = outcome(vec![
            rec(0.0, 10.0, (1, 0), (1, 2)),
            rec(0.0, 20.0, (3, 0), (1, 2)),
            rec(10.0, 20.0, (0, 0), (2, 2)),
        ]);
        let tl = Timeline::new(&w, &out, MESH_4X2);
        let f = measure_fragmentation(&tl, AllocKind::FirstFit);
        assert_eq!(f.delayed, [false, false, true]);
        assert_eq!(f.external(), (4.0 / 8.0) * 10.0 / 20.0);
        assert_eq!(
            f.external_head(),
            f.external(),
            "the blocked job is the head"
        );
        assert_eq!(f.delayed_share(), 1.0 / 3.0);
        assert_eq!(f.mean_free_regions(), (2.0 * 10.0 + 1.0 * 10.0) / 20.0);
        let lost: Vec<(f64, u32)> = f.steps.iter().map(|s| (s.t, s.lost_nodes)).collect();
        assert_eq!(lost, [(0.0, 4), (10.0, 0), (20.0, 0)]);
        // The flat allocator places any count: the same schedule delays nobody.
        let flat = measure_fragmentation(&tl, AllocKind::Flat);
        assert_eq!(flat.delayed_jobs(), 0);
        assert_eq!(flat.external(), f.external());
        assert_same_summary(&tl, AllocKind::FirstFit);
        assert_same_summary(&tl, AllocKind::Flat);
    }

    /// `summarize_fragmentation` gives `measure_fragmentation`'s measures, bit for bit.
    fn assert_same_summary(tl: &Timeline<'_>, alloc: AllocKind) {
        let f = measure_fragmentation(tl, alloc);
        let s = summarize_fragmentation(tl, alloc);
        let bits = |x: f64| x.to_bits();
        assert_eq!(bits(s.external), bits(f.external()));
        assert_eq!(bits(s.external_head), bits(f.external_head()));
        assert_eq!(bits(s.mean_free_regions), bits(f.mean_free_regions()));
        assert_eq!(bits(s.delayed_share), bits(f.delayed_share()));
        assert_eq!(s.delayed_jobs, f.delayed_jobs());
    }

    #[test]
    fn the_summary_without_steps_equals_the_measures_on_real_replays() {
        // A few hundred jobs of random shapes on a 16×8 mesh, every mesh allocator, light and
        // saturated: the streamed averages equal the ones over the kept steps.
        let m = MachineSpec::Mesh {
            size: Shape::new(16, 8),
        };
        let jobs: Vec<Job> = (0..300u32)
            .map(|i| {
                let mut j = job(
                    i,
                    f64::from(i * 7 % 13 + i * 3),
                    1 + i * 5 % 9,
                    1 + i * 3 % 7,
                );
                j.runtime = f64::from(1 + i * 11 % 40);
                j.estimate = j.runtime;
                j
            })
            .collect();
        let w = Workload::from_jobs(jobs, 1);
        for alloc in [AllocKind::FirstFit, AllocKind::Mpl, AllocKind::Flat] {
            for sched in ["fcfs", "window:10"] {
                let out = crate::engine::replay(
                    &w,
                    m,
                    sched.parse().unwrap(),
                    alloc,
                    &mut crate::engine::NoObserver,
                )
                .unwrap();
                assert_same_summary(&Timeline::new(&w, &out, m), alloc);
            }
        }
    }

    #[test]
    fn a_later_job_that_fits_counts_as_lost_capacity_but_not_as_delayed() {
        // 4×2 mesh. Job 0 holds 3×2 over [0, 10): 2 nodes idle (column 3). Job 1 (2×2) waits from
        // 1: it needs 4 > 2, nothing lost. Job 2 (1×1) waits behind it from 2: it would fit, so
        // the 2 idle nodes are lost until 10. Both start at 10 and end at 15.
        //   external = (2/8 · 8) / 15; holes: column 3 over [0, 10); column 3 and row 1 from x = 2
        //   over [10, 15).
        let w = Workload::from_jobs(
            vec![job(0, 0.0, 3, 2), job(1, 1.0, 2, 2), job(2, 2.0, 1, 1)],
            1,
        );
        let out = outcome(vec![
            rec(0.0, 10.0, (0, 0), (3, 2)),
            rec(10.0, 15.0, (0, 0), (2, 2)),
            rec(10.0, 15.0, (2, 0), (1, 1)),
        ]);
        let f = measure_fragmentation(&Timeline::new(&w, &out, MESH_4X2), AllocKind::FirstFit);
        assert_eq!(f.delayed_jobs(), 0);
        assert!((f.external() - 2.0 / 15.0).abs() < 1e-15);
        // The head (job 1) never fits by count while it waits: nothing lost on the head's reading.
        assert_eq!(f.external_head(), 0.0);
        assert!((f.mean_free_regions() - (1.0 * 10.0 + 2.0 * 5.0) / 15.0).abs() < 1e-15);
        let waiting: Vec<u32> = f.steps.iter().map(|s| s.waiting).collect();
        assert_eq!(waiting, [0, 1, 2, 0, 0]);
    }

    #[test]
    fn free_regions_are_zero_off_a_mesh_and_rounding_is_not_fragmentation() {
        // hypercube:2, buddy. Job 0 holds one node over [0, 4); job 1 asks a 1-cube (2 nodes) and
        // gets one at once; nothing waits, so nothing is lost or delayed.
        let m = MachineSpec::Hypercube { dim: 2 };
        let sub = |start, end, addr, mask| JobRecord {
            start,
            end,
            placement: Placement::Subcube(crate::machine::Subcube::new(2, addr, mask)),
            killed: false,
            reserved: None,
        };
        let mut j0 = job(0, 0.0, 1, 1);
        j0.request = Request::Subcube(0);
        let mut j1 = job(1, 0.0, 1, 2);
        j1.request = Request::Subcube(1);
        let w = Workload::from_jobs(vec![j0, j1], 1);
        let out = outcome(vec![sub(0.0, 4.0, 0, 0), sub(0.0, 4.0, 0b10, 0b01)]);
        let f = measure_fragmentation(&Timeline::new(&w, &out, m), AllocKind::Buddy);
        assert_eq!((f.external(), f.delayed_jobs()), (0.0, 0));
        assert_eq!(f.mean_free_regions(), 0.0);
        assert!(f.steps.iter().all(|s| s.free_regions.is_none()));
    }
}
