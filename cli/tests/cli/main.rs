//! CLI integration tests, one binary: a module per subcommand.
mod sweep;
