//! The Relay text parser (nom). Grammar and semantics follow TVM's parser as described in
//! `shared/reference/RELAY_TEXT.md`: `def`s, graph bindings `%N = e;` (no node is created: a
//! later `%N` *is* `e`, so sharing is preserved), `let`, `if`, tuples and `.N`, `fn` literals,
//! call attributes checked against the op's schema, scalar literals with suffixes, binary
//! operators, comments, `meta[...]` with or without a `#[metadata]` section, `free_var`, ADT
//! type definitions (`type`, `extern type`), type parameters (`def @id[A](%x: A) -> A`),
//! constructors, `match` / `match?` with their patterns, and references (`ref`, `ref_read`,
//! `ref_write`).
//!
//! Differences from TVM, on purpose: graph ids are scoped to one definition and may not be
//! rebound; a repeated `def` is an error; a file that holds a single bare expression becomes
//! `@main`; projections may follow calls (`f(x).0`); the types `ref(T)` and `fn [A](A) -> A`,
//! which TVM prints but cannot parse, are read; a type or constructor is defined before it is
//! used, and a type may not take a constructor's name nor the other way round.
//!
//! Nesting depth is unbounded: let chains and binding sequences are parsed in a loop, and the
//! recursive parts grow the stack on demand (`stacker`).

use super::hash_name;
use super::lexer::*;
use super::metadata::{self, MetaTable};
pub use crate::diagnostic::ParseError;
use crate::ir::op::Op;
use crate::ir::*;
use hashbrown::HashTable;
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;

/// How many consecutive definitions share the parser's equal types (see `ir::sharing`).
const DEFS_PER_EPOCH: usize = 64;

/// Parses a module. `source_name` is used in spans' rendering only.
pub fn parse_module(text: &str, source_name: &str) -> Result<Module, ParseError> {
    parse_module_with_meta(text, source_name, None)
}

/// Parses a module; `extra` supplies `meta[...]` entries appended after the file's own (TVM's
/// `init_meta_table`).
pub fn parse_module_with_meta(
    text: &str,
    source_name: &str,
    extra: Option<&MetaTable>,
) -> Result<Module, ParseError> {
    parse_module_into(text, source_name, extra, None)
}

/// [`parse_module_with_meta`] into a copy of `init` (TVM's `init_module`): the text sees
/// `init`'s functions, types and constructors, and adds its own definitions to them (one
/// defined again is an error, as a duplicate in one text is).
pub fn parse_module_into(
    text: &str,
    source_name: &str,
    extra: Option<&MetaTable>,
    init: Option<&Module>,
) -> Result<Module, ParseError> {
    let (body, meta) = split_metadata(text, extra)?;
    // Offsets are taken in `body`, a prefix of `text`: the same as in the whole text.
    let p = P::new(body, meta);
    let mut m = p.run(body, |i| p.module(i, init))?;
    m.source = Some(Arc::new(SourceFile {
        name: source_name.to_string(),
        text: text.to_string(),
    }));
    Ok(m)
}

/// Parses a single expression (the version header is optional; free variables must be
/// declared with `free_var`).
pub fn parse_expr(text: &str) -> Result<Expr, ParseError> {
    let (body, meta) = split_metadata(text, None)?;
    let p = P::new(body, meta);
    p.run(body, |i| {
        let (i, _) = p.version(i)?;
        let (i, e) = p.expr(i)?;
        let (i, _) = ws(i)?;
        if !i.is_empty() {
            return fail(i, "end of input");
        }
        Ok((i, e))
    })
}

fn split_metadata<'t>(
    text: &'t str,
    extra: Option<&MetaTable>,
) -> Result<(&'t str, MetaTable), ParseError> {
    let (body, mut meta) = match metadata::find_marker(text) {
        Some(at) => {
            let json = &text[at + "#[metadata]".len()..];
            let table = metadata::parse(json).map_err(|message| ParseError {
                message,
                span: Span::new(at, at + 11),
                label: None,
            })?;
            (&text[..at], table)
        }
        None => (text, MetaTable::default()),
    };
    if let Some(extra) = extra {
        meta.constants.extend(extra.constants.iter().cloned());
        for (k, v) in &extra.attrs {
            meta.attrs
                .entry(k.clone())
                .or_default()
                .extend(v.iter().cloned());
        }
    }
    Ok((body, meta))
}

/// Lexical scopes, the local variables in scope: one stack of bindings, and per name the index
/// of its innermost binding (each binding remembers the one it shadows). The index is a table
/// of binding numbers hashed by name (4 bytes an entry, the name compared in `bindings`), not
/// a map keyed by `&str` (24): a million-let chain's table is 10 MB instead of 50.
#[derive(Default)]
struct Scopes<'s> {
    map: HashTable<u32>,
    bindings: Vec<Binding<'s>>,
    /// Where each open frame's bindings start.
    frames: Vec<usize>,
}

struct Binding<'s> {
    name: &'s str,
    expr: Expr,
    shadows: Option<u32>,
}

impl<'s> Scopes<'s> {
    fn reserve(&mut self, n: usize) {
        let bindings = &self.bindings;
        self.map
            .reserve(n, |&i| hash_name(bindings[i as usize].name));
        self.bindings.reserve(n);
    }
    fn push(&mut self) {
        self.frames.push(self.bindings.len());
    }
    fn pop(&mut self) {
        let start = self.frames.pop().unwrap_or(0);
        if start == 0 {
            // The outermost frame: nothing outlives it.
            self.map.clear();
            self.bindings.clear();
            return;
        }
        if self.bindings.len() - start > start {
            // Cheaper to index the bindings that stay than to unwind the ones that go.
            self.bindings.truncate(start);
            self.map.clear();
            let bindings = &self.bindings;
            for (i, b) in bindings.iter().enumerate() {
                let h = hash_name(b.name);
                match self
                    .map
                    .find_mut(h, |&j| bindings[j as usize].name == b.name)
                {
                    Some(j) => *j = i as u32,
                    None => {
                        self.map
                            .insert_unique(h, i as u32, |&j| hash_name(bindings[j as usize].name));
                    }
                }
            }
            return;
        }
        while self.bindings.len() > start {
            let i = self.bindings.len() - 1;
            let (name, shadows) = (self.bindings[i].name, self.bindings[i].shadows);
            let h = hash_name(name);
            if let Ok(entry) = self.map.find_entry(h, |&j| j as usize == i) {
                match shadows {
                    Some(s) => *entry.into_mut() = s,
                    None => {
                        entry.remove();
                    }
                }
            }
            self.bindings.pop();
        }
    }
    fn bind(&mut self, name: &'s str, e: Expr) {
        let index = u32::try_from(self.bindings.len()).expect("fewer than 2^32 bindings");
        let h = hash_name(name);
        let bindings = &self.bindings;
        let shadows = match self.map.find_mut(h, |&j| bindings[j as usize].name == name) {
            Some(j) => Some(std::mem::replace(j, index)),
            None => {
                self.map
                    .insert_unique(h, index, |&j| hash_name(bindings[j as usize].name));
                None
            }
        };
        self.bindings.push(Binding {
            name,
            expr: e,
            shadows,
        });
    }
    fn lookup(&self, name: &str) -> Option<&Expr> {
        let i = *self
            .map
            .find(hash_name(name), |&j| self.bindings[j as usize].name == name)?;
        Some(&self.bindings[i as usize].expr)
    }
    /// The names in scope (for suggestions).
    fn names(&self) -> Vec<&'s str> {
        self.map
            .iter()
            .map(|&i| self.bindings[i as usize].name)
            .collect()
    }
}

