//! LambdaLift (TVM's `relay.transform.LambdaLift`, `backend/vm/lambda_lift.cc`): a module pass
//! (opt_level 1) that lifts every nested function literal to a new global function.
//!
//! In each global function (except `Compiler` ones), every function literal nested inside it
//! that is not `Primitive` becomes a global `@lifted_name<hash>` (the structural hash of the
//! literal with the literals nested in it already lifted, free variables mapped by first use;
//! an existing global of that name is reused when it is structurally equal, otherwise a `_N`
//! suffix keeps names apart):
//! * without free variables, the global is the literal itself and the use site becomes
//!   `@lifted_nameH`;
//! * with captured variables `%v1..%vn`, the global is a closure maker
//!   `fn (%v1: T1, .., %vn: Tn, Closure=1) -> fn(..) -> R { fn (<params>) { <body> } }` whose
//!   parameters are fresh variables typed with the captured variables' checked types, and the
//!   use site becomes `@lifted_nameH(%v1, .., %vn)`;
//! * a let-bound function that calls its own variable (`let %f = fn (..) { .. %f(..) .. }`)
//!   is lifted without capturing `%f`: inside it those calls go to `@lifted_nameH` (or
//!   `@lifted_nameH(%v1, ..)`).
//!
//! Inner literals are lifted before outer ones, so lifted globals come after the module's own
//! functions, innermost first.
//!
//! Invariants: the output is well-formed (lifted globals have no free variables), sharing is
//! kept, and a module without nested functions comes back as the same value. Needs types for
//! captured variables: a function that is not fully typed is typed first.
//!
//! Deliberately not done: type parameters (passlab has none) and virtual devices of results;
//! as in TVM, a recursive function's variable used inside its own body other than as a callee
//! is not rewritten (such a program cannot be lifted). TVM hashes the literal as written, and
//! so hashes every literal once for each literal around it; the numbers passlab prints are its
//! own hash's anyway, and hashing the lifted form keeps n nested literals linear. Recursive
//! literals, named before their body is visited, are hashed as written.

use super::typed::typed_function;
use crate::ir::mutate::{mutate, rebuild_call, rebuild_function, Mutator, Unchanged};
use crate::ir::visit::{each_node, post_order};
use crate::ir::{
    expr_equal, expr_hash, AttrValue, Attrs, Call, Contains, Expr, ExprKind, Function, Module,
    Type, Var,
};
use crate::pass::{module_pass, Pass, PassError, PassOptions};
use rustc_hash::{FxHashMap, FxHashSet};

/// Lifts the nested functions of every function of `m` (see the module documentation).
pub fn lambda_lift(m: &Module) -> Result<Module, PassError> {
    lift(m, false)
}

/// `eager`: find every literal's captured variables on the literal as written, before its body
/// is visited (the quadratic way, kept to check the other against).
fn lift(m: &Module, eager: bool) -> Result<Module, PassError> {
    let mut names: FxHashMap<String, Expr> = m
        .functions()
        .map(|(g, e)| (g.name().to_string(), e.clone()))
        .collect();
    let mut lifted: Vec<(String, Expr)> = Vec::new();
    let mut out = m.clone();
    for (g, e) in m.functions() {
        let Some(f) = e.as_function() else { continue };
        if f.attr("Compiler").is_some() || !has_nested_function(e) {
            continue;
        }
        let typed = typed_function("LambdaLift", g, e, m)?;
        let mut lifter = Lifter {
            names: &mut names,
            lifted: &mut lifted,
            nesting: 0,
            frames: Vec::new(),
            letrec: Vec::new(),
            let_lambda: Default::default(),
            lambda_map: FxHashMap::default(),
            eager,
        };
        let new = mutate(&mut lifter, &typed);
        out.replace(g.name(), new).expect("a function");
    }
    for (name, f) in lifted {
        out.add(&name, f).expect("a fresh name");
    }
    Ok(out)
}

fn is_primitive(f: &Function) -> bool {
    f.attr("Primitive")
        .is_some_and(|v| v.as_int().unwrap_or(0) != 0)
}

