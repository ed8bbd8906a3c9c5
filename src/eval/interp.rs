//! The reference evaluator's machine: runs an expression on values, TVM's
//! `relay.create_executor("debug")` (the interpreter) for the Relay subset passlab has.
//!
//! An explicit task stack and value stack replace recursion, so a million-deep let chain or
//! nesting of calls runs in constant native stack. Each call of a function literal, closure
//! or global pushes a frame: its variables (parameters and lets, each bound once) in a table
//! whose parent is the table of the scope the closure was made in, so a closure sees the
//! variables of its definition without copying them (a recursive `let %f = fn ...` sees
//! itself). A node with more than one parent is evaluated once per frame and remembered
//! (graph-form dataflow shares nodes: evaluating each use again would be exponential). Ops
//! run through [`super::ops::apply`], the kernels FoldConstant folds with; `on_device`,
//! `device_copy` and the annotations are the identity, `shape_of` and `ndarray_size` read
//! the value's shape. A reference is a shared cell (`ref` makes one, `ref_write` replaces its
//! contents and gives `()`), as in TVM's interpreter.
//!
//! Algebraic data types run as in TVM's interpreter: a constructor used as a value is a
//! value of that constructor with no fields (so a bare `Nil` is the empty list), and calling
//! it on arguments makes a value with those fields (`Cons(1, Nil)`); `match` tries its
//! clauses in order, binding the pattern's variables in the current frame, and a value no
//! clause matches is an error (TVM's "did not find any match"). Values that nest (tuples,
//! constructor values) are dropped iteratively: a list of a million cells is freed in
//! constant native stack.
//!
//! Bounded: at most [`MAX_CALL_DEPTH`] nested calls and [`MAX_STEPS`] steps (an infinitely
//! recursive program is an error, not a hang), and an interrupt flag is polled.

use super::ops::{apply, has_kernel, Arg, OpOut};
use super::value::Value;
use super::{describe_args, EvalError};
use crate::ir::adt::{Constructor, Pattern};
use crate::ir::{DType, Expr, ExprKind, Module, NodeMap, TensorData, VarMap};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Nested calls (frames) at most: deeper recursion is an error.
pub const MAX_CALL_DEPTH: usize = 1 << 20;
/// Steps (nodes entered) at most in one evaluation.
pub const MAX_STEPS: u64 = 1 << 32;

/// A run-time value.
#[derive(Clone)]
pub(crate) enum RV {
    Tensor(Rc<Value>),
    Tuple(Rc<TupleVal>),
    Closure(Rc<Closure>),
    /// A reference cell (`ref(v)`), shared by every copy of the value.
    Ref(Rc<RefCell<RV>>),
    /// A value made by an ADT constructor (`Cons(1, Nil)`); a constructor used as a value,
    /// before it is called, is one with no fields.
    Adt(Rc<AdtVal>),
}

/// A constructor value: the constructor and its fields.
pub(crate) struct AdtVal {
    pub ctor: Arc<Constructor>,
    pub fields: Vec<RV>,
}

impl Drop for AdtVal {
    fn drop(&mut self) {
        drop_nested(std::mem::take(&mut self.fields));
    }
}

/// Drops values whose last handle may be here, taking the fields of the tuples and
/// constructor values they own onto a work list instead of recursing.
fn drop_nested(mut stack: Vec<RV>) {
    while let Some(v) = stack.pop() {
        match v {
            RV::Tuple(rc) => {
                if let Ok(mut t) = Rc::try_unwrap(rc) {
                    stack.append(&mut t.0);
                }
            }
            RV::Adt(rc) => {
                if let Ok(mut a) = Rc::try_unwrap(rc) {
                    stack.append(&mut a.fields);
                }
            }
            _ => {}
        }
    }
}

/// The fields of a tuple value; dropped iteratively (tuples may nest a million deep).
pub(crate) struct TupleVal(pub Vec<RV>);

