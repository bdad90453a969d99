//! The executor against hand-checked expectations: determinism, climbing, sharing, shards.

use std::sync::Mutex;

use super::external::{External, replay_instance};
use super::plan::Policy;
use super::run::{self, Prepared, Source, Unit};
use super::{Plan, figures, verdicts};
use crate::resource::MachineSpec;
use crate::sweep::CellError;
use crate::workload::rewrite::InputRewrite;

/// `synth:` labels as models; `log:LABEL` as the model's one stream, as a log would be.
struct Models;

impl Source for Models {
    fn prepare(
        &self,
        label: &str,
        machine: Option<MachineSpec>,
        jobs: Option<usize>,
        _: InputRewrite,
    ) -> Result<Prepared, CellError> {
        match label.strip_prefix("log:") {
            Some(model) => {
                let (spec, seed) = crate::workload::synth::SynthSpec::from_label(model)?;
                let mut w = spec.generate(seed)?;
                if let Some(n) = jobs {
                    w.jobs.truncate(n);
                }
                Ok(Prepared::Log {
                    workload: std::sync::Arc::new(w),
                    machine: machine.unwrap_or(MachineSpec::Mesh { size: spec.mesh }),
                })
            }
            None => Prepared::synthetic(label, machine),
        }
    }
}

const STUDY: &str = r#"
[[panel]]
name = "rate"
workload = "synth:uniform,mesh=8x8,jobs=300,rate={x}"
seed_key = "uniform/8x8/rate={x}"
sched = ["fcfs", "oo", "window:10"]
alloc = ["ff"]
x = { name = "rate", values = [0.5, 1, 2, 4, 8, 16] }
replicate = { half_width = 0.05, min = 2, max = 6 }
stop = { above = 20, margin = 1 }

[[panel]]
name = "window"
workload = "synth:uniform,mesh=8x8,jobs=300,rate=2"
seed_key = "uniform/8x8/rate=2"
x = { name = "window", values = [1, 5, 20] }
replicate = { count = 3 }
[[panel.series]]
sched = "window:{x}"
alloc = "ff"
label = "window:K+ff"
[[panel.series]]
sched = "fcfs"
alloc = "ff"

[[panel]]
name = "log"
workload = "log:synth:uniform,mesh=8x8,jobs=400,rate=1.5"
sched = ["fcfs", "easy"]
alloc = ["ff"]
x = { values = [0.5, 1.0, 1.5] }
replicate = { count = 3 }
shake = { submit_s = 5 }

[[figure]]
name = "turnaround"
panel = "rate"
y = "mean_turnaround_s"

[[figure]]
name = "k"
panel = "window"
y = "max_wait_s"

[[claim]]
figure = "turnaround"
statement = "FCFS saturates first."
predicate = "saturates_first"
series = "fcfs+ff"

[[claim]]
figure = "turnaround"
statement = "Two things at once: FCFS equals itself, and is strictly below itself."
note = "(the second cannot hold)"
[[claim.check]]
predicate = "within"
a = "fcfs+ff"
b = "fcfs+ff"
tolerance = 0
[[claim.check]]
predicate = "below"
a = "fcfs+ff"
b = "fcfs+ff"
strict = 1
"#;

/// The results with the wall-clock fields (the only non-deterministic ones) zeroed.
fn run_all(plan: &Plan, units: &[Unit], threads: usize) -> run::Results {
    let mut r = run::run(
        plan,
        units,
        &Models,
        &|_, compute| compute(),
        &|_| {},
        threads,
    )
    .unwrap();
    for m in r.cells.values_mut().flatten() {
        m.alloc_time_s = 0.0;
        m.sim_wall_s = 0.0;
    }
    r
}

