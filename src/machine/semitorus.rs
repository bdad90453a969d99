//! Semitorus allocation on a multi-dimensional torus (Mao, Chen & Watson, HPC Asia 2005;
//! `semitorus-allocation.md`), with its two partition schemes: equal partition (EP) and non-equal
//! partition (NEP).
//!
//! A *semitorus* is a box of the torus whose extents are all powers of two; a dimension of the box
//! keeps its wrap-around edges when it spans the whole torus dimension (or has ≤ 2 nodes, where a
//! ring and a path are the same graph), otherwise they are missing. The algorithm:
//!
//! 1. **Preprocessing** ([`initial_set`]): the torus `2^n₁×…×2^n_d·p` (at most one dimension not a
//!    power of two; `p` odd) is cut along that dimension into semitori whose sizes follow `p`'s
//!    binary digits, largest first: `2×2×2×6×8` → `2×2×2×4×8` (wrap-around missing in the fourth
//!    dimension) and `2×2×2×2×8`. These roots form the initial available set `A` and never merge.
//! 2. **Rounding**: a request of `n` nodes (a box or a node count) asks for `m = 2^k ≥ n` nodes; the
//!    extra nodes are internal fragmentation (reported by the metrics as granted − asked).
//! 3. **Identification**: the *smallest* semitorus `S ∈ A` with at least `m` nodes, ties by lowest
//!    base node id (best fit keeps large semitori whole for large jobs).
//! 4. **Partition** of `S` when it is larger than `m`. The piece `R` the job receives is the most
//!    cube-like `m`-node box at `S`'s base ([`cube_like`]: halve the largest extent, ties the lowest
//!    dimension). [`Scheme::Equal`] halves `S` along one dimension at a time (largest extent first),
//!    keeping the half holding `R` and returning the other half to `A` — a k-dimensional buddy
//!    system whose pieces are binary-tree siblings. [`Scheme::NonEqual`] cuts `R` out of `S` at once
//!    and splits the rest into the fewest power-of-two semitori, dimension by dimension (slabs): all
//!    of them, with `R`, are children of `S`.
//! 5. **Conversion** ([`convert`]) names the torus the job runs as: [`TorusConversion::Collapse`]
//!    merges every dimension missing wrap-around edges into one ring; [`TorusConversion::Pair`] pairs
//!    each such dimension with a complete one (largest missing with smallest complete). It changes
//!    no allocation decision.
//! 6. **Deallocation**: the returned piece goes back to `A`; when all its siblings are in `A` too,
//!    they are replaced by their parent, recursively.
//!
//! Both schemes cut `S` into the same number of pieces (`log₂(|S|/m)`, the fewest possible: the
//! remainder `|S| − m = m·(2^a − 1)` needs `a` powers of two); they differ in the pieces' shapes and
//! in how they merge back: EP merges pairwise as buddies free up, NEP only once every sibling of the
//! cut is free.
//!
//! ```
//! use pwa_replay::machine::{Allocator, AllocKind, MachineSpec, Placement, Request};
//!
//! let torus: MachineSpec = "torus:2x2x2x6x8".parse().unwrap();
//! let mut nep = AllocKind::Nep.build(torus).unwrap();
//! let p = nep.allocate(&Request::Nodes(100)).unwrap(); // rounded up to 128
//! assert_eq!(p.nodes(), 128);
//! assert_eq!(nep.free_nodes(), 384 - 128);
//! nep.vacate(&p);
//! assert_eq!(nep.free_nodes(), 384);
//! ```

use super::{AllocKind, Allocator, Block, Dims, MachineSpec, Placement, Request, SpecError};
use crate::resource::MAX_DIMS;

/// How an identified semitorus is partitioned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// EP: halve along one dimension at a time (a k-dimensional buddy system).
    Equal,
    /// NEP: cut one `m`-node piece and split the rest into the fewest power-of-two semitori.
    NonEqual,
}

/// How a granted semitorus becomes a torus (`semitorus-allocation.md`, conversion step).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TorusConversion {
    /// All dimensions missing wrap-around edges become one ring (more dimensions).
    Collapse,
    /// Each dimension missing wrap-around edges pairs with a complete one (more cube-like).
    Pair,
}

