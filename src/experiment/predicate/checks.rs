//! The predicates' checks: each reads a figure's curves (means and 95% intervals at the x values
//! where the series it names all ran) and says what it measured and whether the statement holds.

use super::{Args, SATURATION, Where};
use crate::experiment::figure::{FigureData, Point};

/// `a` is not worse (not larger) than `b` at `x`: within `tol`, or the CIs overlap. Missing points
/// count as not worse.
fn not_worse(f: &FigureData, a: &str, b: &str, x: f64, tol: f64) -> bool {
    match (f.est(a, x), f.est(b, x)) {
        (Some(ea), Some(eb)) => ea.mean <= eb.mean * (1.0 + tol) || ea.ci_low <= eb.ci_high,
        _ => true,
    }
}

/// x values where every series named has a point.
fn common(f: &FigureData, series: &[&str]) -> Vec<f64> {
    f.xs()
        .into_iter()
        .filter(|&x| series.iter().all(|s| f.at(s, x).is_some()))
        .collect()
}

fn where_xs(f: &FigureData, series: &[&str], at: Where) -> Vec<f64> {
    let xs = common(f, series);
    match at {
        Where::Every => xs,
        Where::First => xs.first().copied().into_iter().collect(),
        Where::Last => xs.last().copied().into_iter().collect(),
        Where::At(x) => xs.into_iter().filter(|&c| c == x).collect(),
    }
}

/// An x value as written (`beyond the range` for a curve that never saturates).
fn fmt_x(x: f64) -> String {
    if x.is_finite() {
        x.to_string()
    } else {
        "beyond the range".into()
    }
}

/// A measured value with as many decimals as it needs (4 below 10, 2 below 1000, none above).
fn fmt(v: f64) -> String {
    if v.is_finite() {
        let decimals = match v.abs() {
            a if a >= 1000.0 => 0,
            a if a >= 10.0 => 2,
            _ => 4,
        };
        format!("{v:.decimals$}")
    } else {
        "beyond the range".into()
    }
}

fn extreme(f: &FigureData, a: &Args<'_>, low: bool) -> (String, bool) {
    let s = a.str("series");
    let all = f.series();
    let labels: Vec<&str> = all.iter().map(String::as_str).collect();
    let xs = where_xs(f, &labels, a.at());
    let mut misses = Vec::new();
    let strict = a.num("strict", 0.0) != 0.0;
    for &x in &xs {
        let ok = labels.iter().filter(|o| **o != s).all(|o| {
            let (mine, other) = (f.at(s, x), f.at(o, x));
            match (strict, low) {
                (true, true) => mine < other,
                (true, false) => mine > other,
                (false, true) => not_worse(f, s, o, x, a.tol()),
                (false, false) => not_worse(f, o, s, x, a.tol()),
            }
        });
        if !ok {
            misses.push(format!("x={x}"));
        }
    }
    let word = if low { "lowest" } else { "highest" };
    let how = if strict {
        "strictly".to_string()
    } else {
        format!("(within {}% or the CIs)", a.tol() * 100.0)
    };
    let m = format!(
        "{s} {word} {how} at {}/{} x where all series ran{}",
        xs.len() - misses.len(),
        xs.len(),
        if misses.is_empty() {
            String::new()
        } else {
            format!(" (not at {})", misses.join(", "))
        }
    );
    (m, misses.is_empty() && !xs.is_empty())
}

pub(super) fn lowest(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    extreme(f, a, true)
}

pub(super) fn highest(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    extreme(f, a, false)
}

