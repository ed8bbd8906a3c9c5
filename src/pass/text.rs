//! Pipelines as text: [`pipeline_text`] writes the command-language expression that rebuilds a
//! pass value (the session's `pipeline(t)` and `passlab opt -p` read it back). A pass knows how
//! it was built through its [`Origin`], which the registry records for every pass it makes and
//! the language's `module_pass` / `function_pass` record with their arguments; a Sequential
//! without one is written from its info and children. The text is canonical: options in the
//! order the pass was given them, a Sequential's `opt_level`, `name` and `required` only when
//! they differ from the constructor's defaults, strings quoted the way the language reads them,
//! so `text(pipeline(text(p))) == text(p)`.
//!
//! A pass built by a Rust closure has no text (there is nothing to rebuild it from): asking
//! for it is an error naming the pass.

use super::config::ConfigValue;
use super::registry::PassOptions;
use super::{Pass, PassError, PassInfo, PassKind};
use std::fmt::Write as _;
use std::sync::Arc;

/// How a pass value was built.
#[derive(Clone, Debug)]
pub enum Origin {
    /// By the registry, by name, with these (validated) options: `Name(k=v, ...)`.
    Registered {
        name: Arc<str>,
        options: PassOptions,
    },
    /// By a language constructor (`function_pass`, `module_pass`) with these keyword
    /// arguments beyond the pass info (name, opt_level, required), in parameter order.
    Constructor {
        constructor: &'static str,
        arguments: Vec<(String, ConfigValue)>,
    },
}

/// The canonical command-language expression that rebuilds `p`.
pub fn pipeline_text(p: &Pass) -> Result<String, PassError> {
    let mut out = String::new();
    write_pass(p, &mut out)?;
    Ok(out)
}

/// The text of the pipeline from the pass whose info is `failing` to the end of `root`: the
/// pass itself, then its later siblings, inside copies of the Sequentials around it (same
/// info, earlier children left out). A pass not found in the tree (one a `required` list
/// brought in) is written by its registered name.
pub fn suffix_text(root: &Pass, failing: &PassInfo) -> Result<String, PassError> {
    // The path to the pass: (Sequential, index of the child on the path), outermost first.
    let mut path: Vec<(&Pass, usize)> = Vec::new();
    let same = |i: &PassInfo| i.same_as(failing);
    // A pipeline rebuilt from its text has equal passes, not the same ones: then the first
    // pass of the same name and kind is taken.
    let alike = |i: &PassInfo| i.name() == failing.name() && i.kind() == failing.kind();
    if !find_path(root, &same, &mut path) && !find_path(root, &alike, &mut path) {
        return Ok(format!("{}()", failing.name()));
    }
    let Some(&(innermost, k)) = path.last() else {
        return pipeline_text(root);
    };
    let mut text = sequential_text(innermost, &innermost.children()[k..], None)?;
    for &(seq, k) in path.iter().rev().skip(1) {
        text = sequential_text(seq, &seq.children()[k + 1..], Some(text))?;
    }
    Ok(text)
}

/// Depth-first search for the pass whose info `target` accepts, recording the Sequentials on the way.
fn find_path<'a>(
    p: &'a Pass,
    target: &dyn Fn(&PassInfo) -> bool,
    path: &mut Vec<(&'a Pass, usize)>,
) -> bool {
    if target(p.info()) {
        return true;
    }
    crate::ir::deep(|| {
        for (k, child) in p.children().iter().enumerate() {
            path.push((p, k));
            if find_path(child, target, path) {
                return true;
            }
            path.pop();
        }
        false
    })
}

