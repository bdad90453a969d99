//! `pwa-replay paper`: regenerates the figures of the two mesh papers (window-k-mesh.md Figs. 2–18,
//! bypass-queue-fixed-orientation.md Figs. 3–6) as long-format CSVs with PNGs beside them, and
//! `README.md` holding each paper's statements against our measurements with a verdict.
//!
//! Pipeline: the synthetic figures of both mesh papers are data, `experiments/window-k.toml` and
//! `experiments/bypass-queue.toml` (built into the binary), run by the library's experiment
//! executor ([`pwa_replay::experiment`]: every distinct cell once, replications until the 95% CI of
//! mean turnaround is within 5%, series in parallel) → [`plot`] draws them → [`claims`] checks the
//! qualitative statements → [`readme`] writes the report. The trace figures go through the sweep
//! ([`traces`]); the torus study of semitorus-allocation.md ([`semitorus`]) writes its own
//! `semitorus/README.md` with its claims and verdicts; the lazy and coscheduling papers run their
//! own cells ([`lazy`], [`coscheduling`]).

pub mod claims;
pub mod coscheduling;
pub mod data;
pub mod figures;
pub mod lazy;
pub mod plot;
pub mod readme;
pub mod semitorus;
pub mod traces;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use pwa_replay::engine::{self, NoObserver, RunMetrics};
use pwa_replay::experiment::{self, Plan, Unit, run as exp};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::{AutoLoads, KneeRule};
use pwa_replay::workload::Workload;

use data::FigureData;
use figures::Paper;
use readme::Budget;
use traces::TraceBudget;

/// A paper's experiment file, built into the binary.
struct PaperFile {
    /// Output folder under `out/paper/`.
    group: &'static str,
    /// Path in the repository (for messages).
    path: &'static str,
    /// The file's text.
    text: &'static str,
    /// Replays logs (left out by `--no-traces`; a panel whose log is not on the search path is
    /// skipped, never downloaded).
    logs: bool,
}

/// The figures that are experiment files.
const EXPERIMENTS: [PaperFile; 3] = [
    PaperFile {
        group: "window-k",
        path: "experiments/window-k.toml",
        text: include_str!("../../../experiments/window-k.toml"),
        logs: false,
    },
    PaperFile {
        group: "bypass-queue",
        path: "experiments/bypass-queue.toml",
        text: include_str!("../../../experiments/bypass-queue.toml"),
        logs: false,
    },
    PaperFile {
        group: "window-k",
        path: "experiments/window-k-traces.toml",
        text: include_str!("../../../experiments/window-k-traces.toml"),
        logs: true,
    },
];

/// Everything `paper` needs to know.
#[derive(Debug, Clone)]
pub struct Options {
    /// Short configuration (fewer jobs, replications and points).
    pub quick: bool,
    /// Only these figures (`fig2`, `window-k/fig2`, `bypass-queue/fig4a`); empty: all.
    pub only: Vec<String>,
    /// Output root (`out/paper`).
    pub out: PathBuf,
    /// Worker threads (0: all cores).
    pub threads: usize,
    /// Skip the trace figures.
    pub no_traces: bool,
    /// Print progress on stderr.
    pub progress: bool,
}

/// The full or quick settings of the trace figures.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Trace budget.
    pub traces: TraceBudget,
}

impl Settings {
    /// `make paper` (full) or `--quick`.
    pub fn new(quick: bool, threads: usize) -> Settings {
        let auto = |cap_milli| AutoLoads {
            start_milli: 100,
            step_milli: 100,
            cap_milli,
            margin: 2,
            knee: KneeRule::default(),
        };
        if quick {
            Settings {
                traces: TraceBudget {
                    jobs: Some(4000),
                    auto: AutoLoads {
                        step_milli: 300,
                        ..auto(2800)
                    },
                    threads,
                },
            }
        } else {
            Settings {
                traces: TraceBudget {
                    jobs: None,
                    auto: auto(4000),
                    threads,
                },
            }
        }
    }
}

