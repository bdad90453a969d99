//! The library's module graph, drawn from its own imports: every `use` and every path written out
//! from `crate::`, `super::` or `self::` in `src/` (comments, literals and `#[cfg(test)]` items left
//! out; a path through a `pub use` is followed to the module that defines the item).
//!
//! * **No circles.** Among the modules of one parent, none imports itself through the others (a
//!   module's imports include those of its submodules; a parent and its own submodules may use each
//!   other).
//! * **No upward imports.** A top-level module imports only the modules listed before it in the
//!   data flow of the crate docs (`src/lib.rs`), and that list names every top-level module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A module path from the crate root (`["engine", "observation"]`).
type ModPath = Vec<String>;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`.
    PathSep,
    Punct(char),
}

/// The tokens of `src` that matter for paths: identifiers (`$crate` as `crate`), `::` and single
/// punctuation; comments, string, char and number literals and lifetimes are dropped.
fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let rest = |k: usize| c.get(i + k).copied().unwrap_or(' ');
        match c[i] {
            '/' if rest(1) == '/' => {
                while i < c.len() && c[i] != '\n' {
                    i += 1;
                }
            }
            '/' if rest(1) == '*' => i = skip_block_comment(&c, i),
            '"' => i = skip_string(&c, i + 1),
            'r' | 'b' if raw_string_hashes(&c, i).is_some() => {
                let (hashes, open) = raw_string_hashes(&c, i).expect("checked");
                i = open + 1;
                while !(c[i] == '"' && (0..hashes).all(|h| c.get(i + 1 + h) == Some(&'#'))) {
                    i += 1;
                }
                i += 1 + hashes;
            }
            'b' if rest(1) == '"' => i = skip_string(&c, i + 2),
            'b' if rest(1) == '\'' => i = skip_char(&c, i + 2),
            '\'' if rest(1) == '\\' || rest(2) == '\'' => i = skip_char(&c, i + 1),
            ':' if rest(1) == ':' => {
                out.push(Tok::PathSep);
                i += 2;
            }
            '$' if rest(1) == 'c' => i += 1,
            ch if ch.is_alphabetic() || ch == '_' => {
                let start = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                    i += 1;
                }
                out.push(Tok::Ident(c[start..i].iter().collect()));
            }
            ch if ch.is_ascii_digit() => {
                let fraction =
                    |i: usize| c[i] == '.' && c.get(i + 1).is_some_and(char::is_ascii_digit);
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || fraction(i)) {
                    i += 1;
                }
            }
            ch if ch.is_whitespace() || ch == '\'' => i += 1,
            ch => {
                out.push(Tok::Punct(ch));
                i += 1;
            }
        }
    }
    out
}

/// Past the end of the block comment (nested ones included) that starts at `i`.
fn skip_block_comment(c: &[char], mut i: usize) -> usize {
    let mut depth = 0;
    while i < c.len() {
        let pair = (c[i], c.get(i + 1).copied().unwrap_or(' '));
        if pair == ('/', '*') {
            depth += 1;
            i += 2;
        } else if pair == ('*', '/') {
            depth -= 1;
            i += 2;
            if depth == 0 {
                break;
            }
        } else {
            i += 1;
        }
    }
    i
}

/// Past the end of a string whose text starts at `i`.
fn skip_string(c: &[char], mut i: usize) -> usize {
    while c[i] != '"' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// Past the end of a char literal whose text starts at `i`.
fn skip_char(c: &[char], mut i: usize) -> usize {
    while c[i] != '\'' {
        i += if c[i] == '\\' { 2 } else { 1 };
    }
    i + 1
}

/// `r"…"`, `r#"…"#`, `br"…"` at `i`: the number of `#`s and the index of the opening quote.
fn raw_string_hashes(c: &[char], i: usize) -> Option<(usize, usize)> {
    if i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_') {
        return None;
    }
    let r = if c[i] == 'b' { i + 1 } else { i };
    if c.get(r) != Some(&'r') {
        return None;
    }
    let hashes = c[r + 1..].iter().take_while(|&&ch| ch == '#').count();
    (c.get(r + 1 + hashes) == Some(&'"')).then_some((hashes, r + 1 + hashes))
}

