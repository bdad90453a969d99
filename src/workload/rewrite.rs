//! How other simulators rewrite a log before they replay it ([`InputRewrite`], chosen by the
//! scheduling profile, [`crate::sched::semantics`]).
//!
//! [`rewrite`] turns one SWF record into the record the conversion then reads as usual (size from
//! field 5, run time from field 4, estimate from field 9), or says why the simulator drops it:
//!
//! * **SC 2015** (`strong_filter_all_swf` of the `predictsim` repository, the experiments of
//!   Gaussier, Glesser, Reis & Trystram, run before pyss reads the log): drop a job whose field 5
//!   or 8 exceeds the machine's processors; its size is field 8 if positive, else field 5 if
//!   positive, else it is dropped; drop a run time ≤ 0 and a requested time ≤ 0; cut the run time
//!   at the requested time; drop a negative submit time.
//! * **CQSim** (`Filter_job_SWF.input_check` of SPEAR-UIC/CQSim): cut the run time at the
//!   requested time, then drop a job number ≤ 0, a negative submit time, a run time ≤ 0, a
//!   requested time ≤ 0 or a field 8 ≤ 0; its size is field 8 (field 5 is never read).

use crate::swf::Record;

/// How the log's records are rewritten before they become jobs.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum InputRewrite {
    /// As the trace's conversion reads them (the catalog's filters and size field).
    #[default]
    AsLogged,
    /// The SC 2015 experiments' filter (see the module docs).
    Sc15,
    /// CQSim's reader (see the module docs).
    Cqsim,
}

/// Why a rewriting drops a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RewriteDrop {
    /// Larger than the machine (field 5 or 8).
    TooLarge,
    /// No positive size in the field(s) read.
    NoSize,
    /// Run time missing or ≤ 0 (after the cut).
    NoRuntime,
    /// Requested time missing or ≤ 0.
    NoRequestedTime,
    /// Job number ≤ 0 or submit time negative.
    BadNumber,
}

/// `rec` as the simulator of `input` reads it on a machine of `max_procs` processors, or why it
/// drops it.
pub fn rewrite(rec: &Record, input: InputRewrite, max_procs: u64) -> Result<Record, RewriteDrop> {
    let positive = |v: Option<i64>| v.filter(|&v| v > 0);
    let mut out = rec.clone();
    match input {
        InputRewrite::AsLogged => return Ok(out),
        InputRewrite::Sc15 => {
            let fits = |v: Option<i64>| v.is_none_or(|v| v <= max_procs as i64);
            if !fits(rec.allocated_procs) || !fits(rec.requested_procs) {
                return Err(RewriteDrop::TooLarge);
            }
            let size = positive(rec.requested_procs)
                .or(positive(rec.allocated_procs))
                .ok_or(RewriteDrop::NoSize)?;
            let run = positive(rec.run_time).ok_or(RewriteDrop::NoRuntime)?;
            let requested = positive(rec.requested_time).ok_or(RewriteDrop::NoRequestedTime)?;
            if rec.submit.is_some_and(|s| s < 0) {
                return Err(RewriteDrop::BadNumber);
            }
            out.allocated_procs = Some(size);
            out.requested_procs = Some(size);
            out.run_time = Some(run.min(requested));
        }
        InputRewrite::Cqsim => {
            let cut = match (rec.run_time, rec.requested_time) {
                (Some(r), Some(q)) if r > q => Some(q),
                (r, _) => r,
            };
            if rec.job_id == 0 || rec.submit.is_some_and(|s| s < 0) {
                return Err(RewriteDrop::BadNumber);
            }
            let run = positive(cut).ok_or(RewriteDrop::NoRuntime)?;
            positive(rec.requested_time).ok_or(RewriteDrop::NoRequestedTime)?;
            let size = positive(rec.requested_procs).ok_or(RewriteDrop::NoSize)?;
            out.allocated_procs = Some(size);
            out.run_time = Some(run);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(run: i64, alloc: i64, req_procs: i64, req_time: i64) -> Record {
        let opt = |v: i64| (v != -1).then_some(v);
        Record {
            job_id: 7,
            submit: Some(100),
            run_time: opt(run),
            allocated_procs: opt(alloc),
            requested_procs: opt(req_procs),
            requested_time: opt(req_time),
            ..Record::default()
        }
    }

    #[test]
    fn sc15_sizes_by_field_8_then_5_and_cuts_at_the_request() {
        let r = rewrite(&rec(500, 15, 13, 300), InputRewrite::Sc15, 100).unwrap();
        assert_eq!((r.allocated_procs, r.run_time), (Some(13), Some(300)));
        let r = rewrite(&rec(50, 15, -1, 300), InputRewrite::Sc15, 100).unwrap();
        assert_eq!((r.allocated_procs, r.run_time), (Some(15), Some(50)));
        let drop = |r| rewrite(&r, InputRewrite::Sc15, 100).unwrap_err();
        assert_eq!(drop(rec(50, 101, 4, 300)), RewriteDrop::TooLarge);
        assert_eq!(drop(rec(50, -1, -1, 300)), RewriteDrop::NoSize);
        assert_eq!(drop(rec(0, 4, 4, 300)), RewriteDrop::NoRuntime);
        assert_eq!(drop(rec(50, 4, 4, -1)), RewriteDrop::NoRequestedTime);
    }

    #[test]
    fn cqsim_sizes_by_field_8_only_and_cuts_before_it_checks() {
        let r = rewrite(&rec(500, 15, 13, 300), InputRewrite::Cqsim, 100).unwrap();
        assert_eq!((r.allocated_procs, r.run_time), (Some(13), Some(300)));
        let drop = |r| rewrite(&r, InputRewrite::Cqsim, 100).unwrap_err();
        assert_eq!(
            drop(rec(50, 15, -1, 300)),
            RewriteDrop::NoSize,
            "field 5 is not read"
        );
        assert_eq!(drop(rec(50, 4, 4, -1)), RewriteDrop::NoRequestedTime);
        assert_eq!(drop(rec(0, 4, 4, 300)), RewriteDrop::NoRuntime);
        assert_eq!(
            rewrite(&rec(50, 4, 4, 30), InputRewrite::AsLogged, 1).unwrap(),
            rec(50, 4, 4, 30)
        );
    }
}
