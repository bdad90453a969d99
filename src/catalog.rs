//! The trace catalog: short names (`sdsc-96`, `sdsc-blue`, …) → archive file, folder, sha256 of the
//! uncompressed bytes, and how the papers view the trace (machine, filters, shape rule).
//!
//! The built-in catalog is `traces/catalog.toml`, compiled in ([`Catalog::builtin`]); another file of
//! the same form can be read with [`Catalog::from_toml`] (the CLI honours `$PWA_CATALOG`).
//!
//! Each entry also names its **default grid** ([`DefaultGrid`]: the schedulers × allocators a sweep
//! replays when none are given); an entry without one gets its machine family's
//! ([`DefaultGrid::for_machine`]). A log without requested times replays no `user` estimates
//! ([`DefaultGrid::for_log`]).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::machine::AllocKind;
use crate::resource::MachineSpec;
use crate::sched::SchedKind;
use crate::workload::transform::{Conversion, ShapeRule, SizeField};
use crate::workload::{EstimateModel, Workload};

/// The text of `traces/catalog.toml`.
pub const BUILTIN_TOML: &str = include_str!("../traces/catalog.toml");

/// A catalog that could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Not valid TOML of the catalog's form.
    #[error("catalog is not valid: {0}")]
    Toml(String),
    /// An entry is inconsistent.
    #[error("catalog entry `{name}`: {why}")]
    Entry {
        /// The entry's short name.
        name: String,
        /// What is wrong.
        why: String,
    },
}

/// One catalogued trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEntry {
    /// Short name (`sdsc-96`).
    pub name: String,
    /// One line for humans.
    pub description: String,
    /// Archive file name (`SDSC-Par-1996-3.1-cln.swf.gz`).
    pub file: String,
    /// PWA folder (`l_sdsc_par`); `None` for a log the archive does not hold (a model's output
    /// that another project ships), which is found on the search path only.
    pub folder: Option<String>,
    /// sha256 of the uncompressed bytes, lowercase hex; `None` when not recorded.
    pub sha256: Option<String>,
    /// How the trace is converted to jobs (machine, rule, filters); `lenient` is `false` here.
    pub conversion: Conversion,
    /// The schedulers × allocators replayed when none are named: the entry's `sched` / `alloc`,
    /// else its machine family's.
    pub grid: DefaultGrid,
}

impl TraceEntry {
    /// How the log is converted for `machine` (its catalogued machine when `None`): the catalogued
    /// conversion with the machine replaced, and the shape rule the machine's natural one when the
    /// catalogued rule does not suit it. A front end gives another machine its family's
    /// [`DefaultGrid::for_machine`] instead of the entry's grid.
    pub fn conversion_for(&self, machine: Option<MachineSpec>) -> Conversion {
        let mut conversion = self.conversion.clone();
        if let Some(m) = machine.filter(|&m| m != self.conversion.machine) {
            conversion.machine = m;
            if !conversion.shape.suits(m) {
                conversion.shape = ShapeRule::default_for(m);
            }
        }
        conversion
    }
}

/// The schedulers × allocators a sweep replays when none are named.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultGrid {
    /// Scheduler labels, in order.
    pub schedulers: Vec<SchedKind>,
    /// Allocator labels, in order.
    pub allocators: Vec<AllocKind>,
    /// Estimate models (`estimate` in the catalog), in order; empty: exact only.
    pub estimates: Vec<EstimateModel>,
}

