//! What the non-contiguous allocators of a 2D mesh share (paging, MBS, GABL, ANCA: Lo, Windisch,
//! Liu & Nitzberg 1997; Chang & Mohapatra 1998; Bani-Mohammad et al. 2007): the free/busy state is
//! a [`Mesh`], a job holds several disjoint submeshes ([`Placement::Pieces`]), and each algorithm
//! only says which free submeshes a request gets ([`PieceRule`]). Every algorithm's state is its
//! free set (MBS's free block records are the maximal free buddy blocks, a function of it), so
//! occupying, vacating, snapshots and [`Allocator::mesh`] are written once, here. For the same
//! reason the last placement computed is remembered with the free set it was computed on
//! ([`LastFound`], shared with the snapshots) and given back when asked again in that state.
//!
//! A request `w × h` asks for `w·h` nodes in any shape; it is granted exactly that many (paging:
//! whole pages, the surplus being internal fragmentation) or nothing. The granted submeshes are
//! recorded in the order the rule took them, each one that continues the previous one to the right
//! in the same rows merged into it (the same nodes in fewer boxes).

use std::sync::{Arc, Mutex};

use super::{AllocKind, Allocator, Mesh, SpecError, mismatch};
use crate::resource::{
    Block, Coord, Dims, MachineSpec, Pieces, Placement, Request, Shape, Submesh,
};

/// How a non-contiguous allocator splits a request into free submeshes.
pub trait PieceRule: Clone + Send + 'static {
    /// Disjoint free submeshes of `mesh` holding at least `shape.area()` nodes (exactly that many
    /// except where the rule rounds up, as paging does), in the order granted; `None` when the rule
    /// finds none. `mesh` may be changed while searching but must be left as it was.
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<Vec<Submesh>>;

    /// Whether the rule places every request of at most the free nodes (MBS, GABL, ANCA, one-node
    /// pages): then whether a request fits is a count, and no placement needs computing.
    fn places_any_free(&self) -> bool {
        true
    }

    /// Nodes the rule grants a `shape` request on an empty mesh of `size` (`None`: never fits).
    fn granted_empty(&self, size: Shape, shape: Shape) -> Option<u32> {
        let n = shape.w.checked_mul(shape.h)?;
        (n > 0 && n <= size.area()).then_some(n)
    }
}

/// A non-contiguous allocator on a 2D mesh: the shared bookkeeping around one [`PieceRule`].
#[derive(Debug, Clone)]
pub struct PieceAllocator<R> {
    mesh: Mesh,
    rule: R,
    /// The last placement computed, shared with the snapshots.
    last: LastFound<Shape>,
}

/// The last request a rule placed, the free set it was asked on, and what the rule found, shared
/// by an allocator and its snapshots (clones share it). The rule's answer depends on these alone,
/// so it stands for any allocator of the lineage asked the same in the same state: a backfilling
/// scheduler asks a snapshot for the head's reservation at every event, and between two events
/// that only add jobs to the queue the state after the same releases is the same (GABL under EASY
/// on sdsc-blue: ~39% of the searches).
#[derive(Debug, Clone)]
pub(super) struct LastFound<K>(Arc<Mutex<Option<Found<K>>>>);

#[derive(Debug)]
struct Found<K> {
    request: K,
    free: Vec<u64>,
    placement: Option<Placement>,
}

impl<K: PartialEq + Copy> LastFound<K> {
    pub(super) fn new() -> Self {
        LastFound(Arc::new(Mutex::new(None)))
    }

    /// What was found for `request` on the free set `free` (its words), if that was the last
    /// request placed.
    pub(super) fn get(&self, request: K, free: &[u64]) -> Option<Option<Placement>> {
        let last = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let f = last.as_ref()?;
        (f.request == request && f.free == free).then(|| f.placement.clone())
    }

    /// Remembers what was found for `request` on `free`.
    pub(super) fn put(&self, request: K, free: &[u64], placement: &Option<Placement>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(Found {
            request,
            free: free.to_vec(),
            placement: placement.clone(),
        });
    }
}

impl<R: PieceRule> PieceAllocator<R> {
    /// The allocator on an all-free mesh of `size`.
    pub fn new(size: Shape, rule: R) -> Self {
        PieceAllocator {
            mesh: Mesh::new(size),
            rule,
            last: LastFound::new(),
        }
    }
}

/// The registry's `build` for a rule: the allocator on an all-free 2D mesh (not on k-D grids,
/// hypercubes or flat machines).
pub(super) fn build<R: PieceRule>(
    kind: AllocKind,
    machine: MachineSpec,
    rule: R,
) -> Result<Box<dyn Allocator>, SpecError> {
    match machine {
        MachineSpec::Mesh { size } if size.w.checked_mul(size.h).is_some() => {
            Ok(Box::new(PieceAllocator::new(size, rule)))
        }
        _ => Err(mismatch(kind, machine)),
    }
}

