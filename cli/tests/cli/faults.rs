//! Fault injection on `pwa-replay sweep` (docs/OUTPUTS.md, "Robustness"): SIGKILL at seeded random
//! moments then `--resume`, SIGINT, two sweeps into one directory, damaged cache entries, and an
//! output directory that is full, read-only or removed mid-run. Full and read-only use a small
//! tmpfs (root and `mount` needed; skipped with a note otherwise — the write layer's ENOSPC path
//! is also unit-tested in `report::atomic`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{fields, ok};

/// 3000 synthetic jobs × 20 load factors × 2 schedulers: about a second on 2 cores, 40 cells.
const TRACE: &str = "synth:uniform,mesh=8x8,jobs=3000,rate=1";
const WALL_CLOCK: [&str; 2] = ["alloc_time_s", "sim_wall_s"];

fn sweep(out: &Path, extra: &[&str]) -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("pwa-replay"));
    c.env("PWA_OFFLINE", "1")
        .env_remove("PWA_TRACES")
        .env_remove("PWA_CATALOG")
        .env_remove("PWA_REPLAY_FONT")
        .args([
            "sweep", "--trace", TRACE, "--sched", "fcfs,oo", "--alloc", "ff",
        ])
        .args([
            "--loads",
            "0.1:2.0:0.1",
            "--threads",
            "2",
            "--quiet",
            "--out",
        ])
        .arg(out)
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    c
}

fn spawn(out: &Path, extra: &[&str]) -> Child {
    sweep(out, extra).spawn().expect("starts")
}

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("waits")
}

/// summary.csv without the wall-clock columns, as text.
fn table(out: &Path) -> String {
    let text = std::fs::read_to_string(out.join("summary.csv")).expect("summary.csv");
    let mut lines = text.lines().map(fields);
    let header = lines.next().expect("header");
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !WALL_CLOCK.contains(&header[i].as_str()))
        .collect();
    std::iter::once(header)
        .chain(lines)
        .map(|r| {
            keep.iter()
                .map(|&i| r[i].as_str())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Names containing `.tmp-` anywhere under `dir`.
fn temporaries(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if e.path().is_dir() {
            found.extend(temporaries(&e.path()));
        } else if name.contains(".tmp-") {
            found.push(name);
        }
    }
    found
}

fn cells(out: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(out.join("cells"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default()
}

fn config(out: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(out.join("sweep.json")).expect("sweep.json")).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Deterministic fractions in (0.05, 0.95) from a seed (an LCG: no dependence on the clock).
fn fractions(seed: u64, n: usize) -> Vec<f64> {
    let mut x = seed;
    (0..n)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            0.05 + 0.9 * ((x >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

fn signal(child: &Child, sig: i32) {
    let pid = libc::pid_t::try_from(child.id()).unwrap();
    // SAFETY: sends a signal to our own child process.
    assert_eq!(unsafe { libc::kill(pid, sig) }, 0);
}

#[test]
fn sigkill_at_random_moments_then_resume_gives_the_uninterrupted_table() {
    let tmp = tempfile::tempdir().unwrap();
    let reference = tmp.path().join("ref");
    let t0 = Instant::now();
    assert!(sweep(&reference, &[]).status().unwrap().success());
    let full = t0.elapsed();
    let want = table(&reference);
    let mut interrupted = 0;
    for (i, f) in fractions(15, 10).into_iter().enumerate() {
        let out = tmp.path().join(format!("kill-{i}"));
        let mut child = spawn(&out, &[]);
        std::thread::sleep(full.mul_f64(f));
        child.kill().expect("SIGKILL");
        let killed = finish(child);
        interrupted += usize::from(!killed.status.success());
        let again = sweep(&out, &["--resume"]).output().unwrap();
        assert!(again.status.success(), "trial {i}: {}", stderr(&again));
        assert_eq!(
            table(&out),
            want,
            "trial {i} (killed after {f:.2} of a run)"
        );
        assert_eq!(temporaries(&out), Vec::<String>::new(), "trial {i}");
    }
    assert!(
        interrupted >= 5,
        "only {interrupted} of 10 kills landed mid-run"
    );
}

#[test]
fn sigint_keeps_finished_cells_and_hints_at_resume() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let child = spawn(&out, &[]);
    // Interrupt once some cells are in the cache.
    let deadline = Instant::now() + Duration::from_secs(20);
    while cells(&out).len() < 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    signal(&child, libc::SIGINT);
    let o = finish(child);
    let err = stderr(&o);
    if o.status.success() {
        // The sweep finished between the last poll and the signal: nothing to check.
        eprintln!("the sweep ended before SIGINT: {err}");
        return;
    }
    assert_eq!(o.status.code(), Some(130), "{err}");
    let line = err.lines().last().unwrap_or_default();
    let kept: usize = line
        .strip_prefix("interrupted: ")
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no interrupt line: {err}"));
    assert!(
        line.ends_with(" of 40 cells finished and kept; rerun with --resume to continue"),
        "every cell of a load list is planned: {line}"
    );
    assert_eq!(
        cells(&out).len(),
        kept,
        "every finished cell is in the cache"
    );
    assert!(kept < 40, "{line}");
    assert!(
        !out.join("summary.csv").exists(),
        "no table of a partial sweep"
    );
    let again = sweep(&out, &["--resume"]).output().unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(config(&out)["reused"], kept);
}

#[test]
fn a_second_sweep_into_the_same_directory_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let first = spawn(&out, &[]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while cells(&out).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = sweep(&out, &[]).output().unwrap();
    let first_pid = first.id();
    let done = finish(first);
    assert!(done.status.success(), "{}", stderr(&done));
    assert!(!second.status.success(), "two sweeps in one directory");
    let err = stderr(&second);
    assert!(err.contains(&out.display().to_string()), "{err}");
    assert!(
        err.contains(&format!("in use by another sweep (pid {first_pid})")),
        "{err}"
    );
    // The lock went with the first sweep.
    ok(&mut assert_cmd::Command::from_std(sweep(
        &out,
        &["--resume"],
    )));
}

#[test]
fn damaged_cache_entries_are_recomputed_never_trusted() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    assert!(sweep(&out, &[]).status().unwrap().success());
    let want = table(&out);
    let mut files = cells(&out);
    files.sort();
    let text = std::fs::read_to_string(&files[0]).unwrap();
    std::fs::write(&files[0], &text[..text.len() / 2]).unwrap();
    std::fs::write(&files[1], b"\0\0garbage").unwrap();
    let edited = std::fs::read_to_string(&files[2]).unwrap();
    let edited = edited.replacen("\"mean_turnaround_s\": \"", "\"mean_turnaround_s\": \"1", 1);
    std::fs::write(&files[2], edited).unwrap();
    let o = sweep(&out, &["--resume"]).output().unwrap();
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err.matches("damaged cache entry, recomputed").count(),
        3,
        "{err}"
    );
    assert!(err.contains("recomputed 3 damaged cache entries"), "{err}");
    assert_eq!(config(&out)["simulated"], 3);
    assert_eq!(table(&out), want);
}

#[test]
fn an_output_directory_removed_mid_run_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let child = spawn(&out, &[]);
    let deadline = Instant::now() + Duration::from_secs(20);
    while cells(&out).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    while out.exists() && std::fs::remove_dir_all(&out).is_err() {}
    let o = finish(child);
    let err = stderr(&o);
    if o.status.success() {
        eprintln!("the sweep ended before the removal: {err}");
        return;
    }
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("{} was removed or replaced", out.display())),
        "{err}"
    );
}

