//! How local a job's nodes are: the locality measures of one placement on its machine, for every
//! topology and allocator (contiguous placements too).
//!
//! * **pieces**: connected components of the job's nodes, two nodes being connected when they are
//!   neighbours on the machine (differ by one in one coordinate, with wrap-around on a torus; differ
//!   in one address bit on a hypercube). A submesh, box or subcube is one piece; so is a count of
//!   flat nodes.
//! * **mean pairwise hops**: the mean, over the `n(n−1)/2` unordered pairs of the job's nodes, of the
//!   hop distance between them: the Manhattan distance on a mesh, with each coordinate difference
//!   `d` taken as `min(d, D − d)` on a torus of side `D`; the Hamming distance on a hypercube; 1 on a
//!   flat (fully connected) machine. 0 for a single node. The distance is a sum over dimensions, so
//!   the sum over pairs is one per dimension, computed **exactly** from a histogram of the nodes'
//!   coordinates in `O(n + D)` per dimension (prefix sums; on a torus a window of half the ring):
//!   no estimator is needed, whatever the job's size.
//! * **bounding box nodes**: the nodes of the smallest box holding the job: `Π` over dimensions of
//!   the covered extent (on a torus the shortest arc of the ring holding every coordinate); on a
//!   hypercube `2^k` with `k` the address bits that vary; on a flat machine the node count.
//!
//! The **contiguous reference** of a request ([`contiguous_hops`]) is the mean pairwise hops of the
//! request granted contiguously: its own `w × h` submesh or box (no wrap); for a node count (flat,
//! hypercube) the most compact placement of `n` nodes on a 2D mesh ([`compact_hops`]: the `a × b`
//! rectangle filled row by row, `a = ⌈n/b⌉`, of least mean pairwise hops over `b = 1 … ⌈√n⌉`). The
//! dilation model divides by it.

use crate::resource::{Block, Dims, MachineSpec, Placement, Request};

/// The locality measures of one job (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Locality {
    /// Connected components of the job's nodes.
    pub pieces: u32,
    /// Mean hop distance over the pairs of the job's nodes (0 for one node).
    pub mean_pairwise_hops: f64,
    /// Nodes of the smallest box (subcube) holding the job.
    pub bounding_box_nodes: u64,
}

/// The locality of placement `p` on `machine`; a placement that does not lie on it (or an empty
/// one) measures as one piece of its nodes, with no hops.
pub fn locality(machine: MachineSpec, p: &Placement) -> Locality {
    let n = p.nodes();
    let fallback = Locality {
        pieces: u32::from(n > 0),
        mean_pairwise_hops: 0.0,
        bounding_box_nodes: u64::from(n),
    };
    match (machine, p) {
        (MachineSpec::Flat { .. }, _) | (_, Placement::Nodes(_)) => Locality {
            mean_pairwise_hops: if n > 1 { 1.0 } else { 0.0 },
            ..fallback
        },
        (MachineSpec::Hypercube { .. }, Placement::Subcube(c)) => subcube_locality(c.dim()),
        (MachineSpec::Hypercube { dim }, _) => match machine.node_ids(p) {
            Some(ids) => cube_locality(dim, &ids.collect::<Vec<_>>()),
            None => fallback,
        },
        // The common case, without the general path's lists: a submesh is one box.
        (MachineSpec::Mesh { size }, Placement::Submesh { at, .. }) => {
            match Dims::new(&[at.shape.w, at.shape.h]).filter(|_| at.lies_in(size)) {
                Some(extent) => single_box(extent),
                None => fallback,
            }
        }
        (MachineSpec::Mesh { size }, _) => {
            let dims = Dims::new(&[size.w, size.h]).expect("positive mesh sides");
            grid(machine, dims, false, p).unwrap_or(fallback)
        }
        (MachineSpec::Grid { dims, wrap }, _) => grid(machine, dims, wrap, p).unwrap_or(fallback),
    }
}

