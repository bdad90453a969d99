//! `index.html` and `viewer.html` in headless Chromium (tests/cli/browser.rs), opened from disk
//! with no network: the DOM after the scripts ran (every policy in every chart, sortable tables,
//! fragment-driven log axes and hidden series, the viewer's slider moving its cursor and changing
//! the machine), screenshots that are not blank, and page sizes.

use std::path::Path;

use crate::browser::{dom, drive, rgb, screenshot, url};
use crate::support::{bin, experiment, ok, swf_line, write};

const SCHEDS: [&str; 3] = ["fcfs", "oo", "window:4"];
const CHARTS: [&str; 5] = [
    "turnaround",
    "max_wait",
    "mean_wait",
    "utilization",
    "fragmentation",
];

/// A small shaken sweep of a synthetic mesh workload (bands in every chart) into `out`.
fn sweep(out: &Path) {
    ok(bin().args([
        "sweep",
        "--trace",
        "synth:uniform,mesh=8x8,jobs=300,rate=2",
        "--sched",
        &SCHEDS.join(","),
        "--alloc",
        "ff",
        "--loads",
        "0.5,1,1.5",
        "--shake",
        "2",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]));
}

/// Occurrences of `needle` in `hay`.
fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn index_page_shows_every_policy_in_every_chart_offline() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    sweep(&out);
    let page = out.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("https://") && !html.contains(" src="),
        "nothing to fetch"
    );
    assert!(html.len() < 200_000, "{} bytes", html.len());

    let d = dom(&url(&page, ""), tmp.path());
    assert_eq!(count(&d, "<figure class=\"chart\""), CHARTS.len(), "{d}");
    for id in CHARTS {
        assert!(d.contains(&format!("data-chart=\"{id}\"")), "{id}");
        assert!(d.contains(&format!("href=\"{id}.png\"")), "{id}: PNG link");
    }
    for s in SCHEDS {
        let label = format!("{s} + ff");
        let line = format!("class=\"line\" data-series=\"{label}\"");
        assert_eq!(count(&d, &line), CHARTS.len(), "{label}: a line per chart");
        let legend = format!("<button type=\"button\" data-series=\"{label}\"");
        assert_eq!(
            count(&d, &legend),
            CHARTS.len(),
            "{label}: a legend entry per chart"
        );
        assert!(
            d.contains(&format!("<td>{label}</td>")),
            "{label}: in the tables"
        );
    }
    assert!(count(&d, "class=\"band\"") >= CHARTS.len(), "95% bands");
    assert!(
        d.contains("<th scope=\"col\" aria-sort=\"none\""),
        "sortable tables"
    );
    assert!(d.contains("Knee per policy") && d.contains("Confidence"));
    for f in ["report.md", "summary.csv", "manifest.json"] {
        assert!(
            d.contains(&format!("<a href=\"{f}\">{f}</a>")),
            "a link to {f}"
        );
    }

    // The fragment switches every axis to log and hides FCFS, as the controls do.
    let d = dom(&url(&page, "#log=all&hide=fcfs%20%2B%20ff"), tmp.path());
    assert!(!d.contains("data-scale=\"linear\""), "every y axis log");
    assert!(
        !d.contains("class=\"line\" data-series=\"fcfs + ff\""),
        "FCFS hidden"
    );
    assert_eq!(
        count(&d, "class=\"off\""),
        CHARTS.len(),
        "its legend entries off"
    );

    let shot = screenshot(
        &url(&page, ""),
        &tmp.path().join("index.png"),
        (1280, 2600),
        tmp.path(),
    );
    assert!(
        shot.inked() > 50_000,
        "blank page: {} inked pixels",
        shot.inked()
    );
    let fcfs_red = rgb("#d62728");
    assert!(
        shot.count_near(fcfs_red) > 200,
        "FCFS's red lines are drawn"
    );
}

/// `draw` of a synthetic 8×8 mesh workload over a window, into `out`.
fn draw(out: &Path, machine: &str) {
    ok(bin().args([
        "draw",
        "--trace",
        "synth:uniform,mesh=8x8,jobs=300,rate=2",
        "--machine",
        machine,
        "--sched",
        "fcfs",
        "--alloc",
        if machine.starts_with("flat") {
            "flat"
        } else {
            "ff"
        },
        "--load-factor",
        "1.5",
        "--window",
        "20:120",
        "--out",
        out.to_str().unwrap(),
    ]));
}

