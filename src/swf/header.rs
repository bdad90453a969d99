//! The SWF header: the leading `; Key: value` comment lines, kept raw and in order, with typed
//! accessors for the keys the standard defines.
//!
//! Parsing rules (see `docs/ALGORITHMS.md`, section "SWF reader"):
//! * a *key line* is `;`, blanks, a key `[A-Za-z][A-Za-z0-9_-]*`, `:`, then a blank or the end of
//!   the line (so `;   http://…` is not a key `http`);
//! * any other non-empty comment line right after an entry continues it (joined with `\n`);
//!   this is how the archive writes multi-line `Note:` and `Information:` values;
//! * an empty `;` line ends an entry; a non-key line that follows one is a free-text entry
//!   (key `None`).

use nom::IResult;
use nom::Parser as _;
use nom::bytes::complete::take_while;
use nom::character::complete::{char, satisfy};
use nom::combinator::recognize;
use nom::sequence::{pair, terminated};

/// One header entry: `; Key: value`, or a free-text comment line (`key == None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderEntry {
    /// The key as written (`MaxNodes`), or `None` for free text.
    pub key: Option<String>,
    /// The value, trimmed; continuation lines are joined with `\n`.
    pub value: String,
}

/// A row of a `Queue:` or `Partition:` table: `; Queue:  3  normal`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableEntry {
    /// The number used in field 15 (queue) or 16 (partition).
    pub number: i64,
    /// The rest of the line, trimmed (`normal`).
    pub name: String,
}

/// The SWF header: every entry in file order, plus typed accessors.
///
/// Keys are matched ASCII-case-insensitively; where a key repeats, scalar accessors return the
/// first value.
#[derive(Debug, Clone, Default)]
pub struct Header {
    entries: Vec<HeaderEntry>,
    /// Whether the next non-key line continues the last entry.
    open: bool,
}

impl PartialEq for Header {
    /// Headers are equal when their entries are (the parser's continuation state is ignored).
    fn eq(&self, other: &Header) -> bool {
        self.entries == other.entries
    }
}

impl Eq for Header {}

/// `Key:` at the start of a trimmed comment; returns (rest, key).
fn key(i: &str) -> IResult<&str, &str> {
    terminated(
        recognize(pair(
            satisfy(|c| c.is_ascii_alphabetic()),
            take_while(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
        )),
        char(':'),
    )
    .parse(i)
}

/// Splits `Key: value` (the value may be empty); `None` for text that is not a key line.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let (rest, k) = key(text).ok()?;
    (rest.is_empty() || rest.starts_with([' ', '\t'])).then(|| (k, rest.trim()))
}

/// The integer at the start of free text: `400 (48 interactive, …)` → 400.
fn leading_int(value: &str) -> Option<u64> {
    let digits = value.len() - value.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    value[..digits].parse().ok()
}

impl Header {
    /// An empty header (for writers that build one).
    pub fn new() -> Header {
        Header::default()
    }

