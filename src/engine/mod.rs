//! The discrete-event simulation of one replay, its validator and its metrics.
//!
//! (Implementation in progress: see the event-order contract in [`crate::sched::Scheduler`].)

use crate::SimTime;
use crate::machine::{AllocStats, Placement};

/// What happened to one job.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JobRecord {
    /// Start time.
    pub start: SimTime,
    /// End time (`start + runtime`).
    pub end: SimTime,
    /// What the allocator granted.
    pub placement: Placement,
}

/// The result of one replay: a record per job (indexed by `JobId`) and the allocator's counters.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// `records[i]` is job `JobId(i)`.
    pub records: Vec<JobRecord>,
    /// Allocator attempts and failures.
    pub alloc: AllocStats,
    /// Wall-clock seconds spent inside the allocator (not deterministic).
    pub alloc_time_s: f64,
    /// Wall-clock seconds of the whole replay (not deterministic).
    pub sim_wall_s: f64,
}

/// Summary of one replay. Field names are the column names of every table and JSON object.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct RunMetrics {
    /// Jobs replayed.
    pub jobs: u64,
    /// Mean of end − submit.
    pub mean_turnaround_s: f64,
    /// Population variance of end − submit.
    pub var_turnaround: f64,
    /// Mean of start − submit.
    pub mean_wait_s: f64,
    /// Largest start − submit.
    pub max_wait_s: f64,
    /// Median wait (nearest rank).
    pub p50_wait_s: f64,
    /// 95th percentile wait (nearest rank).
    pub p95_wait_s: f64,
    /// 99th percentile wait (nearest rank).
    pub p99_wait_s: f64,
    /// Σ granted nodes × run time / (N × (last end − first submit)), 0..1.
    pub utilization: f64,
    /// Jobs / (last end − first submit).
    pub throughput_per_s: f64,
    /// Last end − first submit.
    pub makespan_s: f64,
    /// Mean of max(1, turnaround / max(run time, 10 s)).
    pub mean_bounded_slowdown: f64,
    /// Throughput / mean wait.
    pub system_power: f64,
    /// Mean over jobs of processors granted − processors asked.
    pub internal_fragmentation: f64,
    /// Allocator calls.
    pub alloc_attempts: u64,
    /// Wall seconds in the allocator (not deterministic).
    pub alloc_time_s: f64,
    /// Wall seconds of the replay (not deterministic).
    pub sim_wall_s: f64,
}
