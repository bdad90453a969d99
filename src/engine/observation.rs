//! The performance parameters of lazy-scheduling-hypercube.md §4.2, measured over an observation
//! window `[0, T]` of a replay.
//!
//! * `G` jobs generated (submitted) in the window, `C` completed (ended) in it, `A` allocated (started)
//!   in it, `R` the total queueing delay of those `A` jobs, `S` the total service demand (nodes ×
//!   residence) of the `G` jobs.
//! * `M = R/A` mean queueing delay, `X = C/T` throughput, `S / (2^n·T)` measured request rate,
//!   power `X/M` (infinite when no allocated job waited), and utilization
//!   `U = Σ 2^{|I_i|}·t_i / (2^n·T)` over the allocated jobs, each residence `t_i` counted only within
//!   the window (so `U ≤ 1`; the paper's formula does not say whether a job running past `T` counts
//!   whole).
//!
//! [`delay_over_time`] gives `M` for growing windows (Fig. 8); the completion time of a fixed job set
//! (Fig. 9) is [`completion_time`].
//!
//! [`Observed`] holds what an experiment measures of a run beyond its summary (the window's `M`,
//! `U`, `X`, the completion time and the last arrival; of a time-sharing run the mean number of
//! gang classes, suspensions per job and the mean wait of each service-demand decile,
//! coscheduling-time-sharing.md §4.4), one registered column each in [`OBSERVED`]; [`observed`]
//! computes them.

use super::Outcome;
use crate::SimTime;
use crate::coschedule;
use crate::sched::GangLog;
use crate::workload::Workload;

/// The §4.2 counters and parameters of one window.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Observation {
    /// Window length `T`.
    pub window: SimTime,
    /// Jobs generated in the window.
    pub generated: u64,
    /// Jobs completed in the window.
    pub completed: u64,
    /// Jobs allocated in the window.
    pub allocated: u64,
    /// Total queueing delay of the allocated jobs.
    pub total_delay: f64,
    /// Total service demand of the generated jobs (node-time units).
    pub demand: f64,
    /// Mean queueing delay `M = R/A`.
    pub mean_delay: f64,
    /// Utilization `U`.
    pub utilization: f64,
    /// Throughput `X = C/T`.
    pub throughput: f64,
    /// Measured request rate `S / (2^n·T)`.
    pub request_rate: f64,
    /// System power `X/M`.
    pub power: f64,
}

/// The §4.2 parameters of `out` (a replay of `w` on `nodes` nodes) over `[0, window]`.
pub fn observe(w: &Workload, out: &Outcome, nodes: u32, window: SimTime) -> Observation {
    let cap = f64::from(nodes) * window;
    let mut o = Observation {
        window,
        ..Observation::default()
    };
    let mut busy = 0.0;
    for (job, rec) in w.jobs.iter().zip(&out.records) {
        let size = f64::from(rec.placement.nodes());
        if job.submit <= window {
            o.generated += 1;
            o.demand += f64::from(job.request.nodes()) * job.runtime;
        }
        if rec.end <= window {
            o.completed += 1;
        }
        if rec.start <= window {
            o.allocated += 1;
            o.total_delay += rec.start - job.submit;
            busy += size * (rec.end.min(window) - rec.start).max(0.0);
        }
    }
    o.mean_delay = if o.allocated > 0 {
        o.total_delay / o.allocated as f64
    } else {
        0.0
    };
    o.throughput = o.completed as f64 / window;
    o.utilization = busy / cap;
    o.request_rate = o.demand / cap;
    o.power = o.throughput / o.mean_delay;
    o
}

/// The observed measures of one run that its summary does not hold (zero unless an experiment
/// asks for them: [`crate::engine::RunMetrics::observed`]).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Observed {
    /// Mean queueing delay `M` over the observation window.
    pub window_delay: f64,
    /// Utilization `U` over the window.
    pub window_utilization: f64,
    /// Throughput `X = C/T` over the window.
    pub window_throughput: f64,
    /// When the last job ends.
    pub completion_time: f64,
    /// When the last job arrives.
    pub last_arrival: f64,
    /// Time-average number of time-slice classes of a `gang` run up to its completion
    /// ([`crate::sched::GangLog::mean_classes`]; 0 for other schedulers).
    pub gang_classes: f64,
    /// Job suspensions per job ([`crate::coschedule::suspensions`] over the job count).
    pub suspensions_per_job: f64,
    /// Mean waiting time (response − run time) of each service-demand decile, shortest first
    /// ([`crate::coschedule::by_service_class`] with 10 classes).
    pub decile_wait: [f64; DECILES],
}

