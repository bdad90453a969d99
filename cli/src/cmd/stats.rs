//! `pwa-replay stats`: describes a trace after filters and shape conversion (window-k-mesh.md §5.4
//! characteristics `T_e`, `J_size`, `T_i`, job count, and more), as a table for people (durations
//! with units, grouped digits), or JSON / CSV with exact values. A raw SWF file without `--machine`
//! is described on a flat machine sized from its header.

use std::io::Write;

use anyhow::Context;
use pwa_replay::trace::report::{StatsStream, TraceReport as Report};
use pwa_replay::workload::EstimateModel;
use pwa_replay::workload::stats::Bucket;

use crate::report::human::{self, TimeUnit};
use crate::trace::{NoMachine, TraceArgs};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned text with histogram bars, rounded for people (`23.6 d`, `18,441`).
    Table,
    /// One JSON object, exact values.
    Json,
    /// A header line and one row of exact values (histograms left out).
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
    /// Scale submit times by 1/F (after shifting the first arrival to 0) before describing: a
    /// decimal in (0, 1000] with at most 3 decimals, as each of a sweep's --loads.
    #[arg(long, allow_negative_numbers = true, value_parser = pwa_replay::sweep::load_factor)]
    pub load_factor: Option<f64>,
    /// Run-time estimates to check: exact, user (SWF field 9, the run time where the log has
    /// none), or xF (the run time × F). Reports jobs without a requested time and jobs that
    /// overrun their estimate.
    #[arg(long, default_value = "exact", value_name = "exact|user|xF")]
    pub estimate: EstimateModel,
}

/// Runs the subcommand: the log is streamed (each job converted, scaled, given its estimate and
/// counted, then forgotten), so memory does not grow with the number of jobs.
pub fn run(args: Args) -> anyhow::Result<()> {
    let mut acc = StatsStream::new(args.load_factor, args.estimate)
        .context("stats --load-factor / --estimate")?;
    let t = args
        .input
        .load_each(NoMachine::FlatFromHeader, &mut |c, j| acc.push(c, j))?;
    let report = acc.report(&t);
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

/// One scalar figure, typed so that the table can round it for people and CSV keep it exact.
enum Scalar {
    Text(String),
    Count(u64),
    Real(f64),
    Seconds(f64),
}

impl Scalar {
    /// Exact: counts as integers, reals in Rust's shortest round-trip form.
    fn exact(&self) -> String {
        match self {
            Scalar::Text(t) => t.clone(),
            Scalar::Count(n) => n.to_string(),
            Scalar::Real(x) | Scalar::Seconds(x) => x.to_string(),
        }
    }

    /// For people: durations with units (a model's times in its time units), grouped digits,
    /// four significant digits.
    fn human(&self, unit: TimeUnit) -> String {
        match self {
            Scalar::Text(t) => t.clone(),
            Scalar::Count(n) => human::count(*n),
            Scalar::Real(x) => human::real(*x),
            Scalar::Seconds(x) => match unit {
                TimeUnit::Seconds => human::duration(*x),
                TimeUnit::Model => format!("{} time units", human::real(*x)),
            },
        }
    }
}

/// Scalar figures in a fixed order: (column, value).
fn scalars(r: &Report) -> Vec<(String, Scalar)> {
    use Scalar::{Count, Real, Seconds, Text};
    let s = &r.stats;
    let mut v: Vec<(String, Scalar)> = vec![
        ("trace".into(), Text(r.trace.clone())),
        ("computer".into(), Text(r.computer.clone())),
        ("machine".into(), Text(s.machine.to_string())),
        ("shape".into(), Text(r.shape.clone())),
        ("procs_per_node".into(), Count(s.procs_per_node.into())),
        (
            "load_factor".into(),
            r.load_factor.map_or_else(|| Text("none".into()), Real),
        ),
        ("jobs".into(), Count(s.jobs)),
        ("dropped_total".into(), Count(s.dropped_total)),
        ("skipped_lines".into(), Count(r.skipped_lines)),
        ("mean_runtime_s".into(), Seconds(s.mean_runtime_s)),
        ("mean_size".into(), Real(s.mean_size)),
        ("mean_request_nodes".into(), Real(s.mean_request_nodes)),
        ("mean_asked_procs".into(), Real(s.mean_asked_procs)),
        ("mean_interarrival_s".into(), Seconds(s.mean_interarrival_s)),
        ("span_s".into(), Seconds(s.span_s)),
        ("offered_load".into(), Real(s.offered_load)),
        ("pow2_share".into(), Real(s.pow2_share)),
        (
            "mean_internal_fragmentation".into(),
            Real(s.mean_internal_fragmentation),
        ),
        ("estimate".into(), Text(r.estimate.clone())),
        ("no_requested_time".into(), Count(r.no_requested_time)),
        ("overrun_estimate".into(), Count(r.overrun_estimate)),
    ];
    v.extend(
        s.dropped
            .iter()
            .map(|(k, c)| (format!("dropped_{k}"), Count(*c))),
    );
    v.push(("sha256".into(), Text(r.sha256.clone())));
    v
}

fn csv(r: &Report) -> String {
    let cols: Vec<(String, String)> = scalars(r)
        .into_iter()
        .map(|(k, v)| (k, v.exact()))
        .collect();
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
    let unit = TimeUnit::of(&r.trace);
    let cols: Vec<(String, String)> = scalars(r)
        .into_iter()
        .map(|(k, v)| (k, v.human(unit)))
        .collect();
    let width = cols.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = format!("path{}  {}\n", " ".repeat(width.saturating_sub(4)), r.path);
    for (k, v) in &cols {
        out += &format!("{k:<width$}  {v}\n");
    }
    out += "\nsize (nodes asked)\n";
    out += &bars(&r.stats.size_histogram);
    out += match unit {
        TimeUnit::Seconds => "\nrun time (s)\n",
        TimeUnit::Model => "\nrun time (time units)\n",
    };
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
                human::count(b.lo)
            } else {
                format!("{}–{}", human::count(b.lo), human::count(b.hi))
            }
        })
        .collect();
    let lw = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    let counts: Vec<String> = h.iter().map(|b| human::count(b.count)).collect();
    let cw = counts.iter().map(String::len).max().unwrap_or(0);
    h.iter()
        .zip(labels.iter().zip(&counts))
        .map(|(b, (l, c))| {
            let n = (b.count * 40).div_ceil(max) as usize;
            let pad = lw - l.chars().count();
            format!("  {}{l}  {c:>cw$}  {}\n", " ".repeat(pad), "#".repeat(n))
        })
        .collect()
}
