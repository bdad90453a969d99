//! `pwa-replay completions SHELL`: a shell completion script generated from the clap definitions,
//! on stdout (`make install` puts the bash, zsh and fish ones where those shells look).

use clap_complete::Shell;

/// Options of `pwa-replay completions`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Writes the script for `cmd` (the whole CLI) to stdout.
pub fn run(args: Args, mut cmd: clap::Command) -> anyhow::Result<()> {
    let name = cmd.get_name().to_string();
    clap_complete::generate(args.shell, &mut cmd, name, &mut std::io::stdout().lock());
    Ok(())
}
