//! From SWF records to a [`Workload`]: filters, processors → nodes, shape conversion, load scaling.
//!
//! Each step is a small function with its own tests; [`Converter`] chains them for one trace:
//!
//! 0. [`rewrite`] — only when the replay's semantics read the log as another simulator does
//!    ([`InputRewrite`]): that simulator's filter and size field, its drops counted as
//!    `input_rewrite`;
//! 1. [`select`] — partition and queue filters (SWF fields 16 and 15);
//! 2. [`validate`] — drop records the papers drop (window-k-mesh.md §5.4): missing submit time,
//!    negative or missing run time, missing or non-positive processor count;
//! 3. [`procs_to_nodes`] — `ceil(procs / procs_per_node)` (Blue Horizon: nodes of 8);
//! 4. [`ShapeTable::request`] — the request in machine units by the trace's [`ShapeRule`]
//!    ([`square_shape`], the Paragon `w × 16` rule, [`subcube_dim`], flat nodes);
//! 5. requests larger than the machine are an error naming the job, or are dropped and counted
//!    as `too_large` when lenient.
//!
//! Jobs are then sorted by submit time (stable: ties keep source order) and numbered densely.
//! [`Workload::scaled`] applies a load factor afterwards.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::SimTime;
use crate::packed::{GroupId, PackedTime, PartitionId, QueueId, UserId};
use crate::resource::{Dims, MachineSpec, Shape};
use crate::swf::Record;
use crate::workload::rewrite::{InputRewrite, rewrite};
use crate::workload::{Job, JobId, Request, Workload};

/// Why a record did not become a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum DropReason {
    /// Partition (field 16) not in the trace's partition filter.
    Partition,
    /// Queue (field 15) not in the trace's queue filter.
    Queue,
    /// Submit time (field 2) missing.
    MissingSubmit,
    /// Run time (field 4) missing (`-1`).
    MissingRuntime,
    /// Run time (field 4) negative other than `-1`.
    NegativeRuntime,
    /// Processor count missing (`-1`) in the size field(s) used.
    MissingProcs,
    /// Processor count zero or negative.
    NonPositiveProcs,
    /// The request can never fit the machine (lenient mode only; strict mode fails).
    TooLarge,
    /// Dropped by another simulator's reading of the log ([`InputRewrite`], a semantics choice).
    Rewrite,
}

impl DropReason {
    /// Every reason, in table order.
    pub const ALL: [DropReason; 9] = [
        DropReason::Partition,
        DropReason::Queue,
        DropReason::MissingSubmit,
        DropReason::MissingRuntime,
        DropReason::NegativeRuntime,
        DropReason::MissingProcs,
        DropReason::NonPositiveProcs,
        DropReason::TooLarge,
        DropReason::Rewrite,
    ];

    /// The label used in tables and JSON (`negative_runtime`, …).
    pub fn label(self) -> &'static str {
        match self {
            DropReason::Partition => "partition",
            DropReason::Queue => "queue",
            DropReason::MissingSubmit => "missing_submit",
            DropReason::MissingRuntime => "missing_runtime",
            DropReason::NegativeRuntime => "negative_runtime",
            DropReason::MissingProcs => "missing_procs",
            DropReason::NonPositiveProcs => "non_positive_procs",
            DropReason::TooLarge => "too_large",
            DropReason::Rewrite => "input_rewrite",
        }
    }
}

impl fmt::Display for DropReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// Which SWF field gives a job's size in processors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SizeField {
    /// Field 5 (allocated processors) only, as the papers do: a missing field 5 drops the job.
    #[default]
    Allocated,
    /// Field 5, else field 8 (requested processors) when field 5 is missing.
    AllocatedOrRequested,
}

/// Which way a square-transformed request is turned when `w ≠ h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Orientation {
    /// `w ≤ h` (window-k-mesh.md §5.4 default, Blue Horizon).
    Tall,
    /// `w ≥ h` (Paragon sizes that are not multiples of 16).
    Wide,
}

/// How a size in nodes becomes a [`Request`] for the machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShapeRule {
    /// Square transform with `w ≤ h` (mesh).
    SquareTall,
    /// Square transform with `w ≥ h` (mesh).
    SquareWide,
    /// SDSC Paragon (window-k-mesh.md §5.4, after \[10\]): `n = 16w` becomes `w × 16`, other sizes
    /// the square transform with `w ≥ h` (mesh).
    Paragon,
    /// Round up to a power of two, a subcube of that dimension (hypercube).
    Subcube,
    /// Any `n` nodes (flat machine).
    Nodes,
    /// The most cube-like box of `n' ≥ n` nodes that fits (k-dimensional mesh or torus).
    Box,
}

impl ShapeRule {
    /// Every rule, in documentation order.
    pub const ALL: [ShapeRule; 6] = [
        ShapeRule::SquareTall,
        ShapeRule::SquareWide,
        ShapeRule::Paragon,
        ShapeRule::Subcube,
        ShapeRule::Nodes,
        ShapeRule::Box,
    ];

