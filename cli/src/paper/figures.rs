//! What each figure of the two mesh papers plots: its curves ([`Line`]s), x values and metric.
//!
//! A [`Line`] is one curve's recipe: a synthetic workload family, what the x axis varies (arrival
//! rate, traffic ratio, window size K, mesh side) and the scheduler + allocator. Lines are
//! deduplicated across figures (Figs. 2, 3 and 7 are three metrics of the same runs), and every
//! series of one figure runs on the same seeds (common random numbers: the seed of a cell depends on
//! the workload, the x value and the replication, never on the policy).

use pwa_replay::engine::RunMetrics;
use pwa_replay::machine::{AllocKind, MachineSpec, Shape};
use pwa_replay::sched::SchedKind;
use pwa_replay::workload::synth::{SideModel, SynthSpec};

/// Which paper a figure belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Paper {
    /// window-k-mesh.md (Ababneh & Bani-Mohammad).
    WindowK,
    /// bypass-queue-fixed-orientation.md (Chang & Mohapatra).
    Bypass,
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
            Paper::Bypass => "bypass-queue",
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
    /// Utilization, a fraction 0..1.
    Utilization,
    /// Variance of turnaround.
    VarTurnaround,
}

impl Metric {
    /// The metric of one run.
    pub fn of(self, m: &RunMetrics) -> f64 {
        match self {
            Metric::MeanTurnaround => m.mean_turnaround_s,
            Metric::MaxWait => m.max_wait_s,
            Metric::Utilization => m.utilization,
            Metric::VarTurnaround => m.var_turnaround,
        }
    }
    /// Axis label (time units are the model's).
    pub fn label(self) -> &'static str {
        match self {
            Metric::MeanTurnaround => "mean turnaround time",
            Metric::MaxWait => "maximum waiting delay",
            Metric::Utilization => "utilization (fraction)",
            Metric::VarTurnaround => "variance of turnaround time",
        }
    }
}

/// What the x axis of a line varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    /// Arrival rate, jobs per time unit (window-k §5.2).
    Rate,
    /// Traffic ratio = arrival rate / service rate (bypass §3).
    Traffic,
    /// Window size K of Window-K, at a fixed load.
    WindowK,
    /// Side L of an L × L mesh, at a fixed load.
    MeshSide,
}

impl Axis {
    /// Axis label.
    pub fn label(self) -> &'static str {
        match self {
            Axis::Rate => "load (jobs / time unit)",
            Axis::Traffic => "traffic ratio",
            Axis::WindowK => "window size K",
            Axis::MeshSide => "mesh side L",
        }
    }
}

/// One curve's recipe.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// Workload family name, part of every seed key (`unif-dec`, `uniform`, `normal`).
    pub family: &'static str,
    /// Side-length model.
    pub model: SideModel,
    /// What x varies.
    pub axis: Axis,
    /// Mesh side (unless the axis is [`Axis::MeshSide`]).
    pub side: u32,
    /// Load (rate or traffic ratio, by `traffic`) unless the axis is a load axis.
    pub load: f64,
    /// The fixed load of a non-load axis is a traffic ratio.
    pub traffic: bool,
    /// Mean service time.
    pub mean_service: f64,
    /// Scheduler; `None` means Window-x (the [`Axis::WindowK`] curve).
    pub sched: Option<SchedKind>,
    /// Allocator.
    pub alloc: AllocKind,
}

/// One simulation cell: a workload spec on a machine under a policy, replicated over seeds.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Seed key of the workload (policy-independent).
    pub seed_key: String,
    /// The workload model (jobs filled in by the caller's budget).
    pub spec: SynthSpec,
    /// Machine.
    pub machine: MachineSpec,
    /// Scheduler.
    pub sched: SchedKind,
    /// Allocator.
    pub alloc: AllocKind,
}

impl Cell {
    /// Unique id of the cell (same id ⇒ same results).
    pub fn id(&self) -> String {
        format!("{}|{}|{}", self.seed_key, self.sched, self.alloc)
    }
}

