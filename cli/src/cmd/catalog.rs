//! `pwa-replay catalog`: the catalogued traces — machine, conversion, default grid (what
//! `make replay TRACE=NAME` replays), and whether the log is on the search path, where, and how big.

use std::io::Write;

use anyhow::Context;
use pwa_replay::catalog::TraceEntry;
use pwa_replay::workload::{Conversion, SizeField};
use serde::Serialize;

use crate::report::human;

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Aligned columns, then the search path.
    Table,
    /// One JSON object: `search_path` and `traces` (sizes in bytes).
    Json,
}

/// Options of `pwa-replay catalog`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// One catalogued trace as listed.
#[derive(Debug, Serialize)]
struct Row {
    name: String,
    description: String,
    file: String,
    /// Archive folder (`None`: a log the archive does not hold).
    folder: Option<String>,
    machine: String,
    conversion: String,
    sched: Vec<String>,
    alloc: Vec<String>,
    /// Estimate models of its default grid (empty: exact only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    estimate: Vec<String>,
    /// sha256 of the uncompressed log on record (`None`: a download is verified by gzip integrity
    /// and a strict parse, and `fetch` prints the hash to record).
    sha256: Option<String>,
    /// Where the log was found on the search path (`None`: not found).
    path: Option<String>,
    /// Its size on disk in bytes (as stored, usually gzip).
    bytes: Option<u64>,
}

#[derive(Debug, Serialize)]
struct Listing {
    search_path: Vec<String>,
    traces: Vec<Row>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let cat = crate::trace::catalog()?;
    let sp = crate::trace::search_path();
    let traces = cat
        .entries()
        .map(|e| {
            let found = sp.find(&e.file).map(|p| p.canonicalize().unwrap_or(p));
            let bytes = found
                .as_deref()
                .map(|p| std::fs::metadata(p).map(|m| m.len()))
                .transpose()
                .with_context(|| format!("reading the size of {}", e.file))?;
            Ok(row(e, found.map(|p| p.display().to_string()), bytes))
        })
        .collect::<anyhow::Result<Vec<Row>>>()?;
    let listing = Listing {
        search_path: sp.dirs().iter().map(|d| d.display().to_string()).collect(),
        traces,
    };
    let text = match args.format {
        Format::Json => serde_json::to_string_pretty(&listing)? + "\n",
        Format::Table => table(&listing),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .context("writing to stdout")
}

fn row(e: &TraceEntry, path: Option<String>, bytes: Option<u64>) -> Row {
    Row {
        name: e.name.clone(),
        description: e.description.clone(),
        file: e.file.clone(),
        folder: e.folder.clone(),
        machine: e.conversion.machine.to_string(),
        conversion: conversion(&e.conversion),
        sched: e.grid.schedulers.iter().map(ToString::to_string).collect(),
        alloc: e.grid.allocators.iter().map(ToString::to_string).collect(),
        estimate: e.grid.estimates.iter().map(ToString::to_string).collect(),
        sha256: e.sha256.clone(),
        path,
        bytes,
    }
}

/// `paragon, partition 2`, `square-tall, 8 procs/node`: the shape rule, then what differs from
/// a plain conversion.
fn conversion(c: &Conversion) -> String {
    let list = |v: &[i64]| v.iter().map(i64::to_string).collect::<Vec<_>>().join(",");
    let mut parts = vec![c.shape.to_string()];
    if c.procs_per_node > 1 {
        parts.push(format!("{} procs/node", c.procs_per_node));
    }
    if let Some(p) = &c.partitions {
        parts.push(format!("partition {}", list(p)));
    }
    if let Some(q) = &c.queues {
        parts.push(format!("queue {}", list(q)));
    }
    if c.size_field == SizeField::AllocatedOrRequested {
        parts.push("size: allocated, else requested".into());
    }
    parts.join(", ")
}

/// `fcfs,oo × flat`, then `× exact,user` when the grid names estimate models.
fn grid(r: &Row) -> String {
    let mut g = format!("{} × {}", r.sched.join(","), r.alloc.join(","));
    if !r.estimate.is_empty() {
        g += &format!(" × {}", r.estimate.join(","));
    }
    g
}

fn table(l: &Listing) -> String {
    let head = ["name", "machine", "conversion", "default grid", "log"];
    let rows: Vec<[String; 5]> = l
        .traces
        .iter()
        .map(|r| {
            let log = match (&r.path, r.bytes) {
                (Some(p), Some(b)) => format!("{}  {p}", human::bytes(b)),
                _ => match &r.folder {
                    Some(folder) => format!(
                        "not found: `pwa-replay fetch {}` downloads {folder}/{}",
                        r.name, r.file
                    ),
                    None => format!("not found: put {} on the search path", r.file),
                },
            };
            [
                r.name.clone(),
                r.machine.clone(),
                r.conversion.clone(),
                grid(r),
                log,
            ]
        })
        .collect();
    let mut width = head.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut s = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                s += c;
            } else {
                s += &format!("{c}{}  ", " ".repeat(width[i] - c.chars().count()));
            }
        }
        s + "\n"
    };
    let mut out = line(head);
    for r in &rows {
        out += &line([&r[0], &r[1], &r[2], &r[3], &r[4]]);
    }
    let present = l.traces.iter().filter(|r| r.path.is_some()).count();
    out += &format!(
        "\n{present} of {} logs present, {} to fetch (from the archive; a log with no sha256 on record is verified by gzip integrity and a strict parse)\nsearch path: {}\n`make replay TRACE=NAME` sweeps the default grid; SCHED=… ALLOC=… override it.\n",
        l.traces.len(),
        l.traces.len() - present,
        l.search_path.join(":")
    );
    out
}