    /// The label used in the catalog and on the command line.
    pub fn label(self) -> &'static str {
        match self {
            ShapeRule::SquareTall => "square-tall",
            ShapeRule::SquareWide => "square-wide",
            ShapeRule::Paragon => "paragon",
            ShapeRule::Subcube => "subcube",
            ShapeRule::Nodes => "nodes",
            ShapeRule::Box => "box",
        }
    }

    /// The natural rule of a machine: square-tall on a mesh (the §5.4 default), subcube on a
    /// hypercube, nodes on a flat machine, box on a k-dimensional mesh or torus.
    pub fn default_for(machine: MachineSpec) -> ShapeRule {
        match machine {
            MachineSpec::Mesh { .. } => ShapeRule::SquareTall,
            MachineSpec::Hypercube { .. } => ShapeRule::Subcube,
            MachineSpec::Flat { .. } => ShapeRule::Nodes,
            MachineSpec::Grid { .. } => ShapeRule::Box,
        }
    }

    /// Whether the rule produces requests this machine understands.
    pub fn suits(self, machine: MachineSpec) -> bool {
        matches!(
            (self, machine),
            (
                ShapeRule::SquareTall | ShapeRule::SquareWide | ShapeRule::Paragon,
                MachineSpec::Mesh { .. }
            ) | (ShapeRule::Subcube, MachineSpec::Hypercube { .. })
                | (
                    ShapeRule::Nodes,
                    MachineSpec::Flat { .. } | MachineSpec::Grid { .. }
                )
                | (ShapeRule::Box, MachineSpec::Grid { .. })
        )
    }
}

impl fmt::Display for ShapeRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl FromStr for ShapeRule {
    type Err = TransformError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ShapeRule::ALL
            .into_iter()
            .find(|r| r.label() == s.trim())
            .ok_or_else(|| TransformError::UnknownShapeRule(s.to_string()))
    }
}

/// A conversion that cannot be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TransformError {
    /// A job asks for more than the machine has.
    #[error(
        "job {job} (SWF job number) asks for {nodes} nodes, more than machine {machine} can ever give \
         (use --lenient to drop such jobs and count them as too_large)"
    )]
    TooLarge {
        /// SWF job number.
        job: u64,
        /// Nodes asked after processors → nodes.
        nodes: u64,
        /// The machine.
        machine: MachineSpec,
    },
    /// The shape rule does not produce requests for this machine.
    #[error("shape rule `{rule}` does not work on machine `{machine}`")]
    RuleMismatch {
        /// The rule.
        rule: ShapeRule,
        /// The machine.
        machine: MachineSpec,
    },
    /// Unknown shape rule label.
    #[error(
        "shape rule `{0}` is not one of square-tall, square-wide, paragon, subcube, nodes, box"
    )]
    UnknownShapeRule(String),
    /// Processors per node must be at least 1.
    #[error("processors per node must be at least 1")]
    ZeroProcsPerNode,
    /// A load factor must be finite and positive.
    #[error("load factor {0} is not a finite number > 0")]
    BadLoadFactor(f64),
}

/// The fields of a record that survived [`validate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ValidRecord {
    /// Submit time (s).
    pub submit: i64,
    /// Run time (s), ≥ 0.
    pub runtime: i64,
    /// Processors, > 0.
    pub procs: u64,
}

/// Partition and queue filters: `None` keeps everything.
pub fn select(
    rec: &Record,
    partitions: Option<&[i64]>,
    queues: Option<&[i64]>,
) -> Result<(), DropReason> {
    let keeps = |filter: Option<&[i64]>, v: Option<i64>| {
        filter.is_none_or(|list| v.is_some_and(|v| list.contains(&v)))
    };
    if !keeps(partitions, rec.partition) {
        return Err(DropReason::Partition);
    }
    if !keeps(queues, rec.queue) {
        return Err(DropReason::Queue);
    }
    Ok(())
}

/// Drops what the papers drop; the first failing check names the reason.
pub fn validate(rec: &Record, size: SizeField) -> Result<ValidRecord, DropReason> {
    let submit = rec.submit.ok_or(DropReason::MissingSubmit)?;
    let runtime = match rec.run_time {
        None => return Err(DropReason::MissingRuntime),
        Some(r) if r < 0 => return Err(DropReason::NegativeRuntime),
        Some(r) => r,
    };
    let procs = match size {
        SizeField::Allocated => rec.allocated_procs,
        SizeField::AllocatedOrRequested => rec.allocated_procs.or(rec.requested_procs),
    };
    let procs = match procs {
        None => return Err(DropReason::MissingProcs),
        Some(p) if p <= 0 => return Err(DropReason::NonPositiveProcs),
        Some(p) => p.unsigned_abs(),
    };
    Ok(ValidRecord {
        submit,
        runtime,
        procs,
    })
}

/// Machine nodes needed for `procs` processors: `ceil(procs / procs_per_node)` (`procs_per_node ≥ 1`).
pub fn procs_to_nodes(procs: u64, procs_per_node: u32) -> u64 {
    procs.div_ceil(u64::from(procs_per_node.max(1)))
}

