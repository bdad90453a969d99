//! MPJ-CoSched&TS: gang scheduling by time-slice classes (coscheduling-time-sharing.md §4.2–4.3,
//! Rotzoll 1993), label `gang` or `gang:slice=S,nmax=N,retry=R[,switch=C]` (`slice=median`: the median run
//! time of the whole workload, the report's slice; no slice: the running median).
//!
//! A *time-slice class* (ZSK, a row of Ousterhout's matrix) is a set of jobs on disjoint rectangles
//! with its own allocator state (a private [`System::empty_allocator`]). Classes are served
//! round-robin, one slice each per round; at a slice boundary the outgoing class's jobs are suspended
//! and the incoming class's jobs resumed (or started) on their nodes. A job may belong to several
//! classes, always on the same nodes: an *alternative placement* lets it run in another class's slice
//! too. Jobs not yet placed wait in the `nmp_list` (`largest_first::NmpList`: descending size,
//! `RetryLim`).
//!
//! The §4.2 steps, as implemented (choices marked ▸, see docs/ALGORITHMS.md):
//! * **Arrival of j**: if no job of `nmp_list` has been passed over `RetryLim` times, j is tried in
//!   every class, starting with the class being served and in round order; placed in the class being
//!   served, it starts at once. Otherwise (or when nothing fits) j joins `nmp_list`. ▸ With no class
//!   at all (an idle machine) a round starts at once.
//! * **Termination** (the jobs departing at one instant, together): each leaves every class it
//!   belongs to; (1) an emptied class is deleted — if it is the class being served, the round goes on
//!   with the next class at once (a full slice); (2) otherwise `nmp_list` is tried in the served
//!   class, in order; (3) its free nodes are filled with alternative placements of other classes'
//!   jobs, which start or resume at once.
//! * **Slice end** of ZSK_a: (1) if every job of ZSK_a also belongs to another class, ZSK_a is
//!   deleted; (2) control passes to the next class, or a new round starts after the last one.
//! * **Slice start** of ZSK_a: the running jobs that are not in ZSK_a are suspended (in the order they
//!   started running), then ZSK_a's jobs are resumed or started (in class order). A job in both
//!   classes keeps running. ▸ With a context-switch cost C > 0 and a different class coming in (not
//!   after an idle period), the nodes stay idle for C before the incoming jobs run (the slice proper
//!   lasts S after that).
//! * **Round start**: while `nmp_list` is not empty and fewer than `n_max` classes exist, a new class
//!   is created at the front of the list (in creation order) and `nmp_list` is placed into it in
//!   order; then every class is filled with alternative placements; the round starts at the first
//!   class.
//!
//! Allocation in a class (§4.3, Fig. 4.1): FF-2G — the class's allocator (`ff`: row order; `buddy2d`:
//! buddy order) — for the request, then for the request turned by 90°, then by evicting one
//! alternative placement of the class (▸ the first, in class order, whose removal makes room; ▸ never
//! one that is running in the class being served).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fmt;
use std::ops::Index;
use std::sync::{Arc, Mutex};

use super::label::{self, Form};
use super::largest_first::NmpList;
use super::{Scheduler, System};
use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::{Placement, Request};
use crate::workload::{JobId, Workload};

/// Parameters of MPJ-CoSched&TS (the `gang:` label).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GangParams {
    /// Slice length; `None`: the running median of the run times of the jobs submitted so far
    /// (floored at 1 when it is 0), read at each slice start.
    pub slice: Option<SimTime>,
    /// `slice=median`: the slice is the median run time of the whole workload (the report's),
    /// fixed before the run by [`GangParams::for_workload`] (which the engine's replays call);
    /// unresolved, the running median.
    pub median_slice: bool,
    /// Most classes at once (`n_max`).
    pub n_max: u32,
    /// `RetryLim`.
    pub retry: u32,
    /// Context-switch cost per slice change (idle nodes), ≥ 0.
    pub switch: SimTime,
}

impl GangParams {
    /// Default `n_max` (the report gives no value; eight rows of Ousterhout's matrix).
    pub const N_MAX: u32 = 8;
    /// Default `RetryLim` (the report's space-sharing value, as for largest-first).
    pub const RETRY: u32 = super::largest_first::RETRY;
}

