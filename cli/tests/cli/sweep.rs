//! `pwa-replay sweep` and `pwa-replay plot` on a small SWF file written by the test: every output
//! file, a hand-worked row, parallel = serial, `--resume` simulating nothing, and the font error.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::{bin, fails_with, fields, ok, swf_jobs, swf_line, write};

/// Columns that measure the host, not the simulation.
const WALL_CLOCK: [&str; 2] = ["alloc_time_s", "sim_wall_s"];

/// 40 jobs on a 4×4 mesh: submit every 30 s, run times 60…420 s, 1…16 processors, so that
/// FCFS queues at load factor 2 and the policies differ.
fn fixture(dir: &Path) -> PathBuf {
    let mut text = String::from("; Version: 2.2\n; MaxNodes: 16\n");
    for i in 0..40i64 {
        let (submit, run, procs) = (30 * i, 60 + (i * 37) % 361, 1 + (i * 7) % 16);
        text += &swf_line(i as u64 + 1, submit, run, procs, 1);
    }
    write(dir, "tiny.swf.txt", &text)
}

/// `sweep --trace <trace> --machine <machine> --sched <sched> --alloc <alloc> --out <out>`.
fn sweep_cmd(trace: &Path, machine: &str, sched: &str, alloc: &str, out: &Path) -> Command {
    let mut c = bin();
    c.args(["sweep", "--trace"])
        .arg(trace)
        .args([
            "--machine",
            machine,
            "--sched",
            sched,
            "--alloc",
            alloc,
            "--out",
        ])
        .arg(out);
    c
}

/// The 3 schedulers × 2 allocators × 3 loads sweep on the 4×4 mesh, plus `extra`; must succeed.
fn sweep(trace: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut c = sweep_cmd(trace, "mesh:4x4", "fcfs,window:4,oo", "ff,mpl", out);
    ok(c.args(["--loads", "0.5,1,2"]).args(extra))
}

/// The CSV as header + rows of fields.
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).expect("summary.csv");
    let mut lines = text.lines().map(fields);
    let header = lines.next().expect("header");
    (header, lines.collect())
}

/// Header and rows without the wall-clock columns.
fn drop_wall_clock(header: &[String], rows: Vec<Vec<String>>) -> (Vec<String>, Vec<Vec<String>>) {
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !WALL_CLOCK.contains(&header[i].as_str()))
        .collect();
    let pick = |r: &[String]| keep.iter().map(|&i| r[i].clone()).collect::<Vec<_>>();
    (pick(header), rows.iter().map(|r| pick(r)).collect())
}

/// The CSV without the wall-clock columns.
fn deterministic(path: &Path) -> Vec<Vec<String>> {
    let (header, rows) = csv(path);
    let (kept, rows) = drop_wall_clock(&header, rows);
    assert_eq!(
        kept.len(),
        header.len() - WALL_CLOCK.len(),
        "wall-clock columns present"
    );
    rows
}

fn config(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("sweep.json")).expect("sweep.json"))
        .expect("json")
}

fn count(dir: &Path, ext: &str) -> usize {
    std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == ext))
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn a_small_sweep_writes_every_output() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    sweep(
        &trace,
        &out,
        &[
            "--per-job",
            "--swf-out",
            "--validate",
            "--quiet",
            "--threads",
            "2",
        ],
    );
    let (header, rows) = csv(&out.join("summary.csv"));
    for col in [
        "trace",
        "machine",
        "scheduler",
        "allocator",
        "load_factor",
        "jobs",
        "mean_turnaround_s",
        "var_turnaround",
        "mean_wait_s",
        "max_wait_s",
        "p95_wait_s",
        "utilization",
        "makespan_s",
        "mean_bounded_slowdown",
        "system_power",
        "alloc_attempts",
        "alloc_time_s",
        "sim_wall_s",
        "external_fragmentation",
        "frag_delayed_jobs",
        "frag_delayed_share",
        "mean_free_regions",
        "head_fragmentation",
        "mean_estimate_error",
        "underestimated_share",
    ] {
        assert!(
            header.iter().any(|h| h == col),
            "column {col} missing from {header:?}"
        );
    }
    assert_eq!(rows.len(), 3 * 2 * 3, "one row per cell");
    // Grid order: scheduler-major, then allocator, then load factor.
    let labels: Vec<String> = rows
        .iter()
        .take(4)
        .map(|r| format!("{} {} {}", r[2], r[3], r[4]))
        .collect();
    assert_eq!(
        labels,
        ["fcfs ff 0.5", "fcfs ff 1.0", "fcfs ff 2.0", "fcfs mpl 0.5"]
    );
    assert!(
        rows.iter()
            .all(|r| r[0] == "tiny.swf.txt" && r[1] == "mesh:4x4" && r[5] == "40")
    );
    for f in ["summary.parquet", "report.md", "sweep.json", "index.html"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    for png in [
        "turnaround.png",
        "max_wait.png",
        "mean_wait.png",
        "utilization.png",
        "fragmentation.png",
    ] {
        let bytes = std::fs::read(out.join(png)).expect(png);
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{png} is a PNG");
        assert!(bytes.len() > 20_000, "{png} has content");
    }
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("## Knee per policy") && report.contains("| window:4 + mpl |"));
    assert!(report.contains("![turnaround.png"));
    assert_eq!(count(&out.join("jobs"), "parquet"), 18);
    assert_eq!(count(&out.join("swf"), "swf"), 18);
    assert_eq!(count(&out.join("cells"), "json"), 18);
    assert_eq!(
        temporaries(&out),
        Vec::<String>::new(),
        "every temporary renamed"
    );
}

