//! Python series in `pwa-replay experiment` and `sweep` (docs/PYTHON.md): a `py:` policy (or
//! priority function) equal to the built-in scheduler it reimplements at every point and replica,
//! the same whatever the thread count, replayed again after its file changes (and only it) under
//! `--resume`, failing cell by cell with its traceback, and a sweep's shards merging only when run
//! on the same policy files.
//!
//! The workers' interpreter is `$PWA_PYTHON` (`make test` sets it to `target/py-venv`'s, which it
//! builds first), else `target/py-venv/bin/python` when it exists: these tests are skipped, saying
//! why, only when neither imports `pwa_replay`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

use crate::support::{bin, real_logs, worker_python, write};

/// The interpreter the workers need, or `None` (with the reason printed) when there is none.
fn python() -> Option<PathBuf> {
    let given = std::env::var_os("PWA_PYTHON").map(PathBuf::from);
    let python = worker_python()?;
    let imports = std::process::Command::new(&python)
        .args(["-c", "import pwa_replay.worker"])
        .status()
        .is_ok_and(|s| s.success());
    match (imports, given) {
        (true, _) => Some(python),
        // Asked for explicitly (as `make test` does): it must work.
        (false, Some(p)) => panic!("PWA_PYTHON={} does not import pwa_replay", p.display()),
        (false, None) => {
            eprintln!(
                "skipped: {} does not import pwa_replay (`make python` builds it)",
                python.display()
            );
            None
        }
    }
}

/// [`python`] or a printed skip.
macro_rules! python_or_skip {
    () => {
        match python() {
            Some(p) => p,
            None => {
                eprintln!("skipped: no Python with pwa_replay (set PWA_PYTHON, or `make python`)");
                return;
            }
        }
    };
}

/// A study with the Python SJF policy of experiments/policies/sjf.py beside the built-in
/// `fcfs:order=sjf` it reimplements, and a policy of `bad.py`: two load factors, two replicas.
fn study(bad: bool) -> String {
    let mut sched = r#""fcfs:order=sjf", "py:policies/sjf.py:Sjf""#.to_string();
    if bad {
        sched.push_str(r#", "py:policies/bad.py:Bad""#);
    }
    format!(
        r#"
title = "Python SJF"
[defaults]
replicate = {{ count = 2 }}
[[panel]]
name = "u"
workload = "synth:uniform,mesh=16x16,jobs=300,rate=1"
sched = [{sched}]
alloc = ["ff"]
estimate = ["x2"]
x = {{ values = [0.7, 1.3] }}
[[figure]]
name = "wait"
panel = "u"
y = "mean_wait_s"
"#
    )
}

/// A folder with the study and its policies (the repository's SJF).
fn folder(bad: bool) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir(tmp.path().join("policies")).unwrap();
    let sjf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/policies/sjf.py");
    std::fs::copy(sjf, tmp.path().join("policies/sjf.py")).unwrap();
    write(
        &tmp.path().join("policies"),
        "bad.py",
        "class Bad:\n    def schedule(self, state):\n        if state.now > 20:\n            \
         raise RuntimeError('boom')\n        for job in state.queue:\n            \
         if not state.start(job):\n                return\n",
    );
    write(tmp.path(), "study.toml", &study(bad));
    tmp
}

/// `experiment study.toml` in `dir` with `extra` flags: the command, to run.
fn experiment(python: &Path, dir: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.env("PWA_PYTHON", python)
        .current_dir(dir)
        .args(["experiment", "study.toml", "--out", "out"])
        .args(extra);
    c
}

/// Mends `policies/bad.py` under `dir`: it raises no more.
fn mend(dir: &Path) {
    let bad = dir.join("policies/bad.py");
    let mended = std::fs::read_to_string(&bad)
        .unwrap()
        .replace("raise RuntimeError('boom')", "pass");
    std::fs::write(&bad, mended).unwrap();
}

