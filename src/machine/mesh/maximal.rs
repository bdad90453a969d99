//! Maximal free submeshes (window-k-mesh.md Definition 1), for MPL: row ANDs extended upwards from
//! each bottom row.

use super::Mesh;
use super::bits::{Runs, and_into, edge_runs, range_all_set};
use crate::resource::{Coord, Shape, Submesh};

impl Mesh {
    /// Every maximal free submesh (window-k-mesh.md Definition 1: a free submesh that is not a proper
    /// subset of another free submesh) at least `min.w` wide and `min.h` tall, ordered by base row,
    /// then top row, then base column.
    ///
    /// For each bottom row `y0`, the AND of rows `y0..=y1` is extended upwards until it is empty (or
    /// holds no run of `min.w`); each horizontal run of it is a rectangle that is maximal sideways, and
    /// it is maximal when the rows just below `y0` and above `y1` do not cover it.
    pub fn maximal_free_submeshes(&self, min: Shape) -> Vec<Submesh> {
        self.maximal(min, false)
    }

    /// The maximal free submeshes of [`Mesh::maximal_free_submeshes`] that touch the mesh border —
    /// the only ones with a corner of non-zero peripheral length. Cheaper: away from the bottom and
    /// top rows only the runs at the left and right edges are examined.
    pub fn peripheral_maximal_free_submeshes(&self, min: Shape) -> Vec<Submesh> {
        let mut found = Vec::new();
        self.for_each_peripheral_maximal(min, |s| found.push(s));
        found
    }

    /// Calls `visit` on each submesh of [`Mesh::peripheral_maximal_free_submeshes`], in its order,
    /// without building the list. A mesh at most 64 wide takes [`Mesh::peripheral_narrow`].
    pub fn for_each_peripheral_maximal(&self, min: Shape, mut visit: impl FnMut(Submesh)) {
        if self.nw == 1 {
            self.peripheral_narrow(min, &mut visit);
        } else {
            self.maximal(min, true).into_iter().for_each(visit);
        }
    }

    /// How many maximal free submeshes there are: `maximal_free_submeshes(1×1).len()`, counted
    /// without listing them. On a mesh at most 64 wide (one word per row) the rows' AND is
    /// extended upwards from each bottom row `y0` only while the row below `y0` leaves some of it
    /// uncovered: once it covers the AND, it covers every taller (smaller) AND too, and none of
    /// those rectangles is maximal.
    pub fn count_maximal_free_submeshes(&self) -> usize {
        if self.nw != 1 {
            return self.maximal(Shape::new(1, 1), false).len();
        }
        (0..self.rows.len())
            .map(|y0| count_from(&self.rows, y0).0 as usize)
            .sum()
    }

    fn maximal(&self, min: Shape, border_only: bool) -> Vec<Submesh> {
        let (min_w, min_h, height) = (min.w.max(1), min.h.max(1), self.size.h);
        let to_top = if border_only {
            self.ands_to_top()
        } else {
            Vec::new()
        };
        let mut found = Vec::new();
        let mut acc = vec![0u64; self.nw];
        for y0 in 0..height {
            acc.copy_from_slice(self.row(y0));
            let mut y1 = y0;
            loop {
                and_into(&mut acc, self.row(y1));
                if acc.iter().all(|&v| v == 0) {
                    break;
                }
                let tall = y1 + 1 - y0 >= min_h;
                if !border_only || y0 == 0 || y1 + 1 == height {
                    if tall && !self.push_maximal(Runs::new(&acc), y0, y1, min_w, &mut found) {
                        break;
                    }
                } else {
                    // Away from the bottom and top rows only the side runs can touch the border,
                    // and only while the row below y0 does not cover them (they only shrink).
                    let below = self.row(y0 - 1);
                    let alive = |&(x, w): &(u32, u32)| w >= min_w && !range_all_set(below, x, w);
                    if !edge_runs(&acc, self.size.w).any(|r| alive(&r)) {
                        // Only a submesh reaching the top row can still touch the border.
                        y1 = height - 1;
                        let start = y0 as usize * self.nw;
                        acc.copy_from_slice(&to_top[start..start + self.nw]);
                        continue;
                    }
                    if tall {
                        let runs = edge_runs(&acc, self.size.w).filter(alive);
                        self.push_maximal(runs, y0, y1, min_w, &mut found);
                    }
                }
                if y1 + 1 == height {
                    break;
                }
                y1 += 1;
            }
        }
        found
    }

