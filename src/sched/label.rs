//! The grammar of scheduler labels and the [`Form`] by which each line of the registry reads,
//! writes and builds its own.
//!
//! A label is `NAME[:ARG[,ARG…]]`: the name, then after the first `:` its arguments, separated by
//! `,` or `;` (`;` inside the comma-separated lists of the command line, `--sched
//! fcfs,gang:slice=600;nmax=4`). An argument is a word (`window:240`, `scan-up:join,skip`,
//! `bq:inf`) or a `key=value` pair (`gang:slice=600,nmax=4`), split at its first `=`; a value runs
//! to the next `,` or `;`, so it may hold `:`, `/` and `=` (`key=py:policies/prio.py:score`).
//! Names, words, keys and values are trimmed; none may be empty. Labels are written back with `,`.
//!
//! The grammar knows no scheduler: [`Label::read`] splits, and the registry line whose name matches
//! reads the arguments with its [`Form`] (the first line that accepts them wins, so `lazy`,
//! `lazy:30` and `lazy:deadline` are three lines of one name). A parameter shared by several
//! schedulers is a pair each of their forms reads, as every other.

use std::fmt;

use super::Scheduler;
use crate::SimTime;

/// One argument of a label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg<'a> {
    /// A word: `240`, `join`, `inf`.
    Word(&'a str),
    /// A pair: `slice=600` (the value may hold `:`, `/` and `=`).
    Pair(&'a str, &'a str),
}

/// A label split by the grammar: its name and its arguments, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label<'a> {
    /// The name (`window`).
    pub name: &'a str,
    /// The arguments after `NAME:` (none for a bare name).
    pub args: Vec<Arg<'a>>,
}

impl<'a> Label<'a> {
    /// Splits `text`; `None` when the name or an argument is empty (`fcfs:`, `:8`, `gang:nmax=4,`,
    /// `gang:=4`).
    pub fn read(text: &'a str) -> Option<Label<'a>> {
        let (name, rest) = match text.split_once(':') {
            Some((name, rest)) => (name.trim(), Some(rest)),
            None => (text.trim(), None),
        };
        if name.is_empty() {
            return None;
        }
        let args = rest
            .into_iter()
            .flat_map(|r| r.split([',', ';']))
            .map(|arg| match arg.split_once('=') {
                Some((k, v)) => {
                    let (k, v) = (k.trim(), v.trim());
                    (!k.is_empty() && !v.is_empty()).then_some(Arg::Pair(k, v))
                }
                None => Some(arg.trim()).filter(|w| !w.is_empty()).map(Arg::Word),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Label { name, args })
    }

    /// `Some(())` for a bare name (no arguments): the form of a scheduler without parameters.
    pub fn bare(&self) -> Option<()> {
        self.args.is_empty().then_some(())
    }

    /// The one word of `NAME:WORD`.
    pub fn word(&self) -> Option<&'a str> {
        match self.args[..] {
            [Arg::Word(w)] => Some(w),
            _ => None,
        }
    }

    /// `Some(())` for exactly `NAME:WORD` with this word (`delay:count`).
    pub fn keyword(&self, word: &str) -> Option<()> {
        (self.word() == Some(word)).then_some(())
    }

    /// The one word as a count of at least `min` (`window:240`).
    pub fn count(&self, min: u32) -> Option<u32> {
        self.word()?.parse().ok().filter(|&k| k >= min)
    }

    /// The one word as a finite time of at least 0 seconds (`lazy:30`).
    pub fn seconds(&self) -> Option<SimTime> {
        let t: SimTime = self.word()?.parse().ok()?;
        (t >= 0.0 && t.is_finite()).then_some(t)
    }

    /// Every argument, when all are words (at least one).
    pub fn words(&self) -> Option<Vec<&'a str>> {
        let words: Option<Vec<&str>> = self
            .args
            .iter()
            .map(|a| match a {
                Arg::Word(w) => Some(*w),
                Arg::Pair(..) => None,
            })
            .collect();
        words.filter(|w| !w.is_empty())
    }

    /// The label without its one `key=VALUE` pair, and the value; `None` when there is no such
    /// pair, or more than one.
    pub fn take(&self, key: &str) -> Option<(Label<'a>, &'a str)> {
        let is_key = |a: &Arg<'a>| matches!(a, Arg::Pair(k, _) if *k == key);
        let mut found = self.args.iter().filter(|a| is_key(a));
        let (Some(Arg::Pair(_, value)), None) = (found.next(), found.next()) else {
            return None;
        };
        let args = self.args.iter().filter(|a| !is_key(a)).copied().collect();
        Some((
            Label {
                name: self.name,
                args,
            },
            value,
        ))
    }

    /// Every argument, when all are pairs (at least one).
    pub fn pairs(&self) -> Option<Vec<(&'a str, &'a str)>> {
        let pairs: Option<Vec<(&str, &str)>> = self
            .args
            .iter()
            .map(|a| match a {
                Arg::Pair(k, v) => Some((*k, *v)),
                Arg::Word(_) => None,
            })
            .collect();
        pairs.filter(|p| !p.is_empty())
    }
}

/// Writes `name`, then `:` and `args` joined by `,` when there are any.
pub fn write(f: &mut fmt::Formatter<'_>, name: &str, args: &[String]) -> fmt::Result {
    if args.is_empty() {
        f.write_str(name)
    } else {
        write!(f, "{name}:{}", args.join(","))
    }
}

