//! Sweeps beyond one machine: `sweep --shard I/N` + `merge` equal an unsharded sweep for
//! 1…7 shards; `merge` names missing, unfinished, foreign and duplicate parts; the `--slurm`
//! scripts run under a plain shell loop as under Slurm.

use std::path::{Path, PathBuf};

use crate::provenance::{csv_without_wall_clock, parquet_without_wall_clock, sweep};
use crate::support::{bin, fails_with, ok};

const FIGURES: [&str; 4] = [
    "turnaround.png",
    "max_wait.png",
    "mean_wait.png",
    "utilization.png",
];

/// `merge out parts…`, which must succeed.
fn merge(out: &Path, parts: &[PathBuf]) {
    ok(bin().arg("merge").arg("--quiet").arg(out).args(parts));
}

/// Asserts that `merged` holds the same summary (wall-clock columns aside) and figures as `whole`.
fn same_as_unsharded(whole: &Path, merged: &Path, what: &str) {
    assert_eq!(
        csv_without_wall_clock(&whole.join("summary.csv")),
        csv_without_wall_clock(&merged.join("summary.csv")),
        "{what}: summary.csv"
    );
    let (a, b) = (
        parquet_without_wall_clock(&whole.join("summary.parquet")),
        parquet_without_wall_clock(&merged.join("summary.parquet")),
    );
    assert!(a.equals_missing(&b), "{what}: summary.parquet {a} vs {b}");
    for f in FIGURES {
        assert!(
            std::fs::read(whole.join(f)).unwrap() == std::fs::read(merged.join(f)).unwrap(),
            "{what}: {f} differs"
        );
    }
    assert_eq!(
        page_results(whole),
        page_results(merged),
        "{what}: index.html's tables and charts"
    );
}

/// The tables and charts of `dir/index.html` (its data after the configuration rows, which hold
/// threads, cell counts and wall time).
fn page_results(dir: &Path) -> String {
    let html = std::fs::read_to_string(dir.join("index.html")).expect("index.html");
    let from = html.find("\"tables\":").expect("tables in the page's data");
    let to = from + html[from..].find("</script>").expect("end of the data");
    html[from..to].to_string()
}

/// Runs the `n` shards of the test sweep into `dir/p0…` and returns their directories.
fn shards(dir: &Path, n: usize, extra: &[&str]) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let part = format!("p{i}");
            let shard = format!("{i}/{n}");
            sweep(dir, &part, &[&["--shard", &shard], extra].concat());
            dir.join(part)
        })
        .collect()
}

#[test]
fn merging_1_to_7_shards_gives_the_unsharded_sweep() {
    let tmp = tempfile::tempdir().unwrap();
    sweep(tmp.path(), "whole", &["--per-job"]);
    let whole = tmp.path().join("whole");
    for n in 1..=7 {
        let dir = tmp.path().join(format!("n{n}"));
        std::fs::create_dir_all(&dir).unwrap();
        let parts = shards(&dir, n, &["--per-job", "--threads", "1"]);
        let rows: usize = parts
            .iter()
            .map(|p| csv_without_wall_clock(&p.join("summary.csv")).len() - 1)
            .sum();
        assert_eq!(rows, 18, "n = {n}: the shards hold every cell once");
        let mut reversed = parts.clone();
        reversed.reverse();
        merge(&dir.join("merged"), &reversed);
        same_as_unsharded(&whole, &dir.join("merged"), &format!("{n} shards"));
        let jobs = std::fs::read_dir(dir.join("merged/jobs")).unwrap().count();
        assert_eq!(jobs, 18, "n = {n}: per-job files gathered");
        ok(bin().arg("verify").arg(dir.join("merged")));
    }
}