#[test]
fn parallel_runs_equal_serial_ones_and_shards_merge_to_the_whole() {
    let plan = Plan::new("s.toml", STUDY, false).unwrap();
    let units = plan.units();
    assert_eq!(units.len(), 3 + 2 + 2);
    let serial = run_all(&plan, &units, 1);
    let parallel = run_all(&plan, &units, 2);
    assert_eq!(serial, parallel);
    let mut merged = run::Results::default();
    for i in 0..3 {
        let part: Vec<Unit> = plan.shard(i, 3).into_iter().map(|n| units[n]).collect();
        merged.merge(run_all(&plan, &part, 2)).unwrap();
    }
    assert_eq!(merged, serial);
    assert!(merged.merge(run_all(&plan, &units[..1], 1)).is_err());
    assert_eq!(figures(&plan, &merged), figures(&plan, &serial));
}

#[test]
fn series_climb_until_past_their_threshold_and_share_cells() {
    let plan = Plan::new("s.toml", STUDY, false).unwrap();
    let r = run_all(&plan, &plan.units(), 2);
    let figs = figures(&plan, &r);
    let t = &figs[0];
    for s in t.series() {
        let c = t.curve(&s);
        // Stopped one point past the first mean turnaround above 20, or at the end of the list.
        match c.iter().position(|&(_, y)| y > 20.0) {
            Some(i) => assert_eq!(c.len(), (i + 2).min(6), "{s}: {c:?}"),
            None => assert_eq!(c.len(), 6, "{s}"),
        }
    }
    assert!(
        t.curve("fcfs+ff").len() < 6,
        "FCFS saturates inside the range"
    );
    // Replications until the 5% rule, between 2 and 6.
    assert!(t.points.iter().all(|p| (2..=6).contains(&p.est.n)));
    // FCFS on the K axis is one cell at every K: the same replicas, computed once.
    let k = &figs[1];
    let fcfs = k.curve("fcfs+ff");
    assert_eq!(fcfs.len(), 3);
    assert!(fcfs.iter().all(|p| p.1 == fcfs[0].1));
    assert_eq!(r.replicas(1, 1, 1.0), r.replicas(1, 1, 20.0));
    let v = verdicts(&plan, &figs);
    assert_eq!(v.len(), 2);
    assert!(v[0].holds.is_some() && v[0].measured.starts_with("saturates_first"));
    // A claim of several checks: all must hold; each one's measurement, then the note.
    assert_eq!(v[1].holds, Some(false));
    assert!(
        v[1].measured.starts_with("within: ")
            && v[1].measured.contains("; below: ")
            && v[1].measured.ends_with(". (the second cannot hold)"),
        "{}",
        v[1].measured
    );
}

#[test]
fn seeds_are_common_to_the_series_of_a_panel() {
    let plan = Plan::new("s.toml", STUDY, false).unwrap();
    let r = run_all(&plan, &plan.units(), 2);
    // At the lightest rate FCFS and OO run the same stream and nothing waits long: the same
    // jobs give the same utilization.
    let fcfs = r.replicas(0, 0, 0.5).unwrap();
    let oo = r.replicas(0, 1, 0.5).unwrap();
    assert_eq!(fcfs[0].jobs, oo[0].jobs);
    assert_eq!(fcfs[0].utilization, oo[0].utilization);
    // The shaken log's replicas differ from each other, and FCFS/EASY share each replica's input.
    let log = r.replicas(2, 0, 1.0).unwrap();
    assert_eq!(log.len(), 3);
    assert_ne!(log[0].mean_turnaround_s, log[1].mean_turnaround_s);
}

