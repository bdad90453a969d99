//! First fit (Zhu, 1992; FF-2G of the coscheduling report): the request in its requested orientation,
//! at the first free base in row-major order — lowest row `y`, then lowest column `x`.
//!
//! Complete recognition: whenever a free submesh of the requested shape exists, first fit finds one.

use super::mesh::{Mesh, MeshCore};
use super::{AllocStats, Allocator, MachineSpec, Placement, Shape};
use crate::workload::Request;

/// First-fit submesh allocation on a 2D mesh.
#[derive(Debug, Clone)]
pub struct FirstFit {
    core: MeshCore,
}

impl FirstFit {
    /// First fit on an all-free `size` mesh.
    pub fn new(size: Shape) -> Self {
        Self::with_mesh(Mesh::new(size))
    }

    /// First fit on a mesh whose busy nodes are already marked (e.g. reserved or faulty nodes).
    pub fn with_mesh(mesh: Mesh) -> Self {
        FirstFit {
            core: MeshCore::new(mesh),
        }
    }

    /// The current free/busy state.
    pub fn mesh(&self) -> &Mesh {
        &self.core.mesh
    }
}

impl Allocator for FirstFit {
    fn machine(&self) -> MachineSpec {
        self.core.machine()
    }
    fn allocate(&mut self, req: &Request) -> Option<Placement> {
        self.core
            .attempt(req, |mesh, shape| Some((mesh.first_fit(shape)?, false)))
    }
    fn release(&mut self, p: &Placement) {
        self.core.release(p)
    }
    fn free_nodes(&self) -> u32 {
        self.core.mesh.free_nodes()
    }
    fn fits_empty(&self, req: &Request) -> bool {
        self.core.fits_empty(req, |s| s)
    }
    fn stats(&self) -> AllocStats {
        self.core.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Submesh;
    use crate::machine::mesh::tests::drawn;

    #[test]
    fn fig1_requests_in_row_major_order() {
        // M(5,4) of window-k-mesh.md Fig. 1 (top row first, # busy):
        //   #####
        //   ###..
        //   .....
        //   .....
        let mut ff = FirstFit::with_mesh(drawn("##### ###.. ..... ....."));
        let req = |w, h| Request::Submesh(Shape::new(w, h));
        let at = |p: Option<Placement>| match p {
            Some(Placement::Submesh { at, rotated: false }) => Some(at.paper()),
            _ => None,
        };
        assert_eq!(at(ff.allocate(&req(2, 1))), Some((1, 1, 2, 1)));
        assert_eq!(at(ff.allocate(&req(2, 3))), Some((4, 1, 5, 3)));
        assert_eq!(
            at(ff.allocate(&req(1, 3))),
            None,
            "1×3 only fits where 2×3 went"
        );
        assert_eq!(at(ff.allocate(&req(3, 1))), Some((1, 2, 3, 2)));
        assert_eq!(ff.free_nodes(), 12 - 2 - 6 - 3);
        assert_eq!(
            ff.stats(),
            AllocStats {
                attempts: 4,
                failures: 1
            }
        );
        ff.release(&Placement::Submesh {
            at: Submesh::from_paper(4, 1, 5, 3),
            rotated: false,
        });
        assert_eq!(at(ff.allocate(&req(1, 3))), Some((4, 1, 4, 3)));
    }

    #[test]
    fn node_requests_never_fit_a_mesh() {
        let mut ff = FirstFit::new(Shape::new(4, 4));
        assert!(!ff.fits_empty(&Request::Nodes(2)));
        assert_eq!(ff.allocate(&Request::Nodes(2)), None);
        assert!(!ff.fits_empty(&Request::Submesh(Shape::new(2, 5))));
        assert!(!ff.fits_empty(&Request::Submesh(Shape::new(0, 1))));
        assert!(ff.fits_empty(&Request::Submesh(Shape::new(4, 4))));
        assert_eq!(ff.stats().failures, 1);
    }
}
