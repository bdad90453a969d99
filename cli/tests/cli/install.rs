//! Shell completions and manual pages generated from the clap definitions, `make install` putting
//! the binary, the pages and the completions under a prefix, and the first-build notice of
//! `make build` / `make replay`.

use predicates::prelude::*;

use crate::catalog::make;
use crate::support::{bin, fails_with, ok};

#[test]
fn completions_cover_every_subcommand_for_each_shell() {
    for (shell, marker) in [
        ("bash", "COMPREPLY"),
        ("zsh", "#compdef pwa-replay"),
        ("fish", "complete -c pwa-replay"),
    ] {
        let out = ok(bin().args(["completions", shell]));
        let text = String::from_utf8(out.stdout).expect("utf-8");
        assert!(text.contains(marker), "{shell}: {marker}");
        for sub in ["catalog", "stats", "run", "sweep", "completions", "man"] {
            assert!(text.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    fails_with(bin().args(["completions", "tcsh"]), &["tcsh", "bash"]);
}

/// `pwa-replay completions bash | head -1` panicked in `clap_complete` on the closed pipe.
#[test]
fn completions_into_a_closed_pipe_end_quietly() {
    for sub in [&["completions", "bash"][..], &["man"]] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pwa-replay"))
            .args(sub)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("starts");
        drop(child.stdout.take()); // the reader goes away before the script is written
        let out = child.wait_with_output().expect("ends");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && err.is_empty(), "{sub:?}: {err}");
    }
}

#[test]
fn the_manual_page_is_roff_and_one_page_per_command_is_written() {
    bin()
        .arg("man")
        .assert()
        .success()
        .stdout(predicate::str::starts_with(".ie \\n(.g .ds Aq"))
        .stdout(predicate::str::contains(".TH pwa-replay 1"))
        .stdout(predicate::str::contains("catalog"));
    // The NAME line names every subcommand, as `--help` lists them.
    let page = String::from_utf8(ok(bin().arg("man")).stdout).expect("utf-8");
    let name = page
        .lines()
        .skip_while(|l| *l != ".SH NAME")
        .nth(1)
        .expect("a NAME section");
    let help = String::from_utf8(ok(bin().arg("--help")).stdout).expect("utf-8");
    let subcommands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|s| *s != "help")
        .collect();
    assert!(subcommands.len() >= 14, "{help}");
    for sub in subcommands {
        assert!(name.contains(sub), "the NAME line lacks {sub}: {name}");
    }
    let dir = tempfile::tempdir().expect("tempdir");
    ok(bin().args(["man", "--out"]).arg(dir.path().join("man1")));
    for page in ["pwa-replay.1", "pwa-replay-sweep.1", "pwa-replay-catalog.1"] {
        let text = std::fs::read_to_string(dir.path().join("man1").join(page)).expect(page);
        assert!(text.contains(".TH"), "{page}");
    }
}

#[test]
fn make_install_puts_binary_pages_and_completions_under_the_prefix() {
    let prefix = tempfile::tempdir().expect("tempdir");
    let p = prefix.path();
    let o = make("install-files", &[&format!("PREFIX={}", p.display())], None)
        .output()
        .expect("make runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in [
        "bin/pwa-replay",
        "share/man/man1/pwa-replay.1",
        "share/man/man1/pwa-replay-sweep.1",
        "share/bash-completion/completions/pwa-replay",
        "share/zsh/site-functions/_pwa-replay",
        "share/fish/vendor_completions.d/pwa-replay.fish",
    ] {
        let meta = std::fs::metadata(p.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(meta.len() > 0, "{f} is empty");
    }
    let installed = std::process::Command::new(p.join("bin/pwa-replay"))
        .arg("--version")
        .output()
        .expect("installed binary runs");
    assert!(String::from_utf8_lossy(&installed.stdout).starts_with("pwa-replay "));
}

#[test]
fn make_replay_installs_only_the_plot_font_and_make_test_everything_the_tests_need() {
    let dry = |target: &str| {
        let o = make(target, &["-n"], None).output().expect("make runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).expect("utf-8")
    };
    let replay = dry("replay");
    assert!(replay.contains("fonts-dejavu-core"), "{replay}");
    for unneeded in ["chromium", "python3-venv"] {
        assert!(
            !replay.contains(unneeded),
            "make replay installs {unneeded}: {replay}"
        );
    }
    // `make test` (and CI, `make setup`) installs the browser and Python's venv as well.
    let setup = dry("setup");
    for needed in ["fonts-dejavu-core", "chromium", "python3-venv"] {
        assert!(setup.contains(needed), "make setup lacks {needed}: {setup}");
    }
    let makefile = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../Makefile"));
    assert!(
        makefile.contains("\ntest: setup\n"),
        "make test installs through make setup"
    );
    let ci = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../.ci/run"));
    assert!(ci.contains("make setup\n"), "CI installs everything first");
}

#[test]
fn a_first_build_is_announced_with_its_measured_time_and_only_then() {
    let notice = |bin: &str| {
        let o = make("first-build-notice", &[&format!("BIN={bin}")], None)
            .output()
            .expect("make runs");
        assert!(o.status.success());
        String::from_utf8(o.stdout).expect("utf-8")
    };
    // The figure announced is the Makefile's measured FIRST_BUILD, whatever it now says.
    let makefile = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../Makefile"));
    let measured = makefile
        .lines()
        .find_map(|l| l.strip_prefix("FIRST_BUILD :="))
        .expect("the Makefile sets FIRST_BUILD")
        .trim();
    assert!(measured.contains("min"), "{measured}");
    let cold = notice("/nonexistent/pwa-replay");
    assert!(
        cold.starts_with("first build:") && cold.contains(measured),
        "{cold}"
    );
    assert_eq!(notice(env!("CARGO_BIN_EXE_pwa-replay")), "");
}
