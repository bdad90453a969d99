//! `pwa-replay stats`: describes a trace after filters and shape conversion (window-k-mesh.md §5.4
//! characteristics `T_e`, `J_size`, `T_i`, job count, and more), as a table, JSON or CSV.

use std::io::Write;

use anyhow::Context;
use pwa_replay::swf::{Header, SkipReport};
use pwa_replay::workload::WorkloadStats;
use pwa_replay::workload::stats::Bucket;
use serde::Serialize;

use crate::trace::TraceArgs;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text with histogram bars.
    Table,
    /// One JSON object.
    Json,
    /// A header line and one row (histograms left out).
    Csv,
}

/// Options of `pwa-replay stats`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workload: trace, machine, leniency.
    #[command(flatten)]
    pub input: TraceArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
    /// Scale submit times by 1/F (after shifting the first arrival to 0) before describing.
    #[arg(long)]
    pub load_factor: Option<f64>,
}

/// The JSON object: the trace's identity and the statistics.
#[derive(Debug, Serialize)]
struct Report {
    trace: String,
    path: String,
    sha256: String,
    shape: String,
    computer: String,
    load_factor: Option<f64>,
    skipped_lines: u64,
    skipped: SkipReport,
    #[serde(flatten)]
    stats: WorkloadStats,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let t = args.input.load()?;
    let workload = match args.load_factor {
        Some(lf) => t.workload.scaled(lf)?,
        None => t.workload,
    };
    let report = Report {
        trace: t.name,
        path: t.path.display().to_string(),
        sha256: t.sha256,
        shape: t.conversion.shape.to_string(),
        computer: computer(&t.header),
        load_factor: args.load_factor,
        skipped_lines: t.skipped.skipped_lines(),
        skipped: t.skipped,
        stats: WorkloadStats::of(&workload, t.machine, &t.dropped),
    };
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&report)? + "\n",
        Format::Csv => csv(&report),
        Format::Table => table(&report),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("writing to stdout")
}

/// `Computer` and `Installation` of the header, when given.
fn computer(h: &Header) -> String {
    [h.computer(), h.installation()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
}

/// Scalar figures in a fixed order: (column, value).
fn scalars(r: &Report) -> Vec<(String, String)> {
    let s = &r.stats;
    let mut v: Vec<(String, String)> = vec![
        ("trace".into(), r.trace.clone()),
        ("computer".into(), r.computer.clone()),
        ("machine".into(), s.machine.to_string()),
        ("shape".into(), r.shape.clone()),
        ("procs_per_node".into(), s.procs_per_node.to_string()),
        (
            "load_factor".into(),
            r.load_factor
                .map_or_else(|| "none".into(), |f| f.to_string()),
        ),
        ("jobs".into(), s.jobs.to_string()),
        ("dropped_total".into(), s.dropped_total.to_string()),
        ("skipped_lines".into(), r.skipped_lines.to_string()),
        ("mean_runtime_s".into(), fmt(s.mean_runtime_s)),
        ("mean_size".into(), fmt(s.mean_size)),
        ("mean_request_nodes".into(), fmt(s.mean_request_nodes)),
        ("mean_asked_procs".into(), fmt(s.mean_asked_procs)),
        ("mean_interarrival_s".into(), fmt(s.mean_interarrival_s)),
        ("span_s".into(), fmt(s.span_s)),
        ("offered_load".into(), fmt(s.offered_load)),
        ("pow2_share".into(), fmt(s.pow2_share)),
        (
            "mean_internal_fragmentation".into(),
            fmt(s.mean_internal_fragmentation),
        ),
    ];
    v.extend(
        s.dropped
            .iter()
            .map(|(k, c)| (format!("dropped_{k}"), c.to_string())),
    );
    v.push(("sha256".into(), r.sha256.clone()));
    v
}

fn fmt(x: f64) -> String {
    format!("{x:.4}")
}

fn csv(r: &Report) -> String {
    let cols = scalars(r);
    let quote = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    let head: Vec<String> = cols.iter().map(|(k, _)| quote(k)).collect();
    let row: Vec<String> = cols.iter().map(|(_, v)| quote(v)).collect();
    format!("{}\n{}\n", head.join(","), row.join(","))
}

fn table(r: &Report) -> String {
    let cols = scalars(r);
    let width = cols.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = format!("path{}  {}\n", " ".repeat(width.saturating_sub(4)), r.path);
    for (k, v) in &cols {
        out += &format!("{k:<width$}  {v}\n");
    }
    out += "\nsize (nodes asked)\n";
    out += &bars(&r.stats.size_histogram);
    out += "\nrun time (s)\n";
    out += &bars(&r.stats.runtime_histogram);
    out
}

/// Histogram rows: `lo–hi  count  ####`, bars scaled to 40 characters.
fn bars(h: &[Bucket]) -> String {
    let max = h.iter().map(|b| b.count).max().unwrap_or(0).max(1);
    let labels: Vec<String> = h
        .iter()
        .map(|b| {
            if b.lo == b.hi {
                b.lo.to_string()
            } else {
                format!("{}–{}", b.lo, b.hi)
            }
        })
        .collect();
    let lw = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let cw = h
        .iter()
        .map(|b| b.count.to_string().len())
        .max()
        .unwrap_or(0);
    h.iter()
        .zip(&labels)
        .map(|(b, l)| {
            let n = (b.count * 40).div_ceil(max) as usize;
            let pad = lw - l.chars().count();
            format!(
                "  {}{l}  {:>cw$}  {}\n",
                " ".repeat(pad),
                b.count,
                "#".repeat(n)
            )
        })
        .collect()
}
