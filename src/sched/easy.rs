//! EASY backfilling (Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 12(6), 2001, §2): one FCFS queue
//! in which only the head holds a reservation.
//!
//! One pass per instant (see [`backfill`](super::backfill)), at the end of the instant:
//!
//! 1. start jobs from the head while they fit (FCFS);
//! 2. the first job that does not fit — the head — gets a reservation: the earliest time it could
//!    start if the running jobs end at their estimated ends (a job past its estimate ends "now"), and
//!    the placement the allocator would give it then ([`plan::earliest_start`]). That time is the
//!    *shadow time*; the machine as it would be then is the *shadow state*;
//! 3. every later job, in arrival order, starts now if it fits now (on the placement the allocator
//!    chooses now) and does not delay the reservation: it ends, by its estimate, no later than the
//!    shadow time; or, on the shadow state with its own placement occupied, the head still finds a
//!    placement. A job started by the second rule stays in the shadow state for the rest of the pass.
//!
//! `easy:sjbf` (shortest job backfilled first; Tsafrir, Etsion & Feitelson, IEEE TPDS 18(6), 2007,
//! EASY++) visits the jobs behind the head in order of increasing estimate instead (ties in arrival
//! order); everything else is the same.
//!
//! `easy:order=O` serves the queue in a [queue order](super::order) instead of arrival order, its
//! values recomputed at each pass (a static order's kept from arrival, the queue held by rank:
//! [`RankedQueue`]): step 1 starts the highest-ranked jobs while they fit, the first that does
//! not is the head of step 2, and step 3 visits the others in the same order.
//!
//! A pass visits in order only the candidates that could start: a job needing more nodes than are
//! free when step 3 begins never fits during it, nor one that would outlast the shadow time on
//! more nodes than the shadow state leaves beside the head (both counts only shrink during the
//! pass). The candidates are ranked in a binary heap and taken from it one at a time, so a pass
//! that stops early (no free node left) has not sorted the rest; step 1 finds the top by one scan
//! of the values, and ranks the others in a heap only when the top starts. Under a static order
//! nothing is ranked in a pass: the top is the front of the kept queue, the candidates follow it
//! in order.
//!
//! On a flat machine the second rule is exactly the textbook "extra nodes" rule: the head finds a
//! place in the shadow state with the candidate's nodes taken iff the candidate needs no more than
//! `free at shadow − head's size` nodes, and each such job uses up that many extra nodes. On a
//! topology it is the sound reading of "does not use any node of the reserved placement": the
//! reservation *time* is kept, while the head may end up on another placement of the shadow state
//! (docs/ALGORITHMS.md, "Backfilling on topologies").

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

use super::backfill::{BACKFILL_COST, DeferredPass};
use super::label::Form;
use super::order::queue::RankedQueue;
use super::order::{OrderName, Ranking, Ranks};
use super::ordered::{order_args, read_order};
use super::plan;
use super::semantics::ArrivalPass;
use super::{Scheduler, System};
use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::{Placement, Request};
use crate::workload::JobId;

/// EASY backfilling.
#[derive(Debug, Default)]
pub(crate) struct Easy {
    /// Waiting jobs in arrival order (under a queue order: in its queue instead).
    queue: VecDeque<Waiting>,
    pass: DeferredPass,
    /// The order in which the jobs behind the head are tried.
    order: Order,
    /// The ranks of a pass (`easy:sjbf`), kept for their allocations.
    ranks: Ranks,
    /// The engine's [`System::estimates_epoch`] when the waiting jobs' estimates were read.
    epoch: u64,
}

/// The order of the queue and of the backfilling candidates.
#[derive(Debug, Default)]
enum Order {
    /// Arrival order (`easy`).
    #[default]
    Arrival,
    /// Arrival order for the head, shortest estimate first for the candidates, ties in arrival
    /// order (`easy:sjbf`).
    ShortestFirst,
    /// A queue order for both (`easy:order=O`), with the waiting jobs.
    Ranked(Box<RankedQueue<Waiting>>),
}

