use super::*;
use proptest::prelude::*;

fn dims(v: &[u32]) -> Dims {
    Dims::new(v).unwrap()
}

fn torus(v: &[u32]) -> MachineSpec {
    MachineSpec::Grid {
        dims: dims(v),
        wrap: true,
    }
}

fn labels(ps: &[Placement]) -> Vec<String> {
    ps.iter().map(Placement::to_string).collect()
}

#[test]
fn preprocessing_of_2x2x2x6x8() {
    // semitorus-allocation.md: 6 = 2·(2 + 1) → 2×2×2×4×8 and 2×2×2×2×8.
    let set = initial_set(dims(&[2, 2, 2, 6, 8]));
    assert_eq!(
        set,
        [
            (vec![0, 0, 0, 0, 0], vec![2, 2, 2, 4, 8]),
            (vec![0, 0, 0, 4, 0], vec![2, 2, 2, 2, 8]),
        ]
    );
    let s = Semitorus::new(
        torus(&[2, 2, 2, 6, 8]),
        Scheme::Equal,
        TorusConversion::Collapse,
    )
    .unwrap();
    // The second root's base is (0,0,0,4,0) = 4·(2·2·2) = 32; smallest first.
    assert_eq!(labels(&s.available()), ["@32+2x2x2x2x8", "@0+2x2x2x4x8"]);
    // The 4-node slice of the 6-ring misses its wrap-around edge; the others keep theirs.
    assert_eq!(
        wrap_flags(torus(&[2, 2, 2, 6, 8]), &[2, 2, 2, 4, 8]),
        [true, true, true, false, true]
    );
    // p = 5 = 4 + 1 on a 2^1 factor: 10 = 8 + 2.
    let set = initial_set(dims(&[4, 10]));
    assert_eq!(set[0], (vec![0, 0], vec![4, 8]));
    assert_eq!(set[1], (vec![0, 8], vec![4, 2]));
    assert_eq!(initial_set(dims(&[4, 8])), [(vec![0, 0], vec![4, 8])]);
}

#[test]
fn conversion_examples_of_the_seed() {
    // 2²×2³×2×2² with the first two dimensions missing wrap-around edges.
    let ext = [4, 8, 2, 4];
    let wrapped = [false, false, true, true];
    let collapse = convert(&ext, &wrapped, TorusConversion::Collapse);
    assert_eq!(collapse.to_string(), "32x2x4");
    let pair = convert(&ext, &wrapped, TorusConversion::Pair);
    assert_eq!(pair.to_string(), "16x16");
    // A full torus stays itself; extent-1 dimensions vanish; one node is the torus "1".
    assert_eq!(
        convert(&[4, 1, 8], &[true, true, true], TorusConversion::Collapse).to_string(),
        "4x8"
    );
    assert_eq!(
        convert(&[1, 1], &[true, true], TorusConversion::Pair).to_string(),
        "1"
    );
    // More missing than complete dimensions: pairs first, the rest collapsed.
    assert_eq!(
        convert(
            &[4, 4, 8, 2],
            &[false, false, false, true],
            TorusConversion::Pair
        )
        .to_string(),
        "16x16"
    );
}

#[test]
fn cube_like_halves_the_largest_extent_first() {
    assert_eq!(cube_like(&[2, 2], 1), Some(vec![0, 1]));
    assert_eq!(cube_like(&[1, 1, 1, 2, 3], 5), Some(vec![1, 1, 1, 1, 1]));
    assert_eq!(cube_like(&[1, 3], 4), Some(vec![1, 3]));
    assert_eq!(cube_like(&[1, 3], 5), None);
}

