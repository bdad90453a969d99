//! Priority expressions: a queue order written as a formula over the job and the moment, larger
//! value first (`(wait / max(estimate, 1))^3 * nodes` is WFP3).
//!
//! Grammar, loosest first: `+ -` (left), `* /` (left), unary `-`, `^` (right: `2^3^2` = 2^9, and
//! `-2^2` = −4), then numbers (`12`, `0.5`, `1e-3`), [`VARIABLES`], [`FUNCTIONS`] applied to
//! parenthesised arguments, and parentheses. Spaces are free.
//!
//! An expression is parsed once (nom) into a postfix program of [`Op`]s, constants folded and a
//! power by a small integer constant (`x^2` … `x^8`) turned into products taken left to right, so
//! that a named order written with the same operations ([`super::named`]) gives the same value to
//! the last bit.
//!
//! A pass evaluates the program for all its waiting jobs at once, one instruction at a time over
//! a column of values (a job each), on a stack of at most [`MAX_STACK`] columns kept from pass to
//! pass ([`Columns`]): no allocation per job or per pass once the columns have grown, and the
//! instruction's dispatch paid once per pass rather than once per job, each instruction a tight
//! loop over the column. Only the variables the program reads are loaded (the caller fills the
//! column of each `Var` the program loads).
//!
//! Errors name the column of the first character that could not be read and what was expected
//! there; an unknown name lists the known ones (closest first).

use std::fmt;
use std::str::FromStr;

use nom::branch::alt;
use nom::bytes::complete::{tag, take_while, take_while1};
use nom::character::complete::{char, digit0, digit1, multispace0, one_of};
use nom::combinator::{opt, recognize};
use nom::{IResult, Parser as _};

/// A value an expression reads (see [`VARIABLES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Var {
    /// Seconds the job has waited: now − submit.
    Wait,
    /// The run-time estimate the scheduler was told (seconds).
    Estimate,
    /// Nodes requested (machine units).
    Nodes,
    /// Submit time (seconds since the workload's first submission, after load scaling).
    Submit,
    /// The current time.
    Now,
    /// The user's decayed usage (node-seconds).
    Usage,
    /// The group's decayed usage (node-seconds).
    GroupUsage,
    /// The user's fair-share factor 2^(−U/S).
    Fairshare,
    /// The group's fair-share factor.
    GroupFairshare,
    /// Slurm's age factor: min(wait / max age, 1).
    Age,
    /// Slurm's job-size factor: nodes / machine nodes.
    Size,
    /// The queue's factor: its priority / the highest queue priority.
    QueueFactor,
    /// The partition's factor: its priority / the highest partition priority.
    PartitionFactor,
    /// The multifactor priority (the weighted sum of the factors).
    Multifactor,
}

/// One variable of the expression language: its name, what it reads, what it means.
#[derive(Debug, Clone, Copy)]
pub struct VarInfo {
    /// The name written in expressions.
    pub name: &'static str,
    /// What it reads.
    pub var: Var,
    /// One line for help texts and docs.
    pub meaning: &'static str,
}

