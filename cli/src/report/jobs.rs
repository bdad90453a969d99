//! Per-cell outputs: the per-job table (`--per-job`, Parquet), the per-user table (every cell)
//! and the simulated schedule as SWF (`--swf-out`), named after the cell
//! (`jobs/window-240_mpl_lf0.3.parquet`, `users/window-240_mpl_lf0.3.parquet`,
//! `swf/window-240_mpl_lf0.3.swf`).
//!
//! A per-job table is written in parts of rows, each built, written and freed in turn, so that
//! memory holds one part, not the whole table (a replay of ten million jobs): a Parquet file gets
//! the row groups `ParquetWriter::finish` makes of a whole frame ([`row_groups`]), so its bytes are
//! those of the frame written at once; CSV is the same text whatever the parts.

use std::collections::HashMap;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::Context;
use polars::prelude::{Column, CsvWriter, DataFrame, ParquetWriter, Schema, SerWriter};
use pwa_replay::engine::Outcome;
use pwa_replay::engine::columns::{JobColumn, job_table_rows};
use pwa_replay::engine::users::{UserRow, user_table};
use pwa_replay::machine::MachineSpec;
use pwa_replay::sweep::Cell;
use pwa_replay::swf::{self, Header, Record};
use pwa_replay::workload::{EstimateModel, Workload};

use super::atomic::write_atomic;

/// A file-name stem for a cell: labels joined by `_`, `:` replaced by `-`.
pub fn stem(cell: &Cell) -> String {
    let estimate = match cell.estimate {
        EstimateModel::Exact => String::new(),
        e => format!("_{e}"),
    };
    format!(
        "{}_{}_lf{}{estimate}",
        cell.scheduler, cell.allocator, cell.load_factor
    )
    .replace([':', '/', ' '], "-")
}

/// Path of a cell's per-job table under the sweep directory.
pub fn per_job_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join("jobs").join(format!("{}.parquet", stem(cell)))
}

/// Path of a cell's per-user table under the sweep directory.
pub fn users_table_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join("users").join(format!("{}.parquet", stem(cell)))
}

/// Path of a cell's SWF schedule under the sweep directory.
pub fn swf_path(dir: &Path, cell: &Cell) -> PathBuf {
    dir.join("swf").join(format!("{}.swf", stem(cell)))
}

/// Rows `rows` of the per-job table of one replay on `machine` (one row per job in arrival order:
/// the library's [`job_table_rows`] as a frame).
fn per_job_rows(
    w: &Workload,
    machine: MachineSpec,
    out: &Outcome,
    rows: Range<usize>,
) -> anyhow::Result<DataFrame> {
    frame(rows.len(), job_table_rows(w, machine, out, rows)).context("building the per-job table")
}

/// A table of the library (per-job or per-user rows) as a frame of `height` rows.
fn frame(height: usize, table: Vec<(&str, JobColumn)>) -> polars::prelude::PolarsResult<DataFrame> {
    let cols = table
        .into_iter()
        .map(|(name, values)| match values {
            JobColumn::Ids(v) => Column::new(name.into(), v),
            JobColumn::Reals(v) => Column::new(name.into(), v),
            JobColumn::Counts(v) => Column::new(name.into(), v),
            JobColumn::Signed(v) => Column::new(name.into(), v),
            JobColumn::Texts(v) => Column::new(name.into(), v),
            JobColumn::Flags(v) => Column::new(name.into(), v),
        })
        .collect();
    DataFrame::new(height, cols)
}

/// The per-user table of one replay ([`user_table`] as a frame).
pub fn per_user_frame(rows: &[UserRow]) -> anyhow::Result<DataFrame> {
    frame(rows.len(), user_table(rows)).context("building the per-user table")
}

/// The per-user table's path beside a per-job table's: `jobs.parquet` → `jobs.users.parquet`.
pub fn users_path(jobs: &Path) -> PathBuf {
    let ext = jobs
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("parquet");
    jobs.with_extension(format!("users.{ext}"))
}

/// Writes the per-user table as CSV or Parquet, by the path's extension (`.csv`, else Parquet),
/// on the calling thread: a sweep writes one per cell from its workers, and a parallel writer
/// would make a worker waiting for it steal further cells, holding back its cache entry until
/// they are done.
pub fn write_users(path: &Path, rows: &[UserRow]) -> anyhow::Result<()> {
    let mut df = per_user_frame(rows)?;
    let csv = path.extension().is_some_and(|e| e == "csv");
    write_atomic(path, |f| {
        if csv {
            CsvWriter::new(f).finish(&mut df).context("writing CSV")
        } else {
            ParquetWriter::new(f)
                .set_parallel(false)
                .finish(&mut df)
                .map(|_| ())
                .context("writing Parquet")
        }
    })
    .with_context(|| format!("writing the per-user table {}", path.display()))
}

