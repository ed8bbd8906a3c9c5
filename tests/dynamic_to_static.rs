//! DynamicToStatic keeps the numbers, and the `dyn.*` kernels compute what TVM's tests expect.
//! The golden cases in `tests/relay/dynamic_to_static/` (TVM's
//! test_pass_dynamic_to_static.py, whose expected programs `relay_language` checks) are run
//! before and after the pass: every function computes the same outputs on seeded random
//! inputs, the dynamic program through the `dyn.*` kernels and the static one through the
//! static kernels. TVM's own numbers are checked where its test states them
//! (sparse_to_dense) or computes them with NumPy (topk, over all 54 of its combinations).

use passlab::eval::numerics::{DEFAULT_ATOL, DEFAULT_RTOL};
use passlab::eval::{evaluate, Output};
use passlab::ir::{DType, Module, TensorData};
use passlab::pass::{PassContext, PassManager};
use passlab::text::parse_module;
use std::path::Path;

fn dynamic_to_static(m: &Module) -> Module {
    let mut pm = PassManager::new(passlab::passes::registry());
    let pass = pm
        .create("DynamicToStatic", &Default::default())
        .expect("registered");
    let ctx = PassContext::builder().opt_level(3).build().unwrap();
    pm.with_context(&ctx, |pm| pm.run(&pass, m))
        .unwrap_or_else(|e| panic!("DynamicToStatic: {e}"))
}

fn case(name: &str) -> Module {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/relay/dynamic_to_static")
        .join(format!("{name}.relay"));
    let text = std::fs::read_to_string(&path).unwrap();
    let input = text.split("// expected:").next().unwrap();
    parse_module(input, name).unwrap_or_else(|e| panic!("{name}: {}", e.message))
}

/// Functions whose numbers are not compared here, with the reason.
const NOT_COMPARED: &[(&str, &str, &str)] = &[
    (
        "resize2d",
        "main_1",
        "the resize kernel evaluates NCHW only",
    ),
    (
        "resize2d",
        "main_3",
        "the resize kernel evaluates NCHW only",
    ),
    (
        "dynamic_rank",
        "*",
        "its input has no type before folding (as in TVM)",
    ),
    (
        "sparse_to_dense",
        "*",
        "random indices; TVM's numbers are checked below",
    ),
];

#[test]
fn static_programs_compute_what_the_dynamic_ones_computed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/relay/dynamic_to_static");
    let mut compared = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let m = case(&name);
        let out = dynamic_to_static(&m);
        for (g, f) in m.functions() {
            let skipped = NOT_COMPARED
                .iter()
                .any(|(c, func, _)| *c == name && (*func == "*" || *func == g.name()));
            if skipped {
                continue;
            }
            let inputs = passlab::eval::random::inputs_for(f, 11).unwrap();
            let args: Vec<_> = inputs.iter().collect();
            let before = evaluate(&m, g.name(), &args)
                .unwrap_or_else(|e| panic!("{name} @{}: {e}", g.name()));
            let after = evaluate(&out, g.name(), &args)
                .unwrap_or_else(|e| panic!("{name} @{} after the pass: {e}", g.name()));
            if let Some(d) =
                passlab::eval::compare::outputs(&after, &before, DEFAULT_RTOL, DEFAULT_ATOL, true)
            {
                panic!(
                    "{name} @{}: DynamicToStatic changed the numbers: {d}",
                    g.name()
                );
            }
            compared += 1;
        }
    }
    assert!(compared >= 40, "only {compared} functions compared");
}

fn tensor(out: &Output) -> &TensorData {
    match out {
        Output::Tensor(t) => t,
        _ => panic!("expected a tensor"),
    }
}

fn f64s(t: &TensorData) -> Vec<f64> {
    t.to_f64_vec()
}

