//! Semitorus allocation, equal partition (EP) with the pair conversion (see [`super::semitorus`]).

/// The registry's constructor.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::semitorus::build(
        super::AllocKind::EpPair,
        super::Scheme::Equal,
        super::TorusConversion::Pair,
        machine,
    )
}