impl DefaultGrid {
    /// The machine family's grid: on a mesh, the six schedulers of window-k-mesh.md §5.5 × MPL;
    /// on a hypercube, the lazy paper's schedulers × buddy; on a flat machine FCFS, EASY and
    /// conservative backfilling × exact and user estimates; on a k-D mesh or torus FCFS and EASY ×
    /// node counting (EP/NEP need all but one dimension a power of two: the catalog's torus entries
    /// name them).
    pub fn for_machine(machine: MachineSpec) -> DefaultGrid {
        use SchedKind::{Fcfs, Oocb, OutOfOrder, Window};
        match machine {
            MachineSpec::Mesh { .. } => DefaultGrid {
                schedulers: vec![
                    Fcfs,
                    OutOfOrder,
                    Oocb(8),
                    Window(10),
                    Window(120),
                    Window(240),
                ],
                allocators: vec![AllocKind::Mpl],
                estimates: Vec::new(),
            },
            MachineSpec::Hypercube { .. } => DefaultGrid {
                schedulers: vec![
                    SchedKind::Lazy,
                    SchedKind::ScanUp(Default::default()),
                    SchedKind::Static,
                    Fcfs,
                    OutOfOrder,
                ],
                allocators: vec![AllocKind::Buddy],
                estimates: Vec::new(),
            },
            MachineSpec::Flat { .. } => DefaultGrid {
                schedulers: vec![Fcfs, SchedKind::Easy, SchedKind::Conservative],
                allocators: vec![AllocKind::Flat],
                estimates: vec![EstimateModel::Exact, EstimateModel::User],
            },
            MachineSpec::Grid { .. } => DefaultGrid {
                schedulers: vec![Fcfs, SchedKind::Easy],
                allocators: vec![AllocKind::Flat],
                estimates: Vec::new(),
            },
        }
    }
}

impl DefaultGrid {
    /// The grid a study of the log `w` replays: without the estimate models that [read requested
    /// times](EstimateModel::reads_requested) (`user`, `predict`) when no job of `w` has one, where
    /// they would replay as `exact` does under another name.
    pub fn for_log(&self, w: &Workload) -> DefaultGrid {
        let mut grid = self.clone();
        if w.without_requested_time() == w.jobs.len() {
            grid.estimates.retain(|e| !e.reads_requested());
        }
        grid
    }
}

/// All catalogued traces, by short name.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    entries: BTreeMap<String, TraceEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    traces: BTreeMap<String, RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(default)]
    description: String,
    file: String,
    folder: Option<String>,
    sha256: Option<String>,
    machine: String,
    shape: Option<ShapeRule>,
    #[serde(default = "one")]
    procs_per_node: u32,
    partitions: Option<Vec<i64>>,
    queues: Option<Vec<i64>>,
    #[serde(default)]
    size_field: SizeField,
    sched: Option<Vec<String>>,
    alloc: Option<Vec<String>>,
    estimate: Option<Vec<String>>,
}

fn one() -> u32 {
    1
}

impl Catalog {
    /// The compiled-in `traces/catalog.toml` (its validity is a unit test).
    pub fn builtin() -> Catalog {
        Catalog::from_toml(BUILTIN_TOML).unwrap_or_else(|e| {
            unreachable!("traces/catalog.toml is checked by builtin_catalog_is_valid: {e}")
        })
    }

    /// Reads a catalog from TOML text and checks every entry.
    pub fn from_toml(text: &str) -> Result<Catalog, CatalogError> {
        let raw: RawCatalog =
            toml::from_str(text).map_err(|e| CatalogError::Toml(e.to_string()))?;
        let entries = raw
            .traces
            .into_iter()
            .map(|(name, e)| Ok((name.clone(), entry(name, e)?)))
            .collect::<Result<_, CatalogError>>()?;
        Ok(Catalog { entries })
    }

    /// The entry called `name`.
    pub fn get(&self, name: &str) -> Option<&TraceEntry> {
        self.entries.get(name)
    }

    /// All entries, sorted by name.
    pub fn entries(&self) -> impl Iterator<Item = &TraceEntry> {
        self.entries.values()
    }

    /// The short names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }
}

