//! InlineGlobals (TVM's `relay.transform.Inline()`, `inline.cc`; registered as
//! "InlineGlobals"): a module pass (opt_level 1) that inlines global functions marked
//! `Inline=1` into their callers.
//!
//! A global is inlinable when it is marked `Inline` (non-zero), is not recursive (directly or
//! through other globals) and every global it references is inlinable too. In every function,
//! `@g(args)` becomes `g`'s fully inlined body with the parameters bound to the arguments;
//! when `g` is for an external compiler (`Compiler` attribute or non-zero `Extern`) the call
//! becomes a call of a copy of the fully inlined function literal instead, and a bare `@g`
//! (not called) becomes a copy of that literal. Afterwards, inlined globals that were
//! referenced before are removed; inlinable globals nobody referenced (entries such as
//! `@main`) stay.
//!
//! The result is the one of TVM's order, node for node: callees first, each inlinable global
//! is fully inlined once (its *template*), and each call copies its callee's template with
//! the arguments bound. A copy keeps the nodes of the template that hold no variable and no
//! binder, so all copies share those, and rebuilds the rest. Computed that way the work is
//! the size of every template, quadratic in the output on a chain of globals that each wrap
//! the next (the k-th template holds k levels, and only the last reaches the output). So only
//! globals whose template is small get one: building it may make at most [`TEMPLATE_FACTOR`]
//! times the global's own nodes (plus [`TEMPLATE_SLACK`]), from callees that have templates,
//! which bounds all templates together by a multiple of the module. Every other inlined call
//! is *expanded*: the callee's own body is walked in a frame where its parameters stand for
//! the arguments and its binders get fresh copies, calls inside it open frames in turn (an
//! explicit stack, no recursion), and copying a template is such a frame too, over the
//! template, whose closed nodes it keeps without visiting them. Each node a frame builds
//! records the outermost frame level whose arguments or binders it depends on, i.e. the
//! global whose template would have built it; it is recorded under that global and the
//! calls leading from it, so every expansion that reaches it through the same calls shares
//! it, as copies of that template would. A chain called from many places is copied from
//! small templates instead of being walked at every call. The work is linear in the size of
//! the module plus the size of the output.
//!
//! The output can be exponentially larger than the input: a chain of globals each calling the
//! next twice with its argument doubles at every level (TVM builds all of it). A run builds at
//! most [`MAX_BUILT_NODES`] nodes; past that the pass fails with an error saying so and the
//! module is left as it was. (Without an argument, the same chain is a DAG of one node a level,
//! since the calls' copies share everything.)
//!
//! Invariants: every inlined copy gets fresh binders (let variables and nested function
//! parameters), so the output is well-formed even when one function is inlined twice into the
//! same caller (TVM's `Bind` shares them); checked types are kept (a rebuilt node keeps its
//! type when its children's types are unchanged). Stack-safe: no recursion over expressions
//! or over the call graph. A module with nothing to inline comes back as the same value.
//!
//! Deliberately different from TVM: a marked global that cannot be inlined (it calls a global
//! that is not inlinable) is kept instead of failing TVM's "marked as inline but not inlined"
//! check. A function literal with parameters inside an expanded global keeps its checked type
//! when its body's type is unchanged; TVM's copy keeps the type the literal had in the
//! template (the same in a module typed throughout or not at all).

use super::remove_unused_functions::referenced_globals;
use super::subst::substitute_closed;
use crate::ir::mutate::{
    mutate, rebuild_call, rebuild_function, rebuild_get_item, rebuild_if, rebuild_let,
    rebuild_other, rebuild_tuple, walk, Mutator, Visitor,
};
use crate::ir::{
    visit, Attrs, Call, Clause, Expr, ExprKind, Function, Match, Module, NodeSet, Var,
};
use crate::pass::{module_pass, Pass, PassError, PassOptions};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// The most nodes one run builds (16.7 million: a run that reaches the limit peaks at about
/// 1.6 GB); a module whose inlining needs more fails the pass.
pub const MAX_BUILT_NODES: usize = 1 << 24;

/// A global gets a template when building it makes at most this many nodes per node of the
/// global (plus [`TEMPLATE_SLACK`]).
pub const TEMPLATE_FACTOR: usize = 4;

/// See [`TEMPLATE_FACTOR`].
pub const TEMPLATE_SLACK: usize = 256;