/// The paths of a use tree (`a::{b, c::{self, D}}` → `a::b`, `a::c`, `a::c::D`), from `toks`
/// up to the end of the tree; returns the index after it.
fn use_tree(toks: &[Tok], mut i: usize, prefix: &[String], out: &mut Vec<ModPath>) -> usize {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(i) {
            Some(Tok::Ident(s)) if s == "as" => i += 2,
            Some(Tok::Ident(s))
                if s == "self" && path.len() == prefix.len() && !path.is_empty() =>
            {
                i += 1;
            }
            Some(Tok::Ident(s)) => {
                path.push(s.clone());
                i += 1;
            }
            Some(Tok::PathSep) => i += 1,
            Some(Tok::Punct('{')) => {
                i += 1;
                while toks.get(i) != Some(&Tok::Punct('}')) {
                    i = use_tree(toks, i, &path, out);
                    if toks.get(i) == Some(&Tok::Punct(',')) {
                        i += 1;
                    }
                }
                return i + 1;
            }
            Some(Tok::Punct('*')) => i += 1,
            _ => {
                out.push(path);
                return i;
            }
        }
    }
}

/// What one module's source says: the paths it uses and the names it re-exports.
#[derive(Debug, Default)]
struct Imports {
    /// `(module the path is written in, path)`; inline modules are modules of their own.
    uses: Vec<(ModPath, ModPath)>,
    /// `(module, name) → path` of each `pub use`.
    reexports: BTreeMap<(ModPath, String), (ModPath, ModPath)>,
    /// Inline modules (`mod fast { … }`).
    inline: Vec<ModPath>,
}

