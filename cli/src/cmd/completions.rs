//! `pwa-replay completions SHELL`: a shell completion script generated from the clap definitions,
//! on stdout (`make install` puts the bash, zsh and fish ones where those shells look).

use std::io::Write;

use anyhow::Context;
use clap_complete::Shell;

/// Options of `pwa-replay completions`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Writes the script for `cmd` (the whole CLI) to stdout. The script is made in memory first:
/// `clap_complete` panics on a failed write, and a closed pipe (`… | head`) is no error.
pub fn run(args: Args, mut cmd: clap::Command) -> anyhow::Result<()> {
    let name = cmd.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, name, &mut script);
    std::io::stdout()
        .lock()
        .write_all(&script)
        .context("writing to stdout")
}
