//! From an experiment file to a checked plan: panels with their series and x values, the cells a
//! panel's series runs at each x, figures and claims — every label parsed, every name resolved, and
//! every mistake reported with the file, line and key.
//!
//! * [`Plan::with_params`] reads the file ([`super::spec`]) and checks it part by part: each
//!   panel (`panel`: machine, budget, replication, x axis, series, replay options), each figure
//!   (`figure`) and each claim (`claim`), every error pointing at its line through one `At`.
//! * [`Panel::cell`] gives the [`Cell`] a series runs at an x value (`cell`): its labels filled in
//!   by the [`fill`] templates (`template`) and its id, the memo and cache key.
//! * [`substitute_params`] puts the file's `[params]` in place before it is read (`params`).

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;

use super::ExperimentError;
pub use super::measure::Measure;
use super::predicate::Predicate;
use super::spec::{self, ExperimentFile};
use crate::engine::ReplayOptions;
use crate::replicate::StopRule;
use crate::resource::MachineSpec;
use crate::sweep::AutoLoads;
use crate::workload::shake::ShakeModel;

mod cell;
mod claim;
mod figure;
mod panel;
mod params;
mod template;

pub use cell::{Cell, Policy};
pub use params::substitute_params;
pub use template::fill;

/// The x name under which x divides submit times.
pub const LOAD_FACTOR: &str = "load_factor";

/// The seed-key placeholder for a sweep's cell key ([`crate::sweep::Cell::key`]: scheduler,
/// allocator, load factor and estimate model), which `sweep --shake` seeds its replicas with: one
/// stream per policy, not common random numbers.
pub const SWEEP_CELL: &str = "{sweep_cell}";

/// A checked experiment.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The file it came from (for messages).
    pub file: String,
    /// Title for reports.
    pub title: String,
    /// What the study asks.
    pub description: Option<String>,
    /// Built with the `--quick` budget.
    pub quick: bool,
    /// The panels, in file order.
    pub panels: Vec<Panel>,
    /// The figures, in file order.
    pub figures: Vec<Figure>,
    /// The claims, in file order.
    pub claims: Vec<Claim>,
}

impl Plan {
    /// The external policy labels of the plan's cells ([`super::external`]), each once, in panel
    /// order.
    pub fn external_labels(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in &self.panels {
            for s in 0..p.series.len() {
                for x in p.xs() {
                    if let Ok(Cell {
                        sched: Policy::External(e),
                        ..
                    }) = p.cell(s, x)
                        && !out.contains(&e.label)
                    {
                        out.push(e.label);
                    }
                }
            }
        }
        out
    }

    /// Gives every external label its digest (what the label names, read by the caller), so that
    /// its cells' ids change with it; the first error of `digest`, with the label.
    pub fn resolve_external(
        &mut self,
        digest: impl Fn(&str) -> Result<String, String>,
    ) -> Result<(), String> {
        for label in self.external_labels() {
            let d = digest(&label).map_err(|e| format!("`{label}`: {e}"))?;
            for p in &mut self.panels {
                p.digests.insert(label.clone(), d.clone());
            }
        }
        Ok(())
    }
}

/// A workload template on a machine under several series, over an x axis.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Name.
    pub name: String,
    /// Line of the panel's `workload` key (loading errors point there).
    pub line: usize,
    /// Workload label template.
    pub workload: String,
    /// Machine, where given.
    pub machine: Option<MachineSpec>,
    /// The series, in legend order.
    pub series: Vec<Series>,
    /// The x axis.
    pub x: Axis,
    /// Seed key template, where given.
    pub seed_key: Option<String>,
    /// Jobs (`{jobs}`; logs truncated to their first N).
    pub jobs: Option<usize>,
    /// The load factor of every cell when x is not the load factor (`None`: the workload as is).
    pub load_factor: Option<f64>,
    /// Replications of each cell.
    pub rule: StopRule,
    /// The measure the replication rule watches.
    pub watch: Measure,
    /// Shaking of a log's replicas.
    pub shake: Option<ShakeModel>,
    /// When a series stops climbing a list of x values.
    pub stop: Option<Stop>,
    /// How every cell is replayed.
    pub options: ReplayOptions,
    /// Its figures or rules use an observed measure: every replica computes them, and is checked
    /// by the schedule validator.
    pub observe: bool,
    /// The digests of its external policy labels (label → digest), given by the caller
    /// ([`Plan::resolve_external`]).
    pub digests: BTreeMap<String, String>,
}

