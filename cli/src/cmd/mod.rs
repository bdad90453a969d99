//! One module per subcommand: its clap `Args` and its `run`.

pub mod catalog;
pub mod completions;
pub mod draw;
pub mod experiment;
pub mod fetch;
pub mod man;
pub mod merge;
pub mod paper;
pub mod plot;
pub mod run;
pub mod stats;
pub mod sweep;
pub mod synth;
pub mod verify;

use pwa_replay::machine::AllocKind;
use pwa_replay::sched::scheduler_labels;

/// Help of a `--sched` option: `what`, then every scheduler label of the library's registry.
pub fn sched_help(what: &str) -> String {
    format!("{what}: {}", scheduler_labels())
}

/// Help of an `--alloc` option: `what`, then every allocator label of the library's registry.
pub fn alloc_help(what: &str) -> String {
    let labels: Vec<_> = AllocKind::ALL.iter().map(|a| a.label()).collect();
    format!("{what}: {}", labels.join(", "))
}
