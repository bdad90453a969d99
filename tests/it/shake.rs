//! Input shaking through the real engine: replicas are deterministic by seed, and the 95% interval
//! of N shaken replicas covers the shaking mean (estimated from many replicas) about 95% of the
//! time.

use pwa_replay::engine::ReplayOptions;
use pwa_replay::machine::{AllocKind, MachineSpec, Shape};
use pwa_replay::replicate::{Estimate, seed_for};
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::{self, Cell};
use pwa_replay::workload::EstimateModel;
use pwa_replay::workload::shake::ShakeModel;
use pwa_replay::workload::synth::{SideModel, SynthSpec};

const MESH: Shape = Shape::new(8, 8);

fn cell() -> Cell {
    Cell {
        scheduler: SchedKind::Fcfs.into(),
        allocator: AllocKind::FirstFit,
        load_factor: 1.0,
        estimate: EstimateModel::Exact,
    }
}

/// Mean turnaround of the replica `rep` of the trial `key` (80 jobs, uniform sides on 8×8,
/// submit times shaken by ±2 time units, a load where FCFS queues).
fn replica(key: &str, rep: usize) -> f64 {
    let w = SynthSpec::new(SideModel::uniform(), MESH, 80, 0.5, 5.0)
        .generate(11)
        .expect("valid spec");
    let model = ShakeModel {
        submit_s: 2.0,
        runtime_frac: 0.0,
    };
    let machine = MachineSpec::Mesh { size: MESH };
    let seed = seed_for(key, rep);
    sweep::replay_replica(
        &w,
        machine,
        &cell(),
        ReplayOptions::default(),
        Some((&model, seed)),
        true,
    )
    .expect("replays")
    .metrics
    .mean_turnaround_s
}

#[test]
fn a_replica_is_a_pure_function_of_its_seed() {
    assert_eq!(replica("a", 3).to_bits(), replica("a", 3).to_bits());
    let spread: Vec<f64> = (0..8).map(|r| replica("a", r)).collect();
    assert!(
        spread.iter().any(|x| *x != spread[0]),
        "shaking moves the result: {spread:?}"
    );
}

#[test]
fn ten_replica_intervals_cover_the_shaking_mean() {
    // The "true" mean: 600 replicas (its own error is about 1/8 of a 10-replica half-width).
    let truth = Estimate::from_samples(&(0..600).map(|r| replica("truth", r)).collect::<Vec<_>>());
    let trials = 120;
    let covered = (0..trials)
        .filter(|t| {
            let xs: Vec<f64> = (0..10).map(|r| replica(&format!("trial-{t}"), r)).collect();
            let e = Estimate::from_samples(&xs);
            e.ci_low <= truth.mean && truth.mean <= e.ci_high
        })
        .count();
    let rate = covered as f64 / f64::from(trials);
    eprintln!(
        "coverage {rate} ({covered}/{trials}), truth {:.2} ± {:.2}",
        truth.mean,
        truth.half_width()
    );
    // Nominal 95%; binomial s.d. of the rate over 120 trials is 2%.
    assert!(
        rate >= 0.88,
        "coverage {rate} ({covered}/{trials}), truth {truth:?}"
    );
}
