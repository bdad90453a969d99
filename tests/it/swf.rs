//! SWF reader: the malformed-fixture corpus, the real PWA logs, proptests (no panics, line numbers
//! on errors, write → parse round trips).

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use pwa_replay::swf::{
    self, Header, ReadOptions, Record, SkipReason, SwfError, SwfReader, read_all,
};

use crate::real_logs::real_logs;
use crate::support::keep_regressions;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/swf")
}

fn fixture(name: &str) -> PathBuf {
    fixture_dir().join(name)
}

/// What a malformed fixture must do: strict error location, lenient outcome.
struct Expect {
    file: &'static str,
    /// Line of the strict error.
    line: u64,
    /// Field number of the strict error, if the error is about a field.
    field: Option<usize>,
    /// Lenient: the reason counted, and how many records survive.
    lenient: (SkipReason, usize),
}

const LINE_FIXTURES: &[Expect] = &[
    Expect {
        file: "field_count_short.swf.txt",
        line: 7,
        field: Some(18),
        lenient: (SkipReason::FieldCount, 3),
    },
    Expect {
        file: "field_count_long.swf.txt",
        line: 6,
        field: None,
        lenient: (SkipReason::FieldCount, 3),
    },
    Expect {
        file: "not_integer.swf.txt",
        line: 7,
        field: Some(4),
        lenient: (SkipReason::NotANumber, 3),
    },
    Expect {
        file: "overflow.swf.txt",
        line: 8,
        field: Some(3),
        lenient: (SkipReason::Overflow, 3),
    },
    Expect {
        file: "fraction_in_integer.swf.txt",
        line: 8,
        field: Some(9),
        lenient: (SkipReason::NotANumber, 3),
    },
    Expect {
        file: "bad_decimal.swf.txt",
        line: 6,
        field: Some(6),
        lenient: (SkipReason::NotANumber, 3),
    },
    Expect {
        file: "negative_job.swf.txt",
        line: 7,
        field: Some(1),
        lenient: (SkipReason::NegativeJobNumber, 3),
    },
    Expect {
        file: "backwards.swf.txt",
        line: 8,
        field: Some(2),
        lenient: (SkipReason::SubmitBackwards, 3),
    },
    Expect {
        file: "nul.bin",
        line: 6,
        field: Some(3),
        lenient: (SkipReason::Nul, 3),
    },
    Expect {
        file: "nul_in_header.bin",
        line: 2,
        field: None,
        lenient: (SkipReason::Nul, 4),
    },
    Expect {
        file: "not_utf8.bin",
        line: 5,
        field: Some(5),
        lenient: (SkipReason::NotANumber, 3),
    },
    Expect {
        file: "crlf.swf.txt",
        line: 1,
        field: None,
        lenient: (SkipReason::Crlf, 4),
    },
];

#[test]
fn malformed_lines_name_file_line_and_field() {
    for e in LINE_FIXTURES {
        let path = fixture(e.file);
        let err = read_all(&path, ReadOptions::strict()).expect_err(e.file);
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!("{}:{}: ", path.display(), e.line)),
            "{msg}"
        );
        assert_eq!(err.line(), Some(e.line), "{msg}");
        assert_eq!(err.field().map(|f| f.number()), e.field, "{msg}");
        if let Some(n) = e.field {
            assert!(msg.contains(&format!(": field {n} (")), "{msg}");
        }
        assert_eq!(err.skip_reason(), Some(e.lenient.0), "{msg}");
    }
}

#[test]
fn lenient_mode_skips_and_counts_by_reason() {
    for e in LINE_FIXTURES {
        let (_, records, report) = read_all(fixture(e.file), ReadOptions::lenient())
            .unwrap_or_else(|err| panic!("{}: {err}", e.file));
        let (reason, kept) = e.lenient;
        assert_eq!(records.len(), kept, "{}", e.file);
        let tally = report
            .get(reason)
            .unwrap_or_else(|| panic!("{}: {report}", e.file));
        assert_eq!(tally.first_lines.first(), Some(&e.line), "{}", e.file);
        let dropped = if reason.drops_line() { 1 } else { 0 };
        assert_eq!(report.skipped_lines(), dropped, "{}: {report}", e.file);
    }
}