/// Asserts that `err` says `needle`.
fn mentions(err: &str, needle: &str) {
    assert!(err.contains(needle), "stderr lacks {needle:?}: {err}");
}

/// Runs `cmd`: its success, stderr and the `S simulated` count it prints.
fn counted(cmd: &mut Command) -> (bool, String, usize) {
    let out = cmd.output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let simulated = err
        .split(" simulated")
        .next()
        .and_then(|s| s.rsplit('(').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(usize::MAX);
    (out.status.success(), err, simulated)
}

/// Every replica's metrics of series `series` of panel 0 in `out/results.json`, point by point,
/// without the wall times.
fn replicas(out: &Path, series: usize) -> Vec<Vec<BTreeMap<String, String>>> {
    let text = std::fs::read_to_string(out.join("results.json")).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();
    let line = r["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["panel"] == 0 && l["series"] == series)
        .expect("the series ran");
    line["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let runs: Vec<BTreeMap<String, String>> =
                serde_json::from_value(r["cells"][p[1].as_str().unwrap()].clone()).unwrap();
            runs.into_iter()
                .map(|mut m| {
                    m.retain(|k, _| k != "sim_wall_s" && k != "alloc_time_s");
                    m
                })
                .collect()
        })
        .collect()
}

#[test]
fn a_python_series_equals_the_builtin_one_at_every_replica_whatever_the_threads() {
    let python = python_or_skip!();
    let tmp = folder(false);
    let (ok1, err, n) = counted(&mut experiment(&python, tmp.path(), &["--threads", "1"]));
    assert!(ok1, "{err}");
    assert_eq!(n, 8, "2 series × 2 load factors × 2 replicas: {err}");
    let builtin = replicas(&tmp.path().join("out"), 0);
    let py = replicas(&tmp.path().join("out"), 1);
    assert_eq!(py.len(), 2);
    assert_eq!(
        py, builtin,
        "the Python SJF is fcfs:order=sjf, replica by replica"
    );
    assert_ne!(py[0][0], py[0][1], "the replicas differ");
    // Two workers: the same bytes of results.
    let one = std::fs::read(tmp.path().join("out/results.json")).unwrap();
    std::fs::remove_dir_all(tmp.path().join("out")).unwrap();
    let (ok2, err, _) = counted(&mut experiment(&python, tmp.path(), &["--threads", "2"]));
    assert!(ok2, "{err}");
    let strip = |bytes: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(bytes)
            .lines()
            .filter(|l| !l.contains("sim_wall_s") && !l.contains("alloc_time_s"))
            .map(String::from)
            .collect()
    };
    let two = std::fs::read(tmp.path().join("out/results.json")).unwrap();
    assert_eq!(strip(&one), strip(&two));
}

#[test]
fn an_auto_panel_climbs_a_python_series_as_the_builtin_one() {
    let python = python_or_skip!();
    let tmp = folder(false);
    let auto = study(false).replace(
        "x = { values = [0.7, 1.3] }",
        "x = { values = \"auto:0.5:2:0.5\" }",
    );
    write(tmp.path(), "study.toml", &auto);
    let (ok, err, _) = counted(&mut experiment(&python, tmp.path(), &["--threads", "2"]));
    assert!(ok, "{err}");
    let builtin = replicas(&tmp.path().join("out"), 0);
    assert!(builtin.len() >= 3, "climbed: {err}");
    assert_eq!(replicas(&tmp.path().join("out"), 1), builtin);
}

#[test]
fn resume_after_editing_a_policy_replays_its_series_only() {
    let python = python_or_skip!();
    let tmp = folder(false);
    let (ok, err, n) = counted(&mut experiment(&python, tmp.path(), &[]));
    assert!(ok && n == 8, "{err}");
    let (_, err, n) = counted(&mut experiment(&python, tmp.path(), &["--resume"]));
    assert_eq!(n, 0, "nothing changed: {err}");
    touch(tmp.path(), "policies/sjf.py");
    let (ok, err, n) = counted(&mut experiment(&python, tmp.path(), &["--resume"]));
    assert!(ok, "{err}");
    assert_eq!(
        n, 4,
        "the Python series' 4 replicas, not the built-in's: {err}"
    );
}

