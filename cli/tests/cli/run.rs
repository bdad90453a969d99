//! `pwa-replay run`: a hand-worked replay of a generated SWF file in both formats, the per-job
//! table, `--validate`, errors that name the job, and (when the shared logs are present) a real trace.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;

use crate::support::{bin, fails_with, json_of, json_ok, ok, real_logs, swf_line, write};

/// Whether a line of `text` matches `re`.
fn regex_line(text: &str, re: &str) -> bool {
    predicates::str::is_match(format!("(?m){re}"))
        .expect("regex")
        .eval(text)
}

/// On flat:4: job 1 holds 4 nodes for 0..10; job 2 (2 nodes, 20 s) arrives at 2 and job 3
/// (2 nodes, 5 s) at 3; both start at 10. Waits 0, 8, 7; turnarounds 10, 28, 12; makespan 30.
fn small(dir: &Path) -> PathBuf {
    let text = String::from("; Version: 2.2\n")
        + &swf_line(1, 0, 10, 4, 1)
        + &swf_line(2, 2, 20, 2, 1)
        + &swf_line(3, 3, 5, 2, 1);
    write(dir, "small.swf", &text)
}

/// `run --trace <trace> --machine <machine> --sched <sched> --alloc <alloc>` followed by `extra`.
fn run(trace: &str, machine: &str, sched: &str, alloc: &str, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args(["run", "--trace", trace, "--machine", machine])
        .args(["--sched", sched, "--alloc", alloc])
        .args(extra);
    c
}

#[test]
fn json_object_has_the_promised_keys_and_hand_worked_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let s = swf.to_str().unwrap();
    let v = json_ok(&mut run(
        s,
        "flat:4",
        "fcfs",
        "flat",
        &["--validate", "--format", "json"],
    ));
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
    let extra = ["--load-factor", "2", "--format", "json"];
    let v2 = json_ok(&mut run(s, "flat:4", "oo", "flat", &extra));
    assert_eq!(v2["max_wait_s"], 9.0);
    assert_eq!(v2["load_factor"], 2.0);
}

#[test]
fn table_format_and_per_job_tables() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let s = swf.to_str().unwrap();
    let csv = dir.path().join("jobs.csv");
    let pq = dir.path().join("out/jobs.parquet");
    for out in [&csv, &pq] {
        let extra = ["--validate", "--jobs-out", out.to_str().unwrap()];
        run(s, "mesh:2x2", "window:2", "ff", &extra)
            .assert()
            .success()
            .stdout(predicate::str::contains("scheduler").and(predicate::str::contains("window:2")))
            .stdout(predicate::str::is_match(r"(?m)^jobs\s+3$").unwrap())
            .stdout(
                predicate::str::is_match(r"(?m)^mean_turnaround_s\s+\d+(\.\d+)? (s|ms|min)")
                    .unwrap(),
            );
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
    fails_with(
        &mut run(s, "flat:4", "fcfs", "flat", &["--jobs-out", "jobs.txt"]),
        &[".csv or .parquet"],
    );
}

/// A non-contiguous allocator with the communication model: the schedule validates, the per-job
/// table has the locality columns, and the JSON names the model (only when it is on).
#[test]
fn non_contiguous_allocation_with_dilation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let s = swf.to_str().unwrap();
    let csv = dir.path().join("jobs.csv");
    let extra = [
        "--validate",
        "--dilation",
        "linear:1",
        "--format",
        "json",
        "--jobs-out",
        csv.to_str().unwrap(),
    ];
    let v = json_ok(&mut run(s, "mesh:2x2", "easy", "gabl", &extra));
    assert_eq!(v["dilation"], "linear:1");
    assert_eq!(v["allocator"], "gabl");
    assert_eq!(v["mean_pieces"], 1.0);
    let header = std::fs::read_to_string(&csv).expect("csv written");
    let first = header.lines().next().unwrap_or_default();
    for col in ["pieces", "mean_pairwise_hops", "bounding_box_nodes"] {
        assert!(first.contains(col), "{first}");
    }
    let plain = json_ok(&mut run(
        s,
        "mesh:2x2",
        "easy",
        "gabl",
        &["--format", "json"],
    ));
    assert!(plain.get("dilation").is_none());
    fails_with(
        &mut run(s, "mesh:2x2", "easy", "gabl", &["--dilation", "linear:-1"]),
        &["linear:"],
    );
}