/// Square transform (window-k-mesh.md §5.4) on a `mesh`: the smallest `n' ≥ n` with a factorisation
/// `n' = w·h`, `w ≤ W`, `h ≤ H`; among its factorisations the one with minimal `|w − h|`, turned by
/// `orient` when both orientations fit (else the one that fits). `None` when `n` is 0 or larger
/// than the mesh.
pub fn square_shape(n: u32, mesh: Shape, orient: Orientation) -> Option<Shape> {
    if n == 0 || n > mesh.area() {
        return None;
    }
    (n..=mesh.area()).find_map(|m| best_factorisation(m, mesh, orient))
}

/// The factorisation of exactly `m` that fits `mesh` with minimal `|w − h|`, oriented.
fn best_factorisation(m: u32, mesh: Shape, orient: Orientation) -> Option<Shape> {
    (1..=m)
        .take_while(|a| a * a <= m)
        .filter(|a| m.is_multiple_of(*a))
        .map(|a| (a, m / a))
        .filter_map(|(small, large)| orient_fitting(small, large, mesh, orient))
        .last()
}

/// `small × large` turned by `orient` if that fits, else the other way if that fits.
fn orient_fitting(small: u32, large: u32, mesh: Shape, orient: Orientation) -> Option<Shape> {
    let fits = |s: Shape| s.w <= mesh.w && s.h <= mesh.h;
    let preferred = match orient {
        Orientation::Tall => Shape::new(small, large),
        Orientation::Wide => Shape::new(large, small),
    };
    [preferred, preferred.rotated()]
        .into_iter()
        .find(|&s| fits(s))
}

/// The Paragon rule: `n = 16w` → `w × 16` when that fits, else [`square_shape`] with `w ≥ h`.
pub fn paragon_shape(n: u32, mesh: Shape) -> Option<Shape> {
    const STRIP: u32 = 16;
    let strip = Shape::new(n / STRIP, STRIP);
    if n > 0 && n.is_multiple_of(STRIP) && strip.w <= mesh.w && strip.h <= mesh.h {
        return Some(strip);
    }
    square_shape(n, mesh, Orientation::Wide)
}

/// Subcube dimension for `n` nodes: `ceil(log2 n)`, `None` when above `max_dim` or `n = 0`.
pub fn subcube_dim(n: u64, max_dim: u8) -> Option<u8> {
    if n == 0 {
        return None;
    }
    let d = n.next_power_of_two().trailing_zeros();
    u8::try_from(d).ok().filter(|&d| d <= max_dim)
}

/// Box transform, the k-dimensional square transform: the smallest `n' ≥ n` with a factorisation
/// `n' = e₀·…·e_{k−1}` that fits `dims` (largest factor in the largest dimension); among its
/// factorisations the most cube-like — the smallest largest factor, then the largest smallest
/// factor. Factors go to dimensions by decreasing size (ties: the lower dimension gets the larger
/// factor). `None` when `n` is 0 or larger than the grid.
///
/// ```
/// use pwa_replay::workload::box_shape;
/// use pwa_replay::resource::Dims;
///
/// let torus = Dims::new(&[4, 8, 8]).unwrap();
/// assert_eq!(box_shape(16, torus).unwrap().to_string(), "2x4x2");
/// assert_eq!(box_shape(11, torus).unwrap().to_string(), "2x3x2", "11 and 11 = 11·1·1 do not fit: 12");
/// ```
pub fn box_shape(n: u32, dims: Dims) -> Option<Dims> {
    let volume = u32::try_from(dims.volume()).ok()?;
    if n == 0 || n > volume {
        return None;
    }
    let mut order: Vec<usize> = (0..dims.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(dims.get(i)), i));
    let limits: Vec<u32> = order.iter().map(|&i| dims.get(i)).collect();
    (n..=volume).find_map(|m| {
        let factors = most_cube_like(m, &limits)?;
        let mut ext = vec![0; dims.len()];
        for (&i, f) in order.iter().zip(factors) {
            ext[i] = f;
        }
        Dims::new(&ext)
    })
}

/// The factorisation of `m` into `limits.len()` non-increasing factors, factor `i` at most
/// `limits[i]` (non-increasing), with the smallest largest factor, then the largest smallest.
fn most_cube_like(m: u32, limits: &[u32]) -> Option<Vec<u32>> {
    let mut best: Option<Vec<u32>> = None;
    let mut cur = Vec::with_capacity(limits.len());
    factorise(m, limits, u32::MAX, &mut cur, &mut best);
    best
}

