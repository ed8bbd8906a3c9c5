//! Robustness tests of the rule table: every rule is fed random argument types (unknown,
//! tuples, tensors of assorted ranks, extents, widths and dtypes) and random attributes of
//! the right and wrong kinds, and must answer without panicking; and the common ops all
//! have rules.

use super::*;
use crate::ir::op::{AttrKind, AttrSchema};

/// A tiny deterministic generator (xorshift), so the fuzz test needs no dependency.
struct Gen(u64);
impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[(self.next() % xs.len() as u64) as usize].clone()
    }
    fn small(&mut self) -> i64 {
        self.pick(&[-3, -2, -1, 0, 1, 1, 2, 3, 4, 7])
    }
}

fn random_tensor(g: &mut Gen) -> Type {
    let rank = g.next() % 6;
    let shape = (0..rank)
        .map(|_| {
            g.pick(&[
                Dim::Static(0),
                Dim::Static(1),
                Dim::Static(2),
                Dim::Static(3),
                Dim::Static(8),
                Dim::Any,
                Dim::Static64(4),
            ])
        })
        .collect();
    let dt = g.pick(&[DType::FLOAT32, DType::INT32, DType::BOOL, DType::INT64]);
    tensor(shape, dt)
}

fn random_type(g: &mut Gen) -> Option<Type> {
    match g.next() % 8 {
        0 => None,
        1 => Some(Type::tuple(
            (0..g.next() % 4).map(|_| random_tensor(g)).collect(),
        )),
        _ => Some(random_tensor(g)),
    }
}

fn random_attrs(g: &mut Gen, schema: &AttrSchema) -> Attrs {
    let fields = schema
        .fields
        .iter()
        .map(|f| {
            let v = match (f.kind, g.next() % 6) {
                (_, 0) => AttrValue::Null,
                (AttrKind::Int, _) => AttrValue::int(g.small()),
                (AttrKind::Bool, _) => AttrValue::Bool(g.next().is_multiple_of(2)),
                (AttrKind::Double, _) => AttrValue::Float(g.pick(&[0.5, 1.0, 2.0, -1.0])),
                (AttrKind::Str, _) => AttrValue::str(g.pick(&[
                    "NCHW", "NHWC", "", "OIHW", "HWIO", "NCHW4c", "end", "size", "x",
                ])),
                (AttrKind::DType, _) => AttrValue::str(g.pick(&["float32", "int32", "", "bogus"])),
                (AttrKind::Array | AttrKind::Any, 1) => AttrValue::int(g.small()),
                (AttrKind::Array | AttrKind::Any, 2) => AttrValue::Array(
                    (0..g.next() % 4)
                        .map(|_| AttrValue::ints(&[g.small(), g.small()]))
                        .collect(),
                ),
                (AttrKind::Array | AttrKind::Any, _) => {
                    let n = g.next() % 6;
                    AttrValue::Array((0..n).map(|_| AttrValue::int(g.small())).collect())
                }
            };
            (f.name.into(), v)
        })
        .collect();
    Attrs::new(Some(schema.type_key), fields)
}

/// No rule panics, whatever the argument types and attributes.
#[test]
fn rules_never_panic() {
    let mut g = Gen(0x9E37_79B9_7F4A_7C15);
    let mut covered = 0;
    for op in crate::ir::op::all() {
        let Some(Rule::Fn(f)) = rule_for(op) else {
            continue;
        };
        covered += 1;
        let n = op.num_inputs.max(0) as usize;
        for _ in 0..300 {
            let types: Vec<Option<Type>> = (0..=n).map(|_| random_type(&mut g)).collect();
            let attrs = match op.schema {
                Some(s) => random_attrs(&mut g, s),
                None => Attrs::NONE,
            };
            let res = std::panic::catch_unwind(|| {
                let mut rel = Rel::new(op.name(), &attrs, &types);
                let _ = f(&mut rel);
            });
            assert!(
                res.is_ok(),
                "`{}` panicked on {types:?} with {attrs:?}",
                op.name()
            );
        }
    }
    assert!(covered > 80, "only {covered} ops have rules");
}

#[test]
fn every_common_op_has_a_rule() {
    for name in [
        "add",
        "nn.conv2d",
        "nn.dense",
        "nn.batch_matmul",
        "nn.max_pool2d",
        "nn.avg_pool2d",
        "nn.global_avg_pool2d",
        "nn.adaptive_avg_pool2d",
        "nn.batch_norm",
        "nn.layer_norm",
        "nn.dropout",
        "nn.softmax",
        "nn.log_softmax",
        "nn.bias_add",
        "nn.pad",
        "nn.batch_flatten",
        "reshape",
        "transpose",
        "concatenate",
        "stack",
        "split",
        "squeeze",
        "expand_dims",
        "take",
        "strided_slice",
        "sum",
        "mean",
        "max",
        "min",
        "prod",
        "all",
        "any",
        "argmax",
        "argmin",
        "variance",
        "cast",
        "full",
        "zeros",
        "ones",
        "zeros_like",
        "ones_like",
        "full_like",
        "clip",
        "layout_transform",
        "tile",
        "repeat",
        "broadcast_to",
        "where",
        "equal",
        "less",
        "exp",
        "sqrt",
        "nn.relu",
        "nn.prelu",
        "nn.matmul",
    ] {
        assert!(rule_for(Op::get(name).unwrap()).is_some(), "{name}");
    }
}
