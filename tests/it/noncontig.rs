//! Non-contiguous allocators (paging, MBS, GABL, ANCA) under random allocate/release sequences,
//! checked against a brute-force node map: no node held twice, nothing outside the mesh, exactly the
//! request's nodes (paging: whole pages, less than a page over), a job waits only when too few nodes
//! are free (paging: too few free pages), a snapshot answers as the original, and release restores
//! the free set.

use proptest::prelude::*;
use pwa_replay::machine::{AllocKind, MachineSpec, PageSpec, Placement, Shape};
use pwa_replay::workload::Request;

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
    assert!(
        AllocKind::Mbs
            .build("torus:4x4x4".parse().unwrap())
            .is_err(),
        "2D meshes only"
    );
}
