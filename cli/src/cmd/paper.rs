//! `pwa-replay paper`: regenerate the figures of the five papers under `out/paper/`, with
//! `manifest.json` over every file of the tree.

use std::path::PathBuf;

use crate::report::manifest::Manifest;

/// Options of `pwa-replay paper`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Short configuration: fewer jobs, replications and points (also `PAPER_QUICK=1`).
    #[arg(long)]
    pub quick: bool,
    /// Only these figures, comma-separated: `fig2`, `window-k/fig9`, `bypass-queue/fig4a`.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Output directory.
    #[arg(long, default_value = "out/paper")]
    pub out: PathBuf,
    /// Worker threads (0: all cores).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Skip the trace figures (13–18).
    #[arg(long)]
    pub no_traces: bool,
    /// Reuse the replicas an interrupted run into the same directory cached under `cells/`.
    #[arg(long)]
    pub resume: bool,
    /// The lazy figures' scan series under another reading of §2.3 (`scan-up:join`,
    /// `scan-up:step,skip`, …; docs/PAPER.md "Readings of scan"): the `scan` parameter of
    /// experiments/lazy-hypercube.toml.
    #[arg(long, value_name = "LABEL", value_parser = scan_label)]
    pub lazy_scan: Option<pwa_replay::sched::SchedKind>,
    /// No progress lines on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let quick_env = std::env::var("PAPER_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let threads = match args.threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    };
    let mut manifest = Manifest::begin(threads);
    manifest.whole_tree = true;
    crate::paper::run(&crate::paper::Options {
        quick: args.quick || quick_env,
        only: args.only,
        out: args.out.clone(),
        threads: args.threads,
        no_traces: args.no_traces,
        progress: !args.quiet,
        resume: args.resume,
        lazy_scan: args.lazy_scan,
    })?;
    manifest.finish(&args.out)
}

/// A `scan-up[:…]` or `scan-down[:…]` label.
fn scan_label(s: &str) -> Result<pwa_replay::sched::SchedKind, String> {
    use pwa_replay::sched::SchedKind;
    match s.parse::<SchedKind>().map_err(|e| e.to_string())? {
        k @ (SchedKind::ScanUp(_) | SchedKind::ScanDown(_)) => Ok(k),
        other => Err(format!(
            "`{other}` is not a scan label (scan-up[:join,step,skip])"
        )),
    }
}
