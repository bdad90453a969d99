//! EASY++'s run-time predictor (Tsafrir, Etsion & Feitelson, "Backfilling using system-generated
//! predictions rather than user runtime estimates", IEEE TPDS 18(6), 2007): a job is predicted to
//! run as long as the mean of its user's two last completed jobs, never longer than its user
//! estimate; a job that outlives its prediction gets a longer one, step by step.
//!
//! The paper itself was not at hand; predictor and correction follow the public implementation in
//! the `predictsim` fork of pyss (`predictor_tsafrir.py`, the `tsafrir` corrector of
//! `common_correctors.py`, which cites the paper), read through the code search
//! (docs/ALGORITHMS.md, "Run-time predictions and EASY++"):
//!
//! * **History.** The two jobs of the same user (SWF field 12) that *completed* last before the
//!   submission, in order of completion. With fewer than two, or no user, the prediction is the
//!   user estimate.
//! * **Cap.** A prediction is never above the user estimate (the job's limit).
//! * **Correction** ([`Correction`]). A job still running at the end of its prediction gets, at
//!   that instant, a longer one: by default (`predict`, [`Correction::Steps`]) its *first*
//!   prediction plus the k-th of 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 5 h, 10 h, 20 h, 50 h,
//!   100 h at the k-th correction, capped by the user estimate, past the last step the user
//!   estimate; with `predict:estimate` ([`Correction::Estimate`], that code's `reqtime`) the user
//!   estimate at once.

use rustc_hash::FxHashMap;

use super::Predictor;
use crate::SimTime;
use crate::packed::UserId;
use crate::workload::{Correction, Job};

/// Minutes added to the first prediction by the successive corrections of a job that outlives it.
const STEPS_MIN: [f64; 11] = [
    1.0, 5.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 3000.0, 6000.0,
];

/// The mean run time of the user's two last completed jobs.
#[derive(Debug, Default)]
pub struct RecentUserMean {
    /// Per user: the run times of the last and the one-before-last completed jobs.
    history: FxHashMap<u32, Recent>,
    correction: Correction,
    /// The mean rounded down to whole seconds before the cap (pyss: `int((a + b) / 2)`).
    whole_seconds: bool,
}

impl RecentUserMean {
    /// A predictor with no history, extending outlived predictions by `correction`.
    pub fn new(correction: Correction) -> Self {
        RecentUserMean {
            history: FxHashMap::default(),
            correction,
            whole_seconds: false,
        }
    }

    /// The same predictor, its means rounded down to whole seconds when `on`.
    pub fn whole_seconds(self, on: bool) -> Self {
        RecentUserMean {
            whole_seconds: on,
            ..self
        }
    }
}

/// The run times of a user's last completed jobs, the latest first.
#[derive(Debug, Clone, Copy)]
enum Recent {
    One(SimTime),
    Two(SimTime, SimTime),
}

impl Recent {
    /// The mean of the two, once there are two.
    fn mean(self) -> Option<SimTime> {
        match self {
            Recent::One(_) => None,
            Recent::Two(a, b) => Some((a + b) / 2.0),
        }
    }

    fn push(self, ran: SimTime) -> Recent {
        match self {
            Recent::One(a) | Recent::Two(a, _) => Recent::Two(ran, a),
        }
    }
}

impl Predictor for RecentUserMean {
    fn predict(&mut self, job: &Job) -> SimTime {
        let cap = job.estimate;
        job.user
            .and_then(|u| self.history.get(&u.get()))
            .and_then(|r| r.mean())
            .map(|m| if self.whole_seconds { m.floor() } else { m })
            .map_or(cap, |m| m.min(cap))
    }

    fn completed(&mut self, job: &Job, ran: SimTime) {
        if let Some(u) = job.user.map(UserId::get) {
            self.history
                .entry(u)
                .and_modify(|r| *r = r.push(ran))
                .or_insert(Recent::One(ran));
        }
    }

