//! Scheduling semantics (`sched::semantics`): a hand-worked stream per choice where it moves a
//! start, and every profile's schedules through the validator.

use proptest::prelude::*;
use pwa_replay::engine::{
    NoObserver, Outcome, Profile, ReplayOptions, Semantics, replay_with, validate,
};
use pwa_replay::machine::AllocKind;
use pwa_replay::packed::{PackedTime, UserId};
use pwa_replay::sched::SchedKind;
use pwa_replay::sched::semantics::{
    ArrivalPass, BackfillLength, Order, Passes, Prediction, Release,
};
use pwa_replay::workload::{Correction, EstimateModel, Workload};

use crate::backfill::{cases, to_workload};
use crate::engine::{flat, starts};
use crate::predict::stream;

fn run(w: &Workload, nodes: u32, s: SchedKind, semantics: Semantics) -> Outcome {
    let opts = ReplayOptions {
        semantics,
        ..ReplayOptions::default()
    };
    let out = replay_with(w, flat(nodes), s, AllocKind::Flat, opts, &mut NoObserver).unwrap();
    assert_eq!(validate(w, flat(nodes), &out), Ok(()));
    out
}

fn event() -> Semantics {
    Semantics {
        passes: Passes::Event,
        ..Semantics::default()
    }
}

/// Four nodes. R (3 nodes, 100 s) runs from 0; the head H (4 nodes) waits from 1 with its
/// reservation at 100. At 5 L (1 node, 80 s) and then S (1 node, 50 s) arrive; one node is free.
/// One pass for the instant (`easy:sjbf`) sees both and backfills the shorter, S. A pass after
/// each arrival backfills L (ends at 85 ≤ 100) before S arrives, and S finds no node.
#[test]
fn event_passes_backfill_the_first_arrival_before_the_second_arrives() {
    let w = stream(
        &[
            (0.0, 100.0, 3, 100.0, 1),
            (1.0, 10.0, 4, 10.0, 1),
            (5.0, 80.0, 1, 80.0, 1),
            (5.0, 50.0, 1, 50.0, 1),
        ],
        EstimateModel::User,
    );
    let instant = run(&w, 4, SchedKind::EasySjbf, Semantics::default());
    assert_eq!(starts(&instant), vec![0.0, 100.0, 110.0, 5.0]);
    let per_event = run(&w, 4, SchedKind::EasySjbf, event());
    assert_eq!(starts(&per_event), vec![0.0, 100.0, 5.0, 110.0]);
}

/// Four nodes, event passes, `easy:sjbf`. A (2 nodes, 10 s, asking 20 s) and B (2 nodes, 100 s)
/// run from 0; the head H (4 nodes) waits from 1 with its reservation at 100; W (2 nodes, 80 s)
/// waits from 2. At 10 A ends early and X (2 nodes, 30 s) arrives. Departures first: the pass after
/// A's end sees only W, which backfills (ends 90 ≤ 100); X waits for the head (100 + 10). Arrivals first: X finds no node,
/// then the pass after A's end sees W and X and backfills the shorter, X.
#[test]
fn arrivals_first_lets_the_newcomer_compete_for_the_freed_nodes() {
    let w = stream(
        &[
            (0.0, 10.0, 2, 20.0, 1),
            (0.0, 100.0, 2, 100.0, 1),
            (1.0, 10.0, 4, 10.0, 1),
            (2.0, 80.0, 2, 80.0, 1),
            (10.0, 30.0, 2, 30.0, 1),
        ],
        EstimateModel::User,
    );
    let departures_first = run(&w, 4, SchedKind::EasySjbf, event());
    assert_eq!(departures_first.records[3].start, 10.0);
    assert_eq!(
        departures_first.records[4].start, 110.0,
        "X waits for the head"
    );
    let arrivals_first = Semantics {
        order: Order::ArrivalsFirst,
        ..event()
    };
    let out = run(&w, 4, SchedKind::EasySjbf, arrivals_first);
    assert_eq!(out.records[4].start, 10.0);
    assert_eq!(
        out.records[3].start, 110.0,
        "W waits for the head (100 + 10)"
    );
}

