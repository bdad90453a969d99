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

use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap, VecDeque};

use super::label::Form;
use super::{Scheduler, System};
use crate::workload::{JobId, Request};

/// Counts of placed job ids, to count the placements of jobs younger than a given one
/// (a Fenwick tree over job indices, grown by doubling).
#[derive(Debug, Clone, Default)]
struct PlacedIds {
    marks: Vec<bool>,
    tree: Vec<u32>,
    total: u32,
}

impl PlacedIds {
    fn add(&mut self, id: JobId) {
        let i = id.index();
        if i >= self.marks.len() {
            self.grow(i + 1);
        }
        if std::mem::replace(&mut self.marks[i], true) {
            return;
        }
        self.total += 1;
        let mut k = i + 1;
        while k <= self.tree.len() {
            self.tree[k - 1] += 1;
            k += k & k.wrapping_neg();
        }
    }
    /// Rebuilds for at least `n` ids (linear Fenwick construction).
    fn grow(&mut self, n: usize) {
        let len = n.max(2 * self.marks.len()).max(64);
        self.marks.resize(len, false);
        self.tree = self.marks.iter().map(|&m| u32::from(m)).collect();
        for k in 1..=len {
            let parent = k + (k & k.wrapping_neg());
            if parent <= len {
                self.tree[parent - 1] += self.tree[k - 1];
            }
        }
    }
    /// Placed ids greater than `id`.
    fn above(&self, id: JobId) -> u32 {
        let mut k = (id.index() + 1).min(self.tree.len());
        let mut upto = 0;
        while k > 0 {
            upto += self.tree[k - 1];
            k &= k - 1;
        }
        self.total - upto
    }
}

/// The report's `nmp_list`: jobs not yet placed, in descending size (older first among equals),
/// with `RetryLim`.
///
/// A waiting job is *passed over* once per placement of a younger job, so a job's count is the
/// number of placed jobs younger than it (every younger job arrived, and was placed, while it
/// waited). Counts therefore never increase with arrival order: if any waiting job has reached
/// `RetryLim`, the oldest has, and it is the one that must go next.
///
/// Jobs are grouped by request; inside a group they wait in arrival order, and a pass visits only
/// group fronts in list order. Within one pass the free set only shrinks, so once a group's front
/// fails its later jobs fail too and are skipped — the same jobs are tried, in the same order, as
/// by a scan of the whole list, at `O((groups + placements) · log n)` per pass.
#[derive(Debug, Clone, Default)]
pub(crate) struct NmpList {
    /// Group index of each request seen (lookup only, never iterated).
    group_of: HashMap<Request, usize>,
    groups: Vec<VecDeque<JobId>>,
    /// Nodes asked by each group's request.
    sizes: Vec<u32>,
    /// The group of each waiting job (lookup only).
    group_of_job: HashMap<JobId, usize>,
    /// The front of every non-empty group, keyed in list order.
    fronts: BTreeSet<(Reverse<u32>, JobId, usize)>,
    /// Every waiting job, oldest first.
    waiting: BTreeSet<JobId>,
    placed: PlacedIds,
    retry_lim: u32,
}

impl NmpList {
    /// An empty list whose jobs must be placed next once passed over `retry_lim` times.
    pub(crate) fn new(retry_lim: u32) -> Self {
        NmpList {
            retry_lim,
            ..NmpList::default()
        }
    }

    /// Number of jobs waiting.
    pub(crate) fn len(&self) -> usize {
        self.waiting.len()
    }

    /// Whether no job waits.
    pub(crate) fn is_empty(&self) -> bool {
        self.waiting.is_empty()
    }

    /// Appends `job` (jobs are pushed in arrival order) asking for `req`.
    pub(crate) fn push(&mut self, job: JobId, req: Request) {
        let next = self.groups.len();
        let g = *self.group_of.entry(req).or_insert(next);
        if g == next {
            self.groups.push(VecDeque::new());
            self.sizes.push(req.nodes());
        }
        self.group_of_job.insert(job, g);
        if self.groups[g].is_empty() {
            self.fronts.insert((Reverse(req.nodes()), job, g));
        }
        self.groups[g].push_back(job);
        self.waiting.insert(job);
    }

    /// Times `job` (waiting) has been passed over by younger jobs.
    fn passed(&self, job: JobId) -> u32 {
        self.placed.above(job)
    }

    /// The oldest job passed over `RetryLim` times or more: it must be placed next.
    pub(crate) fn starving(&self) -> Option<JobId> {
        let oldest = *self.waiting.first()?;
        (self.passed(oldest) >= self.retry_lim).then_some(oldest)
    }

    /// Whether a newcomer may be tried now (no job must be placed before it).
    pub(crate) fn admits_newcomer(&self) -> bool {
        self.starving().is_none()
    }

