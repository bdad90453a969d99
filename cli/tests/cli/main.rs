//! CLI integration tests, one binary: a module per subcommand.
mod catalog;
mod fetch;
mod paper;
mod run;
mod stats;
mod support;
mod sweep;
