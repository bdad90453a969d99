//! Helpers shared by the library's integration tests.

use proptest::test_runner::{Config, FileFailurePersistence};

/// `config` with the failing cases proptest finds kept in the repository's one
/// `proptest-regressions/` folder, under the path of the test's file: `tests/it/sched.rs` keeps
/// them in `proptest-regressions/tests/it/sched.txt`. (The library's unit tests keep proptest's
/// default, which puts `src/machine/first_fit_kd.rs`'s in `proptest-regressions/machine/`.)
pub fn keep_regressions(config: Config) -> Config {
    // proptest puts the file beside the directory of the test crate's `main.rs` (`tests/it`):
    // `tests/` + this + `sched.txt`.
    let persistence = FileFailurePersistence::SourceParallel("../proptest-regressions/tests/it");
    Config {
        failure_persistence: Some(Box::new(persistence)),
        ..config
    }
}
