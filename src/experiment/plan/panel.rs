//! One `[[panel]]` checked: its machine, budget, replication, x axis, series and replay options,
//! and every cell it runs built once.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;

use super::{At, Axis, LOAD_FACTOR, Measure, Panel, Series, Stop, Xs, fill};
use crate::engine::ReplayOptions;
use crate::experiment::ExperimentError;
use crate::experiment::measure;
use crate::experiment::spec::{self, ExperimentFile, ReplicateSpec, ShakeSpec, Values};
use crate::machine::AllocKind;
use crate::replicate::StopRule;
use crate::resource::MachineSpec;
use crate::sched::SchedKind;
use crate::sweep::LoadSpec;
use crate::sweep::external::is_external;
use crate::workload::EstimateModel;
use crate::workload::shake::{DEFAULT_SUBMIT_S, ShakeModel};

/// The panel `p` of file `f`, checked, with the `--quick` budget when `quick` and the command
/// line's replay options `base` under the file's; every mistake of its independent parts at once.
pub(super) fn panel(
    at: &At<'_>,
    f: &ExperimentFile,
    p: &spec::PanelSpec,
    quick: bool,
    base: &ReplayOptions,
) -> Result<Panel, ExperimentError> {
    let d = &f.defaults;
    let replicate = (if quick {
        f.quick.replicate.as_ref()
    } else {
        None
    })
    .or(p.replicate.as_ref())
    .or(d.replicate.as_ref());
    let rule = replicate.map_or_else(
        || {
            let watch = measure::lookup("mean_turnaround_s").expect("a column");
            Ok((fixed(1), watch))
        },
        |r| stop_rule(r.get_ref()).map_err(|m| at.err(&r.span(), "replicate", m)),
    );
    let parts = (
        machine(at, d, p),
        rule,
        stop(at, d, p),
        axis(at, &p.x, quick).and_then(|x| Ok((fixed_load_factor(at, p, &x)?, x))),
        series(at, p),
        replay_options(at, base, d, p),
    );
    let (machine, (rule, watch), stop, (load_factor, x), mut series, options) = match parts {
        (Ok(m), Ok(r), Ok(s), Ok(x), Ok(se), Ok(o)) => (m, r, s, x, se, o),
        (m, r, s, x, se, o) => {
            let errors = [m.err(), r.err(), s.err(), x.err(), se.err(), o.err()];
            return Err(ExperimentError::all(errors.into_iter().flatten()).expect("an error"));
        }
    };
    if stop.is_some() && matches!(x.values, Xs::Auto(_)) {
        return Err(at.err(
            &p.x.values.span(),
            "values",
            "`auto` stops at every series' knee: leave `stop` out, or list the x values",
        ));
    }
    let skip: &[String] = if quick { &f.quick.skip[..] } else { &[] };
    series.retain(|s| !skip.contains(&s.label));
    let panel = Panel {
        name: p.name.get_ref().clone(),
        line: spec::line_of(at.text, &p.workload.span()),
        workload: p.workload.get_ref().clone(),
        machine,
        series,
        seed_key: p.seed_key.as_ref().map(|s| s.get_ref().clone()),
        jobs: jobs(f, p, quick),
        load_factor,
        x,
        rule,
        observe: watch.observed || stop.as_ref().is_some_and(|s| s.measure.observed),
        watch,
        // A model's replicas already differ by their seeds: shaking is for logs.
        shake: p
            .shake
            .or(d.shake)
            .filter(|_| !is_synthetic(p.workload.get_ref()))
            .map(shake_model),
        stop,
        options,
        digests: BTreeMap::new(),
    };
    // A figure drawing a measure indexed by x (`decile_wait`) needs no {x} in the templates: the
    // x picks the value of the one cell.
    let indexed = f.figures.iter().any(|g| {
        g.panel.get_ref() == p.name.get_ref()
            && measure::lookup(g.y.get_ref()).is_ok_and(|m| m.by_x())
    });
    let shaken = replicate.map_or(Ok(()), |r| check_shaken(at, r, &panel));
    let cells = check_cells(at, p, &panel, indexed);
    match ExperimentError::all([shaken.err(), cells.err()].into_iter().flatten()) {
        Some(e) => Err(e),
        None => Ok(panel),
    }
}

