//! Queue orders (`SCHED:order=O`): a plain reference of strict priority, OO, the bypass queue and
//! EASY under an order on the flat machine — its values computed apart from the library (the
//! formulas written out again, fair-share usage integrated from the reference's own starts and
//! ends) — against the engine job by job, on random streams and on real logs; hand-worked
//! examples; every named order against its expression; the conservative guarantee under any
//! order; and the errors.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use proptest::prelude::*;
use pwa_replay::catalog::Catalog;
use pwa_replay::engine::{Engine, NoObserver, Outcome, ReplayOptions, replay_with, validate};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::packed::{GroupId, PackedTime, UserId};
use pwa_replay::sched::SchedKind;
use pwa_replay::sched::order::{
    Key, NAMED_ORDERS, Named, OrderError, Priorities, PriorityConfig, PriorityFn,
};
use pwa_replay::sched::semantics::{Prediction, Semantics};
use pwa_replay::swf::{ReadOptions, read_all};
use pwa_replay::workload::tracepath::SearchPath;
use pwa_replay::workload::{Correction, EstimateModel, Job, JobId, Request, ShapeRule, Workload};

use crate::engine::{flat, starts, workload};

/// Replays `w` on `flat:nodes` under `sched` in order `key`, validated.
fn run_ordered(
    w: &Workload,
    nodes: u32,
    sched: SchedKind,
    key: Key,
    c: &PriorityConfig,
) -> Outcome {
    let m = flat(nodes);
    let s = sched.build_ordered(key, c, w).expect("an order");
    let out = Engine::new(w, s, AllocKind::Flat.build(m).expect("flat"))
        .run(&mut NoObserver)
        .expect("replay");
    validate(w, m, &out).expect("valid schedule");
    out
}

fn named(name: &str) -> Key {
    Key::Named(name.parse().expect("a named order"))
}

fn expr(text: &str) -> Key {
    Key::Expr(text.parse().expect("an expression"))
}

// ---------------------------------------------------------------------------------------------
// The reference: one pass per instant after its ends and arrivals, values recomputed at each.

/// What the reference schedules.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Policy {
    /// Strict priority: the top while it fits.
    Strict,
    /// Any job that fits, in order.
    Oo,
    /// The top while it fits, then, at an instant with a departure, the others while the head has
    /// waited less than T.
    Bq(f64),
    /// EASY: the head's reservation, the others backfilled in order.
    Easy,
}

impl Policy {
    fn kind(self) -> SchedKind {
        match self {
            Policy::Strict => SchedKind::Fcfs,
            Policy::Oo => SchedKind::OutOfOrder,
            Policy::Bq(t) => SchedKind::BypassQueue(t),
            Policy::Easy => SchedKind::Easy,
        }
    }
}

/// A job the reference ran.
#[derive(Clone, Copy)]
struct Ran {
    start: f64,
    end: f64,
    est_end: f64,
    n: u32,
    user: Option<UserId>,
}

const HALF_LIFE: f64 = 7.0 * 86_400.0;

/// The fair-share factor of every user at `t`: 2^(−U/S), U the user's decayed node-seconds over
/// everyone's (each job's integral of n·2^(−(t−x)/h) over its run up to `t`), S = 1 / users.
fn factors(w: &Workload, ran: &[Ran], t: f64) -> HashMap<Option<UserId>, f64> {
    let k = HALF_LIFE / std::f64::consts::LN_2;
    let mut usage: HashMap<Option<UserId>, f64> = w.jobs.iter().map(|j| (j.user, 0.0)).collect();
    for r in ran.iter().filter(|r| r.start < t) {
        let e = r.end.min(t);
        let decayed = (-(t - e) / HALF_LIFE).exp2() - (-(t - r.start) / HALF_LIFE).exp2();
        *usage.entry(r.user).or_default() += f64::from(r.n) * k * decayed;
    }
    let total: f64 = usage.values().sum();
    let users = usage.len() as f64;
    usage
        .into_iter()
        .map(|(u, x)| {
            (
                u,
                if total > 0.0 {
                    (-(x / total) * users).exp2()
                } else {
                    1.0
                },
            )
        })
        .collect()
}

/// The value of job `i` at `t` under order `name`, larger first, written out from
/// docs/ALGORITHMS.md (`fs`: the users' fair-share factors).
fn value(
    name: &str,
    w: &Workload,
    i: usize,
    t: f64,
    fs: &HashMap<Option<UserId>, f64>,
    machine: u32,
) -> f64 {
    let j = &w.jobs[i];
    let (wait, e, n, s) = (
        t - j.submit,
        j.estimate,
        f64::from(j.request.nodes()),
        j.submit,
    );
    match name {
        "sjf" => -e,
        "ljf" => e,
        "saf" => -(n * e),
        "laf" => n * e,
        "sqf" => -n,
        "lqf" => n,
        "xf" => (wait + e) / e.max(1.0),
        "wfp3" => {
            let r = wait / e.max(1.0);
            r * r * r * n
        }
        "unicep" => wait / (n.max(2.0).log2() * e.max(1.0)),
        "f1" => -(e.max(1.0).log10() * n + 870.0 * s.max(1.0).log10()),
        "f2" => -(e.sqrt() * n + 25600.0 * s.max(1.0).log10()),
        "f3" => -(e * n + 6_860_000.0 * s.max(1.0).log10()),
        "f4" => -(e * n.sqrt() + 530_000.0 * s.max(1.0).log10()),
        "fairshare" => fs[&j.user],
        "multifactor" => {
            // Default weights: age 1000 (max age 7 days), fair-share 10000, size 1000, queue and
            // partition 1000 × 1.
            1000.0 * (wait / (7.0 * 86_400.0)).clamp(0.0, 1.0)
                + 10_000.0 * fs[&j.user]
                + 1000.0 * (n / f64::from(machine))
                + 1000.0
                + 1000.0
        }
        _ => -s,
    }
}

