//! Queue orders: which waiting job a scheduler serves first.
//!
//! An order gives each waiting job a value at each scheduling pass, larger first; ties go by
//! arrival (submit time, then job id — the workload's order). Orders are
//!
//! * **named** ([`named`]): `fcfs`, `sjf`/`ljf`, `saf`/`laf`, `sqf`/`lqf`, `xf`, `wfp3`, `unicep`,
//!   `f1`–`f4`, `fairshare` and `multifactor`;
//! * **defined** as a [priority expression](expr) under a name of the [`PriorityConfig`]
//!   (`--order-def NAME=EXPR`, an experiment's `[orders]`), compiled once;
//! * **priority functions** ([`function`]) computed outside the library (a Python function in
//!   the Python package: `easy:order=py:prio.py:score`), given under their names in the
//!   [`PriorityConfig`].
//!
//! [`fairshare`] tracks the users' and groups' decayed usage as Slurm's classic fair-share does,
//! [`multifactor`] weighs Slurm's factors; their settings are the rest of the [`PriorityConfig`],
//! the shares in a [`Shares`] file.
//!
//! A scheduler that serves waiting jobs in an order keeps a `Ranking`: it copies what the order
//! reads of a job when the job arrives (`Facts`), recomputes every value at each pass (waits grow,
//! usage moves), and turns a value and the job's queue position into one integer, its *rank*,
//! smaller first, whose comparisons are the order and its tie rule at once.
//!
//! An order is *static* when a job's value cannot change while it waits ([`Key::is_static`]):
//! an expression (a named order's own) that reads none of `wait`, `now`, `age` and the usage
//! variables — `fcfs`, `sjf`, `ljf`, `saf`, `laf`, `sqf`, `lqf` and `f1`–`f4`, whose `s` is the
//! submit time — or a priority function that declares itself static. Detection is by the
//! variables the compiled program loads, so `now - wait` (the submit time) counts as
//! time-dependent. A static order's value is computed once, when the job arrives, and the
//! schedulers that serve a whole queue in order keep it ranked across passes (`queue`).

pub mod expr;
pub mod fairshare;
pub mod function;
pub mod multifactor;
pub mod named;
pub(crate) mod queue;
pub mod shares;

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::fmt;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::SimTime;
use crate::sched::System;
use crate::workload::{Job, JobId, Workload};
use expr::{Columns, Env};
pub use expr::{Expr, ExprError, FUNCTIONS, VARIABLES, Var};
use fairshare::{Accounts, FairShare};
use function::Evaluation;
pub use function::{Function, Functions, Priorities, PriorityFn};
pub use multifactor::{Weights, WeightsError};
pub use named::{NAMED_ORDERS, Named, NamedInfo, named_order_names};
pub use shares::{Entity, Shares, SharesError};

/// Slurm's default `PriorityDecayHalfLife`: 7 days.
pub const DEFAULT_HALF_LIFE: SimTime = 7.0 * 86_400.0;

/// What the queue orders of a replay may read beyond the jobs: orders defined by name, and the
/// fair-share and multifactor settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PriorityConfig {
    /// Orders defined by name: name → priority expression.
    pub orders: BTreeMap<String, String>,
    /// Usage half-life in seconds (`PriorityDecayHalfLife`; infinite: no decay).
    pub half_life: SimTime,
    /// User and group shares, queue and partition priorities (none: equal shares, priority 1).
    pub shares: Option<Shares>,
    /// Multifactor weights and age cap.
    pub weights: Weights,
    /// Priority functions by order name (`py:prio.py:score`, or a name of the front end's):
    /// given by a front end that runs them (the Python package), never read from a file.
    #[serde(skip)]
    pub functions: Functions,
}

impl Default for PriorityConfig {
    fn default() -> Self {
        PriorityConfig {
            orders: BTreeMap::new(),
            half_life: DEFAULT_HALF_LIFE,
            shares: None,
            weights: Weights::default(),
            functions: Functions::default(),
        }
    }
}

