//! `report.md`: the run's configuration, the report's tables ([`super::tables`]: knee per policy,
//! key numbers, against FCFS, and which policies a shaken sweep cannot tell apart) and the figures.

use std::fmt::Write as _;

use pwa_replay::sweep::KneeRule;

use super::RunConfig;
use super::plots::Drawn;
use super::table::SummaryRow;
use super::tables::{self, Table};

/// The report as Markdown; `user_waits` says whether the users' figure was drawn (and its y axis
/// logarithmic).
pub fn render(
    rows: &[SummaryRow],
    config: Option<&RunConfig>,
    rule: &KneeRule,
    drawn: &[Drawn],
    user_waits: Option<bool>,
) -> String {
    let mut md = String::new();
    let (trace, machine) = (&rows[0].trace, &rows[0].machine);
    let _ = writeln!(md, "# pwa-replay sweep: {trace} on {machine}\n");
    let _ = writeln!(md, "## Configuration\n");
    let _ = writeln!(md, "| | |\n|---|---|");
    for (k, v) in tables::configuration(rows, config) {
        let _ = writeln!(md, "| {k} | {v} |");
    }
    let _ = writeln!(md);
    for t in tables::all(rows, rule) {
        table(&mut md, &t);
    }
    let figs = drawn.iter().map(|d| (d.figure.file, d.log_y));
    figures(
        &mut md,
        figs.chain(user_waits.map(|log| (super::user_waits::FILE, log))),
    );
    md
}

fn table(md: &mut String, t: &Table) {
    let _ = writeln!(md, "## {}\n", t.title);
    if !t.note.is_empty() {
        let _ = writeln!(md, "{}\n", t.note);
    }
    let align: Vec<&str> = t
        .numeric
        .iter()
        .map(|&n| if n { "---:" } else { "---" })
        .collect();
    let _ = writeln!(md, "| {} |\n|{}|", t.columns.join(" | "), align.join("|"));
    for r in &t.rows {
        let _ = writeln!(md, "| {} |", r.join(" | "));
    }
    let _ = writeln!(md);
}

/// The figures `(file, log y axis)`.
fn figures(md: &mut String, drawn: impl Iterator<Item = (&'static str, bool)>) {
    let _ = writeln!(md, "## Figures\n");
    for (file, log_y) in drawn {
        let scale = if log_y { " (log scale)" } else { "" };
        let _ = writeln!(md, "![{file}{scale}]({file})\n");
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
        let md = render(&rows, None, &KneeRule::default(), &[], None);
        assert!(
            md.contains("| fcfs + mpl | 0.2 | 0.3 | 1 min 40 s | 2 min 30 s |"),
            "{md}"
        );
        assert!(
            md.contains("| oo + mpl | 0.2 | not reached | 1 min 30 s | 1 min 40 s |"),
            "{md}"
        );
        // No common 1.0: the largest load both series have.
        assert!(md.contains("## Key numbers at load factor 0.2"), "{md}");
    }

    #[test]
    fn times_are_rounded_for_people_and_a_models_are_in_its_time_units() {
        let mut rows = vec![row("fcfs", 1.0, 2_852_578.0), row("oo", 1.0, 725.0)];
        rows[0].metrics.utilization = 0.747_123;
        let md = render(&rows, None, &KneeRule::default(), &[], None);
        assert!(
            md.contains("| policy | mean turnaround | mean wait |"),
            "{md}"
        );
        assert!(
            md.contains("| fcfs + mpl | 33 d | 0 s | 0 s | 0 s | 0.7471 | 0 |"),
            "{md}"
        );
        assert!(md.contains("| oo + mpl | 12 min 5 s |"), "{md}");
        for r in &mut rows {
            r.trace = "synth:uniform,rate=1".into();
        }
        let md = render(&rows, None, &KneeRule::default(), &[], None);
        assert!(
            md.contains("| policy | mean turnaround (time units) |"),
            "{md}"
        );
        assert!(md.contains("| fcfs + mpl | 2.853e6 |"), "{md}");
        assert!(md.contains("| oo + mpl | 725 |"), "{md}");
        assert!(!md.contains(" (s)"), "{md}");
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
        let md = render(&rows, None, &KneeRule::default(), &[], None);
        assert!(
            md.contains("| lazy + mpl | 1 | 1 min 30 s vs 8 min 20 s (load factor 1) |"),
            "{md}"
        );
        let alone = render(&rows[2..], None, &KneeRule::default(), &[], None);
        assert!(!alone.contains("Against FCFS"), "no FCFS, no section");
    }

    #[test]
    fn confidence_lists_the_pairs_whose_intervals_overlap() {
        let shaken = |s: &str, lf: f64, t: f64, h: f64| {
            let mut r = row(s, lf, t);
            let mut ci95 = vec![0.0; crate::report::spread::MAIN.len()];
            ci95[0] = h;
            r.spread = Some(crate::report::spread::Spread { replicas: 8, ci95 });
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
        let md = render(&rows, None, &KneeRule::default(), &[], None);
        assert!(md.contains("## Confidence"), "{md}");
        assert!(md.contains("mean of 8 replays"), "{md}");
        assert!(
            md.contains("| 0.5 | fcfs + mpl: 1 min 40 s ± 10 s; oo + mpl: 1 min 55 s ± 6 s; lazy + mpl: 3 min 20 s ± 5 s | fcfs + mpl ~ oo + mpl |"),
            "{md}"
        );
        assert!(md.contains("| 1 | ") && md.contains("| none |"), "{md}");
        let plain = render(
            &[row("fcfs", 1.0, 5.0)],
            None,
            &KneeRule::default(),
            &[],
            None,
        );
        assert!(!plain.contains("Confidence"), "no shaking, no section");
    }
}
