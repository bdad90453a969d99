//! The papers' output folders ([`Paper`]), the y metrics of the trace figures ([`Metric`]) and the
//! schedulers of window-k-mesh.md §5. The synthetic figures are data: `experiments/window-k.toml`
//! and `experiments/bypass-queue.toml`.

use pwa_replay::engine::RunMetrics;
use pwa_replay::sched::SchedKind;

/// Which paper a figure belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Paper {
    /// window-k-mesh.md (Ababneh & Bani-Mohammad).
    WindowK,
    /// lazy-scheduling-hypercube.md (Mohapatra, Yu & Das).
    Lazy,
    /// coscheduling-time-sharing.md (Rotzoll), gang scheduling.
    Coscheduling,
    /// semitorus-allocation.md (Mao, Chen & Watson).
    Semitorus,
}

impl Paper {
    /// Output folder under `out/paper/`.
    pub fn dir(self) -> &'static str {
        match self {
            Paper::WindowK => "window-k",
            Paper::Lazy => "lazy",
            Paper::Coscheduling => "coscheduling",
            Paper::Semitorus => "semitorus",
        }
    }
}

/// The y value of a figure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Mean turnaround (end − submit).
    MeanTurnaround,
    /// Largest wait (start − submit).
    MaxWait,
}

impl Metric {
    /// The metric of one run.
    pub fn of(self, m: &RunMetrics) -> f64 {
        match self {
            Metric::MeanTurnaround => m.mean_turnaround_s,
            Metric::MaxWait => m.max_wait_s,
        }
    }
    /// Axis label (time units are the model's).
    pub fn label(self) -> &'static str {
        match self {
            Metric::MeanTurnaround => "mean turnaround time",
            Metric::MaxWait => "maximum waiting delay",
        }
    }
}

/// The schedulers of window-k-mesh.md §5, in legend order.
pub fn window_k_schedulers() -> Vec<SchedKind> {
    vec![
        SchedKind::Fcfs,
        SchedKind::OutOfOrder,
        SchedKind::Oocb(8),
        SchedKind::Delay,
        SchedKind::Window(10),
        SchedKind::Window(120),
        SchedKind::Window(240),
    ]
}
