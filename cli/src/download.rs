//! Downloads from the Parallel Workloads Archive, shared by `pwa-replay fetch` and the trace
//! loader (which fetches a missing catalogued log once): the address of an entry, the download,
//! its verification, and what to do by hand when there is no network.
//!
//! The file goes to `<dir>/<file>.part` first; it is verified (sha256 of the uncompressed bytes
//! against the catalog; for a trace the catalog has no hash for, gzip integrity and a strict SWF
//! parse, after which the hash is recorded as `<file>.sha256`) and renamed. On any failure whatever
//! was written is deleted, and the message says how to put the file in place by hand. With
//! `$PWA_OFFLINE` set to `1` nothing is downloaded ([`offline`]): the error says how to get the file.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::Context;
use pwa_replay::catalog::TraceEntry;
use pwa_replay::swf::{ReadOptions, SwfReader};
use pwa_replay::workload::tracepath::{self, SearchPath};

/// The archive's base address (`<base>/<folder>/<file>`).
pub const DEFAULT_ARCHIVE_URL: &str = "https://www.cs.huji.ac.il/labs/parallel/workload";

/// Whether `$PWA_OFFLINE` is `1`: no download is even tried.
pub fn offline() -> bool {
    std::env::var_os("PWA_OFFLINE").is_some_and(|v| v == "1")
}

/// `--base-url`, else `$PWA_ARCHIVE_URL`, else [`DEFAULT_ARCHIVE_URL`]; no trailing `/`.
pub fn base_url(flag: Option<&str>) -> String {
    let s = flag
        .map(str::to_string)
        .or_else(|| std::env::var("PWA_ARCHIVE_URL").ok())
        .unwrap_or_else(|| DEFAULT_ARCHIVE_URL.to_string());
    s.trim_end_matches('/').to_string()
}

/// The download address of an entry; `None` for a log the archive does not hold.
pub fn url_of(entry: &TraceEntry, base: &str) -> Option<String> {
    (entry.folder.as_ref()).map(|folder| format!("{base}/{folder}/{}", entry.file))
}

/// What to do without a network, for the error message.
pub fn offline_help(entry: &TraceEntry, sp: &SearchPath, dir: &Path) -> String {
    let dirs: Vec<String> = sp
        .dirs()
        .iter()
        .map(|d| format!("  {}", d.display()))
        .collect();
    let source = match url_of(entry, DEFAULT_ARCHIVE_URL) {
        Some(url) => format!("To install it by hand, download {url} and put it"),
        None => format!(
            "The archive does not hold it ({}): put it",
            entry.description
        ),
    };
    format!(
        "trace {} needs the file {}. {source} (gzip or plain) in {} or in any directory of the \
         search path (set PWA_TRACES=dir1:dir2 to add some):\n{}",
        entry.name,
        entry.file,
        dir.display(),
        dirs.join("\n")
    )
}

/// A failed download, followed by what to do by hand.
pub fn with_help(
    e: anyhow::Error,
    entry: &TraceEntry,
    sp: &SearchPath,
    dir: &Path,
) -> anyhow::Error {
    anyhow::anyhow!("{e:#}\n{}", offline_help(entry, sp, dir))
}

/// Downloads `entry` into `dir`, verifies it and returns its final path. Nothing unverified is kept;
/// [`offline`], nothing is tried.
pub fn fetch_entry(entry: &TraceEntry, base: &str, dir: &Path) -> anyhow::Result<PathBuf> {
    let Some(url) = url_of(entry, base) else {
        anyhow::bail!(
            "{} is not a Parallel Workloads Archive log: there is nothing to download",
            entry.name
        );
    };
    anyhow::ensure!(
        !offline(),
        "not downloading {url}: PWA_OFFLINE=1 forbids it (unset PWA_OFFLINE to download)"
    );
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let dest = dir.join(&entry.file);
    let part = dir.join(format!("{}.part", entry.file));
    let result = download(&url, &part).and_then(|()| verify_download(entry, &part));
    match result {
        Ok(sha256) => {
            std::fs::rename(&part, &dest)
                .with_context(|| format!("renaming {} to {}", part.display(), dest.display()))?;
            if entry.sha256.is_none() {
                std::fs::write(tracepath::recorded_hash_path(&dest), format!("{sha256}\n"))
                    .with_context(|| format!("recording the sha256 of {}", dest.display()))?;
            }
            Ok(dest)
        }
        Err(e) => {
            let _ = std::fs::remove_file(&part);
            Err(e)
        }
    }
}

/// Streams `url` into `to` (bounded: 20 s to connect, 10 min in all).
fn download(url: &str, to: &Path) -> anyhow::Result<()> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_connect(Some(Duration::from_secs(20)))
        .timeout_global(Some(Duration::from_secs(600)))
        .build()
        .into();
    // identity: keep the archive's gzip bytes as they are (no transparent decoding)
    let resp = agent
        .get(url)
        .header("Accept-Encoding", "identity")
        .call()
        .with_context(|| format!("downloading {url}"))?;
    let mut body = resp.into_body().into_reader();
    let mut file = File::create(to).with_context(|| format!("creating {}", to.display()))?;
    io::copy(&mut body, &mut file).with_context(|| format!("downloading {url}"))?;
    file.sync_all()
        .with_context(|| format!("writing {}", to.display()))?;
    Ok(())
}

/// Checks a downloaded file; returns the sha256 of its uncompressed bytes.
fn verify_download(entry: &TraceEntry, part: &Path) -> anyhow::Result<String> {
    match &entry.sha256 {
        Some(h) => Ok(tracepath::verify(part, h)?),
        None => {
            // No recorded hash: the gzip must decompress completely (its CRC is checked) and
            // every line must parse strictly.
            let sha = tracepath::sha256_uncompressed(part)?;
            check_parses(part)
                .with_context(|| format!("{} does not parse as SWF", part.display()))?;
            Ok(sha)
        }
    }
}

/// Reads every line of a (possibly gzip) SWF file strictly; returns the number of job records.
pub fn check_parses(path: &Path) -> anyhow::Result<u64> {
    let mut reader = SwfReader::open(path, ReadOptions::strict())?;
    for record in reader.by_ref() {
        record?;
    }
    Ok(reader.records())
}
