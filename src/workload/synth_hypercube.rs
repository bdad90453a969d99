//! The synthetic hypercube workloads of lazy-scheduling-hypercube.md §4 / §4.1.
//!
//! * **Arrivals**: Poisson, rate `λ = 2^n / (mean job size × mean residence time) × load`, the mean job
//!   size being the mean processor count `E[2^k]` of the size distribution (the §4 example divides by
//!   "mean job size of 10 processes"; with this reading load 1 offers the machine's capacity).
//! * **Sizes** (cube dimensions `0 … n−1` on an `n`-cube, no whole-cube jobs): *uniform*, `p_i = 1/n`;
//!   or *normal*: `[−2.5σ, 2.5σ]` cut into `n` equal-width intervals, `p_i` the standard normal mass of
//!   the `i`-th, renormalised to sum to 1 ([`normal_size_probs`]; for `n = 10`: 0.017, 0.044, 0.093,
//!   0.152, 0.194, mirrored).
//! * **Residence / demand**: *uniform* on `[0, 2·mean]`, or *bimodal hyperexponential* with
//!   `α = 0.95`, `C_x = 4` ([`HyperExp`]). *Dependent* (§4.1): the residence time is drawn with mean 5
//!   whatever the size (demand = residence × 2^k). *Independent*: the total service demand `x` is
//!   drawn with mean `mean job size × mean residence` and the residence is `x / 2^k`.
//! * **Horizon**: the jobs arriving within the observation window `T` (default 10,000), or a fixed
//!   number of jobs (Fig. 9).
//!
//! Arrivals, sizes and service come from three independent ChaCha8 streams of one seed (common random
//! numbers across schedulers and loads' sizes/service).
//!
//! ```
//! use pwa_replay::workload::synth_hypercube::HypercubeSpec;
//!
//! let (spec, seed) = HypercubeSpec::from_label("synth:hypercube,dim=6,load=0.5,window=200").unwrap();
//! let w = spec.generate(seed).unwrap();
//! assert!(w.jobs.iter().all(|j| j.submit <= 200.0));
//! assert_eq!(w.jobs, spec.generate(seed).unwrap().jobs);
//! ```

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp};

use crate::SimTime;
use crate::resource::{MachineSpec, Request};
use crate::workload::synth::SynthError;
use crate::workload::{Job, JobId, Workload};

/// Job size (cube dimension) distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SizeDist {
    /// `p_i = 1/n`, `i = 0 … n−1`.
    Uniform,
    /// The paper's discretised normal over ±2.5σ.
    Normal,
}

/// Residence-time (dependent) or total-demand (independent) distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ServiceDist {
    /// Uniform on `[0, 2·mean]`.
    Uniform,
    /// Bimodal hyperexponential, α = 0.95, C_x = 4.
    HyperExp,
}

/// When the generated job stream stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Horizon {
    /// Every arrival within `[0, T]`.
    Window(SimTime),
    /// Exactly this many jobs.
    Jobs(usize),
}

/// A §4 synthetic hypercube workload.
#[derive(Debug, Clone, PartialEq)]
pub struct HypercubeSpec {
    /// Cube dimension `n` (2^n nodes).
    pub dim: u8,
    /// Size distribution.
    pub sizes: SizeDist,
    /// Residence / demand distribution.
    pub service: ServiceDist,
    /// Size and demand independent (§4.1): residence = demand / 2^k.
    pub independent: bool,
    /// Input load (the §4 "rate": 0.1 … 0.9).
    pub load: f64,
    /// Mean residence time (5 time units).
    pub mean_residence: f64,
    /// Stream length.
    pub horizon: Horizon,
}

/// The bimodal hyperexponential of §4.1: with probability `alpha` exponential of mean `small`, else
/// of mean `large`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HyperExp {
    /// Probability of the small-mean branch (0.95).
    pub alpha: f64,
    /// `1/λ_s`.
    pub small: f64,
    /// `1/λ_l`.
    pub large: f64,
}

impl HyperExp {
    /// The §4.1 parameters for mean `mean`, coefficient of variation `cx` and `alpha`.
    pub fn new(mean: f64, cx: f64, alpha: f64) -> Self {
        let v = cx * cx - 1.0;
        HyperExp {
            alpha,
            small: mean - mean * (v * (1.0 - alpha) / (2.0 * alpha)).sqrt(),
            large: mean + mean * (v * alpha / (2.0 * (1.0 - alpha))).sqrt(),
        }
    }
    fn sample<R: Rng>(&self, rng: &mut R) -> f64 {
        let mean = if rng.random::<f64>() < self.alpha {
            self.small
        } else {
            self.large
        };
        mean * Exp::new(1.0).map_or(1.0, |e| e.sample(rng))
    }
}

