//! The figures of a sweep (mean turnaround, maximum wait, mean wait, utilization and external
//! fragmentation against load factor, and on a flat machine the mean bounded slowdown, the measure
//! of backfilling studies), drawn with plotters into 1200×800 PNGs: one line per scheduler +
//! allocator with markers, the legend in its own column right of the plot (it never hides a line,
//! and widens for long labels), axis labels with units (a synthetic model's times in its time
//! units), the trace and machine in the title (shrunk to fit), and a log y axis on request or when a
//! curve explodes. A line that another would hide is drawn wider than it and named in the legend
//! ([`overlap`]). A shaken sweep (`--shake`) draws each curve's 95% interval as a translucent band of
//! its colour.
//!
//! The canvas, chart frame, curves, markers, tick labels and legend are `pub(crate)` primitives
//! that the paper figures (`study::plot`) draw with too, so both kinds of figure look alike.

use std::ops::Range;
use std::path::Path;
use std::sync::OnceLock;

use anyhow::{Context, anyhow};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use pwa_replay::engine::RunMetrics;
use pwa_replay::experiment::FigureData;

use super::human::TimeUnit;
use super::overlap::{self, Hidden};
use super::palette::{self, Marker};
use super::table::SummaryRow;

/// Environment variable naming the TrueType font used for plot text.
pub const FONT_ENV: &str = "PWA_REPLAY_FONT";
/// The font used when [`FONT_ENV`] is unset (Debian package `fonts-dejavu-core`).
pub const DEFAULT_FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
/// A y range whose max/min ratio exceeds this is drawn on a log scale.
pub const AUTO_LOG_RATIO: f64 = 100.0;

/// Figure size in pixels, legend column included.
pub(crate) const SIZE: (u32, u32) = (1200, 800);
/// Narrowest legend column right of the plot (it widens for long labels, up to [`LEGEND_MAX`]).
pub(crate) const LEGEND_W: u32 = 270;
/// Widest legend column; a label longer still is set smaller, then cut in the middle.
pub(crate) const LEGEND_MAX: u32 = 440;
/// Where a legend row's label starts, right of its line sample and marker.
const LABEL_X: i32 = 66;
/// Family name the plot font is registered under.
pub(crate) const FONT: &str = "sans-serif";

/// A part of a figure's canvas.
pub(crate) type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;

/// One figure: which metric, how it is labelled.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    /// File name in the output directory.
    pub file: &'static str,
    /// Title (trace and machine are appended).
    pub title: &'static str,
    /// Y axis label; a time's unit is appended ([`Figure::y_label`]).
    pub y_name: &'static str,
    /// Whether the metric is a time of the workload (seconds, or a model's time units).
    pub time: bool,
    /// The plotted metric.
    pub value: fn(&RunMetrics) -> f64,
    /// Its column name (the band of a shaken sweep is this metric's `_ci95`).
    pub metric: &'static str,
    /// Whether a log scale may be used (times yes, utilization no).
    pub may_log: bool,
    /// Drawn only for sweeps on a flat machine (bounded slowdown: the backfilling studies').
    pub flat_only: bool,
}

impl Figure {
    /// The y axis label: a time's with the workload's unit (`(s)`, `(time units)`).
    pub fn y_label(&self, unit: TimeUnit) -> String {
        match (self.time, unit) {
            (false, _) => self.y_name.to_string(),
            (true, TimeUnit::Seconds) => format!("{} (s)", self.y_name),
            (true, TimeUnit::Model) => format!("{} (time units)", self.y_name),
        }
    }
}

/// Every figure, in report order ([`figures`] picks a sweep's).
pub const FIGURES: [Figure; 6] = [
    Figure {
        file: "turnaround.png",
        title: "Mean turnaround time",
        y_name: "Mean turnaround time",
        time: true,
        value: |m| m.mean_turnaround_s,
        metric: "mean_turnaround_s",
        may_log: true,
        flat_only: false,
    },
    Figure {
        file: "max_wait.png",
        title: "Maximum waiting time",
        y_name: "Maximum waiting time",
        time: true,
        value: |m| m.max_wait_s,
        metric: "max_wait_s",
        may_log: true,
        flat_only: false,
    },
    Figure {
        file: "mean_wait.png",
        title: "Mean waiting time",
        y_name: "Mean waiting time",
        time: true,
        value: |m| m.mean_wait_s,
        metric: "mean_wait_s",
        may_log: true,
        flat_only: false,
    },
    Figure {
        file: "slowdown.png",
        title: "Mean bounded slowdown",
        y_name: "Mean bounded slowdown (τ = 10 s)",
        time: false,
        value: |m| m.mean_bounded_slowdown,
        metric: "mean_bounded_slowdown",
        may_log: true,
        flat_only: true,
    },
    Figure {
        file: "utilization.png",
        title: "Utilization",
        y_name: "Utilization (busy node-time / available)",
        time: false,
        value: |m| m.utilization,
        metric: "utilization",
        may_log: false,
        flat_only: false,
    },
    Figure {
        file: "fragmentation.png",
        title: "External fragmentation",
        y_name: "Idle nodes a waiting job could use (share of node-time)",
        time: false,
        value: |m| m.external_fragmentation,
        metric: "external_fragmentation",
        may_log: false,
        flat_only: false,
    },
];

