//! Fixed orientation (Chang & Mohapatra, bypass-queue-fixed-orientation.md §2.2): every request is
//! turned to the orientation of the system before allocation, then placed by first fit in that one
//! orientation. The system's orientation: a mesh with `W ≥ H` (square meshes included) takes every
//! request as `w ≥ h`; a mesh with `W < H` takes `w ≤ h`. A placement that was turned carries
//! `rotated: true` (the paper's `_rotated` flag); square requests are never turned.

use super::mesh::{Mesh, MeshAllocator, PlacementRule};
use super::{Shape, Submesh};

/// Fixed-orientation submesh allocation on a 2D mesh.
pub type FixedOrientation = MeshAllocator<FixedOrientationRule>;

/// The fixed-orientation rule: turn to the system's orientation ([`orient_to`]), then first fit.
#[derive(Debug, Clone, Copy, Default)]
pub struct FixedOrientationRule;

impl PlacementRule for FixedOrientationRule {
    #[inline]
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
        let (oriented, rotated) = orient_to(mesh.size(), shape);
        Some((mesh.first_fit(oriented)?, rotated))
    }
    #[inline]
    fn fits_empty(&self, mesh: &Mesh, shape: Shape) -> bool {
        mesh.can_hold(orient_to(mesh.size(), shape).0)
    }
}

/// `shape` turned to the orientation of a `system` mesh, and whether it was turned.
pub fn orient_to(system: Shape, shape: Shape) -> (Shape, bool) {
    let turn = if system.w >= system.h {
        shape.w < shape.h
    } else {
        shape.w > shape.h
    };
    if turn {
        (shape.rotated(), true)
    } else {
        (shape, false)
    }
}

/// The registry's constructor: FixedOrientation on a 2D mesh.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::mesh::build::<FixedOrientationRule>(super::AllocKind::FixedOrientation, machine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{Allocator, Placement};
    use crate::workload::Request;

    #[test]
    fn orientation_of_the_system() {
        let wide = Shape::new(22, 16);
        assert_eq!(orient_to(wide, Shape::new(2, 5)), (Shape::new(5, 2), true));
        assert_eq!(orient_to(wide, Shape::new(5, 2)), (Shape::new(5, 2), false));
        assert_eq!(orient_to(wide, Shape::new(3, 3)), (Shape::new(3, 3), false));
        let tall = Shape::new(4, 8);
        assert_eq!(orient_to(tall, Shape::new(5, 2)), (Shape::new(2, 5), true));
        let square = Shape::new(8, 8);
        assert_eq!(
            orient_to(square, Shape::new(1, 3)),
            (Shape::new(3, 1), true)
        );
    }

    #[test]
    fn figure1_of_the_bypass_paper_all_jobs_fit_when_turned() {
        // A 4×4 mesh (W ≥ H, so requests become w ≥ h). A 2×4 request is turned to 4×2 and
        // first fit puts it on rows 1–2; a 4×2 request keeps its orientation and fills rows 3–4:
        //   BBBB
        //   BBBB
        //   AAAA
        //   AAAA
        let mut fo = FixedOrientation::new(Shape::new(4, 4));
        let r1 = fo.allocate(&Request::Submesh(Shape::new(2, 4)));
        let r2 = fo.allocate(&Request::Submesh(Shape::new(4, 2)));
        let papers: Vec<_> = [r1, r2]
            .iter()
            .map(|p| match p {
                Some(Placement::Submesh { at, rotated }) => Some((at.paper(), *rotated)),
                _ => None,
            })
            .collect();
        assert_eq!(
            papers,
            vec![Some(((1, 1, 4, 2), true)), Some(((1, 3, 4, 4), false))]
        );
        assert_eq!(fo.free_nodes(), 0);
        assert!(fo.fits_empty(&Request::Submesh(Shape::new(1, 4))));
        assert!(!fo.fits_empty(&Request::Submesh(Shape::new(5, 1))));
    }
}
