//! The run metrics as one table: every [`RunMetrics`] field is a column with its name, unit and
//! meaning ([`COLUMNS`]). The summary tables, the cell cache, experiment measures, axis labels and
//! docs/OUTPUTS.md read it, so a metric is named and explained once. The observed measures of a run
//! ([`super::observation::OBSERVED`]) are a second table of the same [`Column`]s, declared by the
//! same `column_table!` macro, which destructures its record exhaustively: a field added to
//! [`RunMetrics`] or [`Observed`](super::observation::Observed) fails to compile until it has its
//! line.
//!
//! The per-job table (`run --jobs-out`, `sweep --per-job`, the Python package's `Result.jobs`) is
//! [`job_table`]: its columns in order, as plain vectors, for any front end to turn into a frame;
//! [`job_table_rows`] gives a range of its rows, so that a long replay's table can be written in
//! parts (Parquet row groups) without all of it in memory at once.
use std::ops::Range;

use super::locality::{Locality, locality};
use super::{Outcome, RunMetrics};
use crate::resource::MachineSpec;
use crate::resource::Placement;
use crate::workload::{Job, Workload};

/// One metric value: a count or a real number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// A count (`jobs`, `alloc_attempts`).
    Count(u64),
    /// A real number (times in seconds, ratios).
    Real(f64),
}

impl Value {
    /// The value as `u64` (reals truncated).
    pub fn as_u64(self) -> u64 {
        match self {
            Value::Count(n) => n,
            Value::Real(x) => x as u64,
        }
    }

    /// The value as `f64` (counts converted).
    pub fn as_f64(self) -> f64 {
        match self {
            Value::Count(n) => n as f64,
            Value::Real(x) => x,
        }
    }
}

/// One column of a record (a [`RunMetrics`] unless said): name, unit, meaning, and how to read
/// and write it.
#[derive(Debug, Clone, Copy)]
pub struct Column<R = RunMetrics> {
    /// Column name (`mean_turnaround_s`), as in every table and JSON object.
    pub name: &'static str,
    /// Unit for axis labels (`s`, `fraction`; empty for counts and ratios).
    pub unit: &'static str,
    /// What it means, in a few words (axis labels, docs).
    pub meaning: &'static str,
    /// Its value in a record.
    pub get: fn(&R) -> Value,
    /// Sets it; `false` when the value is of the other kind (a real for a count).
    pub set: fn(&mut R, Value) -> bool,
}

impl<R> PartialEq for Column<R> {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl<R: Default> Column<R> {
    /// Its value in a record, as a number.
    pub fn of(&self, m: &R) -> f64 {
        (self.get)(m).as_f64()
    }

    /// Whether it is a count (an integer column).
    pub fn is_count(&self) -> bool {
        matches!((self.get)(&R::default()), Value::Count(_))
    }

    /// Whether it is a duration in seconds (shown with units in tables for humans).
    pub fn is_duration(&self) -> bool {
        self.unit == "s"
    }

