//! The queueing policies: the papers' worked examples, hand-made cases at the policies' edges, and
//! property tests over random job streams for every scheduler × allocator.

use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use pwa_replay::engine::{Engine, NoObserver, Outcome, replay, validate};
use pwa_replay::machine::Allocator;
use pwa_replay::machine::{AllocKind, MachineSpec, Placement};
use pwa_replay::sched::{RunningJob, SchedKind, Scheduler, System};
use pwa_replay::workload::{Job, JobId, Request, Workload};

use crate::engine::{flat, mesh, rect, run_valid, starts, workload};
use crate::support::keep_regressions;

type Attempts = Arc<Mutex<Vec<(f64, JobId, bool)>>>;

/// A scheduler wrapper that logs every start request `(now, job, started)`.
struct Recorder {
    inner: Box<dyn Scheduler>,
    log: Attempts,
}

struct LogSys<'a> {
    inner: &'a mut dyn System,
    log: &'a Mutex<Vec<(f64, JobId, bool)>>,
}

impl System for LogSys<'_> {
    fn now(&self) -> f64 {
        self.inner.now()
    }
    fn job(&self, id: JobId) -> &Job {
        self.inner.job(id)
    }
    fn try_start(&mut self, id: JobId) -> bool {
        let ok = self.inner.try_start(id);
        self.log.lock().unwrap().push((self.inner.now(), id, ok));
        ok
    }
    fn try_start_on(&mut self, id: JobId, p: Placement) -> bool {
        let ok = self.inner.try_start_on(id, p);
        self.log.lock().unwrap().push((self.inner.now(), id, ok));
        ok
    }
    fn suspend(&mut self, id: JobId) -> bool {
        self.inner.suspend(id)
    }
    fn resume(&mut self, id: JobId) -> bool {
        self.inner.resume(id)
    }
    fn free_nodes(&self) -> u32 {
        self.inner.free_nodes()
    }
    fn running(&self) -> usize {
        self.inner.running()
    }
    fn running_jobs(&self) -> Vec<RunningJob> {
        self.inner.running_jobs()
    }
    fn placement(&self, id: JobId) -> Option<Placement> {
        self.inner.placement(id)
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        self.inner.snapshot()
    }
    fn empty_allocator(&self) -> Box<dyn Allocator> {
        self.inner.empty_allocator()
    }
    fn set_timer(&mut self, at: f64, token: u64) {
        self.inner.set_timer(at, token)
    }
    fn departed(&self) -> &[JobId] {
        self.inner.departed()
    }
    fn promise(&mut self, id: JobId, at: f64) {
        self.inner.promise(id, at)
    }
}

impl Scheduler for Recorder {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        let log = Arc::clone(&self.log);
        let mut s = LogSys {
            inner: sys,
            log: &log,
        };
        self.inner.on_arrival(job, &mut s);
    }
    fn on_departure(&mut self, sys: &mut dyn System) {
        let log = Arc::clone(&self.log);
        let mut s = LogSys {
            inner: sys,
            log: &log,
        };
        self.inner.on_departure(&mut s);
    }
    fn waiting(&self) -> usize {
        self.inner.waiting()
    }
}

fn recorded(w: &Workload, m: MachineSpec, s: SchedKind, a: AllocKind) -> (Outcome, Attempts) {
    let log: Attempts = Arc::default();
    let sched = Recorder {
        inner: s.build(),
        log: Arc::clone(&log),
    };
    let out = Engine::new(w, Box::new(sched), a.build(m).unwrap())
        .run(&mut NoObserver)
        .unwrap();
    validate(w, m, &out).unwrap();
    (out, log)
}

fn submesh(p: &Placement) -> (u32, u32, u32, u32) {
    match p {
        Placement::Submesh { at, .. } => at.paper(),
        other => panic!("not a submesh: {other}"),
    }
}

