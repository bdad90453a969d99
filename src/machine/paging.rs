//! Paging (Lo, Windisch, Liu & Nitzberg, "Noncontiguous processor allocation algorithms for
//! mesh-connected multicomputers", IEEE TPDS 8(7), 1997, the Paging(size_index) algorithm): the mesh
//! is cut into pages of `2^K × 2^K` nodes, kept in a fixed page order; a job asking for `n` nodes
//! gets the first `⌈n / page⌉` free pages in that order, or waits. `K = 0` is one node per page: any
//! `n` free nodes, the least contiguous and fragmentation-free extreme.
//!
//! Labels: `paging:K` (row-major page order), `paging:K:snake` (row-major with every other row of
//! pages reversed), `paging:K:shuffled` (shuffled row-major: the pages' column and row bits
//! interleaved, a Z order). Choices where the paper is silent or assumes more (docs/ALGORITHMS.md):
//!
//! * a mesh side that is not a multiple of `2^K` leaves narrower pages along the right and top
//!   edges; they are pages like the others (the paper assumes the sides are multiples), and a job
//!   takes pages in order until it holds at least `n` nodes;
//! * the surplus of the last page is the job's: internal fragmentation, shown in the granted size.

use super::noncontig::{self, PieceRule};
use super::page_spec::{PageOrder, PageSpec};
use super::{AllocKind, Allocator, Mesh, SpecError};
use crate::resource::{Coord, MachineSpec, Shape, Submesh};

/// The paging rule: the mesh's pages in page order.
#[derive(Debug, Clone)]
pub struct Paging {
    pages: Vec<Submesh>,
}

impl Paging {
    /// The pages of a `size` mesh for `spec`, in page order.
    pub fn new(size: Shape, spec: PageSpec) -> Self {
        let side = 1u32 << spec.k;
        let (cols, rows) = (size.w.div_ceil(side), size.h.div_ceil(side));
        let mut grid: Vec<(u32, u32)> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (c, r)))
            .collect();
        match spec.order {
            PageOrder::RowMajor => {}
            PageOrder::Snake => {
                grid.sort_by_key(|&(c, r)| (r, if r % 2 == 1 { cols - 1 - c } else { c }))
            }
            PageOrder::Shuffled => grid.sort_by_key(|&(c, r)| interleave(c, r)),
        }
        let pages = grid
            .into_iter()
            .map(|(c, r)| {
                let base = Coord {
                    x: c * side,
                    y: r * side,
                };
                let shape = Shape::new(side.min(size.w - base.x), side.min(size.h - base.y));
                Submesh { base, shape }
            })
            .collect();
        Paging { pages }
    }

    /// The pages, in page order.
    pub fn pages(&self) -> &[Submesh] {
        &self.pages
    }
}

/// The Z-order key of page `(c, r)`: bits of `c` in the even positions, of `r` in the odd ones.
fn interleave(c: u32, r: u32) -> u64 {
    let spread = |v: u32| {
        (0..32).fold(0u64, |acc, bit| {
            acc | (u64::from(v >> bit & 1) << (2 * bit))
        })
    };
    spread(c) | spread(r) << 1
}

impl PieceRule for Paging {
    /// Single-node pages place any request of at most the free nodes; larger pages need free pages.
    fn places_any_free(&self) -> bool {
        self.pages.iter().all(|p| p.shape.area() == 1)
    }

    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<Vec<Submesh>> {
        let need = shape.w.checked_mul(shape.h)?;
        if need > mesh.free_nodes() {
            return None;
        }
        let mut held = 0u32;
        let mut taken = Vec::new();
        for page in &self.pages {
            if held >= need {
                break;
            }
            if mesh.is_free(page) {
                held += page.shape.area();
                taken.push(*page);
            }
        }
        (held >= need).then_some(taken)
    }

