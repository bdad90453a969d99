//! Workload transforms: exhaustive and property checks of the square / Paragon / subcube rules,
//! the converter's bookkeeping, and load-factor scaling.

use proptest::prelude::*;
use pwa_replay::machine::{MachineSpec, Shape};
use pwa_replay::swf::Record;
use pwa_replay::workload::transform::{
    Orientation, ShapeTable, paragon_shape, square_shape, subcube_dim,
};
use pwa_replay::workload::{Conversion, Request, ShapeRule, SizeField};

use crate::real_logs::real_logs;
use crate::support::keep_regressions;

/// Whether exactly `m` nodes can be a `w × h` submesh of `mesh` (either way round is not implied:
/// `w ≤ W`, `h ≤ H`).
fn convertible(m: u32, mesh: Shape) -> bool {
    (1..=mesh.w).any(|w| m.is_multiple_of(w) && m / w <= mesh.h)
}

fn fits(s: Shape, mesh: Shape) -> bool {
    s.w <= mesh.w && s.h <= mesh.h
}

/// Checks every property of the square transform for one size; returns a description on failure.
fn check_square(n: u32, mesh: Shape, orient: Orientation) -> Result<(), String> {
    let Some(s) = square_shape(n, mesh, orient) else {
        return Err(format!("{n} on {mesh}: no shape"));
    };
    let ctx = format!("{n} on {mesh} ({orient:?}) → {s}");
    if !fits(s, mesh) || s.area() < n {
        return Err(format!("{ctx}: does not fit or too small"));
    }
    if let Some(m) = (n..s.area()).find(|&m| convertible(m, mesh)) {
        return Err(format!("{ctx}: {m} was convertible and smaller"));
    }
    let better = (1..=mesh.w)
        .filter(|&w| s.area().is_multiple_of(w) && s.area() / w <= mesh.h)
        .map(|w| w.abs_diff(s.area() / w))
        .min();
    if better != Some(s.w.abs_diff(s.h)) {
        return Err(format!("{ctx}: |w−h| not minimal ({better:?})"));
    }
    let wrong_way = match orient {
        Orientation::Tall => s.w > s.h,
        Orientation::Wide => s.w < s.h,
    };
    if wrong_way && fits(s.rotated(), mesh) {
        return Err(format!(
            "{ctx}: wrong orientation although the turned shape fits"
        ));
    }
    Ok(())
}

const MESHES: [(u32, u32); 7] = [
    (12, 12),
    (22, 16),
    (16, 22),
    (32, 32),
    (7, 3),
    (1, 9),
    (10, 1),
];

#[test]
fn square_transform_exhaustive_on_several_meshes() {
    for (w, h) in MESHES {
        let mesh = Shape::new(w, h);
        for orient in [Orientation::Tall, Orientation::Wide] {
            for n in 1..=mesh.area() {
                if let Err(e) = check_square(n, mesh, orient) {
                    panic!("{e}");
                }
            }
            assert_eq!(square_shape(mesh.area() + 1, mesh, orient), None);
        }
    }
}

#[test]
fn paragon_rule_exhaustive_on_22x16() {
    let mesh = Shape::new(22, 16);
    for n in 1..=mesh.area() {
        let s = paragon_shape(n, mesh).expect("every n ≤ 352 converts");
        if n % 16 == 0 {
            assert_eq!(s, Shape::new(n / 16, 16), "n = {n}");
        } else {
            assert_eq!(Some(s), square_shape(n, mesh, Orientation::Wide), "n = {n}");
            assert!(s.w >= s.h || !fits(s.rotated(), mesh), "n = {n}: {s}");
        }
    }
}

#[test]
fn shape_table_agrees_with_the_rules() {
    let blue = MachineSpec::Mesh {
        size: Shape::new(12, 12),
    };
    let mut t = ShapeTable::new(blue, ShapeRule::SquareTall).expect("suits");
    assert_eq!(t.request(15), Some(Request::Submesh(Shape::new(3, 5))));
    assert_eq!(t.request(17), Some(Request::Submesh(Shape::new(3, 6))));
    assert_eq!(t.request(145), None);
    assert_eq!(t.request(0), None);
    let mut cube =
        ShapeTable::new(MachineSpec::Hypercube { dim: 7 }, ShapeRule::Subcube).expect("ok");
    for n in 1..=128u64 {
        let d = subcube_dim(n, 7).expect("fits");
        assert_eq!(cube.request(n), Some(Request::Subcube(d)));
        assert!((1u64 << d) >= n && (d == 0 || (1u64 << (d - 1)) < n));
    }
    assert_eq!(cube.request(129), None);
    // a mesh of a million nodes: sizes are computed when asked for, not all up front
    let big = MachineSpec::Mesh {
        size: Shape::new(1000, 1000),
    };
    let mut t = ShapeTable::new(big, ShapeRule::SquareTall).expect("suits");
    // (values from an independent brute-force search)
    assert_eq!(
        t.request(10_007),
        Some(Request::Submesh(Shape::new(72, 139)))
    );
    assert_eq!(
        t.request(123_457),
        Some(Request::Submesh(Shape::new(342, 361)))
    );
    assert_eq!(
        t.request(999_983),
        Some(Request::Submesh(Shape::new(1000, 1000)))
    );
    assert_eq!(t.request(1_000_001), None);
}