/// The limits of one run (the tests make them small, to send every global down each path).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub template_factor: usize,
    pub template_slack: usize,
    pub max_built: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            template_factor: TEMPLATE_FACTOR,
            template_slack: TEMPLATE_SLACK,
            max_built: MAX_BUILT_NODES,
        }
    }
}

fn marked_inline(f: &Function) -> bool {
    f.attr("Inline")
        .is_some_and(|v| v.as_int().unwrap_or(0) != 0)
}

fn external(f: &Function) -> bool {
    let compiler = f
        .attr("Compiler")
        .is_some_and(|v| v.as_str() != Some("default"));
    compiler
        || f.attr("Extern")
            .is_some_and(|v| v.as_int().unwrap_or(0) != 0)
}

/// The module's call graph and which globals are inlined.
struct Graph<'m> {
    names: Vec<&'m str>,
    funcs: Vec<&'m Expr>,
    index: FxHashMap<&'m str, usize>,
    /// The globals of the module each function references (each once).
    callees: Vec<Vec<usize>>,
    /// The inlinable globals, callees before callers.
    order: Vec<usize>,
    inlinable: Vec<bool>,
    /// Referenced by some function other than itself.
    referenced: Vec<bool>,
}

impl<'m> Graph<'m> {
    fn new(m: &'m Module) -> Graph<'m> {
        let (names, funcs): (Vec<&str>, Vec<&Expr>) =
            m.functions().map(|(g, e)| (g.name(), e)).unzip();
        let index: FxHashMap<&str, usize> =
            names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        let callees: Vec<Vec<usize>> = funcs
            .iter()
            .map(|e| {
                referenced_globals(e)
                    .iter()
                    .filter_map(|r| index.get(r.as_str()).copied())
                    .collect()
            })
            .collect();
        let n = names.len();
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); n];
        let mut referenced = vec![false; n];
        for (i, cs) in callees.iter().enumerate() {
            for &c in cs {
                callers[c].push(i);
                referenced[c] |= c != i;
            }
        }
        let mut cand: Vec<bool> = funcs
            .iter()
            .map(|e| e.as_function().is_some_and(marked_inline))
            .collect();
        // A candidate that references a global that is not a candidate is not inlinable, and
        // then neither are the candidates that reference it: each global is dropped once.
        let mut dropped: Vec<usize> = (0..n)
            .filter(|&i| cand[i] && callees[i].iter().any(|&c| !cand[c]))
            .collect();
        for &d in &dropped {
            cand[d] = false;
        }
        while let Some(d) = dropped.pop() {
            for &c in &callers[d] {
                if cand[c] {
                    cand[c] = false;
                    dropped.push(c);
                }
            }
        }
        // Kahn's algorithm on the candidates: a global is ready once all its callees are done;
        // globals on a cycle (including self-recursion) never become ready.
        let mut pending: Vec<usize> = (0..n)
            .map(|i| if cand[i] { callees[i].len() } else { 0 })
            .collect();
        let mut ready: Vec<usize> = (0..n)
            .rev()
            .filter(|&i| cand[i] && pending[i] == 0)
            .collect();
        let mut order = Vec::new();
        let mut inlinable = vec![false; n];
        while let Some(c) = ready.pop() {
            order.push(c);
            inlinable[c] = true;
            for &caller in &callers[c] {
                if cand[caller] {
                    pending[caller] -= 1;
                    if pending[caller] == 0 {
                        ready.push(caller);
                    }
                }
            }
        }
        Graph {
            names,
            funcs,
            index,
            callees,
            order,
            inlinable,
            referenced,
        }
    }
}

/// Inlines every inlinable global; see the module documentation.
pub fn inline_globals(m: &Module) -> Result<Module, String> {
    inline_with(m, Limits::default())
}