    /// Records that `job` got nodes: every waiting job older than it was passed over once more.
    pub(crate) fn placed(&mut self, job: JobId) {
        self.placed.add(job);
    }

    /// The waiting jobs in list order.
    #[cfg(test)]
    pub(crate) fn jobs(&self) -> Vec<JobId> {
        let mut all: Vec<(Reverse<u32>, JobId)> = Vec::new();
        for &(size, _, g) in &self.fronts {
            all.extend(self.groups[g].iter().map(|&j| (size, j)));
        }
        all.sort();
        all.into_iter().map(|(_, j)| j).collect()
    }

    /// Tries the list in order with `place` (which returns whether the job got nodes); placed jobs
    /// leave the list. While a job has reached `RetryLim` only that job is tried, and the pass stops
    /// when it does not fit. A group whose front fails is skipped for the rest of the pass. Returns
    /// the placed jobs in the order they were placed.
    pub(crate) fn pass(&mut self, mut place: impl FnMut(JobId) -> bool) -> Vec<JobId> {
        let mut placed = Vec::new();
        let mut after: Option<(Reverse<u32>, JobId, usize)> = None;
        loop {
            if let Some(first) = self.starving() {
                if !place(first) {
                    return placed;
                }
                self.take(first, &mut placed);
                continue;
            }
            let next = match after {
                None => self.fronts.first().copied(),
                Some(k) => self
                    .fronts
                    .range((std::ops::Bound::Excluded(k), std::ops::Bound::Unbounded))
                    .next()
                    .copied(),
            };
            let Some(key) = next else {
                return placed;
            };
            if place(key.1) {
                self.take(key.1, &mut placed);
            } else {
                after = Some(key);
            }
        }
    }

    /// Removes a placed job (the front of its group) and counts the overtakes it made.
    fn take(&mut self, job: JobId, placed: &mut Vec<JobId>) {
        let Some(g) = self.group_of_job.remove(&job) else {
            return;
        };
        let key = (Reverse(self.sizes[g]), job, g);
        if !self.fronts.remove(&key) {
            return;
        }
        let group = &mut self.groups[key.2];
        group.pop_front();
        if let Some(&next) = group.front() {
            self.fronts.insert((key.0, next, key.2));
        }
        self.waiting.remove(&job);
        self.placed(job);
        placed.push(job);
    }
}

/// Largest-first space sharing (`largest-first:R`).
#[derive(Debug, Clone)]
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
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(self.clone()))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        if self.list.admits_newcomer() && sys.try_start(job) {
            self.list.placed(job);
            return;
        }
        self.list.push(job, sys.job(job).request);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.list.pass(|job| sys.try_start(job));
    }

    fn waiting(&self) -> usize {
        self.list.len()
    }
}

/// Default `RetryLim` (the report's space-sharing value).
pub const RETRY: u32 = 16;

/// `largest-first[:R]` (`RetryLim` R, default 16; always written with R).
pub(super) const LARGEST_FIRST: Form<u32> = Form::new(
    |l| match l.bare() {
        Some(()) => Some(RETRY),
        None => l.count(0),
    },
    |r| vec![r.to_string()],
    |&r| Box::new(LargestFirst::new(r)),
);

#[cfg(test)]
mod tests {
    use super::*;

    fn list(retry: u32, jobs: &[(u32, u32)]) -> NmpList {
        let mut l = NmpList::new(retry);
        for &(j, size) in jobs {
            l.push(JobId(j), Request::Nodes(size));
        }
        l
    }

    fn ids(l: &NmpList) -> Vec<u32> {
        l.jobs().iter().map(|j| j.0).collect()
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
        assert_eq!((l.passed(JobId(0)), l.passed(JobId(3))), (1, 0));
        l.placed(JobId(4));
        // Jobs 0 and 1 have been passed twice (RetryLim 2); 3 only by job 4.
        assert_eq!((l.passed(JobId(1)), l.passed(JobId(3))), (2, 1));
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
        assert_eq!(l.passed(JobId(0)), 2);
    }

    #[test]
    fn a_failed_group_is_not_tried_again_in_the_pass() {
        let mut l = list(16, &[(0, 8), (1, 8), (2, 2), (3, 2)]);
        let mut tried = Vec::new();
        let placed = l.pass(|j| {
            tried.push(j.0);
            j.0 >= 2
        });
        assert_eq!(tried, [0, 2, 3], "job 1 asks what job 0 failed to get");
        assert_eq!(placed, [JobId(2), JobId(3)]);
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

    #[test]
    fn placed_ids_count_younger_placements_across_growth() {
        let mut p = PlacedIds::default();
        for i in [3u32, 70, 5, 200, 70] {
            p.add(JobId(i));
        }
        assert_eq!(p.above(JobId(0)), 4);
        assert_eq!(p.above(JobId(4)), 3);
        assert_eq!(p.above(JobId(70)), 1);
        assert_eq!(p.above(JobId(500)), 0);
    }
}