#[test]
fn bad_labels_and_impossible_jobs_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let s = swf.to_str().unwrap();
    // (machine, scheduler, allocator, what stderr must name). Job 1 asks for 4 nodes: too large
    // for flat:3, an error unless --lenient drops it.
    for (machine, sched, alloc, needle) in [
        ("flat:4", "lifo", "flat", "lifo"),
        ("flat:4", "fcfs", "ff", "ff"),
        ("flat:3", "fcfs", "flat", "1"),
    ] {
        fails_with(&mut run(s, machine, sched, alloc, &[]), &[needle]);
    }
    let extra = ["--lenient", "--format", "json"];
    let v = json_ok(&mut run(s, "flat:3", "fcfs", "flat", &extra));
    assert_eq!(v["jobs"], 2);
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn real_sdsc_96_replay_validates() {
    let dir = real_logs();
    let v = json_ok(
        bin()
            .env("PWA_TRACES", &dir)
            .args(["run", "--trace", "sdsc-96", "--sched", "window:240"])
            .args(["--alloc", "mpl", "--load-factor", "1.5"])
            .args(["--validate", "--format", "json"]),
    );
    assert_eq!(v["machine"], "mesh:22x16");
    assert!(v["jobs"].as_u64().unwrap() > 10_000, "{v}");
    let u = v["utilization"].as_f64().unwrap();
    assert!(u > 0.0 && u <= 1.0, "{v}");
}

#[test]
fn a_synthetic_label_runs_on_its_mesh_or_the_machine_given() {
    let label = "synth:uniform-decreasing,mesh=20x20,jobs=200,rate=1,seed=3";
    let synth = |extra: &[&str]| {
        let mut c = bin();
        c.args(["run", "--trace", label, "--sched", "oo", "--alloc", "ff"])
            .args(extra)
            .args(["--validate", "--format", "json"]);
        json_ok(&mut c)
    };
    let v = synth(&[]);
    assert_eq!(v["trace"], label);
    assert_eq!(v["machine"], "mesh:20x20");
    assert_eq!(v["jobs"], 200);
    assert_eq!(v["validated"], true);
    let wider = synth(&["--machine", "mesh:40x20"]);
    assert_eq!(wider["machine"], "mesh:40x20");
    assert_eq!(wider["sha256"], v["sha256"], "same workload, other machine");
    assert!(wider["utilization"].as_f64() < v["utilization"].as_f64());
    fails_with(
        bin().args([
            "run",
            "--trace",
            "synth:zipf",
            "--sched",
            "oo",
            "--alloc",
            "ff",
        ]),
        &["zipf"],
    );
}

#[test]
fn the_table_shows_units_and_json_exact_values() {
    let dir = tempfile::tempdir().expect("tempdir");
    // two jobs of 4 nodes on 4 nodes, 3 days each: the second waits 3 days
    let mut text = String::from("; MaxNodes: 4\n");
    text += &swf_line(1, 0, 259_200, 4, 1);
    text += &swf_line(2, 1, 259_200, 4, 1);
    let path = write(dir.path(), "long.swf", &text);
    let s = path.to_str().unwrap();
    let table = String::from_utf8(ok(&mut run(s, "flat:4", "fcfs", "flat", &[])).stdout).unwrap();
    // mean turnaround (3 d + 6 d − 1 s) / 2 = 4.5 d
    let line = |re: &str| regex_line(&table, re);
    assert!(line(r"^mean_turnaround_s\s+4.5 d$"), "{table}");
    assert!(line(r"^max_wait_s\s+3 d$"), "{table}");
    assert!(line(r"^jobs\s+2$"), "{table}");
    let v = json_ok(&mut run(s, "flat:4", "fcfs", "flat", &["--format", "json"]));
    assert_eq!(
        v["mean_turnaround_s"],
        (259_200.0 + 2.0 * 259_200.0 - 1.0) / 2.0
    );
}