pub(crate) fn inline_with(m: &Module, limits: Limits) -> Result<Module, String> {
    // Nothing marked `Inline`: nothing is inlinable, and no body needs reading.
    if !m
        .functions()
        .any(|(_, e)| e.as_function().is_some_and(marked_inline))
    {
        return Ok(m.clone());
    }
    let g = Graph::new(m);
    if g.order.is_empty() {
        return Ok(m.clone());
    }
    let mut budget = Budget {
        built: 0,
        max: limits.max_built,
    };
    let mut plans: Vec<Plan> = (0..g.names.len()).map(|_| Plan::Kept).collect();
    for &i in &g.order {
        plans[i] = plan(&g, &plans, i, limits, &mut budget)?;
    }
    let mut x = Expander {
        g: &g,
        plans: &plans,
        budget,
        own: FxHashMap::default(),
        instances: FxHashMap::default(),
    };
    let removed = |i: usize| g.inlinable[i] && g.referenced[i];
    let mut out = m.clone();
    for (i, plan) in plans.iter().enumerate() {
        if removed(i) || !g.callees[i].iter().any(|&c| g.inlinable[c]) {
            continue;
        }
        let new = match plan {
            Plan::Template(t) => t.func.clone(),
            _ => x.expand(i)?,
        };
        if !new.ptr_eq(g.funcs[i]) {
            out.replace(g.names[i], new).expect("a function");
        }
    }
    if (0..g.names.len()).any(removed) {
        out.retain_functions(|gv| !removed(g.index[gv.name()]));
    }
    Ok(out)
}

/// Nodes built so far, against the limit.
struct Budget {
    built: usize,
    max: usize,
}

impl Budget {
    fn spend(&mut self, n: usize) -> Result<(), String> {
        self.built += n;
        if self.built > self.max {
            return Err(format!(
                "inlining would build more than {} nodes (a chain of inlined globals each \
                 calling the next more than once doubles the program at every level); the \
                 module is left as it was",
                self.max
            ));
        }
        Ok(())
    }
}

/// How the calls of a global are inlined.
enum Plan {
    /// Not inlinable: calls stay.
    Kept,
    /// Each call copies the global's template.
    Template(Template),
    /// Each call expands the global's body in place.
    Expand,
}

/// A global fully inlined (TVM's inlined global), with what copying it needs to know.
struct Template {
    /// The function literal.
    func: Expr,
    /// Its nodes without any variable or binder below them: every copy keeps them.
    closed: NodeSet,
    /// How many of its nodes are not closed (what one copy builds, at most).
    copies: usize,
}

impl Template {
    fn new(func: Expr) -> Template {
        let mut closed = NodeSet::default();
        let mut copies = 0;
        visit::post_order(&func, |e| {
            let is_closed = match e.kind() {
                ExprKind::Var(_) | ExprKind::Let(_) => false,
                ExprKind::Function(f) if !f.params.is_empty() => false,
                k => {
                    let mut all = true;
                    k.for_each_child(|c| all &= closed.contains(&c.id()));
                    all
                }
            };
            if is_closed {
                closed.insert(e.id());
            } else {
                copies += 1;
            }
        });
        Template {
            func,
            closed,
            copies,
        }
    }

    fn function(&self) -> &Function {
        self.func.as_function().expect("a function literal")
    }

    /// A copy of the body with the parameters bound to `args`.
    fn body_copy(&self, args: Vec<Expr>) -> Expr {
        let f = self.function();
        let binding: Vec<(Var, Expr)> = f.params.iter().cloned().zip(args).collect();
        substitute_closed(&f.body, &binding, true, &self.closed)
    }

    /// A copy of the function literal (fresh parameters).
    fn literal_copy(&self) -> Expr {
        substitute_closed(&self.func, &[], true, &self.closed)
    }
}

fn template_of(plans: &[Plan], i: usize) -> Option<&Template> {
    match &plans[i] {
        Plan::Template(t) => Some(t),
        _ => None,
    }
}

/// The plan of inlinable global `i`, whose callees have theirs: a template when its callees
/// have templates and it stays within its budget, else expansion.
fn plan(
    g: &Graph<'_>,
    plans: &[Plan],
    i: usize,
    limits: Limits,
    budget: &mut Budget,
) -> Result<Plan, String> {
    if g.callees[i]
        .iter()
        .any(|&c| template_of(plans, c).is_none())
    {
        return Ok(Plan::Expand);
    }
    let f = g.funcs[i];
    let size = visit::count_nodes(f);
    let mut bare = BareRefs::default();
    walk(&mut bare, f);
    let mut b = TemplateBuilder {
        g,
        plans,
        bare: bare.bare,
        budget: size
            .saturating_mul(limits.template_factor)
            .saturating_add(limits.template_slack),
        spent: 0,
        over: false,
    };
    let func = mutate(&mut b, f);
    budget.spend(b.spent)?;
    Ok(if b.over {
        Plan::Expand
    } else {
        Plan::Template(Template::new(func))
    })
}

