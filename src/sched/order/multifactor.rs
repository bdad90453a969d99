//! Slurm's multifactor priority (Slurm documentation, "Multifactor Priority Plugin"): the weighted
//! sum of factors between 0 and 1,
//!
//! ```text
//! priority = w_age · age + w_fairshare · fairshare + w_size · size + w_queue · queue + w_partition · partition
//! ```
//!
//! * **age** = min(wait / max age, 1) (`PriorityMaxAge`, default 7 days);
//! * **fairshare** = the user's fair-share factor ([`super::fairshare`]);
//! * **size** = nodes / machine nodes (`PriorityFavorSmall=NO`, Slurm's default: the larger the job
//!   the larger its factor, 1 for the whole machine; Slurm averages a node and a CPU fraction,
//!   which are one here);
//! * **queue** = the job's queue priority / the highest queue priority (Slurm's *partition* factor,
//!   a partition being the queue a job is submitted to: SWF field 15);
//! * **partition** = the same for SWF field 16 (the machine partition), with a weight of its own.
//!
//! Queue and partition priorities come from the shares file ([`super::Shares`]); every queue and
//! partition not listed (and a job without one) has priority 1, so by default both factors are 1
//! for every job and change no order. The default weights are those of the documentation's
//! configuration example (`PriorityWeightAge=1000`, `PriorityWeightFairshare=10000`,
//! `PriorityWeightJobSize=1000`, `PriorityWeightPartition=1000`; the partition weight here too).
//!
//! Simplified: the sum is kept as a real number (Slurm truncates it to an integer, which makes
//! ties that its submit-time rule then breaks); no QOS, association, nice, site or TRES factors;
//! the age counts from submission (Slurm's from eligibility, the same for jobs without
//! dependencies or holds, which logs do not record).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::SimTime;

/// The multifactor weights and the age cap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Weights {
    /// `PriorityWeightAge`.
    pub age: f64,
    /// `PriorityWeightFairshare`.
    pub fairshare: f64,
    /// `PriorityWeightJobSize`.
    pub size: f64,
    /// `PriorityWeightPartition`, on the job's queue (SWF field 15).
    pub queue: f64,
    /// The same on the job's partition (SWF field 16).
    pub partition: f64,
    /// `PriorityMaxAge`: the wait at which the age factor reaches 1 (seconds).
    pub max_age: SimTime,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            age: 1000.0,
            fairshare: 10_000.0,
            size: 1000.0,
            queue: 1000.0,
            partition: 1000.0,
            max_age: 7.0 * 86_400.0,
        }
    }
}

/// The keys of a weights list, in the order they print.
const KEYS: [&str; 6] = ["age", "fairshare", "size", "queue", "partition", "max_age"];

/// A weights list that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("priority weights `{text}`: {problem}")]
pub struct WeightsError {
    /// The list as written.
    pub text: String,
    /// What is wrong.
    pub problem: String,
}

impl Weights {
    fn slot(&mut self, key: &str) -> Option<&mut f64> {
        Some(match key {
            "age" => &mut self.age,
            "fairshare" => &mut self.fairshare,
            "size" => &mut self.size,
            "queue" => &mut self.queue,
            "partition" => &mut self.partition,
            "max_age" => &mut self.max_age,
            _ => return None,
        })
    }

    /// Every weight finite and ≥ 0, the age cap > 0; otherwise what is wrong.
    pub fn check(&self) -> Result<(), String> {
        let mut copy = *self;
        for key in KEYS {
            let v = *copy.slot(key).expect("a key");
            let bad = !v.is_finite() || v < 0.0 || (key == "max_age" && v == 0.0);
            if bad {
                let want = if key == "max_age" {
                    "a positive number of seconds"
                } else {
                    "a finite number ≥ 0"
                };
                return Err(format!("`{key}` is {v}, not {want}"));
            }
        }
        Ok(())
    }

    /// The age factor of a job that has waited `wait` seconds.
    pub(crate) fn age_factor(&self, wait: SimTime) -> f64 {
        (wait / self.max_age).clamp(0.0, 1.0)
    }
}

impl FromStr for Weights {
    type Err = WeightsError;
    /// `key=value` pairs separated by `,` (any subset of `age`, `fairshare`, `size`, `queue`,
    /// `partition`, `max_age`), the others at their defaults.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |problem: String| WeightsError {
            text: s.to_string(),
            problem,
        };
        let mut w = Weights::default();
        let mut seen = Vec::new();
        for pair in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(fail(format!("`{pair}` is not KEY=VALUE")));
            };
            let key = key.trim();
            let slot = w
                .slot(key)
                .ok_or_else(|| fail(format!("unknown key `{key}`; known: {}", KEYS.join(", "))))?;
            if seen.contains(&key) {
                return Err(fail(format!("`{key}` is given twice")));
            }
            seen.push(key);
            *slot = value
                .trim()
                .parse::<f64>()
                .map_err(|_| fail(format!("`{key}={}`: not a number", value.trim())))?;
        }
        w.check().map_err(fail)?;
        Ok(w)
    }
}

impl fmt::Display for Weights {
    /// Every key, in the order of [`KEYS`] (parses back to the same weights).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut copy = *self;
        let pairs: Vec<String> = KEYS
            .iter()
            .map(|k| format!("{k}={}", copy.slot(k).expect("a key")))
            .collect();
        f.write_str(&pairs.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_parse_any_subset_and_print_back() {
        let w: Weights = "age=10, size=0,max_age=3600".parse().expect("valid");
        assert_eq!((w.age, w.size, w.max_age), (10.0, 0.0, 3600.0));
        assert_eq!(w.fairshare, Weights::default().fairshare);
        assert_eq!(w.to_string().parse::<Weights>(), Ok(w));
        assert_eq!("".parse::<Weights>(), Ok(Weights::default()));
    }

    #[test]
    fn bad_weights_are_one_line_errors() {
        for (text, needle) in [
            ("age=ten", "`age=ten`: not a number"),
            ("age=-1", "`age` is -1"),
            ("fairshare=inf", "`fairshare` is inf"),
            ("max_age=0", "a positive number of seconds"),
            ("speed=1", "unknown key `speed`"),
            ("age", "not KEY=VALUE"),
            ("age=1,age=2", "given twice"),
            ("size=NaN", "`size` is NaN"),
        ] {
            let e = text.parse::<Weights>().expect_err(text).to_string();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(!e.contains('\n'));
        }
    }

    #[test]
    fn the_age_factor_is_capped() {
        let w = Weights {
            max_age: 100.0,
            ..Weights::default()
        };
        assert_eq!(w.age_factor(0.0), 0.0);
        assert_eq!(w.age_factor(50.0), 0.5);
        assert_eq!(w.age_factor(1e9), 1.0);
    }
}
