//! One replay of a catalogued log on its own machine with user estimates, for profilers:
//! `replay_once TRACE SCHED LOAD_FACTOR [TIMES]` replays `TIMES` times (default 1) and prints
//! each replay's wall time and the mean wait. Reading the log is outside [`replay`], so that
//! `valgrind --tool=callgrind --toggle-collect='*replay_with*'` counts the replays alone:
//!
//! ```text
//! cargo build --release --example replay_once
//! valgrind --tool=callgrind --toggle-collect='*replay_with*' \
//!     target/release/examples/replay_once ctc-sp2 easy:order=sjf 1.2
//! ```

use std::path::PathBuf;
use std::time::Instant;

use pwa_replay::catalog::Catalog;
use pwa_replay::engine::{NoObserver, Outcome, ReplayOptions, replay_with};
use pwa_replay::machine::{AllocKind, MachineSpec};
use pwa_replay::sched::SchedKind;
use pwa_replay::swf::{ReadOptions, SwfReader};
use pwa_replay::workload::tracepath::SearchPath;
use pwa_replay::workload::{EstimateModel, Workload};

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [trace, sched, lf, rest @ ..] = args.as_slice() else {
        return Err("usage: replay_once TRACE SCHED LOAD_FACTOR [TIMES]".into());
    };
    let sched: SchedKind = sched.parse().map_err(|e| format!("{e}"))?;
    let lf: f64 = lf.parse().map_err(|e| format!("load factor: {e}"))?;
    let times: usize = match rest.first() {
        Some(t) => t.parse().map_err(|e| format!("times: {e}"))?,
        None => 1,
    };
    let (w, m) = load(trace, lf)?;
    for _ in 0..times {
        let t = Instant::now();
        let out = replay(&w, m, sched)?;
        let mean_wait = (out.records.iter().zip(&w.jobs))
            .map(|(r, j)| r.start - j.submit)
            .sum::<f64>()
            / out.records.len() as f64;
        println!(
            "{:.4} s, mean wait {mean_wait:.3} s",
            t.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// Catalogued log `trace` at load factor `lf` with user estimates, on its machine.
fn load(trace: &str, lf: f64) -> Result<(Workload, MachineSpec), String> {
    let catalog = Catalog::builtin();
    let entry = catalog
        .get(trace)
        .ok_or(format!("{trace}: not in the catalog"))?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let search = SearchPath::new(std::env::var_os("PWA_TRACES").as_deref(), &[root]);
    let path = (search.find(&entry.file)).ok_or(format!("{}: not found", entry.file))?;
    let reader = SwfReader::open(&path, ReadOptions::strict()).map_err(|e| format!("{e}"))?;
    let records = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{e}"))?;
    let conv = entry.conversion.clone();
    let converted = conv.apply(records.iter()).map_err(|e| format!("{e}"))?;
    let mut w = converted.workload.scaled(lf).map_err(|e| format!("{e}"))?;
    w.set_estimates(EstimateModel::User);
    Ok((w, conv.machine))
}

/// One replay of `w` on `m` under `sched`, flat allocation.
#[inline(never)]
fn replay(w: &Workload, m: MachineSpec, sched: SchedKind) -> Result<Outcome, String> {
    replay_with(
        w,
        m,
        sched,
        AllocKind::Flat,
        ReplayOptions::default(),
        &mut NoObserver,
    )
    .map_err(|e| format!("{e}"))
}
