//! The tables of a sweep's report as data — configuration, knee per policy, key numbers, against
//! FCFS, confidence — computed once and rendered twice: as Markdown ([`super::markdown`]) and as
//! the sortable tables of `index.html` ([`super::html`]). Cell text may hold Markdown code spans
//! (`` `fcfs` ``); both renderers show them as code.

use pwa_replay::sweep::{Knee, KneeRule};
use serde::Serialize;

use super::RunConfig;
use super::human;
use super::spread;
use super::table::SummaryRow;

/// One table of the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Table {
    /// Section title.
    pub title: String,
    /// Paragraph before the table (may be empty).
    pub note: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Right-aligned (numeric) columns.
    pub numeric: Vec<bool>,
    /// The rows, one text per column.
    pub rows: Vec<Vec<String>>,
}

/// The configuration rows (name, value) shown at the top of the report.
pub fn configuration(rows: &[SummaryRow], config: Option<&RunConfig>) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut row = |k: &str, v: String| out.push((k.to_string(), v));
    row("trace", format!("`{}`", rows[0].trace));
    row("machine", format!("`{}`", rows[0].machine));
    let Some(c) = config else {
        row(
            "cells",
            format!("{} (redrawn from the summary table)", rows.len()),
        );
        return out;
    };
    row("trace file", format!("`{}`", c.trace_path));
    row("sha256 (uncompressed)", format!("`{}`", c.trace_sha256));
    row("jobs replayed", jobs_replayed(c));
    row("schedulers", code_list(&c.schedulers));
    row("allocators", code_list(&c.allocators));
    row("load factors", format!("`{}`", c.loads));
    row(
        "cells",
        format!(
            "{} ({} simulated, {} reused)",
            rows.len(),
            c.simulated,
            c.reused
        ),
    );
    if let Some(shake) = &c.shake {
        row("input shaking", shake.clone());
    }
    row("threads", c.threads.to_string());
    row("wall time", format!("{:.1} s", c.wall_s));
    row("pwa-replay", c.version.clone());
    row(
        "provenance",
        "`manifest.json`: command line, git commit, host, start and end, sha256 of every \
         file (check with `pwa-replay verify DIR`)"
            .into(),
    );
    out
}

/// `18,441 (3 dropped by filters)`, then the malformed lines `--lenient` skipped, if any.
fn jobs_replayed(c: &RunConfig) -> String {
    let skipped = match c.skipped_lines {
        0 => String::new(),
        1 => ", 1 malformed line skipped (--lenient)".to_string(),
        n => format!(", {} malformed lines skipped (--lenient)", human::count(n)),
    };
    format!(
        "{} ({} dropped by filters{skipped})",
        human::count(c.jobs),
        human::count(c.dropped)
    )
}

