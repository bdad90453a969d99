//! Every [`RunMetrics`] field as a named column value, and back.
//!
//! The field names are the column names of `summary.csv`, `summary.parquet`, the cell cache and
//! `pwa-replay run --format json`. The conversions destructure [`RunMetrics`] exhaustively, so a
//! field added to the library fails to compile here until it has a column (and a line in
//! docs/OUTPUTS.md).

use anyhow::{Context, bail};
use pwa_replay::engine::RunMetrics;

/// One metric value: a count or a real number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MetricValue {
    /// A count (`jobs`, `alloc_attempts`).
    Count(u64),
    /// A real number (times in seconds, ratios).
    Real(f64),
}

impl MetricValue {
    /// The value as `u64` (reals truncated).
    pub fn as_u64(self) -> u64 {
        match self {
            MetricValue::Count(n) => n,
            MetricValue::Real(x) => x as u64,
        }
    }

    /// The value as `f64` (counts converted).
    pub fn as_f64(self) -> f64 {
        match self {
            MetricValue::Count(n) => n as f64,
            MetricValue::Real(x) => x,
        }
    }
}

/// Every metric, in column order.
pub fn values(m: &RunMetrics) -> Vec<(&'static str, MetricValue)> {
    use MetricValue::{Count as C, Real as R};
    let RunMetrics {
        jobs,
        mean_turnaround_s,
        var_turnaround,
        mean_wait_s,
        max_wait_s,
        p50_wait_s,
        p95_wait_s,
        p99_wait_s,
        utilization,
        throughput_per_s,
        makespan_s,
        mean_bounded_slowdown,
        system_power,
        internal_fragmentation,
        killed_jobs,
        alloc_attempts,
        alloc_time_s,
        sim_wall_s,
        external_fragmentation,
        mean_torus_dims,
        p50_bounded_slowdown,
        p95_bounded_slowdown,
        p99_bounded_slowdown,
        backfilled_jobs,
        backfilled_share,
        mean_reservation_error_s,
        frag_delayed_jobs,
        frag_delayed_share,
        mean_free_regions,
        head_fragmentation,
        mean_estimate_error,
        underestimated_share,
    } = *m;
    vec![
        ("jobs", C(jobs)),
        ("mean_turnaround_s", R(mean_turnaround_s)),
        ("var_turnaround", R(var_turnaround)),
        ("mean_wait_s", R(mean_wait_s)),
        ("max_wait_s", R(max_wait_s)),
        ("p50_wait_s", R(p50_wait_s)),
        ("p95_wait_s", R(p95_wait_s)),
        ("p99_wait_s", R(p99_wait_s)),
        ("utilization", R(utilization)),
        ("throughput_per_s", R(throughput_per_s)),
        ("makespan_s", R(makespan_s)),
        ("mean_bounded_slowdown", R(mean_bounded_slowdown)),
        ("system_power", R(system_power)),
        ("internal_fragmentation", R(internal_fragmentation)),
        ("killed_jobs", C(killed_jobs)),
        ("alloc_attempts", C(alloc_attempts)),
        ("alloc_time_s", R(alloc_time_s)),
        ("sim_wall_s", R(sim_wall_s)),
        ("external_fragmentation", R(external_fragmentation)),
        ("mean_torus_dims", R(mean_torus_dims)),
        ("p50_bounded_slowdown", R(p50_bounded_slowdown)),
        ("p95_bounded_slowdown", R(p95_bounded_slowdown)),
        ("p99_bounded_slowdown", R(p99_bounded_slowdown)),
        ("backfilled_jobs", C(backfilled_jobs)),
        ("backfilled_share", R(backfilled_share)),
        ("mean_reservation_error_s", R(mean_reservation_error_s)),
        ("frag_delayed_jobs", C(frag_delayed_jobs)),
        ("frag_delayed_share", R(frag_delayed_share)),
        ("mean_free_regions", R(mean_free_regions)),
        ("head_fragmentation", R(head_fragmentation)),
        ("mean_estimate_error", R(mean_estimate_error)),
        ("underestimated_share", R(underestimated_share)),
    ]
}

/// The metrics that are durations in seconds (shown with units in tables for humans).
pub const DURATIONS: [&str; 10] = [
    "mean_turnaround_s",
    "mean_wait_s",
    "max_wait_s",
    "p50_wait_s",
    "p95_wait_s",
    "p99_wait_s",
    "makespan_s",
    "alloc_time_s",
    "sim_wall_s",
    "mean_reservation_error_s",
];

/// Whether the metric `name` is a duration in seconds.
pub fn is_duration(name: &str) -> bool {
    DURATIONS.contains(&name)
}

/// The metric names, in column order.
#[cfg(test)]
pub fn names() -> Vec<&'static str> {
    values(&RunMetrics::default())
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}

