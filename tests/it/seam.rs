//! The resource seam: starting on a chosen placement, suspend/resume with run segments and stale
//! departures, killing at the estimate, the planning query on snapshots, and the validator on node
//! ids for every topology.

use std::collections::{BTreeSet, VecDeque};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use pwa_replay::engine::{
    Engine, EngineError, JobRecord, NoObserver, Observer, Outcome, PolicyProblem, ReplayOptions,
    Segment, ValidationError, replay_with, summarize, validate,
};
use pwa_replay::machine::{AllocKind, MachineSpec, Placement};
use pwa_replay::packed::PackedTime;
use pwa_replay::resource::{Block, Coord, Dims, Shape, Subcube, Submesh};
use pwa_replay::sched::{Reservation, SchedKind, Scheduler, System};
use pwa_replay::workload::{EstimateModel, JobId, Request, Workload};

use crate::engine::{flat, mesh, rect, workload};
use crate::support::keep_regressions;

/// What a scripted scheduler saw: departure passes, observer events.
type Log = Arc<Mutex<Vec<String>>>;

/// A scheduler driven by a closure per event, logging what it sees.
struct Script<F: FnMut(&str, JobId, &mut dyn System) + Send> {
    act: F,
    log: Log,
}

impl<F: FnMut(&str, JobId, &mut dyn System) + Send> Scheduler for Script<F> {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        (self.act)("arrival", job, sys);
    }
    fn on_departure(&mut self, sys: &mut dyn System) {
        let departed = sys.departed().to_vec();
        self.log
            .lock()
            .unwrap()
            .push(format!("departure {} {:?}", sys.now(), departed));
        for job in departed {
            (self.act)("departure", job, sys);
        }
    }
    fn on_timer(&mut self, token: u64, sys: &mut dyn System) {
        (self.act)("timer", JobId(token as u32), sys);
    }
    fn waiting(&self) -> usize {
        0
    }
}

/// Logs suspend/resume/start/end.
struct Events(Log);
impl Observer for Events {
    fn on_start(&mut self, now: f64, job: JobId, _p: &Placement) {
        self.0
            .lock()
            .unwrap()
            .push(format!("start {now} {}", job.0));
    }
    fn on_end(&mut self, now: f64, job: JobId, _p: &Placement) {
        self.0.lock().unwrap().push(format!("end {now} {}", job.0));
    }
    fn on_suspend(&mut self, now: f64, job: JobId, _p: &Placement) {
        self.0
            .lock()
            .unwrap()
            .push(format!("suspend {now} {}", job.0));
    }
    fn on_resume(&mut self, now: f64, job: JobId, _p: &Placement) {
        self.0
            .lock()
            .unwrap()
            .push(format!("resume {now} {}", job.0));
    }
}

fn run_script<F>(w: &Workload, m: MachineSpec, alloc: AllocKind, act: F) -> (Outcome, Vec<String>)
where
    F: FnMut(&str, JobId, &mut dyn System) + Send + 'static,
{
    let log: Log = Arc::default();
    let sched = Script {
        act,
        log: Arc::clone(&log),
    };
    let out = Engine::new(w, Box::new(sched), alloc.build(m).unwrap())
        .run(&mut Events(Arc::clone(&log)))
        .expect("replay");
    validate(w, m, &out).expect("valid schedule");
    let log = log.lock().unwrap().clone();
    (out, log)
}

/// Job 0 (4 nodes, 10 s) is suspended when job 1 (4 nodes, 2 s) arrives at t = 1 and resumed when
/// job 1 ends at t = 3: it ends at 12, in segments [0, 1) and [3, 12). Its departure scheduled for
/// t = 10 before the suspension is stale: no departure pass happens at 10.
#[test]
fn suspend_and_resume_split_a_job_into_segments() {
    let w = workload(&[
        (0.0, 10.0, Request::Nodes(4)),
        (1.0, 2.0, Request::Nodes(4)),
    ]);
    let (out, log) = run_script(&w, flat(4), AllocKind::Flat, |ev, job, sys| {
        match (ev, job.0) {
            ("arrival", 0) => assert!(sys.try_start(job)),
            ("arrival", 1) => {
                assert!(!sys.try_start(job), "the machine is full");
                assert!(sys.suspend(JobId(0)));
                assert!(sys.running_jobs().is_empty());
                assert!(sys.try_start(job));
            }
            ("departure", 1) => assert!(sys.resume(JobId(0))),
            _ => {}
        }
    });
    assert_eq!(
        out.records[0],
        JobRecord {
            start: 0.0,
            end: 12.0,
            placement: Placement::Nodes(4),
            killed: false,
            reserved: None
        }
    );
    assert_eq!((out.records[1].start, out.records[1].end), (1.0, 3.0));
    let seg = |start, end| Segment {
        job: JobId(0),
        start,
        end,
    };
    assert_eq!(out.segments, [seg(0.0, 1.0), seg(3.0, 12.0)]);
    assert_eq!(
        log,
        [
            "start 0 0",
            "suspend 1 0",
            "start 1 1",
            "end 3 1",
            "departure 3 [JobId(1)]",
            "resume 3 0",
            "end 12 0",
            "departure 12 [JobId(0)]"
        ]
    );
    let m = summarize(&w, flat(4), AllocKind::Flat, &out);
    assert_eq!(m.mean_turnaround_s, (12.0 + 2.0) / 2.0);
}