    fn extend(&self, job: &Job, first: SimTime, extensions: u32) -> SimTime {
        let cap = job.estimate;
        let step = match self.correction {
            Correction::Steps => STEPS_MIN.get(extensions as usize).map_or(cap, |m| m * 60.0),
            Correction::Estimate => cap,
        };
        (first + step).min(cap)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::{JobId, Request};

    fn job(user: Option<u32>, runtime: SimTime, estimate: SimTime) -> Job {
        Job {
            id: JobId(0),
            source_id: 1,
            submit: 0.0,
            runtime,
            estimate,
            requested: crate::packed::PackedTime::new(estimate),
            request: Request::Nodes(1),
            asked_procs: 1,
            user: user.and_then(UserId::new),
            group: None,
            queue: None,
            partition: None,
        }
    }

    /// The hand-worked stream: two jobs of a user, a third predicted from them.
    #[test]
    fn the_third_job_is_predicted_by_the_mean_of_the_two_before() {
        let mut p = RecentUserMean::default();
        let first = job(Some(7), 100.0, 3600.0);
        assert_eq!(p.predict(&first), 3600.0, "no history: the user estimate");
        p.completed(&first, 100.0);
        assert_eq!(
            p.predict(&job(Some(7), 0.0, 3600.0)),
            3600.0,
            "one job: still the user estimate"
        );
        p.completed(&job(Some(7), 300.0, 3600.0), 300.0);
        assert_eq!(p.predict(&job(Some(7), 0.0, 3600.0)), 200.0);
        assert_eq!(
            p.predict(&job(Some(7), 0.0, 150.0)),
            150.0,
            "capped by the estimate"
        );
        assert_eq!(p.predict(&job(Some(8), 0.0, 900.0)), 900.0, "another user");
        assert_eq!(p.predict(&job(None, 0.0, 900.0)), 900.0, "no user");
        p.completed(&job(Some(7), 500.0, 3600.0), 500.0);
        assert_eq!(
            p.predict(&job(Some(7), 0.0, 3600.0)),
            400.0,
            "the oldest is forgotten"
        );
    }

    /// pyss computes `int((a + b) / 2)` on whole seconds, then caps it.
    #[test]
    fn whole_second_predictions_round_the_mean_down_before_the_cap() {
        let mut p = RecentUserMean::default().whole_seconds(true);
        p.completed(&job(Some(7), 100.0, 3600.0), 100.0);
        p.completed(&job(Some(7), 301.0, 3600.0), 301.0);
        assert_eq!(p.predict(&job(Some(7), 0.0, 3600.0)), 200.0);
        assert_eq!(
            p.predict(&job(Some(7), 0.0, 150.5)),
            150.5,
            "the cap as given"
        );
        let mut exact = RecentUserMean::default();
        exact.completed(&job(Some(7), 100.0, 3600.0), 100.0);
        exact.completed(&job(Some(7), 301.0, 3600.0), 301.0);
        assert_eq!(exact.predict(&job(Some(7), 0.0, 3600.0)), 200.5);
    }

    #[test]
    fn an_outlived_prediction_grows_by_the_steps_up_to_the_estimate() {
        // First prediction 200 s: corrections to 200 + 1 min, 200 + 5 min, 200 + 15 min, …
        let p = RecentUserMean::default();
        let j = job(Some(1), 10_000.0, 7200.0);
        assert_eq!(p.extend(&j, 200.0, 0), 260.0);
        assert_eq!(p.extend(&j, 200.0, 1), 500.0);
        assert_eq!(p.extend(&j, 200.0, 2), 1100.0);
        assert_eq!(p.extend(&j, 200.0, 5), 7200.0, "capped by the estimate");
        assert_eq!(
            p.extend(&j, 100.0, 11),
            7200.0,
            "past the last step: the estimate"
        );
        let at_once = RecentUserMean::new(Correction::Estimate);
        assert_eq!(at_once.extend(&j, 200.0, 0), 7200.0);
    }
}
