//! Input shaking (Tsafrir, Ouaknine & Feitelson, "Reducing performance evaluation sensitivity and
//! variability by input shaking", MASCOTS 2007): a replay of one log is one sample; replaying
//! slightly perturbed copies of it gives a mean and a confidence interval instead of a single,
//! possibly lucky, number.
//!
//! [`shake`] is a pure function of (workload, seed, [`ShakeModel`]) → workload:
//!
//! * every submit time moves by an offset drawn uniformly from `[−submit_s, +submit_s]` seconds,
//!   and is clamped at 0 (no job arrives before the start of the replay);
//! * when `runtime_frac` is `F > 0`, every run time is multiplied by a factor drawn uniformly from
//!   `[1 − F, 1 + F]`; an estimate equal to the run time (exact estimates) follows it, other
//!   estimates (user requests) stay as they are;
//! * the jobs are re-sorted by the new submit times, ties in their previous order, and renumbered.
//!
//! Each job draws its two numbers from one ChaCha8 stream seeded by `seed`, in job order, whether
//! or not the run-time perturbation is on: the same seed moves the same job by the same offset
//! under any `runtime_frac` (common random numbers).
//!
//! ```
//! use pwa_replay::workload::shake::{ShakeModel, shake};
//! use pwa_replay::workload::{Job, JobId, Request, Workload};
//!
//! let job = |i: u32, submit: f64| Job {
//!     id: JobId(i), source_id: u64::from(i), submit, runtime: 100.0, estimate: 100.0,
//!     requested: None, request: Request::Nodes(1), asked_procs: 1, user: None,
//!     group: None, queue: None, partition: None,
//! };
//! let w = Workload::from_jobs((0..50).map(|i| job(i, 100.0 * f64::from(i))).collect(), 1);
//! let model = ShakeModel::default();
//! let a = shake(&w, 7, &model).unwrap();
//! assert_eq!(a.jobs, shake(&w, 7, &model).unwrap().jobs, "a pure function of the seed");
//! assert!(a.jobs.iter().zip(&w.jobs).all(|(s, j)| (s.submit - j.submit).abs() <= 10.0));
//! assert!(a.jobs.iter().all(|j| j.runtime == 100.0), "run times untouched by default");
//! ```

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Job, Workload};

/// Default submit-time perturbation: ±10 s (see docs/ALGORITHMS.md, "Input shaking").
pub const DEFAULT_SUBMIT_S: f64 = 10.0;

/// How a workload is shaken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShakeModel {
    /// Largest submit-time offset in seconds (uniform in `[−submit_s, +submit_s]`, ≥ 0).
    pub submit_s: f64,
    /// Largest relative run-time change (factor uniform in `[1 − F, 1 + F]`, `0 ≤ F < 1`; 0: off).
    pub runtime_frac: f64,
}

impl Default for ShakeModel {
    /// Submit times ±10 s, run times untouched.
    fn default() -> Self {
        ShakeModel {
            submit_s: DEFAULT_SUBMIT_S,
            runtime_frac: 0.0,
        }
    }
}

impl fmt::Display for ShakeModel {
    /// `submit=±10s,runtime=±0` (part of cache keys and report headers).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "submit=±{}s,runtime=±{}",
            self.submit_s, self.runtime_frac
        )
    }
}

/// A shaking model that cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ShakeError {
    /// The submit perturbation is negative or not finite.
    #[error("submit perturbation {0} s: must be a finite number ≥ 0")]
    BadSubmit(f64),
    /// The run-time fraction is outside `[0, 1)`.
    #[error("run-time perturbation {0}: must be in [0, 1) (a fraction of the run time)")]
    BadRuntime(f64),
}

impl ShakeModel {
    /// Checks the model's ranges.
    pub fn check(&self) -> Result<(), ShakeError> {
        if !(self.submit_s.is_finite() && self.submit_s >= 0.0) {
            return Err(ShakeError::BadSubmit(self.submit_s));
        }
        if !(self.runtime_frac.is_finite() && (0.0..1.0).contains(&self.runtime_frac)) {
            return Err(ShakeError::BadRuntime(self.runtime_frac));
        }
        Ok(())
    }
}

/// The workload `w` shaken by `model` with `seed` (see the module docs).
pub fn shake(w: &Workload, seed: u64, model: &ShakeModel) -> Result<Workload, ShakeError> {
    model.check()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let jobs = w
        .jobs
        .iter()
        .map(|j| {
            let (u_submit, u_run): (f64, f64) = (rng.random(), rng.random());
            shake_job(j, model, u_submit, u_run)
        })
        .collect();
    Ok(Workload {
        predictor: w.predictor,
        ..Workload::from_jobs(jobs, w.procs_per_node)
    })
}