    /// Adds one comment line's text (after the `;`), applying the key/continuation rules.
    pub fn push_comment(&mut self, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            self.open = false;
        } else if let Some((k, v)) = split_key(text) {
            self.push(k, v);
        } else if let (true, Some(last)) = (self.open, self.entries.last_mut()) {
            last.value.push('\n');
            last.value.push_str(text);
        } else {
            self.entries.push(HeaderEntry {
                key: None,
                value: text.to_owned(),
            });
            self.open = true;
        }
    }

    /// Appends an entry `; key: value` (a builder for writers).
    pub fn push(&mut self, key: &str, value: &str) {
        self.entries.push(HeaderEntry {
            key: Some(key.to_owned()),
            value: value.to_owned(),
        });
        self.open = true;
    }

    /// All entries in file order.
    pub fn entries(&self) -> &[HeaderEntry] {
        &self.entries
    }

    /// Whether the header has no entry.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// All values of `key`, in order.
    pub fn get_all<'a, 'k>(&'a self, key: &'k str) -> impl Iterator<Item = &'a str> + use<'a, 'k> {
        self.entries
            .iter()
            .filter(move |e| {
                e.key
                    .as_deref()
                    .is_some_and(|k| k.eq_ignore_ascii_case(key))
            })
            .map(|e| e.value.as_str())
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.get_all(key).next()
    }

    fn int(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(leading_int)
    }

    /// `Version`: the SWF version (`2.2`).
    pub fn version(&self) -> Option<&str> {
        self.get("Version")
    }

    /// `Computer`: the machine (`Intel Paragon`).
    pub fn computer(&self) -> Option<&str> {
        self.get("Computer")
    }

    /// `Installation`: the site.
    pub fn installation(&self) -> Option<&str> {
        self.get("Installation")
    }

    /// `MaxJobs`: jobs in the original log (not the number of lines of a cleaned log).
    pub fn max_jobs(&self) -> Option<u64> {
        self.int("MaxJobs")
    }

    /// `MaxRecords`: records in the file.
    pub fn max_records(&self) -> Option<u64> {
        self.int("MaxRecords")
    }

    /// `UnixStartTime`: the epoch second that submit time 0 stands for.
    pub fn unix_start_time(&self) -> Option<i64> {
        self.get("UnixStartTime")
            .and_then(|v| v.trim().parse().ok())
    }

    /// `TimeZone`: offset from UTC in seconds (deprecated in SWF 2.2 but still written).
    pub fn time_zone(&self) -> Option<i64> {
        self.get("TimeZone").and_then(|v| v.trim().parse().ok())
    }

    /// `TimeZoneString`: the zone name (`US/Pacific`).
    pub fn time_zone_string(&self) -> Option<&str> {
        self.get("TimeZoneString")
    }

    /// `StartTime`: the log's start as written (free text date).
    pub fn start_time(&self) -> Option<&str> {
        self.get("StartTime")
    }

    /// `EndTime`: the log's end as written (free text date).
    pub fn end_time(&self) -> Option<&str> {
        self.get("EndTime")
    }

    /// `MaxNodes`: the leading integer of the value (`400 (48 interactive, …)` → 400).
    pub fn max_nodes(&self) -> Option<u64> {
        self.int("MaxNodes")
    }

    /// `MaxProcs`: the leading integer of the value.
    pub fn max_procs(&self) -> Option<u64> {
        self.int("MaxProcs")
    }

    /// The size of a flat machine for a log without one: `MaxProcs` (sizes are read as
    /// processors, one per node), else `MaxNodes`, with the key it came from; `None` when neither
    /// is a positive count.
    pub fn flat_size(&self) -> Option<(&'static str, u32)> {
        let sized = |key: &'static str, n: Option<u64>| {
            n.and_then(|n| u32::try_from(n).ok())
                .filter(|&n| n > 0)
                .map(|n| (key, n))
        };
        sized("MaxProcs", self.max_procs()).or_else(|| sized("MaxNodes", self.max_nodes()))
    }

    /// `MaxRuntime`: the largest allowed run time (s).
    pub fn max_runtime(&self) -> Option<u64> {
        self.int("MaxRuntime")
    }

    /// `MaxMemory`: the largest allowed memory (KB).
    pub fn max_memory(&self) -> Option<u64> {
        self.int("MaxMemory")
    }

    /// `AllowOveruse`: whether jobs may exceed their requests (`Yes`/`No`, `true`/`false`).
    pub fn allow_overuse(&self) -> Option<bool> {
        let v = self.get("AllowOveruse")?.trim();
        if ["yes", "true", "1"]
            .iter()
            .any(|y| v.eq_ignore_ascii_case(y))
        {
            Some(true)
        } else if ["no", "false", "0"]
            .iter()
            .any(|n| v.eq_ignore_ascii_case(n))
        {
            Some(false)
        } else {
            None
        }
    }

    /// `MaxQueues`: number of queues.
    pub fn max_queues(&self) -> Option<u64> {
        self.int("MaxQueues")
    }

    /// `MaxPartitions`: number of partitions.
    pub fn max_partitions(&self) -> Option<u64> {
        self.int("MaxPartitions")
    }

    /// `Queues:` free text about the queues.
    pub fn queues_note(&self) -> Option<&str> {
        self.get("Queues")
    }

    /// `Partitions:` free text about the partitions.
    pub fn partitions_note(&self) -> Option<&str> {
        self.get("Partitions")
    }

    fn table(&self, key: &str) -> Vec<TableEntry> {
        self.get_all(key)
            .filter_map(|v| {
                let (number, name) = v.split_once(char::is_whitespace).unwrap_or((v, ""));
                Some(TableEntry {
                    number: number.parse().ok()?,
                    name: name.trim().to_owned(),
                })
            })
            .collect()
    }

    /// The `Queue:` table, one row per line (rows without a leading number are left out).
    pub fn queues(&self) -> Vec<TableEntry> {
        self.table("Queue")
    }

    /// The `Partition:` table, one row per line (rows without a leading number are left out).
    pub fn partitions(&self) -> Vec<TableEntry> {
        self.table("Partition")
    }

    /// The `Note:` values, in order (multi-line notes joined with `\n`).
    pub fn notes(&self) -> Vec<&str> {
        self.get_all("Note").collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(lines: &[&str]) -> Header {
        let mut h = Header::new();
        for l in lines {
            h.push_comment(l.strip_prefix(';').unwrap_or(l));
        }
        h
    }

    #[test]
    fn sdsc_paragon_header() {
        let h = header(&[
            "; Version: 2.2",
            "; Computer: Intel Paragon",
            "; Information: http://www.sdsc.edu/",
            ";              http://www.cs.huji.ac.il/labs/parallel/workload/",
            ";",
            "; MaxJobs: 38719",
            "; UnixStartTime: 820090437",
            "; TimeZone: 0",
            "; EndTime:   Tue Dec 31 23:51:19 PST 1996",
            "; MaxNodes: 400 (48 interactive, 352 batch, 6 service, 10 I/O)",
            "; Queue:  0  interactive    ",
            "; Queue: 10  q256s          ",
            "; MaxPartitions: 2",
            "; Partition:  2  batch          ",
            ";",
            "; Note: THIS IS A CLEANED VERSION OF THE LOG!",
            ";       The filters used to produce it were",
            ";         user=5 and (hour>=3 and hour<=3) (5301 jobs removed)",
            ";",
            "; just a remark",
        ]);
        assert_eq!(h.version(), Some("2.2"));
        assert_eq!(h.computer(), Some("Intel Paragon"));
        assert_eq!(
            h.get("information"),
            Some("http://www.sdsc.edu/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/")
        );
        assert_eq!(h.max_jobs(), Some(38_719));
        assert_eq!(h.unix_start_time(), Some(820_090_437));
        assert_eq!(h.time_zone(), Some(0));
        assert_eq!(h.end_time(), Some("Tue Dec 31 23:51:19 PST 1996"));
        assert_eq!(h.max_nodes(), Some(400));
        assert_eq!(h.max_procs(), None);
        let q = h.queues();
        assert_eq!(q.len(), 2);
        assert_eq!((q[1].number, q[1].name.as_str()), (10, "q256s"));
        assert_eq!(h.max_partitions(), Some(2));
        assert_eq!(h.partitions()[0].name, "batch");
        let notes = h.notes();
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].lines().count(), 3);
        let last = h.entries().last().expect("free text kept");
        assert_eq!(
            (last.key.as_deref(), last.value.as_str()),
            (None, "just a remark")
        );
    }

    #[test]
    fn typed_flags_and_notes_lists() {
        let h = header(&[
            "; AllowOveruse: No",
            "; Queues: these are actually LoadLeveler classes",
            "; Note: one",
            "; Note: two",
        ]);
        assert_eq!(h.allow_overuse(), Some(false));
        assert_eq!(
            h.queues_note(),
            Some("these are actually LoadLeveler classes")
        );
        assert!(h.queues().is_empty());
        assert_eq!(h.notes(), vec!["one", "two"]);
    }

    #[test]
    fn a_flat_size_comes_from_max_procs_else_max_nodes() {
        assert_eq!(
            header(&["; MaxNodes: 64", "; MaxProcs: 128"]).flat_size(),
            Some(("MaxProcs", 128))
        );
        assert_eq!(
            header(&["; MaxNodes: 400 (48 interactive)", "; MaxProcs: 0"]).flat_size(),
            Some(("MaxNodes", 400))
        );
        assert_eq!(header(&["; MaxNodes: 0"]).flat_size(), None);
        assert_eq!(header(&[]).flat_size(), None);
    }
}
