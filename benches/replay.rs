//! Replay speed (release build): one replay of a real log per iteration, trace loading outside the
//! timing.
//!
//! * `nasa-ipsc/flat128/fcfs/lf1.5` — FCFS on a flat 128-node machine over NASA-iPSC (18,239 jobs,
//!   request = node count) at load factor 1.5. Goal ≤ 10 ms.
//! * `nasa-ipsc/hypercube7/lazy/buddy/lf1.5` — the same log on its 7-cube (subcube requests) under
//!   lazy scheduling with buddy allocation. Goal ≤ 10 ms.
//! * `sdsc-96/<sched>/<alloc>/lf<F>` — every scheduler × allocator on sdsc-96 (22×16 mesh) at load
//!   factors 1.0 and 2.0 (saturated queues). Goal ≤ 0.5 s; `gang:slice=600` (time sharing, a
//!   slice-end event every 600 s) ≤ 2 s.
//!
//! * `ctc-sp2-torus/<sched>/<alloc>/lf1.0` — the CTC log on the torus 4x8x12 (see [`ctc_torus`]).
//!
//! * `backfill/kth-sp2/flat100/<sched>/user/lf1.3` — EASY (goal ≤ 50 ms) and conservative (goal
//!   ≤ 0.5 s) on KTH-SP2 (28k jobs, 100 nodes, user estimates) at load factor 1.3;
//!   `backfill/sdsc-96/easy/mpl/user/lf1.5` — EASY with MPL on the 22×16 mesh (goal ≤ 1 s);
//!   `backfill/ctc-sp2/flat338/conservative/<estimate>/lf1.2` — conservative on CTC-SP2 (77k jobs,
//!   338 nodes) at load factor 1.2, where user estimates keep a queue of hundreds of jobs and
//!   nearly every end is early, so nearly every pass compresses the plan (goal ≤ 2 s, not
//!   met: ~3.3 s; where the time goes and the alternatives measured: docs/ALGORITHMS.md,
//!   "Conservative backfilling on counts"; exact estimates for comparison).
//!
//! * `semantics/kth-sp2/flat100/easy/user/lf1.3/<semantics>` — EASY on KTH-SP2 under one pass per
//!   instant (`instant`, the default), a pass after every departure and arrival (`event`), and the
//!   profiles `pyss-sc15` and `cqsim` (engine semantics only: the input as logged). Goal: `event` at
//!   most 2 × `instant`.
//!
//! * `mesh-grid/sdsc-96/<sched>` — the simulations of the 800-cell mesh grid (`make bench-grid`),
//!   one scheduler per function: one iteration replays the grid's five allocators (ff, bf, fo, as,
//!   mpl) at load factors 0.5, 1.0, 1.5 and 2.0 (20 cells, a fortieth of the grid; no summary).
//!   The grid's simulation CPU is about 10 × the sum over its eight schedulers.
//!
//! * `summarize/sdsc-96/<sched>/<alloc>/lf<F>` — the metrics of one finished replay of the 800-cell
//!   mesh grid (`summarize`: the fragmentation measures played again over the run's placements,
//!   its time-ordered changes, the queue's head and needs), the replay outside the timing. Goal: a
//!   small share of the replay's own cost (the grid runs 800 of them). `…/run` and `…/run-metered`
//!   time the replay itself, unobserved and with the `FragMeter` that takes the same measures
//!   during the run (what `sweep` does): their difference is the meter's cost, to set against
//!   `summarize`'s.
//!
//! * `orders/ctc-sp2/flat338/<sched>/<estimate>/lf1.2` — queue orders on CTC-SP2 at load factor
//!   1.2 (user estimates keep a queue of hundreds of jobs): EASY under WFP3, whose values all change
//!   at every pass (goal ≤ 2 × `easy`), and under WFP3 written as an expression (goal ≤ 1.3 × the
//!   named order); `easy:sjbf` and `easy` with predicted estimates (goal: `easy:sjbf` ≤ 2 ×
//!   `easy`); strict priority under SJF and fair-share.
//!
//! * `static-orders/<trace>/<sched>/user/lf<F>` — strict priority and EASY under SJF, an order
//!   whose values do not change while a job waits, beside the same scheduler in arrival order, on
//!   CTC-SP2 and KTH-SP2 with user estimates at load factors 1.0 and 1.2. Goal: `…:order=sjf` ≤
//!   1.5 × the arrival-order scheduler; met by EASY, not by strict priority (~1.6 × in
//!   instructions: the pass at the end of each instant and the B-tree by rank are the floor;
//!   docs/ALGORITHMS.md, "Queue orders", static orders).
//!
//! * `fairness/ctc-sp2/flat338/easy/user/lf<F>/<plain|fair>` — EASY on CTC-SP2 with user
//!   estimates at load factors 1.0 and 1.2, without and with fair start times
//!   (`ReplayOptions::fairness`: a fork per job still waiting at the next arrival). Goal: `fair`
//!   ≤ 5 × `plain`; not met — the forks replay about a queue's worth of jobs per job
//!   (docs/ALGORITHMS.md, "Fair start times").
//!
//! Logs are found on the trace search path (`$PWA_TRACES`, `traces/`, `../shared/traces`); a missing
//! log skips its group with a note. Run: `cargo bench --bench replay` (add a filter such as
//! `-- nasa` to run one group).

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use pwa_replay::catalog::Catalog;
use pwa_replay::engine::{
    FragMeter, NoObserver, Outcome, Profile, ReplayOptions, Semantics, replay, replay_with,
    summarize,
};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::SchedKind;
use pwa_replay::sched::semantics::Passes;
use pwa_replay::swf::{ReadOptions, SwfReader};
use pwa_replay::workload::Correction;
use pwa_replay::workload::tracepath::SearchPath;
use pwa_replay::workload::{EstimateModel, ShapeRule, Workload};

