//! Runs scanned, cut back and scanned on, against runs counted change by change.

use super::*;
use crate::sched::conservative::counts::tests::releases_at;

#[test]
fn runs_of_free_counts_are_scanned_as_far_as_asked_and_measured() {
    // From 0 with 4 free: changes at 10 (2 free), 20 (6), 25 (1), 40 (9), 45 (2).
    let times = [10.0, 20.0, 25.0, 40.0, 45.0];
    let after = [2, 6, 1, 9, 2];
    let steps = releases_at(&times);
    let mut runs = Runs::default();
    runs.reset(3, 0.0, 4);
    runs.scan(&steps, &after, 15.0);
    assert_eq!(
        (runs.scanned, runs.starts.clone()),
        (1, vec![(0.0, 10.0, 0)]),
        "[0, 10) then stop"
    );
    assert_eq!(runs.longest_from_by(15.0), 10.0);
    runs.scan(&steps, &after, 30.0);
    assert_eq!(
        runs.starts,
        vec![(0.0, 10.0, 0)],
        "[20, 25) is shorter: no record"
    );
    assert_eq!(runs.longest_from_by(30.0), 10.0);
    assert_eq!(
        runs.longest_from_by(-1.0),
        SimTime::NEG_INFINITY,
        "none starts that early"
    );
    runs.scan(&steps, &after, 40.0);
    assert_eq!(runs.longest_from_by(40.0), 10.0, "[40, 45) is shorter");
    // A run that never ends (9 free for good) is as long as any job.
    let after = [2, 6, 1, 9, 9];
    runs.reset(3, 0.0, 4);
    runs.scan(&steps, &after, 40.0);
    assert_eq!(runs.longest_from_by(40.0), SimTime::INFINITY);
    assert_eq!(runs.longest_from_by(30.0), 10.0);
}

#[test]
fn runs_cut_back_to_a_change_are_scanned_on_from_there() {
    // From 0 with 4 free: changes at 10 (2 free), 20 (6), 25 (1), 40 (9), 45 (2).
    let times = [10.0, 20.0, 25.0, 40.0, 45.0];
    let steps = releases_at(&times);
    let mut runs = Runs::default();
    runs.reset(3, 0.0, 4);
    runs.scan(&steps, &[2, 6, 1, 9, 2], 50.0);
    assert_eq!(
        runs.longest_from_by(50.0),
        10.0,
        "[0, 10), [20, 25), [40, 45)"
    );
    // The change at 25 now leaves 7 free: [20, 25) grows to [20, 45), under way again at 25.
    runs.truncate(2);
    assert_eq!(
        (runs.scanned, runs.open),
        (2, Open::Unknown),
        "read back when scanned on"
    );
    assert_eq!(
        runs.starts,
        vec![(0.0, 10.0, 0)],
        "the record up to change 0 stands"
    );
    runs.scan(&steps, &[2, 6, 7, 9, 2], 50.0);
    assert_eq!(runs.longest_from_by(50.0), 25.0);
    assert_eq!(runs.longest_from_by(15.0), 10.0);
    // Cut back to the first change, the run from now is under way again.
    runs.truncate(0);
    assert_eq!(
        (runs.scanned, runs.open, runs.starts.len()),
        (0, Open::Since(0.0), 0)
    );
    // A scan that did not reach the change cut back to stands.
    runs.scan(&steps, &[2, 6, 7, 9, 2], 5.0);
    runs.truncate(3);
    assert_eq!(runs.scanned, 1);
}

/// The longest run of counts `>= n` that starts by `limit` (at `now` = 0 with `free`, or at a
/// change), counted change by change: infinite when one lasts to the end.
fn longest_by_hand(times: &[SimTime], after: &[i32], n: i32, free: i32, limit: SimTime) -> SimTime {
    let mut longest = SimTime::NEG_INFINITY;
    let mut open = (free >= n).then_some(0.0);
    for (&at, &a) in times.iter().zip(after) {
        match open {
            Some(start) if a < n => {
                longest = longest.max(at - start);
                open = None;
            }
            None if a >= n && at <= limit => open = Some(at),
            _ => {}
        }
    }
    if open.is_some() {
        SimTime::INFINITY
    } else {
        longest
    }
}

/// A run counted by hand: its first change (`None`: the run from now), start, length
/// (infinite: it never ends) and the change that ends it.
type RunByHand = (Option<usize>, SimTime, SimTime, usize);

/// Every run of changes that leave `n` free, counted change by change from now (0, with
/// `free` free).
fn runs_by_hand(times: &[SimTime], after: &[i32], n: i32, free: i32) -> Vec<RunByHand> {
    let mut runs = Vec::new();
    let mut open = (free >= n).then_some((None, 0.0));
    for (j, (&at, &a)) in times.iter().zip(after).enumerate() {
        match open {
            Some((first, start)) if a < n => {
                runs.push((first, start, at - start, j));
                open = None;
            }
            None if a >= n => open = Some((Some(j), at)),
            _ => {}
        }
    }
    let never = (SimTime::INFINITY, usize::MAX);
    runs.extend(open.map(|(first, start)| (first, start, never.0, never.1)));
    runs
}

