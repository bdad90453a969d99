//! From an experiment file to a checked plan: panels with their series and x values, the cells a
//! panel's series runs at each x, figures and claims — every label parsed, every name resolved, and
//! every mistake reported with the file, line and key.

use std::fmt::Write as _;
use std::ops::Range;

use toml::Spanned;

use super::ExperimentError;
use super::measure;
pub use super::measure::Measure;
use super::predicate::{self, Predicate};
use super::spec::{self, ExperimentFile, ReplicateSpec, ShakeSpec, Values};
use crate::engine::{FRAGMENTATION_COLUMNS, ReplayOptions};
use crate::machine::AllocKind;
use crate::replicate::StopRule;
use crate::resource::MachineSpec;
use crate::sched::SchedKind;
use crate::sweep::{AutoLoads, LoadSpec};
use crate::workload::EstimateModel;
use crate::workload::shake::{DEFAULT_SUBMIT_S, ShakeModel};

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

/// One distinct simulation, replicated: everything its results depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Workload label (catalog name, path or `synth:` label).
    pub workload: String,
    /// Machine, where the panel names one.
    pub machine: Option<MachineSpec>,
    /// Jobs kept of a log.
    pub jobs: Option<usize>,
    /// Submit times divided by this (x on a `load_factor` axis); `None`: the workload as it is.
    pub load_factor: Option<f64>,
    /// Scheduler.
    pub sched: SchedKind,
    /// Allocator.
    pub alloc: AllocKind,
    /// Estimates.
    pub estimate: EstimateModel,
    /// Key of the random streams: replica `r` uses [`crate::replicate::seed_for`]`(seed_key, r)`.
    pub seed_key: String,
    /// Replication rule.
    pub rule: StopRule,
    /// Measure the rule watches.
    pub watch: Measure,
    /// Shaking of a log's replicas.
    pub shake: Option<ShakeModel>,
    /// How it is replayed.
    pub options: ReplayOptions,
    /// Compute the observed measures of every replica (and validate its schedule).
    pub observe: bool,
}

impl Cell {
    /// Everything the cell's results depend on, as one stable string: the same id, the same
    /// results (the memo and the `--resume` cache key).
    pub fn id(&self) -> String {
        let mut s = format!(
            "{}|{}|{}|{}|{}|{}|seed={}|reps={}..{}@{}:{}",
            self.workload,
            self.machine.map_or("-".to_string(), |m| m.to_string()),
            self.jobs.map_or("all".to_string(), |n| n.to_string()),
            self.load_factor.map_or("-".to_string(), |x| x.to_string()),
            self.sched,
            self.alloc,
            self.seed_key,
            self.rule.min,
            self.rule.max,
            self.rule.rel_half_width,
            self.watch.name,
        );
        if self.estimate != EstimateModel::Exact {
            let _ = write!(s, "|{}", self.estimate);
        }
        if let Some(m) = self.shake {
            let _ = write!(s, "|shake={m}");
        }
        let options = self.options.key();
        if !options.is_empty() {
            let _ = write!(s, "|{options}");
        }
        if self.observe {
            s.push_str("|observe");
        }
        s
    }
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
        let mut panels = f
            .panels
            .iter()
            .map(|p| panel(&at, &f, p, quick, base))
            .collect::<Result<Vec<_>, _>>()?;
        if panels.is_empty() {
            return Err(ExperimentError::new(
                file,
                1,
                "panel".into(),
                "an experiment needs at least one [[panel]]".into(),
            ));
        }
        unique(&at, f.panels.iter().map(|p| &p.name), "panel")?;
        unique(&at, f.figures.iter().map(|p| &p.name), "figure")?;
        check_skip(&at, &f)?;
        let skip = if quick { &f.quick.skip[..] } else { &[] };
        let figures = f
            .figures
            .iter()
            .map(|g| figure(&at, &panels, g, skip))
            .collect::<Result<Vec<_>, _>>()?;
        for g in &figures {
            let observed = g.measure.observed
                || g.divide_by.is_some_and(|m| m.observed)
                || g.extra.iter().any(|e| e.measure.observed);
            panels[g.panel].observe |= observed;
        }
        for (g, spec) in figures.iter().zip(&f.figures) {
            let p = &panels[g.panel];
            let frag = [Some(g.measure), g.divide_by, Some(p.watch)]
                .into_iter()
                .flatten()
                .chain(g.extra.iter().map(|e| e.measure))
                .chain(p.stop.as_ref().map(|s| s.measure))
                .find(|m| FRAGMENTATION_COLUMNS.contains(&m.name));
            if let (true, Some(m)) = (p.observe, frag) {
                return Err(at.err(
                    &spec.y.span(),
                    "y",
                    format!(
                        "panel `{}` uses observed measures, which leave out the fragmentation pass: `{}` is not measured there (draw it from a panel of its own)",
                        p.name, m.name
                    ),
                ));
            }
        }
        let claims = f
            .claims
            .iter()
            .map(|c| claim(&at, &panels, &figures, c, skip))
            .collect::<Result<Vec<_>, _>>()?;
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

/// `text` with every `{name}` of its `[params]` replaced by the value (the `[quick.params]` one
/// under `quick`, the one `set` gives first): the file [`Plan::with_params`] reads.
pub fn substitute_params(
    file: &str,
    text: &str,
    quick: bool,
    set: &[(String, String)],
) -> Result<String, ExperimentError> {
    let f = ExperimentFile::parse(file, text)?;
    // The first line setting `key` (also inline: `params = { key = 1 }`).
    let line = |key: &str| {
        text.lines()
            .position(|l| {
                l.split(['{', ',']).any(|part| {
                    part.trim_start()
                        .strip_prefix(key)
                        .is_some_and(|rest| rest.trim_start().starts_with('='))
                })
            })
            .map_or(0, |i| i + 1)
    };
    let known = || names(f.params.keys().map(String::as_str));
    let mut values: Vec<(String, String)> = Vec::new();
    for (name, v) in &f.params {
        if name == "x" || name == "jobs" {
            return Err(ExperimentError::new(
                file,
                line(name),
                name.clone(),
                "{x} and {jobs} are the templates' own: name the parameter otherwise".into(),
            ));
        }
        let own = if quick {
            f.quick.params.get(name)
        } else {
            None
        };
        let value = match own.unwrap_or(v) {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(x) => x.to_string(),
            other => {
                return Err(ExperimentError::new(
                    file,
                    line(name),
                    name.clone(),
                    format!(
                        "a parameter is a string or a number, not {}",
                        other.type_str()
                    ),
                ));
            }
        };
        values.push((name.clone(), value));
    }
    if let Some(k) = f.quick.params.keys().find(|k| !f.params.contains_key(*k)) {
        return Err(ExperimentError::new(
            file,
            line(k),
            k.clone(),
            format!(
                "[quick.params] sets `{k}`, which [params] does not have; params: {}",
                known()
            ),
        ));
    }
    for (name, value) in set {
        match values.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value.clone(),
            None => {
                return Err(ExperimentError::new(
                    file,
                    0,
                    name.clone(),
                    format!("the file has no parameter `{name}`; params: {}", known()),
                ));
            }
        }
    }
    let mut out = text.to_string();
    for (name, value) in &values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    Ok(out)
}

