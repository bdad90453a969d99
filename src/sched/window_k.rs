//! Window-K (window-k-mesh.md §4): out-of-order scheduling limited to a window of `K` consecutive
//! jobs that starts with the oldest job still waiting.
//!
//! Model: the arrived jobs from the oldest pending one `h` onwards, in arrival order, each *pending* or
//! *done*. The window is the first `K` of them — the range `[h, h+K)` — and done jobs inside it keep
//! their slots (Example 2: jobs 2 and 3 stay in the window after they start). Jobs beyond the window
//! wait in the FIFO without allocation attempts.
//!
//! * **Arrival** (§4, steps 1–2): if the window holds fewer than `K` jobs the newcomer joins it and is
//!   tried; otherwise it is appended to the FIFO untried. Nothing was freed, so no other job is tried.
//! * **Departure** (§4, steps 1–4): the window's pending jobs are tried in arrival order. A job that
//!   starts becomes done; when it is the window head, the head moves to the next pending job (past
//!   done ones), the window takes in jobs from the FIFO up to `K`, and the scan restarts from the new
//!   head, so newly admitted jobs are tried in the same pass.
//!
//! `K = 1` is FCFS; `K` at least the number of jobs behaves like OO on departures.
//!
//! `window:K,order=O` ([`RankedWindowK`]) keeps the window — the jobs it holds are Window-K's, by
//! arrival, so that the bound on overtaking stays the paper's — and tries the window's pending jobs
//! in a [queue order](super::order) instead of arrival order, in one pass per instant (values
//! recomputed at each, a static order's computed once, at arrival); when the pass has started the
//! window's first job, the window slides, admits, and the pass goes on with the pending jobs of the
//! new window, in rank order.
//!
//! The window's pending jobs are also kept in a [`WaitQueue`] (grouped by request): once the head
//! fails, the window is fixed for the rest of the pass, and as in the FIFO policies only class
//! fronts are visited — a job whose request already failed in the pass would fail again (nothing
//! is freed during a pass), so the allocator sees the same attempts in the same order as in a scan
//! of all `K` slots, at a cost that grows with the requests in the window rather than with `K`.

use std::collections::VecDeque;

use super::backfill::DeferredPass;
use super::label::Form;
use super::order::{Facts, OrderName, Ranking, Ranks};
use super::ordered::{args_with_order, read_with_order};
use super::queue::WaitQueue;
use super::{Scheduler, System};
use crate::workload::JobId;

/// One arrived job from the window head onwards.
#[derive(Debug, Clone, Copy)]
struct Slot {
    job: JobId,
    done: bool,
}

/// Window-K scheduling.
#[derive(Debug, Clone)]
pub(crate) struct WindowK {
    k: usize,
    /// Arrived jobs from the oldest pending one, in arrival (id) order; the front is always pending.
    slots: VecDeque<Slot>,
    pending: usize,
    /// The pending jobs of the first `admitted` slots (the window, once admitted).
    window: WaitQueue,
    /// Slots from the front whose pending jobs are in `window`.
    admitted: usize,
}

impl WindowK {
    /// A window of `k ≥ 1` jobs.
    pub(crate) fn new(k: u32) -> Self {
        WindowK {
            k: (k as usize).max(1),
            slots: VecDeque::new(),
            pending: 0,
            window: WaitQueue::default(),
            admitted: 0,
        }
    }

    /// Starts `job`, which is pending at slot `i` (and in `window` when `queued`); on success marks it
    /// done.
    fn start(&mut self, i: usize, queued: bool, sys: &mut dyn System) -> bool {
        let job = self.slots[i].job;
        if !sys.try_start(job) {
            return false;
        }
        if queued {
            self.window.remove_front(job);
        }
        self.slots[i].done = true;
        self.pending -= 1;
        true
    }

    /// The slot of `job`, a pending or done job from the head onwards.
    fn slot_of(&self, job: JobId) -> usize {
        self.slots.partition_point(|s| s.job < job)
    }

    /// Moves the window head past done jobs, then admits the jobs the window now reaches.
    fn slide(&mut self, sys: &dyn System) {
        while self.slots.front().is_some_and(|s| s.done) {
            self.slots.pop_front();
            self.admitted = self.admitted.saturating_sub(1);
        }
        let reach = self.slots.len().min(self.k);
        while self.admitted < reach {
            let job = self.slots[self.admitted].job;
            self.window.push(job, sys.job(job).request);
            self.admitted += 1;
        }
    }
}

