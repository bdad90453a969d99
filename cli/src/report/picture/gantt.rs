//! The space-time chart (a Gantt chart by node): x = time over a window, y = node id (row-major on
//! a mesh, so a submesh is a band of `h` stripes `W` apart; slots on a flat machine), each run a
//! box in its job's colour (the snapshots' colours), its number on it where it fits; the snapshot
//! instants as dark grey lines.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use pwa_replay::SimTime;
use pwa_replay::engine::Timeline;
use pwa_replay::machine::MachineSpec;

use super::{Window, time_tick};
use crate::report::palette::job_colour;
use crate::report::plots::{Area, FONT, frame};

/// Draws the chart of `tl` over `window` into `path`.
pub fn draw(
    path: &Path,
    tl: &Timeline<'_>,
    window: Window,
    title: &str,
    marks: &[SimTime],
) -> anyhow::Result<()> {
    super::write_png(path, super::FIGURE, |root| {
        paint(root, tl, window, title, marks)
    })
}

fn paint(
    root: &Area<'_>,
    tl: &Timeline<'_>,
    window: Window,
    title: &str,
    marks: &[SimTime],
) -> anyhow::Result<()> {
    let nodes = f64::from(tl.machine().nodes());
    // Room on the right for the last time tick.
    let plot = root.margin(0, 0, 0, 40);
    let mut chart = frame(&plot, title, 26, window.from..window.to, 0.0..nodes)?;
    let y_desc = match tl.machine() {
        MachineSpec::Flat { .. } => "Node slot (flat machine)".to_string(),
        MachineSpec::Mesh { size } => format!("Node id = y·{} + x", size.w),
        MachineSpec::Grid { .. } => "Node id (dimension 0 fastest)".to_string(),
        MachineSpec::Hypercube { .. } => "Node address".to_string(),
    };
    chart
        .configure_mesh()
        .x_desc("Time since the first submit (s)")
        .y_desc(y_desc)
        .label_style((FONT, 18))
        .axis_desc_style((FONT, 22))
        .x_label_formatter(&|v| time_tick(*v))
        .x_labels(7)
        .y_label_formatter(&|v| format!("{v:.0}"))
        .disable_y_mesh()
        .light_line_style(RGBColor(246, 246, 246))
        .draw()?;
    let workload = tl.workload();
    let live = tl
        .runs()
        .iter()
        .zip(tl.nodes())
        .filter(|(r, _)| r.end > window.from && r.start < window.to);
    let mut labels = Vec::new();
    for (run, ranges) in live {
        let id = workload.jobs[run.job.index()].source_id;
        let colour = job_colour(id);
        let (x0, x1) = (run.start.max(window.from), run.end.min(window.to));
        chart.draw_series(ranges.iter().map(|r| {
            Rectangle::new(
                [(x0, f64::from(r.start)), (x1, f64::from(r.end))],
                colour.filled(),
            )
        }))?;
        if let Some(widest) = ranges.iter().max_by_key(|r| r.len()) {
            labels.push((id, x0, x1, widest.clone()));
        }
    }
    for &t in marks.iter().filter(|&&t| window.contains(t)) {
        let line = PathElement::new(
            vec![(t, 0.0), (t, nodes)],
            RGBColor(60, 60, 60).stroke_width(2),
        );
        chart.draw_series(std::iter::once(line))?;
    }
    for (id, x0, x1, r) in labels {
        let (a, b) = (
            chart.backend_coord(&(x0, f64::from(r.end))),
            chart.backend_coord(&(x1, f64::from(r.start))),
        );
        let text = id.to_string();
        if (b.0 - a.0) < text.len() as i32 * 9 + 4 || (b.1 - a.1) < 14 {
            continue;
        }
        let style = (FONT, 14)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Center));
        root.draw(&Text::new(text, ((a.0 + b.0) / 2, (a.1 + b.1) / 2), style))?;
    }
    Ok(())
}