/// How one line of the registry reads, writes and builds its labels: its parameters' type `P`
/// (the [`super::SchedKind`] variant's field, `()` for a variant without one) and four functions,
/// defined in the policy's own file beside the policy.
pub struct Form<P: 'static> {
    /// The parameters of a label of this line's name; `None` when its arguments are not this
    /// line's (another line of the name may take them, else the label is refused).
    pub read: fn(&Label<'_>) -> Option<P>,
    /// The arguments the label is written with (none: the bare name). Reading them back gives the
    /// same parameters.
    pub args: fn(&P) -> Vec<String>,
    /// The policy, with an empty queue.
    pub build: fn(&P) -> Box<dyn Scheduler>,
    /// Expected cost of a replay relative to FCFS at the same load, for dealing the cells of a
    /// sweep into shards of similar cost ([`crate::sweep::cell_cost`]).
    pub cost: f64,
    /// The name the papers give the policy (`Window-240`), where it has one.
    pub title: Option<fn(&P) -> String>,
    /// Whether the policy's schedule, with these parameters, reads the jobs' run-time estimates
    /// (a sweep replays one that does not under one estimate model only).
    pub estimates: fn(&P) -> bool,
}

impl<P> Form<P> {
    /// A form of cost 1 (the queue-based policies) without a title, blind to estimates.
    pub const fn new(
        read: fn(&Label<'_>) -> Option<P>,
        args: fn(&P) -> Vec<String>,
        build: fn(&P) -> Box<dyn Scheduler>,
    ) -> Self {
        Form {
            read,
            args,
            build,
            cost: 1.0,
            title: None,
            estimates: |_| false,
        }
    }

    /// The form with another relative cost.
    pub const fn cost(mut self, cost: f64) -> Self {
        self.cost = cost;
        self
    }

    /// The form of a policy that reads run-time estimates when `reads` says so of its parameters
    /// (`|_| true`: always).
    pub const fn estimates(mut self, reads: fn(&P) -> bool) -> Self {
        self.estimates = reads;
        self
    }

    /// The form with the papers' name of the policy.
    pub const fn title(mut self, title: fn(&P) -> String) -> Self {
        self.title = Some(title);
        self
    }
}

impl Form<()> {
    /// The form of a scheduler without parameters: its bare name.
    pub const fn bare(build: fn(&()) -> Box<dyn Scheduler>) -> Self {
        Form::new(bare, no_args, build)
    }
}

/// [`Label::bare`] as a function of every label.
fn bare(label: &Label<'_>) -> Option<()> {
    label.bare()
}

/// The arguments of a label written as its bare name.
pub fn no_args<P>(_: &P) -> Vec<String> {
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_splits_into_its_name_words_and_pairs() {
        let l = Label::read(" window:240 ").unwrap();
        assert_eq!((l.name, l.word()), ("window", Some("240")));
        assert_eq!(Label::read("easy").unwrap().bare(), Some(()));
        let g = Label::read("gang:slice=600;nmax = 4").unwrap();
        assert_eq!(g.pairs(), Some(vec![("slice", "600"), ("nmax", "4")]));
        assert_eq!(g.words(), None);
        let s = Label::read("scan-up:join,skip").unwrap();
        assert_eq!(s.words(), Some(vec!["join", "skip"]));
        assert_eq!(s.keyword("join"), None, "two words");
    }

    #[test]
    fn a_python_policy_label_says_where_it_runs() {
        let e = "py:policies/sjf.py:Sjf"
            .parse::<crate::sched::SchedKind>()
            .unwrap_err();
        assert!(
            e.to_string()
                .contains("this engine embeds no Python interpreter"),
            "{e}"
        );
        let e = "nope"
            .parse::<crate::sched::SchedKind>()
            .unwrap_err()
            .to_string();
        assert!(!e.contains("Python"), "{e}");
    }

    #[test]
    fn a_value_runs_to_the_next_separator_and_may_hold_colons_slashes_and_equals() {
        let l = Label::read("easy:order=py:policies/prio.py:score").unwrap();
        assert_eq!(l.name, "easy");
        assert_eq!(l.args, [Arg::Pair("order", "py:policies/prio.py:score")]);
        let l = Label::read("window:240,order=a=b;x").unwrap();
        assert_eq!(
            l.args,
            [Arg::Word("240"), Arg::Pair("order", "a=b"), Arg::Word("x")]
        );
    }

    #[test]
    fn a_pair_is_taken_out_of_a_label() {
        let l = Label::read("window:240,order=sjf").unwrap();
        let (rest, order) = l.take("order").unwrap();
        assert_eq!((rest.count(1), order), (Some(240), "sjf"));
        assert_eq!(
            Label::read("easy:order=a,order=b").unwrap().take("order"),
            None
        );
        assert_eq!(Label::read("easy:sjbf").unwrap().take("order"), None);
        let (rest, _) = Label::read("easy:order=x").unwrap().take("order").unwrap();
        assert_eq!(rest.bare(), Some(()));
    }

    #[test]
    fn empty_names_arguments_keys_and_values_are_refused() {
        for bad in [
            "",
            ":8",
            "fcfs:",
            "gang:nmax=4,",
            "gang:=4",
            "gang:nmax=",
            "a:b,,c",
        ] {
            assert_eq!(Label::read(bad), None, "{bad:?}");
        }
    }
}
