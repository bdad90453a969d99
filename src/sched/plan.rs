//! Planning: when and where could a waiting job start if the running jobs end as estimated?
//!
//! Schedulers that look ahead (backfilling, reservations) ask on a *snapshot* of the allocator
//! ([`System::snapshot`](super::System::snapshot)), never on the machine itself: a snapshot is a
//! private copy whose state they may change freely. The running jobs come with their estimated ends
//! ([`RunningJob::est_end`]); a job already past its estimate is taken to end *now*.
//!
//! [`earliest_start`] is the basic query: the job's placement now if it fits, else the first estimated
//! end after which the allocator finds it a place (releasing the running jobs in order of estimated
//! end, ties by job id), with the placement the allocator would choose then: the allocator answers
//! it ([`Allocator::find_after_releases`]), asking after each end by default, or fewer times where
//! it can (k-D first fit gallops over the ends).

use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::{Placement, Request};
use crate::workload::JobId;

/// A job running now, as a scheduler sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunningJob {
    /// The job.
    pub job: JobId,
    /// When its current run segment started.
    pub since: SimTime,
    /// When it ends if it needs exactly its estimate (may lie in the past: an overrunning job).
    pub est_end: SimTime,
    /// Where it runs.
    pub placement: Placement,
}

/// A start time and the placement a job would get then.
#[derive(Debug, Clone, PartialEq)]
pub struct Reservation {
    /// Earliest start.
    pub start: SimTime,
    /// Where.
    pub placement: Placement,
}

/// The earliest start of `req` on `state` (a snapshot of the machine at `now`) if the `running` jobs
/// end at their estimated ends, overrunning ones at `now`: `None` when it fits nowhere even once all
/// of them have ended. Changes `state` (it ends with every job released up to the answer).
pub fn earliest_start(
    now: SimTime,
    req: &Request,
    state: &mut dyn Allocator,
    running: &[RunningJob],
) -> Option<Reservation> {
    if let Some(placement) = state.find(req) {
        return Some(Reservation {
            start: now,
            placement,
        });
    }
    let releases: Vec<(SimTime, Placement)> = ends_in_order(now, running)
        .into_iter()
        .map(|(t, _, p)| (t, p))
        .collect();
    let (start, placement) = state.find_after_releases(req, &releases)?;
    Some(Reservation { start, placement })
}

/// The running jobs as `(estimated end, job, placement)`, overrunning ends moved to `now`, in order
/// of end then job id.
pub fn ends_in_order(now: SimTime, running: &[RunningJob]) -> Vec<(SimTime, JobId, Placement)> {
    let mut ends: Vec<_> = running
        .iter()
        .map(|r| (r.est_end.max(now), r.job, r.placement.clone()))
        .collect();
    ends.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    ends
}
