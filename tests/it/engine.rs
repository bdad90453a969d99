//! The engine's contract: event order at one instant, errors instead of endless waits or panics, the
//! independent validator, the metrics, and the observers.

use std::sync::{Arc, Mutex};

use pwa_replay::engine::{
    Engine, EngineError, JobRecord, NoObserver, Observer, Outcome, PolicyProblem, TimeSeries,
    ValidationError, replay, summarize, validate,
};
use pwa_replay::machine::{AllocKind, MachineSpec, Placement, Shape, Submesh};
use pwa_replay::sched::{SchedKind, Scheduler, System};
use pwa_replay::workload::{Job, JobId, Request, Workload};

/// A job of the test workloads (source ids are 1-based like SWF's).
pub(crate) fn job(i: usize, submit: f64, runtime: f64, request: Request) -> Job {
    Job {
        id: JobId(i as u32),
        source_id: i as u64 + 1,
        submit,
        runtime,
        estimate: runtime,
        requested: None,
        request,
        asked_procs: request.nodes(),
        user: None,
        group: None,
        queue: None,
        partition: None,
    }
}

/// A workload from `(submit, runtime, request)` triples already in submit order.
pub(crate) fn workload(jobs: &[(f64, f64, Request)]) -> Workload {
    Workload {
        jobs: jobs
            .iter()
            .enumerate()
            .map(|(i, &(s, r, q))| job(i, s, r, q))
            .collect(),
        procs_per_node: 1,
        predictor: None,
    }
}

pub(crate) fn flat(n: u32) -> MachineSpec {
    MachineSpec::Flat { nodes: n }
}

pub(crate) fn mesh(w: u32, h: u32) -> MachineSpec {
    MachineSpec::Mesh {
        size: Shape::new(w, h),
    }
}

pub(crate) fn rect(w: u32, h: u32) -> Request {
    Request::Submesh(Shape::new(w, h))
}

/// Replays and validates; panics with the error otherwise (tests only).
pub(crate) fn run_valid(w: &Workload, m: MachineSpec, s: SchedKind, a: AllocKind) -> Outcome {
    let out = replay(w, m, s, a, &mut NoObserver).expect("replay");
    validate(w, m, &out).expect("valid schedule");
    out
}

pub(crate) fn starts(out: &Outcome) -> Vec<f64> {
    out.records.iter().map(|r| r.start).collect()
}

/// Each `on_departure` call: its time and the jobs it was told about.
type Passes = Arc<Mutex<Vec<(f64, Vec<JobId>)>>>;

/// FCFS that records what each `on_departure` call sees.
struct CountingFcfs {
    inner: Box<dyn Scheduler>,
    passes: Passes,
}

impl Scheduler for CountingFcfs {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.inner.on_arrival(job, sys);
    }
    fn on_departure(&mut self, sys: &mut dyn System) {
        let seen = (sys.now(), sys.departed().to_vec());
        self.passes.lock().unwrap().push(seen);
        self.inner.on_departure(sys);
    }
    fn waiting(&self) -> usize {
        self.inner.waiting()
    }
}

#[test]
fn an_arrival_sees_the_nodes_freed_at_the_same_instant() {
    let w = workload(&[
        (0.0, 10.0, Request::Nodes(4)),
        (10.0, 5.0, Request::Nodes(4)),
    ]);
    let out = run_valid(&w, flat(4), SchedKind::Fcfs, AllocKind::Flat);
    assert_eq!(starts(&out), vec![0.0, 10.0]);
    assert_eq!(out.records[1].end, 15.0);
}

#[test]
fn departures_at_one_instant_give_one_pass() {
    let w = workload(&[
        (0.0, 10.0, Request::Nodes(2)),
        (0.0, 10.0, Request::Nodes(2)),
        (1.0, 3.0, Request::Nodes(4)),
    ]);
    let passes = Arc::new(Mutex::new(Vec::new()));
    let sched = CountingFcfs {
        inner: SchedKind::Fcfs.build(),
        passes: Arc::clone(&passes),
    };
    let alloc = AllocKind::Flat.build(flat(4)).unwrap();
    let out = Engine::new(&w, Box::new(sched), alloc)
        .run(&mut NoObserver)
        .unwrap();
    validate(&w, flat(4), &out).unwrap();
    assert_eq!(out.records[2].start, 10.0);
    let passes = passes.lock().unwrap();
    assert_eq!(passes[0], (10.0, vec![JobId(0), JobId(1)]));
    assert_eq!(passes.len(), 2, "one pass at t = 10, one at t = 13");
}

