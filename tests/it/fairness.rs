//! Fair start times (`fairness`): hand-worked examples (a backfill that delays the head after an
//! early end, one that delays the second job with exact estimates, two arrivals at one instant),
//! and, over random streams and every scheduler, the definition itself: a job's fair start time
//! is its start in a replay of the log cut after it, a schedule the validator accepts.

use proptest::prelude::*;
use pwa_replay::engine::{
    Engine, EngineError, NoObserver, Outcome, ReplayOptions, replay_with, summarize, validate,
};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::{SCHEDULERS, SchedKind};
use pwa_replay::workload::{Correction, PredictorKind, Request, Workload};

use crate::backfill::{cases, stream, to_workload};
use crate::engine::{flat, starts, workload};
use crate::support::keep_regressions;

fn fair() -> ReplayOptions {
    ReplayOptions {
        fairness: true,
        ..ReplayOptions::default()
    }
}

fn run_fair(w: &Workload, m: MachineSpec, s: SchedKind, a: AllocKind) -> Outcome {
    let out = replay_with(w, m, s, a, fair(), &mut NoObserver).expect("replay");
    validate(w, m, &out).expect("valid schedule");
    out
}

fn nodes(n: u32) -> Request {
    Request::Nodes(n)
}

/// With its estimates: `(submit, runtime, estimate, nodes)`.
fn estimated(jobs: &[(f64, f64, f64, u32)]) -> Workload {
    let mut w = workload(
        &jobs
            .iter()
            .map(|&(s, r, _, n)| (s, r, nodes(n)))
            .collect::<Vec<_>>(),
    );
    for (j, &(_, _, e, _)) in w.jobs.iter_mut().zip(jobs) {
        j.estimate = e;
    }
    w
}

#[test]
fn a_backfill_that_outlives_an_early_end_delays_the_head() {
    // 4 nodes. Job 0 (2 nodes) is estimated at 10 s but ends at 4; job 1 (4 nodes) waits with a
    // reservation at 10; job 2 (2 nodes, 5 s) backfills at 2, ending by 7 ≤ 10. At 4 job 0 ends,
    // but job 2 holds its 2 nodes until 7: job 1 starts at 7. Without job 2 it starts at 4.
    let w = estimated(&[
        (0.0, 4.0, 10.0, 2),
        (1.0, 10.0, 10.0, 4),
        (2.0, 5.0, 5.0, 2),
    ]);
    for s in [SchedKind::Easy, SchedKind::Conservative] {
        let out = run_fair(&w, flat(4), s, AllocKind::Flat);
        assert_eq!(starts(&out), [0.0, 7.0, 2.0], "{s}");
        assert_eq!(out.fair_starts, [0.0, 4.0, 2.0], "{s}");
        let m = summarize(&w, flat(4), AllocKind::Flat, &out);
        assert_eq!((m.unfair_jobs, m.unfair_delay_s), (1, 3.0), "{s}");
        assert_eq!(m.mean_unfair_delay_s, 1.0, "{s}");
    }
}

#[test]
fn with_exact_estimates_easy_lets_a_backfill_delay_the_second_job() {
    // 5 nodes. Job 0 holds 4 until 10; job 1 (3 nodes) is the head, reserved at 10 with 5 − 3 = 2
    // extra nodes; job 2 (2 nodes) does not fit now; job 3 (1 node, 30 s) fits now and uses an
    // extra node: it starts at 3. At 10 job 1 starts and leaves 1 node: job 2 waits until 20.
    // Without job 3, jobs 1 and 2 both start at 10.
    let w = estimated(&[
        (0.0, 10.0, 10.0, 4),
        (1.0, 10.0, 10.0, 3),
        (2.0, 10.0, 10.0, 2),
        (3.0, 30.0, 30.0, 1),
    ]);
    let out = run_fair(&w, flat(5), SchedKind::Easy, AllocKind::Flat);
    assert_eq!(out.records[2].start, 20.0);
    assert_eq!(out.fair_starts, [0.0, 10.0, 10.0, 3.0]);
    // Conservative gives job 2 its reservation at 10 on arrival: job 3 cannot take it.
    let out = run_fair(&w, flat(5), SchedKind::Conservative, AllocKind::Flat);
    assert_eq!(starts(&out), [0.0, 10.0, 10.0, 20.0]);
    assert_eq!(out.fair_starts, starts(&out));
}

