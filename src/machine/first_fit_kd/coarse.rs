//! A coarse copy of a k-D grid for the first fit's searches that fail: the grid in cells of 2 nodes
//! along every dimension, a cell free when all its `2^k` nodes are.
//!
//! A free box of extent `e_d ≥ 3` in every dimension holds, along each dimension, at least
//! `⌊(e_d − 1)/2⌋` consecutive whole cells (cyclically on a torus): with base `b`, the cells
//! `j` with `[2j, 2j + 2) ⊆ [b, b + e)` number `⌊e/2⌋` for even `b` and `⌊(e − 1)/2⌋` for odd
//! `b`. So when the coarse grid has no free box of `⌊(e_d − 1)/2⌋` cells, the grid has no free box
//! of `e`: the search is answered on `N/2^k` nodes. Only for grids whose every dimension is even
//! (cells never straddle an edge or the wrap-around) and at least 4.
//!
//! The cells are recomputed from the grid's bitset when a search needs them after a change: one
//! pairing pass per dimension (`O(k·N/64)` word operations) and the even-corner bits of each row
//! gathered a word at a time.

use super::FirstFitKd;
use crate::resource::{Dims, MAX_DIMS};

/// The coarse grid of a [`FirstFitKd`].
#[derive(Debug, Clone)]
pub(super) struct Coarse {
    grid: FirstFitKd,
    /// Whether the grid changed since the cells were computed.
    stale: bool,
    /// The pairing passes' bitset.
    scratch: Vec<u64>,
}

impl Coarse {
    /// The coarse grid of `dims` (all free), or `None` when a dimension is odd or below 4.
    pub(super) fn new(dims: Dims, wrap: bool) -> Option<Coarse> {
        if dims.iter().any(|d| d < 4 || d % 2 == 1) {
            return None;
        }
        let half: Vec<u32> = dims.iter().map(|d| d / 2).collect();
        Some(Coarse {
            grid: FirstFitKd::plain(Dims::new(&half)?, wrap),
            stale: false,
            scratch: Vec::new(),
        })
    }

    /// The grid changed.
    pub(super) fn mark_stale(&mut self) {
        self.stale = true;
    }

    /// Whether no box of `extent` can be free on the grid of `dims` whose free set is `fine`
    /// (`false` also when the coarse grid cannot tell: some extent below 3).
    pub(super) fn rules_out(&mut self, fine: &[u64], dims: Dims, extent: Dims) -> bool {
        if extent.iter().any(|e| e < 3) {
            return false;
        }
        if self.stale {
            self.refresh(fine, dims);
        }
        let mut cells = [0u32; MAX_DIMS];
        for (c, e) in cells.iter_mut().zip(extent.iter()) {
            *c = (e - 1) / 2;
        }
        let cells = Dims::new(&cells[..extent.len()]).expect("extents ≥ 1");
        cells.volume() > u64::from(self.grid.free) || self.grid.search(cells).is_none()
    }

    /// Recomputes the cells from the grid's bitset `fine`.
    fn refresh(&mut self, fine: &[u64], dims: Dims) {
        let k = dims.len();
        // Pairing: along each dimension d, a node with even c_d keeps its bit only if its
        // neighbour at c_d + 1 is free too; at the end a cell's lowest corner holds the cell.
        self.scratch.clear();
        self.scratch.extend_from_slice(fine);
        let mut stride = 1;
        for d in 0..k {
            and_ahead(&mut self.scratch, stride);
            stride *= dims.get(d) as usize;
        }
        // Gathering: the even-coordinate corners of each row of cells, in order.
        let d0 = dims.get(0) as usize;
        let cell_dims = self.grid.dims;
        let bits = &mut self.grid.free_bits;
        bits.fill(0);
        let mut off = [0u32; MAX_DIMS];
        let mut cell_row = 0;
        loop {
            let mut fine_row = 0;
            let mut s = 1;
            for (d, &o) in off.iter().enumerate().take(k) {
                fine_row += 2 * o as usize * s;
                s *= dims.get(d) as usize;
            }
            for chunk in (0..d0).step_by(64) {
                let len = (d0 - chunk).min(64);
                let corners = even_bits(bits_at(&self.scratch, fine_row + chunk, len));
                put_bits(bits, cell_row + chunk / 2, len / 2, corners);
            }
            cell_row += d0 / 2;
            let mut d = 1;
            loop {
                if d == k {
                    self.grid.free = bits.iter().map(|w| w.count_ones()).sum();
                    self.stale = false;
                    return;
                }
                off[d] += 1;
                if off[d] < cell_dims.get(d) {
                    break;
                }
                off[d] = 0;
                d += 1;
            }
        }
    }
}

