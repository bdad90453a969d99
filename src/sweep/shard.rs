//! Shards: a sweep's cell grid cut into `N` deterministic parts of similar expected cost, so that
//! `N` processes (a Slurm job array, a shell loop) can each run one part and a merge can put the
//! results back together.
//!
//! [`partition`] is longest-processing-time-first: cells are taken in decreasing [`cell_cost`]
//! and each goes to the part with the least cost so far (ties: the lowest part). Heavy high-load
//! and backfilling cells are therefore dealt over the parts before the light ones fill the gaps.
//! Cells of equal cost are taken in the order of their [`Cell::seed`] (a hash of the labels), not
//! grid order, so that no series lands on one part whole when the estimate is off (with grid order
//! and as many series as parts, each part would get one series). The result depends only on the
//! cells and `N`, never on threads or timing; each part lists its cells in grid order.
//!
//! ```
//! use pwa_replay::sweep::{Grid, Shard, partition};
//!
//! let grid = Grid {
//!     schedulers: vec!["fcfs".parse().unwrap()],
//!     allocators: vec!["mpl".parse().unwrap()],
//!     loads: vec![0.5, 1.0, 1.5, 2.0],
//!     estimates: Vec::new(),
//! };
//! // Costs 1.25, 2, 3.25, 5: the two heaviest go to different parts.
//! let parts = partition(&grid.cells(), 2);
//! assert_eq!(parts, vec![vec![0, 3], vec![1, 2]]);
//! let shard: Shard = "1/2".parse().unwrap();
//! assert_eq!(shard.cells(&grid.cells()), grid.cells()[1..3]);
//! ```

use std::fmt;
use std::str::FromStr;

use super::Cell;

/// The `index`-th of `count` parts of a grid (`index` from 0, as Slurm's array task ids).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// Which part, `0 ≤ index < count`.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

impl Shard {
    /// The cells of this shard, in grid order.
    pub fn cells(&self, cells: &[Cell]) -> Vec<Cell> {
        partition(cells, self.count)
            .get(self.index)
            .map(|part| part.iter().map(|&i| cells[i].clone()).collect())
            .unwrap_or_default()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Why a shard label did not parse.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShardError {
    /// Not `I/N` with two whole numbers.
    #[error("`{0}` is not a shard: write I/N, e.g. 0/4 (I counts from 0)")]
    Syntax(String),
    /// `N` is 0 or `I ≥ N`.
    #[error("shard {index}/{count}: I must be below N and N at least 1 (I counts from 0)")]
    Range {
        /// The index given.
        index: usize,
        /// The count given.
        count: usize,
    },
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let syntax = || ShardError::Syntax(s.to_string());
        let (i, n) = s.split_once('/').ok_or_else(syntax)?;
        let index: usize = i.trim().parse().map_err(|_| syntax())?;
        let count: usize = n.trim().parse().map_err(|_| syntax())?;
        if count == 0 || index >= count {
            return Err(ShardError::Range { index, count });
        }
        Ok(Shard { index, count })
    }
}

/// The expected relative cost of replaying `cell`: `w × (1 + load_factor²)`, `w` the scheduler's
/// cost ([`Policy::cost`](super::Policy::cost): 10 for the backfilling schedulers, `easy` and
/// `conservative`, whose every event re-plans the queue; 20 for a Python series; else 1). All cells
/// of a sweep replay the same jobs, so load and scheduler are what separate them: queues, and with
/// them the work per event, grow with the load. Measured on sdsc-96 (docs/OUTPUTS.md, "Shards"):
/// `easy` cells took 1…90 s against 0.1…0.9 s for `fcfs`, `oo` and `window:240`.
pub fn cell_cost(cell: &Cell) -> f64 {
    let lf = if cell.load_factor.is_finite() {
        cell.load_factor.max(0.0)
    } else {
        0.0
    };
    cell.scheduler.cost() * (1.0 + lf * lf)
}

/// Cuts `cells` into `parts` parts (0 is taken as 1) of similar total [`cell_cost`]: the indices
/// into `cells` of each part, in increasing order. Every index is in exactly one part; parts may be
/// empty when there are fewer cells than parts.
pub fn partition(cells: &[Cell], parts: usize) -> Vec<Vec<usize>> {
    let parts = parts.max(1);
    let mut order: Vec<usize> = (0..cells.len()).collect();
    // Equal costs by seed, then grid order (stable sort) should two seeds collide.
    order.sort_by(|&a, &b| {
        let (ca, cb) = (&cells[a], &cells[b]);
        cell_cost(cb)
            .total_cmp(&cell_cost(ca))
            .then(ca.seed().cmp(&cb.seed()))
    });
    let mut load = vec![0.0f64; parts];
    let mut out = vec![Vec::new(); parts];
    for i in order {
        let lightest = (0..parts)
            .min_by(|&a, &b| load[a].total_cmp(&load[b]))
            .unwrap_or(0);
        load[lightest] += cell_cost(&cells[i]);
        out[lightest].push(i);
    }
    for part in &mut out {
        part.sort_unstable();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sched::SchedKind;
    use crate::sweep::Grid;

    fn grid(loads: usize) -> Vec<Cell> {
        Grid {
            schedulers: vec!["fcfs".parse().unwrap(), "window:240".parse().unwrap()],
            allocators: vec!["mpl".parse().unwrap(), "ff".parse().unwrap()],
            loads: (1..=loads).map(|i| i as f64 / 10.0).collect(),
            estimates: Vec::new(),
        }
        .cells()
    }

    #[test]
    fn every_cell_is_in_exactly_one_part_for_any_count() {
        let cells = grid(30);
        for n in 1..=13 {
            let parts = partition(&cells, n);
            assert_eq!(parts.len(), n);
            let mut all: Vec<usize> = parts.concat();
            all.sort_unstable();
            assert_eq!(all, (0..cells.len()).collect::<Vec<_>>(), "n = {n}");
            for p in &parts {
                assert!(
                    p.windows(2).all(|w| w[0] < w[1]),
                    "grid order within a part"
                );
            }
        }
    }

    #[test]
    fn parts_are_balanced_by_cost_within_one_cell() {
        let cells = grid(30);
        for n in 2..=9 {
            let cost: Vec<f64> = partition(&cells, n)
                .iter()
                .map(|p| p.iter().map(|&i| cell_cost(&cells[i])).sum())
                .collect();
            let (lo, hi) = cost
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), &c| (l.min(c), h.max(c)));
            let heaviest = cells.iter().map(cell_cost).fold(0.0, f64::max);
            assert!(hi - lo <= heaviest, "n = {n}: {cost:?}");
        }
    }

