//! `viewer.html` of `pwa-replay draw`: one replay to scrub through. The machine drawn as in the
//! snapshots ([`Layout`]: 2D mesh grid, k-D slices, hypercube Gray-code grid, flat bar), a time
//! slider and a play button over the instants at which anything changed in the window, the
//! waiting queue beside it with the head's request drawn, a card per job on hover, and the
//! utilization, fragmentation and queue length over the window under it with a cursor at the
//! slider's time. The page's data are the window's jobs and runs; `viewer.js` draws them.

use std::path::Path;

use pwa_replay::SimTime;
use pwa_replay::engine::{Fragmentation, Timeline};
use serde::Serialize;

use super::{CHARTS_JS, Chart, Series, document, hex};
use crate::report::atomic;
use crate::report::palette::job_colour;
use crate::report::picture::Window;
use crate::report::picture::layout::Layout;
use crate::report::picture::snapshot::{request_grid, request_label};
use pwa_replay::engine::columns::granted_shape as shape;

/// The file name of the viewer.
pub const VIEWER: &str = "viewer.html";

const VIEWER_JS: &str = include_str!("viewer.js");

/// The viewer's data.
#[derive(Debug, Serialize)]
struct Data {
    title: String,
    machine: String,
    layout: LayoutData,
    window: (SimTime, SimTime),
    /// Instants of the slider: the window's start, then every change inside the window.
    events: Vec<SimTime>,
    jobs: Vec<JobData>,
    runs: Vec<RunData>,
    charts: Vec<Chart>,
}

/// A run segment: index into the jobs, start, end, node id ranges `[from, to)`.
type RunData = (usize, SimTime, SimTime, Vec<(u32, u32)>);

/// Where each node is drawn.
#[derive(Debug, Serialize)]
struct LayoutData {
    cols: u32,
    rows: u32,
    bar: bool,
    /// `(column, row from the bottom)` of each node id.
    cells: Vec<(u32, u32)>,
}

/// A job of the window, for the hover card and the queue.
#[derive(Debug, Serialize)]
struct JobData {
    /// Number in the source (SWF field 1).
    id: u64,
    request: String,
    /// Columns and rows the request is drawn with.
    grid: (u32, u32),
    /// Nodes the request covers.
    nodes: u32,
    /// Delayed by fragmentation alone at some instant (docs/OUTPUTS.md, "Fragmentation").
    frag_delayed: bool,
    granted: String,
    submit: SimTime,
    start: SimTime,
    end: SimTime,
    colour: String,
}

/// Writes `viewer.html` of `tl` over `window` into `dir`.
pub fn write(
    dir: &Path,
    tl: &Timeline<'_>,
    frag: &Fragmentation,
    window: Window,
    title: &str,
) -> anyhow::Result<()> {
    let data = data(tl, frag, window, title);
    let html = document(title, &data, &[CHARTS_JS, VIEWER_JS])?;
    atomic::write_bytes(&dir.join(VIEWER), html.as_bytes())
}

fn data(tl: &Timeline<'_>, frag: &Fragmentation, window: Window, title: &str) -> Data {
    let (jobs, index) = jobs(tl, &frag.delayed, window);
    let runs = tl
        .runs()
        .iter()
        .zip(tl.nodes())
        .filter(|(r, _)| r.end > window.from && r.start <= window.to)
        .filter_map(|(r, nodes)| {
            let ranges = nodes.iter().map(|n| (n.start, n.end)).collect();
            Some((index[r.job.index()]?, r.start, r.end, ranges))
        })
        .collect();
    let layout = Layout::of(tl.machine());
    let mut events = vec![window.from];
    events.extend(
        frag.steps
            .iter()
            .map(|s| s.t)
            .filter(|&t| t > window.from && t <= window.to),
    );
    Data {
        title: title.to_string(),
        machine: tl.machine().to_string(),
        layout: LayoutData {
            cols: layout.cols,
            rows: layout.rows,
            bar: layout.bar,
            cells: (0..tl.machine().nodes())
                .map(|id| layout.cell(id))
                .collect(),
        },
        window: (window.from, window.to),
        events,
        jobs,
        runs,
        charts: charts(frag, window),
    }
}