/// Which global nodes appear somewhere other than as a callee.
#[derive(Default)]
struct BareRefs {
    bare: NodeSet,
}

impl Visitor for BareRefs {
    fn visit(&mut self, e: &Expr) {
        match e.kind() {
            ExprKind::Call(c) => {
                for a in &c.args {
                    self.note(a);
                }
            }
            ExprKind::Function(fun) => self.note(&fun.body),
            _ => e.kind().for_each_child(|k| self.note(k)),
        }
    }
}

impl BareRefs {
    fn note(&mut self, e: &Expr) {
        if matches!(e.kind(), ExprKind::GlobalVar(_)) {
            self.bare.insert(e.id());
        }
    }
}

/// Builds a global's template: its calls of inlinable globals replaced by copies of their
/// templates (all its callees have one). Stops copying once the copies would make more than
/// `budget` nodes (`over`): the global is then expanded at each call instead.
struct TemplateBuilder<'a, 'm> {
    g: &'a Graph<'m>,
    plans: &'a [Plan],
    bare: NodeSet,
    budget: usize,
    spent: usize,
    over: bool,
}

impl<'a> TemplateBuilder<'a, '_> {
    /// The template of global `name`, if it has one and copying it stays within the budget.
    fn affordable(&mut self, name: &str) -> Option<&'a Template> {
        let t = template_of(self.plans, *self.g.index.get(name)?)?;
        if self.over || self.spent + t.copies > self.budget {
            self.over = true;
            return None;
        }
        self.spent += t.copies;
        Some(t)
    }
}

impl Mutator for TemplateBuilder<'_, '_> {
    fn leaf(&mut self, e: &Expr) -> Expr {
        match e.kind() {
            ExprKind::GlobalVar(g) if self.bare.contains(&e.id()) => {
                match self.affordable(g.name()) {
                    Some(t) => t.literal_copy(),
                    None => e.clone(),
                }
            }
            _ => e.clone(),
        }
    }

    fn call(&mut self, e: &Expr, callee: Expr, args: Vec<Expr>, attrs: &Attrs) -> Expr {
        let ExprKind::Call(c) = e.kind() else {
            return e.clone();
        };
        let ExprKind::GlobalVar(g) = c.callee.kind() else {
            return rebuild_call(e, callee, args);
        };
        let Some(t) = self.affordable(g.name()) else {
            return rebuild_call(e, callee, args);
        };
        let f = t.function();
        if external(f) || f.params.len() != args.len() {
            let kind = ExprKind::Call(Call {
                callee: t.literal_copy(),
                args: args.into(),
                attrs: attrs.clone(),
            });
            return Expr::with_info(kind, e.ty().cloned(), e.span());
        }
        t.body_copy(args)
    }
}

/// [`Img::level`] of the node itself.
const ORIGINAL: u32 = u32::MAX;

/// The instance under which nodes that no copy changes are recorded.
const UNCHANGED: u32 = u32::MAX;

/// What a node became in an expansion.
#[derive(Clone)]
struct Img {
    /// The new node, or `None` for the node itself.
    e: Option<Expr>,
    /// The level that builds it ([`ORIGINAL`]: none does). In TVM's order each node is built
    /// by the inlining of one global, into its template, and every copy of that template
    /// shares it. Level `l` is that global: the one of the frame at level `l` (level 0: the
    /// kept function itself). Such a node depends on no argument of the frame at level `l`
    /// or of any frame below it, and on no binder of a copy, so every expansion that reaches
    /// it from that global through the same calls builds the same node, and they share it.
    level: u32,
}

impl Img {
    const ORIGINAL: Img = Img {
        e: None,
        level: ORIGINAL,
    };

    fn expr(&self, orig: &Expr) -> Expr {
        self.e.clone().unwrap_or_else(|| orig.clone())
    }
}

/// One expansion: of a kept function (level 0, nothing renamed), or of an inlined global's
/// body for a call or its function literal for a bare reference or an external call (a copy,
/// at its caller's level plus one: binders renamed). A global with a template is copied from
/// the template, skipping its closed nodes; else from its own nodes, inlining its calls.
struct Frame<'p> {
    id: u64,
    level: u32,
    /// The inlinable global copied (`None`: a kept function).
    global: Option<usize>,
    /// The closed nodes of the template copied, if it is a template.
    closed: Option<&'p NodeSet>,
    /// The node of the frame below that this frame expands.
    site: usize,
    /// Parameter -> argument and the level that built it (as seen from this frame).
    args: FxHashMap<u64, (Expr, u32)>,
    /// Binder -> its fresh copy.
    renamed: FxHashMap<u64, Var>,
    /// The levels (from 1) at which a node of this frame can be built: its own (unless it
    /// copies a template, whose own nodes are its closed ones) and its arguments'.
    levels: SmallVec<[u32; 4]>,
    /// Instances by level (see [`Expander::instance`]).
    instances: SmallVec<[(u32, u32); 4]>,
}

