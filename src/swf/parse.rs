//! The job-line parser, in two layers that accept the same lines:
//!
//! * `fast`: one pass of nom-style parsers, one per field, with hand-rolled digit loops and a unit
//!   error — no allocation, no UTF-8 check, no second look at a byte;
//! * [`parse_record_by_tokens`]: nom splits the 18 fields, then each is read with full error
//!   reporting. It defines the language; the fast layer declines anything unusual (errors, long
//!   numbers) and hands the line over.
//!
//! Number syntax (a choice, see `docs/ALGORITHMS.md`, section "SWF reader"):
//! * integer fields: `[+-]?[0-9]+` optionally followed by `.` and digits that are **all zero**
//!   (`300.00` reads as 300; `216.90` in an integer field is an error);
//! * decimal fields 6 and 7: `[+-]?[0-9]+(\.[0-9]+)?` — no exponent, no `inf`/`nan`;
//! * `-1` (or `-1.0…`) means missing; other negative values are kept.

use nom::IResult;
use nom::Parser as _;
use nom::bytes::complete::{take_till1, take_while};
use nom::sequence::preceded;

use super::Record;
use super::error::{FIELD_COUNT, Field, FieldProblem};

/// Why a job line did not parse (the reader adds path and line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LineError<'a> {
    /// Not exactly 18 fields; holds the number found.
    FieldCount(usize),
    /// One field is bad.
    Field {
        /// The field.
        field: Field,
        /// What is wrong.
        problem: FieldProblem,
        /// Its text.
        text: &'a [u8],
    },
}

/// Field separators: blanks and tabs.
fn is_sep(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// One whitespace-delimited token.
fn token(i: &[u8]) -> IResult<&[u8], &[u8]> {
    preceded(take_while(is_sep), take_till1(is_sep)).parse(i)
}

/// Splits a line (without its line ending) into exactly 18 tokens, or counts them.
fn split_fields(line: &[u8]) -> Result<[&[u8]; FIELD_COUNT], usize> {
    let mut fields: [&[u8]; FIELD_COUNT] = [&[]; FIELD_COUNT];
    let mut rest = line;
    let mut n = 0;
    while let Ok((r, t)) = token(rest) {
        if let Some(slot) = fields.get_mut(n) {
            *slot = t;
        }
        n += 1;
        rest = r;
    }
    if n == FIELD_COUNT { Ok(fields) } else { Err(n) }
}

/// Index of the field that holds byte `pos` of `line` (the last field for trailing text), or
/// `None` if `pos` falls before the first token.
pub(crate) fn field_at(line: &[u8], pos: usize) -> Option<Field> {
    let mut index = None;
    let mut in_token = false;
    for &b in line.get(..=pos)? {
        if is_sep(b) {
            in_token = false;
        } else if !in_token {
            in_token = true;
            index = Some(index.map_or(0, |i: usize| i + 1));
        }
    }
    index.map(|i| Field::at(i.min(FIELD_COUNT - 1)))
}

/// Parses one job line (no line ending, no comment) into a [`Record`].
///
/// A fused one-pass parser handles the common case; anything it does not accept (errors, but also
/// long numbers) goes through the token-by-token parser, which defines the accepted language and
/// the error messages. A property test checks that the two agree.
#[inline]
pub(crate) fn parse_record(line: &[u8]) -> Result<Record, LineError<'_>> {
    match fast::record(line) {
        Ok((_, record)) => Ok(record),
        Err(_) => parse_record_by_tokens(line),
    }
}