const SCHEDULERS: [&str; 11] = [
    "fcfs",
    "oo",
    "oocb:8",
    "window:10",
    "window:240",
    "delay",
    "delay:count",
    "bq:600",
    "bq:inf",
    "largest-first:16",
    "gang:slice=600",
];

/// A catalogued trace converted for `machine` (the catalog's own machine when `None`).
fn load(name: &str, machine: Option<MachineSpec>) -> Option<(Workload, MachineSpec)> {
    let catalog = Catalog::builtin();
    let entry = catalog.get(name)?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let search = SearchPath::new(std::env::var_os("PWA_TRACES").as_deref(), &[root]);
    let Some(path) = search.find(&entry.file) else {
        eprintln!(
            "{} not on the trace search path: {name} benchmarks skipped",
            entry.file
        );
        return None;
    };
    let mut conv = entry.conversion.clone();
    if let Some(m) = machine {
        conv.machine = m;
        if !conv.shape.suits(m) {
            conv.shape = ShapeRule::default_for(m);
        }
    }
    let records = read(&path)?;
    let converted = conv.apply(records.iter()).ok()?;
    Some((converted.workload, conv.machine))
}

fn read(path: &Path) -> Option<Vec<pwa_replay::swf::Record>> {
    let reader = SwfReader::open(path, ReadOptions::strict()).ok()?;
    reader.collect::<Result<Vec<_>, _>>().ok()
}

fn scaled(w: &Workload, lf: f64) -> Workload {
    w.scaled(lf).expect("positive load factor")
}

fn nasa(c: &mut Criterion) {
    let Some((w, m)) = load("nasa-ipsc", Some(MachineSpec::Flat { nodes: 128 })) else {
        return;
    };
    let w = scaled(&w, 1.5);
    c.bench_function("nasa-ipsc/flat128/fcfs/lf1.5", |b| {
        b.iter(|| {
            replay(
                black_box(&w),
                m,
                SchedKind::Fcfs,
                AllocKind::Flat,
                &mut NoObserver,
            )
            .expect("replay")
        })
    });
}