fn has_nested_function(root: &Expr) -> bool {
    // Every node knows whether a function literal lies below it: most functions have none,
    // and then nothing is walked.
    let below = match root.as_function() {
        Some(f) => f.body.contains(),
        None => root.contains(),
    };
    if !below.any(Contains::FUNCTION) {
        return false;
    }
    let mut found = false;
    each_node(root, |e| {
        if !e.ptr_eq(root) && e.as_function().is_some_and(|f| !is_primitive(f)) {
            found = true;
        }
    });
    found
}

/// The free variables of a function literal, in order of first use, each with a use (for its
/// checked type).
fn free_vars(f: &Expr) -> Vec<(Var, Expr)> {
    let mut bound: FxHashSet<u64> = FxHashSet::default();
    let mut uses: Vec<(Var, Expr)> = Vec::new();
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    post_order(f, |e| match e.kind() {
        ExprKind::Var(v) if seen.insert(v.id()) => uses.push((v.clone(), e.clone())),
        ExprKind::Let(l) => {
            bound.insert(l.var.id());
        }
        ExprKind::Function(fun) => bound.extend(fun.params.iter().map(Var::id)),
        ExprKind::Match(m) => m.for_each_bound_var(|v| {
            bound.insert(v.id());
        }),
        _ => {}
    });
    uses.retain(|(v, _)| !bound.contains(&v.id()));
    uses
}

/// One function literal being lifted.
struct Frame {
    nested: bool,
    pushed_letrec: bool,
    /// The captured variables, found before the body is visited inside a let-bound lambda
    /// (recursion is decided by them), otherwise `None`: found after, on the literal with its
    /// own nested literals lifted (see `Lifter::function`).
    captured: Option<Vec<(Var, Expr)>>,
    /// The global name, fixed before the body is visited for a recursive literal.
    rec_name: Option<String>,
}

struct Lifter<'a> {
    names: &'a mut FxHashMap<String, Expr>,
    lifted: &'a mut Vec<(String, Expr)>,
    nesting: usize,
    frames: Vec<Frame>,
    letrec: Vec<Var>,
    let_lambda: crate::ir::NodeMap<Var>,
    lambda_map: FxHashMap<u64, Expr>,
    eager: bool,
}

impl Lifter<'_> {
    /// The global name for `orig`, and whether a structurally equal `lifted` already has it.
    fn name_for(&self, orig: &Expr, lifted: &Expr) -> (String, bool) {
        let base = format!("lifted_name{}", expr_hash(orig, true));
        let mut name = base.clone();
        let mut n = 0;
        while let Some(existing) = self.names.get(&name) {
            if expr_equal(existing, lifted, true) {
                return (name, true);
            }
            n += 1;
            name = format!("{base}_{n}");
        }
        (name, false)
    }

    fn fresh_name(&self, orig: &Expr) -> String {
        let base = format!("lifted_name{}", expr_hash(orig, true));
        let mut name = base.clone();
        let mut n = 0;
        while self.names.contains_key(&name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        name
    }

    /// `@name` or `@name(%v1, ..)`, typed `ty` (the lifted literal's type) when known.
    fn global(name: &str, captured: &[(Var, Expr)], ty: Option<&Type>) -> Expr {
        let g = Expr::global(name);
        if captured.is_empty() {
            return Expr::with_info(g.kind().shallow_clone(), ty.cloned(), Default::default());
        }
        let args = captured.iter().map(|(_, u)| u.clone()).collect();
        let call = Call {
            callee: g,
            args,
            attrs: Attrs::NONE,
        };
        Expr::with_info(ExprKind::Call(call), ty.cloned(), Default::default())
    }
}