/// Standard normal CDF (Abramowitz & Stegun 7.1.26 for erf; error below 1.5·10⁻⁷).
fn phi(x: f64) -> f64 {
    let z = x.abs() / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf = 1.0 - poly * (-z * z).exp();
    if x >= 0.0 {
        0.5 * (1.0 + erf)
    } else {
        0.5 * (1.0 - erf)
    }
}

/// The §4.1 normal size probabilities `p_0 … p_{n−1}`: `[−2.5, 2.5]` in `n` equal intervals,
/// renormalised, then rounded to three decimals by largest remainder so that they sum to 1 — which
/// gives exactly the paper's list for `n = 10` (plain rounding would give `p_1 = 0.045` and a sum of
/// 1.002). Ties of remainders go to the lower index.
pub fn normal_size_probs(n: u8) -> Vec<f64> {
    let w = 5.0 / f64::from(n);
    let total = phi(2.5) - phi(-2.5);
    let exact: Vec<f64> = (0..n)
        .map(|i| {
            let a = -2.5 + w * f64::from(i);
            (phi(a + w) - phi(a)) / total * 1000.0
        })
        .collect();
    let mut milli: Vec<u32> = exact.iter().map(|x| x.floor() as u32).collect();
    let mut order: Vec<usize> = (0..exact.len()).collect();
    let rem = |i: usize| exact[i] - exact[i].floor();
    order.sort_by(|&a, &b| rem(b).total_cmp(&rem(a)).then(a.cmp(&b)));
    let short = 1000u32.saturating_sub(milli.iter().sum());
    for &i in order.iter().cycle().take(short as usize) {
        milli[i] += 1;
    }
    milli.iter().map(|&m| f64::from(m) / 1000.0).collect()
}

impl HypercubeSpec {
    /// The paper's defaults on an `n`-cube: uniform sizes and residence, dependent, load 0.5, mean
    /// residence 5, window 10,000.
    pub fn new(dim: u8) -> Self {
        HypercubeSpec {
            dim,
            sizes: SizeDist::Uniform,
            service: ServiceDist::Uniform,
            independent: false,
            load: 0.5,
            mean_residence: 5.0,
            horizon: Horizon::Window(10_000.0),
        }
    }

    /// The machine: `hypercube:n`.
    pub fn machine(&self) -> MachineSpec {
        MachineSpec::Hypercube { dim: self.dim }
    }

    /// `p_0 … p_{n−1}`.
    pub fn size_probs(&self) -> Vec<f64> {
        match self.sizes {
            SizeDist::Uniform => vec![1.0 / f64::from(self.dim); self.dim as usize],
            SizeDist::Normal => normal_size_probs(self.dim),
        }
    }

    /// Mean processors per job, `E[2^k]`.
    pub fn mean_job_size(&self) -> f64 {
        let p = self.size_probs();
        p.iter()
            .enumerate()
            .map(|(k, p)| p * f64::from(1u32 << k))
            .sum()
    }

