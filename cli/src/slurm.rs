//! `sweep --slurm N` and `experiment --slurm N`: the two batch scripts that run a sweep or an
//! experiment as a Slurm job array of `N` shards and merge it afterwards. Nothing is submitted; the
//! `sbatch` commands are printed.
//!
//! The array task `i` runs this very command with `--shard i/N --resume --quiet --threads
//! $SLURM_CPUS_PER_TASK --out OUT/parts/shard-i`, so a requeued or resubmitted task skips the
//! cells it already finished; the merge job (`--dependency=afterok` on the array) runs `pwa-replay
//! merge OUT OUT/parts/shard-0 …`. Logs go to `OUT/slurm/logs/`.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::report::atomic::write_bytes;

/// Options of the sweep that the scripts set themselves (value-taking ones, then flags).
const OWN_VALUED: [&str; 5] = ["--slurm", "--slurm-opt", "--out", "--threads", "--shard"];
const OWN_FLAGS: [&str; 2] = ["--resume", "--quiet"];

/// `--slurm N [--slurm-opt OPTS]…`, shared by `sweep` and `experiment` (`#[command(flatten)]`).
#[derive(Debug, Clone, clap::Args)]
pub struct SlurmArgs {
    /// Write (do not submit) Slurm batch scripts under OUT/slurm/ that run the work as a job array
    /// of N shards and merge it, and print the two `sbatch` commands (a sweep needs a fixed load
    /// list).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub slurm: Option<u32>,
    /// An `#SBATCH` option for both scripts (`--partition=short --time=2:00:00`); repeatable.
    #[arg(
        long,
        value_name = "OPTS",
        requires = "slurm",
        allow_hyphen_values = true
    )]
    pub slurm_opt: Vec<String>,
}

/// What the scripts need to know.
pub struct Plan<'a> {
    /// The subcommand sharded: `sweep` or `experiment`.
    pub command: &'a str,
    /// The subcommand's arguments as given, program and subcommand names excluded.
    pub sweep_args: &'a [String],
    /// Array tasks (shards).
    pub tasks: usize,
    /// Extra `#SBATCH` options, each possibly several separated by blanks.
    pub options: &'a [String],
    /// Output directory of the merged sweep.
    pub out: &'a Path,
    /// Job name.
    pub name: &'a str,
    /// Passed on to the merge.
    pub log_y: bool,
}

/// The part directory of shard `i` under `out`.
pub fn part_dir(out: &Path, i: usize) -> PathBuf {
    out.join("parts").join(format!("shard-{i}"))
}

/// The Slurm job name of a study (`pwa-replay-sdsc-96`): its name with every character other than
/// ASCII letters, digits and `-` as `_`.
pub fn job_name(study: &str) -> String {
    format!(
        "pwa-replay-{}",
        study.replace(|c: char| !c.is_ascii_alphanumeric() && c != '-', "_")
    )
}

/// Writes the scripts ([`write_scripts`]) and prints the two `sbatch` commands that submit them.
pub fn write_and_announce(plan: &Plan<'_>) -> anyhow::Result<()> {
    let submit = write_scripts(plan)?;
    eprintln!(
        "Slurm scripts for {} shards written under {}; submit with:",
        plan.tasks,
        plan.out.join("slurm").display()
    );
    print!("{submit}");
    Ok(())
}

/// Writes `OUT/slurm/<command>.sbatch` and `OUT/slurm/merge.sbatch` (and the log directory) and returns
/// the commands that submit them.
fn write_scripts(plan: &Plan<'_>) -> anyhow::Result<String> {
    let exe = std::env::current_exe().context("locating the pwa-replay binary")?;
    let cwd = std::env::current_dir().context("reading the working directory")?;
    let out = cwd.join(plan.out);
    let dir = out.join("slurm");
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).with_context(|| format!("creating {}", logs.display()))?;
    let (sweep, merge) = (
        dir.join(format!("{}.sbatch", plan.command)),
        dir.join("merge.sbatch"),
    );
    write_bytes(&sweep, sweep_script(plan, &exe, &cwd, &out).as_bytes())?;
    write_bytes(&merge, merge_script(plan, &exe, &cwd, &out).as_bytes())?;
    for p in [&sweep, &merge] {
        make_executable(p)?;
    }
    Ok(submit_commands(&sweep, &merge))
}

/// The two commands that submit the array and then the merge.
fn submit_commands(sweep: &Path, merge: &Path) -> String {
    format!(
        "jid=$(sbatch --parsable {} | cut -d';' -f1)\nsbatch --dependency=afterok:\"$jid\" {}\n",
        quote(&sweep.display().to_string()),
        quote(&merge.display().to_string())
    )
}

fn header(plan: &Plan<'_>, name: &str, cwd: &Path, log: &Path) -> String {
    let mut s = String::from("#!/bin/bash\n");
    s += &format!("#SBATCH --job-name={name}\n");
    s += &format!("#SBATCH --chdir={}\n", cwd.display());
    s += &format!("#SBATCH --output={}\n", log.display());
    for opt in plan.options.iter().flat_map(|o| o.split_whitespace()) {
        s += &format!("#SBATCH {opt}\n");
    }
    s
}

