//! `pwa-replay synth` (being built).

/// Options of `pwa-replay synth`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`pwa-replay synth` is not built yet")
}
