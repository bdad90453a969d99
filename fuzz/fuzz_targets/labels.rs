//! Arbitrary text through every label parser of the command line: schedulers, allocators,
//! machines, shape rules, estimates, `synth:` workloads (Lublin's too) and load grids. Labels that parse must
//! print back to a label that parses to the same value; small machines build every allocator
//! that accepts them; small synthetic workloads generate.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::SchedKind;
use pwa_replay::sweep::LoadSpec;
use pwa_replay::workload::lublin::LublinSpec;
use pwa_replay::workload::synth::SynthSpec;
use pwa_replay::workload::synth_hypercube::{Horizon, HypercubeSpec};
use pwa_replay::workload::{EstimateModel, ShapeRule};

/// Largest machine whose allocators are built, and largest synthetic workload generated.
const SMALL: u64 = 4096;

fn machine(s: &str) {
    let Ok(m) = s.parse::<MachineSpec>() else {
        return;
    };
    let again: MachineSpec = m.to_string().parse().expect("machine label round trip");
    assert_eq!(again, m);
    if u64::from(m.nodes()) <= SMALL {
        for kind in AllocKind::ALL {
            let _ = kind.build(m);
        }
    }
}

fn sched(s: &str) {
    if let Ok(k) = s.parse::<SchedKind>() {
        let again: SchedKind = k.to_string().parse().expect("scheduler label round trip");
        assert_eq!(again.to_string(), k.to_string());
    }
}

fn synth(s: &str) {
    if let Ok((spec, seed)) = SynthSpec::from_label(s)
        && (spec.jobs as u64) <= SMALL
    {
        let _ = spec.generate(seed);
    }
    if let Ok((spec, seed)) = LublinSpec::from_label(s)
        && (spec.jobs as u64) <= SMALL
    {
        let w = spec.generate(seed).expect("a label that parses generates");
        assert!(w.jobs.iter().all(|j| j.request.nodes() <= spec.nodes));
    }
    if let Ok((spec, seed)) = HypercubeSpec::from_label(s) {
        let again =
            HypercubeSpec::from_label(&spec.label(seed)).expect("hypercube label round trip");
        assert_eq!(again.1, seed);
        if matches!(spec.horizon, Horizon::Jobs(n) if n as u64 <= SMALL) {
            let _ = spec.generate(seed);
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    machine(s);
    sched(s);
    synth(s);
    if let Ok(k) = s.parse::<AllocKind>() {
        assert_eq!(k.label().parse::<AllocKind>().ok(), Some(k));
    }
    if let Ok(r) = s.parse::<ShapeRule>() {
        assert_eq!(r.label().parse::<ShapeRule>().ok(), Some(r));
    }
    if let Ok(e) = s.parse::<EstimateModel>() {
        assert_eq!(e.to_string().parse::<EstimateModel>().ok(), Some(e));
    }
    if let Ok(l) = s.parse::<LoadSpec>() {
        assert_eq!(l.to_string().parse::<LoadSpec>().ok(), Some(l));
    }
});
