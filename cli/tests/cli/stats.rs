//! `pwa-replay stats`: hand-worked figures on a generated SWF file, the three formats, load-factor
//! scaling, error messages, and (when the shared traces are present) the real logs of §5.4.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;

/// The binary, offline, with no trace directory of the caller's environment.
pub fn bin() -> Command {
    let mut c = Command::cargo_bin("pwa-replay").expect("binary built");
    c.env("PWA_OFFLINE", "1")
        .env_remove("PWA_TRACES")
        .env_remove("PWA_CATALOG")
        .env_remove("PWA_ARCHIVE_URL");
    c
}

/// An SWF line with the given job number, submit, run time, allocated processors, partition.
pub fn swf_line(job: u64, submit: i64, run: i64, procs: i64, partition: i64) -> String {
    format!("{job} {submit} 0 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 1 1 {partition} -1 -1\n")
}

/// A small trace: 5 good jobs (one of them too large for 12×12 nodes of 8), 1 negative run time,
/// 1 with no processors.
pub fn small_swf() -> String {
    let mut s = String::from("; Version: 2.2\n; MaxNodes: 144\n");
    s += &swf_line(1, 1000, 100, 8, 1); // 1 node → 1×1
    s += &swf_line(2, 1010, 200, 120, 1); // 15 nodes → 3×5
    s += &swf_line(3, 1040, 300, 136, 1); // 17 nodes → 18 = 3×6
    s += &swf_line(4, 1050, -1, 8, 1); // run time -1: missing
    s += &swf_line(5, 1060, 400, 0, 1); // no processors
    s += &swf_line(6, 1100, 0, 16, 1); // 2 nodes → 1×2
    s
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("stdout is one JSON object")
}

#[test]
fn json_figures_are_the_hand_worked_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    let out = bin()
        .args([
            "stats",
            "--format",
            "json",
            "--machine",
            "mesh:12x12",
            "--trace",
        ])
        .arg(&path)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out.stdout);
    assert_eq!(v["jobs"], 4);
    assert_eq!(v["machine"], "mesh:12x12");
    // one processor per node for a raw path: sizes 8, 120, 136, 16 processors = nodes
    assert_eq!(v["mean_runtime_s"], 150.0); // (100 + 200 + 300 + 0) / 4
    assert_eq!(v["mean_size"], 70.0); // (8 + 120 + 136 + 16) / 4
    assert_eq!(v["mean_interarrival_s"], 100.0 / 3.0); // (1100 − 1000) / 3
    assert_eq!(v["dropped"]["missing_runtime"], 1); // -1 in the file
    assert_eq!(v["dropped"]["missing_procs"], 0);
    assert_eq!(v["dropped"]["non_positive_procs"], 1);
    assert!(v["sha256"].as_str().is_some_and(|s| s.len() == 64));
}

#[test]
fn procs_per_node_through_a_catalog() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "SMALL.swf.txt", &small_swf());
    let cat = write(
        dir.path(),
        "catalog.toml",
        "[traces.small]\nfile = \"SMALL.swf.txt\"\nfolder = \"l_small\"\nmachine = \"mesh:12x12\"\n\
         shape = \"square-tall\"\nprocs_per_node = 8\n",
    );
    let out = bin()
        .env("PWA_CATALOG", &cat)
        .env("PWA_TRACES", dir.path())
        .args(["stats", "--trace", "small", "--format", "json"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out.stdout);
    assert_eq!(v["jobs"], 4);
    assert_eq!(v["mean_size"], 35.0 / 4.0); // 1 + 15 + 17 + 2 nodes
    assert_eq!(v["mean_request_nodes"], 36.0 / 4.0); // 1 + 15 + 18 + 2
    assert_eq!(v["shape"], "square-tall");
}

#[test]
fn load_factor_scales_interarrival_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    let out = bin()
        .args(["stats", "--format", "json", "--machine", "flat:200"])
        .args(["--load-factor", "0.5", "--trace"])
        .arg(&path)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out.stdout);
    assert_eq!(v["mean_interarrival_s"], 200.0 / 3.0);
    assert_eq!(v["span_s"], 200.0);
    assert_eq!(v["mean_runtime_s"], 150.0);
    assert_eq!(v["load_factor"], 0.5);
}

#[test]
fn table_and_csv_formats() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    bin()
        .args(["stats", "--machine", "mesh:12x12", "--trace"])
        .arg(&path)
        .assert()
        .success()
        .stdout(predicate::str::contains("mean_runtime_s"))
        .stdout(predicate::str::contains("run time (s)"))
        .stdout(predicate::str::contains("#"));
    let out = bin()
        .args([
            "stats",
            "--format",
            "csv",
            "--machine",
            "mesh:12x12",
            "--trace",
        ])
        .arg(&path)
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let head: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(head.len(), row.len());
    let jobs = head.iter().position(|h| *h == "jobs").expect("jobs column");
    assert_eq!(row[jobs], "4");
}

#[test]
fn too_large_fails_strict_and_counts_lenient() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    bin()
        .args(["stats", "--machine", "mesh:8x8", "--trace"])
        .arg(&path)
        .assert()
        .failure()
        .stderr(predicate::str::contains("job 2"));
    let out = bin()
        .args([
            "stats",
            "--lenient",
            "--format",
            "json",
            "--machine",
            "mesh:8x8",
            "--trace",
        ])
        .arg(&path)
        .output()
        .expect("runs");
    let v = json_of(&out.stdout);
    assert_eq!(v["dropped"]["too_large"], 2);
    assert_eq!(v["jobs"], 2);
}

#[test]
fn helpful_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    bin()
        .args(["stats", "--trace"])
        .arg(&path)
        .assert()
        .failure()
        .stderr(predicate::str::contains("--machine"));
    bin()
        .args(["stats", "--trace", "no-such-trace"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("sdsc-blue"));
    // a catalogued trace that is nowhere on the search path, offline
    let cat = write(
        dir.path(),
        "catalog.toml",
        "[traces.ghost]\nfile = \"GHOST.swf.gz\"\nfolder = \"l_ghost\"\nmachine = \"flat:4\"\n",
    );
    bin()
        .env("PWA_CATALOG", &cat)
        .env("PWA_TRACES", dir.path())
        .args(["stats", "--trace", "ghost"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("GHOST.swf.gz"))
        .stderr(predicate::str::contains("l_ghost"));
}

/// The shared logs, when this checkout sits next to them (`../shared/traces`).
fn shared_traces() -> Option<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/traces");
    d.join("SDSC-Par-1996-3.1-cln.swf.gz")
        .is_file()
        .then_some(d)
}

#[test]
fn real_sdsc_96_batch_partition() {
    let Some(dir) = shared_traces() else {
        eprintln!("shared traces absent: real-trace check skipped");
        return;
    };
    let out = bin()
        .env("PWA_TRACES", &dir)
        .args(["stats", "--trace", "sdsc-96", "--format", "json"])
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json_of(&out.stdout);
    // 32,135 lines, of which 18,441 in partition 2 (batch) and none of them dropped otherwise.
    assert_eq!(v["jobs"], 18441);
    assert_eq!(v["dropped"]["partition"], 32135 - 18441);
    assert_eq!(v["machine"], "mesh:22x16");
}
