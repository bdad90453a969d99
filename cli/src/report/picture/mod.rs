//! Pictures of one replay (`pwa-replay draw`): where jobs ran and why jobs waited.
//!
//! * [`snapshot`]: the machine at an instant, drawn as its topology ([`layout`]), with the waiting
//!   queue beside it — a PNG per instant ([`write_snapshot`]), or the frames of an animated GIF
//!   over a window ([`write_animation`]);
//! * [`gantt`]: the space-time chart, node × time;
//! * [`series`]: utilization, queue length, external fragmentation and free regions over time.
//!
//! A job has the same colour in all of them ([`palette::job_colour`](super::palette::job_colour),
//! keyed by its number in the source). The library supplies the data ([`Timeline`],
//! [`Fragmentation`](pwa_replay::engine::Fragmentation)); this module only draws.

pub mod gantt;
pub mod layout;
pub mod series;
pub mod snapshot;

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use anyhow::Context;
use plotters::prelude::*;
use pwa_replay::SimTime;
use pwa_replay::engine::Timeline;

use super::human;
use super::plots::{Area, register_font};
use layout::Layout;
use snapshot::Scene;

/// Size of a snapshot, chart or time-series figure, pixels.
pub const FIGURE: (u32, u32) = (1200, 800);
/// Size of an animation frame, pixels (small: a GIF holds every frame).
pub const FRAME: (u32, u32) = (800, 520);
/// Delay between animation frames, milliseconds.
pub const FRAME_DELAY_MS: u32 = 200;

/// A time window `[from, to]`, seconds since the first submit (`--window FROM:TO`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Start.
    pub from: SimTime,
    /// End (after `from`).
    pub to: SimTime,
}

impl Window {
    /// Whether `t` lies in the window.
    pub fn contains(&self, t: SimTime) -> bool {
        (self.from..=self.to).contains(&t)
    }

    /// `n` instants spread evenly over the window, both ends included (`n ≥ 2`).
    pub fn spread(&self, n: usize) -> Vec<SimTime> {
        let n = n.max(2);
        (0..n)
            .map(|k| self.from + (self.to - self.from) * k as f64 / (n - 1) as f64)
            .collect()
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.from, self.to)
    }
}

impl FromStr for Window {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (a, b) = s
            .split_once(':')
            .ok_or_else(|| format!("`{s}` is not FROM:TO (seconds, e.g. 0:86400)"))?;
        let num = |t: &str| {
            t.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("`{t}` in `{s}` is not a number of seconds"))
        };
        let (from, to) = (num(a)?, num(b)?);
        if to <= from {
            return Err(format!("window `{s}`: TO must be after FROM"));
        }
        Ok(Window { from, to })
    }
}

/// A time-axis tick: whole seconds with thousands separators (`10,086,400`).
pub fn time_tick(v: f64) -> String {
    human::count(v.max(0.0).round() as u64)
}

/// Draws `paint` on a white `size` canvas into `path`, through a temporary name renamed over it.
pub fn write_png(
    path: &Path,
    size: (u32, u32),
    paint: impl FnOnce(&Area<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    register_font()?;
    let tmp = temp_name(path, "png");
    let result = (|| {
        let root = BitMapBackend::new(&tmp, size).into_drawing_area();
        root.fill(&WHITE)?;
        paint(&root)?;
        root.present()?;
        Ok(())
    })()
    .and_then(|()| std::fs::rename(&tmp, path).context("renaming the picture"));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("drawing {}", path.display()))
}

fn temp_name(path: &Path, ext: &str) -> std::path::PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    path.with_file_name(format!("{stem}.tmp-{}.{ext}", std::process::id()))
}

/// The scene of `tl` at `t`.
pub fn scene_at<'a>(
    tl: &Timeline<'a>,
    layout: &'a Layout,
    title: &'a str,
    t: SimTime,
) -> Scene<'a> {
    Scene {
        title,
        t,
        owners: tl.owners_at(t),
        waiting: tl.waiting_at(t),
        workload: tl.workload(),
        layout,
    }
}

/// The snapshot of `tl` at `t`, as a PNG.
pub fn write_snapshot(
    path: &Path,
    tl: &Timeline<'_>,
    title: &str,
    t: SimTime,
) -> anyhow::Result<()> {
    let layout = Layout::of(tl.machine());
    let scene = scene_at(tl, &layout, title, t);
    write_png(path, FIGURE, |root| snapshot::paint(root, &scene))
}

/// Snapshots of `tl` at `instants`, one GIF frame each ([`FRAME`] pixels, [`FRAME_DELAY_MS`]
/// apart), written through a temporary name.
pub fn write_animation(
    path: &Path,
    tl: &Timeline<'_>,
    title: &str,
    instants: &[SimTime],
) -> anyhow::Result<()> {
    register_font()?;
    let layout = Layout::of(tl.machine());
    let tmp = temp_name(path, "gif");
    let result = (|| {
        let root = BitMapBackend::gif(&tmp, FRAME, FRAME_DELAY_MS)?.into_drawing_area();
        for &t in instants {
            snapshot::paint(&root, &scene_at(tl, &layout, title, t))?;
            root.present()?;
        }
        Ok(())
    })()
    .and_then(|()| std::fs::rename(&tmp, path).context("renaming the animation"));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("drawing {}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_and_spread() {
        let w: Window = "10:20".parse().unwrap();
        assert_eq!(
            w,
            Window {
                from: 10.0,
                to: 20.0
            }
        );
        assert_eq!(w.spread(3), [10.0, 15.0, 20.0]);
        assert!(w.contains(20.0) && !w.contains(21.0));
        for bad in ["10", "a:2", "5:5", "9:3", "0:inf"] {
            assert!(bad.parse::<Window>().is_err(), "{bad}");
        }
    }
}
