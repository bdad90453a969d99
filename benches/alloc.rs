//! Allocator cost: nanoseconds per failed attempt and per successful allocate + release.
//!
//! * `mesh22x16/<alloc>/…` — a half-busy 22×16 mesh (the Paragon's batch partition), fragmented by
//!   random submeshes from a fixed seed. `fail_cold` is a near-miss request (the smallest square that
//!   does not fit although enough nodes are free) on a fresh copy, so the full bitmask scan runs on
//!   cold memory; `scan/fail_warm` is the same scan on a warm mesh (the failure cache cleared by
//!   freeing and re-taking one node each time);
//!   `fail_cached` repeats it on the same state (the failure cache answers); `alloc_release` places
//!   and frees a 2×2.
//! * `side/<alloc>/…/L` — the same on half-busy L×L meshes, L = 16 … 256: growth with the side.
//!
//! * `cube10/<alloc>/alloc_release/{empty,half}` — buddy, freelist, graycode on a 10-cube (goals:
//!   buddy ≤ 100 ns, freelist ≤ 2 µs).
//! * `torus/<alloc>/…` — semitorus allocation (`ep`, `nep`) on the 5-D torus 2x2x2x6x8 (384 nodes)
//!   about half busy: `alloc_release` of a 16-node request (goal ≤ 1 µs); k-D first fit on a
//!   half-busy 16×16×16 and 32×32×32 torus: `ff/fail/…` is a near-miss cube (the smallest that
//!   fails although enough nodes are free; goal ≤ 5 µs on 16×16×16) on a fresh copy,
//!   `ff/fail_remembered/…` the same asked again (a remembered failure answers),
//!   `ff/earliest_start/…` its earliest start as the boxes placed end one by one, in order
//!   (galloping over the release times), `ff/alloc_release/…` a 2×2×2 box.
//!
//! Run: `cargo bench --bench alloc`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use pwa_replay::machine::{
    AdaptiveScan, AllocKind, Allocator, BestFit, Coord, Dims, FirstFit, FixedOrientation, Flat,
    MachineSpec, Mesh, Mpl, Placement, Shape, Submesh,
};
use pwa_replay::workload::Request;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A `size` mesh about half busy: random submeshes up to a quarter of each side, placed where free.
fn half_busy(size: Shape, seed: u64) -> Mesh {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut mesh = Mesh::new(size);
    let max = Shape::new((size.w / 4).max(1), (size.h / 4).max(1));
    while mesh.free_nodes() > size.area() / 2 {
        let shape = Shape::new(rng.random_range(1..=max.w), rng.random_range(1..=max.h));
        let base = Coord {
            x: rng.random_range(0..=size.w - shape.w),
            y: rng.random_range(0..=size.h - shape.h),
        };
        let s = Submesh { base, shape };
        if mesh.is_free(&s) {
            mesh.occupy(&s);
        }
    }
    mesh
}

/// The smallest square that does not fit `mesh` although its area is free somewhere.
fn near_miss(mesh: &Mesh) -> Shape {
    let mut probe = mesh.clone();
    let side = (1..=mesh.size().w.min(mesh.size().h))
        .find(|&s| probe.first_fit(Shape::new(s, s)).is_none())
        .unwrap_or(mesh.size().w.min(mesh.size().h));
    assert!(
        side * side <= mesh.free_nodes(),
        "the area early-out would answer"
    );
    Shape::new(side, side)
}

type Make = fn(Mesh) -> Box<dyn Allocator>;

const KINDS: [(&str, Make); 5] = [
    ("ff", |m| Box::new(FirstFit::with_mesh(m))),
    ("bf", |m| Box::new(BestFit::with_mesh(m))),
    ("fo", |m| Box::new(FixedOrientation::with_mesh(m))),
    ("as", |m| Box::new(AdaptiveScan::with_mesh(m))),
    ("mpl", |m| Box::new(Mpl::with_mesh(m))),
];

fn fail_cold(mesh: &Mesh, make: Make, req: Request) -> impl FnMut(&mut criterion::Bencher) {
    move |b| {
        b.iter_batched_ref(
            || make(mesh.clone()),
            |a| assert!(a.allocate(black_box(&req)).is_none()),
            BatchSize::SmallInput,
        )
    }
}

