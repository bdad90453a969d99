//! `manifest.json`: the provenance of an output directory — the tool (version, git commit), the
//! full command line, the trace (name, file, sha256), conversion, machine, estimate models, the
//! sweep's grid, configuration hash, shard and seeds, the host, start and end time, and the sha256
//! of every file the run left in the directory. [`verify`] re-checks those hashes
//! (`pwa-replay verify DIR`).
//!
//! The files listed are the directory's regular files (not `manifest.json`, hidden files or
//! temporaries) and everything under `cells/`, `jobs/`, `users/` and `swf/`; other subdirectories (a Slurm
//! sweep's `parts/` and `slurm/`) are not part of the output and keep their own manifests.
//! `paper` sets [`Manifest::whole_tree`]: its figures sit in subdirectories.
//! Everything but `started`, `finished` and the hashes of files holding wall-clock columns is the
//! same for the same inputs (docs/OUTPUTS.md, "Provenance").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use pwa_replay::workload::tracepath::sha256_reader;
use serde::{Deserialize, Serialize};

use super::atomic::write_bytes;

/// File name of the manifest in an output directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// Format tag of the manifest.
const FORMAT: &str = "pwa-replay-manifest/1";

/// Subdirectories whose files belong to the output.
const OUTPUT_DIRS: [&str; 4] = ["cells", "jobs", "users", "swf"];

/// The provenance of one output directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// `pwa-replay-manifest/1`.
    pub format: String,
    /// The program that wrote the directory.
    pub tool: Tool,
    /// The full command line, program first.
    pub command_line: Vec<String>,
    /// The trace replayed.
    pub trace: Option<TraceInfo>,
    /// Shape conversion of the trace (its catalog entry's).
    pub conversion: Option<String>,
    /// Machine label.
    pub machine: Option<String>,
    /// Run-time estimate models.
    pub estimates: Vec<String>,
    /// The sweep's grid, configuration hash, shard and seeds.
    pub sweep: Option<SweepInfo>,
    /// Where it ran.
    pub host: Host,
    /// Start time, UTC, RFC 3339.
    pub started: String,
    /// End time, UTC, RFC 3339.
    pub finished: String,
    /// SHA-256 of every output file, by path relative to the directory (`/`-separated).
    pub files: BTreeMap<String, String>,
    /// Later command lines that rewrote files of the directory (`plot` into a sweep directory).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub amended_by: Vec<Vec<String>>,
    /// Every file of every subdirectory is an output (`paper`), not only `cells/`, `jobs/`,
    /// `users/`, `swf/`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub whole_tree: bool,
}

/// The program that wrote a directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tool {
    /// `pwa-replay`.
    pub name: String,
    /// Crate version.
    pub version: String,
    /// Git commit of the build, when built from a checkout.
    pub git_commit: Option<String>,
    /// Whether tracked files differed from that commit at build time.
    pub git_dirty: Option<bool>,
}

/// The trace of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceInfo {
    /// Catalog name or file stem.
    pub name: String,
    /// The file read (absolute when it could be resolved).
    pub file: String,
    /// SHA-256 of the uncompressed trace.
    pub sha256: String,
}

/// The sweep part of a manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SweepInfo {
    /// SHA-256 of everything that defines the grid and its results (not shard or threads).
    pub config_hash: String,
    /// Every cell of the whole grid (`Cell::key`), in grid order.
    pub cells: Vec<String>,
    /// `I/N` when this directory holds one shard of the grid.
    pub shard: Option<String>,
    /// The seed of every cell in this directory (`Cell::seed`), by cell key.
    pub seeds: BTreeMap<String, u64>,
    /// The part directories a `merge` read, with the SHA-256 of their manifests.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub parts: BTreeMap<String, String>,
}

/// Where a run happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Host {
    /// Host name.
    pub name: String,
    /// `linux`, `macos`, …
    pub os: String,
    /// `x86_64`, `aarch64`, …
    pub arch: String,
    /// Worker threads used.
    pub threads: usize,
}

impl Manifest {
    /// A manifest started now for this process's command line, with `threads` workers.
    pub fn begin(threads: usize) -> Manifest {
        Manifest {
            format: FORMAT.into(),
            tool: tool(),
            command_line: std::env::args().collect(),
            trace: None,
            conversion: None,
            machine: None,
            estimates: Vec::new(),
            sweep: None,
            host: Host {
                name: host_name(),
                os: std::env::consts::OS.into(),
                arch: std::env::consts::ARCH.into(),
                threads,
            },
            started: now_utc(),
            finished: String::new(),
            files: BTreeMap::new(),
            amended_by: Vec::new(),
            whole_tree: false,
        }
    }