/// `bits[id] &= bits[id + t]` for every id (0 past the end), in place: ascending, each word
/// reads only words not yet changed.
fn and_ahead(bits: &mut [u64], t: usize) {
    let (q, r) = (t / 64, (t % 64) as u32);
    let n = bits.len();
    for i in 0..n {
        let lo = if i + q < n { bits[i + q] } else { 0 };
        let hi = if i + q + 1 < n { bits[i + q + 1] } else { 0 };
        // `(hi << (63 − r)) << 1` is `hi << (64 − r)`, and 0 when r = 0.
        bits[i] &= (lo >> r) | ((hi << (63 - r)) << 1);
    }
}

/// `len ≤ 64` bits of `bits` from bit `pos` on (0 past the end).
fn bits_at(bits: &[u64], pos: usize, len: usize) -> u64 {
    let (q, r) = (pos / 64, pos % 64);
    let lo = bits.get(q).copied().unwrap_or(0) >> r;
    let hi = if r == 0 {
        0
    } else {
        bits.get(q + 1).copied().unwrap_or(0) << (64 - r)
    };
    let v = lo | hi;
    if len == 64 { v } else { v & ((1 << len) - 1) }
}

/// Writes the `len ≤ 32` low bits of `v` at bit `pos` of `bits` (which are 0 there).
fn put_bits(bits: &mut [u64], pos: usize, len: usize, v: u64) {
    let (q, r) = (pos / 64, pos % 64);
    bits[q] |= v << r;
    if r + len > 64 {
        bits[q + 1] |= v >> (64 - r);
    }
}

/// The even-numbered bits of `x` (bits 0, 2, 4, …), packed into the low 32 bits.
fn even_bits(x: u64) -> u64 {
    let mut x = x & 0x5555_5555_5555_5555;
    x = (x | (x >> 1)) & 0x3333_3333_3333_3333;
    x = (x | (x >> 2)) & 0x0f0f_0f0f_0f0f_0f0f;
    x = (x | (x >> 4)) & 0x00ff_00ff_00ff_00ff;
    x = (x | (x >> 8)) & 0x0000_ffff_0000_ffff;
    (x | (x >> 16)) & 0x0000_0000_ffff_ffff
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Allocator;
    use crate::resource::{Block, MachineSpec, Placement, Request};
    use proptest::prelude::*;

    #[test]
    fn even_bits_packs_every_other_bit() {
        assert_eq!(even_bits(0b0101_0101), 0b1111);
        assert_eq!(even_bits(0b1011_0101), 0b0111);
        assert_eq!(even_bits(0b0100_1010), 0b1000);
        assert_eq!(even_bits(!0), 0xffff_ffff);
    }

    proptest! {
        /// The cells are free exactly when all their nodes are, and a box the coarse grid rules
        /// out is found nowhere by brute force.
        #[test]
        fn cells_and_rule_agree_with_brute_force(
            wrap in any::<bool>(),
            dims in proptest::collection::vec(2u32..5, 3),
            taken in proptest::collection::vec((0u32..1000, proptest::collection::vec(1u32..4, 3)), 0..12),
            ask in proptest::collection::vec(3u32..8, 3),
        ) {
            let dims = Dims::new(&dims.iter().map(|d| 2 * d).collect::<Vec<_>>()).unwrap();
            let spec = MachineSpec::Grid { dims, wrap };
            let mut ff = FirstFitKd::new(dims, wrap);
            for (base, e) in &taken {
                let p = Placement::Block(Block { base: base % spec.nodes(), extent: Dims::new(e).unwrap() });
                if ff.is_free(&p) {
                    ff.occupy(&p);
                }
            }
            let free = |id: u32| ff.free_bits[id as usize / 64] >> (id % 64) & 1 == 1;
            let mut coarse = Coarse::new(dims, wrap).unwrap();
            coarse.mark_stale();
            let extent = Dims::new(&ask.iter().zip(dims.iter()).map(|(&a, d)| a.min(d)).collect::<Vec<_>>()).unwrap();
            let ruled_out = coarse.rules_out(&ff.free_bits, dims, extent);
            let cell_spec = MachineSpec::Grid { dims: coarse.grid.dims, wrap };
            for cell in 0..cell_spec.nodes() {
                let c = MachineSpec::grid_coords(coarse.grid.dims, cell);
                let corner: Vec<u32> = c.iter().map(|x| 2 * x).collect();
                let mut base = 0;
                let mut s = 1;
                for (d, &x) in corner.iter().enumerate() {
                    base += x * s;
                    s *= dims.get(d);
                }
                let two = Dims::new(&vec![2; dims.len()]).unwrap();
                let all = spec.node_ids(&Placement::Block(Block { base, extent: two })).unwrap().all(free);
                prop_assert_eq!(coarse.grid.free_bits[cell as usize / 64] >> (cell % 64) & 1 == 1, all);
            }
            let exists = (0..spec.nodes()).any(|base| {
                spec.node_ids(&Placement::Block(Block { base, extent })).is_some_and(|mut ids| ids.all(free))
            });
            prop_assert!(!(ruled_out && exists), "ruled out a free box");
            prop_assert_eq!(ff.clone().find(&Request::Block(extent)).is_some(), exists);
        }
    }
}
