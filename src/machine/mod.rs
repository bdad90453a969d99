//! Machines and processor allocation.
//!
//! A [`MachineSpec`] names a topology (`mesh:22x16`, `flat:128`, later `hypercube:7`, tori); an
//! [`Allocator`] owns the machine's free/busy state and decides *where* (and whether) a
//! [`Request`] fits. Allocators are built from an [`AllocKind`] label (`ff`, `bf`, `fo`, `as`,
//! `mpl`, `mpl-fixed`, `flat`), and labels appear unchanged in every table. The six submesh allocators are one
//! [`MeshAllocator`] each, differing only in their [`PlacementRule`].
//!
//! Coordinates are 0-based internally (`x` in `0..W`, `y` in `0..H`); the papers' 1-based
//! `(x_b, y_b, x_e, y_e)` notation is available through [`Submesh::paper`].

use std::fmt;
use std::str::FromStr;

use crate::workload::Request;

mod adaptive_scan;
mod best_fit;
mod first_fit;
mod fixed_orientation;
mod flat;
mod mesh;
mod mpl;

pub use adaptive_scan::{AdaptiveScan, AdaptiveScanRule};
pub use best_fit::{BestFit, BestFitRule};
pub use first_fit::{FirstFit, FirstFitRule};
pub use fixed_orientation::{FixedOrientation, FixedOrientationRule, orient_to};
pub use flat::Flat;
pub use mesh::{FreeBases, Mesh, MeshAllocator, PlacementRule};
pub use mpl::{Mpl, MplFixed, MplFixedRule, MplRule};

/// Width × height of a rectangular request or submesh.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    /// Columns (x extent).
    pub w: u32,
    /// Rows (y extent).
    pub h: u32,
}

impl Shape {
    /// A `w × h` shape.
    pub const fn new(w: u32, h: u32) -> Self {
        Shape { w, h }
    }
    /// Number of nodes.
    pub const fn area(self) -> u32 {
        self.w * self.h
    }
    /// The shape turned by 90°.
    pub const fn rotated(self) -> Self {
        Shape {
            w: self.h,
            h: self.w,
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.w, self.h)
    }
}

/// A node of a 2D mesh, 0-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Coord {
    /// Column, `0..W`.
    pub x: u32,
    /// Row, `0..H`.
    pub y: u32,
}

/// A submesh: base (lower-left corner) and shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Submesh {
    /// Lower-left corner, 0-based.
    pub base: Coord,
    /// Extent.
    pub shape: Shape,
}

impl Submesh {
    /// The paper's 1-based `(x_b, y_b, x_e, y_e)`.
    pub fn paper(&self) -> (u32, u32, u32, u32) {
        let (x, y) = (self.base.x + 1, self.base.y + 1);
        (x, y, x + self.shape.w - 1, y + self.shape.h - 1)
    }
    /// Builds a submesh from the paper's 1-based `(x_b, y_b, x_e, y_e)`.
    pub fn from_paper(xb: u32, yb: u32, xe: u32, ye: u32) -> Self {
        Submesh {
            base: Coord {
                x: xb - 1,
                y: yb - 1,
            },
            shape: Shape::new(xe - xb + 1, ye - yb + 1),
        }
    }
}

/// Where a job runs: what an allocator granted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Placement {
    /// `n` anonymous nodes of a flat machine.
    Nodes(u32),
    /// A submesh of a 2D mesh; `rotated` when the allocator turned the request by 90°.
    Submesh {
        /// The granted submesh.
        at: Submesh,
        /// The request was rotated (fixed orientation, adaptive scan).
        rotated: bool,
    },
}

impl Placement {
    /// Number of nodes held.
    pub fn nodes(&self) -> u32 {
        match *self {
            Placement::Nodes(n) => n,
            Placement::Submesh { at, .. } => at.shape.area(),
        }
    }
}

/// The topology of a machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MachineSpec {
    /// `n` interchangeable nodes.
    Flat {
        /// Node count.
        nodes: u32,
    },
    /// A `W × H` 2D mesh.
    Mesh {
        /// Width and height.
        size: Shape,
    },
    /// A `d`-dimensional hypercube (2^d nodes).
    Hypercube {
        /// Dimension.
        dim: u8,
    },
}

impl MachineSpec {
    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        match *self {
            MachineSpec::Flat { nodes } => nodes,
            MachineSpec::Mesh { size } => size.area(),
            MachineSpec::Hypercube { dim } => 1 << dim,
        }
    }
}

impl fmt::Display for MachineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MachineSpec::Flat { nodes } => write!(f, "flat:{nodes}"),
            MachineSpec::Mesh { size } => write!(f, "mesh:{size}"),
            MachineSpec::Hypercube { dim } => write!(f, "hypercube:{dim}"),
        }
    }
}

/// A machine or allocator label that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// Not of the form `mesh:WxH`, `flat:N` or `hypercube:D`.
    #[error("machine `{0}` is not one of mesh:WxH, flat:N, hypercube:D (all > 0)")]
    Machine(String),
    /// Unknown allocator label.
    #[error("allocator `{0}` is not one of ff, bf, fo, as, mpl, mpl-fixed, flat")]
    Alloc(String),
    /// The allocator does not work on this machine.
    #[error("allocator `{alloc}` does not work on machine `{machine}`")]
    Mismatch {
        /// Allocator label.
        alloc: String,
        /// Machine label.
        machine: String,
    },
}