#[test]
fn crlf_lenient_counts_every_line_and_keeps_them() {
    let (header, records, report) =
        read_all(fixture("crlf.swf.txt"), ReadOptions::lenient()).expect("lenient CRLF");
    assert_eq!(header.max_nodes(), Some(400));
    assert_eq!(records.len(), 4);
    assert_eq!(report.get(SkipReason::Crlf).map(|t| t.count), Some(8));
    let msg = read_all(fixture("crlf.swf.txt"), ReadOptions::strict())
        .expect_err("strict CRLF")
        .to_string();
    assert!(msg.contains("CRLF"), "{msg}");
}

#[test]
fn files_without_records_fail_in_both_modes() {
    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
        for (file, empty) in [
            ("empty.swf.txt", true),
            ("blank_lines_only.swf.txt", true),
            ("header_only.swf.txt", false),
        ] {
            let path = fixture(file);
            let err = read_all(&path, opts).expect_err(file);
            assert!(err.to_string().starts_with(&path.display().to_string()));
            match err {
                SwfError::Empty { .. } => assert!(empty, "{file}"),
                SwfError::NoRecords { skipped, .. } => assert!(!empty && skipped == 0, "{file}"),
                other => panic!("{file}: unexpected {other}"),
            }
        }
    }
}

#[test]
fn broken_gzip_is_an_error_with_a_line_in_both_modes() {
    for opts in [ReadOptions::strict(), ReadOptions::lenient()] {
        for file in ["truncated_gzip.bin", "corrupt_gzip.bin"] {
            let path = fixture(file);
            let err = read_all(&path, opts).expect_err(file);
            let msg = err.to_string();
            assert!(matches!(err, SwfError::Gzip { .. }), "{msg}");
            assert!(msg.starts_with(&path.display().to_string()), "{msg}");
            assert!(err.line().is_some_and(|l| l >= 1), "{msg}");
            assert!(msg.contains("gzip"), "{msg}");
        }
    }
}

#[test]
fn every_fixture_outside_valid_fails_strictly_and_names_the_file() {
    let mut seen = 0;
    for entry in std::fs::read_dir(fixture_dir()).expect("fixture dir") {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !path.is_file() || name.starts_with('.') {
            continue;
        }
        seen += 1;
        let err = read_all(&path, ReadOptions::strict()).expect_err(name);
        assert!(
            err.to_string().starts_with(&path.display().to_string()),
            "{err}"
        );
    }
    assert!(seen >= LINE_FIXTURES.len() + 5, "only {seen} fixtures");
}

#[test]
fn gzip_and_plain_give_the_same_records() {
    let plain = read_all(fixture("valid/sdsc_sample.swf.txt"), ReadOptions::strict())
        .expect("plain sample");
    let gz = SwfReader::open(fixture("valid/sdsc_sample.gz.bin"), ReadOptions::strict())
        .expect("gzip sample");
    assert!(gz.is_gzip());
    let header = gz.header().clone();
    let records = gz.collect::<Result<Vec<_>, _>>().expect("gzip records");
    assert_eq!(plain.1[1].avg_cpu_time, Some(216.9));
    assert_eq!((header, records), (plain.0, plain.1));
    assert!(plain.2.is_empty());
}

#[test]
fn missing_files_and_directories_are_io_errors_with_the_path() {
    let missing = fixture("no-such-file.swf");
    let err = read_all(&missing, ReadOptions::strict()).expect_err("missing file");
    assert!(matches!(err, SwfError::Io { .. }));
    assert!(err.to_string().starts_with(&missing.display().to_string()));
    let dir = fixture_dir();
    let err = read_all(&dir, ReadOptions::lenient()).expect_err("a directory");
    assert!(matches!(err, SwfError::Io { .. }), "{err}");
    assert_eq!(err.path(), dir.display().to_string());
}

