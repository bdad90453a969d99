//! The field's named queue orders, each a formula of the job and the moment, larger first
//! (docs/ALGORITHMS.md, "Queue orders", gives each its source).
//!
//! The guards, stated once: an estimate below 1 s counts as 1 s wherever it divides or is a
//! logarithm's argument (`xf`, `wfp3`, `unicep`, `f1`); a submit time below 1 s counts as 1 s in
//! F1–F4's `log10(s)` (the first job of a log is submitted at 0); UNICEP's `log2(nodes)` counts a
//! one-node job as two nodes (log2(1) = 0 would divide by zero). Every order is also written as a
//! [priority expression](super::expr) with the same operations in the same order
//! ([`NamedInfo::expression`]), which gives the same value to the last bit.

use std::fmt;
use std::str::FromStr;

#[cfg(test)]
use super::expr::{Env, Var, product_power};

/// A named queue order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Named {
    /// First come, first served.
    Fcfs,
    /// Shortest (estimated) job first.
    Sjf,
    /// Longest job first.
    Ljf,
    /// Smallest area (nodes × estimate) first.
    Saf,
    /// Largest area first.
    Laf,
    /// Smallest job (nodes) first.
    Sqf,
    /// Largest job first.
    Lqf,
    /// Largest expansion factor first.
    Xf,
    /// WFP3 (Tang, Lan, Desai & Buettner, IEEE Cluster 2009).
    Wfp3,
    /// UNICEP (Tang, Lan, Desai & Buettner, IEEE Cluster 2009).
    Unicep,
    /// F1 (Carastan-Santos & de Camargo, SC 2017), smallest first.
    F1,
    /// F2, smallest first.
    F2,
    /// F3, smallest first.
    F3,
    /// F4, smallest first.
    F4,
    /// Slurm's fair-share factor, largest first.
    Fairshare,
    /// Slurm's multifactor priority, largest first.
    Multifactor,
}

/// One named order of the registry.
#[derive(Debug, Clone, Copy)]
pub struct NamedInfo {
    /// Its name in labels (`easy:order=wfp3`).
    pub name: &'static str,
    /// The order.
    pub order: Named,
    /// The same order as a priority expression, larger first.
    pub expression: &'static str,
    /// One line for help texts.
    pub meaning: &'static str,
}

/// Every named order, in the order of help texts and errors.
#[rustfmt::skip]
pub const NAMED_ORDERS: &[NamedInfo] = &[
    NamedInfo { name: "fcfs", order: Named::Fcfs, expression: "-submit", meaning: "first come, first served" },
    NamedInfo { name: "sjf", order: Named::Sjf, expression: "-estimate", meaning: "shortest estimate first" },
    NamedInfo { name: "ljf", order: Named::Ljf, expression: "estimate", meaning: "longest estimate first" },
    NamedInfo { name: "saf", order: Named::Saf, expression: "-(nodes * estimate)", meaning: "smallest area (nodes × estimate) first" },
    NamedInfo { name: "laf", order: Named::Laf, expression: "nodes * estimate", meaning: "largest area first" },
    NamedInfo { name: "sqf", order: Named::Sqf, expression: "-nodes", meaning: "fewest nodes first" },
    NamedInfo { name: "lqf", order: Named::Lqf, expression: "nodes", meaning: "most nodes first" },
    NamedInfo { name: "xf", order: Named::Xf, expression: "(wait + estimate) / max(estimate, 1)", meaning: "largest expansion factor first" },
    NamedInfo { name: "wfp3", order: Named::Wfp3, expression: "(wait / max(estimate, 1))^3 * nodes", meaning: "WFP3: (wait / estimate)³ × nodes, largest first" },
    NamedInfo { name: "unicep", order: Named::Unicep, expression: "wait / (log2(max(nodes, 2)) * max(estimate, 1))", meaning: "UNICEP: wait / (log2(nodes) × estimate), largest first" },
    NamedInfo { name: "f1", order: Named::F1, expression: "-(log10(max(estimate, 1)) * nodes + 870 * log10(max(submit, 1)))", meaning: "F1: log10(r)·n + 870·log10(s), smallest first" },
    NamedInfo { name: "f2", order: Named::F2, expression: "-(sqrt(estimate) * nodes + 25600 * log10(max(submit, 1)))", meaning: "F2: √r·n + 25600·log10(s), smallest first" },
    NamedInfo { name: "f3", order: Named::F3, expression: "-(estimate * nodes + 6860000 * log10(max(submit, 1)))", meaning: "F3: r·n + 6860000·log10(s), smallest first" },
    NamedInfo { name: "f4", order: Named::F4, expression: "-(estimate * sqrt(nodes) + 530000 * log10(max(submit, 1)))", meaning: "F4: r·√n + 530000·log10(s), smallest first" },
    NamedInfo { name: "fairshare", order: Named::Fairshare, expression: "fairshare", meaning: "Slurm's fair-share factor 2^(−U/S), largest first" },
    NamedInfo { name: "multifactor", order: Named::Multifactor, expression: "multifactor", meaning: "Slurm's multifactor priority, largest first" },
];