fn entry(name: String, e: RawEntry) -> Result<TraceEntry, CatalogError> {
    let bad = |why: String| CatalogError::Entry {
        name: name.clone(),
        why,
    };
    let machine: MachineSpec = e.machine.parse().map_err(|x| bad(format!("{x}")))?;
    let shape = e.shape.unwrap_or_else(|| ShapeRule::default_for(machine));
    if !shape.suits(machine) {
        return Err(bad(format!(
            "shape rule `{shape}` does not work on `{machine}`"
        )));
    }
    if e.procs_per_node == 0 {
        return Err(bad("procs_per_node must be at least 1".into()));
    }
    if let Some(h) = e.sha256.as_deref().filter(|h| !is_sha256_hex(h)) {
        return Err(bad(format!("sha256 `{h}` is not 64 lowercase hex digits")));
    }
    let plain = |n: &str| !n.is_empty() && !n.contains(['/', '\\']);
    if !plain(&e.file) || !e.folder.as_deref().is_none_or(plain) {
        return Err(bad("file and folder must be plain names".into()));
    }
    if e.folder.is_none() && e.sha256.is_none() {
        // Nothing could download it or tell the right file from another of its name.
        return Err(bad(
            "a log without an archive folder needs its sha256 on record".into(),
        ));
    }
    let fallback = DefaultGrid::for_machine(machine);
    let schedulers = match e.sched {
        Some(v) => labels::<SchedKind>(&v, "sched").map_err(bad)?,
        None => fallback.schedulers,
    };
    let allocators = match e.alloc {
        Some(v) => labels::<AllocKind>(&v, "alloc").map_err(bad)?,
        None => fallback.allocators,
    };
    let estimates = match e.estimate {
        Some(v) => labels::<EstimateModel>(&v, "estimate").map_err(bad)?,
        None => Vec::new(),
    };
    if let Some(a) = allocators.iter().find(|a| a.build(machine).is_err()) {
        return Err(bad(format!("alloc `{a}` does not work on `{machine}`")));
    }
    Ok(TraceEntry {
        name: name.clone(),
        description: e.description,
        file: e.file,
        folder: e.folder,
        sha256: e.sha256,
        conversion: Conversion {
            machine,
            shape,
            procs_per_node: e.procs_per_node,
            size_field: e.size_field,
            partitions: e.partitions,
            queues: e.queues,
            ..Conversion::for_machine(machine)
        },
        grid: DefaultGrid {
            schedulers,
            allocators,
            estimates,
        },
    })
}

/// Parses a non-empty list of policy labels; the error names the field.
fn labels<T>(raw: &[String], field: &str) -> Result<Vec<T>, String>
where
    T: std::str::FromStr,
    T::Err: std::fmt::Display,
{
    if raw.is_empty() {
        return Err(format!(
            "`{field}` is empty: name at least one label or leave it out"
        ));
    }
    raw.iter()
        .map(|l| l.parse::<T>().map_err(|e| format!("`{field}`: {e}")))
        .collect()
}

