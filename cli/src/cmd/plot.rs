//! `pwa-replay plot` (being built).

/// Options of `pwa-replay plot`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`pwa-replay plot` is not built yet")
}
