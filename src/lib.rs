//! # pwa-replay
//!
//! Replays Parallel Workloads Archive logs (Standard Workload Format, SWF) on a model of a parallel
//! machine under a job *scheduler* (which waiting job to try next) and a processor *allocator* (where,
//! and whether, its request fits), and measures what happened.
//!
//! The modules follow the data flow:
//!
//! * [`resource`] — the shared vocabulary: requests, placements, machine labels and node ids.
//! * [`swf`] — SWF records and header, a streaming nom parser with errors that name file, line, field.
//! * [`workload`] — jobs as the simulator sees them ([`workload::Job`], [`workload::Request`]),
//!   filters, shape conversions, load-factor scaling and synthetic models.
//! * [`catalog`] — the catalogued logs: file, sha256, how each is converted for its machine, and the
//!   default grid a study of it replays (it names scheduler and allocator kinds, so it sits above
//!   `workload`).
//! * [`machine`] — topologies and the [`machine::Allocator`] trait; every allocator is one line of
//!   the `allocators!` registry ([`machine::AllocKind::ALL`]: mesh, hypercube, torus and flat).
//! * [`sched`] — the [`sched::Scheduler`] trait and the policies; every scheduler is one line of
//!   [`sched::SCHEDULERS`] (label syntax, example, meaning), from which help texts and errors are
//!   generated; and the scheduling semantics ([`sched::semantics`]: when a policy runs), which
//!   the engine carries out.
//! * [`coschedule`] — gang scheduling by time-slice classes.
//! * [`experiment`] — studies as data: an experiment file → plan → cells → figures and claims.
//! * [`estimate`] — modeled user estimates and run-time predictors that learn while a replay runs
//!   (EASY++'s).
//! * [`engine`] — the discrete-event simulation, the independent schedule validator and the metrics.
//! * [`sweep`] — scheduler × allocator × load-factor grids run in parallel, bit-identical to serial.
//! * [`replicate`] — independent replications of a stochastic cell until the confidence interval is tight.
//! * [`trace`] — workloads by name: a catalogued log found on the search path and verified, an SWF
//!   file, or a `synth:` label; the experiments' [`trace::Loader`].
//!
//! The library knows nothing of command lines, progress bars, data frames or plots: those live in the
//! `pwa-replay` binary.
#![deny(missing_docs)]

pub mod catalog;
pub mod coschedule;
pub mod engine;
pub mod estimate;
pub mod experiment;
pub mod machine;
pub mod packed;
pub mod replicate;
pub mod resource;
pub mod sched;
pub mod sweep;
pub mod swf;
pub mod trace;
pub mod workload;

/// Simulated time: seconds for traces, model time units for synthetic workloads.
///
/// An `f64` rather than a fixed-point integer: load-factor scaling divides integer trace times by
/// factors such as 0.3, and synthetic workloads draw exponential times; IEEE arithmetic is
/// deterministic, and every comparison in the engine goes through [`f64::total_cmp`].
pub type SimTime = f64;
