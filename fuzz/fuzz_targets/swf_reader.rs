//! Arbitrary bytes through the SWF reader, strict and lenient, with gzip detected by content (the
//! path `SwfReader::open` takes): every outcome must be a record or an error value, never a panic,
//! and lenient reading must yield at least the records strict reading yielded before its error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pwa_replay::swf::{ReadOptions, SwfReader};

/// Records read before the first error (or all of them), and whether an error ended the input.
fn read(data: &[u8], opts: ReadOptions) -> (usize, bool) {
    let Ok(reader) = SwfReader::detect(std::io::Cursor::new(data.to_vec()), "fuzz.swf", opts)
    else {
        return (0, true);
    };
    let mut n = 0;
    for item in reader {
        match item {
            Ok(_) => n += 1,
            Err(e) => {
                // Every error names the input.
                assert!(e.to_string().starts_with("fuzz.swf"), "{e}");
                return (n, true);
            }
        }
    }
    (n, false)
}

fuzz_target!(|data: &[u8]| {
    let (strict, _) = read(data, ReadOptions::strict());
    let (lenient, _) = read(data, ReadOptions::lenient());
    assert!(
        lenient >= strict,
        "lenient read {lenient} < strict {strict}"
    );
});