/// The reference parser: split into tokens, then read each with full error reporting.
fn parse_record_by_tokens(line: &[u8]) -> Result<Record, LineError<'_>> {
    let f = split_fields(line).map_err(LineError::FieldCount)?;
    let int = |i: usize| {
        parse_int(f[i]).map_err(|problem| LineError::Field {
            field: Field::at(i),
            problem,
            text: f[i],
        })
    };
    let opt_int = |i: usize| int(i).map(|v| (v != -1).then_some(v));
    let opt_dec = |i: usize| {
        parse_decimal(f[i])
            .map(|v| (v != -1.0).then_some(v))
            .map_err(|problem| LineError::Field {
                field: Field::at(i),
                problem,
                text: f[i],
            })
    };
    let job_id = parse_job_number(f[0]).map_err(|problem| LineError::Field {
        field: Field::at(0),
        problem,
        text: f[0],
    })?;
    Ok(Record {
        job_id,
        submit: opt_int(1)?,
        wait: opt_int(2)?,
        run_time: opt_int(3)?,
        allocated_procs: opt_int(4)?,
        avg_cpu_time: opt_dec(5)?,
        used_memory: opt_dec(6)?,
        requested_procs: opt_int(7)?,
        requested_time: opt_int(8)?,
        requested_memory: opt_int(9)?,
        status: opt_int(10)?,
        user: opt_int(11)?,
        group: opt_int(12)?,
        executable: opt_int(13)?,
        queue: opt_int(14)?,
        partition: opt_int(15)?,
        preceding_job: opt_int(16)?,
        think_time: opt_int(17)?,
    })
}

/// Splits an optional leading sign off a token: `(negative, rest)`.
fn sign(t: &[u8]) -> (bool, &[u8]) {
    match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((b'+', rest)) => (false, rest),
        _ => (false, t),
    }
}

/// Splits `digits[.fraction]`; `None` when there is no integer digit, a non-digit, or an empty
/// fraction after the point.
fn digits_and_fraction(t: &[u8]) -> Option<(&[u8], &[u8])> {
    let (int, frac) = match t.iter().position(|&b| b == b'.') {
        Some(dot) => (&t[..dot], Some(&t[dot + 1..])),
        None => (t, None),
    };
    let all_digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    if !all_digits(int) || frac.is_some_and(|f| !all_digits(f)) {
        return None;
    }
    Some((int, frac.unwrap_or(&[])))
}

/// Reads an integer's sign and magnitude (see the module doc for the syntax).
fn parse_magnitude(t: &[u8]) -> Result<(bool, u64), FieldProblem> {
    let (neg, body) = sign(t);
    let (int, frac) = digits_and_fraction(body).ok_or(FieldProblem::NotAnInteger)?;
    if frac.iter().any(|&b| b != b'0') {
        return Err(FieldProblem::NotAnInteger);
    }
    let magnitude = if int.len() <= 18 {
        // At most 18 digits: below 10^18 < 2^63, no overflow possible.
        int.iter().fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'))
    } else {
        int.iter()
            .try_fold(0u64, |v, &d| {
                v.checked_mul(10)?.checked_add(u64::from(d - b'0'))
            })
            .ok_or(FieldProblem::Overflow)?
    };
    Ok((neg, magnitude))
}

/// Reads an integer field into `i64`.
fn parse_int(t: &[u8]) -> Result<i64, FieldProblem> {
    match parse_magnitude(t)? {
        (true, m) => 0i64.checked_sub_unsigned(m).ok_or(FieldProblem::Overflow),
        (false, m) => i64::try_from(m).map_err(|_| FieldProblem::Overflow),
    }
}

/// Reads the job number (field 1) into `u64`: negative numbers (also `-1`) are errors.
fn parse_job_number(t: &[u8]) -> Result<u64, FieldProblem> {
    match parse_magnitude(t)? {
        (false, m) | (true, m @ 0) => Ok(m),
        (true, _) => Err(FieldProblem::Negative),
    }
}