/// Resuming needs the job's own nodes free; suspending or resuming in the wrong state is a policy
/// error, not a panic.
#[test]
fn resume_needs_the_same_nodes_and_misuse_is_an_error() {
    let w = workload(&[(0.0, 4.0, rect(2, 2)), (1.0, 5.0, rect(2, 2))]);
    let (out, _) = run_script(&w, mesh(2, 2), AllocKind::FirstFit, |ev, job, sys| {
        match (ev, job.0) {
            ("arrival", 0) => assert!(sys.try_start(job)),
            ("arrival", 1) => {
                assert!(sys.suspend(JobId(0)));
                assert!(sys.try_start(job));
                assert!(!sys.resume(JobId(0)), "job 1 holds its nodes");
            }
            ("departure", 1) => assert!(sys.resume(JobId(0))),
            _ => {}
        }
    });
    assert_eq!(out.records[0].end, 9.0, "1 s before, 3 s after job 1's 5 s");
    let alloc = AllocKind::Flat.build(flat(4)).unwrap();
    let bad = Script {
        act: |ev: &str, job: JobId, sys: &mut dyn System| {
            if ev == "arrival" {
                sys.resume(job);
            }
        },
        log: Arc::default(),
    };
    let err = Engine::new(&w, Box::new(bad), alloc)
        .run(&mut NoObserver)
        .unwrap_err();
    assert!(matches!(
        err,
        EngineError::Policy {
            problem: PolicyProblem::NotSuspended,
            ..
        }
    ));
}

/// A scheduler may choose the placement; the engine checks that it is free and covers the request.
#[test]
fn try_start_on_takes_a_free_placement_of_the_right_shape() {
    let at = |x, y, w, h| Placement::Submesh {
        at: Submesh {
            base: Coord { x, y },
            shape: Shape::new(w, h),
        },
        rotated: false,
    };
    let w = workload(&[(0.0, 5.0, rect(2, 2)), (0.0, 5.0, rect(2, 2))]);
    let (out, _) = run_script(
        &w,
        mesh(4, 4),
        AllocKind::FirstFit,
        move |ev, job, sys| match (ev, job.0) {
            ("arrival", 0) => assert!(sys.try_start_on(job, at(2, 2, 2, 2))),
            ("arrival", 1) => {
                assert!(!sys.try_start_on(job, at(1, 1, 2, 2)), "overlaps job 0");
                assert!(sys.try_start(job), "first fit: the lower left corner");
            }
            _ => {}
        },
    );
    assert_eq!(out.records[0].placement, at(2, 2, 2, 2));
    assert_eq!(out.records[1].placement, at(0, 0, 2, 2));
    let wrong = Script {
        act: move |ev: &str, job: JobId, sys: &mut dyn System| {
            if ev == "arrival" {
                sys.try_start_on(job, at(0, 0, 1, 4));
            }
        },
        log: Arc::default(),
    };
    let err = Engine::new(
        &w,
        Box::new(wrong),
        AllocKind::FirstFit.build(mesh(4, 4)).unwrap(),
    )
    .run(&mut NoObserver)
    .unwrap_err();
    assert!(matches!(
        err,
        EngineError::Policy {
            problem: PolicyProblem::WrongPlacement,
            ..
        }
    ));
}

/// `--kill-at-estimate`: a job whose run time exceeds its estimate ends at the estimate.
#[test]
fn kill_at_estimate_ends_overrunning_jobs() {
    let mut w = workload(&[
        (0.0, 10.0, Request::Nodes(2)),
        (0.0, 3.0, Request::Nodes(2)),
    ]);
    w.jobs[0].requested = PackedTime::new(4.0);
    w.jobs[1].requested = PackedTime::new(5.0);
    let report = w.set_estimates(EstimateModel::User);
    assert_eq!((report.missing, report.overrun), (0, 1));
    let kill = ReplayOptions {
        kill_at_estimate: true,
        ..ReplayOptions::default()
    };
    for (opts, end0, killed) in [(kill, 4.0, 1), (ReplayOptions::default(), 10.0, 0)] {
        let out = replay_with(
            &w,
            flat(2),
            SchedKind::Fcfs,
            AllocKind::Flat,
            opts,
            &mut NoObserver,
        )
        .unwrap();
        validate(&w, flat(2), &out).expect("valid");
        assert_eq!(out.records[0].end, end0);
        assert_eq!(out.records[1].start, end0, "job 1 waits for job 0");
        let m = summarize(&w, flat(2), AllocKind::Flat, &out);
        assert_eq!(m.killed_jobs, killed);
    }
}

