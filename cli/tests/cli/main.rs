//! CLI integration tests, one binary: a module per subcommand.
mod catalog;
mod fetch;
mod install;
mod paper;
mod provenance;
mod readme;
mod run;
mod shard;
mod stats;
mod support;
mod sweep;
