//! Buddy allocation on a hypercube (lazy-scheduling-hypercube.md §2.1 and §3.2; Knowlton, Knuth), in
//! the O(n) free-list form of §3.2: lists `F_0 … F_n` of free buddy-aligned subcubes.
//!
//! * **Buddy_Request(I_k)**: take a subcube from `F_k`; otherwise from the first non-empty
//!   `F_{k+1}, …, F_n`, decomposed by the buddy rule (the lower half is kept for the job, each upper
//!   half goes to its list) until a `k`-cube is left. Within a list the lowest address is taken.
//! * **Buddy_Release(I_k)**: insert the subcube in `F_k`; while its buddy (the aligned cube differing in
//!   bit `k`) is in `F_k`, merge them into `F_{k+1}`.
//!
//! Only the `2^(n−k)` aligned `k`-cubes `[m·2^k, (m+1)·2^k)` are ever recognised: recognition is
//! incomplete by design. Each list is a bitmap over its aligned slots (lowest free address by a word
//! scan), so request and release cost O(n) bit operations plus the scan.
//!
//! [`Allocator::occupy`] accepts any free subcube, aligned or not (a planner's snapshot, a static
//! partition): the free cubes it overlaps are split by the buddy rule around it. The lists then always
//! hold the *maximal* free aligned cubes (no two free buddies are ever both listed), so a free aligned
//! cube always lies inside one listed cube: that is how [`Allocator::is_free`] answers, with no node
//! bitmap to keep. A request on the empty 10-cube (ten halvings, then ten merges on release) costs
//! about 700 instructions.

use super::cube::{self, NodeBits};
use super::{AllocKind, Allocator, MachineSpec, Placement, Request, SpecError, Subcube};

/// The buddy system on an `n`-cube.
#[derive(Debug, Clone)]
pub struct Buddy {
    order: u8,
    /// Free nodes (the lists' cubes' nodes).
    free: u32,
    /// All lists in one bitmap: bit `slot(k, base)` set when the aligned `k`-cube at `base` is free
    /// and listed in `F_k` (level `k` holds `2^(n−k)` slots, in heap order).
    lists: NodeBits,
    /// Number of cubes in each list (`order ≤ 20`; 32 entries so that `k & 31` needs no check).
    counts: [u32; 32],
    /// Bit `k` set when `F_k` is not empty.
    nonempty: u32,
}

/// The registry's constructor: a hypercube only.
pub(super) fn build(machine: MachineSpec) -> Result<Box<dyn Allocator>, SpecError> {
    Ok(Box::new(Buddy::new(cube::order_of(
        AllocKind::Buddy,
        machine,
    )?)))
}

impl Buddy {
    /// An `order`-cube (`order ≤ 20`, as machine labels allow), all free (`F_n` holds the whole cube).
    pub fn new(order: u8) -> Self {
        let order = order.min(20);
        let mut b = Buddy {
            order,
            free: 1 << order,
            lists: NodeBits::new(2 << order),
            counts: [0; 32],
            nonempty: 0,
        };
        b.put_in(order, 1);
        b.nonempty = 1 << order;
        b
    }

    /// The free cubes of list `F_k`, lowest address first (as patterns' bases).
    pub fn free_list(&self, k: u8) -> Vec<Subcube> {
        std::iter::successors(self.first_listed(k, 0), |&b| {
            self.first_listed(k, b + (1 << k))
        })
        .map(|base| cube::aligned(self.order, k, base))
        .collect()
    }

    /// Bit index of the aligned `k`-cube at `base`, in heap order: the whole cube is slot 1, the two
    /// halves of slot `s` are `2s` and `2s + 1`, so level `k` holds slots `2^(n−k) … 2^(n−k+1) − 1`.
    fn slot(&self, k: u8, base: u32) -> u32 {
        (1 << (self.order - k)) | (base >> k)
    }