/// A queue order or its settings that could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OrderError {
    /// A name that is neither a named order nor defined.
    #[error("order `{name}` is not one of {names}{defined}{hint}", names = named_order_names())]
    Unknown {
        /// The name.
        name: String,
        /// The defined names, `, ` first (empty when none).
        defined: String,
        /// `; did you mean …?` with the names within two edits of it (empty when none).
        hint: String,
    },
    /// A definition that is not `NAME=EXPR`, or whose name cannot be used.
    #[error("order definition `{text}`: {problem}")]
    Definition {
        /// The definition as written.
        text: String,
        /// What is wrong.
        problem: String,
    },
    /// A definition whose expression does not parse.
    #[error("order `{name}` = `{expression}`: {error}")]
    Expression {
        /// The defined name.
        name: String,
        /// The expression as written.
        expression: String,
        /// Where and why.
        error: ExprError,
    },
    /// A half-life that is not a positive duration.
    #[error(
        "half-life `{0}` is not a positive duration (seconds, or with a unit s, m, h, d; inf: no decay)"
    )]
    HalfLife(String),
    /// Bad multifactor weights.
    #[error(transparent)]
    Weights(#[from] WeightsError),
    /// A bad shares file, or one naming a user or group the workload lacks.
    #[error("shares file, {0}")]
    Shares(SharesError),
    /// A priority function (`py:PATH:FUNCTION`) the replay was not given: only a front end that
    /// runs Python functions can.
    #[error(
        "order `{0}` is a Python priority function: it runs in the Python package \
         (pwa_replay.run, pwa_replay.sweep; docs/PYTHON.md), this engine embeds no Python interpreter"
    )]
    NoFunction(String),
    /// A scheduler that serves no queue in order.
    #[error(
        "scheduler `{0}` takes no queue order (fcfs, oo, bq, window, easy and conservative do)"
    )]
    NoOrder(String),
}

impl From<SharesError> for OrderError {
    fn from(e: SharesError) -> Self {
        // Not a `#[from]`: the message holds the file's error, which is not repeated as a source.
        OrderError::Shares(e)
    }
}

/// Reads a duration: seconds, or a number with a unit `s`, `m`, `h`, `d` (`7d`, `12h`); `inf`.
pub fn parse_duration(s: &str) -> Option<SimTime> {
    let t = s.trim();
    if t == "inf" {
        return Some(SimTime::INFINITY);
    }
    let (number, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c),
        _ => (t, 's'),
    };
    let scale = match unit {
        's' => 1.0,
        'm' => 60.0,
        'h' => 3600.0,
        'd' => 86_400.0,
        _ => return None,
    };
    number
        .trim()
        .parse::<f64>()
        .ok()
        .map(|x| x * scale)
        .filter(|x| x.is_finite() && *x > 0.0)
}

impl PriorityConfig {
    /// Adds a definition written `NAME=EXPR` (the expression is checked now).
    pub fn define(&mut self, text: &str) -> Result<(), OrderError> {
        let problem = |p: &str| OrderError::Definition {
            text: text.to_string(),
            problem: p.to_string(),
        };
        let Some((name, expression)) = text.split_once('=') else {
            return Err(problem("expected NAME=EXPR"));
        };
        let (name, expression) = (name.trim(), expression.trim());
        if self.orders.contains_key(name) {
            return Err(problem(&format!("`{name}` is defined twice")));
        }
        check_definition(name, expression).map_err(|e| match e {
            OrderError::Definition { problem, .. } => OrderError::Definition {
                text: text.to_string(),
                problem,
            },
            other => other,
        })?;
        self.orders.insert(name.to_string(), expression.to_string());
        Ok(())
    }

    /// Sets the half-life from a duration (`7d`, `3600`, `inf`).
    pub fn set_half_life(&mut self, text: &str) -> Result<(), OrderError> {
        self.half_life = parse_duration(text).ok_or_else(|| OrderError::HalfLife(text.into()))?;
        Ok(())
    }

    /// Checks what could be set by hand (deserialized): every definition compiles, the
    /// half-life is positive, the weights are valid.
    pub fn check(&self) -> Result<(), OrderError> {
        for (name, expression) in &self.orders {
            check_definition(name, expression)?;
        }
        if self.half_life.is_nan() || self.half_life <= 0.0 {
            return Err(OrderError::HalfLife(self.half_life.to_string()));
        }
        self.weights.check().map_err(|problem| WeightsError {
            text: self.weights.to_string(),
            problem,
        })?;
        Ok(())
    }

