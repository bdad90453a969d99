//! Every [`RunMetrics`] field as a named column value, and back, through the library's one table
//! of metrics ([`pwa_replay::engine::columns::COLUMNS`]: name, unit, meaning).
//!
//! The names are the column names of `summary.csv`, `summary.parquet`, the cell cache and
//! `pwa-replay run --format json`; docs/OUTPUTS.md explains each (a test checks it names them all).

use anyhow::{Context, bail};
use pwa_replay::engine::RunMetrics;
use pwa_replay::engine::columns::{COLUMNS, column};
use pwa_replay::engine::observation::{OBSERVED, Observed};

pub use pwa_replay::engine::columns::Value as MetricValue;

/// Every metric, in column order.
pub fn values(m: &RunMetrics) -> Vec<(&'static str, MetricValue)> {
    COLUMNS.iter().map(|c| (c.name, (c.get)(m))).collect()
}

/// The observed measures of a run (`observed.window_delay` …, exact text) when it has any (an
/// experiment's cell that asks for them); none otherwise, so other entries keep their bytes.
pub fn observed_texts(m: &RunMetrics) -> Vec<(String, String)> {
    if m.observed == Observed::default() {
        return Vec::new();
    }
    OBSERVED
        .iter()
        .map(|c| {
            (
                format!("observed.{}", c.name),
                c.of(&m.observed).to_string(),
            )
        })
        .collect()
}

/// Sets the observed measures of `m` from entries written by [`observed_texts`] (absent: zero).
pub fn read_observed(
    m: &mut RunMetrics,
    get: impl Fn(&str) -> Option<String>,
) -> anyhow::Result<()> {
    for c in OBSERVED {
        let name = format!("observed.{}", c.name);
        if let Some(text) = get(&name) {
            let v: f64 = text
                .parse()
                .with_context(|| format!("metric `{name}`: `{text}`"))?;
            (c.set)(&mut m.observed, MetricValue::Real(v));
        }
    }
    Ok(())
}

/// Whether the metric `name` is a duration in seconds.
pub fn is_duration(name: &str) -> bool {
    column(name).is_some_and(|c| c.is_duration())
}

/// The metric names, in column order.
#[cfg(test)]
pub fn names() -> Vec<&'static str> {
    COLUMNS.iter().map(|c| c.name).collect()
}

/// Rebuilds metrics from a lookup by column name.
pub fn from_lookup(
    mut get: impl FnMut(&'static str) -> anyhow::Result<MetricValue>,
) -> anyhow::Result<RunMetrics> {
    let mut m = RunMetrics::default();
    for c in COLUMNS {
        if !(c.set)(&mut m, get(c.name)?) {
            bail!(
                "metric `{}` should be {}",
                c.name,
                if c.is_count() {
                    "a count"
                } else {
                    "a real number"
                }
            );
        }
    }
    Ok(m)
}

/// Reads a metric written by [`to_text`]: counts as integers, reals in Rust's shortest round-trip
/// form (`inf` and `NaN` included, which JSON numbers cannot hold).
pub fn from_text(name: &'static str, text: &str) -> anyhow::Result<MetricValue> {
    let is_count = column(name).is_some_and(|c| c.is_count());
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

    #[test]
    fn docs_outputs_explains_every_column_with_its_kind() {
        let doc = include_str!("../../../docs/OUTPUTS.md");
        for c in COLUMNS {
            let kind = if c.is_count() { "u64" } else { "f64" };
            let named = format!("`{}`", c.name);
            let row = doc.lines().any(|l| {
                let cells: Vec<&str> = l.split('|').map(str::trim).collect();
                cells.len() > 3 && cells[1].split(", ").any(|n| n == named) && cells[2] == kind
            });
            assert!(row, "docs/OUTPUTS.md has no row for {named} ({kind})");
        }
    }

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
        assert!(
            observed_texts(&m).is_empty(),
            "a summary alone writes no observed entries"
        );
        let mut seen = m;
        seen.observed.window_delay = 0.1 + 0.2;
        seen.observed.last_arrival = 9.5;
        let texts = observed_texts(&seen);
        let mut again = back;
        read_observed(&mut again, |n| {
            texts.iter().find(|(k, _)| k == n).map(|(_, v)| v.clone())
        })
        .unwrap();
        assert_eq!(again, seen);
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
        let durations: Vec<&str> = names().into_iter().filter(|n| is_duration(n)).collect();
        assert_eq!(seconds, durations);
    }

    #[test]
    fn wrong_kinds_are_errors() {
        assert!(from_text("jobs", "1.5").is_err());
        assert!(from_lookup(|_| Ok(MetricValue::Count(1))).is_err());
    }
}
