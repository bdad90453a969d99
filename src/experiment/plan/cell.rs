//! The cells of a panel: the one distinct simulation a series runs at an x value, and its id.

use std::fmt::Write as _;

use super::{LOAD_FACTOR, Measure, Panel, SWEEP_CELL, Xs, fill};
use crate::engine::ReplayOptions;
use crate::machine::AllocKind;
use crate::replicate::StopRule;
use crate::resource::MachineSpec;
use crate::sched::{SchedKind, SchedParseError};
pub use crate::sweep::Policy;
use crate::sweep::external::{External, is_external};
use crate::workload::EstimateModel;
use crate::workload::shake::ShakeModel;

/// One distinct simulation, replicated: everything its results depend on.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Workload label (catalog name, path or `synth:` label).
    pub workload: String,
    /// Machine, where the panel names one.
    pub machine: Option<MachineSpec>,
    /// Jobs kept of a log.
    pub jobs: Option<usize>,
    /// Submit times divided by this (x on a `load_factor` axis); `None`: the workload as it is.
    pub load_factor: Option<f64>,
    /// Scheduler.
    pub sched: Policy,
    /// Allocator.
    pub alloc: AllocKind,
    /// Estimates.
    pub estimate: EstimateModel,
    /// Key of the random streams: replica `r` uses [`crate::replicate::seed_for`]`(seed_key, r)`.
    pub seed_key: String,
    /// Replication rule.
    pub rule: StopRule,
    /// Measure the rule watches.
    pub watch: Measure,
    /// Shaking of a log's replicas.
    pub shake: Option<ShakeModel>,
    /// How it is replayed.
    pub options: ReplayOptions,
    /// Compute the observed measures of every replica (and validate its schedule).
    pub observe: bool,
}

impl Cell {
    /// Everything the cell's results depend on, as one stable string: the same id, the same
    /// results (the memo and the `--resume` cache key).
    pub fn id(&self) -> String {
        let mut s = format!(
            "{}|{}|{}|{}|{}|{}|seed={}|reps={}..{}@{}:{}",
            self.workload,
            self.machine.map_or("-".to_string(), |m| m.to_string()),
            self.jobs.map_or("all".to_string(), |n| n.to_string()),
            self.load_factor.map_or("-".to_string(), |x| x.to_string()),
            self.sched,
            self.alloc,
            self.seed_key,
            self.rule.min,
            self.rule.max,
            self.rule.rel_half_width,
            self.watch.name,
        );
        if self.estimate != EstimateModel::Exact {
            let _ = write!(s, "|{}", self.estimate);
        }
        if let Some(m) = self.shake {
            let _ = write!(s, "|shake={m}");
        }
        let options = self.options.key();
        if !options.is_empty() {
            let _ = write!(s, "|{options}");
        }
        if self.observe {
            s.push_str("|observe");
        }
        if let Policy::External(e) = &self.sched {
            let _ = write!(s, "|sha256={}", e.digest);
        }
        s
    }
}

impl Panel {
    /// The cell of series `s` at `x`.
    pub fn cell(&self, s: usize, x: f64) -> Result<Cell, String> {
        let series = &self.series[s];
        let fill = |t: &str| fill(t, x, self.jobs);
        let on_lf = self.x.name == LOAD_FACTOR;
        let workload = fill(&self.workload)?;
        let sched = self.policy(fill(&series.sched)?)?;
        let alloc = fill(&series.alloc)?
            .parse::<AllocKind>()
            .map_err(|e| e.to_string())?;
        let estimate = fill(&series.estimate)?
            .parse::<EstimateModel>()
            .map_err(|e| e.to_string())?;
        let seed_key = match &self.seed_key {
            Some(t) if t.contains(SWEEP_CELL) => {
                let lf = if on_lf {
                    x
                } else {
                    self.load_factor.unwrap_or(1.0)
                };
                let key = crate::sweep::cell_key(&sched, alloc, lf, estimate);
                fill(&t.replace(SWEEP_CELL, &key))?
            }
            Some(t) => fill(t)?,
            None if on_lf => format!("{workload}|lf={x}"),
            None => match self.load_factor {
                Some(lf) => format!("{workload}|lf={lf}"),
                None => workload.clone(),
            },
        };
        Ok(Cell {
            sched,
            alloc,
            estimate,
            workload,
            machine: self.machine,
            jobs: self.jobs,
            load_factor: if on_lf { Some(x) } else { self.load_factor },
            seed_key,
            rule: self.rule,
            watch: self.watch,
            shake: self.shake,
            options: self.options.clone(),
            observe: self.observe,
        })
    }

    /// The policy `label` names: external (with its digest, once resolved) or built-in.
    fn policy(&self, label: String) -> Result<Policy, String> {
        if is_external(&label) {
            let digest = self.digests.get(&label).cloned().unwrap_or_default();
            return Ok(Policy::External(External { label, digest }));
        }
        let sched: SchedKind = label.parse().map_err(|e: SchedParseError| e.to_string())?;
        let orders = self.options.priority().map_err(|e| e.to_string())?;
        sched
            .check_order(&orders)
            .map_err(|e| format!("scheduler `{sched}`: {e}"))?;
        Ok(Policy::Builtin(sched))
    }

    /// The x values a series may visit (for `auto`: the schedule up to its cap).
    pub fn xs(&self) -> Vec<f64> {
        match &self.x.values {
            Xs::List(v) => v.clone(),
            Xs::Auto(a) => (0..).map_while(|i| a.load(i)).collect(),
        }
    }
}
