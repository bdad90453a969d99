//! The resource vocabulary shared by workloads, machines and the engine: what a job *asks for*
//! ([`Request`]), what it *gets* ([`Placement`]), and the machine both refer to ([`MachineSpec`]).
//!
//! This module is a leaf: it imports nothing else of the crate, and `workload`, `machine`, `sched` and
//! `engine` all speak through it. Every placement maps to the machine's node ids
//! ([`MachineSpec::node_ids`]), so the validator and the per-job tables work on any topology without
//! knowing any allocator.
//!
//! # Node ids
//!
//! | machine | label | node id |
//! |---|---|---|
//! | flat | `flat:N` | anonymous: placements are counts, no ids |
//! | 2D mesh | `mesh:WxH` | `y·W + x` (row-major, `x` fastest) |
//! | k-D mesh / torus | `mesh:XxYxZ`, `torus:AxBx…` | `Σ cᵢ·Πⱼ<ᵢ dⱼ` (dimension 0 fastest; a 2D grid numbers like a 2D mesh) |
//! | hypercube | `hypercube:D` | the node's binary address |
//!
//! ```
//! use pwa_replay::resource::{MachineSpec, Placement, Subcube};
//!
//! let cube: MachineSpec = "hypercube:4".parse().unwrap();
//! let p = Placement::Subcube(Subcube::new(4, 0b0101, 0b1000));
//! assert_eq!(p.to_string(), "*101");
//! let mut ids: Vec<u32> = cube.node_ids(&p).unwrap().collect();
//! ids.sort();
//! assert_eq!(ids, [0b0101, 0b1101]);
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

/// Width × height of a rectangular request or submesh.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
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
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Coord {
    /// Column, `0..W`.
    pub x: u32,
    /// Row, `0..H`.
    pub y: u32,
}

/// A submesh: base (lower-left corner) and shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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

    /// Whether the submesh is not empty and lies inside a mesh of `size`.
    pub fn lies_in(&self, size: Shape) -> bool {
        let end = |base: u32, len: u32| base.checked_add(len);
        self.shape.w > 0
            && self.shape.h > 0
            && end(self.base.x, self.shape.w).is_some_and(|e| e <= size.w)
            && end(self.base.y, self.shape.h).is_some_and(|e| e <= size.h)
    }
}

/// Most dimensions a k-dimensional mesh or torus may have.
pub const MAX_DIMS: usize = 6;

/// Extents (or coordinates) along `1..=MAX_DIMS` dimensions, each `1..=65535`.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Dims {
    len: u8,
    v: [u16; MAX_DIMS],
}

impl Dims {
    /// Dimensions from a slice; `None` when empty, longer than [`MAX_DIMS`], or a value is not in
    /// `1..=65535` (`allow_zero` admits 0, for coordinates).
    fn build(values: &[u32], allow_zero: bool) -> Option<Dims> {
        if values.is_empty() || values.len() > MAX_DIMS {
            return None;
        }
        let mut v = [0u16; MAX_DIMS];
        for (slot, &x) in v.iter_mut().zip(values) {
            if x == 0 && !allow_zero {
                return None;
            }
            *slot = u16::try_from(x).ok()?;
        }
        Some(Dims {
            len: values.len() as u8,
            v,
        })
    }
    /// Extents from a slice (each ≥ 1).
    pub fn new(values: &[u32]) -> Option<Dims> {
        Dims::build(values, false)
    }
    /// Coordinates from a slice (each may be 0).
    pub fn coords(values: &[u32]) -> Option<Dims> {
        Dims::build(values, true)
    }
    /// Number of dimensions.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Never true (at least one dimension); for the `len`/`is_empty` convention.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Value along dimension `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        u32::from(self.v[i])
    }
    /// The values in dimension order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.v[..self.len()].iter().map(|&x| u32::from(x))
    }
    /// Product of the values (node count of a box of these extents), saturating at `u64::MAX`.
    pub fn volume(&self) -> u64 {
        self.iter().map(u64::from).fold(1, u64::saturating_mul)
    }
}

impl fmt::Debug for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Dims({self})")
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, x) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("x")?;
            }
            write!(f, "{x}")?;
        }
        Ok(())
    }
}

/// A box of a k-dimensional mesh or torus: the node id of its base corner and its extent. On a torus
/// the box may wrap around: its nodes are `(base + offset) mod dims` for every offset below `extent`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Block {
    /// Node id of the base corner (see the module doc for the numbering).
    pub base: u32,
    /// Extent along each dimension.
    pub extent: Dims,
}

