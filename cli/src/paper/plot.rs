//! A paper figure as a PNG: one line per series with markers and 95% CI bars, the legend in its own
//! column, the sweep plots' palette (colour by scheduler, marker by allocator; colour by allocator
//! when the schedulers repeat, by position when both repeat), a log y axis when a curve explodes.
//! Drawn with the sweep figures' primitives (`report::plots`): canvas, frame, curves, legend rows.

use std::path::Path;

use anyhow::Context;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use super::data::FigureData;
use crate::report::palette::{self, Marker};
use crate::report::plots::{
    Area, FONT, Stroke, draw_curve, frame, legend_row, positive_span, register_font, write_figure,
};

/// Positive y values spanning more than this ratio are drawn on a log axis.
const LOG_RATIO: f64 = 100.0;

/// One curve: style and `(x, y, ci_low, ci_high)` points.
struct Curve {
    label: String,
    colour: RGBColor,
    marker: Marker,
    points: Vec<(f64, f64, f64, f64)>,
}

/// Draws `<dir>/<id>.png`, colours chosen among the figure's own series.
pub fn draw(dir: &Path, d: &FigureData) -> anyhow::Result<()> {
    draw_among(dir, d, &d.series())
}

/// Draws `<dir>/<id>.png` with the colours the series have among `family` (every series of the
/// figure's panel, in order), so a series looks the same in every figure drawn from that family.
pub fn draw_among(dir: &Path, d: &FigureData, family: &[String]) -> anyhow::Result<()> {
    register_font()?;
    let path = dir.join(format!("{}.png", d.id));
    let curves = curves(d, family);
    let paint = |plot: &Area<'_>, legend: &Area<'_>| -> anyhow::Result<()> {
        let title = if d.group.is_empty() {
            d.title.clone()
        } else {
            format!("{} {} — {}", d.group, d.id, d.title)
        };
        let (x_lo, x_hi) = x_bounds(&curves);
        let pad = ((x_hi - x_lo) * 0.03).max(0.05);
        let x = (x_lo - pad).max(0.0)..x_hi + pad;
        let (lo, hi) = y_range(&curves);
        let y_log = lo > 0.0 && (d.log_y || hi / lo > LOG_RATIO);
        let y_lin = 0.0..(hi * 1.05).max(1e-9);
        let x_log = (x_lo / 1.3..x_hi * 1.3).log_scale();
        match (d.log_x && x_lo > 0.0, y_log) {
            (true, true) => chart(
                plot,
                &title,
                d,
                x_log,
                (lo / 1.5..hi * 1.5).log_scale(),
                &curves,
            )?,
            (true, false) => chart(plot, &title, d, x_log, y_lin, &curves)?,
            (false, true) => chart(
                plot,
                &title,
                d,
                x,
                (lo / 1.5..hi * 1.5).log_scale(),
                &curves,
            )?,
            (false, false) => chart(plot, &title, d, x, y_lin, &curves)?,
        }
        legend_column(legend, &curves)
    };
    write_figure(&path, paint).with_context(|| format!("drawing {}", path.display()))
}

fn curves(d: &FigureData, family: &[String]) -> Vec<Curve> {
    d.series()
        .into_iter()
        .map(|label| {
            let (colour, marker) = palette::series_style(&label, family);
            let points = d
                .points
                .iter()
                .filter(|p| p.series == label && p.est.mean.is_finite())
                .map(|p| (p.x, p.est.mean, p.est.ci_low, p.est.ci_high))
                .collect();
            Curve {
                label,
                colour,
                marker,
                points,
            }
        })
        .collect()
}

/// Smallest and largest x (0..1 when there are no points).
fn x_bounds(curves: &[Curve]) -> (f64, f64) {
    let xs = curves.iter().flat_map(|c| c.points.iter().map(|p| p.0));
    let (lo, hi) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
        (l.min(x), h.max(x))
    });
    if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) }
}

/// Smallest positive and largest value (CI ends included).
fn y_range(curves: &[Curve]) -> (f64, f64) {
    positive_span(
        curves
            .iter()
            .flat_map(|c| c.points.iter().flat_map(|p| [p.1, p.2, p.3])),
    )
}

fn chart<X, Y>(
    area: &Area<'_>,
    title: &str,
    d: &FigureData,
    x: X,
    y: Y,
    curves: &[Curve],
) -> anyhow::Result<()>
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = frame(area, title, 26, x, y)?;
    chart
        .configure_mesh()
        .x_desc(d.x_label.as_str())
        .y_desc(d.y_label.as_str())
        .label_style((FONT, 20))
        .axis_desc_style((FONT, 24))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .draw()?;
    for c in curves {
        let line: Vec<(f64, f64)> = c
            .points
            .iter()
            .map(|p| (p.0, p.1))
            .filter(|p| p.1 > 0.0 || d.y_label.starts_with("util"))
            .collect();
        let bars: Vec<(f64, f64, f64)> = c
            .points
            .iter()
            .filter(|p| p.2 > 0.0 && p.3 > p.2)
            .map(|p| (p.0, p.2, p.3))
            .collect();
        let stroke = Stroke {
            colour: c.colour,
            width: 3,
            marker: c.marker,
            radius: 6,
        };
        draw_curve(&mut chart, area, line, &bars, stroke)?;
    }
    Ok(())
}

fn legend_column(area: &Area<'_>, curves: &[Curve]) -> anyhow::Result<()> {
    let (x0, top) = (10, 90);
    area.draw(&Text::new("Series", (x0, top - 40), (FONT, 22)))?;
    for (i, c) in curves.iter().enumerate() {
        let y = top + 36 * i as i32;
        let mark = Some((c.marker, c.colour));
        legend_row(area, (x0, y), 20, Some(c.colour), mark, &c.label)?;
    }
    Ok(())
}
