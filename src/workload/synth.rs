//! Synthetic workloads of the mesh papers: Poisson arrivals, exponential service times and submesh
//! side lengths drawn independently for width and height.
//!
//! * window-k-mesh.md §5.1: mean service 1 time unit, load in jobs per time unit, sides *uniform* over
//!   `[1, L]` or *uniform-decreasing* (probabilities `p1..p4` over `[1,l1]`, `[l1+1,l2]`,
//!   `[l2+1,l3]`, `[l3+1,L]`; defaults 0.4, 0.2, 0.2, 0.2 and 4, 8, 16).
//! * bypass-queue-fixed-orientation.md §3: mean service 5 time units, load as a *traffic ratio*
//!   (arrival rate / service rate, so λ = ratio / mean service), sides uniform or *truncated normal*
//!   (mean 16.5, variance 6.6, kept inside `[1, 32]`).
//!
//! Generation is reproducible: a [`SynthSpec`] and a seed always give the same [`Workload`]. Arrivals,
//! service times and sides come from three independent ChaCha8 streams of the same seed, so two
//! specs that differ only in the side model share their arrival and service times (common random
//! numbers: policies and models are compared on the same job stream).
//!
//! Truncated normal: a draw is rounded to the nearest integer and *redrawn* while it falls outside
//! `[1, L]` (a true truncated distribution, not a clamp that would pile mass on the bounds). With the
//! papers' parameters (σ ≈ 2.57) a redraw happens about once in 10⁹ draws.
//!
//! ```
//! use pwa_replay::machine::Shape;
//! use pwa_replay::workload::synth::{SideModel, SynthSpec};
//!
//! let spec = SynthSpec::new(SideModel::uniform_decreasing(), Shape::new(32, 32), 1000, 4.5, 1.0);
//! let a = spec.generate(7).unwrap();
//! assert_eq!(a.jobs.len(), 1000);
//! assert_eq!(a.jobs, spec.generate(7).unwrap().jobs);
//! ```

use std::fmt;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp, Normal};

use crate::SimTime;
use crate::resource::Shape;
use crate::workload::{Job, JobId, Request, Workload};

/// How a side length (width or height) is drawn, for a mesh side `L`.
#[derive(Debug, Clone, PartialEq)]
pub enum SideModel {
    /// Uniform over `[1, L]`.
    Uniform,
    /// Uniform-decreasing (window-k-mesh.md §5.1): `probs[i]` is the probability of the `i`-th range
    /// `[1,l1]`, `[l1+1,l2]`, `[l2+1,l3]`, `[l3+1,L]`, sides uniform within a range.
    UniformDecreasing {
        /// `p1..p4`, non-negative, summing to 1.
        probs: [f64; 4],
        /// `l1 < l2 < l3`, with `l3 < L` on every side of the mesh.
        bounds: [u32; 3],
    },
    /// Normal with `mean` and `variance`, rounded to the nearest integer and redrawn while outside
    /// `[1, L]` (bypass-queue-fixed-orientation.md §3).
    TruncNormal {
        /// Mean before truncation (16.5 in the paper).
        mean: f64,
        /// Variance before truncation (6.6 in the paper).
        variance: f64,
    },
    /// Squares `2^k × 2^k`, `k` uniform over `0..=⌊log₂ min(W, H)⌋` (coscheduling-time-sharing.md
    /// §4.4: sizes 1, 4, 16, 64 equally likely on 8×8); width and height are one draw.
    PowerSquares,
}