/// One job moved by the uniform draws `u_submit`, `u_run` in `[0, 1)`.
fn shake_job(j: &Job, model: &ShakeModel, u_submit: f64, u_run: f64) -> Job {
    let submit = (j.submit + model.submit_s * (2.0 * u_submit - 1.0)).max(0.0);
    let factor = 1.0 + model.runtime_frac * (2.0 * u_run - 1.0);
    let runtime = j.runtime * factor;
    let estimate = if j.estimate == j.runtime {
        runtime
    } else {
        j.estimate
    };
    Job {
        submit,
        runtime,
        estimate,
        ..j.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::Request;

    fn job(i: u32, submit: f64, runtime: f64) -> Job {
        Job {
            requested: crate::packed::PackedTime::new(2.0 * runtime),
            ..Job::sample(i, submit, runtime, Request::Nodes(1 + i % 4))
        }
    }

    fn workload(n: u32, gap: f64) -> Workload {
        Workload::from_jobs(
            (0..n)
                .map(|i| job(i, gap * f64::from(i), 50.0 + f64::from(i)))
                .collect(),
            1,
        )
    }

    #[test]
    fn same_seed_same_workload_other_seed_other_workload() {
        let w = workload(200, 30.0);
        let m = ShakeModel {
            submit_s: 20.0,
            runtime_frac: 0.1,
        };
        let (a, b) = (shake(&w, 1, &m).unwrap(), shake(&w, 1, &m).unwrap());
        assert_eq!(a.jobs, b.jobs);
        assert_ne!(a.jobs, shake(&w, 2, &m).unwrap().jobs);
    }

    #[test]
    fn offsets_stay_in_range_and_are_spread_over_it() {
        let w = workload(2000, 100.0);
        let m = ShakeModel {
            submit_s: 10.0,
            runtime_frac: 0.0,
        };
        let s = shake(&w, 42, &m).unwrap();
        // Gaps of 100 s and offsets of at most 10 s: the order cannot change.
        let offsets: Vec<f64> = s
            .jobs
            .iter()
            .zip(&w.jobs)
            .map(|(a, b)| {
                assert_eq!(a.source_id, b.source_id);
                a.submit - b.submit
            })
            .collect();
        assert!(offsets.iter().skip(1).all(|d| d.abs() <= 10.0));
        let mean = offsets.iter().skip(1).sum::<f64>() / 1999.0;
        // Uniform on ±10: mean 0, s.d. 5.77, so the mean of 1999 has s.d. 0.13.
        assert!(mean.abs() < 0.6, "mean offset {mean}");
        assert!(offsets.iter().any(|d| *d > 9.0) && offsets.iter().any(|d| *d < -9.0));
        assert!(s.jobs.iter().all(|j| j.runtime == j.estimate));
        assert_eq!(s.jobs[0].submit.min(0.0), 0.0, "never before 0");
    }

    #[test]
    fn reordered_jobs_are_sorted_renumbered_and_never_negative() {
        let w = workload(500, 1.0);
        let s = shake(&w, 9, &ShakeModel::default()).unwrap();
        assert!(s.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
        assert!(s.jobs.iter().enumerate().all(|(i, j)| j.id.index() == i));
        assert!(s.jobs.iter().all(|j| j.submit >= 0.0));
        let mut ids: Vec<u64> = s.jobs.iter().map(|j| j.source_id).collect();
        ids.sort_unstable();
        assert_eq!(ids, (1..=500).collect::<Vec<u64>>(), "every job kept once");
        assert!(
            s.jobs
                .iter()
                .zip(&w.jobs)
                .any(|(a, b)| a.source_id != b.source_id),
            "1 s gaps under ±10 s offsets reorder"
        );
    }

    #[test]
    fn run_times_move_within_the_fraction_and_estimates_follow_exact_ones() {
        let mut w = workload(300, 60.0);
        w.jobs[5].estimate = 999.0;
        let m = ShakeModel {
            submit_s: 10.0,
            runtime_frac: 0.2,
        };
        let s = shake(&w, 3, &m).unwrap();
        for (a, b) in s.jobs.iter().zip(&w.jobs) {
            let f = a.runtime / b.runtime;
            assert!((0.8..=1.2).contains(&f), "factor {f}");
            assert_eq!(a.requested, b.requested);
        }
        assert_eq!(s.jobs[5].estimate, 999.0, "a user estimate is not shaken");
        assert!(
            s.jobs
                .iter()
                .filter(|j| j.id.index() != 5)
                .all(|j| j.estimate == j.runtime)
        );
        // Common random numbers: the submit offsets do not depend on the run-time fraction.
        let still = shake(
            &w,
            3,
            &ShakeModel {
                runtime_frac: 0.0,
                ..m
            },
        )
        .unwrap();
        let submits = |w: &Workload| w.jobs.iter().map(|j| j.submit).collect::<Vec<_>>();
        assert_eq!(submits(&s), submits(&still));
    }

    #[test]
    fn bad_models_are_errors() {
        let w = workload(3, 1.0);
        let bad = |submit_s, runtime_frac| {
            shake(
                &w,
                0,
                &ShakeModel {
                    submit_s,
                    runtime_frac,
                },
            )
            .unwrap_err()
        };
        assert_eq!(bad(-1.0, 0.0), ShakeError::BadSubmit(-1.0));
        assert!(matches!(bad(f64::NAN, 0.0), ShakeError::BadSubmit(_)));
        assert_eq!(bad(1.0, 1.0), ShakeError::BadRuntime(1.0));
        assert_eq!(bad(1.0, -0.1), ShakeError::BadRuntime(-0.1));
        let zero = ShakeModel {
            submit_s: 0.0,
            runtime_frac: 0.0,
        };
        assert_eq!(
            shake(&w, 5, &zero).unwrap().jobs,
            w.jobs,
            "a zero model is the identity"
        );
    }
}
