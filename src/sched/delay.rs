//! Delay-based out-of-order scheduling (window-k-mesh.md §2.3, after Kim & Yoon): the head may be
//! bypassed until a load-adaptive threshold `λ·W` is reached, then strict FCFS until it starts.
//!
//! Both parameters are monitored by the scheduler:
//! * `λ`, the arrival rate: jobs arrived so far / (now − first arrival);
//! * `W`, the average waiting delay of the jobs *running now* (start − submit, averaged over them).
//!
//! The default reading `delay` is the literal one of §2.3 ("a dynamic threshold value is imposed on
//! the waiting delay of the head"): the head may be bypassed while its own wait is below `λ·W`
//! (`now − submit(head) < λ·W`). By Little's law `λ·W` is rather a number of jobs, so `delay:count`
//! offers the other reading, a load-adaptive OOCB: the head may be overtaken at most `⌈λ·W⌉` times.
//! The time reading is the default because it is what the text says and because it reproduces the
//! paper's results: on the uniform 32×32 workload its maximum utilization (0.67) is, as §5.2 states,
//! substantially below Window-240's (0.76), while the count reading loosens towards OO under heavy
//! load (0.77). In both readings the threshold is evaluated whenever a job behind the head is
//! about to be tried; once it is reached the head blocks every later job until it starts ("no other
//! job may be considered for allocation until the head job is served"). While `λ` is undefined (no
//! time has elapsed since the first arrival) or no job runs, `λ·W = 0`.

use std::collections::BTreeMap;

use super::System;
use super::label::Form;
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
#[derive(Debug, Clone)]
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

/// `delay`: the time reading.
pub(super) const TIME: Form<()> =
    Form::bare(|_| Box::new(delay(Reading::Time))).title(|_| "Delay".into());

/// `delay:count`: the count reading.
pub(super) const COUNT: Form<()> = Form::new(
    |l| l.keyword("count"),
    |_| vec!["count".into()],
    |_| Box::new(delay(Reading::Count)),
);
