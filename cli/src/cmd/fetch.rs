//! `pwa-replay fetch NAME`: downloads a catalogued trace from the Parallel Workloads Archive,
//! verifies it, and only then gives it its final name ([`crate::download`]); with `PWA_OFFLINE=1`
//! it only says how to get the file by hand.

use std::path::PathBuf;

use anyhow::{Context, bail};
use pwa_replay::workload::tracepath;

use crate::download::{base_url, fetch_entry, with_help};

/// Options of `pwa-replay fetch`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Catalogued trace name (`pwa-replay catalog` lists them).
    pub name: String,
    /// Archive base address [default: $PWA_ARCHIVE_URL, else the Parallel Workloads Archive].
    #[arg(long)]
    pub base_url: Option<String>,
    /// Directory to store the trace in.
    #[arg(long, default_value = "traces")]
    pub dir: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let cat = crate::trace::catalog()?;
    let Some(entry) = cat.get(&args.name) else {
        let names = cat.names();
        match pwa_replay::suggest::did_you_mean(&args.name, names.iter().copied()) {
            Some(near) => bail!("`{}` is not a catalogued trace, {near}", args.name),
            None => bail!(
                "`{}` is not a catalogued trace ({})",
                args.name,
                names.join(", ")
            ),
        }
    };
    let existing = args.dir.join(&entry.file);
    let present = entry
        .sha256
        .as_deref()
        .is_some_and(|h| existing.is_file() && tracepath::verify(&existing, h).is_ok());
    if present {
        println!(
            "{}: {} (already there, verified)",
            entry.name,
            existing.display()
        );
        return Ok(());
    }
    let base = base_url(args.base_url.as_deref());
    let sp = crate::trace::search_path();
    let path =
        fetch_entry(entry, &base, &args.dir).map_err(|e| with_help(e, entry, &sp, &args.dir))?;
    println!("{}: {} (verified)", entry.name, path.display());
    if entry.sha256.is_none() {
        let recorded = std::fs::read_to_string(tracepath::recorded_hash_path(&path))
            .with_context(|| format!("reading the recorded sha256 of {}", path.display()))?;
        println!(
            "{}: sha256 {} (no hash on record: verified by gzip integrity and a strict parse; \
             record it as `sha256 = \"{}\"` in the catalog)",
            entry.name,
            recorded.trim(),
            recorded.trim()
        );
    }
    Ok(())
}