#[test]
fn a_raw_file_runs_flat_without_machine_only_with_the_flat_allocator() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(small(dir.path())).expect("small");
    let swf = write(dir.path(), "sized.swf", &format!("; MaxProcs: 4\n{text}"));
    let mut c = bin();
    c.args(["run", "--trace"])
        .arg(&swf)
        .args(["--sched", "fcfs", "--alloc", "flat", "--format", "json"]);
    let out = ok(&mut c);
    assert!(String::from_utf8_lossy(&out.stderr).contains("sized from the header"));
    assert_eq!(json_of(&out.stdout)["machine"], "flat:4");
    let mut c = bin();
    c.args(["run", "--trace"])
        .arg(&swf)
        .args(["--sched", "fcfs", "--alloc", "mpl"]);
    fails_with(&mut c, &["--machine", "with --alloc flat"]);
}

/// The help of `run` and `sweep` lists every scheduler and allocator of the library's registries
/// (generated from them, so a new policy cannot be missing).
#[test]
fn help_names_every_registered_scheduler_and_allocator() {
    for cmd in ["run", "sweep"] {
        let out = ok(bin().args([cmd, "--help"]));
        let help = String::from_utf8_lossy(&out.stdout);
        for s in pwa_replay::sched::SCHEDULERS {
            assert!(help.contains(s.syntax), "{cmd} --help misses {}", s.syntax);
        }
        for a in pwa_replay::machine::AllocKind::ALL {
            assert!(
                help.contains(a.label().as_ref()),
                "{cmd} --help misses {}",
                a.label()
            );
        }
    }
}

/// Found as a new user would: `run` printed `skipped_checks 12745` with nothing to say what it
/// was. Every field `run` prints is explained in docs/OUTPUTS.md.
#[test]
fn every_field_run_prints_is_documented() {
    let outputs = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/OUTPUTS.md"));
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let v = json_ok(&mut run(
        swf.to_str().unwrap(),
        "flat:4",
        "fcfs",
        "flat",
        &["--format", "json"],
    ));
    for key in v.as_object().expect("object").keys() {
        assert!(
            outputs.contains(&format!("`{key}`")),
            "docs/OUTPUTS.md does not explain `{key}`"
        );
    }
}

/// `--semantics cqsim` reads the log as CQSim does: the run time cut at the requested time, the
/// size from field 8, a job without a requested time dropped; the textbook reads it as logged.
#[test]
fn a_profiles_input_rewrite_is_applied_when_the_log_is_loaded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = "; Version: 2.2\n\
        1 0 0 10 4 -1 -1 2 5 -1 1 1 1 -1 1 -1 -1 -1\n\
        2 1 0 10 2 -1 -1 2 -1 -1 1 1 1 -1 1 -1 -1 -1\n";
    let swf = write(dir.path(), "cqsim.swf", text);
    let s = swf.to_str().unwrap();
    let json = |extra: &[&str]| {
        let args = [&["--validate", "--format", "json"], extra].concat();
        json_ok(&mut run(s, "flat:4", "easy", "flat", &args))
    };
    let textbook = json(&[]);
    assert_eq!(textbook["jobs"], 2);
    assert_eq!(textbook["makespan_s"], 20.0); // job 2 waits for job 1's 4 nodes
    let cqsim = json(&["--semantics", "cqsim"]);
    assert_eq!(cqsim["jobs"], 1, "job 2 has no requested time: {cqsim}");
    assert_eq!(
        cqsim["makespan_s"], 5.0,
        "cut at the requested 5 s: {cqsim}"
    );
    assert_eq!(cqsim["semantics"], "cqsim");
}

