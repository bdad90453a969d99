//! A sweep as an experiment: `pwa-replay sweep` is the one panel its flags describe — a workload
//! on its machine, a series per scheduler × allocator × estimate model ([`sweep::Grid::series`]),
//! the load factors as x (a list, or `auto`), a fixed number of replicas (one, or `--shake N`
//! shaken ones seeded by the sweep's cell key, [`SWEEP_CELL`]) — run by [`super::run::run`] like any
//! experiment.
//!
//! A list of load factors runs cell by cell ([`Unit::Point`]): every cell is independent, the
//! heaviest load factors start first (the slow replays: a shorter tail, the same results) and a
//! shard takes the cells [`sweep::partition`] deals it. `auto` is one [`Unit::Auto`].

use super::measure;
use super::plan::{Axis, Cell, LOAD_FACTOR, Panel, Plan, SWEEP_CELL, Series, Xs};
use std::sync::Arc;

use super::run::{Prepared, Results, Source, Unit};
use crate::engine::{ReplayOptions, RunMetrics};
use crate::replicate::StopRule;
use crate::resource::MachineSpec;
use crate::sweep::CellError;
use crate::sweep::{self, LoadSpec, Shard};
use crate::workload::Workload;
use crate::workload::rewrite::InputRewrite;
use crate::workload::shake::ShakeModel;

/// What a sweep runs.
#[derive(Debug, Clone)]
pub struct SweepSpec {
    /// The workload's label: in cell ids and cache keys only (the caller's [`super::run::Source`] hands
    /// the workload over).
    pub workload: String,
    /// The machine.
    pub machine: MachineSpec,
    /// The series, in legend (and summary) order.
    pub series: Vec<sweep::Series>,
    /// The load factors.
    pub loads: LoadSpec,
    /// Replicas per cell (1 unless shaken).
    pub replicas: usize,
    /// Shaking of the replicas.
    pub shake: Option<ShakeModel>,
    /// How every cell is replayed.
    pub options: ReplayOptions,
}

impl SweepSpec {
    /// The one-panel plan; an error when a series' labels do not read back as themselves.
    pub fn plan(&self) -> Result<Plan, String> {
        let panel = Panel {
            name: "sweep".into(),
            line: 0,
            // A label, not a template: no braces.
            workload: self.workload.replace(['{', '}'], "_"),
            machine: Some(self.machine),
            series: self
                .series
                .iter()
                .map(|s| Series {
                    label: s.to_string(),
                    sched: s.scheduler.to_string(),
                    alloc: s.allocator.to_string(),
                    estimate: s.estimate.to_string(),
                })
                .collect(),
            x: Axis {
                name: LOAD_FACTOR.into(),
                label: "load factor".into(),
                log: false,
                values: match &self.loads {
                    LoadSpec::List(loads) => Xs::List(loads.clone()),
                    LoadSpec::Auto(auto) => Xs::Auto(*auto),
                },
            },
            seed_key: Some(SWEEP_CELL.into()),
            jobs: None,
            load_factor: None,
            rule: StopRule {
                min: self.replicas,
                max: self.replicas,
                // Never met: exactly that many replicas.
                rel_half_width: f64::NEG_INFINITY,
            },
            watch: measure::lookup("mean_turnaround_s")?,
            shake: self.shake,
            stop: None,
            options: self.options.clone(),
            // A sweep measures run summaries only.
            observe: false,
            digests: self
                .series
                .iter()
                .filter_map(|s| s.scheduler.external())
                .map(|e| (e.label.clone(), e.digest.clone()))
                .collect(),
        };
        for (i, s) in self.series.iter().enumerate() {
            let read = panel.cell(i, 1.0)?.sweep_cell().series();
            if read != *s {
                return Err(format!(
                    "series {s} does not read back from its labels: {read:?}"
                ));
            }
        }
        Ok(Plan {
            file: "sweep".into(),
            title: format!("sweep of {}", self.workload),
            description: None,
            quick: false,
            panels: vec![panel],
            figures: Vec::new(),
            claims: Vec::new(),
        })
    }

    /// Every cell of a list of load factors, series-major ([`sweep::Grid::cells`]); none for
    /// `auto`.
    pub fn cells(&self) -> Vec<sweep::Cell> {
        match &self.loads {
            LoadSpec::List(loads) => self
                .series
                .iter()
                .flat_map(|s| loads.iter().map(|&lf| s.at(lf)))
                .collect(),
            LoadSpec::Auto(_) => Vec::new(),
        }
    }

    /// The units to run: every cell of a list (or of the part `shard` is dealt) as a point,
    /// heaviest load factors first; `auto` as one unit.
    pub fn units(&self, shard: Option<Shard>) -> Vec<Unit> {
        let LoadSpec::List(loads) = &self.loads else {
            return vec![Unit::Auto { panel: 0 }];
        };
        let grid = self.cells();
        let mut picked: Vec<usize> = match shard {
            Some(s) => sweep::partition(&grid, s.count)
                .get(s.index)
                .cloned()
                .unwrap_or_default(),
            None => (0..grid.len()).collect(),
        };
        picked.sort_by(|&a, &b| grid[b].load_factor.total_cmp(&grid[a].load_factor));
        picked
            .into_iter()
            .map(|k| Unit::Point {
                panel: 0,
                series: k / loads.len(),
                x: k % loads.len(),
            })
            .collect()
    }

