//! The hypercube schedulers of lazy-scheduling-hypercube.md — lazy (§3.2), scan (§2.3) and static
//! partitioning (§3.1) — on hand-worked 4-cube examples, and every scheduler × hypercube allocator on
//! random job streams through the validator.

use proptest::prelude::*;
use pwa_replay::engine::{NoObserver, Outcome, replay, validate};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::SchedKind;
use pwa_replay::workload::{Request, Workload};

use crate::engine::{run_valid, starts, workload};
use crate::support::keep_regressions;

const CUBE4: MachineSpec = MachineSpec::Hypercube { dim: 4 };

fn cubes(jobs: &[(f64, f64, u8)]) -> Workload {
    let triples: Vec<_> = jobs
        .iter()
        .map(|&(s, r, k)| (s, r, Request::Subcube(k)))
        .collect();
    workload(&triples)
}

fn placements(out: &Outcome) -> Vec<String> {
    out.records
        .iter()
        .map(|r| r.placement.to_string())
        .collect()
}

/// Lazy_Request / Lazy_Release on a 4-cube with buddy: a second 1-cube job waits for the busy 1-cube
/// (|Q_1| = 1 ≤ N_1 = 1) although 14 nodes are free; a third makes |Q_1| = 2 > N_1, so the head gets
/// a new 1-cube (N_1 = 2); the first release hands its cube straight to the new head.
#[test]
fn lazy_waits_for_a_busy_cube_of_its_size() {
    let w = cubes(&[
        (0.0, 10.0, 1),
        (1.0, 10.0, 1),
        (2.0, 5.0, 1),
        (3.0, 20.0, 2),
    ]);
    let lazy = run_valid(&w, CUBE4, SchedKind::LazyFixed(100.0), AllocKind::Buddy);
    assert_eq!(starts(&lazy), [0.0, 2.0, 10.0, 3.0]);
    assert_eq!(placements(&lazy), ["000*", "001*", "000*", "01**"]);
    let fcfs = run_valid(&w, CUBE4, SchedKind::Fcfs, AllocKind::Buddy);
    assert_eq!(starts(&fcfs), [0.0, 1.0, 2.0, 3.0], "FCFS is greedy");
}

/// stop_alloc (Lazy_Release steps 1 and 3) with a fixed threshold of 1: the oldest waiting job takes
/// the freed nodes instead of the head of the releasing queue, and while it cannot be placed nothing
/// else starts. With a threshold of 100 the same stream follows steps 2 and 4 only.
#[test]
fn lazy_stop_alloc_serves_the_oldest_job_first() {
    let w = cubes(&[
        (0.0, 10.0, 3),
        (0.0, 3.0, 2),
        (0.0, 3.0, 1),
        (0.0, 3.0, 1),
        (1.0, 5.0, 3),
        (2.0, 1.0, 2),
    ]);
    let strict = run_valid(&w, CUBE4, SchedKind::LazyFixed(1.0), AllocKind::Buddy);
    assert_eq!(starts(&strict), [0.0, 0.0, 0.0, 3.0, 6.0, 10.0]);
    assert_eq!(strict.records[3].placement.to_string(), "100*");
    let lax = run_valid(&w, CUBE4, SchedKind::LazyFixed(100.0), AllocKind::Buddy);
    assert_eq!(starts(&lax), [0.0, 0.0, 0.0, 3.0, 10.0, 3.0]);
    assert_eq!(
        lax.records[5].placement.to_string(),
        "10**",
        "j1's cube, handed on"
    );
    assert_eq!(
        lax.records[4].placement.to_string(),
        "0***",
        "j0's cube, handed on"
    );
}

/// The dynamic threshold d_t²·λ: zero while every job started at once, so the first job that waits
/// sets stop_alloc at the next release and FCFS order is restored for it.
#[test]
fn lazy_dynamic_threshold_starts_at_zero_delay() {
    let w = cubes(&[(0.0, 10.0, 1), (1.0, 10.0, 1), (2.0, 1.0, 2), (3.0, 5.0, 1)]);
    let out = run_valid(&w, CUBE4, SchedKind::Lazy, AllocKind::Buddy);
    // j1 waits (|Q_1| = 1 ≤ N_1 = 1). At t = 3, j2 (k = 2) releases: j1 has waited 2 > d_t²·λ =
    // (0)²·… so stop_alloc names Q_1 and j1 gets a new 1-cube at once.
    assert_eq!(starts(&out)[1], 3.0);
    assert!(starts(&out)[3] >= 3.0);
}

