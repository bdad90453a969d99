//! The metrics of one replay ([`RunMetrics`]), computed from the workload and the outcome alone.
//!
//! Definitions (the table columns):
//! * turnaround = end − submit; wait = start − submit; variance is the population variance;
//! * percentiles are nearest-rank: the `⌈p·n⌉`-th smallest wait;
//! * makespan = last end − first submit; utilization = Σ granted nodes × service / (N × makespan),
//!   service being the run time, or the estimate for a job killed there;
//!   throughput = jobs / makespan (both 0 when the makespan is 0);
//! * bounded slowdown = max(1, turnaround / max(run time, τ)) with τ = 10 s: mean and nearest-rank
//!   p50 / p95 / p99;
//! * backfilled jobs = jobs started while an older job (lower id, so already submitted) was still
//!   waiting: job `j` with `start_i > start_j` for some `i < j` (a start at the same instant does not
//!   count); share = backfilled / jobs;
//! * reservation error = start − first promised start ([`JobRecord::reserved`](super::JobRecord)),
//!   averaged over the jobs that got a promise;
//! * system power = throughput / mean wait (infinite when no job waited);
//! * killed jobs = jobs ended at their estimate (`--kill-at-estimate`);
//! * internal fragmentation = mean of granted processors − asked processors, with granted processors =
//!   granted nodes × processors per node (a workload with 0 processors per node counts 1).

use super::{Outcome, RunMetrics};
use crate::machine::MachineSpec;
use crate::workload::Workload;

/// The bounded-slowdown threshold τ, seconds.
pub const SLOWDOWN_BOUND_S: f64 = 10.0;

/// Summarizes one replay.
pub fn summarize(workload: &Workload, machine: MachineSpec, outcome: &Outcome) -> RunMetrics {
    let jobs = &workload.jobs;
    let n = jobs.len().min(outcome.records.len());
    let mut m = RunMetrics {
        jobs: n as u64,
        alloc_attempts: outcome.alloc.attempts,
        alloc_time_s: outcome.alloc_time_s,
        sim_wall_s: outcome.sim_wall_s,
        ..RunMetrics::default()
    };
    if n == 0 {
        return m;
    }
    let nf = n as f64;
    let ppn = i64::from(workload.procs_per_node.max(1));
    let pairs = || jobs.iter().zip(&outcome.records);
    let mut waits: Vec<f64> = pairs().map(|(j, r)| r.start - j.submit).collect();
    let turnaround = |(j, r): (&crate::workload::Job, &super::JobRecord)| r.end - j.submit;
    m.mean_turnaround_s = pairs().map(turnaround).sum::<f64>() / nf;
    m.var_turnaround = pairs()
        .map(|p| (turnaround(p) - m.mean_turnaround_s).powi(2))
        .sum::<f64>()
        / nf;
    m.mean_wait_s = waits.iter().sum::<f64>() / nf;
    waits.sort_by(f64::total_cmp);
    m.max_wait_s = waits[n - 1];
    m.p50_wait_s = nearest_rank(&waits, 50.0);
    m.p95_wait_s = nearest_rank(&waits, 95.0);
    m.p99_wait_s = nearest_rank(&waits, 99.0);
    let first_submit = jobs.iter().map(|j| j.submit).fold(f64::INFINITY, f64::min);
    let last_end = outcome
        .records
        .iter()
        .map(|r| r.end)
        .fold(f64::NEG_INFINITY, f64::max);
    m.makespan_s = (last_end - first_submit).max(0.0);
    let served = |(j, r): (&crate::workload::Job, &super::JobRecord)| {
        if r.killed { j.estimate } else { j.runtime }
    };
    let node_seconds: f64 = pairs()
        .map(|p| f64::from(p.1.placement.nodes()) * served(p))
        .sum();
    m.killed_jobs = outcome.records.iter().filter(|r| r.killed).count() as u64;
    if m.makespan_s > 0.0 {
        m.utilization = node_seconds / (f64::from(machine.nodes()) * m.makespan_s);
        m.throughput_per_s = nf / m.makespan_s;
    }
    let mut slowdowns: Vec<f64> = pairs()
        .map(|p| (turnaround(p) / p.0.runtime.max(SLOWDOWN_BOUND_S)).max(1.0))
        .collect();
    m.mean_bounded_slowdown = slowdowns.iter().sum::<f64>() / nf;
    slowdowns.sort_by(f64::total_cmp);
    m.p50_bounded_slowdown = nearest_rank(&slowdowns, 50.0);
    m.p95_bounded_slowdown = nearest_rank(&slowdowns, 95.0);
    m.p99_bounded_slowdown = nearest_rank(&slowdowns, 99.0);
    m.backfilled_jobs = backfilled(&outcome.records[..n]);
    m.backfilled_share = m.backfilled_jobs as f64 / nf;
    m.mean_reservation_error_s = reservation_error(&outcome.records[..n]);
    m.system_power = if m.mean_wait_s > 0.0 {
        m.throughput_per_s / m.mean_wait_s
    } else {
        f64::INFINITY
    };
    m.internal_fragmentation = pairs()
        .map(|(j, r)| (i64::from(r.placement.nodes()) * ppn - i64::from(j.asked_procs)) as f64)
        .sum::<f64>()
        / nf;
    m
}

