//! passlab values in Rust notebooks (evcxr, the Rust Jupyter kernel), looking as they do in the
//! REPL and in our own kernel.
//!
//! evcxr shows the value of a cell's last expression through the value's `evcxr_display(&self)`
//! method, when its type has one. The method prints one block per MIME type on standard output,
//!
//! ```text
//! EVCXR_BEGIN_CONTENT text/html
//! <table class="passlab">...</table>
//! EVCXR_END_CONTENT
//! ```
//!
//! and evcxr turns the blocks into the cell's display data (for each MIME type, the last block
//! of the cell wins). [`write_evcxr`] is the one place that writes these blocks: `text/plain`
//! always, then `text/html` when the value has an HTML rendering, to any `io::Write`. The
//! renderings are `present::render`'s: highlighted Relay for modules and
//! expressions, the pipeline tree with the gate's verdict per pass, tables for contexts, timing
//! and stats, the side-by-side table for diffs.
//!
//! With the `evcxr` cargo feature (`:dep passlab = { path = "..", default-features = false,
//! features = ["evcxr"] }`: the library alone, without the binary's REPL and benchmarks),
//! every type here that implements [`NotebookDisplay`] also has an inherent `evcxr_display`
//! method that locks standard output and calls [`write_evcxr`] (`notebook/evcxr.rs`). Without
//! the feature the library never prints.
//!
//! A [`Pass`] has no current context of its own (the Rust API keeps contexts in a
//! [`PassManager`](crate::pass::PassManager), not in a global): it displays as the tree under
//! the default context, `PassContext::default()`, as `show seq` does in a fresh session;
//! `pass.under(&ctx)` (a [`PassTree`]) shows it under another, e.g. `pm.current()`.

#[cfg(feature = "evcxr")]
mod evcxr;

#[cfg(test)]
mod tests;

#[cfg(feature = "evcxr")]
pub use evcxr::print_evcxr;

use crate::instrument::{Instrument, PassTimingInstrument, Stats};
use crate::ir::{Expr, Module};
use crate::pass::{Pass, PassContext};
use crate::present::render::{
    context_rendering, diff_rendering, expr_rendering, instrument_rendering, module_rendering,
    pass_tree_rendering, single_function, stats_rendering, timing_rendering, Front, Rendering,
};
use crate::session::Outputs;
use std::fmt;
use std::io;

/// A value with a notebook rendering: plain text, and HTML when it has more to show.
pub trait NotebookDisplay {
    fn rendering(&self) -> Rendering;
}

/// Writes `value` as evcxr display blocks: `text/plain`, then `text/html` if the value has an
/// HTML rendering. Each block is `EVCXR_BEGIN_CONTENT <mime>\n<content>\nEVCXR_END_CONTENT\n`,
/// the content without its final newline (evcxr joins the lines between the markers).
pub fn write_evcxr<W: io::Write + ?Sized, T: NotebookDisplay + ?Sized>(
    w: &mut W,
    value: &T,
) -> io::Result<()> {
    let r = value.rendering();
    let mut blocks = vec![("text/plain", r.plain)];
    blocks.extend(r.html.map(|h| ("text/html", h)));
    for (mime, content) in blocks {
        let content = content.strip_suffix('\n').unwrap_or(&content);
        write!(
            w,
            "EVCXR_BEGIN_CONTENT {mime}\n{content}\nEVCXR_END_CONTENT\n"
        )?;
    }
    Ok(())
}

/// The evcxr blocks of `value` as a string (what `evcxr_display` prints).
pub fn evcxr_blocks<T: NotebookDisplay + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    write_evcxr(&mut out, value).expect("writing to a Vec<u8> cannot fail");
    String::from_utf8(out).expect("renderings are UTF-8")
}

/// A pipeline shown under a given context: which passes would run and why the others would
/// not. Made by [`Pass::under`].
#[derive(Clone)]
pub struct PassTree {
    pass: Pass,
    context: PassContext,
}

impl Pass {
    /// This pass as a tree under `ctx` (for a notebook cell: `seq.under(&ctx)`, or
    /// `seq.under(pm.current())`).
    pub fn under(&self, ctx: &PassContext) -> PassTree {
        PassTree {
            pass: self.clone(),
            context: ctx.clone(),
        }
    }
}

