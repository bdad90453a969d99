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
//!   granted nodes × processors per node (a workload with 0 processors per node counts 1);
//! * external fragmentation = the time-average, over the makespan, of the share of nodes idle
//!   while some waiting job needs no more nodes than are idle (loss of capacity); frag-delayed jobs
//!   = jobs that, as the head of the queue, needed no more nodes than were idle and still found no
//!   placement; mean free regions = time-average number of maximal free submeshes (2D mesh). A job
//!   waits from submit to its first start, and a node is busy during a job's run segments. All
//!   three come from playing the outcome's placements again on the allocator
//!   ([`measure_fragmentation`](super::measure_fragmentation()), whose doc gives the formulas;
//!   [`summarize_fragmentation`](super::summarize_fragmentation()) gives the same without the steps,
//!   and a [`FragMeter`](super::FragMeter) the same again while the replay runs, without a second
//!   pass), whatever the scheduler;
//! * estimate error = mean of |estimate − run time| / run time over the jobs with a positive run
//!   time, the estimate being the one the scheduler was told at submission (the predictor's,
//!   `Outcome::predictions`, or the job's own); underestimated share = share of those jobs whose
//!   estimate was below their run time;
//! * mean pieces, mean pairwise hops = means over the jobs of their [`Locality`](super::Locality)
//!   (connected pieces of their nodes; mean hop distance between them, exact; see
//!   [`locality`](super::locality) for the topologies);
//! * mean torus dimensionality = mean number of dimensions of the torus each job ran as (as the
//!   allocator converted its placement, `Outcome::tori`); 0 when the allocator grants no tori;
//! * Jain's index over the users' mean bounded slowdowns, the worst user's mean wait and mean
//!   bounded slowdown: [`users`](super::users) (the jobs of no user count as one user).

use super::{FragSummary, Outcome, RunMetrics, Timeline, summarize_fragmentation};
use crate::SimTime;
use crate::machine::{AllocKind, MachineSpec};
use crate::workload::Workload;

/// The bounded-slowdown threshold τ, seconds.
pub const SLOWDOWN_BOUND_S: f64 = 10.0;

/// Summarizes one replay, made by allocator `alloc` (the fragmentation measures ask it where
/// waiting jobs would fit), playing its placements again for them
/// ([`summarize_fragmentation`](super::summarize_fragmentation())). A replay run with a
/// [`FragMeter`](super::FragMeter) gets the same from [`summarize_with_fragmentation`] without
/// the second pass.
pub fn summarize(
    workload: &Workload,
    machine: MachineSpec,
    alloc: AllocKind,
    outcome: &Outcome,
) -> RunMetrics {
    if workload.jobs.is_empty() || outcome.records.is_empty() {
        return summarize_without_fragmentation(workload, machine, outcome);
    }
    let frag = summarize_fragmentation(&Timeline::new(workload, outcome, machine), alloc);
    summarize_with_fragmentation(workload, machine, outcome, &frag)
}

/// [`summarize`] with the fragmentation measures given (by a [`FragMeter`](super::FragMeter)
/// that watched the replay, or by [`summarize_fragmentation`](super::summarize_fragmentation())).
pub fn summarize_with_fragmentation(
    workload: &Workload,
    machine: MachineSpec,
    outcome: &Outcome,
    frag: &FragSummary,
) -> RunMetrics {
    let mut m = summarize_without_fragmentation(workload, machine, outcome);
    if m.jobs == 0 {
        return m;
    }
    m.external_fragmentation = frag.external;
    m.frag_delayed_jobs = frag.delayed_jobs;
    m.frag_delayed_share = frag.delayed_share;
    m.mean_free_regions = frag.mean_free_regions;
    m.head_fragmentation = frag.external_head;
    m
}

