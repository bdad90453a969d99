//! `pwa-replay verify DIR`: re-hashes the files listed in an output directory's `manifest.json`
//! and fails, naming them, when any is changed or missing.

use std::path::PathBuf;

use anyhow::bail;

use crate::report::manifest::{self, MANIFEST_FILE};

/// Options of `pwa-replay verify`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// An output directory holding `manifest.json` (a sweep's, a shard's or a merge's).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let (m, v) = manifest::verify(&args.dir)?;
    for f in &v.unlisted {
        eprintln!("note: {f} is not listed in {MANIFEST_FILE}");
    }
    let listed = m.files.len();
    if !v.ok() {
        let mut lines: Vec<String> = v.changed.iter().map(|f| format!("changed: {f}")).collect();
        lines.extend(v.missing.iter().map(|f| format!("missing: {f}")));
        bail!(
            "{} of {listed} files in {} differ from {MANIFEST_FILE}:\n  {}",
            v.changed.len() + v.missing.len(),
            args.dir.display(),
            lines.join("\n  ")
        );
    }
    let commit = m.tool.git_commit.as_deref().unwrap_or("unknown commit");
    println!(
        "{}: all {listed} files match {MANIFEST_FILE} (pwa-replay {}, {commit}, finished {})",
        args.dir.display(),
        m.tool.version,
        m.finished
    );
    Ok(())
}