/// Whether `s` is 64 lowercase hex digits.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Shape;

    #[test]
    fn a_log_without_requested_times_has_no_user_estimates_in_its_grid() {
        use crate::packed::PackedTime;
        use crate::workload::{Job, Request};
        let flat = DefaultGrid::for_machine(MachineSpec::Flat { nodes: 100 });
        let job = |i| Job::sample(i, f64::from(i), 10.0, Request::Nodes(1));
        let mut log = Workload {
            jobs: vec![job(0), job(1)],
            ..Workload::default()
        };
        assert_eq!(log.without_requested_time(), 2);
        assert_eq!(flat.for_log(&log).estimates, [EstimateModel::Exact]);
        log.jobs[1].requested = PackedTime::new(60.0);
        assert_eq!(log.without_requested_time(), 1);
        assert_eq!(flat.for_log(&log), flat, "one requested time is enough");
        assert_eq!(flat.estimates, [EstimateModel::Exact, EstimateModel::User]);
    }

    #[test]
    fn builtin_catalog_is_valid() {
        let c = Catalog::from_toml(BUILTIN_TOML).expect("traces/catalog.toml parses");
        let names = c.names();
        for n in [
            "sdsc-95",
            "sdsc-96",
            "sdsc-blue",
            "nasa-ipsc",
            "lanl-cm5",
            "ctc-sp2",
            "kth-sp2",
        ] {
            assert!(names.contains(&n), "{n} missing from the catalog");
        }
        for e in c.entries() {
            assert!(e.conversion.shape.suits(e.conversion.machine), "{}", e.name);
            assert!(e.file.ends_with(".swf.gz"), "{}", e.name);
            // An archive log is in a folder `l_…`; the one log without a folder is the synthetic
            // Lublin–Feitelson trace the learning-based scheduling papers replay, which the
            // archive does not hold (it ships the model, not this output of it).
            match e.folder.as_deref() {
                Some(folder) => assert!(folder.starts_with("l_"), "{}", e.name),
                None => assert_eq!(e.name, "lublin-256"),
            }
        }
        // The logs in ../shared/traces have their hash on record; the others are verified by gzip
        // integrity and a strict parse when downloaded.
        for n in [
            "sdsc-96",
            "sdsc-blue",
            "nasa-ipsc",
            "lanl-cm5",
            "ctc-sp2",
            "kth-sp2",
            "llnl-atlas",
            "hpc2n",
            "lublin-256",
        ] {
            assert!(
                c.get(n).is_some_and(|e| e.sha256.is_some()),
                "{n} lacks a sha256"
            );
        }
        assert!(names.len() >= 20, "{} entries", names.len());
    }

    #[test]
    fn llnl_atlas_is_its_batch_partition_in_nodes_of_8() {
        let c = Catalog::builtin();
        let atlas = c.get("llnl-atlas").expect("catalogued");
        assert_eq!(atlas.file, "LLNL-Atlas-2006-2.1-cln.swf.gz");
        let conv = &atlas.conversion;
        assert_eq!(conv.machine, MachineSpec::Flat { nodes: 1152 });
        assert_eq!(conv.procs_per_node, 8);
        assert_eq!(conv.partitions.as_deref(), Some(&[1][..]));
        let s: Vec<String> = atlas
            .grid
            .schedulers
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(s, ["fcfs", "easy", "conservative"]);
        assert_eq!(
            atlas.grid.estimates,
            [EstimateModel::Exact, EstimateModel::User]
        );
    }

    #[test]
    fn paper_views_of_the_traces() {
        let c = Catalog::builtin();
        let blue = &c.get("sdsc-blue").expect("blue").conversion;
        assert_eq!(
            blue.machine,
            MachineSpec::Mesh {
                size: Shape::new(12, 12)
            }
        );
        assert_eq!(
            (blue.procs_per_node, blue.shape),
            (8, ShapeRule::SquareTall)
        );
        let par = &c.get("sdsc-96").expect("sdsc-96").conversion;
        assert_eq!(par.partitions.as_deref(), Some(&[2][..]));
        assert_eq!(par.shape, ShapeRule::Paragon);
        let ipsc = &c.get("nasa-ipsc").expect("ipsc").conversion;
        assert_eq!(ipsc.machine, MachineSpec::Hypercube { dim: 7 });
    }

    #[test]
    fn every_entry_has_a_grid_that_suits_its_machine() {
        let c = Catalog::builtin();
        let grid = |n: &str| {
            let g = &c.get(n).expect(n).grid;
            let s: Vec<String> = g.schedulers.iter().map(ToString::to_string).collect();
            let a: Vec<String> = g.allocators.iter().map(ToString::to_string).collect();
            (s.join(","), a.join(","))
        };
        let mesh = (
            "fcfs,oo,oocb:8,window:10,window:120,window:240".into(),
            "mpl".into(),
        );
        assert_eq!(grid("sdsc-96"), mesh);
        assert_eq!(grid("sdsc-blue"), mesh);
        assert_eq!(
            grid("nasa-ipsc"),
            ("lazy,scan-up,static,fcfs,oo".into(), "buddy".into())
        );
        let backfilling = ("fcfs,easy,conservative".into(), "flat".into());
        for n in ["lanl-cm5", "ctc-sp2", "kth-sp2"] {
            assert_eq!(grid(n), backfilling, "{n}");
            let e: Vec<String> = c
                .get(n)
                .expect(n)
                .grid
                .estimates
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(e, ["exact", "user"], "{n}");
        }
        for e in c.entries() {
            for a in &e.grid.allocators {
                assert!(a.build(e.conversion.machine).is_ok(), "{}: {a}", e.name);
            }
        }
    }

    #[test]
    fn an_entry_without_a_grid_gets_its_machine_family_one() {
        let t = "[traces.x]\nfile = \"X.swf.gz\"\nfolder = \"l_x\"\nmachine = \"mesh:4x4\"\n";
        let c = Catalog::from_toml(t).expect("valid");
        let mesh = MachineSpec::Mesh {
            size: Shape::new(4, 4),
        };
        assert_eq!(c.get("x").expect("x").grid, DefaultGrid::for_machine(mesh));
        let half = format!("{t}sched = [\"window:4\"]\n");
        let c = Catalog::from_toml(&half).expect("valid");
        let g = &c.get("x").expect("x").grid;
        assert_eq!(g.schedulers, vec![SchedKind::Window(4)]);
        assert_eq!(g.allocators, vec![AllocKind::Mpl]);
    }

    #[test]
    fn a_log_outside_the_archive_has_no_folder_and_needs_its_hash() {
        let t = "[traces.x]\nfile = \"X.swf.gz\"\nmachine = \"flat:8\"\n";
        let e = Catalog::from_toml(t).expect_err("no folder, no hash");
        assert!(e.to_string().contains("needs its sha256"), "{e}");
        let hashed = format!("{t}sha256 = \"{}\"\n", "0".repeat(64));
        let c = Catalog::from_toml(&hashed).expect("valid");
        assert_eq!(c.get("x").expect("x").folder, None);
        let slashed = format!("{hashed}folder = \"a/b\"\n");
        assert!(Catalog::from_toml(&slashed).is_err());
    }

    #[test]
    fn bad_grids_are_named() {
        let t = "[traces.x]\nfile = \"X.swf.gz\"\nfolder = \"l_x\"\nmachine = \"flat:8\"\n";
        for (extra, needle) in [
            ("sched = [\"nope\"]", "`sched`: scheduler `nope`"),
            ("sched = []", "`sched` is empty"),
            ("alloc = [\"mpl\"]", "alloc `mpl` does not work on `flat:8`"),
            ("alloc = [\"zz\"]", "`alloc`: allocator `zz`"),
        ] {
            let e = Catalog::from_toml(&format!("{t}{extra}\n")).expect_err(extra);
            let msg = e.to_string();
            assert!(
                msg.contains("`x`") && msg.contains(needle),
                "{extra}: {msg}"
            );
        }
    }

    #[test]
    fn bad_entries_are_named() {
        let t = r#"
            [traces.x]
            file = "X.swf.gz"
            folder = "l_x"
            machine = "flat:8"
            shape = "subcube"
        "#;
        let e = Catalog::from_toml(t).expect_err("mismatch");
        assert!(e.to_string().contains("`x`"), "{e}");
        let t = t.replace("shape = \"subcube\"", "sha256 = \"abc\"");
        assert!(Catalog::from_toml(&t).is_err());
        assert!(Catalog::from_toml("[traces.y]\nfile = 3").is_err());
    }

    #[test]
    fn another_machine_keeps_the_filters_and_gets_a_shape_rule_that_suits_it() {
        let c = Catalog::builtin();
        let e = c.get("sdsc-96").expect("sdsc-96");
        assert_eq!(e.conversion_for(None), e.conversion);
        assert_eq!(e.conversion_for(Some(e.conversion.machine)), e.conversion);
        let flat = MachineSpec::Flat { nodes: 416 };
        let c2 = e.conversion_for(Some(flat));
        assert_eq!(c2.machine, flat);
        assert!(
            !e.conversion.shape.suits(flat),
            "the mesh rule does not suit a flat machine"
        );
        assert_eq!(c2.shape, ShapeRule::default_for(flat));
        assert_eq!(
            Conversion {
                machine: e.conversion.machine,
                shape: e.conversion.shape,
                ..c2
            },
            e.conversion,
            "everything else is the entry's"
        );
    }
}