enum Task<'p> {
    Visit(&'p Expr),
    /// A node whose children's images are on the value stack.
    Build(&'p Expr, bool),
    /// A call of inlinable global `.1`, its arguments' images on the value stack.
    Inline(&'p Expr, usize, bool),
    /// A call of a copy of a global's literal: the copy's and the arguments' images are on
    /// the value stack.
    External(&'p Expr, bool),
    /// Open the copy of global `.1`'s literal for the callee `.0` of an external call.
    Literal(&'p Expr, usize),
    /// The frame on top is done, its root's (`.1`) image on the value stack: `.0` (a call or
    /// a bare reference) becomes it, or (`None`) it is an external call's callee.
    Close(Option<(&'p Expr, bool)>, &'p Expr),
}

/// The expansion of kept functions, and what expansions share.
struct Expander<'p, 'm> {
    g: &'p Graph<'m>,
    plans: &'p [Plan],
    budget: Budget,
    /// Nodes built at a level from 1, by instance (of that level's global, reached through
    /// given calls) and the node copied (`None`: the node itself, under [`UNCHANGED`]).
    own: FxHashMap<(u32, usize), Option<Expr>>,
    /// Instance of a global reached through one more call: (instance, call) -> instance. The
    /// instance of a global at its own level is its index.
    instances: FxHashMap<(u32, usize), u32>,
}

/// The images of one expansion of a kept function.
struct Out {
    /// A shared node's image in a frame, by frame and node.
    memo: FxHashMap<(u64, usize), Img>,
    /// The images of the nodes done whose parents are not.
    vals: Vec<Img>,
    next_frame: u64,
}

impl<'p> Expander<'p, '_> {
    /// The instance that nodes of frame `f` built at `level` are recorded under: the global of
    /// the frame at that level, reached through the calls that opened the frames above it.
    fn instance(&mut self, frames: &mut [Frame<'p>], f: usize, level: u32) -> u32 {
        let mut i = f;
        let mut base = loop {
            let fr = &frames[i];
            if fr.level == level {
                break fr.global.expect("a global's frame") as u32;
            }
            if let Some(&(_, x)) = fr.instances.iter().find(|(l, _)| *l == level) {
                break x;
            }
            i -= 1;
        };
        for fr in &mut frames[i + 1..=f] {
            let next = self.g.names.len() as u32 + self.instances.len() as u32;
            base = *self.instances.entry((base, fr.site)).or_insert(next);
            fr.instances.push((level, base));
        }
        base
    }

    /// Opens the frame copying global `gi` for node `site` of the frame on top: its body with
    /// the parameters bound to `args` (their images), or without them its function literal.
    #[allow(clippy::too_many_arguments)]
    fn open(
        &self,
        frames: &mut Vec<Frame<'p>>,
        out: &mut Out,
        tasks: &mut Vec<Task<'p>>,
        gi: usize,
        site: &Expr,
        args: Option<Vec<(Expr, u32)>>,
        at: Option<(&'p Expr, bool)>,
    ) {
        let below = frames.last().expect("a frame").level;
        let level = below + 1;
        let (func, closed): (&'p Expr, _) = match &self.plans[gi] {
            Plan::Template(t) => (&t.func, Some(&t.closed)),
            _ => (self.g.funcs[gi], None),
        };
        let f = func.as_function().expect("a function");
        let root = if args.is_some() { &f.body } else { func };
        // An argument built at the caller's level or out of it: as seen from here, the
        // parameter changes at the caller's level at the latest.
        let args: FxHashMap<u64, (Expr, u32)> = f
            .params
            .iter()
            .zip(args.into_iter().flatten())
            .map(|(p, (a, l))| (p.id(), (a, l.min(below))))
            .collect();
        let mut levels: SmallVec<[u32; 4]> = SmallVec::new();
        if closed.is_none() {
            levels.push(level);
        }
        levels.extend(args.values().map(|(_, l)| *l).filter(|l| *l >= 1));
        levels.sort_unstable_by(|a, b| b.cmp(a));
        levels.dedup();
        out.next_frame += 1;
        frames.push(Frame {
            id: out.next_frame,
            level,
            global: Some(gi),
            closed,
            site: site.id(),
            args,
            renamed: FxHashMap::default(),
            levels,
            instances: SmallVec::new(),
        });
        tasks.push(Task::Close(at, root));
        tasks.push(Task::Visit(root));
    }

    /// Node `e` of frame `f` became `img`: recorded for the copies that share it.
    fn finish(
        &mut self,
        frames: &mut [Frame<'p>],
        f: usize,
        out: &mut Out,
        e: &Expr,
        shared: bool,
        mut img: Img,
    ) {
        let (level, copies_own) = (frames[f].level, frames[f].closed.is_none());
        if level >= 1 && !matches!(e.kind(), ExprKind::Var(_)) {
            if img.level == ORIGINAL {
                if copies_own {
                    self.own.insert((UNCHANGED, e.id()), None);
                }
            } else if img.level >= 1 {
                let inst = self.instance(frames, f, img.level);
                let kept = self
                    .own
                    .entry((inst, e.id()))
                    .or_insert_with(|| img.e.clone());
                img.e.clone_from(kept);
            }
        }
        if shared {
            out.memo.insert((frames[f].id, e.id()), img.clone());
        }
        out.vals.push(img);
    }

    /// The image of `e` in frame `f` recorded by an earlier copy, if any.
    fn recorded(&mut self, frames: &mut [Frame<'p>], f: usize, e: &Expr) -> Option<Img> {
        if frames[f].level == 0 || matches!(e.kind(), ExprKind::Var(_)) {
            return None;
        }
        if frames[f].closed.is_none() && self.own.contains_key(&(UNCHANGED, e.id())) {
            return Some(Img::ORIGINAL);
        }
        for k in 0..frames[f].levels.len() {
            let level = frames[f].levels[k];
            let inst = self.instance(frames, f, level);
            if let Some(x) = self.own.get(&(inst, e.id())) {
                return Some(Img {
                    e: x.clone(),
                    level,
                });
            }
        }
        None
    }

    /// Kept function `root` with every call of an inlinable global inlined.
    fn expand(&mut self, root: usize) -> Result<Expr, String> {
        let g = self.g;
        let mut frames = vec![Frame {
            id: 0,
            level: 0,
            global: None,
            closed: None,
            site: 0,
            args: FxHashMap::default(),
            renamed: FxHashMap::default(),
            levels: SmallVec::new(),
            instances: SmallVec::new(),
        }];
        let mut out = Out {
            memo: FxHashMap::default(),
            vals: Vec::new(),
            next_frame: 0,
        };
        let mut tasks: Vec<Task<'p>> = vec![Task::Visit(g.funcs[root])];
        let inlinable = |e: &Expr| match e.kind() {
            ExprKind::GlobalVar(gv) => g.index.get(gv.name()).copied().filter(|&i| g.inlinable[i]),
            _ => None,
        };
        while let Some(task) = tasks.pop() {
            let top = frames.len() - 1;
            match task {
                Task::Visit(e) => {
                    if frames[top].closed.is_some_and(|c| c.contains(&e.id())) {
                        out.vals.push(Img::ORIGINAL);
                        continue;
                    }
                    if let Some(img) = self.recorded(&mut frames, top, e) {
                        out.vals.push(img);
                        continue;
                    }
                    let shared = e.is_shared();
                    if shared {
                        if let Some(img) = out.memo.get(&(frames[top].id, e.id())) {
                            out.vals.push(img.clone());
                            continue;
                        }
                    }
                    match e.kind() {
                        ExprKind::Var(v) => {
                            let frame = &frames[top];
                            let img = if let Some((a, level)) = frame.args.get(&v.id()) {
                                Img {
                                    e: Some(a.clone()),
                                    level: *level,
                                }
                            } else if let Some(nv) = frame.renamed.get(&v.id()) {
                                let kind = ExprKind::Var(nv.clone());
                                let var = Expr::with_info(kind, e.ty().cloned(), e.span());
                                self.budget.spend(1)?;
                                Img {
                                    e: Some(var),
                                    level: 0,
                                }
                            } else {
                                Img::ORIGINAL
                            };
                            self.finish(&mut frames, top, &mut out, e, shared, img);
                        }
                        ExprKind::Constant(_) | ExprKind::Op(_) | ExprKind::Constructor(_) => {
                            out.vals.push(Img::ORIGINAL)
                        }
                        ExprKind::GlobalVar(_) => match inlinable(e) {
                            None => out.vals.push(Img::ORIGINAL),
                            Some(gi) => {
                                let at = Some((e, shared));
                                self.open(&mut frames, &mut out, &mut tasks, gi, e, None, at);
                            }
                        },
                        ExprKind::Call(c) => match inlinable(&c.callee) {
                            Some(gi) => {
                                let f = g.funcs[gi].as_function().expect("a function");
                                if external(f) || f.params.len() != c.args.len() {
                                    tasks.push(Task::External(e, shared));
                                    tasks.extend(c.args.iter().rev().map(Task::Visit));
                                    tasks.push(Task::Literal(&c.callee, gi));
                                } else {
                                    tasks.push(Task::Inline(e, gi, shared));
                                    tasks.extend(c.args.iter().rev().map(Task::Visit));
                                }
                            }
                            None => {
                                tasks.push(Task::Build(e, shared));
                                e.kind().for_each_child_rev(|k| tasks.push(Task::Visit(k)));
                            }
                        },
                        k => {
                            let frame = &mut frames[top];
                            if frame.level >= 1 {
                                // A copy: its binders are fresh.
                                let fresh = |v: &Var| (v.id(), v.with_ann(v.ann().cloned()));
                                match k {
                                    ExprKind::Let(l) => frame.renamed.extend([fresh(&l.var)]),
                                    ExprKind::Function(f) => {
                                        frame.renamed.extend(f.params.iter().map(fresh))
                                    }
                                    ExprKind::Match(m) => m.for_each_bound_var(|v| {
                                        frame.renamed.extend([fresh(v)]);
                                    }),
                                    _ => {}
                                }
                            }
                            tasks.push(Task::Build(e, shared));
                            k.for_each_child_rev(|c| tasks.push(Task::Visit(c)));
                        }
                    }
                }
                Task::Build(e, shared) => {
                    let mut n = 0;
                    e.kind().for_each_child(|_| n += 1);
                    let kids = out.vals.split_off(out.vals.len() - n);
                    let img = self.build(&frames[top], e, kids)?;
                    self.finish(&mut frames, top, &mut out, e, shared, img);
                }
                Task::Inline(e, gi, shared) => {
                    let ExprKind::Call(c) = e.kind() else {
                        unreachable!("an inlined call")
                    };
                    let kids = out.vals.split_off(out.vals.len() - c.args.len());
                    let args = kids
                        .into_iter()
                        .zip(c.args.iter())
                        .map(|(k, a)| (k.expr(a), k.level))
                        .collect();
                    let at = Some((e, shared));
                    self.open(&mut frames, &mut out, &mut tasks, gi, e, Some(args), at);
                }
                Task::External(e, shared) => {
                    let ExprKind::Call(c) = e.kind() else {
                        unreachable!("an external call")
                    };
                    let kids = out.vals.split_off(out.vals.len() - c.args.len() - 1);
                    let level = kids.iter().map(|k| k.level).min().unwrap_or(ORIGINAL);
                    let callee = kids[0].e.clone().expect("a copy of the literal");
                    let args: Vec<Expr> = kids[1..]
                        .iter()
                        .zip(c.args.iter())
                        .map(|(k, a)| k.expr(a))
                        .collect();
                    self.budget.spend(1)?;
                    let kind = ExprKind::Call(Call {
                        callee,
                        args: args.into(),
                        attrs: c.attrs.clone(),
                    });
                    let call = Expr::with_info(kind, e.ty().cloned(), e.span());
                    let img = Img {
                        e: Some(call),
                        level,
                    };
                    self.finish(&mut frames, top, &mut out, e, shared, img);
                }
                Task::Literal(callee, gi) => {
                    self.open(&mut frames, &mut out, &mut tasks, gi, callee, None, None);
                }
                Task::Close(at, root) => {
                    frames.pop();
                    let below = frames[top - 1].level;
                    let r = out.vals.pop().expect("the frame's result");
                    // The node expanded stands for the copy now: changed at the level below.
                    let img = Img {
                        e: Some(r.expr(root)),
                        level: r.level.min(below),
                    };
                    match at {
                        Some((e, shared)) => {
                            self.finish(&mut frames, top - 1, &mut out, e, shared, img)
                        }
                        None => out.vals.push(img),
                    }
                }
            }
        }
        let result = out.vals.pop().expect("the function's result");
        Ok(result.expr(g.funcs[root]))
    }

    /// Node `e` of `frame` rebuilt from its children's images.
    fn build(&mut self, frame: &Frame<'p>, e: &Expr, kids: Vec<Img>) -> Result<Img, String> {
        let binds = frame.level >= 1
            && match e.kind() {
                ExprKind::Let(_) => true,
                ExprKind::Function(f) => !f.params.is_empty(),
                ExprKind::Match(m) => {
                    let mut any = false;
                    m.for_each_bound_var(|_| any = true);
                    any
                }
                _ => false,
            };
        let level = kids.iter().map(|k| k.level).min().unwrap_or(ORIGINAL);
        if level == ORIGINAL && !binds {
            return Ok(Img::ORIGINAL);
        }
        let mut exprs = Vec::with_capacity(kids.len());
        let mut i = 0;
        e.kind().for_each_child(|c| {
            exprs.push(kids[i].expr(c));
            i += 1;
        });
        let renamed = |v: &Var| {
            frame
                .renamed
                .get(&v.id())
                .cloned()
                .unwrap_or_else(|| v.clone())
        };
        let mut exprs = exprs.into_iter();
        let mut next = || exprs.next().expect("one image per child");
        let out = match e.kind() {
            ExprKind::Call(_) => {
                let callee = next();
                rebuild_call(e, callee, exprs.collect())
            }
            ExprKind::Tuple(_) => rebuild_tuple(e, exprs.collect()),
            ExprKind::TupleGetItem(_, i) => rebuild_get_item(e, next(), *i),
            ExprKind::Let(l) => {
                let (value, body) = (next(), next());
                rebuild_let(e, renamed(&l.var), value, body)
            }
            ExprKind::If(_) => {
                let (c, t, f) = (next(), next(), next());
                rebuild_if(e, c, t, f)
            }
            ExprKind::Function(f) if binds => {
                let body = next();
                // A template's literal keeps its type (as a copy of it does); a global's own
                // literal, when its body's type is unchanged.
                let same_type = frame.closed.is_some()
                    || f.body.ptr_eq(&body)
                    || (f.body.ty().is_some() && f.body.ty() == body.ty());
                let ty = if same_type { e.ty().cloned() } else { None };
                let func = Function {
                    type_params: f.type_params.clone(),
                    params: f.params.iter().map(renamed).collect(),
                    body,
                    ret_type: f.ret_type.clone(),
                    attrs: f.attrs.clone(),
                };
                Expr::with_info(ExprKind::Function(Box::new(func)), ty, e.span())
            }
            ExprKind::Function(f) => rebuild_function(e, f, next()),
            ExprKind::Match(m) if binds => {
                let data = next();
                let clauses = m
                    .clauses
                    .iter()
                    .map(|c| Clause {
                        pattern: c.pattern.map_vars(&mut |v| renamed(v)),
                        rhs: next(),
                    })
                    .collect();
                let kind = ExprKind::Match(Box::new(Match {
                    data,
                    clauses,
                    complete: m.complete,
                }));
                Expr::with_info(kind, e.ty().cloned(), e.span())
            }
            ExprKind::Match(_)
            | ExprKind::RefNew(_)
            | ExprKind::RefRead(_)
            | ExprKind::RefWrite(..) => rebuild_other(e, exprs_all(&mut next, e)),
            _ => unreachable!("leaves have no children"),
        };
        self.budget.spend(1)?;
        Ok(Img {
            e: Some(out),
            level: if binds { 0 } else { level },
        })
    }
}

/// The next images of all of `e`'s children.
fn exprs_all(next: &mut impl FnMut() -> Expr, e: &Expr) -> Vec<Expr> {
    let mut out = Vec::new();
    e.kind().for_each_child(|_| out.push(next()));
    out
}

/// The registered pass.
pub fn pass() -> Pass {
    module_pass(super::builtin_info("InlineGlobals"), |m, _cx| {
        inline_globals(m).map_err(PassError::failed)
    })
}

/// The registry's constructor: `InlineGlobals()` (TVM's `Inline()`).
pub fn create(_options: &PassOptions) -> Result<Pass, PassError> {
    Ok(pass())
}

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
