//! Free-list allocation on a hypercube (Kim, Das & Lin; lazy-scheduling-hypercube.md §2.1): lists
//! `F_0 … F_n` of disjoint free subcubes of any orientation, with complete subcube recognition.
//!
//! * **Request** of a `k`-cube: the lowest cube of the first non-empty `F_j`, `j ≥ k`; its `k`-cube
//!   keeps the `k` lowest `*` of its pattern (the others fixed at 0), and the rest of the cube goes
//!   back to the lists as disjoint cubes ([`cube::difference`]).
//! * **Release**: the subcube is merged with every *adjacent* free cube of the same dimension (same
//!   `*` positions, addresses one bit apart, lowest bit first), repeatedly, and the largest cube so
//!   formed is listed.
//! * **Complete recognition.** Disjoint lists can hide a `k`-cube that straddles several listed cubes
//!   (all of dimension < `k`). When every list `F_j, j ≥ k` is empty, the request searches the free
//!   nodes themselves: bitmaps `B_M` of the addresses whose `M`-subcube is free,
//!   `B_{M∪{d}} = B_M ∧ (B_M shifted by bit d)`, grown depth-first over the `*` sets `M` (lowest
//!   dimensions first, empty bitmaps pruned). This finds a `k`-cube exactly when one exists, which is
//!   the recognition the paper credits the scheme with ("This scheme has the ability to recognize a
//!   subcube if it exists in the system").
//!
//! [`Allocator::occupy`] accepts any free subcube: every listed cube it overlaps is replaced by its
//! difference with it.

use std::collections::BTreeSet;

use super::cube::{self, CubeNodes};
use super::{AllocKind, Allocator, MachineSpec, Placement, Request, SpecError, Subcube};

/// Kim & Das free lists on an `n`-cube.
#[derive(Debug, Clone)]
pub struct FreeList {
    nodes: CubeNodes,
    /// `lists[k]`: the free `k`-cubes as `(addr, mask)`, lowest address first.
    lists: Vec<BTreeSet<(u32, u32)>>,
}

/// The registry's constructor: a hypercube only.
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    Ok(Box::new(FreeList::new(cube::order_of(
        AllocKind::FreeList,
        machine,
    )?)))
}

impl FreeList {
    /// An `order`-cube, all free.
    pub fn new(order: u8) -> Self {
        let mut f = FreeList {
            nodes: CubeNodes::new(order),
            lists: vec![BTreeSet::new(); order as usize + 1],
        };
        f.insert(Subcube::new(order, 0, cube::low_bits(order)));
        f
    }

    /// The free cubes of list `F_k`, lowest address first.
    pub fn free_list(&self, k: u8) -> Vec<Subcube> {
        self.lists[k as usize]
            .iter()
            .map(|&(a, m)| Subcube::new(self.nodes.order, a, m))
            .collect()
    }

    fn insert(&mut self, c: Subcube) {
        self.lists[c.dim() as usize].insert((c.addr, c.mask));
    }

    /// Release: merges `c` with adjacent free cubes of its dimension while any is listed.
    fn release(&mut self, mut c: Subcube) {
        let full = cube::low_bits(self.nodes.order);
        'merge: loop {
            let mut fixed = full & !c.mask;
            while fixed != 0 {
                let bit = fixed & fixed.wrapping_neg();
                fixed &= !bit;
                if self.lists[c.dim() as usize].remove(&(c.addr ^ bit, c.mask)) {
                    c = Subcube::new(c.order, c.addr & !bit, c.mask | bit);
                    continue 'merge;
                }
            }
            break;
        }
        self.insert(c);
    }

    /// A free `k`-cube from the lists, if one of dimension ≥ `k` is listed.
    fn listed_cube(&self, k: u8) -> Option<Subcube> {
        let j = (k as usize..self.lists.len()).find(|&j| !self.lists[j].is_empty())?;
        let &(addr, mut mask) = self.lists[j].first()?;
        // Keep the k lowest `*`; fix the others at 0.
        let mut kept = 0;
        for _ in 0..k {
            let low = mask & mask.wrapping_neg();
            kept |= low;
            mask &= !low;
        }
        Some(Subcube::new(self.nodes.order, addr, kept))
    }
}

/// `B_M` shifted by bit `d`: bit `a` of the result is bit `a ⊕ 2^d` of `bits`.
fn flip(bits: &[u64], d: u32) -> Vec<u64> {
    const HALF: [u64; 6] = [
        0x5555_5555_5555_5555,
        0x3333_3333_3333_3333,
        0x0F0F_0F0F_0F0F_0F0F,
        0x00FF_00FF_00FF_00FF,
        0x0000_FFFF_0000_FFFF,
        0x0000_0000_FFFF_FFFF,
    ];
    if d >= 6 {
        let s = 1usize << (d - 6);
        (0..bits.len()).map(|i| bits[i ^ s]).collect()
    } else {
        let (s, m) = (1u32 << d, HALF[d as usize]);
        bits.iter().map(|&w| (w >> s) & m | (w & m) << s).collect()
    }
}

