//! Semitorus allocation, non-equal partition (NEP) with the collapse conversion (see [`super::semitorus`]).

/// The registry's constructor.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::semitorus::build(
        super::AllocKind::Nep,
        super::Scheme::NonEqual,
        super::TorusConversion::Collapse,
        machine,
    )
}
