//! The changes whose free count is short of a job's nodes, as words of bits: a search passes over
//! the runs of unmarked changes too short for the job, looking only where the bits flip.

use super::Step;
use crate::SimTime;

/// Bit `j` set where `counts[j]` (at most 64 of them) is below `n`.
pub(super) fn short_of(counts: &[i32], n: i32) -> u64 {
    // One byte per count first (vector compares), then eight bytes to eight bits.
    let mut bytes = [0u8; 64];
    for (b, &a) in bytes.iter_mut().zip(counts) {
        *b = u8::from(a < n);
    }
    bytes
        .chunks_exact(8)
        .enumerate()
        .fold(0u64, |word, (i, eight)| {
            let eight = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
            // Byte j (0 or 1) lands on bit 56 + j; the top byte is the eight bits.
            let bits = eight.wrapping_mul(0x0102_0408_1020_4080) >> 56;
            word | bits << (8 * i)
        })
}

/// The changes whose count is short of a threshold, as bits, from a word on (the changes before
/// it are never asked about).
pub(super) struct Marks<'a> {
    words: &'a [u64],
    /// The words of 64 changes not marked.
    skip: usize,
    len: usize,
}

impl<'a> Marks<'a> {
    /// Marks each count in `counts` below `n`, in `buf`, from the word of change `from` on.
    pub(super) fn new(buf: &'a mut Vec<u64>, counts: &[i32], n: i32, from: usize) -> Self {
        let skip = from / 64;
        buf.clear();
        buf.extend(counts[skip * 64..].chunks(64).map(|c| short_of(c, n)));
        Marks {
            words: buf,
            skip,
            len: counts.len(),
        }
    }

    /// The marks of the `w`th word of changes (`None` past the last one).
    fn word(&self, w: usize) -> Option<&u64> {
        debug_assert!(w >= self.skip, "a change before the first marked word");
        self.words.get(w - self.skip)
    }

    /// The first change of the first run of unmarked changes from `from` on that lasts `length`
    /// (until the next marked change, if any), passing over the shorter ones: only the changes
    /// where the bits flip are looked at.
    pub(super) fn long_run(&self, from: usize, steps: &[Step], length: SimTime) -> Option<usize> {
        let mut start = None::<usize>;
        let mut w = from / 64;
        // Before `from`, as if marked: an unmarked change there starts a run.
        let mut marked_before = true;
        let mut lowest = 1u64 << (from % 64);
        while let Some(&marks) = self.word(w) {
            let valid = u64::MAX >> (64 - (self.len - w * 64).min(64));
            let before = (marks << 1) & !lowest | if marked_before { lowest } else { 0 };
            let mut flips = (marks ^ before) & valid & !(lowest - 1);
            while flips != 0 {
                let j = w * 64 + flips.trailing_zeros() as usize;
                match start {
                    // Plain comparison: the plan's times are finite.
                    Some(first) if steps[j].at >= steps[first].at + length => return start,
                    Some(_) => start = None,
                    None => start = Some(j),
                }
                flips &= flips - 1;
            }
            marked_before = start.is_none();
            lowest = 1;
            w += 1;
        }
        // A run under way at the end of the marks never ends.
        start
    }

    /// The first marked change at `from` or later.
    pub(super) fn next(&self, from: usize) -> Option<usize> {
        let mut w = from / 64;
        let mut bits = *self.word(w)? & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                return (i < self.len).then_some(i);
            }
            w += 1;
            bits = *self.word(w)?;
        }
    }
}

#[cfg(test)]
mod tests;