/// The names of [`NAMED_ORDERS`], comma-separated.
pub fn named_order_names() -> String {
    NAMED_ORDERS
        .iter()
        .map(|n| n.name)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Named {
    /// Its line of [`NAMED_ORDERS`].
    pub fn info(self) -> &'static NamedInfo {
        NAMED_ORDERS
            .iter()
            .find(|n| n.order == self)
            .expect("every named order is listed")
    }

    /// Whether the order reads the users' usage (it needs the fair-share tracker).
    pub(crate) fn reads_usage(self) -> bool {
        matches!(self, Named::Fairshare | Named::Multifactor)
    }

    /// The order's value for the job `env` describes, larger first: the formula as written in
    /// docs/ALGORITHMS.md, against which the tests hold its expression (which replays evaluate).
    #[cfg(test)]
    pub(crate) fn key(self, env: &mut impl Env) -> f64 {
        let mut get = |v| env.get(v);
        match self {
            Named::Fcfs => -get(Var::Submit),
            Named::Sjf => -get(Var::Estimate),
            Named::Ljf => get(Var::Estimate),
            Named::Saf => -(get(Var::Nodes) * get(Var::Estimate)),
            Named::Laf => get(Var::Nodes) * get(Var::Estimate),
            Named::Sqf => -get(Var::Nodes),
            Named::Lqf => get(Var::Nodes),
            Named::Xf => {
                let r = get(Var::Estimate);
                (get(Var::Wait) + r) / r.max(1.0)
            }
            Named::Wfp3 => {
                let ratio = get(Var::Wait) / get(Var::Estimate).max(1.0);
                product_power(ratio, 3) * get(Var::Nodes)
            }
            Named::Unicep => {
                let w = get(Var::Wait);
                w / (get(Var::Nodes).max(2.0).log2() * get(Var::Estimate).max(1.0))
            }
            Named::F1 => {
                let r = get(Var::Estimate).max(1.0).log10();
                -(r * get(Var::Nodes) + 870.0 * log_submit(&mut get))
            }
            Named::F2 => {
                let r = get(Var::Estimate).sqrt();
                -(r * get(Var::Nodes) + 25600.0 * log_submit(&mut get))
            }
            Named::F3 => {
                let r = get(Var::Estimate);
                -(r * get(Var::Nodes) + 6_860_000.0 * log_submit(&mut get))
            }
            Named::F4 => {
                let r = get(Var::Estimate);
                -(r * get(Var::Nodes).sqrt() + 530_000.0 * log_submit(&mut get))
            }
            Named::Fairshare => get(Var::Fairshare),
            Named::Multifactor => get(Var::Multifactor),
        }
    }
}

/// F1–F4's `log10(s)`, a submit time below 1 s counting as 1 s.
#[cfg(test)]
fn log_submit(get: &mut impl FnMut(Var) -> f64) -> f64 {
    get(Var::Submit).max(1.0).log10()
}

/// A name that is not a named order.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("order `{0}` is not one of {names}", names = named_order_names())]
pub struct NamedParseError(pub String);

impl FromStr for Named {
    type Err = NamedParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        NAMED_ORDERS
            .iter()
            .find(|n| n.name == s.trim())
            .map(|n| n.order)
            .ok_or_else(|| NamedParseError(s.to_string()))
    }
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.info().name)
    }
}