/// The service-demand classes of [`Observed::decile_wait`].
pub const DECILES: usize = 10;

/// The column of decile `d` (0-based) of [`Observed::decile_wait`].
macro_rules! decile_column {
    ($d:literal, $name:literal, $n:literal) => {
        ObservedColumn {
            name: $name,
            unit: "s",
            meaning: concat!(
                "mean waiting time (response − run time) of service-demand decile ",
                $n
            ),
            get: |o| o.decile_wait[$d],
            set: |o, v| o.decile_wait[$d] = v,
        }
    };
}

/// One observed measure: name, unit, meaning, and its value in an [`Observed`].
#[derive(Debug, Clone, Copy)]
pub struct ObservedColumn {
    /// Name in experiment files (`window_delay`).
    pub name: &'static str,
    /// Unit for axis labels (`s` for times, as the run columns).
    pub unit: &'static str,
    /// What it means, in a few words.
    pub meaning: &'static str,
    /// Its value.
    pub get: fn(&Observed) -> f64,
    /// Sets it (a cache read back).
    pub set: fn(&mut Observed, f64),
}

/// Every observed measure.
pub const OBSERVED: &[ObservedColumn] = &[
    ObservedColumn {
        name: "window_delay",
        unit: "s",
        meaning: "mean queueing delay M over the observation window",
        get: |o| o.window_delay,
        set: |o, v| o.window_delay = v,
    },
    ObservedColumn {
        name: "window_utilization",
        unit: "fraction",
        meaning: "utilization U over the observation window",
        get: |o| o.window_utilization,
        set: |o, v| o.window_utilization = v,
    },
    ObservedColumn {
        name: "window_throughput",
        unit: "jobs/s",
        meaning: "throughput X over the observation window",
        get: |o| o.window_throughput,
        set: |o, v| o.window_throughput = v,
    },
    ObservedColumn {
        name: "completion_time",
        unit: "s",
        meaning: "completion time of the job set",
        get: |o| o.completion_time,
        set: |o, v| o.completion_time = v,
    },
    ObservedColumn {
        name: "last_arrival",
        unit: "s",
        meaning: "arrival of the last job",
        get: |o| o.last_arrival,
        set: |o, v| o.last_arrival = v,
    },
    ObservedColumn {
        name: "gang_classes",
        unit: "",
        meaning: "time-average number of gang time-slice classes",
        get: |o| o.gang_classes,
        set: |o, v| o.gang_classes = v,
    },
    ObservedColumn {
        name: "suspensions_per_job",
        unit: "",
        meaning: "job suspensions per job",
        get: |o| o.suspensions_per_job,
        set: |o, v| o.suspensions_per_job = v,
    },
    decile_column!(0, "decile_wait_1", "1"),
    decile_column!(1, "decile_wait_2", "2"),
    decile_column!(2, "decile_wait_3", "3"),
    decile_column!(3, "decile_wait_4", "4"),
    decile_column!(4, "decile_wait_5", "5"),
    decile_column!(5, "decile_wait_6", "6"),
    decile_column!(6, "decile_wait_7", "7"),
    decile_column!(7, "decile_wait_8", "8"),
    decile_column!(8, "decile_wait_9", "9"),
    decile_column!(9, "decile_wait_10", "10"),
];

/// The observed measures of `out` (a replay of `w` on `nodes` nodes) over the window `[0, window]`;
/// without a window (a fixed job set), over `[0, completion time]`. `gang` is the class log of a
/// `gang` replay (none: no classes).
pub fn observed(
    w: &Workload,
    out: &Outcome,
    nodes: u32,
    window: Option<SimTime>,
    gang: Option<&GangLog>,
) -> Observed {
    let completion = completion_time(out);
    let window = window.unwrap_or_else(|| completion.max(f64::MIN_POSITIVE));
    let o = observe(w, out, nodes, window);
    let mut decile_wait = [0.0; DECILES];
    for (d, class) in decile_wait
        .iter_mut()
        .zip(coschedule::by_service_class(w, out, DECILES))
    {
        *d = class.mean_wait;
    }
    Observed {
        window_delay: o.mean_delay,
        window_utilization: o.utilization,
        window_throughput: o.throughput,
        completion_time: completion,
        last_arrival: w.jobs.last().map_or(0.0, |j| j.submit),
        gang_classes: gang.map_or(0.0, |g| g.mean_classes(completion)),
        suspensions_per_job: coschedule::suspensions(out) as f64 / w.jobs.len().max(1) as f64,
        decile_wait,
    }
}

