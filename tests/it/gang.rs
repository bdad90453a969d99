//! Gang scheduling (MPJ-CoSched&TS, coscheduling-time-sharing.md §4.2–4.3) and its space-sharing
//! baseline `largest-first:R`: each §4.2 step on hand-worked 4×4 examples, and property tests (every
//! schedule valid, service received = run time, a slice longer than the replay is space sharing).

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use pwa_replay::engine::{Engine, NoObserver, Outcome, Segment, replay, validate};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::{GangLog, GangParams, SchedKind, gang_with_log};
use pwa_replay::workload::{JobId, Request, Workload};

use crate::engine::{mesh, rect, run_valid, workload};
use crate::support::keep_regressions;

fn gang(slice: f64, n_max: u32, retry: u32) -> SchedKind {
    SchedKind::Gang(GangParams {
        slice: Some(slice),
        median_slice: false,
        n_max,
        retry,
        switch: 0.0,
    })
}

/// `gang:slice=median`: the upper median run time of the whole workload, fixed before the run
/// (the report's slice), where plain `gang` reads the running median.
#[test]
fn slice_median_is_the_workload_s_median_run_time() {
    let p: SchedKind = "gang:slice=median".parse().unwrap();
    assert_eq!(p.to_string(), "gang:slice=median");
    let sq = rect(1, 1);
    // Run times 3, 1, 4, 2: sorted 1, 2, 3, 4, the upper median (index 2) is 3.
    let w = workload(&[
        (0.0, 3.0, sq),
        (0.0, 1.0, sq),
        (0.0, 4.0, sq),
        (0.0, 2.0, sq),
    ]);
    let SchedKind::Gang(resolved) = p.for_workload(&w) else {
        panic!("a gang label");
    };
    assert_eq!((resolved.slice, resolved.median_slice), (Some(3.0), false));
    assert_eq!(p.for_workload(&w).to_string(), "gang:slice=3");
    // A fixed slice and other schedulers are left alone; an empty workload gets slice 1.
    assert_eq!(gang(2.0, 8, 16).for_workload(&w), gang(2.0, 8, 16));
    assert_eq!(SchedKind::Fcfs.for_workload(&w), SchedKind::Fcfs);
    let SchedKind::Gang(empty) = p.for_workload(&workload(&[])) else {
        panic!("a gang label");
    };
    assert_eq!(empty.slice, Some(1.0));
    // replay resolves it: the same schedule as the slice given by hand.
    let m = mesh(4, 4);
    let by_median = replay(&w, m, p, AllocKind::FirstFit, &mut NoObserver).unwrap();
    let by_hand = replay(
        &w,
        m,
        gang(3.0, 8, 16),
        AllocKind::FirstFit,
        &mut NoObserver,
    )
    .unwrap();
    assert_eq!(by_median.records, by_hand.records);
}

/// Replays under `gang` with its log, validated.
fn run_logged(w: &Workload, m: MachineSpec, p: GangParams) -> (Outcome, GangLog) {
    let log = Arc::new(Mutex::new(GangLog::default()));
    let alloc = AllocKind::FirstFit.build(m).unwrap();
    let out = Engine::new(w, gang_with_log(p, log.clone()), alloc)
        .run(&mut NoObserver)
        .expect("replay");
    validate(w, m, &out).expect("valid schedule");
    let log = log.lock().unwrap().clone();
    (out, log)
}

fn segs(out: &Outcome, j: u32) -> Vec<(f64, f64)> {
    out.segments
        .iter()
        .filter(|s| s.job == JobId(j))
        .map(|s| (s.start, s.end))
        .collect()
}

#[test]
fn labels_round_trip_with_defaults() {
    for (label, shown) in [
        ("gang", "gang"),
        ("gang:slice=600", "gang:slice=600"),
        (
            "gang:nmax=4,slice=2.5,retry=3",
            "gang:slice=2.5,nmax=4,retry=3",
        ),
        ("gang:switch=0.1", "gang:switch=0.1"),
        ("gang:slice=60;nmax=2", "gang:slice=60,nmax=2"),
        ("largest-first", "largest-first:16"),
        ("largest-first:64", "largest-first:64"),
    ] {
        let s: SchedKind = label.parse().unwrap();
        assert_eq!(s.to_string(), shown);
        assert_eq!(shown.parse::<SchedKind>().unwrap(), s);
    }
    for bad in [
        "gang:slice=0",
        "gang:slice=-1",
        "gang:nmax=0",
        "gang:colour=red",
        "gang:slice",
        "gang:switch=-1",
        "largest-first:x",
    ] {
        assert!(bad.parse::<SchedKind>().is_err(), "{bad}");
    }
}