    #[test]
    fn the_heaviest_cells_go_to_different_parts() {
        let cells = grid(30);
        let parts = partition(&cells, 4);
        // The four cells at load factor 3.0 (one per series) cost the most: one per part.
        for p in &parts {
            let top = p.iter().filter(|&&i| cells[i].load_factor == 3.0).count();
            assert_eq!(top, 1, "{p:?}");
        }
    }

    #[test]
    fn equal_costs_do_not_put_one_series_on_one_part() {
        // 4 series × 30 loads on 4 parts: in grid order each part would get one series whole.
        let cells = grid(30);
        for part in partition(&cells, 4) {
            let mut series: Vec<String> = part
                .iter()
                .map(|&i| cells[i].series().to_string())
                .collect();
            series.dedup();
            assert!(series.len() > 1, "one series per part: {series:?}");
        }
    }

    #[test]
    fn backfilling_cells_weigh_more() {
        let mut cells = grid(2);
        cells[0].scheduler = SchedKind::Easy.into();
        assert_eq!(cell_cost(&cells[0]), 10.0 * cell_cost(&cells[2 * 2]));
    }

    #[test]
    fn the_partition_is_a_pure_function_of_cells_and_count() {
        let cells = grid(7);
        assert_eq!(partition(&cells, 3), partition(&cells.clone(), 3));
        assert_eq!(partition(&cells, 0), partition(&cells, 1));
        assert_eq!(partition(&[], 3), vec![Vec::<usize>::new(); 3]);
    }

    #[test]
    fn shard_labels_parse_and_refuse_clearly() {
        assert_eq!("2/5".parse(), Ok(Shard { index: 2, count: 5 }));
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
        assert!(matches!(
            "5/5".parse::<Shard>(),
            Err(ShardError::Range { .. })
        ));
        assert!(matches!(
            "0/0".parse::<Shard>(),
            Err(ShardError::Range { .. })
        ));
        for bad in ["", "3", "a/b", "1/", "-1/3"] {
            assert!(matches!(bad.parse::<Shard>(), Err(ShardError::Syntax(_))));
        }
    }
}