/// [`folder`] whose SJF policy takes its sort key from `policies/helpers.py` (a module beside
/// it), with an unrelated `policies/notes.py`.
fn helped_folder() -> tempfile::TempDir {
    let tmp = folder(false);
    let sjf = tmp.path().join("policies/sjf.py");
    let text = std::fs::read_to_string(&sjf).unwrap().replace(
        "bisect.insort(self.waiting, (job.estimate, job.index, job))",
        "bisect.insort(self.waiting, (*key(job), job))",
    );
    std::fs::write(&sjf, format!("from helpers import key\n{text}")).unwrap();
    write(
        &tmp.path().join("policies"),
        "helpers.py",
        "def key(job):\n    return (job.estimate, job.index)\n",
    );
    write(&tmp.path().join("policies"), "notes.py", "NOTE = 1\n");
    tmp
}

/// Appends a comment to `dir/name`.
fn touch(dir: &Path, name: &str) {
    let path = dir.join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{text}# edited\n")).unwrap();
}

#[test]
fn resume_after_editing_an_imported_module_replays_its_series_only() {
    let python = python_or_skip!();
    let tmp = helped_folder();
    let (ok, err, n) = counted(&mut experiment(&python, tmp.path(), &[]));
    assert!(ok && n == 8, "{err}");
    assert_eq!(
        replicas(&tmp.path().join("out"), 1),
        replicas(&tmp.path().join("out"), 0),
        "the policy imported its helper and is still SJF"
    );
    touch(tmp.path(), "policies/notes.py");
    let (ok, err, n) = counted(&mut experiment(&python, tmp.path(), &["--resume"]));
    assert!(ok && n == 0, "a file the policy does not import: {err}");
    touch(tmp.path(), "policies/helpers.py");
    let (ok, err, n) = counted(&mut experiment(&python, tmp.path(), &["--resume"]));
    assert!(ok, "{err}");
    assert_eq!(
        n, 4,
        "the Python series' 4 replicas, not the built-in's: {err}"
    );
}

