//! InlineGlobals against the callee-first algorithm it replaced (`reference.rs`), on random
//! modules and on the shapes that made that algorithm quadratic, under the default limits and
//! under limits that send every global down each path (templates, expansion, both).

use super::{inline_globals, inline_with, reference, Limits};
use crate::ir::{module_equal, well_formed, Module};
use crate::passes::infer_type::infer_module;
use crate::testgen::xorshift;
use crate::text::{parse_module, print_module};
use std::fmt::Write;

/// Default limits; no templates past the first copy; templates only as large as the global.
const LIMITS: [Limits; 3] = [
    Limits {
        template_factor: super::TEMPLATE_FACTOR,
        template_slack: super::TEMPLATE_SLACK,
        max_built: super::MAX_BUILT_NODES,
    },
    Limits {
        template_factor: 0,
        template_slack: 0,
        max_built: super::MAX_BUILT_NODES,
    },
    Limits {
        template_factor: 1,
        template_slack: 0,
        max_built: super::MAX_BUILT_NODES,
    },
];

/// The new pass under every limit gives what the reference gives, printed (with types and
/// sharing) and structurally, and a well-formed module.
fn agrees(m: &Module, what: &str) {
    let expected = reference::inline_globals(m);
    let expected_text = print_module(&expected);
    for limits in LIMITS {
        let out = inline_with(m, limits).unwrap_or_else(|e| panic!("{what}: {e}"));
        let text = print_module(&out);
        assert_eq!(text, expected_text, "{what} under {limits:?}");
        assert!(
            module_equal(&out, &expected, false),
            "{what} under {limits:?}"
        );
        well_formed::check_module(&out).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    }
}

/// A random float32 expression over `vars` (graph bindings and variables in scope), calling
/// globals of `arity`.
struct Gen<'a, R: FnMut(u32) -> u32> {
    r: R,
    arity: &'a [usize],
    /// Globals that may be called (all of them in `@main`; mostly earlier ones elsewhere).
    callable: usize,
    next: usize,
}

impl<R: FnMut(u32) -> u32> Gen<'_, R> {
    fn fresh(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("%{prefix}{}", self.next)
    }

    fn args(&mut self, n: usize, vars: &mut Vec<String>, depth: u32) -> String {
        let args: Vec<String> = (0..n).map(|_| self.expr(vars, depth - 1)).collect();
        args.join(", ")
    }

    fn expr(&mut self, vars: &mut Vec<String>, depth: u32) -> String {
        let choice = if depth == 0 { self.r(4) } else { self.r(16) };
        match choice {
            0 | 1 if !vars.is_empty() => {
                let i = self.r(vars.len() as u32) as usize;
                vars[i].clone()
            }
            0..=3 => ["1f", "2f", "0.5f"][self.r(3) as usize].to_string(),
            4 | 5 => {
                let op = ["add", "multiply", "subtract"][self.r(3) as usize];
                let a = self.args(2, vars, depth);
                format!("{op}({a})")
            }
            6..=8 if self.callable > 0 => {
                let g = self.r(self.callable as u32) as usize;
                // Now and then a call with the wrong number of arguments.
                let n = if self.r(12) == 0 {
                    self.arity[g] + 1
                } else {
                    self.arity[g]
                };
                let a = self.args(n, vars, depth);
                format!("@g{g}({a})")
            }
            9 => {
                let v = self.fresh("v");
                let value = self.expr(vars, depth - 1);
                vars.push(v.clone());
                let body = self.expr(vars, depth - 1);
                vars.pop();
                format!("(let {v} = {value}; {body})")
            }
            10 => {
                let p = self.fresh("q");
                let arg = self.expr(vars, depth - 1);
                vars.push(p.clone());
                let body = self.expr(vars, depth - 1);
                vars.pop();
                format!("(fn ({p}: float32) {{ {body} }})({arg})")
            }
            11 => {
                let a = self.args(2, vars, depth);
                format!("({a}).{}", self.r(2))
            }
            12 if self.callable > 0 => {
                // A global used as a value.
                let g = self.r(self.callable as u32) as usize;
                let v = self.fresh("h");
                let a = self.args(self.arity[g], vars, depth);
                format!("(let {v} = @g{g}; {v}({a}))")
            }
            13 => {
                let c = self.args(2, vars, depth);
                let t = self.expr(vars, depth - 1);
                let f = self.expr(vars, depth - 1);
                format!("if (less({c})) {{ {t} }} else {{ {f} }}")
            }
            _ => {
                let a = self.expr(vars, depth - 1);
                format!("negative({a})")
            }
        }
    }

    fn r(&mut self, m: u32) -> u32 {
        (self.r)(m)
    }

    /// A function body: graph bindings (some used twice: shared nodes), then a result.
    fn body(&mut self, vars: &mut Vec<String>) -> String {
        let mut s = String::new();
        let scope = vars.len();
        for i in 0..self.r(3) {
            let value = self.expr(vars, 3);
            let _ = write!(s, "%{i} = {value}; ");
            vars.push(format!("%{i}"));
        }
        let result = self.expr(vars, 4);
        vars.truncate(scope);
        s + &result
    }
}

