//! The busy/free state of a `W × H` 2D mesh as row bitmasks, and the queries the mesh allocators share.
//!
//! Row `y` is `⌈W/64⌉` words; bit `x % 64` of word `x / 64` is set when node `(x, y)` is **free**. Bits
//! past `W` are always clear, so a run of free bits never crosses the right edge of the mesh.
//!
//! The central query, [`Mesh::free_bases`], finds every base of a free `w × h` placement at once:
//!
//! 1. per row, the bases of a horizontal free run of length ≥ `w`: `r & (r >> 1) & … & (r >> (w−1))`,
//!    computed by doubling in `⌈log₂ w⌉` shift-and steps of `⌈W/64⌉` words;
//! 2. per base row `y`, the AND of those masks over rows `y..y+h` — a sliding-window AND done with
//!    block prefix/suffix ANDs (van Herk / Gil–Werman), so the cost does not grow with `h`.
//!
//! A whole scan is therefore `O(H · ⌈W/64⌉ · log w)` word operations. Two O(1) early outs come first:
//! fewer free nodes than the request's area, and a cache of shapes known to fail — if no `w × h`
//! placement is free, no larger one is either, and that stays true until a node is freed. Inside the
//! scan, rows with fewer than `w` free nodes skip step 1, and step 2 is skipped when no `h`
//! consecutive rows hold a run of `w`.
//!
//! [`Mesh::maximal_free_submeshes`] lists the maximal free submeshes (window-k-mesh.md Definition 1)
//! for MPL by extending row ANDs upwards from each bottom row; it runs only on successful attempts.
//!
//! [`MeshAllocator`] is the rest of what the five submesh allocators share: the whole [`Allocator`]
//! contract (counters, non-rectangle requests, marking placements busy and free), written once around
//! a [`PlacementRule`]. Each algorithm's file supplies only its rule and names the allocator with a
//! type alias (`FirstFit = MeshAllocator<FirstFitRule>`, …), so every call is monomorphised.

use super::{
    AllocKind, Allocator, Coord, MachineSpec, Placement, Request, Shape, SpecError, Submesh,
    mismatch,
};

/// Shapes known not to fit the current free set: `min_h[w]` is the smallest height of a recorded
/// failure of width ≤ `w`, so `w × h` fails whenever `h ≥ min_h[w]`. Allocation only removes free
/// nodes, so failures stay valid until [`Mesh::vacate`] clears the cache.
#[derive(Debug, Clone)]
struct FailCache {
    min_h: Vec<u32>,
    dirty: bool,
}

impl FailCache {
    fn new(width: u32) -> Self {
        FailCache {
            min_h: vec![u32::MAX; width as usize + 1],
            dirty: false,
        }
    }
    /// `shape` fits the mesh's extent (checked by the caller).
    fn known_to_fail(&self, shape: Shape) -> bool {
        self.min_h[shape.w as usize] <= shape.h
    }
    fn record(&mut self, shape: Shape) {
        for v in &mut self.min_h[shape.w as usize..] {
            *v = (*v).min(shape.h);
        }
        self.dirty = true;
    }
    fn clear(&mut self) {
        if self.dirty {
            self.min_h.fill(u32::MAX);
            self.dirty = false;
        }
    }
}

/// The free/busy state of a 2D mesh, with fast placement queries.
///
/// ```
/// use pwa_replay::machine::{Mesh, Shape, Submesh};
///
/// // Fig. 1 of window-k-mesh.md: M(5,4) whose free nodes are (1,1,5,2) ∪ (4,1,5,3).
/// let mut mesh = Mesh::new(Shape::new(5, 4));
/// mesh.occupy(&Submesh::from_paper(1, 3, 3, 3));
/// mesh.occupy(&Submesh::from_paper(1, 4, 5, 4));
/// assert_eq!(mesh.free_nodes(), 12);
/// assert_eq!(mesh.first_fit(Shape::new(2, 3)), Some(Submesh::from_paper(4, 1, 5, 3)));
/// assert_eq!(mesh.first_fit(Shape::new(3, 3)), None);
/// let holes = mesh.maximal_free_submeshes(Shape::new(1, 1));
/// let holes: Vec<_> = holes.iter().map(Submesh::paper).collect();
/// assert_eq!(holes, [(1, 1, 5, 2), (4, 1, 5, 3)]);
/// ```
#[derive(Debug, Clone)]
pub struct Mesh {
    size: Shape,
    /// Words per row.
    nw: usize,
    /// `H × nw` words; set bit = free node.
    rows: Vec<u64>,
    free: u32,
    /// Scratch: per-row run masks, then block suffix ANDs.
    runs: Vec<u64>,
    /// Scratch: block prefix ANDs, then the bases of the last [`Mesh::free_bases`] query.
    bases: Vec<u64>,
    fail: FailCache,
}

