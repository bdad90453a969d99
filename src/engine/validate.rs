//! The schedule validator: checks an [`Outcome`] against its workload and machine using none of the
//! schedulers', allocators' or engine's code.
//!
//! Checks, per job: a record exists; `start ≥ submit`; the job received exactly its service — its run
//! time, or its estimate when it was killed there (and only a job whose run time exceeds its
//! estimate may be) — in one segment `end = start + service` exactly, or, when it was suspended, in
//! run segments that begin at `start`, end at `end`, do not overlap and add up to the service (to
//! within 10⁻⁹ relative: the engine sums floating-point pieces); the placement covers exactly the
//! request (a submesh of the requested shape, or of its 90° rotation when flagged `rotated`; a box of
//! the requested extents, or — semitorus allocation — a box of power-of-two extents holding the
//! request's node count rounded up to a power of two; a subcube of the requested dimension; a node
//! count equal to the request's) and lies on the machine. Across jobs: no node is held by two jobs at any instant, and no more
//! nodes than the machine has are busy. Holding intervals are half-open, `[start, end)`: at equal
//! times ends come before starts, and a segment of length 0 holds nothing. Placements are checked
//! node by node through [`MachineSpec::node_ids`] (a per-node owner table swept over start/end
//! events, any topology); anonymous node counts against the machine's size.

use std::cmp::Ordering;

use super::{JobRecord, Outcome};
use crate::SimTime;
use crate::resource::{MachineSpec, Pieces, Placement, Request};
use crate::workload::{Job, JobId, Workload};

/// What is wrong with a schedule.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ValidationError {
    /// Not one record per job.
    #[error("{records} records for {jobs} jobs")]
    RecordCount {
        /// Jobs in the workload.
        jobs: usize,
        /// Records in the outcome.
        records: usize,
    },
    /// A job started before it was submitted.
    #[error("job index {} starts at {start} before its submission at {submit}", job.0)]
    StartsEarly {
        /// The job.
        job: JobId,
        /// Its start.
        start: SimTime,
        /// Its submission.
        submit: SimTime,
    },
    /// A job's end is not its start plus its service (run time, or estimate when killed).
    #[error("job index {} ends at {end}, not at start {start} + service {runtime}", job.0)]
    WrongEnd {
        /// The job.
        job: JobId,
        /// Its start.
        start: SimTime,
        /// Its recorded end.
        end: SimTime,
        /// Its service (run time, or estimate when killed).
        runtime: SimTime,
    },
    /// A job's run segments are not a valid split of its service.
    #[error("job index {}: {problem}", job.0)]
    WrongSegments {
        /// The job.
        job: JobId,
        /// What is wrong.
        problem: &'static str,
    },
    /// A placement does not match the request or the machine.
    #[error("job index {}: {problem}", job.0)]
    WrongPlacement {
        /// The job.
        job: JobId,
        /// What is wrong.
        problem: &'static str,
    },
    /// Two jobs hold the same node at once.
    #[error("jobs index {} and {} both hold node {node} at t = {at}", first.0, second.0)]
    Overlap {
        /// The job holding the node.
        first: JobId,
        /// The job starting on it.
        second: JobId,
        /// Node id (see [`crate::resource`]; `y·W + x` on a 2D mesh).
        node: u32,
        /// When.
        at: SimTime,
    },
    /// More nodes busy than the machine has.
    #[error("{busy} nodes busy on a {nodes}-node machine at t = {at} (job index {} starting)", job.0)]
    OverCapacity {
        /// The job whose start overflows.
        job: JobId,
        /// Nodes busy with it.
        busy: u64,
        /// Nodes of the machine.
        nodes: u32,
        /// When.
        at: SimTime,
    },
}

/// Checks that `outcome` is a valid schedule of `workload` on `machine`.
pub fn validate(
    workload: &Workload,
    machine: MachineSpec,
    outcome: &Outcome,
) -> Result<(), ValidationError> {
    let jobs = &workload.jobs;
    if jobs.len() != outcome.records.len() {
        return Err(ValidationError::RecordCount {
            jobs: jobs.len(),
            records: outcome.records.len(),
        });
    }
    let holds = holding_intervals(jobs, outcome)?;
    for (job, rec) in jobs.iter().zip(&outcome.records) {
        check_placement(job, &rec.placement, machine)?;
    }
    check_occupancy(machine, outcome, holds)
}