/// Depth-first over `*` sets: a free `k`-cube given `b` = `B_mask`, adding dimensions `≥ from`.
fn search(order: u8, b: &[u64], mask: u32, from: u32, k: u8) -> Option<Subcube> {
    if k == 0 {
        let (w, word) = b.iter().enumerate().find(|(_, w)| **w != 0)?;
        let a = (w as u32) << 6 | word.trailing_zeros();
        return Some(Subcube::new(order, a, mask));
    }
    for d in from..=u32::from(order) - u32::from(k) {
        let next: Vec<u64> = b.iter().zip(flip(b, d)).map(|(x, y)| x & y).collect();
        if next.iter().any(|&w| w != 0)
            && let Some(c) = search(order, &next, mask | 1 << d, d + 1, k - 1)
        {
            return Some(c);
        }
    }
    None
}

impl Allocator for FreeList {
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
        let c = self.listed_cube(k).or_else(|| {
            let valid = if order >= 6 { u64::MAX } else { (1u64 << (1 << order)) - 1 };
            let free: Vec<u64> = self.nodes.busy_bits().words().iter().map(|w| !w & valid).collect();
            search(order, &free, 0, 0, k)
        })?;
        Some(Placement::Subcube(c))
    }
    fn occupy(&mut self, p: &Placement) {
        let Some(c) = cube::subcube_of(self.nodes.order, p) else {
            debug_assert!(false, "not a subcube of this machine: {p:?}");
            return;
        };
        self.nodes.mark(c, true);
        for j in 0..self.lists.len() {
            let hit: Vec<(u32, u32)> = self.lists[j]
                .iter()
                .copied()
                .filter(|&(a, m)| cube::intersects(Subcube::new(c.order, a, m), c))
                .collect();
            for (a, m) in hit {
                self.lists[j].remove(&(a, m));
                for piece in cube::difference(Subcube::new(c.order, a, m), c) {
                    self.insert(piece);
                }
            }
        }
    }
    fn vacate(&mut self, p: &Placement) {
        let Some(c) = cube::subcube_of(self.nodes.order, p) else {
            debug_assert!(false, "not a subcube of this machine: {p:?}");
            return;
        };
        self.nodes.mark(c, false);
        self.release(c);
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

    fn at(p: &str) -> Placement {
        let mut s = Subcube::new(p.len() as u8, 0, 0);
        for (i, ch) in p.chars().rev().enumerate() {
            match ch {
                '1' => s.addr |= 1 << i,
                '*' => s.mask |= 1 << i,
                _ => {}
            }
        }
        Placement::Subcube(s)
    }

    fn shown(p: Option<Placement>) -> String {
        p.map_or_else(|| "none".to_string(), |p| p.to_string())
    }

    /// The 3-cube whose odd nodes are busy: buddy sees no 1-cube, the free list sees the 2-cube **0.
    #[test]
    fn recognises_the_cube_buddy_misses() {
        let mut f = FreeList::new(3);
        for p in ["001", "011", "101", "111"] {
            f.occupy(&at(p));
        }
        assert_eq!(f.free_nodes(), 4);
        assert_eq!(shown(f.find(&Request::Subcube(2))), "**0");
        assert_eq!(shown(f.allocate(&Request::Subcube(1))), "0*0");
    }

    /// Release merges with adjacent cubes of any orientation (a 4-cube by hand).
    #[test]
    fn release_merges_adjacent_cubes() {
        let mut f = FreeList::new(4);
        let a = f.allocate(&Request::Subcube(3)).unwrap();
        assert_eq!(a.to_string(), "0***");
        let b = f.allocate(&Request::Subcube(2)).unwrap();
        assert_eq!(b.to_string(), "10**");
        assert_eq!(f.free_list(2), [Subcube::new(4, 0b1100, 0b0011)]);
        f.vacate(&a);
        // 0*** and 11** differ in dimension: no merge.
        assert_eq!(f.free_list(3).len(), 1);
        f.vacate(&b);
        // 10** merges with 11** → 1***, which merges with 0*** → ****.
        assert_eq!(f.free_list(4), [Subcube::new(4, 0, 0b1111)]);
        assert_eq!(f.free_nodes(), 16);
    }

    #[test]
    fn flip_swaps_address_halves() {
        let bits = [0b0110u64];
        assert_eq!(flip(&bits, 0), [0b1001]);
        assert_eq!(flip(&bits, 1), [0b1001]);
        let wide = [1u64, 2, 3, 4];
        assert_eq!(flip(&wide, 6), [2, 1, 4, 3]);
        assert_eq!(flip(&wide, 7), [3, 4, 1, 2]);
    }

    #[test]
    fn only_hypercubes() {
        assert!(build(MachineSpec::Flat { nodes: 8 }).is_err());
        assert!(build(MachineSpec::Hypercube { dim: 5 }).is_ok());
    }
}
