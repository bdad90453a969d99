//! The fragmentation measures of a replay taken while it runs: an [`Observer`] that keeps what
//! [`summarize_fragmentation`](super::summarize_fragmentation) would rebuild afterwards (the
//! queue, the busy count, the time averages) and measures each instant once its events are over,
//! asking the replay's own allocator ([`Observer::on_allocator`]) where the head would go and
//! counting free regions on its mesh. It gives the same [`FragSummary`], bit for bit, without the
//! replay's [`Timeline`](super::Timeline) and its sorted event lists and without a copy of the
//! allocator: its memory is one bit per job plus what is waiting (an end comes with the placement
//! it frees), and a mesh bitmap only where the allocator keeps none.
//!
//! The instants are those of the replay played afterwards: a submit, a first start, the start of a
//! run segment that lasts, the end of one that lasted. A segment that ends at the instant it began
//! (a job of run time 0, a resume undone at once) holds nothing, and an engine instant with no such
//! change (a timer) is no step. An instant is measured when the engine reports it over; the
//! submits come from the workload itself (each is an engine event, so each instant with arrivals
//! is reported, and none is left at [`FragMeter::finish`]).
//!
//! The time averages clip each step to the span `[first submit, last end]`; the last end is only
//! known at the end. A step whose end time is not yet known to lie inside the span waits in a short
//! list until it is (a job still runs, or a run has ended as late), so every step adds to the
//! averages in the same order, with the same operands, as over the kept steps.

use super::fragmentation::{FragSummary, Queue, State, TimeAverages};
use super::observer::Observer;
use crate::SimTime;
use crate::machine::{AllocKind, Allocator, MachineSpec, Placement};
use crate::workload::{Job, JobId, Workload};

/// Measures the fragmentation of a replay as it runs (see the module doc): pass it to
/// [`replay`](super::replay()) as the observer, then [`finish`](Self::finish) it.
///
/// ```
/// use pwa_replay::engine::{FragMeter, Timeline, replay, summarize_fragmentation};
/// use pwa_replay::workload::{Job, JobId, Request, Workload};
///
/// let job = |i: u32, submit: f64, n: u32| Job {
///     id: JobId(i), source_id: u64::from(i) + 1, submit, runtime: 10.0, estimate: 10.0,
///     requested: None, request: Request::Nodes(n), asked_procs: n, user: None,
///     group: None, queue: None, partition: None,
/// };
/// let w = Workload::from_jobs(vec![job(0, 0.0, 3), job(1, 1.0, 2)], 1);
/// let (machine, alloc) = ("flat:4".parse().unwrap(), "flat".parse().unwrap());
/// let mut meter = FragMeter::new(&w, machine, alloc);
/// let out = replay(&w, machine, "fcfs".parse().unwrap(), alloc, &mut meter).unwrap();
/// // Job 1 waits over [1, 10) with 1 node idle, which it cannot use: nothing lost.
/// let frag = meter.finish();
/// assert_eq!(frag, summarize_fragmentation(&Timeline::new(&w, &out, machine), alloc));
/// assert_eq!(frag.external, 0.0);
/// ```
pub struct FragMeter<'w> {
    jobs: &'w [Job],
    nodes: u32,
    state: State,
    queue: Queue,
    /// Jobs `..arrived` have been submitted.
    arrived: usize,
    /// A submit, first start or lasting change happened in the instant being gathered.
    changed: bool,
    /// Segments begun in the instant being gathered and still running: the job, and whether it
    /// resumed (a first start is a change whatever follows; a resume is one only if the segment
    /// lasts).
    opened: Vec<(JobId, bool)>,
    /// Run segments going on.
    running: u32,
    /// The head of the queue, once found delayed by fragmentation.
    delayed_head: Option<usize>,
    delayed_jobs: u64,
    /// The latest end of a run that lasted, or the first submit (the span's end so far).
    last: SimTime,
    /// Lost nodes, head-lost nodes and free regions, averaged over time.
    averages: TimeAverages<3>,
}