/// A subcube of a hypercube: the nodes whose address agrees with `addr` outside `mask` (the `*`
/// positions). Written MSB first as a pattern of `0`, `1` and `*`, e.g. `10**1*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Subcube {
    /// Dimension of the whole machine (the pattern's length).
    pub order: u8,
    /// Values of the fixed bits (bits inside `mask` are 0).
    pub addr: u32,
    /// The free (`*`) dimensions; the subcube has `2^popcount(mask)` nodes.
    pub mask: u32,
}

impl Subcube {
    /// The subcube of an `order`-cube fixing the bits of `addr` outside `mask`.
    pub fn new(order: u8, addr: u32, mask: u32) -> Self {
        Subcube {
            order,
            addr: addr & !mask,
            mask,
        }
    }
    /// Its dimension (number of `*`).
    pub fn dim(&self) -> u8 {
        self.mask.count_ones() as u8
    }
    /// Whether node `a` belongs to it.
    pub fn contains(&self, a: u32) -> bool {
        a & !self.mask == self.addr
    }
    /// Its node addresses, in increasing order.
    pub fn addresses(self) -> impl Iterator<Item = u32> {
        // Enumerate the subsets of `mask` in increasing order (Gosper-free carry trick).
        let mut next = Some(0u32);
        std::iter::from_fn(move || {
            let cur = next?;
            next = (cur != self.mask).then(|| (cur | !self.mask).wrapping_add(1) & self.mask);
            Some(self.addr | cur)
        })
    }
}

impl fmt::Display for Subcube {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for bit in (0..u32::from(self.order)).rev() {
            let c = if self.mask >> bit & 1 == 1 {
                '*'
            } else if self.addr >> bit & 1 == 1 {
                '1'
            } else {
                '0'
            };
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// What a job asks of the machine, in the machine's units.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Request {
    /// Any `n` nodes (flat machine).
    Nodes(u32),
    /// A contiguous `w × h` submesh of a 2D mesh.
    Submesh(Shape),
    /// A box of these extents on a k-dimensional mesh or torus.
    Block(Dims),
    /// A subcube of dimension `d` (2^d nodes) of a hypercube.
    Subcube(u8),
}

impl Request {
    /// Number of nodes the request covers (saturating at `u32::MAX`).
    pub fn nodes(&self) -> u32 {
        match *self {
            Request::Nodes(n) => n,
            Request::Submesh(s) => s.w.saturating_mul(s.h),
            Request::Block(d) => u32::try_from(d.volume()).unwrap_or(u32::MAX),
            Request::Subcube(d) => 1u32.checked_shl(d.into()).unwrap_or(u32::MAX),
        }
    }
}

/// Whether box `b` is what semitorus allocation grants for `req` (`semitorus-allocation.md`: the
/// request rounded up to the next power of two): a box or node-count request of `n` nodes, and a box
/// of power-of-two extents holding exactly `2^⌈log₂ n⌉` nodes.
pub fn is_rounded_semitorus(req: &Request, b: &Block) -> bool {
    let n = match *req {
        Request::Nodes(n) => n,
        Request::Block(d) => u32::try_from(d.volume()).unwrap_or(u32::MAX),
        _ => return false,
    };
    n > 0
        && b.extent.iter().all(u32::is_power_of_two)
        && n.checked_next_power_of_two()
            .is_some_and(|m| u64::from(m) == b.extent.volume())
}

/// Whether `n` anonymous nodes are `req`'s node count rounded up to a power of two (and not the
/// count itself): what `flat:pow2` grants, the semitorus rounding on a fully connected machine.
pub fn is_rounded_count(req: &Request, n: u32) -> bool {
    let want = req.nodes();
    want > 0 && n != want && want.checked_next_power_of_two() == Some(n)
}

/// Where a job runs: what an allocator granted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Placement {
    /// `n` anonymous nodes of a flat machine (no ids).
    Nodes(u32),
    /// A submesh of a 2D mesh; `rotated` when the allocator turned the request by 90°.
    Submesh {
        /// The granted submesh.
        at: Submesh,
        /// The request was rotated (fixed orientation, adaptive scan).
        rotated: bool,
    },
    /// A box of a k-dimensional mesh or torus.
    Block(Block),
    /// A subcube of a hypercube.
    Subcube(Subcube),
    /// Several disjoint boxes of a 2D mesh or a k-dimensional grid, granted by a non-contiguous
    /// allocator (paging, MBS, GABL, ANCA).
    Pieces(Pieces),
}

