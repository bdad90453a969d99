//! Arbitrary text as a trace catalog (`$PWA_CATALOG`): an error value or a catalog whose every
//! entry can be looked up by its name.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pwa_replay::catalog::Catalog;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(catalog) = Catalog::from_toml(text) {
        for name in catalog.names() {
            assert!(catalog.get(name).is_some(), "{name} listed but not found");
        }
        let _ = format!("{:?}", catalog.entries().collect::<Vec<_>>());
    }
});