    /// The manifest of a directory that `from`'s files were redrawn into by this process (`plot`):
    /// `dir`'s own manifest with this command line appended to `amended_by` when `dir` has one,
    /// else a new one carrying `from`'s trace, machine and sweep (when `from` has a manifest).
    pub fn amend(dir: &Path, from: &Path) -> Manifest {
        if let Ok(mut m) = read(dir) {
            m.amended_by.push(std::env::args().collect());
            return m;
        }
        let mut m = Manifest::begin(1);
        if let Ok(src) = read(from) {
            m.trace = src.trace;
            m.conversion = src.conversion;
            m.machine = src.machine;
            m.estimates = src.estimates;
            m.sweep = src.sweep;
        }
        m
    }

    /// Stamps the end time, hashes every output file of `dir` and writes `dir/manifest.json`.
    pub fn finish(mut self, dir: &Path) -> anyhow::Result<()> {
        self.files = hash_outputs(dir, self.whole_tree)?;
        self.finished = now_utc();
        let mut json = serde_json::to_vec_pretty(&self)?;
        json.push(b'\n');
        write_bytes(&dir.join(MANIFEST_FILE), &json)
    }
}

/// The tool as built: version, and the git commit recorded by `build.rs`.
fn tool() -> Tool {
    let commit = env!("PWA_REPLAY_GIT_COMMIT");
    Tool {
        name: "pwa-replay".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        git_commit: (!commit.is_empty()).then(|| commit.to_string()),
        git_dirty: env!("PWA_REPLAY_GIT_DIRTY").parse().ok(),
    }
}

/// The kernel's host name, else `$HOSTNAME`, else `unknown`.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown".into())
}

/// Reads `dir/manifest.json`.
pub fn read(dir: &Path) -> anyhow::Result<Manifest> {
    let path = dir.join(MANIFEST_FILE);
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let m: Manifest =
        serde_json::from_slice(&bytes).with_context(|| format!("parsing {}", path.display()))?;
    anyhow::ensure!(
        m.format == FORMAT,
        "{}: format `{}`, expected `{FORMAT}`",
        path.display(),
        m.format
    );
    Ok(m)
}

/// What [`verify`] found.
#[derive(Debug, Default, PartialEq)]
pub struct Verification {
    /// Files listed and matching.
    pub matching: usize,
    /// Files whose content differs from the manifest.
    pub changed: Vec<String>,
    /// Files listed but absent.
    pub missing: Vec<String>,
    /// Output files present but not listed.
    pub unlisted: Vec<String>,
}

impl Verification {
    /// Whether every listed file is present and unchanged.
    pub fn ok(&self) -> bool {
        self.changed.is_empty() && self.missing.is_empty()
    }
}

/// Re-hashes the files listed in `dir/manifest.json`.
pub fn verify(dir: &Path) -> anyhow::Result<(Manifest, Verification)> {
    let m = read(dir)?;
    let mut v = Verification::default();
    for (rel, want) in &m.files {
        let path = dir.join(rel);
        if !path.is_file() {
            v.missing.push(rel.clone());
        } else if hash_file(&path)? == *want {
            v.matching += 1;
        } else {
            v.changed.push(rel.clone());
        }
    }
    v.unlisted = output_files(dir, m.whole_tree)?
        .into_iter()
        .filter(|rel| !m.files.contains_key(rel))
        .collect();
    Ok((m, v))
}

/// SHA-256 (hex) of a file's bytes.
pub fn hash_file(path: &Path) -> anyhow::Result<String> {
    let f = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    sha256_reader(std::io::BufReader::new(f)).with_context(|| format!("reading {}", path.display()))
}

/// SHA-256 of every output file of `dir`, by relative path.
fn hash_outputs(dir: &Path, whole_tree: bool) -> anyhow::Result<BTreeMap<String, String>> {
    output_files(dir, whole_tree)?
        .into_iter()
        .map(|rel| Ok((rel.clone(), hash_file(&dir.join(&rel))?)))
        .collect()
}

/// The output files of `dir` (see the module docs; with `whole_tree`, every subdirectory's too),
/// relative, sorted.
pub fn output_files(dir: &Path, whole_tree: bool) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for (name, path) in entries(dir)? {
        if path.is_file() && name != MANIFEST_FILE {
            out.push(name);
        } else if path.is_dir() && (whole_tree || OUTPUT_DIRS.contains(&name.as_str())) {
            collect(&path, &name, &mut out)?;
        }
    }
    out.sort();
    Ok(out)
}

