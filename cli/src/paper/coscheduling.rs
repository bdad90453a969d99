//! `out/paper/coscheduling/`: the figures of the coscheduling report (coscheduling-time-sharing.md
//! §4.4, Rotzoll 1993) — MPJ-CoSched&TS (`gang`) against its space-sharing baseline
//! (`largest-first`) on the report's 8×8 model (squares of 1, 4, 16, 64 nodes equally likely,
//! Poisson arrivals, mean service 1) — and the report's qualitative claims with verdicts.
//!
//! * `fig4_2` / `fig4_3`: mean response time vs load ρ, exponential / normal (CV 1) service.
//! * `wait_by_service_rho{50,70}`: mean waiting time (response − run time) per service-demand
//!   decile, exponential service, at ρ = 0.5 and 0.7.
//! * `gang_classes`: mean number of time-slice classes and job suspensions per job vs ρ.
//!
//! ρ is the offered load: λ · E\[nodes\] · E\[service\] / 64 with E\[nodes\] = 85/4, so λ = 64ρ /
//! (21.25 · E\[service\]) (E\[service\] of the truncated normal is 1.288). The slice is the report's: the
//! median service time of each replication's workload. Baseline `RetryLim`: 16, and 64 for normal
//! service at ρ ≥ 0.7 (as in the report). Replications: independent seeds per (figure line, ρ);
//! points are means with 95% Student-t intervals.

use pwa_replay::coschedule::{self, by_service_class, replay_gang};
use pwa_replay::engine::{self, NoObserver};
use pwa_replay::machine::{AllocKind, Shape};
use pwa_replay::replicate::{Estimate, seed_for};
use pwa_replay::sched::{GangParams, SchedKind};
use pwa_replay::workload::Workload;
use pwa_replay::workload::synth::{ServiceModel, SideModel, SynthSpec};
use rayon::prelude::*;

use super::data::{FigureData, Point};
use super::figures::Paper;
use pwa_replay::experiment::Verdict;

/// Size of one run of the model.
#[derive(Debug, Clone)]
pub struct Budget {
    /// Jobs per replication.
    pub jobs: usize,
    /// Replications per point.
    pub reps: usize,
    /// Loads ρ of the response-time figures.
    pub loads: Vec<f64>,
}

impl Budget {
    /// `make paper` or `PAPER_QUICK=1`.
    pub fn new(quick: bool) -> Budget {
        if quick {
            Budget {
                jobs: 1500,
                reps: 2,
                loads: vec![0.3, 0.5, 0.7],
            }
        } else {
            Budget {
                jobs: 20_000,
                reps: 5,
                loads: (1..=8).map(|i| f64::from(i) / 10.0).collect(),
            }
        }
    }
}

/// The loads of the waiting-by-service figures.
const DECILE_LOADS: [f64; 2] = [0.5, 0.7];
const GANG: &str = "gang+ff";
const LF: &str = "largest-first+ff";

/// The two policies compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Policy {
    Gang,
    LargestFirst,
}

/// What one replication measured.
#[derive(Debug, Clone)]
struct Run {
    response: f64,
    deciles: Vec<f64>,
    classes: f64,
    suspensions_per_job: f64,
}

fn spec(service: ServiceModel, rho: f64, jobs: usize) -> SynthSpec {
    let mean_nodes = (1.0 + 4.0 + 16.0 + 64.0) / 4.0;
    let rate = 64.0 * rho / (mean_nodes * service.mean(1.0));
    let mut s = SynthSpec::new(SideModel::PowerSquares, Shape::new(8, 8), jobs, rate, 1.0);
    s.service = service;
    s
}

/// The report's slice: the run time below which half of the jobs fall.
fn median_runtime(w: &Workload) -> f64 {
    let mut r: Vec<f64> = w.jobs.iter().map(|j| j.runtime).collect();
    r.sort_by(f64::total_cmp);
    r.get(r.len() / 2)
        .copied()
        .filter(|m| *m > 0.0)
        .unwrap_or(1.0)
}

fn retry_lim(service: ServiceModel, rho: f64) -> u32 {
    if service == ServiceModel::Normal && rho >= 0.7 - 1e-9 {
        64
    } else {
        GangParams::RETRY
    }
}

