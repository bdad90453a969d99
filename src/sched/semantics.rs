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
//! the records by whoever loads the log ([`crate::trace::load`] does not read this field).
//!
//! The choices sit with the scheduler's view of the engine ([`System`](super::System)), which
//! hands them to the policies; the engine, above, carries them out.

use std::fmt;
use std::str::FromStr;

pub use crate::workload::rewrite::InputRewrite;

/// When the scheduler gets a pass.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Order {
    /// Departures, then overruns, then arrivals, then timers.
    #[default]
    DeparturesFirst,
    /// Overruns, then arrivals, then departures, then timers.
    ArrivalsFirst,
}

/// When a departing job's processors count as free.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ArrivalPass {
    /// Always.
    #[default]
    Always,
    /// Under `easy` (arrival order) only when the newcomer fits the free processors now, as pyss's
    /// `EasyBackfillScheduler` tests; `easy:sjbf` (its `EasyPlusPlusScheduler`) passes always.
    IfFits,
}

/// The length a backfilling test gives a waiting job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BackfillLength {
    /// Its estimate (or prediction).
    #[default]
    Estimate,
    /// Its run time, as the job will run (CQSim's test); running jobs still end at their estimates.
    RunTime,
}

/// When a predictor ([`crate::estimate::Predictor`]) gives a waiting job its estimate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
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
    fn textbook_is_the_default() {
        assert_eq!(Semantics::default(), Profile::Textbook.semantics());
    }
}