    /// The arrival rate λ of §4.
    pub fn rate(&self) -> f64 {
        f64::from(1u32 << self.dim) / (self.mean_job_size() * self.mean_residence) * self.load
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<(), SynthError> {
        let bad = |why: String| Err(SynthError::Param(why));
        if !(1..=20).contains(&self.dim) {
            return bad(format!("hypercube dimension {} is not in 1..=20", self.dim));
        }
        if !(self.load.is_finite() && self.load > 0.0) {
            return bad(format!("load {} must be positive", self.load));
        }
        if !(self.mean_residence.is_finite() && self.mean_residence > 0.0) {
            return bad(format!(
                "mean residence {} must be positive",
                self.mean_residence
            ));
        }
        match self.horizon {
            Horizon::Window(t) if !(t.is_finite() && t > 0.0) => {
                bad(format!("observation window {t} must be positive"))
            }
            Horizon::Jobs(n) if n > u32::MAX as usize => {
                bad(format!("{n} jobs do not fit a JobId"))
            }
            _ => Ok(()),
        }
    }

    /// One draw of the residence (dependent) or demand (independent) distribution of mean `mean`.
    fn service_draw<R: Rng>(&self, mean: f64, rng: &mut R) -> f64 {
        match self.service {
            ServiceDist::Uniform => rng.random::<f64>() * 2.0 * mean,
            ServiceDist::HyperExp => HyperExp::new(mean, 4.0, 0.95).sample(rng),
        }
    }

    /// Generates the job stream for `seed`.
    pub fn generate(&self, seed: u64) -> Result<Workload, SynthError> {
        self.validate()?;
        let stream = |s: u64| {
            let mut r = ChaCha8Rng::seed_from_u64(seed);
            r.set_stream(s);
            r
        };
        let (mut arr, mut size_rng, mut svc) = (stream(0), stream(1), stream(2));
        let inter = Exp::new(self.rate()).map_err(|e| SynthError::Param(e.to_string()))?;
        let mut cumulative = self.size_probs();
        for i in 1..cumulative.len() {
            cumulative[i] += cumulative[i - 1];
        }
        let demand_mean = self.mean_job_size() * self.mean_residence;
        let mut jobs = Vec::new();
        let mut now: SimTime = 0.0;
        loop {
            now += inter.sample(&mut arr);
            let more = match self.horizon {
                Horizon::Window(t) => now <= t,
                Horizon::Jobs(n) => jobs.len() < n,
            };
            if !more {
                break;
            }
            let u: f64 = size_rng.random();
            let k = cumulative
                .iter()
                .position(|&c| u < c)
                .unwrap_or(cumulative.len() - 1) as u8;
            let nodes = 1u32 << k;
            let runtime = if self.independent {
                self.service_draw(demand_mean, &mut svc) / f64::from(nodes)
            } else {
                self.service_draw(self.mean_residence, &mut svc)
            };
            let i = jobs.len();
            jobs.push(Job {
                id: JobId(i as u32),
                source_id: i as u64 + 1,
                submit: now,
                runtime,
                estimate: runtime,
                requested: None,
                request: Request::Subcube(k),
                asked_procs: nodes,
                user: None,
                group: None,
                queue: None,
                partition: None,
            });
        }
        Ok(Workload {
            jobs,
            procs_per_node: 1,
            predictor: None,
        })
    }

    /// Reads `synth:hypercube[,dim=N][,size=uniform|normal][,demand=uniform|hyperexp]
    /// [,dist=dependent|independent][,load=L][,residence=R][,window=T | ,jobs=N][,seed=S]`
    /// (defaults: dim 10, uniform, uniform, dependent, load 0.5, residence 5, window 10000, seed 1).
    pub fn from_label(label: &str) -> Result<(HypercubeSpec, u64), SynthError> {
        let bad = |why: &str| SynthError::Param(format!("workload label `{label}`: {why}"));
        let rest = label
            .trim()
            .strip_prefix("synth:hypercube")
            .ok_or_else(|| bad("does not start with synth:hypercube"))?;
        let mut spec = HypercubeSpec::new(10);
        let mut seed = 1u64;
        for part in rest.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad("expected key=value"))?;
            let num = |v: &str| {
                v.parse::<f64>()
                    .map_err(|_| bad(&format!("`{k}` is not a number")))
            };
            match (k, v) {
                ("dim", v) => spec.dim = v.parse().map_err(|_| bad("dim is not 1..=20"))?,
                ("size", "uniform") => spec.sizes = SizeDist::Uniform,
                ("size", "normal") => spec.sizes = SizeDist::Normal,
                ("demand", "uniform") => spec.service = ServiceDist::Uniform,
                ("demand", "hyperexp") => spec.service = ServiceDist::HyperExp,
                ("dist", "dependent") => spec.independent = false,
                ("dist", "independent") => spec.independent = true,
                ("load", v) => spec.load = num(v)?,
                ("residence", v) => spec.mean_residence = num(v)?,
                ("window", v) => spec.horizon = Horizon::Window(num(v)?),
                ("jobs", v) => {
                    spec.horizon = Horizon::Jobs(v.parse().map_err(|_| bad("jobs is not a count"))?)
                }
                ("seed", v) => seed = v.parse().map_err(|_| bad("seed is not an integer"))?,
                _ => return Err(bad(&format!("unknown key or value `{part}`"))),
            }
        }
        spec.validate()?;
        Ok((spec, seed))
    }

    /// The label with every parameter spelled out (parses back to the same spec).
    pub fn label(&self, seed: u64) -> String {
        let horizon = match self.horizon {
            Horizon::Window(t) => format!("window={t}"),
            Horizon::Jobs(n) => format!("jobs={n}"),
        };
        format!(
            "synth:hypercube,dim={},size={},demand={},dist={},load={},residence={},{horizon},seed={seed}",
            self.dim,
            match self.sizes {
                SizeDist::Uniform => "uniform",
                SizeDist::Normal => "normal",
            },
            match self.service {
                ServiceDist::Uniform => "uniform",
                ServiceDist::HyperExp => "hyperexp",
            },
            if self.independent {
                "independent"
            } else {
                "dependent"
            },
            self.load,
            self.mean_residence,
        )
    }

    /// One line per parameter, for SWF `; Note:` headers and reports.
    pub fn describe(&self) -> Vec<String> {
        vec![
            format!(
                "synthetic hypercube workload (lazy-scheduling-hypercube.md §4), {}",
                self.machine()
            ),
            format!(
                "Poisson arrivals λ = {:.4}/time-unit (load {}), mean job size {:.2} processors, mean residence {}",
                self.rate(),
                self.load,
                self.mean_job_size(),
                self.mean_residence
            ),
            format!("label {}", self.label(0)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normal_probabilities_of_the_paper_for_n_10() {
        let p = normal_size_probs(10);
        let listed = [0.017, 0.044, 0.093, 0.152, 0.194];
        for (i, want) in listed.iter().enumerate() {
            assert!((p[i] - want).abs() < 0.0005, "p_{i} = {}", p[i]);
            assert!(
                (p[9 - i] - want).abs() < 0.0005,
                "p_{} = {}",
                9 - i,
                p[9 - i]
            );
        }
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn hyperexponential_parameters_and_mean() {
        let h = HyperExp::new(5.0, 4.0, 0.95);
        assert!(
            (h.small - 1.8584).abs() < 1e-3 && (h.large - 64.685).abs() < 1e-2,
            "{h:?}"
        );
        assert!((h.alpha * h.small + (1.0 - h.alpha) * h.large - 5.0).abs() < 1e-9);
        // C_x² = E[X²]/E[X]² − 1 = 2(α s² + (1−α) l²)/25 − 1 = 16.
        let m2 = 2.0 * (h.alpha * h.small.powi(2) + (1.0 - h.alpha) * h.large.powi(2));
        assert!((m2 / 25.0 - 1.0 - 16.0).abs() < 1e-6);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = 200_000;
        let mean = (0..n).map(|_| h.sample(&mut rng)).sum::<f64>() / f64::from(n);
        assert!((mean - 5.0).abs() < 0.15, "sample mean {mean}");
    }

    #[test]
    fn rate_follows_the_capacity_formula() {
        // §4 example: 2^6 / (10 × 5) × 0.3 — our mean job size is E[2^k] of the size model.
        let mut s = HypercubeSpec::new(10);
        s.load = 0.3;
        let mean = (1..=10).map(|k| f64::from(1u32 << (k - 1))).sum::<f64>() / 10.0;
        assert!((s.mean_job_size() - mean).abs() < 1e-12);
        assert!((s.rate() - 1024.0 / (mean * 5.0) * 0.3).abs() < 1e-12);
    }

    #[test]
    fn dependent_and_independent_residence() {
        let base = HypercubeSpec {
            horizon: Horizon::Jobs(20_000),
            ..HypercubeSpec::new(6)
        };
        let dep = base.generate(5).unwrap();
        let mean = dep.jobs.iter().map(|j| j.runtime).sum::<f64>() / 20_000.0;
        assert!((mean - 5.0).abs() < 0.1, "dependent residence mean {mean}");
        let ind = HypercubeSpec {
            independent: true,
            ..base.clone()
        }
        .generate(5)
        .unwrap();
        let demand = ind
            .jobs
            .iter()
            .map(|j| j.runtime * f64::from(j.request.nodes()))
            .sum::<f64>()
            / 20_000.0;
        let want = base.mean_job_size() * 5.0;
        assert!(
            (demand / want - 1.0).abs() < 0.05,
            "independent demand {demand} vs {want}"
        );
        assert_eq!(dep.jobs.len(), 20_000);
        assert!(
            dep.jobs
                .iter()
                .all(|j| matches!(j.request, Request::Subcube(k) if k < 6))
        );
    }

    #[test]
    fn labels_round_trip_and_bad_ones_are_errors() {
        let (s, seed) =
            HypercubeSpec::from_label("synth:hypercube,dim=7,size=normal,demand=hyperexp,dist=independent,load=0.9,jobs=100,seed=4")
                .unwrap();
        assert_eq!(
            (s.dim, s.sizes, s.service, s.independent),
            (7, SizeDist::Normal, ServiceDist::HyperExp, true)
        );
        assert_eq!(
            HypercubeSpec::from_label(&s.label(seed)).unwrap(),
            (s, seed)
        );
        for bad in [
            "synth:hypercube,dim=0",
            "synth:hypercube,size=zipf",
            "synth:hypercube,load=-1",
            "synth:uniform",
        ] {
            assert!(HypercubeSpec::from_label(bad).is_err(), "{bad}");
        }
    }
}