    /// [`Mesh::maximal`] with `border_only` on a mesh one word wide, each row a `u64`: the same
    /// upward ANDs, with two more cut-offs that drop only rectangles that are not maximal — once
    /// the row below `y0` covers the AND it covers every taller one — and a run's tests done as
    /// word masks.
    fn peripheral_narrow(&self, min: Shape, visit: &mut impl FnMut(Submesh)) {
        let (min_w, min_h) = (min.w.max(1), min.h.max(1));
        let (width, height) = (self.size.w, self.size.h);
        let rows = &self.rows;
        let top = height - 1;
        let edges = 1u64 | 1u64 << (width - 1);
        // Runs of `acc` at least `min_w` long, maximal against the rows below and above (0: a
        // border, covering nothing), passed to `visit` as rectangles on rows `y0..=y1`; `only`
        // limits them to runs meeting those bits.
        let mut emit = |acc: u64, only: u64, below: u64, above: u64, y0: u32, y1: u32| {
            for (x, w, run) in runs(acc) {
                if w >= min_w && run & only != 0 && run & !below != 0 && run & !above != 0 {
                    visit(Submesh {
                        base: Coord { x, y: y0 },
                        shape: Shape::new(w, y1 + 1 - y0),
                    });
                }
            }
        };
        for y0 in 0..height {
            let below = if y0 == 0 { 0 } else { rows[y0 as usize - 1] };
            let mut acc = u64::MAX;
            let mut y1 = y0;
            loop {
                acc &= rows[y1 as usize];
                // Empty, covered from below, or no run of min_w left: nothing maximal from here up.
                if acc & !below == 0 || !has_run(acc, min_w) {
                    break;
                }
                let tall = y1 + 1 - y0 >= min_h;
                let above = if y1 == top { 0 } else { rows[y1 as usize + 1] };
                if y0 == 0 || y1 == top {
                    if tall {
                        emit(acc, u64::MAX, below, above, y0, y1);
                    }
                } else if !edge_run_alive(acc, edges, below, min_w) {
                    // Only a rectangle reaching the top row can still touch the border.
                    let to_top = rows[y1 as usize + 1..].iter().fold(acc, |a, r| a & r);
                    if to_top & !below != 0 && height - y0 >= min_h {
                        emit(to_top, u64::MAX, below, 0, y0, top);
                    }
                    break;
                } else if tall {
                    emit(acc, edges, below, above, y0, y1);
                }
                if y1 == top {
                    break;
                }
                y1 += 1;
            }
        }
    }

    /// Per row `y`, the AND of rows `y..H` (a free column from `y` to the top row).
    fn ands_to_top(&self) -> Vec<u64> {
        let mut out = self.rows.clone();
        let nw = self.nw;
        for i in (0..out.len().saturating_sub(nw)).rev() {
            out[i] &= out[i + nw];
        }
        out
    }

    /// Pushes the maximal submeshes with rows `y0..=y1` whose columns are one of `runs` (maximal runs
    /// of the rows' AND) at least `min_w` long; returns whether any run was that long (else taller
    /// ones cannot be either).
    fn push_maximal(
        &self,
        runs: impl Iterator<Item = (u32, u32)>,
        y0: u32,
        y1: u32,
        min_w: u32,
        found: &mut Vec<Submesh>,
    ) -> bool {
        let mut any = false;
        for (x, w) in runs.filter(|&(_, w)| w >= min_w) {
            any = true;
            let blocked_below = y0 == 0 || !range_all_set(self.row(y0 - 1), x, w);
            let blocked_above = y1 + 1 == self.size.h || !range_all_set(self.row(y1 + 1), x, w);
            if blocked_below && blocked_above {
                found.push(Submesh {
                    base: Coord { x, y: y0 },
                    shape: Shape::new(w, y1 + 1 - y0),
                });
            }
        }
        any
    }
}

/// Whether `word` has a run of at least `w` set bits (`1 ≤ w ≤ 64`), by doubling.
fn has_run(word: u64, w: u32) -> bool {
    let (mut acc, mut have) = (word, 1);
    while have < w && acc != 0 {
        let step = have.min(w - have);
        acc &= acc >> step;
        have += step;
    }
    acc != 0
}