impl Drop for TupleVal {
    fn drop(&mut self) {
        drop_nested(std::mem::take(&mut self.0));
    }
}

/// A function value: a literal with the scope it was made in, or a global (no scope).
pub(crate) struct Closure {
    func: Expr,
    env: Option<Rc<Env>>,
}

/// One frame's variables, and the scope its function was defined in.
pub(crate) struct Env {
    vars: RefCell<VarMap<RV>>,
    parent: Option<Rc<Env>>,
}

impl Drop for Env {
    fn drop(&mut self) {
        let mut next = self.parent.take();
        while let Some(p) = next {
            next = match Rc::try_unwrap(p) {
                Ok(mut env) => env.parent.take(),
                Err(_) => None,
            };
        }
    }
}

impl Env {
    fn lookup(self: &Rc<Env>, id: u64) -> Option<RV> {
        let mut at: Option<&Rc<Env>> = Some(self);
        while let Some(env) = at {
            if let Some(v) = env.vars.borrow().get(id) {
                return Some(v.clone());
            }
            at = env.parent.as_ref();
        }
        None
    }
}

enum Task {
    Eval(Expr),
    /// The call node; its arguments (and callee, unless an op) are on the value stack.
    Call(Expr),
    Tuple(usize),
    Proj(Expr, usize),
    /// The let node; its value is on the value stack.
    Bind(Expr),
    /// The if node; its condition is on the value stack.
    Branch(Expr),
    /// `ref(v)`: v is on the value stack.
    RefNew,
    /// `ref_read(r)`: r is on the value stack.
    RefRead(Expr),
    /// `ref_write(r, v)`: r then v are on the value stack.
    RefWrite(Expr),
    /// The match node; the value it inspects is on the value stack.
    Match(Expr),
    /// Remember the value on top of the stack for this shared node.
    Memo(usize),
    Return,
}

struct Frame {
    env: Rc<Env>,
    memo: NodeMap<RV>,
}

/// One evaluation.
pub(crate) struct Machine<'m> {
    module: &'m Module,
    tasks: Vec<Task>,
    values: Vec<RV>,
    frames: Vec<Frame>,
    constants: NodeMap<Rc<Value>>,
    steps: u64,
    interrupt: Option<&'m AtomicBool>,
}

fn err(msg: impl Into<String>, at: &Expr) -> EvalError {
    EvalError {
        message: msg.into(),
        span: Some(at.span()),
    }
}

