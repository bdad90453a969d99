//! `sweep --shake`: the same seed gives the same bytes, replicas are cached and resumed, and the
//! summary carries `replicas` and `_ci95` columns only when shaking.

use std::path::Path;

use crate::support::{bin, fails_with, fields, ok};

const TRACE: &str = "synth:uniform,mesh=8x8,jobs=300,rate=1";

fn shaken(out: &Path, extra: &[&str]) -> std::process::Output {
    ok(bin()
        .args([
            "sweep", "--trace", TRACE, "--sched", "fcfs,oo", "--alloc", "ff",
        ])
        .args([
            "--loads",
            "0.5,1",
            "--shake",
            "5",
            "--shake-submit",
            "0.5",
            "--quiet",
        ])
        .args(["--out", out.to_str().unwrap()])
        .args(extra))
}

/// summary.csv with the wall-clock columns blanked.
fn deterministic(out: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let rows: Vec<Vec<String>> = text.lines().map(fields).collect();
    let wall: Vec<usize> = (0..rows[0].len())
        .filter(|&i| ["alloc_time_s", "sim_wall_s"].contains(&rows[0][i].as_str()))
        .collect();
    rows.into_iter()
        .map(|mut r| {
            for &i in &wall {
                r[i].clear();
            }
            r
        })
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_summary_and_replicas_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    shaken(&a, &["--threads", "1"]);
    shaken(&b, &["--threads", "2"]);
    let table = deterministic(&a);
    assert_eq!(table, deterministic(&b), "parallel = serial, same seeds");
    let header = &table[0];
    let col = |n: &str| header.iter().position(|h| h == n).expect(n);
    for r in &table[1..] {
        assert_eq!(r[col("replicas")], "5");
        let h: f64 = r[col("mean_turnaround_s_ci95")].parse().unwrap();
        assert!(
            h > 0.0 && h.is_finite(),
            "shaking spreads the replicas: {h}"
        );
    }
    assert_eq!(
        std::fs::read_dir(a.join("cells")).unwrap().count(),
        20,
        "4 cells × 5 replicas"
    );
    let report = std::fs::read_to_string(a.join("report.md")).unwrap();
    assert!(
        report.contains("## Confidence") && report.contains("input shaking"),
        "{report}"
    );
    let before = std::fs::read(a.join("summary.csv")).unwrap();
    let o = shaken(&a, &["--resume"]);
    assert!(String::from_utf8_lossy(&o.stderr).is_empty());
    assert_eq!(
        std::fs::read(a.join("summary.csv")).unwrap(),
        before,
        "resumed replicas: same bytes"
    );
    // Other shaking, other replicas.
    shaken(&tmp.path().join("c"), &["--shake-runtime", "0.2"]);
    assert_ne!(deterministic(&tmp.path().join("c")), table);
}

#[test]
fn bad_shaking_options_are_refused_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let mut c = bin();
    c.args([
        "sweep", "--trace", TRACE, "--sched", "fcfs", "--alloc", "ff", "--loads", "1",
    ])
    .args(["--shake", "3", "--shake-runtime", "1.5"])
    .arg("--out")
    .arg(&out);
    fails_with(&mut c, &["--shake-runtime", "[0, 1)"]);
    assert!(!out.exists(), "refused before the output directory is made");
    let mut one = bin();
    one.args(["sweep", "--trace", TRACE, "--shake", "1"]);
    fails_with(&mut one, &["--shake"]);
    let mut per_job = bin();
    per_job.args(["sweep", "--trace", TRACE, "--shake", "3", "--per-job"]);
    fails_with(&mut per_job, &["--per-job"]);
}