/// Whether a run of `acc` that meets `edges` is at least `min_w` long and not covered by `below`.
fn edge_run_alive(acc: u64, edges: u64, below: u64, min_w: u32) -> bool {
    runs(acc).any(|(_, w, run)| run & edges != 0 && w >= min_w && run & !below != 0)
}

/// The maximal runs of set bits of `word`, lowest first: (first bit, length, the run as a mask).
fn runs(word: u64) -> impl Iterator<Item = (u32, u32, u64)> {
    let mut rest = word;
    std::iter::from_fn(move || {
        if rest == 0 {
            return None;
        }
        let x = rest.trailing_zeros();
        let w = (!(rest >> x)).trailing_zeros();
        let run = (u64::MAX >> (64 - w)) << x;
        rest &= !run;
        Some((x, w, run))
    })
}

/// The maximal free submeshes with bottom row `y0` of a mesh one word wide (`rows[y]` = row `y`),
/// and the highest row index read to count them (the row below `y0` is read too).
fn count_from(rows: &[u64], y0: usize) -> (u32, usize) {
    let below = if y0 == 0 { 0 } else { rows[y0 - 1] };
    let mut acc = rows[y0];
    let mut count = 0;
    let mut last_read = y0;
    for y1 in y0..rows.len() {
        acc &= rows[y1];
        last_read = y1;
        if acc & !below == 0 {
            break;
        }
        let above = rows.get(y1 + 1).copied().unwrap_or(0);
        last_read = (y1 + 1).min(rows.len() - 1);
        count += runs_meeting_both(acc, !below, !above);
    }
    (count, last_read)
}

/// How many maximal runs of set bits of `word` meet both `a` and `b`, without visiting the runs:
/// adding `word & m` to `word` carries out of exactly the runs that meet `m`, each into the clear
/// bit just above it (a carry stops there, so runs do not disturb each other), or out of the word
/// for a run reaching bit 63. The grid's hottest loop (issue 32): the result is nearly always 0 or
/// 1, so its bits are counted one by one (the release build has no popcount instruction).
#[inline]
fn runs_meeting_both(word: u64, a: u64, b: u64) -> u32 {
    let (sum_a, out_a) = word.overflowing_add(word & a);
    let (sum_b, out_b) = word.overflowing_add(word & b);
    let mut carried = sum_a & sum_b & (word & !(word >> 1)) << 1;
    let mut count = u32::from(out_a && out_b);
    while carried != 0 {
        count += 1;
        carried &= carried - 1;
    }
    count
}

/// [`Mesh::count_maximal_free_submeshes`] over successive states of one mesh, for a replay that
/// counts after every change: on a mesh at most 64 wide, the count of each bottom row `y0` is kept
/// with the rows it read (`y0 − 1` up to the last row its upward AND reached) and redone only when
/// those rows meet the span of the rows changed since the previous count (the others cannot have
/// changed), their sum kept as they are. Wider meshes are counted afresh each time.
#[derive(Debug, Clone, Default)]
pub struct RegionCounter {
    /// The rows at the previous count (empty before the first).
    rows: Vec<u64>,
    /// Per bottom row: its count and the highest row it read.
    per_row: Vec<(u32, usize)>,
    /// The sum of the counts.
    total: usize,
}

