//! Each predicate on small figures worked by hand, and the errors of bad parameters.

use super::checks::last_over_first;
use super::*;
use crate::experiment::figure::Point;
use crate::replicate::Estimate;

/// A figure from exact curves (no CIs).
fn fig(curves: &[(&str, &[(f64, f64)])]) -> FigureData {
    let mut points = Vec::new();
    for (s, c) in curves {
        for &(x, y) in *c {
            points.push(Point {
                series: s.to_string(),
                x,
                est: Estimate::from_samples(&[y]),
            });
        }
    }
    FigureData {
        group: String::new(),
        id: "f".into(),
        title: String::new(),
        x_label: String::new(),
        y_label: String::new(),
        log_x: false,
        log_y: false,
        points,
    }
}

fn table(text: &str) -> toml::Table {
    text.parse().unwrap()
}

fn holds(f: &FigureData, name: &str, params: &str) -> bool {
    let p = lookup(name).unwrap();
    let t = table(params);
    let labels = f.series();
    let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
    p.check(&t, &labels).unwrap();
    p.eval(f, &t).1
}

const FCFS: &[(f64, f64)] = &[(1.0, 10.0), (2.0, 30.0), (3.0, 100.0)];
const OO: &[(f64, f64)] = &[(1.0, 10.0), (2.0, 15.0), (3.0, 40.0)];
const WK: &[(f64, f64)] = &[(1.0, 50.0), (2.0, 20.0), (3.0, 25.0)];

#[test]
fn from_first_and_strict_restrict_where_and_how_a_comparison_is_made() {
    // FCFS 10, 30, 100; OO 10, 15, 40; WK 50, 20, 25.
    let f = fig(&[("fcfs", FCFS), ("oo", OO), ("wk", WK)]);
    assert!(
        !holds(&f, "below", "a = \"wk\"\nb = \"fcfs\""),
        "50 > 10 at x=1"
    );
    assert!(holds(&f, "below", "a = \"wk\"\nb = \"fcfs\"\nfrom = 2"));
    // OO below WK from x=2 on, not at x=1 (10 < 50 holds, 15 < 20, 40 > 25 fails at 3).
    assert!(!holds(&f, "below", "a = \"oo\"\nb = \"wk\""));
    assert!(holds(&f, "below", "a = \"oo\"\nb = \"wk\"\nto = 2"));
    assert!(!holds(
        &f,
        "below",
        "a = \"oo\"\nb = \"wk\"\nfrom = 2\nto = 3"
    ));
    assert!(holds(
        &f,
        "below",
        "a = \"oo\"\nb = \"wk\"\nat = \"first\"\nstrict = 1"
    ));
    assert!(holds(
        &f,
        "highest",
        "series = \"wk\"\nat = \"first\"\nstrict = 1"
    ));
    // OO equals FCFS at x=1: lowest within the tolerance, not strictly.
    assert!(holds(&f, "lowest", "series = \"oo\"\nat = \"first\""));
    assert!(!holds(
        &f,
        "lowest",
        "series = \"oo\"\nat = \"first\"\nstrict = 1"
    ));
    assert!(holds(
        &f,
        "lowest",
        "series = \"oo\"\nfrom = 2\nat = \"first\"\nstrict = 1"
    ));
    let p = lookup("below").unwrap();
    let labels = ["fcfs", "oo"];
    assert!(
        p.check(&table("a = \"oo\"\nb = \"fcfs\"\nfrom = \"x\""), &labels)
            .is_err()
    );
    assert!(
        p.check(&table("a = \"oo\"\nb = \"fcfs\"\nto = \"x\""), &labels)
            .is_err()
    );
    assert!(
        p.check(&table("a = \"oo\"\nb = \"fcfs\"\nat = \"top\""), &labels)
            .is_err()
    );
}

