//! The experiment file: TOML read with serde into [`ExperimentFile`], every key spanned so that a
//! bad value is reported with its line.
//!
//! The format is documented in `docs/EXPERIMENTS.md`; [`ExperimentFile::parse`] refuses unknown
//! keys (naming the valid ones) and [`crate::experiment::Plan::new`] checks every label.
//!
//! The replay options ([`ReplayOptions`]) are keys of `[defaults]` and of a panel under their own
//! names: they are taken out of those tables, with their spans, before the rest is read
//! ([`OptionKeys`]), so that an option added to [`ReplayOptions`] is a key of the file with no
//! change here.

use std::fmt;
use std::ops::Range;

use serde::de::value::MapAccessDeserializer;
use serde::de::{self, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use super::ExperimentError;
use crate::engine::ReplayOptions;

/// A whole experiment file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentFile {
    /// A title for reports.
    pub title: Option<String>,
    /// What the study asks, for reports.
    pub description: Option<String>,
    /// Settings every panel inherits unless it says otherwise.
    #[serde(default)]
    pub defaults: Defaults,
    /// Named values substituted for `{name}` anywhere in the file before it is read
    /// (`scan = "scan-up"` → `sched = ["{scan}"]`); `--set name=value` overrides one.
    #[serde(default)]
    pub params: toml::Table,
    /// The short budget of `--quick`.
    #[serde(default)]
    pub quick: Quick,
    /// The panels: what is simulated.
    #[serde(rename = "panel")]
    pub panels: Vec<PanelSpec>,
    /// The figures: what is drawn.
    #[serde(default, rename = "figure")]
    pub figures: Vec<FigureSpec>,
    /// The claims: what is checked.
    #[serde(default, rename = "claim")]
    pub claims: Vec<ClaimSpec>,
}

/// Settings panels inherit.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Defaults {
    /// Replication rule.
    pub replicate: Option<Spanned<ReplicateSpec>>,
    /// Shaking of logs (needed to replicate a log).
    pub shake: Option<ShakeSpec>,
    /// When a series stops climbing its x axis.
    pub stop: Option<Spanned<StopSpec>>,
    /// The machine, where the workload does not name one.
    pub machine: Option<Spanned<String>>,
    /// Keep only the first N jobs of a log / generate N jobs of a model (`{jobs}` in templates).
    pub jobs: Option<usize>,
    /// Replay options every panel inherits, key by key.
    #[serde(skip)]
    pub options: OptionKeys,
}

/// What `--quick` changes.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Quick {
    /// Jobs per workload (`{jobs}`; logs truncated to their first N).
    pub jobs: Option<usize>,
    /// Replication rule.
    pub replicate: Option<Spanned<ReplicateSpec>>,
    /// Series (legend labels) left out of every panel and figure.
    #[serde(default)]
    pub skip: Vec<String>,
    /// Values of `[params]` under `--quick`.
    #[serde(default)]
    pub params: toml::Table,
}

/// One panel: a workload template × machine × series × an x axis.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PanelSpec {
    /// Unique name, used by figures.
    pub name: Spanned<String>,
    /// Workload label template: a catalog name, an SWF path or a `synth:` label; `{x}` and `{jobs}`
    /// are substituted.
    pub workload: Spanned<String>,
    /// Machine label (`mesh:32x32`, `flat:100`); default: the workload's own.
    pub machine: Option<Spanned<String>>,
    /// Scheduler label templates (crossed with `alloc` and `estimate`).
    #[serde(default)]
    pub sched: Vec<Spanned<String>>,
    /// Allocator label templates.
    #[serde(default)]
    pub alloc: Vec<Spanned<String>>,
    /// Estimate model templates (default `exact`).
    #[serde(default)]
    pub estimate: Vec<Spanned<String>>,
    /// Series named one by one, after the crossed ones.
    #[serde(default)]
    pub series: Vec<SeriesSpec>,
    /// The x axis.
    #[serde(deserialize_with = "x_table")]
    pub x: XSpec,
    /// Seed key template (default: the workload label and the load factor): cells with the same key
    /// share their random streams.
    pub seed_key: Option<Spanned<String>>,
    /// Jobs (`{jobs}`; logs truncated).
    pub jobs: Option<usize>,
    /// A fixed load factor for every cell, when x is something else (a window size on a log).
    pub load_factor: Option<Spanned<f64>>,
    /// Replication rule.
    pub replicate: Option<Spanned<ReplicateSpec>>,
    /// Shaking of logs.
    pub shake: Option<ShakeSpec>,
    /// When a series stops climbing.
    pub stop: Option<Spanned<StopSpec>>,
    /// Replay options, over those of `[defaults]`.
    #[serde(skip)]
    pub options: OptionKeys,
}

