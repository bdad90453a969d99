//! Golden per-job tables: today's schedules pinned byte for byte.
//!
//! Every scheduler × every allocator replays the small SWF fixtures of `tests/golden/fixtures/` on an
//! 8×8 mesh (and the flat allocator on `flat:64`); the per-job tables (job, start, end, placement) are
//! compared with `tests/golden/<fixture>.txt` (the non-contiguous allocators with
//! `tests/golden/noncontig-<fixture>.txt`). A handful of sdsc-96 cells are pinned by the sha256 of
//! their table (`tests/golden/sdsc-96.txt`), when the log is on the search path.
//!
//! A change of behaviour that is meant shows up as a reviewed diff: rerun with `PWA_UPDATE_GOLDEN=1`
//! to rewrite the files, and say why in the commit.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use pwa_replay::catalog::Catalog;
use pwa_replay::engine::{NoObserver, Outcome, replay, validate};
use pwa_replay::machine::{AllocKind, MachineSpec, Placement};
use pwa_replay::sched::SchedKind;
use pwa_replay::swf::{ReadOptions, read_all};
use pwa_replay::workload::tracepath::sha256_bytes;
use pwa_replay::workload::{Conversion, Workload};

use crate::real_logs::real_logs;

/// Every scheduler label the golden tables cover, edge parameters included.
const SCHEDULERS: &[&str] = &[
    "fcfs",
    "oo",
    "oocb:0",
    "oocb:2",
    "oocb-incl:3",
    "oocb-head:2",
    "window:1",
    "window:3",
    "delay",
    "delay:count",
    "bq:0",
    "bq:50",
    "bq:inf",
    "easy",
    "conservative",
];

const MESH_ALLOCATORS: &[&str] = &["ff", "bf", "fo", "as", "mpl", "mpl-fixed", "flat"];

