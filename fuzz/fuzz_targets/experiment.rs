//! Arbitrary text as an experiment file: a plan (every label, option and queue order checked) or
//! an error naming a line of the text; never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pwa_replay::experiment::Plan;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for quick in [false, true] {
        if let Err(e) = Plan::new("fuzz.toml", text, quick) {
            assert!(e.line <= text.lines().count() + 1, "{e}");
        }
    }
});