impl SideModel {
    /// Uniform over `[1, L]`.
    pub fn uniform() -> Self {
        SideModel::Uniform
    }
    /// The paper's uniform-decreasing model: p = 0.4, 0.2, 0.2, 0.2 over l = 4, 8, 16.
    pub fn uniform_decreasing() -> Self {
        SideModel::UniformDecreasing {
            probs: [0.4, 0.2, 0.2, 0.2],
            bounds: [4, 8, 16],
        }
    }
    /// The bypass paper's truncated normal: mean 16.5, variance 6.6.
    pub fn normal() -> Self {
        SideModel::TruncNormal {
            mean: 16.5,
            variance: 6.6,
        }
    }
    /// The model's command-line name: `uniform`, `uniform-decreasing`, `normal`.
    pub fn name(&self) -> &'static str {
        match self {
            SideModel::Uniform => "uniform",
            SideModel::UniformDecreasing { .. } => "uniform-decreasing",
            SideModel::TruncNormal { .. } => "normal",
            SideModel::PowerSquares => "squares",
        }
    }
    /// The mean number of nodes of a request on `mesh`, where it has a closed form: uniform sides
    /// `((1 + W)/2)·((1 + H)/2)`, squares the mean of `4^k` over `k = 0..=⌊log₂ min(W, H)⌋`
    /// (85/4 on 8×8); `None` for the others.
    pub fn mean_nodes(&self, mesh: Shape) -> Option<f64> {
        match self {
            SideModel::Uniform => {
                Some((1.0 + f64::from(mesh.w)) / 2.0 * ((1.0 + f64::from(mesh.h)) / 2.0))
            }
            SideModel::PowerSquares => {
                let top = mesh.w.min(mesh.h).max(1).ilog2();
                let sum: f64 = (0..=top).map(|k| 4f64.powi(k as i32)).sum();
                Some(sum / f64::from(top + 1))
            }
            _ => None,
        }
    }
    /// The model with default parameters for a command-line name.
    pub fn from_name(name: &str) -> Result<Self, SynthError> {
        match name.trim() {
            "uniform" => Ok(Self::uniform()),
            "uniform-decreasing" | "unif-dec" => Ok(Self::uniform_decreasing()),
            "normal" => Ok(Self::normal()),
            "squares" => Ok(SideModel::PowerSquares),
            other => Err(SynthError::Model(other.to_string())),
        }
    }

    /// Checks the parameters against a mesh side `side` and prepares a sampler for it.
    fn sampler(&self, side: u32) -> Result<SideSampler, SynthError> {
        let bad = |why: String| Err(SynthError::Param(why));
        match *self {
            SideModel::Uniform => Ok(SideSampler::Ranges(vec![(1.0, (1, side))])),
            SideModel::UniformDecreasing { probs, bounds } => {
                let sum: f64 = probs.iter().sum();
                if probs.iter().any(|p| !(p.is_finite() && *p >= 0.0)) || (sum - 1.0).abs() > 1e-9 {
                    return bad(format!("probabilities {probs:?} must be ≥ 0 and sum to 1"));
                }
                let [l1, l2, l3] = bounds;
                if !(1 <= l1 && l1 < l2 && l2 < l3 && l3 < side) {
                    return bad(format!(
                        "bounds {bounds:?} need 1 ≤ l1 < l2 < l3 < L = {side}"
                    ));
                }
                let ranges = [(1, l1), (l1 + 1, l2), (l2 + 1, l3), (l3 + 1, side)];
                let mut acc = 0.0;
                let cumulative = probs.iter().zip(ranges).map(|(p, r)| {
                    acc += p;
                    (acc, r)
                });
                Ok(SideSampler::Ranges(cumulative.collect()))
            }
            SideModel::TruncNormal { mean, variance } => {
                let sd = variance.sqrt();
                if !(mean.is_finite() && variance.is_finite() && variance > 0.0) {
                    return bad(format!("normal mean {mean} / variance {variance} invalid"));
                }
                let inside = normal_mass(mean, sd, 0.5, f64::from(side) + 0.5);
                if inside < MIN_NORMAL_MASS {
                    return bad(format!(
                        "normal mean {mean} / variance {variance} puts only {inside:.1e} of its draws in [1, {side}] (at least {MIN_NORMAL_MASS:e} needed: sides are redrawn until they fit)"
                    ));
                }
                let normal = Normal::new(mean, sd).map_err(|e| SynthError::Param(e.to_string()))?;
                Ok(SideSampler::Normal { normal, side })
            }
            SideModel::PowerSquares => {
                let sides = (0..=side.ilog2()).map(|k| 1u32 << k).collect::<Vec<_>>();
                let p = 1.0 / sides.len() as f64;
                let ranges = sides
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| ((i + 1) as f64 * p, (a, a)));
                Ok(SideSampler::Ranges(ranges.collect()))
            }
        }
    }
}

/// Smallest share of normal draws that may land in `[1, L]`: sides are redrawn until one does, so
/// a share of 10⁻⁴ already costs 10⁴ draws a side (a mean of 16.5 on a side of 2 would cost 4·10⁷,
/// hours for a workload).
const MIN_NORMAL_MASS: f64 = 1e-4;

/// The probability that a normal draw of `mean` and standard deviation `sd` lies in `[lo, hi)`.
fn normal_mass(mean: f64, sd: f64, lo: f64, hi: f64) -> f64 {
    let cdf = |x: f64| 0.5 * erfc(-(x - mean) / (sd * std::f64::consts::SQRT_2));
    cdf(hi) - cdf(lo)
}

/// The complementary error function (Abramowitz & Stegun 7.1.26, absolute error below 1.5·10⁻⁷:
/// plenty for comparing with [`MIN_NORMAL_MASS`]).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let tail = poly * (-z * z).exp();
    if x >= 0.0 { tail } else { 2.0 - tail }
}

