//! `pwa-replay draw`: every picture rendered and decoded — size, content (job colours, not a blank
//! canvas), a job's colour and cells identical in two snapshots, the animation's frame count — and
//! the errors for instants and windows outside the run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

use crate::support::{Image, bin, fails_with, ok, read_png, swf_line, write};

impl Image {
    /// Pixel counts of the saturated colours (jobs; not white, greys, black or text edges) in
    /// columns `x0..x1`, rows `y0..y1`, keeping colours of at least `min` pixels.
    fn job_colours(
        &self,
        (x0, x1): (u32, u32),
        (y0, y1): (u32, u32),
        min: usize,
    ) -> BTreeMap<[u8; 3], usize> {
        let mut counts = BTreeMap::new();
        for y in y0..y1 {
            for x in x0..x1 {
                let p = self.rgb[(y * self.width + x) as usize];
                let spread = p.iter().max().unwrap() - p.iter().min().unwrap();
                if spread > 40 {
                    *counts.entry(p).or_insert(0) += 1;
                }
            }
        }
        counts.retain(|_, n| *n >= min);
        counts
    }
}

/// On flat:8: job 1 (4 nodes) runs 0..100; job 2 (4 nodes) 10..50; job 3 (6 nodes) arrives at 20
/// and waits for job 1 (100..110).
fn fixture(dir: &Path) -> PathBuf {
    let text = String::from("; Version: 2.2\n")
        + &swf_line(1, 0, 100, 4, 1)
        + &swf_line(2, 10, 40, 4, 1)
        + &swf_line(3, 20, 10, 6, 1);
    write(dir, "three.swf", &text)
}

fn draw(trace: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut c = bin();
    c.args([
        "draw",
        "--trace",
        trace.to_str().unwrap(),
        "--machine",
        "flat:8",
    ])
    .args([
        "--sched",
        "fcfs",
        "--alloc",
        "flat",
        "--out",
        out.to_str().unwrap(),
    ])
    .args(extra);
    c
}

#[test]
fn a_job_keeps_its_colour_and_cells_across_snapshots() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("pics");
    let stdout = ok(&mut draw(&fixture(dir.path()), &out, &["--at", "30,60"])).stdout;
    let stdout = String::from_utf8(stdout).unwrap();
    assert!(stdout.contains("snapshot-000.png") && stdout.contains("snapshot-001.png"));
    let a = read_png(&out.join("snapshot-000.png"));
    let b = read_png(&out.join("snapshot-001.png"));
    assert_eq!((a.width, a.height), (1200, 800));
    assert_eq!((b.width, b.height), (1200, 800));
    // The machine is drawn left of the queue panel, below the title.
    let (xs, ys) = ((0, 880), (90, 790));
    let at_30 = a.job_colours(xs, ys, 2000);
    let at_60 = b.job_colours(xs, ys, 2000);
    assert_eq!(at_30.len(), 2, "jobs 1 and 2 run at 30: {at_30:?}");
    assert_eq!(at_60.len(), 1, "only job 1 runs at 60: {at_60:?}");
    let (job1, cells) = at_60.iter().next().unwrap();
    assert_eq!(
        at_30.get(job1),
        Some(cells),
        "job 1: same colour, same cells"
    );
    // Job 3 waits at both instants: the queue panel shows it in one colour, not job 1's.
    let queue_a = a.job_colours((900, 1200), (80, 800), 50);
    let queue_b = b.job_colours((900, 1200), (80, 800), 50);
    assert_eq!(
        queue_a.keys().collect::<Vec<_>>(),
        queue_b.keys().collect::<Vec<_>>()
    );
    assert!(!queue_a.is_empty() && !queue_a.contains_key(job1));
}