    /// `mean turnaround (s)`: the meaning with the unit, for an axis.
    pub fn axis_label(&self) -> String {
        if self.unit.is_empty() {
            self.meaning.to_string()
        } else {
            format!("{} ({})", self.meaning, self.unit)
        }
    }
}

/// Declares a table of the [`Column`]s of a record, checked complete when compiled.
///
/// A line `field: Kind, "unit", "meaning";` is the column of a field of kind `Count` (`u64`) or
/// `Real` (`f64`), named after it; a line `field[1 2 … N]: Kind, "unit", "meaning";` is one column
/// per element of an array field of length `N`: `field_1` … `field_N`, each meaning followed by its
/// number. The lines name every field of the record but those after `except`, or the table fails to
/// compile; so does an array line whose numbers are not 1, 2, … up to the array's length.
macro_rules! column_table {
    (
        $(#[$doc:meta])*
        $vis:vis const $table:ident: [Column<$record:ident>] $(except $($skip:ident),+)? {
            $($lines:tt)*
        }
    ) => {
        column_table!(@lines [$(#[$doc])* $vis $table] $record [$($($skip)+)?] [] $($lines)*);
    };
    // The column of a field.
    (@lines $head:tt $record:ident [$($fields:ident)*] [$($columns:expr,)*]
        $field:ident: $kind:ident, $unit:literal, $meaning:literal; $($rest:tt)*
    ) => {
        column_table!(@lines $head $record [$($fields)* $field] [$($columns,)* Column {
            name: stringify!($field),
            unit: $unit,
            meaning: $meaning,
            get: |r| Value::$kind(r.$field),
            set: |r, v| match v {
                Value::$kind(x) => {
                    r.$field = x;
                    true
                }
                _ => false,
            },
        },] $($rest)*);
    };
    // The columns of an array field, one per element.
    (@lines $head:tt $record:ident [$($fields:ident)*] [$($columns:expr,)*]
        $field:ident[$($n:literal)+]: $kind:ident, $unit:literal, $meaning:literal; $($rest:tt)*
    ) => {
        // Numbered 1, 2, … N, and N is the array's length.
        const _: () = {
            let numbers = [$($n),+];
            let mut i = 0;
            while i < numbers.len() {
                assert!(numbers[i] == i + 1, "an array's columns are numbered 1, 2, …");
                i += 1;
            }
        };
        const _: fn(&$record) = |r| {
            let _: &[_; [$($n),+].len()] = &r.$field;
        };
        column_table!(@lines $head $record [$($fields)* $field] [$($columns,)* $(Column {
            name: concat!(stringify!($field), "_", $n),
            unit: $unit,
            meaning: concat!($meaning, " ", $n),
            get: |r| Value::$kind(r.$field[$n - 1]),
            set: |r, v| match v {
                Value::$kind(x) => {
                    r.$field[$n - 1] = x;
                    true
                }
                _ => false,
            },
        },)+] $($rest)*);
    };
    (@lines [$(#[$doc:meta])* $vis:vis $table:ident] $record:ident [$($fields:ident)*]
        [$($columns:expr,)*]
    ) => {
        $(#[$doc])*
        $vis const $table: &[Column<$record>] = &[$($columns),*];

        /// Fails to compile when a field of the record has no line in the table.
        const _: fn($record) = |r| {
            let $record { $($fields: _),* } = r;
        };
    };
}
pub(super) use column_table;

column_table! {
    /// Every column, in the order of the summary table (`observed` is not one: the observed
    /// measures are a table of their own, [`super::observation::OBSERVED`]).
    pub const COLUMNS: [Column<RunMetrics>] except observed {
        jobs: Count, "", "jobs replayed";
        mean_turnaround_s: Real, "s", "mean turnaround";
        var_turnaround: Real, "s²", "variance of turnaround";
        mean_wait_s: Real, "s", "mean wait";
        max_wait_s: Real, "s", "maximum wait";
        p50_wait_s: Real, "s", "median wait";
        p95_wait_s: Real, "s", "95th percentile wait";
        p99_wait_s: Real, "s", "99th percentile wait";
        utilization: Real, "fraction", "utilization";
        throughput_per_s: Real, "jobs/s", "throughput";
        makespan_s: Real, "s", "makespan";
        mean_bounded_slowdown: Real, "", "mean bounded slowdown (τ = 10 s)";
        system_power: Real, "", "system power (throughput / mean wait)";
        internal_fragmentation: Real, "processors", "internal fragmentation";
        killed_jobs: Count, "", "jobs killed at their estimate";
        alloc_attempts: Count, "", "allocator calls";
        alloc_time_s: Real, "s", "time in the allocator";
        sim_wall_s: Real, "s", "replay wall time";
        external_fragmentation: Real, "fraction", "external fragmentation";
        mean_torus_dims: Real, "", "mean torus dimensionality";
        p50_bounded_slowdown: Real, "", "median bounded slowdown";
        p95_bounded_slowdown: Real, "", "95th percentile bounded slowdown";
        p99_bounded_slowdown: Real, "", "99th percentile bounded slowdown";
        backfilled_jobs: Count, "", "jobs backfilled";
        backfilled_share: Real, "fraction", "share of jobs backfilled";
        mean_reservation_error_s: Real, "s", "mean reservation error";
        frag_delayed_jobs: Count, "", "jobs delayed by fragmentation";
        frag_delayed_share: Real, "fraction", "share of jobs delayed by fragmentation";
        mean_free_regions: Real, "", "mean maximal free submeshes";
        head_fragmentation: Real, "fraction", "head-of-queue fragmentation";
        mean_estimate_error: Real, "", "mean |estimate − run time| / run time";
        underestimated_share: Real, "fraction", "share of jobs underestimated";
        mean_pieces: Real, "", "mean connected pieces per job";
        mean_pairwise_hops: Real, "hops", "mean pairwise hop distance within a job";
        jain_bounded_slowdown: Real, "", "Jain's index over the users' mean bounded slowdowns";
        worst_user_mean_wait_s: Real, "s", "worst user's mean wait";
        worst_user_mean_bounded_slowdown: Real, "", "worst user's mean bounded slowdown";
        unfair_jobs: Count, "", "jobs started after their fair start time";
        unfair_delay_s: Real, "s", "total delay beyond the fair start times";
        mean_unfair_delay_s: Real, "s", "mean delay beyond the fair start time";
    }
}

/// The column called `name`.
pub fn column(name: &str) -> Option<&'static Column> {
    COLUMNS.iter().find(|c| c.name == name)
}

/// The values of one column of the per-job table.
#[derive(Debug, Clone, PartialEq)]
pub enum JobColumn {
    /// Job numbers and other 64-bit counts.
    Ids(Vec<u64>),
    /// Times in seconds.
    Reals(Vec<f64>),
    /// Node and processor counts.
    Counts(Vec<u32>),
    /// Numbers that may be −1 (user, group, queue and partition numbers, as SWF writes them).
    Signed(Vec<i64>),
    /// Shapes and placements as text.
    Texts(Vec<String>),
    /// Yes/no.
    Flags(Vec<bool>),
}

impl JobColumn {
    /// Its number of rows.
    pub fn len(&self) -> usize {
        match self {
            JobColumn::Ids(v) => v.len(),
            JobColumn::Reals(v) => v.len(),
            JobColumn::Counts(v) => v.len(),
            JobColumn::Signed(v) => v.len(),
            JobColumn::Texts(v) => v.len(),
            JobColumn::Flags(v) => v.len(),
        }
    }

    /// Whether it has no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The per-job table of one replay, one row per job in arrival order: `job_id` (the log's job
/// number), `submit_s`, `start_s`, `end_s`, `wait_s`, `run_s`, `size` (nodes granted),
/// `asked_procs`, `shape` ([`granted_shape`]), `placement`, `rotated`, `torus` and `torus_dims`
/// (semitorus allocators; empty and 0 otherwise), and the locality of each placement on `machine`
/// (`pieces`, `mean_pairwise_hops`, `bounding_box_nodes`, [`locality`]), and the job's `user`,
/// `group`, `queue` and `partition` numbers in the log (SWF fields 12, 13, 15, 16; −1 where it
/// has none); with fair start times measured
/// ([`ReplayOptions::fairness`](super::ReplayOptions::fairness)), `fair_start_s` last.
pub fn job_table(
    w: &Workload,
    machine: MachineSpec,
    out: &Outcome,
) -> Vec<(&'static str, JobColumn)> {
    job_table_rows(w, machine, out, 0..w.jobs.len())
}

/// Rows `rows` of the [`job_table`] (jobs `rows` in arrival order), the same columns. Panics when
/// the range goes past the jobs or the records.
pub fn job_table_rows(
    w: &Workload,
    machine: MachineSpec,
    out: &Outcome,
    rows: Range<usize>,
) -> Vec<(&'static str, JobColumn)> {
    let jobs = &w.jobs[rows.clone()];
    let recs = &out.records[rows.clone()];
    let n = jobs.len();
    let near: Vec<Locality> = recs
        .iter()
        .map(|r| locality(machine, &r.placement))
        .collect();
    let reals = |f: &dyn Fn(usize) -> f64| JobColumn::Reals((0..n).map(f).collect());
    let signed = |f: &dyn Fn(&Job) -> Option<u32>| {
        JobColumn::Signed(jobs.iter().map(|j| f(j).map_or(-1, i64::from)).collect())
    };
    let mut table = vec![
        (
            "job_id",
            JobColumn::Ids(jobs.iter().map(|j| j.source_id).collect()),
        ),
        ("submit_s", reals(&|i| jobs[i].submit)),
        ("start_s", reals(&|i| recs[i].start)),
        ("end_s", reals(&|i| recs[i].end)),
        ("wait_s", reals(&|i| recs[i].start - jobs[i].submit)),
        ("run_s", reals(&|i| jobs[i].runtime)),
        (
            "size",
            JobColumn::Counts(recs.iter().map(|r| r.placement.nodes()).collect()),
        ),
        (
            "asked_procs",
            JobColumn::Counts(jobs.iter().map(|j| j.asked_procs).collect()),
        ),
        (
            "shape",
            JobColumn::Texts(recs.iter().map(|r| granted_shape(&r.placement)).collect()),
        ),
        (
            "placement",
            JobColumn::Texts(recs.iter().map(|r| placement_text(&r.placement)).collect()),
        ),
        (
            "rotated",
            JobColumn::Flags(
                recs.iter()
                    .map(|r| matches!(r.placement, Placement::Submesh { rotated: true, .. }))
                    .collect(),
            ),
        ),
        (
            "torus",
            JobColumn::Texts(
                rows.clone()
                    .map(|i| out.tori.get(i).map(|t| t.to_string()).unwrap_or_default())
                    .collect(),
            ),
        ),
        (
            "torus_dims",
            JobColumn::Counts(
                rows.clone()
                    .map(|i| out.tori.get(i).map_or(0, |t| t.len() as u32))
                    .collect(),
            ),
        ),
        (
            "pieces",
            JobColumn::Counts(near.iter().map(|l| l.pieces).collect()),
        ),
        (
            "mean_pairwise_hops",
            JobColumn::Reals(near.iter().map(|l| l.mean_pairwise_hops).collect()),
        ),
        (
            "bounding_box_nodes",
            JobColumn::Ids(near.iter().map(|l| l.bounding_box_nodes).collect()),
        ),
        ("user", signed(&|j| j.user.map(|u| u.get()))),
        ("group", signed(&|j| j.group.map(|g| g.get()))),
        ("queue", signed(&|j| j.queue.map(|q| q.get()))),
        ("partition", signed(&|j| j.partition.map(|p| p.get()))),
    ];
    if !out.fair_starts.is_empty() {
        let fair = &out.fair_starts[rows];
        table.push(("fair_start_s", reals(&|i| fair[i])));
    }
    table
}

/// The granted shape: `WxH` of a submesh, `AxBx…` of a box, else the node count.
pub fn granted_shape(p: &Placement) -> String {
    match p {
        Placement::Submesh { at, .. } => at.shape.to_string(),
        Placement::Block(b) => b.extent.to_string(),
        other => format!("{}", other.nodes()),
    }
}

/// A placement as the per-job table writes it: `(xb,yb,xe,ye)` of a submesh (the papers'
/// corners), a box or pieces as they print, else `N nodes`.
pub fn placement_text(p: &Placement) -> String {
    match p {
        Placement::Submesh { at, .. } => {
            let (xb, yb, xe, ye) = at.paper();
            format!("({xb},{yb},{xe},{ye})")
        }
        Placement::Block(_) | Placement::Pieces(_) => p.to_string(),
        other => format!("{} nodes", other.nodes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Any split of the rows gives, part after part, the whole table: five jobs on a 4×4 mesh
    /// under first fit (shapes, placements and locality all differ), cut at 2 and 3.
    #[test]
    fn row_ranges_put_together_are_the_whole_table() {
        use crate::engine::{NoObserver, replay};
        use crate::resource::Shape;
        use crate::workload::{Job, JobId, Request};
        let job = |i: u32, w: u32, h: u32| Job {
            id: JobId(i),
            source_id: u64::from(i) + 40,
            submit: f64::from(i),
            runtime: 10.0 + f64::from(i),
            estimate: 10.0 + f64::from(i),
            requested: None,
            request: Request::Submesh(Shape::new(w, h)),
            asked_procs: w * h,
            user: None,
            group: None,
            queue: None,
            partition: None,
        };
        let jobs = vec![
            job(0, 2, 2),
            job(1, 4, 1),
            job(2, 3, 3),
            job(3, 1, 1),
            job(4, 2, 3),
        ];
        let w = Workload::from_jobs(jobs, 1);
        let machine: MachineSpec = "mesh:4x4".parse().unwrap();
        let sched = "fcfs".parse().unwrap();
        let out = replay(&w, machine, sched, "ff".parse().unwrap(), &mut NoObserver).unwrap();
        let whole = job_table(&w, machine, &out);
        let parts = [0..2, 2..2, 2..5].map(|r| job_table_rows(&w, machine, &out, r));
        for (k, (name, col)) in whole.iter().enumerate() {
            let mut joined = parts[0][k].1.clone();
            for part in &parts[1..] {
                assert_eq!(part[k].0, *name);
                match (&mut joined, &part[k].1) {
                    (JobColumn::Ids(a), JobColumn::Ids(b)) => a.extend(b),
                    (JobColumn::Reals(a), JobColumn::Reals(b)) => a.extend(b),
                    (JobColumn::Counts(a), JobColumn::Counts(b)) => a.extend(b),
                    (JobColumn::Signed(a), JobColumn::Signed(b)) => a.extend(b),
                    (JobColumn::Texts(a), JobColumn::Texts(b)) => a.extend(b.iter().cloned()),
                    (JobColumn::Flags(a), JobColumn::Flags(b)) => a.extend(b),
                    _ => panic!("column {name} changed kind"),
                }
            }
            assert_eq!(&joined, col, "{name}");
        }
        assert_eq!(whole[0].1, JobColumn::Ids(vec![40, 41, 42, 43, 44]));
    }

    /// Each column of `table` sets and reads back a value of its own, refuses the other kind, and
    /// has a name of its own.
    fn reads_and_writes_its_own_field<R: Default>(table: &[Column<R>]) {
        let mut m = R::default();
        for (i, c) in table.iter().enumerate() {
            let v = if c.is_count() {
                Value::Count(i as u64 + 1)
            } else {
                Value::Real(i as f64 + 0.5)
            };
            assert!((c.set)(&mut m, v), "{}", c.name);
            let wrong = if c.is_count() {
                Value::Real(1.0)
            } else {
                Value::Count(1)
            };
            assert!(!(c.set)(&mut m, wrong), "{} took the other kind", c.name);
        }
        for (i, c) in table.iter().enumerate() {
            assert_eq!(
                c.of(&m),
                i as f64 + if c.is_count() { 1.0 } else { 0.5 },
                "{}",
                c.name
            );
        }
        let mut names: Vec<&str> = table.iter().map(|c| c.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), table.len(), "names are unique");
    }

    #[test]
    fn every_column_reads_and_writes_its_own_field() {
        reads_and_writes_its_own_field(COLUMNS);
        reads_and_writes_its_own_field(super::super::observation::OBSERVED);
    }

    #[test]
    fn durations_are_the_columns_in_seconds() {
        let d: Vec<&str> = COLUMNS
            .iter()
            .filter(|c| c.is_duration())
            .map(|c| c.name)
            .collect();
        assert!(d.iter().all(|n| n.ends_with("_s")), "{d:?}");
        assert_eq!(
            column("mean_turnaround_s")
                .map(Column::axis_label)
                .as_deref(),
            Some("mean turnaround (s)")
        );
    }
}
