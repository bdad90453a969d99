//! `pwa-replay man`: the manual pages, generated from the clap definitions (roff): the main page
//! on stdout, or with `--out DIR` one page per command (`pwa-replay.1`, `pwa-replay-sweep.1`, …).

use std::io::Write;
use std::path::PathBuf;

use anyhow::Context;

/// Options of `pwa-replay man`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Write `pwa-replay.1` and a page per subcommand into this directory instead.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Renders the pages of `cmd` (the whole CLI).
pub fn run(args: Args, cmd: clap::Command) -> anyhow::Result<()> {
    match args.out {
        Some(dir) => {
            std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
            clap_mangen::generate_to(cmd, &dir)
                .with_context(|| format!("writing manual pages into {}", dir.display()))
        }
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            std::io::stdout()
                .lock()
                .write_all(&page)
                .context("writing to stdout")
        }
    }
}