/// Submesh `s` of a `W`-wide mesh as a 2-dimensional box (base `y·W + x`).
pub fn to_block(width: u32, s: &Submesh) -> Block {
    Block {
        base: s.base.y * width + s.base.x,
        extent: Dims::new(&[s.shape.w, s.shape.h]).expect("a submesh has positive extents"),
    }
}

/// Box `b` of a `W`-wide mesh as a submesh, `None` when it is not 2-dimensional.
pub fn to_submesh(width: u32, b: &Block) -> Option<Submesh> {
    (b.extent.len() == 2 && width > 0).then(|| Submesh {
        base: Coord {
            x: b.base % width,
            y: b.base / width,
        },
        shape: Shape::new(b.extent.get(0), b.extent.get(1)),
    })
}

impl<R> PieceAllocator<R> {
    /// The submeshes of `p` (a pieces placement or a single submesh); `None` for other placements.
    fn submeshes(&self, p: &Placement) -> Option<Vec<Submesh>> {
        let w = self.mesh.size().w;
        match p {
            Placement::Pieces(ps) => ps.boxes().iter().map(|b| to_submesh(w, b)).collect(),
            Placement::Submesh { at, .. } => Some(vec![*at]),
            _ => None,
        }
    }
}

impl<R: PieceRule> Allocator for PieceAllocator<R> {
    fn machine(&self) -> MachineSpec {
        MachineSpec::Mesh {
            size: self.mesh.size(),
        }
    }

    fn find(&mut self, req: &Request) -> Option<Placement> {
        let Request::Submesh(shape) = *req else {
            return None;
        };
        // Fewer free nodes than asked for: no rule places it, and the last answer is kept.
        if shape.w == 0 || shape.h == 0 || shape.w.checked_mul(shape.h)? > self.mesh.free_nodes() {
            return None;
        }
        if let Some(known) = self.last.get(shape, self.mesh.free_words()) {
            return known;
        }
        let w = self.mesh.size().w;
        let placement = self.rule.place(&mut self.mesh, shape).map(|parts| {
            Placement::Pieces(Pieces::new(
                coalesce(parts).iter().map(|s| to_block(w, s)).collect(),
            ))
        });
        self.last.put(shape, self.mesh.free_words(), &placement);
        placement
    }

    fn occupy(&mut self, p: &Placement) {
        debug_assert!(
            self.is_free(p),
            "occupying a placement that is not free: {p:?}"
        );
        for s in self.submeshes(p).unwrap_or_default() {
            self.mesh.occupy(&s);
        }
    }

    fn vacate(&mut self, p: &Placement) {
        for s in self.submeshes(p).unwrap_or_default() {
            self.mesh.vacate(&s);
        }
    }

    /// Every piece lies on the mesh and is free, and no two pieces share a node.
    fn is_free(&self, p: &Placement) -> bool {
        let Some(parts) = self.submeshes(p) else {
            return false;
        };
        parts.iter().all(|s| self.mesh.is_free(s))
            && parts
                .iter()
                .enumerate()
                .all(|(i, a)| parts[i + 1..].iter().all(|b| !overlap(a, b)))
    }

    fn free_nodes(&self) -> u32 {
        self.mesh.free_nodes()
    }

    fn fits_empty(&self, req: &Request) -> bool {
        match *req {
            Request::Submesh(shape) => self.rule.granted_empty(self.mesh.size(), shape).is_some(),
            _ => false,
        }
    }

    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }

    /// A count when the rule places any request of at most the free nodes, else a find.
    fn fits(&mut self, req: &Request) -> bool {
        match *req {
            Request::Submesh(s) if self.rule.places_any_free() => {
                s.w.checked_mul(s.h)
                    .is_some_and(|n| n > 0 && n <= self.mesh.free_nodes())
            }
            _ => self.find(req).is_some(),
        }
    }

    fn mesh(&self) -> Option<&Mesh> {
        Some(&self.mesh)
    }

    /// Occupies `taken`, asks, and vacates it again: the state is the free set alone.
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        self.occupy(taken);
        let fits = self.fits(req);
        self.vacate(taken);
        fits
    }
}

/// Whether two submeshes share a node.
fn overlap(a: &Submesh, b: &Submesh) -> bool {
    a.base.x < b.base.x + b.shape.w
        && b.base.x < a.base.x + a.shape.w
        && a.base.y < b.base.y + b.shape.h
        && b.base.y < a.base.y + a.shape.h
}