/// The value of attribute `name` of the first element with class `class` in `dom`.
fn attr<'a>(dom: &'a str, class: &str, name: &str) -> &'a str {
    let at = dom
        .find(&format!("class=\"{class}\""))
        .unwrap_or_else(|| panic!("no .{class}"));
    let tag_start = dom[..at].rfind('<').unwrap();
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').unwrap()];
    let key = format!(" {name}=\"");
    let v = &tag[tag
        .find(&key)
        .unwrap_or_else(|| panic!("{class} has no {name}: {tag}"))
        + key.len()..];
    &v[..v.find('"').unwrap()]
}

/// The fill of every node cell, in node order.
fn fills(dom: &str) -> Vec<&str> {
    dom.split("class=\"node\"")
        .skip(1)
        .map(|s| {
            let v = &s[s.find("fill=\"").expect("fill") + 6..];
            &v[..v.find('"').unwrap()]
        })
        .collect()
}

#[test]
fn viewer_slider_moves_the_cursor_and_changes_the_machine() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("draw");
    draw(&out, "mesh:8x8");
    let page = out.join("viewer.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("https://") && !html.contains(" src="),
        "nothing to fetch"
    );

    let early = dom(&url(&page, "#t=30"), tmp.path());
    let late = dom(&url(&page, "#t=90"), tmp.path());
    for d in [&early, &late] {
        assert!(d.contains("<input type=\"range\""), "a slider");
        assert!(d.contains("class=\"play\""), "a play button");
        assert_eq!(fills(d).len(), 64, "a cell per node");
        assert!(d.contains("Waiting queue ("), "the queue");
        assert!(d.contains("class=\"why\""), "why the head waits");
        for id in ["shares", "queue", "regions"] {
            assert!(d.contains(&format!("data-chart=\"{id}\"")), "{id} chart");
        }
    }
    let t = |d: &str| attr(d, "nodes", "data-t").parse::<f64>().unwrap();
    assert!(t(&early) <= 30.0 && t(&late) <= 90.0 && t(&late) > t(&early));
    assert_ne!(
        attr(&early, "cursor", "x1"),
        attr(&late, "cursor", "x1"),
        "the cursor follows the slider"
    );
    assert_ne!(fills(&early), fills(&late), "the machine changes");
    assert_ne!(
        attr(&early, "nodes", "data-busy"),
        "0",
        "jobs run at t = 30"
    );

    let shot = screenshot(
        &url(&page, "#t=60"),
        &tmp.path().join("viewer.png"),
        (1280, 1400),
        tmp.path(),
    );
    assert!(
        shot.inked() > 40_000,
        "blank page: {} inked pixels",
        shot.inked()
    );
}

#[test]
fn viewer_draws_a_flat_bar_a_hypercube_grid_and_torus_slices() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("draw");
    draw(&out, "flat:64");
    let d = dom(&url(&out.join("viewer.html"), "#t=60"), tmp.path());
    assert_eq!(fills(&d).len(), 64);
    assert!(d.contains("data-machine=\"flat:64\""));
    assert!(
        !d.contains("data-chart=\"regions\""),
        "free regions are a 2D mesh measure"
    );
    assert!(
        fills(&d).iter().any(|f| *f != "#ffffff"),
        "busy slots are coloured"
    );

    let cube = tmp.path().join("cube");
    ok(bin().args([
        "draw",
        "--trace",
        "synth:hypercube,dim=5,size=normal,demand=hyperexp,load=0.5,window=2000",
        "--sched",
        "lazy",
        "--alloc",
        "buddy",
        "--window",
        "100:1500",
        "--out",
        cube.to_str().unwrap(),
    ]));
    let d = dom(&url(&cube.join("viewer.html"), "#t=800"), tmp.path());
    assert_eq!(fills(&d).len(), 32, "a cell per node of the 5-cube");
    assert!(d.contains("data-machine=\"hypercube:5\""));
    assert!(
        fills(&d).iter().any(|f| *f != "#ffffff"),
        "busy nodes are coloured"
    );

    // A 3-D torus as its two 4×2 slices: 4, then 8 nodes busy at t = 15.
    let swf = String::from("; Version: 2.2\n")
        + &swf_line(1, 0, 100, 4, 1)
        + &swf_line(2, 10, 40, 8, 1)
        + &swf_line(3, 20, 10, 16, 1);
    let trace = write(tmp.path(), "three.swf", &swf);
    let torus = tmp.path().join("torus");
    ok(bin()
        .args(["draw", "--trace", trace.to_str().unwrap()])
        .args([
            "--machine",
            "torus:4x2x2",
            "--sched",
            "fcfs",
            "--alloc",
            "ff",
            "--out",
            torus.to_str().unwrap(),
        ]));
    let d = dom(&url(&torus.join("viewer.html"), "#t=15"), tmp.path());
    assert_eq!(fills(&d).len(), 16);
    assert_eq!(
        attr(&d, "nodes", "data-busy"),
        "12",
        "jobs 1 and 2 run at t = 15"
    );
}

