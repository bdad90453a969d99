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
//! scan of a mesh wider than 64, rows with fewer than `w` free nodes skip step 1, and step 2 is
//! skipped when no `h` consecutive rows hold a run of `w`; a mesh at most 64 wide does step 2 by
//! doubling too, each pass one operation over all rows (see `scan`).
//!
//! The state is kept by rows and by columns, so [`Mesh::boundary_contact`] (best fit's score) counts
//! a side of a placement with masked words.
//!
//! [`Mesh::maximal_free_submeshes`] lists the maximal free submeshes (window-k-mesh.md Definition 1)
//! for MPL by extending row ANDs upwards from each bottom row; it runs only on successful attempts.
//!
//! [`MeshAllocator`] is the rest of what the five submesh allocators share: the whole [`Allocator`](super::Allocator)
//! contract (counters, non-rectangle requests, marking placements busy and free), written once around
//! a [`PlacementRule`]. Each algorithm's file supplies only its rule and names the allocator with a
//! type alias (`FirstFit = MeshAllocator<FirstFitRule>`, …), so every call is monomorphised.
//!
//! The code is split by concern: `bits` (word-level primitives: runs, masks, ranges), `scan` (the
//! free-base scan), `maximal` (maximal free submeshes), `allocator` ([`MeshAllocator`] and
//! [`PlacementRule`]); this file holds the state itself.

mod allocator;
mod bits;
mod maximal;
mod scan;

pub(super) use allocator::build;
pub use allocator::{MeshAllocator, PlacementRule};
pub use maximal::RegionCounter;

use bits::{Bits, range_all_clear, range_all_set, range_count, set_range, word_mask};

