//! The builtin functions and constructors of the language, in one table: name, signature,
//! one-line help and the code. The table feeds evaluation, `help`, completion and "did you
//! mean". Registered passes are constructors too, but live in the pass registry.

use super::bisect::b_bisect as b_bisect_search;
use super::pipeline::{b_pipeline, b_reproducer, b_text};
use super::reduce::b_reduce;
use super::tensors::{b_allclose, b_evaluate, b_save_tensor, b_tensor};
use super::timing_export::{b_save_timing, b_timing_list};
use super::{Session, SessionError, Value};
use crate::instrument::{
    Bisect, DumpIR, InstrumentRef, PassPrintingInstrument, PassTimingInstrument, PrintAfterAll,
    PrintBeforeAll, PrintChanged, Skip, Stats, Trace, Verify,
};
use crate::ir::{Module, Span};
use crate::pass::{
    leaf_function_pass, module_pass, ConfigValue, Origin as PassOrigin, PassContext, PassError,
    PassInfo, PassKind, Sequential,
};
use std::sync::Arc;

/// What a builtin is, for `help` and completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuiltinKind {
    Function,
    Constructor,
    Instrument,
}

/// One builtin.
pub struct Builtin {
    pub name: &'static str,
    pub kind: BuiltinKind,
    /// Parameter names in positional order (all may also be given by keyword).
    pub params: &'static [&'static str],
    pub signature: &'static str,
    pub summary: &'static str,
    pub run: fn(&mut Session, Args) -> Result<Value, SessionError>,
}

/// The builtin named `name`.
pub fn find(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

/// Evaluated call arguments with their spans.
pub struct Args {
    pub pos: Vec<(Value, Span)>,
    /// (name, name span, value, value span)
    pub kw: Vec<(String, Span, Value, Span)>,
    /// The whole call.
    pub span: Span,
}

impl Args {
    /// Binds the arguments to `b`'s parameters: unknown keywords and extra positionals are
    /// errors (with a suggestion).
    fn bind(self, b: &Builtin) -> Result<Bound, SessionError> {
        if self.pos.len() > b.params.len() {
            let (_, span) = &self.pos[b.params.len()];
            return Err(SessionError::at(
                format!(
                    "{} takes at most {} positional argument(s): {}",
                    b.name,
                    b.params.len(),
                    b.signature
                ),
                *span,
            ));
        }
        let mut slots: Vec<Option<(Value, Span)>> = vec![None; b.params.len()];
        for (i, (v, sp)) in self.pos.into_iter().enumerate() {
            slots[i] = Some((v, sp));
        }
        for (k, kspan, v, vspan) in self.kw {
            match b.params.iter().position(|p| *p == k) {
                Some(i) if slots[i].is_some() => {
                    return Err(SessionError::at(
                        format!("argument `{k}` is given twice"),
                        kspan,
                    ))
                }
                Some(i) => slots[i] = Some((v, vspan)),
                None => {
                    let hint = crate::suggest::closest(&k, b.params.iter().copied())
                        .map(|s| format!("did you mean `{s}`?"));
                    return Err(SessionError::at(
                        format!("{} has no argument `{k}`: {}", b.name, b.signature),
                        kspan,
                    )
                    .with_label(hint));
                }
            }
        }
        Ok(Bound {
            name: b.name,
            params: b.params,
            slots,
            span: self.span,
        })
    }

    /// The single module argument of a pass application `p(mod)`.
    pub(crate) fn module_arg(self, what: &str, pass: &str) -> Result<Module, SessionError> {
        if let Some((k, kspan, ..)) = self.kw.first() {
            return Err(SessionError::at(
                format!("applying a pass takes one module, not `{k}=`"),
                *kspan,
            ));
        }
        match self.pos.as_slice() {
            [(Value::Module(m), _)] => Ok(m.clone()),
            [(other, span)] => Err(SessionError::at(
                format!("{pass} must be applied to a module, got a {}", other.kind()),
                *span,
            )),
            _ => Err(SessionError::at(
                format!("applying {pass} takes exactly one {what}"),
                self.span,
            )),
        }
    }
}

/// Arguments bound to parameter names.
pub struct Bound {
    pub(super) name: &'static str,
    params: &'static [&'static str],
    slots: Vec<Option<(Value, Span)>>,
    pub(super) span: Span,
}

impl Bound {
    fn slot(&self, p: &str) -> Option<&(Value, Span)> {
        let i = self.params.iter().position(|x| *x == p)?;
        self.slots[i].as_ref()
    }

    pub(super) fn get(&self, p: &str) -> Option<&Value> {
        self.slot(p)
            .map(|(v, _)| v)
            .filter(|v| !matches!(v, Value::None))
    }

    pub(super) fn span_of(&self, p: &str) -> Span {
        self.slot(p).map(|(_, s)| *s).unwrap_or(self.span)
    }

    pub(super) fn type_err(&self, p: &str, want: &str, got: &Value) -> SessionError {
        SessionError::at(
            format!(
                "{}: argument `{p}` must be {want}, got a {} ({})",
                self.name,
                got.kind(),
                got.repr()
            ),
            self.span_of(p),
        )
    }

    pub(super) fn require(&self, p: &str) -> Result<&Value, SessionError> {
        self.get(p).ok_or_else(|| {
            SessionError::at(format!("{} needs the argument `{p}`", self.name), self.span)
        })
    }

    pub(super) fn str(&self, p: &str) -> Result<Option<String>, SessionError> {
        match self.get(p) {
            None => Ok(None),
            Some(Value::Str(s)) => Ok(Some(s.clone())),
            Some(v) => Err(self.type_err(p, "a string", v)),
        }
    }

