//! Arbitrary text as a queue order's priority expression (`--order-def NAME=EXPR`): an error
//! naming a column within the text, or an order under which EASY and strict priority replay a
//! small synthetic workload to a valid schedule (values of any size, NaN and infinities included).
#![no_main]

use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use pwa_replay::engine::{NoObserver, ReplayOptions, replay_with, validate};
use pwa_replay::machine::AllocKind;
use pwa_replay::sched::SchedKind;
use pwa_replay::sched::order::Expr;
use pwa_replay::workload::synth::SynthSpec;

const WORKLOAD: &str = "synth:uniform,mesh=4x4,jobs=24,rate=2,seed=5";

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let e = match text.parse::<Expr>() {
        Err(e) => {
            assert!(e.column >= 1 && e.column <= text.chars().count() + 1, "{e}");
            return;
        }
        Ok(e) => e,
    };
    let again = e.to_string().parse::<Expr>().map(|again| again.to_string());
    assert_eq!(again, Ok(e.to_string()), "round trip");
    let (spec, seed) = SynthSpec::from_label(WORKLOAD).expect("a synth label");
    let w = spec.generate(seed).expect("a workload");
    let m = spec.mesh_spec();
    let options = ReplayOptions {
        orders: BTreeMap::from([("fuzzed".to_string(), text.to_string())]),
        ..ReplayOptions::default()
    };
    for sched in ["easy:order=fuzzed", "fcfs:order=fuzzed"] {
        let s: SchedKind = sched.parse().expect("a label");
        let out = replay_with(&w, m, s, AllocKind::Flat, options.clone(), &mut NoObserver)
            .expect("a replay");
        validate(&w, m, &out).expect("a valid schedule");
    }
});