/// The disjoint boxes of a non-contiguous placement, in the order the allocator granted them. On a 2D
/// mesh (`mesh:WxH`) each is a 2-dimensional [`Block`] whose base is the node id `y·W + x`, so that
/// one representation serves every grid. Shared ([`Arc`]): cloning a placement does not copy them.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(from = "Vec<Block>", into = "Vec<Block>")]
pub struct Pieces(Arc<[Block]>);

impl From<Vec<Block>> for Pieces {
    fn from(boxes: Vec<Block>) -> Self {
        Pieces::new(boxes)
    }
}

impl From<Pieces> for Vec<Block> {
    fn from(p: Pieces) -> Self {
        p.0.to_vec()
    }
}

impl Pieces {
    /// The placement of these boxes (at least one; the allocator checks that they are disjoint).
    pub fn new(boxes: Vec<Block>) -> Self {
        Pieces(boxes.into())
    }
    /// The boxes.
    pub fn boxes(&self) -> &[Block] {
        &self.0
    }
    /// Nodes held: the sum of the boxes' volumes (saturating at `u32::MAX`).
    pub fn nodes(&self) -> u32 {
        let n: u64 = self.0.iter().map(|b| b.extent.volume()).sum();
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

impl Placement {
    /// Number of nodes held.
    pub fn nodes(&self) -> u32 {
        match *self {
            Placement::Nodes(n) => n,
            Placement::Submesh { at, .. } => at.shape.area(),
            Placement::Block(b) => u32::try_from(b.extent.volume()).unwrap_or(u32::MAX),
            Placement::Subcube(c) => 1u32 << c.dim(),
            Placement::Pieces(ref p) => p.nodes(),
        }
    }
    /// The granted shape as tables print it: `WxH`, `AxBx…`, `2^k` or the node count.
    pub fn shape_label(&self) -> String {
        match self {
            Placement::Nodes(n) => n.to_string(),
            Placement::Submesh { at, .. } => at.shape.to_string(),
            Placement::Block(b) => b.extent.to_string(),
            Placement::Subcube(c) => format!("2^{}", c.dim()),
            Placement::Pieces(p) => p.nodes().to_string(),
        }
    }
}

impl fmt::Display for Placement {
    /// `(x_b,y_b,x_e,y_e)` 1-based for a submesh (as the papers write it); `N nodes`; a box as
    /// `@base+AxBx…`; a subcube as its pattern (`10**1*`); pieces as their boxes, space-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Placement::Nodes(n) => write!(f, "{n} nodes"),
            Placement::Submesh { at, .. } => {
                let (xb, yb, xe, ye) = at.paper();
                write!(f, "({xb},{yb},{xe},{ye})")
            }
            Placement::Block(b) => write!(f, "@{}+{}", b.base, b.extent),
            Placement::Subcube(c) => write!(f, "{c}"),
            Placement::Pieces(p) => {
                for (i, b) in p.boxes().iter().enumerate() {
                    let sep = if i > 0 { " " } else { "" };
                    write!(f, "{sep}@{}+{}", b.base, b.extent)?;
                }
                Ok(())
            }
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
    /// A k-dimensional mesh (`mesh:XxYxZ`, k ≥ 3) or torus (`torus:AxBx…`, k ≥ 1).
    Grid {
        /// Extent along each dimension.
        dims: Dims,
        /// Wrap-around links in every dimension (a torus).
        wrap: bool,
    },
    /// A `d`-dimensional hypercube (2^d nodes).
    Hypercube {
        /// Dimension.
        dim: u8,
    },
}

/// A machine label that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "machine `{0}` is not one of flat:N, mesh:WxH, mesh:XxYxZ, torus:AxBx…, hypercube:D (sizes > 0, at most {MAX_DIMS} dimensions, fewer than 2^32 nodes, D ≤ 20)"
)]
pub struct MachineParseError(pub String);

impl MachineSpec {
    /// Number of nodes.
    pub fn nodes(&self) -> u32 {
        match *self {
            MachineSpec::Flat { nodes } => nodes,
            MachineSpec::Mesh { size } => size.area(),
            MachineSpec::Grid { dims, .. } => u32::try_from(dims.volume()).unwrap_or(u32::MAX),
            MachineSpec::Hypercube { dim } => 1 << dim,
        }
    }

