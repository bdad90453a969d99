//! The streaming reader: one line at a time through a reused buffer, header first, then records.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::read::MultiGzDecoder;

use super::Record;
use super::error::{Field, FieldProblem, SkipReason, SkipReport, SwfError};
use super::header::Header;
use super::parse::{LineError, field_at, parse_record};

/// Longest accepted line in bytes (without the line ending); longer lines are discarded unbuffered.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Buffer size of the file and decompressor readers.
const BUF_CAPACITY: usize = 256 * 1024;

/// The two magic bytes that open every gzip member.
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// The UTF-8 byte order mark some editors write at the start of a file.
const UTF8_BOM: &[u8] = b"\xEF\xBB\xBF";

/// Field text longer than this is shortened in error messages.
const MAX_ERROR_TEXT: usize = 40;

/// How to treat malformed lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadOptions {
    /// `false` (default, strict): the first malformed line is an error and reading stops.
    /// `true`: malformed lines are skipped and counted in a [`SkipReport`]; `\r\n` endings are
    /// accepted (and counted). I/O and gzip errors stop reading in both modes.
    pub lenient: bool,
}

impl ReadOptions {
    /// Strict reading: stop at the first malformed line.
    pub fn strict() -> ReadOptions {
        ReadOptions { lenient: false }
    }

    /// Lenient reading: skip and count malformed lines.
    pub fn lenient() -> ReadOptions {
        ReadOptions { lenient: true }
    }
}

/// What a line (line ending removed) holds.
enum LineKind<'a> {
    /// Only blanks: ignored everywhere.
    Blank,
    /// A `;` comment: the text after the `;`.
    Comment(&'a [u8]),
    /// A job line.
    Data(&'a [u8]),
}

/// The outcome of parsing one line: a record, nothing (comment or blank), or an error.
type Parsed = Result<Option<Record>, SwfError>;

/// Everything but the input and its buffer, so a line can be borrowed while this is updated.
#[derive(Debug)]
struct State {
    name: String,
    lenient: bool,
    gzip: bool,
    /// Number of the line last read (1-based; 0 before the first).
    line: u64,
    records: u64,
    /// Submit time and line of the last accepted record that had one.
    last_submit: Option<(i64, u64)>,
    skipped: SkipReport,
}

impl State {
    fn io_error(&self, source: io::Error) -> SwfError {
        let corrupt = matches!(
            source.kind(),
            io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof
        );
        if self.gzip && corrupt {
            SwfError::Gzip {
                path: self.name.clone(),
                line: self.line + 1,
                source,
            }
        } else {
            SwfError::Io {
                path: self.name.clone(),
                source,
            }
        }
    }

    /// Lenient mode counts errors that allow skipping; anything else is returned.
    fn skip_or_fail(&mut self, e: SwfError) -> Result<(), SwfError> {
        match e.skip_reason() {
            Some(reason) if self.lenient => {
                self.skipped.record(reason, self.line);
                Ok(())
            }
            _ => Err(e),
        }
    }

    /// Strips the line ending, rejects NUL bytes and (strict) CRLF, and classifies the line.
    #[inline]
    fn classify<'a>(&mut self, raw: &'a [u8]) -> Result<LineKind<'a>, SwfError> {
        let line = raw.strip_suffix(b"\n").unwrap_or(raw);
        // A UTF-8 byte order mark before the first line is not content.
        let line = match self.line {
            1 => line.strip_prefix(UTF8_BOM).unwrap_or(line),
            _ => line,
        };
        if memchr::memchr(0, line).is_some() {
            return Err(self.nul_error(line));
        }
        let line = match line.strip_suffix(b"\r") {
            Some(stripped) if self.lenient => {
                self.skipped.record(SkipReason::Crlf, self.line);
                stripped
            }
            Some(_) => {
                return Err(SwfError::Crlf {
                    path: self.name.clone(),
                    line: self.line,
                });
            }
            None => line,
        };
        Ok(match line.iter().position(|&b| b != b' ' && b != b'\t') {
            None => LineKind::Blank,
            Some(start) if line[start] == b';' => LineKind::Comment(&line[start + 1..]),
            Some(_) => LineKind::Data(line),
        })
    }

    fn nul_error(&self, line: &[u8]) -> SwfError {
        let pos = line.iter().position(|&b| b == 0).unwrap_or(0);
        let first = line.iter().position(|&b| b != b' ' && b != b'\t');
        let comment = first.is_some_and(|s| s < pos && line[s] == b';');
        SwfError::Nul {
            path: self.name.clone(),
            line: self.line,
            field: if comment { None } else { field_at(line, pos) },
        }
    }

    fn line_error(&self, e: LineError<'_>) -> SwfError {
        match e {
            LineError::FieldCount(found) => SwfError::FieldCount {
                path: self.name.clone(),
                line: self.line,
                found,
            },
            LineError::Field {
                field,
                problem,
                text,
            } => self.field_error(field, problem, shorten(text)),
        }
    }

    fn field_error(&self, field: Field, problem: FieldProblem, text: String) -> SwfError {
        SwfError::Field {
            path: self.name.clone(),
            line: self.line,
            field,
            problem,
            text,
        }
    }

    /// Submit times must not go backwards (records without one are not compared).
    #[inline]
    fn check_order(&mut self, record: &Record) -> Result<(), SwfError> {
        let Some(submit) = record.submit else {
            return Ok(());
        };
        if let Some((previous, previous_line)) = self.last_submit
            && submit < previous
        {
            let problem = FieldProblem::Backwards {
                previous,
                previous_line,
            };
            return Err(self.field_error(Field::SUBMIT, problem, submit.to_string()));
        }
        self.last_submit = Some((submit, self.line));
        Ok(())
    }

    /// Parses one raw line (line ending included): `None` for comments and blank lines.
    #[inline]
    fn parse_line(&mut self, raw: &[u8]) -> Parsed {
        let LineKind::Data(line) = self.classify(raw)? else {
            return Ok(None);
        };
        let record = parse_record(line).map_err(|e| self.line_error(e))?;
        self.check_order(&record)?;
        self.records += 1;
        Ok(Some(record))
    }
}