/// `parts` with each submesh that continues the previous one to the right (same rows, adjacent
/// columns) merged into it: the same nodes in fewer boxes (paging's single-node pages in a row
/// become one box).
fn coalesce(parts: Vec<Submesh>) -> Vec<Submesh> {
    let mut out: Vec<Submesh> = Vec::with_capacity(parts.len());
    for s in parts {
        match out.last_mut() {
            Some(last)
                if last.base.y == s.base.y
                    && last.shape.h == s.shape.h
                    && last.base.x + last.shape.w == s.base.x =>
            {
                last.shape.w += s.shape.w;
            }
            _ => out.push(s),
        }
    }
    out
}

/// The free submeshes of `mesh` taken one after another by `next` (given the nodes still needed)
/// until `need` nodes are held; the mesh is left as it was. `None` when `next` finds nothing first.
pub fn take_greedily(
    mesh: &mut Mesh,
    need: u32,
    mut next: impl FnMut(&mut Mesh, u32) -> Option<Submesh>,
) -> Option<Vec<Submesh>> {
    let mut taken: Vec<Submesh> = Vec::new();
    let mut held = 0;
    let mut ok = true;
    while held < need {
        match next(mesh, need - held) {
            Some(s) => {
                mesh.occupy(&s);
                held += s.shape.area();
                taken.push(s);
            }
            None => {
                ok = false;
                break;
            }
        }
    }
    for s in &taken {
        mesh.vacate(s);
    }
    ok.then_some(taken)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn submesh_and_block_convert_both_ways() {
        let s = Submesh::from_paper(3, 2, 5, 4);
        let b = to_block(10, &s);
        assert_eq!(b.base, 12);
        assert_eq!(b.extent.to_string(), "3x3");
        assert_eq!(to_submesh(10, &b), Some(s));
        let three = Block {
            base: 0,
            extent: Dims::new(&[1, 1, 1]).unwrap(),
        };
        assert_eq!(to_submesh(10, &three), None);
    }

    #[test]
    fn pieces_side_by_side_in_a_row_become_one_box() {
        let one = |x, y| Submesh::from_paper(x, y, x, y);
        let got = coalesce(vec![one(1, 1), one(2, 1), one(4, 1), one(1, 2), one(2, 2)]);
        let paper: Vec<_> = got.iter().map(Submesh::paper).collect();
        assert_eq!(paper, [(1, 1, 2, 1), (4, 1, 4, 1), (1, 2, 2, 2)]);
    }

    #[test]
    fn overlapping_pieces_are_not_free() {
        let mut a = PieceAllocator::new(Shape::new(4, 4), crate::machine::Gabl);
        let w = 4;
        let two = |s: [Submesh; 2]| {
            Placement::Pieces(Pieces::new(s.iter().map(|s| to_block(w, s)).collect()))
        };
        let apart = two([
            Submesh::from_paper(1, 1, 2, 2),
            Submesh::from_paper(3, 1, 4, 1),
        ]);
        let crossing = two([
            Submesh::from_paper(1, 1, 2, 2),
            Submesh::from_paper(2, 2, 3, 3),
        ]);
        assert!(a.is_free(&apart));
        assert!(!a.is_free(&crossing));
        a.occupy(&apart);
        assert!(!a.is_free(&apart));
        assert_eq!(a.free_nodes(), 10);
    }

    #[test]
    fn the_last_answer_is_given_back_only_for_the_same_request_and_free_set() {
        let mut a = PieceAllocator::new(Shape::new(4, 4), crate::machine::Gabl);
        let req = Request::Submesh(Shape::new(2, 2));
        let first = a.find(&req).unwrap();
        let mut snap = a.snapshot();
        a.occupy(&first);
        let second = a.find(&req).unwrap();
        assert_ne!(second, first, "the free set changed");
        assert_eq!(
            snap.find(&req),
            Some(first.clone()),
            "the snapshot's state is the old one"
        );
        let wide = a.find(&Request::Submesh(Shape::new(4, 1))).unwrap();
        assert_eq!(wide.nodes(), 4);
        assert_ne!(wide, second, "another request");
        a.vacate(&first);
        assert_eq!(a.find(&req), Some(first), "the old state again");
    }

    #[test]
    fn greedy_taking_leaves_the_mesh_as_it_was() {
        let mut mesh = Mesh::new(Shape::new(4, 4));
        let got = take_greedily(&mut mesh, 5, |m, _| m.first_fit(Shape::new(2, 2)));
        assert_eq!(got.map(|v| v.len()), Some(2));
        assert_eq!(mesh.free_nodes(), 16);
        let none = take_greedily(&mut mesh, 17, |m, _| m.first_fit(Shape::new(1, 1)));
        assert_eq!(none, None);
        assert_eq!(mesh.free_nodes(), 16);
    }
}