    /// Whole pages in page order: the first pages of the order until `n` nodes are held.
    fn granted_empty(&self, size: Shape, shape: Shape) -> Option<u32> {
        let need = shape.w.checked_mul(shape.h)?;
        if need == 0 || need > size.area() {
            return None;
        }
        let mut held = 0;
        for page in &self.pages {
            held += page.shape.area();
            if held >= need {
                break;
            }
        }
        Some(held)
    }
}

/// The paging allocator `spec` on an all-free 2D mesh, or on a k-D mesh or torus (paging_kd.rs).
pub fn build_with(spec: PageSpec, machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    let rule = match machine {
        MachineSpec::Mesh { size } => Paging::new(size, spec),
        MachineSpec::Grid { .. } => return super::paging_kd::build(spec, machine),
        _ => Paging::new(Shape::new(1, 1), spec),
    };
    noncontig::build(AllocKind::Paging(spec), machine, rule)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{Placement, Request};

    fn bases(p: &Paging) -> Vec<(u32, u32)> {
        p.pages().iter().map(|s| (s.base.x, s.base.y)).collect()
    }

    #[test]
    fn page_orders_on_a_4x4_mesh_of_2x2_pages() {
        let size = Shape::new(4, 4);
        let spec = |order| PageSpec { k: 1, order };
        let row = Paging::new(size, spec(PageOrder::RowMajor));
        assert_eq!(bases(&row), [(0, 0), (2, 0), (0, 2), (2, 2)]);
        let z = Paging::new(
            Shape::new(4, 4),
            PageSpec {
                k: 0,
                order: PageOrder::Shuffled,
            },
        );
        // Z order of 1x1 pages: (0,0) (1,0) (0,1) (1,1) (2,0) …
        assert_eq!(&bases(&z)[..5], [(0, 0), (1, 0), (0, 1), (1, 1), (2, 0)]);
        let snake = Paging::new(
            Shape::new(3, 2),
            PageSpec {
                k: 0,
                order: PageOrder::Snake,
            },
        );
        assert_eq!(
            bases(&snake),
            [(0, 0), (1, 0), (2, 0), (2, 1), (1, 1), (0, 1)]
        );
    }

    #[test]
    fn edge_pages_are_clipped() {
        // 5x3 with 2x2 pages: columns 0-1, 2-3, 4; rows 0-1, 2.
        let p = Paging::new(
            Shape::new(5, 3),
            PageSpec {
                k: 1,
                order: PageOrder::RowMajor,
            },
        );
        let shapes: Vec<String> = p.pages().iter().map(|s| s.shape.to_string()).collect();
        assert_eq!(shapes, ["2x2", "2x2", "1x2", "2x1", "2x1", "1x1"]);
        let total: u32 = p.pages().iter().map(|s| s.shape.area()).sum();
        assert_eq!(total, 15);
    }

    #[test]
    fn a_job_gets_whole_pages_and_the_surplus_is_its_own() {
        let m: MachineSpec = "mesh:4x4".parse().unwrap();
        let mut a = build_with(PageSpec::parse("1").unwrap(), m).unwrap();
        // 3 nodes: one 2x2 page, 4 nodes held.
        let p = a.allocate(&Request::Submesh(Shape::new(3, 1))).unwrap();
        assert_eq!(p.nodes(), 4);
        assert_eq!(p.to_string(), "@0+2x2");
        // 9 nodes: the remaining three pages (12 nodes).
        let q = a.allocate(&Request::Submesh(Shape::new(3, 3))).unwrap();
        // The two upper pages side by side are written as one box.
        assert_eq!(q.to_string(), "@2+2x2 @8+4x2");
        assert_eq!(a.free_nodes(), 0);
        assert_eq!(a.find(&Request::Submesh(Shape::new(1, 1))), None);
        a.vacate(&p);
        assert!(matches!(
            a.find(&Request::Submesh(Shape::new(1, 1))),
            Some(Placement::Pieces(_))
        ));
    }
}
