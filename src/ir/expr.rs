//! Expressions: immutable nodes shared by reference counting. A pass that changes one call
//! rebuilds only the path to it; everything else is shared with the input, so older module
//! values stay valid and cheap to keep.
//!
//! Identity matters: two `Expr`s are the same node when they point at the same allocation
//! ([`Expr::ptr_eq`], [`Expr::id`]); variables are identified by their `VarNode`, never by name.
//! Dropping is iterative, so a million-deep let chain is freed without recursion.

use super::adt::{Constructor, Match};
use super::attrs::{AttrValue, Attrs};
use super::op::{Op, OpDef};
use super::tensor::Constant;
use super::types::{Type, TypeVar};
pub use crate::diagnostic::Span;
use ecow::EcoString;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// The reference-counted box of expression and variable nodes: `triomphe::Arc`, which has no
/// weak count (nodes are never weakly referenced), so a node takes an 8-byte header instead of
/// std's 16: an `ExprNode` fits mimalloc's 64-byte size class, one cache line, and a `VarNode`
/// the 48-byte class.
type NodeArc<T> = triomphe::Arc<T>;

/// A local variable. Identity is the allocation; the name is only a hint for printing.
#[derive(Clone)]
pub struct Var(NodeArc<VarNode>);

/// The body of a [`Var`].
#[derive(Debug)]
pub struct VarNode {
    /// The name: up to 15 bytes (nearly every name, and every `%x_N` or `%pN` a pass makes)
    /// stored in the node itself, longer ones shared by reference count; a variable costs
    /// one allocation, not two.
    pub name: EcoString,
    /// The type annotation written on the binder (`%x: T`), if any.
    pub ann: Option<Type>,
    /// The `{virtual_device=...}` pseudo-attribute of a function parameter (boxed: it is
    /// rare, and keeps a variable small).
    pub virtual_device: Option<Box<AttrValue>>,
    id: u64,
}

/// A fresh variable id, unique in the process. The low 40 bits count; the high 24 bits tell
/// apart copies of this library in one process (evcxr links a copy into every notebook cell,
/// each with its own counter, and variables made by different copies meet in one module):
/// they are a hash of where this copy's counter lives.
const _: () = assert!(std::mem::size_of::<VarNode>() == 40);

fn next_var_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    static COPY: OnceLock<u64> = OnceLock::new();
    let copy = *COPY.get_or_init(|| {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let at = &NEXT as *const AtomicU64 as usize;
        BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(at) >> 40 << 40
    });
    copy | (NEXT.fetch_add(1, Ordering::Relaxed) & ((1 << 40) - 1))
}

impl Var {
    pub fn new(name: &str, ann: Option<Type>) -> Var {
        Var::with_device(name, ann, None)
    }

    pub fn with_device(name: &str, ann: Option<Type>, vd: Option<AttrValue>) -> Var {
        Var::from_parts(name.into(), ann, vd.map(Box::new))
    }

    /// A variable whose name is already an [`EcoString`] (an inline copy or a shared one).
    pub fn named(name: EcoString, ann: Option<Type>) -> Var {
        Var::from_parts(name, ann, None)
    }

    fn from_parts(name: EcoString, ann: Option<Type>, vd: Option<Box<AttrValue>>) -> Var {
        Var(NodeArc::new(VarNode {
            name,
            ann,
            virtual_device: vd,
            id: next_var_id(),
        }))
    }

    /// A process-unique id, stable for the life of the variable.
    pub fn id(&self) -> u64 {
        self.0.id
    }

    /// The address of the variable's node: unique among live variables and nodes, and close
    /// to the nodes allocated around it (for tables placed by address).
    pub fn addr(&self) -> usize {
        NodeArc::as_ptr(&self.0) as usize
    }

    /// Number of handles to the variable (its binder and every reference node).
    pub fn strong_count(&self) -> usize {
        NodeArc::count(&self.0)
    }

    pub fn name(&self) -> &str {
        &self.0.name
    }

    pub fn ann(&self) -> Option<&Type> {
        self.0.ann.as_ref()
    }

    /// A fresh variable with the same name (shared, not copied) and a new annotation.
    pub fn with_ann(&self, ann: Option<Type>) -> Var {
        Var::from_parts(self.0.name.clone(), ann, self.0.virtual_device.clone())
    }
}

impl std::ops::Deref for Var {
    type Target = VarNode;
    fn deref(&self) -> &VarNode {
        &self.0
    }
}

impl PartialEq for Var {
    fn eq(&self, o: &Var) -> bool {
        NodeArc::ptr_eq(&self.0, &o.0)
    }
}
impl Eq for Var {}
impl std::hash::Hash for Var {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.0.id.hash(h)
    }
}
impl fmt::Debug for Var {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "%{}#{}", self.0.name, self.0.id)
    }
}

/// A reference to a global function, `@name`. Globals are identified by name.
#[derive(Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct GlobalVar(pub Arc<str>);

impl GlobalVar {
    pub fn new(name: &str) -> GlobalVar {
        GlobalVar(name.into())
    }
    pub fn name(&self) -> &str {
        &self.0
    }
}

