//! The space-time chart (a Gantt chart by node): x = time over a window, y = the nodes in a row
//! order ([`RowOrder`]), each run a box in its job's colour (the snapshots' colours), its number
//! on it where it fits; the snapshot instants as dark grey lines.
//!
//! No order of a 2D mesh's nodes keeps every submesh in one band: row-major (`y·W + x`) keeps a
//! full-width `W × h` job whole and cuts a `w × h` one into `h` stripes, column-major (`x·H + y`)
//! keeps a full-height `w × H` job whole and cuts the others into `w` stripes. The chart takes the
//! order that cuts the window's jobs into fewer stripes (on the Paragon's 22×16 mesh, where jobs of
//! 16·w nodes are `w × 16`, column-major) and says it on the y axis. Slots on a flat machine, ids
//! on a k-D mesh, torus or hypercube.

use std::ops::Range;
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
    // Room on the right for the last time tick, below for the note on the row order.
    let plot = root.margin(0, 26, 0, 40);
    let mut chart = frame(&plot, title, 26, window.from..window.to, 0.0..nodes)?;
    let order = RowOrder::choose(tl, window);
    let (y_desc, note) = order.describe(tl.machine());
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
    for (run, ids) in live {
        let ranges = order.rows(ids);
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
    if let Some(note) = note {
        let style = (FONT, 15).into_font().color(&RGBColor(70, 70, 70));
        let h = root.dim_in_pixel().1 as i32;
        root.draw(&Text::new(note, (20, h - 24), style))?;
    }
    Ok(())
}

/// The order of the chart's rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RowOrder {
    /// Node ids as they are (flat slots, k-D ids, hypercube addresses; a mesh row by row).
    Ids,
    /// A `W × H` mesh column by column: row `x·H + y` for node `(x, y)`.
    Columns { w: u32, h: u32 },
}

impl RowOrder {
    /// On a 2D mesh, the order that cuts the window's runs into fewer stripes; else the ids.
    fn choose(tl: &Timeline<'_>, window: Window) -> RowOrder {
        let MachineSpec::Mesh { size } = tl.machine() else {
            return RowOrder::Ids;
        };
        let columns = RowOrder::Columns {
            w: size.w,
            h: size.h,
        };
        let live = tl
            .runs()
            .iter()
            .zip(tl.nodes())
            .filter(|(r, _)| r.end > window.from && r.start < window.to);
        let (by_ids, by_columns) = live.fold((0, 0), |(a, b), (_, ids)| {
            (a + ids.len(), b + columns.rows(ids).len())
        });
        if by_columns < by_ids {
            columns
        } else {
            RowOrder::Ids
        }
    }

    /// The rows of the node id ranges `ids`, as increasing, disjoint ranges.
    fn rows(self, ids: &[Range<u32>]) -> Vec<Range<u32>> {
        let RowOrder::Columns { w, h } = self else {
            return ids.to_vec();
        };
        let mut rows: Vec<u32> = ids
            .iter()
            .flat_map(|r| r.clone())
            .map(|id| (id % w) * h + id / w)
            .collect();
        rows.sort_unstable();
        let mut out: Vec<Range<u32>> = Vec::new();
        for r in rows {
            match out.last_mut() {
                Some(last) if last.end == r => last.end = r + 1,
                _ => out.push(r..r + 1),
            }
        }
        out
    }

    /// The y axis label and, on a 2D mesh, a note on what the order keeps whole.
    fn describe(self, machine: MachineSpec) -> (String, Option<String>) {
        const WHY: &str = "no node order keeps every submesh whole";
        match (self, machine) {
            (RowOrder::Columns { h, .. }, _) => (
                format!("Node, column by column (x·{h} + y)"),
                Some(format!(
                    "Column by column, the order cutting these jobs least: a w×{h} job is one \
                     band, a w×h job (h < {h}) w stripes; {WHY}."
                )),
            ),
            (_, MachineSpec::Mesh { size }) => (
                format!("Node, row by row (y·{} + x)", size.w),
                Some(format!(
                    "Row by row, the order cutting these jobs least: a {w}×h job is one band, a \
                     w×h job (w < {w}) h stripes; {WHY}.",
                    w = size.w
                )),
            ),
            (_, MachineSpec::Flat { .. }) => ("Node slot (flat machine)".into(), None),
            (_, MachineSpec::Grid { .. }) => ("Node id (dimension 0 fastest)".into(), None),
            (_, MachineSpec::Hypercube { .. }) => ("Node address".into(), None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_height_submesh_is_one_band_column_by_column() {
        // A 2×4 submesh at x = 1..3 of a 5×4 mesh: ids 1,2 / 6,7 / 11,12 / 16,17.
        let ids: Vec<Range<u32>> = vec![1..3, 6..8, 11..13, 16..18];
        let columns = RowOrder::Columns { w: 5, h: 4 };
        assert_eq!(columns.rows(&ids), vec![4..12]);
        assert_eq!(RowOrder::Ids.rows(&ids), ids);
        // A 2×2 one at the origin: two stripes either way.
        assert_eq!(columns.rows(&[0..2, 5..7]), vec![0..2, 4..6]);
    }

    /// Full-height jobs on a 4×2 mesh: column by column; full-width ones: row by row.
    #[test]
    fn the_order_cutting_the_jobs_least_is_chosen() {
        use pwa_replay::engine::{NoObserver, replay};
        use pwa_replay::resource::Shape;
        use pwa_replay::workload::{Job, JobId, Request, Workload};
        let order = |w: u32, h: u32| {
            let job = |i: u32| Job {
                id: JobId(i),
                source_id: u64::from(i) + 1,
                submit: 0.0,
                runtime: 10.0,
                estimate: 10.0,
                requested: None,
                request: Request::Submesh(Shape { w, h }),
                asked_procs: w * h,
                user: None,
                group: None,
                queue: None,
                partition: None,
            };
            let wl = Workload::from_jobs(vec![job(0), job(1)], 1);
            let machine: MachineSpec = "mesh:4x2".parse().unwrap();
            let out = replay(
                &wl,
                machine,
                "fcfs".parse().unwrap(),
                "ff".parse().unwrap(),
                &mut NoObserver,
            )
            .unwrap();
            let tl = Timeline::new(&wl, &out, machine);
            let window = Window {
                from: 0.0,
                to: 10.0,
            };
            RowOrder::choose(&tl, window)
        };
        assert_eq!(order(2, 2), RowOrder::Columns { w: 4, h: 2 });
        assert_eq!(order(4, 1), RowOrder::Ids);
    }
}
