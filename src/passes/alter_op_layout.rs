//! AlterOpLayout (TVM's `relay.transform.AlterOpLayout`, `alter_op_layout.cc`): a function pass
//! (level 3, requires InferType) that asks every op call's alter-layout hook for a replacement
//! call (TVM's `FTVMAlterOpLayout`, e.g. x86 `nn.conv2d` -> `contrib_conv2d_NCHWc` with
//! `NCHW16c` data) and then runs the layout rewriter of `layout_rewrite.rs` to insert the
//! `layout_transform`s the new layouts need.
//!
//! The hooks are target-specific (TVM registers them in Python per target, and the generic ones
//! return no replacement). Under an entered target (`with Target("llvm ...")`) the pass uses
//! TOPI's x86 and ARM hooks ([`TargetHooks`], `alter_op_layout/topi.rs`). Without one no hook
//! applies: every call keeps its attributes, the rewriter finds the same layouts before and
//! after, inserts nothing, and the pass returns each function unchanged (the same node),
//! exactly like TVM without a target. Hooks are a [`LayoutHook`]: [`alter_op_layout_with`] runs the rewriter with any hook, which
//! is how the machinery is tested. The user gives hooks in two forms, TVM's Python
//! `FTVMAlterOpLayout` callbacks written as data ([`UserHooks`]):
//! - `alter_attrs={"nn.conv2d": {"data_layout": "NCHW16c", "kernel_layout": "OIHW16i"}}`: every
//!   call of a named op takes those attributes, which is what most callbacks do
//!   (`new_attrs["data_layout"] = ...; return relay.nn.conv2d(data, weight, **new_attrs)`);
//! - `alter_rewrite={"nn.conv2d": ["nn.conv2d(?d, ?w) => nn.conv2d(?d, multiply(?w, 2f))"]}`
//!   (rules in `function_pass(rewrite=[...])`'s syntax): a callback that
//!   builds other ops. At each call of the op the first rule whose pattern matches the call
//!   (with its rewritten arguments, before any transform) gives the replacement, which must
//!   be a call; its op and attributes go to the layout rule and its arguments are
//!   transformed by position, as TVM's rewriter does with a callback's call (one with
//!   another number of arguments is applied to the call in its original layouts instead). A
//!   replacement calling the matched op starts from the matched call's attributes, and the
//!   attributes the rule writes with other than their default value replace them (TVM's
//!   `relay.nn.conv2d(data, weight, **attrs)`). No matching rule is a callback returning `None`.
mod topi;

pub use topi::TargetHooks;

use super::layout_rewrite::{LayoutHook, Rewriter};
use super::rewrite_rule::Rule;
use crate::ir::mutate::mutate;
use crate::ir::{AttrValue, Attrs, Call, Contains, Expr, ExprKind, Op};
use crate::pass::{leaf_function_pass, ConfigValue, Pass, PassError, PassErrorKind, PassOptions};
use std::sync::Arc;

/// The hooks without a target: none, so attributes never change.
pub struct NoTargetHooks;

impl LayoutHook for NoTargetHooks {
    fn new_attrs(&self, _op: Op, _call: &Expr, attrs: &Attrs) -> Attrs {
        attrs.clone()
    }
}

/// A hook from the `alter_attrs` option: op name -> the attributes its calls take.
#[derive(Clone, Debug, Default)]
pub struct AlterAttrs(pub Vec<(String, Vec<(String, AttrValue)>)>);

impl LayoutHook for AlterAttrs {
    fn new_attrs(&self, op: Op, _call: &Expr, attrs: &Attrs) -> Attrs {
        match self.0.iter().find(|(name, _)| name == op.name()) {
            Some((_, set)) => set
                .iter()
                .fold(attrs.clone(), |a, (k, v)| a.with(k, v.clone())),
            None => attrs.clone(),
        }
    }
}

/// The hooks of the `alter_attrs` and `alter_rewrite` options.
#[derive(Clone, Default)]
pub struct UserHooks {
    pub attrs: AlterAttrs,
    /// (op, rule) in the order given; an op's first matching rule replaces its call.
    pub rules: Arc<Vec<(Op, Rule)>>,
}

impl LayoutHook for UserHooks {
    fn new_attrs(&self, op: Op, call: &Expr, attrs: &Attrs) -> Attrs {
        self.attrs.new_attrs(op, call, attrs)
    }

    fn replaces(&self, op: Op) -> bool {
        self.rules.iter().any(|(o, _)| *o == op)
    }

