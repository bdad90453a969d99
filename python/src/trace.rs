//! Workloads by name for Python: the library's loader ([`pwa_replay::trace`]), which never
//! downloads here (a log missing from the search path is an error saying to fetch it with
//! `pwa-replay fetch NAME`), with errors as text naming the Python parameters.

use pwa_replay::catalog::Catalog;
use pwa_replay::machine::MachineSpec;
use pwa_replay::trace::{self as lib, Each, LoadError, NoMachine};
use pwa_replay::workload::rewrite::InputRewrite;

pub use pwa_replay::trace::{LoadedTrace as Loaded, chain};

/// An error message for Python (the library's error chain, joined by `: `).
pub type Message = String;

/// The catalog: `$PWA_CATALOG` when set, else the built-in one.
pub fn catalog() -> Result<Catalog, Message> {
    lib::catalog().map_err(|e| e.to_string())
}

/// Loads `trace` (catalog name, SWF path or `synth:` label) for `machine` (its own when `None`;
/// a file without one is read on a flat machine sized from its header when `flat_ok`), its records
/// read as `input` says (the replay's semantics).
pub fn load(
    trace: &str,
    machine: Option<MachineSpec>,
    (lenient, input): (bool, InputRewrite),
    flat_ok: bool,
) -> Result<Loaded, Message> {
    load_each(trace, machine, (lenient, input), flat_ok, None)
}

/// [`load`], each job streamed to `each` (and not kept) when given.
pub fn load_each(
    trace: &str,
    machine: Option<MachineSpec>,
    (lenient, input): (bool, InputRewrite),
    flat_ok: bool,
    each: Each<'_>,
) -> Result<Loaded, Message> {
    let no_machine = if flat_ok {
        NoMachine::FlatFromHeader
    } else {
        NoMachine::Refuse
    };
    lib::load(
        trace,
        machine,
        lenient,
        input,
        no_machine,
        &lib::no_fetch,
        each,
    )
    .map_err(|e| match e {
        LoadError::NeedsMachine { what } => format!(
            "{what}: say which machine (machine=\"mesh:22x16\", \"flat:128\", \"hypercube:7\"){}",
            if flat_ok {
                ""
            } else {
                "; with alloc=\"flat\", a flat machine sized from its header is used"
            }
        ),
        LoadError::Malformed(what) => {
            format!("{what} (lenient=True skips malformed lines and counts them)")
        }
        e => e.to_string(),
    })
}
