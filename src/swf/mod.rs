//! Standard Workload Format (SWF): records, header, streaming parser, writer.
//!
//! * [`SwfReader`] reads a log line by line — from a path (plain or gzip, detected by content),
//!   or from any [`std::io::BufRead`] with a display name. The leading `;` comment lines become a
//!   [`Header`]; then the reader is an iterator of [`Record`]s.
//! * [`ReadOptions`] chooses strict reading (the first bad line is an error) or lenient reading
//!   (bad lines are skipped and counted in a [`SkipReport`]).
//! * Every [`SwfError`] names the input, and where they apply the line and the field:
//!   `traces/x.swf:1203: field 4 (run time): not an integer: "12a"`.
//! * [`read_all`] reads a whole file; [`write_header`] and [`write_record`] write SWF back.
//!
//! ```
//! use pwa_replay::swf::{ReadOptions, SwfReader};
//!
//! let log = b"; Version: 2.2\n\
//! ; MaxNodes: 400 (48 interactive, 352 batch, 6 service, 10 I/O)\n\
//!     1        0 392395  19025   64  19025    -1   -1     -1    -1  1   4  -1  -1 23  2 -1 -1\n\
//!     2   172211 562446  43328  128 216.90    -1   -1     -1    -1  1   4  -1  -1 25  2 -1 -1\n";
//! let mut reader = SwfReader::from_bufread(&log[..], "sdsc.swf", ReadOptions::strict())?;
//! assert_eq!(reader.header().max_nodes(), Some(400));
//! let jobs = reader.by_ref().collect::<Result<Vec<_>, _>>()?;
//! assert_eq!(jobs[1].run_time, Some(43_328));
//! assert_eq!(jobs[1].avg_cpu_time, Some(216.9));
//! assert_eq!(jobs[1].requested_procs, None); // -1 in the file
//!
//! let bad = b"1 0 5 12a 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1\n";
//! let err = SwfReader::from_bufread(&bad[..], "x.swf", ReadOptions::strict())?
//!     .next()
//!     .and_then(Result::err)
//!     .map(|e| e.to_string());
//! assert_eq!(err.as_deref(), Some(r#"x.swf:1: field 4 (run time): not an integer: "12a""#));
//! # Ok::<(), pwa_replay::swf::SwfError>(())
//! ```

mod error;
mod header;
mod parse;
mod reader;
mod record;
mod write;

pub use error::{FIELD_COUNT, Field, FieldProblem, SkipReason, SkipReport, SwfError, Tally};
pub use header::{Header, HeaderEntry, TableEntry};
pub use reader::{MAX_LINE_BYTES, ReadOptions, SwfReader, read_all};
pub use record::Record;
pub use write::{write_header, write_record};
