//! The five figures of a sweep (mean turnaround, maximum wait, mean wait, utilization and external
//! fragmentation against load factor), drawn with plotters into 1200×800 PNGs: one line per scheduler + allocator with markers,
//! the legend in its own column right of the plot (it never hides a line), axis labels with units,
//! the trace and machine in the title, and a log y axis on request or when a curve explodes. A shaken
//! sweep (`--shake`) draws each curve's 95% interval as a translucent band of its colour.
//!
//! The canvas, chart frame, curves, markers and legend rows are `pub(crate)` primitives that the
//! paper figures (`paper::plot`) draw with too, so both kinds of figure look alike.

use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{Context, anyhow};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use pwa_replay::engine::RunMetrics;

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
/// Width of the legend column right of the plot.
pub(crate) const LEGEND_W: u32 = 270;
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
    /// Y axis label, with unit.
    pub y_label: &'static str,
    /// The plotted metric.
    pub value: fn(&RunMetrics) -> f64,
    /// Its column name (the band of a shaken sweep is this metric's `_ci95`).
    pub metric: &'static str,
    /// Whether a log scale may be used (times yes, utilization no).
    pub may_log: bool,
}

/// The five figures, in report order.
pub const FIGURES: [Figure; 5] = [
    Figure {
        file: "turnaround.png",
        title: "Mean turnaround time",
        y_label: "Mean turnaround time (s)",
        value: |m| m.mean_turnaround_s,
        metric: "mean_turnaround_s",
        may_log: true,
    },
    Figure {
        file: "max_wait.png",
        title: "Maximum waiting time",
        y_label: "Maximum waiting time (s)",
        value: |m| m.max_wait_s,
        metric: "max_wait_s",
        may_log: true,
    },
    Figure {
        file: "mean_wait.png",
        title: "Mean waiting time",
        y_label: "Mean waiting time (s)",
        value: |m| m.mean_wait_s,
        metric: "mean_wait_s",
        may_log: true,
    },
    Figure {
        file: "utilization.png",
        title: "Utilization",
        y_label: "Utilization (busy node-time / available)",
        value: |m| m.utilization,
        metric: "utilization",
        may_log: false,
    },
    Figure {
        file: "fragmentation.png",
        title: "External fragmentation",
        y_label: "Idle nodes a waiting job could use (share of node-time)",
        value: |m| m.external_fragmentation,
        metric: "external_fragmentation",
        may_log: false,
    },
];

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

/// What was drawn: file and whether its y axis is logarithmic.
#[derive(Debug, Clone, PartialEq)]
pub struct Drawn {
    /// The PNG written.
    pub path: PathBuf,
    /// The figure.
    pub file: &'static str,
    /// Log y axis.
    pub log_y: bool,
}

