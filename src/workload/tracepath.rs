//! Where trace files are looked for, and how a found file is verified.
//!
//! The search path is, in order: every directory of `$PWA_TRACES` (a `:`-separated list), then for
//! each *root* the caller gives, `<root>/traces/` and `<root>/../shared/traces/`. The library reads no
//! environment and guesses no directories: the caller passes the variable's value and the roots (the
//! CLI passes the current directory, then the workspace it was built from).
//!
//! A file is identified by the sha256 of its **uncompressed** bytes ([`sha256_uncompressed`]); gzip
//! is detected by content (magic bytes `1f 8b`), not by name. Re-hashing is cheap enough to do on
//! every load (Blue Horizon, 3.9 MB gzip / 22.5 MB SWF: see the report), so nothing is cached.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Directories searched for trace files, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchPath {
    dirs: Vec<PathBuf>,
}

impl SearchPath {
    /// `env` (the value of `$PWA_TRACES`, `:`-separated, empty parts ignored), then for each root
    /// `<root>/traces` and `<root>/../shared/traces`. Duplicates are kept once, first place wins.
    pub fn new(env: Option<&OsStr>, roots: &[PathBuf]) -> SearchPath {
        let from_env = env
            .map(|v| std::env::split_paths(v).collect::<Vec<_>>())
            .unwrap_or_default();
        let from_roots = roots
            .iter()
            .flat_map(|r| [r.join("traces"), r.join("..").join("shared").join("traces")]);
        let mut dirs: Vec<PathBuf> = Vec::new();
        for d in from_env.into_iter().filter(|d| !d.as_os_str().is_empty()) {
            push_unique(&mut dirs, d);
        }
        for d in from_roots {
            push_unique(&mut dirs, d);
        }
        SearchPath { dirs }
    }

    /// The directories, in search order.
    pub fn dirs(&self) -> &[PathBuf] {
        &self.dirs
    }

    /// The first `<dir>/<file>` that exists as a file.
    pub fn find(&self, file: &str) -> Option<PathBuf> {
        self.dirs.iter().map(|d| d.join(file)).find(|p| p.is_file())
    }
}

fn push_unique(dirs: &mut Vec<PathBuf>, d: PathBuf) {
    let canon = normalise(&d);
    if !dirs.iter().any(|x| normalise(x) == canon) {
        dirs.push(d);
    }
}

/// The canonical path when it exists (so `a/../b` and `b` compare equal), else the path itself.
fn normalise(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// A trace file that is not what the catalog says.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The file could not be read or decompressed (a truncated or corrupt gzip lands here).
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// The uncompressed bytes hash to something else.
    #[error("{path}: sha256 of the uncompressed bytes is {actual}, the catalog expects {expected}")]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What the catalog records.
        expected: String,
        /// What the file gives.
        actual: String,
    },
}

/// Opens a file as a byte stream of its uncompressed content: gzip (multi-member) when it starts
/// with the gzip magic, plain otherwise.
pub fn open_uncompressed(path: &Path) -> io::Result<Box<dyn Read + Send>> {
    let mut buf = BufReader::with_capacity(1 << 16, File::open(path)?);
    let is_gzip = buf.fill_buf()?.starts_with(&[0x1f, 0x8b]);
    Ok(if is_gzip {
        Box::new(flate2::bufread::MultiGzDecoder::new(buf))
    } else {
        Box::new(buf)
    })
}

/// sha256 (lowercase hex) of everything `r` yields.
pub fn sha256_reader(mut r: impl Read) -> io::Result<String> {
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        h.update(&buf[..n]);
    }
    Ok(hex(&h.finalize()))
}

/// sha256 (lowercase hex) of a byte slice.
pub fn sha256_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// sha256 of the uncompressed bytes of a (possibly gzip) file.
pub fn sha256_uncompressed(path: &Path) -> Result<String, VerifyError> {
    let io_err = |source| VerifyError::Io {
        path: path.to_path_buf(),
        source,
    };
    sha256_reader(open_uncompressed(path).map_err(io_err)?).map_err(io_err)
}

/// Checks a file against an expected sha256 of its uncompressed bytes; returns the hash.
pub fn verify(path: &Path, expected: &str) -> Result<String, VerifyError> {
    let actual = sha256_uncompressed(path)?;
    if actual.eq_ignore_ascii_case(expected) {
        Ok(actual)
    } else {
        Err(VerifyError::Mismatch {
            path: path.to_path_buf(),
            expected: expected.to_string(),
            actual,
        })
    }
}