/// Starts of every job of `w` on `flat:total` under `policy` in order `name`: at each instant
/// (an end or a submission), ends first, then arrivals, then one pass — again while jobs of
/// length 0 it started end within the instant.
fn reference(w: &Workload, total: u32, policy: Policy, name: &str) -> Vec<f64> {
    let mut start = vec![f64::NAN; w.jobs.len()];
    let mut ran: Vec<Ran> = Vec::new();
    let mut queue: Vec<usize> = Vec::new();
    let (mut next, mut now) = (0, f64::NEG_INFINITY);
    loop {
        let t = (ran.iter().map(|r| r.end).filter(|&e| e > now))
            .chain(w.jobs.get(next).map(|j| j.submit))
            .fold(f64::INFINITY, f64::min);
        if t.is_infinite() {
            return start;
        }
        now = t;
        while next < w.jobs.len() && w.jobs[next].submit == t {
            queue.push(next);
            next += 1;
        }
        let mut departed = ran.iter().any(|r| r.end == t);
        loop {
            let before = ran.len();
            let pass_of = Pass {
                t,
                departed,
                policy,
                name,
            };
            pass(w, total, pass_of, &mut queue, &mut ran, &mut start);
            departed = ran[before..].iter().any(|r| r.end == t);
            if !departed {
                break;
            }
        }
    }
}

/// A pass: when, whether jobs ended then, the policy and the order.
struct Pass<'a> {
    t: f64,
    departed: bool,
    policy: Policy,
    name: &'a str,
}

/// One pass: the queue in order, then the policy's rule.
fn pass(
    w: &Workload,
    total: u32,
    p: Pass,
    queue: &mut Vec<usize>,
    ran: &mut Vec<Ran>,
    start: &mut [f64],
) {
    let Pass {
        t,
        departed,
        policy,
        name,
    } = p;
    let fs = if matches!(name, "fairshare" | "multifactor") {
        factors(w, ran, t)
    } else {
        HashMap::new()
    };
    let mut ranked: Vec<(f64, usize)> = queue
        .iter()
        .map(|&i| (value(name, w, i, t, &fs, total), i))
        .collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let order: Vec<usize> = ranked.into_iter().map(|(_, i)| i).collect();
    let busy = |ran: &[Ran]| -> u32 { ran.iter().filter(|r| r.end > t).map(|r| r.n).sum() };
    let mut free = total - busy(ran);
    let mut go = |i: usize, free: &mut u32, ran: &mut Vec<Ran>| {
        let j = &w.jobs[i];
        *free -= j.request.nodes();
        start[i] = t;
        ran.push(Ran {
            start: t,
            end: t + j.runtime,
            est_end: t + j.estimate,
            n: j.request.nodes(),
            user: j.user,
        });
    };
    let mut k = 0;
    while k < order.len() && w.jobs[order[k]].request.nodes() <= free {
        go(order[k], &mut free, ran);
        k += 1;
    }
    if k < order.len() {
        let head = order[k];
        let rest = &order[k + 1..];
        match policy {
            Policy::Strict => {}
            Policy::Oo => {
                for &i in rest {
                    if w.jobs[i].request.nodes() <= free {
                        go(i, &mut free, ran);
                    }
                }
            }
            Policy::Bq(limit) => {
                if departed && t - w.jobs[head].submit < limit {
                    for &i in rest {
                        if w.jobs[i].request.nodes() <= free {
                            go(i, &mut free, ran);
                        }
                    }
                }
            }
            Policy::Easy => backfill(w, t, head, rest, &mut free, ran, &mut go),
        }
    }
    queue.retain(|&i| start[i].is_nan());
}