impl Mutator for Lifter<'_> {
    fn pre(&mut self, e: &Expr) -> Option<Expr> {
        match e.kind() {
            ExprKind::Let(l) => {
                if l.value.as_function().is_some_and(|f| !is_primitive(f)) {
                    self.let_lambda.insert(l.value.id(), l.var.clone());
                }
                None
            }
            ExprKind::Function(f) if is_primitive(f) => Some(e.clone()),
            ExprKind::Function(_) => {
                self.nesting += 1;
                let pushed_letrec = match self.let_lambda.get(&e.id()) {
                    Some(v) => {
                        self.letrec.push(v.clone());
                        true
                    }
                    None => false,
                };
                let nested = self.nesting > 1;
                let mut captured = None;
                let mut rec_name = None;
                if nested && (self.eager || !self.letrec.is_empty()) {
                    let rec = self.letrec.last().cloned();
                    let mut recursive = false;
                    let captured = captured.insert(Vec::new());
                    for (v, u) in free_vars(e) {
                        if Some(&v) == rec.as_ref() {
                            recursive = true;
                        } else {
                            captured.push((v, u));
                        }
                    }
                    if let (true, Some(r)) = (recursive, rec) {
                        // The body refers to the global, so its name is fixed now (a fresh
                        // one: recursive literals are never merged with an existing global).
                        let name = self.fresh_name(e);
                        self.names.insert(name.clone(), e.clone());
                        self.lambda_map
                            .entry(r.id())
                            .or_insert_with(|| Self::global(&name, captured, None));
                        rec_name = Some(name);
                    }
                }
                self.frames.push(Frame {
                    nested,
                    pushed_letrec,
                    captured,
                    rec_name,
                });
                None
            }
            _ => None,
        }
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        // A call of the innermost let-bound lambda's own variable calls the lifted global.
        let own = match (e.as_call().map(|c| c.callee.kind()), self.letrec.last()) {
            (Some(ExprKind::Var(v)), Some(r)) if v == r => self.lambda_map.get(&v.id()).cloned(),
            _ => None,
        };
        match own {
            Some(g) => {
                let call = Call {
                    callee: g,
                    args: args.into(),
                    attrs: attrs.clone(),
                };
                Expr::with_info(ExprKind::Call(call), e.ty().cloned(), e.span())
            }
            None => rebuild_call(e, callee, args),
        }
    }

    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        let frame = self.frames.pop().expect("pre pushed a frame");
        self.nesting -= 1;
        if frame.pushed_letrec {
            self.letrec.pop();
        }
        if !frame.nested {
            return rebuild_function(e, f, body);
        }
        // The literal with its nested literals already lifted (each now `@g` or `@g(%v..)`).
        // Its free variables are the original's, in the same order: a lifted literal's
        // captured variables stand where its body used them, first uses first, and whatever
        // it bound is bound in the original too. Reading this small literal instead of the
        // original keeps n nested literals linear (the original holds all the inner ones).
        let inner = Expr::with_info(
            ExprKind::Function(Box::new(Function {
                type_params: f.type_params.clone(),
                params: f.params.clone(),
                body,
                ret_type: f.ret_type.clone(),
                attrs: f.attrs.clone(),
            })),
            e.ty().cloned(),
            e.span(),
        );
        let captured = frame.captured.unwrap_or_else(|| free_vars(&inner));
        let lifted = if captured.is_empty() {
            inner.clone()
        } else {
            let mut params = Vec::new();
            let mut binding = Vec::new();
            for (v, u) in &captured {
                let ty = v.ann().cloned().or_else(|| u.ty().cloned());
                let p = v.with_ann(ty.clone());
                binding.push((
                    v.clone(),
                    Expr::with_info(ExprKind::Var(p.clone()), ty, u.span()),
                ));
                params.push(p);
            }
            let rebound = super::subst::substitute(&inner, &binding, false);
            let maker = Function {
                type_params: Vec::new(),
                params,
                body: rebound,
                ret_type: f.func_type(),
                attrs: vec![("Closure".into(), AttrValue::int(1))],
            };
            Expr::with_info(ExprKind::Function(Box::new(maker)), None, e.span())
        };
        let (name, exists) = match frame.rec_name {
            Some(n) => (n, false),
            None => self.name_for(&inner, &lifted),
        };
        if !exists {
            self.names.insert(name.clone(), lifted.clone());
            self.lifted.push((name.clone(), lifted));
        }
        Self::global(&name, &captured, e.ty())
    }

    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        // Functions pop their frame (and may be lifted); calls of a variable may call a lifted
        // global; every other hook returns an unchanged node as is.
        Unchanged::keep_if(match e.kind() {
            ExprKind::Function(_) => false,
            ExprKind::Call(c) => !matches!(c.callee.kind(), ExprKind::Var(_)),
            _ => true,
        })
    }
}