/// [`summarize`] without the [`FRAGMENTATION_COLUMNS`], which need a second pass over the
/// schedule asking the allocator where every waiting job would fit (often costlier than the
/// replay): they are left NaN (`frag_delayed_jobs`, a count, 0).
pub fn summarize_without_fragmentation(
    workload: &Workload,
    machine: MachineSpec,
    outcome: &Outcome,
) -> RunMetrics {
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
    [m.p50_wait_s, m.p95_wait_s, m.p99_wait_s, m.max_wait_s] =
        nearest_ranks(&mut waits, [50.0, 95.0, 99.0, 100.0]);
    // Each per-job list is freed once read: the summary holds one at a time beside the records.
    drop(waits);
    let first_submit = jobs.iter().map(|j| j.submit).fold(f64::INFINITY, f64::min);
    let last_end = outcome
        .records
        .iter()
        .map(|r| r.end)
        .fold(f64::NEG_INFINITY, f64::max);
    m.makespan_s = (last_end - first_submit).max(0.0);
    let node_seconds: f64 = pairs().map(|(j, r)| outcome.node_seconds(j, r)).sum();
    m.killed_jobs = outcome.records.iter().filter(|r| r.killed).count() as u64;
    if m.makespan_s > 0.0 {
        m.utilization = node_seconds / (f64::from(machine.nodes()) * m.makespan_s);
        m.throughput_per_s = nf / m.makespan_s;
    }
    let mut slowdowns: Vec<f64> = pairs().map(|(j, r)| r.bounded_slowdown(j)).collect();
    m.mean_bounded_slowdown = slowdowns.iter().sum::<f64>() / nf;
    [
        m.p50_bounded_slowdown,
        m.p95_bounded_slowdown,
        m.p99_bounded_slowdown,
    ] = nearest_ranks(&mut slowdowns, [50.0, 95.0, 99.0]);
    drop(slowdowns);
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
    m.external_fragmentation = f64::NAN;
    m.frag_delayed_share = f64::NAN;
    m.mean_free_regions = f64::NAN;
    m.head_fragmentation = f64::NAN;
    (m.mean_estimate_error, m.underestimated_share) = estimate_accuracy(workload, outcome);
    (m.mean_pieces, m.mean_pairwise_hops) = mean_locality(machine, &outcome.records[..n]);
    let fair = super::users::Fairness::of(&super::users::per_user(workload, outcome));
    m.jain_bounded_slowdown = fair.jain;
    m.worst_user_mean_wait_s = fair.worst_mean_wait_s;
    m.worst_user_mean_bounded_slowdown = fair.worst_mean_bounded_slowdown;
    (m.unfair_jobs, m.unfair_delay_s) = unfairness(&outcome.records[..n], &outcome.fair_starts);
    m.mean_unfair_delay_s = m.unfair_delay_s / nf;
    if !outcome.tori.is_empty() {
        m.mean_torus_dims =
            outcome.tori.iter().map(|t| t.len() as f64).sum::<f64>() / outcome.tori.len() as f64;
    }
    m
}

/// The jobs started after their fair start times, and their total delay beyond them (`records`
/// and `fair` paired by job; none when the fair start times were not measured). A job is unfair
/// when its start is later than its fair start time by any amount: both are the same
/// simulation's times, equal to the bit when the later jobs changed nothing for it.
fn unfairness(records: &[super::JobRecord], fair: &[SimTime]) -> (u64, f64) {
    if fair.is_empty() {
        return (0, 0.0);
    }
    let delays = records.iter().zip(fair).map(|(r, &f)| r.start - f);
    let late: Vec<f64> = delays.filter(|&d| d > 0.0).collect();
    (late.len() as u64, late.iter().sum())
}

/// The columns [`summarize`] measures by replaying the schedule against the allocator, and
/// [`summarize_without_fragmentation`] leaves out.
pub const FRAGMENTATION_COLUMNS: [&str; 5] = [
    "external_fragmentation",
    "frag_delayed_jobs",
    "frag_delayed_share",
    "mean_free_regions",
    "head_fragmentation",
];

/// Means over the jobs of their pieces and mean pairwise hops ([`locality`](super::locality())).
fn mean_locality(machine: MachineSpec, records: &[super::JobRecord]) -> (f64, f64) {
    let (mut pieces, mut hops) = (0.0, 0.0);
    for r in records {
        let l = super::locality(machine, &r.placement);
        pieces += f64::from(l.pieces);
        hops += l.mean_pairwise_hops;
    }
    let n = records.len().max(1) as f64;
    (pieces / n, hops / n)
}

/// Mean relative error of the estimates given at submission and the share below the run time,
/// over the jobs with a positive run time (0, 0 when there are none).
fn estimate_accuracy(workload: &Workload, outcome: &Outcome) -> (f64, f64) {
    let (mut error, mut under, mut count) = (0.0, 0u64, 0u64);
    for (i, j) in workload.jobs.iter().enumerate() {
        if j.runtime > 0.0 {
            let estimate = outcome.predictions.get(i).copied().unwrap_or(j.estimate);
            error += (estimate - j.runtime).abs() / j.runtime;
            under += u64::from(estimate < j.runtime);
            count += 1;
        }
    }
    if count == 0 {
        return (0.0, 0.0);
    }
    (error / count as f64, under as f64 / count as f64)
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
        .filter_map(|r| r.reserved.map(|t| r.start - t.get()))
        .fold((0.0, 0u64), |(s, c), e| (s + e, c + 1));
    if count == 0 { 0.0 } else { sum / count as f64 }
}

