//! `pwa-replay merge OUT PART…`: puts the shards of one sweep (`sweep --shard I/N`) back together;
//! the parts of an experiment (`experiment --shard I/N`) go to [`crate::study::merge`].
//!
//! Each part is read through its `manifest.json` (configuration hash, grid, shard), `sweep.json`
//! and `summary.parquet` (exact values). The parts must share one configuration hash and shard
//! count, be disjoint and cover the whole grid; otherwise the error names the foreign or duplicate
//! part, or the missing shards and cells. The merged rows, in grid order, go through the same
//! writer as an unsharded sweep ([`report::write_outputs`]), so the summary table equals the
//! unsharded one byte for byte apart from the wall-clock columns. Per-job and SWF files of the parts
//! are copied (hard-linked where possible) into `OUT`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::report::manifest::{self, MANIFEST_FILE, Manifest, SweepInfo};
use crate::report::table::{self, SummaryRow};
use crate::report::{self, RunConfig};

/// Options of `pwa-replay merge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output directory of the merged sweep.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
    /// The part directories written by `sweep --shard I/N`, one per shard, in any order.
    #[arg(value_name = "PART", required = true)]
    pub parts: Vec<PathBuf>,
    /// Log scale on the time axes (applied anyway where a curve spans more than 100×).
    #[arg(long)]
    pub log_y: bool,
    /// No summary line on stderr.
    #[arg(long)]
    pub quiet: bool,
}

/// One finished shard.
struct Part {
    dir: PathBuf,
    manifest: Manifest,
    sweep: SweepInfo,
    shard: (usize, usize),
    config: RunConfig,
    rows: Vec<SummaryRow>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    report::plots::register_font()?;
    if args
        .parts
        .iter()
        .any(|p| p.join(crate::study::RESULTS_FILE).is_file())
    {
        return crate::study::merge(&args.out, &args.parts, args.quiet);
    }
    let mut parts = Vec::new();
    let mut unfinished = Vec::new();
    for dir in &args.parts {
        if dir.join(MANIFEST_FILE).is_file() {
            parts.push(read_part(dir)?);
        } else {
            unfinished.push(dir.clone());
        }
    }
    let Some(first) = parts.first() else {
        bail!(
            "none of the {} parts has a {MANIFEST_FILE}: no shard finished",
            args.parts.len()
        );
    };
    check_one_sweep(&parts)?;
    let rows = merged_rows(&parts, &unfinished)?;
    let config = merged_config(&parts);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    for p in &parts {
        copy_cell_files(&p.dir, &args.out)?;
    }
    let m = merged_manifest(first, &parts, config.threads)?;
    report::write_outputs(&args.out, &rows, &config, args.log_y, m)?;
    if !args.quiet {
        eprintln!(
            "{} cells from {} shards → {}; open {} in a browser",
            rows.len(),
            parts.len(),
            args.out.display(),
            args.out.join(crate::report::html::INDEX).display()
        );
    }
    Ok(())
}

fn read_part(dir: &Path) -> anyhow::Result<Part> {
    let manifest = manifest::read(dir)?;
    let what = || format!("{} is not a shard of a sweep", dir.display());
    let sweep = manifest.sweep.clone().with_context(what)?;
    let shard: pwa_replay::sweep::Shard = sweep
        .shard
        .as_deref()
        .with_context(|| format!("{} (no `--shard`)", what()))?
        .parse()
        .with_context(|| format!("{}/{MANIFEST_FILE}", dir.display()))?;
    let config = report::read_config(dir)?
        .with_context(|| format!("{} lacks {}", dir.display(), report::CONFIG_FILE))?;
    let rows = table::read_summary(&dir.join("summary.parquet"))?;
    Ok(Part {
        dir: dir.to_path_buf(),
        manifest,
        sweep,
        shard: (shard.index, shard.count),
        config,
        rows,
    })
}

/// Same configuration hash and shard count everywhere; no shard twice.
fn check_one_sweep(parts: &[Part]) -> anyhow::Result<()> {
    let first = &parts[0];
    let mut seen: BTreeMap<usize, &Path> = BTreeMap::new();
    for p in parts {
        if p.sweep.config_hash != first.sweep.config_hash {
            bail!(
                "{} and {} are not parts of one sweep (configuration hashes {} and {}: trace, \
                 machine, grid, options or pwa-replay build differ)",
                first.dir.display(),
                p.dir.display(),
                short(&first.sweep.config_hash),
                short(&p.sweep.config_hash)
            );
        }
        if p.shard.1 != first.shard.1 {
            bail!(
                "{} is shard {}/{} but {} is shard {}/{}: one sweep is cut into one number of shards",
                first.dir.display(),
                first.shard.0,
                first.shard.1,
                p.dir.display(),
                p.shard.0,
                p.shard.1
            );
        }
        if let Some(other) = seen.insert(p.shard.0, &p.dir) {
            bail!(
                "{} and {} are both shard {}/{}",
                other.display(),
                p.dir.display(),
                p.shard.0,
                p.shard.1
            );
        }
    }
    Ok(())
}

