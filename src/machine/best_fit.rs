//! Best fit (Zhu, 1992): among all free placements of the request in its requested orientation, the one
//! whose boundary touches the most busy nodes or mesh edges — counted in unit edges, so a `w × h`
//! submesh scores 0 ..= 2(w + h) — packing jobs against each other and the border. Ties go to the first
//! placement in row-major base order (lowest `y`, then lowest `x`), i.e. to the first-fit choice.
//!
//! Cost: one bitmask scan finds all free bases; each is then scored in `O(w/64 + h/64)` word
//! operations (the mesh keeps its free set by rows and by columns).

use super::mesh::{FreeBases, Mesh, MeshAllocator, PlacementRule};
use super::{Shape, Submesh};

/// Best-fit submesh allocation on a 2D mesh.
pub type BestFit = MeshAllocator<BestFitRule>;

/// The best-fit rule: the free placement with the most busy or boundary neighbours, requested
/// orientation.
#[derive(Debug, Clone, Copy, Default)]
pub struct BestFitRule;

impl PlacementRule for BestFitRule {
    #[inline]
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
        Some((best_fit(&mesh.free_bases(shape)?)?, false))
    }

    /// Any free base will do: best fit ranks all of them.
    fn fits(&self, mesh: &mut Mesh, shape: Shape) -> bool {
        mesh.free_bases(shape).is_some()
    }
}

/// The free placement with the largest boundary contact; the first one on ties.
fn best_fit(bases: &FreeBases<'_>) -> Option<Submesh> {
    let (mesh, shape) = (bases.mesh(), bases.shape());
    let enclosed = 2 * (shape.w + shape.h);
    let mut best: Option<(u32, Submesh)> = None;
    for s in bases.iter() {
        let score = mesh.boundary_contact(&s);
        if best.is_none_or(|(b, _)| score > b) {
            best = Some((score, s));
        }
        if score == enclosed {
            break; // boxed in on every side: nothing later can beat it
        }
    }
    best.map(|(_, s)| s)
}

/// The registry's constructor: BestFit on a 2D mesh.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::mesh::build::<BestFitRule>(super::AllocKind::BestFit, machine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::tests::drawn;
    use crate::machine::{Allocator, Placement};
    use crate::workload::Request;

    fn place(picture: &str, w: u32, h: u32) -> Option<(u32, u32, u32, u32)> {
        let mut bf = BestFit::with_mesh(drawn(picture));
        match bf.allocate(&Request::Submesh(Shape::new(w, h)))? {
            Placement::Submesh { at, rotated: false } => Some(at.paper()),
            _ => None,
        }
    }

    #[test]
    fn prefers_the_tightest_hole() {
        // M(7,3), top row first:
        //   #######
        //   ...#..#
        //   ...#..#
        // 2×2 at (1,1): left edge 2 + top 2 + bottom edge 2, right (3,·) free → 6;
        // at (2,1): right busy 2 + top 2 + bottom 2 → 6; at (5,1): boxed in on all sides → 8.
        assert_eq!(place("####### ...#..# ...#..#", 2, 2), Some((5, 1, 6, 2)));
    }

    #[test]
    fn beats_first_fit_on_a_notch() {
        // M(5,3):
        //   .....
        //   ....#
        //   ##...
        // 2×1 candidates: first fit (3,1)–(4,1): bottom 2, left busy (2,1) 1, top free,
        // right (5,1) free → 3. (4,1)–(5,1): bottom 2 + right 1 + top (5,2) busy 1 = 4.
        // (4,3)–(5,3): top 2 + right 1 + below (5,2) busy 1 = 4, later in scan order.
        assert_eq!(place("..... ....# ##...", 2, 1), Some((4, 1, 5, 1)));
    }
}