fn one_run(
    service: ServiceModel,
    rho: f64,
    policy: Policy,
    jobs: usize,
    rep: usize,
) -> anyhow::Result<Run> {
    let s = spec(service, rho, jobs);
    // Common random numbers: both policies see the same job stream.
    let w = s.generate(seed_for(
        &format!("coscheduling/{}/{rho}", service.name()),
        rep,
    ))?;
    let m = s.mesh_spec();
    let (out, classes) = match policy {
        Policy::Gang => {
            let p = GangParams {
                slice: Some(median_runtime(&w)),
                ..GangParams::default()
            };
            let (out, log) = replay_gang(&w, m, p, AllocKind::FirstFit)?;
            let end = out.records.iter().map(|r| r.end).fold(0.0, f64::max);
            let c = log.mean_classes(end);
            (out, c)
        }
        Policy::LargestFirst => {
            let sched = SchedKind::LargestFirst(retry_lim(service, rho));
            (
                engine::replay(&w, m, sched, AllocKind::FirstFit, &mut NoObserver)?,
                0.0,
            )
        }
    };
    engine::validate(&w, m, &out)?;
    Ok(Run {
        response: coschedule::mean_response(&w, &out),
        deciles: by_service_class(&w, &out, 10)
            .iter()
            .map(|c| c.mean_wait)
            .collect(),
        classes,
        suspensions_per_job: coschedule::suspensions(&out) as f64 / w.jobs.len().max(1) as f64,
    })
}

/// Every replication of one (service, ρ, policy) cell.
type Cell = (ServiceModel, f64, Policy);

fn figure(id: &str, title: &str, x: &str, y: &str, points: Vec<Point>) -> FigureData {
    FigureData {
        group: Paper::Coscheduling.dir().to_string(),
        log_y: false,
        id: id.to_string(),
        title: title.to_string(),
        x_label: x.to_string(),
        y_label: y.to_string(),
        log_x: false,
        points,
    }
}

fn label(p: Policy) -> &'static str {
    match p {
        Policy::Gang => GANG,
        Policy::LargestFirst => LF,
    }
}

/// Runs every cell (in parallel) and projects the figures.
pub fn run(budget: &Budget) -> anyhow::Result<Vec<FigureData>> {
    let mut cells: Vec<Cell> = Vec::new();
    for service in [ServiceModel::Exponential, ServiceModel::Normal] {
        let mut loads = budget.loads.clone();
        if service == ServiceModel::Exponential {
            loads.extend(DECILE_LOADS.iter().filter(|l| !budget.loads.contains(l)));
        }
        for &rho in &loads {
            for p in [Policy::Gang, Policy::LargestFirst] {
                cells.push((service, rho, p));
            }
        }
    }
    let jobs: Vec<(usize, usize)> = (0..cells.len())
        .flat_map(|c| (0..budget.reps).map(move |r| (c, r)))
        .collect();
    let runs: Vec<(usize, Run)> = jobs
        .par_iter()
        .map(|&(c, rep)| {
            let (service, rho, p) = cells[c];
            one_run(service, rho, p, budget.jobs, rep).map(|r| (c, r))
        })
        .collect::<anyhow::Result<_>>()?;
    let of = |c: usize| -> Vec<&Run> {
        runs.iter()
            .filter(|(i, _)| *i == c)
            .map(|(_, r)| r)
            .collect()
    };
    let est = |c: usize, f: &dyn Fn(&Run) -> f64| Estimate::of(&of(c), |r| f(r));
    let pts =
        |service: ServiceModel, loads: &[f64], policies: &[Policy], f: &dyn Fn(&Run) -> f64| {
            let mut out = Vec::new();
            for &p in policies {
                for &rho in loads {
                    if let Some(c) = cells.iter().position(|&k| k == (service, rho, p)) {
                        out.push(Point {
                            series: label(p).to_string(),
                            x: rho,
                            est: est(c, f),
                        });
                    }
                }
            }
            out
        };
    let both = [Policy::Gang, Policy::LargestFirst];
    let resp = |r: &Run| r.response;
    let mut figs = vec![
        figure(
            "fig4_2",
            "response vs load, exponential service",
            "load ρ",
            "mean response time (time units)",
            pts(ServiceModel::Exponential, &budget.loads, &both, &resp),
        ),
        figure(
            "fig4_3",
            "response vs load, normal service",
            "load ρ",
            "mean response time (time units)",
            pts(ServiceModel::Normal, &budget.loads, &both, &resp),
        ),
    ];
    for rho in DECILE_LOADS {
        let mut points = Vec::new();
        for p in both {
            let Some(c) = cells
                .iter()
                .position(|&k| k == (ServiceModel::Exponential, rho, p))
            else {
                continue;
            };
            for d in 0..10 {
                points.push(Point {
                    series: label(p).to_string(),
                    x: (d + 1) as f64,
                    est: est(c, &|r: &Run| r.deciles.get(d).copied().unwrap_or(0.0)),
                });
            }
        }
        figs.push(figure(
            &format!("wait_by_service_rho{}", (rho * 100.0).round()),
            &format!("waiting by service decile, ρ = {rho}"),
            "service-demand decile (1 = shortest 10%)",
            "mean waiting time = response − run time (time units)",
            points,
        ));
    }
    let mut internals = pts(
        ServiceModel::Exponential,
        &budget.loads,
        &[Policy::Gang],
        &|r: &Run| r.classes,
    );
    for p in &mut internals {
        p.series = "mean classes".into();
    }
    let mut susp = pts(
        ServiceModel::Exponential,
        &budget.loads,
        &[Policy::Gang],
        &|r: &Run| r.suspensions_per_job,
    );
    for p in &mut susp {
        p.series = "suspensions per job".into();
    }
    internals.extend(susp);
    figs.push(figure(
        "gang_classes",
        "gang classes and suspensions",
        "load ρ",
        "count",
        internals,
    ));
    Ok(figs)
}