fn factorise(m: u32, limits: &[u32], cap: u32, cur: &mut Vec<u32>, best: &mut Option<Vec<u32>>) {
    let i = cur.len();
    if i == limits.len() {
        let better = best.as_ref().is_none_or(|b| {
            (cur[0], std::cmp::Reverse(cur[i - 1])) < (b[0], std::cmp::Reverse(b[i - 1]))
        });
        if m == 1 && better {
            *best = Some(cur.clone());
        }
        return;
    }
    let rest = (limits.len() - i - 1) as u32;
    for f in (1..=cap.min(limits[i]).min(m)).rev() {
        // The remaining factors are ≤ f each: prune when they cannot reach m / f.
        if !m.is_multiple_of(f) || u64::from(f).pow(rest) < u64::from(m / f) {
            continue;
        }
        if best.as_ref().is_some_and(|b| i == 0 && f > b[0]) {
            continue;
        }
        cur.push(f);
        factorise(m / f, limits, f, cur, best);
        cur.pop();
    }
}

/// Requests of one machine and rule by size, each size computed once, when first asked for
/// (a trace has a few hundred distinct sizes; a large mesh has a million).
#[derive(Debug, Clone)]
pub struct ShapeTable {
    machine: MachineSpec,
    rule: ShapeRule,
    cache: BTreeMap<u32, Option<Request>>,
}

impl ShapeTable {
    /// Builds the table; fails when the rule does not suit the machine.
    pub fn new(machine: MachineSpec, rule: ShapeRule) -> Result<Self, TransformError> {
        if !rule.suits(machine) {
            return Err(TransformError::RuleMismatch { rule, machine });
        }
        Ok(ShapeTable {
            machine,
            rule,
            cache: BTreeMap::new(),
        })
    }

    fn compute(machine: MachineSpec, rule: ShapeRule, n: u32) -> Option<Request> {
        match (machine, rule) {
            (_, _) if n == 0 => None,
            (MachineSpec::Mesh { size }, ShapeRule::SquareTall) => {
                square_shape(n, size, Orientation::Tall).map(Request::Submesh)
            }
            (MachineSpec::Mesh { size }, ShapeRule::SquareWide) => {
                square_shape(n, size, Orientation::Wide).map(Request::Submesh)
            }
            (MachineSpec::Mesh { size }, ShapeRule::Paragon) => {
                paragon_shape(n, size).map(Request::Submesh)
            }
            (MachineSpec::Hypercube { dim }, ShapeRule::Subcube) => {
                subcube_dim(u64::from(n), dim).map(Request::Subcube)
            }
            (MachineSpec::Flat { .. } | MachineSpec::Grid { .. }, ShapeRule::Nodes) => {
                Some(Request::Nodes(n))
            }
            (MachineSpec::Grid { dims, .. }, ShapeRule::Box) => {
                box_shape(n, dims).map(Request::Block)
            }
            _ => None,
        }
    }

    /// The machine.
    pub fn machine(&self) -> MachineSpec {
        self.machine
    }

    /// The rule.
    pub fn rule(&self) -> ShapeRule {
        self.rule
    }

    /// The request for `nodes` nodes, `None` when it can never fit.
    pub fn request(&mut self, nodes: u64) -> Option<Request> {
        let n = u32::try_from(nodes)
            .ok()
            .filter(|&n| n <= self.machine.nodes())?;
        let (machine, rule) = (self.machine, self.rule);
        *self
            .cache
            .entry(n)
            .or_insert_with(|| Self::compute(machine, rule, n))
    }
}

/// Everything that turns one trace's records into jobs.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversion {
    /// The machine the jobs run on.
    pub machine: MachineSpec,
    /// Request conversion.
    pub shape: ShapeRule,
    /// Processors per node (≥ 1).
    pub procs_per_node: u32,
    /// Which field gives the size.
    pub size_field: SizeField,
    /// Keep only these partitions (field 16); `None` keeps all.
    pub partitions: Option<Vec<i64>>,
    /// Keep only these queues (field 15); `None` keeps all.
    pub queues: Option<Vec<i64>>,
    /// Drop (and count as `too_large`) jobs that can never fit instead of failing.
    pub lenient: bool,
    /// How another simulator rewrites each record before this conversion reads it (the replay's
    /// semantics, [`crate::sched::semantics`]); records it drops count as `input_rewrite`.
    pub input: InputRewrite,
}

impl Conversion {
    /// No filters, one processor per node, field 5, the machine's natural [`ShapeRule`], strict.
    pub fn for_machine(machine: MachineSpec) -> Self {
        Conversion {
            machine,
            shape: ShapeRule::default_for(machine),
            procs_per_node: 1,
            size_field: SizeField::Allocated,
            partitions: None,
            queues: None,
            lenient: false,
            input: InputRewrite::AsLogged,
        }
    }

    /// A streaming converter for this conversion.
    pub fn converter(&self) -> Result<Converter, TransformError> {
        if self.procs_per_node == 0 {
            return Err(TransformError::ZeroProcsPerNode);
        }
        Ok(Converter {
            table: ShapeTable::new(self.machine, self.shape)?,
            conv: self.clone(),
            jobs: Vec::new(),
            dropped: BTreeMap::new(),
        })
    }

