//! `pwa-replay fetch` and the loader's automatic download, for real, against a small HTTP server on
//! 127.0.0.1 that the test starts: a good file, a corrupted one, a truncated gzip, a 404, a refused
//! connection, and a trace without a recorded hash. Nothing unverified may remain on disk.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::thread;
use std::time::{Duration, Instant};

use predicates::prelude::*;
use pwa_replay::workload::tracepath::sha256_bytes;

use crate::support::{bin, bin_with, fails_with, json_ok, ok, small_swf, swf_line};

pub fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    e.write_all(bytes).expect("gzip in memory");
    e.finish().expect("gzip in memory")
}

/// Serves `routes` (path → body) on 127.0.0.1 until `requests` have been answered or 30 s passed;
/// any other path is a 404. Returns the base URL.
pub fn serve(routes: Vec<(String, Vec<u8>)>, requests: usize) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    thread::spawn(move || {
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut served = 0;
        while served < requests && Instant::now() < deadline {
            match listener.accept() {
                Ok((stream, _)) => {
                    answer(stream, &routes);
                    served += 1;
                }
                Err(_) => thread::sleep(Duration::from_millis(5)),
            }
        }
    });
    base
}

fn answer(mut stream: TcpStream, routes: &[(String, Vec<u8>)]) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(stream.try_clone().expect("clone stream"));
    let mut request = String::new();
    let _ = reader.read_line(&mut request);
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
        line.clear();
    }
    let path = request.split_whitespace().nth(1).unwrap_or("");
    let (status, body): (&str, &[u8]) = match routes.iter().find(|(p, _)| p == path) {
        Some((_, b)) => ("200 OK", b),
        None => ("404 Not Found", b"not here"),
    };
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Length: {}\r\nContent-Type: application/octet-stream\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

/// A catalog of test traces all pointing at the good content's hash (but `nohash`).
fn catalog(dir: &Path, good_sha: &str) -> std::path::PathBuf {
    let entry = |name: &str, file: &str, sha: Option<&str>| {
        let sha = sha.map_or(String::new(), |s| format!("sha256 = \"{s}\"\n"));
        format!(
            "[traces.{name}]\nfile = \"{file}\"\nfolder = \"l_test\"\n{sha}\
             machine = \"mesh:12x12\"\nprocs_per_node = 8\n\n"
        )
    };
    let text = [
        entry("good", "GOOD.swf.gz", Some(good_sha)),
        entry("bad", "BAD.swf.gz", Some(good_sha)),
        entry("trunc", "TRUNC.swf.gz", Some(good_sha)),
        entry("missing", "MISSING.swf.gz", Some(good_sha)),
        entry("nohash", "NOHASH.swf.gz", None),
        entry("nohash-bad", "NOHASHBAD.swf.gz", None),
    ]
    .concat();
    let p = dir.join("catalog.toml");
    std::fs::write(&p, text).expect("catalog");
    p
}

struct Fixture {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    catalog: std::path::PathBuf,
    base: String,
}

fn fixture(requests: usize) -> Fixture {
    let tmp = tempfile::tempdir().expect("tempdir");
    let good = small_swf();
    let good_gz = gzip(good.as_bytes());
    let mut other = good.clone();
    other += &swf_line(99, 2000, 5, 8, 1);
    let truncated = good_gz[..good_gz.len() / 2].to_vec();
    let routes = vec![
        ("/l_test/GOOD.swf.gz".to_string(), good_gz.clone()),
        ("/l_test/BAD.swf.gz".to_string(), gzip(other.as_bytes())),
        ("/l_test/TRUNC.swf.gz".to_string(), truncated),
        ("/l_test/NOHASH.swf.gz".to_string(), good_gz),
        (
            "/l_test/NOHASHBAD.swf.gz".to_string(),
            gzip(b"this is not\nan SWF file\n"),
        ),
    ];
    let catalog = catalog(tmp.path(), &sha256_bytes(good.as_bytes()));
    Fixture {
        root: tmp.path().to_path_buf(),
        _tmp: tmp,
        catalog,
        base: serve(routes, requests),
    }
}

fn names_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

