//! What the backfilling policies (`easy`, `conservative`) share: one scheduling decision per instant.
//!
//! Both only *record* events in [`Scheduler::on_arrival`](super::Scheduler::on_arrival) and
//! [`Scheduler::on_departure`](super::Scheduler::on_departure) and arm a [`DeferredPass`]: a timer
//! at the current instant. Timers come last in the engine's order of an instant (departures, then
//! arrivals, then timers), so the pass runs once, after every completion and every arrival of the
//! instant — whatever the number of calls the engine split them into. A job of run time 0 started
//! by the pass departs in a further batch at the same instant, which arms (and runs) one more pass.
//! Under the engine's event passes (`sched::semantics::Passes::Event`) a timer set for the current
//! instant fires right after the event that set it, so the same code makes one pass per event.
//!
//! [`DeferredPass`] is public so that policies written outside the library (the Python package's)
//! get the same once-per-instant pass.

use super::System;
use crate::SimTime;

/// How much heavier a backfilling policy's replay is than a queue-order one's at the same load (the
/// cost of their registry lines): every event re-plans the queue. Measured on sdsc-96
/// (docs/OUTPUTS.md, "Shards"): `easy` cells took 1…90 s against 0.1…0.9 s for `fcfs`, `oo` and
/// `window:240`.
pub(crate) const BACKFILL_COST: f64 = 10.0;

/// The timer token of the deferred pass.
const PASS: u64 = 0;
/// The timer token of a wake-up at a later reservation.
const WAKE: u64 = 1;

/// A scheduling pass armed for the end of the current instant, and wake-ups for later instants.
#[derive(Debug, Clone, Default)]
pub struct DeferredPass {
    armed: bool,
    /// The earliest wake-up set and not yet fired.
    wake: Option<SimTime>,
}

impl DeferredPass {
    /// Asks for one pass at the end of this instant (once, however often it is called).
    pub fn arm(&mut self, sys: &mut dyn System) {
        if !self.armed {
            sys.set_timer(sys.now(), PASS);
            self.armed = true;
        }
    }

    /// Asks for a pass at `at` (> now): a reservation due then, which no departure may announce
    /// (the job it waits for may end before or after its estimate).
    pub(crate) fn wake_at(&mut self, at: SimTime, sys: &mut dyn System) {
        if at > sys.now() && self.wake.is_none_or(|w| at < w || w <= sys.now()) {
            sys.set_timer(at, WAKE);
            self.wake = Some(at);
        }
    }

    /// A timer fired: whether the pass is due now (it is then disarmed). A wake-up arms the pass
    /// (it runs in the same stage, after any other timer of the instant).
    pub fn fire(&mut self, token: u64, sys: &mut dyn System) -> bool {
        if token == WAKE {
            if self.wake.is_some_and(|w| w <= sys.now()) {
                self.wake = None;
            }
            self.arm(sys);
            return false;
        }
        let due = token == PASS && self.armed;
        self.armed = false;
        due
    }
}