/// Slice start/end and class creation at round start: a full-machine job arriving during another's
/// slice gets its own class at the next round start (at the front), runs one slice, and the first
/// job resumes on its nodes.
///
/// slice 1, 4×4: J0 4×4 (t 0, run 3) → class C0, runs [0,1). J1 4×4 (t 0.5, run 1) fits no class →
/// nmp_list. t 1: round start, C1 = {J1} in front: J0 suspended, J1 runs [1,2) and ends; C1 is empty
/// → deleted, the round goes on with C0 at once: J0 resumes at 2; slice end at 3 starts a round with
/// C0 alone (no switch), J0 ends at 4.
#[test]
fn slice_boundaries_suspend_and_resume_on_the_same_nodes() {
    let w = workload(&[(0.0, 3.0, rect(4, 4)), (0.5, 1.0, rect(4, 4))]);
    let (out, log) = run_logged(
        &w,
        mesh(4, 4),
        GangParams {
            slice: Some(1.0),
            ..GangParams::default()
        },
    );
    assert_eq!((out.records[0].start, out.records[0].end), (0.0, 4.0));
    assert_eq!((out.records[1].start, out.records[1].end), (1.0, 2.0));
    assert_eq!(segs(&out, 0), [(0.0, 1.0), (2.0, 4.0)]);
    assert_eq!(log.classes, [(0.0, 1), (1.0, 2), (2.0, 1), (4.0, 0)]);
    assert_eq!(
        log.switches, 2,
        "C0→C1 at 1, C1→C0 at 2 (the first class after idle and a restart of C0 alone are none)"
    );
    // Space sharing makes the short job wait for the long one.
    let lf = run_valid(
        &w,
        mesh(4, 4),
        SchedKind::LargestFirst(16),
        AllocKind::FirstFit,
    );
    assert_eq!(lf.records[1].start, 3.0);
}

/// Alternative placements (termination step 3) and class deletion at slice end (step 1).
///
/// slice 1, 4×4. t 0: A 2×2 (run 1.5) at (0,0), X 2×2 (run 100) at (2,0), F 4×2 (run 100) at (0,2)
/// fill C0. t 0.2: Y 2×2 (run 100) fits nowhere → nmp_list. t 1: round start: C1 = {Y at (0,0)}
/// in front; alternative placements: X and F are free in C1 → they also belong to C1 (Y overlaps A
/// in C0). C1 is served: A is suspended, X and F keep running, Y starts. t 2: C0: Y suspended, A
/// resumes and ends at 2.5; termination step 3 gives Y an alternative placement in C0, where it
/// resumes at once. t 3: every job of C0 also belongs to C1 → C0 is deleted; the round restarts
/// with C1 = {Y, X, F}, which all keep running.
#[test]
fn alternative_placements_and_deleting_a_covered_class() {
    let w = workload(&[
        (0.0, 1.5, rect(2, 2)),
        (0.0, 100.0, rect(2, 2)),
        (0.0, 100.0, rect(4, 2)),
        (0.2, 100.0, rect(2, 2)),
    ]);
    let (out, log) = run_logged(
        &w,
        mesh(4, 4),
        GangParams {
            slice: Some(1.0),
            ..GangParams::default()
        },
    );
    let (a, x, f, y) = (0, 1, 2, 3);
    assert_eq!(segs(&out, a), [(0.0, 1.0), (2.0, 2.5)]);
    assert_eq!(segs(&out, y), [(1.0, 2.0), (2.5, 101.5)]);
    for j in [x, f] {
        assert!(
            segs(&out, j).is_empty(),
            "job {j} runs in every slice: never suspended"
        );
        assert_eq!(out.records[j as usize].end, 100.0);
    }
    assert_eq!(log.classes, [(0.0, 1), (1.0, 2), (3.0, 1), (101.5, 0)]);
}