/// Every variable, in the order of help texts and error messages.
#[rustfmt::skip]
pub const VARIABLES: &[VarInfo] = &[
    VarInfo { name: "wait", var: Var::Wait, meaning: "seconds waited so far (now − submit)" },
    VarInfo { name: "estimate", var: Var::Estimate, meaning: "the run-time estimate the scheduler was told (s)" },
    VarInfo { name: "nodes", var: Var::Nodes, meaning: "nodes requested" },
    VarInfo { name: "submit", var: Var::Submit, meaning: "submit time (s since the first submission, after load scaling)" },
    VarInfo { name: "now", var: Var::Now, meaning: "the current time (s)" },
    VarInfo { name: "usage", var: Var::Usage, meaning: "the user's decayed usage (node-seconds)" },
    VarInfo { name: "group_usage", var: Var::GroupUsage, meaning: "the group's decayed usage (node-seconds)" },
    VarInfo { name: "fairshare", var: Var::Fairshare, meaning: "the user's fair-share factor 2^(−U/S), 0..1" },
    VarInfo { name: "group_fairshare", var: Var::GroupFairshare, meaning: "the group's fair-share factor, 0..1" },
    VarInfo { name: "age", var: Var::Age, meaning: "Slurm's age factor min(wait / max age, 1)" },
    VarInfo { name: "size", var: Var::Size, meaning: "Slurm's job-size factor nodes / machine nodes" },
    VarInfo { name: "queue_factor", var: Var::QueueFactor, meaning: "the queue's priority / the highest queue priority" },
    VarInfo { name: "partition_factor", var: Var::PartitionFactor, meaning: "the partition's priority / the highest partition priority" },
    VarInfo { name: "multifactor", var: Var::Multifactor, meaning: "Slurm's multifactor priority (weighted sum of the factors)" },
];

/// A function of the expression language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Func {
    Log2,
    Log10,
    Ln,
    Exp,
    Sqrt,
    Abs,
    Min,
    Max,
}

/// One function: its name, how many arguments it takes (`None`: two or more), what it computes.
#[derive(Debug, Clone, Copy)]
pub struct FuncInfo {
    /// The name written in expressions.
    pub name: &'static str,
    func: Func,
    /// Exactly this many arguments; `None`: two or more.
    pub arity: Option<usize>,
    /// One line for help texts and docs.
    pub meaning: &'static str,
}

/// Every function, in the order of help texts and error messages.
#[rustfmt::skip]
pub const FUNCTIONS: &[FuncInfo] = &[
    FuncInfo { name: "log2", func: Func::Log2, arity: Some(1), meaning: "base-2 logarithm (log2(0) = −inf)" },
    FuncInfo { name: "log10", func: Func::Log10, arity: Some(1), meaning: "base-10 logarithm" },
    FuncInfo { name: "ln", func: Func::Ln, arity: Some(1), meaning: "natural logarithm" },
    FuncInfo { name: "exp", func: Func::Exp, arity: Some(1), meaning: "e to the power" },
    FuncInfo { name: "sqrt", func: Func::Sqrt, arity: Some(1), meaning: "square root" },
    FuncInfo { name: "abs", func: Func::Abs, arity: Some(1), meaning: "absolute value" },
    FuncInfo { name: "min", func: Func::Min, arity: None, meaning: "the smallest argument (two or more)" },
    FuncInfo { name: "max", func: Func::Max, arity: None, meaning: "the largest argument (two or more)" },
];

/// Values a program may hold on its stack at once (deeper expressions are refused).
pub const MAX_STACK: usize = 32;

/// Parentheses and calls nested deeper than this are refused (the parser recurses).
const MAX_NESTING: usize = 64;

/// Powers by an integer constant up to this are products (exact as a named order computes them).
const MAX_PRODUCT_POWER: u32 = 8;

/// One instruction of a compiled expression (postfix).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Op {
    Const(f64),
    Load(Var),
    Neg,
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    /// `x^n` for a small integer constant `n ≥ 2`: [`product_power`].
    PowInt(u32),
    Call(Func1),
    Min,
    Max,
}

/// A function of one argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Func1 {
    Log2,
    Log10,
    Ln,
    Exp,
    Sqrt,
    Abs,
}

impl Func1 {
    fn apply(self, x: f64) -> f64 {
        match self {
            Func1::Log2 => x.log2(),
            Func1::Log10 => x.log10(),
            Func1::Ln => x.ln(),
            Func1::Exp => x.exp(),
            Func1::Sqrt => x.sqrt(),
            Func1::Abs => x.abs(),
        }
    }
}

/// `x^n` as the product `((x · x) · x) …` of `n ≥ 1` factors, taken left to right.
pub(crate) fn product_power(x: f64, n: u32) -> f64 {
    let mut p = x;
    for _ in 1..n {
        p *= x;
    }
    p
}

