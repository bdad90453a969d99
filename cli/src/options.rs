//! The replay options' flags ([`ReplayArgs`]), shared by `run`, `draw`, `sweep` and `experiment`
//! (`#[command(flatten)]`): one field per field of the library's [`ReplayOptions`], of the same
//! name, so that `--kill-at-estimate` is `kill_at_estimate`. The flags become the options through
//! serde ([`ReplayArgs::options`]): a new option is one field here (with its help), no conversion
//! code (the recipe is in [`pwa_replay::engine::options`]).

use std::collections::BTreeMap;

use pwa_replay::engine::{Dilation, Profile, ReplayOptions};
use pwa_replay::sched::order::{PriorityConfig, Shares, Weights, parse_duration};
use serde::{Deserialize, Serialize, Serializer};

/// How every replay runs: the flags of [`ReplayOptions`]. Each is a `bool` or an `Option`, so that
/// a flag not given leaves its option at the default (and `experiment` can tell it from one
/// given).
#[derive(Debug, Clone, Default, clap::Args, Serialize)]
pub struct ReplayArgs {
    /// End a job at its estimate when its run time is longer (as batch systems enforce walltimes).
    #[arg(long)]
    pub kill_at_estimate: bool,
    /// Stretch each job's run time by the dispersal of its nodes: linear:α runs a job
    /// run × (1 + α·(mean pairwise hops / contiguous optimum − 1)) — a communication model, not a
    /// measurement (docs/ALGORITHMS.md, "Dilation"). Off by default.
    #[arg(long, value_name = "linear:α")]
    pub dilation: Option<Dilation>,
    /// Scheduling semantics: when the scheduler runs and what it is told, as another simulator
    /// does (docs/ALGORITHMS.md, "Scheduling semantics"); textbook (the default), pyss-sc15, pyss
    /// or cqsim. Single choices over a profile are keys of an experiment file or of Python's
    /// `semantics={...}`.
    #[arg(long, value_name = "PROFILE")]
    pub semantics: Option<Profile>,
    /// Defines a queue order by name for `SCHED:order=NAME`: a priority expression over the job
    /// and the moment, larger first (docs/ALGORITHMS.md, "Queue orders"); repeat for several.
    #[arg(long = "order-def", value_name = "NAME=EXPR", value_parser = definition)]
    #[serde(serialize_with = "as_table")]
    pub orders: Vec<(String, String)>,
    /// The fair-share usage half-life (Slurm's PriorityDecayHalfLife): seconds, or with a unit
    /// s, m, h, d (`12h`); inf: no decay. Default 7d.
    #[arg(long, value_name = "DURATION", value_parser = half_life)]
    pub half_life: Option<f64>,
    /// A shares file: `user N S`, `group N S`, `queue N P`, `partition N P` lines (fair-share
    /// shares, multifactor queue and partition priorities). Default: equal shares.
    #[arg(long, value_name = "FILE", value_parser = shares_file)]
    pub shares: Option<Shares>,
    /// The multifactor order's weights and age cap: `age=W,fairshare=W,size=W,queue=W,
    /// partition=W,max_age=SECONDS` (those not given keep Slurm's example's values).
    #[arg(long, value_name = "KEY=W,…")]
    pub weights: Option<Weights>,
    /// Measure each job's fair start time (when it would have started had no later job
    /// arrived: a fork of the replay per job still waiting at the next arrival) and the jobs
    /// started after it (unfair_jobs, unfair_delay_s); a per-job fair_start column.
    #[arg(long)]
    pub fairness: bool,
}

/// A `--order-def NAME=EXPR`, checked (the expression compiles).
fn definition(text: &str) -> Result<(String, String), String> {
    let mut config = PriorityConfig::default();
    config.define(text).map_err(|e| e.to_string())?;
    config
        .orders
        .pop_first()
        .ok_or_else(|| format!("`{text}`: expected NAME=EXPR"))
}

/// A `--half-life` duration in seconds.
fn half_life(text: &str) -> Result<f64, String> {
    parse_duration(text).ok_or_else(|| {
        format!("`{text}` is not a positive duration (seconds, or with a unit s, m, h, d; inf)")
    })
}

/// The shares file at `path`, read and checked.
fn shares_file(path: &str) -> Result<Shares, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    text.parse().map_err(|e| format!("{path}: {e}"))
}

/// The definitions as the options' table of name → expression.
fn as_table<S: Serializer>(defs: &[(String, String)], s: S) -> Result<S::Ok, S::Error> {
    defs.iter()
        .cloned()
        .collect::<BTreeMap<_, _>>()
        .serialize(s)
}

impl ReplayArgs {
    /// The options the flags set, the others at their defaults.
    pub fn options(&self) -> anyhow::Result<ReplayOptions> {
        let mut flags = serde_json::to_value(self)?;
        if let Some(given) = flags.as_object_mut() {
            // A flag not given leaves its option at the default.
            given.retain(|_, v| !v.is_null());
        }
        Ok(ReplayOptions::deserialize(flags)?)
    }

    /// Every option with a value (an `Option` unset and an empty table are left out), by name:
    /// the labels of a run.
    pub fn labels(&self) -> anyhow::Result<Vec<(String, serde_json::Value)>> {
        let options = serde_json::to_value(self.options()?)?;
        let mut labels = Vec::new();
        let unset =
            |v: &serde_json::Value| v.is_null() || v.as_object().is_some_and(|t| t.is_empty());
        if let serde_json::Value::Object(map) = options {
            labels.extend(map.into_iter().filter(|(_, v)| !unset(v)));
        }
        Ok(labels)
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Debug, Parser)]
    struct Flags {
        #[command(flatten)]
        replay: ReplayArgs,
    }

    /// Every option of the library has its flag, and every flag reads back as its option.
    #[test]
    fn every_replay_option_has_a_flag_of_its_name() {
        let flags = serde_json::to_value(ReplayArgs::default()).unwrap();
        let flags: Vec<&String> = flags.as_object().unwrap().keys().collect();
        let mut keys: Vec<&str> = ReplayOptions::keys().to_vec();
        keys.sort_unstable();
        assert_eq!(flags, keys);
        let given = Flags::try_parse_from([
            "x",
            "--kill-at-estimate",
            "--dilation",
            "linear:1",
            "--semantics",
            "pyss",
        ])
        .unwrap()
        .replay
        .options()
        .unwrap();
        assert!(given.kill_at_estimate);
        assert_eq!(given.dilation, Some(Dilation::Linear { alpha: 1.0 }));
        assert_eq!(given.semantics, Profile::Pyss.semantics());
        let none = Flags::try_parse_from(["x"])
            .unwrap()
            .replay
            .options()
            .unwrap();
        assert_eq!(none, ReplayOptions::default());
    }
}
