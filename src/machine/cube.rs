//! What the hypercube allocators share (lazy-scheduling-hypercube.md §2.1): a node bitmap, subcube
//! arithmetic (containment, intersection, buddy-aligned pieces) and the machine check.
//!
//! A *buddy-aligned* `k`-subcube is one whose free (`*`) dimensions are the `k` lowest address bits:
//! the nodes `[m·2^k, (m+1)·2^k)` the buddy system hands out. Any subcube splits into aligned pieces
//! of dimension `t` = the number of trailing `*` of its pattern.

use super::{AllocKind, MachineSpec, Placement, Request, SpecError, Subcube, mismatch};

/// One bit per node (or per position), all clear at first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeBits {
    words: Vec<u64>,
}

impl NodeBits {
    /// `n` clear bits.
    pub(crate) fn new(n: u32) -> Self {
        NodeBits {
            words: vec![0; (n as usize).div_ceil(64).max(1)],
        }
    }
    /// Bit `i`.
    pub(crate) fn get(&self, i: u32) -> bool {
        self.words[(i >> 6) as usize] >> (i & 63) & 1 == 1
    }
    /// Sets bit `i` to `v`.
    pub(crate) fn put(&mut self, i: u32, v: bool) {
        let w = &mut self.words[(i >> 6) as usize];
        if v {
            *w |= 1 << (i & 63);
        } else {
            *w &= !(1 << (i & 63));
        }
    }
    /// Clears bit `i`; whether it was set.
    pub(crate) fn take(&mut self, i: u32) -> bool {
        let w = &mut self.words[(i >> 6) as usize];
        let bit = 1 << (i & 63);
        let was = *w & bit != 0;
        *w &= !bit;
        was
    }
    /// Sets the bits of `mask` in the first word (bits 0…63).
    pub(crate) fn or_first_word(&mut self, mask: u64) {
        self.words[0] |= mask;
    }
    /// Replaces the first word (bits 0…63).
    pub(crate) fn set_first_word(&mut self, word: u64) {
        self.words[0] = word;
    }
    /// Sets bits `[start, start + len)` to `v`.
    pub(crate) fn put_range(&mut self, start: u32, len: u32, v: bool) {
        let (mut i, end) = (start, start + len);
        while i < end {
            let (w, off) = ((i >> 6) as usize, i & 63);
            let n = (64 - off).min(end - i);
            let span = (u64::MAX >> (64 - n)) << off;
            if v {
                self.words[w] |= span;
            } else {
                self.words[w] &= !span;
            }
            i += n;
        }
    }
    /// Whether bits `[start, start + len)` are all clear.
    pub(crate) fn range_clear(&self, start: u32, len: u32) -> bool {
        let (mut i, end) = (start, start + len);
        while i < end {
            let (w, off) = ((i >> 6) as usize, i & 63);
            let n = (64 - off).min(end - i);
            let span = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
            if self.words[w] >> off & span != 0 {
                return false;
            }
            i += n;
        }
        true
    }
    /// Lowest set bit at or after `from`.
    pub(crate) fn first_set(&self, from: u32) -> Option<u32> {
        let mut w = (from >> 6) as usize;
        let mut word = *self.words.get(w)? & (u64::MAX << (from & 63));
        loop {
            if word != 0 {
                return Some((w as u32) << 6 | word.trailing_zeros());
            }
            w += 1;
            word = *self.words.get(w)?;
        }
    }
    /// The words (bit `i` of word `i / 64`).
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }
}

/// The busy nodes of a hypercube, with the free count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CubeNodes {
    pub(crate) order: u8,
    busy: NodeBits,
    free: u32,
}

impl CubeNodes {
    /// An `order`-cube, all nodes free.
    pub(crate) fn new(order: u8) -> Self {
        CubeNodes {
            order,
            busy: NodeBits::new(1 << order),
            free: 1 << order,
        }
    }
    /// Free nodes.
    pub(crate) fn free(&self) -> u32 {
        self.free
    }
    /// Whether every node of `c` is free.
    pub(crate) fn all_free(&self, c: Subcube) -> bool {
        match aligned_dim(c) {
            Some(k) => self.busy.range_clear(c.addr, 1 << k),
            None => c.addresses().all(|a| !self.busy.get(a)),
        }
    }
    /// Marks the nodes of `c` busy (`true`) or free.
    pub(crate) fn mark(&mut self, c: Subcube, busy: bool) {
        debug_assert!(
            c.addresses().all(|a| self.busy.get(a) != busy),
            "a node of {c} already in that state"
        );
        if c.mask == 0 {
            self.busy.put(c.addr, busy);
        } else if c.mask & c.mask.wrapping_add(1) == 0 {
            // Buddy-aligned: the nodes `addr … addr + mask` are consecutive.
            self.busy.put_range(c.addr, c.mask + 1, busy);
        } else {
            c.addresses().for_each(|a| self.busy.put(a, busy));
        }
        let n = 1u32 << c.dim();
        self.free = if busy { self.free - n } else { self.free + n };
    }
    /// The busy bitmap.
    pub(crate) fn busy_bits(&self) -> &NodeBits {
        &self.busy
    }
}

