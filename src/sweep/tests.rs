//! Unit tests of the sweep driver with a fake, deterministic replay.

use std::time::Duration;

use super::*;
use crate::workload::EstimateModel;

fn grid() -> Grid {
    Grid {
        schedulers: vec![
            SchedKind::Fcfs.into(),
            SchedKind::Window(240).into(),
            SchedKind::OutOfOrder.into(),
        ],
        allocators: vec![AllocKind::Mpl, AllocKind::FirstFit],
        loads: vec![0.5, 1.0, 1.5],
        estimates: Vec::new(),
    }
}

/// Turnaround 100 s at light load, exploding past a per-scheduler saturation load.
fn fake(cell: &Cell) -> Result<RunMetrics, CellError> {
    let sat = match cell.scheduler.builtin() {
        Some(SchedKind::Fcfs) => 0.55,
        Some(SchedKind::Window(_)) => 1.25,
        _ => 9.0,
    };
    // Jitter the timing so workers interleave differently from run to run.
    std::thread::sleep(Duration::from_micros(cell.seed() % 300));
    let excess = (cell.load_factor - sat).max(0.0);
    Ok(RunMetrics {
        jobs: 10,
        mean_turnaround_s: 100.0 * (1.0 + 0.1 * cell.load_factor) + 1e4 * excess,
        max_wait_s: cell.seed() as f64,
        sim_wall_s: cell.seed() as f64 * 1e-9,
        ..RunMetrics::default()
    })
}

fn quiet(_: CellEvent) {}

#[test]
fn grid_order_is_scheduler_major_then_allocator_then_load() {
    let cells = grid().cells();
    assert_eq!(cells.len(), 18);
    assert_eq!(cells[0].key(), "fcfs|mpl|0.5");
    assert_eq!(cells[2].key(), "fcfs|mpl|1.5");
    assert_eq!(cells[3].key(), "fcfs|ff|0.5");
    assert_eq!(cells[6].key(), "window:240|mpl|0.5");
    assert_eq!(cells[17].key(), "oo|ff|1.5");
    assert_eq!(grid().series()[1].to_string(), "fcfs + ff");
}

#[test]
fn seeds_depend_on_the_labels_only() {
    let a = grid().cells();
    let b = Grid {
        loads: vec![1.5, 0.5],
        ..grid()
    }
    .cells();
    let seed_of = |cells: &[Cell], key: &str| cells.iter().find(|c| c.key() == key).map(Cell::seed);
    assert_eq!(seed_of(&a, "oo|ff|1.5"), seed_of(&b, "oo|ff|1.5"));
    let mut seeds: Vec<u64> = a.iter().map(Cell::seed).collect();
    seeds.sort_unstable();
    seeds.dedup();
    assert_eq!(seeds.len(), a.len(), "distinct cells get distinct seeds");
}

#[test]
fn auto_runs_every_series_to_the_end_the_last_knee_needs() {
    let loads_of = |out: &[CellResult], s: SchedKind| -> Vec<f64> {
        out.iter()
            .filter(|r| r.cell.scheduler == s.into() && r.cell.allocator == AllocKind::Mpl)
            .map(|r| r.cell.load_factor)
            .collect()
    };
    let auto = AutoLoads::default();
    // FCFS saturates at 0.6 (≈ 101 s → 1106 s) and alone would stop at 0.8; Window-240 saturates
    // at 1.3 and needs points through 1.5: both series cover 0.1 … 1.5.
    let two: Vec<Series> = Grid {
        schedulers: vec![SchedKind::Fcfs.into(), SchedKind::Window(240).into()],
        ..grid()
    }
    .series();
    let out = run_auto_with(&two, &auto, 2, &fake, &quiet).unwrap();
    let expected: Vec<f64> = (1..=15).map(|i| f64::from(i) / 10.0).collect();
    assert_eq!(loads_of(&out, SchedKind::Fcfs), expected);
    assert_eq!(loads_of(&out, SchedKind::Window(240)), expected);
    assert_eq!(out.len(), 4 * 15);
    // Margin 0 (`auto:…:0`, the window-k trace figures): up to the first load factor past the last
    // knee, Window-240's first saturated point 1.3.
    let first_past = AutoLoads { margin: 0, ..auto };
    let out = run_auto_with(&two, &first_past, 2, &fake, &quiet).unwrap();
    let expected: Vec<f64> = (1..=13).map(|i| f64::from(i) / 10.0).collect();
    assert_eq!(loads_of(&out, SchedKind::Fcfs), expected);
    assert_eq!(loads_of(&out, SchedKind::Window(240)), expected);
    // OO never saturates: every series runs to the cap.
    let series = grid().series();
    let out = run_auto_with(&series, &auto, 1, &fake, &quiet).unwrap();
    for s in [
        SchedKind::Fcfs,
        SchedKind::Window(240),
        SchedKind::OutOfOrder,
    ] {
        assert_eq!(loads_of(&out, s).len(), 30, "{s}");
    }
    let knees = knees(&out, &auto.knee);
    assert_eq!(knees.len(), series.len());
    assert_eq!(knees[0].1.knee, Some(0.5));
    assert_eq!(knees[0].1.saturated_at, Some(0.6));
    assert_eq!(knees[4].1.saturated_at, None);
}

#[test]
fn auto_is_identical_for_any_thread_count() {
    let series = grid().series();
    let auto = AutoLoads::default();
    let serial = run_auto_with(&series, &auto, 1, &fake, &quiet).unwrap();
    for threads in [2, 5] {
        let par = run_auto_with(&series, &auto, threads, &fake, &quiet).unwrap();
        assert_eq!(par, serial, "threads = {threads}");
    }
}

