//! Characteristics of a workload, as window-k-mesh.md §5.4 reports them: job count, mean run time
//! `T_e`, mean size `J_size` (machine nodes), mean interarrival time `T_i`, plus span, offered load,
//! power-of-two share and histograms.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};

use crate::SimTime;
use crate::resource::MachineSpec;
use crate::workload::transform::{DropReason, procs_to_nodes};
use crate::workload::{Job, Workload};

/// One histogram bucket: values in `lo..=hi`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Bucket {
    /// Smallest value of the bucket.
    pub lo: u64,
    /// Largest value of the bucket.
    pub hi: u64,
    /// Jobs in the bucket.
    pub count: u64,
}

/// What `pwa-replay stats` reports. Field names are the JSON keys.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorkloadStats {
    /// The machine, as `mesh:22x16`, `flat:N`, `hypercube:D`.
    #[serde(serialize_with = "as_display")]
    pub machine: MachineSpec,
    /// Processors per node.
    pub procs_per_node: u32,
    /// Jobs after filters.
    pub jobs: u64,
    /// Records dropped, by reason label (every reason, 0 included).
    pub dropped: BTreeMap<String, u64>,
    /// Sum of `dropped`.
    pub dropped_total: u64,
    /// `T_e`: mean run time (s).
    pub mean_runtime_s: f64,
    /// `J_size`: mean size in machine nodes, `ceil(processors asked / procs_per_node)`, before the
    /// shape conversion.
    pub mean_size: f64,
    /// Mean nodes of the converted requests (after the square / Paragon / power-of-two rule).
    pub mean_request_nodes: f64,
    /// Mean processors asked (SWF size field).
    pub mean_asked_procs: f64,
    /// `T_i`: span of submit times / (jobs − 1) (s); 0 with fewer than two jobs.
    pub mean_interarrival_s: f64,
    /// Last submit − first submit (s).
    pub span_s: f64,
    /// Σ request nodes × run time / (machine nodes × span); 0 when the span is 0.
    pub offered_load: f64,
    /// Share of jobs whose processors asked is a power of two.
    pub pow2_share: f64,
    /// Mean internal fragmentation: processors granted − processors asked.
    pub mean_internal_fragmentation: f64,
    /// Jobs by size in nodes (before conversion), power-of-two buckets `1, 2, 3–4, 5–8, …`.
    pub size_histogram: Vec<Bucket>,
    /// Jobs by run time in seconds, buckets `0, 1, 2–3, 4–7, 8–15, …`.
    pub runtime_histogram: Vec<Bucket>,
}

fn as_display<S: Serializer>(m: &MachineSpec, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(m)
}

impl WorkloadStats {
    /// Describes `w` on `machine`; `dropped` is what the conversion counted.
    pub fn of(
        w: &Workload,
        machine: MachineSpec,
        dropped: &BTreeMap<DropReason, u64>,
    ) -> WorkloadStats {
        let mut b = StatsBuilder::new(w.procs_per_node);
        w.jobs.iter().for_each(|j| b.push(j));
        b.finish(machine, dropped)
    }
}

/// [`WorkloadStats`] built one job at a time, jobs in submit order, in memory that does not grow
/// with the number of jobs: `pwa-replay stats` streams a log through it. Sums run in job order, so
/// the figures are bit for bit those of [`WorkloadStats::of`] on the same jobs.
#[derive(Debug, Clone)]
pub struct StatsBuilder {
    ppn: u32,
    jobs: u64,
    /// Submit times of the first and the last job.
    first: Option<SimTime>,
    last: SimTime,
    runtime: f64,
    size: f64,
    request_nodes: f64,
    asked_procs: f64,
    pow2: f64,
    fragmentation: f64,
    work: f64,
    sizes: Pow2Counts,
    runtimes: Pow2Counts,
}

impl StatsBuilder {
    /// No jobs yet, `procs_per_node` processors per node (0 is read as 1).
    pub fn new(procs_per_node: u32) -> Self {
        StatsBuilder {
            ppn: procs_per_node.max(1),
            jobs: 0,
            first: None,
            last: 0.0,
            runtime: 0.0,
            size: 0.0,
            request_nodes: 0.0,
            asked_procs: 0.0,
            pow2: 0.0,
            fragmentation: 0.0,
            work: 0.0,
            sizes: Pow2Counts::default(),
            runtimes: Pow2Counts::default(),
        }
    }

