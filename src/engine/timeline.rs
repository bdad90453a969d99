//! A time-indexed view of a finished replay: which job holds which node at any instant, and which
//! jobs wait. Pictures of the machine (snapshots, space-time charts, animations) and the
//! fragmentation measures read a replay through it.
//!
//! A [`Timeline`] lists every run segment of every job as a [`Run`]: the job, `[start, end)` and the
//! node ids it holds, as id ranges. Node ids are the machine's ([`MachineSpec::node_ids`]); a
//! placement without ids (a node count, on a flat machine or from the `flat` allocator) is given
//! *slots* `0..N`: at each start, in time order (a run's nodes are freed before a run starting at
//! the same instant takes any), the lowest free slots. Slots are stable for the run's life, so a
//! job keeps its place in every picture.
//!
//! The state "at `t`" is the state once every event at `t` has happened: a job runs at `t` when
//! `start ≤ t < end`, waits when `submit ≤ t < start` (its first start). Runs of length 0 hold
//! nothing and are left out.
//!
//! ```
//! use pwa_replay::engine::{Timeline, replay, NoObserver};
//! use pwa_replay::workload::{Job, JobId, Request, Workload};
//!
//! let job = |i: u32, submit: f64, n: u32| Job {
//!     id: JobId(i), source_id: u64::from(i) + 1, submit, runtime: 10.0, estimate: 10.0,
//!     requested: None, request: Request::Nodes(n), asked_procs: n, user: None,
//!     group: None, queue: None, partition: None,
//! };
//! let w = Workload::from_jobs(vec![job(0, 0.0, 3), job(1, 1.0, 2)], 1);
//! let machine = "flat:4".parse().unwrap();
//! let out = replay(&w, machine, "fcfs".parse().unwrap(), "flat".parse().unwrap(), &mut NoObserver)
//!     .unwrap();
//! let tl = Timeline::new(&w, &out, machine);
//! // At t = 5 job 0 holds slots 0..3 and job 1 waits for 2 of the 4 nodes.
//! assert_eq!(tl.owners_at(5.0), [Some(JobId(0)), Some(JobId(0)), Some(JobId(0)), None]);
//! assert_eq!(tl.waiting_at(5.0), [JobId(1)]);
//! ```

use std::collections::BTreeSet;
use std::ops::Range;
use std::sync::OnceLock;

use super::Outcome;
use crate::SimTime;
use crate::machine::{MachineSpec, Placement};
use crate::workload::{JobId, Workload};

/// One run segment of a job.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The job.
    pub job: JobId,
    /// Segment start.
    pub start: SimTime,
    /// Segment end (exclusive).
    pub end: SimTime,
    /// What the allocator granted.
    pub placement: Placement,
}

/// A finished replay, indexed by time (see the module doc).
#[derive(Debug, Clone)]
pub struct Timeline<'a> {
    workload: &'a Workload,
    machine: MachineSpec,
    /// First start of each job (`starts[i]` for job `i`).
    starts: Vec<SimTime>,
    /// Every run of positive length, by start, then job.
    runs: Vec<Run>,
    /// The node ranges of each run, computed on first use.
    nodes: OnceLock<Vec<Vec<Range<u32>>>>,
}

impl<'a> Timeline<'a> {
    /// The timeline of `outcome`, a replay of `workload` on `machine`.
    pub fn new(workload: &'a Workload, outcome: &Outcome, machine: MachineSpec) -> Self {
        let n = workload.jobs.len().min(outcome.records.len());
        let mut runs = Vec::with_capacity(n);
        let mut segs = outcome.segments.iter().peekable();
        for (i, r) in outcome.records[..n].iter().enumerate() {
            let job = JobId(i as u32);
            let mut own = false;
            while let Some(s) = segs.next_if(|s| s.job.index() <= i) {
                if s.job.index() == i {
                    own = true;
                    runs.push(bare_run(job, s.start, s.end, r.placement.clone()));
                }
            }
            if !own {
                runs.push(bare_run(job, r.start, r.end, r.placement.clone()));
            }
        }
        runs.retain(|r| r.end > r.start);
        // (start, job) is unique among runs of positive length: the unstable sort, which needs no
        // buffer of half the runs, gives the same order.
        runs.sort_unstable_by(|a, b| a.start.total_cmp(&b.start).then(a.job.cmp(&b.job)));
        Timeline {
            workload,
            machine,
            starts: outcome.records[..n].iter().map(|r| r.start).collect(),
            runs,
            nodes: OnceLock::new(),
        }
    }