/// Replay options given in one table of the file (`[defaults]` or a panel): each key named as a
/// field of [`ReplayOptions`], with its span, and its value, read when planning.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OptionKeys(pub Vec<(Spanned<String>, toml::Value)>);

impl OptionKeys {
    /// Takes the replay options out of `table`.
    fn take(table: &mut DeTable<'_>) -> Result<OptionKeys, toml::de::Error> {
        let mut options = Vec::new();
        for key in ReplayOptions::keys() {
            if let Some((k, v)) = table.remove_entry(*key) {
                let value = toml::Value::deserialize(ValueDeserializer::from(v))?;
                options.push((Spanned::new(k.span(), key.to_string()), value));
            }
        }
        Ok(OptionKeys(options))
    }
}

/// One series named in full.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeriesSpec {
    /// Scheduler template.
    pub sched: Spanned<String>,
    /// Allocator template.
    pub alloc: Spanned<String>,
    /// Estimate model template (default `exact`).
    pub estimate: Option<Spanned<String>>,
    /// Legend label (default `sched+alloc[+estimate]`; `{x}` is not substituted).
    pub label: Option<String>,
}

/// The x axis of a panel.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct XSpec {
    /// What x is: `load_factor` (submit times divided by x) or the name of a template parameter
    /// (`rate`, `window`, `side`: substituted as `{x}`).
    #[serde(default = "load_factor")]
    pub name: String,
    /// A list, `FROM:TO:STEP`, `auto` or `auto:FROM:CAP:STEP[:MARGIN]` (load factor only: upwards
    /// past every knee).
    pub values: Spanned<Values>,
    /// The values under `--quick` (default: `values`).
    pub quick: Option<Spanned<Values>>,
    /// Axis label (default: the name).
    pub label: Option<String>,
    /// Draw x on a log scale.
    #[serde(default)]
    pub log: bool,
}

fn load_factor() -> String {
    "load_factor".to_string()
}

/// `x` as a table; its values alone (a list, a range) are refused with the table to write them in.
fn x_table<'de, D: Deserializer<'de>>(d: D) -> Result<XSpec, D::Error> {
    struct Table;
    impl<'de> Visitor<'de> for Table {
        type Value = XSpec;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a table such as `x = { values = [0.5, 1.0] }`")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<XSpec, A::Error> {
            XSpec::deserialize(MapAccessDeserializer::new(map))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<XSpec, A::Error> {
            let mut values = Vec::new();
            while let Some(v) = seq.next_element::<toml::Value>()? {
                values.push(v.to_string());
            }
            Err(de::Error::custom(format!(
                "x is a table: write `x = {{ values = [{}] }}`",
                values.join(", ")
            )))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<XSpec, E> {
            Err(E::custom(format!(
                "x is a table: write `x = {{ values = \"{v}\" }}`"
            )))
        }
    }
    d.deserialize_any(Table)
}

/// x values as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum Values {
    /// `[0.5, 1, 1.5]`.
    List(Vec<f64>),
    /// `"0.5:3:0.5"` or `"auto"`.
    Text(String),
}

/// Replication: a fixed count, or until the 95% CI half-width of `measure` is below a fraction of
/// its mean (between `min` and `max` replications).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table such as `replicate = { count = 3 }` or `{ min = 2, max = 30, half_width = 0.05 }`"
)]
pub struct ReplicateSpec {
    /// Exactly this many replications.
    pub count: Option<usize>,
    /// Fewest replications.
    pub min: Option<usize>,
    /// Most replications.
    pub max: Option<usize>,
    /// Target half-width relative to the mean.
    pub half_width: Option<f64>,
    /// The measure watched (default `mean_turnaround_s`).
    pub measure: Option<String>,
}