/// The jobs that run or wait in the window, and each job's index among them.
fn jobs(tl: &Timeline<'_>, delayed: &[bool], window: Window) -> (Vec<JobData>, Vec<Option<usize>>) {
    let w = tl.workload();
    let starts = tl.first_starts();
    let mut ends = vec![f64::NEG_INFINITY; starts.len()];
    let mut granted = vec![String::new(); starts.len()];
    for r in tl.runs() {
        let i = r.job.index();
        ends[i] = ends[i].max(r.end);
        granted[i] = shape(&r.placement);
    }
    let mut out = Vec::new();
    let mut index = vec![None; starts.len()];
    for (i, &start) in starts.iter().enumerate() {
        let job = &w.jobs[i];
        let waits = job.submit <= window.to && start > window.from;
        let runs = start <= window.to && ends[i] > window.from;
        if !(waits || runs) {
            continue;
        }
        index[i] = Some(out.len());
        out.push(JobData {
            id: job.source_id,
            request: request_label(&job.request),
            grid: request_grid(&job.request),
            nodes: job.request.nodes(),
            frag_delayed: delayed.get(i).copied().unwrap_or(false),
            granted: std::mem::take(&mut granted[i]),
            submit: job.submit,
            start,
            end: ends[i].max(start),
            colour: hex(job_colour(job.source_id)),
        });
    }
    (out, index)
}

/// The time series under the machine: shares of the nodes, the queue length and, on a 2D mesh,
/// the maximal free submeshes.
fn charts(frag: &Fragmentation, window: Window) -> Vec<Chart> {
    let n = f64::from(frag.nodes.max(1));
    let share = |v: u32| (f64::from(v) / n * 1e4).round() / 1e4;
    let mut shares = vec![
        step(
            "utilization (busy nodes / N)",
            "#1f77b4",
            frag,
            window,
            |s| Some(share(s.busy_nodes)),
        ),
        step(
            "external fragmentation (L(t) / N)",
            "#d62728",
            frag,
            window,
            |s| Some(share(s.lost_nodes)),
        ),
    ];
    shares.retain(|s| !s.points.is_empty());
    let queue = vec![step("queue length", "#2ca02c", frag, window, |s| {
        Some(f64::from(s.waiting))
    })];
    let regions = step("maximal free submeshes", "#9467bd", frag, window, |s| {
        s.free_regions.map(f64::from)
    });
    let chart = |id: &str, title: &str, y: &str, series| Chart {
        id: id.into(),
        title: title.into(),
        x_label: "Time since the first submit (s)".into(),
        y_label: y.into(),
        log_x: false,
        log_y: false,
        png: None,
        series,
    };
    let mut out = vec![
        chart(
            "shares",
            "Utilization and external fragmentation",
            "Share of the nodes",
            shares,
        ),
        chart("queue", "Queue length", "Waiting jobs", queue),
    ];
    if !regions.points.is_empty() {
        out.push(chart(
            "regions",
            "Maximal free submeshes (2D mesh)",
            "Free regions",
            vec![regions],
        ));
    }
    out
}

/// A step series of `value` over the window (the state at the window's start first).
fn step(
    label: &str,
    colour: &str,
    frag: &Fragmentation,
    window: Window,
    value: impl Fn(&pwa_replay::engine::FragStep) -> Option<f64>,
) -> Series {
    let first = frag
        .steps
        .partition_point(|s| s.t <= window.from)
        .saturating_sub(1);
    let points = frag.steps[first.min(frag.steps.len())..]
        .iter()
        .take_while(|s| s.t <= window.to)
        .filter_map(|s| Some((s.t.max(window.from), value(s)?, None, None)))
        .collect();
    Series {
        label: label.into(),
        colour: colour.into(),
        marker: "circle".into(),
        labels: vec![],
        points,
    }
}
