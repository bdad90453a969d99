//! What a new user met on a fresh clone, each replayed as she met it: names she misspelt, files
//! that were not there, lines her log had wrong, estimates her log did not have, figures and
//! tables that misled her. Each test says what she did and what she must now be told.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::support::{
    Image, bin, bin_with, csv_rows, experiment, fails_with, json_of, ok, read_png, swf_line, write,
};

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

/// Pixels of `img` inside `xs × ys` that are darker than the plot's light grid lines.
fn ink(img: &Image, xs: std::ops::Range<u32>, ys: std::ops::Range<u32>) -> usize {
    near(img, xs, ys, |p| p.iter().any(|&c| c < 150))
}

/// Pixels of `img` inside `xs × ys` that `pick` accepts.
fn near(
    img: &Image,
    xs: std::ops::Range<u32>,
    ys: std::ops::Range<u32>,
    pick: impl Fn([u8; 3]) -> bool,
) -> usize {
    ys.flat_map(|y| xs.clone().map(move |x| (x, y)))
        .filter(|&(x, y)| pick(img.rgb[(y * img.width + x) as usize]))
        .count()
}

fn close_to(colour: [u8; 3]) -> impl Fn([u8; 3]) -> bool {
    move |p| p.iter().zip(colour).all(|(&a, b)| a.abs_diff(b) <= 20)
}

#[test]
fn a_figure_shows_its_whole_title_and_the_lines_hidden_under_others() {
    // The README's synthetic sweep at light loads: the three policies give the same curve.
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("synth");
    ok(bin()
        .args([
            "sweep",
            "--trace",
            "synth:uniform-decreasing,mesh=32x32,jobs=1000,rate=1",
        ])
        .args([
            "--sched",
            "fcfs,oo,window:240",
            "--loads",
            "0.5,1",
            "--quiet",
            "--out",
        ])
        .arg(&out));
    let img = read_png(&out.join("turnaround.png"));
    // The long title is not cut at the canvas' edges.
    assert_eq!(
        ink(&img, 0..6, 0..80),
        0,
        "the title runs off the left edge"
    );
    assert_eq!(
        ink(&img, img.width - 6..img.width, 0..80),
        0,
        "… or the right"
    );
    // OO (blue) is under Window-240 (green), FCFS (red) under both: each still shows in the plot.
    let plot = 130..img.width - 300;
    for (name, colour) in [("fcfs", [0xd6, 0x27, 0x28]), ("oo", [0x1f, 0x77, 0xb4])] {
        let seen = near(&img, plot.clone(), 80..700, close_to(colour));
        assert!(
            seen > 150,
            "{name}'s line is hidden: {seen} pixels of its colour"
        );
    }
}

#[test]
fn a_long_series_label_fits_the_legend_of_an_experiment_figure() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = experiment(
        dir.path(),
        r#"title = "Long labels"

[[panel]]
name = "lublin"
workload = "synth:lublin,nodes=64,jobs=300"
sched = ["easy", "conservative"]
alloc = ["flat"]
estimate = ["user"]
x = { values = [0.5, 1.0], label = "load factor" }

[[figure]]
name = "wait"
panel = "lublin"
y = "mean_wait_s"
"#,
        "out",
        &[],
    );
    let img = read_png(&out.join("wait.png"));
    // `conservative+flat+user` ends inside the canvas: nothing is drawn in its last columns.
    assert_eq!(ink(&img, img.width - 4..img.width, 0..img.height), 0);
}

/// A flat log of `n` jobs on 8 nodes; the first `requested` of them ask for 2 × their run time.
fn log_with_requested_times(dir: &Path, n: u64, requested: u64) -> PathBuf {
    let mut text = String::from("; MaxNodes: 8\n");
    for job in 1..=n {
        let (submit, run, procs) = (
            job as i64 * 30,
            50 + (job as i64 * 37) % 400,
            1 + job as i64 % 6,
        );
        let asked = if job <= requested { run * 2 } else { -1 };
        text +=
            &format!("{job} {submit} 0 {run} {procs} -1 -1 {procs} {asked} -1 1 1 1 1 1 1 -1 -1\n");
    }
    write(dir, &format!("requested-{requested}.swf"), &text)
}

