//! CLI integration tests, one binary: a module per subcommand.
mod fetch;
mod paper;
mod stats;
mod run;
mod sweep;
