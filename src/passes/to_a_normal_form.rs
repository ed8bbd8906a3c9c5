//! ToANormalForm (TVM `src/relay/transforms/to_a_normal_form.cc`, RELAY_PASSES.md B.5):
//! binds every compound subexpression to a variable with `let`, in evaluation order, in the
//! innermost scope that dominates all its uses.
//!
//! Two phases over each global function body (functions with a `Compiler` attribute are left
//! alone, the global function itself is not bound):
//! 1. **scopes** (TVM's `DependencyGraph` + `CalcScope`): the body is the global scope; a
//!    `let` opens a sub-scope for its value and body, a function literal for its body, an
//!    `if` one for each branch, a `match` one for each clause. Walking the DAG parents-first, each node's scope is the
//!    lowest common ancestor of the scopes of its uses, so shared code is bound once where
//!    every use can see it.
//! 2. **fill** (TVM's `Fill`), a post-order mutation: calls, tuples, projections, constants,
//!    `if`s, lets and non-primitive function literals are pushed onto their scope's let list
//!    under a fresh `%x_N` (or under the let's own variable when they are a let's value), and
//!    so are `match`es and reference nodes; variables, globals, constructors and ops stay
//!    inline; a scope's bindings wrap the expression that
//!    closes it (branch, function body, let body). A let whose result is bound is flattened:
//!    its bindings move to the outer list and its body is bound to the variable (TVM binds
//!    even an atomic body, `let %x_1 = %x`). `Primitive` functions are bound as opaque values.
//!
//! Devices (TVM's `LexicalOnDeviceMixin`): inside a fixed `on_device` (`constrain_result=True`)
//! every binding holds its value under the same `on_device` (not variables, globals, ops,
//! constructors, functions, nor a value already annotated), and the `on_device` call itself is
//! not bound: its body is bound (to the let's variable when it is a let's value) and the
//! annotation stays around the converted body.
//!
//! Invariants: every non-atomic subexpression is let-bound before use; sharing becomes one
//! binding; linear time apart from the scope LCA walks (as TVM); stack-safe. Not idempotent,
//! exactly like TVM: converting ANF again re-binds the final let body.
//!
//! One deliberate difference: a let's bindings share the enclosing scope's list instead of
//! being collected apart and flattened afterwards (which is quadratic on let chains). The
//! order differs from TVM's only when a node bound in the enclosing scope is first reached
//! inside the let, where TVM would place it before all of the let's bindings.

use crate::ir::mutate::{
    mutate_with, rebuild_call, rebuild_function, rebuild_get_item, rebuild_if, rebuild_other,
    rebuild_tuple, MutateState, Mutator,
};
use crate::ir::{Attrs, Constant, Contains, Expr, ExprKind, Function, Match, Module, Var};
use crate::passes::jump_tree::{self, jump_of_leaf, JumpTree};
use std::sync::atomic::{AtomicU64, Ordering};

