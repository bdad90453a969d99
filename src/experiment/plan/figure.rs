//! One `[[figure]]` checked: its panel, measure, series and extra lines.

use toml::Spanned;

use super::panel::is_synthetic;
use super::{At, Extra, Figure, Measure, Panel, names};
use crate::engine::FRAGMENTATION_COLUMNS;
use crate::experiment::ExperimentError;
use crate::experiment::measure;
use crate::experiment::spec;
use crate::sweep::external::is_external;

/// A figure of `panels`; series named in `skip` (the quick budget's) are left out quietly.
pub(super) fn figure(
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
    let measure = y(at, &g.y)?;
    let series = match &g.series {
        None => (0..p.series.len()).collect(),
        Some(named) => named
            .iter()
            .filter(|s| !skip.contains(s.get_ref()))
            .map(|s| series_of(at, p, s))
            .collect::<Result<Vec<_>, _>>()?,
    };
    let divide_by = g.divide_by.as_ref().map(|d| divide_by(at, d)).transpose()?;
    let extra = g
        .also
        .iter()
        .filter(|e| !skip.contains(e.series.get_ref()))
        .map(|e| {
            Ok(Extra {
                series: series_of(at, p, &e.series)?,
                measure: y(at, &e.y)?,
                label: e.label.clone(),
            })
        })
        .collect::<Result<Vec<_>, ExperimentError>>()?;
    Ok(Figure {
        divide_by,
        extra,
        name: g.name.get_ref().clone(),
        panel,
        series,
        xs: g.x.clone(),
        title: g
            .title
            .clone()
            .unwrap_or_else(|| format!("{} vs {}, {}", measure.meaning, p.x.label, p.name)),
        y_label: g
            .y_label
            .clone()
            .unwrap_or_else(|| y_label(&measure, &p.workload)),
        log_y: g.log_y,
        measure,
    })
}

/// The mistakes of `g` that do not depend on its panel, its measures: what can be said of a
/// figure whose panel has mistakes of its own.
pub(super) fn measures(at: &At<'_>, g: &spec::FigureSpec) -> Result<(), ExperimentError> {
    let ys = std::iter::once(&g.y).chain(g.also.iter().map(|e| &e.y));
    let errors = ys.filter_map(|m| y(at, m).err());
    let divided = g.divide_by.as_ref().and_then(|d| divide_by(at, d).err());
    ExperimentError::all(errors.chain(divided)).map_or(Ok(()), Err)
}

/// The measure a `y` names.
fn y(at: &At<'_>, name: &Spanned<String>) -> Result<Measure, ExperimentError> {
    measure::lookup(name.get_ref()).map_err(|m| at.err(&name.span(), "y", m))
}

/// The measure a `divide_by` names (one number per run).
fn divide_by(at: &At<'_>, name: &Spanned<String>) -> Result<Measure, ExperimentError> {
    measure::lookup_per_run(name.get_ref()).map_err(|m| at.err(&name.span(), "divide_by", m))
}

/// Marks the panels whose figures draw an observed measure as observing (every replica computes
/// the observed measures); such a panel leaves out the fragmentation pass, so a figure of it that
/// draws a fragmentation column is refused at its `y`, and has no external series (their runners
/// give summaries only).
pub(super) fn mark_observing(
    at: &At<'_>,
    panels: &mut [Panel],
    figures: &[Figure],
    specs: &[spec::FigureSpec],
) -> Result<(), ExperimentError> {
    for g in figures {
        let observed = g.measure.observed
            || g.divide_by.is_some_and(|m| m.observed)
            || g.extra.iter().any(|e| e.measure.observed);
        panels[g.panel].observe |= observed;
    }
    for (g, spec) in figures.iter().zip(specs) {
        let p = &panels[g.panel];
        let frag = [Some(g.measure), g.divide_by, Some(p.watch)]
            .into_iter()
            .flatten()
            .chain(g.extra.iter().map(|e| e.measure))
            .chain(p.stop.as_ref().map(|s| s.measure))
            .find(|m| FRAGMENTATION_COLUMNS.contains(&m.name));
        if let (true, Some(s)) = (p.observe, p.series.iter().find(|s| is_external(&s.sched))) {
            return Err(at.err(
                &spec.y.span(),
                "y",
                format!(
                    "panel `{}` uses observed measures, and `{}` runs outside the library, which gives its replays' summaries only: draw summary measures in its panel",
                    p.name, s.sched
                ),
            ));
        }
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
    Ok(())
}

/// The index of panel `p`'s series whose legend label is `label`.
fn series_of(at: &At<'_>, p: &Panel, label: &Spanned<String>) -> Result<usize, ExperimentError> {
    p.series
        .iter()
        .position(|o| o.label == *label.get_ref())
        .ok_or_else(|| {
            at.err(
                &label.span(),
                "series",
                format!(
                    "panel `{}` has no series `{}`; its series: {}",
                    p.name,
                    label.get_ref(),
                    names(p.series.iter().map(|s| s.label.as_str()))
                ),
            )
        })
}

/// The default y label of `measure` on a panel of `workload`: a model's times are in its own time
/// units, not seconds.
fn y_label(measure: &Measure, workload: &str) -> String {
    match (is_synthetic(workload), measure.unit) {
        (true, "s") => format!("{} (time units)", measure.meaning),
        (true, "s²") => format!("{} (time units²)", measure.meaning),
        _ => measure.axis_label(),
    }
}
