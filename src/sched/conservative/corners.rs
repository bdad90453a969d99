//! The waiting queue in bulk, for the count plan's compressions: a tournament tree over the queue
//! positions of one pass whose nodes hold the *corner* of the reservations below them — the least
//! size, the shortest length, the latest slot, the fewest gains seen — and whether one of them must
//! be looked at whatever the plan.
//!
//! A reservation can move only into a run of free nodes that starts by its limit and lasts its
//! length (or reaches its own take, which the count plan tells apart and flags). Such a run of `n`
//! nodes is also a run of any smaller size, no shorter and starting no later; a later limit and a
//! shorter length only admit more runs. So a test that is monotone in the corner — passes for a
//! node whenever it passes for one of its leaves — and that passes for every reservation that may
//! move, finds the next such reservation of the queue by descending only into nodes whose corner
//! passes ([`Corners::first_from`]); the stretches of the queue before it need no look. The test
//! itself (the count plan's runs) decides at the leaves, and the exact look decides there again:
//! what moves and where is unchanged by construction.

use crate::SimTime;

/// What the test reads of one reservation, or of a stretch of them (their corner).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Corner {
    /// The least size.
    pub(super) n: i32,
    /// The shortest length.
    pub(super) length: SimTime,
    /// The latest slot.
    pub(super) slot: SimTime,
    /// The fewest gains logged when one of them was last planned.
    pub(super) seen: u64,
    /// One of them must be looked at whatever the runs say (new, fallen into the past, planned at a
    /// later stage of an instant, or of a size no plan holds).
    pub(super) must: bool,
    /// One of them has its nodes free right before its slot (a window may reach its own take).
    pub(super) free_before: bool,
}

impl Corner {
    /// The corner of nothing: no reservation, so no test passes for it.
    pub(super) const NONE: Corner = Corner {
        n: i32::MAX,
        length: SimTime::INFINITY,
        slot: SimTime::NEG_INFINITY,
        seen: u64::MAX,
        must: false,
        free_before: false,
    };

    /// A reservation that must be looked at.
    pub(super) const MUST: Corner = Corner {
        must: true,
        ..Corner::NONE
    };

    /// The corner of two stretches.
    fn merge(&self, other: &Corner) -> Corner {
        Corner {
            n: floor_power_of_two(self.n.min(other.n)),
            length: self.length.min(other.length),
            slot: self.slot.max(other.slot),
            seen: self.seen.min(other.seen),
            must: self.must || other.must,
            free_before: self.free_before || other.free_before,
        }
    }

    /// Whether a flag alone makes it a candidate.
    pub(super) fn flagged(&self) -> bool {
        self.must || self.free_before
    }
}

/// The largest power of two up to `n` (`n` itself up to 1): the corners of stretches keep to a
/// few sizes, so that few sizes of runs are scanned for them between two moves.
fn floor_power_of_two(n: i32) -> i32 {
    if n <= 1 {
        n
    } else {
        1 << (31 - n.leading_zeros())
    }
}

/// The tree: node 1 is the root, node `k` has children `2k` and `2k + 1`, and the leaves are the
/// nodes from `width` (a power of two) on, one per queue position.
#[derive(Debug, Default)]
pub(super) struct Corners {
    nodes: Vec<Corner>,
    width: usize,
    len: usize,
}

impl Corners {
    /// The tree of the reservations `leaves`, in queue order (reusing the space of `self`).
    pub(super) fn build(&mut self, leaves: impl ExactSizeIterator<Item = Corner>) {
        self.len = leaves.len();
        self.width = self.len.next_power_of_two();
        self.nodes.clear();
        self.nodes.resize(2 * self.width, Corner::NONE);
        for (node, leaf) in self.nodes[self.width..].iter_mut().zip(leaves) {
            *node = leaf;
        }
        for k in (1..self.width).rev() {
            self.nodes[k] = self.nodes[2 * k].merge(&self.nodes[2 * k + 1]);
        }
    }

    /// Sets whether the reservation at position `i` has its nodes free right before its slot.
    pub(super) fn set_free_before(&mut self, i: usize, free_before: bool) {
        let mut k = self.width + i;
        if self.nodes[k].free_before == free_before {
            return;
        }
        self.nodes[k].free_before = free_before;
        while k > 1 {
            k /= 2;
            let merged = self.nodes[2 * k].merge(&self.nodes[2 * k + 1]);
            if self.nodes[k] == merged {
                break;
            }
            self.nodes[k] = merged;
        }
    }

