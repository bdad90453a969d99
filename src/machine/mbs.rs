//! The Multiple Buddy Strategy, MBS (Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor
//! allocation algorithms for mesh-connected multicomputers", IEEE TPDS 8(7), 1997): the mesh is cut
//! once into square blocks of power-of-two sides; each block is a 2D buddy system (a block of side
//! `2^i` splits into four buddies of side `2^(i−1)`, and four free buddies merge back). A request for
//! `n` nodes is written in base 4, `n = Σ dᵢ·4^i`, and asks for `dᵢ` free blocks of side `2^i`, the
//! largest first. A block of side `2^i` is taken from the free block record `FBR[i]`; when that is
//! empty, the smallest larger free block is split down to side `2^i`; when there is none, the
//! request for it becomes four requests for blocks of side `2^(i−1)`. A job is allocated whenever
//! `n` nodes are free: exactly `n` nodes, no internal fragmentation.
//!
//! Choices (docs/ALGORITHMS.md): the initial cut of a mesh whose sides are not powers of two takes
//! the largest power-of-two squares that tile a row-major band, recursively on the leftover strips
//! ([`initial_blocks`]); the free block records are the maximal free buddy blocks, which is what
//! splitting and eager merging keep (so they follow from the free set alone); within a record the
//! block with the lowest base (row-major: lowest `y`, then `x`) is taken, and a split keeps the
//! lower-left quarter; the request's digits above the largest block's level are carried down to it.

use super::noncontig::{self, PieceRule};
use super::{AllocKind, Allocator, Mesh, SpecError};
use crate::resource::{Coord, MachineSpec, Shape, Submesh};

/// The MBS rule: the mesh's initial blocks.
#[derive(Debug, Clone)]
pub struct Mbs {
    blocks: Vec<Submesh>,
    /// Level (log₂ side) of the largest initial block.
    top: u32,
}

impl Mbs {
    /// The rule for a `size` mesh.
    pub fn new(size: Shape) -> Self {
        let blocks = initial_blocks(size);
        let top = blocks
            .iter()
            .map(|b| b.shape.w.trailing_zeros())
            .max()
            .unwrap_or(0);
        Mbs { blocks, top }
    }

    /// The initial blocks.
    pub fn blocks(&self) -> &[Submesh] {
        &self.blocks
    }

    /// The free block records of `mesh`: `FBR[i]` holds the maximal free buddy blocks of side `2^i`,
    /// ordered by base (row-major).
    pub fn free_block_records(&self, mesh: &Mesh) -> Vec<Vec<Submesh>> {
        let mut fbr = vec![Vec::new(); self.top as usize + 1];
        for b in &self.blocks {
            collect_free(mesh, *b, &mut fbr);
        }
        for list in &mut fbr {
            list.sort_by_key(|s| (s.base.y, s.base.x));
        }
        fbr
    }
}

/// The power-of-two squares that tile `size`: the largest side `s ≤ min(w, h)` tiles the
/// `s·⌊w/s⌋ × s·⌊h/s⌋` lower-left part; the strip to its right and the strip above it are cut the
/// same way.
pub fn initial_blocks(size: Shape) -> Vec<Submesh> {
    let mut out = Vec::new();
    cut(Coord { x: 0, y: 0 }, size, &mut out);
    out.sort_by_key(|s| (s.base.y, s.base.x));
    out
}

fn cut(base: Coord, size: Shape, out: &mut Vec<Submesh>) {
    if size.w == 0 || size.h == 0 {
        return;
    }
    let s = 1u32 << (31 - size.w.min(size.h).leading_zeros());
    let (cols, rows) = (size.w / s, size.h / s);
    for r in 0..rows {
        for c in 0..cols {
            out.push(Submesh {
                base: Coord {
                    x: base.x + c * s,
                    y: base.y + r * s,
                },
                shape: Shape::new(s, s),
            });
        }
    }
    let right = Coord {
        x: base.x + cols * s,
        y: base.y,
    };
    cut(right, Shape::new(size.w - cols * s, size.h), out);
    let above = Coord {
        x: base.x,
        y: base.y + rows * s,
    };
    cut(above, Shape::new(cols * s, size.h - rows * s), out);
}

/// Adds the maximal free buddy blocks inside block `b` to `fbr`.
fn collect_free(mesh: &Mesh, b: Submesh, fbr: &mut [Vec<Submesh>]) {
    if mesh.is_free(&b) {
        fbr[b.shape.w.trailing_zeros() as usize].push(b);
    } else if b.shape.w > 1 {
        for q in quarters(b) {
            collect_free(mesh, q, fbr);
        }
    }
}

/// The four buddies of block `b` (side ≥ 2): lower-left, lower-right, upper-left, upper-right.
fn quarters(b: Submesh) -> [Submesh; 4] {
    let h = b.shape.w / 2;
    let at = |dx, dy| Submesh {
        base: Coord {
            x: b.base.x + dx,
            y: b.base.y + dy,
        },
        shape: Shape::new(h, h),
    };
    [at(0, 0), at(h, 0), at(0, h), at(h, h)]
}

/// Takes the first block of `list` (the lowest base: the lists are kept sorted).
fn take_first(list: &mut Vec<Submesh>) -> Option<Submesh> {
    (!list.is_empty()).then(|| list.remove(0))
}

