//! Flat allocation: a machine of interchangeable nodes; a job fits when enough nodes are free. Works on
//! any [`MachineSpec`] (only its node count matters), for comparison with flat simulators. Every kind
//! of request counts its nodes; an empty request (0 nodes) never fits.

use super::{AllocStats, Allocator, MachineSpec, Placement};
use crate::workload::Request;

/// Node-counting allocation with no topology.
#[derive(Debug, Clone)]
pub struct Flat {
    machine: MachineSpec,
    total: u32,
    free: u32,
    stats: AllocStats,
}

impl Flat {
    /// A flat view of `machine`, all nodes free.
    pub fn new(machine: MachineSpec) -> Self {
        let total = machine.nodes();
        Flat {
            machine,
            total,
            free: total,
            stats: AllocStats::default(),
        }
    }
}

/// Nodes a request covers, `None` when it overflows `u32`.
fn nodes(req: &Request) -> Option<u32> {
    match *req {
        Request::Nodes(n) => Some(n),
        Request::Submesh(s) => s.w.checked_mul(s.h),
        Request::Subcube(d) => 1u32.checked_shl(d.into()),
    }
}

impl Allocator for Flat {
    fn machine(&self) -> MachineSpec {
        self.machine
    }
    fn allocate(&mut self, req: &Request) -> Option<Placement> {
        self.stats.attempts += 1;
        match nodes(req) {
            Some(n) if n > 0 && n <= self.free => {
                self.free -= n;
                Some(Placement::Nodes(n))
            }
            _ => {
                self.stats.failures += 1;
                None
            }
        }
    }
    fn release(&mut self, p: &Placement) {
        debug_assert!(
            self.free + p.nodes() <= self.total,
            "releasing more than held"
        );
        self.free = (self.free + p.nodes()).min(self.total);
    }
    fn free_nodes(&self) -> u32 {
        self.free
    }
    fn fits_empty(&self, req: &Request) -> bool {
        nodes(req).is_some_and(|n| n > 0 && n <= self.total)
    }
    fn stats(&self) -> AllocStats {
        self.stats
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
        f.release(&Placement::Nodes(4));
        assert_eq!(f.free_nodes(), 4);
        assert_eq!(
            f.stats(),
            AllocStats {
                attempts: 4,
                failures: 1
            }
        );
        assert!(!f.fits_empty(&Request::Nodes(9)));
        assert!(!f.fits_empty(&Request::Nodes(0)));
        assert!(!f.fits_empty(&Request::Subcube(40)));
        assert!(f.fits_empty(&Request::Nodes(8)));
    }
}
