//! Observers: hooks into a replay for progress, tracing and time series, with no-op defaults.

use crate::SimTime;
use crate::machine::{Allocator, Placement};
use crate::workload::JobId;

/// Watches a replay. Every method has a no-op default; the engine calls them in event order.
pub trait Observer {
    /// `job` started at `now` on `placement`.
    fn on_start(&mut self, _now: SimTime, _job: JobId, _placement: &Placement) {}
    /// `job` ended at `now`; the nodes of `placement` are free again.
    fn on_end(&mut self, _now: SimTime, _job: JobId, _placement: &Placement) {}
    /// `job` was suspended at `now`; the nodes of `placement` are free until it resumes.
    fn on_suspend(&mut self, _now: SimTime, _job: JobId, _placement: &Placement) {}
    /// `job` resumed at `now` on `placement` (the nodes it held before).
    fn on_resume(&mut self, _now: SimTime, _job: JobId, _placement: &Placement) {}
    /// The state once every event at `now` has been handled: jobs waiting and nodes busy.
    fn on_instant(&mut self, _now: SimTime, _waiting: usize, _busy_nodes: u32) {}
    /// The replay's allocator once every event at `now` has been handled (right after
    /// [`on_instant`](Self::on_instant)), for observers that measure its free set: ask it where
    /// requests would go, never change what it holds.
    fn on_allocator(&mut self, _now: SimTime, _alloc: &mut dyn Allocator) {}
}

/// An observer that ignores everything.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl Observer for NoObserver {}

/// One step of a [`TimeSeries`]: the state from `t` until the next point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimePoint {
    /// Simulated time.
    pub t: SimTime,
    /// Jobs waiting.
    pub waiting: usize,
    /// Nodes busy.
    pub busy_nodes: u32,
}

/// Records queue length and busy nodes over time, as a step function: a point only when either
/// changes.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSeries {
    /// The steps, in time order.
    pub points: Vec<TimePoint>,
}

impl Observer for TimeSeries {
    fn on_instant(&mut self, now: SimTime, waiting: usize, busy_nodes: u32) {
        let same = |p: &TimePoint| p.waiting == waiting && p.busy_nodes == busy_nodes;
        match self.points.last_mut() {
            Some(p) if same(p) => {}
            Some(p) if p.t == now => {
                p.waiting = waiting;
                p.busy_nodes = busy_nodes;
            }
            _ => self.points.push(TimePoint {
                t: now,
                waiting,
                busy_nodes,
            }),
        }
    }
}
