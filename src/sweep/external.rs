//! Series the library does not run itself: a policy label with a `py:` part — a Python policy
//! class (`py:policies/sjf.py:Sjf`), or a built-in scheduler whose queue order is a Python function
//! (`easy:order=py:policies/prio.py:score`) — is an [`External`] series ([`super::Policy`]): sweeps
//! and experiments plan its cells, seed, cache and replicate them like any other, and hand every
//! replica to their caller (the experiment executor's hook) as an [`Instance`] (the workload as
//! that replica replays it, the machine, the allocator and the replay options), which something
//! outside the library runs (the binary: a Python worker process) and summarizes with
//! [`replay_instance`], so that its metrics are computed exactly as a built-in series' are;
//! [`replay_instance_outcome`] also returns the schedule, from which the caller writes per-user
//! and per-job tables as for a built-in cell.
//!
//! What an external label names lives outside the library (a file), so the library keys it by a
//! digest the caller gives (`experiment::Plan::resolve_external`): a cell's id, and with it the
//! `--resume` cache key, changes when the file does.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::CellError;
use crate::engine::{self, Engine, FragMeter, Outcome, ReplayOptions, RunMetrics};
use crate::machine::AllocKind;
use crate::resource::MachineSpec;
use crate::sched::Scheduler;
use crate::workload::Workload;

/// Whether a policy label is run outside the library: it has a `py:` part, as the whole label
/// (`py:FILE:Class`) or as an argument's value (`easy:order=py:FILE:func`).
pub fn is_external(label: &str) -> bool {
    let label = label.trim();
    label.starts_with("py:") || label.contains("=py:")
}

/// An external series' policy: its label, and the digest of what it names (empty until the
/// caller resolves it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct External {
    /// The label as written (`py:policies/sjf.py:Sjf`).
    pub label: String,
    /// The caller's digest of what the label names (a file's sha256, with its class and
    /// arguments).
    pub digest: String,
}

impl fmt::Display for External {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label)
    }
}

/// One replica of an external cell as its runner receives it: the workload that replica replays
/// (scaled, shaken, with its estimates), on which machine, with which allocator and options. It
/// travels as JSON (every time exact: serde writes the shortest text that reads back to the same
/// bits).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Instance {
    /// The policy's label.
    pub policy: String,
    /// The jobs.
    pub workload: Workload,
    /// The machine's label.
    pub machine: String,
    /// The allocator's label.
    pub alloc: String,
    /// How it is replayed.
    pub options: ReplayOptions,
}

/// Replays `instance` under `scheduler` (the external policy, built by the runner) and summarizes
/// it as the executor summarizes a built-in series' replica (fragmentation measured during the
/// run); the schedule is checked by [`engine::validate`] when `validate`.
pub fn replay_instance(
    instance: &Instance,
    scheduler: Box<dyn Scheduler>,
    validate: bool,
) -> Result<RunMetrics, CellError> {
    Ok(replay_instance_outcome(instance, scheduler, validate)?.0)
}

/// [`replay_instance`] with the schedule: the metrics and the [`Outcome`], from which the caller
/// computes per-user and per-job tables as it does for a built-in cell.
pub fn replay_instance_outcome(
    instance: &Instance,
    scheduler: Box<dyn Scheduler>,
    validate: bool,
) -> Result<(RunMetrics, Outcome), CellError> {
    let machine: MachineSpec = instance.machine.parse()?;
    let alloc: AllocKind = instance.alloc.parse()?;
    let workload = &instance.workload;
    let mut meter = FragMeter::new(workload, machine, alloc);
    let outcome = Engine::new(workload, scheduler, alloc.build(machine)?)
        .with_options(instance.options.clone())
        .run(&mut meter)?;
    if validate {
        engine::validate(workload, machine, &outcome)?;
    }
    let metrics =
        engine::summarize_with_fragmentation(workload, machine, &outcome, &meter.finish());
    Ok((metrics, outcome))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_py_part_anywhere_makes_a_label_external() {
        assert!(is_external("py:policies/sjf.py:Sjf"));
        assert!(is_external(" py:p.py:P:k=1"));
        assert!(is_external("easy:order=py:prio.py:score"));
        assert!(is_external("window:240,order=py:prio.py:score"));
        assert!(!is_external("easy:order=sjf"));
        assert!(!is_external("python"));
        assert!(!is_external("fcfs"));
    }
}
