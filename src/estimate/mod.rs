//! Run-time estimates beyond the log's own field 9: a model that gives every job a user estimate
//! before the replay ([`tsafrir`]), and predictors that learn from the jobs that complete while the
//! replay runs ([`predict`]).
//!
//! A static model sets [`Job::estimate`](crate::workload::Job::estimate) once
//! ([`Workload::set_estimates`](crate::workload::Workload::set_estimates)). A predictor is a
//! [`Predictor`]: the engine asks it for each job's estimate when the job is submitted, tells it
//! every completion, and asks it for a longer estimate when a running job outlives the one it has
//! (the scheduler is then told through
//! [`Scheduler::on_overrun`](crate::sched::Scheduler::on_overrun)). The user's estimate stays the
//! job's limit: `--kill-at-estimate` ends a job there, whatever was predicted.

pub mod predict;
pub mod tsafrir;

use crate::SimTime;
use crate::workload::Job;

pub use predict::{Correction, RecentUserMean};

/// A run-time predictor that learns while the replay runs.
pub trait Predictor: Send {
    /// The estimate of `job`, at its submission.
    fn predict(&mut self, job: &Job) -> SimTime;
    /// `job` ended after `ran` seconds of service.
    fn completed(&mut self, job: &Job, ran: SimTime);
    /// `job`, first predicted to run `first` seconds, is still running at the end of its estimate,
    /// which has been extended `extensions` times before: its next estimate. One no longer than the
    /// current estimate changes nothing: the job is then taken to end at any moment, as any job
    /// past its estimate.
    fn extend(&self, job: &Job, first: SimTime, extensions: u32) -> SimTime;
}

/// A predictor label: which [`Predictor`] a replay builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PredictorKind {
    /// `predict[:estimate]`: the mean run time of the user's two last completed jobs (Tsafrir,
    /// Etsion & Feitelson 2007), outlived predictions extended by the [`Correction`], see
    /// [`RecentUserMean`].
    RecentUserMean(Correction),
}

impl PredictorKind {
    /// A fresh predictor, with no history.
    pub fn build(self) -> Box<dyn Predictor> {
        self.build_with(false)
    }

    /// A fresh predictor whose predictions are rounded down to whole seconds when
    /// `whole_seconds` (as the Python simulators' integer division does).
    pub fn build_with(self, whole_seconds: bool) -> Box<dyn Predictor> {
        match self {
            PredictorKind::RecentUserMean(c) => {
                Box::new(RecentUserMean::new(c).whole_seconds(whole_seconds))
            }
        }
    }
}