/// Jobs that started while an older job waited: a start earlier than the latest start of the jobs
/// before it (a prefix maximum, one pass).
fn backfilled(records: &[super::JobRecord]) -> u64 {
    let mut latest = f64::NEG_INFINITY;
    let mut count = 0;
    for r in records {
        count += u64::from(r.start < latest);
        latest = latest.max(r.start);
    }
    count
}

/// Mean of start − first promised start over the jobs that were promised one (0 when none was).
fn reservation_error(records: &[super::JobRecord]) -> f64 {
    let (sum, count) = records
        .iter()
        .filter_map(|r| r.reserved.map(|t| r.start - t))
        .fold((0.0, 0u64), |(s, c), e| (s + e, c + 1));
    if count == 0 { 0.0 } else { sum / count as f64 }
}

/// The nearest-rank `p`-th percentile of sorted, non-empty `xs`.
fn nearest_rank(xs: &[f64], p: f64) -> f64 {
    let rank = (p / 100.0 * xs.len() as f64).ceil() as usize;
    xs[rank.clamp(1, xs.len()) - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_follows_the_definition() {
        let xs: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(nearest_rank(&xs, 50.0), 10.0);
        assert_eq!(nearest_rank(&xs, 95.0), 19.0);
        assert_eq!(nearest_rank(&xs, 99.0), 20.0);
        assert_eq!(nearest_rank(&[7.0], 50.0), 7.0);
    }

    fn rec(start: f64, reserved: Option<f64>) -> crate::engine::JobRecord {
        crate::engine::JobRecord {
            start,
            end: start + 1.0,
            placement: crate::machine::Placement::Nodes(1),
            killed: false,
            reserved,
        }
    }

    #[test]
    fn a_job_is_backfilled_when_it_starts_before_an_older_job() {
        // Job 1 starts at 5 while job 0 waits until 10; job 2 starts with job 0 (a tie is no
        // bypass); job 3 starts at 7, before job 0 and job 2.
        let records = [
            rec(10.0, None),
            rec(5.0, None),
            rec(10.0, None),
            rec(7.0, None),
        ];
        assert_eq!(backfilled(&records), 2);
        assert_eq!(backfilled(&records[..1]), 0);
    }

    #[test]
    fn reservation_error_averages_over_promised_jobs_only() {
        let records = [rec(10.0, Some(12.0)), rec(5.0, None), rec(20.0, Some(14.0))];
        assert_eq!(reservation_error(&records), 2.0); // (−2 + 6) / 2
        assert_eq!(reservation_error(&records[1..2]), 0.0);
    }
}