/// No parent / no piece.
const NONE: u32 = u32::MAX;
/// Most children of one piece: the root and `log₂(|S|/m) ≤ 31` pieces.
const MAX_KIDS: usize = 32;

/// What a piece of the partition tree is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// In the available set `A`.
    Free,
    /// Granted to a job.
    Busy,
    /// Partitioned into its children.
    Split,
    /// Merged back into its parent; the slot is reusable.
    Dead,
}

/// A semitorus of the partition tree: a box of power-of-two extents in machine coordinates.
#[derive(Debug, Clone, Copy)]
struct Piece {
    base: [u16; MAX_DIMS],
    log: [u8; MAX_DIMS],
    parent: u32,
    state: State,
    /// First child ([`NONE`] when not split); the children are linked through `next` (a piece is
    /// cloned with every planning snapshot, so it stays small).
    first_kid: u32,
    /// Next sibling, [`NONE`] for the last.
    next: u32,
    /// Its place in the available set's order: log₂ of its node count, then its base node id.
    key: (u32, u32),
}

impl Piece {
    fn log_size(&self) -> u32 {
        self.log.iter().map(|&l| u32::from(l)).sum()
    }
}

/// Semitorus allocation (EP or NEP) on a torus or k-dimensional mesh.
#[derive(Debug, Clone)]
pub struct Semitorus {
    machine: MachineSpec,
    dims: Dims,
    scheme: Scheme,
    conversion: TorusConversion,
    pieces: Vec<Piece>,
    /// Reusable slots of `pieces`.
    dead: Vec<u32>,
    /// The available set `A`: (log₂ size, base node id, piece), sorted (a vector: `A` holds tens
    /// of pieces, and a planning snapshot copies it in one piece).
    avail: Vec<(u32, u32, u32)>,
    /// Busy piece whose base is node `i`, else [`NONE`].
    busy_at: Vec<u32>,
    free: u32,
    largest_log: u32,
}

/// Why a machine cannot host semitorus allocation, if it cannot.
pub fn check_machine(machine: MachineSpec) -> Result<Dims, String> {
    let MachineSpec::Grid { dims, .. } = machine else {
        return Err("semitorus allocation needs a torus:AxBx… or mesh:XxYxZ machine".into());
    };
    let odd: Vec<u32> = dims.iter().filter(|d| !d.is_power_of_two()).collect();
    if odd.len() > 1 {
        return Err(format!(
            "semitorus allocation needs all but one dimension a power of two (the other 2^n·p, p odd); {dims} has {} that are not",
            odd.len()
        ));
    }
    Ok(dims)
}

/// The initial available set (preprocessing): `(base coordinates, extents)` of each root
/// semitorus, largest first. The dimension that is not a power of two, `2^n·p`, is cut into
/// segments of `2^n·2^b` nodes for each set bit `b` of `p`, highest bit first.
pub fn initial_set(dims: Dims) -> Vec<(Vec<u32>, Vec<u32>)> {
    let ext: Vec<u32> = dims.iter().collect();
    let Some(j) = ext.iter().position(|d| !d.is_power_of_two()) else {
        return vec![(vec![0; ext.len()], ext)];
    };
    let n = ext[j].trailing_zeros();
    let p = ext[j] >> n;
    let mut out = Vec::new();
    let mut offset = 0;
    for b in (0..32).rev().filter(|b| p >> b & 1 == 1) {
        let mut base = vec![0; ext.len()];
        let mut e = ext.clone();
        base[j] = offset;
        e[j] = 1 << (n + b);
        offset += e[j];
        out.push((base, e));
    }
    out
}

/// The most cube-like box of `2^k` nodes inside a box of log-extents `log`: halve the largest
/// extent (ties: the lowest dimension) until `2^k` nodes remain. `None` when `k` exceeds the box.
pub fn cube_like(log: &[u8], k: u32) -> Option<Vec<u8>> {
    let mut r = log.to_vec();
    let total: u32 = r.iter().map(|&l| u32::from(l)).sum();
    for _ in 0..total.checked_sub(k)? {
        let d = largest_dim(&r, |_| true)?;
        r[d] -= 1;
    }
    Some(r)
}

