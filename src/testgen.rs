//! Generated programs for tests and benchmarks: a ResNet-like stack of conv blocks of any size,
//! an unrolled LSTM, deep let chains, and shapes that make a direct algorithm quadratic (a running
//! sum of states, nested ifs, a chain of many globals, nested closures, nested tuples, chains
//! of inlined globals, nested function literals). Deterministic, so benchmark inputs never
//! drift.

use std::fmt::Write;

/// A model of `layers` blocks (conv2d, bias_add, relu, add of a shared residual, batch_norm
/// projection), about six bindings per layer, in TVM's graph form.
pub fn conv_model(layers: usize) -> String {
    let mut s = String::with_capacity(layers * 400);
    s.push_str("#[version = \"0.0.5\"]\n");
    s.push_str("def @main(%data: Tensor[(1, 16, 32, 32), float32], %w: Tensor[(16, 16, 3, 3), float32], %b: Tensor[(16), float32], %g: Tensor[(16), float32], %beta: Tensor[(16), float32], %mean: Tensor[(16), float32], %var: Tensor[(16), float32]) {\n");
    let mut prev = "%data".to_string();
    let mut n = 0;
    for _ in 0..layers {
        let _ = writeln!(
            s,
            "  %{} = nn.conv2d({prev}, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);",
            n
        );
        let _ = writeln!(s, "  %{} = nn.bias_add(%{}, %b);", n + 1, n);
        let _ = writeln!(s, "  %{} = nn.relu(%{});", n + 2, n + 1);
        let _ = writeln!(s, "  %{} = add(%{}, {prev});", n + 3, n + 2);
        let _ = writeln!(
            s,
            "  %{} = nn.batch_norm(%{}, %g, %beta, %mean, %var);",
            n + 4,
            n + 3
        );
        let _ = writeln!(s, "  %{} = %{}.0;", n + 5, n + 4);
        prev = format!("%{}", n + 5);
        n += 6;
    }
    let _ = writeln!(s, "  {prev}\n}}");
    s
}

