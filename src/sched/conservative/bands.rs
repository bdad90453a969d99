//! Which reservation sizes a gain of the count plan can let move (issue 32): a compression looks
//! only at the reservations whose size lies in the *band* of a gain logged since they were last
//! planned, and keeps the others in place without looking at them.
//!
//! Why that loses no move: when a reservation of `n` nodes was last planned, no window before its
//! slot had `n` free throughout (its slot was the earliest). If one has now, the counts changed in
//! between by steps — each a gain (an early end, a reservation moved or taken out: counts rise on
//! its span), a loss (a reservation put in: counts fall), or a move (both at once) — and some step
//! made the window fit: at some point of the window the count went from below `n` to `n` or more.
//! Only a gain raises a count, by at most its own nodes `k`, and only on its span: right after that
//! step the point has `c` free with `c - k < n ≤ c`. The point is not in the reservation's own span
//! (its own nodes count as free there, before and after). So a gain's band is the union of
//! `(c - k, c]` over the counts `c` of its span right after it (every change inside the span and
//! the count in effect where it begins; several gains of one step share the step's total `k`),
//! and a reservation whose size is in no band of the gains logged since it was last planned cannot
//! move. Windows of length 0 are a point and obey the same rule.
//!
//! The bands of the gains logged since the last compression began are kept, with their unions from
//! each gain on: a reservation is asked about with one union and one bit. Every reservation is
//! looked at (or ruled out) in every compression, so the bands before the previous compression's
//! start are dropped; a reservation planned before them is looked at.

/// Sets the sizes `lo..=hi` (clamped to `1..=total`) in `bits`.
fn set_range(bits: &mut [u64], lo: i32, hi: i32, total: i32) {
    let (lo, hi) = (lo.max(1), hi.min(total));
    if lo > hi {
        return;
    }
    let (lo, hi) = (lo.unsigned_abs() as usize, hi.unsigned_abs() as usize);
    let (first, last) = (lo / 64, hi / 64);
    for (w, word) in bits.iter_mut().enumerate().take(last + 1).skip(first) {
        let from = if w == first { lo % 64 } else { 0 };
        let to = if w == last { hi % 64 } else { 63 };
        *word |= (u64::MAX >> (63 - to)) & (u64::MAX << from);
    }
}

/// Whether size `n` is in `bits`.
fn has(bits: &[u64], n: i32) -> bool {
    let n = n.unsigned_abs() as usize;
    bits.get(n / 64).is_some_and(|w| w >> (n % 64) & 1 == 1)
}

/// The bands of the recent gains, by gain number. A band is a set of reservation sizes (node
/// counts `1..=total`) as bits, `width` words.
#[derive(Debug, Default)]
pub(super) struct Bands {
    total: i32,
    width: usize,
    /// The bands of the gains numbered `from..`, `width` words each.
    bits: Vec<u64>,
    from: u64,
    /// For each gain numbered `from..fixed`, the union of its band and those after it up to
    /// `fixed`.
    unions: Vec<u64>,
    /// Where the last compression began: the gains numbered `fixed..` are in `fresh`.
    fixed: u64,
    fresh: Vec<u64>,
}

impl Bands {
    /// No band yet, for sizes up to `total`.
    pub(super) fn new(total: i32) -> Self {
        let width = (total.max(0).unsigned_abs() as usize + 1).div_ceil(64);
        Bands {
            total,
            width,
            fresh: vec![0; width],
            ..Bands::default()
        }
    }

    /// Clears `scratch` to an empty band: then [`add`](Self::add) each count, and
    /// [`push`](Self::push) it.
    pub(super) fn band(&self, scratch: &mut Vec<u64>) {
        scratch.clear();
        scratch.resize(self.width, 0);
    }

    /// Adds the sizes a count `c` reached by a rise of `k` lets in: `(c - k, c]`.
    pub(super) fn add(&self, band: &mut [u64], c: i32, k: i32) {
        set_range(band, c.saturating_sub(k).saturating_add(1), c, self.total);
    }

    /// Logs the band of the next gain (numbered `from + bands`).
    pub(super) fn push(&mut self, band: &[u64]) {
        self.bits.extend_from_slice(band);
        for (f, b) in self.fresh.iter_mut().zip(band) {
            *f |= b;
        }
    }

    /// Logs every size as the band of the next gain (a gain whose span was not read).
    pub(super) fn push_all(&mut self) {
        let mut band = Vec::new();
        self.band(&mut band);
        set_range(&mut band, 1, self.total, self.total);
        self.push(&band);
    }

    /// Replaces the band of gain `number` (logged with every size, before its span could be read)
    /// by `band`, before the next compression begins.
    pub(super) fn narrow(&mut self, number: u64, band: &[u64]) {
        let Some(i) = number
            .checked_sub(self.from)
            .filter(|&i| i >= self.fixed - self.from)
        else {
            return;
        };
        let at = usize::try_from(i).map_or(usize::MAX, |i| i * self.width);
        if let Some(old) = self.bits.get_mut(at..at + self.width) {
            old.copy_from_slice(band);
        }
        // The union of the fresh bands is made again (few: those since the last compression).
        self.fresh.fill(0);
        let from = usize::try_from(self.fixed - self.from).map_or(usize::MAX, |i| i * self.width);
        for band in self
            .bits
            .get(from..)
            .unwrap_or(&[])
            .chunks_exact(self.width)
        {
            for (f, b) in self.fresh.iter_mut().zip(band) {
                *f |= b;
            }
        }
    }