/// The dimension with the largest log-extent among those `keep` admits, ties the lowest.
fn largest_dim(log: &[u8], keep: impl Fn(usize) -> bool) -> Option<usize> {
    (0..log.len())
        .filter(|&d| keep(d) && log[d] > 0)
        .max_by_key(|&d| (log[d], std::cmp::Reverse(d)))
}

/// The torus a semitorus of `extents` runs as. `wrapped[i]` says whether dimension `i` keeps its
/// wrap-around edges. Dimensions of extent 1 vanish; an all-1 box is the 1-node torus `1`.
///
/// *Collapse*: the product of the missing dimensions first (one ring), then the complete ones in
/// order. *Pair*: missing dimensions by decreasing extent paired with complete ones by increasing
/// extent (products first, in that order), leftover missing ones collapsed, then leftover complete
/// ones in order.
///
/// A lone missing dimension has no Hamiltonian cycle of its own: collapsing it keeps a path, which
/// is still reported as one dimension.
pub fn convert(extents: &[u32], wrapped: &[bool], how: TorusConversion) -> Dims {
    let idx = |want: bool| -> Vec<usize> {
        (0..extents.len())
            .filter(|&i| extents[i] > 1 && wrapped[i] == want)
            .collect()
    };
    let (mut missing, complete) = (idx(false), idx(true));
    let mut out = Vec::new();
    let mut left_complete = complete.clone();
    if how == TorusConversion::Pair {
        missing.sort_by_key(|&i| (std::cmp::Reverse(extents[i]), i));
        let mut by_size = complete.clone();
        by_size.sort_by_key(|&i| (extents[i], i));
        let pairs = missing.len().min(by_size.len());
        for (&a, &b) in missing.iter().zip(&by_size).take(pairs) {
            out.push(extents[a] * extents[b]);
        }
        missing.drain(..pairs);
        left_complete.retain(|i| !by_size[..pairs].contains(i));
    }
    if !missing.is_empty() {
        out.push(missing.iter().map(|&i| extents[i]).product());
    }
    out.extend(left_complete.iter().map(|&i| extents[i]));
    if out.is_empty() {
        out.push(1);
    }
    Dims::new(&out).unwrap_or_else(|| Dims::new(&[1]).expect("1 is a valid extent"))
}

impl Semitorus {
    /// Semitorus allocation on `machine` (a torus or k-D mesh with at most one dimension not a
    /// power of two), all nodes free.
    pub fn new(
        machine: MachineSpec,
        scheme: Scheme,
        conversion: TorusConversion,
    ) -> Result<Self, String> {
        let dims = check_machine(machine)?;
        let nodes = machine.nodes();
        let mut s = Semitorus {
            machine,
            dims,
            scheme,
            conversion,
            pieces: Vec::new(),
            dead: Vec::new(),
            avail: Vec::new(),
            busy_at: vec![NONE; nodes as usize],
            free: nodes,
            largest_log: 0,
        };
        for (base, ext) in initial_set(dims) {
            let mut b = [0u16; MAX_DIMS];
            let mut l = [0u8; MAX_DIMS];
            for i in 0..base.len() {
                b[i] = base[i] as u16;
                l[i] = ext[i].trailing_zeros() as u8;
            }
            let idx = s.new_piece(b, l, NONE);
            s.largest_log = s.largest_log.max(s.pieces[idx as usize].log_size());
            s.make_free(idx);
        }
        Ok(s)
    }

    /// The partition scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The available set `A` as placements, smallest first (ties: lowest base node id).
    pub fn available(&self) -> Vec<Placement> {
        self.avail
            .iter()
            .map(|&(_, _, i)| self.placement(i))
            .collect()
    }

    /// The torus a job granted `p` runs as (see [`convert`]), `None` when `p` is not a box of
    /// this machine.
    pub fn torus_of(&self, p: &Placement) -> Option<Dims> {
        let Placement::Block(b) = p else { return None };
        if b.extent.len() != self.dims.len() {
            return None;
        }
        let ext: Vec<u32> = b.extent.iter().collect();
        let wrapped = wrap_flags(self.machine, &ext);
        Some(convert(&ext, &wrapped, self.conversion))
    }

