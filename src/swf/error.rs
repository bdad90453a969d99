//! Errors of the SWF reader and the lenient-mode skip report.
//!
//! Every [`SwfError`] names the input (path or display name); errors tied to a line carry its
//! 1-based number, and errors tied to a field name it as `field 4 (run time)`.

use std::collections::BTreeMap;
use std::fmt;
use std::io;

use serde::Serialize;

/// Number of fields of an SWF job line.
pub const FIELD_COUNT: usize = 18;

/// Names of the 18 SWF fields, in order (index 0 is field 1).
const FIELD_NAMES: [&str; FIELD_COUNT] = [
    "job number",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user id",
    "group id",
    "executable number",
    "queue number",
    "partition number",
    "preceding job number",
    "think time",
];

/// One of the 18 SWF fields, numbered 1–18 as in the standard.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Field(u8);

impl Field {
    /// Field 2, the submit time (checked for monotonicity).
    pub const SUBMIT: Field = Field(2);

    /// The field with 1-based number `number`, if it is in 1..=18.
    pub fn new(number: usize) -> Option<Field> {
        (1..=FIELD_COUNT)
            .contains(&number)
            .then_some(Field(number as u8))
    }

    /// The field at 0-based position `index` of a line (must be < 18).
    pub(crate) fn at(index: usize) -> Field {
        debug_assert!(index < FIELD_COUNT);
        Field(index as u8 + 1)
    }

    /// 1-based field number.
    pub fn number(self) -> usize {
        usize::from(self.0)
    }

    /// Human name of the field, e.g. `run time`.
    pub fn name(self) -> &'static str {
        FIELD_NAMES[self.number() - 1]
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "field {} ({})", self.0, self.name())
    }
}

/// What is wrong with one field's text.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldProblem {
    /// An integer field holds something else (letters, a non-zero fraction, an empty sign).
    NotAnInteger,
    /// A decimal field (6 or 7) holds something that is not a plain decimal number.
    NotANumber,
    /// The number does not fit the field's type (`i64`, or `u64` for the job number).
    Overflow,
    /// The job number is negative.
    Negative,
    /// The submit time is earlier than that of the previous record.
    Backwards {
        /// Submit time of the previous accepted record.
        previous: i64,
        /// Line of the previous accepted record.
        previous_line: u64,
    },
}

impl fmt::Display for FieldProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldProblem::NotAnInteger => f.write_str("not an integer"),
            FieldProblem::NotANumber => f.write_str("not a number"),
            FieldProblem::Overflow => f.write_str("integer overflow"),
            FieldProblem::Negative => f.write_str("negative job number"),
            FieldProblem::Backwards {
                previous,
                previous_line,
            } => write!(
                f,
                "submit time goes backwards (previous record, line {previous_line}: {previous})"
            ),
        }
    }
}

/// An error while reading SWF: the input is named in every variant.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SwfError {
    /// The input could not be opened or read.
    #[error("{path}: {source}")]
    Io {
        /// Path or display name of the input.
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// The gzip stream is truncated or corrupt.
    #[error("{path}:{line}: truncated or corrupt gzip data: {source}")]
    Gzip {
        /// Path or display name of the input.
        path: String,
        /// Line being read when the stream failed.
        line: u64,
        /// The decoder's error.
        source: io::Error,
    },
    /// The input holds no header and no job record (no bytes, or only blank lines).
    #[error("{path}: empty file: no SWF header and no job records")]
    Empty {
        /// Path or display name of the input.
        path: String,
    },
    /// The input holds no job record (header only, or every record was skipped).
    #[error("{path}: no job records{}", skipped_note(*.skipped))]
    NoRecords {
        /// Path or display name of the input.
        path: String,
        /// Lines skipped in lenient mode.
        skipped: u64,
    },
    /// A job line does not hold exactly 18 fields.
    #[error("{path}:{line}: expected {FIELD_COUNT} fields, found {found}: {}", count_note(*.found))]
    FieldCount {
        /// Path or display name of the input.
        path: String,
        /// 1-based line number.
        line: u64,
        /// Number of whitespace-separated fields found.
        found: usize,
    },
    /// A field's text is not a valid value.
    #[error("{path}:{line}: {field}: {problem}: \"{text}\"")]
    Field {
        /// Path or display name of the input.
        path: String,
        /// 1-based line number.
        line: u64,
        /// The offending field.
        field: Field,
        /// What is wrong.
        problem: FieldProblem,
        /// The field's text, ASCII-escaped (`\xff`), shortened if very long.
        text: String,
    },
    /// The line holds a NUL byte.
    #[error("{path}:{line}: {}NUL byte", field_prefix(*.field))]
    Nul {
        /// Path or display name of the input.
        path: String,
        /// 1-based line number.
        line: u64,
        /// The field holding the NUL, `None` in a comment line.
        field: Option<Field>,
    },
    /// The line ends in `\r\n` (strict mode only; lenient mode strips the `\r`).
    #[error(
        "{path}:{line}: CRLF line ending (\\r\\n): convert the file to LF line endings, or read it leniently"
    )]
    Crlf {
        /// Path or display name of the input.
        path: String,
        /// 1-based line number.
        line: u64,
    },
    /// The line is longer than the reader's limit (it is discarded, not buffered).
    #[error("{path}:{line}: line longer than {limit} bytes")]
    LineTooLong {
        /// Path or display name of the input.
        path: String,
        /// 1-based line number.
        line: u64,
        /// The limit in bytes.
        limit: usize,
    },
}

