//! `pwa-replay plot`: redraws the figures and `report.md` of a sweep from its `summary.parquet`,
//! without simulating, and brings the directory's `manifest.json` up to date ([`Manifest::amend`]).

use std::path::PathBuf;

use anyhow::Context;

use crate::report;
use crate::report::manifest::Manifest;

/// Options of `pwa-replay plot`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The `summary.parquet` of a sweep.
    #[arg(long, value_name = "FILE")]
    pub from: PathBuf,
    /// Output directory (default: the directory of the summary).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Log scale on the time axes (applied anyway where a curve spans more than 100×).
    #[arg(long)]
    pub log_y: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let rows = report::table::read_summary(&args.from)?;
    let src_dir = args.from.parent().unwrap_or(std::path::Path::new("."));
    let config = report::read_config(src_dir)?;
    let out = args.out.unwrap_or_else(|| src_dir.to_path_buf());
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let manifest = Manifest::amend(&out, src_dir);
    report::redraw(&out, &rows, config.as_ref(), args.log_y, Some(&manifest))?;
    manifest.finish(&out)?;
    eprintln!(
        "plots, report.md and {} written to {}",
        report::html::INDEX,
        out.display()
    );
    Ok(())
}
