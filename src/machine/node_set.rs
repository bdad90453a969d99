//! A grid machine's free nodes, one flag per node id, with their count: the state the k-D
//! non-contiguous allocators (`paging_kd`, `mbs_kd`) share.

use crate::resource::{MachineSpec, Placement};

/// Free nodes of a machine by node id.
#[derive(Debug, Clone)]
pub(super) struct NodeSet {
    machine: MachineSpec,
    free: Vec<bool>,
    count: u32,
}

impl NodeSet {
    /// Every node of `machine` free.
    pub(super) fn new(machine: MachineSpec) -> Self {
        NodeSet {
            machine,
            free: vec![true; machine.nodes() as usize],
            count: machine.nodes(),
        }
    }

    /// Whether node `id` is free.
    pub(super) fn is_node_free(&self, id: u32) -> bool {
        self.free[id as usize]
    }

    /// Free nodes.
    pub(super) fn count(&self) -> u32 {
        self.count
    }

    /// Marks the nodes of `p` busy (or free); `changed` hears every node whose state changed.
    pub(super) fn mark(&mut self, p: &Placement, busy: bool, mut changed: impl FnMut(u32)) {
        let Some(ids) = self.machine.node_ids(p) else {
            return;
        };
        for id in ids {
            let cell = &mut self.free[id as usize];
            if *cell == busy {
                *cell = !busy;
                if busy {
                    self.count -= 1;
                } else {
                    self.count += 1;
                }
                changed(id);
            }
        }
    }

    /// Whether `p` lies on the machine, every node free, no node twice.
    pub(super) fn is_free(&self, p: &Placement) -> bool {
        let Some(ids) = self.machine.node_ids(p) else {
            return false;
        };
        let mut ids: Vec<u32> = ids.collect();
        if !ids.iter().all(|&id| self.free[id as usize]) {
            return false;
        }
        ids.sort_unstable();
        ids.windows(2).all(|w| w[0] != w[1])
    }
}