impl fmt::Display for PassTree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendering().plain)
    }
}

/// The difference between two modules' printed text, as the `diff` command shows it. Made by
/// [`diff`].
#[derive(Clone)]
pub struct ModuleDiff {
    before: Module,
    after: Module,
    labels: (String, String),
    function: Option<String>,
}

/// The diff from `before` to `after` (labelled `before` and `after`; see
/// [`ModuleDiff::labels`] and [`ModuleDiff::function`]).
pub fn diff(before: &Module, after: &Module) -> ModuleDiff {
    ModuleDiff {
        before: before.clone(),
        after: after.clone(),
        labels: ("before".into(), "after".into()),
        function: None,
    }
}

impl ModuleDiff {
    /// Names the two sides in the diff's `---` / `+++` header.
    pub fn labels(mut self, before: &str, after: &str) -> ModuleDiff {
        self.labels = (before.into(), after.into());
        self
    }

    /// Compares only `@name` (as `diff a b @name`); a side without it counts as empty.
    pub fn function(mut self, name: &str) -> ModuleDiff {
        self.function = Some(name.into());
        self
    }

    /// True when both sides print the same.
    pub fn is_empty(&self) -> bool {
        let (a, b) = self.sides();
        crate::text::print_module(&a) == crate::text::print_module(&b)
    }

    fn sides(&self) -> (Module, Module) {
        let pick = |m: &Module| match &self.function {
            Some(f) => m
                .get(f)
                .map(|body| single_function(f, body))
                .unwrap_or_default(),
            None => m.clone(),
        };
        (pick(&self.before), pick(&self.after))
    }
}

impl fmt::Display for ModuleDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.rendering().plain)
    }
}

impl NotebookDisplay for ModuleDiff {
    fn rendering(&self) -> Rendering {
        let (a, b) = self.sides();
        diff_rendering(&a, &self.labels.0, &b, &self.labels.1, Front::NOTEBOOK)
    }
}

impl NotebookDisplay for Module {
    /// The whole module, highlighted (a notebook cell scrolls).
    fn rendering(&self) -> Rendering {
        module_rendering(self, true, Front::NOTEBOOK)
    }
}

impl NotebookDisplay for Expr {
    /// The expression as Relay text; a function prints as `fn (...) { ... }`.
    fn rendering(&self) -> Rendering {
        expr_rendering(self, Front::NOTEBOOK)
    }
}

impl NotebookDisplay for Pass {
    /// The tree under the default context.
    fn rendering(&self) -> Rendering {
        pass_tree_rendering(self, &PassContext::default())
    }
}

impl NotebookDisplay for PassTree {
    fn rendering(&self) -> Rendering {
        pass_tree_rendering(&self.pass, &self.context)
    }
}

impl NotebookDisplay for PassContext {
    fn rendering(&self) -> Rendering {
        context_rendering(self, false, Front::NOTEBOOK)
    }
}

impl NotebookDisplay for PassTimingInstrument {
    /// The records as a table, like the `timing` command.
    fn rendering(&self) -> Rendering {
        timing_rendering(self, &[], Front::NOTEBOOK)
    }
}

impl NotebookDisplay for Stats {
    fn rendering(&self) -> Rendering {
        stats_rendering(self, Front::NOTEBOOK)
    }
}

impl NotebookDisplay for dyn Instrument {
    /// Its name, then its results for timing and stats instruments, like `show`.
    fn rendering(&self) -> Rendering {
        instrument_rendering(self, &[], Front::NOTEBOOK)
    }
}

impl NotebookDisplay for Outputs {
    /// What a [`Session`](crate::session::Session) statement produced, as our Jupyter kernel
    /// would show it.
    fn rendering(&self) -> Rendering {
        Rendering {
            plain: self.plain(),
            ansi: None,
            html: Some(self.html()),
        }
    }
}

impl NotebookDisplay for Rendering {
    fn rendering(&self) -> Rendering {
        self.clone()
    }
}
