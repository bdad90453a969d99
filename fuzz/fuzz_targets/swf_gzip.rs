//! The fuzz input, gzip-compressed (and, with the first byte odd, split into two gzip members),
//! must read exactly as the plain input does: the decompressing path adds no behaviour of its own.
#![no_main]

use std::io::Write;

use flate2::Compression;
use flate2::write::GzEncoder;
use libfuzzer_sys::fuzz_target;
use pwa_replay::swf::{ReadOptions, SwfReader};

fn gzip(parts: &[&[u8]]) -> Vec<u8> {
    let mut out = Vec::new();
    for part in parts {
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(part).expect("in-memory write");
        out.extend(enc.finish().expect("in-memory write"));
    }
    out
}

/// The records (as debug text, so NaN-free comparison is exact) and the error kind, if any.
fn read(bytes: Vec<u8>) -> (Vec<String>, Option<String>) {
    let reader = match SwfReader::detect(std::io::Cursor::new(bytes), "f", ReadOptions::lenient()) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(kind(&e.to_string()))),
    };
    let mut out = Vec::new();
    for item in reader {
        match item {
            Ok(r) => out.push(format!("{r:?}")),
            Err(e) => return (out, Some(kind(&e.to_string()))),
        }
    }
    (out, None)
}

/// An error message without its line number (gzip errors count lines differently).
fn kind(msg: &str) -> String {
    msg.split(':').nth(2).unwrap_or(msg).trim().to_string()
}

fuzz_target!(|data: &[u8]| {
    // Input that itself starts with the gzip magic is read as gzip when plain: not comparable.
    if data.starts_with(&[0x1f, 0x8b]) {
        return;
    }
    let split = data.len() / 2;
    let compressed = if data.first().is_some_and(|b| b % 2 == 1) {
        gzip(&[&data[..split], &data[split..]])
    } else {
        gzip(&[data])
    };
    let plain = read(data.to_vec());
    let gz = read(compressed);
    assert_eq!(plain.0, gz.0, "records differ between plain and gzip");
    assert_eq!(
        plain.1.is_some(),
        gz.1.is_some(),
        "{:?} vs {:?}",
        plain.1,
        gz.1
    );
});