/// NASA-iPSC on its 7-cube under lazy + buddy at load factor 1.5 (goal ≤ 10 ms).
fn nasa_lazy(c: &mut Criterion) {
    let Some((w, m)) = load("nasa-ipsc", None) else {
        return;
    };
    let w = scaled(&w, 1.5);
    c.bench_function("nasa-ipsc/hypercube7/lazy/buddy/lf1.5", |b| {
        b.iter(|| {
            replay(
                black_box(&w),
                m,
                SchedKind::Lazy,
                AllocKind::Buddy,
                &mut NoObserver,
            )
            .expect("replay")
        })
    });
}

fn sdsc(c: &mut Criterion) {
    let Some((w, m)) = load("sdsc-96", None) else {
        return;
    };
    let mut g = c.benchmark_group("sdsc-96");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    for lf in [1.0, 2.0] {
        let w = scaled(&w, lf);
        for s in SCHEDULERS {
            let sched: SchedKind = s.parse().expect("label");
            // Allocators that work on the machine (buddy2d needs a square power-of-two mesh).
            for &alloc in AllocKind::ALL.iter().filter(|a| a.build(m).is_ok()) {
                g.bench_function(format!("{s}/{alloc}/lf{lf:.1}"), |b| {
                    b.iter(|| {
                        replay(black_box(&w), m, sched, alloc, &mut NoObserver).expect("replay")
                    })
                });
            }
        }
    }
    g.finish();
}

/// The schedulers and allocators of the 800-cell mesh grid (`make bench-grid`).
const GRID_SCHEDULERS: [&str; 8] = [
    "fcfs",
    "oo",
    "oocb:8",
    "delay",
    "window:10",
    "window:120",
    "window:240",
    "bq:86400",
];
const GRID_ALLOCATORS: [&str; 5] = ["ff", "bf", "fo", "as", "mpl"];

/// `mesh-grid/sdsc-96/<sched>`: the grid's allocators at four of its loads, replays only.
fn mesh_grid(c: &mut Criterion) {
    let Some((w, m)) = load("sdsc-96", None) else {
        return;
    };
    let loads: Vec<Workload> = [0.5, 1.0, 1.5, 2.0]
        .iter()
        .map(|&lf| scaled(&w, lf))
        .collect();
    let allocs: Vec<AllocKind> = GRID_ALLOCATORS
        .iter()
        .map(|a| a.parse().expect("label"))
        .collect();
    let mut g = c.benchmark_group("mesh-grid/sdsc-96");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(3));
    for s in GRID_SCHEDULERS {
        let sched: SchedKind = s.parse().expect("label");
        g.bench_function(s, |b| {
            b.iter(|| {
                for w in &loads {
                    for &alloc in &allocs {
                        black_box(
                            replay(black_box(w), m, sched, alloc, &mut NoObserver).expect("replay"),
                        );
                    }
                }
            })
        });
    }
    g.finish();
}

/// `summarize/sdsc-96/<sched>/<alloc>/lf<F>`: the metrics of one finished replay, cells of the
/// 800-cell mesh grid at a light and a saturated load.
fn summary(c: &mut Criterion) {
    let Some((w, m)) = load("sdsc-96", None) else {
        return;
    };
    let mut g = c.benchmark_group("summarize/sdsc-96");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(1));
    for lf in [1.0, 2.0] {
        let w = scaled(&w, lf);
        for (s, a) in [("fcfs", "ff"), ("window:240", "mpl"), ("bq:86400", "as")] {
            let sched: SchedKind = s.parse().expect("label");
            let alloc: AllocKind = a.parse().expect("label");
            let out = replay(&w, m, sched, alloc, &mut NoObserver).expect("replay");
            g.bench_function(format!("{s}/{a}/lf{lf:.1}"), |b| {
                b.iter(|| summarize(black_box(&w), m, alloc, black_box(&out)))
            });
            g.bench_function(format!("{s}/{a}/lf{lf:.1}/run"), |b| {
                b.iter(|| replay(black_box(&w), m, sched, alloc, &mut NoObserver).expect("replay"))
            });
            g.bench_function(format!("{s}/{a}/lf{lf:.1}/run-metered"), |b| {
                b.iter(|| {
                    let mut meter = FragMeter::new(black_box(&w), m, alloc);
                    replay(&w, m, sched, alloc, &mut meter).expect("replay");
                    meter.finish()
                })
            });
        }
    }
    g.finish();
}

