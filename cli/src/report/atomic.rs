//! Interrupt-safe file writes: write to a temporary name in the same directory, then rename.

use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// Writes `path` through `write` into `path.tmp-<pid>`, flushes, then renames it over `path`, so a
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

fn temp_name(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".tmp-{}", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
