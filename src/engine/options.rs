//! The options of one replay: one value, [`ReplayOptions`], carried unchanged from every front end
//! to the engine.
//!
//! Every front end spells an option by its field name, through serde: an experiment file's
//! `[defaults]` and panel keys (`kill_at_estimate = true`, `dilation = "linear:0.5"`), the Python
//! functions' keyword arguments (`kill_at_estimate=True`), and the command line's flags
//! (`--kill-at-estimate`, the binary's `ReplayArgs`: one field each, named as here). Whatever
//! depends on the options — an experiment cell's id, the replica cache key, the labels `run`
//! prints — is derived from the value itself: [`ReplayOptions::key`] lists the options that differ
//! from the defaults, so a replay with default options keeps the id it had before an option was
//! added.
//!
//! # Adding a replay option
//!
//! 1. **The field**, here, with its `///` doc: a type with serde whose default (`Default`) is
//!    "off", so that replays that do not mention it are unchanged. A label type (a `Display` and a
//!    `FromStr`, such as [`Dilation`]) reads and writes as its label: its `Serialize` is
//!    `collect_str`, its `Deserialize` parses a string. Its effect goes in the engine (`engine/sim.rs`), or in whatever reads
//!    the options there.
//! 2. **The flag**: one field of the same name in the binary's `ReplayArgs`
//!    (`cli/src/options.rs`), a `bool` or an `Option<T>` (unset: the default), with its `--help`
//!    text. `run`, `sweep`, `draw` and `experiment` all flatten that struct.
//! 3. **The docs**: a row in the README's usage table, the key in `docs/EXPERIMENTS.md`, the
//!    keyword in `docs/PYTHON.md`.
//!
//! Nothing else: the experiment file reads the key (in `[defaults]` or a panel), Python reads the
//! keyword argument, cell ids and cache keys include it when it is set. Tests check that every field
//! has its flag and round-trips through the keys.

use std::collections::BTreeMap;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

use super::{Dilation, Semantics};
use crate::SimTime;
use crate::sched::order::{DEFAULT_HALF_LIFE, OrderError, PriorityConfig, Shares, Weights};
use crate::sched::semantics::Release;

/// Engine options of one replay (see the module doc for how each front end spells them).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReplayOptions {
    /// End a job at its estimate when its run time is longer (as batch systems enforce walltimes).
    pub kill_at_estimate: bool,
    /// Stretch each job's run time by the dispersal of its nodes ([`Dilation`]); `None`: off.
    pub dilation: Option<Dilation>,
    /// When the scheduler runs, and what it is told ([`crate::sched::semantics`]; default `textbook`):
    /// a profile's name (`"pyss"`), or a table of a profile and the choices it changes.
    pub semantics: Semantics,
    /// Queue orders defined by name, for scheduler labels `SCHED:order=NAME`: name → priority
    /// expression ([`crate::sched::order::expr`]). The expressions are part of cell ids.
    pub orders: BTreeMap<String, String>,
    /// The fair-share usage half-life in seconds (Slurm's `PriorityDecayHalfLife`); `None`: 7
    /// days.
    pub half_life: Option<SimTime>,
    /// Users' and groups' shares, queues' and partitions' priorities: the text of a shares file
    /// ([`Shares`]); `None`: equal shares, priority 1.
    pub shares: Option<Shares>,
    /// The `multifactor` order's weights and age cap ([`Weights`]); `None`: Slurm's example.
    pub weights: Option<Weights>,
    /// Measure each job's fair start time, when it would have started had no later job arrived
    /// (forks of the replay: [`Outcome::fair_starts`](super::Outcome::fair_starts)), and the
    /// summary's unfairness columns.
    pub fairness: bool,
}

impl ReplayOptions {
    /// What the queue orders read beyond the jobs: the definitions and the priority settings,
    /// checked (every expression compiles, the half-life is positive, the weights are numbers
    /// ≥ 0).
    pub fn priority(&self) -> Result<PriorityConfig, OrderError> {
        let config = PriorityConfig {
            orders: self.orders.clone(),
            half_life: self.half_life.unwrap_or(DEFAULT_HALF_LIFE),
            shares: self.shares.clone(),
            weights: self.weights.unwrap_or_default(),
            functions: Default::default(),
        };
        config.check()?;
        Ok(config)
    }

    /// Whether the engine itself reads the jobs' run-time estimates, whatever the scheduler: it
    /// ends jobs at them (`kill_at_estimate`), or books a job's processors until its estimate
    /// ([`Release::Booked`]). Under these options every schedule may change with the estimate
    /// model, not only a policy's that [plans with them](crate::sched::SchedKind::plans_with_estimates).
    pub fn engine_reads_estimates(&self) -> bool {
        self.kill_at_estimate || self.semantics.release == Release::Booked
    }

