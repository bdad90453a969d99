//! The semitorus study (semitorus-allocation.md; Mao, Chen & Watson, HPC Asia 2005): FCFS and
//! backfilling × the two partition schemes (EP, NEP) on PWA traces of two torus machines, against a
//! fully connected machine (`flat`) and contiguous boxes (`ff`). The runs and figures are data,
//! `experiments/semitorus.toml` (per system the utilization, the mean bounded slowdown, τ = 10 s,
//! and the mean wait against the load factor); this module writes `out/paper/semitorus/README.md`
//! from them: how far each series is from the fully connected machine under the same scheduler,
//! and the study's headline with a verdict.
//!
//! EP and NEP round every request up to a power of two; the fully connected machine (`flat`) does
//! not. The file's `<trace>-pow2` panels give `flat` the same rounded requests (the catalog's `pow2`
//! shape rule): the *rounding-matched* reference. The README compares every series with both, states
//! the rounding's own cost (`flat` on rounded against unrounded requests), and judges the headline
//! against the matched reference.
//!
//! The study's backfilling is EASY (`easy`, exact estimates).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;

use super::data::FigureData;

/// Utilization within this much (absolute) of the fully connected machine counts as comparable.
pub const UTIL_TOLERANCE: f64 = 0.05;
/// Mean bounded slowdown within this factor of the fully connected machine counts as comparable.
pub const BSLD_FACTOR: f64 = 1.5;

/// The series compared with the fully connected machine (`<sched>+flat`), in table order.
const COMPARED: [&str; 5] = ["fcfs+ep", "fcfs+nep", "easy+ep", "easy+nep", "easy+ff"];

/// What one system's panel measured.
pub struct System<'a> {
    /// Catalog name (the panel's).
    pub trace: String,
    /// Machine label.
    pub machine: String,
    /// Jobs replayed.
    pub jobs: u64,
    /// Utilization against the load factor.
    pub utilization: &'a FigureData,
    /// Mean bounded slowdown against the load factor.
    pub bsld: &'a FigureData,
    /// The fully connected machine given the requests rounded up to a power of two (the
    /// `<trace>-pow2` panel), when it ran.
    pub matched: Option<Curves<'a>>,
}

/// One panel's curves against the load factor.
#[derive(Clone, Copy)]
pub struct Curves<'a> {
    /// Utilization.
    pub utilization: &'a FigureData,
    /// Mean bounded slowdown.
    pub bsld: &'a FigureData,
}

impl<'a> System<'a> {
    /// The system's own panel.
    fn curves(&self) -> Curves<'a> {
        Curves {
            utilization: self.utilization,
            bsld: self.bsld,
        }
    }
}

/// How far a series is from the fully connected reference, over the loads both measured up to
/// `max_load`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distance {
    /// Loads compared.
    pub loads: usize,
    /// Largest |utilization − reference utilization|.
    pub max_util_gap: f64,
    /// Largest mean bounded slowdown / reference's.
    pub max_bsld_ratio: f64,
    /// Mean bounded slowdown / reference's at load factor 1 (the trace as recorded), if measured.
    pub bsld_ratio_at_1: Option<f64>,
}

impl Distance {
    /// Within [`UTIL_TOLERANCE`] and [`BSLD_FACTOR`] at every load compared.
    pub fn comparable(&self) -> bool {
        self.loads > 0 && self.max_util_gap <= UTIL_TOLERANCE && self.max_bsld_ratio <= BSLD_FACTOR
    }
}

/// The value of `series` at `x` in a figure.
fn at(f: &FigureData, series: &str, x: f64) -> Option<f64> {
    f.points
        .iter()
        .find(|p| p.series == series && p.x == x)
        .map(|p| p.est.mean)
}

/// The distance of `series` from `reference` in one system, over loads ≤ `max_load`.
pub fn distance(sys: &System<'_>, series: &str, reference: &str, max_load: f64) -> Distance {
    distance_between(sys.curves(), series, sys.curves(), reference, max_load)
}

