//! The rewrites of SimplifyExpr, one function each, tried in TVM's order. Each takes a call
//! whose operands are already simplified and returns its replacement, or `None` when it does
//! not apply (a rewrite that would rebuild the same program returns `None`, so the fixed
//! point is reached).

use super::transpose::{simplify_no_op_transpose, simplify_transpose};
use super::Simplifier;
use crate::ir::dtype::DTypeCode;
use crate::ir::{
    AttrValue, Call, Constant, DType, Expr, ExprKind, Op, OpPattern, TensorData, TensorType,
};
use crate::passes::fold_constant::fold_expr;
use crate::passes::infer_type::typed_constant;
use crate::passes::simplify_inference::{op_call, scalar};

type Rule = fn(&mut Simplifier, &Expr, &Call) -> Option<Expr>;

/// The first rewrite that applies to `e`, in TVM's order for the simplifier's mode.
pub(super) fn rewrite(s: &mut Simplifier, e: &Expr) -> Option<Expr> {
    const FULL: &[Rule] = &[
        concretize_like,
        simplify_add,
        simplify_rsqrt,
        eliminate_identity,
        simplify_reshape,
        simplify_transpose,
        simplify_no_op_transpose,
        simplify_same_cast,
        simplify_consecutive_cast,
        full_elementwise,
        switch_add_multiply,
        adjacent_multiply_or_add,
        dequantize_arg,
        clip_and_consecutive_cast,
        simplify_clip,
        simplify_binomial,
    ];
    const POST_ALTER_OP: &[Rule] = &[
        eliminate_identity,
        simplify_reshape,
        simplify_same_cast,
        simplify_consecutive_cast,
        clip_and_consecutive_cast,
        simplify_clip,
    ];
    let call = e.as_call()?;
    let rules = if s.full() { FULL } else { POST_ALTER_OP };
    rules.iter().find_map(|rule| rule(s, e, call))
}

/// The name of the op `e` calls.
pub(super) fn op_name(e: &Expr) -> Option<&'static str> {
    e.call_op_of().map(|(op, _)| op.name())
}

/// The call of `name` that `e` is.
pub(super) fn call_of<'a>(e: &'a Expr, name: &str) -> Option<&'a Call> {
    match e.call_op_of() {
        Some((op, c)) if op.name() == name => Some(c),
        _ => None,
    }
}

pub(super) fn tensor(e: &Expr) -> Option<&TensorType> {
    e.ty()?.as_tensor()
}

fn name_of(call: &Call) -> &'static str {
    match call.callee.kind() {
        ExprKind::Op(op) => op.name(),
        _ => "",
    }
}

fn shape_attr(t: &TensorType) -> Option<AttrValue> {
    let dims = t.static_shape()?;
    Some(AttrValue::ints(&dims))
}

fn dtype_attr(d: DType) -> AttrValue {
    AttrValue::str(&d.to_string())
}

/// `*_like` ops with a static result become their explicit-shape forms; `cast_like` becomes
/// `cast` whatever the shape.
fn concretize_like(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    let name = name_of(call);
    let t = tensor(e)?;
    if name == "cast_like" {
        return Some(op_call(
            "cast",
            vec![call.args[0].clone()],
            vec![("dtype", dtype_attr(t.dtype))],
        ));
    }
    let shape = shape_attr(t)?;
    let args = &call.args;
    Some(match name {
        "zeros_like" | "ones_like" => op_call(
            &name[..name.len() - 5],
            vec![],
            vec![("shape", shape), ("dtype", dtype_attr(t.dtype))],
        ),
        "full_like" => op_call(
            "full",
            vec![args[1].clone()],
            vec![("shape", shape), ("dtype", dtype_attr(t.dtype))],
        ),
        "reshape_like" => op_call("reshape", vec![args[0].clone()], vec![("newshape", shape)]),
        "broadcast_to_like" => op_call(
            "broadcast_to",
            vec![args[0].clone()],
            vec![("shape", shape)],
        ),
        // TVM's `ConcretizeCollapseSumLikeRewrite`: the shape both as an int32 constant
        // argument and as the attribute.
        "collapse_sum_like" => {
            let dims = t.static_shape()?;
            let data = TensorData::from_i64(DType::INT32, vec![dims.len() as i64], &dims);
            op_call(
                "collapse_sum_to",
                vec![args[0].clone(), typed_constant(Constant::from_data(data))],
                vec![("shape", shape)],
            )
        }
        _ => return None,
    })
}

