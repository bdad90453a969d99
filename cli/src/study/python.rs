//! Python series in the binary's studies: a series whose label has a `py:` part (a policy class
//! `py:policies/sjf.py:Sjf`, or a queue order `easy:order=py:prio.py:score`) is an external series
//! of the library ([`pwa_replay::experiment::external`]), and each of its replicas is replayed by
//! a worker process, `python -m pwa_replay.worker`, which reads the replica's instance on stdin and
//! writes its metrics (exact texts) on stdout. The binary links no Python: the interpreter is
//! `$PWA_PYTHON`, else `python3` on the `PATH`, and must import `pwa_replay`.
//!
//! One process per replica: every replica builds its policy anew from the file as it is, and a
//! policy that crashes its interpreter fails its replica only. The executor's threads each wait on
//! their child, so up to `--threads` replicas run side by side. A label's digest (the sha256 of the
//! file its `py:` part names, with the whole label) is part of its cells' ids, so `--resume` after
//! editing the file replays that file's series and reuses the rest.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::bail;
use pwa_replay::engine::RunMetrics;
use pwa_replay::experiment::external::is_external;
use pwa_replay::experiment::plan::Policy;
use pwa_replay::experiment::run::Replica;
use pwa_replay::sweep::CellError;
use pwa_replay::workload::tracepath::sha256_bytes;
use serde::Deserialize;

use crate::report::metrics;

/// The environment variable naming the Python interpreter of the workers.
pub const PYTHON_ENV: &str = "PWA_PYTHON";

/// What to install when no interpreter imports `pwa_replay`.
const INSTALL: &str = "install the Python package (`pip install pwa-replay`, or the wheel of \
     `make wheel`) for `python3`, or set PWA_PYTHON to an interpreter that has it";

/// The file a label's `py:` part names (relative to `dir`): `py:PATH:…` at the start of the label
/// or after an `=`.
fn named_file(dir: &Path, label: &str) -> Option<PathBuf> {
    let label = label.trim();
    let rest = label
        .strip_prefix("py:")
        .or_else(|| label.split_once("=py:").map(|(_, r)| r))?;
    let path = rest.split(':').next().filter(|p| !p.is_empty())?;
    Some(dir.join(path))
}

/// The digest of an external label: the sha256 of the file it names (relative to `dir`) with the
/// label itself (its class or function, its arguments).
pub fn digest(dir: &Path, label: &str) -> Result<String, String> {
    let file = named_file(dir, label).ok_or("a Python label is py:PATH:Class[:key=value,…]")?;
    let mut bytes = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
    bytes.push(0);
    bytes.extend_from_slice(label.trim().as_bytes());
    Ok(sha256_bytes(&bytes))
}

/// The Python workers of one study, whose labels' paths are relative to `dir`.
pub struct Workers {
    python: PathBuf,
    dir: PathBuf,
}

/// A worker's answer.
#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum Reply {
    Metrics(std::collections::BTreeMap<String, String>),
    #[serde(untagged)]
    Error {
        error: String,
        sim_time: Option<f64>,
        traceback: String,
    },
}

impl Workers {
    /// The workers of labels relative to `dir`, when `labels` has an external one: the
    /// interpreter found and checked once (a one-line error naming what to install otherwise).
    pub fn for_labels(dir: &Path, labels: &[String]) -> anyhow::Result<Option<Workers>> {
        if !labels.iter().any(|l| is_external(l)) {
            return Ok(None);
        }
        let python = std::env::var_os(PYTHON_ENV).map_or_else(|| "python3".into(), PathBuf::from);
        let check = Command::new(&python)
            .args(["-c", "import pwa_replay.worker"])
            .stdin(Stdio::null())
            .output();
        let why = match check {
            Ok(out) if out.status.success() => {
                return Ok(Some(Workers {
                    python,
                    dir: dir.to_path_buf(),
                }));
            }
            Ok(out) => String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("failed")
                .to_string(),
            Err(e) => e.to_string(),
        };
        bail!(
            "Python series ({}) need Python with pwa_replay: {INSTALL} ({}: {why})",
            labels
                .iter()
                .filter(|l| is_external(l))
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            python.display()
        )
    }

    /// The metrics of replica `r`: a worker's for an external cell, `compute`'s otherwise.
    pub fn replay(
        workers: Option<&Workers>,
        r: &Replica<'_>,
        compute: &dyn Fn() -> Result<RunMetrics, CellError>,
    ) -> Result<RunMetrics, CellError> {
        match (&r.cell.sched, workers) {
            (Policy::External(_), Some(w)) => w.run(r),
            _ => compute(),
        }
    }

    /// Replica `r` of an external cell in a worker process.
    fn run(&self, r: &Replica<'_>) -> Result<RunMetrics, CellError> {
        let instance = r.instance()?;
        let mut child = Command::new(&self.python)
            .args(["-m", "pwa_replay.worker"])
            .current_dir(&self.dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("starting {}: {e}", self.python.display()))?;
        {
            let mut stdin = child.stdin.take().ok_or("no stdin")?;
            let header = serde_json::json!({ "policy": instance.policy });
            serde_json::to_writer(&mut stdin, &header)?;
            stdin.write_all(b"\n")?;
            serde_json::to_writer(std::io::BufWriter::new(&mut stdin), &instance)?;
        }
        let out = child.wait_with_output()?;
        let reply: Reply = serde_json::from_slice(&out.stdout).map_err(|_| {
            let stderr = String::from_utf8_lossy(&out.stderr);
            format!(
                "the Python worker failed ({}): {}",
                out.status,
                stderr.trim()
            )
        })?;
        match reply {
            Reply::Metrics(texts) => Ok(metrics::from_lookup(|name| {
                let text = texts
                    .get(name)
                    .ok_or_else(|| anyhow::anyhow!("the worker gave no `{name}`"))?;
                metrics::from_text(name, text)
            })
            .map_err(|e| format!("{e:#}"))?),
            Reply::Error {
                error,
                sim_time,
                traceback,
            } => {
                let at = sim_time.map_or(String::new(), |t| format!(" at simulated time {t} s"));
                Err(format!(
                    "replica with seed {}: {error}{at}\n{}",
                    r.seed,
                    traceback.trim_end()
                )
                .into())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_of_a_label_is_its_py_part() {
        let d = Path::new("/e");
        assert_eq!(
            named_file(d, "py:policies/sjf.py:Sjf"),
            Some(PathBuf::from("/e/policies/sjf.py"))
        );
        assert_eq!(
            named_file(d, "easy:order=py:prio.py:score"),
            Some(PathBuf::from("/e/prio.py"))
        );
        assert_eq!(named_file(d, "py::X"), None);
        assert_eq!(named_file(d, "easy"), None);
    }
}
