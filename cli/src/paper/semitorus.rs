//! The semitorus study (semitorus-allocation.md; Mao, Chen & Watson, HPC Asia 2005): FCFS and
//! backfilling × the two partition schemes (EP, NEP) on PWA traces of two torus machines, against a
//! fully connected machine (`flat`) and contiguous boxes (`ff`). Writes, under
//! `out/paper/semitorus/`, per system the utilization, the mean bounded slowdown (τ = 10 s) and the
//! mean wait against the load factor, and a `README.md` with the study's headline, how far each
//! series is from the fully connected machine, and a verdict.
//!
//! The study's backfilling is EASY (`easy`, exact estimates); every series is compared with the
//! fully connected machine under the same scheduler (`fcfs+flat`, `easy+flat`).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use pwa_replay::engine::RunMetrics;
use pwa_replay::machine::AllocKind;
use pwa_replay::replicate::Estimate;
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::{self, CellResult, Series};
use pwa_replay::workload::EstimateModel;

use super::data::{FigureData, Point};
use super::figures::Paper;
use super::traces::{Replay, TraceBudget};

/// The two torus systems (catalog entries; see `traces/catalog.toml`).
pub const SYSTEMS: [&str; 2] = ["sdsc-96-torus", "ctc-sp2-torus"];

/// Utilization within this much (absolute) of the fully connected machine counts as comparable.
pub const UTIL_TOLERANCE: f64 = 0.05;
/// Mean bounded slowdown within this factor of the fully connected machine counts as comparable.
pub const BSLD_FACTOR: f64 = 1.5;

/// The series of the study: FCFS/EP, FCFS/NEP, and with EASY (when it exists) EASY/EP, EASY/NEP,
/// EASY/flat, EASY/ff; without EASY, FCFS/flat and FCFS/ff as the references.
pub fn series() -> Vec<Series> {
    let s = |scheduler, allocator| Series {
        scheduler,
        allocator,
        estimate: EstimateModel::Exact,
    };
    let (fcfs, easy) = (SchedKind::Fcfs, SchedKind::Easy);
    vec![
        s(fcfs, AllocKind::Ep),
        s(fcfs, AllocKind::Nep),
        s(fcfs, AllocKind::Flat),
        s(easy, AllocKind::Ep),
        s(easy, AllocKind::Nep),
        s(easy, AllocKind::Flat),
        s(easy, AllocKind::FirstFit),
    ]
}

/// What one system's sweep measured.
pub struct SystemResult {
    /// Catalog name.
    pub trace: &'static str,
    /// Machine label.
    pub machine: String,
    /// Jobs replayed.
    pub jobs: usize,
    /// Jobs dropped because a semitorus can never hold them (larger than the largest one).
    pub dropped: u64,
    /// Every cell.
    pub results: Vec<CellResult>,
}

/// Runs one system: loads the trace, drops the jobs some allocator of the study can never place,
/// and sweeps the series over the `auto` loads.
pub fn run_system(
    trace: &'static str,
    budget: &TraceBudget,
    replay: &Replay,
    progress: &(dyn Fn(&str) + Sync),
) -> anyhow::Result<SystemResult> {
    let loaded = crate::trace::load(trace, None, false, crate::trace::NoMachine::Refuse)
        .with_context(|| format!("loading {trace}"))?;
    let machine = loaded.machine;
    let mut workload = loaded.workload;
    let series = series();
    let allocs: Vec<AllocKind> = series.iter().map(|s| s.allocator).collect();
    let dropped = workload.retain_fitting(machine, &allocs)?;
    if let Some(n) = budget.jobs {
        workload.jobs.truncate(n);
    }
    let runner = |cell: &sweep::Cell| -> Result<RunMetrics, sweep::CellError> {
        let w = workload.scaled(cell.load_factor)?;
        replay(&w, machine, cell.scheduler, cell.allocator).map_err(|e| e.into())
    };
    let sink = |e: sweep::CellEvent| {
        if let sweep::CellEvent::Finished { cell, .. } = e {
            progress(&format!("{trace} {cell}"));
        }
    };
    let results = sweep::run_auto_with(&series, &budget.auto, budget.threads, &runner, &sink)
        .with_context(|| format!("sweeping {trace}"))?;
    Ok(SystemResult {
        trace,
        machine: machine.to_string(),
        jobs: workload.jobs.len(),
        dropped,
        results,
    })
}

/// A figure's metric: its id, short name, axis label, and how it is read off a run.
type Metric = (
    &'static str,
    &'static str,
    &'static str,
    fn(&RunMetrics) -> f64,
);