#[test]
fn of_two_jobs_submitted_at_one_instant_the_second_listed_arrives_later() {
    // 4 nodes; job 0 holds 2 until 10 (estimated 20). Jobs 1 (4 nodes) and 2 (2 nodes, 15 s)
    // both arrive at 1: job 1 is the head, reserved at 20; job 2 backfills at once, ending by
    // 16 ≤ 20, and holds its nodes when job 0 ends at 10: job 1 starts at 16.
    let w = estimated(&[
        (0.0, 10.0, 20.0, 2),
        (1.0, 10.0, 10.0, 4),
        (1.0, 15.0, 15.0, 2),
    ]);
    let out = run_fair(&w, flat(4), SchedKind::Easy, AllocKind::Flat);
    assert_eq!(starts(&out), [0.0, 16.0, 1.0]);
    // Job 2 is later than job 1 though submitted at the same instant: without it job 1 starts
    // when job 0 ends.
    assert_eq!(out.fair_starts, [0.0, 10.0, 1.0]);
    // Listed the other way round, the short job is the earlier one and nobody is delayed.
    let w = estimated(&[
        (0.0, 10.0, 20.0, 2),
        (1.0, 15.0, 15.0, 2),
        (1.0, 10.0, 10.0, 4),
    ]);
    let out = run_fair(&w, flat(4), SchedKind::Easy, AllocKind::Flat);
    assert_eq!(out.fair_starts, starts(&out));
}

#[test]
fn off_by_default_and_refused_with_predicted_estimates() {
    let w = estimated(&[(0.0, 4.0, 10.0, 2), (1.0, 10.0, 10.0, 4)]);
    let out = replay_with(
        &w,
        flat(4),
        SchedKind::Easy,
        AllocKind::Flat,
        ReplayOptions::default(),
        &mut NoObserver,
    )
    .unwrap();
    assert!(out.fair_starts.is_empty());
    let m = summarize(&w, flat(4), AllocKind::Flat, &out);
    assert_eq!(m.unfair_jobs, 0);
    assert_eq!((m.unfair_delay_s, m.mean_unfair_delay_s), (0.0, 0.0));
    let predicted = Workload {
        predictor: Some(PredictorKind::RecentUserMean(Correction::default())),
        ..w
    };
    let e = replay_with(
        &predicted,
        flat(4),
        SchedKind::Easy,
        AllocKind::Flat,
        fair(),
        &mut NoObserver,
    )
    .unwrap_err();
    assert!(matches!(e, EngineError::NoFairStart(_)), "{e}");
    assert!(e.to_string().contains("predicted estimates"), "{e}");
}

/// Every scheduler of the registry, by its example label.
fn schedulers() -> Vec<SchedKind> {
    SCHEDULERS
        .iter()
        .map(|i| i.example.parse().expect("the examples parse"))
        .collect()
}

/// The start of the last job of `w` cut after job `j`, the policy built for the whole log as the
/// replay's is; the cut replay checked by the validator.
fn start_alone(w: &Workload, j: usize, m: MachineSpec, s: SchedKind, a: AllocKind) -> f64 {
    let cut = Workload {
        jobs: w.jobs[..=j].to_vec(),
        ..w.clone()
    };
    let sched = s
        .for_workload(w)
        .build_with(w, &fair().priority().unwrap())
        .unwrap();
    let out = Engine::new(&cut, sched, a.build(m).unwrap())
        .run(&mut NoObserver)
        .expect("cut replay");
    validate(&cut, m, &out).expect("the cut replay is valid");
    out.records[j].start
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(24)))]

    #[test]
    fn a_fair_start_time_is_the_start_in_the_log_cut_after_the_job(
        raw in stream(), exact in any::<bool>()
    ) {
        for (as_mesh, m, a) in cases().into_iter().filter(|c| c.2 == AllocKind::Flat || c.2 == AllocKind::FirstFit) {
            let w = to_workload(&raw, as_mesh, exact);
            let mut ran = 0;
            for s in schedulers() {
                let Ok(out) = replay_with(&w, m, s, a, fair(), &mut NoObserver) else {
                    continue; // a policy that does not run on this machine
                };
                ran += 1;
                prop_assert_eq!(validate(&w, m, &out), Ok(()));
                for j in 0..w.jobs.len() {
                    prop_assert_eq!(
                        out.fair_starts[j].to_bits(),
                        start_alone(&w, j, m, s, a).to_bits(),
                        "{} {} job {}", s, a, j
                    );
                }
            }
            prop_assert!(ran >= 12, "{} schedulers ran on {}", ran, m);
        }
    }

    #[test]
    fn strict_fcfs_and_conservative_with_exact_estimates_start_every_job_at_its_fair_start(
        raw in stream()
    ) {
        for (as_mesh, m, a) in cases() {
            let w = to_workload(&raw, as_mesh, true);
            for s in [SchedKind::Fcfs, SchedKind::Conservative] {
                let out = run_fair(&w, m, s, a);
                prop_assert_eq!(out.fair_starts.clone(), starts(&out), "{} {}", s, a);
            }
        }
    }
}
