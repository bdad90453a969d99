//! When the scheduler runs: the choices other simulators make about one instant, as named
//! [`Profile`]s of [`Semantics`].
//!
//! No paper prints these choices, yet they move start times: on KTH-SP2 under EASY 456 of 28,481
//! between `textbook` and `pyss-sc15`, 776 of the first 2,999 between `textbook` and `cqsim`
//! (docs/ALGORITHMS.md, "Scheduling semantics", with the simulators' own schedules). Each is one
//! field of [`Semantics`] (a field of [`ReplayOptions`](crate::engine::ReplayOptions)); a profile
//! sets them together to follow one simulator's code (docs/ALGORITHMS.md, "Scheduling semantics",
//! names the repository, file and function of each):
//!
//! | profile | passes | order of an instant | processors free | arrival pass | backfill test | predictions | input |
//! |---|---|---|---|---|---|---|---|
//! | `textbook` (default) | [`Passes::Instant`] | [`Order::DeparturesFirst`] | [`Release::AtEnd`] | [`ArrivalPass::Always`] | [`BackfillLength::Estimate`] | [`Prediction::AtSubmission`], exact | [`InputRewrite::AsLogged`] |
//! | `pyss-sc15` | [`Passes::Event`] | [`Order::ArrivalsFirst`] | [`Release::Booked`] | [`ArrivalPass::IfFits`] | estimate | at submission, whole seconds | [`InputRewrite::Sc15`] |
//! | `pyss` | event | arrivals first | booked | always | estimate | [`Prediction::EveryPass`], whole seconds | as logged |
//! | `cqsim` | event | departures first | at end | always | [`BackfillLength::RunTime`] | at submission, exact | [`InputRewrite::Cqsim`] |
//!
//! The engine reads the passes, the order, the release and the prediction fields; `easy` reads the
//! arrival pass through [`System::semantics`](crate::sched::System::semantics) and the backfill
//! length through [`System::backfill_length`](crate::sched::System::backfill_length). The input
//! rewriting is the workload layer's [`rewrite`](crate::workload::rewrite::rewrite), applied to
//! each record as the log is converted ([`crate::trace::load`]'s `input`, which every front end
//! takes from the replay's semantics; an experiment prepares a log once per reading).
//!
//! The choices sit with the scheduler's view of the engine ([`System`](super::System)), which
//! hands them to the policies; the engine, above, carries them out.

use std::fmt;
use std::str::FromStr;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};

pub use crate::workload::rewrite::InputRewrite;

/// When the scheduler gets a pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Passes {
    /// One pass per instant, after all of its departures and arrivals (the deferred pass of the
    /// backfilling policies; the FIFO policies decide per batch of departures and per arrival).
    #[default]
    Instant,
    /// A pass after every single departure and every single arrival, in the instant's order: each
    /// is delivered alone and a timer set for the current instant fires right after it. An overrun
    /// (a running job outliving its prediction) gets no pass: the next pass sees its new estimate.
    Event,
}

/// The order of an instant's departures and arrivals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// Departures, then overruns, then arrivals, then timers.
    #[default]
    DeparturesFirst,
    /// Overruns, then arrivals, then departures, then timers.
    ArrivalsFirst,
}

/// When a departing job's processors count as free.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Release {
    /// At the job's departure, in the instant's order.
    #[default]
    AtEnd,
    /// Booked until start + estimate: a job that ends exactly at its estimate is free from the
    /// instant's first event on (its departure still comes in the instant's order), a job that
    /// ends earlier only at its own departure.
    Booked,
}

/// Whether an arrival always gets a pass (under [`Passes::Event`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArrivalPass {
    /// Always.
    #[default]
    Always,
    /// Under `easy` (arrival order) only when the newcomer fits the free processors now, as pyss's
    /// `EasyBackfillScheduler` tests; `easy:sjbf` (its `EasyPlusPlusScheduler`) passes always.
    IfFits,
}

/// The length a backfilling test gives a waiting job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BackfillLength {
    /// Its estimate (or prediction).
    #[default]
    Estimate,
    /// Its run time, as the job will run (CQSim's test); running jobs still end at their estimates.
    RunTime,
}

/// When a predictor ([`crate::estimate::Predictor`]) gives a waiting job its estimate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Prediction {
    /// Once, at its submission.
    #[default]
    AtSubmission,
    /// At its submission and again whenever a job of the same user completes while it waits: the
    /// same as predicting every waiting job at every pass, since only completions change a
    /// prediction.
    EveryPass,
}

