//! Searches, moves and the shortcuts of the count plan on plans worked by hand.

use super::*;
use crate::sched::conservative::counts::Counts;
use crate::sched::conservative::counts::tests::{busy, running, slot, staged};

#[test]
fn a_job_goes_where_its_whole_window_has_room() {
    let mut p = busy();
    // 3 nodes for 20 s clash with the reservation at 10 (2 left): after it ends, at 15.
    assert_eq!(
        p.earliest(3, 20.0, 3, SimTime::INFINITY, 0.0),
        Some(Moment::start_of(15.0))
    );
    // Ending exactly when the reservation starts is fine; 2 nodes fit beside it anyway.
    assert_eq!(
        p.earliest(3, 10.0, 3, SimTime::INFINITY, 0.0),
        Some(Moment::start_of(0.0))
    );
    assert_eq!(
        p.earliest(2, 20.0, 3, SimTime::INFINITY, 0.0),
        Some(Moment::start_of(0.0))
    );
    // 5 nodes are not free before 10, and 2 are left then.
    assert_eq!(
        p.earliest(5, 1.0, 3, SimTime::INFINITY, 0.0),
        Some(Moment::start_of(15.0))
    );
    // Job 1 itself, looking before its own take: no earlier moment has 8 free.
    assert_eq!(p.earliest(8, 5.0, 1, SimTime::INFINITY, 0.0), None);
}

#[test]
fn a_reservation_that_cannot_move_keeps_its_place_and_one_that_can_moves() {
    let mut p = busy();
    let req = Request::Nodes(8);
    let kept = p.replan(
        JobId(1),
        &req,
        5.0,
        Some(&slot(10.0, 8)),
        &mut Memo::default(),
    );
    assert_eq!(kept, None, "it keeps its slot");
    assert_eq!(p.after, vec![10, 2, 10], "nothing taken out or put back");
    // With 10 nodes free now (job 0 ended early, a gain until its estimated end at 10), job 1
    // moves to now.
    let mut counts = Counts::new(10).expect("small machine");
    counts.gained(10.0);
    let slots = [(JobId(1), slot(10.0, 8), 5.0)];
    let mut p = counts
        .plan(1.0, 10, Vec::new, slots.into_iter())
        .expect("clean");
    let moved = p.replan(
        JobId(1),
        &req,
        5.0,
        Some(&slot(10.0, 8)),
        &mut Memo::default(),
    );
    assert_eq!(moved, Some(slot(1.0, 8)));
    assert_eq!(p.after, vec![2, 10]);
}

#[test]
fn an_instant_given_back_is_a_gain_at_its_own_time() {
    // 10 nodes: job 0 holds 6 until 5. Reserved at 5: job 1 (4 nodes, length 0) at stage 0,
    // job 3 (7 nodes, 1 s) at stage 1 after job 1's instant; job 2 (8 nodes, length 0) fits
    // neither beside job 1 nor beside job 3, so it is reserved at 6.
    let mut counts = Counts::new(10).expect("small machine");
    let slots = [
        (JobId(1), staged(5.0, 0, 4), 0.0),
        (JobId(2), staged(6.0, 0, 8), 0.0),
        (JobId(3), staged(5.0, 1, 7), 1.0),
    ];
    counts.gained(5.0);
    let mut p = counts
        .plan(
            0.0,
            4,
            || vec![running(0, 5.0, 6)],
            slots.clone().into_iter(),
        )
        .expect("clean");
    // After a gain up to 5, job 1 fits now; job 2 then fits at 5, at stage 0, in the instant
    // job 1 gave back (the snapshot profile finds it there too): that gain ends just after 5.
    let memo = &mut Memo::default();
    let first = p.replan(JobId(1), &Request::Nodes(4), 0.0, Some(&slots[0].1), memo);
    assert_eq!(first, Some(staged(0.0, 0, 4)));
    let memo = &mut Memo::default();
    let second = p.replan(JobId(2), &Request::Nodes(8), 0.0, Some(&slots[1].1), memo);
    assert_eq!(second, Some(staged(5.0, 0, 8)));
}

