//! Measures of time sharing (coscheduling-time-sharing.md §4.4): response and waiting time by
//! service-demand class, slowdown, job suspensions, and the number of time-slice classes over time
//! (from the [`GangLog`] of a `gang` replay).
//!
//! Under time sharing a job's *response time* runs from submission to the end of its last run
//! segment, and its *waiting time* is the part of it in which the job is not served: response − run
//! time (under space sharing that is start − submit, the usual wait). The report's central claim is
//! that this waiting grows with service demand under gang scheduling and not under space sharing:
//! [`by_service_class`] splits the jobs into equal-count classes of run time (deciles for 10) to
//! show it.
//!
//! ```
//! use pwa_replay::coschedule::{by_service_class, replay_gang};
//! use pwa_replay::machine::{AllocKind, MachineSpec};
//! use pwa_replay::sched::GangParams;
//! use pwa_replay::workload::synth::SynthSpec;
//!
//! let (spec, seed) = SynthSpec::from_label("synth:squares,mesh=8x8,jobs=400,rate=2").unwrap();
//! let w = spec.generate(seed).unwrap();
//! let params = GangParams { slice: Some(0.7), ..GangParams::default() };
//! let (out, log) = replay_gang(&w, spec.mesh_spec(), params, AllocKind::FirstFit).unwrap();
//! let rows = by_service_class(&w, &out, 4);
//! assert_eq!(rows.iter().map(|r| r.jobs).sum::<usize>(), 400);
//! assert!(log.mean_classes(out.records.iter().map(|r| r.end).fold(0.0, f64::max)) >= 1.0);
//! ```

use std::sync::{Arc, Mutex};

use crate::SimTime;
use crate::engine::{Engine, EngineError, NoObserver, Outcome, ReplayOptions};
use crate::machine::{AllocKind, MachineSpec};
use crate::sched::{GangLog, GangParams, gang_with_log};
use crate::workload::Workload;

/// Replays `workload` under `gang` with `params`, returning its class log too.
pub fn replay_gang(
    workload: &Workload,
    machine: MachineSpec,
    params: GangParams,
    alloc: AllocKind,
) -> Result<(Outcome, GangLog), EngineError> {
    replay_gang_with(workload, machine, params, alloc, ReplayOptions::default())
}

/// [`replay_gang`] with the engine's options (killing at estimates, dilation).
pub fn replay_gang_with(
    workload: &Workload,
    machine: MachineSpec,
    params: GangParams,
    alloc: AllocKind,
    options: ReplayOptions,
) -> Result<(Outcome, GangLog), EngineError> {
    let log = Arc::new(Mutex::new(GangLog::default()));
    let out = Engine::new(
        workload,
        gang_with_log(params.for_workload(workload), log.clone()),
        alloc.build(machine)?,
    )
    .with_options(options)
    .run(&mut NoObserver)?;
    let log = log.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok((out, log))
}

impl GangLog {
    /// Time-average number of classes from the first entry to `until` (0 when the log is empty).
    pub fn mean_classes(&self, until: SimTime) -> f64 {
        let Some(&(t0, _)) = self.classes.first() else {
            return 0.0;
        };
        let span = until - t0;
        if span <= 0.0 {
            return self.classes[0].1 as f64;
        }
        let ends = self.classes.iter().skip(1).map(|c| c.0).chain([until]);
        let area: f64 = self
            .classes
            .iter()
            .zip(ends)
            .map(|(&(t, n), end)| (end.min(until) - t).max(0.0) * f64::from(n))
            .sum();
        area / span
    }

    /// The largest number of classes at once.
    pub fn max_classes(&self) -> u32 {
        self.classes.iter().map(|c| c.1).max().unwrap_or(0)
    }
}

/// Response time of job `i`: end of its last segment − submit.
pub fn response(w: &Workload, out: &Outcome, i: usize) -> f64 {
    out.records[i].end - w.jobs[i].submit
}

/// Waiting time of job `i` under time sharing: response − service received.
pub fn waiting(w: &Workload, out: &Outcome, i: usize) -> f64 {
    let r = &out.records[i];
    let served = if r.killed {
        w.jobs[i].estimate
    } else {
        w.jobs[i].runtime
    };
    (response(w, out, i) - served).max(0.0)
}

/// Mean response time over all jobs (0 for none).
pub fn mean_response(w: &Workload, out: &Outcome) -> f64 {
    let n = w.jobs.len();
    if n == 0 {
        return 0.0;
    }
    (0..n).map(|i| response(w, out, i)).sum::<f64>() / n as f64
}

/// Job suspensions (job context switches): run segments that did not end the job.
pub fn suspensions(out: &Outcome) -> u64 {
    let mut n = 0;
    for pair in out.segments.windows(2) {
        if pair[0].job == pair[1].job {
            n += 1;
        }
    }
    n
}

