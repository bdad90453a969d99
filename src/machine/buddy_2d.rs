//! Two-dimensional buddy allocation on a square power-of-two mesh (Li & Cheng's 2D buddy system,
//! ref. \[ChLe91\] of the coscheduling report), and the "buddy order" of FF-2G (coscheduling-time-sharing.md
//! §4.3): label `buddy2d`.
//!
//! The mesh is a `2^n × 2^n` quadtree of buddies. A request whose larger side rounds up to `2^k` may
//! only be based at the lower-left corner of a `2^k`-aligned buddy block, and the candidate blocks
//! are visited in buddy order — the order in which a buddy system forms its units, i.e. the Z
//! (Morton) order of the block corners. The first candidate whose `w × h` field is free wins. For the
//! report's `2^k × 2^k` requests this is exactly the 2D buddy system (each job gets one free buddy,
//! the lowest in buddy order); other rectangles sit at a buddy's corner and hold only their own
//! nodes (the placement covers the request exactly, so no internal fragmentation is granted).
//!
//! The free bases come from [`Mesh::free_bases`] (bitmask scan); the choice among them is a minimum
//! of the Morton key over the aligned ones.

use super::mesh::{Mesh, MeshAllocator, PlacementRule};
use super::{AllocKind, Allocator, MachineSpec, Shape, SpecError, Submesh, mismatch};

/// 2D buddy allocation.
pub type Buddy2d = MeshAllocator<Buddy2dRule>;

/// The buddy rule: the first free `2^k`-aligned base in Z order, requested orientation.
#[derive(Debug, Clone, Copy, Default)]
pub struct Buddy2dRule;

/// Side of the buddy block a `shape` request needs: its larger side rounded up to a power of two.
fn block_side(shape: Shape) -> u32 {
    shape.w.max(shape.h).next_power_of_two()
}

/// Interleaves the bits of `x` and `y` (x in the even bits): the Z-order key of a node.
fn morton(x: u32, y: u32) -> u64 {
    let spread = |v: u32| {
        let mut v = u64::from(v);
        v = (v | v << 16) & 0x0000_FFFF_0000_FFFF;
        v = (v | v << 8) & 0x00FF_00FF_00FF_00FF;
        v = (v | v << 4) & 0x0F0F_0F0F_0F0F_0F0F;
        v = (v | v << 2) & 0x3333_3333_3333_3333;
        (v | v << 1) & 0x5555_5555_5555_5555
    };
    spread(x) | spread(y) << 1
}

impl PlacementRule for Buddy2dRule {
    #[inline]
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
        let a = block_side(shape);
        if a > mesh.size().w {
            return None;
        }
        let bases = mesh.free_bases(shape)?;
        let at = bases
            .iter()
            .filter(|s| s.base.x % a == 0 && s.base.y % a == 0)
            .min_by_key(|s| morton(s.base.x, s.base.y))?;
        Some((at, false))
    }
    fn fits_empty(&self, mesh: &Mesh, shape: Shape) -> bool {
        mesh.can_hold(shape) && block_side(shape) <= mesh.size().w
    }
}

/// The registry's constructor: a 2D buddy system on a square power-of-two mesh.
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    match machine {
        MachineSpec::Mesh { size } if size.w == size.h && size.w.is_power_of_two() => {
            Ok(Box::new(Buddy2d::new(size)))
        }
        _ => Err(mismatch(AllocKind::Buddy2d, machine)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Placement;
    use crate::workload::Request;

    fn corner(p: Option<Placement>) -> Option<(u32, u32)> {
        match p? {
            Placement::Submesh { at, .. } => Some((at.base.x, at.base.y)),
            _ => None,
        }
    }

    #[test]
    fn squares_go_to_the_first_free_buddy_in_z_order() {
        let mut b = Buddy2d::new(Shape::new(8, 8));
        let sq = |s| Request::Submesh(Shape::new(s, s));
        // 1×1 at (0,0); the next 1×1 at its buddy (1,0), then (0,1), (1,1) (Z order).
        assert_eq!(corner(b.allocate(&sq(1))), Some((0, 0)));
        // A 2×2 may not straddle: the first aligned free 2×2 block is (2,0).
        assert_eq!(corner(b.allocate(&sq(2))), Some((2, 0)));
        assert_eq!(corner(b.allocate(&sq(1))), Some((1, 0)));
        assert_eq!(corner(b.allocate(&sq(1))), Some((0, 1)));
        // The lower-left 4×4 quadrant is partly busy: a 4×4 goes to the next quadrant, (4,0).
        assert_eq!(corner(b.allocate(&sq(4))), Some((4, 0)));
        // Then (0,2) (the third 2×2 of quadrant 0), before (2,2).
        assert_eq!(corner(b.allocate(&sq(2))), Some((0, 2)));
        assert_eq!(corner(b.allocate(&sq(2))), Some((2, 2)));
        assert_eq!(corner(b.allocate(&sq(8))), None);
    }

    #[test]
    fn rectangles_sit_at_an_aligned_buddy_corner() {
        let mut b = Buddy2d::new(Shape::new(8, 8));
        let r = |w, h| Request::Submesh(Shape::new(w, h));
        assert_eq!(corner(b.allocate(&r(3, 1))), Some((0, 0)));
        // 3 rounds up to 4: the next candidate corner is (4,0), not (3,0).
        assert_eq!(corner(b.allocate(&r(3, 1))), Some((4, 0)));
        assert_eq!(b.free_nodes(), 64 - 6);
    }

    #[test]
    fn only_square_power_of_two_meshes() {
        let mesh = |w, h| MachineSpec::Mesh {
            size: Shape::new(w, h),
        };
        assert!(build(mesh(8, 8)).is_ok());
        assert!(build(mesh(22, 16)).is_err());
        assert!(build(mesh(12, 12)).is_err());
        assert!(build(MachineSpec::Flat { nodes: 64 }).is_err());
    }

    #[test]
    fn morton_interleaves_x_then_y() {
        let order: Vec<u64> = [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)]
            .iter()
            .map(|&(x, y)| morton(x, y))
            .collect();
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }
}