/// EASY's step 3 on the flat machine: the shadow time and extra nodes of `head`, then `rest` in
/// order.
fn backfill(
    w: &Workload,
    t: f64,
    head: usize,
    rest: &[usize],
    free: &mut u32,
    ran: &mut Vec<Ran>,
    go: &mut impl FnMut(usize, &mut u32, &mut Vec<Ran>),
) {
    let need = w.jobs[head].request.nodes();
    let mut ends: Vec<(f64, u32)> = ran
        .iter()
        .filter(|r| r.end > t)
        .map(|r| (r.est_end.max(t), r.n))
        .collect();
    ends.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut avail, mut shadow) = (*free, t);
    for (e, n) in ends {
        if avail >= need {
            break;
        }
        avail += n;
        shadow = e;
    }
    // Every end at the shadow time frees its nodes then.
    let at_shadow: u32 = *free
        + ran
            .iter()
            .filter(|r| r.end > t && r.est_end.max(t) <= shadow)
            .map(|r| r.n)
            .sum::<u32>();
    let mut extra = at_shadow - need;
    for &i in rest {
        let j = &w.jobs[i];
        let n = j.request.nodes();
        let short = t + j.estimate <= shadow;
        if n <= *free && (short || n <= extra) {
            if !short {
                extra -= n;
            }
            go(i, free, ran);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Random streams.

const NODES: u32 = 16;

/// Every scheduler that takes an order.
const ORDERED: [SchedKind; 6] = [
    SchedKind::Fcfs,
    SchedKind::OutOfOrder,
    SchedKind::BypassQueue(30.0),
    SchedKind::Window(3),
    SchedKind::Easy,
    SchedKind::Conservative,
];

/// Streams of up to 60 jobs: bursts at one instant, run times 1–100 s, estimates from a half to
/// four times the run time, 1–16 nodes, four users in three groups.
fn stream() -> impl Strategy<Value = Workload> {
    prop::collection::vec(
        (0u32..4, 1u32..100, 0usize..4, 1u32..=NODES, 0u32..4),
        1..60,
    )
    .prop_map(|raw| {
        let mut t = 0.0;
        let jobs: Vec<(f64, f64, Request)> = raw
            .iter()
            .map(|&(gap, run, _, n, _)| {
                t += f64::from(gap * gap);
                (t, f64::from(run), Request::Nodes(n))
            })
            .collect();
        let mut w = workload(&jobs);
        for (j, &(_, run, f, _, u)) in w.jobs.iter_mut().zip(&raw) {
            j.estimate = (f64::from(run) * [0.5, 1.0, 2.0, 4.0][f]).ceil();
            j.user = UserId::new(u);
            j.group = GroupId::new(u % 3);
        }
        w
    })
}

const ORDERS: [&str; 15] = [
    "fcfs",
    "sjf",
    "ljf",
    "saf",
    "laf",
    "sqf",
    "lqf",
    "xf",
    "wfp3",
    "unicep",
    "f1",
    "f2",
    "f3",
    "fairshare",
    "multifactor",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// At every pass no job that could start is passed over by a lower-ranked one but by the
    /// policy's rule (EASY's backfill test, OO's and the bypass queue's bypassing): the engine
    /// agrees job by job with the reference, under every named order.
    #[test]
    fn ordered_policies_match_the_reference(w in stream(), which in 0usize..4) {
        let policy = [Policy::Strict, Policy::Oo, Policy::Bq(30.0), Policy::Easy][which];
        let c = PriorityConfig::default();
        for name in ORDERS {
            // `fcfs` by name is the arrival-order policy; as `-submit` it is ranked.
            let key = if name == "fcfs" { expr("-submit") } else { named(name) };
            let out = run_ordered(&w, NODES, policy.kind(), key, &c);
            prop_assert_eq!(starts(&out), reference(&w, NODES, policy, name), "{:?} {}", policy, name);
        }
    }

    /// The ordered passes with arrival order written as an expression (`-submit`) give the
    /// arrival-order policies' schedules (no job of length 0 here: those end within the instant
    /// that started them, before the arrival-order policies' next arrival is tried). Not the
    /// bypass queue's: a newcomer that finds a queue is never tried on arrival there, but the
    /// ranked pass of an instant with a departure tries the instant's newcomers too.
    #[test]
    fn arrival_order_as_an_expression_is_the_plain_policy(w in stream()) {
        let c = PriorityConfig::default();
        for kind in [
            SchedKind::Fcfs,
            SchedKind::OutOfOrder,
            SchedKind::Window(3),
            SchedKind::Easy,
            SchedKind::Conservative,
        ] {
            let plain = run_ordered(&w, NODES, kind, named("fcfs"), &c);
            let ranked = run_ordered(&w, NODES, kind, expr("-submit"), &c);
            prop_assert_eq!(starts(&ranked), starts(&plain), "{}", kind);
        }
    }

    /// Every named order and its expression give the same schedule, under every scheduler that
    /// takes an order (`fcfs` by name is the arrival-order policy: the test above).
    #[test]
    fn named_orders_and_their_expressions_schedule_alike(w in stream()) {
        let c = PriorityConfig::default();
        for info in NAMED_ORDERS.iter().filter(|i| i.order != Named::Fcfs) {
            for kind in ORDERED {
                let by_name = run_ordered(&w, NODES, kind, Key::Named(info.order), &c);
                let by_expr = run_ordered(&w, NODES, kind, expr(info.expression), &c);
                prop_assert_eq!(&by_name.records, &by_expr.records, "{} {}", kind, info.name);
            }
        }
    }

    /// Conservative backfilling keeps its guarantee under any order: with exact estimates no
    /// reservation moves later, so every job starts by its first promised start.
    #[test]
    fn conservative_starts_every_job_by_its_first_promise(w in stream()) {
        let mut w = w;
        for j in &mut w.jobs {
            j.estimate = j.runtime;
        }
        let c = PriorityConfig::default();
        for name in ["sjf", "lqf", "wfp3", "fairshare"] {
            let out = run_ordered(&w, NODES, SchedKind::Conservative, named(name), &c);
            for (i, r) in out.records.iter().enumerate() {
                if let Some(p) = r.reserved.map(PackedTime::get) {
                    prop_assert!(r.start <= p, "{} job {}: start {} after promise {}", name, i, r.start, p);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Static orders: a ranking kept from arrival to start against one recomputed at every pass.

/// Orders of the job alone: the static named ones' expressions, and expressions with many ties
/// (a constant, a few classes), with a NaN (last), with the size and queue factors.
fn static_orders() -> Vec<&'static str> {
    let named = (NAMED_ORDERS.iter())
        .filter(|i| Key::Named(i.order).is_static())
        .map(|i| i.expression);
    let more = [
        "1",
        "min(nodes, 4)",
        "-max(estimate, 50)",
        "log2(nodes - 2)",
        "size * 100 - sqrt(estimate)",
        "queue_factor + partition_factor - nodes",
    ];
    named.chain(more).collect()
}

/// The order `e` recomputed at every pass: it reads the wait, to no effect on its values.
fn recomputed(e: &str) -> String {
    format!("({e}) + 0 * wait")
}

/// Replays `w` on `flat:NODES` under `label` with the orders `orders` defined and `semantics`,
/// validated.
fn run_label(w: &Workload, label: &str, orders: &[(&str, &str)], semantics: Semantics) -> Outcome {
    let sched: SchedKind = label.parse().expect("a label");
    let opts = ReplayOptions {
        orders: (orders.iter())
            .map(|&(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        semantics,
        ..ReplayOptions::default()
    };
    let out = replay_with(
        w,
        flat(NODES),
        sched,
        AllocKind::Flat,
        opts,
        &mut NoObserver,
    )
    .expect("replay");
    validate(w, flat(NODES), &out).expect("valid schedule");
    out
}

#[test]
fn the_orders_of_the_job_alone_are_static_and_the_others_not() {
    let static_named: Vec<&str> = (NAMED_ORDERS.iter())
        .filter(|i| Key::Named(i.order).is_static())
        .map(|i| i.name)
        .collect();
    assert_eq!(
        static_named,
        [
            "fcfs", "sjf", "ljf", "saf", "laf", "sqf", "lqf", "f1", "f2", "f3", "f4"
        ]
    );
    for e in static_orders() {
        assert!(expr(e).is_static(), "{e}");
        assert!(!expr(&recomputed(e)).is_static(), "{e}");
    }
    for e in [
        "wait",
        "now - submit",
        "age",
        "usage",
        "group_fairshare",
        "multifactor",
    ] {
        assert!(!expr(e).is_static(), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A static order's ranking, kept from arrival to start, gives the schedule of the same
    /// order recomputed at every pass, under every scheduler that takes an order (ties by
    /// arrival in both); every schedule validated.
    #[test]
    fn a_kept_ranking_schedules_as_one_recomputed_at_every_pass(w in stream()) {
        let c = PriorityConfig::default();
        for e in static_orders() {
            for kind in ORDERED {
                let kept = run_ordered(&w, NODES, kind, expr(e), &c);
                let every_pass = run_ordered(&w, NODES, kind, expr(&recomputed(e)), &c);
                prop_assert_eq!(&kept.records, &every_pass.records, "{} {}", kind, e);
            }
        }
    }

    /// The same when predictions change the waiting jobs' estimates at every pass (EASY reads
    /// them again, and ranks the jobs anew).
    #[test]
    fn a_kept_ranking_follows_estimates_predicted_again(w in stream()) {
        let mut w = w;
        w.set_estimates(EstimateModel::Predict(Correction::Steps));
        let every = Semantics {
            prediction: Prediction::EveryPass,
            ..Semantics::default()
        };
        for e in ["-estimate", "-(nodes * estimate)", "min(nodes, 4) - log10(max(estimate, 1))"] {
            let orders = [("kept", e), ("recomputed", &recomputed(e))];
            for kind in ["easy", "fcfs", "conservative"] {
                let kept = run_label(&w, &format!("{kind}:order=kept"), &orders, every);
                let again = run_label(&w, &format!("{kind}:order=recomputed"), &orders, every);
                prop_assert_eq!(&kept.records, &again.records, "{} {}", kind, e);
            }
        }
    }
}

/// The invariant of the ordered passes, read off a schedule of `w` on `flat:NODES` under strict
/// priority or EASY in order `name`: at every instant with an arrival or an end (a pass), the
/// jobs started then and those still waiting after it, ranked by their values then (ties in
/// arrival order), are served so that no job that could start is passed over by a lower-ranked
/// one but by the backfill rule:
///
/// * the tops — the jobs ranked above the first one left waiting (the head) — all started, and
///   the head does not fit the nodes they leave free (under strict priority nothing else starts);
/// * under EASY every job ranked below the head started iff, at its turn, it fits the free nodes
///   and ends by its estimate no later than the head's reservation (the running jobs' estimated
///   ends, a job past its estimate ending now) or fits in the nodes the head leaves spare then.
///
/// The fair-share factors are integrated from the schedule's own starts and ends. Returns the
/// first violation.
fn passed_over(w: &Workload, out: &Outcome, policy: Policy, name: &str) -> Option<String> {
    let ran: Vec<Ran> = (out.records.iter().zip(&w.jobs))
        .map(|(r, j)| Ran {
            start: r.start,
            end: r.end,
            est_end: r.start + j.estimate,
            n: j.request.nodes(),
            user: j.user,
        })
        .collect();
    let mut instants: Vec<f64> = (w.jobs.iter().map(|j| j.submit))
        .chain(ran.iter().map(|r| r.end))
        .collect();
    instants.sort_by(f64::total_cmp);
    instants.dedup();
    for t in instants {
        let fs = factors(w, &ran, t);
        let mut queue: Vec<(f64, usize)> = (0..w.jobs.len())
            .filter(|&i| w.jobs[i].submit <= t && ran[i].start >= t)
            .map(|i| (value(name, w, i, t, &fs, NODES), i))
            .collect();
        queue.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let started = |i: usize| ran[i].start == t;
        let before: Vec<Ran> = ran
            .iter()
            .copied()
            .filter(|r| r.start < t && r.end > t)
            .collect();
        let mut free = NODES - before.iter().map(|r| r.n).sum::<u32>();
        let tops = queue.iter().take_while(|&&(_, i)| started(i)).count();
        for &(_, i) in &queue[..tops] {
            free -= ran[i].n;
        }
        let Some(&(_, head)) = queue.get(tops) else {
            continue;
        };
        if ran[head].n <= free {
            return Some(format!("{name} at {t}: head {head} fits {free} free nodes"));
        }
        let rest = &queue[tops + 1..];
        if policy == Policy::Strict {
            match rest.iter().find(|&&(_, i)| started(i)) {
                Some(&(_, i)) => return Some(format!("{name} at {t}: {i} started over {head}")),
                None => continue,
            }
        }
        let running = before
            .iter()
            .chain(queue[..tops].iter().map(|&(_, i)| &ran[i]));
        let mut ends: Vec<(f64, u32)> = running.map(|r| (r.est_end.max(t), r.n)).collect();
        ends.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (mut at, mut shadow) = (free, t);
        for &(e, n) in &ends {
            if at >= ran[head].n {
                break;
            }
            (at, shadow) = (at + n, e);
        }
        // The machine at the shadow time: every job estimated to end by then has.
        at = free
            + ends
                .iter()
                .filter(|e| e.0 <= shadow)
                .map(|e| e.1)
                .sum::<u32>();
        let mut extra = at - ran[head].n;
        for &(_, i) in rest {
            let (n, short) = (ran[i].n, t + w.jobs[i].estimate <= shadow);
            let may = n <= free && (short || n <= extra);
            if may != started(i) {
                return Some(format!(
                    "{name} at {t}: job {i} may start {may}, started {}",
                    started(i)
                ));
            }
            if may {
                free -= n;
                extra -= if short { 0 } else { n };
            }
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The invariant itself, read off the schedules (every one validated): under strict priority
    /// and EASY no job that could start is passed over by a lower-ranked one but by the backfill
    /// rule ([`passed_over`]), under orders that read the job, the wait and the users' usage;
    /// under OO no waiting job fits the nodes left free at any instant.
    #[test]
    fn no_job_that_could_start_is_passed_over(w in stream()) {
        let c = PriorityConfig::default();
        for name in ["sjf", "lqf", "xf", "wfp3", "unicep", "f1", "fairshare", "multifactor"] {
            for policy in [Policy::Strict, Policy::Easy] {
                let out = run_ordered(&w, NODES, policy.kind(), named(name), &c);
                let violation = passed_over(&w, &out, policy, name);
                prop_assert!(violation.is_none(), "{:?} {}", policy, violation.unwrap_or_default());
            }
            let oo = run_ordered(&w, NODES, SchedKind::OutOfOrder, named(name), &c);
            let runs: Vec<(f64, f64, u32)> = (oo.records.iter().zip(&w.jobs))
                .map(|(r, j)| (r.start, r.end, j.request.nodes()))
                .collect();
            for &t in runs.iter().map(|(_, e, _)| e).chain(w.jobs.iter().map(|j| &j.submit)) {
                let busy: u32 = runs.iter().filter(|r| r.0 <= t && t < r.1).map(|r| r.2).sum();
                for (k, r) in runs.iter().enumerate() {
                    let waiting = w.jobs[k].submit <= t && r.0 > t;
                    prop_assert!(!waiting || r.2 > NODES - busy, "{}: job {} fits at {}", name, k, t);
                }
            }
        }
    }
}

/// The invariant's check catches what it should: the arrival-order schedules of a burst read
/// as SJF schedules pass a long job over a short one.
#[test]
fn the_invariant_check_finds_a_job_passed_over() {
    // 16 nodes: job 0 holds 12 until 10; at 1 a 4-node job of 50 s, then one of 5 s, arrive; at
    // 2 a 16-node job. Arrival order starts job 1 at 1 on the 4 free nodes; under SJF job 2
    // (shorter) outranks it and fits as well.
    let w = workload(&[
        (0.0, 10.0, nodes(12)),
        (1.0, 50.0, nodes(4)),
        (1.0, 5.0, nodes(4)),
        (2.0, 10.0, nodes(16)),
    ]);
    let c = PriorityConfig::default();
    for policy in [Policy::Strict, Policy::Easy] {
        let sjf = run_ordered(&w, NODES, policy.kind(), named("sjf"), &c);
        assert_eq!(passed_over(&w, &sjf, policy, "sjf"), None, "{policy:?}");
        let fcfs = run_ordered(&w, NODES, policy.kind(), named("fcfs"), &c);
        let found = passed_over(&w, &fcfs, policy, "sjf").expect("job 2 passed over");
        assert!(found.starts_with("sjf at 1:"), "{found}");
    }
}

// ---------------------------------------------------------------------------------------------
// Hand-worked examples.

fn nodes(n: u32) -> Request {
    Request::Nodes(n)
}

/// 10 nodes: job 0 holds 6 until 10; at 1 three jobs arrive together — 8 nodes for 50 s, 4 nodes
/// for 5 s, 4 nodes for 20 s.
fn three_at_once() -> Workload {
    workload(&[
        (0.0, 10.0, nodes(6)),
        (1.0, 50.0, nodes(8)),
        (1.0, 5.0, nodes(4)),
        (1.0, 20.0, nodes(4)),
    ])
}

#[test]
fn strict_priority_stops_at_the_first_job_that_does_not_fit() {
    let w = three_at_once();
    let c = PriorityConfig::default();
    // SJF: jobs 2 (5 s) then 3 (20 s) fit the 4 free nodes one at a time; job 1 (8 nodes) last.
    let sjf = run_ordered(&w, 10, SchedKind::Fcfs, named("sjf"), &c);
    assert_eq!(starts(&sjf), [0.0, 26.0, 1.0, 6.0]);
    // LQF: job 1 (8 nodes) first: it does not fit, and blocks the two small ones until it starts
    // at 10; they follow at its end.
    let lqf = run_ordered(&w, 10, SchedKind::Fcfs, named("lqf"), &c);
    assert_eq!(starts(&lqf), [0.0, 10.0, 60.0, 60.0]);
    // OO in LQF order: job 1 does not fit, job 2 does (4 free), job 3 takes its nodes at 6 and
    // job 1 (8 nodes) is overtaken until 26.
    let oo = run_ordered(&w, 10, SchedKind::OutOfOrder, named("lqf"), &c);
    assert_eq!(starts(&oo), [0.0, 26.0, 1.0, 6.0]);
}

#[test]
fn easy_reserves_for_the_top_and_backfills_in_order() {
    let w = three_at_once();
    let c = PriorityConfig::default();
    // LQF: job 1 is the head, reserved at 10 with 10 − 8 = 2 extra nodes. Job 2 (5 s, 4 nodes)
    // ends by 6 ≤ 10: backfilled; job 3 (20 s) would outlast 10 on 4 > 2 nodes: waits for job 1.
    let lqf = run_ordered(&w, 10, SchedKind::Easy, named("lqf"), &c);
    assert_eq!(starts(&lqf), [0.0, 10.0, 1.0, 60.0]);
    assert_eq!(lqf.records[1].reserved.map(PackedTime::get), Some(10.0));
    // LJF: job 1 (50 s) first as well, then job 3 (20 s), then job 2: job 3 is tried first and
    // refused, job 2 backfills.
    let ljf = run_ordered(&w, 10, SchedKind::Easy, named("ljf"), &c);
    assert_eq!(starts(&ljf), [0.0, 10.0, 1.0, 60.0]);
}

/// WFP3 recomputed at each pass: a long wait overtakes a small job's head start.
#[test]
fn wfp3_values_grow_with_the_wait() {
    // 4 nodes. Job 0 holds all 4 until 100. Job 1 (4 nodes, estimate 100) waits from 0; job 2
    // (1 node, estimate 100) arrives at 90. At 100: WFP3 of job 1 = (100/100)³·4 = 4, of job 2
    // (10/100)³·1 = 0.001: job 1 first, job 2 after it.
    let w = workload(&[
        (0.0, 100.0, nodes(4)),
        (0.0, 100.0, nodes(4)),
        (90.0, 100.0, nodes(1)),
    ]);
    let c = PriorityConfig::default();
    let out = run_ordered(&w, 4, SchedKind::Fcfs, named("wfp3"), &c);
    assert_eq!(starts(&out), [0.0, 100.0, 200.0]);
    // Under SQF job 2 (1 node) goes first at 100 and job 1 waits for it.
    let sqf = run_ordered(&w, 4, SchedKind::Fcfs, named("sqf"), &c);
    assert_eq!(starts(&sqf), [0.0, 200.0, 100.0]);
}

/// 4 nodes. User 1 runs job 0 (4 nodes, 1000 s); at 500 user 1 submits job 1 and at 600 user 2
/// submits job 2, both 4 nodes and 100 s.
fn two_users_one_heavy() -> Workload {
    let mut w = workload(&[
        (0.0, 1000.0, nodes(4)),
        (500.0, 100.0, nodes(4)),
        (600.0, 100.0, nodes(4)),
    ]);
    for (j, u) in w.jobs.iter_mut().zip([1, 1, 2]) {
        j.user = UserId::new(u);
    }
    w
}

/// Two users, one heavy: after the heavy user's long job, the light user's waiting job goes
/// first under fair-share even though it arrived later.
#[test]
fn fair_share_serves_the_light_user_first() {
    // 4 nodes. User 1 runs job 0 (4 nodes, 1000 s). At 500 user 1 submits job 1 and at 600 user 2
    // submits job 2, both 4 nodes. At 1000 user 1 has all the usage (U = 1, S = ½, F = 1/4),
    // user 2 none (F = 1): job 2 starts at 1000, job 1 after it.
    let w = two_users_one_heavy();
    let c = PriorityConfig::default();
    let fs = run_ordered(&w, 4, SchedKind::Fcfs, named("fairshare"), &c);
    assert_eq!(starts(&fs), [0.0, 1100.0, 1000.0]);
    // With 9 shares of 10 for user 1 its factor is 2^(−1/0.9) ≈ 0.46 against user 2's 1: still
    // user 2 first. The shares of a user the log lacks are refused.
    let mut c = PriorityConfig {
        shares: Some("user 1 9\nuser 2 1\n".parse().expect("shares")),
        ..PriorityConfig::default()
    };
    let fs = run_ordered(&w, 4, SchedKind::Fcfs, named("fairshare"), &c);
    assert_eq!(starts(&fs), [0.0, 1100.0, 1000.0]);
    c.shares = Some("user 1 9\nuser 7 1\n".parse().expect("shares"));
    let e = SchedKind::Fcfs
        .build_ordered(named("fairshare"), &c, &w)
        .err()
        .expect("user 7 submits nothing")
        .to_string();
    assert_eq!(
        e,
        "shares file, line 2: user 7 submits no job in this workload"
    );
    // FCFS keeps arrival order.
    let fcfs = run_ordered(
        &w,
        4,
        SchedKind::Fcfs,
        named("fcfs"),
        &PriorityConfig::default(),
    );
    assert_eq!(starts(&fcfs), [0.0, 1000.0, 1100.0]);
}

/// Multifactor's age factor overtakes fair-share once the wait is long enough: a weight on age
/// alone is FCFS.
#[test]
fn multifactor_weights_choose_the_order() {
    let w = two_users_one_heavy();
    let mut c = PriorityConfig {
        weights: "age=1000,fairshare=0,size=0,queue=0,partition=0"
            .parse()
            .expect("weights"),
        ..PriorityConfig::default()
    };
    let age = run_ordered(&w, 4, SchedKind::Fcfs, named("multifactor"), &c);
    assert_eq!(starts(&age), [0.0, 1000.0, 1100.0]);
    c.weights = "age=1000,fairshare=10000".parse().expect("weights");
    let fs = run_ordered(&w, 4, SchedKind::Fcfs, named("multifactor"), &c);
    assert_eq!(starts(&fs), [0.0, 1100.0, 1000.0]);
}

/// Conservative backfilling re-makes its reservations at compression in rank order.
#[test]
fn conservative_compresses_in_rank_order() {
    // 4 nodes. Job 0 holds 4 until 100 (estimate 1000: its early end compresses the plan). Jobs
    // 1 (4 nodes, 50 s) and 2 (4 nodes, 10 s) wait, reserved at 1000 and 1050 in arrival order.
    // At 100 the plan is compressed: in arrival order job 1 takes 100; under SJF job 2 is re-made
    // first and takes 100, job 1 follows at 110.
    let mut w = workload(&[
        (0.0, 100.0, nodes(4)),
        (1.0, 50.0, nodes(4)),
        (2.0, 10.0, nodes(4)),
    ]);
    w.jobs[0].estimate = 1000.0;
    let c = PriorityConfig::default();
    let fcfs = run_ordered(&w, 4, SchedKind::Conservative, named("fcfs"), &c);
    assert_eq!(starts(&fcfs), [0.0, 100.0, 150.0]);
    let sjf = run_ordered(&w, 4, SchedKind::Conservative, named("sjf"), &c);
    assert_eq!(starts(&sjf), [0.0, 110.0, 100.0]);
    assert_eq!(sjf.records[2].reserved.map(PackedTime::get), Some(1050.0));
}

/// Window-K keeps its window by arrival and tries its jobs in rank order.
#[test]
fn window_tries_its_jobs_in_rank_order() {
    // 4 nodes, window of 2. Job 0 holds 4 until 10. At 1 jobs 1 (3 nodes), 2 (2 nodes), 3 (1 node)
    // arrive. At 10 the window is jobs 1 and 2: under SQF job 2 starts first, then job 1 does not
    // fit (2 left); job 3 is outside the window (it admits only when job 1, its head, starts).
    let w = workload(&[
        (0.0, 10.0, nodes(4)),
        (1.0, 10.0, nodes(3)),
        (1.0, 10.0, nodes(2)),
        (1.0, 10.0, nodes(1)),
    ]);
    let c = PriorityConfig::default();
    let sqf = run_ordered(&w, 4, SchedKind::Window(2), named("sqf"), &c);
    assert_eq!(starts(&sqf), [0.0, 20.0, 10.0, 20.0]);
    let fcfs = run_ordered(&w, 4, SchedKind::Window(2), named("fcfs"), &c);
    assert_eq!(starts(&fcfs), [0.0, 10.0, 20.0, 10.0]);
}

#[test]
fn schedulers_without_a_queue_order_refuse_one() {
    let w = three_at_once();
    let c = PriorityConfig::default();
    for kind in [
        SchedKind::Lazy,
        SchedKind::Oocb(2),
        SchedKind::Delay,
        SchedKind::Static,
    ] {
        let e = kind
            .build_ordered(named("sjf"), &c, &w)
            .err()
            .expect("no order");
        assert!(matches!(e, OrderError::NoOrder(_)), "{kind}");
        assert!(e.to_string().contains("takes no queue order"), "{e}");
    }
    assert!(SchedKind::Easy.takes_order() && !SchedKind::EasySjbf.takes_order());
}

// ---------------------------------------------------------------------------------------------
// Real logs.

/// A catalogued log converted for `machine` (its own when `None`), its first `jobs` jobs, user
/// estimates (`None` when the log is not on the search path).
fn log(name: &str, machine: Option<MachineSpec>, jobs: usize) -> Option<(Workload, u32)> {
    let entry = Catalog::builtin().get(name)?.clone();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let Some(path) = SearchPath::new(None, &[root]).find(&entry.file) else {
        eprintln!("{name} not on the search path: not checked");
        return None;
    };
    let (_, recs, _) = read_all(&path, ReadOptions::strict()).ok()?;
    let mut conv = entry.conversion.clone();
    if let Some(m) = machine {
        conv.machine = m;
        conv.shape = ShapeRule::default_for(m);
    }
    let mut w = conv.apply(recs.iter().take(jobs)).ok()?.workload;
    w.set_estimates(EstimateModel::User);
    Some((w, conv.machine.nodes()))
}

/// Strict priority and EASY under several orders on slices of CTC-SP2, KTH-SP2, HPC2N and
/// SDSC-BLUE (on a flat machine of its 144 nodes), user estimates: job by job as the reference.
#[test]
fn real_logs_match_the_reference_job_by_job() {
    let logs = [
        ("ctc-sp2", None),
        ("kth-sp2", None),
        ("hpc2n", None),
        ("sdsc-blue", Some(flat(144))),
    ];
    let c = PriorityConfig::default();
    for (name, machine) in logs {
        let Some((w, n)) = log(name, machine, 2500) else {
            continue;
        };
        let w = w.scaled(1.2).expect("load factor");
        for order in ["sjf", "wfp3", "unicep", "f1", "fairshare"] {
            for policy in [Policy::Strict, Policy::Easy] {
                let out = run_ordered(&w, n, policy.kind(), named(order), &c);
                let want = reference(&w, n, policy, order);
                let got = starts(&out);
                let first = (0..w.jobs.len()).find(|&i| got[i] != want[i]);
                assert_eq!(
                    first, None,
                    "{name} {policy:?} {order}: first different job"
                );
            }
        }
    }
}

/// Every named order equals its expression on a real log, under every scheduler with an order.
#[test]
fn named_orders_and_expressions_agree_on_a_real_log() {
    let Some((w, n)) = log("kth-sp2", None, 3000) else {
        return;
    };
    let c = PriorityConfig::default();
    for info in NAMED_ORDERS.iter().filter(|i| i.order != Named::Fcfs) {
        for kind in [SchedKind::Fcfs, SchedKind::Easy, SchedKind::Conservative] {
            let a = run_ordered(&w, n, kind, Key::Named(info.order), &c);
            let b = run_ordered(&w, n, kind, expr(info.expression), &c);
            assert_eq!(a.records, b.records, "{kind} {}", info.name);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Priority functions: the values from a callback, ranked as every order's.

/// A priority function of the job's submit time, estimate and nodes and of the moment.
#[derive(Clone, Copy)]
struct Formula {
    is_static: bool,
    f: fn(f64, f64, f64, f64) -> f64,
}

impl PriorityFn for Formula {
    fn is_static(&self) -> bool {
        self.is_static
    }

    fn start(&self) -> Box<dyn Priorities> {
        Box::new(FormulaRun {
            formula: *self,
            waiting: HashMap::new(),
        })
    }
}

/// One replay of a [`Formula`]: the jobs told, by id (submit, estimate, nodes).
struct FormulaRun {
    formula: Formula,
    waiting: HashMap<JobId, (f64, f64, f64)>,
}

impl Priorities for FormulaRun {
    fn arrived(&mut self, job: &Job, _now: f64) {
        let facts = (job.submit, job.estimate, f64::from(job.request.nodes()));
        self.waiting.insert(job.id, facts);
    }

    fn values(&mut self, now: f64, jobs: &[JobId], out: &mut Vec<f64>) {
        out.clear();
        // Window-K asks for its started jobs too (their values are not used).
        out.extend(jobs.iter().map(|id| match self.waiting.get(id) {
            Some(&(submit, estimate, nodes)) => (self.formula.f)(submit, estimate, nodes, now),
            None => f64::NAN,
        }));
    }

    fn started(&mut self, job: JobId) {
        assert!(
            self.waiting.remove(&job).is_some(),
            "started once, after arriving"
        );
    }
}

/// SJF, static (asked at arrival) or not, and WFP3 as functions.
const SJF: fn(f64, f64, f64, f64) -> f64 = |_, estimate, _, _| -estimate;
const WFP3: fn(f64, f64, f64, f64) -> f64 = |submit, estimate, nodes, now| {
    let r = (now - submit) / estimate.max(1.0);
    r * r * r * nodes
};

/// The order of a [`Formula`] named `py:f.py:score`, resolved through a configuration.
fn function(f: Formula) -> (Key, PriorityConfig) {
    let mut c = PriorityConfig::default();
    c.functions.insert("py:f.py:score", Arc::new(f));
    let key = c.resolve("py:f.py:score").expect("given");
    (key, c)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// A function giving a named order's values schedules as the named order, under every
    /// scheduler that takes an order, whether static or asked at every pass.
    #[test]
    fn priority_functions_schedule_as_the_named_orders(w in stream()) {
        let c = PriorityConfig::default();
        for (formula, order) in [
            (Formula { is_static: true, f: SJF }, "sjf"),
            (Formula { is_static: false, f: SJF }, "sjf"),
            (Formula { is_static: false, f: WFP3 }, "wfp3"),
        ] {
            let (key, with_fn) = function(formula);
            for kind in ORDERED {
                let by_name = run_ordered(&w, NODES, kind, named(order), &c);
                let by_fn = run_ordered(&w, NODES, kind, key.clone(), &with_fn);
                prop_assert_eq!(&by_name.records, &by_fn.records, "{} {}", kind, order);
            }
        }
    }
}

/// A label's `order=py:PATH:FUNCTION` resolves to the function given under that name; without
/// one, the replay is refused in one line.
#[test]
fn a_label_names_its_priority_function() {
    let w = three_at_once();
    let kind: SchedKind = "easy:order=py:policies/prio.py:score"
        .parse()
        .expect("label");
    assert_eq!(kind.to_string(), "easy:order=py:policies/prio.py:score");
    let e = kind
        .build_with(&w, &PriorityConfig::default())
        .err()
        .expect("no function given")
        .to_string();
    assert!(
        e.starts_with("order `py:policies/prio.py:score` is a Python priority function")
            && !e.contains('\n'),
        "{e}"
    );
    let mut c = PriorityConfig::default();
    let sjf = Formula {
        is_static: true,
        f: SJF,
    };
    c.functions
        .insert("py:policies/prio.py:score", Arc::new(sjf));
    let m = flat(NODES);
    for (label, order) in [
        ("easy:order=py:policies/prio.py:score", "easy:order=sjf"),
        ("fcfs:order=py:policies/prio.py:score", "fcfs:order=sjf"),
    ] {
        let run = |label: &str| {
            let s = (label.parse::<SchedKind>().expect(label))
                .build_with(&w, &c)
                .expect("built");
            Engine::new(&w, s, AllocKind::Flat.build(m).expect("flat"))
                .run(&mut NoObserver)
                .expect("replay")
        };
        assert_eq!(run(label).records, run(order).records, "{label}");
    }
}
