//! The trace catalog: short names (`sdsc-96`, `sdsc-blue`, …) → archive file, folder, sha256 of the
//! uncompressed bytes, and how the papers view the trace (machine, filters, shape rule).
//!
//! The built-in catalog is `traces/catalog.toml`, compiled in ([`Catalog::builtin`]); another file of
//! the same form can be read with [`Catalog::from_toml`] (the CLI honours `$PWA_CATALOG`).

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::resource::MachineSpec;
use crate::workload::transform::{Conversion, ShapeRule, SizeField};

/// The text of `traces/catalog.toml`.
pub const BUILTIN_TOML: &str = include_str!("../../traces/catalog.toml");

/// A catalog that could not be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Not valid TOML of the catalog's form.
    #[error("catalog is not valid: {0}")]
    Toml(String),
    /// An entry is inconsistent.
    #[error("catalog entry `{name}`: {why}")]
    Entry {
        /// The entry's short name.
        name: String,
        /// What is wrong.
        why: String,
    },
}

/// One catalogued trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceEntry {
    /// Short name (`sdsc-96`).
    pub name: String,
    /// One line for humans.
    pub description: String,
    /// Archive file name (`SDSC-Par-1996-3.1-cln.swf.gz`).
    pub file: String,
    /// PWA folder (`l_sdsc_par`).
    pub folder: String,
    /// sha256 of the uncompressed bytes, lowercase hex; `None` when not recorded.
    pub sha256: Option<String>,
    /// How the trace is converted to jobs (machine, rule, filters); `lenient` is `false` here.
    pub conversion: Conversion,
}

/// All catalogued traces, by short name.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalog {
    entries: BTreeMap<String, TraceEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCatalog {
    traces: BTreeMap<String, RawEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    #[serde(default)]
    description: String,
    file: String,
    folder: String,
    sha256: Option<String>,
    machine: String,
    shape: Option<ShapeRule>,
    #[serde(default = "one")]
    procs_per_node: u32,
    partitions: Option<Vec<i64>>,
    queues: Option<Vec<i64>>,
    #[serde(default)]
    size_field: SizeField,
}

fn one() -> u32 {
    1
}

impl Catalog {
    /// The compiled-in `traces/catalog.toml` (its validity is a unit test).
    pub fn builtin() -> Catalog {
        Catalog::from_toml(BUILTIN_TOML).unwrap_or_else(|e| {
            unreachable!("traces/catalog.toml is checked by builtin_catalog_is_valid: {e}")
        })
    }

    /// Reads a catalog from TOML text and checks every entry.
    pub fn from_toml(text: &str) -> Result<Catalog, CatalogError> {
        let raw: RawCatalog =
            toml::from_str(text).map_err(|e| CatalogError::Toml(e.to_string()))?;
        let entries = raw
            .traces
            .into_iter()
            .map(|(name, e)| Ok((name.clone(), entry(name, e)?)))
            .collect::<Result<_, CatalogError>>()?;
        Ok(Catalog { entries })
    }

    /// The entry called `name`.
    pub fn get(&self, name: &str) -> Option<&TraceEntry> {
        self.entries.get(name)
    }

    /// All entries, sorted by name.
    pub fn entries(&self) -> impl Iterator<Item = &TraceEntry> {
        self.entries.values()
    }

    /// The short names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.entries.keys().map(String::as_str).collect()
    }
}

fn entry(name: String, e: RawEntry) -> Result<TraceEntry, CatalogError> {
    let bad = |why: String| CatalogError::Entry {
        name: name.clone(),
        why,
    };
    let machine: MachineSpec = e.machine.parse().map_err(|x| bad(format!("{x}")))?;
    let shape = e.shape.unwrap_or_else(|| ShapeRule::default_for(machine));
    if !shape.suits(machine) {
        return Err(bad(format!(
            "shape rule `{shape}` does not work on `{machine}`"
        )));
    }
    if e.procs_per_node == 0 {
        return Err(bad("procs_per_node must be at least 1".into()));
    }
    if let Some(h) = e.sha256.as_deref().filter(|h| !is_sha256_hex(h)) {
        return Err(bad(format!("sha256 `{h}` is not 64 lowercase hex digits")));
    }
    if e.file.is_empty() || e.file.contains(['/', '\\']) || e.folder.contains(['/', '\\']) {
        return Err(bad("file and folder must be plain names".into()));
    }
    Ok(TraceEntry {
        name: name.clone(),
        description: e.description,
        file: e.file,
        folder: e.folder,
        sha256: e.sha256,
        conversion: Conversion {
            machine,
            shape,
            procs_per_node: e.procs_per_node,
            size_field: e.size_field,
            partitions: e.partitions,
            queues: e.queues,
            lenient: false,
        },
    })
}

/// Whether `s` is 64 lowercase hex digits.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resource::Shape;

    #[test]
    fn builtin_catalog_is_valid() {
        let c = Catalog::from_toml(BUILTIN_TOML).expect("traces/catalog.toml parses");
        let names = c.names();
        for n in [
            "sdsc-95",
            "sdsc-96",
            "sdsc-blue",
            "nasa-ipsc",
            "lanl-cm5",
            "ctc-sp2",
            "kth-sp2",
        ] {
            assert!(names.contains(&n), "{n} missing from the catalog");
        }
        for e in c.entries() {
            assert!(e.conversion.shape.suits(e.conversion.machine), "{}", e.name);
            assert!(e.file.ends_with(".swf.gz"), "{}", e.name);
            assert!(e.folder.starts_with("l_"), "{}", e.name);
            assert!(
                e.sha256.is_some() || e.name == "sdsc-95",
                "{} lacks a sha256",
                e.name
            );
        }
    }

    #[test]
    fn paper_views_of_the_traces() {
        let c = Catalog::builtin();
        let blue = &c.get("sdsc-blue").expect("blue").conversion;
        assert_eq!(
            blue.machine,
            MachineSpec::Mesh {
                size: Shape::new(12, 12)
            }
        );
        assert_eq!(
            (blue.procs_per_node, blue.shape),
            (8, ShapeRule::SquareTall)
        );
        let par = &c.get("sdsc-96").expect("sdsc-96").conversion;
        assert_eq!(par.partitions.as_deref(), Some(&[2][..]));
        assert_eq!(par.shape, ShapeRule::Paragon);
        let ipsc = &c.get("nasa-ipsc").expect("ipsc").conversion;
        assert_eq!(ipsc.machine, MachineSpec::Hypercube { dim: 7 });
    }

    #[test]
    fn bad_entries_are_named() {
        let t = r#"
            [traces.x]
            file = "X.swf.gz"
            folder = "l_x"
            machine = "flat:8"
            shape = "subcube"
        "#;
        let e = Catalog::from_toml(t).expect_err("mismatch");
        assert!(e.to_string().contains("`x`"), "{e}");
        let t = t.replace("shape = \"subcube\"", "sha256 = \"abc\"");
        assert!(Catalog::from_toml(&t).is_err());
        assert!(Catalog::from_toml("[traces.y]\nfile = 3").is_err());
    }
}