impl Mesh {
    /// An all-free `size.w × size.h` mesh. The node count `W·H` must fit a `u32` (as
    /// [`AllocKind::build`](super::AllocKind::build) checks).
    pub fn new(size: Shape) -> Self {
        let nw = size.w.div_ceil(64) as usize;
        let mut rows = vec![0u64; nw * size.h as usize];
        for row in rows.chunks_exact_mut(nw.max(1)) {
            set_range(row, 0, size.w, true);
        }
        Mesh {
            size,
            nw,
            runs: vec![0; rows.len()],
            bases: vec![0; rows.len()],
            rows,
            free: size.w * size.h,
            fail: FailCache::new(size.w),
        }
    }

    /// Width and height.
    pub fn size(&self) -> Shape {
        self.size
    }

    /// Free nodes now.
    pub fn free_nodes(&self) -> u32 {
        self.free
    }

    /// Whether `shape` fits the mesh at all (in this orientation): `0 < w ≤ W` and `0 < h ≤ H`.
    pub fn can_hold(&self, shape: Shape) -> bool {
        shape.w > 0 && shape.h > 0 && shape.w <= self.size.w && shape.h <= self.size.h
    }

    /// Whether `s` lies inside the mesh (and is not empty).
    pub fn contains(&self, s: &Submesh) -> bool {
        self.can_hold(s.shape)
            && s.base.x <= self.size.w - s.shape.w
            && s.base.y <= self.size.h - s.shape.h
    }

    /// Whether node `c` is inside the mesh and free.
    pub fn is_node_free(&self, c: Coord) -> bool {
        c.x < self.size.w
            && c.y < self.size.h
            && self.row(c.y)[(c.x / 64) as usize] >> (c.x % 64) & 1 == 1
    }

    /// Whether every node of `s` is inside the mesh and free.
    pub fn is_free(&self, s: &Submesh) -> bool {
        self.contains(s)
            && (s.base.y..s.base.y + s.shape.h)
                .all(|y| range_all_set(self.row(y), s.base.x, s.shape.w))
    }

    /// Marks every node of `s` busy. `s` must be inside the mesh and free (checked in debug builds;
    /// a submesh outside the mesh is ignored).
    pub fn occupy(&mut self, s: &Submesh) {
        debug_assert!(self.is_free(s), "occupying a non-free submesh {s:?}");
        if self.contains(s) {
            self.mark(s, false);
            self.free -= s.shape.area();
        }
    }

    /// Marks every node of `s` free. `s` must be inside the mesh and busy (checked in debug builds;
    /// a submesh outside the mesh is ignored). Clears the cache of failed shapes.
    pub fn vacate(&mut self, s: &Submesh) {
        debug_assert!(
            self.contains(s)
                && (s.base.y..s.base.y + s.shape.h).all(|y| range_all_clear(
                    self.row(y),
                    s.base.x,
                    s.shape.w
                )),
            "vacating a submesh that is not busy {s:?}"
        );
        if self.contains(s) {
            self.mark(s, true);
            self.free += s.shape.area();
            self.fail.clear();
        }
    }