impl Default for GangParams {
    fn default() -> Self {
        GangParams {
            slice: None,
            median_slice: false,
            n_max: Self::N_MAX,
            retry: Self::RETRY,
            switch: 0.0,
        }
    }
}

impl fmt::Display for GangParams {
    /// The label: `gang` plus every non-default parameter.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        label::write(f, "gang", &self.args())
    }
}

impl GangParams {
    /// Reads the `key=value` arguments after `gang:`; `None` when a key is unknown or a value out
    /// of range (a key given twice: the last value).
    pub fn from_pairs(pairs: &[(&str, &str)]) -> Option<GangParams> {
        let mut p = GangParams::default();
        for &(k, v) in pairs {
            let time = || v.parse::<SimTime>().ok().filter(|t| t.is_finite());
            match k {
                "slice" if v == "median" => p.median_slice = true,
                "slice" => p.slice = Some(time().filter(|t| *t > 0.0)?),
                "nmax" => p.n_max = v.parse().ok().filter(|&n| n >= 1)?,
                "retry" => p.retry = v.parse().ok()?,
                "switch" => p.switch = time().filter(|t| *t >= 0.0)?,
                _ => return None,
            }
        }
        Some(p)
    }

    /// Every non-default parameter as `key=value`, in the order slice, nmax, retry, switch.
    pub fn args(&self) -> Vec<String> {
        let d = GangParams::default();
        let mut args = Vec::new();
        if let Some(s) = self.slice {
            args.push(format!("slice={s}"));
        } else if self.median_slice {
            args.push("slice=median".into());
        }
        if self.n_max != d.n_max {
            args.push(format!("nmax={}", self.n_max));
        }
        if self.retry != d.retry {
            args.push(format!("retry={}", self.retry));
        }
        if self.switch != d.switch {
            args.push(format!("switch={}", self.switch));
        }
        args
    }

    /// The parameters for a run of `w`: `slice=median` becomes the median run time of its jobs
    /// (the upper median, `runtimes[n/2]` of the sorted run times; 1 when that is not positive).
    pub fn for_workload(self, w: &Workload) -> GangParams {
        if !self.median_slice || self.slice.is_some() {
            return self;
        }
        let mut r: Vec<f64> = w.jobs.iter().map(|j| j.runtime).collect();
        r.sort_by(f64::total_cmp);
        let median = r.get(r.len() / 2).copied().filter(|m| *m > 0.0);
        GangParams {
            slice: Some(median.unwrap_or(1.0)),
            median_slice: false,
            ..self
        }
    }
}

/// What a gang replay did that the outcome does not show: the number of classes over time and the
/// class changes at slice boundaries. Shared with the caller through [`gang_with_log`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GangLog {
    /// `(t, classes)` whenever the number of classes changes (a step function).
    pub classes: Vec<(SimTime, u32)>,
    /// Slice boundaries at which a different class came in on a busy machine (class context switches;
    /// the first class after an idle period is not one).
    pub switches: u64,
}

/// MPJ-CoSched&TS with its log shared through `log`.
pub fn gang_with_log(params: GangParams, log: Arc<Mutex<GangLog>>) -> Box<dyn Scheduler> {
    Box::new(Gang::new(params).with_log(log))
}

/// A job's membership of a class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Member {
    job: JobId,
    /// Added as an alternative placement (the job belongs to another class first).
    alt: bool,
}

/// A time-slice class.
#[derive(Clone)]
struct Class {
    id: u64,
    alloc: Box<dyn Allocator>,
    members: Vec<Member>,
}

/// Where a placed job stands in the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    NotStarted,
    Running,
    Suspended,
}

/// A placed job: its nodes and the classes it belongs to.
#[derive(Debug, Clone)]
struct Placed {
    placement: Placement,
    classes: Vec<u64>,
    run: Run,
}

/// The placed jobs, indexed by job (dense ids: O(1) lookups, no hashing).
#[derive(Debug, Clone, Default)]
struct PlacedJobs {
    slots: Vec<Option<Placed>>,
    /// Placed jobs that have not started yet.
    unstarted: usize,
}