/// The boxes of a grid placement (a submesh is a 2-D box), `None` for other placements.
fn boxes(dims: Dims, p: &Placement) -> Option<Vec<Block>> {
    match p {
        Placement::Submesh { at, .. } => Some(vec![Block {
            base: at.base.y * dims.get(0) + at.base.x,
            extent: Dims::new(&[at.shape.w, at.shape.h])?,
        }]),
        Placement::Block(b) => Some(vec![*b]),
        Placement::Pieces(ps) => Some(ps.boxes().to_vec()),
        _ => None,
    }
}

/// The grid measures, from per-dimension coordinate histograms of the boxes (disjoint, so their
/// histograms add up); nodes are listed only to count the pieces of a placement of several boxes.
fn grid(machine: MachineSpec, dims: Dims, wrap: bool, p: &Placement) -> Option<Locality> {
    let boxes = boxes(dims, p)?;
    // Only whether it lies on the machine: the nodes themselves are not needed.
    drop(machine.node_ids(p)?);
    let n: u64 = boxes.iter().map(|b| b.extent.volume()).sum();
    if n == 0 {
        return None;
    }
    if let [b] = boxes.as_slice() {
        let short = |i: usize| !wrap || 2 * (b.extent.get(i) - 1) <= dims.get(i);
        if (0..dims.len()).all(short) {
            return Some(single_box(b.extent));
        }
    }
    let pieces = if boxes.len() > 1 {
        let mut ids: Vec<u32> = machine.node_ids(p)?.collect();
        ids.sort_unstable();
        components(dims, wrap, &ids)
    } else {
        1
    };
    let corners: Vec<Vec<u32>> = boxes
        .iter()
        .map(|b| MachineSpec::grid_coords(dims, b.base))
        .collect();
    let mut hop_sum = 0u128;
    let mut bbox = 1u64;
    for i in 0..dims.len() {
        let side = dims.get(i) as usize;
        let mut hist = vec![0u64; side];
        for (b, corner) in boxes.iter().zip(&corners) {
            let e = b.extent.get(i) as usize;
            let per = b.extent.volume() / e as u64;
            for t in 0..e {
                hist[(corner[i] as usize + t) % side] += per;
            }
        }
        hop_sum += if wrap {
            ring_pair_sum(&hist)
        } else {
            line_pair_sum(&hist)
        };
        bbox *= if wrap {
            arc_extent(&hist)
        } else {
            line_extent(&hist)
        };
    }
    Some(Locality {
        pieces,
        mean_pairwise_hops: mean_over_pairs(hop_sum, n),
        bounding_box_nodes: bbox,
    })
}

/// The measures of one box whose ring distances are its line distances (no wrap, or every extent
/// `e` with `2(e − 1) ≤ D`), in closed form: per dimension `m²·e(e² − 1)/6` for `m = n/e` nodes on
/// each of `e` coordinates; one piece; the box is its own bounding box.
fn single_box(extent: Dims) -> Locality {
    let n = extent.volume();
    let sum: u128 = extent
        .iter()
        .map(|e| {
            // (e − 1)·e·(e + 1) is a multiple of 6, and below 2^48 (e ≤ 65535): divided exactly
            // in u64, before the u128 product.
            let (e, m) = (u64::from(e), u128::from(n / u64::from(e)));
            m * m * u128::from(e * (e * e - 1) / 6)
        })
        .sum();
    Locality {
        pieces: 1,
        mean_pairwise_hops: mean_over_pairs(sum, n),
        bounding_box_nodes: n,
    }
}

/// The mean of a hop sum over the unordered pairs of `n` nodes; 0 for fewer than two.
fn mean_over_pairs(hop_sum: u128, n: u64) -> f64 {
    let pairs = n * n.saturating_sub(1) / 2;
    if pairs == 0 {
        0.0
    } else {
        hop_sum as f64 / pairs as f64
    }
}

/// Σ over unordered pairs of `|a − b|`, `hist[c]` nodes at coordinate `c` of a line.
pub fn line_pair_sum(hist: &[u64]) -> u128 {
    let (mut left, mut left_sum, mut total) = (0u128, 0u128, 0u128);
    for (c, &k) in hist.iter().enumerate() {
        let (c, k) = (c as u128, u128::from(k));
        total += k * (c * left - left_sum);
        left += k;
        left_sum += k * c;
    }
    total
}

