//! A figure's data: points `series, x, y, ci_low, ci_high` in long format, and its CSV text.

use std::fmt::Write as _;

use crate::replicate::Estimate;

/// One point of a curve.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    /// The series' legend label (`window:240+mpl`).
    pub series: String,
    /// x value.
    pub x: f64,
    /// Mean and 95% CI over replications (a single replay: `ci_low = ci_high = y`).
    pub est: Estimate,
}

/// What a figure shows and its points (series in legend order, x increasing).
#[derive(Debug, Clone, PartialEq)]
pub struct FigureData {
    /// Output folder below the study's (`window-k` for a paper; empty for an experiment's own).
    pub group: String,
    /// File stem (`fig2`).
    pub id: String,
    /// Title.
    pub title: String,
    /// x axis label.
    pub x_label: String,
    /// y axis label.
    pub y_label: String,
    /// Draw the x axis on a log scale (window sizes).
    pub log_x: bool,
    /// Draw the y axis on a log scale.
    pub log_y: bool,
    /// The points.
    pub points: Vec<Point>,
}

impl FigureData {
    /// `window-k/fig2` (`fig2` without a group).
    pub fn key(&self) -> String {
        if self.group.is_empty() {
            self.id.clone()
        } else {
            format!("{}/{}", self.group, self.id)
        }
    }

    /// Series labels in order of first appearance.
    pub fn series(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in &self.points {
            if !out.contains(&p.series) {
                out.push(p.series.clone());
            }
        }
        out
    }

    /// The curve of `series`: `(x, mean)` by increasing x.
    pub fn curve(&self, series: &str) -> Vec<(f64, f64)> {
        self.points
            .iter()
            .filter(|p| p.series == series)
            .map(|p| (p.x, p.est.mean))
            .collect()
    }

    /// The estimate of `series` at `x`, if measured.
    pub fn est(&self, series: &str, x: f64) -> Option<Estimate> {
        self.points
            .iter()
            .find(|p| p.series == series && p.x == x)
            .map(|p| p.est)
    }

    /// The value of `series` at `x`, if measured.
    pub fn at(&self, series: &str, x: f64) -> Option<f64> {
        self.est(series, x).map(|e| e.mean)
    }

    /// Every x of the figure, increasing, once each.
    pub fn xs(&self) -> Vec<f64> {
        let mut xs: Vec<f64> = self.points.iter().map(|p| p.x).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        xs
    }

    /// The long-format CSV text.
    pub fn csv(&self) -> String {
        let mut s = String::from("series,x,y,ci_low,ci_high\n");
        for p in &self.points {
            let _ = writeln!(
                s,
                "{},{},{},{},{}",
                csv_field(&p.series),
                p.x,
                p.est.mean,
                p.est.ci_low,
                p.est.ci_high
            );
        }
        s
    }
}

/// `field` as one CSV field (RFC 4180): quoted, inner quotes doubled, when it holds a comma, a
/// quote or a line break (a label such as `scan-up:join,step` or `gang:slice=1,nmax=4`), else as is.
pub fn csv_field(field: &str) -> std::borrow::Cow<'_, str> {
    if field.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", field.replace('"', "\"\"")).into()
    } else {
        field.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_with_a_comma_is_one_quoted_field() {
        assert_eq!(
            csv_field("scan-up:join,step+buddy"),
            "\"scan-up:join,step+buddy\""
        );
        assert_eq!(csv_field("say \"x\", y"), "\"say \"\"x\"\", y\"");
        assert_eq!(csv_field("window:240+mpl"), "window:240+mpl");
    }

    #[test]
    fn csv_is_long_format_with_the_five_columns() {
        let d = FigureData {
            group: "window-k".into(),
            id: "fig2".into(),
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_x: false,
            log_y: false,
            points: vec![Point {
                series: "window:240+mpl".into(),
                x: 2.5,
                est: Estimate::from_samples(&[1.0, 3.0]),
            }],
        };
        assert_eq!(d.key(), "window-k/fig2");
        let csv = d.csv();
        let mut lines = csv.lines();
        assert_eq!(lines.next(), Some("series,x,y,ci_low,ci_high"));
        let row: Vec<&str> = lines.next().unwrap().split(',').collect();
        assert_eq!(row[0], "window:240+mpl");
        assert_eq!(row[1], "2.5");
        assert_eq!(row[2], "2");
        let (lo, hi): (f64, f64) = (row[3].parse().unwrap(), row[4].parse().unwrap());
        // t(1) = 12.706, s = √2, half-width = 12.706.
        assert!((hi - 2.0 - 12.706).abs() < 1e-9 && (2.0 - lo - 12.706).abs() < 1e-9);
        assert_eq!(d.series(), vec!["window:240+mpl".to_string()]);
        assert_eq!(d.at("window:240+mpl", 2.5), Some(2.0));
        assert_eq!(d.xs(), vec![2.5]);
    }
}