/// The panel's machine, or `[defaults]`' (none: the workload's).
fn machine(
    at: &At<'_>,
    d: &spec::Defaults,
    p: &spec::PanelSpec,
) -> Result<Option<MachineSpec>, ExperimentError> {
    p.machine
        .as_ref()
        .or(d.machine.as_ref())
        .map(|m| {
            m.get_ref()
                .parse::<MachineSpec>()
                .map_err(|e| at.err(&m.span(), "machine", e.to_string()))
        })
        .transpose()
}

/// The panel's jobs (or `[defaults]`'); `--quick` never makes a panel bigger than its own budget.
fn jobs(f: &ExperimentFile, p: &spec::PanelSpec, quick: bool) -> Option<usize> {
    let quick_jobs = if quick { f.quick.jobs } else { None };
    match (quick_jobs, p.jobs.or(f.defaults.jobs)) {
        (Some(q), Some(own)) => Some(q.min(own)),
        (q, own) => q.or(own),
    }
}

/// When the panel's series stop climbing x (its `stop`, or `[defaults]`').
fn stop(
    at: &At<'_>,
    d: &spec::Defaults,
    p: &spec::PanelSpec,
) -> Result<Option<Stop>, ExperimentError> {
    p.stop
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
        .transpose()
}

/// The panel's fixed load factor, refused on a load-factor axis.
fn fixed_load_factor(
    at: &At<'_>,
    p: &spec::PanelSpec,
    x: &Axis,
) -> Result<Option<f64>, ExperimentError> {
    match &p.load_factor {
        None => Ok(None),
        Some(lf) if x.name == LOAD_FACTOR => Err(at.err(
            &lf.span(),
            "load_factor",
            "x is the load factor already: leave `load_factor` out, or give x another name",
        )),
        Some(lf) if *lf.get_ref() > 0.0 && lf.get_ref().is_finite() => Ok(Some(*lf.get_ref())),
        Some(lf) => Err(at.err(&lf.span(), "load_factor", "must be a positive number")),
    }
}

/// A log replicated (by `replicate`) must be shaken: its replicas would be identical.
fn check_shaken(
    at: &At<'_>,
    replicate: &Spanned<ReplicateSpec>,
    panel: &Panel,
) -> Result<(), ExperimentError> {
    if panel.rule.max > 1 && panel.shake.is_none() && !is_synthetic(&panel.workload) {
        return Err(at.err(
            &replicate.span(),
            "replicate",
            format!(
                "panel `{}`: replicas of a log are identical unless shaken: add `shake = {{ submit_s = 10 }}` to the panel (or [defaults]), or replicate once",
                panel.name
            ),
        ));
    }
    Ok(())
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
        let err = |message: String| at.err(&key.span(), key.get_ref(), message);
        let option = ReplayOptions::from_entries(one).map_err(|e| err(e.message().to_string()))?;
        option.priority().map_err(|e| err(e.to_string()))?;
        entries.insert(key.get_ref().clone(), value.clone());
    }
    ReplayOptions::from_entries(entries)
        .map_err(|e| at.err(&p.name.span(), "", e.message().to_string()))
}

/// Whether a workload label is a `synth:` model (generated anew for every replica).
pub(super) fn is_synthetic(workload: &str) -> bool {
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
            "sched" => is_external(&l) || l.parse::<SchedKind>().is_ok(),
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

pub(super) fn series(at: &At<'_>, p: &spec::PanelSpec) -> Result<Vec<Series>, ExperimentError> {
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
