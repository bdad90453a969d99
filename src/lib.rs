//! # pwa-replay
//!
//! Replays Parallel Workloads Archive logs (Standard Workload Format, SWF) on a model of a parallel
//! machine under a job *scheduler* (which waiting job to try next) and a processor *allocator* (where,
//! and whether, its request fits), and measures what happened.
//!
//! The modules follow the data flow; each imports only modules listed before it, and no module
//! imports itself through others (a test draws the graph from the imports: `tests/it/modules.rs`):
//!
//! * [`resource`] — the shared vocabulary: requests, placements, machine labels and node ids.
//! * [`suggest`] — "did you mean …?" for names refused from a closed list.
//! * [`swf`] — SWF records and header, a streaming nom parser with errors that name file, line, field.
//! * [`packed`] — optional times and user numbers in the space of the value alone, for per-job data.
//! * [`machine`] — topologies and the [`machine::Allocator`] trait; every allocator is one line of
//!   the `allocators!` registry ([`machine::AllocKind::ALL`]: mesh, hypercube, torus and flat).
//! * [`workload`] — jobs as the simulator sees them ([`workload::Job`], [`workload::Request`]),
//!   filters (one drops the jobs an allocator can never place, so it sits above `machine`), shape
//!   conversions, load-factor scaling and synthetic models.
//! * [`estimate`] — modeled user estimates and run-time predictors that learn while a replay runs
//!   (EASY++'s).
//! * [`sched`] — the [`sched::Scheduler`] trait and the policies; every scheduler is its file and
//!   one line of the `schedulers!` registry (variant, label form, syntax, example, meaning), from
//!   which label parsing and printing, help texts ([`sched::SCHEDULERS`]) and errors are
//!   generated; and the scheduling semantics ([`sched::semantics`]: when a policy runs), which
//!   the engine carries out.
//! * [`catalog`] — the catalogued logs: file, sha256, how each is converted for its machine, and the
//!   default grid a study of it replays (it names scheduler and allocator kinds, so it sits above
//!   `sched`).
//! * [`engine`] — the discrete-event simulation, the independent schedule validator and the metrics.
//! * [`coschedule`] — gang scheduling by time-slice classes: gang replays and the measures of time
//!   sharing (response and waiting by service-demand class, suspensions).
//! * [`sweep`] — scheduler × allocator × load-factor grids run in parallel, bit-identical to serial;
//!   a scheduler is built-in or external (a Python series its caller replays, [`sweep::Policy`]).
//! * [`replicate`] — independent replications of a stochastic cell until the confidence interval is tight.
//! * [`experiment`] — studies as data: an experiment file → plan → cells → figures and claims.
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
pub mod suggest;
pub mod sweep;
pub mod swf;
pub mod trace;
pub mod workload;

/// Simulated time: seconds for traces, model time units for synthetic workloads
/// ([`trace::TimeUnit`]).
///
/// An `f64` rather than a fixed-point integer: load-factor scaling divides integer trace times by
/// factors such as 0.3, and synthetic workloads draw exponential times; IEEE arithmetic is
/// deterministic, and every comparison in the engine goes through [`f64::total_cmp`].
pub type SimTime = f64;