/// A [`SideModel`] prepared for one mesh side.
#[derive(Debug, Clone)]
enum SideSampler {
    /// Pick the first range whose cumulative probability exceeds a uniform draw, then a uniform
    /// side inside it (the last range catches rounding).
    Ranges(Vec<(f64, (u32, u32))>),
    /// Round a normal draw, redraw while outside `[1, side]`.
    Normal {
        /// The untruncated distribution.
        normal: Normal<f64>,
        /// Upper bound `L`.
        side: u32,
    },
}

impl SideSampler {
    /// Draws one side length.
    fn draw<R: Rng>(&self, rng: &mut R) -> u32 {
        match self {
            SideSampler::Ranges(ranges) => {
                let u: f64 = rng.random();
                let last = ranges.len() - 1;
                let (lo, hi) = ranges
                    .iter()
                    .find(|(cum, _)| u < *cum)
                    .map_or(ranges[last].1, |(_, r)| *r);
                rng.random_range(lo..=hi)
            }
            SideSampler::Normal { normal, side } => loop {
                let x = normal.sample(rng).round();
                if x >= 1.0 && x <= *side as f64 {
                    return x as u32;
                }
            },
        }
    }
}

impl fmt::Display for SideModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SideModel::Uniform => f.write_str("uniform over [1, L]"),
            SideModel::UniformDecreasing { probs, bounds } => write!(
                f,
                "uniform-decreasing p = {}, {}, {}, {} over l = {}, {}, {}",
                probs[0], probs[1], probs[2], probs[3], bounds[0], bounds[1], bounds[2]
            ),
            SideModel::TruncNormal { mean, variance } => write!(
                f,
                "normal mean {mean} variance {variance}, rounded, redrawn outside [1, L]"
            ),
            SideModel::PowerSquares => f.write_str("squares 2^k x 2^k, k uniform"),
        }
    }
}

/// A synthetic workload model on a mesh.
#[derive(Debug, Clone, PartialEq)]
pub struct SynthSpec {
    /// Side-length model, applied independently to width (`L = W`) and height (`L = H`).
    pub sides: SideModel,
    /// The target mesh (bounds every side).
    pub mesh: Shape,
    /// Number of jobs.
    pub jobs: usize,
    /// Arrival rate λ, jobs per time unit (Poisson process).
    pub rate: f64,
    /// Mean service time of the distribution (before truncation for [`ServiceModel::Normal`]),
    /// time units.
    pub mean_service: f64,
    /// Service-time distribution (exponential unless the label says `dist=`).
    pub service: ServiceModel,
}

/// The service-time distribution of a synthetic model (coscheduling-time-sharing.md §4.4 uses all
/// three with mean 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ServiceModel {
    /// Exponential with the spec's mean (`dist=exp`).
    #[default]
    Exponential,
    /// Normal with mean = standard deviation = the spec's mean (coefficient of variation 1),
    /// truncated at 0 by *redrawing* non-positive draws (`dist=normal`): the distribution conditioned
    /// on being positive, mean ≈ 1.288 × the spec's mean. With mean 1 its 75th percentile is 1.80,
    /// the report's "75% of jobs need at most 1.8 time units" (Fig. 4.3).
    Normal,
    /// Two-phase hyperexponential with the spec's mean, squared coefficient of variation 4 and
    /// balanced means (`p/μ₁ = (1−p)/μ₂`; `dist=hyperexp`). The report names no parameters.
    HyperExp,
}

impl ServiceModel {
    /// The label value: `exp`, `normal`, `hyperexp`.
    pub fn name(self) -> &'static str {
        match self {
            ServiceModel::Exponential => "exp",
            ServiceModel::Normal => "normal",
            ServiceModel::HyperExp => "hyperexp",
        }
    }
    fn from_name(v: &str) -> Option<Self> {
        match v {
            "exp" => Some(ServiceModel::Exponential),
            "normal" => Some(ServiceModel::Normal),
            "hyperexp" => Some(ServiceModel::HyperExp),
            _ => None,
        }
    }
    /// The squared coefficient of variation of [`ServiceModel::HyperExp`].
    pub const HYPER_CV2: f64 = 4.0;
    /// The mean of a draw for spec mean `m` (the truncated normal's is larger than `m`).
    pub fn mean(self, m: f64) -> f64 {
        match self {
            // E[X | X > 0] for X ~ N(m, m²): m + m·φ(1)/Φ(1).
            ServiceModel::Normal => m * (1.0 + 0.241_970_724_519_143_37 / 0.841_344_746_068_542_9),
            _ => m,
        }
    }
    /// Draws one service time with spec mean `m` (> 0).
    fn draw<R: Rng>(self, m: f64, rng: &mut R) -> f64 {
        match self {
            ServiceModel::Exponential => -m * (1.0 - rng.random::<f64>()).ln(),
            ServiceModel::Normal => loop {
                let z: f64 = rand_distr::StandardNormal.sample(rng);
                let x = m + m * z;
                if x > 0.0 {
                    return x;
                }
            },
            ServiceModel::HyperExp => {
                let c2 = Self::HYPER_CV2;
                let p = 0.5 * (1.0 + ((c2 - 1.0) / (c2 + 1.0)).sqrt());
                let u: f64 = rng.random();
                let mean = if u < p {
                    m / (2.0 * p)
                } else {
                    m / (2.0 * (1.0 - p))
                };
                -mean * (1.0 - rng.random::<f64>()).ln()
            }
        }
    }
}