/// The scheduling semantics of one replay (default: `textbook`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Semantics {
    /// The profile these choices came from (its name in tables).
    pub profile: Profile,
    /// When the scheduler gets a pass.
    pub passes: Passes,
    /// The order of an instant's departures and arrivals.
    pub order: Order,
    /// When a departing job's processors count as free.
    pub release: Release,
    /// Whether an arrival always gets a pass.
    pub arrival_pass: ArrivalPass,
    /// The length a backfilling test gives a waiting job.
    pub backfill_length: BackfillLength,
    /// When a predictor gives a waiting job its estimate.
    pub prediction: Prediction,
    /// Predictions rounded down to whole seconds (the Python simulators' integer division).
    pub whole_second_predictions: bool,
    /// How the log is rewritten before it becomes jobs.
    pub input: InputRewrite,
}

/// A named set of [`Semantics`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Profile {
    /// One pass per instant after all of its departures and arrivals; the textbook reading.
    #[default]
    Textbook,
    /// The `predictsim` fork of pyss used by Gaussier, Glesser, Reis & Trystram (SC 2015).
    PyssSc15,
    /// pyss, the simulator of Tsafrir, Etsion & Feitelson (EASY++ re-predicts at every pass).
    Pyss,
    /// CQSim (SPEAR, Illinois Tech).
    Cqsim,
}

impl Profile {
    /// Every profile, in documentation order.
    pub const ALL: [Profile; 4] = [
        Profile::Textbook,
        Profile::PyssSc15,
        Profile::Pyss,
        Profile::Cqsim,
    ];