/// The planning query: the earliest start if running jobs end at their estimates (a job past its
/// estimate counts as ending now); it plans on a snapshot and leaves the machine alone.
#[test]
fn earliest_start_plans_on_estimated_ends() {
    let mut w = workload(&[
        (0.0, 10.0, Request::Nodes(3)),
        (0.0, 20.0, Request::Nodes(1)),
        (1.0, 1.0, Request::Nodes(4)),
    ]);
    w.jobs[0].estimate = 6.0;
    w.jobs[1].estimate = 8.0;
    /// The time of each planning query and its answer.
    type Plans = Arc<Mutex<Vec<(f64, Option<Reservation>)>>>;
    let plans: Plans = Arc::default();
    let seen = Arc::clone(&plans);
    let (out, _) = run_script(&w, flat(4), AllocKind::Flat, move |ev, job, sys| {
        let record = |sys: &mut dyn System| {
            let plan = sys.earliest_start(JobId(2));
            seen.lock().unwrap().push((sys.now(), plan));
        };
        match (ev, job.0) {
            ("arrival", 0 | 1) => assert!(sys.try_start(job)),
            ("arrival", 2) => {
                record(sys);
                assert_eq!(sys.free_nodes(), 0, "planning changed nothing");
                sys.set_timer(7.0, 2);
            }
            ("timer", 2) => record(sys),
            ("departure", 1) => assert!(sys.try_start(JobId(2))),
            _ => {}
        }
    });
    let r = |start| {
        Some(Reservation {
            start,
            placement: Placement::Nodes(4),
        })
    };
    // At t = 1: job 0 ends by estimate at 6, job 1 at 8 → all 4 nodes at 8.
    // At t = 7: job 0 overran its estimate (taken to end now), job 1 still ends at 8.
    assert_eq!(*plans.lock().unwrap(), [(1.0, r(8.0)), (7.0, r(8.0))]);
    assert_eq!(out.records[2].start, 20.0);
}

fn job_at(start: f64, end: f64, placement: Placement) -> JobRecord {
    JobRecord {
        start,
        end,
        placement,
        killed: false,
        reserved: None,
    }
}

fn outcome(records: Vec<JobRecord>) -> Outcome {
    Outcome {
        records,
        ..Default::default()
    }
}

/// The validator works on node ids: overlapping subcubes and wrapped torus boxes are caught.
#[test]
fn validator_checks_subcubes_and_torus_boxes_by_node() {
    let cube = MachineSpec::Hypercube { dim: 4 };
    let w = workload(&[
        (0.0, 5.0, Request::Subcube(2)),
        (0.0, 5.0, Request::Subcube(1)),
    ]);
    let c = |addr, mask| Placement::Subcube(Subcube::new(4, addr, mask));
    let ok = outcome(vec![
        job_at(0.0, 5.0, c(0b0000, 0b0011)),
        job_at(0.0, 5.0, c(0b0100, 0b0001)),
    ]);
    assert_eq!(validate(&w, cube, &ok), Ok(()));
    let clash = outcome(vec![
        job_at(0.0, 5.0, c(0b0000, 0b0011)),
        job_at(0.0, 5.0, c(0b0010, 0b1000)),
    ]);
    assert!(matches!(
        validate(&w, cube, &clash),
        Err(ValidationError::Overlap { node: 2, .. })
    ));
    let wrong_dim = outcome(vec![
        job_at(0.0, 5.0, c(0b0000, 0b0001)),
        job_at(0.0, 5.0, c(0b0100, 0b0001)),
    ]);
    assert!(matches!(
        validate(&w, cube, &wrong_dim),
        Err(ValidationError::WrongPlacement { .. })
    ));

    let dims = Dims::new(&[4, 4]).unwrap();
    let torus = MachineSpec::Grid { dims, wrap: true };
    let two = Dims::new(&[2, 2]).unwrap();
    let wt = workload(&[
        (0.0, 5.0, Request::Block(two)),
        (0.0, 5.0, Request::Block(two)),
    ]);
    let b = |base| Placement::Block(Block { base, extent: two });
    // (3,3) wraps to (3,3),(0,3),(3,0),(0,0); (0,0)+2x2 shares node 0.
    let wrapped = outcome(vec![job_at(0.0, 5.0, b(15)), job_at(0.0, 5.0, b(0))]);
    assert!(matches!(
        validate(&wt, torus, &wrapped),
        Err(ValidationError::Overlap { node: 0, .. })
    ));
    let mesh3 = MachineSpec::Grid { dims, wrap: false };
    assert!(matches!(
        validate(&wt, mesh3, &wrapped),
        Err(ValidationError::WrongPlacement { .. })
    ));
    let apart = outcome(vec![job_at(0.0, 5.0, b(15)), job_at(0.0, 5.0, b(5))]);
    assert_eq!(validate(&wt, torus, &apart), Ok(()));
}