/// The service a record says the job received: its run time, stretched by the outcome's dilation
/// factor when there is one (`factor`).
fn service(job: &Job, rec: &JobRecord, factor: Option<f64>) -> Result<SimTime, ValidationError> {
    let runtime = match factor {
        Some(f) if f.is_finite() && f >= 1.0 => job.runtime * f,
        Some(_) => {
            return Err(ValidationError::WrongSegments {
                job: job.id,
                problem: "dilation factor below 1 or not finite",
            });
        }
        None => job.runtime,
    };
    if !rec.killed {
        return Ok(runtime);
    }
    if runtime > job.estimate {
        Ok(job.estimate)
    } else {
        Err(ValidationError::WrongSegments {
            job: job.id,
            problem: "killed at its estimate although its run time is not longer",
        })
    }
}

/// Checks every job's times and returns the intervals `(start, end, job)` during which it holds
/// its nodes.
fn holding_intervals(
    jobs: &[Job],
    outcome: &Outcome,
) -> Result<Vec<(SimTime, SimTime, JobId)>, ValidationError> {
    let mut holds = Vec::with_capacity(jobs.len() + outcome.segments.len());
    let mut segs = outcome.segments.iter().peekable();
    for (job, rec) in jobs.iter().zip(&outcome.records) {
        if rec.start.is_nan() || rec.start < job.submit {
            return Err(ValidationError::StartsEarly {
                job: job.id,
                start: rec.start,
                submit: job.submit,
            });
        }
        let service = service(job, rec, outcome.dilation.get(job.id.index()).copied())?;
        let mut mine = Vec::new();
        while let Some(s) = segs.next_if(|s| s.job <= job.id) {
            if s.job < job.id {
                return Err(ValidationError::WrongSegments {
                    job: s.job,
                    problem: "run segments out of job order",
                });
            }
            mine.push((s.start, s.end, job.id));
        }
        if mine.is_empty() {
            if rec.end.total_cmp(&(rec.start + service)) != Ordering::Equal {
                return Err(ValidationError::WrongEnd {
                    job: job.id,
                    start: rec.start,
                    end: rec.end,
                    runtime: service,
                });
            }
            holds.push((rec.start, rec.end, job.id));
        } else {
            check_segments(job.id, rec, service, &mine)?;
            holds.extend(mine);
        }
    }
    if let Some(s) = segs.next() {
        return Err(ValidationError::WrongSegments {
            job: s.job,
            problem: "run segments of a job that does not exist",
        });
    }
    Ok(holds)
}

/// A suspended job's segments: from its start to its end, in order, not overlapping, adding up to
/// its service.
fn check_segments(
    job: JobId,
    rec: &JobRecord,
    service: SimTime,
    segs: &[(SimTime, SimTime, JobId)],
) -> Result<(), ValidationError> {
    let bad = |problem| Err(ValidationError::WrongSegments { job, problem });
    if segs[0].0 != rec.start || segs[segs.len() - 1].1 != rec.end {
        return bad("run segments do not span the job's start to its end");
    }
    // A segment ends no earlier than it starts (`partial_cmp`: a NaN end is reversed too).
    let reversed = |s: &(SimTime, SimTime, JobId)| s.1.partial_cmp(&s.0).is_none_or(|o| o.is_lt());
    if segs.iter().any(reversed) || segs.windows(2).any(|w| w[1].0 < w[0].1) {
        return bad("run segments are reversed or overlap");
    }
    let total: SimTime = segs.iter().map(|s| s.1 - s.0).sum();
    if (total - service).abs() > 1e-9 * service.abs().max(1.0) {
        return bad("run segments do not add up to the job's service");
    }
    Ok(())
}