    /// The machine.
    pub fn machine(&self) -> MachineSpec {
        self.machine
    }

    /// The workload replayed.
    pub fn workload(&self) -> &'a Workload {
        self.workload
    }

    /// Each job's first start (`first_starts()[i]` for job `i`; one entry per job replayed).
    pub fn first_starts(&self) -> &[SimTime] {
        &self.starts
    }

    /// Every run of positive length, by start time, then job.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// The node ids (or slots) each run holds, as increasing, disjoint ranges: `nodes()[k]` for
    /// `runs()[k]` (computed on the first call).
    pub fn nodes(&self) -> &[Vec<Range<u32>>] {
        self.nodes
            .get_or_init(|| assign_nodes(&self.runs, self.machine))
    }

    /// First submit and last end: the span every metric averages over (`(0, 0)` when empty).
    pub fn span(&self) -> (SimTime, SimTime) {
        let jobs = &self.workload.jobs[..self.starts.len()];
        let first = jobs.iter().map(|j| j.submit).fold(f64::INFINITY, f64::min);
        let last = self.runs.iter().map(|r| r.end).fold(first, f64::max);
        if first.is_finite() {
            (first, last)
        } else {
            (0.0, 0.0)
        }
    }

    /// The runs holding nodes at `t` (`start ≤ t < end`).
    pub fn running_at(&self, t: SimTime) -> impl Iterator<Item = &Run> {
        let started = self.runs.partition_point(|r| r.start <= t);
        self.runs[..started].iter().filter(move |r| r.end > t)
    }

    /// The jobs waiting at `t` (`submit ≤ t < first start`), oldest first: the head of the queue
    /// comes first.
    pub fn waiting_at(&self, t: SimTime) -> Vec<JobId> {
        let jobs = &self.workload.jobs[..self.starts.len()];
        let arrived = jobs.partition_point(|j| j.submit <= t);
        (0..arrived)
            .filter(|&i| self.starts[i] > t)
            .map(|i| JobId(i as u32))
            .collect()
    }

    /// The job holding each node (or slot) at `t`, by node id; `None` for a free node.
    pub fn owners_at(&self, t: SimTime) -> Vec<Option<JobId>> {
        let mut owners = vec![None; self.machine.nodes() as usize];
        let started = self.runs.partition_point(|r| r.start <= t);
        let live = self.runs[..started].iter().zip(self.nodes());
        for (run, nodes) in live.filter(|(r, _)| r.end > t) {
            for range in nodes {
                for id in range.clone() {
                    if let Some(o) = owners.get_mut(id as usize) {
                        *o = Some(run.job);
                    }
                }
            }
        }
        owners
    }
}

fn bare_run(job: JobId, start: SimTime, end: SimTime, placement: Placement) -> Run {
    Run {
        job,
        start,
        end,
        placement,
    }
}

/// Each run's node ranges: the machine's ids, or the lowest free slots (see the module doc).
fn assign_nodes(runs: &[Run], machine: MachineSpec) -> Vec<Vec<Range<u32>>> {
    let mut out: Vec<Vec<Range<u32>>> = Vec::with_capacity(runs.len());
    let mut free: BTreeSet<u32> = BTreeSet::new();
    let mut slots_made = false;
    // Anonymous runs still holding slots: (end, run index).
    let mut holding: Vec<(SimTime, usize)> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        if let Some(ids) = machine.node_ids(&run.placement) {
            let mut ids: Vec<u32> = ids.collect();
            ids.sort_unstable();
            out.push(ranges(&ids));
            continue;
        }
        if !slots_made {
            free.extend(0..machine.nodes());
            slots_made = true;
        }
        holding.retain(|&(end, k)| {
            if end <= run.start {
                for r in &out[k] {
                    free.extend(r.clone());
                }
            }
            end > run.start
        });
        let slots: Vec<u32> = free
            .iter()
            .copied()
            .take(run.placement.nodes() as usize)
            .collect();
        for s in &slots {
            free.remove(s);
        }
        out.push(ranges(&slots));
        holding.push((run.end, i));
    }
    out
}

