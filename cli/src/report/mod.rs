//! Everything a sweep leaves on disk: the summary table (CSV + Parquet), the four figures,
//! `report.md` and `index.html`, the run configuration (`sweep.json`) and the per-cell result cache behind
//! `--resume`. Every file is written to a temporary name and renamed ([`atomic`]).
//! Columns and files are documented in docs/OUTPUTS.md.

pub mod atomic;
pub mod cache;
pub mod html;
pub mod human;
pub mod jobs;
pub mod lock;
pub mod manifest;
pub mod markdown;
pub mod metrics;
pub mod overlap;
pub mod palette;
pub mod picture;
pub mod plots;
pub mod progress;
pub mod spread;
pub mod table;
pub mod tables;
pub mod user_waits;

use std::path::Path;

use anyhow::Context;
use pwa_replay::sweep::KneeRule;
use serde::{Deserialize, Serialize};

use table::SummaryRow;

/// File name of the run configuration next to the summary table.
pub const CONFIG_FILE: &str = "sweep.json";

/// How a sweep was run: written as `sweep.json`, shown at the top of `report.md`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// Trace name.
    pub trace: String,
    /// Trace file read.
    pub trace_path: String,
    /// SHA-256 of the uncompressed trace.
    pub trace_sha256: String,
    /// Machine label.
    pub machine: String,
    /// Jobs replayed (after filters).
    pub jobs: u64,
    /// Jobs dropped by filters.
    pub dropped: u64,
    /// Malformed lines skipped (`--lenient`).
    #[serde(default)]
    pub skipped_lines: u64,
    /// Scheduler labels.
    pub schedulers: Vec<String>,
    /// Allocator labels.
    pub allocators: Vec<String>,
    /// Estimate models (empty: exact only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub estimates: Vec<String>,
    /// What the estimate models did with this log, for people: how many jobs fell back to their
    /// run time for want of a requested time, which schedulers were replayed under one model only.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub estimate_notes: Vec<String>,
    /// Load-factor specification as given.
    pub loads: String,
    /// Knee factor of the saturation rule.
    pub knee_factor: f64,
    /// Worker threads.
    pub threads: usize,
    /// Cells simulated by this run.
    pub simulated: usize,
    /// Cells reused from the cache.
    pub reused: usize,
    /// Wall seconds of the whole sweep (this run; a resumed one's earlier runs are below).
    pub wall_s: f64,
    /// Wall seconds of the earlier complete runs into the directory that this one resumed, oldest
    /// first (`--resume`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub earlier_wall_s: Vec<f64>,
    /// Replay wall seconds the cells this run reused took when they were computed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reused_replay_s: f64,
    /// pwa-replay version.
    pub version: String,
    /// Input shaking (`--shake`): replicas and model, absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shake: Option<String>,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Writes the summary table, figures, configuration and report of `rows` into `dir`;
/// `provenance` (command line, build, host) is shown in `index.html`.
pub fn publish(
    dir: &Path,
    rows: &[SummaryRow],
    config: Option<&RunConfig>,
    log_y: bool,
    provenance: Option<&manifest::Manifest>,
) -> anyhow::Result<()> {
    anyhow::ensure!(!rows.is_empty(), "the sweep produced no rows");
    table::write_summary(dir, rows)?;
    if let Some(c) = config {
        let json = serde_json::to_vec_pretty(c)?;
        atomic::write_bytes(&dir.join(CONFIG_FILE), &json)?;
    }
    redraw(dir, rows, config, log_y, provenance)
}

/// Writes the outputs of a finished sweep, whole, one shard or merged: the summary table, figures,
/// `sweep.json`, `report.md` and `index.html`, then `manifest.json` over every file of the directory.
pub fn write_outputs(
    out: &Path,
    rows: &[SummaryRow],
    config: &RunConfig,
    log_y: bool,
    manifest: manifest::Manifest,
) -> anyhow::Result<()> {
    publish(out, rows, Some(config), log_y, Some(&manifest))?;
    manifest.finish(out)
}

/// Draws the figures and writes `report.md` and `index.html` (no table, no simulation).
pub fn redraw(
    dir: &Path,
    rows: &[SummaryRow],
    config: Option<&RunConfig>,
    log_y: bool,
    provenance: Option<&manifest::Manifest>,
) -> anyhow::Result<()> {
    let drawn = plots::draw_all(dir, rows, log_y)?;
    let user_waits = user_waits::draw(dir, rows)?;
    let rule = KneeRule {
        factor: config.map_or(KneeRule::default().factor, |c| c.knee_factor),
    };
    let md = markdown::render(rows, config, &rule, &drawn, user_waits);
    atomic::write_bytes(&dir.join("report.md"), md.as_bytes())?;
    let page = html::sweep::page(rows, config, &rule, &drawn, provenance);
    html::write_index(dir, &page)
}

/// Reads `sweep.json` from `dir`, if present.
pub fn read_config(dir: &Path) -> anyhow::Result<Option<RunConfig>> {
    let path = dir.join(CONFIG_FILE);
    if !path.exists() {
        return Ok(None);
    }
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let c =
        serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", path.display()))?;
    Ok(Some(c))
}
