//! Run-time predictions (`--estimate predict`, Tsafrir, Etsion & Feitelson 2007) and EASY's
//! shortest-job-backfilled-first order (`easy:sjbf`): the hand-worked stream job by job
//! (two jobs of a user, a third predicted from them, an underprediction corrected and the head's
//! reservation moved by it), kills at the user estimate, and properties over random streams (also
//! of the modeled user estimates, `--estimate tsafrir`).

use proptest::prelude::*;
use pwa_replay::engine::{ReplayOptions, replay_with, summarize, validate};
use pwa_replay::machine::AllocKind;
use pwa_replay::packed::{PackedTime, UserId};
use pwa_replay::sched::SchedKind;
use pwa_replay::workload::Correction;
use pwa_replay::workload::{EstimateModel, Request, Workload};

use crate::engine::{flat, run_valid, starts, workload};
use crate::support::keep_regressions;

/// `(submit, run time, nodes, requested time, user)` per job, estimates set by `model`.
pub(crate) fn stream(jobs: &[(f64, f64, u32, f64, u32)], model: EstimateModel) -> Workload {
    let spec: Vec<_> = jobs
        .iter()
        .map(|&(s, r, n, _, _)| (s, r, Request::Nodes(n)))
        .collect();
    let mut w = workload(&spec);
    for (j, &(_, _, _, req, user)) in w.jobs.iter_mut().zip(jobs) {
        j.requested = PackedTime::new(req);
        j.user = UserId::new(user);
    }
    w.set_estimates(model);
    w
}

/// Two nodes. User 1's jobs 0 and 1 (100 s and 300 s, both asking 1000 s) run one after the other;
/// job 2 of user 1 (500 s on 1 node) is predicted (100 + 300) / 2 = 200 s. Job 3 (user 2, both
/// nodes) becomes the head with a reservation at 500 + 200 = 700. Job 4 (user 3, 50 s on 1 node,
/// submitted at 690) would end at 740, past the shadow time, with no extra node: it waits. At 700
/// job 2 outlives its prediction, corrected to 200 s + 1 min: the head's reservation moves to 760
/// and job 4 now ends before it, so it backfills at 700. At 760 the prediction becomes 200 s +
/// 5 min, ending at 1000, when job 2 does end; the head starts then.
fn hand_worked(model: EstimateModel) -> Workload {
    stream(
        &[
            (0.0, 100.0, 2, 1000.0, 1),
            (0.0, 300.0, 2, 1000.0, 1),
            (500.0, 500.0, 1, 2000.0, 1),
            (510.0, 100.0, 2, 1000.0, 2),
            (690.0, 50.0, 1, 50.0, 3),
        ],
        model,
    )
}

#[test]
fn predict_job_by_job_on_the_hand_worked_stream() {
    let w = hand_worked(EstimateModel::Predict(Correction::Steps));
    let out = run_valid(&w, flat(2), SchedKind::Easy, AllocKind::Flat);
    assert_eq!(
        out.predictions,
        vec![1000.0, 1000.0, 200.0, 1000.0, 50.0],
        "no history: the user estimate; job 2: the mean of jobs 0 and 1"
    );
    assert_eq!(starts(&out), vec![0.0, 100.0, 500.0, 1000.0, 700.0]);
    assert_eq!(
        out.records[3].reserved.map(PackedTime::get),
        Some(700.0),
        "first promise: 500 + 200"
    );
    let m = summarize(&w, flat(2), AllocKind::Flat, &out);
    // |1000−100|/100, |1000−300|/300, |200−500|/500, |1000−100|/100, 0
    let error = (9.0 + 700.0 / 300.0 + 0.6 + 9.0 + 0.0) / 5.0;
    assert!((m.mean_estimate_error - error).abs() < 1e-12, "{m:?}");
    assert_eq!(m.underestimated_share, 0.2, "job 2 only");
    // Corrected to the user estimate at once, job 2 is planned to 2500 from 700 on: the same starts.
    let w = hand_worked(EstimateModel::Predict(Correction::Estimate));
    let out = run_valid(&w, flat(2), SchedKind::Easy, AllocKind::Flat);
    assert_eq!(starts(&out), vec![0.0, 100.0, 500.0, 1000.0, 700.0]);
}

#[test]
fn with_user_or_exact_estimates_job_4_backfills_at_once() {
    // Job 2's user estimate (2000 s) puts the head's reservation at 2500: job 4 backfills at once.
    let w = hand_worked(EstimateModel::User);
    let out = run_valid(&w, flat(2), SchedKind::Easy, AllocKind::Flat);
    assert!(out.predictions.is_empty());
    assert_eq!(out.records[4].start, 690.0);
    assert_eq!(out.records[3].reserved.map(PackedTime::get), Some(2500.0));
    // Exact estimates: the head is promised 1000 and job 4 ends (740) before it.
    let exact = run_valid(
        &hand_worked(EstimateModel::Exact),
        flat(2),
        SchedKind::Easy,
        AllocKind::Flat,
    );
    assert_eq!(exact.records[4].start, 690.0);
}

#[test]
fn kills_stay_at_the_user_estimate_under_predictions() {
    // User 1 ran two 10 s jobs; job 2 is predicted 10 s, runs 5000 s and asked for 3000 s: it is
    // extended step by step and killed at 3000 s, not at its prediction.
    let w = stream(
        &[
            (0.0, 10.0, 1, 100.0, 1),
            (0.0, 10.0, 1, 100.0, 1),
            (20.0, 5000.0, 1, 3000.0, 1),
        ],
        EstimateModel::Predict(Correction::Steps),
    );
    let options = ReplayOptions {
        kill_at_estimate: true,
        ..ReplayOptions::default()
    };
    let out = replay_with(
        &w,
        flat(2),
        SchedKind::Easy,
        AllocKind::Flat,
        options,
        &mut pwa_replay::engine::NoObserver,
    )
    .unwrap();
    validate(&w, flat(2), &out).unwrap();
    assert_eq!(out.predictions[2], 10.0);
    assert!(out.records[2].killed);
    assert_eq!(out.records[2].end, 3020.0);
}

