//! `pwa-replay catalog`, the default grid, and `make replay`'s own command line (`make replay-run`)
//! for every catalogued log on the search path: each must work with no argument but `TRACE=`.

use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::time::Instant;

use pwa_replay::sched::SchedKind;
use serde_json::Value;

use crate::support::{
    REAL_LOGS, bin, bin_with, csv_rows, fails_with, json_ok, ok, real_logs, swf_line, write,
};

/// The repository root (where the Makefile is).
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// `make -C <repo> TARGET BIN=<the tested binary> ARGS…`, offline, traces from `traces`.
pub fn make(target: &str, args: &[&str], traces: Option<&Path>) -> Process {
    let mut c = Process::new("make");
    c.arg("--no-print-directory")
        .arg("-C")
        .arg(repo())
        .arg(target)
        .arg(format!("BIN={}", env!("CARGO_BIN_EXE_pwa-replay")))
        .args(args)
        .env("PWA_OFFLINE", "1")
        .env_remove("PWA_CATALOG")
        .env_remove("MAKEFLAGS");
    match traces {
        Some(t) => c.env("PWA_TRACES", t),
        None => c.env_remove("PWA_TRACES"),
    };
    c
}

#[test]
fn every_entry_is_listed_with_its_grid_and_whereabouts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let here = write(dir.path(), "HERE.swf", &swf_line(1, 0, 10, 2, 1));
    let size = std::fs::metadata(&here).expect("written").len();
    let cat = write(
        dir.path(),
        "catalog.toml",
        "[traces.here]\nfile = \"HERE.swf\"\nfolder = \"l_here\"\nmachine = \"mesh:2x2\"\n\
         partitions = [1]\nsched = [\"window:4\"]\n\n\
         [traces.gone]\nfile = \"GONE.swf.gz\"\nfolder = \"l_gone\"\nmachine = \"hypercube:3\"\n",
    );
    let v = json_ok(bin_with(&cat, dir.path()).args(["catalog", "--format", "json"]));
    let traces = v["traces"].as_array().expect("traces");
    let entry = |n: &str| traces.iter().find(|t| t["name"] == n).expect(n).clone();
    let here = entry("here");
    assert_eq!(here["machine"], "mesh:2x2");
    assert_eq!(here["conversion"], "square-tall, partition 1");
    assert_eq!(here["sched"], serde_json::json!(["window:4"]));
    assert_eq!(
        here["alloc"],
        serde_json::json!(["mpl"]),
        "the mesh family's"
    );
    assert_eq!(here["bytes"], size);
    assert!(
        here["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("HERE.swf"))
    );
    let gone = entry("gone");
    assert_eq!(gone["path"], Value::Null);
    assert_eq!(
        gone["sched"],
        serde_json::json!(["lazy", "scan-up", "static", "fcfs", "oo"]),
        "the hypercube family's"
    );
    assert_eq!(gone["alloc"], serde_json::json!(["buddy"]));
    let table =
        String::from_utf8(ok(bin_with(&cat, dir.path()).arg("catalog")).stdout).expect("utf-8");
    assert!(table.contains("window:4 × mpl"), "{table}");
    assert!(table.contains(&format!("{size} B")), "{table}");
    assert!(table.contains("`pwa-replay fetch gone`"), "{table}");
    assert!(table.contains("search path: "), "{table}");
}

#[test]
fn the_builtin_catalog_names_a_default_grid_for_every_log() {
    let v = json_ok(bin().args(["catalog", "--format", "json"]));
    let traces = v["traces"].as_array().expect("traces");
    assert!(traces.len() >= 20, "{v}");
    let atlas = traces
        .iter()
        .find(|t| t["name"] == "llnl-atlas")
        .expect("llnl-atlas");
    assert_eq!(
        atlas["sha256"],
        "8b3aaab739fa0bda8abaccc37c207d0b19d9d147b19e7f47a1641133a56fd07f"
    );
    let ricc = traces.iter().find(|t| t["name"] == "ricc").expect("ricc");
    assert_eq!(ricc["sha256"], Value::Null, "no hash on record");
    for t in traces {
        let (machine, alloc) = (t["machine"].as_str().unwrap(), &t["alloc"]);
        if machine.starts_with("torus:") {
            assert_eq!(
                alloc,
                &serde_json::json!(["ep", "nep", "flat"]),
                "{}",
                t["name"]
            );
            continue;
        }
        let expected = if machine.starts_with("mesh:") {
            "mpl"
        } else if machine.starts_with("hypercube:") {
            "buddy"
        } else {
            "flat"
        };
        assert_eq!(alloc, &serde_json::json!([expected]), "{}", t["name"]);
    }
}

#[test]
fn a_bad_catalog_grid_is_an_error_naming_the_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cat = write(
        dir.path(),
        "catalog.toml",
        "[traces.odd]\nfile = \"ODD.swf\"\nfolder = \"l_odd\"\nmachine = \"flat:8\"\nalloc = [\"mpl\"]\n",
    );
    fails_with(
        bin_with(&cat, dir.path()).arg("catalog"),
        &["`odd`", "alloc `mpl` does not work on `flat:8`"],
    );
}

