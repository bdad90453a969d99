//! What the k-D non-contiguous allocators that search for free boxes share (`gabl_kd`,
//! `anca_kd`): the free set is a [`FirstFitKd`] (its bitset and its complete first-fit search of a
//! box, wrapping on a torus), a job holds several disjoint boxes ([`Placement::Pieces`]), and each
//! algorithm only says which free boxes a request gets ([`GridPieceRule`]). The state is the free
//! set alone, so occupying any free placement (a reservation, a resumed job) and snapshots are
//! exact, and the last placement computed is given back when asked again in the same free set
//! (noncontig.rs's `LastFound`).
//!
//! A request of extents `e` asks for `Π e_d` nodes in any shape and is granted exactly that many or
//! nothing; the granted boxes are recorded in the order taken, one that continues the previous one
//! along dimension 0 merged into it (paging_kd's rule).

use super::first_fit_kd::FirstFitKd;
use super::noncontig::LastFound;
use super::paging_kd::coalesce;
use super::{Allocator, MachineSpec, Placement, Request};
use crate::resource::{Block, Dims, Pieces};

/// How a k-D non-contiguous allocator splits a request into free boxes.
pub(super) trait GridPieceRule: Clone + Send + 'static {
    /// Disjoint free boxes of `grid` holding exactly `extent.volume()` nodes, in the order granted;
    /// `None` when the rule finds none. `grid` may be changed while searching but must be left as
    /// it was.
    fn place(&self, grid: &mut FirstFitKd, extent: Dims) -> Option<Vec<Block>>;
}

/// A non-contiguous allocator on a k-D mesh or torus around one [`GridPieceRule`]; the rule
/// places every request of at most the free nodes, so whether a request fits is a count.
#[derive(Debug, Clone)]
pub(super) struct GridPieceAllocator<R> {
    grid: FirstFitKd,
    dims: Dims,
    rule: R,
    /// The last placement computed, shared with the snapshots (noncontig.rs's [`LastFound`]).
    last: LastFound<Dims>,
}

impl<R: GridPieceRule> GridPieceAllocator<R> {
    /// The allocator on the all-free grid `dims` (`wrap`: a torus).
    pub(super) fn new(dims: Dims, wrap: bool, rule: R) -> Self {
        GridPieceAllocator {
            grid: FirstFitKd::new(dims, wrap),
            dims,
            rule,
            last: LastFound::new(),
        }
    }

    /// The nodes a request asks for: a box of this grid's dimensionality, of positive volume.
    fn nodes_of(&self, req: &Request) -> Option<u64> {
        match *req {
            Request::Block(e) if e.len() == self.dims.len() => Some(e.volume()),
            _ => None,
        }
    }
}

/// The boxes of `p` (a pieces placement or a single box); `None` for other placements.
fn boxes(p: &Placement) -> Option<&[Block]> {
    match p {
        Placement::Pieces(ps) => Some(ps.boxes()),
        Placement::Block(b) => Some(std::slice::from_ref(b)),
        _ => None,
    }
}

impl<R: GridPieceRule> Allocator for GridPieceAllocator<R> {
    fn machine(&self) -> MachineSpec {
        self.grid.machine()
    }

    fn find(&mut self, req: &Request) -> Option<Placement> {
        let Request::Block(extent) = *req else {
            return None;
        };
        if extent.len() != self.dims.len() || extent.volume() > u64::from(self.free_nodes()) {
            return None;
        }
        if let Some(known) = self.last.get(extent, self.grid.free_words()) {
            return known;
        }
        let placement = (self.rule.place(&mut self.grid, extent))
            .map(|boxes| Placement::Pieces(Pieces::new(coalesce(self.dims, boxes))));
        self.last.put(extent, self.grid.free_words(), &placement);
        placement
    }

    fn occupy(&mut self, p: &Placement) {
        debug_assert!(
            self.is_free(p),
            "occupying a placement that is not free: {p:?}"
        );
        for b in boxes(p).unwrap_or_default() {
            self.grid.occupy(&Placement::Block(*b));
        }
    }

    fn vacate(&mut self, p: &Placement) {
        for b in boxes(p).unwrap_or_default() {
            self.grid.vacate(&Placement::Block(*b));
        }
    }