impl Panel {
    /// The cell of series `s` at `x`.
    pub fn cell(&self, s: usize, x: f64) -> Result<Cell, String> {
        let series = &self.series[s];
        let fill = |t: &str| fill(t, x, self.jobs);
        let on_lf = self.x.name == LOAD_FACTOR;
        let workload = fill(&self.workload)?;
        let sched = fill(&series.sched)?
            .parse::<SchedKind>()
            .map_err(|e| e.to_string())?;
        let alloc = fill(&series.alloc)?
            .parse::<AllocKind>()
            .map_err(|e| e.to_string())?;
        let estimate = fill(&series.estimate)?
            .parse::<EstimateModel>()
            .map_err(|e| e.to_string())?;
        let seed_key = match &self.seed_key {
            Some(t) if t.contains(SWEEP_CELL) => {
                let lf = if on_lf {
                    x
                } else {
                    self.load_factor.unwrap_or(1.0)
                };
                let key = crate::sweep::Cell {
                    scheduler: sched,
                    allocator: alloc,
                    load_factor: lf,
                    estimate,
                }
                .key();
                fill(&t.replace(SWEEP_CELL, &key))?
            }
            Some(t) => fill(t)?,
            None if on_lf => format!("{workload}|lf={x}"),
            None => match self.load_factor {
                Some(lf) => format!("{workload}|lf={lf}"),
                None => workload.clone(),
            },
        };
        Ok(Cell {
            sched,
            alloc,
            estimate,
            workload,
            machine: self.machine,
            jobs: self.jobs,
            load_factor: if on_lf { Some(x) } else { self.load_factor },
            seed_key,
            rule: self.rule,
            watch: self.watch,
            shake: self.shake,
            options: self.options.clone(),
            observe: self.observe,
        })
    }

    /// The x values a series may visit (for `auto`: the schedule up to its cap).
    pub fn xs(&self) -> Vec<f64> {
        match &self.x.values {
            Xs::List(v) => v.clone(),
            Xs::Auto(a) => (0..).map_while(|i| a.load(i)).collect(),
        }
    }
}