#[test]
fn a_reservation_without_a_gain_since_it_was_planned_stays_and_one_with_a_gain_moves() {
    // 10 nodes: job 0 holds 6 until 10 (estimated); job 1 (8 nodes) is reserved at 10 for 5.
    let mut counts = Counts::new(10).expect("small machine");
    let slots = [(JobId(1), slot(10.0, 8), 5.0)];
    let req = Request::Nodes(8);
    let running = [running(0, 10.0, 6)];
    let mut p = counts
        .plan(0.0, 4, || running.to_vec(), slots.clone().into_iter())
        .expect("clean");
    let mut memo = Memo::default();
    let kept = p.replan(JobId(1), &req, 5.0, Some(&slot(10.0, 8)), &mut memo);
    assert_eq!(kept, None, "it keeps its slot");
    counts.keep(p, &[]);
    // Job 0 ends at 2, before its estimate: the gain [2, 10) lets job 1 start at once, unless
    // it was planned after that gain (then it found no room in it).
    counts.ended(JobId(0), 0.0, 10.0, 2.0);
    let mut p = counts
        .plan(2.0, 10, Vec::new, slots.into_iter())
        .expect("clean");
    let mut fresh = Memo { seen: 1, near: 0 };
    let stays = p.replan(JobId(1), &req, 5.0, Some(&slot(10.0, 8)), &mut fresh);
    assert_eq!(stays, None, "it keeps its slot");
    let mut stale = Memo::default();
    let moves = p.replan(JobId(1), &req, 5.0, Some(&slot(10.0, 8)), &mut stale);
    assert_eq!(moves, Some(slot(2.0, 8)));
    assert_eq!(stale.seen, 2, "its move logged a gain of its own");
}

#[test]
fn a_reservation_moves_only_when_a_run_by_its_limit_is_long_enough_or_reaches_its_take() {
    let mut p = busy();
    // 3 nodes for 20 s: the only run by time 5 is [0, 10) (before its take: 10 free then 2).
    assert_eq!(p.may_move(3, 20.0, 2, 5.0), None);
    assert_eq!(p.may_move(3, 10.0, 2, 5.0), Some(0.0));
    // 5 nodes for 20 s: told by the runs of 3 (those of 5 lie inside them), none scanned.
    assert_eq!(p.may_move(5, 20.0, 2, 5.0), None);
    assert_eq!(p.live_runs, 1);
    // 10 free after job 0's release at 10, right up to job 1's take: 8 nodes for any length
    // may move (up to its take), from 10 on.
    assert_eq!(p.may_move(8, 50.0, 1, 10.0), Some(10.0));
    // 4 nodes free from now up to the take at 10 (before == 0 is the run from now).
    assert_eq!(p.may_move(4, 50.0, 0, 10.0), Some(0.0));
    // 3 nodes for 20 s by time 20: [0, 10) is too short, the run from 15 never ends; no
    // window starts before it, and a search from there finds what one from now finds.
    assert_eq!(p.may_move(3, 20.0, 2, 20.0), Some(15.0));
    let from_now = p.earliest(3, 20.0, 3, SimTime::INFINITY, 0.0);
    assert_eq!(from_now, Some(Moment::start_of(15.0)));
    assert_eq!(p.earliest(3, 20.0, 3, SimTime::INFINITY, 15.0), from_now);
}

#[test]
fn a_gallop_from_any_index_finds_the_partition_point() {
    let steps: Vec<Step> = (0..100u32)
        .map(|k| {
            Step::new(
                Moment::start_of(f64::from(k / 3)),
                Change::Release,
                JobId(k),
                1,
            )
        })
        .collect();
    for at in [-1.0, 0.0, 5.0, 17.5, 33.0, 40.0] {
        let want = steps.partition_point(|s| s.at < at);
        for near in [0, 1, 15, 16, 50, 99, 100, 500] {
            assert_eq!(
                gallop(&steps, near, |s| s.at < at),
                want,
                "{at} from {near}"
            );
        }
    }
    assert_eq!(gallop(&[], 3, |s| s.at < 1.0), 0);
}