/// Increasing ids as maximal ranges of consecutive ids.
fn ranges(ids: &[u32]) -> Vec<Range<u32>> {
    let mut out: Vec<Range<u32>> = Vec::new();
    for &id in ids {
        match out.last_mut() {
            Some(r) if r.end == id => r.end += 1,
            _ => out.push(id..id + 1),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{JobRecord, Segment};
    use crate::machine::{Coord, Shape, Submesh};
    use crate::workload::{Job, Request};

    fn job(i: u32, submit: f64, request: Request) -> Job {
        Job::sample(i, submit, 1.0, request)
    }

    fn rec(start: f64, end: f64, placement: Placement) -> JobRecord {
        JobRecord {
            start,
            end,
            placement,
            killed: false,
            reserved: None,
        }
    }

    fn outcome(records: Vec<JobRecord>, segments: Vec<Segment>) -> Outcome {
        Outcome {
            records,
            segments,
            ..Default::default()
        }
    }

    fn sub(x: u32, y: u32, w: u32, h: u32) -> Placement {
        Placement::Submesh {
            at: Submesh {
                base: Coord { x, y },
                shape: Shape::new(w, h),
            },
            rotated: false,
        }
    }

    #[test]
    fn mesh_owners_and_queue_by_hand() {
        // 3×2 mesh. Job 0 holds (0,0)-(1,1) over [0, 10); job 1 (1×2) waits from 2 to 10, then
        // runs [10, 12) at (2,0)-(2,1); job 2 is suspended over [4, 6).
        let m = MachineSpec::Mesh {
            size: Shape::new(3, 2),
        };
        let w = Workload::from_jobs(
            vec![
                job(0, 0.0, Request::Submesh(Shape::new(2, 2))),
                job(1, 2.0, Request::Submesh(Shape::new(1, 2))),
                job(2, 3.0, Request::Submesh(Shape::new(1, 1))),
            ],
            1,
        );
        let out = outcome(
            vec![
                rec(0.0, 10.0, sub(0, 0, 2, 2)),
                rec(10.0, 12.0, sub(2, 0, 1, 2)),
                rec(3.0, 8.0, sub(2, 1, 1, 1)),
            ],
            vec![
                Segment {
                    job: JobId(2),
                    start: 3.0,
                    end: 4.0,
                },
                Segment {
                    job: JobId(2),
                    start: 6.0,
                    end: 8.0,
                },
            ],
        );
        let tl = Timeline::new(&w, &out, m);
        assert_eq!(tl.runs().len(), 4);
        let (a, c) = (Some(JobId(0)), Some(JobId(2)));
        assert_eq!(tl.owners_at(3.5), [a, a, None, a, a, c]);
        assert_eq!(tl.owners_at(5.0), [a, a, None, a, a, None]);
        assert_eq!(tl.waiting_at(5.0), [JobId(1)]);
        assert_eq!(tl.waiting_at(10.0), []);
        assert_eq!(tl.owners_at(10.0)[2], Some(JobId(1)));
        assert_eq!(tl.span(), (0.0, 12.0));
    }

    #[test]
    fn anonymous_slots_are_reused_lowest_first() {
        // flat:4. Job 0 (2 nodes) [0, 5); job 1 (1 node) [1, 9); job 2 (2 nodes) starts at 5 as job
        // 0 ends: it takes slots 0 and 1 again, job 1 keeps slot 2.
        let m = MachineSpec::Flat { nodes: 4 };
        let w = Workload::from_jobs(
            vec![
                job(0, 0.0, Request::Nodes(2)),
                job(1, 1.0, Request::Nodes(1)),
                job(2, 2.0, Request::Nodes(2)),
            ],
            1,
        );
        let out = outcome(
            vec![
                rec(0.0, 5.0, Placement::Nodes(2)),
                rec(1.0, 9.0, Placement::Nodes(1)),
                rec(5.0, 7.0, Placement::Nodes(2)),
            ],
            Vec::new(),
        );
        let tl = Timeline::new(&w, &out, m);
        let slots: Vec<Vec<(u32, u32)>> = tl
            .nodes()
            .iter()
            .map(|rs| rs.iter().map(|r| (r.start, r.end)).collect())
            .collect();
        assert_eq!(slots, [[(0, 2)], [(2, 3)], [(0, 2)]]);
        assert_eq!(tl.waiting_at(3.0), [JobId(2)]);
        assert_eq!(tl.running_at(6.0).count(), 2);
    }

    #[test]
    fn ranges_merge_consecutive_ids() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), [0..3, 5..6, 7..9]);
        assert_eq!(ranges(&[]), Vec::<Range<u32>>::new());
    }
}
