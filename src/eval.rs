//! Tensors as values: the op kernels, the reference evaluator, and what the language does
//! with tensors (NumPy files, comparison, display, random inputs).
//!
//! - [`ops`]: the one kernel of each op (`ops::apply`), used by FoldConstant to fold and by
//!   the evaluator to run, so both give the same numbers; `value.rs` holds the `ndarray`
//!   values they compute on, `elementwise.rs`, `shape_ops.rs`, `indexing.rs`, `reduce.rs`,
//!   `nn.rs` (+ `gemm.rs`), `pool.rs`, `norm.rs`, `resize.rs` the kernels.
//! - [`evaluate`]: runs a module's function on tensors (TVM's `create_executor("debug")`),
//!   on the machine in `interp.rs`.
//! - [`npy`]: NumPy `.npy` files in and out; [`compare`]: `allclose` with a report of the
//!   difference; [`summary`]: a tensor's one-look display; [`random`]: seeded inputs for a
//!   function's parameter types; [`numerics`]: whether a pass changed the numbers.

pub(crate) mod broadcast;
pub mod compare;
pub mod dynamic;
pub(crate) mod einsum;
pub(crate) mod elementwise;
mod gemm;
mod grid_sample;
mod indexing;
pub(crate) mod interp;
mod layout;
mod nn;
mod norm;
pub mod npy;
pub mod numerics;
pub mod ops;
mod pool;
mod qnn;
pub mod random;
mod reduce;
mod resize;
mod scatter;
mod select;
pub(crate) mod shape_ops;
pub mod summary;
pub mod value;

pub use value::Value;

use crate::ir::{Module, Span, TensorData, Type};
use interp::{Machine, TupleVal, RV};
use ops::Arg;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;

/// Why an evaluation failed: a message naming the op, variable or argument, and the span of
/// the expression it was evaluating (in the module's source text, when it was parsed).
#[derive(Clone, Debug, PartialEq)]
pub struct EvalError {
    pub message: String,
    pub span: Option<Span>,
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EvalError {}

fn plain(message: impl Into<String>) -> EvalError {
    EvalError {
        message: message.into(),
        span: None,
    }
}

/// What a function returned: a tensor, a tuple of results, or a value of an algebraic data
/// type.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    Tensor(TensorData),
    Tuple(Vec<Output>),
    Adt(AdtOutput),
}

/// A value made by ADT constructors (`Cons(1, Cons(2, Nil))`), flattened: the text around its
/// tensor fields, and those tensors in order. Flat, so that showing, comparing and dropping a
/// list of a million cells never recurses.
#[derive(Clone, Debug, PartialEq)]
pub struct AdtOutput {
    /// The text before, between and after the tensors: one more piece than tensors.
    pub pieces: Vec<String>,
    pub tensors: Vec<TensorData>,
}

impl AdtOutput {
    /// The value as Relay text: `Cons(1, Cons(2, Nil))`. A scalar is written as its literal
    /// (`1f`, `2i64`, `True`), a larger tensor by its type (`Tensor[(2, 3), float32]`).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            out.push_str(piece);
            if let Some(t) = self.tensors.get(i) {
                match crate::text::printer::scalar_literal(t) {
                    Some(lit) => out.push_str(&lit),
                    None => {
                        let dims: Vec<String> = t.shape.iter().map(i64::to_string).collect();
                        let comma = if dims.len() == 1 { "," } else { "" };
                        out.push_str(&format!(
                            "Tensor[({}{comma}), {}]",
                            dims.join(", "),
                            t.dtype
                        ));
                    }
                }
            }
        }
        out
    }
}

impl Output {
    /// The tensors in order (a tuple flattened, depth first).
    pub fn tensors(&self) -> Vec<&TensorData> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(o) = stack.pop() {
            match o {
                Output::Tensor(t) => out.push(t),
                Output::Tuple(items) => stack.extend(items.iter().rev()),
                Output::Adt(a) => out.extend(a.tensors.iter()),
            }
        }
        out
    }
}

/// `dtype [d0, d1, ...]`, as messages name a tensor.
pub fn describe(t: &TensorData) -> String {
    format!("{} {:?}", t.dtype, t.shape)
}

