//! Library integration tests, one binary: a module per area.
mod engine;
mod machine;
mod sched;
mod swf;
mod synth;
mod workload;
mod sweep;