/// `add(x, x)` => `multiply(x, 2)`.
fn simplify_add(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    let [x, y] = &call.args[..] else { return None };
    if name_of(call) != "add" || !x.ptr_eq(y) {
        return None;
    }
    let dtype = tensor(e)?.dtype;
    Some(op_call(
        "multiply",
        vec![x.clone(), scalar(dtype, 2.0)],
        vec![],
    ))
}

/// `divide(n, sqrt(x))` => `multiply(n, rsqrt(x))`.
fn simplify_rsqrt(s: &mut Simplifier, _: &Expr, call: &Call) -> Option<Expr> {
    let [n, d] = &call.args[..] else { return None };
    let sqrt = call_of(d, "sqrt").filter(|_| name_of(call) == "divide")?;
    let r = s.build("rsqrt", vec![sqrt.args[0].clone()], vec![]);
    Some(op_call("multiply", vec![n.clone(), r], vec![]))
}

/// The value of a constant whose every dimension is 1, as TVM's `IsScalar` + `TryToScalar`.
fn scalar_constant(e: &Expr) -> Option<f64> {
    let data = e.as_constant()?.data.as_ref()?;
    (data.shape.iter().all(|&d| d == 1) && data.num_elements() == 1).then(|| data.get_f64(0))
}

/// Whether `e` is the identity of `op` (`zeros`/`zeros_like`/0 for add and subtract,
/// `ones`/`ones_like`/1 for multiply and divide).
fn is_identity_operand(op: &str, e: &Expr) -> bool {
    let unit = if matches!(op, "add" | "subtract") {
        0.0
    } else {
        1.0
    };
    let (full, like) = if unit == 0.0 {
        ("zeros", "zeros_like")
    } else {
        ("ones", "ones_like")
    };
    match op_name(e) {
        Some(n) => n == full || n == like,
        None => e.as_constant().is_some() && scalar_constant(e) == Some(unit),
    }
}

/// `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x`, `x / 1` => `x` when `x` has the result's type.
fn eliminate_identity(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    let name = name_of(call);
    let [a, b] = &call.args[..] else { return None };
    let commutative = match name {
        "add" | "multiply" => true,
        "subtract" | "divide" => false,
        _ => return None,
    };
    let pre = e.ty()?;
    let orders: &[(&Expr, &Expr)] = if commutative {
        &[(a, b), (b, a)]
    } else {
        &[(a, b)]
    };
    for &(x, unit) in orders {
        if is_identity_operand(name, unit) {
            return (x.ty() == Some(pre)).then(|| x.clone());
        }
    }
    None
}

/// `reshape(reshape(x))` => `reshape(x)` to the static result shape; either reshape may be a
/// `contrib_reverse_reshape`.
fn simplify_reshape(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    let is_reshape = |name: &str| matches!(name, "reshape" | "contrib_reverse_reshape");
    if !is_reshape(name_of(call)) {
        return None;
    }
    let inner = match call.args[0].call_op_of() {
        Some((op, c)) if is_reshape(op.name()) => c,
        _ => return None,
    };
    let shape = shape_attr(tensor(e)?)?;
    Some(op_call(
        "reshape",
        vec![inner.args[0].clone()],
        vec![("newshape", shape)],
    ))
}

fn cast_dtype(e: &Expr) -> Option<DType> {
    Some(tensor(e)?.dtype)
}

fn is_cast(e: &Expr) -> bool {
    matches!(op_name(e), Some("cast" | "cast_like"))
}

/// A cast (or cast_like) to the dtype its operand has => the operand.
fn simplify_same_cast(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    if !is_cast(e) {
        return None;
    }
    let data = &call.args[0];
    (cast_dtype(e)? == cast_dtype(data)?).then(|| data.clone())
}

/// TVM's `DataType` code order: int, uint (bool is uint1), float, bfloat.
fn tvm_code(d: DType) -> u8 {
    match d.code {
        DTypeCode::Int => 0,
        DTypeCode::UInt | DTypeCode::Bool => 1,
        DTypeCode::Float => 2,
        DTypeCode::BFloat => 4,
    }
}

/// TVM's `IsWidenCast`.
fn is_widen_cast(origin: DType, cast: DType) -> bool {
    let (oc, cc) = (tvm_code(origin), tvm_code(cast));
    if oc == cc && origin.bits <= cast.bits {
        return true;
    }
    if origin.code == DTypeCode::BFloat || cast.code == DTypeCode::BFloat {
        return false;
    }
    oc < cc && origin.bits <= cast.bits
}

