//! GABL on a k-dimensional mesh or torus (`gabl` on `mesh:XxYxZ` / `torus:AxBx…`): gabl.rs's
//! Greedy Available Busy List (Bani-Mohammad et al., 2D meshes, ICPADS 2006 / AICCSA 2007) with
//! boxes, the 2D rule kept in k dimensions (docs/ALGORITHMS.md). A request of extents `e` is first
//! allocated contiguously if a free box of `e` exists (first fit, the requested orientation);
//! otherwise greedily, piece by piece: each time the largest free box
//! whose sides fit within the request's sides (in some orientation: its sides sorted are at most
//! the request's sides sorted) and whose volume does not exceed the nodes still needed, until
//! exactly `Π e_d` nodes are held. A job waits only when fewer nodes are free.
//!
//! The search for the largest piece: for every choice of the extents along dimensions `1..k`
//! (the last dimension slowest, each from 1 up), the longest free extent along dimension 0 is
//! found by bisection over first-fit searches; a choice is skipped without a search when even its
//! longest allowed box is no larger than the best so far. A box that is free implies every smaller
//! one is, so the bisection is exact, and [`FirstFitKd`]'s memory of failed searches answers the
//! larger boxes of a failed one at once. Ties between equally large pieces go to the first choice
//! in that order (the shortest along the last dimension, …: the longest along dimension 0), the
//! piece at its lowest free base (node id). On a torus a piece may wrap around, as first fit's
//! boxes do.

use super::Allocator;
use super::first_fit_kd::FirstFitKd;
use super::grid_pieces::{GridPieceRule, take_greedily};
use crate::resource::{Block, Dims, MAX_DIMS, MachineSpec};

/// The k-D GABL rule (no parameters).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct GablKd;

/// Whether a box of `e` fits within some orientation of `sorted_req` (the request's sides,
/// largest first): `e`'s sides sorted the same way are each at most the request's.
fn within(e: &[u32], sorted_req: &[u32]) -> bool {
    let mut s = [0u32; MAX_DIMS];
    let s = &mut s[..e.len()];
    s.copy_from_slice(e);
    s.sort_unstable_by(|a, b| b.cmp(a));
    s.iter().zip(sorted_req).all(|(a, b)| a <= b)
}

/// The largest free box with sides within the request's (`sorted_req`, largest first) and at
/// most `need` nodes (module doc), `None` when no node is free.
fn largest_free(grid: &mut FirstFitKd, dims: Dims, sorted_req: &[u32], need: u64) -> Option<Block> {
    let k = dims.len();
    let longest = sorted_req[0];
    let cap: Vec<u32> = dims.iter().map(|d| d.min(longest)).collect();
    let mut e = [1u32; MAX_DIMS];
    let mut best: Option<Block> = None;
    loop {
        let rest: u64 = e[1..k].iter().map(|&x| u64::from(x)).product();
        let best_volume = best.map_or(0, |b| b.extent.volume());
        let most = u64::from(cap[0]).min(need / rest);
        // Only a box longer than `lo − 1` along dimension 0 beats the best so far.
        let lo = best_volume / rest + 1;
        if most >= lo {
            let mut fits = |e0: u64| -> Option<Block> {
                e[0] = e0 as u32;
                if !within(&e[..k], sorted_req) {
                    return None;
                }
                let extent = Dims::new(&e[..k]).expect("positive extents");
                grid.first_fit(extent).map(|base| Block { base, extent })
            };
            if let Some(mut found) = fits(lo) {
                let (mut ok, mut bad) = (lo, most + 1);
                if let Some(b) = fits(most) {
                    (ok, found) = (most, b);
                }
                while ok < most && bad - ok > 1 {
                    let mid = ok + (bad - ok) / 2;
                    match fits(mid) {
                        Some(b) => (ok, found) = (mid, b),
                        None => bad = mid,
                    }
                }
                best = Some(found);
            }
        }
        // The next choice of extents along dimensions 1..k (dimension 1 fastest).
        let mut d = 1;
        loop {
            if d == k {
                return best;
            }
            if e[d] < cap[d] {
                e[d] += 1;
                break;
            }
            e[d] = 1;
            d += 1;
        }
    }
}

