//! The runs of changes that leave at least `n` nodes free, scanned 64 changes at a time: between two
//! changes of the counts they tell most reservations of a compression that they cannot move, and
//! where a search need not start before.

use super::Step;
use super::marks::short_of;
use crate::SimTime;

/// The runs of changes that leave at least `n` nodes free, with how long each lasts, as far as a
/// scan has gone: only the runs that last longer than every run before them are kept (the others
/// change no answer); where a run starts is read back from the counts when asked.
#[derive(Debug, Clone, Default)]
pub(super) struct Runs {
    pub(super) n: i32,
    /// When the run from now starts (`None`: fewer than `n` are free now).
    from_now: Option<SimTime>,
    /// The changes scanned so far.
    scanned: usize,
    /// The run under way at `scanned`.
    open: Open,
    /// The start of each run that lasts longer than every run before it, in order, how long it
    /// lasts, and the change that ends it.
    starts: Vec<(SimTime, SimTime, usize)>,
    /// The word of bits of the changes `from..to` that leave `n` free, last made:
    /// `(from, to, bits)`.
    word: Option<(usize, usize, u64)>,
}

/// The run under way where a scan stands.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
enum Open {
    /// None is.
    #[default]
    No,
    /// One is, since then.
    Since(SimTime),
    /// Not read back since the scan was cut back (the next scan does).
    Unknown,
}

impl Runs {
    /// No change scanned yet: a run is under way from `now` if `free` are at least `n` (reusing
    /// the space of `self`).
    pub(super) fn reset(&mut self, n: i32, now: SimTime, free: i32) {
        self.n = n;
        self.from_now = (free >= n).then_some(now);
        self.scanned = 0;
        self.open = self.from_now.map_or(Open::No, Open::Since);
        self.starts.clear();
        self.word = None;
    }

    /// Forgets what the scan read from change `from` on: the runs that start there or later, and
    /// the end of the one under way at `from`, which is under way again (read back by the next
    /// scan). A scan not that far stands.
    pub(super) fn truncate(&mut self, from: usize) {
        // Its word of bits stands only if none of its changes moves.
        if self.word.is_some_and(|(_, to, _)| to > from) {
            self.word = None;
        }
        if self.scanned <= from {
            return;
        }
        while self.starts.last().is_some_and(|r| r.2 >= from) {
            self.starts.pop();
        }
        self.scanned = from;
        self.open = if from == 0 {
            self.from_now.map_or(Open::No, Open::Since)
        } else {
            Open::Unknown
        };
    }

    /// The start of the run that holds change `j` (`None`: it leaves fewer than `n` free): right
    /// after the last change before it that leaves fewer, read back word by word.
    fn run_holding(&self, steps: &[Step], after: &[i32], j: usize) -> Option<SimTime> {
        if after[j] < self.n {
            return None;
        }
        let mut w = j / 64;
        let mut below = u64::MAX >> (63 - j % 64);
        loop {
            let counts = &after[w * 64..after.len().min(w * 64 + 64)];
            let short = short_of(counts, self.n) & below;
            if short != 0 {
                let last = w * 64 + 63 - short.leading_zeros() as usize;
                return Some(steps[last + 1].at);
            }
            if w == 0 {
                return Some(self.from_now.unwrap_or(steps[0].at));
            }
            w -= 1;
            below = u64::MAX;
        }
    }

