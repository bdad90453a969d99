//! The README's commands, run as a new user would: every `pwa-replay …` and `make …` it shows
//! (inline or in a code block) is extracted and exercised here, so that a command added to the
//! README without a way to run it fails this test.
//!
//! * `pwa-replay …` runs as written, in README order, in one scratch directory (so that `plot
//!   --from out/sdsc-96/…` finds the sweep before it), with each `[optional]` group and each
//!   `a|b|c` alternative tried once. Only the sizes shrink: `--loads` becomes `0.5,1` and 10,000
//!   synthetic jobs become 1,000, experiments run their `--quick` budget (from a copy of
//!   `experiments/`). `fetch` downloads from a local stand-in of the archive.
//! * `make replay` runs its own command line (`make replay-run`, the built binary, two loads);
//!   `make install` installs into a scratch prefix; `make test`, `build`, `build-sharing`, `paper`,
//!   `setup`, `bench`, `bench-memory`, `bench-grid`, `fuzz`, `fuzz-smoke`, `fuzz-corpus`, `soak`,
//!   `test-slurm`, `python`, `wheel` and `wheel-test` cannot run inside the test suite (they are it, or take minutes or
//!   root), so their dry run (`make -n`) must show the command they stand for.

use std::collections::BTreeSet;
use std::path::Path;

use crate::catalog::make;
use crate::fetch::{gzip, serve};
use crate::support::{bin, real_logs, small_swf, worker_python};

const README: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"));

/// Every command the README shows: inline code and `sh` code-block lines that start with
/// `pwa-replay`, `make` or `VAR=value make`, de-duplicated, in order; markdown's `\|` unescaped.
fn readme_commands() -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_block = false;
    for line in README.lines() {
        if line.trim_start().starts_with("```") {
            in_block = !in_block;
            continue;
        }
        let candidates: Vec<String> = if in_block {
            vec![line.split(" #").next().unwrap_or("").trim().to_string()]
        } else {
            line.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        for c in candidates {
            let c = c.replace("\\|", "|");
            let words: Vec<&str> = c.split_whitespace().collect();
            let program = words.iter().find(|w| !is_assignment(w));
            let is_command = matches!(program, Some(&"pwa-replay" | &"make")) && words.len() > 1;
            if is_command && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(k, _)| {
        !k.is_empty() && k.chars().all(|c| c.is_ascii_uppercase() || c == '_')
    })
}

/// The runs a command line stands for: the base (first alternatives, no optional groups), then
/// each other alternative, then each optional group's alternatives, one at a time.
fn variants(cmd: &str) -> Vec<Vec<String>> {
    let (mut base, mut groups): (Vec<String>, Vec<Vec<String>>) = (Vec::new(), Vec::new());
    let mut group: Option<Vec<String>> = None;
    for w in cmd.split_whitespace() {
        match (&mut group, w.strip_prefix('[')) {
            (None, Some(rest)) => group = Some(vec![rest.to_string()]),
            (Some(g), _) => g.push(w.to_string()),
            (None, None) => base.push(w.to_string()),
        }
        if let Some(g) = &mut group
            && let Some(last) = g.last_mut()
            && let Some(w) = last.strip_suffix(']')
        {
            *last = w.to_string();
            groups.push(group.take().unwrap_or_default());
        }
    }
    let first = |words: &[String]| -> Vec<String> {
        words
            .iter()
            .map(|w| w.split('|').next().unwrap_or(w).to_string())
            .collect()
    };
    let mut runs = vec![first(&base)];
    for (i, w) in base.iter().enumerate() {
        for alt in w.split('|').skip(1) {
            let mut r = first(&base);
            r[i] = alt.to_string();
            runs.push(r);
        }
    }
    for g in &groups {
        for (i, w) in g.iter().enumerate() {
            for alt in w.split('|') {
                let mut extra = first(g);
                extra[i] = alt.to_string();
                runs.push([first(&base), extra].concat());
            }
        }
    }
    runs.dedup();
    runs
}

/// Smaller sizes, same command: two load factors, 1,000 synthetic jobs, an experiment's `--quick`
/// budget.
fn quick(mut args: Vec<String>) -> Vec<String> {
    if args.get(1).is_some_and(|a| a == "experiment") && !args.iter().any(|a| a == "--quick") {
        args.push("--quick".into());
    }
    for i in 1..args.len() {
        match args[i - 1].as_str() {
            "--loads" => args[i] = "0.5,1".into(),
            "--jobs" => args[i] = "1000".into(),
            _ => {}
        }
        args[i] = args[i].replace("jobs=10000", "jobs=1000");
    }
    args
}

#[test]
fn the_readme_shows_the_front_doors() {
    let cmds = readme_commands();
    for must in [
        "make replay TRACE=sdsc-96",
        "make test",
        "pwa-replay catalog [--format json]",
        "pwa-replay stats --trace w.swf",
        "pwa-replay completions bash|zsh|fish",
        "pwa-replay man",
        "make install",
    ] {
        assert!(
            cmds.iter().any(|c| c == must),
            "README lacks `{must}`: {cmds:#?}"
        );
    }
}

#[test]
fn optional_groups_and_alternatives_expand_one_at_a_time() {
    let runs = variants("pwa-replay stats --trace x [--format table|json] [--log-y]");
    let shown: Vec<String> = runs.iter().map(|r| r.join(" ")).collect();
    assert_eq!(
        shown,
        [
            "pwa-replay stats --trace x",
            "pwa-replay stats --trace x --format table",
            "pwa-replay stats --trace x --format json",
            "pwa-replay stats --trace x --log-y",
        ]
    );
    let shells = variants("pwa-replay completions bash|zsh");
    assert_eq!(shells.len(), 2);
    assert_eq!(shells[1], ["pwa-replay", "completions", "zsh"]);
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn every_readme_command_runs() {
    let shared = real_logs();
    let scratch = tempfile::tempdir().expect("tempdir");
    let cwd = scratch.path();
    let archive = serve(
        vec![(
            "/l_sdsc_par/SDSC-Par-1995-3.1-cln.swf.gz".to_string(),
            gzip(small_swf().as_bytes()),
        )],
        1,
    );
    // The commands run from a checkout: its experiment files (and their Python policies) are there.
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../experiments"),
        &cwd.join("experiments"),
    );
    let mut replayed = BTreeSet::new();
    for cmd in readme_commands() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        if words[0] == "pwa-replay" {
            for run in variants(&cmd) {
                let args = quick(run)[1..].to_vec();
                eprintln!("README: pwa-replay {}", args.join(" "));
                let mut c = bin();
                if let Some(python) = worker_python() {
                    // The Python series of experiments/python-policies.toml.
                    c.env("PWA_PYTHON", python);
                }
                let out = c
                    .current_dir(cwd)
                    .env("PWA_TRACES", &shared)
                    .env("PWA_ARCHIVE_URL", &archive)
                    .env_remove("PWA_OFFLINE")
                    .args(&args)
                    .output()
                    .expect("runs");
                assert!(
                    out.status.success(),
                    "README command `pwa-replay {}` failed: {}",
                    args.join(" "),
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        } else {
            exercise_make(&cmd, cwd, &shared, &mut replayed);
        }
    }
    // `fetch` stores into ./traces by default
    assert!(cwd.join("traces/SDSC-Par-1995-3.1-cln.swf.gz").is_file());
}

/// Copies the files of `from` into `to`, folders too.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for e in std::fs::read_dir(from).expect("a folder") {
        let e = e.expect("an entry");
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).expect("copies");
        }
    }
}