/// Σ over unordered pairs of the ring distance `min(d, D − d)`, `hist[c]` nodes at coordinate `c`
/// of a ring of `D = hist.len()` positions: each pair counted from the node that lies at most `D/2`
/// ahead of the other (both, when exactly `D/2`: subtracted once).
pub fn ring_pair_sum(hist: &[u64]) -> u128 {
    let d = hist.len();
    let half = d / 2;
    // Prefix counts and coordinate-weighted sums over the ring laid out twice.
    let mut count = vec![0u128; 2 * d + 1];
    let mut weight = vec![0u128; 2 * d + 1];
    for i in 0..2 * d {
        let k = u128::from(hist[i % d]);
        count[i + 1] = count[i] + k;
        weight[i + 1] = weight[i] + k * i as u128;
    }
    let mut total = 0u128;
    for b in d..2 * d {
        let k = u128::from(hist[b - d]);
        if k == 0 || half == 0 {
            continue;
        }
        let lo = b - half;
        let behind = count[b] - count[lo];
        let behind_weight = weight[b] - weight[lo];
        total += k * (b as u128 * behind - behind_weight);
    }
    if d.is_multiple_of(2) && half > 0 {
        let opposite: u128 = (0..half)
            .map(|c| u128::from(hist[c]) * u128::from(hist[c + half]))
            .sum();
        total -= opposite * half as u128;
    }
    total
}

/// Covered extent of a line: last occupied coordinate − first + 1.
fn line_extent(hist: &[u64]) -> u64 {
    let first = hist.iter().position(|&k| k > 0);
    let last = hist.iter().rposition(|&k| k > 0);
    match (first, last) {
        (Some(f), Some(l)) => (l - f + 1) as u64,
        _ => 0,
    }
}

