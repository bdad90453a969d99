//! One sweep per output directory: an exclusive advisory lock on `<out>/.lock` (`flock`, released
//! by the kernel when the process ends, even by `SIGKILL`, so a lock is never stale). A second
//! sweep into the same directory is refused with a message naming the directory and the holder's
//! pid. The lock also notices a directory removed or replaced during the run ([`OutLock::check`]).

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

/// File name of the lock in the output directory.
pub const LOCK_FILE: &str = ".lock";

/// The held lock of an output directory (released on drop).
#[derive(Debug)]
pub struct OutLock {
    _file: File,
    dir: PathBuf,
    /// Device and inode of the lock file, to notice a replaced directory.
    id: (u64, u64),
}

impl OutLock {
    /// Takes the lock of `dir` (which must exist), or says who holds it.
    pub fn acquire(dir: &Path) -> anyhow::Result<OutLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("opening the lock {}", path.display()))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                bail!(
                    "{} is in use by another sweep ({}); wait for it to finish or choose another --out",
                    dir.display(),
                    holder.trim()
                );
            }
            Err(TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("locking {}", path.display()));
            }
        }
        let note = format!("pid {}", std::process::id());
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(note.as_bytes()))
            .with_context(|| format!("writing {}", path.display()))?;
        let m = file
            .metadata()
            .with_context(|| format!("reading {}", path.display()))?;
        Ok(OutLock {
            _file: file,
            dir: dir.to_path_buf(),
            id: (m.dev(), m.ino()),
        })
    }

    /// Fails when the directory was removed or replaced since the lock was taken.
    pub fn check(&self) -> anyhow::Result<()> {
        let same =
            fs::metadata(self.dir.join(LOCK_FILE)).is_ok_and(|m| (m.dev(), m.ino()) == self.id);
        if !same {
            bail!(
                "the output directory {} was removed or replaced during the sweep",
                self.dir.display()
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_holder_and_freed_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let first = OutLock::acquire(dir.path()).unwrap();
        let err = format!("{:#}", OutLock::acquire(dir.path()).unwrap_err());
        assert!(err.contains(&dir.path().display().to_string()), "{err}");
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        first.check().unwrap();
        drop(first);
        let again = OutLock::acquire(dir.path()).unwrap();
        fs::remove_file(dir.path().join(LOCK_FILE)).unwrap();
        assert!(again.check().is_err(), "a removed directory is noticed");
    }
}
