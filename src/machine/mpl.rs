//! Maximum peripheral length (MPL; Ababneh, window-k-mesh.md §3.2): prefer the free submesh whose
//! boundary runs longest along the periphery of the mesh; when no free placement touches the
//! periphery, the base of the first suitable internal free submesh.
//!
//! The paper leaves the candidate set and the tie-break open. Here:
//!
//! * **Candidates** are the four corner placements of every maximal free submesh (Definition 1) that
//!   can hold the request (only those touching the border are enumerated: the others' corners have
//!   peripheral length 0 and lose to any border candidate). Any free placement lies in some maximal free submesh, and sliding it to a
//!   corner of that submesh never loses a border it touched, so the best peripheral length over the
//!   corners equals the best over all free placements.
//! * **Peripheral length** counts unit edges on the mesh border: `h` for the left edge, `h` the right,
//!   `w` the bottom, `w` the top.
//! * **Ties** go to the candidate of the *smallest* maximal free submesh (best fit among holes: keep
//!   large free submeshes whole), then to row-major base order. Fig. 1 needs this rule: for a 2×1
//!   request both (1,1,2,1) and (4,1,5,1) have peripheral length 3, and the paper grants (4,1,5,1) —
//!   a corner of the 2×3 maximal free submesh (4,1,5,3) rather than of the 5×2 one (1,1,5,2).
//! * **No peripheral candidate**: the base of the first suitable maximal free submesh in row-major
//!   order, which is exactly the first-fit base.
//! * **Orientation** (*turning*): the requested orientation first; only when it has no free
//!   placement at all is the request turned by 90° and placed by the same rule (`rotated: true`).
//!   This is how the authors' allocation work turns requests ("the orientation of the allocation
//!   request is changed when no sub-mesh is available in the requested orientation"); §3.2 is
//!   silent, docs/ALGORITHMS.md gives the argument. [`MplFixed`](super::MplFixed) (`mpl-fixed`) never
//!   turns.

use super::mesh::{FreeBases, Mesh, MeshAllocator, PlacementRule};
use super::{Coord, Shape, Submesh};

/// Maximum-peripheral-length submesh allocation on a 2D mesh, turning a request that does not fit
/// in its requested orientation.
pub type Mpl = MeshAllocator<MplRule>;

/// The MPL rule with turning: [`MplFixedRule`] on the requested shape; if that shape has no free
/// placement, [`MplFixedRule`] on the shape turned by 90°.
#[derive(Debug, Clone, Copy, Default)]
pub struct MplRule;

impl PlacementRule for MplRule {
    #[inline]
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
        if let Some(s) = MplFixedRule.place(mesh, shape) {
            return Some(s);
        }
        if shape.w == shape.h {
            return None;
        }
        Some((mpl(&mesh.free_bases(shape.rotated())?)?, true))
    }

    fn fits_empty(&self, mesh: &Mesh, shape: Shape) -> bool {
        mesh.can_hold(shape) || mesh.can_hold(shape.rotated())
    }

    fn fits(&self, mesh: &mut Mesh, shape: Shape) -> bool {
        MplFixedRule.fits(mesh, shape) || (shape.w != shape.h && MplFixedRule.fits(mesh, shape.rotated()))
    }
}

/// The MPL rule in the requested orientation: the corner of a border-touching maximal free submesh
/// with the longest peripheral length, then the smallest such submesh, then row-major base order;
/// the first-fit base when no free placement touches the border.
#[derive(Debug, Clone, Copy, Default)]
pub struct MplFixedRule;

impl PlacementRule for MplFixedRule {
    #[inline]
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
        Some((mpl(&mesh.free_bases(shape)?)?, false))
    }

    /// Any free base will do: MPL places wherever one exists.
    fn fits(&self, mesh: &mut Mesh, shape: Shape) -> bool {
        mesh.free_bases(shape).is_some()
    }
}

/// The MPL placement: longest periphery, then smallest hole, then row-major base order; the first
/// free base when no candidate touches the border.
fn mpl(bases: &FreeBases<'_>) -> Option<Submesh> {
    let first = bases.first()?;
    let (mesh, shape) = (bases.mesh(), bases.shape());
    let mut best: Option<((u32, u32, u32, u32), Submesh)> = None;
    mesh.for_each_peripheral_maximal(shape, |hole| {
        for s in corners(&hole, shape) {
            let pl = mesh.peripheral_length(&s);
            let key = (u32::MAX - pl, hole.shape.area(), s.base.y, s.base.x);
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, s));
            }
        }
    });
    match best {
        Some(((inv_pl, ..), s)) if inv_pl < u32::MAX => Some(s),
        _ => Some(first),
    }
}

/// The four corner placements of `shape` inside `hole` (some may coincide).
fn corners(hole: &Submesh, shape: Shape) -> [Submesh; 4] {
    let (x0, y0) = (hole.base.x, hole.base.y);
    let x1 = x0 + hole.shape.w - shape.w;
    let y1 = y0 + hole.shape.h - shape.h;
    [(x0, y0), (x1, y0), (x0, y1), (x1, y1)].map(|(x, y)| Submesh {
        base: Coord { x, y },
        shape,
    })
}