#[test]
fn a_request_that_can_never_fit_is_an_error_naming_the_job() {
    let w = workload(&[(0.0, 1.0, Request::Nodes(2)), (1.0, 1.0, Request::Nodes(9))]);
    let err = replay(
        &w,
        flat(8),
        SchedKind::Fcfs,
        AllocKind::Flat,
        &mut NoObserver,
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            EngineError::NeverFits {
                job: JobId(1),
                source_id: 2,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("job 2"), "{err}");
    let w = workload(&[(0.0, 1.0, rect(3, 5))]);
    let err = replay(
        &w,
        mesh(4, 4),
        SchedKind::Fcfs,
        AllocKind::FirstFit,
        &mut NoObserver,
    );
    assert!(matches!(err, Err(EngineError::NeverFits { .. })));
}

#[test]
fn a_malformed_workload_is_an_error() {
    let mut w = workload(&[(5.0, 1.0, Request::Nodes(1)), (1.0, 1.0, Request::Nodes(1))]);
    let err = replay(
        &w,
        flat(2),
        SchedKind::Fcfs,
        AllocKind::Flat,
        &mut NoObserver,
    );
    assert!(matches!(
        err,
        Err(EngineError::BadWorkload { job: JobId(1), .. })
    ));
    w.jobs[1].submit = 6.0;
    w.jobs[1].runtime = f64::NAN;
    let err = replay(
        &w,
        flat(2),
        SchedKind::Fcfs,
        AllocKind::Flat,
        &mut NoObserver,
    );
    assert!(matches!(
        err,
        Err(EngineError::BadWorkload { job: JobId(1), .. })
    ));
}

/// Starts every job twice, or a job that has not arrived, depending on `mode`.
struct Rogue(u8);
impl Scheduler for Rogue {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        match self.0 {
            0 => {
                sys.try_start(job);
                sys.try_start(job);
            }
            1 => {
                sys.try_start(JobId(job.0 + 1));
            }
            _ => {}
        }
    }
    fn on_departure(&mut self, _sys: &mut dyn System) {}
    fn waiting(&self) -> usize {
        0
    }
}

#[test]
fn policy_bugs_are_errors_not_panics() {
    let w = workload(&[(0.0, 1.0, Request::Nodes(1)), (1.0, 1.0, Request::Nodes(1))]);
    let run = |mode| {
        let alloc = AllocKind::Flat.build(flat(4)).unwrap();
        Engine::new(&w, Box::new(Rogue(mode)), alloc).run(&mut NoObserver)
    };
    let twice = run(0).unwrap_err();
    assert!(matches!(
        twice,
        EngineError::Policy {
            problem: PolicyProblem::AlreadyStarted,
            job: Some(JobId(0)),
            ..
        }
    ));
    let early = run(1).unwrap_err();
    assert!(matches!(
        early,
        EngineError::Policy {
            problem: PolicyProblem::NotArrived,
            job: Some(JobId(1)),
            ..
        }
    ));
    let lazy = run(2).unwrap_err();
    assert!(
        matches!(
            lazy,
            EngineError::Stranded {
                job: JobId(0),
                waiting: 2,
                ..
            }
        ),
        "{lazy}"
    );
}

#[test]
fn zero_length_jobs_run_and_free_their_nodes_at_the_same_instant() {
    let w = workload(&[
        (0.0, 0.0, Request::Nodes(4)),
        (0.0, 2.0, Request::Nodes(4)),
        (0.0, 0.0, Request::Nodes(1)),
    ]);
    let out = run_valid(&w, flat(4), SchedKind::Fcfs, AllocKind::Flat);
    assert_eq!(starts(&out), vec![0.0, 0.0, 2.0]);
}

#[test]
fn the_failure_memo_skips_repeated_allocator_calls() {
    // Ten identical 3-node jobs wait behind a 2-node job on a 4-node machine: under OO each arrival
    // after the first failure is answered without calling the allocator.
    let mut jobs = vec![(0.0, 100.0, Request::Nodes(2))];
    jobs.extend((0..10).map(|i| (1.0 + i as f64, 1.0, Request::Nodes(3))));
    let w = workload(&jobs);
    let out = run_valid(&w, flat(4), SchedKind::OutOfOrder, AllocKind::Flat);
    // Calls: job 0; then every 3-node arrival is pre-checked away (2 free < 3): no allocator call at all
    // until t = 100, where each start is one call (and each later failure is skipped).
    assert_eq!(out.alloc.attempts, 11);
    assert_eq!(out.alloc.failures, 0);
    assert!(out.skipped_checks >= 10);
    let mesh_jobs = workload(&[
        (0.0, 100.0, rect(2, 2)),
        (1.0, 1.0, rect(3, 3)),
        (2.0, 1.0, rect(3, 3)),
        (3.0, 1.0, rect(3, 3)),
    ]);
    let out = run_valid(
        &mesh_jobs,
        mesh(4, 4),
        SchedKind::OutOfOrder,
        AllocKind::FirstFit,
    );
    // 2x2 at the corner leaves 12 free nodes but no 3x3: one real failure, then two memo hits.
    assert_eq!(out.alloc.failures, 1);
    assert_eq!(out.skipped_checks, 2 + 1 + 1);
}

