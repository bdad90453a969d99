//! The FIFO policies whose bypass rule has a meaning in any order — FCFS, OO and the bypass queue
//! — with their queue in a [queue order](super::order) instead of arrival order (`fcfs:order=O`,
//! `oo:order=O`, `bq:T,order=O`).
//!
//! One pass per instant, after its departures and arrivals (a [`DeferredPass`]: the values of jobs
//! that arrive together are compared at the same moment); values are recomputed at each pass, or
//! kept from arrival under a static order ([`RankedQueue`]). The pass starts the highest-ranked job
//! while it fits; the first that does not is the *head*; then the other jobs are tried in rank
//! order as long as the [`BypassRule`] allows the head to be bypassed: never under FCFS (strict
//! priority: the pass stops at the first job that does not fit), always under OO, while the head
//! has waited less than `T` under the bypass queue. A job needing more nodes than are free after
//! the head never fits in the pass (the free set only shrinks) and is not ranked further.
//!
//! The bypass queue tries no job behind the head when it arrives (Fig. 2, step 2): under an order
//! it bypasses only in the passes of instants with a departure, and a pass of arrivals alone
//! starts the top while it fits, as the arrival-order policy does for a newcomer that finds the
//! queue empty.
//!
//! The arrival-order policies (`queue`) try a newcomer at once; these wait for the end of the
//! instant. With `order=fcfs` the label means the arrival-order policy itself.
//!
//! Every `…:order=O` registry line declares that it reads estimates (`.estimates(|_| true)`): the
//! order may be a name defined by an expression the form cannot see, so a sweep replays ordered
//! policies under every estimate model rather than assume one schedule fits them all.

use super::backfill::DeferredPass;
use super::label::Label;
use super::order::queue::RankedQueue;
use super::order::{OrderName, Ranking};
use super::queue::BypassRule;
use super::{Scheduler, System};
use crate::workload::JobId;

/// A FIFO policy's bypass rule over a queue in rank order.
#[derive(Debug)]
pub(crate) struct Ordered<R> {
    /// Waiting jobs.
    queue: RankedQueue<()>,
    pass: DeferredPass,
    rule: R,
    /// Jobs departed since the last pass.
    departed: bool,
}

impl<R: BypassRule> Ordered<R> {
    /// The policy of `rule` with its queue ranked by `ranking`.
    pub(crate) fn new(rule: R, ranking: Ranking) -> Self {
        Ordered {
            queue: RankedQueue::new(ranking),
            pass: DeferredPass::default(),
            rule,
            departed: false,
        }
    }

    /// The pass of one instant.
    fn run(&mut self, sys: &mut dyn System) {
        self.queue.rank(sys.now());
        let rule = &mut self.rule;
        let head = self.queue.start_tops(|f, ()| start(rule, f.id, false, sys));
        let mut started = Vec::new();
        let departed = std::mem::take(&mut self.departed);
        if let Some((head, ())) = head
            && (R::TRY_ON_ARRIVAL || departed)
            && sys.free_nodes() > 0
        {
            // The others in rank order while the rule lets them bypass the head.
            let free = sys.free_nodes();
            for (place, f, ()) in self.queue.rest(|f, ()| f.nodes <= free) {
                if sys.free_nodes() == 0 || !self.rule.may_bypass(head.id, &*sys) {
                    break;
                }
                if f.nodes <= sys.free_nodes() && start(&mut self.rule, f.id, true, sys) {
                    started.push(place);
                }
            }
        }
        self.queue.finish(&started);
    }
}

/// Starts job `id`; tells `rule`.
fn start<R: BypassRule>(rule: &mut R, id: JobId, overtook: bool, sys: &mut dyn System) -> bool {
    if !sys.try_start(id) {
        return false;
    }
    rule.started(id, overtook, &*sys);
    true
}

impl<R: BypassRule + 'static> Scheduler for Ordered<R> {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(Ordered {
            queue: self.queue.fork()?,
            pass: self.pass.clone(),
            rule: self.rule.clone(),
            departed: self.departed,
        }))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.rule.arrived(job, &*sys);
        self.queue.push(sys.job(job), &*sys, ());
        self.pass.arm(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.rule.departed(&*sys);
        self.queue.departed(&*sys);
        self.departed = true;
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

/// The order of a label whose only argument is `order=O` (`easy:order=wfp3`).
pub(super) fn read_order(label: &Label<'_>) -> Option<OrderName> {
    read_with_order(label, |l| l.bare()).map(|((), o)| o)
}

/// The arguments of such a label.
pub(super) fn order_args(order: &OrderName) -> Vec<String> {
    vec![format!("order={order}")]
}

/// The parameters `read` takes from a label once its `order=O` pair is taken out, and the order
/// (`window:240,order=sjf`).
pub(super) fn read_with_order<P>(
    label: &Label<'_>,
    read: fn(&Label<'_>) -> Option<P>,
) -> Option<(P, OrderName)> {
    let (rest, order) = label.take("order")?;
    Some((read(&rest)?, OrderName::new(order)?))
}

/// The arguments `args` writes, then `order=O`.
pub(super) fn args_with_order<P>(
    params: &(P, OrderName),
    args: fn(&P) -> Vec<String>,
) -> Vec<String> {
    let mut all = args(&params.0);
    all.extend(order_args(&params.1));
    all
}