#[test]
fn steady_rises_and_flat_curves() {
    // 1, 2, 1.8, 3, 4: last/first 4, three of four steps rise.
    let up: &[(f64, f64)] = &[(1.0, 1.0), (2.0, 2.0), (3.0, 1.8), (4.0, 3.0), (5.0, 4.0)];
    // 10, 12, 9, 11: mean 10.5, largest deviation 14%.
    let level: &[(f64, f64)] = &[(1.0, 10.0), (2.0, 12.0), (3.0, 9.0), (4.0, 11.0)];
    let f = fig(&[("up", up), ("level", level)]);
    assert!(holds(&f, "rises_steadily", "series = \"up\""));
    assert!(!holds(&f, "rises_steadily", "series = \"up\"\nfactor = 5"));
    assert!(!holds(&f, "rises_steadily", "series = \"up\"\nshare = 0.8"));
    assert!(
        !holds(&f, "rises_steadily", "series = \"level\""),
        "11/10 < 2"
    );
    assert!(holds(&f, "flat", "series = \"level\""));
    assert!(!holds(&f, "flat", "series = \"level\"\ntolerance = 0.1"));
    assert!(!holds(&f, "flat", "series = \"up\""));
    let (m, _) = lookup("flat")
        .unwrap()
        .eval(&f, &table("series = \"level\""));
    assert_eq!(
        m,
        "level: every value within ±14% of the mean 10.50 (last / first 1.1000)"
    );
    let (m, _) = lookup("rises_steadily")
        .unwrap()
        .eval(&f, &table("series = \"up\""));
    assert_eq!(
        m,
        "up: last / first = 4.0000 (x=5 over x=1); 3 of 4 steps rise"
    );
    assert_eq!(last_over_first(&[(1.0, 0.0), (2.0, 1.0)]), f64::INFINITY);
    assert_eq!(last_over_first(&[(1.0, 0.0), (2.0, 0.0)]), 1.0);
}

#[test]
fn gaps_gains_and_ratios_across_figures() {
    let f = fig(&[("fcfs", FCFS), ("oo", OO), ("wk", WK)]);
    // At x=3: |oo − wk| = 15 < |fcfs − oo| = 60; at x=1: 40 > 0.
    let four = "a = \"oo\"\nb = \"wk\"\nc = \"fcfs\"\nd = \"oo\"";
    assert!(holds(&f, "gap_below", four));
    assert!(!holds(&f, "gap_below", &format!("{four}\nat = 1")));
    // oo / max(fcfs, wk): 10/50 = 0.2 at x=1 → 40/100 = 0.4 at x=3.
    assert!(holds(&f, "gains_on", "a = \"oo\"\nb = [\"fcfs\", \"wk\"]"));
    assert!(
        !holds(&f, "gains_on", "a = \"wk\"\nb = [\"fcfs\"]"),
        "5 → 0.25"
    );
    // fcfs / oo at the last x: 2.5 here, 1.25 in the other figure.
    let mut other = fig(&[("fcfs", &[(1.0, 50.0)]), ("oo", &[(1.0, 40.0)])]);
    other.id = "g".into();
    let p = lookup("ratio_above").unwrap();
    let t = table("a = \"fcfs\"\nb = \"oo\"\nthan = \"g\"");
    let (m, ok) = p.eval_among(&f, &t, std::slice::from_ref(&other));
    assert!(
        ok && m.contains("2.5000 at x=3 vs 1.2500 at x=1 in g"),
        "{m}"
    );
    let (m, ok) = p.eval_among(
        &other,
        &table("a = \"fcfs\"\nb = \"oo\"\nthan = \"f\""),
        &[f],
    );
    assert!(!ok, "{m}");
    assert!(!p.eval(&other, &t).1, "the other figure is not at hand");
}

#[test]
fn comparisons_allow_the_tolerance_and_read_the_points_asked_for() {
    let f = fig(&[("fcfs", FCFS), ("oo", OO)]);
    assert!(holds(&f, "lowest", "series = \"oo\""));
    assert!(!holds(&f, "lowest", "series = \"fcfs\""));
    assert!(holds(&f, "highest", "series = \"fcfs\""));
    assert!(holds(&f, "below", "a = \"oo\"\nb = \"fcfs\""));
    assert!(
        !holds(&f, "below", "a = \"oo\"\nb = \"fcfs\"\nstrict = 1"),
        "equal at x=1"
    );
    assert!(holds(
        &f,
        "below",
        "a = \"oo\"\nb = \"fcfs\"\nstrict = 1\nat = \"last\""
    ));
    assert!(holds(&f, "below", "a = \"fcfs\"\nb = \"oo\"\nat = 1"));
    assert!(holds(
        &f,
        "within",
        "a = \"oo\"\nb = \"fcfs\"\ntolerance = 0.01\nat = 1"
    ));
    assert!(!holds(
        &f,
        "within",
        "a = \"oo\"\nb = \"fcfs\"\ntolerance = 0.5"
    ));
    assert!(holds(
        &f,
        "within",
        "a = \"oo\"\nb = \"fcfs\"\ntolerance = 60\nabsolute = 1"
    ));
}