    /// The profile's name (`pyss-sc15`).
    pub fn label(self) -> &'static str {
        match self {
            Profile::Textbook => "textbook",
            Profile::PyssSc15 => "pyss-sc15",
            Profile::Pyss => "pyss",
            Profile::Cqsim => "cqsim",
        }
    }

    /// The choices the profile makes.
    pub fn semantics(self) -> Semantics {
        let textbook = Semantics::default();
        let pyss = Semantics {
            profile: self,
            passes: Passes::Event,
            order: Order::ArrivalsFirst,
            release: Release::Booked,
            whole_second_predictions: true,
            ..textbook
        };
        match self {
            Profile::Textbook => textbook,
            Profile::PyssSc15 => Semantics {
                arrival_pass: ArrivalPass::IfFits,
                input: InputRewrite::Sc15,
                ..pyss
            },
            Profile::Pyss => Semantics {
                prediction: Prediction::EveryPass,
                ..pyss
            },
            Profile::Cqsim => Semantics {
                profile: self,
                passes: Passes::Event,
                backfill_length: BackfillLength::RunTime,
                input: InputRewrite::Cqsim,
                ..textbook
            },
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A profile name that is not one of [`Profile::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("semantics `{0}` is not one of {labels}", labels = profile_labels())]
pub struct ProfileParseError(pub String);

/// The profile names, comma-separated (for help texts and errors).
pub fn profile_labels() -> String {
    Profile::ALL.map(Profile::label).join(", ")
}

impl FromStr for Profile {
    type Err = ProfileParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Profile::ALL
            .into_iter()
            .find(|p| p.label() == s)
            .ok_or_else(|| ProfileParseError(s.to_string()))
    }
}

impl From<Profile> for Semantics {
    fn from(p: Profile) -> Self {
        p.semantics()
    }
}

/// The choices of a [`Semantics`] as an experiment file or Python writes them: a profile and the
/// choices that differ from it (every one optional).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Choices {
    #[serde(default)]
    profile: Profile,
    #[serde(skip_serializing_if = "Option::is_none")]
    passes: Option<Passes>,
    #[serde(skip_serializing_if = "Option::is_none")]
    order: Option<Order>,
    #[serde(skip_serializing_if = "Option::is_none")]
    release: Option<Release>,
    #[serde(skip_serializing_if = "Option::is_none")]
    arrival_pass: Option<ArrivalPass>,
    #[serde(skip_serializing_if = "Option::is_none")]
    backfill_length: Option<BackfillLength>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prediction: Option<Prediction>,
    #[serde(skip_serializing_if = "Option::is_none")]
    whole_second_predictions: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<InputRewrite>,
}

/// `Some(a)` when it differs from the profile's `b`.
fn differs<T: PartialEq>(a: T, b: T) -> Option<T> {
    (a != b).then_some(a)
}

impl Semantics {
    /// The choices that differ from the profile's.
    fn choices(&self) -> Choices {
        let p = self.profile.semantics();
        Choices {
            profile: self.profile,
            passes: differs(self.passes, p.passes),
            order: differs(self.order, p.order),
            release: differs(self.release, p.release),
            arrival_pass: differs(self.arrival_pass, p.arrival_pass),
            backfill_length: differs(self.backfill_length, p.backfill_length),
            prediction: differs(self.prediction, p.prediction),
            whole_second_predictions: differs(
                self.whole_second_predictions,
                p.whole_second_predictions,
            ),
            input: differs(self.input, p.input),
        }
    }

    /// The profile's semantics with the choices given over it.
    fn of(c: Choices) -> Semantics {
        let p = c.profile.semantics();
        Semantics {
            profile: c.profile,
            passes: c.passes.unwrap_or(p.passes),
            order: c.order.unwrap_or(p.order),
            release: c.release.unwrap_or(p.release),
            arrival_pass: c.arrival_pass.unwrap_or(p.arrival_pass),
            backfill_length: c.backfill_length.unwrap_or(p.backfill_length),
            prediction: c.prediction.unwrap_or(p.prediction),
            whole_second_predictions: c
                .whole_second_predictions
                .unwrap_or(p.whole_second_predictions),
            input: c.input.unwrap_or(p.input),
        }
    }
}

/// A profile's semantics is written as its name (`"pyss"`); semantics that change some of its
/// choices as a table of the profile and those choices (`{ profile = "pyss", passes = "instant" }`).
impl Serialize for Semantics {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if *self == self.profile.semantics() {
            self.profile.serialize(s)
        } else {
            self.choices().serialize(s)
        }
    }
}

/// Reads a profile's name or a table of a profile (default `textbook`) and the choices it changes.
impl<'de> Deserialize<'de> for Semantics {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Read;
        impl<'de> Visitor<'de> for Read {
            type Value = Semantics;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(
                    f,
                    "a profile ({}) or a table of a profile and choices",
                    profile_labels()
                )
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Semantics, E> {
                v.parse::<Profile>()
                    .map(Profile::semantics)
                    .map_err(de::Error::custom)
            }
            fn visit_map<M: MapAccess<'de>>(self, m: M) -> Result<Semantics, M::Error> {
                Choices::deserialize(de::value::MapAccessDeserializer::new(m)).map(Semantics::of)
            }
        }
        d.deserialize_any(Read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_parses_back_and_names_itself() {
        for p in Profile::ALL {
            assert_eq!(p.label().parse::<Profile>(), Ok(p));
            assert_eq!(p.semantics().profile, p);
        }
        let e = "nope".parse::<Profile>().unwrap_err().to_string();
        for p in Profile::ALL {
            assert!(e.contains(p.label()), "{e}");
        }
    }

    #[test]
    fn semantics_read_as_a_profile_name_or_a_profile_and_its_changed_choices() {
        #[derive(Debug, Clone, Deserialize, Serialize)]
        struct File {
            semantics: Semantics,
        }
        for p in Profile::ALL {
            let text = toml::to_string(&File {
                semantics: p.into(),
            })
            .unwrap();
            assert_eq!(text.trim(), format!("semantics = \"{}\"", p.label()));
        }
        let read = |t: &str| toml::from_str::<File>(t).map(|f| f.semantics);
        let changed = read("semantics = { profile = \"pyss\", passes = \"instant\" }").unwrap();
        assert_eq!(
            changed,
            Semantics {
                passes: Passes::Instant,
                ..Profile::Pyss.semantics()
            }
        );
        let text = toml::to_string(&File { semantics: changed }).unwrap();
        assert_eq!(read(&text), Ok(changed), "{text}");
        assert_eq!(
            read("semantics = { input = \"cqsim\" }").unwrap().input,
            InputRewrite::Cqsim
        );
        let e = read("semantics = \"slurm\"").unwrap_err().to_string();
        assert!(e.contains("pyss-sc15"), "{e}");
        let e = read("semantics = { passes = \"sometimes\" }")
            .unwrap_err()
            .to_string();
        assert!(e.contains("event"), "{e}");
    }

    #[test]
    fn textbook_is_the_default() {
        assert_eq!(Semantics::default(), Profile::Textbook.semantics());
    }
}
