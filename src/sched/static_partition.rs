//! Static partitioning (lazy-scheduling-hypercube.md §3.1): an `n`-cube is cut once into one
//! `(n−1)`-, one `(n−2)`-, …, one 1-cube and two 0-cubes; partition `S_i` serves only `i`-cube jobs
//! from its FCFS queue `Q_i` (the two 0-cubes share `Q_0`).
//!
//! * Layout: `S_i` = the pattern `1…10*…*` with `n−1−i` ones, a zero and `i` stars (`S_{n−1}` =
//!   `0*…*`); the second 0-cube is `1…1`. On a 4-cube: `0***`, `10**`, `110*`, `1110`, `1111`.
//! * **Static_Request(I_k)**: if `Q_k` is empty and a partition of size `k` is idle, the job gets it;
//!   otherwise it joins `Q_k`. **Static_Release(I_k)**: the head of `Q_k` gets the released partition.
//! * **Whole-cube jobs** (an `n`-cube, which no partition holds — the paper leaves them out): they
//!   wait in their own FCFS queue; while one waits, no partition takes a new job; once every
//!   partition is idle it runs on the whole cube. On a machine that is not a hypercube (or for a
//!   request that is not a subcube) every job is such a job, placed by the allocator: plain FCFS.

use std::collections::VecDeque;

use super::lazy::cube_dim;
use super::label::Form;
use super::{Scheduler, System};
use crate::resource::{MachineSpec, Placement, Request, Subcube};
use crate::workload::JobId;

/// One partition: its subcube, its size class and its occupant.
#[derive(Debug, Clone, Copy)]
struct Partition {
    cube: Subcube,
    occupant: Option<JobId>,
}

/// Static partitioning.
#[derive(Debug, Clone, Default)]
pub(crate) struct StaticPartition {
    /// `None` until the first event; then the partitions (empty off hypercubes).
    parts: Option<Vec<Partition>>,
    /// `Q_0 … Q_{n−1}`.
    queues: Vec<VecDeque<JobId>>,
    /// Jobs that need the whole machine.
    whole: VecDeque<JobId>,
    waiting: usize,
}

/// The §3.1 partitions of an `n`-cube, largest first.
pub(crate) fn partitions(n: u8) -> Vec<Subcube> {
    let all = (1u32 << n) - 1;
    let mut parts: Vec<Subcube> = (0..n)
        .rev()
        .map(|i| Subcube::new(n, all & !((1u32 << (i + 1)) - 1), (1u32 << i) - 1))
        .collect();
    if n > 0 {
        parts.push(Subcube::new(n, all, 0));
    }
    parts
}

impl StaticPartition {
    fn ensure(&mut self, sys: &dyn System) {
        if self.parts.is_none() {
            let cubes = match sys.snapshot().machine() {
                MachineSpec::Hypercube { dim } => partitions(dim),
                _ => Vec::new(),
            };
            self.queues = vec![
                VecDeque::new();
                cubes
                    .iter()
                    .map(|c| c.dim() as usize + 1)
                    .max()
                    .unwrap_or(0)
            ];
            self.parts = Some(
                cubes
                    .into_iter()
                    .map(|cube| Partition {
                        cube,
                        occupant: None,
                    })
                    .collect(),
            );
        }
    }

    /// The partition queue of a request, `None` for a whole-machine job.
    fn queue_of(&self, req: &Request) -> Option<usize> {
        matches!(req, Request::Subcube(_))
            .then(|| cube_dim(req))
            .filter(|&k| k < self.queues.len())
    }

    /// Starts the waiting whole-machine jobs in FCFS order once every partition is idle (while one
    /// waits, partitions take no new job), else queued jobs on idle partitions. A running
    /// whole-machine job holds every node, so no partition start succeeds under it.
    fn dispatch(&mut self, sys: &mut dyn System) {
        let Some(parts) = self.parts.as_mut() else {
            return;
        };
        while let Some(&job) = self.whole.front() {
            if !(parts.iter().all(|p| p.occupant.is_none()) && sys.try_start(job)) {
                return;
            }
            self.whole.pop_front();
            self.waiting -= 1;
        }
        for p in parts.iter_mut().filter(|p| p.occupant.is_none()) {
            let q = &mut self.queues[p.cube.dim() as usize];
            if let Some(&job) = q.front()
                && sys.try_start_on(job, Placement::Subcube(p.cube))
            {
                q.pop_front();
                p.occupant = Some(job);
                self.waiting -= 1;
            }
        }
    }
}

impl Scheduler for StaticPartition {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(self.clone()))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.ensure(&*sys);
        match self.queue_of(&sys.job(job).request) {
            Some(k) => self.queues[k].push_back(job),
            None => self.whole.push_back(job),
        }
        self.waiting += 1;
        self.dispatch(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.ensure(&*sys);
        for &job in sys.departed() {
            if let Some(p) = self
                .parts
                .iter_mut()
                .flatten()
                .find(|p| p.occupant == Some(job))
            {
                p.occupant = None;
            }
        }
        self.dispatch(sys);
    }

    fn waiting(&self) -> usize {
        self.waiting
    }
}

/// `static`.
pub(super) const STATIC: Form<()> = Form::bare(|_| Box::<StaticPartition>::default());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_of_a_4_cube() {
        let shown: Vec<String> = partitions(4).iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["0***", "10**", "110*", "1110", "1111"]);
        let nodes: u32 = partitions(10).iter().map(|c| 1u32 << c.dim()).sum();
        assert_eq!(nodes, 1024, "the partitions tile the cube");
    }
}