/// The figures of a sweep of `rows`: every one, but bounded slowdown on flat machines only.
pub fn figures(rows: &[SummaryRow]) -> impl Iterator<Item = &'static Figure> {
    let flat = rows.iter().all(|r| r.machine.starts_with("flat:"));
    FIGURES.iter().filter(move |f| flat || !f.flat_only)
}

/// A line of a figure (also the series of `index.html`'s charts).
pub(crate) struct Curve {
    /// Series label.
    pub label: String,
    /// Scheduler label.
    pub scheduler: String,
    /// Allocator label.
    pub allocator: String,
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Marker shape.
    pub marker: Marker,
    /// `(load factor, value)`, increasing, finite values only.
    pub points: Vec<(f64, f64)>,
    /// The 95% interval `(x, low, high)` per point of a shaken sweep (empty otherwise).
    pub band: Vec<(f64, f64, f64)>,
}

/// What was drawn: which figure (its PNG is the figure's file in the directory drawn into), and
/// whether its y axis is logarithmic.
#[derive(Debug, Clone)]
pub struct Drawn {
    /// The figure.
    pub figure: &'static Figure,
    /// Log y axis.
    pub log_y: bool,
}

/// Draws the figures of `rows` ([`figures`]) into `dir`.
pub fn draw_all(dir: &Path, rows: &[SummaryRow], log_y: bool) -> anyhow::Result<Vec<Drawn>> {
    register_font()?;
    figures(rows)
        .map(|fig| {
            let curves = curves(rows, fig);
            let log = fig.may_log && (log_y || explodes(&curves));
            let (lo, hi) = y_span(fig, &curves, log);
            let pts: Vec<&[(f64, f64)]> = curves.iter().map(|c| &c.points[..]).collect();
            let hidden = overlap::hidden(&pts, (lo, hi), log);
            let entries = legend(&curves, &hidden);
            let path = dir.join(fig.file);
            write_figure(&path, legend_width(&entries), |plot, area| {
                draw(plot, rows, fig, &curves, &hidden, (lo, hi, log))?;
                draw_legend(area, &entries)
            })
            .with_context(|| format!("drawing {}", path.display()))?;
            Ok(Drawn {
                figure: fig,
                log_y: log,
            })
        })
        .collect()
}

/// Registers the plot font once per process, from [`FONT_ENV`] or [`DEFAULT_FONT`].
pub fn register_font() -> anyhow::Result<()> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        let path = std::env::var(FONT_ENV).unwrap_or_else(|_| DEFAULT_FONT.to_string());
        let bytes = std::fs::read(&path).map_err(|e| {
            format!(
                "cannot read the plot font {path}: {e}. Install the Debian package \
                 `fonts-dejavu-core` (`make setup`) or point {FONT_ENV} at a .ttf file"
            )
        })?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font(FONT, FontStyle::Normal, bytes)
            .map_err(|_| format!("{path} is not a TrueType font ({FONT_ENV})"))
    })
    .clone()
    .map_err(|e| anyhow!(e))
}

/// One curve per series, in order of first appearance, points sorted by load factor.
pub(crate) fn curves(rows: &[SummaryRow], fig: &Figure) -> Vec<Curve> {
    let mut out: Vec<Curve> = Vec::new();
    for r in rows {
        let p = (r.load_factor, (fig.value)(&r.metrics));
        let half = r.spread.as_ref().and_then(|s| s.half_width(fig.metric));
        let band = half.map(|h| (p.0, p.1 - h, p.1 + h));
        let label = r.series();
        match out.iter_mut().find(|c| c.label == label) {
            Some(c) => {
                c.points.push(p);
                c.band.extend(band);
            }
            None => out.push(Curve {
                label,
                scheduler: r.scheduler.clone(),
                allocator: r.allocator.clone(),
                colour: series_colour(r, rows),
                marker: palette::allocator_marker(&r.allocator),
                points: vec![p],
                band: band.into_iter().collect(),
            }),
        }
    }
    for c in &mut out {
        c.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        c.points.retain(|p| p.1.is_finite());
        c.band.sort_by(|a, b| a.0.total_cmp(&b.0));
        c.band.retain(|b| b.1.is_finite() && b.2.is_finite());
    }
    out
}

