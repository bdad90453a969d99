//! `pwa-replay stats`: hand-worked figures on a generated SWF file, the three formats, load-factor
//! scaling, error messages, and (when the shared traces are present) the real logs of §5.4.

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::{
    bin, bin_with, fails_with, json_of, json_ok, ok, real_logs, small_swf, write,
};

/// `stats --trace <path>` followed by `extra`.
fn stats(path: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(["stats", "--trace"]).arg(path).args(extra);
    c
}

#[test]
fn json_figures_are_the_hand_worked_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    let v = json_ok(&mut stats(
        &path,
        &["--format", "json", "--machine", "mesh:12x12"],
    ));
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
    let v =
        json_ok(bin_with(&cat, dir.path()).args(["stats", "--trace", "small", "--format", "json"]));
    assert_eq!(v["jobs"], 4);
    assert_eq!(v["mean_size"], 35.0 / 4.0); // 1 + 15 + 17 + 2 nodes
    assert_eq!(v["mean_request_nodes"], 36.0 / 4.0); // 1 + 15 + 18 + 2
    assert_eq!(v["shape"], "square-tall");
}

#[test]
fn load_factor_scales_interarrival_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    let v = json_ok(&mut stats(
        &path,
        &[
            "--format",
            "json",
            "--machine",
            "flat:200",
            "--load-factor",
            "0.5",
        ],
    ));
    assert_eq!(v["mean_interarrival_s"], 200.0 / 3.0);
    assert_eq!(v["span_s"], 200.0);
    assert_eq!(v["mean_runtime_s"], 150.0);
    assert_eq!(v["load_factor"], 0.5);
}

#[test]
fn table_and_csv_formats() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    // for people: durations with units, four significant digits
    stats(&path, &["--machine", "mesh:12x12"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^mean_runtime_s\s+2 min 30 s$").unwrap())
        .stdout(predicate::str::is_match(r"(?m)^mean_interarrival_s\s+33.33 s$").unwrap())
        .stdout(predicate::str::contains("run time (s)"))
        .stdout(predicate::str::contains("#"));
    let out = ok(&mut stats(
        &path,
        &["--format", "csv", "--machine", "mesh:12x12"],
    ));
    let text = String::from_utf8(out.stdout).expect("utf-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2);
    let head: Vec<&str> = lines[0].split(',').collect();
    let row: Vec<&str> = lines[1].split(',').collect();
    assert_eq!(head.len(), row.len());
    let col = |name: &str| row[head.iter().position(|h| *h == name).expect(name)];
    assert_eq!(col("jobs"), "4");
    // exact values
    assert_eq!(col("mean_runtime_s"), "150");
    assert_eq!(col("mean_interarrival_s"), (100.0f64 / 3.0).to_string());
}

#[test]
fn a_raw_file_without_machine_is_a_flat_machine_sized_from_its_header() {
    let dir = tempfile::tempdir().expect("tempdir");
    // small_swf's header says MaxNodes: 144 only
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    let out = ok(&mut stats(&path, &["--format", "json"]));
    assert_eq!(json_of(&out.stdout)["machine"], "flat:144");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("flat:144") && err.contains("MaxNodes"),
        "{err}"
    );
    // MaxProcs wins: sizes are read as processors
    let procs = small_swf().replace("; MaxNodes: 144\n", "; MaxNodes: 18\n; MaxProcs: 144\n");
    let path = write(dir.path(), "procs.swf.txt", &procs);
    let out = ok(&mut stats(&path, &["--format", "json"]));
    assert_eq!(json_of(&out.stdout)["machine"], "flat:144");
    assert!(String::from_utf8_lossy(&out.stderr).contains("MaxProcs"));
    // no size in the header: say --machine
    let bare = small_swf().replace("; MaxNodes: 144\n", "");
    let path = write(dir.path(), "bare.swf.txt", &bare);
    fails_with(
        &mut stats(&path, &[]),
        &["bare.swf.txt", "MaxProcs", "--machine"],
    );
}

#[test]
fn too_large_fails_strict_and_counts_lenient() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = write(dir.path(), "small.swf.txt", &small_swf());
    fails_with(&mut stats(&path, &["--machine", "mesh:8x8"]), &["job 2"]);
    let v = json_ok(&mut stats(
        &path,
        &["--lenient", "--format", "json", "--machine", "mesh:8x8"],
    ));
    assert_eq!(v["dropped"]["too_large"], 2);
    assert_eq!(v["jobs"], 2);
}

#[test]
fn helpful_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    fails_with(
        bin().args(["stats", "--trace", "no-such-trace"]),
        &["sdsc-blue"],
    );
    // a catalogued trace that is nowhere on the search path, offline
    let cat = write(
        dir.path(),
        "catalog.toml",
        "[traces.ghost]\nfile = \"GHOST.swf.gz\"\nfolder = \"l_ghost\"\nmachine = \"flat:4\"\n",
    );
    fails_with(
        bin_with(&cat, dir.path()).args(["stats", "--trace", "ghost"]),
        &["GHOST.swf.gz", "l_ghost"],
    );
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn real_sdsc_96_batch_partition() {
    let dir = real_logs();
    let v = json_ok(
        bin()
            .env("PWA_TRACES", &dir)
            .args(["stats", "--trace", "sdsc-96", "--format", "json"]),
    );
    // 32,135 lines, of which 18,441 in partition 2 (batch) and none of them dropped otherwise.
    assert_eq!(v["jobs"], 18441);
    assert_eq!(v["dropped"]["partition"], 32135 - 18441);
    assert_eq!(v["machine"], "mesh:22x16");
}
