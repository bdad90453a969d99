//! The study service under `experiment`, `sweep`, `merge` and `paper`: the replica cache and the
//! stop checks around every replica ([`Replicas`]), an experiment's results file
//! ([`ResultsFile`], [`RESULTS_FILE`]), its report (figures, `README.md`, `index.html`,
//! [`write_report`]) and the merge of its shards ([`merge`]); and the figure writer of experiments
//! and of `paper` (a figure's CSV data, [`data`], and its PNG, [`plot`]); and the worker processes
//! of Python series ([`python`]). The commands in `cmd/` are the clap adapters over it.

pub mod data;
pub mod plot;
pub mod python;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, bail};
use pwa_replay::engine::{ReplayOptions, RunMetrics};
use pwa_replay::experiment::run::{self, Replica};
use pwa_replay::experiment::{self, FigureData, Plan, Results, Unmet, Verdict};
use pwa_replay::sweep::{CellError, Shard};
use pwa_replay::workload::tracepath::sha256_bytes;
use serde::{Deserialize, Serialize};

use crate::report::atomic::write_bytes;
use crate::report::cache::{CellCache, Lookup};
use crate::report::html;
use crate::report::lock::OutLock;
use crate::report::manifest::Manifest;
use crate::report::metrics;
use crate::report::progress::Interrupted;
use crate::trace::Loader;

/// The file holding a run's (or a shard's) results.
pub const RESULTS_FILE: &str = "results.json";
/// The copy of the experiment file in its output directory.
pub const SPEC_FILE: &str = "experiment.toml";
const FORMAT: &str = "pwa-replay-experiment/1";

/// The replica cache and the stop checks around every replica (of `sweep`, `experiment` and
/// `paper`).
pub struct Replicas<'a> {
    cache: CellCache,
    resume: bool,
    lock: &'a OutLock,
    stop: &'a AtomicBool,
    source: &'a Loader,
    /// Whether the keys name the workload by the source's sha256 (not when the context does).
    by_source: bool,
    simulated: AtomicUsize,
    reused: AtomicUsize,
    damaged: AtomicUsize,
    /// The replay wall time of the reused replicas when they were computed (their `sim_wall_s`).
    reused_wall_s: Mutex<f64>,
}

impl<'a> Replicas<'a> {
    /// Replicas cached under `out/cells/`, reused when `resume`; `lock` holds `out`, `stop` is set
    /// by Ctrl-C.
    pub fn new(
        out: &Path,
        resume: bool,
        lock: &'a OutLock,
        stop: &'a AtomicBool,
        source: &'a Loader,
    ) -> Self {
        let mut r = Replicas::with_context(out, resume, lock, stop, source, BTreeMap::new());
        r.by_source = true;
        r
    }

    /// [`Replicas::new`] for replicas of one workload loaded by the caller, which `context` names
    /// in every cache key (a sweep's trace: its sha256, machine, conversion …) instead of the
    /// source's sha256 of each cell's workload label.
    pub fn with_context(
        out: &Path,
        resume: bool,
        lock: &'a OutLock,
        stop: &'a AtomicBool,
        source: &'a Loader,
        mut context: BTreeMap<String, String>,
    ) -> Self {
        context.insert("format".into(), FORMAT.into());
        Replicas {
            cache: CellCache::new(out, context),
            resume,
            lock,
            stop,
            source,
            by_source: false,
            simulated: AtomicUsize::new(0),
            reused: AtomicUsize::new(0),
            damaged: AtomicUsize::new(0),
            reused_wall_s: Mutex::new(0.0),
        }
    }

    /// The run's results, or why they are not whole: stopped by Ctrl-C (with the `--resume` hint),
    /// or the output directory gone.
    pub fn finish<T>(&self, results: Result<T, run::RunError>) -> anyhow::Result<T> {
        if self.stop.load(Ordering::SeqCst) {
            return Err(Interrupted {
                finished: self.simulated.load(Ordering::SeqCst)
                    + self.reused.load(Ordering::SeqCst),
                planned: None,
                unit: "replicas",
            }
            .into());
        }
        // A replica that failed to write because the directory went away reports the cause.
        self.lock.check()?;
        Ok(results?)
    }