#[cfg(test)]
mod tests {
    use super::super::expr::{Columns, Expr};
    use super::*;

    /// A job and moment given by value.
    #[derive(Clone, Copy)]
    struct Values {
        wait: f64,
        estimate: f64,
        nodes: f64,
        submit: f64,
    }
    impl Env for Values {
        fn get(&mut self, v: Var) -> f64 {
            match v {
                Var::Wait => self.wait,
                Var::Estimate => self.estimate,
                Var::Nodes => self.nodes,
                Var::Submit => self.submit,
                Var::Now => self.submit + self.wait,
                Var::Fairshare => 0.25,
                _ => 0.75,
            }
        }
    }

    const CASES: [Values; 6] = [
        Values {
            wait: 0.0,
            estimate: 0.0,
            nodes: 1.0,
            submit: 0.0,
        },
        Values {
            wait: 3.0,
            estimate: 0.5,
            nodes: 1.0,
            submit: 0.25,
        },
        Values {
            wait: 1234.0,
            estimate: 3600.0,
            nodes: 17.0,
            submit: 86_400.0,
        },
        Values {
            wait: 7.5,
            estimate: 64_800.0,
            nodes: 128.0,
            submit: 1e7,
        },
        Values {
            wait: 1e6,
            estimate: 1.0,
            nodes: 2.0,
            submit: 3.0,
        },
        Values {
            wait: 0.1,
            estimate: 100.0,
            nodes: 338.0,
            submit: 5e7,
        },
    ];

    #[test]
    fn every_named_order_equals_its_expression_to_the_bit() {
        let mut cases = CASES;
        let mut load = |v, col: &mut Vec<f64>| col.extend(CASES.map(|mut c| c.get(v)));
        let (mut cols, mut out) = (Columns::default(), Vec::new());
        for info in NAMED_ORDERS {
            let e: Expr = info.expression.parse().expect(info.expression);
            e.eval_batch(cases.len(), &mut load, &mut cols, &mut out);
            for (v, expr) in cases.iter_mut().zip(&out) {
                let named = info.order.key(v);
                assert_eq!(
                    named.to_bits(),
                    expr.to_bits(),
                    "{}: {named} vs {expr}",
                    info.name
                );
                assert!(!named.is_nan(), "{} is NaN", info.name);
            }
        }
    }

    #[test]
    fn formulas_by_hand() {
        let mut v = CASES[2];
        // WFP3: (1234 / 3600)³ × 17.
        let r: f64 = 1234.0 / 3600.0;
        assert!((Named::Wfp3.key(&mut v) - r.powi(3) * 17.0).abs() < 1e-12);
        // UNICEP: 1234 / (log2(17) × 3600).
        assert!((Named::Unicep.key(&mut v) - 1234.0 / (17f64.log2() * 3600.0)).abs() < 1e-12);
        // F1: −(log10(3600) × 17 + 870 × log10(86400)).
        let f1 = -(3600f64.log10() * 17.0 + 870.0 * 86_400f64.log10());
        assert!((Named::F1.key(&mut v) - f1).abs() < 1e-9);
        // XF: (1234 + 3600) / 3600.
        assert_eq!(Named::Xf.key(&mut v), 4834.0 / 3600.0);
        // The guards: a one-node job counts as two under UNICEP, estimate 0 as 1, submit 0 as 1.
        let mut one = CASES[1];
        assert_eq!(Named::Unicep.key(&mut one), 3.0 / (1.0 * 1.0));
        assert_eq!(Named::Xf.key(&mut one), 3.5);
        assert_eq!(Named::F1.key(&mut one), -0.0 * 1.0 - 870.0 * 0.0);
    }

    #[test]
    fn names_parse_back_and_the_error_lists_them() {
        for info in NAMED_ORDERS {
            assert_eq!(info.name.parse::<Named>(), Ok(info.order));
            assert_eq!(info.order.to_string(), info.name);
        }
        let e = "wfp".parse::<Named>().expect_err("unknown").to_string();
        assert!(e.contains("wfp3") && e.contains("multifactor"), "{e}");
    }
}