/// [`Runs::first_window`] counted by hand: the first run that starts by `limit` and lasts
/// `needed`, or the one that holds the change before `take` if it starts by `limit`, if
/// earlier.
fn first_window_by_hand(
    times: &[SimTime],
    after: &[i32],
    (n, free): (i32, i32),
    limit: SimTime,
    needed: SimTime,
    take: Option<usize>,
) -> Option<SimTime> {
    let runs = runs_by_hand(times, after, n, free);
    let by_limit = runs.iter().filter(|r| r.1 <= limit);
    let lasting = by_limit.clone().find(|r| r.2 >= needed).map(|r| r.1);
    // The run through the change before the take (the run from now when it is the first).
    let through = |r: &&RunByHand, before: usize| match before.checked_sub(1) {
        None => r.0.is_none_or(|f| f == 0),
        Some(j) => r.0.is_none_or(|f| f <= j) && j < r.3,
    };
    let to_take = take.and_then(|before| by_limit.clone().find(|r| through(r, before)));
    match (lasting, to_take.map(|r| r.1)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

proptest::proptest! {
    /// A scan cut back to any change and resumed on counts changed from there finds the runs
    /// a fresh scan of the new counts finds.
    #[test]
    fn runs_cut_back_and_scanned_on_are_those_counted_by_hand(
        before in proptest::collection::vec(0i32..6, 1..300),
        changed in proptest::collection::vec(0i32..6, 0..300),
        cut in 0usize..300,
        n in 1i32..6,
        free in 0i32..6,
        first in 0u32..320,
        limit in 0u32..320,
    ) {
        let len = before.len();
        let cut = cut % len;
        let mut after = before.clone();
        for (a, &c) in after[cut..].iter_mut().zip(&changed) {
            *a = c;
        }
        let times: Vec<SimTime> = (1u32..).take(len).map(SimTime::from).collect();
        let steps = releases_at(&times);
        let mut runs = Runs::default();
        runs.reset(n, 0.0, free);
        runs.scan(&steps, &before, SimTime::from(first));
        runs.truncate(cut);
        let limit = SimTime::from(limit);
        runs.scan(&steps, &after, limit);
        proptest::prop_assert_eq!(
            runs.longest_from_by(limit),
            longest_by_hand(&times, &after, n, free, limit)
        );
    }

    /// After scans cut back and resumed, the first window of a job and the run through the
    /// change before its take are those counted by hand, with several changes at one time.
    #[test]
    fn first_windows_after_cuts_are_those_counted_by_hand(
        before in proptest::collection::vec(0i32..6, 1..300),
        changed in proptest::collection::vec(0i32..6, 0..300),
        gaps in proptest::collection::vec(0u32..3, 300),
        cut in 0usize..300,
        (n, free) in (1i32..6, 0i32..6),
        (first, limit) in (0u32..400, 0u32..400),
        needed in 0u32..40,
    ) {
        let len = before.len();
        let cut = cut % len;
        let mut after = before.clone();
        for (a, &c) in after[cut..].iter_mut().zip(&changed) {
            *a = c;
        }
        let times: Vec<SimTime> = gaps
            .iter()
            .scan(0u32, |t, &g| {
                *t += g;
                Some(SimTime::from(*t))
            })
            .take(len)
            .collect();
        let steps = releases_at(&times);
        let mut runs = Runs::default();
        runs.reset(n, 0.0, free);
        runs.scan(&steps, &before, SimTime::from(first));
        runs.truncate(cut);
        let (limit, needed) = (SimTime::from(limit), SimTime::from(needed));
        for take in [None].into_iter().chain((0..=len).map(Some)) {
            let found = runs.first_window(&steps, &after, limit, needed, take);
            let by_hand =
                first_window_by_hand(&times, &after, (n, free), limit, needed, take);
            proptest::prop_assert_eq!(found, by_hand, "take {:?}", take);
        }
    }

    /// The word-wise scan finds the runs a change-by-change count finds, across words of 64
    /// changes and with scans resumed at rising limits.
    #[test]
    fn runs_scanned_by_words_are_those_counted_by_hand(
        after in proptest::collection::vec(0i32..6, 0..300),
        n in 1i32..6,
        free in 0i32..6,
        limits in proptest::collection::vec(0u32..320, 1..6),
    ) {
        let times: Vec<SimTime> = (1u32..).take(after.len()).map(SimTime::from).collect();
        let steps = releases_at(&times);
        let mut limits: Vec<SimTime> = limits.into_iter().map(SimTime::from).collect();
        limits.sort_by(SimTime::total_cmp);
        let mut runs = Runs::default();
        runs.reset(n, 0.0, free);
        for limit in limits {
            runs.scan(&steps, &after, limit);
            proptest::prop_assert_eq!(
                runs.longest_from_by(limit),
                longest_by_hand(&times, &after, n, free, limit)
            );
        }
    }
}