impl Scheduler for WindowK {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(self.clone()))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        let in_window = self.slots.len() < self.k;
        self.slots.push_back(Slot { job, done: false });
        self.pending += 1;
        if !in_window {
            return;
        }
        self.admitted += 1;
        if self.start(self.slots.len() - 1, false, sys) {
            self.slide(&*sys);
        } else {
            self.window.push(job, sys.job(job).request);
        }
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        // The head while it starts (the window slides and admits after each), ...
        let head = loop {
            let Some(head) = self.window.head() else {
                return;
            };
            debug_assert_eq!(self.slots.front().map(|s| s.job), Some(head));
            if !self.start(0, true, sys) {
                break head;
            }
            self.slide(&*sys);
        };
        // ... then the rest of the window, now fixed, in arrival order: class fronts only.
        let mut cursor = head;
        while let Some(next) = self.window.front_after(cursor) {
            let i = self.slot_of(next);
            self.start(i, true, sys);
            cursor = next;
        }
    }

    fn waiting(&self) -> usize {
        self.pending
    }
}

/// `window:K` (K ≥ 1).
pub(super) const WINDOW: Form<u32> = Form::new(
    |l| l.count(1),
    |k| vec![k.to_string()],
    |&k| Box::new(WindowK::new(k)),
)
.title(|k| format!("Window-{k}"));

/// Window-K with the window's jobs tried in a queue order (see the module doc).
#[derive(Debug)]
pub(crate) struct RankedWindowK {
    k: usize,
    /// Arrived jobs from the oldest pending one, in arrival order, with what the order reads of
    /// them; the front is always pending.
    slots: VecDeque<(Slot, Facts)>,
    pending: usize,
    ranking: Ranking,
    pass: DeferredPass,
    ranks: Ranks,
}

impl RankedWindowK {
    /// A window of `k ≥ 1` jobs, tried in the order of `ranking`.
    pub(crate) fn new(k: u32, ranking: Ranking) -> Self {
        RankedWindowK {
            k: (k as usize).max(1),
            slots: VecDeque::new(),
            pending: 0,
            ranking,
            pass: DeferredPass::default(),
            ranks: Ranks::default(),
        }
    }

    /// The pass of one instant: the window's pending jobs in rank order, again after each slide
    /// that admits jobs.
    fn run(&mut self, sys: &mut dyn System) {
        let now = sys.now();
        self.ranking.begin(now);
        loop {
            let reach = self.slots.len().min(self.k);
            let mut ranks = std::mem::take(&mut self.ranks);
            let window = self.slots.iter().take(reach).map(|(_, f)| f);
            ranks.rank(&mut self.ranking, window);
            ranks.retain(|i| !self.slots[i].0.done);
            while let Some(i) = ranks.pop() {
                let (slot, facts) = &mut self.slots[i];
                if sys.try_start(slot.job) {
                    slot.done = true;
                    self.pending -= 1;
                    self.ranking.started(facts, now);
                }
            }
            self.ranks = ranks;
            let mut slid = 0;
            while self.slots.front().is_some_and(|(s, _)| s.done) {
                self.slots.pop_front();
                slid += 1;
            }
            // Slots admitted by the slide: those now within the window that were beyond it.
            if slid == 0 || self.slots.len() + slid <= reach {
                return;
            }
        }
    }
}

impl Scheduler for RankedWindowK {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(RankedWindowK {
            k: self.k,
            slots: self.slots.clone(),
            pending: self.pending,
            ranking: self.ranking.fork()?,
            pass: self.pass.clone(),
            ranks: self.ranks.clone(),
        }))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        let facts = self.ranking.facts(sys.job(job), &*sys);
        self.slots.push_back((Slot { job, done: false }, facts));
        self.pending += 1;
        self.pass.arm(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.ranking.departed(&*sys);
        self.pass.arm(sys);
    }

    fn on_timer(&mut self, token: u64, sys: &mut dyn System) {
        if self.pass.fire(token, sys) {
            self.run(sys);
        }
    }

    fn waiting(&self) -> usize {
        self.pending
    }
}

/// `window:K,order=O`: the policy's own build, in arrival order; a replay builds the order with
/// [`SchedKind::build_with`](super::SchedKind::build_with).
pub(super) const ORDERED: Form<(u32, OrderName)> = Form::new(
    |l| read_with_order(l, WINDOW.read),
    |p| args_with_order(p, WINDOW.args),
    |(k, _)| (WINDOW.build)(k),
)
.estimates(|_| true);