/// `a` is not worse than `b` at `x`: at most 2% larger, or the 95% intervals overlap.
fn not_worse(f: &FigureData, a: &str, b: &str, x: f64) -> bool {
    match (f.est(a, x), f.est(b, x)) {
        (Some(ea), Some(eb)) => ea.mean <= eb.mean * 1.02 || ea.ci_low <= eb.ci_high,
        _ => true,
    }
}

fn xs(f: &FigureData) -> Vec<f64> {
    let mut x: Vec<f64> = f.points.iter().map(|p| p.x).collect();
    x.sort_by(f64::total_cmp);
    x.dedup();
    x
}

fn never_worse(f: &FigureData) -> (String, bool) {
    let worse: Vec<String> = xs(f)
        .into_iter()
        .filter(|&x| !not_worse(f, GANG, LF, x))
        .map(|x| format!("{x}"))
        .collect();
    let cells: Vec<String> = xs(f)
        .into_iter()
        .map(|x| {
            format!(
                "ρ {x}: {:.2} vs {:.2}",
                f.at(GANG, x).unwrap_or(f64::NAN),
                f.at(LF, x).unwrap_or(f64::NAN)
            )
        })
        .collect();
    let m = format!("gang vs largest-first mean response: {}", cells.join("; "));
    (m, worse.is_empty())
}

fn saving_grows(f: &FigureData) -> (String, bool) {
    let x = xs(f);
    let saving = |x: f64| match (f.at(GANG, x), f.at(LF, x)) {
        (Some(g), Some(l)) if l > 0.0 => (l - g) / l,
        _ => f64::NAN,
    };
    let (lo, hi) = (
        x.first().copied().unwrap_or(0.0),
        x.last().copied().unwrap_or(0.0),
    );
    let (s_lo, s_hi) = (saving(lo), saving(hi));
    (
        format!(
            "saving (LF − gang)/LF: {:.0}% at ρ {lo}, {:.0}% at ρ {hi}",
            100.0 * s_lo,
            100.0 * s_hi
        ),
        s_hi > s_lo,
    )
}

fn ratio_top_bottom(f: &FigureData, series: &str) -> f64 {
    match (f.at(series, 10.0), f.at(series, 1.0)) {
        (Some(top), Some(bottom)) if bottom > 0.0 => top / bottom,
        (Some(top), Some(_)) if top > 0.0 => f64::INFINITY,
        _ => 1.0,
    }
}