/// `cast(cast(x))` => `cast(x)` when the inner cast widens.
fn simplify_consecutive_cast(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    if !is_cast(e) || !is_cast(&call.args[0]) {
        return None;
    }
    let cast1 = &call.args[0];
    let data = &cast1.as_call()?.args[0];
    if !is_widen_cast(cast_dtype(data)?, cast_dtype(cast1)?) {
        return None;
    }
    let to = cast_dtype(e)?;
    Some(op_call(
        "cast",
        vec![data.clone()],
        vec![("dtype", dtype_attr(to))],
    ))
}

/// The fill value of a `full`, `full_like`, `ones`, `ones_like`, `zeros` or `zeros_like`:
/// the constant for the first two, else 1 or 0 as a scalar of `dtype`.
fn fill_value(e: &Expr, dtype: DType) -> Option<Expr> {
    let (_, c) = e.call_op_of()?;
    match op_name(e)? {
        "full" => c.args[0].as_constant().map(|_| c.args[0].clone()),
        "full_like" => c.args[1].as_constant().map(|_| c.args[1].clone()),
        "ones" | "ones_like" => Some(scalar(dtype, 1.0)),
        "zeros" | "zeros_like" => Some(scalar(dtype, 0.0)),
        _ => None,
    }
}

/// A broadcast op with a `full`-like operand of the result's shape takes its fill value.
fn full_elementwise(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    let ExprKind::Op(op) = call.callee.kind() else {
        return None;
    };
    if op.pattern != Some(OpPattern::Broadcast) {
        return None;
    }
    let [a, b] = &call.args[..] else { return None };
    let pre = e.ty()?;
    let dtype = pre.as_tensor()?.dtype;
    // TVM tries `op(full, x)` first, then `op(x, full)`.
    let (value, x_is_left) = match fill_value(a, dtype) {
        Some(v) => (v, false),
        None => (fill_value(b, dtype)?, true),
    };
    let x = if x_is_left { a } else { b };
    if x.ty() != Some(pre) {
        return None;
    }
    let args = if x_is_left {
        vec![x.clone(), value]
    } else {
        vec![value, x.clone()]
    };
    Some(rebuild(e, call, *op, args))
}

/// A call of `op` with `call`'s attributes and new arguments, keeping `e`'s span.
fn rebuild(e: &Expr, call: &Call, op: Op, args: Vec<Expr>) -> Expr {
    let built = crate::passes::infer_type::typed_call(op, args, call.attrs.clone());
    Expr::with_info(built.kind().shallow_clone(), built.ty().cloned(), e.span())
}

/// The operands of a commutative `name` call, in both orders.
fn both_orders<'a>(e: &'a Expr, name: &str) -> Vec<(&'a Expr, &'a Expr)> {
    match call_of(e, name) {
        Some(c) if c.args.len() == 2 => vec![(&c.args[0], &c.args[1]), (&c.args[1], &c.args[0])],
        _ => vec![],
    }
}

fn is_constant(e: &Expr) -> bool {
    e.as_constant().is_some()
}

/// `(x + c1) * c2` => `x * c2 + c1 * c2` (the last product folded).
fn switch_add_multiply(s: &mut Simplifier, e: &Expr, _: &Call) -> Option<Expr> {
    for (add, c2) in both_orders(e, "multiply") {
        if !is_constant(c2) {
            continue;
        }
        for (x, c1) in both_orders(add, "add") {
            if is_constant(c1) && !is_constant(x) {
                let scaled = s.build("multiply", vec![x.clone(), c2.clone()], vec![]);
                let c = fold_expr(&op_call("multiply", vec![c1.clone(), c2.clone()], vec![]));
                return Some(op_call("add", vec![scaled, c], vec![]));
            }
        }
    }
    None
}

/// `(x * c1) * c2` => `x * (c1 * c2)` and `(x + c1) + c2` => `x + (c1 + c2)`, folded.
fn adjacent_multiply_or_add(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    let name = name_of(call);
    if name != "multiply" && name != "add" {
        return None;
    }
    for (inner, c2) in both_orders(e, name) {
        if !is_constant(c2) {
            continue;
        }
        for (x, c1) in both_orders(inner, name) {
            if is_constant(c1) && !is_constant(x) {
                let c = fold_expr(&op_call(name, vec![c1.clone(), c2.clone()], vec![]));
                return Some(op_call(name, vec![x.clone(), c], vec![]));
            }
        }
    }
    None
}

