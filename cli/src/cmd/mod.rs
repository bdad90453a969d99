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