impl GridPieceRule for GablKd {
    fn place(&self, grid: &mut FirstFitKd, extent: Dims) -> Option<Vec<Block>> {
        let n = extent.volume();
        if n == 0 || n > u64::from(grid.free_nodes()) {
            return None;
        }
        if let Some(base) = grid.first_fit(extent) {
            return Some(vec![Block { base, extent }]);
        }
        let MachineSpec::Grid { dims, .. } = grid.machine() else {
            return None;
        };
        let mut sorted_req: Vec<u32> = extent.iter().collect();
        sorted_req.sort_unstable_by(|a, b| b.cmp(a));
        take_greedily(grid, n, |g, need| largest_free(g, dims, &sorted_req, need))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::AllocKind;
    use crate::resource::{Placement, Request};

    fn d(v: &[u32]) -> Dims {
        Dims::new(v).unwrap()
    }

    fn shown(p: &Placement) -> Vec<String> {
        let Placement::Pieces(ps) = p else {
            panic!("pieces")
        };
        ps.boxes()
            .iter()
            .map(|b| format!("{}+{}", b.base, b.extent))
            .collect()
    }

    proptest::proptest! {
        /// The largest piece has the volume of the largest free box within the request and the
        /// nodes still needed, found by trying every extent at every base; it is free and within.
        #[test]
        fn the_largest_piece_is_the_largest_free_box(
            dims in proptest::collection::vec(1u32..5, 3),
            wrap in proptest::bool::ANY,
            busy in proptest::collection::vec(proptest::bool::weighted(0.4), 64),
            req in proptest::collection::vec(1u32..5, 3),
            need in 1u64..40,
        ) {
            let dims = d(&dims);
            let machine = MachineSpec::Grid { dims, wrap };
            let mut grid = FirstFitKd::new(dims, wrap);
            for id in (0..machine.nodes()).filter(|&id| busy[id as usize]) {
                let one = Block { base: id, extent: d(&[1, 1, 1]) };
                grid.occupy(&Placement::Block(one));
            }
            let mut sorted: Vec<u32> = req.clone();
            sorted.sort_unstable_by(|a, b| b.cmp(a));
            let free = |b: Block| {
                machine.node_ids(&Placement::Block(b)).is_some_and(|mut ids| ids.all(|id| !busy[id as usize]))
            };
            let mut brute = 0;
            for e in (1..=dims.get(0)).flat_map(|x| (1..=dims.get(1)).flat_map(move |y| (1..=dims.get(2)).map(move |z| [x, y, z]))) {
                let extent = d(&e);
                if within(&e, &sorted) && extent.volume() <= need
                    && (0..machine.nodes()).any(|base| free(Block { base, extent })) {
                    brute = brute.max(extent.volume());
                }
            }
            let got = largest_free(&mut grid, dims, &sorted, need);
            proptest::prop_assert_eq!(got.map_or(0, |b| b.extent.volume()), brute);
            if let Some(b) = got {
                let e: Vec<u32> = b.extent.iter().collect();
                proptest::prop_assert!(free(b) && within(&e, &sorted));
                proptest::prop_assert_eq!(grid.first_fit(b.extent), Some(b.base), "the lowest free base");
            }
        }
    }

    #[test]
    fn a_sorted_box_within_the_sorted_request() {
        assert!(within(&[1, 3, 2], &[3, 2, 1]));
        assert!(within(&[2, 2, 1], &[3, 2, 1]));
        assert!(
            !within(&[2, 2, 2], &[3, 2, 1]),
            "two sides of 2, one of 1 allowed"
        );
        assert!(!within(&[4, 1, 1], &[3, 2, 1]));
    }

    #[test]
    fn contiguous_first_then_the_largest_free_boxes() {
        let mut a = AllocKind::Gabl
            .build("mesh:4x4x4".parse().unwrap())
            .unwrap();
        let p = a.allocate(&Request::Block(d(&[2, 2, 3]))).unwrap();
        assert_eq!(shown(&p), ["0+2x2x3"], "contiguous when it fits");
        // Busy: x < 2, y < 2, z < 3. No free 4x4x2, but the greedy's first piece may be turned:
        // 4x2x4 at y = 2 is free and holds all 32 nodes.
        let q = a.allocate(&Request::Block(d(&[4, 4, 2]))).unwrap();
        assert_eq!(shown(&q), ["8+4x2x4"]);
        // Free now: x ≥ 2, y < 2, z < 3 and the 4x2x1 at y < 2, z = 3. A 3x3x1 (9 nodes): pieces
        // need one side of 1 and two of at most 3; the largest, 6 nodes, first in search order
        // the 3x2x1 at z = 3 (base 48), then 3 more: the 1x1x3 at the lowest base (2).
        let r = a.allocate(&Request::Block(d(&[3, 3, 1]))).unwrap();
        assert_eq!(shown(&r), ["48+3x2x1", "2+1x1x3"]);
        assert_eq!(a.free_nodes(), 64 - 12 - 32 - 9);
        a.vacate(&r);
        a.vacate(&q);
        a.vacate(&p);
        assert_eq!(a.free_nodes(), 64);
        assert!(a.is_free(&r));
    }

    #[test]
    fn a_piece_may_wrap_around_a_torus() {
        let mut a = AllocKind::Gabl
            .build("torus:4x2x1".parse().unwrap())
            .unwrap();
        let mid = a.allocate(&Request::Block(d(&[2, 1, 1]))).unwrap();
        assert_eq!(shown(&mid), ["0+2x1x1"]);
        let busy = Placement::Block(Block {
            base: 5,
            extent: d(&[2, 1, 1]),
        });
        a.occupy(&busy);
        // Free: x = 2, 3 in row 0; x = 0, 3 in row 1. A 4x1x1 request: the longest free run is
        // 2 (x = 2, 3 of row 0), then 2 more: row 1's x = 3 and x = 0, one box wrapping around.
        let q = a.allocate(&Request::Block(d(&[4, 1, 1]))).unwrap();
        assert_eq!(shown(&q), ["2+2x1x1", "7+2x1x1"]);
    }
}