    /// Adds the next job (submit times must not decrease).
    pub fn push(&mut self, j: &Job) {
        let nodes = procs_to_nodes(u64::from(j.asked_procs), self.ppn);
        let request = f64::from(j.request.nodes());
        self.jobs += 1;
        self.first.get_or_insert(j.submit);
        self.last = j.submit;
        self.runtime += j.runtime;
        self.size += nodes as f64;
        self.request_nodes += request;
        self.asked_procs += f64::from(j.asked_procs);
        self.pow2 += f64::from(u8::from(j.asked_procs.is_power_of_two()));
        self.fragmentation += request * f64::from(self.ppn) - f64::from(j.asked_procs);
        self.work += request * j.runtime;
        self.sizes.add(nodes);
        self.runtimes.add(j.runtime.max(0.0).floor() as u64);
    }

    /// The statistics on `machine`; `dropped` is what the conversion counted.
    pub fn finish(
        self,
        machine: MachineSpec,
        dropped: &BTreeMap<DropReason, u64>,
    ) -> WorkloadStats {
        let n = self.jobs;
        let mean = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
        let span = self.first.map_or(0.0, |first| self.last - first);
        let capacity = f64::from(machine.nodes()) * span;
        WorkloadStats {
            machine,
            procs_per_node: self.ppn,
            jobs: n,
            dropped: DropReason::ALL
                .iter()
                .map(|r| (r.label().to_string(), dropped.get(r).copied().unwrap_or(0)))
                .collect(),
            dropped_total: dropped.values().sum(),
            mean_runtime_s: mean(self.runtime),
            mean_size: mean(self.size),
            mean_request_nodes: mean(self.request_nodes),
            mean_asked_procs: mean(self.asked_procs),
            mean_interarrival_s: if n > 1 { span / (n - 1) as f64 } else { 0.0 },
            span_s: span,
            offered_load: if capacity > 0.0 {
                self.work / capacity
            } else {
                0.0
            },
            pow2_share: mean(self.pow2),
            mean_internal_fragmentation: mean(self.fragmentation),
            size_histogram: self.sizes.buckets(),
            runtime_histogram: self.runtimes.buckets(),
        }
    }
}

/// Counts per power-of-two bucket (one per bit of a `u64`, and one for 0).
#[derive(Debug, Clone)]
struct Pow2Counts([u64; 65]);

impl Default for Pow2Counts {
    fn default() -> Self {
        Pow2Counts([0; 65])
    }
}

impl Pow2Counts {
    fn add(&mut self, v: u64) {
        self.0[bucket_of(v)] += 1;
    }

    /// The buckets from the first to the last non-empty one.
    fn buckets(&self) -> Vec<Bucket> {
        let Some(last) = self.0.iter().rposition(|&c| c > 0) else {
            return Vec::new();
        };
        let first = self.0.iter().position(|&c| c > 0).unwrap_or(0);
        (first..=last)
            .map(|i| {
                let (lo, hi) = bounds(i);
                Bucket {
                    lo,
                    hi,
                    count: self.0[i],
                }
            })
            .collect()
    }
}

/// Index of the bucket of `v`: 0 for 0, then `1 + floor(log2 v)`.
fn bucket_of(v: u64) -> usize {
    if v == 0 { 0 } else { 1 + v.ilog2() as usize }
}

/// The bucket bounds of index `i` for values ≥ 0: `0`, `1`, `2–3`, `4–7`, …
fn bounds(i: usize) -> (u64, u64) {
    if i == 0 {
        (0, 0)
    } else {
        let lo = 1u64 << (i - 1);
        (lo, lo.saturating_mul(2) - 1)
    }
}

