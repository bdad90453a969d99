//! Non-contiguous allocators (paging, MBS, GABL, ANCA) under random allocate/release sequences,
//! checked against a brute-force node map: no node held twice, nothing outside the mesh, exactly the
//! request's nodes (paging: whole pages, less than a page over), a job waits only when too few nodes
//! are free (paging: too few free pages), a snapshot answers as the original, and release restores
//! the free set.

use proptest::prelude::*;
use pwa_replay::machine::{AllocKind, MachineSpec, PageSpec, Placement, Shape};
use pwa_replay::workload::Request;

use crate::support::keep_regressions;

fn kinds() -> Vec<AllocKind> {
    let mut v = vec![AllocKind::Mbs, AllocKind::Gabl, AllocKind::Anca];
    for label in ["0", "1", "1:snake", "2:shuffled"] {
        v.push(AllocKind::Paging(PageSpec::parse(label).unwrap()));
    }
    v
}

/// Nodes of a page for `kind` (1 for the allocators that grant exact counts).
fn page(kind: AllocKind) -> u32 {
    match kind {
        AllocKind::Paging(s) => 1 << (2 * s.k),
        _ => 1,
    }
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::default()))]

    #[test]
    fn pieces_never_overlap_and_release_restores_the_free_set(
        k in 0usize..7,
        w in 1u32..10,
        h in 1u32..10,
        ops in proptest::collection::vec((1u32..8, 1u32..8, any::<bool>(), any::<u16>()), 1..40),
    ) {
        let kind = kinds()[k];
        let machine: MachineSpec = format!("mesh:{w}x{h}").parse().unwrap();
        let mut alloc = kind.build(machine).unwrap();
        let mut busy = vec![false; (w * h) as usize];
        let mut held: Vec<Placement> = Vec::new();
        for (rw, rh, release, pick) in ops {
            if release && !held.is_empty() {
                let p = held.remove(usize::from(pick) % held.len());
                for id in machine.node_ids(&p).unwrap() {
                    busy[id as usize] = false;
                }
                alloc.vacate(&p);
                prop_assert!(alloc.is_free(&p), "{kind}: vacated pieces are free");
                continue;
            }
            let req = Request::Submesh(Shape::new(rw, rh));
            let n = rw * rh;
            let free = busy.iter().filter(|b| !**b).count() as u32;
            let snap = alloc.snapshot().find(&req);
            prop_assert_eq!(alloc.fits(&req), snap.is_some(), "{}: fits is find", kind);
            let got = alloc.allocate(&req);
            prop_assert_eq!(&snap, &got, "{}: a snapshot answers as the original", kind);
            let Some(p) = got else {
                if page(kind) == 1 {
                    prop_assert!(n > free, "{} refused {} nodes with {} free", kind, n, free);
                }
                continue;
            };
            let Placement::Pieces(ps) = &p else {
                return Err(TestCaseError::fail("not a pieces placement"));
            };
            prop_assert!(p.nodes() >= n && p.nodes() < n + page(kind), "{} granted {} for {}", kind, p.nodes(), n);
            let ids: Vec<u32> = machine.node_ids(&p).expect("on the mesh").collect();
            prop_assert_eq!(ids.len() as u32, ps.nodes());
            for id in ids {
                prop_assert!(!busy[id as usize], "{} holds node {} twice", kind, id);
                busy[id as usize] = true;
            }
            prop_assert!(!alloc.is_free(&p));
            held.push(p);
            let free = busy.iter().filter(|b| !**b).count() as u32;
            prop_assert_eq!(alloc.free_nodes(), free);
        }
        for p in held.drain(..) {
            alloc.vacate(&p);
        }
        prop_assert_eq!(alloc.free_nodes(), w * h);
        let whole = alloc.find(&Request::Submesh(Shape::new(w, h)));
        prop_assert_eq!(whole.map(|p| p.nodes()), Some(w * h), "{}: the empty mesh takes a whole-mesh job", kind);
    }
}

#[test]
fn non_contiguous_labels_parse_and_print() {
    for label in [
        "mbs",
        "gabl",
        "anca",
        "paging:0",
        "paging:2:snake",
        "paging:1:shuffled",
    ] {
        let k: AllocKind = label.parse().expect(label);
        assert_eq!(k.to_string(), label);
    }
    assert!("paging:x".parse::<AllocKind>().is_err());
    for kind in [AllocKind::Mbs, AllocKind::Gabl, AllocKind::Anca] {
        assert!(kind.build("torus:4x4x4".parse().unwrap()).is_ok());
        assert!(
            kind.build("hypercube:4".parse().unwrap()).is_err(),
            "{kind}"
        );
    }
}

/// The burst fixture on an 8×8 mesh.
fn burst() -> (pwa_replay::workload::Workload, MachineSpec) {
    use pwa_replay::swf::{ReadOptions, read_all};
    use pwa_replay::workload::Conversion;
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/fixtures/burst.swf.txt");
    let mesh: MachineSpec = "mesh:8x8".parse().unwrap();
    let (_, recs, _) = read_all(&file, ReadOptions::strict()).expect("fixture parses");
    let w = Conversion::for_machine(mesh)
        .apply(&recs)
        .expect("fixture converts")
        .workload;
    (w, mesh)
}

