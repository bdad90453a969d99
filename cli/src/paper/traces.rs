//! The trace figures of window-k-mesh.md §5.5 (Figs. 13–18): mean turnaround and maximum waiting
//! delay against the load factor on sdsc-95 (when its log is on the search path; `paper` never
//! downloads), sdsc-96 and sdsc-blue, with the sweep's `auto` loads (0.1, 0.2, … until a few points
//! past each series' knee), one deterministic replay per point (so `ci_low = ci_high = y`).

use anyhow::Context;
use pwa_replay::engine::RunMetrics;
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::replicate::Estimate;
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::{self, AutoLoads, CellResult, Series};
use pwa_replay::workload::EstimateModel;
use pwa_replay::workload::Workload;

use super::data::{FigureData, Point};
use super::figures::{Metric, Paper, window_k_schedulers};

/// A trace's pair of figures.
pub struct TracePair {
    /// Catalog name.
    pub trace: &'static str,
    /// Turnaround figure id.
    pub turnaround: &'static str,
    /// Max-wait figure id.
    pub max_wait: &'static str,
}

/// Figs. 13/14 (sdsc-95), 15/16 (sdsc-96), 17/18 (sdsc-blue).
pub const PAIRS: [TracePair; 3] = [
    TracePair {
        trace: "sdsc-95",
        turnaround: "fig13",
        max_wait: "fig14",
    },
    TracePair {
        trace: "sdsc-96",
        turnaround: "fig15",
        max_wait: "fig16",
    },
    TracePair {
        trace: "sdsc-blue",
        turnaround: "fig17",
        max_wait: "fig18",
    },
];

/// How much of each trace to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceBudget {
    /// Keep only the first `jobs` jobs (`None`: all).
    pub jobs: Option<usize>,
    /// The load schedule.
    pub auto: AutoLoads,
    /// Worker threads.
    pub threads: usize,
}

/// Replays one workload on a machine under a policy.
pub type Replay =
    dyn Fn(&Workload, MachineSpec, SchedKind, AllocKind) -> anyhow::Result<RunMetrics> + Sync;

/// Whether the trace's log is on the search path (without downloading).
pub fn available(trace: &str) -> bool {
    let Ok(cat) = crate::trace::catalog() else {
        return false;
    };
    cat.get(trace)
        .is_some_and(|e| crate::trace::search_path().find(&e.file).is_some())
}

/// Runs one trace's pair of figures. `progress` is called after each finished cell.
pub fn run_pair(
    pair: &TracePair,
    budget: &TraceBudget,
    replay: &Replay,
    progress: &(dyn Fn(&str) + Sync),
) -> anyhow::Result<[FigureData; 2]> {
    let loaded = crate::trace::load(pair.trace, None, false, crate::trace::NoMachine::Refuse)
        .with_context(|| format!("loading {}", pair.trace))?;
    let mut workload = loaded.workload;
    if let Some(n) = budget.jobs {
        workload.jobs.truncate(n);
    }
    let machine = loaded.machine;
    let series: Vec<Series> = window_k_schedulers()
        .into_iter()
        .map(|scheduler| Series {
            scheduler,
            allocator: AllocKind::Mpl,
            estimate: EstimateModel::Exact,
        })
        .collect();
    let runner = |cell: &sweep::Cell| -> Result<RunMetrics, sweep::CellError> {
        let w = workload.scaled(cell.load_factor)?;
        replay(&w, machine, cell.scheduler, cell.allocator).map_err(|e| e.into())
    };
    let sink = |e: sweep::CellEvent| {
        if let sweep::CellEvent::Finished { cell, .. } = e {
            progress(&format!("{} {cell}", pair.trace));
        }
    };
    let results = sweep::run_auto_with(&series, &budget.auto, budget.threads, &runner, &sink)
        .with_context(|| format!("sweeping {}", pair.trace))?;
    let title = |what: &str| format!("{what}, {} trace on {machine}", pair.trace);
    Ok([
        figure(
            pair.turnaround,
            title("Mean turnaround (s)"),
            Metric::MeanTurnaround,
            &results,
        ),
        figure(
            pair.max_wait,
            title("Maximum waiting delay (s)"),
            Metric::MaxWait,
            &results,
        ),
    ])
}

fn figure(id: &str, title: String, metric: Metric, results: &[CellResult]) -> FigureData {
    let points = results
        .iter()
        .map(|r| Point {
            series: format!("{}+{}", r.cell.scheduler, r.cell.allocator),
            x: r.cell.load_factor,
            est: Estimate::from_samples(&[metric.of(&r.metrics)]),
        })
        .collect();
    FigureData {
        group: Paper::WindowK.dir().to_string(),
        log_y: false,
        id: id.to_string(),
        title,
        x_label: "load factor".into(),
        y_label: format!("{} (s)", metric.label()),
        log_x: false,
        points,
    }
}
