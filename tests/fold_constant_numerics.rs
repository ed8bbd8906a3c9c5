//! FoldConstant computes real tensor arithmetic, exact in the dtype: hand-computed values and
//! identities for float32, float16, int32, int8, uint8 and bool, and conv2d / dense against
//! naive loops written here. Tensor inputs come in through a metadata table
//! (`meta[relay.Constant][i]`), so the programs stay one line each.

use passlab::ir::{DType, ExprKind, Module, TensorData};
use passlab::passes::fold_constant::fold_constant;
use passlab::text::metadata::MetaTable;
use passlab::text::parse_module_with_meta;
use std::sync::Arc;

/// Folds `body` (inside `def @main() { ... }`) and returns the constant it becomes, or `None`
/// when it is not folded to a constant.
fn try_fold(body: &str, inputs: &[TensorData]) -> Option<TensorData> {
    let text = format!("#[version = \"0.0.5\"]\ndef @main() {{ {body} }}");
    let table = MetaTable {
        constants: inputs.iter().cloned().map(|t| Some(Arc::new(t))).collect(),
        ..Default::default()
    };
    let m: Module = parse_module_with_meta(&text, "numerics", Some(&table))
        .unwrap_or_else(|e| panic!("{body}: {e}"));
    let out = fold_constant(&m);
    let f = out.get_function("main").unwrap();
    match f.body.kind() {
        ExprKind::Constant(c) => c.data.as_deref().cloned(),
        _ => None,
    }
}

fn fold(body: &str, inputs: &[TensorData]) -> TensorData {
    try_fold(body, inputs).unwrap_or_else(|| panic!("`{body}` did not fold"))
}

fn f32s(shape: &[i64], v: &[f32]) -> TensorData {
    TensorData::from_f64(
        DType::FLOAT32,
        shape.to_vec(),
        &v.iter().map(|&x| x as f64).collect::<Vec<_>>(),
    )
}

fn ints(dt: DType, shape: &[i64], v: &[i64]) -> TensorData {
    TensorData::from_i64(dt, shape.to_vec(), v)
}

fn bits32(t: &TensorData) -> Vec<u32> {
    t.to_f64_vec()
        .iter()
        .map(|&x| (x as f32).to_bits())
        .collect()
}

/// Deterministic pseudo-random floats in [-2, 2).
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}

#[test]
fn float32_is_computed_in_f32() {
    let sum = fold("add(0.1f, 0.2f)", &[]);
    assert_eq!(sum.dtype, DType::FLOAT32);
    assert_eq!(bits32(&sum), vec![(0.1f32 + 0.2f32).to_bits()]);
    assert_ne!((0.1f32 + 0.2f32) as f64, 0.1f64 + 0.2f64);
    assert_eq!(
        bits32(&fold("divide(1f, 3f)", &[])),
        vec![(1f32 / 3f32).to_bits()]
    );
    assert_eq!(bits32(&fold("sqrt(2f)", &[])), vec![2f32.sqrt().to_bits()]);
    assert_eq!(bits32(&fold("rsqrt(4f)", &[])), vec![0.5f32.to_bits()]);
    assert_eq!(
        bits32(&fold("multiply(16777216f, 1.0000001f)", &[])),
        vec![(16777216f32 * 1.000_000_1f32).to_bits()]
    );
    // Identities on a tensor: x - x = 0, x * 1 = x, exp(log(|x|+1)) close to |x|+1.
    let x = f32s(&[6], &data(6, 1));
    assert!(fold(
        "subtract(meta[relay.Constant][0], meta[relay.Constant][0])",
        std::slice::from_ref(&x)
    )
    .to_f64_vec()
    .iter()
    .all(|&v| v == 0.0));
    assert_eq!(
        fold(
            "multiply(meta[relay.Constant][0], 1f)",
            std::slice::from_ref(&x)
        ),
        x
    );
    assert_eq!(
        bits32(&fold("round(2.5f)", &[])),
        vec![2f32.to_bits()],
        "round half to even"
    );
    assert_eq!(fold("sign(-3f)", &[]).to_f64_vec(), vec![-1.0]);
    assert_eq!(
        fold("clip(7f, a_min=0f, a_max=6f)", &[]).to_f64_vec(),
        vec![6.0]
    );
    assert_eq!(fold("nn.relu(-1f)", &[]).to_f64_vec(), vec![0.0]);
    let s = fold("sigmoid(0f)", &[]).to_f64_vec()[0];
    assert_eq!(s, 0.5);
    let e = fold("erf(0.5f)", &[]).to_f64_vec()[0];
    assert!((e - 0.520_499_877_813_046_5).abs() < 1e-7, "{e}");
}