/// `argmax`/`argmin`/`argsort` of `qnn.dequantize(x, ..)` => of `x`.
fn dequantize_arg(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    let ExprKind::Op(op) = call.callee.kind() else {
        return None;
    };
    if !matches!(op.name(), "argmax" | "argmin" | "argsort") {
        return None;
    }
    let dq = call_of(&call.args[0], "qnn.dequantize")?;
    Some(rebuild(e, call, *op, vec![dq.args[0].clone()]))
}

/// TVM's `CheckDataTypeMaxMinValue`: `contains` (mode 0) whether `[lo, hi]` contains the range
/// of `dtype`, else (mode 1) whether the range of `dtype` contains `[lo, hi]`.
fn range_check(dtype: DType, lo: f64, hi: f64, contains: bool) -> bool {
    let (lb, ub) = match (dtype.code, dtype.bits) {
        (DTypeCode::Int, b @ 1..=64) => (-(2f64.powi(b as i32 - 1)), 2f64.powi(b as i32 - 1) - 1.0),
        (DTypeCode::UInt, b @ 1..=64) => (0.0, 2f64.powi(b as i32) - 1.0),
        (DTypeCode::Bool, _) => (0.0, 1.0),
        (DTypeCode::Float, 16) => (-65504.0, 65504.0),
        (DTypeCode::Float, 32) => (f32::MIN as f64, f32::MAX as f64),
        (DTypeCode::Float, 64) => (f64::MIN, f64::MAX),
        (DTypeCode::BFloat, 16) => (-3.3895313892515355e38, 3.3895313892515355e38),
        _ => (0.0, 0.0),
    };
    if contains {
        hi >= ub && lo <= lb
    } else {
        hi <= ub && lo >= lb
    }
}

fn clip_range(c: &Call) -> Option<(f64, f64)> {
    Some((c.attrs.get_float("a_min")?, c.attrs.get_float("a_max")?))
}

/// `cast(..cast(clip(x))..)`: the casts whose dtype holds the clip's range are removed (a cast
/// to the chain's dtype is added back when the dtype would change).
fn clip_and_consecutive_cast(_: &mut Simplifier, e: &Expr, _: &Call) -> Option<Expr> {
    if op_name(e) != Some("cast") {
        return None;
    }
    let mut casts = Vec::new();
    let mut cur = e;
    while op_name(cur) == Some("cast") {
        casts.push(cur);
        cur = &cur.as_call()?.args[0];
    }
    let clip = call_of(cur, "clip")?;
    let (lo, hi) = clip_range(clip)?;
    let mut remaining = Vec::new();
    for c in &casts {
        if !range_check(cast_dtype(c)?, lo, hi, false) {
            remaining.push(*c);
        }
    }
    let last = remaining.first().copied().unwrap_or(cur);
    let want = cast_dtype(e)?;
    let extra = cast_dtype(last)? != want;
    if remaining.len() == casts.len() && !extra {
        return None;
    }
    let mut res = cur.clone();
    for c in remaining.iter().rev() {
        res = op_call(
            "cast",
            vec![res],
            vec![("dtype", dtype_attr(cast_dtype(c)?))],
        );
    }
    if extra {
        res = op_call("cast", vec![res], vec![("dtype", dtype_attr(want))]);
    }
    Some(res)
}

/// `clip(x)` whose range holds its dtype's whole range => `x`.
fn simplify_clip(_: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    if name_of(call) != "clip" {
        return None;
    }
    let x = &call.args[0];
    if matches!(op_name(x), Some("qnn.requantize" | "qnn.add")) {
        return None;
    }
    let (lo, hi) = clip_range(call)?;
    range_check(cast_dtype(e)?, lo, hi, true).then(|| x.clone())
}

/// The operands of `multiply` in both orders.
fn factors(e: &Expr) -> Vec<(&Expr, &Expr)> {
    both_orders(e, "multiply")
}

