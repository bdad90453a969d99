//! The waiting jobs of a scheduler that serves its whole queue in a queue order — strict
//! priority, OO and the bypass queue ([`Ordered`](crate::sched::ordered)), EASY — and a pass's
//! way through them ([`RankedQueue`]): [`rank`](RankedQueue::rank) starts the pass,
//! [`start_tops`](RankedQueue::start_tops) offers the jobs best first while they start and
//! returns the first that does not (the head), [`rest`](RankedQueue::rest) gives the jobs ranked
//! below the head in order, narrowed by the pass's own node counts, and
//! [`finish`](RankedQueue::finish) takes the jobs started out of the queue.
//!
//! How the jobs are held depends on the order:
//!
//! * **time-dependent** (`xf`, `wfp3`, `unicep`, `fairshare`, `multifactor`, an expression reading
//!   `wait`, `now`, `age` or usage, a priority function `score(job, now)`): the jobs in arrival
//!   order, every value recomputed at each pass into [`Ranks`] (the top found by one scan, the
//!   others from a heap of the candidates left after narrowing, built only when asked for);
//! * **static** (`sjf`, `ljf`, `saf`, `laf`, `sqf`, `lqf`, `f1`–`f4`, an expression of the job
//!   alone, a priority function `score(job)`: [`Ranking::is_static`]): each job's value is
//!   computed once, when it arrives, and the jobs are kept in a B-tree by rank from arrival to
//!   start. A pass starts the tops off the tree's front (no search), its head is then the front,
//!   and the candidates below it are read off the tree in order, narrowed as they come: no value
//!   computed and nothing ranked in a pass. Strict priority costs O(log n) per job that arrives
//!   or starts instead of O(n) per pass; EASY's and OO's scans visit the candidates in order as
//!   the arrival-order policies visit theirs. When the engine's estimates change (predictions
//!   made again at every pass) the jobs are valued again and the tree is rebuilt.
//!
//! Both ways give a pass the same jobs in the same order: the rank is the same integer — the
//! value's bits above a tie-breaking field, the queue position in one and the job id in the
//! other — and the two break ties alike, as jobs are numbered in arrival order.

use std::collections::BTreeMap;
use std::collections::btree_map;

use super::{Facts, Rank, Ranking, Ranks, except};
use crate::SimTime;
use crate::sched::System;
use crate::workload::Job;

/// A waiting job's place in a pass (its queue position or its rank: see [`RankedQueue`]),
/// ordered as the jobs are ordered in arrival order or by rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Place(Rank);

/// Waiting jobs in a queue order, each with what the order reads of it and what the scheduler
/// keeps of it (`T`); see the module doc.
#[derive(Debug)]
pub(crate) struct RankedQueue<T> {
    ranking: Ranking,
    jobs: Jobs<T>,
}

/// The jobs of a [`RankedQueue`].
#[derive(Debug, Clone)]
enum Jobs<T> {
    /// Under a time-dependent order: in arrival order, their values recomputed at each pass;
    /// a job's place is its position.
    Recomputed {
        jobs: Vec<(Facts, T)>,
        /// The ranks of the pass, kept for their allocations.
        ranks: Ranks,
        /// The positions of the tops the pass started (they leave at its end).
        started: Vec<usize>,
    },
    /// Under a static order: by rank, which is the job's place.
    Kept {
        jobs: BTreeMap<Rank, (Facts, T)>,
        /// The front job is the pass's head.
        head: bool,
    },
}

impl<T: Copy> RankedQueue<T> {
    /// An empty queue in the order of `ranking`.
    pub(crate) fn new(ranking: Ranking) -> Self {
        let jobs = if ranking.is_static() {
            Jobs::Kept {
                jobs: BTreeMap::new(),
                head: false,
            }
        } else {
            Jobs::Recomputed {
                jobs: Vec::new(),
                ranks: Ranks::default(),
                started: Vec::new(),
            }
        };
        RankedQueue { ranking, jobs }
    }

    /// An independent copy (see [`Ranking::fork`]).
    pub(crate) fn fork(&self) -> Option<Self> {
        Some(RankedQueue {
            ranking: self.ranking.fork()?,
            jobs: self.jobs.clone(),
        })
    }

    /// The number of waiting jobs.
    pub(crate) fn len(&self) -> usize {
        match &self.jobs {
            Jobs::Recomputed { jobs, .. } => jobs.len(),
            Jobs::Kept { jobs, .. } => jobs.len(),
        }
    }

    /// Job `job` arrived now; the scheduler keeps `item` of it.
    pub(crate) fn push(&mut self, job: &Job, sys: &dyn System, item: T) {
        let facts = self.ranking.facts(job, sys);
        match &mut self.jobs {
            Jobs::Recomputed { jobs, .. } => jobs.push((facts, item)),
            Jobs::Kept { jobs, .. } => {
                jobs.insert(facts.rank(), (facts, item));
            }
        }
    }