/// The three figures of one system.
pub fn figures(r: &SystemResult) -> Vec<FigureData> {
    let metrics: [Metric; 3] = [
        (
            "utilization",
            "utilization",
            "utilization (fraction)",
            |m| m.utilization,
        ),
        (
            "bsld",
            "slowdown",
            "mean bounded slowdown (τ = 10 s)",
            |m| m.mean_bounded_slowdown,
        ),
        ("wait", "wait", "mean wait (s)", |m| m.mean_wait_s),
    ];
    metrics
        .iter()
        .map(|&(id, short, label, of)| FigureData {
            group: Paper::Semitorus.dir().to_string(),
            log_y: false,
            id: format!("{}-{id}", r.trace),
            // Short enough for the canvas: the id already names the trace.
            title: format!("{short} on {}", r.machine),
            x_label: "load factor".into(),
            y_label: label.into(),
            log_x: false,
            points: r
                .results
                .iter()
                .map(|c| Point {
                    series: format!("{}+{}", c.cell.scheduler, c.cell.allocator),
                    x: c.cell.load_factor,
                    est: Estimate::from_samples(&[of(&c.metrics)]),
                })
                .collect(),
        })
        .collect()
}

/// How far a series is from the fully connected reference, over the loads both measured up to
/// `max_load`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distance {
    /// Loads compared.
    pub loads: usize,
    /// Largest |utilization − reference utilization|.
    pub max_util_gap: f64,
    /// Largest mean bounded slowdown / reference's.
    pub max_bsld_ratio: f64,
    /// Mean bounded slowdown / reference's at load factor 1 (the trace as recorded), if measured.
    pub bsld_ratio_at_1: Option<f64>,
}

impl Distance {
    /// Within [`UTIL_TOLERANCE`] and [`BSLD_FACTOR`] at every load compared.
    pub fn comparable(&self) -> bool {
        self.loads > 0 && self.max_util_gap <= UTIL_TOLERANCE && self.max_bsld_ratio <= BSLD_FACTOR
    }
}

/// The distance of `series` from `reference` in one system's results, over loads ≤ `max_load`.
pub fn distance(r: &[CellResult], series: Series, reference: Series, max_load: f64) -> Distance {
    let at = |s: Series, x: f64| {
        r.iter()
            .find(|c| c.cell.series() == s && c.cell.load_factor == x)
            .map(|c| c.metrics)
    };
    let mut d = Distance {
        loads: 0,
        max_util_gap: 0.0,
        max_bsld_ratio: 0.0,
        bsld_ratio_at_1: None,
    };
    for c in r
        .iter()
        .filter(|c| c.cell.series() == series && c.cell.load_factor <= max_load)
    {
        let Some(refm) = at(reference, c.cell.load_factor) else {
            continue;
        };
        let ratio = c.metrics.mean_bounded_slowdown / refm.mean_bounded_slowdown;
        d.loads += 1;
        d.max_util_gap = d
            .max_util_gap
            .max((c.metrics.utilization - refm.utilization).abs());
        d.max_bsld_ratio = d.max_bsld_ratio.max(ratio);
        if c.cell.load_factor == 1.0 {
            d.bsld_ratio_at_1 = Some(ratio);
        }
    }
    d
}