#[test]
fn validator_rejects_broken_schedules() {
    let w = workload(&[(0.0, 5.0, rect(2, 2)), (1.0, 5.0, rect(2, 1))]);
    let m = mesh(4, 4);
    let good = run_valid(&w, m, SchedKind::Fcfs, AllocKind::FirstFit);
    let at = |x, y, w, h| Placement::Submesh {
        at: Submesh {
            base: pwa_replay::machine::Coord { x, y },
            shape: Shape::new(w, h),
        },
        rotated: false,
    };
    let with = |f: &dyn Fn(&mut Vec<JobRecord>)| {
        let mut o = good.clone();
        f(&mut o.records);
        validate(&w, m, &o)
    };
    assert!(matches!(
        with(&|r| r[1].placement = at(1, 1, 2, 1)),
        Err(ValidationError::Overlap {
            first: JobId(0),
            second: JobId(1),
            ..
        })
    ));
    assert!(matches!(
        with(&|r| r[1].placement = at(3, 3, 2, 1)),
        Err(ValidationError::WrongPlacement { .. })
    ));
    assert!(matches!(
        with(&|r| r[1].placement = at(2, 0, 1, 2)),
        Err(ValidationError::WrongPlacement { .. })
    ));
    let rotated = Placement::Submesh {
        at: Submesh {
            base: pwa_replay::machine::Coord { x: 2, y: 0 },
            shape: Shape::new(1, 2),
        },
        rotated: true,
    };
    assert_eq!(with(&|r| r[1].placement = rotated.clone()), Ok(()));
    assert!(matches!(
        with(&|r| {
            r[1].start = 0.5;
            r[1].end = 5.5;
        }),
        Err(ValidationError::StartsEarly { .. })
    ));
    assert!(matches!(
        with(&|r| r[1].end += 1.0),
        Err(ValidationError::WrongEnd { .. })
    ));
    assert!(matches!(
        with(&|r| {
            r.pop();
        }),
        Err(ValidationError::RecordCount { .. })
    ));
    // Touching in time is fine (half-open intervals): job 1 on job 0's nodes right at its end.
    assert_eq!(
        with(&|r| {
            r[1].placement = at(0, 0, 2, 1);
            r[1].start = 5.0;
            r[1].end = 10.0;
        }),
        Ok(())
    );
    // Flat: capacity.
    let wf = workload(&[(0.0, 5.0, Request::Nodes(3)), (0.0, 5.0, Request::Nodes(3))]);
    let mut o = run_valid(&wf, flat(4), SchedKind::Fcfs, AllocKind::Flat);
    o.records[1].start = 0.0;
    o.records[1].end = 5.0;
    assert!(matches!(
        validate(&wf, flat(4), &o),
        Err(ValidationError::OverCapacity { .. })
    ));
}

#[test]
fn metrics_of_a_hand_worked_schedule() {
    // flat:4. Job 0: 4 nodes, t 0..10. Job 1 (submit 2, 2 nodes, 20 s) waits 8 s: 10..30.
    // Job 2 (submit 3, 2 nodes, 5 s) waits 7 s behind job 1 under FCFS: 10..15.
    let mut w = workload(&[
        (0.0, 10.0, Request::Nodes(4)),
        (2.0, 20.0, Request::Nodes(2)),
        (3.0, 5.0, Request::Nodes(2)),
    ]);
    w.jobs[2].asked_procs = 1;
    let out = run_valid(&w, flat(4), SchedKind::Fcfs, AllocKind::Flat);
    assert_eq!(starts(&out), vec![0.0, 10.0, 10.0]);
    let m = summarize(&w, flat(4), AllocKind::Flat, &out);
    let turn = [10.0, 28.0, 12.0];
    let mean_t = turn.iter().sum::<f64>() / 3.0;
    assert_eq!(m.jobs, 3);
    assert!((m.mean_turnaround_s - mean_t).abs() < 1e-12);
    let var = turn
        .iter()
        .map(|t| (t - mean_t) * (t - mean_t))
        .sum::<f64>()
        / 3.0;
    assert!((m.var_turnaround - var).abs() < 1e-9);
    assert!((m.mean_wait_s - 5.0).abs() < 1e-12);
    assert_eq!(m.max_wait_s, 8.0);
    assert_eq!(m.p50_wait_s, 7.0);
    assert_eq!(m.p95_wait_s, 8.0);
    assert_eq!(m.makespan_s, 30.0);
    // (4·10 + 2·20 + 2·5) / (4 · 30)
    assert!((m.utilization - 90.0 / 120.0).abs() < 1e-12);
    assert!((m.throughput_per_s - 0.1).abs() < 1e-12);
    // max(1, 10/10), max(1, 28/20), max(1, 12/10)
    assert!((m.mean_bounded_slowdown - (1.0 + 1.4 + 1.2) / 3.0).abs() < 1e-12);
    assert!((m.system_power - 0.1 / 5.0).abs() < 1e-12);
    assert!((m.internal_fragmentation - 1.0 / 3.0).abs() < 1e-12);
    assert_eq!(m.alloc_attempts, out.alloc.attempts);
}