/// The distance of `series` in `a` from `reference` in `b`, over the loads ≤ `max_load` both
/// measured.
pub fn distance_between(
    a: Curves<'_>,
    series: &str,
    b: Curves<'_>,
    reference: &str,
    max_load: f64,
) -> Distance {
    let mut d = Distance {
        loads: 0,
        max_util_gap: 0.0,
        max_bsld_ratio: 0.0,
        bsld_ratio_at_1: None,
    };
    for p in a
        .bsld
        .points
        .iter()
        .filter(|p| p.series == series && p.x <= max_load)
    {
        let (Some(ref_bsld), Some(util), Some(ref_util)) = (
            at(b.bsld, reference, p.x),
            at(a.utilization, series, p.x),
            at(b.utilization, reference, p.x),
        ) else {
            continue;
        };
        let ratio = p.est.mean / ref_bsld;
        d.loads += 1;
        d.max_util_gap = d.max_util_gap.max((util - ref_util).abs());
        d.max_bsld_ratio = d.max_bsld_ratio.max(ratio);
        if p.x == 1.0 {
            d.bsld_ratio_at_1 = Some(ratio);
        }
    }
    d
}

/// The reference of a compared series: the same scheduler on the fully connected machine.
fn reference(series: &str) -> String {
    let sched = series.split('+').next().unwrap_or(series);
    format!("{sched}+flat")
}