    /// Every box lies on the grid and is free, and no node is in two boxes.
    fn is_free(&self, p: &Placement) -> bool {
        let Some(bs) = boxes(p) else {
            return false;
        };
        if !bs.iter().all(|b| self.grid.is_free(&Placement::Block(*b))) {
            return false;
        }
        let machine = self.machine();
        let Some(ids) = machine.node_ids(p) else {
            return false;
        };
        let mut ids: Vec<u32> = ids.collect();
        ids.sort_unstable();
        ids.windows(2).all(|w| w[0] != w[1])
    }

    fn free_nodes(&self) -> u32 {
        self.grid.free_nodes()
    }

    fn fits_empty(&self, req: &Request) -> bool {
        self.nodes_of(req)
            .is_some_and(|n| n <= u64::from(self.machine().nodes()))
    }

    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }

    /// The rule places any request of at most the free nodes: a count.
    fn fits(&mut self, req: &Request) -> bool {
        self.nodes_of(req)
            .is_some_and(|n| n <= u64::from(self.free_nodes()))
    }

    /// A count too: `taken` (free now) leaves `free − |taken|` nodes.
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        let left = self.free_nodes().saturating_sub(taken.nodes());
        self.nodes_of(req).is_some_and(|n| n <= u64::from(left))
    }
}

/// The free boxes of `grid` taken one after another by `next` (given the nodes still needed) until
/// `need` nodes are held; the grid is left as it was. `None` when `next` finds nothing first.
pub(super) fn take_greedily(
    grid: &mut FirstFitKd,
    need: u64,
    mut next: impl FnMut(&mut FirstFitKd, u64) -> Option<Block>,
) -> Option<Vec<Block>> {
    let mut taken: Vec<Block> = Vec::new();
    let mut held = 0;
    let mut ok = true;
    while held < need {
        match next(grid, need - held) {
            Some(b) => {
                grid.occupy(&Placement::Block(b));
                held += b.extent.volume();
                taken.push(b);
            }
            None => {
                ok = false;
                break;
            }
        }
    }
    for b in &taken {
        grid.vacate(&Placement::Block(*b));
    }
    ok.then_some(taken)
}

/// The distinct orientations of `e`: `e` itself, then the permutations of its values that follow
/// in lexicographic order, wrapping from the last to the first, until `e` comes round again.
pub(super) fn orientations(e: Dims) -> Vec<Dims> {
    let start: Vec<u32> = e.iter().collect();
    let mut v = start.clone();
    let mut out = vec![e];
    loop {
        if !next_permutation(&mut v) {
            v.sort_unstable();
        }
        if v == start {
            return out;
        }
        out.push(Dims::new(&v).expect("a permutation of positive extents"));
    }
}

/// The next permutation of `v` in lexicographic order; `false` (and `v` unchanged) at the last.
fn next_permutation(v: &mut [u32]) -> bool {
    let Some(i) = (1..v.len()).rev().find(|&i| v[i - 1] < v[i]) else {
        return false;
    };
    let j = (i..v.len())
        .rev()
        .find(|&j| v[j] > v[i - 1])
        .expect("v[i] > v[i - 1]");
    v.swap(i - 1, j);
    v[i..].reverse();
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(v: &[u32]) -> Dims {
        Dims::new(v).unwrap()
    }

    #[test]
    fn orientations_are_distinct_permutations_requested_first() {
        let got: Vec<String> = orientations(d(&[2, 3, 1]))
            .iter()
            .map(|e| e.to_string())
            .collect();
        assert_eq!(got, ["2x3x1", "3x1x2", "3x2x1", "1x2x3", "1x3x2", "2x1x3"]);
        assert_eq!(orientations(d(&[2, 2, 1])).len(), 3);
        assert_eq!(orientations(d(&[4, 4, 4])), [d(&[4, 4, 4])]);
    }

    #[test]
    fn greedy_taking_leaves_the_grid_as_it_was() {
        let mut g = FirstFitKd::new(d(&[4, 4, 4]), false);
        let cube = d(&[2, 2, 2]);
        let got = take_greedily(&mut g, 9, |g, _| {
            g.first_fit(cube).map(|base| Block { base, extent: cube })
        });
        let bases: Vec<u32> = got.unwrap().iter().map(|b| b.base).collect();
        assert_eq!(bases, [0, 2], "two disjoint cubes, first fit");
        assert_eq!(g.free_nodes(), 64);
        let none = take_greedily(&mut g, 65, |g, _| {
            let one = d(&[1, 1, 1]);
            g.first_fit(one).map(|base| Block { base, extent: one })
        });
        assert_eq!(none, None);
        assert_eq!(g.free_nodes(), 64);
    }
}