    /// Scans on until every run that starts by `limit` has ended (or the changes have), 64
    /// changes at a time: a word of bits tells which of them leave `n` free, and only the starts
    /// and ends of runs (where the bits flip) are looked at one by one.
    fn scan(&mut self, steps: &[Step], after: &[i32], limit: SimTime) {
        let len = steps.len().min(after.len());
        let mut i = self.scanned;
        if self.open == Open::Unknown {
            let start = self.run_holding(&steps[..len], &after[..len], i - 1);
            self.open = start.map_or(Open::No, Open::Since);
        }
        // No run under way and none starts by `limit` before the next change: nothing to scan.
        if self.open == Open::No && steps[..len].get(i).is_none_or(|s| s.at > limit) {
            return;
        }
        let mut longest = self.starts.last().map_or(SimTime::NEG_INFINITY, |r| r.1);
        'words: while i < len {
            let word = i / 64 * 64;
            let end = len.min(word + 64);
            let valid = u64::MAX >> (64 - (end - word));
            let fits = match self.word {
                Some((from, to, bits)) if (from, to) == (word, end) => bits,
                _ => {
                    let bits = !short_of(&after[word..end], self.n) & valid;
                    self.word = Some((word, end, bits));
                    bits
                }
            };
            // The changes from `i` on that end the run under way or start the next: those that
            // differ from the change before them (at `i`, from whether a run is under way).
            let at_i = 1u64 << (i - word);
            let open = if self.open == Open::No { 0 } else { at_i };
            let mut flips = (fits ^ ((fits << 1) & !at_i | open)) & valid & !(at_i - 1);
            while flips != 0 {
                let j = word + flips.trailing_zeros() as usize;
                let at = steps[j].at;
                match self.open {
                    Open::Since(start) => {
                        // Plain comparison: the plan's times are finite.
                        let lasts = at - start;
                        if lasts > longest {
                            longest = lasts;
                            self.starts.push((start, longest, j));
                        }
                        self.open = Open::No;
                    }
                    _ if at <= limit => self.open = Open::Since(at),
                    _ => {
                        i = j;
                        break 'words;
                    }
                }
                flips &= flips - 1;
            }
            i = end;
        }
        self.scanned = i.min(len);
    }

    /// Whether a run that starts by `limit` lasts `needed`, scanning as far as that takes.
    pub(super) fn hold(
        &mut self,
        steps: &[Step],
        after: &[i32],
        limit: SimTime,
        needed: SimTime,
    ) -> bool {
        self.scan(steps, after, limit);
        self.longest_from_by(limit) >= needed
    }

    /// The start of the first run that starts by `limit` and lasts `needed` or, if `take` is the
    /// first change of a reservation whose nodes are free right before it, holds the change before
    /// it, if earlier (`None`: no such run), scanning as far as that takes.
    pub(super) fn first_window(
        &mut self,
        steps: &[Step],
        after: &[i32],
        limit: SimTime,
        needed: SimTime,
        take: Option<usize>,
    ) -> Option<SimTime> {
        let lasting = self
            .hold(steps, after, limit, needed)
            .then(|| self.first_lasting(needed));
        let to_take = take.and_then(|before| self.run_through(steps, after, before, limit));
        match (lasting, to_take) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The start of the first run scanned that lasts `needed`: a record, or the run under way.
    fn first_lasting(&self, needed: SimTime) -> SimTime {
        let k = self.starts.partition_point(|&(_, lasts, _)| lasts < needed);
        let record = self.starts.get(k).map(|r| r.0);
        let open = match self.open {
            Open::Since(start) => Some(start),
            Open::No | Open::Unknown => None,
        };
        record.or(open).unwrap_or(SimTime::NEG_INFINITY)
    }

    /// The start of the run that holds the change before `before` (the run from now when
    /// `before` is 0), scanned to `limit`; `None` when that change leaves too few free or lies in
    /// a run that starts after `limit`.
    fn run_through(
        &self,
        steps: &[Step],
        after: &[i32],
        before: usize,
        limit: SimTime,
    ) -> Option<SimTime> {
        let start = match before.checked_sub(1) {
            None => {
                let first = self.scanned > 0 && after[0] >= self.n;
                self.from_now.or(first.then(|| steps[0].at))
            }
            Some(j) if j < self.scanned => self.run_holding(steps, after, j),
            Some(_) => None,
        };
        start.filter(|&at| at <= limit)
    }

    /// The longest run among those that start by `limit` (scanned that far): infinite when one of
    /// them never ends.
    fn longest_from_by(&self, limit: SimTime) -> SimTime {
        if matches!(self.open, Open::Since(start) if start <= limit) {
            return SimTime::INFINITY;
        }
        let k = self.starts.partition_point(|&(s, _, _)| s <= limit);
        k.checked_sub(1)
            .map_or(SimTime::NEG_INFINITY, |i| self.starts[i].1)
    }
}

#[cfg(test)]
mod tests;