/// window-k-mesh.md §4, Example 2, on the M(5,4) mesh of Fig. 1 with K = 4.
///
/// Four background jobs fill the mesh at t = 0: (1,1,5,2), (1,3,3,4), and two 2×1 jobs at (4,3,5,3)
/// and (4,4,5,4) (first fit and MPL order these two differently, so `short` says which of the two
/// ends early). The (1,1,5,2) and (4,3,5,3) jobs end at t = 1, leaving exactly Fig. 1: the maximal
/// free submeshes (1,1,5,2) and (4,1,5,3). Jobs 1–5 of the example (5×3, 5×2, 2×1, 4×3, 3×3) arrive
/// at t = 2. At t = 3 jobs 2, 3 and the (1,3,3,4) job depart, which lets job 1 start.
fn example_2(alloc: AllocKind, short: usize) {
    let run = |j: usize| if j == short { 1.0 } else { 100.0 };
    let w = workload(&[
        (0.0, 1.0, rect(5, 2)),
        (0.0, 3.0, rect(3, 2)),
        (0.0, run(2), rect(2, 1)),
        (0.0, run(3), rect(2, 1)),
        (2.0, 5.0, rect(5, 3)),
        (2.0, 1.0, rect(5, 2)),
        (2.0, 1.0, rect(2, 1)),
        (2.0, 5.0, rect(4, 3)),
        (2.0, 5.0, rect(3, 3)),
    ]);
    let (out, log) = recorded(&w, mesh(5, 4), SchedKind::Window(4), alloc);
    let at = |j: usize| submesh(&out.records[j].placement);
    assert_eq!(
        [at(0), at(1), at(short)],
        [(1, 1, 5, 2), (1, 3, 3, 4), (4, 3, 5, 3)]
    );
    assert_eq!(at(5 - short), (4, 4, 5, 4));
    let log = log.lock().unwrap();
    let during = |t: f64| -> Vec<(usize, bool)> {
        log.iter()
            .filter(|e| e.0 == t)
            .map(|e| (e.1.index() - 3, e.2))
            .collect()
    };
    // Job 1 waits, job 2 → (1,1,5,2), job 3 → (4,3,5,3), job 4 fails, job 5 is not tried.
    assert_eq!(
        during(2.0),
        vec![(1, false), (2, true), (3, true), (4, false)]
    );
    assert_eq!(at(5), (1, 1, 5, 2));
    assert_eq!(at(6), (4, 3, 5, 3));
    // Job 1 starts; the window moves past 2 and 3; job 4 heads it and job 5 becomes a candidate.
    assert_eq!(during(3.0), vec![(1, true), (4, false), (5, false)]);
    assert_eq!(at(4), (1, 1, 5, 3));
}

#[test]
fn window_k_example_2_first_fit() {
    example_2(AllocKind::FirstFit, 2);
}

#[test]
fn window_k_example_2_mpl() {
    example_2(AllocKind::Mpl, 3);
}

#[test]
fn window_k_example_2_mpl_fixed() {
    example_2(AllocKind::MplFixed, 3);
}

/// flat:4. Job 0 holds 3 nodes 0..10; job 1 (4 nodes) arrives at 1; job 2 (1 node, 1 s) at 2.
fn blocked_head() -> Workload {
    workload(&[
        (0.0, 10.0, Request::Nodes(3)),
        (1.0, 10.0, Request::Nodes(4)),
        (2.0, 1.0, Request::Nodes(1)),
        (4.0, 1.0, Request::Nodes(1)),
    ])
}

#[test]
fn fcfs_never_lets_a_later_job_pass_even_if_it_fits() {
    let out = run_valid(&blocked_head(), flat(4), SchedKind::Fcfs, AllocKind::Flat);
    assert_eq!(starts(&out), vec![0.0, 10.0, 20.0, 20.0]);
}

#[test]
fn oo_starts_every_job_that_fits() {
    let out = run_valid(
        &blocked_head(),
        flat(4),
        SchedKind::OutOfOrder,
        AllocKind::Flat,
    );
    assert_eq!(starts(&out), vec![0.0, 10.0, 2.0, 4.0]);
}

#[test]
fn oocb_bounds_the_overtakes_of_the_head() {
    let s = |k| starts(&run_valid(&blocked_head(), flat(4), k, AllocKind::Flat));
    for (k, fcfs) in [
        (SchedKind::Oocb(0), "oocb:0"),
        (SchedKind::OocbIncl(1), "oocb-incl:1"),
        (SchedKind::OocbHead(0), "oocb-head:0"),
    ] {
        assert_eq!(s(k), vec![0.0, 10.0, 20.0, 20.0], "{fcfs} is FCFS");
    }
    for one in [
        SchedKind::Oocb(1),
        SchedKind::OocbIncl(2),
        SchedKind::OocbHead(1),
    ] {
        assert_eq!(
            s(one),
            vec![0.0, 10.0, 2.0, 20.0],
            "{one}: one overtake, then strict FCFS"
        );
    }
    assert_eq!(s(SchedKind::Oocb(2)), vec![0.0, 10.0, 2.0, 4.0]);
}