/// A series' colour among the sweep's `rows`: its scheduler's among theirs
/// ([`palette::scheduler_colour_among`]), or its allocator's when they have one scheduler.
pub(crate) fn series_colour(r: &SummaryRow, rows: &[SummaryRow]) -> RGBColor {
    let mut schedulers: Vec<&str> = Vec::new();
    for s in rows.iter().map(|r| r.scheduler.as_str()) {
        if !schedulers.contains(&s) {
            schedulers.push(s);
        }
    }
    if schedulers.len() == 1 {
        palette::allocator_colour(&r.allocator)
    } else {
        palette::scheduler_colour_among(&r.scheduler, &schedulers)
    }
}

/// Whether the positive values of the figure span more than [`AUTO_LOG_RATIO`].
fn explodes(curves: &[Curve]) -> bool {
    let (lo, hi) = positive_range(curves);
    hi / lo > AUTO_LOG_RATIO
}

/// Whether a study's figure (an experiment's, a paper's) has a log y axis: asked for, or its
/// positive values (means and interval ends) span more than [`AUTO_LOG_RATIO`]. Its PNG and its
/// chart in `index.html` both open so.
pub(crate) fn study_log_y(d: &FigureData) -> bool {
    let ys = d
        .points
        .iter()
        .filter(|p| p.est.mean.is_finite())
        .flat_map(|p| [p.est.mean, p.est.ci_low, p.est.ci_high]);
    let (lo, hi) = positive_span(ys);
    d.log_y || hi / lo > AUTO_LOG_RATIO
}

fn positive_range(curves: &[Curve]) -> (f64, f64) {
    positive_span(curves.iter().flat_map(|c| {
        let band = c.band.iter().flat_map(|b| [b.1, b.2]);
        c.points.iter().map(|p| p.1).chain(band)
    }))
}

/// Smallest and largest finite positive value (`(inf, 0)` when there is none).
pub(crate) fn positive_span(ys: impl Iterator<Item = f64>) -> (f64, f64) {
    ys.filter(|y| y.is_finite() && *y > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), y| {
            (lo.min(y), hi.max(y))
        })
}

