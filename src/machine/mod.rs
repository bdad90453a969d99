//! Machines and processor allocation.
//!
//! The topology itself is named by a [`MachineSpec`] (in [`crate::resource`], with the requests and
//! placements); an [`Allocator`] owns a machine's free/busy state and decides *where* (and whether) a
//! [`Request`] fits. Allocators are built from an [`AllocKind`] label (`ff`, `bf`, `fo`, `as`, `mpl`,
//! `mpl-fixed`, `buddy`, `freelist`, `graycode`, `buddy2d`, `flat`, `flat:pow2`, the semitorus ones,
//! and the non-contiguous `mbs`, `gabl`, `anca`, `paging:K[:order]`), and labels appear unchanged in
//! every
//! table. The six submesh allocators are one
//! [`MeshAllocator`] each, differing only in their [`PlacementRule`]; the non-contiguous ones one
//! [`PieceAllocator`] each around a [`PieceRule`], granting [`Placement::Pieces`].
//!
//! **Adding an allocator** takes its own file (with a `build` function) and one line in the
//! `allocators!` registry below, which declares the module, the [`AllocKind`] variant, its label and
//! its one-line description.
//!
//! Coordinates are 0-based internally (`x` in `0..W`, `y` in `0..H`); the papers' 1-based
//! `(x_b, y_b, x_e, y_e)` notation is available through [`Submesh::paper`].

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use crate::SimTime;

pub use crate::resource::{
    Block, Coord, Dims, MachineParseError, MachineSpec, Placement, Request, Shape, Subcube, Submesh,
};

mod anca_kd;
mod cube;
mod first_fit_kd;
mod gabl_kd;
mod grid_pieces;
mod mbs_kd;
mod mesh;
mod node_set;
mod noncontig;
mod page_spec;
mod paging;
mod paging_kd;
mod semitorus;

pub use adaptive_scan::{AdaptiveScan, AdaptiveScanRule};
pub use anca::Anca;
pub use best_fit::{BestFit, BestFitRule};
pub use buddy::Buddy;
pub use buddy_2d::{Buddy2d, Buddy2dRule};
pub use first_fit::{FirstFit, FirstFitRule};
pub use first_fit_kd::FirstFitKd;
pub use fixed_orientation::{FixedOrientation, FixedOrientationRule, orient_to};
pub use flat::Flat;
pub use flat_pow2::FlatPow2;
pub use free_list::FreeList;
pub use gabl::Gabl;
pub use gray_code::{GrayCode, gray, gray_position};
pub use mbs::Mbs;
pub use mbs_kd::GridMbs;
pub use mesh::{FreeBases, Mesh, MeshAllocator, PlacementRule, RegionCounter};
pub use mpl::{Mpl, MplFixedRule, MplRule};
pub use mpl_fixed::MplFixed;
pub use noncontig::{PieceAllocator, PieceRule};
pub use page_spec::{MAX_PAGE_ORDER, PageOrder, PageSpec};
pub use paging::Paging;
pub use paging_kd::GridPaging;
pub use semitorus::{
    Scheme, Semitorus, TorusConversion, convert, cube_like, initial_set, wrap_flags,
};