    /// The lowest listed `k`-cube at or after address `from`.
    fn first_listed(&self, k: u8, from: u32) -> Option<u32> {
        let start = 1 << (self.order - k);
        let bit = self.lists.first_set(start + (from >> k))?;
        (bit < 2 * start).then(|| (bit - start) << k)
    }

    /// Buddy_Request's choice for `req`: the wanted dimension `k`, the first non-empty list `F_j`
    /// with `j ≥ k`, and the base of its lowest cube (which the job's `k`-cube shares).
    fn request(&self, req: &Request) -> Option<(u8, u8, u32)> {
        let k = cube::wanted(self.order, req)?;
        let above = self.nonempty >> k;
        if above == 0 {
            return None;
        }
        let j = k + above.trailing_zeros() as u8;
        Some((k, j, self.first_listed(j, 0)?))
    }

    /// Puts the `k`-cube of slot `s` in `F_k` (the caller marks `F_k` non-empty).
    fn put_in(&mut self, k: u8, s: u32) {
        self.lists.put(s, true);
        self.counts[usize::from(k & 31)] += 1;
    }

    /// Takes the `k`-cube of slot `s` out of `F_k`, and `F_k` out of the non-empty lists if it was
    /// the last.
    fn take_out(&mut self, k: u8, s: u32) {
        self.lists.put(s, false);
        let count = &mut self.counts[usize::from(k & 31)];
        *count -= 1;
        self.nonempty &= !(u32::from(*count == 0) << k);
    }

    /// The listed cube holding the aligned `k`-cube at `base` (its level and slot), if that cube is
    /// free: the lists hold every maximal free aligned cube, and only non-empty lists from `k` up
    /// can hold it.
    fn holder(&self, k: u8, base: u32) -> Option<(u8, u32)> {
        let mut levels = self.nonempty >> k << k;
        while levels != 0 {
            let j = levels.trailing_zeros() as u8;
            let s = self.slot(j, base);
            if self.lists.get(s) {
                return Some((j, s));
            }
            levels &= levels - 1;
        }
        None
    }

    /// Takes the aligned free `k`-cube at `base` out of the lists: the listed cube containing it is
    /// removed and decomposed, every upper half not holding it going to its list.
    fn take_aligned(&mut self, k: u8, base: u32) {
        match self.holder(k, base) {
            Some((j, s)) => self.split(j, s, k, base),
            None => debug_assert!(false, "no free cube holds the {k}-cube at {base}"),
        }
    }

    /// Decomposes the listed `j`-cube of slot `s` down to the `k`-cube at `base` inside it: the cube
    /// leaves `F_j`, and at each level the half not holding `base` joins its list.
    fn split(&mut self, j: u8, mut s: u32, k: u8, base: u32) {
        self.take_out(j, s);
        for l in (k..j).rev() {
            s = 2 * s + (base >> l & 1);
            self.put_in(l, s ^ 1);
        }
        self.nonempty |= cube::low_bits(j) & !cube::low_bits(k);
    }

    /// Buddy_Request's decomposition of the listed `j`-cube of slot `s` down to its lowest `k`-cube:
    /// [`Buddy::split`] where the lower half is always kept, so every upper half `2s + 1` is listed.
    /// The slots below 64 (the top six levels) share the first word: their bits are gathered and
    /// stored once.
    fn split_low(&mut self, j: u8, mut s: u32, k: u8) {
        self.take_out(j, s);
        let mut top = 0u64;
        for l in (k..j).rev() {
            s *= 2;
            if s < 64 {
                top |= 2 << s;
            } else {
                self.lists.put(s + 1, true);
            }
            self.counts[usize::from(l & 31)] += 1;
        }
        self.lists.or_first_word(top);
        self.nonempty |= cube::low_bits(j) & !cube::low_bits(k);
    }