#[test]
fn chart_series_and_animation_are_drawn() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("pics");
    let trace = fixture(dir.path());
    ok(&mut draw(
        &trace,
        &out,
        &["--gantt", "--animate", "--frames", "7", "--window", "0:110"],
    ));
    let gantt = read_png(&out.join("gantt.png"));
    assert_eq!((gantt.width, gantt.height), (1200, 800));
    assert_eq!(
        gantt.job_colours((0, 1200), (0, 800), 500).len(),
        3,
        "three jobs"
    );
    let series = read_png(&out.join("timeseries.png"));
    assert_eq!((series.width, series.height), (1200, 800));
    assert!(
        series.job_colours((0, 1200), (0, 800), 100).len() >= 3,
        "three curves"
    );
    let file = std::fs::File::open(out.join("animation.gif")).expect("animation.gif");
    let mut decoder = gif::DecodeOptions::new()
        .read_info(file)
        .expect("GIF header");
    assert_eq!((decoder.width(), decoder.height()), (800, 520));
    let mut frames = Vec::new();
    while let Some(frame) = decoder.read_next_frame().expect("GIF frame") {
        frames.push(frame.buffer.to_vec());
    }
    assert_eq!(frames.len(), 7);
    assert_ne!(frames[0], frames[3], "the machine changes over the window");
    // The pictures carry their provenance like every output directory.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).expect("manifest.json"))
            .expect("JSON");
    for file in ["gantt.png", "timeseries.png", "animation.gif"] {
        assert!(manifest["files"][file].is_string(), "{file} hashed");
    }
    ok(bin().arg("verify").arg(&out));
}

#[test]
fn every_topology_draws_its_machine() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (trace, alloc, at) in [
        (
            "synth:uniform,mesh=16x16,jobs=300,rate=1,seed=2",
            "ff",
            "110",
        ),
        (
            "synth:hypercube,dim=6,size=uniform,demand=uniform,dist=independent,load=0.9,jobs=200,seed=1",
            "buddy",
            "20",
        ),
    ] {
        let out = dir.path().join(alloc);
        let mut c = bin();
        c.args([
            "draw", "--trace", trace, "--sched", "fcfs", "--alloc", alloc,
        ])
        .args([
            "--load-factor",
            "1.5",
            "--at",
            at,
            "--out",
            out.to_str().unwrap(),
        ]);
        ok(&mut c);
        let img = read_png(&out.join("snapshot-000.png"));
        assert!(
            !img.job_colours((0, 880), (90, 790), 200).is_empty(),
            "{trace}: busy nodes drawn"
        );
    }
}

#[test]
fn instants_and_windows_outside_the_run_are_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("pics");
    let trace = fixture(dir.path());
    fails_with(
        &mut draw(&trace, &out, &["--at", "5000"]),
        &["--at 5000", "spans 0 … 110 s"],
    );
    fails_with(
        &mut draw(&trace, &out, &["--window", "9:3"]),
        &["TO must be after FROM"],
    );
    fails_with(
        &mut draw(&trace, &out, &["--window", "500:900"]),
        &["--window 500:900", "spans"],
    );
    fails_with(
        &mut draw(&trace, &out, &["--every", "0"]),
        &["--every 0", "positive"],
    );
    fails_with(
        &mut draw(&trace, &out, &["--every", "0.01"]),
        &["snapshots", "at most 500"],
    );
    fails_with(
        &mut draw(&trace, &out, &["--frames", "1000", "--animate"]),
        &["--frames"],
    );
}

/// Non-contiguous allocation on mesh:4x2 with paging:0: job 1 (1 node) takes (0,0); job 2 (4 nodes)
/// takes the next free nodes in row-major order, (1,0)…(3,0) and (0,1) — two pieces that do not
/// touch. The snapshot paints both pieces in job 2's one colour: four cells of it to job 1's one.
#[test]
fn a_job_s_pieces_are_drawn_in_its_one_colour() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("pics");
    let text =
        String::from("; Version: 2.2\n") + &swf_line(1, 0, 100, 1, 1) + &swf_line(2, 0, 100, 4, 1);
    let trace = write(dir.path(), "pieces.swf", &text);
    let mut c = bin();
    c.args([
        "draw",
        "--trace",
        trace.to_str().unwrap(),
        "--machine",
        "mesh:4x2",
    ])
    .args(["--sched", "fcfs", "--alloc", "paging:0"])
    .args(["--at", "50", "--out", out.to_str().unwrap()]);
    ok(&mut c);
    let snap = read_png(&out.join("snapshot-000.png"));
    let colours = snap.job_colours((0, 880), (90, 790), 2000);
    assert_eq!(colours.len(), 2, "two jobs, one colour each: {colours:?}");
    let mut counts: Vec<usize> = colours.values().copied().collect();
    counts.sort_unstable();
    let ratio = counts[1] as f64 / counts[0] as f64;
    assert!(
        (3.5..4.5).contains(&ratio),
        "job 2 holds 4 cells to job 1's 1: {counts:?}"
    );
}