impl RegionCounter {
    /// The number of maximal free submeshes of `mesh` now (the same as
    /// [`Mesh::count_maximal_free_submeshes`]).
    pub fn count(&mut self, mesh: &Mesh) -> usize {
        if mesh.nw != 1 {
            return mesh.count_maximal_free_submeshes();
        }
        let rows = &mesh.rows;
        let h = rows.len();
        if self.rows.len() != h {
            // First count: every row differs from its complement, so every bottom row is counted.
            self.rows = rows.iter().map(|r| !r).collect();
            self.per_row = vec![(0, h.saturating_sub(1)); h];
            self.total = 0;
        }
        // The rows changed since the previous count lie in `lo..=hi` (taken in as they are read).
        let (mut lo, mut hi) = (h, 0);
        for (y, (now, before)) in rows.iter().zip(&mut self.rows).enumerate() {
            if now != before {
                *before = *now;
                lo = lo.min(y);
                hi = y;
            }
        }
        // A bottom row reads rows `y0 − 1` up to its highest: recounted when they meet `lo..=hi`
        // (a count afresh is the same where none of them changed).
        for (y0, slot) in self.per_row.iter_mut().enumerate().take(hi + 2) {
            if slot.1 >= lo {
                let fresh = count_from(rows, y0);
                self.total = self.total - slot.0 as usize + fresh.0 as usize;
                *slot = fresh;
            }
        }
        self.total
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{drawn, lcg, random_state, random_submesh};
    use super::*;

    #[test]
    fn runs_meeting_both_masks_are_counted_as_by_visiting_each_run() {
        // Random words (a fixed LCG, sparse and dense), runs reaching bit 63 and 0 among them.
        let mut next = lcg(0x1234_5678_9abc_def1);
        let mut word = || next() << 33 ^ next() << 2 ^ next();
        let mut cases = vec![(u64::MAX, 1, 1 << 63), (u64::MAX, 0, u64::MAX), (0, 1, 1)];
        for _ in 0..2000 {
            let (x, a, b) = (word() | word(), word() & word(), word() & word());
            cases.push((x, a, b));
        }
        for (x, a, b) in cases {
            let visited = runs(x)
                .filter(|&(_, _, run)| run & a != 0 && run & b != 0)
                .count() as u32;
            assert_eq!(runs_meeting_both(x, a, b), visited, "{x:#x} {a:#x} {b:#x}");
        }
    }

    #[test]
    fn counting_agrees_with_listing() {
        // Fig. 1 of window-k-mesh.md has two maximal free submeshes.
        assert_eq!(
            drawn("##### ###.. ..... .....").count_maximal_free_submeshes(),
            2
        );
        // Random states (a fixed LCG), one word per row and more than one.
        let mut next = lcg(0x2545_f491_4f6c_dd1d);
        for (w, h) in [(1, 1), (5, 4), (22, 16), (64, 3), (70, 5)] {
            for _ in 0..40 {
                let mesh = random_state(&mut next, (w, h), 12);
                let listed = mesh.maximal_free_submeshes(Shape::new(1, 1)).len();
                assert_eq!(mesh.count_maximal_free_submeshes(), listed, "{w}x{h}");
            }
        }
    }

    #[test]
    fn the_narrow_peripheral_listing_agrees_with_the_general_one() {
        // Random states (a fixed LCG) of meshes one word wide, every minimum shape up to 4×4:
        // the one-word path lists the same submeshes, in the same order, as the general one.
        let mut next = lcg(0x5851_f42d_4c95_7f2d);
        for (w, h) in [(1, 1), (5, 4), (22, 16), (64, 7), (3, 70)] {
            for _ in 0..30 {
                let mesh = random_state(&mut next, (w, h), 16);
                for min in (1..=4).flat_map(|a| (1..=4).map(move |b| Shape::new(a, b))) {
                    assert_eq!(
                        mesh.peripheral_maximal_free_submeshes(min),
                        mesh.maximal(min, true),
                        "{w}x{h} min {min:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_incremental_counter_agrees_with_counting_afresh() {
        // Random occupy and vacate sequences (a fixed LCG) on one- and two-word meshes, counted
        // after every change.
        let mut next = lcg(0x9e37_79b9_7f4a_7c15);
        for (w, h) in [(1, 1), (5, 4), (22, 16), (64, 7), (70, 5)] {
            let mut mesh = Mesh::new(Shape::new(w, h));
            let mut counter = RegionCounter::default();
            let mut held: Vec<Submesh> = Vec::new();
            for _ in 0..400 {
                if !held.is_empty() && next().is_multiple_of(3) {
                    let s = held.swap_remove((next() % held.len() as u64) as usize);
                    mesh.vacate(&s);
                } else {
                    let s = random_submesh(&mut next, (w, h), (5, 4));
                    if mesh.contains(&s) && mesh.is_free(&s) {
                        mesh.occupy(&s);
                        held.push(s);
                    }
                }
                assert_eq!(
                    counter.count(&mesh),
                    mesh.count_maximal_free_submeshes(),
                    "{w}x{h}"
                );
            }
        }
    }
}