/// Draws a figure into `path`: `paint` gets the plot area and the legend column (`legend_w`
/// pixels) of a white [`SIZE`] canvas. Drawn into `name.tmp-<pid>.png` (plotters picks the encoder
/// by extension) and renamed over `path`, so an interrupted run never leaves a truncated figure
/// under the final name.
pub(crate) fn write_figure(
    path: &Path,
    legend_w: u32,
    paint: impl FnOnce(&Area<'_>, &Area<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!("{stem}.tmp-{}.png", std::process::id()));
    let result = canvas(&tmp, legend_w, paint)
        .and_then(|()| std::fs::rename(&tmp, path).context("renaming the figure"));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn canvas(
    path: &Path,
    legend_w: u32,
    paint: impl FnOnce(&Area<'_>, &Area<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, legend) = root.split_horizontally(SIZE.0 - legend_w);
    paint(&plot, &legend)?;
    root.present()?;
    Ok(())
}

/// Width in pixels of `text` in the plot font at `size` points.
fn text_width(text: &str, size: u32) -> u32 {
    (FONT, f64::from(size))
        .into_font()
        .box_size(text)
        .map_or(0, |(w, _)| w)
}

/// `text` at the largest size from `size` down to `min` that is at most `width` pixels wide; at
/// `min`, cut in the middle with `…` until it fits. A title or label is never drawn past its area.
pub(crate) fn fit(text: &str, size: u32, min: u32, width: u32) -> (String, u32) {
    let size = (min..=size)
        .rev()
        .find(|&s| text_width(text, s) <= width)
        .unwrap_or(min);
    if text_width(text, size) <= width {
        return (text.to_string(), size);
    }
    let chars: Vec<char> = text.chars().collect();
    for keep in (1..chars.len()).rev() {
        let head = keep.div_ceil(2);
        let tail = keep - head;
        let cut: String = chars[..head]
            .iter()
            .chain(std::iter::once(&'…'))
            .chain(&chars[chars.len() - tail..])
            .collect();
        if text_width(&cut, size) <= width {
            return (cut, size);
        }
    }
    ("…".to_string(), size)
}

/// A chart on a figure's plot area, in f64 coordinates.
pub(crate) type Chart<'a, 'b, X, Y> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<X, Y>>;

/// A chart frame on `area`: `title` centred above it ([`title_lines`]: one line in a
/// `caption`-point font, or two when it would not fit), the house margin and label areas.
pub(crate) fn frame<'a, 'b, X, Y>(
    area: &'a Area<'b>,
    title: &str,
    caption: u32,
    x: X,
    y: Y,
) -> anyhow::Result<Chart<'a, 'b, X::CoordDescType, Y::CoordDescType>>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
{
    let area_w = area.dim_in_pixel().0;
    let lines = title_lines(title, caption, area_w.saturating_sub(40));
    let mut top = 12;
    for (text, size) in &lines {
        let left = (area_w.saturating_sub(text_width(text, *size)) / 2) as i32;
        area.draw(&Text::new(text.clone(), (left, top), (FONT, *size)))?;
        top += *size as i32 + 6;
    }
    Ok(ChartBuilder::on(area)
        .margin(20)
        .margin_top(top as u32 + 8)
        .x_label_area_size(70)
        .y_label_area_size(110)
        .build_cartesian_2d(x, y)?)
}

/// A title in lines of `width` pixels: whole in a `caption`-point font if it fits; else split at
/// its ` — ` into the figure's name and, smaller, what it is of (trace and machine); each line
/// shrunk, and at last cut in the middle, to fit ([`fit`]).
pub(crate) fn title_lines(title: &str, caption: u32, width: u32) -> Vec<(String, u32)> {
    if text_width(title, caption) <= width {
        return vec![(title.to_string(), caption)];
    }
    match title.split_once(" — ") {
        Some((name, of)) => vec![
            fit(name, caption, caption * 2 / 3, width),
            fit(of, caption * 2 / 3, caption / 2, width),
        ],
        None => vec![fit(title, caption, caption / 2, width)],
    }
}

/// How a curve is drawn: colour, line width, marker and its radius.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stroke {
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Line width in pixels.
    pub width: u32,
    /// Marker shape.
    pub marker: Marker,
    /// Marker radius in pixels.
    pub radius: i32,
}

/// A line through `pts`, then vertical bars `(x, low, high)` (confidence intervals), then a marker
/// on every point, on `chart` drawn on `area`.
pub(crate) fn draw_curve<X, Y>(
    chart: &mut Chart<'_, '_, X, Y>,
    area: &Area<'_>,
    pts: Vec<(f64, f64)>,
    bars: &[(f64, f64, f64)],
    s: Stroke,
) -> anyhow::Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    chart.draw_series(LineSeries::new(pts.clone(), s.colour.stroke_width(s.width)))?;
    for &(x, lo, hi) in bars {
        let bar = PathElement::new(vec![(x, lo), (x, hi)], s.colour.stroke_width(2));
        chart.draw_series(std::iter::once(bar))?;
    }
    for p in pts {
        let at = chart.backend_coord(&p);
        marker(area, at, s.marker, s.colour, s.radius)?;
    }
    Ok(())
}

/// One legend row at `(x0, y)`: an optional line sample, an optional marker, the label in a
/// `font`-pixel font (smaller, or cut, where it would not fit the column).
pub(crate) fn legend_row(
    area: &Area<'_>,
    (x0, y): (i32, i32),
    font: i32,
    line: Option<RGBColor>,
    mark: Option<(Marker, RGBColor)>,
    label: &str,
) -> anyhow::Result<()> {
    if let Some(colour) = line {
        let seg = vec![(x0, y), (x0 + 44, y)];
        area.draw(&PathElement::new(seg, colour.stroke_width(3)))?;
    }
    if let Some((shape, colour)) = mark {
        let (ox, oy) = area.get_base_pixel();
        marker(area, (ox + x0 + 22, oy + y), shape, colour, 6)?;
    }
    let room = area.dim_in_pixel().0 as i32 - x0 - (LABEL_X - 10) - 6;
    let (label, font) = fit(label, font as u32, 11, room.max(0) as u32);
    area.draw(&Text::new(
        label,
        (x0 + LABEL_X - 10, y - font as i32 / 2),
        (FONT, font),
    ))?;
    Ok(())
}

/// The y axis' span: on a log axis the positive values' with a margin (1…10 when there are
/// none), else from 0 to just above the largest value (1 for utilization-like figures at least).
fn y_span(fig: &Figure, curves: &[Curve], log: bool) -> (f64, f64) {
    if log {
        let (lo, hi) = positive_range(curves);
        let (lo, hi) = if lo.is_finite() {
            (lo, hi)
        } else {
            (1.0, 10.0)
        };
        return (lo / 1.5, hi * 1.5);
    }
    let hi = curves
        .iter()
        .flat_map(|c| {
            c.points
                .iter()
                .map(|p| p.1)
                .chain(c.band.iter().map(|b| b.2))
        })
        .fold(0.0f64, f64::max);
    let hi = match (fig.may_log, hi > 0.0) {
        (true, true) => hi * 1.05,
        (true, false) => 1.0,
        (false, _) => hi.max(1.0) * 1.02,
    };
    (0.0, hi)
}

fn draw(
    plot: &Area<'_>,
    rows: &[SummaryRow],
    fig: &Figure,
    curves: &[Curve],
    hidden: &[Option<Hidden>],
    (lo, hi, log): (f64, f64, bool),
) -> anyhow::Result<()> {
    let title = format!("{} — {} on {}", fig.title, rows[0].trace, rows[0].machine);
    let y_label = fig.y_label(TimeUnit::of(&rows[0].trace));
    let labels = (title.as_str(), y_label.as_str());
    let x = x_range(rows);
    if log {
        let y = (lo..hi).log_scale().with_key_points(log_keys(lo, hi));
        draw_chart(plot, labels, x, y, curves, hidden, &LOG_AXIS)
    } else {
        draw_chart(plot, labels, x, lo..hi, curves, hidden, &LINEAR_AXIS)
    }
}

fn x_range(rows: &[SummaryRow]) -> Range<f64> {
    let lo = rows
        .iter()
        .map(|r| r.load_factor)
        .fold(f64::INFINITY, f64::min);
    let hi = rows.iter().map(|r| r.load_factor).fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.03).max(0.05);
    (lo - pad).max(0.0)..hi + pad
}