    pub(super) fn int(&self, p: &str) -> Result<Option<i64>, SessionError> {
        match self.get(p) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(Value::Bool(b)) => Ok(Some(*b as i64)),
            Some(v) => Err(self.type_err(p, "an integer", v)),
        }
    }

    /// An integer argument that must fit an `i32` (opt levels).
    fn i32(&self, p: &str) -> Result<Option<i32>, SessionError> {
        match self.int(p)? {
            None => Ok(None),
            Some(i) => i32::try_from(i).map(Some).map_err(|_| {
                SessionError::at(
                    format!(
                        "{}: argument `{p}` is out of range ({} to {})",
                        self.name,
                        i32::MIN,
                        i32::MAX
                    ),
                    self.span_of(p),
                )
            }),
        }
    }

    pub(super) fn bool(&self, p: &str) -> Result<Option<bool>, SessionError> {
        match self.get(p) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::Int(i)) => Ok(Some(*i != 0)),
            Some(v) => Err(self.type_err(p, "true or false", v)),
        }
    }

    fn strs(&self, p: &str) -> Result<Vec<String>, SessionError> {
        match self.get(p) {
            None => Ok(Vec::new()),
            Some(Value::List(items)) => items
                .iter()
                .map(|v| match v {
                    Value::Str(s) => Ok(s.clone()),
                    Value::Pass(pass) => Ok(pass.info().name().to_string()),
                    other => Err(self.type_err(p, "a list of names", other)),
                })
                .collect(),
            Some(v) => Err(self.type_err(p, "a list of names", v)),
        }
    }

    pub(super) fn module(&self, p: &str) -> Result<Module, SessionError> {
        match self.require(p)? {
            Value::Module(m) => Ok(m.clone()),
            v => Err(self.type_err(p, "a module", v)),
        }
    }

    /// A tolerance: a number, at least 0.
    pub(super) fn tolerance(&self, p: &str) -> Result<Option<f64>, SessionError> {
        let v = match self.get(p) {
            None => return Ok(None),
            Some(Value::Float(f)) => *f,
            Some(Value::Int(i)) => *i as f64,
            Some(v) => return Err(self.type_err(p, "a number", v)),
        };
        if !(v >= 0.0 && v.is_finite()) {
            return Err(SessionError::at(
                format!("{}: `{p}` must be a finite number of at least 0", self.name),
                self.span_of(p),
            ));
        }
        Ok(Some(v))
    }

    fn instruments(&self, p: &str) -> Result<Vec<InstrumentRef>, SessionError> {
        match self.get(p) {
            None => Ok(Vec::new()),
            Some(Value::List(items)) => items
                .iter()
                .map(|v| match v {
                    Value::Instrument(i) => Ok(i.clone()),
                    other => Err(self.type_err(p, "a list of instruments", other)),
                })
                .collect(),
            Some(v) => Err(self.type_err(p, "a list of instruments", v)),
        }
    }
}

pub(super) fn at(msg: impl Into<String>, span: Span) -> SessionError {
    SessionError::at(msg, span)
}

/// `path` as an error shows it: as written, and, when it was resolved against a folder other
/// than the current one (a script's, under `passlab run`), the file that was tried.
pub(super) fn shown_path(s: &Session, path: &str, full: &std::path::Path) -> String {
    let relative = std::path::Path::new(path).is_relative();
    let elsewhere = std::env::current_dir().is_ok_and(|cwd| cwd != s.base_dir);
    if relative && elsewhere {
        format!(
            "{path} (resolved against the script's folder: {})",
            full.display()
        )
    } else {
        path.to_string()
    }
}

pub(super) fn resolve(s: &Session, path: &str) -> std::path::PathBuf {
    let p = std::path::Path::new(path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        s.base_dir.join(p)
    }
}

/// Parses Relay text given in the language, pointing errors into the text.
pub(crate) fn parse_ir(text: &str, name: &str, span: Span) -> Result<Module, SessionError> {
    crate::text::parse_module(text, name).map_err(|e| {
        SessionError::at(format!("invalid Relay text: {}", e.message), span)
            .with_detail(e.render(name, text, false))
    })
}

fn b_parse(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let text = a
        .str("text")?
        .ok_or_else(|| at("parse needs the Relay text", a.span))?;
    // `meta=[c0, c1]` supplies `meta[relay.Constant][i]` (TVM's init_meta_table).
    let mut table = crate::text::metadata::MetaTable::default();
    match a.get("meta") {
        None => {}
        Some(Value::List(items)) => {
            for v in items {
                match v {
                    Value::Tensor(t) => table.constants.push(Some(t.clone())),
                    other => {
                        return Err(a.type_err("meta", "a list of tensors from const(...)", other))
                    }
                }
            }
        }
        Some(v) => return Err(a.type_err("meta", "a list of tensors", v)),
    }
    // `init_module=m`: the text's definitions are added to a copy of m (TVM's init_module).
    let init = match a.get("init_module") {
        None | Some(Value::None) => None,
        Some(Value::Module(m)) => Some(m.clone()),
        Some(v) => return Err(a.type_err("init_module", "a module", v)),
    };
    // Errors point into the IR text: the caret is placed on the text's own line and column.
    crate::text::parse_module_into(&text, "<ir>", Some(&table), init.as_ref())
        .map(Value::Module)
        .map_err(|e| {
            SessionError::at(
                format!("invalid Relay text: {}", e.message),
                a.span_of("text"),
            )
            .with_detail(e.render("<ir>", &text, false))
        })
}

/// One element of `const`'s data, as written.
#[derive(Clone, Copy, Debug)]
enum Num {
    Int(i64),
    Float(f64),
}

impl std::fmt::Display for Num {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) if *x != 0.0 && !(1e-4..1e16).contains(&x.abs()) => write!(f, "{x:e}"),
            Num::Float(x) => f.write_str(&Value::Float(*x).repr()),
        }
    }
}

