//! CLI integration tests, one binary: a module per subcommand.
mod browser;
mod catalog;
mod draw;
mod experiment;
mod faults;
mod fetch;
mod install;
mod pages;
mod paper;
mod provenance;
mod readme;
mod run;
mod shake;
mod shard;
mod stats;
mod support;
mod sweep;
