//! The Relay text printer, in TVM's conventions (`relay_text_printer.cc`):
//! graph normal form (a non-atomic expression in argument position is bound once to `%N` and
//! referenced afterwards; one `%N` counter for the whole print job; numbers are assigned when
//! the first consumer is printed, arguments left to right before the callee), `let` kept, the
//! tail of a scope and let values inlined when used once, variable names made unique per print
//! job (`%x`, `%x1`), attributes in schema order with defaults omitted, and optional
//! ` /* ty=T */` annotations. Tensors print as `meta[relay.Constant][i]` with a `#[metadata]`
//! section holding their data, so the output parses back to an equal module.
//!
//! Deliberate differences: functions print in module order (TVM sorts by name); floats print
//! with 6 significant digits like TVM *unless* that would lose bits, then with as many as needed.
//!
//! Dataflow is walked iteratively; only nested scopes (functions, `if` branches) recurse, and
//! they grow the stack on demand.

use super::hash_name;
use super::metadata;
use crate::ir::op::is_default;
use crate::ir::TypeKind;
use crate::ir::VarMap;
use crate::ir::*;
use hashbrown::HashTable;
use std::fmt::Write;
use std::io;
use std::sync::Arc;

/// What to print besides the program.
#[derive(Clone, Copy, Debug)]
pub struct PrintOptions {
    /// Append ` /* ty=T */` to nodes whose type is known.
    pub types: bool,
    /// Start with `#[version = "0.0.5"]`.
    pub header: bool,
    /// Append a `#[metadata]` section for tensor constants (needed to parse the data back).
    pub metadata: bool,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions {
            types: true,
            header: true,
            metadata: true,
        }
    }
}

/// Prints a module with the default options.
pub fn print_module(m: &Module) -> String {
    print_module_with(m, PrintOptions::default())
}

/// The printed text of a module would be longer than [`MAX_PRINTED_BYTES`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLarge;

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the printed text would be longer than {} MiB (the printer's limit)",
            MAX_PRINTED_BYTES >> 20
        )
    }
}

impl std::error::Error for TooLarge {}

/// The longest text the printer makes. Text can be far larger than its module (indentation
/// grows with nesting: ifs nested 50,000 deep print 2.4 GB), so printing stops at this
/// length instead of exhausting memory.
pub const MAX_PRINTED_BYTES: usize = 512 << 20;

/// Prints a module. A text over [`MAX_PRINTED_BYTES`] is replaced by a comment saying so:
/// for displays; what must parse back uses [`try_print_module_with`], which fails instead.
pub fn print_module_with(m: &Module, opts: PrintOptions) -> String {
    print_module_capped(m, opts, MAX_PRINTED_BYTES)
}

/// Prints a module, or says that its text would exceed [`MAX_PRINTED_BYTES`].
pub fn try_print_module_with(m: &Module, opts: PrintOptions) -> Result<String, TooLarge> {
    try_print_module_capped(m, opts, MAX_PRINTED_BYTES)
}

fn print_module_capped(m: &Module, opts: PrintOptions, cap: usize) -> String {
    try_print_module_capped(m, opts, cap).unwrap_or_else(|e| format!("/* {e} */\n"))
}

fn try_print_module_capped(m: &Module, opts: PrintOptions, cap: usize) -> Result<String, TooLarge> {
    let mut p = Printer::new(opts);
    p.cap = cap;
    let text = p.module_text(m);
    let out = p.finish(text);
    if p.too_large || out.len() > cap {
        return Err(TooLarge);
    }
    Ok(out)
}

/// Writes a module's text to `w` as it is printed: text is handed to `w` every
/// [`STREAM_BYTES`] or so and at the end of each definition, so memory holds the module and
/// the nested scopes being printed, never the whole text (nested `if`s print far more text
/// than their module: indentation grows with depth). The text is byte for byte
/// [`print_module_with`]'s. A nested scope whose own text passes [`MAX_PRINTED_BYTES`] is an
/// error ([`TooLarge`], as an [`io::Error`] of kind `Other`); what was written stays written.
pub fn write_module(m: &Module, opts: PrintOptions, w: &mut dyn io::Write) -> io::Result<()> {
    let mut p = Printer::new(opts);
    p.cap = MAX_PRINTED_BYTES;
    p.sink = Some(w);
    let mut rest = p.module_text(m);
    p.flush_text(&mut rest);
    if let Some(e) = p.io_error.take() {
        return Err(e);
    }
    if p.too_large {
        return Err(io::Error::other(TooLarge));
    }
    Ok(())
}

/// How much text a streaming print holds before handing it to its writer.
pub const STREAM_BYTES: usize = 1 << 20;

impl Printer<'_> {
    fn module_text(&mut self, m: &Module) -> String {
        let opts = self.opts;
        let p = self;
        let mut out = String::new();
        if opts.header {
            out.push_str("#[version = \"0.0.5\"]\n");
        }
        let mut first = true;
        let mut separate = |out: &mut String| {
            if !std::mem::replace(&mut first, false) {
                out.push('\n');
            }
        };
        for td in &m.type_defs {
            separate(&mut out);
            out.push_str(&print_type_def(td));
            out.push('\n');
        }
        for (g, e) in m.functions() {
            // Each definition is its own scope: a node shared by two functions (the same function
            // bound to two names, say) is printed in each. Temporaries stay numbered per print job.
            p.memo.clear();
            p.parents.clear();
            p.names.clear();
            let nodes = p.count_parents(e);
            // Room for the definition's text up front (a typed let chain prints about 24 bytes
            // a node): a large module's text is not copied again and again as it grows.
            out.reserve(nodes * if opts.types { 24 } else { 12 });
            separate(&mut out);
            // The definition's own scope is the top one: streamed as it grows (see `line`).
            p.top_next = true;
            match e.kind() {
                ExprKind::Function(f) => {
                    let prefix = format!("def @{}", g.name());
                    p.function_into(&mut out, &prefix, f, e.ty().is_some());
                }
                _ => p.scope_into(&mut out, e),
            }
            out.push('\n');
            p.flush_text(&mut out);
            if out.len() > p.cap || p.too_large {
                p.too_large = true;
                break;
            }
        }
        p.append_metadata(&mut out);
        out
    }
}