/// One series: policy label templates and a legend label.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// Scheduler template.
    pub sched: String,
    /// Allocator template.
    pub alloc: String,
    /// Estimate model template.
    pub estimate: String,
}

/// The x axis of a panel.
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    /// `load_factor` or a template parameter's name.
    pub name: String,
    /// Axis label.
    pub label: String,
    /// Log scale.
    pub log: bool,
    /// The values.
    pub values: Xs,
}

/// The x values of a panel.
#[derive(Debug, Clone, PartialEq)]
pub enum Xs {
    /// These values, climbed in increasing order.
    List(Vec<f64>),
    /// Load factors from 0.1 upwards until every series is past its knee.
    Auto(AutoLoads),
}

/// A series stops `margin` points after `measure` first exceeds `above`.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// The measure (mean over replications).
    pub measure: Measure,
    /// The threshold.
    pub above: f64,
    /// Points kept past the first one above.
    pub margin: usize,
}

/// One figure: a panel's series, one measure.
#[derive(Debug, Clone)]
pub struct Figure {
    /// File stem.
    pub name: String,
    /// Index of the panel.
    pub panel: usize,
    /// y measure.
    pub measure: Measure,
    /// Series shown, indices into the panel's (all of them when none were named).
    pub series: Vec<usize>,
    /// Only these x values.
    pub xs: Option<Vec<f64>>,
    /// Title.
    pub title: String,
    /// y label.
    pub y_label: String,
    /// Log y.
    pub log_y: bool,
    /// y is the ratio of the replica means of `measure` and of this measure.
    pub divide_by: Option<Measure>,
    /// Series drawn again with another measure under their own label.
    pub extra: Vec<Extra>,
}

/// A series of a figure drawn with another measure under its own label.
#[derive(Debug, Clone)]
pub struct Extra {
    /// Index of the panel's series.
    pub series: usize,
    /// The measure.
    pub measure: Measure,
    /// Legend label.
    pub label: String,
}

/// One claim.
#[derive(Debug, Clone)]
pub struct Claim {
    /// Index of the figure.
    pub figure: usize,
    /// The sentence.
    pub statement: String,
    /// What it takes to hold: every check (none when the quick budget skips every series they
    /// name: the claim is not checked then).
    pub checks: Vec<Check>,
    /// Printed after what was measured when the claim differs.
    pub note: Option<String>,
}

/// A predicate with its parameters.
#[derive(Debug, Clone)]
pub struct Check {
    /// The predicate.
    pub predicate: &'static Predicate,
    /// Its parameters.
    pub params: toml::Table,
    /// Line of the `predicate` key.
    pub line: usize,
}

impl Plan {
    /// Reads and checks the experiment in `text` (from `file`), with the `--quick` budget when
    /// `quick`.
    pub fn new(file: &str, text: &str, quick: bool) -> Result<Plan, ExperimentError> {
        Plan::with_params(file, text, quick, &[], &ReplayOptions::default())
    }

