//! Semitorus allocation, non-equal partition (NEP) with the pair conversion (see [`super::semitorus`]).

/// The registry's constructor.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::semitorus::build(
        super::AllocKind::NepPair,
        super::Scheme::NonEqual,
        super::TorusConversion::Pair,
        machine,
    )
}
