//! CLI integration tests, one binary: a module per subcommand.
mod fetch;
mod paper;
mod run;
mod stats;
mod support;
mod sweep;
