//! Allocator invariants under random allocate/release sequences, checked against a brute-force
//! model of the mesh: no overlap, nothing outside the mesh, the granted shape is the request (or its
//! turn, flagged, for fo/as only), release restores the free set, complete recognition, and each
//! policy's own choice (first fit's scan order, best fit's score, MPL's peripheral length).

use proptest::prelude::*;
use pwa_replay::machine::{
    AdaptiveScan, AllocKind, Allocator, BestFit, FirstFit, FixedOrientation, Flat, MachineSpec,
    Mesh, Mpl, MplFixed, Placement, Shape, Submesh, orient_to,
};
use pwa_replay::workload::Request;

use crate::support::keep_regressions;

/// Busy map of a mesh, `busy[y][x]`.
#[derive(Clone, Debug, PartialEq)]
struct Model {
    size: Shape,
    busy: Vec<Vec<bool>>,
}

impl Model {
    fn new(size: Shape) -> Self {
        Model {
            size,
            busy: vec![vec![false; size.w as usize]; size.h as usize],
        }
    }
    fn cells(s: &Submesh) -> impl Iterator<Item = (usize, usize)> {
        let (b, sh) = (s.base, s.shape);
        (b.y..b.y + sh.h)
            .flat_map(move |y| (b.x..b.x + sh.w).map(move |x| (x as usize, y as usize)))
    }
    fn inside(&self, s: &Submesh) -> bool {
        s.base.x + s.shape.w <= self.size.w && s.base.y + s.shape.h <= self.size.h
    }
    fn is_free(&self, s: &Submesh) -> bool {
        self.inside(s) && Self::cells(s).all(|(x, y)| !self.busy[y][x])
    }
    fn set(&mut self, s: &Submesh, v: bool) {
        for (x, y) in Self::cells(s) {
            assert_ne!(self.busy[y][x], v, "double occupy / release at ({x},{y})");
            self.busy[y][x] = v;
        }
    }
    fn free_nodes(&self) -> u32 {
        self.busy.iter().flatten().filter(|b| !**b).count() as u32
    }
    /// Every free placement of `shape`, row-major (lowest y, then lowest x).
    fn free_placements(&self, shape: Shape) -> Vec<Submesh> {
        if shape.w > self.size.w || shape.h > self.size.h {
            return vec![];
        }
        (0..=self.size.h - shape.h)
            .flat_map(|y| (0..=self.size.w - shape.w).map(move |x| (x, y)))
            .map(|(x, y)| Submesh {
                base: pwa_replay::machine::Coord { x, y },
                shape,
            })
            .filter(|s| self.is_free(s))
            .collect()
    }
    fn busy_or_out(&self, x: i64, y: i64) -> bool {
        x < 0
            || y < 0
            || x >= self.size.w as i64
            || y >= self.size.h as i64
            || self.busy[y as usize][x as usize]
    }
    /// Best-fit score: boundary unit edges facing a busy node or the outside.
    fn contact(&self, s: &Submesh) -> u32 {
        let (x0, y0) = (s.base.x as i64, s.base.y as i64);
        let (w, h) = (s.shape.w as i64, s.shape.h as i64);
        let horizontal = (x0..x0 + w)
            .map(|x| self.busy_or_out(x, y0 - 1) as u32 + self.busy_or_out(x, y0 + h) as u32);
        let vertical = (y0..y0 + h)
            .map(|y| self.busy_or_out(x0 - 1, y) as u32 + self.busy_or_out(x0 + w, y) as u32);
        horizontal.chain(vertical).sum()
    }
    fn peripheral(&self, s: &Submesh) -> u32 {
        let (b, sh) = (s.base, s.shape);
        (b.x == 0) as u32 * sh.h
            + (b.x + sh.w == self.size.w) as u32 * sh.h
            + (b.y == 0) as u32 * sh.w
            + (b.y + sh.h == self.size.h) as u32 * sh.w
    }
    fn agrees_with(&self, mesh: &Mesh) -> bool {
        (0..self.size.h).all(|y| {
            (0..self.size.w).all(|x| {
                mesh.is_node_free(pwa_replay::machine::Coord { x, y })
                    != self.busy[y as usize][x as usize]
            })
        })
    }
}

