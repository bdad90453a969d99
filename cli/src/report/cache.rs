//! The per-cell result cache behind `--resume`: one small JSON file per finished cell under
//! `<out>/cells/`, keyed by the cell's full configuration (trace sha256, machine, conversion,
//! scheduler, allocator, load factor, pwa-replay version).
//!
//! A file is reused only when its stored key equals the key asked for, so a changed trace, machine,
//! filter or version never reuses stale results. Metrics are stored as exact text (see
//! [`metrics::to_text`]) so a resumed sweep is bit-identical to a fresh one. Each entry carries the
//! SHA-256 of its key and metrics: a truncated, corrupt or edited entry is reported as
//! [`Lookup::Damaged`] and recomputed, never trusted. A shaken sweep keys each replica
//! ([`CellCache::with`]).

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

const FORMAT: &str = "pwa-replay-cell/2";

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
    /// SHA-256 of the canonical JSON of `[key, metrics]`.
    checksum: String,
}

/// What the cache holds for a cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// No entry (or one of another format or key: a different configuration).
    Miss,
    /// A sound entry (boxed: the metrics are large beside the other answers).
    Hit(Box<RunMetrics>),
    /// An entry that cannot be trusted: why.
    Damaged(String),
}

fn checksum(key: &BTreeMap<String, String>, metrics: &BTreeMap<String, String>) -> String {
    sha256_bytes(
        serde_json::to_string(&(key, metrics))
            .unwrap_or_default()
            .as_bytes(),
    )
}

impl CellCache {
    /// A cache in `<out>/cells` for cells sharing `context` (trace sha256, machine, conversion …).
    pub fn new(out: &Path, context: BTreeMap<String, String>) -> Self {
        CellCache {
            dir: out.join("cells"),
            context,
        }
    }

    /// This cache with `name = value` added to every key (a replica of a shaken sweep).
    pub fn with(&self, name: &str, value: String) -> CellCache {
        let mut c = self.clone();
        c.context.insert(name.to_string(), value);
        c
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
    #[cfg(test)]
    pub fn path(&self, cell: &Cell) -> PathBuf {
        self.path_for(&stem(cell), &self.key(cell))
    }

    /// The file of an entry under `key` (this cache's context and the caller's fields).
    fn path_for(&self, stem: &str, key: &BTreeMap<String, String>) -> PathBuf {
        let canonical = serde_json::to_string(key).unwrap_or_default();
        let hash = sha256_bytes(canonical.as_bytes());
        self.dir
            .join(format!("{stem}-{}.json", &hash[..12.min(hash.len())]))
    }

    /// `fields` added to this cache's context: the key of an entry that is not a sweep cell (an
    /// experiment's replica).
    pub fn keyed(&self, fields: &[(&str, String)]) -> BTreeMap<String, String> {
        let mut k = self.context.clone();
        k.extend(fields.iter().map(|(n, v)| (n.to_string(), v.clone())));
        k
    }

    /// The cached metrics of `cell`, if a matching, readable entry exists.
    #[cfg(test)]
    pub fn load(&self, cell: &Cell) -> Option<RunMetrics> {
        match self.lookup(cell) {
            Lookup::Hit(m) => Some(*m),
            Lookup::Miss | Lookup::Damaged(_) => None,
        }
    }

    /// What the cache holds for `cell`: nothing, a sound entry, or a damaged one.
    pub fn lookup(&self, cell: &Cell) -> Lookup {
        self.lookup_key(&stem(cell), &self.key(cell))
    }

    /// What the cache holds under `key` ([`CellCache::keyed`]), in a file named after `stem`.
    pub fn lookup_key(&self, stem: &str, key: &BTreeMap<String, String>) -> Lookup {
        let path = self.path_for(stem, key);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Lookup::Miss,
            Err(e) => return Lookup::Damaged(format!("{}: {e}", path.display())),
        };
        let damaged = |why: String| Lookup::Damaged(format!("{}: {why}", path.display()));
        let e: Entry = match serde_json::from_slice(&bytes) {
            Ok(e) => e,
            Err(err) => return damaged(format!("not a cache entry ({err})")),
        };
        if e.format != FORMAT || e.key != *key {
            return Lookup::Miss;
        }
        if e.checksum != checksum(&e.key, &e.metrics) {
            return damaged("checksum mismatch".into());
        }
        let m = metrics::from_lookup(|name| {
            let text = e.metrics.get(name).context("missing")?;
            metrics::from_text(name, text)
        })
        .and_then(|mut m| {
            metrics::read_observed(&mut m, |n| e.metrics.get(n).cloned())?;
            Ok(m)
        });
        match m {
            Ok(m) => Lookup::Hit(Box::new(m)),
            Err(err) => damaged(format!("{err:#}")),
        }
    }

    /// Stores the metrics of `cell` (atomically).
    pub fn store(&self, cell: &Cell, m: &RunMetrics) -> anyhow::Result<()> {
        self.store_key(&stem(cell), self.key(cell), m)
    }

    /// Stores `m` under `key` ([`CellCache::keyed`]) in a file named after `stem` (atomically).
    pub fn store_key(
        &self,
        stem: &str,
        key: BTreeMap<String, String>,
        m: &RunMetrics,
    ) -> anyhow::Result<()> {
        let metrics: BTreeMap<String, String> = metrics::values(m)
            .into_iter()
            .map(|(n, v)| (n.to_string(), metrics::to_text(v)))
            .chain(metrics::observed_texts(m))
            .collect();
        let e = Entry {
            format: FORMAT.into(),
            checksum: checksum(&key, &metrics),
            key,
            metrics,
        };
        write_bytes(
            &self.path_for(stem, &e.key),
            &serde_json::to_vec_pretty(&e)?,
        )
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
        let replica = cache.with("replica", "1".into());
        assert_eq!(replica.load(&cell), None, "replicas have keys of their own");
        assert_ne!(replica.path(&cell), cache.path(&cell));
        std::fs::write(cache.path(&cell), b"{ truncated").unwrap();
        assert_eq!(cache.load(&cell), None, "a damaged file is recomputed");
    }

    #[test]
    fn truncated_corrupt_and_edited_entries_are_damaged_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let cell = Cell {
            scheduler: SchedKind::Fcfs,
            allocator: AllocKind::FirstFit,
            load_factor: 1.0,
            estimate: EstimateModel::Exact,
        };
        let m = RunMetrics {
            jobs: 40,
            mean_turnaround_s: 1234.5,
            ..RunMetrics::default()
        };
        let cache = CellCache::new(dir.path(), ctx("aa"));
        cache.store(&cell, &m).unwrap();
        let path = cache.path(&cell);
        let good = std::fs::read_to_string(&path).unwrap();
        assert_eq!(cache.lookup(&cell), Lookup::Hit(Box::new(m)));
        let damaged = |text: &str| {
            std::fs::write(&path, text).unwrap();
            matches!(cache.lookup(&cell), Lookup::Damaged(_))
        };
        assert!(damaged(&good[..good.len() / 2]), "truncated");
        assert!(damaged(""), "empty");
        assert!(
            damaged(&good.replace("1234.5", "1234.6")),
            "an edited value"
        );
        assert!(
            damaged(&good.replace("\"jobs\": \"40\"", "\"jobs\": \"x\"")),
            "edited count"
        );
        std::fs::write(&path, &good).unwrap();
        assert_eq!(
            cache.lookup(&cell),
            Lookup::Hit(Box::new(m)),
            "the sound entry again"
        );
    }
}
