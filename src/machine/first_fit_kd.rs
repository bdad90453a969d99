//! First fit of a k-dimensional box on a k-D mesh or torus (`ff` on `mesh:XxYxZ` and `torus:AxBx…`):
//! the requested extents (no rotation) at the free base of lowest node id (dimension 0 fastest, as
//! the 2D first fit's row-major scan). On a torus a box may wrap around.
//!
//! The free set is a bitset over node ids. Every free base of an `e₀×…×e_{k−1}` box is found at once
//! by a separable erosion: along each dimension `d`, `free[id] ∧ free[id + s·stride_d]` with the
//! offset wrapping inside dimension `d` on a torus (or dropping bases whose box would cross the edge
//! of a mesh), doubling the window (`⌈log₂ e_d⌉` shift-and passes per dimension). A pass reads a
//! zero-padded copy of the bitset at two fixed bit offsets (the partner `s·stride_d` ahead, and on a
//! torus the wrapped partner `(D_d − s)·stride_d` behind) and selects between them by a mask of the
//! nodes whose coordinate `c_d < D_d − s`: a few branch-free word operations per 64 nodes, on the
//! words from the first to the last still holding a candidate base. The masks are computed once per
//! machine and shared between snapshots. The search stops as soon as a pass leaves no candidate.
//!
//! Fewer searches:
//! * a search that fails is remembered (the last 8): a box at least as large in every dimension is
//!   answered at once while no node has been freed since, and afterwards only the slabs (last
//!   coordinate) within reach of the freed ones hold candidates;
//! * a box at least 3 long in every dimension is first looked for, shrunk, on the grid in cells of
//!   2 nodes a side ([`coarse`]), which rules out most boxes that are not free at `N/2^k` nodes;
//! * the planners' earliest start ([`Allocator::find_after_releases`]) gallops over the release
//!   times and bisects, on copies of the state: `O(log g)` searches for a start after `g` release
//!   times instead of `g`.
//!
//! Taking and giving back a box sets or clears its rows along dimension 0 (at most two runs of ids
//! each on a torus) a word at a time, not node by node: a 1024-node box on `torus:32x32x32` is 32
//! rows of one word each. EASY's "does the head still fit beside this job" is asked in place.
//!
//! Cost: a search is `O(N/64 · Σ_d ⌈log₂ e_d⌉)` word operations for `N` nodes (on `torus:32x32x32`,
//! 512 words a pass, at most 15 passes), so it grows linearly with the machine (the `alloc` bench:
//! a near-miss cube ~2 µs on 16³, ~18 µs on 32³); taking or giving back a box is `O(Π_{d≥1} e_d)`
//! row runs.
//!
//! Complete recognition: whenever a free box of the requested extents exists, it is found.

use std::sync::Arc;

mod coarse;

use super::{Allocator, Block, Dims, MachineSpec, Placement, Request, SpecError, mismatch};
use crate::SimTime;
use crate::resource::MAX_DIMS;

/// First-fit box allocation on a k-dimensional grid.
#[derive(Debug, Clone)]
pub struct FirstFitKd {
    dims: Dims,
    wrap: bool,
    /// Set bit = free node.
    free_bits: Vec<u64>,
    free: u32,
    /// The candidate bases of the search under way.
    cur: Vec<u64>,
    /// `cur` before the pass, between `words + 1` zero words on either side, so that a pass reads
    /// it at any offset in `−N..N` without a bounds test.
    padded: Vec<u64>,
    /// The words of `padded`'s copy that may be non-zero.
    dirty: std::ops::Range<usize>,
    /// `masks[d][s − 1]`: nodes with coordinate `c_d < D_d − s`.
    masks: Arc<Vec<Vec<Vec<u64>>>>,
    /// Recent searches that found nothing, with where nodes were freed since.
    failures: Vec<Failure>,
    /// The grid in cells of 2 nodes a side, which rules out most searches that fail.
    coarse: Option<Box<coarse::Coarse>>,
}

