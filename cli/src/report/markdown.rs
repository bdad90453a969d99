//! `report.md`: the run's configuration, the knee per policy, key numbers, which policies a shaken
//! sweep cannot tell apart, and the figures.

use std::fmt::Write as _;

use pwa_replay::sweep::{Knee, KneeRule};

use super::RunConfig;
use super::plots::Drawn;
use super::spread;
use super::table::SummaryRow;

/// The report as Markdown.
pub fn render(
    rows: &[SummaryRow],
    config: Option<&RunConfig>,
    rule: &KneeRule,
    drawn: &[Drawn],
) -> String {
    let mut md = String::new();
    let (trace, machine) = (&rows[0].trace, &rows[0].machine);
    let _ = writeln!(md, "# pwa-replay sweep: {trace} on {machine}\n");
    configuration(&mut md, rows, config);
    knee_table(&mut md, rows, rule);
    key_numbers(&mut md, rows);
    against_fcfs(&mut md, rows);
    confidence(&mut md, rows);
    figures(&mut md, drawn);
    md
}

fn configuration(md: &mut String, rows: &[SummaryRow], config: Option<&RunConfig>) {
    let _ = writeln!(md, "## Configuration\n");
    let _ = writeln!(md, "| | |\n|---|---|");
    let mut row = |k: &str, v: String| {
        let _ = writeln!(md, "| {k} | {v} |");
    };
    row("trace", format!("`{}`", rows[0].trace));
    row("machine", format!("`{}`", rows[0].machine));
    match config {
        Some(c) => {
            row("trace file", format!("`{}`", c.trace_path));
            row("sha256 (uncompressed)", format!("`{}`", c.trace_sha256));
            row(
                "jobs replayed",
                format!("{} ({} dropped by filters)", c.jobs, c.dropped),
            );
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
        }
        None => row(
            "cells",
            format!("{} (redrawn from the summary table)", rows.len()),
        ),
    }
    let _ = writeln!(md);
}

fn code_list(v: &[String]) -> String {
    v.iter()
        .map(|s| format!("`{s}`"))
        .collect::<Vec<_>>()
        .join(", ")
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

fn knee_table(md: &mut String, rows: &[SummaryRow], rule: &KneeRule) {
    let _ = writeln!(
        md,
        "## Knee per policy\n\nA load factor is *saturated* when the mean turnaround time exceeds \
         {} × its value at the series' lightest load; the **knee** is the largest load factor \
         before the first saturated one (docs/OUTPUTS.md).\n",
        rule.factor
    );
    let _ = writeln!(
        md,
        "| policy | knee | first saturated | mean turnaround at lightest load (s) | at knee (s) |\n\
         |---|---:|---:|---:|---:|"
    );
    for (label, pts) in series(rows) {
        let k = knee_of(&pts, rule);
        let at = |lf: Option<f64>| {
            lf.and_then(|lf| pts.iter().find(|r| r.load_factor == lf))
                .map_or("–".to_string(), |r| {
                    format!("{:.0}", r.metrics.mean_turnaround_s)
                })
        };
        let sat = k
            .saturated_at
            .map_or("not reached".into(), |l| l.to_string());
        let knee = k.knee.map_or("–".into(), |l| l.to_string());
        let light = format!("{:.0}", pts[0].metrics.mean_turnaround_s);
        let _ = writeln!(
            md,
            "| {label} | {knee} | {sat} | {light} | {} |",
            at(k.knee)
        );
    }
    let _ = writeln!(md);
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

fn key_numbers(md: &mut String, rows: &[SummaryRow]) {
    let Some(lf) = common_load(rows) else {
        return;
    };
    let _ = writeln!(
        md,
        "## Key numbers at load factor {lf}\n\n\
         | policy | mean turnaround (s) | mean wait (s) | p95 wait (s) | max wait (s) | utilization | mean bounded slowdown |\n\
         |---|---:|---:|---:|---:|---:|---:|"
    );
    for (label, pts) in series(rows) {
        if let Some(r) = pts.iter().find(|r| r.load_factor == lf) {
            let m = &r.metrics;
            let _ = writeln!(
                md,
                "| {label} | {:.0} | {:.0} | {:.0} | {:.0} | {:.3} | {:.2} |",
                m.mean_turnaround_s,
                m.mean_wait_s,
                m.p95_wait_s,
                m.max_wait_s,
                m.utilization,
                m.mean_bounded_slowdown
            );
        }
    }
    let _ = writeln!(md);
}

/// Where each policy's mean wait is below FCFS's with the same allocator (when FCFS is in the grid):
/// the load factors, and both means at the highest load factor they share.
fn against_fcfs(md: &mut String, rows: &[SummaryRow]) {
    let all = series(rows);
    let fcfs_of = |alloc: &str| {
        all.iter()
            .find(|(_, p)| p[0].scheduler == "fcfs" && p[0].allocator == alloc)
    };
    let mut lines = Vec::new();
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
        lines.push(format!(
            "| {label} | {wins} | {w:.0} vs {f:.0} (load factor {top}) |"
        ));
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "## Against FCFS\n\n\
         Load factors where each policy's mean wait is below FCFS's with the same allocator.\n\n\
         | policy | lower mean wait than FCFS at load factors | mean wait (s) vs FCFS's at the highest common load |\n\
         |---|---|---|"
    );
    for l in lines {
        let _ = writeln!(md, "{l}");
    }
    let _ = writeln!(md);
}

/// With `--shake`: per load factor, the policy pairs whose 95% intervals of the mean turnaround
/// overlap (the sweep does not tell them apart there).
fn confidence(md: &mut String, rows: &[SummaryRow]) {
    let Some(n) = rows
        .iter()
        .find_map(|r| r.spread.as_ref())
        .map(|s| s.replicas)
    else {
        return;
    };
    let metric = "mean_turnaround_s";
    let _ = writeln!(
        md,
        "## Confidence\n\n\
         Each cell is the mean of {n} replays of shaken input (docs/OUTPUTS.md, \"Confidence\"); the \
         interval is the 95% Student-t interval of the mean turnaround time. Policies whose intervals \
         overlap at a load factor are not told apart by this sweep there.\n\n\
         | load factor | mean turnaround (s) ± 95% half-width | overlapping pairs |\n\
         |---:|---|---|"
    );
    let mut loads: Vec<f64> = rows.iter().map(|r| r.load_factor).collect();
    loads.sort_by(f64::total_cmp);
    loads.dedup();
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
            .map(|(l, (m, h))| format!("{l}: {} ± {}", short(*m), short(*h)))
            .collect();
        let mut pairs = Vec::new();
        for (i, (a, ia)) in at.iter().enumerate() {
            for (b, ib) in &at[i + 1..] {
                if spread::overlap(*ia, *ib) {
                    pairs.push(format!("{a} ~ {b}"));
                }
            }
        }
        let pairs = if pairs.is_empty() {
            "none".to_string()
        } else {
            pairs.join("; ")
        };
        let _ = writeln!(md, "| {lf} | {} | {pairs} |", values.join("; "));
    }
    let _ = writeln!(md);
}

