//! `pwa-replay paper`: regenerates the figures of the five papers as long-format CSVs with PNGs
//! beside them, and `README.md` holding each paper's statements against our measurements with a
//! verdict.
//!
//! Pipeline: the figures of the five papers are data, `experiments/window-k.toml`,
//! `window-k-traces.toml`, `bypass-queue.toml`, `semitorus.toml`, `lazy-hypercube.toml` and
//! `coscheduling.toml` (built into the binary), run by the library's experiment executor
//! ([`pwa_replay::experiment`]: every distinct cell once, replications until the 95% CI of the
//! watched measure is within 5%, series in parallel, `auto` loads on the logs, replicas cached for
//! `--resume`), which also checks the claims at the end of each file with the shared predicates
//! ([`pwa_replay::experiment::predicate`]) → [`plot`] draws them → [`readme`] writes the report;
//! [`semitorus`] writes `semitorus/README.md` with that study's distances and verdicts, [`lazy`]
//! writes Table I (`lazy/table1.csv`).

pub mod lazy;
pub mod readme;
pub mod semitorus;

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use pwa_replay::engine::RunMetrics;
use pwa_replay::experiment::{self, Plan, Unit, Verdict, run as exp};
use pwa_replay::sweep::CellError;

use crate::study::data::FigureData;
use crate::study::{data, plot};

use crate::report::atomic::remove_stale_temporaries;
use crate::report::html;
use crate::report::lock::OutLock;
use crate::report::progress::stop_on_ctrl_c;
use crate::study::Replicas;
use readme::Budget;

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

/// The figures that are experiment files, in the order of the report's verdicts.
const EXPERIMENTS: [PaperFile; 6] = [
    PaperFile {
        group: "window-k",
        path: "experiments/window-k.toml",
        text: include_str!("../../../experiments/window-k.toml"),
        logs: false,
    },
    PaperFile {
        group: "window-k",
        path: "experiments/window-k-traces.toml",
        text: include_str!("../../../experiments/window-k-traces.toml"),
        logs: true,
    },
    PaperFile {
        group: "bypass-queue",
        path: "experiments/bypass-queue.toml",
        text: include_str!("../../../experiments/bypass-queue.toml"),
        logs: false,
    },
    PaperFile {
        group: "semitorus",
        path: "experiments/semitorus.toml",
        text: include_str!("../../../experiments/semitorus.toml"),
        logs: true,
    },
    PaperFile {
        group: "lazy",
        path: "experiments/lazy-hypercube.toml",
        text: include_str!("../../../experiments/lazy-hypercube.toml"),
        logs: false,
    },
    PaperFile {
        group: "coscheduling",
        path: "experiments/coscheduling.toml",
        text: include_str!("../../../experiments/coscheduling.toml"),
        logs: false,
    },
];

/// The lazy file's position in [`EXPERIMENTS`].
const LAZY: usize = 4;

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
    /// Reuse the replicas an earlier (interrupted) run cached under `out/cells/`.
    pub resume: bool,
    /// The lazy figures' scan reading, if not the default (`--lazy-scan`).
    pub lazy_scan: Option<pwa_replay::sched::SchedKind>,
}

/// Whether the catalog log `trace` is on the search path (`paper` never downloads).
fn available(trace: &str) -> bool {
    let Ok(cat) = crate::trace::catalog() else {
        return false;
    };
    cat.get(trace)
        .is_some_and(|e| crate::trace::search_path().find(&e.file).is_some())
}

/// What one experiment file gave: its plan, the figures run (file order, in the paper's folder),
/// its claims' verdicts (`not run` for a figure left out) and the panels skipped because their log
/// is not on the trace search path.
struct PaperRun {
    plan: Plan,
    results: exp::Results,
    figures: Vec<FigureData>,
    verdicts: Vec<Verdict>,
    skipped: Vec<String>,
    /// Wall seconds of the file's run.
    seconds: f64,
}