#[derive(Clone, Debug)]
enum Op {
    Alloc(u32, u32),
    /// Release the live job at this index (modulo the number of live jobs).
    Release(usize),
}

fn ops(max_w: u32, max_h: u32) -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        3 => (1..=max_w + 2, 1..=max_h + 2).prop_map(|(w, h)| Op::Alloc(w, h)),
        2 => any::<usize>().prop_map(Op::Release),
    ];
    prop::collection::vec(op, 1..80)
}

fn mesh_and_ops() -> impl Strategy<Value = (Shape, Vec<Op>)> {
    prop_oneof![
        4 => (1u32..=12, 1u32..=12),
        1 => (60u32..=140, 1u32..=4),
        1 => (250u32..=300, 1u32..=3),
    ]
    .prop_flat_map(|(w, h)| {
        let max = (w.min(16), h.min(16));
        (Just(Shape::new(w, h)), ops(max.0, max.1))
    })
}

/// Which allocator is under test, with its concrete type's mesh accessor.
fn build(kind: AllocKind, size: Shape) -> Box<dyn Probe> {
    match kind {
        AllocKind::FirstFit => Box::new(FirstFit::new(size)),
        AllocKind::BestFit => Box::new(BestFit::new(size)),
        AllocKind::FixedOrientation => Box::new(FixedOrientation::new(size)),
        AllocKind::AdaptiveScan => Box::new(AdaptiveScan::new(size)),
        AllocKind::Mpl => Box::new(Mpl::new(size)),
        AllocKind::MplFixed => Box::new(MplFixed::new(size)),
        AllocKind::Buddy2d => {
            panic!("buddy2d needs a square power-of-two mesh (tests in tests/it/gang.rs)")
        }
        other => panic!("{other} has no mesh"),
    }
}

/// An allocator whose mesh can be inspected.
trait Probe: Allocator {
    fn state(&self) -> &Mesh;
}
macro_rules! probe {
    ($($t:ty),*) => {$(impl Probe for $t { fn state(&self) -> &Mesh { self.mesh() } })*};
}
probe!(
    FirstFit,
    BestFit,
    FixedOrientation,
    AdaptiveScan,
    Mpl,
    MplFixed
);

const MESH_KINDS: [AllocKind; 6] = [
    AllocKind::FirstFit,
    AllocKind::BestFit,
    AllocKind::FixedOrientation,
    AllocKind::AdaptiveScan,
    AllocKind::Mpl,
    AllocKind::MplFixed,
];

/// Checks one granted placement (or failure) of `req` against the model before it is applied.
fn check_choice(kind: AllocKind, model: &Model, req: Shape, got: Option<Placement>) {
    let (orientations, may_turn): (Vec<Shape>, bool) = match kind {
        AllocKind::FixedOrientation => (vec![orient_to(model.size, req).0], true),
        AllocKind::AdaptiveScan | AllocKind::Mpl => (vec![req, req.rotated()], true),
        _ => (vec![req], false),
    };
    let Some(p) = got else {
        for s in orientations {
            assert!(
                model.free_placements(s).is_empty(),
                "{kind}: missed a free {s}"
            );
        }
        return;
    };
    let Placement::Submesh { at, rotated } = p else {
        panic!("{kind}: not a submesh: {p:?}");
    };
    assert!(
        model.is_free(&at),
        "{kind}: {at:?} overlaps or leaves the mesh"
    );
    let expected = if rotated { req.rotated() } else { req };
    assert_eq!(
        at.shape, expected,
        "{kind}: shape and rotated flag disagree"
    );
    assert!(!rotated || (may_turn && req.w != req.h), "{kind}: turned");
    let wanted = orientations
        .iter()
        .copied()
        .find(|s| !model.free_placements(*s).is_empty());
    assert_eq!(Some(at.shape), wanted, "{kind}: orientation preference");
    let all = model.free_placements(at.shape);
    match kind {
        AllocKind::BestFit => {
            let best = all.iter().map(|s| model.contact(s)).max();
            assert_eq!(Some(model.contact(&at)), best, "best fit score");
            let first = all.iter().find(|s| Some(model.contact(s)) == best);
            assert_eq!(Some(&at), first, "best fit tie → scan order");
        }
        AllocKind::Mpl | AllocKind::MplFixed => {
            let best = all.iter().map(|s| model.peripheral(s)).max();
            assert_eq!(
                Some(model.peripheral(&at)),
                best,
                "maximum peripheral length"
            );
            if best == Some(0) {
                assert_eq!(Some(&at), all.first(), "internal → first suitable base");
            } else {
                assert_eq!(Some(at), mpl_reference(model, at.shape), "MPL tie-break");
            }
        }
        _ => assert_eq!(Some(&at), all.first(), "{kind}: first fit in scan order"),
    }
}

