//! What `stats` reports of a trace, for every front end (the command line's `stats --format
//! json`, Python's `stats()`): the trace's identity, what was skipped, the estimate check, and the
//! workload statistics ([`WorkloadStats`]).
//!
//! The figures are built one job at a time ([`StatsStream`]), so a front end can stream a log
//! through them without keeping it: each job is scaled by the load factor, given its estimate and
//! counted, bit for bit as [`Workload::scaled`], [`Workload::set_estimates`] and
//! [`WorkloadStats::of`] treat a whole workload.

use std::collections::BTreeMap;

use serde::Serialize;

use super::LoadedTrace;
use crate::machine::MachineSpec;
use crate::swf::{Header, SkipReport};
use crate::workload::transform::TransformError;
use crate::workload::{
    Conversion, DropReason, EstimateModel, EstimateReport, Job, StatsBuilder, Workload,
    WorkloadStats,
};

/// Why a trace cannot be described as asked.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// The load factor is not a positive finite number.
    #[error(transparent)]
    LoadFactor(#[from] TransformError),
    /// `tsafrir` draws estimates for a whole workload, not one job at a time.
    #[error(
        "estimate tsafrir: the model draws estimates for a whole workload, which stats reads one job \
         at a time; its estimates are below the run time only for jobs longer than the limit"
    )]
    Tsafrir,
}

/// The report: one JSON object with these keys (the statistics' own flattened in).
#[derive(Debug, Clone, Serialize)]
pub struct TraceReport {
    /// Catalog name, file name or `synth:` label.
    pub trace: String,
    /// The file read (the label for a synthetic workload).
    pub path: String,
    /// sha256 of the uncompressed bytes (of the canonical label for a synthetic workload).
    pub sha256: String,
    /// The shape rule of the conversion.
    pub shape: String,
    /// The header's `Computer` and `Installation`.
    pub computer: String,
    /// The load factor the jobs were scaled by, when one was given.
    pub load_factor: Option<f64>,
    /// Lines skipped as malformed (lenient reading).
    pub skipped_lines: u64,
    /// The skipped lines by reason.
    pub skipped: SkipReport,
    /// The estimate model checked.
    pub estimate: String,
    /// Jobs without a requested time (SWF field 9).
    pub no_requested_time: u64,
    /// Jobs whose run time exceeds their estimate.
    pub overrun_estimate: u64,
    /// The workload statistics.
    #[serde(flatten)]
    pub stats: WorkloadStats,
}

/// The statistics of a trace, fed one job at a time.
#[derive(Debug, Clone)]
pub struct StatsStream {
    load_factor: Option<f64>,
    estimate: EstimateModel,
    first_submit: Option<f64>,
    report: EstimateReport,
    stats: Option<StatsBuilder>,
}

impl StatsStream {
    /// Jobs scaled by `load_factor` (after shifting the first arrival to 0) when given, with the
    /// estimates of `estimate`.
    pub fn new(load_factor: Option<f64>, estimate: EstimateModel) -> Result<Self, ReportError> {
        if let Some(lf) = load_factor {
            Workload::default().scaled(lf)?;
        }
        if estimate == EstimateModel::Tsafrir {
            return Err(ReportError::Tsafrir);
        }
        Ok(StatsStream {
            load_factor,
            estimate,
            first_submit: None,
            report: EstimateReport::default(),
            stats: None,
        })
    }

    /// Counts `job`, converted by `c`.
    pub fn push(&mut self, c: &Conversion, job: &Job) {
        let mut job = job.clone();
        if let Some(lf) = self.load_factor {
            let first = *self.first_submit.get_or_insert(job.submit);
            job.submit = (job.submit - first) / lf;
        }
        job.estimate = self.estimate.estimate(&job).unwrap_or(job.runtime);
        self.report.missing += u64::from(job.requested.is_none());
        self.report.overrun += u64::from(job.runtime > job.estimate);
        self.stats
            .get_or_insert_with(|| StatsBuilder::new(c.procs_per_node))
            .push(&job);
    }

    /// The statistics and the estimate check of the jobs pushed.
    pub fn finish(
        self,
        procs_per_node: u32,
        machine: MachineSpec,
        dropped: &BTreeMap<DropReason, u64>,
    ) -> (WorkloadStats, EstimateReport) {
        let stats = self
            .stats
            .unwrap_or_else(|| StatsBuilder::new(procs_per_node))
            .finish(machine, dropped);
        (stats, self.report)
    }

    /// The report of trace `t`, whose jobs were pushed.
    pub fn report(self, t: &LoadedTrace) -> TraceReport {
        let (load_factor, estimate) = (self.load_factor, self.estimate);
        let (stats, EstimateReport { missing, overrun }) =
            self.finish(t.conversion.procs_per_node, t.machine, &t.dropped);
        TraceReport {
            trace: t.name.clone(),
            path: t.path.display().to_string(),
            sha256: t.sha256.clone(),
            shape: t.conversion.shape.to_string(),
            computer: computer(&t.header),
            load_factor,
            skipped_lines: t.skipped.skipped_lines(),
            skipped: t.skipped.clone(),
            estimate: estimate.to_string(),
            no_requested_time: missing,
            overrun_estimate: overrun,
            stats,
        }
    }
}

/// `Computer` and `Installation` of the header, when given.
fn computer(h: &Header) -> String {
    [h.computer(), h.installation()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::synth::SynthSpec;

    /// The streamed figures are bit for bit those of scaling, estimating and describing the whole
    /// workload at once.
    #[test]
    fn streaming_matches_the_whole_workload() {
        let (spec, seed) = SynthSpec::from_label("synth:uniform,mesh=8x8,jobs=500").unwrap();
        let w = spec.generate(seed).unwrap();
        let m = spec.mesh_spec();
        let dropped = BTreeMap::from([(DropReason::TooLarge, 3)]);
        for (lf, model) in [
            (None, EstimateModel::Exact),
            (Some(0.7), EstimateModel::Factor(0.5)),
        ] {
            let mut whole = match lf {
                Some(lf) => w.scaled(lf).unwrap(),
                None => w.clone(),
            };
            let report = whole.set_estimates(model);
            let expected = WorkloadStats::of(&whole, m, &dropped);
            let mut acc = StatsStream::new(lf, model).unwrap();
            let conv = Conversion::for_machine(m);
            w.jobs.iter().for_each(|j| acc.push(&conv, j));
            assert_eq!(acc.finish(1, m, &dropped), (expected, report));
        }
    }

    #[test]
    fn bad_load_factors_and_tsafrir_are_refused() {
        assert!(matches!(
            StatsStream::new(Some(-1.0), EstimateModel::Exact),
            Err(ReportError::LoadFactor(_))
        ));
        assert_eq!(
            StatsStream::new(None, EstimateModel::Tsafrir).unwrap_err(),
            ReportError::Tsafrir
        );
    }
}