    fn k(&self) -> usize {
        self.dims.len()
    }

    fn new_piece(&mut self, base: [u16; MAX_DIMS], log: [u8; MAX_DIMS], parent: u32) -> u32 {
        let mut p = Piece {
            base,
            log,
            parent,
            state: State::Dead,
            first_kid: NONE,
            next: NONE,
            key: (0, 0),
        };
        p.key = (p.log_size(), self.node_id(&base));
        match self.dead.pop() {
            Some(i) => {
                self.pieces[i as usize] = p;
                i
            }
            None => {
                self.pieces.push(p);
                (self.pieces.len() - 1) as u32
            }
        }
    }

    /// The id of the node at `coords`.
    fn node_id(&self, coords: &[u16; MAX_DIMS]) -> u32 {
        let (mut id, mut stride) = (0u32, 1u32);
        for (d, &c) in coords.iter().enumerate().take(self.k()) {
            id += u32::from(c) * stride;
            stride *= self.dims.get(d);
        }
        id
    }

    fn base_id(&self, i: u32) -> u32 {
        self.pieces[i as usize].key.1
    }

    fn key(&self, i: u32) -> (u32, u32, u32) {
        let (log, base) = self.pieces[i as usize].key;
        (log, base, i)
    }

    fn make_free(&mut self, i: u32) {
        self.pieces[i as usize].state = State::Free;
        let key = self.key(i);
        if let Err(at) = self.avail.binary_search(&key) {
            self.avail.insert(at, key);
        }
    }

    fn take_free(&mut self, i: u32, to: State) {
        if let Ok(at) = self.avail.binary_search(&self.key(i)) {
            self.avail.remove(at);
        }
        self.pieces[i as usize].state = to;
    }

    fn placement(&self, i: u32) -> Placement {
        let p = &self.pieces[i as usize];
        let ext: Vec<u32> = (0..self.k()).map(|d| 1u32 << p.log[d]).collect();
        Placement::Block(Block {
            base: self.base_id(i),
            extent: Dims::new(&ext).expect("extents fit the machine"),
        })
    }

    /// `p` as base coordinates and log-extents, if it is a power-of-two box of this machine.
    fn as_box(&self, p: &Placement) -> Option<([u16; MAX_DIMS], [u8; MAX_DIMS])> {
        let Placement::Block(b) = p else { return None };
        if b.extent.len() != self.k() || b.base >= self.machine.nodes() {
            return None;
        }
        let coords = MachineSpec::grid_coords(self.dims, b.base);
        let (mut base, mut log) = ([0u16; MAX_DIMS], [0u8; MAX_DIMS]);
        for d in 0..self.k() {
            let e = b.extent.get(d);
            if !e.is_power_of_two() || coords[d] + e > self.dims.get(d) {
                return None;
            }
            base[d] = coords[d] as u16;
            log[d] = e.trailing_zeros() as u8;
        }
        Some((base, log))
    }

    /// The free piece holding box `(base, log)` at an aligned position, if any.
    fn holder(&self, base: &[u16; MAX_DIMS], log: &[u8; MAX_DIMS]) -> Option<u32> {
        self.avail.iter().map(|&(_, _, i)| i).find(|&i| {
            let s = &self.pieces[i as usize];
            (0..self.k()).all(|d| {
                let off = u32::from(base[d]).wrapping_sub(u32::from(s.base[d]));
                log[d] <= s.log[d] && off < 1 << s.log[d] && off % (1 << log[d]) == 0
            })
        })
    }

    /// Splits free piece `s` into children and returns the one equal to `(base, log)` (busy).
    fn carve(&mut self, s: u32, base: [u16; MAX_DIMS], log: [u8; MAX_DIMS]) -> u32 {
        match self.scheme {
            Scheme::Equal => self.carve_equal(s, base, log),
            Scheme::NonEqual => self.carve_non_equal(s, base, log),
        }
    }