impl PlacedJobs {
    fn get(&self, job: &JobId) -> Option<&Placed> {
        self.slots.get(job.index())?.as_ref()
    }
    fn get_mut(&mut self, job: &JobId) -> Option<&mut Placed> {
        self.slots.get_mut(job.index())?.as_mut()
    }
    fn insert(&mut self, job: JobId, p: Placed) {
        if job.index() >= self.slots.len() {
            self.slots.resize_with(job.index() + 1, || None);
        }
        self.unstarted += usize::from(p.run == Run::NotStarted);
        self.slots[job.index()] = Some(p);
    }
    fn remove(&mut self, job: &JobId) {
        if let Some(slot) = self.slots.get_mut(job.index())
            && let Some(p) = slot.take()
        {
            self.unstarted -= usize::from(p.run == Run::NotStarted);
        }
    }
}

impl Index<&JobId> for PlacedJobs {
    type Output = Placed;
    fn index(&self, job: &JobId) -> &Placed {
        self.get(job).expect("a placed job")
    }
}

/// What the class being served is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No class exists.
    Idle,
    /// Paying the context-switch cost before the incoming class runs.
    Switching,
    /// The class's jobs run.
    Serving,
}

/// Running median of the run times seen (two heaps of non-negative `f64` bit patterns).
#[derive(Debug, Clone, Default)]
struct RunningMedian {
    low: BinaryHeap<u64>,
    high: BinaryHeap<Reverse<u64>>,
}

impl RunningMedian {
    fn push(&mut self, x: SimTime) {
        let b = x.max(0.0).to_bits();
        if self.low.peek().is_none_or(|&l| b <= l) {
            self.low.push(b);
        } else {
            self.high.push(Reverse(b));
        }
        if self.low.len() > self.high.len() + 1 {
            let v = self.low.pop().unwrap_or_default();
            self.high.push(Reverse(v));
        } else if self.high.len() > self.low.len() {
            let Reverse(v) = self.high.pop().unwrap_or_default();
            self.low.push(v);
        }
    }
    /// The lower median (nearest rank), 0 when empty.
    fn get(&self) -> SimTime {
        self.low.peek().map_or(0.0, |&b| f64::from_bits(b))
    }
}

/// MPJ-CoSched&TS.
#[derive(Clone)]
pub(crate) struct Gang {
    params: GangParams,
    nmp: NmpList,
    /// The classes in round order.
    classes: Vec<Class>,
    next_class: u64,
    jobs: PlacedJobs,
    /// Jobs running now, in the order they started running.
    running: Vec<JobId>,
    /// The class being served.
    current: Option<u64>,
    phase: Phase,
    /// Timers carry `epoch << 1 | is_switch_end`; a timer of an earlier epoch is stale.
    epoch: u64,
    median: RunningMedian,
    log: Option<Arc<Mutex<GangLog>>>,
}

const SWITCH_DONE: u64 = 1;

impl Gang {
    pub(crate) fn new(params: GangParams) -> Self {
        Gang {
            params,
            nmp: NmpList::new(params.retry),
            classes: Vec::new(),
            next_class: 0,
            jobs: PlacedJobs::default(),
            running: Vec::new(),
            current: None,
            phase: Phase::Idle,
            epoch: 0,
            median: RunningMedian::default(),
            log: None,
        }
    }

    fn with_log(mut self, log: Arc<Mutex<GangLog>>) -> Self {
        self.log = Some(log);
        self
    }

    fn index(&self, id: u64) -> Option<usize> {
        self.classes.iter().position(|c| c.id == id)
    }

    fn current_index(&self) -> Option<usize> {
        self.current.and_then(|id| self.index(id))
    }

    fn slice(&self) -> SimTime {
        self.params.slice.unwrap_or_else(|| {
            let m = self.median.get();
            if m > 0.0 { m } else { 1.0 }
        })
    }