/// `ctc-sp2-torus/<sched>/<alloc>/lf1.0` — the 77k-job CTC log on the 3-D torus 4x8x12 (jobs
/// larger than the largest semitorus dropped). Goal for EASY/NEP ≤ 1 s.
fn ctc_torus(c: &mut Criterion) {
    let Some((mut w, m)) = load("ctc-sp2-torus", None) else {
        return;
    };
    let allocs = [
        AllocKind::Ep,
        AllocKind::Nep,
        AllocKind::FirstFit,
        AllocKind::Flat,
    ];
    w.retain_fitting(m, &allocs).expect("torus allocators");
    let w = scaled(&w, 1.0);
    let mut g = c.benchmark_group("ctc-sp2-torus");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    for s in ["fcfs", "easy"] {
        let sched: SchedKind = s.parse().expect("label");
        for alloc in allocs {
            g.bench_function(format!("{s}/{alloc}/lf1.0"), |b| {
                b.iter(|| replay(black_box(&w), m, sched, alloc, &mut NoObserver).expect("replay"))
            });
        }
    }
    g.finish();
}

/// `trace` with user estimates at load factor `lf`.
fn with_user_estimates(trace: &str, lf: f64) -> Option<(Workload, MachineSpec)> {
    let (w, m) = load(trace, None)?;
    let mut w = scaled(&w, lf);
    w.set_estimates(EstimateModel::User);
    Some((w, m))
}

/// Queue orders on CTC-SP2 at load factor 1.2 (see the module doc).
fn orders(c: &mut Criterion) {
    let mut g = c.benchmark_group("orders");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(3));
    let Some((w, m)) = load("ctc-sp2", None) else {
        return;
    };
    let mut user = scaled(&w, 1.2);
    user.set_estimates(EstimateModel::User);
    let mut predict = scaled(&w, 1.2);
    predict.set_estimates(EstimateModel::Predict(Correction::Steps));
    let options = ReplayOptions {
        orders: [("wfp3-expr", "(wait / max(estimate, 1))^3 * nodes")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        ..ReplayOptions::default()
    };
    let cases = [
        ("easy", &user, "user"),
        ("easy:order=wfp3", &user, "user"),
        ("easy:order=wfp3-expr", &user, "user"),
        ("fcfs:order=sjf", &user, "user"),
        ("easy:order=fairshare", &user, "user"),
        ("easy", &predict, "predict"),
        ("easy:sjbf", &predict, "predict"),
    ];
    for (label, w, estimate) in cases {
        let sched: SchedKind = label.parse().expect("a label");
        g.bench_function(format!("ctc-sp2/flat338/{label}/{estimate}/lf1.2"), |b| {
            b.iter(|| {
                replay_with(
                    black_box(w),
                    m,
                    sched,
                    AllocKind::Flat,
                    options.clone(),
                    &mut NoObserver,
                )
                .expect("replay")
            })
        });
    }
    g.finish();
}

fn backfill(c: &mut Criterion) {
    let mut g = c.benchmark_group("backfill");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(2));
    let mut cases = Vec::new();
    if let Some((w, m)) = with_user_estimates("kth-sp2", 1.3) {
        for s in [SchedKind::Easy, SchedKind::Conservative] {
            cases.push((
                format!("kth-sp2/flat100/{s}/user/lf1.3"),
                w.clone(),
                m,
                s,
                AllocKind::Flat,
            ));
        }
    }
    if let Some((w, m)) = load("ctc-sp2", None) {
        let exact = scaled(&w, 1.2);
        let mut user = exact.clone();
        user.set_estimates(EstimateModel::User);
        for (e, w) in [("exact", exact), ("user", user)] {
            cases.push((
                format!("ctc-sp2/flat338/conservative/{e}/lf1.2"),
                w,
                m,
                SchedKind::Conservative,
                AllocKind::Flat,
            ));
        }
    }
    if let Some((w, m)) = with_user_estimates("sdsc-96", 1.5) {
        cases.push((
            "sdsc-96/easy/mpl/user/lf1.5".into(),
            w,
            m,
            SchedKind::Easy,
            AllocKind::Mpl,
        ));
    }
    for (name, w, m, s, a) in &cases {
        g.bench_function(name, |b| {
            b.iter(|| replay(black_box(w), *m, *s, *a, &mut NoObserver).expect("replay"))
        });
    }
    g.finish();
}