    /// Every free placement of `shape`, or `None` when there is none (including when `shape` does not
    /// fit the mesh). The answer borrows the mesh; read the state through [`FreeBases::mesh`].
    pub fn free_bases(&mut self, shape: Shape) -> Option<FreeBases<'_>> {
        if !self.can_hold(shape) || self.free < shape.area() || self.fail.known_to_fail(shape) {
            return None;
        }
        if self.scan(shape) {
            Some(FreeBases { mesh: self, shape })
        } else {
            self.fail.record(shape);
            None
        }
    }

    /// The first free placement of `shape` in row-major base order (lowest `y`, then lowest `x`).
    pub fn first_fit(&mut self, shape: Shape) -> Option<Submesh> {
        self.free_bases(shape)?.first()
    }

    /// Unit edges of `s`'s boundary whose outside neighbour is busy or beyond the mesh (0 ..= 2(w+h)).
    /// `s` must be inside the mesh.
    pub fn boundary_contact(&self, s: &Submesh) -> u32 {
        let Submesh { base, shape } = *s;
        let busy_in_row = |y: u32| shape.w - range_count(self.row(y), base.x, shape.w);
        let busy_in_col = |x: u32| {
            (base.y..base.y + shape.h)
                .filter(|&y| !self.is_node_free(Coord { x, y }))
                .count() as u32
        };
        let below = if base.y == 0 {
            shape.w
        } else {
            busy_in_row(base.y - 1)
        };
        let above = if base.y + shape.h == self.size.h {
            shape.w
        } else {
            busy_in_row(base.y + shape.h)
        };
        let left = if base.x == 0 {
            shape.h
        } else {
            busy_in_col(base.x - 1)
        };
        let right = if base.x + shape.w == self.size.w {
            shape.h
        } else {
            busy_in_col(base.x + shape.w)
        };
        below + above + left + right
    }

    /// Peripheral length of `s` (window-k-mesh.md §3.2): unit edges of its boundary on the mesh border —
    /// `h` for touching the left edge, `h` the right, `w` the bottom, `w` the top.
    pub fn peripheral_length(&self, s: &Submesh) -> u32 {
        let Submesh { base, shape } = *s;
        let side = |touches: bool, len: u32| if touches { len } else { 0 };
        side(base.x == 0, shape.h)
            + side(base.x + shape.w == self.size.w, shape.h)
            + side(base.y == 0, shape.w)
            + side(base.y + shape.h == self.size.h, shape.w)
    }

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
        self.maximal(min, true)
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

    fn row(&self, y: u32) -> &[u64] {
        let start = y as usize * self.nw;
        &self.rows[start..start + self.nw]
    }

    fn mark(&mut self, s: &Submesh, free: bool) {
        let nw = self.nw;
        for y in s.base.y..s.base.y + s.shape.h {
            let start = y as usize * nw;
            set_range(&mut self.rows[start..start + nw], s.base.x, s.shape.w, free);
        }
    }

    /// Fills `self.bases` rows `0..=H−h` with the free bases of `shape`; returns whether any exists.
    /// `shape` fits the mesh (checked by the caller). Meshes up to 256 wide take [`Mesh::scan_fixed`].
    fn scan(&mut self, shape: Shape) -> bool {
        match self.nw {
            1 => return self.scan_fixed::<1>(shape),
            2 => return self.scan_fixed::<2>(shape),
            3 => return self.scan_fixed::<3>(shape),
            4 => return self.scan_fixed::<4>(shape),
            _ => {}
        }
        let nw = self.nw;
        let h = shape.h as usize;
        let height = self.size.h as usize;
        self.runs.copy_from_slice(&self.rows);
        // Early out: a placement needs h consecutive rows that each hold a run of w free nodes.
        let (mut stretch, mut tallest) = (0, 0);
        for row in self.runs.chunks_exact_mut(nw) {
            if row.iter().map(|v| v.count_ones()).sum::<u32>() < shape.w {
                row.fill(0);
            } else {
                runs_at_least(row, shape.w);
            }
            stretch = if row.iter().any(|&v| v != 0) {
                stretch + 1
            } else {
                0
            };
            tallest = tallest.max(stretch);
        }
        if tallest < h {
            return false;
        }
        // Blocks of h rows: prefix ANDs into `bases`, suffix ANDs in place in `runs` (stride nw).
        for (r, p) in self
            .runs
            .chunks_mut(h * nw)
            .zip(self.bases.chunks_mut(h * nw))
        {
            p.copy_from_slice(r);
            for i in nw..p.len() {
                p[i] &= p[i - nw];
            }
            for i in (0..r.len() - nw).rev() {
                r[i] &= r[i + nw];
            }
        }
        // Window [y, y+h): suffix[y] & prefix[y+h−1]; written over prefix[y] (read indices ≥ y).
        let span = (h - 1) * nw;
        let mut any = false;
        for i in 0..(height - h + 1) * nw {
            let v = self.runs[i] & self.bases[i + span];
            self.bases[i] = v;
            any |= v != 0;
        }
        any
    }
}

