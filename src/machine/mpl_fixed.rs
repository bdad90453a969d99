//! MPL without turning (`mpl-fixed`): window-k-mesh.md §3.2 read literally, the request placed in its
//! requested orientation only. The rule itself, [`MplFixedRule`], lives beside the turning MPL in
//! `mpl.rs`, which applies it to the requested shape first.

use super::mesh::MeshAllocator;
use super::mpl::MplFixedRule;

/// Maximum-peripheral-length submesh allocation in the requested orientation only.
pub type MplFixed = MeshAllocator<MplFixedRule>;

/// The registry's constructor: MPL without turning on a 2D mesh.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::mesh::build::<MplFixedRule>(super::AllocKind::MplFixed, machine)
}