    /// Where the workloads come from.
    pub fn source(&self) -> &'a Loader {
        self.source
    }

    /// `N replicas (S simulated, R reused)`.
    pub fn counts(&self) -> String {
        let (s, r, _) = self.tally();
        format!("{} replicas ({s} simulated, {r} reused)", s + r)
    }

    /// The replay wall time the reused replicas took when they were computed, in seconds.
    pub fn reused_wall_s(&self) -> f64 {
        *self
            .reused_wall_s
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Replicas simulated, reused from the cache, and damaged cache entries met (recomputed).
    pub fn tally(&self) -> (usize, usize, usize) {
        (
            self.simulated.load(Ordering::SeqCst),
            self.reused.load(Ordering::SeqCst),
            self.damaged.load(Ordering::SeqCst),
        )
    }

    /// The replica `r`: from the cache when resuming and sound, else computed and stored.
    pub fn get(
        &self,
        r: &Replica<'_>,
        compute: &dyn Fn() -> Result<RunMetrics, CellError>,
    ) -> Result<RunMetrics, CellError> {
        self.get_with(r, true, compute)
    }

    /// [`Replicas::get`] that reuses a cache entry only when `outputs_kept`: the files `compute`
    /// writes beside the metrics (a sweep's per-job tables) are all there.
    pub fn get_with(
        &self,
        r: &Replica<'_>,
        outputs_kept: bool,
        compute: &dyn Fn() -> Result<RunMetrics, CellError>,
    ) -> Result<RunMetrics, CellError> {
        if self.stop.load(Ordering::SeqCst) {
            return Err("not started: the experiment is stopping".into());
        }
        self.lock.check().map_err(|e| format!("{e:#}"))?;
        let mut fields = vec![
            ("cell", r.cell.id()),
            ("seed", r.seed.to_string()),
            ("version", env!("CARGO_PKG_VERSION").to_string()),
        ];
        if self.by_source {
            fields.push(("workload_sha256", self.source.sha256(&r.cell.workload)));
        }
        let key = self.cache.keyed(&fields);
        if self.resume {
            match self.cache.lookup_key("replica", &key) {
                Lookup::Hit(m) if outputs_kept => {
                    self.reused.fetch_add(1, Ordering::SeqCst);
                    *self
                        .reused_wall_s
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner) += m.sim_wall_s;
                    return Ok(*m);
                }
                Lookup::Damaged(why) => {
                    self.damaged.fetch_add(1, Ordering::SeqCst);
                    eprintln!("damaged cache entry, recomputed: {why}");
                }
                Lookup::Hit(_) | Lookup::Miss => {}
            }
        }
        let m = compute()?;
        self.cache
            .store_key("replica", key, &m)
            .map_err(|e| format!("{e:#}"))?;
        self.simulated.fetch_add(1, Ordering::SeqCst);
        Ok(m)
    }
}

/// A spinner with counts on a terminal; nothing otherwise.
pub struct Spinner {
    bar: Option<indicatif::ProgressBar>,
    cells: AtomicUsize,
    replicas: AtomicUsize,
}

impl Spinner {
    pub fn new(quiet: bool, title: &str) -> Self {
        use std::io::IsTerminal;
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let b = indicatif::ProgressBar::new_spinner();
            b.set_prefix(title.to_string());
            b.enable_steady_tick(std::time::Duration::from_millis(250));
            b
        });
        Spinner {
            bar,
            cells: AtomicUsize::new(0),
            replicas: AtomicUsize::new(0),
        }
    }

    pub fn event(&self, e: &run::Event) {
        let run::Event::Cell {
            label, replicas, ..
        } = e;
        let cells = self.cells.fetch_add(1, Ordering::SeqCst) + 1;
        let reps = self.replicas.fetch_add(*replicas, Ordering::SeqCst) + replicas;
        if let Some(b) = &self.bar {
            b.set_message(format!("{cells} cells, {reps} replicas; last: {label}"));
        }
    }

    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }
}