    /// The order called `name`: a named order, a definition, or a priority function.
    pub fn resolve(&self, name: &str) -> Result<Key, OrderError> {
        if let Ok(n) = name.parse::<Named>() {
            return Ok(Key::Named(n));
        }
        let name = name.trim();
        if let Some(f) = self.functions.get(name) {
            return Ok(Key::Function(f));
        }
        match self.orders.get(name) {
            Some(expression) => Ok(Key::Expr(compile(name, expression)?)),
            None if function_ref(name).is_some() => Err(OrderError::NoFunction(name.into())),
            None => Err(OrderError::Unknown {
                name: name.to_string(),
                defined: (self.orders.keys().map(String::as_str))
                    .chain(self.functions.names())
                    .map(|k| format!(", {k}"))
                    .collect(),
                hint: self.did_you_mean(name),
            }),
        }
    }
}

impl PriorityConfig {
    /// `; did you mean …?` with the order names within two edits of `name`, closest first.
    fn did_you_mean(&self, name: &str) -> String {
        let named = NAMED_ORDERS.iter().map(|n| n.name);
        let mut close: Vec<(usize, &str)> = (named.chain(self.orders.keys().map(String::as_str)))
            .map(|n| (strsim::osa_distance(name, n), n))
            .filter(|&(d, _)| d <= 2)
            .collect();
        close.sort_unstable();
        if close.is_empty() {
            return String::new();
        }
        let meant: Vec<String> = close.iter().map(|(_, n)| format!("`{n}`")).collect();
        format!("; did you mean {}?", meant.join(", "))
    }
}

/// Checks definition `name` = `expression`: a plain name an [`OrderName`] holds that is not a
/// named order's, an expression that compiles.
fn check_definition(name: &str, expression: &str) -> Result<(), OrderError> {
    let problem = |p: String| OrderError::Definition {
        text: format!("{name}={expression}"),
        problem: p,
    };
    if !is_plain_name(name) {
        return Err(problem(format!(
            "the name must start with a letter, hold only letters, digits, `_` and `-`, and be \
             at most {} characters",
            OrderName::MAX
        )));
    }
    if name.parse::<Named>().is_ok() {
        return Err(problem(format!("`{name}` is a named order already")));
    }
    compile(name, expression).map(|_| ())
}

/// Whether `name` can be defined: a letter, then letters, digits, `_` and `-`, at most
/// [`OrderName::MAX`] bytes.
fn is_plain_name(name: &str) -> bool {
    name.len() <= OrderName::MAX
        && name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && (name.chars()).all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// The file and function of a Python priority function's name `py:PATH:FUNCTION`: `PATH` not
/// empty, without `,` or `;` (they separate a label's arguments) or control characters;
/// `FUNCTION` an ASCII Python identifier; at most [`OrderName::MAX_FUNCTION`] bytes in all.
pub fn function_ref(name: &str) -> Option<(&str, &str)> {
    let (path, func) = name.strip_prefix("py:")?.rsplit_once(':')?;
    let identifier = (func.chars().next()).is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && func.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let path_ok =
        !path.trim().is_empty() && !(path.chars()).any(|c| c == ',' || c == ';' || c.is_control());
    (name.len() <= OrderName::MAX_FUNCTION && identifier && path_ok).then_some((path, func))
}

/// The name of a queue order in a scheduler label (`wfp3`, a name the replay defines, or a
/// priority function's `py:PATH:FUNCTION`), held inline so that labels stay `Copy`: a plain name
/// of at most [`OrderName::MAX`] bytes ([`PriorityConfig::define`]), or a [`function_ref`].
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct OrderName {
    len: u8,
    bytes: [u8; OrderName::MAX_FUNCTION],
}

impl OrderName {
    /// The longest plain name, in bytes.
    pub const MAX: usize = 31;
    /// The longest priority function's name `py:PATH:FUNCTION`, in bytes.
    pub const MAX_FUNCTION: usize = 255;

    /// `name`, when it is a valid order name.
    pub fn new(name: &str) -> Option<OrderName> {
        let valid = is_plain_name(name) || function_ref(name).is_some();
        valid.then(|| {
            let mut bytes = [0; OrderName::MAX_FUNCTION];
            bytes[..name.len()].copy_from_slice(name.as_bytes());
            OrderName {
                len: name.len() as u8,
                bytes,
            }
        })
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        // Only whole `&str`s are ever stored.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl fmt::Display for OrderName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for OrderName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// Compiles the expression of definition `name`.
fn compile(name: &str, expression: &str) -> Result<Expr, OrderError> {
    let expression = expression.trim();
    expression
        .parse::<Expr>()
        .map_err(|error| OrderError::Expression {
            name: name.to_string(),
            expression: expression.to_string(),
            error,
        })
}

/// A resolved order: what gives each waiting job its value.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    /// A named order.
    Named(Named),
    /// A compiled priority expression.
    Expr(Expr),
    /// A priority function.
    Function(Function),
}

impl Key {
    /// Whether the order reads the users' or groups' usage.
    fn reads_usage(&self) -> bool {
        match self {
            Key::Named(n) => n.reads_usage(),
            Key::Expr(e) => USAGE.iter().any(|&v| e.reads(v)),
            Key::Function(_) => false,
        }
    }

    /// Whether a job's value under the order never changes while it waits: an expression (a
    /// named order's own) that reads neither the moment (`wait`, `now`, `age`) nor usage
    /// (`usage`, `group_usage`, `fairshare`, `group_fairshare`, `multifactor`), or a priority
    /// function that says so ([`PriorityFn::is_static`]).
    pub fn is_static(&self) -> bool {
        let expr_is_static = |e: &Expr| !MOMENT.iter().chain(&USAGE).any(|&v| e.reads(v));
        match self {
            Key::Named(n) => n
                .info()
                .expression
                .parse()
                .is_ok_and(|e| expr_is_static(&e)),
            Key::Expr(e) => expr_is_static(e),
            Key::Function(f) => f.f.is_static(),
        }
    }
}

/// The variables that read the users' or groups' usage.
const USAGE: [Var; 5] = [
    Var::Usage,
    Var::GroupUsage,
    Var::Fairshare,
    Var::GroupFairshare,
    Var::Multifactor,
];

/// The variables that read the moment of a pass (besides usage, which moves with it).
const MOMENT: [Var; 3] = [Var::Wait, Var::Now, Var::Age];

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Named(n) => n.fmt(f),
            Key::Expr(e) => e.fmt(f),
            Key::Function(p) => f.write_str(&p.name),
        }
    }
}