/// The registry's constructor: Mpl on a 2D mesh.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::mesh::build::<MplRule>(super::AllocKind::Mpl, machine)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::mesh::tests::drawn;
    use crate::machine::{Allocator, MplFixed, Placement};
    use crate::workload::Request;

    /// Fig. 1 of window-k-mesh.md, top row first (`#` busy):
    ///   #####
    ///   ###..
    ///   .....
    ///   .....
    const FIG1: &str = "##### ###.. ..... .....";

    fn grant(m: &mut Mpl, w: u32, h: u32) -> Option<(u32, u32, u32, u32)> {
        match m.allocate(&Request::Submesh(Shape::new(w, h)))? {
            Placement::Submesh { at, rotated: false } => Some(at.paper()),
            _ => None,
        }
    }

    /// The granted submesh and whether it was turned.
    fn placed<R: PlacementRule + Clone + 'static>(
        m: &mut MeshAllocator<R>,
        w: u32,
        h: u32,
    ) -> Option<((u32, u32, u32, u32), bool)> {
        match m.allocate(&Request::Submesh(Shape::new(w, h)))? {
            Placement::Submesh { at, rotated } => Some((at.paper(), rotated)),
            _ => None,
        }
    }

    #[test]
    fn example_of_section_3_2() {
        // A 2×1 request gets (4,1,5,1): peripheral length 3 (bottom 2, right 1), tied with
        // (1,1,2,1) (bottom 2, left 1) but in the smaller maximal free submesh (4,1,5,3).
        let mut m = Mpl::with_mesh(drawn(FIG1));
        assert_eq!(grant(&mut m, 2, 1), Some((4, 1, 5, 1)));
    }

    #[test]
    fn example_2_allocations() {
        // window-k-mesh.md Example 2 (the MPL part): 5×3 fails, 5×2 → (1,1,5,2), 2×1 → (4,3,5,3),
        // 4×3 fails.
        let mut m = Mpl::with_mesh(drawn(FIG1));
        assert_eq!(grant(&mut m, 5, 3), None);
        assert_eq!(grant(&mut m, 5, 2), Some((1, 1, 5, 2)));
        assert_eq!(grant(&mut m, 2, 1), Some((4, 3, 5, 3)));
        assert_eq!(grant(&mut m, 4, 3), None);
    }

    #[test]
    fn interior_hole_gets_its_base() {
        // M(5,5), the only free nodes form an internal 3×2 block at (2,2)–(4,3) (1-based):
        //   #####
        //   #####
        //   #...#
        //   #...#
        //   #####
        // A 2×1 touches no border: it goes to the base of the first suitable free submesh.
        let mut m = Mpl::with_mesh(drawn("##### ##### #...# #...# #####"));
        assert_eq!(grant(&mut m, 2, 1), Some((2, 2, 3, 2)));
    }

    #[test]
    fn periphery_beats_scan_order() {
        // M(5,3):
        //   .....
        //   #...#
        //   #####
        // 1×1: first fit would take (2,2) (internal row), MPL takes a top corner (1,3): PL 2.
        let mut m = Mpl::with_mesh(drawn("..... #...# #####"));
        assert_eq!(grant(&mut m, 1, 1), Some((1, 3, 1, 3)));
        // 3×2 only fits at (2,2)–(4,3), touching the top: PL 3.
        assert_eq!(grant(&mut m, 3, 2), Some((2, 2, 4, 3)));
    }

    #[test]
    fn examples_hold_without_turning_too() {
        // Fig. 1 and Example 2 never need a turn: mpl-fixed grants the same submeshes.
        let mut m = MplFixed::with_mesh(drawn(FIG1));
        assert_eq!(placed(&mut m, 2, 1), Some(((4, 1, 5, 1), false)));
        let mut m = MplFixed::with_mesh(drawn(FIG1));
        assert_eq!(placed(&mut m, 5, 3), None);
        assert_eq!(placed(&mut m, 5, 2), Some(((1, 1, 5, 2), false)));
        assert_eq!(placed(&mut m, 2, 1), Some(((4, 3, 5, 3), false)));
        assert_eq!(placed(&mut m, 4, 3), None);
    }

    #[test]
    fn turns_only_when_the_requested_orientation_has_no_room() {
        // M(5,4), a free 2-wide column on the right and the bottom row free:
        //   ###..
        //   ###..
        //   ###..
        //   .....
        let mesh = || drawn("###.. ###.. ###.. .....");
        // 4×1 fits as asked (bottom row, PL 4 + 1 = 5): not turned, although 1×4 at (5,1,5,4)
        // would touch three borders (PL 1 + 4 + 1 = 6).
        assert_eq!(
            placed(&mut Mpl::with_mesh(mesh()), 4, 1),
            Some(((1, 1, 4, 1), false))
        );
        // 2×3 fits as asked in the right-hand column (PL 3 + 2 = 5, lower base first).
        assert_eq!(
            placed(&mut Mpl::with_mesh(mesh()), 2, 3),
            Some(((4, 1, 5, 3), false))
        );
        // 3×2 has no free placement as asked: it is turned and placed as that 2×3.
        assert_eq!(
            placed(&mut Mpl::with_mesh(mesh()), 3, 2),
            Some(((4, 1, 5, 3), true))
        );
        assert_eq!(placed(&mut MplFixed::with_mesh(mesh()), 3, 2), None);
        // 4×3 fits neither way.
        assert_eq!(placed(&mut Mpl::with_mesh(mesh()), 4, 3), None);
        // A square request is never turned.
        assert_eq!(placed(&mut Mpl::with_mesh(mesh()), 3, 3), None);
    }

    #[test]
    fn fits_empty_accepts_either_orientation() {
        let m = Mpl::new(Shape::new(5, 4));
        let f = MplFixed::new(Shape::new(5, 4));
        let tall = Request::Submesh(Shape::new(4, 5));
        assert!(m.fits_empty(&tall));
        assert!(!f.fits_empty(&tall));
        assert!(!m.fits_empty(&Request::Submesh(Shape::new(6, 1))));
    }
}
