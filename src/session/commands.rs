//! The statement commands: one table of name, syntax, one-line help, long help with an
//! example, argument form and handler. The parser reads the forms (`lang::parse_program`),
//! `help` and inspection the texts, completion and the REPL highlighter the names; running a
//! statement calls its handler. Adding a command is adding a row here.

use super::suspend::Exec;
use super::{Outputs, Session, SessionError, Value};
use crate::ir::Span;
use crate::lang::ast::CommandArgs;
use crate::lang::{Command, Form};

/// What runs a command: the session, the statement's arguments with the values of their
/// expressions, and where the output goes.
pub struct Handler(pub(crate) HandlerFn);

pub(crate) type HandlerFn =
    fn(&mut Session, Invocation<'_>, &mut Outputs) -> Result<Exec, SessionError>;

/// One command statement being run.
pub(crate) struct Invocation<'a> {
    pub args: &'a CommandArgs,
    /// The whole statement.
    pub span: Span,
    /// The values of `args.exprs()`, in order.
    pub values: std::vec::IntoIter<Value>,
}

impl Invocation<'_> {
    fn value(&mut self) -> Value {
        self.values.next().expect("a value per expression")
    }
}

/// The statement command or help topic named `name`.
pub fn find(name: &str) -> Option<&'static Command<Handler>> {
    COMMANDS.iter().find(|c| c.name == name)
}

/// Whether `name` starts a statement command.
pub fn is_command(name: &str) -> bool {
    crate::lang::commands::statement(COMMANDS, name).is_some()
}

fn done(r: Result<(), SessionError>) -> Result<Exec, SessionError> {
    r.map(|()| Exec::Done)
}

/// A handler for a command that is only a help topic: the parser never makes a statement of it.
fn topic(_: &mut Session, c: Invocation<'_>, _: &mut Outputs) -> Result<Exec, SessionError> {
    Err(SessionError::at("this name is not a command", c.span))
}

macro_rules! command {
    ($name:literal, $form:ident, $syntax:expr, $summary:expr, $help:expr, $run:expr $(,)?) => {
        Command {
            name: $name,
            syntax: $syntax,
            summary: $summary,
            help: $help,
            form: Form::$form,
            run: Handler($run),
        }
    };
}

