//! Helpers shared by the CLI tests: the isolated binary, "succeeds and prints JSON", SWF fixture
//! lines and files, and the real logs (the library's tests' helper, `tests/it/real_logs.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

/// The binary, offline, with no trace directory, catalog, archive URL or font of the caller's
/// environment.
pub fn bin() -> Command {
    let mut c = Command::cargo_bin("pwa-replay").expect("binary built");
    c.env("PWA_OFFLINE", "1")
        .env_remove("PWA_TRACES")
        .env_remove("PWA_CATALOG")
        .env_remove("PWA_ARCHIVE_URL")
        .env_remove("PWA_REPLAY_FONT");
    c
}

/// [`bin`] reading the trace catalog `catalog` and looking for trace files in `traces`.
pub fn bin_with(catalog: &Path, traces: &Path) -> Command {
    let mut c = bin();
    c.env("PWA_CATALOG", catalog).env("PWA_TRACES", traces);
    c
}

/// The Python interpreter of the workers of Python series: `$PWA_PYTHON` (`make test` sets it),
/// else `target/py-venv/bin/python` when it exists (`make python`).
pub fn worker_python() -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/py-venv/bin/python");
    std::env::var_os("PWA_PYTHON")
        .map(PathBuf::from)
        .or_else(|| venv.is_file().then_some(venv))
}

/// Runs `cmd`, asserts it failed and that its stderr contains every one of `needles`.
pub fn fails_with(cmd: &mut Command, needles: &[&str]) {
    let out = cmd.output().expect("runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "unexpected success: {err}");
    for n in needles {
        assert!(err.contains(n), "stderr lacks {n:?}: {err}");
    }
}

/// Runs `cmd`, asserts it succeeded (showing its stderr otherwise) and returns its output.
pub fn ok(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs `cmd`, asserts success and parses its stdout as one JSON object.
pub fn json_ok(cmd: &mut Command) -> Value {
    json_of(&ok(cmd).stdout)
}

/// Parses bytes (a command's stdout) as one JSON object.
pub fn json_of(out: &[u8]) -> Value {
    serde_json::from_slice(out).expect("stdout is one JSON object")
}

/// An SWF line with the given job number, submit, run time, allocated processors, partition.
pub fn swf_line(job: u64, submit: i64, run: i64, procs: i64, partition: i64) -> String {
    format!("{job} {submit} 0 {run} {procs} -1 -1 {procs} -1 -1 1 1 1 1 1 {partition} -1 -1\n")
}

/// A small trace: 5 good jobs (one of them too large for 12×12 nodes of 8), 1 negative run time,
/// 1 with no processors.
pub fn small_swf() -> String {
    let mut s = String::from("; Version: 2.2\n; MaxNodes: 144\n");
    s += &swf_line(1, 1000, 100, 8, 1); // 1 node → 1×1
    s += &swf_line(2, 1010, 200, 120, 1); // 15 nodes → 3×5
    s += &swf_line(3, 1040, 300, 136, 1); // 17 nodes → 18 = 3×6
    s += &swf_line(4, 1050, -1, 8, 1); // run time -1: missing
    s += &swf_line(5, 1060, 400, 0, 1); // no processors
    s += &swf_line(6, 1100, 0, 16, 1); // 2 nodes → 1×2
    s
}

/// The job lines of an SWF text (comments skipped), each as its numeric fields.
pub fn swf_jobs(text: &str) -> Vec<Vec<i64>> {
    text.lines()
        .filter(|l| !l.starts_with(';'))
        .map(|l| {
            l.split_whitespace()
                .map(|f| f.parse().expect("integer field"))
                .collect()
        })
        .collect()
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write fixture");
    p
}

#[path = "../../../tests/it/real_logs.rs"]
mod real_logs;
pub use real_logs::{REAL_LOGS, real_logs};

/// Writes the experiment file `toml` into `dir`, runs `experiment` on it (with `extra` flags) into
/// `dir/<out>` and returns that directory.
pub fn experiment(dir: &Path, toml: &str, out: &str, extra: &[&str]) -> PathBuf {
    let file = write(dir, &format!("{out}.toml"), toml);
    let out = dir.join(out);
    ok(bin()
        .arg("experiment")
        .arg(&file)
        .args(["--quiet", "--out"])
        .arg(&out)
        .args(extra));
    out
}

/// Splits one CSV line into fields, honouring double quotes (a `synth:` label holds commas).
pub fn fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The rows of a CSV file with a header line, each as column → field.
pub fn csv_rows(path: &Path) -> Vec<BTreeMap<String, String>> {
    let text = std::fs::read_to_string(path).expect("CSV file");
    let mut lines = text.lines().map(fields);
    let header = lines.next().expect("header line");
    lines
        .map(|row| header.iter().cloned().zip(row).collect())
        .collect()
}

/// A decoded PNG: width, height and RGB pixels.
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Pixels, row by row.
    pub rgb: Vec<[u8; 3]>,
}

/// Decodes the PNG at `path`.
pub fn read_png(path: &Path) -> Image {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("PNG header");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    let step = info.color_type.samples();
    let rgb = buf[..info.buffer_size()]
        .chunks_exact(step)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    Image {
        width: info.width,
        height: info.height,
        rgb,
    }
}