/// The allocator registry: one line per allocator — `Variant = module, "label", "description"` —
/// declares the module (whose `build(machine)` makes the allocator) and the [`AllocKind`] variant.
/// Table order is the order of the lines. The one allocator with parameters in its label, paging
/// (`paging:K[:order]`, [`PageSpec`]), is written into the macro after them.
macro_rules! allocators {
    ($($(#[$doc:meta])* $variant:ident = $module:ident, $label:literal;)+) => {
        $(mod $module;)+

        /// An allocator label (see the registry in the module source for the list).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum AllocKind {
            $($(#[$doc])* $variant,)+
            /// Paging (Lo et al. 1997): pages of `2^K × 2^K` nodes in a page order, non-contiguous.
            Paging(PageSpec),
        }

        impl AllocKind {
            /// Every kind, in table order (paging as `paging:0`).
            pub const ALL: &'static [AllocKind] =
                &[$(AllocKind::$variant,)+ AllocKind::Paging(PageSpec::DEFAULT)];
            /// The label used on the command line and in tables.
            pub fn label(self) -> Cow<'static, str> {
                match self {
                    $(AllocKind::$variant => Cow::Borrowed($label),)+
                    AllocKind::Paging(spec) => Cow::Owned(spec.to_string()),
                }
            }
            /// The allocator for `machine`, all nodes free, or why this allocator does not work there.
            pub fn build(self, machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
                match self {
                    $(AllocKind::$variant => $module::build(machine),)+
                    AllocKind::Paging(spec) => paging::build_with(spec, machine),
                }
            }
        }
    };
}

allocators! {
    /// First fit (Zhu), requested orientation, row-major base scan.
    FirstFit = first_fit, "ff";
    /// Best fit (Zhu): the free placement with the most busy or boundary neighbours.
    BestFit = best_fit, "bf";
    /// Fixed orientation (Chang & Mohapatra §2.2).
    FixedOrientation = fixed_orientation, "fo";
    /// Adaptive scan (Ding & Bhuyan): requested orientation, then rotated.
    AdaptiveScan = adaptive_scan, "as";
    /// Maximum peripheral length (Ababneh, window-k-mesh.md §3.2).
    Mpl = mpl, "mpl";
    /// MPL in the requested orientation only (never turns).
    MplFixed = mpl_fixed, "mpl-fixed";
    /// Node counting, no shape; any machine.
    Flat = flat, "flat";
    /// Node counting of requests rounded up to a power of two (the semitorus allocators' rounding
    /// on a fully connected machine).
    FlatPow2 = flat_pow2, "flat:pow2";
    /// Buddy system on a hypercube, free lists F_0…F_n (lazy-scheduling-hypercube.md §3.2).
    Buddy = buddy, "buddy";
    /// Kim & Das free lists on a hypercube, complete recognition (lazy-scheduling-hypercube.md §2.1).
    FreeList = free_list, "freelist";
    /// Single binary-reflected gray code on a hypercube (Chen & Shin, lazy-scheduling-hypercube.md §2.1).
    GrayCode = gray_code, "graycode";
    /// 2D buddy system on a square power-of-two mesh; the buddy order of FF-2G (coscheduling report).
    Buddy2d = buddy_2d, "buddy2d";
    /// Semitorus allocation, equal partition (Mao et al.), collapse conversion.
    Ep = ep, "ep";
    /// Semitorus allocation, non-equal partition (Mao et al.), collapse conversion.
    Nep = nep, "nep";
    /// Semitorus allocation, equal partition, pair conversion.
    EpPair = ep_pair, "ep:pair";
    /// Semitorus allocation, non-equal partition, pair conversion.
    NepPair = nep_pair, "nep:pair";
    /// Multiple Buddy Strategy (Lo et al. 1997), non-contiguous, 2D mesh.
    Mbs = mbs, "mbs";
    /// Greedy Available Busy List (Bani-Mohammad et al. 2007), non-contiguous, 2D mesh or k-D
    /// mesh/torus.
    Gabl = gabl, "gabl";
    /// Adaptive Non-Contiguous Allocation (Chang & Mohapatra 1998), 2D mesh or k-D mesh/torus.
    Anca = anca, "anca";
}

/// A machine or allocator label that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// Not a machine label.
    #[error(transparent)]
    Machine(#[from] MachineParseError),
    /// Unknown allocator label.
    #[error("allocator `{0}` is not one of {labels}{hint}", labels = AllocKind::ALL.iter().map(|k| k.label()).collect::<Vec<_>>().join(", "), hint = alloc_hint(.0))]
    Alloc(String),
    /// The allocator does not work on this machine.
    #[error("allocator `{alloc}` does not work on machine `{machine}`")]
    Mismatch {
        /// Allocator label.
        alloc: String,
        /// Machine label.
        machine: String,
    },
    /// The allocator does not work on this machine, for a stated reason.
    #[error("allocator `{alloc}` does not work on machine `{machine}`: {reason}")]
    Unsupported {
        /// Allocator label.
        alloc: String,
        /// Machine label.
        machine: String,
        /// Why.
        reason: String,
    },
}

/// Allocator calls the engine made during a replay (finds on the machine itself, not on snapshots).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct AllocStats {
    /// Calls to [`Allocator::find`] for a start.
    pub attempts: u64,
    /// Calls that found no place.
    pub failures: u64,
}

/// Owns a machine's free/busy state, finds where requests fit, and records what is granted.
///
/// Finding is separate from committing, so that schedulers can ask what-if questions on a
/// [`Allocator::snapshot`]:
///
/// * [`find`](Allocator::find) answers where `req` would go *now* — a placement of exactly the
///   request (possibly turned by 90°, flagged) whose nodes are all free — and changes no free/busy
///   state (it may use scratch buffers and caches, hence `&mut self`);
/// * [`occupy`](Allocator::occupy) marks a placement busy: one `find` returned, or any placement of
///   this machine whose nodes are all free ([`is_free`](Allocator::is_free)), such as a reserved
///   placement or a resumed job's nodes;
/// * [`vacate`](Allocator::vacate) frees a busy placement.
///
/// Allocators are deterministic: the same sequence of calls gives the same answers, and a snapshot
/// answers exactly as the original would in the same state.
pub trait Allocator: Send {
    /// The machine this allocator manages.
    fn machine(&self) -> MachineSpec;
    /// Where `req` would be placed now, without changing the free/busy state.
    fn find(&mut self, req: &Request) -> Option<Placement>;
    /// Marks every node of `p` busy (they must all be free).
    fn occupy(&mut self, p: &Placement);
    /// Marks every node of `p` free (they must all be busy, held by `p`).
    fn vacate(&mut self, p: &Placement);
    /// Whether `p` lies on this machine and all its nodes are free.
    fn is_free(&self, p: &Placement) -> bool;
    /// Free nodes now.
    fn free_nodes(&self) -> u32;
    /// Whether `req` could ever be placed (on the empty machine).
    fn fits_empty(&self, req: &Request) -> bool;
    /// An independent copy of the current state, for planning.
    fn snapshot(&self) -> Box<dyn Allocator>;
    /// The torus a job granted `p` runs as, for torus allocators (semitorus allocation converts
    /// each granted semitorus to a torus); `None` for the others.
    fn granted_torus(&self, _p: &Placement) -> Option<Dims> {
        None
    }
    /// The mesh whose free set is this allocator's whole state (the 2D mesh allocators: each
    /// placement occupies and vacates exactly its submesh there); `None` for the others. Readers of
    /// the free set, such as the fragmentation measures, use it instead of keeping a copy.
    fn mesh(&self) -> Option<&Mesh> {
        None
    }
    /// Whether `req` has a free placement now: `find(req).is_some()`, answered more cheaply where an
    /// allocator can (MPL scans for any free base instead of ranking maximal free submeshes).
    fn fits(&mut self, req: &Request) -> bool {
        self.find(req).is_some()
    }
    /// Whether `req` would still have a free placement with `taken` (free now) occupied as well; the
    /// state is left as it was. Backfilling asks this for every candidate against the head's
    /// reservation; allocators whose state is only their occupancy answer it in place, without the
    /// default's snapshot.
    fn fits_beside(&mut self, taken: &Placement, req: &Request) -> bool {
        let mut probe = self.snapshot();
        probe.occupy(taken);
        probe.fits(req)
    }
    /// Whether placements are interchangeable node counts ([`Placement::Nodes`]): a request of `n`
    /// nodes (`0 < n ≤` the machine's nodes) fits exactly when `n` nodes are free, and taking or
    /// giving back a placement changes only that count. Planners may then plan on counts alone.
    fn counts_nodes(&self) -> bool {
        false
    }
    /// Whether every placement found for a request holds exactly its [`Request::nodes`] (the
    /// request itself, or a turn of it): what a request needs is then its own count, without
    /// asking where it would go. Node counters do; so do the 2D mesh allocators.
    fn grants_requested_nodes(&self) -> bool {
        self.counts_nodes()
    }
    /// Gives back `releases` (placements with the time each is given back, in order of time)
    /// one time at a time, until `req` is found a place: the first such time and the place found
    /// then, every release up to that time made; `None`, every release made, when it fits nowhere
    /// even then. The planners' earliest start ([`crate::sched::plan::earliest_start`]) once `req`
    /// does not fit now. The default asks after each time; an allocator may search fewer of the
    /// intermediate states, with the same answer and the same state left.
    fn find_after_releases(
        &mut self,
        req: &Request,
        releases: &[(SimTime, Placement)],
    ) -> Option<(SimTime, Placement)> {
        let mut i = 0;
        while i < releases.len() {
            let t = releases[i].0;
            while i < releases.len() && releases[i].0 == t {
                self.vacate(&releases[i].1);
                i += 1;
            }
            if let Some(placement) = self.find(req) {
                return Some((t, placement));
            }
        }
        None
    }
    /// Finds a place for `req` and occupies it.
    fn allocate(&mut self, req: &Request) -> Option<Placement> {
        let p = self.find(req)?;
        self.occupy(&p);
        Some(p)
    }
}

/// A boxed allocator clones as its [`snapshot`](Allocator::snapshot), so that policies holding
/// allocator states can derive `Clone` (a replay forked to measure fair start times).
impl Clone for Box<dyn Allocator> {
    fn clone(&self) -> Self {
        self.snapshot()
    }
}

/// The "does not work on this machine" error of allocator `kind`.
/// `; did you mean `mpl`?` for an allocator label near a known one, else empty.
fn alloc_hint(text: &str) -> String {
    let labels: Vec<String> = AllocKind::ALL
        .iter()
        .map(|k| k.label().into_owned())
        .collect();
    crate::suggest::did_you_mean(text, labels.iter().map(String::as_str))
        .map_or_else(String::new, |d| format!("; {d}"))
}

pub(crate) fn mismatch(kind: AllocKind, machine: MachineSpec) -> SpecError {
    SpecError::Mismatch {
        alloc: kind.label().to_string(),
        machine: machine.to_string(),
    }
}

impl fmt::Display for AllocKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.label())
    }
}

impl FromStr for AllocKind {
    type Err = SpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let label = s.trim();
        if let Some(arg) = label.strip_prefix("paging:") {
            return PageSpec::parse(arg)
                .map(AllocKind::Paging)
                .ok_or_else(|| SpecError::Alloc(s.to_string()));
        }
        AllocKind::ALL
            .iter()
            .copied()
            .find(|k| k.label() == label)
            .ok_or_else(|| SpecError::Alloc(s.to_string()))
    }
}
