//! Independent replications of a simulation cell until a confidence interval is tight enough.
//!
//! window-k-mesh.md §5.1 repeats each synthetic run "enough times so that the relative error of
//! measured turnaround times does not exceed 5%". Here that is: replications `0, 1, 2, …` of a cell
//! run with seeds derived from a cell key ([`seed_for`]); after each replication `n ≥ min`, the
//! 95% Student-t confidence interval of the mean of the watched statistic (mean turnaround) is
//! computed, and the sequence stops at the first `n` whose half-width is at most `rel_half_width` ×
//! the mean, or at `max`.
//!
//! Replications run in parallel (rayon) in batches, but the stopping point is decided on prefixes,
//! one replication at a time, exactly as a serial loop would: extra replications of the last batch
//! are discarded. The result is therefore bit-identical to the serial one, whatever the thread count.
//!
//! ```
//! use pwa_replay::replicate::{Estimate, StopRule, replicate, seed_for};
//!
//! let rule = StopRule { min: 3, max: 50, rel_half_width: 0.05 };
//! // A "simulation" whose result is 10 ± a little, depending on the seed.
//! let runs = replicate(&rule, "demo", |seed| Ok::<f64, ()>(10.0 + (seed % 7) as f64 / 10.0), |x| *x)
//!     .unwrap();
//! let est = Estimate::of(&runs, |x| *x);
//! assert!(est.ci_high - est.mean <= 0.05 * est.mean);
//! assert_eq!(seed_for("demo", 0), seed_for("demo", 0));
//! ```

use rayon::prelude::*;
use sha2::{Digest, Sha256};

/// When to stop replicating.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StopRule {
    /// Fewest replications (at least 2 for a confidence interval; values below 2 act as 2
    /// unless `max` is 1).
    pub min: usize,
    /// Most replications (≥ 1).
    pub max: usize,
    /// Target 95% CI half-width relative to the mean (0.05 in window-k-mesh.md §5.1).
    pub rel_half_width: f64,
}

impl Default for StopRule {
    /// The paper's 5% rule with 2 to 20 replications.
    fn default() -> Self {
        StopRule {
            min: 2,
            max: 20,
            rel_half_width: 0.05,
        }
    }
}

/// Mean and 95% Student-t confidence interval of a statistic over replications.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Sample mean.
    pub mean: f64,
    /// Lower end of the 95% CI (equals `mean` when `n < 2`).
    pub ci_low: f64,
    /// Upper end of the 95% CI (equals `mean` when `n < 2`).
    pub ci_high: f64,
    /// Number of replications.
    pub n: usize,
}

impl Estimate {
    /// Estimate of `stat` over `runs`.
    pub fn of<T>(runs: &[T], stat: impl Fn(&T) -> f64) -> Estimate {
        let xs: Vec<f64> = runs.iter().map(stat).collect();
        Estimate::from_samples(&xs)
    }

    /// Estimate of the mean of `xs`.
    pub fn from_samples(xs: &[f64]) -> Estimate {
        let n = xs.len();
        if n == 0 {
            return Estimate {
                mean: f64::NAN,
                ci_low: f64::NAN,
                ci_high: f64::NAN,
                n,
            };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        let half = half_width(xs, mean);
        Estimate {
            mean,
            ci_low: mean - half,
            ci_high: mean + half,
            n,
        }
    }

    /// Half-width of the interval.
    pub fn half_width(&self) -> f64 {
        (self.ci_high - self.ci_low) / 2.0
    }
}

/// 95% half-width `t(0.975, n−1) · s / √n`; 0 for fewer than two samples.
fn half_width(xs: &[f64], mean: f64) -> f64 {
    let n = xs.len();
    if n < 2 {
        return 0.0;
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    t_975(n - 1) * (var / n as f64).sqrt()
}

/// Two-sided 95% Student-t quantile `t(0.975, df)`: a table for `df ≤ 30`, the Cornish–Fisher
/// expansion beyond (error below 10⁻⁴). `df = 0` gives infinity.
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042,
    ];
    match df {
        0 => f64::INFINITY,
        1..=30 => TABLE[df - 1],
        _ => {
            let (z, v) = (1.959_963_985, df as f64);
            let z3 = z * z * z;
            let z5 = z3 * z * z;
            z + (z3 + z) / (4.0 * v) + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * v * v)
        }
    }
}

/// Whether the first `n` samples satisfy `rule`.
fn converged(rule: &StopRule, xs: &[f64]) -> bool {
    let n = xs.len();
    if n >= rule.max.max(1) {
        return true;
    }
    if n < rule.min.max(2) {
        return false;
    }
    let mean = xs.iter().sum::<f64>() / n as f64;
    half_width(xs, mean) <= rule.rel_half_width * mean.abs()
}

/// The seed of replication `rep` of the cell named `key` (e.g. `"window-k/unif-dec/x=4.5"`): the
/// first 8 bytes of SHA-256(`key` `#` `rep`), little-endian. Stable across platforms and releases.
pub fn seed_for(key: &str, rep: usize) -> u64 {
    let digest = Sha256::digest(format!("{key}#{rep}").as_bytes());
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    u64::from_le_bytes(bytes)
}