impl<'w> FragMeter<'w> {
    /// A meter for a replay of `workload` on `machine` by allocator `alloc`.
    pub fn new(workload: &'w Workload, machine: MachineSpec, alloc: AllocKind) -> Self {
        let jobs = &workload.jobs[..];
        let first = jobs.iter().map(|j| j.submit).fold(f64::INFINITY, f64::min);
        // As `Timeline::span`: (0, 0) without jobs.
        let first = if first.is_finite() { first } else { 0.0 };
        FragMeter {
            jobs,
            nodes: machine.nodes(),
            state: State::watching(machine, alloc),
            queue: Queue::new(jobs.len(), machine.nodes()),
            arrived: 0,
            changed: false,
            opened: Vec::new(),
            running: 0,
            delayed_head: None,
            delayed_jobs: 0,
            last: first,
            averages: TimeAverages::new(first),
        }
    }

    /// The measures of the replay observed (every job must have started and ended).
    pub fn finish(self) -> FragSummary {
        // Each submit is an engine event whose instant was reported over, so none is left.
        debug_assert!(
            self.next_submit().is_none(),
            "a job the replay never submitted"
        );
        let averages = self.averages.finish(self.last);
        FragSummary::new(averages, self.nodes, self.delayed_jobs, self.jobs.len())
    }

    fn next_submit(&self) -> Option<SimTime> {
        self.jobs.get(self.arrived).map(|j| j.submit)
    }

    /// Measures instant `t`, whose events are over, if anything changed at it, asking `watched`
    /// (the replay's allocator as it stands after `t`) where the head would go.
    fn close(&mut self, t: SimTime, watched: &mut dyn Allocator) {
        let lasting_resume = self.opened.iter().any(|&(_, resumed)| resumed);
        if self.changed || lasting_resume {
            let delayed_head = self.delayed_head;
            let (step, newly_delayed) = self.state.step(
                t,
                &mut self.queue,
                self.jobs,
                |h| delayed_head == Some(h),
                Some(watched),
            );
            if let Some(h) = newly_delayed {
                self.delayed_head = Some(h);
                self.delayed_jobs += 1;
            }
            // The span reaches past `t` when a run ended at `t` or later, or one is still running.
            let inside = self.last >= t || self.running > 0;
            self.averages.push(step.values(self.nodes), t, inside);
        }
        self.changed = false;
        self.opened.clear();
    }

    /// The jobs submitted by `t` start waiting.
    fn admit(&mut self, t: SimTime) {
        while let Some(j) = self.jobs.get(self.arrived).filter(|j| j.submit <= t) {
            let need = self.state.needed(&j.request);
            self.queue.arrive(self.arrived, need);
            self.arrived += 1;
            self.changed = true;
        }
    }

    /// The jobs submitted by `now` wait: every earlier instant was reported over (each submit is
    /// an engine event), so only the submits of `now` are new.
    fn arrive_by(&mut self, now: SimTime) {
        debug_assert!(
            self.next_submit().is_none_or(|s| s >= now),
            "an instant of submits was not reported over"
        );
        self.admit(now);
    }

    fn begin(&mut self, now: SimTime, job: JobId, placement: &Placement, resumed: bool) {
        self.arrive_by(now);
        self.state.occupy_granted(placement);
        self.running += 1;
        self.opened.push((job, resumed));
    }

    fn stop(&mut self, now: SimTime, job: JobId, placement: &Placement) {
        self.arrive_by(now);
        self.state.vacate(placement);
        self.running -= 1;
        match self.opened.iter().position(|&(j, _)| j == job) {
            // Begun at this instant: the segment held nothing.
            Some(k) => {
                self.opened.swap_remove(k);
            }
            None => {
                self.changed = true;
                self.last = self.last.max(now);
            }
        }
    }
}

