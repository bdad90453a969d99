//! The plan kept from pass to pass, by hand; the plans these tests make serve those of the
//! submodules.

use super::*;
use crate::resource::{Placement, Request};

pub(super) fn running(job: u32, est_end: SimTime, n: u32) -> RunningJob {
    RunningJob {
        job: JobId(job),
        since: 0.0,
        est_end,
        placement: Placement::Nodes(n),
    }
}

/// A release of one node at each of `times`: plan steps whose free counts a test sets.
pub(super) fn releases_at(times: &[SimTime]) -> Vec<Step> {
    times
        .iter()
        .map(|&at| Step::new(Moment::start_of(at), Change::Release, JobId(0), 1))
        .collect()
}

pub(super) fn slot(at: SimTime, n: u32) -> Slot {
    staged(at, 0, n)
}

/// A reservation of `n` nodes at stage `stage` of time `at`.
pub(super) fn staged(at: SimTime, stage: u32, n: u32) -> Slot {
    Slot {
        when: Moment { at, stage },
        placement: Placement::Nodes(n),
    }
}

/// 10 nodes at 0: job 0 holds 6 until 10; job 1 (8 nodes) is reserved at 10 for 5.
pub(super) fn busy() -> Plan {
    let mut counts = Counts::new(10).expect("small machine");
    let slots = [(JobId(1), slot(10.0, 8), 5.0)];
    counts
        .plan(0.0, 4, || vec![running(0, 10.0, 6)], slots.into_iter())
        .expect("clean")
}

#[test]
fn counts_after_each_change() {
    let p = busy();
    assert_eq!(p.after, vec![10, 2, 10], "release 6, take 8, release 8");
}

#[test]
fn a_plan_whose_take_finds_too_few_nodes_is_left_to_the_general_profile() {
    // Job 0 overran and holds 6 of 10; a reservation of 8 at 5 can only have been made on
    // counts the machine no longer has.
    let mut counts = Counts::new(10).expect("small machine");
    let slots = [(JobId(1), slot(5.0, 8), 5.0)];
    assert!(counts.plan(0.0, 4, Vec::new, slots.into_iter()).is_none());
    assert!(
        Counts::new(u32::MAX).is_none(),
        "beyond what i32 counts hold"
    );
}

#[test]
fn a_reservation_looks_before_the_latest_end_of_the_gains_since_it_was_planned() {
    let mut gains = Gains::default();
    assert_eq!(gains.since(0), None, "nothing gained");
    gains.log(50.0);
    gains.log(20.0);
    gains.log(30.0);
    // Planned before all three: the latest end of them all; after the first: of the last two.
    assert_eq!(gains.since(0), Some(50.0));
    assert_eq!(gains.since(1), Some(30.0));
    assert_eq!(gains.since(3), None);
    assert_eq!(
        gains.log.len(),
        2,
        "the gain to 20 is hidden by the later one to 30"
    );
    gains.forget_until(30.0);
    assert_eq!(gains.since(1), None, "a gain over by now opens no window");
    assert_eq!(gains.since(0), Some(50.0));
}