impl<'m> Machine<'m> {
    pub(crate) fn new(module: &'m Module, interrupt: Option<&'m AtomicBool>) -> Machine<'m> {
        Machine {
            module,
            tasks: Vec::new(),
            values: Vec::new(),
            frames: Vec::new(),
            constants: NodeMap::default(),
            steps: 0,
            interrupt,
        }
    }

    /// Calls the function `f` (a function expression) on `args`.
    pub(crate) fn call(&mut self, f: &Expr, args: Vec<RV>) -> Result<RV, EvalError> {
        let closure = RV::Closure(Rc::new(Closure {
            func: f.clone(),
            env: None,
        }));
        self.enter(closure, args, f)?;
        self.run()?;
        self.values
            .pop()
            .ok_or_else(|| err("the evaluation produced no value", f))
    }

    /// Pushes a frame for calling `callee` on `args` and schedules its body.
    fn enter(&mut self, callee: RV, args: Vec<RV>, at: &Expr) -> Result<(), EvalError> {
        let c = match callee {
            RV::Closure(c) => c,
            RV::Adt(a) if a.fields.is_empty() => return self.construct(&a.ctor, args, at),
            RV::Adt(a) => {
                return Err(err(
                    format!(
                        "the callee is a value of constructor {} (with fields), not a function",
                        a.ctor.name
                    ),
                    at,
                ))
            }
            _ => {
                return Err(err(
                    "the callee is not a function (a tensor, tuple or reference)",
                    at,
                ))
            }
        };
        let Some(f) = c.func.as_function() else {
            return Err(err("the callee is not a function", at));
        };
        if f.params.len() != args.len() {
            return Err(err(
                format!(
                    "the function takes {} argument(s), the call gives {}",
                    f.params.len(),
                    args.len()
                ),
                at,
            ));
        }
        if self.frames.len() >= MAX_CALL_DEPTH {
            return Err(err(
                format!("calls nest deeper than {MAX_CALL_DEPTH} (unbounded recursion?)"),
                at,
            ));
        }
        let mut vars = VarMap::new();
        for (p, a) in f.params.iter().zip(args) {
            vars.insert(p.id(), a);
        }
        self.frames.push(Frame {
            env: Rc::new(Env {
                vars: RefCell::new(vars),
                parent: c.env.clone(),
            }),
            memo: NodeMap::default(),
        });
        self.tasks.push(Task::Return);
        self.tasks.push(Task::Eval(f.body.clone()));
        Ok(())
    }

    /// Calls the constructor `ctor` on `args`: a value with those fields.
    fn construct(
        &mut self,
        ctor: &Arc<Constructor>,
        args: Vec<RV>,
        at: &Expr,
    ) -> Result<(), EvalError> {
        let arity = self
            .module
            .type_defs
            .iter()
            .find(|d| d.name == ctor.adt)
            .and_then(|d| d.ctors.get(ctor.tag as usize))
            .filter(|(name, _)| *name == ctor.name)
            .map(|(_, fields)| fields.len());
        if let Some(n) = arity.filter(|&n| n != args.len()) {
            return Err(err(
                format!(
                    "the constructor {} takes {n} field(s), the call gives {}",
                    ctor.name,
                    args.len()
                ),
                at,
            ));
        }
        self.values.push(RV::Adt(Rc::new(AdtVal {
            ctor: ctor.clone(),
            fields: args,
        })));
        Ok(())
    }

    /// Chooses the first clause of match `e` whose pattern matches `v`: binds its variables
    /// in the current frame and schedules its right-hand side.
    fn select_clause(&mut self, e: &Expr, v: RV) -> Result<(), EvalError> {
        let ExprKind::Match(m) = e.kind() else {
            unreachable!("Match holds a match")
        };
        let mut binds = Vec::new();
        for clause in &m.clauses {
            binds.clear();
            if pattern_matches(&clause.pattern, &v, &mut binds) {
                let frame = self.frame();
                let mut vars = frame.env.vars.borrow_mut();
                for (id, val) in binds.drain(..) {
                    vars.insert(id, val);
                }
                drop(vars);
                self.tasks.push(Task::Eval(clause.rhs.clone()));
                return Ok(());
            }
        }
        Err(err(
            format!(
                "no clause of this `match{}` matches the value {}",
                if m.complete { "" } else { "?" },
                describe_value(&v)
            ),
            e,
        ))
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame is entered")
    }

    fn pop(&mut self, at: &Expr) -> Result<RV, EvalError> {
        self.values
            .pop()
            .ok_or_else(|| err("internal: the value stack is empty", at))
    }

    fn run(&mut self) -> Result<(), EvalError> {
        while let Some(task) = self.tasks.pop() {
            match task {
                Task::Eval(e) => self.eval(e)?,
                Task::Call(e) => self.apply_call(&e)?,
                Task::Tuple(n) => {
                    let fields = self.values.split_off(self.values.len() - n);
                    self.values.push(RV::Tuple(Rc::new(TupleVal(fields))));
                }
                Task::Proj(e, i) => {
                    let v = self.pop(&e)?;
                    let RV::Tuple(t) = v else {
                        return Err(err("projection `.i` of a value that is not a tuple", &e));
                    };
                    let field = t.0.get(i).cloned().ok_or_else(|| {
                        err(
                            format!("projection .{i} of a tuple of {} field(s)", t.0.len()),
                            &e,
                        )
                    })?;
                    self.values.push(field);
                }
                Task::Bind(e) => {
                    let v = self.pop(&e)?;
                    let ExprKind::Let(l) = e.kind() else {
                        unreachable!("Bind holds a let")
                    };
                    self.frame().env.vars.borrow_mut().insert(l.var.id(), v);
                    self.tasks.push(Task::Eval(l.body.clone()));
                }
                Task::Branch(e) => {
                    let c = self.pop(&e)?;
                    let ExprKind::If(i) = e.kind() else {
                        unreachable!("Branch holds an if")
                    };
                    let taken = truth(&c).ok_or_else(|| {
                        err(
                            "the condition of `if` is not a scalar boolean tensor",
                            &i.cond,
                        )
                    })?;
                    let next = if taken {
                        &i.then_branch
                    } else {
                        &i.else_branch
                    };
                    self.tasks.push(Task::Eval(next.clone()));
                }
                Task::RefNew => {
                    let v = self.values.pop().expect("the value of ref(v)");
                    self.values.push(RV::Ref(Rc::new(RefCell::new(v))));
                }
                Task::RefRead(e) => {
                    let RV::Ref(r) = self.pop(&e)? else {
                        return Err(err("ref_read of a value that is not a reference", &e));
                    };
                    let v = r.borrow().clone();
                    self.values.push(v);
                }
                Task::RefWrite(e) => {
                    let v = self.pop(&e)?;
                    let RV::Ref(r) = self.pop(&e)? else {
                        return Err(err("ref_write to a value that is not a reference", &e));
                    };
                    *r.borrow_mut() = v;
                    self.values.push(RV::Tuple(Rc::new(TupleVal(Vec::new()))));
                }
                Task::Match(e) => {
                    let v = self.pop(&e)?;
                    self.select_clause(&e, v)?;
                }
                Task::Memo(id) => {
                    let v = self.values.last().cloned().expect("a value to remember");
                    self.frame().memo.insert(id, v);
                }
                Task::Return => {
                    self.frames.pop();
                }
            }
        }
        Ok(())
    }

    fn eval(&mut self, e: Expr) -> Result<(), EvalError> {
        self.steps += 1;
        if self.steps.is_multiple_of(4096) {
            if self.interrupt.is_some_and(|f| f.load(Ordering::Relaxed)) {
                return Err(err("interrupted", &e));
            }
            if self.steps > MAX_STEPS {
                return Err(err(
                    format!("the evaluation took more than {MAX_STEPS} steps"),
                    &e,
                ));
            }
        }
        // The task's handle and the parent's edge: more than that is a shared node.
        let shared = e.strong_count() > 2;
        if shared {
            if let Some(v) = self.frame().memo.get(&e.id()) {
                let v = v.clone();
                self.values.push(v);
                return Ok(());
            }
        }
        let memo = |tasks: &mut Vec<Task>| {
            if shared {
                tasks.push(Task::Memo(e.id()));
            }
        };
        match e.kind() {
            ExprKind::Var(v) => {
                let val = self.frame().env.lookup(v.id()).ok_or_else(|| {
                    err(format!("the variable %{} has no value here", v.name), &e)
                })?;
                self.values.push(val);
            }
            ExprKind::GlobalVar(g) => {
                let f = self
                    .module
                    .get(g.name())
                    .ok_or_else(|| err(format!("no function @{} in the module", g.name()), &e))?;
                self.values.push(RV::Closure(Rc::new(Closure {
                    func: f.clone(),
                    env: None,
                })));
            }
            ExprKind::Constant(c) => {
                let v = match self.constants.get(&e.id()) {
                    Some(v) => v.clone(),
                    None => {
                        let data = c.data.as_ref().ok_or_else(|| {
                            err(
                                "a constant without data (an opaque meta[relay.Constant])",
                                &e,
                            )
                        })?;
                        let v = Rc::new(Value::from_data(data).ok_or_else(|| {
                            err(
                                format!("constants of dtype {} are not evaluated", data.dtype),
                                &e,
                            )
                        })?);
                        self.constants.insert(e.id(), v.clone());
                        v
                    }
                };
                self.values.push(RV::Tensor(v));
            }
            ExprKind::Tuple(fields) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::Tuple(fields.len()));
                self.tasks
                    .extend(fields.iter().rev().map(|f| Task::Eval(f.clone())));
            }
            ExprKind::TupleGetItem(t, i) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::Proj(e.clone(), *i));
                self.tasks.push(Task::Eval(t.clone()));
            }
            ExprKind::Call(c) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::Call(e.clone()));
                self.tasks
                    .extend(c.args.iter().rev().map(|a| Task::Eval(a.clone())));
                if !matches!(c.callee.kind(), ExprKind::Op(_)) {
                    self.tasks.push(Task::Eval(c.callee.clone()));
                }
            }
            ExprKind::Let(l) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::Bind(e.clone()));
                self.tasks.push(Task::Eval(l.value.clone()));
            }
            ExprKind::If(i) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::Branch(e.clone()));
                self.tasks.push(Task::Eval(i.cond.clone()));
            }
            ExprKind::Function(_) => {
                let env = self.frame().env.clone();
                self.values.push(RV::Closure(Rc::new(Closure {
                    func: e.clone(),
                    env: Some(env),
                })));
            }
            ExprKind::Op(op) => {
                return Err(err(
                    format!(
                        "the op {} is used as a value (only calls of ops are evaluated)",
                        op.name()
                    ),
                    &e,
                ))
            }
            ExprKind::Constructor(c) => {
                self.values.push(RV::Adt(Rc::new(AdtVal {
                    ctor: c.clone(),
                    fields: Vec::new(),
                })));
            }
            ExprKind::Match(m) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::Match(e.clone()));
                self.tasks.push(Task::Eval(m.data.clone()));
            }
            ExprKind::RefNew(x) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::RefNew);
                self.tasks.push(Task::Eval(x.clone()));
            }
            ExprKind::RefRead(r) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::RefRead(e.clone()));
                self.tasks.push(Task::Eval(r.clone()));
            }
            ExprKind::RefWrite(r, v) => {
                memo(&mut self.tasks);
                self.tasks.push(Task::RefWrite(e.clone()));
                self.tasks.push(Task::Eval(v.clone()));
                self.tasks.push(Task::Eval(r.clone()));
            }
        }
        Ok(())
    }

    fn apply_call(&mut self, e: &Expr) -> Result<(), EvalError> {
        let ExprKind::Call(c) = e.kind() else {
            unreachable!("Call holds a call")
        };
        let n = c.args.len();
        if self.values.len() < n {
            return Err(err("internal: missing arguments", e));
        }
        let args = self.values.split_off(self.values.len() - n);
        let ExprKind::Op(op) = c.callee.kind() else {
            let callee = self.pop(e)?;
            return self.enter(callee, args, e);
        };
        let name = op.name();
        let out = match name {
            "on_device"
            | "device_copy"
            | "annotation.stop_fusion"
            | "annotation.checkpoint"
            | "debug"
                if n == 1 =>
            {
                self.values.extend(args);
                return Ok(());
            }
            "shape_of" | "vm.shape_of" | "ndarray_size" if n == 1 => {
                let RV::Tensor(t) = &args[0] else {
                    return Err(err(format!("{name} of a value that is not a tensor"), e));
                };
                shape_value(name, &c.attrs, t)
                    .ok_or_else(|| err(format!("{name}: unsupported dtype"), e))?
            }
            _ => {
                let argv: Vec<Arg<'_>> = args
                    .iter()
                    .map(as_arg)
                    .collect::<Option<_>>()
                    .ok_or_else(|| {
                        err(
                            format!("{name}: a function, reference or constructor value passed to an op"),
                            e,
                        )
                    })?;
                match apply(name, &c.attrs, &argv) {
                    Some(OpOut::Tensor(v)) => RV::Tensor(Rc::new(v)),
                    Some(OpOut::Tuple(vs)) => RV::Tuple(Rc::new(TupleVal(
                        vs.into_iter().map(|v| RV::Tensor(Rc::new(v))).collect(),
                    ))),
                    None if !has_kernel(name) => {
                        return Err(err(
                            format!("the op {name} has no evaluator (see `help evaluate` for the ops that have one)"),
                            e,
                        ))
                    }
                    None => {
                        return Err(err(
                            format!(
                                "{name} could not be evaluated on {} with these attributes (an unsupported dtype, layout or attribute, or shapes the op rejects)",
                                describe_args(&argv)
                            ),
                            e,
                        ))
                    }
                }
            }
        };
        self.values.push(out);
        Ok(())
    }
}

