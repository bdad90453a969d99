//! Fixed orientation (Chang & Mohapatra, bypass-queue-fixed-orientation.md §2.2): every request is
//! turned to the orientation of the system before allocation, then placed by first fit in that one
//! orientation. The system's orientation: a mesh with `W ≥ H` (square meshes included) takes every
//! request as `w ≥ h`; a mesh with `W < H` takes `w ≤ h`. A placement that was turned carries
//! `rotated: true` (the paper's `_rotated` flag); square requests are never turned.

use super::mesh::{Mesh, MeshCore};
use super::{AllocStats, Allocator, MachineSpec, Placement, Shape};
use crate::workload::Request;

/// Fixed-orientation submesh allocation on a 2D mesh.
#[derive(Debug, Clone)]
pub struct FixedOrientation {
    core: MeshCore,
}

impl FixedOrientation {
    /// Fixed orientation on an all-free `size` mesh.
    pub fn new(size: Shape) -> Self {
        Self::with_mesh(Mesh::new(size))
    }

    /// Fixed orientation on a mesh whose busy nodes are already marked.
    pub fn with_mesh(mesh: Mesh) -> Self {
        FixedOrientation {
            core: MeshCore::new(mesh),
        }
    }

    /// The current free/busy state.
    pub fn mesh(&self) -> &Mesh {
        &self.core.mesh
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

impl Allocator for FixedOrientation {
    fn machine(&self) -> MachineSpec {
        self.core.machine()
    }
    fn allocate(&mut self, req: &Request) -> Option<Placement> {
        self.core.attempt(req, |mesh, shape| {
            let (oriented, rotated) = orient_to(mesh.size(), shape);
            Some((mesh.first_fit(oriented)?, rotated))
        })
    }
    fn release(&mut self, p: &Placement) {
        self.core.release(p)
    }
    fn free_nodes(&self) -> u32 {
        self.core.mesh.free_nodes()
    }
    fn fits_empty(&self, req: &Request) -> bool {
        let system = self.core.mesh.size();
        self.core.fits_empty(req, |s| orient_to(system, s).0)
    }
    fn stats(&self) -> AllocStats {
        self.core.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