struct P<'s> {
    src: &'s str,
    meta: MetaTable,
    scopes: RefCell<Scopes<'s>>,
    /// Graph bindings `%N = ...` by number: numbers are dense from 0, so [`VarMap`]'s vector
    /// window holds them (no hashing); others go to its hash map.
    graph: RefCell<VarMap<Expr>>,
    /// `free_var` declarations (innermost fallback scope).
    free: RefCell<FxHashMap<&'s str, Expr>>,
    /// Globals referenced, with where, to check they are defined.
    globals_used: RefCell<Vec<(String, Span)>>,
    /// ADT constructors defined so far, by name, with their number of fields.
    ctors: RefCell<FxHashMap<String, (Arc<Constructor>, usize)>>,
    /// Type variables in scope (a type definition's or functions' type parameters).
    type_vars: RefCell<Vec<TypeVar>>,
    /// The names of the types defined so far.
    type_names: RefCell<Vec<String>>,
    meta_consts: RefCell<FxHashMap<usize, Expr>>,
    /// Payloads of the scalar literals seen, by (int/float, bits, value bits).
    scalars: RefCell<FxHashMap<(u8, u8, u64), Arc<Constant>>>,
    /// How deep the attribute value being parsed is nested.
    attr_depth: std::cell::Cell<usize>,
}

fn op_expr(name: &str) -> Expr {
    Expr::op(Op::get(name).expect("binary operator ops are registered"))
}

impl<'s> P<'s> {
    fn new(src: &'s str, meta: MetaTable) -> Self {
        // The scope table sized up front from the text (one fast scan), so that a long let
        // chain's table is not rehashed while it grows. Graph bindings need no estimate.
        let lets = memchr::memmem::find_iter(src.as_bytes(), b"let ").count();
        let mut scopes = Scopes::default();
        scopes.reserve(lets);
        P {
            src,
            meta,
            scopes: RefCell::new(scopes),
            graph: RefCell::default(),
            free: RefCell::default(),
            globals_used: RefCell::default(),
            ctors: RefCell::default(),
            type_vars: RefCell::default(),
            type_names: RefCell::default(),
            meta_consts: RefCell::default(),
            scalars: RefCell::default(),
            attr_depth: std::cell::Cell::new(0),
        }
    }

    fn off(&self, i: &str) -> usize {
        self.src.len() - i.len()
    }

    fn span(&self, from: &str, to: &str) -> Span {
        Span::new(self.off(from), self.off(to))
    }