/// Counts values in power-of-two buckets from the first to the last non-empty one.
///
/// Sizes start at 1, so their buckets read `1, 2–3, 4–7, …`; run times start at `0`.
pub fn pow2_histogram(values: impl Iterator<Item = u64>) -> Vec<Bucket> {
    let mut counts = Pow2Counts::default();
    values.for_each(|v| counts.add(v));
    counts.buckets()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Shape;
    use crate::workload::{Job, Request};

    fn job(i: u32, submit: f64, runtime: f64, asked: u32, req: Request) -> Job {
        Job {
            asked_procs: asked,
            ..Job::sample(i, submit, runtime, req)
        }
    }

    #[test]
    fn hand_worked_figures() {
        // Blue-Horizon-like: 8 processors per node, 12×12 mesh.
        let m = MachineSpec::Mesh {
            size: Shape::new(12, 12),
        };
        let w = Workload {
            jobs: vec![
                job(0, 100.0, 10.0, 8, Request::Submesh(Shape::new(1, 1))),
                job(1, 110.0, 20.0, 17, Request::Submesh(Shape::new(1, 3))),
                job(2, 140.0, 30.0, 120, Request::Submesh(Shape::new(3, 5))),
            ],
            procs_per_node: 8,
            predictor: None,
        };
        let mut dropped = BTreeMap::new();
        dropped.insert(DropReason::NegativeRuntime, 4);
        dropped.insert(DropReason::NonPositiveProcs, 2);
        let s = WorkloadStats::of(&w, m, &dropped);
        assert_eq!(s.jobs, 3);
        assert_eq!(s.dropped_total, 6);
        assert_eq!(s.dropped.get("negative_runtime"), Some(&4));
        assert_eq!(s.dropped.get("too_large"), Some(&0));
        assert_eq!(s.dropped.len(), DropReason::ALL.len());
        assert_eq!(s.mean_runtime_s, 20.0);
        // nodes asked: 1, 3, 15
        assert_eq!(s.mean_size, 19.0 / 3.0);
        assert_eq!(s.mean_request_nodes, 19.0 / 3.0);
        assert_eq!(s.span_s, 40.0);
        assert_eq!(s.mean_interarrival_s, 20.0);
        // work 1·10 + 3·20 + 15·30 = 520 over 144 · 40
        assert!((s.offered_load - 520.0 / 5760.0).abs() < 1e-12);
        assert!((s.pow2_share - 1.0 / 3.0).abs() < 1e-12);
        // granted procs 8, 24, 120 − asked 8, 17, 120 = 0, 7, 0
        assert!((s.mean_internal_fragmentation - 7.0 / 3.0).abs() < 1e-12);
        assert_eq!(s.machine.to_string(), "mesh:12x12");
    }

    #[test]
    fn histogram_buckets() {
        let h = pow2_histogram([1u64, 2, 3, 4, 8, 9].into_iter());
        let got: Vec<(u64, u64, u64)> = h.iter().map(|b| (b.lo, b.hi, b.count)).collect();
        assert_eq!(got, [(1, 1, 1), (2, 3, 2), (4, 7, 1), (8, 15, 2)]);
        let h = pow2_histogram([0u64, 0, 5].into_iter());
        let got: Vec<(u64, u64, u64)> = h.iter().map(|b| (b.lo, b.hi, b.count)).collect();
        assert_eq!(got, [(0, 0, 2), (1, 1, 0), (2, 3, 0), (4, 7, 1)]);
        assert!(pow2_histogram(std::iter::empty()).is_empty());
    }

    #[test]
    fn empty_and_single_job() {
        let m = MachineSpec::Flat { nodes: 4 };
        let s = WorkloadStats::of(&Workload::default(), m, &BTreeMap::new());
        assert_eq!(
            (s.jobs, s.mean_interarrival_s, s.offered_load),
            (0, 0.0, 0.0)
        );
        let w = Workload {
            jobs: vec![job(0, 5.0, 1.0, 2, Request::Nodes(2))],
            procs_per_node: 1,
            predictor: None,
        };
        let s = WorkloadStats::of(&w, m, &BTreeMap::new());
        assert_eq!((s.jobs, s.mean_interarrival_s, s.mean_size), (1, 0.0, 2.0));
    }
}