fn skipped_note(skipped: u64) -> String {
    if skipped == 0 {
        " (header only)".to_owned()
    } else {
        format!(" ({skipped} bad lines skipped)")
    }
}

fn count_note(found: usize) -> String {
    match Field::new(found + 1) {
        Some(f) if found + 1 == FIELD_COUNT => format!("{f} is missing"),
        Some(f) => format!("{f} and later are missing"),
        None => format!("extra text after {}", Field::at(FIELD_COUNT - 1)),
    }
}

fn field_prefix(field: Option<Field>) -> String {
    field.map_or_else(|| "comment: ".to_owned(), |f| format!("{f}: "))
}

impl SwfError {
    /// Path or display name of the input.
    pub fn path(&self) -> &str {
        match self {
            SwfError::Io { path, .. }
            | SwfError::Gzip { path, .. }
            | SwfError::Empty { path }
            | SwfError::NoRecords { path, .. }
            | SwfError::FieldCount { path, .. }
            | SwfError::Field { path, .. }
            | SwfError::Nul { path, .. }
            | SwfError::Crlf { path, .. }
            | SwfError::LineTooLong { path, .. } => path,
        }
    }

    /// 1-based line number, where the error belongs to a line.
    pub fn line(&self) -> Option<u64> {
        match self {
            SwfError::Gzip { line, .. }
            | SwfError::FieldCount { line, .. }
            | SwfError::Field { line, .. }
            | SwfError::Nul { line, .. }
            | SwfError::Crlf { line, .. }
            | SwfError::LineTooLong { line, .. } => Some(*line),
            SwfError::Io { .. } | SwfError::Empty { .. } | SwfError::NoRecords { .. } => None,
        }
    }

    /// The field at fault, where one applies (for too few fields: the first missing one).
    pub fn field(&self) -> Option<Field> {
        match self {
            SwfError::Field { field, .. } => Some(*field),
            SwfError::FieldCount { found, .. } => Field::new(found + 1),
            SwfError::Nul { field, .. } => *field,
            _ => None,
        }
    }

    /// Why lenient mode may skip the line, or `None` for errors that stop reading (I/O, gzip,
    /// empty input).
    pub fn skip_reason(&self) -> Option<SkipReason> {
        Some(match self {
            SwfError::FieldCount { .. } => SkipReason::FieldCount,
            SwfError::Field { problem, .. } => match problem {
                FieldProblem::NotAnInteger | FieldProblem::NotANumber => SkipReason::NotANumber,
                FieldProblem::Overflow => SkipReason::Overflow,
                FieldProblem::Negative => SkipReason::NegativeJobNumber,
                FieldProblem::Backwards { .. } => SkipReason::SubmitBackwards,
            },
            SwfError::Nul { .. } => SkipReason::Nul,
            SwfError::Crlf { .. } => SkipReason::Crlf,
            SwfError::LineTooLong { .. } => SkipReason::LineTooLong,
            SwfError::Io { .. }
            | SwfError::Gzip { .. }
            | SwfError::Empty { .. }
            | SwfError::NoRecords { .. } => return None,
        })
    }
}

/// Why a line was skipped (or, for [`SkipReason::Crlf`], repaired) in lenient mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SkipReason {
    /// Not exactly 18 fields.
    FieldCount,
    /// A field is not a number (or an integer field holds a fraction).
    NotANumber,
    /// A number does not fit its field.
    Overflow,
    /// A negative job number.
    NegativeJobNumber,
    /// A NUL byte in the line.
    Nul,
    /// The submit time is earlier than the previous record's.
    SubmitBackwards,
    /// The line exceeds the length limit.
    LineTooLong,
    /// A `\r\n` line ending: the `\r` was stripped and the line **kept**.
    Crlf,
}

