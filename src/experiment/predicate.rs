//! The shared library of predicates a claim is checked with: each one registered function of a
//! figure and its parameters, documented in [`PREDICATES`] (and docs/EXPERIMENTS.md).
//!
//! Comparisons of means allow a relative `tolerance` (default 0.02: at light load every policy runs
//! the same schedule, and two equal curves must not count as a loss), and "A is not worse than B"
//! also holds when A's 95% interval reaches B's (the difference is not significant). A predicate
//! returns what it measured in words and whether the statement holds.

use super::figure::{FigureData, Point};

/// Default relative tolerance of comparisons.
pub const TOLERANCE: f64 = 0.02;
/// Default saturation factor: a curve is saturated at the first x whose value exceeds this multiple
/// of its first value.
pub const SATURATION: f64 = 5.0;

/// The kind of a parameter's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A series label of the figure.
    Series,
    /// A list of series labels (at least two: an order).
    SeriesList,
    /// A list of one or more series labels (a group).
    Group,
    /// A number.
    Number,
    /// `every`, `first`, `last`, or a number: where along x a comparison is made.
    Where,
    /// Another figure of the file (by name).
    Figure,
}

/// One parameter.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    /// Key in the claim.
    pub name: &'static str,
    /// Kind of value.
    pub kind: Kind,
    /// Must be given.
    pub required: bool,
}

