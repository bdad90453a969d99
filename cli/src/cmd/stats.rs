//! `pwa-replay stats` (being built).

/// Options of `pwa-replay stats`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`pwa-replay stats` is not built yet")
}