#[test]
fn float16_rounds_after_every_op() {
    let h = |v: f32| half::f16::from_f32(v);
    let sum = fold("add(0.1f16, 0.2f16)", &[]);
    assert_eq!(sum.dtype, DType::FLOAT16);
    let want = h(h(0.1).to_f32() + h(0.2).to_f32()).to_f32();
    assert_eq!(sum.to_f64_vec(), vec![want as f64]);
    assert_eq!(
        fold("multiply(60000f16, 2f16)", &[]).to_f64_vec(),
        vec![f64::INFINITY]
    );
    // 2049 is not a float16: 2048 + 1 rounds to even.
    assert_eq!(fold("add(2048f16, 1f16)", &[]).to_f64_vec(), vec![2048.0]);
    let sum4 = fold(
        "sum(meta[relay.Constant][0])",
        &[TensorData::from_f64(
            DType::FLOAT16,
            vec![4],
            &[2048.0, 1.0, 1.0, 1.0],
        )],
    );
    assert_eq!(
        sum4.to_f64_vec(),
        vec![2048.0],
        "the accumulator rounds to float16 each step"
    );
    assert_eq!(
        fold("cast(0.1f, dtype=\"float16\")", &[]).to_f64_vec(),
        vec![h(0.1).to_f64()]
    );
}

#[test]
fn int32_wraps_and_divides_like_tvm() {
    let i = |body: &str| fold(body, &[]).to_i64_vec()[0];
    assert_eq!(i("add(2147483647, 1)"), -2147483648);
    assert_eq!(i("multiply(65536, 65536)"), 0);
    assert_eq!(i("subtract(-2147483648, 1)"), 2147483647);
    assert_eq!(i("divide(7, -2)"), -3);
    assert_eq!(i("divide(-7, 2)"), -3);
    assert_eq!(i("floor_divide(7, -2)"), -4);
    assert_eq!(i("mod(-7, 3)"), -1);
    assert_eq!(i("floor_mod(-7, 3)"), 2);
    assert_eq!(i("right_shift(-8, 1)"), -4);
    assert_eq!(i("left_shift(1, 31)"), -2147483648);
    assert_eq!(i("maximum(3, -5)"), 3);
    assert_eq!(i("negative(-2147483648)"), -2147483648);
    assert!(
        try_fold("divide(1, 0)", &[]).is_none(),
        "division by zero is not folded"
    );
    assert!(
        try_fold("left_shift(1, 32)", &[]).is_none(),
        "shifting by the width is not folded"
    );
    assert!(
        try_fold("power(2, 3)", &[]).is_none(),
        "integer power is not folded"
    );
    // Float to int truncates toward zero; out of range is not folded.
    assert_eq!(i("cast(-2.7f, dtype=\"int32\")"), -2);
    assert!(try_fold("cast(3e9f, dtype=\"int32\")", &[]).is_none());
}

#[test]
fn int8_and_uint8_wrap() {
    let a = ints(DType::INT8, &[3], &[100, -128, 127]);
    let b = ints(DType::INT8, &[3], &[100, -1, 1]);
    let sum = fold(
        "add(meta[relay.Constant][0], meta[relay.Constant][1])",
        &[a.clone(), b.clone()],
    );
    assert_eq!(sum.dtype, DType::INT8);
    assert_eq!(sum.to_i64_vec(), vec![-56, 127, -128]);
    let prod = fold(
        "multiply(meta[relay.Constant][0], meta[relay.Constant][1])",
        &[a, b],
    );
    assert_eq!(prod.to_i64_vec(), vec![16, -128, 127]);
    let u = ints(DType::UINT8, &[3], &[250, 0, 128]);
    let v = ints(DType::UINT8, &[3], &[10, 1, 128]);
    assert_eq!(
        fold(
            "add(meta[relay.Constant][0], meta[relay.Constant][1])",
            &[u.clone(), v.clone()]
        )
        .to_i64_vec(),
        vec![4, 1, 0]
    );
    assert_eq!(
        fold(
            "subtract(meta[relay.Constant][0], meta[relay.Constant][1])",
            &[u, v]
        )
        .to_i64_vec(),
        vec![240, 255, 0]
    );
    assert_eq!(
        fold("cast(-1, dtype=\"uint8\")", &[]).to_i64_vec(),
        vec![255]
    );
    assert_eq!(
        fold("cast(200, dtype=\"int8\")", &[]).to_i64_vec(),
        vec![-56]
    );
    let s = fold(
        "sum(meta[relay.Constant][0])",
        &[ints(DType::INT8, &[3], &[100, 100, 100])],
    );
    assert_eq!(s.to_i64_vec(), vec![44], "300 wraps to 44 in int8");
}

