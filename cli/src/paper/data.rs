//! A figure's data ([`FigureData`], the library's: points `series, x, y, ci_low, ci_high` in long
//! format) projected from the lines' results, and its CSV file.

use std::path::Path;

use anyhow::Context;
use pwa_replay::replicate::Estimate;

use super::exec::Results;
use super::figures::{Axis, Figure, Metric};

pub use pwa_replay::experiment::{FigureData, Point};

/// Writes `<dir>/<id>.csv`.
pub fn write_csv(d: &FigureData, dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(format!("{}.csv", d.id));
    std::fs::write(&path, d.csv()).with_context(|| format!("writing {}", path.display()))
}

/// The points of a synthetic figure from the lines' results. Utilization stays a fraction.
pub fn project(fig: &Figure, results: &Results) -> FigureData {
    let mut points = Vec::new();
    for line in &fig.lines {
        let Some(runs) = results.get(&line.id()) else {
            continue;
        };
        for (x, r) in runs.iter().filter(|(x, _)| fig.xs.contains(x)) {
            points.push(Point {
                series: line.label(),
                x: *x,
                est: Estimate::of(r, |m| fig.metric.of(m)),
            });
        }
    }
    FigureData {
        group: fig.paper.dir().to_string(),
        id: fig.id.to_string(),
        title: fig.title.clone(),
        x_label: fig.axis.label().to_string(),
        y_label: match fig.metric {
            Metric::Utilization => fig.metric.label().to_string(),
            Metric::VarTurnaround => format!("{} (time units²)", fig.metric.label()),
            _ => format!("{} (time units)", fig.metric.label()),
        },
        log_x: fig.axis == Axis::WindowK,
        log_y: false,
        points,
    }
}
