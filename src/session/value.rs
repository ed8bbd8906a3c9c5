//! Values of the command language: IR (modules, functions), passes, instruments, contexts,
//! and plain data (lists, maps, strings, numbers, booleans, None). Values are cheap to clone
//! (everything big is shared), so snapshotting a session is cheap.

use crate::instrument::InstrumentRef;
use crate::ir::{Expr, Module};
use crate::pass::{ConfigValue, Pass, PassContext};

/// A value bound to a name or computed by an expression.
#[derive(Clone)]
pub enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<Value>),
    Map(Vec<(Value, Value)>),
    Module(Module),
    /// A function of a module (`mod["main"]`), with its global name.
    Function {
        name: String,
        func: Expr,
        module: Module,
    },
    Pass(Pass),
    Instrument(InstrumentRef),
    Context(PassContext),
    /// A compilation target (`Target("llvm -mtriple=...")`), entered with `with` / `enter`.
    Target(crate::target::Target),
    /// A constant tensor (`const([1, 2, 3], dtype="float32")`), for `parse(..., meta=[...])`.
    Tensor(std::sync::Arc<crate::ir::TensorData>),
}

impl Value {
    /// The kind, as `vars` and error messages name it.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::None => "None",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Float(_) => "float",
            Value::Str(_) => "str",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Module(_) => "module",
            Value::Function { .. } => "function",
            Value::Pass(_) => "pass",
            Value::Instrument(_) => "instrument",
            Value::Context(_) => "context",
            Value::Target(_) => "target",
            Value::Tensor(_) => "tensor",
        }
    }

    /// How deeply lists and maps nest in the value (0 for anything else), counted up to
    /// `cap` and no further. Iterative: a value is never walked with the call stack.
    pub fn nesting(&self, cap: usize) -> usize {
        let mut deepest = 0;
        let mut stack: Vec<(&Value, usize)> = vec![(self, 0)];
        while let Some((v, d)) = stack.pop() {
            let inner: Box<dyn Iterator<Item = &Value>> = match v {
                Value::List(items) => Box::new(items.iter()),
                Value::Map(items) => Box::new(items.iter().flat_map(|(k, v)| [k, v])),
                _ => continue,
            };
            deepest = deepest.max(d + 1);
            if deepest >= cap {
                return cap;
            }
            stack.extend(inner.map(|x| (x, d + 1)));
        }
        deepest
    }

    /// A short Python-like rendering (for lists, maps, scalars and error messages).
    pub fn repr(&self) -> String {
        match self {
            Value::None => "None".into(),
            Value::Bool(b) => if *b { "true" } else { "false" }.into(),
            Value::Int(i) => i.to_string(),
            Value::Float(f) => {
                let s = f.to_string();
                if s.contains('.') || s.contains('e') || s.contains("inf") || s.contains("NaN") {
                    s
                } else {
                    format!("{s}.0")
                }
            }
            Value::Str(s) => format!("{s:?}"),
            Value::List(items) => {
                let parts: Vec<String> = items.iter().map(Value::repr).collect();
                format!("[{}]", parts.join(", "))
            }
            Value::Map(items) => {
                let parts: Vec<String> = items
                    .iter()
                    .map(|(k, v)| format!("{}: {}", k.repr(), v.repr()))
                    .collect();
                format!("{{{}}}", parts.join(", "))
            }
            Value::Module(m) => format!(
                "<module: {}>",
                m.names()
                    .iter()
                    .map(|n| format!("@{n}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Value::Function { name, .. } => format!("<function @{name}>"),
            Value::Pass(p) => format!("<pass {}>", p.info().name()),
            Value::Instrument(i) => format!("<instrument {}>", i.name()),
            Value::Context(c) => format!("<PassContext opt_level={}>", c.opt_level()),
            Value::Target(t) => format!("Target({:?})", t.to_string()),
            Value::Tensor(t) => {
                let vals: Vec<String> = if t.dtype.is_float() {
                    t.to_f64_vec()
                        .iter()
                        .take(8)
                        .map(|v| format!("{v}"))
                        .collect()
                } else {
                    t.to_i64_vec()
                        .iter()
                        .take(8)
                        .map(|v| v.to_string())
                        .collect()
                };
                let more = if t.num_elements() > 8 { ", ..." } else { "" };
                format!(
                    "<tensor {:?} {}: [{}{more}]>",
                    t.shape,
                    t.dtype,
                    vals.join(", ")
                )
            }
        }
    }

    /// Converts plain data to a config/option value.
    pub fn to_config(&self) -> Option<ConfigValue> {
        Some(match self {
            Value::None => ConfigValue::None,
            Value::Bool(b) => ConfigValue::Bool(*b),
            Value::Int(i) => ConfigValue::Int(*i),
            Value::Float(f) => ConfigValue::Float(*f),
            Value::Str(s) => ConfigValue::Str(s.as_str().into()),
            Value::List(items) => {
                ConfigValue::List(items.iter().map(Value::to_config).collect::<Option<_>>()?)
            }
            Value::Map(items) => ConfigValue::Map(
                items
                    .iter()
                    .map(|(k, v)| match k {
                        Value::Str(k) => Some((k.as_str().into(), v.to_config()?)),
                        _ => None,
                    })
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    /// The inverse of [`Value::to_config`].
    pub fn from_config(v: &ConfigValue) -> Value {
        match v {
            ConfigValue::None => Value::None,
            ConfigValue::Bool(b) => Value::Bool(*b),
            ConfigValue::Int(i) => Value::Int(*i),
            ConfigValue::Float(f) => Value::Float(*f),
            ConfigValue::Str(s) => Value::Str(s.to_string()),
            ConfigValue::List(items) => Value::List(items.iter().map(Value::from_config).collect()),
            ConfigValue::Map(items) => Value::Map(
                items
                    .iter()
                    .map(|(k, v)| (Value::Str(k.to_string()), Value::from_config(v)))
                    .collect(),
            ),
        }
    }
}