impl SkipReason {
    /// Whether lines with this reason are dropped (`false` only for [`SkipReason::Crlf`]).
    pub fn drops_line(self) -> bool {
        self != SkipReason::Crlf
    }

    /// Short description, as in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::FieldCount => "wrong field count",
            SkipReason::NotANumber => "not a number",
            SkipReason::Overflow => "integer overflow",
            SkipReason::NegativeJobNumber => "negative job number",
            SkipReason::Nul => "NUL byte",
            SkipReason::SubmitBackwards => "submit time goes backwards",
            SkipReason::LineTooLong => "line too long",
            SkipReason::Crlf => "CRLF line ending (line kept)",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How many lines had one [`SkipReason`], and where the first ones are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Number of lines.
    pub count: u64,
    /// The first [`SkipReport::KEPT_LINES`] line numbers (1-based).
    pub first_lines: Vec<u64>,
}

/// What lenient reading skipped, by reason (deterministic order).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SkipReport {
    reasons: BTreeMap<SkipReason, Tally>,
}

impl SkipReport {
    /// How many line numbers each reason keeps.
    pub const KEPT_LINES: usize = 5;

    /// Counts one line for `reason`.
    pub fn record(&mut self, reason: SkipReason, line: u64) {
        let tally = self.reasons.entry(reason).or_default();
        tally.count += 1;
        if tally.first_lines.len() < Self::KEPT_LINES {
            tally.first_lines.push(line);
        }
    }

    /// Number of lines dropped (all reasons but [`SkipReason::Crlf`]).
    pub fn skipped_lines(&self) -> u64 {
        self.reasons
            .iter()
            .filter(|(r, _)| r.drops_line())
            .map(|(_, t)| t.count)
            .sum()
    }

    /// Whether nothing was skipped or repaired.
    pub fn is_empty(&self) -> bool {
        self.reasons.is_empty()
    }

    /// The tally for one reason, if any line had it.
    pub fn get(&self, reason: SkipReason) -> Option<&Tally> {
        self.reasons.get(&reason)
    }

    /// All reasons seen, in a fixed order.
    pub fn iter(&self) -> impl Iterator<Item = (SkipReason, &Tally)> {
        self.reasons.iter().map(|(r, t)| (*r, t))
    }
}

/// `2 malformed lines skipped (not a number: line 4; wrong field count: lines 7, 9)`, or `no lines
/// skipped`; at most [`SkipReport::KEPT_LINES`] line numbers per reason, then `…`.
impl fmt::Display for SkipReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_empty() {
            return f.write_str("no lines skipped");
        }
        let n = self.skipped_lines();
        write!(f, "{n} malformed line{} skipped (", plural(n))?;
        for (i, (reason, tally)) in self.iter().enumerate() {
            let lines: Vec<String> = tally.first_lines.iter().map(u64::to_string).collect();
            let more = if tally.count > tally.first_lines.len() as u64 {
                ", …"
            } else {
                ""
            };
            let sep = if i == 0 { "" } else { "; " };
            write!(
                f,
                "{sep}{reason}: line{} {}{more}",
                plural(tally.count),
                lines.join(", ")
            )?;
        }
        f.write_str(")")
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_follow_the_standard() {
        let f = Field::new(4).expect("field 4 exists");
        assert_eq!(f.to_string(), "field 4 (run time)");
        assert_eq!(Field::new(18).map(Field::name), Some("think time"));
        assert_eq!(Field::new(0), None);
        assert_eq!(Field::new(19), None);
    }

    #[test]
    fn report_keeps_first_lines_and_excludes_crlf_from_skipped() {
        let mut r = SkipReport::default();
        for line in 1..=7 {
            r.record(SkipReason::FieldCount, line);
        }
        r.record(SkipReason::Crlf, 3);
        assert_eq!(r.skipped_lines(), 7);
        let t = r.get(SkipReason::FieldCount).expect("counted");
        assert_eq!(t.count, 7);
        assert_eq!(t.first_lines, vec![1, 2, 3, 4, 5]);
        assert_eq!(
            r.to_string(),
            "7 malformed lines skipped (wrong field count: lines 1, 2, 3, 4, 5, …; \
             CRLF line ending (line kept): line 3)"
        );
    }
}
