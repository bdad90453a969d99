//! Python series in the binary's studies: a series whose label has a `py:` part (a policy class
//! `py:policies/sjf.py:Sjf`, or a queue order `easy:order=py:prio.py:score`) is an external series
//! of the library ([`pwa_replay::experiment::external`]), and each of its replicas is replayed by
//! a worker process, `python -m pwa_replay.worker`, which reads the replica's instance on stdin and
//! writes its metrics (exact texts) on stdout, with the replica's schedule when asked (a sweep's
//! per-user and per-job tables, [`Workers::replay_run`]). The binary links no Python: the
//! interpreter is `$PWA_PYTHON`, else `python3` on the `PATH`, and must import `pwa_replay`.
//!
//! One process per replica: every replica builds its policy anew from the file as it is, and a
//! policy that crashes its interpreter fails its replica only. The executor's threads each wait on
//! their child, so up to `--threads` replicas run side by side.
//!
//! A label's digest is part of its cells' ids, so `--resume` after editing the policy's code
//! replays that series and reuses the rest. It covers the file the `py:` part names, the label,
//! and every local module the file imports, transitively (docs/PYTHON.md): the interpreter
//! computes it (`python -m pwa_replay.worker --digest LABEL…`), so that the binary and the
//! Python API key a series by one implementation of Python's import rules, the package's, rather
//! than by a second one in Rust that would have to follow the first.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::bail;
use pwa_replay::engine::{Outcome, RunMetrics};
use pwa_replay::experiment::external::{Instance, is_external};
use pwa_replay::experiment::plan::Policy;
use pwa_replay::experiment::run::Replica;
use pwa_replay::sweep::{CellError, CellRun};
use serde::Deserialize;

use crate::report::metrics;

/// The environment variable naming the Python interpreter of the workers.
pub const PYTHON_ENV: &str = "PWA_PYTHON";

/// What to install when no interpreter imports `pwa_replay`.
const INSTALL: &str = "install the Python package (`pip install pwa-replay`, or the wheel of \
     `make wheel`) for `python3`, or set PWA_PYTHON to an interpreter that has it";

/// The interpreter of the workers: `$PWA_PYTHON`, else `python3` on the `PATH`.
fn interpreter() -> PathBuf {
    std::env::var_os(PYTHON_ENV).map_or_else(|| "python3".into(), PathBuf::from)
}

/// The one-line error when `python` cannot run the workers of `labels`, and why.
fn missing(labels: &[String], python: &Path, why: &str) -> anyhow::Error {
    let external: Vec<&str> = labels
        .iter()
        .filter(|l| is_external(l))
        .map(String::as_str)
        .collect();
    anyhow::anyhow!(
        "Python series ({}) need Python with pwa_replay: {INSTALL} ({}: {why})",
        external.join(", "),
        python.display()
    )
}

/// The last line of a failed interpreter's stderr (its exception), or `failed`.
fn last_line(stderr: &[u8]) -> String {
    String::from_utf8_lossy(stderr)
        .lines()
        .last()
        .unwrap_or("failed")
        .to_string()
}

/// The digests of external labels whose paths are relative to `dir`, in order, from the
/// interpreter's worker (`--digest`): the error the worker gives (a missing file), or the one-line
/// error naming what to install when the interpreter cannot run it.
pub fn digests(dir: &Path, labels: &[String]) -> anyhow::Result<Vec<String>> {
    #[derive(Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Answer {
        Digests(Vec<String>),
        Error(String),
    }
    let python = interpreter();
    let out = Command::new(&python)
        .args(["-m", "pwa_replay.worker", "--digest"])
        .args(labels)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| missing(labels, &python, &e.to_string()))?;
    match serde_json::from_slice(&out.stdout) {
        Ok(Answer::Digests(d)) if d.len() == labels.len() => Ok(d),
        Ok(Answer::Digests(d)) => bail!("the worker gave {} digests for {}", d.len(), labels.len()),
        Ok(Answer::Error(e)) => bail!("{e}"),
        Err(_) => Err(missing(labels, &python, &last_line(&out.stderr))),
    }
}

/// The Python workers of one study, whose labels' paths are relative to `dir`.
pub struct Workers {
    python: PathBuf,
    dir: PathBuf,
}