    /// Converts a whole sequence of records.
    pub fn apply<'a, I>(&self, records: I) -> Result<Converted, TransformError>
    where
        I: IntoIterator<Item = &'a Record>,
    {
        let mut c = self.converter()?;
        for rec in records {
            c.push(rec)?;
        }
        Ok(c.finish())
    }
}

/// Feeds records one by one (streaming); [`Converter::finish`] sorts and numbers the jobs.
#[derive(Debug, Clone)]
pub struct Converter {
    conv: Conversion,
    table: ShapeTable,
    jobs: Vec<Job>,
    dropped: BTreeMap<DropReason, u64>,
}

impl Converter {
    /// Takes one record: it becomes a job, or is counted as dropped, or (strict, too large) fails.
    pub fn push(&mut self, rec: &Record) -> Result<(), TransformError> {
        if let Some(job) = self.convert(rec)? {
            self.jobs.push(job);
        }
        Ok(())
    }

    /// Converts one record without keeping it (streaming consumers): the job (id 0: numbering is
    /// [`Converter::finish`]'s), or `None` when the record is counted as dropped.
    pub fn convert(&mut self, rec: &Record) -> Result<Option<Job>, TransformError> {
        match self.job_of(rec) {
            Ok(job) => Ok(Some(job)),
            Err(Dropped::Reason(r)) => {
                *self.dropped.entry(r).or_insert(0) += 1;
                Ok(None)
            }
            Err(Dropped::Fatal(e)) => Err(e),
        }
    }

    /// Records dropped so far, by reason.
    pub fn dropped(&self) -> &BTreeMap<DropReason, u64> {
        &self.dropped
    }

    fn job_of(&mut self, rec: &Record) -> Result<Job, Dropped> {
        let c = &self.conv;
        let rewritten;
        let rec = if c.input == InputRewrite::AsLogged {
            rec
        } else {
            let procs = u64::from(c.machine.nodes()) * u64::from(c.procs_per_node);
            rewritten = rewrite(rec, c.input, procs).map_err(|_| DropReason::Rewrite)?;
            &rewritten
        };
        select(rec, c.partitions.as_deref(), c.queues.as_deref())?;
        let v = validate(rec, c.size_field)?;
        let nodes = procs_to_nodes(v.procs, c.procs_per_node);
        let found = self.table.request(nodes);
        let c = &self.conv;
        let request = match found {
            Some(r) => r,
            None if c.lenient => return Err(Dropped::Reason(DropReason::TooLarge)),
            None => {
                return Err(Dropped::Fatal(TransformError::TooLarge {
                    job: rec.job_id,
                    nodes,
                    machine: c.machine,
                }));
            }
        };
        Ok(Job {
            id: JobId(0),
            source_id: rec.job_id,
            submit: v.submit as SimTime,
            runtime: v.runtime as SimTime,
            estimate: v.runtime as SimTime,
            requested: rec
                .requested_time
                .filter(|&t| t > 0)
                .and_then(|t| PackedTime::new(t as SimTime)),
            request,
            asked_procs: u32::try_from(v.procs).unwrap_or(u32::MAX),
            user: UserId::from_swf(rec.user),
            group: GroupId::from_swf(rec.group),
            queue: QueueId::from_swf(rec.queue),
            partition: PartitionId::from_swf(rec.partition),
        })
    }

    /// Sorts by submit time (stable) and numbers the jobs densely.
    pub fn finish(self) -> Converted {
        Converted {
            workload: Workload::from_jobs(self.jobs, self.conv.procs_per_node),
            dropped: self.dropped,
        }
    }
}

/// Why [`Converter::job_of`] produced no job.
enum Dropped {
    Reason(DropReason),
    Fatal(TransformError),
}

impl From<DropReason> for Dropped {
    fn from(r: DropReason) -> Self {
        Dropped::Reason(r)
    }
}

/// A converted trace: the jobs and what was dropped, by reason.
#[derive(Debug, Clone)]
pub struct Converted {
    /// The jobs, sorted by submit time, ids dense; submit times as in the source.
    pub workload: Workload,
    /// Records not converted, by reason.
    pub dropped: BTreeMap<DropReason, u64>,
}

impl Workload {
    /// A workload of `jobs` sorted by submit time (stable: ties keep the given order), ids dense.
    pub fn from_jobs(mut jobs: Vec<Job>, procs_per_node: u32) -> Workload {
        // The list lives through the whole replay: no spare capacity from its growth, and no sort
        // (whose buffer holds half the jobs) when the source is in order already, as logs are.
        jobs.shrink_to_fit();
        let in_order = |a: &Job, b: &Job| a.submit.total_cmp(&b.submit).is_le();
        if !jobs.is_sorted_by(in_order) {
            jobs.sort_by(|a, b| a.submit.total_cmp(&b.submit));
        }
        for (i, j) in jobs.iter_mut().enumerate() {
            j.id = JobId(u32::try_from(i).unwrap_or(u32::MAX));
        }
        Workload {
            jobs,
            procs_per_node: procs_per_node.max(1),
            predictor: None,
        }
    }

