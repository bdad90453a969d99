//! Out-of-order with constant bound, OOCB-k (window-k-mesh.md §2.2 and §5: the reservation-free
//! variant of Das Sharma & Pradhan's policy with Max-Bound = k).
//!
//! The head of the FIFO queue carries a counter of the jobs that overtook it. A later job (a newcomer
//! on arrival, or a waiting job in a departure pass, in arrival order) may be tried only while the
//! counter is below `k`; each such start increments it. Once it reaches `k`, scheduling is strict FCFS
//! until the head starts; a new head starts at 0.
//!
//! Convention: `k` counts overtakes, as §5 defines it ("up to that many subsequent jobs can be
//! allocated … before having to serve the current waiting queue head"). So `oocb:0` is FCFS and a
//! `k` larger than the number of jobs is OO. The paper's aside "FCFS corresponds to Max-Bound = 1"
//! counts the head itself and is off by one against that definition; we follow the definition.

use super::System;
use super::queue::{BypassRule, Bypassing};
use crate::workload::JobId;

/// The OOCB-k rule.
#[derive(Debug)]
pub(crate) struct OocbRule {
    bound: u32,
    overtaken: u32,
}

impl OocbRule {
    /// A head may be overtaken at most `bound` times.
    pub(crate) fn new(bound: u32) -> Self {
        OocbRule {
            bound,
            overtaken: 0,
        }
    }
}

impl BypassRule for OocbRule {
    const TRY_ON_ARRIVAL: bool = true;
    fn may_bypass(&mut self, _head: JobId, _sys: &dyn System) -> bool {
        self.overtaken < self.bound
    }
    fn started(&mut self, _job: JobId, overtook: bool, _sys: &dyn System) {
        if overtook {
            self.overtaken += 1;
        } else {
            self.overtaken = 0;
        }
    }
}

/// Out-of-order with constant bound.
pub(crate) type Oocb = Bypassing<OocbRule>;

/// Builds OOCB-k.
pub(crate) fn oocb(k: u32) -> Oocb {
    Bypassing::new(OocbRule::new(k))
}