/// What an order reads of a waiting job, copied when it arrives.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts {
    pub(crate) id: JobId,
    pub(crate) nodes: u32,
    user: u32,
    group: u32,
    submit: SimTime,
    pub(crate) estimate: SimTime,
    queue: f64,
    partition: f64,
    /// A static order's value, computed at arrival (0 under a time-dependent order).
    value: f64,
}

impl Facts {
    /// The job's rank under a static order (ties by job id: arrival order).
    pub(crate) fn rank(&self) -> Rank {
        rank(self.value, self.id.index())
    }
}

/// A job's place in the order: smaller first. The value's bits (descending, NaN last) above the
/// job's queue position (ascending: arrival order, as the queues hold jobs by arrival).
pub(crate) type Rank = u128;

/// The rank of value `v` for the job at queue position `pos`.
pub(crate) fn rank(v: f64, pos: usize) -> Rank {
    // NaN goes last; −0 and +0 are one value.
    let v = if v.is_nan() {
        f64::NEG_INFINITY
    } else {
        v + 0.0
    };
    let bits = v.to_bits();
    // The order of f64::total_cmp as an unsigned integer, then reversed (larger first).
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    (u128::from(!ascending) << 32) | pos as u128
}

/// The queue position a rank was made for.
fn position(r: Rank) -> usize {
    (r & u128::from(u32::MAX)) as usize
}

/// The queue positions of a pass's candidates, taken best first. After [`Ranks::rank`] the first
/// is found by one scan of the values (a pass often takes only the top: it does not fit); the
/// others come from a binary heap of ranks built when a second is asked for, or when the
/// candidates are narrowed ([`Ranks::retain`]), so that a pass ranks only the jobs that could
/// still start.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ranks {
    /// The value of the job at each queue position (never NaN: [`Ranking::values`]).
    values: Vec<f64>,
    /// The position taken by the first scan, if any.
    first: Option<usize>,
    heap: BinaryHeap<Reverse<Rank>>,
    heaped: bool,
}

impl Ranks {
    /// Starts over with the jobs `facts` (their queue positions 0, 1, …), ranked by `ranking`.
    pub(crate) fn rank<'a, I>(&mut self, ranking: &mut Ranking, facts: I)
    where
        I: Iterator<Item = &'a Facts> + Clone,
    {
        self.heap.clear();
        (self.first, self.heaped) = (None, false);
        ranking.values(facts, &mut self.values);
    }