/// The README of `out/paper/semitorus/`.
pub fn readme(systems: &[SystemResult], quick: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Semitorus allocation on tori (semitorus-allocation.md)\n"
    );
    let _ = writeln!(
        s,
        "Mao, Chen & Watson (HPC Asia 2005) ran FCFS and backfilling × equal (EP) and non-equal (NEP) \
         partition on PWA traces of two torus machines, and found **backfilling/NEP gives utilization \
         and mean bounded slowdown comparable to a fully connected machine**. Here: the traces and \
         machines of `traces/catalog.toml` (`{}`), one deterministic replay per load factor \
         (the sweep's `auto` loads), every series against the fully connected machine (`flat`) under \
         the same scheduler. Comparable = utilization within {UTIL_TOLERANCE} and mean bounded \
         slowdown at most {BSLD_FACTOR}× the reference at every load factor ≤ 1 (the trace as \
         recorded and lighter).\n",
        SYSTEMS.join("`, `")
    );
    let _ = writeln!(s, "Backfilling is `easy` (EASY), with exact estimates.\n");
    if quick {
        let _ = writeln!(
            s,
            "*Quick run* (`PAPER_QUICK=1`): only the first jobs of each trace, coarse loads; the \
             numbers are not the study's.\n"
        );
    }
    let _ = writeln!(
        s,
        "| system | jobs (dropped: > largest semitorus) | series | vs | loads ≤ 1 | max \\|Δ utilization\\| | max bsld ratio | bsld ratio at lf 1 | comparable |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for r in systems {
        for sr in series() {
            if sr.allocator == AllocKind::Flat {
                continue;
            }
            let reference = Series {
                scheduler: sr.scheduler,
                allocator: AllocKind::Flat,
                estimate: EstimateModel::Exact,
            };
            let d = distance(&r.results, sr, reference, 1.0);
            let _ = writeln!(
                s,
                "| {} on `{}` | {} ({}) | `{}+{}` | `{}+flat` | {} | {:.3} | {:.2} | {} | {} |",
                r.trace,
                r.machine,
                r.jobs,
                r.dropped,
                sr.scheduler,
                sr.allocator,
                sr.scheduler,
                d.loads,
                d.max_util_gap,
                d.max_bsld_ratio,
                d.bsld_ratio_at_1
                    .map_or("—".to_string(), |x| format!("{x:.2}")),
                if d.comparable() { "yes" } else { "no" }
            );
        }
    }
    let _ = writeln!(s, "\n## The study's headline\n");
    for r in systems {
        let easy = |allocator| Series {
            scheduler: SchedKind::Easy,
            allocator,
            estimate: EstimateModel::Exact,
        };
        let d = distance(&r.results, easy(AllocKind::Nep), easy(AllocKind::Flat), 1.0);
        let verdict = format!(
            "{} (max |Δ utilization| {:.3}, max bounded-slowdown ratio {:.2} over {} loads)",
            if d.comparable() {
                "**holds**"
            } else {
                "**differs**"
            },
            d.max_util_gap,
            d.max_bsld_ratio,
            d.loads
        );
        let _ = writeln!(
            s,
            "- {} on `{}`: EASY/NEP comparable to the fully connected machine — {verdict}",
            r.trace, r.machine
        );
    }
    let _ = writeln!(
        s,
        "\nFigures per system: `<trace>-utilization`, `<trace>-bsld`, `<trace>-wait` (CSV `series,x,y,ci_low,ci_high` + PNG)."
    );
    s
}

/// Writes the README.
pub fn write_readme(dir: &Path, systems: &[SystemResult], quick: bool) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("README.md");
    std::fs::write(&path, readme(systems, quick))
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pwa_replay::sweep::Cell;

    fn cell(sched: SchedKind, alloc: AllocKind, lf: f64, util: f64, bsld: f64) -> CellResult {
        CellResult {
            cell: Cell {
                scheduler: sched,
                allocator: alloc,
                estimate: EstimateModel::Exact,
                load_factor: lf,
            },
            metrics: RunMetrics {
                utilization: util,
                mean_bounded_slowdown: bsld,
                ..RunMetrics::default()
            },
        }
    }

    #[test]
    fn distance_compares_loads_both_measured_up_to_the_cap() {
        let f = SchedKind::Fcfs;
        let r = vec![
            cell(f, AllocKind::Flat, 0.5, 0.40, 2.0),
            cell(f, AllocKind::Flat, 1.0, 0.70, 4.0),
            cell(f, AllocKind::Nep, 0.5, 0.38, 2.5),
            cell(f, AllocKind::Nep, 1.0, 0.66, 8.0),
            cell(f, AllocKind::Nep, 1.5, 0.10, 99.0),
        ];
        let s = |a| Series {
            scheduler: f,
            allocator: a,
            estimate: EstimateModel::Exact,
        };
        let d = distance(&r, s(AllocKind::Nep), s(AllocKind::Flat), 1.0);
        assert_eq!(d.loads, 2);
        assert!((d.max_util_gap - 0.04).abs() < 1e-12);
        assert_eq!(d.max_bsld_ratio, 2.0);
        assert_eq!(d.bsld_ratio_at_1, Some(2.0));
        assert!(!d.comparable(), "slowdown twice the reference's");
        let d = distance(&r, s(AllocKind::Nep), s(AllocKind::Flat), 0.5);
        assert!(d.comparable());
    }

    #[test]
    fn series_follow_the_study() {
        let s = series();
        assert_eq!(s.len(), 7);
        assert_eq!(s[0].allocator, AllocKind::Ep);
        assert!(s.iter().any(|x| x.allocator == AllocKind::Flat));
        assert!(s.iter().any(|x| x.allocator == AllocKind::FirstFit));
        let text = readme(&[], true);
        assert!(text.contains("comparable"), "{text}");
    }
}