/// A time for the confidence table: whole seconds from 100 up, three decimals below.
fn short(x: f64) -> String {
    if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

fn figures(md: &mut String, drawn: &[Drawn]) {
    let _ = writeln!(md, "## Figures\n");
    for d in drawn {
        let scale = if d.log_y { " (log scale)" } else { "" };
        let _ = writeln!(md, "![{}{scale}]({})\n", d.file, d.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pwa_replay::engine::RunMetrics;

    fn row(s: &str, lf: f64, t: f64) -> SummaryRow {
        SummaryRow {
            trace: "t".into(),
            machine: "mesh:4x4".into(),
            scheduler: s.into(),
            allocator: "mpl".into(),
            load_factor: lf,
            estimate: "exact".into(),
            metrics: RunMetrics {
                mean_turnaround_s: t,
                ..RunMetrics::default()
            },
            spread: None,
        }
    }

    #[test]
    fn knee_table_uses_the_library_rule() {
        let rows = vec![
            row("fcfs", 0.1, 100.0),
            row("fcfs", 0.2, 150.0),
            row("fcfs", 0.3, 500.0),
            row("oo", 0.1, 90.0),
            row("oo", 0.2, 100.0),
        ];
        let md = render(&rows, None, &KneeRule::default(), &[]);
        assert!(
            md.contains("| fcfs + mpl | 0.2 | 0.3 | 100 | 150 |"),
            "{md}"
        );
        assert!(
            md.contains("| oo + mpl | 0.2 | not reached | 90 | 100 |"),
            "{md}"
        );
        // No common 1.0: the largest load both series have.
        assert!(md.contains("## Key numbers at load factor 0.2"), "{md}");
    }

    #[test]
    fn against_fcfs_lists_the_loads_where_a_policy_waits_less() {
        let wait = |s: &str, lf: f64, w: f64| {
            let mut r = row(s, lf, 1.0);
            r.metrics.mean_wait_s = w;
            r
        };
        let rows = vec![
            wait("fcfs", 0.5, 10.0),
            wait("fcfs", 1.0, 500.0),
            wait("lazy", 0.5, 40.0),
            wait("lazy", 1.0, 90.0),
        ];
        let md = render(&rows, None, &KneeRule::default(), &[]);
        assert!(
            md.contains("| lazy + mpl | 1 | 90 vs 500 (load factor 1) |"),
            "{md}"
        );
        let alone = render(&rows[2..], None, &KneeRule::default(), &[]);
        assert!(!alone.contains("Against FCFS"), "no FCFS, no section");
    }

    #[test]
    fn confidence_lists_the_pairs_whose_intervals_overlap() {
        let shaken = |s: &str, lf: f64, t: f64, h: f64| {
            let mut r = row(s, lf, t);
            let mut ci95 = vec![0.0; spread::MAIN.len()];
            ci95[0] = h;
            r.spread = Some(spread::Spread { replicas: 8, ci95 });
            r
        };
        let rows = vec![
            shaken("fcfs", 0.5, 100.0, 10.0),
            shaken("oo", 0.5, 115.0, 6.0),
            shaken("lazy", 0.5, 200.0, 5.0),
            shaken("fcfs", 1.0, 900.0, 10.0),
            shaken("oo", 1.0, 500.0, 10.0),
            shaken("lazy", 1.0, 400.0, 5.0),
        ];
        let md = render(&rows, None, &KneeRule::default(), &[]);
        assert!(md.contains("## Confidence"), "{md}");
        assert!(md.contains("mean of 8 replays"), "{md}");
        assert!(
            md.contains("| 0.5 | fcfs + mpl: 100 ± 10.000; oo + mpl: 115 ± 6.000; lazy + mpl: 200 ± 5.000 | fcfs + mpl ~ oo + mpl |"),
            "{md}"
        );
        assert!(md.contains("| 1 | ") && md.contains("| none |"), "{md}");
        let plain = render(&[row("fcfs", 1.0, 5.0)], None, &KneeRule::default(), &[]);
        assert!(!plain.contains("Confidence"), "no shaking, no section");
    }
}