/// An unrolled LSTM of `steps` time steps (hidden size 16), in TVM's graph form: the input
/// split into one slice a step; per step two dense layers, their sum and bias, the gates split
/// four ways (sigmoid, sigmoid, tanh, sigmoid), the new cell and hidden state; and at the end
/// every step's hidden state concatenated. Nineteen ops a step (calls and projections).
///
/// The shape a recurrent model gives fusion: each step's hidden state is used by the next
/// step and by the final concatenation, so its immediate post-dominator is the last node and
/// the path between them runs through every later step.
pub fn rnn_model(steps: usize) -> String {
    const H: usize = 16;
    let steps = steps.max(1);
    let mut s = String::with_capacity(steps * 520 + 400);
    let _ = writeln!(
        s,
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[({steps}, {H}), float32], \
         %h0: Tensor[(1, {H}), float32], %c0: Tensor[(1, {H}), float32], \
         %wi: Tensor[({g}, {H}), float32], %wh: Tensor[({g}, {H}), float32], \
         %bias: Tensor[({g}), float32]) {{",
        g = 4 * H
    );
    let _ = writeln!(s, "  %0 = split(%x, indices_or_sections={steps});");
    let (mut h, mut c) = ("%h0".to_string(), "%c0".to_string());
    let mut hs = Vec::with_capacity(steps);
    let mut n = 1;
    for t in 0..steps {
        let [xt, a, b, sum, biased, gates, i, f, g, o, cell, hidden] =
            std::array::from_fn(|j| n + j);
        n += 12;
        let _ = writeln!(
            s,
            "  %{xt} = %0.{t};\n  %{a} = nn.dense(%{xt}, %wi, units={u});\n  \
             %{b} = nn.dense({h}, %wh, units={u});\n  %{sum} = add(%{a}, %{b});\n  \
             %{biased} = nn.bias_add(%{sum}, %bias);\n  \
             %{gates} = split(%{biased}, indices_or_sections=4, axis=1);\n  \
             %{i} = sigmoid(%{gates}.0);\n  %{f} = sigmoid(%{gates}.1);\n  \
             %{g} = tanh(%{gates}.2);\n  %{o} = sigmoid(%{gates}.3);\n  \
             %{cell} = add(multiply(%{f}, {c}), multiply(%{i}, %{g}));\n  \
             %{hidden} = multiply(%{o}, tanh(%{cell}));",
            u = 4 * H
        );
        h = format!("%{hidden}");
        c = format!("%{cell}");
        hs.push(h.clone());
    }
    // One step: `(%h,)`, a one-field tuple (`(%h)` is %h in parentheses).
    let comma = if hs.len() == 1 { "," } else { "" };
    let _ = writeln!(s, "  concatenate(({}{comma}))\n}}", hs.join(", "));
    s
}

/// A recurrent chain whose states are also summed as it goes: `h = relu(h * w)`, `s = s + h`,
/// three ops a step, the result the final sum. Every state is used by the next step and by
/// the sum, so the uses of each meet only at the end of the chain of sums: the shape that
/// makes a one-parent-at-a-time climb of the post-dominator tree quadratic.
pub fn running_sum_model(steps: usize) -> String {
    let steps = steps.max(1);
    let mut s = String::with_capacity(steps * 64 + 128);
    s.push_str("#[version = \"0.0.5\"]\n");
    s.push_str("def @main(%x: Tensor[(1, 8), float32], %w: Tensor[(1, 8), float32]) {\n");
    let (mut h, mut sum, mut n) = ("%x".to_string(), None::<String>, 0);
    for _ in 0..steps {
        let _ = writeln!(
            s,
            "  %{n} = multiply({h}, %w);\n  %{} = nn.relu(%{n});",
            n + 1
        );
        h = format!("%{}", n + 1);
        n += 2;
        sum = Some(match sum {
            None => h.clone(),
            Some(acc) => {
                let _ = writeln!(s, "  %{n} = add({acc}, {h});");
                n += 1;
                format!("%{}", n - 1)
            }
        });
    }
    let _ = writeln!(s, "  {}\n}}", sum.unwrap_or(h));
    s
}

/// `depth` nested `if`s, each branch using a value bound at the top: the shape that makes a
/// one-scope-at-a-time LCA of ToANormalForm's scopes quadratic. About five ops a level.
pub fn nested_if_model(depth: usize) -> String {
    let mut body = "add(%0, %x)".to_string();
    for i in 0..depth {
        body =
            format!("if (less(sum(%0), {i}f)) {{ add(%0, {body}) }} else {{ multiply(%0, %x) }}");
    }
    format!(
        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 8), float32]) {{\n  \
         %0 = nn.relu(%x);\n  {body}\n}}\n"
    )
}

/// `count` global functions in a call chain (`@f<i>` calls `@f<i-1>`, `@main` the last), two
/// ops each: the shape that makes a search of the module per function quadratic.
pub fn globals_model(count: usize) -> String {
    let count = count.max(1);
    let ty = "Tensor[(1, 8), float32]";
    let mut s = format!("#[version = \"0.0.5\"]\ndef @f0(%a: {ty}) -> {ty} {{ nn.relu(%a) }}\n");
    for i in 1..count {
        let _ = writeln!(
            s,
            "def @f{i}(%a: {ty}) -> {ty} {{ @f{}(add(%a, %a)) }}",
            i - 1
        );
    }
    let _ = writeln!(s, "def @main(%x: {ty}) -> {ty} {{ @f{}(%x) }}", count - 1);
    s
}

/// `depth` function literals nested in one another, each called at once on `nn.relu(%x)` and
/// capturing `%x`: the shape that makes per-literal work over the whole literal (free variables,
/// structural hashes: LambdaLift) quadratic. Two ops a level.
pub fn closures_model(depth: usize) -> String {
    let ty = "Tensor[(1, 8), float32]";
    let mut body = "add(%x, %y0)".to_string();
    for i in 0..depth.max(1) {
        body = format!("(fn (%y{i}: {ty}) {{ {body} }})(nn.relu(%x))");
    }
    format!("#[version = \"0.0.5\"]\ndef @main(%x: {ty}) {{\n  {body}\n}}\n")
}