impl Mesh {
    /// [`Mesh::scan`] with rows of exactly `N` words (meshes up to `64·N` wide) as arrays, so the
    /// word loops unroll.
    fn scan_fixed<const N: usize>(&mut self, shape: Shape) -> bool {
        let (w, h) = (shape.w, shape.h as usize);
        let (rows, _) = self.rows.as_chunks::<N>();
        let (runs, _) = self.runs.as_chunks_mut::<N>();
        let (bases, _) = self.bases.as_chunks_mut::<N>();
        let (mut stretch, mut tallest) = (0, 0);
        for (r, row) in runs.iter_mut().zip(rows) {
            *r = *row;
            if r.iter().map(|v| v.count_ones()).sum::<u32>() < w {
                *r = [0; N];
            } else {
                runs_at_least(r, w);
            }
            stretch = if r.iter().any(|&v| v != 0) {
                stretch + 1
            } else {
                0
            };
            tallest = tallest.max(stretch);
        }
        if tallest < h {
            return false;
        }
        for (r, p) in runs.chunks_mut(h).zip(bases.chunks_mut(h)) {
            let mut acc = [!0u64; N];
            for (pi, ri) in p.iter_mut().zip(r.iter()) {
                and_into(&mut acc, ri);
                *pi = acc;
            }
            let mut acc = [!0u64; N];
            for ri in r.iter_mut().rev() {
                and_into(&mut acc, ri);
                *ri = acc;
            }
        }
        let mut any = false;
        for y in 0..runs.len() + 1 - h {
            let mut v = runs[y];
            and_into(&mut v, &bases[y + h - 1]);
            bases[y] = v;
            any |= v.iter().any(|&x| x != 0);
        }
        any
    }
}

// MeshAllocator lives in this file, not a module of its own: with the `ci` profile (opt-level 1, no
// LTO, 16 codegen units) an extra module regrouped the codegen units and left the scan's small generic
// helpers un-inlined — 3–13 % more allocation time on sdsc-96 with no source change to the scan.

/// How a mesh allocator chooses where a rectangle goes: the only part that differs between the
/// submesh allocation algorithms.
///
/// The rules here mark `place` `#[inline]` and keep any heavy scoring in a private function: a
/// `MeshAllocator<R>` is monomorphised in the crate that names it (a bench, a test), and the hint
/// lets that copy reach [`Mesh::free_bases`] in one call, as a hand-written allocator would.
pub trait PlacementRule: Send {
    /// A free placement of a `shape` request on `mesh` (the request itself or, for rules that turn
    /// requests, its 90° turn), and whether it was turned; `None` when the rule finds none. The rule
    /// only chooses: [`MeshAllocator`] marks the placement busy.
    fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)>;

    /// Whether a `shape` request fits the empty `mesh` in some orientation this rule would try.
    /// Default: the requested orientation only.
    fn fits_empty(&self, mesh: &Mesh, shape: Shape) -> bool {
        mesh.can_hold(shape)
    }
}

/// A submesh allocator on a 2D mesh: the shared bookkeeping around one [`PlacementRule`].
#[derive(Debug, Clone)]
pub struct MeshAllocator<R> {
    mesh: Mesh,
    rule: R,
}

impl<R: PlacementRule + Default> MeshAllocator<R> {
    /// The allocator on an all-free `size` mesh.
    pub fn new(size: Shape) -> Self {
        Self::with_mesh(Mesh::new(size))
    }

    /// The allocator on a mesh whose busy nodes are already marked (e.g. reserved or faulty nodes).
    pub fn with_mesh(mesh: Mesh) -> Self {
        MeshAllocator {
            mesh,
            rule: R::default(),
        }
    }
}