/// Converts every global function of `m` (except those with a `Compiler` attribute) to ANF.
pub fn to_a_normal_form(m: &Module) -> Module {
    let out: Result<Module, std::convert::Infallible> =
        m.map_functions(|_, f| Ok(to_a_normal_form_expr(f)));
    match out {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// Converts one expression: a function's body (the function stays unbound), or any expression.
pub fn to_a_normal_form_expr(e: &Expr) -> Expr {
    match e.kind() {
        ExprKind::Function(f) if f.attr("Compiler").is_some() => e.clone(),
        ExprKind::Function(f) => rebuild_function(e, f, convert(&f.body)),
        _ => convert(e),
    }
}

static GENSYM: AtomicU64 = AtomicU64::new(0);

/// A fresh `%x_N` (TVM's `Var::GenSym`, a process-wide counter).
fn gensym() -> Var {
    let mut buf = [0u8; 22];
    let name = x_name(GENSYM.fetch_add(1, Ordering::Relaxed), &mut buf);
    Var::named(ecow::EcoString::from(name), None)
}

/// `x_N`, written on the stack, digits from the right, without the formatting machinery
/// (6-7% of the pass's instructions went there). Names up to 15 bytes (`x_` and 13 digits) are
/// stored in the variable itself, so a fresh variable costs one allocation.
/// 22 bytes: `x_` and the 20 digits of the largest `u64`.
fn x_name(mut n: u64, buf: &mut [u8; 22]) -> &str {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    at -= 2;
    buf[at..at + 2].copy_from_slice(b"x_");
    std::str::from_utf8(&buf[at..]).expect("ASCII digits")
}

fn is_primitive(f: &Function) -> bool {
    f.attr("Primitive")
        .is_some_and(|v| v.as_int().unwrap_or(0) != 0)
}

/// The scope tree with one let list per scope. A let's sub-scope shares its parent's list:
/// TVM flattens a bound let into the enclosing list anyway, and sharing the storage keeps a
/// chain of n lets linear instead of re-flattening the tail n times.
///
/// Lowest common ancestors are found by skew-binary jump pointers ([`jump_tree`], as FuseOps'
/// post-dominator tree): TVM's `LCA` steps up one scope at a time, quadratic when a node is used in many
/// deeply nested scopes (a value used in each of n nested `if`s or closures: n² steps).
struct Scopes {
    parent: Vec<u32>,
    level: Vec<u32>,
    /// The scope's jump ([`jump_tree`]; the global scope's is itself).
    jump: Vec<u32>,
    list_of: Vec<u32>,
    lists: Vec<Vec<(Var, Expr)>>,
}

impl JumpTree for Scopes {
    fn depth(&self, s: u32) -> u32 {
        self.level[s as usize]
    }
    fn parent(&self, s: u32) -> Option<u32> {
        let p = self.parent[s as usize];
        (p != s).then_some(p)
    }
    fn jump(&self, s: u32) -> u32 {
        self.jump[s as usize]
    }
}

impl Scopes {
    fn child(&mut self, of: Option<u32>) -> u32 {
        let id = self.link(of);
        self.list_of.push(self.lists.len() as u32);
        self.lists.push(Vec::new());
        id
    }

    /// A child scope that shares its parent's let list (for let bodies).
    fn let_child(&mut self, of: u32) -> u32 {
        let id = self.link(Some(of));
        self.list_of.push(self.list_of[of as usize]);
        id
    }

    /// A new scope under `of` (none: the global scope) in the tree: parent, level, jump.
    fn link(&mut self, of: Option<u32>) -> u32 {
        let id = self.parent.len() as u32;
        let (parent, level, jump) = match of {
            None => (id, 0, id),
            Some(p) => (p, self.level[p as usize] + 1, jump_of_leaf(self, p).0),
        };
        self.parent.push(parent);
        self.level.push(level);
        self.jump.push(jump);
        id
    }

    fn list(&mut self, scope: u32) -> &mut Vec<(Var, Expr)> {
        &mut self.lists[self.list_of[scope as usize] as usize]
    }

    fn lca(&self, a: u32, b: u32) -> u32 {
        jump_tree::lca(self, a, b, |_, _| {}).expect("every scope is under the global one")
    }

    /// Wraps `body` in the bindings of `scope` (which are taken).
    fn get(&mut self, scope: u32, mut body: Expr) -> Expr {
        let mut list = std::mem::take(self.list(scope));
        while let Some((v, e)) = list.pop() {
            body = Expr::let_(v, e, body);
        }
        // The emptied buffer serves the next conversion on this thread.
        crate::ir::scratch::give_vec(list);
        body
    }
}

struct Fill {
    scopes: Scopes,
    global: u32,
    scope_of: crate::ir::NodeMap<u32>,
    /// Sub-scopes of lets and functions (one) and ifs (two).
    subs: crate::ir::NodeMap<[u32; 2]>,
    /// Sub-scopes of `match` clauses (one each).
    clause_subs: crate::ir::NodeMap<Vec<u32>>,
    /// Let value -> the let's variable, which must bind its result.
    binder: crate::ir::NodeMap<Var>,
    /// Per let: its variable, its value's scope and the length of that list before the value.
    pending: crate::ir::NodeMap<(Var, u32, usize)>,
    bound: rustc_hash::FxHashSet<u64>,
    /// The attributes of the fixed `on_device` calls lexically around the node being
    /// converted, innermost last (TVM's `LexicalOnDeviceMixin`).
    devices: Vec<Attrs>,
}

/// `on_device(x)` with `constrain_result` and `constrain_body` (TVM's `is_fixed()`): its
/// attributes.
fn fixed_on_device(e: &Expr) -> Option<&Attrs> {
    let (op, call) = e.call_op_of()?;
    (op.name() == "on_device"
        && call.args.len() == 1
        && call.attrs.get_bool("constrain_result") == Some(true)
        && call.attrs.get_bool("constrain_body") != Some(false))
    .then_some(&call.attrs)
}

/// What a binding made inside a fixed `on_device` holds (TVM's `MaybeOnDeviceFixed`):
/// variables, globals, ops, constructors and functions carry their device already, and an
/// `on_device` call is kept as it is.
fn on_device_fixed(now: Expr, attrs: Option<&Attrs>) -> Expr {
    let Some(attrs) = attrs else { return now };
    let annotate = match now.kind() {
        ExprKind::Var(_)
        | ExprKind::GlobalVar(_)
        | ExprKind::Op(_)
        | ExprKind::Constructor(_)
        | ExprKind::Function(_) => false,
        _ => now
            .call_op_of()
            .is_none_or(|(op, _)| op.name() != "on_device"),
    };
    if !annotate {
        return now;
    }
    let op = crate::ir::Op::get("on_device").expect("on_device is registered");
    Expr::call(Expr::op(op), vec![now], attrs.clone())
}

fn convert(body: &Expr) -> Expr {
    let mut fill = Fill::new(body);
    let out = mutate_with(&mut fill, body, &mut MutateState::default());
    let global = fill.global;
    fill.scopes.get(global, out)
}

impl Fill {
    fn new(root: &Expr) -> Fill {
        let mut scopes = Scopes {
            parent: Vec::new(),
            level: Vec::new(),
            jump: Vec::new(),
            list_of: Vec::new(),
            lists: Vec::new(),
        };
        let global = scopes.child(None);
        let below = root.contains();
        if !below.any(Contains::IF) && !below.any(Contains::FUNCTION) && !below.any(Contains::MATCH)
        {
            // Without an if or a function literal anywhere below (the node summaries say so
            // without a walk) there is one list, as below; its buffer is the one the last
            // conversion on this thread gave back, already grown to a program's size.
            scopes.lists[global as usize] = crate::ir::scratch::take_vec();
            return Fill::with_scopes(
                scopes,
                global,
                Default::default(),
                Default::default(),
                Default::default(),
            );
        }
        let mut order: Vec<&Expr> = crate::ir::scratch::take_vec();
        let mut nested = false;
        crate::ir::mutate::walk_refs(root, |e, exit| {
            if exit {
                // A let's sub-scope shares its parent's list ([`Scopes::let_child`]), so
                // lets alone never send a binding anywhere but the global list: only an
                // `if` or a function literal opens a list of its own.
                nested |= match e.kind() {
                    ExprKind::If(_) | ExprKind::Match(_) => true,
                    ExprKind::Function(f) => !is_primitive(f),
                    _ => false,
                };
                order.push(e);
            }
            true
        });
        // Every binding goes to the global list at most once: sized up front, it never
        // doubles (each doubling a copy of the list so far).
        scopes.lists[global as usize].reserve(order.len());
        if !nested {
            // Dataflow and let chains without an if or a function literal (graph form, the
            // usual input, or a let-bound program) have one list: every node is bound in
            // the global one, which is what `scope` answers for a node without an entry, so
            // no table is built.
            crate::ir::scratch::give_vec(order);
            return Fill::with_scopes(
                scopes,
                global,
                Default::default(),
                Default::default(),
                Default::default(),
            );
        }
        let mut scope_of: crate::ir::NodeMap<u32> =
            crate::ir::NodeMap::with_capacity_and_hasher(order.len(), Default::default());
        let mut subs = crate::ir::NodeMap::default();
        let mut clause_subs = crate::ir::NodeMap::default();
        scope_of.insert(root.id(), global);
        let mut edges: Vec<(&Expr, u32)> = crate::ir::scratch::take_vec();
        for &n in order.iter().rev() {
            let Some(&s) = scope_of.get(&n.id()) else {
                continue;
            };
            edges.clear();
            match n.kind() {
                ExprKind::Let(l) => {
                    let sub = scopes.let_child(s);
                    subs.insert(n.id(), [sub, sub]);
                    edges.extend([(&l.value, sub), (&l.body, sub)]);
                }
                ExprKind::Function(f) if is_primitive(f) => {}
                ExprKind::Function(f) => {
                    let sub = scopes.child(Some(s));
                    subs.insert(n.id(), [sub, sub]);
                    edges.push((&f.body, sub));
                }
                ExprKind::If(i) => {
                    let (t, f) = (scopes.child(Some(s)), scopes.child(Some(s)));
                    subs.insert(n.id(), [t, f]);
                    edges.extend([(&i.cond, s), (&i.then_branch, t), (&i.else_branch, f)]);
                }
                ExprKind::Match(m) => {
                    edges.push((&m.data, s));
                    let mut clauses = Vec::with_capacity(m.clauses.len());
                    for c in &m.clauses {
                        let sub = scopes.child(Some(s));
                        clauses.push(sub);
                        edges.push((&c.rhs, sub));
                    }
                    clause_subs.insert(n.id(), clauses);
                }
                kind => kind.for_each_child(|c| edges.push((c, s))),
            }
            for &(c, es) in &edges {
                let merged = match scope_of.get(&c.id()) {
                    Some(&old) => scopes.lca(old, es),
                    None => es,
                };
                scope_of.insert(c.id(), merged);
            }
        }
        crate::ir::scratch::give_vec(order);
        crate::ir::scratch::give_vec(edges);
        Fill::with_scopes(scopes, global, scope_of, subs, clause_subs)
    }

    fn with_scopes(
        scopes: Scopes,
        global: u32,
        scope_of: crate::ir::NodeMap<u32>,
        subs: crate::ir::NodeMap<[u32; 2]>,
        clause_subs: crate::ir::NodeMap<Vec<u32>>,
    ) -> Fill {
        Fill {
            scopes,
            global,
            scope_of,
            subs,
            clause_subs,
            binder: Default::default(),
            pending: Default::default(),
            bound: Default::default(),
            devices: Vec::new(),
        }
    }

    fn scope(&self, e: &Expr) -> u32 {
        if self.scope_of.is_empty() {
            return self.global;
        }
        self.scope_of.get(&e.id()).copied().unwrap_or(self.global)
    }

    fn take_binder(&mut self, e: &Expr) -> Option<Var> {
        let v = self.binder.remove(&e.id())?;
        self.bound.insert(v.id());
        Some(v)
    }

    /// Variables, globals and ops stay inline unless they are a let's value.
    fn atomic(&mut self, e: &Expr) -> Expr {
        match self.take_binder(e) {
            Some(v) => {
                let s = self.scope(e);
                self.scopes.list(s).push((v.clone(), e.clone()));
                Expr::var(&v)
            }
            None => e.clone(),
        }
    }

    /// Binds `now` (the rewritten `orig`) in `orig`'s scope; a let is flattened into it.
    fn compound(&mut self, orig: &Expr, now: Expr) -> Expr {
        let var = self.take_binder(orig).unwrap_or_else(gensym);
        let s = self.scope(orig);
        let list = self.scopes.list(s);
        let mut cur = now;
        while let ExprKind::Let(l) = cur.kind() {
            list.push((l.var.clone(), l.value.clone()));
            let body = l.body.clone();
            cur = body;
        }
        list.push((var.clone(), on_device_fixed(cur, self.devices.last())));
        Expr::var(&var)
    }

    fn sub(&self, e: &Expr, i: usize) -> u32 {
        self.subs[&e.id()][i]
    }
}

impl Mutator for Fill {
    fn pre(&mut self, e: &Expr) -> Option<Expr> {
        match e.kind() {
            ExprKind::Function(f) if is_primitive(f) => Some(self.compound(e, e.clone())),
            ExprKind::Call(c) if fixed_on_device(e).is_some() => {
                // Inside, every binding is annotated with this device; the call is not bound
                // itself: its body is (to the let's variable, if it is a let's value).
                self.devices.push(c.attrs.clone());
                if let Some(v) = self.binder.remove(&e.id()) {
                    self.binder.insert(c.args[0].id(), v);
                }
                None
            }
            ExprKind::Let(l) => {
                let s = self.scope(&l.value);
                let mark = self.scopes.list(s).len();
                self.pending.insert(e.id(), (l.var.clone(), s, mark));
                self.binder.insert(l.value.id(), l.var.clone());
                None
            }
            _ => None,
        }
    }
    fn var(&mut self, e: &Expr, _v: &Var) -> Expr {
        self.atomic(e)
    }
    fn leaf(&mut self, e: &Expr) -> Expr {
        self.atomic(e)
    }
    fn constant(&mut self, e: &Expr, _c: &Constant) -> Expr {
        self.compound(e, e.clone())
    }
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        let fixed = fixed_on_device(e).is_some();
        let now = rebuild_call(e, callee, args);
        if fixed {
            // TVM's `OnDeviceWithProps(body, props)`: the annotation stays around the
            // converted body, unbound.
            self.devices.pop();
            return now;
        }
        self.compound(e, now)
    }
    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        let now = rebuild_tuple(e, fields);
        self.compound(e, now)
    }
    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        let now = rebuild_get_item(e, tuple, index);
        self.compound(e, now)
    }
    fn if_(&mut self, e: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        let t = self.scopes.get(self.sub(e, 0), then_branch);
        let f = self.scopes.get(self.sub(e, 1), else_branch);
        let now = rebuild_if(e, cond, t, f);
        self.compound(e, now)
    }
    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        let body = self.scopes.get(self.sub(e, 0), body);
        let now = rebuild_function(e, f, body);
        self.compound(e, now)
    }
    fn match_(&mut self, e: &Expr, _m: &Match, data: Expr, rhs: Vec<Expr>) -> Expr {
        let subs = self.clause_subs.remove(&e.id()).unwrap_or_default();
        let mut kids = Vec::with_capacity(rhs.len() + 1);
        kids.push(data);
        for (i, r) in rhs.into_iter().enumerate() {
            let sub = subs.get(i).copied().unwrap_or(self.global);
            kids.push(self.scopes.get(sub, r));
        }
        let now = rebuild_other(e, kids);
        self.compound(e, now)
    }
    fn reference(&mut self, e: &Expr, kids: Vec<Expr>) -> Expr {
        let now = rebuild_other(e, kids);
        self.compound(e, now)
    }
    fn let_(&mut self, e: &Expr, _var: &Var, value: Expr, body: Expr) -> Expr {
        if let Some((var, s, mark)) = self.pending.remove(&e.id()) {
            if !self.bound.contains(&var.id()) {
                // The value was converted before (shared): bind its result here, before the body.
                self.bound.insert(var.id());
                let list = self.scopes.list(s);
                list.insert(mark.min(list.len()), (var, value));
            }
        }
        // The let's sub-scope shares the enclosing list: its bindings are already in place,
        // which is exactly what flattening `let %v = (let ...; body)` would produce.
        self.compound(e, body)
    }
}

