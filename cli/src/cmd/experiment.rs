//! `pwa-replay experiment FILE…`: runs studies described as data (docs/EXPERIMENTS.md) through the
//! library's executor ([`pwa_replay::experiment`]) and writes, per file, the figures (CSV + PNG),
//! `README.md` with the claims and their verdicts, `results.json` (every replica's metrics, exact),
//! the file itself, and `manifest.json`. This module is the command's clap adapter; the replica
//! cache, the results file, the report and the merge are the study service's ([`crate::study`]).
//!
//! Robustness is the sweep's: the output directory is locked, every replica is cached under
//! `cells/` as it finishes (`--resume` reuses sound entries, keyed by the cell, its seed and the
//! workload's sha256), Ctrl-C stops starting replicas and exits 130 with a `--resume` hint, and
//! `--shard I/N` runs a part of the units ([`Plan::units`]) into a directory that `merge` puts back
//! together.
//!
//! The replay flags (`--kill-at-estimate`, `--dilation`, [`ReplayArgs`]) are one more layer of
//! defaults under the file's: an option given on the command line applies to every panel whose
//! file gives no value for it (in `[defaults]` or in the panel), so that a study keeps what it
//! states. They are kept in `results.json` and part of the experiment's hash, so that `merge` joins
//! only parts run with the same options.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use anyhow::{Context, bail};
use pwa_replay::engine::{ReplayOptions, RunMetrics};
use pwa_replay::experiment::run::{self, Replica};
use pwa_replay::experiment::{Plan, Unit};
use pwa_replay::sweep::{CellError, Shard};

use crate::options::ReplayArgs;
use crate::report::atomic::{remove_stale_temporaries, write_bytes};
use crate::report::lock::OutLock;
use crate::report::manifest::Manifest;
use crate::report::progress;
use crate::slurm::SlurmArgs;
use crate::study::python::{self, Workers};
use crate::study::{RESULTS_FILE, Replicas, ResultsFile, SPEC_FILE, Spinner, write_report};

/// Options of `pwa-replay experiment`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Experiment files (TOML, docs/EXPERIMENTS.md).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// The file's short budget (its `[quick]` section and `quick` x values).
    #[arg(long)]
    pub quick: bool,
    /// Output directory (default `out/<file stem>`; with several files, `DIR/<file stem>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Reuse replicas finished by an earlier run into the same directory.
    #[arg(long)]
    pub resume: bool,
    /// Run only part I of N of the units (I from 0) into a directory for `pwa-replay merge`.
    #[arg(long, value_name = "I/N", conflicts_with = "slurm")]
    pub shard: Option<Shard>,
    /// Slurm job-array scripts (one experiment file).
    #[command(flatten)]
    pub batch: SlurmArgs,
    /// Worker threads (default: the number of cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Set a parameter of the file's `[params]` (`--set scan=scan-up:join`); repeatable.
    #[arg(long, value_name = "NAME=VALUE", value_parser = param)]
    pub set: Vec<(String, String)>,
    /// Replay options of the panels whose file does not set them (in `[defaults]` or the panel).
    #[command(flatten)]
    pub options: ReplayArgs,
    /// No progress output.
    #[arg(long)]
    pub quiet: bool,
}

/// `NAME=VALUE`.
fn param(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .filter(|(n, _)| !n.is_empty())
        .ok_or_else(|| format!("`{s}` is not NAME=VALUE"))
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    crate::report::plots::register_font()?;
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let stop = progress::stop_on_ctrl_c()?;
    let options = args.options.options()?;
    // Every file is checked before any runs.
    let plans = args
        .files
        .iter()
        .map(|f| read_plan(f, args.quick, &args.set, &options))
        .collect::<anyhow::Result<Vec<_>>>()?;
    if let Some(tasks) = args.batch.slurm {
        return slurm_scripts(&args, tasks as usize);
    }
    for ((plan, text), file) in plans.iter().zip(&args.files) {
        let out = out_dir(&args, file);
        let workers = Workers::for_labels(&base_dir(file), &plan.external_labels())?;
        let study = Study {
            plan,
            text,
            workers: workers.as_ref(),
        };
        run_one(&study, &options, &out, &args, threads, &stop)?;
    }
    Ok(())
}

