//! Numbers for people, in the tables of `run` and `stats` and of `report.md` and `index.html`:
//! durations with units (`23.6 d`, `4 h 12 min`, `42.35 s`), counts with thousands separators
//! (`18,441`), other reals to four significant digits (`0.8123`, `12,345`, `4.171e12`). A
//! synthetic model's times are in its own units ([`TimeUnit::Model`]): four significant digits,
//! the unit named in the column or after the number. JSON, CSV and Parquet keep exact values.

pub use pwa_replay::trace::TimeUnit;

use super::metrics::{self, MetricValue};

/// A count with thousands separators: `18441` → `18,441`.
pub fn count(n: u64) -> String {
    group(&n.to_string())
}

/// A real number to four significant digits; integers from 1,000 to 999,999 in full with
/// separators, scientific notation beyond and below 0.001; `inf`, `-inf`, `NaN` as such.
pub fn real(x: f64) -> String {
    sig(x, 4)
}

/// A duration in seconds with its unit: `350 ms`, `42.35 s`, `12 min 5 s`, `4 h 12 min`,
/// `23.6 d`, `1,236 d`.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() {
        return real(secs);
    }
    if secs < 0.0 {
        return format!("-{}", duration(-secs));
    }
    if secs == 0.0 {
        return "0 s".to_string();
    }
    if secs < 1e-3 {
        return format!("{} µs", sig(secs * 1e6, 4));
    }
    if secs < 1.0 {
        return format!("{} ms", sig(secs * 1e3, 4));
    }
    if secs < 59.995 {
        return format!("{} s", sig(secs, 4));
    }
    let whole = secs.round() as u64;
    if whole < 3600 {
        return pair(whole / 60, "min", whole % 60, "s");
    }
    let minutes = (secs / 60.0).round() as u64;
    if minutes < 24 * 60 {
        return pair(minutes / 60, "h", minutes % 60, "min");
    }
    format!("{} d", sig(secs / 86_400.0, 3))
}

/// A time of a workload measured in `unit`: a [`duration`] in seconds, four significant digits in
/// a model's time units (the caller names the unit).
pub fn time(x: f64, unit: TimeUnit) -> String {
    match unit {
        TimeUnit::Seconds => duration(x),
        TimeUnit::Model => real(x),
    }
}

/// How a column of times in `unit` is headed: `mean wait` in seconds (the values carry their
/// units), `mean wait (time units)` in a model's.
pub fn time_column(name: &str, unit: TimeUnit) -> String {
    match unit {
        TimeUnit::Seconds => name.to_string(),
        TimeUnit::Model => format!("{name} (time units)"),
    }
}

/// A size in bytes with a decimal unit: `812 B`, `1.23 MB`.
pub fn bytes(n: u64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"];
    let mut x = n as f64;
    let mut unit = 0;
    while x >= 999.5 && unit + 1 < units.len() {
        x /= 1000.0;
        unit += 1;
    }
    format!("{} {}", sig(x, 3), units[unit])
}

/// The columns measured on the host's clock, in seconds whatever the workload's unit.
const WALL_CLOCK: [&str; 2] = ["alloc_time_s", "sim_wall_s"];

/// A metric for a human: durations with units (a model's times as `1.025 time units`, `unit` being
/// the workload's), counts with separators, other reals to four significant digits.
pub fn metric(name: &str, v: MetricValue, unit: TimeUnit) -> String {
    match v {
        MetricValue::Count(n) => count(n),
        MetricValue::Real(x) if metrics::is_duration(name) => {
            match (unit, WALL_CLOCK.contains(&name)) {
                (TimeUnit::Model, false) => format!("{} time units", real(x)),
                _ => duration(x),
            }
        }
        MetricValue::Real(x) => real(x),
    }
}

/// `4 h 12 min`, or `4 h` when the second part is 0.
fn pair(a: u64, ua: &str, b: u64, ub: &str) -> String {
    if b == 0 {
        format!("{a} {ua}")
    } else {
        format!("{a} {ua} {b} {ub}")
    }
}