#[test]
fn shapes_saturation_and_order_are_read_off_the_curves() {
    let f = fig(&[("fcfs", FCFS), ("oo", OO), ("window:K", WK)]);
    assert!(holds(&f, "saturates_first", "series = \"fcfs\""));
    assert!(!holds(&f, "saturates_first", "series = \"oo\""));
    assert!(holds(&f, "grows_with_x", "series = \"fcfs\""));
    assert!(!holds(&f, "falls_with_x", "series = \"fcfs\""));
    assert!(holds(&f, "interior_minimum", "series = \"window:K\""));
    assert!(!holds(&f, "interior_minimum", "series = \"oo\""));
    assert!(holds(
        &f,
        "order_at_top",
        "order = [\"window:K\", \"oo\", \"fcfs\"]"
    ));
    assert!(!holds(&f, "order_at_top", "order = [\"fcfs\", \"oo\"]"));
    // A curve that stopped early saturated at its last point.
    let g = fig(&[
        ("a", &[(1.0, 1.0), (2.0, 2.0)]),
        ("b", &[(1.0, 1.0), (2.0, 1.0), (3.0, 1.0)]),
    ]);
    assert_eq!(saturation(&g, "a", 5.0), 2.0);
    assert_eq!(saturation(&g, "b", 5.0), f64::INFINITY);
}

#[test]
fn saturation_order_between_groups_and_extremes_over_x() {
    let f = fig(&[("fcfs", FCFS), ("oo", OO), ("window:K", WK)]);
    // fcfs saturates at 3, oo never, window:K (first value 50) never.
    let before = "a = [\"fcfs\"]\nb = [\"oo\", \"window:K\"]\nstrict = 1";
    assert!(holds(&f, "saturates_before", before));
    assert!(!holds(
        &f,
        "saturates_before",
        "a = [\"oo\"]\nb = [\"fcfs\"]"
    ));
    // Maxima: fcfs 100, oo 40, window:K 50; minima: 10, 10, 20.
    assert!(holds(&f, "lowest", "series = \"oo\"\nover = \"max\""));
    assert!(holds(&f, "highest", "series = \"fcfs\"\nover = \"max\""));
    assert!(holds(
        &f,
        "highest",
        "series = \"window:K\"\nover = \"min\""
    ));
    let p = lookup("lowest").unwrap();
    let e = p
        .check(&table("series = \"oo\"\nover = \"mean\""), &["oo"])
        .unwrap_err();
    assert!(e.contains("`over` is `max` or `min`"), "{e}");
    // `at`: OO is the lowest at x = 1 (a tie with FCFS), window:K only at the last x.
    assert!(holds(&f, "lowest", "series = \"oo\"\nat = 1"));
    assert!(!holds(&f, "lowest", "series = \"window:K\"\nat = 2"));
    assert!(holds(&f, "lowest", "series = \"window:K\"\nat = \"last\""));
    assert!(!holds(&f, "lowest", "series = \"window:K\""));
}

#[test]
fn bad_parameters_name_the_predicate_and_its_parameters() {
    let p = lookup("below").unwrap();
    let e = p.check(&table("a = \"oo\""), &["oo", "fcfs"]).unwrap_err();
    assert!(e.contains("needs `b`") && e.contains("tolerance"), "{e}");
    let e = p
        .check(&table("a = \"oo\"\nb = \"ff\""), &["oo", "fcfs"])
        .unwrap_err();
    assert!(e.contains("no series `ff`") && e.contains("fcfs"), "{e}");
    let e = p
        .check(
            &table("a = \"oo\"\nb = \"fcfs\"\ncolour = 1"),
            &["oo", "fcfs"],
        )
        .unwrap_err();
    assert!(e.contains("no parameter `colour`"), "{e}");
    assert!(lookup("best").unwrap_err().contains("interior_minimum"));
}