/// How values map onto a y axis: which points can be drawn and how ticks read.
struct YAxis {
    shown: fn(&(f64, f64)) -> bool,
    tick: fn(f64) -> String,
}

const LOG_AXIS: YAxis = YAxis {
    shown: |p| p.1 > 0.0,
    tick: log_tick,
};

const LINEAR_AXIS: YAxis = YAxis {
    shown: |_| true,
    tick: number,
};

fn draw_chart<Y>(
    area: &Area<'_>,
    (title, y_label): (&str, &str),
    x: Range<f64>,
    y: Y,
    curves: &[Curve],
    hidden: &[Option<Hidden>],
    axis: &YAxis,
) -> anyhow::Result<()>
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = frame(area, title, 30, x, y)?;
    chart
        .configure_mesh()
        .x_desc("Load factor")
        .y_desc(y_label)
        .label_style((FONT, 20))
        .axis_desc_style((FONT, 24))
        .x_label_formatter(&|v| load_tick(*v))
        .y_label_formatter(&|v| (axis.tick)(*v))
        .y_labels(12)
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(205, 205, 205))
        .draw()?;
    for c in curves {
        draw_band(&mut chart, c, axis)?;
    }
    let (width, radius) = line_and_marker(curves.len());
    for (c, h) in curves.iter().zip(hidden) {
        let pts: Vec<(f64, f64)> = c
            .points
            .iter()
            .copied()
            .filter(|p| (axis.shown)(p))
            .collect();
        let stroke = Stroke {
            colour: c.colour,
            width,
            marker: c.marker,
            radius,
        };
        draw_casing(&mut chart, area, &c.points, h.as_ref(), stroke)?;
        draw_curve(&mut chart, area, pts, &[], stroke)?;
    }
    Ok(())
}

/// Where later curves hide the curve through `pts` ([`overlap`]): its covered points and the
/// segments between two of them drawn wider than stroke `s` — per curve above, 4 pixels more line
/// and 3 more marker radius — so that its colour shows around theirs.
pub(crate) fn draw_casing<X, Y>(
    chart: &mut Chart<'_, '_, X, Y>,
    area: &Area<'_>,
    pts: &[(f64, f64)],
    hidden: Option<&Hidden>,
    s: Stroke,
) -> anyhow::Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let Some(h) = hidden else {
        return Ok(());
    };
    let style = s.colour.stroke_width(s.width + 4 * h.depth);
    for pair in h.points.windows(2).filter(|w| w[1] == w[0] + 1) {
        let seg = vec![pts[pair[0]], pts[pair[1]]];
        chart.draw_series(std::iter::once(PathElement::new(seg, style)))?;
    }
    for &k in &h.points {
        let at = chart.backend_coord(&pts[k]);
        marker(area, at, s.marker, s.colour, s.radius + 3 * h.depth as i32)?;
    }
    Ok(())
}

/// A curve's 95% band: a translucent polygon of its colour along the upper ends and back along the
/// lower ones (lower ends a log axis cannot show are lifted to the lowest shown value).
fn draw_band<X, Y>(chart: &mut Chart<'_, '_, X, Y>, c: &Curve, axis: &YAxis) -> anyhow::Result<()>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    if c.band.len() < 2 {
        return Ok(());
    }
    let floor = c
        .band
        .iter()
        .map(|b| b.1)
        .filter(|y| (axis.shown)(&(0.0, *y)))
        .fold(f64::INFINITY, f64::min);
    let low = |y: f64| if (axis.shown)(&(0.0, y)) { y } else { floor };
    let mut outline: Vec<(f64, f64)> = c.band.iter().map(|b| (b.0, b.2)).collect();
    outline.extend(c.band.iter().rev().map(|b| (b.0, low(b.1))));
    if outline.iter().any(|p| !p.1.is_finite()) {
        return Ok(());
    }
    let fill = c.colour.mix(0.18).filled();
    chart.draw_series(std::iter::once(Polygon::new(outline, fill)))?;
    Ok(())
}

/// Line width and marker radius: thinner for crowded figures.
fn line_and_marker(curves: usize) -> (u32, i32) {
    if curves > 12 { (2, 4) } else { (3, 6) }
}

