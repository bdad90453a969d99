//! `pwa-replay paper --quick` and `pwa-replay synth`: the figures' files exist in the promised
//! format, and the papers' qualitative claims hold on the quick configuration, read from the CSVs
//! (independently of the verdicts the command writes itself).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use tempfile::TempDir;

use crate::support::{bin, fails_with, swf_jobs};

/// `(series, x) → (y, ci_low, ci_high)` of one figure.
type Curves = BTreeMap<String, Vec<(f64, f64, f64, f64)>>;

fn read_csv(path: &Path) -> Curves {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("series,x,y,ci_low,ci_high"),
        "{}",
        path.display()
    );
    let mut out = Curves::new();
    for l in lines {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 5, "{l}");
        let n: Vec<f64> = f[1..].iter().map(|v| v.parse().unwrap()).collect();
        assert!(
            n[2] <= n[1] && n[1] <= n[3],
            "CI must contain the mean: {l}"
        );
        out.entry(f[0].to_string())
            .or_default()
            .push((n[0], n[1], n[2], n[3]));
    }
    out
}

/// One quick run shared by the tests: the figures the claims need, no traces.
fn quick() -> &'static Path {
    static DIR: OnceLock<TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = TempDir::new().unwrap();
        bin()
            .args(["paper", "--quick", "--no-traces", "--quiet", "--out"])
            .arg(dir.path())
            .args([
                "--only",
                "fig2,fig3,fig4,fig6,bypass-queue/fig4a,bypass-queue/fig4b",
            ])
            .assert()
            .success();
        dir
    })
    .path()
}

fn fig(paper: &str, id: &str) -> Curves {
    let dir = quick().join(paper);
    assert!(
        dir.join(format!("{id}.png")).is_file(),
        "{id}.png beside {id}.csv"
    );
    read_csv(&dir.join(format!("{id}.csv")))
}

fn y(c: &Curves, series: &str, x: f64) -> Option<f64> {
    c.get(series)?.iter().find(|p| p.0 == x).map(|p| p.1)
}

/// First x at which a curve exceeds 5 × its first value (infinity when never).
fn saturation(c: &Curves, series: &str) -> f64 {
    let pts = &c[series];
    pts.iter()
        .find(|p| p.1 > 5.0 * pts[0].1)
        .map_or(f64::INFINITY, |p| p.0)
}

#[test]
fn figures_have_the_paper_series_labels() {
    let f = fig("window-k", "fig2");
    let labels: Vec<&str> = f.keys().map(String::as_str).collect();
    for s in [
        "fcfs+mpl",
        "oo+mpl",
        "oocb:8+mpl",
        "delay+mpl",
        "window:10+mpl",
        "window:120+mpl",
        "window:240+mpl",
    ] {
        assert!(labels.contains(&s), "{s} in {labels:?}");
    }
    let u = fig("window-k", "fig6");
    assert!(
        u.values().flatten().all(|p| (0.0..=1.0).contains(&p.1)),
        "utilization is a fraction"
    );
    let readme = std::fs::read_to_string(quick().join("README.md")).unwrap();
    assert!(readme.contains("| figure | the paper states | we measured | verdict |"));
}

/// window-k §5.2: FCFS saturates first (Figs. 2 and 4).
#[test]
fn fcfs_saturates_first() {
    for id in ["fig2", "fig4"] {
        let f = fig("window-k", id);
        let fcfs = saturation(&f, "fcfs+mpl");
        for s in f.keys() {
            assert!(
                fcfs <= saturation(&f, s),
                "{id}: FCFS at {fcfs}, {s} at {}",
                saturation(&f, s)
            );
        }
        assert!(fcfs < saturation(&f, "oo+mpl"), "{id}");
    }
}

/// window-k §5.2: OO has the best mean turnaround (Figs. 2 and 4): never worse than another
/// series by more than 2% unless the 95% CIs overlap (at light load all policies tie).
#[test]
fn oo_has_the_best_mean_turnaround() {
    for id in ["fig2", "fig4"] {
        let f = fig("window-k", id);
        for &(x, oo, oo_low, _) in &f["oo+mpl"] {
            for (s, pts) in &f {
                let Some(&(_, other, _, other_high)) = pts.iter().find(|p| p.0 == x) else {
                    continue;
                };
                assert!(
                    oo <= other * 1.02 || oo_low <= other_high,
                    "{id} x={x}: OO {oo} vs {s} {other}"
                );
            }
        }
    }
}

