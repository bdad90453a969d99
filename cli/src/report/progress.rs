//! Sweep progress on stderr: an indicatif bar on a terminal (cells done / total, ETA, the slowest
//! running cell), one plain line per finished cell otherwise, nothing when quiet.

use std::collections::BTreeMap;
use std::fmt;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use pwa_replay::sweep::CellEvent;

type Running = Arc<Mutex<BTreeMap<usize, (String, Instant)>>>;

/// The progress display of one sweep.
pub struct Progress {
    bar: Option<ProgressBar>,
    lines: bool,
    running: Running,
    planned: AtomicUsize,
    done: AtomicUsize,
}

impl Progress {
    /// A bar when stderr is a terminal, plain lines otherwise, nothing when `quiet`. With
    /// `open_ended` (`--loads auto`, where cells are planned as the sweep goes) the bar shows cells
    /// done and planned but no ETA, which would be meaningless.
    pub fn new(quiet: bool, open_ended: bool) -> Self {
        let running: Running = Arc::default();
        let terminal = std::io::stderr().is_terminal();
        let bar = (!quiet && terminal).then(|| bar(running.clone(), open_ended));
        Progress {
            bar,
            lines: !quiet && !terminal,
            running,
            planned: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
        }
    }

    /// Handles one event of the sweep (called from worker threads).
    pub fn event(&self, e: CellEvent) {
        match e {
            CellEvent::Planned { cells } => {
                let before = self.planned.fetch_add(cells, Ordering::SeqCst);
                if let Some(b) = &self.bar {
                    b.inc_length(cells as u64);
                    if before == 0 {
                        // Ticking starts with the first planned cell: no empty "0/0" bar.
                        b.enable_steady_tick(Duration::from_millis(250));
                    }
                }
            }
            CellEvent::Started { id, cell } => {
                self.lock().insert(id, (cell.to_string(), Instant::now()));
            }
            CellEvent::Finished { id, cell, wall_s } => {
                self.lock().remove(&id);
                let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
                if let Some(b) = &self.bar {
                    b.inc(1);
                } else if self.lines {
                    let planned = self.planned.load(Ordering::SeqCst);
                    eprintln!("[{done}/{planned}] {wall_s:7.2} s  {cell}");
                }
            }
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Some(b) = &self.bar {
            b.finish_and_clear();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<usize, (String, Instant)>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn bar(running: Running, open_ended: bool) -> ProgressBar {
    let slowest = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
        let r = running.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((label, t0)) = r.values().min_by_key(|(_, t0)| *t0) {
            let _ = write!(w, "slowest: {label} ({:.1} s)", t0.elapsed().as_secs_f64());
        }
    };
    let template = if open_ended {
        "{spinner} [{elapsed_precise}] {pos} cells done, {len} planned (auto loads) · {slowest}"
    } else {
        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} cells · ETA {eta} · {slowest}"
    };
    let style = ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key("slowest", slowest);
    ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr()).with_style(style)
}

/// The flag a first Ctrl-C raises (stop starting work, keep what finished); a second Ctrl-C ends the
/// process at once with status 130.
pub fn stop_on_ctrl_c() -> anyhow::Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register_conditional_shutdown(
        signal_hook::consts::SIGINT,
        130,
        Arc::clone(&stop),
    )
    .and_then(|_| signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&stop)))
    .context("installing the Ctrl-C handler")?;
    Ok(stop)
}

/// A sweep or experiment stopped by Ctrl-C: what was kept (printed as is; the process exits 130).
#[derive(Debug)]
pub struct Interrupted {
    /// Cells (replicas, for an experiment) finished, simulated or reused, before the interrupt,
    /// all in the cache.
    pub finished: usize,
    /// Cells planned, where known (an experiment's series climb as results come in).
    pub planned: Option<usize>,
    /// What was counted: `cells` or `replicas`.
    pub unit: &'static str,
}

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "interrupted: {}", self.finished)?;
        if let Some(planned) = self.planned {
            write!(f, " of {planned}")?;
        }
        write!(
            f,
            " {} finished and kept; rerun with --resume to continue",
            self.unit
        )
    }
}

impl std::error::Error for Interrupted {}