/// Rebuilds metrics from a lookup by column name.
pub fn from_lookup(
    mut get: impl FnMut(&'static str) -> anyhow::Result<MetricValue>,
) -> anyhow::Result<RunMetrics> {
    let mut real = |name| real(name, get(name)?);
    let mean_turnaround_s = real("mean_turnaround_s")?;
    let var_turnaround = real("var_turnaround")?;
    let mean_wait_s = real("mean_wait_s")?;
    let max_wait_s = real("max_wait_s")?;
    let p50_wait_s = real("p50_wait_s")?;
    let p95_wait_s = real("p95_wait_s")?;
    let p99_wait_s = real("p99_wait_s")?;
    let utilization = real("utilization")?;
    let throughput_per_s = real("throughput_per_s")?;
    let makespan_s = real("makespan_s")?;
    let mean_bounded_slowdown = real("mean_bounded_slowdown")?;
    let system_power = real("system_power")?;
    let internal_fragmentation = real("internal_fragmentation")?;
    let alloc_time_s = real("alloc_time_s")?;
    let sim_wall_s = real("sim_wall_s")?;
    let external_fragmentation = real("external_fragmentation")?;
    let mean_torus_dims = real("mean_torus_dims")?;
    let p50_bounded_slowdown = real("p50_bounded_slowdown")?;
    let p95_bounded_slowdown = real("p95_bounded_slowdown")?;
    let p99_bounded_slowdown = real("p99_bounded_slowdown")?;
    let backfilled_share = real("backfilled_share")?;
    let mean_reservation_error_s = real("mean_reservation_error_s")?;
    let frag_delayed_share = real("frag_delayed_share")?;
    let mean_free_regions = real("mean_free_regions")?;
    let head_fragmentation = real("head_fragmentation")?;
    let mean_estimate_error = real("mean_estimate_error")?;
    let underestimated_share = real("underestimated_share")?;
    Ok(RunMetrics {
        jobs: count("jobs", get("jobs")?)?,
        mean_turnaround_s,
        var_turnaround,
        mean_wait_s,
        max_wait_s,
        p50_wait_s,
        p95_wait_s,
        p99_wait_s,
        utilization,
        throughput_per_s,
        makespan_s,
        mean_bounded_slowdown,
        system_power,
        internal_fragmentation,
        killed_jobs: count("killed_jobs", get("killed_jobs")?)?,
        alloc_attempts: count("alloc_attempts", get("alloc_attempts")?)?,
        alloc_time_s,
        sim_wall_s,
        external_fragmentation,
        mean_torus_dims,
        p50_bounded_slowdown,
        p95_bounded_slowdown,
        p99_bounded_slowdown,
        backfilled_jobs: count("backfilled_jobs", get("backfilled_jobs")?)?,
        backfilled_share,
        mean_reservation_error_s,
        frag_delayed_jobs: count("frag_delayed_jobs", get("frag_delayed_jobs")?)?,
        frag_delayed_share,
        mean_free_regions,
        head_fragmentation,
        mean_estimate_error,
        underestimated_share,
    })
}

fn real(name: &str, v: MetricValue) -> anyhow::Result<f64> {
    match v {
        MetricValue::Real(x) => Ok(x),
        MetricValue::Count(_) => bail!("metric `{name}` should be a real number"),
    }
}

fn count(name: &str, v: MetricValue) -> anyhow::Result<u64> {
    match v {
        MetricValue::Count(n) => Ok(n),
        MetricValue::Real(_) => bail!("metric `{name}` should be a count"),
    }
}

/// Reads a metric written by [`to_text`]: counts as integers, reals in Rust's shortest round-trip
/// form (`inf` and `NaN` included, which JSON numbers cannot hold).
pub fn from_text(name: &'static str, text: &str) -> anyhow::Result<MetricValue> {
    let is_count = values(&RunMetrics::default())
        .into_iter()
        .any(|(n, v)| n == name && matches!(v, MetricValue::Count(_)));
    let v = if is_count {
        MetricValue::Count(
            text.parse()
                .with_context(|| format!("metric `{name}`: `{text}`"))?,
        )
    } else {
        MetricValue::Real(
            text.parse()
                .with_context(|| format!("metric `{name}`: `{text}`"))?,
        )
    };
    Ok(v)
}

/// A metric as exact text (see [`from_text`]).
pub fn to_text(v: MetricValue) -> String {
    match v {
        MetricValue::Count(n) => n.to_string(),
        MetricValue::Real(x) => x.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> RunMetrics {
        RunMetrics {
            jobs: 7,
            mean_turnaround_s: 0.1 + 0.2,
            system_power: f64::INFINITY,
            alloc_attempts: 99,
            sim_wall_s: 1e-7,
            ..RunMetrics::default()
        }
    }

    #[test]
    fn text_round_trip_is_exact() {
        let m = sample();
        let text: Vec<(&str, String)> = values(&m)
            .into_iter()
            .map(|(n, v)| (n, to_text(v)))
            .collect();
        let back = from_lookup(|name| {
            let t = &text.iter().find(|(n, _)| *n == name).unwrap().1;
            from_text(name, t)
        })
        .unwrap();
        assert_eq!(back, m);
        assert_eq!(back.mean_turnaround_s.to_bits(), (0.1f64 + 0.2).to_bits());
    }

    #[test]
    fn names_are_unique_and_include_the_run_json_keys() {
        let n = names();
        let mut sorted = n.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), n.len());
        for key in [
            "jobs",
            "mean_turnaround_s",
            "max_wait_s",
            "utilization",
            "sim_wall_s",
        ] {
            assert!(n.contains(&key), "{key}");
        }
    }

    #[test]
    fn the_durations_are_the_seconds_columns() {
        let seconds: Vec<&str> = names()
            .into_iter()
            .filter(|n| n.ends_with("_s") && !n.ends_with("_per_s"))
            .collect();
        assert_eq!(seconds, DURATIONS);
    }

    #[test]
    fn wrong_kinds_are_errors() {
        assert!(from_text("jobs", "1.5").is_err());
        assert!(from_lookup(|_| Ok(MetricValue::Count(1))).is_err());
    }
}
