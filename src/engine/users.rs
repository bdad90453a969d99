//! Who won and who lost: one replay measured per user (SWF field 12), and how evenly the users
//! fared.
//!
//! [`per_user`] gives a [`UserRow`] per user, by user number: the jobs, the node-hours they used,
//! their mean and largest wait and their mean bounded slowdown (the summary's definition,
//! [`JobRecord::bounded_slowdown`](super::JobRecord::bounded_slowdown)). The jobs of no user (−1
//! in the log, every job of a synthetic workload) count as one user, numbered −1, as SWF writes
//! them.
//! [`user_table`] gives the rows as columns for a front end to write.
//!
//! [`Fairness`] reduces the rows to three summary columns: Jain's index over the users' mean
//! bounded slowdowns, (Σx)² / (n·Σx²), 1 when every user fares alike and 1/n when one user takes
//! all the slowdown (Jain, Chiu & Hawe, DEC-TR-301, 1984); and the worst user's mean wait and
//! mean bounded slowdown, each the largest over the users (not necessarily of the same user).

use std::collections::BTreeMap;

use super::Outcome;
use super::columns::JobColumn;
use crate::workload::Workload;

/// One user's jobs in one replay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UserRow {
    /// The user number (SWF field 12); −1 for the jobs of no user.
    pub user: i64,
    /// Jobs replayed.
    pub jobs: u64,
    /// Σ nodes granted × time served, in hours.
    pub node_hours: f64,
    /// Mean of start − submit.
    pub mean_wait_s: f64,
    /// Largest start − submit.
    pub max_wait_s: f64,
    /// Mean bounded slowdown.
    pub mean_bounded_slowdown: f64,
}

/// The users of a replay of `w`, by user number (see the module doc).
pub fn per_user(w: &Workload, out: &Outcome) -> Vec<UserRow> {
    let mut users: BTreeMap<i64, UserRow> = BTreeMap::new();
    for (j, r) in w.jobs.iter().zip(&out.records) {
        let user = j.user.map_or(-1, |u| i64::from(u.get()));
        let row = users.entry(user).or_insert(UserRow {
            user,
            jobs: 0,
            node_hours: 0.0,
            mean_wait_s: 0.0,
            max_wait_s: f64::NEG_INFINITY,
            mean_bounded_slowdown: 0.0,
        });
        let wait = r.start - j.submit;
        row.jobs += 1;
        row.node_hours += out.node_seconds(j, r) / 3600.0;
        row.mean_wait_s += wait;
        row.max_wait_s = row.max_wait_s.max(wait);
        row.mean_bounded_slowdown += r.bounded_slowdown(j);
    }
    users
        .into_values()
        .map(|mut row| {
            let n = row.jobs as f64;
            row.mean_wait_s /= n;
            row.mean_bounded_slowdown /= n;
            row
        })
        .collect()
}

/// The per-user table: `user`, `jobs`, `node_hours`, `mean_wait_s`, `max_wait_s`,
/// `mean_bounded_slowdown`, one row per [`UserRow`].
pub fn user_table(rows: &[UserRow]) -> Vec<(&'static str, JobColumn)> {
    let reals = |f: fn(&UserRow) -> f64| JobColumn::Reals(rows.iter().map(f).collect());
    vec![
        (
            "user",
            JobColumn::Signed(rows.iter().map(|r| r.user).collect()),
        ),
        (
            "jobs",
            JobColumn::Ids(rows.iter().map(|r| r.jobs).collect()),
        ),
        ("node_hours", reals(|r| r.node_hours)),
        ("mean_wait_s", reals(|r| r.mean_wait_s)),
        ("max_wait_s", reals(|r| r.max_wait_s)),
        ("mean_bounded_slowdown", reals(|r| r.mean_bounded_slowdown)),
    ]
}

/// How evenly the users fared (see the module doc); NaN each without users.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fairness {
    /// Jain's index over the users' mean bounded slowdowns, 1/n..1.
    pub jain: f64,
    /// The largest of the users' mean waits.
    pub worst_mean_wait_s: f64,
    /// The largest of the users' mean bounded slowdowns.
    pub worst_mean_bounded_slowdown: f64,
}