/// test_dyn_to_static_sparse_to_dense's six cases, with TVM's data and expected outputs.
#[test]
fn sparse_to_dense_gives_tvms_numbers() {
    let m = dynamic_to_static(&case("sparse_to_dense"));
    let i = |shape: Vec<i64>, v: &[i64]| TensorData::from_i64(DType::INT64, shape, v);
    let f = |shape: Vec<i64>, v: &[f64]| TensorData::from_f64(DType::FLOAT64, shape, v);
    let check = |func: &str, args: Vec<TensorData>, want: &[f64]| {
        let args: Vec<_> = args.iter().collect();
        let got = evaluate(&m, func, &args).unwrap_or_else(|e| panic!("@{func}: {e}"));
        assert_eq!(f64s(tensor(&got)), want, "@{func}");
    };
    check(
        "main",
        vec![i(vec![], &[1]), i(vec![], &[3]), i(vec![], &[0])],
        &[0., 3., 0., 0., 0.],
    );
    check(
        "main_1",
        vec![
            i(vec![3], &[0, 1, 4]),
            i(vec![3], &[3, 3, 3]),
            i(vec![], &[0]),
        ],
        &[3., 3., 0., 0., 3.],
    );
    let mut want = vec![0.; 12];
    want[0] = 1.;
    want[6] = 2.;
    check(
        "main_2",
        vec![
            i(vec![2, 2], &[0, 0, 1, 2]),
            i(vec![2], &[1, 2]),
            i(vec![], &[0]),
        ],
        &want,
    );
    let mut want = vec![4.; 24];
    want[0] = 1.;
    want[23] = 2.;
    check(
        "main_3",
        vec![
            i(vec![2, 3], &[0, 0, 0, 1, 2, 3]),
            i(vec![2], &[1, 2]),
            i(vec![], &[4]),
        ],
        &want,
    );
    check(
        "main_4",
        vec![
            i(vec![3], &[0, 1, 4]),
            f(vec![3], &[3.1, 3.1, 3.1]),
            f(vec![], &[3.5]),
        ],
        &[3.1, 3.1, 3.5, 3.5, 3.1],
    );
    check(
        "main_5",
        vec![i(vec![], &[1]), i(vec![], &[3])],
        &[0., 3., 0., 0., 0.],
    );
}

/// test_dynamic_to_static_topk: every k (0 = all), axis, ret_type, order and index dtype of
/// TVM's loop; the static program's values and indices are NumPy's argsort of the data (of
/// its negation when descending), as TVM's reference computes them.
#[test]
fn topk_gives_numpys_numbers_for_every_combination() {
    let (rows, cols) = (20usize, 100usize);
    let data: Vec<f64> = (0..rows * cols)
        .map(|i| ((i * 7919 + 13) % 1009) as f64 / 1009.0 + i as f64 * 1e-7)
        .collect();
    let x = TensorData::from_f64(DType::FLOAT32, vec![rows as i64, cols as i64], &data);
    let x32: Vec<f64> = f64s(&x);
    let mut n = 0;
    for k in [0usize, 1, 5] {
        for axis in [0i64, -1, 1] {
            for ret in ["both", "values", "indices"] {
                for (ascend, dtype) in [(true, "int64"), (false, "float32")] {
                    let text = format!(
                        "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[({rows}, {cols}), float32]) {{\n  \
                         dyn.topk(%x, {k}, k=None, axis={axis}, ret_type=\"{ret}\", \
                         is_ascend={}, dtype=\"{dtype}\")\n}}\n",
                        if ascend { "True" } else { "False" }
                    );
                    let m = parse_module(&text, "topk").unwrap();
                    let out = dynamic_to_static(&m);
                    let printed = passlab::text::print_module(&out);
                    assert!(printed.contains(" topk(%x, k="), "{printed}");
                    let got = evaluate(&out, "main", &[&x]).unwrap();
                    let got = got.tensors();
                    // NumPy's reference along the axis.
                    let along_rows = axis == 0;
                    let (lines, len) = if along_rows {
                        (cols, rows)
                    } else {
                        (rows, cols)
                    };
                    let kk = if k == 0 { len } else { k };
                    let at = |line: usize, j: usize| {
                        if along_rows {
                            j * cols + line
                        } else {
                            line * cols + j
                        }
                    };
                    let mut values = vec![0.0; lines * kk];
                    let mut indices = vec![0.0; lines * kk];
                    for line in 0..lines {
                        let mut order: Vec<usize> = (0..len).collect();
                        order.sort_by(|&a, &b| {
                            let (va, vb) = (x32[at(line, a)], x32[at(line, b)]);
                            if ascend {
                                va.total_cmp(&vb)
                            } else {
                                vb.total_cmp(&va)
                            }
                        });
                        for (j, &o) in order.iter().take(kk).enumerate() {
                            let pos = if along_rows {
                                j * lines + line
                            } else {
                                line * kk + j
                            };
                            values[pos] = x32[at(line, o)];
                            indices[pos] = o as f64;
                        }
                    }
                    let want: Vec<&Vec<f64>> = match ret {
                        "both" => vec![&values, &indices],
                        "values" => vec![&values],
                        _ => vec![&indices],
                    };
                    assert_eq!(got.len(), want.len(), "k={k} axis={axis} {ret}");
                    for (g, w) in got.iter().zip(want) {
                        assert_eq!(&f64s(g), w, "k={k} axis={axis} {ret} ascend={ascend}");
                    }
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 54);
}