fn as_arg(v: &RV) -> Option<Arg<'_>> {
    crate::ir::deep(|| match v {
        RV::Tensor(t) => Some(Arg::Tensor(t)),
        RV::Tuple(fs) => Some(Arg::Tuple(fs.0.iter().map(as_arg).collect::<Option<_>>()?)),
        RV::Closure(_) | RV::Ref(_) | RV::Adt(_) => None,
    })
}

/// Whether `v` matches pattern `p`; the values of its variables are pushed on `binds`.
/// Patterns nest only as deep as written (bounded by the parser), so this may recurse.
fn pattern_matches(p: &Pattern, v: &RV, binds: &mut Vec<(u64, RV)>) -> bool {
    match (p, v) {
        (Pattern::Wildcard, _) => true,
        (Pattern::Var(x), _) => {
            binds.push((x.id(), v.clone()));
            true
        }
        (Pattern::Ctor(c, ps), RV::Adt(a)) => {
            a.ctor.name == c.name
                && a.ctor.adt == c.adt
                && ps.len() == a.fields.len()
                && ps
                    .iter()
                    .zip(&a.fields)
                    .all(|(p, f)| pattern_matches(p, f, binds))
        }
        (Pattern::Tuple(ps), RV::Tuple(t)) => {
            ps.len() == t.0.len()
                && ps
                    .iter()
                    .zip(&t.0)
                    .all(|(p, f)| pattern_matches(p, f, binds))
        }
        _ => false,
    }
}

