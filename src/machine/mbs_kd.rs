//! MBS on a k-dimensional mesh or torus (`mbs` on `mesh:XxYxZ` / `torus:AxBx…`): mbs.rs's Multiple
//! Buddy Strategy with cubes instead of squares. The grid is cut once into cubes of power-of-two
//! side (the largest side `s ≤` the smallest extent tiles the `s`-multiple corner, and the `k`
//! leftover slabs are cut the same way); a cube of side `2^i` splits into `2^k` buddies of side
//! `2^(i−1)`; a request of `n` nodes is written in base `2^k` and asks for `dᵢ` free cubes of side
//! `2^i`, the largest first, splitting the smallest larger free cube or, with none, asking for `2^k`
//! cubes one level down. The free block records are the maximal free buddy cubes, recomputed from
//! the free set at each attempt; within a record the lowest base id goes first and a split keeps
//! the buddy at the base corner. Cubes do not wrap around a torus.

use super::node_set::NodeSet;
use super::{AllocKind, Allocator, SpecError, mismatch};
use crate::resource::{Block, Dims, MachineSpec, Pieces, Placement, Request};

/// MBS on a k-D grid (see the module doc).
#[derive(Debug, Clone)]
pub struct GridMbs {
    machine: MachineSpec,
    dims: Dims,
    /// The initial cubes.
    blocks: Vec<Block>,
    /// Level (log₂ side) of the largest initial cube.
    top: u32,
    nodes: NodeSet,
}

impl GridMbs {
    /// All-free MBS on the grid `dims` (`wrap`: a torus).
    pub fn new(dims: Dims, wrap: bool) -> Self {
        let mut blocks = Vec::new();
        let extents: Vec<u32> = dims.iter().collect();
        cut(dims, &vec![0; dims.len()], &extents, &mut blocks);
        blocks.sort_by_key(|b| b.base);
        let top = blocks
            .iter()
            .map(|b| b.extent.get(0).trailing_zeros())
            .max()
            .unwrap_or(0);
        let machine = MachineSpec::Grid { dims, wrap };
        GridMbs {
            machine,
            dims,
            blocks,
            top,
            nodes: NodeSet::new(machine),
        }
    }

    /// The initial cubes, by base id.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    fn ids(&self, b: &Block) -> impl Iterator<Item = u32> + '_ {
        self.machine
            .node_ids(&Placement::Block(*b))
            .into_iter()
            .flatten()
    }

    /// Adds the maximal free buddy cubes inside `b` to `fbr`.
    fn collect_free(&self, b: Block, fbr: &mut [Vec<Block>]) {
        if self.ids(&b).all(|id| self.nodes.is_node_free(id)) {
            fbr[b.extent.get(0).trailing_zeros() as usize].push(b);
        } else if b.extent.get(0) > 1 {
            for c in children(self.dims, &b) {
                self.collect_free(c, fbr);
            }
        }
    }

    /// The cubes MBS takes for `n` nodes, `None` when fewer are free.
    fn place(&self, n: u32) -> Option<Vec<Block>> {
        if n == 0 || n > self.nodes.count() {
            return None;
        }
        let k = self.dims.len() as u32;
        let top = self.top as usize;
        let mut fbr = vec![Vec::new(); top + 1];
        for b in &self.blocks {
            self.collect_free(*b, &mut fbr);
        }
        for list in &mut fbr {
            list.sort_by_key(|b| b.base);
        }
        let digit = |i: usize| (u64::from(n) >> (k as usize * i)) & ((1u64 << k) - 1);
        let mut want: Vec<u64> = (0..=top).map(digit).collect();
        want[top] = u64::from(n) >> (k as usize * top);
        let mut taken = Vec::new();
        for i in (0..=top).rev() {
            while want[i] > 0 {
                if !fbr[i].is_empty() {
                    taken.push(fbr[i].remove(0));
                } else if let Some(j) = (i + 1..=top).find(|&j| !fbr[j].is_empty()) {
                    let mut b = fbr[j].remove(0);
                    for level in (i..j).rev() {
                        let mut kids = children(self.dims, &b).into_iter();
                        b = kids.next().expect("a cube of side ≥ 2 has buddies");
                        for c in kids {
                            let at = fbr[level].partition_point(|x| x.base < c.base);
                            fbr[level].insert(at, c);
                        }
                    }
                    taken.push(b);
                } else if i > 0 {
                    want[i - 1] += want[i] << k;
                    break;
                } else {
                    return None;
                }
                want[i] -= 1;
            }
        }
        Some(taken)
    }
}

/// The `2^k` buddies of cube `b` (side ≥ 2), base corner first, dimension 0 fastest.
fn children(dims: Dims, b: &Block) -> Vec<Block> {
    let k = dims.len();
    let half = b.extent.get(0) / 2;
    let base = MachineSpec::grid_coords(dims, b.base);
    let extent = Dims::new(&vec![half; k]).expect("positive half side");
    (0..1u32 << k)
        .map(|bits| {
            let c: Vec<u32> = (0..k)
                .map(|i| base[i] + if bits >> i & 1 == 1 { half } else { 0 })
                .collect();
            Block {
                base: id_of(dims, &c),
                extent,
            }
        })
        .collect()
}

/// Node id of coordinates `c` (dimension 0 fastest).
fn id_of(dims: Dims, c: &[u32]) -> u32 {
    (0..c.len()).rev().fold(0u64, |acc, i| {
        acc * u64::from(dims.get(i)) + u64::from(c[i])
    }) as u32
}

