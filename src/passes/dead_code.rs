//! DeadCodeElimination (TVM v0.18 `src/relay/transforms/dead_code.cc`, RELAY_PASSES.md B.3):
//! drops let bindings whose pure value is never used, and with `inline_once` inlines pure
//! values used exactly once.
//!
//! Three phases, each linear and stack-safe:
//! 1. **purity** (unless `ignore_impurity`): over every global function that is neither
//!    `Primitive` nor `Extern`, TVM's `PurityVisitor` rules — constants, vars, functions are
//!    pure to evaluate; an op is pure to call unless stateful; a call is pure when its callee
//!    is pure to evaluate and to call and its arguments are pure; globals are analysed on
//!    demand (assumed pure while in progress; `Extern` ones are call-impure); higher-order
//!    parameters and functions taken out of tuples, references and ADTs (pattern variables)
//!    are call-impure; creating a reference and constructors are pure, reading or writing a
//!    reference is impure to evaluate; a call nested 25 calls
//!    deep is assumed impure (TVM's `kMaxCallDepth`, reproduced including the depth at which
//!    a shared node is first reached). Let-bound variables not analysed default to impure
//!    (pure with `ignore_impurity`).
//! 2. **usage** (TVM's `UsageVisitor`): counts uses of each let-bound variable; a pure value is
//!    only visited once its variable is used, so chains of dead lets die together; a use inside
//!    a function literal of a variable bound outside it counts twice; a node is walked at most
//!    twice (counts saturate at 2, exactly as in TVM).
//! 3. **rewrite**: impure binding -> kept; pure with 0 uses -> dropped (its value is not even
//!    visited: `Mutator::let_value_wanted`); pure with 1 use -> value inlined at the use when
//!    `inline_once`; otherwise kept. When every let of a function lies on its body's let spine
//!    (the usage walk notes any other) and nothing is inlined, only the spine is rebuilt: the
//!    rest of the function cannot change, so it is not walked again.
//!
//! Only let bindings are considered: graph-form dataflow has no dead nodes. Deliberately not
//! done: dead function elimination, purity of references and ADTs (not in this IR).

use crate::ir::mutate::{
    mutate_with, rebuild_call, rebuild_function, rebuild_get_item, rebuild_if, rebuild_let,
    rebuild_tuple, MutateState, Mutator, Unchanged,
};
use crate::ir::visit::each_node;
use crate::ir::{Attrs, Constant, Contains, Expr, ExprKind, Function, Module, Type, Var, VarMap};

mod purity;

/// Eliminates dead (and, with `inline_once`, single-use) let bindings in every function.
pub fn dead_code_elimination(m: &Module, inline_once: bool, ignore_impurity: bool) -> Module {
    dead_code_elimination_on(m, inline_once, ignore_impurity, 1)
}

/// [`dead_code_elimination`] with the functions mapped on `threads` threads (the purity of
/// the globals is found first, for the whole module); the same result for any count.
pub fn dead_code_elimination_on(
    m: &Module,
    inline_once: bool,
    ignore_impurity: bool,
    threads: usize,
) -> Module {
    // Only lets are eliminated (or inlined), and every node knows whether one lies below it:
    // a module or function without any comes back as it is, unwalked.
    let has_let = |f: &Expr| f.contains().any(Contains::LET);
    if !m.functions().any(|(_, f)| has_let(f)) {
        return m.clone();
    }
    let purity = if ignore_impurity {
        VarMap::new()
    } else {
        purity::analyse(m)
    };
    let one = |f: &Expr| {
        if f.as_function().is_none() || !has_let(f) {
            return f.clone();
        }
        let usage = Usage::count(f, &purity, ignore_impurity);
        eliminate(f, inline_once, &usage, &purity, ignore_impurity)
    };
    if threads > 1 && m.len() > 1 {
        let funcs: Vec<&Expr> = m.functions().map(|(_, f)| f).collect();
        let mut new = crate::pass::parallel::map_pure(threads, &funcs, |_, f| one(f)).into_iter();
        let out: Result<Module, std::convert::Infallible> =
            m.map_functions(|_, _| Ok(new.next().expect("one result per function")));
        return match out {
            Ok(m) => m,
            Err(never) => match never {},
        };
    }
    let out: Result<Module, std::convert::Infallible> = m.map_functions(|_, f| Ok(one(f)));
    match out {
        Ok(m) => m,
        Err(never) => match never {},
    }
}