/// MPL's documented rule, straight from every maximal free submesh: among their corner placements,
/// the longest peripheral length, then the smallest maximal free submesh, then row-major order.
fn mpl_reference(model: &Model, shape: Shape) -> Option<Submesh> {
    let mut mesh = Mesh::new(model.size);
    for y in 0..model.size.h {
        for x in 0..model.size.w {
            if model.busy[y as usize][x as usize] {
                mesh.occupy(&Submesh {
                    base: pwa_replay::machine::Coord { x, y },
                    shape: Shape::new(1, 1),
                });
            }
        }
    }
    let corner = |hole: &Submesh, right: bool, top: bool| Submesh {
        base: pwa_replay::machine::Coord {
            x: hole.base.x + if right { hole.shape.w - shape.w } else { 0 },
            y: hole.base.y + if top { hole.shape.h - shape.h } else { 0 },
        },
        shape,
    };
    mesh.maximal_free_submeshes(shape)
        .iter()
        .flat_map(|hole| {
            [(false, false), (true, false), (false, true), (true, true)]
                .map(|(r, t)| (hole.shape.area(), corner(hole, r, t)))
        })
        .min_by_key(|(area, s)| (u32::MAX - model.peripheral(s), *area, s.base.y, s.base.x))
        .map(|(_, s)| s)
}

