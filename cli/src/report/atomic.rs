//! Interrupt-safe file writes: write to a temporary name in the same directory, then rename; and
//! the removal of temporaries a killed process left behind ([`remove_stale_temporaries`]).
//!
//! Temporary names contain `.tmp-<pid>` (`summary.csv.tmp-812-0`, `turnaround.tmp-812.png`).

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;

/// Writes `path` through `write` into `path.tmp-<pid>-<n>`, flushes, then renames it over `path`, so a
/// reader (or a `--resume` after Ctrl-C) sees either the old file or the complete new one. No
/// `fsync`: the guarantee is against an interrupted process, not a power cut (an `fsync` per cell
/// cache file cost seconds per sweep).
pub fn write_atomic(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let tmp = temp_name(path);
    let result = (|| {
        let file = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        let mut w = BufWriter::new(file);
        write(&mut w)?;
        w.flush()?;
        fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("writing {}", path.display()))
}

/// Writes bytes atomically.
pub fn write_bytes(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic(path, |w| Ok(w.write_all(bytes)?))
}

/// Removes, under `dir` (recursively), every temporary (`*.tmp-<pid>*`) whose process is no longer
/// running: what a `SIGKILL` or a power cut left behind. Temporaries of live processes (this one
/// included) are kept. Returns how many files were removed.
pub fn remove_stale_temporaries(dir: &Path) -> anyhow::Result<usize> {
    let mut removed = 0;
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e).with_context(|| format!("listing {}", dir.display())),
    };
    for entry in entries {
        let entry = entry.with_context(|| format!("listing {}", dir.display()))?;
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            removed += remove_stale_temporaries(&path)?;
        } else if temp_pid(&entry.file_name().to_string_lossy()).is_some_and(|p| !alive(p)) {
            fs::remove_file(&path).with_context(|| format!("removing {}", path.display()))?;
            removed += 1;
        }
    }
    Ok(removed)
}

/// The pid in a temporary's name (`a.json.tmp-812` → 812).
fn temp_pid(name: &str) -> Option<u32> {
    let (_, rest) = name.rsplit_once(".tmp-")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Whether process `pid` exists (signal 0 probes without sending anything).
fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: kill with signal 0 only checks whether the process exists and may be signalled.
    let r = unsafe { libc::kill(pid, 0) };
    r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// `path.tmp-<pid>-<n>`: `n` counts this process's writes, so two threads writing one path (two
/// series meeting the same cell) never share a temporary.
fn temp_name(path: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}-{n}", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_writing_one_path_at_once_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("cell.json");
        std::thread::scope(|s| {
            for t in 0..8 {
                let p = &p;
                s.spawn(move || {
                    for _ in 0..50 {
                        write_bytes(p, format!("thread {t}").as_bytes()).unwrap();
                    }
                });
            }
        });
        assert!(fs::read_to_string(&p).unwrap().starts_with("thread "));
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        write_bytes(&p, b"old").unwrap();
        let err = write_atomic(&p, |w| {
            w.write_all(b"half")?;
            anyhow::bail!("interrupted")
        });
        assert!(err.is_err());
        assert_eq!(fs::read(&p).unwrap(), b"old");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        write_bytes(&p, b"new").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"new");
    }

    #[test]
    fn a_full_disk_names_the_file_and_leaves_no_partial_file() {
        // The write layer on a full file system: the writer fails with ENOSPC half-way.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("summary.csv");
        let err = write_atomic(&p, |w| {
            w.write_all(b"half a table")?;
            Err(std::io::Error::from_raw_os_error(libc::ENOSPC).into())
        })
        .unwrap_err();
        let msg = format!("{err:#}");
        assert!(msg.contains(&p.display().to_string()), "{msg}");
        assert!(msg.contains("No space left on device"), "{msg}");
        assert!(!p.exists(), "nothing under the final name");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0, "no temporary");
    }

    #[test]
    fn stale_temporaries_of_dead_processes_are_removed_live_ones_kept() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("cells");
        fs::create_dir_all(&sub).unwrap();
        // A process that has exited: its pid is free (until reused, which a test cannot rule out
        // but which only keeps a file).
        let dead = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = dead.id();
        let _ = { dead }.wait();
        let mine = std::process::id();
        let names = [
            format!("summary.csv.tmp-{dead_pid}"),
            format!("turnaround.tmp-{dead_pid}.png"),
            format!("cells/a.json.tmp-{dead_pid}"),
            format!("summary.csv.tmp-{mine}"),
            "report.md".to_string(),
        ];
        for n in &names {
            fs::write(dir.path().join(n), b"x").unwrap();
        }
        assert_eq!(remove_stale_temporaries(dir.path()).unwrap(), 3);
        assert!(
            dir.path().join(&names[3]).exists(),
            "a live process's temporary"
        );
        assert!(dir.path().join("report.md").exists());
        assert_eq!(temp_pid("x.tmp-12.png"), Some(12));
        assert_eq!(temp_pid("x.json"), None);
    }
}