#[test]
fn overlong_lines_are_dropped_without_buffering() {
    let job = b"1 0 5 12 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n";
    let mut log = b"; Version: 2.2\n".to_vec();
    log.extend_from_slice(job);
    let long_starts = log.len();
    log.extend_from_slice(&[b'7'; swf::MAX_LINE_BYTES * 3]);
    log.push(b'\n');
    log.extend_from_slice(job);
    let strict: Vec<_> = SwfReader::from_bufread(&log[..], "long", ReadOptions::strict())
        .expect("header")
        .collect();
    assert!(
        matches!(
            strict.as_slice(),
            [Ok(_), Err(SwfError::LineTooLong { line: 3, .. })]
        ),
        "{strict:?}"
    );
    let mut lenient =
        SwfReader::from_bufread(&log[..], "long", ReadOptions::lenient()).expect("header");
    let records: Vec<_> = lenient.by_ref().collect::<Result<_, _>>().expect("lenient");
    assert_eq!(records.len(), 2);
    assert_eq!(lenient.line(), 4);
    assert_eq!(
        lenient
            .skipped()
            .get(SkipReason::LineTooLong)
            .map(|t| t.count),
        Some(1)
    );
    // In the header, the same line is an error of the constructor.
    let err = SwfReader::from_bufread(&log[long_starts..], "long", ReadOptions::strict())
        .expect_err("overlong first line");
    assert_eq!(err.line(), Some(1));
}

#[test]
fn comments_after_the_header_are_skipped_not_added() {
    let log = b"; A: 1\n1 0 5 12 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n; B: 2\n\n2 3 5 12 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n";
    let mut r = SwfReader::from_bufread(&log[..], "c", ReadOptions::strict()).expect("header");
    let ids: Vec<u64> = r.by_ref().map(|rec| rec.expect("valid").job_id).collect();
    assert_eq!(ids, vec![1, 2]);
    assert_eq!(r.header().get("A"), Some("1"));
    assert_eq!(r.header().get("B"), None);
}

// ---------------------------------------------------------------------------------------------
// Real logs: every file beside the real logs parses strictly, with their README's line counts.

fn trace_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let name = p.to_string_lossy();
            name.ends_with(".swf") || name.ends_with(".swf.gz")
        })
        .collect();
    files.sort();
    files
}

/// Job line counts from the README table next to the logs: file name → count.
fn readme_counts(dir: &Path) -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let file = cells.get(1)?.strip_suffix(".gz").unwrap_or(cells.get(1)?);
            let count = cells.get(4)?.replace(',', "").parse().ok()?;
            file.ends_with(".swf").then(|| (file.to_owned(), count))
        })
        .collect()
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn every_real_trace_parses_strictly() {
    let dir = real_logs();
    let counts = readme_counts(&dir);
    let mut checked = 0;
    for path in trace_files(&dir) {
        let (header, records, skipped) =
            read_all(&path, ReadOptions::strict()).unwrap_or_else(|e| panic!("{e}"));
        assert!(skipped.is_empty());
        assert!(header.version().is_some(), "{}: no Version", path.display());
        assert!(
            header.max_nodes().is_some(),
            "{}: no MaxNodes",
            path.display()
        );
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let base = name.strip_suffix(".gz").unwrap_or(name);
        if let Some((_, expected)) = counts.iter().find(|(f, _)| f == base) {
            assert_eq!(records.len(), *expected, "{name}: job lines");
            checked += 1;
        }
        let sorted = records
            .windows(2)
            .all(|w| w[0].submit.unwrap_or(i64::MIN) <= w[1].submit.unwrap_or(i64::MAX));
        assert!(sorted, "{name}: submit order");
    }
    eprintln!("checked job counts of {checked} logs in {}", dir.display());
}

#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn sdsc_paragon_header_is_typed() {
    let path = real_logs().join("SDSC-Par-1996-3.1-cln.swf.gz");
    let reader = SwfReader::open(&path, ReadOptions::strict()).expect("SDSC Paragon 1996");
    let h = reader.header();
    assert_eq!(h.computer(), Some("Intel Paragon"));
    assert_eq!(h.max_nodes(), Some(400));
    assert_eq!(h.unix_start_time(), Some(820_090_437));
    assert_eq!(h.max_queues().map(|n| n as usize), Some(h.queues().len()));
    let batch = h.partitions().into_iter().find(|p| p.name == "batch");
    assert_eq!(batch.map(|p| p.number), Some(2));
    assert!(h.notes().iter().any(|n| n.contains("CLEANED VERSION")));
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn opt_int() -> impl Strategy<Value = Option<i64>> {
    prop_oneof![
        1 => Just(None),
        4 => (0i64..10_000_000).prop_map(Some),
        1 => any::<i64>().prop_filter("-1 means None", |v| *v != -1).prop_map(Some),
    ]
}