/// A call: of an op, a function literal, a variable or a global.
#[derive(Clone, Debug)]
pub struct Call {
    pub callee: Expr,
    /// A boxed slice, not a `Vec`: two words instead of three keep [`ExprNode`] at 56 bytes.
    pub args: Box<[Expr]>,
    pub attrs: Attrs,
}

/// `let %var = value; body`.
#[derive(Clone, Debug)]
pub struct Let {
    pub var: Var,
    pub value: Expr,
    pub body: Expr,
}

/// `if (cond) { then } else { else }`.
#[derive(Clone, Debug)]
pub struct If {
    pub cond: Expr,
    pub then_branch: Expr,
    pub else_branch: Expr,
}

/// A function: `fn (%x: T, Primitive=1) -> R { body }` or the body of a `def`.
#[derive(Clone, Debug)]
pub struct Function {
    /// Type parameters, `fn [A, B](...)` (empty for a monomorphic function).
    pub type_params: Vec<TypeVar>,
    pub params: Vec<Var>,
    pub body: Expr,
    pub ret_type: Option<Type>,
    /// Function attributes in the order written (`Primitive=1`, `Compiler="x"`, ...).
    pub attrs: Vec<(Arc<str>, AttrValue)>,
}

impl Function {
    pub fn attr(&self, name: &str) -> Option<&AttrValue> {
        self.attrs
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| v)
    }

    /// True for functions a function pass must skip: `SkipOptimization` or `Extern` non-zero,
    /// or any `Compiler` attribute.
    pub fn skips_optimization(&self) -> bool {
        let nonzero = |k| self.attr(k).is_some_and(|v| v.as_int().unwrap_or(1) != 0);
        nonzero("SkipOptimization") || nonzero("Extern") || self.attr("Compiler").is_some()
    }

    /// The function's type, when every parameter and the result are annotated.
    pub fn func_type(&self) -> Option<Type> {
        let params = self
            .params
            .iter()
            .map(|p| p.ann().cloned())
            .collect::<Option<Vec<_>>>()?;
        Some(Type::poly_func(
            self.type_params.clone(),
            params,
            self.ret_type.clone()?,
        ))
    }

    /// A function with no type parameters and no attributes.
    pub fn new(params: Vec<Var>, body: Expr, ret_type: Option<Type>) -> Function {
        Function {
            type_params: Vec::new(),
            params,
            body,
            ret_type,
            attrs: Vec::new(),
        }
    }
}

/// The kinds of expression.
#[derive(Debug)]
pub enum ExprKind {
    Var(Var),
    GlobalVar(GlobalVar),
    Constant(Arc<Constant>),
    Tuple(Vec<Expr>),
    TupleGetItem(Expr, usize),
    Call(Call),
    Let(Let),
    If(If),
    Function(Box<Function>),
    Op(Op),
    /// An ADT constructor as a value (`Cons`); called to build a value (`Cons(%x, Nil)`).
    Constructor(Arc<Constructor>),
    /// `match` / `match?` over an ADT value or tuple.
    Match(Box<Match>),
    /// `ref(e)`: a new reference cell holding `e`.
    RefNew(Expr),
    /// `ref_read(r)`.
    RefRead(Expr),
    /// `ref_write(r, v)`: stores `v` in `r`, evaluates to `()`.
    RefWrite(Expr, Expr),
}

/// The body of an [`Expr`].
#[derive(Debug)]
pub struct ExprNode {
    pub kind: ExprKind,
    /// The checked type (filled in by type inference), if known.
    pub ty: Option<Type>,
    /// Where the expression came from, when it was parsed from text: its first byte.
    span_lo: u32,
    /// The low [`SPAN_LEN_BITS`] bits: the span's length (saturated: a node whose text is
    /// longer than 16 MiB is recorded as 16 MiB long); the top byte: what the subtree
    /// [`Contains`]. Packed so the node stays one cache line.
    span_len_contains: u32,
}

const SPAN_LEN_BITS: u32 = 24;
const SPAN_LEN_MAX: u32 = (1 << SPAN_LEN_BITS) - 1;

/// What a node's subtree (the node included) contains, summarized on every node as it is
/// built, like rustc's type flags: a pass that acts only on some kinds of node answers
/// "nothing to do below here" without walking the subtree. Computing it reads the children's
/// summaries, which a builder has just built or visited.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Contains(u8);

impl Contains {
    pub const NOTHING: Contains = Contains(0);
    /// A function literal.
    pub const FUNCTION: Contains = Contains(1);
    /// A `let`.
    pub const LET: Contains = Contains(1 << 1);
    /// An `if`.
    pub const IF: Contains = Contains(1 << 2);
    /// A reference to (in practice, a call of) an op SimplifyInference rewrites
    /// (`nn.batch_norm`, `nn.dropout`, `nn.layer_norm`, `nn.instance_norm`, `nn.group_norm`,
    /// `nn.l2_normalize`).
    pub const INFERENCE_OP: Contains = Contains(1 << 3);
    /// A reference to `nn.bias_add` (what CanonicalizeOps rewrites).
    pub const BIAS_ADD: Contains = Contains(1 << 4);
    /// A reference to an op whose layout rule takes layouts from its attributes rather than
    /// from its inputs (convolutions, pools, resizes, `concatenate`, `nn.bias_add`): without one, the
    /// layout passes find no layout to convert.
    pub const LAYOUT_OP: Contains = Contains(1 << 5);
    /// A `match` (which, like `if`, opens scopes and binds variables).
    pub const MATCH: Contains = Contains(1 << 6);

