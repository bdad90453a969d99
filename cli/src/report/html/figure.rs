//! An experiment's or a paper's figure ([`FigureData`]: long-format points with 95% intervals) as
//! an interactive chart of `index.html` ([`Chart::from_figure`], styled as its PNG), and the page
//! of such a study: its claims with their verdicts and its figures ([`study`]).

use pwa_replay::experiment::{FigureData, Verdict};

use super::{Chart, Page, Series, hex};
use crate::report::palette;
use crate::report::plots;
use crate::report::tables::Table;

/// The page of a study: `config` rows, the claims and their verdicts (when there are any; marked
/// indicative for a `quick` run), then `charts` (each from [`Chart::from_figure`]).
pub fn study(
    title: &str,
    intro: &str,
    config: Vec<(String, String)>,
    charts: Vec<Chart>,
    (verdicts, quick): (&[Verdict], bool),
) -> Page {
    Page {
        title: title.to_string(),
        intro: intro.to_string(),
        config,
        tables: (!verdicts.is_empty())
            .then(|| claims(verdicts, quick))
            .into_iter()
            .collect(),
        charts,
    }
}

/// What a study run on its `--quick` budget says above its claims.
pub const QUICK_NOTE: &str = "Run on the `--quick` budget (fewer jobs or replicas): these verdicts \
    are indicative only. A claim can read otherwise on the full run, which decides; run without \
    `--quick` to settle it.";

/// A claim's verdict: `holds`, `**differs**` or `not run`, `(indicative)` after it on a `quick`
/// run.
pub fn verdict(holds: Option<bool>, quick: bool) -> String {
    let word = match holds {
        Some(true) => "holds",
        Some(false) => "**differs**",
        None => "not run",
    };
    if quick && holds.is_some() {
        format!("{word} (indicative)")
    } else {
        word.to_string()
    }
}

/// The claims table: figure, statement, what was measured, verdict.
fn claims(verdicts: &[Verdict], quick: bool) -> Table {
    let held = verdicts.iter().filter(|v| v.holds == Some(true)).count();
    Table {
        title: format!(
            "Claims: {held} of {} hold{}",
            verdicts.len(),
            if quick { " (indicative: --quick)" } else { "" }
        ),
        note: if quick {
            QUICK_NOTE.into()
        } else {
            String::new()
        },
        columns: ["figure", "statement", "measured", "verdict"]
            .map(String::from)
            .to_vec(),
        numeric: vec![false; 4],
        rows: verdicts
            .iter()
            .map(|v| {
                vec![
                    v.figure.clone(),
                    v.statement.clone(),
                    v.measured.clone(),
                    verdict(v.holds, quick),
                ]
            })
            .collect(),
        keys: Vec::new(),
    }
}

impl Chart {
    /// The chart of `d`, its PNG `<key>.png` beside the page (`kth-slowdown.png`,
    /// `window-k/fig2.png`), each series styled as among `family`, the series of its panel
    /// ([`palette::series_style`], as the PNG is).
    pub fn from_figure(d: &FigureData, family: &[String]) -> Chart {
        let series = d
            .series()
            .into_iter()
            .map(|label| {
                let (colour, marker) = palette::series_style(&label, family);
                let points = d
                    .points
                    .iter()
                    .filter(|p| p.series == label)
                    .map(|p| {
                        let band = p.est.n > 1;
                        let (lo, hi) = (p.est.ci_low, p.est.ci_high);
                        (p.x, p.est.mean, band.then_some(lo), band.then_some(hi))
                    })
                    .collect();
                Series {
                    labels: vec![
                        ("series".into(), label.clone()),
                        ("replicas".into(), replicas(d, &label)),
                    ],
                    label,
                    colour: hex(colour),
                    marker: marker.name().into(),
                    points,
                }
            })
            .collect();
        Chart {
            id: d.key().replace('/', "-"),
            title: d.title.clone(),
            x_label: d.x_label.clone(),
            y_label: d.y_label.clone(),
            log_x: d.log_x,
            log_y: plots::study_log_y(d),
            png: Some(format!("{}.png", d.key())),
            series,
        }
    }
}

/// Replications per point of `series` (`3` or `3–8`).
fn replicas(d: &FigureData, series: &str) -> String {
    let ns = d
        .points
        .iter()
        .filter(|p| p.series == series)
        .map(|p| p.est.n);
    let (lo, hi) = ns.fold((usize::MAX, 0), |(l, h), n| (l.min(n), h.max(n)));
    if lo >= hi {
        hi.to_string()
    } else {
        format!("{lo}–{hi}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pwa_replay::experiment::Point;
    use pwa_replay::replicate::Estimate;

    #[test]
    fn bands_only_with_replicas_and_colours_by_scheduler() {
        let p = |series: &str, x: f64, ys: &[f64]| Point {
            series: series.into(),
            x,
            est: Estimate::from_samples(ys),
        };
        let d = FigureData {
            group: String::new(),
            id: "kth-slowdown".into(),
            title: "t".into(),
            x_label: "load factor".into(),
            y_label: "y".into(),
            log_x: false,
            log_y: false,
            points: vec![
                p("easy+flat+user", 0.5, &[1.0, 3.0]),
                p("conservative+flat+user", 0.5, &[2.0]),
            ],
        };
        let c = Chart::from_figure(&d, &d.series());
        assert_eq!(c.series.len(), 2);
        let (x, y, lo, hi) = c.series[0].points[0];
        assert_eq!((x, y), (0.5, 2.0));
        assert!(lo.unwrap() < 2.0 && hi.unwrap() > 2.0);
        assert_eq!(c.series[1].points[0].2, None, "one replica, no band");
        let (colour, marker) = palette::series_style("easy+flat+user", &d.series());
        assert_eq!(c.series[0].colour, hex(colour));
        assert_eq!(c.series[0].marker, marker.name());
        assert_eq!(c.png.as_deref(), Some("kth-slowdown.png"));
        assert_eq!(c.series[0].labels[1].1, "2");

        let v = Verdict {
            figure: "kth-slowdown".into(),
            statement: "s".into(),
            measured: "m".into(),
            holds: Some(false),
        };
        let page = study(
            "t",
            "",
            vec![],
            vec![c.clone()],
            (std::slice::from_ref(&v), false),
        );
        assert_eq!(page.tables[0].title, "Claims: 0 of 1 hold");
        assert_eq!(page.tables[0].rows[0][3], "**differs**");
        assert_eq!(page.charts.len(), 1);
        assert!(
            study("t", "", vec![], vec![], (&[], false))
                .tables
                .is_empty()
        );
        let quick = study("t", "", vec![], vec![c], (&[v], true));
        assert_eq!(
            quick.tables[0].title,
            "Claims: 0 of 1 hold (indicative: --quick)"
        );
        assert_eq!(quick.tables[0].rows[0][3], "**differs** (indicative)");
        assert_eq!(quick.tables[0].note, QUICK_NOTE);
    }
}