/// `results.json`: what a run or shard measured, exact (metrics as text), with the experiment's
/// hash so that `merge` only joins parts of one experiment.
#[derive(Debug, Serialize, Deserialize)]
pub struct ResultsFile {
    format: String,
    /// SHA-256 of the experiment file's text, the budget, the command line's replay options and
    /// the digests of its Python series.
    pub experiment_sha256: String,
    /// The experiment file as named on the command line.
    pub file: String,
    /// Run with the `--quick` budget.
    pub quick: bool,
    /// The command line's replay options.
    #[serde(default)]
    pub options: ReplayOptions,
    /// The digests of its Python series (label → digest of the policy's code), none without.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub policies: BTreeMap<String, String>,
    /// `I/N` for a shard.
    pub shard: Option<String>,
    /// Indices of the units run (into [`Plan::units`]).
    pub units: Vec<usize>,
    lines: Vec<LineRecord>,
    cells: BTreeMap<String, Vec<BTreeMap<String, String>>>,
}

#[derive(Debug, Serialize, Deserialize)]
struct LineRecord {
    panel: usize,
    series: usize,
    /// `[x, cell id]`, x as exact text.
    points: Vec<(String, String)>,
}

/// The hash of an experiment: its text, budget, the command line's replay options and the
/// digests of its Python series, label → digest (without options nor Python series: the hash of
/// the text and budget alone, as before either existed).
pub fn experiment_hash(
    text: &str,
    quick: bool,
    options: &ReplayOptions,
    policies: &BTreeMap<String, String>,
) -> String {
    let options = match options.key() {
        k if k.is_empty() => k,
        k => format!("options={k}|"),
    };
    let policies = if policies.is_empty() {
        String::new()
    } else {
        let pairs: Vec<String> = policies.iter().map(|(l, d)| format!("{l}={d}")).collect();
        format!("policies={}|", pairs.join("\n"))
    };
    sha256_bytes(format!("{FORMAT}|quick={quick}|{options}{policies}{text}").as_bytes())
}

/// The digests of a plan's Python series, label → digest ([`Plan::resolve_external`]).
fn policy_digests(plan: &Plan) -> BTreeMap<String, String> {
    plan.panels
        .iter()
        .flat_map(|p| p.digests.iter())
        .filter(|(_, d)| !d.is_empty())
        .map(|(l, d)| (l.clone(), d.clone()))
        .collect()
}

impl ResultsFile {
    pub fn new(
        plan: &Plan,
        text: &str,
        options: &ReplayOptions,
        shard: Option<Shard>,
        units: &[usize],
        r: &Results,
    ) -> ResultsFile {
        let policies = policy_digests(plan);
        ResultsFile {
            format: FORMAT.into(),
            experiment_sha256: experiment_hash(text, plan.quick, options, &policies),
            file: plan.file.clone(),
            quick: plan.quick,
            options: options.clone(),
            policies,
            shard: shard.map(|s| s.to_string()),
            units: units.to_vec(),
            lines: r
                .lines
                .iter()
                .map(|(&(panel, series), pts)| LineRecord {
                    panel,
                    series,
                    points: pts
                        .iter()
                        .map(|(x, id)| (x.to_string(), id.clone()))
                        .collect(),
                })
                .collect(),
            cells: r
                .cells
                .iter()
                .map(|(id, runs)| {
                    let runs = runs
                        .iter()
                        .map(|m| {
                            metrics::values(m)
                                .into_iter()
                                .map(|(n, v)| (n.to_string(), metrics::to_text(v)))
                                .chain(metrics::observed_texts(m))
                                .collect()
                        })
                        .collect();
                    (id.clone(), runs)
                })
                .collect(),
        }
    }

