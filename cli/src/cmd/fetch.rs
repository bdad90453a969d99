//! `pwa-replay fetch` (being built).

/// Options of `pwa-replay fetch`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("`pwa-replay fetch` is not built yet")
}