/// Names containing `.tmp-` anywhere under `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().filter_map(Result::ok) {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            found.extend(temporaries(&e.path()));
        } else if name.contains(".tmp-") {
            found.push(name);
        }
    }
    found
}

#[test]
fn the_swf_schedule_has_every_job_with_its_wait() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    sweep(&trace, &out, &["--swf-out", "--quiet"]);
    let text = std::fs::read_to_string(out.join("swf/fcfs_ff_lf2.swf")).expect("fcfs swf");
    let jobs = swf_jobs(&text);
    assert_eq!(jobs.len(), 40);
    assert!(
        jobs.iter().all(|j| j.len() == 18 && j[2] >= 0),
        "wait filled"
    );
    // Load factor 2 halves the interarrival times: job 2 arrives at 15 s.
    assert_eq!(jobs[1][1], 15);
    // FCFS: starts (submit + wait) never decrease in arrival order.
    let starts: Vec<i64> = jobs.iter().map(|j| j[1] + j[2]).collect();
    assert!(starts.windows(2).all(|w| w[0] <= w[1]), "{starts:?}");
    assert!(jobs.iter().any(|j| j[2] > 0), "some job waits at load 2");
}

#[test]
fn two_threads_give_the_same_table_as_one() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = fixture(tmp.path());
    let (a, b) = (tmp.path().join("t1"), tmp.path().join("t2"));
    sweep(&trace, &a, &["--threads", "1", "--quiet"]);
    sweep(&trace, &b, &["--threads", "2", "--quiet"]);
    assert_eq!(
        deterministic(&a.join("summary.csv")),
        deterministic(&b.join("summary.csv"))
    );
}

#[test]
fn resume_simulates_no_finished_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    sweep(&trace, &out, &["--quiet"]);
    assert_eq!(config(&out)["simulated"], 18);
    let first = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let o = sweep(&trace, &out, &["--resume"]);
    assert_eq!(config(&out)["simulated"], 0);
    assert_eq!(config(&out)["reused"], 18);
    assert!(String::from_utf8_lossy(&o.stderr).contains("(0 simulated, 18 reused)"));
    let second = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    assert_eq!(
        first, second,
        "reused cells are bit-identical, wall-clock columns included"
    );
    // A new load factor simulates only its own cells.
    ok(
        sweep_cmd(&trace, "mesh:4x4", "fcfs,window:4,oo", "ff,mpl", &out).args([
            "--resume",
            "--quiet",
            "--loads",
            "0.5,1,2,1.5",
        ]),
    );
    assert_eq!(config(&out)["simulated"], 6);
    assert_eq!(config(&out)["reused"], 18);
}

