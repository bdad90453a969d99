//! Library integration tests, one binary: a module per area.
mod backfill;
mod engine;
mod golden;
mod machine;
mod sched;
mod sweep;
mod swf;
mod synth;
mod workload;