    /// The node ids of `p` on this machine, or `None` when `p` is anonymous ([`Placement::Nodes`])
    /// or does not belong to this topology or lies (partly) outside it. A subcube's ids come in
    /// increasing order; a submesh's and a box's in row-major order of their offsets; pieces' box by
    /// box (their disjointness is the validator's to check).
    pub fn node_ids(&self, p: &Placement) -> Option<Box<dyn Iterator<Item = u32> + '_>> {
        if let Placement::Pieces(pieces) = p {
            return self.piece_ids(pieces);
        }
        match (*self, p.clone()) {
            (MachineSpec::Mesh { size }, Placement::Submesh { at, .. }) => {
                at.lies_in(size).then(|| {
                    let ys = at.base.y..at.base.y + at.shape.h;
                    Box::new(ys.flat_map(move |y| {
                        (at.base.x..at.base.x + at.shape.w).map(move |x| y * size.w + x)
                    })) as Box<dyn Iterator<Item = u32>>
                })
            }
            (MachineSpec::Grid { dims, wrap }, Placement::Block(b)) => block_ids(dims, wrap, b),
            (MachineSpec::Hypercube { dim }, Placement::Subcube(c)) => {
                let fits = c.order == dim && (c.addr | c.mask) >> dim == 0;
                fits.then(move || Box::new(c.addresses()) as Box<dyn Iterator<Item = u32>>)
            }
            _ => None,
        }
    }

    /// The node ids of every box of `pieces`, `None` when one does not lie on this mesh or grid.
    fn piece_ids(&self, pieces: &Pieces) -> Option<Box<dyn Iterator<Item = u32> + '_>> {
        let (dims, wrap) = match *self {
            MachineSpec::Mesh { size } => (Dims::new(&[size.w, size.h])?, false),
            MachineSpec::Grid { dims, wrap } => (dims, wrap),
            _ => return None,
        };
        let mut ids = Vec::with_capacity(pieces.nodes() as usize);
        for &b in pieces.boxes() {
            ids.extend(block_ids(dims, wrap, b)?);
        }
        Some(Box::new(ids.into_iter()))
    }

    /// The coordinates of node `id` of a k-dimensional grid (dimension 0 fastest).
    pub fn grid_coords(dims: Dims, id: u32) -> Vec<u32> {
        let mut rest = id;
        dims.iter()
            .map(|d| {
                let c = rest % d;
                rest /= d;
                c
            })
            .collect()
    }
}

/// The node ids of box `b` on a grid, `None` when it does not fit (extent beyond the grid, or a
/// box crossing the edge of a mesh).
fn block_ids(dims: Dims, wrap: bool, b: Block) -> Option<Box<dyn Iterator<Item = u32>>> {
    let k = dims.len();
    if b.extent.len() != k || u64::from(b.base) >= dims.volume() {
        return None;
    }
    let base = MachineSpec::grid_coords(dims, b.base);
    for (i, &c) in base.iter().enumerate().take(k) {
        let (d, e) = (dims.get(i), b.extent.get(i));
        if e > d || (!wrap && c + e > d) {
            return None;
        }
    }
    let total = b.extent.volume();
    Some(Box::new((0..total).map(move |mut off| {
        let (mut id, mut stride) = (0u64, 1u64);
        for (i, &c0) in base.iter().enumerate() {
            let e = u64::from(b.extent.get(i));
            let c = (u64::from(c0) + off % e) % u64::from(dims.get(i));
            off /= e;
            id += c * stride;
            stride *= u64::from(dims.get(i));
        }
        id as u32
    })))
}

impl fmt::Display for MachineSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MachineSpec::Flat { nodes } => write!(f, "flat:{nodes}"),
            MachineSpec::Mesh { size } => write!(f, "mesh:{size}"),
            MachineSpec::Grid { dims, wrap: false } => write!(f, "mesh:{dims}"),
            MachineSpec::Grid { dims, wrap: true } => write!(f, "torus:{dims}"),
            MachineSpec::Hypercube { dim } => write!(f, "hypercube:{dim}"),
        }
    }
}