/// A predicate: name, meaning, parameters, and the check.
#[derive(Debug)]
pub struct Predicate {
    /// Name in claims.
    pub name: &'static str,
    /// What it checks.
    pub doc: &'static str,
    /// Its parameters.
    pub params: &'static [Param],
    /// The check: what was measured, and whether it holds.
    pub eval: fn(&FigureData, &Args<'_>) -> (String, bool),
}

const fn req(name: &'static str, kind: Kind) -> Param {
    Param {
        name,
        kind,
        required: true,
    }
}

const fn opt(name: &'static str, kind: Kind) -> Param {
    Param {
        name,
        kind,
        required: false,
    }
}

const TOL: Param = opt("tolerance", Kind::Number);

/// A parameter every predicate takes: `over = "max"` (or `"min"`) compares each series' largest
/// (smallest) value over x instead of its curve — a "maximum utilization" statement.
pub const OVER: &str = "over";

/// A parameter every predicate takes: `from = X` checks the figure from x = X upwards only (the
/// loads a sentence names: "from 0.5").
pub const FROM: &str = "from";

/// A parameter every predicate takes: `to = X` checks the figure up to x = X only (the loads a
/// sentence is judged over: "up to load factor 1").
pub const TO: &str = "to";

/// Every predicate.
pub const PREDICATES: &[Predicate] = &[
    Predicate {
        name: "lowest",
        doc: "`series` is not above any other series (within `tolerance` or the CIs; `strict = 1`: strictly below every other mean) `at` every x where all series ran (default), the first or last such x, or a given x",
        params: &[
            req("series", Kind::Series),
            opt("at", Kind::Where),
            opt("strict", Kind::Number),
            TOL,
        ],
        eval: lowest,
    },
    Predicate {
        name: "highest",
        doc: "`series` is not below any other series (within `tolerance` or the CIs; `strict = 1`: strictly above every other mean) `at` every x where all series ran (default), the first or last such x, or a given x",
        params: &[
            req("series", Kind::Series),
            opt("at", Kind::Where),
            opt("strict", Kind::Number),
            TOL,
        ],
        eval: highest,
    },
    Predicate {
        name: "below",
        doc: "`a` is not above `b` (within `tolerance` or the CIs) `at` every common x (default), the last common x, or a given x; `strict = 1` asks for strictly below means",
        params: &[
            req("a", Kind::Series),
            req("b", Kind::Series),
            opt("at", Kind::Where),
            opt("strict", Kind::Number),
            TOL,
        ],
        eval: below,
    },
    Predicate {
        name: "within",
        doc: "`a` is within `tolerance` (relative to `b`; `absolute = 1` for an absolute difference) of `b` `at` every common x (default), the last, or a given x",
        params: &[
            req("a", Kind::Series),
            req("b", Kind::Series),
            req("tolerance", Kind::Number),
            opt("at", Kind::Where),
            opt("absolute", Kind::Number),
        ],
        eval: within,
    },
    Predicate {
        name: "saturates_first",
        doc: "`series` saturates (exceeds `factor` × its first value, default 5, or stops early) at an x no larger than any other series'",
        params: &[req("series", Kind::Series), opt("factor", Kind::Number)],
        eval: saturates_first,
    },
    Predicate {
        name: "saturates_before",
        doc: "every series of `a` saturates (as for `saturates_first`) at an x no larger than (`strict = 1`: smaller than) every series of `b`",
        params: &[
            req("a", Kind::Group),
            req("b", Kind::Group),
            opt("strict", Kind::Number),
            opt("factor", Kind::Number),
        ],
        eval: saturates_before,
    },
    Predicate {
        name: "grows_with_x",
        doc: "`series` never falls by more than `tolerance` from one x to the next, and ends above where it starts",
        params: &[req("series", Kind::Series), TOL],
        eval: grows,
    },
    Predicate {
        name: "falls_with_x",
        doc: "`series` never rises by more than `tolerance` from one x to the next, and ends below where it starts",
        params: &[req("series", Kind::Series), TOL],
        eval: falls,
    },
    Predicate {
        name: "rises_steadily",
        doc: "`series`' last value is at least `factor` (default 2) times its first, and at least a `share` (default 0.75) of its steps do not fall (a trend through noise: \"long jobs wait more than short ones\")",
        params: &[
            req("series", Kind::Series),
            opt("factor", Kind::Number),
            opt("share", Kind::Number),
        ],
        eval: rises_steadily,
    },
    Predicate {
        name: "flat",
        doc: "every value of `series` is within `tolerance` (default 0.25) of the series' mean over x (\"independent of x\")",
        params: &[req("series", Kind::Series), TOL],
        eval: flat,
    },
    Predicate {
        name: "interior_minimum",
        doc: "`series` has its smallest value strictly inside its x range",
        params: &[req("series", Kind::Series)],
        eval: interior_minimum,
    },
    Predicate {
        name: "gap_below",
        doc: "the gap |`a` − `b`| is smaller than the gap |`c` − `d`| `at` every common x, the first, the last (default) or a given x (\"the allocation policy matters less than the scheduling\")",
        params: &[
            req("a", Kind::Series),
            req("b", Kind::Series),
            req("c", Kind::Series),
            req("d", Kind::Series),
            opt("at", Kind::Where),
        ],
        eval: gap_below,
    },
    Predicate {
        name: "gains_on",
        doc: "`a` relative to the largest of `b` (a group) is larger at the last common x than at the first (\"improves as the load increases\", against the others)",
        params: &[req("a", Kind::Series), req("b", Kind::Group)],
        eval: gains_on,
    },
    Predicate {
        name: "ratio_above",
        doc: "`a` / `b` at the last common x is larger than the same ratio in figure `than` (a gap \"more prominent\" in one figure than in another)",
        params: &[
            req("a", Kind::Series),
            req("b", Kind::Series),
            req("than", Kind::Figure),
        ],
        eval: ratio_above,
    },
    Predicate {
        name: "order_at_top",
        doc: "at the largest x where all of `order` ran, their values rise in the order given",
        params: &[req("order", Kind::SeriesList)],
        eval: order_at_top,
    },
];

/// The predicate called `name`, or an error listing every name.
pub fn lookup(name: &str) -> Result<&'static Predicate, String> {
    PREDICATES.iter().find(|p| p.name == name).ok_or_else(|| {
        format!(
            "unknown predicate `{name}`; predicates: {}",
            PREDICATES
                .iter()
                .map(|p| p.name)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// A claim's parameters, checked against the predicate.
#[derive(Debug, Clone, Copy)]
pub struct Args<'a> {
    table: &'a toml::Table,
    /// Every figure of the file (for a parameter naming another).
    figures: &'a [FigureData],
}

impl Args<'_> {
    fn str(&self, name: &str) -> &str {
        self.table.get(name).and_then(|v| v.as_str()).unwrap_or("")
    }
    fn num(&self, name: &str, default: f64) -> f64 {
        self.table
            .get(name)
            .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
            .unwrap_or(default)
    }
    fn list(&self, name: &str) -> Vec<&str> {
        self.table
            .get(name)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
            .unwrap_or_default()
    }
    fn tol(&self) -> f64 {
        self.num("tolerance", TOLERANCE)
    }
    /// The figure named by parameter `name`.
    fn figure(&self, name: &str) -> Option<&FigureData> {
        let id = self.str(name);
        self.figures.iter().find(|f| f.id == id)
    }
    fn at_or(&self, default: Where) -> Where {
        match self.table.get("at") {
            None => default,
            _ => self.at(),
        }
    }
    fn at(&self) -> Where {
        match self.table.get("at") {
            Some(v) if v.as_str() == Some("last") => Where::Last,
            Some(v) if v.as_str() == Some("first") => Where::First,
            Some(v) => v
                .as_float()
                .or(v.as_integer().map(|i| i as f64))
                .map_or(Where::Every, Where::At),
            None => Where::Every,
        }
    }
}

#[derive(Debug, Clone, Copy)]
enum Where {
    Every,
    First,
    Last,
    At(f64),
}

impl Predicate {
    /// Checks `params` against the parameters and the figure's series `labels`.
    pub fn check(&self, params: &toml::Table, labels: &[&str]) -> Result<(), String> {
        for key in params.keys() {
            if key == "figure" || key == "statement" || key == "predicate" {
                continue;
            }
            if key == FROM || key == TO {
                match params[key]
                    .as_float()
                    .or(params[key].as_integer().map(|i| i as f64))
                {
                    Some(_) => continue,
                    None => return Err(format!("`{key}` is an x value")),
                }
            }
            if key == OVER {
                match params[key].as_str() {
                    Some("max" | "min") => continue,
                    _ => return Err(format!("`{OVER}` is `max` or `min`")),
                }
            }
            if !self.params.iter().any(|p| p.name == key) {
                return Err(format!(
                    "`{}` takes no parameter `{key}`; its parameters: {}",
                    self.name,
                    self.param_names()
                ));
            }
        }
        for p in self.params {
            let Some(v) = params.get(p.name) else {
                if p.required {
                    return Err(format!(
                        "`{}` needs `{}`; its parameters: {}",
                        self.name,
                        p.name,
                        self.param_names()
                    ));
                }
                continue;
            };
            check_value(p, v, labels)?;
        }
        Ok(())
    }

    fn param_names(&self) -> String {
        self.params
            .iter()
            .map(|p| p.name)
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Evaluates the predicate on `f` (parameters already checked), on each series' extreme over
    /// x when `over` is given.
    pub fn eval(&self, f: &FigureData, params: &toml::Table) -> (String, bool) {
        self.eval_among(f, params, &[])
    }

    /// [`Predicate::eval`] with the file's other `figures` at hand (for `ratio_above`'s `than`),
    /// on the figure's points from x = `from` upwards and up to x = `to` when given.
    pub fn eval_among(
        &self,
        f: &FigureData,
        params: &toml::Table,
        figures: &[FigureData],
    ) -> (String, bool) {
        let args = Args {
            table: params,
            figures,
        };
        let bound = |key: &str| {
            params
                .get(key)
                .and_then(|v| v.as_float().or(v.as_integer().map(|i| i as f64)))
        };
        let (from, to) = (bound(FROM), bound(TO));
        let kept;
        let f = if from.is_some() || to.is_some() {
            let (x0, x1) = (
                from.unwrap_or(f64::NEG_INFINITY),
                to.unwrap_or(f64::INFINITY),
            );
            kept = FigureData {
                points: f
                    .points
                    .iter()
                    .filter(|p| p.x >= x0 && p.x <= x1)
                    .cloned()
                    .collect(),
                ..f.clone()
            };
            &kept
        } else {
            f
        };
        match params.get(OVER).and_then(|v| v.as_str()) {
            Some(over) => {
                let (m, holds) = (self.eval)(&extremes(f, over == "max"), &args);
                (format!("each series' {over} over x: {m}"), holds)
            }
            None => (self.eval)(f, &args),
        }
    }
}

fn check_value(p: &Param, v: &toml::Value, labels: &[&str]) -> Result<(), String> {
    let series = |s: &str| {
        if labels.contains(&s) {
            Ok(())
        } else {
            Err(format!(
                "`{}`: the figure has no series `{s}`; its series: {}",
                p.name,
                labels.join(", ")
            ))
        }
    };
    let number = v.as_float().is_some() || v.as_integer().is_some();
    match p.kind {
        Kind::Series => series(
            v.as_str()
                .ok_or(format!("`{}` is a series label", p.name))?,
        ),
        Kind::SeriesList | Kind::Group => {
            let list = v
                .as_array()
                .ok_or(format!("`{}` is a list of series labels", p.name))?;
            let least = if p.kind == Kind::Group { 1 } else { 2 };
            if list.len() < least {
                return Err(format!("`{}` needs at least {least} series", p.name));
            }
            list.iter()
                .try_for_each(|s| series(s.as_str().ok_or(format!("`{}`: labels", p.name))?))
        }
        Kind::Number if number => Ok(()),
        Kind::Number => Err(format!("`{}` is a number", p.name)),
        Kind::Where if number || matches!(v.as_str(), Some("every" | "first" | "last")) => Ok(()),
        Kind::Where => Err(format!(
            "`{}` is `every`, `first`, `last` or an x value",
            p.name
        )),
        Kind::Figure if v.as_str().is_some() => Ok(()),
        Kind::Figure => Err(format!("`{}` is a figure's name", p.name)),
    }
}

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

fn lowest(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    extreme(f, a, true)
}

fn highest(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    extreme(f, a, false)
}

fn below(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn within(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn saturates_first(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn saturates_before(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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
fn extremes(f: &FigureData, max: bool) -> FigureData {
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

fn grows(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    monotone(f, a, true)
}

fn falls(f: &FigureData, a: &Args<'_>) -> (String, bool) {
    monotone(f, a, false)
}

/// Last over first value (infinite when the first is not positive and the last is; 1 when
/// neither is).
fn last_over_first(c: &[(f64, f64)]) -> f64 {
    match (c.first(), c.last()) {
        (Some(first), Some(last)) if first.1 > 0.0 => last.1 / first.1,
        (Some(_), Some(last)) if last.1 > 0.0 => f64::INFINITY,
        _ => 1.0,
    }
}

fn rises_steadily(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn flat(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn interior_minimum(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn gap_below(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn gains_on(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn ratio_above(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

fn order_at_top(f: &FigureData, a: &Args<'_>) -> (String, bool) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::replicate::Estimate;

    /// A figure from exact curves (no CIs).
    fn fig(curves: &[(&str, &[(f64, f64)])]) -> FigureData {
        let mut points = Vec::new();
        for (s, c) in curves {
            for &(x, y) in *c {
                points.push(Point {
                    series: s.to_string(),
                    x,
                    est: Estimate::from_samples(&[y]),
                });
            }
        }
        FigureData {
            group: String::new(),
            id: "f".into(),
            title: String::new(),
            x_label: String::new(),
            y_label: String::new(),
            log_x: false,
            log_y: false,
            points,
        }
    }

    fn table(text: &str) -> toml::Table {
        text.parse().unwrap()
    }

    fn holds(f: &FigureData, name: &str, params: &str) -> bool {
        let p = lookup(name).unwrap();
        let t = table(params);
        let labels = f.series();
        let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
        p.check(&t, &labels).unwrap();
        p.eval(f, &t).1
    }

    const FCFS: &[(f64, f64)] = &[(1.0, 10.0), (2.0, 30.0), (3.0, 100.0)];
    const OO: &[(f64, f64)] = &[(1.0, 10.0), (2.0, 15.0), (3.0, 40.0)];
    const WK: &[(f64, f64)] = &[(1.0, 50.0), (2.0, 20.0), (3.0, 25.0)];

    #[test]
    fn from_first_and_strict_restrict_where_and_how_a_comparison_is_made() {
        // FCFS 10, 30, 100; OO 10, 15, 40; WK 50, 20, 25.
        let f = fig(&[("fcfs", FCFS), ("oo", OO), ("wk", WK)]);
        assert!(
            !holds(&f, "below", "a = \"wk\"\nb = \"fcfs\""),
            "50 > 10 at x=1"
        );
        assert!(holds(&f, "below", "a = \"wk\"\nb = \"fcfs\"\nfrom = 2"));
        // OO below WK from x=2 on, not at x=1 (10 < 50 holds, 15 < 20, 40 > 25 fails at 3).
        assert!(!holds(&f, "below", "a = \"oo\"\nb = \"wk\""));
        assert!(holds(&f, "below", "a = \"oo\"\nb = \"wk\"\nto = 2"));
        assert!(!holds(
            &f,
            "below",
            "a = \"oo\"\nb = \"wk\"\nfrom = 2\nto = 3"
        ));
        assert!(holds(
            &f,
            "below",
            "a = \"oo\"\nb = \"wk\"\nat = \"first\"\nstrict = 1"
        ));
        assert!(holds(
            &f,
            "highest",
            "series = \"wk\"\nat = \"first\"\nstrict = 1"
        ));
        // OO equals FCFS at x=1: lowest within the tolerance, not strictly.
        assert!(holds(&f, "lowest", "series = \"oo\"\nat = \"first\""));
        assert!(!holds(
            &f,
            "lowest",
            "series = \"oo\"\nat = \"first\"\nstrict = 1"
        ));
        assert!(holds(
            &f,
            "lowest",
            "series = \"oo\"\nfrom = 2\nat = \"first\"\nstrict = 1"
        ));
        let p = lookup("below").unwrap();
        let labels = ["fcfs", "oo"];
        assert!(
            p.check(&table("a = \"oo\"\nb = \"fcfs\"\nfrom = \"x\""), &labels)
                .is_err()
        );
        assert!(
            p.check(&table("a = \"oo\"\nb = \"fcfs\"\nto = \"x\""), &labels)
                .is_err()
        );
        assert!(
            p.check(&table("a = \"oo\"\nb = \"fcfs\"\nat = \"top\""), &labels)
                .is_err()
        );
    }

    #[test]
    fn steady_rises_and_flat_curves() {
        // 1, 2, 1.8, 3, 4: last/first 4, three of four steps rise.
        let up: &[(f64, f64)] = &[(1.0, 1.0), (2.0, 2.0), (3.0, 1.8), (4.0, 3.0), (5.0, 4.0)];
        // 10, 12, 9, 11: mean 10.5, largest deviation 14%.
        let level: &[(f64, f64)] = &[(1.0, 10.0), (2.0, 12.0), (3.0, 9.0), (4.0, 11.0)];
        let f = fig(&[("up", up), ("level", level)]);
        assert!(holds(&f, "rises_steadily", "series = \"up\""));
        assert!(!holds(&f, "rises_steadily", "series = \"up\"\nfactor = 5"));
        assert!(!holds(&f, "rises_steadily", "series = \"up\"\nshare = 0.8"));
        assert!(
            !holds(&f, "rises_steadily", "series = \"level\""),
            "11/10 < 2"
        );
        assert!(holds(&f, "flat", "series = \"level\""));
        assert!(!holds(&f, "flat", "series = \"level\"\ntolerance = 0.1"));
        assert!(!holds(&f, "flat", "series = \"up\""));
        let (m, _) = lookup("flat")
            .unwrap()
            .eval(&f, &table("series = \"level\""));
        assert_eq!(
            m,
            "level: every value within ±14% of the mean 10.50 (last / first 1.1000)"
        );
        let (m, _) = lookup("rises_steadily")
            .unwrap()
            .eval(&f, &table("series = \"up\""));
        assert_eq!(
            m,
            "up: last / first = 4.0000 (x=5 over x=1); 3 of 4 steps rise"
        );
        assert_eq!(last_over_first(&[(1.0, 0.0), (2.0, 1.0)]), f64::INFINITY);
        assert_eq!(last_over_first(&[(1.0, 0.0), (2.0, 0.0)]), 1.0);
    }

    #[test]
    fn gaps_gains_and_ratios_across_figures() {
        let f = fig(&[("fcfs", FCFS), ("oo", OO), ("wk", WK)]);
        // At x=3: |oo − wk| = 15 < |fcfs − oo| = 60; at x=1: 40 > 0.
        let four = "a = \"oo\"\nb = \"wk\"\nc = \"fcfs\"\nd = \"oo\"";
        assert!(holds(&f, "gap_below", four));
        assert!(!holds(&f, "gap_below", &format!("{four}\nat = 1")));
        // oo / max(fcfs, wk): 10/50 = 0.2 at x=1 → 40/100 = 0.4 at x=3.
        assert!(holds(&f, "gains_on", "a = \"oo\"\nb = [\"fcfs\", \"wk\"]"));
        assert!(
            !holds(&f, "gains_on", "a = \"wk\"\nb = [\"fcfs\"]"),
            "5 → 0.25"
        );
        // fcfs / oo at the last x: 2.5 here, 1.25 in the other figure.
        let mut other = fig(&[("fcfs", &[(1.0, 50.0)]), ("oo", &[(1.0, 40.0)])]);
        other.id = "g".into();
        let p = lookup("ratio_above").unwrap();
        let t = table("a = \"fcfs\"\nb = \"oo\"\nthan = \"g\"");
        let (m, ok) = p.eval_among(&f, &t, std::slice::from_ref(&other));
        assert!(
            ok && m.contains("2.5000 at x=3 vs 1.2500 at x=1 in g"),
            "{m}"
        );
        let (m, ok) = p.eval_among(
            &other,
            &table("a = \"fcfs\"\nb = \"oo\"\nthan = \"f\""),
            &[f],
        );
        assert!(!ok, "{m}");
        assert!(!p.eval(&other, &t).1, "the other figure is not at hand");
    }

    #[test]
    fn comparisons_allow_the_tolerance_and_read_the_points_asked_for() {
        let f = fig(&[("fcfs", FCFS), ("oo", OO)]);
        assert!(holds(&f, "lowest", "series = \"oo\""));
        assert!(!holds(&f, "lowest", "series = \"fcfs\""));
        assert!(holds(&f, "highest", "series = \"fcfs\""));
        assert!(holds(&f, "below", "a = \"oo\"\nb = \"fcfs\""));
        assert!(
            !holds(&f, "below", "a = \"oo\"\nb = \"fcfs\"\nstrict = 1"),
            "equal at x=1"
        );
        assert!(holds(
            &f,
            "below",
            "a = \"oo\"\nb = \"fcfs\"\nstrict = 1\nat = \"last\""
        ));
        assert!(holds(&f, "below", "a = \"fcfs\"\nb = \"oo\"\nat = 1"));
        assert!(holds(
            &f,
            "within",
            "a = \"oo\"\nb = \"fcfs\"\ntolerance = 0.01\nat = 1"
        ));
        assert!(!holds(
            &f,
            "within",
            "a = \"oo\"\nb = \"fcfs\"\ntolerance = 0.5"
        ));
        assert!(holds(
            &f,
            "within",
            "a = \"oo\"\nb = \"fcfs\"\ntolerance = 60\nabsolute = 1"
        ));
    }

    #[test]
    fn shapes_saturation_and_order_are_read_off_the_curves() {
        let f = fig(&[("fcfs", FCFS), ("oo", OO), ("window:K", WK)]);
        assert!(holds(&f, "saturates_first", "series = \"fcfs\""));
        assert!(!holds(&f, "saturates_first", "series = \"oo\""));
        assert!(holds(&f, "grows_with_x", "series = \"fcfs\""));
        assert!(!holds(&f, "falls_with_x", "series = \"fcfs\""));
        assert!(holds(&f, "interior_minimum", "series = \"window:K\""));
        assert!(!holds(&f, "interior_minimum", "series = \"oo\""));
        assert!(holds(
            &f,
            "order_at_top",
            "order = [\"window:K\", \"oo\", \"fcfs\"]"
        ));
        assert!(!holds(&f, "order_at_top", "order = [\"fcfs\", \"oo\"]"));
        // A curve that stopped early saturated at its last point.
        let g = fig(&[
            ("a", &[(1.0, 1.0), (2.0, 2.0)]),
            ("b", &[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0)]),
        ]);
        assert_eq!(saturation(&g, "a", 5.0), 2.0);
        assert_eq!(saturation(&g, "b", 5.0), f64::INFINITY);
    }

    #[test]
    fn saturation_order_between_groups_and_extremes_over_x() {
        let f = fig(&[("fcfs", FCFS), ("oo", OO), ("window:K", WK)]);
        // fcfs saturates at 3, oo never, window:K (first value 50) never.
        let before = "a = [\"fcfs\"]\nb = [\"oo\", \"window:K\"]\nstrict = 1";
        assert!(holds(&f, "saturates_before", before));
        assert!(!holds(
            &f,
            "saturates_before",
            "a = [\"oo\"]\nb = [\"fcfs\"]"
        ));
        // Maxima: fcfs 100, oo 40, window:K 50; minima: 10, 10, 20.
        assert!(holds(&f, "lowest", "series = \"oo\"\nover = \"max\""));
        assert!(holds(&f, "highest", "series = \"fcfs\"\nover = \"max\""));
        assert!(holds(
            &f,
            "highest",
            "series = \"window:K\"\nover = \"min\""
        ));
        let p = lookup("lowest").unwrap();
        let e = p
            .check(&table("series = \"oo\"\nover = \"mean\""), &["oo"])
            .unwrap_err();
        assert!(e.contains("`over` is `max` or `min`"), "{e}");
        // `at`: OO is the lowest at x = 1 (a tie with FCFS), window:K only at the last x.
        assert!(holds(&f, "lowest", "series = \"oo\"\nat = 1"));
        assert!(!holds(&f, "lowest", "series = \"window:K\"\nat = 2"));
        assert!(holds(&f, "lowest", "series = \"window:K\"\nat = \"last\""));
        assert!(!holds(&f, "lowest", "series = \"window:K\""));
    }

    #[test]
    fn bad_parameters_name_the_predicate_and_its_parameters() {
        let p = lookup("below").unwrap();
        let e = p.check(&table("a = \"oo\""), &["oo", "fcfs"]).unwrap_err();
        assert!(e.contains("needs `b`") && e.contains("tolerance"), "{e}");
        let e = p
            .check(&table("a = \"oo\"\nb = \"ff\""), &["oo", "fcfs"])
            .unwrap_err();
        assert!(e.contains("no series `ff`") && e.contains("fcfs"), "{e}");
        let e = p
            .check(
                &table("a = \"oo\"\nb = \"fcfs\"\ncolour = 1"),
                &["oo", "fcfs"],
            )
            .unwrap_err();
        assert!(e.contains("no parameter `colour`"), "{e}");
        assert!(lookup("best").unwrap_err().contains("interior_minimum"));
    }
}