/// The dimension of a hypercube machine (at most 20, as machine labels allow), or the registry's
/// mismatch error for `kind`.
pub(crate) fn order_of(kind: AllocKind, machine: MachineSpec) -> Result<u8, SpecError> {
    match machine {
        MachineSpec::Hypercube { dim } if dim <= 20 => Ok(dim),
        other => Err(mismatch(kind, other)),
    }
}

/// The subcube dimension a request asks for on an `order`-cube, `None` when it is not a subcube
/// request or larger than the machine.
pub(crate) fn wanted(order: u8, req: &Request) -> Option<u8> {
    match *req {
        Request::Subcube(k) if k <= order => Some(k),
        _ => None,
    }
}

/// `p` as a subcube of an `order`-cube, `None` when it is another kind of placement or lies outside.
pub(crate) fn subcube_of(order: u8, p: &Placement) -> Option<Subcube> {
    match *p {
        Placement::Subcube(c) if c.order == order && (c.addr | c.mask) >> order == 0 => Some(c),
        _ => None,
    }
}

/// The buddy-aligned `k`-subcube at `base` (a multiple of `2^k`).
pub(crate) fn aligned(order: u8, k: u8, base: u32) -> Subcube {
    Subcube::new(order, base, low_bits(k))
}

/// The `k` lowest bits set.
pub(crate) fn low_bits(k: u8) -> u32 {
    if k >= 32 { u32::MAX } else { (1u32 << k) - 1 }
}

/// `Some(k)` when `c` is buddy-aligned of dimension `k`.
pub(crate) fn aligned_dim(c: Subcube) -> Option<u8> {
    (c.mask & c.mask.wrapping_add(1) == 0).then(|| c.dim())
}

/// The buddy-aligned pieces of `c`: aligned `t`-cubes, `t` its number of trailing `*`, in address
/// order.
pub(crate) fn aligned_pieces(c: Subcube) -> impl Iterator<Item = (u8, u32)> {
    let t = c.mask.trailing_ones() as u8;
    let rest = Subcube::new(c.order, c.addr, c.mask & !low_bits(t));
    rest.addresses().map(move |base| (t, base))
}

/// Whether `a` and `b` share a node.
pub(crate) fn intersects(a: Subcube, b: Subcube) -> bool {
    (a.addr ^ b.addr) & !a.mask & !b.mask == 0
}

/// `a` minus `b` (which it intersects) as disjoint subcubes: `a` is halved along each `*` of `a` that
/// `b` fixes, highest first; the half away from `b` is kept, the other halved further.
pub(crate) fn difference(a: Subcube, b: Subcube) -> Vec<Subcube> {
    let mut pieces = Vec::new();
    let mut rest = a;
    let mut split = a.mask & !b.mask;
    while split != 0 {
        let d = 31 - split.leading_zeros();
        split &= !(1 << d);
        let bit = 1u32 << d;
        let mask = rest.mask & !bit;
        pieces.push(Subcube::new(a.order, rest.addr | (!b.addr & bit), mask));
        rest = Subcube::new(a.order, rest.addr | (b.addr & bit), mask);
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(p: &str) -> Subcube {
        let order = p.len() as u8;
        let (mut addr, mut mask) = (0, 0);
        for (i, ch) in p.chars().rev().enumerate() {
            match ch {
                '1' => addr |= 1 << i,
                '*' => mask |= 1 << i,
                _ => {}
            }
        }
        Subcube::new(order, addr, mask)
    }

    #[test]
    fn difference_covers_exactly_the_nodes_left() {
        let (a, b) = (cube("****"), cube("1*0*"));
        let pieces = difference(a, b);
        let mut nodes: Vec<u32> = pieces.iter().flat_map(|p| p.addresses()).collect();
        nodes.sort_unstable();
        let want: Vec<u32> = (0..16).filter(|&x| !b.contains(x)).collect();
        assert_eq!(nodes, want);
        let shown: Vec<String> = pieces.iter().map(ToString::to_string).collect();
        assert_eq!(shown, ["0***", "1*1*"]);
    }

    #[test]
    fn aligned_pieces_and_ranges() {
        assert_eq!(aligned_dim(cube("10**")), Some(2));
        assert_eq!(aligned_dim(cube("*0*1")), None);
        let pieces: Vec<_> = aligned_pieces(cube("*1**")).collect();
        assert_eq!(pieces, [(2, 0b0100), (2, 0b1100)]);
        let mut bits = NodeBits::new(130);
        bits.put(70, true);
        assert!(bits.range_clear(0, 70) && !bits.range_clear(60, 11));
        assert_eq!(bits.first_set(0), Some(70));
        assert_eq!(bits.first_set(71), None);
        assert!(intersects(cube("1**0"), cube("*1*0")) && !intersects(cube("1**0"), cube("0***")));
    }
}