/// RetryLim: a job passed over RetryLim times by younger jobs must be placed next; until then no
/// newcomer is tried (one class, so the slice never changes anything).
///
/// 4×4, nmax 1. t 0: A 4×2 (run 1) rows 0–1, K 4×2 (run 10) rows 2–3. t 0.1: B 4×4 (run 1) waits.
/// t 0.2: S1 2×2 (run 5) waits. t 1: A ends; nmp_list = [B, S1]: B does not fit, S1 does → B has
/// been passed over once. t 1.5: S2 1×1 (run 1) arrives: with RetryLim 1, B must go next, so S2 waits
/// although a node is free (it starts at 11, after K at 10 and B at 10–11); with RetryLim 2 it starts
/// at once.
#[test]
fn retry_lim_blocks_newcomers_behind_a_starving_job() {
    let w = workload(&[
        (0.0, 1.0, rect(4, 2)),
        (0.0, 10.0, rect(4, 2)),
        (0.1, 1.0, rect(4, 4)),
        (0.2, 5.0, rect(2, 2)),
        (1.5, 1.0, rect(1, 1)),
    ]);
    let starts = |s| {
        run_valid(&w, mesh(4, 4), s, AllocKind::FirstFit)
            .records
            .iter()
            .map(|r| r.start)
            .collect::<Vec<_>>()
    };
    assert_eq!(starts(gang(50.0, 1, 1)), [0.0, 0.0, 10.0, 1.0, 11.0]);
    assert_eq!(starts(gang(50.0, 1, 2)), [0.0, 0.0, 10.0, 1.0, 1.5]);
    assert_eq!(
        starts(SchedKind::LargestFirst(1)),
        [0.0, 0.0, 10.0, 1.0, 11.0]
    );
    assert_eq!(
        starts(SchedKind::LargestFirst(2)),
        [0.0, 0.0, 10.0, 1.0, 1.5]
    );
}

/// FF-2G turns a request by 90° when it does not fit as asked (§4.3).
#[test]
fn a_request_is_turned_when_it_only_fits_turned() {
    // C0: J0 4×2 at rows 0–1; J1 2×4 fits only turned (4×2 at rows 2–3).
    let w = workload(&[(0.0, 5.0, rect(4, 2)), (0.5, 5.0, rect(2, 4))]);
    let (out, _) = run_logged(
        &w,
        mesh(4, 4),
        GangParams {
            slice: Some(1.0),
            ..GangParams::default()
        },
    );
    assert_eq!(
        out.records[1].start, 0.5,
        "placed in the class being served, started at once"
    );
    assert_eq!(out.records[1].placement.to_string(), "(1,3,4,4)");
    assert!(out.segments.is_empty(), "one class: nobody is suspended");
}

/// The context-switch cost idles the nodes at each class change: two full-machine jobs alternate,
/// each slice preceded by C of idle time.
#[test]
fn context_switch_cost_idles_the_nodes_between_classes() {
    let w = workload(&[(0.0, 2.0, rect(4, 4)), (0.5, 2.0, rect(4, 4))]);
    let p = GangParams {
        slice: Some(1.0),
        switch: 0.25,
        ..GangParams::default()
    };
    let (out, _) = run_logged(&w, mesh(4, 4), p);
    // J0 [0,1); switch to C1 (J1) until 1.25, J1 [1.25,2.25); switch to C0, J0 [2.5,3.5) ends.
    assert_eq!(segs(&out, 0), [(0.0, 1.0), (2.5, 3.5)]);
    assert_eq!(out.records[1].start, 1.25);
}

#[test]
fn same_instant_departure_and_slice_end_handle_the_departure_first() {
    // J0 ends exactly at its slice end (t 1): the departure deletes C0 first, so the stale slice-end
    // timer changes nothing and J1 (waiting in nmp_list) gets a new class at once.
    let w = workload(&[(0.0, 1.0, rect(4, 4)), (0.5, 1.0, rect(4, 4))]);
    let out = run_valid(&w, mesh(4, 4), gang(1.0, 8, 16), AllocKind::FirstFit);
    assert_eq!(out.records[1].start, 1.0);
    assert!(out.segments.is_empty());
}