    /// Starts over with the jobs `jobs` (queue position, value) in a heap.
    pub(crate) fn heap(&mut self, jobs: impl Iterator<Item = (usize, f64)>) {
        let mut all = std::mem::take(&mut self.heap).into_vec();
        all.clear();
        all.extend(jobs.map(|(i, v)| Reverse(rank(v, i))));
        self.heap = BinaryHeap::from(all);
        (self.first, self.heaped) = (None, true);
    }

    /// The best position left.
    pub(crate) fn pop(&mut self) -> Option<usize> {
        if !self.heaped && self.first.is_none() {
            // Larger first; the earlier position among equals.
            let (mut best, mut top) = (0, *self.values.first()?);
            for (i, &v) in self.values.iter().enumerate().skip(1) {
                if v > top {
                    (best, top) = (i, v);
                }
            }
            self.first = Some(best);
            return Some(best);
        }
        if !self.heaped {
            self.retain(|_| true);
        }
        self.heap.pop().map(|Reverse(r)| position(r))
    }

    /// Narrows the positions left to those for which `keep` holds.
    pub(crate) fn retain(&mut self, keep: impl Fn(usize) -> bool) {
        if self.heaped {
            self.heap.retain(|Reverse(r)| keep(position(*r)));
            return;
        }
        let first = self.first;
        let jobs = (self.values.iter().enumerate())
            .filter(|&(i, _)| Some(i) != first && keep(i))
            .map(|(i, &v)| (i, v));
        let mut all = std::mem::take(&mut self.heap).into_vec();
        all.clear();
        all.extend(jobs.map(|(i, v)| Reverse(rank(v, i))));
        self.heap = BinaryHeap::from(all);
        self.heaped = true;
    }
}

/// A filter for `retain` that drops the elements at the ascending `positions`.
pub(crate) fn except<T>(positions: &[usize]) -> impl FnMut(&T) -> bool + '_ {
    let mut gone = positions.iter().peekable();
    let mut i = 0;
    move |_| {
        let keep = gone.next_if_eq(&&i).is_none();
        i += 1;
        keep
    }
}

/// Priorities of a queue-ordered scheduler's waiting jobs (see the module doc).
#[derive(Debug)]
pub(crate) struct Ranking {
    /// What gives the values.
    source: Source,
    /// Whether a job's value never changes while it waits ([`Ranking::is_static`]).
    is_static: bool,
    weights: Weights,
    accounts: Accounts,
    /// Usage, when the order reads it.
    fair: Option<FairShare>,
    /// Factor of each queue (partition) listed in the shares file; `rest` for the others.
    queues: Factors,
    partitions: Factors,
    /// The machine's nodes (the size factor's denominator), read at the first arrival.
    machine_nodes: f64,
    now: SimTime,
    /// The columns of an expression's evaluation.
    columns: Columns,
    /// The value of one job's evaluation (kept for its allocation).
    one: Vec<f64>,
}

impl Ranking {
    /// An independent copy in the current state (a forked replay's, `Scheduler::fork`); `None`
    /// for a priority function's, whose evaluation keeps what it read of the jobs in the front
    /// end's objects.
    pub(crate) fn fork(&self) -> Option<Ranking> {
        let source = match &self.source {
            Source::Expr(e) => Source::Expr(e.clone()),
            Source::Function(_) => return None,
        };
        Some(Ranking {
            source,
            is_static: self.is_static,
            weights: self.weights,
            accounts: self.accounts.clone(),
            fair: self.fair.clone(),
            queues: self.queues.clone(),
            partitions: self.partitions.clone(),
            machine_nodes: self.machine_nodes,
            now: self.now,
            columns: self.columns.clone(),
            one: Vec::new(),
        })
    }
}

/// What gives a ranking its values.
#[derive(Debug)]
enum Source {
    /// The order as an expression (a named order's own).
    Expr(Expr),
    /// A priority function.
    Function(Evaluation),
}

/// Priorities normalized by the highest one; every number not listed has priority 1.
#[derive(Debug, Clone, Default)]
struct Factors {
    listed: FxHashMap<u32, f64>,
    rest: f64,
}

impl Factors {
    fn new(shares: Option<&Shares>, what: Entity) -> Factors {
        let listed: Vec<(u32, f64)> = shares
            .map(|s| s.of(what).map(|(n, v, _)| (n, v)).collect())
            .unwrap_or_default();
        let max = listed.iter().map(|&(_, v)| v).fold(1.0, f64::max);
        Factors {
            listed: listed.into_iter().map(|(n, v)| (n, v / max)).collect(),
            rest: 1.0 / max,
        }
    }