    /// The first position from `from` on whose leaf passes `may` (`len` when none does),
    /// testing only nodes that lie from `from` on, and descending only into those whose corner
    /// passes. Sound when `may` is monotone: it passes for every node above a leaf it passes for.
    /// The search climbs from `from`'s leaf to the next node on the right as long as nodes fail
    /// and descends from the first that passes: a stretch of `g` positions passed over costs
    /// about `2 log g` tests, whatever the queue's length.
    pub(super) fn first_from(&self, from: usize, mut may: impl FnMut(&Corner) -> bool) -> usize {
        if from >= self.len {
            return self.len;
        }
        let mut k = self.width + from;
        loop {
            if may(&self.nodes[k]) {
                if k >= self.width {
                    return k - self.width;
                }
                k *= 2;
                continue;
            }
            // The node right of `k`: the right sibling of the lowest of `k` and its ancestors
            // that is a left child (none: nothing is left on the right).
            while k % 2 == 1 {
                k /= 2;
            }
            if k == 0 {
                return self.len;
            }
            k += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reservation of `n` nodes for `length` seconds at `slot`, planned with every gain seen.
    fn leaf(n: i32, length: SimTime, slot: SimTime) -> Corner {
        Corner {
            n,
            length,
            slot,
            seen: 0,
            must: false,
            free_before: false,
        }
    }

    /// A staircase test: a reservation may move when a run of `n` free nodes lasting `length`
    /// starts by its slot, for one of the runs `(n, length, start)`; monotone in the corner.
    fn staircase(runs: &[(i32, SimTime, SimTime)]) -> impl Fn(&Corner) -> bool + '_ {
        |c| {
            c.flagged()
                || runs
                    .iter()
                    .any(|&(n, length, start)| c.n <= n && c.length <= length && start <= c.slot)
        }
    }

    #[test]
    fn the_search_finds_the_next_reservation_that_may_move_and_passes_over_the_rest() {
        // Only a run of 4 nodes for 100 s from 50: of five reservations, the second and the
        // fifth fit in it.
        let runs = [(4, 100.0, 50.0)];
        let may = staircase(&runs);
        let mut tree = Corners::default();
        tree.build(
            [
                leaf(8, 10.0, 60.0),
                leaf(4, 100.0, 50.0),
                leaf(2, 200.0, 90.0),
                leaf(1, 10.0, 40.0),
                leaf(3, 50.0, 70.0),
            ]
            .into_iter(),
        );
        assert_eq!(tree.first_from(0, &may), 1);
        assert_eq!(tree.first_from(2, &may), 4);
        assert_eq!(tree.first_from(5, &may), 5, "none left: the length");
        // The fourth's nodes become free right before its slot: it is next after the second.
        tree.set_free_before(3, true);
        assert_eq!(tree.first_from(2, &may), 3);
        tree.set_free_before(3, false);
        assert_eq!(tree.first_from(2, &may), 4);
    }

    #[test]
    fn a_tree_of_nothing_finds_nothing() {
        let mut tree = Corners::default();
        tree.build(std::iter::empty());
        assert_eq!(tree.first_from(0, |_| true), 0);
    }

    proptest::proptest! {
        /// The descent finds what a walk testing every reservation from `from` on finds.
        #[test]
        fn the_search_finds_what_the_per_job_walk_finds(
            leaves in proptest::collection::vec((1i32..20, 0u32..50, 0u32..50, proptest::bool::weighted(0.05)), 0..80),
            runs in proptest::collection::vec((1i32..20, 0u32..50, 0u32..50), 0..4),
            flips in proptest::collection::vec((0usize..80, proptest::bool::ANY), 0..5),
            from in 0usize..90,
        ) {
            let leaves: Vec<Corner> = leaves
                .iter()
                .map(|&(n, length, slot, free)| Corner {
                    free_before: free,
                    ..leaf(n, length.into(), slot.into())
                })
                .collect();
            let runs: Vec<_> = runs.iter().map(|&(n, l, s)| (n, l.into(), s.into())).collect();
            let may = staircase(&runs);
            let mut tree = Corners::default();
            tree.build(leaves.iter().copied());
            let mut leaves = leaves;
            let len = leaves.len();
            for &(i, free) in flips.iter().filter(|(i, _)| *i < len) {
                tree.set_free_before(i, free);
                leaves[i].free_before = free;
            }
            let walk = (from..leaves.len()).find(|&i| may(&leaves[i])).unwrap_or(leaves.len());
            proptest::prop_assert_eq!(tree.first_from(from, &may), walk);
        }
    }
}
