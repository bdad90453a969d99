//! Largest-first space sharing with a retry limit: the baseline of the coscheduling report
//! (coscheduling-time-sharing.md §4.4, "space sharing that considers waiting jobs in descending size
//! order with RetryLim 16 (64 at 70% load with normal service)").
//!
//! Waiting jobs sit in an [`NmpList`] — the report's `nmp_list` of jobs not yet placed, kept in
//! descending order of size (ties: older first). A job is *passed over* each time a job that arrived
//! after it gets nodes while it keeps waiting; a job passed over `RetryLim` times must be placed next:
//! while one exists, no other job is tried (§4.2, last paragraph). The same list serves MPJ-CoSched&TS
//! (`gang`), which places its jobs in time-slice classes instead of on the machine.
//!
//! Events: on arrival the newcomer is tried at once unless a job has reached `RetryLim` (then it
//! joins the list); after departures the list is tried in order ([`NmpList::pass`]).

use super::{Scheduler, System};
use crate::workload::JobId;

/// A waiting job of an [`NmpList`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Waiting {
    job: JobId,
    size: u32,
    /// Times a younger job got nodes while this one waited.
    passed: u32,
}

/// The report's `nmp_list`: jobs not yet placed, in descending size, with `RetryLim` counters.
#[derive(Debug, Clone, Default)]
pub(crate) struct NmpList {
    jobs: Vec<Waiting>,
    retry_lim: u32,
}

impl NmpList {
    /// An empty list whose jobs must be placed next once passed over `retry_lim` times.
    pub(crate) fn new(retry_lim: u32) -> Self {
        NmpList {
            jobs: Vec::new(),
            retry_lim,
        }
    }

    /// Number of jobs waiting.
    pub(crate) fn len(&self) -> usize {
        self.jobs.len()
    }

    /// Whether no job waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Inserts `job` of `size` nodes behind every job at least as large (descending size, older
    /// first among equals: jobs are inserted in arrival order).
    pub(crate) fn push(&mut self, job: JobId, size: u32) {
        let at = self.jobs.partition_point(|w| w.size >= size);
        self.jobs.insert(
            at,
            Waiting {
                job,
                size,
                passed: 0,
            },
        );
    }

    /// The oldest job passed over `RetryLim` times or more: it must be placed next.
    pub(crate) fn starving(&self) -> Option<JobId> {
        self.jobs
            .iter()
            .filter(|w| w.passed >= self.retry_lim)
            .map(|w| w.job)
            .min()
    }

    /// Whether a newcomer may be tried now (no job must be placed before it).
    pub(crate) fn admits_newcomer(&self) -> bool {
        self.starving().is_none()
    }

    /// Records that `job` got nodes: every waiting job older than it was passed over once more.
    pub(crate) fn placed(&mut self, job: JobId) {
        for w in self.jobs.iter_mut().filter(|w| w.job < job) {
            w.passed += 1;
        }
    }

    /// The waiting jobs in list order.
    #[cfg(test)]
    pub(crate) fn jobs(&self) -> impl Iterator<Item = JobId> + '_ {
        self.jobs.iter().map(|w| w.job)
    }

    /// Tries the list in order with `place` (which returns whether the job got nodes); placed jobs
    /// leave the list. While a job has reached `RetryLim` only that job is tried, and the pass stops
    /// when it does not fit. Returns the placed jobs in the order they were placed.
    pub(crate) fn pass(&mut self, mut place: impl FnMut(JobId) -> bool) -> Vec<JobId> {
        let mut placed = Vec::new();
        let mut i = 0;
        loop {
            if let Some(first) = self.starving() {
                if !place(first) {
                    return placed;
                }
                self.take(first, &mut placed);
                i = 0;
                continue;
            }
            let Some(w) = self.jobs.get(i) else {
                return placed;
            };
            let job = w.job;
            if place(job) {
                self.take(job, &mut placed);
            } else {
                i += 1;
            }
        }
    }

    /// Removes a placed job and counts the overtakes it made.
    fn take(&mut self, job: JobId, placed: &mut Vec<JobId>) {
        self.jobs.retain(|w| w.job != job);
        self.placed(job);
        placed.push(job);
    }
}

/// Largest-first space sharing (`largest-first:R`).
#[derive(Debug)]
pub(crate) struct LargestFirst {
    list: NmpList,
}

impl LargestFirst {
    /// The policy with `RetryLim` = `retry_lim`.
    pub(crate) fn new(retry_lim: u32) -> Self {
        LargestFirst {
            list: NmpList::new(retry_lim),
        }
    }
}

impl Scheduler for LargestFirst {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        if self.list.admits_newcomer() && sys.try_start(job) {
            self.list.placed(job);
            return;
        }
        self.list.push(job, sys.job(job).request.nodes());
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.list.pass(|job| sys.try_start(job));
    }

    fn waiting(&self) -> usize {
        self.list.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(retry: u32, jobs: &[(u32, u32)]) -> NmpList {
        let mut l = NmpList::new(retry);
        for &(j, size) in jobs {
            l.push(JobId(j), size);
        }
        l
    }

    fn ids(l: &NmpList) -> Vec<u32> {
        l.jobs().map(|j| j.0).collect()
    }

    #[test]
    fn list_is_descending_in_size_and_older_first_among_equals() {
        let l = list(16, &[(0, 4), (1, 16), (2, 1), (3, 16), (4, 4)]);
        assert_eq!(ids(&l), [1, 3, 0, 4, 2]);
    }

    #[test]
    fn a_younger_placement_passes_over_every_older_waiting_job() {
        let mut l = list(2, &[(0, 64), (1, 16), (3, 4)]);
        l.placed(JobId(2));
        assert_eq!(l.starving(), None);
        l.placed(JobId(4));
        // Jobs 0 and 1 have been passed twice (RetryLim 2); 3 only by job 4.
        assert_eq!(l.starving(), Some(JobId(0)));
        assert!(!l.admits_newcomer());
    }

    #[test]
    fn pass_places_in_list_order_and_counts_overtakes() {
        // Free capacity of 20 nodes: 64 does not fit, 16 does, then 4 does.
        let mut l = list(16, &[(0, 64), (1, 16), (2, 4)]);
        let mut free = 20;
        let sizes = [64, 16, 4];
        let placed = l.pass(|j| {
            let s = sizes[j.index()];
            (s <= free).then(|| free -= s).is_some()
        });
        assert_eq!(placed, [JobId(1), JobId(2)]);
        assert_eq!(ids(&l), [0]);
        assert_eq!(l.jobs[0].passed, 2);
    }

    #[test]
    fn a_starving_job_blocks_the_pass_until_it_fits() {
        let mut l = list(1, &[(0, 64), (1, 16)]);
        l.placed(JobId(5)); // both passed once: job 0 is the oldest starving job
        let mut tried = Vec::new();
        let placed = l.pass(|j| {
            tried.push(j);
            false
        });
        assert!(placed.is_empty());
        assert_eq!(tried, [JobId(0)], "nothing behind a starving job is tried");
    }

    #[test]
    fn retry_zero_is_oldest_first() {
        let mut l = list(0, &[(0, 4), (1, 64), (2, 16)]);
        let placed = l.pass(|_| true);
        assert_eq!(placed, [JobId(0), JobId(1), JobId(2)]);
    }
}