/// What an expression reads while it is evaluated: one value per variable loaded.
pub(crate) trait Env {
    /// The value of `v` for the job being ranked.
    fn get(&mut self, v: Var) -> f64;
}

/// The columns of a batch evaluation, kept for their allocations.
#[derive(Debug, Default, Clone)]
pub(crate) struct Columns(Vec<Vec<f64>>);

/// An operand on the stack of a batch evaluation: a constant, or the column at that depth.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Const(f64),
    Column,
}

/// `op` of two numbers.
fn binary(op: Op, a: f64, b: f64) -> f64 {
    match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div => a / b,
        Op::Pow => a.powf(b),
        Op::Min => a.min(b),
        _ => a.max(b),
    }
}

/// `f` applied in place to every value of `col`.
fn each(col: &mut [f64], f: impl Fn(f64) -> f64) {
    for x in col {
        *x = f(*x);
    }
}

/// Column `col` ← `op col` (a loop per operation, so that each compiles to a tight loop).
fn unary_column(op: Op, col: &mut [f64]) {
    match op {
        Op::Neg => each(col, |x| -x),
        Op::PowInt(2) => each(col, |x| x * x),
        Op::PowInt(3) => each(col, |x| x * x * x),
        Op::PowInt(k) => each(col, |x| product_power(x, k)),
        Op::Call(Func1::Log2) => each(col, f64::log2),
        Op::Call(Func1::Log10) => each(col, f64::log10),
        Op::Call(Func1::Sqrt) => each(col, f64::sqrt),
        Op::Call(f) => each(col, |x| f.apply(x)),
        _ => {}
    }
}

/// Column `col` ← `col op y`.
fn scalar_column(op: Op, col: &mut [f64], y: f64) {
    match op {
        Op::Add => each(col, |x| x + y),
        Op::Sub => each(col, |x| x - y),
        Op::Mul => each(col, |x| x * y),
        Op::Div => each(col, |x| x / y),
        Op::Max => each(col, |x| x.max(y)),
        Op::Min => each(col, |x| x.min(y)),
        _ => each(col, |x| binary(op, x, y)),
    }
}

/// Column `a` ← `a op b`, element-wise.
fn columns(op: Op, a: &mut [f64], b: &[f64]) {
    macro_rules! zip {
        ($f:expr) => {
            for (x, y) in a.iter_mut().zip(b) {
                *x = $f(*x, *y);
            }
        };
    }
    match op {
        Op::Add => zip!(|x, y| x + y),
        Op::Sub => zip!(|x, y| x - y),
        Op::Mul => zip!(|x, y| x * y),
        Op::Div => zip!(|x, y| x / y),
        _ => zip!(|x, y| binary(op, x, y)),
    }
}

/// A compiled priority expression.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    /// The text, as written (trimmed).
    source: String,
    program: Vec<Op>,
}

/// Why an expression could not be read: the byte offset of the first character that could not
/// be read, and what was wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at column {column}: {message}")]
pub struct ExprError {
    /// Byte offset into the expression.
    pub offset: usize,
    /// 1-based column (in characters) of that offset.
    pub column: usize,
    /// What was expected or wrong.
    pub message: String,
}

impl Expr {
    /// The text as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Whether the program loads `v`.
    pub fn reads(&self, v: Var) -> bool {
        self.program.contains(&Op::Load(v))
    }