impl Observer for FragMeter<'_> {
    fn on_start(&mut self, now: SimTime, job: JobId, placement: &Placement) {
        self.begin(now, job, placement, false);
        let need = self.state.needed(&self.jobs[job.index()].request);
        self.queue.leave(job.index(), need);
        self.changed = true;
    }

    fn on_end(&mut self, now: SimTime, job: JobId, placement: &Placement) {
        self.stop(now, job, placement);
    }

    fn on_suspend(&mut self, now: SimTime, job: JobId, placement: &Placement) {
        self.stop(now, job, placement);
    }

    fn on_resume(&mut self, now: SimTime, job: JobId, placement: &Placement) {
        self.begin(now, job, placement, true);
    }

    fn on_allocator(&mut self, now: SimTime, alloc: &mut dyn Allocator) {
        self.arrive_by(now);
        self.close(now, alloc);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Timeline, replay, summarize_fragmentation};
    use crate::machine::Shape;
    use crate::workload::Request;

    fn job(i: u32, submit: f64, runtime: f64, (w, h): (u32, u32)) -> Job {
        Job::sample(i, submit, runtime, Request::Submesh(Shape::new(w, h)))
    }

    const MESH_4X2: MachineSpec = MachineSpec::Mesh {
        size: Shape::new(4, 2),
    };

    /// The meter's summary of an FCFS / first-fit replay of `jobs` on the 4×2 mesh, checked
    /// against the replay played afterwards.
    fn metered(jobs: Vec<Job>) -> FragSummary {
        let w = Workload::from_jobs(jobs, 1);
        let alloc = AllocKind::FirstFit;
        let mut meter = FragMeter::new(&w, MESH_4X2, alloc);
        let out = replay(&w, MESH_4X2, "fcfs".parse().unwrap(), alloc, &mut meter).unwrap();
        let during = meter.finish();
        let after = summarize_fragmentation(&Timeline::new(&w, &out, MESH_4X2), alloc);
        let bits =
            |f: &FragSummary| [f.external, f.external_head, f.mean_free_regions].map(f64::to_bits);
        assert_eq!(bits(&during), bits(&after));
        assert_eq!(during.delayed_jobs, after.delayed_jobs);
        during
    }

    #[test]
    fn instants_past_the_last_end_add_nothing() {
        // Columns 0, 1, 2 are held over [0, 10), [0, 5), [0, 10): one free region (column 3),
        // then two (columns 1 and 3) over [5, 10). Job 3, of run time 0, arrives and "runs" at
        // 20, after the last end: the span is [0, 10], and the step at 10 (the whole mesh free,
        // 1 region) lasts 0 within it, not until 20.
        let f = metered(vec![
            job(0, 0.0, 10.0, (1, 2)),
            job(1, 0.0, 5.0, (1, 2)),
            job(2, 0.0, 10.0, (1, 2)),
            job(3, 20.0, 0.0, (1, 1)),
        ]);
        assert_eq!(f.mean_free_regions, (1.0 * 5.0 + 2.0 * 5.0) / 10.0);
        assert_eq!((f.external, f.delayed_jobs), (0.0, 0));
    }

    #[test]
    fn an_idle_gap_and_a_blocked_head_average_as_played_afterwards() {
        // Job 0 (3×2) over [0, 10); job 1 (2×2) waits from 1 with 2 nodes idle (it needs 4:
        // nothing lost), runs [10, 15); the mesh is idle over [15, 30) until job 2 (1×1) runs
        // [30, 40). Regions: 1 over [0, 10), 1 over [10, 15), 1 over [15, 30), 2 over [30, 40).
        let f = metered(vec![
            job(0, 0.0, 10.0, (3, 2)),
            job(1, 1.0, 5.0, (2, 2)),
            job(2, 30.0, 10.0, (1, 1)),
        ]);
        assert_eq!(f.mean_free_regions, (30.0 + 2.0 * 10.0) / 40.0);
        assert_eq!(f.external, 0.0);
    }
}