/// `--slurm N`: writes the job-array and merge scripts of one file and prints how to submit them.
fn slurm_scripts(args: &Args, tasks: usize) -> anyhow::Result<()> {
    let [file] = &args.files[..] else {
        bail!("--slurm takes one experiment file (each file is its own job array)");
    };
    let out = out_dir(args, file);
    let stem = file
        .file_stem()
        .map_or_else(|| "experiment".into(), |s| s.to_string_lossy().into_owned());
    let name = crate::slurm::job_name(&stem);
    let argv: Vec<String> = std::env::args().skip(2).collect();
    let plan = crate::slurm::Plan {
        command: "experiment",
        sweep_args: &argv,
        tasks,
        options: &args.batch.slurm_opt,
        out: &out,
        name: &name,
        log_y: false,
    };
    crate::slurm::write_and_announce(&plan)
}

/// The plan of `file` and its text.
pub fn read_plan(
    file: &Path,
    quick: bool,
    set: &[(String, String)],
    options: &ReplayOptions,
) -> anyhow::Result<(Plan, String)> {
    let mut text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let name = file.display().to_string();
    let mut plan = Plan::with_params(&name, &text, quick, set, options)?;
    // A Python series is keyed by its code (paths relative to the experiment's folder), digested
    // by the interpreter in one call for all of them.
    let labels = plan.external_labels();
    if !labels.is_empty() {
        let digests = python::digests(&base_dir(file), &labels).with_context(|| name.clone())?;
        let by_label: BTreeMap<&str, &String> =
            labels.iter().map(String::as_str).zip(&digests).collect();
        plan.resolve_external(|label| {
            by_label
                .get(label)
                .map(|d| (*d).clone())
                .ok_or_else(|| "no digest".to_string())
        })
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
    }
    if !set.is_empty() {
        // The text kept beside the results (for `merge`) holds the values set.
        text = pwa_replay::experiment::plan::substitute_params(&name, &text, quick, set)?;
    }
    Ok((plan, text))
}

/// The folder of an experiment file, which its Python labels' paths are relative to.
fn base_dir(file: &Path) -> PathBuf {
    match file.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn out_dir(args: &Args, file: &Path) -> PathBuf {
    let stem = file
        .file_stem()
        .map_or_else(|| "experiment".into(), |s| s.to_string_lossy().into_owned());
    match (&args.out, args.files.len()) {
        (Some(o), 1) => o.clone(),
        (Some(o), _) => o.join(stem),
        (None, _) => Path::new("out").join(stem),
    }
}

/// One experiment: its plan, its text, and the workers of its Python series.
struct Study<'a> {
    plan: &'a Plan,
    text: &'a str,
    workers: Option<&'a Workers>,
}

/// Runs one experiment (and the command line's replay options) into `out`.
fn run_one(
    study: &Study<'_>,
    options: &ReplayOptions,
    out: &Path,
    args: &Args,
    threads: usize,
    stop: &AtomicBool,
) -> anyhow::Result<()> {
    let (plan, text) = (study.plan, study.text);
    let t0 = Instant::now();
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let lock = OutLock::acquire(out)?;
    remove_stale_temporaries(out)?;
    let manifest = Manifest::begin(threads);
    let all = plan.units();
    let units: Vec<Unit> = match args.shard {
        Some(s) => plan
            .shard(s.index, s.count)
            .into_iter()
            .map(|n| all[n])
            .collect(),
        None => all.clone(),
    };
    let source = crate::trace::loader();
    let replicas = Replicas::new(out, args.resume, &lock, stop, &source);
    let progress = Spinner::new(args.quiet, &plan.title);
    let hook = |r: &Replica<'_>, compute: &dyn Fn() -> Result<RunMetrics, CellError>| {
        replicas.get(r, &|| Workers::replay(study.workers, r, compute))
    };
    let on_event = |e: run::Event| progress.event(&e);
    let results = run::run(plan, &units, &source, &hook, &on_event, threads);
    progress.finish();
    let results = replicas.finish(results)?;
    let indices: Vec<usize> = units
        .iter()
        .map(|u| all.iter().position(|a| a == u).expect("a unit of the plan"))
        .collect();
    let file = ResultsFile::new(plan, text, options, args.shard, &indices, &results);
    write_bytes(&out.join(SPEC_FILE), text.as_bytes())?;
    write_bytes(&out.join(RESULTS_FILE), &serde_json::to_vec_pretty(&file)?)?;
    if args.shard.is_none() {
        write_report(plan, &results, out)?;
    }
    manifest.finish(out)?;
    if !args.quiet {
        eprintln!(
            "{}: {} in {:.1} s → {}",
            plan.file,
            replicas.counts(),
            t0.elapsed().as_secs_f64(),
            out.display()
        );
    }
    Ok(())
}