    fn of(&self, n: Option<u32>) -> f64 {
        n.and_then(|n| self.listed.get(&n).copied())
            .unwrap_or(self.rest)
    }
}

impl Ranking {
    /// The ranking of `key` over workload `w` under `config`: the shares file's users and groups
    /// must submit in `w`.
    pub(crate) fn new(
        key: Key,
        config: &PriorityConfig,
        w: &Workload,
    ) -> Result<Ranking, OrderError> {
        // A named order is evaluated as its expression (the same value to the last bit): a
        // pass's columns load each variable once, where a formula per job reads them one job
        // at a time (docs/ALGORITHMS.md, "Queue orders", the cost).
        let reads_usage = key.reads_usage();
        let is_static = key.is_static();
        let source = match key {
            Key::Named(n) => Source::Expr(compile(n.info().name, n.info().expression)?),
            Key::Expr(e) => Source::Expr(e),
            Key::Function(f) => Source::Function(Evaluation::new(&f)),
        };
        let accounts = Accounts::of(w);
        let shares = config.shares.as_ref();
        let fair = if reads_usage {
            Some(fair_share(config, &accounts)?)
        } else {
            if let Some(s) = shares {
                check_accounts(s, &accounts)?;
            }
            None
        };
        Ok(Ranking {
            source,
            is_static,
            weights: config.weights,
            accounts,
            fair,
            queues: Factors::new(shares, Entity::Queue),
            partitions: Factors::new(shares, Entity::Partition),
            machine_nodes: 0.0,
            now: 0.0,
            columns: Columns::default(),
            one: Vec::new(),
        })
    }

    /// What the order reads of `job`, arriving now.
    pub(crate) fn facts(&mut self, job: &Job, sys: &dyn System) -> Facts {
        if self.machine_nodes == 0.0 {
            self.machine_nodes = f64::from(sys.snapshot().machine().nodes().max(1));
        }
        // Only usage reads the accounts.
        let (user, group) = match self.fair {
            Some(_) => self.accounts.of_job(job),
            None => (0, 0),
        };
        let mut facts = Facts {
            id: job.id,
            nodes: job.request.nodes(),
            user,
            group,
            submit: job.submit,
            estimate: job.estimate,
            queue: self.queues.of(job.queue.map(|q| q.get())),
            partition: self.partitions.of(job.partition.map(|p| p.get())),
            value: 0.0,
        };
        facts.value = match &mut self.source {
            Source::Function(f) => f.arrived(job, sys.now()),
            Source::Expr(_) if self.is_static => {
                let mut one = std::mem::take(&mut self.one);
                self.expr_values(std::iter::once(&facts), &mut one);
                let value = one[0];
                self.one = one;
                value
            }
            Source::Expr(_) => 0.0,
        };
        facts
    }

    /// Whether a job's value never changes while it waits: the order reads neither the moment
    /// nor usage ([`Key::is_static`]). Its values are computed once, at arrival.
    pub(crate) fn is_static(&self) -> bool {
        self.is_static
    }

    /// Starts a pass at `now`: values are computed for this moment.
    pub(crate) fn begin(&mut self, now: SimTime) {
        self.now = now;
        if let Some(f) = &mut self.fair {
            f.begin(now);
        }
    }

    /// The values of the jobs `facts` at the pass's moment, larger first, into `out` (in order),
    /// a column at a time; a static order's are those computed at arrival. An expression's or a
    /// function's NaN (`0/0`, `log2(-1)`) is made −∞, last; the named orders give none (their
    /// inputs are finite and ≥ 0, their divisors ≥ 1).
    pub(crate) fn values<'a, I>(&mut self, facts: I, out: &mut Vec<f64>)
    where
        I: Iterator<Item = &'a Facts> + Clone,
    {
        match &mut self.source {
            _ if self.is_static => {
                out.clear();
                out.extend(facts.map(|f| f.value));
            }
            Source::Expr(_) => self.expr_values(facts, out),
            Source::Function(f) => f.values(self.now, facts.map(|f| f.id), out),
        }
        for v in out.iter_mut() {
            *v = if v.is_nan() { f64::NEG_INFINITY } else { *v };
        }
    }