/// Replays a workload and summarizes it.
pub fn replay(
    w: &Workload,
    machine: MachineSpec,
    sched: SchedKind,
    alloc: AllocKind,
) -> anyhow::Result<RunMetrics> {
    let out = engine::replay(w, machine, sched, alloc, &mut NoObserver)
        .with_context(|| format!("replaying {sched}+{alloc} on {machine}"))?;
    Ok(engine::summarize(w, machine, alloc, &out))
}

/// What one experiment file gave: its plan, the figures run (file order, in the paper's folder)
/// and the panels skipped because their log is not on the trace search path.
struct PaperRun {
    plan: Plan,
    figures: Vec<FigureData>,
    skipped: Vec<String>,
}

/// Runs the figures of one experiment file that `only` selects (none: nothing runs).
fn run_experiment(file: &PaperFile, opts: &Options, threads: usize) -> anyhow::Result<PaperRun> {
    let plan = Plan::new(file.path, file.text, opts.quick)?;
    let missing: Vec<usize> = (0..plan.panels.len())
        .filter(|&i| file.logs && !traces::available(&plan.panels[i].workload))
        .collect();
    let keep: Vec<bool> = plan
        .figures
        .iter()
        .map(|f| {
            selected(&opts.only, &format!("{}/{}", file.group, f.name))
                && !missing.contains(&f.panel)
        })
        .collect();
    let skipped = missing
        .iter()
        .filter_map(|&i| {
            let names: Vec<&str> = plan
                .figures
                .iter()
                .filter(|f| {
                    f.panel == i && selected(&opts.only, &format!("{}/{}", file.group, f.name))
                })
                .map(|f| f.name.as_str())
                .collect();
            (!names.is_empty()).then(|| {
                format!(
                    "{} ({}): the log is not on the trace search path",
                    plan.panels[i].workload,
                    names.join(", ")
                )
            })
        })
        .collect();
    let panels: Vec<usize> = plan
        .figures
        .iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(f, _)| f.panel)
        .collect();
    let units: Vec<Unit> = plan
        .units()
        .into_iter()
        .filter(|u| {
            let (Unit::Line { panel, .. } | Unit::Auto { panel }) = *u;
            panels.contains(&panel)
        })
        .collect();
    let source = crate::cmd::experiment::Loader::default();
    let results = exp::run(&plan, &units, &source, &|_, run| run(), &|_| {}, threads)?;
    let figs = experiment::figures(&plan, &results)
        .into_iter()
        .zip(&keep)
        .filter(|(_, k)| **k)
        .map(|(mut f, _)| {
            f.group = file.group.to_string();
            f
        })
        .collect();
    Ok(PaperRun {
        plan,
        figures: figs,
        skipped,
    })
}

/// The window-k file's budget, for the report.
fn budget(plan: &Plan) -> Budget {
    let load = plan.panels.iter().find(|p| p.stop.is_some());
    let k = plan.panels.iter().find(|p| p.x.name == "window");
    Budget {
        jobs: load.and_then(|p| p.jobs).unwrap_or(0),
        rule: load.map(|p| p.rule).unwrap_or_default(),
        cut: load.and_then(|p| p.stop.as_ref()).map_or(0.0, |s| s.above),
        margin: load.and_then(|p| p.stop.as_ref()).map_or(0, |s| s.margin),
        k_min: k.map_or(0, |p| p.rule.min),
    }
}

fn selected(only: &[String], key: &str) -> bool {
    let id = key.rsplit('/').next().unwrap_or(key);
    only.is_empty() || only.iter().any(|o| o == key || o == id)
}

