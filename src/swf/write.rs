//! Writing SWF: the header as `; Key: value` lines and records in the archive's column layout.

use std::io::{self, Write};

use super::Record;
use super::header::Header;

/// Minimum column widths of the archive's files (`    1        0 588530    937  306 142.00 …`).
const WIDTHS: [usize; 18] = [5, 8, 6, 6, 4, 6, 5, 4, 6, 5, 2, 3, 3, 3, 2, 2, 2, 2];

/// Indentation of continuation lines (`;       The filters used …`).
const CONTINUATION: &str = ";       ";

/// Writes the header: one `; Key: value` line per entry, continuation lines indented,
/// free-text entries as `; text` after an empty `;` line (so that they do not read back as the
/// continuation of the entry before).
pub fn write_header<W: Write + ?Sized>(w: &mut W, header: &Header) -> io::Result<()> {
    for (i, entry) in header.entries().iter().enumerate() {
        let mut lines = entry.value.lines();
        let first = lines.next().unwrap_or("");
        match &entry.key {
            Some(key) if first.is_empty() => writeln!(w, "; {key}:")?,
            Some(key) => writeln!(w, "; {key}: {first}")?,
            None if i == 0 => writeln!(w, "; {first}")?,
            None => writeln!(w, ";\n; {first}")?,
        }
        for line in lines {
            writeln!(w, "{CONTINUATION}{line}")?;
        }
    }
    Ok(())
}

/// Writes one job line (18 columns, `-1` for `None`, newline-terminated).
///
/// Decimal fields (6, 7) are written as integers when integral and otherwise in Rust's shortest
/// round-trip form, so that reading the line back gives the same `f64`. A non-finite decimal is
/// an [`io::ErrorKind::InvalidInput`] error: SWF has no way to write it.
pub fn write_record<W: Write + ?Sized>(w: &mut W, r: &Record) -> io::Result<()> {
    let int = |v: Option<i64>| v.unwrap_or(-1);
    let ints = [
        int(r.submit),
        int(r.wait),
        int(r.run_time),
        int(r.allocated_procs),
    ];
    let rest = [
        int(r.requested_procs),
        int(r.requested_time),
        int(r.requested_memory),
        int(r.status),
        int(r.user),
        int(r.group),
        int(r.executable),
        int(r.queue),
        int(r.partition),
        int(r.preceding_job),
        int(r.think_time),
    ];
    write!(w, "{:>1$}", r.job_id, WIDTHS[0])?;
    for (i, v) in ints.iter().enumerate() {
        write!(w, " {v:>0$}", WIDTHS[1 + i])?;
    }
    write_decimal(w, r.avg_cpu_time, WIDTHS[5])?;
    write_decimal(w, r.used_memory, WIDTHS[6])?;
    for (i, v) in rest.iter().enumerate() {
        write!(w, " {v:>0$}", WIDTHS[7 + i])?;
    }
    writeln!(w)
}

fn write_decimal<W: Write + ?Sized>(w: &mut W, v: Option<f64>, width: usize) -> io::Result<()> {
    match v {
        None => write!(w, " {:>width$}", -1),
        Some(x) if !x.is_finite() => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("SWF cannot hold the decimal value {x}"),
        )),
        // `Display` for f64 never uses an exponent and round-trips exactly.
        Some(x) => write!(w, " {x:>width$}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::swf::parse::parse_record;

    #[test]
    fn archive_layout() {
        let r = Record {
            job_id: 1,
            submit: Some(0),
            wait: Some(588_530),
            run_time: Some(937),
            allocated_procs: Some(306),
            avg_cpu_time: Some(142.5),
            requested_time: Some(35_100),
            status: Some(1),
            user: Some(97),
            executable: Some(307),
            queue: Some(3),
            ..Record::default()
        };
        let mut out = Vec::new();
        write_record(&mut out, &r).expect("write to a Vec");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "    1        0 588530    937  306  142.5    -1   -1  35100    -1  1  97  -1 307  3 -1 -1 -1\n"
        );
        assert_eq!(parse_record(out.trim_ascii_end()), Ok(r));
    }

    #[test]
    fn non_finite_decimals_are_refused() {
        let r = Record {
            avg_cpu_time: Some(f64::NAN),
            ..Record::default()
        };
        let err = write_record(&mut Vec::new(), &r).expect_err("NaN has no SWF form");
        assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn header_lines() {
        let mut h = Header::new();
        h.push("Version", "2.2");
        h.push("Note", "first line\nsecond line");
        h.push("Empty", "");
        h.push_comment("");
        h.push_comment("free text");
        let mut out = Vec::new();
        write_header(&mut out, &h).expect("write to a Vec");
        assert_eq!(
            String::from_utf8_lossy(&out),
            "; Version: 2.2\n; Note: first line\n;       second line\n; Empty:\n;\n; free text\n"
        );
    }
}
