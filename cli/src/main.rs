//! `pwa-replay`: the command-line front end. A thin pipeline over the `pwa_replay` library:
//! parse options, load a trace, simulate, write tables and plots. Errors print with their context
//! chain and exit 1.

mod cmd;
mod download;
mod options;
mod paper;
mod report;
mod slurm;
mod study;
mod trace;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use pwa_replay::experiment::ExperimentError;

/// Trace-replay analyzer for Parallel Workloads Archive logs.
#[derive(Debug, Parser)]
#[command(name = "pwa-replay", version, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Describe a trace after filters and shape conversion.
    Stats(cmd::stats::Args),
    /// List the catalogued traces: machine, conversion, default grid, where the log is, its size.
    Catalog(cmd::catalog::Args),
    /// Download a catalogued trace from the Parallel Workloads Archive and verify it.
    Fetch(cmd::fetch::Args),
    /// Replay a trace under one scheduler and one allocator.
    Run(cmd::run::Args),
    /// Replay a trace under a grid of schedulers × allocators × load factors, in parallel.
    Sweep(cmd::sweep::Args),
    /// Run studies described as data: experiment files (TOML) of panels, figures and claims.
    Experiment(cmd::experiment::Args),
    /// Merge the shards of a sweep (`sweep --shard I/N`) into one summary, figures and report.
    Merge(cmd::merge::Args),
    /// Redraw the plots and report of a sweep from its summary table.
    Plot(cmd::plot::Args),
    /// Draw one replay: machine snapshots, space-time chart, animation, fragmentation over time.
    Draw(cmd::draw::Args),
    /// Generate a synthetic workload as SWF.
    Synth(cmd::synth::Args),
    /// Regenerate the figures of the five papers (window-k, bypass queue, lazy hypercube, semitorus,
    /// coscheduling) under out/paper.
    Paper(cmd::paper::Args),
    /// Re-check the sha256 of every file listed in an output directory's manifest.json.
    Verify(cmd::verify::Args),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(cmd::completions::Args),
    /// Print the manual page, or write one per command into a directory.
    Man(cmd::man::Args),
}

/// What the tool is, then every subcommand: the one line of `--help` and the manual page's NAME.
const ABOUT: &str = "Trace-replay analyzer for Parallel Workloads Archive logs";

/// The command line with its one-line description naming every subcommand, generated from the
/// subcommands themselves so that a new one cannot be left out of the manual page's NAME line.
fn command() -> clap::Command {
    let cmd = Cli::command();
    let names: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
    let about = format!("{ABOUT}: {}", names.join(", "));
    cmd.about(about)
}

fn main() {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Stats(a) => cmd::stats::run(a),
        Command::Catalog(a) => cmd::catalog::run(a),
        Command::Fetch(a) => cmd::fetch::run(a),
        Command::Run(a) => cmd::run::run(a),
        Command::Sweep(a) => cmd::sweep::run(a),
        Command::Experiment(a) => cmd::experiment::run(a),
        Command::Merge(a) => cmd::merge::run(a),
        Command::Plot(a) => cmd::plot::run(a),
        Command::Draw(a) => cmd::draw::run(a),
        Command::Synth(a) => cmd::synth::run(a),
        Command::Paper(a) => cmd::paper::run(a),
        Command::Verify(a) => cmd::verify::run(a),
        Command::Completions(a) => cmd::completions::run(a, command()),
        Command::Man(a) => cmd::man::run(a, command()),
    };
    if let Err(e) = result {
        if is_broken_pipe(&e) {
            return;
        }
        if let Some(i) = e.downcast_ref::<report::progress::Interrupted>() {
            eprintln!("{i}");
            std::process::exit(130);
        }
        if e.chain().any(|c| c.is::<ExperimentError>()) {
            // An experiment file's mistakes, one a line: each an error of its own.
            for line in format!("{e:#}").lines() {
                eprintln!("error: {line}");
            }
        } else {
            eprintln!("error: {e:#}");
        }
        std::process::exit(1);
    }
}

/// A closed pipe (`pwa-replay stats … | head`) is not an error.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cli_definition_is_consistent() {
        command().debug_assert();
    }

    #[test]
    fn the_one_line_description_names_every_subcommand() {
        let cmd = command();
        let about = cmd.get_about().expect("an about line").to_string();
        for sub in cmd.get_subcommands() {
            assert!(
                about.contains(sub.get_name()),
                "{about} lacks {}",
                sub.get_name()
            );
        }
    }

    /// Every replay option is a flag of every command that replays.
    #[test]
    fn every_replaying_command_takes_every_replay_option() {
        let cli = Cli::command();
        for name in ["run", "draw", "sweep", "experiment"] {
            let cmd = cli.find_subcommand(name).expect(name);
            for key in pwa_replay::engine::ReplayOptions::keys() {
                assert!(
                    cmd.get_arguments().any(|a| a.get_id() == *key),
                    "`{name}` has no flag for `{key}`"
                );
            }
        }
    }
}
