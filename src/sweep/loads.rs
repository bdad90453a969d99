//! Load-factor specifications: `0.1:2.0:0.1`, `0.5,1,1.5`, `auto` and `auto:FROM:CAP:STEP[:MARGIN]`.
//!
//! Decimal numbers are read as integer thousandths and ranges are stepped in thousandths, so
//! `0.1:2.0:0.1` yields exactly the twenty `f64`s that `"0.1"`, `"0.2"`, … `"2.0"` parse to: no
//! accumulated floating-point drift (`0.1 + 0.1 + 0.1 != 0.3`).

use std::fmt;
use std::str::FromStr;

use super::knee::KneeRule;

/// Thousandths per unit: the resolution of load factors.
const MILLI: u32 = 1000;
/// Largest load factor accepted, in thousandths (a load factor of 1000 is already absurd).
const MAX_MILLI: u32 = 1_000_000;
/// Largest number of load factors one range may produce.
const MAX_POINTS: u32 = 10_000;

/// A load-factor specification that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoadSpecError {
    /// A number that is not a positive decimal with at most three decimals, at most 1000.
    #[error("load factor `{0}` is not a decimal in (0, 1000] with at most 3 decimals")]
    Number(String),
    /// A range whose end is below its start or whose step is zero or yields too many points.
    #[error("load range `{0}` must be FROM:TO:STEP with FROM ≤ TO, STEP > 0 and ≤ 10000 points")]
    Range(String),
    /// A range whose step is not a positive decimal (`0.1:2:0`).
    #[error(
        "load range `{range}`: the step `{step}` is not a decimal in (0, 1000] with at most 3 \
         decimals (FROM:TO:STEP, e.g. 0.1:2:0.1)"
    )]
    Step {
        /// The range as written.
        range: String,
        /// Its step.
        step: String,
    },
    /// An empty list.
    #[error("no load factors given")]
    Empty,
}

/// Which load factors a sweep visits.
#[derive(Debug, Clone, PartialEq)]
pub enum LoadSpec {
    /// These load factors, in the order given (duplicates removed, order kept).
    List(Vec<f64>),
    /// From 0.1 upwards until every series is past its knee (see [`AutoLoads`]).
    Auto(AutoLoads),
}

/// The `auto` load schedule: `start`, `start + step`, … per series, until the series has
/// `margin` points past its first saturated point (see [`KneeRule`]) or reaches `cap`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AutoLoads {
    /// First load factor, thousandths.
    pub start_milli: u32,
    /// Step, thousandths.
    pub step_milli: u32,
    /// Last load factor ever tried, thousandths.
    pub cap_milli: u32,
    /// Points kept after the first saturated point.
    pub margin: u32,
    /// What "saturated" means.
    pub knee: KneeRule,
}

impl Default for AutoLoads {
    /// 0.1, 0.2, … up to 3.0; two points past the first saturated one; the default [`KneeRule`].
    fn default() -> Self {
        AutoLoads {
            start_milli: 100,
            step_milli: 100,
            cap_milli: 3000,
            margin: 2,
            knee: KneeRule::default(),
        }
    }
}

impl AutoLoads {
    /// The `i`-th load factor of the schedule (0-based), or `None` past the cap.
    pub fn load(&self, i: u32) -> Option<f64> {
        let milli = self
            .start_milli
            .checked_add(i.checked_mul(self.step_milli)?)?;
        (milli <= self.cap_milli).then(|| from_milli(milli))
    }
}

impl FromStr for LoadSpec {
    type Err = LoadSpecError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        if s == "auto" {
            return Ok(LoadSpec::Auto(AutoLoads::default()));
        }
        if let Some(range) = s.strip_prefix("auto:") {
            return auto_range(range).map(LoadSpec::Auto);
        }
        let mut milli = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part.contains(':') {
                milli.extend(parse_range(part)?);
            } else {
                milli.push(parse_milli(part)?);
            }
        }
        if milli.is_empty() {
            return Err(LoadSpecError::Empty);
        }
        let mut seen = std::collections::BTreeSet::new();
        milli.retain(|m| seen.insert(*m));
        Ok(LoadSpec::List(milli.into_iter().map(from_milli).collect()))
    }
}