    /// [`Ranking::values`] of an expression.
    fn expr_values<'a, I>(&mut self, facts: I, out: &mut Vec<f64>)
    where
        I: Iterator<Item = &'a Facts> + Clone,
    {
        let Source::Expr(expr) = &self.source else {
            return;
        };
        out.clear();
        let mut ctx = Moment {
            now: self.now,
            weights: self.weights,
            machine_nodes: self.machine_nodes,
            fair: self.fair.as_mut(),
        };
        let n = facts.clone().count();
        let now = ctx.now;
        // The variables read straight from the facts get a loop of their own.
        let mut load = |v, col: &mut Vec<f64>| match v {
            Var::Wait => col.extend(facts.clone().map(|f| now - f.submit)),
            Var::Estimate => col.extend(facts.clone().map(|f| f.estimate)),
            Var::Nodes => col.extend(facts.clone().map(|f| f64::from(f.nodes))),
            Var::Submit => col.extend(facts.clone().map(|f| f.submit)),
            _ => col.extend(facts.clone().map(|f| ctx.job(f).get(v))),
        };
        expr.eval_batch(n, &mut load, &mut self.columns, out);
    }

    /// The job `f` started now (its usage accrues from now on).
    pub(crate) fn started(&mut self, f: &Facts, now: SimTime) {
        if let Source::Function(p) = &mut self.source {
            p.started(f.id);
        }
        if let Some(fair) = &mut self.fair {
            fair.started(f.id, f.user, f.group, f.nodes, now);
        }
    }

    /// The jobs of [`System::departed`] ended now.
    pub(crate) fn departed(&mut self, sys: &dyn System) {
        if let Some(fair) = &mut self.fair {
            for &id in sys.departed() {
                fair.ended(id, sys.now());
            }
        }
    }
}

/// The fair-share tracker of `config` over `accounts`: a user or group not in the shares file
/// holds 1 share.
fn fair_share(config: &PriorityConfig, accounts: &Accounts) -> Result<FairShare, OrderError> {
    let mut users = vec![1.0; accounts.users()];
    let mut groups = vec![1.0; accounts.groups()];
    if let Some(s) = &config.shares {
        check_accounts(s, accounts)?;
        for (u, v, _) in s.of(Entity::User) {
            if let Some(i) = accounts.user(crate::packed::UserId::new(u)) {
                users[i as usize] = v;
            }
        }
        for (g, v, _) in s.of(Entity::Group) {
            if let Some(i) = accounts.group(crate::packed::GroupId::new(g)) {
                groups[i as usize] = v;
            }
        }
    }
    Ok(FairShare::new(config.half_life, users, groups))
}

/// Every user and group of the shares file submits in the workload.
fn check_accounts(s: &Shares, accounts: &Accounts) -> Result<(), OrderError> {
    s.check_known(Entity::User, |u| {
        accounts.user(crate::packed::UserId::new(u)).is_some()
    })?;
    s.check_known(Entity::Group, |g| {
        accounts.group(crate::packed::GroupId::new(g)).is_some()
    })?;
    Ok(())
}

/// The moment of a pass, as an order reads it.
struct Moment<'a> {
    now: SimTime,
    weights: Weights,
    machine_nodes: f64,
    fair: Option<&'a mut FairShare>,
}

impl<'a> Moment<'a> {
    /// Job `f` at this moment.
    fn job<'m>(&'m mut self, f: &'m Facts) -> JobEnv<'m, 'a> {
        JobEnv { f, at: self }
    }
}

/// One waiting job at one moment, as an order reads it.
struct JobEnv<'m, 'a> {
    f: &'m Facts,
    at: &'m mut Moment<'a>,
}

impl JobEnv<'_, '_> {
    fn size(&self) -> f64 {
        f64::from(self.f.nodes) / self.at.machine_nodes
    }
}

