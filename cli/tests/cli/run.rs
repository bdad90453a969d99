//! `pwa-replay run`: a hand-worked replay of a generated SWF file in both formats, the per-job
//! table, `--validate`, errors that name the job, and (when the shared logs are present) a real trace.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

fn bin() -> Command {
    let mut c = Command::cargo_bin("pwa-replay").expect("binary built");
    c.env("PWA_OFFLINE", "1")
        .env_remove("PWA_TRACES")
        .env_remove("PWA_CATALOG")
        .env_remove("PWA_ARCHIVE_URL");
    c
}

/// An SWF job line: number, submit, run time, processors (allocated = requested).
fn line(job: u64, submit: i64, run: i64, procs: i64) -> String {
    format!("{job} {submit} 0 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 1 1 1 -1 -1\n")
}

/// On flat:4: job 1 holds 4 nodes for 0..10; job 2 (2 nodes, 20 s) arrives at 2 and job 3
/// (2 nodes, 5 s) at 3; both start at 10. Waits 0, 8, 7; turnarounds 10, 28, 12; makespan 30.
fn small(dir: &Path) -> PathBuf {
    let text = String::from("; Version: 2.2\n")
        + &line(1, 0, 10, 4)
        + &line(2, 2, 20, 2)
        + &line(3, 3, 5, 2);
    let p = dir.join("small.swf");
    std::fs::write(&p, text).expect("write fixture");
    p
}

fn json(args: &[&str]) -> Value {
    let out = bin().args(args).output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn json_object_has_the_promised_keys_and_hand_worked_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let v = json(&[
        "run",
        "--trace",
        swf.to_str().unwrap(),
        "--machine",
        "flat:4",
        "--sched",
        "fcfs",
        "--alloc",
        "flat",
        "--validate",
        "--format",
        "json",
    ]);
    for key in [
        "jobs",
        "mean_turnaround_s",
        "var_turnaround",
        "mean_wait_s",
        "max_wait_s",
        "utilization",
        "makespan_s",
        "mean_bounded_slowdown",
        "alloc_attempts",
        "sim_wall_s",
        "trace",
        "machine",
        "scheduler",
        "allocator",
        "load_factor",
    ] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    assert_eq!(v["jobs"], 3);
    assert_eq!(v["mean_wait_s"], 5.0);
    assert_eq!(v["max_wait_s"], 8.0);
    assert_eq!(v["makespan_s"], 30.0);
    assert_eq!(v["utilization"], 0.75);
    assert!((v["mean_turnaround_s"].as_f64().unwrap() - 50.0 / 3.0).abs() < 1e-12);
    assert_eq!(v["scheduler"], "fcfs");
    assert_eq!(v["allocator"], "flat");
    assert_eq!(v["machine"], "flat:4");
    assert_eq!(v["validated"], true);
    // Load factor 2 halves the gaps: job 2 arrives at 1, job 3 at 1.5; both still start at 10.
    let v2 = json(&[
        "run",
        "--trace",
        swf.to_str().unwrap(),
        "--machine",
        "flat:4",
        "--sched",
        "oo",
        "--alloc",
        "flat",
        "--load-factor",
        "2",
        "--format",
        "json",
    ]);
    assert_eq!(v2["max_wait_s"], 9.0);
    assert_eq!(v2["load_factor"], 2.0);
}

#[test]
fn table_format_and_per_job_tables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let csv = dir.path().join("jobs.csv");
    let pq = dir.path().join("out/jobs.parquet");
    for out in [&csv, &pq] {
        bin()
            .args([
                "run",
                "--trace",
                swf.to_str().unwrap(),
                "--machine",
                "mesh:2x2",
                "--sched",
            ])
            .args([
                "window:2",
                "--alloc",
                "ff",
                "--validate",
                "--jobs-out",
                out.to_str().unwrap(),
            ])
            .assert()
            .success()
            .stdout(predicate::str::contains("scheduler").and(predicate::str::contains("window:2")))
            .stdout(predicate::str::is_match(r"(?m)^jobs\s+3$").unwrap());
    }
    let text = std::fs::read_to_string(&csv).expect("csv written");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(
        lines[0].contains("start_s") && lines[0].contains("wait_s"),
        "{}",
        lines[0]
    );
    assert!(std::fs::metadata(&pq).expect("parquet written").len() > 0);
    bin()
        .args([
            "run",
            "--trace",
            swf.to_str().unwrap(),
            "--machine",
            "flat:4",
            "--sched",
            "fcfs",
        ])
        .args(["--alloc", "flat", "--jobs-out", "jobs.txt"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(".csv or .parquet"));
}

#[test]
fn bad_labels_and_impossible_jobs_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let s = swf.to_str().unwrap();
    bin()
        .args([
            "run",
            "--trace",
            s,
            "--machine",
            "flat:4",
            "--sched",
            "lifo",
            "--alloc",
            "flat",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("lifo"));
    bin()
        .args([
            "run",
            "--trace",
            s,
            "--machine",
            "flat:4",
            "--sched",
            "fcfs",
            "--alloc",
            "ff",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("ff"));
    // Job 1 asks for 4 nodes: too large for flat:3, an error unless --lenient drops it.
    bin()
        .args([
            "run",
            "--trace",
            s,
            "--machine",
            "flat:3",
            "--sched",
            "fcfs",
            "--alloc",
            "flat",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("1"));
    let v = json(&[
        "run",
        "--trace",
        s,
        "--machine",
        "flat:3",
        "--sched",
        "fcfs",
        "--alloc",
        "flat",
        "--lenient",
        "--format",
        "json",
    ]);
    assert_eq!(v["jobs"], 2);
}

/// The shared logs, when this checkout sits next to them (`../shared/traces`).
fn shared_traces() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces");
    d.join("SDSC-Par-1996-3.1-cln.swf.gz")
        .is_file()
        .then_some(d)
}

#[test]
fn real_sdsc_96_replay_validates() {
    let Some(dir) = shared_traces() else {
        eprintln!("shared traces absent: real-trace replay skipped");
        return;
    };
    let out = bin()
        .env("PWA_TRACES", &dir)
        .args([
            "run",
            "--trace",
            "sdsc-96",
            "--sched",
            "window:240",
            "--alloc",
            "mpl",
        ])
        .args(["--load-factor", "1.5", "--validate", "--format", "json"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["machine"], "mesh:22x16");
    assert!(v["jobs"].as_u64().unwrap() > 10_000, "{v}");
    let u = v["utilization"].as_f64().unwrap();
    assert!(u > 0.0 && u <= 1.0, "{v}");
}

#[test]
fn a_synthetic_label_runs_on_its_mesh_or_the_machine_given() {
    let label = "synth:uniform-decreasing,mesh=20x20,jobs=200,rate=1,seed=3";
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--trace", label, "--sched", "oo", "--alloc", "ff"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["--validate", "--format", "json"]);
        json(&args)
    };
    let v = run(&[]);
    assert_eq!(v["trace"], label);
    assert_eq!(v["machine"], "mesh:20x20");
    assert_eq!(v["jobs"], 200);
    assert_eq!(v["validated"], true);
    let wider = run(&["--machine", "mesh:40x20"]);
    assert_eq!(wider["machine"], "mesh:40x20");
    assert_eq!(wider["sha256"], v["sha256"], "same workload, other machine");
    assert!(wider["utilization"].as_f64() < v["utilization"].as_f64());
    bin()
        .args([
            "run",
            "--trace",
            "synth:zipf",
            "--sched",
            "oo",
            "--alloc",
            "ff",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("zipf"));
}