#[test]
fn auto_reports_errors_and_stops() {
    let series = grid().series();
    let failing = |c: &Cell| -> Result<RunMetrics, CellError> {
        if c.load_factor >= 0.3 && c.series().to_string() == "oo + mpl" {
            Err("nope".into())
        } else {
            fake(c)
        }
    };
    let err = run_auto_with(&series, &AutoLoads::default(), 2, &failing, &quiet).unwrap_err();
    assert!(
        matches!(&err, SweepError::Cell { cell, .. } if cell == "oo + mpl @ 0.3"),
        "{err}"
    );
}

#[test]
fn estimates_are_a_grid_dimension_labelled_only_when_not_exact() {
    let g = Grid {
        schedulers: vec![SchedKind::Easy.into()],
        allocators: vec![AllocKind::Flat],
        loads: vec![1.0],
        estimates: vec![EstimateModel::Exact, EstimateModel::User],
    };
    let keys: Vec<String> = g.cells().iter().map(Cell::key).collect();
    assert_eq!(keys, ["easy|flat|1", "easy|flat|1|user"]);
    let labels: Vec<String> = g.series().iter().map(ToString::to_string).collect();
    assert_eq!(labels, ["easy + flat", "easy + flat (user)"]);
    let exact_only = Grid {
        estimates: Vec::new(),
        ..g
    };
    assert_eq!(exact_only.cells().len(), 1);
}

#[test]
fn a_scheduler_blind_to_estimates_is_replayed_under_the_first_model_only() {
    let g = Grid {
        schedulers: vec![
            SchedKind::Fcfs.into(),
            SchedKind::Easy.into(),
            SchedKind::OutOfOrder.into(),
        ],
        allocators: vec![AllocKind::Flat],
        loads: vec![1.0],
        estimates: vec![EstimateModel::Exact, EstimateModel::User],
    };
    let textbook = ReplayOptions::default();
    let (series, once) = g.series_once(&textbook);
    let labels: Vec<String> = series.iter().map(ToString::to_string).collect();
    assert_eq!(
        labels,
        [
            "fcfs + flat",
            "easy + flat",
            "easy + flat (user)",
            "oo + flat"
        ]
    );
    assert_eq!(once, [SchedKind::Fcfs, SchedKind::OutOfOrder]);
    // Killing jobs at their estimates, or booking processors until them, makes every schedule
    // depend on them.
    let kill = ReplayOptions {
        kill_at_estimate: true,
        ..ReplayOptions::default()
    };
    let booked = ReplayOptions {
        semantics: crate::sched::semantics::Profile::PyssSc15.semantics(),
        ..ReplayOptions::default()
    };
    for options in [kill, booked] {
        assert_eq!(g.series_once(&options), (g.series(), Vec::new()));
    }
    // One model, or none: nothing repeats.
    let single = Grid {
        estimates: vec![EstimateModel::User],
        ..g.clone()
    };
    assert_eq!(single.series_once(&textbook).0, single.series());
    assert!(
        Grid {
            estimates: Vec::new(),
            ..g
        }
        .series_once(&textbook)
        .1
        .is_empty()
    );
}

/// The claim [`Grid::series_once`] rests on: under every semantics profile whose engine does not
/// read estimates, every scheduler that does not plan with them gives the same schedule under
/// exact estimates and under estimates three times too long.
#[test]
fn schedulers_that_do_not_plan_with_estimates_schedule_the_same_under_any() {
    use crate::engine::{NoObserver, replay_with};
    use crate::resource::MachineSpec;
    use crate::sched::SCHEDULERS;
    use crate::sched::semantics::Profile;
    use crate::workload::synth::SynthSpec;
    use crate::workload::synth_hypercube::HypercubeSpec;

    let (mesh, seed) = SynthSpec::from_label("synth:uniform,mesh=8x8,jobs=300,rate=3").unwrap();
    let mesh_jobs = mesh.generate(seed).unwrap();
    let (cube, seed) =
        HypercubeSpec::from_label("synth:hypercube,dim=5,load=0.9,window=400").unwrap();
    let cube_jobs = cube.generate(seed).unwrap();
    let machines = [
        (
            &mesh_jobs,
            MachineSpec::Mesh { size: mesh.mesh },
            AllocKind::Mpl,
        ),
        (&cube_jobs, cube.machine(), AllocKind::Buddy),
    ];
    let mut planners_differ = false;
    let blind_profiles = Profile::ALL.into_iter().map(|p| ReplayOptions {
        semantics: p.semantics(),
        ..ReplayOptions::default()
    });
    let blind_profiles: Vec<ReplayOptions> = blind_profiles
        .filter(|o| !o.engine_reads_estimates())
        .collect();
    assert!(blind_profiles.len() >= 2, "textbook and cqsim");
    for options in &blind_profiles {
        for info in SCHEDULERS {
            let sched: SchedKind = info.example.parse().unwrap();
            let schedule = |w: &Workload, m, a, model| {
                let mut w = w.clone();
                w.set_estimates(model);
                replay_with(&w, m, sched, a, options.clone(), &mut NoObserver).ok()
            };
            let Some((exact, long)) = machines.iter().find_map(|&(w, m, a)| {
                let exact = schedule(w, m, a, EstimateModel::Exact)?;
                Some((exact, schedule(w, m, a, EstimateModel::Factor(3.0))?))
            }) else {
                panic!("{sched} replays on neither machine");
            };
            let profile = options.semantics.profile;
            if sched.plans_with_estimates() {
                planners_differ |= exact.records != long.records;
            } else {
                assert_eq!(
                    exact.records, long.records,
                    "{sched} depends on estimates under {profile}"
                );
            }
        }
    }
    assert!(
        planners_differ,
        "the workload makes estimates matter to backfilling"
    );
}