impl<R> MeshAllocator<R> {
    /// The current free/busy state.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }
}

/// The registry's `build` for every rule: the allocator on an all-free 2D mesh; other machines (and
/// meshes of 2³² nodes or more) do not take a submesh allocator.
pub(super) fn build<R>(
    kind: AllocKind,
    machine: MachineSpec,
) -> Result<Box<dyn Allocator>, SpecError>
where
    R: PlacementRule + Default + Clone + 'static,
{
    match machine {
        MachineSpec::Mesh { size } if size.w.checked_mul(size.h).is_some() => {
            Ok(Box::new(MeshAllocator::<R>::new(size)))
        }
        _ => Err(mismatch(kind, machine)),
    }
}

/// The submesh of a placement, if it is one.
fn submesh(p: &Placement) -> Option<&Submesh> {
    match p {
        Placement::Submesh { at, .. } => Some(at),
        _ => None,
    }
}

impl<R: PlacementRule + Clone + 'static> Allocator for MeshAllocator<R> {
    fn machine(&self) -> MachineSpec {
        MachineSpec::Mesh {
            size: self.mesh.size(),
        }
    }

    /// A rectangle request goes to the rule; other requests never fit a mesh.
    #[inline]
    fn find(&mut self, req: &Request) -> Option<Placement> {
        let Request::Submesh(shape) = *req else {
            return None;
        };
        let (at, rotated) = self.rule.place(&mut self.mesh, shape)?;
        Some(Placement::Submesh { at, rotated })
    }

    /// Marks a submesh busy; anything else is not a mesh placement and is ignored.
    fn occupy(&mut self, p: &Placement) {
        debug_assert!(submesh(p).is_some(), "not a submesh: {p:?}");
        if let Some(at) = submesh(p) {
            self.mesh.occupy(at);
        }
    }

    /// Frees a submesh placement; anything else was not granted by a mesh allocator and is ignored.
    fn vacate(&mut self, p: &Placement) {
        debug_assert!(submesh(p).is_some(), "not a submesh: {p:?}");
        if let Some(at) = submesh(p) {
            self.mesh.vacate(at);
        }
    }

    fn is_free(&self, p: &Placement) -> bool {
        submesh(p).is_some_and(|at| self.mesh.is_free(at))
    }

    fn free_nodes(&self) -> u32 {
        self.mesh.free_nodes()
    }

    /// A rectangle request fits when the rule says so; other requests never fit a mesh.
    fn fits_empty(&self, req: &Request) -> bool {
        match *req {
            Request::Submesh(shape) => self.rule.fits_empty(&self.mesh, shape),
            _ => false,
        }
    }

    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }
}

/// The free placements of one shape found by [`Mesh::free_bases`], in row-major base order.
#[derive(Debug)]
pub struct FreeBases<'a> {
    mesh: &'a Mesh,
    shape: Shape,
}

impl<'a> FreeBases<'a> {
    /// The mesh the placements were found on.
    pub fn mesh(&self) -> &'a Mesh {
        self.mesh
    }

    /// The requested shape.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// The first placement: lowest base row, then lowest base column (first fit).
    pub fn first(&self) -> Option<Submesh> {
        self.iter().next()
    }

    /// Every free placement, lowest base row first, then lowest base column.
    pub fn iter(&self) -> impl Iterator<Item = Submesh> + 'a {
        let (mesh, shape) = (self.mesh, self.shape);
        let rows = (mesh.size.h - shape.h + 1) as usize;
        mesh.bases[..rows * mesh.nw]
            .chunks_exact(mesh.nw)
            .enumerate()
            .flat_map(move |(y, words)| {
                Bits::new(words).map(move |x| Submesh {
                    base: Coord { x, y: y as u32 },
                    shape,
                })
            })
    }
}

/// Set bits of a word slice, ascending.
struct Bits<'a> {
    words: &'a [u64],
    j: usize,
    cur: u64,
}

impl<'a> Bits<'a> {
    fn new(words: &'a [u64]) -> Self {
        Bits {
            words,
            j: 0,
            cur: words.first().copied().unwrap_or(0),
        }
    }
}