#[test]
fn bool_comparisons_and_logic() {
    let x = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
    let lt = fold(
        "less(meta[relay.Constant][0], 2.5f)",
        std::slice::from_ref(&x),
    );
    assert_eq!(lt.dtype, DType::BOOL);
    assert_eq!(lt.to_i64_vec(), vec![1, 1, 0, 0]);
    let both = fold(
        "logical_and(less(meta[relay.Constant][0], 3.5f), greater(meta[relay.Constant][0], 1.5f))",
        std::slice::from_ref(&x),
    );
    assert_eq!(both.to_i64_vec(), vec![0, 1, 1, 0]);
    assert_eq!(fold("logical_not(True)", &[]).to_i64_vec(), vec![0]);
    assert_eq!(fold("logical_xor(True, False)", &[]).to_i64_vec(), vec![1]);
    let w = fold(
        "where(less(meta[relay.Constant][0], 2.5f), meta[relay.Constant][0], 0f)",
        &[x],
    );
    assert_eq!(w.to_f64_vec(), vec![1.0, 2.0, 0.0, 0.0]);
    assert!(
        try_fold("add(True, True)", &[]).is_none(),
        "arithmetic on bool is not folded"
    );
    assert_eq!(
        fold(
            "all(meta[relay.Constant][0])",
            &[ints(DType::BOOL, &[2], &[1, 0])]
        )
        .to_i64_vec(),
        vec![0]
    );
}