#[test]
fn user_estimates_say_how_many_jobs_fall_back_to_their_run_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let none = log_with_requested_times(dir.path(), 40, 0);
    let out = ok(bin().args(["run", "--trace"]).arg(&none).args([
        "--sched",
        "easy",
        "--alloc",
        "flat",
        "--estimate",
        "user",
        "--format",
        "json",
    ]));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no job has a requested time (SWF field 9): user estimates are the run times, the same as exact"),
        "{err}"
    );
    assert_eq!(json_of(&out.stdout)["estimate_fallbacks"], 40);

    let some = log_with_requested_times(dir.path(), 40, 30);
    let sweep_dir = dir.path().join("some");
    let out = ok(bin()
        .args(["sweep", "--trace"])
        .arg(&some)
        .args([
            "--sched",
            "easy",
            "--alloc",
            "flat",
            "--estimate",
            "exact,user",
        ])
        .args(["--loads", "1", "--quiet", "--out"])
        .arg(&sweep_dir));
    let said = "10 of 40 jobs have no requested time (SWF field 9): under user their run time \
                stands in for the user estimate";
    assert!(String::from_utf8_lossy(&out.stderr).contains(said));
    for page in ["report.md", "index.html"] {
        let text = std::fs::read_to_string(sweep_dir.join(page)).expect(page);
        assert!(text.contains(said), "{page} does not say it");
    }
}

#[test]
fn a_default_grid_lists_user_estimates_only_for_logs_with_requested_times_and_fcfs_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let sweep = |log: &Path, out: &Path| {
        let o = ok(bin()
            .args(["sweep", "--trace"])
            .arg(log)
            .args(["--loads", "0.5,1", "--quiet", "--out"])
            .arg(out));
        let series: std::collections::BTreeSet<String> = csv_rows(&out.join("summary.csv"))
            .iter()
            // The summary has an `estimate` column only when some row's is not exact.
            .map(|r| {
                let estimate = r.get("estimate").map_or("exact", String::as_str);
                format!("{} {estimate}", r["scheduler"])
            })
            .collect();
        (String::from_utf8_lossy(&o.stderr).into_owned(), series)
    };
    // No requested time in the log: the flat machines' grid replays exact estimates only.
    let (err, series) = sweep(
        &log_with_requested_times(dir.path(), 40, 0),
        &dir.path().join("none"),
    );
    assert!(
        err.contains("--estimate exact (not user: no job of the log has a requested time)"),
        "{err}"
    );
    assert_eq!(
        series.into_iter().collect::<Vec<_>>(),
        ["conservative exact", "easy exact", "fcfs exact"]
    );
    // With them: user too, but FCFS, which does not plan with estimates, once — said once.
    let (err, series) = sweep(
        &log_with_requested_times(dir.path(), 40, 40),
        &dir.path().join("all"),
    );
    assert!(err.contains("--estimate exact,user\n"), "{err}");
    let once = "fcfs does not plan with run-time estimates: replayed once, under exact";
    assert_eq!(err.matches(once).count(), 1, "{err}");
    assert_eq!(
        series.into_iter().collect::<Vec<_>>(),
        [
            "conservative exact",
            "conservative user",
            "easy exact",
            "easy user",
            "fcfs exact"
        ]
    );
    let report = std::fs::read_to_string(dir.path().join("all/report.md")).expect("report");
    assert!(report.contains(once), "{report}");
    // The flat machine's default figures include the bounded slowdown.
    assert!(dir.path().join("all/slowdown.png").is_file());
    assert!(report.contains("![slowdown.png](slowdown.png)"));
}