fn check_placement(job: &Job, p: &Placement, machine: MachineSpec) -> Result<(), ValidationError> {
    let bad = |problem| {
        Err(ValidationError::WrongPlacement {
            job: job.id,
            problem,
        })
    };
    let shape_ok = match (job.request, p.clone()) {
        (req, Placement::Block(b)) if crate::resource::is_rounded_semitorus(&req, &b) => true,
        // The request's count, or (`flat:pow2`) that count rounded up to a power of two.
        (req, Placement::Nodes(n))
            if n != req.nodes() && !crate::resource::is_rounded_count(&req, n) =>
        {
            return bad("granted a node count other than the request's (or its next power of two)");
        }
        (_, Placement::Nodes(n)) if n > machine.nodes() => {
            return bad("granted more nodes than the machine has");
        }
        (_, Placement::Nodes(_)) => return Ok(()),
        (Request::Submesh(want), Placement::Submesh { at, rotated }) => {
            at.shape == if rotated { want.rotated() } else { want }
        }
        (Request::Block(want), Placement::Block(b)) => b.extent == want,
        (Request::Subcube(d), Placement::Subcube(c)) => c.dim() == d,
        (Request::Submesh(_) | Request::Block(_), Placement::Pieces(ps)) => {
            if ps.nodes() < job.request.nodes() {
                return bad("granted pieces holding fewer nodes than requested");
            }
            if !pieces_disjoint(&ps, machine) {
                return bad("granted pieces that overlap or do not lie on the machine");
            }
            true
        }
        _ => return bad("granted a placement of another kind than the request"),
    };
    if !shape_ok {
        return bad("granted a placement of another shape than requested");
    }
    if machine.node_ids(p).is_none() {
        return bad("granted a placement that does not lie on the machine");
    }
    Ok(())
}

/// Whether every piece lies on `machine` and no node belongs to two of them.
fn pieces_disjoint(ps: &Pieces, machine: MachineSpec) -> bool {
    let Some(ids) = machine.node_ids(&Placement::Pieces(ps.clone())) else {
        return false;
    };
    let mut ids: Vec<u32> = ids.collect();
    ids.sort_unstable();
    ids.windows(2).all(|w| w[0] != w[1])
}

/// Sweeps start/end events in time order (ends first at equal times) over a node owner table.
fn check_occupancy(
    machine: MachineSpec,
    outcome: &Outcome,
    holds: Vec<(SimTime, SimTime, JobId)>,
) -> Result<(), ValidationError> {
    let mut events: Vec<(SimTime, bool, JobId)> = Vec::with_capacity(2 * holds.len());
    for (start, end, job) in holds {
        if end > start {
            events.push((start, true, job));
            events.push((end, false, job));
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut owner: Vec<u32> = Vec::new();
    let mut busy: u64 = 0;
    for (at, is_start, job) in events {
        let p = &outcome.records[job.index()].placement;
        if is_start {
            busy += u64::from(p.nodes());
            if busy > u64::from(machine.nodes()) {
                return Err(ValidationError::OverCapacity {
                    job,
                    busy,
                    nodes: machine.nodes(),
                    at,
                });
            }
        } else {
            busy -= u64::from(p.nodes());
        }
        if let Some(ids) = machine.node_ids(p) {
            if owner.is_empty() {
                owner = vec![u32::MAX; machine.nodes() as usize];
            }
            mark(&mut owner, ids, job, is_start, at)?;
        }
    }
    Ok(())
}

/// Takes (`is_start`) or frees the nodes `ids` for `job`.
fn mark(
    owner: &mut [u32],
    ids: impl Iterator<Item = u32>,
    job: JobId,
    is_start: bool,
    at: SimTime,
) -> Result<(), ValidationError> {
    for node in ids {
        let cell = &mut owner[node as usize];
        if !is_start {
            *cell = u32::MAX;
        } else if *cell != u32::MAX {
            return Err(ValidationError::Overlap {
                first: JobId(*cell),
                second: job,
                node,
                at,
            });
        } else {
            *cell = job.0;
        }
    }
    Ok(())
}