/// A search for `extent` that found no free box, and the slabs (coordinates along the last
/// dimension) where nodes have been freed since. A box of `extent` or larger (in every dimension)
/// that is free now holds a freed node, so its base lies at most `e_last − 1` slabs before a freed
/// one: taking nodes leaves this true, giving nodes back adds their slabs.
#[derive(Debug, Clone)]
struct Failure {
    extent: Dims,
    /// Bitset over the last dimension's coordinates.
    freed: Vec<u64>,
}

/// Most failures remembered (the oldest is forgotten first).
const FAILURES_KEPT: usize = 8;

/// Most mask words kept for one machine; larger machines compute masks on the fly.
const MASK_BUDGET_WORDS: usize = 1 << 22;

impl FirstFitKd {
    /// An all-free grid of `dims`, with wrap-around links when `wrap`.
    pub fn new(dims: Dims, wrap: bool) -> Self {
        FirstFitKd {
            coarse: coarse::Coarse::new(dims, wrap).map(Box::new),
            ..FirstFitKd::plain(dims, wrap)
        }
    }

    /// The same without a coarse grid.
    fn plain(dims: Dims, wrap: bool) -> Self {
        let n = dims.volume() as usize;
        let words = n.div_ceil(64);
        let mut free_bits = vec![!0u64; words];
        if !n.is_multiple_of(64) {
            free_bits[words - 1] = (1u64 << (n % 64)) - 1;
        }
        let total: usize = dims.iter().map(|d| d as usize * words).sum();
        let masks = if total <= MASK_BUDGET_WORDS {
            (0..dims.len())
                .map(|d| (1..dims.get(d)).map(|s| coord_mask(dims, d, s)).collect())
                .collect()
        } else {
            Vec::new()
        };
        FirstFitKd {
            dims,
            wrap,
            free_bits,
            free: n as u32,
            cur: vec![0; words],
            padded: vec![0; 3 * words + 2],
            dirty: 0..0,
            masks: Arc::new(masks),
            failures: Vec::new(),
            coarse: None,
        }
    }

    fn machine_spec(&self) -> MachineSpec {
        MachineSpec::Grid {
            dims: self.dims,
            wrap: self.wrap,
        }
    }

    fn stride(&self, d: usize) -> usize {
        (0..d).map(|i| self.dims.get(i) as usize).product()
    }

    /// `cur[id] &= cur[id + s·stride_d]` (wrapping in dimension `d` on a torus, else 0 past the
    /// edge), on the words `live` outside which `cur` is 0 (and stays 0: a pass only clears bits);
    /// `live` shrinks to the words still holding candidates. Whether any candidate is left.
    fn erode(&mut self, d: usize, s: u32, live: &mut std::ops::Range<usize>) -> bool {
        let words = self.cur.len();
        let stride = self.stride(d);
        let dd = self.dims.get(d) as usize;
        let owned;
        let lo: &[u64] = match self.masks.get(d) {
            Some(m) => &m[s as usize - 1],
            None => {
                owned = coord_mask(self.dims, d, s);
                &owned
            }
        };
        let origin = (words + 1) * 64;
        // Outside `live` the copy must read 0: the words of the last pass's (wider) range are
        // overwritten with `cur`, which is 0 there; the padding beyond is never written.
        let dirty = if self.dirty.is_empty() {
            live.clone()
        } else {
            self.dirty.start.min(live.start)..self.dirty.end.max(live.end)
        };
        self.padded[words + 1 + dirty.start..words + 1 + dirty.end]
            .copy_from_slice(&self.cur[dirty.clone()]);
        self.dirty = live.clone();
        let cur = &mut self.cur[live.clone()];
        let lo = &lo[live.clone()];
        let at = live.start;
        let ahead = Window::new(
            &self.padded,
            origin + (at * 64) + s as usize * stride,
            cur.len(),
        );
        if self.wrap {
            // Nodes with c_d ≥ D_d − s take their partner from the start of the ring.
            let back = origin + at * 64 + s as usize * stride - dd * stride;
            let behind = Window::new(&self.padded, back, cur.len());
            let ahead = ahead.lo.iter().zip(ahead.hi).map(ahead.join());
            let behind = behind.lo.iter().zip(behind.hi).map(behind.join());
            for ((c, &m), (a, b)) in cur.iter_mut().zip(lo).zip(ahead.zip(behind)) {
                *c &= (a & m) | (b & !m);
            }
        } else {
            let ahead = ahead.lo.iter().zip(ahead.hi).map(ahead.join());
            for ((c, &m), a) in cur.iter_mut().zip(lo).zip(ahead) {
                *c &= a & m;
            }
        }
        match nonzero_span(cur) {
            Some(span) => {
                *live = at + span.start..at + span.end;
                true
            }
            None => false,
        }
    }

