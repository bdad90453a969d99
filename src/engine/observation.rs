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
//! coscheduling-time-sharing.md §4.4), one registered column each in [`OBSERVED`] (a table of
//! [`Column`]s as the summary's, [`super::columns`]). The experiments compute them
//! ([`crate::experiment::measure::observed`]): the time-sharing measures come from
//! [`crate::coschedule`], which replays on the engine.

use super::Outcome;
use super::columns::{Column, Value, column_table};
use crate::SimTime;
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

column_table! {
    /// Every observed measure.
    pub const OBSERVED: [Column<Observed>] {
        window_delay: Real, "s", "mean queueing delay M over the observation window";
        window_utilization: Real, "fraction", "utilization U over the observation window";
        window_throughput: Real, "jobs/s", "throughput X over the observation window";
        completion_time: Real, "s", "completion time of the job set";
        last_arrival: Real, "s", "arrival of the last job";
        gang_classes: Real, "", "time-average number of gang time-slice classes";
        suspensions_per_job: Real, "", "job suspensions per job";
        decile_wait[1 2 3 4 5 6 7 8 9 10]: Real, "s",
            "mean waiting time (response − run time) of service-demand decile";
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
pub(crate) mod tests {
    use super::*;
    use crate::engine::JobRecord;
    use crate::resource::{Placement, Request, Subcube};
    use crate::workload::Job;

    /// Three jobs on a 2-cube, worked by hand: j0 1-cube submitted 0, runs 0–4; j1 2-cube
    /// submitted 1, waits until 4, runs 4–12; j2 0-cube submitted 11, runs 12–13.
    pub(crate) fn three_jobs_on_a_2_cube() -> (Workload, Outcome) {
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
            records: vec![
                rec(0.0, 4.0, 0b01),
                rec(4.0, 12.0, 0b11),
                rec(12.0, 13.0, 0),
            ],
            ..Default::default()
        };
        (w, out)
    }

    /// [`three_jobs_on_a_2_cube`] in the window T = 10 (j1 runs past T, j2 is submitted after it).
    #[test]
    fn counters_of_a_hand_worked_window() {
        let (w, out) = three_jobs_on_a_2_cube();
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
    }

    #[test]
    fn the_decile_columns_are_numbered_from_1() {
        let names: Vec<&str> = OBSERVED.iter().map(|c| c.name).collect();
        assert_eq!(names.len(), 7 + DECILES);
        assert_eq!(
            (names[6], names[7], names[16]),
            ("suspensions_per_job", "decile_wait_1", "decile_wait_10")
        );
        assert_eq!(
            OBSERVED[16].meaning,
            "mean waiting time (response − run time) of service-demand decile 10"
        );
        let mut o = Observed::default();
        o.decile_wait[0] = 2.5;
        assert_eq!(OBSERVED[7].of(&o), 2.5);
    }
}
