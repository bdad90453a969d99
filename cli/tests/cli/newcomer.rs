//! What a new user met on a fresh clone, each replayed as she met it: names she misspelt, files
//! that were not there, lines her log had wrong, estimates her log did not have, figures and
//! tables that misled her. Each test says what she did and what she must now be told.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::support::{bin, fails_with, json_of, ok, swf_line, write};

#[test]
fn a_misspelt_trace_name_gets_a_suggestion_and_a_missing_file_is_called_missing() {
    let run = |trace: &str| {
        let mut c = bin();
        c.args([
            "run", "--trace", trace, "--sched", "fcfs", "--alloc", "flat",
        ]);
        c
    };
    fails_with(&mut run("kth-sp3"), &["did you mean `kth-sp2`?"]);
    let missing = "/tmp/pwa-replay-no-such-dir/nope.swf";
    fails_with(&mut run(missing), &[missing, "no such file"]);
    bin()
        .args([
            "run", "--trace", missing, "--sched", "fcfs", "--alloc", "flat",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("neither").not());
    fails_with(
        bin().args(["fetch", "kth-sp3"]),
        &["did you mean `kth-sp2`?"],
    );
}

/// A log of five jobs: line 4 is malformed (run time `abc`), job 5 has no run time (dropped).
fn log_with_a_bad_line(dir: &Path) -> PathBuf {
    let mut text = String::from("; MaxNodes: 16\n");
    for (job, submit) in [(1, 0), (2, 10)] {
        text += &swf_line(job, submit, 100, 4, 1);
    }
    text += "3 20 0 abc 4 -1 -1 4 200 -1 1 1 1 1 1 1 -1 -1\n";
    text += &swf_line(4, 30, 100, 4, 1);
    text += &swf_line(5, 40, -1, 4, 1);
    write(dir, "bad.swf", &text)
}

#[test]
fn lenient_runs_and_sweeps_say_which_lines_they_skipped_and_strict_ones_suggest_lenient() {
    let dir = tempfile::tempdir().expect("tempdir");
    let log = log_with_a_bad_line(dir.path());
    let run = |extra: &[&str]| {
        let mut c = bin();
        c.args(["run", "--trace"])
            .arg(&log)
            .args(["--sched", "fcfs", "--alloc", "flat"])
            .args(extra);
        c
    };
    fails_with(&mut run(&[]), &["bad.swf:4", "run time", "--lenient"]);
    let out = ok(&mut run(&["--lenient", "--format", "json"]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("1 malformed line skipped (not a number: line 4)"),
        "{err}"
    );
    let v = json_of(&out.stdout);
    assert_eq!(
        (v["jobs"].as_u64(), v["skipped_lines"].as_u64()),
        (Some(3), Some(1))
    );
    assert_eq!(v["dropped"], 1);
    let table = String::from_utf8(ok(&mut run(&["--lenient"])).stdout).expect("utf-8");
    assert!(
        table
            .lines()
            .any(|l| l.starts_with("skipped_lines") && l.ends_with(" 1")),
        "{table}"
    );
    let out_dir = dir.path().join("sweep");
    ok(bin()
        .args(["sweep", "--trace"])
        .arg(&log)
        .args([
            "--sched",
            "fcfs",
            "--alloc",
            "flat",
            "--loads",
            "1",
            "--lenient",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out_dir));
    let report = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(
        report.contains(
            "| jobs replayed | 3 (1 dropped by filters, 1 malformed line skipped (--lenient)) |"
        ),
        "{report}"
    );
    let page = std::fs::read_to_string(out_dir.join("index.html")).expect("index.html");
    assert!(page.contains("1 malformed line skipped (--lenient)"));
}