    /// The cells that ran with their replicas, in summary order: series by series, load factors
    /// as listed (or climbed).
    pub fn replicas<'r>(
        &self,
        results: &'r Results,
    ) -> Result<Vec<(sweep::Cell, &'r [RunMetrics])>, String> {
        let mut out = Vec::new();
        for (s, series) in self.series.iter().enumerate() {
            for (x, id) in results.lines.get(&(0, s)).into_iter().flatten() {
                let reps = results
                    .cells
                    .get(id)
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| format!("no replicas of {id}"))?;
                out.push((series.at(*x), reps.as_slice()));
            }
        }
        Ok(out)
    }
}

impl Cell {
    /// The sweep's cell of this cell (its load factor, 1 where it has none).
    pub fn sweep_cell(&self) -> sweep::Cell {
        sweep::Cell {
            scheduler: self.sched.clone(),
            allocator: self.alloc,
            load_factor: self.load_factor.unwrap_or(1.0),
            estimate: self.estimate,
        }
    }
}

/// A sweep's workload, loaded by the caller (a log, converted and filtered) and handed to the
/// executor as the panel's: every cell replays it on `machine`.
pub struct Given {
    /// The jobs.
    pub workload: Arc<Workload>,
    /// The machine.
    pub machine: MachineSpec,
}

impl Source for Given {
    fn prepare(
        &self,
        _: &str,
        _: Option<MachineSpec>,
        _: Option<usize>,
        _: InputRewrite,
    ) -> Result<Prepared, CellError> {
        Ok(Prepared::Log {
            workload: Arc::clone(&self.workload),
            machine: self.machine,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::external::External;
    use crate::sweep::{Grid, Policy};

    fn spec(loads: &str) -> SweepSpec {
        let grid = Grid {
            schedulers: vec!["fcfs".parse().unwrap(), "window:4".parse().unwrap()],
            allocators: vec!["ff".parse().unwrap(), "mpl".parse().unwrap()],
            loads: Vec::new(),
            estimates: Vec::new(),
        };
        SweepSpec {
            workload: "tiny".into(),
            machine: "mesh:4x4".parse().unwrap(),
            series: grid.series(),
            loads: loads.parse().unwrap(),
            replicas: 1,
            shake: None,
            options: ReplayOptions::default(),
        }
    }

    #[test]
    fn a_list_runs_every_cell_heaviest_first_and_shards_partition_it() {
        let s = spec("0.5,2,1");
        let units = s.units(None);
        assert_eq!(units.len(), 12);
        let plan = s.plan().unwrap();
        let xs = plan.panels[0].xs();
        let lf = |u: &Unit| match *u {
            Unit::Point { x, .. } => xs[x],
            _ => f64::NAN,
        };
        let loads: Vec<f64> = units.iter().map(lf).collect();
        assert_eq!(loads[..4], [2.0; 4]);
        assert_eq!(loads[8..], [0.5; 4]);
        // Each point is the grid cell of the same position.
        let cells = s.cells();
        for u in &units {
            let Unit::Point { series, x, .. } = *u else {
                panic!("{u:?}")
            };
            let c = plan.panels[0].cell(series, xs[x]).unwrap().sweep_cell();
            assert_eq!(c, cells[series * 3 + x]);
        }
        let mut dealt: Vec<Unit> = (0..3)
            .flat_map(|i| s.units(Some(Shard { index: i, count: 3 })))
            .collect();
        dealt.sort();
        let mut all = units.clone();
        all.sort();
        assert_eq!(dealt, all, "the shards' points are the grid, once each");
        assert_eq!(spec("auto").units(None), [Unit::Auto { panel: 0 }]);
    }

    #[test]
    fn the_panel_spells_the_flags() {
        let plan = spec("0.5,1").plan().unwrap();
        let p = &plan.panels[0];
        let labels: Vec<&str> = p.series.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            ["fcfs + ff", "fcfs + mpl", "window:4 + ff", "window:4 + mpl"]
        );
        let c = p.cell(2, 1.0).unwrap();
        assert_eq!(
            c.seed_key, "window:4|ff|1",
            "seeded by the sweep's cell key"
        );
        assert_eq!(c.load_factor, Some(1.0));
        assert_eq!((c.rule.min, c.rule.max), (1, 1));
        let braces = SweepSpec {
            workload: "/data/{a}.swf".into(),
            ..spec("1")
        };
        assert!(braces.plan().is_ok(), "a path with braces is a label");
    }

    #[test]
    fn a_python_series_is_seeded_by_its_label_and_cached_by_its_digest() {
        let mut s = spec("0.5,1");
        let mut python = s.series[0].clone();
        python.scheduler = Policy::External(External {
            label: "py:policies/sjf.py:Sjf".into(),
            digest: "d1".into(),
        });
        s.series.push(python);
        let plan = s.plan().unwrap();
        let c = plan.panels[0].cell(4, 1.0).unwrap();
        assert_eq!(c.seed_key, "py:policies/sjf.py:Sjf|ff|1");
        assert!(c.id().ends_with("|sha256=d1"), "{}", c.id());
        assert_eq!(c.sweep_cell(), s.cells()[9]);
        // The built-in series' cells are those of a sweep without it.
        let before = spec("0.5,1").plan().unwrap();
        for i in 0..4 {
            assert_eq!(
                plan.panels[0].cell(i, 1.0).unwrap(),
                before.panels[0].cell(i, 1.0).unwrap()
            );
        }
    }
}