/// The non-contiguous allocators, pinned in files of their own (`noncontig-<fixture>.txt`).
const PIECE_ALLOCATORS: &[&str] = &[
    "paging:0",
    "paging:1",
    "paging:1:snake",
    "paging:2:shuffled",
    "mbs",
    "gabl",
    "anca",
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(file: &Path, machine: MachineSpec) -> Workload {
    let (_, recs, _) = read_all(file, ReadOptions::strict()).expect("fixture parses");
    Conversion::for_machine(machine)
        .apply(&recs)
        .expect("fixture converts")
        .workload
}

/// The readable per-job table: `job start end placement`, one line per job in arrival order.
fn table(w: &Workload, out: &Outcome) -> String {
    let mut s = String::from("job start end placement\n");
    for (job, rec) in w.jobs.iter().zip(&out.records) {
        writeln!(
            s,
            "{} {} {} {}",
            job.source_id,
            rec.start,
            rec.end,
            label(&rec.placement)
        )
        .expect("write to string");
    }
    s
}

/// A placement as the golden files spell it: `(x_b,y_b,x_e,y_e)` 1-based for a submesh (` rotated`
/// when turned), `N nodes` for anonymous nodes.
fn label(p: &Placement) -> String {
    match p {
        Placement::Submesh { at, rotated } => {
            let (xb, yb, xe, ye) = at.paper();
            let turned = if *rotated { " rotated" } else { "" };
            format!("({xb},{yb},{xe},{ye}){turned}")
        }
        Placement::Nodes(n) => format!("{n} nodes"),
        other => other.to_string(),
    }
}

fn run(w: &Workload, machine: MachineSpec, sched: &str, alloc: &str) -> String {
    let s: SchedKind = sched.parse().expect("label");
    let a: AllocKind = alloc.parse().expect("label");
    let out = replay(w, machine, s, a, &mut NoObserver).expect("replays");
    validate(w, machine, &out).expect("valid schedule");
    table(w, &out)
}

/// Compares `actual` with the golden file, or rewrites it under `PWA_UPDATE_GOLDEN=1`.
fn check(name: &str, actual: &str) {
    let path = root().join("tests/golden").join(name);
    if std::env::var_os("PWA_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).expect("write golden");
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (PWA_UPDATE_GOLDEN=1 writes it)", path.display()));
    if expected != actual {
        let line = expected
            .lines()
            .zip(actual.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{} differs first at line {}:\n  golden: {:?}\n  now:    {:?}",
            path.display(),
            line + 1,
            expected.lines().nth(line),
            actual.lines().nth(line)
        );
    }
}

fn fixture_tables(fixture: &str) -> String {
    let file = root().join(format!("tests/golden/fixtures/{fixture}.swf.txt"));
    let mesh: MachineSpec = "mesh:8x8".parse().expect("machine");
    let flat: MachineSpec = "flat:64".parse().expect("machine");
    let (on_mesh, on_flat) = (load(&file, mesh), load(&file, flat));
    let mut all = String::new();
    for sched in SCHEDULERS {
        for alloc in MESH_ALLOCATORS {
            writeln!(all, "## {sched} {alloc} on {mesh}").expect("write");
            all += &run(&on_mesh, mesh, sched, alloc);
        }
        writeln!(all, "## {sched} flat on {flat}").expect("write");
        all += &run(&on_flat, flat, sched, "flat");
    }
    all
}

/// Every scheduler × every non-contiguous allocator on the 8×8 mesh.
fn piece_tables(fixture: &str) -> String {
    let file = root().join(format!("tests/golden/fixtures/{fixture}.swf.txt"));
    let mesh: MachineSpec = "mesh:8x8".parse().expect("machine");
    let on_mesh = load(&file, mesh);
    let mut all = String::new();
    for sched in SCHEDULERS {
        for alloc in PIECE_ALLOCATORS {
            writeln!(all, "## {sched} {alloc} on {mesh}").expect("write");
            all += &run(&on_mesh, mesh, sched, alloc);
        }
    }
    all
}

#[test]
fn golden_tables_of_the_non_contiguous_allocators() {
    check("noncontig-ties.txt", &piece_tables("ties"));
    check("noncontig-burst.txt", &piece_tables("burst"));
}

#[test]
fn golden_tables_of_the_hand_made_fixture() {
    check("ties.txt", &fixture_tables("ties"));
}

#[test]
fn golden_tables_of_the_burst_fixture() {
    check("burst.txt", &fixture_tables("burst"));
}

/// sdsc-96 cells pinned by the sha256 of their per-job table.
#[test]
#[cfg_attr(skip_trace_tests, ignore = "reads the real logs")]
fn golden_hashes_of_sdsc96_cells() {
    let cells: &[(&str, &str, f64)] = &[
        ("fcfs", "mpl", 1.0),
        ("oo", "ff", 1.5),
        ("window:240", "mpl", 1.0),
        ("window:10", "as", 2.0),
        ("bq:3600", "fo", 0.8),
        ("oocb:8", "bf", 1.2),
        ("oocb-head:8", "bf", 1.2),
        ("fcfs", "mpl-fixed", 1.0),
        ("delay", "mpl", 1.5),
        ("fcfs", "flat", 1.5),
    ];
    let entry = Catalog::builtin()
        .get("sdsc-96")
        .expect("catalogued")
        .clone();
    let path = real_logs().join(&entry.file);
    let (_, recs, _) = read_all(&path, ReadOptions::strict()).expect("log parses");
    let base = entry.conversion.apply(&recs).expect("converts").workload;
    let machine = entry.conversion.machine;
    let mut all = String::from("# sched alloc load_factor sha256(per-job table)\n");
    for &(sched, alloc, lf) in cells {
        let w = base.scaled(lf).expect("load factor");
        let digest = sha256_bytes(run(&w, machine, sched, alloc).as_bytes());
        writeln!(all, "{sched} {alloc} {lf} {digest}").expect("write");
    }
    check("sdsc-96.txt", &all);
}