/// Draws the figures of `rows` into `dir`.
pub fn draw_all(dir: &Path, rows: &[SummaryRow], log_y: bool) -> anyhow::Result<Vec<Drawn>> {
    register_font()?;
    FIGURES
        .iter()
        .map(|fig| {
            let curves = curves(rows, fig);
            let log = fig.may_log && (log_y || explodes(&curves));
            let path = dir.join(fig.file);
            write_figure(&path, |plot, legend| {
                draw(plot, legend, rows, fig, &curves, log)
            })
            .with_context(|| format!("drawing {}", path.display()))?;
            Ok(Drawn {
                path,
                file: fig.file,
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
    let one_scheduler = rows.iter().all(|r| r.scheduler == rows[0].scheduler);
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
                colour: series_colour(r, one_scheduler),
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

/// A series' colour: its scheduler's, or its allocator's in a sweep of `one_scheduler`.
pub(crate) fn series_colour(r: &SummaryRow, one_scheduler: bool) -> RGBColor {
    if one_scheduler {
        palette::allocator_colour(&r.allocator)
    } else {
        palette::scheduler_colour(&r.scheduler)
    }
}

/// Whether the positive values of the figure span more than [`AUTO_LOG_RATIO`].
fn explodes(curves: &[Curve]) -> bool {
    let (lo, hi) = positive_range(curves);
    hi / lo > AUTO_LOG_RATIO
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

/// Draws a figure into `path`: `paint` gets the plot area and the legend column of a white
/// [`SIZE`] canvas. Drawn into `name.tmp-<pid>.png` (plotters picks the encoder by extension) and
/// renamed over `path`, so an interrupted run never leaves a truncated figure under the final name.
pub(crate) fn write_figure(
    path: &Path,
    paint: impl FnOnce(&Area<'_>, &Area<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!("{stem}.tmp-{}.png", std::process::id()));
    let result = canvas(&tmp, paint)
        .and_then(|()| std::fs::rename(&tmp, path).context("renaming the figure"));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn canvas(
    path: &Path,
    paint: impl FnOnce(&Area<'_>, &Area<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, legend) = root.split_horizontally(SIZE.0 - LEGEND_W);
    paint(&plot, &legend)?;
    root.present()?;
    Ok(())
}

/// A chart on a figure's plot area, in f64 coordinates.
pub(crate) type Chart<'a, 'b, X, Y> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<X, Y>>;

/// A chart frame on `area`: `title` in a `caption`-point font, the house margin and label areas.
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
    Ok(ChartBuilder::on(area)
        .caption(title, (FONT, caption))
        .margin(20)
        .x_label_area_size(70)
        .y_label_area_size(110)
        .build_cartesian_2d(x, y)?)
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
/// `font`-pixel font.
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
    area.draw(&Text::new(
        label.to_string(),
        (x0 + 56, y - font / 2),
        (FONT, font),
    ))?;
    Ok(())
}

fn draw(
    plot: &Area<'_>,
    legend: &Area<'_>,
    rows: &[SummaryRow],
    fig: &Figure,
    curves: &[Curve],
    log: bool,
) -> anyhow::Result<()> {
    let title = format!("{} — {} on {}", fig.title, rows[0].trace, rows[0].machine);
    let x = x_range(rows);
    if log {
        let (lo, hi) = positive_range(curves);
        let (lo, hi) = if lo.is_finite() {
            (lo, hi)
        } else {
            (1.0, 10.0)
        };
        let (lo, hi) = (lo / 1.5, hi * 1.5);
        let y = (lo..hi).log_scale().with_key_points(log_keys(lo, hi));
        draw_chart(plot, &title, fig, x, y, curves, &LOG_AXIS)?;
    } else {
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
        draw_chart(plot, &title, fig, x, 0.0..hi, curves, &LINEAR_AXIS)?;
    }
    draw_legend(legend, curves)
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
    title: &str,
    fig: &Figure,
    x: Range<f64>,
    y: Y,
    curves: &[Curve],
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
        .y_desc(fig.y_label)
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
    for c in curves {
        let pts: Vec<(f64, f64)> = c
            .points
            .iter()
            .copied()
            .filter(|p| (axis.shown)(p))
            .collect();
        let (width, radius) = line_and_marker(curves.len());
        let stroke = Stroke {
            colour: c.colour,
            width,
            marker: c.marker,
            radius,
        };
        draw_curve(&mut chart, area, pts, &[], stroke)?;
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
enum Entry {
    /// A section title.
    Title(String),
    /// A sample (line and/or marker) and its label.
    Item {
        label: String,
        line: Option<RGBColor>,
        marker: Option<(Marker, RGBColor)>,
    },
}

/// The legend: one entry per series; or, when several schedulers meet several allocators (colour
/// = scheduler, marker = allocator), one entry per scheduler and one per allocator.
fn legend(curves: &[Curve]) -> Vec<Entry> {
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
        let items = curves.iter().map(|c| Entry::Item {
            label: c.label.clone(),
            line: Some(c.colour),
            marker: Some((c.marker, c.colour)),
        });
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

/// The legend column, rows shrunk to fit the figure's height.
pub(crate) fn draw_legend(area: &Area<'_>, curves: &[Curve]) -> anyhow::Result<()> {
    let entries = legend(curves);
    let (x0, top) = (10, 54);
    let avail = SIZE.1 as i32 - top - 20;
    let row = (avail / entries.len().max(1) as i32).clamp(16, 36);
    let font = (row * 14 / 25).clamp(12, 20);
    for (i, e) in entries.iter().enumerate() {
        let y = top + row * i as i32;
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
fn load_tick(v: f64) -> String {
    if ((v * 10.0).round() - v * 10.0).abs() < 1e-9 {
        format!("{v:.1}")
    } else {
        trim(format!("{v:.3}"))
    }
}

/// Log-axis ticks at 1, 2 and 5 × 10^k inside `lo..hi`.
pub(crate) fn log_keys(lo: f64, hi: f64) -> Vec<f64> {
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

    #[test]
    fn legend_is_factorised_only_when_both_labels_vary() {
        let c = |s: &str, a: &str| Curve {
            label: format!("{s} + {a}"),
            scheduler: s.into(),
            allocator: a.into(),
            colour: palette::scheduler_colour(s),
            marker: palette::allocator_marker(a),
            points: vec![],
            band: vec![],
        };
        let titles = |e: &[Entry]| -> Vec<String> {
            e.iter()
                .map(|e| match e {
                    Entry::Title(t) => format!("# {t}"),
                    Entry::Item { label, .. } => label.clone(),
                })
                .collect()
        };
        let per_series = legend(&[c("fcfs", "mpl"), c("oo", "mpl")]);
        assert_eq!(titles(&per_series), ["# Policy", "fcfs + mpl", "oo + mpl"]);
        let grid: Vec<Curve> = ["fcfs", "oo", "delay"]
            .iter()
            .flat_map(|s| ["ff", "mpl"].map(|a| c(s, a)))
            .collect();
        assert_eq!(
            titles(&legend(&grid)),
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
}