/// Prints a module for people to read (PrintIR, instruments, `show`): the `#[metadata]`
/// section is replaced by TVM's "omitted" note. `save` and DumpIR keep it.
pub fn print_module_display(m: &Module) -> String {
    print_module_with(
        m,
        PrintOptions {
            metadata: false,
            ..PrintOptions::default()
        },
    )
}

/// Prints one expression (free variables are declared with `free_var`).
pub fn print_expr(e: &Expr, opts: PrintOptions) -> String {
    let mut p = Printer::new(opts);
    let text = p.expr_text(e);
    p.finish(text)
}

impl Printer<'_> {
    fn expr_text(&mut self, e: &Expr) -> String {
        let opts = self.opts;
        let p = self;
        p.count_parents(e);
        let mut out = String::new();
        if opts.header {
            out.push_str("#[version = \"0.0.5\"]\n");
        }
        let body = match e.kind() {
            ExprKind::Function(f) => {
                let text = p.function("fn ", f, e.ty().is_some());
                let text = p.with_type_comment(e, text);
                let mut lines = std::mem::take(&mut p.doc);
                lines.push_str(&text);
                lines
            }
            _ => p.scope(e),
        };
        out.push_str(&body);
        p.append_metadata(&mut out);
        out
    }
}

fn print_type_def(td: &TypeDef) -> String {
    let mut s = format!("type {}", td.name);
    if !td.params.is_empty() {
        s.push('[');
        s.push_str(&td.params.join(", "));
        s.push(']');
    }
    s.push_str(" {\n");
    for (name, fields) in &td.ctors {
        s.push_str("  ");
        s.push_str(name);
        if !fields.is_empty() {
            let fs: Vec<String> = fields.iter().map(|t| t.to_string()).collect();
            let _ = write!(s, "({})", fs.join(", "));
        }
        s.push_str(",\n");
    }
    s.push('}');
    s
}

enum Printed {
    /// Printed text not yet bound to a temporary.
    Raw(String),
    /// Bound to `%N`.
    Bound(String),
    /// Printed inline at its only use; its text is not kept (nested scopes would otherwise keep
    /// every level's full text alive, cubic in the nesting depth).
    Inlined,
}

/// The variable names of one definition: all of them in one string (`%a%b%x1...`), found by
/// variable and by text. Two small tables and no allocation per name, where a map of
/// `String`s and a set of them cost two allocations and two hash tables of owned keys a
/// binder (a million-let chain has a million binders).
#[derive(Default)]
struct VarNames {
    /// Every name, each with its `%`.
    text: String,
    /// Each named variable's name, as a byte range of `text` (with the `%`).
    by_var: VarMap<(u32, u32)>,
    /// The names taken (ranges of `text` without the `%`), hashed by their text.
    taken: HashTable<(u32, u32)>,
    /// For a name given a number (`%x1`, `%x2`), the last number given.
    next_number: rustc_hash::FxHashMap<Box<str>, usize>,
}

impl VarNames {
    fn clear(&mut self) {
        self.text.clear();
        self.by_var.clear();
        self.taken.clear();
        self.next_number.clear();
    }

    fn reserve(&mut self, binders: usize) {
        self.text.reserve(binders * 8);
        self.taken.reserve(binders, |&(a, b)| {
            hash_name(&self.text[a as usize..b as usize])
        });
    }

    fn contains(&self, id: u64) -> bool {
        self.by_var.contains(id)
    }

    fn get(&self, id: u64) -> Option<&str> {
        let &(a, b) = self.by_var.get(id)?;
        Some(&self.text[a as usize..b as usize])
    }

    fn is_taken(&self, name: &str) -> bool {
        let text = &self.text;
        self.taken
            .find(hash_name(name), |&(a, b)| {
                &text[a as usize..b as usize] == name
            })
            .is_some()
    }

    /// Names `v`: its own name, or the name with the first free number appended.
    fn alloc(&mut self, v: &Var) -> &str {
        let start = self.text.len();
        self.text.push('%');
        if !v.name().starts_with(|c: char| c.is_ascii_alphabetic()) {
            self.text.push('v');
        }
        self.text.push_str(v.name());
        let base = self.text.len();
        if self.is_taken(&self.text[start + 1..]) {
            // The first free number: names are never released within a definition, so the
            // numbers below the last one given for this name are all still taken, and the
            // search starts past it (a name shadowed n times costs n, not n^2).
            let name = &self.text[start + 1..base];
            let mut k = self.next_number.get(name).copied().unwrap_or(0);
            loop {
                k += 1;
                self.text.truncate(base);
                let _ = write!(self.text, "{k}");
                if !self.is_taken(&self.text[start + 1..]) {
                    break;
                }
            }
            let name: Box<str> = self.text[start + 1..base].into();
            self.next_number.insert(name, k);
        }
        let end = self.text.len();
        let (a, b) = (start as u32 + 1, end as u32);
        let text = &self.text;
        self.taken
            .insert_unique(hash_name(&text[start + 1..]), (a, b), |&(a, b)| {
                hash_name(&text[a as usize..b as usize])
            });
        self.by_var.insert(v.id(), (start as u32, end as u32));
        &self.text[start..end]
    }
}

