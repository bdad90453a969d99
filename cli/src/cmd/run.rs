//! `pwa-replay run`: replays one trace under one scheduler and one allocator and prints the run's
//! metrics (aligned text for people — durations with units, grouped digits — or one JSON object
//! with exact values), optionally validating the schedule and writing the per-job table.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pwa_replay::engine::users::per_user;
use pwa_replay::engine::{
    FragMeter, FragSummary, Outcome, replay_with, summarize_with_fragmentation, validate,
};
use pwa_replay::machine::AllocKind;
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::load_factor;
use pwa_replay::workload::{EstimateModel, Workload};
use serde_json::{Map, Value};

use crate::options::ReplayArgs;
use crate::report::atomic::write_atomic;
use crate::report::human;
use crate::report::jobs;
use crate::report::metrics::{self, MetricValue};
use crate::trace::{LoadedTrace, NoMachine, TraceArgs};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One `name value` line per field, rounded for people (`23.6 d`, `18,441`).
    Table,
    /// One JSON object, exact values.
    Json,
}

/// One replay: the workload and how it is replayed (shared by `run` and `draw`).
#[derive(Debug, clap::Args)]
pub struct Replay {
    /// The workload: trace, machine, leniency.
    #[command(flatten)]
    pub input: TraceArgs,
    // The label lists come from the library's registries.
    #[arg(long, help = super::sched_help(
        "Scheduler (on traces give gang's slice=, e.g. gang:slice=600)"
    ))]
    pub sched: SchedKind,
    #[arg(long, help = super::alloc_help(
        "Allocator (default: the first of the trace's default grid, as a sweep's)"
    ))]
    pub alloc: Option<AllocKind>,
    /// Scale submit times by 1/F (after shifting the first arrival to 0): a decimal in (0, 1000]
    /// with at most 3 decimals, as each of a sweep's --loads.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true, value_parser = load_factor)]
    pub load_factor: f64,
    /// Run-time estimates the schedulers plan with: exact (the run time), user (SWF field 9, the
    /// run time where the log has none), xF (the run time × F), predict (EASY++: the mean run
    /// time of the user's two last completed jobs, capped by the user estimate, which stays the
    /// kill limit; an outlived prediction grows step by step, or with predict:estimate goes to the
    /// user estimate at once), or tsafrir (modeled modal user estimates).
    #[arg(
        long,
        default_value = "exact",
        value_name = "exact|user|xF|predict[:estimate]|tsafrir"
    )]
    pub estimate: EstimateModel,
    /// The replay options.
    #[command(flatten)]
    pub options: ReplayArgs,
}

/// A finished replay: the trace as loaded, the workload as replayed (scaled, with estimates) and
/// what the engine recorded.
pub struct Replayed {
    /// The trace (its jobs moved out into `workload`: `trace.workload` is empty).
    pub trace: LoadedTrace,
    /// Its jobs at the load factor, with the estimates the schedulers saw.
    pub workload: Workload,
    /// The schedule.
    pub outcome: Outcome,
    /// Its fragmentation measures, taken during the run ([`FragMeter`]).
    pub frag: FragSummary,
    /// The allocator: `--alloc`, or the trace's default.
    pub alloc: AllocKind,
    /// "replaying TRACE on MACHINE with SCHED / ALLOC at load factor F (E estimates)".
    pub what: String,
    /// Jobs whose estimate fell back to their run time for want of a requested time (0 unless
    /// the model [reads requested times](EstimateModel::reads_requested)).
    pub fallbacks: u64,
}

impl Replay {
    /// Loads the trace and replays it.
    pub fn run(&self) -> anyhow::Result<Replayed> {
        let no_machine = if self.alloc.is_none_or(|a| a == AllocKind::Flat) {
            NoMachine::FlatFromHeader
        } else {
            NoMachine::Refuse
        };
        let options = self.options.options()?;
        let mut trace = self.input.load(no_machine, options.semantics.input)?;
        let alloc = self.alloc_for(&trace)?;
        if self.input.lenient {
            crate::trace::drop_never_fitting(&mut trace, &[alloc])?;
        }
        // The unscaled jobs are not needed again: scaled in place, one copy of the jobs in memory.
        let jobs = std::mem::take(&mut trace.workload);
        let mut workload = jobs.into_scaled(self.load_factor).with_context(|| {
            format!("scaling {} by load factor {}", trace.name, self.load_factor)
        })?;
        let report = workload.set_estimates(self.estimate);
        let fallbacks = if self.estimate.reads_requested() {
            report.missing
        } else {
            0
        };
        let jobs = workload.jobs.len();
        let note = crate::trace::fallback_note(&[self.estimate], jobs, fallbacks as usize);
        if let Some(note) = note {
            eprintln!("{}: {note}", trace.name);
        }
        let what = format!(
            "replaying {} on {} with {} / {} at load factor {} ({} estimates)",
            trace.name, trace.machine, self.sched, alloc, self.load_factor, self.estimate
        );
        let mut meter = FragMeter::new(&workload, trace.machine, alloc);
        let outcome = replay_with(
            &workload,
            trace.machine,
            self.sched,
            alloc,
            options,
            &mut meter,
        )
        .with_context(|| what.clone())?;
        let frag = meter.finish();
        Ok(Replayed {
            trace,
            workload,
            outcome,
            frag,
            alloc,
            what,
            fallbacks,
        })
    }

