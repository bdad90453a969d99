//! Named measures: what a figure plots and a claim reads, one number per run.
//!
//! Every [`RunMetrics`](crate::engine::RunMetrics) column is a measure under its column name
//! (docs/OUTPUTS.md), with its unit and meaning from the engine's one table
//! ([`crate::engine::columns`]); reports take axis labels from it. A measure that needs
//! more than a run's summary (per-time observations, service classes) is registered here as a
//! function of its own when a study needs it.

pub use crate::engine::columns::{COLUMNS as MEASURES, Column as Measure};

/// The measure called `name`, or an error listing every name.
pub fn lookup(name: &str) -> Result<Measure, String> {
    MEASURES
        .iter()
        .find(|m| m.name == name)
        .copied()
        .ok_or_else(|| {
            format!(
                "unknown measure `{name}`; measures: {}",
                MEASURES
                    .iter()
                    .map(|m| m.name)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RunMetrics;

    #[test]
    fn every_measure_reads_its_own_field() {
        let m = RunMetrics {
            jobs: 7,
            mean_turnaround_s: 2.5,
            head_fragmentation: 0.25,
            ..RunMetrics::default()
        };
        assert_eq!(lookup("jobs").unwrap().of(&m), 7.0);
        assert_eq!(lookup("mean_turnaround_s").unwrap().of(&m), 2.5);
        assert_eq!(lookup("head_fragmentation").unwrap().of(&m), 0.25);
        assert_eq!(
            lookup("mean_turnaround_s").unwrap().axis_label(),
            "mean turnaround (s)"
        );
        let e = lookup("turnaround").unwrap_err();
        assert!(
            e.contains("mean_turnaround_s") && e.contains("utilization"),
            "{e}"
        );
        let mut names: Vec<&str> = MEASURES.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MEASURES.len());
    }
}
