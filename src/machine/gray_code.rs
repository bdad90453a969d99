//! Gray-code allocation on a hypercube (Chen & Shin; lazy-scheduling-hypercube.md §2.1), with a single
//! binary-reflected gray code (BRGC).
//!
//! The nodes are laid out in BRGC order `g(0), g(1), …, g(2^n − 1)` with `g(i) = i ⊕ (i >> 1)`. A
//! `k`-cube request (`k ≥ 1`) takes the least `m` such that the `2^k` positions
//! `i ∈ [m·2^(k−1), (m+2)·2^(k−1) − 1]` (mod `2^n`) are all free; those positions always hold a
//! subcube. A 0-cube takes the first free position.
//!
//! **Recognition.** One BRGC recognises `2^(n−k+1)` distinct `k`-cubes for `1 ≤ k < n` — twice the
//! `2^(n−k)` of the buddy system, which it contains — all `2^n` nodes and the whole cube; it is not
//! complete (that takes `C(n, ⌊n/2⌋)` gray codes, §2.1). Release is as in the buddy scheme: the
//! nodes become free (no lists to merge).

use super::cube::{self, CubeNodes, NodeBits};
use super::{AllocKind, Allocator, MachineSpec, Placement, Request, SpecError, Subcube};

/// Single-BRGC allocation on an `n`-cube.
#[derive(Debug, Clone)]
pub struct GrayCode {
    nodes: CubeNodes,
    /// Busy bits by gray position.
    by_position: NodeBits,
}

/// The registry's constructor: a hypercube only.
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    Ok(Box::new(GrayCode::new(cube::order_of(
        AllocKind::GrayCode,
        machine,
    )?)))
}

/// The BRGC code word at position `i`.
pub fn gray(i: u32) -> u32 {
    i ^ (i >> 1)
}

/// The position of code word `g` (inverse of [`gray`]).
pub fn gray_position(mut g: u32) -> u32 {
    let mut i = 0;
    while g != 0 {
        i ^= g;
        g >>= 1;
    }
    i
}

impl GrayCode {
    /// An `order`-cube, all free.
    pub fn new(order: u8) -> Self {
        GrayCode {
            nodes: CubeNodes::new(order),
            by_position: NodeBits::new(1 << order),
        }
    }

    /// Whether the `len` positions from `start` (mod `2^n`) are free.
    fn window_free(&self, start: u32, len: u32) -> bool {
        let total = 1u32 << self.nodes.order;
        if start + len <= total {
            self.by_position.range_clear(start, len)
        } else {
            self.by_position.range_clear(start, total - start)
                && self.by_position.range_clear(0, start + len - total)
        }
    }

    /// The subcube held by the `len` positions from `start` (mod `2^n`).
    fn window_cube(&self, start: u32, len: u32) -> Subcube {
        let total = 1u32 << self.nodes.order;
        let (mut and, mut or) = (u32::MAX, 0);
        for i in 0..len {
            let g = gray((start + i) % total);
            and &= g;
            or |= g;
        }
        Subcube::new(self.nodes.order, and, or ^ and)
    }

    fn mark(&mut self, c: Subcube, busy: bool) {
        self.nodes.mark(c, busy);
        for a in c.addresses() {
            self.by_position.put(gray_position(a), busy);
        }
    }
}

impl Allocator for GrayCode {
    fn machine(&self) -> MachineSpec {
        MachineSpec::Hypercube {
            dim: self.nodes.order,
        }
    }
    fn find(&mut self, req: &Request) -> Option<Placement> {
        let order = self.nodes.order;
        let k = cube::wanted(order, req)?;
        if self.nodes.free() < 1 << k {
            return None;
        }
        let (step, len) = if k == 0 { (1, 1) } else { (1 << (k - 1), 1 << k) };
        let windows = (1u32 << order) / step;
        let m = (0..windows).find(|&m| self.window_free(m * step, len))?;
        Some(Placement::Subcube(self.window_cube(m * step, len)))
    }
    fn occupy(&mut self, p: &Placement) {
        match cube::subcube_of(self.nodes.order, p) {
            Some(c) => self.mark(c, true),
            None => debug_assert!(false, "not a subcube of this machine: {p:?}"),
        }
    }
    fn vacate(&mut self, p: &Placement) {
        match cube::subcube_of(self.nodes.order, p) {
            Some(c) => self.mark(c, false),
            None => debug_assert!(false, "not a subcube of this machine: {p:?}"),
        }
    }
    fn is_free(&self, p: &Placement) -> bool {
        cube::subcube_of(self.nodes.order, p).is_some_and(|c| self.nodes.all_free(c))
    }
    fn free_nodes(&self) -> u32 {
        self.nodes.free()
    }
    fn fits_empty(&self, req: &Request) -> bool {
        cube::wanted(self.nodes.order, req).is_some()
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn brgc_windows_are_subcubes_and_double_the_buddy_ones() {
        for order in 1..=8u8 {
            let g = GrayCode::new(order);
            for k in 1..order {
                let (step, len) = (1u32 << (k - 1), 1u32 << k);
                let cubes: BTreeSet<(u32, u32)> = (0..(1 << order) / step)
                    .map(|m| {
                        let c = g.window_cube(m * step, len);
                        assert_eq!(c.dim(), k, "window {m} of {order}-cube is a {k}-cube");
                        (c.addr, c.mask)
                    })
                    .collect();
                assert_eq!(cubes.len(), 1 << (order - k + 1), "2^(n−k+1) distinct cubes");
            }
        }
        assert_eq!(gray_position(gray(37)), 37);
    }

    /// A 3-cube by hand: BRGC order 000 001 011 010 110 111 101 100.
    #[test]
    fn finds_the_cube_between_buddy_pairs() {
        let mut g = GrayCode::new(3);
        let one = |a| Placement::Subcube(Subcube::new(3, a, 0));
        g.occupy(&one(0b000));
        g.occupy(&one(0b110));
        // Windows of two positions at even and odd starts: (000,001) busy, (001,011) free → 0*1.
        assert_eq!(g.allocate(&Request::Subcube(1)).unwrap().to_string(), "0*1");
        // Next free window: (011,010)? 011 now busy; (010,110) busy; (111,101) → 1*1.
        assert_eq!(g.allocate(&Request::Subcube(1)).unwrap().to_string(), "1*1");
        assert_eq!(g.find(&Request::Subcube(1)), None, "010 and 100 are not adjacent");
        assert_eq!(g.allocate(&Request::Subcube(0)).unwrap().to_string(), "010");
        g.vacate(&one(0b110));
        assert_eq!(g.free_nodes(), 2);
        assert!(build(MachineSpec::Flat { nodes: 4 }).is_err());
    }
}