fn arb_record() -> impl Strategy<Value = Record> {
    (
        0u64..1000,
        prop_oneof![Just(None), (0i64..10_000).prop_map(Some)],
        prop_oneof![Just(None), (-3i64..5_000).prop_map(Some)],
        prop_oneof![Just(None), (-2i64..200).prop_map(Some)],
        prop_oneof![Just(None), (1i64..200).prop_map(Some)],
        prop_oneof![Just(None), (1i64..3).prop_map(Some)],
    )
        .prop_map(|(id, submit, run, alloc, req, part)| Record {
            job_id: id,
            submit,
            run_time: run,
            allocated_procs: alloc,
            requested_procs: req,
            partition: part,
            ..Record::default()
        })
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::default()))]

    #[test]
    fn square_transform_on_random_meshes(w in 1u32..40, h in 1u32..40, frac in 0.0f64..1.0, tall: bool) {
        let mesh = Shape::new(w, h);
        let n = 1 + ((mesh.area() - 1) as f64 * frac) as u32;
        let orient = if tall { Orientation::Tall } else { Orientation::Wide };
        prop_assert_eq!(check_square(n, mesh, orient), Ok(()));
    }

    #[test]
    fn conversion_accounts_for_every_record(
        recs in prop::collection::vec(arb_record(), 0..200),
        ppn in 1u32..9,
        fallback: bool,
        filter: bool,
    ) {
        let conv = Conversion {
            procs_per_node: ppn,
            size_field: if fallback { SizeField::AllocatedOrRequested } else { SizeField::Allocated },
            partitions: filter.then(|| vec![2]),
            lenient: true,
            shape: ShapeRule::Paragon,
            ..Conversion::for_machine(MachineSpec::Mesh { size: Shape::new(22, 16) })
        };
        let out = conv.apply(&recs).expect("lenient never fails");
        let dropped: u64 = out.dropped.values().sum();
        prop_assert_eq!(out.workload.jobs.len() as u64 + dropped, recs.len() as u64);
        let jobs = &out.workload.jobs;
        for (i, j) in jobs.iter().enumerate() {
            prop_assert_eq!(j.id.index(), i);
            prop_assert!(j.runtime >= 0.0 && j.asked_procs > 0);
            let asked_nodes = j.asked_procs.div_ceil(ppn);
            prop_assert!(j.request.nodes() >= asked_nodes);
        }
        prop_assert!(jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
        let scaled = out.workload.scaled(0.3).expect("valid");
        prop_assert_eq!(scaled.jobs.len(), jobs.len());
        if let Some(first) = scaled.jobs.first() {
            prop_assert_eq!(first.submit, 0.0);
        }
        for (a, b) in jobs.iter().zip(&scaled.jobs) {
            prop_assert_eq!(a.runtime, b.runtime);
            prop_assert_eq!(a.source_id, b.source_id);
            let expect = (a.submit - jobs[0].submit) / 0.3;
            prop_assert!((b.submit - expect).abs() <= 1e-9 * expect.max(1.0));
        }
    }
}

#[test]
fn ties_keep_source_order() {
    let rec = |id: u64, submit: i64| Record {
        job_id: id,
        submit: Some(submit),
        run_time: Some(1),
        allocated_procs: Some(1),
        ..Record::default()
    };
    let recs = [rec(5, 10), rec(3, 10), rec(9, 2), rec(1, 10)];
    let out = Conversion::for_machine(MachineSpec::Flat { nodes: 4 })
        .apply(&recs)
        .expect("fits");
    let ids: Vec<u64> = out.workload.jobs.iter().map(|j| j.source_id).collect();
    assert_eq!(ids, [9, 5, 3, 1]);
}

/// Every real log verifies, reads strictly and converts for its machine; job and drop counts as an
/// independent `awk` pass over the files gives them.
#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn shared_logs_convert_as_catalogued() {
    use pwa_replay::catalog::Catalog;
    use pwa_replay::swf::{ReadOptions, SwfReader};
    use pwa_replay::workload::DropReason;
    use pwa_replay::workload::tracepath::verify;

    let dir = real_logs();
    // name → (jobs, dropped), from awk over the uncompressed files
    let expected = [
        ("sdsc-96", 18_441, 13_694),
        ("sdsc-blue", 223_663, 19_643),
        ("nasa-ipsc", 18_239, 0),
        ("lanl-cm5", 122_057, 3),
        ("ctc-sp2", 77_222, 0),
        ("kth-sp2", 28_475, 1),
        // pbatch (partition 1) only: 18,051 jobs of other partitions, 3,330 without a size.
        ("llnl-atlas", 22_397, 21_381),
        // 120 dual-processor nodes, every job within the header's 240 processors.
        ("hpc2n", 202_871, 0),
        // Synthetic, every job within its 256 nodes.
        ("lublin-256", 10_000, 0),
    ];
    let cat = Catalog::builtin();
    for (name, jobs, dropped) in expected {
        let entry = cat.get(name).expect("catalogued");
        let path = dir.join(&entry.file);
        let sha = entry.sha256.as_deref().expect("recorded hash");
        verify(&path, sha).expect("file matches the catalog");
        let mut reader = SwfReader::open(&path, ReadOptions::strict()).expect("opens");
        let mut conv = entry.conversion.converter().expect("valid conversion");
        for rec in reader.by_ref() {
            conv.push(&rec.expect("strict parse"))
                .expect("fits the machine");
        }
        let out = conv.finish();
        assert_eq!(out.workload.jobs.len(), jobs, "{name}");
        assert_eq!(out.dropped.values().sum::<u64>(), dropped, "{name}");
        assert!(!out.dropped.contains_key(&DropReason::TooLarge), "{name}");
    }
}