/// Shortest arc of a ring holding every occupied coordinate: the ring minus its longest empty run.
fn arc_extent(hist: &[u64]) -> u64 {
    let d = hist.len();
    let Some(start) = hist.iter().position(|&k| k > 0) else {
        return 0;
    };
    let (mut longest, mut run) = (0usize, 0usize);
    for i in 1..=d {
        if hist[(start + i) % d] == 0 {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    (d - longest) as u64
}

/// Connected components of the nodes `ids` (sorted) of a grid: union-find over each node's
/// neighbour one step up in each dimension.
fn components(dims: Dims, wrap: bool, ids: &[u32]) -> u32 {
    let mut parent: Vec<usize> = (0..ids.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let mut sets = ids.len() as u32;
    for (i, &id) in ids.iter().enumerate() {
        let mut stride = 1u64;
        for k in 0..dims.len() {
            let side = u64::from(dims.get(k));
            let c = (u64::from(id) / stride) % side;
            let up = if c + 1 < side {
                Some(u64::from(id) + stride)
            } else if wrap && side > 2 {
                Some(u64::from(id) - c * stride)
            } else {
                None
            };
            stride *= side;
            let Some(j) = up.and_then(|u| ids.binary_search(&(u as u32)).ok()) else {
                continue;
            };
            let (a, b) = (root(&mut parent, i), root(&mut parent, j));
            if a != b {
                parent[a] = b;
                sets -= 1;
            }
        }
    }
    sets
}

fn cube_locality(dim: u8, ids: &[u32]) -> Locality {
    let n = ids.len() as u64;
    let (mut hop_sum, mut varying) = (0u128, 0u32);
    for bit in 0..dim {
        let ones = ids.iter().filter(|&&a| a >> bit & 1 == 1).count() as u64;
        hop_sum += u128::from(ones * (n - ones));
        varying += u32::from(ones > 0 && ones < n);
    }
    Locality {
        pieces: u32::from(n > 0),
        mean_pairwise_hops: mean_over_pairs(hop_sum, n),
        bounding_box_nodes: 1u64 << varying,
    }
}

/// [`cube_locality`] of a whole `k`-subcube without listing its nodes: each of its `k` free bits
/// splits the `n = 2^k` nodes in halves (`(n/2)²` pairs differ there), every other bit is constant.
fn subcube_locality(k: u8) -> Locality {
    let n = 1u64 << k;
    let hop_sum = u128::from(k) * u128::from(n / 2) * u128::from(n - n / 2);
    Locality {
        pieces: 1,
        mean_pairwise_hops: mean_over_pairs(hop_sum, n),
        bounding_box_nodes: n,
    }
}

/// The mean pairwise hops of a box of these extents (no wrap), 0 for a single node.
pub fn box_hops(extents: &[u32]) -> f64 {
    let n: u64 = extents.iter().map(|&e| u64::from(e)).product();
    if n < 2 {
        return 0.0;
    }
    let sum: u128 = extents
        .iter()
        .map(|&e| line_pair_sum(&vec![n / u64::from(e); e as usize]))
        .sum();
    sum as f64 / (n * (n - 1) / 2) as f64
}

/// The contiguous reference of `req` (module doc): its own box's mean pairwise hops, or for a node
/// count or subcube the most compact 2D placement's.
pub fn contiguous_hops(req: &Request) -> f64 {
    match *req {
        Request::Submesh(s) => box_hops(&[s.w, s.h]),
        Request::Block(d) => box_hops(&d.iter().collect::<Vec<_>>()),
        other => compact_hops(other.nodes()),
    }
}

/// The most compact placement of `n` nodes on a 2D mesh (module doc): the least mean pairwise hops of `n` nodes
/// filling an `a × b` mesh rectangle row by row, over `b = 1 … ⌈√n⌉`, `a = ⌈n / b⌉`.
pub fn compact_hops(n: u32) -> f64 {
    if n < 2 {
        return 0.0;
    }
    let top = (f64::from(n).sqrt().ceil() as u32).max(1);
    (1..=top)
        .map(|b| {
            let a = n.div_ceil(b);
            let mut xs = vec![0u64; a as usize];
            let mut ys = vec![0u64; b as usize];
            for i in 0..n {
                xs[(i % a) as usize] += 1;
                ys[(i / a) as usize] += 1;
            }
            mean_over_pairs(line_pair_sum(&xs) + line_pair_sum(&ys), u64::from(n))
        })
        .fold(f64::INFINITY, f64::min)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::{Pieces, Submesh};

    #[test]
    fn a_2x2_submesh() {
        let m: MachineSpec = "mesh:4x4".parse().unwrap();
        let p = Placement::Submesh {
            at: Submesh::from_paper(1, 1, 2, 2),
            rotated: false,
        };
        // Pairs: 4 at distance 1, 2 at distance 2: 8 / 6.
        let l = locality(m, &p);
        assert_eq!(l.pieces, 1);
        assert!((l.mean_pairwise_hops - 8.0 / 6.0).abs() < 1e-12);
        assert_eq!(l.bounding_box_nodes, 4);
    }

    #[test]
    fn a_submesh_measures_as_the_same_box_taken_by_the_general_path() {
        // Every base and shape up to 5 on mesh:4x3: a submesh inside measures as the one box of
        // its nodes (the general path, given as pieces); one overhanging the mesh, or empty, as
        // one piece of its nodes with no hops.
        let m: MachineSpec = "mesh:4x3".parse().unwrap();
        for (x, y, w, h) in
            (0..25u32).flat_map(|a| (0..25u32).map(move |b| (a / 5, a % 5, b / 5, b % 5)))
        {
            let at = Submesh {
                base: crate::resource::Coord { x, y },
                shape: crate::resource::Shape::new(w, h),
            };
            let fast = locality(m, &Placement::Submesh { at, rotated: false });
            let n = w * h;
            let expected = if x + w <= 4 && y + h <= 3 && n > 0 {
                let extent = Dims::new(&[w, h]).unwrap();
                locality(
                    m,
                    &Placement::Pieces(Pieces::new(vec![Block {
                        base: y * 4 + x,
                        extent,
                    }])),
                )
            } else {
                Locality {
                    pieces: u32::from(n > 0),
                    mean_pairwise_hops: 0.0,
                    bounding_box_nodes: n.into(),
                }
            };
            assert_eq!(fast, expected, "{x},{y} {w}x{h}");
        }
    }

    #[test]
    fn two_far_nodes_on_a_ring_wrap() {
        // torus:8, nodes 0 and 7: one hop across the wrap, one piece, box of 2.
        let m: MachineSpec = "torus:8".parse().unwrap();
        let one = |base| Block {
            base,
            extent: Dims::new(&[1]).unwrap(),
        };
        let p = Placement::Pieces(Pieces::new(vec![one(0), one(7)]));
        let l = locality(m, &p);
        assert_eq!(l.pieces, 1);
        assert_eq!(l.mean_pairwise_hops, 1.0);
        assert_eq!(l.bounding_box_nodes, 2);
        let q = Placement::Pieces(Pieces::new(vec![one(0), one(4)]));
        let l = locality(m, &q);
        assert_eq!(
            (l.pieces, l.mean_pairwise_hops, l.bounding_box_nodes),
            (2, 4.0, 5)
        );
    }

    #[test]
    fn subcube_and_flat() {
        let cube: MachineSpec = "hypercube:4".parse().unwrap();
        let c = Placement::Subcube(crate::resource::Subcube::new(4, 0, 0b0011));
        let l = locality(cube, &c);
        // 4 nodes of a 2-cube: 4 pairs at 1, 2 at 2.
        assert_eq!((l.pieces, l.bounding_box_nodes), (1, 4));
        assert!((l.mean_pairwise_hops - 8.0 / 6.0).abs() < 1e-12);
        // The closed form equals the count over the listed nodes, bit for bit, for every subcube
        // of a 6-cube (every mask, a few addresses).
        let six: MachineSpec = "hypercube:6".parse().unwrap();
        for mask in 0..64u32 {
            for addr in [0u32, 0b101010, 0b111111] {
                let sub = crate::resource::Subcube::new(6, addr & !mask, mask);
                let ids: Vec<u32> = sub.addresses().collect();
                assert_eq!(
                    locality(six, &Placement::Subcube(sub)),
                    cube_locality(6, &ids),
                    "mask {mask:b}"
                );
            }
        }
        let flat: MachineSpec = "flat:10".parse().unwrap();
        let l = locality(flat, &Placement::Nodes(3));
        assert_eq!(
            (l.pieces, l.mean_pairwise_hops, l.bounding_box_nodes),
            (1, 1.0, 3)
        );
    }

    #[test]
    fn contiguous_reference_is_the_request_s_own_box() {
        use crate::resource::Shape;
        assert!((contiguous_hops(&Request::Submesh(Shape::new(2, 3))) - 25.0 / 15.0).abs() < 1e-12);
        assert_eq!(contiguous_hops(&Request::Submesh(Shape::new(1, 2))), 1.0);
        assert_eq!(contiguous_hops(&Request::Submesh(Shape::new(1, 1))), 0.0);
        assert!((contiguous_hops(&Request::Nodes(4)) - 8.0 / 6.0).abs() < 1e-12);
    }

    #[test]
    fn compact_optimum_of_squares_is_the_square() {
        // 4 nodes: the 2x2 square, 8/6.
        assert!((compact_hops(4) - 8.0 / 6.0).abs() < 1e-12);
        assert_eq!(compact_hops(1), 0.0);
        assert_eq!(compact_hops(2), 1.0);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::resource::{Block, Pieces};
    use proptest::prelude::*;

    /// Brute force: every pair's hop distance, components by flood fill, the box by trying every
    /// arc start on a torus.
    fn brute(dims: &[u32], wrap: bool, ids: &[u32]) -> (u32, f64, u64) {
        let coords = |id: u32| {
            let mut rest = id;
            dims.iter()
                .map(|&d| {
                    let c = rest % d;
                    rest /= d;
                    c
                })
                .collect::<Vec<u32>>()
        };
        let dist = |a: &[u32], b: &[u32]| -> u32 {
            a.iter()
                .zip(b)
                .zip(dims)
                .map(|((&x, &y), &d)| {
                    let t = x.abs_diff(y);
                    if wrap { t.min(d - t) } else { t }
                })
                .sum()
        };
        let cs: Vec<Vec<u32>> = ids.iter().map(|&i| coords(i)).collect();
        let n = cs.len();
        let mut total = 0u64;
        for i in 0..n {
            for j in i + 1..n {
                total += u64::from(dist(&cs[i], &cs[j]));
            }
        }
        let pairs = (n * (n.saturating_sub(1)) / 2) as u64;
        let hops = if pairs == 0 {
            0.0
        } else {
            total as f64 / pairs as f64
        };
        let mut seen = vec![false; n];
        let mut pieces = 0;
        for s in 0..n {
            if seen[s] {
                continue;
            }
            pieces += 1;
            let mut stack = vec![s];
            seen[s] = true;
            while let Some(i) = stack.pop() {
                for j in 0..n {
                    if !seen[j] && dist(&cs[i], &cs[j]) == 1 {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        let mut bbox = 1u64;
        for (k, &d) in dims.iter().enumerate() {
            let present: Vec<bool> = (0..d).map(|c| cs.iter().any(|v| v[k] == c)).collect();
            let extent = if wrap {
                (0..d)
                    .map(|start| {
                        let last = (0..d).rev().find(|&t| present[((start + t) % d) as usize]);
                        if present[start as usize] {
                            last.map_or(0, |t| t + 1)
                        } else {
                            d
                        }
                    })
                    .min()
                    .unwrap_or(0)
            } else {
                let first = present.iter().position(|&p| p).unwrap_or(0) as u32;
                let last = present.iter().rposition(|&p| p).unwrap_or(0) as u32;
                last - first + 1
            };
            bbox *= u64::from(extent);
        }
        (pieces, hops, bbox)
    }

    proptest! {
        /// Random sets of single-node and small boxes on random meshes and tori agree with brute
        /// force.
        #[test]
        fn measures_match_brute_force(
            dims in proptest::collection::vec(1u32..7, 1..4),
            wrap in any::<bool>(),
            picks in proptest::collection::vec(any::<u32>(), 1..20),
        ) {
            let total: u32 = dims.iter().product();
            let d = Dims::new(&dims).unwrap();
            let mut ids: Vec<u32> = picks.iter().map(|p| p % total).collect();
            ids.sort_unstable();
            ids.dedup();
            let machine = MachineSpec::Grid { dims: d, wrap };
            let ones = Dims::new(&vec![1; dims.len()]).unwrap();
            let boxes: Vec<Block> = ids.iter().map(|&base| Block { base, extent: ones }).collect();
            let p = Placement::Pieces(Pieces::new(boxes));
            let l = locality(machine, &p);
            let (pieces, hops, bbox) = brute(&dims, wrap, &ids);
            prop_assert_eq!(l.pieces, pieces);
            prop_assert!((l.mean_pairwise_hops - hops).abs() < 1e-9, "{} vs {}", l.mean_pairwise_hops, hops);
            prop_assert_eq!(l.bounding_box_nodes, bbox);
        }

        /// A single box measures as its nodes listed one by one.
        #[test]
        fn a_box_measures_as_its_nodes(
            dims in proptest::collection::vec(1u32..7, 1..4),
            wrap in any::<bool>(),
            base in any::<u32>(),
            ext in proptest::collection::vec(1u32..7, 3),
        ) {
            let d = Dims::new(&dims).unwrap();
            let machine = MachineSpec::Grid { dims: d, wrap };
            let extent: Vec<u32> = dims.iter().zip(&ext).map(|(&s, &e)| e.min(s)).collect();
            let b = Block { base: base % dims.iter().product::<u32>(), extent: Dims::new(&extent).unwrap() };
            let p = Placement::Block(b);
            let Some(ids) = machine.node_ids(&p) else { return Ok(()) };
            let ids: Vec<u32> = ids.collect();
            let l = locality(machine, &p);
            let (pieces, hops, bbox) = brute(&dims, wrap, &ids);
            prop_assert_eq!(l.pieces, pieces);
            prop_assert!((l.mean_pairwise_hops - hops).abs() < 1e-9);
            prop_assert_eq!(l.bounding_box_nodes, bbox);
        }
    }
}