/// flat:4. Job 0 holds 3 nodes 0..10. Job 1 (2 nodes) arrives at 1 and blocks; job 2 (4 nodes)
/// arrives at 2 and waits behind it; job 3 (1 node, 1 s) arrives at 3 and overtakes both. At 10
/// job 0 departs, job 1 starts (10..20) and job 2 becomes the head with 2 nodes free but needing 4.
/// Job 4 (1 node, 1 s) arrives at 11.
fn inherited_overtake() -> Workload {
    workload(&[
        (0.0, 10.0, Request::Nodes(3)),
        (1.0, 10.0, Request::Nodes(2)),
        (2.0, 10.0, Request::Nodes(4)),
        (3.0, 1.0, Request::Nodes(1)),
        (11.0, 1.0, Request::Nodes(1)),
    ])
}

#[test]
fn oocb_counts_the_overtakes_a_job_suffered_before_it_became_head() {
    let s = |k| {
        starts(&run_valid(
            &inherited_overtake(),
            flat(4),
            k,
            AllocKind::Flat,
        ))
    };
    // Per-job counters (§2.2): job 3 overtook job 2 as well as job 1, so with one overtake allowed
    // job 2 is at its bound when it becomes head and job 4 waits for it (starts at 30, when job 2
    // ends).
    assert_eq!(s(SchedKind::Oocb(1)), vec![0.0, 10.0, 20.0, 3.0, 30.0]);
    assert_eq!(s(SchedKind::OocbIncl(2)), vec![0.0, 10.0, 20.0, 3.0, 30.0]);
    // With two overtakes allowed job 4 may pass job 2 (its second overtake).
    assert_eq!(s(SchedKind::Oocb(2)), vec![0.0, 10.0, 20.0, 3.0, 11.0]);
    // A counter owned by the head starts at 0 for job 2: job 4 passes it.
    assert_eq!(s(SchedKind::OocbHead(1)), vec![0.0, 10.0, 20.0, 3.0, 11.0]);
    // FCFS for reference: job 3 waits for job 2's start, then for its nodes.
    assert_eq!(s(SchedKind::Fcfs), vec![0.0, 10.0, 20.0, 30.0, 30.0]);
}

/// For every job, the later jobs that started before it: the times it was overtaken.
fn overtakes(out: &Outcome) -> Vec<usize> {
    let st = starts(out);
    (0..st.len())
        .map(|j| (j + 1..st.len()).filter(|&i| st[i] < st[j]).count())
        .collect()
}

/// flat:4. Job 0 holds 2 nodes 0..10, job 1 holds 1 node 0..5; job 2 (4 nodes) arrives at 1 and
/// blocks; job 3 (1 node) arrives at 2. At t = 5 job 1 departs: the head has waited 4 s.
fn bq_case() -> Workload {
    workload(&[
        (0.0, 10.0, Request::Nodes(2)),
        (0.0, 5.0, Request::Nodes(1)),
        (1.0, 3.0, Request::Nodes(4)),
        (2.0, 1.0, Request::Nodes(1)),
    ])
}

#[test]
fn bypass_queue_follows_fig_2() {
    let s = |t| {
        starts(&run_valid(
            &bq_case(),
            flat(4),
            SchedKind::BypassQueue(t),
            AllocKind::Flat,
        ))
    };
    // Arrival with a non-empty queue: appended without an attempt, so job 3 waits for a departure.
    assert_eq!(
        s(10.0),
        vec![0.0, 0.0, 10.0, 5.0],
        "head waited 4 < 10: bypass at t = 5"
    );
    assert_eq!(s(f64::INFINITY), vec![0.0, 0.0, 10.0, 5.0]);
    assert_eq!(
        s(3.0),
        vec![0.0, 0.0, 10.0, 13.0],
        "head waited 4 ≥ 3: strict FCFS"
    );
    assert_eq!(
        s(0.0),
        starts(&run_valid(
            &bq_case(),
            flat(4),
            SchedKind::Fcfs,
            AllocKind::Flat
        ))
    );
    // OO, unlike bq:inf, tries the newcomer at once.
    let oo = run_valid(&bq_case(), flat(4), SchedKind::OutOfOrder, AllocKind::Flat);
    assert_eq!(oo.records[3].start, 2.0);
}