struct Printer<'w> {
    opts: PrintOptions,
    memo: crate::ir::NodeMap<Printed>,
    /// Parent edges of the nodes that had more than one reference when counted (a node with
    /// one reference has at most one parent).
    parents: crate::ir::NodeMap<u32>,
    names: VarNames,
    temp: usize,
    /// Lines of the scope being printed, each indented to `depth` and ended by `\n`.
    doc: String,
    /// Nesting depth of the scope being printed (two spaces of indentation each).
    depth: usize,
    /// Tensor constants written to the metadata section, by node.
    meta_index: crate::ir::NodeMap<usize>,
    meta_data: Vec<Option<Arc<TensorData>>>,
    reserved_meta: usize,
    /// The longest text to make (and to hold, in chunks); past it `too_large` is set and
    /// lines are dropped.
    cap: usize,
    /// Bytes of chunk text held: made and not yet written (see [`Printer::chunks`]).
    held: usize,
    too_large: bool,
    /// Texts of nested scopes (function literals, `if`s and `let`s printed apart), each
    /// written once here and referred to from the text around it by a marked index (see
    /// [`Printer::chunk`]), so that the enclosing texts copy a few bytes instead of every
    /// nested level's whole text (functions nested n deep would cost n times their output).
    /// [`splice`] writes them in, taking each (`None` once written).
    /// Each chunk is printed as if at depth 0 and kept with the depth it belongs at, which
    /// [`splice`] adds to its lines: a scope nested n deep holds its own text, not n levels of
    /// indentation a line (which made nested `if`s hold text quadratic in their depth).
    chunks: Vec<Option<(String, usize)>>,
    /// The start of every chunk reference: NUL and this print job's random 16 hex digits.
    /// Program text cannot forge it (it would have to guess the digits), so a NUL in a
    /// string attribute or a name is copied like any other character.
    mark: String,
    /// Where a streaming print ([`write_module`]) writes; `None` when printing to a string.
    sink: Option<&'w mut dyn io::Write>,
    io_error: Option<io::Error>,
    /// `doc` holds the text of a definition's top scope (and everything printed before it),
    /// which a streaming print hands to `sink` as it grows; nested scopes' texts are kept
    /// until their enclosing text is written.
    top_doc: bool,
    /// The next [`Printer::scope_into`] prints a definition's top scope.
    top_next: bool,
}

/// Ends a chunk reference (after the mark and the chunk's index).
const MARK_END: char = '\u{0}';

/// Spaces for indentation, copied a slice at a time.
const SPACES: &str = "                                                                ";