    fn note_classes(&self, now: SimTime) {
        if let Some(log) = &self.log {
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            let n = self.classes.len() as u32;
            match log.classes.last_mut() {
                Some(last) if last.1 == n => {}
                Some(last) if last.0 == now => last.1 = n,
                _ => log.classes.push((now, n)),
            }
        }
    }

    /// FF-2G in class `ci` (§4.3): the request, then turned by 90°, then in place of one evictable
    /// alternative placement. Marks the nodes busy in the class and records the membership.
    fn place_in(&mut self, ci: usize, job: JobId, sys: &dyn System) -> bool {
        let req = sys.job(job).request;
        let serving = self.current == Some(self.classes[ci].id);
        let found = find_turning(self.classes[ci].alloc.as_mut(), &req)
            .or_else(|| self.evict_for(ci, &req, serving));
        let Some(placement) = found else {
            return false;
        };
        let class = &mut self.classes[ci];
        class.alloc.occupy(&placement);
        class.members.push(Member { job, alt: false });
        self.jobs.insert(
            job,
            Placed {
                placement,
                classes: vec![class.id],
                run: Run::NotStarted,
            },
        );
        true
    }

    /// Removes the first alternative placement of class `ci` whose nodes make room for `req`
    /// (never one running in the class being served) and returns where `req` goes.
    fn evict_for(&mut self, ci: usize, req: &Request, serving: bool) -> Option<Placement> {
        let class = &self.classes[ci];
        let (victim, placement) = class.members.iter().find_map(|m| {
            let placed = &self.jobs[&m.job];
            let too_small = class.alloc.free_nodes() + placed.placement.nodes() < req.nodes();
            if !m.alt || too_small || (serving && placed.run == Run::Running) {
                return None;
            }
            let mut trial = class.alloc.snapshot();
            trial.vacate(&placed.placement);
            find_turning(trial.as_mut(), req).map(|p| (m.job, p))
        })?;
        let class_id = class.id;
        self.leave_class(victim, ci);
        if let Some(p) = self.jobs.get_mut(&victim) {
            p.classes.retain(|&c| c != class_id);
        }
        Some(placement)
    }

    /// Takes `job` out of class `ci` (its nodes there become free).
    fn leave_class(&mut self, job: JobId, ci: usize) {
        let placement = self.jobs[&job].placement.clone();
        let class = &mut self.classes[ci];
        class.alloc.vacate(&placement);
        class.members.retain(|m| m.job != job);
    }

    /// Starts or resumes `job` now (its class, or one of them, is being served).
    fn run_now(&mut self, job: JobId, sys: &mut dyn System) {
        let Some(p) = self.jobs.get_mut(&job) else {
            return;
        };
        let first = p.run == Run::NotStarted;
        let ok = match p.run {
            Run::Running => return,
            Run::NotStarted => sys.try_start_on(job, p.placement.clone()),
            Run::Suspended => sys.resume(job),
        };
        if ok {
            p.run = Run::Running;
            self.running.push(job);
            self.jobs.unstarted -= usize::from(first);
        }
    }

    /// Whether newly placed jobs of the class being served run at once.
    fn serving(&self) -> bool {
        self.phase == Phase::Serving
    }

    /// Arrival step: tries `job` in every class from the one being served, in round order.
    fn try_classes(&mut self, job: JobId, sys: &mut dyn System) -> bool {
        let n = self.classes.len();
        let from = self.current_index().unwrap_or(0);
        for k in 0..n {
            let ci = (from + k) % n;
            if self.place_in(ci, job, sys) {
                if k == 0 && self.serving() {
                    self.run_now(job, sys);
                }
                return true;
            }
        }
        false
    }

    /// Termination step 2: `nmp_list` into the class being served, in order (with `RetryLim`).
    fn place_waiting_in(&mut self, ci: usize, sys: &mut dyn System) -> Vec<JobId> {
        let mut list = std::mem::take(&mut self.nmp);
        let placed = list.pass(|job| self.place_in(ci, job, sys));
        self.nmp = list;
        placed
    }