fn random_module(seed: u64) -> String {
    let mut r = xorshift(seed);
    let count = 1 + r(8) as usize;
    let arity: Vec<usize> = (0..count).map(|_| r(3) as usize).collect();
    let mut g = Gen {
        r,
        arity: &arity,
        callable: 0,
        next: 0,
    };
    let mut s = "#[version = \"0.0.5\"]\n".to_string();
    for (i, &n) in arity.iter().enumerate() {
        let mut head: Vec<String> = (0..n).map(|j| format!("%p{j}: float32")).collect();
        if g.r(10) < 8 {
            head.push("Inline=1".into());
        }
        if g.r(12) == 0 {
            head.push("Compiler=\"ccompiler\"".into());
        }
        // Mostly earlier globals (a call graph without cycles); sometimes any, itself included.
        g.callable = if g.r(8) == 0 { count } else { i };
        let mut vars: Vec<String> = (0..n).map(|j| format!("%p{j}")).collect();
        let body = g.body(&mut vars);
        let _ = writeln!(s, "def @g{i}({}) -> float32 {{ {body} }}", head.join(", "));
    }
    g.callable = count;
    let body = g.body(&mut vec!["%a".into(), "%b".into()]);
    let _ = writeln!(
        s,
        "def @main(%a: float32, %b: float32) -> float32 {{ {body} }}"
    );
    s
}

#[test]
fn random_modules_inline_as_the_reference_does() {
    let mut typed = 0;
    for seed in 1..=800u64 {
        let text = random_module(seed);
        let m = parse_module(&text, "random").unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        agrees(&m, &format!("seed {seed}:\n{text}"));
        if let Ok(t) = infer_module(&m) {
            typed += 1;
            agrees(&t, &format!("seed {seed}, typed:\n{text}"));
        }
    }
    assert!(typed > 100, "only {typed} of the random modules type-check");
}

/// `@f0(%x) = add(%x, 1)`, `@f<i>(%x) = wrap(@f<i-1>(%x))`, `@main` calls the last `calls`
/// times.
fn chain(n: usize, wrap: &str, calls: usize) -> Module {
    let mut s = "#[version = \"0.0.5\"]\ndef @f0(%x: int32, Inline=1) { add(%x, 1) }\n".to_string();
    for i in 1..n {
        let call = format!("@f{}(%x)", i - 1);
        let _ = writeln!(
            s,
            "def @f{i}(%x: int32, Inline=1) {{ {} }}",
            wrap.replace("CALL", &call)
        );
    }
    let uses: Vec<String> = (0..calls).map(|j| format!("@f{}(%x{j})", n - 1)).collect();
    let params: Vec<String> = (0..calls).map(|j| format!("%x{j}: int32")).collect();
    let _ = writeln!(
        s,
        "def @main({}) {{ ({},) }}",
        params.join(", "),
        uses.join(", ")
    );
    parse_module(&s, "chain").unwrap()
}