    /// The values of `n` jobs into `out`: `load(v, col)` fills `col` (empty) with variable `v` of
    /// each job, in order.
    pub(crate) fn eval_batch(
        &self,
        n: usize,
        load: &mut impl FnMut(Var, &mut Vec<f64>),
        cols: &mut Columns,
        out: &mut Vec<f64>,
    ) {
        let mut stack: [Slot; MAX_STACK] = [Slot::Const(0.0); MAX_STACK];
        let mut top = 0usize;
        for &op in &self.program {
            if cols.0.len() <= top {
                cols.0.push(Vec::new());
            }
            match op {
                Op::Const(c) => {
                    stack[top] = Slot::Const(c);
                    top += 1;
                }
                Op::Load(v) => {
                    let col = &mut cols.0[top];
                    col.clear();
                    load(v, col);
                    debug_assert_eq!(col.len(), n);
                    stack[top] = Slot::Column;
                    top += 1;
                }
                Op::Neg | Op::PowInt(_) | Op::Call(_) => match &mut stack[top - 1] {
                    Slot::Const(c) => {
                        let mut one = [*c];
                        unary_column(op, &mut one);
                        *c = one[0];
                    }
                    Slot::Column => unary_column(op, &mut cols.0[top - 1]),
                },
                _ => {
                    top -= 1;
                    let (lower, upper) = cols.0.split_at_mut(top);
                    let (a, b) = (&mut lower[top - 1], &upper[0]);
                    stack[top - 1] = match (stack[top - 1], stack[top]) {
                        (Slot::Const(x), Slot::Const(y)) => Slot::Const(binary(op, x, y)),
                        (Slot::Column, Slot::Const(y)) => {
                            scalar_column(op, a, y);
                            Slot::Column
                        }
                        (Slot::Const(x), Slot::Column) => {
                            a.clear();
                            a.extend(b.iter().map(|&y| binary(op, x, y)));
                            Slot::Column
                        }
                        (Slot::Column, Slot::Column) => {
                            columns(op, a, b);
                            Slot::Column
                        }
                    };
                }
            }
        }
        out.clear();
        match stack[0] {
            Slot::Const(c) => out.resize(n, c),
            // The result's column becomes `out`; `out`'s allocation becomes a column.
            Slot::Column => std::mem::swap(out, &mut cols.0[0]),
        }
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}

impl FromStr for Expr {
    type Err = ExprError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let fail = |rest: &str, message: String| {
            let offset = s.len() - rest.len();
            ExprError {
                offset,
                column: s[..offset].chars().count() + 1,
                message,
            }
        };
        let node = match sum(s, 0) {
            Ok((rest, node)) => {
                let (rest, _) = space(rest);
                if !rest.is_empty() {
                    let c = rest.chars().next().unwrap_or(' ');
                    return Err(fail(rest, format!("unexpected `{c}`")));
                }
                node
            }
            Err(nom::Err::Error(e) | nom::Err::Failure(e)) => return Err(fail(e.at, e.message)),
            Err(nom::Err::Incomplete(_)) => return Err(fail("", "incomplete".into())),
        };
        let mut program = Vec::new();
        let depth = node.compile(&mut program);
        if depth > MAX_STACK {
            return Err(fail(
                s,
                format!("the expression needs {depth} stack values, more than {MAX_STACK}"),
            ));
        }
        Ok(Expr {
            source: s.trim().to_string(),
            program,
        })
    }
}

/// A syntax tree.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    Num(f64),
    Var(Var),
    Neg(Box<Node>),
    Bin(Op, Box<Node>, Box<Node>),
    /// `x^n` for a small integer constant `n`.
    PowInt(u32, Box<Node>),
    Call(Func1, Box<Node>),
}

impl Node {
    /// The constant this node folds to, if any.
    fn constant(&self) -> Option<f64> {
        match self {
            Node::Num(c) => Some(*c),
            _ => None,
        }
    }

    /// Folds constant operands; a power by a small positive integer constant becomes a product.
    fn bin(op: Op, a: Node, b: Node) -> Node {
        let folded = match (a.constant(), b.constant()) {
            (Some(x), Some(y)) => Some(binary(op, x, y)),
            _ => None,
        };
        match (folded, op, b.constant()) {
            (Some(c), ..) => Node::Num(c),
            (None, Op::Pow, Some(n))
                if n.fract() == 0.0 && (2.0..=f64::from(MAX_PRODUCT_POWER)).contains(&n) =>
            {
                Node::PowInt(n as u32, Box::new(a))
            }
            _ => Node::Bin(op, Box::new(a), Box::new(b)),
        }
    }

