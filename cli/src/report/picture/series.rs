//! The state of one run over time, from the fragmentation measurement's steps
//! ([`Fragmentation::steps`]): utilization (busy nodes / N), queue length, external fragmentation
//! (idle nodes some waiting job could use / N) and, on a 2D mesh, the number of maximal free
//! submeshes; one panel each, stacked over a shared time axis, as step functions.

use std::path::Path;

use plotters::prelude::*;
use pwa_replay::engine::{FragStep, Fragmentation};

use super::{Window, time_tick};
use crate::report::plots::{Area, FONT};

/// One panel: title, y label and the value of a step.
struct Panel {
    title: &'static str,
    y_label: &'static str,
    value: fn(&FragStep, f64) -> f64,
    colour: RGBColor,
}

const PANELS: [Panel; 4] = [
    Panel {
        title: "Utilization",
        y_label: "Busy nodes / N",
        value: |s, n| f64::from(s.busy_nodes) / n,
        colour: RGBColor(0x1f, 0x77, 0xb4),
    },
    Panel {
        title: "Queue length",
        y_label: "Waiting jobs",
        value: |s, _| f64::from(s.waiting),
        colour: RGBColor(0xff, 0x7f, 0x0e),
    },
    Panel {
        title: "External fragmentation",
        y_label: "Usable idle nodes / N",
        value: |s, n| f64::from(s.lost_nodes) / n,
        colour: RGBColor(0xd6, 0x27, 0x28),
    },
    Panel {
        title: "Maximal free submeshes",
        y_label: "Free regions",
        value: |s, _| f64::from(s.free_regions.unwrap_or(0)),
        colour: RGBColor(0x2c, 0xa0, 0x2c),
    },
];

/// Draws the panels of `frag` over `window` into `path` (the free-region panel on a 2D mesh only).
pub fn draw(path: &Path, frag: &Fragmentation, window: Window, title: &str) -> anyhow::Result<()> {
    let mesh = frag.steps.iter().any(|s| s.free_regions.is_some());
    let panels = if mesh { &PANELS[..] } else { &PANELS[..3] };
    super::write_png(path, super::FIGURE, |root| {
        let (head, body) = root.split_vertically(50);
        head.draw(&Text::new(title.to_string(), (20, 12), (FONT, 26)))?;
        let areas = body.split_evenly((panels.len(), 1));
        for (k, (area, panel)) in areas.iter().zip(panels).enumerate() {
            draw_panel(area, frag, window, panel, k + 1 == panels.len())?;
        }
        Ok(())
    })
}

fn draw_panel(
    area: &Area<'_>,
    frag: &Fragmentation,
    window: Window,
    p: &Panel,
    last: bool,
) -> anyhow::Result<()> {
    let n = f64::from(frag.nodes.max(1));
    let pts = step_points(&frag.steps, window, |s| (p.value)(s, n));
    let hi = pts.iter().map(|q| q.1).fold(0.0f64, f64::max);
    let hi = if hi > 0.0 { hi * 1.08 } else { 1.0 };
    let mut chart = ChartBuilder::on(area)
        .caption(p.title, (FONT, 20))
        .margin_left(20)
        .margin_right(30)
        .x_label_area_size(if last { 60 } else { 25 })
        .y_label_area_size(110)
        .build_cartesian_2d(window.from..window.to, 0.0..hi)?;
    let mut mesh = chart.configure_mesh();
    mesh.y_desc(p.y_label)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 16))
        .x_label_formatter(&|v| time_tick(*v))
        .x_labels(7)
        .y_label_formatter(&|v| number(*v))
        .y_labels(5)
        .light_line_style(RGBColor(246, 246, 246));
    if last {
        mesh.x_desc("Time since the first submit (s)");
    }
    mesh.draw()?;
    chart.draw_series(LineSeries::new(pts, p.colour.stroke_width(2)))?;
    Ok(())
}

/// A y tick: integers plain, fractions to two decimals.
fn number(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The step function `value` over `window`: the value in force at `from`, a vertical jump at each
/// step inside, held to `to`.
fn step_points(
    steps: &[FragStep],
    window: Window,
    value: impl Fn(&FragStep) -> f64,
) -> Vec<(f64, f64)> {
    let before = steps.partition_point(|s| s.t <= window.from);
    let mut y = if before > 0 {
        value(&steps[before - 1])
    } else {
        0.0
    };
    let mut pts = vec![(window.from, y)];
    for s in steps[before..].iter().take_while(|s| s.t < window.to) {
        pts.push((s.t, y));
        y = value(s);
        pts.push((s.t, y));
    }
    pts.push((window.to, y));
    pts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(t: f64, waiting: u32) -> FragStep {
        FragStep {
            t,
            busy_nodes: 0,
            waiting,
            lost_nodes: 0,
            head_lost_nodes: 0,
            free_regions: None,
        }
    }

    #[test]
    fn steps_are_clipped_to_the_window() {
        let steps = [step(0.0, 1), step(5.0, 3), step(20.0, 0)];
        let w = Window {
            from: 2.0,
            to: 10.0,
        };
        let pts = step_points(&steps, w, |s| f64::from(s.waiting));
        assert_eq!(pts, [(2.0, 1.0), (5.0, 1.0), (5.0, 3.0), (10.0, 3.0)]);
    }
}
