//! Scan scheduling (Krueger, Lai & Radiya; lazy-scheduling-hypercube.md §2.3): `n + 1` FIFO queues,
//! one per cube dimension `0…n`, served like the C-SCAN disk discipline.
//!
//! §2.3 leaves three points open; each is a [`ScanReading`] field, the default first (`scan-up`):
//!
//! * **Arrivals to the queue in service** ([`Arrivals`]). `hold`: only the jobs present when the
//!   queue's service began belong to this sweep; later ones wait for the next sweep (the
//!   starvation-free variant, "disallowing allocation of jobs that arrive after the scheduler starts
//!   allocating from the queue"). `join`: they are allocated in this sweep ("all jobs of a given
//!   dimension (including those that arrive when the queue is in service) are allocated before the
//!   scheduler moves on").
//! * **The pointer** ([`Advance`]). `jump`: when a sweep is done the scan moves to the next
//!   non-empty queue, `(i + 1) mod (n + 1)` (`scan-up`) or `(i − 1) mod (n + 1)` (`scan-down`),
//!   passing empty queues; when every other queue is empty it comes back to the same queue. `step`:
//!   the pointer moves one queue per scheduling event (an arrival or the releases of an instant), an
//!   empty queue costing an event like a full one; on an empty machine no release can come, so there
//!   it moves on to the next non-empty queue at once.
//! * **A sweep whose head does not fit** ([`Blocked`]). `wait`: the scan does not move on while the
//!   sweep has jobs; it waits for releases ("all jobs of a given dimension … are allocated before the
//!   scheduler moves on"). `skip`: the scan leaves the queue (its remaining jobs wait for the next
//!   visit) and goes on to the next, as long as some queue it has not yet tried in this event may
//!   start a job.
//!
//! The scan starts at queue 0 (`scan-up`) or `n` (`scan-down`). `n` is the machine's dimension (a
//! hypercube's, else `⌈log2 nodes⌉`).

use std::collections::VecDeque;
use std::fmt;

use super::label::{Form, Label};
use super::lazy::cube_dim;
use super::{Scheduler, System};
use crate::resource::MachineSpec;
use crate::workload::JobId;

/// Scan direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    /// ScanUp: towards larger cubes.
    Up,
    /// ScanDown: towards smaller cubes.
    Down,
}

/// What happens to a job arriving at the queue in service.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arrivals {
    /// It waits for the next sweep (the starvation-free variant).
    #[default]
    Hold,
    /// It joins the current sweep.
    Join,
}

/// How the pointer moves when a sweep is done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Advance {
    /// To the next non-empty queue at once.
    #[default]
    Jump,
    /// One queue per scheduling event.
    Step,
}

/// What the scan does when the head of its sweep does not fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Blocked {
    /// Wait for releases without moving on.
    #[default]
    Wait,
    /// Move on to the next queue.
    Skip,
}

/// A reading of §2.3's scan: the options after `scan-up:` / `scan-down:` (`join`, `step`, `skip`,
/// or the defaults `hold`, `jump`, `wait`), separated by `,` or `;`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanReading {
    /// Arrivals to the queue in service.
    pub arrivals: Arrivals,
    /// The pointer's advance.
    pub advance: Advance,
    /// A sweep whose head does not fit.
    pub blocked: Blocked,
}

impl ScanReading {
    /// Reads the options after `scan-up:` (the label's words); `None` when a word is unknown or a
    /// point is given twice.
    pub fn from_words(words: &[&str]) -> Option<ScanReading> {
        let mut r = ScanReading::default();
        let mut seen = [false; 3];
        for &word in words {
            let point = match word {
                "hold" | "join" => {
                    r.arrivals = if word == "join" {
                        Arrivals::Join
                    } else {
                        Arrivals::Hold
                    };
                    0
                }
                "jump" | "step" => {
                    r.advance = if word == "step" {
                        Advance::Step
                    } else {
                        Advance::Jump
                    };
                    1
                }
                "wait" | "skip" => {
                    r.blocked = if word == "skip" {
                        Blocked::Skip
                    } else {
                        Blocked::Wait
                    };
                    2
                }
                _ => return None,
            };
            if std::mem::replace(&mut seen[point], true) {
                return None;
            }
        }
        Some(r)
    }

    /// The non-default options, in the order arrivals, advance, blocked (none for the default
    /// reading).
    pub fn words(&self) -> Vec<&'static str> {
        let words = [
            (self.arrivals == Arrivals::Join).then_some("join"),
            (self.advance == Advance::Step).then_some("step"),
            (self.blocked == Blocked::Skip).then_some("skip"),
        ];
        words.into_iter().flatten().collect()
    }

    /// The reading of a `scan-up` / `scan-down` label: the default for the bare name, else its
    /// words.
    fn of(label: &Label<'_>) -> Option<ScanReading> {
        match label.bare() {
            Some(()) => Some(ScanReading::default()),
            None => ScanReading::from_words(&label.words()?),
        }
    }
}

impl fmt::Display for ScanReading {
    /// The non-default options, comma-separated (empty for the default reading).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.words().join(","))
    }
}