    /// Appends the program of this node; returns the stack depth it needs.
    fn compile(&self, out: &mut Vec<Op>) -> usize {
        match self {
            Node::Num(c) => {
                out.push(Op::Const(*c));
                1
            }
            Node::Var(v) => {
                out.push(Op::Load(*v));
                1
            }
            Node::Neg(a) => {
                let d = a.compile(out);
                out.push(Op::Neg);
                d
            }
            Node::PowInt(n, a) => {
                let d = a.compile(out);
                out.push(Op::PowInt(*n));
                d
            }
            Node::Bin(op, a, b) => {
                let da = a.compile(out);
                let db = b.compile(out);
                out.push(*op);
                da.max(db + 1)
            }
            Node::Call(f, a) => {
                let d = a.compile(out);
                out.push(Op::Call(*f));
                d
            }
        }
    }
}

/// A parse error: where, and what was expected or wrong.
#[derive(Debug, Clone)]
struct PErr<'a> {
    at: &'a str,
    message: String,
}

impl<'a> nom::error::ParseError<&'a str> for PErr<'a> {
    fn from_error_kind(at: &'a str, _: nom::error::ErrorKind) -> Self {
        PErr {
            at,
            message: "expected a number, a variable, a function or `(`".into(),
        }
    }
    fn append(_: &'a str, _: nom::error::ErrorKind, other: Self) -> Self {
        other
    }
}

type Res<'a, T> = IResult<&'a str, T, PErr<'a>>;

/// A hard error at `at` (no alternative is tried).
fn failure<T>(at: &str, message: String) -> Res<'_, T> {
    Err(nom::Err::Failure(PErr { at, message }))
}

fn space(i: &str) -> (&str, &str) {
    multispace0::<&str, ()>(i).unwrap_or((i, ""))
}

/// `t` after optional spaces.
fn token<'a>(t: &'static str) -> impl FnMut(&'a str) -> Res<'a, &'a str> {
    move |i: &'a str| tag(t).parse(space(i).0)
}

/// An operand after an operator: required.
fn operand<'a>(
    i: &'a str,
    depth: usize,
    parse: fn(&'a str, usize) -> Res<'a, Node>,
) -> Res<'a, Node> {
    match parse(i, depth) {
        Err(nom::Err::Error(e)) => Err(nom::Err::Failure(e)),
        other => other,
    }
}

/// `+ -`, left to right.
fn sum(i: &str, depth: usize) -> Res<'_, Node> {
    left_to_right(i, depth, product, [("+", Op::Add), ("-", Op::Sub)])
}

/// `* /`, left to right.
fn product(i: &str, depth: usize) -> Res<'_, Node> {
    left_to_right(i, depth, unary, [("*", Op::Mul), ("/", Op::Div)])
}

/// One precedence level of binary operators `ops`, left to right, over operands read by `next`.
fn left_to_right<'a>(
    i: &'a str,
    depth: usize,
    next: fn(&'a str, usize) -> Res<'a, Node>,
    ops: [(&'static str, Op); 2],
) -> Res<'a, Node> {
    let (mut i, mut acc) = next(i, depth)?;
    while let Ok((rest, t)) = alt((token(ops[0].0), token(ops[1].0))).parse(i) {
        let (rest, rhs) = operand(rest, depth, next)?;
        let op = if t == ops[0].0 { ops[0].1 } else { ops[1].1 };
        acc = Node::bin(op, acc, rhs);
        i = rest;
    }
    Ok((i, acc))
}

/// Unary minus, looser than `^`.
fn unary(i: &str, depth: usize) -> Res<'_, Node> {
    if let Ok((rest, _)) = token("-").parse(i) {
        if depth >= MAX_NESTING {
            return failure(rest, format!("nested deeper than {MAX_NESTING}"));
        }
        let (rest, a) = operand(rest, depth + 1, unary)?;
        return Ok((
            rest,
            match a.constant() {
                Some(c) => Node::Num(-c),
                None => Node::Neg(Box::new(a)),
            },
        ));
    }
    power(i, depth)
}

