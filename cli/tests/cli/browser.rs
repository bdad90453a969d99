//! Headless Chromium for the page tests: the DOM after the page's scripts ran (`--dump-dom`) and
//! screenshots, of files opened from disk with every host name unresolvable (no network). A
//! missing browser fails the test with the command that installs it; it never passes silently.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

use crate::support::{Image, read_png};

/// The browser: `$PWA_CHROMIUM`, else `chromium` on the PATH.
fn chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("PWA_CHROMIUM") {
        return p.into();
    }
    let found = std::env::var_os("PATH").map(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    });
    found.flatten().unwrap_or_else(|| {
        panic!(
            "headless Chromium is needed to test index.html and viewer.html and was not found: \
             run `make setup` (installs the Debian package `chromium`) or set PWA_CHROMIUM"
        )
    })
}

/// `file://` URL of `page` with `fragment` (`#t=5`, or empty).
pub fn url(page: &Path, fragment: &str) -> String {
    let abs = std::fs::canonicalize(page).expect("page exists");
    format!("file://{}{fragment}", abs.display())
}

/// Longest a browser run may take before it is killed and the test fails.
const TIMEOUT: Duration = Duration::from_secs(90);

/// Runs the browser on `url` with `extra` flags, in a fresh profile under `scratch`.
fn run(url: &str, scratch: &Path, extra: &[String]) -> std::process::Output {
    let profile = tempfile::tempdir_in(scratch).expect("profile dir");
    let browser = chromium();
    let out = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
            "--host-resolver-rules=MAP * ~NOTFOUND",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(extra)
        .arg(url)
        .timeout(TIMEOUT)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "running {} on {url} failed ({e}; runs are killed after {TIMEOUT:?}); if it is not \
                 installed, run `make setup` (Debian package `chromium`)",
                browser.display()
            )
        });
    assert!(
        out.status.success(),
        "chromium failed on {url}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The document after its scripts ran.
pub fn dom(url: &str, scratch: &Path) -> String {
    let out = run(url, scratch, &["--dump-dom".into()]);
    String::from_utf8(out.stdout).expect("UTF-8 DOM")
}

/// A `w × h` screenshot of `url`, written to `png` and decoded.
pub fn screenshot(url: &str, png: &Path, (w, h): (u32, u32), scratch: &Path) -> Image {
    run(
        url,
        scratch,
        &[
            format!("--screenshot={}", png.display()),
            format!("--window-size={w},{h}"),
        ],
    );
    read_png(png)
}

impl Image {
    /// Pixels that are not (near) white.
    pub fn inked(&self) -> usize {
        self.rgb
            .iter()
            .filter(|p| p.iter().any(|&c| c < 235))
            .count()
    }

    /// Pixels within 12 of `colour` in every channel.
    pub fn count_near(&self, colour: [u8; 3]) -> usize {
        self.rgb
            .iter()
            .filter(|p| p.iter().zip(colour).all(|(&a, b)| a.abs_diff(b) <= 12))
            .count()
    }
}

/// `#rrggbb` as RGB.
pub fn rgb(hex: &str) -> [u8; 3] {
    let v = u32::from_str_radix(hex.trim_start_matches('#'), 16).expect("hex colour");
    [(v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Runs `script` against `page` as a person would use it: the page is loaded in a frame of a
/// small driver page (file access between the two allowed), `script` — the body of an async
/// function of `d`, the page's document, returning lines of text — dispatches real events to the
/// page's own handlers, and its lines come back. Timers run on virtual time (up to 5 s).
pub fn drive(page: &Path, script: &str, scratch: &Path) -> Vec<String> {
    let driver = scratch.join(format!(
        "driver-{}.html",
        page.file_stem().unwrap().to_string_lossy()
    ));
    let html = format!(
        r#"<!DOCTYPE html><html><body>
<iframe id="f" src="{src}" width="1280" height="2400"></iframe>
<pre id="out">no result</pre>
<script>
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const at = (el) => {{ const b = el.getBoundingClientRect(); return {{ clientX: b.x + b.width / 2, clientY: b.y + b.height / 2, bubbles: true }}; }};
const run = async (d) => {{ {script} }};
document.getElementById('f').onload = async () => {{
  let lines;
  try {{ lines = await run(document.getElementById('f').contentDocument); }}
  catch (e) {{ lines = ['error: ' + e]; }}
  document.getElementById('out').textContent = '<<' + lines.join('\n') + '>>';
}};
</script></body></html>"#,
        src = url(page, "")
    );
    std::fs::write(&driver, html).expect("driver page");
    let out = run(
        &url(&driver, ""),
        scratch,
        &[
            "--allow-file-access-from-files".into(),
            "--virtual-time-budget=5000".into(),
            "--dump-dom".into(),
        ],
    );
    let dom = String::from_utf8(out.stdout).expect("UTF-8 DOM");
    let text = dom
        .split("&lt;&lt;")
        .nth(1)
        .and_then(|s| s.split("&gt;&gt;").next())
        .unwrap_or_else(|| panic!("the driver did not finish: {dom}"));
    let unescape = |l: &str| {
        l.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&")
    };
    text.lines().map(unescape).collect()
}