/// Shaking of a log's replicas (Tsafrir et al. 2007), see [`crate::workload::shake`].
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table such as `shake = { submit_s = 10 }`"
)]
pub struct ShakeSpec {
    /// Submit offsets uniform in ±this many seconds (default 10).
    pub submit_s: Option<f64>,
    /// Run times × a factor uniform in 1 ± this (default 0).
    pub runtime: Option<f64>,
}

/// A series stops climbing x `margin` points after `measure` first exceeds `above`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table such as `stop = { above = 100000 }`"
)]
pub struct StopSpec {
    /// The measure (default `mean_turnaround_s`).
    pub measure: Option<String>,
    /// The threshold.
    pub above: f64,
    /// Points kept past the first one above (default 1).
    pub margin: Option<usize>,
}

/// One figure: a panel's series against x, one measure on y.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// Unique name: the file stem of its CSV and PNG.
    pub name: Spanned<String>,
    /// The panel drawn.
    pub panel: Spanned<String>,
    /// The measure on y.
    pub y: Spanned<String>,
    /// Only these series (legend labels); default all; `[]`: none (only the `also` lines).
    pub series: Option<Vec<Spanned<String>>>,
    /// Only these x values; default all of the panel's.
    pub x: Option<Vec<f64>>,
    /// Title (default `<y> vs <x>, <panel>`).
    pub title: Option<String>,
    /// y axis label (default: the measure's name and unit).
    pub y_label: Option<String>,
    /// Log scale on y.
    #[serde(default)]
    pub log_y: bool,
    /// y is the mean of `y` over the mean of this measure across a cell's replicas (a ratio of
    /// means, such as power = throughput / delay), drawn without an interval.
    pub divide_by: Option<Spanned<String>>,
    /// More lines: a series of the panel drawn with another measure under its own label (the
    /// arrival of the last job beside completion times).
    #[serde(default)]
    pub also: Vec<AlsoSpec>,
}

/// A series drawn with another measure under its own label.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AlsoSpec {
    /// The panel's series (legend label).
    pub series: Spanned<String>,
    /// The measure.
    pub y: Spanned<String>,
    /// The line's legend label.
    pub label: String,
}

/// One claim: a sentence and the predicate that checks it on a figure — or, for a sentence that
/// says several things, `[[claim.check]]` tables, every one of which must hold. Every other key is
/// a parameter of the predicate (checked against its list when planning).
#[derive(Debug, Clone, Deserialize)]
pub struct ClaimSpec {
    /// The figure it is about.
    pub figure: Spanned<String>,
    /// The sentence as printed.
    pub statement: String,
    /// Printed after what was measured when the claim differs (a known reason, a reading chosen).
    pub note: Option<String>,
    /// The checks of a sentence that says several things (instead of one `predicate`).
    #[serde(default, rename = "check")]
    pub checks: Vec<CheckSpec>,
    /// The predicate's name (see [`crate::experiment::predicate::PREDICATES`]).
    pub predicate: Option<Spanned<String>>,
    /// The predicate's parameters.
    #[serde(flatten)]
    pub params: toml::Table,
}

/// One `[[claim.check]]`: a predicate and its parameters.
#[derive(Debug, Clone, Deserialize)]
pub struct CheckSpec {
    /// The predicate's name.
    pub predicate: Spanned<String>,
    /// Its parameters.
    #[serde(flatten)]
    pub params: toml::Table,
}

impl ExperimentFile {
    /// Reads `text` (the contents of `file`); on a mistake, reports every item of the file that
    /// does not read (each panel, figure and claim, `[defaults]`, `[quick]` …), not the first only.
    pub fn parse(file: &str, text: &str) -> Result<ExperimentFile, ExperimentError> {
        let error = |e: toml::de::Error| {
            let mut e = toml_error(file, text, &e);
            if e.message.starts_with("unknown field") {
                let names = ReplayOptions::keys().iter().map(|k| format!("`{k}`"));
                e.message = format!(
                    "{}, or a replay option: {}",
                    e.message,
                    names.collect::<Vec<_>>().join(", ")
                );
            }
            e
        };
        let (doc, defaults, panels) = read_options(text).map_err(error)?;
        let mut orders = defaults.0.iter().filter(|(k, _)| k.get_ref() == "orders");
        if let Some((again, _)) = orders.nth(1) {
            let problem = "`[orders]` and `orders` in `[defaults]`: define the orders once";
            let line = line_of(text, &again.span());
            return Err(ExperimentError::new(
                file,
                line,
                "orders".into(),
                problem.into(),
            ));
        }
        let mut f =
            ExperimentFile::deserialize(toml::de::Deserializer::from(doc)).map_err(|first| {
                let others = read_items(text).into_iter().map(error);
                let all = ExperimentError::all(std::iter::once(error(first)).chain(others));
                all.expect("one error at least")
            })?;
        f.defaults.options = defaults;
        for (p, options) in f.panels.iter_mut().zip(panels) {
            p.options = options;
        }
        Ok(f)
    }
}