/// Writes `text` to `emit` with every chunk reference (`mark`, decimal index, NUL) replaced
/// by the chunk's text, recursively, each chunk's lines after its first indented by its depth
/// (plus the depth of the chunk it is in), taking each chunk as it is written. A reference
/// that does not name an unwritten chunk is copied as text. Stops when `emit` returns false;
/// returns whether it ran to the end. The bytes of the chunks taken are added to `taken`.
fn splice(
    text: &str,
    chunks: &mut [Option<(String, usize)>],
    mark: &str,
    taken: &mut usize,
    emit: &mut dyn FnMut(&str) -> bool,
) -> bool {
    let finder = memchr::memmem::Finder::new(mark.as_bytes());
    // Writes `s` with `depth` levels of indentation after each newline.
    let indented = |s: &str, depth: usize, emit: &mut dyn FnMut(&str) -> bool| {
        if depth == 0 {
            return emit(s);
        }
        let mut lines = s.split('\n');
        let first = lines.next().unwrap_or("");
        if !emit(first) {
            return false;
        }
        for line in lines {
            if !emit("\n") {
                return false;
            }
            let mut n = 2 * depth;
            while n > 0 {
                let k = n.min(SPACES.len());
                if !emit(&SPACES[..k]) {
                    return false;
                }
                n -= k;
            }
            if !emit(line) {
                return false;
            }
        }
        true
    };
    // Texts being copied, each from a position on, with its depth: the chunks nest as deep
    // as the scopes.
    let mut stack: Vec<(std::borrow::Cow<'_, str>, usize, usize)> = vec![(text.into(), 0, 0)];
    while let Some((t, at, depth)) = stack.pop() {
        let rest = &t[at..];
        let Some(k) = finder.find(rest.as_bytes()) else {
            if !indented(rest, depth, emit) {
                return false;
            }
            continue;
        };
        if !indented(&rest[..k], depth, emit) {
            return false;
        }
        let after = &rest[k + mark.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        let chunk = after[digits..]
            .starts_with(MARK_END)
            .then(|| after[..digits].parse::<usize>().ok())
            .flatten()
            .and_then(|index| chunks.get_mut(index))
            .and_then(Option::take);
        match chunk {
            Some((chunk, base)) => {
                *taken += chunk.len();
                let next = at + k + mark.len() + digits + MARK_END.len_utf8();
                stack.push((t, next, depth));
                stack.push((chunk.into(), 0, depth + base));
            }
            None => {
                debug_assert!(false, "a chunk reference names no unwritten chunk");
                if !emit(mark) {
                    return false;
                }
                stack.push((t, at + k + mark.len(), depth));
            }
        }
    }
    true
}

fn always_inline(e: &Expr) -> bool {
    matches!(
        e.kind(),
        ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Constant(_)
            | ExprKind::Op(_)
            | ExprKind::Constructor(_)
    )
}

impl Printer<'_> {
    fn new(opts: PrintOptions) -> Self {
        Printer {
            opts,
            memo: Default::default(),
            parents: Default::default(),
            names: VarNames::default(),
            temp: 0,
            doc: String::new(),
            depth: 0,
            meta_index: Default::default(),
            meta_data: Vec::new(),
            reserved_meta: 0,
            cap: usize::MAX,
            held: 0,
            too_large: false,
            chunks: Vec::new(),
            mark: {
                use std::hash::{BuildHasher, Hasher};
                let nonce = std::collections::hash_map::RandomState::new()
                    .build_hasher()
                    .finish();
                format!("{MARK_END}{nonce:016x}")
            },
            sink: None,
            io_error: None,
            top_doc: false,
            top_next: false,
        }
    }

    /// Hands `text` (with its chunks spliced in) to the streaming sink and clears it; nothing
    /// when printing to a string. A write error stops the print (`too_large` drops the rest).
    fn flush_text(&mut self, text: &mut String) {
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        if self.io_error.is_none() && !self.too_large {
            let mut error = None;
            let mut taken = 0;
            splice(
                text,
                &mut self.chunks,
                &self.mark,
                &mut taken,
                &mut |s| match sink.write_all(s.as_bytes()) {
                    Ok(()) => true,
                    Err(e) => {
                        error = Some(e);
                        false
                    }
                },
            );
            // What was written is no longer held: the cap is on what a print holds at once.
            self.held -= taken.min(self.held);
            if error.is_some() {
                self.io_error = error;
                self.too_large = true;
            }
        }
        text.clear();
    }

    /// Counts parent edges of every node (for "used once" inlining) and reserves the meta
    /// indices of opaque constants.
    /// Returns the number of distinct nodes (to size the output).
    fn count_parents(&mut self, root: &Expr) -> usize {
        let parents = &mut self.parents;
        let reserved = &mut self.reserved_meta;
        let mut binders = 0;
        let mut nodes = 0usize;
        visit::post_order(root, |e| {
            nodes += 1;
            match e.kind() {
                ExprKind::Let(_) => binders += 1,
                ExprKind::Function(f) => binders += f.params.len(),
                _ => {}
            }
            e.kind().for_each_child(|c| {
                if c.is_shared() {
                    *parents.entry(c.id()).or_insert(0) += 1
                }
            });
            if let ExprKind::Constant(c) = e.kind() {
                if let Constant {
                    meta_index: Some(i),
                    data: None,
                    ..
                } = **c
                {
                    *reserved = (*reserved).max(i + 1);
                }
            }
        });
        self.names.reserve(binders);
        nodes
    }

    fn unique(&self, e: &Expr) -> bool {
        self.parents.is_empty() || self.parents.get(&e.id()).copied().unwrap_or(0) <= 1
    }

    /// Names `v` (`%x`, or `%x1` when `%x` is taken) and returns the name.
    fn alloc_var(&mut self, v: &Var) -> &str {
        self.names.alloc(v)
    }

    /// A binder, `%x: T` (with ` /* ty=T */` when its binding site has been type-checked),
    /// appended to `out`.
    fn binder_into(&mut self, out: &mut String, v: &Var, typed: bool) {
        out.push_str(self.alloc_var(v));
        if let Some(vd) = &v.virtual_device {
            let _ = write!(out, " {{virtual_device={}}}", attr_value_to_string(vd));
        }
        if let Some(t) = v.ann() {
            out.push_str(": ");
            push_type(out, t);
            if self.opts.types && typed {
                out.push_str(" /* ty=");
                push_type(out, t);
                out.push_str(" */");
            }
        }
    }

    fn with_type_comment(&self, e: &Expr, mut text: String) -> String {
        self.push_type_comment(&mut text, e);
        text
    }

    fn push_type_comment(&self, out: &mut String, e: &Expr) {
        if self.opts.types {
            if let Some(t) = e.ty() {
                if !matches!(
                    e.kind(),
                    ExprKind::Var(_)
                        | ExprKind::Op(_)
                        | ExprKind::GlobalVar(_)
                        | ExprKind::Constructor(_)
                ) && !t.is_incomplete()
                {
                    out.push_str(" /* ty=");
                    push_type(out, t);
                    out.push_str(" */");
                }
            }
        }
    }

    /// Starts a line of the current scope (its indentation) and returns the buffer.
    fn line(&mut self) -> &mut String {
        if self.top_doc && self.sink.is_some() && self.doc.len() >= STREAM_BYTES {
            let mut doc = std::mem::take(&mut self.doc);
            self.flush_text(&mut doc);
            self.doc = doc;
        }
        if self.doc.len() > self.cap {
            // Over the limit: the text is not returned; keep memory bounded until the end.
            self.too_large = true;
        }
        if self.too_large {
            self.doc.clear();
        }
        let mut n = 2 * self.depth;
        while n > 0 {
            let k = n.min(SPACES.len());
            self.doc.push_str(&SPACES[..k]);
            n -= k;
        }
        &mut self.doc
    }

    /// The indentation of the current depth (for a closing brace).
    fn indentation(&self) -> String {
        "  ".repeat(self.depth)
    }

    /// Prints a scope at the current depth: its bindings, then its value, every line indented
    /// (no newline after the last).
    fn scope(&mut self, e: &Expr) -> String {
        let mut out = String::new();
        self.scope_into(&mut out, e);
        out
    }

    /// [`Printer::scope`], appended to `out` (the scope's lines are written there directly).
    fn scope_into(&mut self, out: &mut String, e: &Expr) {
        let top = std::mem::take(&mut self.top_next);
        let saved_top = std::mem::replace(&mut self.top_doc, top);
        let saved = std::mem::replace(&mut self.doc, std::mem::take(out));
        self.tail_into(e);
        *out = std::mem::replace(&mut self.doc, saved);
        self.top_doc = saved_top;
    }

    /// Writes a scope's lines and its value's line (without a final newline) into `doc`.
    /// An `if` printed inline as the value is written in place, its branches' lines straight
    /// into `doc` one level deeper: nested `if`s cost their output, not a copy per level.
    fn tail_into(&mut self, e: &Expr) {
        let value = self.tail(e);
        if let ExprKind::Function(f) = value.kind() {
            self.line();
            if !self.function_in_place(value, f) {
                let text = self.text(value, true);
                self.doc.push_str(&text);
            }
            return;
        }
        let ExprKind::If(i) = value.kind() else {
            let text = self.text(value, true);
            self.line().push_str(&text);
            return;
        };
        if !self.unique(value) || self.memo.contains_key(&value.id()) {
            let text = self.text(value, true);
            self.line().push_str(&text);
            return;
        }
        if value.is_shared() {
            self.memo.insert(value.id(), Printed::Inlined);
        }
        // TVM binds a condition that is not an atom (`%0 = equal(%n, 0); if (%0) {`).
        let cond = self.text(&i.cond, false);
        let line = self.line();
        line.push_str("if (");
        line.push_str(&cond);
        line.push_str(") {\n");
        stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, || {
            self.depth += 1;
            self.tail_into(&i.then_branch);
            self.doc.push('\n');
            self.depth -= 1;
            self.line().push_str("} else {\n");
            self.depth += 1;
            self.tail_into(&i.else_branch);
            self.doc.push('\n');
            self.depth -= 1;
        });
        self.line().push('}');
        let mut comment = String::new();
        self.push_type_comment(&mut comment, value);
        self.doc.push_str(&comment);
    }

    /// The text `print` makes, printed apart at depth 0 (on a stack grown on demand), as it
    /// goes into the text around it: a reference to it, kept apart with the current depth
    /// (see [`Printer::chunks`]).
    fn apart(&mut self, print: impl FnOnce(&mut Self) -> String) -> String {
        let depth = std::mem::replace(&mut self.depth, 0);
        let text = crate::ir::deep(|| print(self));
        self.depth = depth;
        self.held += text.len();
        if self.held > self.cap {
            self.too_large = true;
        }
        self.chunks.push(Some((text, depth)));
        format!("{}{}{MARK_END}", self.mark, self.chunks.len() - 1)
    }

    /// The final text: `text` with every chunk spliced in where it is referred to. Over the
    /// cap, `too_large` is set and the rest left out.
    fn finish(&mut self, text: String) -> String {
        if self.chunks.is_empty() {
            return text;
        }
        let mut out = String::with_capacity(
            text.len()
                + self
                    .chunks
                    .iter()
                    .flatten()
                    .map(|c| c.0.len())
                    .sum::<usize>(),
        );
        let cap = self.cap;
        let mut taken = 0;
        let whole = splice(&text, &mut self.chunks, &self.mark, &mut taken, &mut |s| {
            out.push_str(s);
            out.len() <= cap
        });
        if !whole {
            self.too_large = true;
        }
        debug_assert!(
            !whole || self.chunks.iter().all(Option::is_none),
            "every chunk is referred to"
        );
        out
    }

    /// Whether the function literal `e` is printed where it is used (used once, not printed
    /// before), so that [`Printer::function_in_place`] may write it.
    fn function_in_place_ok(&self, e: &Expr) -> bool {
        self.unique(e) && !self.memo.contains_key(&e.id())
    }

    /// Writes the function literal `e` (whose kind is `f`) at the end of `doc`, its body's
    /// lines straight into `doc` one level deeper, then its type comment: the text
    /// [`Printer::text`] would give it inlined, without building it apart and copying it (a
    /// copy a level would make functions nested n deep cost n times their output). False,
    /// with nothing written, when `e` is not printed in place.
    fn function_in_place(&mut self, e: &Expr, f: &Function) -> bool {
        if !self.function_in_place_ok(e) {
            return false;
        }
        if e.is_shared() {
            self.memo.insert(e.id(), Printed::Inlined);
        }
        crate::ir::deep(|| {
            let mut head = String::new();
            self.function_head(&mut head, "fn ", f, e.ty().is_some());
            self.doc.push_str(&head);
            self.doc.push_str(" {\n");
            self.depth += 1;
            self.tail_into(&f.body);
            self.depth -= 1;
            self.doc.push('\n');
            self.line().push('}');
        });
        let mut comment = String::new();
        self.push_type_comment(&mut comment, e);
        self.doc.push_str(&comment);
        true
    }

    /// [`Printer::scope`] one level deeper.
    fn nested_scope(&mut self, e: &Expr) -> String {
        self.depth += 1;
        let s = self.scope(e);
        self.depth -= 1;
        s
    }

    /// Writes the `let` lines of a scope's let chain, iteratively; returns the scope's value.
    fn tail<'e>(&mut self, e: &'e Expr) -> &'e Expr {
        let mut cur = e;
        let (mut name, mut value) = (String::new(), String::new());
        while let ExprKind::Let(l) = cur.kind() {
            if self.memo.contains_key(&cur.id()) {
                break;
            }
            // Named before its value is printed (the value's temporaries come after it).
            name.clear();
            self.binder_into(&mut name, &l.var, cur.ty().is_some());
            if let ExprKind::Function(f) = l.value.kind() {
                // A function value's text holds its whole body: written in place (below), not
                // built apart and copied, so that functions nested n deep cost their output.
                if self.function_in_place_ok(&l.value) {
                    let line = self.line();
                    line.push_str("let ");
                    line.push_str(&name);
                    line.push_str(" = ");
                    self.function_in_place(&l.value, f);
                    self.doc.push_str(";\n");
                    cur = &l.body;
                    continue;
                }
            }
            value.clear();
            self.push_text(&mut value, &l.value, true);
            let line = self.line();
            line.push_str("let ");
            line.push_str(&name);
            line.push_str(" = ");
            line.push_str(&value);
            line.push_str(";\n");
            cur = &l.body;
        }
        cur
    }

    /// Appends the text of `e` where it is used (see [`Printer::text`]).
    fn push_text(&mut self, out: &mut String, e: &Expr, try_inline: bool) {
        if always_inline(e) {
            return self.push_atom(out, e);
        }
        // The common case of a let value or an inlined argument: a node used once whose
        // children are atoms is written in place, without the memo.
        if try_inline && self.unique(e) && !self.memo.contains_key(&e.id()) && children_are_atoms(e)
        {
            self.visit_into(out, e);
            self.push_type_comment(out, e);
            return;
        }
        let text = self.text(e, try_inline);
        out.push_str(&text);
    }

    /// The text of `e` where it is used: inline when atomic (or used once and `try_inline`),
    /// else bound to a temporary on first use.
    fn text(&mut self, e: &Expr, try_inline: bool) -> String {
        if always_inline(e) {
            return self.atom(e);
        }
        self.visit_dataflow(e);
        match self.memo.get(&e.id()) {
            Some(Printed::Bound(t)) => t.clone(),
            Some(Printed::Raw(_)) if try_inline && self.unique(e) => {
                // A node with one reference cannot be reached again: forget it (keeping the
                // memo small); a shared one is marked.
                let entry = if e.is_shared() {
                    self.memo.insert(e.id(), Printed::Inlined)
                } else {
                    self.memo.remove(&e.id())
                };
                match entry {
                    Some(Printed::Raw(text)) => text,
                    _ => unreachable!("checked above"),
                }
            }
            Some(Printed::Inlined) => {
                // Only reachable for a node with one parent printed twice, which the printer
                // never does; print it again rather than lose it.
                self.memo.remove(&e.id());
                self.text(e, try_inline)
            }
            Some(Printed::Raw(_)) => {
                let Some(Printed::Raw(text)) = self.memo.remove(&e.id()) else {
                    unreachable!("checked above")
                };
                let t = format!("%{}", self.temp);
                self.temp += 1;
                let line = self.line();
                line.push_str(&t);
                line.push_str(" = ");
                line.push_str(&text);
                line.push_str(";\n");
                self.memo.insert(e.id(), Printed::Bound(t.clone()));
                t
            }
            None => unreachable!("visit_dataflow memoizes its root"),
        }
    }

    /// Post-order over the dataflow part under `root` (calls, tuples, projections), computing
    /// each node's text once. Functions, ifs and lets are leaves here.
    fn visit_dataflow(&mut self, root: &Expr) {
        if self.memo.contains_key(&root.id()) {
            return;
        }
        let mut stack: Vec<(Expr, bool)> = vec![(root.clone(), false)];
        while let Some((e, expanded)) = stack.pop() {
            if self.memo.contains_key(&e.id()) || always_inline(&e) {
                continue;
            }
            if expanded {
                let text = self.visit(&e);
                let text = self.with_type_comment(&e, text);
                self.memo.insert(e.id(), Printed::Raw(text));
                continue;
            }
            stack.push((e.clone(), true));
            let mut kids: Vec<Expr> = Vec::new();
            match e.kind() {
                ExprKind::Call(c) => {
                    kids.push(c.callee.clone());
                    kids.extend(c.args.iter().cloned());
                }
                ExprKind::Tuple(fs) => kids.extend(fs.iter().cloned()),
                ExprKind::TupleGetItem(t, _) => kids.push(t.clone()),
                ExprKind::RefNew(_) | ExprKind::RefRead(_) | ExprKind::RefWrite(..) => {
                    e.kind().for_each_child(|c| kids.push(c.clone()))
                }
                _ => {}
            }
            for k in kids.into_iter().rev() {
                if !self.memo.contains_key(&k.id()) && !always_inline(&k) {
                    stack.push((k, false));
                }
            }
        }
    }

    /// The text of one node whose children have been visited.
    fn visit(&mut self, e: &Expr) -> String {
        let mut out = String::new();
        self.visit_into(&mut out, e);
        out
    }

    /// Appends the text of one node whose children have been visited.
    fn visit_into(&mut self, out: &mut String, e: &Expr) {
        match e.kind() {
            ExprKind::Call(c) => {
                // Arguments are printed before the callee (temporaries are numbered in that
                // order); a callee whose text has no side effects can be written first.
                if c.args.is_empty() && c.attrs.is_empty() {
                    if let ExprKind::Constructor(ctor) = c.callee.kind() {
                        // A constructor without fields is printed as its value (as TVM does).
                        out.push_str(&ctor.name);
                        return;
                    }
                }
                let callee_first = match c.callee.kind() {
                    ExprKind::Op(_) | ExprKind::GlobalVar(_) | ExprKind::Constructor(_) => true,
                    ExprKind::Var(v) => self.names.contains(v.id()),
                    _ => false,
                };
                let mut args = String::new();
                let dest = if callee_first {
                    self.push_text(out, &c.callee, false);
                    out.push('(');
                    &mut *out
                } else {
                    &mut args
                };
                for (k, a) in c.args.iter().enumerate() {
                    if k > 0 {
                        dest.push_str(", ");
                    }
                    self.push_text(dest, a, false);
                }
                let mut first = c.args.is_empty();
                self.push_attrs(dest, c, &mut first);
                if !callee_first {
                    self.push_text(out, &c.callee, false);
                    out.push('(');
                    out.push_str(&args);
                }
                out.push(')');
            }
            kind => {
                let text = self.visit_other(e, kind);
                out.push_str(&text);
            }
        }
    }

    fn visit_other(&mut self, e: &Expr, kind: &ExprKind) -> String {
        match kind {
            ExprKind::Call(_) => unreachable!("visit_into prints calls"),
            ExprKind::Tuple(fs) => {
                let fields: Vec<String> = fs.iter().map(|f| self.text(f, false)).collect();
                if fields.len() == 1 {
                    format!("({},)", fields[0])
                } else {
                    format!("({})", fields.join(", "))
                }
            }
            ExprKind::TupleGetItem(t, i) => format!("{}.{i}", self.text(t, false)),
            ExprKind::Function(f) => self.apart(|p| p.function("fn ", f, e.ty().is_some())),
            ExprKind::If(i) => {
                // The condition's temporaries are lines of the scope around the `if`.
                let cond = crate::ir::deep(|| self.text(&i.cond, false));
                self.apart(|p| {
                    let t = p.nested_scope(&i.then_branch);
                    let f = p.nested_scope(&i.else_branch);
                    format!("if ({cond}) {{\n{t}\n}} else {{\n{f}\n}}")
                })
            }
            ExprKind::Let(_) => self.apart(|p| {
                let body = p.nested_scope(e);
                format!("(\n{body}\n)")
            }),
            ExprKind::RefNew(x) => format!("ref({})", self.text(x, false)),
            ExprKind::RefRead(x) => format!("ref_read({})", self.text(x, false)),
            ExprKind::RefWrite(r, v) => {
                let r = self.text(r, false);
                let v = self.text(v, false);
                format!("ref_write({r}, {v})")
            }
            ExprKind::Match(m) => {
                // The scrutinee's temporaries are lines of the scope around the `match`.
                let data = crate::ir::deep(|| self.text(&m.data, false));
                self.apart(|p| p.match_text(m, &data))
            }
            _ => self.atom(e),
        }
    }

    /// `match (data) {\n  pattern => rhs,\n}` (`match?` when incomplete). A clause whose
    /// body needs more than one line is braced.
    fn match_text(&mut self, m: &crate::ir::Match, data: &str) -> String {
        let q = if m.complete { "" } else { "?" };
        let ind = self.indentation();
        let mut out = format!("match{q} ({data}) {{");
        for c in &m.clauses {
            let mut pat = String::new();
            self.pattern_into(&mut pat, &c.pattern);
            self.depth += 2;
            let body = self.scope(&c.rhs);
            self.depth -= 2;
            let _ = write!(out, "\n{ind}  {pat} => ");
            if body.contains('\n') {
                let _ = write!(out, "{{\n{body}\n{ind}  }},");
            } else {
                out.push_str(body.trim_start());
                out.push(',');
            }
        }
        let _ = write!(out, "\n{ind}}}");
        out
    }

    /// A pattern; its variables are named here (before the clause body uses them).
    fn pattern_into(&mut self, out: &mut String, p: &crate::ir::Pattern) {
        use crate::ir::Pattern;
        let list = |this: &mut Self, out: &mut String, ps: &[Pattern]| {
            out.push('(');
            for (i, q) in ps.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                this.pattern_into(out, q);
            }
            out.push(')');
        };
        match p {
            Pattern::Wildcard => out.push('_'),
            Pattern::Var(v) => self.binder_into(out, v, false),
            Pattern::Ctor(c, ps) => {
                out.push_str(&c.name);
                if !ps.is_empty() {
                    list(self, out, ps);
                }
            }
            Pattern::Tuple(ps) => list(self, out, ps),
        }
    }

    fn atom(&mut self, e: &Expr) -> String {
        let mut out = String::new();
        self.push_atom(&mut out, e);
        out
    }

    fn push_atom(&mut self, out: &mut String, e: &Expr) {
        match e.kind() {
            ExprKind::Var(v) => {
                if self.names.get(v.id()).is_none() {
                    // A free variable: declare it where it is first used.
                    let mut decl = self.alloc_var(v).to_string();
                    if let Some(t) = v.ann() {
                        let _ = write!(decl, ": {t}");
                    }
                    let line = self.line();
                    line.push_str("free_var ");
                    line.push_str(&decl);
                    line.push_str(";\n");
                }
                out.push_str(self.names.get(v.id()).expect("named above"));
            }
            ExprKind::GlobalVar(g) => {
                out.push('@');
                out.push_str(g.name());
            }
            ExprKind::Op(op) => out.push_str(op.name()),
            ExprKind::Constructor(c) => out.push_str(&c.name),
            ExprKind::Constant(c) => {
                self.push_constant(out, e, c);
                match (&c.data, &c.ty) {
                    // An opaque constant's type lives only in this comment: always print it.
                    (None, Some(t)) if !(self.opts.types && e.ty().is_some()) => {
                        let _ = write!(out, " /* ty={t} */");
                    }
                    _ => self.push_type_comment(out, e),
                }
            }
            _ => unreachable!("atom() is only called on atomic nodes"),
        }
    }

    /// A constant's text: a scalar literal, or its `meta[relay.Constant][i]` reference.
    fn push_constant(&mut self, out: &mut String, e: &Expr, c: &Constant) {
        let Some(data) = &c.data else {
            let _ = write!(out, "meta[relay.Constant][{}]", c.meta_index.unwrap_or(0));
            return;
        };
        if push_scalar_literal(out, data) {
            return;
        }
        let idx = match self.meta_index.get(&e.id()) {
            Some(i) => *i,
            None => {
                let i = self.reserved_meta + self.meta_data.len();
                self.meta_data.push(Some(data.clone()));
                self.meta_index.insert(e.id(), i);
                i
            }
        };
        let _ = write!(out, "meta[relay.Constant][{idx}]");
    }

    /// Appends `, k=v` for each attribute not at its default (no comma before the first
    /// item of the list when `first`).
    fn push_attrs(&self, out: &mut String, c: &Call, first: &mut bool) {
        let (schema, keyed) = match c.callee.kind() {
            ExprKind::Op(op) => (op.schema_of(&c.attrs), op.attrs_type_key.is_none()),
            _ => (None, true),
        };
        let mut sep = |out: &mut String| {
            if !std::mem::replace(first, false) {
                out.push_str(", ");
            }
        };
        for (k, v) in c.attrs.fields() {
            if let Some(s) = schema {
                if is_default(s, k, v) {
                    continue;
                }
            }
            sep(out);
            out.push_str(k);
            out.push('=');
            push_attr_value(out, v);
        }
        if keyed {
            if let Some(key) = c.attrs.type_key() {
                sep(out);
                out.push_str("attrs_type_key=");
                push_quoted(out, key);
            }
        }
    }

    /// `prefix(params, attrs) -> R {\n  body\n}`.
    fn function(&mut self, prefix: &str, f: &Function, typed: bool) -> String {
        let mut out = String::new();
        self.function_into(&mut out, prefix, f, typed);
        out
    }

    /// [`Printer::function`], appended to `out`.
    fn function_into(&mut self, out: &mut String, prefix: &str, f: &Function, typed: bool) {
        self.function_head(out, prefix, f, typed);
        out.push_str(" {\n");
        self.depth += 1;
        self.scope_into(out, &f.body);
        self.depth -= 1;
        out.push('\n');
        out.push_str(&self.indentation());
        out.push('}');
    }

    /// `prefix(params, attrs) -> ret`, appended to `out`.
    fn function_head(&mut self, out: &mut String, prefix: &str, f: &Function, typed: bool) {
        out.push_str(prefix);
        if !f.type_params.is_empty() {
            out.push('[');
            for (n, t) in f.type_params.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                out.push_str(t.name());
            }
            out.push(']');
        }
        out.push('(');
        for (n, p) in f.params.iter().enumerate() {
            if n > 0 {
                out.push_str(", ");
            }
            self.binder_into(out, p, typed);
        }
        for (n, (k, v)) in f.attrs.iter().enumerate() {
            if n > 0 || !f.params.is_empty() {
                out.push_str(", ");
            }
            let _ = write!(out, "{k}={}", attr_value_to_string(v));
        }
        out.push(')');
        if let Some(r) = &f.ret_type {
            let _ = write!(out, " -> {r}");
        }
    }

    fn append_metadata(&self, out: &mut String) {
        if self.meta_data.is_empty() {
            return;
        }
        if !self.opts.metadata {
            // TVM's `astext(show_meta_data=False)` note, word for word.
            out.push_str(
                "/* For debugging purposes the metadata section has been omitted.\n * If you would like to see the full metadata section you can set the \n * option to `True` when invoking `astext`. \n */\n",
            );
            return;
        }
        let mut all: Vec<Option<Arc<TensorData>>> = vec![None; self.reserved_meta];
        all.extend(self.meta_data.iter().cloned());
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("#[metadata]\n");
        out.push_str(&metadata::write_constants(&all));
        out.push('\n');
    }
}

