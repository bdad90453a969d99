//! The shared library of predicates a claim is checked with: each one registered function of a
//! figure and its parameters, documented in [`PREDICATES`] (and docs/EXPERIMENTS.md).
//!
//! Comparisons of means allow a relative `tolerance` (default 0.02: at light load every policy runs
//! the same schedule, and two equal curves must not count as a loss), and "A is not worse than B"
//! also holds when A's 95% interval reaches B's (the difference is not significant). A predicate
//! returns what it measured in words and whether the statement holds.

mod checks;

use super::figure::FigureData;
use checks::{
    below, extremes, falls, flat, gains_on, gap_below, grows, highest, interior_minimum, lowest,
    order_at_top, ratio_above, rises_steadily, saturates_before, saturates_first, within,
};

pub use checks::saturation;

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

#[cfg(test)]
mod tests;