    fn run<T>(&self, input: &'s str, f: impl FnOnce(&'s str) -> R<'s, T>) -> Result<T, ParseError> {
        match f(input) {
            Ok((_, v)) => Ok(v),
            Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(self.to_error(e)),
            Err(nom::Err::Incomplete(_)) => Err(ParseError {
                message: "unexpected end of input".into(),
                span: Span::new(self.src.len(), self.src.len()),
                label: None,
            }),
        }
    }

    fn to_error(&self, e: PErr<'_>) -> ParseError {
        let at = self.off(e.input);
        let len = e.len.max(1).min(self.src.len().saturating_sub(at));
        let span = Span::new(at, at + len);
        if let Some(message) = e.message {
            return ParseError {
                message,
                span,
                label: e.label,
            };
        }
        let found = describe(e.input);
        let what = e.expected_text(super::lexer::kind_text);
        let tok_len = token_len(e.input);
        ParseError {
            message: format!("expected {what}, found {found}"),
            span: Span::new(at, at + tok_len.max(1).min(self.src.len() - at)),
            label: Some(format!("expected {what}")),
        }
    }

    // ----- module level -------------------------------------------------------------------

    fn version(&self, i: &'s str) -> R<'s, ()> {
        let (i, _) = ws(i)?;
        let Some(r) = i.strip_prefix("#[") else {
            return Ok((i, ()));
        };
        let Some(end) = r.find(']') else {
            return fatal(i, 2, "unterminated `#[...]` header");
        };
        let inner = r[..end].trim();
        let Some(v) = inner.strip_prefix("version") else {
            return fatal(i, end + 3, "expected `#[version = \"0.0.5\"]`");
        };
        let v = v.trim_start().trim_start_matches('=').trim();
        if v != "\"0.0.5\"" {
            return fatal(
                i,
                end + 3,
                format!("unsupported text format version {v} (passlab reads \"0.0.5\")"),
            );
        }
        Ok((&r[end + 1..], ()))
    }

    fn module(&self, i: &'s str, init: Option<&Module>) -> R<'s, Module> {
        let (mut i, _) = self.version(i)?;
        let mut m = Module::new();
        if let Some(init) = init {
            m = init.clone();
            m.source = None;
            for td in &init.type_defs {
                self.type_names.borrow_mut().push(td.name.to_string());
                for (tag, (c, fields)) in td.ctors.iter().enumerate() {
                    let ctor = Arc::new(Constructor {
                        name: c.clone(),
                        adt: td.name.clone(),
                        tag: tag as u32,
                    });
                    self.ctors
                        .borrow_mut()
                        .insert(c.to_string(), (ctor, fields.len()));
                }
            }
        }
        loop {
            let (r, _) = ws(i)?;
            if r.is_empty() {
                break;
            }
            if keyword("def")(r).is_ok() {
                if m.len().is_multiple_of(DEFS_PER_EPOCH) {
                    // Equal types are shared within a block of definitions, not across the
                    // module: threads that run a pass on different functions then do not
                    // write the same reference counts (see `ir::sharing`).
                    crate::ir::sharing::begin();
                }
                let (r2, _) = keyword("def")(r)?;
                let (r2, _) = ws(r2)?;
                let name_at = r2;
                let (r2, name) = global(r2)?;
                self.graph.borrow_mut().clear();
                let (r2, f) = self.func_def(r2, name_at)?;
                if m.contains(name) {
                    return fatal(name_at, name.len() + 1, format!("@{name} is defined twice"));
                }
                m.add(name, f).expect("a function");
                i = r2;
            } else if keyword("type")(r).is_ok() || keyword("extern")(r).is_ok() {
                // `extern type T[A]`: a type without constructors (TVM's parser builds the
                // same definition as `type T[A] {}`).
                let is_extern = keyword("extern")(r).is_ok();
                let r1 = if is_extern {
                    keyword("extern")(r)?.0
                } else {
                    r
                };
                let (r1, _) = ws(r1)?;
                let (r2, td) = self.type_def(r1, is_extern)?;
                if m.type_defs.iter().any(|t| t.name == td.name) {
                    let at = keyword("type")(r1)?.0;
                    let (at, _) = ws(at)?;
                    return fatal(
                        at,
                        td.name.len(),
                        format!("type `{}` is defined twice", td.name),
                    );
                }
                m.type_defs.push(td);
                i = r2;
            } else if init.is_none() && m.is_empty() && m.type_defs.is_empty() {
                // A file holding one bare expression (as TVM's `parse_expr` accepts) becomes @main.
                let (r2, e) = self.expr(r)?;
                let (r2, _) = ws(r2)?;
                if !r2.is_empty() {
                    return fail(r2, "end of input");
                }
                let f = match e.kind() {
                    ExprKind::Function(_) => e,
                    _ => Expr::function(Function::new(Vec::new(), e, None)),
                };
                m.add("main", f).expect("a function");
                i = r2;
            } else {
                return fail(r, "`def`, `type` or the end of the module");
            }
        }
        for (name, span) in self.globals_used.borrow().iter() {
            if !m.contains(name) {
                let at = &self.src[span.lo as usize..];
                let hint = crate::suggest::closest(name, m.names())
                    .map(|s| format!("did you mean `@{s}`?"));
                return Err(nom::Err::Failure(
                    PErr::message(
                        at,
                        name.len() + 1,
                        format!("unknown global function @{}", crate::suggest::shown(name)),
                    )
                    .with_label(hint),
                ));
            }
        }
        Ok((i, m))
    }

    /// `[A, B]` after a type or function name: the type parameters, put in scope.
    fn type_params(&self, i: &'s str) -> R<'s, Vec<TypeVar>> {
        let mut params: Vec<TypeVar> = Vec::new();
        if !peek(i, "[") {
            return Ok((i, params));
        }
        let (mut i, _) = sym("[")(i)?;
        loop {
            if peek(i, "]") {
                break;
            }
            let (r, _) = ws(i)?;
            let at = r;
            let (r, p) = ident(r)?;
            if params.iter().any(|q| q.name() == p) {
                return fatal(at, p.len(), format!("duplicate type parameter `{p}`"));
            }
            params.push(TypeVar::new(p));
            i = r;
            if peek(i, ",") {
                i = sym(",")(i)?.0;
            } else {
                break;
            }
        }
        let (i, _) = sym("]")(i)?;
        self.type_vars.borrow_mut().extend(params.iter().cloned());
        Ok((i, params))
    }

    fn pop_type_vars(&self, n: usize) {
        let mut tv = self.type_vars.borrow_mut();
        let keep = tv.len().saturating_sub(n);
        tv.truncate(keep);
    }

    fn type_def(&self, i: &'s str, is_extern: bool) -> R<'s, TypeDef> {
        let (i, _) = keyword("type")(i)?;
        let (i, _) = ws(i)?;
        let name_at = i;
        let (i, name) = ident(i)?;
        if self.ctors.borrow().contains_key(name) {
            return fatal(
                name_at,
                name.len(),
                format!("`{name}` is already the name of a constructor"),
            );
        }
        self.type_names.borrow_mut().push(name.to_string());
        let (i, tparams) = self.type_params(i)?;
        let n = tparams.len();
        let params: Vec<Arc<str>> = tparams.into_iter().map(|t| t.0).collect();
        if is_extern {
            self.pop_type_vars(n);
            if peek(i, "{") {
                return fatal(i, 1, "an `extern type` has no constructors");
            }
            return Ok((
                i,
                TypeDef {
                    name: name.into(),
                    params,
                    ctors: Vec::new(),
                },
            ));
        }
        let r = self.type_def_body(i, name, params);
        self.pop_type_vars(n);
        r
    }

    fn type_def_body(&self, i: &'s str, name: &'s str, params: Vec<Arc<str>>) -> R<'s, TypeDef> {
        let mut i = i;
        let adt: Arc<str> = name.into();
        let mut ctors = Vec::new();
        if peek(i, "{") {
            i = sym("{")(i)?.0;
            loop {
                if peek(i, "}") {
                    break;
                }
                let (r, _) = ws(i)?;
                let c_at = r;
                let (r, c) = ident(r)?;
                i = r;
                let mut fields = Vec::new();
                if peek(i, "(") {
                    i = sym("(")(i)?.0;
                    loop {
                        if peek(i, ")") {
                            break;
                        }
                        let (r, t) = self.ty(i)?;
                        fields.push(t);
                        i = r;
                        if peek(i, ",") {
                            i = sym(",")(i)?.0;
                        } else {
                            break;
                        }
                    }
                    i = sym(")")(i)?.0;
                }
                // A constructor may share its own type's name (`type box[A] { box(A) }`), not
                // another type's.
                if *adt != *c && self.type_names.borrow().iter().any(|t| t == c) {
                    return fatal(
                        c_at,
                        c.len(),
                        format!("`{c}` is already the name of a type"),
                    );
                }
                let ctor = Arc::new(Constructor {
                    name: c.into(),
                    adt: adt.clone(),
                    tag: ctors.len() as u32,
                });
                if self
                    .ctors
                    .borrow_mut()
                    .insert(c.to_string(), (ctor, fields.len()))
                    .is_some()
                {
                    return fatal(c_at, c.len(), format!("constructor `{c}` is defined twice"));
                }
                ctors.push((Arc::<str>::from(c), fields));
                if peek(i, ",") {
                    i = sym(",")(i)?.0;
                } else {
                    break;
                }
            }
            i = sym("}")(i)?.0;
        }
        Ok((
            i,
            TypeDef {
                name: adt,
                params,
                ctors,
            },
        ))
    }

    // ----- functions ----------------------------------------------------------------------

    /// `( params, attrs ) -> T { body }` after `def @name` or `fn`.
    fn func_def(&self, i: &'s str, start: &'s str) -> R<'s, Expr> {
        let (i, type_params) = self.type_params(i)?;
        let n = type_params.len();
        let r = self.func_def_rest(i, start, type_params);
        self.pop_type_vars(n);
        r
    }

    fn func_def_rest(&self, i: &'s str, start: &'s str, type_params: Vec<TypeVar>) -> R<'s, Expr> {
        let (mut i, _) = sym("(")(i)?;
        self.scopes.borrow_mut().push();
        let result = (|| {
            let mut params: Vec<Var> = Vec::new();
            let mut seen: rustc_hash::FxHashSet<&'s str> = Default::default();
            let mut attrs = Vec::new();
            loop {
                let (r, _) = ws(i)?;
                if r.starts_with(')') {
                    break;
                }
                if r.starts_with('%') {
                    let at = r;
                    let (r, name) = local(r)?;
                    let (r, vd) = if peek(r, "{") {
                        let (r, _) = sym("{")(r)?;
                        let (r, pattrs) = self.attr_list(r, "}")?;
                        let (r, _) = sym("}")(r)?;
                        let mut vd = None;
                        for (k, v) in pattrs {
                            if &*k == "virtual_device" {
                                vd = Some(v);
                            } else {
                                return fatal(
                                    at,
                                    name.len() + 1,
                                    format!("unknown parameter attribute `{k}`"),
                                );
                            }
                        }
                        (r, vd)
                    } else {
                        (r, None)
                    };
                    let (r, ann) = if peek(r, ":") {
                        let (r, _) = sym(":")(r)?;
                        let (r, t) = self.ty(r)?;
                        (r, annotation(t))
                    } else {
                        (r, None)
                    };
                    if !seen.insert(name) {
                        return fatal(at, name.len() + 1, format!("duplicate parameter %{name}"));
                    }
                    let v = Var::with_device(name, ann, vd);
                    let ve = Expr::with_info(ExprKind::Var(v.clone()), None, self.span(at, r));
                    self.scopes.borrow_mut().bind(name, ve);
                    params.push(v);
                    i = r;
                } else if self.at_attr(r) {
                    let (r, a) = self.attr_list(r, ")")?;
                    attrs = a;
                    i = r;
                    break;
                } else {
                    return fail(r, "a parameter `%name`, an attribute or `)`");
                }
                let (r, _) = ws(i)?;
                if let Some(r) = r.strip_prefix(',') {
                    i = r;
                } else {
                    i = r;
                    break;
                }
            }
            let (i, _) = sym(")")(i)?;
            let (i, ret_type) = if peek(i, "->") {
                let (i, _) = sym("->")(i)?;
                let (i, t) = self.ty(i)?;
                (i, Some(t))
            } else {
                (i, None)
            };
            let (i, _) = sym("{")(i)?;
            let (i, body) = self.expr(i)?;
            let (i, _) = sym("}")(i)?;
            let f = Function {
                type_params,
                params,
                body,
                ret_type,
                attrs,
            };
            Ok((
                i,
                Expr::with_info(ExprKind::Function(Box::new(f)), None, self.span(start, i)),
            ))
        })();
        self.scopes.borrow_mut().pop();
        result
    }

    // ----- expressions --------------------------------------------------------------------

    /// `Stmt (; Stmt)*`: bindings, lets and statements, then the value. Iterative.
    fn expr(&self, i: &'s str) -> R<'s, Expr> {
        stacker::maybe_grow(128 * 1024, 4 * 1024 * 1024, || {
            self.scopes.borrow_mut().push();
            let r = self.expr_seq(i);
            self.scopes.borrow_mut().pop();
            r
        })
    }

    fn expr_seq(&self, mut i: &'s str) -> R<'s, Expr> {
        let mut lets: Vec<(Var, Expr, Span)> = Vec::new();
        let last = loop {
            let (r, _) = ws(i)?;
            let start = r;
            if r.starts_with("free_var") && keyword("free_var")(r).is_ok() {
                let (r, _) = keyword("free_var")(r)?;
                let (r, _) = ws(r)?;
                let at = r;
                let (r, name) = local(r)?;
                let (r, ann) = if peek(r, ":") {
                    let (r, _) = sym(":")(r)?;
                    let (r, t) = self.ty(r)?;
                    (r, annotation(t))
                } else {
                    (r, None)
                };
                let v = Var::new(name, ann);
                let ve = Expr::with_info(ExprKind::Var(v), None, self.span(at, r));
                self.free.borrow_mut().insert(name, ve);
                let (r, _) = sym(";")(r)?;
                i = r;
                continue;
            }
            // A graph binding `%N = ...` (or a use of one, parsed below).
            if let Some(Ok((r2, id))) = at_graph_id(r).then(|| graph_id(r)) {
                if peek(r2, "=") && !peek(r2, "==") {
                    let (r2, _) = sym("=")(r2)?;
                    let (r2, value) = self.bin_expr(r2)?;
                    let (r2, _) = sym(";")(r2)?;
                    let mut graph = self.graph.borrow_mut();
                    if graph.contains(id) {
                        let len = id.to_string().len() + 1;
                        return fatal(
                            start,
                            len,
                            format!("%{id} is already bound in this definition"),
                        );
                    }
                    graph.insert(id, value);
                    i = r2;
                    continue;
                }
            }
            if r.starts_with("let") && keyword("let")(r).is_ok() {
                let (r, _) = keyword("let")(r)?;
                let (r, _) = ws(r)?;
                let at = r;
                let (r, name) = local(r)?;
                let (r, ann) = if peek(r, ":") {
                    let (r, _) = sym(":")(r)?;
                    let (r, t) = self.ty(r)?;
                    (r, annotation(t))
                } else {
                    (r, None)
                };
                let v = Var::new(name, ann);
                let ve = Expr::with_info(ExprKind::Var(v.clone()), None, self.span(at, r));
                // Bound before its value so recursive local functions can refer to themselves.
                self.scopes.borrow_mut().bind(name, ve);
                let (r, _) = sym("=")(r)?;
                let (r, value) = self.bin_expr(r)?;
                let (r, _) = sym(";")(r)?;
                lets.push((v, value, self.span(start, r)));
                i = r;
                continue;
            }
            let (r, e) = if r.starts_with('{') {
                let (r, _) = sym("{")(r)?;
                let (r, e) = self.expr(r)?;
                let (r, _) = sym("}")(r)?;
                (r, e)
            } else {
                self.bin_expr(r)?
            };
            let (r2, _) = ws(r)?;
            if let Some(r3) = r2.strip_prefix(';') {
                lets.push((Var::new("", None), e, self.span(start, r3)));
                i = r3;
                continue;
            }
            i = r;
            break e;
        };
        let mut body = last;
        while let Some((var, value, span)) = lets.pop() {
            body = Expr::with_info(ExprKind::Let(Let { var, value, body }), None, span);
        }
        Ok((i, body))
    }

    fn bin_op(i: &str) -> Option<(&str, &'static str, u8)> {
        let (i, _) = ws(i).ok()?;
        let ops: [(&str, &str, u8); 10] = [
            ("==", "equal", 7),
            ("!=", "not_equal", 7),
            ("<=", "less_equal", 8),
            (">=", "greater_equal", 8),
            ("<", "less", 8),
            (">", "greater", 8),
            ("+", "add", 10),
            ("-", "subtract", 10),
            ("*", "multiply", 12),
            ("/", "divide", 12),
        ];
        for (tok, op, prec) in ops {
            if let Some(r) = i.strip_prefix(tok) {
                if tok == "-" && r.starts_with('>') {
                    return None;
                }
                return Some((r, op, prec));
            }
        }
        None
    }

    /// Operands joined by binary operators, by precedence (all left-associative).
    fn bin_expr(&self, i: &'s str) -> R<'s, Expr> {
        let (mut i, first) = self.call_expr(i)?;
        let mut operands = vec![first];
        let mut ops: Vec<(&'static str, u8)> = Vec::new();
        let reduce = |operands: &mut Vec<Expr>, op: &'static str| {
            let r = operands.pop().expect("operand");
            let l = operands.pop().expect("operand");
            let span = Span {
                lo: l.span().lo,
                hi: r.span().hi,
            };
            operands.push(Expr::with_info(
                ExprKind::Call(Call {
                    callee: op_expr(op),
                    args: vec![l, r].into(),
                    attrs: Attrs::NONE,
                }),
                None,
                span,
            ));
        };
        while let Some((r, op, prec)) = Self::bin_op(i) {
            while ops.last().is_some_and(|(_, p)| *p >= prec) {
                let (o, _) = ops.pop().expect("op");
                reduce(&mut operands, o);
            }
            ops.push((op, prec));
            let (r, e) = self.call_expr(r)?;
            operands.push(e);
            i = r;
        }
        while let Some((o, _)) = ops.pop() {
            reduce(&mut operands, o);
        }
        Ok((i, operands.pop().expect("operand")))
    }

    /// An atom followed by any number of calls `(...)` and projections `.N`.
    fn call_expr(&self, i: &'s str) -> R<'s, Expr> {
        let (i, _) = ws(i)?;
        let start = i;
        let (mut i, mut e) = self.atom(i)?;
        loop {
            if i.starts_with('(') || (peek(i, "(") && !matches!(e.kind(), ExprKind::Constant(_))) {
                let (r, (args, attrs_given, meta_attrs)) = self.call_args(i)?;
                e = self.make_call(start, r, e, args, attrs_given, meta_attrs)?;
                i = r;
            } else if let Some(r) = i.strip_prefix('.') {
                match nom::character::complete::digit1::<_, PErr>(r) {
                    Ok((r2, d)) => {
                        let Ok(idx) = d.parse::<usize>() else {
                            return fatal(
                                r,
                                d.len(),
                                format!("tuple index out of range (at most {})", usize::MAX),
                            );
                        };
                        e = Expr::with_info(
                            ExprKind::TupleGetItem(e, idx),
                            None,
                            self.span(start, r2),
                        );
                        i = r2;
                    }
                    Err(_) => return fail(r, "a tuple index after `.`"),
                }
            } else {
                break;
            }
        }
        Ok((i, e))
    }

    fn at_attr(&self, i: &str) -> bool {
        // An attribute starts with a name: anything else (`%x`, `1f`, `(`) is an argument,
        // told without lexing a name that is not there.
        let Ok((i, _)) = ws(i) else {
            return false;
        };
        if !i.starts_with(is_ident_start) {
            return false;
        }
        match hier_name(i) {
            Ok((r, _)) => peek(r, "=") && !peek(r, "=="),
            Err(_) => false,
        }
    }

    #[allow(clippy::type_complexity)]
    fn call_args(
        &self,
        i: &'s str,
    ) -> R<
        's,
        (
            Vec<Expr>,
            Vec<(Arc<str>, AttrValue)>,
            Option<(&'s str, &'s str, usize)>,
        ),
    > {
        let (mut i, _) = sym("(")(i)?;
        let mut args = Vec::new();
        let mut attrs = Vec::new();
        let mut meta_attrs = None;
        loop {
            let (r, _) = ws(i)?;
            if r.starts_with(')') {
                i = r;
                break;
            }
            if self.at_attr(r) {
                let (r, a) = self.attr_list(r, ")")?;
                attrs = a;
                i = r;
                break;
            }
            if r.starts_with("meta[relay.attrs.") {
                let at = r;
                let (r, (key, idx)) = meta_ref(r)?;
                meta_attrs = Some((at, key, idx));
                let (r, _) = ws(r)?;
                i = r.strip_prefix(',').unwrap_or(r);
                break;
            }
            let (r, e) = self.expr(r)?;
            args.push(e);
            let (r, _) = ws(r)?;
            if let Some(r) = r.strip_prefix(',') {
                i = r;
            } else {
                i = r;
                break;
            }
        }
        let (i, _) = sym(")")(i)?;
        Ok((i, (args, attrs, meta_attrs)))
    }

    fn make_call(
        &self,
        start: &'s str,
        end: &'s str,
        callee: Expr,
        args: Vec<Expr>,
        mut given: Vec<(Arc<str>, AttrValue)>,
        meta_attrs: Option<(&'s str, &'s str, usize)>,
    ) -> Result<Expr, nom::Err<PErr<'s>>> {
        let span = self.span(start, end);
        let attrs = if let ExprKind::Op(op) = callee.kind() {
            if let Some((at, key, idx)) = meta_attrs {
                let type_key = key;
                let Some(raw) = self.meta.attrs.get(type_key).and_then(|v| v.get(idx)) else {
                    return Err(nom::Err::Failure(PErr::message(
                        at,
                        at.find(']').map(|n| n + 4).unwrap_or(1),
                        format!("meta[{key}][{idx}] is not in the metadata table"),
                    )));
                };
                given = raw.to_fields(op.schema).map_err(|message| {
                    nom::Err::Failure(PErr::message(
                        at,
                        at.find(']').map(|n| n + 1).unwrap_or(1),
                        message,
                    ))
                })?;
            }
            match op.make_attrs(given) {
                Ok(a) => a,
                Err(err) => {
                    // Point at the offending `key=` when there is one, else at the whole call.
                    let call_text = &start[..span.hi as usize - span.lo as usize];
                    let (at, len) = err
                        .field
                        .as_deref()
                        .and_then(|k| {
                            call_text
                                .match_indices(k)
                                .find(|(i, _)| {
                                    call_text[i + k.len()..].trim_start().starts_with('=')
                                })
                                .map(|(i, _)| (&start[i..], k.len()))
                        })
                        .unwrap_or((start, call_text.len()));
                    return Err(nom::Err::Failure(
                        PErr::message(at, len, err.message).with_label(err.hint),
                    ));
                }
            }
        } else if given.is_empty() && meta_attrs.is_none() {
            Attrs::NONE
        } else {
            let key = given
                .iter()
                .position(|(k, _)| &**k == "attrs_type_key")
                .map(|p| given.remove(p).1);
            match key {
                Some(AttrValue::Str(k)) => Attrs::new(Some(&k), given),
                _ => {
                    return Err(nom::Err::Failure(PErr::message(
                        start,
                        span.hi as usize - span.lo as usize,
                        "attributes on a call of a non-operator need `attrs_type_key=\"...\"`",
                    )))
                }
            }
        };
        Ok(Expr::with_info(
            ExprKind::Call(Call {
                callee,
                args: args.into(),
                attrs,
            }),
            None,
            span,
        ))
    }

    fn atom(&self, i: &'s str) -> R<'s, Expr> {
        let (i, _) = ws(i)?;
        let start = i;
        let c = i.chars().next().unwrap_or('\0');
        match c {
            '%' => {
                if let Some(Ok((r, id))) = at_graph_id(i).then(|| graph_id(i)) {
                    return match self.graph.borrow().get(id) {
                        Some(e) => Ok((r, e.clone())),
                        None => fatal(i, i.len() - r.len(), format!("%{id} is not bound")),
                    };
                }
                let (r, name) = local(i)?;
                if let Some(e) = self.scopes.borrow().lookup(name) {
                    return Ok((r, e.clone()));
                }
                if let Some(e) = self.free.borrow().get(name) {
                    return Ok((r, e.clone()));
                }
                let scopes = self.scopes.borrow();
                let names = scopes.names();
                let hint =
                    crate::suggest::closest(name, names).map(|s| format!("did you mean `%{s}`?"));
                Err(nom::Err::Failure(
                    PErr::message(
                        i,
                        name.len() + 1,
                        format!("unbound variable %{}", crate::suggest::shown(name)),
                    )
                    .with_label(hint),
                ))
            }
            '@' => {
                let (r, name) = global(i)?;
                self.globals_used
                    .borrow_mut()
                    .push((name.to_string(), self.span(start, r)));
                Ok((
                    r,
                    Expr::with_info(
                        ExprKind::GlobalVar(GlobalVar::new(name)),
                        None,
                        self.span(start, r),
                    ),
                ))
            }
            '(' => self.paren(i),
            '{' => {
                let (r, _) = sym("{")(i)?;
                let (r, e) = self.expr(r)?;
                let (r, _) = sym("}")(r)?;
                Ok((r, e))
            }
            '"' => fatal(i, 1, "a string is not an expression"),
            c if c.is_ascii_digit() || c == '-' => {
                let (r, n) = number(i)?;
                Ok((r, self.scalar(n, self.span(start, r))))
            }
            _ if i.starts_with("meta[") => self.meta_expr(i),
            c if is_ident_start(c) => self.word(i),
            _ => fail(i, "an expression"),
        }
    }

    fn scalar(&self, n: Number, span: Span) -> Expr {
        // One payload per distinct literal (nodes stay distinct, as TVM's parser makes them):
        // a program that writes `1f` a million times holds one tensor.
        let key = match n {
            Number::Int(v, bits) => (0u8, bits.unwrap_or(0), v as u64),
            Number::Float(v, bits) => (1u8, bits, v.to_bits()),
        };
        let c = self
            .scalars
            .borrow_mut()
            .entry(key)
            .or_insert_with(|| Arc::new(Self::scalar_constant(n)))
            .clone();
        Expr::with_info(ExprKind::Constant(c), None, span)
    }

    fn scalar_constant(n: Number) -> Constant {
        match n {
            Number::Int(v, bits) => {
                let dt = match bits {
                    Some(8) => DType::INT8,
                    Some(16) => DType::INT16,
                    Some(64) => DType::INT64,
                    None if i32::try_from(v).is_err() => DType::INT64,
                    _ => DType::INT32,
                };
                Constant::from_data(TensorData::from_i64(dt, vec![], &[v]))
            }
            Number::Float(v, bits) => {
                let dt = match bits {
                    16 => DType::FLOAT16,
                    64 => DType::FLOAT64,
                    _ => DType::FLOAT32,
                };
                Constant::from_data(TensorData::from_f64(dt, vec![], &[v]))
            }
        }
    }

    fn meta_expr(&self, i: &'s str) -> R<'s, Expr> {
        let start = i;
        let (r, (key, idx)) = meta_ref(i)?;
        let span = self.span(start, r);
        if key != "relay.Constant" {
            return fatal(
                start,
                r.len().abs_diff(start.len()),
                format!("meta[{key}] cannot be used as an expression"),
            );
        }
        // A typed dump writes the constant's type right after it: use it for opaque constants.
        let ann = match type_comment(r) {
            Some((ty_text, _)) => match self.ty(ty_text) {
                Ok((rest, t)) if rest.trim().is_empty() && t.as_tensor().is_some() => {
                    t.as_tensor().cloned()
                }
                _ => None,
            },
            None => None,
        };
        if let Some(e) = self.meta_consts.borrow().get(&idx) {
            return Ok((r, e.clone()));
        }
        let c = match self.meta.constants.get(idx) {
            Some(Some(data)) => Constant {
                ty: Some(TensorType::new(
                    data.shape.iter().map(|d| Dim::Static(*d)).collect(),
                    data.dtype,
                )),
                data: Some(data.clone()),
                meta_index: None,
            },
            _ => Constant::opaque(ann, idx),
        };
        let e = Expr::with_info(ExprKind::Constant(Arc::new(c)), None, span);
        self.meta_consts.borrow_mut().insert(idx, e.clone());
        Ok((r, e))
    }

    /// Keywords, booleans and op names.
    fn word(&self, i: &'s str) -> R<'s, Expr> {
        let start = i;
        let (r, name) = hier_name(i)?;
        let span = self.span(start, r);
        match name {
            "True" | "False" => {
                let c = Constant::scalar_bool(name == "True");
                Ok((
                    r,
                    Expr::with_info(ExprKind::Constant(Arc::new(c)), None, span),
                ))
            }
            "inff" => {
                let (r, n) = number(i)?;
                Ok((r, self.scalar(n, self.span(start, r))))
            }
            "fn" => self.func_def(r, start),
            "if" => {
                let (r, _) = sym("(")(r)?;
                let (r, cond) = self.expr(r)?;
                let (r, _) = sym(")")(r)?;
                let (r, _) = sym("{")(r)?;
                let (r, t) = self.expr(r)?;
                let (r, _) = sym("}")(r)?;
                let (r, _) = keyword("else")(r)?;
                let (r, _) = sym("{")(r)?;
                let (r, f) = self.expr(r)?;
                let (r, _) = sym("}")(r)?;
                let e = Expr::with_info(
                    ExprKind::If(If {
                        cond,
                        then_branch: t,
                        else_branch: f,
                    }),
                    None,
                    self.span(start, r),
                );
                Ok((r, e))
            }
            "ref" | "ref_read" | "ref_write" if peek(r, "(") => {
                let (r, _) = sym("(")(r)?;
                let (r, a) = self.expr(r)?;
                let (r, kind) = if name == "ref_write" {
                    let (r, _) = sym(",")(r)?;
                    let (r, v) = self.expr(r)?;
                    (r, ExprKind::RefWrite(a, v))
                } else if name == "ref" {
                    (r, ExprKind::RefNew(a))
                } else {
                    (r, ExprKind::RefRead(a))
                };
                let (r, _) = sym(")")(r)?;
                Ok((r, Expr::with_info(kind, None, self.span(start, r))))
            }
            "match" => self.match_expr(start, r),
            "let" => fail(start, "an expression (a `let` must start a statement)"),
            _ => {
                if let Some((ctor, arity)) = self.ctors.borrow().get(name) {
                    let c = Expr::with_info(ExprKind::Constructor(ctor.clone()), None, span);
                    if *arity == 0 && !peek(r, "(") {
                        // A constructor without fields stands for its value (TVM's parser
                        // applies it); `Nil()` is the same call, written out.
                        let call = Expr::with_info(
                            ExprKind::Call(Call {
                                callee: c,
                                args: Vec::new().into(),
                                attrs: Attrs::NONE,
                            }),
                            None,
                            span,
                        );
                        return Ok((r, call));
                    }
                    return Ok((r, c));
                }
                match Op::lookup(name) {
                    // One shared node per op, as TVM's op references are global singletons.
                    Ok(op) => Ok((r, Expr::op(op))),
                    Err(msg) => {
                        let (msg, label) = match msg.split_once("; ") {
                            Some((m, l)) => (m.to_string(), Some(l.to_string())),
                            None => (msg, None),
                        };
                        Err(nom::Err::Failure(
                            PErr::message(start, name.len(), msg).with_label(label),
                        ))
                    }
                }
            }
        }
    }

    /// `match (data) { pattern => expr, ... }` after the word `match`; `match?` when the
    /// word is directly followed by `?` (an incomplete match).
    fn match_expr(&self, start: &'s str, i: &'s str) -> R<'s, Expr> {
        let (i, complete) = match i.strip_prefix('?') {
            Some(r) => (r, false),
            None => (i, true),
        };
        let (i, data) = self.call_expr(i)?;
        let (mut i, _) = sym("{")(i)?;
        let mut clauses = Vec::new();
        loop {
            if peek(i, "}") {
                break;
            }
            self.scopes.borrow_mut().push();
            let clause = (|| {
                let (r, pattern) = self.pattern(i, 0)?;
                let (r, _) = sym("=>")(r)?;
                let (r, rhs) = self.expr(r)?;
                Ok((r, Clause { pattern, rhs }))
            })();
            self.scopes.borrow_mut().pop();
            let (r, clause) = clause?;
            clauses.push(clause);
            if peek(r, ",") {
                i = sym(",")(r)?.0;
            } else {
                i = r;
                break;
            }
        }
        let (i, _) = sym("}")(i)?;
        let kind = ExprKind::Match(Box::new(Match {
            data,
            clauses,
            complete,
        }));
        Ok((i, Expr::with_info(kind, None, self.span(start, i))))
    }

    /// `_`, `%x` (`: T`), `Ctor(p, ...)`, `(p, ...)`; binds its variables in the current
    /// scope.
    fn pattern(&self, i: &'s str, depth: usize) -> R<'s, Pattern> {
        let (i, _) = ws(i)?;
        if depth >= crate::limits::MAX_PATTERN_DEPTH {
            return fatal(
                i,
                1,
                format!(
                    "patterns nest too deep (at most {} levels)",
                    crate::limits::MAX_PATTERN_DEPTH
                ),
            );
        }
        if i.starts_with('(') {
            let (r, ps) = self.patterns(i, depth)?;
            return Ok((r, Pattern::Tuple(ps)));
        }
        if i.starts_with('%') {
            let at = i;
            let (r, name) = local(i)?;
            let (r, ann) = if peek(r, ":") {
                let (r, _) = sym(":")(r)?;
                let (r, t) = self.ty(r)?;
                (r, annotation(t))
            } else {
                (r, None)
            };
            let v = Var::new(name, ann);
            let ve = Expr::with_info(ExprKind::Var(v.clone()), None, self.span(at, r));
            self.scopes.borrow_mut().bind(name, ve);
            return Ok((r, Pattern::Var(v)));
        }
        let (r, name) = match raw_ident(i) {
            Ok(x) => x,
            Err(_) => return fail(i, "a pattern (`_`, `%x`, a constructor or a tuple)"),
        };
        if name == "_" {
            return Ok((r, Pattern::Wildcard));
        }
        let Some((ctor, arity)) = self.ctors.borrow().get(name).cloned() else {
            let names: Vec<String> = self.ctors.borrow().keys().cloned().collect();
            let hint = crate::suggest::closest(name, names.iter().map(String::as_str))
                .map(|s| format!("did you mean `{s}`?"));
            return Err(nom::Err::Failure(
                PErr::message(
                    i,
                    name.len(),
                    format!("unknown constructor `{}`", crate::suggest::shown(name)),
                )
                .with_label(hint),
            ));
        };
        let (r, ps) = if peek(r, "(") {
            self.patterns(r, depth)?
        } else {
            (r, Vec::new())
        };
        if ps.len() != arity {
            return fatal(
                i,
                name.len(),
                format!(
                    "constructor `{name}` has {arity} field{}, the pattern gives {}",
                    if arity == 1 { "" } else { "s" },
                    ps.len()
                ),
            );
        }
        Ok((r, Pattern::Ctor(ctor, ps)))
    }

    /// `(p, q, ...)`.
    fn patterns(&self, i: &'s str, depth: usize) -> R<'s, Vec<Pattern>> {
        let (mut i, _) = sym("(")(i)?;
        let mut ps = Vec::new();
        loop {
            if peek(i, ")") {
                break;
            }
            let (r, p) = self.pattern(i, depth + 1)?;
            ps.push(p);
            if peek(r, ",") {
                i = sym(",")(r)?.0;
            } else {
                i = r;
                break;
            }
        }
        let (i, _) = sym(")")(i)?;
        Ok((i, ps))
    }

    /// `()`, `(e)`, `(e,)`, `(a, b, ...)`.
    fn paren(&self, i: &'s str) -> R<'s, Expr> {
        let start = i;
        let (mut i, _) = sym("(")(i)?;
        let mut fields = Vec::new();
        let mut trailing_comma = false;
        loop {
            if peek(i, ")") {
                break;
            }
            let (r, e) = self.expr(i)?;
            fields.push(e);
            trailing_comma = false;
            if peek(r, ",") {
                i = sym(",")(r)?.0;
                trailing_comma = true;
            } else {
                i = r;
                break;
            }
        }
        let (i, _) = sym(")")(i)?;
        if fields.len() == 1 && !trailing_comma {
            return Ok((i, fields.pop().expect("one field")));
        }
        Ok((
            i,
            Expr::with_info(ExprKind::Tuple(fields), None, self.span(start, i)),
        ))
    }

    // ----- attributes ---------------------------------------------------------------------

    /// `key=value, key=value` up to (not including) `close`.
    fn attr_list(&self, mut i: &'s str, close: &'static str) -> R<'s, Vec<(Arc<str>, AttrValue)>> {
        let mut out: Vec<(Arc<str>, AttrValue)> = Vec::new();
        // The keys so far: scanned while there are few (no allocation: almost every list),
        // hashed once there are many, so that a long list stays linear.
        let mut keys: smallvec::SmallVec<[&'s str; 8]> = smallvec::SmallVec::new();
        let mut seen: rustc_hash::FxHashSet<&'s str> = Default::default();
        loop {
            let (r, _) = ws(i)?;
            if r.starts_with(close) {
                return Ok((r, out));
            }
            let at = r;
            let (r, key) = hier_name(r)?;
            let (r, _) = sym("=")(r)?;
            let (r, v) = self.attr_value(r)?;
            let repeated = if keys.len() < 8 {
                let found = keys.contains(&key);
                keys.push(key);
                found
            } else {
                if seen.is_empty() {
                    seen.extend(keys.iter().copied());
                }
                !seen.insert(key)
            };
            if repeated {
                return fatal(at, key.len(), format!("attribute `{key}` is given twice"));
            }
            out.push((key.into(), v));
            let (r, _) = ws(r)?;
            i = r.strip_prefix(',').unwrap_or(r);
            if i.len() == r.len() && !peek(i, close) && !self.at_attr(i) {
                return fail(r, format!("`,` or `{close}`"));
            }
        }
    }

    fn attr_value(&self, i: &'s str) -> R<'s, AttrValue> {
        let depth = self.attr_depth.get();
        if depth >= crate::limits::MAX_ATTR_DEPTH {
            let i = ws(i)?.0;
            return fatal(
                i,
                1,
                format!(
                    "attribute values nested more than {} deep",
                    crate::limits::MAX_ATTR_DEPTH
                ),
            );
        }
        self.attr_depth.set(depth + 1);
        let r = self.attr_value_inner(i);
        self.attr_depth.set(depth);
        r
    }

    fn attr_value_inner(&self, i: &'s str) -> R<'s, AttrValue> {
        let (i, _) = ws(i)?;
        let c = i.chars().next().unwrap_or('\0');
        match c {
            '"' => {
                let (r, s) = string_lit(i)?;
                Ok((r, AttrValue::Str(s.into())))
            }
            '[' => {
                let (mut r, _) = sym("[")(i)?;
                let mut items = Vec::new();
                loop {
                    if peek(r, "]") {
                        break;
                    }
                    let (r2, v) = self.attr_value(r)?;
                    items.push(v);
                    if peek(r2, ",") {
                        r = sym(",")(r2)?.0;
                    } else {
                        r = r2;
                        break;
                    }
                }
                let (r, _) = sym("]")(r)?;
                Ok((r, AttrValue::Array(items.into())))
            }
            '(' => {
                let (r, _) = sym("(")(i)?;
                let (r, v) = self.attr_value(r)?;
                let (r, _) = sym(")")(r)?;
                Ok((r, v))
            }
            '?' => Ok((&i[1..], AttrValue::Any)),
            c if c.is_ascii_digit() || c == '-' => {
                let (r, n) = number(i)?;
                Ok((
                    r,
                    match n {
                        Number::Int(v, bits) => AttrValue::Int(v, bits.unwrap_or(32)),
                        Number::Float(v, _) => AttrValue::Float(v),
                    },
                ))
            }
            _ if i.starts_with("meta[") => {
                let (r, (key, idx)) = meta_ref(i)?;
                Ok((r, AttrValue::Meta(key.into(), idx)))
            }
            _ => {
                let (r, w) = hier_name(i)?;
                match w {
                    "True" => Ok((r, AttrValue::Bool(true))),
                    "False" => Ok((r, AttrValue::Bool(false))),
                    "None" | "nullptr" => Ok((r, AttrValue::Null)),
                    "inff" => Ok((r, AttrValue::Float(f64::INFINITY))),
                    _ => fail(i, "an attribute value"),
                }
            }
        }
    }

    // ----- types --------------------------------------------------------------------------

    fn ty(&self, i: &'s str) -> R<'s, Type> {
        stacker::maybe_grow(64 * 1024, 1024 * 1024, || self.ty_inner(i))
    }

    fn types_until(&self, mut i: &'s str, close: &'static str) -> R<'s, (Vec<Type>, bool)> {
        let mut out = Vec::new();
        let mut trailing = false;
        loop {
            if peek(i, close) {
                break;
            }
            let (r, t) = self.ty(i)?;
            out.push(t);
            trailing = false;
            if peek(r, ",") {
                i = sym(",")(r)?.0;
                trailing = true;
            } else {
                i = r;
                break;
            }
        }
        let (i, _) = sym(close)(i)?;
        Ok((i, (out, trailing)))
    }

    fn ty_inner(&self, i: &'s str) -> R<'s, Type> {
        let (i, _) = ws(i)?;
        if i.starts_with('(') {
            let (r, _) = sym("(")(i)?;
            let (r, (fields, _)) = self.types_until(r, ")")?;
            return Ok((r, Type::tuple(fields)));
        }
        let start = i;
        let (r, word) = match raw_ident(i) {
            Ok(x) => x,
            Err(_) => return fail(i, "a type"),
        };
        match word {
            "_" => Ok((r, Type::incomplete())),
            "fn" => {
                // `fn [A](A) -> A`: type parameters, as the printer writes a polymorphic
                // function's type (TVM's parser has no syntax for them).
                let (r, type_params) = self.type_params(r)?;
                let n = type_params.len();
                let rest = (|| {
                    let (r, _) = sym("(")(r)?;
                    let (r, (params, _)) = self.types_until(r, ")")?;
                    let (r, _) = sym("->")(r)?;
                    self.ty(r).map(|(r, ret)| (r, (params, ret)))
                })();
                self.pop_type_vars(n);
                let (r, (params, ret)) = rest?;
                Ok((r, Type::poly_func(type_params, params, ret)))
            }
            "Tensor" => {
                let (r, _) = sym("[")(r)?;
                let (r, shape) = self.shape(r)?;
                let (r, _) = sym(",")(r)?;
                let (r, _) = ws(r)?;
                let dt_at = r;
                let (r, dt) = raw_ident(r)?;
                let Some(dtype) = DType::parse(dt) else {
                    return fatal(
                        dt_at,
                        dt.len(),
                        format!("unknown dtype `{}`", crate::suggest::shown(dt)),
                    );
                };
                let (r, _) = sym("]")(r)?;
                Ok((r, Type::tensor(shape, dtype)))
            }
            "ref" if peek(r, "(") => {
                let (r, _) = sym("(")(r)?;
                let (r, t) = self.ty(r)?;
                let (r, _) = sym(")")(r)?;
                Ok((r, Type::reference(t)))
            }
            w => {
                if let Some(dt) = DType::parse(w) {
                    return Ok((r, Type::scalar(dt)));
                }
                if w.starts_with(char::is_lowercase)
                    && (w.starts_with("int") || w.starts_with("uint") || w.starts_with("float"))
                {
                    return fatal(
                        start,
                        w.len(),
                        format!("unknown dtype `{}`", crate::suggest::shown(w)),
                    );
                }
                // A type variable or an ADT type, possibly applied: `List[A]`.
                if !r.starts_with('[') {
                    if let Some(v) = self.type_vars.borrow().iter().rev().find(|v| v.name() == w) {
                        return Ok((r, Type::var(v.clone())));
                    }
                }
                let (r, args) = if r.starts_with('[') {
                    let (r, _) = sym("[")(r)?;
                    let (r, (args, _)) = self.types_until(r, "]")?;
                    (r, args)
                } else {
                    (r, Vec::new())
                };
                Ok((r, Type::named(w.into(), args)))
            }
        }
    }

    fn shape(&self, i: &'s str) -> R<'s, Vec<Dim>> {
        let (mut i, _) = sym("(")(i)?;
        let start = i;
        let mut dims = Vec::new();
        loop {
            let (r, _) = ws(i)?;
            if r.starts_with(')') {
                i = r;
                break;
            }
            let (r, d) = if let Some(r) = r.strip_prefix('?') {
                (r, Dim::Any)
            } else if r.starts_with("meta[") {
                let (r, (k, idx)) = meta_ref(r)?;
                (r, Dim::Meta(k.into(), idx))
            } else {
                let at = r;
                match number(r) {
                    Ok((r, Number::Int(v, bits))) => {
                        if v < 0 {
                            return fatal(at, at.len() - r.len(), "a dimension cannot be negative");
                        }
                        (
                            r,
                            if bits == Some(64) {
                                Dim::Static64(v)
                            } else {
                                Dim::Static(v)
                            },
                        )
                    }
                    Ok((r, _)) => {
                        return fatal(at, at.len() - r.len(), "a dimension must be an integer")
                    }
                    Err(_) => return fail(at, "a dimension (an integer or `?`)"),
                }
            };
            dims.push(d);
            let (r, _) = ws(r)?;
            if let Some(r) = r.strip_prefix(',') {
                i = r;
            } else {
                i = r;
                break;
            }
        }
        let static_elements = dims
            .iter()
            .filter_map(Dim::as_static)
            .try_fold(1i64, |n, d| n.checked_mul(d));
        if static_elements.is_none() {
            return fatal(
                start,
                start.len() - i.len(),
                "a shape of more than 2^63 elements",
            );
        }
        let (i, _) = sym(")")(i)?;
        Ok((i, dims))
    }
}

/// What the input holds at an error, for "found ...".
fn describe(i: &str) -> String {
    let Ok((i, _)) = ws(i) else {
        return "an unterminated comment".into();
    };
    if i.is_empty() {
        return "end of input".into();
    }
    let n = token_len(i);
    format!("`{}`", &i[..n])
}

fn token_len(i: &str) -> usize {
    let Some(c) = i.chars().next() else { return 0 };
    if is_ident_char(c) || c == '%' || c == '@' {
        let rest = &i[c.len_utf8()..];
        c.len_utf8()
            + rest
                .find(|c: char| !(is_ident_char(c) || c == '.'))
                .unwrap_or(rest.len())
    } else {
        c.len_utf8()
    }
}

/// A variable's annotation as written: `_` alone is no annotation, as TVM's parser and
/// structural equality treat it (`let %x: _ = ...` is `let %x = ...`).
fn annotation(t: Type) -> Option<Type> {
    (!t.is_incomplete()).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Leaving a scope restores what its bindings shadowed, whether the scope is unwound one
    /// binding at a time or the bindings that stay are indexed again (a scope larger than
    /// everything outside it).
    #[test]
    fn leaving_a_scope_restores_shadowed_names() {
        for inner_lets in [1, 2, 5] {
            let lets: String = (0..inner_lets)
                .map(|k| format!("let %x = add(%y, {k}f); "))
                .collect();
            let text = format!(
                "def @main(%x: float32, %w: float32) {{ %0 = fn (%y: float32) {{ {lets}%x }}; %0(%x) }}"
            );
            let m = parse_module(&text, "t").unwrap();
            let f = m.get_function("main").unwrap();
            let call = f.body.as_call().unwrap();
            // `%0(%x)`: the outer parameter, not the inner let.
            assert_eq!(
                call.args[0].as_var(),
                Some(&f.params[0]),
                "{inner_lets} lets"
            );
            let inner = call.callee.as_function().unwrap();
            let mut e = &inner.body;
            let mut last = None;
            while let ExprKind::Let(l) = e.kind() {
                last = Some(l.var.clone());
                e = &l.body;
            }
            assert_eq!(
                e.as_var(),
                last.as_ref(),
                "{inner_lets} lets: the innermost %x"
            );
        }
        let err = parse_module(
            "def @main(%a: float32) { %0 = fn (%b: float32) { let %c = %b; let %d = %c; %d }; %c }",
            "t",
        );
        assert!(err.is_err(), "%c is out of scope after the function");
    }
}