fn opt_dec() -> impl Strategy<Value = Option<f64>> {
    prop_oneof![
        1 => Just(None),
        3 => (0u32..10_000_000).prop_map(|c| Some(f64::from(c) / 100.0)),
        1 => any::<f64>()
            .prop_filter("finite, not -1", |v| v.is_finite() && *v != -1.0)
            .prop_map(Some),
    ]
}

fn record() -> impl Strategy<Value = Record> {
    let ints = proptest::collection::vec(opt_int(), 15);
    (any::<u64>(), ints, opt_dec(), opt_dec()).prop_map(|(job_id, v, cpu, mem)| Record {
        job_id,
        submit: v[0],
        wait: v[1],
        run_time: v[2],
        allocated_procs: v[3],
        avg_cpu_time: cpu,
        used_memory: mem,
        requested_procs: v[4],
        requested_time: v[5],
        requested_memory: v[6],
        status: v[7],
        user: v[8],
        group: v[9],
        executable: v[10],
        queue: v[11],
        partition: v[12],
        preceding_job: v[13],
        think_time: v[14],
    })
}

/// Headers whose entries survive writing: keyed values with continuation lines that do not
/// look like keys, and free-text lines.
fn header() -> impl Strategy<Value = Header> {
    let key = "[A-Z][A-Za-z0-9]{0,12}";
    let value = "([A-Za-z0-9(),/.=]([A-Za-z0-9 (),/.=:]{0,30}[A-Za-z0-9(),/.=])?)?";
    let continuation = "[a-z0-9=()<>][a-z0-9=()<> ]{0,20}[a-z0-9=()<>]";
    let entry = (
        proptest::option::of(key),
        value,
        proptest::collection::vec(continuation, 0..3),
    );
    proptest::collection::vec(entry, 0..8).prop_map(|entries| {
        let mut h = Header::new();
        for (key, first, more) in entries {
            match key {
                Some(k) => {
                    let v = std::iter::once(first.as_str())
                        .chain(more.iter().map(String::as_str))
                        .collect::<Vec<_>>()
                        .join("\n");
                    h.push(&k, &v);
                }
                // Free text: the `-` keeps it from reading as a key line.
                None => {
                    h.push_comment("");
                    h.push_comment(&format!("- {first}"));
                }
            }
        }
        h
    })
}

/// Every error that comes from a line says which.
fn located(e: &SwfError) -> bool {
    matches!(e, SwfError::Empty { .. } | SwfError::NoRecords { .. })
        || e.line().is_some_and(|l| l >= 1)
}

fn drain(bytes: Vec<u8>, opts: ReadOptions) -> Result<usize, SwfError> {
    let reader = SwfReader::detect(std::io::Cursor::new(bytes), "random", opts)?;
    let mut n = 0;
    for item in reader {
        item?;
        n += 1;
    }
    Ok(n)
}

const SAMPLE: &str = include_str!("../fixtures/swf/valid/sdsc_sample.swf.txt");

proptest! {
    #![proptest_config(keep_regressions(ProptestConfig::with_cases(512)))]

    #[test]
    fn write_then_parse_round_trips(h in header(), mut records in proptest::collection::vec(record(), 1..20)) {
        records.sort_by_key(|r| r.submit);
        let mut out = Vec::new();
        swf::write_header(&mut out, &h).expect("write header");
        for r in &records {
            swf::write_record(&mut out, r).expect("write record");
        }
        let mut reader = SwfReader::from_bufread(&out[..], "roundtrip", ReadOptions::strict())
            .expect("reads back");
        let back: Vec<Record> = reader.by_ref().collect::<Result<_, _>>().expect("records back");
        prop_assert_eq!(reader.header(), &h);
        prop_assert_eq!(back, records);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..600), gzip: bool, lenient: bool) {
        let mut bytes = bytes;
        if gzip {
            bytes.splice(0..0, [0x1f, 0x8b, 0x08, 0x00]);
        }
        let opts = ReadOptions { lenient };
        if let Err(e) = drain(bytes, opts) {
            prop_assert!(located(&e), "{}", e);
        }
    }

    #[test]
    fn random_text_lines_never_panic(lines in proptest::collection::vec("[ -~\t;.\r\0-]{0,120}", 0..12), lenient: bool) {
        let bytes = lines.join("\n").into_bytes();
        if let Err(e) = drain(bytes, ReadOptions { lenient }) {
            prop_assert!(located(&e), "{}", e);
        }
    }

    #[test]
    fn mutated_valid_lines_fail_on_their_own_line(
        line in 5usize..9,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0u8..3), 1..4),
    ) {
        let mut lines: Vec<Vec<u8>> = SAMPLE.lines().map(|l| l.as_bytes().to_vec()).collect();
        let target = &mut lines[line - 1];
        for (at, byte, op) in edits {
            let i = at.index(target.len() + 1);
            match op {
                0 => target.insert(i, byte),
                1 if i < target.len() => target[i] = byte,
                _ if i < target.len() => { target.remove(i); }
                _ => target.push(byte),
            }
        }
        let target_has_newline = target.contains(&b'\n');
        let bytes = lines.join(&b'\n');
        match drain(bytes, ReadOptions::strict()) {
            Ok(n) => prop_assert!(n >= 3),
            Err(e) => {
                prop_assert!(located(&e), "{}", e);
                if !target_has_newline {
                    prop_assert!(e.line() == Some(line as u64) || e.line() == Some(line as u64 + 1), "{}", e);
                }
            }
        }
    }
}