/// Flattens nested lists of numbers into values and a shape: every row of one level has
/// the same length and every number is at the same depth. Iterative, so data nested a
/// million deep is an error, not a stack overflow.
fn flatten(v: &Value) -> Result<(Vec<i64>, Vec<Num>), String> {
    let mut shape: Vec<i64> = Vec::new();
    let mut leaf_depth: Option<usize> = None;
    let mut out = Vec::new();
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, depth)) = stack.pop() {
        let num = match v {
            Value::Int(i) => Num::Int(*i),
            Value::Float(f) => Num::Float(*f),
            Value::Bool(b) => Num::Int(i64::from(*b)),
            Value::List(items) => {
                if leaf_depth.is_some_and(|d| depth >= d) {
                    return Err("the data is ragged: a list where other rows have numbers".into());
                }
                let len = i64::try_from(items.len()).map_err(|_| "too many elements")?;
                if shape.len() == depth {
                    shape.push(len);
                } else if shape[depth] != len {
                    return Err(format!(
                        "rows of different lengths at depth {depth} ({} and {len})",
                        shape[depth]
                    ));
                }
                stack.extend(items.iter().rev().map(|i| (i, depth + 1)));
                continue;
            }
            other => return Err(format!("a {} is not a number", other.kind())),
        };
        match leaf_depth {
            None if depth < shape.len() => {
                return Err("the data is ragged: a number where other rows have lists".into())
            }
            None => leaf_depth = Some(depth),
            Some(d) if d != depth => {
                return Err("the data is ragged: numbers at different depths".into())
            }
            Some(_) => {}
        }
        out.push(num);
    }
    // A row of empty lists leaves the deeper dimensions unknown: they are 0, and so is the
    // number of elements.
    Ok((shape, out))
}

/// The inclusive range of an integer dtype of `bits` bits.
fn int_range(dtype: crate::ir::DType) -> (i128, i128) {
    let bits = u32::from(dtype.bits);
    if dtype.code == crate::ir::dtype::DTypeCode::UInt {
        (0, (1i128 << bits) - 1)
    } else {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    }
}

/// The element `n` (the `k`-th) as an integer of `dtype`: exact, in range, and for `bool`
/// 0 or 1 (also true/false); a float must be a whole number.
fn int_element(dtype: crate::ir::DType, k: usize, n: Num) -> Result<i64, String> {
    let what = |why: &str| format!("element {k} ({n}) {why}");
    let i: i128 = match n {
        Num::Int(i) => i.into(),
        // Saturating: a whole number beyond i128 is out of every range below.
        Num::Float(f) if f.fract() == 0.0 => f as i128,
        Num::Float(_) if dtype.is_bool() => {
            return Err(what("is not a bool (true, false, 1 or 0)"))
        }
        Num::Float(_) => {
            return Err(what(&format!(
                "is not a whole number ({dtype} holds integers)"
            )))
        }
    };
    if dtype.is_bool() {
        return match i {
            0 | 1 => Ok(i as i64),
            _ => Err(what("is not a bool (true, false, 1 or 0)")),
        };
    }
    let (lo, hi) = int_range(dtype);
    if i < lo || i > hi {
        return Err(what(&format!("is out of range for {dtype} ({lo} to {hi})")));
    }
    i64::try_from(i).map_err(|_| what(&format!("is out of range for {dtype}")))
}

/// The element `n` (the `k`-th) as a float of `dtype`: rounded to the nearest value the
/// dtype holds, but never to infinity or (from a number that is not 0) to 0.
fn float_element(dtype: crate::ir::DType, k: usize, n: Num) -> Result<f64, String> {
    let x = match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    };
    let (rounded, max, min) = match dtype.bits {
        16 if dtype.code == crate::ir::dtype::DTypeCode::BFloat => (
            half::bf16::from_f64(x).to_f64(),
            half::bf16::MAX.to_f64(),
            half::bf16::from_bits(1).to_f64(),
        ),
        16 => (
            half::f16::from_f64(x).to_f64(),
            half::f16::MAX.to_f64(),
            half::f16::from_bits(1).to_f64(),
        ),
        32 => (
            f64::from(x as f32),
            f64::from(f32::MAX),
            f64::from(f32::from_bits(1)),
        ),
        _ => (x, f64::MAX, f64::from_bits(1)),
    };
    if rounded.is_infinite() && x.is_finite() {
        return Err(format!(
            "element {k} ({n}) is out of range for {dtype} (at most {max:e} in magnitude)"
        ));
    }
    if rounded == 0.0 && x != 0.0 {
        return Err(format!(
            "element {k} ({n}) is too small for {dtype}: it would round to 0 (the smallest is {min:e})"
        ));
    }
    Ok(rounded)
}

pub(super) fn b_const(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let data = a.require("data")?;
    let dtype_name = a.str("dtype")?.unwrap_or_else(|| "float32".into());
    let dtype = crate::ir::DType::parse(&dtype_name)
        .ok_or_else(|| at(format!("unknown dtype `{dtype_name}`"), a.span_of("dtype")))?;
    if dtype.lanes != 1 {
        return Err(at(
            format!(
                "const makes tensors of scalar elements; `{dtype_name}` has {} lanes",
                dtype.lanes
            ),
            a.span_of("dtype"),
        ));
    }
    let (shape, values) =
        flatten(data).map_err(|e| at(format!("const: {e}"), a.span_of("data")))?;
    let bad = |e: String| at(format!("const: {e}"), a.span_of("data"));
    let t = if dtype.is_float() {
        let xs = values
            .iter()
            .enumerate()
            .map(|(k, n)| float_element(dtype, k, *n))
            .collect::<Result<Vec<f64>, String>>()
            .map_err(bad)?;
        crate::ir::TensorData::from_f64(dtype, shape, &xs)
    } else {
        let ints = values
            .iter()
            .enumerate()
            .map(|(k, n)| int_element(dtype, k, *n))
            .collect::<Result<Vec<i64>, String>>()
            .map_err(bad)?;
        crate::ir::TensorData::from_i64(dtype, shape, &ints)
    };
    Ok(Value::Tensor(Arc::new(t)))
}