#[test]
fn broadcasting_reductions_and_layout() {
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let b = f32s(&[3], &[10.0, 20.0, 30.0]);
    let s = fold(
        "add(meta[relay.Constant][0], meta[relay.Constant][1])",
        &[x.clone(), b],
    );
    assert_eq!(s.shape, vec![2, 3]);
    assert_eq!(s.to_f64_vec(), vec![11.0, 22.0, 33.0, 14.0, 25.0, 36.0]);
    let c = std::slice::from_ref(&x);
    let r = |body: &str| fold(body, c);
    assert_eq!(
        r("sum(meta[relay.Constant][0], axis=[1])").to_f64_vec(),
        vec![6.0, 15.0]
    );
    assert_eq!(
        r("sum(meta[relay.Constant][0], axis=[1], keepdims=True)").shape,
        vec![2, 1]
    );
    assert_eq!(
        r("sum(meta[relay.Constant][0], axis=[1], exclude=True)").to_f64_vec(),
        vec![5.0, 7.0, 9.0]
    );
    assert_eq!(r("mean(meta[relay.Constant][0])").to_f64_vec(), vec![3.5]);
    assert_eq!(
        r("max(meta[relay.Constant][0], axis=[0])").to_f64_vec(),
        vec![4.0, 5.0, 6.0]
    );
    assert_eq!(
        r("prod(meta[relay.Constant][0], axis=[-1])").to_f64_vec(),
        vec![6.0, 120.0]
    );
    let am = r("argmax(meta[relay.Constant][0], axis=[1])");
    assert_eq!((am.dtype, am.to_i64_vec()), (DType::INT32, vec![2, 2]));
    assert_eq!(r("argmin(meta[relay.Constant][0])").to_i64_vec(), vec![0]);
    assert_eq!(
        r("transpose(meta[relay.Constant][0], axes=None)").to_f64_vec(),
        vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    );
    assert_eq!(
        r("reshape(meta[relay.Constant][0], newshape=[-1])").shape,
        vec![6]
    );
    assert_eq!(
        r("reshape(meta[relay.Constant][0], newshape=[0, -4, 3, 1])").shape,
        vec![2, 3, 1]
    );
    assert_eq!(
        r("expand_dims(meta[relay.Constant][0], axis=0, num_newaxis=2)").shape,
        vec![1, 1, 2, 3]
    );
    assert_eq!(
        r("squeeze(expand_dims(meta[relay.Constant][0], axis=1), axis=None)").shape,
        vec![2, 3]
    );
    let sl = r("strided_slice(meta[relay.Constant][0], begin=[0, 2], end=[2, 0], strides=[1, -1], axes=None)");
    assert_eq!(
        (sl.shape.clone(), sl.to_f64_vec()),
        (vec![2, 2], vec![3.0, 2.0, 6.0, 5.0])
    );
    let tk = fold(
        "take(meta[relay.Constant][0], meta[relay.Constant][1], axis=1)",
        &[x.clone(), ints(DType::INT32, &[2], &[2, 5])],
    );
    assert_eq!(
        tk.to_f64_vec(),
        vec![3.0, 3.0, 6.0, 6.0],
        "mode=clip clamps 5 to 2"
    );
    let st = r("stack((meta[relay.Constant][0], meta[relay.Constant][0]), axis=1)");
    assert_eq!(st.shape, vec![2, 2, 3]);
    let pd = r("nn.pad(meta[relay.Constant][0], -1f, pad_width=[[0, 0], [1, 0]])");
    assert_eq!(
        pd.to_f64_vec(),
        vec![-1.0, 1.0, 2.0, 3.0, -1.0, 4.0, 5.0, 6.0]
    );
    assert_eq!(
        r("nn.batch_flatten(expand_dims(meta[relay.Constant][0], axis=2))").shape,
        vec![2, 3]
    );
    let sm = r("nn.softmax(meta[relay.Constant][0])");
    for row in sm.to_f64_vec().chunks(3) {
        let (m, e): (f32, Vec<f32>) = (3.0, vec![1.0f32, 2.0, 3.0]);
        let ex: Vec<f32> = e.iter().map(|v| (v - m).exp()).collect();
        let sum = ex.iter().fold(0f32, |a, b| a + b);
        let want: Vec<f64> = ex.iter().map(|v| (v / sum) as f64).collect();
        assert_eq!(row, want.as_slice());
    }
    let ba = fold(
        "nn.bias_add(meta[relay.Constant][0], meta[relay.Constant][1], axis=0)",
        &[x, f32s(&[2], &[100.0, 200.0])],
    );
    assert_eq!(
        ba.to_f64_vec(),
        vec![101.0, 102.0, 103.0, 204.0, 205.0, 206.0]
    );
    assert_eq!(
        fold("full(3, shape=[2, 2], dtype=\"float32\")", &[]).to_f64_vec(),
        vec![3.0; 4]
    );
    assert_eq!(
        fold(
            "ones_like(meta[relay.Constant][0])",
            &[ints(DType::INT8, &[2], &[5, 6])]
        )
        .to_i64_vec(),
        vec![1, 1]
    );
}

/// A naive NCHW/OIHW convolution accumulating in the order the evaluator documents
/// (input channel, kernel row, kernel column), padded positions contributing `0 * w`.
#[allow(clippy::too_many_arguments)]
fn naive_conv(
    x: &[f32],
    xs: [usize; 4],
    w: &[f32],
    ws: [usize; 4],
    stride: usize,
    pad: usize,
    dil: usize,
    groups: usize,
) -> (Vec<f32>, Vec<i64>) {
    let [n, c, h, wd] = xs;
    let [o, ci, kh, kw] = ws;
    let oh = (h + 2 * pad - ((kh - 1) * dil + 1)) / stride + 1;
    let ow = (wd + 2 * pad - ((kw - 1) * dil + 1)) / stride + 1;
    let mut out = Vec::new();
    for b in 0..n {
        for oc in 0..o {
            let g = oc / (o / groups);
            for y in 0..oh {
                for xx in 0..ow {
                    let mut acc = 0f32;
                    for ic in 0..ci {
                        for ky in 0..kh {
                            for kx in 0..kw {
                                let iy = (y * stride + ky * dil) as i64 - pad as i64;
                                let ix = (xx * stride + kx * dil) as i64 - pad as i64;
                                let v = if iy >= 0
                                    && ix >= 0
                                    && (iy as usize) < h
                                    && (ix as usize) < wd
                                {
                                    x[((b * c + g * ci + ic) * h + iy as usize) * wd + ix as usize]
                                } else {
                                    0.0
                                };
                                acc += v * w[((oc * ci + ic) * kh + ky) * kw + kx];
                            }
                        }
                    }
                    out.push(acc);
                }
            }
        }
    }
    (out, vec![n as i64, o as i64, oh as i64, ow as i64])
}