/// `^`, right to left: its exponent may carry a sign (`2^-1`).
fn power(i: &str, depth: usize) -> Res<'_, Node> {
    let (i, base) = atom(i, depth)?;
    match token("^").parse(i) {
        Ok((rest, _)) => {
            if depth >= MAX_NESTING {
                return failure(rest, format!("nested deeper than {MAX_NESTING}"));
            }
            let (rest, exp) = operand(rest, depth + 1, unary)?;
            Ok((rest, Node::bin(Op::Pow, base, exp)))
        }
        Err(_) => Ok((i, base)),
    }
}

/// A number, a variable, a call or a parenthesised expression.
fn atom(i: &str, depth: usize) -> Res<'_, Node> {
    let (i, _) = space(i);
    if depth >= MAX_NESTING {
        return failure(i, format!("nested deeper than {MAX_NESTING}"));
    }
    if let Ok((rest, _)) = char::<&str, ()>('(').parse(i) {
        let (rest, inner) = operand(rest, depth + 1, sum)?;
        return match token(")").parse(rest) {
            Ok((rest, _)) => Ok((rest, inner)),
            Err(_) => failure(space(rest).0, "expected `)`".into()),
        };
    }
    if let Ok((rest, text)) = number(i) {
        return match text.parse::<f64>() {
            Ok(x) if x.is_finite() => Ok((rest, Node::Num(x))),
            _ => failure(i, format!("`{text}` is not a finite number")),
        };
    }
    let (rest, name) = name(i)?;
    if let Ok((after, _)) = token("(").parse(rest) {
        return call(i, name, after, depth);
    }
    match VARIABLES.iter().find(|v| v.name == name) {
        Some(v) => Ok((rest, Node::Var(v.var))),
        None => failure(
            i,
            unknown("variable", name, VARIABLES.iter().map(|v| v.name)),
        ),
    }
}

/// The arguments of function `name` (written at `at`) after its `(`, and its `)`.
fn call<'a>(at: &'a str, name: &str, i: &'a str, depth: usize) -> Res<'a, Node> {
    let Some(f) = FUNCTIONS.iter().find(|f| f.name == name) else {
        return failure(
            at,
            unknown("function", name, FUNCTIONS.iter().map(|f| f.name)),
        );
    };
    let (mut i, first) = operand(i, depth + 1, sum)?;
    let mut args = vec![first];
    while let Ok((rest, _)) = token(",").parse(i) {
        let (rest, a) = operand(rest, depth + 1, sum)?;
        args.push(a);
        i = rest;
    }
    let Ok((rest, _)) = token(")").parse(i) else {
        return failure(space(i).0, "expected `,` or `)`".into());
    };
    let fits = match f.arity {
        Some(n) => args.len() == n,
        None => args.len() >= 2,
    };
    if !fits {
        let wanted = f.arity.map_or("two or more".to_string(), |n| n.to_string());
        return failure(
            at,
            format!("`{name}` takes {wanted} argument(s), not {}", args.len()),
        );
    }
    let unary = match f.func {
        Func::Log2 => Func1::Log2,
        Func::Log10 => Func1::Log10,
        Func::Ln => Func1::Ln,
        Func::Exp => Func1::Exp,
        Func::Sqrt => Func1::Sqrt,
        Func::Abs => Func1::Abs,
        Func::Min | Func::Max => {
            let op = if f.func == Func::Min {
                Op::Min
            } else {
                Op::Max
            };
            let mut args = args.into_iter();
            let first = args.next().expect("two or more");
            return Ok((rest, args.fold(first, |acc, a| Node::bin(op, acc, a))));
        }
    };
    let arg = args.pop().expect("one argument");
    let node = match arg.constant() {
        Some(c) => Node::Num(unary.apply(c)),
        None => Node::Call(unary, Box::new(arg)),
    };
    Ok((rest, node))
}