impl Env for JobEnv<'_, '_> {
    #[inline]
    fn get(&mut self, v: Var) -> f64 {
        let (f, now) = (self.f, self.at.now);
        match v {
            Var::Wait => now - f.submit,
            Var::Estimate => f.estimate,
            Var::Nodes => f64::from(f.nodes),
            Var::Submit => f.submit,
            Var::Now => now,
            Var::Usage => self.at.fair.as_ref().map_or(0.0, |s| s.user_usage(f.user)),
            Var::GroupUsage => (self.at.fair.as_ref()).map_or(0.0, |s| s.group_usage(f.group)),
            Var::Fairshare => self.at.fair.as_mut().map_or(1.0, |s| s.user_factor(f.user)),
            Var::GroupFairshare => (self.at.fair.as_mut()).map_or(1.0, |s| s.group_factor(f.group)),
            Var::Age => self.at.weights.age_factor(now - f.submit),
            Var::Size => self.size(),
            Var::QueueFactor => f.queue,
            Var::PartitionFactor => f.partition,
            Var::Multifactor => {
                let w = self.at.weights;
                let fairshare = self.get(Var::Fairshare);
                w.age * w.age_factor(now - f.submit)
                    + w.fairshare * fairshare
                    + w.size * self.size()
                    + w.queue * f.queue
                    + w.partition * f.partition
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_order_values_descending_then_positions() {
        let values = [
            f64::INFINITY,
            1e300,
            2.5,
            1.0,
            0.0,
            -0.0,
            -1.0,
            -1e300,
            f64::NEG_INFINITY,
        ];
        for (i, a) in values.iter().enumerate() {
            for (j, b) in values.iter().enumerate() {
                let want = b.partial_cmp(a).expect("not NaN").then(i.cmp(&j));
                assert_eq!(rank(*a, i).cmp(&rank(*b, j)), want, "{a} vs {b}");
            }
        }
        assert_eq!(rank(f64::NAN, 5), rank(f64::NEG_INFINITY, 5), "NaN last");
        assert_eq!(position(rank(3.0, 77)), 77);
    }

    #[test]
    fn ranks_give_positions_best_first_and_filter() {
        let mut ranks = Ranks {
            values: vec![1.0, 5.0, 5.0, -2.0, 3.0, 0.5],
            ..Ranks::default()
        };
        assert_eq!(
            ranks.pop(),
            Some(1),
            "the first by a scan, the earlier of equals"
        );
        ranks.retain(|i| i != 4);
        assert_eq!(ranks.pop(), Some(2), "then from the heap");
        ranks.retain(|i| i != 5);
        let rest: Vec<usize> = std::iter::from_fn(|| ranks.pop()).collect();
        assert_eq!(rest, [0, 3]);
        ranks.heap(
            [
                (7, 1.0),
                (3, f64::NAN),
                (9, f64::NEG_INFINITY),
                (4, -0.0),
                (5, 0.0),
            ]
            .into_iter(),
        );
        let order: Vec<usize> = std::iter::from_fn(|| ranks.pop()).collect();
        assert_eq!(
            order,
            [7, 4, 5, 3, 9],
            "−0 = +0, NaN = −∞, ties by position"
        );
        ranks.values.clear();
        ranks.first = None;
        ranks.heaped = false;
        assert_eq!(ranks.pop(), None);
        let mut v = vec!['a', 'b', 'c', 'd'];
        v.retain(except(&[0, 2]));
        assert_eq!(v, ['b', 'd']);
    }

    #[test]
    fn definitions_compile_and_resolve_by_name() {
        let mut c = PriorityConfig::default();
        c.define("wfp = (wait / estimate)^3 * nodes")
            .expect("valid");
        assert_eq!(c.orders["wfp"], "(wait / estimate)^3 * nodes");
        assert!(matches!(c.resolve("wfp"), Ok(Key::Expr(_))));
        assert_eq!(c.resolve("sjf"), Ok(Key::Named(Named::Sjf)));
        let e = c.resolve("nope").expect_err("unknown").to_string();
        assert!(
            e.starts_with("order `nope` is not one of fcfs, sjf") && e.ends_with(", wfp"),
            "{e}"
        );
        for (text, needle) in [
            ("wfp = wait", "defined twice"),
            ("sjf = wait", "a named order already"),
            ("no equals", "expected NAME=EXPR"),
            ("2x = wait", "must start with a letter"),
            ("bad = wait +", "order `bad` = `wait +`: at column 7"),
        ] {
            let e = c.define(text).expect_err(text).to_string();
            assert!(e.contains(needle), "{text}: {e}");
        }
        assert!(c.check().is_ok());
    }

    #[test]
    fn durations_read_units() {
        assert_eq!(parse_duration("7d"), Some(DEFAULT_HALF_LIFE));
        assert_eq!(parse_duration("90"), Some(90.0));
        assert_eq!(parse_duration("1.5h"), Some(5400.0));
        assert_eq!(parse_duration("inf"), Some(f64::INFINITY));
        for bad in ["0", "-1d", "7w", "d", "", "nan"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
        let mut c = PriorityConfig::default();
        assert!(c.set_half_life("2d").is_ok());
        assert_eq!(c.half_life, 172_800.0);
        assert!(c.set_half_life("soon").is_err());
    }
}