    /// The free set's words (set bit = free node, by node id).
    pub(super) fn free_words(&self) -> &[u64] {
        &self.free_bits
    }

    /// The first free base of a box of `extent`, by node id.
    pub(super) fn first_fit(&mut self, extent: Dims) -> Option<u32> {
        if extent.len() != self.dims.len()
            || extent.volume() > u64::from(self.free)
            || (0..extent.len()).any(|d| extent.get(d) > self.dims.get(d))
        {
            return None;
        }
        let base = self.search(extent);
        if base.is_none() {
            self.remember_failure(extent);
        }
        base
    }

    /// The erosion, on the slabs where a remembered failure leaves room for a free box.
    fn search(&mut self, extent: Dims) -> Option<u32> {
        let window = match self.failure_window(extent) {
            Some(None) => return None,
            Some(Some(slabs)) => Some(slabs),
            None => None,
        };
        if let Some(c) = self.coarse.as_deref_mut()
            && c.rules_out(&self.free_bits, self.dims, extent)
        {
            return None;
        }
        self.cur.copy_from_slice(&self.free_bits);
        if let Some(slabs) = window {
            self.keep_slabs(&slabs, extent.get(extent.len() - 1));
        }
        let mut live = nonzero_span(&self.cur)?;
        for d in 0..extent.len() {
            let e = extent.get(d);
            let mut covered = 1;
            while covered < e {
                let step = covered.min(e - covered);
                if !self.erode(d, step, &mut live) {
                    return None;
                }
                covered += step;
            }
        }
        let i = live.start;
        Some((i * 64) as u32 + self.cur[i].trailing_zeros())
    }

    /// What the remembered failures say of a search for `extent`: `None`, nothing; `Some(None)`,
    /// no box is free (a failure of a box no larger, with no node freed since); `Some(Some(z))`,
    /// a free box must hold a node of the slabs `z` (the remembered failure with fewest freed).
    fn failure_window(&self, extent: Dims) -> Option<Option<Vec<u64>>> {
        let f = self
            .failures
            .iter()
            .filter(|f| (0..extent.len()).all(|d| f.extent.get(d) <= extent.get(d)))
            .min_by_key(|f| f.freed.iter().map(|w| w.count_ones()).sum::<u32>())?;
        Some(f.freed.iter().any(|&w| w != 0).then(|| f.freed.clone()))
    }

    /// Clears the candidates of `cur` outside the slabs a box of `e` slabs holding a node of
    /// `freed` can cover: within `e − 1` slabs of a freed one on either side (wrapping on a torus).
    fn keep_slabs(&mut self, freed: &[u64], e: u32) {
        let k = self.dims.len();
        let slabs = self.dims.get(k - 1) as usize;
        let slab_ids = self.stride(k - 1);
        let reach = e as usize - 1;
        // Coverage counts by differences: +1 where a freed slab's reach starts, −1 past its end.
        let mut diff = vec![0i32; slabs + 1];
        for z in (0..slabs).filter(|&z| freed[z / 64] >> (z % 64) & 1 == 1) {
            let mut cover = |from: usize, to: usize| {
                diff[from] += 1;
                diff[to] -= 1;
            };
            if self.wrap && 2 * reach + 1 >= slabs {
                cover(0, slabs);
            } else if self.wrap && z < reach {
                cover(0, z + reach + 1);
                cover(z + slabs - reach, slabs);
            } else if self.wrap && z + reach >= slabs {
                cover(z - reach, slabs);
                cover(0, z + reach + 1 - slabs);
            } else {
                cover(z.saturating_sub(reach), (z + reach + 1).min(slabs));
            }
        }
        let mut keep = vec![false; slabs];
        let mut covered = 0;
        for (k, d) in keep.iter_mut().zip(&diff) {
            covered += d;
            *k = covered > 0;
        }
        let mut z = 0;
        while z < slabs {
            let run = keep[z..].iter().take_while(|&&x| x == keep[z]).count();
            if !keep[z] {
                for (w, m) in word_masks(z * slab_ids, (z + run) * slab_ids) {
                    self.cur[w] &= !m;
                }
            }
            z += run;
        }
    }