/// Every file under `dir` (hidden and temporary files aside), as `prefix/…`.
fn collect(dir: &Path, prefix: &str, out: &mut Vec<String>) -> anyhow::Result<()> {
    for (name, path) in entries(dir)? {
        let rel = format!("{prefix}/{name}");
        if path.is_dir() {
            collect(&path, &rel, out)?;
        } else if path.is_file() {
            out.push(rel);
        }
    }
    Ok(())
}

/// The entries of `dir` that are neither hidden nor temporaries (`*.tmp-<pid>`), by name.
fn entries(dir: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    let rd = std::fs::read_dir(dir).with_context(|| format!("listing {}", dir.display()))?;
    let mut v = Vec::new();
    for e in rd {
        let e = e.with_context(|| format!("listing {}", dir.display()))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if !name.starts_with('.') && !name.contains(".tmp-") {
            v.push((name, e.path()));
        }
    }
    Ok(v)
}

/// The current time, UTC, RFC 3339 to the second.
fn now_utc() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    rfc3339(secs)
}

/// Seconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, H. Hinnant's
/// days-to-civil algorithm).
fn rfc3339(secs: u64) -> String {
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_matches_known_instants() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339(4_102_444_799), "2099-12-31T23:59:59Z");
    }

    #[test]
    fn a_manifest_round_trips_and_verify_catches_one_changed_byte() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(d.join("summary.csv"), b"a,b\n1,2\n").unwrap();
        std::fs::create_dir_all(d.join("jobs")).unwrap();
        std::fs::write(d.join("jobs/x.parquet"), b"PAR1").unwrap();
        std::fs::create_dir_all(d.join("parts/0")).unwrap();
        std::fs::write(d.join("parts/0/summary.csv"), b"not ours").unwrap();
        std::fs::write(d.join("summary.csv.tmp-7"), b"half").unwrap();
        let mut m = Manifest::begin(3);
        m.machine = Some("mesh:4x4".into());
        m.clone().finish(d).unwrap();
        let back = read(d).unwrap();
        assert_eq!(back.machine, m.machine);
        assert_eq!(back.host, m.host);
        assert_eq!(
            back.files.keys().collect::<Vec<_>>(),
            ["jobs/x.parquet", "summary.csv"]
        );
        let (_, v) = verify(d).unwrap();
        assert!(v.ok() && v.matching == 2 && v.unlisted.is_empty(), "{v:?}");

        std::fs::write(d.join("summary.csv"), b"a,b\n1,3\n").unwrap();
        std::fs::remove_file(d.join("jobs/x.parquet")).unwrap();
        std::fs::write(d.join("extra.png"), b"png").unwrap();
        let (_, v) = verify(d).unwrap();
        assert_eq!(v.changed, ["summary.csv"]);
        assert_eq!(v.missing, ["jobs/x.parquet"]);
        assert_eq!(v.unlisted, ["extra.png"]);
        assert!(!v.ok());
    }

    #[test]
    fn a_whole_tree_manifest_lists_every_subdirectory() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir_all(d.join("window-k/data")).unwrap();
        std::fs::write(d.join("window-k/fig9.png"), b"png").unwrap();
        std::fs::write(d.join("window-k/data/fig9.csv"), b"x,y").unwrap();
        let mut m = Manifest::begin(1);
        m.whole_tree = true;
        m.finish(d).unwrap();
        assert_eq!(
            read(d).unwrap().files.keys().collect::<Vec<_>>(),
            ["window-k/data/fig9.csv", "window-k/fig9.png"]
        );
        std::fs::write(d.join("window-k/new.png"), b"png").unwrap();
        let (_, v) = verify(d).unwrap();
        assert!(v.ok() && v.unlisted == ["window-k/new.png"], "{v:?}");
    }

    #[test]
    fn a_foreign_or_damaged_manifest_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = read(dir.path()).unwrap_err();
        assert!(format!("{err:#}").contains(MANIFEST_FILE));
        std::fs::write(dir.path().join(MANIFEST_FILE), b"{\"format\": 1}").unwrap();
        let err = format!("{:#}", read(dir.path()).unwrap_err());
        assert!(
            err.contains("parsing") && err.contains(MANIFEST_FILE),
            "{err}"
        );
    }
}