/// One line of the legend.
pub(crate) enum Entry {
    /// A section title.
    Title(String),
    /// A sample (line and/or marker) and its label.
    Item {
        /// The label.
        label: String,
        /// The line sample's colour.
        line: Option<RGBColor>,
        /// The marker sample.
        marker: Option<(Marker, RGBColor)>,
    },
    /// A remark under the item above it (where a hidden line is hidden).
    Note(String),
}

impl Entry {
    /// An item with the line and marker of a curve.
    pub(crate) fn sample(label: &str, colour: RGBColor, marker: Marker) -> Entry {
        Entry::Item {
            label: label.to_string(),
            line: Some(colour),
            marker: Some((marker, colour)),
        }
    }
}

/// The legend's last section when lines are hidden ([`overlap`]): each hidden line, and under it
/// by which line and where. `lines` are the curves' `(label, colour, marker)` and `xs` their x
/// values, in drawing order.
pub(crate) fn hidden_entries(
    lines: &[(&str, RGBColor, Marker)],
    xs: &[Vec<f64>],
    hidden: &[Option<Hidden>],
    x_text: fn(f64) -> String,
) -> Vec<Entry> {
    let mut out = Vec::new();
    for (i, h) in hidden.iter().enumerate() {
        let Some(h) = h else { continue };
        if out.is_empty() {
            out.push(Entry::Title("Lines under others".into()));
        }
        let (label, colour, marker) = lines[i];
        out.push(Entry::sample(label, colour, marker));
        out.push(Entry::Note(overlap::note(
            h,
            &xs[i],
            lines[h.under].0,
            x_text,
        )));
    }
    out
}

/// The legend: one entry per series; or, when several schedulers meet several allocators (colour
/// = scheduler, marker = allocator), one entry per scheduler and one per allocator; then the lines
/// drawn over others ([`hidden_entries`]).
fn legend(curves: &[Curve], hidden: &[Option<Hidden>]) -> Vec<Entry> {
    let mut out = policy_entries(curves);
    let lines: Vec<(&str, RGBColor, Marker)> = curves
        .iter()
        .map(|c| (c.label.as_str(), c.colour, c.marker))
        .collect();
    let xs: Vec<Vec<f64>> = curves
        .iter()
        .map(|c| c.points.iter().map(|p| p.0).collect())
        .collect();
    out.extend(hidden_entries(&lines, &xs, hidden, load_tick));
    out
}

/// One entry per series; or, when several schedulers meet several allocators, one per scheduler
/// and one per allocator.
pub(crate) fn policy_entries(curves: &[Curve]) -> Vec<Entry> {
    let mut scheds: Vec<&Curve> = Vec::new();
    let mut allocs: Vec<&Curve> = Vec::new();
    for c in curves {
        if !scheds.iter().any(|s| s.scheduler == c.scheduler) {
            scheds.push(c);
        }
        if !allocs.iter().any(|a| a.allocator == c.allocator) {
            allocs.push(c);
        }
    }
    if scheds.len() < 2 || allocs.len() < 2 {
        let items = curves
            .iter()
            .map(|c| Entry::sample(&c.label, c.colour, c.marker));
        return std::iter::once(Entry::Title("Policy".into()))
            .chain(items)
            .collect();
    }
    let grey = RGBColor(60, 60, 60);
    let mut out = vec![Entry::Title("Scheduler (colour)".into())];
    out.extend(scheds.iter().map(|c| Entry::Item {
        label: c.scheduler.clone(),
        line: Some(c.colour),
        marker: None,
    }));
    out.push(Entry::Title("Allocator (marker)".into()));
    out.extend(allocs.iter().map(|c| Entry::Item {
        label: c.allocator.clone(),
        line: None,
        marker: Some((c.marker, grey)),
    }));
    out
}

/// Row height and font size of a legend of `n` entries: rows shrink to fit the figure's height.
fn legend_rows(n: usize) -> (i32, i32) {
    let avail = SIZE.1 as i32 - LEGEND_TOP - 20;
    let row = (avail / n.max(1) as i32).clamp(16, 36);
    (row, (row * 14 / 25).clamp(12, 20))
}

/// Top of a legend's first row.
const LEGEND_TOP: i32 = 54;

/// The legend column's width: the widest entry's, between [`LEGEND_W`] and [`LEGEND_MAX`].
pub(crate) fn legend_width(entries: &[Entry]) -> u32 {
    let (_, font) = legend_rows(entries.len());
    let font = font as u32;
    let widest = entries
        .iter()
        .map(|e| match e {
            Entry::Title(t) => 10 + text_width(t, font + 2),
            Entry::Item { label, .. } => LABEL_X as u32 + text_width(label, font),
            Entry::Note(n) => LABEL_X as u32 + text_width(n, font - 2),
        })
        .max()
        .unwrap_or(0);
    (widest + 16).clamp(LEGEND_W, LEGEND_MAX)
}

