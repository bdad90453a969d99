//! `[params]`: named values put in place of `{name}` in the file's text before it is read.

use super::names;
use crate::experiment::ExperimentError;
use crate::experiment::spec::ExperimentFile;

/// `text` with every `{name}` of its `[params]` replaced by the value (the `[quick.params]` one
/// under `quick`, the one `set` gives first): the file [`Plan::with_params`] reads.
pub fn substitute_params(
    file: &str,
    text: &str,
    quick: bool,
    set: &[(String, String)],
) -> Result<String, ExperimentError> {
    let f = ExperimentFile::parse(file, text)?;
    // The first line setting `key` (also inline: `params = { key = 1 }`).
    let line = |key: &str| {
        text.lines()
            .position(|l| {
                l.split(['{', ',']).any(|part| {
                    part.trim_start()
                        .strip_prefix(key)
                        .is_some_and(|rest| rest.trim_start().starts_with('='))
                })
            })
            .map_or(0, |i| i + 1)
    };
    let known = || names(f.params.keys().map(String::as_str));
    let mut values: Vec<(String, String)> = Vec::new();
    for (name, v) in &f.params {
        if name == "x" || name == "jobs" {
            return Err(ExperimentError::new(
                file,
                line(name),
                name.clone(),
                "{x} and {jobs} are the templates' own: name the parameter otherwise".into(),
            ));
        }
        let own = if quick {
            f.quick.params.get(name)
        } else {
            None
        };
        let value = match own.unwrap_or(v) {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(x) => x.to_string(),
            other => {
                return Err(ExperimentError::new(
                    file,
                    line(name),
                    name.clone(),
                    format!(
                        "a parameter is a string or a number, not {}",
                        other.type_str()
                    ),
                ));
            }
        };
        values.push((name.clone(), value));
    }
    if let Some(k) = f.quick.params.keys().find(|k| !f.params.contains_key(*k)) {
        return Err(ExperimentError::new(
            file,
            line(k),
            k.clone(),
            format!(
                "[quick.params] sets `{k}`, which [params] does not have; params: {}",
                known()
            ),
        ));
    }
    for (name, value) in set {
        match values.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value.clone(),
            None => {
                return Err(ExperimentError::new(
                    file,
                    0,
                    name.clone(),
                    format!("the file has no parameter `{name}`; params: {}", known()),
                ));
            }
        }
    }
    let mut out = text.to_string();
    for (name, value) in &values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    Ok(out)
}
