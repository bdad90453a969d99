//! Flat allocation: a machine of interchangeable nodes; a job fits when enough nodes are free. Works on
//! any [`MachineSpec`] (only its node count matters), for comparison with flat simulators. Every kind
//! of request counts its nodes; an empty request (0 nodes) never fits.

use super::{Allocator, MachineSpec, Placement, Request, SpecError};

/// Node-counting allocation with no topology.
#[derive(Debug, Clone)]
pub struct Flat {
    machine: MachineSpec,
    total: u32,
    free: u32,
}

impl Flat {
    /// A flat view of `machine`, all nodes free.
    pub fn new(machine: MachineSpec) -> Self {
        let total = machine.nodes();
        Flat {
            machine,
            total,
            free: total,
        }
    }
}

/// The registry's constructor: works on every machine.
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    Ok(Box::new(Flat::new(machine)))
}

/// Nodes a request covers, `None` when it overflows `u32`.
pub(super) fn nodes(req: &Request) -> Option<u32> {
    match *req {
        Request::Nodes(n) => Some(n),
        Request::Submesh(s) => s.w.checked_mul(s.h),
        Request::Block(d) => u32::try_from(d.volume()).ok(),
        Request::Subcube(d) => 1u32.checked_shl(d.into()),
    }
}

impl Allocator for Flat {
    fn machine(&self) -> MachineSpec {
        self.machine
    }
    fn find(&mut self, req: &Request) -> Option<Placement> {
        nodes(req)
            .filter(|&n| n > 0 && n <= self.free)
            .map(Placement::Nodes)
    }
    fn occupy(&mut self, p: &Placement) {
        debug_assert!(p.nodes() <= self.free, "occupying more than is free");
        self.free = self.free.saturating_sub(p.nodes());
    }
    fn vacate(&mut self, p: &Placement) {
        debug_assert!(
            self.free + p.nodes() <= self.total,
            "releasing more than held"
        );
        self.free = (self.free + p.nodes()).min(self.total);
    }
    /// Anonymous nodes: any placement of no more nodes than are free.
    fn is_free(&self, p: &Placement) -> bool {
        p.nodes() <= self.free
    }
    fn free_nodes(&self) -> u32 {
        self.free
    }
    fn fits_empty(&self, req: &Request) -> bool {
        nodes(req).is_some_and(|n| n > 0 && n <= self.total)
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }
    fn counts_nodes(&self) -> bool {
        true
    }
    /// Node counting: `taken`'s nodes come off the free count.
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        let free = self.free.saturating_sub(taken.nodes());
        nodes(req).is_some_and(|n| n > 0 && n <= free)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::Shape;

    #[test]
    fn counts_nodes_of_any_request() {
        let mut f = Flat::new(MachineSpec::Mesh {
            size: Shape::new(4, 2),
        });
        assert_eq!(f.free_nodes(), 8);
        let a = f.allocate(&Request::Submesh(Shape::new(3, 1)));
        assert_eq!(a, Some(Placement::Nodes(3)));
        assert_eq!(f.allocate(&Request::Subcube(2)), Some(Placement::Nodes(4)));
        assert_eq!(f.allocate(&Request::Nodes(2)), None, "only 1 node left");
        assert_eq!(f.allocate(&Request::Nodes(1)), Some(Placement::Nodes(1)));
        f.vacate(&Placement::Nodes(4));
        assert_eq!(f.free_nodes(), 4);
        assert!(f.is_free(&Placement::Nodes(4)) && !f.is_free(&Placement::Nodes(5)));
        let mut copy = f.snapshot();
        assert_eq!(copy.allocate(&Request::Nodes(4)), Some(Placement::Nodes(4)));
        assert_eq!((copy.free_nodes(), f.free_nodes()), (0, 4), "a snapshot is independent");
        assert!(!f.fits_empty(&Request::Nodes(9)));
        assert!(!f.fits_empty(&Request::Nodes(0)));
        assert!(!f.fits_empty(&Request::Subcube(40)));
        assert!(f.fits_empty(&Request::Nodes(8)));
    }
}