/// A failed scan on a warm mesh: freeing and re-taking one busy node clears the failure cache, so
/// every iteration runs the full bitmask scan (the free/take costs a few ns and is included).
fn fail_scan(mesh: &Mesh, miss: Shape) -> impl FnMut(&mut criterion::Bencher) {
    let mut mesh = mesh.clone();
    let size = mesh.size();
    let cell = (0..size.h)
        .flat_map(|y| (0..size.w).map(move |x| Coord { x, y }))
        .find(|&c| !mesh.is_node_free(c))
        .map(|base| Submesh {
            base,
            shape: Shape::new(1, 1),
        })
        .expect("a half-busy mesh has a busy node");
    move |b| {
        b.iter(|| {
            mesh.vacate(&cell);
            mesh.occupy(&cell);
            assert!(mesh.first_fit(black_box(miss)).is_none());
        })
    }
}

fn alloc_release(a: &mut dyn Allocator, req: Request) -> impl FnMut(&mut criterion::Bencher) {
    move |b| {
        b.iter(|| {
            let p = a.allocate(black_box(&req)).expect("fits");
            a.vacate(&p);
        })
    }
}

fn mesh_22x16(c: &mut Criterion) {
    let mesh = half_busy(Shape::new(22, 16), 7);
    let miss = Request::Submesh(near_miss(&mesh));
    let fits = Request::Submesh(Shape::new(2, 2));
    let mut g = c.benchmark_group("mesh22x16");
    g.bench_function(
        BenchmarkId::new("scan", "fail_warm"),
        fail_scan(&mesh, near_miss(&mesh)),
    );
    for (name, make) in KINDS {
        g.bench_function(
            BenchmarkId::new(name, "fail_cold"),
            fail_cold(&mesh, make, miss),
        );
        let mut a = make(mesh.clone());
        g.bench_function(BenchmarkId::new(name, "fail_cached"), |b| {
            b.iter(|| assert!(a.allocate(black_box(&miss)).is_none()))
        });
        let mut a = make(mesh.clone());
        g.bench_function(
            BenchmarkId::new(name, "alloc_release"),
            alloc_release(a.as_mut(), fits),
        );
    }
    let mut flat = Flat::new(MachineSpec::Flat { nodes: 352 });
    flat.allocate(&Request::Nodes(176));
    g.bench_function(
        BenchmarkId::new("flat", "alloc_release"),
        alloc_release(&mut flat, Request::Nodes(40)),
    );
    g.finish();
}

fn side_sweep(c: &mut Criterion) {
    let mut g = c.benchmark_group("side");
    for side in [16u32, 32, 64, 128, 256] {
        let mesh = half_busy(Shape::new(side, side), 11);
        let miss = Request::Submesh(near_miss(&mesh));
        let fits = Request::Submesh(Shape::new(2, 2));
        g.bench_function(
            BenchmarkId::new("scan/fail_warm", side),
            fail_scan(&mesh, near_miss(&mesh)),
        );
        for (name, make) in KINDS {
            if name == "ff" || name == "mpl" {
                g.bench_function(
                    BenchmarkId::new(format!("{name}/fail_cold"), side),
                    fail_cold(&mesh, make, miss),
                );
            }
            if name != "fo" && name != "as" {
                let mut a = make(mesh.clone());
                g.bench_function(
                    BenchmarkId::new(format!("{name}/alloc_release"), side),
                    alloc_release(a.as_mut(), fits),
                );
            }
        }
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
}

/// A 10-cube about half busy: random subcubes (dimension ≤ 4) placed where the allocator puts them,
/// then every other one released (a fragmented free set).
fn half_busy_cube(kind: AllocKind, seed: u64) -> Box<dyn Allocator> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut a = kind
        .build(MachineSpec::Hypercube { dim: 10 })
        .expect("hypercube");
    let mut held = Vec::new();
    while a.free_nodes() > 256 {
        if let Some(p) = a.allocate(&Request::Subcube(rng.random_range(0..=4))) {
            held.push(p);
        }
    }
    for p in held.iter().step_by(2) {
        a.vacate(p);
    }
    a
}

/// `cube10/<alloc>/alloc_release/{empty,half}`: allocate + release of a 0-cube on the empty 10-cube
/// (the deepest buddy split and merge) and of a 2-cube on a fragmented one.
fn cube_10(c: &mut Criterion) {
    let mut g = c.benchmark_group("cube10");
    for kind in [AllocKind::Buddy, AllocKind::FreeList, AllocKind::GrayCode] {
        let mut empty = kind
            .build(MachineSpec::Hypercube { dim: 10 })
            .expect("hypercube");
        g.bench_function(
            BenchmarkId::new(format!("{kind}/alloc_release"), "empty"),
            alloc_release(empty.as_mut(), Request::Subcube(0)),
        );
        let mut half = half_busy_cube(kind, 5);
        g.bench_function(
            BenchmarkId::new(format!("{kind}/alloc_release"), "half"),
            alloc_release(half.as_mut(), Request::Subcube(2)),
        );
    }
    g.finish();
}

