//! Rewrite rules for `function_pass(rewrite=[...])` and `AlterOpLayout(alter_rewrite={...})`:
//! `"add(?x, 0f) => ?x"`. Both sides are Relay expressions in which `?name` stands for any
//! subexpression; a name used twice on the left must match equal subexpressions. A user pass
//! applies its rules bottom-up, repeatedly at each node ([`apply`]); AlterOpLayout applies an
//! op's rules once, at each call of that op ([`Rule::apply_at`]).
//!
//! In a typed function, a replacement is built typed (`infer_type::typed_node`: calls of ops
//! by their type rules, tuples, projections, and the rule's constants), and a rebuilt call
//! whose children's types changed is retyped the same way, so the InferType after a rewriting
//! pass does not rebuild the whole graph again. In an untyped function nothing gets a type.

use crate::ir::mutate::{mutate, rebuild_call, Mutator};
use crate::ir::{expr_equal, Attrs, Call, Constant, Expr, ExprKind, Span, Var};
use crate::passes::infer_type::{typed_node, with_node_type};
use rustc_hash::FxHashMap;

/// One parsed rule.
pub struct Rule {
    lhs: Expr,
    rhs: Expr,
    /// `rhs` with its constants typed, for matches of typed nodes.
    rhs_typed: Expr,
    text: String,
}

impl Rule {
    /// Parses `"<pattern> => <replacement>"`.
    pub fn parse(src: &str) -> Result<Rule, String> {
        let (l, r) = src
            .split_once("=>")
            .ok_or_else(|| "a rule looks like `pattern => replacement`".to_string())?;
        let mut names: Vec<String> = Vec::new();
        let l = wildcards(l, &mut names);
        let lhs_names = names.clone();
        let r = wildcards(r, &mut names);
        if let Some(extra) = names.iter().find(|n| !lhs_names.contains(n)) {
            return Err(format!(
                "?{extra} is used on the right but not bound on the left"
            ));
        }
        let decls: String = names.iter().map(|n| format!("free_var %{n}; ")).collect();
        let both = format!("{decls}({l}, {r})");
        let e = crate::text::parse_expr(&both).map_err(|e| e.message)?;
        let mut cur = e;
        // Skip the `free_var` lets-free prefix: parse_expr gives the tuple directly.
        while let ExprKind::Let(l) = cur.kind() {
            let b = l.body.clone();
            cur = b;
        }
        let ExprKind::Tuple(parts) = cur.kind() else {
            return Err("cannot read the rule".into());
        };
        if !matches!(parts[0].kind(), ExprKind::Call(_)) {
            return Err("the pattern must be a call such as `add(?x, 0f)`".into());
        }
        Ok(Rule {
            lhs: parts[0].clone(),
            rhs: parts[1].clone(),
            rhs_typed: mutate(&mut TypeConstants, &parts[1]),
            text: src.trim().to_string(),
        })
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    /// The rule's pattern call's op (`None` when the pattern calls something else).
    pub fn op(&self) -> Option<crate::ir::Op> {
        match self.lhs.as_call()?.callee.kind() {
            ExprKind::Op(op) => Some(*op),
            _ => None,
        }
    }

    /// Whether the replacement is a call (what an alter hook must give).
    pub fn replaces_with_call(&self) -> bool {
        matches!(self.rhs.kind(), ExprKind::Call(_))
    }

    /// The replacement of `e` when the pattern matches `e` itself (not its subexpressions),
    /// built untyped.
    pub fn apply_at(&self, e: &Expr) -> Option<Expr> {
        let mut binds = FxHashMap::default();
        if !matches(&self.lhs, e, &mut binds) {
            return None;
        }
        let mut subst = Subst {
            binds: &binds,
            typed: false,
        };
        Some(mutate(&mut subst, &self.rhs))
    }
}

fn wildcards(side: &str, names: &mut Vec<String>) -> String {
    let mut out = String::new();
    let mut chars = side.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '?'
            && chars
                .peek()
                .is_some_and(|c| c.is_ascii_alphabetic() || *c == '_')
        {
            let mut name = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_ascii_alphanumeric() || c == '_' {
                    name.push(c);
                    chars.next();
                } else {
                    break;
                }
            }
            if !names.contains(&name) {
                names.push(name.clone());
            }
            out.push('%');
            out.push_str(&name);
        } else {
            out.push(c);
        }
    }
    out
}