/// `lazy:deadline` enforces d_t²·λ the moment the oldest wait reaches it, where `lazy` waits for the
/// next release. j0 takes the whole 4-cube; j1 (a 0-cube) waits for it and starts at 50 (delay 49):
/// d_t = 49/2, λ = 2 arrivals / 50, threshold 24.5²·0.04 = 24.01. j2 (a 0-cube) finds j1's 0-cube
/// busy (|Q_0| = 1 ≤ N_0 = 1): lazy hands it j1's cube at 250; `lazy:deadline` gives it priority at
/// 51 + 24.01 and a new 0-cube.
#[test]
fn lazy_deadline_enforces_the_threshold_when_a_wait_reaches_it() {
    let w = cubes(&[(0.0, 50.0, 4), (1.0, 200.0, 0), (51.0, 10.0, 0)]);
    let lazy = run_valid(&w, CUBE4, SchedKind::Lazy, AllocKind::Buddy);
    assert_eq!(starts(&lazy), [0.0, 50.0, 250.0]);
    let deadline: SchedKind = "lazy:deadline".parse().unwrap();
    assert_eq!(deadline.to_string(), "lazy:deadline");
    let out = run_valid(&w, CUBE4, deadline, AllocKind::Buddy);
    let limit = 24.5f64 * 24.5 * (2.0 / 50.0);
    assert_eq!(starts(&out)[..2], [0.0, 50.0]);
    assert!(
        (starts(&out)[2] - (51.0 + limit)).abs() < 1e-9,
        "{:?}",
        starts(&out)
    );
    assert_eq!(placements(&out)[2], "0001");
}

/// Scan-up on a 4-cube: the sweep of Q_3 blocks on its head (the scan does not move on), a job
/// arriving at Q_3 during the sweep waits for the next one, and Q_1 is served on the way round.
#[test]
fn scan_up_sweeps_and_holds_late_arrivals() {
    let w = cubes(&[
        (0.0, 10.0, 2),
        (1.0, 5.0, 3),
        (2.0, 5.0, 3),
        (3.0, 1.0, 1),
        (4.0, 1.0, 3),
    ]);
    let up = run_valid(
        &w,
        CUBE4,
        SchedKind::ScanUp(Default::default()),
        AllocKind::Buddy,
    );
    assert_eq!(starts(&up), [0.0, 1.0, 6.0, 6.0, 10.0]);
    assert_eq!(placements(&up)[3], "010*");
    let oo = run_valid(&w, CUBE4, SchedKind::OutOfOrder, AllocKind::Buddy);
    assert_eq!(starts(&oo)[3], 3.0, "OO would start the 1-cube at once");
    let down = run_valid(
        &w,
        CUBE4,
        SchedKind::ScanDown(Default::default()),
        AllocKind::Buddy,
    );
    assert_eq!(starts(&down)[..2], [0.0, 1.0]);
}

/// The three readings of §2.3's scan on the stream of `scan_up_sweeps_and_holds_late_arrivals`
/// (worked by hand): j0 2-cube [0, 10), j1 3-cube [1, 6), then j2 (3-cube, t = 2), j3 (1-cube,
/// t = 3), j4 (3-cube, t = 4).
#[test]
fn scan_readings_of_the_arrivals_the_pointer_and_a_blocked_head() {
    let w = cubes(&[
        (0.0, 10.0, 2),
        (1.0, 5.0, 3),
        (2.0, 5.0, 3),
        (3.0, 1.0, 1),
        (4.0, 1.0, 3),
    ]);
    let scan = |label: &str| {
        let kind: SchedKind = label.parse().expect(label);
        starts(&run_valid(&w, CUBE4, kind, AllocKind::Buddy))
    };
    // join: j4 joins Q_3's sweep (j2 pending), so after j2 (t = 6) the scan waits for j4, which
    // starts when j0 frees 0*** at 10; j3 then finds every node busy until j2 and j4 end at 11.
    assert_eq!(scan("scan-up:join"), [0.0, 1.0, 6.0, 11.0, 10.0]);
    // skip: j2 does not fit at 2, the scan leaves Q_3 and serves j3 on arrival (3); j2 and j4 as in
    // the default reading.
    assert_eq!(scan("scan-up:skip"), [0.0, 1.0, 6.0, 3.0, 10.0]);
    // step: one queue per event. t = 0 (machine empty): Q_1 (empty), Q_2 → j0. t = 1: Q_3 → j1.
    // t = 2: Q_4, t = 3: Q_0 (empty, jobs running: stop). t = 4: Q_1 → j3 on 010*. t = 5: Q_2.
    // t = 6: Q_3 → j2 on 1***, j4 blocks until j0 ends at 10.
    assert_eq!(scan("scan-up:step"), [0.0, 1.0, 6.0, 4.0, 10.0]);
    assert_eq!(scan("scan-up:hold,jump,wait"), scan("scan-up"));
}

