//! Who won and who lost, as a figure: in a sweep over a flat machine, each policy's users' mean
//! waits sorted from the best-served user to the worst (one line per policy, the policy colours
//! of the other figures), at the load factor of the key numbers ([`tables::common_load`]). Drawn
//! from the per-user tables of the sweep's cells (`users/STEM.parquet`); a series whose table is
//! missing (a merged sweep whose shards did not keep them) is left out, and without any the
//! figure is not drawn.

use std::path::Path;

use anyhow::Context;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use polars::prelude::{ParquetReader, SerReader};
use pwa_replay::sweep::Cell;

use super::jobs;
use super::palette;
use super::plots::{self, Curve, Stroke};
use super::table::SummaryRow;
use super::tables;

/// The figure's file name.
pub const FILE: &str = "user_waits.png";

/// Draws [`FILE`] into `dir` when the sweep's machine is flat and some per-user table is there:
/// whether its y axis is logarithmic, or `None` when not drawn.
pub fn draw(dir: &Path, rows: &[SummaryRow]) -> anyhow::Result<Option<bool>> {
    if !rows.first().is_some_and(|r| r.machine.starts_with("flat:")) {
        return Ok(None);
    }
    let Some(lf) = tables::common_load(rows) else {
        return Ok(None);
    };
    let curves = curves(dir, rows, lf)?;
    if curves.is_empty() {
        return Ok(None);
    }
    let path = dir.join(FILE);
    let title = format!(
        "Users' mean waits, sorted — {} on {} at load factor {lf}",
        rows[0].trace, rows[0].machine
    );
    let (lo, hi) = plots::positive_span(curves.iter().flat_map(|c| c.points.iter().map(|p| p.1)));
    let log = hi / lo > plots::AUTO_LOG_RATIO;
    let users = curves.iter().map(|c| c.points.len()).max().unwrap_or(1) as f64;
    let x = 0.0..users + 1.0;
    let entries = plots::policy_entries(&curves);
    plots::write_figure(&path, plots::legend_width(&entries), |plot, legend| {
        if log {
            let (lo, hi) = (lo / 1.5, hi * 1.5);
            let y = (lo..hi)
                .log_scale()
                .with_key_points(plots::log_keys(lo, hi));
            let mut chart = plots::frame(plot, &title, 26, x, y)?;
            axes(
                &mut chart,
                plots::log_tick,
                "User's mean waiting time (s, log scale)",
            )?;
            lines(&mut chart, plot, &curves, |p| p.1 > 0.0)?;
        } else {
            let mut chart = plots::frame(plot, &title, 26, x, 0.0..hi.max(1.0) * 1.05)?;
            axes(&mut chart, plots::number, "User's mean waiting time (s)")?;
            lines(&mut chart, plot, &curves, |_| true)?;
        }
        plots::draw_legend(legend, &entries)
    })
    .with_context(|| format!("drawing {}", path.display()))?;
    Ok(Some(log))
}

/// The mesh, axis labels and ticks (`tick` for the y axis).
fn axes<Y>(
    chart: &mut plots::Chart<'_, '_, RangedCoordf64, Y>,
    tick: fn(f64) -> String,
    y_desc: &str,
) -> anyhow::Result<()>
where
    Y: Ranged<ValueType = f64> + ValueFormatter<f64>,
{
    chart
        .configure_mesh()
        .x_desc("Users, from the least to the most waited (rank)")
        .y_desc(y_desc)
        .label_style((plots::FONT, 20))
        .axis_desc_style((plots::FONT, 24))
        .x_label_formatter(&|v| format!("{v:.0}"))
        .y_label_formatter(&|v| tick(*v))
        .y_labels(12)
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(205, 205, 205))
        .draw()?;
    Ok(())
}

/// Each curve, its points `shown` (a log axis cannot show 0), with small markers.
fn lines<Y>(
    chart: &mut plots::Chart<'_, '_, RangedCoordf64, Y>,
    area: &plots::Area<'_>,
    curves: &[Curve],
    shown: fn(&(f64, f64)) -> bool,
) -> anyhow::Result<()>
where
    Y: Ranged<ValueType = f64>,
{
    for c in curves {
        let stroke = Stroke {
            colour: c.colour,
            width: 3,
            marker: c.marker,
            radius: 2,
        };
        let pts = c.points.iter().copied().filter(shown).collect();
        plots::draw_curve(chart, area, pts, &[], stroke)?;
    }
    Ok(())
}

/// One curve per series with a per-user table at load factor `lf`: (rank, mean wait), sorted.
fn curves(dir: &Path, rows: &[SummaryRow], lf: f64) -> anyhow::Result<Vec<Curve>> {
    let mut out = Vec::new();
    for (label, pts) in tables::series(rows) {
        let Some(r) = pts.iter().find(|r| r.load_factor == lf) else {
            continue;
        };
        let Some(path) = table_of(dir, r) else {
            continue;
        };
        let mut waits = mean_waits(&path)?;
        waits.sort_by(f64::total_cmp);
        out.push(Curve {
            label,
            scheduler: r.scheduler.clone(),
            allocator: r.allocator.clone(),
            colour: plots::series_colour(r, rows),
            marker: palette::allocator_marker(&r.allocator),
            points: (1..).map(f64::from).zip(waits).collect(),
            band: Vec::new(),
        });
    }
    Ok(out)
}

/// The per-user table of a summary row's cell, when it is there.
fn table_of(dir: &Path, r: &SummaryRow) -> Option<std::path::PathBuf> {
    let cell = Cell {
        scheduler: r.scheduler.parse().ok()?,
        allocator: r.allocator.parse().ok()?,
        load_factor: r.load_factor,
        estimate: r.estimate.parse().ok()?,
    };
    Some(jobs::users_table_path(dir, &cell)).filter(|p| p.is_file())
}

/// The `mean_wait_s` column of a per-user table.
fn mean_waits(path: &Path) -> anyhow::Result<Vec<f64>> {
    let read = || -> anyhow::Result<Vec<f64>> {
        let file = std::fs::File::open(path)?;
        let df = ParquetReader::new(file).finish()?;
        Ok(df
            .column("mean_wait_s")?
            .f64()?
            .into_no_null_iter()
            .collect())
    };
    read().with_context(|| format!("reading {}", path.display()))
}
