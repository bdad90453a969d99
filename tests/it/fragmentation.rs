//! Fragmentation measured on real replays: the timeline and the measurement agree at every
//! instant, with the engine's own time series, and the measures order policies as expected.

use pwa_replay::engine::{self, NoObserver, TimeSeries, Timeline, measure_fragmentation};
use pwa_replay::machine::{AllocKind, MachineSpec, Shape};
use pwa_replay::sched::SchedKind;
use pwa_replay::workload::Workload;
use pwa_replay::workload::synth::{SideModel, SynthSpec};

fn workload(seed: u64) -> (Workload, MachineSpec) {
    let mesh = Shape::new(16, 16);
    let spec = SynthSpec::new(SideModel::uniform(), mesh, 400, 1.5, 1.0);
    (
        spec.generate(seed).unwrap(),
        MachineSpec::Mesh { size: mesh },
    )
}

#[test]
fn timeline_measurement_and_engine_agree_at_every_instant() {
    let (w, m) = workload(5);
    for alloc in [AllocKind::FirstFit, AllocKind::Mpl, AllocKind::Flat] {
        let mut series = TimeSeries::default();
        let out = engine::replay(&w, m, SchedKind::Fcfs, alloc, &mut series).unwrap();
        let tl = Timeline::new(&w, &out, m);
        let frag = measure_fragmentation(&tl, alloc);
        for s in &frag.steps {
            let owners = tl.owners_at(s.t);
            let busy = owners.iter().filter(|o| o.is_some()).count() as u32;
            assert_eq!(busy, s.busy_nodes, "{alloc} at {}", s.t);
            assert_eq!(
                tl.waiting_at(s.t).len() as u32,
                s.waiting,
                "{alloc} at {}",
                s.t
            );
            assert!(s.lost_nodes == 0 || s.lost_nodes == m.nodes() - s.busy_nodes);
        }
        // The engine's own series: the same state at each of its points.
        for p in &series.points {
            let i = frag.steps.partition_point(|s| s.t <= p.t) - 1;
            let s = frag.steps[i];
            assert_eq!(
                (s.busy_nodes, s.waiting as usize),
                (p.busy_nodes, p.waiting),
                "{alloc} at {}",
                p.t
            );
        }
        let metrics = engine::summarize(&w, m, alloc, &out);
        assert_eq!(metrics.external_fragmentation, frag.external());
        assert_eq!(metrics.frag_delayed_jobs, frag.delayed_jobs());
        assert!((0.0..=1.0).contains(&metrics.external_fragmentation));
        assert!(metrics.mean_free_regions >= 0.0);
        if alloc == AllocKind::Flat {
            assert_eq!(
                metrics.frag_delayed_jobs, 0,
                "counting never fails by shape"
            );
        } else {
            assert!(
                metrics.frag_delayed_jobs > 0,
                "{alloc}: FCFS on a busy mesh meets holes"
            );
            assert!(metrics.mean_free_regions >= 1.0, "{alloc}");
        }
    }
}

#[test]
fn contiguity_costs_capacity_that_node_counting_does_not() {
    // The same workload under FCFS: a contiguous allocator loses more capacity to holes than the
    // node-counting one (which has no holes to lose it to).
    let (w, m) = workload(9);
    let ext = |alloc| {
        let out = engine::replay(&w, m, SchedKind::Fcfs, alloc, &mut NoObserver).unwrap();
        engine::summarize(&w, m, alloc, &out).external_fragmentation
    };
    assert!(ext(AllocKind::FirstFit) > ext(AllocKind::Flat));
}