#[test]
fn readers_are_send_and_reusable_as_trait_objects() {
    fn assert_send<T: Send>(_: &T) {}
    let reader = SwfReader::open(fixture("valid/sdsc_sample.swf.txt"), ReadOptions::strict())
        .expect("sample");
    assert_send(&reader);
    let mut text = String::new();
    std::fs::File::open(fixture("valid/sdsc_sample.swf.txt"))
        .and_then(|mut f| f.read_to_string(&mut text))
        .expect("read sample");
    let from_lines = text.lines().filter(|l| !l.starts_with(';')).count();
    let cursor: Box<dyn BufRead + Send> = Box::new(std::io::Cursor::new(text.into_bytes()));
    let n = SwfReader::from_bufread(cursor, "boxed", ReadOptions::strict())
        .expect("boxed")
        .count();
    assert_eq!(n, from_lines);
}

#[test]
fn a_byte_order_mark_before_the_header_is_ignored() {
    let log = b"\xEF\xBB\xBF; Version: 2.2\n1 0 5 12 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n";
    let mut r = SwfReader::from_bufread(&log[..], "bom", ReadOptions::strict()).expect("header");
    assert_eq!(r.header().version(), Some("2.2"));
    assert_eq!(r.by_ref().count(), 1);
}

#[test]
fn field_count_messages_name_the_missing_field() {
    let short = b"1 0 5 12 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1\n";
    let err = SwfReader::from_bufread(&short[..], "short", ReadOptions::strict())
        .expect("no header")
        .find_map(Result::err)
        .expect("a field-count error");
    assert_eq!(
        err.to_string(),
        "short:1: expected 18 fields, found 17: field 18 (think time) is missing"
    );
    let three = b"1 0 5\n";
    let err = SwfReader::from_bufread(&three[..], "three", ReadOptions::strict())
        .expect("no header")
        .find_map(Result::err)
        .expect("a field-count error");
    assert_eq!(err.field().map(|f| f.number()), Some(4));
    assert!(
        err.to_string()
            .ends_with("field 4 (run time) and later are missing"),
        "{err}"
    );
}

#[test]
fn binary_field_text_is_escaped() {
    let err = read_all(fixture("not_utf8.bin"), ReadOptions::strict()).expect_err("bad bytes");
    assert!(
        err.to_string().ends_with(r#"not an integer: "\xff\xfe""#),
        "{err}"
    );
}

/// A byte source that fails after `ok` bytes.
struct FailingAfter {
    data: std::io::Cursor<Vec<u8>>,
    ok: u64,
}

impl Read for FailingAfter {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.data.position() >= self.ok {
            return Err(std::io::Error::other("disk on fire"));
        }
        let room = (self.ok - self.data.position()).min(buf.len() as u64) as usize;
        self.data.read(&mut buf[..room])
    }
}

#[test]
fn read_errors_mid_stream_name_the_input_in_both_modes() {
    for lenient in [false, true] {
        let data = std::fs::read(fixture("valid/sdsc_sample.swf.txt")).expect("sample");
        let source = FailingAfter {
            ok: data.len() as u64 - 20,
            data: std::io::Cursor::new(data),
        };
        let reader =
            SwfReader::detect(source, "flaky.swf", ReadOptions { lenient }).expect("header");
        let items: Vec<_> = reader.collect();
        let err = items
            .last()
            .and_then(|r| r.as_ref().err())
            .expect("ends with an error");
        assert!(matches!(err, SwfError::Io { .. }), "{err}");
        assert_eq!(err.to_string(), "flaky.swf: disk on fire");
        assert_eq!(items.iter().filter(|r| r.is_ok()).count(), 3);
    }
}

