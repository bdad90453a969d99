//! Provenance: `manifest.json` in a sweep directory, `verify` catching a changed byte or a
//! missing file, and identical inputs giving identical outputs (wall-clock columns and the
//! manifest's time fields aside), every file compared.

use std::collections::BTreeMap;
use std::path::Path;

use polars::prelude::{DataFrame, ParquetReader, SerReader};
use serde_json::Value;

use crate::support::{bin, fails_with, fields, ok};

/// Columns and keys that measure the host, not the simulation.
pub const WALL_CLOCK: [&str; 3] = ["alloc_time_s", "sim_wall_s", "wall_s"];

/// A generated 8×8-mesh workload: no file to write, the same jobs every time.
pub const TRACE: &str = "synth:uniform,mesh=8x8,jobs=80,rate=1,seed=3";

/// `sweep` of [`TRACE`] over 3 schedulers × 2 allocators × 3 loads into `out` (relative to `cwd`).
pub fn sweep(cwd: &Path, out: &str, extra: &[&str]) {
    ok(bin()
        .current_dir(cwd)
        .args(["sweep", "--trace", TRACE, "--sched", "fcfs,oo,window:4"])
        .args(["--alloc", "ff,mpl", "--loads", "0.3,0.6,0.9", "--quiet"])
        .args(["--out", out])
        .args(extra));
}

/// `summary.csv` without its wall-clock columns.
pub fn csv_without_wall_clock(path: &Path) -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(path).expect("summary.csv");
    let mut lines = text.lines().map(fields);
    let header = lines.next().expect("header");
    let keep: Vec<usize> = (0..header.len())
        .filter(|&i| !WALL_CLOCK.contains(&header[i].as_str()))
        .collect();
    assert_eq!(keep.len(), header.len() - 2, "wall-clock columns present");
    std::iter::once(header)
        .chain(lines)
        .map(|r| keep.iter().map(|&i| r[i].clone()).collect())
        .collect()
}

/// `summary.parquet` without its wall-clock columns.
pub fn parquet_without_wall_clock(path: &Path) -> DataFrame {
    let file = std::fs::File::open(path).expect("summary.parquet");
    let df = ParquetReader::new(file).finish().expect("Parquet");
    df.drop_many(WALL_CLOCK.iter().copied())
}

/// A JSON file without wall-clock keys (at any depth) and without `drop` (top level).
fn json_without(path: &Path, drop: &[&str]) -> Value {
    fn strip(v: &mut Value) {
        if let Value::Object(m) = v {
            m.retain(|k, _| !WALL_CLOCK.contains(&k.as_str()));
            m.values_mut().for_each(strip);
        }
    }
    let mut v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    strip(&mut v);
    if let Value::Object(m) = &mut v {
        m.retain(|k, _| !drop.contains(&k.as_str()));
    }
    v
}

/// `index.html` without the value of its `wall time` configuration row.
fn without_wall_time(html: &str) -> String {
    let key = "[\"wall time\",\"";
    let at = html.find(key).expect("a wall time row") + key.len();
    let end = at + html[at..].find('"').expect("its value");
    format!("{}{}", &html[..at], &html[end..])
}

/// The files a manifest lists, with their hashes.
pub fn manifest_files(dir: &Path) -> BTreeMap<String, String> {
    let m: Value = serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap())
        .expect("manifest.json");
    m["files"]
        .as_object()
        .expect("files")
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect()
}

/// Files that hold wall-clock values, by path.
fn holds_wall_clock(rel: &str) -> bool {
    rel.starts_with("cells/")
        || [
            "summary.csv",
            "summary.parquet",
            "sweep.json",
            "report.md",
            "index.html",
        ]
        .contains(&rel)
}