fn code_list(v: &[String]) -> String {
    v.iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every table of the report, in report order (a table with nothing to show is left out).
pub fn all(rows: &[SummaryRow], rule: &KneeRule) -> Vec<Table> {
    [
        Some(knees(rows, rule)),
        key_numbers(rows),
        against_fcfs(rows),
        confidence(rows),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Per series: its points sorted by load factor.
pub fn series(rows: &[SummaryRow]) -> Vec<(String, Vec<&SummaryRow>)> {
    let mut out: Vec<(String, Vec<&SummaryRow>)> = Vec::new();
    for r in rows {
        match out.iter_mut().find(|(l, _)| *l == r.series()) {
            Some((_, v)) => v.push(r),
            None => out.push((r.series(), vec![r])),
        }
    }
    for (_, v) in &mut out {
        v.sort_by(|a, b| a.load_factor.total_cmp(&b.load_factor));
    }
    out
}

/// The knee of one series' mean-turnaround curve.
pub fn knee_of(points: &[&SummaryRow], rule: &KneeRule) -> Knee {
    let curve: Vec<(f64, f64)> = points
        .iter()
        .map(|r| (r.load_factor, r.metrics.mean_turnaround_s))
        .collect();
    rule.knee(&curve)
}

fn knees(rows: &[SummaryRow], rule: &KneeRule) -> Table {
    let body = series(rows)
        .into_iter()
        .map(|(label, pts)| {
            let k = knee_of(&pts, rule);
            let at = |lf: Option<f64>| {
                lf.and_then(|lf| pts.iter().find(|r| r.load_factor == lf))
                    .map_or("–".to_string(), |r| {
                        format!("{:.0}", r.metrics.mean_turnaround_s)
                    })
            };
            vec![
                label,
                k.knee.map_or("–".into(), |l| l.to_string()),
                k.saturated_at
                    .map_or("not reached".into(), |l| l.to_string()),
                format!("{:.0}", pts[0].metrics.mean_turnaround_s),
                at(k.knee),
            ]
        })
        .collect();
    Table {
        title: "Knee per policy".into(),
        note: format!(
            "A load factor is *saturated* when the mean turnaround time exceeds {} × its value at \
             the series' lightest load; the **knee** is the largest load factor before the first \
             saturated one (docs/OUTPUTS.md).",
            rule.factor
        ),
        columns: strings(&[
            "policy",
            "knee",
            "first saturated",
            "mean turnaround at lightest load (s)",
            "at knee (s)",
        ]),
        numeric: vec![false, true, true, true, true],
        rows: body,
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The load factor every series has: 1.0 (the trace as recorded) when possible, else the largest.
fn common_load(rows: &[SummaryRow]) -> Option<f64> {
    let all = series(rows);
    let has = |lf: f64| {
        all.iter()
            .all(|(_, p)| p.iter().any(|r| r.load_factor == lf))
    };
    if has(1.0) {
        return Some(1.0);
    }
    let mut loads: Vec<f64> = rows.iter().map(|r| r.load_factor).collect();
    loads.sort_by(|a, b| b.total_cmp(a));
    loads.into_iter().find(|&lf| has(lf))
}

fn key_numbers(rows: &[SummaryRow]) -> Option<Table> {
    let lf = common_load(rows)?;
    let body = series(rows)
        .into_iter()
        .filter_map(|(label, pts)| {
            let m = &pts.iter().find(|r| r.load_factor == lf)?.metrics;
            Some(vec![
                label,
                format!("{:.0}", m.mean_turnaround_s),
                format!("{:.0}", m.mean_wait_s),
                format!("{:.0}", m.p95_wait_s),
                format!("{:.0}", m.max_wait_s),
                format!("{:.3}", m.utilization),
                format!("{:.2}", m.mean_bounded_slowdown),
            ])
        })
        .collect();
    Some(Table {
        title: format!("Key numbers at load factor {lf}"),
        note: String::new(),
        columns: strings(&[
            "policy",
            "mean turnaround (s)",
            "mean wait (s)",
            "p95 wait (s)",
            "max wait (s)",
            "utilization",
            "mean bounded slowdown",
        ]),
        numeric: vec![false, true, true, true, true, true, true],
        rows: body,
    })
}

/// Where each policy's mean wait is below FCFS's with the same allocator (when FCFS is in the grid):
/// the load factors, and both means at the highest load factor they share.
fn against_fcfs(rows: &[SummaryRow]) -> Option<Table> {
    let all = series(rows);
    let fcfs_of = |alloc: &str| {
        all.iter()
            .find(|(_, p)| p[0].scheduler == "fcfs" && p[0].allocator == alloc)
    };
    let mut body = Vec::new();
    for (label, pts) in &all {
        let Some((_, base)) = fcfs_of(&pts[0].allocator).filter(|_| pts[0].scheduler != "fcfs")
        else {
            continue;
        };
        let pairs: Vec<(f64, f64, f64)> = pts
            .iter()
            .filter_map(|r| {
                let b = base.iter().find(|b| b.load_factor == r.load_factor)?;
                Some((r.load_factor, r.metrics.mean_wait_s, b.metrics.mean_wait_s))
            })
            .collect();
        let Some(&(top, w, f)) = pairs.last() else {
            continue;
        };
        let wins: Vec<String> = pairs
            .iter()
            .filter(|p| p.1 < p.2)
            .map(|p| p.0.to_string())
            .collect();
        let wins = if wins.is_empty() {
            "none".to_string()
        } else {
            wins.join(", ")
        };
        body.push(vec![
            label.clone(),
            wins,
            format!("{w:.0} vs {f:.0} (load factor {top})"),
        ]);
    }
    (!body.is_empty()).then(|| Table {
        title: "Against FCFS".into(),
        note: "Load factors where each policy's mean wait is below FCFS's with the same allocator."
            .into(),
        columns: strings(&[
            "policy",
            "lower mean wait than FCFS at load factors",
            "mean wait (s) vs FCFS's at the highest common load",
        ]),
        numeric: vec![false; 3],
        rows: body,
    })
}

/// With `--shake`: per load factor, the policy pairs whose 95% intervals of the mean turnaround
/// overlap (the sweep does not tell them apart there).
fn confidence(rows: &[SummaryRow]) -> Option<Table> {
    let n = rows
        .iter()
        .find_map(|r| r.spread.as_ref())
        .map(|s| s.replicas)?;
    let metric = "mean_turnaround_s";
    let mut loads: Vec<f64> = rows.iter().map(|r| r.load_factor).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let body = loads
        .into_iter()
        .map(|lf| {
            let at: Vec<(String, (f64, f64))> = rows
                .iter()
                .filter(|r| r.load_factor == lf)
                .map(|r| {
                    let h = r.spread.as_ref().and_then(|s| s.half_width(metric));
                    (r.series(), (r.metrics.mean_turnaround_s, h.unwrap_or(0.0)))
                })
                .collect();
            let values: Vec<String> = at
                .iter()
                .map(|(l, (m, h))| format!("{l}: {} ± {}", short(*m), short(*h)))
                .collect();
            vec![lf.to_string(), values.join("; "), overlapping(&at)]
        })
        .collect();
    Some(Table {
        title: "Confidence".into(),
        note: format!(
            "Each cell is the mean of {n} replays of shaken input (docs/OUTPUTS.md, \"Confidence\"); \
             the interval is the 95% Student-t interval of the mean turnaround time. Policies whose \
             intervals overlap at a load factor are not told apart by this sweep there."
        ),
        columns: strings(&[
            "load factor",
            "mean turnaround (s) ± 95% half-width",
            "overlapping pairs",
        ]),
        numeric: vec![true, false, false],
        rows: body,
    })
}

/// The pairs `a ~ b` of intervals `(mean, half-width)` that overlap, or `none`.
fn overlapping(at: &[(String, (f64, f64))]) -> String {
    let mut pairs = Vec::new();
    for (i, (a, ia)) in at.iter().enumerate() {
        for (b, ib) in &at[i + 1..] {
            if spread::overlap(*ia, *ib) {
                pairs.push(format!("{a} ~ {b}"));
            }
        }
    }
    if pairs.is_empty() {
        "none".to_string()
    } else {
        pairs.join("; ")
    }
}

/// A time for the confidence table: whole seconds from 100 up, three decimals below.
fn short(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}