/// An unknown name, with the known ones, the closest first.
fn unknown<'a>(what: &str, name: &str, known: impl Iterator<Item = &'a str>) -> String {
    let mut known: Vec<&str> = known.collect();
    known.sort_by_key(|k| (strsim::levenshtein(name, k), *k));
    let list: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    format!("unknown {what} `{name}`; known: {}", list.join(", "))
}

/// A decimal number: digits, an optional fraction, an optional exponent (or a fraction alone).
fn number(i: &str) -> IResult<&str, &str, ()> {
    recognize((
        alt((
            recognize((digit1, opt((char('.'), digit0)))),
            recognize((char('.'), digit1)),
        )),
        opt((one_of("eE"), opt(one_of("+-")), digit1)),
    ))
    .parse(i)
}

/// A name: a letter or `_`, then letters, digits and `_`.
fn name(i: &str) -> Res<'_, &str> {
    let first = |c: char| c.is_ascii_alphabetic() || c == '_';
    let rest = |c: char| c.is_ascii_alphanumeric() || c == '_';
    match recognize((take_while1::<_, &str, ()>(first), take_while(rest))).parse(i) {
        Ok(ok) => Ok(ok),
        Err(_) => Err(nom::Err::Error(PErr {
            at: i,
            message: match i.chars().next() {
                None => "expected a number, a variable, a function or `(`; found the end".into(),
                Some(c) => format!("expected a number, a variable, a function or `(`; found `{c}`"),
            },
        })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `s` for a job of wait 100, estimate 10, nodes 4, anything else 1.
    fn value(s: &str) -> f64 {
        let e: Expr = s.parse().expect(s);
        let mut load = |v, col: &mut Vec<f64>| {
            col.push(match v {
                Var::Wait => 100.0,
                Var::Estimate => 10.0,
                Var::Nodes => 4.0,
                _ => 1.0,
            })
        };
        let mut out = Vec::new();
        e.eval_batch(1, &mut load, &mut Columns::default(), &mut out);
        out[0]
    }

    #[test]
    fn a_batch_is_evaluated_job_by_job() {
        let e: Expr = "max(wait, 2) / nodes - 1 + 3 * (estimate + 1)"
            .parse()
            .expect("parses");
        let (waits, nodes, estimates) = ([0.0, 5.0, 9.0], [1.0, 2.0, 4.0], [3.0, 0.5, 10.0]);
        let mut load = |v, col: &mut Vec<f64>| match v {
            Var::Wait => col.extend(waits),
            Var::Nodes => col.extend(nodes),
            _ => col.extend(estimates),
        };
        let (mut cols, mut out) = (Columns::default(), Vec::new());
        e.eval_batch(3, &mut load, &mut cols, &mut out);
        let want: Vec<f64> = (0..3)
            .map(|i| waits[i].max(2.0) / nodes[i] - 1.0 + 3.0 * (estimates[i] + 1.0))
            .collect();
        assert_eq!(out, want);
        let c: Expr = "2 ^ 3".parse().expect("constant");
        c.eval_batch(2, &mut load, &mut cols, &mut out);
        assert_eq!(out, [8.0, 8.0]);
        c.eval_batch(0, &mut load, &mut cols, &mut out);
        assert!(out.is_empty());
    }

    fn error(s: &str) -> ExprError {
        s.parse::<Expr>().expect_err(s)
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(value("1 + 2 * 3"), 7.0);
        assert_eq!(value("(1 + 2) * 3"), 9.0);
        assert_eq!(value("10 - 4 - 3"), 3.0, "left to right");
        assert_eq!(value("64 / 4 / 2"), 8.0);
        assert_eq!(value("2^3^2"), 512.0, "right to left");
        assert_eq!(value("-2^2"), -4.0, "unary minus is looser than ^");
        assert_eq!(value("2^-1"), 0.5);
        assert_eq!(value("--3"), 3.0);
        assert_eq!(value(" 1.5e1 + .5 "), 15.5);
    }

    #[test]
    fn variables_and_functions() {
        assert_eq!(value("(wait / estimate)^3 * nodes"), 4000.0);
        assert_eq!(
            value("log2(nodes) + log10(wait) + sqrt(nodes)"),
            2.0 + 2.0 + 2.0
        );
        assert_eq!(value("min(wait, estimate, nodes)"), 4.0);
        assert_eq!(value("max(wait, estimate)"), 100.0);
        assert_eq!(value("abs(-nodes) + ln(exp(0))"), 4.0);
        assert_eq!(value("log10(0)"), f64::NEG_INFINITY);
    }

    #[test]
    fn constants_fold_and_small_integer_powers_are_products() {
        let e: Expr = "2 * 3 + log2(8) + wait^3".parse().expect("parses");
        assert_eq!(
            e.program,
            vec![Op::Const(9.0), Op::Load(Var::Wait), Op::PowInt(3), Op::Add]
        );
        let x = 1.1f64;
        assert_eq!(product_power(x, 3), x * x * x);
        assert_eq!(product_power(x, 1), x);
        assert!(e.reads(Var::Wait) && !e.reads(Var::Nodes));
        let e: Expr = "wait^2.5 + wait^9".parse().expect("parses");
        assert_eq!(e.program.iter().filter(|o| **o == Op::Pow).count(), 2);
    }

    #[test]
    fn errors_name_the_column_and_what_was_expected() {
        let e = error("wait * ");
        assert_eq!(e.column, 8, "{e}");
        assert!(e.message.contains("expected a number"), "{e}");
        let e = error("wiat + 1");
        assert_eq!(e.column, 1);
        assert!(
            e.message
                .starts_with("unknown variable `wiat`; known: `wait`"),
            "{e}"
        );
        let e = error("log(2)");
        assert!(e.message.starts_with("unknown function `log`"), "{e}");
        let e = error("(wait + 1");
        assert_eq!((e.column, e.message.as_str()), (10, "expected `)`"));
        let e = error("min(wait)");
        assert!(e.message.contains("two or more"), "{e}");
        let e = error("sqrt(wait, 2)");
        assert!(e.message.contains("takes 1"), "{e}");
        let e = error("wait 2");
        assert_eq!((e.column, e.message.as_str()), (6, "unexpected `2`"));
        let e = error("");
        assert_eq!(e.column, 1);
        let e = error("1e999");
        assert!(e.message.contains("finite"), "{e}");
        let e = error("é");
        assert!(e.message.contains("found `é`"), "{e}");
        assert_eq!(error("wait + é").column, 8, "columns count characters");
    }

    #[test]
    fn deep_expressions_are_refused_not_overflowed() {
        let deep = format!("{}1{}", "(".repeat(500), ")".repeat(500));
        assert!(error(&deep).message.contains("nested deeper"));
        let minus = format!("{}1", "-".repeat(500));
        assert!(error(&minus).message.contains("nested deeper"));
        // Right-nested sums that fit the nesting limit but not the stack.
        let wide = format!("{}wait{}", "wait + (".repeat(40), ")".repeat(40));
        assert!(
            error(&wide).message.contains("stack values"),
            "{}",
            error(&wide)
        );
        let fits = format!("{}wait{}", "wait + (".repeat(20), ")".repeat(20));
        assert_eq!(value(&fits), 2100.0);
    }
}
