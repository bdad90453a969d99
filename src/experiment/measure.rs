//! Named measures: what a figure plots and a claim reads, one number per run.
//!
//! Every [`RunMetrics`] column is a measure under its column name
//! (docs/OUTPUTS.md), with its unit and meaning from the engine's one table
//! ([`crate::engine::columns`]); reports take axis labels from it. A measure that needs
//! more than a run's summary is an *observed* measure, registered once in
//! [`crate::engine::observation::OBSERVED`] (the §4.2 observation window's `M`, `U`, `X`, the
//! completion time and last arrival of a job set, gang classes, suspensions, decile waits): a cell
//! whose figures or rules use one computes them for every replica ([`observed`], kept in
//! [`RunMetrics::observed`]).
//! `decile_wait` is indexed by the point's x (the decile), so one cell draws a whole curve.

use crate::SimTime;
use crate::coschedule;
use crate::engine::columns::{COLUMNS, Value};
use crate::engine::observation::{self, DECILES, OBSERVED, Observed};
use crate::engine::{Outcome, RunMetrics};
use crate::sched::GangLog;
use crate::workload::Workload;

/// A named measure: one number per run.
#[derive(Debug, Clone, Copy)]
pub struct Measure {
    /// Name in experiment files.
    pub name: &'static str,
    /// Unit for axis labels.
    pub unit: &'static str,
    /// What it means, in a few words.
    pub meaning: &'static str,
    /// An observed measure (computed from the replay when a cell asks), not a summary column.
    pub observed: bool,
    get: Get,
}

#[derive(Debug, Clone, Copy)]
enum Get {
    Column(fn(&RunMetrics) -> Value),
    Observed(fn(&Observed) -> Value),
    /// Indexed by the point's x (`decile_wait`: decile x).
    ByX(fn(&Observed, f64) -> f64),
}

impl PartialEq for Measure {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Measure {
    /// Its value in a run (NaN for a measure indexed by x: [`Measure::at`]).
    pub fn of(&self, m: &RunMetrics) -> f64 {
        self.at(m, f64::NAN)
    }

    /// Its value in a run at the point `x` (only a measure indexed by x reads it).
    pub fn at(&self, m: &RunMetrics, x: f64) -> f64 {
        match self.get {
            Get::Column(get) => get(m).as_f64(),
            Get::Observed(get) => get(&m.observed).as_f64(),
            Get::ByX(get) => get(&m.observed, x),
        }
    }

    /// Indexed by the point's x: a figure's y only (not a replication, stop or `divide_by`
    /// measure).
    pub fn by_x(&self) -> bool {
        matches!(self.get, Get::ByX(_))
    }

