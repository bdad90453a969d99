//! The result cache behind `--resume`: one small JSON file per finished replica under
//! `<out>/cells/`, keyed by its full configuration (for a sweep: trace sha256, machine, conversion,
//! the experiment cell with scheduler, allocator, load factor, the seed, pwa-replay version; see
//! [`crate::study::Replicas`]).
//!
//! A file is reused only when its stored key equals the key asked for, so a changed trace, machine,
//! filter or version never reuses stale results. Metrics are stored as exact text (see
//! [`metrics::to_text`]) so a resumed sweep is bit-identical to a fresh one. Each entry carries the
//! SHA-256 of its key and metrics: a truncated, corrupt or edited entry is reported as
//! [`Lookup::Damaged`] and recomputed, never trusted.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use pwa_replay::engine::RunMetrics;
use pwa_replay::workload::tracepath::sha256_bytes;
use serde::{Deserialize, Serialize};

use super::atomic::write_bytes;
use super::metrics;

const FORMAT: &str = "pwa-replay-cell/2";

/// The cache of one output directory.
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

    /// The file of an entry under `key` (this cache's context and the caller's fields).
    pub(crate) fn path_for(&self, stem: &str, key: &BTreeMap<String, String>) -> PathBuf {
        let canonical = serde_json::to_string(key).unwrap_or_default();
        let hash = sha256_bytes(canonical.as_bytes());
        self.dir
            .join(format!("{stem}-{}.json", &hash[..12.min(hash.len())]))
    }

    /// `fields` added to this cache's context: the key of an entry (a replica: its cell, seed …).
    pub fn keyed(&self, fields: &[(&str, String)]) -> BTreeMap<String, String> {
        let mut k = self.context.clone();
        k.extend(fields.iter().map(|(n, v)| (n.to_string(), v.clone())));
        k
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

    fn ctx(sha: &str) -> BTreeMap<String, String> {
        BTreeMap::from([("trace_sha256".to_string(), sha.to_string())])
    }

    fn load(cache: &CellCache, fields: &[(&str, String)]) -> Option<RunMetrics> {
        match cache.lookup_key("replica", &cache.keyed(fields)) {
            Lookup::Hit(m) => Some(*m),
            Lookup::Miss | Lookup::Damaged(_) => None,
        }
    }

    #[test]
    fn stored_entries_come_back_exactly_and_only_for_the_same_key() {
        let dir = tempfile::tempdir().unwrap();
        let cell = [("cell", "window:240|mpl|0.3".to_string())];
        let m = RunMetrics {
            jobs: 5,
            mean_turnaround_s: 1.0 / 3.0,
            system_power: f64::INFINITY,
            ..RunMetrics::default()
        };
        let cache = CellCache::new(dir.path(), ctx("aa"));
        assert_eq!(load(&cache, &cell), None);
        cache.store_key("replica", cache.keyed(&cell), &m).unwrap();
        assert_eq!(load(&cache, &cell), Some(m));
        let other_trace = CellCache::new(dir.path(), ctx("bb"));
        assert_eq!(load(&other_trace, &cell), None);
        assert_eq!(load(&cache, &[("cell", "window:240|mpl|0.4".into())]), None);
        let replica = [cell[0].clone(), ("seed", "1".to_string())];
        assert_eq!(load(&cache, &replica), None, "seeds are part of the key");
        let path = cache.path_for("replica", &cache.keyed(&cell));
        assert_ne!(path, cache.path_for("replica", &cache.keyed(&replica)));
        std::fs::write(path, b"{ truncated").unwrap();
        assert_eq!(load(&cache, &cell), None, "a damaged file is recomputed");
    }

    #[test]
    fn truncated_corrupt_and_edited_entries_are_damaged_never_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let m = RunMetrics {
            jobs: 40,
            mean_turnaround_s: 1234.5,
            ..RunMetrics::default()
        };
        let cache = CellCache::new(dir.path(), ctx("aa"));
        let key = cache.keyed(&[("cell", "fcfs|ff|1".into())]);
        cache.store_key("replica", key.clone(), &m).unwrap();
        let path = cache.path_for("replica", &key);
        let good = std::fs::read_to_string(&path).unwrap();
        assert_eq!(cache.lookup_key("replica", &key), Lookup::Hit(Box::new(m)));
        let damaged = |text: &str| {
            std::fs::write(&path, text).unwrap();
            matches!(cache.lookup_key("replica", &key), Lookup::Damaged(_))
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
            cache.lookup_key("replica", &key),
            Lookup::Hit(Box::new(m)),
            "the sound entry again"
        );
    }
}