#[test]
fn ep_on_a_4x4_torus_is_a_buddy_system() {
    let mut ep = Semitorus::new(torus(&[4, 4]), Scheme::Equal, TorusConversion::Collapse).unwrap();
    let a = ep.allocate(&Request::Nodes(2)).unwrap();
    assert_eq!(a.to_string(), "@0+1x2");
    // Halvings: x (4→2), then y (4→2), then x (2→1); each upper half goes back to A.
    assert_eq!(labels(&ep.available()), ["@1+1x2", "@8+2x2", "@2+2x4"]);
    let b = ep.allocate(&Request::Nodes(3)).unwrap();
    assert_eq!(
        b.to_string(),
        "@8+2x2",
        "3 rounds up to 4: the smallest fitting semitorus"
    );
    ep.vacate(&a);
    // a merges with its buddy into 2x2@0, whose buddy 2x2@8 is busy.
    assert_eq!(labels(&ep.available()), ["@0+2x2", "@2+2x4"]);
    ep.vacate(&b);
    assert_eq!(labels(&ep.available()), ["@0+4x4"]);
}

#[test]
fn nep_on_a_4x4_torus_cuts_slabs() {
    let mut nep =
        Semitorus::new(torus(&[4, 4]), Scheme::NonEqual, TorusConversion::Collapse).unwrap();
    let a = nep.allocate(&Request::Nodes(2)).unwrap();
    assert_eq!(a.to_string(), "@0+1x2");
    // Slabs along x (1x4 at x=1, 2x4 at x=2), then along y within x=0 (1x2 at y=2).
    assert_eq!(labels(&nep.available()), ["@8+1x2", "@1+1x4", "@2+2x4"]);
    let b = nep.allocate(&Request::Nodes(4)).unwrap();
    assert_eq!(b.to_string(), "@1+1x4", "the whole slab: a ring of 4");
    assert_eq!(nep.torus_of(&b).unwrap().to_string(), "4");
    nep.vacate(&a);
    assert_eq!(
        labels(&nep.available()),
        ["@0+1x2", "@8+1x2", "@2+2x4"],
        "no merge until every sibling is back"
    );
    nep.vacate(&b);
    assert_eq!(labels(&nep.available()), ["@0+4x4"]);
}

#[test]
fn torus_received_on_the_5d_machine() {
    let m = torus(&[2, 2, 2, 6, 8]);
    for (conv, want) in [
        (TorusConversion::Collapse, "4x2x2x2x8"),
        (TorusConversion::Pair, "8x2x2x8"),
    ] {
        let mut s = Semitorus::new(m, Scheme::NonEqual, conv).unwrap();
        let p = s.allocate(&Request::Nodes(200)).unwrap();
        assert_eq!(p.to_string(), "@0+2x2x2x4x8");
        assert_eq!(s.torus_of(&p).unwrap().to_string(), want);
        assert_eq!(s.granted_torus(&p), s.torus_of(&p));
    }
}

#[test]
fn machines_and_requests_it_rejects() {
    for bad in ["torus:6x6", "flat:16", "mesh:4x4", "hypercube:3"] {
        let m: MachineSpec = bad.parse().unwrap();
        let err = AllocKind::Ep.build(m).err().expect(bad);
        assert!(
            err.to_string().contains("semitorus allocation needs"),
            "{err}"
        );
    }
    let m = torus(&[2, 2, 2, 6, 8]);
    let mut s = Semitorus::new(m, Scheme::Equal, TorusConversion::Collapse).unwrap();
    assert!(s.fits_empty(&Request::Nodes(256)));
    assert!(
        !s.fits_empty(&Request::Nodes(257)),
        "larger than the largest semitorus"
    );
    assert!(!s.fits_empty(&Request::Nodes(0)));
    assert!(!s.fits_empty(&Request::Subcube(2)));
    assert!(s.fits_empty(&Request::Block(dims(&[3, 3, 1, 1, 1]))));
    assert_eq!(s.find(&Request::Nodes(300)), None);
    // A mesh:XxYxZ works too (no wrap-around edges but extents ≤ 2).
    assert!(AllocKind::Nep.build("mesh:4x4x8".parse().unwrap()).is_ok());
}