#[derive(Default)]
struct Log(Vec<String>);
impl Observer for Log {
    fn on_start(&mut self, now: f64, job: JobId, _p: &Placement) {
        self.0.push(format!("start {} @{now}", job.0));
    }
    fn on_end(&mut self, now: f64, job: JobId, _p: &Placement) {
        self.0.push(format!("end {} @{now}", job.0));
    }
    fn on_instant(&mut self, now: f64, waiting: usize, busy: u32) {
        self.0
            .push(format!("instant @{now} waiting {waiting} busy {busy}"));
    }
}

#[test]
fn observers_see_events_in_order_and_time_series_steps() {
    let w = workload(&[
        (0.0, 10.0, Request::Nodes(3)),
        (1.0, 4.0, Request::Nodes(2)),
        (10.0, 1.0, Request::Nodes(1)),
    ]);
    let mut log = Log::default();
    let out = replay(&w, flat(4), SchedKind::Fcfs, AllocKind::Flat, &mut log).unwrap();
    validate(&w, flat(4), &out).unwrap();
    let expect = [
        "start 0 @0",
        "instant @0 waiting 0 busy 3",
        "instant @1 waiting 1 busy 3",
        "end 0 @10",
        "start 1 @10",
        "start 2 @10",
        "instant @10 waiting 0 busy 3",
        "end 2 @11",
        "instant @11 waiting 0 busy 2",
        "end 1 @14",
        "instant @14 waiting 0 busy 0",
    ];
    assert_eq!(log.0, expect);
    let mut ts = TimeSeries::default();
    replay(&w, flat(4), SchedKind::Fcfs, AllocKind::Flat, &mut ts).unwrap();
    let steps: Vec<(f64, usize, u32)> = ts
        .points
        .iter()
        .map(|p| (p.t, p.waiting, p.busy_nodes))
        .collect();
    assert_eq!(
        steps,
        vec![
            (0.0, 0, 3),
            (1.0, 1, 3),
            (10.0, 0, 3),
            (11.0, 0, 2),
            (14.0, 0, 0)
        ]
    );
}

#[test]
fn same_input_gives_the_same_records() {
    let w = workload(&[
        (0.0, 7.0, rect(3, 2)),
        (0.0, 3.0, rect(2, 4)),
        (1.0, 2.0, rect(4, 1)),
        (1.0, 0.0, rect(1, 1)),
        (2.0, 5.0, rect(4, 4)),
        (2.0, 1.0, rect(2, 2)),
    ]);
    for a in [AllocKind::FirstFit, AllocKind::Mpl, AllocKind::AdaptiveScan] {
        let x = run_valid(&w, mesh(4, 4), SchedKind::Window(3), a);
        let y = run_valid(&w, mesh(4, 4), SchedKind::Window(3), a);
        assert_eq!(x.records, y.records);
        assert_eq!(x.alloc, y.alloc);
    }
}

/// Every allocator call is counted; the wall time is sampled (one call in 16, the first included),
/// so even a single call gives a time.
#[test]
fn allocator_calls_are_counted_and_their_time_sampled() {
    for n in [1, 40] {
        let jobs: Vec<_> = (0..n)
            .map(|i| (f64::from(i), 1.0, Request::Nodes(1)))
            .collect();
        let out = run_valid(&workload(&jobs), flat(4), SchedKind::Fcfs, AllocKind::Flat);
        assert_eq!(out.alloc.attempts, u64::from(n as u32));
        assert!(out.alloc_time_s > 0.0, "{n} calls: no time");
    }
}