/// `x` to `digits` significant digits, trailing zeros trimmed; integer parts of 4 to 6 digits in
/// full with separators; scientific notation from 10⁶ and below 10⁻³.
fn sig(x: f64, digits: i32) -> String {
    if !x.is_finite() {
        return x.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let a = x.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{:.*e}", (digits - 1) as usize, x);
    }
    let decimals = (digits - 1 - a.log10().floor() as i32).max(0) as usize;
    let text = format!("{x:.decimals$}");
    let rounded: f64 = text.parse().unwrap_or(x);
    if rounded.abs() >= 1000.0 {
        if rounded.abs() >= 1e6 {
            return format!("{:.*e}", (digits - 1) as usize, x);
        }
        let int = format!("{:.0}", rounded.abs());
        let sign = if x < 0.0 { "-" } else { "" };
        return format!("{sign}{}", group(&int));
    }
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// Commas every three digits of a string of digits.
fn group(digits: &str) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_grouped_by_thousands() {
        let cases = [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (18_441, "18,441"),
            (1_234_567, "1,234,567"),
        ];
        for (n, s) in cases {
            assert_eq!(count(n), s);
        }
    }

    #[test]
    fn reals_keep_four_significant_digits() {
        let cases = [
            (0.0, "0"),
            (0.812_345, "0.8123"),
            (1.5, "1.5"),
            (2.0, "2"),
            (812.345, "812.3"),
            (999.96, "1,000"),
            (12_345.678, "12,346"),
            (-12_345.0, "-12,345"),
            (4_171_234_567_890.0, "4.171e12"),
            (0.000_123_44, "1.234e-4"),
            (f64::INFINITY, "inf"),
        ];
        for (x, s) in cases {
            assert_eq!(real(x), s, "{x}");
        }
    }

    #[test]
    fn durations_have_units() {
        let cases = [
            (0.0, "0 s"),
            (0.000_5, "500 µs"),
            (0.35, "350 ms"),
            (42.346, "42.35 s"),
            (59.999, "1 min"),
            (725.0, "12 min 5 s"),
            (3599.6, "1 h"),
            (4.0 * 3600.0 + 12.0 * 60.0 + 10.0, "4 h 12 min"),
            (86_399.0, "1 d"),
            (2_042_241.338_991_011_3, "23.6 d"),
            (1236.4 * 86_400.0, "1,236 d"),
            (-90.0, "-1 min 30 s"),
            (f64::INFINITY, "inf"),
        ];
        for (x, s) in cases {
            assert_eq!(duration(x), s, "{x}");
        }
    }

    #[test]
    fn bytes_have_decimal_units() {
        let cases = [
            (0, "0 B"),
            (812, "812 B"),
            (999_600, "1 MB"),
            (1_234_567, "1.23 MB"),
            (5_300_000_000, "5.3 GB"),
        ];
        for (n, s) in cases {
            assert_eq!(bytes(n), s, "{n}");
        }
    }

    #[test]
    fn metrics_are_shown_by_kind() {
        let s = TimeUnit::Seconds;
        assert_eq!(metric("jobs", MetricValue::Count(18_441), s), "18,441");
        assert_eq!(
            metric("mean_turnaround_s", MetricValue::Real(2_042_241.3), s),
            "23.6 d"
        );
        assert_eq!(
            metric("throughput_per_s", MetricValue::Real(0.001_234_4), s),
            "0.001234"
        );
        assert_eq!(metric("utilization", MetricValue::Real(0.5), s), "0.5");
        let model = |name, x| metric(name, MetricValue::Real(x), TimeUnit::Model);
        assert_eq!(model("mean_turnaround_s", 1.025_25), "1.025 time units");
        assert_eq!(model("utilization", 0.5), "0.5");
        assert_eq!(model("sim_wall_s", 0.35), "350 ms", "the host's clock");
        assert_eq!(time(2_042_241.3, TimeUnit::Seconds), "23.6 d");
        assert_eq!(time(68.511_61, TimeUnit::Model), "68.51");
        assert_eq!(
            time_column("mean wait", TimeUnit::Model),
            "mean wait (time units)"
        );
    }
}
