//! Jobs as the simulator sees them: an arrival time, a run time and a topology-specific request;
//! and the labels of where their estimates come from ([`EstimateModel`], [`PredictorKind`]), which
//! [`crate::estimate`] carries out.

use crate::SimTime;
use crate::packed::{GroupId, PackedTime, PartitionId, QueueId, UserId};
pub use crate::resource::Request;

/// Dense index of a job in its [`Workload`] (0-based, in arrival order).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct JobId(pub u32);

impl JobId {
    /// The index as `usize`, for slice access.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One job of a workload, after filters and shape conversion.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// Position in the workload.
    pub id: JobId,
    /// Job number in the source (SWF field 1, or the synthetic sequence number).
    pub source_id: u64,
    /// Submission time.
    pub submit: SimTime,
    /// Run time (≥ 0; zero-length jobs are kept and run for 0).
    pub runtime: SimTime,
    /// The run time schedulers are told (backfilling plans with it): the run time itself unless an
    /// [`EstimateModel`] says otherwise.
    pub estimate: SimTime,
    /// The user's requested time (SWF field 9), when the source gives a positive one (8 bytes:
    /// [`PackedTime`]).
    pub requested: Option<PackedTime>,
    /// The request in machine units.
    pub request: Request,
    /// Processors the job asked for in the source's units (before conversion), for internal
    /// fragmentation: `granted − asked`, both in processors.
    pub asked_procs: u32,
    /// The submitting user (SWF field 12), when the source names one: what per-user run-time
    /// predictors ([`crate::estimate`]) key their history by.
    pub user: Option<UserId>,
    /// The submitting user's group (SWF field 13): fair-share by group ([`crate::sched::order`]).
    pub group: Option<GroupId>,
    /// The queue the job was submitted to (SWF field 15): the multifactor queue factor.
    pub queue: Option<QueueId>,
    /// The partition the job ran in (SWF field 16): the multifactor partition factor.
    pub partition: Option<PartitionId>,
}

#[cfg(test)]
impl Job {
    /// A job for the library's unit tests: job number `i + 1`, told its own run time, asking for
    /// `request`'s nodes, with no requested time and no user, group, queue or partition.
    pub(crate) fn sample(i: u32, submit: SimTime, runtime: SimTime, request: Request) -> Job {
        Job {
            id: JobId(i),
            source_id: u64::from(i) + 1,
            submit,
            runtime,
            estimate: runtime,
            requested: None,
            request,
            asked_procs: request.nodes(),
            user: None,
            group: None,
            queue: None,
            partition: None,
        }
    }
}

/// A job stream ready to simulate: sorted by submit time (ties keep source order), ids dense.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Workload {
    /// Jobs in arrival order; `jobs[i].id == JobId(i)`.
    pub jobs: Vec<Job>,
    /// Processors per machine node (8 for Blue Horizon, else 1); `granted_procs = nodes × this`.
    pub procs_per_node: u32,
    /// The predictor the engine asks for each job's estimate while it replays (`--estimate
    /// predict`); `None`: the jobs' own [`Job::estimate`]s. [`Job::estimate`] is then the user
    /// estimate, the cap of the predictions and the limit of `--kill-at-estimate`.
    pub predictor: Option<PredictorKind>,
}

/// Where a job's [`Job::estimate`] comes from (`--estimate`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum EstimateModel {
    /// `exact`: the real run time.
    Exact,
    /// `user`: the requested time (SWF field 9); the run time where the log has none.
    User,
    /// `xF`: the run time × F (F > 0).
    Factor(f64),
    /// `predict`: EASY++'s predictions (Tsafrir, Etsion & Feitelson 2007): the mean run time of the
    /// user's two last completed jobs, capped by the user estimate (`user`), corrected when a job
    /// outlives it step by step (`predict`) or to the user estimate at once (`predict:estimate`)
    /// ([`crate::estimate::predict`]).
    Predict(Correction),
    /// `tsafrir`: modeled user estimates (Tsafrir, Etsion & Feitelson, JSSPP 2005): modal values
    /// drawn for the whole workload, none below its job's run time but for jobs longer than the
    /// site's limit ([`crate::estimate::tsafrir`]).
    Tsafrir,
}