impl Iterator for Bits<'_> {
    type Item = u32;
    fn next(&mut self) -> Option<u32> {
        while self.cur == 0 {
            self.j += 1;
            self.cur = *self.words.get(self.j)?;
        }
        let bit = self.cur.trailing_zeros();
        self.cur &= self.cur - 1;
        Some(self.j as u32 * 64 + bit)
    }
}

/// Maximal runs of set bits of a word slice as `(start, length)`, ascending.
struct Runs<'a> {
    words: &'a [u64],
    pos: u32,
}

impl<'a> Runs<'a> {
    fn new(words: &'a [u64]) -> Self {
        Runs { words, pos: 0 }
    }
    /// First bit ≥ `from` equal to `value`, or the slice's bit length.
    fn next_bit(&self, from: u32, value: bool) -> u32 {
        let end = self.words.len() as u32 * 64;
        let mut j = (from / 64) as usize;
        let mut mask = !0u64 << (from % 64);
        while j < self.words.len() {
            let w = if value { self.words[j] } else { !self.words[j] } & mask;
            if w != 0 {
                return j as u32 * 64 + w.trailing_zeros();
            }
            j += 1;
            mask = !0;
        }
        end
    }
}

impl Iterator for Runs<'_> {
    type Item = (u32, u32);
    fn next(&mut self) -> Option<(u32, u32)> {
        let end = self.words.len() as u32 * 64;
        if self.pos >= end {
            return None;
        }
        let start = self.next_bit(self.pos, true);
        if start >= end {
            self.pos = end;
            return None;
        }
        let stop = self.next_bit(start, false);
        self.pos = stop;
        Some((start, stop - start))
    }
}

/// The maximal runs of `words` (a row of `width` bits) that touch bit 0 or bit `width − 1`.
fn edge_runs(words: &[u64], width: u32) -> impl Iterator<Item = (u32, u32)> {
    let mut left = 0;
    for &v in words {
        let t = v.trailing_ones();
        left += t;
        if t < 64 {
            break;
        }
    }
    let mut right = 0;
    let mut top = width; // bits below `top` not yet counted
    while top > 0 {
        let used = (top - 1) % 64 + 1;
        let t = (words[((top - 1) / 64) as usize] << (64 - used)).leading_ones();
        right += t.min(used);
        if t < used {
            break;
        }
        top -= used;
    }
    let left_run = (left > 0).then_some((0, left));
    let right_run = (right > 0 && right < width).then_some((width - right, right));
    left_run.into_iter().chain(right_run)
}

/// `dst &= src` word by word (`src` at least as long).
fn and_into(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d &= *s;
    }
}

/// In place: bit `b` stays set iff bits `b .. b+w` were all set (the bases of runs ≥ `w`), by doubling.
fn runs_at_least(words: &mut [u64], w: u32) {
    let mut have = 1;
    while have < w {
        let step = have.min(w - have);
        and_shifted(words, step);
        have += step;
    }
}

/// In place: `words &= words >> s`, where bit `i` of the shifted value is bit `i + s` (0 past the end).
/// Ascending order is safe: word `j` reads only words ≥ `j`.
fn and_shifted(words: &mut [u64], s: u32) {
    if let [only] = words {
        *only &= only.checked_shr(s).unwrap_or(0);
        return;
    }
    let (ws, bs) = ((s / 64) as usize, s % 64);
    for j in 0..words.len() {
        let lo = words.get(j + ws).copied().unwrap_or(0);
        let hi = words.get(j + ws + 1).copied().unwrap_or(0);
        let shifted = if bs == 0 {
            lo
        } else {
            (lo >> bs) | (hi << (64 - bs))
        };
        words[j] &= shifted;
    }
}

/// `(word index, mask)` pairs covering bits `x .. x+w`.
fn word_masks(x: u32, w: u32) -> impl Iterator<Item = (usize, u64)> {
    let end = x + w;
    (x / 64..end.div_ceil(64)).map(move |j| {
        let lo = x.max(j * 64) - j * 64;
        let hi = end.min(j * 64 + 64) - j * 64;
        let ones = if hi - lo == 64 {
            !0
        } else {
            ((1u64 << (hi - lo)) - 1) << lo
        };
        (j as usize, ones)
    })
}