/// Runs `ops`, checking every step; returns the placements granted (for determinism).
fn replay(kind: AllocKind, size: Shape, ops: &[Op]) -> Vec<Option<Placement>> {
    let mut a = build(kind, size);
    let mut model = Model::new(size);
    let mut live: Vec<Placement> = Vec::new();
    let mut out = Vec::new();
    for op in ops {
        match *op {
            Op::Alloc(w, h) => {
                let req = Shape::new(w, h);
                let planned = a.snapshot().find(&Request::Submesh(req));
                let found = a.find(&Request::Submesh(req));
                assert!(model.agrees_with(a.state()), "{kind}: find changes nothing");
                let got = a.allocate(&Request::Submesh(req));
                assert_eq!(
                    (planned, found),
                    (got.clone(), got.clone()),
                    "{kind}: find and a snapshot agree"
                );
                check_choice(kind, &model, req, got.clone());
                if let Some(p @ Placement::Submesh { at, .. }) = got.clone() {
                    model.set(&at, true);
                    live.push(p);
                }
                out.push(got);
            }
            Op::Release(i) if !live.is_empty() => {
                let p = live.remove(i % live.len());
                assert!(!a.is_free(&p), "{kind}: a granted placement is busy");
                a.vacate(&p);
                assert!(a.is_free(&p), "{kind}: free again");
                if let Placement::Submesh { at, .. } = p {
                    model.set(&at, false);
                }
            }
            Op::Release(_) => {}
        }
        assert_eq!(a.free_nodes(), model.free_nodes(), "{kind}: free_nodes");
        assert!(model.agrees_with(a.state()), "{kind}: free set");
    }
    for p in live.drain(..) {
        a.vacate(&p);
    }
    assert_eq!(a.free_nodes(), size.area(), "{kind}: all released");
    out
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(96)))]

    #[test]
    fn mesh_allocators_keep_their_contract((size, ops) in mesh_and_ops()) {
        for kind in MESH_KINDS {
            let first = replay(kind, size, &ops);
            prop_assert_eq!(first, replay(kind, size, &ops), "{} is deterministic", kind);
        }
    }

    #[test]
    fn maximal_free_submeshes_match_brute_force(
        (w, h, busy) in prop_oneof![(1u32..=7, 1u32..=6), (62u32..=70, 1u32..=3)].prop_flat_map(|(w, h)| {
            (Just(w), Just(h), prop::collection::vec(prop::bool::weighted(0.35), (w * h) as usize))
        })
    ) {
        let size = Shape::new(w, h);
        let mut mesh = Mesh::new(size);
        let mut model = Model::new(size);
        for (i, b) in busy.iter().enumerate() {
            if *b {
                let cell = Submesh {
                    base: pwa_replay::machine::Coord { x: i as u32 % w, y: i as u32 / w },
                    shape: Shape::new(1, 1),
                };
                mesh.occupy(&cell);
                model.set(&cell, true);
            }
        }
        let free_rects: Vec<Submesh> = (1..=h)
            .flat_map(|sh| (1..=w).map(move |sw| Shape::new(sw, sh)))
            .flat_map(|s| model.free_placements(s))
            .collect();
        let contains = |a: &Submesh, b: &Submesh| {
            a.base.x <= b.base.x
                && a.base.y <= b.base.y
                && b.base.x + b.shape.w <= a.base.x + a.shape.w
                && b.base.y + b.shape.h <= a.base.y + a.shape.h
        };
        let mut expected: Vec<_> = free_rects
            .iter()
            .filter(|r| !free_rects.iter().any(|o| o != *r && contains(o, r)))
            .map(Submesh::paper)
            .collect();
        let mut got: Vec<_> = mesh.maximal_free_submeshes(Shape::new(1, 1)).iter().map(Submesh::paper).collect();
        let touches_border = |p: &(u32, u32, u32, u32)| p.0 == 1 || p.1 == 1 || p.2 == w || p.3 == h;
        let mut border: Vec<_> = expected.iter().copied().filter(touches_border).collect();
        let mut got_border: Vec<_> = mesh
            .peripheral_maximal_free_submeshes(Shape::new(1, 1))
            .iter()
            .map(Submesh::paper)
            .collect();
        expected.sort();
        got.sort();
        prop_assert_eq!(got, expected);
        border.sort();
        got_border.sort();
        prop_assert_eq!(got_border, border);
    }

    #[test]
    fn flat_counts_nodes(reqs in prop::collection::vec((0u32..40, any::<bool>()), 1..60)) {
        let mut f = Flat::new(MachineSpec::Flat { nodes: 64 });
        let mut free = 64u32;
        let mut live = Vec::new();
        for (n, release) in reqs {
            if release && !live.is_empty() {
                let p: Placement = live.remove(n as usize % live.len());
                f.vacate(&p);
                free += p.nodes();
            } else {
                let got = f.allocate(&Request::Nodes(n));
                prop_assert_eq!(got.is_some(), n > 0 && n <= free);
                if let Some(p) = got {
                    prop_assert_eq!(&p, &Placement::Nodes(n));
                    free -= n;
                    live.push(p);
                }
            }
            prop_assert_eq!(f.free_nodes(), free);
        }
    }
}