    /// True when any of `what` is contained.
    pub fn any(self, what: Contains) -> bool {
        self.0 & what.0 != 0
    }

    /// What a reference to `op` (a call of it) makes a subtree contain.
    pub fn of_op(op: Op) -> Contains {
        match op.name() {
            "nn.batch_norm" | "nn.dropout" | "nn.layer_norm" | "nn.instance_norm"
            | "nn.group_norm" | "nn.l2_normalize" => Contains::INFERENCE_OP,
            "nn.bias_add" => Contains(Contains::BIAS_ADD.0 | Contains::LAYOUT_OP.0),
            _ if op.layout_role().is_some() => Contains::LAYOUT_OP,
            _ => Contains::NOTHING,
        }
    }

    /// The summary of a node of `kind`: its own kind and its children's summaries. An op
    /// node carries its op's bits (its shared node, [`Expr::op`], computes them once), so a
    /// call's are its children's.
    #[inline]
    fn of_kind(kind: &ExprKind) -> Contains {
        let c = |e: &Expr| e.contains().0;
        Contains(match kind {
            ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Constant(_)
            | ExprKind::Constructor(_) => 0,
            ExprKind::Op(op) => Contains::of_op(*op).0,
            ExprKind::Match(m) => m
                .clauses
                .iter()
                .fold(Contains::MATCH.0 | c(&m.data), |b, cl| b | c(&cl.rhs)),
            ExprKind::RefNew(x) | ExprKind::RefRead(x) => c(x),
            ExprKind::RefWrite(r, v) => c(r) | c(v),
            ExprKind::Call(call) => call.args.iter().fold(c(&call.callee), |b, a| b | c(a)),
            ExprKind::Tuple(fs) => fs.iter().fold(0, |b, f| b | c(f)),
            ExprKind::TupleGetItem(t, _) => c(t),
            ExprKind::Let(l) => Contains::LET.0 | c(&l.value) | c(&l.body),
            ExprKind::If(i) => Contains::IF.0 | c(&i.cond) | c(&i.then_branch) | c(&i.else_branch),
            ExprKind::Function(f) => Contains::FUNCTION.0 | c(&f.body),
        })
    }
}

/// The position of `op` in this copy's op table, `None` for an op of another copy.
fn op_position(op: Op) -> Option<usize> {
    let table = super::op_table::OPS;
    let offset = (op.0 as *const OpDef as usize).wrapping_sub(table.as_ptr() as usize);
    let at = offset / std::mem::size_of::<OpDef>();
    table.get(at).filter(|d| std::ptr::eq(*d, op.0)).map(|_| at)
}

// 56 bytes: 64 with the reference count, mimalloc's 64-byte size class, so a walk reads one
// cache line per node (an 80-byte block would straddle two).
const _: () = assert!(std::mem::size_of::<ExprNode>() == 56);

/// How far past a node [`Expr::prefetch_next`] fetches: about a dozen nodes of a traversal's
/// output, enough to cover a DRAM access at the walk's pace (768 to 3072 measured alike).
const PREFETCH_AHEAD: usize = 1024;

/// An immutable, shared expression node.
#[derive(Clone)]
pub struct Expr(NodeArc<ExprNode>);

impl Expr {
    pub fn new(kind: ExprKind) -> Expr {
        Expr::with_info(kind, None, Span::DUMMY)
    }

    #[inline]
    pub fn with_info(kind: ExprKind, ty: Option<Type>, span: Span) -> Expr {
        let contains = Contains::of_kind(&kind);
        Expr::packed(kind, ty, span, contains)
    }

    #[inline]
    fn packed(kind: ExprKind, ty: Option<Type>, span: Span, contains: Contains) -> Expr {
        let len = span.hi.saturating_sub(span.lo).min(SPAN_LEN_MAX);
        Expr(NodeArc::new(ExprNode {
            kind,
            ty,
            span_lo: span.lo,
            span_len_contains: len | (u32::from(contains.0) << SPAN_LEN_BITS),
        }))
    }

    /// What this node's subtree contains (see [`Contains`]).
    #[inline]
    pub fn contains(&self) -> Contains {
        Contains((self.0.span_len_contains >> SPAN_LEN_BITS) as u8)
    }

    pub fn var(v: &Var) -> Expr {
        Expr::new(ExprKind::Var(v.clone()))
    }

    pub fn global(name: &str) -> Expr {
        Expr::new(ExprKind::GlobalVar(GlobalVar::new(name)))
    }

