//! Experiments as data: a study described in a TOML file, planned, run, drawn and checked.
//!
//! The pipeline: [`spec`] reads the file (serde, every key spanned) → [`Plan::new`] checks every
//! label and name and expands panels into series and cells → [`run::run`] runs every distinct cell
//! once, replicated, series climbing their x values in parallel (bit-identical whatever the thread
//! count) → [`figures`] projects figure data (`series, x, y, ci_low, ci_high`) → [`verdicts`] checks
//! the claims with the shared [`predicate`] library. The file format is in `docs/EXPERIMENTS.md`.
//! A series whose label has a `py:` part is [`external`]: planned and replicated here, each replica
//! replayed by the caller's hook (the binary hands it to a Python worker process).
//!
//! Seeds depend on the workload and x, never on the policy: replica `r` of a cell uses
//! [`crate::replicate::seed_for`]`(seed key, r)`, and the seed key is the workload label (with the
//! load factor), or the panel's `seed_key` template — every series of a panel sees the same
//! streams (common random numbers).
//!
//! ```
//! use pwa_replay::experiment::{Plan, figures, run, verdicts};
//!
//! let text = r#"
//! [[panel]]
//! name = "uniform"
//! workload = "synth:uniform,mesh=8x8,jobs=200,rate={x}"
//! sched = ["fcfs", "oo"]
//! alloc = ["ff"]
//! x = { name = "rate", values = [0.5, 4.0] }
//! replicate = { count = 2 }
//!
//! [[figure]]
//! name = "turnaround"
//! panel = "uniform"
//! y = "mean_turnaround_s"
//!
//! [[claim]]
//! figure = "turnaround"
//! statement = "Out-of-order scheduling is never worse than FCFS."
//! predicate = "below"
//! a = "oo+ff"
//! b = "fcfs+ff"
//! "#;
//! let plan = Plan::new("demo.toml", text, false).unwrap();
//! struct Models;
//! impl run::Source for Models {
//!     fn prepare(&self, label: &str, machine: Option<pwa_replay::resource::MachineSpec>, _: Option<usize>,
//!         _: pwa_replay::workload::rewrite::InputRewrite) -> Result<run::Prepared, pwa_replay::sweep::CellError> {
//!         run::Prepared::synthetic(label, machine)
//!     }
//! }
//! let results = run::run(&plan, &plan.units(), &Models, &|_, compute| compute(), &|_| {}, 2).unwrap();
//! let figs = figures(&plan, &results);
//! assert_eq!(figs[0].series(), ["fcfs+ff", "oo+ff"]);
//! assert_eq!(figs[0].points[0].est.n, 2);
//! let v = verdicts(&plan, &figs);
//! assert_eq!(v[0].holds, Some(true), "{}", v[0].measured);
//! ```

pub use crate::sweep::external;
pub mod figure;
pub mod measure;
pub mod plan;
pub mod predicate;
pub mod run;
pub mod spec;
pub mod sweep;

use std::fmt;

pub use figure::{FigureData, Point};
pub use plan::{Cell, Plan};

use crate::engine::RunMetrics;
pub use run::{Results, Unit};

use crate::replicate::Estimate;

/// A mistake in an experiment file: where, which key, what; and the file's other mistakes found
/// with it (those that do not follow from it), so that one run reports them all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ExperimentError {
    /// The file.
    pub file: String,
    /// 1-based line (0 when unknown).
    pub line: usize,
    /// The key at fault, where known.
    pub key: String,
    /// What is wrong, with the valid choices.
    pub message: String,
    /// The other mistakes, in line order (each without more of its own).
    pub more: Vec<ExperimentError>,
}

impl ExperimentError {
    /// An error at `line` of `file`.
    pub fn new(file: &str, line: usize, key: String, message: String) -> Self {
        ExperimentError {
            file: file.to_string(),
            line,
            key,
            message,
            more: Vec::new(),
        }
    }

    /// One error of several found independently: the first by line, the others as its
    /// [`more`](ExperimentError::more) (repeats dropped); `None` for none.
    pub fn all(errors: impl IntoIterator<Item = ExperimentError>) -> Option<ExperimentError> {
        let mut flat: Vec<ExperimentError> = Vec::new();
        for mut e in errors {
            let more = std::mem::take(&mut e.more);
            for one in std::iter::once(e).chain(more) {
                if !flat.contains(&one) {
                    flat.push(one);
                }
            }
        }
        flat.sort_by_key(|e| e.line);
        let mut flat = flat.into_iter();
        let mut first = flat.next()?;
        first.more = flat.collect();
        Some(first)
    }

    /// This error and the others found with it, in line order.
    pub fn each(&self) -> impl Iterator<Item = &ExperimentError> {
        std::iter::once(self).chain(&self.more)
    }
}

impl fmt::Display for ExperimentError {
    /// `file:line: `key`: message`, one line per mistake.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.each().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{}:{}: ", e.file, e.line)?;
            if !e.key.is_empty() {
                write!(f, "`{}`: ", e.key)?;
            }
            f.write_str(&e.message)?;
        }
        Ok(())
    }
}