impl FromStr for MachineSpec {
    type Err = MachineParseError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || MachineParseError(s.to_string());
        let (kind, arg) = s.split_once(':').ok_or_else(bad)?;
        let num = |t: &str| {
            t.trim()
                .parse::<u32>()
                .ok()
                .filter(|&v| v > 0)
                .ok_or_else(bad)
        };
        let list = |t: &str| -> Result<Vec<u32>, MachineParseError> {
            t.split(['x', 'X', '×']).map(num).collect()
        };
        let spec = match kind.trim() {
            "flat" => MachineSpec::Flat { nodes: num(arg)? },
            "mesh" => match list(arg)?.as_slice() {
                &[w, h] => MachineSpec::Mesh {
                    size: Shape::new(w, h),
                },
                v if v.len() >= 3 => MachineSpec::Grid {
                    dims: Dims::new(v).ok_or_else(bad)?,
                    wrap: false,
                },
                _ => return Err(bad()),
            },
            "torus" => MachineSpec::Grid {
                dims: Dims::new(&list(arg)?).ok_or_else(bad)?,
                wrap: true,
            },
            "hypercube" => {
                let d = num(arg)?;
                if d > 20 {
                    return Err(bad());
                }
                MachineSpec::Hypercube { dim: d as u8 }
            }
            _ => return Err(bad()),
        };
        let volume = match spec {
            MachineSpec::Mesh { size } => u64::from(size.w) * u64::from(size.h),
            MachineSpec::Grid { dims, .. } => dims.volume(),
            _ => 1,
        };
        if volume > u64::from(u32::MAX) {
            return Err(bad());
        }
        Ok(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_labels_round_trip() {
        for label in [
            "flat:128",
            "mesh:22x16",
            "mesh:4x4x4",
            "torus:2x2x2x6x8",
            "torus:16",
            "hypercube:7",
        ] {
            let m: MachineSpec = label.parse().expect(label);
            assert_eq!(m.to_string(), label);
        }
        let m: MachineSpec = "torus:2x2x2x6x8".parse().unwrap();
        assert_eq!(m.nodes(), 384);
        for bad in [
            "mesh:8",
            "mesh:0x4",
            "torus:",
            "torus:1x2x3x4x5x6x7",
            "torus:70000",
            "hypercube:21",
            "mesh:65536x65536",
            // Found by the labels fuzz target: six extents whose product overflows u64.
            "mesh:881x21881x269x21x21881x26216",
            "ring:4",
        ] {
            assert!(bad.parse::<MachineSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn submesh_ids_are_row_major() {
        let m = MachineSpec::Mesh {
            size: Shape::new(5, 4),
        };
        let p = Placement::Submesh {
            at: Submesh::from_paper(4, 1, 5, 2),
            rotated: false,
        };
        let ids: Vec<u32> = m.node_ids(&p).unwrap().collect();
        assert_eq!(ids, [3, 4, 8, 9]);
        let outside = Placement::Submesh {
            at: Submesh::from_paper(5, 1, 6, 1),
            rotated: false,
        };
        assert!(m.node_ids(&outside).is_none());
        assert!(m.node_ids(&Placement::Nodes(3)).is_none());
    }

    #[test]
    fn torus_box_wraps_and_mesh_box_does_not() {
        let dims = Dims::new(&[4, 3, 2]).unwrap();
        // base (3, 2, 0) = 3 + 2·4 = 11, extent 2×2×1 wraps in x and y on a torus.
        let b = Placement::Block(Block {
            base: 11,
            extent: Dims::new(&[2, 2, 1]).unwrap(),
        });
        let torus = MachineSpec::Grid { dims, wrap: true };
        let ids: Vec<u32> = torus.node_ids(&b).unwrap().collect();
        assert_eq!(ids, [11, 8, 3, 0]);
        let mesh = MachineSpec::Grid { dims, wrap: false };
        assert!(mesh.node_ids(&b).is_none());
        assert_eq!(MachineSpec::grid_coords(dims, 11), [3, 2, 0]);
    }

    #[test]
    fn subcube_pattern_and_nodes() {
        let c = Subcube::new(6, 0b100010, 0b001101);
        assert_eq!(c.to_string(), "10**1*");
        assert_eq!(c.dim(), 3);
        let ids: Vec<u32> = c.addresses().collect();
        assert_eq!(ids.len(), 8);
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(ids.iter().all(|&a| c.contains(a)));
        let cube = MachineSpec::Hypercube { dim: 5 };
        assert!(
            cube.node_ids(&Placement::Subcube(c)).is_none(),
            "order 6 on a 5-cube"
        );
        let whole = Subcube::new(3, 0, 0b111);
        assert_eq!(whole.addresses().count(), 8);
        assert_eq!(
            Subcube::new(3, 0b101, 0).addresses().collect::<Vec<_>>(),
            [5]
        );
    }

    #[test]
    fn request_and_placement_sizes() {
        assert_eq!(Request::Block(Dims::new(&[2, 3, 4]).unwrap()).nodes(), 24);
        assert_eq!(Request::Subcube(40).nodes(), u32::MAX);
        assert_eq!(
            Request::Submesh(Shape::new(u32::MAX, 2)).nodes(),
            u32::MAX,
            "saturates"
        );
        // A job record must stay small: the engine keeps one per job.
        assert!(size_of::<Placement>() <= 24, "{}", size_of::<Placement>());
    }
}