#[test]
fn queue_orders_by_label_and_their_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let swf = small(dir.path());
    let s = swf.to_str().unwrap();
    let defs = ["--order-def", "big=nodes", "--validate", "--format", "json"];
    let v = json_ok(&mut run(s, "flat:4", "easy:order=big", "flat", &defs));
    assert_eq!(v["scheduler"], "easy:order=big");
    assert_eq!(v["validated"], true);
    assert_eq!(v["orders"]["big"], "nodes");
    let plain = json_ok(&mut run(s, "flat:4", "easy", "flat", &["--format", "json"]));
    assert!(plain.get("orders").is_none(), "{plain}");
    let shares = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).expect("write");
        path.to_str().unwrap().to_string()
    };
    let unknown_user = shares("a.shares", "user 4242 10\n");
    let negative = shares("b.shares", "# users\nuser 1 -2\n");
    for (sched, extra, needles) in [
        (
            "easy:order=wpf3",
            vec![],
            vec!["`wpf3`", "did you mean `wfp3`"],
        ),
        (
            "easy:order=x",
            vec!["--order-def", "x=wait*/2"],
            vec!["column 6", "wait*/2"],
        ),
        (
            "easy:order=fairshare",
            vec!["--shares", &unknown_user],
            vec!["line 1", "4242"],
        ),
        (
            "easy:order=fairshare",
            vec!["--shares", &negative],
            vec!["line 2", "-2"],
        ),
        (
            "easy:order=multifactor",
            vec!["--weights", "age=lots"],
            vec!["age=lots"],
        ),
        ("lazy:order=sjf", vec![], vec!["lazy:order=sjf"]),
    ] {
        fails_with(&mut run(s, "flat:4", sched, "flat", &extra), &needles);
    }
}

/// The per-job table names each job's user, group, queue and partition as the log does, and the
/// per-user table beside it adds up to the jobs: on the first 3,000 jobs of CTC-SP2, every row's
/// `user` is field 12 of the log's line of that job (and `group` 13, `queue` 15, `partition` 16).
#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn the_user_column_is_field_12_of_the_log() {
    use pwa_replay::swf::{self, ReadOptions, SwfReader};
    let log = real_logs().join("CTC-SP2-1996-3.1-cln.swf.gz");
    let mut reader = SwfReader::open(&log, ReadOptions::strict()).expect("CTC-SP2");
    let records: Vec<swf::Record> = reader.by_ref().take(3000).map(Result::unwrap).collect();
    let dir = tempfile::tempdir().expect("tempdir");
    let slice = dir.path().join("ctc-3000.swf");
    let mut text = Vec::new();
    swf::write_header(&mut text, reader.header()).unwrap();
    for r in &records {
        swf::write_record(&mut text, r).unwrap();
    }
    std::fs::write(&slice, text).unwrap();
    let csv = dir.path().join("jobs.csv");
    let extra = ["--validate", "--jobs-out", csv.to_str().unwrap()];
    run(slice.to_str().unwrap(), "flat:338", "easy", "flat", &extra)
        .assert()
        .success();
    let rows = crate::support::csv_rows(&csv);
    assert_eq!(rows.len(), records.len());
    let by_id: std::collections::BTreeMap<String, &swf::Record> =
        records.iter().map(|r| (r.job_id.to_string(), r)).collect();
    let users: std::collections::BTreeSet<i64> =
        records.iter().map(|r| r.user.unwrap_or(-1)).collect();
    assert!(users.len() > 50, "{} users", users.len());
    for row in &rows {
        let r = by_id[&row["job_id"]];
        let field = |v: Option<i64>| v.unwrap_or(-1).to_string();
        assert_eq!(row["user"], field(r.user), "job {}", r.job_id);
        assert_eq!(row["group"], field(r.group), "job {}", r.job_id);
        assert_eq!(row["queue"], field(r.queue), "job {}", r.job_id);
        assert_eq!(row["partition"], field(r.partition), "job {}", r.job_id);
    }
    let per_user = crate::support::csv_rows(&dir.path().join("jobs.users.csv"));
    assert_eq!(per_user.len(), users.len());
    let jobs: u64 = per_user
        .iter()
        .map(|u| u["jobs"].parse::<u64>().unwrap())
        .sum();
    assert_eq!(jobs, records.len() as u64);
    for u in &per_user {
        let (mean, max) = (&u["mean_wait_s"], &u["max_wait_s"]);
        assert!(mean.parse::<f64>().unwrap() <= max.parse::<f64>().unwrap() + 1e-9);
    }
}