#[test]
fn the_readmes_synthetic_sweep_saturates_every_policy_and_labels_model_time() {
    let readme = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"));
    let command = readme
        .split('`')
        .find(|c| c.starts_with("pwa-replay sweep --trace synth:uniform-decreasing"))
        .expect("the README's synthetic sweep");
    let dir = tempfile::tempdir().expect("tempdir");
    // As written, but 2,000 jobs instead of 10,000 (the same loads saturate, in a fifth of the time).
    let args: Vec<String> = command
        .split_whitespace()
        .skip(1)
        .map(|a| a.replace("jobs=10000", "jobs=2000"))
        .collect();
    ok(bin()
        .current_dir(dir.path())
        .args(&args)
        .args(["--quiet", "--out", "out"]));
    let report = std::fs::read_to_string(dir.path().join("out/report.md")).expect("report.md");
    let knees: Vec<&str> = report
        .lines()
        .skip_while(|l| !l.starts_with("| policy | knee |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert_eq!(knees.len(), 3, "{report}");
    for row in knees {
        assert!(
            !row.contains("not reached"),
            "a policy never saturates: {row}"
        );
    }
    assert!(report.contains("mean turnaround (time units)"), "{report}");
    assert!(
        !report.contains("(s)"),
        "model time is not seconds: {report}"
    );
}

#[test]
fn a_quick_experiments_verdicts_are_marked_indicative() {
    let dir = tempfile::tempdir().expect("tempdir");
    let toml = r#"title = "OO against FCFS"

[defaults]
jobs = 600

[quick]
jobs = 200

[[panel]]
name = "mesh"
workload = "synth:uniform,mesh=16x16,jobs={jobs},rate=1"
sched = ["fcfs", "oo"]
alloc = ["ff"]
x = { values = [1, 4], label = "load factor" }

[[figure]]
name = "wait"
panel = "mesh"
y = "mean_wait_s"

[[claim]]
figure = "wait"
statement = "OO waits no longer than FCFS."
predicate = "below"
a = "oo+ff"
b = "fcfs+ff"
"#;
    let run = |quick: bool, out: &str| {
        let out = experiment(
            dir.path(),
            toml,
            out,
            if quick { &["--quick"] } else { &[] },
        );
        let read = |f: &str| std::fs::read_to_string(out.join(f)).expect(f);
        (read("README.md"), read("index.html"))
    };
    let (readme, page) = run(true, "quick");
    assert!(readme.contains("(indicative: --quick)"), "{readme}");
    assert!(readme.contains(" (indicative) |"), "{readme}");
    assert!(
        readme.contains("these verdicts are indicative only"),
        "{readme}"
    );
    assert!(page.contains("indicative"), "index.html does not say it");
    let (full, _) = run(false, "full");
    assert!(!full.contains("indicative"), "{full}");
}

#[test]
fn a_resumed_sweep_keeps_the_earlier_runs_wall_time_beside_its_own() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out");
    let sweep = |extra: &[&str]| {
        ok(bin()
            .args([
                "sweep",
                "--trace",
                "synth:uniform,mesh=16x16,jobs=400,rate=1",
            ])
            .args([
                "--sched", "fcfs,oo", "--alloc", "ff", "--loads", "1,2", "--quiet",
            ])
            .args(extra)
            .arg("--out")
            .arg(&out));
        let json = std::fs::read(out.join("sweep.json")).expect("sweep.json");
        serde_json::from_slice::<serde_json::Value>(&json).expect("JSON")
    };
    let first = sweep(&[]);
    let second = sweep(&["--resume"]);
    assert_eq!(second["reused"], 4);
    assert_eq!(
        second["earlier_wall_s"],
        serde_json::json!([first["wall_s"]])
    );
    assert!(second["reused_replay_s"].as_f64().unwrap() > 0.0);
    let third = sweep(&["--resume"]);
    assert_eq!(
        third["earlier_wall_s"],
        serde_json::json!([first["wall_s"], second["wall_s"]])
    );
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    let row = report
        .lines()
        .find(|l| l.starts_with("| wall time |"))
        .expect("a wall time row");
    assert!(
        row.contains("this run (4 cells reused, whose replays took ")
            && row.contains("; earlier runs: "),
        "{row}"
    );
}

#[test]
fn a_zero_step_is_blamed_on_the_step() {
    let out = bin()
        .args([
            "sweep",
            "--trace",
            "synth:uniform,mesh=8x8,jobs=50",
            "--sched",
            "fcfs",
        ])
        .args(["--alloc", "ff", "--loads", "0.1:2:0"])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("the step `0`"), "{err}");
    assert!(!err.contains("load factor `0`"), "{err}");
}

#[test]
fn a_misspelt_scheduler_or_allocator_gets_a_suggestion() {
    let run = |sched: &str, alloc: &str| {
        let mut c = bin();
        c.args(["run", "--trace", "synth:uniform,mesh=8x8,jobs=20"])
            .args(["--sched", sched, "--alloc", alloc]);
        c
    };
    fails_with(&mut run("eazy", "ff"), &["did you mean `easy` or `lazy`?"]);
    fails_with(
        &mut run("window:ten", "ff"),
        &["window is written window:K"],
    );
    fails_with(&mut run("fcfs", "mlp"), &["did you mean `mpl`?"]);
}

