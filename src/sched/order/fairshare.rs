//! Fair-share as Slurm's classic algorithm defines it (Slurm documentation, "Classic Fairshare
//! Algorithm", the simplified formula; priority/multifactor plugin): a user's *usage* is the
//! node-seconds its jobs received, decayed with a half-life (`PriorityDecayHalfLife`, default 7
//! days); its *normalized usage* U is that usage over the machine's total usage, decayed alike;
//! its *normalized shares* S are its shares over all users' shares (equal shares by default); and
//! its fair-share factor is
//!
//! ```text
//! F = 2^(−U / S)      (F = 1 while nothing has run; F = 0 for a user with no shares)
//! ```
//!
//! 0.5 when a user received exactly its share, above when less, below when more. Groups (SWF
//! field 13) have the same usage, shares and factor, apart from the users' (no account tree: the
//! two levels are not combined into Slurm's effective usage).
//!
//! Usage is exact and continuous: a running job adds its nodes × dt, decayed as it goes, so an
//! account with usage `u` at time `t₀` and `n` nodes running since has at `t`, with
//! `d = 2^(−(t − t₀)/h)`,
//!
//! ```text
//! u(t) = u · d + n · (h / ln 2) · (1 − d)
//! ```
//!
//! computed when the running count changes (a start or an end) and when a factor is read (at a
//! scheduling pass). Slurm instead adds usage and applies the decay every `PriorityCalcPeriod`
//! (5 minutes by default): between two of its periods its factors stand still, here they move at
//! every pass. A half-life of `inf` turns decay off (usage only grows).
//!
//! Accounts are the users (and groups) of the workload, numbered densely when the scheduler is
//! built; jobs without a user (−1) are one more user, likewise for groups. Each account's factor is
//! computed at most once per pass.

use rustc_hash::FxHashMap;

use crate::SimTime;
use crate::packed::{GroupId, UserId};
use crate::workload::{Job, JobId, Workload};

/// The decayed usage of one account, exact at `at`.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    value: f64,
    at: SimTime,
    /// Nodes its jobs hold now.
    running: u64,
}

impl Usage {
    /// The usage at `t` (≥ `at`), with its running nodes accruing since `at`.
    fn at(&self, t: SimTime, half_life: SimTime) -> f64 {
        let dt = t - self.at;
        if dt <= 0.0 {
            return self.value;
        }
        let accrued = self.running as f64;
        if half_life.is_infinite() {
            return self.value + accrued * dt;
        }
        // 1 − d = −expm1(−dt·ln2/h), exact for small dt.
        let x = dt / half_life * std::f64::consts::LN_2;
        let decay = (-x).exp();
        self.value * decay + accrued * (half_life / std::f64::consts::LN_2) * -(-x).exp_m1()
    }

    /// Brings the usage to `t` (before a change of its running nodes).
    fn advance(&mut self, t: SimTime, half_life: SimTime) {
        if t > self.at {
            self.value = self.at(t, half_life);
            self.at = t;
        }
    }
}

/// The accounts of one level (users, or groups): usage, normalized shares, factors of this pass.
#[derive(Debug, Clone, Default)]
struct Level {
    usage: Vec<Usage>,
    /// Shares over the level's total shares.
    shares: Vec<f64>,
    /// The factor of each account at pass `stamp` (computed once per pass).
    memo: Vec<(u64, f64)>,
}

impl Level {
    /// A level of accounts with these raw shares (each ≥ 0).
    fn new(raw: Vec<f64>) -> Level {
        let total: f64 = raw.iter().sum();
        let n = raw.len();
        Level {
            usage: vec![Usage::default(); n],
            shares: raw
                .into_iter()
                .map(|s| if total > 0.0 { s / total } else { 0.0 })
                .collect(),
            memo: vec![(0, 0.0); n],
        }
    }
}

