//! Sweeps through the real engine: parallel = serial on every deterministic field (the sweep's
//! one-panel experiment run by the executor, in summary order), `auto` loads
//! stop where the knee rule says whatever the thread count, and every cell's schedule validates.

use std::sync::Arc;

use pwa_replay::engine::RunMetrics;
use pwa_replay::experiment::run;
use pwa_replay::experiment::sweep::{Given, SweepSpec};
use pwa_replay::machine::{AllocKind, MachineSpec, Shape};
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::{
    self, AutoLoads, Cell, CellError, CellEvent, CellResult, Grid, KneeRule, LoadSpec, Series,
};
use pwa_replay::workload::Workload;
use pwa_replay::workload::synth::{SideModel, SynthSpec};

const MESH: Shape = Shape::new(8, 8);

fn machine() -> MachineSpec {
    MachineSpec::Mesh { size: MESH }
}

/// 400 jobs, uniform sides on an 8×8 mesh, a rate that saturates FCFS near load factor 1.
fn workload() -> Workload {
    SynthSpec::new(SideModel::uniform(), MESH, 400, 0.5, 5.0)
        .generate(7)
        .expect("valid spec")
}

fn grid() -> Grid {
    Grid {
        schedulers: vec![
            SchedKind::Fcfs.into(),
            SchedKind::OutOfOrder.into(),
            SchedKind::Oocb(8).into(),
            SchedKind::Window(10).into(),
            SchedKind::Delay.into(),
            SchedKind::BypassQueue(20.0).into(),
        ],
        allocators: vec![AllocKind::FirstFit, AllocKind::Mpl, AllocKind::AdaptiveScan],
        loads: vec![0.5, 1.0, 1.5],
        estimates: Vec::new(),
    }
}

/// The metrics with the wall-clock fields cleared.
fn deterministic(r: &[CellResult]) -> Vec<(String, RunMetrics)> {
    r.iter()
        .map(|c| {
            let m = RunMetrics {
                sim_wall_s: 0.0,
                alloc_time_s: 0.0,
                ..c.metrics
            };
            (c.cell.key(), m)
        })
        .collect()
}

fn quiet(_: CellEvent) {}

/// The grid as the command line's sweep runs it: its one-panel experiment, run by the executor on
/// `threads` workers; the results in summary order.
fn sweep_through_the_executor(w: &Workload, threads: usize) -> Vec<CellResult> {
    let g = grid();
    let spec = SweepSpec {
        workload: "synth".into(),
        machine: machine(),
        series: g.series(),
        loads: LoadSpec::List(g.loads.clone()),
        replicas: 1,
        shake: None,
        options: Default::default(),
    };
    let plan = spec.plan().expect("a plan");
    let source = Given {
        workload: Arc::new(w.clone()),
        machine: machine(),
    };
    let results = run::run(
        &plan,
        &spec.units(None),
        &source,
        &|_, compute| compute(),
        &|_| {},
        threads,
    )
    .expect("a run");
    spec.replicas(&results)
        .expect("every cell")
        .into_iter()
        .map(|(cell, reps)| CellResult {
            cell,
            metrics: reps[0],
        })
        .collect()
}

#[test]
fn parallel_sweep_is_bit_identical_to_serial() {
    let (w, cells) = (workload(), grid().cells());
    let serial = sweep_through_the_executor(&w, 1);
    let parallel = sweep_through_the_executor(&w, 2);
    assert_eq!(serial.len(), cells.len());
    assert_eq!(deterministic(&serial), deterministic(&parallel));
    let keys: Vec<String> = serial.iter().map(|r| r.cell.key()).collect();
    let expected: Vec<String> = cells.iter().map(Cell::key).collect();
    assert_eq!(keys, expected, "grid order");
    // The grid is not degenerate: policies and loads differ.
    let t = |key: &str| {
        serial
            .iter()
            .find(|r| r.cell.key() == key)
            .map(|r| r.metrics.mean_wait_s)
    };
    assert!(t("fcfs|ff|1.5") > t("fcfs|ff|0.5"));
    assert_ne!(t("fcfs|ff|1.5"), t("oo|ff|1.5"));
}

#[test]
fn every_cell_validates() {
    let w = workload();
    for cell in grid().cells() {
        let run = sweep::replay_cell(&w, machine(), &cell, true)
            .unwrap_or_else(|e| panic!("{cell}: {e}"));
        assert_eq!(run.metrics.jobs, 400, "{cell}");
        assert_eq!(run.outcome.records.len(), 400, "{cell}");
        // Load scaling: the first arrival at 0, interarrival times divided by the load factor.
        let (a, b) = (&run.workload.jobs[1], &w.jobs[1]);
        let expect = (b.submit - w.jobs[0].submit) / cell.load_factor;
        assert_eq!(a.submit, expect, "{cell}");
    }
}

#[test]
fn auto_loads_follow_the_knee_rule_for_any_thread_count() {
    let w = workload();
    let series: Vec<Series> = Grid {
        schedulers: vec![
            SchedKind::Fcfs.into(),
            SchedKind::Window(10).into(),
            SchedKind::OutOfOrder.into(),
        ],
        allocators: vec![AllocKind::FirstFit],
        loads: vec![],
        estimates: Vec::new(),
    }
    .series();
    let auto = AutoLoads::default();
    let run = |c: &Cell| -> Result<RunMetrics, CellError> {
        Ok(sweep::replay_cell(&w, machine(), c, false)?.metrics)
    };
    let one = sweep::run_auto_with(&series, &auto, 1, &run, &quiet).expect("serial");
    let two = sweep::run_auto_with(&series, &auto, 2, &run, &quiet).expect("parallel");
    assert_eq!(deterministic(&one), deterministic(&two));
    let rule = KneeRule::default();
    // Every series covers the same loads: up to the end the latest knee needs (or the cap).
    let curves: Vec<Vec<(f64, f64)>> = series
        .iter()
        .map(|s| {
            one.iter()
                .filter(|r| r.cell.series() == *s)
                .map(|r| (r.cell.load_factor, r.metrics.mean_turnaround_s))
                .collect()
        })
        .collect();
    let needs = |c: &Vec<(f64, f64)>| match rule.first_saturated(c) {
        Some(i) => i + 1 + auto.margin as usize,
        None => 30,
    };
    let end = curves.iter().map(needs).max().expect("series");
    for (s, curve) in series.iter().zip(&curves) {
        assert_eq!(curve[0].0, 0.1, "{s}");
        assert_eq!(curve.len(), end, "{s}: {curve:?}");
    }
    let knees = sweep::knees(&one, &rule);
    assert_eq!(knees.len(), series.len());
    assert!(
        knees.iter().any(|(_, k)| k.saturated_at.is_some()),
        "something saturates"
    );
}