/// Runs `paper`.
pub fn run(opts: &Options) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let threads = if opts.threads == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        opts.threads
    };
    let settings = Settings::new(opts.quick, threads);
    let say = |msg: &str| {
        if opts.progress {
            eprintln!("paper [{:>6.1}s] {msg}", t0.elapsed().as_secs_f64());
        }
    };
    say(&format!(
        "synthetic figures of {} experiment files, {threads} threads",
        EXPERIMENTS.len()
    ));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    // The files at once: each one's slowest series overlaps the others'.
    let runs: Vec<anyhow::Result<PaperRun>> = std::thread::scope(|s| {
        let handles: Vec<_> = EXPERIMENTS
            .iter()
            .filter(|f| !(f.logs && opts.no_traces))
            .map(|f| s.spawn(move || run_experiment(f, opts, threads)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a worker panicked")))
            })
            .collect()
    });
    let mut data: Vec<FigureData> = Vec::new();
    let mut synth_budget = None;
    let mut skipped = Vec::new();
    for r in runs {
        let run = r?;
        if run.plan.file == EXPERIMENTS[0].path {
            synth_budget = Some(budget(&run.plan));
        }
        data.extend(run.figures);
        skipped.extend(run.skipped);
    }
    let t_synth = t0.elapsed().as_secs_f64();
    if !opts.no_traces {
        let mut systems = Vec::new();
        for trace in semitorus::SYSTEMS {
            if !selected(&opts.only, &format!("semitorus/{trace}")) {
                continue;
            }
            if !traces::available(trace) {
                skipped.push(format!(
                    "{trace} (semitorus): the log is not on the trace search path"
                ));
                continue;
            }
            let tick = |m: &str| say(m);
            let r = semitorus::run_system(trace, &settings.traces, &replay, &tick)?;
            data.extend(semitorus::figures(&r));
            systems.push(r);
        }
        if !systems.is_empty() {
            semitorus::write_readme(&opts.out.join(Paper::Semitorus.dir()), &systems, opts.quick)?;
        }
    }
    let t_lazy = Instant::now();
    let lazy_budget = lazy::LazyBudget::new(opts.quick);
    let keep = |key: &str| selected(&opts.only, key);
    let sync_say = |m: &str| {
        if opts.progress {
            eprintln!("paper [{:>6.1}s] {m}", t0.elapsed().as_secs_f64());
        }
    };
    let lazy_out = pool.install(|| lazy::run(&lazy_budget, &keep, &opts.out, &sync_say))?;
    let lazy_s = t_lazy.elapsed().as_secs_f64();
    say(&format!("lazy paper: {lazy_s:.1} s"));
    let lazy_verdicts = lazy::evaluate(&lazy_out.figures, &lazy_out.table);
    data.extend(lazy_out.figures);
    let cosched = opts.only.is_empty()
        || opts
            .only
            .iter()
            .any(|o| o.starts_with(Paper::Coscheduling.dir()));
    if cosched {
        say("coscheduling: gang vs largest-first on the 8×8 model");
        data.extend(coscheduling::run(&coscheduling::Budget::new(opts.quick))?);
    }
    let t_all = t0.elapsed().as_secs_f64();
    for d in &data {
        let dir = opts.out.join(&d.group);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        data::write_csv(d, &dir)?;
        plot::draw(&dir, d)?;
    }
    let mut verdicts = claims::evaluate(&data);
    verdicts.extend(lazy_verdicts);
    verdicts.extend(coscheduling::evaluate(&data));
    let run = readme::RunInfo {
        quick: opts.quick,
        threads,
        synth_s: t_synth,
        total_s: t_all,
        budget: synth_budget.context("the window-k experiment file")?,
        trace_jobs: settings.traces.jobs,
        skipped,
    };
    readme::write(&opts.out, &data, &verdicts, &run)?;
    lazy::append_readme(&opts.out, &lazy_budget, lazy_s)?;
    say(&format!(
        "wrote {} figures and README.md under {}",
        data.len(),
        opts.out.display()
    ));
    for v in verdicts.iter().filter(|v| v.holds.is_some()) {
        say(&format!(
            "{} {}: {}",
            if v.holds == Some(true) {
                "holds "
            } else {
                "DIFFERS"
            },
            v.figure,
            v.statement
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_accepts_bare_and_qualified_ids() {
        assert!(selected(&[], "window-k/fig2"));
        assert!(selected(&["fig2".into()], "window-k/fig2"));
        assert!(selected(&["window-k/fig2".into()], "window-k/fig2"));
        assert!(!selected(&["bypass-queue/fig3".into()], "window-k/fig3"));
        assert!(selected(&["fig3".into()], "bypass-queue/fig3"));
    }
}
