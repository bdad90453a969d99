//! Library integration tests, one binary: a module per area.
mod backfill;
mod engine;
mod fragmentation;
mod gang;
mod golden;
mod hypercube;
mod lazy;
mod machine;
mod sched;
mod seam;
mod shake;
mod soak;
mod sweep;
mod swf;
mod synth;
mod torus;
mod workload;