impl fmt::Display for LoadSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadSpec::Auto(a) if *a == AutoLoads::default() => f.write_str("auto"),
            LoadSpec::Auto(a) => {
                write!(
                    f,
                    "auto:{}:{}:{}",
                    from_milli(a.start_milli),
                    from_milli(a.cap_milli),
                    from_milli(a.step_milli)
                )?;
                if a.margin != AutoLoads::default().margin {
                    write!(f, ":{}", a.margin)?;
                }
                Ok(())
            }
            LoadSpec::List(v) => {
                let parts: Vec<String> = v.iter().map(|x| x.to_string()).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

/// `FROM:TO:STEP` in thousandths, inclusive of `TO` when a step lands on it.
fn parse_range(part: &str) -> Result<Vec<u32>, LoadSpecError> {
    let bad = || LoadSpecError::Range(part.to_string());
    let fields: Vec<&str> = part.split(':').collect();
    let [from, to, step] = fields[..] else {
        return Err(bad());
    };
    let step = parse_milli(step).map_err(|_| LoadSpecError::Step {
        range: part.to_string(),
        step: step.trim().to_string(),
    })?;
    let (from, to) = (parse_milli(from)?, parse_milli(to)?);
    if to < from || (to - from) / step >= MAX_POINTS {
        return Err(bad());
    }
    Ok((from..=to).step_by(step as usize).collect())
}

/// `FROM:CAP:STEP[:MARGIN]` of `auto:…`: the default schedule's knee rule, climbing from FROM by
/// STEP up to CAP, keeping MARGIN points (a whole number, default 2) past each series' first
/// saturated one — `0` stops at the first load factor past the knee.
fn auto_range(range: &str) -> Result<AutoLoads, LoadSpecError> {
    let (range, margin) = match range.splitn(4, ':').collect::<Vec<_>>()[..] {
        [a, b, c, m] => {
            let bad = || LoadSpecError::Range(format!("auto:{range}"));
            let m = m.trim();
            if m.is_empty() || !m.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad());
            }
            let m: u32 = m.parse().map_err(|_| bad())?;
            (&range[..a.len() + b.len() + c.len() + 2], m)
        }
        _ => (range, AutoLoads::default().margin),
    };
    parse_range(range)?;
    let fields: Vec<u32> = range
        .split(':')
        .map(parse_milli)
        .collect::<Result<_, _>>()?;
    Ok(AutoLoads {
        start_milli: fields[0],
        cap_milli: fields[1],
        step_milli: fields[2],
        margin,
        ..AutoLoads::default()
    })
}

/// One load factor (`run --load-factor`, `stats --load-factor`), by the rule of a sweep's: a
/// decimal in (0, 1000] with at most three decimals.
pub fn load_factor(s: &str) -> Result<f64, LoadSpecError> {
    parse_milli(s).map(from_milli)
}

/// A positive decimal with at most three decimals, as thousandths.
fn parse_milli(s: &str) -> Result<u32, LoadSpecError> {
    let bad = || LoadSpecError::Number(s.to_string());
    let (int, frac) = s.trim().split_once('.').unwrap_or((s.trim(), ""));
    let digits = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || frac.len() > 3 || !digits(int) || !digits(frac) {
        return Err(bad());
    }
    let int: u32 = if int.is_empty() {
        0
    } else {
        int.parse().map_err(|_| bad())?
    };
    let frac_milli: u32 = format!("{frac:0<3}").parse().map_err(|_| bad())?;
    let milli = int
        .checked_mul(MILLI)
        .and_then(|m| m.checked_add(frac_milli))
        .ok_or_else(bad)?;
    if milli == 0 || milli > MAX_MILLI {
        return Err(bad());
    }
    Ok(milli)
}

