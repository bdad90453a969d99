//! First fit of a k-dimensional box on a k-D mesh or torus (`ff` on `mesh:XxYxZ` and `torus:AxBx…`):
//! the requested extents (no rotation) at the free base of lowest node id (dimension 0 fastest, as
//! the 2D first fit's row-major scan). On a torus a box may wrap around.
//!
//! The free set is a bitset over node ids. Every free base of an `e₀×…×e_{k−1}` box is found at once
//! by a separable erosion: along each dimension `d`, `free[id] ∧ free[id + s·stride_d]` with the
//! offset wrapping inside dimension `d` on a torus (or dropping bases whose box would cross the edge
//! of a mesh), doubling the window (`⌈log₂ e_d⌉` shift-and passes per dimension). Each pass is a few
//! word operations per 64 nodes. The masks selecting the nodes whose coordinate `c_d < D_d − s` are
//! computed once per machine and shared between snapshots.
//!
//! Complete recognition: whenever a free box of the requested extents exists, it is found.

use std::sync::Arc;

use super::{Allocator, Block, Dims, MachineSpec, Placement, Request, SpecError, mismatch};

/// First-fit box allocation on a k-dimensional grid.
#[derive(Debug, Clone)]
pub struct FirstFitKd {
    dims: Dims,
    wrap: bool,
    /// Set bit = free node.
    free_bits: Vec<u64>,
    free: u32,
    cur: Vec<u64>,
    tmp: Vec<u64>,
    /// `masks[d][s − 1]`: nodes with coordinate `c_d < D_d − s`.
    masks: Arc<Vec<Vec<Vec<u64>>>>,
}

/// Most mask words kept for one machine; larger machines compute masks on the fly.
const MASK_BUDGET_WORDS: usize = 1 << 22;