    /// Reads `dir/results.json`.
    pub fn read(dir: &Path) -> anyhow::Result<ResultsFile> {
        let path = dir.join(RESULTS_FILE);
        let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
        let f: ResultsFile = serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not an experiment's results", path.display()))?;
        if f.format != FORMAT {
            bail!(
                "{}: format `{}`, expected `{FORMAT}`",
                path.display(),
                f.format
            );
        }
        Ok(f)
    }

    /// The results, exact.
    pub fn results(&self) -> anyhow::Result<Results> {
        let mut r = Results::default();
        for l in &self.lines {
            let pts = l
                .points
                .iter()
                .map(|(x, id)| {
                    Ok((
                        x.parse::<f64>().with_context(|| format!("x `{x}`"))?,
                        id.clone(),
                    ))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            r.lines.insert((l.panel, l.series), pts);
        }
        for (id, runs) in &self.cells {
            let runs = runs
                .iter()
                .map(|m| {
                    let mut metrics = metrics::from_lookup(|name| {
                        let text = m.get(name).with_context(|| format!("missing `{name}`"))?;
                        metrics::from_text(name, text)
                    })?;
                    metrics::read_observed(&mut metrics, |n| m.get(n).cloned())?;
                    Ok(metrics)
                })
                .collect::<anyhow::Result<Vec<_>>>()
                .with_context(|| format!("cell {id}"))?;
            r.cells.insert(id.clone(), runs);
        }
        Ok(r)
    }
}

/// Writes the figures (CSV, PNG), `README.md` with the verdicts.
pub fn write_report(plan: &Plan, results: &Results, out: &Path) -> anyhow::Result<()> {
    let figs = experiment::figures(plan, results);
    let mut charts = Vec::new();
    for (f, spec) in figs.iter().zip(&plan.figures) {
        data::write_csv(f, out)?;
        // A series looks the same in every figure of its panel.
        let family: Vec<String> = plan.panels[spec.panel]
            .series
            .iter()
            .map(|s| s.label.clone())
            .collect();
        plot::draw_among(out, f, &family)?;
        charts.push(html::Chart::from_figure(f, &family));
    }
    let verdicts = experiment::verdicts(plan, &figs);
    let unmet = experiment::unmet(plan, results);
    if !unmet.is_empty() {
        eprintln!(
            "warning: {} cell(s) stopped at their replication maximum with a wider interval than \
             asked (listed in {})",
            unmet.len(),
            out.join("README.md").display()
        );
    }
    write_bytes(
        &out.join("README.md"),
        readme(plan, &figs, &verdicts, &unmet).as_bytes(),
    )?;
    let page = html::figure::study(
        &plan.title,
        plan.description.as_deref().unwrap_or_default().trim(),
        page_config(plan),
        charts,
        (&verdicts, plan.quick),
    );
    html::write_index(out, &page)
}

/// The machine a panel runs on, as a reader wants it named: the panel's own, else its workload's
/// (a model label's, a catalogued log's), else how a raw file's is found.
fn machine_of(p: &experiment::plan::Panel) -> String {
    if let Some(m) = p.machine {
        return m.to_string();
    }
    let x = p.xs().first().copied().unwrap_or(1.0);
    let Ok(cell) = p.cell(0, x) else {
        return "the workload's".into();
    };
    if cell.workload.trim_start().starts_with("synth:") {
        return run::Prepared::synthetic(&cell.workload, None)
            .map_or_else(|_| "the model's".into(), |w| w.machine().to_string());
    }
    crate::trace::catalog()
        .ok()
        .and_then(|c| {
            c.get(&cell.workload)
                .map(|e| e.conversion.machine.to_string())
        })
        .unwrap_or_else(|| "flat, from the file's header".into())
}

/// The configuration rows of `index.html`: the file, the budget and one row per panel.
fn page_config(plan: &Plan) -> Vec<(String, String)> {
    let mut rows = vec![
        ("file".to_string(), plan.file.clone()),
        (
            "budget".to_string(),
            if plan.quick { "--quick" } else { "full" }.to_string(),
        ),
    ];
    for p in &plan.panels {
        let series: Vec<&str> = p.series.iter().map(|s| s.label.as_str()).collect();
        rows.push((
            format!("panel {}", p.name),
            format!(
                "{} on {}; {}; x: {}",
                p.workload,
                machine_of(p),
                series.join(", "),
                p.x.label
            ),
        ));
    }
    rows
}

/// The report: the same bytes for the same results (times are in `manifest.json`).
fn readme(plan: &Plan, figs: &[FigureData], verdicts: &[Verdict], unmet: &[Unmet]) -> String {
    let mut s = format!("# {}\n\n", plan.title);
    if let Some(d) = &plan.description {
        let _ = writeln!(s, "{}\n", d.trim());
    }
    let _ = writeln!(
        s,
        "`{}`{}: {} panels, {} figures, {} claims. Every replica's metrics are in `results.json`, \
         the provenance (command line, tool version, times, file hashes) in `manifest.json`.\n",
        plan.file,
        if plan.quick {
            " (`--quick` budget)"
        } else {
            ""
        },
        plan.panels.len(),
        figs.len(),
        verdicts.len(),
    );
    if !verdicts.is_empty() {
        let held = verdicts.iter().filter(|v| v.holds == Some(true)).count();
        let _ = writeln!(
            s,
            "## Claims: {held} of {} hold{}\n",
            verdicts.len(),
            if plan.quick {
                " (indicative: --quick)"
            } else {
                ""
            }
        );
        if plan.quick {
            let _ = writeln!(s, "{}\n", html::figure::QUICK_NOTE);
        }
        s.push_str("| figure | statement | measured | verdict |\n|---|---|---|---|\n");
        for v in verdicts {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} |",
                v.figure,
                v.statement.replace('|', "\\|"),
                v.measured.replace('|', "\\|"),
                html::figure::verdict(v.holds, plan.quick)
            );
        }
        s.push('\n');
    }
    if !unmet.is_empty() {
        let _ = writeln!(
            s,
            "## Intervals wider than asked: {} cell(s)\n\nThese cells ran their panel's maximum \
             number of replications without the 95% interval reaching the target; raise `max` in \
             `replicate` for tighter points.\n\n| panel | series | x | replicas | half-width reached | target |\n|---|---|---|---|---|---|",
            unmet.len()
        );
        for u in unmet {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {:.1}% | {:.1}% |",
                u.panel,
                u.series,
                u.x,
                u.replicas,
                u.reached * 100.0,
                u.target * 100.0
            );
        }
        s.push('\n');
    }
    s.push_str("## Panels\n\n| panel | workload | machine | series | x | replicas |\n|---|---|---|---|---|---|\n");
    for p in &plan.panels {
        let series: Vec<&str> = p.series.iter().map(|s| s.label.as_str()).collect();
        let reps = if p.rule.min == p.rule.max {
            format!("{}", p.rule.max)
        } else {
            format!(
                "{}–{}, until the 95% CI of {} is within {}%",
                p.rule.min,
                p.rule.max,
                p.watch.name,
                p.rule.rel_half_width * 100.0
            )
        };
        let _ = writeln!(
            s,
            "| {} | `{}` | {} | {} | {} | {reps}{} |",
            p.name,
            p.workload,
            machine_of(p),
            series.join(", "),
            p.x.label,
            p.shake.map_or(String::new(), |m| format!(", shaken ({m})"))
        );
    }
    s.push_str("\n## Figures\n\n");
    for f in figs {
        let _ = writeln!(
            s,
            "### {}\n\n![{}]({}.png)\n\n[data]({}.csv)\n",
            f.title, f.id, f.id, f.id
        );
    }
    s
}