    /// A compression begins with `next` gains logged: the bands of the gains before the previous
    /// compression's start go (every reservation was planned since), and the unions of those since
    /// are made.
    pub(super) fn compress(&mut self, next: u64) {
        let gone = usize::try_from(self.fixed - self.from).map_or(usize::MAX, |i| i * self.width);
        self.bits.drain(..gone.min(self.bits.len()));
        self.from = self.fixed;
        self.fixed = next;
        self.unions.clear();
        self.unions.extend_from_slice(&self.bits);
        let w = self.width;
        for i in (0..self.unions.len() / w.max(1)).rev().skip(1) {
            let (this, after) = self.unions.split_at_mut((i + 1) * w);
            for (a, b) in this[i * w..].iter_mut().zip(&after[..w]) {
                *a |= b;
            }
        }
        self.fresh.fill(0);
    }

    /// Whether a reservation of `n` nodes planned when `seen` gains were logged may move: its size
    /// is in the band of a gain logged since (or it was planned before the bands kept).
    pub(super) fn may_move(&self, n: i32, seen: u64) -> bool {
        // No bands set up (an empty plan's placeholder): every reservation is looked at.
        if seen < self.from || self.width == 0 {
            return true;
        }
        if has(&self.fresh, n) {
            return true;
        }
        let Some(i) = seen
            .checked_sub(self.from)
            .filter(|_| seen < self.fixed)
            .and_then(|i| usize::try_from(i).ok())
        else {
            return false;
        };
        has(&self.unions[i * self.width..(i + 1) * self.width], n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn band(bands: &Bands, counts: &[i32], k: i32) -> Vec<u64> {
        let mut b = Vec::new();
        bands.band(&mut b);
        for &c in counts {
            bands.add(&mut b, c, k);
        }
        b
    }

    #[test]
    fn a_band_holds_the_sizes_a_rise_lets_in() {
        let bands = Bands::new(130);
        // Counts 5 and 70 after a rise of 2: sizes 4, 5, 69, 70.
        let b = band(&bands, &[5, 70], 2);
        let sizes: Vec<i32> = (0..=131).filter(|&n| has(&b, n)).collect();
        assert_eq!(sizes, vec![4, 5, 69, 70]);
        // A rise of 200 on 130 free: every size; a count of 0 lets none in.
        let b = band(&bands, &[130], 200);
        assert_eq!((1..=130).filter(|&n| has(&b, n)).count(), 130);
        assert!(!has(&b, 0) && !has(&b, 131));
        let b = band(&bands, &[0], 5);
        assert!((0..=130).all(|n| !has(&b, n)));
        // Ranges across words: 60..=129.
        let b = band(&bands, &[129], 70);
        let sizes: Vec<i32> = (0..=130).filter(|&n| has(&b, n)).collect();
        assert_eq!(sizes, (60..=129).collect::<Vec<_>>());
    }

    #[test]
    fn a_reservation_may_move_only_for_a_band_logged_since_it_was_planned() {
        let mut bands = Bands::new(100);
        let b0 = band(&bands, &[10], 1); // gain 0: size 10
        bands.push(&b0);
        bands.compress(1);
        let b1 = band(&bands, &[20], 1); // gain 1: size 20
        bands.push(&b1);
        let b2 = band(&bands, &[30], 1); // gain 2: size 30
        bands.push(&b2);
        // Planned before gain 0: sizes 10, 20 and 30; after it: 20 and 30; after all: none.
        assert!(bands.may_move(10, 0) && bands.may_move(20, 0) && bands.may_move(30, 0));
        assert!(!bands.may_move(10, 1) && bands.may_move(20, 1));
        assert!(!bands.may_move(11, 0));
        // Fresh bands are pooled (gain 1 counts for a reservation planned after it: sound).
        assert!(bands.may_move(20, 3));
        // The next compression keeps the gains since the last one (1 and 2) as unions.
        bands.compress(3);
        assert!(bands.may_move(20, 1) && bands.may_move(30, 1) && !bands.may_move(10, 1));
        assert!(!bands.may_move(20, 2) && bands.may_move(30, 2));
        assert!(!bands.may_move(30, 3));
        // Planned before the bands kept: looked at.
        assert!(bands.may_move(77, 0));
    }

    #[test]
    fn a_band_logged_whole_can_be_narrowed_before_the_next_compression() {
        let mut bands = Bands::new(100);
        bands.push_all(); // gain 0, span not read yet
        assert!(bands.may_move(55, 0));
        bands.narrow(0, &band(&bands, &[40], 3));
        assert!(!bands.may_move(55, 0) && bands.may_move(38, 0) && !bands.may_move(37, 0));
        bands.compress(1);
        assert!(bands.may_move(40, 0) && !bands.may_move(55, 0));
    }
}
