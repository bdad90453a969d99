//! ANCA on a k-dimensional mesh or torus (`anca` on `mesh:XxYxZ` / `torus:AxBx…`): anca.rs's
//! Adaptive Non-Contiguous Allocation with boxes. A request of extents `e` is first tried as one
//! frame; when that fails every frame is halved (its longest side, the lowest dimension among equal
//! ones; an odd side `s` into `⌈s/2⌉` and `⌊s/2⌋`), so that level `i` has `2^i` frames, and all
//! frames of a level are tried at once, until all of a level are placed (the job gets them) or
//! the frames are single nodes and still do not fit (the job waits; with single-node frames any
//! `Π e_d` free nodes fit, so a job waits only when fewer are free).
//!
//! Frames are placed one at a time, the largest first (equal volumes in partition order), each by
//! first fit (lowest base node id) in its own orientation, else in its other orientations in turn
//! (the permutations of its sides that follow in lexicographic order, wrapping round: the 2D
//! rule's "else turned"); if one fails, the level is abandoned (nothing kept). On a torus a frame
//! may wrap around, as first fit's boxes do.

use super::Allocator;
use super::first_fit_kd::FirstFitKd;
use super::grid_pieces::{GridPieceRule, orientations, take_greedily};
use crate::resource::{Block, Dims, MAX_DIMS};

/// The k-D ANCA rule (no parameters).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct AncaKd;

/// The two halves of `e` (its longest side halved, the lowest dimension among equal ones), or `e`
/// alone when it is a single node.
fn halves(e: Dims) -> Vec<Dims> {
    let k = e.len();
    let d = (0..k)
        .max_by_key(|&d| (e.get(d), std::cmp::Reverse(d)))
        .expect("at least one dimension");
    let s = e.get(d);
    if s == 1 {
        return vec![e];
    }
    let mut v = [0u32; MAX_DIMS];
    for (i, x) in e.iter().enumerate() {
        v[i] = x;
    }
    let mut half = |side: u32| {
        v[d] = side;
        Dims::new(&v[..k]).expect("positive halves")
    };
    vec![half(s.div_ceil(2)), half(s / 2)]
}

/// Places every frame (largest first), or none: the grid is left as it was.
fn place_all(grid: &mut FirstFitKd, frames: &[Dims]) -> Option<Vec<Block>> {
    let mut order = frames.to_vec();
    order.sort_by_key(|e| std::cmp::Reverse(e.volume()));
    let need = order.iter().map(Dims::volume).sum();
    let mut next = order.into_iter();
    // Each frame placed adds its own volume: all are held exactly when every frame is placed.
    take_greedily(grid, need, |grid, _| {
        let frame = next.next()?;
        orientations(frame)
            .into_iter()
            .find_map(|e| grid.first_fit(e).map(|base| Block { base, extent: e }))
    })
}

impl GridPieceRule for AncaKd {
    fn place(&self, grid: &mut FirstFitKd, extent: Dims) -> Option<Vec<Block>> {
        let n = extent.volume();
        if n == 0 || n > u64::from(grid.free_nodes()) {
            return None;
        }
        let mut frames = vec![extent];
        loop {
            if let Some(got) = place_all(grid, &frames) {
                return Some(got);
            }
            if frames.iter().all(|f| f.volume() == 1) {
                return None;
            }
            frames = frames.into_iter().flat_map(halves).collect();
        }
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

    #[test]
    fn halving_takes_the_longest_side() {
        assert_eq!(halves(d(&[2, 5, 3])), [d(&[2, 3, 3]), d(&[2, 2, 3])]);
        assert_eq!(halves(d(&[4, 2, 4])), [d(&[2, 2, 4]), d(&[2, 2, 4])]);
        assert_eq!(halves(d(&[1, 1, 1])), [d(&[1, 1, 1])]);
    }

    #[test]
    fn contiguous_first_then_levels_of_halves() {
        let mut a = AllocKind::Anca
            .build("mesh:4x4x2".parse().unwrap())
            .unwrap();
        let show = |p: &Placement| -> Vec<String> {
            let Placement::Pieces(ps) = p else {
                panic!("pieces")
            };
            ps.boxes()
                .iter()
                .map(|b| format!("{}+{}", b.base, b.extent))
                .collect()
        };
        let p = a.allocate(&Request::Block(d(&[4, 4, 1]))).unwrap();
        assert_eq!(show(&p), ["0+4x4x1"], "one frame when it fits");
        let middle = Placement::Block(Block {
            base: 16 + 5,
            extent: d(&[2, 2, 1]),
        });
        a.occupy(&middle);
        // Free: the ring of 12 nodes around the middle of the top layer. 4x2x1 fails in every
        // orientation; its halves 2x2x1 too (every 2x2 of the layer touches the middle); level 2:
        // four 1x2x1 frames (a square 2x2x1 halves dimension 0), by first fit: x = 0, y 0..2
        // (base 16); x = 3, y 0..2 (19); x = 0, y 2..4 (24); x = 3, y 2..4 (27).
        let q = a.allocate(&Request::Block(d(&[4, 2, 1]))).unwrap();
        assert_eq!(show(&q), ["16+1x2x1", "19+1x2x1", "24+1x2x1", "27+1x2x1"]);
        assert_eq!(a.free_nodes(), 32 - 16 - 4 - 8);
    }
}