/// True when every child of `e` is printed as an atom (so printing `e` cannot recurse).
/// Appends a type's text; a scalar of a common dtype (a let chain's every binder and node)
/// without going through the formatter.
fn push_type(out: &mut String, t: &Type) {
    let name = match t.kind() {
        TypeKind::Tensor(tt) if tt.shape.is_empty() => tt.dtype.static_name(),
        _ => None,
    };
    match name {
        Some(name) => out.push_str(name),
        None => {
            let _ = write!(out, "{t}");
        }
    }
}

fn children_are_atoms(e: &Expr) -> bool {
    let mut all = true;
    e.kind().for_each_child(|c| all &= always_inline(c));
    all
}

/// The literal of a scalar that has one (`1f`, `3i64`, `True`), as the printer writes it.
pub(crate) fn scalar_literal(d: &TensorData) -> Option<String> {
    let mut s = String::new();
    push_scalar_literal(&mut s, d).then_some(s)
}

/// A 0-d constant of a dtype with a literal syntax, as TVM prints it.
/// Appends `d`'s literal when it is a scalar that has one (`1f`, `3i64`, `True`); false (and
/// nothing appended) otherwise. Written in place: every scalar of a printed program comes here.
fn push_scalar_literal(out: &mut String, d: &TensorData) -> bool {
    use crate::ir::dtype::DTypeCode;
    if !d.shape.is_empty() || d.dtype.lanes != 1 {
        return false;
    }
    let (suffix, float_bits) = match (d.dtype.code, d.dtype.bits) {
        (DTypeCode::Bool, _) => {
            out.push_str(if d.get_i64(0) != 0 { "True" } else { "False" });
            return true;
        }
        (DTypeCode::Int, 16) => ("i16", None),
        (DTypeCode::Int, 32) => ("", None),
        (DTypeCode::Int, 64) => ("i64", None),
        (DTypeCode::Float, 16) => ("f16", Some(16)),
        (DTypeCode::Float, 32) => ("f", Some(32)),
        (DTypeCode::Float, 64) => ("f64", Some(64)),
        _ => return false,
    };
    match float_bits {
        None => {
            let _ = write!(out, "{}", d.get_i64(0));
        }
        Some(bits) => {
            if !push_float_text(out, d.get_f64(0), bits) {
                return false;
            }
        }
    }
    out.push_str(suffix);
    true
}