/// Decayed usage and fair-share factors of the users and groups of one replay.
#[derive(Debug, Clone)]
pub(crate) struct FairShare {
    half_life: SimTime,
    users: Level,
    groups: Level,
    total: Usage,
    /// The running jobs' accounts and nodes.
    running: FxHashMap<JobId, (u32, u32, u64)>,
    /// The current pass and its time.
    stamp: u64,
    now: SimTime,
    /// The machine's total usage at `now`.
    total_now: f64,
}

/// The dense account numbers of a workload's users and groups.
#[derive(Debug, Clone, Default)]
pub(crate) struct Accounts {
    users: FxHashMap<Option<UserId>, u32>,
    groups: FxHashMap<Option<GroupId>, u32>,
}

impl Accounts {
    /// The users and groups of `w`, numbered in order of first appearance.
    pub(crate) fn of(w: &Workload) -> Accounts {
        let mut a = Accounts::default();
        for j in &w.jobs {
            let n = a.users.len() as u32;
            a.users.entry(j.user).or_insert(n);
            let n = a.groups.len() as u32;
            a.groups.entry(j.group).or_insert(n);
        }
        a
    }

    /// Number of users.
    pub(crate) fn users(&self) -> usize {
        self.users.len()
    }

    /// Number of groups.
    pub(crate) fn groups(&self) -> usize {
        self.groups.len()
    }

    /// The dense number of `user`, if it submits in the workload.
    pub(crate) fn user(&self, user: Option<UserId>) -> Option<u32> {
        self.users.get(&user).copied()
    }

    /// The dense number of `group`, if it submits in the workload.
    pub(crate) fn group(&self, group: Option<GroupId>) -> Option<u32> {
        self.groups.get(&group).copied()
    }

    /// The dense user and group of `job` (0 for one the workload did not hold).
    pub(crate) fn of_job(&self, job: &Job) -> (u32, u32) {
        (
            self.user(job.user).unwrap_or(0),
            self.group(job.group).unwrap_or(0),
        )
    }
}

impl FairShare {
    /// Fair-share with `half_life` (> 0, may be infinite) over users and groups with these raw
    /// shares (by dense number).
    pub(crate) fn new(half_life: SimTime, users: Vec<f64>, groups: Vec<f64>) -> FairShare {
        FairShare {
            half_life,
            users: Level::new(users),
            groups: Level::new(groups),
            total: Usage::default(),
            running: FxHashMap::default(),
            stamp: 0,
            now: 0.0,
            total_now: 0.0,
        }
    }

    /// Starts a pass at `now`: factors are computed afresh.
    pub(crate) fn begin(&mut self, now: SimTime) {
        self.stamp += 1;
        self.now = now;
        self.total_now = self.total.at(now, self.half_life);
    }

    /// Job `id` of `user` and `group` started on `nodes` nodes at `now`.
    pub(crate) fn started(&mut self, id: JobId, user: u32, group: u32, nodes: u32, now: SimTime) {
        let n = u64::from(nodes);
        self.change(user, group, now, |r| *r += n);
        self.running.insert(id, (user, group, n));
    }

    /// Job `id` ended at `now` (a job this tracker did not see start is ignored).
    pub(crate) fn ended(&mut self, id: JobId, now: SimTime) {
        if let Some((user, group, n)) = self.running.remove(&id) {
            self.change(user, group, now, |r| *r -= n);
        }
    }

    /// Brings the user's, the group's and the total usage to `now`, then changes their running
    /// nodes.
    fn change(&mut self, user: u32, group: u32, now: SimTime, f: impl Fn(&mut u64)) {
        let h = self.half_life;
        for u in [
            &mut self.users.usage[user as usize],
            &mut self.groups.usage[group as usize],
            &mut self.total,
        ] {
            u.advance(now, h);
            f(&mut u.running);
        }
    }

    /// The user's decayed usage at the pass's time (node-seconds).
    pub(crate) fn user_usage(&self, user: u32) -> f64 {
        self.users.usage[user as usize].at(self.now, self.half_life)
    }

