//! "Did you mean …?": the known names closest to one that was misspelt, for the errors that refuse
//! a name from a closed list (catalogued traces, schedulers).

/// The names of `known` a user likely meant by `word`: the nearest ones, if within one edit of it
/// (two for words of more than four characters; case aside; two letters swapped count as one
/// edit, `mlp` for `mpl`), at most three.
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let w = word.trim().to_lowercase();
    let limit = if w.chars().count() > 4 { 2 } else { 1 };
    let mut near: Vec<(usize, &str)> = known
        .into_iter()
        .map(|k| (strsim::osa_distance(&w, &k.to_lowercase()), k))
        .filter(|&(d, _)| d <= limit)
        .collect();
    near.sort_unstable();
    near.dedup_by_key(|n| n.1);
    let best = near.first().map_or(0, |n| n.0);
    near.into_iter()
        .take_while(|n| n.0 == best)
        .take(3)
        .map(|(_, k)| k)
        .collect()
}

/// `did you mean `a`?` (or `` `a` or `b` ``) for the [`closest`] names, `None` when none is close.
pub fn did_you_mean<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let near: Vec<String> = closest(word, known)
        .into_iter()
        .map(|k| format!("`{k}`"))
        .collect();
    (!near.is_empty()).then(|| format!("did you mean {}?", near.join(" or ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_near_name_is_suggested_a_far_one_is_not() {
        let traces = ["kth-sp2", "ctc-sp2", "sdsc-96", "sdsc-95"];
        assert_eq!(closest("kth-sp3", traces), ["kth-sp2"]);
        assert_eq!(closest("KTH-SP2", traces), ["kth-sp2"]);
        assert_eq!(closest("sdsc-97", traces), ["sdsc-95", "sdsc-96"]);
        assert!(closest("lublin", traces).is_empty());
        let scheds = ["fcfs", "oo", "easy", "conservative"];
        assert_eq!(closest("eazy", scheds), ["easy"]);
        assert_eq!(closest("conservatve", scheds), ["conservative"]);
        assert_eq!(closest("mlp", ["mpl", "ff", "flat"]), ["mpl"]);
        // Short words allow one edit only: `ff` is not `oo`.
        assert!(closest("ff", scheds).is_empty());
        assert_eq!(
            did_you_mean("eazy", scheds).as_deref(),
            Some("did you mean `easy`?")
        );
        assert_eq!(
            did_you_mean("sdsc-97", traces).as_deref(),
            Some("did you mean `sdsc-95` or `sdsc-96`?")
        );
        assert_eq!(did_you_mean("zzz", scheds), None);
    }
}
