//! The shares file: fair-share shares of users and groups, and the queue and partition priorities
//! of the multifactor order. One entry a line, `#` starts a comment:
//!
//! ```text
//! # what            number  value
//! user              12      10     # user 12 (SWF field 12) holds 10 shares
//! group             3       2      # group 3 (SWF field 13) holds 2 shares
//! queue             1       5      # queue 1 (SWF field 15) has priority 5
//! partition         2       1      # partition 2 (SWF field 16) has priority 1
//! ```
//!
//! Values are numbers ≥ 0. A user or group not listed holds 1 share; a queue or partition not
//! listed has priority 1. Every user and group listed must submit a job in the workload replayed
//! (checked when the scheduler is built: a misspelt number is an error, not a silent 1).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// What a line of the shares file sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Entity {
    /// A user's shares.
    User,
    /// A group's shares.
    Group,
    /// A queue's priority.
    Queue,
    /// A partition's priority.
    Partition,
}

impl Entity {
    const ALL: [(Entity, &'static str); 4] = [
        (Entity::User, "user"),
        (Entity::Group, "group"),
        (Entity::Queue, "queue"),
        (Entity::Partition, "partition"),
    ];

    fn name(self) -> &'static str {
        Entity::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .map(|(_, n)| *n)
            .expect("every entity is named")
    }
}

/// A parsed shares file (its text kept: it serializes as the text it was read from).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Shares {
    text: String,
    /// Value and line (1-based) of each entry.
    entries: BTreeMap<(Entity, u32), (f64, usize)>,
}

/// A shares file that could not be read, or that names a user or group the workload lacks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct SharesError {
    /// 1-based line of the file.
    pub line: usize,
    /// What is wrong.
    pub problem: String,
}

impl Shares {
    /// The value set for `what` number `n`, if listed.
    pub fn get(&self, what: Entity, n: u32) -> Option<f64> {
        self.entries.get(&(what, n)).map(|&(v, _)| v)
    }

    /// The entries of one kind: number, value and line.
    pub(crate) fn of(&self, what: Entity) -> impl Iterator<Item = (u32, f64, usize)> + '_ {
        self.entries
            .range((what, 0)..=(what, u32::MAX))
            .map(|(&(_, n), &(v, line))| (n, v, line))
    }

    /// The first user or group listed for which `known` is false: an error naming its line.
    pub(crate) fn check_known(
        &self,
        what: Entity,
        known: impl Fn(u32) -> bool,
    ) -> Result<(), SharesError> {
        match self.of(what).find(|&(n, _, _)| !known(n)) {
            Some((n, _, line)) => Err(SharesError {
                line,
                problem: format!("{} {n} submits no job in this workload", what.name()),
            }),
            None => Ok(()),
        }
    }
}

impl FromStr for Shares {
    type Err = SharesError;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut entries = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let fail = |problem: String| SharesError { line, problem };
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let words: Vec<&str> = content.split_whitespace().collect();
            let [what, n, value] = words[..] else {
                return Err(fail(format!(
                    "`{content}`: expected three words, WHAT NUMBER VALUE (e.g. `user 12 10`)"
                )));
            };
            let Some(&(entity, _)) = Entity::ALL.iter().find(|(_, name)| *name == what) else {
                return Err(fail(format!(
                    "`{what}` is not one of user, group, queue, partition"
                )));
            };
            let n: u32 = n
                .parse()
                .ok()
                .filter(|&n| n != u32::MAX)
                .ok_or_else(|| fail(format!("{what} `{n}` is not a number ≥ 0")))?;
            let v: f64 = value
                .parse()
                .map_err(|_| fail(format!("{what} {n}: `{value}` is not a number")))?;
            if !v.is_finite() || v < 0.0 {
                let kind = if matches!(entity, Entity::User | Entity::Group) {
                    "share"
                } else {
                    "priority"
                };
                return Err(fail(format!(
                    "{what} {n}: {kind} {value} is not a finite number ≥ 0"
                )));
            }
            if let Some((_, first)) = entries.insert((entity, n), (v, line)) {
                return Err(fail(format!(
                    "{what} {n} is listed twice (first on line {first})"
                )));
            }
        }
        Ok(Shares {
            text: text.to_string(),
            entries,
        })
    }
}

impl TryFrom<String> for Shares {
    type Error = SharesError;
    fn try_from(text: String) -> Result<Self, Self::Error> {
        text.parse()
    }
}

impl From<Shares> for String {
    fn from(s: Shares) -> String {
        s.text
    }
}

impl fmt::Display for Shares {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_parse_with_comments_and_blank_lines() {
        let s: Shares = "# shares\n\nuser 12 10  # heavy\ngroup 3 2\nqueue 1 5\npartition 0 0.5\n"
            .parse()
            .expect("valid");
        assert_eq!(s.get(Entity::User, 12), Some(10.0));
        assert_eq!(s.get(Entity::Group, 3), Some(2.0));
        assert_eq!(s.get(Entity::Queue, 1), Some(5.0));
        assert_eq!(s.get(Entity::Partition, 0), Some(0.5));
        assert_eq!(s.get(Entity::User, 3), None);
        let users: Vec<_> = s.of(Entity::User).collect();
        assert_eq!(users, [(12, 10.0, 3)]);
        let e = s
            .check_known(Entity::User, |n| n != 12)
            .expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "line 3: user 12 submits no job in this workload"
        );
        assert!(s.check_known(Entity::Group, |_| true).is_ok());
    }

    #[test]
    fn bad_lines_are_one_line_errors_naming_the_line() {
        for (text, needle) in [
            (
                "user 1 -2",
                "line 1: user 1: share -2 is not a finite number ≥ 0",
            ),
            ("\nqueue 1 -1", "line 2: queue 1: priority -1"),
            ("user one 2", "user `one` is not a number ≥ 0"),
            ("user 1 lots", "`lots` is not a number"),
            (
                "account 1 2",
                "`account` is not one of user, group, queue, partition",
            ),
            ("user 1", "expected three words"),
            (
                "user 1 2\nuser 1 3",
                "line 2: user 1 is listed twice (first on line 1)",
            ),
            ("user 1 inf", "not a finite number"),
        ] {
            let e = text.parse::<Shares>().expect_err(text).to_string();
            assert!(e.contains(needle), "{text}: {e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn shares_serialize_as_their_text() {
        let s: Shares = "user 1 2\n".parse().expect("valid");
        assert_eq!(String::from(s.clone()), "user 1 2\n");
        assert_eq!(Shares::try_from(String::from(s.clone())), Ok(s));
    }
}