impl Fairness {
    /// The fairness of `rows`.
    pub fn of(rows: &[UserRow]) -> Fairness {
        if rows.is_empty() {
            return Fairness {
                jain: f64::NAN,
                worst_mean_wait_s: f64::NAN,
                worst_mean_bounded_slowdown: f64::NAN,
            };
        }
        let x = || rows.iter().map(|r| r.mean_bounded_slowdown);
        let sum: f64 = x().sum();
        let squares: f64 = x().map(|s| s * s).sum();
        let worst = |f: fn(&UserRow) -> f64| rows.iter().map(f).fold(f64::NEG_INFINITY, f64::max);
        Fairness {
            jain: sum * sum / (rows.len() as f64 * squares),
            worst_mean_wait_s: worst(|r| r.mean_wait_s),
            worst_mean_bounded_slowdown: worst(|r| r.mean_bounded_slowdown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::JobRecord;
    use crate::machine::Placement;
    use crate::packed::UserId;
    use crate::workload::{Job, Request};

    /// Three jobs of user 7 and one of no user, by hand: user 7's jobs (2, 1 and 4 nodes) wait
    /// 0, 10 and 20 s and run 100, 5 and 30 s; the job of no user waits 50 s and runs 50 s.
    fn example() -> (Workload, Outcome) {
        let spec = [
            (Some(7), 0.0, 0.0, 100.0, 2),
            (Some(7), 0.0, 10.0, 5.0, 1),
            (None, 5.0, 55.0, 50.0, 1),
            (Some(7), 10.0, 30.0, 30.0, 4),
        ];
        let mut jobs = Vec::new();
        let mut records = Vec::new();
        for (i, &(user, submit, start, run, n)) in spec.iter().enumerate() {
            let mut j = Job::sample(i as u32, submit, run, Request::Nodes(n));
            j.user = user.and_then(UserId::new);
            jobs.push(j);
            records.push(JobRecord {
                start,
                end: start + run,
                placement: Placement::Nodes(n),
                killed: false,
                reserved: None,
            });
        }
        let out = Outcome {
            records,
            ..Default::default()
        };
        (Workload::from_jobs(jobs, 1), out)
    }

    #[test]
    fn users_by_hand() {
        let (w, out) = example();
        let rows = per_user(&w, &out);
        // No user: slowdown (50 + 50) / 50 = 2. User 7: slowdowns 1, (10 + 5) / 10 = 1.5 and
        // (20 + 30) / 30 = 5/3; node-seconds 200 + 5 + 120.
        assert_eq!(rows.len(), 2);
        assert_eq!(
            rows[0],
            UserRow {
                user: -1,
                jobs: 1,
                node_hours: 50.0 / 3600.0,
                mean_wait_s: 50.0,
                max_wait_s: 50.0,
                mean_bounded_slowdown: 2.0,
            }
        );
        let seven = rows[1];
        assert_eq!((seven.user, seven.jobs), (7, 3));
        assert!((seven.node_hours - 325.0 / 3600.0).abs() < 1e-15);
        assert_eq!((seven.mean_wait_s, seven.max_wait_s), (10.0, 20.0));
        let sd = (1.0 + 1.5 + 5.0 / 3.0) / 3.0;
        assert!((seven.mean_bounded_slowdown - sd).abs() < 1e-15);
        let f = Fairness::of(&rows);
        let jain = (2.0 + sd) * (2.0 + sd) / (2.0 * (4.0 + sd * sd));
        assert!((f.jain - jain).abs() < 1e-15);
        assert_eq!(f.worst_mean_wait_s, 50.0);
        assert_eq!(f.worst_mean_bounded_slowdown, 2.0);
    }

    #[test]
    fn jain_is_one_when_users_fare_alike_and_one_over_n_at_worst() {
        let row = |user, sd| UserRow {
            user,
            jobs: 1,
            node_hours: 0.0,
            mean_wait_s: 0.0,
            max_wait_s: 0.0,
            mean_bounded_slowdown: sd,
        };
        assert_eq!(Fairness::of(&[row(1, 3.0), row(2, 3.0)]).jain, 1.0);
        // Slowdowns are ≥ 1, so 1/n is the bound approached as one user's grows.
        let skewed = Fairness::of(&[row(1, 1.0), row(2, 1.0), row(3, 1e9)]).jain;
        assert!((skewed - 1.0 / 3.0).abs() < 1e-8, "{skewed}");
        assert!(Fairness::of(&[]).jain.is_nan());
    }

    #[test]
    fn the_table_has_a_row_per_user() {
        let (w, out) = example();
        let t = user_table(&per_user(&w, &out));
        assert_eq!(t[0], ("user", JobColumn::Signed(vec![-1, 7])));
        assert_eq!(t[1], ("jobs", JobColumn::Ids(vec![1, 3])));
        assert!(t.iter().all(|(_, c)| c.len() == 2));
    }
}
