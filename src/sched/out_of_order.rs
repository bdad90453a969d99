//! Aggressive out-of-order scheduling, OO (window-k-mesh.md §2.4): every waiting job that fits is
//! started, in arrival order, without waiting for the head.
//!
//! On arrival the newcomer is tried (nothing was freed, so no waiting job can have become feasible);
//! after departures the whole queue is tried in arrival order. The lookahead is unbounded, so a large
//! job may be overtaken indefinitely.

use super::System;
use super::label::Form;
use super::order::OrderName;
use super::ordered::{order_args, read_order};
use super::queue::{BypassRule, Bypassing};
use crate::workload::JobId;

/// The OO rule: the head may always be bypassed.
#[derive(Debug, Clone, Default)]
pub(crate) struct OutOfOrderRule;

impl BypassRule for OutOfOrderRule {
    const TRY_ON_ARRIVAL: bool = true;
    fn may_bypass(&mut self, _head: JobId, _sys: &dyn System) -> bool {
        true
    }
}

/// Aggressive out-of-order scheduling.
pub(crate) type OutOfOrder = Bypassing<OutOfOrderRule>;

/// `oo`.
pub(super) const OO: Form<()> =
    Form::bare(|_| Box::new(OutOfOrder::new(OutOfOrderRule))).title(|_| "OO".into());

/// `oo:order=O`: the policy's own build, in arrival order; a replay builds the order with
/// [`SchedKind::build_with`](super::SchedKind::build_with).
pub(super) const ORDERED: Form<OrderName> =
    Form::new(read_order, order_args, |_| (OO.build)(&())).estimates(|_| true);