fn b_load(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let path = a
        .str("path")?
        .ok_or_else(|| at("load needs a path", a.span))?;
    let full = resolve(s, &path);
    let freeze = a.bool("freeze_params")?;
    if crate::onnx::is_onnx_path(&path) {
        let opts = crate::onnx::ImportOptions {
            freeze_params: freeze.unwrap_or(true),
        };
        return crate::onnx::import_file(&full, &opts)
            .map(Value::Module)
            .map_err(|e| {
                let shown = shown_path(s, &path, &full);
                let msg = e.message.replacen(&full.display().to_string(), &shown, 1);
                at(msg, a.span_of("path"))
            });
    }
    if freeze.is_some() {
        return Err(at(
            "freeze_params applies to ONNX models (.onnx files) only",
            a.span_of("freeze_params"),
        ));
    }
    let text = crate::files::read_text(&full)
        .map_err(|e| at(e.message(&shown_path(s, &path, &full)), a.span_of("path")))?;
    crate::text::parse_module(&text, &path)
        .map(Value::Module)
        .map_err(|e| {
            at(
                format!("{path} is not valid Relay: {}", e.message),
                a.span_of("path"),
            )
            .with_detail(e.render(&path, &text, false))
        })
}

fn b_save(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let m = a.module("module")?;
    let path = a
        .str("path")?
        .ok_or_else(|| at("save needs a path", a.span))?;
    let full = resolve(s, &path);
    crate::files::write_atomic_with(&full, |w| {
        crate::text::write_module(&m, Default::default(), w)
    })
    .map_err(|e| {
        match e
            .get_ref()
            .and_then(|e| e.downcast_ref::<crate::text::TooLarge>())
        {
            Some(too_large) => at(format!("cannot save: {too_large}"), a.span),
            None => at(format!("cannot write {path}: {e}"), a.span_of("path")),
        }
    })?;
    Ok(Value::None)
}

fn b_equal(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let x = a.require("a")?;
    let y = a.require("b")?;
    Ok(Value::Bool(match (x, y) {
        (Value::Module(p), Value::Module(q)) => crate::ir::module_equal(p, q, true),
        (Value::Function { func: f, .. }, Value::Function { func: g, .. }) => {
            crate::ir::expr_equal(f, g, true)
        }
        (p, q) => {
            return Err(at(
                format!(
                    "equal compares modules or functions, got a {} and a {}",
                    p.kind(),
                    q.kind()
                ),
                a.span,
            ))
        }
    }))
}

fn b_type_args(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let (func, module) = match a.require("func")? {
        Value::Function { func, module, .. } => (func.clone(), module.clone()),
        v => return Err(a.type_err("func", "a function of a module (m[\"main\"])", v)),
    };
    let calls = crate::ir::type_args::call_type_args(&module, &func)
        .map_err(|e| at(format!("type_args: {e}"), a.span_of("func")))?;
    Ok(Value::List(
        calls
            .into_iter()
            .map(|c| {
                Value::List(vec![
                    Value::Str(c.callee),
                    Value::List(
                        c.type_args
                            .iter()
                            .map(|t| Value::Str(t.to_string()))
                            .collect(),
                    ),
                ])
            })
            .collect(),
    ))
}

fn b_print(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let Some(Value::List(items)) = a.get("values") else {
        return Ok(Value::None);
    };
    let texts: Vec<String> = items.iter().map(|v| s.plain_text(v)).collect();
    crate::pass::sink::emit(
        &s.sink,
        crate::pass::ChunkKind::Log,
        "print",
        &texts.join(" "),
    );
    Ok(Value::None)
}

fn b_render(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    match a.require("instrument")? {
        Value::Instrument(i) => match i.as_any().downcast_ref::<PassTimingInstrument>() {
            Some(t) => Ok(Value::Str(t.render())),
            None => Err(at(
                format!("render needs a PassTimingInstrument, got {}", i.name()),
                a.span_of("instrument"),
            )),
        },
        v => Err(a.type_err("instrument", "a PassTimingInstrument", v)),
    }
}

fn b_current(s: &mut Session, _: Bound) -> Result<Value, SessionError> {
    Ok(Value::Context(s.pm.current().clone()))
}

fn b_override(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let list = a.instruments("instruments")?;
    let r = match a.get("ctx") {
        Some(Value::Context(c)) => {
            let c = c.clone();
            s.pm.override_instruments_of(&c, list)
        }
        Some(v) => return Err(a.type_err("ctx", "a PassContext", v)),
        None => s.pm.override_instruments(list),
    };
    let ctx = match a.get("ctx") {
        Some(Value::Context(c)) => c.clone(),
        _ => s.pm.current().clone(),
    };
    s.note_timing(&ctx);
    r.map(|_| Value::None)
        .map_err(|e| SessionError::from_pass(&e, a.span))
}

fn pass_list(a: &Bound, p: &str) -> Result<Vec<crate::pass::Pass>, SessionError> {
    match a.require(p)? {
        Value::List(items) => items
            .iter()
            .map(|v| match v {
                Value::Pass(p) => Ok(p.clone()),
                other => Err(a.type_err(p, "a list of passes", other)),
            })
            .collect(),
        v => Err(a.type_err(p, "a list of passes", v)),
    }
}

fn b_sequential(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let passes = pass_list(&a, "passes")?;
    let name = a.str("name")?.unwrap_or_else(|| "sequential".into());
    let level = a.i32("opt_level")?.unwrap_or(0);
    let required = a.strs("required")?;
    let info = PassInfo::with_kind(&name, level, &required, PassKind::Sequential);
    Ok(Value::Pass(Sequential::with_info(info, passes).into_pass()))
}

