//! Lines a figure would hide: a curve whose points lie under those of a curve drawn after it (OO
//! under Window-240 while neither has reached its knee) would be invisible. Both kinds of figure
//! (`plots`, `study::plot`) find such curves here, draw each of them wider than the curves on top
//! of it — a band of its colour around theirs, one step per curve above it — and say in the legend
//! which curve hides it and where.
//!
//! A point lies under another when both have the same x and their y differ by at most
//! [`TOLERANCE`] of the y axis' span (on a log axis, of its span in log space): about 6 pixels on
//! the figures' 600-pixel axes, where two 6-pixel markers mostly cover each other.

/// Share of the y axis' span within which two points at the same x are drawn as one.
pub const TOLERANCE: f64 = 0.01;

/// A curve lying, in part or whole, under curves drawn after it.
#[derive(Debug, Clone, PartialEq)]
pub struct Hidden {
    /// The first later curve covering one of its points.
    pub under: usize,
    /// Its points that later curves cover (indices into its points, increasing).
    pub points: Vec<usize>,
    /// The most later curves covering one of its points: how many bands it needs to show.
    pub depth: u32,
}

/// For every curve (its `(x, y)` points, curves drawn in order), where later curves hide it, on a y
/// axis spanning `lo..hi` (`log`: a logarithmic one, where points with y ≤ 0 are not drawn).
pub fn hidden(curves: &[&[(f64, f64)]], (lo, hi): (f64, f64), log: bool) -> Vec<Option<Hidden>> {
    let t = |y: f64| if log { y.ln() } else { y };
    let tol = TOLERANCE * (t(hi) - t(lo)).abs();
    let shown = |y: f64| y.is_finite() && (!log || y > 0.0);
    let covers = |a: (f64, f64), b: (f64, f64)| {
        a.0 == b.0 && shown(a.1) && shown(b.1) && (t(a.1) - t(b.1)).abs() <= tol
    };
    curves
        .iter()
        .enumerate()
        .map(|(i, pts)| {
            let (mut under, mut points, mut depth) = (None, Vec::new(), 0);
            for (k, &p) in pts.iter().enumerate() {
                let above: Vec<usize> = (i + 1..curves.len())
                    .filter(|&j| curves[j].iter().any(|&q| covers(p, q)))
                    .collect();
                if let Some(&first) = above.first() {
                    under.get_or_insert(first);
                    points.push(k);
                    depth = depth.max(above.len() as u32);
                }
            }
            under.map(|under| Hidden {
                under,
                points,
                depth,
            })
        })
        .collect()
}

/// The legend's note for a hidden curve: `under B` when every point is covered, `under B at 1–5`
/// when a run of them is (x written by `x_text`), `under B at 3 of 10 points` otherwise.
pub fn note(h: &Hidden, xs: &[f64], top: &str, x_text: fn(f64) -> String) -> String {
    let (first, last) = (h.points[0], h.points[h.points.len() - 1]);
    if h.points.len() == xs.len() {
        format!("under {top}")
    } else if last - first + 1 == h.points.len() {
        let at = if first == last {
            x_text(xs[first])
        } else {
            format!("{}–{}", x_text(xs[first]), x_text(xs[last]))
        };
        format!("under {top} at {at}")
    } else {
        format!("under {top} at {} of {} points", h.points.len(), xs.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_curve_under_a_later_one_is_found_with_its_points_and_depth() {
        let oo = [(1.0, 10.0), (2.0, 20.0), (3.0, 80.0)];
        let window = [(1.0, 10.0), (2.0, 20.2), (3.0, 200.0)];
        let fcfs = [(1.0, 10.0), (2.0, 50.0), (3.0, 400.0)];
        let h = hidden(&[&oo, &window, &fcfs], (0.0, 400.0), false);
        // oo: at x = 1 under window and fcfs, at x = 2 under window (0.2 < 1% of 400).
        assert_eq!(
            h[0],
            Some(Hidden {
                under: 1,
                points: vec![0, 1],
                depth: 2
            })
        );
        assert_eq!(h[1].as_ref().map(|h| h.points.clone()), Some(vec![0]));
        assert_eq!(h[2], None, "the last curve is on top");
        let tick = |x: f64| format!("{x:.1}");
        let xs = [1.0, 2.0, 3.0];
        assert_eq!(
            note(h[0].as_ref().unwrap(), &xs, "window", tick),
            "under window at 1.0–2.0"
        );
        let all = Hidden {
            under: 1,
            points: vec![0, 1, 2],
            depth: 1,
        };
        assert_eq!(note(&all, &xs, "window", tick), "under window");
        let gaps = Hidden {
            under: 1,
            points: vec![0, 2],
            depth: 1,
        };
        assert_eq!(
            note(&gaps, &xs, "window", tick),
            "under window at 2 of 3 points"
        );
    }

    #[test]
    fn on_a_log_axis_closeness_is_relative_and_non_positive_values_are_not_drawn() {
        let a = [(1.0, 1.0), (2.0, 1000.0), (3.0, 0.0)];
        let b = [(1.0, 1.02), (2.0, 1100.0), (3.0, 0.0)];
        // Span 1…10⁴ in log space is 9.2; 1% is 0.092: 1 vs 1.02 is close, 1000 vs 1100 not.
        let h = hidden(&[&a, &b], (1.0, 1e4), true);
        assert_eq!(h[0].as_ref().map(|h| h.points.clone()), Some(vec![0]));
        let linear = hidden(&[&a, &b], (0.0, 1e4), false);
        assert_eq!(
            linear[0].as_ref().map(|h| h.points.clone()),
            Some(vec![0, 1, 2]),
            "on a linear axis 0 is drawn, and 1000 vs 1100 is within 1% of 10⁴"
        );
    }
}
