//! The command language's syntax tree: statements and expressions with byte spans into the
//! input. Plain data: parsing builds it, the session executes it.

use crate::ir::Span;
use std::time::Duration;

/// One statement.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

/// What a breakpoint waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum BreakSpec {
    /// `break NAME`: before the pass.
    Before(String),
    /// `break after NAME`.
    After(String),
    /// `break changed @func`: after any pass that changed the function.
    Changed(String),
    /// `break verify`: after the first pass whose output fails the checks.
    Verify,
    /// `break numerics`: after the first pass that changes what `@main` computes.
    Numerics,
    /// `break slower 10ms`: after a pass slower than this.
    Slower(Duration),
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `name = expr`
    Assign {
        name: String,
        name_span: Span,
        value: Expr,
    },
    /// `expr` (a non-None value is displayed)
    Expr(Expr),
    /// A statement command (`show x`, `diff a b @main`, `break after FoldConstant`, ...):
    /// `name` is its entry in the command table, which says how `args` are read.
    Command {
        name: &'static str,
        args: CommandArgs,
    },
}

/// A command's arguments, by its [`Form`](super::commands::Form).
#[derive(Clone, Debug, PartialEq)]
pub enum CommandArgs {
    None,
    /// `show expr`, `enter ctx`
    Expr(Expr),
    /// `with ctx { body }`
    Block {
        ctx: Expr,
        body: Vec<Stmt>,
    },
    /// `diff a b [@func]`
    Diff {
        a: Expr,
        b: Expr,
        func: Option<String>,
    },
    /// `help [NAME]`
    Name(Option<(String, Span)>),
    /// `break ...`
    Break(BreakSpec),
    /// `delete N` / `delete all` (None)
    Delete(Option<usize>),
}

impl CommandArgs {
    /// The expressions the command evaluates before it acts, in order.
    pub fn exprs(&self) -> Vec<&Expr> {
        match self {
            CommandArgs::Expr(e) => vec![e],
            CommandArgs::Block { ctx, .. } => vec![ctx],
            CommandArgs::Diff { a, b, .. } => vec![a, b],
            _ => Vec::new(),
        }
    }
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// A call argument, positional or `name=value`.
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: Option<(String, Span)>,
    pub value: Expr,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
    None,
    /// A name: a variable, a constructor or a function.
    Ident(String),
    /// `@main` (used by `diff a b @main` and as a key).
    Global(String),
    List(Vec<Expr>),
    Map(Vec<(Expr, Expr)>),
    Call {
        callee: Box<Expr>,
        args: Vec<Arg>,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
}

impl Expr {
    /// The identifier, if this expression is a bare name.
    pub fn as_ident(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Ident(n) => Some(n),
            _ => None,
        }
    }
}