pub(super) fn below(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let (sa, sb) = (a.str("a"), a.str("b"));
    let strict = a.num("strict", 0.0) != 0.0;
    let xs = where_xs(f, &[sa, sb], a.at());
    let point = |x: f64| {
        let v = |s: &str| f.at(s, x).unwrap_or(f64::NAN);
        format!("x={x}: {} vs {}", fmt(v(sa)), fmt(v(sb)))
    };
    let misses: Vec<f64> = xs
        .iter()
        .copied()
        .filter(|&x| {
            let ok = if strict {
                matches!(
                    f.at(sa, x).partial_cmp(&f.at(sb, x)),
                    Some(std::cmp::Ordering::Less)
                )
            } else {
                not_worse(f, sa, sb, x, a.tol())
            };
            !ok
        })
        .collect();
    let how = if strict {
        "strictly below".to_string()
    } else {
        format!("not above (within {}% or the CIs)", a.tol() * 100.0)
    };
    let m = match xs.as_slice() {
        [] => format!("{sa} vs {sb}: no common x"),
        // One point: its values.
        [x] => format!("{sa} {how} {sb}: {}", point(*x)),
        _ => format!(
            "{sa} {how} {sb} at {}/{} common x{}",
            xs.len() - misses.len(),
            xs.len(),
            if misses.is_empty() {
                String::new()
            } else {
                let shown: Vec<String> = misses.iter().map(|&x| point(x)).collect();
                format!(" (not at {})", shown.join("; "))
            }
        ),
    };
    (m, !xs.is_empty() && misses.is_empty())
}

pub(super) fn within(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let (sa, sb) = (a.str("a"), a.str("b"));
    let absolute = a.num("absolute", 0.0) != 0.0;
    let tol = a.tol();
    let xs = where_xs(f, &[sa, sb], a.at());
    let mut worst: f64 = 0.0;
    for &x in &xs {
        let (va, vb) = (
            f.at(sa, x).unwrap_or(f64::NAN),
            f.at(sb, x).unwrap_or(f64::NAN),
        );
        let d = if absolute {
            (va - vb).abs()
        } else {
            (va - vb).abs() / vb.abs()
        };
        worst = worst.max(if d.is_nan() { f64::INFINITY } else { d });
    }
    let kind = if absolute { "absolute" } else { "relative" };
    (
        format!(
            "largest {kind} gap between {sa} and {sb} over {} x: {} (tolerance {tol})",
            xs.len(),
            fmt(worst)
        ),
        !xs.is_empty() && worst <= tol,
    )
}

/// First x at which `series` is saturated; infinity when never. A curve that stops before the
/// figure's last x counts as saturated from its last point.
pub fn saturation(f: &FigureData, series: &str, factor: f64) -> f64 {
    let c = f.curve(series);
    let Some(&(_, base)) = c.first() else {
        return f64::INFINITY;
    };
    if let Some(&(x, _)) = c.iter().find(|(_, y)| *y > factor * base) {
        return x;
    }
    let last_x = f.xs().last().copied().unwrap_or(f64::NEG_INFINITY);
    match c.last() {
        Some(&(x, _)) if x < last_x => x,
        _ => f64::INFINITY,
    }
}

pub(super) fn saturates_first(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let s = a.str("series");
    let factor = a.num("factor", SATURATION);
    let sats: Vec<(String, f64)> = f
        .series()
        .into_iter()
        .map(|o| {
            let x = saturation(f, &o, factor);
            (o, x)
        })
        .collect();
    let mine = saturation(f, s, factor);
    let list: Vec<String> = sats
        .iter()
        .map(|(o, x)| format!("{o} {}", fmt_x(*x)))
        .collect();
    (
        format!(
            "first saturated x (value > {factor}× its first): {}",
            list.join(", ")
        ),
        mine.is_finite() && sats.iter().all(|(_, x)| mine <= *x),
    )
}

