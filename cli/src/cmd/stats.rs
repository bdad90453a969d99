//! `pwa-replay stats`: describes a trace after filters and shape conversion (window-k-mesh.md §5.4
//! characteristics `T_e`, `J_size`, `T_i`, job count, and more), as a table for people (durations
//! with units, grouped digits), or JSON / CSV with exact values. A raw SWF file without `--machine`
//! is described on a flat machine sized from its header.

use std::collections::BTreeMap;
use std::io::Write;

use anyhow::{Context, bail};
use pwa_replay::machine::MachineSpec;
use pwa_replay::swf::{Header, SkipReport};
use pwa_replay::workload::stats::Bucket;
use pwa_replay::workload::{
    Conversion, DropReason, EstimateModel, EstimateReport, Job, StatsBuilder, WorkloadStats,
};
use serde::Serialize;

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
    /// The estimate model checked (`--estimate`).
    estimate: String,
    /// Jobs without a requested time (SWF field 9).
    no_requested_time: u64,
    /// Jobs whose run time exceeds their estimate.
    overrun_estimate: u64,
    #[serde(flatten)]
    stats: WorkloadStats,
}

/// Runs the subcommand: the log is streamed (each job converted, scaled, given its estimate and
/// counted, then forgotten), so memory does not grow with the number of jobs.
pub fn run(args: Args) -> anyhow::Result<()> {
    if args.estimate == EstimateModel::Tsafrir {
        bail!(
            "stats --estimate tsafrir: the model draws estimates for a whole workload, which stats \
             reads one job at a time; its estimates are below the run time only for jobs longer than the limit"
        );
    }
    let mut acc = Accumulator::new(args.load_factor, args.estimate);
    let t = args
        .input
        .load_each(NoMachine::FlatFromHeader, &mut |c, j| acc.push(c, j))?;
    let (stats, EstimateReport { missing, overrun }) =
        acc.finish(t.conversion.procs_per_node, t.machine, &t.dropped);
    let report = Report {
        trace: t.name,
        path: t.path.display().to_string(),
        sha256: t.sha256,
        shape: t.conversion.shape.to_string(),
        computer: computer(&t.header),
        load_factor: args.load_factor,
        skipped_lines: t.skipped.skipped_lines(),
        skipped: t.skipped,
        estimate: args.estimate.to_string(),
        no_requested_time: missing,
        overrun_estimate: overrun,
        stats,
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

/// One job at a time, what `Workload::scaled`, `Workload::set_estimates` and `WorkloadStats::of`
/// do to a whole workload (and bit for bit the same figures).
struct Accumulator {
    load_factor: Option<f64>,
    estimate: EstimateModel,
    first_submit: Option<f64>,
    report: EstimateReport,
    stats: Option<StatsBuilder>,
}

impl Accumulator {
    fn new(load_factor: Option<f64>, estimate: EstimateModel) -> Self {
        Accumulator {
            load_factor,
            estimate,
            first_submit: None,
            report: EstimateReport::default(),
            stats: None,
        }
    }

    fn push(&mut self, c: &Conversion, job: &Job) {
        let mut job = job.clone();
        if let Some(lf) = self.load_factor {
            let first = *self.first_submit.get_or_insert(job.submit);
            job.submit = (job.submit - first) / lf;
        }
        job.estimate = self.estimate.estimate(&job).unwrap_or(job.runtime);
        self.report.missing += u64::from(job.requested.is_none());
        self.report.overrun += u64::from(job.runtime > job.estimate);
        self.stats
            .get_or_insert_with(|| StatsBuilder::new(c.procs_per_node))
            .push(&job);
    }

    fn finish(
        self,
        procs_per_node: u32,
        machine: MachineSpec,
        dropped: &BTreeMap<DropReason, u64>,
    ) -> (WorkloadStats, EstimateReport) {
        let stats = self
            .stats
            .unwrap_or_else(|| StatsBuilder::new(procs_per_node))
            .finish(machine, dropped);
        (stats, self.report)
    }
}

/// `Computer` and `Installation` of the header, when given.
fn computer(h: &Header) -> String {
    [h.computer(), h.installation()]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
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

#[cfg(test)]
mod streaming_tests {
    use super::*;
    use pwa_replay::workload::synth::SynthSpec;

    /// The streamed figures are bit for bit those of scaling, estimating and describing the whole
    /// workload at once (what `stats` did before it streamed).
    #[test]
    fn streaming_matches_the_whole_workload() {
        let (spec, seed) = SynthSpec::from_label("synth:uniform,mesh=8x8,jobs=500").unwrap();
        let w = spec.generate(seed).unwrap();
        let m = spec.mesh_spec();
        let dropped = BTreeMap::from([(DropReason::TooLarge, 3)]);
        for (lf, model) in [
            (None, EstimateModel::Exact),
            (Some(0.7), EstimateModel::Factor(0.5)),
        ] {
            let mut whole = match lf {
                Some(lf) => w.scaled(lf).unwrap(),
                None => w.clone(),
            };
            let report = whole.set_estimates(model);
            let expected = WorkloadStats::of(&whole, m, &dropped);
            let mut acc = Accumulator::new(lf, model);
            let conv = Conversion::for_machine(m);
            w.jobs.iter().for_each(|j| acc.push(&conv, j));
            assert_eq!(acc.finish(1, m, &dropped), (expected, report));
        }
    }
}