    /// The group's decayed usage at the pass's time.
    pub(crate) fn group_usage(&self, group: u32) -> f64 {
        self.groups.usage[group as usize].at(self.now, self.half_life)
    }

    /// The user's fair-share factor at the pass's time.
    pub(crate) fn user_factor(&mut self, user: u32) -> f64 {
        factor(
            &mut self.users,
            user,
            self.stamp,
            self.now,
            self.half_life,
            self.total_now,
        )
    }

    /// The group's fair-share factor at the pass's time.
    pub(crate) fn group_factor(&mut self, group: u32) -> f64 {
        factor(
            &mut self.groups,
            group,
            self.stamp,
            self.now,
            self.half_life,
            self.total_now,
        )
    }
}

/// Account `i`'s factor 2^(−U/S) at `now`, memoised for pass `stamp`.
fn factor(level: &mut Level, i: u32, stamp: u64, now: SimTime, h: SimTime, total: f64) -> f64 {
    let i = i as usize;
    let (seen, f) = level.memo[i];
    if seen == stamp {
        return f;
    }
    let s = level.shares[i];
    let f = if s <= 0.0 {
        0.0
    } else if total <= 0.0 {
        1.0
    } else {
        (-(level.usage[i].at(now, h) / total) / s).exp2()
    };
    level.memo[i] = (stamp, f);
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: f64 = 86_400.0;
    const WEEK: f64 = 7.0 * DAY;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * b.abs().max(1.0)
    }

    /// Usage of a job that ran `n` nodes over `[s, e]`, decayed to `t` — the integral, by hand:
    /// ∫ n·2^(−(t−x)/h) dx = n·h/ln2·(2^(−(t−e)/h) − 2^(−(t−s)/h)).
    fn integral(n: f64, s: f64, e: f64, t: f64, h: f64) -> f64 {
        let k = h / std::f64::consts::LN_2;
        n * k * ((-(t - e) / h).exp2() - (-(t - s) / h).exp2())
    }

    #[test]
    fn usage_halves_over_one_half_life() {
        let mut fs = FairShare::new(WEEK, vec![1.0], vec![1.0]);
        fs.started(JobId(0), 0, 0, 10, 0.0);
        fs.ended(JobId(0), 100.0);
        fs.begin(100.0);
        // 10 nodes × 100 s, decayed while it ran: a little below 1000.
        let at_end = fs.user_usage(0);
        assert!(
            close(at_end, integral(10.0, 0.0, 100.0, 100.0, WEEK)),
            "{at_end}"
        );
        assert!(at_end < 1000.0 && at_end > 999.0);
        fs.begin(100.0 + WEEK);
        assert!(close(fs.user_usage(0), at_end / 2.0));
        fs.begin(100.0 + 2.0 * WEEK);
        assert!(close(fs.user_usage(0), at_end / 4.0));
    }

    #[test]
    fn running_jobs_accrue_while_they_run_and_decay_as_they_go() {
        let h = DAY;
        let mut fs = FairShare::new(h, vec![1.0, 1.0], vec![1.0]);
        fs.started(JobId(0), 0, 0, 4, 0.0);
        fs.started(JobId(1), 1, 0, 2, 1000.0);
        fs.ended(JobId(0), 5000.0);
        fs.begin(9000.0);
        assert!(close(
            fs.user_usage(0),
            integral(4.0, 0.0, 5000.0, 9000.0, h)
        ));
        assert!(close(
            fs.user_usage(1),
            integral(2.0, 1000.0, 9000.0, 9000.0, h)
        ));
        let group = fs.group_usage(0);
        assert!(close(group, fs.user_usage(0) + fs.user_usage(1)));
        // No decay: node-seconds.
        let mut flat = FairShare::new(f64::INFINITY, vec![1.0], vec![1.0]);
        flat.started(JobId(0), 0, 0, 3, 10.0);
        flat.begin(20.0);
        assert_eq!(flat.user_usage(0), 30.0);
    }

    /// Two users with equal shares (S = ½), one heavy: user 0 ran 30 nodes for 1000 s, user 1
    /// 10 nodes for 1000 s, both over [0, 1000], so U₀ = ¾ and U₁ = ¼ (the decay is common to
    /// both and cancels in U): F₀ = 2^(−1.5) ≈ 0.354, F₁ = 2^(−0.5) ≈ 0.707. One half-life
    /// later U is unchanged (both halve), and so are the factors.
    #[test]
    fn two_users_one_heavy() {
        let mut fs = FairShare::new(WEEK, vec![1.0, 1.0], vec![1.0, 1.0]);
        fs.begin(0.0);
        assert_eq!(fs.user_factor(0), 1.0, "nothing ran yet");
        fs.started(JobId(0), 0, 0, 30, 0.0);
        fs.started(JobId(1), 1, 1, 10, 0.0);
        fs.ended(JobId(0), 1000.0);
        fs.ended(JobId(1), 1000.0);
        fs.begin(1000.0);
        let (f0, f1) = (fs.user_factor(0), fs.user_factor(1));
        assert!(close(f0, 2f64.powf(-1.5)), "{f0}");
        assert!(close(f1, 2f64.powf(-0.5)), "{f1}");
        assert!(close(fs.group_factor(0), f0));
        fs.begin(1000.0 + WEEK);
        assert!(close(fs.user_factor(0), f0) && close(fs.user_factor(1), f1));
        // Fresh usage of user 1 after a half-life weighs twice its old usage: 10 nodes for a
        // further 1000 s, decayed: U₁ ≈ (½·10 + 10)/(½·40 + 10) = 0.5 → F₁ ≈ 2^(−1) (to the decay
        // within the 1000 s themselves).
        fs.started(JobId(2), 1, 1, 10, 1000.0 + WEEK);
        fs.ended(JobId(2), 2000.0 + WEEK);
        fs.begin(2000.0 + WEEK);
        let u1 = fs.user_usage(1) / (fs.user_usage(0) + fs.user_usage(1));
        assert!((u1 - 0.5).abs() < 1e-3, "{u1}");
        assert!(close(fs.user_factor(1), (-u1 / 0.5).exp2()));
    }

    #[test]
    fn shares_weigh_the_factor_and_no_shares_is_zero() {
        // User 0 holds 3 shares of 4 (S = ¾), user 1 one (¼), user 2 none.
        let mut fs = FairShare::new(WEEK, vec![3.0, 1.0, 0.0], vec![1.0]);
        fs.started(JobId(0), 0, 0, 1, 0.0);
        fs.started(JobId(1), 1, 0, 1, 0.0);
        fs.begin(50.0);
        // U = ½ each: F₀ = 2^(−2/3), F₁ = 2^(−2).
        assert!(close(fs.user_factor(0), (-2.0f64 / 3.0).exp2()));
        assert!(close(fs.user_factor(1), 0.25));
        assert_eq!(fs.user_factor(2), 0.0);
    }

    #[test]
    fn accounts_number_users_and_groups_in_order_of_appearance() {
        let mut w = Workload::default();
        for (i, (u, g)) in [
            (Some(5), Some(1)),
            (None, None),
            (Some(5), Some(2)),
            (Some(3), Some(1)),
        ]
        .into_iter()
        .enumerate()
        {
            let mut j = Job::sample(i as u32, i as f64, 1.0, crate::workload::Request::Nodes(1));
            j.user = u.and_then(UserId::new);
            j.group = g.and_then(GroupId::new);
            w.jobs.push(j);
        }
        let a = Accounts::of(&w);
        assert_eq!((a.users(), a.groups()), (3, 3));
        assert_eq!(a.of_job(&w.jobs[2]), (0, 2));
        assert_eq!(
            a.of_job(&w.jobs[1]),
            (1, 1),
            "no user: an account of its own"
        );
        assert_eq!(a.user(UserId::new(9)), None);
    }
}