/// One replay under EASY with the flat allocator.
fn easy_on_flat(w: &Workload, m: MachineSpec, opts: &ReplayOptions) -> Outcome {
    replay_with(
        w,
        m,
        SchedKind::Easy,
        AllocKind::Flat,
        opts.clone(),
        &mut NoObserver,
    )
    .expect("replay")
}

/// EASY on KTH-SP2 under each scheduling semantics.
fn semantics(c: &mut Criterion) {
    let Some((w, m)) = with_user_estimates("kth-sp2", 1.3) else {
        return;
    };
    let mut g = c.benchmark_group("semantics");
    g.sample_size(20)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(3));
    let event = Semantics {
        passes: Passes::Event,
        ..Semantics::default()
    };
    let cases = [
        ("instant", Semantics::default()),
        ("event", event),
        ("pyss-sc15", Profile::PyssSc15.semantics()),
        ("cqsim", Profile::Cqsim.semantics()),
    ];
    for (name, semantics) in cases {
        let opts = ReplayOptions {
            semantics,
            ..ReplayOptions::default()
        };
        g.bench_function(format!("kth-sp2/flat100/easy/user/lf1.3/{name}"), |b| {
            b.iter(|| easy_on_flat(black_box(&w), m, &opts))
        });
    }
    g.finish();
}

/// Strict priority and EASY under SJF beside arrival order (see the module doc).
fn static_orders(c: &mut Criterion) {
    let mut g = c.benchmark_group("static-orders");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(3));
    for trace in ["ctc-sp2", "kth-sp2"] {
        for lf in [1.0, 1.2] {
            let Some((w, m)) = with_user_estimates(trace, lf) else {
                return;
            };
            for label in ["fcfs", "fcfs:order=sjf", "easy", "easy:order=sjf"] {
                let sched: SchedKind = label.parse().expect("a label");
                g.bench_function(format!("{trace}/{label}/user/lf{lf:.1}"), |b| {
                    b.iter(|| {
                        let opts = ReplayOptions::default();
                        replay_with(
                            black_box(&w),
                            m,
                            sched,
                            AllocKind::Flat,
                            opts,
                            &mut NoObserver,
                        )
                        .expect("replay")
                    })
                });
            }
        }
    }
    g.finish();
}

/// EASY on CTC-SP2 with user estimates, without and with fair start times (see the module doc).
fn fairness(c: &mut Criterion) {
    let Some((w, m)) = load("ctc-sp2", None) else {
        return;
    };
    let mut g = c.benchmark_group("fairness");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_secs(5));
    for lf in [1.0, 1.2] {
        let mut user = scaled(&w, lf);
        user.set_estimates(EstimateModel::User);
        for fairness in [false, true] {
            let opts = ReplayOptions {
                fairness,
                ..ReplayOptions::default()
            };
            let name = if fairness { "fair" } else { "plain" };
            g.bench_function(format!("ctc-sp2/flat338/easy/user/lf{lf:.1}/{name}"), |b| {
                b.iter(|| easy_on_flat(black_box(&user), m, &opts))
            });
        }
    }
    g.finish();
}

criterion_group!(
    benches,
    nasa,
    nasa_lazy,
    sdsc,
    mesh_grid,
    summary,
    ctc_torus,
    backfill,
    semantics,
    orders,
    static_orders,
    fairness
);
criterion_main!(benches);
