//! `pwa-replay experiment` and `merge` of its shards (docs/EXPERIMENTS.md): the README's example,
//! shards against the whole, SIGKILL then `--resume`, and files refused with their line.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::support::{bin, fails_with, ok, real_logs, write};

/// A synthetic study: two panels (a rate axis climbing to saturation, a window-size axis), four
/// replicas per cell, two figures and claims. About a second on 2 cores.
const STUDY: &str = r#"
title = "A small mesh study"

[defaults]
replicate = { count = 4 }

[[panel]]
name = "rate"
workload = "synth:uniform,mesh=16x16,jobs=1500,rate={x}"
sched = ["fcfs", "oo", "window:10"]
alloc = ["ff"]
x = { name = "rate", values = [0.5, 1, 1.5, 2, 2.5, 3, 4], label = "jobs per time unit" }
stop = { above = 100, margin = 1 }

[[panel]]
name = "k"
workload = "synth:uniform,mesh=16x16,jobs=1500,rate=1.5"
x = { name = "window", values = [1, 5, 20, 80], log = true }
[[panel.series]]
sched = "window:{x}"
alloc = "ff"
label = "window:K+ff"
[[panel.series]]
sched = "oo"
alloc = "ff"

[[figure]]
name = "turnaround"
panel = "rate"
y = "mean_turnaround_s"

[[figure]]
name = "k-wait"
panel = "k"
y = "max_wait_s"

[[claim]]
figure = "turnaround"
statement = "FCFS saturates first."
predicate = "saturates_first"
series = "fcfs+ff"

[[claim]]
figure = "turnaround"
statement = "OO is never worse than FCFS."
predicate = "below"
a = "oo+ff"
b = "fcfs+ff"
"#;

fn experiment(file: &Path, out: &Path, extra: &[&str]) -> assert_cmd::Command {
    let mut c = bin();
    c.arg("experiment")
        .arg(file)
        .args(["--threads", "2", "--quiet", "--out"])
        .arg(out)
        .args(extra);
    c
}

/// Every figure CSV and the README of `dir`, by name.
fn figure_data(dir: &Path) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "csv")
                || p.file_name().is_some_and(|n| n == "README.md")
        })
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    v.sort();
    v
}

fn study(dir: &Path) -> PathBuf {
    write(dir, "study.toml", STUDY)
}

#[test]
fn a_study_writes_figures_verdicts_results_and_a_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    ok(&mut experiment(&study(tmp.path()), &out, &[]));
    for f in [
        "turnaround.csv",
        "turnaround.png",
        "k-wait.csv",
        "k-wait.png",
        "README.md",
        "results.json",
        "experiment.toml",
        "manifest.json",
        "index.html",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    let page = std::fs::read_to_string(out.join("index.html")).unwrap();
    for want in [
        "A small mesh study",
        "turnaround.png",
        "k-wait",
        "FCFS saturates first.",
    ] {
        assert!(page.contains(want), "index.html lacks {want}");
    }
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("## Claims: "), "{readme}");
    assert!(readme.contains("| turnaround | FCFS saturates first. | saturates_first: "));
    // The panels table names the machine a model label runs on.
    assert!(
        readme.contains("| rate | `synth:uniform,mesh=16x16,jobs=1500,rate={x}` | mesh:16x16 |"),
        "{readme}"
    );
    let csv = std::fs::read_to_string(out.join("turnaround.csv")).unwrap();
    assert!(csv.starts_with("series,x,y,ci_low,ci_high\n"));
    let fcfs = csv.lines().filter(|l| l.starts_with("fcfs+ff,")).count();
    let oo = csv.lines().filter(|l| l.starts_with("oo+ff,")).count();
    assert!(
        fcfs < oo,
        "FCFS stops climbing past saturation first:\n{csv}"
    );
    // Replicas give intervals.
    let row: Vec<f64> = csv
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .skip(2)
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(row[1] <= row[0] && row[0] <= row[2]);
    ok(bin().arg("verify").arg(&out));
}

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let file = study(tmp.path());
    let whole = tmp.path().join("whole");
    ok(&mut experiment(&file, &whole, &[]));
    let parts: Vec<PathBuf> = (0..3)
        .map(|i| tmp.path().join(format!("part-{i}")))
        .collect();
    for (i, p) in parts.iter().enumerate() {
        ok(&mut experiment(&file, p, &["--shard", &format!("{i}/3")]));
        assert!(!p.join("README.md").exists(), "a part draws nothing");
    }
    let merged = tmp.path().join("merged");
    fails_with(
        bin().arg("merge").arg(&merged).args(&parts[..2]),
        &["in none of the parts"],
    );
    fails_with(
        bin()
            .arg("merge")
            .arg(&merged)
            .args([&parts[0], &parts[1], &parts[2], &parts[0]]),
        &["overlap"],
    );
    ok(bin().arg("merge").arg(&merged).args(&parts).arg("--quiet"));
    assert_eq!(figure_data(&merged), figure_data(&whole));
    ok(bin().arg("verify").arg(&merged));
}