#[test]
fn the_binary_keys_a_series_by_the_digest_of_the_python_api() {
    let python = python_or_skip!();
    let tmp = helped_folder();
    let (ok, err, _) = counted(&mut experiment(&python, tmp.path(), &["--quiet"]));
    assert!(ok, "{err}");
    let text = std::fs::read_to_string(tmp.path().join("out/results.json")).unwrap();
    let r: Value = serde_json::from_str(&text).unwrap();
    let label = "py:policies/sjf.py:Sjf";
    let cli = r["policies"][label]
        .as_str()
        .expect("the series' digest is kept");
    let api = std::process::Command::new(&python)
        .args([
            "-c",
            "import sys; from pwa_replay.series import external_digest; \
             print(external_digest(sys.argv[1], sys.argv[2]))",
            label,
        ])
        .arg(tmp.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(api.status.success(), "{api:?}");
    assert_eq!(String::from_utf8_lossy(&api.stdout).trim(), cli);
}

#[test]
fn shards_run_with_different_policy_code_refuse_to_merge() {
    let python = python_or_skip!();
    let tmp = helped_folder();
    let shard = |i: usize| {
        let out = format!("p{i}");
        let shard = format!("{i}/2");
        crate::support::ok(
            bin()
                .env("PWA_PYTHON", &python)
                .current_dir(tmp.path())
                .args([
                    "experiment",
                    "study.toml",
                    "--quiet",
                    "--shard",
                    &shard,
                    "--out",
                    &out,
                ]),
        );
        tmp.path().join(out)
    };
    let parts = [shard(0), shard(1)];
    let mut merge = bin();
    merge
        .arg("merge")
        .arg("--quiet")
        .arg(tmp.path().join("whole"));
    crate::support::ok(merge.args(&parts));
    touch(tmp.path(), "policies/helpers.py");
    let parts = [parts[0].clone(), shard(1)];
    let mut merge = bin();
    merge
        .arg("merge")
        .arg(tmp.path().join("mixed"))
        .args(&parts);
    crate::support::fails_with(
        &mut merge,
        &["ran other code for the Python series py:policies/sjf.py:Sjf"],
    );
}

#[test]
fn a_failing_policy_fails_its_cells_with_the_traceback_and_resume_reruns_them_only() {
    let python = python_or_skip!();
    let tmp = folder(true);
    let (ok, err, _) = counted(&mut experiment(&python, tmp.path(), &[]));
    assert!(!ok, "the study fails");
    for needle in [
        "2 cell(s) failed",
        "py:policies/bad.py:Bad+ff+x2 at x = 0.7",
        "py:policies/bad.py:Bad+ff+x2 at x = 1.3",
        "RuntimeError: boom at simulated time",
        "policies/bad.py\", line 4, in schedule",
    ] {
        mentions(&err, needle);
    }
    // The other cells finished and were kept: once the policy is mended, a rerun replays the
    // failed cells only (2 cells × 2 replicas) and reuses the 8 others.
    mend(tmp.path());
    let (ok, err, n) = counted(&mut experiment(&python, tmp.path(), &["--resume"]));
    assert!(ok, "{err}");
    assert_eq!(n, 4, "{err}");
    assert!(err.contains("12 replicas (4 simulated, 8 reused)"), "{err}");
}

#[test]
fn without_python_the_study_says_what_to_install() {
    let tmp = folder(false);
    let mut c = bin();
    c.env("PWA_PYTHON", tmp.path().join("no-python"))
        .current_dir(tmp.path())
        .args(["experiment", "study.toml", "--out", "out"]);
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("need Python with pwa_replay") && err.contains("pip install"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}

/// The repository's study on the first 3,000 jobs of each log: its claims (the Python SJF equal
/// to `fcfs:order=sjf`, the Python SJF score to `easy:order=sjf`, on both logs) hold.
#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn the_python_policies_study_holds_on_its_quick_budget() {
    let python = python_or_skip!();
    let tmp = tempfile::tempdir().unwrap();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/python-policies.toml");
    let mut c = bin();
    c.env("PWA_PYTHON", &python)
        .env("PWA_TRACES", real_logs())
        .arg("experiment")
        .arg(&file)
        .args(["--quick", "--quiet", "--out"])
        .arg(tmp.path());
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let readme = std::fs::read_to_string(tmp.path().join("README.md")).unwrap();
    assert!(readme.contains("Claims: 6 of 6 hold"), "{readme}");
}

/// The folder of [`helped_folder`] with the SJF score of experiments/policies/sjf_score.py too.
fn sweep_folder() -> tempfile::TempDir {
    let tmp = helped_folder();
    let score = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/policies/sjf_score.py");
    std::fs::copy(score, tmp.path().join("policies/sjf_score.py")).unwrap();
    tmp
}

/// The built-in SJF orders and their Python spellings, in pairs.
const SWEPT: &str = "fcfs:order=sjf,py:policies/sjf.py:Sjf,easy:order=sjf,\
                     easy:order=py:policies/sjf_score.py:score";

/// `sweep` of a synthetic mesh workload over `sched` in `dir` into `out`, with `extra` flags
/// (load factors 0.7 and 1.3 unless they give `--loads`).
fn sweep(python: &Path, dir: &Path, sched: &str, out: &str, extra: &[&str]) -> Command {
    let mut c = bin();
    c.env("PWA_PYTHON", python).current_dir(dir).args([
        "sweep",
        "--trace",
        "synth:uniform,mesh=16x16,jobs=300,rate=1",
        "--sched",
        sched,
        "--alloc",
        "ff",
        "--estimate",
        "x2",
        "--out",
        out,
    ]);
    if !extra.contains(&"--loads") {
        c.args(["--loads", "0.7,1.3"]);
    }
    c.args(extra);
    c
}

/// The rows of `dir/summary.csv` by scheduler, without the wall times.
fn summary(dir: &Path) -> BTreeMap<String, Vec<BTreeMap<String, String>>> {
    let mut by: BTreeMap<String, Vec<BTreeMap<String, String>>> = BTreeMap::new();
    for mut row in crate::support::csv_rows(&dir.join("summary.csv")) {
        row.retain(|k, _| k != "sim_wall_s" && k != "alloc_time_s");
        let sched = row.remove("scheduler").unwrap();
        by.entry(sched).or_default().push(row);
    }
    by
}

/// A cell's simulated schedule (`--swf-out`) without its header.
fn schedule(dir: &Path, stem: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join("swf").join(format!("{stem}.swf")))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with(';'))
        .map(String::from)
        .collect()
}

