//! Adaptive scan (Ding & Bhuyan, 1993, as described in bypass-queue-fixed-orientation.md §2.2 and
//! §3.2): first fit in the requested orientation; when no such submesh is free, first fit in the
//! turned orientation (`rotated: true`). A square request has one orientation. One call is one
//! allocation attempt, whether one or two orientations were scanned.

use super::mesh::{Mesh, MeshAllocator, PlacementRule};
use super::{Shape, Submesh};

/// Adaptive-scan submesh allocation on a 2D mesh.
pub type AdaptiveScan = MeshAllocator<AdaptiveScanRule>;

/// The adaptive-scan rule: first fit as requested, then first fit turned.
#[derive(Debug, Clone, Copy, Default)]
pub struct AdaptiveScanRule;

impl PlacementRule for AdaptiveScanRule {
    #[inline]
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
        if let Some(at) = mesh.first_fit(shape) {
            return Some((at, false));
        }
        let turned = shape.rotated();
        (turned != shape).then(|| mesh.first_fit(turned).map(|at| (at, true)))?
    }
    #[inline]
    fn fits_empty(&self, mesh: &Mesh, shape: Shape) -> bool {
        mesh.can_hold(shape) || mesh.can_hold(shape.rotated())
    }
}

/// The registry's constructor: AdaptiveScan on a 2D mesh.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::mesh::build::<AdaptiveScanRule>(super::AllocKind::AdaptiveScan, machine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::tests::drawn;
    use crate::machine::{Allocator, Placement};
    use crate::workload::Request;

    #[test]
    fn requested_orientation_first_then_turned() {
        // M(4,3), top row first:
        //   ##..
        //   ##..
        //   ....
        // A 1×4 is taller than the mesh: turned to 4×1, first fit puts it on row 1.
        // A 2×2 then fits as requested at (3,2); nothing is left for a 2×1 either way.
        let mut a = AdaptiveScan::with_mesh(drawn("##.. ##.. ...."));
        let mut go = |w, h| match a.allocate(&Request::Submesh(Shape::new(w, h))) {
            Some(Placement::Submesh { at, rotated }) => Some((at.paper(), rotated)),
            _ => None,
        };
        assert_eq!(go(1, 4), Some(((1, 1, 4, 1), true)));
        assert_eq!(go(2, 2), Some(((3, 2, 4, 3), false)));
        assert_eq!(go(2, 1), None);
        assert!(a.fits_empty(&Request::Submesh(Shape::new(3, 4))));
        assert!(!a.fits_empty(&Request::Submesh(Shape::new(5, 4))));
    }
}
