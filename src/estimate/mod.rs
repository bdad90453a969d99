//! Run-time estimates beyond the log's own field 9: a model that gives every job a user estimate
//! before the replay ([`tsafrir`]), and predictors that learn from the jobs that complete while the
//! replay runs ([`predict`]).
//!
//! The labels of these choices are the workload's ([`EstimateModel`], [`PredictorKind`],
//! [`Correction`](crate::workload::Correction): a workload carries the predictor its replay asks);
//! this module carries them out, on the workload's jobs. A static model sets
//! [`Job::estimate`] once ([`Workload::set_estimates`]). A predictor is a [`Predictor`]
//! ([`PredictorKind::build`]): the engine asks it for each job's estimate when the job is
//! submitted, tells it every completion, and asks it for a longer estimate when a running job
//! outlives the one it has (the scheduler is then told through
//! [`Scheduler::on_overrun`](crate::sched::Scheduler::on_overrun)). The user's estimate stays the
//! job's limit: `--kill-at-estimate` ends a job there, whatever was predicted.

pub mod predict;
pub mod tsafrir;

use crate::SimTime;
use crate::workload::{EstimateModel, EstimateReport, Job, PredictorKind, Workload};

pub use predict::RecentUserMean;

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

impl Workload {
    /// Sets every job's estimate by `model` (and the predictor, for `predict`); reports jobs with no
    /// requested time and jobs that overrun their estimate.
    pub fn set_estimates(&mut self, model: EstimateModel) -> EstimateReport {
        self.predictor = match model {
            EstimateModel::Predict(c) => Some(PredictorKind::RecentUserMean(c)),
            _ => None,
        };
        let mut report = EstimateReport::default();
        let drawn = (model == EstimateModel::Tsafrir).then(|| tsafrir::estimates(&self.jobs));
        for (i, job) in self.jobs.iter_mut().enumerate() {
            job.estimate = match &drawn {
                Some(d) => d[i],
                None => model.estimate(job).unwrap_or(job.runtime),
            };
            report.missing += u64::from(job.requested.is_none());
            report.overrun += u64::from(job.runtime > job.estimate);
        }
        report
    }
}