    /// Buddy_Release of the aligned `k`-cube at `base`: listed, merged with its buddy while it can.
    /// Once the slot is below 64 the first word is tested and cleared in a register and stored once.
    fn release_aligned(&mut self, k: u8, base: u32) {
        let mut s = self.slot(k, base);
        let mut level = u32::from(k) & 31;
        // The lists a merge empties, cleared from `nonempty` once at the end.
        let mut emptied = 0;
        let mut merged = |level: u32| {
            let count = &mut self.counts[level as usize];
            *count -= 1;
            emptied |= u32::from(*count == 0) << level;
        };
        while s >= 64 && self.lists.take(s ^ 1) {
            merged(level);
            s >>= 1;
            level = (level + 1) & 31;
        }
        if s < 64 {
            let mut top = self.lists.words()[0];
            while s > 1 && top >> (s ^ 1) & 1 == 1 {
                top &= !(1 << (s ^ 1));
                merged(level);
                s >>= 1;
                level = (level + 1) & 31;
            }
            self.lists.set_first_word(top);
        }
        self.lists.put(s, true);
        self.counts[level as usize] += 1;
        self.nonempty = self.nonempty & !emptied | 1 << level;
    }
}

impl Allocator for Buddy {
    fn machine(&self) -> MachineSpec {
        MachineSpec::Hypercube {
            dim: self.order,
        }
    }
    /// Buddy_Request: the lowest cube of the first non-empty `F_j`, `j ≥ k`, its lowest `k`-cube.
    fn find(&mut self, req: &Request) -> Option<Placement> {
        let (k, _, base) = self.request(req)?;
        Some(Placement::Subcube(cube::aligned(self.order, k, base)))
    }
    /// Buddy_Request with the decomposition: the cube [`Allocator::find`] names, split straight from
    /// the list it was found in.
    fn allocate(&mut self, req: &Request) -> Option<Placement> {
        let (k, j, base) = self.request(req)?;
        self.split_low(j, self.slot(j, base), k);
        self.free -= 1 << k;
        Some(Placement::Subcube(cube::aligned(self.order, k, base)))
    }
    fn occupy(&mut self, p: &Placement) {
        let Some(c) = cube::subcube_of(self.order, p) else {
            debug_assert!(false, "not a subcube of this machine: {p:?}");
            return;
        };
        debug_assert!(self.is_free(p), "{c} is not free");
        self.free -= 1 << c.dim();
        match cube::aligned_dim(c) {
            Some(k) => self.take_aligned(k, c.addr),
            None => cube::aligned_pieces(c).for_each(|(t, base)| self.take_aligned(t, base)),
        }
    }
    fn vacate(&mut self, p: &Placement) {
        let Some(c) = cube::subcube_of(self.order, p) else {
            debug_assert!(false, "not a subcube of this machine: {p:?}");
            return;
        };
        self.free += 1 << c.dim();
        match cube::aligned_dim(c) {
            Some(k) => self.release_aligned(k, c.addr),
            None => cube::aligned_pieces(c).for_each(|(t, base)| self.release_aligned(t, base)),
        }
    }
    fn is_free(&self, p: &Placement) -> bool {
        cube::subcube_of(self.order, p).is_some_and(|c| {
            match cube::aligned_dim(c) {
                Some(k) => self.holder(k, c.addr).is_some(),
                None => cube::aligned_pieces(c).all(|(t, base)| self.holder(t, base).is_some()),
            }
        })
    }
    fn free_nodes(&self) -> u32 {
        self.free
    }
    fn fits_empty(&self, req: &Request) -> bool {
        cube::wanted(self.order, req).is_some()
    }
    fn snapshot(&self) -> Box<dyn Allocator> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(p: &Option<Placement>) -> String {
        p.as_ref().map_or_else(|| "none".to_string(), |p| p.to_string())
    }

    fn lists(b: &Buddy) -> Vec<Vec<String>> {
        (0..=4)
            .map(|k| b.free_list(k).iter().map(ToString::to_string).collect())
            .collect()
    }

