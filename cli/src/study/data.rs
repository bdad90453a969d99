//! A figure's data ([`FigureData`], the library's: points `series, x, y, ci_low, ci_high` in long
//! format) and its CSV file.

use std::path::Path;

use anyhow::Context;

pub use pwa_replay::experiment::FigureData;

/// Writes `<dir>/<id>.csv`.
pub fn write_csv(d: &FigureData, dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(format!("{}.csv", d.id));
    std::fs::write(&path, d.csv()).with_context(|| format!("writing {}", path.display()))
}
