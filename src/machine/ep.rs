//! Semitorus allocation, equal partition (EP) with the collapse conversion (see [`super::semitorus`]).

/// The registry's constructor.
pub(super) fn build(machine: super::MachineSpec) -> Result<Box<dyn super::Allocator>, super::SpecError> {
    super::semitorus::build(
        super::AllocKind::Ep,
        super::Scheme::Equal,
        super::TorusConversion::Collapse,
        machine,
    )
}