/// Mean queueing delay `M` of the windows `[0, t]` for each `t` of `times`.
pub fn delay_over_time(w: &Workload, out: &Outcome, times: &[SimTime]) -> Vec<f64> {
    times
        .iter()
        .map(|&t| {
            let (n, sum) = w
                .jobs
                .iter()
                .zip(&out.records)
                .filter(|(_, r)| r.start <= t)
                .fold((0u64, 0.0), |(n, s), (j, r)| {
                    (n + 1, s + r.start - j.submit)
                });
            if n > 0 { sum / n as f64 } else { 0.0 }
        })
        .collect()
}

/// When the last job of the replay ends (Fig. 9's completion time of a fixed job set).
pub fn completion_time(out: &Outcome) -> SimTime {
    out.records.iter().map(|r| r.end).fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{AllocStats, JobRecord};
    use crate::resource::{Placement, Request, Subcube};
    use crate::workload::Job;

    /// Three jobs on a 2-cube, window T = 10 (worked by hand):
    /// j0 1-cube submitted 0, runs 0–4; j1 2-cube submitted 1, waits until 4, runs 4–12 (past T);
    /// j2 0-cube submitted 11 (after T), runs 12–13.
    #[test]
    fn counters_of_a_hand_worked_window() {
        let job = |i: u32, submit, runtime, k| Job::sample(i, submit, runtime, Request::Subcube(k));
        let w = Workload {
            jobs: vec![
                job(0, 0.0, 4.0, 1),
                job(1, 1.0, 8.0, 2),
                job(2, 11.0, 1.0, 0),
            ],
            procs_per_node: 1,
            predictor: None,
        };
        let rec = |start, end, mask| JobRecord {
            start,
            end,
            placement: Placement::Subcube(Subcube::new(2, 0, mask)),
            killed: false,
            reserved: None,
        };
        let out = Outcome {
            predictions: Vec::new(),
            records: vec![
                rec(0.0, 4.0, 0b01),
                rec(4.0, 12.0, 0b11),
                rec(12.0, 13.0, 0),
            ],
            segments: vec![],
            tori: Vec::new(),
            dilation: Vec::new(),
            alloc: AllocStats::default(),
            skipped_checks: 0,
            alloc_time_s: 0.0,
            sim_wall_s: 0.0,
        };
        let o = observe(&w, &out, 4, 10.0);
        assert_eq!((o.generated, o.completed, o.allocated), (2, 1, 2));
        assert_eq!(o.total_delay, 3.0);
        assert_eq!(o.demand, 2.0 * 4.0 + 4.0 * 8.0);
        assert_eq!(o.mean_delay, 1.5);
        // Busy node-time in [0, 10]: 2 × 4 + 4 × 6 = 32 of 40.
        assert_eq!(o.utilization, 0.8);
        assert_eq!(o.throughput, 0.1);
        assert_eq!(o.request_rate, 1.0);
        assert!((o.power - 0.1 / 1.5).abs() < 1e-15);
        assert_eq!(
            delay_over_time(&w, &out, &[0.5, 5.0, 20.0]),
            [0.0, 1.5, 4.0 / 3.0]
        );
        assert_eq!(completion_time(&out), 13.0);
        let seen = observed(&w, &out, 4, Some(10.0), None);
        assert_eq!(
            (
                seen.window_delay,
                seen.window_utilization,
                seen.window_throughput
            ),
            (1.5, 0.8, 0.1)
        );
        assert_eq!((seen.completion_time, seen.last_arrival), (13.0, 11.0));
        // A job set: the window is [0, 13], every job allocated and completed in it.
        let set = observed(&w, &out, 4, None, None);
        assert_eq!(set.window_delay, 4.0 / 3.0);
        assert_eq!(set.window_throughput, 3.0 / 13.0);
        // Run times 4, 8, 1 with waits 0, 3, 1: one job per class, the shortest first.
        assert_eq!(set.decile_wait[..4], [1.0, 0.0, 3.0, 0.0]);
        assert_eq!((set.gang_classes, set.suspensions_per_job), (0.0, 0.0));
        // One class over [0, 4), two up to the completion at 13.
        let log = GangLog {
            classes: vec![(0.0, 1), (4.0, 2)],
            switches: 0,
        };
        let gang = observed(&w, &out, 4, None, Some(&log));
        assert_eq!(gang.gang_classes, 22.0 / 13.0);
        let names: Vec<&str> = OBSERVED.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), 7 + DECILES);
        assert_eq!(names[16], "decile_wait_10");
        assert_eq!((OBSERVED[4].get)(&seen), 11.0);
        let mut back = Observed::default();
        for c in OBSERVED {
            (c.set)(&mut back, (c.get)(&seen));
        }
        assert_eq!(back, seen);
    }
}