/// Tuples nested `depth` deep (`%i = (%{i-1}, %x)`), then projected back out one level at a
/// time: each node's type holds all the levels below it, the shape that makes work over a
/// node's whole type (comparing types: InferType) quadratic. Two nodes a level.
pub fn nested_tuple_model(depth: usize) -> String {
    let depth = depth.max(1);
    let mut s = String::with_capacity(depth * 48 + 128);
    s.push_str("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 8), float32]) {\n");
    let mut cur = "%x".to_string();
    for i in 0..depth {
        let _ = writeln!(s, "  %{i} = ({cur}, %x);");
        cur = format!("%{i}");
    }
    for i in depth..2 * depth {
        let _ = writeln!(s, "  %{i} = {cur}.0;");
        cur = format!("%{i}");
    }
    let _ = writeln!(s, "  {cur}\n}}");
    s
}

/// Three chains of `count` globals marked `Inline=1`, each global calling the one before: in
/// the first each wraps that call in an `add` (inlined, `@main` gets `count` adds); the second
/// ends in a global that is not marked, so none of it is inlinable and it all stays; the third
/// is called `count` times by `@main` (inlined, one `nn.relu` a call). Five ops a level: the
/// shapes that make InlineGlobals quadratic when it copies each global's inlined body into the
/// next, removes globals one at a time, finds the inlinable ones one level per pass over the
/// module, or walks a chain again at every call.
pub fn inline_chains_model(count: usize) -> String {
    let count = count.max(1);
    let ty = "Tensor[(1, 8), float32]";
    let mut s = String::with_capacity(count * 240 + 256);
    s.push_str("#[version = \"0.0.5\"]\n");
    let _ = writeln!(s, "def @a0(%x: {ty}, Inline=1) -> {ty} {{ nn.relu(%x) }}");
    let _ = writeln!(s, "def @b0(%x: {ty}) -> {ty} {{ nn.relu(%x) }}");
    let _ = writeln!(s, "def @c0(%x: {ty}, Inline=1) -> {ty} {{ nn.relu(%x) }}");
    for i in 1..count {
        let j = i - 1;
        let _ = writeln!(
            s,
            "def @a{i}(%x: {ty}, Inline=1) -> {ty} {{ add(@a{j}(%x), %x) }}\n\
             def @b{i}(%x: {ty}, Inline=1) -> {ty} {{ @b{j}(%x) }}\n\
             def @c{i}(%x: {ty}, Inline=1) -> {ty} {{ @c{j}(%x) }}"
        );
    }
    let last = count - 1;
    let _ = writeln!(s, "def @main(%x: {ty}) -> {ty} {{");
    let _ = writeln!(s, "  %0 = @a{last}(%x);\n  %1 = @b{last}(%0);");
    for k in 0..count {
        let _ = writeln!(s, "  %{} = @c{last}(%{});", k + 2, k + 1);
    }
    let _ = writeln!(s, "  %{}\n}}", count + 1);
    s
}

/// `depth` function literals nested in one another, none called (`fn () { fn () { ...
/// nn.relu(%x) } }`): each literal's type holds the types of all the literals inside it, the
/// shape that makes work over a literal's whole type (InferType reading a typed literal's
/// return type) quadratic. One literal a level.
pub fn nested_fn_model(depth: usize) -> String {
    let depth = depth.max(1);
    let mut s = String::with_capacity(depth * 8 + 128);
    s.push_str("#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(1, 8), float32]) {\n  ");
    s.push_str(&"fn () { ".repeat(depth));
    s.push_str("nn.relu(%x)");
    s.push_str(&" }".repeat(depth));
    s.push_str("\n}\n");
    s
}