/// One service-demand class: jobs whose run time lies in one equal-count slice of the sorted run
/// times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ServiceClass {
    /// 1-based class number (1 = the shortest jobs).
    pub class: usize,
    /// Jobs in the class.
    pub jobs: usize,
    /// Shortest and longest run time in the class.
    pub runtime: (f64, f64),
    /// Mean waiting time (response − run time).
    pub mean_wait: f64,
    /// Mean response time.
    pub mean_response: f64,
    /// Mean slowdown, response / max(run time, 10⁻⁹).
    pub mean_slowdown: f64,
}

/// Splits the jobs into `classes` equal-count classes by run time (ties by job order; the first
/// `n mod classes` classes get one job more) and averages each.
pub fn by_service_class(w: &Workload, out: &Outcome, classes: usize) -> Vec<ServiceClass> {
    let n = w.jobs.len();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        w.jobs[a]
            .runtime
            .total_cmp(&w.jobs[b].runtime)
            .then(a.cmp(&b))
    });
    let k = classes.max(1).min(n.max(1));
    let (base, extra) = (n / k, n % k);
    let mut rows = Vec::with_capacity(k);
    let mut at = 0;
    for c in 0..k {
        let len = base + usize::from(c < extra);
        let members = &order[at..at + len];
        at += len;
        if members.is_empty() {
            continue;
        }
        let mean =
            |f: &dyn Fn(usize) -> f64| members.iter().map(|&i| f(i)).sum::<f64>() / len as f64;
        rows.push(ServiceClass {
            class: c + 1,
            jobs: len,
            runtime: (w.jobs[members[0]].runtime, w.jobs[members[len - 1]].runtime),
            mean_wait: mean(&|i| waiting(w, out, i)),
            mean_response: mean(&|i| response(w, out, i)),
            mean_slowdown: mean(&|i| response(w, out, i) / w.jobs[i].runtime.max(1e-9)),
        });
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{JobRecord, Segment};
    use crate::resource::{Placement, Request};
    use crate::workload::{Job, JobId};

    fn job(i: u32, submit: f64, runtime: f64) -> Job {
        Job::sample(i, submit, runtime, Request::Nodes(1))
    }

    fn rec(start: f64, end: f64) -> JobRecord {
        JobRecord {
            start,
            end,
            placement: Placement::Nodes(1),
            killed: false,
            reserved: None,
        }
    }

    #[test]
    fn waiting_is_response_minus_service_and_classes_split_by_run_time() {
        // Job 0 (run 1) waits 2; job 1 (run 4) is suspended once and waits 3; job 2 (run 2) none.
        let w = Workload {
            jobs: vec![job(0, 0.0, 1.0), job(1, 0.0, 4.0), job(2, 1.0, 2.0)],
            procs_per_node: 1,
            predictor: None,
        };
        let seg = |s, e| Segment {
            job: JobId(1),
            start: s,
            end: e,
        };
        let out = Outcome {
            records: vec![rec(2.0, 3.0), rec(0.0, 7.0), rec(1.0, 3.0)],
            segments: vec![seg(0.0, 2.0), seg(5.0, 7.0)],
            ..Default::default()
        };
        assert_eq!(waiting(&w, &out, 0), 2.0);
        assert_eq!(waiting(&w, &out, 1), 3.0);
        assert_eq!(waiting(&w, &out, 2), 0.0);
        assert_eq!(suspensions(&out), 1);
        assert!((mean_response(&w, &out) - (3.0 + 7.0 + 2.0) / 3.0).abs() < 1e-12);
        let rows = by_service_class(&w, &out, 2);
        // Sorted by run time: job 0 (1), job 2 (2) | job 1 (4); the first class takes the extra job.
        assert_eq!(rows.len(), 2);
        assert_eq!((rows[0].jobs, rows[0].runtime), (2, (1.0, 2.0)));
        assert_eq!(rows[0].mean_wait, 1.0);
        assert_eq!((rows[1].jobs, rows[1].mean_wait), (1, 3.0));
        assert_eq!(rows[1].mean_slowdown, 7.0 / 4.0);
    }

    #[test]
    fn mean_classes_is_a_time_average_of_the_step_function() {
        let log = GangLog {
            classes: vec![(0.0, 1), (2.0, 3), (3.0, 0)],
            switches: 0,
        };
        assert!((log.mean_classes(4.0) - (2.0 * 1.0 + 1.0 * 3.0) / 4.0).abs() < 1e-12);
        assert_eq!(log.max_classes(), 3);
        assert_eq!(GangLog::default().mean_classes(1.0), 0.0);
    }
}