/// Four nodes, event passes, arrivals first, `easy:sjbf`. A (2 nodes, 10 s, asking 10 s) and B
/// (2 nodes, 100 s) run from 0; the head H (4 nodes) waits with its reservation at 100. At 10 A
/// ends exactly at its estimate while X1 (2 nodes, 90 s) and X2 (2 nodes, 30 s) arrive. Booked
/// until its estimate, A's nodes are free from the instant's first event: X1's own pass backfills
/// it (ends at 100). Freed at its end, A's nodes come after both arrivals, and that pass backfills
/// the shorter, X2.
#[test]
fn a_job_booked_until_its_estimate_is_free_before_the_instants_arrivals() {
    let w = stream(
        &[
            (0.0, 10.0, 2, 10.0, 1),
            (0.0, 100.0, 2, 100.0, 1),
            (1.0, 10.0, 4, 10.0, 1),
            (10.0, 90.0, 2, 90.0, 1),
            (10.0, 30.0, 2, 30.0, 1),
        ],
        EstimateModel::User,
    );
    let at_end = Semantics {
        order: Order::ArrivalsFirst,
        ..event()
    };
    let out = run(&w, 4, SchedKind::EasySjbf, at_end);
    assert_eq!((out.records[3].start, out.records[4].start), (110.0, 10.0));
    let booked = Semantics {
        release: Release::Booked,
        ..at_end
    };
    let out = run(&w, 4, SchedKind::EasySjbf, booked);
    assert_eq!((out.records[3].start, out.records[4].start), (10.0, 110.0));
    assert_eq!(out.records[0].end, 10.0);
}

/// Four nodes, `easy`. R (2 nodes, 100 s) runs; the head H (4 nodes) waits with its reservation
/// at 100. C (2 nodes) asks 200 s and runs 50 s: by its estimate it would end at 201, past the
/// reservation, with no node to spare there, and waits; by its run time (CQSim's test) it ends at
/// 51 and backfills at 1.
#[test]
fn cqsims_backfill_test_uses_the_run_time() {
    let w = stream(
        &[
            (0.0, 100.0, 2, 100.0, 1),
            (0.5, 10.0, 4, 10.0, 1),
            (1.0, 50.0, 2, 200.0, 1),
        ],
        EstimateModel::User,
    );
    assert_eq!(
        run(&w, 4, SchedKind::Easy, Semantics::default()).records[2].start,
        110.0
    );
    let run_time = Semantics {
        backfill_length: BackfillLength::RunTime,
        ..Semantics::default()
    };
    assert_eq!(run(&w, 4, SchedKind::Easy, run_time).records[2].start, 1.0);
}

/// Three nodes, `easy` with predictions. L (user 2, 1 node, 300 s) and user 1's J1, J2 (1 node,
/// 100 s each, asking 1000 s) run from 0; the head H (user 2, 3 nodes) waits from 10 with its
/// reservation at 300; J3 (user 1, 1 node, 50 s, asking 1000 s) arrives at 20, before any of
/// user 1's jobs completed: predicted 1000 s. At 100 J1 and J2 complete (mean 100 s). Predicted
/// once, J3 would end at 1100, past the reservation: it waits for the head. Predicted again at
/// every pass, it ends at 200 ≤ 300 and backfills at 100.
#[test]
fn predicting_at_every_pass_uses_the_history_that_completed_while_a_job_waited() {
    let w = stream(
        &[
            (0.0, 300.0, 1, 300.0, 2),
            (0.0, 100.0, 1, 1000.0, 1),
            (0.0, 100.0, 1, 1000.0, 1),
            (10.0, 10.0, 3, 10.0, 2),
            (20.0, 50.0, 1, 1000.0, 1),
        ],
        EstimateModel::Predict(Correction::Steps),
    );
    let once = run(&w, 3, SchedKind::Easy, Semantics::default());
    assert_eq!(once.records[4].start, 310.0);
    let every = Semantics {
        prediction: Prediction::EveryPass,
        ..Semantics::default()
    };
    let out = run(&w, 3, SchedKind::Easy, every);
    assert_eq!(out.records[4].start, 100.0);
    assert_eq!(
        out.predictions[4], 1000.0,
        "the submission's prediction is kept"
    );
}