#[test]
fn build_checks_the_machine() {
    let mesh: MachineSpec = "mesh:22x16".parse().expect("valid");
    let flat: MachineSpec = "flat:128".parse().expect("valid");
    let hypercube_only = [AllocKind::Buddy, AllocKind::FreeList, AllocKind::GrayCode];
    let torus_only = [
        AllocKind::Ep,
        AllocKind::Nep,
        AllocKind::EpPair,
        AllocKind::NepPair,
    ];
    for &kind in AllocKind::ALL {
        if torus_only.contains(&kind) {
            let err = kind
                .build(mesh)
                .err()
                .expect("semitorus allocation needs a k-D grid");
            assert!(err.to_string().contains("torus:AxBx"), "{err}");
            continue;
        }
        if hypercube_only.contains(&kind) {
            assert!(
                kind.build(mesh).is_err() && kind.build(flat).is_err(),
                "{kind}"
            );
            continue;
        }
        if kind == AllocKind::Buddy2d {
            // Square power-of-two meshes only.
            assert!(kind.build(mesh).is_err() && kind.build(flat).is_err());
            let square: MachineSpec = "mesh:16x16".parse().expect("valid");
            assert_eq!(
                kind.build(square).expect("buddy2d on 16x16").free_nodes(),
                256
            );
            continue;
        }
        let a = kind
            .build(mesh)
            .expect("every other allocator works on a mesh");
        assert_eq!(a.machine(), mesh);
        assert_eq!(a.free_nodes(), 352);
        let on_flat = kind.build(flat);
        let flat_kind = matches!(kind, AllocKind::Flat | AllocKind::FlatPow2);
        assert_eq!(on_flat.is_ok(), flat_kind, "{kind} on flat");
    }
    assert!(
        "mesh:70000x70000".parse::<MachineSpec>().is_err(),
        "node count overflows u32"
    );
    let cube: MachineSpec = "hypercube:4".parse().expect("valid");
    let torus: MachineSpec = "torus:4x4x4".parse().expect("valid");
    for machine in [flat, cube, torus] {
        let err = AllocKind::Mpl
            .build(machine)
            .err()
            .expect("mpl needs a 2D mesh");
        assert!(
            err.to_string().contains("does not work on machine"),
            "{err}"
        );
    }
    let hyper: MachineSpec = "hypercube:7".parse().expect("valid");
    let f = AllocKind::Flat
        .build(hyper)
        .expect("flat counts nodes anywhere");
    assert_eq!(f.free_nodes(), 128);
}

#[test]
fn allocators_that_grant_what_is_requested_do_on_the_empty_machine() {
    // Whatever an allocator that says so grants on its empty machine holds the request's own count
    // (the fragmentation measures take that count without asking); a node counter, a mesh rule
    // (turns included) and a rounding allocator seen on each kind of machine.
    let machines = [
        "mesh:22x16",
        "mesh:16x16",
        "flat:128",
        "hypercube:7",
        "torus:4x4x4",
    ];
    let mut requests: Vec<Request> = (1..=16u32)
        .flat_map(|w| (1..=16u32).map(move |h| Request::Submesh(Shape::new(w, h))))
        .collect();
    requests.extend((1..=130u32).map(Request::Nodes));
    requests.extend((0..=7u8).map(Request::Subcube));
    let (mut exact, mut rounding) = (0, 0);
    for spec in machines {
        let machine: MachineSpec = spec.parse().expect("valid");
        for &kind in AllocKind::ALL {
            // `find` only chooses: the machine stays empty for every request.
            let Ok(mut empty) = kind.build(machine) else {
                continue;
            };
            if !empty.grants_requested_nodes() {
                rounding += 1;
                continue;
            }
            exact += 1;
            for req in &requests {
                if let Some(p) = empty.find(req) {
                    assert_eq!(p.nodes(), req.nodes(), "{kind} on {spec}: {req:?}");
                }
            }
            assert_eq!(empty.free_nodes(), machine.nodes(), "{kind} on {spec}");
        }
    }
    assert!(
        exact >= 8 && rounding >= 3,
        "{exact} exact, {rounding} rounding"
    );
}

#[test]
fn mesh_allocators_reject_node_requests_up_front() {
    for kind in MESH_KINDS {
        let mut a = build(kind, Shape::new(8, 8));
        assert!(!a.fits_empty(&Request::Nodes(4)), "{kind}");
        assert!(!a.fits_empty(&Request::Subcube(2)), "{kind}");
        assert_eq!(a.allocate(&Request::Nodes(4)), None, "{kind}");
        assert_eq!(a.free_nodes(), 64, "{kind}: a failure changes nothing");
    }
}

#[test]
fn wide_meshes_beyond_one_word() {
    // 256 × 4: a 200-wide request lands right of a 56-wide job, across word boundaries.
    for kind in MESH_KINDS {
        let mut a = build(kind, Shape::new(256, 4));
        let first = a.allocate(&Request::Submesh(Shape::new(56, 4)));
        assert!(first.is_some(), "{kind}");
        let second = a.allocate(&Request::Submesh(Shape::new(200, 4)));
        let base = match second {
            Some(Placement::Submesh { at, .. }) => Some(at.base.x),
            _ => None,
        };
        assert_eq!(base, Some(56), "{kind}");
        assert_eq!(a.free_nodes(), 0, "{kind}");
    }
}