#[test]
fn concatenated_gzip_members_are_one_log() {
    use flate2::{Compression, write::GzEncoder};
    use std::io::Write;
    let text = std::fs::read_to_string(fixture("valid/sdsc_sample.swf.txt")).expect("sample");
    let (head, tail) = text.split_at(text.find("    3 ").expect("job 3"));
    let mut bytes = Vec::new();
    for part in [head, tail] {
        let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
        enc.write_all(part.as_bytes()).expect("compress");
        bytes.extend(enc.finish().expect("compress"));
    }
    let ids: Vec<u64> =
        SwfReader::detect(std::io::Cursor::new(bytes), "two.gz", ReadOptions::strict())
            .expect("header")
            .map(|r| r.expect("valid").job_id)
            .collect();
    assert_eq!(ids, vec![1, 2, 3, 4]);
}

/// An SWF log generated on the fly, never held in memory as a whole.
struct Generated {
    next_job: u64,
    jobs: u64,
    pending: Vec<u8>,
    at: usize,
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.at == self.pending.len() {
            if self.next_job > self.jobs {
                return Ok(0);
            }
            self.pending.clear();
            self.at = 0;
            let r = Record {
                job_id: self.next_job,
                submit: Some(self.next_job as i64 * 7),
                run_time: Some(100),
                allocated_procs: Some(8),
                ..Record::default()
            };
            swf::write_record(&mut self.pending, &r)?;
            self.next_job += 1;
        }
        let n = buf.len().min(self.pending.len() - self.at);
        buf[..n].copy_from_slice(&self.pending[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

#[test]
fn a_250k_line_log_streams_through() {
    let source = Generated {
        next_job: 1,
        jobs: 250_000,
        pending: b"; Version: 2.2\n".to_vec(),
        at: 0,
    };
    let mut reader = SwfReader::detect(source, "generated", ReadOptions::strict()).expect("header");
    let (mut n, mut last) = (0u64, 0u64);
    for r in reader.by_ref() {
        let r = r.expect("valid");
        assert_eq!(r.job_id, last + 1);
        last = r.job_id;
        n += 1;
    }
    assert_eq!((n, reader.line()), (250_000, 250_001));
}

#[test]
fn a_byte_order_mark_before_a_first_job_line_with_crlf() {
    let log = b"\xEF\xBB\xBF1 0 5 12 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 77\r\n";
    let (records, report) = {
        let mut r = SwfReader::from_bufread(&log[..], "bom", ReadOptions::lenient()).expect("ok");
        let records: Vec<Record> = r.by_ref().collect::<Result<_, _>>().expect("valid");
        (records, r.skipped().clone())
    };
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].job_id, records[0].think_time), (1, Some(77)));
    assert_eq!(report.get(SkipReason::Crlf).map(|t| t.count), Some(1));
}

/// A source that hands out one byte per read, like a slow pipe.
struct Trickle(std::io::Cursor<Vec<u8>>);

impl Read for Trickle {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(1);
        self.0.read(&mut buf[..n])
    }
}

#[test]
fn gzip_is_detected_even_one_byte_at_a_time() {
    let gz = std::fs::read(fixture("valid/sdsc_sample.gz.bin")).expect("sample");
    let reader = SwfReader::detect(
        Trickle(std::io::Cursor::new(gz)),
        "pipe",
        ReadOptions::strict(),
    )
    .expect("header");
    assert!(reader.is_gzip());
    assert_eq!(
        reader.map(|r| r.expect("valid").job_id).collect::<Vec<_>>(),
        vec![1, 2, 3, 4]
    );
    let one = SwfReader::detect(
        std::io::Cursor::new(vec![b'7']),
        "one",
        ReadOptions::strict(),
    )
    .expect("no header")
    .find_map(Result::err)
    .expect("one byte is no log");
    assert_eq!(
        one.to_string(),
        "one:1: expected 18 fields, found 1: field 2 (submit time) and later are missing"
    );
}