/// Four nodes, `easy` with predictions, event passes. User 1's P1, P2 (10 s) complete at 10, so
/// R (user 1, 2 nodes, 200 s, asking 1000 s) is predicted 10 s at 20. The head H (4 nodes) waits
/// from 21 with its reservation at 30; C (2 nodes, 50 s) arrives at 22 and would end past it. At
/// 30 R outlives its prediction, corrected to 70 s: the reservation moves to 90, with no pass. At
/// 31 N (4 nodes) arrives and does not fit. With a pass after every arrival C now backfills (ends
/// at 81 ≤ 90); pyss's `EasyBackfillScheduler` passes only for a newcomer that fits, and C waits.
#[test]
fn an_arrival_that_does_not_fit_gets_no_pass_under_if_fits() {
    let w = stream(
        &[
            (0.0, 10.0, 1, 1000.0, 1),
            (0.0, 10.0, 1, 1000.0, 1),
            (20.0, 200.0, 2, 1000.0, 1),
            (21.0, 10.0, 4, 1000.0, 2),
            (22.0, 50.0, 2, 50.0, 2),
            (31.0, 10.0, 4, 100.0, 2),
        ],
        EstimateModel::Predict(Correction::Steps),
    );
    let always = event();
    assert_eq!(run(&w, 4, SchedKind::Easy, always).records[4].start, 31.0);
    let if_fits = Semantics {
        arrival_pass: ArrivalPass::IfFits,
        ..always
    };
    let out = run(&w, 4, SchedKind::Easy, if_fits);
    assert!(out.records[4].start > 31.0, "{:?}", starts(&out));
}

/// The default is today's behaviour: the textbook profile's schedules are those of the default
/// options (the golden tables check the bytes).
#[test]
fn the_textbook_profile_is_the_default() {
    assert_eq!(Profile::Textbook.semantics(), Semantics::default());
    assert_eq!(ReplayOptions::default().semantics, Semantics::default());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Every profile, on every allocator case and policy family, gives valid deterministic
    /// schedules (kills on and off, exact and user estimates, predictions).
    #[test]
    fn every_profiles_schedules_pass_the_validator(
        raw in crate::backfill::stream(), exact in any::<bool>(), kill in any::<bool>(), predict in any::<bool>()
    ) {
        for profile in Profile::ALL {
            let opts = ReplayOptions {
                kill_at_estimate: kill,
                semantics: profile.semantics(),
                ..ReplayOptions::default()
            };
            for (as_mesh, m, a) in cases() {
                let mut w = to_workload(&raw, as_mesh, exact);
                if predict {
                    for (i, j) in w.jobs.iter_mut().enumerate() {
                        j.requested = PackedTime::new(j.estimate);
                        j.user = UserId::new(i as u32 % 3);
                    }
                    w.set_estimates(EstimateModel::Predict(Correction::Steps));
                }
                for s in [SchedKind::Easy, SchedKind::EasySjbf, SchedKind::Conservative,
                          SchedKind::Fcfs, SchedKind::OutOfOrder] {
                    let x = replay_with(&w, m, s, a, opts.clone(), &mut NoObserver).unwrap();
                    prop_assert_eq!(validate(&w, m, &x), Ok(()), "{} {} {} {}", profile, s, a, m);
                    let y = replay_with(&w, m, s, a, opts.clone(), &mut NoObserver).unwrap();
                    prop_assert_eq!(&x.records, &y.records);
                }
            }
        }
    }
}