/// The nearest-rank percentiles `ps` (increasing) of non-empty `xs`, which is reordered: each rank
/// is selected (`select_nth_unstable_by`, linear) in the part right of the previous one instead of
/// sorting all of `xs`. Equal values under `total_cmp` are equal bits, so the values are those of a
/// sort.
fn nearest_ranks<const K: usize>(xs: &mut [f64], ps: [f64; K]) -> [f64; K] {
    let n = xs.len();
    let mut done = 0;
    ps.map(|p| {
        let rank = (p / 100.0 * n as f64).ceil() as usize;
        let at = rank.clamp(1, n) - 1;
        let lo = done.min(at);
        xs[lo..].select_nth_unstable_by(at - lo, f64::total_cmp);
        done = at;
        xs[at]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::engine::JobRecord;
    use crate::machine::Placement;
    use crate::workload::{Job, Request};

    fn job(i: u32, submit: f64, run: f64, n: u32) -> Job {
        Job::sample(i, submit, run, Request::Nodes(n))
    }

    fn rec(start: f64, end: f64, n: u32) -> JobRecord {
        JobRecord {
            start,
            end,
            placement: Placement::Nodes(n),
            killed: false,
            reserved: None,
        }
    }

    #[test]
    fn external_fragmentation_by_hand() {
        // 8 nodes. Job 0 (6 nodes) runs [0, 10). Job 1 (2 nodes), the head from t = 2, starts at
        // 10 although 2 nodes are idle: idle share 2/8 over [2, 10). Job 2 (4 nodes) arrives at 4
        // behind it; both start at 10 and nothing waits after. Makespan [0, 20).
        let machine = MachineSpec::Flat { nodes: 8 };
        let w = Workload::from_jobs(
            vec![
                job(0, 0.0, 10.0, 6),
                job(1, 2.0, 10.0, 2),
                job(2, 4.0, 5.0, 4),
            ],
            1,
        );
        let out = Outcome {
            records: vec![rec(0.0, 10.0, 6), rec(10.0, 20.0, 2), rec(10.0, 15.0, 4)],
            ..Default::default()
        };
        let m = summarize(&w, machine, AllocKind::Flat, &out);
        assert!((m.external_fragmentation - (2.0 / 8.0) * 8.0 / 20.0).abs() < 1e-12);
        assert_eq!(m.mean_torus_dims, 0.0);
        // A head that does not fit the idle nodes counts nothing.
        let w = Workload::from_jobs(vec![job(0, 0.0, 10.0, 6), job(1, 2.0, 10.0, 3)], 1);
        let out = Outcome {
            records: vec![rec(0.0, 10.0, 6), rec(10.0, 20.0, 3)],
            ..out
        };
        assert_eq!(
            summarize(&w, machine, AllocKind::Flat, &out).external_fragmentation,
            0.0
        );
        // A head that does not fit but a later job that does: the idle nodes are lost while the
        // later job waits (job 2 asks 1 node, waits over [4, 10), 2 of 8 nodes idle).
        let w = Workload::from_jobs(
            vec![
                job(0, 0.0, 10.0, 6),
                job(1, 2.0, 10.0, 3),
                job(2, 4.0, 5.0, 1),
            ],
            1,
        );
        let out = Outcome {
            records: vec![rec(0.0, 10.0, 6), rec(10.0, 20.0, 3), rec(10.0, 15.0, 1)],
            ..out
        };
        let m = summarize(&w, machine, AllocKind::Flat, &out);
        assert!((m.external_fragmentation - (2.0 / 8.0) * 6.0 / 20.0).abs() < 1e-12);
        assert_eq!(m.frag_delayed_jobs, 0, "a flat machine places any count");
        assert_eq!(m.mean_free_regions, 0.0);
    }

    #[test]
    fn nearest_rank_follows_the_definition() {
        // 1..=20 shuffled (7 is coprime with 20): the ⌈p·n⌉-th smallest.
        let mut xs: Vec<f64> = (0..20).map(|i| f64::from((i * 7) % 20 + 1)).collect();
        assert_eq!(
            nearest_ranks(&mut xs, [50.0, 95.0, 99.0, 100.0]),
            [10.0, 19.0, 20.0, 20.0]
        );
        assert_eq!(nearest_ranks(&mut [7.0], [50.0, 100.0]), [7.0, 7.0]);
        // Ties and signed zeros: the values of the sorted list, bit for bit.
        let mut ys = vec![3.0, -0.0, 0.0, 3.0, 1.0, 0.0, -0.0, 2.0, 3.0];
        let mut sorted = ys.clone();
        sorted.sort_unstable_by(f64::total_cmp);
        let got = nearest_ranks(&mut ys, [10.0, 30.0, 50.0, 95.0, 100.0]);
        let want = [1, 3, 5, 9, 9].map(|r: usize| sorted[r - 1]);
        assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits));
    }

    fn promised(start: f64, reserved: Option<f64>) -> crate::engine::JobRecord {
        crate::engine::JobRecord {
            start,
            end: start + 1.0,
            placement: crate::machine::Placement::Nodes(1),
            killed: false,
            reserved: reserved.and_then(crate::packed::PackedTime::new),
        }
    }

    #[test]
    fn a_job_is_backfilled_when_it_starts_before_an_older_job() {
        // Job 1 starts at 5 while job 0 waits until 10; job 2 starts with job 0 (a tie is no
        // bypass); job 3 starts at 7, before job 0 and job 2.
        let records = [
            promised(10.0, None),
            promised(5.0, None),
            promised(10.0, None),
            promised(7.0, None),
        ];
        assert_eq!(backfilled(&records), 2);
        assert_eq!(backfilled(&records[..1]), 0);
    }

    #[test]
    fn reservation_error_averages_over_promised_jobs_only() {
        let records = [
            promised(10.0, Some(12.0)),
            promised(5.0, None),
            promised(20.0, Some(14.0)),
        ];
        assert_eq!(reservation_error(&records), 2.0); // (−2 + 6) / 2
        assert_eq!(reservation_error(&records[1..2]), 0.0);
    }
}