#[test]
fn sjbf_backfills_the_shortest_candidate_first() {
    // Four nodes. Job 0 holds 3 until 100; job 1 (4 nodes) is the head, reserved at 100. Jobs 2
    // (90 s) and 3 (50 s) arrive together, each on the single free node and ending before 100:
    // EASY takes job 2 (arrival order), EASY with SJBF job 3 (shorter).
    let w = workload(&[
        (0.0, 100.0, Request::Nodes(3)),
        (1.0, 10.0, Request::Nodes(4)),
        (2.0, 90.0, Request::Nodes(1)),
        (2.0, 50.0, Request::Nodes(1)),
    ]);
    let easy = run_valid(&w, flat(4), SchedKind::Easy, AllocKind::Flat);
    assert_eq!((easy.records[2].start, easy.records[3].start), (2.0, 110.0));
    let sjbf = run_valid(&w, flat(4), SchedKind::EasySjbf, AllocKind::Flat);
    assert_eq!((sjbf.records[2].start, sjbf.records[3].start), (110.0, 2.0));
    assert_eq!(
        sjbf.records[1].start, 100.0,
        "the head keeps its reservation"
    );
}

#[test]
fn labels_read_and_print_back() {
    assert_eq!("easy:sjbf".parse::<SchedKind>(), Ok(SchedKind::EasySjbf));
    assert_eq!(SchedKind::EasySjbf.to_string(), "easy:sjbf");
    assert_eq!(
        "predict".parse::<EstimateModel>(),
        Ok(EstimateModel::Predict(Correction::Steps))
    );
    assert_eq!(
        EstimateModel::Predict(Correction::Steps).to_string(),
        "predict"
    );
    assert_eq!(
        "predict:estimate".parse::<EstimateModel>(),
        Ok(EstimateModel::Predict(Correction::Estimate))
    );
    assert_eq!(
        EstimateModel::Predict(Correction::Estimate).to_string(),
        "predict:estimate"
    );
    assert_eq!(
        "tsafrir".parse::<EstimateModel>(),
        Ok(EstimateModel::Tsafrir)
    );
    assert_eq!(EstimateModel::Tsafrir.to_string(), "tsafrir");
    let e = "easy:sjf".parse::<SchedKind>().unwrap_err().to_string();
    assert!(e.contains("easy:sjf") && e.contains("easy:sjbf"), "{e}");
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(64)))]

    /// Every schedule under predictions (either correction) passes the validator, whatever the
    /// scheduler; predictions never exceed the user estimate; a replay is deterministic.
    #[test]
    fn predictions_give_valid_schedules(
        jobs in prop::collection::vec(
            (0u32..50, 0u32..200, 1u32..=6, 1u32..300, 0u32..4),
            1..40,
        ),
        kill in any::<bool>(),
    ) {
        let mut spec: Vec<_> = jobs
            .iter()
            .map(|&(s, r, n, q, u)| (f64::from(s), f64::from(r), n, f64::from(q), u))
            .collect();
        spec.sort_by(|a, b| a.0.total_cmp(&b.0));
        let correction = if kill { Correction::Steps } else { Correction::Estimate };
        let w = stream(&spec, EstimateModel::Predict(correction));
        let options = ReplayOptions {
            kill_at_estimate: kill,
            ..ReplayOptions::default()
        };
        for sched in [SchedKind::Easy, SchedKind::EasySjbf, SchedKind::Conservative, SchedKind::Fcfs] {
            let run = || replay_with(&w, flat(6), sched, AllocKind::Flat, options.clone(),
                &mut pwa_replay::engine::NoObserver).unwrap();
            let out = run();
            validate(&w, flat(6), &out).unwrap();
            for (p, j) in out.predictions.iter().zip(&w.jobs) {
                prop_assert!(*p <= j.estimate);
            }
            prop_assert_eq!(out.records, run().records);
        }
    }
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(32)))]

    /// Modeled user estimates (`tsafrir`) are never below the run time when the maximum covers every
    /// job (these streams ask for twice their run times), so nothing is killed; every schedule under
    /// them passes the validator.
    #[test]
    fn modeled_estimates_give_valid_schedules(
        jobs in prop::collection::vec((0u32..5_000, 0u32..20_000, 1u32..=6), 1..60),
    ) {
        let mut spec: Vec<_> = jobs
            .iter()
            .map(|&(s, r, n)| (f64::from(s), f64::from(r), n, f64::from(r) * 2.0, 0))
            .collect();
        spec.sort_by(|a, b| a.0.total_cmp(&b.0));
        let w = stream(&spec, EstimateModel::Tsafrir);
        prop_assert!(w.jobs.iter().all(|j| j.estimate >= j.runtime && j.estimate > 0.0));
        let options = ReplayOptions {
            kill_at_estimate: true,
            ..ReplayOptions::default()
        };
        for sched in [SchedKind::Easy, SchedKind::EasySjbf, SchedKind::Conservative] {
            let out = replay_with(&w, flat(6), sched, AllocKind::Flat, options.clone(),
                &mut pwa_replay::engine::NoObserver).unwrap();
            validate(&w, flat(6), &out).unwrap();
            prop_assert!(out.records.iter().all(|r| !r.killed));
        }
    }
}
