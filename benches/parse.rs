//! SWF parse throughput in bytes of uncompressed SWF per second (goal: ≥ 200 MB/s).
//!
//! Inputs: a real log held decompressed in memory (SDSC-Par-1996 or CTC-SP2, found on the trace
//! search path `$PWA_TRACES`, `traces/`, `../shared/traces`; skipped with a note when absent), a
//! generated synthetic buffer, and the same real log read end to end from its gzip bytes
//! (decompression included, outside the goal). Run: `cargo bench --bench parse`.
//!
//! The machine is often shared: the real log is also measured in the thread's CPU time (Linux
//! `/proc/thread-self/schedstat`), which leaves out time spent waiting for a core.

use std::hint::black_box;
use std::io::{Cursor, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flate2::read::MultiGzDecoder;
use pwa_replay::swf::{self, Header, ReadOptions, Record, SwfReader};

/// Logs to try, in order of preference.
const LOGS: [&str; 2] = [
    "SDSC-Par-1996-3.1-cln.swf.gz",
    "CTC-SP2-1996-3.1-cln.swf.gz",
];

/// The first of [`LOGS`] on the trace search path, as (name, gzip bytes).
fn find_log() -> Option<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let env_dirs: Vec<PathBuf> = std::env::var_os("PWA_TRACES")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let dirs: Vec<PathBuf> = env_dirs
        .into_iter()
        .chain([root.join("traces"), root.join("../shared/traces")])
        .collect();
    LOGS.iter().find_map(|log| {
        dirs.iter()
            .find_map(|d| std::fs::read(d.join(log)).ok())
            .map(|bytes| (log.trim_end_matches(".swf.gz").to_owned(), bytes))
    })
}

/// A deterministic synthetic log of `n` jobs in the archive's column layout.
fn synthetic(n: u64) -> Vec<u8> {
    let mut header = Header::new();
    header.push("Version", "2.2");
    header.push("MaxNodes", "352");
    let mut out = Vec::new();
    swf::write_header(&mut out, &header).expect("write to a Vec");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |m: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % m
    };
    let mut submit = 0i64;
    for job in 1..=n {
        submit += next(600) as i64;
        let procs = 1i64 << next(9);
        let run = next(80_000) as i64;
        let record = Record {
            job_id: job,
            submit: Some(submit),
            wait: Some(next(500_000) as i64),
            run_time: Some(run),
            allocated_procs: Some(procs),
            avg_cpu_time: (next(2) == 0).then(|| next(8_000_000) as f64 / 100.0),
            requested_procs: Some(procs),
            requested_time: Some(run + next(3_600) as i64),
            status: Some(1),
            user: Some(next(300) as i64),
            queue: Some(next(30) as i64),
            partition: Some(2),
            ..Record::default()
        };
        swf::write_record(&mut out, &record).expect("write to a Vec");
    }
    out
}

/// Reads every record, keeping each from being optimised away; returns the count.
fn drain<R: std::io::BufRead>(reader: SwfReader<R>) -> usize {
    reader.fold(0, |n, r| {
        black_box(r.expect("valid record"));
        n + 1
    })
}

fn count_plain(bytes: &[u8]) -> usize {
    drain(SwfReader::from_bufread(bytes, "bench", ReadOptions::strict()).expect("valid header"))
}

/// Nanoseconds this thread has run on a CPU, where Linux says so.
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// Runs `f` `iters` times; returns the CPU time used (wall time if unavailable).
fn cpu_time(iters: u64, mut f: impl FnMut()) -> Duration {
    let (cpu, wall) = (thread_cpu_ns(), Instant::now());
    for _ in 0..iters {
        f();
    }
    match (cpu, thread_cpu_ns()) {
        (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
        _ => wall.elapsed(),
    }
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("swf-parse");
    group.sample_size(20);

    let synth = synthetic(200_000);
    group.throughput(Throughput::Bytes(synth.len() as u64));
    group.bench_function("synthetic 200k jobs, in memory", |b| {
        b.iter(|| count_plain(black_box(&synth)))
    });

    let Some((name, gz)) = find_log() else {
        eprintln!("note: none of {LOGS:?} on the trace search path; real-log benches skipped");
        group.finish();
        return;
    };
    let mut plain = Vec::new();
    MultiGzDecoder::new(&gz[..])
        .read_to_end(&mut plain)
        .expect("a valid gzip log");
    group.throughput(Throughput::Bytes(plain.len() as u64));
    group.bench_function(format!("{name}, in memory"), |b| {
        b.iter(|| count_plain(black_box(&plain)))
    });
    group.bench_function(format!("{name}, in memory, CPU time"), |b| {
        b.iter_custom(|iters| {
            cpu_time(iters, || {
                black_box(count_plain(black_box(&plain)));
            })
        })
    });
    group.bench_function(format!("{name}, from gzip (decompression included)"), |b| {
        b.iter(|| {
            let reader = SwfReader::detect(Cursor::new(gz.clone()), "bench", ReadOptions::strict());
            drain(reader.expect("valid header"))
        })
    });
    group.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