/// Float text that parses back to the same value of the given width: C's `%g` with 6
/// significant digits when that is exact, more digits when needed. NaN has no literal (`None`).
pub fn float_text(v: f64, bits: u8) -> Option<String> {
    let mut s = String::new();
    push_float_text(&mut s, v, bits).then_some(s)
}

/// [`float_text`], appended to `out` (false, and nothing appended, for NaN).
fn push_float_text(out: &mut String, v: f64, bits: u8) -> bool {
    if v.is_nan() {
        return false;
    }
    if v.is_infinite() {
        out.push_str(if v > 0.0 { "inf" } else { "-inf" });
        return true;
    }
    // Integers below 10^6 (exact in every float width up to 2048): `%g` prints their digits.
    if v.fract() == 0.0 && v.abs() < 1e6 && v != 0.0 {
        let _ = write!(out, "{}", v as i64);
        return true;
    }
    let same = |s: &str| -> bool {
        let Ok(p) = s.parse::<f64>() else {
            return false;
        };
        match bits {
            16 => half::f16::from_f64(p) == half::f16::from_f64(v),
            32 => (p as f32) == (v as f32),
            _ => p == v,
        }
    };
    let text = [6usize, 9, 12]
        .into_iter()
        .map(|prec| format_g(v, prec))
        .find(|s| same(s))
        .unwrap_or_else(|| format_g(v, 17));
    out.push_str(&text);
    true
}