/// The legend column, rows shrunk to fit the figure's height.
pub(crate) fn draw_legend(area: &Area<'_>, entries: &[Entry]) -> anyhow::Result<()> {
    let x0 = 10;
    let (row, font) = legend_rows(entries.len());
    for (i, e) in entries.iter().enumerate() {
        let y = LEGEND_TOP + row * i as i32;
        match e {
            Entry::Title(t) => {
                area.draw(&Text::new(
                    t.clone(),
                    (x0, y - font / 2 - 2),
                    (FONT, font + 2),
                ))?;
            }
            Entry::Item {
                label,
                line,
                marker: m,
            } => legend_row(area, (x0, y), font, *line, *m, label)?,
            Entry::Note(n) => {
                let room = area.dim_in_pixel().0.saturating_sub(LABEL_X as u32 + 6);
                let (n, size) = fit(n, (font - 2) as u32, 10, room);
                let grey = RGBColor(90, 90, 90);
                area.draw(&Text::new(
                    n,
                    (x0 + LABEL_X - 10, y - font / 2 - 4),
                    (FONT, size).into_font().color(&grey),
                ))?;
            }
        }
    }
    Ok(())
}

/// Draws a marker of radius `r` centred on an absolute pixel position.
pub(crate) fn marker(
    area: &Area<'_>,
    at: (i32, i32),
    m: Marker,
    colour: RGBColor,
    r: i32,
) -> anyhow::Result<()> {
    let (ox, oy) = area.get_base_pixel();
    let (x, y) = (at.0 - ox, at.1 - oy);
    let fill = colour.filled();
    match m {
        Marker::Circle => area.draw(&Circle::new((x, y), r, fill))?,
        Marker::Ring => area.draw(&Circle::new((x, y), r, colour.stroke_width(2)))?,
        Marker::Square => area.draw(&Rectangle::new([(x - r, y - r), (x + r, y + r)], fill))?,
        Marker::Triangle => area.draw(&Polygon::new(
            vec![(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)],
            fill,
        ))?,
        Marker::Diamond => area.draw(&Polygon::new(
            vec![
                (x, y - r - 1),
                (x + r + 1, y),
                (x, y + r + 1),
                (x - r - 1, y),
            ],
            fill,
        ))?,
        Marker::Cross => {
            let s = colour.stroke_width(3);
            area.draw(&PathElement::new(vec![(x - r, y - r), (x + r, y + r)], s))?;
            area.draw(&PathElement::new(vec![(x - r, y + r), (x + r, y - r)], s))?;
        }
    }
    Ok(())
}

/// A linear-axis tick label: thousands grouped with commas (`900,000`), small values with up to
/// three decimals.
pub(crate) fn number(v: f64) -> String {
    let a = v.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1000.0 {
        group(v.round() as i64)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        trim(format!("{v:.2}"))
    } else {
        trim(format!("{v:.3}"))
    }
}

/// A load-factor tick: one decimal on a 0.1 grid (`1.0`, `1.1`), else up to three (`0.25`).
pub(crate) fn load_tick(v: f64) -> String {
    if ((v * 10.0).round() - v * 10.0).abs() < 1e-9 {
        format!("{v:.1}")
    } else {
        trim(format!("{v:.3}"))
    }
}

/// Log-axis ticks at 1, 2 and 5 × 10^k inside `lo..hi` (none unless `0 < lo < hi`).
pub(crate) fn log_keys(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi.is_finite() && lo < hi) {
        return Vec::new();
    }
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    (a..=b)
        .flat_map(|k| [1.0, 2.0, 5.0].map(|m| m * 10f64.powi(k)))
        .filter(|v| (lo..=hi).contains(v))
        .collect()
}

/// A log-axis tick label: `2×10⁵`, `10⁶` from 10⁴ up, plain below.
pub(crate) fn log_tick(v: f64) -> String {
    if !(v.is_finite() && v >= 1e4) {
        return number(v);
    }
    let exp = v.log10().floor();
    let mantissa = v / 10f64.powf(exp);
    let sup: String = (exp as i64)
        .to_string()
        .chars()
        .map(|c| match c {
            '0' => '⁰',
            '1' => '¹',
            '2' => '²',
            '3' => '³',
            '4' => '⁴',
            '5' => '⁵',
            '6' => '⁶',
            '7' => '⁷',
            '8' => '⁸',
            _ => '⁹',
        })
        .collect();
    let m = trim(format!("{mantissa:.1}"));
    if m == "1" {
        format!("10{sup}")
    } else {
        format!("{m}×10{sup}")
    }
}

fn group(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    if n < 0 { format!("-{out}") } else { out }
}

