//! The real logs the tests read (`../shared/traces`), for the library's tests and the CLI's (which
//! include this file).
//!
//! A test that reads them gets their directory from [`real_logs`] and carries
//! `#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]`. Without the logs it fails,
//! naming what is missing; with `PWA_SKIP_TRACE_TESTS=1` in the environment of `cargo test` (or
//! `make test`) the build scripts set `skip_trace_tests`, and libtest reports each such test as
//! `ignored, reads the real logs` and counts it in its summary's "N ignored".

use std::path::{Path, PathBuf};

/// The logs the tests read: the catalogued logs of `../shared/traces`.
pub const REAL_LOGS: [&str; 8] = [
    "SDSC-Par-1996-3.1-cln.swf.gz",
    "SDSC-BLUE-2000-4.2-cln.swf.gz",
    "NASA-iPSC-1993-3.1-cln.swf.gz",
    "LANL-CM5-1994-4.1-cln.swf.gz",
    "CTC-SP2-1996-3.1-cln.swf.gz",
    "KTH-SP2-1996-2.1-cln.swf.gz",
    "LLNL-Atlas-2006-2.1-cln.swf.gz",
    "HPC2N-2002-2.2-cln.swf.gz",
];

/// The directory that holds every one of [`REAL_LOGS`]: the first of `$PWA_TRACES`'s directories
/// when it is set (so `PWA_TRACES=/nowhere` shows what a checkout without the logs does), else of
/// the workspace's `traces/` and `../shared/traces`. Panics when none holds them all.
pub fn real_logs() -> PathBuf {
    let dirs: Vec<PathBuf> = match std::env::var_os("PWA_TRACES") {
        Some(v) => std::env::split_paths(&v).collect(),
        None => {
            let root = workspace();
            vec![root.join("traces"), root.join("../shared/traces")]
        }
    };
    let missing = |dir: &Path| -> Vec<&str> {
        REAL_LOGS
            .into_iter()
            .filter(|f| !dir.join(f).is_file())
            .collect()
    };
    if let Some(dir) = dirs.iter().find(|d| missing(d).is_empty()) {
        return dir.clone();
    }
    let looked: Vec<String> = dirs
        .iter()
        .map(|d| match missing(d) {
            m if m.len() == REAL_LOGS.len() => format!("{} holds none of them", d.display()),
            m => format!("{} lacks {}", d.display(), m.join(", ")),
        })
        .collect();
    panic!(
        "the real logs {} are missing ({}): put them there or point $PWA_TRACES at them, or set \
         PWA_SKIP_TRACE_TESTS=1 to skip the tests that read them",
        REAL_LOGS.join(", "),
        looked.join("; ")
    );
}

/// The workspace root: the nearest directory above this crate with a `Cargo.lock`.
fn workspace() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .ancestors()
        .find(|d| d.join("Cargo.lock").is_file())
        .unwrap_or(manifest)
        .to_path_buf()
}