    /// Fills the free nodes of class `ci` with alternative placements of the other classes' jobs
    /// (classes in round order, jobs in class order); they run at once when `ci` is being served.
    fn fill_alternatives(&mut self, ci: usize, sys: &mut dyn System) {
        let target = self.classes[ci].id;
        if self.classes[ci].alloc.free_nodes() == 0 {
            return;
        }
        let candidates: Vec<JobId> = self
            .classes
            .iter()
            .filter(|c| c.id != target)
            .flat_map(|c| c.members.iter().map(|m| m.job))
            .collect();
        let run = self.current == Some(target) && self.serving();
        for job in candidates {
            let placed = &self.jobs[&job];
            let alloc = &self.classes[ci].alloc;
            if placed.placement.nodes() > alloc.free_nodes()
                || placed.classes.contains(&target)
                || !alloc.is_free(&placed.placement)
            {
                continue;
            }
            let placement = placed.placement.clone();
            self.classes[ci].alloc.occupy(&placement);
            self.classes[ci].members.push(Member { job, alt: true });
            if let Some(p) = self.jobs.get_mut(&job) {
                p.classes.push(target);
            }
            if run {
                self.run_now(job, sys);
            }
        }
    }

    /// Deletes class `ci`; its jobs' first remaining membership becomes their primary one.
    fn delete_class(&mut self, ci: usize, now: SimTime) {
        let class = self.classes.remove(ci);
        for m in class.members {
            let Some(p) = self.jobs.get_mut(&m.job) else {
                continue;
            };
            p.classes.retain(|&c| c != class.id);
            if !m.alt
                && let Some(&first) = p.classes.first()
                && let Some(c) = self.classes.iter_mut().find(|c| c.id == first)
                && let Some(mm) = c.members.iter_mut().find(|mm| mm.job == m.job)
            {
                mm.alt = false;
            }
        }
        self.note_classes(now);
    }

    /// Round start (§4.2): new classes at the front for `nmp_list` (up to `n_max`), alternative
    /// placements everywhere, then the first class.
    fn start_round(&mut self, sys: &mut dyn System) {
        let mut created = 0;
        while !self.nmp.is_empty() && (self.classes.len() as u32) < self.params.n_max {
            self.classes.insert(
                created,
                Class {
                    id: self.next_class,
                    alloc: sys.empty_allocator(),
                    members: Vec::new(),
                },
            );
            self.next_class += 1;
            if self.place_waiting_in(created, sys).is_empty() {
                self.classes.remove(created); // cannot happen: any job fits an empty class
                break;
            }
            created += 1;
        }
        self.note_classes(sys.now());
        for ci in 0..self.classes.len() {
            self.fill_alternatives(ci, sys);
        }
        self.serve(0, sys);
    }

    /// Passes control to class `ci` (or goes idle when there is none): the slice-start step.
    fn serve(&mut self, ci: usize, sys: &mut dyn System) {
        self.epoch += 1;
        let Some(incoming) = self.classes.get(ci).map(|c| c.id) else {
            self.current = None;
            self.phase = Phase::Idle;
            return;
        };
        // From an idle machine nothing is switched out: no cost, not counted.
        let changed = self.phase != Phase::Idle && self.current != Some(incoming);
        if changed && let Some(log) = &self.log {
            log.lock().unwrap_or_else(|e| e.into_inner()).switches += 1;
        }
        self.current = Some(incoming);
        let outgoing: Vec<JobId> = std::mem::take(&mut self.running);
        for job in outgoing {
            let stays = self.jobs[&job].classes.contains(&incoming);
            if stays {
                self.running.push(job);
            } else if sys.suspend(job)
                && let Some(p) = self.jobs.get_mut(&job)
            {
                p.run = Run::Suspended;
            }
        }
        if changed && self.params.switch > 0.0 {
            self.phase = Phase::Switching;
            sys.set_timer(
                sys.now() + self.params.switch,
                self.epoch << 1 | SWITCH_DONE,
            );
        } else {
            self.begin_slice(sys);
        }
    }

    /// The incoming class's jobs run; its slice ends after one slice length.
    fn begin_slice(&mut self, sys: &mut dyn System) {
        self.phase = Phase::Serving;
        let Some(ci) = self.current_index() else {
            return;
        };
        let members: Vec<JobId> = self.classes[ci].members.iter().map(|m| m.job).collect();
        for job in members {
            self.run_now(job, sys);
        }
        sys.set_timer(sys.now() + self.slice(), self.epoch << 1);
    }