/// Rows per row group of `ParquetWriter::finish` (polars' default, 512²).
const ROW_GROUP_ROWS: usize = 512 * 512;

/// Rows per part of a CSV table.
const CSV_PART_ROWS: usize = 1 << 16;

/// The row groups `ParquetWriter::finish` makes of a one-chunk frame of `n` rows: one group below
/// [`ROW_GROUP_ROWS`], else `k = n / ROW_GROUP_ROWS` groups of `n / k` rows, the last taking the
/// remainder.
fn row_groups(n: usize) -> Vec<Range<usize>> {
    let k = (n / ROW_GROUP_ROWS).max(1);
    let size = n / k;
    (0..k)
        .map(|g| g * size..if g + 1 == k { n } else { (g + 1) * size })
        .collect()
}

/// `0..n` in parts of `size` rows (one empty part when `n` is 0, so the header is written).
fn parts(n: usize, size: usize) -> Vec<Range<usize>> {
    if n == 0 {
        return std::iter::once(0..0).collect();
    }
    (0..n.div_ceil(size))
        .map(|p| p * size..((p + 1) * size).min(n))
        .collect()
}

/// The per-job table's columns (those of its empty range of rows).
fn schema(w: &Workload, machine: MachineSpec, out: &Outcome) -> anyhow::Result<Schema> {
    Ok(per_job_rows(w, machine, out, 0..0)?
        .schema()
        .as_ref()
        .clone())
}

/// Writes the per-job table as Parquet, one row group at a time.
pub fn write_parquet(
    f: impl Write,
    w: &Workload,
    machine: MachineSpec,
    out: &Outcome,
) -> anyhow::Result<()> {
    let schema = schema(w, machine, out)?;
    let mut writer = ParquetWriter::new(f)
        .batched(&schema)
        .context("writing Parquet")?;
    for rows in row_groups(w.jobs.len()) {
        let df = per_job_rows(w, machine, out, rows)?;
        writer.write_batch(&df).context("writing Parquet")?;
    }
    writer.finish().map(|_| ()).context("writing Parquet")
}

/// Writes the per-job table as CSV, [`CSV_PART_ROWS`] rows at a time.
pub fn write_csv(
    f: impl Write,
    w: &Workload,
    machine: MachineSpec,
    out: &Outcome,
) -> anyhow::Result<()> {
    let schema = schema(w, machine, out)?;
    let mut writer = CsvWriter::new(f).batched(&schema).context("writing CSV")?;
    for rows in parts(w.jobs.len(), CSV_PART_ROWS) {
        let df = per_job_rows(w, machine, out, rows)?;
        writer.write_batch(&df).context("writing CSV")?;
    }
    writer.finish().context("writing CSV")
}

/// Writes a cell's per-job table.
pub fn write_per_job(
    path: &Path,
    w: &Workload,
    machine: MachineSpec,
    out: &Outcome,
) -> anyhow::Result<()> {
    write_atomic(path, |f| write_parquet(f, w, machine, out))
}

/// The SWF fields a [`Job`] does not carry — 14 (executable), 17 (preceding job) and 18 (think
/// time) — by job number, read again from the source log for `--swf-out` (the first line of a
/// job number that appears twice).
#[derive(Debug, Default)]
pub struct SourceFields(HashMap<u64, [Option<i64>; 3]>);

impl SourceFields {
    /// The fields of the log at `path` (lines malformed are skipped, as a lenient load does).
    pub fn read(path: &Path) -> anyhow::Result<SourceFields> {
        let reader = swf::SwfReader::open(path, swf::ReadOptions::lenient())?;
        let mut fields = HashMap::new();
        for record in reader {
            let r = record?;
            fields
                .entry(r.job_id)
                .or_insert([r.executable, r.preceding_job, r.think_time]);
        }
        Ok(SourceFields(fields))
    }
}

