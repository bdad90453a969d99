//! Records the git commit the binary is built from (`PWA_REPLAY_GIT_COMMIT`, empty outside a
//! checkout or without git, e.g. a tarball build) and whether tracked files differed from it
//! (`PWA_REPLAY_GIT_DIRTY`), for `manifest.json`; and, as the library's build script does, sets the
//! `skip_trace_tests` cfg under `PWA_SKIP_TRACE_TESTS=1` (the tests that read the real logs are then
//! ignored; see `tests/it/real_logs.rs`).
//!
//! The script reruns only when HEAD moves (the HEAD file, the branch's ref file, packed refs), the
//! index changes, or the sources change — all of which rebuild this crate anyway — so a commit
//! recompiles nothing beyond this crate.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().unwrap_or(&manifest_dir).to_path_buf();
    for p in ["src", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", manifest_dir.join(p).display());
    }
    for p in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    let commit = git(&root, &["rev-parse", "HEAD"]).unwrap_or_default();
    let dirty = if commit.is_empty() {
        String::new()
    } else {
        // --no-optional-locks: `status` must not refresh (rewrite) the index it is watched by.
        git(
            &root,
            &[
                "--no-optional-locks",
                "status",
                "--porcelain",
                "--untracked-files=no",
            ],
        )
        .map(|s| (!s.is_empty()).to_string())
        .unwrap_or_default()
    };
    watch_git_files(&root);
    println!("cargo:rustc-env=PWA_REPLAY_GIT_COMMIT={commit}");
    println!("cargo:rustc-env=PWA_REPLAY_GIT_DIRTY={dirty}");
    println!("cargo:rerun-if-env-changed=PWA_SKIP_TRACE_TESTS");
    println!("cargo:rustc-check-cfg=cfg(skip_trace_tests)");
    if std::env::var_os("PWA_SKIP_TRACE_TESTS").is_some_and(|v| v == "1") {
        println!("cargo:rustc-cfg=skip_trace_tests");
    }
}

/// `rerun-if-changed` on what moves when HEAD or the index does (worktrees included: HEAD and the
/// index live in the worktree's git dir, refs in the common dir). Only existing paths: cargo treats
/// a missing one as always changed. The branch's ref is watched through its directory, which also
/// changes when the ref is created, deleted or packed.
fn watch_git_files(root: &Path) {
    let dir = |arg: &str| git(root, &["rev-parse", arg]).map(|d| root.join(d));
    let (Some(git_dir), Some(common)) = (dir("--git-dir"), dir("--git-common-dir")) else {
        return;
    };
    let head = git_dir.join("HEAD");
    let mut watched = vec![
        head.clone(),
        git_dir.join("index"),
        common.join("packed-refs"),
    ];
    if let Ok(text) = std::fs::read_to_string(&head)
        && let Some(r) = text.trim().strip_prefix("ref: ")
        && let Some(parent) = common.join(r).parent()
    {
        watched.push(parent.to_path_buf());
    }
    for p in watched.iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}

/// The trimmed stdout of a successful `git` command run in `root`, else `None`.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}