/// window-k §5.2 (Fig. 3): under heavy uniform-decreasing load Window-240's maximum wait is below
/// OO's.
#[test]
fn window_240_max_wait_below_oo_under_heavy_uniform_decreasing_load() {
    let f = fig("window-k", "fig3");
    let heavy: Vec<f64> = f["oo+mpl"]
        .iter()
        .map(|p| p.0)
        .filter(|&x| x >= 6.0)
        .collect();
    assert!(!heavy.is_empty());
    for x in heavy {
        let (w, oo) = (
            y(&f, "window:240+mpl", x).unwrap(),
            y(&f, "oo+mpl", x).unwrap(),
        );
        assert!(w < oo, "x={x}: Window-240 {w} vs OO {oo}");
    }
}

/// bypass §3.2 (Fig. 4): FO gives a shorter turnaround than FF, uniform and normal sides.
#[test]
fn fixed_orientation_beats_first_fit() {
    for id in ["fig4a", "fig4b"] {
        let f = fig("bypass-queue", id);
        let mut strictly = 0;
        for &(x, fo, _, _) in &f["fcfs+fo"] {
            let ff = y(&f, "fcfs+ff", x).unwrap();
            assert!(fo <= ff * 1.02, "{id} traffic {x}: FO {fo} vs FF {ff}");
            strictly += usize::from(fo < ff * 0.98);
        }
        assert!(strictly > 0, "{id}: FO must be clearly better somewhere");
    }
}

/// `synth` of 200 uniform-decreasing jobs at rate 4.5, seed 7, with `extra`, up to `--out`.
fn synth_ud(extra: &[&str]) -> assert_cmd::Command {
    let mut c = bin();
    c.args(["synth", "--model", "uniform-decreasing"])
        .args(extra)
        .args(["--jobs", "200", "--rate", "4.5", "--seed", "7", "--out"]);
    c
}

#[test]
fn synth_writes_swf_with_the_model_in_the_header() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("ud.swf.txt");
    synth_ud(&["--mesh", "32x32"]).arg(&out).assert().success();
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("; Note: synthetic model uniform-decreasing"));
    let jobs = swf_jobs(&text);
    assert_eq!(jobs.len(), 200);
    assert!(
        jobs.iter()
            .all(|j| j.len() == 18 && (1..=1024).contains(&j[4]) && j[4] == j[7])
    );
    assert!(
        jobs.windows(2).all(|p| p[0][1] <= p[1][1]),
        "submit times sorted"
    );
    // Same seed, same file.
    let again = dir.path().join("again.swf.txt");
    synth_ud(&[]).arg(&again).assert().success();
    assert_eq!(text, std::fs::read_to_string(&again).unwrap());
}

#[test]
fn synth_rejects_bad_parameters() {
    // (model and mesh arguments, what stderr must say)
    for (args, needle) in [
        (
            &["--model", "zipf"][..],
            "uniform, uniform-decreasing, normal",
        ),
        (
            &["--model", "uniform-decreasing", "--mesh", "16x16"][..],
            "l3 < L",
        ),
    ] {
        fails_with(
            bin().arg("synth").args(args).args(["--rate", "1"]),
            &[needle],
        );
    }
}

/// The figures do not depend on the number of worker threads (replications are decided prefix by
/// prefix, lines are independent).
#[test]
fn one_thread_and_two_threads_give_identical_csvs() {
    let run = |threads: &str| {
        let dir = TempDir::new().unwrap();
        bin()
            .args([
                "paper",
                "--quick",
                "--no-traces",
                "--quiet",
                "--only",
                "fig9,bypass-queue/fig5",
            ])
            .args(["--threads", threads, "--out"])
            .arg(dir.path())
            .assert()
            .success();
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        (read("window-k/fig9.csv"), read("bypass-queue/fig5.csv"))
    };
    assert_eq!(run("1"), run("2"));
}