/// `@main` of `count` parameters (at least two), summed in a chain of `add`s: the shape that
/// makes a per-parameter search of the parameters seen so far (parsing a signature: checking
/// names for duplicates) quadratic. One op a parameter.
pub fn params_model(count: usize) -> String {
    let count = count.max(2);
    let mut s = String::with_capacity(count * 40 + 128);
    s.push_str("#[version = \"0.0.5\"]\ndef @main(");
    for i in 0..count {
        if i > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "%p{i}: float32");
    }
    s.push_str(") -> float32 {\n  %0 = add(%p0, %p1);\n");
    for i in 2..count {
        let _ = writeln!(s, "  %{} = add(%{}, %p{i});", i - 1, i - 2);
    }
    let _ = writeln!(s, "  %{}\n}}", count - 2);
    s
}

/// `let %x1 = add(%x0, 1f); ... %xN` inside `@main`.
pub fn let_chain(n: usize) -> String {
    let mut s = String::with_capacity(n * 32);
    s.push_str("#[version = \"0.0.5\"]\ndef @main(%x0: float32) -> float32 {\n");
    for i in 1..=n {
        let _ = writeln!(s, "  let %x{i} = add(%x{}, 1f);", i - 1);
    }
    let _ = writeln!(s, "  %x{n}\n}}");
    s
}

/// Two 20-pass pipelines (statements binding `pipeline`) for measuring what a run's history
/// keeps (`examples/history_memory.rs`, `tests/history_memory.rs`, `tests/debug.rs`): user
/// passes among InferTypes (a few change the module, most return it as it was), then the
/// standard passes (at opt_level 3 every one of them runs, with the InferTypes they require).
pub const HISTORY_PIPELINES: [(&str, &str); 2] = [
    (
        "user passes + InferType",
        r#"add_helper = module_pass(name="AddHelper", add="""def @helper(%a: float32) { abs(%a) }""")
no_match = function_pass(name="NoMatch", rewrite=["nn.relu(nn.relu(?x)) => nn.relu(?x)"])
leaky = function_pass(name="LeakyRelu", rewrite=["nn.relu(?x) => nn.leaky_relu(?x)"])
pipeline = Sequential([InferType(), add_helper, no_match, InferType(), no_match, no_match,
  leaky, InferType(), no_match, no_match, InferType(), no_match, no_match, no_match,
  InferType(), no_match, no_match, no_match, no_match, InferType()])"#,
    ),
    (
        "standard passes",
        r#"pipeline = Sequential([InferType(), SimplifyInference(), InferType(), FoldConstant(),
  EliminateCommonSubexpr(), DeadCodeElimination(), CanonicalizeOps(), InferType(),
  FoldConstant(), EliminateCommonSubexpr(), DeadCodeElimination(), InferType(),
  SimplifyInference(), FoldConstant(), EliminateCommonSubexpr(), DeadCodeElimination(),
  CanonicalizeOps(), InferType(), FoldConstant(), DeadCodeElimination()])"#,
    ),
];

/// The peer benchmark's model (`shared/peers/tvm/model.py`, which TVM's side builds in Relax):
/// per layer two `full` constants and their product `k`, two equal adds of `h` and `k` (a
/// common subexpression), their product, a dead `let` of `h - k`, and a relu; eight calls a
/// layer.
pub fn peer_model(layers: usize, width: usize) -> String {
    let ty = format!("Tensor[(1, {width}), float32]");
    let mut s = String::with_capacity(layers * 330);
    let _ = writeln!(s, "#[version = \"0.0.5\"]\ndef @main(%x: {ty}) -> {ty} {{");
    let mut h = "%x".to_string();
    let mut n = 0;
    for i in 0..layers {
        let [c1, c2, k, a, b, d, r] = std::array::from_fn(|j| n + j);
        n += 7;
        let _ = writeln!(
            s,
            "  %{c1} = full(0.5f, shape=[1, {width}], dtype=\"float32\");\n  \
             %{c2} = full(2f, shape=[1, {width}], dtype=\"float32\");\n  \
             %{k} = multiply(%{c1}, %{c2});\n  %{a} = add({h}, %{k});\n  \
             %{b} = add({h}, %{k});\n  %{d} = multiply(%{a}, %{b});\n  \
             let %dead{i} = subtract({h}, %{k});\n  %{r} = nn.relu(%{d});"
        );
        h = format!("%{r}");
    }
    let _ = writeln!(s, "  {h}\n}}");
    s
}

