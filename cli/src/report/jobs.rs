//! Per-cell outputs: the per-job table (`--per-job`, Parquet) and the simulated schedule as SWF
//! (`--swf-out`), named after the cell (`jobs/window-240_mpl_lf0.3.parquet`,
//! `swf/window-240_mpl_lf0.3.swf`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use polars::prelude::{Column, DataFrame, ParquetWriter};
use pwa_replay::engine::Outcome;
use pwa_replay::machine::Placement;
use pwa_replay::sweep::Cell;
use pwa_replay::swf::{self, Header, Record};
use pwa_replay::workload::Workload;

use super::atomic::write_atomic;

/// A file-name stem for a cell: labels joined by `_`, `:` replaced by `-`.
pub fn stem(cell: &Cell) -> String {
    format!(
        "{}_{}_lf{}",
        cell.scheduler, cell.allocator, cell.load_factor
    )
    .replace([':', '/', ' '], "-")
}

/// Path of a cell's per-job table under the sweep directory.
pub fn per_job_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join("jobs").join(format!("{}.parquet", stem(cell)))
}

/// Path of a cell's SWF schedule under the sweep directory.
pub fn swf_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join("swf").join(format!("{}.swf", stem(cell)))
}

/// The per-job table of one replay: one row per job in arrival order.
pub fn per_job_frame(w: &Workload, out: &Outcome) -> anyhow::Result<DataFrame> {
    let n = w.jobs.len();
    let recs = &out.records;
    let col_f = |name: &str, f: &dyn Fn(usize) -> f64| {
        Column::new(name.into(), (0..n).map(f).collect::<Vec<f64>>())
    };
    let cols = vec![
        Column::new(
            "job_id".into(),
            w.jobs.iter().map(|j| j.source_id).collect::<Vec<u64>>(),
        ),
        col_f("submit_s", &|i| w.jobs[i].submit),
        col_f("start_s", &|i| recs[i].start),
        col_f("end_s", &|i| recs[i].end),
        col_f("wait_s", &|i| recs[i].start - w.jobs[i].submit),
        col_f("run_s", &|i| w.jobs[i].runtime),
        Column::new(
            "size".into(),
            recs.iter()
                .map(|r| r.placement.nodes())
                .collect::<Vec<u32>>(),
        ),
        Column::new(
            "asked_procs".into(),
            w.jobs.iter().map(|j| j.asked_procs).collect::<Vec<u32>>(),
        ),
        Column::new(
            "shape".into(),
            recs.iter()
                .map(|r| shape(&r.placement))
                .collect::<Vec<String>>(),
        ),
        Column::new(
            "placement".into(),
            recs.iter()
                .map(|r| placement(&r.placement))
                .collect::<Vec<String>>(),
        ),
        Column::new(
            "rotated".into(),
            recs.iter()
                .map(|r| matches!(r.placement, Placement::Submesh { rotated: true, .. }))
                .collect::<Vec<bool>>(),
        ),
    ];
    DataFrame::new(n, cols).context("building the per-job table")
}

fn shape(p: &Placement) -> String {
    match p {
        Placement::Submesh { at, .. } => at.shape.to_string(),
        other => format!("{}", other.nodes()),
    }
}

fn placement(p: &Placement) -> String {
    match p {
        Placement::Submesh { at, .. } => {
            let (xb, yb, xe, ye) = at.paper();
            format!("({xb},{yb},{xe},{ye})")
        }
        other => format!("{} nodes", other.nodes()),
    }
}

/// Writes a cell's per-job table.
pub fn write_per_job(path: &Path, w: &Workload, out: &Outcome) -> anyhow::Result<()> {
    let mut df = per_job_frame(w, out)?;
    write_atomic(path, |f| {
        ParquetWriter::new(f)
            .finish(&mut df)
            .map(|_| ())
            .context("writing Parquet")
    })
}

/// Writes the simulated schedule as SWF: submit (s, after load scaling, rounded), wait = start −
/// submit (rounded), run time, allocated processors = nodes granted × processors per node,
/// requested processors = asked, status 1; other fields −1.
pub fn write_swf(path: &Path, header: &Header, w: &Workload, out: &Outcome) -> anyhow::Result<()> {
    write_atomic(path, |f| {
        swf::write_header(f, header)?;
        for (job, rec) in w.jobs.iter().zip(&out.records) {
            let submit = job.submit.round();
            let granted = i64::from(rec.placement.nodes()) * i64::from(w.procs_per_node.max(1));
            let r = Record {
                job_id: job.source_id,
                submit: Some(submit as i64),
                wait: Some((rec.start.round() - submit).max(0.0) as i64),
                run_time: Some(job.runtime.round() as i64),
                allocated_procs: Some(granted),
                requested_procs: Some(i64::from(job.asked_procs)),
                status: Some(1),
                ..Record::default()
            };
            swf::write_record(f, &r)?;
        }
        Ok(())
    })
}
