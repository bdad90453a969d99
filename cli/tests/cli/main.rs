//! CLI integration tests, one binary: a module per subcommand.
mod catalog;
mod draw;
mod fetch;
mod install;
mod paper;
mod readme;
mod run;
mod stats;
mod support;
mod sweep;
