//! `pwa-replay draw`: pictures of one replay — occupancy snapshots of the machine at chosen
//! instants (`--at`, `--every`), the space-time chart (`--gantt`), an animated GIF of a window
//! (`--animate`), and always the run's utilization, queue length and fragmentation over time and
//! `viewer.html`, the replay to scrub through in a browser.
//! The replay options are `run`'s; the pictures are drawn by [`report::picture`](crate::report::picture)
//! from the library's [`Timeline`] and [`measure_fragmentation`].

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use pwa_replay::SimTime;
use pwa_replay::engine::{Timeline, measure_fragmentation};
use pwa_replay::workload::EstimateModel;

use super::run::{Replay, Replayed};
use crate::report::manifest::{Manifest, TraceInfo};
use crate::report::picture::{self, Window, gantt, series};
use crate::report::{html, human};
use crate::trace::LoadedTrace;

/// Most snapshots one call draws (`--every` over a long window).
pub const MAX_SNAPSHOTS: usize = 500;

/// Options of `pwa-replay draw`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The replay (as for `run`).
    #[command(flatten)]
    pub replay: Replay,
    /// Snapshot instants, seconds since the first submit (`--at 3600,7200`).
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "T1,T2,…",
        conflicts_with = "every"
    )]
    pub at: Vec<f64>,
    /// A snapshot every D seconds over the window.
    #[arg(long, value_name = "D")]
    pub every: Option<f64>,
    /// The time window of the chart, the animation, the time series and `--every`, seconds since
    /// the first submit (default: the whole run).
    #[arg(long, value_name = "FROM:TO")]
    pub window: Option<Window>,
    /// Draw the space-time chart (node × time) of the window: gantt.png.
    #[arg(long)]
    pub gantt: bool,
    /// Draw an animated GIF of the window: animation.gif.
    #[arg(long)]
    pub animate: bool,
    /// Frames of the animation, spread evenly over the window.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(2..=300))]
    pub frames: u32,
    /// Output directory.
    #[arg(long, default_value = "out/draw")]
    pub out: PathBuf,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let manifest = Manifest::begin(1);
    let Replayed {
        trace: t,
        workload,
        outcome,
        alloc,
        ..
    } = args.replay.run()?;
    let r = &args.replay;
    let tl = Timeline::new(&workload, &outcome, t.machine);
    let span = tl.span();
    let window = window(args.window, span)?;
    let instants = instants(&args, window, span)?;
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let title = format!(
        "{} on {} — {} + {}, load factor {}",
        t.name, t.machine, r.sched, alloc, r.load_factor
    );
    let mut written = Vec::new();
    for (k, &at) in instants.iter().enumerate() {
        let path = args.out.join(format!("snapshot-{k:03}.png"));
        picture::write_snapshot(&path, &tl, &title, at)?;
        written.push(path);
    }
    let frag = measure_fragmentation(&tl, alloc);
    let path = args.out.join("timeseries.png");
    series::draw(&path, &frag, window, &title)?;
    written.push(path);
    if args.gantt {
        let path = args.out.join("gantt.png");
        gantt::draw(&path, &tl, window, &title, &instants)?;
        written.push(path);
    }
    html::viewer::write(&args.out, &tl, &frag, window, &title)?;
    written.push(args.out.join(html::viewer::VIEWER));
    if args.animate {
        let path = args.out.join("animation.gif");
        picture::write_animation(&path, &tl, &title, &window.spread(args.frames as usize))?;
        written.push(path);
    }
    provenance(manifest, &t, r.estimate).finish(&args.out)?;
    report(&written, &frag, span)
}

/// The manifest of the pictures: trace, conversion, machine and estimate model of the replay.
fn provenance(mut m: Manifest, t: &LoadedTrace, estimate: EstimateModel) -> Manifest {
    m.trace = Some(TraceInfo {
        name: t.name.clone(),
        file: std::fs::canonicalize(&t.path)
            .unwrap_or_else(|_| t.path.clone())
            .display()
            .to_string(),
        sha256: t.sha256.clone(),
    });
    m.conversion = Some(format!("{:?}", t.conversion));
    m.machine = Some(t.machine.to_string());
    m.estimates = vec![estimate.to_string()];
    m
}

/// The window asked for, or the whole run; it must overlap the run.
fn window(asked: Option<Window>, (first, last): (SimTime, SimTime)) -> anyhow::Result<Window> {
    let whole = Window {
        from: first,
        to: if last > first { last } else { first + 1.0 },
    };
    let Some(w) = asked else { return Ok(whole) };
    if w.to < whole.from || w.from > whole.to {
        bail!(
            "--window {w}: the run spans {} … {} s",
            human::count(whole.from as u64),
            human::count(whole.to.ceil() as u64)
        );
    }
    Ok(w)
}

/// The snapshot instants: `--at` (each inside the run) or `--every` over the window.
fn instants(
    args: &Args,
    window: Window,
    (first, last): (SimTime, SimTime),
) -> anyhow::Result<Vec<SimTime>> {
    if let Some(d) = args.every {
        if !(d > 0.0 && d.is_finite()) {
            bail!("--every {d}: the step must be a positive number of seconds");
        }
        let n = ((window.to - window.from) / d).floor() as usize + 1;
        if n > MAX_SNAPSHOTS {
            bail!(
                "--every {d} gives {n} snapshots over {window} (at most {MAX_SNAPSHOTS}): take a longer step or a shorter --window"
            );
        }
        return Ok((0..n).map(|k| window.from + k as f64 * d).collect());
    }
    for &t in &args.at {
        if !(t >= first && t <= last) {
            bail!(
                "--at {t}: outside the run, which spans {} … {} s since the first submit",
                human::count(first as u64),
                human::count(last.ceil() as u64)
            );
        }
    }
    Ok(args.at.clone())
}

/// One line per file written, then the run's fragmentation figures.
fn report(
    written: &[PathBuf],
    frag: &pwa_replay::engine::Fragmentation,
    span: (SimTime, SimTime),
) -> anyhow::Result<()> {
    let mut text = String::new();
    for p in written {
        text += &format!("wrote {}\n", display(p));
    }
    text += &format!(
        "run {} … {} s: external fragmentation {}, jobs delayed by fragmentation {} ({}), mean free regions {}\n",
        human::count(span.0 as u64),
        human::count(span.1.ceil() as u64),
        human::real(frag.external()),
        human::count(frag.delayed_jobs()),
        human::real(frag.delayed_share()),
        human::real(frag.mean_free_regions()),
    );
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("writing to stdout")
}

fn display(p: &Path) -> String {
    p.display().to_string()
}