/// C's `%.{prec}g`.
pub fn format_g(v: f64, prec: usize) -> String {
    if v == 0.0 {
        return if v.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let sci = format!("{:.*e}", prec - 1, v);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{v:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// `s` as a string literal, appended to `out`.
fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// An attribute value as the text format writes it.
pub fn attr_value_to_string(v: &AttrValue) -> String {
    let mut out = String::new();
    push_attr_value(&mut out, v);
    out
}

/// [`attr_value_to_string`], appended to `out` (every attribute of a printed call comes here:
/// no string per value or per array item).
pub fn push_attr_value(out: &mut String, v: &AttrValue) {
    match v {
        AttrValue::Null => out.push_str("None"),
        AttrValue::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        AttrValue::Int(i, 64) => {
            let _ = write!(out, "{i}i64");
        }
        AttrValue::Int(i, 16) => {
            let _ = write!(out, "{i}i16");
        }
        AttrValue::Int(i, _) => {
            let _ = write!(out, "{i}");
        }
        AttrValue::Float(f) => {
            if push_float_text(out, *f, 64) {
                out.push('f');
            } else {
                out.push_str("nanf");
            }
        }
        AttrValue::Str(s) => push_quoted(out, s),
        AttrValue::Array(items) => {
            out.push('[');
            for (n, item) in items.iter().enumerate() {
                if n > 0 {
                    out.push_str(", ");
                }
                push_attr_value(out, item);
            }
            out.push(']');
        }
        AttrValue::Any => out.push('?'),
        AttrValue::Meta(k, i) => {
            let _ = write!(out, "meta[{k}][{i}]");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g_format_matches_c() {
        assert_eq!(format_g(1e-5, 6), "1e-05");
        assert_eq!(format_g(2e-5, 6), "2e-05");
        assert_eq!(format_g(0.797885, 6), "0.797885");
        assert_eq!(format_g(6.0, 6), "6");
        assert_eq!(format_g(0.5, 6), "0.5");
        assert_eq!(format_g(1234567.0, 6), "1.23457e+06");
        assert_eq!(format_g(100000.0, 6), "100000");
        assert_eq!(float_text(0.044715, 32).unwrap(), "0.044715");
        assert_eq!(float_text(0.1f32 as f64, 32).unwrap(), "0.1");
        assert_eq!(float_text(0.1, 64).unwrap(), "0.1");
        assert_eq!(float_text(1.0 / 3.0, 64).unwrap(), "0.33333333333333331");
    }
}