use super::{Coord, Shape, Submesh};

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
    /// Words per column.
    nh: usize,
    /// The same state by columns, `W × nh` words (bit `y % 64` of word `y / 64` of column `x` set
    /// when `(x, y)` is free), so that [`Mesh::boundary_contact`] counts a side column with a few
    /// word operations instead of a node at a time.
    cols: Vec<u64>,
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
        let nh = size.h.div_ceil(64) as usize;
        let mut cols = vec![0u64; nh * size.w as usize];
        for col in cols.chunks_exact_mut(nh.max(1)) {
            set_range(col, 0, size.h, true);
        }
        Mesh {
            size,
            nw,
            nh,
            cols,
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

    /// `check` on the mesh with `s` (inside the mesh, free) marked busy; afterwards the mesh is as it
    /// was, its cache of failed shapes included (failures seen with `s` busy are dropped).
    pub fn with_taken<T>(&mut self, s: &Submesh, check: impl FnOnce(&mut Mesh) -> T) -> T {
        debug_assert!(self.is_free(s), "taking a non-free submesh {s:?}");
        let saved = self.fail.clone();
        self.mark(s, false);
        self.free -= s.shape.area();
        let answer = check(self);
        self.mark(s, true);
        self.free += s.shape.area();
        self.fail = saved;
        answer
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
        if self.nw == 1 && self.nh == 1 && s.shape.w + s.shape.h <= 32 {
            self.boundary_contact_packed(s)
        } else {
            self.boundary_contact_by_sides(s)
        }
    }

    /// [`Mesh::boundary_contact`] on a mesh whose rows and columns are one word each, for a
    /// submesh with `w + h ≤ 32`: the free bits of the four sides (a side beyond the mesh has
    /// none) packed side by side into one word, `2(w + h)` bits, and counted at once — best fit
    /// scores every free base this way, and one bit count costs a quarter of four (issue 32).
    fn boundary_contact_packed(&self, s: &Submesh) -> u32 {
        let Submesh { base, shape } = *s;
        let (w, h) = (shape.w, shape.h);
        let row = |y: Option<u32>| {
            y.filter(|&y| y < self.size.h)
                .map_or(0, |y| self.rows[y as usize])
        };
        let col = |x: Option<u32>| {
            x.filter(|&x| x < self.size.w)
                .map_or(0, |x| self.cols[x as usize])
        };
        let side = |line: u64, at: u32, len: u32| line >> at & (u64::MAX >> (64 - len));
        let free = side(row(base.y.checked_sub(1)), base.x, w)
            | side(row(Some(base.y + h)), base.x, w) << w
            | side(col(base.x.checked_sub(1)), base.y, h) << (2 * w)
            | side(col(Some(base.x + w)), base.y, h) << (2 * w + h);
        2 * (w + h) - free.count_ones()
    }

    /// [`Mesh::boundary_contact`] side by side, on any mesh.
    fn boundary_contact_by_sides(&self, s: &Submesh) -> u32 {
        let Submesh { base, shape } = *s;
        let busy_in_row = |y: u32| shape.w - free_in(self.row(y), base.x, shape.w);
        let busy_in_col = |x: u32| shape.h - free_in(self.col(x), base.y, shape.h);
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

    /// Every row's words (`H × ⌈W/64⌉`, set bit = free node): the whole free set, for comparing
    /// two states of the same mesh.
    pub(crate) fn free_words(&self) -> &[u64] {
        &self.rows
    }

    pub(super) fn row(&self, y: u32) -> &[u64] {
        let start = y as usize * self.nw;
        &self.rows[start..start + self.nw]
    }

    fn col(&self, x: u32) -> &[u64] {
        let start = x as usize * self.nh;
        &self.cols[start..start + self.nh]
    }

    /// Sets `s`'s nodes free or busy, in the rows and in the columns.
    fn mark(&mut self, s: &Submesh, free: bool) {
        let Submesh { base, shape } = *s;
        mark_lines(
            &mut self.rows,
            self.nw,
            base.y,
            shape.h,
            base.x,
            shape.w,
            free,
        );
        mark_lines(
            &mut self.cols,
            self.nh,
            base.x,
            shape.w,
            base.y,
            shape.h,
            free,
        );
    }
}

/// Set bits among bits `at .. at+len` (`len ≥ 1`) of a line: one masked word when they lie in one.
#[inline]
fn free_in(line: &[u64], at: u32, len: u32) -> u32 {
    if at / 64 == (at + len - 1) / 64 {
        (line[(at / 64) as usize] & word_mask(at % 64, len)).count_ones()
    } else {
        range_count(line, at, len)
    }
}

/// Sets bits `at .. at+len` of lines `first .. first+count` (each `stride` words) to `free`. When the
/// bits lie in one word (always on a mesh at most 64 wide or tall), its mask is computed once.
fn mark_lines(
    words: &mut [u64],
    stride: usize,
    first: u32,
    count: u32,
    at: u32,
    len: u32,
    free: bool,
) {
    if count == 0 || len == 0 {
        return;
    }
    if stride == 1 {
        // One word per line (a mesh at most 64 wide, or tall): a run of words, one mask.
        let m = word_mask(at, len);
        let lines = &mut words[first as usize..(first + count) as usize];
        if free {
            lines.iter_mut().for_each(|v| *v |= m);
        } else {
            lines.iter_mut().for_each(|v| *v &= !m);
        }
        return;
    }
    let lines = words
        .chunks_exact_mut(stride)
        .skip(first as usize)
        .take(count as usize);
    if at / 64 == (at + len - 1) / 64 {
        let (j, m) = ((at / 64) as usize, word_mask(at % 64, len));
        for line in lines {
            if free {
                line[j] |= m;
            } else {
                line[j] &= !m;
            }
        }
    } else {
        for line in lines {
            set_range(line, at, len, free);
        }
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

#[cfg(test)]
pub(crate) mod tests {
    use super::bits::{edge_runs, runs_at_least};
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

    /// A fixed LCG for the random mesh states of these tests.
    pub(crate) fn lcg(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            seed >> 33
        }
    }

    /// A random submesh of at most `max` nodes a side, its base on the `w × h` mesh (it may
    /// overhang: callers keep only those that fit).
    pub(crate) fn random_submesh(
        next: &mut impl FnMut() -> u64,
        (w, h): (u32, u32),
        max: (u64, u64),
    ) -> Submesh {
        let base = Coord {
            x: (next() % u64::from(w)) as u32,
            y: (next() % u64::from(h)) as u32,
        };
        let shape = Shape::new(1 + (next() % max.0) as u32, 1 + (next() % max.1) as u32);
        Submesh { base, shape }
    }

    /// A `w × h` mesh with up to `tries − 1` random submeshes of at most 4×3 taken (those that fit).
    pub(crate) fn random_state(
        next: &mut impl FnMut() -> u64,
        (w, h): (u32, u32),
        tries: u64,
    ) -> Mesh {
        let mut mesh = Mesh::new(Shape::new(w, h));
        for _ in 0..next() % tries {
            let s = random_submesh(next, (w, h), (4, 3));
            if mesh.contains(&s) && mesh.is_free(&s) {
                mesh.occupy(&s);
            }
        }
        mesh
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
    fn packed_boundary_contact_agrees_with_the_sides_counted_one_by_one() {
        // Random states (a fixed LCG) of one-word meshes, every submesh inside with w + h ≤ 32.
        let mut next = lcg(0x2545_f491_4f6c_dd1d);
        for (w, h) in [(1, 1), (5, 4), (22, 16), (64, 7), (9, 64)] {
            for _ in 0..6 {
                let m = random_state(&mut next, (w, h), 12);
                for (sw, sh) in (1..=w).flat_map(|a| (1..=h).map(move |b| (a, b))) {
                    if sw + sh > 32 {
                        continue;
                    }
                    for (x, y) in (0..=w - sw).flat_map(|x| (0..=h - sh).map(move |y| (x, y))) {
                        let s = Submesh {
                            base: Coord { x, y },
                            shape: Shape::new(sw, sh),
                        };
                        assert_eq!(
                            m.boundary_contact_packed(&s),
                            m.boundary_contact_by_sides(&s),
                            "{s:?}"
                        );
                    }
                }
            }
        }
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