#[test]
fn buddy_order_classes_place_squares_on_buddies() {
    let w = workload(&[(0.0, 5.0, rect(1, 1)), (0.1, 5.0, rect(2, 2))]);
    let out = run_valid(&w, mesh(4, 4), gang(1.0, 8, 16), AllocKind::Buddy2d);
    assert_eq!(out.records[1].placement.to_string(), "(3,1,4,2)");
}

/// Raw jobs: (inter-arrival, run time, width, height).
fn stream() -> impl Strategy<Value = Vec<(f64, f64, u32, u32)>> {
    prop::collection::vec((0.0..2.0f64, 0.0..4.0f64, 1u32..=4, 1u32..=4), 1..30)
}

fn to_workload(raw: &[(f64, f64, u32, u32)]) -> Workload {
    let mut t = 0.0;
    let jobs: Vec<(f64, f64, Request)> = raw
        .iter()
        .map(|&(dt, run, w, h)| {
            t += (dt * 4.0).round() / 4.0; // quarter steps: many same-instant events
            (t, (run * 4.0).round() / 4.0, rect(w, h))
        })
        .collect();
    workload(&jobs)
}

fn total_service(out: &Outcome, j: usize) -> f64 {
    let s: Vec<&Segment> = out.segments.iter().filter(|s| s.job.index() == j).collect();
    if s.is_empty() {
        out.records[j].end - out.records[j].start
    } else {
        s.iter().map(|s| s.end - s.start).sum()
    }
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(64)))]

    #[test]
    fn gang_schedules_are_valid_and_serve_exactly_the_run_time(
        raw in stream(),
        slice in 0.25..3.0f64,
        n_max in 1u32..5,
        retry in 0u32..4,
        switch in prop::sample::select(vec![0.0, 0.1]),
        alloc in prop::sample::select(vec![AllocKind::FirstFit, AllocKind::Buddy2d]),
    ) {
        let w = to_workload(&raw);
        let m = mesh(4, 4);
        let s = SchedKind::Gang(GangParams { slice: Some(slice), median_slice: false, n_max, retry, switch });
        let out = replay(&w, m, s, alloc, &mut NoObserver).unwrap();
        prop_assert_eq!(validate(&w, m, &out), Ok(()));
        for (j, job) in w.jobs.iter().enumerate() {
            prop_assert!((total_service(&out, j) - job.runtime).abs() <= 1e-9 * job.runtime.max(1.0));
        }
        let again = replay(&w, m, s, alloc, &mut NoObserver).unwrap();
        prop_assert_eq!(&out.records, &again.records);
        prop_assert_eq!(&out.segments, &again.segments);
    }

    #[test]
    fn a_slice_longer_than_the_replay_is_space_sharing(raw in stream(), retry in 0u32..4) {
        let w = to_workload(&raw);
        let m = mesh(4, 4);
        let long = 1e9;
        // No job is ever suspended, whatever n_max.
        let out = run_valid(&w, m, gang(long, 8, retry), AllocKind::FirstFit);
        prop_assert!(out.segments.is_empty());
        // With one class it is largest-first with the same RetryLim, placement for placement
        // (FF-2G turns requests: adaptive scan is first fit, then turned).
        let one = run_valid(&w, m, gang(long, 1, retry), AllocKind::FirstFit);
        let lf = run_valid(&w, m, SchedKind::LargestFirst(retry), AllocKind::AdaptiveScan);
        prop_assert_eq!(one.records, lf.records);
    }

    #[test]
    fn largest_first_is_valid(raw in stream(), retry in 0u32..20) {
        let w = to_workload(&raw);
        for a in [AllocKind::FirstFit, AllocKind::Buddy2d, AllocKind::AdaptiveScan] {
            let out = replay(&w, mesh(4, 4), SchedKind::LargestFirst(retry), a, &mut NoObserver).unwrap();
            prop_assert_eq!(validate(&w, mesh(4, 4), &out), Ok(()));
        }
    }
}
