//! Tori and k-D meshes end to end: box requests, semitorus allocation (EP/NEP) and k-D first fit
//! under every scheduler, each run through the independent validator; same-instant semantics; jobs
//! no semitorus can hold.

use proptest::prelude::*;
use pwa_replay::engine::{EngineError, NoObserver, replay, summarize, validate};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::SchedKind;
use pwa_replay::swf::Record;
use pwa_replay::workload::{Conversion, Request, Workload};

use crate::engine::{run_valid, workload};
use crate::support::keep_regressions;

const TORUS_KINDS: [AllocKind; 6] = [
    AllocKind::Ep,
    AllocKind::Nep,
    AllocKind::EpPair,
    AllocKind::NepPair,
    AllocKind::FirstFit,
    AllocKind::Flat,
];

/// Every scheduler label this build has (backfilling ones when they exist).
fn schedulers() -> Vec<SchedKind> {
    [
        "fcfs",
        "oo",
        "oocb:4",
        "window:10",
        "delay",
        "bq:100",
        "easy",
        "conservative",
    ]
    .iter()
    .filter_map(|s| s.parse().ok())
    .collect()
}

/// A deterministic trace of `n` jobs: sizes 1..=max, run times and gaps from a small LCG.
fn records(n: u64, max: u64) -> Vec<Record> {
    let mut x: u64 = 0x2545F4914F6CDD1D;
    let mut next = move |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    let mut t = 0;
    (0..n)
        .map(|i| {
            t += next(40) as i64;
            Record {
                job_id: i + 1,
                submit: Some(t),
                run_time: Some(1 + next(500) as i64),
                allocated_procs: Some(1 + next(max) as i64),
                ..Record::default()
            }
        })
        .collect()
}

fn converted(machine: MachineSpec, n: u64, max: u64) -> Workload {
    Conversion::for_machine(machine)
        .apply(&records(n, max))
        .expect("sizes fit the machine")
        .workload
}

#[test]
fn every_scheduler_with_every_torus_allocator_is_valid() {
    for label in ["torus:2x2x2x6x8", "torus:4x8x12", "mesh:4x4x6"] {
        let m: MachineSpec = label.parse().unwrap();
        let mut w = converted(m, 400, 64);
        assert!(
            matches!(w.jobs[0].request, Request::Block(_)),
            "box requests by default"
        );
        assert_eq!(w.retain_fitting(m, &TORUS_KINDS), Ok(0));
        for s in schedulers() {
            for a in TORUS_KINDS {
                let out = run_valid(&w, m, s, a);
                let metrics = summarize(&w, m, a, &out);
                assert!(
                    metrics.utilization > 0.0 && metrics.utilization <= 1.0,
                    "{label} {s} {a}"
                );
                assert!((0.0..=1.0).contains(&metrics.external_fragmentation));
                let semitorus = !matches!(a, AllocKind::FirstFit | AllocKind::Flat);
                assert_eq!(out.tori.len(), if semitorus { w.jobs.len() } else { 0 });
                assert_eq!(metrics.mean_torus_dims > 0.0, semitorus, "{label} {s} {a}");
                if semitorus {
                    assert!(metrics.internal_fragmentation >= 0.0);
                    for (r, t) in out.records.iter().zip(&out.tori) {
                        assert_eq!(t.volume(), u64::from(r.placement.nodes()));
                    }
                }
            }
        }
    }
}

#[test]
fn a_release_merges_before_an_arrival_at_the_same_instant() {
    // torus:4x4. Job 0 takes 2 nodes, job 1 takes 8 nodes, both end at 10; job 2 asks for all 16
    // at 10: departures come first and merge the pieces back, so it starts at 10 under EP and NEP.
    let m: MachineSpec = "torus:4x4".parse().unwrap();
    let w = workload(&[
        (0.0, 10.0, Request::Nodes(2)),
        (0.0, 10.0, Request::Nodes(8)),
        (10.0, 5.0, Request::Nodes(16)),
    ]);
    for a in [AllocKind::Ep, AllocKind::Nep] {
        let out = run_valid(&w, m, SchedKind::Fcfs, a);
        assert_eq!(out.records[2].start, 10.0, "{a}");
        assert_eq!(out.tori[2].to_string(), "4x4", "{a}: the whole torus");
        assert_eq!(out.records[2].placement.to_string(), "@0+4x4");
    }
    // A 3-node request gets 4 nodes: 1 processor of internal fragmentation.
    let w = workload(&[(0.0, 1.0, Request::Nodes(3))]);
    let out = run_valid(&w, m, SchedKind::Fcfs, AllocKind::Nep);
    assert_eq!(
        summarize(&w, m, AllocKind::Nep, &out).internal_fragmentation,
        1.0
    );
}

