//! Paging on a k-dimensional mesh or torus (`paging:K[:order]` on `mesh:XxYxZ` / `torus:AxBx…`):
//! Lo et al.'s Paging (paging.rs) with pages of `2^K` nodes along every dimension, the boxes
//! `[2^K·p, 2^K·(p+1))` per dimension (clipped at the far faces; pages do not wrap on a torus).
//! Page orders generalise the 2D ones: row-major is dimension 0 fastest; snake reverses dimension 0
//! on every other row of pages; shuffled interleaves the page coordinates' bits (dimension 0
//! lowest). A job of `n` nodes takes the first free pages in that order until it holds `n` nodes.
//!
//! The state is a free flag per node and a busy count per page, so a find is one pass over the
//! pages; pages side by side along dimension 0 are recorded as one box.

use super::node_set::NodeSet;
use super::page_spec::{PageOrder, PageSpec};
use super::{AllocKind, Allocator, SpecError, mismatch};
use crate::resource::{Block, Dims, MachineSpec, Pieces, Placement, Request};

/// Paging on a k-D grid (see the module doc).
#[derive(Debug, Clone)]
pub struct GridPaging {
    machine: MachineSpec,
    /// Pages in page order.
    pages: Vec<Block>,
    /// Page (its position in `pages`) of every node.
    page_of: Vec<u32>,
    /// Busy nodes of every page.
    busy_in: Vec<u32>,
    nodes: NodeSet,
}

impl GridPaging {
    /// All-free paging `spec` on the grid `dims` (`wrap`: a torus).
    pub fn new(dims: Dims, wrap: bool, spec: PageSpec) -> Self {
        let k = dims.len();
        let side = 1u32 << spec.k;
        let counts: Vec<u32> = dims.iter().map(|d| d.div_ceil(side)).collect();
        let total: usize = counts.iter().map(|&c| c as usize).product();
        // Page grid coordinates, dimension 0 fastest.
        let mut grid: Vec<Vec<u32>> = (0..total)
            .map(|mut i| {
                counts
                    .iter()
                    .map(|&c| {
                        let v = (i % c as usize) as u32;
                        i /= c as usize;
                        v
                    })
                    .collect()
            })
            .collect();
        match spec.order {
            PageOrder::RowMajor => {}
            PageOrder::Snake => grid.sort_by_key(|p| {
                let row: u64 = p[1..]
                    .iter()
                    .zip(&counts[1..])
                    .rev()
                    .fold(0, |acc, (&v, &c)| acc * u64::from(c) + u64::from(v));
                let x = if row % 2 == 1 {
                    counts[0] - 1 - p[0]
                } else {
                    p[0]
                };
                (row, x)
            }),
            PageOrder::Shuffled => grid.sort_by_key(|p| morton(p)),
        }
        let machine = MachineSpec::Grid { dims, wrap };
        let mut page_of = vec![0u32; machine.nodes() as usize];
        let pages: Vec<Block> = grid
            .iter()
            .enumerate()
            .map(|(n, p)| {
                let extent: Vec<u32> = (0..k)
                    .map(|i| side.min(dims.get(i) - p[i] * side))
                    .collect();
                let base = id_of(dims, &p.iter().map(|&v| v * side).collect::<Vec<_>>());
                let b = Block {
                    base,
                    extent: Dims::new(&extent).expect("positive page extents"),
                };
                for id in machine
                    .node_ids(&Placement::Block(b))
                    .expect("a page lies on its grid")
                {
                    page_of[id as usize] = n as u32;
                }
                b
            })
            .collect();
        GridPaging {
            machine,
            busy_in: vec![0; pages.len()],
            pages,
            page_of,
            nodes: NodeSet::new(machine),
        }
    }

    /// Marks `p`'s nodes busy (or free), keeping the pages' busy counts.
    fn mark(&mut self, p: &Placement, busy: bool) {
        let (page_of, busy_in) = (&self.page_of, &mut self.busy_in);
        self.nodes.mark(p, busy, |id| {
            let page = &mut busy_in[page_of[id as usize] as usize];
            if busy {
                *page += 1;
            } else {
                *page -= 1;
            }
        });
    }
}

/// Node id of coordinates `c` (dimension 0 fastest).
fn id_of(dims: Dims, c: &[u32]) -> u32 {
    (0..c.len()).rev().fold(0u64, |acc, i| {
        acc * u64::from(dims.get(i)) + u64::from(c[i])
    }) as u32
}

/// Z-order key: bit `b` of coordinate `i` at position `b·k + i`.
fn morton(p: &[u32]) -> u128 {
    let k = p.len() as u32;
    let mut key = 0u128;
    for bit in 0..16u32 {
        for (i, &v) in p.iter().enumerate() {
            key |= u128::from(v >> bit & 1) << (bit * k + i as u32);
        }
    }
    key
}

/// `pages` with each page that follows the previous one along dimension 0 (same other coordinates
/// and extents) merged into it.
pub(super) fn coalesce(dims: Dims, pages: Vec<Block>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::with_capacity(pages.len());
    for b in pages {
        if let Some(last) = out.last_mut() {
            let e0 = last.extent.get(0);
            let x = last.base % dims.get(0);
            let same_rest = (1..dims.len()).all(|i| last.extent.get(i) == b.extent.get(i));
            if same_rest && x + e0 < dims.get(0) && b.base == last.base + e0 {
                let mut ext: Vec<u32> = last.extent.iter().collect();
                ext[0] += b.extent.get(0);
                last.extent = Dims::new(&ext).expect("positive extents");
                continue;
            }
        }
        out.push(b);
    }
    out
}