/// Runs replications of the cell `key` until `rule` is met on `stat` (see the module docs).
///
/// `run` receives the replication's seed ([`seed_for`]`(key, rep)`). The first error stops the cell
/// and is returned. The returned runs are in replication order.
pub fn replicate<T, E, F, S>(rule: &StopRule, key: &str, run: F, stat: S) -> Result<Vec<T>, E>
where
    T: Send,
    E: Send,
    F: Fn(u64) -> Result<T, E> + Sync,
    S: Fn(&T) -> f64,
{
    let max = rule.max.max(1);
    let batch = rayon::current_num_threads().max(1);
    let mut runs: Vec<T> = Vec::new();
    let mut xs: Vec<f64> = Vec::new();
    while runs.len() < max {
        let start = runs.len();
        let want = if start == 0 {
            rule.min.max(2).min(max)
        } else {
            batch
        };
        let end = (start + want).min(max);
        let fresh: Vec<T> = (start..end)
            .into_par_iter()
            .map(|rep| run(seed_for(key, rep)))
            .collect::<Result<_, E>>()?;
        for r in fresh {
            xs.push(stat(&r));
            runs.push(r);
            if converged(rule, &xs) {
                return Ok(runs);
            }
        }
    }
    Ok(runs)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A noisy "simulation": deterministic in the seed, mean 100, sd about 29.
    fn noisy(seed: u64) -> Result<f64, String> {
        Ok(50.0 + (seed % 101) as f64)
    }

    #[test]
    fn t_quantiles_match_tables() {
        assert_eq!(t_975(1), 12.706);
        assert_eq!(t_975(10), 2.228);
        // Tabulated t(0.975, 40) = 2.021, t(0.975, 120) = 1.980.
        assert!((t_975(40) - 2.021).abs() < 1e-3);
        assert!((t_975(120) - 1.980).abs() < 1e-3);
        assert!((t_975(1_000_000) - 1.96).abs() < 1e-3);
        assert!(t_975(0).is_infinite());
    }

    #[test]
    fn estimate_by_hand() {
        // Mean 5, s² = 10/4 = 2.5, s/√5 = 0.7071; t(4) = 2.776 → half-width 1.963.
        let e = Estimate::from_samples(&[3.0, 4.0, 5.0, 6.0, 7.0]);
        assert_eq!(e.mean, 5.0);
        assert!((e.half_width() - 2.776 * 0.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(e.n, 5);
        let one = Estimate::from_samples(&[2.0]);
        assert_eq!((one.ci_low, one.ci_high), (2.0, 2.0));
        assert!(Estimate::from_samples(&[]).mean.is_nan());
    }

    #[test]
    fn stops_at_the_first_prefix_meeting_the_rule_like_a_serial_loop() {
        let rule = StopRule {
            min: 2,
            max: 400,
            rel_half_width: 0.05,
        };
        let runs = replicate(&rule, "cell", noisy, |x| *x).unwrap();
        // Serial reference: add one replication at a time.
        let mut xs = Vec::new();
        for rep in 0.. {
            xs.push(noisy(seed_for("cell", rep)).unwrap());
            if converged(&rule, &xs) {
                break;
            }
        }
        assert_eq!(runs, xs);
        let e = Estimate::from_samples(&runs);
        assert!(e.half_width() <= 0.05 * e.mean);
        assert!(
            runs.len() > 2,
            "a sd of 29 around 100 needs more than two runs"
        );
        let shorter = Estimate::from_samples(&runs[..runs.len() - 1]);
        assert!(shorter.half_width() > 0.05 * shorter.mean);
    }

    #[test]
    fn parallel_equals_serial_for_any_thread_count() {
        let rule = StopRule {
            min: 3,
            max: 60,
            rel_half_width: 0.03,
        };
        let with = |threads| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| replicate(&rule, "k", noisy, |x| *x).unwrap())
        };
        let one = with(1);
        assert_eq!(one, with(2));
        assert_eq!(one, with(7));
    }

    #[test]
    fn caps_and_floors_are_respected() {
        let never = StopRule {
            min: 2,
            max: 5,
            rel_half_width: 0.0,
        };
        let spread = |seed: u64| Ok::<f64, ()>(seed as f64);
        assert_eq!(replicate(&never, "c", spread, |x| *x).unwrap().len(), 5);
        let constant = StopRule {
            min: 4,
            max: 10,
            rel_half_width: 0.05,
        };
        let runs = replicate(&constant, "c", |_| Ok::<f64, ()>(1.0), |x| *x).unwrap();
        assert_eq!(runs.len(), 4, "zero variance converges at the floor");
        let single = StopRule {
            min: 1,
            max: 1,
            rel_half_width: 0.05,
        };
        assert_eq!(replicate(&single, "c", noisy, |x| *x).unwrap().len(), 1);
    }

    #[test]
    fn errors_propagate() {
        let r = replicate(&StopRule::default(), "c", |_| Err::<f64, _>("boom"), |x| *x);
        assert_eq!(r, Err("boom"));
    }

    #[test]
    fn the_interval_covers_the_true_mean_95_percent_of_the_time() {
        use rand::SeedableRng;
        use rand_distr::{Distribution, Normal};
        // 4000 samples of 5 normal draws: with the t quantile the coverage is 95% (binomial s.d.
        // 0.34%); with the normal quantile 1.96 it would be about 88%.
        let normal = Normal::new(10.0, 3.0).unwrap();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(42);
        let trials = 4000;
        let covered = (0..trials)
            .filter(|_| {
                let xs: Vec<f64> = (0..5).map(|_| normal.sample(&mut rng)).collect();
                let e = Estimate::from_samples(&xs);
                e.ci_low <= 10.0 && 10.0 <= e.ci_high
            })
            .count();
        let rate = covered as f64 / trials as f64;
        assert!((rate - 0.95).abs() < 0.012, "coverage {rate}");
    }

    #[test]
    fn seeds_differ_by_key_and_replication() {
        assert_ne!(seed_for("a", 0), seed_for("a", 1));
        assert_ne!(seed_for("a", 0), seed_for("b", 0));
        assert_eq!(seed_for("a", 3), seed_for("a", 3));
    }
}
