//! Flat allocation of requests rounded up to a power of two: a fully connected machine given the
//! same rounded requests as the semitorus allocators. semitorus-allocation.md §3 converts every
//! request of `n` processors to `2^⌈log₂ n⌉` before allocating ("users usually do not mind
//! receiving more processors than they need"); against plain `flat` a semitorus series pays both
//! for the rounding and for the torus, against `flat:pow2` for the torus alone. The surplus nodes
//! count as internal fragmentation, as the semitorus allocators' do.

use super::flat::{self, Flat};
use super::{Allocator, MachineSpec, Placement, Request, SpecError};

/// Node counting with every request rounded up to a power of two.
#[derive(Debug, Clone)]
pub struct FlatPow2(Flat);

impl FlatPow2 {
    /// A flat view of `machine`, all nodes free.
    pub fn new(machine: MachineSpec) -> Self {
        FlatPow2(Flat::new(machine))
    }
}

/// The registry's constructor: works on every machine.
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    Ok(Box::new(FlatPow2::new(machine)))
}

/// The request's node count rounded up to a power of two (`None`: empty, or overflowing `u32`).
fn rounded(req: &Request) -> Option<Request> {
    let n = flat::nodes(req)?;
    (n > 0)
        .then(|| n.checked_next_power_of_two())
        .flatten()
        .map(Request::Nodes)
}

impl Allocator for FlatPow2 {
    fn machine(&self) -> MachineSpec {
        self.0.machine()
    }
    fn find(&mut self, req: &Request) -> Option<Placement> {
        self.0.find(&rounded(req)?)
    }
    fn occupy(&mut self, p: &Placement) {
        self.0.occupy(p);
    }
    fn vacate(&mut self, p: &Placement) {
        self.0.vacate(p);
    }
    fn is_free(&self, p: &Placement) -> bool {
        self.0.is_free(p)
    }
    fn free_nodes(&self) -> u32 {
        self.0.free_nodes()
    }
    fn fits_empty(&self, req: &Request) -> bool {
        rounded(req).is_some_and(|r| self.0.fits_empty(&r))
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }
    /// Node counting on the rounded request: `taken`'s nodes come off the free count.
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        rounded(req).is_some_and(|r| self.0.fits_beside(taken, &r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_granted_their_next_power_of_two() {
        let mut f = FlatPow2::new(MachineSpec::Flat { nodes: 24 });
        assert_eq!(f.allocate(&Request::Nodes(5)), Some(Placement::Nodes(8)));
        assert_eq!(f.allocate(&Request::Nodes(16)), Some(Placement::Nodes(16)));
        assert_eq!(f.free_nodes(), 0);
        f.vacate(&Placement::Nodes(8));
        // 7 nodes would fit a plain flat machine's 8, and fit here too; 9 rounds to 16 and does not.
        assert!(f.fits_beside(&Placement::Nodes(0), &Request::Nodes(7)));
        assert!(!f.fits(&Request::Nodes(9)));
        assert!(f.fits_empty(&Request::Nodes(9)), "16 of 24");
        assert!(!f.fits_empty(&Request::Nodes(17)), "32 of 24");
        assert!(!f.fits_empty(&Request::Nodes(0)));
        assert_eq!(f.allocate(&Request::Nodes(1)), Some(Placement::Nodes(1)));
    }
}
