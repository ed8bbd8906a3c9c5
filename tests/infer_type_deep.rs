//! Stack safety: type inference of very deep programs on a thread with a 2 MiB stack
//! (building, typing, printing nothing, and dropping all happen on that thread).

use passlab::ir::{Constant, DType, Dim, Expr, Function, Module, Type, Var};
use passlab::passes::infer_type::infer_module;

fn on_small_stack(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

fn main_module(params: Vec<Var>, body: Expr) -> Module {
    let f = Function {
        type_params: Vec::new(),
        params,
        body,
        ret_type: None,
        attrs: Vec::new(),
    };
    let mut m = Module::new();
    m.add("main", Expr::function(f)).unwrap();
    m
}

fn vec4() -> Type {
    Type::tensor(vec![Dim::Static(4)], DType::FLOAT32)
}

/// `let %x1 = add(%x0, 1f); let %x2 = add(%x1, 1f); ... %xN` with `%x0: Tensor[(4), float32]`.
#[test]
fn million_deep_let_chain() {
    on_small_stack(|| {
        let n = 1_000_000;
        let x0 = Var::new("x0", Some(vec4()));
        let vars: Vec<Var> = (1..=n).map(|i| Var::new(&format!("x{i}"), None)).collect();
        let mut body = Expr::var(&vars[n - 1]);
        for i in (0..n).rev() {
            let prev = if i == 0 { &x0 } else { &vars[i - 1] };
            let value = Expr::call_op(
                "add",
                vec![Expr::var(prev), Expr::constant(Constant::scalar_f32(1.0))],
            );
            body = Expr::let_(vars[i].clone(), value, body);
        }
        drop(vars);
        let m = main_module(vec![x0], body);
        let typed = infer_module(&m).unwrap();
        let f = typed.get_function("main").unwrap();
        assert_eq!(f.ret_type.as_ref().unwrap(), &vec4());
        // The binders got annotations.
        let passlab::ir::ExprKind::Let(l) = f.body.kind() else {
            panic!("a let chain")
        };
        assert_eq!(l.var.ann(), Some(&vec4()));
    });
}

/// `add(add(add(%x, 1f), 1f), ...)` nested 100,000 deep.
#[test]
fn hundred_thousand_nested_calls() {
    on_small_stack(|| {
        let x = Var::new("x", Some(vec4()));
        let mut e = Expr::var(&x);
        for _ in 0..100_000 {
            e = Expr::call_op("add", vec![e, Expr::constant(Constant::scalar_f32(1.0))]);
        }
        let m = main_module(vec![x], e);
        let typed = infer_module(&m).unwrap();
        let f = typed.get_function("main").unwrap();
        assert_eq!(f.body.ty(), Some(&vec4()));
    });
}

/// A deep chain with an error at the bottom still reports it (and does not overflow).
#[test]
fn deep_error_is_reported() {
    on_small_stack(|| {
        let x = Var::new("x", Some(vec4()));
        let bad = Expr::constant(Constant::from_data(passlab::ir::TensorData::from_f64(
            DType::FLOAT32,
            vec![3],
            &[0.0; 3],
        )));
        let mut e = Expr::call_op("add", vec![Expr::var(&x), bad]);
        for _ in 0..100_000 {
            e = Expr::call_op("nn.relu", vec![e]);
        }
        let m = main_module(vec![x], e);
        let err = infer_module(&m).unwrap_err();
        assert!(err.message.contains("cannot broadcast"), "{err}");
    });
}

/// `((((%x,),),),)` nested 100,000 deep, projected back, and two such tuples unified as the
/// branches of an `if`: deep *types*, not only deep expressions.
#[test]
fn deep_nested_tuples() {
    on_small_stack(|| {
        let x = Var::new("x", Some(vec4()));
        let c = Var::new("c", Some(Type::scalar(DType::BOOL)));
        let nest = |mut e: Expr| {
            for _ in 0..100_000 {
                e = Expr::tuple(vec![e]);
            }
            e
        };
        let mut e = Expr::if_(Expr::var(&c), nest(Expr::var(&x)), nest(Expr::var(&x)));
        for _ in 0..100_000 {
            e = Expr::get_item(e, 0);
        }
        let m = main_module(vec![x, c], e);
        let typed = infer_module(&m).unwrap();
        let f = typed.get_function("main").unwrap();
        assert_eq!(f.body.ty(), Some(&vec4()));
    });
}

/// `fn () { fn () { ... %x } }` nested 100,000 deep, none called: each literal's type holds
/// every level below it. Typed, then typed again (reading each literal's return type whole
/// would be quadratic); the second run rebuilds nothing, and the type is right all the way down.
#[test]
fn deep_nested_function_literals() {
    on_small_stack(|| {
        let n = 100_000;
        let x = Var::new("x", Some(vec4()));
        let mut e = Expr::var(&x);
        for _ in 0..n {
            e = Expr::function(Function {
                type_params: Vec::new(),
                params: Vec::new(),
                body: e,
                ret_type: None,
                attrs: Vec::new(),
            });
        }
        let m = main_module(vec![x], e);
        let typed = infer_module(&m).unwrap();
        let start = std::time::Instant::now();
        let again = infer_module(&typed).unwrap();
        assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
        assert!(again.same_as(&typed));
        let f = typed.get_function("main").unwrap();
        let mut t = f.ret_type.clone().unwrap();
        assert_eq!(f.body.ty(), Some(&t));
        for _ in 0..n {
            t = t.as_func().expect("a function type").ret.clone();
        }
        assert_eq!(t, vec4());
    });
}

/// An unannotated parameter flowing through 100,000 identity ops, each result also waiting in
/// an `add` until the end determines the type: stays linear (no quadratic watcher merging).
#[test]
fn long_identity_chain_with_waiting_relations() {
    on_small_stack(|| {
        let x = Var::new("x", None);
        let mut cur = Expr::var(&x);
        let mut lets = Vec::new();
        for i in 0..100_000 {
            let a = Var::new(&format!("a{i}"), None);
            let b = Var::new(&format!("b{i}"), None);
            lets.push((a.clone(), Expr::call_op("nn.relu", vec![cur])));
            lets.push((
                b,
                Expr::call_op(
                    "add",
                    vec![Expr::var(&a), Expr::constant(Constant::scalar_f32(1.0))],
                ),
            ));
            cur = Expr::var(&a);
        }
        let mut body = cur;
        for (v, value) in lets.into_iter().rev() {
            body = Expr::let_(v, value, body);
        }
        let f = Function {
            type_params: Vec::new(),
            params: vec![x],
            body,
            ret_type: Some(vec4()),
            attrs: Vec::new(),
        };
        let mut m = Module::new();
        m.add("main", Expr::function(f)).unwrap();
        let start = std::time::Instant::now();
        let typed = infer_module(&m).unwrap();
        assert!(start.elapsed().as_secs() < 30, "took {:?}", start.elapsed());
        let f = typed.get_function("main").unwrap();
        assert_eq!(f.params[0].ann(), Some(&vec4()));
    });
}
