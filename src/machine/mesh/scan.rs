//! The free-base scan of [`Mesh::free_bases`]: per-row run masks by shift-and doubling, then a
//! sliding-window AND over `h` rows with block prefix/suffix ANDs (van Herk / Gil–Werman).

use super::Mesh;
use super::bits::{and_into, runs_at_least};
use crate::resource::Shape;

impl Mesh {
    /// Fills `self.bases` rows `0..=H−h` with the free bases of `shape`; returns whether any exists.
    /// `shape` fits the mesh (checked by the caller). Meshes up to 64 wide take [`Mesh::scan_narrow`],
    /// up to 256 wide [`Mesh::scan_fixed`].
    pub(super) fn scan(&mut self, shape: Shape) -> bool {
        match self.nw {
            1 => return self.scan_narrow(shape),
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
    /// [`Mesh::scan`] on a mesh at most 64 wide (a row is one word), by doubling in both directions:
    /// `log₂ w` shift-and passes over all rows, then `log₂ h` passes that AND each row with the row
    /// `step` above. Every pass applies one operation to every row, so the loops vectorise; there
    /// is no early out (the passes cost less than deciding one). `runs` is the scratch of the
    /// vertical passes: the two buffers trade places.
    fn scan_narrow(&mut self, shape: Shape) -> bool {
        let (w, h, height) = (shape.w, shape.h as usize, self.rows.len());
        let bases = &mut self.bases[..height];
        bases.copy_from_slice(&self.rows);
        let mut have = 1;
        while have < w {
            let step = have.min(w - have);
            for r in bases.iter_mut() {
                *r &= *r >> step;
            }
            have += step;
        }
        // Rows y ..= height − have hold the AND of `have` rows from y; each pass writes the other
        // buffer (`runs`, then swapped in), so the loop has no overlap and vectorises.
        let mut have = 1;
        while have < h {
            let step = have.min(h - have);
            have += step;
            let n = height - have + 1;
            let src = &self.bases[..step + n];
            let pairs = src.iter().zip(&src[step..]);
            for (d, (a, b)) in self.runs[..n].iter_mut().zip(pairs) {
                *d = a & b;
            }
            std::mem::swap(&mut self.bases, &mut self.runs);
        }
        self.bases[..=height - h].iter().any(|&v| v != 0)
    }

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