    fn replace(&self, op: Op, call: &Expr, _orig: &Expr) -> Option<Expr> {
        let matched = call.as_call()?;
        let out = self
            .rules
            .iter()
            .filter(|(o, _)| *o == op)
            .find_map(|(_, rule)| rule.apply_at(call))?;
        let c = out.as_call()?;
        if !matches!(c.callee.kind(), ExprKind::Op(o) if *o == op) {
            return Some(out);
        }
        // The matched call's attributes, with the ones the rule writes.
        let defaults = op.default_attrs();
        let attrs = c
            .attrs
            .fields()
            .iter()
            .filter(|(k, v)| defaults.get(k) != Some(v))
            .fold(matched.attrs.clone(), |a, (k, v)| a.with(k, v.clone()));
        Some(Expr::with_info(
            ExprKind::Call(Call {
                callee: c.callee.clone(),
                args: c.args.clone(),
                attrs,
            }),
            None,
            call.span(),
        ))
    }
}

impl UserHooks {
    /// Whether the user gave a hook for `op` (TVM's `TempOpAttr` on that op).
    fn covers(&self, op: Op) -> bool {
        self.attrs.0.iter().any(|(name, _)| name == op.name())
            || self.rules.iter().any(|(o, _)| *o == op)
    }
}

/// The user's hooks for the ops they name, the target's for the others (TVM's `TempOpAttr`
/// overrides one op's registered `FTVMAlterOpLayout`; the rest keep the target's).
struct Layered<'a> {
    user: Option<&'a UserHooks>,
    target: Option<&'a TargetHooks>,
}

impl Layered<'_> {
    fn pick(&self, op: Op) -> Option<&dyn LayoutHook> {
        match (self.user, self.target) {
            (Some(u), _) if u.covers(op) => Some(u),
            (_, Some(t)) => Some(t),
            _ => None,
        }
    }
}

impl LayoutHook for Layered<'_> {
    fn new_attrs(&self, op: Op, call: &Expr, attrs: &Attrs) -> Attrs {
        match self.pick(op) {
            Some(h) => h.new_attrs(op, call, attrs),
            None => attrs.clone(),
        }
    }

    fn replaces(&self, op: Op) -> bool {
        self.pick(op).is_some_and(|h| h.replaces(op))
    }

    fn replace(&self, op: Op, call: &Expr, orig: &Expr) -> Option<Expr> {
        self.pick(op)?.replace(op, call, orig)
    }
}

/// An option value as an attribute value; `None` for a dictionary or a mixed list.
fn attr_value(v: &ConfigValue) -> Option<AttrValue> {
    Some(match v {
        ConfigValue::None => AttrValue::Null,
        ConfigValue::Bool(b) => AttrValue::Bool(*b),
        ConfigValue::Int(i) => AttrValue::int(*i),
        ConfigValue::Float(x) => AttrValue::Float(*x),
        ConfigValue::Str(s) => AttrValue::Str(s.clone()),
        ConfigValue::List(l) => AttrValue::Array(l.iter().map(attr_value).collect::<Option<_>>()?),
        ConfigValue::Map(_) => return None,
    })
}

/// Runs the layout rewriter on one typed function with `hook` as the alter-layout hooks.
pub fn alter_op_layout_with(f: &Expr, hook: &dyn LayoutHook) -> Expr {
    mutate(&mut Rewriter::new(hook), f)
}

/// The AlterOpLayout pass (no hooks: every function unchanged).
pub fn pass() -> Pass {
    pass_with(None)
}

/// The AlterOpLayout pass with the user's hooks, or with none.
fn pass_with(hooks: Option<UserHooks>) -> Pass {
    let info = super::builtin_info("AlterOpLayout");
    leaf_function_pass(info, move |g, f, m, cx| {
        let target = target_hooks(cx.context());
        let typed = super::typed::typed_function("AlterOpLayout", g, f, m)?;
        // As in ConvertLayout: without an op that takes its layouts from its attributes (or a
        // rule or target hook that may replace any op), nothing to walk.
        let rules = hooks.as_ref().is_some_and(|h| !h.rules.is_empty());
        if !rules && target.is_none() && !typed.contains().any(Contains::LAYOUT_OP) {
            return Ok(f.clone());
        }
        let out = match (&hooks, &target) {
            (None, None) => alter_op_layout_with(&typed, &NoTargetHooks),
            (user, target) => alter_op_layout_with(
                &typed,
                &Layered {
                    user: user.as_ref(),
                    target: target.as_ref(),
                },
            ),
        };
        Ok(if out.ptr_eq(&typed) { f.clone() } else { out })
    })
}

