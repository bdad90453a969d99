//! Hypercube allocators (buddy, freelist, graycode) against a brute-force model of the cube: no two
//! grants share a node, grants are subcubes of the asked dimension, release restores the free set,
//! snapshots answer as the original, and the free list finds a `k`-cube whenever one exists.

use proptest::prelude::*;
use pwa_replay::machine::{AllocKind, MachineSpec, Placement, Subcube};
use pwa_replay::workload::Request;

use crate::support::keep_regressions;

const KINDS: [AllocKind; 3] = [AllocKind::Buddy, AllocKind::FreeList, AllocKind::GrayCode];

/// One step: allocate a `k`-cube, or release the `i`-th (mod count) held placement.
#[derive(Debug, Clone)]
enum Op {
    Alloc(u8),
    Release(usize),
}

fn ops(order: u8) -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        prop_oneof![
            3 => (0..=order).prop_map(Op::Alloc),
            2 => any::<usize>().prop_map(Op::Release),
        ],
        1..60,
    )
}

/// Every free `k`-subcube of an `order`-cube with these busy nodes (brute force over all patterns).
fn any_free_cube(order: u8, busy: &[bool], k: u8) -> bool {
    let n = 1u32 << order;
    (0..n)
        .filter(|m| m.count_ones() == u32::from(k))
        .any(|mask| {
            (0..n).filter(|a| a & mask == 0).any(|a| {
                Subcube::new(order, a, mask)
                    .addresses()
                    .all(|x| !busy[x as usize])
            })
        })
}

fn run(kind: AllocKind, order: u8, ops: &[Op]) -> Result<Vec<Placement>, TestCaseError> {
    let machine = MachineSpec::Hypercube { dim: order };
    let mut alloc = kind.build(machine).unwrap();
    let mut busy = vec![false; 1 << order];
    let mut held: Vec<Placement> = Vec::new();
    let mut granted = Vec::new();
    for op in ops {
        match *op {
            Op::Alloc(k) => {
                let exists = any_free_cube(order, &busy, k);
                let snap_answer = alloc.snapshot().find(&Request::Subcube(k));
                let got = alloc.allocate(&Request::Subcube(k));
                prop_assert_eq!(
                    &snap_answer,
                    &got,
                    "{}: a snapshot answers as the original",
                    kind
                );
                if kind == AllocKind::FreeList {
                    prop_assert_eq!(
                        got.is_some(),
                        exists,
                        "freelist recognises every free {}-cube",
                        k
                    );
                }
                if let Some(p) = got {
                    prop_assert!(exists, "{} granted a cube that is not free", kind);
                    let Placement::Subcube(c) = p.clone() else {
                        return Err(TestCaseError::fail("not a subcube"));
                    };
                    prop_assert_eq!(c.dim(), k);
                    let ids: Vec<u32> = machine.node_ids(&p).unwrap().collect();
                    for id in ids {
                        prop_assert!(!busy[id as usize], "{} overlaps at node {}", kind, id);
                        busy[id as usize] = true;
                    }
                    held.push(p.clone());
                    granted.push(p);
                }
            }
            Op::Release(i) if !held.is_empty() => {
                let p = held.swap_remove(i % held.len());
                alloc.vacate(&p);
                for id in machine.node_ids(&p).unwrap() {
                    busy[id as usize] = false;
                }
            }
            Op::Release(_) => {}
        }
        let free = busy.iter().filter(|b| !**b).count() as u32;
        prop_assert_eq!(alloc.free_nodes(), free);
    }
    for p in held.drain(..) {
        alloc.vacate(&p);
    }
    let whole = Placement::Subcube(Subcube::new(order, 0, (1 << order) - 1));
    prop_assert!(
        alloc.is_free(&whole),
        "{}: releasing everything frees the cube",
        kind
    );
    prop_assert_eq!(
        alloc.find(&Request::Subcube(order)),
        Some(whole),
        "{}: and it is recognised again",
        kind
    );
    Ok(granted)
}

/// The textbook buddy system (§3.2), one ordered set of free bases per dimension.
struct BuddyModel {
    lists: Vec<std::collections::BTreeSet<u32>>,
}