    /// Records that no box of `extent` is free now; a remembered failure of a box at least as
    /// large is implied by it and forgotten.
    fn remember_failure(&mut self, extent: Dims) {
        self.failures
            .retain(|f| !(0..extent.len()).all(|d| extent.get(d) <= f.extent.get(d)));
        if self.failures.len() == FAILURES_KEPT {
            self.failures.remove(0);
        }
        let slabs = self.dims.get(self.dims.len() - 1) as usize;
        self.failures.push(Failure {
            extent,
            freed: vec![0; slabs.div_ceil(64)],
        });
    }

    /// Marks the slabs of box `p`, given back, as freed for every remembered failure; failures
    /// with every slab freed say nothing any more and are forgotten.
    fn note_freed(&mut self, p: &Placement) {
        let Placement::Block(b) = *p else {
            return;
        };
        let k = self.dims.len();
        let slabs = self.dims.get(k - 1);
        let first = b.base / self.stride(k - 1) as u32;
        for f in &mut self.failures {
            for j in 0..b.extent.get(k - 1) {
                let z = ((first + j) % slabs) as usize;
                f.freed[z / 64] |= 1 << (z % 64);
            }
        }
        let full = |f: &Failure| (0..slabs as usize).all(|z| f.freed[z / 64] >> (z % 64) & 1 == 1);
        self.failures.retain(|f| !full(f));
    }

    /// Calls `run(lo, hi)` for each run `[lo, hi)` of consecutive node ids of the box `p`: its rows
    /// along dimension 0, split in two where a row wraps around a torus. `false` (and no call) when
    /// `p` is not a box of this grid (extent beyond the grid, a box crossing the edge of a mesh).
    fn for_each_run(&self, p: &Placement, mut run: impl FnMut(usize, usize)) -> bool {
        let Placement::Block(b) = *p else {
            return false;
        };
        let k = self.dims.len();
        if b.extent.len() != k || u64::from(b.base) >= self.dims.volume() {
            return false;
        }
        let (mut base, mut size, mut stride) =
            ([0usize; MAX_DIMS], [0usize; MAX_DIMS], [0usize; MAX_DIMS]);
        let (mut rest, mut acc) = (b.base as usize, 1);
        for d in 0..k {
            size[d] = self.dims.get(d) as usize;
            (base[d], rest) = (rest % size[d], rest / size[d]);
            let e = b.extent.get(d) as usize;
            if e > size[d] || (!self.wrap && base[d] + e > size[d]) {
                return false;
            }
            stride[d] = acc;
            acc *= size[d];
        }
        let (c0, e0, d0) = (base[0], b.extent.get(0) as usize, size[0]);
        // An odometer over the offsets of dimensions 1..k, with each coordinate (wrapping) and the
        // row's first id kept up to date.
        let mut off = [0u32; MAX_DIMS];
        let mut coord = base;
        let mut row: usize = (1..k).map(|d| base[d] * stride[d]).sum();
        loop {
            run(row + c0, row + (c0 + e0).min(d0));
            if c0 + e0 > d0 {
                run(row, row + c0 + e0 - d0);
            }
            let mut d = 1;
            loop {
                if d == k {
                    return true;
                }
                row -= coord[d] * stride[d];
                off[d] += 1;
                if off[d] < b.extent.get(d) {
                    coord[d] = if coord[d] + 1 == size[d] {
                        0
                    } else {
                        coord[d] + 1
                    };
                    row += coord[d] * stride[d];
                    break;
                }
                off[d] = 0;
                coord[d] = base[d];
                row += coord[d] * stride[d];
                d += 1;
            }
        }
    }