pub(super) fn saturates_before(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let factor = a.num("factor", SATURATION);
    let strict = a.num("strict", 0.0) != 0.0;
    let sat = |list: &[&str]| -> Vec<(String, f64)> {
        list.iter()
            .map(|s| (s.to_string(), saturation(f, s, factor)))
            .collect()
    };
    let (first, later) = (sat(&a.list("a")), sat(&a.list("b")));
    let holds = first.iter().all(|(_, x)| {
        later
            .iter()
            .all(|(_, y)| if strict { x < y } else { x <= y })
    });
    let show = |v: &[(String, f64)]| {
        v.iter()
            .map(|(s, x)| format!("{s} {}", fmt_x(*x)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    (
        format!(
            "first saturated x (value > {factor}× its first): {} {} {}",
            show(&first),
            if strict { "before" } else { "no later than" },
            show(&later)
        ),
        holds,
    )
}

/// `f` with each series reduced to its largest (`max`) or smallest mean over x, all at x = 0.
pub(super) fn extremes(f: &FigureData, max: bool) -> FigureData {
    let points = f
        .series()
        .into_iter()
        .filter_map(|s| {
            f.points
                .iter()
                .filter(|p| p.series == s)
                .max_by(|p, q| {
                    let o = p.est.mean.total_cmp(&q.est.mean);
                    if max { o } else { o.reverse() }
                })
                .map(|p| Point {
                    x: 0.0,
                    ..p.clone()
                })
        })
        .collect();
    FigureData {
        points,
        ..f.clone()
    }
}

fn monotone(f: &FigureData, a: &Args<'_>, up: bool) -> (String, bool) {
    let s = a.str("series");
    let c = f.curve(s);
    let tol = a.tol();
    let steps_ok = c.windows(2).all(|p| {
        if up {
            p[1].1 >= p[0].1 * (1.0 - tol)
        } else {
            p[1].1 <= p[0].1 * (1.0 + tol)
        }
    });
    let (Some(first), Some(last)) = (c.first(), c.last()) else {
        return (format!("{s} has no points"), false);
    };
    let ends_ok = if up {
        last.1 > first.1
    } else {
        last.1 < first.1
    };
    (
        format!(
            "{s}: {} at x={} → {} at x={}; every step {} (within {}%): {steps_ok}",
            fmt(first.1),
            first.0,
            fmt(last.1),
            last.0,
            if up {
                "non-decreasing"
            } else {
                "non-increasing"
            },
            tol * 100.0
        ),
        steps_ok && ends_ok,
    )
}

pub(super) fn grows(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    monotone(f, a, true)
}

pub(super) fn falls(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    monotone(f, a, false)
}

/// Last over first value (infinite when the first is not positive and the last is; 1 when
/// neither is).
pub(super) fn last_over_first(c: &[(f64, f64)]) -> f64 {
    match (c.first(), c.last()) {
        (Some(first), Some(last)) if first.1 > 0.0 => last.1 / first.1,
        (Some(_), Some(last)) if last.1 > 0.0 => f64::INFINITY,
        _ => 1.0,
    }
}

pub(super) fn rises_steadily(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let s = a.str("series");
    let c = f.curve(s);
    let (factor, share) = (a.num("factor", 2.0), a.num("share", 0.75));
    let steps = c.len().saturating_sub(1);
    let rising = c.windows(2).filter(|w| w[1].1 >= w[0].1).count();
    let ratio = last_over_first(&c);
    (
        format!(
            "{s}: last / first = {} (x={} over x={}); {rising} of {steps} steps rise",
            fmt(ratio),
            c.last().map_or(f64::NAN, |p| p.0),
            c.first().map_or(f64::NAN, |p| p.0),
        ),
        steps > 0 && ratio >= factor && rising as f64 >= share * steps as f64,
    )
}

pub(super) fn flat(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let s = a.str("series");
    let c = f.curve(s);
    let tol = a.num("tolerance", 0.25);
    if c.is_empty() {
        return (format!("{s} has no points"), false);
    }
    let mean = c.iter().map(|p| p.1).sum::<f64>() / c.len() as f64;
    let spread = c
        .iter()
        .map(|p| (p.1 / mean - 1.0).abs())
        .fold(0.0, f64::max);
    (
        format!(
            "{s}: every value within ±{:.0}% of the mean {} (last / first {})",
            100.0 * spread,
            fmt(mean),
            fmt(last_over_first(&c))
        ),
        spread <= tol,
    )
}

pub(super) fn interior_minimum(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let s = a.str("series");
    let c = f.curve(s);
    let Some(i) = (0..c.len()).min_by(|&a, &b| c[a].1.total_cmp(&c[b].1)) else {
        return (format!("{s} has no points"), false);
    };
    (
        format!(
            "{s}: {} at x={} → minimum {} at x={} → {} at x={}",
            fmt(c[0].1),
            c[0].0,
            fmt(c[i].1),
            c[i].0,
            fmt(c[c.len() - 1].1),
            c[c.len() - 1].0
        ),
        i > 0 && i + 1 < c.len() && c[i].1 < c[0].1 && c[i].1 < c[c.len() - 1].1,
    )
}

pub(super) fn gap_below(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let names = ["a", "b", "c", "d"].map(|k| a.str(k));
    let xs = where_xs(f, &names, a.at_or(Where::Last));
    let v = |s: &str, x: f64| f.at(s, x).unwrap_or(f64::NAN);
    let mut shown = Vec::new();
    let mut holds = !xs.is_empty();
    for &x in &xs {
        let [sa, sb, sc, sd] = names;
        let (g1, g2) = ((v(sa, x) - v(sb, x)).abs(), (v(sc, x) - v(sd, x)).abs());
        holds &= g1 < g2;
        shown.push(format!(
            "x={x}: gap {sa} to {sb} {} vs {sc} to {sd} {}",
            fmt(g1),
            fmt(g2)
        ));
    }
    (shown.join("; "), holds)
}

pub(super) fn gains_on(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let me = a.str("a");
    let others = a.list("b");
    let mut all = others.clone();
    all.push(me);
    let xs = common(f, &all);
    let (Some(&lo), Some(&hi)) = (xs.first(), xs.last()) else {
        return ("no x where all of them ran".into(), false);
    };
    let ratio = |x: f64| {
        let best = others
            .iter()
            .map(|s| f.at(s, x).unwrap_or(f64::NAN))
            .fold(f64::NEG_INFINITY, f64::max);
        f.at(me, x).unwrap_or(f64::NAN) / best
    };
    let (r_lo, r_hi) = (ratio(lo), ratio(hi));
    (
        format!(
            "{me} / max({}): x={lo}: {} → x={hi}: {} ({me} itself {} → {})",
            others.join(", "),
            fmt(r_lo),
            fmt(r_hi),
            fmt(f.at(me, lo).unwrap_or(f64::NAN)),
            fmt(f.at(me, hi).unwrap_or(f64::NAN))
        ),
        r_hi > r_lo,
    )
}

pub(super) fn ratio_above(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let (sa, sb) = (a.str("a"), a.str("b"));
    let ratio = |g: &FigureData| {
        common(g, &[sa, sb]).last().map(|&x| {
            (
                x,
                g.at(sa, x).unwrap_or(f64::NAN) / g.at(sb, x).unwrap_or(f64::NAN),
            )
        })
    };
    let Some(other) = a.figure("than") else {
        return (format!("figure `{}` did not run", a.str("than")), false);
    };
    let (Some((x, mine)), Some((y, theirs))) = (ratio(f), ratio(other)) else {
        return (format!("{sa} and {sb} have no common x"), false);
    };
    (
        format!(
            "{sa} / {sb}: {} at x={x} vs {} at x={y} in {}",
            fmt(mine),
            fmt(theirs),
            other.id
        ),
        mine > theirs,
    )
}

pub(super) fn order_at_top(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    let order = a.list("order");
    let Some(&x) = common(f, &order).last() else {
        return ("no x where all of them ran".into(), false);
    };
    let vals: Vec<f64> = order
        .iter()
        .map(|s| f.at(s, x).unwrap_or(f64::NAN))
        .collect();
    let list: Vec<String> = order
        .iter()
        .zip(&vals)
        .map(|(s, v)| format!("{s} {}", fmt(*v)))
        .collect();
    (
        format!("at x={x}: {}", list.join(" < ")),
        vals.windows(2).all(|w| w[0] < w[1]),
    )
}