fn matches(pat: &Expr, e: &Expr, binds: &mut FxHashMap<u64, Expr>) -> bool {
    match (pat.kind(), e.kind()) {
        (ExprKind::Var(v), _) => match binds.get(&v.id()) {
            Some(prev) => expr_equal(prev, e, false),
            None => {
                binds.insert(v.id(), e.clone());
                true
            }
        },
        (ExprKind::Constant(a), ExprKind::Constant(b)) => a.data.is_some() && a.data == b.data,
        (ExprKind::Op(a), ExprKind::Op(b)) => a == b,
        (ExprKind::Call(a), ExprKind::Call(b)) => {
            let attrs_ok = match a.callee.kind() {
                ExprKind::Op(op) => {
                    a.attrs == op.default_attrs() || a.attrs == Attrs::NONE || a.attrs == b.attrs
                }
                _ => a.attrs == b.attrs,
            };
            attrs_ok
                && a.args.len() == b.args.len()
                && matches(&a.callee, &b.callee, binds)
                && a.args
                    .iter()
                    .zip(&b.args)
                    .all(|(p, x)| matches(p, x, binds))
        }
        (ExprKind::Tuple(a), ExprKind::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(p, x)| matches(p, x, binds))
        }
        (ExprKind::TupleGetItem(a, i), ExprKind::TupleGetItem(b, j)) => {
            i == j && matches(a, b, binds)
        }
        _ => false,
    }
}

/// Gives a replacement's constants their types (shared by every match the rule makes).
struct TypeConstants;
impl Mutator for TypeConstants {
    fn constant(&mut self, e: &Expr, _c: &Constant) -> Expr {
        with_node_type(e.clone())
    }
}

/// Instantiates a replacement: wildcards become what they matched; the template's nodes
/// above them are rebuilt, typed where their children's types determine it when `typed` (the
/// matched node had a type), untyped otherwise.
struct Subst<'a> {
    binds: &'a FxHashMap<u64, Expr>,
    typed: bool,
}

impl Subst<'_> {
    fn build(&self, kind: ExprKind, span: Span) -> Expr {
        if self.typed {
            typed_node(kind, span)
        } else {
            Expr::with_info(kind, None, span)
        }
    }
}

impl Mutator for Subst<'_> {
    fn var(&mut self, e: &Expr, v: &Var) -> Expr {
        self.binds
            .get(&v.id())
            .cloned()
            .unwrap_or_else(|| e.clone())
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let Some(c) = e.as_call() else {
            return rebuild_call(e, callee, args);
        };
        if callee.ptr_eq(&c.callee) && args.iter().zip(&c.args).all(|(a, b)| a.ptr_eq(b)) {
            return e.clone();
        }
        let attrs = attrs.clone();
        self.build(
            ExprKind::Call(Call {
                callee,
                args: args.into(),
                attrs,
            }),
            e.span(),
        )
    }

    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        match e.kind() {
            ExprKind::Tuple(old) if old.iter().zip(&fields).all(|(a, b)| a.ptr_eq(b)) => e.clone(),
            _ => self.build(ExprKind::Tuple(fields), e.span()),
        }
    }

    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        match e.kind() {
            ExprKind::TupleGetItem(t, _) if t.ptr_eq(&tuple) => e.clone(),
            _ => self.build(ExprKind::TupleGetItem(tuple, index), e.span()),
        }
    }
}

/// How many times the rules may rewrite one call before they are taken not to settle.
pub const MAX_REWRITES_PER_CALL: usize = 100;

struct Apply<'a> {
    rules: &'a [Rule],
    /// The first rule that still fired at a call after [`MAX_REWRITES_PER_CALL`] rewrites.
    runaway: Option<&'a str>,
}