fn b_build_pipeline(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let level = a.i32("opt_level")?.unwrap_or(3);
    crate::passes::build_pipeline::build_pipeline(&s.pm, level)
        .map(Value::Pass)
        .map_err(|e| at(e.to_string(), a.span))
}

fn b_target(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let text = a.str("target")?.ok_or_else(|| {
        at(
            "Target needs a target string, e.g. Target(\"llvm -mcpu=core-avx2\")",
            a.span,
        )
    })?;
    crate::target::Target::parse(&text)
        .map(Value::Target)
        .map_err(|e| at(format!("invalid target: {e}"), a.span_of("target")))
}

/// Words of the Relay text that cannot name an op: a call of one would parse as something else.
const RESERVED_OP_NAMES: &[&str] = &[
    "True",
    "False",
    "inff",
    "nanf",
    "fn",
    "if",
    "else",
    "let",
    "match",
    "ref",
    "ref_read",
    "ref_write",
    "free_var",
    "meta",
    "def",
    "type",
    "extern",
];

/// TVM's `OpPattern` names (`elemwise` or `ELEMWISE`) and values (0 to 8).
fn op_pattern(a: &Bound) -> Result<Option<crate::ir::OpPattern>, SessionError> {
    use crate::ir::OpPattern::*;
    const NAMES: &[(&str, crate::ir::OpPattern)] = &[
        ("elemwise", ElemWise),
        ("broadcast", Broadcast),
        ("injective", Injective),
        ("comm_reduce", CommReduce),
        ("out_elemwise_fusable", OutEWiseFusable),
        ("tuple", Tuple),
        ("opaque", Opaque),
    ];
    match a.get("pattern") {
        None => Ok(None),
        Some(Value::Int(i)) => NAMES
            .iter()
            .find(|(_, p)| *p as i64 == *i)
            .map(|(_, p)| Some(*p))
            .ok_or_else(|| {
                at(
                    format!(
                        "register_op: no op pattern has the value {i} (TVM's are 0 to 4, 7 and 8)"
                    ),
                    a.span_of("pattern"),
                )
            }),
        Some(Value::Str(name)) => {
            let lower = name.to_ascii_lowercase();
            match NAMES.iter().find(|(n, _)| *n == lower) {
                Some((_, p)) => Ok(Some(*p)),
                None => {
                    let hint = crate::suggest::closest(&lower, NAMES.iter().map(|(n, _)| *n))
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_default();
                    Err(at(
                        format!(
                            "register_op: unknown op pattern `{}` (known: {}){hint}",
                            crate::suggest::shown(name),
                            NAMES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                        ),
                        a.span_of("pattern"),
                    ))
                }
            }
        }
        Some(v) => Err(a.type_err("pattern", "a pattern name or number", v)),
    }
}

/// `register_op(name, num_inputs, type_rel, pattern, stateful, attrs_type_key)`: TVM's
/// `_op.register` with what usually follows it. The op exists for the rest of the process.
fn b_register_op(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let name = match a.require("name")? {
        Value::Str(n) => n.clone(),
        v => return Err(a.type_err("name", "a string", v)),
    };
    // The text's dotted names (`nn.conv2d`): identifiers joined by dots.
    use crate::text::lexer::{is_ident_char, is_ident_start};
    let word =
        |w: &str| w.chars().next().is_some_and(is_ident_start) && w.chars().all(is_ident_char);
    if !name.split('.').all(word) || RESERVED_OP_NAMES.contains(&name.as_str()) {
        return Err(at(
            format!(
                "register_op: `{}` cannot name an op: an op's name is a word or dotted words \
                 (`custom_log`, `my.op`) other than a keyword of the text",
                crate::suggest::shown(&name)
            ),
            a.span_of("name"),
        ));
    }
    if s.registered_ops.contains(&name) {
        return Err(at(
            format!(
                "register_op: operator `{}` is registered before",
                crate::suggest::shown(&name)
            ),
            a.span,
        ));
    }
    let num_inputs = a.i32("num_inputs")?.unwrap_or(-1);
    if num_inputs < -1 {
        return Err(at(
            format!(
                "register_op: `num_inputs` must be -1 (any number) or at least 0, not {num_inputs}"
            ),
            a.span_of("num_inputs"),
        ));
    }
    let type_rel = a.str("type_rel")?;
    if let Some(rel) = &type_rel {
        crate::ir::op::registrable_relation(rel)
            .map_err(|e| at(format!("register_op: {e}"), a.span_of("type_rel")))?;
    }
    let spec = crate::ir::op::OpSpec {
        name,
        num_inputs,
        type_rel,
        pattern: op_pattern(&a)?,
        stateful: a.bool("stateful")?.unwrap_or(false),
        attrs_type_key: a.str("attrs_type_key")?,
    };
    let op = crate::ir::Op::register(spec).map_err(|e| at(format!("register_op: {e}"), a.span))?;
    s.registered_ops.insert(op.name().to_string());
    Ok(Value::None)
}

fn b_current_target(s: &mut Session, _: Bound) -> Result<Value, SessionError> {
    Ok(s.pm.target().cloned().map_or(Value::None, Value::Target))
}

fn b_pass_context(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let mut b = PassContext::builder()
        .opt_level(a.i32("opt_level")?.unwrap_or(2))
        .required_pass(a.strs("required_pass")?)
        .disabled_pass(a.strs("disabled_pass")?)
        .instruments(a.instruments("instruments")?);
    match a.get("config") {
        None => {}
        Some(Value::Map(items)) => {
            for (k, v) in items {
                let Value::Str(key) = k else {
                    return Err(a.type_err("config", "a map with string keys", k));
                };
                let cv = v
                    .to_config()
                    .ok_or_else(|| a.type_err("config", "plain values", v))?;
                b = b.config(key, cv);
            }
        }
        Some(v) => return Err(a.type_err("config", "a map", v)),
    }
    b.build()
        .map(Value::Context)
        .map_err(|e| at(e.to_string(), a.span_of("config")))
}