pub(crate) fn describe_args(args: &[Arg<'_>]) -> String {
    fn one(a: &Arg<'_>) -> String {
        crate::ir::deep(|| match a {
            Arg::Tensor(v) => format!("{} {:?}", v.dtype, v.shape()),
            Arg::Tuple(fs) => format!("({})", fs.iter().map(one).collect::<Vec<_>>().join(", ")),
        })
    }
    format!("({})", args.iter().map(one).collect::<Vec<_>>().join(", "))
}

/// Runs `@func` of `m` on `args` (TVM's `create_executor("debug", mod).evaluate()(*args)`).
pub fn evaluate(m: &Module, func: &str, args: &[&TensorData]) -> Result<Output, EvalError> {
    evaluate_with(m, func, args, None)
}

/// [`evaluate`], stopping with an error soon after `interrupt` is set.
pub fn evaluate_with(
    m: &Module,
    func: &str,
    args: &[&TensorData],
    interrupt: Option<&AtomicBool>,
) -> Result<Output, EvalError> {
    let f = m
        .get(func)
        .ok_or_else(|| plain(format!("the module has no function @{func}")))?;
    let fun = f
        .as_function()
        .ok_or_else(|| plain(format!("@{func} is not a function")))?;
    if fun.params.len() != args.len() {
        return Err(plain(format!(
            "@{func} takes {} argument(s), got {}",
            fun.params.len(),
            args.len()
        )));
    }
    let mut values = Vec::with_capacity(args.len());
    for (i, (p, a)) in fun.params.iter().zip(args).enumerate() {
        if let Some(want) = p.ann.as_ref().and_then(Type::as_tensor) {
            let shape_ok = want.static_shape().is_none_or(|s| s == a.shape);
            if want.dtype != a.dtype || !shape_ok || want.shape.len() != a.shape.len() {
                return Err(plain(format!(
                    "argument {} (%{}) of @{func} must be {}, got {}",
                    i + 1,
                    p.name,
                    crate::ir::Type::from(want.clone()),
                    describe(a)
                )));
            }
        }
        let v = Value::from_data(a).ok_or_else(|| {
            plain(format!(
                "argument {} (%{}): {} are not evaluated",
                i + 1,
                p.name,
                if a.dtype == crate::ir::DType::new(crate::ir::dtype::DTypeCode::UInt, 64) {
                    "uint64 values at or above 2^63".to_string()
                } else {
                    format!("{} tensors", a.dtype)
                }
            ))
        })?;
        values.push(RV::Tensor(Rc::new(v)));
    }
    let mut machine = Machine::new(m, interrupt);
    let out = machine.call(f, values)?;
    to_output(&out).ok_or_else(|| {
        plain(format!(
            "@{func} returned a function or a reference (or a data value holding one), not tensors"
        ))
    })
}

fn to_output(v: &RV) -> Option<Output> {
    crate::ir::deep(|| match v {
        RV::Tensor(t) => Some(Output::Tensor(t.to_data())),
        RV::Tuple(fs) => {
            let TupleVal(items) = &**fs;
            Some(Output::Tuple(
                items.iter().map(to_output).collect::<Option<_>>()?,
            ))
        }
        RV::Adt(_) => adt_output(v).map(Output::Adt),
        RV::Closure(_) | RV::Ref(_) => None,
    })
}

/// Flattens a constructor value (with the tuples and tensors inside it) into its text and
/// tensors, iteratively; `None` when a function or reference is inside.
fn adt_output(v: &RV) -> Option<AdtOutput> {
    #[derive(Clone, Copy)]
    enum Item<'a> {
        Val(&'a RV),
        Text(&'static str),
    }
    let mut out = AdtOutput {
        pieces: vec![String::new()],
        tensors: Vec::new(),
    };
    let mut stack = vec![Item::Val(v)];
    while let Some(item) = stack.pop() {
        let piece = out.pieces.last_mut().expect("one piece at least");
        let fields: &[RV] = match item {
            Item::Text(t) => {
                piece.push_str(t);
                continue;
            }
            Item::Val(RV::Tensor(t)) => {
                out.tensors.push(t.to_data());
                out.pieces.push(String::new());
                continue;
            }
            Item::Val(RV::Closure(_) | RV::Ref(_)) => return None,
            Item::Val(RV::Adt(a)) => {
                piece.push_str(&a.ctor.name);
                if a.fields.is_empty() {
                    continue;
                }
                &a.fields
            }
            Item::Val(RV::Tuple(t)) => &t.0,
        };
        piece.push('(');
        stack.push(Item::Text(
            if fields.len() == 1 && matches!(item, Item::Val(RV::Tuple(_))) {
                ",)"
            } else {
                ")"
            },
        ));
        for (i, f) in fields.iter().enumerate().rev() {
            stack.push(Item::Val(f));
            if i > 0 {
                stack.push(Item::Text(", "));
            }
        }
    }
    Some(out)
}
