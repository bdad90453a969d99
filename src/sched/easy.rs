//! EASY backfilling (Lifka 1995; Mu'alem & Feitelson, IEEE TPDS 12(6), 2001, §2): one FCFS queue
//! in which only the head holds a reservation.
//!
//! One pass per instant (see [`backfill`](super::backfill)), at the end of the instant:
//!
//! 1. start jobs from the head while they fit (FCFS);
//! 2. the first job that does not fit — the head — gets a reservation: the earliest time it could
//!    start if the running jobs end at their estimated ends (a job past its estimate ends "now"), and
//!    the placement the allocator would give it then ([`plan::earliest_start`]). That time is the
//!    *shadow time*; the machine as it would be then is the *shadow state*;
//! 3. every later job, in arrival order, starts now if it fits now (on the placement the allocator
//!    chooses now) and does not delay the reservation: it ends, by its estimate, no later than the
//!    shadow time; or, on the shadow state with its own placement occupied, the head still finds a
//!    placement. A job started by the second rule stays in the shadow state for the rest of the pass.
//!
//! On a flat machine the second rule is exactly the textbook "extra nodes" rule: the head finds a
//! place in the shadow state with the candidate's nodes taken iff the candidate needs no more than
//! `free at shadow − head's size` nodes, and each such job uses up that many extra nodes. On a
//! topology it is the sound reading of "does not use any node of the reserved placement": the
//! reservation *time* is kept, while the head may end up on another placement of the shadow state
//! (docs/ALGORITHMS.md, "Backfilling on topologies").

use std::collections::{HashSet, VecDeque};

use super::backfill::DeferredPass;
use super::plan;
use super::{Scheduler, System};
use crate::SimTime;
use crate::machine::Allocator;
use crate::resource::{Placement, Request};
use crate::workload::JobId;

/// EASY backfilling.
#[derive(Debug, Default)]
pub(crate) struct Easy {
    /// Waiting jobs in arrival order.
    queue: VecDeque<JobId>,
    pass: DeferredPass,
}

/// The head's reservation during one pass.
struct Shadow {
    /// The reserved start.
    time: SimTime,
    /// The machine at that time, with the backfilled jobs that outlast it.
    state: Box<dyn Allocator>,
    /// The head's request.
    head: Request,
}

impl Shadow {
    /// Whether a job on `p` ending (by estimate) at `end` leaves the head its start time.
    fn admits(&self, p: &Placement, end: SimTime) -> bool {
        if end <= self.time {
            return true;
        }
        // An allocator whose free set is structured (semitorus pieces) may not be able to hold `p`
        // in the shadow state's structure: then the head's time cannot be shown safe, and the job
        // waits.
        if !self.state.is_free(p) {
            return false;
        }
        let mut probe = self.state.snapshot();
        probe.occupy(p);
        probe.find(&self.head).is_some()
    }

    /// A job started on `p`, ending at `end`: it holds `p` in the shadow state if it outlasts it.
    fn take(&mut self, p: &Placement, end: SimTime) {
        if end > self.time {
            self.state.occupy(p);
        }
    }
}

impl Easy {
    /// Starts jobs from the head while they fit; the head that is left, if any.
    fn start_head(&mut self, sys: &mut dyn System) -> Option<JobId> {
        while let Some(&head) = self.queue.front() {
            if !sys.try_start(head) {
                return Some(head);
            }
            self.queue.pop_front();
        }
        None
    }

    /// The pass of one instant.
    fn run(&mut self, sys: &mut dyn System) {
        let Some(head) = self.start_head(sys) else {
            return;
        };
        let now = sys.now();
        let req = sys.job(head).request;
        let mut state = sys.snapshot();
        let Some(res) = plan::earliest_start(now, &req, state.as_mut(), &sys.running_jobs()) else {
            return;
        };
        sys.promise(head, res.start);
        let mut shadow = Shadow {
            time: res.start,
            state,
            head: req,
        };
        let mut now_state = sys.snapshot();
        self.backfill(&mut shadow, now_state.as_mut(), sys);
    }

    /// Step 3: the jobs behind the head, in arrival order, on the
    /// machine `now_state` (kept up to date).
    fn backfill(
        &mut self,
        shadow: &mut Shadow,
        now_state: &mut dyn Allocator,
        sys: &mut dyn System,
    ) {
        // Requests that do not fit now: the free set only shrinks during the pass.
        let mut no_fit: HashSet<Request> = HashSet::new();
        let now = sys.now();
        let mut kept = VecDeque::with_capacity(self.queue.len());
        kept.extend(self.queue.pop_front());
        while let Some(j) = self.queue.pop_front() {
            if now_state.free_nodes() == 0 {
                kept.push_back(j);
                kept.extend(self.queue.drain(..));
                break;
            }
            let job = sys.job(j);
            let (req, end) = (job.request, now + job.estimate);
            let started = now_state.free_nodes() >= req.nodes()
                && !no_fit.contains(&req)
                && match now_state.find(&req) {
                    None => {
                        no_fit.insert(req);
                        false
                    }
                    Some(p) => {
                        shadow.admits(&p, end) && start_on(j, p, now_state, sys) && {
                            shadow.take(&p, end);
                            true
                        }
                    }
                };
            if !started {
                kept.push_back(j);
            }
        }
        self.queue = kept;
    }
}

/// Starts `j` on `p` (free now) and marks it busy in `now_state`.
fn start_on(j: JobId, p: Placement, now_state: &mut dyn Allocator, sys: &mut dyn System) -> bool {
    if !sys.try_start_on(j, p) {
        return false;
    }
    now_state.occupy(&p);
    true
}

impl Scheduler for Easy {
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.queue.push_back(job);
        self.pass.arm(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.pass.arm(sys);
    }

    fn on_timer(&mut self, token: u64, sys: &mut dyn System) {
        if self.pass.fire(token, sys) {
            self.run(sys);
        }
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}