/// What a reader does with the index page, through its own event handlers: hover a point, hide a
/// series from the legend, tick `log y`, sort a table.
#[test]
fn index_page_answers_hover_legend_log_and_sort() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    sweep(&out);
    let lines = drive(
        &out.join("index.html"),
        r#"
        const fig = (id) => d.querySelector(`figure[data-chart="${id}"]`);
        const out = [];
        const t = fig('turnaround'), svg = t.querySelector('svg');
        const line = svg.querySelector('path.line[data-series="fcfs + ff"]');
        const [x, y] = line.getAttribute('d').slice(1).split(/[L,]/).map(Number);
        const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
        svg.dispatchEvent(new MouseEvent('mousemove', { clientX: p.x, clientY: p.y, bubbles: true }));
        const tip = t.querySelector('.tip');
        out.push('tip ' + (tip.hidden ? 'hidden' : 'shown') + ': ' + [...tip.children].map((e) => e.textContent).join(' / '));
        t.querySelector('.legend button[data-series="fcfs + ff"]').click();
        out.push('fcfs lines after click: ' + svg.querySelectorAll('path.line[data-series="fcfs + ff"]').length);
        const all = t.querySelectorAll('.all-none button');
        all[1].click();
        const none = svg.querySelectorAll('path.line').length;
        all[0].click();
        out.push('lines after hide all, show all: ' + none + ', ' + svg.querySelectorAll('path.line').length);
        const filter = fig('mean_wait').querySelector('.legend input[type=search]');
        filter.value = 'window';
        filter.dispatchEvent(new Event('input'));
        const shown = [...fig('mean_wait').querySelectorAll('path.line')].map((e) => e.dataset.series);
        out.push('filter window: ' + shown.join(', '));
        const u = fig('utilization');
        const before = u.querySelector('svg').dataset.scale;
        u.querySelector('input.log-y').click();
        out.push('utilization scale: ' + before + ' -> ' + u.querySelector('svg').dataset.scale);
        const table = d.querySelector('table.sortable');
        const th = table.querySelectorAll('th')[3];
        th.click(); th.click();
        const col = [...table.querySelectorAll('tbody tr')].map((r) => parseFloat(r.children[3].textContent.replace(/,/g, '')));
        out.push('sorted ' + th.getAttribute('aria-sort') + ': ' + col.join(' '));
        return out;
        "#,
        tmp.path(),
    );
    let tip = &lines[0];
    assert!(tip.starts_with("tip shown: fcfs + ff"), "{lines:?}");
    for part in [
        "scheduler: fcfs",
        "allocator: ff",
        "Load factor: 0.5",
        "95% interval: ",
    ] {
        assert!(tip.contains(part), "{part}: {tip}");
    }
    assert_eq!(lines[1], "fcfs lines after click: 0");
    assert_eq!(lines[2], "lines after hide all, show all: 0, 3");
    assert_eq!(lines[3], "filter window: window:4 + ff");
    assert_eq!(lines[4], "utilization scale: linear -> log");
    let sorted: Vec<f64> = lines[5]
        .trim_start_matches("sorted descending: ")
        .split(' ')
        .map(|v| v.parse().unwrap())
        .collect();
    assert!(lines[5].starts_with("sorted descending: "), "{lines:?}");
    assert!(sorted.windows(2).all(|w| w[0] >= w[1]), "{sorted:?}");
}

