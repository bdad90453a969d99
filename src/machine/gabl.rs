//! Greedy Available Busy List, GABL (Bani-Mohammad, Ould-Khaoua, Ababneh & Mackenzie, 2D meshes,
//! ICPADS 2006 and AICCSA 2007; boxes on k-D grids in `gabl_kd.rs`): a `w × h` request is first allocated contiguously if a free `w × h` (or
//! `h × w`) submesh exists; otherwise it is allocated greedily, piece by piece: each time the largest
//! free submesh whose sides do not exceed the request's sides and whose size does not exceed the
//! nodes still needed, until exactly `w·h` nodes are held. The busy list of the papers is how they
//! find free submeshes; here the free set is the mesh bitmap and the candidates are its maximal
//! free submeshes (every free submesh lies inside one). A job waits only when fewer than `w·h`
//! nodes are free.
//!
//! Choices (docs/ALGORITHMS.md): the contiguous attempt is first fit (lowest base row, then
//! column), the requested orientation before the turned one; a greedy piece may be turned (its
//! sides within `w × h` or `h × w`); ties between equally large pieces go to the requested
//! orientation, then to the maximal free submesh with the lowest base, the piece being put at that
//! submesh's lower-left corner.

use super::grid_pieces::GridPieceAllocator;
use super::gabl_kd::GablKd;
use super::noncontig::{self, PieceRule, take_greedily};
use super::{AllocKind, Allocator, Mesh, SpecError};
use crate::resource::{MachineSpec, Shape, Submesh};

/// The GABL rule (no parameters).
#[derive(Debug, Clone, Copy, Default)]
pub struct Gabl;

/// The largest `w' × h'` with `w' ≤ max.w`, `h' ≤ max.h` and `w'·h' ≤ need` (the widest among equal
/// areas), or `None` when `max` is empty.
pub fn largest_within(max: Shape, need: u32) -> Option<Shape> {
    (1..=max.w)
        .filter_map(|w| {
            let h = max.h.min(need / w);
            (h > 0).then(|| Shape::new(w, h))
        })
        .max_by_key(|s| (s.area(), s.w))
}

/// The largest free piece of at most `need` nodes with sides within `req` (either orientation).
fn next_piece(mesh: &Mesh, req: Shape, need: u32) -> Option<Submesh> {
    let mut best: Option<(u32, bool, Submesh)> = None;
    for hole in mesh.maximal_free_submeshes(Shape::new(1, 1)) {
        for (turned, bound) in [(false, req), (true, req.rotated())] {
            let max = Shape::new(bound.w.min(hole.shape.w), bound.h.min(hole.shape.h));
            // No piece here beats the best when even `max` (capped at `need`) is no larger: skip
            // the search (the same choice as searching, without the `w` loop).
            let most = max.area().min(need);
            if let Some((area, best_turned, _)) = best
                && (most < area || (most == area && (turned || !best_turned)))
            {
                continue;
            }
            let Some(shape) = largest_within(max, need) else {
                continue;
            };
            let better = match best {
                None => true,
                Some((area, best_turned, _)) => {
                    shape.area() > area || (shape.area() == area && best_turned && !turned)
                }
            };
            if better {
                best = Some((shape.area(), turned, Submesh { base: hole.base, shape }));
            }
        }
    }
    best.map(|(_, _, s)| s)
}

impl PieceRule for Gabl {
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<Vec<Submesh>> {
        let n = shape.w.checked_mul(shape.h)?;
        if n == 0 || n > mesh.free_nodes() {
            return None;
        }
        if let Some(s) = mesh.first_fit(shape).or_else(|| mesh.first_fit(shape.rotated())) {
            return Some(vec![s]);
        }
        take_greedily(mesh, n, |m, need| next_piece(m, shape, need))
    }
}

/// The registry's constructor: GABL on a 2D mesh, or on a k-D mesh or torus (`gabl_kd.rs`).
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    match machine {
        MachineSpec::Grid { dims, wrap } => Ok(Box::new(GridPieceAllocator::new(dims, wrap, GablKd))),
        _ => noncontig::build(AllocKind::Gabl, machine, Gabl),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_shape_within_bounds() {
        assert_eq!(largest_within(Shape::new(4, 3), 12), Some(Shape::new(4, 3)));
        assert_eq!(largest_within(Shape::new(4, 3), 7), Some(Shape::new(3, 2)));
        assert_eq!(largest_within(Shape::new(4, 3), 1), Some(Shape::new(1, 1)));
        assert_eq!(largest_within(Shape::new(0, 3), 5), None);
    }

    #[test]
    fn contiguous_first_then_largest_pieces() {
        // 4x4 mesh with its middle 2x2 busy: a 4x2 (or 2x4) request has no contiguous place, so it
        // is split.
        let mut mesh = Mesh::new(Shape::new(4, 4));
        assert_eq!(
            Gabl.place(&mut mesh, Shape::new(2, 3)),
            Some(vec![Submesh::from_paper(1, 1, 2, 3)]),
            "contiguous when it fits"
        );
        mesh.occupy(&Submesh::from_paper(2, 2, 3, 3));
        let got = Gabl.place(&mut mesh, Shape::new(4, 2)).unwrap();
        let total: u32 = got.iter().map(|s| s.shape.area()).sum();
        assert_eq!(total, 8);
        // The largest free piece within 4x2 is a 4x1 row (bottom row first), then the top row.
        assert_eq!(got[0], Submesh::from_paper(1, 1, 4, 1));
        assert_eq!(got[1], Submesh::from_paper(1, 4, 4, 4));
        assert_eq!(mesh.free_nodes(), 12, "the mesh is left as it was");
    }
}