/// Delay: at t = 6 a 1-node job may overtake the blocked head under the count reading
/// (λ = 5 arrivals / 6 s, W = 2 s for the one running job: ⌈λ·W⌉ = ⌈1.67⌉ = 2 > 0 overtakes), but not
/// under the time reading (the head has waited 3 s ≥ λ·W = 1.67). At t = 6.5 the bound has dropped to
/// ⌈6/6.5 · (2 + 0)/2⌉ = 1, already used: the head blocks until it starts at t = 24.
#[test]
fn delay_threshold_is_lambda_times_w() {
    let w = workload(&[
        (0.0, 4.0, Request::Nodes(4)),
        (2.0, 20.0, Request::Nodes(2)),
        (2.0, 1.0, Request::Nodes(2)),
        (3.0, 1.0, Request::Nodes(4)),
        (6.0, 1.0, Request::Nodes(1)),
        (6.5, 1.0, Request::Nodes(1)),
    ]);
    let count = run_valid(&w, flat(4), SchedKind::DelayCount, AllocKind::Flat);
    assert_eq!(starts(&count), vec![0.0, 4.0, 4.0, 24.0, 6.0, 25.0]);
    let time = run_valid(&w, flat(4), SchedKind::Delay, AllocKind::Flat);
    assert_eq!(starts(&time), vec![0.0, 4.0, 4.0, 24.0, 25.0, 25.0]);
}

#[test]
fn labels_round_trip() {
    for s in [
        "fcfs",
        "oo",
        "oocb:0",
        "oocb:8",
        "oocb-incl:1",
        "oocb-incl:8",
        "oocb-head:0",
        "oocb-head:8",
        "window:240",
        "delay",
        "delay:count",
        "bq:600",
        "bq:inf",
    ] {
        let k: SchedKind = s.parse().unwrap();
        assert_eq!(k.to_string(), s);
    }
    for bad in [
        "window:0",
        "bq:-1",
        "oocb:x",
        "oocb-incl:0",
        "oocb-job:8",
        "delay:space",
        "lifo",
    ] {
        assert!(bad.parse::<SchedKind>().is_err(), "{bad}");
    }
}

// ---------------------------------------------------------------------------------------------
// Properties over random job streams.

const W: u32 = 6;
const H: u32 = 4;

fn all_scheds() -> Vec<SchedKind> {
    [
        "fcfs",
        "oo",
        "oocb:0",
        "oocb:2",
        "oocb-incl:3",
        "oocb-head:2",
        "window:1",
        "window:3",
        "delay",
        "delay:count",
        "bq:0",
        "bq:5",
        "bq:inf",
    ]
    .iter()
    .map(|s| s.parse().unwrap())
    .collect()
}

/// Streams of `(gap, runtime, w, h)`; flat streams use `w·h` nodes.
fn stream() -> impl Strategy<Value = Vec<(u8, u8, u32, u32)>> {
    prop::collection::vec((0u8..4, 0u8..15, 1..=W, 1..=H), 1..30)
}

fn to_workload(raw: &[(u8, u8, u32, u32)], as_mesh: bool) -> Workload {
    let mut t = 0.0;
    let jobs: Vec<_> = raw
        .iter()
        .map(|&(gap, run, w, h)| {
            t += f64::from(gap);
            let req = if as_mesh {
                rect(w, h)
            } else {
                Request::Nodes(w * h)
            };
            (t, f64::from(run), req)
        })
        .collect();
    workload(&jobs)
}

/// Nodes busy at `t` (after the instant): jobs with `start ≤ t < end`.
fn busy_grid(out: &Outcome, t: f64) -> Vec<bool> {
    let mut grid = vec![false; (W * H) as usize];
    for r in out.records.iter().filter(|r| r.start <= t && t < r.end) {
        if let Placement::Submesh { at, .. } = r.placement {
            for y in at.base.y..at.base.y + at.shape.h {
                for x in at.base.x..at.base.x + at.shape.w {
                    grid[(y * W + x) as usize] = true;
                }
            }
        }
    }
    grid
}