fn user_info(a: &Bound, kind: PassKind) -> Result<PassInfo, SessionError> {
    let name = a
        .str("name")?
        .ok_or_else(|| at(format!("{} needs name=...", a.name), a.span))?;
    let level = a.i32("opt_level")?.unwrap_or(0);
    let required = a.strs("required")?;
    Ok(PassInfo::with_kind(&name, level, &required, kind))
}

fn b_module_pass(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let info = user_info(&a, PassKind::Module)?;
    let fail = a.str("fail")?;
    let add = match a.get("add") {
        None => None,
        Some(Value::Module(m)) => Some(m.clone()),
        Some(Value::Str(text)) => Some(parse_ir(text, "<add>", a.span_of("add"))?),
        Some(v) => return Err(a.type_err("add", "a module or Relay text", v)),
    };
    let mut arguments = Vec::new();
    if let Some(extra) = &add {
        arguments.push((
            "add".to_string(),
            ConfigValue::Str(crate::text::print_module(extra).into()),
        ));
    }
    if let Some(msg) = &fail {
        arguments.push(("fail".to_string(), ConfigValue::Str(msg.as_str().into())));
    }
    let pass = module_pass(info, move |m, _cx| {
        if let Some(msg) = &fail {
            return Err(PassError::failed(msg.clone()));
        }
        let mut out = m.clone();
        if let Some(extra) = &add {
            for (g, f) in extra.functions() {
                out.update(g.name(), f.clone())
                    .map_err(|e| PassError::failed(e.to_string()))?;
            }
        }
        Ok(out)
    })
    .with_origin(PassOrigin::Constructor {
        constructor: "module_pass",
        arguments,
    });
    Ok(Value::Pass(pass))
}

fn b_function_pass(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let info = user_info(&a, PassKind::Function)?;
    let fail = a.str("fail")?;
    let replacement = match a.get("replace_with") {
        None => None,
        Some(Value::Function { func, .. }) => Some(func.clone()),
        Some(Value::Module(m)) if m.len() == 1 => m.functions().next().map(|(_, f)| f.clone()),
        Some(Value::Str(text)) => {
            let m = parse_ir(text, "<replace_with>", a.span_of("replace_with"))?;
            let first = m.functions().next().map(|(_, f)| f.clone());
            first
        }
        Some(v) => return Err(a.type_err("replace_with", "a function", v)),
    };
    let rules = match a.get("rewrite") {
        None => Vec::new(),
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::Str(s) => super::rewrite::Rule::parse(s)
                    .map_err(|e| at(format!("rewrite rule {s:?}: {e}"), a.span_of("rewrite"))),
                other => Err(a.type_err("rewrite", "a list of rule strings", other)),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(v) => return Err(a.type_err("rewrite", "a list of rule strings", v)),
    };
    let mut arguments = Vec::new();
    if let Some(r) = &replacement {
        let mut m = Module::new();
        m.update("replacement", r.clone())
            .map_err(|e| at(e.to_string(), a.span_of("replace_with")))?;
        arguments.push((
            "replace_with".to_string(),
            ConfigValue::Str(crate::text::print_module(&m).into()),
        ));
    }
    if let Some(Value::List(items)) = a.get("rewrite") {
        let texts = items.iter().filter_map(Value::to_config).collect();
        arguments.push(("rewrite".to_string(), ConfigValue::List(texts)));
    }
    if let Some(msg) = &fail {
        arguments.push(("fail".to_string(), ConfigValue::Str(msg.as_str().into())));
    }
    let rules = Arc::new(rules);
    let pass = leaf_function_pass(info, move |_g, f, _m, _cx| {
        if let Some(msg) = &fail {
            return Err(PassError::failed(msg.clone()));
        }
        if let Some(r) = &replacement {
            return Ok(r.clone());
        }
        super::rewrite::apply(&rules, f).map_err(PassError::failed)
    })
    .with_origin(PassOrigin::Constructor {
        constructor: "function_pass",
        arguments,
    });
    Ok(Value::Pass(pass))
}

fn b_register(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    match a.require("pass")? {
        Value::Pass(p) => {
            let summary = a.str("summary")?.unwrap_or_else(|| "user pass".into());
            s.register(p.clone(), &summary)
                .map_err(|e| at(e.message, a.span_of("pass")))?;
            Ok(Value::None)
        }
        v => Err(a.type_err("pass", "a pass", v)),
    }
}

fn inst(i: impl crate::instrument::Instrument + 'static) -> Result<Value, SessionError> {
    Ok(Value::Instrument(Arc::new(i)))
}