    /// `--alloc`, or the first allocator of the trace's default grid (as a sweep fills it in),
    /// said on stderr.
    fn alloc_for(&self, trace: &LoadedTrace) -> anyhow::Result<AllocKind> {
        if let Some(a) = self.alloc {
            return Ok(a);
        }
        let Some(&a) = trace.grid.allocators.first() else {
            bail!("{} has no default allocator: give --alloc", trace.name);
        };
        eprintln!("default allocator ({}): --alloc {a}", trace.grid_source);
        Ok(a)
    }
}

/// Options of `pwa-replay run`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The replay.
    #[command(flatten)]
    pub replay: Replay,
    /// Write the per-job table here (`.csv` or `.parquet`).
    #[arg(long)]
    pub jobs_out: Option<PathBuf>,
    /// Check the schedule with the independent validator; fail if it is invalid.
    #[arg(long)]
    pub validate: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let jobs_format = args.jobs_out.as_deref().map(table_format).transpose()?;
    let Replayed {
        trace: t,
        workload,
        outcome,
        frag,
        alloc,
        what,
        fallbacks,
    } = args.replay.run()?;
    let r = &args.replay;
    if args.validate {
        validate(&workload, t.machine, &outcome)
            .with_context(|| format!("the schedule is invalid ({what})"))?;
    }
    // The summary first: its working lists are freed before the per-job table's parts are made
    // (writer threads keep freed memory of their own), so the two peaks do not add up.
    let m = summarize_with_fragmentation(&workload, t.machine, &outcome, &frag);
    if let (Some(path), Some(fmt)) = (&args.jobs_out, jobs_format) {
        write_jobs(path, fmt, &workload, t.machine, &outcome)?;
        jobs::write_users(&jobs::users_path(path), &per_user(&workload, &outcome))?;
    }
    let mut labels: Vec<(String, Value)> = [
        ("trace", Value::from(t.name.clone())),
        ("sha256", Value::from(t.sha256.clone())),
        ("machine", Value::from(t.machine.to_string())),
        ("scheduler", Value::from(r.sched.to_string())),
        ("allocator", Value::from(alloc.to_string())),
        ("load_factor", Value::from(r.load_factor)),
        ("estimate", Value::from(r.estimate.to_string())),
        ("estimate_fallbacks", Value::from(fallbacks)),
    ]
    .map(|(k, v)| (k.to_string(), v))
    .into();
    labels.extend(r.options.labels()?);
    labels.extend([
        ("validated".into(), Value::from(args.validate)),
        (
            "alloc_calls_skipped".into(),
            Value::from(outcome.skipped_checks),
        ),
        (
            "dropped".into(),
            Value::from(t.dropped.values().sum::<u64>()),
        ),
        (
            "skipped_lines".into(),
            Value::from(t.skipped.skipped_lines()),
        ),
    ]);
    let values = metrics::values(&m);
    let text = match args.format {
        Format::Json => {
            let obj: Map<String, Value> = labels
                .into_iter()
                .chain(
                    values
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), json_value(v))),
                )
                .collect();
            serde_json::to_string_pretty(&Value::Object(obj))? + "\n"
        }
        Format::Table => table(&labels, &values, human::TimeUnit::of(&t.name)),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("writing to stdout")
}

/// A per-job table's file format, from its extension.
#[derive(Debug, Clone, Copy)]
enum TableFormat {
    Csv,
    Parquet,
}

fn table_format(path: &Path) -> anyhow::Result<TableFormat> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("csv") => Ok(TableFormat::Csv),
        Some("parquet") => Ok(TableFormat::Parquet),
        _ => bail!(
            "--jobs-out {}: the file name must end in .csv or .parquet",
            path.display()
        ),
    }
}

fn write_jobs(
    path: &Path,
    fmt: TableFormat,
    w: &pwa_replay::workload::Workload,
    machine: pwa_replay::machine::MachineSpec,
    out: &pwa_replay::engine::Outcome,
) -> anyhow::Result<()> {
    write_atomic(path, |f| match fmt {
        TableFormat::Csv => jobs::write_csv(f, w, machine, out),
        TableFormat::Parquet => jobs::write_parquet(f, w, machine, out),
    })
    .with_context(|| format!("writing the per-job table {}", path.display()))
}

/// Counts stay integers; a non-finite real (system power when nobody waited) becomes `null`.
fn json_value(v: MetricValue) -> Value {
    match v {
        MetricValue::Count(n) => Value::from(n),
        MetricValue::Real(x) => serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number),
    }
}

/// The labels as given, then every metric for people ([`human::metric`] in the workload's time
/// unit).
fn table(
    labels: &[(String, Value)],
    values: &[(&str, MetricValue)],
    unit: human::TimeUnit,
) -> String {
    let shown = labels
        .iter()
        .map(|(k, v)| {
            let v = match v {
                Value::String(s) => s.clone(),
                Value::Number(n) if n.is_u64() => human::count(n.as_u64().unwrap_or(0)),
                other => other.to_string(),
            };
            (k.as_str(), v)
        })
        .chain(values.iter().map(|&(k, v)| (k, human::metric(k, v, unit))));
    let rows: Vec<(&str, String)> = shown.collect();
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    rows.iter()
        .map(|(k, v)| format!("{k:<width$}  {v}\n"))
        .collect()
}