/// Cuts the box at `lo` of `extents` into power-of-two cubes (module doc).
fn cut(dims: Dims, lo: &[u32], extents: &[u32], out: &mut Vec<Block>) {
    if extents.contains(&0) {
        return;
    }
    let min = *extents.iter().min().expect("at least one dimension");
    let s = 1u32 << (31 - min.leading_zeros());
    let q: Vec<u32> = extents.iter().map(|&e| e / s).collect();
    let k = extents.len();
    let cubes: u64 = q.iter().map(|&v| u64::from(v)).product();
    let side = Dims::new(&vec![s; k]).expect("positive side");
    for mut i in 0..cubes {
        let c: Vec<u32> = (0..k)
            .map(|d| {
                let v = (i % u64::from(q[d])) as u32;
                i /= u64::from(q[d]);
                lo[d] + v * s
            })
            .collect();
        out.push(Block {
            base: id_of(dims, &c),
            extent: side,
        });
    }
    // Slab d: dimensions before d over the tiled part, d over its leftover, after d in full.
    for d in 0..k {
        let mut slab_lo = lo.to_vec();
        let mut slab_ext = extents.to_vec();
        for j in 0..d {
            slab_ext[j] = q[j] * s;
        }
        slab_lo[d] = lo[d] + q[d] * s;
        slab_ext[d] = extents[d] - q[d] * s;
        cut(dims, &slab_lo, &slab_ext, out);
    }
}

impl Allocator for GridMbs {
    fn machine(&self) -> MachineSpec {
        self.machine
    }

    fn find(&mut self, req: &Request) -> Option<Placement> {
        let n = match *req {
            Request::Block(d) if d.len() == self.dims.len() => req.nodes(),
            Request::Nodes(n) => n,
            _ => return None,
        };
        Some(Placement::Pieces(Pieces::new(self.place(n)?)))
    }

    fn occupy(&mut self, p: &Placement) {
        debug_assert!(
            self.is_free(p),
            "occupying a placement that is not free: {p:?}"
        );
        self.nodes.mark(p, true, |_| {});
    }

    fn vacate(&mut self, p: &Placement) {
        self.nodes.mark(p, false, |_| {});
    }

    fn is_free(&self, p: &Placement) -> bool {
        self.nodes.is_free(p)
    }

    fn free_nodes(&self) -> u32 {
        self.nodes.count()
    }

    fn fits_empty(&self, req: &Request) -> bool {
        let n = match *req {
            Request::Block(d) if d.len() == self.dims.len() => d.volume(),
            Request::Nodes(n) => u64::from(n),
            _ => return false,
        };
        n > 0 && n <= u64::from(self.machine.nodes())
    }

    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }

    /// MBS places any request of at most the free nodes: a count.
    fn fits(&mut self, req: &Request) -> bool {
        let n = match *req {
            Request::Block(d) if d.len() == self.dims.len() => d.volume(),
            Request::Nodes(n) => u64::from(n),
            _ => return false,
        };
        n > 0 && n <= u64::from(self.nodes.count())
    }

    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        self.occupy(taken);
        let fits = self.fits(req);
        self.vacate(taken);
        fits
    }
}

/// MBS on a k-D grid; other machines are not grids.
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    match machine {
        MachineSpec::Grid { dims, wrap } => Ok(Box::new(GridMbs::new(dims, wrap))),
        _ => Err(mismatch(AllocKind::Mbs, machine)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_initial_cut_covers_the_grid_with_cubes() {
        // 6x4x4: one 4x4x4 cube, then the 2x4x4 slab as four 2x2x2 cubes.
        let m = GridMbs::new(Dims::new(&[6, 4, 4]).unwrap(), false);
        let sides: Vec<u32> = m.blocks().iter().map(|b| b.extent.get(0)).collect();
        assert_eq!(sides.iter().filter(|&&s| s == 4).count(), 1);
        assert_eq!(sides.iter().filter(|&&s| s == 2).count(), 4);
        let total: u64 = m.blocks().iter().map(|b| b.extent.volume()).sum();
        assert_eq!(total, 96);
        // 2x2x2x8x9 (the sdsc-96 torus): cubes of side 2 cover it.
        let t = GridMbs::new(Dims::new(&[2, 2, 2, 8, 9]).unwrap(), true);
        let total: u64 = t.blocks().iter().map(|b| b.extent.volume()).sum();
        assert_eq!(total, 576);
    }

    #[test]
    fn a_request_is_written_in_base_8() {
        // 4x4x4, 19 nodes = 2·8 + 3·1: two 2x2x2 cubes, three single nodes.
        let mut m = GridMbs::new(Dims::new(&[4, 4, 4]).unwrap(), false);
        let p = m.allocate(&Request::Nodes(19)).unwrap();
        let Placement::Pieces(ps) = &p else {
            panic!("pieces")
        };
        let sides: Vec<u32> = ps.boxes().iter().map(|b| b.extent.get(0)).collect();
        assert_eq!(sides, [2, 2, 1, 1, 1]);
        // The 4x4x4 cube split: its base-corner 2x2x2 first, then the next along x.
        assert_eq!(ps.boxes()[0].base, 0);
        assert_eq!(ps.boxes()[1].base, 2);
        assert_eq!(m.free_nodes(), 45);
        m.vacate(&p);
        assert_eq!(m.free_nodes(), 64);
        assert_eq!(
            m.find(&Request::Nodes(64)).map(|p| p.to_string()),
            Some("@0+4x4x4".to_string())
        );
    }
}