fn fetch(f: &Fixture, name: &str, base: &str, dir: &Path) -> assert_cmd::assert::Assert {
    bin()
        .env_remove("PWA_OFFLINE")
        .env("PWA_CATALOG", &f.catalog)
        .args(["fetch", name, "--base-url", base, "--dir"])
        .arg(dir)
        .assert()
}

#[test]
fn good_file_is_verified_and_kept() {
    let f = fixture(1);
    let dir = f.root.join("traces");
    fetch(&f, "good", &f.base, &dir)
        .success()
        .stdout(predicate::str::contains("verified"));
    assert_eq!(names_in(&dir), ["GOOD.swf.gz"]);
    // the server answers one request only: a second fetch must not need it
    fetch(&f, "good", &f.base, &dir)
        .success()
        .stdout(predicate::str::contains("already there"));
    let v =
        json_ok(bin_with(&f.catalog, &dir).args(["stats", "--trace", "good", "--format", "json"]));
    assert_eq!(v["jobs"], 4);
}

#[test]
fn corrupted_truncated_and_missing_files_leave_nothing() {
    let f = fixture(3);
    let dir = f.root.join("traces");
    fetch(&f, "bad", &f.base, &dir)
        .failure()
        .stderr(predicate::str::contains("sha256"))
        .stderr(predicate::str::contains("BAD.swf.gz"));
    fetch(&f, "trunc", &f.base, &dir).failure();
    fetch(&f, "missing", &f.base, &dir)
        .failure()
        .stderr(predicate::str::contains("404"))
        .stderr(predicate::str::contains("l_test"));
    assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
}

#[test]
fn refused_connection_leaves_nothing() {
    let f = fixture(0);
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let dir = f.root.join("traces");
    fetch(&f, "good", &format!("http://127.0.0.1:{port}"), &dir)
        .failure()
        .stderr(predicate::str::contains("GOOD.swf.gz"));
    assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
}

#[test]
fn offline_fetch_touches_no_network_and_says_how_to_get_the_file() {
    let f = fixture(0);
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let dir = f.root.join("traces");
    bin()
        .env("PWA_OFFLINE", "1")
        .env("PWA_CATALOG", &f.catalog)
        .args(["fetch", "good", "--base-url", &base, "--dir"])
        .arg(&dir)
        .assert()
        .failure()
        .stderr(predicate::str::contains("PWA_OFFLINE=1"))
        .stderr(predicate::str::contains("GOOD.swf.gz"));
    let asked = listener.accept();
    assert!(
        asked
            .as_ref()
            .is_err_and(|e| e.kind() == std::io::ErrorKind::WouldBlock),
        "the offline fetch connected: {asked:?}"
    );
    assert!(names_in(&dir).is_empty(), "{:?}", names_in(&dir));
}

#[test]
fn trace_without_hash_is_parsed_then_recorded() {
    let f = fixture(2);
    let dir = f.root.join("traces");
    let sha = sha256_bytes(small_swf().as_bytes());
    fetch(&f, "nohash", &f.base, &dir)
        .success()
        .stdout(predicate::str::contains(format!("sha256 {sha}")));
    assert_eq!(names_in(&dir), ["NOHASH.swf.gz", "NOHASH.swf.gz.sha256"]);
    let recorded = std::fs::read_to_string(dir.join("NOHASH.swf.gz.sha256")).expect("side file");
    assert_eq!(recorded.trim(), sha);
    fetch(&f, "nohash-bad", &f.base, &dir).failure();
    assert_eq!(names_in(&dir), ["NOHASH.swf.gz", "NOHASH.swf.gz.sha256"]);
}

#[test]
fn loader_downloads_once_when_online() {
    let f = fixture(1);
    let dir = f.root.join("auto");
    ok(bin_with(&f.catalog, &dir)
        .env_remove("PWA_OFFLINE")
        .env("PWA_ARCHIVE_URL", &f.base)
        .args(["stats", "--trace", "good", "--format", "json"]));
    assert_eq!(names_in(&dir), ["GOOD.swf.gz"]);
    // a file whose content does not match the catalog is refused at load time
    std::fs::write(
        dir.join("GOOD.swf.gz"),
        gzip(b"1 0 0 1 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n"),
    )
    .expect("overwrite");
    fails_with(
        bin_with(&f.catalog, &dir).args(["stats", "--trace", "good"]),
        &["pwa-replay fetch good"],
    );
}
