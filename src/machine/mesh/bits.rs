//! Word-level primitives on rows of bits (bit `x % 64` of word `x / 64`): iterating set bits and
//! maximal runs, shift-and run detection, and range masks.

/// Set bits of a word slice, ascending.
pub(super) struct Bits<'a> {
    words: &'a [u64],
    j: usize,
    cur: u64,
}

impl<'a> Bits<'a> {
    pub(super) fn new(words: &'a [u64]) -> Self {
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
pub(super) struct Runs<'a> {
    words: &'a [u64],
    pos: u32,
}

impl<'a> Runs<'a> {
    pub(super) fn new(words: &'a [u64]) -> Self {
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
pub(super) fn edge_runs(words: &[u64], width: u32) -> impl Iterator<Item = (u32, u32)> {
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
pub(super) fn and_into(dst: &mut [u64], src: &[u64]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d &= *s;
    }
}

/// In place: bit `b` stays set iff bits `b .. b+w` were all set (the bases of runs ≥ `w`), by doubling.
pub(super) fn runs_at_least(words: &mut [u64], w: u32) {
    let mut have = 1;
    while have < w {
        let step = have.min(w - have);
        and_shifted(words, step);
        have += step;
    }
}

/// In place: `words &= words >> s`, where bit `i` of the shifted value is bit `i + s` (0 past the end).
/// Ascending order is safe: word `j` reads only words ≥ `j`.
pub(super) fn and_shifted(words: &mut [u64], s: u32) {
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
pub(super) fn word_masks(x: u32, w: u32) -> impl Iterator<Item = (usize, u64)> {
    let end = x + w;
    (x / 64..end.div_ceil(64)).map(move |j| {
        let lo = x.max(j * 64) - j * 64;
        let hi = end.min(j * 64 + 64) - j * 64;
        (j as usize, word_mask(lo, hi - lo))
    })
}

/// Bits `lo .. lo+len` of one word set (`lo + len ≤ 64`, `len ≥ 1`).
pub(super) fn word_mask(lo: u32, len: u32) -> u64 {
    (u64::MAX >> (64 - len)) << lo
}

pub(super) fn set_range(row: &mut [u64], x: u32, w: u32, value: bool) {
    for (j, m) in word_masks(x, w) {
        if value {
            row[j] |= m;
        } else {
            row[j] &= !m;
        }
    }
}

pub(super) fn range_all_set(row: &[u64], x: u32, w: u32) -> bool {
    word_masks(x, w).all(|(j, m)| row[j] & m == m)
}

pub(super) fn range_all_clear(row: &[u64], x: u32, w: u32) -> bool {
    word_masks(x, w).all(|(j, m)| row[j] & m == 0)
}

pub(super) fn range_count(row: &[u64], x: u32, w: u32) -> u32 {
    word_masks(x, w)
        .map(|(j, m)| (row[j] & m).count_ones())
        .sum()
}