#[test]
fn occupy_accepts_a_planned_semitorus_and_is_free_is_per_semitorus() {
    let mut s = Semitorus::new(torus(&[4, 4]), Scheme::Equal, TorusConversion::Collapse).unwrap();
    let planned = Placement::Block(Block {
        base: 10,
        extent: dims(&[2, 2]),
    });
    assert!(s.is_free(&planned));
    s.occupy(&planned);
    assert!(!s.is_free(&planned));
    assert_eq!(s.free_nodes(), 12);
    let misaligned = Placement::Block(Block {
        base: 1,
        extent: dims(&[2, 2]),
    });
    assert!(!s.is_free(&misaligned), "not aligned inside one semitorus");
    s.vacate(&planned);
    assert_eq!(labels(&s.available()), ["@0+4x4"]);
}

/// A machine with all but one dimension a power of two.
fn machine() -> impl Strategy<Value = MachineSpec> {
    (
        proptest::collection::vec(0u32..3, 1..=4),
        prop_oneof![Just(1u32), Just(3), Just(5), Just(7)],
        any::<bool>(),
    )
        .prop_map(|(logs, odd, wrap)| {
            let mut v: Vec<u32> = logs.iter().map(|&l| 1 << l).collect();
            let last = v.len() - 1;
            v[last] *= odd;
            MachineSpec::Grid {
                dims: Dims::new(&v).unwrap(),
                wrap,
            }
        })
}

proptest! {
    /// No overlap, every piece exactly `m = 2^k` nodes as a power-of-two box, snapshots answer as
    /// the original, release merges back to the initial set, conversion keeps the node count and
    /// every complete dimension.
    #[test]
    fn invariants(
        m in machine(),
        equal in any::<bool>(),
        pair in any::<bool>(),
        ops in proptest::collection::vec((1u32..40, any::<bool>()), 1..60),
    ) {
        let scheme = if equal { Scheme::Equal } else { Scheme::NonEqual };
        let conv = if pair { TorusConversion::Pair } else { TorusConversion::Collapse };
        let mut s = Semitorus::new(m, scheme, conv).unwrap();
        let initial = s.available();
        let mut owner = vec![false; m.nodes() as usize];
        let mut held: Vec<Placement> = Vec::new();
        for (n, release) in ops {
            if release && !held.is_empty() {
                let p = held.remove(n as usize % held.len());
                for id in m.node_ids(&p).unwrap() {
                    owner[id as usize] = false;
                }
                s.vacate(&p);
                continue;
            }
            let req = Request::Nodes(n);
            let mut copy = s.snapshot();
            let p = s.find(&req);
            prop_assert_eq!(copy.find(&req), p.clone());
            let Some(p) = p else { continue };
            let Placement::Block(b) = p.clone() else { panic!("not a box") };
            prop_assert!(crate::resource::is_rounded_semitorus(&req, &b));
            prop_assert_eq!(p.nodes(), n.next_power_of_two());
            s.occupy(&p);
            for id in m.node_ids(&p).unwrap() {
                prop_assert!(!owner[id as usize], "node {} granted twice", id);
                owner[id as usize] = true;
            }
            let t = s.torus_of(&p).unwrap();
            prop_assert_eq!(t.volume(), u64::from(p.nodes()));
            let ext: Vec<u32> = b.extent.iter().collect();
            let wrapped = wrap_flags(m, &ext);
            if conv == TorusConversion::Collapse {
                let complete: Vec<u32> = ext.iter().zip(&wrapped).filter(|(e, w)| **w && **e > 1).map(|(e, _)| *e).collect();
                let tail: Vec<u32> = t.iter().skip(t.len() - complete.len()).collect();
                prop_assert_eq!(tail, complete, "a complete dimension lost its wrap-around edges");
            }
            held.push(p);
            let busy = owner.iter().filter(|&&b| b).count() as u32;
            prop_assert_eq!(s.free_nodes(), m.nodes() - busy);
        }
        for p in held.drain(..) {
            s.vacate(&p);
        }
        prop_assert_eq!(s.available(), initial);
        prop_assert_eq!(s.free_nodes(), m.nodes());
    }
}