/// A waiting job with what the backfill pass reads of it, copied at arrival (a pass visits
/// every waiting job; at high load the queue holds thousands) and again when the engine's
/// estimates change.
#[derive(Debug, Clone, Copy)]
struct Waiting {
    id: JobId,
    req: Request,
    nodes: u32,
    /// What `easy:sjbf` orders by.
    estimate: SimTime,
    /// What the backfill test runs the job for ([`System::backfill_length`]).
    length: SimTime,
}

impl Waiting {
    fn read(id: JobId, sys: &dyn System) -> Self {
        let job = sys.job(id);
        Waiting {
            id,
            req: job.request,
            nodes: job.request.nodes(),
            estimate: job.estimate,
            length: sys.backfill_length(id),
        }
    }
}

/// The head's reservation during one pass.
struct Shadow {
    /// Its time and node counts.
    room: Room,
    /// The machine at the reserved start, with the backfilled jobs that outlast it.
    state: Box<dyn Allocator>,
    /// The head's request.
    head: Request,
}

/// The time and node counts of the head's reservation (a copy narrows a pass's candidates
/// from the counts at the start of step 3).
#[derive(Debug, Clone, Copy)]
struct Room {
    /// The reserved start (the shadow time).
    time: SimTime,
    /// The free nodes of the shadow state.
    free: u32,
    /// The head's nodes.
    head_nodes: u32,
}

impl Room {
    /// Whether a job of `nodes` nodes ending (by estimate) at `end` could leave the head its start
    /// time at all: one that outlasts the shadow time must leave the head enough free nodes there.
    /// A cheap necessary condition, checked before the allocator is asked for a placement.
    fn may_admit(&self, nodes: u32, end: SimTime) -> bool {
        end <= self.time || self.free.saturating_sub(nodes) >= self.head_nodes
    }

    /// Whether a job of `nodes` nodes could start now with `free` nodes free at all in this pass:
    /// the tests of step 3 that need no placement, on counts that only shrink during the pass (a
    /// job that fails them now fails them at its turn).
    fn may_start(&self, nodes: u32, length: SimTime, now: SimTime, free: u32) -> bool {
        free > 0 && nodes <= free && self.may_admit(nodes, now + length)
    }
}

impl Shadow {
    /// Whether a job on `p` ending (by estimate) at `end` leaves the head its start time.
    fn admits(&mut self, p: &Placement, end: SimTime) -> bool {
        if end <= self.room.time {
            return true;
        }
        // An allocator whose free set is structured (semitorus pieces) may not be able to hold `p`
        // in the shadow state's structure: then the head's time cannot be shown safe, and the job
        // waits.
        self.state.is_free(p) && self.state.fits_beside(p, &self.head)
    }

    /// A job started on `p`, ending at `end`: it holds `p` in the shadow state if it outlasts it.
    fn take(&mut self, p: &Placement, end: SimTime) {
        if end > self.room.time {
            self.state.occupy(p);
            self.room.free = self.state.free_nodes();
        }
    }
}

impl Easy {
    /// EASY with the queue and the backfilling candidates in `order`.
    fn new(order: Order) -> Self {
        Easy {
            order,
            ..Easy::default()
        }
    }

    /// EASY with the queue and the backfilling candidates in the order of `ranking`.
    pub(crate) fn ranked(ranking: Ranking) -> Self {
        Easy::new(Order::Ranked(Box::new(RankedQueue::new(ranking))))
    }

    /// Starts jobs from the head while they fit; the head that is left, if any.
    fn start_head(&mut self, sys: &mut dyn System) -> Option<Request> {
        while let Some(head) = self.queue.front() {
            if !sys.try_start(head.id) {
                return Some(head.req);
            }
            self.queue.pop_front();
        }
        None
    }