/// The data of every figure of `plan` from `results` (points of series that did not run are left
/// out).
pub fn figures(plan: &Plan, results: &Results) -> Vec<FigureData> {
    plan.figures
        .iter()
        .map(|f| {
            let panel = &plan.panels[f.panel];
            let mut points = Vec::new();
            let lines = f
                .series
                .iter()
                .map(|&s| (s, &panel.series[s].label, f.measure))
                .chain(f.extra.iter().map(|e| (e.series, &e.label, e.measure)));
            for (s, label, measure) in lines {
                let Some(line) = results.lines.get(&(f.panel, s)) else {
                    continue;
                };
                for (x, id) in line {
                    if f.xs.as_ref().is_some_and(|xs| !xs.contains(x)) {
                        continue;
                    }
                    let Some(runs) = results.cells.get(id) else {
                        continue;
                    };
                    points.push(Point {
                        series: label.clone(),
                        x: *x,
                        est: estimate(runs, measure, f.divide_by, *x),
                    });
                }
            }
            FigureData {
                group: String::new(),
                id: f.name.clone(),
                title: f.title.clone(),
                x_label: panel.x.label.clone(),
                y_label: f.y_label.clone(),
                log_x: panel.x.log,
                log_y: f.log_y,
                points,
            }
        })
        .collect()
}

/// The estimate of `measure` at `x` over `runs`; with `divide_by`, the ratio of the two means (no
/// interval: `ci_low = ci_high = mean`).
fn estimate(
    runs: &[RunMetrics],
    measure: plan::Measure,
    divide_by: Option<plan::Measure>,
    x: f64,
) -> Estimate {
    let est = Estimate::of(runs, |m| measure.at(m, x));
    match divide_by {
        None => est,
        Some(d) => {
            let ratio = est.mean / Estimate::of(runs, |m| d.of(m)).mean;
            Estimate {
                mean: ratio,
                ci_low: ratio,
                ci_high: ratio,
                n: est.n,
            }
        }
    }
}

/// A cell whose replications stopped at the rule's `max` with the 95% interval of its measure
/// still wider than the rule asks.
#[derive(Debug, Clone, PartialEq)]
pub struct Unmet {
    /// The panel's name.
    pub panel: String,
    /// The series' label.
    pub series: String,
    /// The x value.
    pub x: f64,
    /// Replications run (the rule's `max`).
    pub replicas: usize,
    /// The interval's half-width reached, as a fraction of the mean.
    pub reached: f64,
    /// The fraction the rule asks for.
    pub target: f64,
}

/// Every cell of `results` that ran out of replications before its CI target (none under a
/// fixed count).
pub fn unmet(plan: &Plan, results: &Results) -> Vec<Unmet> {
    let mut out = Vec::new();
    for (&(p, s), line) in &results.lines {
        let panel = &plan.panels[p];
        let target = panel.rule.rel_half_width;
        if !target.is_finite() {
            continue;
        }
        for (x, id) in line {
            let Some(runs) = results.cells.get(id) else {
                continue;
            };
            let est = Estimate::of(runs, |m| panel.watch.of(m));
            let reached = (est.ci_high - est.mean) / est.mean.abs();
            if runs.len() >= panel.rule.max && reached > target {
                out.push(Unmet {
                    panel: panel.name.clone(),
                    series: panel.series[s].label.clone(),
                    x: *x,
                    replicas: runs.len(),
                    reached,
                    target,
                });
            }
        }
    }
    out
}

/// One checked claim.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The figure's key.
    pub figure: String,
    /// The sentence.
    pub statement: String,
    /// The predicate and what it measured.
    pub measured: String,
    /// `Some(true)` holds, `Some(false)` differs, `None` not checkable (the figure has no points).
    pub holds: Option<bool>,
}

/// Every claim of `plan` checked on `figures` (as [`figures`] returns them): a claim holds when
/// every one of its checks does; what each measured is joined with `; `, and the claim's note is
/// added when it differs.
pub fn verdicts(plan: &Plan, figures: &[FigureData]) -> Vec<Verdict> {
    plan.claims
        .iter()
        .map(|c| {
            let f = &figures[c.figure];
            let (measured, holds) = if f.points.is_empty() {
                ("not run".to_string(), None)
            } else if let Some(other) = other_not_run(c, figures) {
                (format!("not run: figure `{other}` did not run"), None)
            } else if c.checks.is_empty() {
                (
                    "not checked: the quick budget skips its series".to_string(),
                    None,
                )
            } else {
                let results: Vec<(String, bool)> = c
                    .checks
                    .iter()
                    .map(|k| {
                        let (m, h) = k.predicate.eval_among(f, &k.params, figures);
                        (format!("{}: {m}", k.predicate.name), h)
                    })
                    .collect();
                let holds = results.iter().all(|r| r.1);
                let mut measured = results
                    .into_iter()
                    .map(|r| r.0)
                    .collect::<Vec<_>>()
                    .join("; ");
                if let (false, Some(note)) = (holds, &c.note) {
                    measured = format!("{measured}. {note}");
                }
                (measured, Some(holds))
            };
            Verdict {
                figure: f.key(),
                statement: c.statement.clone(),
                measured,
                holds,
            }
        })
        .collect()
}

/// The first figure another check of `c` reads (`ratio_above`'s `than`) that has no points.
fn other_not_run<'a>(c: &'a plan::Claim, figures: &[FigureData]) -> Option<&'a str> {
    c.checks.iter().find_map(|k| {
        k.predicate
            .params
            .iter()
            .filter(|p| p.kind == predicate::Kind::Figure)
            .filter_map(|p| k.params.get(p.name).and_then(|v| v.as_str()))
            .find(|name| {
                figures
                    .iter()
                    .find(|g| g.id == *name)
                    .is_none_or(|g| g.points.is_empty())
            })
    })
}

#[cfg(test)]
mod tests;