#[test]
fn auto_loads_climb_past_the_knee() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    ok(sweep_cmd(&trace, "mesh:4x4", "fcfs", "ff", &out).args(["--loads", "auto", "--quiet"]));
    let (header, rows) = csv(&out.join("summary.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (lf, t) = (col("load_factor"), col("mean_turnaround_s"));
    let curve: Vec<(f64, f64)> = rows
        .iter()
        .map(|r| (r[lf].parse().unwrap(), r[t].parse().unwrap()))
        .collect();
    assert_eq!(curve[0].0, 0.1);
    let base = curve[0].1;
    let first_sat = curve.iter().position(|p| p.1 > 2.0 * base);
    match first_sat {
        // Stops exactly two points past the first saturated load.
        Some(i) => assert_eq!(curve.len(), i + 3, "{curve:?}"),
        None => assert_eq!(curve.last().unwrap().0, 3.0, "{curve:?}"),
    }
}

#[test]
fn plot_redraws_from_the_parquet_table() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    sweep(&trace, &out, &["--quiet"]);
    let redraw = tmp.path().join("redraw");
    bin()
        .args([
            "plot",
            "--from",
            out.join("summary.parquet").to_str().unwrap(),
        ])
        .args(["--out", redraw.to_str().unwrap(), "--log-y"])
        .assert()
        .success();
    for f in [
        "turnaround.png",
        "max_wait.png",
        "mean_wait.png",
        "utilization.png",
        "fragmentation.png",
        "report.md",
        "index.html",
    ] {
        assert!(redraw.join(f).is_file(), "{f}");
    }
    let a = std::fs::read_to_string(out.join("report.md")).unwrap();
    let b = std::fs::read_to_string(redraw.join("report.md")).unwrap();
    let knees = |s: &str| {
        s.lines()
            .filter(|l| l.contains(" + "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(knees(&a), knees(&b), "same knee and key-number tables");
    assert!(b.contains("(log scale)"));
}

#[test]
fn a_missing_font_names_the_package() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    fails_with(
        sweep_cmd(&trace, "mesh:4x4", "fcfs", "ff", &out)
            .env("PWA_REPLAY_FONT", tmp.path().join("no-such-font.ttf"))
            .args(["--loads", "1", "--quiet"]),
        &["fonts-dejavu-core"],
    );
    assert!(
        !out.join("cells").exists(),
        "no cell simulated without a font"
    );
}

#[test]
fn bad_load_specs_are_rejected_before_any_work() {
    fails_with(
        bin().args(["sweep", "--trace", "whatever", "--loads", "2:1:0.1"]),
        &["FROM:TO:STEP"],
    );
}

#[test]
fn an_allocator_that_does_not_suit_the_machine_fails_before_any_cell() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    sweep_cmd(&trace, "flat:16", "fcfs", "mpl", &out)
        .args(["--loads", "1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "`mpl` does not work on machine `flat:16`",
        ))
        .stderr(predicate::str::contains("[1/1]").not());
    assert!(!out.join("cells").exists());
}

#[test]
fn an_unknown_queue_order_fails_before_any_cell_naming_its_label() {
    let tmp = tempfile::tempdir().unwrap();
    let (trace, out) = (fixture(tmp.path()), tmp.path().join("out"));
    sweep_cmd(&trace, "flat:16", "fcfs,easy:order=sjff", "flat", &out)
        .args(["--loads", "1"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "scheduler `easy:order=sjff`: order `sjff` is not one of",
        ))
        .stderr(predicate::str::contains("did you mean `sjf`"))
        .stderr(predicate::str::contains("[1/").not());
    assert!(!out.exists());
}

/// A `synth:` sweep's summary: header and rows (wall-clock columns dropped).
fn synth_sweep(label: &str, out: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    bin()
        .args(["sweep", "--trace", label, "--loads", "0.5,1", "--sched"])
        .args(["fcfs,oo", "--alloc", "ff", "--quiet", "--threads", "2"])
        .args(["--out", out.to_str().unwrap()])
        .assert()
        .success();
    let (header, rows) = csv(&out.join("summary.csv"));
    drop_wall_clock(&header, rows)
}

#[test]
fn a_synthetic_label_is_a_sweep_workload_in_the_papers_load_units() {
    let tmp = tempfile::tempdir().unwrap();
    let label = "synth:uniform,mesh=8x8,jobs=300,rate=1";
    let (header, rows) = synth_sweep(label, &tmp.path().join("a"));
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    assert_eq!(rows.len(), 4, "2 schedulers × 2 loads");
    let mut labels: Vec<(String, String)> = rows
        .iter()
        .map(|r| (r[col("scheduler")].clone(), r[col("load_factor")].clone()))
        .collect();
    labels.sort();
    let want = [
        ("fcfs", "0.5"),
        ("fcfs", "1.0"),
        ("oo", "0.5"),
        ("oo", "1.0"),
    ];
    assert_eq!(labels, want.map(|(s, l)| (s.to_string(), l.to_string())));
    for r in &rows {
        assert_eq!(r[col("trace")], label);
        assert_eq!(r[col("machine")], "mesh:8x8", "the label's mesh");
        assert_eq!(r[col("jobs")], "300");
        // Uniform sides on [1, 8]: E[w·h] = 4.5² nodes for a mean time unit, one job per time
        // unit at load 1, so utilization ≈ load · 20.25 / 64 (the paper's units on the x axis).
        let load: f64 = r[col("load_factor")].parse().unwrap();
        let util: f64 = r[col("utilization")].parse().unwrap();
        let offered = load * 20.25 / 64.0;
        assert!(
            (util - offered).abs() < 0.15 * offered,
            "{util} vs {offered}"
        );
    }
    let (_, again) = synth_sweep(label, &tmp.path().join("b"));
    assert_eq!(rows, again, "the same label gives the same numbers");
    // The cache key is the canonical label: defaults spelled out name the same workload.
    let key = |dir: &str| config(&tmp.path().join(dir))["trace_sha256"].clone();
    synth_sweep(&format!("{label},seed=1,service=1"), &tmp.path().join("c"));
    synth_sweep(&format!("{label},seed=2"), &tmp.path().join("d"));
    assert_eq!(key("a"), key("c"));
    assert_ne!(key("a"), key("d"));
}

/// `sweep` is the one-panel experiment of its flags: the same log, machine, series and load
/// factors as an experiment file with three shaken replicas seeded by `{sweep_cell}` give the same
/// means, number for number, in the summary and in the experiment's figures.
#[test]
fn a_shaken_sweep_is_the_one_panel_experiment_of_its_flags() {
    let tmp = tempfile::tempdir().unwrap();
    let trace = fixture(tmp.path());
    let out = tmp.path().join("sweep");
    ok(
        sweep_cmd(&trace, "mesh:4x4", "fcfs,oo", "ff,mpl", &out).args([
            "--loads",
            "0.5,2",
            "--shake",
            "3",
            "--shake-runtime",
            "0.2",
            "--quiet",
        ]),
    );
    let file = write(
        tmp.path(),
        "sweep.toml",
        &format!(
            r#"
[[panel]]
name = "sweep"
workload = "{}"
machine = "mesh:4x4"
sched = ["fcfs", "oo"]
alloc = ["ff", "mpl"]
x = {{ name = "load_factor", values = [0.5, 2] }}
replicate = {{ count = 3 }}
shake = {{ submit_s = 10, runtime = 0.2 }}
seed_key = "{{sweep_cell}}"

[[figure]]
name = "turnaround"
panel = "sweep"
y = "mean_turnaround_s"

[[figure]]
name = "max-wait"
panel = "sweep"
y = "max_wait_s"
"#,
            trace.display()
        ),
    );
    let exp = tmp.path().join("exp");
    ok(bin()
        .arg("experiment")
        .arg(&file)
        .args(["--quiet", "--out"])
        .arg(&exp));
    let (header, rows) = csv(&out.join("summary.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    for (measure, figure) in [
        ("mean_turnaround_s", "turnaround"),
        ("max_wait_s", "max-wait"),
    ] {
        let (_, points) = csv(&exp.join(format!("{figure}.csv")));
        assert_eq!(points.len(), rows.len(), "{figure}: one point per cell");
        for r in &rows {
            let series = format!("{}+{}", r[col("scheduler")], r[col("allocator")]);
            let lf: f64 = r[col("load_factor")].parse().unwrap();
            let p = points
                .iter()
                .find(|p| p[0] == series && p[1].parse::<f64>().unwrap() == lf)
                .unwrap_or_else(|| panic!("{figure}: no point {series} at {lf}"));
            let (a, b): (f64, f64) = (r[col(measure)].parse().unwrap(), p[2].parse().unwrap());
            assert_eq!(a, b, "{measure} of {series} at {lf}");
        }
    }
}

/// `--swf-out` keeps what the input says of each job that the simulation does not change: its
/// requested time (field 9), user, group, executable, queue, partition, preceding job and think
/// time (12–18), every one distinct per job here.
#[test]
fn the_swf_schedule_keeps_the_input_fields_9_and_12_to_18() {
    let tmp = tempfile::tempdir().unwrap();
    let mut text = String::from("; Version: 2.2\n; MaxNodes: 16\n");
    let kept = |i: i64| {
        [
            600 + i,
            10 + i,
            20 + i,
            30 + i,
            1 + i % 3,
            1 + i % 2,
            i,
            5 * i,
        ]
    };
    for i in 0..12i64 {
        let k = kept(i);
        text += &format!(
            "{} {} -1 {} {} -1 -1 {} {} -1 1 {} {} {} {} {} {} {}\n",
            i + 1,
            30 * i,
            60 + 11 * i,
            1 + i % 16,
            1 + i % 16,
            k[0],
            k[1],
            k[2],
            k[3],
            k[4],
            k[5],
            k[6],
            k[7]
        );
    }
    let trace = write(tmp.path(), "fields.swf", &text);
    let out = tmp.path().join("out");
    let mut c = sweep_cmd(&trace, "flat:16", "easy", "flat", &out);
    ok(c.args(["--loads", "1", "--swf-out", "--quiet"]));
    let written = std::fs::read_to_string(out.join("swf/easy_flat_lf1.swf")).expect("swf");
    let jobs = swf_jobs(&written);
    assert_eq!(jobs.len(), 12);
    for j in &jobs {
        let k = kept(j[0] - 1);
        assert_eq!(j[8], k[0], "job {}: field 9", j[0]);
        assert_eq!(j[11..], k[1..], "job {}: fields 12-18", j[0]);
    }
    // Every cell has its per-user table.
    assert!(out.join("users/easy_flat_lf1.parquet").is_file());
}
