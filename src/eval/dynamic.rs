//! The `dyn.*` ops: each is its static form with a shape, axis list, count or scale read from
//! a tensor argument instead of an attribute. [`static_form`] turns a `dyn.*` call whose
//! deciding arguments are known into that static call (op, attributes, remaining arguments),
//! following TVM v0.18's `dynamic_to_static.cc`: the evaluator runs a `dyn.*` op through it
//! and the static kernel, and DynamicToStatic rewrites the call with it, so both agree by
//! construction.
//!
//! Tensor values are read as TVM's `ToVector`/`ToScalar` read them: any numeric dtype,
//! truncated to an integer where an integer is meant. A deciding tensor of the wrong rank, or
//! attributes the static op rejects, give `None` (not evaluated, not rewritten).

use super::ops::{apply, Arg, OpOut};
use super::value::{Arr, Value};
use crate::ir::{AttrValue, Attrs, Op};
use std::sync::Arc;

/// A static call equivalent to a `dyn.*` call.
#[derive(Debug)]
pub struct StaticForm {
    pub op: Op,
    pub attrs: Attrs,
    /// The `dyn.*` call's arguments the static call keeps, in order.
    pub args: Vec<usize>,
}

/// Which arguments of a `dyn.*` op must be constants for its static form (the ones TVM's
/// pass reads). `None` for an op that is not one DynamicToStatic rewrites.
pub fn deciding_args(op: &str) -> Option<&'static [usize]> {
    Some(match op {
        "dyn.reshape" | "dyn.squeeze" | "dyn.tile" | "dyn.topk" | "dyn.broadcast_to" => &[1],
        "dyn.full" => &[1],
        "dyn.zeros" | "dyn.ones" => &[0],
        "dyn.one_hot" | "dyn.sparse_to_dense" => &[3],
        "dyn.image.resize2d" | "dyn.nn.pad" => &[1, 2],
        "dyn.nn.upsampling" => &[1, 2],
        "dyn.nn.upsampling3d" | "dyn.strided_slice" => &[1, 2, 3],
        _ => return None,
    })
}

fn values(v: &Value) -> Vec<f64> {
    match &v.arr {
        Arr::F32(a) => a.iter().map(|&x| x as f64).collect(),
        Arr::F64(a) => a.iter().copied().collect(),
        Arr::Int(a) => a.iter().map(|&x| x as f64).collect(),
    }
}

/// A 1-D tensor as integers (TVM's `ToVector`).
fn ints(v: &Value) -> Option<AttrValue> {
    if v.ndim() != 1 {
        return None;
    }
    let is: Vec<i64> = values(v).into_iter().map(|x| x as i64).collect();
    Some(AttrValue::ints(&is))
}

/// A 1-D tensor as floats (TVM's `ToFloatVector`).
fn floats(v: &Value) -> Option<AttrValue> {
    if v.ndim() != 1 {
        return None;
    }
    let fs: Vec<AttrValue> = values(v).into_iter().map(AttrValue::Float).collect();
    Some(AttrValue::Array(Arc::from(fs)))
}

/// A 0-d tensor's value (TVM's `ToScalar` with the `ndim == 0` check).
fn scalar(v: &Value) -> Option<f64> {
    if v.ndim() != 0 {
        return None;
    }
    values(v).first().copied()
}

/// A 2-D tensor as a list of integer lists (TVM's `ToMatrix`).
fn matrix(v: &Value) -> Option<AttrValue> {
    let &[rows, cols] = v.shape() else {
        return None;
    };
    let all = values(v);
    let rows: Vec<AttrValue> = (0..rows)
        .map(|r| {
            let row: Vec<i64> = all[r * cols..(r + 1) * cols]
                .iter()
                .map(|&x| x as i64)
                .collect();
            AttrValue::ints(&row)
        })
        .collect();
    Some(AttrValue::Array(Arc::from(rows)))
}

/// Attribute fields by name, in the order given.
type Fields = Vec<(Arc<str>, AttrValue)>;