    /// The names of the options (the TOML keys and Python keyword arguments), in field order.
    pub fn keys() -> &'static [&'static str] {
        field_names::<ReplayOptions>()
    }

    /// The options that differ from the defaults, by name (sorted), as TOML values: what a
    /// replay's results depend on beyond its defaults.
    pub fn entries(&self) -> toml::Table {
        let all = |o: &ReplayOptions| toml::Table::try_from(o).unwrap_or_default();
        let defaults = all(&ReplayOptions::default());
        let mut set = all(self);
        set.retain(|k, v| defaults.get(k) != Some(v));
        set
    }

    /// The options read from `entries` (names as [`ReplayOptions::keys`]; those missing keep
    /// their defaults); an unknown name or a value of the wrong type is an error naming it.
    pub fn from_entries(entries: toml::Table) -> Result<ReplayOptions, toml::de::Error> {
        entries.try_into()
    }

    /// A stable text of [`ReplayOptions::entries`]: `name=value` joined by `|` (strings without
    /// quotes), empty for the defaults. Part of every cell id and cache key.
    pub fn key(&self) -> String {
        self.entries()
            .iter()
            .map(|(k, v)| match v {
                toml::Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join("|")
    }
}

/// The field names of a struct as its derived `Deserialize` asks for them: the deserializer below
/// records the list `deserialize_struct` is given and stops there.
fn field_names<T: for<'de> Deserialize<'de>>() -> &'static [&'static str] {
    struct Probe<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Probe<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("not a struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("names recorded"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
            option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
            ignored_any
        }
    }
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe(&mut names));
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kill() -> ReplayOptions {
        ReplayOptions {
            kill_at_estimate: true,
            ..ReplayOptions::default()
        }
    }

    fn dilated() -> ReplayOptions {
        ReplayOptions {
            dilation: Some(Dilation::Linear { alpha: 0.5 }),
            ..kill()
        }
    }

    #[test]
    fn the_keys_are_the_field_names() {
        let keys = ReplayOptions::keys();
        assert_eq!(keys[..2], ["kill_at_estimate", "dilation"]);
        for k in keys {
            let t = toml::Table::from_iter([((*k).to_string(), toml::Value::from("x"))]);
            if let Err(e) = ReplayOptions::from_entries(t) {
                assert!(!e.to_string().contains("unknown field"), "{k}: {e}");
            }
        }
    }

    #[test]
    fn the_defaults_have_no_entries_and_an_empty_key() {
        let d = ReplayOptions::default();
        assert!(d.entries().is_empty());
        assert_eq!(d.key(), "");
    }

    #[test]
    fn the_key_names_every_option_set_in_name_order() {
        assert_eq!(dilated().key(), "dilation=linear:0.5|kill_at_estimate=true");
        assert_eq!(kill().key(), "kill_at_estimate=true");
    }

    #[test]
    fn an_order_definition_enters_the_key_with_its_expression() {
        let define = |e: &str| ReplayOptions {
            orders: BTreeMap::from([("mine".to_string(), e.to_string())]),
            ..ReplayOptions::default()
        };
        let (a, b) = (define("wait / estimate"), define("wait / nodes"));
        assert!(a.key().contains("wait / estimate"), "{}", a.key());
        assert_ne!(
            a.key(),
            b.key(),
            "the same name, another expression: another cell"
        );
        assert_eq!(ReplayOptions::from_entries(a.entries()).unwrap(), a);
        assert_eq!(a.priority().unwrap().orders, a.orders);
        let bad = define("wait +");
        let e = bad.priority().unwrap_err().to_string();
        assert!(e.contains("column") && e.contains("mine"), "{e}");
    }

    #[test]
    fn entries_read_back_as_the_same_options() {
        for o in [ReplayOptions::default(), dilated()] {
            assert_eq!(ReplayOptions::from_entries(o.entries()).unwrap(), o);
        }
    }

    #[test]
    fn an_unknown_name_or_a_bad_value_is_refused_naming_it() {
        let mut t = toml::Table::new();
        t.insert("colour".into(), "red".into());
        let e = ReplayOptions::from_entries(t).unwrap_err().to_string();
        assert!(
            e.contains("colour") && e.contains("kill_at_estimate"),
            "{e}"
        );
        let mut t = toml::Table::new();
        t.insert("dilation".into(), "linear:-1".into());
        let e = ReplayOptions::from_entries(t).unwrap_err().to_string();
        assert!(e.contains("linear:α"), "{e}");
    }
}