    /// The reference to `op`: one node per op, shared by every call of it (as TVM's `Op`
    /// objects are global singletons), so a million calls cost no op nodes.
    pub fn op(op: Op) -> Expr {
        // One node per op and sharing epoch of this thread (see `ir::sharing`: a node shared
        // by every call of the module would have its count written by every thread of a
        // parallel pass). Indexed by the op's position in this copy's table, found from its
        // address (no hash lookup: every rebuilt call of a pass that makes calls by op name
        // comes here); `op_position` checks the address, so an op of another copy of the
        // table (evcxr) is not ours.
        thread_local! {
            static NODES: std::cell::RefCell<Vec<(u64, Option<Expr>)>> =
                const { std::cell::RefCell::new(Vec::new()) };
        }
        let Some(at) = op_position(op) else {
            return Expr::new(ExprKind::Op(op));
        };
        let epoch = super::sharing::current();
        NODES
            .try_with(|nodes| {
                let mut nodes = nodes.borrow_mut();
                if nodes.len() <= at {
                    nodes.resize_with(at + 1, || (0, None));
                }
                match &mut nodes[at] {
                    (e, Some(node)) if *e == epoch => node.clone(),
                    slot => {
                        let node = Expr::new(ExprKind::Op(op));
                        *slot = (epoch, Some(node.clone()));
                        node
                    }
                }
            })
            .unwrap_or_else(|_| Expr::new(ExprKind::Op(op)))
    }

    /// A constant node (untyped until type inference runs, as in TVM).
    pub fn constant(c: Constant) -> Expr {
        Expr::new(ExprKind::Constant(Arc::new(c)))
    }

    pub fn tuple(fields: Vec<Expr>) -> Expr {
        Expr::new(ExprKind::Tuple(fields))
    }

    pub fn get_item(tuple: Expr, index: usize) -> Expr {
        Expr::new(ExprKind::TupleGetItem(tuple, index))
    }

    pub fn call(callee: Expr, args: impl Into<Box<[Expr]>>, attrs: Attrs) -> Expr {
        Expr::new(ExprKind::Call(Call {
            callee,
            args: args.into(),
            attrs,
        }))
    }

    /// A call of a registered op with its default attributes (panics on an unknown op name:
    /// for programmatic construction with literal names).
    pub fn call_op(name: &str, args: Vec<Expr>) -> Expr {
        let op = Op::get(name).unwrap_or_else(|| panic!("unknown op {name}"));
        Expr::call(Expr::op(op), args, op.default_attrs())
    }

    pub fn let_(var: Var, value: Expr, body: Expr) -> Expr {
        Expr::new(ExprKind::Let(Let { var, value, body }))
    }

    pub fn if_(cond: Expr, then_branch: Expr, else_branch: Expr) -> Expr {
        Expr::new(ExprKind::If(If {
            cond,
            then_branch,
            else_branch,
        }))
    }

    pub fn function(f: Function) -> Expr {
        Expr::new(ExprKind::Function(Box::new(f)))
    }

    pub fn kind(&self) -> &ExprKind {
        &self.0.kind
    }

    pub fn ty(&self) -> Option<&Type> {
        self.0.ty.as_ref()
    }

    pub fn span(&self) -> Span {
        let lo = self.0.span_lo;
        Span {
            lo,
            hi: lo.saturating_add(self.0.span_len_contains & SPAN_LEN_MAX),
        }
    }

    /// A copy of this node (same children) with another checked type.
    pub fn with_ty(&self, ty: Option<Type>) -> Expr {
        Expr::packed(
            self.0.kind.shallow_clone(),
            ty,
            self.span(),
            self.contains(),
        )
    }

    /// A new node of the given kind that keeps this node's span (and no type).
    pub fn rebuild(&self, kind: ExprKind) -> Expr {
        Expr::with_info(kind, None, self.span())
    }

    /// True when both handles point at the same node.
    pub fn ptr_eq(&self, other: &Expr) -> bool {
        NodeArc::ptr_eq(&self.0, &other.0)
    }

    /// The node's identity, for memo tables (valid while the node is alive).
    pub fn id(&self) -> usize {
        self.0.as_ptr() as usize
    }

    pub fn as_function(&self) -> Option<&Function> {
        match &self.0.kind {
            ExprKind::Function(f) => Some(f),
            _ => None,
        }
    }

    pub fn as_var(&self) -> Option<&Var> {
        match &self.0.kind {
            ExprKind::Var(v) => Some(v),
            _ => None,
        }
    }

    pub fn as_call(&self) -> Option<&Call> {
        match &self.0.kind {
            ExprKind::Call(c) => Some(c),
            _ => None,
        }
    }

    pub fn as_constant(&self) -> Option<&Constant> {
        match &self.0.kind {
            ExprKind::Constant(c) => Some(c),
            _ => None,
        }
    }

    /// The value of a scalar (0-d) constant with data, as `f64` (`1f` gives `Some(1.0)`).
    pub fn scalar_value(&self) -> Option<f64> {
        let data = self.as_constant()?.data.as_ref()?;
        data.shape.is_empty().then(|| data.get_f64(0))
    }

    /// The op, when this is a call of an op.
    pub fn call_op_of(&self) -> Option<(Op, &Call)> {
        let call = self.as_call()?;
        match call.callee.kind() {
            ExprKind::Op(op) => Some((*op, call)),
            _ => None,
        }
    }

    /// False when this handle is the only reference to the node. A traversal that holds the
    /// root borrowed can then skip its memo for the node: the one reference is its parent's
    /// edge, so the node is reached once. (The count can fall from 2 to 1 while we walk when
    /// another thread drops its handle, but never below the number of parent edges inside the
    /// borrowed graph, so a node with two parents there always reads as shared.)
    pub fn is_shared(&self) -> bool {
        NodeArc::count(&self.0) > 1
    }