/// The static form of `op(args)` with `attrs`, where `consts[i]` is argument `i`'s value when
/// it is known. `None` when a deciding argument is unknown or not of the form TVM requires.
pub fn static_form(op: &str, attrs: &Attrs, consts: &[Option<&Value>]) -> Option<StaticForm> {
    let c = |i: usize| consts.get(i).copied().flatten();
    // The dyn call's attributes that the static op keeps, by name.
    let keep = |names: &[&str]| -> Fields {
        attrs
            .fields()
            .iter()
            .filter(|(k, v)| names.contains(&&**k) && !v.is_null())
            .cloned()
            .collect()
    };
    let field = |name: &str, v: AttrValue| (Arc::<str>::from(name), v);
    let (name, mut given, args): (&str, Fields, Vec<usize>) = match op {
        // `allowzero` is kept when set (TVM's rewrite drops it, which changes what a 0 in
        // the shape means).
        "dyn.reshape" => {
            let mut g = vec![field("newshape", ints(c(1)?)?)];
            if attrs.get_bool("allowzero") == Some(true) {
                g.push(field("allowzero", AttrValue::Bool(true)));
            }
            ("reshape", g, vec![0])
        }
        "dyn.squeeze" => ("squeeze", vec![field("axis", ints(c(1)?)?)], vec![0]),
        "dyn.tile" => ("tile", vec![field("reps", ints(c(1)?)?)], vec![0]),
        "dyn.broadcast_to" => ("broadcast_to", vec![field("shape", ints(c(1)?)?)], vec![0]),
        "dyn.topk" => {
            let k = c(1).and_then(|v| values(v).first().copied())? as i64;
            let mut g = keep(&["axis", "ret_type", "is_ascend", "dtype"]);
            g.push(field("k", AttrValue::int(k)));
            ("topk", g, vec![0])
        }
        "dyn.zeros" | "dyn.ones" => {
            let mut g = keep(&["dtype"]);
            g.push(field("shape", ints(c(0)?)?));
            (&op[4..], g, vec![])
        }
        "dyn.full" => {
            let mut g = keep(&["dtype"]);
            g.push(field("shape", ints(c(1)?)?));
            ("full", g, vec![0])
        }
        "dyn.one_hot" => {
            let depth = c(3).and_then(|v| values(v).first().copied())? as i64;
            let mut g = keep(&["axis", "dtype"]);
            g.push(field("depth", AttrValue::int(depth)));
            ("one_hot", g, vec![0, 1, 2])
        }
        "dyn.image.resize2d" => {
            let mut g = keep(&[
                "layout",
                "method",
                "coordinate_transformation_mode",
                "rounding_method",
                "cubic_alpha",
                "cubic_exclude",
                "extrapolation_value",
                "out_dtype",
            ]);
            g.push(field("size", ints(c(1)?)?));
            g.push(field("roi", floats(c(2)?)?));
            ("image.resize2d", g, vec![0])
        }
        "dyn.nn.upsampling" => {
            let mut g = keep(&["layout", "method", "align_corners"]);
            g.push(field("scale_h", AttrValue::Float(scalar(c(1)?)?)));
            g.push(field("scale_w", AttrValue::Float(scalar(c(2)?)?)));
            ("nn.upsampling", g, vec![0])
        }
        "dyn.nn.upsampling3d" => {
            let mut g = keep(&["layout", "method", "coordinate_transformation_mode"]);
            g.push(field("scale_d", AttrValue::Float(scalar(c(1)?)?)));
            g.push(field("scale_h", AttrValue::Float(scalar(c(2)?)?)));
            g.push(field("scale_w", AttrValue::Float(scalar(c(3)?)?)));
            ("nn.upsampling3d", g, vec![0])
        }
        "dyn.nn.pad" => {
            scalar(c(2)?)?;
            let mut g = keep(&["pad_mode"]);
            g.push(field("pad_width", matrix(c(1)?)?));
            ("nn.pad", g, vec![0, 2])
        }
        "dyn.strided_slice" => {
            let mut g = keep(&["slice_mode"]);
            g.push(field("axes", AttrValue::Null));
            g.push(field("begin", ints(c(1)?)?));
            g.push(field("end", ints(c(2)?)?));
            g.push(field("strides", ints(c(3)?)?));
            ("strided_slice", g, vec![0])
        }
        "dyn.sparse_to_dense" => (
            "sparse_to_dense",
            vec![field("output_shape", ints(c(3)?)?)],
            vec![0, 1, 2],
        ),
        // Not rewritten by TVM's pass, but evaluated through its static form.
        "dyn.expand_dims" => {
            let axis = scalar(c(1)?)? as i64;
            let mut g = keep(&["num_newaxis"]);
            g.push(field("axis", AttrValue::int(axis)));
            ("expand_dims", g, vec![0])
        }
        _ => return None,
    };
    let op = Op::get(name)?;
    // Fields the static schema does not have (a stray key on a dyn call) are dropped.
    if let Some(schema) = op.schema_of(&Attrs::NONE) {
        given.retain(|(k, _)| schema.fields.iter().any(|f| f.name == &**k));
    }
    let attrs = op.make_attrs(given).ok()?;
    Some(StaticForm { op, attrs, args })
}

/// Evaluates a `dyn.*` op: its static form from the argument values, then the static kernel.
pub(crate) fn apply_dyn(op: &str, attrs: &Attrs, args: &[Arg<'_>]) -> Option<OpOut> {
    let consts: Vec<Option<&Value>> = args.iter().map(Arg::tensor).collect();
    let form = static_form(op, attrs, &consts)?;
    let kept: Vec<Arg<'_>> = form
        .args
        .iter()
        .map(|&i| args.get(i).cloned())
        .collect::<Option<_>>()?;
    apply(form.op.name(), &form.attrs, &kept)
}

/// Whether `op` is a `dyn.*` op with a kernel here.
pub(crate) fn is_dyn(op: &str) -> bool {
    deciding_args(op).is_some() || op == "dyn.expand_dims"
}
