//! Fragmentation measured on real replays: the timeline and the measurement agree at every
//! instant, with the engine's own time series, and the measures order policies as expected; the
//! measures taken during the run ([`FragMeter`]) equal, bit for bit, the replay played afterwards
//! on real logs, every scheduler and allocator kind.

use std::path::PathBuf;

use pwa_replay::catalog::Catalog;
use pwa_replay::engine::{
    self, Dilation, FragMeter, FragSummary, NoObserver, ReplayOptions, TimeSeries, Timeline,
    measure_fragmentation, summarize_fragmentation,
};
use pwa_replay::machine::{AllocKind, MachineSpec, Shape};
use pwa_replay::sched::SchedKind;
use pwa_replay::swf::{ReadOptions, read_all};
use pwa_replay::workload::synth::{SideModel, SynthSpec};
use pwa_replay::workload::{Conversion, Workload};

use crate::real_logs::real_logs;

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

/// The measures' bits, so that 0.0 and -0.0 (and NaN payloads) count as different.
fn bits(f: &FragSummary) -> [u64; 5] {
    [
        f.external.to_bits(),
        f.external_head.to_bits(),
        f.delayed_jobs,
        f.delayed_share.to_bits(),
        f.mean_free_regions.to_bits(),
    ]
}

/// Replays `w` with a [`FragMeter`] watching and checks its summary against the replay played
/// again afterwards (`summarize_fragmentation` over the timeline); the number of jobs it found
/// delayed.
fn meter_agrees(
    w: &Workload,
    m: MachineSpec,
    sched: &str,
    alloc: &str,
    options: ReplayOptions,
) -> u64 {
    let (s, a): (SchedKind, AllocKind) = (sched.parse().unwrap(), alloc.parse().unwrap());
    let mut meter = FragMeter::new(w, m, a);
    let out = engine::replay_with(w, m, s, a, options, &mut meter).unwrap();
    let during = meter.finish();
    let after = summarize_fragmentation(&Timeline::new(w, &out, m), a);
    assert_eq!(
        bits(&during),
        bits(&after),
        "{sched} {alloc} on {m}: {during:?} vs {after:?}"
    );
    // The summary of the metered run is the summary of the outcome.
    let metered = engine::summarize_with_fragmentation(w, m, &out, &during);
    let afterwards = engine::summarize(w, m, a, &out);
    assert_eq!(format!("{metered:?}"), format!("{afterwards:?}"));
    during.delayed_jobs
}

fn golden_fixture(name: &str, machine: MachineSpec) -> Workload {
    let file = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/golden/fixtures/{name}.swf.txt"));
    let (_, recs, _) = read_all(&file, ReadOptions::strict()).unwrap();
    Conversion::for_machine(machine)
        .apply(&recs)
        .unwrap()
        .workload
}

#[test]
fn the_meter_equals_the_replay_played_afterwards_on_the_golden_fixtures() {
    // Every scheduler family (time sharing and kills at the estimate among them) × every mesh
    // allocator kind, contiguous and not, on the golden fixtures.
    let mesh: MachineSpec = "mesh:8x8".parse().unwrap();
    let scheds = [
        "fcfs",
        "oo",
        "oocb:2",
        "window:3",
        "delay",
        "bq:50",
        "easy",
        "conservative",
        "gang:slice=600",
        "lazy",
    ];
    let allocs = [
        "ff", "bf", "fo", "as", "mpl", "flat", "paging:1", "mbs", "gabl", "anca",
    ];
    let kill = ReplayOptions {
        kill_at_estimate: true,
        ..ReplayOptions::default()
    };
    let mut delayed = 0;
    for fixture in ["ties", "burst"] {
        let w = golden_fixture(fixture, mesh);
        for sched in scheds {
            for alloc in allocs {
                delayed += meter_agrees(&w, mesh, sched, alloc, ReplayOptions::default());
            }
            delayed += meter_agrees(&w, mesh, sched, "ff", kill.clone());
        }
        let flat: MachineSpec = "flat:64".parse().unwrap();
        let w = golden_fixture(fixture, flat);
        for sched in scheds {
            meter_agrees(&w, flat, sched, "flat", ReplayOptions::default());
        }
    }
    assert!(
        delayed > 0,
        "some head met holes: the delayed count is exercised"
    );
}

/// A catalogued real log, converted for its machine.
fn catalogued(name: &str) -> (Workload, MachineSpec) {
    let entry = Catalog::builtin().get(name).expect("catalogued").clone();
    let (_, recs, _) = read_all(real_logs().join(&entry.file), ReadOptions::strict()).unwrap();
    let w = entry.conversion.apply(&recs).unwrap().workload;
    (w, entry.conversion.machine)
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn the_meter_equals_the_replay_played_afterwards_on_real_logs() {
    // sdsc-96 on its 22×16 mesh: the grid's schedulers, each with two allocators, light and
    // saturated, and a dilated run; NASA-iPSC on its hypercube with buddy allocation.
    {
        let (base, m) = catalogued("sdsc-96");
        let cells = [
            ("fcfs", ["ff", "mpl"]),
            ("oo", ["bf", "as"]),
            ("oocb:8", ["fo", "ff"]),
            ("delay", ["mpl", "bf"]),
            ("window:10", ["as", "fo"]),
            ("window:240", ["ff", "mpl"]),
            ("bq:86400", ["bf", "fo"]),
        ];
        let mut delayed = 0;
        for lf in [0.6, 2.0] {
            let w = base.scaled(lf).unwrap();
            for (sched, allocs) in cells {
                for alloc in allocs {
                    delayed += meter_agrees(&w, m, sched, alloc, ReplayOptions::default());
                }
            }
        }
        assert!(delayed > 0);
        let dilated = ReplayOptions {
            dilation: Some("linear:0.5".parse::<Dilation>().unwrap()),
            ..ReplayOptions::default()
        };
        meter_agrees(&base.scaled(1.2).unwrap(), m, "easy", "paging:0", dilated);
    }
    {
        let (base, m) = catalogued("nasa-ipsc");
        for sched in ["fcfs", "lazy"] {
            meter_agrees(
                &base.scaled(1.5).unwrap(),
                m,
                sched,
                "buddy",
                ReplayOptions::default(),
            );
        }
    }
}
