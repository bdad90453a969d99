//! Fair start times: forks of a replay that see no later arrival.
//!
//! A job's *fair start time* is when it would have started, under the same scheduler and
//! allocator, had no job arrived after it (Sabin, Kochhar & Sadayappan, "Job fairness in
//! non-preemptive job scheduling", ICPP 2004: no later-arriving job should delay an earlier one).
//! "After" is the workload's order, the order the engine delivers arrivals in: of two jobs
//! submitted at the same instant, the one listed second arrives later.
//!
//! The replay of the jobs up to `j` is the replay itself until the next job, `j + 1`, arrives.
//! So a job that started by then has its start as fair start time and needs no fork; for one
//! still waiting, the engine *forks* just before `j + 1`'s arrival — the scheduler
//! ([`Scheduler::fork`](crate::sched::Scheduler::fork)), the allocator's snapshot, the event
//! queue, and the per-job state of the live jobs only ([`PerJob`](super::table::PerJob)) — and runs the fork, with no
//! arrival left, until `j` starts. The last job of the log needs no fork either.

use std::cmp::Ordering;

use super::{Engine, EngineError, JobRecord, NOT_STARTED, State, Status, order_key};
use crate::SimTime;
use crate::engine::NoObserver;
use crate::workload::JobId;

impl<'w> Engine<'w> {
    /// Whether fair start times can be measured in this replay: the policy can be forked and
    /// the estimates are the jobs' own (a predictor learns from the whole replay; forks would
    /// need its state too).
    pub(super) fn check_forkable(&self) -> Result<(), EngineError> {
        if self.state.fair.is_empty() {
            return Ok(());
        }
        if self.state.predictor_kind.is_some() {
            return Err(EngineError::NoFairStart("predicted estimates"));
        }
        if self.sched.fork().is_none() {
            return Err(EngineError::NoFairStart(
                "a policy that cannot be copied (a Python policy or priority function)",
            ));
        }
        Ok(())
    }

    /// Just before the next arrival, if it is due now: the fair start time of the job that
    /// arrived last, if it still waits (measured on a fork).
    pub(super) fn measure_fair_start(&mut self) -> Result<(), EngineError> {
        let st = &self.state;
        let next = st.next_arrival;
        let due_now = st
            .jobs
            .get(next)
            .is_some_and(|j| j.submit.total_cmp(&st.now) == Ordering::Equal);
        if st.fair.is_empty() || next == 0 || !due_now {
            return Ok(());
        }
        let last = JobId((next - 1) as u32);
        if *st.status.get(last.index()) != Status::Waiting || !st.fair[last.index()].is_nan() {
            return Ok(());
        }
        let fork = Engine {
            sched: self.sched.fork().ok_or(EngineError::NoFairStart(
                "a policy that cannot be copied (a Python policy or priority function)",
            ))?,
            state: self.state.fork(last),
        };
        self.state.fair[last.index()] = fork.start_of(last)?;
        Ok(())
    }

    /// Runs a fork until `job` starts: its start time.
    fn start_of(mut self, job: JobId) -> Result<SimTime, EngineError> {
        let mut instant = Some(order_key(self.state.now));
        while self.step(&mut instant, &mut NoObserver)? {
            let start = self.state.records.get(job.index()).start;
            if !start.is_nan() {
                return Ok(start);
            }
        }
        Err(EngineError::Stranded {
            job,
            source_id: self.state.jobs[job.index()].source_id,
            waiting: 1,
        })
    }
}

impl<'w> State<'w> {
    /// A copy of the replay now, in which no job after `last` ever arrives, measuring nothing
    /// (the caller has checked that there is no predictor).
    fn fork(&self, last: JobId) -> State<'w> {
        let live = || (self.waiting.iter().chain(self.progress.keys())).map(|id| id.index());
        let cut = last.index();
        State {
            source: self.source,
            jobs: self.jobs.clone(),
            predictor: None,
            predictor_kind: None,
            waiting_of_user: Default::default(),
            estimates_epoch: self.estimates_epoch,
            due_now: self.due_now.clone(),
            predictions: Vec::new(),
            alloc: self.alloc.snapshot(),
            empty: self.empty.snapshot(),
            options: self.options.clone(),
            dilation: (self.dilation.as_ref()).map(|d| d.fork(live(), cut, 1.0, 1.0)),
            status: (self.status).fork(live(), cut, Status::Done, Status::NotArrived),
            records: (self.records).fork(live(), cut, NOT_STARTED, NOT_STARTED),
            waiting: Default::default(),
            fair: Vec::new(),
            progress: self.progress.clone(),
            running_ids: self.running_ids.clone(),
            segments: Vec::new(),
            events: self.events.clone(),
            seq: self.seq,
            now: self.now,
            next_arrival: self.jobs.len(),
            running: self.running,
            busy: self.busy,
            departed: self.departed.clone(),
            failed: self.failed.clone(),
            counters: Default::default(),
            error: None,
        }
    }
}

/// The outcome's fair start times: those the forks found, and the start of every job that
/// needed none (empty when not measured).
pub(super) fn fair_starts(mut fair: Vec<SimTime>, records: &[JobRecord]) -> Vec<SimTime> {
    for (f, r) in fair.iter_mut().zip(records) {
        if f.is_nan() {
            *f = r.start;
        }
    }
    fair
}