/// Thousandths to the `f64` nearest the decimal (one correctly rounded division).
fn from_milli(milli: u32) -> f64 {
    f64::from(milli) / f64::from(MILLI)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(s: &str) -> Vec<f64> {
        match s.parse::<LoadSpec>() {
            Ok(LoadSpec::List(v)) => v,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn range_is_exact_decimal_steps() {
        let v = list("0.1:2.0:0.1");
        assert_eq!(v.len(), 20);
        for (i, x) in v.iter().enumerate() {
            let text = format!("{}.{}", (i + 1) / 10, (i + 1) % 10);
            assert_eq!(*x, text.parse::<f64>().unwrap(), "point {i}");
        }
        assert_eq!(v[2], 0.3);
        assert_ne!(0.1 + 0.1 + 0.1, 0.3, "the drift this module avoids");
    }

    #[test]
    fn lists_keep_order_and_drop_duplicates() {
        assert_eq!(list("0.5,1,1.5"), vec![0.5, 1.0, 1.5]);
        assert_eq!(list("1.5, .5,1.50,0.5"), vec![1.5, 0.5]);
        assert_eq!(list("0.5,1:1.2:0.1"), vec![0.5, 1.0, 1.1, 1.2]);
    }

    #[test]
    fn auto_takes_its_start_cap_and_step() {
        let Ok(LoadSpec::Auto(a)) = "auto:0.1:2.8:0.3".parse::<LoadSpec>() else {
            panic!("auto range not read");
        };
        assert_eq!((a.start_milli, a.cap_milli, a.step_milli), (100, 2800, 300));
        assert_eq!(a.margin, AutoLoads::default().margin);
        assert_eq!(a.load(9), Some(2.8));
        assert_eq!(a.load(10), None);
        let Ok(LoadSpec::Auto(m)) = "auto:0.1:4:0.1:0".parse::<LoadSpec>() else {
            panic!("auto range with a margin not read");
        };
        assert_eq!(
            (m.start_milli, m.cap_milli, m.step_milli, m.margin),
            (100, 4000, 100, 0)
        );
        for text in [
            "auto",
            "auto:0.1:2.8:0.3",
            "auto:0.5:1.5:0.25",
            "auto:1:4:1",
            "auto:0.1:4:0.1:0",
            "auto:0.1:3:0.1:1",
        ] {
            let spec: LoadSpec = text.parse().unwrap();
            assert_eq!(
                spec.to_string().parse::<LoadSpec>(),
                Ok(spec),
                "{text} round trip"
            );
        }
        assert_eq!(
            "auto:0.1:3:0.1".parse::<LoadSpec>().unwrap().to_string(),
            "auto",
            "the default schedule prints as auto"
        );
        for bad in [
            "auto:1:0.5:0.1",
            "auto:0.1:4",
            "auto:0.1:4:0",
            "auto:x:4:0.1",
            "auto:0.1:4:0.1:",
            "auto:0.1:4:0.1:0.5",
            "auto:0.1:4:0.1:-1",
            "auto:0.1:4:0.1:1:2",
        ] {
            assert!(bad.parse::<LoadSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn range_end_need_not_be_on_a_step() {
        assert_eq!(list("0.25:1:0.25"), vec![0.25, 0.5, 0.75, 1.0]);
        assert_eq!(list("0.1:0.35:0.1"), vec![0.1, 0.2, 0.3]);
    }

    #[test]
    fn bad_specs_are_errors() {
        for s in [
            "",
            "0",
            "-1",
            "abc",
            "0.1234",
            "1:0.5:0.1",
            "0.1:1",
            "0.1:1:0",
            "1e3",
            "2000",
        ] {
            assert!(s.parse::<LoadSpec>().is_err(), "{s:?} accepted");
        }
    }

    #[test]
    fn a_zero_step_is_blamed_on_the_step_and_one_load_factor_follows_the_sweeps_rule() {
        let e = "0.1:2:0".parse::<LoadSpec>().unwrap_err();
        assert_eq!(
            e,
            LoadSpecError::Step {
                range: "0.1:2:0".into(),
                step: "0".into()
            }
        );
        assert!(e.to_string().contains("the step `0`"), "{e}");
        assert!(!e.to_string().contains("load factor `0`"), "{e}");
        assert!(matches!(
            "auto:0.1:4:0".parse::<LoadSpec>(),
            Err(LoadSpecError::Step { .. })
        ));
        assert_eq!(load_factor("1.25"), Ok(1.25));
        for bad in ["-1", "0", "1e9", "1000.5", "0.1234", "x"] {
            assert_eq!(
                load_factor(bad),
                Err(LoadSpecError::Number(bad.into())),
                "{bad}"
            );
        }
    }

    #[test]
    fn auto_schedule_steps_to_the_cap() {
        let a = AutoLoads::default();
        assert_eq!("auto".parse::<LoadSpec>(), Ok(LoadSpec::Auto(a)));
        assert_eq!(a.load(0), Some(0.1));
        assert_eq!(a.load(2), Some(0.3));
        assert_eq!(a.load(29), Some(3.0));
        assert_eq!(a.load(30), None);
        assert_eq!(a.load(u32::MAX), None);
    }
}