fn trim(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tick_labels_read_well() {
        assert_eq!(number(0.0), "0");
        assert_eq!(number(0.25), "0.25");
        assert_eq!(number(12.5), "12.5");
        assert_eq!(number(45000.0), "45,000");
        assert_eq!(number(2_500_000.0), "2,500,000");
        assert_eq!(number(-1234.0), "-1,234");
        assert_eq!(log_tick(500.0), "500");
        assert_eq!(load_tick(1.0), "1.0");
        assert_eq!(load_tick(0.30000000000000004), "0.3");
        assert_eq!(load_tick(0.25), "0.25");
        assert_eq!(log_tick(200_000.0), "2×10⁵");
        assert_eq!(log_tick(1_000_000.0), "10⁶");
        assert_eq!(log_keys(0.5, 30.0), [0.5, 1.0, 2.0, 5.0, 10.0, 20.0]);
        assert!(log_keys(0.0, 30.0).is_empty(), "no log axis reaches 0");
    }

    #[test]
    fn auto_log_triggers_on_exploding_curves_only() {
        let c = |ys: &[f64]| Curve {
            label: "x".into(),
            scheduler: "x".into(),
            allocator: "x".into(),
            colour: BLACK,
            marker: Marker::Circle,
            points: ys.iter().enumerate().map(|(i, y)| (i as f64, *y)).collect(),
            band: vec![],
        };
        assert!(!explodes(&[c(&[10.0, 50.0, 900.0])]));
        assert!(explodes(&[c(&[10.0, 50.0]), c(&[0.0, 5000.0])]));
        assert!(!explodes(&[c(&[0.0, 0.0])]));
    }

    fn curve(s: &str, a: &str, points: &[(f64, f64)]) -> Curve {
        Curve {
            label: format!("{s} + {a}"),
            scheduler: s.into(),
            allocator: a.into(),
            colour: palette::scheduler_colour(s),
            marker: palette::allocator_marker(a),
            points: points.to_vec(),
            band: vec![],
        }
    }

    fn titles(e: &[Entry]) -> Vec<String> {
        e.iter()
            .map(|e| match e {
                Entry::Title(t) => format!("# {t}"),
                Entry::Item { label, .. } => label.clone(),
                Entry::Note(n) => format!("({n})"),
            })
            .collect()
    }

    #[test]
    fn legend_is_factorised_only_when_both_labels_vary() {
        let c = |s: &str, a: &str| curve(s, a, &[]);
        let per_series = legend(&[c("fcfs", "mpl"), c("oo", "mpl")], &[None, None]);
        assert_eq!(titles(&per_series), ["# Policy", "fcfs + mpl", "oo + mpl"]);
        let grid: Vec<Curve> = ["fcfs", "oo", "delay"]
            .iter()
            .flat_map(|s| ["ff", "mpl"].map(|a| c(s, a)))
            .collect();
        assert_eq!(
            titles(&legend(&grid, &vec![None; grid.len()])),
            [
                "# Scheduler (colour)",
                "fcfs",
                "oo",
                "delay",
                "# Allocator (marker)",
                "ff",
                "mpl"
            ]
        );
    }

    #[test]
    fn a_line_under_another_is_named_in_the_legend_with_where() {
        let oo = curve("oo", "mpl", &[(0.5, 10.0), (1.0, 20.0), (1.5, 90.0)]);
        let window = curve(
            "window:240",
            "mpl",
            &[(0.5, 10.0), (1.0, 20.0), (1.5, 300.0)],
        );
        let pts: Vec<&[(f64, f64)]> = vec![&oo.points, &window.points];
        let hidden = overlap::hidden(&pts, (0.0, 300.0), false);
        let curves = [oo, window];
        assert_eq!(
            titles(&legend(&curves, &hidden)),
            [
                "# Policy",
                "oo + mpl",
                "window:240 + mpl",
                "# Lines under others",
                "oo + mpl",
                "(under window:240 + mpl at 0.5–1.0)"
            ]
        );
    }

    #[test]
    fn titles_and_labels_fit_their_room() {
        register_font().expect("the plot font");
        let title = "Mean turnaround time — synth:uniform-decreasing,mesh=32x32,jobs=10000,rate=1 \
                     on mesh:32x32";
        let lines = title_lines(title, 30, 780);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0], ("Mean turnaround time".to_string(), 30));
        assert!(lines[1].0.starts_with("synth:") && lines[1].0.ends_with("on mesh:32x32"));
        assert!(
            lines.iter().all(|(t, s)| text_width(t, *s) <= 780),
            "{lines:?}"
        );
        assert_eq!(
            title_lines("Utilization — kth-sp2 on flat:100", 30, 780).len(),
            1
        );
        let (cut, size) = fit(&"x".repeat(500), 20, 12, 300);
        assert!(cut.contains('…') && text_width(&cut, size) <= 300, "{cut}");
        let entries = [Entry::sample(
            "conservative+flat+user",
            palette::scheduler_colour("conservative"),
            Marker::Circle,
        )];
        let w = legend_width(&entries);
        assert!(
            w > LEGEND_W && w >= LABEL_X as u32 + text_width("conservative+flat+user", 20),
            "{w}"
        );
    }
}