#[test]
fn sweep_without_sched_or_alloc_uses_the_catalog_grid_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut text = String::from("; MaxNodes: 4\n");
    for i in 0..12 {
        text += &swf_line(i + 1, 10 * i as i64, 30 + i as i64, 1 + (i % 4) as i64, 1);
    }
    write(dir.path(), "T.swf", &text);
    let cat = write(
        dir.path(),
        "catalog.toml",
        "[traces.t]\nfile = \"T.swf\"\nfolder = \"l_t\"\nmachine = \"mesh:2x2\"\nsched = [\"fcfs\", \"window:2\"]\n",
    );
    let out = dir.path().join("out");
    let o = ok(bin_with(&cat, dir.path())
        .args(["sweep", "--trace", "t", "--loads", "0.5,1", "--out"])
        .arg(&out));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("default grid (catalog entry t): --sched fcfs,window:2 --alloc mpl"),
        "{err}"
    );
    let rows = csv_rows(&out.join("summary.csv"));
    assert_eq!(rows.len(), 2 * 2, "2 schedulers × 1 allocator × 2 loads");
    // another machine than the catalog's: that machine family's grid
    let o = ok(bin_with(&cat, dir.path())
        .args([
            "sweep",
            "--trace",
            "t",
            "--machine",
            "flat:4",
            "--loads",
            "1",
            "--out",
        ])
        .arg(&out));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "default grid (default for flat machines): --sched fcfs,easy,conservative --alloc flat \
             --estimate exact (not user: no job of the log has a requested time)"
        ),
        "{err}"
    );
    fails_with(
        bin_with(&cat, dir.path())
            .args([
                "sweep",
                "--trace",
                "t",
                "--machine",
                "flat:4",
                "--alloc",
                "mpl",
                "--out",
            ])
            .arg(&out),
        &[
            "leave --alloc out for its default: flat",
            "`mpl` does not work",
        ],
    );
}

/// Loads for the test: two points, so that the biggest logs take seconds, not minutes.
const TEST_LOADS: &str = "LOADS=0.5,1.0";

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn make_replay_works_for_every_catalogued_log_on_the_search_path() {
    let traces = real_logs();
    let listing = json_ok(
        bin()
            .env("PWA_TRACES", &traces)
            .args(["catalog", "--format", "json"]),
    );
    let out = tempfile::tempdir().expect("tempdir");
    let mut ran = Vec::new();
    for t in listing["traces"].as_array().expect("traces") {
        let name = t["name"].as_str().expect("name");
        if t["path"].is_null() {
            continue;
        }
        let dir = out.path().join(name);
        let started = Instant::now();
        let o = make(
            "replay-run",
            &[
                &format!("TRACE={name}"),
                TEST_LOADS,
                &format!("OUT={}", dir.display()),
            ],
            Some(&traces),
        )
        .output()
        .expect("make runs");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "make replay TRACE={name}: {err}");
        assert!(
            err.contains(&format!("default grid (catalog entry {name})")),
            "{err}"
        );
        // The estimate models replayed (`user` only for a log with requested times), each by
        // the schedulers that plan with estimates; every other scheduler once.
        let estimates = err.split("--estimate ").nth(1).map_or(1, |e| {
            e.split([' ', '\n']).next().unwrap().split(',').count()
        });
        let series: usize = t["sched"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                let s: SchedKind = s.as_str().unwrap().parse().unwrap();
                if s.plans_with_estimates() {
                    estimates
                } else {
                    1
                }
            })
            .sum();
        let cells = series * t["alloc"].as_array().unwrap().len();
        assert_eq!(
            csv_rows(&dir.join("summary.csv")).len(),
            cells * 2,
            "{name}"
        );
        for f in ["report.md", "turnaround.png", "summary.parquet"] {
            assert!(dir.join(f).is_file(), "{name}: {f}");
        }
        let page = std::fs::metadata(dir.join("index.html"))
            .expect("index.html")
            .len();
        assert!(page < 2_000_000, "{name}: index.html is {page} bytes");
        eprintln!(
            "make replay TRACE={name} {TEST_LOADS}: {:.1} s",
            started.elapsed().as_secs_f64()
        );
        ran.push(t["file"].as_str().expect("file").to_string());
    }
    for log in REAL_LOGS {
        assert!(
            ran.iter().any(|f| f == log),
            "no catalog entry replayed {log}"
        );
    }
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn make_replay_overrides_and_reports_a_bad_grid() {
    let traces = real_logs();
    let out = tempfile::tempdir().expect("tempdir");
    let o = make(
        "replay-run",
        &[
            "TRACE=sdsc-96",
            "SCHED=fcfs",
            "ALLOC=ff",
            "LOADS=1",
            &format!("OUT={}", out.path().display()),
        ],
        Some(&traces),
    )
    .output()
    .expect("make runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = csv_rows(&out.path().join("summary.csv"));
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0]["scheduler"].as_str(), rows[0]["allocator"].as_str()),
        ("fcfs", "ff")
    );
}
