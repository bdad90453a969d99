//! `pwa-replay run` (being built).

/// Options of `pwa-replay run`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`pwa-replay run` is not built yet")
}
