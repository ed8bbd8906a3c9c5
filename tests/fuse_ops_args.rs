//! FuseOps under a target with a `max_function_args` (TVM v0.18's `test_fuse_max_num_args`, as
//! written: the targets opencl, metal and cuda, each with a static `(10, 20)` and a dynamic
//! `(?, 20)` shape). 300 inputs each go through `add(x, 1f)` and `exp`, and a chain of adds sums
//! the results. Under metal (31 arguments) and opencl (128) the first fused function takes as
//! many inputs as fit the limit (one argument is the output; a tensor with a `?` dimension also
//! passes its shape and strides), and every later input gets a function of its own, as does
//! every add of the chain after it; cuda has no limit, so everything is one function.
//!
//! Both modules are built as the Python test builds them, in text, and compared with `equal`
//! after the session runs FuseOps under `with Target(...)`.

use passlab::session::Session;
use std::fmt::Write;

const OPS: usize = 300;

/// Where the bindings inside a fused function literal are numbered from (apart from `@main`'s).
const INNER: usize = 1_000_000;

/// Graph-form text: each value bound once as `%N = ...;`.
struct Text {
    out: String,
    next: usize,
}

impl Text {
    fn bind(&mut self, value: String) -> String {
        let name = format!("%{}", self.next);
        self.next += 1;
        let _ = writeln!(self.out, "  {name} = {value};");
        name
    }

    /// `exp(add(x, 1f))`, TVM's `_base_func`.
    fn base(&mut self, x: &str) -> String {
        let y = self.bind(format!("add({x}, 1f)"));
        self.bind(format!("exp({y})"))
    }
}

fn ty(dynamic: bool) -> &'static str {
    if dynamic {
        "Tensor[(?, 20), float32]"
    } else {
        "Tensor[(10, 20), float32]"
    }
}

fn params(prefix: &str, range: std::ops::Range<usize>, t: &str) -> Vec<String> {
    range.map(|i| format!("%{prefix}{i}: {t}")).collect()
}

/// The function of `n` inputs summing `exp(add(x_i, 1f))`, as its body's lines and result.
fn sum_body(t: &mut Text, inputs: &[String]) -> String {
    let outs: Vec<String> = inputs.iter().map(|x| t.base(x)).collect();
    let mut w = outs[0].clone();
    for o in &outs[1..] {
        w = t.bind(format!("add({w}, {o})"));
    }
    w
}

fn before(dynamic: bool) -> String {
    let t_ = ty(dynamic);
    let mut t = Text {
        out: String::new(),
        next: 0,
    };
    let xs: Vec<String> = (0..OPS).map(|i| format!("%x{i}")).collect();
    let w = sum_body(&mut t, &xs);
    format!(
        "#[version = \"0.0.5\"]\ndef @main({}) {{\n{}  {w}\n}}\n",
        params("x", 0..OPS, t_).join(", "),
        t.out
    )
}

/// The Python test's `after(n)`: `limit` is the target's `max_function_args` less the output
/// (and its shape and strides when dynamic); 0 fuses everything into one function.
fn after(dynamic: bool, max_function_args: i64) -> String {
    let t_ = ty(dynamic);
    let any = usize::from(dynamic);
    let per_input = 1 + any + if dynamic { 2 } else { 0 };
    let limit = (max_function_args - 1 - any as i64).max(0) as usize;
    let mut t = Text {
        out: String::new(),
        next: 0,
    };
    // The first function takes as many inputs as fit (all of them without a limit).
    let mut first = if limit == 0 { OPS } else { 0 };
    let mut added = 0;
    while limit > 0 && first < OPS && added + per_input <= limit {
        added += per_input;
        first += 1;
    }
    let mut inner = Text {
        out: String::new(),
        next: INNER,
    };
    let ps: Vec<String> = (0..first).map(|i| format!("%p{i}")).collect();
    let w = sum_body(&mut inner, &ps);
    let f = t.bind(format!(
        "fn ({}, Primitive=1) {{\n{}  {w}\n}}",
        params("p", 0..first, t_).join(", "),
        inner.out
    ));
    let args: Vec<String> = (0..first).map(|i| format!("%x{i}")).collect();
    let mut out = t.bind(format!("{f}({})", args.join(", ")));
    for i in first..OPS {
        let g = t.bind(format!("fn (%p: {t_}, Primitive=1) {{ exp(add(%p, 1f)) }}"));
        let w = t.bind(format!("{g}(%xa{i})"));
        let s = t.bind(format!(
            "fn (%a: {t_}, %b: {t_}, Primitive=1) {{ add(%a, %b) }}"
        ));
        out = t.bind(format!("{s}({out}, {w})"));
    }
    let mut all = params("x", 0..first, t_);
    all.extend(params("xa", first..OPS, t_));
    format!(
        "#[version = \"0.0.5\"]\ndef @main({}) {{\n{}  {out}\n}}\n",
        all.join(", "),
        t.out
    )
}

fn check(target: &str, max_function_args: i64, dynamic: bool) {
    let out = compare(target, max_function_args, dynamic);
    assert_eq!(out.trim(), "true", "{target}, dynamic={dynamic}:\n{out}");
}

/// FuseOps of `before` under `target`, compared with `after` for that limit: `true` or not.
fn compare(target: &str, max_function_args: i64, dynamic: bool) -> String {
    let dir = std::env::temp_dir().join(format!(
        "passlab-fuse-args-{}-{target}-{dynamic}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("before.relay"), before(dynamic)).unwrap();
    std::fs::write(dir.join("after.relay"), after(dynamic, max_function_args)).unwrap();
    let mut s = Session::new();
    s.set_base_dir(&dir);
    let script = format!(
        "m = InferType()(load(\"before.relay\"))\n\
         expected = InferType()(load(\"after.relay\"))\n\
         with Target(\"{target}\") {{\n\
           with PassContext(config={{\"relay.FuseOps.max_depth\": {}}}) {{ fused = FuseOps()(m) }}\n\
         }}\n\
         equal(fused, expected)",
        OPS * 5
    );
    let out = s.execute(&script).plain();
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn fuse_max_num_args_metal() {
    check("metal", 31, false);
    check("metal", 31, true);
}

#[test]
fn fuse_max_num_args_opencl() {
    check("opencl", 128, false);
    check("opencl", 128, true);
}

#[test]
fn fuse_max_num_args_cuda() {
    check("cuda", 0, false);
    check("cuda", 0, true);
}

/// Without a target, or with a target option that raises the limit past the program's needs,
/// the result is TVM's unlimited fusion; a limit that is not a count is refused.
#[test]
fn the_limit_comes_from_the_target() {
    check("metal -max_function_args=0", 0, false);
    // The comparison can fail: metal's limit does not give the unlimited fusion, nor
    // opencl's metal's.
    assert_eq!(compare("metal", 0, false).trim(), "false");
    assert_eq!(compare("opencl", 31, true).trim(), "false");
    let mut s = Session::new();
    let out = s
        .execute("Target(\"metal -max_function_args=many\")")
        .plain();
    assert!(out.contains("takes a count"), "{out}");
}