/// The viewer through its own handlers: hovering a busy node shows its job's card; play moves the
/// slider on.
#[test]
fn viewer_answers_hover_and_play() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("draw");
    draw(&out, "mesh:8x8");
    let lines = drive(
        &out.join("viewer.html"),
        r#"
        const out = [];
        const slider = d.querySelector('input[type=range]');
        slider.value = 10;
        slider.dispatchEvent(new Event('input'));
        const busy = [...d.querySelectorAll('rect.node')].find((r) => Number(r.dataset.job) >= 0);
        busy.dispatchEvent(new MouseEvent('mousemove', at(busy)));
        const card = d.querySelector('.card');
        out.push('card ' + (card.hidden ? 'hidden' : 'shown') + ': ' + [...card.children].map((e) => e.textContent).join(' / '));
        const own = [...d.querySelectorAll('rect.node')].filter((r) => r.dataset.job === busy.dataset.job);
        out.push('outlined ' + d.querySelectorAll('rect.node.hl').length + ' of its ' + own.length + ' cells');
        const t0 = Number(d.querySelector('svg.nodes').dataset.t);
        d.querySelector('button.play').click();
        await sleep(1000);
        out.push('slider ' + slider.value + ', t ' + t0 + ' -> ' + d.querySelector('svg.nodes').dataset.t);
        const shares = d.querySelector('figure[data-chart="shares"]');
        shares.querySelectorAll('.legend button').forEach((b) => b.click());
        out.push('all hidden: cursor at ' + shares.querySelector('line.cursor').getAttribute('x1'));
        return out;
        "#,
        tmp.path(),
    );
    let card = &lines[0];
    assert!(card.starts_with("card shown: job "), "{lines:?}");
    for part in [
        "asks: ",
        "granted: ",
        "submit: ",
        "start: ",
        "end: ",
        "wait: ",
    ] {
        assert!(card.contains(part), "{part}: {card}");
    }
    let outlined: Vec<&str> = lines[1].split(' ').collect();
    assert_eq!(
        outlined[1], outlined[4],
        "every cell of the hovered job is outlined: {lines:?}"
    );
    assert_ne!(outlined[1], "0", "{lines:?}");
    let words: Vec<&str> = lines[2]
        .split([' ', ','])
        .filter(|w| !w.is_empty())
        .collect();
    // slider K t T0 -> T1
    let (k, t0, t1): (u32, f64, f64) = (
        words[1].parse().unwrap(),
        words[3].parse().unwrap(),
        words[5].parse().unwrap(),
    );
    assert!(k > 10 && t1 > t0, "play moved nothing: {lines:?}");
    let x: f64 = lines[3]
        .trim_start_matches("all hidden: cursor at ")
        .parse()
        .unwrap();
    assert!(
        x.is_finite() && x > 0.0,
        "the time axis survives hiding every series: {lines:?}"
    );
}

/// An experiment's `index.html`: every figure a chart with both series and their 95% bands, the
/// claims table, PNG links, nothing fetched, not blank.
#[test]
fn experiment_page_shows_every_figure_series_and_claim() {
    let tmp = tempfile::tempdir().unwrap();
    let out = experiment(
        tmp.path(),
        r#"
title = "A page study"
[defaults]
replicate = { count = 3 }
[[panel]]
name = "rate"
workload = "synth:uniform,mesh=16x16,jobs=600,rate={x}"
sched = ["fcfs", "oo"]
alloc = ["ff"]
x = { name = "rate", values = [0.5, 1, 1.5] }
[[figure]]
name = "turnaround"
panel = "rate"
y = "mean_turnaround_s"
[[figure]]
name = "wait"
panel = "rate"
y = "max_wait_s"
[[claim]]
figure = "turnaround"
statement = "OO is never worse than FCFS."
predicate = "below"
a = "oo+ff"
b = "fcfs+ff"
"#,
        "out",
        &[],
    );
    let page = out.join("index.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        !html.contains("https://") && !html.contains(" src="),
        "nothing to fetch"
    );
    let d = dom(&url(&page, ""), tmp.path());
    for id in ["turnaround", "wait"] {
        assert!(d.contains(&format!("data-chart=\"{id}\"")), "{id}");
        assert!(d.contains(&format!("href=\"{id}.png\"")), "{id}: PNG link");
    }
    for s in ["fcfs+ff", "oo+ff"] {
        let line = format!("class=\"line\" data-series=\"{s}\"");
        assert_eq!(count(&d, &line), 2, "{s}: a line per chart");
        let band = format!("class=\"band\" data-series=\"{s}\"");
        assert_eq!(count(&d, &band), 2, "{s}: a 95% band per chart");
    }
    assert!(d.contains("OO is never worse than FCFS.") && d.contains("Claims: 1 of 1 hold"));
    let shot = screenshot(
        &url(&page, ""),
        &tmp.path().join("index.png"),
        (1280, 1600),
        tmp.path(),
    );
    assert!(
        shot.inked() > 20_000,
        "blank page: {} inked pixels",
        shot.inked()
    );
}