    /// A hand-worked 4-cube (§3.2, Buddy_Request / Buddy_Release): requests for a 1-cube, a 2-cube
    /// and a 0-cube, then releases in another order.
    #[test]
    fn buddy_request_and_release_on_a_4_cube() {
        let mut b = Buddy::new(4);
        let req = |k| Request::Subcube(k);
        // F_4 = {****} decomposes: 1*** → F_3, 01** → F_2, 001* → F_1; the job gets 000*.
        let a = b.allocate(&req(1));
        assert_eq!(shown(&a), "000*");
        assert_eq!(lists(&b), [vec![], vec!["001*"], vec!["01**"], vec!["1***"], vec![]]);
        // F_2 is not empty: 01** straight from the list.
        let c = b.allocate(&req(2));
        assert_eq!(shown(&c), "01**");
        // F_0 empty, F_1 = {001*}: split into 0010 (job) and 0011 (F_0).
        let d = b.allocate(&req(0));
        assert_eq!(shown(&d), "0010");
        assert_eq!(lists(&b), [vec!["0011"], vec![], vec![], vec!["1***"], vec![]]);
        assert_eq!(b.free_nodes(), 9);
        // Release 000*: its buddy 001* is not free (0010 busy), so it stays in F_1.
        b.vacate(a.as_ref().unwrap());
        assert_eq!(lists(&b), [vec!["0011"], vec!["000*"], vec![], vec!["1***"], vec![]]);
        // Release 0010: merges with 0011 → 001*, with 000* → 00**; 01** busy stops it.
        b.vacate(d.as_ref().unwrap());
        assert_eq!(lists(&b), [vec![], vec![], vec!["00**"], vec!["1***"], vec![]]);
        b.vacate(c.as_ref().unwrap());
        assert_eq!(lists(&b), [vec![], vec![], vec![], vec![], vec!["****"]]);
        assert_eq!(b.free_nodes(), 16);
    }

    #[test]
    fn incomplete_recognition_is_by_design() {
        // The odd nodes of a 3-cube busy: the even ones form the 2-cube **0, whose every 1-cube
        // (*00, 0*0, …) straddles two buddy pairs.
        let mut b = Buddy::new(3);
        for p in ["001", "011", "101", "111"] {
            let addr = u32::from_str_radix(p, 2).unwrap();
            b.occupy(&Placement::Subcube(Subcube::new(3, addr, 0)));
        }
        assert!(b.is_free(&Placement::Subcube(Subcube::new(3, 0, 0b110))));
        assert_eq!(b.find(&Request::Subcube(1)), None);
        assert_eq!(shown(&b.find(&Request::Subcube(0))), "000");
    }

    #[test]
    fn occupies_any_free_subcube() {
        let mut b = Buddy::new(4);
        let odd = Placement::Subcube(Subcube::new(4, 0b0001, 0b1010)); // *0*1
        assert!(b.is_free(&odd));
        b.occupy(&odd);
        assert_eq!(b.free_nodes(), 12);
        assert!(!b.is_free(&odd));
        assert_eq!(shown(&b.find(&Request::Subcube(1))), "010*", "the first free aligned 1-cube");
        assert_eq!(shown(&b.find(&Request::Subcube(2))), "01**");
        assert_eq!(shown(&b.find(&Request::Subcube(3))), "none");
        b.vacate(&odd);
        assert_eq!(lists(&b)[4], ["****"]);
    }

    #[test]
    fn only_hypercubes_and_subcube_requests() {
        assert!(build(MachineSpec::Flat { nodes: 8 }).is_err());
        let b = build(MachineSpec::Hypercube { dim: 3 }).unwrap();
        assert!(b.fits_empty(&Request::Subcube(3)) && !b.fits_empty(&Request::Subcube(4)));
        assert!(!b.fits_empty(&Request::Nodes(2)));
    }
}