/// Every statement command, in the order `help` lists them.
pub static COMMANDS: &[Command<Handler>] = &[
    command!(
        "show",
        Expr,
        "show expr",
        "display a value in full (modules highlighted, pipelines as a tree)",
        "Shows the value in full where a bare expression shows a summary: every function of a \
         module, a pipeline as a tree of its passes, a context's settings.\n\
         Example: show Sequential([InferType(), FoldConstant()])",
        |s, mut c, out| {
            let v = c.value();
            s.drain_sink(out);
            s.display_value(&v, true, out);
            Ok(Exec::Done)
        },
    ),
    command!(
        "enter",
        Expr,
        "enter ctx",
        "push a PassContext (its instruments' enter_pass_ctx run) or a Target",
        "Makes the context current for the statements that follow, until `exit`; its \
         instruments' enter_pass_ctx run now. A Target (TVM's `tvm.target.Target`) entered \
         the same way is the target passes run for (AlterOpLayout's layout hooks).\n\
         Example: enter PassContext(opt_level=3, instruments=[PassTimingInstrument()])",
        |s, mut c, _| {
            let span = match c.args {
                CommandArgs::Expr(e) => e.span,
                _ => c.span,
            };
            let ctx = s.to_scope(c.value(), span)?;
            done(s.enter_context(&ctx, None, span).map(|_| ()))
        },
    ),
    command!(
        "exit",
        Bare,
        "exit",
        "pop the innermost entered context",
        "Leaves the context the last `enter` pushed; its instruments' exit_pass_ctx run.\n\
         Example: enter PassContext(opt_level=2)\n         exit",
        |s, c, _| done(s.exit_statement(c.span)),
    ),
    command!(
        "with",
        Block,
        "with ctx { statements }",
        "enter, run the block, exit (also when the block fails)",
        "Runs the block with the context current, and exits it afterwards whatever happens \
         (an error, an aborted run). `with Target(\"llvm -mcpu=core-avx2\") { ... }` runs it \
         for that target, as TVM's `with tvm.target.Target(...)`.\n\
         Example: with PassContext(opt_level=3) {\n             m2 = FoldConstant()(m)\n         }",
        |s, mut c, out| {
            let CommandArgs::Block { ctx, body } = c.args else {
                unreachable!("the parser gives `with` a block")
            };
            let context = s.to_scope(c.value(), ctx.span)?;
            s.run_with(&context, ctx.span, body, out)
        },
    ),
    command!(
        "timing",
        Name,
        "timing [flat]",
        "the PassTimingInstrument results as a table (flat: one row a pass, by self time)",
        "The pass timings of the current context's PassTimingInstrument, or of the last one \
         used, as a table nested by pipeline; `timing flat` lists them flat instead, one row \
         per pass name with its self times summed, largest first (as `timing_list()`).\n\
         Example: with PassContext(instruments=[PassTimingInstrument()]) { m2 = seq(m) }\n         timing flat",
        |s, c, out| {
            let CommandArgs::Name(view) = c.args else {
                unreachable!("the parser gives `timing` a name or none")
            };
            match view {
                None => done(s.cmd_timing(c.span, out)),
                Some((v, _)) if v == "flat" => done(s.cmd_timing_flat(c.span, out)),
                Some((v, at)) => Err(SessionError::at(
                    format!("`timing` shows the table, `timing flat` the flat list; not `{v}`"),
                    *at,
                )),
            }
        },
    ),
    command!(
        "passes",
        Bare,
        "passes",
        "the registered passes",
        "Every registered pass (standard and user-defined) with its kind, opt_level, required \
         passes and summary.\nExample: passes",
        |s, _, out| done(s.cmd_passes(out)),
    ),
    command!(
        "configs",
        Bare,
        "configs",
        "the registered config keys",
        "The keys a PassContext's config={...} accepts, with their types and defaults.\n\
         Example: configs",
        |s, _, out| done(s.cmd_configs(out)),
    ),
    command!(
        "vars",
        Bare,
        "vars",
        "the session's variables",
        "The session's variables with their kinds and a summary of each value.\nExample: vars",
        |s, _, out| done(s.cmd_vars(out)),
    ),
    command!(
        "diff",
        Diff,
        "diff a b [@func]",
        "unified diff of two modules' printed text (lines that only renumbered match)",
        "Compares two modules (or one function of each with @func) as printed text; lines \
         whose only change is the numbering of %0-style ids match.\n\
         Example: diff m FoldConstant()(m) @main",
        |s, mut c, out| {
            let CommandArgs::Diff { a, b, func } = c.args else {
                unreachable!("the parser gives `diff` two expressions")
            };
            let (va, vb) = (c.value(), c.value());
            done(s.cmd_diff((va, a.span), (vb, b.span), func.as_deref(), out))
        },
    ),
    command!(
        "help",
        Name,
        "help [name]",
        "this help, or help on a command, pass, builtin or variable",
        "Without a name, the statements, functions and constructors; with one, what it is and \
         how to call it.\nExample: help FoldConstant",
        |s, c, out| {
            let CommandArgs::Name(name) = c.args else {
                unreachable!("the parser gives `help` a name or none")
            };
            done(s.cmd_help(name.as_ref(), out))
        },
    ),
    command!(
        "break",
        Break,
        "break NAME | after NAME | changed @f | verify | numerics | slower 10ms",
        "pause runs before/after a pass, or after a pass that changes @f, fails the checks, changes the numbers or is slow",
        "Sets a breakpoint for the runs that follow: before or after a pass (by name, a \
         Sequential's name included), after a pass that changes a function, that fails the \
         checks, that changes what @main computes, or that is slower than a duration.\n\
         Example: break after FoldConstant",
        |s, c, out| {
            let CommandArgs::Break(spec) = c.args else {
                unreachable!("the parser gives `break` a breakpoint")
            };
            s.cmd_break(spec, out);
            Ok(Exec::Done)
        },
    ),
    command!(
        "breakpoints",
        Bare,
        "breakpoints",
        "the breakpoints and how often each hit",
        "The breakpoints, numbered as `delete` takes them, and how often each has paused a \
         run.\nExample: breakpoints",
        |s, _, out| {
            s.cmd_breakpoints(out);
            Ok(Exec::Done)
        },
    ),
    command!(
        "delete",
        Delete,
        "delete N | delete all",
        "delete a breakpoint, or all of them",
        "Deletes breakpoint N (as `breakpoints` numbers them), or all of them.\n\
         Example: delete 1",
        |s, c, out| {
            let CommandArgs::Delete(id) = c.args else {
                unreachable!("the parser gives `delete` a number or `all`")
            };
            done(s.cmd_delete(*id, c.span, out))
        },
    ),
    command!(
        "where",
        Bare,
        "where",
        "the running passes of the paused run (sequential > Pass)",
        "While a run is paused: the passes running at the pause point, outermost first.\n\
         Example: break FoldConstant\n         m2 = seq(m)\n         where",
        |s, c, out| done(s.cmd_where(c.span, out)),
    ),
    command!(
        "step",
        Bare,
        "step",
        "run the paused run until the next pass has finished, pause again",
        "While a run is paused: lets the next pass run and pauses after it.\n\
         Example: break InferType\n         m2 = seq(m)\n         step",
        |s, c, out| done(s.cmd_step(c.span, out)),
    ),
    command!(
        "continue",
        Bare,
        "continue",
        "run to the next breakpoint or the end (then the statement completes)",
        "While a run is paused: lets it run to the next breakpoint, or to its end, where the \
         paused statement completes (its assignment binds).\n\
         Example: continue",
        |s, c, out| done(s.cmd_continue(c.span, out)),
    ),
    command!(
        "abort",
        Bare,
        "abort",
        "abandon the paused run: nothing is bound, `with` contexts are exited",
        "While a run is paused: abandons it. The paused statement binds nothing and the \
         `with` blocks around it exit their contexts.\nExample: abort",
        |s, c, out| done(s.cmd_abort(c.span, out)),
    ),
    command!(
        "ir",
        Topic,
        "show ir | ir[\"main\"]",
        "while a run is paused: the module at the pause point",
        "While a run is paused, `ir` is the module at the pause point: show it, index a \
         function, pass it to evaluate or diff.\nExample: diff m ir @main",
        topic,
    ),
    command!(
        "history",
        BareOrValue,
        "history | history[k]",
        "the passes of the last run; history[k] is the module after pass k (0: the input)",
        "The passes the last run applied, numbered; history[k] is the module after pass k, \
         history[0] the input.\nExample: history\n         diff history[1] history[2]",
        |s, _, out| {
            s.cmd_history(out);
            Ok(Exec::Done)
        },
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row is filled in, and each name is in the table once.
    #[test]
    fn rows_are_complete_and_unique() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(!c.syntax.is_empty() && !c.summary.is_empty(), "{}", c.name);
            assert!(c.help.contains("Example: "), "{} has no example", c.name);
            assert!(
                COMMANDS[..i].iter().all(|d| d.name != c.name),
                "{} twice",
                c.name
            );
        }
    }

    /// Each command's example parses with the table (a help topic's example too).
    #[test]
    fn examples_parse() {
        for c in COMMANDS {
            let example = c.help.split("Example: ").nth(1).expect("an example");
            let src: String = example
                .lines()
                .map(str::trim_start)
                .collect::<Vec<_>>()
                .join("\n");
            if let Err(e) = crate::lang::parse_program(&src, COMMANDS) {
                panic!("{}: {src:?}: {}", c.name, e.message);
            }
        }
    }
}