/// Why part `f` (in `dir`) is not of the experiment of `head` (in `first`): the Python series
/// whose code differed, when that is the difference.
fn foreign_part(f: &ResultsFile, dir: &Path, head: &ResultsFile, first: &Path) -> String {
    let differing: Vec<&str> = head
        .policies
        .iter()
        .filter(|&(l, d)| f.policies.get(l).is_some_and(|o| o != d))
        .map(|(l, _)| l.as_str())
        .collect();
    let same_labels = f.policies.keys().eq(head.policies.keys());
    if same_labels && !differing.is_empty() && f.quick == head.quick && f.options == head.options {
        return format!(
            "{} and {} ran other code for the Python series {}: their policy files (or the \
             modules those import) differed; run every shard with the same files",
            dir.display(),
            first.display(),
            differing.join(", ")
        );
    }
    format!(
        "{} is a part of another experiment (or budget) than {}",
        dir.display(),
        first.display()
    )
}

/// `pwa-replay merge OUT PART…` for the parts of an experiment (`experiment --shard I/N`): they
/// must come from one experiment file and budget, be disjoint and cover every unit; the merged
/// results go through the same writer as an unsharded run.
pub fn merge(out: &Path, parts: &[PathBuf], quiet: bool) -> anyhow::Result<()> {
    let first = parts.first().context("no parts")?;
    let text = std::fs::read_to_string(first.join(SPEC_FILE))
        .with_context(|| format!("reading {}", first.join(SPEC_FILE).display()))?;
    let head = ResultsFile::read(first)?;
    let mut plan = Plan::with_params(&head.file, &text, head.quick, &[], &head.options)?;
    // The Python series keep the digests they ran with (none in results older than them).
    plan.resolve_external(|label| Ok(head.policies.get(label).cloned().unwrap_or_default()))
        .map_err(|e| anyhow::anyhow!("{}: {e}", first.display()))?;
    let units = plan.units().len();
    let mut seen = vec![None; units];
    let mut results = Results::default();
    for dir in parts {
        let f = ResultsFile::read(dir)?;
        if f.experiment_sha256 != head.experiment_sha256 {
            bail!("{}", foreign_part(&f, dir, &head, first));
        }
        for &u in &f.units {
            let slot = seen
                .get_mut(u)
                .context("a unit the experiment does not have")?;
            if let Some(other) = slot.replace(dir.clone()) {
                bail!(
                    "{} and {} both ran unit {u}: the parts overlap",
                    other.display(),
                    dir.display()
                );
            }
        }
        results
            .merge(f.results()?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", dir.display()))?;
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(u, _)| u.to_string())
        .collect();
    if !missing.is_empty() {
        bail!(
            "units {} of {units} are in none of the parts: run their shards (with --resume) and merge again",
            missing.join(", ")
        );
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let lock = OutLock::acquire(out)?;
    let manifest = Manifest::begin(1);
    let all: Vec<usize> = (0..units).collect();
    let file = ResultsFile::new(&plan, &text, &head.options, None, &all, &results);
    write_bytes(&out.join(SPEC_FILE), text.as_bytes())?;
    write_bytes(&out.join(RESULTS_FILE), &serde_json::to_vec_pretty(&file)?)?;
    write_report(&plan, &results, out)?;
    lock.check()?;
    manifest.finish(out)?;
    if !quiet {
        eprintln!("{} parts of {} → {}", parts.len(), plan.file, out.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_covers_python_digests_and_is_unchanged_without_them() {
        let options = ReplayOptions::default();
        let none = BTreeMap::new();
        assert_eq!(
            experiment_hash("title = 't'", true, &options, &none),
            sha256_bytes(format!("{FORMAT}|quick=true|title = 't'").as_bytes()),
            "the hash of results written before Python series were covered"
        );
        let one = BTreeMap::from([("py:p.py:P".to_string(), "d1".to_string())]);
        let other = BTreeMap::from([("py:p.py:P".to_string(), "d2".to_string())]);
        let a = experiment_hash("t", false, &options, &one);
        assert_ne!(a, experiment_hash("t", false, &options, &none));
        assert_ne!(a, experiment_hash("t", false, &options, &other));
        assert_eq!(a, experiment_hash("t", false, &options, &one.clone()));
    }
}