/// A synthetic model that cannot be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SynthError {
    /// Unknown model name.
    #[error("synthetic model `{0}` is not one of uniform, uniform-decreasing, normal, squares")]
    Model(String),
    /// A parameter out of range.
    #[error("synthetic workload: {0}")]
    Param(String),
}

impl SynthSpec {
    /// The machine the model is meant for: its mesh.
    pub fn mesh_spec(&self) -> crate::resource::MachineSpec {
        crate::resource::MachineSpec::Mesh { size: self.mesh }
    }
    /// A spec with arrival rate `rate` (jobs per time unit).
    pub fn new(sides: SideModel, mesh: Shape, jobs: usize, rate: f64, mean_service: f64) -> Self {
        SynthSpec {
            sides,
            mesh,
            jobs,
            rate,
            mean_service,
            service: ServiceModel::Exponential,
        }
    }
    /// A spec whose load is a *traffic ratio* (arrival rate / service rate, bypass paper §3):
    /// λ = `ratio` / `mean_service`.
    pub fn from_traffic(
        sides: SideModel,
        mesh: Shape,
        jobs: usize,
        ratio: f64,
        mean_service: f64,
    ) -> Self {
        Self::new(sides, mesh, jobs, ratio / mean_service, mean_service)
    }

    /// Checks every parameter.
    pub fn validate(&self) -> Result<(), SynthError> {
        let bad = |why: String| Err(SynthError::Param(why));
        if self.mesh.w == 0 || self.mesh.h == 0 {
            return bad(format!("mesh {} has an empty side", self.mesh));
        }
        if self.mesh.w.checked_mul(self.mesh.h).is_none() {
            return bad(format!("mesh {} has 2^32 nodes or more", self.mesh));
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return bad(format!("arrival rate {} must be positive", self.rate));
        }
        if !(self.mean_service.is_finite() && self.mean_service > 0.0) {
            return bad(format!(
                "mean service {} must be positive",
                self.mean_service
            ));
        }
        if self.jobs > u32::MAX as usize {
            return bad(format!("{} jobs do not fit a JobId", self.jobs));
        }
        self.sides.sampler(self.mesh.w)?;
        self.sides.sampler(self.mesh.h).map(|_| ())
    }

    /// Generates the workload for `seed`: job `i` arrives at the `i`-th point of a Poisson process
    /// (the first after one inter-arrival time), runs an exponential time, and asks for a `w × h`
    /// submesh (`asked_procs = w·h`, one processor per node).
    pub fn generate(&self, seed: u64) -> Result<Workload, SynthError> {
        self.validate()?;
        let (w_side, h_side) = (
            self.sides.sampler(self.mesh.w)?,
            self.sides.sampler(self.mesh.h)?,
        );
        let stream = |s: u64| {
            let mut r = ChaCha8Rng::seed_from_u64(seed);
            r.set_stream(s);
            r
        };
        let (mut arr_rng, mut svc_rng, mut side_rng) = (stream(0), stream(1), stream(2));
        let inter = Exp::new(self.rate).map_err(|e| SynthError::Param(e.to_string()))?;
        let service =
            Exp::new(1.0 / self.mean_service).map_err(|e| SynthError::Param(e.to_string()))?;
        let mut now: SimTime = 0.0;
        let jobs = (0..self.jobs)
            .map(|i| {
                now += inter.sample(&mut arr_rng);
                let runtime = match self.service {
                    ServiceModel::Exponential => service.sample(&mut svc_rng),
                    other => other.draw(self.mean_service, &mut svc_rng),
                };
                let w = w_side.draw(&mut side_rng);
                let h = if self.sides == SideModel::PowerSquares {
                    w
                } else {
                    h_side.draw(&mut side_rng)
                };
                Job {
                    id: JobId(i as u32),
                    source_id: i as u64 + 1,
                    submit: now,
                    runtime,
                    estimate: runtime,
                    requested: None,
                    request: Request::Submesh(Shape::new(w, h)),
                    asked_procs: w * h,
                    user: None,
                    group: None,
                    queue: None,
                    partition: None,
                }
            })
            .collect();
        Ok(Workload {
            jobs,
            procs_per_node: 1,
            predictor: None,
        })
    }

