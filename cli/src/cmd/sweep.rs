//! `pwa-replay sweep` (being built).

/// Options of `pwa-replay sweep`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`pwa-replay sweep` is not built yet")
}
