//! Named measures: what a figure plots and a claim reads, one number per run.
//!
//! Every [`RunMetrics`] column is a measure under its column name (docs/OUTPUTS.md), with its unit
//! and meaning in one table ([`MEASURES`]); reports take axis labels from it. A measure that needs
//! more than a run's summary (per-time observations, service classes) is registered here as a
//! function of its own when a study needs it.

use crate::engine::RunMetrics;

/// One measure: name, unit, meaning and how to read it off a run.
#[derive(Debug, Clone, Copy)]
pub struct Measure {
    /// Column name (`mean_turnaround_s`).
    pub name: &'static str,
    /// Unit for axis labels (`s`, `fraction`, empty for counts and ratios).
    pub unit: &'static str,
    /// What it means, in a few words (axis labels, docs).
    pub meaning: &'static str,
    /// Its value for one run.
    pub of: fn(&RunMetrics) -> f64,
}

impl PartialEq for Measure {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Measure {
    /// `mean turnaround (s)`: the meaning with the unit, for an axis.
    pub fn axis_label(&self) -> String {
        if self.unit.is_empty() {
            self.meaning.to_string()
        } else {
            format!("{} ({})", self.meaning, self.unit)
        }
    }
}

macro_rules! measures {
    ($($name:ident, $unit:expr, $meaning:expr;)*) => {
        /// Every measure, in the order of the summary table's columns.
        pub const MEASURES: &[Measure] = &[$(Measure {
            name: stringify!($name),
            unit: $unit,
            meaning: $meaning,
            of: |m: &RunMetrics| m.$name as f64,
        }),*];
    };
}

measures! {
    jobs, "", "jobs replayed";
    mean_turnaround_s, "s", "mean turnaround";
    var_turnaround, "s²", "variance of turnaround";
    mean_wait_s, "s", "mean wait";
    max_wait_s, "s", "maximum wait";
    p50_wait_s, "s", "median wait";
    p95_wait_s, "s", "95th percentile wait";
    p99_wait_s, "s", "99th percentile wait";
    utilization, "fraction", "utilization";
    throughput_per_s, "jobs/s", "throughput";
    makespan_s, "s", "makespan";
    mean_bounded_slowdown, "", "mean bounded slowdown (τ = 10 s)";
    system_power, "", "system power (throughput / mean wait)";
    internal_fragmentation, "processors", "internal fragmentation";
    killed_jobs, "", "jobs killed at their estimate";
    alloc_attempts, "", "allocator calls";
    alloc_time_s, "s", "time in the allocator";
    sim_wall_s, "s", "replay wall time";
    external_fragmentation, "fraction", "external fragmentation";
    mean_torus_dims, "", "mean torus dimensionality";
    p50_bounded_slowdown, "", "median bounded slowdown";
    p95_bounded_slowdown, "", "95th percentile bounded slowdown";
    p99_bounded_slowdown, "", "99th percentile bounded slowdown";
    backfilled_jobs, "", "jobs backfilled";
    backfilled_share, "fraction", "share of jobs backfilled";
    mean_reservation_error_s, "s", "mean reservation error";
    frag_delayed_jobs, "", "jobs delayed by fragmentation";
    frag_delayed_share, "fraction", "share of jobs delayed by fragmentation";
    mean_free_regions, "", "mean maximal free submeshes";
    head_fragmentation, "fraction", "head-of-queue fragmentation";
}

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

    #[test]
    fn every_measure_reads_its_own_field() {
        let m = RunMetrics {
            jobs: 7,
            mean_turnaround_s: 2.5,
            head_fragmentation: 0.25,
            ..RunMetrics::default()
        };
        assert_eq!((lookup("jobs").unwrap().of)(&m), 7.0);
        assert_eq!((lookup("mean_turnaround_s").unwrap().of)(&m), 2.5);
        assert_eq!((lookup("head_fragmentation").unwrap().of)(&m), 0.25);
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