    /// EP: halve the current piece along its largest dimension still above the target's, keep the
    /// half holding the target, return the other to `A`.
    fn carve_equal(&mut self, s: u32, base: [u16; MAX_DIMS], log: [u8; MAX_DIMS]) -> u32 {
        let mut cur = s;
        self.take_free(cur, State::Split);
        loop {
            let c = self.pieces[cur as usize];
            let Some(d) = largest_dim(&c.log[..self.k()], |d| c.log[d] > log[d]) else {
                self.pieces[cur as usize].state = State::Busy;
                return cur;
            };
            let half = 1u16 << (c.log[d] - 1);
            let mut hl = c.log;
            hl[d] -= 1;
            let lo = self.new_piece(c.base, hl, cur);
            let mut hb = c.base;
            hb[d] += half;
            let hi = self.new_piece(hb, hl, cur);
            self.set_kids(cur, &[lo, hi]);
            let (keep, other) = if base[d] < hb[d] { (lo, hi) } else { (hi, lo) };
            self.make_free(other);
            self.pieces[keep as usize].state = State::Split;
            cur = keep;
        }
    }

    /// NEP: the target plus, dimension by dimension, the buddy intervals around it (slabs spanning
    /// the target in earlier dimensions and the whole piece in later ones); all are children of `s`.
    fn carve_non_equal(&mut self, s: u32, base: [u16; MAX_DIMS], log: [u8; MAX_DIMS]) -> u32 {
        self.take_free(s, State::Split);
        let sp = self.pieces[s as usize];
        if sp.log[..self.k()] == log[..self.k()] {
            self.pieces[s as usize].state = State::Busy;
            return s;
        }
        let mut kids = Vec::with_capacity(MAX_KIDS);
        let (mut cb, mut cl) = (sp.base, sp.log);
        for d in 0..self.k() {
            for level in log[d]..sp.log[d] {
                // The buddy of the aligned 2^level block holding the target, within dimension d.
                let size = 1u16 << level;
                let mut b = cb;
                let mut l = cl;
                let off = base[d] - sp.base[d];
                b[d] = sp.base[d] + ((off / size) ^ 1) * size;
                l[d] = level;
                kids.push(self.new_piece(b, l, s));
            }
            cb[d] = base[d];
            cl[d] = log[d];
        }
        let target = self.new_piece(base, log, s);
        kids.push(target);
        self.set_kids(s, &kids);
        for &k in &kids[..kids.len() - 1] {
            self.make_free(k);
        }
        self.pieces[target as usize].state = State::Busy;
        target
    }

    fn set_kids(&mut self, parent: u32, kids: &[u32]) {
        self.pieces[parent as usize].first_kid = kids.first().copied().unwrap_or(NONE);
        for pair in kids.windows(2) {
            self.pieces[pair[0] as usize].next = pair[1];
        }
        if let Some(&last) = kids.last() {
            self.pieces[last as usize].next = NONE;
        }
    }

    /// The children of `parent`, in the order they were made.
    fn kids(&self, parent: u32) -> impl Iterator<Item = u32> + '_ {
        let first = self.pieces[parent as usize].first_kid;
        std::iter::successors((first != NONE).then_some(first), |&k| {
            let next = self.pieces[k as usize].next;
            (next != NONE).then_some(next)
        })
    }

    /// Frees busy piece `i` and merges complete sibling sets into their parents.
    fn release(&mut self, mut i: u32) {
        self.make_free(i);
        loop {
            let parent = self.pieces[i as usize].parent;
            if parent == NONE {
                return;
            }
            if !self
                .kids(parent)
                .all(|k| self.pieces[k as usize].state == State::Free)
            {
                return;
            }
            let mut kid = self.pieces[parent as usize].first_kid;
            while kid != NONE {
                let next = self.pieces[kid as usize].next;
                self.take_free(kid, State::Dead);
                self.dead.push(kid);
                kid = next;
            }
            self.pieces[parent as usize].first_kid = NONE;
            self.make_free(parent);
            i = parent;
        }
    }
}