#[test]
fn a_sweep_s_python_series_equal_the_builtin_ones_cell_by_cell_whatever_the_threads() {
    let python = python_or_skip!();
    let tmp = sweep_folder();
    let (ok, err, n) = counted(&mut sweep(
        &python,
        tmp.path(),
        SWEPT,
        "one",
        &["--threads", "1", "--swf-out", "--per-job"],
    ));
    assert!(ok, "{err}");
    assert_eq!(n, 8, "4 series × 2 load factors: {err}");
    let one = tmp.path().join("one");
    let rows = summary(&one);
    assert_eq!(rows["py:policies/sjf.py:Sjf"], rows["fcfs:order=sjf"]);
    assert_eq!(
        rows["easy:order=py:policies/sjf_score.py:score"],
        rows["easy:order=sjf"]
    );
    assert_ne!(rows["fcfs:order=sjf"], rows["easy:order=sjf"]);
    // The schedules too, job by job, and every cell's per-user and per-job tables are there.
    for lf in ["0.7", "1.3"] {
        assert_eq!(
            schedule(&one, &format!("py-policies-sjf.py-Sjf_ff_lf{lf}_x2")),
            schedule(&one, &format!("fcfs-order=sjf_ff_lf{lf}_x2"))
        );
    }
    for dir in ["users", "jobs"] {
        assert_eq!(
            std::fs::read_dir(one.join(dir)).unwrap().count(),
            8,
            "{dir}"
        );
    }
    let report = std::fs::read_to_string(one.join("report.md")).unwrap();
    assert!(report.contains("py:policies/sjf.py:Sjf"), "{report}");
    // Two threads: the same table (every schedule, the workers' too, through the validator).
    let two = ["--threads", "2", "--validate"];
    let (ok, err, _) = counted(&mut sweep(&python, tmp.path(), SWEPT, "two", &two));
    assert!(ok, "{err}");
    assert_eq!(summary(&tmp.path().join("two")), rows);
}

#[test]
fn a_sweep_climbs_auto_loads_with_a_python_series_as_with_the_builtin_one() {
    let python = python_or_skip!();
    let tmp = sweep_folder();
    let sched = "fcfs:order=sjf,py:policies/sjf.py:Sjf";
    let flags = ["--loads", "auto:0.5:3:0.5", "--threads", "2"];
    let (ok, err, _) = counted(&mut sweep(&python, tmp.path(), sched, "out", &flags));
    assert!(ok, "{err}");
    let rows = summary(&tmp.path().join("out"));
    assert!(rows["fcfs:order=sjf"].len() >= 3, "{rows:?}");
    assert_eq!(rows["py:policies/sjf.py:Sjf"], rows["fcfs:order=sjf"]);
}