/// The parsed document of `text`, with the replay options taken out of `[defaults]` and of each
/// panel (see [`OptionKeys`]).
fn read_options(
    text: &str,
) -> Result<(Spanned<DeTable<'_>>, OptionKeys, Vec<OptionKeys>), toml::de::Error> {
    let mut doc = DeTable::parse(text)?;
    let table = doc.get_mut();
    let mut defaults = match table.get_mut("defaults").map(Spanned::get_mut) {
        Some(DeValue::Table(t)) => OptionKeys::take(t)?,
        _ => OptionKeys::default(),
    };
    // The file's `[orders]`: the `orders` option of `[defaults]`, written as a table of its own.
    if let Some((k, v)) = table.remove_entry("orders") {
        let value = toml::Value::deserialize(ValueDeserializer::from(v))?;
        defaults
            .0
            .push((Spanned::new(k.span(), "orders".into()), value));
    }
    let panels: Vec<OptionKeys> = match table.get_mut("panel").map(Spanned::get_mut) {
        Some(DeValue::Array(a)) => a
            .iter_mut()
            .map(|p| match p.get_mut() {
                DeValue::Table(t) => OptionKeys::take(t),
                _ => Ok(OptionKeys::default()),
            })
            .collect::<Result<_, _>>()?,
        _ => Vec::new(),
    };
    Ok((doc, defaults, panels))
}