impl FromStr for MachineSpec {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || SpecError::Machine(s.to_string());
        let (kind, arg) = s.split_once(':').ok_or_else(bad)?;
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(bad)
        };
        match kind.trim() {
            "flat" => Ok(MachineSpec::Flat { nodes: num(arg)? }),
            "mesh" => {
                let (w, h) = arg.split_once(['x', 'X', '×']).ok_or_else(bad)?;
                Ok(MachineSpec::Mesh {
                    size: Shape::new(num(w)?, num(h)?),
                })
            }
            "hypercube" => {
                let d = num(arg)?;
                if d > 20 {
                    return Err(bad());
                }
                Ok(MachineSpec::Hypercube { dim: d as u8 })
            }
            _ => Err(bad()),
        }
    }
}

/// Counters an allocator keeps about its own work.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocStats {
    /// Calls to [`Allocator::allocate`].
    pub attempts: u64,
    /// Calls that failed.
    pub failures: u64,
}

/// Owns a machine's free/busy state and places requests on it.
///
/// Contract: `allocate` either returns a placement of exactly the request (possibly rotated, flagged)
/// whose nodes were all free and are now busy, or `None` and changes nothing; `release` frees exactly
/// what a previous `allocate` returned. Allocators are deterministic: the same sequence of calls gives
/// the same answers.
pub trait Allocator: Send {
    /// The machine this allocator manages.
    fn machine(&self) -> MachineSpec;
    /// Tries to place `req` now.
    fn allocate(&mut self, req: &Request) -> Option<Placement>;
    /// Frees a placement returned earlier.
    fn release(&mut self, p: &Placement);
    /// Free nodes now.
    fn free_nodes(&self) -> u32;
    /// Whether `req` could ever be placed (on the empty machine).
    fn fits_empty(&self, req: &Request) -> bool;
    /// Attempts and failures so far.
    fn stats(&self) -> AllocStats;
}

/// An allocator label: `ff`, `bf`, `fo`, `as`, `mpl`, `mpl-fixed`, `flat`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum AllocKind {
    /// First fit (Zhu), requested orientation, row-major base scan.
    FirstFit,
    /// Best fit (Zhu): the free placement with the most busy or boundary neighbours.
    BestFit,
    /// Fixed orientation (Chang & Mohapatra §2.2).
    FixedOrientation,
    /// Adaptive scan (Ding & Bhuyan): requested orientation, then rotated.
    AdaptiveScan,
    /// Maximum peripheral length (Ababneh, window-k-mesh.md §3.2), turning a request that does not
    /// fit as asked.
    Mpl,
    /// Maximum peripheral length in the requested orientation only.
    MplFixed,
    /// Node counting, no shape.
    Flat,
}

impl AllocKind {
    /// Every kind, in table order.
    pub const ALL: [AllocKind; 7] = [
        AllocKind::FirstFit,
        AllocKind::BestFit,
        AllocKind::FixedOrientation,
        AllocKind::AdaptiveScan,
        AllocKind::Mpl,
        AllocKind::MplFixed,
        AllocKind::Flat,
    ];
    /// The label used on the command line and in tables.
    pub fn label(self) -> &'static str {
        match self {
            AllocKind::FirstFit => "ff",
            AllocKind::BestFit => "bf",
            AllocKind::FixedOrientation => "fo",
            AllocKind::AdaptiveScan => "as",
            AllocKind::Mpl => "mpl",
            AllocKind::MplFixed => "mpl-fixed",
            AllocKind::Flat => "flat",
        }
    }
}

impl AllocKind {
    /// The allocator for `machine`, all nodes free. `flat` works on every machine (it counts nodes);
    /// the others need a 2D mesh (with fewer than 2³² nodes), and a mesh allocator never places a
    /// request that is not a rectangle (its [`Allocator::fits_empty`] says so before a run starts).
    pub fn build(self, machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
        let size = match (self, machine) {
            (AllocKind::Flat, _) => return Ok(Box::new(Flat::new(machine))),
            (_, MachineSpec::Mesh { size }) if size.w.checked_mul(size.h).is_some() => size,
            (_, MachineSpec::Mesh { .. }) => return Err(SpecError::Machine(machine.to_string())),
            _ => {
                return Err(SpecError::Mismatch {
                    alloc: self.label().to_string(),
                    machine: machine.to_string(),
                });
            }
        };
        Ok(match self {
            AllocKind::FirstFit => Box::new(FirstFit::new(size)),
            AllocKind::BestFit => Box::new(BestFit::new(size)),
            AllocKind::FixedOrientation => Box::new(FixedOrientation::new(size)),
            AllocKind::AdaptiveScan => Box::new(AdaptiveScan::new(size)),
            AllocKind::Mpl => Box::new(Mpl::new(size)),
            AllocKind::MplFixed => Box::new(MplFixed::new(size)),
            AllocKind::Flat => Box::new(Flat::new(machine)),
        })
    }
}

impl fmt::Display for AllocKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

impl FromStr for AllocKind {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AllocKind::ALL
            .into_iter()
            .find(|k| k.label() == s.trim())
            .ok_or_else(|| SpecError::Alloc(s.to_string()))
    }
}
