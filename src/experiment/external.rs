//! Series the library does not run itself: a policy label with a `py:` part — a Python policy
//! class (`py:policies/sjf.py:Sjf`), or a built-in scheduler whose queue order is a Python function
//! (`easy:order=py:policies/prio.py:score`) — is an [`External`] series: the executor plans its
//! cells, seeds, caches and replicates them like any other, and hands every replica to the caller's
//! [`Hook`](super::run::Hook) as an [`Instance`] (the workload as that replica replays it, the
//! machine, the allocator and the replay options), which something outside the library runs (the
//! binary: a Python worker process) and summarizes with [`replay_instance`], so that its metrics
//! are computed exactly as a built-in series' are.
//!
//! What an external label names lives outside the library (a file), so the library keys it by a
//! digest the caller gives ([`super::Plan::resolve_external`]): a cell's id, and with it the
//! `--resume` cache key, changes when the file does.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::run::Replica;
use crate::engine::{self, Engine, FragMeter, ReplayOptions, RunMetrics};
use crate::machine::AllocKind;
use crate::resource::MachineSpec;
use crate::sched::Scheduler;
use crate::sweep::CellError;
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

impl Instance {
    /// The instance of `replica` (its cell's policy must be external).
    pub fn of(replica: &Replica<'_>) -> Result<Instance, CellError> {
        let cell = replica.cell;
        Ok(Instance {
            policy: cell.sched.to_string(),
            workload: replica.prepared.instance(cell, replica.seed)?,
            machine: replica.prepared.machine().to_string(),
            alloc: cell.alloc.to_string(),
            options: cell.options.clone(),
        })
    }
}

/// Replays `instance` under `scheduler` (the external policy, built by the runner) and summarizes
/// it as the executor summarizes a built-in series' replica (fragmentation measured during the
/// run); the schedule is checked by [`engine::validate`] when `validate`.
pub fn replay_instance(
    instance: &Instance,
    scheduler: Box<dyn Scheduler>,
    validate: bool,
) -> Result<RunMetrics, CellError> {
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
    Ok(engine::summarize_with_fragmentation(
        workload,
        machine,
        &outcome,
        &meter.finish(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::plan::{Plan, Policy};
    use crate::experiment::run::{self, Prepared};

    const STUDY: &str = r#"
[[panel]]
name = "u"
workload = "synth:uniform,mesh=8x8,jobs=50,rate=1"
sched = ["fcfs:order=sjf", "py:policies/sjf.py:Sjf"]
alloc = ["ff"]
x = { values = [0.5, 1.0] }
[[figure]]
name = "w"
panel = "u"
y = "mean_wait_s"
"#;

    #[test]
    fn a_py_series_is_external_and_its_digest_is_in_its_cells_ids() {
        let mut plan = Plan::new("s.toml", STUDY, false).unwrap();
        assert_eq!(plan.external_labels(), ["py:policies/sjf.py:Sjf"]);
        let before = plan.panels[0].cell(1, 0.5).unwrap();
        assert_eq!(
            before.sched,
            Policy::External(External {
                label: "py:policies/sjf.py:Sjf".into(),
                digest: String::new(),
            })
        );
        plan.resolve_external(|l| Ok(format!("d{}", l.len())))
            .unwrap();
        let after = plan.panels[0].cell(1, 0.5).unwrap();
        assert!(after.id().ends_with("|sha256=d22"), "{}", after.id());
        assert_ne!(before.id(), after.id());
        // The built-in series is untouched.
        let builtin = plan.panels[0].cell(0, 0.5).unwrap();
        assert!(!builtin.id().contains("sha256"));
        let e = plan.resolve_external(|_| Err("gone".into())).unwrap_err();
        assert_eq!(e, "`py:policies/sjf.py:Sjf`: gone");
    }

    #[test]
    fn the_library_hands_an_external_replica_over_and_summarizes_it_as_a_builtin_one() {
        let plan = Plan::new("s.toml", STUDY, false).unwrap();
        let (builtin, python) = (
            plan.panels[0].cell(0, 1.0).unwrap(),
            plan.panels[0].cell(1, 1.0).unwrap(),
        );
        let prepared = Prepared::synthetic("synth:uniform,mesh=8x8,jobs=50,rate=1", None).unwrap();
        let e = run::replay(&prepared, &python, 7, false).unwrap_err();
        assert!(e.to_string().contains("runs outside the library"), "{e}");
        let replica = run::Replica {
            cell: &python,
            seed: 7,
            prepared: &prepared,
        };
        let instance = Instance::of(&replica).unwrap();
        assert_eq!(instance.policy, "py:policies/sjf.py:Sjf");
        // Under the scheduler the label stands for here (the JSON it travels as is exact: the
        // binary's tests compare Python series with built-in ones replica by replica).
        let sched = builtin
            .sched
            .builtin()
            .unwrap()
            .for_workload(&instance.workload);
        let priority = instance.options.priority().unwrap();
        let built = sched.build_with(&instance.workload, &priority).unwrap();
        let theirs = replay_instance(&instance, built, true).unwrap();
        let ours = run::replay(&prepared, &builtin, 7, false).unwrap().metrics;
        assert_eq!(
            RunMetrics {
                sim_wall_s: 0.0,
                alloc_time_s: 0.0,
                ..theirs
            },
            RunMetrics {
                sim_wall_s: 0.0,
                alloc_time_s: 0.0,
                ..ours
            }
        );
    }

    #[test]
    fn a_py_series_needs_listed_x_and_summary_measures() {
        let auto = STUDY.replace("x = { values = [0.5, 1.0] }", "x = { values = \"auto\" }");
        let e = Plan::new("s.toml", &auto, false).unwrap_err();
        assert!(e.to_string().contains("list the load factors"), "{e}");
        let observed = STUDY.replace("y = \"mean_wait_s\"", "y = \"window_delay\"");
        let e = Plan::new("s.toml", &observed, false).unwrap_err();
        assert!(e.to_string().contains("draw summary measures"), "{e}");
    }

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