/// Brute force: is there a free `w × h` block?
fn fits(grid: &[bool], w: u32, h: u32) -> bool {
    if w > W || h > H {
        return false;
    }
    (0..=H - h).any(|y0| {
        (0..=W - w)
            .any(|x0| (y0..y0 + h).all(|y| (x0..x0 + w).all(|x| !grid[(y * W + x) as usize])))
    })
}

/// Whether a `w × h` request could be placed on `grid` by allocator `a` (brute force): first fit,
/// best fit and MPL-fixed use the requested orientation, fixed orientation turns it to `w ≥ h` (the
/// 6×4 mesh is wider than tall), adaptive scan and MPL (turning) try both.
fn placeable(grid: &[bool], w: u32, h: u32, a: AllocKind) -> bool {
    match a {
        AllocKind::FixedOrientation => fits(grid, w.max(h), w.min(h)),
        AllocKind::AdaptiveScan | AllocKind::Mpl => fits(grid, w, h) || fits(grid, h, w),
        _ => fits(grid, w, h),
    }
}

/// Checks that after each instant in `instants` no waiting job could start.
fn no_fitting_job_waits(w: &Workload, out: &Outcome, a: AllocKind, instants: &[f64]) -> bool {
    instants.iter().all(|&t| {
        let grid = busy_grid(out, t);
        let busy: u32 = out
            .records
            .iter()
            .filter(|r| r.start <= t && t < r.end)
            .map(|r| r.placement.nodes())
            .sum();
        w.jobs.iter().zip(&out.records).all(|(j, r)| {
            let waiting = j.submit <= t && r.start > t;
            !waiting
                || match j.request {
                    Request::Submesh(s) if a != AllocKind::Flat => !placeable(&grid, s.w, s.h, a),
                    req => req.nodes() > W * H - busy,
                }
        })
    })
}

fn event_times(w: &Workload, out: &Outcome) -> Vec<f64> {
    let mut ts: Vec<f64> = w
        .jobs
        .iter()
        .map(|j| j.submit)
        .chain(out.records.iter().map(|r| r.end))
        .collect();
    ts.sort_by(f64::total_cmp);
    ts.dedup();
    ts
}

/// A plain FCFS on a flat machine, written without the engine: each job starts at the first time
/// ≥ max(its submit, the previous start) at which enough nodes are free.
fn reference_fcfs(w: &Workload, nodes: u32) -> Vec<f64> {
    let mut done: Vec<(f64, f64, u32)> = Vec::new();
    let mut prev = f64::NEG_INFINITY;
    for j in &w.jobs {
        let need = j.request.nodes();
        let mut candidates: Vec<f64> = vec![j.submit.max(prev)];
        candidates.extend(done.iter().map(|d| d.1).filter(|&e| e > j.submit.max(prev)));
        candidates.sort_by(f64::total_cmp);
        let free_at = |t: f64| {
            nodes
                - done
                    .iter()
                    .filter(|d| d.0 <= t && t < d.1)
                    .map(|d| d.2)
                    .sum::<u32>()
        };
        let start = *candidates
            .iter()
            .find(|&&t| free_at(t) >= need)
            .expect("fits when empty");
        done.push((start, start + j.runtime, need));
        prev = start;
    }
    done.iter().map(|d| d.0).collect()
}