/// Substitutes `{x}`, `{jobs}` and steps in x `{x<T?A:B}` (`largest-first:{x<0.7?16:64}`) in
/// `template`.
pub fn fill(template: &str, x: f64, jobs: Option<usize>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("`{template}`: a `{{` without its `}}`"))?;
        match &rest[open + 1..open + close] {
            "x" => {
                let _ = write!(out, "{x}");
            }
            "jobs" => match jobs {
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => {
                    return Err(format!(
                        "`{template}` uses {{jobs}} but the panel sets no `jobs`"
                    ));
                }
            },
            other => match step(other, x) {
                Some(v) => out.push_str(v?),
                None => {
                    return Err(format!(
                        "`{template}`: unknown parameter {{{other}}}; templates know {{x}}, {{jobs}} and {{x<T?A:B}}"
                    ));
                }
            },
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `x<T?A:B` (a step in x: `A` below the threshold `T`, `B` from it on), its text at `x`; `None`
/// when `inner` is not of that form.
fn step(inner: &str, x: f64) -> Option<Result<&str, String>> {
    let rest = inner.strip_prefix("x<")?;
    let (threshold, choices) = rest.split_once('?')?;
    let (below, from) = choices.split_once(':')?;
    Some(match threshold.trim().parse::<f64>() {
        Ok(t) if x < t => Ok(below),
        Ok(_) => Ok(from),
        Err(_) => Err(format!(
            "{{{inner}}}: the threshold `{threshold}` is not a number"
        )),
    })
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

fn panel(
    at: &At<'_>,
    f: &ExperimentFile,
    p: &spec::PanelSpec,
    quick: bool,
    base: &ReplayOptions,
) -> Result<Panel, ExperimentError> {
    let d = &f.defaults;
    let machine = p
        .machine
        .as_ref()
        .or(d.machine.as_ref())
        .map(|m| {
            m.get_ref()
                .parse::<MachineSpec>()
                .map_err(|e| at.err(&m.span(), "machine", e.to_string()))
        })
        .transpose()?;
    // `--quick` never makes a panel bigger than its own budget.
    let quick_jobs = if quick { f.quick.jobs } else { None };
    let jobs = match (quick_jobs, p.jobs.or(d.jobs)) {
        (Some(q), Some(own)) => Some(q.min(own)),
        (q, own) => q.or(own),
    };
    let replicate = (if quick {
        f.quick.replicate.as_ref()
    } else {
        None
    })
    .or(p.replicate.as_ref())
    .or(d.replicate.as_ref());
    let (rule, watch) = match replicate {
        Some(r) => stop_rule(r.get_ref()).map_err(|m| at.err(&r.span(), "replicate", m))?,
        None => (
            fixed(1),
            measure::lookup("mean_turnaround_s").expect("a column"),
        ),
    };
    let stop = p
        .stop
        .as_ref()
        .or(d.stop.as_ref())
        .map(|s| {
            let spec = s.get_ref();
            let name = spec.measure.as_deref().unwrap_or("mean_turnaround_s");
            Ok(Stop {
                measure: measure::lookup_per_run(name).map_err(|m| at.err(&s.span(), "stop", m))?,
                above: spec.above,
                margin: spec.margin.unwrap_or(1),
            })
        })
        .transpose()?;
    let x = axis(at, &p.x, quick)?;
    let load_factor = match &p.load_factor {
        None => None,
        Some(lf) if x.name == LOAD_FACTOR => {
            return Err(at.err(
                &lf.span(),
                "load_factor",
                "x is the load factor already: leave `load_factor` out, or give x another name",
            ));
        }
        Some(lf) if *lf.get_ref() > 0.0 && lf.get_ref().is_finite() => Some(*lf.get_ref()),
        Some(lf) => return Err(at.err(&lf.span(), "load_factor", "must be a positive number")),
    };
    if stop.is_some() && matches!(x.values, Xs::Auto(_)) {
        return Err(at.err(
            &p.x.values.span(),
            "values",
            "`auto` stops at every series' knee: leave `stop` out, or list the x values",
        ));
    }
    let observe = watch.observed || stop.as_ref().is_some_and(|s| s.measure.observed);
    let skip: &[String] = if quick { &f.quick.skip[..] } else { &[] };
    let mut series = series(at, p)?;
    series.retain(|s| !skip.contains(&s.label));
    let panel = Panel {
        name: p.name.get_ref().clone(),
        line: spec::line_of(at.text, &p.workload.span()),
        workload: p.workload.get_ref().clone(),
        machine,
        series,
        x,
        seed_key: p.seed_key.as_ref().map(|s| s.get_ref().clone()),
        jobs,
        load_factor,
        rule,
        watch,
        // A model's replicas already differ by their seeds: shaking is for logs.
        shake: p
            .shake
            .or(d.shake)
            .filter(|_| !is_synthetic(p.workload.get_ref()))
            .map(shake_model),
        stop,
        options: replay_options(at, base, d, p)?,
        observe,
    };
    if let Some(r) = replicate
        && panel.rule.max > 1
        && panel.shake.is_none()
        && !is_synthetic(&panel.workload)
    {
        return Err(at.err(
            &r.span(),
            "replicate",
            format!(
                "panel `{}`: replicas of a log are identical unless shaken: add `shake = {{ submit_s = 10 }}` to the panel (or [defaults]), or replicate once",
                panel.name
            ),
        ));
    }
    // A figure drawing a measure indexed by x (`decile_wait`) needs no {x} in the templates: the
    // x picks the value of the one cell.
    let indexed = f.figures.iter().any(|g| {
        g.panel.get_ref() == p.name.get_ref()
            && measure::lookup(g.y.get_ref()).is_ok_and(|m| m.by_x())
    });
    check_cells(at, p, &panel, indexed)?;
    Ok(panel)
}

/// The panel's replay options: those `base` sets, then `[defaults]`' keys, then the panel's own,
/// each key over the one before. A value that does not read is refused at its line.
fn replay_options(
    at: &At<'_>,
    base: &ReplayOptions,
    d: &spec::Defaults,
    p: &spec::PanelSpec,
) -> Result<ReplayOptions, ExperimentError> {
    let mut entries = base.entries();
    for (key, value) in d.options.0.iter().chain(&p.options.0) {
        let one = toml::Table::from_iter([(key.get_ref().clone(), value.clone())]);
        ReplayOptions::from_entries(one)
            .map_err(|e| at.err(&key.span(), key.get_ref(), e.message().to_string()))?;
        entries.insert(key.get_ref().clone(), value.clone());
    }
    ReplayOptions::from_entries(entries)
        .map_err(|e| at.err(&p.name.span(), "", e.message().to_string()))
}

/// Whether a workload label is a `synth:` model (generated anew for every replica).
fn is_synthetic(workload: &str) -> bool {
    workload.trim_start().starts_with("synth:")
}

/// Every cell of the panel builds (labels parse at every x), x is used, series are distinct.
fn check_cells(
    at: &At<'_>,
    p: &spec::PanelSpec,
    panel: &Panel,
    indexed: bool,
) -> Result<(), ExperimentError> {
    let on_lf = panel.x.name == LOAD_FACTOR;
    let mut templates = vec![p.workload.get_ref().as_str()];
    templates.extend(p.seed_key.iter().map(|s| s.get_ref().as_str()));
    for s in &panel.series {
        templates.extend([s.sched.as_str(), s.alloc.as_str(), s.estimate.as_str()]);
    }
    if !on_lf && !indexed && !templates.iter().any(|t| t.contains("{x}")) {
        return Err(at.err(
            &p.name.span(),
            "x",
            format!(
                "x is `{}` but no template of the panel uses {{x}}: put {{x}} in the workload or a policy label (e.g. `rate={{x}}`), make x the load_factor, or draw a measure indexed by x (`decile_wait`)",
                panel.x.name
            ),
        ));
    }
    if matches!(panel.x.values, Xs::Auto(_))
        && panel.series.iter().any(|s| {
            [&s.sched, &s.alloc, &s.estimate]
                .iter()
                .any(|t| t.contains("{x}"))
        })
    {
        return Err(at.err(
            &p.x.values.span(),
            "values",
            "`auto` climbs load factors: policy labels cannot depend on {x}",
        ));
    }
    for (i, s) in panel.series.iter().enumerate() {
        for &x in &panel.xs() {
            panel.cell(i, x).map_err(|m| {
                let (key, span) = label_at(p, panel, s, x).unwrap_or(("series", p.name.span()));
                at.err(&span, key, format!("{}: {m}", s.label))
            })?;
        }
        if panel.series[..i].iter().any(|o| o.label == s.label) {
            return Err(at.err(
                &p.name.span(),
                "series",
                format!("the series `{}` is named twice", s.label),
            ));
        }
    }
    Ok(())
}

/// Where series `s`'s label that does not read at `x` was written: the `sched`, `alloc` or
/// `estimate` entry (of the panel or of its `[[panel.series]]`) holding the failing template.
fn label_at(
    p: &spec::PanelSpec,
    panel: &Panel,
    s: &Series,
    x: f64,
) -> Option<(&'static str, Range<usize>)> {
    let reads = |t: &str, key: &str| {
        fill(t, x, panel.jobs).is_ok_and(|l| match key {
            "sched" => l.parse::<SchedKind>().is_ok(),
            "alloc" => l.parse::<AllocKind>().is_ok(),
            _ => l.parse::<EstimateModel>().is_ok(),
        })
    };
    let (key, template) = [
        ("sched", &s.sched),
        ("alloc", &s.alloc),
        ("estimate", &s.estimate),
    ]
    .into_iter()
    .find(|(key, t)| !reads(t, key))?;
    let listed = match key {
        "sched" => &p.sched,
        "alloc" => &p.alloc,
        _ => &p.estimate,
    };
    let own = p.series.iter().filter_map(|e| match key {
        "sched" => Some(&e.sched),
        "alloc" => Some(&e.alloc),
        _ => e.estimate.as_ref(),
    });
    listed
        .iter()
        .chain(own)
        .find(|t| t.get_ref() == template)
        .map(|t| (key, t.span()))
}

fn fixed(n: usize) -> StopRule {
    StopRule {
        min: n,
        max: n,
        // Never met: exactly n replications.
        rel_half_width: f64::NEG_INFINITY,
    }
}

fn stop_rule(r: &ReplicateSpec) -> Result<(StopRule, Measure), String> {
    let watch = measure::lookup_per_run(r.measure.as_deref().unwrap_or("mean_turnaround_s"))?;
    let rule = match (r.count, r.min, r.max, r.half_width) {
        (Some(0), ..) => return Err("`count` must be at least 1".into()),
        (Some(n), None, None, None) => fixed(n),
        (Some(_), ..) => {
            return Err("give either `count`, or `half_width` with `min` and `max`".into());
        }
        (None, min, max, Some(h)) if h > 0.0 && h.is_finite() => {
            let (min, max) = (min.unwrap_or(2), max.unwrap_or(20));
            if max < min.max(1) {
                return Err(format!("`max` ({max}) is below `min` ({min})"));
            }
            StopRule {
                min,
                max,
                rel_half_width: h,
            }
        }
        (None, ..) => {
            return Err(
                "give `count = N`, or `half_width` (a fraction > 0) with optional `min` and `max`"
                    .into(),
            );
        }
    };
    Ok((rule, watch))
}

fn shake_model(s: ShakeSpec) -> ShakeModel {
    ShakeModel {
        submit_s: s.submit_s.unwrap_or(DEFAULT_SUBMIT_S),
        runtime_frac: s.runtime.unwrap_or(0.0),
    }
}

fn axis(at: &At<'_>, x: &spec::XSpec, quick: bool) -> Result<Axis, ExperimentError> {
    let chosen = match (&x.quick, quick) {
        (Some(q), true) => q,
        _ => &x.values,
    };
    let values = xs(chosen.get_ref(), x.name == LOAD_FACTOR)
        .map_err(|m| at.err(&chosen.span(), "values", m))?;
    Ok(Axis {
        name: x.name.clone(),
        label: x.label.clone().unwrap_or_else(|| x.name.replace('_', " ")),
        log: x.log,
        values,
    })
}

fn xs(v: &Values, load_factor: bool) -> Result<Xs, String> {
    let list = match v {
        Values::List(v) => v.clone(),
        Values::Text(t) => match t.parse::<LoadSpec>() {
            Ok(LoadSpec::List(v)) => v,
            Ok(LoadSpec::Auto(a)) if load_factor => return Ok(Xs::Auto(a)),
            Ok(LoadSpec::Auto(_)) => return Err("`auto` is for the load_factor axis only".into()),
            Err(e) => return Err(format!("{e} (or write a list: [1, 2, 5])")),
        },
    };
    if list.is_empty() || list.iter().any(|x| !x.is_finite()) {
        return Err("x values must be finite numbers, at least one".into());
    }
    if load_factor && list.iter().any(|&x| x <= 0.0) {
        return Err("load factors must be positive".into());
    }
    let mut sorted = list;
    sorted.sort_by(f64::total_cmp);
    sorted.dedup();
    Ok(Xs::List(sorted))
}

fn series(at: &At<'_>, p: &spec::PanelSpec) -> Result<Vec<Series>, ExperimentError> {
    let exact = vec![Spanned::new(0..0, "exact".to_string())];
    let estimates = if p.estimate.is_empty() {
        &exact
    } else {
        &p.estimate
    };
    let mut out = Vec::new();
    for s in &p.sched {
        for a in &p.alloc {
            for e in estimates {
                out.push(one_series(s.get_ref(), a.get_ref(), e.get_ref(), None));
            }
        }
    }
    if p.sched.is_empty() != p.alloc.is_empty() {
        return Err(at.err(
            &p.name.span(),
            "sched",
            "give both `sched` and `alloc` (crossed), or neither and list `series`",
        ));
    }
    for s in &p.series {
        let e = s
            .estimate
            .as_ref()
            .map_or("exact", |e| e.get_ref().as_str());
        out.push(one_series(
            s.sched.get_ref(),
            s.alloc.get_ref(),
            e,
            s.label.clone(),
        ));
    }
    if out.is_empty() {
        return Err(at.err(
            &p.name.span(),
            "series",
            "the panel has no series: give `sched` and `alloc`, or `[[panel.series]]`",
        ));
    }
    Ok(out)
}

fn one_series(sched: &str, alloc: &str, estimate: &str, label: Option<String>) -> Series {
    let label = label.unwrap_or_else(|| match estimate.trim() {
        "exact" => format!("{sched}+{alloc}"),
        e => format!("{sched}+{alloc}+{e}"),
    });
    Series {
        label,
        sched: sched.to_string(),
        alloc: alloc.to_string(),
        estimate: estimate.to_string(),
    }
}

/// A figure of `panels`; series named in `skip` (the quick budget's) are left out quietly.
fn figure(
    at: &At<'_>,
    panels: &[Panel],
    g: &spec::FigureSpec,
    skip: &[String],
) -> Result<Figure, ExperimentError> {
    let panel = panels
        .iter()
        .position(|p| p.name == *g.panel.get_ref())
        .ok_or_else(|| {
            at.err(
                &g.panel.span(),
                "panel",
                format!(
                    "no panel named `{}`; panels: {}",
                    g.panel.get_ref(),
                    names(panels.iter().map(|p| p.name.as_str()))
                ),
            )
        })?;
    let p = &panels[panel];
    let measure = measure::lookup(g.y.get_ref()).map_err(|m| at.err(&g.y.span(), "y", m))?;
    let series = g
        .series
        .iter()
        .flatten()
        .filter(|s| !skip.contains(s.get_ref()))
        .map(|s| {
            p.series
                .iter()
                .position(|o| o.label == *s.get_ref())
                .ok_or_else(|| {
                    at.err(
                        &s.span(),
                        "series",
                        format!(
                            "panel `{}` has no series `{}`; its series: {}",
                            p.name,
                            s.get_ref(),
                            names(p.series.iter().map(|s| s.label.as_str()))
                        ),
                    )
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let divide_by = g
        .divide_by
        .as_ref()
        .map(|d| {
            measure::lookup_per_run(d.get_ref()).map_err(|m| at.err(&d.span(), "divide_by", m))
        })
        .transpose()?;
    let position = |s: &Spanned<String>| {
        p.series
            .iter()
            .position(|o| o.label == *s.get_ref())
            .ok_or_else(|| {
                at.err(
                    &s.span(),
                    "series",
                    format!(
                        "panel `{}` has no series `{}`; its series: {}",
                        p.name,
                        s.get_ref(),
                        names(p.series.iter().map(|s| s.label.as_str()))
                    ),
                )
            })
    };
    let extra = g
        .also
        .iter()
        .filter(|e| !skip.contains(e.series.get_ref()))
        .map(|e| {
            Ok(Extra {
                series: position(&e.series)?,
                measure: measure::lookup(e.y.get_ref()).map_err(|m| at.err(&e.y.span(), "y", m))?,
                label: e.label.clone(),
            })
        })
        .collect::<Result<Vec<_>, ExperimentError>>()?;
    Ok(Figure {
        divide_by,
        extra,
        name: g.name.get_ref().clone(),
        panel,
        series: if g.series.is_none() {
            (0..p.series.len()).collect()
        } else {
            series
        },
        xs: g.x.clone(),
        title: g
            .title
            .clone()
            .unwrap_or_else(|| format!("{} vs {}, {}", measure.meaning, p.x.label, p.name)),
        y_label: g.y_label.clone().unwrap_or_else(|| {
            // A model's times are in its own time units, not seconds.
            match (is_synthetic(&p.workload), measure.unit) {
                (true, "s") => format!("{} (time units)", measure.meaning),
                (true, "s²") => format!("{} (time units²)", measure.meaning),
                _ => measure.axis_label(),
            }
        }),
        log_y: g.log_y,
        measure,
    })
}

/// A claim on one of `figures`; a check naming a series the quick budget `skip`s is left out.
fn claim(
    at: &At<'_>,
    panels: &[Panel],
    figures: &[Figure],
    c: &spec::ClaimSpec,
    skip: &[String],
) -> Result<Claim, ExperimentError> {
    let figure = figures
        .iter()
        .position(|f| f.name == *c.figure.get_ref())
        .ok_or_else(|| {
            at.err(
                &c.figure.span(),
                "figure",
                format!(
                    "no figure named `{}`; figures: {}",
                    c.figure.get_ref(),
                    names(figures.iter().map(|f| f.name.as_str()))
                ),
            )
        })?;
    let skipped = |params: &toml::Table| {
        params.values().any(|v| match v {
            toml::Value::String(s) => skip.contains(s),
            toml::Value::Array(a) => a
                .iter()
                .any(|v| v.as_str().is_some_and(|s| skip.iter().any(|k| k == s))),
            _ => false,
        })
    };
    let checks = match (&c.predicate, c.checks.is_empty()) {
        (Some(_), true) if skipped(&c.params) => Vec::new(),
        (Some(p), true) => vec![check(at, panels, figures, &figures[figure], p, &c.params)?],
        (None, false) if c.params.is_empty() => c
            .checks
            .iter()
            .filter(|k| !skipped(&k.params))
            .map(|k| {
                check(
                    at,
                    panels,
                    figures,
                    &figures[figure],
                    &k.predicate,
                    &k.params,
                )
            })
            .collect::<Result<_, _>>()?,
        (None, false) => {
            let key = c.params.keys().next().map_or("", String::as_str);
            return Err(at.err(
                &c.figure.span(),
                key,
                format!("`{key}` belongs in a `[[claim.check]]` when the claim has checks"),
            ));
        }
        (Some(p), false) => {
            return Err(at.err(
                &p.span(),
                "predicate",
                "a claim has one `predicate` or `[[claim.check]]` tables, not both",
            ));
        }
        (None, true) => {
            return Err(at.err(
                &c.figure.span(),
                "predicate",
                "a claim needs a `predicate` (or `[[claim.check]]` tables, each with one)",
            ));
        }
    };
    Ok(Claim {
        figure,
        statement: c.statement.clone(),
        checks,
        note: c.note.clone(),
    })
}

/// One predicate of a claim on figure `f`, its parameters checked.
fn check(
    at: &At<'_>,
    panels: &[Panel],
    figures: &[Figure],
    f: &Figure,
    name: &Spanned<String>,
    params: &toml::Table,
) -> Result<Check, ExperimentError> {
    let predicate =
        predicate::lookup(name.get_ref()).map_err(|m| at.err(&name.span(), "predicate", m))?;
    let labels: Vec<&str> = f
        .series
        .iter()
        .map(|&i| panels[f.panel].series[i].label.as_str())
        .collect();
    predicate
        .check(params, &labels)
        .map_err(|m| at.err(&name.span(), "predicate", m))?;
    check_at(&panels[f.panel], f, params).map_err(|m| at.err(&name.span(), "at", m))?;
    for p in predicate
        .params
        .iter()
        .filter(|p| p.kind == predicate::Kind::Figure)
    {
        let Some(other) = params.get(p.name).and_then(|v| v.as_str()) else {
            continue;
        };
        if !figures.iter().any(|g| g.name == other) {
            return Err(at.err(
                &name.span(),
                p.name,
                format!(
                    "no figure named `{other}`; figures: {}",
                    names(figures.iter().map(|g| g.name.as_str()))
                ),
            ));
        }
    }
    Ok(Check {
        predicate,
        params: params.clone(),
        line: spec::line_of(at.text, &name.span()),
    })
}

/// A claim's `at = X` must be an x value its figure shows (where the values are listed).
fn check_at(panel: &Panel, f: &Figure, params: &toml::Table) -> Result<(), String> {
    let Some(x) = params
        .get("at")
        .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
    else {
        return Ok(());
    };
    let Xs::List(xs) = &panel.x.values else {
        return Ok(());
    };
    let shown: Vec<f64> = xs
        .iter()
        .copied()
        .filter(|v| f.xs.as_ref().is_none_or(|only| only.contains(v)))
        .collect();
    if shown.contains(&x) {
        return Ok(());
    }
    Err(format!(
        "`at = {x}` is not an x value of figure `{}`; its x values: {}",
        f.name,
        shown
            .iter()
            .map(|v| v.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Every label of the quick budget's `skip` names a series of some panel.
fn check_skip(at: &At<'_>, f: &spec::ExperimentFile) -> Result<(), ExperimentError> {
    let mut labels = Vec::new();
    for p in &f.panels {
        labels.extend(series(at, p)?.into_iter().map(|s| s.label));
    }
    match f.quick.skip.iter().find(|s| !labels.contains(s)) {
        None => Ok(()),
        Some(s) => Err(ExperimentError::new(
            at.file,
            at.text
                .lines()
                .position(|l| l.trim_start().starts_with("skip"))
                .map_or(0, |i| i + 1),
            "skip".into(),
            format!(
                "[quick] skip names `{s}`, which is no panel's series; series: {}",
                names(labels.iter().map(String::as_str))
            ),
        )),
    }
}

/// `a, b, c` for messages.
pub fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
title = "t"

[defaults]
replicate = { count = 3 }
shake = { submit_s = 10 }

[[panel]]
name = "kth"
workload = "kth-sp2"
sched = ["easy", "conservative"]
alloc = ["flat"]
estimate = ["user"]
x = { values = "0.5:1.5:0.5", quick = [1.0] }

[[panel]]
name = "k"
workload = "synth:uniform,mesh=32x32,jobs={jobs},rate=2.5"
jobs = 100
seed_key = "uniform/rate=2.5"
x = { name = "window", values = [1, 10, 240], log = true }
[[panel.series]]
sched = "window:{x}"
alloc = "mpl"
label = "window:K+mpl"
[[panel.series]]
sched = "oo"
alloc = "mpl"

[[figure]]
name = "turnaround"
panel = "kth"
y = "mean_turnaround_s"

[[claim]]
figure = "turnaround"
statement = "EASY is not worse."
predicate = "lowest"
series = "easy+flat+user"
"#;

    #[test]
    fn a_step_in_x_picks_a_value_below_and_from_its_threshold() {
        let t = "largest-first:{x<0.7?16:64}";
        assert_eq!(fill(t, 0.6, None).unwrap(), "largest-first:16");
        assert_eq!(fill(t, 0.7, None).unwrap(), "largest-first:64");
        assert_eq!(fill("a{x<1?b:c}{x}", 2.0, None).unwrap(), "ac2");
        assert!(
            fill("{x<high?1:2}", 0.5, None)
                .unwrap_err()
                .contains("not a number")
        );
        assert!(fill("{y}", 0.5, None).unwrap_err().contains("{x<T?A:B}"));
    }

    #[test]
    fn a_file_becomes_panels_series_cells_figures_and_claims() {
        let p = Plan::new("e.toml", FILE, false).unwrap();
        assert_eq!(p.panels.len(), 2);
        let kth = &p.panels[0];
        let labels: Vec<&str> = kth.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["easy+flat+user", "conservative+flat+user"]);
        assert_eq!(kth.xs(), vec![0.5, 1.0, 1.5]);
        assert_eq!(kth.rule.max, 3);
        let c = kth.cell(1, 1.5).unwrap();
        assert_eq!(c.sched, SchedKind::Conservative);
        assert_eq!(c.load_factor, Some(1.5));
        assert_eq!(c.seed_key, "kth-sp2|lf=1.5");
        assert_eq!(
            c.seed_key,
            kth.cell(0, 1.5).unwrap().seed_key,
            "common random numbers"
        );
        let k = &p.panels[1];
        let c = k.cell(0, 240.0).unwrap();
        assert_eq!(c.sched, SchedKind::Window(240));
        assert_eq!(c.workload, "synth:uniform,mesh=32x32,jobs=100,rate=2.5");
        assert_eq!(c.load_factor, None);
        assert_eq!(c.seed_key, "uniform/rate=2.5");
        assert_eq!(k.cell(1, 1.0).unwrap().id(), k.cell(1, 240.0).unwrap().id());
        assert_ne!(k.cell(0, 1.0).unwrap().id(), k.cell(0, 240.0).unwrap().id());
        assert_eq!(p.figures[0].series, vec![0, 1]);
        assert_eq!(p.figures[0].y_label, "mean turnaround (s)");
        assert_eq!(p.claims[0].checks[0].line, 38);
        let q = Plan::new("e.toml", FILE, true).unwrap();
        assert_eq!(q.panels[0].xs(), vec![1.0]);
    }

    #[test]
    fn a_fixed_load_factor_applies_to_every_cell_of_another_axis() {
        let text = FILE.replace("seed_key = \"uniform/rate=2.5\"\n", "load_factor = 0.8\n");
        let p = Plan::new("e.toml", &text, false).unwrap();
        let c = p.panels[1].cell(0, 10.0).unwrap();
        assert_eq!(c.load_factor, Some(0.8));
        assert!(c.seed_key.ends_with("|lf=0.8"), "{}", c.seed_key);
        let e = refused(
            "x = { values = \"0.5:1.5:0.5\"",
            "load_factor = 2\nx = { values = \"0.5:1.5:0.5\"",
        );
        assert_eq!(e.key, "load_factor", "{e}");
    }

    #[test]
    fn a_claim_of_several_checks_holds_when_all_do_and_is_refused_when_malformed() {
        let checks = "predicate = \"lowest\"\nseries = \"easy+flat+user\"\n";
        let two = format!(
            "note = \"why\"\n[[claim.check]]\n{checks}[[claim.check]]\npredicate = \"highest\"\nseries = \"conservative+flat+user\"\nat = 1\n"
        );
        let text = FILE.replace(checks, &two);
        let p = Plan::new("e.toml", &text, false).unwrap();
        let c = &p.claims[0];
        assert_eq!(c.checks.len(), 2);
        assert_eq!((c.checks[0].line, c.checks[1].line), (40, 43));
        assert_eq!(c.note.as_deref(), Some("why"));
        let e = refused(checks, &format!("{checks}[[claim.check]]\n{checks}"));
        assert!(e.to_string().contains("not both"), "{e}");
        let e = refused(checks, "");
        assert!(e.to_string().contains("needs a `predicate`"), "{e}");
        let e = refused(
            checks,
            &format!("tolerance = 0.1\n[[claim.check]]\n{checks}"),
        );
        assert_eq!(e.key, "tolerance", "{e}");
        let e = refused(
            checks,
            "[[claim.check]]\npredicate = \"lowest\"\nseries = \"easy\"\n",
        );
        assert_eq!((e.line, e.key.as_str()), (39, "predicate"), "{e}");
    }

    fn refused(from: &str, to: &str) -> ExperimentError {
        let text = FILE.replace(from, to);
        assert_ne!(text, FILE, "`{from}` is in the file");
        Plan::new("e.toml", &text, false).unwrap_err()
    }

    #[test]
    fn bad_labels_and_names_are_refused_with_their_line_and_the_valid_ones() {
        let e = refused("\"easy\", \"conservative\"", "\"easy\", \"backfill\"");
        assert_eq!(
            (e.line, e.key.as_str()),
            (11, "sched"),
            "the label's own line: {e}"
        );
        assert!(
            e.to_string().contains("conservative") && e.to_string().contains("fcfs"),
            "{e}"
        );
        let e = refused("y = \"mean_turnaround_s\"", "y = \"turnaround\"");
        assert_eq!(e.line, 33, "{e}");
        assert!(e.to_string().contains("mean_turnaround_s"), "{e}");
        let e = refused("panel = \"kth\"", "panel = \"ctc\"");
        assert!(e.to_string().contains("`kth`"), "{e}");
        let e = refused("predicate = \"lowest\"", "predicate = \"best\"");
        assert_eq!(e.line, 38, "{e}");
        assert!(e.to_string().contains("lowest"), "{e}");
        let e = refused("series = \"easy+flat+user\"", "series = \"easy+flat\"");
        assert!(e.to_string().contains("easy+flat+user"), "{e}");
        let e = refused("sched = \"window:{x}\"", "sched = \"window:{x}{k}\"");
        assert!(e.to_string().contains("{k}"), "{e}");
        let e = refused("values = [1, 10, 240]", "values = [0, 10, 240]");
        assert!(e.to_string().contains("window:0"), "{e}");
        let e = refused(
            "x = { values = \"0.5:1.5:0.5\", quick = [1.0] }",
            "x = { name = \"rate\", values = [1] }",
        );
        assert!(
            e.to_string().contains("no template of the panel uses {x}"),
            "{e}"
        );
        let e = refused(
            "x = { values = \"0.5:1.5:0.5\", quick = [1.0] }",
            "x = { values = \"auto\" }\nstop = { above = 5 }",
        );
        assert!(e.to_string().contains("knee"), "{e}");
        let e = refused(
            "replicate = { count = 3 }",
            "replicate = { count = 3, min = 2 }",
        );
        assert_eq!(e.line, 5, "{e}");
    }

    #[test]
    fn replay_options_layer_the_command_line_defaults_and_the_panel_key_by_key() {
        use crate::engine::Dilation;
        let text = FILE
            .replace(
                "shake = { submit_s = 10 }\n",
                "shake = { submit_s = 10 }\nkill_at_estimate = true\n",
            )
            .replace(
                "seed_key = \"uniform/rate=2.5\"\n",
                "seed_key = \"uniform/rate=2.5\"\nkill_at_estimate = false\ndilation = \"linear:0.5\"\n",
            );
        let base = ReplayOptions {
            dilation: Some(Dilation::Linear { alpha: 1.0 }),
            ..ReplayOptions::default()
        };
        let p = Plan::with_params("e.toml", &text, false, &[], &base).unwrap();
        let inherited = &p.panels[0].options;
        assert!(
            inherited.kill_at_estimate,
            "[defaults] over the command line"
        );
        assert_eq!(
            inherited.dilation, base.dilation,
            "the command line where the file is silent"
        );
        let own = &p.panels[1].options;
        assert!(!own.kill_at_estimate, "the panel over [defaults]");
        assert_eq!(own.dilation, Some(Dilation::Linear { alpha: 0.5 }));
        let c = p.panels[0].cell(0, 1.0).unwrap();
        assert!(
            c.id().ends_with("|dilation=linear:1|kill_at_estimate=true"),
            "{}",
            c.id()
        );
        let plain = Plan::new("e.toml", FILE, false).unwrap();
        let id = plain.panels[0].cell(0, 1.0).unwrap().id();
        assert!(!id.contains("kill") && !id.contains("dilation"), "{id}");
    }

    #[test]
    fn a_bad_replay_option_is_refused_at_its_line_and_an_unknown_key_lists_the_options() {
        let e = refused(
            "seed_key = \"uniform/rate=2.5\"\n",
            "seed_key = \"uniform/rate=2.5\"\ndilation = \"linear:-1\"\n",
        );
        assert_eq!((e.line, e.key.as_str()), (21, "dilation"), "{e}");
        assert!(e.message.contains("linear:α"), "{e}");
        let e = refused("jobs = 100\n", "jobs = 100\nkill_at_estimate = 1\n");
        assert_eq!((e.line, e.key.as_str()), (20, "kill_at_estimate"), "{e}");
        let e = refused("jobs = 100\n", "jobs = 100\ndilatation = \"linear:1\"\n");
        assert_eq!(e.line, 20, "{e}");
        assert!(
            e.message.contains("workload") && e.message.contains("`dilation`"),
            "{e}"
        );
    }

    #[test]
    fn templates_substitute_x_and_jobs_only() {
        assert_eq!(
            fill("rate={x},jobs={jobs}", 2.5, Some(10)).unwrap(),
            "rate=2.5,jobs=10"
        );
        assert_eq!(fill("mesh={x}x{x}", 16.0, None).unwrap(), "mesh=16x16");
        assert!(fill("{jobs}", 1.0, None).is_err());
        assert!(fill("{y}", 1.0, None).is_err());
        assert!(fill("{x", 1.0, None).is_err());
    }
}