/// A deterministic xorshift generator for the randomized unit tests: the same sequence on
/// every machine, no dependency. The closure returns a number below its argument.
#[cfg(test)]
pub(crate) fn xorshift(seed: u64) -> impl FnMut(u32) -> u32 {
    let mut state = seed;
    move |m: u32| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % u64::from(m)) as u32
    }
}

/// ResNet-50 (v1, 224x224, batch 1) with its weights as constants: the text refers to them as
/// `meta[relay.Constant][i]` and the tensors (seeded, float32: weights in [-0.05, 0.05),
/// batch-norm variances in [0.5, 1.5)) come beside it, for `parse_module_with_meta`. 25.5M
/// weights, 53 convolutions each followed by `nn.batch_norm`, the model FoldConstant and the
/// evaluator are measured on (`benches/evaluate.rs`).
pub fn resnet50() -> (String, Vec<crate::ir::TensorData>) {
    let mut g = ResNetGen {
        consts: Vec::new(),
        seed: 0x2545_F491_4F6C_DD1D,
        n: 0,
        lines: Vec::new(),
    };
    let stem = g.conv_bn("%data", 3, 64, 7, 2, true);
    let pool = g.next();
    g.lines.push(format!(
        "  %{pool} = nn.max_pool2d({stem}, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1]);"
    ));
    let mut x = format!("%{pool}");
    let mut cin = 64;
    for (stage, (blocks, width)) in [(3, 64), (4, 128), (6, 256), (3, 512)]
        .into_iter()
        .enumerate()
    {
        for block in 0..blocks {
            let stride = if block == 0 && stage > 0 { 2 } else { 1 };
            let a = g.conv_bn(&x, cin, width, 1, 1, true);
            let b = g.conv_bn(&a, width, width, 3, stride, true);
            let c = g.conv_bn(&b, width, width * 4, 1, 1, false);
            let shortcut = if block == 0 {
                g.conv_bn(&x, cin, width * 4, 1, stride, false)
            } else {
                x.clone()
            };
            let sum = g.next();
            g.lines.push(format!("  %{sum} = add({c}, {shortcut});"));
            let r = g.next();
            g.lines.push(format!("  %{r} = nn.relu(%{sum});"));
            x = format!("%{r}");
            cin = width * 4;
        }
    }
    let gap = g.next();
    g.lines
        .push(format!("  %{gap} = nn.global_avg_pool2d({x});"));
    let flat = g.next();
    g.lines
        .push(format!("  %{flat} = nn.batch_flatten(%{gap});"));
    let w = g.constant(&[1000, 2048], -0.05, 0.05);
    let b = g.constant(&[1000], -0.1, 0.1);
    let dense = g.next();
    g.lines.push(format!(
        "  %{dense} = nn.dense(%{flat}, meta[relay.Constant][{w}], units=1000);"
    ));
    g.lines.push(format!(
        "  nn.bias_add(%{dense}, meta[relay.Constant][{b}])"
    ));
    let mut s = String::from(
        "#[version = \"0.0.5\"]\ndef @main(%data: Tensor[(1, 3, 224, 224), float32]) {\n",
    );
    for l in &g.lines {
        s.push_str(l);
        s.push('\n');
    }
    s.push_str("}\n");
    (s, g.consts)
}

/// The state of [`resnet50`]'s generation.
struct ResNetGen {
    consts: Vec<crate::ir::TensorData>,
    seed: u64,
    n: usize,
    lines: Vec<String>,
}

impl ResNetGen {
    fn next(&mut self) -> usize {
        self.n += 1;
        self.n - 1
    }