impl Mutator for Apply<'_> {
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        // A rebuilt call whose children changed type (a rule fired below with a differently
        // typed result) does not keep its type: retype it from its children.
        let rebuilt = rebuild_call(e, callee, args);
        let mut cur = if rebuilt.ptr_eq(e) || e.ty().is_none() {
            rebuilt
        } else {
            with_node_type(rebuilt)
        };
        for round in 0..=MAX_REWRITES_PER_CALL {
            let mut fired = false;
            for rule in self.rules {
                if round == MAX_REWRITES_PER_CALL {
                    // One more match here means the rules would go on: report the rule.
                    let mut binds = FxHashMap::default();
                    if self.runaway.is_none() && matches(&rule.lhs, &cur, &mut binds) {
                        self.runaway = Some(&rule.text);
                    }
                    continue;
                }
                let mut binds = FxHashMap::default();
                if matches(&rule.lhs, &cur, &mut binds) {
                    let typed = cur.ty().is_some();
                    let rhs = if typed { &rule.rhs_typed } else { &rule.rhs };
                    let mut subst = Subst {
                        binds: &binds,
                        typed,
                    };
                    let next = mutate(&mut subst, rhs);
                    // A replacement that is the call again (same callee, arguments and
                    // attributes) is a fixed point: nothing more to rewrite here.
                    fired = !same_call(&next, &cur);
                    cur = next;
                    break;
                }
            }
            if !fired || cur.as_call().is_none() {
                break;
            }
        }
        cur
    }
}

/// Whether `a` and `b` are calls of the same callee on the same argument nodes with equal
/// attributes.
fn same_call(a: &Expr, b: &Expr) -> bool {
    match (a.as_call(), b.as_call()) {
        (Some(x), Some(y)) => {
            let callee = x.callee.ptr_eq(&y.callee)
                || matches!((x.callee.kind(), y.callee.kind()), (ExprKind::Op(p), ExprKind::Op(q)) if p == q);
            callee
                && x.args.len() == y.args.len()
                && x.args.iter().zip(y.args.iter()).all(|(p, q)| p.ptr_eq(q))
                && x.attrs == y.attrs
        }
        _ => a.ptr_eq(b),
    }
}

/// Applies the rules everywhere in `f`, bottom-up, each call rewritten until no rule matches
/// it. Rules that never stop matching (one undoing another, or one matching its own result)
/// are an error naming a rule that still matched after [`MAX_REWRITES_PER_CALL`] rewrites.
pub fn apply(rules: &[Rule], f: &Expr) -> Result<Expr, String> {
    if rules.is_empty() {
        return Ok(f.clone());
    }
    let mut run = Apply {
        rules,
        runaway: None,
    };
    let out = mutate(&mut run, f);
    match run.runaway {
        None => Ok(out),
        Some(rule) => Err(format!(
            "the rewrite rules do not settle: `{rule}` still matches a call after \
             {MAX_REWRITES_PER_CALL} rewrites of it (a rule that undoes another, or matches \
             its own result, rewrites forever)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplifies_identities() {
        let rules = vec![
            Rule::parse("add(?x, 0f) => ?x").unwrap(),
            Rule::parse("multiply(?x, 1f) => ?x").unwrap(),
        ];
        let m =
            crate::text::parse_module("def @main(%a: float32) { multiply(add(%a, 0f), 1f) }", "t")
                .unwrap();
        let out = apply(&rules, m.get("main").unwrap()).unwrap();
        let f = out.as_function().unwrap();
        assert!(matches!(f.body.kind(), ExprKind::Var(_)));
        assert!(Rule::parse("add(?x, 0f) => ?y").is_err());
    }

    /// Rules that undo each other are reported, naming a rule, not applied a hundred times
    /// in silence; rules that settle, or rebuild a call as it was, are not.
    #[test]
    fn rules_that_never_settle_are_an_error() {
        let m =
            crate::text::parse_module("def @main(%a: float32, %b: float32) { add(%a, %b) }", "t")
                .unwrap();
        let swap = vec![Rule::parse("add(?x, ?y) => add(?y, ?x)").unwrap()];
        let err = apply(&swap, m.get("main").unwrap()).unwrap_err();
        assert!(
            err.contains("`add(?x, ?y) => add(?y, ?x)` still matches"),
            "{err}"
        );
        // 60 nested negations cancel pairwise as the rewrite goes up: rules that settle.
        let mut body = "%a".to_string();
        for _ in 0..60 {
            body = format!("negative({body})");
        }
        let m = crate::text::parse_module(&format!("def @main(%a: float32) {{ {body} }}"), "t")
            .unwrap();
        let cancel = vec![Rule::parse("negative(negative(?x)) => ?x").unwrap()];
        let out = apply(&cancel, m.get("main").unwrap()).unwrap();
        assert!(matches!(
            out.as_function().unwrap().body.kind(),
            ExprKind::Var(_)
        ));
        let same = vec![Rule::parse("negative(?x) => negative(?x)").unwrap()];
        assert!(apply(&same, m.get("main").unwrap()).is_ok());
    }
}