    /// Hints the CPU to start fetching the nodes allocated after this one (two cache lines
    /// [`PREFETCH_AHEAD`] bytes on), for traversals of large programs.
    ///
    /// Speculative: a traversal allocates the nodes it builds in post-order, so the next
    /// traversal of its output meets them close together in address (on a chain-shaped typed
    /// model, each node entered sits one block below the previous one; the post-order
    /// exits then run upwards through the same blocks). Reaching a node is a dependent load the
    /// hardware cannot predict from the pointer chain; a hint 1 KiB up measured faster than
    /// none, and adding one 1 KiB down gained nothing beyond the noise. A
    /// wrong guess costs one cache line of bandwidth.
    #[inline(always)]
    pub fn prefetch_next(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = (self.0.as_ptr() as *const i8).wrapping_add(PREFETCH_AHEAD);
            // SAFETY: a prefetch only hints the cache; it never faults and never reads into
            // the program, so any address (mapped or not, past the allocation or not) is fine.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(p);
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(64));
            }
        }
    }

    /// Hints the CPU to start fetching this node, for a traversal that knows which nodes it
    /// will reach next (one that runs over an array of nodes rather than along pointers).
    #[inline(always)]
    pub fn prefetch(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch only hints the cache; it never faults and never reads into
            // the program.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(self.0.as_ptr() as *const i8) }
        }
    }

    /// Number of references to this node (for "used once" decisions).
    pub fn strong_count(&self) -> usize {
        NodeArc::count(&self.0)
    }

    /// The direct children in evaluation order (callee first, then arguments).
    pub fn children(&self) -> Vec<&Expr> {
        let mut out = Vec::new();
        self.0.kind.for_each_child(|c| out.push(c));
        out
    }
}

