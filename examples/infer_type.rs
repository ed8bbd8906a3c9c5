//! Types a Relay file and prints it with `/* ty=... */` annotations, or times inference:
//! `cargo run --release --example infer_type -- FILE [--time N]`, or
//! `--let-chain N` / `--nested N` to time generated deep programs; `--partial` prints what is
//! known even when some types stay unknown.

use passlab::ir::{Constant, DType, Expr, Function, Module, Type, Var};
use passlab::passes::infer_type::infer_module;
use std::time::Instant;

fn let_chain(n: usize) -> Module {
    let t = Type::tensor(vec![passlab::ir::Dim::Static(4)], DType::FLOAT32);
    let x0 = Var::new("x0", Some(t));
    let vars: Vec<Var> = (1..=n).map(|i| Var::new(&format!("x{i}"), None)).collect();
    let mut body = Expr::var(vars.last().unwrap_or(&x0));
    for i in (0..n).rev() {
        let prev = if i == 0 { &x0 } else { &vars[i - 1] };
        let one = Expr::constant(Constant::scalar_f32(1.0));
        let value = Expr::call_op("add", vec![Expr::var(prev), one]);
        body = Expr::let_(vars[i].clone(), value, body);
    }
    module(vec![x0], body)
}

fn nested(n: usize) -> Module {
    let t = Type::tensor(vec![passlab::ir::Dim::Static(4)], DType::FLOAT32);
    let x = Var::new("x", Some(t));
    let mut e = Expr::var(&x);
    for _ in 0..n {
        e = Expr::call_op("add", vec![e, Expr::constant(Constant::scalar_f32(1.0))]);
    }
    module(vec![x], e)
}

fn module(params: Vec<Var>, body: Expr) -> Module {
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let times: usize = args
        .iter()
        .position(|a| a == "--time")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let m = if let Some(i) = args.iter().position(|a| a == "--let-chain") {
        let t = Instant::now();
        let m = let_chain(args[i + 1].parse().unwrap());
        eprintln!("built in {:?}", t.elapsed());
        m
    } else if let Some(i) = args.iter().position(|a| a == "--nested") {
        nested(args[i + 1].parse().unwrap())
    } else {
        // Without a file, the ResNet-18 dump of the shared corpus.
        let default = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpus/relay/resnet18_typed_dump.relay"
        );
        let file = args
            .iter()
            .find(|a| !a.starts_with("--"))
            .map(String::as_str)
            .unwrap_or(default);
        let text =
            std::fs::read_to_string(file).unwrap_or_else(|e| panic!("cannot read {file}: {e}"));
        passlab::text::parse_module(&text, file).unwrap()
    };
    if times > 0 {
        let (mut infer, mut drop) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
        for _ in 0..times {
            let start = Instant::now();
            let typed = infer_module(&m).unwrap();
            infer += start.elapsed();
            let start = Instant::now();
            std::mem::drop(std::hint::black_box(typed));
            drop += start.elapsed();
        }
        let n = times as u32;
        eprintln!(
            "infer_module: {:?} per run, dropping the result {:?} ({times} runs)",
            infer / n,
            drop / n
        );
        return;
    }
    if args.iter().any(|a| a == "--partial") {
        let (t, notes) =
            passlab::passes::infer_type::infer_module_partial(&m).unwrap_or_else(|e| {
                eprintln!("{}", e.render_for(&m, false));
                std::process::exit(1)
            });
        print!("{}", passlab::text::print_module(&t));
        for n in notes {
            eprintln!("note: {n}");
        }
        return;
    }
    match infer_module(&m) {
        Ok(t) => print!("{}", passlab::text::print_module(&t)),
        Err(e) => {
            eprintln!("{}", e.render_for(&m, false));
            std::process::exit(1);
        }
    }
}
