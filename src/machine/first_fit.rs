//! First fit (Zhu, 1992; FF-2G of the coscheduling report): the request in its requested orientation,
//! at the first free base in row-major order — lowest row `y`, then lowest column `x`.
//!
//! Complete recognition: whenever a free submesh of the requested shape exists, first fit finds one.

use super::mesh::{Mesh, MeshAllocator, PlacementRule};
use super::{Shape, Submesh};

/// First-fit submesh allocation on a 2D mesh.
pub type FirstFit = MeshAllocator<FirstFitRule>;

/// The first-fit rule: the first free placement in row-major base order, requested orientation.
#[derive(Debug, Clone, Copy, Default)]
pub struct FirstFitRule;

impl PlacementRule for FirstFitRule {
    #[inline]
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
        Some((mesh.first_fit(shape)?, false))
    }
}

/// The registry's constructor: FirstFit on a 2D mesh, the k-dimensional first fit
/// ([`super::FirstFitKd`]) on a k-D mesh or torus.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    if let super::MachineSpec::Grid { .. } = machine {
        return super::first_fit_kd::build(machine);
    }
    super::mesh::build::<FirstFitRule>(super::AllocKind::FirstFit, machine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::tests::drawn;
    use crate::machine::{Allocator, Placement};
    use crate::workload::Request;

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
        ff.vacate(&Placement::Submesh {
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
    }
}
