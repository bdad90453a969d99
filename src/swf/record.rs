//! One SWF job line: the 18 fields of the Standard Workload Format, `-1` read as `None`.

/// A job record of the Standard Workload Format (fields 1–18, in order).
///
/// Times are seconds. Missing values (`-1` in the file) are `None`. Only field 6 (average CPU time)
/// and field 7 (used memory) are commonly written with decimals; both are `f64`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Record {
    /// 1. Job number.
    pub job_id: u64,
    /// 2. Submit time (s).
    pub submit: Option<i64>,
    /// 3. Wait time (s).
    pub wait: Option<i64>,
    /// 4. Run time (s). Negative values other than -1 are kept as `Some(v)` so filters can count them.
    pub run_time: Option<i64>,
    /// 5. Number of allocated processors.
    pub allocated_procs: Option<i64>,
    /// 6. Average CPU time used (s), may hold decimals.
    pub avg_cpu_time: Option<f64>,
    /// 7. Used memory (KB per processor), may hold decimals.
    pub used_memory: Option<f64>,
    /// 8. Requested number of processors.
    pub requested_procs: Option<i64>,
    /// 9. Requested time (s).
    pub requested_time: Option<i64>,
    /// 10. Requested memory (KB per processor).
    pub requested_memory: Option<i64>,
    /// 11. Status (1 completed, 0 failed, 5 cancelled, …).
    pub status: Option<i64>,
    /// 12. User id.
    pub user: Option<i64>,
    /// 13. Group id.
    pub group: Option<i64>,
    /// 14. Executable (application) number.
    pub executable: Option<i64>,
    /// 15. Queue number.
    pub queue: Option<i64>,
    /// 16. Partition number.
    pub partition: Option<i64>,
    /// 17. Preceding job number.
    pub preceding_job: Option<i64>,
    /// 18. Think time from preceding job (s).
    pub think_time: Option<i64>,
}