impl BuddyModel {
    fn new(order: u8) -> Self {
        let mut lists = vec![std::collections::BTreeSet::new(); usize::from(order) + 1];
        lists[usize::from(order)].insert(0);
        BuddyModel { lists }
    }
    /// Buddy_Request: the lowest cube of the first non-empty `F_j`, `j ≥ k`, halved down to `k`
    /// keeping the lower half, each upper half listed.
    fn request(&mut self, k: u8) -> Option<u32> {
        let j = (usize::from(k)..self.lists.len()).find(|&j| !self.lists[j].is_empty())?;
        let base = self.lists[j].pop_first()?;
        for l in (usize::from(k)..j).rev() {
            self.lists[l].insert(base + (1 << l));
        }
        Some(base)
    }
    /// Buddy_Release: listed, merged with its buddy while the buddy is listed.
    fn release(&mut self, k: u8, mut base: u32) {
        let mut l = usize::from(k);
        while l + 1 < self.lists.len() && self.lists[l].remove(&(base ^ (1 << l))) {
            base &= !(1 << l);
            l += 1;
        }
        self.lists[l].insert(base);
    }
}

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(128)))]

    #[test]
    fn hypercube_allocators_keep_their_contract(order in 1u8..=6, ops in (1u8..=6).prop_flat_map(ops)) {
        let ops: Vec<Op> = ops
            .into_iter()
            .map(|op| match op { Op::Alloc(k) => Op::Alloc(k.min(order)), r => r })
            .collect();
        for kind in KINDS {
            let first = run(kind, order, &ops)?;
            prop_assert_eq!(first, run(kind, order, &ops)?, "{} is deterministic", kind);
        }
    }

    /// Buddy grants exactly the cube the textbook buddy system grants, step by step.
    #[test]
    fn buddy_grants_what_the_textbook_buddy_system_grants(order in 1u8..=10, ops in (1u8..=10).prop_flat_map(ops)) {
        let machine = MachineSpec::Hypercube { dim: order };
        let mut alloc = AllocKind::Buddy.build(machine).unwrap();
        let mut model = BuddyModel::new(order);
        let mut held: Vec<Subcube> = Vec::new();
        for op in ops {
            match op {
                Op::Alloc(k) => {
                    let k = k.min(order);
                    let want = model.request(k).map(|b| Subcube::new(order, b, (1 << k) - 1));
                    let got = alloc.allocate(&Request::Subcube(k));
                    prop_assert_eq!(got, want.map(Placement::Subcube));
                    held.extend(want);
                }
                Op::Release(i) if !held.is_empty() => {
                    let c = held.swap_remove(i % held.len());
                    alloc.vacate(&Placement::Subcube(c));
                    model.release(c.dim(), c.addr);
                }
                Op::Release(_) => {}
            }
        }
    }

    /// Occupying arbitrary free subcubes (not found by the allocator) keeps every allocator
    /// consistent: afterwards each grant is free in the model.
    #[test]
    fn occupy_accepts_any_free_subcube(order in 2u8..=5, picks in prop::collection::vec((any::<u32>(), any::<u32>()), 1..12)) {
        let machine = MachineSpec::Hypercube { dim: order };
        for kind in KINDS {
            let mut alloc = kind.build(machine).unwrap();
            let mut busy = vec![false; 1 << order];
            for &(addr, mask) in &picks {
                let c = Subcube::new(order, addr & ((1 << order) - 1), mask & ((1 << order) - 1));
                let p = Placement::Subcube(c);
                let free = c.addresses().all(|a| !busy[a as usize]);
                prop_assert_eq!(alloc.is_free(&p), free);
                if free {
                    alloc.occupy(&p);
                    c.addresses().for_each(|a| busy[a as usize] = true);
                }
            }
            for k in 0..=order {
                if let Some(Placement::Subcube(c)) = alloc.snapshot().find(&Request::Subcube(k)) {
                    prop_assert!(c.addresses().all(|a| !busy[a as usize]), "{} found a busy node", kind);
                } else if kind == AllocKind::FreeList {
                    prop_assert!(!any_free_cube(order, &busy, k));
                }
            }
        }
    }
}

#[test]
fn hypercube_allocators_refuse_other_machines() {
    for kind in KINDS {
        let err = kind.build(MachineSpec::Flat { nodes: 16 }).err().unwrap();
        assert!(
            err.to_string()
                .contains("does not work on machine `flat:16`"),
            "{err}"
        );
        let a = kind.build(MachineSpec::Hypercube { dim: 4 }).unwrap();
        assert!(
            !a.fits_empty(&Request::Nodes(4)),
            "{kind} only places subcube requests"
        );
    }
}