    /// Reads every waiting job again (the engine's estimates changed), in arrival order; `read`
    /// renews the scheduler's item of each.
    pub(crate) fn reread(&mut self, sys: &dyn System, mut read: impl FnMut(&mut T)) {
        let ranking = &mut self.ranking;
        match &mut self.jobs {
            Jobs::Recomputed { jobs, .. } => {
                for (f, item) in jobs {
                    *f = ranking.facts(sys.job(f.id), sys);
                    read(item);
                }
            }
            Jobs::Kept { jobs, .. } => {
                let mut all: Vec<(Facts, T)> = std::mem::take(jobs).into_values().collect();
                all.sort_unstable_by_key(|(f, _)| f.id);
                for (f, mut item) in all {
                    let f = ranking.facts(sys.job(f.id), sys);
                    read(&mut item);
                    jobs.insert(f.rank(), (f, item));
                }
            }
        }
    }

    /// Starts a pass at `now`: a time-dependent order's values are computed for this moment.
    pub(crate) fn rank(&mut self, now: SimTime) {
        self.ranking.begin(now);
        match &mut self.jobs {
            Jobs::Recomputed { jobs, ranks, .. } => {
                ranks.rank(&mut self.ranking, jobs.iter().map(|(f, _)| f));
            }
            Jobs::Kept { head, .. } => *head = false,
        }
    }

    /// Offers the pass's jobs to `start` best first while it starts them; the first it does not
    /// start, the *head*, if any. The jobs started leave the queue (by the pass's end).
    pub(crate) fn start_tops(
        &mut self,
        mut start: impl FnMut(&Facts, &T) -> bool,
    ) -> Option<(Facts, T)> {
        let ranking = &mut self.ranking;
        let now = ranking.now;
        match &mut self.jobs {
            Jobs::Recomputed {
                jobs,
                ranks,
                started,
            } => loop {
                let i = ranks.pop()?;
                let (f, item) = &jobs[i];
                if !start(f, item) {
                    return Some((*f, *item));
                }
                ranking.started(f, now);
                started.push(i);
            },
            Jobs::Kept { jobs, head } => loop {
                let (f, item) = jobs.first_key_value()?.1;
                if !start(f, item) {
                    *head = true;
                    return Some((*f, *item));
                }
                if let Some((_, (f, _))) = jobs.pop_first() {
                    ranking.started(&f, now);
                }
            },
        }
    }

    /// After [`RankedQueue::start_tops`], the pass's jobs ranked below the head for which
    /// `keep` holds, best first. `keep` is
    /// asked at most once per job, now or when the iteration reaches it (the borrow keeps what
    /// it reads unchanged until then): it narrows the candidates the way a pass's own tests
    /// would, so that a time-dependent order ranks only those in a heap.
    pub(crate) fn rest<F>(&mut self, keep: F) -> Rest<'_, T, F>
    where
        F: Fn(&Facts, &T) -> bool,
    {
        match &mut self.jobs {
            Jobs::Recomputed { jobs, ranks, .. } => {
                ranks.retain(|i| keep(&jobs[i].0, &jobs[i].1));
                Rest::Recomputed { jobs, ranks }
            }
            Jobs::Kept { jobs, head } => {
                // The tops have left: the head, if any, is the front.
                let mut jobs = jobs.iter();
                if *head {
                    jobs.next();
                }
                Rest::Kept { jobs, keep }
            }
        }
    }

    /// Ends the pass: the jobs at `places` (of [`RankedQueue::rest`]) started at the pass's
    /// moment: the order is told in the order given, and they leave the queue with the tops.
    pub(crate) fn finish(&mut self, places: &[Place]) {
        let ranking = &mut self.ranking;
        let now = ranking.now;
        match &mut self.jobs {
            Jobs::Recomputed { jobs, started, .. } => {
                for &Place(i) in places {
                    ranking.started(&jobs[i as usize].0, now);
                    started.push(i as usize);
                }
                if !started.is_empty() {
                    started.sort_unstable();
                    jobs.retain(except(started));
                    started.clear();
                }
            }
            Jobs::Kept { jobs, .. } => {
                for Place(r) in places {
                    if let Some((f, _)) = jobs.remove(r) {
                        ranking.started(&f, now);
                    }
                }
            }
        }
    }

    /// The jobs of [`System::departed`] ended now.
    pub(crate) fn departed(&mut self, sys: &dyn System) {
        self.ranking.departed(sys);
    }
}

/// The candidates of [`RankedQueue::rest`], best first.
pub(crate) enum Rest<'a, T, F> {
    /// Taken from the pass's ranks, narrowed when made.
    Recomputed {
        jobs: &'a [(Facts, T)],
        ranks: &'a mut Ranks,
    },
    /// Read off the tree, narrowed as they come.
    Kept {
        jobs: btree_map::Iter<'a, Rank, (Facts, T)>,
        keep: F,
    },
}

impl<'a, T, F: Fn(&Facts, &T) -> bool> Iterator for Rest<'a, T, F> {
    type Item = (Place, &'a Facts, &'a T);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Rest::Recomputed { jobs, ranks } => {
                let i = ranks.pop()?;
                let (f, item) = &jobs[i];
                Some((Place(i as Rank), f, item))
            }
            Rest::Kept { jobs, keep } => jobs
                .find(|(_, (f, item))| keep(f, item))
                .map(|(&r, (f, item))| (Place(r), f, item)),
        }
    }
}
