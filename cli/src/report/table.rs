//! The summary table: one row per cell, written as CSV and Parquet and read back from Parquet.

use std::fs::File;
use std::path::Path;

use anyhow::{Context, bail};
use polars::prelude::{
    Column, CsvWriter, DataFrame, ParquetReader, ParquetWriter, SerReader, SerWriter,
};
use pwa_replay::engine::RunMetrics;

use super::atomic::write_atomic;
use super::metrics::{self, MetricValue};
use super::spread::{self, Spread};

/// Label columns, in order, before the metric columns.
#[cfg(test)]
pub const LABELS: [&str; 5] = ["trace", "machine", "scheduler", "allocator", "load_factor"];

/// One row of `summary.csv` / `summary.parquet`.
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryRow {
    /// Trace name (catalog name or file stem).
    pub trace: String,
    /// Machine label (`mesh:22x16`).
    pub machine: String,
    /// Scheduler label (`window:240`).
    pub scheduler: String,
    /// Allocator label (`mpl`).
    pub allocator: String,
    /// Load factor.
    pub load_factor: f64,
    /// Estimate model (`exact`, `user`, `x2`); the `estimate` column is written only when some
    /// row's is not exact, so exact-only sweeps keep their columns.
    pub estimate: String,
    /// The cell's metrics (with `--shake`, the mean over its replicas).
    pub metrics: RunMetrics,
    /// With `--shake`: the replicas and the 95% half-widths of the main metrics.
    pub spread: Option<Spread>,
}

impl SummaryRow {
    /// `scheduler + allocator` (then ` (user)` for estimates other than exact): the series label of
    /// plots and tables, as [`pwa_replay::sweep::Series`] prints it.
    pub fn series(&self) -> String {
        if self.estimate == EXACT {
            format!("{} + {}", self.scheduler, self.allocator)
        } else {
            format!(
                "{} + {} ({})",
                self.scheduler, self.allocator, self.estimate
            )
        }
    }
}

/// The label of exact estimates.
const EXACT: &str = "exact";

/// The rows as a data frame: label columns (`estimate` only when some row's is not exact), then
/// every metric under its name; with `--shake` rows, `replicas` after the labels and a `_ci95`
/// column per main metric at the end.
pub fn to_frame(rows: &[SummaryRow]) -> anyhow::Result<DataFrame> {
    let text = |f: fn(&SummaryRow) -> &str| rows.iter().map(f).collect::<Vec<&str>>();
    let mut cols: Vec<Column> = vec![
        Column::new("trace".into(), text(|r| &r.trace)),
        Column::new("machine".into(), text(|r| &r.machine)),
        Column::new("scheduler".into(), text(|r| &r.scheduler)),
        Column::new("allocator".into(), text(|r| &r.allocator)),
        Column::new(
            "load_factor".into(),
            rows.iter().map(|r| r.load_factor).collect::<Vec<f64>>(),
        ),
    ];
    if rows.iter().any(|r| r.estimate != EXACT) {
        cols.push(Column::new("estimate".into(), text(|r| &r.estimate)));
    }
    let shaken = rows.iter().any(|r| r.spread.is_some());
    if shaken {
        let n = |r: &SummaryRow| r.spread.as_ref().map_or(1, |s| s.replicas);
        cols.push(Column::new(
            "replicas".into(),
            rows.iter().map(n).collect::<Vec<u64>>(),
        ));
    }
    let per_row: Vec<Vec<(&str, MetricValue)>> =
        rows.iter().map(|r| metrics::values(&r.metrics)).collect();
    for (j, (name, kind)) in metrics::values(&RunMetrics::default())
        .into_iter()
        .enumerate()
    {
        let col = match kind {
            MetricValue::Count(_) => Column::new(
                name.into(),
                per_row
                    .iter()
                    .map(|v| v[j].1.as_u64())
                    .collect::<Vec<u64>>(),
            ),
            MetricValue::Real(_) => Column::new(
                name.into(),
                per_row
                    .iter()
                    .map(|v| v[j].1.as_f64())
                    .collect::<Vec<f64>>(),
            ),
        };
        cols.push(col);
    }
    if shaken {
        for (i, name) in spread::MAIN.iter().enumerate() {
            let h = |r: &SummaryRow| r.spread.as_ref().map_or(0.0, |s| s.ci95[i]);
            let values: Vec<f64> = rows.iter().map(h).collect();
            cols.push(Column::new(spread::column(name).into(), values));
        }
    }
    DataFrame::new(rows.len(), cols).context("building the summary table")
}

/// Rows back from a frame written by [`to_frame`].
pub fn from_frame(df: &DataFrame) -> anyhow::Result<Vec<SummaryRow>> {
    let strings = |name: &str| -> anyhow::Result<Vec<String>> {
        let col = df
            .column(name)
            .with_context(|| format!("column `{name}`"))?;
        col.str()
            .with_context(|| format!("column `{name}` is not text"))?
            .iter()
            .map(|v| {
                v.map(str::to_string)
                    .with_context(|| format!("null in `{name}`"))
            })
            .collect()
    };
    let (trace, machine) = (strings("trace")?, strings("machine")?);
    let (scheduler, allocator) = (strings("scheduler")?, strings("allocator")?);
    let load = reals(df, "load_factor")?;
    let estimate = match df.column("estimate") {
        Ok(_) => strings("estimate")?,
        Err(_) => vec![EXACT.to_string(); df.height()],
    };
    let mut cols: Vec<(&'static str, Vec<MetricValue>)> = Vec::new();
    for (name, kind) in metrics::values(&RunMetrics::default()) {
        let v = match kind {
            MetricValue::Count(_) => counts(df, name)?
                .into_iter()
                .map(MetricValue::Count)
                .collect(),
            MetricValue::Real(_) => reals(df, name)?
                .into_iter()
                .map(MetricValue::Real)
                .collect(),
        };
        cols.push((name, v));
    }
    let spreads = spreads(df)?;
    (0..df.height())
        .map(|i| {
            let metrics = metrics::from_lookup(|name| {
                cols.iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, v)| v[i])
                    .with_context(|| format!("column `{name}` missing"))
            })?;
            Ok(SummaryRow {
                trace: trace[i].clone(),
                machine: machine[i].clone(),
                scheduler: scheduler[i].clone(),
                allocator: allocator[i].clone(),
                load_factor: load[i],
                estimate: estimate[i].clone(),
                metrics,
                spread: spreads.as_ref().map(|s| s[i].clone()),
            })
        })
        .collect()
}