#[cfg(test)]
mod tests {
    /// The jump-pointer LCA agrees with stepping up one scope at a time, on random trees
    /// (deep chains, bushy levels, let sub-scopes sharing lists) and every kind of pair.
    #[test]
    fn scope_lca_matches_the_one_step_climb() {
        let mut next = crate::testgen::xorshift(0x2545_f491_4f6c_dd1d_u64);
        for round in 0..40 {
            let mut s = super::Scopes {
                parent: Vec::new(),
                level: Vec::new(),
                jump: Vec::new(),
                list_of: Vec::new(),
                lists: Vec::new(),
            };
            let root = s.child(None);
            let size = 20 + round * 25;
            for i in 1..size {
                // Mostly the newest scope (deep chains), else any earlier one.
                let of = if next(3) > 0 { i - 1 } else { next(i) };
                if next(2) == 0 {
                    s.let_child(of);
                } else {
                    s.child(Some(of));
                }
            }
            let naive = |mut a: u32, mut b: u32| {
                while a != b {
                    let (la, lb) = (s.level[a as usize], s.level[b as usize]);
                    if la >= lb {
                        a = s.parent[a as usize];
                    }
                    if lb >= la {
                        b = s.parent[b as usize];
                    }
                }
                a
            };
            for _ in 0..400 {
                let (a, b) = (next(size), next(size));
                assert_eq!(s.lca(a, b), naive(a, b), "round {round}: lca({a}, {b})");
            }
            assert_eq!(s.lca(root, size - 1), root);
        }
    }

    #[test]
    fn fresh_names_are_x_and_the_counter_in_decimal() {
        for n in [0, 7, 9, 10, 99, 100, 12_345, 1 << 40, u64::MAX] {
            assert_eq!(super::x_name(n, &mut [0; 22]), format!("x_{n}"));
        }
        let (a, b) = (super::gensym(), super::gensym());
        let num = |v: &crate::ir::Var| v.name()[2..].parse::<u64>().unwrap();
        assert!(
            a.name().starts_with("x_") && num(&b) > num(&a),
            "{a:?} {b:?}"
        );
        // The name is stored in the variable: a fresh variable is one allocation.
        assert!(a.name.is_inline() && b.name.is_inline());
    }
}
