//! CLI integration tests, one binary: a module per subcommand.
mod catalog;
mod draw;
mod estimates;
mod experiment;
mod faults;
mod fetch;
mod install;
mod paper;
mod provenance;
mod readme;
mod run;
mod shake;
mod shard;
mod stats;
mod support;
mod sweep;