#[test]
fn independent_mistakes_of_panels_figures_and_claims_are_reported_together() {
    let text = STUDY
        .replace("shake = { submit_s = 5 }\n", "")
        .replace(r#"sched = ["fcfs", "easy"]"#, r#"sched = ["fcfs", "eazy"]"#)
        .replace(r#"y = "max_wait_s""#, r#"y = "max_wait""#)
        .replace(r#"series = "fcfs+ff""#, r#"series = "fcfs+f""#);
    let e = Plan::new("s.toml", &text, false).unwrap_err();
    let keys: Vec<(&str, usize)> = e.each().map(|e| (e.key.as_str(), e.line)).collect();
    let line = |needle: &str| 1 + text.lines().position(|l| l.contains(needle)).unwrap();
    assert_eq!(
        keys,
        [
            ("sched", line("\"eazy\"")),
            // The log panel's `replicate`.
            ("replicate", 32),
            ("y", line("\"max_wait\"")),
            ("predicate", line("\"saturates_first\"")),
        ],
        "{e}"
    );
    assert_eq!(e.to_string().lines().count(), 4, "one line each: {e}");
    // A figure of a panel that failed, and a claim of a figure that failed, are not checked: the
    // panel's mistake is the one to fix.
    let text = STUDY.replace(
        r#"values = [0.5, 1, 2, 4, 8, 16]"#,
        r#"values = [0.5, 1, 2, 4, 8, 16], quick = "x""#,
    );
    let e = Plan::new("s.toml", &text, true).unwrap_err();
    assert_eq!((e.key.as_str(), e.more.len()), ("values", 0), "{e}");
}

#[test]
fn a_log_replicated_without_shaking_is_refused_with_its_line() {
    let text = STUDY.replace("shake = { submit_s = 5 }\n", "");
    let e = Plan::new("s.toml", &text, false).unwrap_err();
    assert_eq!(e.key, "replicate");
    assert!(e.line > 0 && e.message.contains("unless shaken"), "{e}");
    // A model's replicas differ by seed: shaking from [defaults] reaches the log, not the models.
    let text = format!("[defaults]\nshake = {{ submit_s = 5 }}\n{text}");
    let plan = Plan::new("s.toml", &text, false).unwrap();
    let shaken: Vec<bool> = plan.panels.iter().map(|p| p.shake.is_some()).collect();
    assert_eq!(shaken, [false, false, true]);
}

#[test]
fn the_hook_sees_every_replica_and_may_answer_for_it() {
    let plan = Plan::new("s.toml", STUDY, false).unwrap();
    let units: Vec<Unit> = plan
        .units()
        .into_iter()
        .filter(|u| matches!(u, Unit::Line { panel: 1, .. }))
        .collect();
    let seen = Mutex::new(Vec::new());
    let hook = |r: &run::Replica<'_>,
                compute: &dyn Fn() -> Result<crate::engine::RunMetrics, CellError>| {
        seen.lock().unwrap().push((r.cell.id(), r.seed));
        compute()
    };
    let first = run::run(&plan, &units, &Models, &hook, &|_| {}, 2).unwrap();
    // 3 K values × 3 replicas for Window-K, one cell × 3 for FCFS.
    assert_eq!(seen.lock().unwrap().len(), 12);
    let cached = |_: &run::Replica<'_>,
                  _: &dyn Fn() -> Result<crate::engine::RunMetrics, CellError>| {
        Ok(crate::engine::RunMetrics {
            jobs: 1,
            ..Default::default()
        })
    };
    let from_cache = run::run(&plan, &units, &Models, &cached, &|_| {}, 2).unwrap();
    assert_eq!(from_cache.lines, first.lines);
    assert!(from_cache.cells.values().flatten().all(|m| m.jobs == 1));
}

#[test]
fn the_docs_name_every_predicate_and_measure() {
    let docs = include_str!("../../docs/EXPERIMENTS.md");
    for p in super::predicate::PREDICATES {
        assert!(docs.contains(&format!("| `{}` |", p.name)), "{}", p.name);
        for param in p.params {
            assert!(
                docs.contains(&format!("`{}`", param.name)),
                "{}",
                param.name
            );
        }
    }
    for m in super::measure::MEASURES.iter() {
        assert!(docs.contains(&format!("`{}`", m.name)), "{}", m.name);
    }
}

#[test]
fn cells_that_run_out_of_replications_before_their_interval_are_reported() {
    let text = STUDY.replacen(
        "replicate = { half_width = 0.05, min = 2, max = 6 }",
        "replicate = { half_width = 0.0001, min = 2, max = 3 }",
        1,
    );
    let plan = Plan::new("s.toml", &text, false).unwrap();
    let units: Vec<Unit> = plan
        .units()
        .into_iter()
        .filter(|u| matches!(u, Unit::Line { panel: 0, .. }))
        .collect();
    let r = run::run(&plan, &units, &Models, &|_, c| c(), &|_| {}, 1).unwrap();
    let unmet = super::unmet(&plan, &r);
    let cells: usize = r.lines.values().map(Vec::len).sum();
    assert_eq!(
        unmet.len(),
        cells,
        "a 0.01% interval is out of reach in 3 replicas"
    );
    assert!(
        unmet
            .iter()
            .all(|u| u.replicas == 3 && u.reached > u.target)
    );
    // A fixed count asks for no interval.
    let text = STUDY.replacen(
        "replicate = { half_width = 0.05, min = 2, max = 6 }",
        "replicate = { count = 2 }",
        1,
    );
    let plan = Plan::new("s.toml", &text, false).unwrap();
    let r = run::run(&plan, &units, &Models, &|_, c| c(), &|_| {}, 1).unwrap();
    assert!(super::unmet(&plan, &r).is_empty());
}

#[test]
fn shards_partition_the_units_and_balance_their_cost() {
    let plan = Plan::new("s.toml", STUDY, false).unwrap();
    let units = plan.units();
    for count in 1..=4 {
        let parts: Vec<Vec<usize>> = (0..count).map(|i| plan.shard(i, count)).collect();
        let mut all: Vec<usize> = parts.iter().flatten().copied().collect();
        all.sort_unstable();
        assert_eq!(all, (0..units.len()).collect::<Vec<_>>(), "{count} shards");
        let cost = |part: &[usize]| -> f64 { part.iter().map(|&u| plan.unit_cost(units[u])).sum() };
        let loads: Vec<f64> = parts.iter().map(|p| cost(p)).collect();
        let biggest = units.iter().map(|&u| plan.unit_cost(u)).fold(0.0, f64::max);
        let spread = loads.iter().copied().fold(0.0, f64::max)
            - loads.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(
            spread <= biggest,
            "{count} shards: loads {loads:?}, largest unit {biggest}"
        );
    }
}

#[test]
fn a_lublin_label_is_a_model_on_its_flat_machine() {
    let p = Prepared::synthetic("synth:lublin,nodes=64,jobs=100", None).unwrap();
    assert_eq!(p.machine().to_string(), "flat:64");
    let plan = Plan::new(
        "l.toml",
        "[[panel]]\nname = \"l\"\nworkload = \"synth:lublin,nodes=64,jobs=100\"\nsched = [\"easy\"]\nalloc = [\"flat\"]\nx = { values = [1.0] }\n",
        false,
    )
    .unwrap();
    let cell = plan.panels[0].cell(0, 1.0).unwrap();
    let a = p.instance(&cell, 1).unwrap();
    assert_eq!(a.jobs.len(), 100);
    let b = p.instance(&cell, 2).unwrap();
    let submits =
        |w: &crate::workload::Workload| w.jobs.iter().map(|j| j.submit).collect::<Vec<_>>();
    assert_ne!(submits(&a), submits(&b), "replicas differ by seed");
}

/// A panel without a stop rule run as points (one unit per cell, in any order) gives the results
/// of its lines: the same points in the panel's x order, the same replicas.
#[test]
fn points_in_any_order_give_the_lines_results() {
    let plan = Plan::new("s.toml", STUDY, false).unwrap();
    let lines: Vec<Unit> = plan
        .units()
        .into_iter()
        .filter(|u| u.panel() == 1)
        .collect();
    let whole = run_all(&plan, &lines, 2);
    let panel = &plan.panels[1];
    let mut points: Vec<Unit> = (0..panel.series.len())
        .flat_map(|series| {
            (0..panel.xs().len()).map(move |x| Unit::Point {
                panel: 1,
                series,
                x,
            })
        })
        .collect();
    points.reverse();
    let by_point = run_all(&plan, &points, 2);
    assert_eq!(by_point, whole);
    assert_eq!(whole.lines.len(), 2);
    let xs: Vec<f64> = whole.lines[&(1, 0)].iter().map(|(x, _)| *x).collect();
    assert_eq!(xs, [1.0, 5.0, 20.0]);
    // A point costs one cell of its line.
    let line = plan.unit_cost(Unit::Line {
        panel: 1,
        series: 0,
    });
    assert_eq!(plan.unit_cost(points[0]) * 3.0, line);
}

/// `{sweep_cell}` in a seed key is the sweep's cell key: `sweep --shake` seeds, per policy.
#[test]
fn the_sweep_cell_seed_key_is_the_sweep_cells_key() {
    let text = r#"
[[panel]]
name = "p"
workload = "log:synth:uniform,mesh=8x8,jobs=50"
sched = ["fcfs", "window:4"]
alloc = ["ff"]
estimate = ["exact", "x2"]
x = { name = "load_factor", values = [0.5, 1.5] }
seed_key = "{sweep_cell}"
"#;
    let plan = Plan::new("s.toml", text, false).unwrap();
    let p = &plan.panels[0];
    let keys: Vec<String> = (0..p.series.len())
        .map(|s| p.cell(s, 1.5).unwrap().seed_key)
        .collect();
    let want: Vec<String> = crate::sweep::Grid {
        schedulers: vec!["fcfs".parse().unwrap(), "window:4".parse().unwrap()],
        allocators: vec!["ff".parse().unwrap()],
        loads: vec![1.5],
        estimates: vec!["exact".parse().unwrap(), "x2".parse().unwrap()],
    }
    .cells()
    .iter()
    .map(crate::sweep::Cell::key)
    .collect();
    assert_eq!(keys, want);
    assert_eq!(keys[1], "fcfs|ff|1.5|x2");
}

const OBSERVING: &str = r#"
[params]
dim = 4
window = 200
scan = "scan-up"

[quick]
params = { window = 100 }

[[panel]]
name = "load"
workload = "synth:hypercube,dim={dim},load={x},window={window}"
sched = ["fcfs", "{scan}"]
alloc = ["buddy"]
x = { name = "load", values = [0.3, 0.6] }
replicate = { count = 3 }

[[panel]]
name = "time"
workload = "synth:hypercube,dim={dim},load=0.6,window={x}"
seed_key = "synth:hypercube,dim={dim},load=0.6,window={window}"
sched = ["fcfs"]
alloc = ["buddy"]
x = { name = "window", values = [50, 200] }
replicate = { count = 2 }

[[figure]]
name = "delay"
panel = "load"
y = "window_delay"

[[figure]]
name = "power"
panel = "load"
y = "window_throughput"
divide_by = "window_delay"
series = ["{scan}+buddy"]

[[figure]]
name = "time"
panel = "time"
y = "window_delay"
also = [{ series = "fcfs+buddy", y = "last_arrival", label = "last arrival" }]
"#;

#[test]
fn params_are_substituted_quick_and_set_and_unknown_ones_refused() {
    let plan = Plan::new("o.toml", OBSERVING, false).unwrap();
    assert_eq!(plan.panels[0].series[1].label, "scan-up+buddy");
    let c = plan.panels[0].cell(1, 0.3).unwrap();
    assert_eq!(c.workload, "synth:hypercube,dim=4,load=0.3,window=200");
    let quick = Plan::new("o.toml", OBSERVING, true).unwrap();
    assert!(
        quick.panels[0]
            .cell(0, 0.3)
            .unwrap()
            .workload
            .ends_with("window=100")
    );
    let set = [("scan".to_string(), "scan-up:join".to_string())];
    let other = Plan::with_params("o.toml", OBSERVING, false, &set, &Default::default()).unwrap();
    assert_eq!(other.panels[0].series[1].label, "scan-up:join+buddy");
    assert_eq!(
        other.figures[1].series,
        vec![1],
        "the figure's series follow"
    );
    let e = Plan::with_params(
        "o.toml",
        OBSERVING,
        false,
        &[("sacn".into(), "x".into())],
        &Default::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("no parameter `sacn`") && e.to_string().contains("`scan`"));
    let e = Plan::new(
        "o.toml",
        &OBSERVING.replace("window = 100", "widow = 100"),
        true,
    )
    .unwrap_err();
    assert_eq!((e.line, e.key.as_str()), (8, "widow"), "{e}");
}

#[test]
fn observed_measures_ratios_and_extra_lines_come_from_every_replica() {
    let plan = Plan::new("o.toml", OBSERVING, false).unwrap();
    assert!(plan.panels.iter().all(|p| p.observe));
    assert!(
        plan.panels[0]
            .cell(0, 0.3)
            .unwrap()
            .id()
            .ends_with("|observe")
    );
    let r = run_all(&plan, &plan.units(), 2);
    let figs = figures(&plan, &r);
    let runs = r.replicas(0, 1, 0.6).unwrap();
    assert_eq!(runs.len(), 3);
    assert!(runs.iter().all(|m| m.observed.window_delay > 0.0));
    assert!(
        runs.iter().all(|m| m.external_fragmentation.is_nan()),
        "no fragmentation pass"
    );
    let mean = |f: fn(&crate::engine::RunMetrics) -> f64| runs.iter().map(f).sum::<f64>() / 3.0;
    let delay = mean(|m| m.observed.window_delay);
    assert_eq!(figs[0].at("scan-up+buddy", 0.6), Some(delay));
    let power = figs[1].est("scan-up+buddy", 0.6).unwrap();
    assert_eq!(power.mean, mean(|m| m.observed.window_throughput) / delay);
    assert_eq!(
        (power.ci_low, power.ci_high, power.n),
        (power.mean, power.mean, 3)
    );
    assert_eq!(figs[2].series(), ["fcfs+buddy", "last arrival"]);
    assert!(figs[2].at("last arrival", 50.0).is_some_and(|t| t <= 50.0));
    // A window-T run gives the M of [0, T] of the longer run with the same seed.
    let spec = |t: f64| {
        crate::workload::synth_hypercube::HypercubeSpec::from_label(&format!(
            "synth:hypercube,dim=4,load=0.6,window={t}"
        ))
        .unwrap()
        .0
    };
    let seed = crate::replicate::seed_for("synth:hypercube,dim=4,load=0.6,window=200", 0);
    let long = spec(200.0).generate(seed).unwrap();
    let out = crate::engine::replay(
        &long,
        MachineSpec::Hypercube { dim: 4 },
        crate::sched::SchedKind::Fcfs,
        crate::machine::AllocKind::Buddy,
        &mut crate::engine::NoObserver,
    )
    .unwrap();
    let at_50 = crate::engine::observation::delay_over_time(&long, &out, &[50.0])[0];
    let short = r.replicas(1, 0, 50.0).unwrap()[0].observed.window_delay;
    assert!(
        (short - at_50).abs() <= 1e-12 * at_50.max(1.0),
        "{short} vs {at_50}"
    );
}

#[test]
fn a_claim_reading_a_figure_that_did_not_run_is_not_run() {
    let text = format!(
        "{OBSERVING}\n[[claim]]\nfigure = \"delay\"\nstatement = \"s\"\npredicate = \"ratio_above\"\na = \"{{scan}}+buddy\"\nb = \"fcfs+buddy\"\nthan = \"time\"\n"
    );
    let plan = Plan::new("o.toml", &text, false).unwrap();
    let units: Vec<Unit> = plan
        .units()
        .into_iter()
        .filter(|u| matches!(u, Unit::Line { panel: 0, .. }))
        .collect();
    let r = run_all(&plan, &units, 1);
    let v = verdicts(&plan, &figures(&plan, &r));
    assert_eq!(v[0].holds, None, "{}", v[0].measured);
    assert!(
        v[0].measured.contains("figure `time` did not run"),
        "{}",
        v[0].measured
    );
    let e = Plan::new(
        "o.toml",
        &text.replace("than = \"time\"", "than = \"tim\""),
        false,
    )
    .unwrap_err();
    assert_eq!(e.key, "than", "{e}");
}

#[test]
fn a_fragmentation_column_is_refused_on_an_observing_panel() {
    let text = format!(
        "{OBSERVING}\n[[figure]]\nname = \"frag\"\npanel = \"load\"\ny = \"external_fragmentation\"\n"
    );
    let e = Plan::new("o.toml", &text, false).unwrap_err();
    assert!(e.to_string().contains("not measured there"), "{e}");
    let text = OBSERVING.replacen(
        "y = \"window_delay\"\n",
        "y = \"window_delay\"\nalso = [{ series = \"x\", y = \"jobs\", label = \"l\" }]\n",
        1,
    );
    let e = Plan::new("o.toml", &text, false).unwrap_err();
    assert!(e.to_string().contains("no series `x`"), "{e}");
}

/// A measure indexed by x: a panel whose x is the decile runs one cell (no `{x}` in its templates)
/// and draws its ten deciles; the same panel without such a figure is refused, and the measure
/// cannot be a replication measure. `series = []` draws only the `also` lines.
#[test]
fn a_decile_axis_draws_one_cell_and_also_only_figures_draw_no_series() {
    let text = r#"
[[panel]]
name = "d"
workload = "synth:squares,mesh=8x8,jobs=200,load=0.5"
sched = ["gang:slice=median", "largest-first"]
alloc = ["ff"]
replicate = { count = 2 }
x = { name = "decile", values = "1:10:1" }

[[figure]]
name = "waits"
panel = "d"
y = "decile_wait"

[[figure]]
name = "internals"
panel = "d"
y = "gang_classes"
series = []
also = [{ series = "gang:slice=median+ff", y = "suspensions_per_job", label = "suspensions" }]
"#;
    let plan = Plan::new("d.toml", text, false).unwrap();
    let units = plan.units();
    let results = run_all(&plan, &units, 2);
    assert_eq!(
        results.cells.len(),
        2,
        "one cell per series, shared along x"
    );
    let figs = super::figures(&plan, &results);
    let waits = &figs[0];
    let gang = waits.curve("gang:slice=median+ff");
    assert_eq!(gang.len(), 10);
    assert!(gang.iter().map(|p| p.0).eq((1..=10).map(f64::from)));
    // Decile d is the cell's observed decile_wait_d.
    let runs = results
        .cells
        .values()
        .find(|r| r[0].observed.gang_classes > 0.0)
        .unwrap();
    let mean3 = (runs[0].observed.decile_wait[2] + runs[1].observed.decile_wait[2]) / 2.0;
    assert!((gang[2].1 - mean3).abs() < 1e-12);
    assert_eq!(figs[1].series(), ["suspensions"]);
    let no_figure = text.split("[[figure]]").next().unwrap();
    let e = Plan::new("d.toml", no_figure, false).unwrap_err();
    assert!(
        e.to_string().contains("no template of the panel uses {x}"),
        "{e}"
    );
    let watched = text.replace(
        "replicate = { count = 2 }",
        "replicate = { count = 2, measure = \"decile_wait\" }",
    );
    let e = Plan::new("d.toml", &watched, false).unwrap_err();
    assert!(e.to_string().contains("indexed by"), "{e}");
}

/// Python series: external to the library (`external`).
const PY_STUDY: &str = r#"
[[panel]]
name = "u"
workload = "synth:uniform,mesh=8x8,jobs=50,rate=1"
sched = ["fcfs:order=sjf", "py:policies/sjf.py:Sjf"]
alloc = ["ff"]
x = { values = [0.5, 1.0] }
[[figure]]
name = "w"
panel = "u"
y = "mean_wait_s"
"#;

#[test]
fn a_py_series_is_external_and_its_digest_is_in_its_cells_ids() {
    let mut plan = Plan::new("s.toml", PY_STUDY, false).unwrap();
    assert_eq!(plan.external_labels(), ["py:policies/sjf.py:Sjf"]);
    let before = plan.panels[0].cell(1, 0.5).unwrap();
    assert_eq!(
        before.sched,
        Policy::External(External {
            label: "py:policies/sjf.py:Sjf".into(),
            digest: String::new(),
        })
    );
    plan.resolve_external(|l| Ok(format!("d{}", l.len())))
        .unwrap();
    let after = plan.panels[0].cell(1, 0.5).unwrap();
    assert!(after.id().ends_with("|sha256=d22"), "{}", after.id());
    assert_ne!(before.id(), after.id());
    // The built-in series is untouched.
    let builtin = plan.panels[0].cell(0, 0.5).unwrap();
    assert!(!builtin.id().contains("sha256"));
    let e = plan.resolve_external(|_| Err("gone".into())).unwrap_err();
    assert_eq!(e, "`py:policies/sjf.py:Sjf`: gone");
}

#[test]
fn the_library_hands_an_external_replica_over_and_summarizes_it_as_a_builtin_one() {
    let plan = Plan::new("s.toml", PY_STUDY, false).unwrap();
    let (builtin, python) = (
        plan.panels[0].cell(0, 1.0).unwrap(),
        plan.panels[0].cell(1, 1.0).unwrap(),
    );
    let prepared = Prepared::synthetic("synth:uniform,mesh=8x8,jobs=50,rate=1", None).unwrap();
    let e = run::replay(&prepared, &python, 7, false).unwrap_err();
    assert!(e.to_string().contains("runs outside the library"), "{e}");
    let replica = run::Replica {
        cell: &python,
        seed: 7,
        prepared: &prepared,
    };
    let instance = replica.instance().unwrap();
    assert_eq!(instance.policy, "py:policies/sjf.py:Sjf");
    // Under the scheduler the label stands for here (the JSON it travels as is exact: the
    // binary's tests compare Python series with built-in ones replica by replica).
    let sched = builtin
        .sched
        .builtin()
        .unwrap()
        .for_workload(&instance.workload);
    let priority = instance.options.priority().unwrap();
    let built = sched.build_with(&instance.workload, &priority).unwrap();
    let theirs = replay_instance(&instance, built, true).unwrap();
    let ours = run::replay(&prepared, &builtin, 7, false).unwrap().metrics;
    assert_eq!(
        crate::engine::RunMetrics {
            sim_wall_s: 0.0,
            alloc_time_s: 0.0,
            ..theirs
        },
        crate::engine::RunMetrics {
            sim_wall_s: 0.0,
            alloc_time_s: 0.0,
            ..ours
        }
    );
}

#[test]
fn a_py_series_climbs_auto_loads_and_needs_summary_measures() {
    let auto = PY_STUDY.replace("x = { values = [0.5, 1.0] }", "x = { values = \"auto\" }");
    let plan = Plan::new("s.toml", &auto, false).unwrap();
    assert_eq!(plan.units(), [Unit::Auto { panel: 0 }]);
    let observed = PY_STUDY.replace("y = \"mean_wait_s\"", "y = \"window_delay\"");
    let e = Plan::new("s.toml", &observed, false).unwrap_err();
    assert!(e.to_string().contains("draw summary measures"), "{e}");
}

/// An `auto` panel climbs an external series like a built-in one: its replicas go through the
/// hook, and a hook that replays the label as the built-in scheduler it stands for gives the
/// built-in series' load factors and metrics.
#[test]
fn an_auto_panel_climbs_an_external_series_through_the_hook() {
    let auto = PY_STUDY.replace(
        "x = { values = [0.5, 1.0] }",
        "x = { values = \"auto:0.5:3:0.5\" }",
    );
    let mut plan = Plan::new("s.toml", &auto, false).unwrap();
    plan.resolve_external(|_| Ok("d".into())).unwrap();
    let builtin = plan.panels[0].cell(0, 1.0).unwrap().sched;
    let hook = |r: &run::Replica<'_>, compute: &dyn Fn() -> Result<_, CellError>| {
        if r.cell.sched.builtin().is_some() {
            return compute();
        }
        let instance = r.instance()?;
        let sched = builtin.builtin().unwrap().for_workload(&instance.workload);
        let priority = instance.options.priority()?;
        let built = sched.build_with(&instance.workload, &priority)?;
        replay_instance(&instance, built, true)
    };
    let results = run::run(&plan, &plan.units(), &Models, &hook, &|_| {}, 2).unwrap();
    let line = |s| -> Vec<(f64, crate::engine::RunMetrics)> {
        results.lines[&(0, s)]
            .iter()
            .map(|(x, id)| {
                let m = results.cells[id][0];
                let m = crate::engine::RunMetrics {
                    sim_wall_s: 0.0,
                    alloc_time_s: 0.0,
                    ..m
                };
                (*x, m)
            })
            .collect()
    };
    assert!(line(0).len() >= 3, "climbed: {:?}", line(0).len());
    assert_eq!(line(1), line(0));
}