    /// [`Plan::new`] with some of the file's `[params]` set to other values (`--set name=value`)
    /// and replay options under the file's: an option `base` sets (one that differs from its
    /// default) applies to every panel whose file does not give that key, in `[defaults]` or in
    /// the panel.
    pub fn with_params(
        file: &str,
        text: &str,
        quick: bool,
        set: &[(String, String)],
        base: &ReplayOptions,
    ) -> Result<Plan, ExperimentError> {
        let text = &substitute_params(file, text, quick, set)?;
        let f = ExperimentFile::parse(file, text)?;
        let at = At { file, text };
        if f.panels.is_empty() {
            return Err(ExperimentError::new(
                file,
                1,
                "panel".into(),
                "an experiment needs at least one [[panel]]".into(),
            ));
        }
        // Every mistake is reported at once: a figure is checked unless its panel failed (then
        // only its measures are), a claim unless its figure did.
        let mut errors: Vec<ExperimentError> = [
            unique(&at, f.panels.iter().map(|p| &p.name), "panel"),
            unique(&at, f.figures.iter().map(|p| &p.name), "figure"),
            claim::check_skip(&at, &f),
        ]
        .into_iter()
        .filter_map(Result::err)
        .collect();
        let (mut panels, failed) = split(
            f.panels
                .iter()
                .map(|p| (&p.name, panel::panel(&at, &f, p, quick, base))),
            &mut errors,
        );
        let skip = if quick { &f.quick.skip[..] } else { &[] };
        let (unchecked, checked): (Vec<_>, Vec<_>) = f
            .figures
            .iter()
            .partition(|g| failed.contains(&g.panel.get_ref()));
        let (figures, mut failed) = split(
            checked
                .into_iter()
                .map(|g| (&g.name, figure::figure(&at, &panels, g, skip))),
            &mut errors,
        );
        errors.extend(
            unchecked
                .iter()
                .filter_map(|g| figure::measures(&at, g).err()),
        );
        failed.extend(unchecked.iter().map(|g| g.name.get_ref()));
        let (claims, _) = split(
            f.claims
                .iter()
                .filter(|c| !failed.contains(&c.figure.get_ref()))
                .map(|c| (&c.figure, claim::claim(&at, &panels, &figures, c, skip))),
            &mut errors,
        );
        if let Some(e) = ExperimentError::all(errors) {
            return Err(e);
        }
        figure::mark_observing(&at, &mut panels, &figures, &f.figures)?;
        Ok(Plan {
            file: file.to_string(),
            title: f.title.unwrap_or_else(|| file.to_string()),
            description: f.description,
            quick,
            panels,
            figures,
            claims,
        })
    }
}

/// Where errors point.
struct At<'a> {
    file: &'a str,
    text: &'a str,
}

impl At<'_> {
    fn err(&self, span: &Range<usize>, key: &str, msg: impl Into<String>) -> ExperimentError {
        ExperimentError::new(
            self.file,
            spec::line_of(self.text, span),
            key.to_string(),
            msg.into(),
        )
    }
}

/// The values of `named` that are `Ok`, and the names of those that are not, whose errors go to
/// `errors`.
fn split<'a, T>(
    named: impl Iterator<Item = (&'a Spanned<String>, Result<T, ExperimentError>)>,
    errors: &mut Vec<ExperimentError>,
) -> (Vec<T>, Vec<&'a String>) {
    let mut values = Vec::new();
    let mut failed = Vec::new();
    for (name, r) in named {
        match r {
            Ok(v) => values.push(v),
            Err(e) => {
                errors.push(e);
                failed.push(name.get_ref());
            }
        }
    }
    (values, failed)
}

fn unique<'a>(
    at: &At<'_>,
    names: impl Iterator<Item = &'a Spanned<String>>,
    what: &str,
) -> Result<(), ExperimentError> {
    let mut seen: Vec<&str> = Vec::new();
    for n in names {
        if seen.contains(&n.get_ref().as_str()) {
            return Err(at.err(
                &n.span(),
                "name",
                format!("a second {what} named `{}`", n.get_ref()),
            ));
        }
        seen.push(n.get_ref());
    }
    Ok(())
}

/// `a, b, c` for messages.
pub fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests;