    /// The pass of one instant.
    fn run(&mut self, sys: &mut dyn System) {
        self.reread(sys);
        if let Order::Ranked(queue) = &mut self.order {
            return run_ranked(queue, sys);
        }
        let Some(req) = self.start_head(sys) else {
            return;
        };
        let Some(mut shadow) = reserve(self.queue[0].id, req, sys) else {
            return;
        };
        let queue = &self.queue;
        let started = match self.order {
            Order::ShortestFirst => {
                // Candidates by increasing estimate, ties in arrival order.
                let (now, free) = (sys.now(), sys.free_nodes());
                let ranks = &mut self.ranks;
                ranks.heap(
                    (queue.iter().enumerate().skip(1))
                        .filter(|(_, w)| shadow.room.may_start(w.nodes, w.length, now, free))
                        .map(|(i, w)| (i, -w.estimate)),
                );
                let order = std::iter::from_fn(|| ranks.pop()).map(|i| (i, &queue[i]));
                backfill(order, &mut shadow, sys)
            }
            _ => backfill(queue.iter().enumerate().skip(1), &mut shadow, sys),
        };
        for &i in started.iter().rev() {
            self.queue.remove(i);
        }
    }

    /// Reads the waiting jobs again when the engine's estimates changed since they were read.
    fn reread(&mut self, sys: &dyn System) {
        let epoch = sys.estimates_epoch();
        if epoch == self.epoch {
            return;
        }
        self.epoch = epoch;
        for w in &mut self.queue {
            *w = Waiting::read(w.id, sys);
        }
        if let Order::Ranked(queue) = &mut self.order {
            queue.reread(sys, |w| *w = Waiting::read(w.id, sys));
        }
    }
}

/// The pass of one instant under a queue order: the top of the ranking while it starts, a
/// reservation for the first that does not, the others backfilled in rank order.
fn run_ranked(queue: &mut RankedQueue<Waiting>, sys: &mut dyn System) {
    let now = sys.now();
    queue.rank(now);
    let head = queue.start_tops(|_, w| sys.try_start(w.id));
    let mut started = Vec::new();
    if let Some((_, h)) = head
        && let Some(mut shadow) = reserve(h.id, h.req, sys)
        && sys.free_nodes() > 0
    {
        let (free, room) = (sys.free_nodes(), shadow.room);
        let rest = queue.rest(|_, w| room.may_start(w.nodes, w.length, now, free));
        started = backfill(rest.map(|(p, _, w)| (p, w)), &mut shadow, sys);
    }
    queue.finish(&started);
}

/// Step 2: the reservation of the head `id` (`req`), promised to it; `None` when it never fits.
fn reserve(id: JobId, req: Request, sys: &mut dyn System) -> Option<Shadow> {
    let now = sys.now();
    let mut state = sys.snapshot();
    let res = plan::earliest_start(now, &req, state.as_mut(), &sys.running_jobs())?;
    sys.promise(id, res.start);
    Some(Shadow {
        room: Room {
            time: res.start,
            free: state.free_nodes(),
            head_nodes: req.nodes(),
        },
        state,
        head: req,
    })
}