/// Static_Request / Static_Release on a 4-cube: partitions 0***, 10**, 110*, 1110, 1111; a second
/// 2-cube job waits for 10** although 0*** is idle; a whole-cube job waits for every partition.
#[test]
fn static_partitions_of_a_4_cube() {
    let w = cubes(&[
        (0.0, 5.0, 2),
        (0.0, 5.0, 2),
        (0.0, 1.0, 0),
        (0.0, 1.0, 0),
        (0.0, 1.0, 0),
        (1.0, 2.0, 3),
        (2.0, 1.0, 4),
        (2.5, 1.0, 0),
    ]);
    let out = run_valid(&w, CUBE4, SchedKind::Static, AllocKind::Buddy);
    // The whole-cube job (t = 2) holds back the second 2-cube job and the late 0-cube job until it
    // has run on the drained machine (5 → 6).
    assert_eq!(starts(&out), [0.0, 6.0, 0.0, 0.0, 1.0, 1.0, 5.0, 6.0]);
    assert_eq!(
        placements(&out),
        [
            "10**", "10**", "1110", "1111", "1110", "0***", "****", "1110"
        ]
    );
}

fn all_scheds() -> Vec<SchedKind> {
    [
        "fcfs",
        "oo",
        "oocb:2",
        "window:3",
        "delay",
        "delay:count",
        "bq:2",
        "lazy",
        "lazy:0",
        "lazy:3",
        "lazy:deadline",
        "scan-up",
        "scan-down",
        "static",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

fn stream() -> impl Strategy<Value = Vec<(f64, f64, u8)>> {
    prop::collection::vec((0u8..4, 0u8..8, 0u8..=5), 1..40).prop_map(|raw| {
        let mut t = 0.0;
        raw.into_iter()
            .map(|(gap, run, k)| {
                t += f64::from(gap);
                (t, f64::from(run), k)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(64)))]

    #[test]
    fn every_scheduler_on_every_hypercube_allocator_is_valid(raw in stream()) {
        let m = MachineSpec::Hypercube { dim: 5 };
        let w = cubes(&raw);
        for a in [AllocKind::Buddy, AllocKind::FreeList, AllocKind::GrayCode, AllocKind::Flat] {
            for s in all_scheds() {
                let x = replay(&w, m, s, a, &mut NoObserver);
                prop_assert!(x.is_ok(), "{} {}: {:?}", s, a, x.err());
                let x = x.unwrap();
                prop_assert_eq!(validate(&w, m, &x), Ok(()), "{} {}", s, a);
                let y = replay(&w, m, s, a, &mut NoObserver).unwrap();
                prop_assert_eq!(&x.records, &y.records, "{} {} is deterministic", s, a);
            }
        }
    }

    /// Static partitioning never places a job outside its partition, and a job of dimension k < n
    /// only ever runs on an S_k.
    #[test]
    fn static_uses_only_its_partitions(raw in stream()) {
        let m = MachineSpec::Hypercube { dim: 5 };
        let w = cubes(&raw);
        let out = run_valid(&w, m, SchedKind::Static, AllocKind::Buddy);
        for (j, r) in w.jobs.iter().zip(&out.records) {
            let shown = r.placement.to_string();
            let Request::Subcube(k) = j.request else { unreachable!() };
            let want = match k {
                5 => "*****".to_string(),
                0 => if shown == "11111" { shown.clone() } else { "11110".to_string() },
                k => format!("{}0{}", "1".repeat(4 - usize::from(k)), "*".repeat(usize::from(k))),
            };
            prop_assert_eq!(shown, want);
        }
    }
}

#[test]
fn labels_round_trip() {
    for s in ["lazy", "lazy:30", "scan-up", "scan-down", "static"] {
        let k: SchedKind = s.parse().unwrap();
        assert_eq!(k.to_string(), s);
    }
    for bad in ["lazy:-1", "lazy:x", "scan", "static:2"] {
        assert!(bad.parse::<SchedKind>().is_err(), "{bad}");
    }
}
