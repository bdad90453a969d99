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

use std::collections::VecDeque;

use super::{Scheduler, System};
use crate::workload::JobId;

/// One arrived job from the window head onwards.
#[derive(Debug, Clone, Copy)]
struct Slot {
    job: JobId,
    done: bool,
}

/// Window-K scheduling.
#[derive(Debug)]
pub(crate) struct WindowK {
    k: usize,
    /// Arrived jobs from the oldest pending one; the front is always pending.
    slots: VecDeque<Slot>,
    pending: usize,
}

impl WindowK {
    /// A window of `k ≥ 1` jobs.
    pub(crate) fn new(k: u32) -> Self {
        WindowK {
            k: (k as usize).max(1),
            slots: VecDeque::new(),
            pending: 0,
        }
    }

    /// Number of jobs in the window now.
    fn window_len(&self) -> usize {
        self.slots.len().min(self.k)
    }

    /// Tries slot `i`; on success marks it done.
    fn try_slot(&mut self, i: usize, sys: &mut dyn System) -> bool {
        let slot = &mut self.slots[i];
        if slot.done || !sys.try_start(slot.job) {
            return false;
        }
        slot.done = true;
        self.pending -= 1;
        true
    }

    /// Moves the window head past done jobs.
    fn slide(&mut self) {
        while self.slots.front().is_some_and(|s| s.done) {
            self.slots.pop_front();
        }
    }
}

impl Scheduler for WindowK {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        let in_window = self.slots.len() < self.k;
        self.slots.push_back(Slot { job, done: false });
        self.pending += 1;
        if in_window && self.try_slot(self.slots.len() - 1, sys) {
            self.slide();
        }
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        let mut i = 0;
        while i < self.window_len() {
            if self.try_slot(i, sys) && i == 0 {
                self.slide();
                continue;
            }
            i += 1;
        }
    }

    fn waiting(&self) -> usize {
        self.pending
    }
}