/// The hooks of the run's target, if it has any (an `arm_cpu` or `cpu` key).
fn target_hooks(ctx: &crate::pass::PassContext) -> Option<TargetHooks> {
    let on = |key: &str| ctx.config().get(key) == Some(&ConfigValue::Bool(true));
    let auto = on("relay.backend.use_auto_scheduler") || on("relay.backend.use_meta_schedule");
    let hooks = TargetHooks::new(ctx.target()?.clone(), auto);
    hooks.any().then_some(hooks)
}

fn options_error(message: String) -> PassError {
    PassError::from(PassErrorKind::Options {
        pass: "AlterOpLayout".into(),
        message,
    })
}

/// The registry's constructor: `AlterOpLayout()`, with `alter_attrs={...}` and/or
/// `alter_rewrite={...}`.
pub fn create(options: &PassOptions) -> Result<Pass, PassError> {
    let attrs = options.get("alter_attrs").and_then(|v| v.as_map());
    let rewrite = options.get("alter_rewrite").and_then(|v| v.as_map());
    if attrs.is_none() && rewrite.is_none() {
        return Ok(pass());
    }
    let mut ops = Vec::with_capacity(attrs.map_or(0, <[_]>::len));
    for (op, attrs) in attrs.unwrap_or(&[]) {
        let mut set = Vec::new();
        for (k, v) in attrs.as_map().unwrap_or(&[]) {
            let value = attr_value(v).ok_or_else(|| {
                options_error(format!(
                    "alter_attrs: {op}.{k} is not an attribute value (a number, string, \
                     boolean or list of them)"
                ))
            })?;
            set.push((k.to_string(), value));
        }
        ops.push((op.to_string(), set));
    }
    let mut rules = Vec::new();
    for (op_name, v) in rewrite.unwrap_or(&[]) {
        let op = Op::get(op_name)
            .ok_or_else(|| options_error(format!("alter_rewrite: unknown op {op_name:?}")))?;
        let texts = v
            .as_list()
            .unwrap_or(&[])
            .iter()
            .filter_map(ConfigValue::as_str);
        for text in texts {
            let rule = Rule::parse(text)
                .map_err(|e| options_error(format!("alter_rewrite: rule {text:?}: {e}")))?;
            if rule.op() != Some(op) {
                return Err(options_error(format!(
                    "alter_rewrite: the pattern of {text:?} must be a call of {op_name}"
                )));
            }
            if !rule.replaces_with_call() {
                return Err(options_error(format!(
                    "alter_rewrite: the replacement of {text:?} must be a call (TVM's alter \
                     callbacks return one)"
                )));
            }
            rules.push((op, rule));
        }
    }
    Ok(pass_with(Some(UserHooks {
        attrs: AlterAttrs(ops),
        rules: Arc::new(rules),
    })))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::AttrValue;
    use crate::passes::infer_type::infer_module;
    use crate::text::{parse_module, print_module_with, PrintOptions};

    /// A hook like a target's: every conv2d to NHWC data and HWIO kernels.
    struct ToNhwc;
    impl LayoutHook for ToNhwc {
        fn new_attrs(&self, op: Op, _call: &Expr, attrs: &Attrs) -> Attrs {
            if op.name() != "nn.conv2d" {
                return attrs.clone();
            }
            attrs
                .with("data_layout", AttrValue::str("NHWC"))
                .with("kernel_layout", AttrValue::str("HWIO"))
        }
    }

    #[test]
    fn a_hook_drives_the_rewriter_and_no_hook_changes_nothing() {
        let m = parse_module(
            "def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(8, 4, 3, 3), float32]) {
               %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3]);
               nn.relu(%0)
             }",
            "t",
        )
        .unwrap();
        let m = infer_module(&m).unwrap();
        let f = m.get("main").unwrap();
        assert!(alter_op_layout_with(f, &NoTargetHooks).ptr_eq(f));
        let mut out = m.clone();
        out.replace("main", alter_op_layout_with(f, &ToNhwc))
            .unwrap();
        let out = infer_module(&out).unwrap();
        let text = print_module_with(
            &out,
            PrintOptions {
                types: false,
                header: false,
                metadata: false,
            },
        );
        expect_test::expect![[r#"
            def @main(%x: Tensor[(1, 4, 8, 8), float32], %w: Tensor[(8, 4, 3, 3), float32]) -> Tensor[(1, 8, 8, 8), float32] {
              %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NHWC");
              %1 = layout_transform(%w, src_layout="OIHW", dst_layout="HWIO");
              %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1], channels=8, kernel_size=[3, 3], data_layout="NHWC", kernel_layout="HWIO");
              %3 = nn.relu(%2);
              layout_transform(%3, src_layout="NHWC", dst_layout="NCHW")
            }
        "#]]
        .assert_eq(&text);
    }
}