fn set_range(row: &mut [u64], x: u32, w: u32, value: bool) {
    for (j, m) in word_masks(x, w) {
        if value {
            row[j] |= m;
        } else {
            row[j] &= !m;
        }
    }
}

fn range_all_set(row: &[u64], x: u32, w: u32) -> bool {
    word_masks(x, w).all(|(j, m)| row[j] & m == m)
}

fn range_all_clear(row: &[u64], x: u32, w: u32) -> bool {
    word_masks(x, w).all(|(j, m)| row[j] & m == 0)
}

fn range_count(row: &[u64], x: u32, w: u32) -> u32 {
    word_masks(x, w)
        .map(|(j, m)| (row[j] & m).count_ones())
        .sum()
}

#[cfg(test)]
pub(crate) mod tests {
    use std::cell::Cell;

    use super::*;

    /// Builds a mesh from a drawing: first line = top row (y = H−1), `.` free, `#` busy.
    pub(crate) fn drawn(picture: &str) -> Mesh {
        let lines: Vec<&str> = picture.split_whitespace().collect();
        let size = Shape::new(lines[0].len() as u32, lines.len() as u32);
        let mut mesh = Mesh::new(size);
        for (i, line) in lines.iter().enumerate() {
            let y = size.h - 1 - i as u32;
            for (x, c) in line.chars().enumerate() {
                if c == '#' {
                    mesh.occupy(&Submesh {
                        base: Coord { x: x as u32, y },
                        shape: Shape::new(1, 1),
                    });
                }
            }
        }
        mesh
    }

    /// A toy rule: the lower-left `shape` if it is free; counts its calls.
    #[derive(Debug, Default, Clone)]
    struct Corner {
        calls: Cell<u32>,
    }

    impl PlacementRule for Corner {
        fn place(&self, mesh: &mut Mesh, shape: Shape) -> Option<(Submesh, bool)> {
            self.calls.set(self.calls.get() + 1);
            let at = Submesh {
                base: Coord { x: 0, y: 0 },
                shape,
            };
            mesh.is_free(&at).then_some((at, false))
        }
    }

    #[test]
    fn bookkeeping_is_the_same_for_any_rule() {
        let mut a = MeshAllocator::<Corner>::new(Shape::new(4, 3));
        assert_eq!(
            a.machine(),
            MachineSpec::Mesh {
                size: Shape::new(4, 3)
            }
        );
        let two = Request::Submesh(Shape::new(2, 2));
        let p = a.allocate(&two).expect("the corner is free");
        assert_eq!(p.nodes(), 4);
        assert_eq!(a.free_nodes(), 8);
        assert!(!a.mesh().is_node_free(Coord { x: 1, y: 1 }), "marked busy");
        assert_eq!(a.allocate(&two), None, "the corner is taken");
        assert_eq!(a.allocate(&Request::Nodes(1)), None);
        assert_eq!(a.allocate(&Request::Subcube(1)), None);
        assert_eq!(a.rule.calls.get(), 2, "only rectangles reach the rule");
        a.vacate(&p);
        assert_eq!(a.free_nodes(), 12);
        assert!(a.allocate(&two).is_some(), "free again after release");
        assert!(a.fits_empty(&Request::Submesh(Shape::new(4, 3))));
        assert!(
            !a.fits_empty(&Request::Submesh(Shape::new(3, 4))),
            "no turn"
        );
        assert!(!a.fits_empty(&Request::Nodes(1)));
    }

    /// Fig. 1 of window-k-mesh.md: M(5,4), free = (1,1,5,2) ∪ (4,1,5,3).
    const FIG1: &str = "##### ###.. ..... .....";

    #[test]
    fn runs_at_least_finds_bases_of_long_runs() {
        // bits 0..=2 and 5..=10 set: runs of ≥ 3 start at 0 and 5..=8.
        let mut w = [0b111_1110_0111u64];
        runs_at_least(&mut w, 3);
        assert_eq!(w[0], 0b1_1110_0001);
        // across a word boundary: bits 60..70 set, runs ≥ 8 start at 60, 61, 62.
        let mut two = [!0u64 << 60, 0b11_1111];
        runs_at_least(&mut two, 8);
        assert_eq!(two, [0b111 << 60, 0]);
    }

