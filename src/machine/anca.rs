//! Adaptive Non-Contiguous Allocation, ANCA (Chang & Mohapatra, "Performance improvement of
//! allocation schemes for mesh-connected computers", JPDC 52(1), 1998): a `w × h` request is first
//! tried as one contiguous frame; when that fails it is partitioned into two equal subframes (its
//! longer side halved), and all subframes are tried at once; each further level halves every
//! subframe again, until all subframes of a level are placed (the job gets them) or the subframes
//! are single nodes and still do not fit (the job waits). With single-node subframes every `w·h`
//! free nodes fit, so a job waits only when fewer are free; exactly `w·h` nodes are granted.
//!
//! Choices (docs/ALGORITHMS.md): subframes are placed one at a time, the largest first (equal sizes
//! in partition order), each by first fit (lowest base row, then column), its requested orientation
//! before the turned one; an odd side splits into `⌈s/2⌉` and `⌊s/2⌋`; the longer side is halved
//! (the width when both are equal); no level limit.

use super::grid_pieces::GridPieceAllocator;
use super::anca_kd::AncaKd;
use super::noncontig::{self, PieceRule, take_greedily};
use super::{AllocKind, Allocator, Mesh, SpecError};
use crate::resource::{MachineSpec, Shape, Submesh};

/// The ANCA rule (no parameters).
#[derive(Debug, Clone, Copy, Default)]
pub struct Anca;

/// The two halves of `s` (its longer side halved, the width when square), or `s` alone when it is
/// a single node.
pub fn halves(s: Shape) -> Vec<Shape> {
    if s.w >= s.h && s.w > 1 {
        vec![Shape::new(s.w.div_ceil(2), s.h), Shape::new(s.w / 2, s.h)]
    } else if s.h > 1 {
        vec![Shape::new(s.w, s.h.div_ceil(2)), Shape::new(s.w, s.h / 2)]
    } else {
        vec![s]
    }
}

/// Places every frame (largest first), or none: the mesh is left as it was.
fn place_all(mesh: &mut Mesh, frames: &[Shape]) -> Option<Vec<Submesh>> {
    let mut order: Vec<Shape> = frames.to_vec();
    order.sort_by_key(|s| std::cmp::Reverse(s.area()));
    let need = order.iter().map(|s| s.area()).sum();
    let mut next = order.into_iter();
    // Each frame placed adds its own area: all are held exactly when every frame is placed.
    take_greedily(mesh, need, |mesh, _| {
        let f = next.next()?;
        mesh.first_fit(f).or_else(|| mesh.first_fit(f.rotated()))
    })
}

impl PieceRule for Anca {
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<Vec<Submesh>> {
        let n = shape.w.checked_mul(shape.h)?;
        if n == 0 || n > mesh.free_nodes() {
            return None;
        }
        let mut frames = vec![shape];
        loop {
            if let Some(got) = place_all(mesh, &frames) {
                return Some(got);
            }
            if frames.iter().all(|f| f.area() == 1) {
                return None;
            }
            frames = frames.into_iter().flat_map(halves).collect();
        }
    }
}

/// The registry's constructor: ANCA on a 2D mesh, or on a k-D mesh or torus (`anca_kd.rs`).
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    match machine {
        MachineSpec::Grid { dims, wrap } => Ok(Box::new(GridPieceAllocator::new(dims, wrap, AncaKd))),
        _ => noncontig::build(AllocKind::Anca, machine, Anca),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_takes_the_longer_side() {
        assert_eq!(halves(Shape::new(5, 2)), [Shape::new(3, 2), Shape::new(2, 2)]);
        assert_eq!(halves(Shape::new(2, 3)), [Shape::new(2, 2), Shape::new(2, 1)]);
        assert_eq!(halves(Shape::new(1, 1)), [Shape::new(1, 1)]);
    }

    #[test]
    fn contiguous_first_then_halves() {
        let mut mesh = Mesh::new(Shape::new(4, 4));
        assert_eq!(
            Anca.place(&mut mesh, Shape::new(4, 2)),
            Some(vec![Submesh::from_paper(1, 1, 4, 2)])
        );
        // Middle 2x2 busy: 4x2 fails, and so do its halves 2x2 and 2x2 (every 2x2 of the mesh
        // touches the middle), so level 2: four 1x2 frames.
        mesh.occupy(&Submesh::from_paper(2, 2, 3, 3));
        let got = Anca.place(&mut mesh, Shape::new(4, 2)).unwrap();
        let shapes: Vec<String> = got.iter().map(|s| s.shape.to_string()).collect();
        assert_eq!(shapes, ["1x2", "1x2", "1x2", "1x2"]);
        assert_eq!(got[0], Submesh::from_paper(1, 1, 1, 2), "first fit");
        assert_eq!(mesh.free_nodes(), 12);
    }
}
