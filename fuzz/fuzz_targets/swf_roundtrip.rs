//! The SWF writer round trip: whatever the lenient reader accepts from arbitrary bytes, written
//! back with `write_header` / `write_record`, reads back strictly to the same header and records.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pwa_replay::swf::{ReadOptions, Record, SwfReader, write_header, write_record};

fuzz_target!(|data: &[u8]| {
    let Ok(mut reader) = SwfReader::from_bufread(data, "in.swf", ReadOptions::lenient()) else {
        return;
    };
    let records: Vec<Record> = reader.by_ref().map_while(Result::ok).collect();
    if records.is_empty() {
        return;
    }
    let header = reader.header().clone();
    let mut out = Vec::new();
    write_header(&mut out, &header).expect("in-memory write");
    for r in &records {
        write_record(&mut out, r).expect("a record read from SWF can be written");
    }
    let text = String::from_utf8_lossy(&out).into_owned();
    let mut back = SwfReader::from_bufread(&out[..], "out.swf", ReadOptions::strict())
        .unwrap_or_else(|e| panic!("written SWF does not read: {e}\n{text}"));
    let again: Vec<Record> = back
        .by_ref()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("written SWF does not read: {e}\n{text}"));
    assert_eq!(back.header(), &header, "header round trip\n{text}");
    assert_eq!(again, records, "record round trip\n{text}");
});