/// A worker's answer: the metrics (and the schedule, when asked for), or the policy's error.
#[derive(Deserialize)]
#[serde(untagged)]
enum Reply {
    Done {
        metrics: std::collections::BTreeMap<String, String>,
        outcome: Option<Outcome>,
    },
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
        let python = interpreter();
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
            Ok(out) => last_line(&out.stderr),
            Err(e) => e.to_string(),
        };
        Err(missing(labels, &python, &why))
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

    /// Replica `r` of an external cell in a worker process: the workload it replayed, its
    /// schedule and its metrics (a sweep writes per-user and per-job tables from them).
    pub fn replay_run(&self, r: &Replica<'_>) -> Result<CellRun, CellError> {
        let instance = r.instance()?;
        let (metrics, outcome) = self.ask(r, &instance, true)?;
        Ok(CellRun {
            workload: instance.workload,
            outcome: outcome.ok_or("the Python worker returned no schedule")?,
            metrics,
        })
    }

    /// Replica `r` of an external cell in a worker process.
    fn run(&self, r: &Replica<'_>) -> Result<RunMetrics, CellError> {
        Ok(self.ask(r, &r.instance()?, false)?.0)
    }

    /// The worker's metrics of `instance` (replica `r`), with its schedule when `schedule`.
    fn ask(
        &self,
        r: &Replica<'_>,
        instance: &Instance,
        schedule: bool,
    ) -> Result<(RunMetrics, Option<Outcome>), CellError> {
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
            let header = serde_json::json!({ "policy": instance.policy, "schedule": schedule });
            serde_json::to_writer(&mut stdin, &header)?;
            stdin.write_all(b"\n")?;
            serde_json::to_writer(std::io::BufWriter::new(&mut stdin), instance)?;
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
            Reply::Done { metrics, outcome } => {
                let m = metrics::from_lookup(|name| {
                    let text = metrics
                        .get(name)
                        .ok_or_else(|| anyhow::anyhow!("the worker gave no `{name}`"))?;
                    metrics::from_text(name, text)
                })
                .map_err(|e| format!("{e:#}"))?;
                Ok((m, outcome))
            }
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
    use pwa_replay::engine::ReplayOptions;
    use pwa_replay::experiment::run::Prepared;
    use pwa_replay::sweep::{Cell, replay_cell_with};

    /// A worker's schedule reads back as the replay's, bit for bit: placements (submeshes,
    /// non-contiguous pieces, subcubes), reservations, predictions, dilation factors and fair start
    /// times, at an awkward load factor. (Anonymous nodes on a flat machine: the CLI tests compare
    /// a Python series' SWF schedule with the built-in one's.)
    #[test]
    fn a_schedule_travels_as_json_exactly() {
        const MESH: &str = "synth:uniform,mesh=8x8,jobs=150,rate=1";
        let runs = [
            (MESH, "easy", "mpl"),
            (MESH, "fcfs", "mbs"),
            (MESH, "oo", "paging:0"),
            ("synth:hypercube,dim=5,jobs=150", "fcfs", "buddy"),
        ];
        for (label, sched, alloc) in runs {
            let prepared = Prepared::synthetic(label, None).unwrap();
            let workload = match &prepared {
                Prepared::Synth { spec, .. } => spec.generate(7).unwrap(),
                Prepared::Hypercube { spec, .. } => spec.generate(7).unwrap(),
                p => panic!("{p:?}"),
            };
            // Predictions, or fair start times (not measured under predictions) and dilation.
            for fair in [false, true] {
                let cell = Cell {
                    scheduler: sched.parse().unwrap(),
                    allocator: alloc.parse().unwrap(),
                    load_factor: 0.7,
                    estimate: if fair { "exact" } else { "predict" }.parse().unwrap(),
                };
                let options = ReplayOptions {
                    fairness: fair,
                    dilation: (fair && alloc != "buddy").then(|| "linear:0.3".parse().unwrap()),
                    ..ReplayOptions::default()
                };
                let run = replay_cell_with(&workload, prepared.machine(), &cell, options, true)
                    .unwrap_or_else(|e| panic!("{cell}: {e}"));
                let text = serde_json::to_string(&run.outcome).unwrap();
                let back: Outcome = serde_json::from_str(&text).unwrap();
                assert_eq!(back, run.outcome, "{cell}");
                let measured = if fair {
                    run.outcome.fair_starts.len()
                } else {
                    run.outcome.predictions.len()
                };
                assert_eq!(measured, workload.jobs.len(), "{cell}");
            }
        }
    }
}
