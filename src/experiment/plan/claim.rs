//! One `[[claim]]` checked: its figure, and each check's predicate with its parameters.

use toml::Spanned;

use super::panel::series;
use super::{At, Check, Claim, Figure, Panel, Xs, names};
use crate::experiment::ExperimentError;
use crate::experiment::predicate;
use crate::experiment::spec;

/// A claim on one of `figures`; a check naming a series the quick budget `skip`s is left out.
pub(super) fn claim(
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
pub(super) fn check_skip(at: &At<'_>, f: &spec::ExperimentFile) -> Result<(), ExperimentError> {
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