#[test]
fn chains_inline_as_the_reference_does() {
    for wrap in [
        "CALL",
        "add(CALL, %x)",
        "add(CALL, CALL)",
        "(let %y = CALL; multiply(%y, %y))",
        "(fn (%z: int32) { add(%z, CALL) })(%x)",
        "add(CALL, (fn () { 3 })())",
    ] {
        for (n, calls) in [(1, 1), (2, 1), (5, 3), (9, 2)] {
            let m = chain(n, wrap, calls);
            agrees(&m, &format!("{wrap}, {n} globals, {calls} calls"));
            agrees(
                &infer_module(&m).unwrap(),
                &format!("typed {wrap}, {n}, {calls}"),
            );
        }
    }
}

/// The number of nodes of every function of `m`.
fn nodes(m: &Module) -> usize {
    m.functions()
        .map(|(_, f)| crate::ir::visit::count_nodes(f))
        .sum()
}

/// Chains the callee-first algorithm made quadratic come out right and small, whichever way
/// each global is inlined.
#[test]
fn long_chains_inline_to_their_size() {
    let n = 3000;
    for limits in LIMITS {
        // Each global calls the next: @main is one add.
        let out = inline_with(&chain(n, "CALL", 1), limits).unwrap();
        assert_eq!(out.len(), 1);
        let main = print_module(&out);
        assert!(main.contains("add(%x0, 1)"), "{main}");
        // Called from many places: one add each.
        let out = inline_with(&chain(n, "CALL", 50), limits).unwrap();
        assert_eq!(out.len(), 1);
        assert!(nodes(&out) < 50 * 6, "{}", nodes(&out));
        // Each wraps the next: n adds.
        let out = inline_with(&chain(n, "add(CALL, %x)", 1), limits).unwrap();
        assert_eq!(out.len(), 1);
        assert!(nodes(&out) < 3 * n + 20, "{}", nodes(&out));
        // Each calls the next twice but with no argument: a DAG of one add per level.
        let mut s = "#[version = \"0.0.5\"]\ndef @f0(Inline=1) { 1 }\n".to_string();
        for i in 1..n {
            let _ = writeln!(s, "def @f{i}(Inline=1) {{ add(@f{0}(), @f{0}()) }}", i - 1);
        }
        let _ = writeln!(s, "def @main() {{ @f{}() }}", n - 1);
        let out = inline_with(&parse_module(&s, "twice").unwrap(), limits).unwrap();
        assert!(nodes(&out) < 3 * n, "{}", nodes(&out));
    }
}

/// A chain whose last global is not inlinable: nothing is, and every global stays.
#[test]
fn a_chain_on_a_global_that_is_not_inlined_stays() {
    let n = 3000;
    let mut s = "#[version = \"0.0.5\"]\ndef @f0(%x: int32) { add(%x, 1) }\n".to_string();
    for i in 1..n {
        let _ = writeln!(s, "def @f{i}(%x: int32, Inline=1) {{ @f{}(%x) }}", i - 1);
    }
    let _ = writeln!(s, "def @main(%x: int32) {{ @f{}(%x) }}", n - 1);
    let m = parse_module(&s, "kept").unwrap();
    let out = inline_globals(&m).unwrap();
    assert!(out.same_as(&m));
}

/// Calling the next twice with the argument doubles the program at each level: past the
/// limit the pass fails (and says why) instead of building it.
#[test]
fn an_exponential_output_is_an_error() {
    let m = chain(64, "add(CALL, CALL)", 1);
    let err = inline_globals(&m).unwrap_err();
    assert!(err.contains("more than 16777216 nodes"), "{err}");
    // Below the limit it is built: 2^12 adds.
    let out = inline_globals(&chain(13, "add(CALL, CALL)", 1)).unwrap();
    assert_eq!(
        nodes(&out),
        nodes(&reference::inline_globals(&chain(13, "add(CALL, CALL)", 1)))
    );
}