impl Line {
    /// The series label: `<scheduler>+<allocator>`, `window:K+mpl` on the K axis.
    pub fn label(&self) -> String {
        match self.sched {
            Some(s) => format!("{s}+{}", self.alloc),
            None => format!("window:K+{}", self.alloc),
        }
    }
    /// Unique id (same id ⇒ same cells for the same x).
    pub fn id(&self) -> String {
        format!(
            "{}|{:?}|{}|{}|{}|{}|{}",
            self.family,
            self.axis,
            self.side,
            self.load,
            self.traffic,
            self.mean_service,
            self.label()
        )
    }
    /// Whether the line stops a little past saturation (load axes).
    pub fn stops_at_saturation(&self) -> bool {
        matches!(self.axis, Axis::Rate | Axis::Traffic)
    }
    /// The cell at `x` with `jobs` jobs.
    pub fn cell(&self, x: f64, jobs: usize) -> Cell {
        let (side, load, traffic) = match self.axis {
            Axis::Rate => (self.side, x, false),
            Axis::Traffic => (self.side, x, true),
            Axis::WindowK => (self.side, self.load, self.traffic),
            Axis::MeshSide => (x.round() as u32, self.load, self.traffic),
        };
        let mesh = Shape::new(side, side);
        let rate = if traffic {
            load / self.mean_service
        } else {
            load
        };
        let unit = if traffic { "traffic" } else { "rate" };
        Cell {
            seed_key: format!(
                "{}/{side}x{side}/svc={}/{unit}={load}",
                self.family, self.mean_service
            ),
            spec: SynthSpec::new(self.model.clone(), mesh, jobs, rate, self.mean_service),
            machine: MachineSpec::Mesh { size: mesh },
            sched: self.sched.unwrap_or(SchedKind::Window(x.round() as u32)),
            alloc: self.alloc,
        }
    }
}

/// One figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// Paper.
    pub paper: Paper,
    /// File stem: `fig2`, `fig4a`, …
    pub id: &'static str,
    /// Title (the paper's caption, shortened).
    pub title: String,
    /// y metric.
    pub metric: Metric,
    /// x axis.
    pub axis: Axis,
    /// Curves.
    pub lines: Vec<Line>,
    /// x values (a load line may stop early past saturation).
    pub xs: Vec<f64>,
}

impl Figure {
    /// `window-k/fig2`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.paper.dir(), self.id)
    }
}

/// The budget-dependent grids.
#[derive(Debug, Clone, PartialEq)]
pub struct Grids {
    /// Loads of the uniform-decreasing figures (2, 3, 7).
    pub unif_dec_loads: Vec<f64>,
    /// Loads of the uniform figures (4, 5, 6).
    pub uniform_loads: Vec<f64>,
    /// Window sizes of Figs. 8–11.
    pub ks: Vec<f64>,
    /// Mesh sides of Fig. 12.
    pub sides: Vec<f64>,
    /// Traffic ratios of the bypass figures.
    pub traffic: Vec<f64>,
    /// Bypass thresholds (time units).
    pub thresholds: Vec<f64>,
}

