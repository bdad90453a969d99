//! Workloads: jobs, the trace catalog, filters, shape conversions, load scaling, synthetic models.

mod job;
pub mod synth;

pub use job::{Job, JobId, Request, Workload};
