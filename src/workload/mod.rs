//! Workloads: jobs, filters, shape conversions, load scaling, input shaking,
//! synthetic models (the mesh papers', the hypercube paper's, Lublin & Feitelson's).

mod job;
pub mod lublin;
pub mod rewrite;
pub mod shake;
pub mod stats;
pub mod synth;
pub mod synth_hypercube;
pub mod tracepath;
pub mod transform;

pub use job::{
    Correction, EstimateModel, EstimateParseError, EstimateReport, Job, JobId, PredictorKind,
    Request, Workload,
};
pub use stats::{StatsBuilder, WorkloadStats};
pub use transform::{Conversion, Converted, DropReason, ShapeRule, SizeField, box_shape};