/// An estimate label that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "estimate `{0}` is not one of exact, user, xF (F a positive number, e.g. x2), predict, predict:estimate, tsafrir"
)]
pub struct EstimateParseError(pub String);

impl std::str::FromStr for EstimateModel {
    type Err = EstimateParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "exact" => Ok(EstimateModel::Exact),
            "user" => Ok(EstimateModel::User),
            "predict" | "predict:steps" => Ok(EstimateModel::Predict(Correction::Steps)),
            "predict:estimate" => Ok(EstimateModel::Predict(Correction::Estimate)),
            "tsafrir" => Ok(EstimateModel::Tsafrir),
            t => t
                .strip_prefix('x')
                .and_then(|f| f.parse::<f64>().ok())
                .filter(|f| f.is_finite() && *f > 0.0)
                .map(EstimateModel::Factor)
                .ok_or_else(|| EstimateParseError(s.to_string())),
        }
    }
}

impl std::fmt::Display for EstimateModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EstimateModel::Exact => f.write_str("exact"),
            EstimateModel::User => f.write_str("user"),
            EstimateModel::Factor(x) => write!(f, "x{x}"),
            EstimateModel::Predict(Correction::Steps) => f.write_str("predict"),
            EstimateModel::Predict(Correction::Estimate) => f.write_str("predict:estimate"),
            EstimateModel::Tsafrir => f.write_str("tsafrir"),
        }
    }
}

/// What applying an [`EstimateModel`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EstimateReport {
    /// Jobs without a requested time (the run time stands in under `user`).
    pub missing: u64,
    /// Jobs whose run time exceeds their estimate.
    pub overrun: u64,
}

impl EstimateModel {
    /// Whether the model reads the users' requested times (SWF field 9): `user`, and `predict`,
    /// whose cap they are. A job without one falls back to its run time, so on a log without
    /// requested times such a model replays as `exact` does.
    pub fn reads_requested(self) -> bool {
        matches!(self, EstimateModel::User | EstimateModel::Predict(_))
    }

    /// The estimate of `job` under this model (under `predict`, the user estimate: the cap of the
    /// predictions); `None` under `tsafrir`, whose estimates are drawn for a whole workload
    /// ([`Workload::set_estimates`]).
    pub fn estimate(self, job: &Job) -> Option<SimTime> {
        match self {
            EstimateModel::Exact => Some(job.runtime),
            EstimateModel::User | EstimateModel::Predict(_) => {
                Some(job.requested.map_or(job.runtime, PackedTime::get))
            }
            EstimateModel::Factor(f) => Some(job.runtime * f),
            EstimateModel::Tsafrir => None,
        }
    }
}

/// How a prediction a job outlives is extended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Correction {
    /// `predict`: the first prediction plus 1 min, 5 min, 15 min, … 100 h, then the user estimate.
    #[default]
    Steps,
    /// `predict:estimate`: to the user estimate at once.
    Estimate,
}

/// A predictor label: which [`Predictor`](crate::estimate::Predictor) a replay builds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum PredictorKind {
    /// `predict[:estimate]`: the mean run time of the user's two last completed jobs (Tsafrir,
    /// Etsion & Feitelson 2007), outlived predictions extended by the [`Correction`], see
    /// [`RecentUserMean`](crate::estimate::RecentUserMean).
    RecentUserMean(Correction),
}

impl Workload {
    /// Jobs without a requested time (SWF field 9): their estimate falls back to the run time under
    /// a model that [reads requested times](EstimateModel::reads_requested).
    pub fn without_requested_time(&self) -> usize {
        self.jobs.iter().filter(|j| j.requested.is_none()).count()
    }
}
