//! Out-of-order with constant bound, OOCB (window-k-mesh.md §2.2 and §5: the reservation-free
//! variant of Das Sharma & Pradhan's policy, with a bound called MAX_PRI in §2.2 and Max-Bound in
//! §5).
//!
//! A later job (a newcomer on arrival, or a waiting job in a departure pass, in arrival order) may
//! be tried only while the FIFO head has been overtaken fewer times than the bound allows; once the
//! bound is reached, scheduling is strict FCFS until the head starts. The readings differ in *whose*
//! overtakes are counted and in what the bound counts:
//!
//! * [`Counter::Job`] — §2.2: "a waiting allocation request has a counter that contains the number
//!   of times that it has been overtaken by subsequent requests … appended to the waiting queue and
//!   its counter is set to zero". Every waiting job counts, from its own arrival, the later jobs that
//!   started before it. A job that becomes head keeps the overtakes it suffered behind the old head.
//!   An older waiting job has been overtaken at least as often as any younger one (whatever overtook
//!   the younger also overtook the older), so the head's counter is the largest and "a job at the
//!   bound blocks every later job" is the same as "the head at the bound blocks". The head's counter
//!   is the number of started jobs that arrived after it.
//! * [`Counter::Head`] — one counter owned by the head, reset to 0 for every new head: the head may be
//!   overtaken `k` times *after it became head* (a job's overtakes behind an older head are
//!   forgotten).
//!
//! The bound is the number of overtakes allowed. §5 says both "up to that many [Max-Bound]
//! subsequent jobs can be allocated … before having to serve the current waiting queue head" (`k`
//! overtakes) and "FCFS corresponds to Max-Bound = 1" (`k − 1` overtakes: the count includes the
//! head's own allocation). [`super::SchedKind`] maps each label to a counter and a number of
//! overtakes; docs/ALGORITHMS.md gives the argument for the default.

use std::collections::BTreeSet;

use super::System;
use super::label::Form;
use super::queue::{BypassRule, Bypassing};
use crate::workload::JobId;

/// Whose overtakes the bound limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Counter {
    /// Every waiting job counts its own overtakes from its arrival (§2.2).
    Job,
    /// One counter, owned by the head and reset when a new job becomes head.
    Head,
}

/// The OOCB rule.
#[derive(Debug, Clone)]
pub(crate) struct OocbRule {
    counter: Counter,
    /// Overtakes allowed.
    allowed: u32,
    /// [`Counter::Head`]: overtakes of the current head since it became head.
    overtaken: u32,
    /// [`Counter::Job`]: jobs that started while an older job waited, pruned below the head (each
    /// remaining one overtook the head).
    overtakers: BTreeSet<JobId>,
}

impl OocbRule {
    /// The head may be overtaken at most `allowed` times, counted by `counter`.
    pub(crate) fn new(counter: Counter, allowed: u32) -> Self {
        OocbRule {
            counter,
            allowed,
            overtaken: 0,
            overtakers: BTreeSet::new(),
        }
    }

    /// Overtakes counted against `head`.
    fn count(&mut self, head: JobId) -> u32 {
        match self.counter {
            Counter::Head => self.overtaken,
            Counter::Job => {
                // Overtakers older than the head overtook an older head, not this one.
                if self.overtakers.first().is_some_and(|&j| j < head) {
                    self.overtakers = self.overtakers.split_off(&head);
                }
                u32::try_from(self.overtakers.len()).unwrap_or(u32::MAX)
            }
        }
    }
}

impl BypassRule for OocbRule {
    const TRY_ON_ARRIVAL: bool = true;
    fn may_bypass(&mut self, head: JobId, _sys: &dyn System) -> bool {
        self.count(head) < self.allowed
    }
    fn started(&mut self, job: JobId, overtook: bool, _sys: &dyn System) {
        match (self.counter, overtook) {
            (Counter::Head, true) => self.overtaken += 1,
            (Counter::Head, false) => self.overtaken = 0,
            (Counter::Job, true) => {
                self.overtakers.insert(job);
            }
            (Counter::Job, false) => {}
        }
    }
}

/// Out-of-order with constant bound.
pub(crate) type Oocb = Bypassing<OocbRule>;

/// Builds OOCB whose head may be overtaken `allowed` times, counted by `counter`.
pub(crate) fn oocb(counter: Counter, allowed: u32) -> Oocb {
    Bypassing::new(OocbRule::new(counter, allowed))
}

/// `oocb:K`: per-job counters, the head overtaken at most `K` times (K ≥ 0).
pub(super) const OOCB: Form<u32> = Form::new(
    |l| l.count(0),
    |k| vec![k.to_string()],
    |&k| Box::new(oocb(Counter::Job, k)),
)
.title(title);

/// `oocb-incl:K`: per-job counters, Max-Bound `K` counting the head's own start: `K − 1` overtakes
/// (K ≥ 1).
pub(super) const OOCB_INCL: Form<u32> = Form::new(
    |l| l.count(1),
    |k| vec![k.to_string()],
    |&k| Box::new(oocb(Counter::Job, k.saturating_sub(1))),
)
.title(title);

/// `oocb-head:K`: one counter owned by the head, `K` overtakes (K ≥ 0).
pub(super) const OOCB_HEAD: Form<u32> = Form::new(
    |l| l.count(0),
    |k| vec![k.to_string()],
    |&k| Box::new(oocb(Counter::Head, k)),
)
.title(title);

/// The papers' name of every reading: OOCB-k.
fn title(k: &u32) -> String {
    format!("OOCB-{k}")
}