#[test]
fn a_job_of_length_0_ended_where_it_started_gives_its_instant_back() {
    // 10 nodes, all free at 5. Reserved at 5: job 1 (6 nodes, length 0) at stage 0, job 3 (4
    // nodes, 3 s) at stage 1; job 2 (8 nodes, length 0) fits beside neither: at 8.
    let mut counts = Counts::new(10).expect("small machine");
    let (one, two, three) = (staged(5.0, 0, 6), staged(8.0, 0, 8), staged(5.0, 1, 4));
    let slots = [(JobId(1), one.clone(), 0.0), (JobId(3), three.clone(), 3.0)];
    let mut p = counts
        .plan(
            5.0,
            10,
            Vec::new,
            slots.into_iter().chain([(JobId(2), two.clone(), 0.0)]),
        )
        .expect("clean");
    let memo = &mut Memo::default();
    assert_eq!(
        p.replan(
            JobId(1),
            &Request::Nodes(6),
            0.0,
            Some(&one),
            &mut Memo::default()
        ),
        None
    );
    assert_eq!(
        p.replan(JobId(2), &Request::Nodes(8), 0.0, Some(&two), memo),
        None
    );
    // Job 1 starts at 5 and ends there (stage 1): its nodes are free at stage 0 of 5 too, where
    // job 2 now fits (the snapshot profile, seam test `conservative_plans_on_counts_as_on_
    // snapshots`, finds it there). Nothing ended before its estimate: only the instant is won.
    counts.keep(p, &[(JobId(1), 5.0)]);
    counts.ended(JobId(1), 5.0, 5.0, 5.0);
    let slots = [(JobId(3), three, 3.0), (JobId(2), two.clone(), 0.0)];
    let mut p = counts
        .plan(5.0, 10, Vec::new, slots.into_iter())
        .expect("clean");
    let moved = p.replan(JobId(2), &Request::Nodes(8), 0.0, Some(&two), memo);
    assert_eq!(moved, Some(staged(5.0, 0, 8)));
}

/// [`busy`] kept after its pass, and carried to `now` with `free` nodes free.
fn carried(
    started: &[(JobId, SimTime)],
    ended: &[(JobId, SimTime)],
    now: SimTime,
    free: i32,
) -> Option<Vec<(SimTime, i32)>> {
    let plan = busy();
    let kept = Kept {
        steps: plan.steps,
        after: plan.after,
        base: plan.base,
    };
    let kept = kept.carry(now, free, 10, started, ended)?;
    Some(kept.steps.iter().map(|s| s.at).zip(kept.after).collect())
}

#[test]
fn a_carried_plan_drops_what_is_over_and_keeps_the_rest() {
    // Job 0 (6 nodes) to 10, job 1 (8) reserved [10, 15); 4 free at 0.
    assert_eq!(
        carried(&[], &[], 3.0, 4),
        Some(vec![(10.0, 10), (10.0, 2), (15.0, 10)]),
        "nothing happened"
    );
    assert_eq!(
        carried(&[], &[(JobId(0), 10.0)], 3.0, 10),
        Some(vec![(10.0, 2), (15.0, 10)]),
        "job 0 ended early: its nodes are free until 10"
    );
    assert_eq!(
        carried(&[], &[], 12.0, 4),
        Some(vec![(12.0, 10), (12.0, 2), (15.0, 10)]),
        "job 0 overran: its release and job 1's take (a start that failed) move to now"
    );
    assert_eq!(
        carried(&[], &[], 16.0, 4),
        Some(vec![(16.0, 10)]),
        "job 1's reservation is over before it started: it goes"
    );
    assert_eq!(carried(&[], &[], 3.0, 5), None, "the counts do not add up");
}

#[test]
fn a_carried_plan_moves_an_overrun_to_now_and_drops_a_started_take() {
    // Job 0 ends at 10 as planned, job 1 starts then (its release stays, now a running job's).
    let mut plan = busy();
    plan.steps.retain(|s| s.owner != JobId(0));
    plan.after = vec![2, 10];
    plan.base = 10;
    let kept = Kept {
        steps: plan.steps,
        after: plan.after,
        base: plan.base,
    };
    let kept = kept
        .carry(10.0, 2, 10, &[(JobId(1), 15.0)], &[])
        .expect("carried");
    let rest: Vec<_> = kept.steps.iter().map(|s| (s.at, s.owner)).collect();
    assert_eq!(
        (rest, kept.after.clone()),
        (vec![(15.0, JobId(1))], vec![10])
    );
    // Job 1 runs past its estimate: at 20 its release is taken to be now.
    let kept = kept.carry(20.0, 2, 10, &[], &[]).expect("carried");
    assert_eq!((kept.steps[0].at, kept.after.clone()), (20.0, vec![10]));
    // A job started late (its release planned elsewhere than at its estimated end) rebuilds.
    assert!(kept.carry(20.0, 2, 10, &[(JobId(1), 25.0)], &[]).is_none());
}