/// Segments must span start to end, not overlap, and add up to the service; only an overrunning
/// job may be marked killed.
#[test]
fn validator_checks_segments_and_kills() {
    let w = workload(&[(0.0, 10.0, Request::Nodes(2))]);
    let seg = |start, end| Segment {
        job: JobId(0),
        start,
        end,
    };
    let with = |segments: Vec<Segment>, end: f64| Outcome {
        segments,
        ..outcome(vec![job_at(0.0, end, Placement::Nodes(2))])
    };
    assert_eq!(
        validate(
            &w,
            flat(2),
            &with(vec![seg(0.0, 4.0), seg(6.0, 12.0)], 12.0)
        ),
        Ok(())
    );
    for bad in [
        with(vec![seg(0.0, 4.0), seg(6.0, 11.0)], 11.0),
        with(vec![seg(0.0, 6.0), seg(5.0, 9.0)], 9.0),
        with(vec![seg(0.0, 4.0), seg(6.0, 12.0)], 13.0),
    ] {
        assert!(
            matches!(
                validate(&w, flat(2), &bad),
                Err(ValidationError::WrongSegments { .. })
            ),
            "{bad:?}"
        );
    }
    let mut killed = outcome(vec![job_at(0.0, 10.0, Placement::Nodes(2))]);
    killed.records[0].killed = true;
    assert!(matches!(
        validate(&w, flat(2), &killed),
        Err(ValidationError::WrongSegments { .. })
    ));
}

/// Round robin over random jobs on a mesh: at every slice end all running jobs are suspended and
/// the queue is served again in order (resume the suspended, start the new). The validator must pass
/// and every job must receive exactly its run time.
struct RoundRobin {
    queue: VecDeque<JobId>,
    started: BTreeSet<JobId>,
    slice: f64,
    armed: bool,
}

impl RoundRobin {
    fn fill(&mut self, sys: &mut dyn System) {
        for _ in 0..self.queue.len() {
            let j = self.queue.pop_front().expect("queued");
            let ok = if self.started.contains(&j) {
                sys.resume(j)
            } else {
                sys.try_start(j)
            };
            if ok {
                self.started.insert(j);
            } else {
                self.queue.push_back(j);
            }
        }
        if !self.armed && !self.queue.is_empty() {
            self.armed = true;
            sys.set_timer(sys.now() + self.slice, 0);
        }
    }
}

impl Scheduler for RoundRobin {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.queue.push_back(job);
        self.fill(sys);
    }
    fn on_departure(&mut self, sys: &mut dyn System) {
        self.fill(sys);
    }
    fn on_timer(&mut self, _token: u64, sys: &mut dyn System) {
        self.armed = false;
        let mut running: Vec<JobId> = sys.running_jobs().iter().map(|r| r.job).collect();
        running.sort();
        for j in running {
            assert!(sys.suspend(j));
            self.queue.push_back(j);
        }
        self.fill(sys);
    }
    fn waiting(&self) -> usize {
        self.queue.len()
    }
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(64)))]

    #[test]
    fn time_sharing_serves_every_job_exactly(
        jobs in prop::collection::vec((0u32..20, 0u32..12, 1u32..4, 1u32..4), 1..25),
        slice in 1u32..6,
    ) {
        let mut t = 0.0;
        let spec: Vec<(f64, f64, Request)> = jobs
            .iter()
            .map(|&(gap, run, w, h)| {
                t += f64::from(gap) / 2.0;
                (t, f64::from(run), rect(w, h))
            })
            .collect();
        let w = workload(&spec);
        let m = mesh(4, 4);
        let sched = RoundRobin {
            queue: VecDeque::new(),
            started: BTreeSet::new(),
            slice: f64::from(slice),
            armed: false,
        };
        let out = Engine::new(&w, Box::new(sched), AllocKind::FirstFit.build(m).unwrap())
            .run(&mut NoObserver)
            .expect("replay");
        prop_assert_eq!(validate(&w, m, &out), Ok(()));
        for (job, rec) in w.jobs.iter().zip(&out.records) {
            let segs: Vec<&Segment> = out.segments.iter().filter(|s| s.job == job.id).collect();
            let served: f64 = if segs.is_empty() {
                rec.end - rec.start
            } else {
                segs.iter().map(|s| s.end - s.start).sum()
            };
            prop_assert!((served - job.runtime).abs() < 1e-9, "{served} vs {}", job.runtime);
        }
    }
}
