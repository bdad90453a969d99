//! The label templates of a panel: `{x}`, `{jobs}` and steps in x.

use std::fmt::Write as _;

/// Substitutes `{x}`, `{jobs}` and steps in x `{x<T?A:B}` (`largest-first:{x<0.7?16:64}`) in
/// `template`.
pub fn fill(template: &str, x: f64, jobs: Option<usize>) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("`{template}`: a `{{` without its `}}`"))?;
        match &rest[open + 1..open + close] {
            "x" => {
                let _ = write!(out, "{x}");
            }
            "jobs" => match jobs {
                Some(n) => {
                    let _ = write!(out, "{n}");
                }
                None => {
                    return Err(format!(
                        "`{template}` uses {{jobs}} but the panel sets no `jobs`"
                    ));
                }
            },
            other => match step(other, x) {
                Some(v) => out.push_str(v?),
                None => {
                    return Err(format!(
                        "`{template}`: unknown parameter {{{other}}}; templates know {{x}}, {{jobs}} and {{x<T?A:B}}"
                    ));
                }
            },
        }
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `x<T?A:B` (a step in x: `A` below the threshold `T`, `B` from it on), its text at `x`; `None`
/// when `inner` is not of that form.
fn step(inner: &str, x: f64) -> Option<Result<&str, String>> {
    let rest = inner.strip_prefix("x<")?;
    let (threshold, choices) = rest.split_once('?')?;
    let (below, from) = choices.split_once(':')?;
    Some(match threshold.trim().parse::<f64>() {
        Ok(t) if x < t => Ok(below),
        Ok(_) => Ok(from),
        Err(_) => Err(format!(
            "{{{inner}}}: the threshold `{threshold}` is not a number"
        )),
    })
}