    /// Gives back the releases of time groups `from..to` (`ends[g]`: one past the last release of
    /// group `g`).
    fn release_groups(
        &mut self,
        releases: &[(SimTime, Placement)],
        ends: &[usize],
        from: usize,
        to: usize,
    ) {
        let start = if from == 0 { 0 } else { ends[from - 1] };
        for (_, p) in &releases[start..ends[to - 1]] {
            self.vacate(p);
        }
    }

    /// The first group after which a box of `extent` fits, given that it fits after `hi` groups
    /// (`self`, found at `base`) and not after `lo` (`at_lo`), and where: bisection on copies,
    /// each searched as a group-by-group search would search it. `self` ends as the state after
    /// that group.
    fn bisect(
        &mut self,
        extent: Dims,
        releases: &[(SimTime, Placement)],
        ends: &[usize],
        (mut lo, mut at_lo): (usize, FirstFitKd),
        (mut hi, mut base): (usize, u32),
    ) -> (usize, u32) {
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let mut probe = at_lo.clone();
            probe.release_groups(releases, ends, lo, mid);
            match probe.first_fit(extent) {
                Some(b) => {
                    (hi, base) = (mid, b);
                    *self = probe;
                }
                None => (lo, at_lo) = (mid, probe),
            }
        }
        (hi, base)
    }

    fn set(&mut self, p: &Placement, free: bool) -> bool {
        let mut bits = std::mem::take(&mut self.free_bits);
        let ok = self.for_each_run(p, |lo, hi| {
            for (w, m) in word_masks(lo, hi) {
                if free {
                    bits[w] |= m;
                } else {
                    bits[w] &= !m;
                }
            }
        });
        self.free_bits = bits;
        if let Some(c) = self.coarse.as_deref_mut() {
            c.mark_stale();
        }
        ok
    }
}

/// A zero-padded bitset read 64 bits at a time from a fixed bit offset: word `i` joins `lo[i]`
/// and `hi[i]` (the next word), as two equal slices so that the pass's loop needs no bounds test.
struct Window<'a> {
    lo: &'a [u64],
    hi: &'a [u64],
    shift: u32,
}

impl<'a> Window<'a> {
    /// `len` words from bit `offset` of `padded`.
    fn new(padded: &'a [u64], offset: usize, len: usize) -> Self {
        let q = offset / 64;
        Window {
            lo: &padded[q..q + len],
            hi: &padded[q + 1..q + 1 + len],
            shift: (offset % 64) as u32,
        }
    }

    /// Joins a word and the next one: `(hi << (63 − r)) << 1` is `hi << (64 − r)`, and 0 when
    /// `r = 0`, without a branch.
    fn join(&self) -> impl Fn((&u64, &u64)) -> u64 + use<> {
        let r = self.shift;
        move |(&lo, &hi)| (lo >> r) | ((hi << (63 - r)) << 1)
    }
}

/// One past the last release of each run of equal times.
fn group_ends(releases: &[(SimTime, Placement)]) -> Vec<usize> {
    let mut ends: Vec<usize> = (1..releases.len())
        .filter(|&i| releases[i].0 != releases[i - 1].0)
        .collect();
    if !releases.is_empty() {
        ends.push(releases.len());
    }
    ends
}

/// The words of `w` from its first to its last non-zero one; `None` when all are 0.
fn nonzero_span(w: &[u64]) -> Option<std::ops::Range<usize>> {
    let first = w.iter().position(|&x| x != 0)?;
    let last = w.iter().rposition(|&x| x != 0)?;
    Some(first..last + 1)
}