    /// `mean turnaround (s)`: the meaning with the unit, for an axis.
    pub fn axis_label(&self) -> String {
        if self.unit.is_empty() {
            self.meaning.to_string()
        } else {
            format!("{} ({})", self.meaning, self.unit)
        }
    }
}

/// Every measure: the summary columns, then the observed measures.
pub static MEASURES: std::sync::LazyLock<Vec<Measure>> = std::sync::LazyLock::new(|| {
    let columns = COLUMNS.iter().map(|c| Measure {
        name: c.name,
        unit: c.unit,
        meaning: c.meaning,
        observed: false,
        get: Get::Column(c.get),
    });
    let observed = OBSERVED.iter().map(|c| Measure {
        name: c.name,
        unit: c.unit,
        meaning: c.meaning,
        observed: true,
        get: Get::Observed(c.get),
    });
    columns
        .chain(observed)
        .chain(BY_X.iter().copied())
        .collect()
});

/// The measures indexed by the point's x: the panel's x picks which value of a run is drawn (the
/// cells do not depend on x, so one cell gives the whole curve).
const BY_X: &[Measure] = &[Measure {
    name: "decile_wait",
    unit: "s",
    meaning: "mean waiting time (response − run time) of service-demand decile x",
    observed: true,
    get: Get::ByX(decile_wait),
}];

/// The mean wait of decile `x` (1 = the shortest tenth of the jobs; NaN off 1…10).
fn decile_wait(o: &Observed, x: f64) -> f64 {
    let d = x.round();
    if d == x && (1.0..=o.decile_wait.len() as f64).contains(&d) {
        o.decile_wait[d as usize - 1]
    } else {
        f64::NAN
    }
}

/// The observed measures of `out` (a replay of `w` on `nodes` nodes) over the window `[0, window]`;
/// without a window (a fixed job set), over `[0, completion time]`. `gang` is the class log of a
/// `gang` replay (none: no classes).
pub fn observed(
    w: &Workload,
    out: &Outcome,
    nodes: u32,
    window: Option<SimTime>,
    gang: Option<&GangLog>,
) -> Observed {
    let completion = observation::completion_time(out);
    let window = window.unwrap_or_else(|| completion.max(f64::MIN_POSITIVE));
    let o = observation::observe(w, out, nodes, window);
    let mut decile_wait = [0.0; DECILES];
    for (d, class) in decile_wait
        .iter_mut()
        .zip(coschedule::by_service_class(w, out, DECILES))
    {
        *d = class.mean_wait;
    }
    Observed {
        window_delay: o.mean_delay,
        window_utilization: o.utilization,
        window_throughput: o.throughput,
        completion_time: completion,
        last_arrival: w.jobs.last().map_or(0.0, |j| j.submit),
        gang_classes: gang.map_or(0.0, |g| g.mean_classes(completion)),
        suspensions_per_job: coschedule::suspensions(out) as f64 / w.jobs.len().max(1) as f64,
        decile_wait,
    }
}

/// The measure called `name`, or an error with the likeliest names meant and every name.
pub fn lookup(name: &str) -> Result<Measure, String> {
    if let Some(m) = MEASURES.iter().find(|m| m.name == name) {
        return Ok(*m);
    }
    let meant = did_you_mean(name);
    let hint = if meant.is_empty() {
        ";".to_string()
    } else {
        format!("; did you mean {}?", meant.join(", "))
    };
    Err(format!(
        "unknown measure `{name}`{hint} measures: {}",
        MEASURES
            .iter()
            .map(|m| m.name)
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// The measure called `name` where one number per run is needed (a replication, stop or
/// `divide_by` measure): a measure indexed by x is refused.
pub fn lookup_per_run(name: &str) -> Result<Measure, String> {
    let m = lookup(name)?;
    if m.by_x() {
        return Err(format!(
            "`{name}` is indexed by the point's x: a figure's `y` (or `also`) only"
        ));
    }
    Ok(m)
}

/// The measures whose name contains what was written (spaces as `_`) or is within two edits of
/// it, the closest first.
fn did_you_mean(name: &str) -> Vec<String> {
    let q = name.trim().to_lowercase().replace([' ', '-'], "_");
    let distance =
        |n: &str| strsim::levenshtein(&q, n).min(strsim::levenshtein(&q, n.trim_end_matches("_s")));
    let mut close: Vec<(bool, usize, &str)> = MEASURES
        .iter()
        .map(|m| {
            (
                !(q.len() >= 3 && m.name.contains(&q)),
                distance(m.name),
                m.name,
            )
        })
        .filter(|&(far, d, _)| !far || d <= 2)
        .collect();
    close.sort_unstable();
    close
        .into_iter()
        .map(|(_, _, n)| format!("`{n}`"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_measure_reads_its_own_field() {
        let m = RunMetrics {
            jobs: 7,
            mean_turnaround_s: 2.5,
            head_fragmentation: 0.25,
            ..RunMetrics::default()
        };
        assert_eq!(lookup("jobs").unwrap().of(&m), 7.0);
        assert_eq!(lookup("mean_turnaround_s").unwrap().of(&m), 2.5);
        assert_eq!(lookup("head_fragmentation").unwrap().of(&m), 0.25);
        assert_eq!(
            lookup("mean_turnaround_s").unwrap().axis_label(),
            "mean turnaround (s)"
        );
        let e = lookup("turnaround").unwrap_err();
        assert!(
            e.contains("did you mean `var_turnaround`, `mean_turnaround_s`?")
                && e.contains("utilization"),
            "{e}"
        );
        for (guess, meant) in [
            ("max_wait", "`max_wait_s`"),
            ("utilisation", "`utilization`"),
            ("slowdown", "`mean_bounded_slowdown`"),
            ("mean turnaround", "`mean_turnaround_s`"),
        ] {
            let e = lookup(guess).unwrap_err();
            let hint = e.split('?').next().unwrap_or_default();
            assert!(
                hint.contains("did you mean") && hint.contains(meant),
                "{guess}: {e}"
            );
        }
        let mut seen = RunMetrics::default();
        seen.observed.window_delay = 1.5;
        let m = lookup("window_delay").unwrap();
        assert!(m.observed && m.of(&seen) == 1.5);
        assert!(!lookup("jobs").unwrap().observed);
        seen.observed.decile_wait[0] = 0.5;
        seen.observed.decile_wait[9] = 4.0;
        let d = lookup("decile_wait").unwrap();
        assert!(d.observed && d.by_x() && !m.by_x());
        assert_eq!((d.at(&seen, 1.0), d.at(&seen, 10.0)), (0.5, 4.0));
        assert!(d.at(&seen, 0.0).is_nan() && d.at(&seen, 2.5).is_nan() && d.of(&seen).is_nan());
        assert_eq!(lookup("decile_wait_10").unwrap().of(&seen), 4.0);
        assert!(
            lookup_per_run("decile_wait")
                .unwrap_err()
                .contains("indexed by")
        );
        assert!(lookup_per_run("decile_wait_1").is_ok());
        let mut names: Vec<&str> = MEASURES.iter().map(|m| m.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), MEASURES.len());
    }

    /// The observed measures of three jobs on a 2-cube, worked by hand (the engine's
    /// [`observation`] tests count the same window).
    #[test]
    fn observed_measures_of_a_hand_worked_run() {
        let (w, out) = observation::tests::three_jobs_on_a_2_cube();
        let seen = observed(&w, &out, 4, Some(10.0), None);
        assert_eq!(
            (
                seen.window_delay,
                seen.window_utilization,
                seen.window_throughput
            ),
            (1.5, 0.8, 0.1)
        );
        assert_eq!((seen.completion_time, seen.last_arrival), (13.0, 11.0));
        // A job set: the window is [0, 13], every job allocated and completed in it.
        let set = observed(&w, &out, 4, None, None);
        assert_eq!(set.window_delay, 4.0 / 3.0);
        assert_eq!(set.window_throughput, 3.0 / 13.0);
        // Run times 4, 8, 1 with waits 0, 3, 1: one job per class, the shortest first.
        assert_eq!(set.decile_wait[..4], [1.0, 0.0, 3.0, 0.0]);
        assert_eq!((set.gang_classes, set.suspensions_per_job), (0.0, 0.0));
        // One class over [0, 4), two up to the completion at 13.
        let log = GangLog {
            classes: vec![(0.0, 1), (4.0, 2)],
            switches: 0,
        };
        let gang = observed(&w, &out, 4, None, Some(&log));
        assert_eq!(gang.gang_classes, 22.0 / 13.0);
    }
}
