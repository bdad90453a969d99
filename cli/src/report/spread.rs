//! The replicas of a shaken sweep (`--shake N`): each cell's metrics are the mean over its N
//! replicas (counts rounded to the nearest integer), and the main metrics also get the half-width
//! of their 95% Student-t interval ([`pwa_replay::replicate::Estimate`]), written as `<name>_ci95`
//! columns (docs/OUTPUTS.md, "Confidence").

use anyhow::Context;
use pwa_replay::engine::RunMetrics;
use pwa_replay::replicate::Estimate;

use super::metrics::{self, MetricValue};

/// The metrics that get a `_ci95` column, in column order.
pub const MAIN: [&str; 7] = [
    "mean_turnaround_s",
    "mean_wait_s",
    "max_wait_s",
    "p95_wait_s",
    "utilization",
    "mean_bounded_slowdown",
    "makespan_s",
];

/// Replicas and interval half-widths of one cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    /// Replicas averaged.
    pub replicas: u64,
    /// 95% half-width of each metric of [`MAIN`], in that order.
    pub ci95: Vec<f64>,
}

impl Spread {
    /// The 95% half-width of `metric`, if it is one of [`MAIN`].
    pub fn half_width(&self, metric: &str) -> Option<f64> {
        let i = MAIN.iter().position(|m| *m == metric)?;
        self.ci95.get(i).copied()
    }
}

/// The column holding the half-width of `metric`.
pub fn column(metric: &str) -> String {
    format!("{metric}_ci95")
}

/// The mean metrics of `replicas` and their spread.
pub fn aggregate(replicas: &[RunMetrics]) -> anyhow::Result<(RunMetrics, Spread)> {
    anyhow::ensure!(!replicas.is_empty(), "no replicas to average");
    let per_rep: Vec<Vec<(&str, MetricValue)>> = replicas.iter().map(metrics::values).collect();
    let estimate = |name: &str| -> anyhow::Result<Estimate> {
        let xs = per_rep
            .iter()
            .map(|v| {
                v.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, x)| x.as_f64())
                    .with_context(|| format!("metric `{name}`"))
            })
            .collect::<anyhow::Result<Vec<f64>>>()?;
        Ok(Estimate::from_samples(&xs))
    };
    let mean = metrics::from_lookup(|name| {
        let m = estimate(name)?.mean;
        Ok(match per_rep[0].iter().find(|(n, _)| *n == name) {
            Some((_, MetricValue::Count(_))) => MetricValue::Count(m.round() as u64),
            _ => MetricValue::Real(m),
        })
    })?;
    let ci95 = MAIN
        .iter()
        .map(|name| Ok(estimate(name)?.half_width()))
        .collect::<anyhow::Result<Vec<f64>>>()?;
    Ok((
        mean,
        Spread {
            replicas: replicas.len() as u64,
            ci95,
        },
    ))
}

/// Whether two intervals `(mean, half-width)` overlap.
pub fn overlap(a: (f64, f64), b: (f64, f64)) -> bool {
    (a.0 - b.0).abs() <= a.1 + b.1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn means_and_half_widths_by_hand() {
        let m = |t: f64, jobs: u64| RunMetrics {
            jobs,
            mean_turnaround_s: t,
            ..RunMetrics::default()
        };
        let (mean, s) =
            aggregate(&[m(3.0, 5), m(4.0, 5), m(5.0, 6), m(6.0, 6), m(7.0, 6)]).unwrap();
        assert_eq!(mean.mean_turnaround_s, 5.0);
        assert_eq!(mean.jobs, 6, "5.6 rounds to 6");
        assert_eq!(s.replicas, 5);
        // s = √2.5, t(4) = 2.776: 2.776 · √(2.5 / 5).
        let h = s.half_width("mean_turnaround_s").unwrap();
        assert!((h - 2.776 * 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(s.half_width("mean_wait_s"), Some(0.0));
        assert_eq!(s.half_width("jobs"), None);
        assert!(overlap((5.0, 1.0), (6.5, 0.5)));
        assert!(!overlap((5.0, 1.0), (6.6, 0.5)));
    }
}