/// The words of the bit range `[lo, hi)` with the bits of the range in each.
fn word_masks(lo: usize, hi: usize) -> impl Iterator<Item = (usize, u64)> {
    let (first, last) = (lo / 64, (hi - 1) / 64);
    (first..=last).map(move |w| {
        let from = if w == first { lo % 64 } else { 0 };
        let to = if w == last { (hi - 1) % 64 + 1 } else { 64 };
        let m = if to - from == 64 {
            !0
        } else {
            ((1u64 << (to - from)) - 1) << from
        };
        (w, m)
    })
}

/// The nodes with coordinate `c_d < D_d − s`, as a bitset over node ids: every node but the runs
/// of `s·stride_d` ids with `c_d ≥ D_d − s`, one per ring of dimension `d`.
fn coord_mask(dims: Dims, d: usize, s: u32) -> Vec<u64> {
    let n = dims.volume() as usize;
    let stride: usize = (0..d).map(|i| dims.get(i) as usize).product();
    let ring = dims.get(d) as usize * stride;
    let mut m = vec![!0u64; n.div_ceil(64)];
    if !n.is_multiple_of(64) {
        m[n / 64] = (1u64 << (n % 64)) - 1;
    }
    for start in (0..n).step_by(ring) {
        for (w, bits) in word_masks(start + ring - s as usize * stride, start + ring) {
            m[w] &= !bits;
        }
    }
    m
}

/// The registry's constructor for grids (called by `first_fit::build`).
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    match machine {
        MachineSpec::Grid { dims, wrap } => Ok(Box::new(FirstFitKd::new(dims, wrap))),
        _ => Err(mismatch(super::AllocKind::FirstFit, machine)),
    }
}