    /// Reads a workload label `synth:MODEL[,mesh=WxH][,jobs=N][,rate=R | ,traffic=T][,service=S]
    /// [,seed=N][,dist=exp|normal|hyperexp]` (defaults: 32x32, 10000 jobs, rate 1, mean service 1 — 5 with `traffic` — and
    /// seed 1) into a spec and its seed. With the default rate of 1 job per time unit, a sweep's
    /// load factor (which divides submit times) is the window-k papers' load in jobs per time unit.
    pub fn from_label(label: &str) -> Result<(SynthSpec, u64), SynthError> {
        let bad = |why: &str| SynthError::Param(format!("workload label `{label}`: {why}"));
        let rest = label
            .trim()
            .strip_prefix("synth:")
            .ok_or_else(|| bad("does not start with synth:"))?;
        let mut parts = rest.split(',').map(str::trim);
        let sides = SideModel::from_name(parts.next().unwrap_or_default())?;
        let (mut mesh, mut jobs, mut seed) = (Shape::new(32, 32), 10_000usize, 1u64);
        let (mut rate, mut traffic, mut service, mut load) = (None, None, None, None);
        let mut dist = ServiceModel::Exponential;
        for part in parts {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| bad("expected key=value"))?;
            let num = |v: &str| {
                v.parse::<f64>()
                    .map_err(|_| bad(&format!("`{k}` is not a number")))
            };
            match k {
                "mesh" => {
                    let (w, h) = v
                        .split_once(['x', 'X'])
                        .ok_or_else(|| bad("mesh is not WxH"))?;
                    let side = |t: &str| t.parse::<u32>().map_err(|_| bad("mesh is not WxH"));
                    mesh = Shape::new(side(w)?, side(h)?);
                }
                "jobs" => jobs = v.parse().map_err(|_| bad("jobs is not a count"))?,
                "seed" => seed = v.parse().map_err(|_| bad("seed is not an integer"))?,
                "rate" => rate = Some(num(v)?),
                "traffic" => traffic = Some(num(v)?),
                "service" => service = Some(num(v)?),
                "load" => load = Some(num(v)?),
                "dist" => {
                    dist = ServiceModel::from_name(v)
                        .ok_or_else(|| bad("dist is not one of exp, normal, hyperexp"))?
                }
                _ => return Err(bad(&format!("unknown key `{k}`"))),
            }
        }
        let mut spec = match (rate, traffic, load) {
            (None, None, Some(rho)) => {
                let mean_service = service.unwrap_or(1.0);
                let mean_nodes = sides.mean_nodes(mesh).ok_or_else(|| {
                    bad("load= needs a model with a known mean size (uniform, squares)")
                })?;
                let rate = f64::from(mesh.area()) * rho / (mean_nodes * dist.mean(mean_service));
                Self::new(sides, mesh, jobs, rate, mean_service)
            }
            (_, _, Some(_)) | (Some(_), Some(_), _) => {
                return Err(bad("give one of rate, traffic and load"));
            }
            (None, Some(t), None) => {
                Self::from_traffic(sides, mesh, jobs, t, service.unwrap_or(5.0))
            }
            (r, None, None) => {
                Self::new(sides, mesh, jobs, r.unwrap_or(1.0), service.unwrap_or(1.0))
            }
        };
        spec.service = dist;
        spec.validate()?;
        Ok((spec, seed))
    }

    /// One line per parameter, for SWF `; Note:` headers and reports.
    pub fn describe(&self) -> Vec<String> {
        vec![
            format!("synthetic model {} ({})", self.sides.name(), self.sides),
            format!("mesh {}, {} jobs", self.mesh, self.jobs),
            format!(
                "Poisson arrivals rate {} jobs/time-unit (traffic ratio {}), {} service mean {}",
                self.rate,
                self.rate * self.mean_service,
                match self.service {
                    ServiceModel::Exponential => "exponential",
                    ServiceModel::Normal => "normal (CV 1, non-positive draws redrawn)",
                    ServiceModel::HyperExp => "hyperexponential (CV² 4)",
                },
                self.mean_service
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn normal_mass_and_erfc() {
        assert!((normal_mass(0.0, 1.0, -1.96, 1.96) - 0.95).abs() < 1e-4);
        assert!((erfc(0.0) - 1.0).abs() < 1e-7 && (erfc(-3.0) - 1.999_977_9).abs() < 1e-6);
    }

    use super::*;

    fn spec(sides: SideModel, jobs: usize) -> SynthSpec {
        SynthSpec::new(sides, Shape::new(32, 32), jobs, 2.0, 1.0)
    }

    fn sides(w: &Workload) -> Vec<u32> {
        w.jobs
            .iter()
            .flat_map(|j| match j.request {
                Request::Submesh(s) => [s.w, s.h],
                _ => unreachable!("synthetic jobs ask for submeshes"),
            })
            .collect()
    }

    fn mean_var(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        (
            m,
            xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0),
        )
    }

    /// Pearson chi-square of observed side counts against expected probabilities over 1..=32.
    fn chi_square(obs: &[u32], prob: impl Fn(u32) -> f64) -> f64 {
        let n = obs.len() as f64;
        (1..=32)
            .map(|s| {
                let o = obs.iter().filter(|&&x| x == s).count() as f64;
                let e = n * prob(s);
                (o - e).powi(2) / e
            })
            .sum()
    }

    // 31 degrees of freedom: the 99.9% quantile of χ²(31) is 61.1.
    const CHI2_31_999: f64 = 61.1;

    #[test]
    fn same_seed_same_workload_other_seed_other_workload() {
        let s = spec(SideModel::uniform_decreasing(), 500);
        let (a, b, c) = (
            s.generate(1).unwrap(),
            s.generate(1).unwrap(),
            s.generate(2).unwrap(),
        );
        assert_eq!(a.jobs, b.jobs);
        assert_ne!(a.jobs, c.jobs);
    }

    #[test]
    fn models_share_arrivals_and_service_times() {
        let a = spec(SideModel::uniform(), 300).generate(9).unwrap();
        let b = spec(SideModel::normal(), 300).generate(9).unwrap();
        assert!(
            a.jobs
                .iter()
                .zip(&b.jobs)
                .all(|(x, y)| x.submit == y.submit && x.runtime == y.runtime)
        );
        assert_ne!(sides(&a), sides(&b));
    }

    #[test]
    fn jobs_are_dense_sorted_and_consistent() {
        let w = spec(SideModel::uniform(), 1000).generate(3).unwrap();
        for (i, j) in w.jobs.iter().enumerate() {
            assert_eq!(j.id, JobId(i as u32));
            assert_eq!(j.asked_procs, j.request.nodes());
            assert!(j.runtime >= 0.0);
        }
        assert!(w.jobs.windows(2).all(|p| p[0].submit <= p[1].submit));
        assert_eq!(w.procs_per_node, 1);
    }

    #[test]
    fn poisson_rate_and_exponential_service_have_the_right_moments() {
        let s = SynthSpec::from_traffic(SideModel::uniform(), Shape::new(32, 32), 40_000, 2.0, 5.0);
        assert!(
            (s.rate - 0.4).abs() < 1e-12,
            "traffic 2 at mean service 5 is λ = 0.4"
        );
        let w = s.generate(11).unwrap();
        let gaps: Vec<f64> = std::iter::once(w.jobs[0].submit)
            .chain(w.jobs.windows(2).map(|p| p[1].submit - p[0].submit))
            .collect();
        let (gm, gv) = mean_var(&gaps);
        // Exponential with mean 2.5: variance 6.25; 40 000 draws give a relative s.e. of 0.5%.
        assert!((gm - 2.5).abs() < 0.05, "mean inter-arrival {gm}");
        assert!((gv - 6.25).abs() < 0.35, "inter-arrival variance {gv}");
        let run: Vec<f64> = w.jobs.iter().map(|j| j.runtime).collect();
        let (rm, rv) = mean_var(&run);
        assert!((rm - 5.0).abs() < 0.1, "mean service {rm}");
        assert!((rv - 25.0).abs() < 1.4, "service variance {rv}");
    }

    #[test]
    fn uniform_sides_pass_chi_square() {
        let obs = sides(&spec(SideModel::uniform(), 20_000).generate(5).unwrap());
        let chi = chi_square(&obs, |_| 1.0 / 32.0);
        assert!(chi < CHI2_31_999, "chi-square {chi}");
        assert!(obs.iter().all(|&s| (1..=32).contains(&s)));
    }

    #[test]
    fn uniform_decreasing_sides_pass_chi_square() {
        let obs = sides(
            &spec(SideModel::uniform_decreasing(), 20_000)
                .generate(6)
                .unwrap(),
        );
        // 0.4 over 1..=4, 0.2 over 5..=8, 0.2 over 9..=16, 0.2 over 17..=32.
        let prob = |s: u32| match s {
            1..=4 => 0.4 / 4.0,
            5..=8 => 0.2 / 4.0,
            9..=16 => 0.2 / 8.0,
            _ => 0.2 / 16.0,
        };
        let chi = chi_square(&obs, prob);
        assert!(chi < CHI2_31_999, "chi-square {chi}");
        // The paper's mean side: 0.4·2.5 + 0.2·6.5 + 0.2·12.5 + 0.2·24.5 = 9.7.
        let (m, _) = mean_var(&obs.iter().map(|&s| s as f64).collect::<Vec<_>>());
        assert!((m - 9.7).abs() < 0.1, "mean side {m}");
    }

    #[test]
    fn normal_sides_have_the_papers_mean_and_variance() {
        let obs = sides(&spec(SideModel::normal(), 20_000).generate(8).unwrap());
        let (m, v) = mean_var(&obs.iter().map(|&s| s as f64).collect::<Vec<_>>());
        assert!((m - 16.5).abs() < 0.05, "mean side {m}");
        // Rounding to integers adds 1/12 to the variance (Sheppard): 6.6 + 0.083.
        assert!((v - 6.683).abs() < 0.2, "side variance {v}");
        assert!(obs.iter().all(|&s| (1..=32).contains(&s)));
    }

    #[test]
    fn truncation_redraws_instead_of_clamping() {
        // Mean at the edge: half the mass lies outside [1, 32]; a clamp would pile it on 32.
        let model = SideModel::TruncNormal {
            mean: 32.0,
            variance: 4.0,
        };
        let obs = sides(&spec(model, 5_000).generate(4).unwrap());
        assert!(obs.iter().all(|&s| (1..=32).contains(&s)));
        let at_32 = obs.iter().filter(|&&s| s == 32).count() as f64 / obs.len() as f64;
        // P(round(X) = 32 | round(X) ≤ 32) for X ~ N(32, 2²): (Φ(0.25) − Φ(−0.25)) / Φ(0.25)
        // = 0.1974 / 0.5987 ≈ 0.330; a clamp would give P(X ≥ 31.5) ≈ 0.599.
        assert!((at_32 - 0.330).abs() < 0.03, "share at 32: {at_32}");
    }

    #[test]
    fn non_square_meshes_bound_each_side() {
        let s = SynthSpec::new(SideModel::uniform(), Shape::new(22, 16), 2000, 1.0, 1.0);
        let w = s.generate(1).unwrap();
        for j in &w.jobs {
            let Request::Submesh(sh) = j.request else {
                unreachable!()
            };
            assert!(sh.w <= 22 && sh.h <= 16);
        }
        assert!(
            w.jobs
                .iter()
                .any(|j| matches!(j.request, Request::Submesh(sh) if sh.w > 16))
        );
    }

    #[test]
    fn bad_parameters_are_errors() {
        let mesh = Shape::new(16, 16);
        // l3 = 16 leaves the last range empty on a 16-wide mesh.
        let s = SynthSpec::new(SideModel::uniform_decreasing(), mesh, 10, 1.0, 1.0);
        assert!(matches!(s.generate(0), Err(SynthError::Param(_))));
        let s = SynthSpec::new(SideModel::uniform(), mesh, 10, 0.0, 1.0);
        assert!(s.generate(0).is_err());
        let s = SynthSpec::new(SideModel::uniform(), mesh, 10, 1.0, -1.0);
        assert!(s.generate(0).is_err());
        let probs = SideModel::UniformDecreasing {
            probs: [0.5, 0.5, 0.5, 0.0],
            bounds: [2, 4, 8],
        };
        assert!(
            SynthSpec::new(probs, mesh, 10, 1.0, 1.0)
                .generate(0)
                .is_err()
        );
        assert!(matches!(
            SideModel::from_name("zipf"),
            Err(SynthError::Model(_))
        ));
    }

    #[test]
    fn workload_labels_parse_with_defaults() {
        let (s, seed) = SynthSpec::from_label("synth:uniform-decreasing").unwrap();
        assert_eq!(
            s,
            SynthSpec::new(
                SideModel::uniform_decreasing(),
                Shape::new(32, 32),
                10_000,
                1.0,
                1.0
            )
        );
        assert_eq!(seed, 1);
        let (s, seed) =
            SynthSpec::from_label("synth:normal,mesh=32x32,jobs=500,traffic=2,seed=9").unwrap();
        assert_eq!((s.jobs, seed, s.mean_service), (500, 9, 5.0));
        assert!((s.rate - 0.4).abs() < 1e-12);
        let (s, _) = SynthSpec::from_label("synth:uniform,mesh=22x16,rate=2.5,service=2").unwrap();
        assert_eq!(
            (s.mesh, s.rate, s.mean_service),
            (Shape::new(22, 16), 2.5, 2.0)
        );
        for bad in [
            "uniform",
            "synth:zipf",
            "synth:uniform,rate=1,traffic=2",
            "synth:uniform,mesh=32",
            "synth:uniform,colour=blue",
            "synth:uniform,jobs=-3",
            "synth:uniform-decreasing,mesh=16x16",
        ] {
            assert!(SynthSpec::from_label(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn load_sets_the_rate_from_the_mean_size_and_service() {
        // squares on 8×8: sizes 1, 4, 16, 64 equally likely, E[nodes] = 85/4.
        assert_eq!(
            SideModel::PowerSquares.mean_nodes(Shape::new(8, 8)),
            Some(21.25)
        );
        assert_eq!(
            SideModel::Uniform.mean_nodes(Shape::new(3, 5)),
            Some(2.0 * 3.0)
        );
        assert_eq!(SideModel::normal().mean_nodes(Shape::new(8, 8)), None);
        let (exp, _) = SynthSpec::from_label("synth:squares,mesh=8x8,load=0.5").unwrap();
        assert_eq!(exp.rate, 64.0 * 0.5 / 21.25);
        let (normal, _) =
            SynthSpec::from_label("synth:squares,mesh=8x8,load=0.5,dist=normal").unwrap();
        let mean = ServiceModel::Normal.mean(1.0);
        assert_eq!(normal.rate, 64.0 * 0.5 / (21.25 * mean));
        assert!((mean - 1.288).abs() < 1e-3);
        for bad in [
            "synth:squares,load=0.5,rate=1",
            "synth:squares,load=0.5,traffic=1",
            "synth:normal,load=0.5",
        ] {
            assert!(SynthSpec::from_label(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn squares_are_powers_of_two_equally_likely() {
        let (spec, seed) = SynthSpec::from_label("synth:squares,mesh=8x8,jobs=20000").unwrap();
        let w = spec.generate(seed).unwrap();
        let mut counts = [0u32; 4];
        for j in &w.jobs {
            let Request::Submesh(s) = j.request else {
                panic!("not a submesh")
            };
            assert_eq!(s.w, s.h);
            counts[s.w.ilog2() as usize] += 1;
        }
        let e = w.jobs.len() as f64 / 4.0;
        let chi2: f64 = counts.iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 16.27, "{counts:?}"); // the 99.9% quantile of χ²(3)
    }

    #[test]
    fn service_models_have_their_moments_and_quantiles() {
        let runs = |dist: &str| {
            let label = format!("synth:squares,mesh=8x8,jobs=40000,dist={dist}");
            let (spec, seed) = SynthSpec::from_label(&label).unwrap();
            assert_eq!(spec.service.name(), dist);
            let mut r: Vec<f64> = spec
                .generate(seed)
                .unwrap()
                .jobs
                .iter()
                .map(|j| j.runtime)
                .collect();
            r.sort_by(f64::total_cmp);
            let (mean, var) = mean_var(&r);
            (mean, var.sqrt() / mean, r[r.len() * 3 / 4], spec)
        };
        // The report's 75th percentiles: 1.4 (exponential, Fig. 4.2) and 1.8 (normal, Fig. 4.3).
        let (m, cv, q75, _) = runs("exp");
        assert!((m - 1.0).abs() < 0.02 && (cv - 1.0).abs() < 0.03 && (q75 - 1.386).abs() < 0.03);
        let (m, _, q75, spec) = runs("normal");
        assert!((m - spec.service.mean(1.0)).abs() < 0.02, "{m}");
        assert!((q75 - 1.805).abs() < 0.03, "{q75}");
        let (m, cv, _, _) = runs("hyperexp");
        assert!((m - 1.0).abs() < 0.05 && (cv - 2.0).abs() < 0.2, "{m} {cv}");
        assert!(SynthSpec::from_label("synth:squares,dist=weibull").is_err());
    }

    #[test]
    fn names_round_trip() {
        for m in [
            SideModel::uniform(),
            SideModel::uniform_decreasing(),
            SideModel::normal(),
            SideModel::PowerSquares,
        ] {
            assert_eq!(SideModel::from_name(m.name()).unwrap(), m);
        }
    }
}