fn sweep_script(plan: &Plan<'_>, exe: &Path, cwd: &Path, out: &Path) -> String {
    let n = plan.tasks;
    let log = out.join("slurm/logs/shard-%a-job-%A.out");
    let c = plan.command;
    let mut s = header(plan, plan.name, cwd, &log);
    s += &format!("#SBATCH --array=0-{}\n", n.saturating_sub(1));
    s += &format!(
        "# Written by `pwa-replay {c} --slurm {n}`: array task i runs shard i/{n} of the {c}\n\
         # into parts/shard-i; --resume makes a requeued or resubmitted task skip finished cells.\n\
         set -euo pipefail\n\
         i=\"${{SLURM_ARRAY_TASK_ID:?submit this script with sbatch (an array task)}}\"\n\
         exec {} {c} {} \\\n  --shard \"$i/{n}\" --resume --quiet --threads \"${{SLURM_CPUS_PER_TASK:-1}}\" \\\n  --out {}\"$i\"\n",
        quote(&exe.display().to_string()),
        kept_args(plan.sweep_args)
            .iter()
            .map(|a| quote(a))
            .collect::<Vec<_>>()
            .join(" "),
        quote(&out.join("parts/shard-").display().to_string()),
    );
    s
}

fn merge_script(plan: &Plan<'_>, exe: &Path, cwd: &Path, out: &Path) -> String {
    let log = out.join("slurm/logs/merge-job-%j.out");
    let mut s = header(plan, &format!("{}-merge", plan.name), cwd, &log);
    let parts: Vec<String> = (0..plan.tasks)
        .map(|i| quote(&part_dir(out, i).display().to_string()))
        .collect();
    s += &format!(
        "# Written by `pwa-replay {} --slurm {}`: merges the shards once every array task succeeded.\n\
         set -euo pipefail\n\
         exec {} merge{} --quiet {} \\\n  {}\n",
        plan.command,
        plan.tasks,
        quote(&exe.display().to_string()),
        if plan.log_y { " --log-y" } else { "" },
        quote(&out.display().to_string()),
        parts.join(" \\\n  ")
    );
    s
}

/// The sweep's arguments without the options the scripts set themselves.
fn kept_args(args: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let name = a.split_once('=').map_or(a.as_str(), |(n, _)| n);
        if OWN_VALUED.contains(&name) {
            if !a.contains('=') {
                it.next();
            }
        } else if !OWN_FLAGS.contains(&a.as_str()) {
            kept.push(a.clone());
        }
    }
    kept
}

/// `s` as one shell word.
fn quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=,+@%".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

fn make_executable(path: &Path) -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
            .with_context(|| format!("making {} executable", path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_scripts_own_options_are_dropped_and_the_rest_kept_in_order() {
        let args = strings(&[
            "--trace",
            "x.swf",
            "--slurm",
            "3",
            "--out=o",
            "--sched",
            "fcfs",
            "--resume",
            "--slurm-opt",
            "--time=5",
            "--threads",
            "2",
            "--loads",
            "0.5,1",
            "--quiet",
        ]);
        assert_eq!(
            kept_args(&args),
            strings(&["--trace", "x.swf", "--sched", "fcfs", "--loads", "0.5,1"])
        );
    }

    #[test]
    fn words_are_quoted_for_the_shell() {
        assert_eq!(quote("mesh:4x4"), "mesh:4x4");
        assert_eq!(quote("gang:slice=600;nmax=4"), "'gang:slice=600;nmax=4'");
        assert_eq!(quote("it's"), "'it'\\''s'");
        assert_eq!(quote(""), "''");
    }

    #[test]
    fn the_array_covers_every_shard_and_the_merge_names_every_part() {
        let args = strings(&["--trace", "t", "--loads", "1"]);
        let plan = Plan {
            command: "sweep",
            sweep_args: &args,
            tasks: 3,
            options: &strings(&["--partition=debug --time=10"]),
            out: Path::new("/o"),
            name: "pwa-replay-t",
            log_y: false,
        };
        let (exe, cwd) = (Path::new("/bin/pwa-replay"), Path::new("/w"));
        let sweep = sweep_script(&plan, exe, cwd, Path::new("/o"));
        for want in [
            "#SBATCH --array=0-2\n",
            "#SBATCH --partition=debug\n#SBATCH --time=10\n",
            "#SBATCH --chdir=/w\n",
            "--shard \"$i/3\" --resume",
            "SLURM_CPUS_PER_TASK",
            "sweep --trace t --loads 1",
        ] {
            assert!(sweep.contains(want), "{want:?} not in\n{sweep}");
        }
        let merge = merge_script(&plan, exe, cwd, Path::new("/o"));
        assert!(merge.contains("merge --quiet /o"), "{merge}");
        for i in 0..3 {
            assert!(merge.contains(&format!("/o/parts/shard-{i}")), "{merge}");
        }
        assert!(!merge.contains("shard-3"));
    }
}