/// The registered pass.
pub fn pass() -> Pass {
    module_pass(super::builtin_info("LambdaLift"), |m, _cx| lambda_lift(m))
}

/// The registry's constructor: `LambdaLift()`.
pub fn create(_options: &PassOptions) -> Result<Pass, PassError> {
    Ok(pass())
}

#[cfg(test)]
mod tests {
    use crate::text::{parse_module, print_module};
    use std::fmt::Write;

    /// A random well-typed float32 expression over the variables in `scope`: literals called
    /// at once or let-bound and called twice (the let-bound ones take the eager path in both
    /// modes, and so do literals inside them), lets, variables used many times, captures in
    /// varied orders.
    fn expr(
        depth: u32,
        scope: &mut Vec<String>,
        fresh: &mut u32,
        next: &mut impl FnMut(u32) -> u32,
    ) -> String {
        let pick = |scope: &Vec<String>, next: &mut dyn FnMut(u32) -> u32| {
            scope[next(scope.len() as u32) as usize].clone()
        };
        if depth == 0 {
            return pick(scope, next);
        }
        match next(5) {
            0 => pick(scope, next),
            1 => {
                let a = expr(depth - 1, scope, fresh, next);
                let b = expr(depth - 1, scope, fresh, next);
                format!("add({a}, {b})")
            }
            2 => {
                *fresh += 1;
                let v = format!("%l{fresh}");
                let value = expr(depth - 1, scope, fresh, next);
                scope.push(v.clone());
                let body = expr(depth - 1, scope, fresh, next);
                scope.pop();
                format!("(let {v} = {value}; {body})")
            }
            3 => {
                *fresh += 1;
                let p = format!("%p{fresh}");
                let arg = expr(depth - 1, scope, fresh, next);
                scope.push(p.clone());
                let body = expr(depth - 1, scope, fresh, next);
                scope.pop();
                format!("(fn ({p}: float32) {{ {body} }})({arg})")
            }
            _ => {
                *fresh += 1;
                let (f, p) = (format!("%f{fresh}"), format!("%q{fresh}"));
                scope.push(p.clone());
                let body = expr(depth - 1, scope, fresh, next);
                scope.pop();
                let a = expr(depth - 1, scope, fresh, next);
                let b = expr(depth - 1, scope, fresh, next);
                format!("(let {f} = fn ({p}: float32) {{ {body} }}; add({f}({a}), {f}({b})))")
            }
        }
    }

    /// Captured variables found after the body is lifted (the pass) agree with those found on
    /// the literal as written (the eager, quadratic way): same globals, same parameter order,
    /// same text, on random programs with nested literals.
    #[test]
    fn captures_found_after_lifting_match_the_literal_as_written() {
        let mut next = crate::testgen::xorshift(0x9e37_79b9_7f4a_7c15_u64);
        let mut lifted = 0;
        for round in 0..150 {
            let mut scope = vec!["%x".to_string(), "%y".to_string(), "%z".to_string()];
            let mut fresh = 0;
            let body = expr(3 + round % 4, &mut scope, &mut fresh, &mut next);
            let mut text = String::from("#[version = \"0.0.5\"]\n");
            writeln!(
                text,
                "def @main(%x: float32, %y: float32, %z: float32) {{ {body} }}"
            )
            .unwrap();
            let m = parse_module(&text, "random").expect("parses");
            let fast = super::lift(&m, false).expect("lifts");
            let eager = super::lift(&m, true).expect("lifts");
            assert_eq!(print_module(&fast), print_module(&eager), "{text}");
            lifted += fast.functions().count() - 1;
        }
        assert!(lifted > 200, "the programs nest literals ({lifted} lifted)");
    }
}