/// `SummaryRow` → the cell key it was written from ([`pwa_replay::sweep::Cell::key`]).
fn row_key(r: &SummaryRow) -> String {
    let key = format!("{}|{}|{}", r.scheduler, r.allocator, r.load_factor);
    if r.estimate == "exact" {
        key
    } else {
        format!("{key}|{}", r.estimate)
    }
}

/// Every row of the grid once, in grid order, or which cells are missing.
fn merged_rows(parts: &[Part], unfinished: &[PathBuf]) -> anyhow::Result<Vec<SummaryRow>> {
    let grid = &parts[0].sweep.cells;
    let mut by_key: BTreeMap<String, (&SummaryRow, &Path)> = BTreeMap::new();
    for p in parts {
        for r in &p.rows {
            let key = row_key(r);
            if !grid.contains(&key) {
                bail!("{}: cell {key} is not in the sweep's grid", p.dir.display());
            }
            if let Some((_, other)) = by_key.insert(key.clone(), (r, &p.dir)) {
                bail!(
                    "cell {key} is in both {} and {}: the parts overlap",
                    other.display(),
                    p.dir.display()
                );
            }
        }
    }
    let missing: Vec<&String> = grid.iter().filter(|k| !by_key.contains_key(*k)).collect();
    if !missing.is_empty() {
        bail!(
            "{}",
            missing_report(parts, unfinished, grid.len(), &missing)
        );
    }
    Ok(grid.iter().map(|k| by_key[k].0.clone()).collect())
}

/// "k of n cells missing: shards …; unfinished dirs …; cells …".
fn missing_report(
    parts: &[Part],
    unfinished: &[PathBuf],
    total: usize,
    missing: &[&String],
) -> String {
    let n = parts[0].shard.1;
    let have: Vec<usize> = parts.iter().map(|p| p.shard.0).collect();
    let absent: Vec<String> = (0..n)
        .filter(|i| !have.contains(i))
        .map(|i| format!("{i}/{n}"))
        .collect();
    let mut s = format!(
        "{} of {total} cells missing; shards without a finished part: {}",
        missing.len(),
        absent.join(", ")
    );
    for d in unfinished {
        s += &format!(
            "\n  {} has no {MANIFEST_FILE}: its shard did not finish (rerun it with --resume)",
            d.display()
        );
    }
    const SHOWN: usize = 20;
    let cells: Vec<&str> = missing.iter().take(SHOWN).map(|k| k.as_str()).collect();
    s += &format!("\n  missing cells: {}", cells.join(", "));
    if missing.len() > SHOWN {
        s += &format!(" … and {} more", missing.len() - SHOWN);
    }
    s
}

/// The first part's configuration with the counts summed over parts and the wall time of the
/// longest part.
fn merged_config(parts: &[Part]) -> RunConfig {
    let mut c = parts[0].config.clone();
    c.threads = parts.iter().map(|p| p.config.threads).sum();
    c.simulated = parts.iter().map(|p| p.config.simulated).sum();
    c.reused = parts.iter().map(|p| p.config.reused).sum();
    c.wall_s = parts.iter().map(|p| p.config.wall_s).fold(0.0, f64::max);
    c
}

/// This merge's manifest: the parts' trace, machine and grid, their seeds, and the hash of each
/// part's manifest.
fn merged_manifest(first: &Part, parts: &[Part], threads: usize) -> anyhow::Result<Manifest> {
    let mut m = Manifest::begin(threads);
    m.trace = first.manifest.trace.clone();
    m.conversion = first.manifest.conversion.clone();
    m.machine = first.manifest.machine.clone();
    m.estimates = first.manifest.estimates.clone();
    let mut info = first.sweep.clone();
    info.shard = None;
    info.seeds = parts.iter().flat_map(|p| p.sweep.seeds.clone()).collect();
    info.parts = parts
        .iter()
        .map(|p| {
            let hash = manifest::hash_file(&p.dir.join(MANIFEST_FILE))?;
            Ok((p.dir.display().to_string(), hash))
        })
        .collect::<anyhow::Result<_>>()?;
    m.sweep = Some(info);
    Ok(m)
}

/// Copies a part's `jobs/`, `users/` and `swf/` files into `out` (hard links where the file
/// system allows).
fn copy_cell_files(part: &Path, out: &Path) -> anyhow::Result<()> {
    for sub in ["jobs", "users", "swf"] {
        let dir = part.join(sub);
        if !dir.is_dir() {
            continue;
        }
        let dest = out.join(sub);
        std::fs::create_dir_all(&dest).with_context(|| format!("creating {}", dest.display()))?;
        for e in std::fs::read_dir(&dir).with_context(|| format!("listing {}", dir.display()))? {
            let e = e.with_context(|| format!("listing {}", dir.display()))?;
            let name = e.file_name();
            if name.to_string_lossy().contains(".tmp-") {
                continue;
            }
            let to = dest.join(&name);
            let _ = std::fs::remove_file(&to);
            if std::fs::hard_link(e.path(), &to).is_err() {
                std::fs::copy(e.path(), &to).with_context(|| {
                    format!("copying {} to {}", e.path().display(), to.display())
                })?;
            }
        }
    }
    Ok(())
}

fn short(hash: &str) -> &str {
    &hash[..12.min(hash.len())]
}