#[test]
fn conv2d_matches_a_naive_loop() {
    for (xs, ws, stride, pad, dil, groups) in [
        ([1, 3, 7, 7], [4, 3, 3, 3], 2, 1, 1, 1),
        ([2, 4, 6, 5], [6, 2, 3, 2], 1, 2, 2, 2),
        ([1, 4, 5, 5], [4, 1, 3, 3], 1, 1, 1, 4),
    ] {
        let x = data(xs.iter().product(), 7);
        let w = data(ws.iter().product(), 11);
        let (want, shape) = naive_conv(&x, xs, &w, ws, stride, pad, dil, groups);
        let sh = |s: [usize; 4]| s.iter().map(|&d| d as i64).collect::<Vec<_>>();
        let body = format!(
            "nn.conv2d(meta[relay.Constant][0], meta[relay.Constant][1], strides=[{stride}, {stride}], padding=[{pad}, {pad}], dilation=[{dil}, {dil}], groups={groups})"
        );
        let got = fold(&body, &[f32s(&sh(xs), &x), f32s(&sh(ws), &w)]);
        assert_eq!(got.shape, shape, "{body}");
        assert_eq!(
            bits32(&got),
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "{body}"
        );
    }
    // Other layouts fold through the canonical kernel: NHWC data times a 1x1 HWIO kernel of 2.
    let x = f32s(&[1, 2, 2, 1], &[1.0, 2.0, 3.0, 4.0]);
    let w = f32s(&[1, 1, 1, 1], &[2.0]);
    let got = fold("nn.conv2d(meta[relay.Constant][0], meta[relay.Constant][1], data_layout=\"NHWC\", kernel_layout=\"HWIO\")", &[x, w]);
    assert_eq!(
        (got.shape.clone(), got.to_f64_vec()),
        (vec![1, 2, 2, 1], vec![2.0, 4.0, 6.0, 8.0])
    );
}

#[test]
fn dense_matches_a_naive_loop() {
    let (m, k, n) = (3, 7, 5);
    let x = data(m * k, 3);
    let w = data(n * k, 5);
    let mut want = Vec::new();
    for i in 0..m {
        for j in 0..n {
            let mut acc = 0f32;
            for t in 0..k {
                acc += x[i * k + t] * w[j * k + t];
            }
            want.push(acc.to_bits());
        }
    }
    let got = fold(
        "nn.dense(meta[relay.Constant][0], meta[relay.Constant][1], units=None)",
        &[
            f32s(&[m as i64, k as i64], &x),
            f32s(&[n as i64, k as i64], &w),
        ],
    );
    assert_eq!(got.shape, vec![3, 5]);
    assert_eq!(bits32(&got), want);
    // int8 x int8 accumulated in int32 (out_dtype), no int8 overflow.
    let a = ints(DType::INT8, &[1, 2], &[127, 127]);
    let b = ints(DType::INT8, &[1, 2], &[127, 127]);
    let d = fold(
        "nn.dense(meta[relay.Constant][0], meta[relay.Constant][1], units=1, out_dtype=\"int32\")",
        &[a, b],
    );
    assert_eq!((d.dtype, d.to_i64_vec()), (DType::INT32, vec![32258]));
}

