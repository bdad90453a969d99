//! The `index.html` of a sweep (written by `sweep`, `merge` and `plot` beside `report.md`): the
//! report's configuration and tables ([`tables`]), the provenance of `manifest.json` (command
//! line, build, host, configuration hash) and the figures as interactive charts, with the
//! sweep figures' colours, markers and 95% bands ([`plots::curves`]).

use pwa_replay::sweep::KneeRule;

use super::{Chart, Page, Series, hex};
use crate::report::RunConfig;
use crate::report::human::TimeUnit;
use crate::report::manifest::Manifest;
use crate::report::plots::{self, Drawn};
use crate::report::table::SummaryRow;
use crate::report::tables;

/// The page of a sweep's `rows`; `drawn` are its PNGs (file names and initial log axes).
pub fn page(
    rows: &[SummaryRow],
    config: Option<&RunConfig>,
    rule: &KneeRule,
    drawn: &[Drawn],
    provenance: Option<&Manifest>,
) -> Page {
    let mut config = tables::configuration(rows, config);
    if let Some(m) = provenance {
        config.extend(provenance_rows(m));
    }
    let (trace, machine) = (&rows[0].trace, &rows[0].machine);
    Page {
        title: format!("pwa-replay sweep: {trace} on {machine}"),
        intro: "Hover a point for its value and cell, click a legend entry to hide its line, \
                switch an axis between log and linear; click a column header to sort a table. \
                The same results: [report.md](report.md), [summary.csv](summary.csv), the PNG \
                figures; provenance: [manifest.json](manifest.json)."
            .into(),
        config,
        tables: tables::all(rows, rule),
        charts: drawn.iter().map(|d| chart(rows, d)).collect(),
    }
}

/// What `manifest.json` says of how the results were made (not its times: the page of a rerun
/// differs from the first only in its `wall time` row).
fn provenance_rows(m: &Manifest) -> Vec<(String, String)> {
    let build = match (&m.tool.git_commit, m.tool.git_dirty) {
        (Some(c), dirty) => format!(
            "{} {}, git commit `{c}`{}",
            m.tool.name,
            m.tool.version,
            if dirty == Some(true) {
                " with uncommitted changes"
            } else {
                ""
            }
        ),
        (None, _) => format!(
            "{} {} (built outside a git checkout)",
            m.tool.name, m.tool.version
        ),
    };
    let mut rows = vec![
        (
            "command line".to_string(),
            format!("`{}`", m.command_line.join(" ")),
        ),
        ("built from".to_string(), build),
        (
            "host".to_string(),
            format!(
                "{} ({}/{}, {} threads)",
                m.host.name, m.host.os, m.host.arch, m.host.threads
            ),
        ),
    ];
    if let Some(s) = &m.sweep {
        rows.push(("configuration hash".into(), format!("`{}`", s.config_hash)));
        if let Some(shard) = &s.shard {
            rows.push(("shard".into(), shard.clone()));
        }
    }
    rows
}

fn chart(rows: &[SummaryRow], d: &Drawn) -> Chart {
    let fig = d.figure;
    let (trace, machine) = (&rows[0].trace, &rows[0].machine);
    let series = plots::curves(rows, fig)
        .into_iter()
        .map(|c| {
            let band = |x: f64| c.band.iter().find(|b| b.0 == x);
            Series {
                labels: vec![
                    ("trace".into(), trace.clone()),
                    ("machine".into(), machine.clone()),
                    ("scheduler".into(), c.scheduler.clone()),
                    ("allocator".into(), c.allocator.clone()),
                ],
                points: c
                    .points
                    .iter()
                    .map(|&(x, y)| (x, y, band(x).map(|b| b.1), band(x).map(|b| b.2)))
                    .collect(),
                colour: hex(c.colour),
                marker: c.marker.name().into(),
                label: c.label,
            }
        })
        .collect();
    Chart {
        id: fig.file.trim_end_matches(".png").into(),
        title: format!("{} — {trace} on {machine}", fig.title),
        x_label: "Load factor".into(),
        y_label: fig.y_label(TimeUnit::of(trace)),
        log_x: false,
        log_y: d.log_y,
        png: Some(fig.file.into()),
        series,
    }
}
