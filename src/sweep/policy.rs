//! What a series runs: a built-in scheduler of the registry, or an [`External`] policy (a label
//! with a `py:` part) that the caller replays outside the library. A sweep's cells and an
//! experiment's cells hold one; an external policy is labelled, keyed and seeded by its label
//! like a built-in one, and its digest keys its cached results ([`External`]).

use std::fmt;
use std::str::FromStr;

use super::external::{External, is_external};
use crate::sched::{SchedKind, SchedParseError};

/// What a series runs: a built-in scheduler, or a label run outside the library.
// The built-in variant is the common one and a cell holds one policy: boxing it would only add an
// allocation per cell.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum Policy {
    /// A scheduler of the registry.
    Builtin(SchedKind),
    /// A label with a `py:` part ([`super::external`]).
    External(External),
}

/// The relative cost of an external policy's replay ([`Policy::cost`]), against 1 for FCFS and 10
/// for the built-in backfilling schedulers: a worker process (interpreter start, import, the
/// instance as JSON) and Python calls at every scheduling pass.
pub const EXTERNAL_COST: f64 = 20.0;

impl Policy {
    /// The built-in scheduler; `None` for an external one.
    pub fn builtin(&self) -> Option<SchedKind> {
        match self {
            Policy::Builtin(s) => Some(*s),
            Policy::External(_) => None,
        }
    }

    /// The external policy; `None` for a built-in one.
    pub fn external(&self) -> Option<&External> {
        match self {
            Policy::External(e) => Some(e),
            Policy::Builtin(_) => None,
        }
    }

    /// The external policy, to resolve its digest; `None` for a built-in one.
    pub fn external_mut(&mut self) -> Option<&mut External> {
        match self {
            Policy::External(e) => Some(e),
            Policy::Builtin(_) => None,
        }
    }

    /// The expected relative cost of a replay ([`SchedKind::cost`]; [`EXTERNAL_COST`]).
    pub fn cost(&self) -> f64 {
        match self {
            Policy::Builtin(s) => s.cost(),
            Policy::External(_) => EXTERNAL_COST,
        }
    }

    /// Whether the policy may plan with run-time estimates ([`SchedKind::plans_with_estimates`]);
    /// an external one may, for all the library knows.
    pub fn plans_with_estimates(&self) -> bool {
        self.builtin().is_none_or(|s| s.plans_with_estimates())
    }
}

impl From<SchedKind> for Policy {
    fn from(s: SchedKind) -> Self {
        Policy::Builtin(s)
    }
}

impl FromStr for Policy {
    type Err = SchedParseError;

    /// A built-in label ([`SchedKind`]'s), or an external one with no digest yet (the caller
    /// resolves it: what the label names lives outside the library).
    fn from_str(label: &str) -> Result<Self, Self::Err> {
        if is_external(label) {
            return Ok(Policy::External(External {
                label: label.trim().to_string(),
                digest: String::new(),
            }));
        }
        label.parse().map(Policy::Builtin)
    }
}

impl fmt::Display for Policy {
    /// The label: the built-in scheduler's, or the external one as written.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Builtin(s) => s.fmt(f),
            Policy::External(e) => e.fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Grid;

    #[test]
    fn an_external_label_reads_as_itself_and_keys_its_cells_as_written() {
        let p: Policy = " py:policies/sjf.py:Sjf".parse().unwrap();
        assert_eq!(p.builtin(), None);
        assert_eq!(p.to_string(), "py:policies/sjf.py:Sjf");
        assert!(p.plans_with_estimates(), "the library cannot tell");
        assert_eq!(p.cost(), EXTERNAL_COST);
        let easy: Policy = "easy".parse().unwrap();
        assert_eq!(easy, Policy::Builtin(SchedKind::Easy));
        assert!("nope".parse::<Policy>().is_err());
        let grid = Grid {
            schedulers: vec![easy, p, "easy:order=py:prio.py:score".parse().unwrap()],
            allocators: vec!["flat".parse().unwrap()],
            loads: vec![1.0],
            estimates: Vec::new(),
        };
        let keys: Vec<String> = grid.cells().iter().map(|c| c.key()).collect();
        assert_eq!(
            keys,
            [
                "easy|flat|1",
                "py:policies/sjf.py:Sjf|flat|1",
                "easy:order=py:prio.py:score|flat|1"
            ]
        );
        // The digest keys cached results (the experiment cell's id), not labels or seeds.
        let mut resolved = grid.cells()[1].clone();
        let seed = resolved.seed();
        if let Policy::External(e) = &mut resolved.scheduler {
            e.digest = "abc".into();
        }
        assert_eq!(resolved.seed(), seed);
        assert_eq!(resolved.key(), keys[1]);
    }
}