impl Grids {
    /// Full grids (`make paper`).
    pub fn full() -> Grids {
        let steps = |from: f64, to: f64, step: f64| -> Vec<f64> {
            let n = ((to - from) / step).round() as usize;
            (0..=n).map(|i| from + step * i as f64).collect()
        };
        Grids {
            unif_dec_loads: steps(1.0, 10.0, 0.5),
            uniform_loads: steps(0.5, 3.5, 0.25),
            ks: vec![
                1.0, 2.0, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 60.0, 80.0, 120.0, 160.0, 240.0,
                320.0, 480.0, 800.0, 2000.0,
            ],
            sides: steps(16.0, 96.0, 8.0),
            traffic: steps(0.5, 3.5, 0.25),
            thresholds: vec![5.0, 25.0, 100.0, 500.0],
        }
    }
    /// Short grids (`--quick`, `PAPER_QUICK=1`).
    pub fn quick() -> Grids {
        Grids {
            unif_dec_loads: vec![2.0, 4.5, 6.0, 7.5, 9.0],
            uniform_loads: vec![1.0, 1.5, 2.0, 2.5, 3.0],
            ks: vec![1.0, 5.0, 20.0, 60.0, 240.0, 2000.0],
            sides: vec![16.0, 32.0, 48.0],
            traffic: vec![1.0, 1.5, 2.0, 2.5, 3.0],
            thresholds: vec![5.0, 100.0],
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

/// The readings of the labels before issue 13, for the before/after table of Figs. 6 and 7: OOCB
/// with a counter owned by the head (`oocb-head:8`, then `oocb:8`) and MPL that never turns
/// (`mpl-fixed`, then `mpl`). Same legend order as [`window_k_schedulers`].
pub fn previous_readings() -> Vec<(SchedKind, AllocKind)> {
    window_k_schedulers()
        .into_iter()
        .map(|s| match s {
            SchedKind::Oocb(k) => SchedKind::OocbHead(k),
            s => s,
        })
        .map(|s| (s, AllocKind::MplFixed))
        .collect()
}

fn family(model: &SideModel) -> &'static str {
    match model {
        SideModel::UniformDecreasing { .. } => "unif-dec",
        SideModel::Uniform => "uniform",
        SideModel::TruncNormal { .. } => "normal",
        SideModel::PowerSquares => "squares",
    }
}

/// A line of window-k-mesh.md (32 × 32 unless the axis says otherwise, mean service 1, MPL).
fn wk_line(model: &SideModel, axis: Axis, load: f64, sched: Option<SchedKind>) -> Line {
    Line {
        family: family(model),
        model: model.clone(),
        axis,
        side: 32,
        load,
        traffic: false,
        mean_service: 1.0,
        sched,
        alloc: AllocKind::Mpl,
    }
}

/// A line of the bypass paper (32 × 32, mean service 5, x = traffic ratio).
fn bq_line(model: &SideModel, sched: SchedKind, alloc: AllocKind) -> Line {
    Line {
        family: family(model),
        model: model.clone(),
        axis: Axis::Traffic,
        side: 32,
        load: 0.0,
        traffic: true,
        mean_service: 5.0,
        sched: Some(sched),
        alloc,
    }
}

/// Every synthetic figure of both papers.
pub fn all(g: &Grids) -> Vec<Figure> {
    let mut figs = window_k(g);
    figs.extend(bypass(g));
    figs
}

fn window_k(g: &Grids) -> Vec<Figure> {
    let (ud, un) = (SideModel::uniform_decreasing(), SideModel::uniform());
    let per_sched = |model: &SideModel, axis: Axis, load: f64| -> Vec<Line> {
        window_k_schedulers()
            .into_iter()
            .map(|s| wk_line(model, axis, load, Some(s)))
            .collect()
    };
    let fig = |id, title: &str, metric, axis, lines, xs: &Vec<f64>| Figure {
        paper: Paper::WindowK,
        id,
        title: title.to_string(),
        metric,
        axis,
        lines,
        xs: xs.clone(),
    };
    let previous = |model: &SideModel| -> Vec<Line> {
        previous_readings()
            .into_iter()
            .map(|(s, a)| Line {
                alloc: a,
                ..wk_line(model, Axis::Rate, 0.0, Some(s))
            })
            .collect()
    };
    let k_lines = |model: &SideModel, load: f64| {
        vec![
            wk_line(model, Axis::WindowK, load, None),
            wk_line(model, Axis::WindowK, load, Some(SchedKind::OutOfOrder)),
            wk_line(model, Axis::WindowK, load, Some(SchedKind::Fcfs)),
        ]
    };
    use Metric::*;
    vec![
        fig(
            "fig2",
            "Mean turnaround, uniform-decreasing, 32x32",
            MeanTurnaround,
            Axis::Rate,
            per_sched(&ud, Axis::Rate, 0.0),
            &g.unif_dec_loads,
        ),
        fig(
            "fig3",
            "Maximum waiting delay, uniform-decreasing, 32x32",
            MaxWait,
            Axis::Rate,
            per_sched(&ud, Axis::Rate, 0.0),
            &g.unif_dec_loads,
        ),
        fig(
            "fig4",
            "Mean turnaround, uniform, 32x32",
            MeanTurnaround,
            Axis::Rate,
            per_sched(&un, Axis::Rate, 0.0),
            &g.uniform_loads,
        ),
        fig(
            "fig5",
            "Maximum waiting delay, uniform, 32x32",
            MaxWait,
            Axis::Rate,
            per_sched(&un, Axis::Rate, 0.0),
            &g.uniform_loads,
        ),
        fig(
            "fig6",
            "Utilization, uniform, 32x32",
            Utilization,
            Axis::Rate,
            per_sched(&un, Axis::Rate, 0.0),
            &g.uniform_loads,
        ),
        fig(
            "fig7",
            "Utilization, uniform-decreasing, 32x32",
            Utilization,
            Axis::Rate,
            per_sched(&ud, Axis::Rate, 0.0),
            &g.unif_dec_loads,
        ),
        fig(
            "fig6-prev",
            "Utilization, uniform, 32x32, readings before issue 13",
            Utilization,
            Axis::Rate,
            previous(&un),
            &g.uniform_loads,
        ),
        fig(
            "fig7-prev",
            "Utilization, uniform-decreasing, 32x32, readings before issue 13",
            Utilization,
            Axis::Rate,
            previous(&ud),
            &g.unif_dec_loads,
        ),
        fig(
            "fig8",
            "Mean turnaround vs K, load 2.5, uniform",
            MeanTurnaround,
            Axis::WindowK,
            k_lines(&un, 2.5),
            &g.ks,
        ),
        fig(
            "fig9",
            "Maximum waiting delay vs K, load 4.5, uniform-decreasing",
            MaxWait,
            Axis::WindowK,
            k_lines(&ud, 4.5),
            &g.ks,
        ),
        fig(
            "fig10",
            "Maximum waiting delay vs K, load 7.5, uniform-decreasing",
            MaxWait,
            Axis::WindowK,
            k_lines(&ud, 7.5),
            &g.ks,
        ),
        fig(
            "fig11",
            "Maximum waiting delay vs K, load 2.5, uniform",
            MaxWait,
            Axis::WindowK,
            k_lines(&un, 2.5),
            &g.ks,
        ),
        fig(
            "fig12",
            "Mean turnaround vs mesh side, load 2, uniform",
            MeanTurnaround,
            Axis::MeshSide,
            per_sched(&un, Axis::MeshSide, 2.0),
            &g.sides,
        ),
    ]
}

fn bypass(g: &Grids) -> Vec<Figure> {
    let (un, nm) = (SideModel::uniform(), SideModel::normal());
    let bqs = |alloc| -> Vec<Line> {
        g.thresholds
            .iter()
            .map(|&t| bq_line(&un, SchedKind::BypassQueue(t), alloc))
            .collect()
    };
    let fcfs = |model: &SideModel, alloc| bq_line(model, SchedKind::Fcfs, alloc);
    let mut fig3 = vec![fcfs(&un, AllocKind::FirstFit)];
    fig3.extend(bqs(AllocKind::FirstFit));
    fig3.push(fcfs(&un, AllocKind::AdaptiveScan));
    fig3.extend(bqs(AllocKind::AdaptiveScan));
    let allocs = [
        AllocKind::FirstFit,
        AllocKind::FixedOrientation,
        AllocKind::AdaptiveScan,
    ];
    let fig4 = |model: &SideModel| allocs.iter().map(|&a| fcfs(model, a)).collect::<Vec<_>>();
    let mut fig5 = vec![
        fcfs(&un, AllocKind::AdaptiveScan),
        fcfs(&un, AllocKind::FixedOrientation),
    ];
    fig5.extend(bqs(AllocKind::FixedOrientation));
    let fig = |id, title: &str, metric, lines| Figure {
        paper: Paper::Bypass,
        id,
        title: title.to_string(),
        metric,
        axis: Axis::Traffic,
        lines,
        xs: g.traffic.clone(),
    };
    use Metric::*;
    vec![
        fig(
            "fig3",
            "Bypass queue with FF and AS, uniform",
            MeanTurnaround,
            fig3,
        ),
        fig(
            "fig4a",
            "FO vs FF vs AS (FCFS), uniform",
            MeanTurnaround,
            fig4(&un),
        ),
        fig(
            "fig4b",
            "FO vs FF vs AS (FCFS), truncated normal",
            MeanTurnaround,
            fig4(&nm),
        ),
        fig(
            "fig5",
            "Integrated BQ+FO vs AS (FCFS), uniform",
            MeanTurnaround,
            fig5.clone(),
        ),
        fig(
            "fig6",
            "Variance of turnaround, BQ+FO vs AS, uniform",
            VarTurnaround,
            fig5,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_depend_on_the_workload_not_the_policy() {
        let un = SideModel::uniform();
        let a = wk_line(&un, Axis::Rate, 0.0, Some(SchedKind::Fcfs)).cell(2.0, 100);
        let b = wk_line(&un, Axis::Rate, 0.0, Some(SchedKind::OutOfOrder)).cell(2.0, 100);
        assert_eq!(a.seed_key, b.seed_key);
        assert_ne!(a.id(), b.id());
        let k = wk_line(&un, Axis::WindowK, 2.5, None);
        assert_eq!(k.cell(10.0, 100).seed_key, k.cell(240.0, 100).seed_key);
        assert_eq!(k.cell(240.0, 100).sched, SchedKind::Window(240));
    }

    #[test]
    fn traffic_ratio_becomes_a_rate_over_mean_service() {
        let l = bq_line(&SideModel::uniform(), SchedKind::Fcfs, AllocKind::FirstFit);
        let c = l.cell(2.5, 10);
        assert!((c.spec.rate - 0.5).abs() < 1e-12);
        assert_eq!(c.spec.mean_service, 5.0);
        assert_eq!(l.label(), "fcfs+ff");
    }

    #[test]
    fn figure_keys_are_unique_and_labels_follow_run() {
        let figs = all(&Grids::full());
        let mut keys: Vec<String> = figs.iter().map(Figure::key).collect();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), figs.len());
        let fig2 = &figs[0];
        let labels: Vec<String> = fig2.lines.iter().map(Line::label).collect();
        assert!(labels.contains(&"window:240+mpl".to_string()));
        assert!(labels.contains(&"oocb:8+mpl".to_string()));
    }
}