#[test]
fn a_sweep_resumed_after_a_policy_is_edited_replays_that_series_only() {
    let python = python_or_skip!();
    let tmp = sweep_folder();
    let run = |extra: &[&str]| counted(&mut sweep(&python, tmp.path(), SWEPT, "out", extra));
    let (ok, err, n) = run(&[]);
    assert!(ok && n == 8, "{err}");
    let (_, err, n) = run(&["--resume"]);
    assert_eq!(n, 0, "nothing changed: {err}");
    touch(tmp.path(), "policies/notes.py");
    let (_, err, n) = run(&["--resume"]);
    assert_eq!(n, 0, "a file no policy imports: {err}");
    for edited in ["policies/sjf.py", "policies/helpers.py"] {
        touch(tmp.path(), edited);
        let (ok, err, n) = run(&["--resume"]);
        assert!(ok, "{err}");
        assert_eq!(n, 2, "{edited}: the Python SJF's 2 cells, no other: {err}");
        assert!(err.contains("8 cells (2 simulated, 6 reused)"), "{err}");
    }
}

#[test]
fn a_sweep_s_failing_policy_fails_its_cells_only_and_resume_reruns_them() {
    let python = python_or_skip!();
    let tmp = sweep_folder();
    let sched = "fcfs:order=sjf,py:policies/bad.py:Bad";
    let (ok, err, _) = counted(&mut sweep(
        &python,
        tmp.path(),
        sched,
        "out",
        &["--threads", "2"],
    ));
    assert!(!ok, "the sweep fails");
    for needle in [
        "2 cell(s) failed",
        "cell py:policies/bad.py:Bad + ff (x2) @ 0.7",
        "cell py:policies/bad.py:Bad + ff (x2) @ 1.3",
        "RuntimeError: boom at simulated time",
        "policies/bad.py\", line 4, in schedule",
        "--resume",
    ] {
        mentions(&err, needle);
    }
    mend(tmp.path());
    let (ok, err, n) = counted(&mut sweep(&python, tmp.path(), sched, "out", &["--resume"]));
    assert!(ok, "{err}");
    assert_eq!(n, 2, "the failed cells only: {err}");
}

#[test]
fn a_sweep_s_shards_merge_and_parts_of_another_policy_file_do_not() {
    let python = python_or_skip!();
    let tmp = sweep_folder();
    let sched = "fcfs:order=sjf,py:policies/sjf.py:Sjf";
    let part = |i: usize| {
        let shard = format!("{i}/2");
        let (ok, err, _) = counted(&mut sweep(
            &python,
            tmp.path(),
            sched,
            &format!("p{i}"),
            &["--shard", &shard],
        ));
        assert!(ok, "{err}");
    };
    part(0);
    part(1);
    let merge = |out: &str| {
        let mut c = bin();
        c.current_dir(tmp.path()).args(["merge", out, "p0", "p1"]);
        c
    };
    crate::support::ok(&mut merge("merged"));
    let (ok, err, _) = counted(&mut sweep(&python, tmp.path(), sched, "whole", &[]));
    assert!(ok, "{err}");
    assert_eq!(
        summary(&tmp.path().join("merged")),
        summary(&tmp.path().join("whole"))
    );
    // Part 1 again on an edited policy file: not a part of the same sweep.
    touch(tmp.path(), "policies/sjf.py");
    std::fs::remove_dir_all(tmp.path().join("p1")).unwrap();
    part(1);
    crate::support::fails_with(&mut merge("again"), &["not parts of one sweep"]);
}

#[test]
fn a_sweep_refuses_a_python_series_whose_file_is_missing_in_one_line() {
    let python = python_or_skip!();
    let tmp = tempfile::tempdir().unwrap();
    let mut c = bin();
    c.env("PWA_PYTHON", &python).current_dir(tmp.path()).args([
        "sweep",
        "--trace",
        "synth:uniform,mesh=8x8,jobs=20,rate=1",
        "--sched",
        "fcfs,py:policies/none.py:Sjf",
        "--alloc",
        "ff",
        "--loads",
        "1",
    ]);
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("--sched") && err.contains("none.py"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
}