#[test]
fn unsupported_ops_and_opaque_constants_are_not_folded() {
    let x = f32s(&[1, 1, 2, 2], &[1.0, 2.0, 3.0, 4.0]);
    // Pooling has a kernel (shared with the evaluator); `vision.roi_pool` has none.
    let pooled = fold(
        "nn.max_pool2d(meta[relay.Constant][0], pool_size=[2, 2])",
        std::slice::from_ref(&x),
    );
    assert_eq!(
        (pooled.shape.clone(), pooled.to_f64_vec()),
        (vec![1, 1, 1, 1], vec![4.0])
    );
    let rois = f32s(&[1, 5], &[0.0; 5]);
    assert!(try_fold(
        "vision.roi_pool(meta[relay.Constant][0], meta[relay.Constant][1], pooled_size=[1, 1], \
         spatial_scale=1f, layout=\"NCHW\", attrs_type_key=\"relay.attrs.ROIPoolAttrs\")",
        &[x, rois]
    )
    .is_none());
    // `trilu` folds: the upper triangle from the diagonal `k` on.
    let m = f32s(&[2, 3], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let k = TensorData::from_i64(DType::INT64, vec![], &[1]);
    let upper = fold(
        "trilu(meta[relay.Constant][0], meta[relay.Constant][1])",
        &[m.clone(), k.clone()],
    );
    assert_eq!(upper.to_f64_vec(), vec![0.0, 2.0, 3.0, 0.0, 0.0, 6.0]);
    let lower = fold(
        "trilu(meta[relay.Constant][0], meta[relay.Constant][1], upper=False, \
         attrs_type_key=\"relay.attrs.TriluAttrs\")",
        &[m, k],
    );
    assert_eq!(lower.to_f64_vec(), vec![1.0, 2.0, 0.0, 4.0, 5.0, 6.0]);
    let text = "#[version = \"0.0.5\"]\ndef @main() { add(meta[relay.Constant][0] /* ty=Tensor[(2), float32] */, 1f) }";
    let m = passlab::text::parse_module(text, "opaque").unwrap();
    let out = fold_constant(&m);
    assert!(matches!(
        out.get_function("main").unwrap().body.kind(),
        ExprKind::Call(_)
    ));
}

/// Every registered op of one or two inputs, called on a handful of constants of assorted
/// dtypes and shapes with its default attributes: folding never panics.
#[test]
fn the_evaluator_never_panics() {
    use passlab::ir::{Attrs, Constant, Expr, Function};
    let inputs = [
        f32s(&[], &[1.5]),
        f32s(&[2, 3], &data(6, 2)),
        f32s(&[0], &[]),
        ints(DType::INT32, &[3], &[0, -1, 7]),
        ints(DType::INT8, &[], &[-128]),
        ints(DType::UINT8, &[2, 1], &[0, 255]),
        ints(DType::BOOL, &[2], &[1, 0]),
        TensorData::from_f64(DType::FLOAT16, vec![2], &[65504.0, -0.0]),
        TensorData::from_f64(
            DType::FLOAT64,
            vec![1, 2, 2, 2],
            &[1.0, -1.0, 0.5, 2.0, 3.0, 4.0, 5.0, 6.0],
        ),
        // Degenerate shapes: an empty spatial axis, and a 1x1 kernel-shaped tensor.
        f32s(&[1, 2, 0, 3], &[]),
        f32s(&[2, 2, 1, 1], &[1.0, 2.0, 3.0, 4.0]),
    ];
    let consts: Vec<Expr> = inputs
        .iter()
        .map(|t| Expr::constant(Constant::from_data(t.clone())))
        .collect();
    let mut n = 0;
    for op in passlab::ir::op::all() {
        let arity = op.num_inputs;
        if !(1..=2).contains(&arity) {
            continue;
        }
        let attrs = op.make_attrs(Vec::new()).unwrap_or(Attrs::NONE);
        for a in &consts {
            for b in consts
                .iter()
                .take(if arity == 2 { consts.len() } else { 1 })
            {
                let args = if arity == 2 {
                    vec![a.clone(), b.clone()]
                } else {
                    vec![a.clone()]
                };
                let call = Expr::call(Expr::op(op), args, attrs.clone());
                let f = Expr::function(Function {
                    type_params: Vec::new(),
                    params: vec![],
                    body: call,
                    ret_type: None,
                    attrs: vec![],
                });
                let _ = passlab::passes::fold_constant::fold_expr(&f);
                n += 1;
            }
        }
    }
    assert!(n > 1000, "{n} calls tried");
}

/// Hostile attributes (overflowing shapes, huge paddings, bad axes, zero strides) are refused
/// without a panic and without trying to allocate the impossible.
#[test]
fn hostile_attributes_are_refused() {
    let x = f32s(&[2, 3], &data(6, 9));
    let x4 = f32s(&[1, 1, 3, 3], &data(9, 4));
    let w = f32s(&[1, 1, 2, 2], &data(4, 5));
    let idx = ints(DType::INT32, &[2], &[0, 1]);
    let inputs = [x, x4, w, idx];
    for body in [
        "reshape(meta[relay.Constant][0], newshape=[1099511627776, 1099511627776, -1])",
        "reshape(meta[relay.Constant][0], newshape=[-4, -2, -2])",
        "reshape(meta[relay.Constant][0], newshape=[-3, -3, -3])",
        "full(1f, shape=[1000000000, 1000000000], dtype=\"float32\")",
        "expand_dims(meta[relay.Constant][0], axis=0, num_newaxis=1000000000000)",
        "nn.pad(meta[relay.Constant][0], 0f, pad_width=[[1000000000000, 0], [0, 0]])",
        "broadcast_to(meta[relay.Constant][0], shape=[1000000, 1000000, 3])",
        "take(meta[relay.Constant][0], meta[relay.Constant][3], axis=5)",
        "take(meta[relay.Constant][0], meta[relay.Constant][3], axis=1, mode=\"fast\")",
        "split(meta[relay.Constant][0], indices_or_sections=[5, 1])",
        "split(meta[relay.Constant][0], indices_or_sections=0)",
        "transpose(meta[relay.Constant][0], axes=[0, 0])",
        "squeeze(meta[relay.Constant][0], axis=[0])",
        "sum(meta[relay.Constant][0], axis=[7])",
        "strided_slice(meta[relay.Constant][0], begin=[-100], end=[100], strides=[-3], axes=None)",
        "strided_slice(meta[relay.Constant][0], begin=[0], end=[1], strides=[0], axes=None)",
        "nn.conv2d(meta[relay.Constant][1], meta[relay.Constant][2], strides=[0, 0])",
        "nn.conv2d(meta[relay.Constant][1], meta[relay.Constant][2], padding=[1, 2, 3])",
        "nn.conv2d(meta[relay.Constant][1], meta[relay.Constant][2], groups=0)",
        "nn.dense(meta[relay.Constant][0], meta[relay.Constant][0], units=None)",
        "nn.softmax(meta[relay.Constant][0], axis=9)",
        "concatenate((meta[relay.Constant][0], meta[relay.Constant][1]))",
    ] {
        let _ = try_fold(body, &inputs);
    }
    // Out-of-range bounds are clamped: a whole reversal with a negative stride still folds.
    let s = fold(
        "strided_slice(meta[relay.Constant][0], begin=[100], end=[-100], strides=[-1], axes=None)",
        &inputs,
    );
    let rows = inputs[0].to_f64_vec();
    assert_eq!(s.to_f64_vec(), [&rows[3..], &rows[..3]].concat());
}

/// The evaluator reads and writes float32, int32 and int64 tensors straight from and to their
/// bytes, computes same-shape operands in one pass and fills `full` without a broadcast view:
/// each must give what the general paths give (a broadcast, element by element).
#[test]
fn direct_tensor_paths_match_the_general_ones() {
    let a = data(24, 7);
    let b = data(24, 8);
    let (ta, tb) = (f32s(&[2, 3, 4], &a), f32s(&[2, 3, 4], &b));
    for (op, f) in [
        ("add", (|x, y| x + y) as fn(f32, f32) -> f32),
        ("subtract", |x, y| x - y),
        ("multiply", |x, y| x * y),
        ("divide", |x, y| x / y),
        ("maximum", |x: f32, y| x.max(y)),
        ("floor_mod", |x: f32, y: f32| x - (x / y).floor() * y),
    ] {
        let same = fold(
            &format!("{op}(meta[relay.Constant][0], meta[relay.Constant][1])"),
            &[ta.clone(), tb.clone()],
        );
        let want: Vec<u32> = a.iter().zip(&b).map(|(x, y)| f(*x, *y).to_bits()).collect();
        assert_eq!(bits32(&same), want, "{op}, same shapes");
        assert_eq!(same.shape, vec![2, 3, 4]);
        // The same values through a broadcast: b's rows against a [2, 1, 4] slice of a.
        let rows: Vec<f32> = (0..2)
            .flat_map(|i| a[i * 12..i * 12 + 4].to_vec())
            .collect();
        let bc = fold(
            &format!("{op}(meta[relay.Constant][0], meta[relay.Constant][1])"),
            &[f32s(&[2, 1, 4], &rows), tb.clone()],
        );
        let want: Vec<u32> = (0..24)
            .map(|k| f(rows[(k / 12) * 4 + k % 4], b[k]).to_bits())
            .collect();
        assert_eq!(bits32(&bc), want, "{op}, broadcast");
    }
    // int32 and int64 tensors round-trip exactly, int64 beyond the 32-bit range.
    let big = [1i64 << 40, -(1 << 35), 7, -1];
    let t = fold(
        "add(meta[relay.Constant][0], meta[relay.Constant][1])",
        &[
            ints(DType::INT64, &[4], &big),
            ints(DType::INT64, &[4], &[1, 2, 3, 4]),
        ],
    );
    assert_eq!(t.to_i64_vec(), vec![(1 << 40) + 1, -(1 << 35) + 2, 10, 3]);
    let t = fold(
        "multiply(meta[relay.Constant][0], meta[relay.Constant][1])",
        &[
            ints(DType::INT32, &[3], &[65536, -3, 2147483647]),
            ints(DType::INT32, &[3], &[65536, 5, 2]),
        ],
    );
    assert_eq!(t.to_i64_vec(), vec![0, -15, -2]);
    // full: every element the cast fill value, in the dtype asked for.
    let t = fold("full(2.5f, shape=[2, 3], dtype=\"float32\")", &[]);
    assert_eq!(
        (t.shape.clone(), t.to_f64_vec()),
        (vec![2, 3], vec![2.5; 6])
    );
    let t = fold("full(-7, shape=[4], dtype=\"int64\")", &[]);
    assert_eq!(t.to_i64_vec(), vec![-7; 4]);
    let t = fold("full(3.9f, shape=[2], dtype=\"int32\")", &[]);
    assert_eq!(t.to_i64_vec(), vec![3, 3]);
}

/// Weight-sized folds (FoldScaleAxis's `multiply(weights, scale)`, large enough to be split
/// across threads): every float32 arithmetic op gives the naive loop's bits, with the
/// constants held as `f32`s (computed from their data in place) or as plain bytes (read into
/// values first), in either operand order, for a per-output-channel scale, a per-input-channel
/// one and a same-shape operand.
#[test]
fn weight_sized_folds_give_the_same_bits_however_the_data_is_held() {
    let wshape = [512usize, 64, 3, 3];
    let n: usize = wshape.iter().product();
    let w = data(n, 11);
    let as_f32 = |shape: &[usize], v: &[f32]| TensorData {
        dtype: DType::FLOAT32,
        shape: shape.iter().map(|&d| d as i64).collect(),
        bytes: v.to_vec().into(),
    };
    let as_bytes =
        |shape: &[usize], v: &[f32]| f32s(&shape.iter().map(|&d| d as i64).collect::<Vec<_>>(), v);
    // (other operand's shape, index of a weight element into it)
    type Other = (&'static [usize], fn(usize) -> usize);
    type BinOp = (&'static str, fn(f32, f32) -> f32);
    let others: [Other; 3] = [
        (&[512, 1, 1, 1], |k| k / (64 * 9)),
        (&[1, 64, 1, 1], |k| (k / 9) % 64),
        (&[512, 64, 3, 3], |k| k),
    ];
    let ops: [BinOp; 6] = [
        ("add", |x, y| x + y),
        ("subtract", |x, y| x - y),
        ("multiply", |x, y| x * y),
        ("divide", |x, y| x / y),
        ("minimum", |x, y| x.min(y)),
        ("floor_mod", |x, y| x - (x / y).floor() * y),
    ];
    for (shape, at) in others {
        let s = data(shape.iter().product(), 5);
        for (op, f) in ops {
            let want: Vec<u32> = (0..n).map(|k| f(w[k], s[at(k)]).to_bits()).collect();
            let want_swapped: Vec<u32> = (0..n).map(|k| f(s[at(k)], w[k]).to_bits()).collect();
            for held in [as_f32, as_bytes] {
                let (tw, ts) = (held(&wshape, &w), held(shape, &s));
                let body = format!("{op}(meta[relay.Constant][0], meta[relay.Constant][1])");
                let out = fold(&body, &[tw.clone(), ts.clone()]);
                assert_eq!(out.shape, vec![512, 64, 3, 3], "{op} by {shape:?}");
                assert!(bits32(&out) == want, "{op} by {shape:?}");
                let out = fold(&body, &[ts, tw]);
                assert!(bits32(&out) == want_swapped, "{shape:?} {op} weights");
            }
        }
    }
}
