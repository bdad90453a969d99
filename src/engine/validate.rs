//! The schedule validator: checks an [`Outcome`] against its workload and machine using none of the
//! schedulers' or allocators' code.
//!
//! Checks, per job: a record exists; `start ≥ submit`; `end = start + runtime` exactly; the placement
//! covers exactly the request (a submesh of the requested shape, or of its 90° rotation when flagged
//! `rotated`; a node count equal to the request's) and lies inside the machine. Across jobs: no node is
//! held by two jobs at any instant, and no more nodes than the machine has are busy. Holding intervals
//! are half-open, `[start, end)`: at equal times ends come before starts, and a job of run time 0
//! holds nothing. Submesh placements are checked node by node (a per-node owner grid swept over
//! start/end events); node counts against the machine's size.

use std::cmp::Ordering;

use super::Outcome;
use crate::SimTime;
use crate::machine::{MachineSpec, Placement, Shape, Submesh};
use crate::workload::{Job, JobId, Request, Workload};

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
    /// A job's end is not its start plus its run time.
    #[error("job index {} ends at {end}, not at start {start} + run time {runtime}", job.0)]
    WrongEnd {
        /// The job.
        job: JobId,
        /// Its start.
        start: SimTime,
        /// Its recorded end.
        end: SimTime,
        /// Its run time.
        runtime: SimTime,
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
    #[error("jobs index {} and {} both hold node ({x}, {y}) at t = {at}", first.0, second.0)]
    Overlap {
        /// The job holding the node.
        first: JobId,
        /// The job starting on it.
        second: JobId,
        /// Column, 0-based.
        x: u32,
        /// Row, 0-based.
        y: u32,
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
    for (job, rec) in jobs.iter().zip(&outcome.records) {
        check_times(job, rec.start, rec.end)?;
        check_placement(job, &rec.placement, machine)?;
    }
    check_occupancy(machine, outcome)
}

fn check_times(job: &Job, start: SimTime, end: SimTime) -> Result<(), ValidationError> {
    if start.is_nan() || start < job.submit {
        return Err(ValidationError::StartsEarly {
            job: job.id,
            start,
            submit: job.submit,
        });
    }
    if end.total_cmp(&(start + job.runtime)) != Ordering::Equal {
        return Err(ValidationError::WrongEnd {
            job: job.id,
            start,
            end,
            runtime: job.runtime,
        });
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
    match (*p, machine) {
        (Placement::Nodes(n), _) if n != job.request.nodes() => {
            bad("granted a node count other than the request's")
        }
        (Placement::Nodes(n), m) if n > m.nodes() => bad("granted more nodes than the machine has"),
        (Placement::Nodes(_), _) => Ok(()),
        (Placement::Submesh { at, rotated }, MachineSpec::Mesh { size }) => {
            let Request::Submesh(want) = job.request else {
                return bad("granted a submesh for a request that is not one");
            };
            let want = if rotated { want.rotated() } else { want };
            if at.shape != want {
                return bad("granted a submesh of another shape than requested");
            }
            if !inside(at, size) {
                return bad("granted a submesh outside the mesh");
            }
            Ok(())
        }
        (Placement::Submesh { .. }, _) => bad("granted a submesh on a machine that is not a mesh"),
    }
}

fn inside(at: Submesh, size: Shape) -> bool {
    let fits = |base: u32, ext: u32, side: u32| {
        ext > 0 && base.checked_add(ext).is_some_and(|e| e <= side)
    };
    fits(at.base.x, at.shape.w, size.w) && fits(at.base.y, at.shape.h, size.h)
}

/// Sweeps start/end events in time order (ends first at equal times) over a node owner grid.
fn check_occupancy(machine: MachineSpec, outcome: &Outcome) -> Result<(), ValidationError> {
    let mut events: Vec<(SimTime, bool, JobId)> = Vec::with_capacity(2 * outcome.records.len());
    for (i, rec) in outcome.records.iter().enumerate() {
        if rec.end > rec.start {
            events.push((rec.start, true, JobId(i as u32)));
            events.push((rec.end, false, JobId(i as u32)));
        }
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let width = match machine {
        MachineSpec::Mesh { size } => size.w as usize,
        _ => 0,
    };
    let mut owner: Vec<u32> = vec![
        u32::MAX;
        if width > 0 {
            machine.nodes() as usize
        } else {
            0
        }
    ];
    let mut busy: u64 = 0;
    for (at, is_start, job) in events {
        let p = outcome.records[job.index()].placement;
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
        if let Placement::Submesh { at: sub, .. } = p {
            mark(&mut owner, width, sub, job, is_start, at)?;
        }
    }
    Ok(())
}

/// Takes (`is_start`) or frees the nodes of `sub` for `job`.
fn mark(
    owner: &mut [u32],
    width: usize,
    sub: Submesh,
    job: JobId,
    is_start: bool,
    at: SimTime,
) -> Result<(), ValidationError> {
    for y in sub.base.y..sub.base.y + sub.shape.h {
        for x in sub.base.x..sub.base.x + sub.shape.w {
            let cell = &mut owner[y as usize * width + x as usize];
            if !is_start {
                *cell = u32::MAX;
            } else if *cell != u32::MAX {
                return Err(ValidationError::Overlap {
                    first: JobId(*cell),
                    second: job,
                    x,
                    y,
                    at,
                });
            } else {
                *cell = job.0;
            }
        }
    }
    Ok(())
}