/// A tmpfs of `size` mounted on a fresh directory, unmounted on drop; `None` where mounting is
/// not allowed.
struct Tmpfs(PathBuf, #[allow(dead_code)] tempfile::TempDir);

impl Tmpfs {
    fn new(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().ok()?;
        let at = dir.path().join("mnt");
        std::fs::create_dir(&at).ok()?;
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("skipped: cannot mount a tmpfs here (needs root)");
            return None;
        }
        Some(Tmpfs(at, dir))
    }

    fn remount(&self, opts: &str) {
        let status = Command::new("mount")
            .args(["-o", &format!("remount,{opts}")])
            .arg(&self.0)
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_file_system_is_an_error_naming_the_file_and_keeps_finished_cells() {
    let Some(fs) = Tmpfs::new("24k") else { return };
    let out = fs.0.join("out");
    let o = sweep(&out, &[]).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains(&out.display().to_string()), "{err}");
    assert_eq!(temporaries(&out), Vec::<String>::new());
    let kept = cells(&out);
    for c in &kept {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(c).unwrap())
            .unwrap_or_else(|e| panic!("{} is partial: {e}", c.display()));
        assert!(v["checksum"].is_string());
    }
    assert!(!out.join("summary.csv").exists());
    fs.remount("size=8m");
    let again = sweep(&out, &["--resume"]).output().unwrap();
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(
        config(&out)["reused"],
        kept.len(),
        "nothing finished was lost"
    );
}

#[test]
fn a_read_only_output_directory_is_an_error_naming_it_and_changes_nothing() {
    let Some(fs) = Tmpfs::new("8m") else { return };
    let out = fs.0.join("out");
    assert!(sweep(&out, &[]).status().unwrap().success());
    let before = std::fs::read(out.join("summary.csv")).unwrap();
    fs.remount("ro");
    let o = sweep(&out, &[]).output().unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&out.display().to_string()), "{err}");
    assert!(err.contains("Read-only file system"), "{err}");
    assert_eq!(std::fs::read(out.join("summary.csv")).unwrap(), before);
    fs.remount("rw");
}