    /// Drops the jobs some allocator of `allocs` can never place on the empty `machine` (a request
    /// larger than the largest semitorus, say), renumbering the rest densely; returns how many
    /// were dropped. Every allocator then replays the same jobs.
    pub fn retain_fitting(
        &mut self,
        machine: MachineSpec,
        allocs: &[crate::machine::AllocKind],
    ) -> Result<u64, crate::machine::SpecError> {
        let empty = allocs
            .iter()
            .map(|a| a.build(machine))
            .collect::<Result<Vec<_>, _>>()?;
        let before = self.jobs.len();
        self.jobs
            .retain(|j| empty.iter().all(|a| a.fits_empty(&j.request)));
        for (i, j) in self.jobs.iter_mut().enumerate() {
            j.id = JobId(u32::try_from(i).unwrap_or(u32::MAX));
        }
        Ok((before - self.jobs.len()) as u64)
    }

    /// Load-factor scaling (window-k-mesh.md §5.4): submit times shifted so the first job arrives
    /// at 0, then multiplied by `1 / lf`; run times, order and ids unchanged. `lf = 1` only shifts.
    pub fn scaled(&self, lf: f64) -> Result<Workload, TransformError> {
        check_load_factor(lf)?;
        self.clone().into_scaled(lf)
    }

    /// [`Workload::scaled`] in place: no second copy of the jobs (a replay of millions of jobs
    /// that does not need the unscaled workload any more).
    pub fn into_scaled(mut self, lf: f64) -> Result<Workload, TransformError> {
        check_load_factor(lf)?;
        let first = self.jobs.first().map_or(0.0, |j| j.submit);
        for j in &mut self.jobs {
            j.submit = (j.submit - first) / lf;
        }
        Ok(self)
    }
}

