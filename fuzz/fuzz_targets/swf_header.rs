//! Arbitrary comment text as an SWF header (each input line behind a `;`, then one job line),
//! through the reader's header parser and every typed accessor; a header that reads must be
//! written back by `write_header` to text that reads back to the same header.
#![no_main]

use libfuzzer_sys::fuzz_target;
use pwa_replay::swf::{Header, ReadOptions, SwfReader, write_header};

/// One job line, so that a header-only input is a complete log.
const JOB: &[u8] = b"1 0 0 1 1 -1 -1 1 -1 -1 1 -1 -1 -1 -1 -1 -1 -1\n";

/// The header `text` reads to, or `None` when the reader rejects it.
fn read(text: &[u8]) -> Option<Header> {
    let reader = SwfReader::from_bufread(text, "h.swf", ReadOptions::strict()).ok()?;
    Some(reader.header().clone())
}

fn touch(h: &Header) {
    let _ = (
        h.version(),
        h.computer(),
        h.installation(),
        h.max_jobs(),
        h.max_records(),
    );
    let _ = (
        h.unix_start_time(),
        h.time_zone(),
        h.time_zone_string(),
        h.start_time(),
    );
    let _ = (
        h.end_time(),
        h.max_nodes(),
        h.max_procs(),
        h.max_runtime(),
        h.max_memory(),
    );
    let _ = (
        h.allow_overuse(),
        h.max_queues(),
        h.max_partitions(),
        h.queues_note(),
    );
    let _ = (h.partitions_note(), h.queues(), h.partitions(), h.notes());
}

fuzz_target!(|data: &[u8]| {
    let mut log = Vec::with_capacity(data.len() + 64);
    for line in data.split(|&b| b == b'\n') {
        log.push(b';');
        log.extend_from_slice(line);
        log.push(b'\n');
    }
    log.extend_from_slice(JOB);
    let Some(h) = read(&log) else {
        return;
    };
    touch(&h);
    let mut out = Vec::new();
    write_header(&mut out, &h).expect("in-memory write");
    out.extend_from_slice(JOB);
    let back = read(&out).unwrap_or_else(|| {
        panic!(
            "written header does not read:\n{}",
            String::from_utf8_lossy(&out)
        )
    });
    assert_eq!(
        back,
        h,
        "header round trip:\n{}",
        String::from_utf8_lossy(&out)
    );
});