/// `--slurm 2`: the array script under a shell loop (as Slurm would run its tasks), then the merge
/// script, give the unsharded run's figures and README.
#[test]
fn slurm_scripts_run_the_shards_and_the_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    study(d);
    let printed = ok(bin().current_dir(d).args([
        "experiment",
        "study.toml",
        "--out",
        "study",
        "--slurm",
        "2",
        "--slurm-opt",
        "--time=5",
    ]));
    let stdout = String::from_utf8_lossy(&printed.stdout);
    assert!(stdout.contains("--dependency=afterok:"), "{stdout}");
    let script = std::fs::read_to_string(d.join("study/slurm/experiment.sbatch")).unwrap();
    for want in [
        "#SBATCH --array=0-1",
        "#SBATCH --time=5",
        " experiment study.toml",
    ] {
        assert!(script.contains(want), "{want} not in {script}");
    }
    assert!(
        !d.join("study/README.md").exists(),
        "--slurm simulates nothing"
    );
    for i in 0..2 {
        let run = Command::new("bash")
            .arg("study/slurm/experiment.sbatch")
            .current_dir(d)
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("SLURM_CPUS_PER_TASK", "1")
            .status()
            .unwrap();
        assert!(run.success(), "task {i}");
    }
    let merged = Command::new("bash")
        .arg("study/slurm/merge.sbatch")
        .current_dir(d)
        .status()
        .unwrap();
    assert!(merged.success());
    ok(bin()
        .current_dir(d)
        .args(["experiment", "study.toml", "--quiet", "--out", "whole"]));
    assert_eq!(figure_data(&d.join("study")), figure_data(&d.join("whole")));
    fails_with(
        bin()
            .current_dir(d)
            .args(["experiment", "study.toml", "study.toml", "--slurm", "2"]),
        &["--slurm takes one experiment file"],
    );
}

#[test]
fn sigkill_at_any_moment_then_resume_gives_identical_figure_data() {
    let tmp = tempfile::tempdir().unwrap();
    let file = study(tmp.path());
    let reference = tmp.path().join("ref");
    let t0 = Instant::now();
    ok(&mut experiment(&file, &reference, &[]));
    let full = t0.elapsed();
    let want = figure_data(&reference);
    for (i, f) in [0.2, 0.45, 0.7].into_iter().enumerate() {
        let out = tmp.path().join(format!("kill-{i}"));
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("pwa-replay"))
            .env("PWA_OFFLINE", "1")
            .arg("experiment")
            .arg(&file)
            .args(["--threads", "2", "--quiet", "--out"])
            .arg(&out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(full.mul_f64(f));
        child.kill().unwrap();
        child.wait().unwrap();
        ok(&mut experiment(&file, &out, &["--resume"]));
        assert_eq!(figure_data(&out), want, "killed after {f} of a run");
    }
}

/// Two panels of one model under a non-contiguous allocator, the second with its own dilation.
const DILATED: &str = r#"
[[panel]]
name = "plain"
workload = "synth:uniform,mesh=8x8,jobs=300,rate={x}"
sched = ["fcfs"]
alloc = ["gabl"]
x = { name = "rate", values = [1, 2] }

[[panel]]
name = "own"
workload = "synth:uniform,mesh=8x8,jobs=300,rate={x}"
sched = ["fcfs"]
alloc = ["gabl"]
x = { name = "rate", values = [1, 2] }
dilation = "linear:0.5"

[[figure]]
name = "plain"
panel = "plain"
y = "mean_turnaround_s"

[[figure]]
name = "own"
panel = "own"
y = "mean_turnaround_s"
"#;

