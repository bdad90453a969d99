//! The output folders ([`Paper`]) of the papers whose figures are still code. The mesh papers'
//! figures are data: `experiments/window-k.toml`, `window-k-traces.toml`, `bypass-queue.toml`,
//! `semitorus.toml` and `lazy-hypercube.toml`.

/// Which paper a figure belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Paper {
    /// coscheduling-time-sharing.md (Rotzoll), gang scheduling.
    Coscheduling,
}

impl Paper {
    /// Output folder under `out/paper/`.
    pub fn dir(self) -> &'static str {
        match self {
            Paper::Coscheduling => "coscheduling",
        }
    }
}