/// Runs the figures of one experiment file that `only` selects (none: nothing runs).
fn run_experiment(
    file: &PaperFile,
    opts: &Options,
    threads: usize,
    replicas: &Replicas<'_>,
) -> anyhow::Result<PaperRun> {
    let set: Vec<(String, String)> = match opts.lazy_scan {
        Some(scan) if file.group == EXPERIMENTS[LAZY].group => {
            vec![("scan".to_string(), scan.to_string())]
        }
        _ => Vec::new(),
    };
    let plan = Plan::with_params(file.path, file.text, opts.quick, &set, &Default::default())?;
    // `--no-traces` leaves out a file of logs whole (its claims are reported as not run).
    let left_out = file.logs && opts.no_traces;
    let missing: Vec<usize> = (0..plan.panels.len())
        .filter(|&i| file.logs && !left_out && !available(&plan.panels[i].workload))
        .collect();
    let wanted = |f: &experiment::plan::Figure| {
        selected(&opts.only, &format!("{}/{}", file.group, f.name))
            || lazy::table_of(&f.name)
                .is_some_and(|t| selected(&opts.only, &format!("{}/{t}", file.group)))
            || selected(
                &opts.only,
                &format!("{}/{}", file.group, plan.panels[f.panel].name),
            )
    };
    let keep: Vec<bool> = plan
        .figures
        .iter()
        .map(|f| wanted(f) && !left_out && !missing.contains(&f.panel))
        .collect();
    let skipped = missing
        .iter()
        .filter_map(|&i| {
            let names: Vec<&str> = plan
                .figures
                .iter()
                .filter(|f| f.panel == i && wanted(f))
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
        .filter(|u| panels.contains(&u.panel()))
        .collect();
    let t0 = Instant::now();
    let progress = |e: exp::Event| {
        let exp::Event::Cell {
            label, replicas, ..
        } = e;
        if opts.progress {
            eprintln!(
                "paper [{:>6.1}s] {}: {label} ({replicas} replicas)",
                t0.elapsed().as_secs_f64(),
                file.path
            );
        }
    };
    let hook = |r: &exp::Replica<'_>, compute: &dyn Fn() -> Result<RunMetrics, CellError>| {
        replicas.get(r, compute)
    };
    let results = exp::run(&plan, &units, replicas.source(), &hook, &progress, threads);
    let results = replicas.finish(results)?;
    let mut all = experiment::figures(&plan, &results);
    for (f, k) in all.iter_mut().zip(&keep) {
        f.group = file.group.to_string();
        if !k {
            f.points.clear();
        }
    }
    let verdicts = experiment::verdicts(&plan, &all);
    let figures = all.into_iter().filter(|f| !f.points.is_empty()).collect();
    Ok(PaperRun {
        plan,
        results,
        figures,
        verdicts,
        skipped,
        seconds: t0.elapsed().as_secs_f64(),
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

/// `index.html`: the verdicts as a sortable table and every figure as an interactive chart linked
/// to its PNG (report::html).
fn write_index(
    out: &std::path::Path,
    data: &[FigureData],
    verdicts: &[Verdict],
    run: &readme::RunInfo,
) -> anyhow::Result<()> {
    let charts = data
        .iter()
        .map(|d| html::Chart::from_figure(d, &d.series()))
        .collect();
    let mut config = vec![
        (
            "budget".to_string(),
            if run.quick { "--quick" } else { "full" }.to_string(),
        ),
        ("threads".to_string(), run.threads.to_string()),
    ];
    config.extend(
        run.skipped
            .iter()
            .map(|s| ("skipped".to_string(), s.clone())),
    );
    let page = html::figure::study(
        "The five papers, reproduced",
        "Every figure of `make paper` with the papers' statements and our verdicts; README.md has the \
         same verdicts with the readings chosen.",
        config,
        charts,
        (verdicts, run.quick),
    );
    html::write_index(out, &page)
}

/// `semitorus/README.md` from the semitorus file's run (nothing when no system ran).
fn write_semitorus(run: &PaperRun, opts: &Options) -> anyhow::Result<()> {
    let catalog = crate::trace::catalog()?;
    let figure = |id: String| run.figures.iter().find(|f| f.id == id);
    let systems: Vec<semitorus::System<'_>> = run
        .plan
        .panels
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let utilization = figure(format!("{}-utilization", p.name))?;
            let bsld = figure(format!("{}-bsld", p.name))?;
            let jobs = run
                .results
                .lines
                .get(&(i, 0))
                .and_then(|line| line.first())
                .and_then(|(_, id)| run.results.cells.get(id))
                .and_then(|replicas| replicas.first())
                .map_or(0, |m| m.jobs);
            Some(semitorus::System {
                trace: p.workload.clone(),
                machine: catalog
                    .get(&p.workload)
                    .map_or_else(String::new, |e| e.conversion.machine.to_string()),
                jobs,
                utilization,
                bsld,
            })
        })
        .collect();
    if systems.is_empty() {
        return Ok(());
    }
    let dir = opts.out.join(run.figures[0].group.as_str());
    semitorus::write_readme(&dir, &systems, opts.quick)
}

/// A worker thread's result, its panic as an error.
fn joined<T>(r: std::thread::Result<anyhow::Result<T>>) -> anyhow::Result<T> {
    r.unwrap_or_else(|_| Err(anyhow::anyhow!("a worker panicked")))
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
    let say = |msg: &str| {
        if opts.progress {
            eprintln!("paper [{:>6.1}s] {msg}", t0.elapsed().as_secs_f64());
        }
    };
    say(&format!(
        "figures of {} experiment files, {threads} threads",
        EXPERIMENTS.len()
    ));
    let (runs, t_synth) = run_all(opts, threads, &say, t0)?;
    let outputs = collect(&runs, opts)?;
    let t_all = t0.elapsed().as_secs_f64();
    for d in &outputs.data {
        let dir = opts.out.join(&d.group);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        data::write_csv(d, &dir)?;
        plot::draw(&dir, d)?;
    }
    let run = run_info(&runs, outputs.skipped, opts, threads, (t_synth, t_all))?;
    let (data, verdicts) = (&outputs.data, &outputs.verdicts);
    readme::write(&opts.out, data, verdicts, &run)?;
    if let Some(run) = runs
        .iter()
        .find(|r| r.plan.file == EXPERIMENTS[LAZY].path && !r.figures.is_empty())
    {
        lazy::append_readme(&opts.out, &run.plan, run.seconds)?;
    }
    write_index(&opts.out, data, verdicts, &run)?;
    say(&format!(
        "wrote {} figures and README.md under {}",
        data.len(),
        opts.out.display()
    ));
    for v in verdicts.iter().filter(|v| v.holds.is_some()) {
        let verdict = if v.holds == Some(true) {
            "holds "
        } else {
            "DIFFERS"
        };
        say(&format!("{verdict} {}: {}", v.figure, v.statement));
    }
    Ok(())
}

/// Runs every experiment file at once under one lock, replica cache and Ctrl-C handler: each
/// file's slowest series overlaps the others' cells, so no core idles while one long line
/// finishes. Returns the runs and the wall seconds they took.
fn run_all(
    opts: &Options,
    threads: usize,
    say: &dyn Fn(&str),
    t0: Instant,
) -> anyhow::Result<(Vec<PaperRun>, f64)> {
    std::fs::create_dir_all(&opts.out)
        .with_context(|| format!("creating {}", opts.out.display()))?;
    let lock = OutLock::acquire(&opts.out)?;
    remove_stale_temporaries(&opts.out)?;
    let stop = stop_on_ctrl_c()?;
    let source = crate::trace::loader();
    let replicas = Replicas::new(&opts.out, opts.resume, &lock, &stop, &source);
    let (runs, t_synth) = std::thread::scope(|s| {
        let replicas = &replicas;
        let files: Vec<_> = EXPERIMENTS
            .iter()
            .map(|f| s.spawn(move || run_experiment(f, opts, threads, replicas)))
            .collect();
        let runs: Vec<anyhow::Result<PaperRun>> =
            files.into_iter().map(|h| joined(h.join())).collect();
        (runs, t0.elapsed().as_secs_f64())
    });
    let runs = runs
        .into_iter()
        .collect::<anyhow::Result<Vec<PaperRun>>>()?;
    say(&format!("experiment files: {}", replicas.counts()));
    Ok((runs, t_synth))
}

/// The figures, verdicts and skipped panels of every run.
struct Collected {
    data: Vec<FigureData>,
    verdicts: Vec<Verdict>,
    skipped: Vec<String>,
}

/// Gathers the runs' figures and verdicts, writing the files' own outputs on the way (the
/// semitorus table, the lazy paper's Table I).
fn collect(runs: &[PaperRun], opts: &Options) -> anyhow::Result<Collected> {
    let mut c = Collected {
        data: Vec::new(),
        verdicts: Vec::new(),
        skipped: Vec::new(),
    };
    for run in runs {
        if run.plan.file == EXPERIMENTS[3].path {
            write_semitorus(run, opts)?;
        }
        if run.plan.file == EXPERIMENTS[LAZY].path {
            // Table I is a table, not figures: lazy/table1.csv, its claims under `lazy/table1`.
            let (tables, figures) = lazy::split_tables(&run.figures);
            lazy::write_table(&opts.out.join(EXPERIMENTS[LAZY].group), &tables)?;
            c.data.extend(figures);
            c.verdicts
                .extend(run.verdicts.iter().cloned().map(lazy::table_verdict));
        } else {
            c.data.extend(run.figures.iter().cloned());
            c.verdicts.extend(run.verdicts.iter().cloned());
        }
        c.skipped.extend(run.skipped.iter().cloned());
    }
    Ok(c)
}

/// What the README says of the run: its mode, threads, wall times `(synthetic, all)`, the
/// synthetic budget and the trace panels' size.
fn run_info(
    runs: &[PaperRun],
    skipped: Vec<String>,
    opts: &Options,
    threads: usize,
    (synth_s, total_s): (f64, f64),
) -> anyhow::Result<readme::RunInfo> {
    let budget = runs
        .iter()
        .find(|r| r.plan.file == EXPERIMENTS[0].path)
        .map(|r| budget(&r.plan))
        .context("the window-k experiment file")?;
    let trace_panel = runs
        .iter()
        .find(|r| r.plan.file == EXPERIMENTS[1].path)
        .and_then(|r| r.plan.panels.first());
    Ok(readme::RunInfo {
        quick: opts.quick,
        threads,
        synth_s,
        total_s,
        budget,
        trace_jobs: trace_panel.and_then(|p| p.jobs),
        trace_margin: trace_panel.and_then(|p| match p.x.values {
            pwa_replay::experiment::plan::Xs::Auto(a) => Some(a.margin),
            _ => None,
        }),
        skipped,
    })
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
