//! Jobs as the simulator sees them: an arrival time, a run time and a topology-specific request.

use crate::SimTime;
use crate::machine::Shape;

/// Dense index of a job in its [`Workload`] (0-based, in arrival order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct JobId(pub u32);

impl JobId {
    /// The index as `usize`, for slice access.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// What a job asks of the machine, in the machine's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Request {
    /// Any `n` nodes (flat machine).
    Nodes(u32),
    /// A contiguous `w × h` submesh of a 2D mesh.
    Submesh(Shape),
    /// A subcube of dimension `d` (2^d nodes) of a hypercube.
    Subcube(u8),
}

impl Request {
    /// Number of nodes the request covers.
    pub fn nodes(&self) -> u32 {
        match *self {
            Request::Nodes(n) => n,
            Request::Submesh(s) => s.area(),
            Request::Subcube(d) => 1u32 << d,
        }
    }
}

/// One job of a workload, after filters and shape conversion.
#[derive(Debug, Clone, PartialEq)]
pub struct Job {
    /// Position in the workload.
    pub id: JobId,
    /// Job number in the source (SWF field 1, or the synthetic sequence number).
    pub source_id: u64,
    /// Submission time.
    pub submit: SimTime,
    /// Run time (> 0 after filtering... zero-length jobs are kept and run for 0).
    pub runtime: SimTime,
    /// The request in machine units.
    pub request: Request,
    /// Processors the job asked for in the source's units (before conversion), for internal
    /// fragmentation: `granted − asked`, both in processors.
    pub asked_procs: u32,
}

/// A job stream ready to simulate: sorted by submit time (ties keep source order), ids dense.
#[derive(Debug, Clone, Default)]
pub struct Workload {
    /// Jobs in arrival order; `jobs[i].id == JobId(i)`.
    pub jobs: Vec<Job>,
    /// Processors per machine node (8 for Blue Horizon, else 1); `granted_procs = nodes × this`.
    pub procs_per_node: u32,
}