/// Exact powers of ten as `f64` (10^22 is the largest exactly representable).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Reads a decimal field (6 or 7), correctly rounded.
fn parse_decimal(t: &[u8]) -> Result<f64, FieldProblem> {
    let (neg, body) = sign(t);
    let (int, frac) = digits_and_fraction(body).ok_or(FieldProblem::NotANumber)?;
    let value = if int.len() + frac.len() <= 15 {
        // Clinger's fast path: the mantissa (< 10^15 < 2^53) and 10^k (k ≤ 15) are exact, so
        // one correctly rounded division gives the correctly rounded result.
        let m = int
            .iter()
            .chain(frac)
            .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
        m as f64 / POW10[frac.len()]
    } else {
        // Syntax checked above: ASCII digits and at most one point, so this is valid UTF-8 that
        // `f64::from_str` accepts; it never fails, but fall back to an error rather than panic.
        std::str::from_utf8(body)
            .ok()
            .and_then(|s| s.parse::<f64>().ok())
            .ok_or(FieldProblem::NotANumber)?
    };
    Ok(if neg { -value } else { value })
}

/// The fast path: nom parsers over the line, each reading one field in a single pass with
/// hand-rolled digit loops; the unit error `()` costs nothing, and any failure sends the line to
/// [`parse_record_by_tokens`].
mod fast {
    use nom::IResult;

    use super::{POW10, Record, is_sep};

    type Res<'a, T> = IResult<&'a [u8], T, ()>;

    fn fail<T>() -> Result<T, nom::Err<()>> {
        Err(nom::Err::Error(()))
    }

    /// Skips blanks, then an optional sign.
    #[inline(always)]
    fn start(i: &[u8]) -> (bool, &[u8]) {
        let skip = i.iter().take_while(|&&b| is_sep(b)).count();
        super::sign(&i[skip..])
    }

    /// Up to `max` digits: (value, digit count, rest).
    #[inline(always)]
    fn digits(i: &[u8], max: usize) -> (u64, usize, &[u8]) {
        let mut v = 0u64;
        let mut n = 0;
        while let Some(&b) = i.get(n) {
            if !b.is_ascii_digit() || n == max {
                break;
            }
            v = v * 10 + u64::from(b - b'0');
            n += 1;
        }
        (v, n, &i[n..])
    }

    /// The field must end at a blank or at the end of the line.
    #[inline(always)]
    fn end(i: &[u8]) -> Result<(), nom::Err<()>> {
        match i.first() {
            Some(&b) if !is_sep(b) => fail(),
            _ => Ok(()),
        }
    }