/// Puts `b` into its sorted list.
fn put(list: &mut Vec<Submesh>, b: Submesh) {
    let key = (b.base.y, b.base.x);
    let i = list.partition_point(|s| (s.base.y, s.base.x) < key);
    list.insert(i, b);
}

impl PieceRule for Mbs {
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<Vec<Submesh>> {
        let n = shape.w.checked_mul(shape.h)?;
        if n == 0 || n > mesh.free_nodes() {
            return None;
        }
        let mut fbr = self.free_block_records(mesh);
        // Digits of n in base 4; those above the top level carried down to it.
        let top = self.top as usize;
        let mut want: Vec<u64> = (0..=top)
            .map(|i| u64::from(n) >> (2 * i) & 3)
            .collect();
        want[top] = u64::from(n) >> (2 * top);
        let mut taken = Vec::new();
        for i in (0..=top).rev() {
            while want[i] > 0 {
                if let Some(b) = take_first(&mut fbr[i]) {
                    taken.push(b);
                } else if let Some(j) = (i + 1..=top).find(|&j| !fbr[j].is_empty()) {
                    let mut b = take_first(&mut fbr[j]).expect("checked non-empty");
                    for level in (i..j).rev() {
                        let [keep, rest @ ..] = quarters(b);
                        for q in rest {
                            put(&mut fbr[level], q);
                        }
                        b = keep;
                    }
                    taken.push(b);
                } else if i > 0 {
                    want[i - 1] += 4 * want[i];
                    break;
                } else {
                    // Every free node lies in some record: unreachable with n ≤ free nodes.
                    return None;
                }
                want[i] -= 1;
            }
        }
        Some(taken)
    }
}

/// The registry's constructor: MBS on a 2D mesh, or with cubes on a k-D mesh or torus (mbs_kd.rs).
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    let size = match machine {
        MachineSpec::Mesh { size } => size,
        MachineSpec::Grid { .. } => return super::mbs_kd::build(machine),
        _ => Shape::new(1, 1),
    };
    noncontig::build(AllocKind::Mbs, machine, Mbs::new(size))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Request;

    fn shown(v: &[Submesh]) -> Vec<String> {
        v.iter()
            .map(|s| format!("{},{}:{}", s.base.x, s.base.y, s.shape.w))
            .collect()
    }

    #[test]
    fn initial_blocks_of_the_paragon_mesh() {
        // 22x16: one 16x16, then the 6x16 strip: four 4x4 in a column, then 2x2 pieces.
        let b = initial_blocks(Shape::new(22, 16));
        let total: u32 = b.iter().map(|s| s.shape.area()).sum();
        assert_eq!(total, 352);
        let sides: Vec<u32> = b.iter().map(|s| s.shape.w).collect();
        assert_eq!(sides.iter().filter(|&&s| s == 16).count(), 1);
        assert_eq!(sides.iter().filter(|&&s| s == 4).count(), 4);
        assert_eq!(sides.iter().filter(|&&s| s == 2).count(), 8);
        // 12x12: one 8x8, then 4x4 pieces in the strips (three on the right, two above).
        let b = initial_blocks(Shape::new(12, 12));
        assert_eq!(shown(&b[..2]), ["0,0:8", "8,0:4"]);
        assert_eq!(b.len(), 6);
    }

    #[test]
    fn a_request_is_written_in_base_4() {
        // 8x8 mesh, 27 nodes = 1·16 + 2·4 + 3·1: one 4x4, two 2x2, three 1x1.
        let mut mesh = Mesh::new(Shape::new(8, 8));
        let got = Mbs::new(Shape::new(8, 8)).place(&mut mesh, Shape::new(9, 3)).unwrap();
        let sides: Vec<u32> = got.iter().map(|s| s.shape.w).collect();
        assert_eq!(sides, [4, 2, 2, 1, 1, 1]);
        // The 8x8 block split: the 4x4 at the lower left, the 2x2s in the next quarter.
        assert_eq!(shown(&got[..3]), ["0,0:4", "4,0:2", "6,0:2"]);
        assert_eq!(mesh.free_nodes(), 64, "the mesh is left as it was");
    }

    #[test]
    fn a_missing_block_becomes_four_smaller_ones() {
        // 4x4 mesh with one busy node in each 2x2 quarter: no 2x2 buddy block is free, so a 4-node
        // request takes four 1x1 blocks.
        let mut mesh = Mesh::new(Shape::new(4, 4));
        for (x, y) in [(0, 0), (2, 0), (0, 2), (2, 2)] {
            mesh.occupy(&Submesh::from_paper(x + 1, y + 1, x + 1, y + 1));
        }
        let got = Mbs::new(Shape::new(4, 4)).place(&mut mesh, Shape::new(2, 2)).unwrap();
        assert_eq!(shown(&got), ["1,0:1", "3,0:1", "0,1:1", "1,1:1"]);
        // On the empty machine the same request is one 2x2 block.
        let mut a = build("mesh:4x4".parse().unwrap()).unwrap();
        let p = a.allocate(&Request::Submesh(Shape::new(2, 2))).unwrap();
        assert_eq!(p.to_string(), "@0+2x2");
    }
}
