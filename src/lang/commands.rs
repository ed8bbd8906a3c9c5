//! The shape of a statement command: its name, how it is written, its help, how its arguments
//! are parsed ([`Form`]) and what runs it. The language knows commands only through a table of
//! these, which the session supplies (`session::COMMANDS`, with handlers that run on a session):
//! the parser, `help`, completion and the REPL highlighter all read that one table.

/// How a command's arguments are written; the parser reads them by this.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// No arguments: `passes`.
    Bare,
    /// No arguments as a statement, and also a value when indexed: `history`, `history[2]`.
    BareOrValue,
    /// One expression: `show expr`.
    Expr,
    /// An expression and a block: `with ctx { statements }`.
    Block,
    /// Two expressions and an optional `@function`: `diff a b @main`.
    Diff,
    /// An optional name (letters, digits, `_`, `.`): `help FoldConstant`.
    Name,
    /// A breakpoint: `break NAME`, `break after NAME`, `break changed @f`, ...
    Break,
    /// A breakpoint number or `all`.
    Delete,
    /// Not a statement: a name with help of its own (`ir`, the paused module).
    Topic,
}

/// One command. `H` is what runs it (the session's handler type); the language never calls it.
pub struct Command<H> {
    pub name: &'static str,
    /// How it is written, as `help` shows it.
    pub syntax: &'static str,
    /// One line, for `help` and completion.
    pub summary: &'static str,
    /// A paragraph and an example, for inspection (Shift-Tab, `?NAME`).
    pub help: &'static str,
    pub form: Form,
    pub run: H,
}

impl<H> Command<H> {
    /// Whether the name starts a statement (a variable cannot take it).
    pub fn is_statement(&self) -> bool {
        self.form != Form::Topic
    }
}

/// The statement command named `name` in `table`.
pub fn statement<'t, H>(table: &'t [Command<H>], name: &str) -> Option<&'t Command<H>> {
    table.iter().find(|c| c.name == name && c.is_statement())
}
