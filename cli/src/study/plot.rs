//! A paper figure as a PNG: one line per series with markers and 95% CI bars, the legend in its own
//! column, the sweep plots' palette (colour by scheduler, marker by allocator; colour by allocator
//! when the schedulers repeat, by position when both repeat), a log y axis when a curve explodes
//! (the rule `index.html` opens the figure's chart with, [`plots::study_log_y`]), ticks written as
//! numbers (`16,000`, `2×10⁵`), and a line another would hide drawn wider and named in the legend.
//! Drawn with the sweep figures' primitives (`report::plots`): canvas, frame, curves, ticks, legend.

use std::path::Path;

use anyhow::Context;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

use super::data::FigureData;
use crate::report::overlap::{self, Hidden};
use crate::report::palette::{self, Marker};
use crate::report::plots::{
    self, Area, Entry, FONT, Stroke, draw_casing, draw_curve, draw_legend, frame, hidden_entries,
    legend_width, log_keys, log_tick, number, positive_span, register_font, write_figure,
};

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
    let (x_lo, x_hi) = x_bounds(&curves);
    let (lo, hi) = y_range(&curves);
    let y_log = plots::study_log_y(d);
    let span = if y_log {
        (lo / 1.5, hi * 1.5)
    } else {
        (0.0, (hi * 1.05).max(1e-9))
    };
    let lines: Vec<Vec<(f64, f64)>> = curves
        .iter()
        .map(|c| c.points.iter().map(|p| (p.0, p.1)).collect())
        .collect();
    let pts: Vec<&[(f64, f64)]> = lines.iter().map(Vec::as_slice).collect();
    let hidden = overlap::hidden(&pts, span, y_log);
    let entries = legend(&curves, &lines, &hidden);
    let paint = |plot: &Area<'_>, legend: &Area<'_>| -> anyhow::Result<()> {
        let title = if d.group.is_empty() {
            d.title.clone()
        } else {
            format!("{} {} — {}", d.group, d.id, d.title)
        };
        let on = On {
            title: &title,
            d,
            curves: &curves,
            hidden: &hidden,
            y_log,
        };
        let pad = ((x_hi - x_lo) * 0.03).max(0.05);
        let x = (x_lo - pad).max(0.0)..x_hi + pad;
        let log = |(lo, hi): (f64, f64)| (lo..hi).log_scale().with_key_points(log_keys(lo, hi));
        let x_log = (x_lo / 1.3, x_hi * 1.3);
        let y_lin = span.0..span.1;
        match (d.log_x && x_lo > 0.0, y_log) {
            (true, true) => chart(plot, &on, log(x_log), log(span))?,
            (true, false) => chart(plot, &on, log(x_log), y_lin)?,
            (false, true) => chart(plot, &on, x, log(span))?,
            (false, false) => chart(plot, &on, x, y_lin)?,
        }
        draw_legend(legend, &entries)
    };
    write_figure(&path, legend_width(&entries), paint)
        .with_context(|| format!("drawing {}", path.display()))
}

/// What a chart draws: its title, figure, curves, which of them are hidden, the y scale.
struct On<'a> {
    title: &'a str,
    d: &'a FigureData,
    curves: &'a [Curve],
    hidden: &'a [Option<Hidden>],
    y_log: bool,
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

fn chart<X, Y>(area: &Area<'_>, on: &On<'_>, x: X, y: Y) -> anyhow::Result<()>
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let d = on.d;
    let (x_tick, y_tick) = (tick(d.log_x), tick(on.y_log));
    let mut chart = frame(area, on.title, 26, x, y)?;
    chart
        .configure_mesh()
        .x_desc(d.x_label.as_str())
        .y_desc(d.y_label.as_str())
        .label_style((FONT, 20))
        .axis_desc_style((FONT, 24))
        .x_label_formatter(&|v| x_tick(*v))
        .y_label_formatter(&|v| y_tick(*v))
        .light_line_style(RGBColor(235, 235, 235))
        .bold_line_style(RGBColor(200, 200, 200))
        .draw()?;
    for (c, h) in on.curves.iter().zip(on.hidden) {
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
        let all: Vec<(f64, f64)> = c.points.iter().map(|p| (p.0, p.1)).collect();
        draw_casing(&mut chart, area, &all, h.as_ref(), stroke)?;
        draw_curve(&mut chart, area, line, &bars, stroke)?;
    }
    Ok(())
}

/// How an axis' ticks read: `2×10⁵` and `10⁴` on a log axis, `16,000` on a linear one (not
/// plotters' `16000.0`).
fn tick(log: bool) -> fn(f64) -> String {
    if log { log_tick } else { number }
}

/// The legend: every series, then the lines drawn over others.
fn legend(curves: &[Curve], lines: &[Vec<(f64, f64)>], hidden: &[Option<Hidden>]) -> Vec<Entry> {
    let mut out = vec![Entry::Title("Series".into())];
    out.extend(
        curves
            .iter()
            .map(|c| Entry::sample(&c.label, c.colour, c.marker)),
    );
    let samples: Vec<(&str, RGBColor, Marker)> = curves
        .iter()
        .map(|c| (c.label.as_str(), c.colour, c.marker))
        .collect();
    let xs: Vec<Vec<f64>> = lines
        .iter()
        .map(|l| l.iter().map(|p| p.0).collect())
        .collect();
    out.extend(hidden_entries(&samples, &xs, hidden, number));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_read_as_numbers_on_both_scales() {
        assert_eq!(tick(true)(10_000.0), "10⁴");
        assert_eq!(tick(true)(20_000.0), "2×10⁴");
        assert_eq!(tick(true)(5_000.0), "5,000");
        assert_eq!(tick(false)(16_000.0), "16,000");
        assert_eq!(tick(false)(0.55), "0.55");
    }
}