fn b_timing(_: &mut Session, _: Bound) -> Result<Value, SessionError> {
    inst(PassTimingInstrument::new())
}
fn b_print_before(_: &mut Session, _: Bound) -> Result<Value, SessionError> {
    inst(PrintBeforeAll)
}
fn b_print_after(_: &mut Session, _: Bound) -> Result<Value, SessionError> {
    inst(PrintAfterAll)
}
fn b_pass_printing(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    inst(PassPrintingInstrument::new(
        &a.strs("print_before_pass_names")?,
        &a.strs("print_after_pass_names")?,
    ))
}
fn b_dump_ir(s: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let dir = a
        .str("dir")?
        .ok_or_else(|| at("DumpIR needs a directory", a.span))?;
    inst(DumpIR::with_refresh(
        resolve(s, &dir),
        a.bool("refresh")?.unwrap_or(false),
    ))
}
fn b_print_changed(_: &mut Session, _: Bound) -> Result<Value, SessionError> {
    inst(PrintChanged::new())
}
fn b_trace(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let name = a.str("name")?.unwrap_or_else(|| "trace".into());
    let mut t = Trace::new(&name).skip(&a.strs("skip")?);
    if let Some(point) = a.str("fail_at")? {
        t = t.fail_at(&point).map_err(|e| at(e, a.span_of("fail_at")))?;
    }
    inst(t)
}
fn b_skip(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    inst(Skip::new(&a.strs("passes")?))
}
fn b_bisect(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    let limit = a
        .int("limit")?
        .ok_or_else(|| at("Bisect needs a limit", a.span))?;
    let limit = usize::try_from(limit)
        .map_err(|_| at("Bisect's limit cannot be negative", a.span_of("limit")))?;
    inst(Bisect::new(limit))
}
fn b_verify(_: &mut Session, a: Bound) -> Result<Value, SessionError> {
    use crate::eval::numerics::{DEFAULT_ATOL, DEFAULT_RTOL};
    if !a.bool("numerics")?.unwrap_or(false) {
        for p in ["rtol", "atol", "seed", "inputs"] {
            if a.get(p).is_some() {
                return Err(at(
                    format!("Verify: `{p}` applies with numerics=true"),
                    a.span_of(p),
                ));
            }
        }
        return inst(Verify::new());
    }
    let rtol = a.tolerance("rtol")?.unwrap_or(DEFAULT_RTOL);
    let atol = a.tolerance("atol")?.unwrap_or(DEFAULT_ATOL);
    if let Some(inputs) = super::bisect::tensor_list(&a, "inputs")? {
        if a.get("seed").is_some() {
            return Err(at(
                "Verify: give `inputs` or a `seed` for random ones, not both",
                a.span_of("seed"),
            ));
        }
        return inst(Verify::with_numerics_on(rtol, atol, inputs));
    }
    let seed = a.int("seed")?.unwrap_or(0);
    let seed = u64::try_from(seed)
        .map_err(|_| at("Verify: the seed cannot be negative", a.span_of("seed")))?;
    inst(Verify::with_numerics(rtol, atol, seed))
}
fn b_clear_output(s: &mut Session, _: Bound) -> Result<Value, SessionError> {
    s.clear_requested = true;
    Ok(Value::None)
}

fn b_stats(_: &mut Session, _: Bound) -> Result<Value, SessionError> {
    inst(Stats::new())
}

macro_rules! builtin {
    ($name:literal, $kind:ident, [$($p:literal),*], $sig:literal, $summary:literal, $f:ident) => {
        Builtin {
            name: $name,
            kind: BuiltinKind::$kind,
            params: &[$($p),*],
            signature: $sig,
            summary: $summary,
            run: |s, a| {
                let b = find($name).expect("in the table");
                $f(s, a.bind(b)?)
            },
        }
    };
}

