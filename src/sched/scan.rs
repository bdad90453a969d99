//! Scan scheduling (Krueger, Lai & Radiya; lazy-scheduling-hypercube.md §2.3): `n + 1` FIFO queues,
//! one per cube dimension `0…n`, served like the C-SCAN disk discipline.
//!
//! * The queue being served allocates its jobs in FIFO order. Only the jobs present when its service
//!   began belong to this sweep: a job arriving at the queue being served waits for the next sweep
//!   (the starvation-free variant §2.3 describes).
//! * **The scan does not move on while the current sweep still has jobs**: when its head does not fit,
//!   the scheduler waits for releases ("all jobs of a given dimension … are allocated before the
//!   scheduler moves on", §2.3).
//! * When the sweep is done the scan moves to the next non-empty queue, `(i + 1) mod (n + 1)`
//!   (`scan-up`) or `(i − 1) mod (n + 1)` (`scan-down`), passing empty queues; when every other queue is
//!   empty it comes back to the same queue for a new sweep. The scan starts at queue 0 (`scan-up`) or
//!   `n` (`scan-down`).
//!
//! `n` is the machine's dimension (a hypercube's, else `⌈log2 nodes⌉`).

use std::collections::VecDeque;

use super::lazy::cube_dim;
use super::{Scheduler, System};
use crate::resource::MachineSpec;
use crate::workload::JobId;

/// Scan direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// ScanUp: towards larger cubes.
    Up,
    /// ScanDown: towards smaller cubes.
    Down,
}

/// Scan scheduling.
#[derive(Debug)]
pub(crate) struct Scan {
    direction: Direction,
    /// `n + 1` queues (empty until the first event tells the machine).
    queues: Vec<VecDeque<JobId>>,
    current: usize,
    /// Jobs of the current sweep still to allocate (the front of the current queue).
    sweep: usize,
    waiting: usize,
}

/// The dimension `n` of the machine.
fn machine_dim(m: MachineSpec) -> usize {
    match m {
        MachineSpec::Hypercube { dim } => usize::from(dim),
        other => other.nodes().max(1).next_power_of_two().trailing_zeros() as usize,
    }
}

impl Scan {
    pub(crate) fn new(direction: Direction) -> Self {
        Scan {
            direction,
            queues: Vec::new(),
            current: 0,
            sweep: 0,
            waiting: 0,
        }
    }

    fn ensure(&mut self, sys: &dyn System) {
        if self.queues.is_empty() {
            let n = machine_dim(sys.snapshot().machine());
            self.queues = vec![VecDeque::new(); n + 1];
            self.current = match self.direction {
                Direction::Up => 0,
                Direction::Down => n,
            };
        }
    }

    /// The queue after `i` in the scan direction.
    fn next(&self, i: usize) -> usize {
        let q = self.queues.len();
        match self.direction {
            Direction::Up => (i + 1) % q,
            Direction::Down => (i + q - 1) % q,
        }
    }

    /// Starts a new sweep at the next non-empty queue (possibly the current one, last); `false` when
    /// every queue is empty.
    fn advance(&mut self) -> bool {
        let mut i = self.current;
        for _ in 0..self.queues.len() {
            i = self.next(i);
            if !self.queues[i].is_empty() {
                self.current = i;
                self.sweep = self.queues[i].len();
                return true;
            }
        }
        false
    }

    /// Allocates the current sweep while its head fits, moving on when a sweep is done.
    fn serve(&mut self, sys: &mut dyn System) {
        loop {
            if self.sweep == 0 && !self.advance() {
                return;
            }
            let head = self.queues[self.current][0];
            if !sys.try_start(head) {
                return;
            }
            self.queues[self.current].pop_front();
            self.sweep -= 1;
            self.waiting -= 1;
        }
    }
}

impl Scheduler for Scan {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.ensure(&*sys);
        let k = cube_dim(&sys.job(job).request).min(self.queues.len() - 1);
        self.queues[k].push_back(job);
        self.waiting += 1;
        self.serve(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.ensure(&*sys);
        self.serve(sys);
    }

    fn waiting(&self) -> usize {
        self.waiting
    }
}