/// `alloc` made about half busy by random requests of up to `max` nodes from a fixed seed; the
/// placements granted.
fn half_busy_grid(alloc: &mut dyn Allocator, max: u32, boxes: bool, seed: u64) -> Vec<Placement> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let total = alloc.machine().nodes();
    let dims = match alloc.machine() {
        MachineSpec::Grid { dims, .. } => dims,
        _ => unreachable!("a grid"),
    };
    let mut held = Vec::new();
    for _ in 0..10_000 {
        if alloc.free_nodes() <= total / 2 {
            break;
        }
        let req = if boxes {
            let e: Vec<u32> = dims
                .iter()
                .map(|d| rng.random_range(1..=(d / 4).max(1)))
                .collect();
            Request::Block(Dims::new(&e).expect("extents"))
        } else {
            Request::Nodes(rng.random_range(1..=max))
        };
        held.extend(alloc.allocate(&req));
    }
    held
}

fn torus(c: &mut Criterion) {
    let mut g = c.benchmark_group("torus");
    let t5: MachineSpec = "torus:2x2x2x6x8".parse().expect("label");
    for kind in [AllocKind::Ep, AllocKind::Nep] {
        let mut a = kind.build(t5).expect("semitorus");
        half_busy_grid(a.as_mut(), 32, false, 5);
        g.bench_function(
            BenchmarkId::new(kind.label(), "alloc_release_16"),
            alloc_release(a.as_mut(), Request::Nodes(16)),
        );
    }
    for side in [16, 32] {
        torus_first_fit(&mut g, side);
    }
    g.finish();
}

/// k-D first fit on a half-busy `side`³ torus: a near-miss cube searched on a fresh copy (`fail`)
/// and again on the same state (`fail_remembered`: the remembered failure answers), a 2×2×2 box
/// placed and released, and the earliest start of the near-miss cube as the running boxes end one
/// by one (`earliest_start`: galloping over the release times).
fn torus_first_fit(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    side: u32,
) {
    let label = format!("{side}x{side}x{side}");
    let t3: MachineSpec = format!("torus:{label}").parse().expect("label");
    let mut ff = AllocKind::FirstFit.build(t3).expect("k-D first fit");
    let held = half_busy_grid(ff.as_mut(), 0, true, 9);
    let cube = |s: u32| Request::Block(Dims::new(&[s, s, s]).expect("cube"));
    let edge = (1..=side)
        .find(|&s| ff.snapshot().find(&cube(s)).is_none())
        .expect("a half-busy torus misses some cube");
    assert!(
        edge.pow(3) <= ff.free_nodes(),
        "the node-count early-out would answer"
    );
    let miss = cube(edge);
    g.bench_function(BenchmarkId::new("ff/fail", &label), |b| {
        b.iter_batched_ref(
            || ff.snapshot(),
            |a| assert!(a.find(black_box(&miss)).is_none()),
            BatchSize::SmallInput,
        )
    });
    let mut remembered = ff.snapshot();
    assert!(remembered.find(&miss).is_none());
    g.bench_function(BenchmarkId::new("ff/fail_remembered", &label), |b| {
        b.iter(|| assert!(remembered.find(black_box(&miss)).is_none()))
    });
    let releases: Vec<(f64, Placement)> = held
        .iter()
        .enumerate()
        .map(|(i, p)| (i as f64, p.clone()))
        .collect();
    g.bench_function(BenchmarkId::new("ff/earliest_start", &label), |b| {
        b.iter_batched_ref(
            || ff.snapshot(),
            |a| assert!(a.find_after_releases(black_box(&miss), &releases).is_some()),
            BatchSize::SmallInput,
        )
    });
    g.bench_function(
        BenchmarkId::new("ff/alloc_release", &label),
        alloc_release(ff.as_mut(), cube(2)),
    );
}

criterion_group! { name = benches; config = config(); targets = mesh_22x16, side_sweep, cube_10, torus }
criterion_main!(benches);