/// A square term of TVM's `SimplifyBinomial`: `a * (x * x)`, `x * (a * x)` or `x * x` (each
/// multiply either way round), as (x, a).
fn square_terms(e: &Expr) -> Vec<(&Expr, Option<&Expr>)> {
    let mut out = Vec::new();
    for (p, q) in factors(e) {
        if p.ptr_eq(q) {
            out.push((p, None));
        }
        if is_constant(p) {
            for (u, v) in factors(q) {
                if u.ptr_eq(v) {
                    out.push((u, Some(p)));
                }
            }
        }
        for (k, v) in factors(q) {
            if is_constant(k) && v.ptr_eq(p) {
                out.push((p, Some(k)));
            }
        }
    }
    out
}

/// The cross term `b * (x * y)`, `x * (b * y)`, `y * (b * x)` or `x * y` for these x and y
/// (each multiply either way round): `Some(b)` (`Some(None)` without a coefficient).
fn cross_term<'a>(e: &'a Expr, x: &Expr, y: &Expr) -> Option<Option<&'a Expr>> {
    for (p, q) in factors(e) {
        if p.ptr_eq(x) && q.ptr_eq(y) {
            return Some(None);
        }
        if is_constant(p) {
            for (u, v) in factors(q) {
                if u.ptr_eq(x) && v.ptr_eq(y) {
                    return Some(Some(p));
                }
            }
        }
        for (first, second) in [(x, y), (y, x)] {
            if p.ptr_eq(first) {
                for (k, v) in factors(q) {
                    if is_constant(k) && v.ptr_eq(second) {
                        return Some(Some(k));
                    }
                }
            }
        }
    }
    None
}

/// The first element of a constant coefficient (1 without one), as TVM reads it.
fn coefficient(c: Option<&Expr>) -> Option<f64> {
    match c {
        None => Some(1.0),
        Some(c) => {
            let data = c.as_constant()?.data.as_ref()?;
            (data.num_elements() > 0).then(|| data.get_f64(0))
        }
    }
}

/// TVM's `SimplifyBinomial`: `a*x*x + b*x*y + c*y*y` (the three terms in any order and
/// association TVM's pattern allows) => `a * ((x + y*p) * (x + y*q))` with p and q the roots
/// of `a*t^2 - b*t + c` (none when they are not real); x and y swap first when `c == 1 < a`.
/// Only int32, float32 and float64 (the dtypes TVM reads the coefficients of).
fn simplify_binomial(s: &mut Simplifier, e: &Expr, call: &Call) -> Option<Expr> {
    if name_of(call) != "add" {
        return None;
    }
    let dtype = tensor(e)?.dtype;
    if dtype != DType::INT32 && dtype != DType::FLOAT32 && dtype != DType::new(DTypeCode::Float, 64)
    {
        return None;
    }
    for (inner, third) in both_orders(e, "add") {
        let Some(pair) = call_of(inner, "add") else {
            continue;
        };
        let terms = [&pair.args[0], &pair.args[1], third];
        // (x_sq, xy, y_sq) as TVM's three alternatives put them (either operand order).
        const ROLES: [[usize; 3]; 6] = [
            [1, 0, 2],
            [0, 1, 2],
            [2, 0, 1],
            [2, 1, 0],
            [0, 2, 1],
            [1, 2, 0],
        ];
        for [xs, xy, ys] in ROLES {
            for (x, a) in square_terms(terms[xs]) {
                for (y, c) in square_terms(terms[ys]) {
                    let Some(b) = cross_term(terms[xy], x, y) else {
                        continue;
                    };
                    let (mut a, b, mut c) = (coefficient(a)?, coefficient(b)?, coefficient(c)?);
                    let (mut x, mut y) = (x.clone(), y.clone());
                    if c == 1.0 && a > 1.0 {
                        std::mem::swap(&mut x, &mut y);
                        std::mem::swap(&mut a, &mut c);
                    }
                    let d = b * b - 4.0 * a * c;
                    if d < 0.0 {
                        return None;
                    }
                    let same = d < 10e-5;
                    let root = d.sqrt();
                    let p = (b + root) / (2.0 * a);
                    let first = {
                        let py = s.build("multiply", vec![y.clone(), scalar(dtype, p)], vec![]);
                        s.build("add", vec![x.clone(), py], vec![])
                    };
                    let second = if same {
                        first.clone()
                    } else {
                        let q = (b - root) / (2.0 * a);
                        let qy = s.build("multiply", vec![y, scalar(dtype, q)], vec![]);
                        s.build("add", vec![x, qy], vec![])
                    };
                    let product = s.build("multiply", vec![first, second], vec![]);
                    return Some(op_call("multiply", vec![scalar(dtype, a), product], vec![]));
                }
            }
        }
    }
    None
}
