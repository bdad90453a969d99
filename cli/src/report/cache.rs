//! The per-cell result cache behind `--resume`: one small JSON file per finished cell under
//! `<out>/cells/`, keyed by the cell's full configuration (trace sha256, machine, conversion,
//! scheduler, allocator, load factor, pwa-replay version).
//!
//! A file is reused only when its stored key equals the key asked for, so a changed trace, machine,
//! filter or version never reuses stale results. Metrics are stored as exact text (see
//! [`metrics::to_text`]) so a resumed sweep is bit-identical to a fresh one.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use pwa_replay::engine::RunMetrics;
use pwa_replay::sweep::Cell;
use pwa_replay::workload::EstimateModel;
use pwa_replay::workload::tracepath::sha256_bytes;
use serde::{Deserialize, Serialize};

use super::atomic::write_bytes;
use super::jobs::stem;
use super::metrics;

const FORMAT: &str = "pwa-replay-cell/1";

/// The cache of one sweep directory.
#[derive(Debug, Clone)]
pub struct CellCache {
    dir: PathBuf,
    context: BTreeMap<String, String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    format: String,
    key: BTreeMap<String, String>,
    metrics: BTreeMap<String, String>,
}

impl CellCache {
    /// A cache in `<out>/cells` for cells sharing `context` (trace sha256, machine, conversion …).
    pub fn new(out: &Path, context: BTreeMap<String, String>) -> Self {
        CellCache {
            dir: out.join("cells"),
            context,
        }
    }

    /// The full key of a cell.
    fn key(&self, cell: &Cell) -> BTreeMap<String, String> {
        let mut k = self.context.clone();
        k.insert("scheduler".into(), cell.scheduler.to_string());
        k.insert("allocator".into(), cell.allocator.to_string());
        k.insert("load_factor".into(), cell.load_factor.to_string());
        if cell.estimate != EstimateModel::Exact {
            k.insert("estimate".into(), cell.estimate.to_string());
        }
        k
    }

    /// The file of a cell: readable stem + 12 hex digits of the key's SHA-256.
    pub fn path(&self, cell: &Cell) -> PathBuf {
        let canonical = serde_json::to_string(&self.key(cell)).unwrap_or_default();
        let hash = sha256_bytes(canonical.as_bytes());
        self.dir.join(format!(
            "{}-{}.json",
            stem(cell),
            &hash[..12.min(hash.len())]
        ))
    }

    /// The cached metrics of `cell`, if a matching, readable entry exists.
    pub fn load(&self, cell: &Cell) -> Option<RunMetrics> {
        let bytes = std::fs::read(self.path(cell)).ok()?;
        let e: Entry = serde_json::from_slice(&bytes).ok()?;
        if e.format != FORMAT || e.key != self.key(cell) {
            return None;
        }
        metrics::from_lookup(|name| {
            let text = e.metrics.get(name).context("missing")?;
            metrics::from_text(name, text)
        })
        .ok()
    }

    /// Stores the metrics of `cell` (atomically).
    pub fn store(&self, cell: &Cell, m: &RunMetrics) -> anyhow::Result<()> {
        let e = Entry {
            format: FORMAT.into(),
            key: self.key(cell),
            metrics: metrics::values(m)
                .into_iter()
                .map(|(n, v)| (n.to_string(), metrics::to_text(v)))
                .collect(),
        };
        write_bytes(&self.path(cell), &serde_json::to_vec_pretty(&e)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pwa_replay::machine::AllocKind;
    use pwa_replay::sched::SchedKind;

    fn ctx(sha: &str) -> BTreeMap<String, String> {
        BTreeMap::from([("trace_sha256".to_string(), sha.to_string())])
    }

    #[test]
    fn stored_cells_come_back_exactly_and_only_for_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let cell = Cell {
            scheduler: SchedKind::Window(240),
            allocator: AllocKind::Mpl,
            load_factor: 0.3,
            estimate: EstimateModel::Exact,
        };
        let m = RunMetrics {
            jobs: 5,
            mean_turnaround_s: 1.0 / 3.0,
            system_power: f64::INFINITY,
            ..RunMetrics::default()
        };
        let cache = CellCache::new(dir.path(), ctx("aa"));
        assert_eq!(cache.load(&cell), None);
        cache.store(&cell, &m).unwrap();
        assert_eq!(cache.load(&cell), Some(m));
        let other_trace = CellCache::new(dir.path(), ctx("bb"));
        assert_eq!(other_trace.load(&cell), None);
        let other_cell = Cell {
            load_factor: 0.4,
            ..cell
        };
        assert_eq!(cache.load(&other_cell), None);
        let user = Cell {
            estimate: EstimateModel::User,
            ..cell
        };
        assert_eq!(cache.load(&user), None, "estimates are part of the key");
        std::fs::write(cache.path(&cell), b"{ truncated").unwrap();
        assert_eq!(cache.load(&cell), None, "a damaged file is recomputed");
    }
}