    #[test]
    fn edge_runs_across_words() {
        // width 70: bits 0..=2 and 60..=69 set.
        let words = [0b111 | (!0u64 << 60), 0b11_1111];
        let runs: Vec<_> = edge_runs(&words, 70).collect();
        assert_eq!(runs, vec![(0, 3), (60, 10)]);
        let full = [!0u64, 0b11_1111];
        assert_eq!(edge_runs(&full, 70).collect::<Vec<_>>(), vec![(0, 70)]);
        assert_eq!(edge_runs(&[0b0110], 4).count(), 0);
    }

    #[test]
    fn fig1_free_bases_and_first_fit() {
        let mut m = drawn(FIG1);
        assert_eq!(m.free_nodes(), 12);
        let bases: Vec<_> = m
            .free_bases(Shape::new(2, 3))
            .map(|b| b.iter().map(|s| s.paper()).collect())
            .unwrap_or_default();
        assert_eq!(bases, vec![(4, 1, 5, 3)]);
        assert_eq!(
            m.first_fit(Shape::new(5, 2)),
            Some(Submesh::from_paper(1, 1, 5, 2))
        );
        assert_eq!(m.first_fit(Shape::new(5, 3)), None);
        assert_eq!(
            m.first_fit(Shape::new(3, 2)).map(|s| s.paper()),
            Some((1, 1, 3, 2))
        );
    }

    #[test]
    fn example1_maximal_free_submeshes() {
        let m = drawn(FIG1);
        let mfs: Vec<_> = m
            .maximal_free_submeshes(Shape::new(1, 1))
            .iter()
            .map(Submesh::paper)
            .collect();
        assert_eq!(mfs, vec![(1, 1, 5, 2), (4, 1, 5, 3)]);
        // (1,1,3,2) is free but not maximal.
        assert!(m.is_free(&Submesh::from_paper(1, 1, 3, 2)));
        let tall: Vec<_> = m.maximal_free_submeshes(Shape::new(1, 3));
        assert_eq!(tall, vec![Submesh::from_paper(4, 1, 5, 3)]);
    }

    #[test]
    fn failure_cache_is_cleared_by_vacate() {
        let mut m = drawn(FIG1);
        assert!(m.first_fit(Shape::new(3, 3)).is_none());
        assert!(
            m.first_fit(Shape::new(4, 3)).is_none(),
            "larger than a failure"
        );
        assert!(
            m.first_fit(Shape::new(2, 3)).is_some(),
            "smaller is not cached"
        );
        m.vacate(&Submesh::from_paper(1, 3, 3, 3));
        assert_eq!(
            m.first_fit(Shape::new(3, 3)),
            Some(Submesh::from_paper(1, 1, 3, 3))
        );
    }

    #[test]
    fn boundary_and_peripheral_length() {
        let m = drawn(FIG1);
        let s = Submesh::from_paper(4, 1, 5, 1);
        assert_eq!(m.peripheral_length(&s), 3);
        // bottom 2 + right 1 outside; left (3,1) and top (4,2),(5,2) free.
        assert_eq!(m.boundary_contact(&s), 3);
        let t = Submesh::from_paper(4, 3, 5, 3);
        // top row 4 busy (2), right edge (1), left (3,3) busy (1), below free.
        assert_eq!(m.boundary_contact(&t), 4);
        assert_eq!(m.peripheral_length(&t), 1);
    }

    #[test]
    fn wide_mesh_uses_several_words() {
        let mut m = Mesh::new(Shape::new(200, 3));
        m.occupy(&Submesh {
            base: Coord { x: 0, y: 0 },
            shape: Shape::new(70, 3),
        });
        let s = m.first_fit(Shape::new(130, 3));
        assert_eq!(s.map(|s| s.base), Some(Coord { x: 70, y: 0 }));
        assert!(m.first_fit(Shape::new(131, 1)).is_none());
        assert_eq!(m.free_nodes(), 130 * 3);
    }
}
