//! What a new user met on a fresh clone, each replayed as she met it: names she misspelt, files
//! that were not there, lines her log had wrong, estimates her log did not have, figures and
//! tables that misled her. Each test says what she did and what she must now be told.

use predicates::prelude::*;

use crate::support::{bin, fails_with};

#[test]
fn a_misspelt_trace_name_gets_a_suggestion_and_a_missing_file_is_called_missing() {
    let run = |trace: &str| {
        let mut c = bin();
        c.args([
            "run", "--trace", trace, "--sched", "fcfs", "--alloc", "flat",
        ]);
        c
    };
    fails_with(&mut run("kth-sp3"), &["did you mean `kth-sp2`?"]);
    let missing = "/tmp/pwa-replay-no-such-dir/nope.swf";
    fails_with(&mut run(missing), &[missing, "no such file"]);
    bin()
        .args([
            "run", "--trace", missing, "--sched", "fcfs", "--alloc", "flat",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains("neither").not());
    fails_with(
        bin().args(["fetch", "kth-sp3"]),
        &["did you mean `kth-sp2`?"],
    );
}