/// Dilation stretches each job by its own placement's factor, the validator accepts the stretched
/// schedule, α = 0 changes nothing, and without dilation the outcome carries no factors.
#[test]
fn dilation_stretches_dispersed_jobs_and_is_off_by_default() {
    use pwa_replay::engine::{Dilation, NoObserver, ReplayOptions, replay, replay_with, validate};
    use pwa_replay::sched::SchedKind;
    let (w, mesh) = burst();
    for alloc in ["gabl", "paging:0", "ff"] {
        let a: AllocKind = alloc.parse().unwrap();
        for sched in [SchedKind::Fcfs, SchedKind::Easy] {
            let plain = replay(&w, mesh, sched, a, &mut NoObserver).unwrap();
            assert!(plain.dilation.is_empty());
            let model = Dilation::Linear { alpha: 0.5 };
            let opts = |d| ReplayOptions {
                dilation: Some(d),
                ..ReplayOptions::default()
            };
            let run = |d| replay_with(&w, mesh, sched, a, opts(d), &mut NoObserver).unwrap();
            let zero = run(Dilation::Linear { alpha: 0.0 });
            assert_eq!(zero.records, plain.records, "{alloc}: α = 0 is no dilation");
            let out = run(model);
            validate(&w, mesh, &out).expect("valid stretched schedule");
            for (i, (job, rec)) in w.jobs.iter().zip(&out.records).enumerate() {
                let f = model.factor(mesh, &job.request, &rec.placement);
                assert_eq!(out.dilation[i], f);
                assert_eq!(rec.end, rec.start + job.runtime * f);
            }
            if alloc == "ff" {
                assert!(
                    out.dilation.iter().all(|&f| f == 1.0),
                    "a job granted its own box"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::default()))]

    /// Paging, MBS, GABL and ANCA on k-D meshes and tori: whole pages (the others: exact counts),
    /// no node twice, a job waits only when too few nodes (paging:0: pages) are free, a snapshot
    /// answers as the original, release restores the free set.
    #[test]
    fn grid_paging_never_overlaps(
        dims in proptest::collection::vec(1u32..6, 3..=4),
        wrap in any::<bool>(),
        k in 0u8..6,
        ops in proptest::collection::vec((proptest::collection::vec(1u32..4, 4), any::<bool>(), any::<u16>()), 1..30),
    ) {
        use pwa_replay::resource::Dims;
        let d = Dims::new(&dims).unwrap();
        let machine = MachineSpec::Grid { dims: d, wrap };
        // 0..3 stand for paging:k; 3, 4, 5 for MBS, GABL, ANCA (exact counts).
        let kind = match k {
            3 => AllocKind::Mbs,
            4 => AllocKind::Gabl,
            5 => AllocKind::Anca,
            _ => AllocKind::Paging(PageSpec::parse(&k.to_string()).unwrap()),
        };
        let exact = k >= 3;
        let mut alloc = kind.build(machine).unwrap();
        let total = machine.nodes();
        let mut busy = vec![false; total as usize];
        let mut held: Vec<Placement> = Vec::new();
        for (ext, release, pick) in ops {
            if release && !held.is_empty() {
                let p = held.remove(usize::from(pick) % held.len());
                for id in machine.node_ids(&p).unwrap() {
                    busy[id as usize] = false;
                }
                alloc.vacate(&p);
                prop_assert!(alloc.is_free(&p), "{}: vacated pieces are free", kind);
                continue;
            }
            let req = Request::Block(Dims::new(&ext[..dims.len()]).unwrap());
            let n = req.nodes();
            let free = busy.iter().filter(|b| !**b).count() as u32;
            let snap = alloc.snapshot().find(&req);
            prop_assert_eq!(alloc.fits(&req), snap.is_some(), "{}: fits is find", kind);
            let got = alloc.allocate(&req);
            prop_assert_eq!(&snap, &got);
            let Some(p) = got else {
                if k == 0 || exact {
                    prop_assert!(n > free, "{} refused {} nodes with {} free", kind, n, free);
                }
                continue;
            };
            let page = if exact { 1 } else { 1 << (k * dims.len() as u8) };
            prop_assert!(p.nodes() >= n && p.nodes() < n + page, "{} granted {} for {}", kind, p.nodes(), n);
            for id in machine.node_ids(&p).expect("on the grid") {
                prop_assert!(!busy[id as usize], "node {} twice", id);
                busy[id as usize] = true;
            }
            prop_assert!(!alloc.is_free(&p));
            held.push(p);
            prop_assert_eq!(alloc.free_nodes(), busy.iter().filter(|b| !**b).count() as u32);
        }
        for p in held.drain(..) {
            alloc.vacate(&p);
        }
        prop_assert_eq!(alloc.free_nodes(), total);
    }
}

/// The k-D non-contiguous allocators replay the burst fixture on a 3-D torus and a 3-D mesh under
/// every backfilling flavour; the validator accepts the schedules and the locality measures see
/// the pieces.
#[test]
fn grid_paging_replays_validate() {
    use pwa_replay::engine::{NoObserver, replay, summarize, validate};
    use pwa_replay::sched::SchedKind;
    use pwa_replay::swf::{ReadOptions, read_all};
    use pwa_replay::workload::Conversion;
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden/fixtures/burst.swf.txt");
    let (_, recs, _) = read_all(&file, ReadOptions::strict()).expect("fixture parses");
    for grid in ["torus:4x4x4", "mesh:4x4x4"] {
        let grid: MachineSpec = grid.parse().unwrap();
        let w = Conversion::for_machine(grid)
            .apply(&recs)
            .expect("fixture converts")
            .workload;
        for label in ["paging:0", "paging:1:shuffled", "mbs", "gabl", "anca"] {
            let a: AllocKind = label.parse().unwrap();
            for sched in [SchedKind::Fcfs, SchedKind::Easy, SchedKind::Conservative] {
                let out = replay(&w, grid, sched, a, &mut NoObserver).expect("replays");
                validate(&w, grid, &out).expect("valid schedule");
                let m = summarize(&w, grid, a, &out);
                assert!(
                    m.mean_pieces >= 1.0 && m.mean_pairwise_hops > 0.0,
                    "{label} on {grid}: {m:?}"
                );
            }
        }
    }
}
