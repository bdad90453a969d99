//! Delay-based out-of-order scheduling (window-k-mesh.md §2.3, after Kim & Yoon): the head may be
//! bypassed until a load-adaptive threshold `λ·W` is reached, then strict FCFS until it starts.
//!
//! Both parameters are monitored by the scheduler:
//! * `λ`, the arrival rate: jobs arrived so far / (now − first arrival);
//! * `W`, the average waiting delay of the jobs *running now* (start − submit, averaged over them).
//!
//! By Little's law `λ·W` is a number of jobs (the mean queue length the system sustains), not a time.
//! The default reading `delay` is therefore a load-adaptive OOCB: the head may be overtaken at most
//! `⌈λ·W⌉` times. The literal time reading, `delay:time`, compares the head's own wait with `λ·W`
//! (bypassing while `now − submit(head) < λ·W`), which mixes units but is what the one-sentence
//! description says. In both readings the threshold is evaluated whenever a job behind the head is
//! about to be tried; once it is reached the head blocks every later job until it starts ("no other
//! job may be considered for allocation until the head job is served"). While `λ` is undefined (no
//! time has elapsed since the first arrival) or no job runs, `λ·W = 0`.

use std::collections::BTreeMap;

use super::System;
use super::queue::{BypassRule, Bypassing};
use crate::SimTime;
use crate::workload::JobId;

/// How `λ·W` bounds the bypassing of the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// The head may be overtaken at most `⌈λ·W⌉` times.
    Count,
    /// The head may be overtaken while its wait is below `λ·W`.
    Time,
}

/// The Delay rule and the quantities it monitors.
#[derive(Debug)]
pub(crate) struct DelayRule {
    reading: Reading,
    first_arrival: Option<SimTime>,
    arrivals: u64,
    /// Wait of every running job, to take it out of `W` when the job departs.
    running_wait: BTreeMap<JobId, SimTime>,
    wait_sum: f64,
    overtaken: u64,
    blocked: bool,
}

impl DelayRule {
    /// A rule with nothing observed yet.
    pub(crate) fn new(reading: Reading) -> Self {
        DelayRule {
            reading,
            first_arrival: None,
            arrivals: 0,
            running_wait: BTreeMap::new(),
            wait_sum: 0.0,
            overtaken: 0,
            blocked: false,
        }
    }

    /// `λ·W` now.
    fn threshold(&self, now: SimTime) -> f64 {
        let elapsed = self.first_arrival.map_or(0.0, |t0| now - t0);
        if elapsed <= 0.0 || self.running_wait.is_empty() {
            return 0.0;
        }
        let lambda = self.arrivals as f64 / elapsed;
        let w = (self.wait_sum / self.running_wait.len() as f64).max(0.0);
        lambda * w
    }
}

impl BypassRule for DelayRule {
    const TRY_ON_ARRIVAL: bool = true;

    fn may_bypass(&mut self, head: JobId, sys: &dyn System) -> bool {
        if self.blocked {
            return false;
        }
        let now = sys.now();
        let threshold = self.threshold(now);
        let ok = match self.reading {
            Reading::Count => (self.overtaken as f64) < threshold.ceil(),
            Reading::Time => now - sys.job(head).submit < threshold,
        };
        self.blocked = !ok;
        ok
    }

    fn arrived(&mut self, _job: JobId, sys: &dyn System) {
        self.first_arrival.get_or_insert(sys.now());
        self.arrivals += 1;
    }

    fn departed(&mut self, sys: &dyn System) {
        for id in sys.departed() {
            if let Some(w) = self.running_wait.remove(id) {
                self.wait_sum -= w;
            }
        }
        if self.running_wait.is_empty() {
            self.wait_sum = 0.0;
        }
    }

    fn started(&mut self, job: JobId, overtook: bool, sys: &dyn System) {
        let wait = sys.now() - sys.job(job).submit;
        self.running_wait.insert(job, wait);
        self.wait_sum += wait;
        if overtook {
            self.overtaken += 1;
        } else {
            self.overtaken = 0;
            self.blocked = false;
        }
    }
}

/// Delay-based scheduling.
pub(crate) type Delay = Bypassing<DelayRule>;

/// Builds Delay with the given reading of `λ·W`.
pub(crate) fn delay(reading: Reading) -> Delay {
    Bypassing::new(DelayRule::new(reading))
}