fn mesh_allocs() -> [AllocKind; 6] {
    [
        AllocKind::FirstFit,
        AllocKind::BestFit,
        AllocKind::FixedOrientation,
        AllocKind::AdaptiveScan,
        AllocKind::Mpl,
        AllocKind::MplFixed,
    ]
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(48)))]

    #[test]
    fn every_schedule_is_valid_and_deterministic(raw in stream()) {
        let cases = mesh_allocs().map(|a| (true, mesh(W, H), a)).into_iter()
            .chain([(false, flat(W * H), AllocKind::Flat), (true, mesh(W, H), AllocKind::Flat)]);
        for (as_mesh, m, a) in cases {
            let w = to_workload(&raw, as_mesh);
            for s in all_scheds() {
                let x = replay(&w, m, s, a, &mut NoObserver).unwrap();
                prop_assert_eq!(validate(&w, m, &x), Ok(()), "{} {} {}", s, a, m);
                let y = replay(&w, m, s, a, &mut NoObserver).unwrap();
                prop_assert_eq!(&x.records, &y.records);
                prop_assert_eq!(x.alloc, y.alloc);
            }
        }
    }

    #[test]
    fn policies_meet_at_their_extremes(raw in stream()) {
        let cases = mesh_allocs().map(|a| (true, mesh(W, H), a)).into_iter()
            .chain([(false, flat(W * H), AllocKind::Flat)]);
        for (as_mesh, m, a) in cases {
            let w = to_workload(&raw, as_mesh);
            let run = |s| run_valid(&w, m, s, a).records;
            let fcfs = run(SchedKind::Fcfs);
            let st: Vec<f64> = fcfs.iter().map(|r| r.start).collect();
            prop_assert!(st.windows(2).all(|p| p[0] <= p[1]), "FCFS starts in arrival order");
            prop_assert_eq!(&run(SchedKind::Oocb(0)), &fcfs);
            prop_assert_eq!(&run(SchedKind::OocbIncl(1)), &fcfs);
            prop_assert_eq!(&run(SchedKind::OocbHead(0)), &fcfs);
            prop_assert_eq!(&run(SchedKind::BypassQueue(0.0)), &fcfs);
            prop_assert_eq!(&run(SchedKind::Window(1)), &fcfs);
            prop_assert_eq!(run(SchedKind::Oocb(u32::MAX)), run(SchedKind::OutOfOrder));
            prop_assert_eq!(run(SchedKind::OocbHead(u32::MAX)), run(SchedKind::OutOfOrder));
        }
    }

    #[test]
    fn oo_and_bq_inf_leave_no_fitting_job_waiting(raw in stream()) {
        let cases = mesh_allocs().map(|a| (true, mesh(W, H), a))
            .into_iter().chain([(false, flat(W * H), AllocKind::Flat)]);
        for (as_mesh, m, a) in cases {
            let w = to_workload(&raw, as_mesh);
            let oo = run_valid(&w, m, SchedKind::OutOfOrder, a);
            prop_assert!(no_fitting_job_waits(&w, &oo, a, &event_times(&w, &oo)), "oo {}", a);
            // bq:inf: after every departure instant without arrivals.
            let bq = run_valid(&w, m, SchedKind::BypassQueue(f64::INFINITY), a);
            let quiet: Vec<f64> = event_times(&w, &bq).into_iter()
                .filter(|&t| w.jobs.iter().all(|j| j.submit != t)).collect();
            prop_assert!(no_fitting_job_waits(&w, &bq, a, &quiet), "bq:inf {}", a);
        }
    }

    #[test]
    fn window_k_never_reaches_past_its_window(raw in stream(), k in 1u32..5) {
        let w = to_workload(&raw, true);
        for a in mesh_allocs() {
            let out = run_valid(&w, mesh(W, H), SchedKind::Window(k), a);
            for (j, r) in out.records.iter().enumerate() {
                let t = r.start;
                let oldest = w.jobs.iter().zip(&out.records)
                    .position(|(jj, rr)| jj.submit <= t && rr.start > t);
                if let Some(h) = oldest {
                    prop_assert!(j < h + k as usize, "job {} started at {} with job {} waiting, K = {}", j, t, h, k);
                }
            }
        }
    }

    #[test]
    fn oocb_never_lets_a_job_be_overtaken_more_than_k_times(raw in stream(), k in 0u32..4) {
        let cases = mesh_allocs().map(|a| (true, mesh(W, H), a)).into_iter()
            .chain([(false, flat(W * H), AllocKind::Flat)]);
        for (as_mesh, m, a) in cases {
            let w = to_workload(&raw, as_mesh);
            let per_job = run_valid(&w, m, SchedKind::Oocb(k), a);
            prop_assert!(overtakes(&per_job).iter().all(|&n| n <= k as usize), "oocb:{} {}", k, a);
            // Max-Bound counting the head's own allocation is the same policy with one less.
            prop_assert_eq!(&run_valid(&w, m, SchedKind::OocbIncl(k + 1), a).records, &per_job.records);
        }
    }

    #[test]
    fn flat_fcfs_matches_a_plain_reference(raw in stream()) {
        let w = to_workload(&raw, false);
        let out = run_valid(&w, flat(W * H), SchedKind::Fcfs, AllocKind::Flat);
        prop_assert_eq!(starts(&out), reference_fcfs(&w, W * H));
    }
}