    /// Slice end of the class being served (§4.2).
    fn end_slice(&mut self, sys: &mut dyn System) {
        let Some(ci) = self.current_index() else {
            return;
        };
        let class = &self.classes[ci];
        let covered = class
            .members
            .iter()
            .all(|m| self.jobs[&m.job].classes.len() > 1);
        let next = if covered {
            self.delete_class(ci, sys.now());
            ci
        } else {
            ci + 1
        };
        self.advance(next, sys);
    }

    /// Serves class `next`, or starts a new round when the round is over.
    fn advance(&mut self, next: usize, sys: &mut dyn System) {
        if next < self.classes.len() {
            self.serve(next, sys);
        } else {
            self.start_round(sys);
        }
    }

    /// Removes a departed job everywhere; returns whether the class being served was deleted, and
    /// its index (where the round goes on) if so.
    fn remove_departed(&mut self, job: JobId, now: SimTime) -> Option<usize> {
        self.running.retain(|&j| j != job);
        let placed = self.jobs.get(&job)?;
        let mut current_deleted = None;
        for id in placed.classes.clone() {
            let Some(ci) = self.index(id) else { continue };
            self.leave_class(job, ci);
            if self.classes[ci].members.is_empty() {
                if self.current == Some(id) {
                    current_deleted = Some(ci);
                }
                self.delete_class(ci, now);
            }
        }
        self.jobs.remove(&job);
        current_deleted
    }
}

/// FF-2G with the 90° turn: `req` as asked, then turned (a placement flagged `rotated` when its
/// shape is the turned one).
fn find_turning(alloc: &mut dyn Allocator, req: &Request) -> Option<Placement> {
    if let Some(p) = alloc.find(req) {
        return Some(p);
    }
    let Request::Submesh(shape) = *req else {
        return None;
    };
    if shape.rotated() == shape {
        return None;
    }
    match alloc.find(&Request::Submesh(shape.rotated()))? {
        Placement::Submesh { at, .. } => Some(Placement::Submesh {
            at,
            rotated: at.shape != shape,
        }),
        _ => None,
    }
}

impl Scheduler for Gang {
    /// A copy that keeps no log: the log records the replay itself.
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(Gang {
            log: None,
            ..self.clone()
        }))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.median.push(sys.job(job).runtime);
        if self.nmp.admits_newcomer() && self.try_classes(job, sys) {
            self.nmp.placed(job);
            return;
        }
        self.nmp.push(job, sys.job(job).request);
        if self.phase == Phase::Idle {
            self.start_round(sys);
        }
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        let departed: Vec<JobId> = sys.departed().to_vec();
        let mut deleted_at = None;
        for job in departed {
            if let Some(ci) = self.remove_departed(job, sys.now()) {
                deleted_at = Some(ci);
            }
        }
        if let Some(next) = deleted_at {
            self.current = None;
            self.advance(next, sys);
            return;
        }
        let Some(ci) = self.current_index() else {
            return;
        };
        let placed = self.place_waiting_in(ci, sys);
        if self.serving() {
            for job in placed {
                self.run_now(job, sys);
            }
        }
        self.fill_alternatives(ci, sys);
    }

    fn on_timer(&mut self, token: u64, sys: &mut dyn System) {
        if token >> 1 != self.epoch {
            return;
        }
        if token & SWITCH_DONE == SWITCH_DONE {
            self.begin_slice(sys);
        } else {
            self.end_slice(sys);
        }
    }

    fn waiting(&self) -> usize {
        self.nmp.len() + self.jobs.unstarted
    }
}

/// `gang[:slice=S,nmax=N,retry=R,switch=C]`.
pub(super) const GANG: Form<GangParams> = Form::new(
    |l| match l.bare() {
        Some(()) => Some(GangParams::default()),
        None => GangParams::from_pairs(&l.pairs()?),
    },
    GangParams::args,
    |&p| Box::new(Gang::new(p)),
);