/// Every builtin.
pub static BUILTINS: &[Builtin] = &[
    builtin!("parse", Function, ["text", "meta", "init_module"], "parse(\"\"\"<Relay text>\"\"\", meta=[const(...), ...], init_module=m)", "a module from Relay text (meta supplies meta[relay.Constant][i]; init_module: the text adds to a copy of m and sees its functions, types and constructors)", b_parse),
    builtin!("const", Function, ["data", "dtype"], "const([1, 2, 3], dtype=\"float32\")", "a constant tensor (nested lists give the shape)", b_const),
    builtin!("tensor", Function, ["data", "dtype"], "tensor(\"x.npy\") | tensor([[1, 2], [3, 4]], dtype=\"float32\")", "a tensor from a NumPy .npy file, or from nested lists of numbers", b_tensor),
    builtin!("save_tensor", Function, ["tensor", "path"], "save_tensor(t, \"x.npy\")", "write a tensor as a NumPy .npy file (atomically)", b_save_tensor),
    builtin!("evaluate", Function, ["module", "inputs", "func"], "evaluate(mod, [t1, t2], func=\"main\")", "run a module's function on tensors: a tensor, or a list for a tuple", b_evaluate),
    builtin!("allclose", Function, ["a", "b", "rtol", "atol", "equal_nan"], "allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=false)", "whether tensors (or lists of them) agree within atol + rtol * |b|; says by how much when not", b_allclose),
    builtin!("load", Function, ["path", "freeze_params"], "load(\"path.relay\") or load(\"model.onnx\", freeze_params=true)", "a module from a Relay file or an ONNX model (by extension)", b_load),
    builtin!("save", Function, ["module", "path"], "save(mod, \"path.relay\")", "write the printed module (atomically)", b_save),
    builtin!("equal", Function, ["a", "b"], "equal(a, b)", "structural equality up to variable names", b_equal),
    builtin!("type_args", Function, ["func"], "type_args(m[\"main\"])", "the type arguments of each call of a typed function (TVM's Call.type_args): [callee, [types]] per call, arguments first", b_type_args),
    Builtin {
        name: "print",
        kind: BuiltinKind::Function,
        params: &["values"],
        signature: "print(value, ...)",
        summary: "write values' plain text to standard output",
        run: |s, a| {
            if let Some((k, kspan, ..)) = a.kw.first() {
                return Err(at(format!("print takes no keyword arguments (got `{k}`)"), *kspan));
            }
            let values = Value::List(a.pos.into_iter().map(|(v, _)| v).collect());
            let b = find("print").expect("in the table");
            b_print(
                s,
                Bound {
                    name: b.name,
                    params: b.params,
                    slots: vec![Some((values, a.span))],
                    span: a.span,
                },
            )
        },
    },
    builtin!("render", Function, ["instrument"], "render(timing_instrument)", "TVM's text render of a PassTimingInstrument", b_render),
    builtin!("clear_output", Function, [], "clear_output()", "clear the cell's output so far (Jupyter; clears the screen in a terminal)", b_clear_output),
    builtin!("current", Function, [], "current()", "the current PassContext", b_current),
    builtin!("override_instruments", Function, ["instruments", "ctx"], "override_instruments([i, ...], ctx=None)", "replace a context's instruments (exit old, enter new)", b_override),
    builtin!("Sequential", Constructor, ["passes", "opt_level", "name", "required"], "Sequential([p, ...], opt_level=0, name=\"sequential\", required=[])", "a pipeline of passes", b_sequential),
    builtin!("text", Function, ["pass"], "text(pass)", "the pass as the expression that rebuilds it (what pipeline() and `passlab opt -p` read); of a module or function, its Relay text (TVM's astext())", b_text),
    builtin!("pipeline", Constructor, ["text"], "pipeline(\"Sequential([InferType(), FoldConstant()])\")", "the pass a pipeline text describes (the inverse of text)", b_pipeline),
    builtin!("reproducer", Function, ["path"], "reproducer(\"file.passlab\")", "write the last failed pass application as a script that `passlab run` fails on the same way", b_reproducer),
    builtin!("bisect", Function, ["pipeline", "module", "check", "inputs", "rtol", "atol", "seed"], "bisect(seq, m, check=\"numerics\" | \"verify\" | \"fails\", inputs=[t, ...], rtol=1e-4, atol=1e-5, seed=0)", "run seq on m and name the first pass whose output breaks the check, with the diff across it (reproducer() then writes it)", b_bisect_search),
    builtin!("timing_list", Function, [], "timing_list()", "the timing records as a flat list: one row per pass name, self times summed, largest first", b_timing_list),
    builtin!("save_timing", Function, ["path"], "save_timing(\"trace.json\")", "write the timing records in Chrome's trace-event format (open it in Perfetto)", b_save_timing),
    builtin!("reduce", Function, ["pipeline", "module", "check", "inputs", "rtol", "atol", "seed"], "reduce(seq, m, check=\"numerics\", inputs=[...])", "shrink a pipeline that breaks the check (delta debugging over its passes) and its module (functions it does not need): {\"pipeline\": ..., \"module\": ...}", b_reduce),
    builtin!("build_pipeline", Constructor, ["opt_level"], "build_pipeline(opt_level=3)", "the optimization passes TVM's relay.build runs (v0.18), as one Sequential", b_build_pipeline),
    builtin!("Target", Constructor, ["target"], "Target(\"llvm -mtriple=aarch64-linux-gnu -mattr=+v8.2a\")", "a compilation target (TVM's tvm.target.Target); `with Target(...) { }` makes AlterOpLayout use its layout hooks", b_target),
    builtin!("target", Constructor, ["target"], "target(\"llvm -mcpu=core-avx2\")", "the same as Target(...)", b_target),
    builtin!("register_op", Function, ["name", "num_inputs", "type_rel", "pattern", "stateful", "attrs_type_key"], "register_op(\"custom_log\", num_inputs=1, type_rel=\"Identity\", pattern=\"elemwise\", stateful=false, attrs_type_key=None)", "register an op for the rest of the process (TVM's _op.register): relations Identity, IdentityComp, Broadcast, BroadcastComp, Reduce", b_register_op),
    builtin!("current_target", Function, [], "current_target()", "the innermost entered Target (TVM's Target.current()), or None", b_current_target),
    builtin!("PassContext", Constructor, ["opt_level", "required_pass", "disabled_pass", "instruments", "config"], "PassContext(opt_level=2, required_pass=[], disabled_pass=[], instruments=[], config={})", "a pass context", b_pass_context),
    builtin!("module_pass", Constructor, ["name", "opt_level", "required", "add", "fail"], "module_pass(name=, opt_level=0, required=[], add=mod_or_text, fail=\"msg\")", "a user module pass", b_module_pass),
    builtin!("function_pass", Constructor, ["name", "opt_level", "required", "replace_with", "rewrite", "fail"], "function_pass(name=, opt_level=0, required=[], replace_with=function, rewrite=[\"add(?x, 0f) => ?x\"], fail=\"msg\")", "a user function pass", b_function_pass),
    builtin!("register", Function, ["pass", "summary"], "register(pass)", "make a user pass findable by name", b_register),
    builtin!("PassTimingInstrument", Instrument, [], "PassTimingInstrument()", "nested pass timing, shown by `timing`", b_timing),
    builtin!("PrintBeforeAll", Instrument, [], "PrintBeforeAll()", "print the module before every pass", b_print_before),
    builtin!("PrintAfterAll", Instrument, [], "PrintAfterAll()", "print the module after every pass", b_print_after),
    builtin!("PassPrintingInstrument", Instrument, ["print_before_pass_names", "print_after_pass_names"], "PassPrintingInstrument(print_before_pass_names=[...], print_after_pass_names=[...])", "print before/after the listed passes", b_pass_printing),
    builtin!("DumpIR", Instrument, ["dir", "refresh"], "DumpIR(\"dir\", refresh=false)", "write the module after each pass to dir/NNN_<pass>.relay", b_dump_ir),
    builtin!("PrintChanged", Instrument, [], "PrintChanged()", "a diff of the IR after each pass that changed it", b_print_changed),
    builtin!("Trace", Instrument, ["name", "skip", "fail_at"], "Trace(name=\"t\", skip=[], fail_at=None)", "log every instrument event", b_trace),
    builtin!("Skip", Instrument, ["passes"], "Skip([\"PassName\", ...])", "should_run is false for the listed passes", b_skip),
    builtin!("Bisect", Instrument, ["limit"], "Bisect(limit)", "should_run is false after `limit` passes have run", b_bisect),
    builtin!("Verify", Instrument, ["numerics", "rtol", "atol", "seed", "inputs"], "Verify(numerics=false, rtol=1e-4, atol=1e-5, seed=0, inputs=[tensors])", "well-formedness and type check after every pass; numerics=true also compares @main's numbers before and after each pass (on `inputs`, or seeded random ones)", b_verify),
    builtin!("Stats", Instrument, [], "Stats()", "node counts before/after each pass", b_stats),
];
