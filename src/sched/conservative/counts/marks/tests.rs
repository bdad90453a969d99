//! Marks over several words of changes.

use super::*;
use crate::sched::conservative::{Change, Moment};
use crate::workload::JobId;

#[test]
fn marks_find_the_next_marked_change() {
    let counts: Vec<i32> = (0..150).map(|i| if i % 70 == 3 { 0 } else { 5 }).collect();
    let mut buf = Vec::new();
    let m = Marks::new(&mut buf, &counts, 1, 0);
    assert_eq!(m.next(0), Some(3));
    assert_eq!(m.next(4), Some(73));
    assert_eq!(m.next(74), Some(143));
    assert_eq!(m.next(144), None);
}

#[test]
fn marks_pass_over_runs_too_short_for_a_job() {
    // 150 changes a second apart, marked at 3, 73 and 143: runs of 1..=69 changes between.
    let counts: Vec<i32> = (0..150).map(|i| if i % 70 == 3 { 0 } else { 5 }).collect();
    let steps: Vec<Step> = (0..150)
        .map(|i| Step::new(Moment::start_of(f64::from(i)), Change::Release, JobId(0), 1))
        .collect();
    let mut buf = Vec::new();
    let m = Marks::new(&mut buf, &counts, 1, 0);
    assert_eq!(m.long_run(0, &steps, 3.0), Some(0), "[0, 3) lasts 3 s");
    assert_eq!(m.long_run(0, &steps, 4.0), Some(4), "then [4, 73)");
    assert_eq!(m.long_run(1, &steps, 69.0), Some(4), "[4, 73) lasts 69 s");
    assert_eq!(
        m.long_run(1, &steps, 70.0),
        Some(144),
        "so does [74, 143): after it"
    );
    assert_eq!(
        m.long_run(3, &steps, 69.0),
        Some(4),
        "a marked change starts no run"
    );
    assert_eq!(
        m.long_run(144, &steps, 1e9),
        Some(144),
        "the last run never ends"
    );
    assert_eq!(m.long_run(150, &steps, 1.0), None, "no change left");
}