impl FirstFitKd {
    /// An all-free grid of `dims`, with wrap-around links when `wrap`.
    pub fn new(dims: Dims, wrap: bool) -> Self {
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
            tmp: vec![0; words],
            masks: Arc::new(masks),
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
    /// edge).
    fn erode(&mut self, d: usize, s: u32) {
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
        shr(&self.cur, s as usize * stride, &mut self.tmp);
        for (t, m) in self.tmp.iter_mut().zip(lo) {
            *t &= m;
        }
        if self.wrap {
            // Nodes with c_d ≥ D_d − s take their partner from the start of the ring.
            let back = (dd - s as usize) * stride;
            for (i, (t, &l)) in self.tmp.iter_mut().zip(lo).enumerate() {
                *t |= shl_word(&self.cur, back, i) & !l;
            }
        }
        for (c, t) in self.cur.iter_mut().zip(&self.tmp) {
            *c &= t;
        }
    }

    /// The first free base of a box of `extent`, by node id.
    fn first_fit(&mut self, extent: Dims) -> Option<u32> {
        if extent.len() != self.dims.len()
            || extent.volume() > u64::from(self.free)
            || (0..extent.len()).any(|d| extent.get(d) > self.dims.get(d))
        {
            return None;
        }
        self.cur.copy_from_slice(&self.free_bits);
        for d in 0..extent.len() {
            let e = extent.get(d);
            let mut covered = 1;
            while covered < e {
                let step = covered.min(e - covered);
                self.erode(d, step);
                covered += step;
            }
        }
        let valid = self.valid_mask_last();
        let last = self.cur.len() - 1;
        self.cur[last] &= valid;
        self.cur
            .iter()
            .position(|&w| w != 0)
            .map(|i| (i * 64) as u32 + self.cur[i].trailing_zeros())
    }

    fn valid_mask_last(&self) -> u64 {
        let n = self.dims.volume() as usize;
        if n.is_multiple_of(64) {
            !0
        } else {
            (1u64 << (n % 64)) - 1
        }
    }

    fn set(&mut self, p: &Placement, free: bool) -> bool {
        let spec = self.machine_spec();
        let Some(ids) = spec.node_ids(p) else {
            return false;
        };
        for id in ids {
            let (w, b) = (id as usize / 64, id % 64);
            if free {
                self.free_bits[w] |= 1 << b;
            } else {
                self.free_bits[w] &= !(1 << b);
            }
        }
        true
    }
}

/// The nodes with coordinate `c_d < D_d − s`, as a bitset over node ids.
fn coord_mask(dims: Dims, d: usize, s: u32) -> Vec<u64> {
    let n = dims.volume() as usize;
    let stride: usize = (0..d).map(|i| dims.get(i) as usize).product();
    let dd = dims.get(d) as usize;
    let mut m = vec![0u64; n.div_ceil(64)];
    for id in 0..n {
        if (id / stride) % dd < dd - s as usize {
            m[id / 64] |= 1 << (id % 64);
        }
    }
    m
}

/// `out[id] = a[id + t]` (0 past the end).
fn shr(a: &[u64], t: usize, out: &mut [u64]) {
    let (q, r) = (t / 64, t % 64);
    for (i, o) in out.iter_mut().enumerate().take(a.len()) {
        let lo = a.get(i + q).copied().unwrap_or(0);
        let hi = a.get(i + q + 1).copied().unwrap_or(0);
        *o = if r == 0 {
            lo
        } else {
            (lo >> r) | (hi << (64 - r))
        };
    }
}

/// Word `i` of `a` shifted towards higher ids by `t` bits: bit `id` is `a[id − t]` (0 below 0).
fn shl_word(a: &[u64], t: usize, i: usize) -> u64 {
    let (q, r) = (t / 64, t % 64);
    let get = |j: usize| {
        i.checked_sub(j)
            .and_then(|k| a.get(k))
            .copied()
            .unwrap_or(0)
    };
    if r == 0 {
        get(q)
    } else {
        (get(q) << r) | (get(q + 1) >> (64 - r))
    }
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
    fn occupy(&mut self, p: &Placement) {
        debug_assert!(self.is_free(p), "occupying a non-free box {p:?}");
        if self.set(p, false) {
            self.free -= p.nodes();
        }
    }
    fn vacate(&mut self, p: &Placement) {
        if self.set(p, true) {
            self.free += p.nodes();
        }
    }
    fn is_free(&self, p: &Placement) -> bool {
        let spec = self.machine_spec();
        spec.node_ids(p).is_some_and(|mut ids| {
            ids.all(|id| self.free_bits[id as usize / 64] >> (id % 64) & 1 == 1)
        })
    }
    fn free_nodes(&self) -> u32 {
        self.free
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

    /// Brute force: the lowest base whose box (wrapping on a torus) lies on free nodes.
    fn brute(ff: &FirstFitKd, extent: Dims) -> Option<u32> {
        let spec = ff.machine_spec();
        (0..spec.nodes()).find(|&base| {
            let p = Placement::Block(Block { base, extent });
            ff.is_free(&p)
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
            dims in proptest::collection::vec(1u32..6, 3..=4),
            reqs in proptest::collection::vec(proptest::collection::vec(1u32..4, 4), 1..25),
        ) {
            let dims = Dims::new(&dims).unwrap();
            let mut ff = FirstFitKd::new(dims, wrap);
            let mut held = Vec::new();
            for (i, r) in reqs.iter().enumerate() {
                if i % 4 == 3 && !held.is_empty() {
                    let p: Placement = held.remove(0);
                    ff.vacate(&p);
                    continue;
                }
                let extent = Dims::new(&r[..dims.len()]).unwrap();
                let want = if ff.fits_empty(&Request::Block(extent)) { brute(&ff, extent) } else { None };
                let got = ff.allocate(&Request::Block(extent));
                prop_assert_eq!(got.as_ref().map(|p| match p { Placement::Block(b) => b.base, _ => u32::MAX }), want);
                if let Some(p) = got {
                    prop_assert!(!ff.is_free(&p));
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
    }
}