/// Whether each dimension of a box of `extents` keeps its wrap-around edges on `machine`.
pub fn wrap_flags(machine: MachineSpec, extents: &[u32]) -> Vec<bool> {
    let (dims, wrap) = match machine {
        MachineSpec::Grid { dims, wrap } => (Some(dims), wrap),
        _ => (None, false),
    };
    extents
        .iter()
        .enumerate()
        .map(|(i, &e)| e <= 2 || (wrap && dims.is_some_and(|d| d.get(i) == e)))
        .collect()
}

/// `m = 2^k ≥` the request's nodes, as `k`; `None` for a kind the allocator does not take.
fn rounded_log(req: &Request) -> Option<u32> {
    let n = match *req {
        Request::Nodes(n) => n,
        Request::Block(d) => u32::try_from(d.volume()).ok()?,
        _ => return None,
    };
    (n > 0).then(|| n.checked_next_power_of_two().map(u32::trailing_zeros))?
}

/// The registry's constructor for one scheme and conversion.
pub(super) fn build(
    kind: AllocKind,
    scheme: Scheme,
    conversion: TorusConversion,
    machine: MachineSpec,
) -> Result<Box<dyn Allocator>, SpecError> {
    Semitorus::new(machine, scheme, conversion)
        .map(|s| Box::new(s) as Box<dyn Allocator>)
        .map_err(|reason| SpecError::Unsupported {
            alloc: kind.label().to_string(),
            machine: machine.to_string(),
            reason,
        })
}

impl Allocator for Semitorus {
    fn machine(&self) -> MachineSpec {
        self.machine
    }
    fn find(&mut self, req: &Request) -> Option<Placement> {
        let k = rounded_log(req)?;
        if self.free < 1 << k.min(31) {
            return None;
        }
        let at = self.avail.partition_point(|&(log, ..)| log < k);
        let &(_, base, s) = self.avail.get(at)?;
        let log = cube_like(&self.pieces[s as usize].log[..self.k()], k)?;
        let ext: Vec<u32> = log.iter().map(|&l| 1u32 << l).collect();
        Some(Placement::Block(Block {
            base,
            extent: Dims::new(&ext)?,
        }))
    }
    fn occupy(&mut self, p: &Placement) {
        let Some((base, log)) = self.as_box(p) else {
            debug_assert!(
                false,
                "occupying a placement that is not a semitorus: {p:?}"
            );
            return;
        };
        let Some(s) = self.holder(&base, &log) else {
            debug_assert!(
                false,
                "occupying a placement outside the available set: {p:?}"
            );
            return;
        };
        let i = self.carve(s, base, log);
        let id = self.base_id(i);
        self.busy_at[id as usize] = i;
        self.free -= p.nodes();
    }
    fn vacate(&mut self, p: &Placement) {
        let Placement::Block(b) = p else { return };
        let Some(&i) = self.busy_at.get(b.base as usize) else {
            return;
        };
        if i == NONE || self.placement(i) != *p {
            debug_assert!(false, "vacating a placement that is not busy: {p:?}");
            return;
        }
        self.busy_at[b.base as usize] = NONE;
        self.free += p.nodes();
        self.release(i);
    }
    /// Whether `p` is a power-of-two box lying, aligned, inside one available semitorus (a box over
    /// free nodes of two semitori that have not merged back is not free for this allocator).
    fn is_free(&self, p: &Placement) -> bool {
        self.as_box(p)
            .is_some_and(|(base, log)| self.holder(&base, &log).is_some())
    }
    fn free_nodes(&self) -> u32 {
        self.free
    }
    fn fits_empty(&self, req: &Request) -> bool {
        rounded_log(req).is_some_and(|k| k <= self.largest_log)
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }
    fn granted_torus(&self, p: &Placement) -> Option<Dims> {
        self.torus_of(p)
    }
    /// In place: occupying `taken` carves its semitorus out of one available piece, and releasing
    /// it merges exactly those pieces back (their siblings are untouched, so every set the carve
    /// made is complete again), leaving the available set as it was. Only the slot numbers of
    /// merged pieces may differ, and no answer depends on them.
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        if !self.is_free(taken) {
            return false;
        }
        self.occupy(taken);
        let fits = self.fits(req);
        self.vacate(taken);
        fits
    }
}

#[cfg(test)]
mod tests;