    /// A seeded float32 constant of `shape` in [lo, hi): its metadata index.
    fn constant(&mut self, shape: &[i64], lo: f64, hi: f64) -> usize {
        let n: i64 = shape.iter().product();
        let v: Vec<f64> = (0..n)
            .map(|_| {
                self.seed ^= self.seed << 13;
                self.seed ^= self.seed >> 7;
                self.seed ^= self.seed << 17;
                lo + (self.seed >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
            })
            .collect();
        // Held as `f32`s, as the ONNX importer holds a model's float32 weights.
        let t = crate::ir::TensorData {
            dtype: crate::ir::DType::FLOAT32,
            shape: shape.to_vec(),
            bytes: v.iter().map(|&x| x as f32).collect::<Vec<f32>>().into(),
        };
        self.consts.push(t);
        self.consts.len() - 1
    }

    /// conv2d, batch_norm and (with `relu`) relu: the name of the result.
    fn conv_bn(
        &mut self,
        input: &str,
        cin: i64,
        cout: i64,
        k: i64,
        stride: i64,
        relu: bool,
    ) -> String {
        let w = self.constant(&[cout, cin, k, k], -0.05, 0.05);
        let p = k / 2;
        let c = self.next();
        self.lines.push(format!(
            "  %{c} = nn.conv2d({input}, meta[relay.Constant][{w}], strides=[{stride}, {stride}], padding=[{p}, {p}, {p}, {p}], channels={cout}, kernel_size=[{k}, {k}]);"
        ));
        let g = self.constant(&[cout], 0.5, 1.5);
        let b = self.constant(&[cout], -0.1, 0.1);
        let m = self.constant(&[cout], -0.1, 0.1);
        let v = self.constant(&[cout], 0.5, 1.5);
        let bn = self.next();
        self.lines.push(format!(
            "  %{bn} = nn.batch_norm(%{c}, meta[relay.Constant][{g}], meta[relay.Constant][{b}], meta[relay.Constant][{m}], meta[relay.Constant][{v}]);"
        ));
        let out = self.next();
        self.lines.push(format!("  %{out} = %{bn}.0;"));
        if !relu {
            return format!("%{out}");
        }
        let r = self.next();
        self.lines.push(format!("  %{r} = nn.relu(%{out});"));
        format!("%{r}")
    }
}

#[cfg(test)]
mod tests {
    /// Every generator writes a module that parses and type-checks, at more than one size.
    #[test]
    fn every_generated_model_parses_and_types() {
        type Generator = fn(usize) -> String;
        let models: [(&str, Generator); 10] = [
            ("conv", super::conv_model),
            ("rnn", super::rnn_model),
            ("lets", super::let_chain),
            ("sum", super::running_sum_model),
            ("ifs", super::nested_if_model),
            ("globals", super::globals_model),
            ("closures", super::closures_model),
            ("tuples", super::nested_tuple_model),
            ("inline", super::inline_chains_model),
            ("fns", super::nested_fn_model),
        ];
        for (name, model) in models {
            for n in [1, 7] {
                let text = model(n);
                let m = crate::text::parse_module(&text, name)
                    .unwrap_or_else(|e| panic!("{name}({n}): {e:?}\n{text}"));
                crate::passes::infer_type::infer_module(&m)
                    .unwrap_or_else(|e| panic!("{name}({n}): {e}\n{text}"));
            }
        }
    }

    /// The same text as `shared/peers/tvm/model.py` writes.
    #[test]
    fn peer_model_matches_the_peer_script() {
        let script =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/peers/tvm/model.py");
        assert!(script.exists(), "{} is missing", script.display());
        let out = std::env::temp_dir().join(format!("peer_model_{}.relay", std::process::id()));
        let status = std::process::Command::new("python3")
            .arg(&script)
            .args(["--layers", "3", "--width", "8", "--out"])
            .arg(&out)
            .status()
            .expect("python3 runs");
        assert!(status.success());
        let theirs = std::fs::read_to_string(&out).unwrap();
        let _ = std::fs::remove_file(&out);
        assert_eq!(super::peer_model(3, 8), theirs);
    }
}
