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
    /// Waiting jobs in arrival order.
    queue: VecDeque<Waiting>,
    pass: DeferredPass,
    /// The order in which the jobs behind the head are tried.
    order: Order,
    /// The engine's [`System::estimates_epoch`] when the waiting jobs' estimates were read.
    epoch: u64,
}

/// The order of the backfilling candidates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Order {
    /// Arrival order (`easy`).
    #[default]
    Arrival,
    /// Shortest estimate first, ties in arrival order (`easy:sjbf`).
    ShortestFirst,
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
    /// The reserved start.
    time: SimTime,
    /// The machine at that time, with the backfilled jobs that outlast it.
    state: Box<dyn Allocator>,
    /// Its free nodes.
    free: u32,
    /// The head's request.
    head: Request,
}

impl Shadow {
    /// Whether a job of `nodes` nodes ending (by estimate) at `end` could leave the head its start
    /// time at all: one that outlasts the shadow time must leave the head enough free nodes there.
    /// A cheap necessary condition, checked before the allocator is asked for a placement.
    fn may_admit(&self, nodes: u32, end: SimTime) -> bool {
        end <= self.time || self.free.saturating_sub(nodes) >= self.head.nodes()
    }

    /// Whether a job on `p` ending (by estimate) at `end` leaves the head its start time.
    fn admits(&mut self, p: &Placement, end: SimTime) -> bool {
        if end <= self.time {
            return true;
        }
        // An allocator whose free set is structured (semitorus pieces) may not be able to hold `p`
        // in the shadow state's structure: then the head's time cannot be shown safe, and the job
        // waits.
        self.state.is_free(p) && self.state.fits_beside(p, &self.head)
    }

    /// A job started on `p`, ending at `end`: it holds `p` in the shadow state if it outlasts it.
    fn take(&mut self, p: &Placement, end: SimTime) {
        if end > self.time {
            self.state.occupy(p);
            self.free = self.state.free_nodes();
        }
    }
}

impl Easy {
    /// EASY with backfilling candidates tried in `order`.
    pub(crate) fn new(order: Order) -> Self {
        Easy {
            order,
            ..Easy::default()
        }
    }

    /// The queue positions behind the head, in the order they are tried (arrival order without
    /// building a list: a pass often stops after a few candidates).
    fn candidates(&self) -> Box<dyn Iterator<Item = usize>> {
        let n = self.queue.len();
        match self.order {
            Order::Arrival => Box::new(1..n),
            Order::ShortestFirst => {
                let mut order: Vec<usize> = (1..n).collect();
                order.sort_by(|&a, &b| self.queue[a].estimate.total_cmp(&self.queue[b].estimate));
                Box::new(order.into_iter())
            }
        }
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
        let epoch = sys.estimates_epoch();
        if epoch != self.epoch {
            self.epoch = epoch;
            for w in &mut self.queue {
                *w = Waiting::read(w.id, sys);
            }
        }
        let Some(req) = self.start_head(sys) else {
            return;
        };
        let now = sys.now();
        let mut state = sys.snapshot();
        let Some(res) = plan::earliest_start(now, &req, state.as_mut(), &sys.running_jobs()) else {
            return;
        };
        sys.promise(self.queue[0].id, res.start);
        let mut shadow = Shadow {
            time: res.start,
            free: state.free_nodes(),
            state,
            head: req,
        };
        self.backfill(&mut shadow, sys);
    }

    /// Step 3: the jobs behind the head, in the policy's order. The machine now is mirrored in a
    /// snapshot (kept up to date), taken only once a candidate gets past the node counts. Started
    /// jobs leave the queue at the end of the pass.
    fn backfill(&mut self, shadow: &mut Shadow, sys: &mut dyn System) {
        // Requests that do not fit now: the free set only shrinks during the pass.
        let mut no_fit = FxHashSet::default();
        // Requests that fit now but, outlasting the shadow time, would take the head's room: the
        // same until the next start changes the machine or the shadow state.
        let mut refused = FxHashSet::default();
        let now = sys.now();
        let mut now_state: Option<Box<dyn Allocator>> = None;
        let mut free = sys.free_nodes();
        let mut started_at = Vec::new();
        for i in self.candidates() {
            if free == 0 {
                break;
            }
            let w = self.queue[i];
            let end = now + w.length;
            let outlasts = end > shadow.time;
            let started = free >= w.nodes
                && shadow.may_admit(w.nodes, end)
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
                started_at.push(i);
            }
        }
        started_at.sort_unstable();
        for &i in started_at.iter().rev() {
            self.queue.remove(i);
        }
    }
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
    fn on_arrival(&mut self, id: JobId, sys: &mut dyn System) {
        let w = Waiting::read(id, sys);
        self.queue.push_back(w);
        let if_fits =
            self.order == Order::Arrival && sys.semantics().arrival_pass == ArrivalPass::IfFits;
        if !if_fits || sys.free_nodes() >= w.nodes {
            self.pass.arm(sys);
        }
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
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
        self.queue.len()
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