/// The README of `out/paper/semitorus/`.
pub fn readme(systems: &[System<'_>], quick: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Semitorus allocation on tori (semitorus-allocation.md)\n"
    );
    let names: Vec<&str> = systems.iter().map(|r| r.trace.as_str()).collect();
    let _ = writeln!(
        s,
        "Mao, Chen & Watson (HPC Asia 2005) ran FCFS and backfilling × equal (EP) and non-equal (NEP) \
         partition on PWA traces of two torus machines, and found **backfilling/NEP gives utilization \
         and mean bounded slowdown comparable to a fully connected machine**. Here: the traces and \
         machines of `traces/catalog.toml` (`{}`), one deterministic replay per load factor \
         (the sweep's `auto` loads; `experiments/semitorus.toml`), every series against the fully \
         connected machine (`flat`) under the same scheduler. Comparable = utilization within \
         {UTIL_TOLERANCE} and mean bounded slowdown at most {BSLD_FACTOR}× the reference at every \
         load factor ≤ 1 (the trace as recorded and lighter).\n",
        names.join("`, `")
    );
    let _ = writeln!(
        s,
        "Backfilling is `easy` (EASY), with exact estimates. Every job of both logs fits the \
         largest semitorus of its machine (the catalog's tori are chosen so), so no job is dropped.\n"
    );
    if quick {
        let _ = writeln!(
            s,
            "*Quick run* (`PAPER_QUICK=1`): only the first jobs of each trace, coarse loads; the \
             numbers are not the study's.\n"
        );
    }
    let _ = writeln!(
        s,
        "| system | jobs | series | vs | loads ≤ 1 | max \\|Δ utilization\\| | max bsld ratio | bsld ratio at lf 1 | comparable |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    for r in systems {
        for series in COMPARED {
            let reference = reference(series);
            let d = distance(r, series, &reference, 1.0);
            let _ = writeln!(
                s,
                "| {} on `{}` | {} | `{series}` | `{reference}` | {} | {:.3} | {:.2} | {} | {} |",
                r.trace,
                r.machine,
                r.jobs,
                d.loads,
                d.max_util_gap,
                d.max_bsld_ratio,
                d.bsld_ratio_at_1
                    .map_or("—".to_string(), |x| format!("{x:.2}")),
                if d.comparable() { "yes" } else { "no" }
            );
        }
    }
    matched_tables(&mut s, systems);
    let _ = writeln!(s, "\n## The study's headline\n");
    for r in systems {
        let plain = distance(r, "easy+nep", "easy+flat", 1.0);
        match r.matched {
            Some(m) => {
                let d = distance_between(r.curves(), "easy+nep", m, "easy+flat", 1.0);
                let _ = writeln!(
                    s,
                    "- {} on `{}`: EASY/NEP comparable to the fully connected machine given the same \
                     rounded requests — {} (against the unrounded machine: {})",
                    r.trace,
                    r.machine,
                    verdict(&d),
                    verdict(&plain)
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "- {} on `{}`: EASY/NEP comparable to the fully connected machine — {}",
                    r.trace,
                    r.machine,
                    verdict(&plain)
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\nFigures per system: `<trace>-utilization`, `<trace>-bsld`, `<trace>-wait`, and the rounding-matched reference's `<trace>-pow2-utilization`, `<trace>-pow2-bsld` (CSV `series,x,y,ci_low,ci_high` + PNG)."
    );
    s
}

/// "**holds** (max |Δ utilization| …, max bounded-slowdown ratio … over … loads)".
fn verdict(d: &Distance) -> String {
    format!(
        "{} (max |Δ utilization| {:.3}, max bounded-slowdown ratio {:.2} over {} loads)",
        if d.comparable() {
            "**holds**"
        } else {
            "**differs**"
        },
        d.max_util_gap,
        d.max_bsld_ratio,
        d.loads
    )
}

/// The tables against the rounding-matched reference and of the rounding's own cost, for the
/// systems whose `-pow2` panel ran.
fn matched_tables(s: &mut String, systems: &[System<'_>]) {
    if systems.iter().all(|r| r.matched.is_none()) {
        return;
    }
    let _ = writeln!(
        s,
        "\n## Against the rounding-matched reference\n\n\
         EP and NEP grant every request rounded up to a power of two; `flat` above does not round. \
         Here the reference is `flat` given the same rounded requests (the catalog's `<trace>-pow2`, \
         shape rule `pow2`), so what remains is the partition schemes' own cost.\n"
    );
    let _ = writeln!(
        s,
        "| system | series | vs (requests rounded to 2^k) | loads ≤ 1 | max \\|Δ utilization\\| | max bsld ratio | bsld ratio at lf 1 | comparable |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|");
    for r in systems {
        let Some(m) = r.matched else { continue };
        for series in COMPARED {
            let reference = reference(series);
            let d = distance_between(r.curves(), series, m, &reference, 1.0);
            let _ = writeln!(
                s,
                "| {} | `{series}` | `{reference}` | {} |",
                r.trace,
                row(&d)
            );
        }
    }
    let _ = writeln!(
        s,
        "\n### The rounding's own cost\n\n`flat` given the rounded requests against `flat` given \
         the requests as they are, under the same scheduler.\n"
    );
    let _ = writeln!(
        s,
        "| system | scheduler | loads ≤ 1 | max \\|Δ utilization\\| | max bsld ratio | bsld ratio at lf 1 | comparable |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for r in systems {
        let Some(m) = r.matched else { continue };
        for sched in ["fcfs", "easy"] {
            let flat = format!("{sched}+flat");
            let d = distance_between(m, &flat, r.curves(), &flat, 1.0);
            let _ = writeln!(s, "| {} | `{sched}` | {} |", r.trace, row(&d));
        }
    }
}

/// The distance columns: loads, max |Δ utilization|, max and lf-1 bounded-slowdown ratios, verdict.
fn row(d: &Distance) -> String {
    format!(
        "{} | {:.3} | {:.2} | {} | {}",
        d.loads,
        d.max_util_gap,
        d.max_bsld_ratio,
        d.bsld_ratio_at_1
            .map_or("—".to_string(), |x| format!("{x:.2}")),
        if d.comparable() { "yes" } else { "no" }
    )
}

/// Writes the README.
pub fn write_readme(dir: &Path, systems: &[System<'_>], quick: bool) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join("README.md");
    std::fs::write(&path, readme(systems, quick))
        .with_context(|| format!("writing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pwa_replay::experiment::Point;
    use pwa_replay::replicate::Estimate;

    fn figure(points: &[(&str, f64, f64)]) -> FigureData {
        FigureData {
            group: "semitorus".into(),
            id: "t".into(),
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: false,
            points: points
                .iter()
                .map(|&(series, x, y)| Point {
                    series: series.into(),
                    x,
                    est: Estimate::from_samples(&[y]),
                })
                .collect(),
        }
    }

    #[test]
    fn distance_compares_loads_both_measured_up_to_the_cap() {
        let utilization = figure(&[
            ("fcfs+flat", 0.5, 0.40),
            ("fcfs+flat", 1.0, 0.70),
            ("fcfs+nep", 0.5, 0.38),
            ("fcfs+nep", 1.0, 0.66),
            ("fcfs+nep", 1.5, 0.10),
        ]);
        let bsld = figure(&[
            ("fcfs+flat", 0.5, 2.0),
            ("fcfs+flat", 1.0, 4.0),
            ("fcfs+nep", 0.5, 2.5),
            ("fcfs+nep", 1.0, 8.0),
            ("fcfs+nep", 1.5, 99.0),
        ]);
        let sys = System {
            trace: "t".into(),
            machine: "torus:8x8x8".into(),
            jobs: 10,
            utilization: &utilization,
            bsld: &bsld,
            matched: None,
        };
        let d = distance(&sys, "fcfs+nep", "fcfs+flat", 1.0);
        assert_eq!(d.loads, 2);
        assert!((d.max_util_gap - 0.04).abs() < 1e-12);
        assert_eq!(d.max_bsld_ratio, 2.0);
        assert_eq!(d.bsld_ratio_at_1, Some(2.0));
        assert!(!d.comparable(), "slowdown twice the reference's");
        let d = distance(&sys, "fcfs+nep", "fcfs+flat", 0.5);
        assert!(d.comparable());
        let text = readme(&[sys], true);
        assert!(
            text.contains("| `fcfs+nep` | `fcfs+flat` | 2 | 0.040 | 2.00 | 2.00 | no |"),
            "{text}"
        );
    }

    #[test]
    fn every_compared_series_has_a_flat_reference() {
        assert_eq!(reference("easy+nep"), "easy+flat");
        assert!(COMPARED.iter().all(|s| !s.ends_with("+flat")));
    }

    #[test]
    fn the_headline_is_judged_against_the_rounding_matched_reference() {
        // Unrounded flat: slowdown 2 at both loads; flat on rounded requests: 4 and 6; NEP: 5, 7.
        let utilization = figure(&[
            ("easy+flat", 0.5, 0.40),
            ("easy+flat", 1.0, 0.70),
            ("easy+nep", 0.5, 0.40),
            ("easy+nep", 1.0, 0.69),
        ]);
        let bsld = figure(&[
            ("easy+flat", 0.5, 2.0),
            ("easy+flat", 1.0, 2.0),
            ("easy+nep", 0.5, 5.0),
            ("easy+nep", 1.0, 7.0),
        ]);
        let m_util = figure(&[("easy+flat", 0.5, 0.40), ("easy+flat", 1.0, 0.68)]);
        let m_bsld = figure(&[("easy+flat", 0.5, 4.0), ("easy+flat", 1.0, 6.0)]);
        let sys = System {
            trace: "t".into(),
            machine: "torus:8x8x8".into(),
            jobs: 10,
            utilization: &utilization,
            bsld: &bsld,
            matched: Some(Curves {
                utilization: &m_util,
                bsld: &m_bsld,
            }),
        };
        let text = readme(&[sys], false);
        // NEP vs matched: ratios 1.25, 1.17 (≤ 1.5), utilization gap 0.01: comparable.
        assert!(
            text.contains("| t | `easy+nep` | `easy+flat` | 2 | 0.010 | 1.25 | 1.17 | yes |"),
            "{text}"
        );
        // The rounding's cost: flat on rounded requests vs flat, ratios 2 and 3.
        assert!(
            text.contains("| t | `easy` | 2 | 0.020 | 3.00 | 3.00 | no |"),
            "{text}"
        );
        assert!(
            text.contains("same rounded requests — **holds** (max |Δ utilization| 0.010, max bounded-slowdown ratio 1.25 over 2 loads) (against the unrounded machine: **differs**"),
            "{text}"
        );
    }
}
