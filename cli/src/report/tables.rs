//! The tables of a sweep's report as data — configuration, knee per policy, key numbers, against
//! FCFS, confidence — computed once and rendered twice: as Markdown ([`super::markdown`]) and as
//! the sortable tables of `index.html` ([`super::html`]). Cell text may hold Markdown code spans
//! (`` `fcfs` ``); both renderers show them as code.

use pwa_replay::engine::RunMetrics;
use pwa_replay::sweep::{Knee, KneeRule};
use serde::Serialize;

use super::RunConfig;
use super::human::{self, TimeUnit};
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
    /// The rows, one text per column (numbers rounded for people).
    pub rows: Vec<Vec<String>>,
    /// The exact value behind each cell of `rows` that has one, for sorting (`index.html`); empty
    /// when the texts sort by themselves.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<Vec<Option<f64>>>,
}

impl Table {
    /// A table titled `title` with `note`, `columns` (those marked `true` numeric) and no rows.
    fn new(title: impl Into<String>, note: impl Into<String>, columns: &[(&str, bool)]) -> Table {
        Table {
            title: title.into(),
            note: note.into(),
            columns: columns.iter().map(|c| c.0.to_string()).collect(),
            numeric: columns.iter().map(|c| c.1).collect(),
            rows: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// Appends a row of cells: their text and, for numbers, the exact value.
    fn push(&mut self, cells: Vec<Cell>) {
        self.keys.push(cells.iter().map(|c| c.1).collect());
        self.rows.push(cells.into_iter().map(|c| c.0).collect());
    }
}

/// A cell: its text and, for a number, the exact value it rounds.
type Cell = (String, Option<f64>);

fn text(s: impl Into<String>) -> Cell {
    (s.into(), None)
}

/// A time of the workload (a duration with units, or four digits of a model's time units).
fn time(x: f64, unit: TimeUnit) -> Cell {
    (human::time(x, unit), Some(x))
}

/// A real to four significant digits.
fn real(x: f64) -> Cell {
    (human::real(x), Some(x))
}

/// A load factor as written on the command line.
fn load(lf: f64) -> Cell {
    (lf.to_string(), Some(lf))
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
    if !c.estimates.is_empty() {
        let notes: String = c.estimate_notes.iter().map(|n| format!("; {n}")).collect();
        row("estimates", format!("{}{notes}", code_list(&c.estimates)));
    }
    row("load factors", format!("`{}`", c.loads));
    row(
        "cells",
        format!(
            "{} ({} simulated, {} reused)",
            human::count(rows.len() as u64),
            human::count(c.simulated as u64),
            human::count(c.reused as u64)
        ),
    );
    if let Some(shake) = &c.shake {
        row("input shaking", shake.clone());
    }
    row("threads", c.threads.to_string());
    row("wall time", wall_time(c));
    row("pwa-replay", c.version.clone());
    row(
        "provenance",
        "`manifest.json`: command line, git commit, host, start and end, sha256 of every \
         file (check with `pwa-replay verify DIR`)"
            .into(),
    );
    out
}

/// This run's wall time; for a resumed run also the replay time of the cells it reused and the
/// wall time of the earlier runs (`0.1 s this run (24 cells reused, whose replays took 11.8 s);
/// earlier runs: 12.3 s`).
fn wall_time(c: &RunConfig) -> String {
    let this = human::duration(c.wall_s);
    if c.reused == 0 && c.earlier_wall_s.is_empty() {
        return this;
    }
    let mut s = format!(
        "{this} this run ({} cells reused, whose replays took {})",
        human::count(c.reused as u64),
        human::duration(c.reused_replay_s)
    );
    if !c.earlier_wall_s.is_empty() {
        let earlier: Vec<String> = c
            .earlier_wall_s
            .iter()
            .map(|&w| human::duration(w))
            .collect();
        s += &format!("; earlier runs: {}", earlier.join(", "));
    }
    s
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
    let unit = TimeUnit::of(&rows[0].trace);
    [
        Some(knees(rows, rule, unit)),
        key_numbers(rows, unit),
        fairness(rows, unit),
        fair_starts(rows, unit),
        against_fcfs(rows, unit),
        confidence(rows, unit),
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

fn knees(rows: &[SummaryRow], rule: &KneeRule, unit: TimeUnit) -> Table {
    let mut t = Table::new(
        "Knee per policy",
        format!(
            "A load factor is *saturated* when the mean turnaround time exceeds {} × its value at \
             the series' lightest load; the **knee** is the largest load factor before the first \
             saturated one (docs/OUTPUTS.md).",
            rule.factor
        ),
        &[
            ("policy", false),
            ("knee", true),
            ("first saturated", true),
            (
                &human::time_column("mean turnaround at lightest load", unit),
                true,
            ),
            (&human::time_column("at knee", unit), true),
        ],
    );
    for (label, pts) in series(rows) {
        let k = knee_of(&pts, rule);
        let at = |lf: Option<f64>| {
            lf.and_then(|lf| pts.iter().find(|r| r.load_factor == lf))
                .map_or(text("–"), |r| time(r.metrics.mean_turnaround_s, unit))
        };
        t.push(vec![
            text(label),
            k.knee.map_or(text("–"), load),
            k.saturated_at.map_or(text("not reached"), load),
            time(pts[0].metrics.mean_turnaround_s, unit),
            at(k.knee),
        ]);
    }
    t
}

/// The load factor every series has: 1.0 (the trace as recorded) when possible, else the largest.
pub(crate) fn common_load(rows: &[SummaryRow]) -> Option<f64> {
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

fn key_numbers(rows: &[SummaryRow], unit: TimeUnit) -> Option<Table> {
    let lf = common_load(rows)?;
    let column = |name: &str| human::time_column(name, unit);
    let mut t = Table::new(
        format!("Key numbers at load factor {lf}"),
        "",
        &[
            ("policy", false),
            (&column("mean turnaround"), true),
            (&column("mean wait"), true),
            (&column("p95 wait"), true),
            (&column("max wait"), true),
            ("utilization", true),
            ("mean bounded slowdown", true),
        ],
    );
    push_at(&mut t, rows, lf, |m| {
        vec![
            time(m.mean_turnaround_s, unit),
            time(m.mean_wait_s, unit),
            time(m.p95_wait_s, unit),
            time(m.max_wait_s, unit),
            real(m.utilization),
            real(m.mean_bounded_slowdown),
        ]
    });
    Some(t)
}

/// A row per series that has load factor `lf`: its label, then `cells` of its metrics there.
fn push_at(t: &mut Table, rows: &[SummaryRow], lf: f64, cells: impl Fn(&RunMetrics) -> Vec<Cell>) {
    for (label, pts) in series(rows) {
        if let Some(r) = pts.iter().find(|r| r.load_factor == lf) {
            t.push(
                std::iter::once(text(label))
                    .chain(cells(&r.metrics))
                    .collect(),
            );
        }
    }
}

/// Who won and who lost, at the load factor of the key numbers: Jain's index over the users'
/// mean bounded slowdowns and the worst user's mean wait and mean bounded slowdown.
fn fairness(rows: &[SummaryRow], unit: TimeUnit) -> Option<Table> {
    let lf = common_load(rows)?;
    let mut t = Table::new(
        format!("Fairness between users at load factor {lf}"),
        "Jain's index over the users' mean bounded slowdowns (1: every user alike); the worst \
         user's means, each the largest over the users.",
        &[
            ("policy", false),
            ("Jain's index", true),
            (&human::time_column("worst user's mean wait", unit), true),
            ("worst user's mean bounded slowdown", true),
        ],
    );
    push_at(&mut t, rows, lf, |m| {
        vec![
            real(m.jain_bounded_slowdown),
            time(m.worst_user_mean_wait_s, unit),
            real(m.worst_user_mean_bounded_slowdown),
        ]
    });
    Some(t)
}

/// The jobs started after their fair start times (`--fairness`), at the load factor of the key
/// numbers: how many, the total and the mean delay beyond them; left out when no job was (or
/// they were not measured).
fn fair_starts(rows: &[SummaryRow], unit: TimeUnit) -> Option<Table> {
    let lf = common_load(rows)?;
    if rows.iter().all(|r| r.metrics.unfair_jobs == 0) {
        return None;
    }
    let mut t = Table::new(
        format!("Fair start times at load factor {lf}"),
        "Jobs started after their fair start time (when they would have started had no later \
         job arrived), and the delay beyond it: the total, and the mean over all jobs.",
        &[
            ("policy", false),
            ("jobs started late", true),
            (&human::time_column("total delay", unit), true),
            (&human::time_column("mean delay", unit), true),
        ],
    );
    push_at(&mut t, rows, lf, |m| {
        vec![
            (human::count(m.unfair_jobs), Some(m.unfair_jobs as f64)),
            time(m.unfair_delay_s, unit),
            time(m.mean_unfair_delay_s, unit),
        ]
    });
    Some(t)
}

/// Where each policy's mean wait is below FCFS's with the same allocator (when FCFS is in the grid):
/// the load factors, and both means at the highest load factor they share.
fn against_fcfs(rows: &[SummaryRow], unit: TimeUnit) -> Option<Table> {
    let all = series(rows);
    let fcfs_of = |alloc: &str| {
        all.iter()
            .find(|(_, p)| p[0].scheduler == "fcfs" && p[0].allocator == alloc)
    };
    let mut t = Table::new(
        "Against FCFS",
        "Load factors where each policy's mean wait is below FCFS's with the same allocator.",
        &[
            ("policy", false),
            ("lower mean wait than FCFS at load factors", false),
            (
                &human::time_column("mean wait vs FCFS's at the highest common load", unit),
                false,
            ),
        ],
    );
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
        let vs = format!(
            "{} vs {} (load factor {top})",
            human::time(w, unit),
            human::time(f, unit)
        );
        t.push(vec![text(label.clone()), text(wins), (vs, Some(w))]);
    }
    (!t.rows.is_empty()).then_some(t)
}

/// With `--shake`: per load factor, the policy pairs whose 95% intervals of the mean turnaround
/// overlap (the sweep does not tell them apart there).
fn confidence(rows: &[SummaryRow], unit: TimeUnit) -> Option<Table> {
    let n = rows
        .iter()
        .find_map(|r| r.spread.as_ref())
        .map(|s| s.replicas)?;
    let metric = "mean_turnaround_s";
    let mut loads: Vec<f64> = rows.iter().map(|r| r.load_factor).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
    let mut t = Table::new(
        "Confidence",
        format!(
            "Each cell is the mean of {n} replays of shaken input (docs/OUTPUTS.md, \"Confidence\"); \
             the interval is the 95% Student-t interval of the mean turnaround time. Policies whose \
             intervals overlap at a load factor are not told apart by this sweep there."
        ),
        &[
            ("load factor", true),
            (
                &human::time_column("mean turnaround ± 95% half-width", unit),
                false,
            ),
            ("overlapping pairs", false),
        ],
    );
    for lf in loads {
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
            .map(|(l, (m, h))| {
                format!("{l}: {} ± {}", human::time(*m, unit), human::time(*h, unit))
            })
            .collect();
        t.push(vec![
            load(lf),
            text(values.join("; ")),
            text(overlapping(&at)),
        ]);
    }
    Some(t)
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