/// `Sequential([first, children...], <seq's info>)`.
fn sequential_text(
    seq: &Pass,
    children: &[Pass],
    first: Option<String>,
) -> Result<String, PassError> {
    let info = seq.info();
    let mut out = String::from("Sequential([");
    let mut items = Vec::new();
    items.extend(first);
    for c in children {
        items.push(pipeline_text(c)?);
    }
    out.push_str(&items.join(", "));
    out.push(']');
    if info.opt_level() != 0 {
        let _ = write!(out, ", opt_level={}", info.opt_level());
    }
    if info.name() != "sequential" {
        out.push_str(", name=");
        write_str(info.name(), &mut out);
    }
    write_info_tail(seq, i32::MIN, &mut out);
    out.push(')');
    Ok(out)
}

fn write_pass(p: &Pass, out: &mut String) -> Result<(), PassError> {
    crate::ir::deep(|| write_pass_inner(p, out))
}

fn write_pass_inner(p: &Pass, out: &mut String) -> Result<(), PassError> {
    let info = p.info();
    match p.origin() {
        Some(Origin::Registered { name, options }) => {
            out.push_str(name);
            out.push('(');
            let args: Vec<(&str, &ConfigValue)> = options.iter().collect();
            write_arguments(&args, out);
            out.push(')');
        }
        Some(Origin::Constructor {
            constructor,
            arguments,
        }) => {
            out.push_str(constructor);
            out.push_str("(name=");
            write_str(info.name(), out);
            write_info_tail(p, 0, out);
            for (k, v) in arguments {
                let _ = write!(out, ", {k}=");
                write_value(v, out);
            }
            out.push(')');
        }
        None if info.kind() == PassKind::Sequential => {
            out.push_str("Sequential([");
            for (i, child) in p.children().iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_pass(child, out)?;
            }
            out.push(']');
            if info.opt_level() != 0 {
                let _ = write!(out, ", opt_level={}", info.opt_level());
            }
            if info.name() != "sequential" {
                out.push_str(", name=");
                write_str(info.name(), out);
            }
            write_info_tail(p, i32::MIN, out);
            out.push(')');
        }
        None => {
            return Err(PassError::failed(format!(
                "{} is a {} pass built in Rust; it has no text that rebuilds it",
                info.name(),
                info.kind()
            )))
        }
    }
    Ok(())
}

/// `, opt_level=N` (unless it is `default_level`; `i32::MIN` leaves it to the caller) and
/// `, required=[...]` when the list is not empty.
fn write_info_tail(p: &Pass, default_level: i32, out: &mut String) {
    let info = p.info();
    if default_level != i32::MIN && info.opt_level() != default_level {
        let _ = write!(out, ", opt_level={}", info.opt_level());
    }
    if !info.required().is_empty() {
        out.push_str(", required=[");
        for (i, r) in info.required().iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            write_str(r, out);
        }
        out.push(']');
    }
}

fn write_arguments(args: &[(&str, &ConfigValue)], out: &mut String) {
    for (i, (k, v)) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "{k}=");
        write_value(v, out);
    }
}

/// A value as the command language spells it.
pub fn write_value(v: &ConfigValue, out: &mut String) {
    match v {
        ConfigValue::Str(s) => write_str(s, out),
        ConfigValue::List(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_value(x, out);
            }
            out.push(']');
        }
        ConfigValue::Map(items) => {
            out.push('{');
            for (i, (k, x)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(k, out);
                out.push_str(": ");
                write_value(x, out);
            }
            out.push('}');
        }
        other => {
            let _ = write!(out, "{other}");
        }
    }
}

/// A string literal of the command language: `"..."` with `\"`, `\\`, `\n` and `\t` escaped
/// (the escapes its lexer reads); other characters stand for themselves.
pub fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_escape_what_the_language_reads() {
        let mut s = String::new();
        write_str("a\"b\\c\nd\te\r", &mut s);
        assert_eq!(s, "\"a\\\"b\\\\c\\nd\\te\r\"");
    }

    #[test]
    fn a_closure_pass_has_no_text() {
        let p =
            super::super::module_pass(super::super::PassInfo::new("Mine", 1), |m, _| Ok(m.clone()));
        let err = pipeline_text(&p).unwrap_err().to_string();
        assert!(err.contains("Mine is a module pass built in Rust"), "{err}");
    }
}