/// Writes the simulated schedule as SWF: submit (s, after load scaling, rounded), wait = start −
/// submit (rounded), run time, allocated processors = nodes granted × processors per node,
/// requested processors = asked, status 1; the input's requested time (field 9), user, group,
/// queue and partition (12, 13, 15, 16) as the job carries them, and its executable, preceding
/// job and think time (14, 17, 18) from `source`; other fields −1.
pub fn write_swf(
    path: &Path,
    header: &Header,
    w: &Workload,
    out: &Outcome,
    source: &SourceFields,
) -> anyhow::Result<()> {
    write_atomic(path, |f| {
        swf::write_header(f, header)?;
        for (job, rec) in w.jobs.iter().zip(&out.records) {
            let submit = job.submit.round();
            let granted = i64::from(rec.placement.nodes()) * i64::from(w.procs_per_node.max(1));
            let [executable, preceding_job, think_time] =
                source.0.get(&job.source_id).copied().unwrap_or_default();
            let r = Record {
                job_id: job.source_id,
                submit: Some(submit as i64),
                wait: Some((rec.start.round() - submit).max(0.0) as i64),
                run_time: Some(job.runtime.round() as i64),
                allocated_procs: Some(granted),
                requested_procs: Some(i64::from(job.asked_procs)),
                requested_time: job.requested.map(|t| t.get().round() as i64),
                status: Some(1),
                user: job.user.map(|u| i64::from(u.get())),
                group: job.group.map(|g| i64::from(g.get())),
                executable,
                queue: job.queue.map(|q| i64::from(q.get())),
                partition: job.partition.map(|p| i64::from(p.get())),
                preceding_job,
                think_time,
                ..Record::default()
            };
            swf::write_record(f, &r)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pwa_replay::engine::JobRecord;
    use pwa_replay::machine::{AllocKind, Placement, Shape, Submesh};
    use pwa_replay::sched::SchedKind;
    use pwa_replay::workload::{Job, JobId, Request};

    /// Two jobs on a mesh: job 7 (2×3, asked 6) runs at once on (1,1,2,3); job 9 (asked 3, granted
    /// 3×1 rotated) arrives at 4 and starts at 10 on (3,1,3,3).
    fn example() -> (Workload, Outcome) {
        let job = |i: u32, source_id, submit, runtime, shape, asked_procs| Job {
            id: JobId(i),
            source_id,
            submit,
            runtime,
            estimate: runtime,
            requested: None,
            request: Request::Submesh(shape),
            asked_procs,
            user: None,
            group: None,
            queue: None,
            partition: None,
        };
        let w = Workload {
            jobs: vec![
                job(0, 7, 0.0, 10.0, Shape::new(2, 3), 6),
                job(1, 9, 4.0, 5.5, Shape::new(3, 1), 3),
            ],
            procs_per_node: 1,
            predictor: None,
        };
        let rec = |start: f64, end: f64, at, rotated| JobRecord {
            start,
            end,
            placement: Placement::Submesh { at, rotated },
            killed: false,
            reserved: None,
        };
        let out = Outcome {
            records: vec![
                rec(0.0, 10.0, Submesh::from_paper(1, 1, 2, 3), false),
                rec(10.0, 15.5, Submesh::from_paper(3, 1, 3, 3), true),
            ],
            ..Default::default()
        };
        (w, out)
    }

    #[test]
    fn per_job_table_holds_the_hand_worked_values() {
        let (w, out) = example();
        let df = per_job_rows(&w, "mesh:4x4".parse().unwrap(), &out, 0..2).unwrap();
        assert_eq!(df.height(), 2);
        let f = |c: &str| -> Vec<f64> {
            df.column(c)
                .unwrap()
                .f64()
                .unwrap()
                .iter()
                .flatten()
                .collect()
        };
        let s = |c: &str| -> Vec<String> {
            df.column(c)
                .unwrap()
                .str()
                .unwrap()
                .iter()
                .flatten()
                .map(str::to_string)
                .collect()
        };
        assert_eq!(f("wait_s"), [0.0, 6.0]);
        assert_eq!(f("end_s"), [10.0, 15.5]);
        assert_eq!(s("shape"), ["2x3", "1x3"]);
        assert_eq!(s("placement"), ["(1,1,2,3)", "(3,1,3,3)"]);
        // 2x3: 15 pairs, 9 + 16 = 25 hops in all; 1x3: 3 pairs, 4 hops.
        assert_eq!(f("mean_pairwise_hops"), [25.0 / 15.0, 4.0 / 3.0]);
        let rotated: Vec<bool> = df
            .column("rotated")
            .unwrap()
            .bool()
            .unwrap()
            .iter()
            .flatten()
            .collect();
        assert_eq!(rotated, [false, true]);
        let ids: Vec<u64> = df
            .column("job_id")
            .unwrap()
            .u64()
            .unwrap()
            .iter()
            .flatten()
            .collect();
        assert_eq!(ids, [7, 9]);
    }

    #[test]
    fn swf_schedule_fills_the_wait_field() {
        let (mut w, out) = example();
        w.jobs[1].requested = pwa_replay::packed::PackedTime::new(600.0);
        w.jobs[1].user = pwa_replay::packed::UserId::new(3);
        w.jobs[1].group = pwa_replay::packed::GroupId::new(4);
        w.jobs[1].queue = pwa_replay::packed::QueueId::new(5);
        w.jobs[1].partition = pwa_replay::packed::PartitionId::new(6);
        let source = SourceFields([(9, [Some(14), Some(7), Some(18)])].into());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.swf");
        let mut header = Header::new();
        header.push("Version", "2.2");
        write_swf(&path, &header, &w, &out, &source).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<Vec<i64>> = text
            .lines()
            .filter(|l| !l.starts_with(';'))
            .map(|l| l.split_whitespace().map(|f| f.parse().unwrap()).collect())
            .collect();
        assert!(text.starts_with("; Version: 2.2\n"));
        // job, submit, wait, run (5.5 rounds to 6), allocated, requested, status.
        let pick = |l: &Vec<i64>| [l[0], l[1], l[2], l[3], l[4], l[7], l[10]];
        assert_eq!(pick(&lines[0]), [7, 0, 0, 10, 6, 6, 1]);
        assert_eq!(pick(&lines[1]), [9, 4, 6, 6, 3, 3, 1]);
        assert!(lines.iter().all(|l| l.len() == 18));
        // Fields 9 and 12–18 are the input's: job 7 has none, job 9 all.
        assert_eq!((lines[0][8], &lines[0][11..]), (-1, &[-1; 7][..]));
        assert_eq!(lines[1][8], 600);
        assert_eq!(lines[1][11..], [3, 4, 14, 5, 6, 7, 18]);
    }

    /// The row groups are those `ParquetWriter::finish` makes: a frame written whole and the same
    /// frame written group by group give the same bytes (one group, the last one longer, several).
    #[test]
    fn parquet_written_by_row_groups_is_the_frame_written_whole() {
        for n in [
            0,
            5,
            ROW_GROUP_ROWS,
            2 * ROW_GROUP_ROWS + 7,
            3 * ROW_GROUP_ROWS - 1,
        ] {
            let frame = |rows: Range<usize>| {
                let height = rows.len();
                let values: Vec<u32> = rows.map(|i| i as u32).collect();
                DataFrame::new(height, vec![Column::new("v".into(), values)]).unwrap()
            };
            let mut whole = Vec::new();
            ParquetWriter::new(&mut whole)
                .finish(&mut frame(0..n))
                .unwrap();
            let mut parts = Vec::new();
            let schema = frame(0..0).schema().as_ref().clone();
            let mut writer = ParquetWriter::new(&mut parts).batched(&schema).unwrap();
            for rows in row_groups(n) {
                writer.write_batch(&frame(rows)).unwrap();
            }
            writer.finish().unwrap();
            assert!(whole == parts, "{n} rows");
        }
    }

    #[test]
    fn groups_and_parts_cover_the_rows_in_order() {
        let r = ROW_GROUP_ROWS;
        let one = |rows: Range<usize>| -> Vec<Range<usize>> { std::iter::once(rows).collect() };
        assert_eq!(row_groups(0), one(0..0));
        assert_eq!(row_groups(r - 1), one(0..r - 1));
        // 2r + 7 rows: two groups of r + 3, the last taking the remaining row.
        assert_eq!(row_groups(2 * r + 7), [0..r + 3, r + 3..2 * r + 7]);
        assert_eq!(parts(0, 4), one(0..0));
        assert_eq!(parts(10, 4), [0..4, 4..8, 8..10]);
    }

    #[test]
    fn stems_are_file_name_safe() {
        let cell = Cell {
            scheduler: SchedKind::Window(240).into(),
            allocator: AllocKind::Mpl,
            load_factor: 0.3,
            estimate: EstimateModel::Exact,
        };
        assert_eq!(stem(&cell), "window-240_mpl_lf0.3");
        let user = Cell {
            estimate: EstimateModel::User,
            ..cell
        };
        assert_eq!(stem(&user), "window-240_mpl_lf0.3_user");
    }
}
