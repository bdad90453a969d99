//! Library integration tests, one binary: a module per area.
mod workload;