#[test]
fn identical_inputs_give_identical_outputs_file_by_file() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    for (cwd, threads) in [(&a, "1"), (&b, "1")] {
        std::fs::create_dir_all(cwd).unwrap();
        sweep(
            cwd,
            "out",
            &["--per-job", "--swf-out", "--threads", threads],
        );
    }
    let (a, b) = (a.join("out"), b.join("out"));
    let (fa, fb) = (manifest_files(&a), manifest_files(&b));
    assert_eq!(
        fa.keys().collect::<Vec<_>>(),
        fb.keys().collect::<Vec<_>>(),
        "the same files"
    );
    assert!(fa.len() >= 4 + 4 + 3 * 18, "{} files", fa.len());
    for (rel, hash) in &fa {
        let (pa, pb) = (a.join(rel), b.join(rel));
        if !holds_wall_clock(rel) {
            assert_eq!(hash, &fb[rel], "{rel} differs");
            assert_eq!(std::fs::read(&pa).unwrap(), std::fs::read(&pb).unwrap());
        } else if rel == "summary.csv" {
            assert_eq!(csv_without_wall_clock(&pa), csv_without_wall_clock(&pb));
        } else if rel == "summary.parquet" {
            let (da, db) = (
                parquet_without_wall_clock(&pa),
                parquet_without_wall_clock(&pb),
            );
            assert!(da.equals_missing(&db), "{rel}: {da} vs {db}");
        } else if rel == "report.md" {
            let text = |p: &Path| {
                std::fs::read_to_string(p)
                    .unwrap()
                    .lines()
                    .filter(|l| !l.starts_with("| wall time |"))
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            };
            assert_eq!(text(&pa), text(&pb));
        } else if rel == "index.html" {
            let text = |p: &Path| without_wall_time(&std::fs::read_to_string(p).unwrap());
            assert_eq!(text(&pa), text(&pb));
        } else {
            // A cache entry's checksum covers its wall-clock metrics too.
            let drop = ["checksum"];
            assert_eq!(json_without(&pa, &drop), json_without(&pb, &drop), "{rel}");
        }
    }
    let time_and_hashes = ["started", "finished", "files"];
    assert_eq!(
        json_without(&a.join("manifest.json"), &time_and_hashes),
        json_without(&b.join("manifest.json"), &time_and_hashes),
        "manifests differ beyond time fields and hashes"
    );
}

#[test]
fn the_manifest_records_the_run_and_verify_catches_a_changed_byte() {
    let tmp = tempfile::tempdir().unwrap();
    sweep(tmp.path(), "out", &["--per-job", "--threads", "2"]);
    let out = tmp.path().join("out");
    let m: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(m["format"], "pwa-replay-manifest/1");
    assert_eq!(m["tool"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(m["tool"]["git_commit"].is_string() || m["tool"]["git_commit"].is_null());
    let argv: Vec<&str> = m["command_line"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(argv[1..4], ["sweep", "--trace", TRACE]);
    assert_eq!(m["trace"]["name"], TRACE);
    assert_eq!(m["trace"]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(m["machine"], "mesh:8x8");
    assert_eq!(m["host"]["threads"], 2);
    assert_eq!(m["sweep"]["cells"].as_array().unwrap().len(), 18);
    assert_eq!(m["sweep"]["seeds"].as_object().unwrap().len(), 18);
    assert!(m["sweep"]["shard"].is_null());
    for t in ["started", "finished"] {
        let s = m[t].as_str().unwrap();
        assert!(
            s.len() == 20 && s.ends_with('Z') && s.as_bytes()[10] == b'T',
            "{t}: {s}"
        );
    }
    let files = manifest_files(&out);
    for f in [
        "summary.csv",
        "summary.parquet",
        "report.md",
        "sweep.json",
        "turnaround.png",
    ] {
        assert!(files.contains_key(f), "{f} not listed");
    }
    assert_eq!(files.keys().filter(|k| k.starts_with("jobs/")).count(), 18);
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("`manifest.json`") && report.contains("pwa-replay verify"));

    let said = ok(bin().arg("verify").arg(&out));
    assert!(
        String::from_utf8_lossy(&said.stdout).contains(&format!("all {} files match", files.len()))
    );

    ok(bin()
        .args(["plot", "--log-y", "--from"])
        .arg(out.join("summary.parquet")));
    ok(bin().arg("verify").arg(&out));
    let m: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(
        m["amended_by"][0][1], "plot",
        "plot re-hashed what it redrew"
    );
    assert_eq!(m["command_line"][1], "sweep");

    let png = out.join("utilization.png");
    let mut bytes = std::fs::read(&png).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&png, bytes).unwrap();
    let job = files
        .keys()
        .find(|k| k.starts_with("jobs/"))
        .unwrap()
        .clone();
    std::fs::remove_file(out.join(&job)).unwrap();
    fails_with(
        bin().arg("verify").arg(&out),
        &[
            "2 of",
            "changed: utilization.png",
            &format!("missing: {job}"),
        ],
    );
    fails_with(bin().arg("verify").arg(tmp.path()), &["manifest.json"]);
}