/// `paper --resume` after a finished (or interrupted) run reuses every cached replica of the
/// experiment files and writes the same figures.
#[test]
fn a_resumed_paper_reuses_its_replicas_and_writes_the_same_figures() {
    let dir = TempDir::new().unwrap();
    let run = |extra: &[&str]| {
        let out = bin()
            .args(["paper", "--quick", "--no-traces", "--only", "fig9"])
            .args(extra)
            .arg("--out")
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let csv = std::fs::read_to_string(dir.path().join("window-k/fig9.csv")).unwrap();
        (String::from_utf8_lossy(&out.stderr).into_owned(), csv)
    };
    let (first, before) = run(&[]);
    assert!(
        first.contains(" reused)") && !first.contains("(0 simulated"),
        "{first}"
    );
    let (second, after) = run(&["--resume", "--threads", "1"]);
    assert!(second.contains("(0 simulated, "), "{second}");
    assert_eq!(before, after);
}

/// lazy-scheduling-hypercube.md: every figure (3–10) and Table I are written in the promised
/// layout on the quick configuration, and FCFS has the largest queueing delay at the highest load
/// with hyperexponential residence (Fig. 4a).
#[test]
fn lazy_figures_and_table_are_written() {
    let dir = TempDir::new().unwrap();
    let ids: Vec<String> = [
        "3a", "3b", "4a", "4b", "5a", "5b", "6a", "6b", "7a", "7b", "8a", "8b", "9a", "9b", "10a",
        "10b",
    ]
    .iter()
    .map(|i| format!("lazy/fig{i}"))
    .chain(["lazy/table1".to_string()])
    .collect();
    bin()
        .args(["paper", "--quick", "--no-traces", "--quiet", "--out"])
        .arg(dir.path())
        .args(["--only", &ids.join(",")])
        .assert()
        .success();
    let lazy = dir.path().join("lazy");
    for id in ids.iter().filter(|i| i.contains("fig")) {
        let stem = id.trim_start_matches("lazy/");
        assert!(lazy.join(format!("{stem}.png")).is_file(), "{stem}.png");
        let curves = read_csv(&lazy.join(format!("{stem}.csv")));
        assert!(!curves.is_empty(), "{stem} has data");
        if ["fig5a", "fig6a", "fig7b"].contains(&stem) {
            let all = curves.values().flatten();
            assert!(
                all.clone().all(|p| (0.0..=1.0).contains(&p.1)),
                "{stem}: U is a fraction"
            );
        }
    }
    let f4 = read_csv(&lazy.join("fig4a.csv"));
    let top = f4["lazy+buddy"].iter().map(|p| p.0).fold(0.0, f64::max);
    assert!(
        y(&f4, "fcfs+buddy", top) >= y(&f4, "lazy+buddy", top),
        "fig4a at load {top}"
    );
    let f10 = read_csv(&lazy.join("fig10a.csv"));
    assert!(f10.contains_key("lazy+freelist") && f10.contains_key("fcfs+freelist"));
    let table = std::fs::read_to_string(lazy.join("table1.csv")).unwrap();
    let mut lines = table.lines();
    assert_eq!(lines.next(), Some("case,load,scheduler,power"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(
        rows.len(),
        2 * 3 * 3,
        "cases A, B × fcfs, scan-up, lazy × 3 quick loads"
    );
    assert!(
        rows.iter()
            .all(|r| r.len() == 4 && r[3].parse::<f64>().is_ok())
    );
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    assert!(readme.contains("lazy/fig3a") && readme.contains("## Lazy scheduling on hypercubes"));
    assert!(readme.contains("lazy/table1"), "Table I's claims");
    // The lazy figures are an experiment file: a rerun with --resume simulates nothing and writes
    // the same figures and table.
    let fig8 = std::fs::read_to_string(lazy.join("fig8b.csv")).unwrap();
    let out = bin()
        .args(["paper", "--quick", "--no-traces", "--resume", "--out"])
        .arg(dir.path())
        .args(["--only", &ids.join(",")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("(0 simulated, "), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(lazy.join("fig8b.csv")).unwrap(),
        fig8
    );
    assert_eq!(
        std::fs::read_to_string(lazy.join("table1.csv")).unwrap(),
        table
    );
}

/// `--lazy-scan LABEL` sets the lazy file's `scan` parameter: every scan series and claim reads
/// the other label.
#[test]
fn lazy_scan_runs_the_lazy_figures_under_another_reading() {
    let dir = TempDir::new().unwrap();
    bin()
        .args(["paper", "--quick", "--no-traces", "--quiet", "--out"])
        .arg(dir.path())
        .args(["--only", "lazy/fig6b", "--lazy-scan", "scan-up:join"])
        .assert()
        .success();
    let f6 = read_csv(&dir.path().join("lazy/fig6b.csv"));
    let labels: Vec<&String> = f6.keys().collect();
    assert_eq!(labels, ["lazy+buddy", "scan-up:join+buddy"]);
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.contains("lazy/fig6b"))
        .expect("the fig6b claim");
    assert!(row.contains("scan-up:join+buddy"), "{row}");
}

/// coscheduling-time-sharing.md: the five figures in the promised layout on the quick
/// configuration — response against ρ for both policies, the ten deciles of waiting at ρ 0.5 and
/// 0.7, the gang internals under their own names — and the report's eight statements in the
/// README; a rerun with --resume simulates nothing and writes the same figures.
#[test]
fn coscheduling_figures_and_verdicts_are_written() {
    let dir = TempDir::new().unwrap();
    let ids = [
        "fig4_2",
        "fig4_3",
        "wait_by_service_rho50",
        "wait_by_service_rho70",
        "gang_classes",
    ]
    .map(|i| format!("coscheduling/{i}"));
    let run = |resume: bool| {
        let mut cmd = bin();
        cmd.args(["paper", "--quick", "--no-traces", "--out"])
            .arg(dir.path())
            .args(["--only", &ids.join(",")]);
        if resume {
            cmd.arg("--resume");
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    run(false);
    let cosched = dir.path().join("coscheduling");
    let both = ["gang+ff", "largest-first+ff"];
    for id in &ids {
        let stem = id.trim_start_matches("coscheduling/");
        assert!(cosched.join(format!("{stem}.png")).is_file(), "{stem}.png");
    }
    for stem in ["fig4_2", "fig4_3"] {
        let c = read_csv(&cosched.join(format!("{stem}.csv")));
        assert_eq!(c.keys().map(String::as_str).collect::<Vec<_>>(), both);
        assert!(
            c.values()
                .all(|pts| pts.iter().map(|p| p.0).eq([0.3, 0.5, 0.7]))
        );
    }
    for stem in ["wait_by_service_rho50", "wait_by_service_rho70"] {
        let c = read_csv(&cosched.join(format!("{stem}.csv")));
        assert_eq!(c.keys().map(String::as_str).collect::<Vec<_>>(), both);
        assert!(
            c.values()
                .all(|pts| pts.iter().map(|p| p.0).eq((1..=10).map(f64::from)))
        );
    }
    let g = read_csv(&cosched.join("gang_classes.csv"));
    assert_eq!(
        g.keys().map(String::as_str).collect::<Vec<_>>(),
        ["mean classes", "suspensions per job"]
    );
    assert!(g["mean classes"].iter().all(|p| p.1 > 0.0));
    let readme = std::fs::read_to_string(dir.path().join("README.md")).unwrap();
    let rows: Vec<&str> = readme
        .lines()
        .filter(|l| l.starts_with("| [coscheduling/"))
        .collect();
    assert_eq!(rows.len(), 8, "{readme}");
    assert!(rows[0].contains("never has a worse mean response time") && rows[0].contains("fig4_2"));
    assert!(rows[7].contains("independent of the service demand (ρ = 0.7)"));
    let fig = std::fs::read_to_string(cosched.join("wait_by_service_rho70.csv")).unwrap();
    let stderr = run(true);
    assert!(stderr.contains("(0 simulated, "), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(cosched.join("wait_by_service_rho70.csv")).unwrap(),
        fig
    );
}