impl Allocator for GridPaging {
    fn machine(&self) -> MachineSpec {
        self.machine
    }

    fn find(&mut self, req: &Request) -> Option<Placement> {
        let need = match *req {
            Request::Block(d) if d.len() == self.pages[0].extent.len() => req.nodes(),
            Request::Nodes(n) => n,
            _ => return None,
        };
        if need == 0 || need > self.nodes.count() {
            return None;
        }
        let mut held = 0u64;
        let mut taken = Vec::new();
        for (p, b) in self.pages.iter().enumerate() {
            if held >= u64::from(need) {
                break;
            }
            if self.busy_in[p] == 0 {
                held += b.extent.volume();
                taken.push(*b);
            }
        }
        let MachineSpec::Grid { dims, .. } = self.machine else {
            return None;
        };
        (held >= u64::from(need)).then(|| Placement::Pieces(Pieces::new(coalesce(dims, taken))))
    }

    fn occupy(&mut self, p: &Placement) {
        debug_assert!(
            self.is_free(p),
            "occupying a placement that is not free: {p:?}"
        );
        self.mark(p, true);
    }

    fn vacate(&mut self, p: &Placement) {
        self.mark(p, false);
    }

    /// On the grid, every node free, no node twice.
    fn is_free(&self, p: &Placement) -> bool {
        self.nodes.is_free(p)
    }

    fn free_nodes(&self) -> u32 {
        self.nodes.count()
    }

    fn fits_empty(&self, req: &Request) -> bool {
        match *req {
            Request::Block(d) => {
                d.len() == self.pages[0].extent.len() && {
                    let n = d.volume();
                    n > 0 && n <= u64::from(self.machine.nodes())
                }
            }
            Request::Nodes(n) => n > 0 && n <= self.machine.nodes(),
            _ => false,
        }
    }

    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }

    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        self.occupy(taken);
        let fits = self.fits(req);
        self.vacate(taken);
        fits
    }
}

/// Paging `spec` on a k-D grid; other machines are not grids.
pub(super) fn build(spec: PageSpec, machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    match machine {
        MachineSpec::Grid { dims, wrap } => Ok(Box::new(GridPaging::new(dims, wrap, spec))),
        _ => Err(mismatch(AllocKind::Paging(spec), machine)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(label: &str) -> PageSpec {
        PageSpec::parse(label).unwrap()
    }

    #[test]
    fn pages_of_a_4x4x2_grid() {
        let d = Dims::new(&[4, 4, 2]).unwrap();
        let p = GridPaging::new(d, false, spec("1"));
        let bases: Vec<u32> = p.pages.iter().map(|b| b.base).collect();
        // 2x2x2 pages: (0,0,0) (2,0,0) (0,2,0) (2,2,0), dimension 0 fastest.
        assert_eq!(bases, [0, 2, 8, 10]);
        let z = GridPaging::new(d, false, spec("0:shuffled"));
        let first: Vec<u32> = z.pages.iter().take(8).map(|b| b.base).collect();
        // Z order of 1x1x1 pages: x bit lowest, then y, then z.
        assert_eq!(first, [0, 1, 4, 5, 16, 17, 20, 21]);
        let s = GridPaging::new(Dims::new(&[3, 2, 1]).unwrap(), false, spec("0:snake"));
        let bases: Vec<u32> = s.pages.iter().map(|b| b.base).collect();
        assert_eq!(bases, [0, 1, 2, 5, 4, 3]);
    }

    #[test]
    fn a_job_takes_the_first_free_pages_and_gives_them_back() {
        let torus: MachineSpec = "torus:4x4x4".parse().unwrap();
        let mut a = build(spec("1"), torus).unwrap();
        let req = Request::Block(Dims::new(&[3, 3, 1]).unwrap());
        let p = a.allocate(&req).unwrap();
        // 9 nodes: two 2x2x2 pages side by side along x, one box of 4x2x2 (16 nodes).
        assert_eq!(p.to_string(), "@0+4x2x2");
        assert_eq!(a.free_nodes(), 48);
        let q = a
            .allocate(&Request::Block(Dims::new(&[2, 2, 2]).unwrap()))
            .unwrap();
        assert_eq!(q.to_string(), "@8+2x2x2");
        a.vacate(&p);
        assert_eq!(a.free_nodes(), 56);
        assert!(a.is_free(&p));
        assert!(!a.is_free(&q));
        assert_eq!(
            a.find(&Request::Block(Dims::new(&[8, 8, 1]).unwrap())),
            None
        );
    }

    #[test]
    fn adjacent_pages_merge_along_dimension_0_only_within_a_row() {
        let d = Dims::new(&[4, 2]).unwrap();
        let one = |base| Block {
            base,
            extent: Dims::new(&[1, 1]).unwrap(),
        };
        let got = coalesce(d, vec![one(2), one(3), one(4), one(5)]);
        let shown: Vec<String> = got
            .iter()
            .map(|b| format!("{}+{}", b.base, b.extent))
            .collect();
        assert_eq!(shown, ["2+2x1", "4+2x1"], "3 and 4 are in different rows");
    }
}