#[test]
fn a_job_larger_than_the_largest_semitorus_is_an_error_before_the_run() {
    let m: MachineSpec = "torus:2x2x2x6x8".parse().unwrap();
    let w = workload(&[(0.0, 1.0, Request::Nodes(300))]);
    let err = replay(&w, m, SchedKind::Fcfs, AllocKind::Ep, &mut NoObserver).unwrap_err();
    assert!(matches!(err, EngineError::NeverFits { .. }), "{err}");
    assert!(replay(&w, m, SchedKind::Fcfs, AllocKind::Flat, &mut NoObserver).is_ok());
}

/// `flat:pow2` grants the semitorus allocators' rounded counts on a fully connected machine: a
/// 3-node request holds 4 nodes (1 of internal fragmentation), and its schedule is valid under every
/// scheduler; the validator refuses any other count.
#[test]
fn the_rounding_matched_flat_machine_grants_powers_of_two() {
    let m: MachineSpec = "torus:4x4".parse().unwrap();
    let w = workload(&[
        (0.0, 4.0, Request::Nodes(3)),
        (0.0, 4.0, Request::Nodes(9)),
        (1.0, 1.0, Request::Nodes(4)),
    ]);
    let out = run_valid(&w, m, SchedKind::Fcfs, AllocKind::FlatPow2);
    let held: Vec<u32> = out.records.iter().map(|r| r.placement.nodes()).collect();
    assert_eq!(held, [4, 16, 4]);
    // 4 + 16 > 16: the 9-node job waits for the 3-node one, then the 4-node one for it.
    let starts: Vec<f64> = out.records.iter().map(|r| r.start).collect();
    assert_eq!(starts, [0.0, 4.0, 8.0]);
    let metrics = summarize(&w, m, AllocKind::FlatPow2, &out);
    assert!((metrics.internal_fragmentation - 8.0 / 3.0).abs() < 1e-12);
    for s in schedulers() {
        run_valid(&converted(m, 200, 16), m, s, AllocKind::FlatPow2);
    }
    let mut bad = out.clone();
    bad.records[0].placement = pwa_replay::machine::Placement::Nodes(5);
    assert!(
        validate(&w, m, &bad).is_err(),
        "5 nodes for a 3-node request"
    );
}

#[test]
fn the_validator_refuses_a_box_of_the_wrong_size() {
    let m: MachineSpec = "torus:4x4".parse().unwrap();
    let w = workload(&[(0.0, 1.0, Request::Nodes(3))]);
    let mut out = run_valid(&w, m, SchedKind::Fcfs, AllocKind::Ep);
    let pwa_replay::machine::Placement::Block(mut b) = out.records[0].placement else {
        panic!("a box");
    };
    b.extent = pwa_replay::machine::Dims::new(&[1, 8]).unwrap();
    out.records[0].placement = pwa_replay::machine::Placement::Block(b);
    assert!(
        validate(&w, m, &out).is_err(),
        "8 nodes for a 3-node request"
    );
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(24)))]
    /// Random traces on random tori: every EP/NEP/ff schedule is valid.
    #[test]
    fn random_traces_replay_validly(
        logs in proptest::collection::vec(0u32..3, 2..=4),
        odd in prop_oneof![Just(1u32), Just(3), Just(5)],
        n in 1u64..120,
        oo in any::<bool>(),
    ) {
        let mut dims: Vec<u32> = logs.iter().map(|&l| 2 << l).collect();
        let k = dims.len() - 1;
        dims[k] *= odd;
        let label = format!("torus:{}", dims.iter().map(u32::to_string).collect::<Vec<_>>().join("x"));
        let m: MachineSpec = label.parse().unwrap();
        let mut w = converted(m, n, u64::from(m.nodes()));
        w.retain_fitting(m, &TORUS_KINDS).unwrap();
        let s = if oo { SchedKind::OutOfOrder } else { SchedKind::Fcfs };
        for a in TORUS_KINDS {
            let out = replay(&w, m, s, a, &mut NoObserver).unwrap();
            prop_assert!(validate(&w, m, &out).is_ok(), "{} {} {}", label, s, a);
        }
    }
}