/// Runs (or dry-runs) a `make` command of the README; see the module docs. `replayed` holds the
/// traces `make replay` already swept (`make replay` alone is `TRACE=sdsc-96`).
fn exercise_make(cmd: &str, cwd: &Path, traces: &Path, replayed: &mut BTreeSet<String>) {
    let words: Vec<&str> = cmd.split_whitespace().collect();
    let vars: Vec<&str> = words.iter().copied().filter(|w| is_assignment(w)).collect();
    let target = words
        .iter()
        .skip_while(|w| **w != "make")
        .nth(1)
        .copied()
        .unwrap_or_else(|| panic!("`{cmd}`: no target"));
    let dry = |expect: &str| {
        let out = make(target, &[&["-n"][..], &vars].concat(), Some(traces))
            .output()
            .expect("make runs");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && text.contains(expect),
            "`make -n {target}`: {text}"
        );
    };
    match target {
        "replay" if vars.contains(&"TRACE=NAME") => {
            // every catalogued log: catalog::make_replay_works_for_every_catalogued_log_…
        }
        "replay" => {
            let trace = vars
                .iter()
                .find_map(|v| v.strip_prefix("TRACE="))
                .unwrap_or("sdsc-96");
            if !replayed.insert(trace.to_string()) {
                return;
            }
            let out_dir = cwd.join("make-replay").join(trace);
            let out = format!("OUT={}", out_dir.display());
            let args = [&vars[..], &["LOADS=0.5,1.0", &out][..]].concat();
            let o = make("replay-run", &args, Some(traces))
                .output()
                .expect("make runs");
            assert!(
                o.status.success(),
                "`{cmd}`: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(out_dir.join("report.md").is_file(), "`{cmd}`");
            dry("sweep --trace");
        }
        "install" => {
            let prefix = format!("PREFIX={}", cwd.join("prefix").display());
            let o = make("install-files", &[&prefix[..]], None)
                .output()
                .expect("make runs");
            assert!(
                o.status.success(),
                "`{cmd}`: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            dry("install -m 755");
        }
        "test" => dry("cargo test --locked"),
        "build" => dry("--bin pwa-replay"),
        "build-sharing" => dry("tools/build-sharing.py"),
        "fuzz" => dry("fuzz/run.sh"),
        "fuzz-smoke" => dry("fuzz/run.sh 10"),
        "fuzz-corpus" => dry("fuzz/seed-corpus.sh"),
        "soak" => dry("soak::soak"),
        "paper" if vars.contains(&"PAPER_QUICK=1") => dry("paper --quick"),
        "paper" => dry("--out out/paper"),
        "setup" => dry("fonts-dejavu-core"),
        "bench" => dry("cargo bench"),
        "bench-memory" => dry("tools/bench-memory.sh"),
        "bench-grid" => dry("--loads 0.1:2.0:0.1"),
        "test-slurm" => dry("tests/slurm/run.sh"),
        "wheel-test" => dry("tools/wheel-check.py"),
        "wheel" if vars.contains(&"PROFILE=release") => {
            dry("maturin build --quiet --locked --profile release")
        }
        "python" => {
            // Once built, `make -n python` has nothing to do: `-B` shows what a build runs.
            let out = make(target, &["-n", "-B"], Some(traces))
                .output()
                .expect("make runs");
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success() && text.contains("maturin develop"),
                "`make -n -B python`: {text}"
            );
        }
        other => panic!("the README shows `{cmd}`, but readme.rs does not exercise `make {other}`"),
    }
}

