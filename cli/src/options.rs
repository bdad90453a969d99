//! The replay options' flags ([`ReplayArgs`]), shared by `run`, `draw`, `sweep` and `experiment`
//! (`#[command(flatten)]`): one field per field of the library's [`ReplayOptions`], of the same
//! name, so that `--kill-at-estimate` is `kill_at_estimate`. The flags become the options through
//! serde ([`ReplayArgs::options`]): a new option is one field here (with its help), no conversion
//! code (the recipe is in [`pwa_replay::engine::options`]).

use pwa_replay::engine::{Dilation, Profile, ReplayOptions};
use serde::{Deserialize, Serialize};

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

    /// Every option with a value (an `Option` unset is left out), by name: the labels of a run.
    pub fn labels(&self) -> anyhow::Result<Vec<(String, serde_json::Value)>> {
        let options = serde_json::to_value(self.options()?)?;
        let mut labels = Vec::new();
        if let serde_json::Value::Object(map) = options {
            labels.extend(map.into_iter().filter(|(_, v)| !v.is_null()));
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
