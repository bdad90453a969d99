//! The logs of the paper figures: whether a catalog log is on the trace search path (`paper` never
//! downloads) and how much of it the semitorus study replays. The trace figures of
//! window-k-mesh.md §5.5 (Figs. 13–18) are data: `experiments/window-k-traces.toml`.

use pwa_replay::engine::RunMetrics;
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::AutoLoads;
use pwa_replay::workload::Workload;

/// How much of each trace to run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceBudget {
    /// Keep only the first `jobs` jobs (`None`: all).
    pub jobs: Option<usize>,
    /// The load schedule.
    pub auto: AutoLoads,
    /// Worker threads.
    pub threads: usize,
}

/// Replays one workload on a machine under a policy.
pub type Replay =
    dyn Fn(&Workload, MachineSpec, SchedKind, AllocKind) -> anyhow::Result<RunMetrics> + Sync;

/// Whether the catalog log `trace` is on the search path (without downloading).
pub fn available(trace: &str) -> bool {
    let Ok(cat) = crate::trace::catalog() else {
        return false;
    };
    cat.get(trace)
        .is_some_and(|e| crate::trace::search_path().find(&e.file).is_some())
}