/// `` `a,b` × `c` `` and, with estimates, `` × estimates `x,y` ``: how the README and
/// docs/OUTPUTS.md write a default grid.
fn grid_text(sched: &[String], alloc: &[String], estimate: &[String]) -> String {
    let mut s = format!("`{}` × `{}`", sched.join(","), alloc.join(","));
    if !estimate.is_empty() {
        s += &format!(" × estimates `{}`", estimate.join(","));
    }
    s
}

/// Words of a JSON array of strings.
fn words(v: &serde_json::Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|w| w.as_str().unwrap().to_string()).collect())
        .unwrap_or_default()
}

/// Found as a new user would: the README once promised grids the catalog did not have. Each row
/// of the README's catalog table shows its entries' grid as the catalog has it, and the README and
/// docs/OUTPUTS.md show each machine family's grid as the library defines it.
#[test]
fn the_readme_says_what_each_log_and_machine_family_sweeps_by_default() {
    use pwa_replay::catalog::DefaultGrid;
    let outputs = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/OUTPUTS.md"));
    let v = crate::support::json_ok(bin().args(["catalog", "--format", "json"]));
    let traces = v["traces"].as_array().expect("traces");
    let rows: Vec<&str> = README
        .lines()
        .filter(|l| l.starts_with("| `") && l.contains(" × `"))
        .collect();
    assert!(rows.len() >= 5, "the README's catalog table: {rows:?}");
    for row in rows {
        let first = row.split(" | ").next().unwrap();
        for name in first.split('`').skip(1).step_by(2) {
            let t = traces
                .iter()
                .find(|t| t["name"] == name)
                .unwrap_or_else(|| panic!("README row names `{name}`, not in the catalog"));
            let grid = grid_text(
                &words(&t["sched"]),
                &words(&t["alloc"]),
                &words(&t["estimate"]),
            );
            assert!(
                row.ends_with(&format!("| {grid} |")),
                "{name}: {row} should end with {grid}"
            );
        }
    }
    for machine in ["mesh:4x4", "hypercube:3", "flat:8", "torus:2x2x2"] {
        let g = DefaultGrid::for_machine(machine.parse().unwrap());
        let sched: Vec<String> = g.schedulers.iter().map(|s| s.to_string()).collect();
        let alloc: Vec<String> = g.allocators.iter().map(|a| a.to_string()).collect();
        let estimate: Vec<String> = g.estimates.iter().map(|e| e.to_string()).collect();
        let grid = grid_text(&sched, &alloc, &estimate);
        let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat(README).contains(&grid),
            "README lacks {machine}'s grid {grid}"
        );
        assert!(
            flat(outputs).contains(&grid),
            "docs/OUTPUTS.md lacks {machine}'s grid {grid}"
        );
    }
}