    /// An integer field of at most 18 digits with an optional all-zero fraction.
    #[inline(always)]
    fn int(i: &[u8]) -> Res<'_, (bool, u64)> {
        let (neg, i) = start(i);
        let (v, n, mut i) = digits(i, 18);
        if n == 0 {
            return fail();
        }
        if let Some((b'.', frac)) = i.split_first() {
            let zeros = frac.iter().take_while(|&&b| b == b'0').count();
            if zeros == 0 {
                return fail();
            }
            i = &frac[zeros..];
        }
        end(i)?;
        Ok((i, (neg, v)))
    }

    #[inline(always)]
    fn opt_int(i: &[u8]) -> Res<'_, Option<i64>> {
        let (i, (neg, v)) = int(i)?;
        // v < 10^18 < 2^63: the casts are exact.
        let v = if neg { -(v as i64) } else { v as i64 };
        Ok((i, (v != -1).then_some(v)))
    }

    #[inline(always)]
    fn opt_dec(i: &[u8]) -> Res<'_, Option<f64>> {
        let (neg, i) = start(i);
        let (int, n, i) = digits(i, 15);
        if n == 0 {
            return fail();
        }
        let (m, k, i) = match i.split_first() {
            Some((b'.', frac)) => {
                let (f, k, rest) = digits(frac, 15 - n);
                if k == 0 {
                    return fail();
                }
                (int * POW10[k] as u64 + f, k, rest)
            }
            _ => (int, 0, i),
        };
        end(i)?;
        // Clinger's fast path, as in `parse_decimal`: at most 15 digits in all.
        let v = m as f64 / POW10[k];
        let v = if neg { -v } else { v };
        Ok((i, (v != -1.0).then_some(v)))
    }

    fn job(i: &[u8]) -> Res<'_, u64> {
        match int(i)? {
            (i, (false, v)) | (i, (true, v @ 0)) => Ok((i, v)),
            _ => fail(),
        }
    }

    /// All 18 fields, then only blanks.
    #[inline]
    pub(super) fn record(i: &[u8]) -> Res<'_, Record> {
        let (i, job_id) = job(i)?;
        let (i, submit) = opt_int(i)?;
        let (i, wait) = opt_int(i)?;
        let (i, run_time) = opt_int(i)?;
        let (i, allocated_procs) = opt_int(i)?;
        let (i, avg_cpu_time) = opt_dec(i)?;
        let (i, used_memory) = opt_dec(i)?;
        let (i, requested_procs) = opt_int(i)?;
        let (i, requested_time) = opt_int(i)?;
        let (i, requested_memory) = opt_int(i)?;
        let (i, status) = opt_int(i)?;
        let (i, user) = opt_int(i)?;
        let (i, group) = opt_int(i)?;
        let (i, executable) = opt_int(i)?;
        let (i, queue) = opt_int(i)?;
        let (i, partition) = opt_int(i)?;
        let (i, preceding_job) = opt_int(i)?;
        let (i, think_time) = opt_int(i)?;
        if !i.iter().all(|&b| is_sep(b)) {
            return fail();
        }
        Ok((
            &[],
            Record {
                job_id,
                submit,
                wait,
                run_time,
                allocated_procs,
                avg_cpu_time,
                used_memory,
                requested_procs,
                requested_time,
                requested_memory,
                status,
                user,
                group,
                executable,
                queue,
                partition,
                preceding_job,
                think_time,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SDSC_LINE: &[u8] =
        b"    2   172211 562446  43328  128  43234    -1   -1     -1    -1  1   4  -1  -1 25  2 -1 -1";

    #[test]
    fn parses_a_real_sdsc_line() {
        let r = parse_record(SDSC_LINE).expect("valid line");
        assert_eq!(r.job_id, 2);
        assert_eq!(r.submit, Some(172_211));
        assert_eq!(r.wait, Some(562_446));
        assert_eq!(r.run_time, Some(43_328));
        assert_eq!(r.allocated_procs, Some(128));
        assert_eq!(r.avg_cpu_time, Some(43_234.0));
        assert_eq!(r.used_memory, None);
        assert_eq!(r.requested_procs, None);
        assert_eq!(r.user, Some(4));
        assert_eq!(r.queue, Some(25));
        assert_eq!(r.partition, Some(2));
        assert_eq!(r.think_time, None);
    }

    #[test]
    fn decimals_in_field_six() {
        let line = b"1 0 588530 937 306 142.05 -1 -1 35100 -1 1 97 -1 307 3 -1 -1 -1";
        let r = parse_record(line).expect("valid line");
        assert_eq!(r.avg_cpu_time, Some(142.05));
        assert_eq!(parse_decimal(b"216.90"), Ok(216.9));
        assert_eq!(parse_decimal(b"-1.00"), Ok(-1.0));
        assert_eq!(parse_decimal(b"0.1"), Ok(0.1));
        assert_eq!(
            parse_decimal(b"123456789.123456789"),
            Ok(123_456_789.123_456_79) // the nearest double
        );
    }

    #[test]
    fn integers_accept_zero_fractions_only() {
        assert_eq!(parse_int(b"300.00"), Ok(300));
        assert_eq!(parse_int(b"-1"), Ok(-1));
        assert_eq!(parse_int(b"+7"), Ok(7));
        assert_eq!(parse_int(b"216.90"), Err(FieldProblem::NotAnInteger));
        assert_eq!(parse_int(b"12a"), Err(FieldProblem::NotAnInteger));
        assert_eq!(parse_int(b"-"), Err(FieldProblem::NotAnInteger));
        assert_eq!(parse_int(b"5."), Err(FieldProblem::NotAnInteger));
        assert_eq!(parse_int(b".5"), Err(FieldProblem::NotAnInteger));
    }

    #[test]
    fn integer_limits() {
        assert_eq!(parse_int(b"9223372036854775807"), Ok(i64::MAX));
        assert_eq!(parse_int(b"-9223372036854775808"), Ok(i64::MIN));
        assert_eq!(
            parse_int(b"9223372036854775808"),
            Err(FieldProblem::Overflow)
        );
        assert_eq!(
            parse_int(b"99999999999999999999999"),
            Err(FieldProblem::Overflow)
        );
        assert_eq!(
            parse_int(b"99999999999999999999x"),
            Err(FieldProblem::NotAnInteger)
        );
        assert_eq!(parse_job_number(b"18446744073709551615"), Ok(u64::MAX));
        assert_eq!(parse_job_number(b"-0"), Ok(0));
        assert_eq!(parse_job_number(b"-1"), Err(FieldProblem::Negative));
    }

    #[test]
    fn field_count_and_field_errors() {
        assert_eq!(parse_record(b"1 2 3"), Err(LineError::FieldCount(3)));
        let mut long = SDSC_LINE.to_vec();
        long.extend_from_slice(b" 7");
        assert_eq!(parse_record(&long), Err(LineError::FieldCount(19)));
        let bad = b"1 0 5 12a 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1";
        match parse_record(bad) {
            Err(LineError::Field { field, text, .. }) => {
                assert_eq!(field.number(), 4);
                assert_eq!(text, b"12a");
            }
            other => panic!("expected a field error, got {other:?}"),
        }
        let neg = b"-1 0 5 12 8 -1 -1 -1 -1 -1 1 1 1 1 1 1 -1 -1";
        assert!(matches!(
            parse_record(neg),
            Err(LineError::Field {
                problem: FieldProblem::Negative,
                ..
            })
        ));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// The fast path and the token parser accept the same lines with the same values.
        #[test]
        fn fast_path_agrees_with_the_token_parser(
            fields in proptest::collection::vec(proptest::prop_oneof![
                30 => "-1|[0-9]{1,7}(\\.[0-9]{1,3})?",
                1 => "[-+]?[0-9]{0,20}(\\.[0-9]{0,17})?",
                1 => "[0-9.a+-]{1,4}",
            ], 17..20),
            seps in proptest::collection::vec("[ \t]{1,3}", 20),
        ) {
            let mut line = Vec::new();
            for (f, sep) in fields.iter().zip(&seps) {
                line.extend_from_slice(sep.as_bytes());
                line.extend_from_slice(f.as_bytes());
            }
            let slow = parse_record_by_tokens(&line);
            match fast::record(&line) {
                Ok((_, r)) => proptest::prop_assert_eq!(Ok(r), slow),
                // Rejected by the fast path: an error or a number too long for it.
                Err(_) => proptest::prop_assert!(
                    slow.is_err() || fields.iter().any(|f| f.len() > 15)
                ),
            }
        }
    }

    #[test]
    fn fast_path_takes_the_common_lines() {
        for line in [
            SDSC_LINE,
            b"1 0 588530 937 306 142.05 -1 -1 35100 -1 1 97 -1 307 3 -1 -1 -1".as_slice(),
            b"1 0 588530.00 937 306 -1.00 -1 -1 35100 -1 1 97 -1 307 3 -1 -1 -1 \t".as_slice(),
        ] {
            let (_, fast) = fast::record(line).expect("fast path");
            assert_eq!(Ok(fast), parse_record_by_tokens(line));
        }
    }

    #[test]
    fn field_at_finds_the_token_holding_a_byte() {
        let line = b"  1 22\t333";
        assert_eq!(field_at(line, 0), None);
        assert_eq!(field_at(line, 2).map(Field::number), Some(1));
        assert_eq!(field_at(line, 5).map(Field::number), Some(2));
        assert_eq!(field_at(line, 6).map(Field::number), Some(2));
        assert_eq!(field_at(line, 9).map(Field::number), Some(3));
    }
}
