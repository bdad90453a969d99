//! Pages to look at, opened from disk with no server and no network: `index.html` beside a study's
//! `report.md` ([`write_index`]: configuration, sortable tables, every figure as an interactive
//! chart) and `viewer.html` of one replay ([`viewer`]: the machine, a time slider, the queue, the
//! fragmentation series under it).
//!
//! A page is one file: the data as JSON in a `<script type="application/json">` element, then the
//! style and the scripts, all inlined. The scripts are hand-written plain JavaScript drawing SVG
//! (`charts.js`, `index.js`, `viewer.js`, a few hundred lines); docs/OUTPUTS.md says why no
//! charting library is vendored. A page honours a few keys in its URL fragment (`#log=all`,
//! `#hide=…`, `#t=…`) so that tests in a headless browser can drive it.
//!
//! A study other than a sweep (an experiment) gets its [`Page`] from [`figure::study`] (its
//! configuration rows, claims and charts, each chart from [`Chart::from_figure`] with the series
//! of its panel) and writes it with [`write_index`]:
//!
//! ```text
//! let charts = figs.iter().zip(&families).map(|(f, family)| Chart::from_figure(f, family)).collect();
//! html::write_index(out, &html::figure::study(&plan.title, intro, rows, charts, (&verdicts, quick)))?;
//! ```

pub mod figure;
pub mod sweep;
pub mod viewer;

use std::path::Path;

use serde::Serialize;

use super::atomic;
use super::tables::Table;

/// The file name of a study's page.
pub const INDEX: &str = "index.html";

const CSS: &str = include_str!("page.css");
const CHARTS_JS: &str = include_str!("charts.js");
const INDEX_JS: &str = include_str!("index.js");

/// The content of `index.html`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page {
    /// Heading and window title.
    pub title: String,
    /// A paragraph under the heading (may be empty; Markdown code spans shown as code).
    pub intro: String,
    /// Configuration and provenance rows (name, value).
    pub config: Vec<(String, String)>,
    /// Sortable tables, in order.
    pub tables: Vec<Table>,
    /// Interactive charts, in order.
    pub charts: Vec<Chart>,
}

/// One interactive chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chart {
    /// Identifier, unique in the page (the PNG's stem).
    pub id: String,
    /// Title.
    pub title: String,
    /// x axis label, with unit.
    pub x_label: String,
    /// y axis label, with unit.
    pub y_label: String,
    /// The x axis is logarithmic.
    pub log_x: bool,
    /// The y axis starts logarithmic (the reader can toggle it).
    pub log_y: bool,
    /// The PNG of the same figure, relative to the page, if any.
    pub png: Option<String>,
    /// The lines, in legend order.
    pub series: Vec<Series>,
}

/// One line of a chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// Legend label.
    pub label: String,
    /// `#rrggbb`.
    pub colour: String,
    /// Marker: `circle`, `square`, `triangle`, `diamond`, `cross`, `ring`.
    pub marker: String,
    /// The cell's labels shown on hover (name, value), e.g. scheduler and allocator.
    pub labels: Vec<(String, String)>,
    /// `(x, y, ci_low, ci_high)` by increasing x; the interval is drawn as a band when present.
    #[serde(serialize_with = "compact_points")]
    pub points: Vec<(f64, f64, Option<f64>, Option<f64>)>,
}

/// Each point as `[x, y]`, or `[x, y, low, high]` when it has an interval (a long time series
/// has none, and two `null`s a point made the viewer of a whole log a third larger).
fn compact_points<S: serde::Serializer>(
    points: &[(f64, f64, Option<f64>, Option<f64>)],
    s: S,
) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(points.len()))?;
    for &(x, y, lo, hi) in points {
        match (lo, hi) {
            (Some(lo), Some(hi)) => seq.serialize_element(&[x, y, lo, hi])?,
            _ => seq.serialize_element(&[x, y])?,
        }
    }
    seq.end()
}

/// Writes `dir/index.html` (through a temporary name).
pub fn write_index(dir: &Path, page: &Page) -> anyhow::Result<()> {
    let html = document(&page.title, page, &[CHARTS_JS, INDEX_JS])?;
    atomic::write_bytes(&dir.join(INDEX), html.as_bytes())
}

/// A self-contained HTML document: `data` as JSON (element `#data`), the style, then `scripts`.
fn document(title: &str, data: &impl Serialize, scripts: &[&str]) -> anyhow::Result<String> {
    // `<` only occurs inside JSON strings, where `\u003c` means the same: no `</script>` can end
    // the element early.
    let json = serde_json::to_string(data)?.replace('<', "\\u003c");
    let title = title
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    let mut html = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>\n{CSS}</style>\n</head>\n<body>\n\
         <noscript>This page draws its tables and charts with JavaScript; report.md and the PNG \
         figures beside it hold the same results.</noscript>\n\
         <main id=\"page\"></main>\n<script id=\"data\" type=\"application/json\">{json}</script>\n"
    );
    for s in scripts {
        html += "<script>\n";
        html += s;
        html += "</script>\n";
    }
    html += "</body>\n</html>\n";
    Ok(html)
}

/// `#rrggbb` of a plot colour.
pub fn hex(c: plotters::style::RGBColor) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_cannot_close_its_script_element() {
        let page = Page {
            title: "a <b> & c".into(),
            intro: "</script><script>alert(1)</script>".into(),
            config: vec![],
            tables: vec![],
            charts: vec![],
        };
        let html = document(&page.title, &page, &[]).unwrap();
        assert_eq!(
            html.matches("</script>").count(),
            1,
            "only the data's own end"
        );
        assert!(html.contains("<title>a &lt;b&gt; &amp; c</title>"));
        let json = html.split("application/json\">").nth(1).unwrap();
        let json = json.split("</script>").next().unwrap();
        let back: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(back["intro"], "</script><script>alert(1)</script>");
    }

    #[test]
    fn points_carry_an_interval_only_when_they_have_one() {
        let s = Series {
            label: "a".into(),
            colour: "#000000".into(),
            marker: "circle".into(),
            labels: vec![],
            points: vec![(1.0, 2.0, None, None), (3.0, 4.0, Some(3.5), Some(4.5))],
        };
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(
            v["points"],
            serde_json::json!([[1.0, 2.0], [3.0, 4.0, 3.5, 4.5]])
        );
    }
}