/// True when a node's checked type (or a var's annotation) is not a function type.
pub(crate) fn first_order(ty: Option<&Type>) -> bool {
    ty.is_none_or(|t| t.as_func().is_none())
}

fn is_pure(purity: &VarMap<bool>, default: bool, v: &Var) -> bool {
    purity.get(v.id()).copied().unwrap_or(default)
}

/// What the usage count knows of a let-bound variable.
struct VarInfo<'a> {
    value: &'a Expr,
    uses: u32,
    /// Function nesting level of the binding.
    level: u32,
}

/// Use counts of let-bound variables (TVM's `UsageVisitor`).
struct Usage<'a> {
    vars: VarMap<VarInfo<'a>>,
    /// A let was reached other than down the body's let spine (inside a value, a branch, a
    /// call's argument, a nested function; or a spine let that is also used elsewhere).
    nested_lets: bool,
}

/// How a node was reached: [`Step::Visit`] or [`Step::Let`].
#[derive(Clone, Copy)]
enum StepKind {
    Visit,
    Let,
}

/// A step of the usage walk. The number is the reach's ordinal: TVM counts every time a node
/// is reached and stops at the third. A node with one reference is reached only through its
/// parent (or, for a let value, through its variable's first use), once per time the parent is
/// processed, so its count is the parent's; only shared nodes need a counter of their own.
enum Step<'a> {
    Visit(&'a Expr, u8),
    /// The next let of a chain (counted without the visit limit, as TVM's let loop does).
    Let(&'a Expr, u8),
    LeaveFunction,
}

impl<'a> Usage<'a> {
    fn count(root: &'a Expr, purity: &VarMap<bool>, default: bool) -> Usage<'a> {
        let mut u = Usage {
            vars: VarMap::new(),
            nested_lets: false,
        };
        // The first let of the spine: the function's body (a `Step::Visit`); the rest of the
        // spine comes as `Step::Let`.
        let spine_head: Option<&Expr> = root.as_function().map(|f| &f.body);
        let mut visits: crate::ir::NodeMap<u8> = crate::ir::NodeMap::default();
        let mut level = 0u32;
        let mut stack: Vec<Step<'a>> = crate::ir::scratch::take_vec();
        stack.push(Step::Visit(root, 1));
        while let Some(step) = stack.pop() {
            let (e, n, step_kind) = match step {
                Step::LeaveFunction => {
                    level -= 1;
                    continue;
                }
                Step::Let(e, n) => {
                    if e.is_shared() {
                        // Also reachable from elsewhere: the spine walk alone cannot rebuild it.
                        u.nested_lets = true;
                        let c = visits.entry(e.id()).or_default();
                        *c = c.saturating_add(1);
                        (e, *c, StepKind::Let)
                    } else {
                        (e, n, StepKind::Let)
                    }
                }
                Step::Visit(e, n) => {
                    e.prefetch_next();
                    let n = if e.is_shared() {
                        let c = visits.entry(e.id()).or_default();
                        *c = c.saturating_add(1);
                        *c
                    } else {
                        n
                    };
                    if n > 2 {
                        continue;
                    }
                    (e, n, StepKind::Visit)
                }
            };
            match e.kind() {
                ExprKind::Var(v) => {
                    if let Some(info) = u.vars.get_mut(v.id()) {
                        info.uses += 1;
                        let first = info.uses == 1;
                        if info.level < level {
                            info.uses += 1;
                        }
                        if first && is_pure(purity, default, v) {
                            stack.push(Step::Visit(info.value, 1));
                        }
                    }
                }
                ExprKind::Let(l) => {
                    if matches!(step_kind, StepKind::Visit)
                        && !spine_head.is_some_and(|h| h.ptr_eq(e))
                    {
                        u.nested_lets = true;
                    }
                    u.vars.insert(
                        l.var.id(),
                        VarInfo {
                            value: &l.value,
                            uses: 0,
                            level,
                        },
                    );
                    match l.body.kind() {
                        ExprKind::Let(_) => stack.push(Step::Let(&l.body, n)),
                        _ => stack.push(Step::Visit(&l.body, n)),
                    }
                    if !is_pure(purity, default, &l.var) {
                        stack.push(Step::Visit(&l.value, n));
                    }
                }
                ExprKind::Function(f) => {
                    level += 1;
                    stack.push(Step::LeaveFunction);
                    stack.push(Step::Visit(&f.body, n));
                }
                kind => {
                    kind.for_each_child_rev(|c| stack.push(Step::Visit(c, n)));
                }
            }
        }
        crate::ir::scratch::give_vec(stack);
        u
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    Elide,
    Inline,
    Keep,
}

struct Eliminator<'u, 'a> {
    inline_once: bool,
    usage: &'u Usage<'a>,
    purity: &'u VarMap<bool>,
    default: bool,
    /// Original values of inlined variables -> their rewritten form.
    wanted: crate::ir::NodeSet,
    rewritten: crate::ir::NodeMap<Expr>,
    inlined: VarMap<()>,
}

impl Eliminator<'_, '_> {
    fn action(&self, v: &Var) -> Action {
        let Some(info) = self.usage.vars.get(v.id()) else {
            return Action::Keep;
        };
        if !is_pure(self.purity, self.default, v) {
            return Action::Keep;
        }
        match info.uses {
            0 => Action::Elide,
            1 if self.inline_once => Action::Inline,
            _ => Action::Keep,
        }
    }

    fn note(&mut self, e: &Expr, out: Expr) -> Expr {
        if !self.wanted.is_empty() && self.wanted.contains(&e.id()) {
            self.rewritten.insert(e.id(), out.clone());
        }
        out
    }
}

fn eliminate(
    f: &Expr,
    inline_once: bool,
    usage: &Usage<'_>,
    purity: &VarMap<bool>,
    default: bool,
) -> Expr {
    // Nothing to drop or inline (a live program, or DCE run twice): the rewrite would rebuild
    // nothing, so it is not walked at all.
    let acts = |(id, info): (u64, &VarInfo<'_>)| {
        (purity.get(id).copied().unwrap_or(default))
            && (info.uses == 0 || (inline_once && info.uses == 1))
    };
    if !usage.vars.iter().any(acts) {
        return f.clone();
    }
    let m = Eliminator::new(inline_once, usage, purity, default);
    if !inline_once && !usage.nested_lets {
        if let Some(out) = m.on_spine(f) {
            return out;
        }
    }
    m.by_mutation(f)
}

impl<'u, 'a> Eliminator<'u, 'a> {
    fn new(
        inline_once: bool,
        usage: &'u Usage<'a>,
        purity: &'u VarMap<bool>,
        default: bool,
    ) -> Self {
        Eliminator {
            inline_once,
            usage,
            purity,
            default,
            wanted: Default::default(),
            rewritten: Default::default(),
            inlined: VarMap::new(),
        }
    }

    /// The general rewrite: a mutation of the whole function.
    fn by_mutation(mut self, f: &Expr) -> Expr {
        if self.inline_once {
            let mut wanted = crate::ir::NodeSet::default();
            each_node(f, |e| {
                if let ExprKind::Let(l) = e.kind() {
                    if self.action(&l.var) == Action::Inline {
                        wanted.insert(l.value.id());
                    }
                }
            });
            self.wanted = wanted;
        }
        mutate_with(&mut self, f, &mut MutateState::default())
    }

    /// DCE of a function whose lets all lie on its body's let spine (`let ..; let ..; tail`)
    /// and nothing is inlined: no value, no branch and no tail contains a let, so dropping
    /// bindings changes nothing but the spine, and nothing off the spine is visited (the
    /// mutation would walk every node of the function to find that it is unchanged). The same
    /// result as the mutation: kept lets are rebuilt over their new bodies with `rebuild_let`,
    /// the function with `rebuild_function`. `None` when `f` is not a function.
    fn on_spine(&self, f: &Expr) -> Option<Expr> {
        debug_assert!(!self.inline_once && !self.usage.nested_lets);
        let func = f.as_function()?;
        let mut spine: Vec<&Expr> = crate::ir::scratch::take_vec();
        let mut tail = &func.body;
        while let ExprKind::Let(l) = tail.kind() {
            spine.push(tail);
            tail = &l.body;
        }
        let mut body = tail.clone();
        for e in spine.iter().rev() {
            let ExprKind::Let(l) = e.kind() else {
                unreachable!("the spine holds lets")
            };
            if self.action(&l.var) != Action::Elide {
                body = rebuild_let(e, l.var.clone(), l.value.clone(), body);
            }
        }
        crate::ir::scratch::give_vec(spine);
        Some(rebuild_function(f, func, body))
    }
}

impl Mutator for Eliminator<'_, '_> {
    fn var(&mut self, e: &Expr, v: &Var) -> Expr {
        let mut out = e.clone();
        if self.action(v) == Action::Inline {
            let value = self
                .usage
                .vars
                .get(v.id())
                .expect("inlined vars are let-bound")
                .value;
            if let Some(r) = self.rewritten.get(&value.id()) {
                self.inlined.insert(v.id(), ());
                out = r.clone();
            }
        }
        self.note(e, out)
    }
    fn constant(&mut self, e: &Expr, _c: &Constant) -> Expr {
        self.note(e, e.clone())
    }
    fn leaf(&mut self, e: &Expr) -> Expr {
        self.note(e, e.clone())
    }
    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, _attrs: &Attrs) -> Expr {
        let out = rebuild_call(e, callee, args);
        self.note(e, out)
    }
    fn tuple(&mut self, e: &Expr, fields: Vec<Expr>) -> Expr {
        let out = rebuild_tuple(e, fields);
        self.note(e, out)
    }
    fn get_item(&mut self, e: &Expr, tuple: Expr, index: usize) -> Expr {
        let out = rebuild_get_item(e, tuple, index);
        self.note(e, out)
    }
    fn unchanged(&mut self, e: &Expr) -> Unchanged {
        // Every hook but a let's and an inlined variable's returns an unchanged node as is,
        // except that values to inline must be noted.
        if !self.wanted.is_empty() && self.wanted.contains(&e.id()) {
            return Unchanged::Hook;
        }
        Unchanged::keep_if(match e.kind() {
            ExprKind::Var(v) => self.action(v) != Action::Inline,
            ExprKind::Let(l) => self.action(&l.var) == Action::Keep,
            _ => true,
        })
    }
    fn let_value_wanted(&mut self, _e: &Expr, var: &Var) -> bool {
        // A dropped binding's value is not rewritten (its variable has no use to inline it at).
        self.action(var) != Action::Elide
    }
    fn let_(&mut self, e: &Expr, var: &Var, value: Expr, body: Expr) -> Expr {
        let out = match self.action(var) {
            Action::Elide => body,
            Action::Inline if self.inlined.contains(var.id()) => body,
            _ => rebuild_let(e, var.clone(), value, body),
        };
        self.note(e, out)
    }
    fn if_(&mut self, e: &Expr, cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        let out = rebuild_if(e, cond, then_branch, else_branch);
        self.note(e, out)
    }
    fn function(&mut self, e: &Expr, f: &Function, body: Expr) -> Expr {
        let out = rebuild_function(e, f, body);
        self.note(e, out)
    }
}

#[cfg(test)]
mod tests {
    use super::dead_code_elimination;
    use crate::text::parse_module;

    /// The spine-only rewrite gives the mutation's result exactly (same text, same types, the
    /// same untouched nodes), and programs with a let off the spine are not given to it.
    #[test]
    fn the_spine_rewrite_is_the_mutation_where_it_applies() {
        let cases = [
            // All lets on the spine, some dead, some kept; graph-form dataflow between them.
            ("def @main(%x: Tensor[(2), float32]) {
               %0 = add(%x, %x);
               let %dead = subtract(%0, %x);
               let %a = multiply(%0, %0);
               let %dead2 = exp(%a);
               %1 = negative(%a);
               (%1, %0)
             }", true),
            // A let chain, the last binding used, the rest dead.
            ("def @main(%x: float32) { let %a = add(%x, 1f); let %b = log(%x); let %c = exp(%a); %c }", true),
            // Impure values are kept.
            ("def @main(%x: Tensor[(2), float32]) { let %a = add(%x, 1f); let %r = nn.dropout(%x); %x }", true),
            // A let inside a value, a branch and a closure: not spine-only.
            ("def @main(%x: float32) { let %a = (let %b = exp(%x); negative(%x)); let %c = log(%a); %a }", false),
            ("def @main(%c: bool, %x: float32) { let %a = exp(%x); if (%c) { let %d = log(%x); %x } else { %a } }", false),
            ("def @main(%x: float32) { let %f = fn (%y: float32) { let %z = exp(%y); %y }; let %g = log(%x); %f(%x) }", false),
        ];
        for (text, spine) in cases {
            let m = match parse_module(text, "spine") {
                Ok(m) => m,
                Err(e) => panic!("{text}: {e}"),
            };
            let f = m.get("main").unwrap();
            let purity = super::purity::analyse(&m);
            let usage = super::Usage::count(f, &purity, false);
            assert_eq!(!usage.nested_lets, spine, "{text}");
            let by_mutation = super::Eliminator::new(false, &usage, &purity, false).by_mutation(f);
            let out = dead_code_elimination(&m, false, false);
            let (mut a, mut b) = (m.clone(), m.clone());
            a.replace("main", by_mutation.clone()).unwrap();
            b.replace("main", out.get("main").unwrap().clone()).unwrap();
            let (ta, tb) = (crate::text::print_module(&a), crate::text::print_module(&b));
            assert_eq!(ta, tb, "{text}");
            if spine {
                let direct = super::Eliminator::new(false, &usage, &purity, false)
                    .on_spine(f)
                    .unwrap();
                let mut c = m.clone();
                c.replace("main", direct).unwrap();
                assert_eq!(crate::text::print_module(&c), ta, "{text}");
            }
        }
    }

    #[test]
    fn a_program_with_nothing_dead_comes_back_as_the_same_functions() {
        let live = parse_module(
            "def @main(%x: float32) { let %a = add(%x, 1f); let %b = multiply(%a, %a); %b }",
            "live",
        )
        .unwrap();
        let out = dead_code_elimination(&live, false, false);
        let (before, after) = (live.get("main").unwrap(), out.get("main").unwrap());
        assert!(
            after.ptr_eq(before),
            "nothing to drop: the function is returned as is"
        );
        // With inline_once, %a (used twice) stays and %b (used once) is inlined: a rewrite.
        let inlined = dead_code_elimination(&live, true, false);
        assert!(!inlined.get("main").unwrap().ptr_eq(before));
        // A dead let is dropped.
        let dead = parse_module(
            "def @main(%x: float32) { let %a = add(%x, 1f); let %b = multiply(%x, %x); %b }",
            "dead",
        )
        .unwrap();
        let out = crate::text::print_module(&dead_code_elimination(&dead, false, false));
        assert!(!out.contains("add("), "{out}");
    }
}