/// Step 3: the candidates `order` gives (each with its place in the queue), in that order. The
/// machine now is mirrored in a snapshot (kept up to date), taken only once a candidate gets
/// past the node counts. Returns the places started, ascending (they leave the queue after the
/// pass).
fn backfill<'a, P: Ord>(
    order: impl Iterator<Item = (P, &'a Waiting)>,
    shadow: &mut Shadow,
    sys: &mut dyn System,
) -> Vec<P> {
    // Requests that do not fit now: the free set only shrinks during the pass.
    let mut no_fit = FxHashSet::default();
    // Requests that fit now but, outlasting the shadow time, would take the head's room: the
    // same until the next start changes the machine or the shadow state.
    let mut refused = FxHashSet::default();
    let now = sys.now();
    let mut now_state: Option<Box<dyn Allocator>> = None;
    let mut free = sys.free_nodes();
    let mut started_at = Vec::new();
    for (place, w) in order {
        if free == 0 {
            break;
        }
        let end = now + w.length;
        let outlasts = end > shadow.room.time;
        let started = free >= w.nodes
            && shadow.room.may_admit(w.nodes, end)
            && !no_fit.contains(&w.req)
            && !(outlasts && refused.contains(&w.req))
            && {
                let state = now_state.get_or_insert_with(|| sys.snapshot());
                match state.find(&w.req) {
                    None => {
                        no_fit.insert(w.req);
                        false
                    }
                    Some(p) if !shadow.admits(&p, end) => {
                        refused.insert(w.req);
                        false
                    }
                    Some(p) => {
                        start_on(w.id, &p, state.as_mut(), sys) && {
                            shadow.take(&p, end);
                            refused.clear();
                            free = state.free_nodes();
                            true
                        }
                    }
                }
            };
        if started {
            started_at.push(place);
        }
    }
    started_at.sort_unstable();
    started_at
}

/// Starts `j` on `p` (free now) and marks it busy in `now_state`.
fn start_on(j: JobId, p: &Placement, now_state: &mut dyn Allocator, sys: &mut dyn System) -> bool {
    if !sys.try_start_on(j, p.clone()) {
        return false;
    }
    now_state.occupy(p);
    true
}

impl Scheduler for Easy {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        let order = match &self.order {
            Order::Arrival => Order::Arrival,
            Order::ShortestFirst => Order::ShortestFirst,
            Order::Ranked(q) => Order::Ranked(Box::new(q.fork()?)),
        };
        Some(Box::new(Easy {
            queue: self.queue.clone(),
            pass: self.pass.clone(),
            order,
            ranks: self.ranks.clone(),
            epoch: self.epoch,
        }))
    }
    fn on_arrival(&mut self, id: JobId, sys: &mut dyn System) {
        let w = Waiting::read(id, sys);
        match &mut self.order {
            Order::Ranked(queue) => queue.push(sys.job(id), &*sys, w),
            _ => self.queue.push_back(w),
        }
        let if_fits = matches!(self.order, Order::Arrival)
            && sys.semantics().arrival_pass == ArrivalPass::IfFits;
        if !if_fits || sys.free_nodes() >= w.nodes {
            self.pass.arm(sys);
        }
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        if let Order::Ranked(queue) = &mut self.order {
            queue.departed(&*sys);
        }
        self.pass.arm(sys);
    }

    /// A running job's estimate grew: the head's reservation may move later, letting more jobs
    /// backfill now.
    fn on_overrun(&mut self, sys: &mut dyn System) {
        self.pass.arm(sys);
    }

    fn on_timer(&mut self, token: u64, sys: &mut dyn System) {
        if self.pass.fire(token, sys) {
            self.run(sys);
        }
    }

    fn waiting(&self) -> usize {
        match &self.order {
            Order::Ranked(queue) => queue.len(),
            _ => self.queue.len(),
        }
    }
}

/// `easy`.
pub(super) const EASY: Form<()> =
    Form::bare(|_| Box::new(Easy::new(Order::Arrival)))
        .cost(BACKFILL_COST)
        .estimates(|_| true);

/// `easy:sjbf`.
pub(super) const SJBF: Form<()> = Form::new(
    |l| l.keyword("sjbf"),
    |_| vec!["sjbf".into()],
    |_| Box::new(Easy::new(Order::ShortestFirst)),
)
.cost(BACKFILL_COST)
.estimates(|_| true);
/// `easy:order=O`: the policy's own build, in arrival order; a replay builds the order with
/// [`SchedKind::build_with`](super::SchedKind::build_with).
pub(super) const ORDERED: Form<OrderName> =
    Form::new(read_order, order_args, |_| (EASY.build)(&())).cost(BACKFILL_COST)
        .estimates(|_| true);