fn check_load_factor(lf: f64) -> Result<(), TransformError> {
    if lf.is_finite() && lf > 0.0 {
        Ok(())
    } else {
        Err(TransformError::BadLoadFactor(lf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(w: u32, h: u32) -> Shape {
        Shape::new(w, h)
    }

    fn rec(job: u64, submit: i64, run: i64, procs: i64) -> Record {
        Record {
            job_id: job,
            submit: Some(submit),
            run_time: Some(run),
            allocated_procs: Some(procs),
            ..Record::default()
        }
    }

    #[test]
    fn paper_examples_on_12x12() {
        // window-k-mesh.md §5.4: 15 → 3×5, 17 → 18 = 3×6 on a 12×12 mesh, w ≤ h.
        let m = mesh(12, 12);
        assert_eq!(
            square_shape(15, m, Orientation::Tall),
            Some(Shape::new(3, 5))
        );
        assert_eq!(
            square_shape(17, m, Orientation::Tall),
            Some(Shape::new(3, 6))
        );
        assert_eq!(
            square_shape(15, m, Orientation::Wide),
            Some(Shape::new(5, 3))
        );
        assert_eq!(square_shape(144, m, Orientation::Tall), Some(m));
        assert_eq!(square_shape(145, m, Orientation::Tall), None);
        assert_eq!(square_shape(0, m, Orientation::Tall), None);
    }

    #[test]
    fn orientation_yields_to_fit() {
        // 22×16 mesh, w ≤ h wanted. 289 = 17² does not fit (17 > 16 rows); 290–293 have no
        // factorisation within 22×16; 294 = 14×21 fits only turned: 21×14.
        assert_eq!(
            square_shape(289, mesh(22, 16), Orientation::Tall),
            Some(Shape::new(21, 14))
        );
    }

    #[test]
    fn paragon_rule() {
        let m = mesh(22, 16);
        assert_eq!(paragon_shape(32, m), Some(Shape::new(2, 16)));
        assert_eq!(paragon_shape(320, m), Some(Shape::new(20, 16)));
        assert_eq!(paragon_shape(16, m), Some(Shape::new(1, 16)));
        // not a multiple of 16: square, w ≥ h
        assert_eq!(paragon_shape(8, m), Some(Shape::new(4, 2)));
        assert_eq!(paragon_shape(10, m), Some(Shape::new(5, 2)));
        assert_eq!(paragon_shape(353, m), None);
    }

    #[test]
    fn subcube_rounds_up() {
        assert_eq!(subcube_dim(1, 7), Some(0));
        assert_eq!(subcube_dim(2, 7), Some(1));
        assert_eq!(subcube_dim(5, 7), Some(3));
        assert_eq!(subcube_dim(128, 7), Some(7));
        assert_eq!(subcube_dim(129, 7), None);
        assert_eq!(subcube_dim(0, 7), None);
    }

    #[test]
    fn box_transform_is_the_cube_like_square_transform() {
        let d = |v: &[u32]| Dims::new(v).unwrap();
        let t = d(&[2, 2, 2, 6, 8]);
        // 384 nodes: the whole torus; 48 = 3·2·2·2·2 (largest factor 3), the 3 in the 8-node dimension.
        assert_eq!(box_shape(384, t), Some(t));
        assert_eq!(box_shape(48, t).unwrap().to_string(), "2x2x2x2x3");
        assert_eq!(box_shape(1, t).unwrap().to_string(), "1x1x1x1x1");
        // 13 is prime and larger than every dimension: 14 = 7·2 fits (7 in the 8-node dimension).
        assert_eq!(box_shape(13, t).unwrap().to_string(), "1x1x1x2x7");
        assert_eq!(box_shape(385, t), None);
        assert_eq!(box_shape(0, t), None);
        assert_eq!(
            box_shape(64, d(&[16, 16, 16])).unwrap().to_string(),
            "4x4x4"
        );
        assert_eq!(
            box_shape(17, d(&[16, 16, 16])).unwrap().to_string(),
            "3x3x2"
        );
        // A 2D torus behaves like the square transform with the larger factor in the larger dimension.
        assert_eq!(box_shape(15, d(&[4, 8])).unwrap().to_string(), "3x5");
        let mut table = ShapeTable::new(
            MachineSpec::Grid {
                dims: t,
                wrap: true,
            },
            ShapeRule::default_for(MachineSpec::Grid {
                dims: t,
                wrap: true,
            }),
        )
        .unwrap();
        assert_eq!(table.rule(), ShapeRule::Box);
        assert_eq!(table.request(48), Some(Request::Block(d(&[2, 2, 2, 2, 3]))));
    }

    #[test]
    fn retain_fitting_drops_what_a_semitorus_cannot_hold() {
        let torus: MachineSpec = "torus:2x2x2x6x8".parse().unwrap();
        let conv = Conversion::for_machine(torus);
        let out = conv
            .apply(&[rec(1, 0, 5, 300), rec(2, 1, 5, 256), rec(3, 2, 5, 384)])
            .expect("all fit the machine");
        let mut w = out.workload;
        use crate::machine::AllocKind;
        assert_eq!(w.retain_fitting(torus, &[AllocKind::Flat]), Ok(0));
        assert_eq!(
            w.retain_fitting(torus, &[AllocKind::Flat, AllocKind::Nep]),
            Ok(2)
        );
        assert_eq!(w.jobs.len(), 1);
        assert_eq!((w.jobs[0].source_id, w.jobs[0].id), (2, JobId(0)));
        assert!(w.retain_fitting(torus, &[AllocKind::Mpl]).is_err());
    }

    #[test]
    fn procs_to_nodes_is_ceiling() {
        assert_eq!(procs_to_nodes(1, 8), 1);
        assert_eq!(procs_to_nodes(8, 8), 1);
        assert_eq!(procs_to_nodes(9, 8), 2);
        assert_eq!(procs_to_nodes(1152, 8), 144);
        assert_eq!(procs_to_nodes(7, 1), 7);
    }

    #[test]
    fn validate_counts_first_reason() {
        let mut r = rec(1, 0, -1, 4);
        assert_eq!(
            validate(&r, SizeField::Allocated),
            Err(DropReason::NegativeRuntime)
        );
        r.run_time = None;
        assert_eq!(
            validate(&r, SizeField::Allocated),
            Err(DropReason::MissingRuntime)
        );
        let r = Record {
            allocated_procs: None,
            requested_procs: Some(16),
            ..rec(2, 5, 10, 0)
        };
        assert_eq!(
            validate(&r, SizeField::Allocated),
            Err(DropReason::MissingProcs)
        );
        assert_eq!(
            validate(&r, SizeField::AllocatedOrRequested).map(|v| v.procs),
            Ok(16)
        );
        assert_eq!(
            validate(&rec(3, 0, 0, 0), SizeField::Allocated),
            Err(DropReason::NonPositiveProcs)
        );
        let r = Record {
            submit: None,
            ..rec(4, 0, 5, 1)
        };
        assert_eq!(
            validate(&r, SizeField::Allocated),
            Err(DropReason::MissingSubmit)
        );
    }

    #[test]
    fn select_filters_partition_and_queue() {
        let r = Record {
            partition: Some(2),
            queue: Some(5),
            ..rec(1, 0, 1, 1)
        };
        assert_eq!(select(&r, Some(&[2]), None), Ok(()));
        assert_eq!(select(&r, Some(&[1]), None), Err(DropReason::Partition));
        assert_eq!(select(&r, None, Some(&[4])), Err(DropReason::Queue));
        let missing = rec(2, 0, 1, 1);
        assert_eq!(
            select(&missing, Some(&[2]), None),
            Err(DropReason::Partition)
        );
    }

    #[test]
    fn converter_sorts_stably_and_counts() {
        let conv = Conversion {
            procs_per_node: 8,
            lenient: true,
            ..Conversion::for_machine(MachineSpec::Mesh { size: mesh(12, 12) })
        };
        let recs = [
            rec(1, 10, 100, 15 * 8),
            rec(2, 5, 50, 8),
            rec(3, 10, 7, 17 * 8 - 3),
            rec(4, 11, -1, 8),
            rec(5, 12, 1, 0),
            rec(6, 13, 1, 145 * 8),
        ];
        let out = conv.apply(&recs).expect("valid conversion");
        let ids: Vec<u64> = out.workload.jobs.iter().map(|j| j.source_id).collect();
        assert_eq!(ids, [2, 1, 3]);
        assert!(
            out.workload
                .jobs
                .iter()
                .enumerate()
                .all(|(i, j)| j.id.index() == i)
        );
        assert_eq!(
            out.workload.jobs[1].request,
            Request::Submesh(Shape::new(3, 5))
        );
        assert_eq!(
            out.workload.jobs[2].request,
            Request::Submesh(Shape::new(3, 6))
        );
        assert_eq!(out.workload.jobs[2].asked_procs, 17 * 8 - 3);
        let d = |r| out.dropped.get(&r).copied();
        assert_eq!(d(DropReason::NegativeRuntime), Some(1));
        assert_eq!(d(DropReason::NonPositiveProcs), Some(1));
        assert_eq!(d(DropReason::TooLarge), Some(1));
    }

    #[test]
    fn strict_too_large_names_the_job() {
        let conv = Conversion::for_machine(MachineSpec::Flat { nodes: 4 });
        let err = conv.apply(&[rec(77, 0, 1, 5)]).expect_err("too large");
        assert!(err.to_string().contains("job 77"), "{err}");
    }

    #[test]
    fn jobs_keep_user_group_queue_and_partition() {
        let conv = Conversion::for_machine(MachineSpec::Flat { nodes: 4 });
        let full = Record {
            user: Some(12),
            group: Some(3),
            queue: Some(0),
            partition: Some(2),
            ..rec(1, 0, 1, 1)
        };
        let missing = Record {
            user: Some(-1),
            ..rec(2, 1, 1, 1)
        };
        let w = conv.apply(&[full, missing]).expect("fits").workload;
        let j = &w.jobs[0];
        assert_eq!(j.user.map(UserId::get), Some(12));
        assert_eq!(j.group.map(GroupId::get), Some(3));
        assert_eq!(j.queue.map(QueueId::get), Some(0));
        assert_eq!(j.partition.map(PartitionId::get), Some(2));
        let j = &w.jobs[1];
        assert_eq!(
            (j.user, j.group, j.queue, j.partition),
            (None, None, None, None)
        );
    }

    #[test]
    fn rule_must_suit_machine() {
        let conv = Conversion {
            shape: ShapeRule::Subcube,
            ..Conversion::for_machine(MachineSpec::Flat { nodes: 4 })
        };
        assert!(matches!(
            conv.converter(),
            Err(TransformError::RuleMismatch { .. })
        ));
    }

    #[test]
    fn scaling_shifts_then_divides() {
        let conv = Conversion::for_machine(MachineSpec::Flat { nodes: 8 });
        let out = conv
            .apply(&[rec(1, 100, 5, 1), rec(2, 110, 6, 1), rec(3, 130, 7, 2)])
            .expect("fits");
        let w = out.workload.scaled(0.5).expect("valid lf");
        let submits: Vec<f64> = w.jobs.iter().map(|j| j.submit).collect();
        assert_eq!(submits, [0.0, 20.0, 60.0]);
        let runs: Vec<f64> = w.jobs.iter().map(|j| j.runtime).collect();
        assert_eq!(runs, [5.0, 6.0, 7.0]);
        assert!(out.workload.scaled(0.0).is_err());
        assert!(out.workload.scaled(f64::NAN).is_err());
    }

    #[test]
    fn shape_rule_labels_round_trip() {
        for r in ShapeRule::ALL {
            assert_eq!(r.label().parse::<ShapeRule>(), Ok(r));
        }
        assert!("triangle".parse::<ShapeRule>().is_err());
    }

    #[test]
    fn an_input_rewrite_reads_records_first_and_counts_its_drops() {
        let flat = MachineSpec::Flat { nodes: 8 };
        let with = |run, procs, req_procs, req_time| Record {
            requested_procs: Some(req_procs),
            requested_time: Some(req_time),
            ..rec(1, 0, run, procs)
        };
        let records = [
            with(100, 4, 2, 60),
            with(100, 4, 2, -1),
            with(100, 9, 2, 60),
        ];
        let read = |input| {
            let c = Conversion {
                input,
                lenient: true,
                ..Conversion::for_machine(flat)
            };
            c.apply(&records).unwrap()
        };
        let logged = read(InputRewrite::AsLogged);
        assert_eq!(logged.workload.jobs.len(), 2); // field 5 = 9 is too large for 8 nodes
        assert_eq!(logged.dropped[&DropReason::TooLarge], 1);
        let sc15 = read(InputRewrite::Sc15);
        let j = &sc15.workload.jobs[0];
        assert_eq!((sc15.workload.jobs.len(), j.runtime), (1, 60.0));
        assert_eq!(j.request, Request::Nodes(2), "sized by field 8");
        assert_eq!(
            sc15.dropped[&DropReason::Rewrite],
            2,
            "no request, field 5 too large"
        );
    }
}
