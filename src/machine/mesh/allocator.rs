//! [`MeshAllocator`]: the [`Allocator`] contract written once around a [`PlacementRule`].

use super::Mesh;
use crate::machine::{AllocKind, Allocator, SpecError, mismatch};
use crate::resource::{MachineSpec, Placement, Request, Shape, Submesh};

/// How a mesh allocator chooses where a rectangle goes: the only part that differs between the
/// submesh allocation algorithms.
///
/// The rules here mark `place` `#[inline]` and keep any heavy scoring in a private function: a
/// `MeshAllocator<R>` is monomorphised in the crate that names it (a bench, a test), and the hint
/// lets that copy reach [`Mesh::free_bases`] in one call, as a hand-written allocator would.
pub trait PlacementRule: Send {
    /// A free placement of a `shape` request on `mesh` (the request itself or, for rules that turn
    /// requests, its 90° turn), and whether it was turned; `None` when the rule finds none. The rule
    /// only chooses: [`MeshAllocator`] marks the placement busy.
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)>;

    /// Whether a `shape` request fits the empty `mesh` in some orientation this rule would try.
    /// Default: the requested orientation only.
    fn fits_empty(&self, mesh: &Mesh, shape: Shape) -> bool {
        mesh.can_hold(shape)
    }

    /// Whether [`place`](Self::place) would find a placement; rules that rank candidates answer
    /// with a scan.
    fn fits(&self, mesh: &mut Mesh, shape: Shape) -> bool {
        self.place(mesh, shape).is_some()
    }
}

/// A submesh allocator on a 2D mesh: the shared bookkeeping around one [`PlacementRule`].
#[derive(Debug, Clone)]
pub struct MeshAllocator<R> {
    mesh: Mesh,
    rule: R,
}

impl<R: PlacementRule + Default> MeshAllocator<R> {
    /// The allocator on an all-free `size` mesh.
    pub fn new(size: Shape) -> Self {
        Self::with_mesh(Mesh::new(size))
    }

    /// The allocator on a mesh whose busy nodes are already marked (e.g. reserved or faulty nodes).
    pub fn with_mesh(mesh: Mesh) -> Self {
        MeshAllocator {
            mesh,
            rule: R::default(),
        }
    }
}

impl<R> MeshAllocator<R> {
    /// The current free/busy state.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }
}

/// The registry's `build` for every rule: the allocator on an all-free 2D mesh; other machines (and
/// meshes of 2³² nodes or more) do not take a submesh allocator.
pub(in crate::machine) fn build<R>(
    kind: AllocKind,
    machine: MachineSpec,
) -> Result<Box<dyn Allocator>, SpecError>
where
    R: PlacementRule + Default + Clone + 'static,
{
    match machine {
        MachineSpec::Mesh { size } if size.w.checked_mul(size.h).is_some() => {
            Ok(Box::new(MeshAllocator::<R>::new(size)))
        }
        _ => Err(mismatch(kind, machine)),
    }
}

/// The submesh of a placement, if it is one.
fn submesh(p: &Placement) -> Option<&Submesh> {
    match p {
        Placement::Submesh { at, .. } => Some(at),
        _ => None,
    }
}

impl<R: PlacementRule + Clone + 'static> Allocator for MeshAllocator<R> {
    fn machine(&self) -> MachineSpec {
        MachineSpec::Mesh {
            size: self.mesh.size(),
        }
    }

    /// A rectangle request goes to the rule; other requests never fit a mesh.
    #[inline]
    fn find(&mut self, req: &Request) -> Option<Placement> {
        let Request::Submesh(shape) = *req else {
            return None;
        };
        let (at, rotated) = self.rule.place(&mut self.mesh, shape)?;
        Some(Placement::Submesh { at, rotated })
    }

    /// Marks a submesh busy; anything else is not a mesh placement and is ignored.
    fn occupy(&mut self, p: &Placement) {
        debug_assert!(submesh(p).is_some(), "not a submesh: {p:?}");
        if let Some(at) = submesh(p) {
            self.mesh.occupy(at);
        }
    }

    /// Frees a submesh placement; anything else was not granted by a mesh allocator and is ignored.
    fn vacate(&mut self, p: &Placement) {
        debug_assert!(submesh(p).is_some(), "not a submesh: {p:?}");
        if let Some(at) = submesh(p) {
            self.mesh.vacate(at);
        }
    }

    fn is_free(&self, p: &Placement) -> bool {
        submesh(p).is_some_and(|at| self.mesh.is_free(at))
    }

    fn free_nodes(&self) -> u32 {
        self.mesh.free_nodes()
    }

    fn mesh(&self) -> Option<&Mesh> {
        Some(&self.mesh)
    }

    /// A rule places the rectangle asked for or its turn: the same area.
    fn grants_requested_nodes(&self) -> bool {
        true
    }

    /// A rectangle request fits when the rule says so; other requests never fit a mesh.
    fn fits_empty(&self, req: &Request) -> bool {
        match *req {
            Request::Submesh(shape) => self.rule.fits_empty(&self.mesh, shape),
            _ => false,
        }
    }

    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }

    fn fits(&mut self, req: &Request) -> bool {
        match *req {
            Request::Submesh(shape) => self.rule.fits(&mut self.mesh, shape),
            _ => false,
        }
    }

    /// Marks `taken` busy, asks the rule, and restores the mesh (failure cache included).
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        let (Some(at), Request::Submesh(shape)) = (submesh(taken), *req) else {
            return false;
        };
        if !self.mesh.is_free(at) {
            return false;
        }
        let rule = &self.rule;
        self.mesh.with_taken(at, |mesh| rule.fits(mesh, shape))
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::resource::Coord;

    /// A toy rule: the lower-left `shape` if it is free; counts its calls.
    #[derive(Debug, Default, Clone)]
    struct Corner {
        calls: Cell<u32>,
    }

    impl PlacementRule for Corner {
        fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
            self.calls.set(self.calls.get() + 1);
            let at = Submesh {
                base: Coord { x: 0, y: 0 },
                shape,
            };
            mesh.is_free(&at).then_some((at, false))
        }
    }

    #[test]
    fn bookkeeping_is_the_same_for_any_rule() {
        let mut a = MeshAllocator::<Corner>::new(Shape::new(4, 3));
        assert_eq!(
            a.machine(),
            MachineSpec::Mesh {
                size: Shape::new(4, 3)
            }
        );
        let two = Request::Submesh(Shape::new(2, 2));
        let p = a.allocate(&two).expect("the corner is free");
        assert_eq!(p.nodes(), 4);
        assert_eq!(a.free_nodes(), 8);
        assert!(!a.mesh().is_node_free(Coord { x: 1, y: 1 }), "marked busy");
        assert_eq!(a.allocate(&two), None, "the corner is taken");
        assert_eq!(a.allocate(&Request::Nodes(1)), None);
        assert_eq!(a.allocate(&Request::Subcube(1)), None);
        assert_eq!(a.rule.calls.get(), 2, "only rectangles reach the rule");
        a.vacate(&p);
        assert_eq!(a.free_nodes(), 12);
        assert!(a.allocate(&two).is_some(), "free again after release");
        assert!(a.fits_empty(&Request::Submesh(Shape::new(4, 3))));
        assert!(
            !a.fits_empty(&Request::Submesh(Shape::new(3, 4))),
            "no turn"
        );
        assert!(!a.fits_empty(&Request::Nodes(1)));
    }
}