/// Reads the tokens of the file of module `module`.
fn read_module(module: &ModPath, toks: &[Tok], into: &mut Imports) {
    let mut scopes: Vec<(ModPath, usize)> = vec![(module.clone(), 0)];
    let mut depth = 0usize;
    let mut i = 0;
    while i < toks.len() {
        let here = scopes.last().expect("the file's module").0.clone();
        match &toks[i] {
            Tok::Punct('#') if is_cfg_test(toks, i) => {
                i = skip_item(toks, i);
                continue;
            }
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                if scopes.len() > 1 && scopes.last().is_some_and(|s| s.1 == depth) {
                    scopes.pop();
                }
                depth -= 1;
            }
            Tok::Ident(m) if m == "mod" => {
                if let (Some(Tok::Ident(name)), Some(Tok::Punct('{'))) =
                    (toks.get(i + 1), toks.get(i + 2))
                {
                    let mut inner = here.clone();
                    inner.push(name.clone());
                    into.inline.push(inner.clone());
                    depth += 1;
                    scopes.push((inner, depth));
                    i += 3;
                    continue;
                }
            }
            Tok::Ident(u) if u == "use" => {
                // `pub use` or `pub(…) use`.
                let public = i > 0
                    && (matches!(&toks[i - 1], Tok::Ident(p) if p == "pub")
                        || toks[i - 1] == Tok::Punct(')'));
                let mut paths = Vec::new();
                i = use_tree(toks, i + 1, &[], &mut paths);
                for p in paths {
                    if public && let Some(name) = p.last() {
                        into.reexports
                            .insert((here.clone(), name.clone()), (here.clone(), p.clone()));
                    }
                    into.uses.push((here.clone(), p));
                }
                continue;
            }
            Tok::Ident(s) if ["crate", "super", "self"].contains(&s.as_str()) => {
                let starts_path = i == 0 || toks[i - 1] != Tok::PathSep;
                if starts_path && toks.get(i + 1) == Some(&Tok::PathSep) {
                    let mut path = vec![s.clone()];
                    let mut j = i + 1;
                    while toks.get(j) == Some(&Tok::PathSep) {
                        let Some(Tok::Ident(seg)) = toks.get(j + 1) else {
                            break;
                        };
                        path.push(seg.clone());
                        j += 2;
                    }
                    into.uses.push((here.clone(), path));
                    i = j;
                    continue;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// Whether the attribute at `i` is `#[cfg(test)]`.
fn is_cfg_test(toks: &[Tok], i: usize) -> bool {
    let want = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    toks.get(i..i + want.len()) == Some(&want[..])
}

/// Past the item whose attributes start at `i`: its first `;` outside brackets, or the end of its
/// first block.
fn skip_item(toks: &[Tok], mut i: usize) -> usize {
    let mut depth = 0i32;
    while i < toks.len() {
        match toks[i] {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            Tok::Punct(';') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The module of each file under `src` (`lib.rs` the root, `a/mod.rs` and `a.rs` module `a`).
fn module_files(src: &Path) -> Vec<(ModPath, String)> {
    let mut files = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("src readable") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                dirs.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path
                .strip_prefix(src)
                .expect("under src")
                .with_extension("");
            let mut module: ModPath = rel
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            // Test modules in files of their own (`counts/tests.rs`) are test code.
            if module.iter().any(|m| m == "tests") {
                continue;
            }
            let text = std::fs::read_to_string(&path).expect("source readable");
            files.push((module, text));
        }
    }
    files.sort();
    files
}

/// The crate's module graph: each module (inline ones too) and the modules it imports.
struct Graph {
    modules: BTreeSet<ModPath>,
    /// `from → to` for every import, `to` the module that defines what is imported.
    edges: BTreeSet<(ModPath, ModPath)>,
}

impl Graph {
    fn of(src: &Path) -> Graph {
        let mut imports = Imports::default();
        let mut modules = BTreeSet::new();
        for (module, text) in module_files(src) {
            read_module(&module, &tokens(&text), &mut imports);
            modules.insert(module);
        }
        modules.extend(imports.inline.iter().cloned());
        let mut graph = Graph {
            modules,
            edges: BTreeSet::new(),
        };
        for (from, path) in &imports.uses {
            if let Some(to) = graph.resolve(from, path, &imports.reexports, 0)
                && &to != from
            {
                graph.edges.insert((from.clone(), to));
            }
        }
        graph
    }

    /// The module that defines what `path`, written in `from`, names (`None`: outside the crate).
    fn resolve(
        &self,
        from: &ModPath,
        path: &[String],
        reexports: &BTreeMap<(ModPath, String), (ModPath, ModPath)>,
        hops: usize,
    ) -> Option<ModPath> {
        let (mut at, rest) = match path.first().map(String::as_str) {
            Some("crate") => (Vec::new(), &path[1..]),
            Some("self") => (from.clone(), &path[1..]),
            Some("super") => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                (from[..from.len().checked_sub(ups)?].to_vec(), &path[ups..])
            }
            Some(first)
                if self
                    .modules
                    .contains(&[from.as_slice(), &[first.into()]].concat()) =>
            {
                (from.clone(), path)
            }
            _ => return None,
        };
        for (k, seg) in rest.iter().enumerate() {
            let child = [at.as_slice(), std::slice::from_ref(seg)].concat();
            if self.modules.contains(&child) {
                at = child;
            } else if let Some((home, target)) = reexports.get(&(at.clone(), seg.clone()))
                && hops < 8
            {
                let onward = [target.as_slice(), &rest[k + 1..]].concat();
                return self.resolve(home, &onward, reexports, hops + 1);
            } else {
                break;
            }
        }
        Some(at)
    }

    /// The imports among the submodules of each parent: `a → b` when something in `a` (or below)
    /// imports something in `b` (or below), with one import that does.
    fn sibling_edges(&self) -> BTreeMap<(ModPath, ModPath), (ModPath, ModPath)> {
        let mut out = BTreeMap::new();
        for (from, to) in &self.edges {
            let common = from.iter().zip(to).take_while(|(a, b)| a == b).count();
            if common < from.len() && common < to.len() {
                let key = (from[..=common].to_vec(), to[..=common].to_vec());
                out.entry(key).or_insert_with(|| (from.clone(), to.clone()));
            }
        }
        out
    }
}

/// A circle of modules in `edges`, if any: the modules in order, the first one repeated last.
fn circle(edges: &BTreeMap<(ModPath, ModPath), (ModPath, ModPath)>) -> Option<Vec<ModPath>> {
    let mut next: BTreeMap<&ModPath, Vec<&ModPath>> = BTreeMap::new();
    for (a, b) in edges.keys() {
        next.entry(a).or_default().push(b);
    }
    // Depth first; `trail` is the path from the current root, `done` what no circle goes through.
    let mut done: BTreeSet<&ModPath> = BTreeSet::new();
    for &root in next.keys() {
        let mut trail: Vec<(&ModPath, usize)> = vec![(root, 0)];
        while let Some(&mut (at, ref mut k)) = trail.last_mut() {
            let Some(&to) = next.get(at).and_then(|n| n.get(*k)) else {
                done.insert(at);
                trail.pop();
                continue;
            };
            *k += 1;
            if let Some(p) = trail.iter().position(|&(m, _)| m == to) {
                let mut found: Vec<ModPath> = trail[p..].iter().map(|&(m, _)| m.clone()).collect();
                found.push(to.clone());
                return Some(found);
            }
            if !done.contains(to) {
                trail.push((to, 0));
            }
        }
    }
    None
}

fn shown(m: &ModPath) -> String {
    if m.is_empty() {
        "crate".into()
    } else {
        m.join("::")
    }
}

fn src() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn no_module_imports_itself_through_others() {
    let graph = Graph::of(&src());
    let edges = graph.sibling_edges();
    if let Some(found) = circle(&edges) {
        let steps: Vec<String> = found
            .windows(2)
            .map(|w| {
                let (a, b) = &edges[&(w[0].clone(), w[1].clone())];
                format!(
                    "{} → {} ({} uses {})",
                    shown(&w[0]),
                    shown(&w[1]),
                    shown(a),
                    shown(b)
                )
            })
            .collect();
        panic!("a circle of imports:\n  {}", steps.join("\n  "));
    }
}

#[test]
fn top_level_modules_import_only_those_before_them_in_the_crate_docs() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs");
    let listed: Vec<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("//! * [`"))
        .filter_map(|l| l.split('`').next())
        .collect();
    let declared: BTreeSet<&str> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|l| l.trim_end_matches(';'))
        .collect();
    assert_eq!(
        listed.iter().copied().collect::<BTreeSet<_>>(),
        declared,
        "the data flow of src/lib.rs lists every top-level module"
    );
    let rank = |m: &ModPath| {
        listed
            .iter()
            .position(|l| m.first().is_some_and(|f| f == l))
    };
    let graph = Graph::of(&src());
    let upward: Vec<String> = graph
        .sibling_edges()
        .iter()
        .filter(|((a, b), _)| a.len() == 1 && rank(b) >= rank(a))
        .map(|((a, b), (x, y))| {
            format!(
                "{} → {} ({} uses {})",
                shown(a),
                shown(b),
                shown(x),
                shown(y)
            )
        })
        .collect();
    assert!(
        upward.is_empty(),
        "imports of modules listed later in src/lib.rs:\n  {}",
        upward.join("\n  ")
    );
    // The graph is read: the engine imports the schedulers, the schedulers the machines.
    for (a, b) in [("engine", "sched"), ("sched", "machine")] {
        let key = (vec![a.to_string()], vec![b.to_string()]);
        assert!(graph.sibling_edges().contains_key(&key), "{a} → {b}");
    }
}

/// The reader on a made-up module: use trees, re-exports, inline and test modules, literals.
#[test]
fn imports_are_read_from_code_only() {
    let text = r##"
        //! Docs name [`crate::sched`] but import nothing.
        use super::{self, b::{C, d::E as F}};
        pub use crate::machine::Flat;
        mod fast { use super::g::H; }
        fn f() { let s = "crate::engine"; let r = r#"crate::trace"#; let c = '"'; crate::sweep::run(); }
        fn lifetime<'a>(x: &'a str) -> &'a str { x }
        #[cfg(test)]
        mod tests { use crate::experiment; }
    "##;
    let mut imports = Imports::default();
    let module: ModPath = vec!["m".into(), "k".into()];
    read_module(&module, &tokens(text), &mut imports);
    let path = |p: &str| p.split("::").map(String::from).collect::<ModPath>();
    let uses: Vec<(String, String)> = imports
        .uses
        .iter()
        .map(|(m, p)| (m.join("::"), p.join("::")))
        .collect();
    let want = [
        ("m::k", "super"),
        ("m::k", "super::b::C"),
        ("m::k", "super::b::d::E"),
        ("m::k", "crate::machine::Flat"),
        ("m::k::fast", "super::g::H"),
        ("m::k", "crate::sweep::run"),
    ];
    let want: Vec<(String, String)> = want
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    assert_eq!(uses, want);
    assert_eq!(imports.inline, [path("m::k::fast")]);
    assert_eq!(
        imports.reexports.keys().collect::<Vec<_>>(),
        [&(module.clone(), "Flat".to_string())]
    );
}