/// Field text for a message: ASCII-escaped, at most [`MAX_ERROR_TEXT`] bytes of the field.
fn shorten(text: &[u8]) -> String {
    match text.get(..MAX_ERROR_TEXT) {
        Some(head) if text.len() > MAX_ERROR_TEXT => format!("{}…", head.escape_ascii()),
        _ => text.escape_ascii().to_string(),
    }
}

/// A streaming SWF reader: the header is read on construction, then the records are an iterator.
///
/// Memory is bounded by one line ([`MAX_LINE_BYTES`]) plus the I/O buffers, whatever the input
/// size. In strict mode ([`ReadOptions::strict`]) the iterator yields the first error and then
/// ends; in lenient mode it skips bad lines and counts them in [`SwfReader::skipped`]. An input
/// without any job record is an error ([`SwfError::Empty`] or [`SwfError::NoRecords`]) in both
/// modes: from the constructor when the header runs to the end of the input, or as the last item.
pub struct SwfReader<R = Box<dyn BufRead + Send>> {
    inner: R,
    buf: Vec<u8>,
    state: State,
    header: Header,
    /// The buffer holds the first job line, read while looking for the end of the header.
    pending: bool,
    done: bool,
}

/// Reads the first two bytes (fewer at the end of the input), however the source splits them.
fn read_head(read: &mut impl Read) -> io::Result<([u8; 2], usize)> {
    let mut head = [0u8; 2];
    let mut n = 0;
    while n < head.len() {
        match read.read(&mut head[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok((head, n))
}

impl SwfReader {
    /// Opens a plain or gzip file (gzip detected from its first two bytes, not its name).
    pub fn open(path: impl AsRef<Path>, opts: ReadOptions) -> Result<SwfReader, SwfError> {
        let path = path.as_ref();
        let name = path.display().to_string();
        match File::open(path) {
            Ok(file) => SwfReader::detect(file, name, opts),
            Err(source) => Err(SwfError::Io { path: name, source }),
        }
    }

    /// Reads SWF from any byte source, plain or gzip (detected by content); `name` stands for
    /// the input in errors.
    pub fn detect<D: Read + Send + 'static>(
        read: D,
        name: impl Into<String>,
        opts: ReadOptions,
    ) -> Result<SwfReader, SwfError> {
        let name = name.into();
        let mut read = read;
        let (head, n) = match read_head(&mut read) {
            Ok(head) => head,
            Err(source) => return Err(SwfError::Io { path: name, source }),
        };
        let gzip = head == GZIP_MAGIC;
        // Put the peeked bytes back in front of the rest.
        let source = io::Cursor::new(head).take(n as u64).chain(read);
        let plain = BufReader::with_capacity(BUF_CAPACITY, source);
        let inner: Box<dyn BufRead + Send> = if gzip {
            let decoder = MultiGzDecoder::new(plain);
            Box::new(BufReader::with_capacity(BUF_CAPACITY, decoder))
        } else {
            Box::new(plain)
        };
        SwfReader::start(inner, name, opts, gzip)
    }
}

impl<R: BufRead> SwfReader<R> {
    /// Reads plain (uncompressed) SWF from a buffered reader; `name` stands for it in errors.
    pub fn from_bufread(
        reader: R,
        name: impl Into<String>,
        opts: ReadOptions,
    ) -> Result<SwfReader<R>, SwfError> {
        SwfReader::start(reader, name.into(), opts, false)
    }

    fn start(inner: R, name: String, opts: ReadOptions, gzip: bool) -> Result<Self, SwfError> {
        let mut reader = SwfReader {
            inner,
            buf: Vec::with_capacity(256),
            state: State {
                name,
                lenient: opts.lenient,
                gzip,
                line: 0,
                records: 0,
                last_submit: None,
                skipped: SkipReport::default(),
            },
            header: Header::new(),
            pending: false,
            done: false,
        };
        reader.read_header()?;
        Ok(reader)
    }

    /// The header (the comment lines before the first job line).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// What lenient mode skipped so far (empty in strict mode).
    pub fn skipped(&self) -> &SkipReport {
        &self.state.skipped
    }

    /// The input's path or display name.
    pub fn name(&self) -> &str {
        &self.state.name
    }

    /// Number of the line read last (1-based).
    pub fn line(&self) -> u64 {
        self.state.line
    }

    /// Number of records returned so far.
    pub fn records(&self) -> u64 {
        self.state.records
    }

    /// Whether the input turned out to be gzip.
    pub fn is_gzip(&self) -> bool {
        self.state.gzip
    }

    /// Ends reading: the header and the skip report.
    pub fn finish(self) -> (Header, SkipReport) {
        (self.header, self.state.skipped)
    }

    /// Reads up to [`MAX_LINE_BYTES`] + 1 bytes of a line into the buffer.
    fn read_chunk(&mut self) -> Result<usize, SwfError> {
        let limit = MAX_LINE_BYTES as u64 + 1;
        (&mut self.inner)
            .take(limit)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| self.state.io_error(e))
    }

    /// Reads the next line into the buffer; `false` at the end of the input.
    fn read_raw(&mut self) -> Result<bool, SwfError> {
        self.buf.clear();
        if self.read_chunk()? == 0 {
            return Ok(false);
        }
        self.state.line += 1;
        if self.buf.len() <= MAX_LINE_BYTES || self.buf.ends_with(b"\n") {
            return Ok(true);
        }
        // Too long: drop the rest of the line without buffering it.
        loop {
            self.buf.clear();
            if self.read_chunk()? == 0 || self.buf.ends_with(b"\n") {
                break;
            }
        }
        self.buf.clear();
        Err(SwfError::LineTooLong {
            path: self.state.name.clone(),
            line: self.state.line,
            limit: MAX_LINE_BYTES,
        })
    }

    /// Reads comment lines into the header until the first job line, which stays buffered.
    fn read_header(&mut self) -> Result<(), SwfError> {
        let mut content = false;
        loop {
            match self.read_raw() {
                Ok(true) => {}
                Ok(false) => return Err(self.no_records(content)),
                Err(e) => {
                    self.state.skip_or_fail(e)?;
                    content = true;
                    continue;
                }
            }
            match self.state.classify(&self.buf) {
                Ok(LineKind::Blank) => self.header.push_comment(""),
                Ok(LineKind::Comment(text)) => {
                    content = true;
                    self.header.push_comment(&String::from_utf8_lossy(text));
                }
                Ok(LineKind::Data(line)) => {
                    // Keep the line without its ending or a byte order mark, so that it is
                    // classified (and a CRLF counted) once.
                    self.buf = line.to_vec();
                    self.pending = true;
                    return Ok(());
                }
                Err(e) => {
                    content = true;
                    self.state.skip_or_fail(e)?;
                }
            }
        }
    }

    fn no_records(&self, content: bool) -> SwfError {
        let path = self.state.name.clone();
        if content {
            let skipped = self.state.skipped.skipped_lines();
            SwfError::NoRecords { path, skipped }
        } else {
            SwfError::Empty { path }
        }
    }

    /// The next record, `None` at a clean end; errors that lenient mode may skip are skipped.
    #[inline]
    fn next_record(&mut self) -> Result<Option<Record>, SwfError> {
        loop {
            let parsed = if std::mem::take(&mut self.pending) {
                self.state.parse_line(&self.buf)
            } else if let Some(parsed) = self.parse_in_place()? {
                parsed
            } else {
                match self.read_raw() {
                    Ok(true) => self.state.parse_line(&self.buf),
                    Ok(false) if self.state.records == 0 => return Err(self.no_records(true)),
                    Ok(false) => return Ok(None),
                    Err(e) => Err(e),
                }
            };
            match parsed {
                Ok(Some(record)) => return Ok(Some(record)),
                Ok(None) => {}
                Err(e) => self.state.skip_or_fail(e)?,
            }
        }
    }

    /// Parses the next line where it lies in the reader's buffer, without copying it; `None`
    /// when no whole line is buffered (then [`SwfReader::read_raw`] copies it).
    #[inline]
    fn parse_in_place(&mut self) -> Result<Option<Parsed>, SwfError> {
        let available = loop {
            match self.inner.fill_buf() {
                Ok(available) => break available,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.state.io_error(e)),
            }
        };
        match memchr::memchr(b'\n', available) {
            Some(end) if end <= MAX_LINE_BYTES => {
                self.state.line += 1;
                let parsed = self.state.parse_line(&available[..=end]);
                self.inner.consume(end + 1);
                Ok(Some(parsed))
            }
            _ => Ok(None),
        }
    }
}

impl<R: BufRead> Iterator for SwfReader<R> {
    type Item = Result<Record, SwfError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = self.next_record().transpose();
        self.done = !matches!(item, Some(Ok(_)));
        item
    }
}

impl<R> std::fmt::Debug for SwfReader<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SwfReader")
            .field("state", &self.state)
            .field("header", &self.header)
            .field("pending", &self.pending)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// Reads a whole file (plain or gzip): header, records and what lenient mode skipped.
pub fn read_all(
    path: impl AsRef<Path>,
    opts: ReadOptions,
) -> Result<(Header, Vec<Record>, SkipReport), SwfError> {
    let mut reader = SwfReader::open(path, opts)?;
    let hint = reader.header().max_records().unwrap_or(0).min(1 << 20);
    let mut records = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    for record in reader.by_ref() {
        records.push(record?);
    }
    let (header, skipped) = reader.finish();
    Ok((header, records, skipped))
}