/// A replay flag of `experiment` applies where the file is silent, never over the file's own key;
/// parts run with other flags are not merged.
#[test]
fn replay_flags_apply_under_the_files_options() {
    let tmp = tempfile::tempdir().unwrap();
    let file = write(tmp.path(), "dilated.toml", DILATED);
    let csv = |dir: &Path, name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    let plain = tmp.path().join("plain");
    ok(&mut experiment(&file, &plain, &[]));
    let flagged = tmp.path().join("flagged");
    ok(&mut experiment(
        &file,
        &flagged,
        &["--dilation", "linear:0.5"],
    ));
    let own = csv(&plain, "own.csv");
    assert_eq!(
        csv(&flagged, "plain.csv"),
        own,
        "the flag where the file is silent"
    );
    assert_ne!(
        csv(&plain, "plain.csv"),
        own,
        "dilation changes the replays"
    );
    let other = tmp.path().join("other");
    ok(&mut experiment(&file, &other, &["--dilation", "linear:2"]));
    assert_eq!(csv(&other, "own.csv"), own, "the file's key over the flag");
    let results = csv(&flagged, "results.json");
    assert!(
        results.contains("\"dilation\": \"linear:0.5\""),
        "{results}"
    );
    let parts: Vec<PathBuf> = (0..2)
        .map(|i| tmp.path().join(format!("part-{i}")))
        .collect();
    ok(&mut experiment(&file, &parts[0], &["--shard", "0/2"]));
    ok(&mut experiment(
        &file,
        &parts[1],
        &["--shard", "1/2", "--dilation", "linear:2"],
    ));
    fails_with(
        bin()
            .arg("merge")
            .arg(tmp.path().join("merged"))
            .args(&parts),
        &["another experiment"],
    );
}

#[test]
fn a_file_with_an_unknown_key_label_or_measure_is_refused_with_its_line() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bad = |name: &str, from: &str, to: &str| {
        assert!(STUDY.contains(from), "{from}");
        write(tmp.path(), name, &STUDY.replacen(from, to, 1))
    };
    let f = bad("key.toml", "stop = {", "colour = \"red\"\nstop = {");
    fails_with(
        &mut experiment(&f, &out, &[]),
        &["key.toml:13:", "unknown field `colour`", "workload"],
    );
    let f = bad("sched.toml", "\"window:10\"", "\"window:ten\"");
    fails_with(
        &mut experiment(&f, &out, &[]),
        &[
            "sched.toml:10: `sched`",
            "window:ten",
            "fcfs",
            "conservative",
        ],
    );
    let f = bad("alloc.toml", "alloc = [\"ff\"]", "alloc = [\"first-fit\"]");
    fails_with(
        &mut experiment(&f, &out, &[]),
        &["alloc.toml:11: `alloc`", "first-fit"],
    );
    let f = bad("y.toml", "y = \"max_wait_s\"", "y = \"max_wait\"");
    fails_with(
        &mut experiment(&f, &out, &[]),
        &["y.toml:35:", "unknown measure `max_wait`", "max_wait_s"],
    );
    let f = bad(
        "pred.toml",
        "predicate = \"below\"",
        "predicate = \"better\"",
    );
    fails_with(
        &mut experiment(&f, &out, &[]),
        &["pred.toml:", "saturates_first"],
    );
    let f = bad(
        "unshaken.toml",
        "synth:uniform,mesh=16x16,jobs=1500,rate=1.5\"",
        "kth-sp2\"",
    );
    fails_with(
        &mut experiment(&f, &out, &[]),
        &["unshaken.toml:5: `replicate`", "unless shaken"],
    );
    let f = bad(
        "trace.toml",
        "synth:uniform,mesh=16x16,jobs=1500,rate=1.5\"",
        "no-such-log\"\nshake = { submit_s = 10 }",
    );
    fails_with(
        &mut experiment(&f, &out, &[]),
        &["panel `k` (line 17)", "no-such-log", "sdsc-96"],
    );
    assert!(!out.join("README.md").exists());
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn the_readme_example_runs_as_shown() {
    let shared = real_logs();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("example");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments/example.toml");
    ok(experiment(&example, &out, &["--quick"]).env("PWA_TRACES", &shared));
    let readme = std::fs::read_to_string(out.join("README.md")).unwrap();
    assert!(readme.contains("## Claims: "), "{readme}");
    for f in [
        "kth-turnaround",
        "kth-slowdown",
        "ctc-turnaround",
        "ctc-slowdown",
    ] {
        let csv = std::fs::read_to_string(out.join(format!("{f}.csv"))).unwrap();
        assert_eq!(
            csv.lines().count(),
            1 + 2 * 3,
            "{f}: two series × three loads"
        );
        assert!(out.join(format!("{f}.png")).is_file());
    }
}
