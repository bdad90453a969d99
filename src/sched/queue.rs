//! The waiting queue shared by the FIFO-based policies (FCFS, OO, OOCB-k, Delay, bypass queue), and the
//! one pass they all run: try the head while it starts, then — as far as the policy's bypass rule
//! allows — the later jobs in arrival order.
//!
//! Waiting jobs are grouped into *classes* of equal [`Request`]. Inside a class the FIFO order is the
//! arrival order, and within one pass the free set only shrinks, so once a class's oldest job fails,
//! every later job of that class fails too (feasibility is monotone in the free set). A pass therefore
//! visits only class fronts, in arrival order: `O((classes + starts) · log classes)` per pass instead of
//! a scan of the whole queue, and the jobs tried (and their order) are exactly those of the plain scan.

use std::collections::{BTreeMap, VecDeque};

use rustc_hash::FxHashMap;

use super::System;
use crate::workload::{JobId, Request};

/// Waiting jobs in arrival order, grouped by request.
#[derive(Debug, Clone, Default)]
pub(crate) struct WaitQueue {
    /// Class index of each distinct request seen (lookup only, never iterated).
    class_of: FxHashMap<Request, usize>,
    /// Per class, its waiting jobs in arrival order.
    classes: Vec<VecDeque<JobId>>,
    /// The oldest waiting job of every non-empty class, with its class; the minimum is the queue
    /// head.
    fronts: BTreeMap<JobId, usize>,
    /// Jobs waiting.
    len: usize,
}

impl WaitQueue {
    /// Number of waiting jobs.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The oldest waiting job.
    pub(crate) fn head(&self) -> Option<JobId> {
        self.fronts.first_key_value().map(|(&job, _)| job)
    }

    /// The oldest class front that arrived after `after`.
    pub(crate) fn front_after(&self, after: JobId) -> Option<JobId> {
        self.fronts
            .range(JobId(after.0 + 1)..)
            .next()
            .map(|(&job, _)| job)
    }

    /// Appends a job; jobs must be pushed in arrival (id) order within their class.
    pub(crate) fn push(&mut self, job: JobId, req: Request) {
        let next = self.classes.len();
        let c = *self.class_of.entry(req).or_insert(next);
        if c == next {
            self.classes.push(VecDeque::new());
        }
        let class = &mut self.classes[c];
        if class.is_empty() {
            self.fronts.insert(job, c);
        }
        class.push_back(job);
        self.len += 1;
    }

    /// Removes `job` if it is the front of its class (every job a pass starts is).
    pub(crate) fn remove_front(&mut self, job: JobId) {
        let Some(c) = self.fronts.remove(&job) else {
            return;
        };
        let class = &mut self.classes[c];
        class.pop_front();
        if let Some(&next) = class.front() {
            self.fronts.insert(next, c);
        }
        self.len -= 1;
    }
}

/// What distinguishes the FIFO-based policies: when the head may be bypassed.
pub(crate) trait BypassRule: Send + Clone {
    /// Whether a newcomer that finds jobs waiting is tried at once (subject to [`Self::may_bypass`])
    /// or appended without an attempt (bypass queue, Fig. 2 step 2).
    const TRY_ON_ARRIVAL: bool;
    /// May a job behind `head` be tried now?
    fn may_bypass(&mut self, head: JobId, sys: &dyn System) -> bool;
    /// A job has arrived (before any attempt).
    fn arrived(&mut self, _job: JobId, _sys: &dyn System) {}
    /// Jobs have departed ([`System::departed`] lists them).
    fn departed(&mut self, _sys: &dyn System) {}
    /// `job` started; `overtook` when it started while an older job kept waiting.
    fn started(&mut self, _job: JobId, _overtook: bool, _sys: &dyn System) {}
}

/// A FIFO queue whose head may be overtaken as its [`BypassRule`] allows.
#[derive(Debug, Clone, Default)]
pub(crate) struct Bypassing<R> {
    queue: WaitQueue,
    /// The policy's rule and state.
    pub(crate) rule: R,
}

impl<R: BypassRule> Bypassing<R> {
    /// A policy with an empty queue.
    pub(crate) fn new(rule: R) -> Self {
        Bypassing {
            queue: WaitQueue::default(),
            rule,
        }
    }

    /// Starts `job` if it fits; on success removes it from the queue (when queued) and tells the rule.
    fn start(&mut self, job: JobId, queued: bool, overtook: bool, sys: &mut dyn System) -> bool {
        if !sys.try_start(job) {
            return false;
        }
        if queued {
            self.queue.remove_front(job);
        }
        self.rule.started(job, overtook, &*sys);
        true
    }

    /// The departure pass: the head while it starts, then later class fronts while the rule allows.
    fn pass(&mut self, sys: &mut dyn System) {
        let head = loop {
            match self.queue.head() {
                None => return,
                Some(h) if self.start(h, true, false, sys) => continue,
                Some(h) => break h,
            }
        };
        let mut cursor = head;
        while let Some(next) = self.queue.front_after(cursor) {
            if !self.rule.may_bypass(head, &*sys) {
                return;
            }
            self.start(next, true, true, sys);
            cursor = next;
        }
    }
}

impl<R: BypassRule + 'static> super::Scheduler for Bypassing<R> {
    fn fork(&self) -> Option<Box<dyn super::Scheduler>> {
        Some(Box::new(self.clone()))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.rule.arrived(job, &*sys);
        let started = match self.queue.head() {
            None => self.start(job, false, false, sys),
            Some(head) => {
                R::TRY_ON_ARRIVAL
                    && self.rule.may_bypass(head, &*sys)
                    && self.start(job, false, true, sys)
            }
        };
        if !started {
            let req = sys.job(job).request;
            self.queue.push(job, req);
        }
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.rule.departed(&*sys);
        self.pass(sys);
    }

    fn waiting(&self) -> usize {
        self.queue.len()
    }
}
