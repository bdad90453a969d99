//! Running the figures' lines: every distinct line once, its cells replicated until the 95% CI of
//! mean turnaround is within the budget's relative half-width, lines in parallel.
//!
//! A load line visits its x values in increasing order and stops `margin` points after its mean
//! turnaround first exceeds `cut × mean service` (the system is then saturated: the queue grows for
//! the whole run and further points only measure the run length, at a cost that grows with the
//! queue). Other lines visit every x.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Context;
use pwa_replay::engine::RunMetrics;
use pwa_replay::replicate::{Estimate, StopRule, replicate};
use rayon::prelude::*;

use super::figures::{Axis, Cell, Figure, Line};

/// How much work a run may do.
#[derive(Debug, Clone, PartialEq)]
pub struct Budget {
    /// Jobs per synthetic run (10,000 in both papers).
    pub jobs: usize,
    /// Replication rule.
    pub rule: StopRule,
    /// A load line is saturated once its mean turnaround exceeds `cut` × mean service time.
    pub cut: f64,
    /// Points kept past the first saturated one.
    pub margin: usize,
    /// Fewest replications of a window-size (K-axis) cell: those figures plot the maximum wait,
    /// which the turnaround-based stopping rule does not make precise (the paper used 100–200 runs).
    pub k_min: usize,
}

/// The replications of every cell of a line, by x (in increasing x order).
pub type LineRuns = Vec<(f64, Vec<RunMetrics>)>;

/// Results of all lines, by [`Line::id`].
pub type Results = BTreeMap<String, LineRuns>;

/// Simulates one cell once with `seed`.
pub type Simulate = dyn Fn(&Cell, u64) -> anyhow::Result<RunMetrics> + Sync;

/// The distinct lines of `figures` with the union of their x values, sorted.
pub fn plan(figures: &[Figure]) -> Vec<(Line, Vec<f64>)> {
    let mut lines: BTreeMap<String, (Line, Vec<f64>)> = BTreeMap::new();
    for f in figures {
        for l in &f.lines {
            let e = lines
                .entry(l.id())
                .or_insert_with(|| (l.clone(), Vec::new()));
            e.1.extend(&f.xs);
        }
    }
    lines
        .into_values()
        .map(|(l, mut xs)| {
            xs.sort_by(f64::total_cmp);
            xs.dedup();
            (l, xs)
        })
        .collect()
}

/// Runs every planned line (in parallel on the current rayon pool); `progress` receives the
/// number of lines finished so far and a description of the line (id, runs, wall seconds).
pub fn run_all(
    planned: &[(Line, Vec<f64>)],
    budget: &Budget,
    sim: &Simulate,
    progress: &(dyn Fn(usize, &str) + Sync),
) -> anyhow::Result<Results> {
    let done = AtomicUsize::new(0);
    planned
        .par_iter()
        .with_max_len(1)
        .map(|(line, xs)| {
            let t0 = std::time::Instant::now();
            let runs =
                run_line(line, xs, budget, sim).with_context(|| format!("line {}", line.id()))?;
            // Replays simulated: a cell shared by several x (a K-axis reference) counts once.
            let mut seen = std::collections::BTreeSet::new();
            let n: usize = runs
                .iter()
                .filter(|(x, _)| seen.insert(line.cell(*x, budget.jobs).id()))
                .map(|(_, r)| r.len())
                .sum();
            let what = format!(
                "{} ({n} runs, {:.1} s)",
                line.id(),
                t0.elapsed().as_secs_f64()
            );
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, &what);
            Ok((line.id(), runs))
        })
        .collect()
}

/// Runs one line over `xs` (sorted), stopping a load line past saturation.
fn run_line(line: &Line, xs: &[f64], b: &Budget, sim: &Simulate) -> anyhow::Result<LineRuns> {
    let mut out: LineRuns = Vec::new();
    let mut cache: BTreeMap<String, Vec<RunMetrics>> = BTreeMap::new();
    let mut past_saturation: Option<usize> = None;
    for &x in xs {
        if past_saturation.is_some_and(|n| n >= b.margin) {
            break;
        }
        let cell = line.cell(x, b.jobs);
        let runs = match cache.get(&cell.id()) {
            Some(r) => r.clone(),
            None => {
                let rule = match line.axis {
                    Axis::WindowK => StopRule {
                        min: b.rule.min.max(b.k_min),
                        max: b.rule.max.max(b.k_min),
                        ..b.rule
                    },
                    _ => b.rule,
                };
                let r = replicate(
                    &rule,
                    &cell.seed_key,
                    |seed| {
                        sim(&cell, seed).with_context(|| format!("cell {} seed {seed}", cell.id()))
                    },
                    |m| m.mean_turnaround_s,
                )?;
                cache.insert(cell.id(), r.clone());
                r
            }
        };
        let turnaround = Estimate::of(&runs, |m| m.mean_turnaround_s).mean;
        past_saturation = match past_saturation {
            Some(n) => Some(n + 1),
            None if line.stops_at_saturation() && turnaround > b.cut * line.mean_service => Some(0),
            None => None,
        };
        out.push((x, runs));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::paper::figures::{Grids, all};

    fn budget() -> Budget {
        Budget {
            jobs: 10,
            rule: StopRule {
                min: 2,
                max: 2,
                rel_half_width: 0.05,
            },
            cut: 10.0,
            margin: 1,
            k_min: 2,
        }
    }

    /// A fake simulation: turnaround = x for load lines (saturates at x > 10).
    fn fake(cell: &Cell, seed: u64) -> anyhow::Result<RunMetrics> {
        Ok(RunMetrics {
            mean_turnaround_s: cell.spec.rate * cell.spec.mean_service + (seed % 2) as f64 * 1e-3,
            ..RunMetrics::default()
        })
    }

    #[test]
    fn lines_are_shared_between_figures() {
        let g = Grids::quick();
        let figs = all(&g);
        let planned = plan(&figs);
        // Figs 2, 3, 7 share their 7 lines; 4, 5, 6 too; figs 6-prev and 7-prev add 7 lines each
        // (the readings before issue 13); the K figures have 3 lines per load.
        let wk_rate: Vec<_> = planned
            .iter()
            .filter(|(l, _)| l.axis == crate::paper::figures::Axis::Rate)
            .collect();
        assert_eq!(wk_rate.len(), 28);
    }

    #[test]
    fn load_lines_stop_past_saturation() {
        let figs = all(&Grids::full());
        let fig2 = figs.iter().find(|f| f.key() == "window-k/fig2").unwrap();
        let line = &fig2.lines[0];
        let xs = [1.0, 5.0, 11.0, 12.0, 13.0, 14.0];
        let runs = run_line(line, &xs, &budget(), &fake).unwrap();
        // Saturated at 11 (> 10 × 1), one more point kept.
        let got: Vec<f64> = runs.iter().map(|(x, _)| *x).collect();
        assert_eq!(got, vec![1.0, 5.0, 11.0, 12.0]);
        assert!(runs.iter().all(|(_, r)| r.len() == 2));
    }

    #[test]
    fn parallel_results_equal_serial() {
        let figs = all(&Grids::quick());
        let planned = plan(&figs);
        let quiet = |_: usize, _: &str| {};
        let serial = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| run_all(&planned, &budget(), &fake, &quiet).unwrap());
        let parallel = run_all(&planned, &budget(), &fake, &quiet).unwrap();
        assert_eq!(serial, parallel);
    }
}
