//! First-come-first-served (window-k-mesh.md §2): jobs start strictly in arrival order.
//!
//! A newcomer is tried only when nobody waits; otherwise it joins the tail. After departures the head
//! is tried, and as long as it starts, the new head — the first job that does not fit blocks all later
//! ones, even those that would fit (the "blockade" the other policies relax).

use super::System;
use super::label::Form;
use super::order::OrderName;
use super::ordered::{order_args, read_order};
use super::queue::{BypassRule, Bypassing};
use crate::workload::JobId;

/// The FCFS rule: the head is never bypassed.
#[derive(Debug, Clone, Default)]
pub(crate) struct FcfsRule;

impl BypassRule for FcfsRule {
    const TRY_ON_ARRIVAL: bool = false;
    fn may_bypass(&mut self, _head: JobId, _sys: &dyn System) -> bool {
        false
    }
}

/// First-come-first-served.
pub(crate) type Fcfs = Bypassing<FcfsRule>;

/// `fcfs`.
pub(super) const FCFS: Form<()> =
    Form::bare(|_| Box::new(Fcfs::new(FcfsRule))).title(|_| "FCFS".into());

/// `fcfs:order=O`: the policy's own build, in arrival order; a replay builds the order with
/// [`SchedKind::build_with`](super::SchedKind::build_with).
pub(super) const ORDERED: Form<OrderName> =
    Form::new(read_order, order_args, |_| (FCFS.build)(&())).estimates(|_| true);