fn gang_wait_grows(f: &FigureData) -> (String, bool) {
    let r = ratio_top_bottom(f, GANG);
    let curve = f.curve(GANG);
    let rising = curve.windows(2).filter(|w| w[1].1 >= w[0].1).count();
    (
        format!(
            "gang: longest-decile wait / shortest-decile wait = {r:.1}; {rising} of 9 steps rise"
        ),
        r >= 2.0 && rising >= 7,
    )
}

fn lf_wait_flat(f: &FigureData) -> (String, bool) {
    let curve = f.curve(LF);
    let mean = curve.iter().map(|c| c.1).sum::<f64>() / curve.len().max(1) as f64;
    let spread = curve
        .iter()
        .map(|c| (c.1 / mean - 1.0).abs())
        .fold(0.0, f64::max);
    (
        format!(
            "largest-first: decile waits within ±{:.0}% of their mean {mean:.2} (top/bottom {:.2})",
            100.0 * spread,
            ratio_top_bottom(f, LF)
        ),
        spread <= 0.25,
    )
}

type Check = fn(&FigureData) -> (String, bool);

/// The report's statements, per figure.
const CLAIMS: &[(&str, &str, Check)] = &[
    (
        "fig4_2",
        "MPJ-CoSched&TS never has a worse mean response time than space sharing (exponential service)",
        never_worse,
    ),
    (
        "fig4_2",
        "the response-time saving of MPJ-CoSched&TS grows with the load (exponential service)",
        saving_grows,
    ),
    (
        "fig4_3",
        "MPJ-CoSched&TS never has a worse mean response time than space sharing (normal service, CV 1)",
        never_worse,
    ),
    (
        "fig4_3",
        "the response-time saving of MPJ-CoSched&TS grows with the load (normal service)",
        saving_grows,
    ),
    (
        "wait_by_service_rho50",
        "under MPJ-CoSched&TS jobs with a small service demand wait less than long ones (ρ = 0.5)",
        gang_wait_grows,
    ),
    (
        "wait_by_service_rho70",
        "under MPJ-CoSched&TS jobs with a small service demand wait less than long ones (ρ = 0.7)",
        gang_wait_grows,
    ),
    (
        "wait_by_service_rho50",
        "under space sharing the waiting time is independent of the service demand (ρ = 0.5)",
        lf_wait_flat,
    ),
    (
        "wait_by_service_rho70",
        "under space sharing the waiting time is independent of the service demand (ρ = 0.7)",
        lf_wait_flat,
    ),
];

/// Verdicts for the report's statements.
pub fn evaluate(figs: &[FigureData]) -> Vec<Verdict> {
    CLAIMS
        .iter()
        .map(|&(id, statement, check)| {
            let key = format!("{}/{id}", Paper::Coscheduling.dir());
            let fig = figs.iter().find(|f| f.key() == key && !f.points.is_empty());
            let (measured, holds) = match fig {
                Some(f) => {
                    let (m, h) = check(f);
                    (m, Some(h))
                }
                None => ("not run".to_string(), None),
            };
            Verdict {
                figure: key,
                statement: statement.to_string(),
                measured,
                holds,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn load_sets_the_rate_from_the_mean_size_and_service() {
        let s = spec(ServiceModel::Exponential, 0.5, 10);
        assert!((s.rate * 21.25 / 64.0 - 0.5).abs() < 1e-12);
        let n = spec(ServiceModel::Normal, 0.5, 10);
        assert!((n.rate * 21.25 * ServiceModel::Normal.mean(1.0) / 64.0 - 0.5).abs() < 1e-12);
        assert_eq!(retry_lim(ServiceModel::Normal, 0.7), 64);
        assert_eq!(retry_lim(ServiceModel::Exponential, 0.7), 16);
    }

    #[test]
    fn quick_run_fills_every_figure_and_every_claim_is_checked() {
        let b = Budget {
            jobs: 300,
            reps: 2,
            loads: vec![0.3, 0.6],
        };
        let figs = run(&b).unwrap();
        assert_eq!(figs.len(), 5);
        assert!(figs.iter().all(|f| !f.points.is_empty()));
        let v = evaluate(&figs);
        assert_eq!(v.len(), CLAIMS.len());
        assert!(v.iter().all(|v| v.holds.is_some()), "{v:?}");
    }
}