impl ExprKind {
    /// Calls `f` on each direct child expression, callee before arguments.
    #[inline]
    pub fn for_each_child<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        match self {
            ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Constant(_)
            | ExprKind::Op(_)
            | ExprKind::Constructor(_) => {}
            ExprKind::Match(m) => {
                f(&m.data);
                m.clauses.iter().for_each(|c| f(&c.rhs));
            }
            ExprKind::RefNew(x) | ExprKind::RefRead(x) => f(x),
            ExprKind::RefWrite(r, v) => {
                f(r);
                f(v);
            }
            ExprKind::Tuple(fs) => fs.iter().for_each(f),
            ExprKind::TupleGetItem(t, _) => f(t),
            ExprKind::Call(c) => {
                f(&c.callee);
                c.args.iter().for_each(f);
            }
            ExprKind::Let(l) => {
                f(&l.value);
                f(&l.body);
            }
            ExprKind::If(i) => {
                f(&i.cond);
                f(&i.then_branch);
                f(&i.else_branch);
            }
            ExprKind::Function(fun) => f(&fun.body),
        }
    }

    /// [`for_each_child`](Self::for_each_child) in reverse order: what a traversal pushes on
    /// its stack so that the children pop in evaluation order. (Pushing in order and reversing
    /// the pushed slice reads back entries just written, which stalls on store forwarding:
    /// 18% of DCE's usage walk.)
    #[inline]
    pub fn for_each_child_rev<'a>(&'a self, mut f: impl FnMut(&'a Expr)) {
        match self {
            ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Constant(_)
            | ExprKind::Op(_)
            | ExprKind::Constructor(_) => {}
            ExprKind::Match(m) => {
                m.clauses.iter().rev().for_each(|c| f(&c.rhs));
                f(&m.data);
            }
            ExprKind::RefNew(x) | ExprKind::RefRead(x) => f(x),
            ExprKind::RefWrite(r, v) => {
                f(v);
                f(r);
            }
            ExprKind::Tuple(fs) => fs.iter().rev().for_each(f),
            ExprKind::TupleGetItem(t, _) => f(t),
            ExprKind::Call(c) => {
                c.args.iter().rev().for_each(&mut f);
                f(&c.callee);
            }
            ExprKind::Let(l) => {
                f(&l.body);
                f(&l.value);
            }
            ExprKind::If(i) => {
                f(&i.else_branch);
                f(&i.then_branch);
                f(&i.cond);
            }
            ExprKind::Function(fun) => f(&fun.body),
        }
    }

    /// A copy that shares every child.
    pub fn shallow_clone(&self) -> ExprKind {
        match self {
            ExprKind::Var(v) => ExprKind::Var(v.clone()),
            ExprKind::GlobalVar(g) => ExprKind::GlobalVar(g.clone()),
            ExprKind::Constant(c) => ExprKind::Constant(c.clone()),
            ExprKind::Tuple(fs) => ExprKind::Tuple(fs.clone()),
            ExprKind::TupleGetItem(t, i) => ExprKind::TupleGetItem(t.clone(), *i),
            ExprKind::Call(c) => ExprKind::Call(c.clone()),
            ExprKind::Let(l) => ExprKind::Let(l.clone()),
            ExprKind::If(i) => ExprKind::If(i.clone()),
            ExprKind::Function(f) => ExprKind::Function(f.clone()),
            ExprKind::Op(o) => ExprKind::Op(*o),
            ExprKind::Constructor(c) => ExprKind::Constructor(c.clone()),
            ExprKind::Match(m) => ExprKind::Match(m.clone()),
            ExprKind::RefNew(x) => ExprKind::RefNew(x.clone()),
            ExprKind::RefRead(x) => ExprKind::RefRead(x.clone()),
            ExprKind::RefWrite(r, v) => ExprKind::RefWrite(r.clone(), v.clone()),
        }
    }

    /// A node of the same kind with the same non-expression parts and `kids` as its children
    /// (in [`for_each_child`](Self::for_each_child) order; exactly as many).
    pub fn with_children(&self, kids: &[Expr]) -> ExprKind {
        let mut it = kids.iter().cloned();
        let mut next = || it.next().expect("one new child per child");
        match self {
            ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Constant(_)
            | ExprKind::Op(_)
            | ExprKind::Constructor(_) => self.shallow_clone(),
            ExprKind::Tuple(fs) => ExprKind::Tuple(fs.iter().map(|_| next()).collect()),
            ExprKind::TupleGetItem(_, i) => ExprKind::TupleGetItem(next(), *i),
            ExprKind::Call(c) => {
                let callee = next();
                ExprKind::Call(Call {
                    callee,
                    args: c.args.iter().map(|_| next()).collect(),
                    attrs: c.attrs.clone(),
                })
            }
            ExprKind::Let(l) => {
                let value = next();
                ExprKind::Let(Let {
                    var: l.var.clone(),
                    value,
                    body: next(),
                })
            }
            ExprKind::If(_) => {
                let cond = next();
                let then_branch = next();
                ExprKind::If(If {
                    cond,
                    then_branch,
                    else_branch: next(),
                })
            }
            ExprKind::Function(f) => {
                let mut g = (**f).clone();
                g.body = next();
                ExprKind::Function(Box::new(g))
            }
            ExprKind::Match(m) => {
                let data = next();
                let clauses = m
                    .clauses
                    .iter()
                    .map(|c| super::adt::Clause {
                        pattern: c.pattern.clone(),
                        rhs: next(),
                    })
                    .collect();
                ExprKind::Match(Box::new(Match {
                    data,
                    clauses,
                    complete: m.complete,
                }))
            }
            ExprKind::RefNew(_) => ExprKind::RefNew(next()),
            ExprKind::RefRead(_) => ExprKind::RefRead(next()),
            ExprKind::RefWrite(..) => {
                let r = next();
                ExprKind::RefWrite(r, next())
            }
        }
    }

    /// The name of the node kind, for messages.
    pub fn name(&self) -> &'static str {
        match self {
            ExprKind::Var(_) => "variable",
            ExprKind::GlobalVar(_) => "global",
            ExprKind::Constant(_) => "constant",
            ExprKind::Tuple(_) => "tuple",
            ExprKind::TupleGetItem(..) => "tuple projection",
            ExprKind::Call(_) => "call",
            ExprKind::Let(_) => "let",
            ExprKind::If(_) => "if",
            ExprKind::Function(_) => "function",
            ExprKind::Op(_) => "op",
            ExprKind::Constructor(_) => "constructor",
            ExprKind::Match(_) => "match",
            ExprKind::RefNew(_) => "ref",
            ExprKind::RefRead(_) => "ref_read",
            ExprKind::RefWrite(..) => "ref_write",
        }
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expr({} @{:x})", self.0.kind.name(), self.id())
    }
}

impl ExprKind {
    /// Moves the child expressions onto `out` and drops the rest. By value: a dying node's
    /// kind is swapped for an empty tuple and taken apart, where replacing each child with a
    /// clone of a shared placeholder cost two atomic operations a child.
    fn into_children(self, out: &mut Vec<Expr>) {
        match self {
            ExprKind::Var(_)
            | ExprKind::GlobalVar(_)
            | ExprKind::Constant(_)
            | ExprKind::Op(_)
            | ExprKind::Constructor(_) => {}
            ExprKind::Match(m) => {
                let m = *m;
                out.push(m.data);
                out.extend(m.clauses.into_iter().map(|c| c.rhs));
            }
            ExprKind::RefNew(x) | ExprKind::RefRead(x) => out.push(x),
            ExprKind::RefWrite(r, v) => out.extend([r, v]),
            ExprKind::Tuple(mut fs) => out.append(&mut fs),
            ExprKind::TupleGetItem(t, _) => out.push(t),
            ExprKind::Call(c) => {
                out.push(c.callee);
                out.extend(c.args.into_vec());
            }
            ExprKind::Let(l) => out.extend([l.value, l.body]),
            ExprKind::If(i) => out.extend([i.cond, i.then_branch, i.else_branch]),
            ExprKind::Function(f) => out.push(f.body),
        }
    }
}

/// What a node's kind is replaced with while it is taken apart: a tuple of nothing, which
/// owns no allocation and no handle.
fn emptied() -> ExprKind {
    ExprKind::Tuple(Vec::new())
}