#[test]
fn merge_names_missing_unfinished_foreign_and_duplicate_parts() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let parts = shards(d, 3, &[]);
    let out = d.join("merged");
    fails_with(
        bin().arg("merge").arg(&out).args([&parts[0], &parts[2]]),
        &[
            "cells missing",
            "shards without a finished part: 1/3",
            "missing cells: ",
        ],
    );
    let unfinished = d.join("never-ran");
    std::fs::create_dir_all(&unfinished).unwrap();
    fails_with(
        bin()
            .arg("merge")
            .arg(&out)
            .args([&parts[0], &unfinished, &parts[2]]),
        &["1/3", "never-ran has no manifest.json", "--resume"],
    );
    fails_with(
        bin()
            .arg("merge")
            .arg(&out)
            .args([&parts[0], &parts[1], &parts[1]]),
        &["are both shard 1/3"],
    );
    ok(bin()
        .current_dir(d)
        .args([
            "sweep",
            "--trace",
            crate::provenance::TRACE,
            "--sched",
            "fcfs,oo,window:4",
        ])
        .args(["--alloc", "ff,mpl", "--loads", "0.3,0.6,1.2", "--quiet"])
        .args(["--shard", "1/3", "--out", "other"]));
    fails_with(
        bin()
            .arg("merge")
            .arg(&out)
            .args([&parts[0], &d.join("other"), &parts[2]]),
        &["are not parts of one sweep", "configuration hashes"],
    );
    sweep(d, "whole", &[]);
    fails_with(
        bin().arg("merge").arg(&out).arg(d.join("whole")),
        &["is not a shard of a sweep", "--shard"],
    );
    assert!(
        !out.join("summary.csv").exists(),
        "no output from a refused merge"
    );
}

#[test]
fn shards_need_a_fixed_load_list() {
    for opt in [&["--shard", "0/2"][..], &["--slurm", "2"]] {
        fails_with(
            bin()
                .args([
                    "sweep",
                    "--trace",
                    crate::provenance::TRACE,
                    "--sched",
                    "fcfs",
                ])
                .args(["--alloc", "ff", "--loads", "auto"])
                .args(opt),
            &["fixed load list"],
        );
    }
    fails_with(
        bin().args([
            "sweep",
            "--trace",
            crate::provenance::TRACE,
            "--shard",
            "3/3",
        ]),
        &["I must be below N"],
    );
    fails_with(
        bin()
            .args([
                "sweep",
                "--trace",
                crate::provenance::TRACE,
                "--sched",
                "fcfs",
            ])
            .args(["--alloc", "ff,mpl", "--loads", "0.5,1", "--shard", "0/5"]),
        &["5 shards for a grid of 4 cells"],
    );
}

/// The README's "any launcher": the array script under a shell loop, then the merge script.
#[test]
fn the_slurm_scripts_run_under_a_plain_shell_loop() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path();
    let printed = ok(bin()
        .current_dir(d)
        .args([
            "sweep",
            "--trace",
            crate::provenance::TRACE,
            "--sched",
            "fcfs,oo,window:4",
        ])
        .args(["--alloc", "ff,mpl", "--loads", "0.3,0.6,0.9", "--quiet"])
        .args([
            "--out",
            "study",
            "--slurm",
            "3",
            "--slurm-opt",
            "--time=5 --mem=100M",
        ]));
    let stdout = String::from_utf8_lossy(&printed.stdout);
    assert!(
        stdout.contains("sbatch --parsable") && stdout.contains("--dependency=afterok:"),
        "{stdout}"
    );
    let script = std::fs::read_to_string(d.join("study/slurm/sweep.sbatch")).unwrap();
    for want in [
        "#SBATCH --array=0-2",
        "#SBATCH --time=5",
        "#SBATCH --mem=100M",
        "--resume",
    ] {
        assert!(script.contains(want), "{want} not in {script}");
    }
    let exec = script
        .lines()
        .skip_while(|l| !l.starts_with("exec"))
        .collect::<String>();
    assert!(
        !exec.contains("--slurm") && !exec.contains("--time"),
        "{exec}"
    );
    assert!(
        !d.join("study/summary.csv").exists(),
        "--slurm simulates nothing"
    );
    for i in 0..3 {
        let run = std::process::Command::new("bash")
            .arg("study/slurm/sweep.sbatch")
            .current_dir(d)
            .env("SLURM_ARRAY_TASK_ID", i.to_string())
            .env("SLURM_CPUS_PER_TASK", "1")
            .env("PWA_OFFLINE", "1")
            .status()
            .unwrap();
        assert!(run.success(), "task {i}");
    }
    let merged = std::process::Command::new("bash")
        .arg("study/slurm/merge.sbatch")
        .current_dir(d)
        .status()
        .unwrap();
    assert!(merged.success());
    sweep(d, "whole", &[]);
    same_as_unsharded(&d.join("whole"), &d.join("study"), "shell loop");
}
