//! CLI integration tests, one binary: a module per subcommand.
mod fetch;
mod stats;
mod sweep;