/// The scale a chart's SVG opened with (`data-scale` after `data-chart="id"`).
fn opening_scale<'a>(dom: &'a str, id: &str) -> &'a str {
    let at = dom
        .find(&format!("data-chart=\"{id}\""))
        .unwrap_or_else(|| panic!("no chart {id}"));
    let rest = &dom[at..];
    let v = &rest[rest.find("data-scale=\"").expect("a scale") + 12..];
    &v[..v.find('"').unwrap()]
}

/// An experiment figure whose values span more than a hundredfold is a log-scale PNG; its chart in
/// index.html opens on the same scale (a linear chart would flatten OO into zero under FCFS).
#[test]
fn an_experiment_chart_opens_with_its_pngs_scale() {
    let tmp = tempfile::tempdir().unwrap();
    let out = experiment(
        tmp.path(),
        r#"title = "Synthetic saturation"

[[panel]]
name = "mesh"
workload = "synth:uniform,mesh=16x16,jobs=400,rate=1"
sched = ["fcfs", "oo"]
alloc = ["ff"]
x = { values = [0.5, 2, 8], label = "load factor" }

[[figure]]
name = "wait"
panel = "mesh"
y = "mean_wait_s"

[[figure]]
name = "util"
panel = "mesh"
y = "utilization"
"#,
        "out",
        &[],
    );
    let waits: Vec<f64> = std::fs::read_to_string(out.join("wait.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(2).unwrap().parse().unwrap())
        .collect();
    let (lo, hi) = waits
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(l, h), &w| (l.min(w), h.max(w)));
    assert!(
        hi / lo > 100.0,
        "the waits span {lo}…{hi}: not a log figure"
    );
    let d = dom(&url(&out.join("index.html"), ""), tmp.path());
    assert_eq!(opening_scale(&d, "wait"), "log");
    assert_eq!(opening_scale(&d, "util"), "linear");
}

/// The report's tables round times into units (`1 h 2 min`, `2.3 d`); sorting a column orders the
/// rows by the exact values behind them, not by the digits shown.
#[test]
fn a_rounded_column_sorts_by_its_exact_values() {
    let tmp = tempfile::tempdir().unwrap();
    // On 4 nodes: job 2 (4 nodes, ~2.9 d) waits for job 1 (3 nodes); FCFS holds job 3 (1 node)
    // behind it, OO starts it at once. Mean turnaround: FCFS 1.93 d, OO 23 h 11 min — by the
    // digits shown FCFS would sort first, by value OO does.
    let mut log = String::from("; MaxNodes: 4\n");
    log += &swf_line(1, 0, 200, 3, 1);
    log += &swf_line(2, 20, 250_000, 4, 1);
    log += &swf_line(3, 40, 60, 1, 1);
    let trace = write(tmp.path(), "units.swf", &log);
    let out = tmp.path().join("out");
    ok(bin()
        .args(["sweep", "--trace"])
        .arg(&trace)
        .args([
            "--sched",
            "fcfs,oo",
            "--alloc",
            "flat",
            "--estimate",
            "exact",
        ])
        .args(["--loads", "0.5,1"])
        .args(["--quiet", "--out"])
        .arg(&out));
    let lines = drive(
        &out.join("index.html"),
        r#"
        const table = [...d.querySelectorAll('table.sortable')]
            .find((t) => t.querySelector('th').textContent === 'policy' && t.querySelectorAll('th').length === 7);
        const th = table.querySelectorAll('th')[1];
        th.click();
        return [...table.querySelectorAll('tbody tr')].map((r) => r.children[0].textContent + ': ' + r.children[1].textContent);
        "#,
        tmp.path(),
    );
    let csv = crate::support::csv_rows(&out.join("summary.csv"));
    let exact = |series: &str| -> f64 {
        let (s, _) = series.split_once(" + ").unwrap();
        csv.iter()
            .find(|r| r["scheduler"] == s && r["load_factor"] == "1.0")
            .unwrap()["mean_turnaround_s"]
            .parse()
            .unwrap()
    };
    let order: Vec<f64> = lines
        .iter()
        .map(|l| exact(l.split(": ").next().unwrap()))
        .collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("oo + flat: "), "{lines:?}");
    assert!(
        order.windows(2).all(|w| w[0] <= w[1]),
        "{lines:?} {order:?}"
    );
    assert!(
        lines.iter().all(|l| l.ends_with(" s")
            || l.ends_with(" min")
            || l.ends_with(" h")
            || l.ends_with(" d")),
        "times with units: {lines:?}"
    );
}
