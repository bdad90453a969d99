//! What the lazy paper's report needs beyond its experiment file (`experiments/lazy-hypercube.toml`,
//! run like the others): Table I is two figures of the file (`table1-A`, `table1-B`: power per
//! scheduler and load), written as one table, `lazy/table1.csv` (`case,load,scheduler,power`), with
//! its claims under `lazy/table1`; and the README's paragraph on how the figures were made.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;
use pwa_replay::experiment::figure::csv_field;
use pwa_replay::experiment::{FigureData, Plan, Verdict};
use pwa_replay::workload::synth_hypercube::{Horizon, HypercubeSpec};

/// The table a figure of the file is a case of: `table1` for `table1-A`.
pub fn table_of(figure: &str) -> Option<&str> {
    figure
        .split_once('-')
        .map(|(t, _)| t)
        .filter(|t| *t == "table1")
}

/// The file's figures split into Table I's cases and the figures drawn.
pub fn split_tables(figures: &[FigureData]) -> (Vec<FigureData>, Vec<FigureData>) {
    figures
        .iter()
        .cloned()
        .partition(|f| table_of(&f.id).is_some())
}

/// A claim on a case of Table I is reported under the table (`lazy/table1`).
pub fn table_verdict(mut v: Verdict) -> Verdict {
    if let Some((group, id)) = v.figure.split_once('/')
        && let Some(t) = table_of(id)
    {
        v.figure = format!("{group}/{t}");
    }
    v
}

/// Writes `table1.csv` under `dir` from the cases' figures (nothing when none ran): one row per
/// case, load and scheduler (the series' scheduler, without its allocator).
pub fn write_table(dir: &Path, cases: &[FigureData]) -> anyhow::Result<()> {
    if cases.is_empty() {
        return Ok(());
    }
    let mut s = String::from("case,load,scheduler,power\n");
    for f in cases {
        let case = f.id.rsplit('-').next().unwrap_or(&f.id);
        for p in &f.points {
            let sched = p.series.rsplit_once('+').map_or(p.series.as_str(), |s| s.0);
            let _ = writeln!(s, "{case},{},{},{}", p.x, csv_field(sched), p.est.mean);
        }
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("table1.csv");
    std::fs::write(&path, s).with_context(|| format!("writing {}", path.display()))
}

/// Appends how the lazy figures were made to `<out>/README.md`: the cube and window of the load
/// panels, Fig. 7's dimensions, the replication rule (all from the plan).
pub fn append_readme(out: &Path, plan: &Plan, seconds: f64) -> anyhow::Result<()> {
    let first = plan.panels.first().context("the lazy file has no panel")?;
    let x0 = first.xs().first().copied().unwrap_or(0.5);
    let label = pwa_replay::experiment::plan::fill(&first.workload, x0, first.jobs)
        .map_err(anyhow::Error::msg)?;
    let (spec, _) = HypercubeSpec::from_label(&label)?;
    let window = match spec.horizon {
        Horizon::Window(t) => t,
        Horizon::Jobs(n) => n as f64,
    };
    let dims: Vec<f64> = plan
        .panels
        .iter()
        .find(|p| p.x.name == "dim")
        .map(|p| p.xs())
        .unwrap_or_default();
    let rule = first.rule;
    let path = out.join("README.md");
    let mut text = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = write!(
        text,
        "\n## Lazy scheduling on hypercubes (`lazy/`)\n\n\
         - Figures 3–10 of lazy-scheduling-hypercube.md and [`lazy/table1.csv`](lazy/table1.csv) \
         (`case,load,scheduler,power`), from the §4 synthetic workloads on a {}-cube (Fig. 7: \
         dimensions {dims:?}); observation window T = {window}; dependent size/residence; buddy \
         allocation unless the series says `freelist`. The figures and claims are \
         `experiments/lazy-hypercube.toml`.\n\
         - Replications: {} to {} per cell until the 95% CI half-width of the mean queueing delay M \
         is ≤ {}% of the mean; seeds depend on the workload only (every scheduler sees the same \
         job streams). Every run passes the independent validator.\n\
         - Wall time: {seconds:.0} s.\n",
        spec.dim,
        rule.min,
        rule.max,
        rule.rel_half_width * 100.0,
    );
    std::fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pwa_replay::experiment::Point;
    use pwa_replay::replicate::Estimate;

    #[test]
    fn table_cases_become_one_csv_and_their_claims_the_table_s() {
        let case = |id: &str, rows: &[(&str, f64, f64)]| FigureData {
            group: "lazy".into(),
            id: id.into(),
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: false,
            points: rows
                .iter()
                .map(|&(s, x, y)| Point {
                    series: s.into(),
                    x,
                    est: Estimate::from_samples(&[y]),
                })
                .collect(),
        };
        let figs = vec![
            case("fig3a", &[("lazy+buddy", 0.1, 1.0)]),
            case(
                "table1-A",
                &[("fcfs+buddy", 0.3, 1.5), ("lazy+buddy", 0.3, 2.0)],
            ),
            case("table1-B", &[("scan-up:join,step+buddy", 0.3, 0.25)]),
        ];
        let (tables, drawn) = split_tables(&figs);
        assert_eq!(drawn.len(), 1);
        let dir = std::env::temp_dir().join(format!("lazy-table-{}", std::process::id()));
        write_table(&dir, &tables).unwrap();
        let csv = std::fs::read_to_string(dir.join("table1.csv")).unwrap();
        assert_eq!(
            csv,
            "case,load,scheduler,power\nA,0.3,fcfs,1.5\nA,0.3,lazy,2\nB,0.3,\"scan-up:join,step\",0.25\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let v = table_verdict(Verdict {
            figure: "lazy/table1-B".into(),
            statement: String::new(),
            measured: String::new(),
            holds: None,
        });
        assert_eq!(v.figure, "lazy/table1");
        assert_eq!(table_of("fig3a"), None);
    }
}