/// `scan-up[:join,step,skip]`.
pub(super) const UP: Form<ScanReading> = Form::new(
    ScanReading::of,
    |r| r.words().into_iter().map(String::from).collect(),
    |&r| Box::new(Scan::new(Direction::Up, r)),
);

/// `scan-down[:join,step,skip]`.
pub(super) const DOWN: Form<ScanReading> = Form::new(
    ScanReading::of,
    |r| r.words().into_iter().map(String::from).collect(),
    |&r| Box::new(Scan::new(Direction::Down, r)),
);

/// Scan scheduling.
#[derive(Debug, Clone)]
pub(crate) struct Scan {
    direction: Direction,
    reading: ScanReading,
    /// `n + 1` queues (empty until the first event tells the machine).
    queues: Vec<VecDeque<JobId>>,
    current: usize,
    /// Jobs of the current sweep still to allocate (the front of the current queue).
    sweep: usize,
    waiting: usize,
}

/// The dimension `n` of the machine.
fn machine_dim(m: MachineSpec) -> usize {
    match m {
        MachineSpec::Hypercube { dim } => usize::from(dim),
        other => other.nodes().max(1).next_power_of_two().trailing_zeros() as usize,
    }
}

impl Scan {
    pub(crate) fn new(direction: Direction, reading: ScanReading) -> Self {
        Scan {
            direction,
            reading,
            queues: Vec::new(),
            current: 0,
            sweep: 0,
            waiting: 0,
        }
    }

    fn ensure(&mut self, sys: &dyn System) {
        if self.queues.is_empty() {
            let n = machine_dim(sys.snapshot().machine());
            self.queues = vec![VecDeque::new(); n + 1];
            self.current = match self.direction {
                Direction::Up => 0,
                Direction::Down => n,
            };
        }
    }

    /// The queue after `i` in the scan direction.
    fn next(&self, i: usize) -> usize {
        let q = self.queues.len();
        match self.direction {
            Direction::Up => (i + 1) % q,
            Direction::Down => (i + q - 1) % q,
        }
    }

    /// Starts a new sweep at the next non-empty queue (possibly the current one, last); `false` when
    /// every queue is empty.
    fn jump(&mut self) -> bool {
        let mut i = self.current;
        for _ in 0..self.queues.len() {
            i = self.next(i);
            if !self.queues[i].is_empty() {
                self.current = i;
                self.sweep = self.queues[i].len();
                return true;
            }
        }
        false
    }

    /// Moves the pointer one queue and starts a sweep of whatever waits there (possibly nothing).
    fn step(&mut self) {
        self.current = self.next(self.current);
        self.sweep = self.queues[self.current].len();
    }

    /// One scheduling event: allocates the current sweep while its head fits, moving the pointer as
    /// the reading says when a sweep is done or (`skip`) blocked.
    fn serve(&mut self, sys: &mut dyn System) {
        let mut moved = false;
        let mut failed_visits = 0;
        loop {
            if self.sweep == 0 {
                if self.waiting == 0 {
                    return;
                }
                match self.reading.advance {
                    Advance::Jump => {
                        if !self.jump() {
                            return;
                        }
                    }
                    Advance::Step if moved && sys.running() > 0 => return,
                    Advance::Step => self.step(),
                }
                moved = true;
                continue;
            }
            let head = self.queues[self.current][0];
            if sys.try_start(head) {
                self.queues[self.current].pop_front();
                self.sweep -= 1;
                self.waiting -= 1;
                failed_visits = 0;
                continue;
            }
            failed_visits += 1;
            if self.reading.blocked == Blocked::Wait || failed_visits >= self.queues.len() {
                return;
            }
            self.sweep = 0;
        }
    }
}

impl Scheduler for Scan {
    fn fork(&self) -> Option<Box<dyn Scheduler>> {
        Some(Box::new(self.clone()))
    }
    fn on_arrival(&mut self, job: JobId, sys: &mut dyn System) {
        self.ensure(&*sys);
        let k = cube_dim(&sys.job(job).request).min(self.queues.len() - 1);
        self.queues[k].push_back(job);
        self.waiting += 1;
        if self.reading.arrivals == Arrivals::Join && k == self.current && self.sweep > 0 {
            self.sweep += 1;
        }
        self.serve(sys);
    }

    fn on_departure(&mut self, sys: &mut dyn System) {
        self.ensure(&*sys);
        self.serve(sys);
    }

    fn waiting(&self) -> usize {
        self.waiting
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_parse_and_print_their_non_default_options_in_order() {
        let of = |label: &str| ScanReading::of(&Label::read(label).expect(label));
        let r = of("scan-up:skip;join").expect("two options");
        assert_eq!(
            r,
            ScanReading {
                arrivals: Arrivals::Join,
                advance: Advance::Jump,
                blocked: Blocked::Skip,
            }
        );
        assert_eq!(r.to_string(), "join,skip");
        assert_eq!(
            of("scan-up:hold,jump,wait").map(|r| r.to_string()),
            Some(String::new())
        );
        assert_eq!(of("scan-up"), Some(ScanReading::default()));
        assert_eq!(of("scan-up:join,hold"), None, "a point given twice");
        assert_eq!(of("scan-up:fast"), None);
        assert_eq!(of("scan-up:step=1"), None, "a pair");
    }
}