#[test]
fn run_and_sweep_share_one_load_factor_rule_and_a_negative_one_reaches_it() {
    let run = |lf: &str| {
        let mut c = bin();
        c.args(["run", "--trace", "synth:uniform,mesh=8x8,jobs=20"])
            .args(["--sched", "fcfs", "--alloc", "ff", "--load-factor", lf]);
        c
    };
    let rule = "is not a decimal in (0, 1000] with at most 3 decimals";
    for lf in ["-1", "0", "1e9", "1001", "0.0001"] {
        fails_with(&mut run(lf), &[&format!("load factor `{lf}` {rule}")]);
        fails_with(
            bin()
                .args(["sweep", "--trace", "synth:uniform,mesh=8x8,jobs=20"])
                .args(["--sched", "fcfs", "--alloc", "ff", "--loads", lf]),
            &[&format!("load factor `{lf}` {rule}")],
        );
    }
    fails_with(
        bin().args([
            "stats",
            "--trace",
            "synth:uniform,mesh=8x8,jobs=20",
            "--load-factor",
            "-1",
        ]),
        &[&format!("load factor `-1` {rule}")],
    );
    let out = ok(&mut run("1000"));
    assert!(String::from_utf8_lossy(&out.stdout).contains("load_factor"));
}

#[test]
fn run_on_a_catalogued_log_fills_in_its_default_allocator_as_sweep_does() {
    let dir = tempfile::tempdir().expect("tempdir");
    log_with_requested_times(dir.path(), 8, 8);
    let cat = write(
        dir.path(),
        "catalog.toml",
        "[traces.flat8]\nfile = \"requested-8.swf\"\nfolder = \"l_flat8\"\nmachine = \"flat:8\"\n",
    );
    let out = bin_with(&cat, dir.path())
        .args([
            "run", "--trace", "flat8", "--sched", "easy", "--format", "json",
        ])
        .output()
        .expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("default allocator (catalog entry flat8): --alloc flat"),
        "{err}"
    );
    assert_eq!(json_of(&out.stdout)["allocator"], "flat");
    // A model on a mesh gets its family's allocator, as in a sweep.
    let out = ok(bin()
        .args(["run", "--trace", "synth:uniform,mesh=8x8,jobs=20"])
        .args(["--sched", "fcfs", "--format", "json"]));
    assert_eq!(json_of(&out.stdout)["allocator"], "mpl");
}

#[test]
fn an_experiment_file_says_what_to_write_and_reports_every_mistake_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |text: &str| {
        write(dir.path(), "study.toml", text);
        let out = bin()
            .current_dir(dir.path())
            .args(["experiment", "study.toml", "--quiet"])
            .output()
            .expect("runs");
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let text = "[defaults]\nreplicate = 3\n\n[[panel]]\nname = \"p\"\n\
                workload = \"synth:uniform,mesh=8x8,jobs=50\"\nsched = [\"fcfs\", \"eazy\"]\n\
                alloc = [\"ff\"]\nx = [0.7, 0.9]\n\n[[figure]]\nname = \"f\"\npanel = \"p\"\n\
                y = \"max_wait\"\n";
    let err = run(text);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "error: study.toml:2: `replicate`: invalid type: integer `3`, expected a table such as \
             `replicate = { count = 3 }` or `{ min = 2, max = 30, half_width = 0.05 }`",
            "error: study.toml:9: `x`: x is a table: write `x = { values = [0.7, 0.9] }`",
        ],
        "{err}"
    );
    assert!(!err.contains("ReplicateSpec") && !err.contains("expected a string"));
    // Written as told, the file's other mistakes come out together.
    let fixed = text
        .replace("replicate = 3", "replicate = { count = 3 }")
        .replace("x = [0.7, 0.9]", "x = { values = [0.7, 0.9] }");
    let err = run(&fixed);
    let said: Vec<&str> = err.lines().collect();
    assert_eq!(said.len(), 2, "{err}");
    assert!(said[0].starts_with("error: study.toml:7: `sched`") && said[0].contains("`easy`"));
    assert!(said[1].starts_with("error: study.toml:14: `y`") && said[1].contains("`max_wait_s`"));
}