/// The side file that records a locally verified hash for a trace the catalog has none for:
/// `<file>.sha256` next to it.
pub fn recorded_hash_path(trace: &Path) -> PathBuf {
    let mut name = trace.file_name().unwrap_or_default().to_os_string();
    name.push(".sha256");
    trace.with_file_name(name)
}

/// Verifies a trace found on the search path and returns its hash: against `catalogued` (the
/// catalog's sha256), else against the hash recorded beside it on an earlier verified use
/// ([`recorded_hash_path`]), else only computes it (the strict parse that follows is then the
/// check).
pub fn verify_found(path: &Path, catalogued: Option<&str>) -> Result<String, VerifyError> {
    let recorded = std::fs::read_to_string(recorded_hash_path(path))
        .ok()
        .map(|s| s.trim().to_string());
    match catalogued.map(str::to_string).or(recorded) {
        Some(h) => verify(path, &h),
        None => sha256_uncompressed(path),
    }
}

/// Records `sha256` beside a trace the catalog has no hash for (`<file>.sha256`, see
/// [`verify_found`]), unless a record is there; best effort: the directory may be read-only.
pub fn record_hash(path: &Path, sha256: &str) {
    let side = recorded_hash_path(path);
    if !side.exists() {
        let _ = std::fs::write(side, format!("{sha256}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn search_order_env_then_roots() {
        let env = std::ffi::OsString::from("/a:/b::/a");
        let sp = SearchPath::new(Some(&env), &[PathBuf::from("/r")]);
        let want: Vec<PathBuf> = ["/a", "/b", "/r/traces", "/r/../shared/traces"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(sp.dirs(), &want[..]);
        assert!(SearchPath::new(None, &[]).dirs().is_empty());
    }

    #[test]
    fn gzip_and_plain_hash_the_same() {
        let dir = std::env::temp_dir().join(format!("pwa-tracepath-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let text = b"; Version: 2.2\n1 0 0 10 4 -1 -1 4 -1 -1 1 1 1 1 1 -1 -1 -1\n";
        let plain = dir.join("t.swf.txt");
        std::fs::write(&plain, text).expect("write");
        let gz = dir.join("t.swf.gz.bin");
        let mut enc = flate2::write::GzEncoder::new(
            File::create(&gz).expect("create"),
            flate2::Compression::fast(),
        );
        enc.write_all(text).expect("gzip");
        enc.finish().expect("gzip end");
        let want = sha256_bytes(text);
        assert_eq!(sha256_uncompressed(&plain).expect("plain"), want);
        assert_eq!(verify(&gz, &want).expect("gz"), want);
        assert!(matches!(
            verify(&gz, &sha256_bytes(b"other")),
            Err(VerifyError::Mismatch { .. })
        ));
        let sp = SearchPath::new(Some(dir.as_os_str()), &[]);
        assert_eq!(sp.find("t.swf.txt"), Some(plain.clone()));
        assert_eq!(sp.find("absent"), None);
        std::fs::remove_dir_all(&dir).expect("cleanup");
    }

    #[test]
    fn known_digest() {
        assert_eq!(
            sha256_bytes(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn a_found_trace_is_checked_against_the_catalog_else_its_recorded_hash() {
        let dir = std::env::temp_dir().join(format!("pwa-verify-found-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let trace = dir.join("t.swf");
        std::fs::write(&trace, b"1 0 0 10 4\n").expect("write");
        let right = sha256_bytes(b"1 0 0 10 4\n");
        let wrong = sha256_bytes(b"other");
        let _ = std::fs::remove_file(recorded_hash_path(&trace));
        assert_eq!(verify_found(&trace, None).expect("computed"), right);
        assert_eq!(
            verify_found(&trace, Some(&right)).expect("catalogued"),
            right
        );
        assert!(matches!(
            verify_found(&trace, Some(&wrong)),
            Err(VerifyError::Mismatch { .. })
        ));
        record_hash(&trace, &wrong);
        record_hash(&trace, &right);
        assert!(
            matches!(
                verify_found(&trace, None),
                Err(VerifyError::Mismatch { .. })
            ),
            "the first record is kept and checked"
        );
        assert_eq!(
            verify_found(&trace, Some(&right)).expect("the catalog wins"),
            right
        );
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