impl Allocator for FirstFitKd {
    fn machine(&self) -> MachineSpec {
        self.machine_spec()
    }
    fn find(&mut self, req: &Request) -> Option<Placement> {
        let Request::Block(extent) = *req else {
            return None;
        };
        let base = self.first_fit(extent)?;
        Some(Placement::Block(Block { base, extent }))
    }
    /// Galloping: after 1, 2, 4, … more time groups until the box fits, then bisection between
    /// the last two (on copies of the state, cheap here): `O(log g)` searches where asking after
    /// every group makes `g`. Fitting only grows as nodes are given back, so the first group found
    /// is the one the default finds, and the state left is the same.
    fn find_after_releases(
        &mut self,
        req: &Request,
        releases: &[(SimTime, Placement)],
    ) -> Option<(SimTime, Placement)> {
        let ends = group_ends(releases);
        let Request::Block(extent) = *req else {
            if !ends.is_empty() {
                self.release_groups(releases, &ends, 0, ends.len());
            }
            return None;
        };
        let (mut lo, mut step) = (0, 1);
        while lo < ends.len() {
            let hi = (lo + step).min(ends.len());
            let at_lo = self.clone();
            self.release_groups(releases, &ends, lo, hi);
            if let Some(base) = self.first_fit(extent) {
                let (g, base) = if hi - lo > 1 {
                    self.bisect(extent, releases, &ends, (lo, at_lo), (hi, base))
                } else {
                    (hi, base)
                };
                return Some((
                    releases[ends[g - 1] - 1].0,
                    Placement::Block(Block { base, extent }),
                ));
            }
            lo = hi;
            step *= 2;
        }
        None
    }
    fn occupy(&mut self, p: &Placement) {
        debug_assert!(self.is_free(p), "occupying a non-free box {p:?}");
        if self.set(p, false) {
            self.free -= p.nodes();
        }
    }
    fn vacate(&mut self, p: &Placement) {
        if self.set(p, true) {
            self.free += p.nodes();
            self.note_freed(p);
        }
    }
    fn is_free(&self, p: &Placement) -> bool {
        let mut all = true;
        self.for_each_run(p, |lo, hi| {
            all &= word_masks(lo, hi).all(|(w, m)| self.free_bits[w] & m == m);
        }) && all
    }
    fn free_nodes(&self) -> u32 {
        self.free
    }
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        if !self.is_free(taken) {
            let mut probe = self.snapshot();
            probe.occupy(taken);
            return probe.fits(req);
        }
        // In place: the free set is the whole state, and `taken` goes back exactly as it was, and
        // so do the remembered failures (those of the probe held only while `taken` was busy).
        let failures = self.failures.clone();
        self.occupy(taken);
        let fits = self.fits(req);
        self.vacate(taken);
        self.failures = failures;
        fits
    }
    fn fits_empty(&self, req: &Request) -> bool {
        matches!(*req, Request::Block(e) if e.len() == self.dims.len()
            && (0..e.len()).all(|d| e.get(d) <= self.dims.get(d)))
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn d(v: &[u32]) -> Dims {
        Dims::new(v).unwrap()
    }

    /// Brute force: the lowest base whose box (wrapping on a torus) lies on free nodes, node by
    /// node through the machine's own enumeration of a box's ids.
    fn brute(ff: &FirstFitKd, extent: Dims) -> Option<u32> {
        let spec = ff.machine_spec();
        (0..spec.nodes()).find(|&base| {
            let p = Placement::Block(Block { base, extent });
            spec.node_ids(&p).is_some_and(|mut ids| {
                ids.all(|id| ff.free_bits[id as usize / 64] >> (id % 64) & 1 == 1)
            })
        })
    }

    #[test]
    fn wraps_on_a_torus_not_on_a_mesh() {
        let dims = d(&[4, 3, 2]);
        for wrap in [true, false] {
            let mut ff = FirstFitKd::new(dims, wrap);
            // Busy: the column x = 1..3 of every (y, z), leaving x = 0 and x = 3 free.
            ff.occupy(&Placement::Block(Block {
                base: 1,
                extent: d(&[2, 3, 2]),
            }));
            let got = ff.find(&Request::Block(d(&[2, 3, 2])));
            if wrap {
                assert_eq!(got.map(|p| p.to_string()), Some("@3+2x3x2".into()));
            } else {
                assert_eq!(got, None, "x = 3 and x = 0 are not adjacent on a mesh");
            }
            assert_eq!(ff.free_nodes(), 12);
        }
    }

    #[test]
    fn rejects_other_requests_and_oversized_boxes() {
        let mut ff = FirstFitKd::new(d(&[4, 4, 4]), true);
        assert_eq!(ff.find(&Request::Nodes(4)), None);
        assert!(!ff.fits_empty(&Request::Block(d(&[5, 1, 1]))));
        assert!(!ff.fits_empty(&Request::Block(d(&[2, 2]))));
        assert!(ff.fits_empty(&Request::Block(d(&[4, 4, 4]))));
        assert_eq!(
            ff.allocate(&Request::Block(d(&[4, 4, 4]))),
            Some(Placement::Block(Block {
                base: 0,
                extent: d(&[4, 4, 4])
            }))
        );
        assert_eq!(ff.allocate(&Request::Block(d(&[1, 1, 1]))), None);
    }

    proptest! {
        /// First fit agrees with a brute-force scan, never overlaps, and release restores the free
        /// set.
        #[test]
        fn matches_brute_force(
            wrap in any::<bool>(),
            // Even sides ≥ 4 often, for the coarse grid.
            dims in proptest::collection::vec(prop_oneof![1u32..6, Just(4u32), Just(6u32)], 3..=4),
            reqs in proptest::collection::vec(proptest::collection::vec(1u32..5, 4), 1..60),
        ) {
            let dims = Dims::new(&dims).unwrap();
            let mut ff = FirstFitKd::new(dims, wrap);
            let mut held = Vec::new();
            for (i, r) in reqs.iter().enumerate() {
                if i % 4 == 3 && !held.is_empty() {
                    let p: Placement = held.remove(r[0] as usize % held.len());
                    ff.vacate(&p);
                    continue;
                }
                let extent = Dims::new(&r[..dims.len()]).unwrap();
                let want = if ff.fits_empty(&Request::Block(extent)) { brute(&ff, extent) } else { None };
                let got = ff.allocate(&Request::Block(extent));
                prop_assert_eq!(got.as_ref().map(|p| match p { Placement::Block(b) => b.base, _ => u32::MAX }), want);
                if let Some(p) = got {
                    prop_assert!(!ff.is_free(&p));
                    // Exactly the box's nodes went busy (word runs against the node enumeration).
                    let spec = ff.machine_spec();
                    let busy_bit = |id: u32| ff.free_bits[id as usize / 64] >> (id % 64) & 1 == 0;
                    prop_assert!(spec.node_ids(&p).unwrap().all(busy_bit));
                    let free_bits: u32 = ff.free_bits.iter().map(|w| w.count_ones()).sum();
                    prop_assert_eq!(free_bits, ff.free_nodes());
                    held.push(p);
                }
            }
            let busy: u32 = held.iter().map(|p| p.nodes()).sum();
            prop_assert_eq!(ff.free_nodes() + busy, dims.volume() as u32);
            for p in held.drain(..) {
                ff.vacate(&p);
            }
            prop_assert_eq!(&ff.free_bits, &FirstFitKd::new(dims, wrap).free_bits);
        }

        /// Asking in place whether a box still fits beside a taken one answers as a copy with it
        /// taken, and leaves every later answer as it was (the free set and the remembered
        /// failures).
        #[test]
        fn fits_beside_answers_as_a_copy(
            wrap in any::<bool>(),
            dims in proptest::collection::vec(2u32..6, 3),
            reqs in proptest::collection::vec(proptest::collection::vec(1u32..4, 3), 2..40),
        ) {
            let dims = Dims::new(&dims).unwrap();
            let mut ff = FirstFitKd::new(dims, wrap);
            let mut held = Vec::new();
            for (i, r) in reqs.iter().enumerate() {
                let extent = Dims::new(r).unwrap();
                if i % 3 == 2 && !held.is_empty() {
                    ff.vacate(&held.remove(r[0] as usize % held.len()));
                }
                let Some(taken) = ff.find(&Request::Block(extent)) else { continue };
                let probe_req = Request::Block(Dims::new(&[r[2], r[0], r[1]]).unwrap());
                let mut copy = ff.clone();
                copy.occupy(&taken);
                let want = copy.find(&probe_req).is_some();
                let before = ff.clone();
                prop_assert_eq!(ff.fits_beside(&taken, &probe_req), want);
                prop_assert_eq!(&ff.free_bits, &before.free_bits);
                prop_assert_eq!(ff.find(&probe_req), before.clone().find(&probe_req));
                if i % 2 == 0 {
                    ff.occupy(&taken);
                    held.push(taken);
                }
            }
        }

        /// Galloping and bisecting over the release times gives the time, the place and the state
        /// that asking after each time gives.
        #[test]
        fn find_after_releases_as_group_by_group(
            wrap in any::<bool>(),
            dims in proptest::collection::vec(2u32..6, 3),
            jobs in proptest::collection::vec((proptest::collection::vec(1u32..4, 3), 0u8..6), 1..40),
            head in proptest::collection::vec(1u32..6, 3),
        ) {
            let dims = Dims::new(&dims).unwrap();
            let mut ff = FirstFitKd::new(dims, wrap);
            let mut releases = Vec::new();
            for (extent, end) in &jobs {
                if let Some(p) = ff.allocate(&Request::Block(Dims::new(extent).unwrap())) {
                    releases.push((f64::from(*end), p));
                }
            }
            releases.sort_by(|a, b| a.0.total_cmp(&b.0));
            let req = Request::Block(Dims::new(&head).unwrap());
            let mut want_state = ff.clone();
            let mut want = None;
            for t in 0..6 {
                for (_, p) in releases.iter().filter(|r| r.0 == f64::from(t)) {
                    want_state.vacate(p);
                }
                if !releases.iter().any(|r| r.0 == f64::from(t)) {
                    continue;
                }
                if let Some(p) = want_state.find(&req) {
                    want = Some((f64::from(t), p));
                    break;
                }
            }
            prop_assert_eq!(ff.find_after_releases(&req, &releases), want);
            prop_assert_eq!(&ff.free_bits, &want_state.free_bits);
            prop_assert_eq!(ff.free_nodes(), want_state.free_nodes());
        }
    }
}