/// The spread of every row when the frame has a `replicas` column (a shaken sweep).
fn spreads(df: &DataFrame) -> anyhow::Result<Option<Vec<Spread>>> {
    if df.column("replicas").is_err() {
        return Ok(None);
    }
    let replicas = counts(df, "replicas")?;
    let ci: Vec<Vec<f64>> = spread::MAIN
        .iter()
        .map(|m| reals(df, &spread::column(m)))
        .collect::<anyhow::Result<_>>()?;
    let row = |i: usize| Spread {
        replicas: replicas[i],
        ci95: ci.iter().map(|c| c[i]).collect(),
    };
    Ok(Some((0..df.height()).map(row).collect()))
}

fn reals(df: &DataFrame, name: &str) -> anyhow::Result<Vec<f64>> {
    let col = df
        .column(name)
        .with_context(|| format!("column `{name}`"))?;
    col.f64()
        .with_context(|| format!("column `{name}` is not f64"))?
        .iter()
        .map(|v| v.with_context(|| format!("null in `{name}`")))
        .collect()
}

fn counts(df: &DataFrame, name: &str) -> anyhow::Result<Vec<u64>> {
    let col = df
        .column(name)
        .with_context(|| format!("column `{name}`"))?;
    col.u64()
        .with_context(|| format!("column `{name}` is not u64"))?
        .iter()
        .map(|v| v.with_context(|| format!("null in `{name}`")))
        .collect()
}

/// Writes `summary.csv` and `summary.parquet` into `dir` (each through a temporary name).
pub fn write_summary(dir: &Path, rows: &[SummaryRow]) -> anyhow::Result<()> {
    let mut df = to_frame(rows)?;
    write_atomic(&dir.join("summary.csv"), |f| {
        CsvWriter::new(f).finish(&mut df).context("writing CSV")
    })?;
    write_atomic(&dir.join("summary.parquet"), |f| {
        ParquetWriter::new(f)
            .finish(&mut df)
            .map(|_| ())
            .context("writing Parquet")
    })
}

/// Reads the rows of a `summary.parquet`.
pub fn read_summary(path: &Path) -> anyhow::Result<Vec<SummaryRow>> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let df = ParquetReader::new(file)
        .finish()
        .with_context(|| format!("reading Parquet {}", path.display()))?;
    let rows = from_frame(&df).with_context(|| format!("reading {}", path.display()))?;
    if rows.is_empty() {
        bail!("{} holds no rows", path.display());
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn rows() -> Vec<SummaryRow> {
        [
            ("fcfs", 0.5, 1000.0),
            ("fcfs", 1.0, 9000.5),
            ("oo", 0.5, 800.25),
        ]
        .into_iter()
        .map(|(s, lf, t)| SummaryRow {
            trace: "tiny".into(),
            machine: "mesh:4x4".into(),
            scheduler: s.into(),
            allocator: "mpl".into(),
            load_factor: lf,
            estimate: "exact".into(),
            metrics: RunMetrics {
                jobs: 3,
                mean_turnaround_s: t,
                system_power: f64::INFINITY,
                alloc_attempts: 17,
                ..RunMetrics::default()
            },
            spread: None,
        })
        .collect()
    }

    #[test]
    fn parquet_round_trip_is_exact() {
        let dir = tempfile::tempdir().unwrap();
        write_summary(dir.path(), &rows()).unwrap();
        assert_eq!(
            read_summary(&dir.path().join("summary.parquet")).unwrap(),
            rows()
        );
        let csv = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
        let header = csv.lines().next().unwrap();
        let mut expected: Vec<&str> = LABELS.to_vec();
        expected.extend(metrics::names());
        assert_eq!(header, expected.join(","));
        assert_eq!(csv.lines().count(), 4);
    }

    #[test]
    fn shaken_rows_add_replicas_and_ci95_columns_and_come_back() {
        let dir = tempfile::tempdir().unwrap();
        let shaken: Vec<SummaryRow> = rows()
            .into_iter()
            .enumerate()
            .map(|(i, r)| SummaryRow {
                spread: Some(Spread {
                    replicas: 5,
                    ci95: (0..spread::MAIN.len())
                        .map(|j| (i * 10 + j) as f64 / 3.0)
                        .collect(),
                }),
                ..r
            })
            .collect();
        write_summary(dir.path(), &shaken).unwrap();
        assert_eq!(
            read_summary(&dir.path().join("summary.parquet")).unwrap(),
            shaken
        );
        let csv = std::fs::read_to_string(dir.path().join("summary.csv")).unwrap();
        let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        assert_eq!(header[LABELS.len()], "replicas");
        assert_eq!(header.last(), Some(&"makespan_s_ci95"));
        assert_eq!(
            header.len(),
            LABELS.len() + 1 + metrics::names().len() + spread::MAIN.len()
        );
    }
}