/// The mistakes of each item of `text` read on its own: every table and every entry of an array
/// of tables, as the field of [`ExperimentFile`] it fills; an unknown key of the file is one too.
fn read_items(text: &str) -> Vec<toml::de::Error> {
    fn one<T: for<'de> Deserialize<'de>>(v: Spanned<DeValue<'_>>) -> Option<toml::de::Error> {
        T::deserialize(ValueDeserializer::from(v)).err()
    }
    /// The entries of an array of tables (a value that is no array: itself).
    fn each(v: Spanned<DeValue<'_>>) -> Vec<Spanned<DeValue<'_>>> {
        let span = v.span();
        match v.into_inner() {
            DeValue::Array(a) => a.into_iter().collect(),
            other => vec![Spanned::new(span, other)],
        }
    }
    let Ok((doc, ..)) = read_options(text) else {
        return Vec::new();
    };
    let mut errors = Vec::new();
    for (key, value) in doc.into_inner() {
        let found: Vec<Option<toml::de::Error>> = match key.get_ref().as_ref() {
            "title" | "description" => vec![one::<String>(value)],
            "defaults" => vec![one::<Defaults>(value)],
            "params" => vec![one::<toml::Table>(value)],
            "quick" => vec![one::<Quick>(value)],
            "panel" => each(value).into_iter().map(one::<PanelSpec>).collect(),
            "figure" => each(value).into_iter().map(one::<FigureSpec>).collect(),
            "claim" => each(value).into_iter().map(one::<ClaimSpec>).collect(),
            _ => Vec::new(),
        };
        errors.extend(found.into_iter().flatten());
    }
    errors
}

/// A TOML error of `text` (the contents of `file`) at its line, with the key written there.
pub fn toml_error(file: &str, text: &str, e: &toml::de::Error) -> ExperimentError {
    let (line, key) = match e.span() {
        Some(span) => (line_of(text, &span), key_at(text, &span)),
        None => (0, String::new()),
    };
    ExperimentError::new(file, line, key, e.message().to_string())
}

/// The 1-based line of a byte span's start.
pub fn line_of(text: &str, span: &Range<usize>) -> usize {
    let end = span.start.min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The key written on the span's line before `=`, if any (for messages).
fn key_at(text: &str, span: &Range<usize>) -> String {
    let start = text[..span.start.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("");
    line.split_once('=')
        .map(|(k, _)| k.trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
[[panel]]
name = "p"
workload = "kth-sp2"
sched = ["easy"]
alloc = ["flat"]
x = { values = [0.5, 1.0] }
"#;

    #[test]
    fn a_minimal_file_reads_with_defaults() {
        let f = ExperimentFile::parse("m.toml", MINIMAL).unwrap();
        assert_eq!(f.panels.len(), 1);
        assert_eq!(f.panels[0].x.name, "load_factor");
        assert_eq!(
            *f.panels[0].x.values.get_ref(),
            Values::List(vec![0.5, 1.0])
        );
        assert!(f.figures.is_empty() && f.claims.is_empty());
    }

    #[test]
    fn an_unknown_key_is_refused_with_its_line_and_the_valid_keys() {
        let text = MINIMAL.replace("alloc = [\"flat\"]", "alloc = [\"flat\"]\ncolour = \"red\"");
        let e = ExperimentFile::parse("m.toml", &text).unwrap_err();
        assert_eq!(e.line, 7, "{e}");
        let msg = e.to_string();
        assert!(msg.starts_with("m.toml:7:"), "{msg}");
        assert!(msg.contains("colour") && msg.contains("workload"), "{msg}");
    }

    #[test]
    fn a_bare_value_where_a_table_goes_is_shown_the_table_to_write() {
        let bad = |from: &str, to: &str| {
            let text = format!("[defaults]\nreplicate = {{ count = 1 }}\n{MINIMAL}");
            let text = text.replace(from, to);
            ExperimentFile::parse("m.toml", &text)
                .unwrap_err()
                .to_string()
        };
        let x = "x = { values = [0.5, 1.0] }";
        for (from, to, said) in [
            (x, "x = [0.7, 0.9]", "write `x = { values = [0.7, 0.9] }`"),
            (
                x,
                r#"x = "0.5:3:0.5""#,
                r#"write `x = { values = "0.5:3:0.5" }`"#,
            ),
            (
                x,
                "x = 0.7",
                "expected a table such as `x = { values = [0.5, 1.0] }`",
            ),
            (
                "replicate = { count = 1 }",
                "replicate = 3",
                "expected a table such as `replicate = { count = 3 }`",
            ),
            (
                "replicate = { count = 1 }",
                "shake = 10",
                "expected a table such as `shake = { submit_s = 10 }`",
            ),
            (
                "replicate = { count = 1 }",
                "stop = 5",
                "expected a table such as `stop = { above = 100000 }`",
            ),
        ] {
            let e = bad(from, to);
            assert!(e.contains(said), "{to}: {e}");
            assert!(!e.contains("Spec"), "no Rust type names: {e}");
        }
    }

    #[test]
    fn every_item_that_does_not_read_is_reported_at_once() {
        let text = format!(
            "[defaults]\nreplicate = 3\n{}\n[[figure]]\nname = \"f\"\npanel = \"p\"\ny = 1\n\n\
             [[figure]]\nname = \"g\"\npanel = \"p\"\ny = \"jobs\"\ncolour = \"red\"\n",
            MINIMAL.replace("x = { values = [0.5, 1.0] }", "x = [0.5, 1.0]")
        );
        let e = ExperimentFile::parse("m.toml", &text).unwrap_err();
        let lines: Vec<(usize, &str)> = e.each().map(|e| (e.line, e.key.as_str())).collect();
        assert_eq!(
            lines,
            [(2, "replicate"), (9, "x"), (14, "y"), (20, "colour")],
            "{e}"
        );
        assert!(e.more[2].message.contains("or a replay option"), "{e}");
    }

    #[test]
    fn a_value_of_the_wrong_type_names_its_line() {
        let text = MINIMAL.replace("x = { values = [0.5, 1.0] }", "x = { values = 3 }");
        let e = ExperimentFile::parse("m.toml", &text).unwrap_err();
        assert_eq!(e.line, 7, "{e}");
    }
}