/// A short description of a value for messages: the constructor, or the kind.
fn describe_value(v: &RV) -> String {
    match v {
        RV::Tensor(t) => format!("a tensor {} {:?}", t.dtype, t.shape()),
        RV::Tuple(t) => format!("a tuple of {} field(s)", t.0.len()),
        RV::Closure(_) => "a function".to_string(),
        RV::Ref(_) => "a reference".to_string(),
        RV::Adt(a) if a.fields.is_empty() => format!("{} of type {}", a.ctor.name, a.ctor.adt),
        RV::Adt(a) => format!("{}(...) of type {}", a.ctor.name, a.ctor.adt),
    }
}

fn truth(v: &RV) -> Option<bool> {
    let RV::Tensor(t) = v else { return None };
    if t.ndim() != 0 {
        return None;
    }
    let d = t.to_data();
    (d.num_elements() == 1).then(|| d.get_f64(0) != 0.0)
}

fn shape_value(name: &str, attrs: &crate::ir::Attrs, t: &Value) -> Option<RV> {
    let shape: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
    let data = if name == "ndarray_size" {
        TensorData::from_i64(DType::INT32, vec![], &[shape.iter().product()])
    } else {
        TensorData::from_i64(DType::INT32, vec![shape.len() as i64], &shape)
    };
    let dtype = super::value::attr_dtype(attrs, "dtype").unwrap_or(DType::INT32);
    let v = super::elementwise::cast(&Value::from_data(&data)?, dtype)?;
    Some(RV::Tensor(Rc::new(v)))
}
