//! The bypass queue, BQ (bypass-queue-fixed-orientation.md §2.1 and Fig. 2), with threshold time `T`.
//!
//! Fig. 2, as implemented:
//! * **Job arrival.** If the queue is not empty the newcomer is appended *without an allocation
//!   attempt* (step 2); otherwise it is tried and, if it does not fit, becomes the head (step 3).
//! * **Job departure.** The queue is checked from its head in arrival order (step 1). A job that fits
//!   is started and removed (step 2). Moving past a job that did not fit is allowed only while the
//!   head's wait `now − submit` is below `T` (step 3); once the head has waited `T` or more, scheduling
//!   is strict FCFS until the head starts.
//!
//! Reading of step 3: its test guards *bypassing* a job that could not start. When the head itself
//! starts, the next job is the new head and is tried whatever the threshold (as FCFS would); taken
//! literally, step 3 would stop the pass after the first start once a head is old, and `bq:0` would
//! start only one job per departure instead of being FCFS. With this reading `bq:0` equals `fcfs`
//! exactly, and `bq:inf` never blocks: after every departure no waiting job fits. It is still not
//! `oo`: a newcomer that finds a queue waits for the next departure even if it fits.

use super::System;
use super::label::Form;
use super::order::OrderName;
use super::ordered::{args_with_order, read_with_order};
use super::queue::{BypassRule, Bypassing};
use crate::SimTime;
use crate::workload::JobId;

/// The bypass-queue rule: bypass while the head has waited less than the threshold.
#[derive(Debug, Clone)]
pub(crate) struct BypassQueueRule {
    threshold: SimTime,
}

impl BypassQueueRule {
    /// Threshold time `T` (may be infinite).
    pub(crate) fn new(threshold: SimTime) -> Self {
        BypassQueueRule { threshold }
    }
}

impl BypassRule for BypassQueueRule {
    const TRY_ON_ARRIVAL: bool = false;
    fn may_bypass(&mut self, head: JobId, sys: &dyn System) -> bool {
        sys.now() - sys.job(head).submit < self.threshold
    }
}

/// The bypass queue.
pub(crate) type BypassQueue = Bypassing<BypassQueueRule>;

/// Builds a bypass queue with threshold `t`.
pub(crate) fn bypass_queue(t: SimTime) -> BypassQueue {
    Bypassing::new(BypassQueueRule::new(t))
}

/// `bq:SECONDS` or `bq:inf`.
pub(super) const BQ: Form<SimTime> = Form::new(
    |l| match l.word() {
        Some("inf") => Some(SimTime::INFINITY),
        _ => l.seconds(),
    },
    |t| vec![if t.is_infinite() { "inf".into() } else { t.to_string() }],
    |&t| Box::new(bypass_queue(t)),
);

/// `bq:T,order=O`: the policy's own build, in arrival order; a replay builds the order with
/// [`SchedKind::build_with`](super::SchedKind::build_with).
pub(super) const ORDERED: Form<(SimTime, OrderName)> = Form::new(
    |l| read_with_order(l, BQ.read),
    |p| args_with_order(p, BQ.args),
    |(t, _)| (BQ.build)(t),
)
.estimates(|_| true);