impl Drop for ExprNode {
    fn drop(&mut self) {
        // Fast path: when no child is owned by this node alone, dropping the fields only
        // decrements counts and cannot recurse deeply (most drops of a shared graph).
        let mut owns_a_child = false;
        self.kind
            .for_each_child(|c| owns_a_child |= NodeArc::count(&c.0) == 1);
        if !owns_a_child {
            return;
        }
        // The node's own type goes first, while the children are alive: a type nested n deep
        // (a function literal's, which holds the types of the literals inside it) is held
        // level by level by the nodes below, and is then freed one level at a time, each
        // level as its node goes. (Each node freed below drops its type while its own
        // children are still on the work list.)
        drop(self.ty.take());
        // Iterative teardown: move children onto a work list and free the ones we own last.
        let mut stack = Vec::new();
        std::mem::replace(&mut self.kind, emptied()).into_children(&mut stack);
        while let Some(e) = stack.pop() {
            if let Ok(mut node) = NodeArc::try_unwrap(e.0) {
                std::mem::replace(&mut node.kind, emptied()).into_children(&mut stack);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dropping is iterative through every kind of child (a call's callee and arguments, a
    /// tuple's fields, a projection, a let's value and body, an if's three parts, a function's
    /// body): 200,000-deep chains of each are freed on a test thread's small stack, and a node
    /// still shared elsewhere survives the teardown around it.
    #[test]
    fn deep_chains_of_every_kind_drop_without_recursion() {
        const DEPTH: usize = 200_000;
        let kept = Expr::global("kept");
        let chain = |make: &dyn Fn(Expr) -> Expr| {
            let mut e = kept.clone();
            for _ in 0..DEPTH {
                e = make(e);
            }
            e
        };
        let relu = Expr::op(Op::get("nn.relu").unwrap());
        let x = Var::new("x", None);
        let chains = [
            chain(&|e| Expr::call(relu.clone(), vec![e], Attrs::NONE)),
            chain(&|e| Expr::call(e, Vec::new(), Attrs::NONE)),
            chain(&|e| Expr::tuple(vec![Expr::global("g"), e])),
            chain(&|e| Expr::get_item(e, 0)),
            chain(&|e| Expr::let_(x.clone(), e, Expr::var(&x))),
            chain(&|e| Expr::let_(x.clone(), Expr::var(&x), e)),
            chain(&|e| Expr::if_(e, Expr::global("t"), Expr::global("f"))),
            chain(&|e| Expr::if_(Expr::global("c"), Expr::global("t"), e)),
            chain(&|e| {
                Expr::function(Function {
                    type_params: Vec::new(),
                    params: vec![x.clone()],
                    body: e,
                    ret_type: None,
                    attrs: Vec::new(),
                })
            }),
        ];
        let dropped = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || drop(chains))
            .unwrap()
            .join();
        assert!(dropped.is_ok());
        assert_eq!(kept.strong_count(), 1, "only this handle is left");
        assert_eq!(x.strong_count(), 1);
    }

    /// Function literals nested 200,000 deep, typed as InferType types them (each literal's
    /// type `fn () -> T` holds its body's type `T`, and its return type is `T` too): the types
    /// nested as deep are freed level by level with their nodes, without recursion.
    #[test]
    fn deep_types_drop_with_their_nodes() {
        let nest = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| {
                let scalar = Type::scalar(crate::ir::DType::FLOAT32);
                let mut e = Expr::with_info(
                    ExprKind::Var(Var::new("x", None)),
                    Some(scalar),
                    Span::default(),
                );
                for _ in 0..200_000 {
                    let body_ty = e.ty().cloned().unwrap();
                    let f = Function {
                        type_params: Vec::new(),
                        params: Vec::new(),
                        body: e,
                        ret_type: Some(body_ty.clone()),
                        attrs: Vec::new(),
                    };
                    let ty = Type::func(Vec::new(), body_ty);
                    e = Expr::with_info(ExprKind::Function(Box::new(f)), Some(ty), Span::default());
                }
                drop(e);
            })
            .unwrap()
            .join();
        assert!(nest.is_ok());
    }

    /// A variable is one allocation when its name fits in the node (up to 15 bytes); longer
    /// names are shared, never copied, by a rebuilt variable; both read back as written.
    #[test]
    fn short_names_live_in_the_variable_and_long_ones_are_shared() {
        for name in [
            "",
            "x",
            "dead12",
            "x_123456789012",
            "p1023",
            "fifteen_bytes_x",
        ] {
            let v = Var::new(name, None);
            assert_eq!(v.name(), name);
            assert!(v.name.is_inline(), "{name:?} should be stored in the node");
            assert_eq!(v.with_ann(None).name(), name);
        }
        let long = "a_variable_name_longer_than_fifteen_bytes";
        let v = Var::new(long, None);
        assert!(!v.name.is_inline());
        let w = v.with_ann(None);
        assert_eq!(w.name(), long);
        assert_eq!(
            w.name.as_ptr(),
            v.name.as_ptr(),
            "a rebuilt variable shares the name"
        );
    }

    #[test]
    fn every_op_has_one_shared_node_and_a_foreign_op_a_fresh_one() {
        for op in super::super::op::all() {
            let (a, b) = (Expr::op(op), Expr::op(op));
            assert!(a.ptr_eq(&b), "{}", op.name);
            assert!(matches!(a.kind(), ExprKind::Op(o) if std::ptr::eq(o.0, op.0)));
        }
        // An entry of another copy of the table (as evcxr links one into every cell): an equal
        // op, but not an entry of this table, so it gets a node of its own.
        let add = Op::get("add").unwrap();
        let copy: &'static OpDef = Box::leak(Box::new(OpDef {
            name: add.name,
            num_inputs: add.num_inputs,
            pattern: add.pattern,
            stateful: add.stateful,
            non_computational: add.non_computational,
            type_rel: add.type_rel,
            attrs_type_key: add.attrs_type_key,
            schema: add.schema,
        }));
        let foreign = Expr::op(Op(copy));
        assert!(!foreign.ptr_eq(&Expr::op(add)) && !foreign.ptr_eq(&Expr::op(Op(copy))));
        assert!(matches!(foreign.kind(), ExprKind::Op(o) if std::ptr::eq(o.0, copy) && *o == add));
    }

    /// Every node summarizes its subtree: what it is, the bits its op carries, and its
    /// children's, through every kind of node; a copy with another type keeps it.
    #[test]
    fn contains_summarizes_each_subtree() {
        let text = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(1, 4), float32], %g: Tensor[(4), float32]) {
  %0 = nn.relu(%x);
  let %y = if (True) { %0 } else { nn.bias_add(%0, %g) };
  %1 = (%y, fn (%z) { nn.dropout(%z) });
  %1.0
}
"#;
        let m = crate::text::parse_module(text, "t").expect("parses");
        let main = m.get("main").expect("main").clone();
        let mut seen = Vec::new();
        crate::ir::visit::each_node(&main, |e| seen.push(e.clone()));
        for e in &seen {
            // The summary is the node's own bits or'ed with its children's.
            let own = match e.kind() {
                ExprKind::Function(_) => Contains::FUNCTION.0,
                ExprKind::Let(_) => Contains::LET.0,
                ExprKind::If(_) => Contains::IF.0,
                ExprKind::Op(op) if op.name() == "nn.bias_add" => {
                    Contains::BIAS_ADD.0 | Contains::LAYOUT_OP.0
                }
                ExprKind::Op(op) if op.name() == "nn.dropout" => Contains::INFERENCE_OP.0,
                _ => 0,
            };
            let mut expect = own;
            e.kind().for_each_child(|c| expect |= c.contains().0);
            assert_eq!(e.contains().0, expect, "{e:?}");
            assert_eq!(e.with_ty(None).contains(), e.contains());
        }
        let all = Contains(
            Contains::FUNCTION.0
                | Contains::LET.0
                | Contains::IF.0
                | Contains::BIAS_ADD.0
                | Contains::LAYOUT_OP.0
                | Contains::INFERENCE_OP.0,
        );
        assert_eq!(main.contains(), all);
        let relu = seen
            .iter()
            .find(|e| {
                matches!(e.as_call(), Some(c)
                    if matches!(c.callee.kind(), ExprKind::Op(op) if op.name() == "nn.relu"))
            })
            .expect("the relu call");
        assert_eq!(relu.contains(), Contains::NOTHING);
    }

    /// Spans keep their bytes; one longer than the packed length (16 MiB) keeps its start
    /// and is cut to that length, without touching the summary beside it.
    #[test]
    fn spans_are_kept_and_long_ones_cut() {
        let leaf = Expr::with_info(ExprKind::Tuple(vec![]), None, Span::new(7, 19));
        assert_eq!(leaf.span(), Span::new(7, 19));
        let f = Function {
            type_params: Vec::new(),
            params: vec![],
            body: leaf,
            ret_type: None,
            attrs: vec![],
        };
        let long = Expr::with_info(
            ExprKind::Function(Box::new(f)),
            None,
            Span::new(100, 100 + (1 << 30)),
        );
        assert_eq!(long.span(), Span::new(100, 100 + (1 << 24) - 1));
        assert_eq!(long.contains(), Contains::FUNCTION);
        assert_eq!(Expr::new(ExprKind::Tuple(vec![])).span(), Span::DUMMY);
    }

    #[test]
    fn children_in_reverse_are_the_children_reversed() {
        let x = Var::new("x", None);
        let (a, b, c) = (Expr::var(&x), Expr::global("g"), Expr::global("h"));
        let call = Expr::call(
            b.clone(),
            vec![a.clone(), c.clone(), a.clone()],
            Attrs::NONE,
        );
        let nodes = [
            call.clone(),
            Expr::tuple(vec![a.clone(), b.clone(), c.clone()]),
            Expr::get_item(call.clone(), 1),
            Expr::let_(x.clone(), b.clone(), c.clone()),
            Expr::new(ExprKind::If(If {
                cond: a.clone(),
                then_branch: b.clone(),
                else_branch: c.clone(),
            })),
            a.clone(),
        ];
        for n in &nodes {
            let mut fwd = Vec::new();
            n.kind().for_each_child(|k| fwd.push(k.id()));
            let mut rev = Vec::new();
            n.kind().for_each_child_rev(|k| rev.push(k.id()));
            rev.reverse();
            assert_eq!(fwd, rev, "{}", n.kind().name());
        }
    }
}
