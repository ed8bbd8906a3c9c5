#!/usr/bin/env python3
"""Writes cases.json: op-level numeric cases ported from TVM v0.18's
tests/python/relay/test_op_level{1,2,3,4,5,10}.py, each a Relay call on parameters
%a0, %a1, ... with small seeded inputs and the output NumPy computes (the references are
those of the TVM tests: NumPy expressions, and NumPy versions of tvm.topi.testing's
conv2d_nchw_python, pool2d_ref, lrn_python, resize2d_python, batch_matmul).

Run with NumPy installed (`python3 make_cases.py`); tests/eval_ops.rs reads cases.json and
needs neither Python nor NumPy. Inputs stay small (at most a few hundred elements) so the
committed file is small.
"""
import json
import math
import os

import numpy as np

rng = np.random.default_rng(20241018)
CASES = []


def t(a):
    a = np.asarray(a)
    dt = {"float32": "float32", "float64": "float64", "int32": "int32", "int64": "int64",
          "bool": "bool", "int8": "int8", "uint8": "uint8"}[str(a.dtype)]
    if a.dtype == np.bool_:
        data = [int(v) for v in a.flatten()]
    elif a.dtype == np.float32:
        # The shortest text that reads back as the same float32 (about half the bytes).
        data = [float(str(v)) for v in a.flatten()]
    elif a.dtype.kind == "f":
        data = [float(v) for v in a.flatten()]
    else:
        data = [int(v) for v in a.flatten()]
    return {"dtype": dt, "shape": list(a.shape), "data": data}


def case(name, body, inputs, expected, rtol=1e-5, atol=1e-6, fold=True):
    exp = [t(e) for e in expected] if isinstance(expected, tuple) else t(expected)
    CASES.append({"name": name, "body": body, "inputs": [t(i) for i in inputs],
                  "expected": exp, "tuple": isinstance(expected, tuple),
                  "rtol": rtol, "atol": atol, "fold": fold})


def f32(*shape, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, size=shape).astype("float32")


# ---- level 1: unary and binary elementwise, softmax, concatenate, dense, bias_add, batch_norm
x = f32(3, 4)
for op, ref in [("log", np.log), ("exp", np.exp), ("sqrt", np.sqrt), ("rsqrt", lambda v: 1 / np.sqrt(v)),
                ("sigmoid", lambda v: 1 / (1 + np.exp(-v))), ("tanh", np.tanh),
                ("nn.relu", lambda v: np.maximum(v, 0)), ("negative", np.negative),
                ("abs", np.abs), ("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
                ("round", np.round), ("sign", np.sign), ("erf", lambda v: np.vectorize(math.erf)(v).astype("float32")),
                ("cos", np.cos), ("sin", np.sin), ("atan", np.arctan)]:
    v = np.abs(x) + 0.1 if op in ("log", "sqrt", "rsqrt") else x * 3
    case(f"level1_unary_{op}", f"{op}(%a0)", [v], ref(v).astype("float32"))
y = f32(4)
for op, ref in [("add", np.add), ("subtract", np.subtract), ("multiply", np.multiply),
                ("divide", np.divide), ("maximum", np.maximum), ("minimum", np.minimum),
                ("power", lambda a, b: np.power(np.abs(a) + 0.5, b))]:
    a = np.abs(x) + 0.5 if op == "power" else x
    b = y + 2.0 if op == "divide" else y
    case(f"level1_binary_{op}_broadcast", f"{op}(%a0, %a1)", [a, b], (ref(x, b) if op == "power" else ref(a, b)).astype("float32"))
a, b = f32(5, 1, 3), f32(1, 4, 1)
case("level1_binary_add_both_broadcast", "add(%a0, %a1)", [a, b], a + b)
ia, ib = rng.integers(-20, 20, size=(6,)).astype("int32"), np.array([3, -3, 4, -4, 7, 5], dtype="int32")
case("level1_floor_divide_int32", "floor_divide(%a0, %a1)", [ia, ib], np.floor_divide(ia, ib))
case("level1_floor_mod_int32", "floor_mod(%a0, %a1)", [ia, ib], np.mod(ia, ib))
case("level1_divide_int32_truncates", "divide(%a0, %a1)", [ia, ib], np.trunc(ia / ib).astype("int32"))
s = f32(2, 3, 5)
e = np.exp(s - s.max(axis=1, keepdims=True))
case("level1_softmax_axis1", "nn.softmax(%a0, axis=1)", [s], e / e.sum(axis=1, keepdims=True))
e = s - s.max(axis=-1, keepdims=True)
case("level1_log_softmax", "nn.log_softmax(%a0)", [s], e - np.log(np.exp(e).sum(axis=-1, keepdims=True)))
c1, c2 = f32(2, 3), f32(2, 2)
case("level1_concatenate_axis1", "concatenate((%a0, %a1), axis=1)", [c1, c2], np.concatenate([c1, c2], axis=1))
d, w, bias = f32(3, 8), f32(5, 8), f32(5)
case("level1_dense", "nn.dense(%a0, %a1, units=5)", [d, w], d @ w.T)
case("level1_bias_add", "nn.bias_add(nn.dense(%a0, %a1, units=5), %a2)", [d, w, bias], d @ w.T + bias)
bx = f32(2, 3, 4, 4)
g, be, mu, var = f32(3), f32(3), f32(3), np.abs(f32(3)) + 0.5
ref = (bx - mu[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) * g[None, :, None, None] + be[None, :, None, None]
case("level1_batch_norm", "nn.batch_norm(%a0, %a1, %a2, %a3, %a4, epsilon=1e-05f)", [bx, g, be, mu, var], (ref.astype("float32"), mu, var), rtol=1e-5, atol=1e-5)
# Stateful: FoldConstant leaves it (as TVM's does); the evaluator runs it as at inference.
case("level1_dropout_is_identity", "nn.dropout(%a0, rate=0.5f).0", [x], x, fold=False)
ln_x, ln_g, ln_b = f32(2, 6), f32(6), f32(6)
m_, v_ = ln_x.mean(-1, keepdims=True), ln_x.var(-1, keepdims=True)
case("level1_layer_norm", "nn.layer_norm(%a0, %a1, %a2)", [ln_x, ln_g, ln_b], (ln_x - m_) / np.sqrt(v_ + 1e-5) * ln_g + ln_b, atol=1e-5)
case("level1_leaky_relu", "nn.leaky_relu(%a0, alpha=0.1f)", [x], np.where(x > 0, x, x * np.float32(0.1)))
pr_x, pr_a = f32(1, 3, 2, 2), f32(3)
case("level2_prelu", "nn.prelu(%a0, %a1)", [pr_x, pr_a], np.where(pr_x > 0, pr_x, pr_x * pr_a[None, :, None, None]))


# ---- level 2: conv2d, pooling, pad, lrn, batch_flatten
def conv2d_nchw(x, w, stride, pad, dil, groups):
    n, c, h, wd = x.shape
    o, ci, kh, kw = w.shape
    pt, pl, pb, pr = pad
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    ekh, ekw = (kh - 1) * dil[0] + 1, (kw - 1) * dil[1] + 1
    oh = (h + pt + pb - ekh) // stride[0] + 1
    ow = (wd + pl + pr - ekw) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), dtype="float64")
    opg = o // groups
    for oc in range(o):
        gi = oc // opg
        for y in range(oh):
            for xx in range(ow):
                patch = xp[:, gi * ci:(gi + 1) * ci,
                           y * stride[0]: y * stride[0] + ekh: dil[0],
                           xx * stride[1]: xx * stride[1] + ekw: dil[1]]
                out[:, oc, y, xx] = (patch * w[oc][None]).sum(axis=(1, 2, 3))
    return out.astype("float32")


for (xs, ws, stride, pad, dil, groups) in [((1, 3, 8, 8), (4, 3, 3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1),
                                           ((1, 4, 7, 7), (4, 1, 3, 3), (2, 2), (1, 1, 1, 1), (1, 1), 4),
                                           ((2, 2, 6, 6), (3, 2, 2, 2), (1, 1), (0, 0, 0, 0), (2, 2), 1),
                                           ((1, 4, 5, 6), (6, 2, 3, 1), (1, 2), (2, 0, 1, 0), (1, 1), 2),
                                           ((1, 8, 4, 4), (5, 8, 1, 1), (1, 1), (0, 0, 0, 0), (1, 1), 1)]:
    cx, cw = f32(*xs), f32(*ws)
    body = (f"nn.conv2d(%a0, %a1, strides=[{stride[0]}, {stride[1]}], padding=[{pad[0]}, {pad[1]}, {pad[2]}, {pad[3]}], "
            f"dilation=[{dil[0]}, {dil[1]}], groups={groups}, channels={ws[0]}, kernel_size=[{ws[2]}, {ws[3]}])")
    case(f"level2_conv2d_{'x'.join(map(str, xs))}_{'x'.join(map(str, ws))}_g{groups}", body, [cx, cw], conv2d_nchw(cx, cw, stride, pad, dil, groups), atol=1e-5)


def pool2d(x, kind, k, s, pad, ceil, include_pad):
    n, c, h, w = x.shape
    pt, pl, pb, pr = pad

    def out_len(size, kk, st, p0, p1):
        span = size + p0 + p1 - kk
        o = (span + (st - 1 if ceil else 0)) // st + 1
        if ceil and (o - 1) * st >= size + p0:
            o -= 1
        return o
    oh, ow = out_len(h, k[0], s[0], pt, pb), out_len(w, k[1], s[1], pl, pr)
    out = np.zeros((n, c, oh, ow), dtype="float32")
    for y in range(oh):
        for xx in range(ow):
            y0, x0 = y * s[0] - pt, xx * s[1] - pl
            y1, x1 = y0 + k[0], x0 + k[1]
            cy0, cx0, cy1, cx1 = max(y0, 0), max(x0, 0), min(y1, h), min(x1, w)
            win = x[:, :, cy0:cy1, cx0:cx1]
            if kind == "max":
                out[:, :, y, xx] = win.max(axis=(2, 3))
            else:
                if include_pad:
                    cnt = (min(y1, h + pb) - y0) * (min(x1, w + pr) - x0)
                else:
                    cnt = (cy1 - cy0) * (cx1 - cx0)
                out[:, :, y, xx] = win.sum(axis=(2, 3)) / cnt
    return out


px = f32(1, 2, 7, 7)
for kind, k, s, pad, ceil, inc in [("max", (3, 3), (2, 2), (1, 1, 1, 1), False, False),
                                   ("max", (2, 2), (2, 2), (0, 0, 0, 0), True, False),
                                   ("avg", (3, 3), (2, 2), (1, 1, 1, 1), False, False),
                                   ("avg", (3, 3), (2, 2), (1, 1, 1, 1), False, True),
                                   ("avg", (2, 2), (2, 2), (0, 0, 1, 1), True, False)]:
    extra = f", count_include_pad={'True' if inc else 'False'}" if kind == "avg" else ""
    body = (f"nn.{kind}_pool2d(%a0, pool_size=[{k[0]}, {k[1]}], strides=[{s[0]}, {s[1]}], "
            f"padding=[{pad[0]}, {pad[1]}, {pad[2]}, {pad[3]}], ceil_mode={'True' if ceil else 'False'}{extra})")
    case(f"level2_{kind}_pool2d_k{k[0]}_s{s[0]}_p{pad[2]}_ceil{int(ceil)}_inc{int(inc)}", body, [px], pool2d(px, kind, k, s, pad, ceil, inc), atol=1e-6)
case("level2_global_avg_pool2d", "nn.global_avg_pool2d(%a0)", [px], px.mean(axis=(2, 3), keepdims=True), atol=1e-6)
case("level2_global_max_pool2d", "nn.global_max_pool2d(%a0)", [px], px.max(axis=(2, 3), keepdims=True))
ad = np.zeros((1, 2, 3, 2), dtype="float32")
for i in range(3):
    for j in range(2):
        ys, ye = (i * 7) // 3, -(-((i + 1) * 7) // 3)
        xs_, xe = (j * 7) // 2, -(-((j + 1) * 7) // 2)
        ad[:, :, i, j] = px[:, :, ys:ye, xs_:xe].mean(axis=(2, 3))
case("level2_adaptive_avg_pool2d", "nn.adaptive_avg_pool2d(%a0, output_size=[3, 2])", [px], ad, atol=1e-6)
case("level2_pad_constant", "nn.pad(%a0, 0.5f, pad_width=[[0, 0], [1, 2], [2, 0], [0, 1]])", [bx],
     np.pad(bx, ((0, 0), (1, 2), (2, 0), (0, 1)), constant_values=0.5))
lx = f32(1, 6, 2, 2)
size, alpha, beta, lb = 3, 1e-4, 0.75, 2.0
sq = lx ** 2
ssum = np.zeros_like(lx)
for ch in range(6):
    lo, hi = max(0, ch - size // 2), min(6, ch + size // 2 + 1)
    ssum[:, ch] = sq[:, lo:hi].sum(axis=1)
case("level2_lrn", "nn.lrn(%a0, size=3, axis=1, bias=2f, alpha=0.0001f, beta=0.75f)", [lx], lx / (lb + alpha * ssum / size) ** beta)
case("level2_batch_flatten", "nn.batch_flatten(%a0)", [bx], bx.reshape(2, -1))

# ---- level 3: shape and indexing ops
r = f32(2, 3, 4)
for newshape, ref in [("[6, 4]", (6, 4)), ("[0, -1]", (2, 12)), ("[-1, 4, 1]", (6, 4, 1)), ("[-3, 4]", (6, 4)),
                      ("[2, -4, 3, 1, 4]", (2, 3, 1, 4)), ("[-2]", (2, 3, 4))]:
    case(f"level3_reshape_{newshape}", f"reshape(%a0, newshape={newshape})", [r], r.reshape(ref))
case("level3_transpose", "transpose(%a0, axes=[2, 0, 1])", [r], r.transpose(2, 0, 1))
case("level3_transpose_default", "transpose(%a0, axes=None)", [r], r.transpose())
sq_in = f32(1, 3, 1, 2)
case("level3_squeeze", "squeeze(%a0, axis=[0, 2])", [sq_in], sq_in.reshape(3, 2))
case("level3_expand_dims", "expand_dims(%a0, axis=1, num_newaxis=2)", [x], x.reshape(3, 1, 1, 4))
ti = np.array([[0, 2], [1, 0]], dtype="int32")
case("level3_take_axis1", "take(%a0, %a1, axis=1)", [r, ti], np.take(r, ti, axis=1))
case("level3_take_flat", "take(%a0, %a1)", [r, ti], np.take(r, ti))
wi = np.array([4, -1, 7], dtype="int32")
case("level3_take_clip", "take(%a0, %a1, axis=2, mode=\"clip\")", [r, wi], np.take(r, wi, axis=2, mode="clip"))
case("level3_take_wrap", "take(%a0, %a1, axis=2, mode=\"wrap\")", [r, wi], np.take(r, wi, axis=2, mode="wrap"))
gi = rng.integers(0, 3, size=(2, 2, 4)).astype("int64")
case("level3_gather", "gather(%a0, %a1, axis=1)", [r, gi], np.take_along_axis(r, gi, axis=1))
case("level3_tile", "tile(%a0, reps=[2, 1, 3])", [x], np.tile(x, (2, 1, 3)))
case("level3_repeat", "repeat(%a0, repeats=2, axis=1)", [x], np.repeat(x, 2, axis=1))
case("level3_reverse", "reverse(%a0, axis=1)", [x], np.flip(x, axis=1))
case("level3_split_sections", "split(%a0, indices_or_sections=2, axis=1)", [x], tuple(np.split(x, 2, axis=1)))
case("level3_split_indices", "split(%a0, indices_or_sections=[1, 3], axis=1)", [x], tuple(np.split(x, [1, 3], axis=1)))
case("level3_stack", "stack((%a0, %a1), axis=1)", [x, x * 2], np.stack([x, x * 2], axis=1))
cond = rng.integers(0, 2, size=(3, 4)).astype("bool")
case("level3_where", "where(%a0, %a1, %a2)", [cond, x, y], np.where(cond, x, y))
case("level3_clip", "clip(%a0, a_min=-0.3f, a_max=0.4f)", [x], np.clip(x, -0.3, 0.4))
case("level3_cast_to_int32", "cast(%a0, dtype=\"int32\")", [x * 10], np.trunc(x * 10).astype("int32"))
case("level3_full_like", "full_like(%a0, %a1)", [x, np.array(2.5, dtype="float32")], np.full_like(x, 2.5))
case("level3_zeros_like", "zeros_like(%a0)", [x], np.zeros_like(x))

# ---- level 4: reductions, comparisons, strided_slice
red = f32(2, 3, 4)
for op, ref in [("sum", np.sum), ("mean", np.mean), ("max", np.max), ("min", np.min), ("prod", np.prod)]:
    case(f"level4_{op}_axis1", f"{op}(%a0, axis=[1])", [red], ref(red, axis=1), atol=1e-6)
    case(f"level4_{op}_keepdims", f"{op}(%a0, axis=[0, 2], keepdims=True)", [red], ref(red, axis=(0, 2), keepdims=True), atol=1e-6)
    case(f"level4_{op}_exclude", f"{op}(%a0, axis=[1], exclude=True)", [red], ref(red, axis=(0, 2)), atol=1e-6)
case("level4_argmax", "argmax(%a0, axis=[2])", [red], np.argmax(red, axis=2).astype("int32"))
case("level4_argmin", "argmin(%a0, axis=[1], keepdims=True)", [red], np.argmin(red, axis=1)[:, None, :].astype("int32"))
bo = red > 0
case("level4_all", "all(%a0, axis=[2])", [bo], np.all(bo, axis=2))
case("level4_any", "any(%a0, axis=[1])", [bo], np.any(bo, axis=1))
for op, ref in [("greater", np.greater), ("less_equal", np.less_equal), ("equal", np.equal), ("not_equal", np.not_equal)]:
    case(f"level4_{op}", f"{op}(%a0, %a1)", [x, np.round(y, 1)], ref(x, np.round(y, 1)))
ss = f32(3, 4, 5)
for begin, end, strides, ref in [([0, 1], [2, 3], None, ss[0:2, 1:3]),
                                 ([1, 0, 4], [3, 4, 0], [1, 2, -2], ss[1:3, 0:4:2, 4:0:-2]),
                                 ([-1, -3], [-4, -1], [-1, 1], ss[-1:-4:-1, -3:-1]),
                                 ([0], [100], [2], ss[0:100:2]),
                                 ([1, 1, 1], [2, 3, 4], [1, 1, 1], ss[1:2, 1:3, 1:4])]:
    st = f", strides={strides}" if strides else ", strides=None"
    case(f"level4_strided_slice_{begin}_{end}_{strides}", f"strided_slice(%a0, begin={begin}, end={end}{st}, axes=None)", [ss], ref)
case("level4_strided_slice_axes", "strided_slice(%a0, begin=[1], end=[4], strides=[2], axes=[2])", [ss], ss[:, :, 1:4:2])


# ---- level 5: resize2d
def resize_nearest_asym(x, oh, ow):
    n, c, h, w = x.shape
    ys = np.minimum(np.floor(np.arange(oh) * h / oh).astype(int), h - 1)
    xs = np.minimum(np.floor(np.arange(ow) * w / ow).astype(int), w - 1)
    return x[:, :, ys][:, :, :, xs]


def resize_linear(x, oh, ow, mode):
    n, c, h, w = x.shape
    out = np.zeros((n, c, oh, ow), dtype="float64")
    for i in range(oh):
        for j in range(ow):
            if mode == "align_corners":
                sy = i * (h - 1) / (oh - 1) if oh > 1 else 0.0
                sx = j * (w - 1) / (ow - 1) if ow > 1 else 0.0
            else:
                sy, sx = (i + 0.5) * h / oh - 0.5, (j + 0.5) * w / ow - 0.5
            y0, x0 = math.floor(sy), math.floor(sx)
            ty, tx = sy - y0, sx - x0
            cy = lambda v: min(max(v, 0), h - 1)
            cx = lambda v: min(max(v, 0), w - 1)
            p = lambda yy, xx: x[:, :, cy(yy), cx(xx)].astype("float64")
            top = p(y0, x0) * (1 - tx) + p(y0, x0 + 1) * tx
            bot = p(y0 + 1, x0) * (1 - tx) + p(y0 + 1, x0 + 1) * tx
            out[:, :, i, j] = top * (1 - ty) + bot * ty
    return out.astype("float32")


rx = f32(1, 2, 3, 4)
case("level5_resize2d_nearest_asymmetric", "image.resize2d(%a0, size=[6, 8], method=\"nearest_neighbor\", coordinate_transformation_mode=\"asymmetric\", rounding_method=\"floor\")", [rx], resize_nearest_asym(rx, 6, 8))
case("level5_resize2d_linear_half_pixel", "image.resize2d(%a0, size=[5, 7], method=\"linear\", coordinate_transformation_mode=\"half_pixel\")", [rx], resize_linear(rx, 5, 7, "half_pixel"), atol=1e-6)
case("level5_resize2d_linear_align_corners", "image.resize2d(%a0, size=[5, 7], method=\"linear\", coordinate_transformation_mode=\"align_corners\")", [rx], resize_linear(rx, 5, 7, "align_corners"), atol=1e-6)
inx, ing, inb = f32(2, 3, 2, 2), f32(3), f32(3)
m_, v_ = inx.mean(axis=(2, 3), keepdims=True), inx.var(axis=(2, 3), keepdims=True)
case("level1_instance_norm", "nn.instance_norm(%a0, %a1, %a2)", [inx, ing, inb], (inx - m_) / np.sqrt(v_ + 1e-5) * ing[None, :, None, None] + inb[None, :, None, None], atol=1e-5)

# ---- level 10: batch_matmul
bm_a, bm_b = f32(2, 3, 4), f32(2, 5, 4)
case("level10_batch_matmul", "nn.batch_matmul(%a0, %a1, transpose_b=True)", [bm_a, bm_b], np.matmul(bm_a, bm_b.transpose(0, 2, 1)), atol=1e-6)
bm_c = f32(1, 4, 5)
case("level10_batch_matmul_broadcast_nt", "nn.batch_matmul(%a0, %a1, transpose_b=False)", [bm_a, bm_c], np.matmul(bm_a, bm_c), atol=1e-6)
case("level1_matmul", "nn.matmul(%a0, %a1, units=None)", [d, w.T.copy()], d @ w.T, atol=1e-6)

# ---- ops TVM's FoldConstant folds (test_op_level{2,3,6,10}.py and NumPy semantics)
sx = rng.integers(-5, 5, size=(3, 6)).astype("float32")
case("level6_argsort_axis1", "argsort(%a0, axis=1, is_ascend=True, dtype=\"int32\")", [sx], np.argsort(sx, axis=1, kind="stable").astype("int32"))
case("level6_argsort_descending_int64", "argsort(%a0, axis=0, is_ascend=False, dtype=\"int64\")", [sx],
     np.argsort(-sx, axis=0, kind="stable").astype("int64"))
case("level6_sort", "sort(%a0, axis=-1, is_ascend=True)", [sx], np.sort(sx, axis=-1))
perm = rng.permutation(7).astype("int32")
case("level3_invert_permutation", "invert_permutation(%a0)", [perm], np.argsort(perm).astype("int32"))
cs, cl = f32(2, 3, 4), f32(3, 1)
case("level10_collapse_sum_like", "collapse_sum_like(%a0, %a1)", [cs, cl], cs.sum(axis=(0, 2))[:, None], atol=1e-5)
gx, gg, gb = f32(2, 6, 3, 3), f32(6), f32(6)
xg = gx.reshape(2, 3, 2, 3, 3)
gm, gv = xg.mean(axis=(2, 3, 4), keepdims=True), xg.var(axis=(2, 3, 4), keepdims=True)
gref = ((xg - gm) / np.sqrt(gv + 1e-5)).reshape(gx.shape) * gg[None, :, None, None] + gb[None, :, None, None]
case("level1_group_norm", "nn.group_norm(%a0, %a1, %a2, num_groups=3)", [gx, gg, gb], gref, atol=1e-5)
lx = f32(2, 3, 4)
case("level2_l2_normalize", "nn.l2_normalize(%a0, eps=0.001f, axis=[1])", [lx],
     lx / np.sqrt(np.maximum((lx * lx).sum(axis=1, keepdims=True), 0.001)), atol=1e-6)
mx = f32(2, 3, 4)
case("level2_mirror_pad_reflect", "nn.mirror_pad(%a0, mode=\"REFLECT\", pad_width=[[0, 0], [1, 2], [3, 1]])", [mx],
     np.pad(mx, [(0, 0), (1, 2), (3, 1)], mode="reflect"))
case("level2_mirror_pad_symmetric", "nn.mirror_pad(%a0, mode=\"SYMMETRIC\", pad_width=[[1, 1], [3, 0], [0, 4]])", [mx],
     np.pad(mx, [(1, 1), (3, 0), (0, 4)], mode="symmetric"))


def adaptive_ref(x, out, kind):
    # topi.testing.adaptive_pool: window [floor(i * n / o), ceil((i + 1) * n / o)) per axis.
    sp = x.shape[2:]
    res = np.zeros(x.shape[:2] + tuple(out), dtype=x.dtype)
    for idx in np.ndindex(*out):
        sl = tuple(slice(i * n // o, -((-(i + 1) * n) // o)) for i, n, o in zip(idx, sp, out))
        win = x[(slice(None), slice(None)) + sl]
        ax = tuple(range(2, 2 + len(sp)))
        res[(slice(None), slice(None)) + idx] = win.max(axis=ax) if kind == "max" else win.mean(axis=ax)
    return res


a1 = f32(1, 3, 10)
case("level10_adaptive_avg_pool1d", "nn.adaptive_avg_pool1d(%a0, output_size=[4])", [a1], adaptive_ref(a1, [4], "avg"), atol=1e-6)
case("level10_adaptive_max_pool1d", "nn.adaptive_max_pool1d(%a0, output_size=[3])", [a1], adaptive_ref(a1, [3], "max"))
a3 = f32(1, 2, 5, 6, 7)
case("level10_adaptive_avg_pool3d", "nn.adaptive_avg_pool3d(%a0, output_size=[2, 4, 3])", [a3], adaptive_ref(a3, [2, 4, 3], "avg"), atol=1e-6)
case("level10_adaptive_max_pool3d", "nn.adaptive_max_pool3d(%a0, output_size=[3])", [a3], adaptive_ref(a3, [3, 3, 3], "max"))
rf = f32(2, 3)
case("level3_reinterpret_float32_int32", "reinterpret(%a0, dtype=\"int32\")", [rf], rf.view("int32"))
fx = rng.integers(-1000, 1000, size=(8,)).astype("int32")


def q_multiply_shift(x, m, shift):
    left, right = max(shift, 0), max(-shift, 0) + 31
    return np.array([((int(v) << left) * m + (1 << (right - 1))) >> right for v in x], dtype="int32")


case("level3_fixed_point_multiply", "fixed_point_multiply(%a0, multiplier=1395864371, shift=-3)", [fx], q_multiply_shift(fx, 1395864371, -3))
case("level3_fixed_point_multiply_lshift", "fixed_point_multiply(%a0, multiplier=1288490189, shift=2)", [fx], q_multiply_shift(fx, 1288490189, 2))
lt = f32(1, 8, 2, 3)
lt_c4 = lt.reshape(1, 2, 4, 2, 3).transpose(0, 1, 3, 4, 2)
case("level3_layout_transform_nchw_to_nchw4c", "layout_transform(%a0, src_layout=\"NCHW\", dst_layout=\"NCHW4c\")", [lt], lt_c4)
case("level3_layout_transform_nchw4c_to_nhwc", "layout_transform(%a0, src_layout=\"NCHW4c\", dst_layout=\"NHWC\")", [lt_c4], lt.transpose(0, 2, 3, 1))
case("level3_layout_transform_nchw4c_to_nchw2c", "layout_transform(%a0, src_layout=\"NCHW4c\", dst_layout=\"NCHW2c\")", [lt_c4],
     lt.reshape(1, 4, 2, 2, 3).transpose(0, 1, 3, 4, 2))
kw = f32(4, 6, 3, 3)
kw_blk = kw.reshape(2, 2, 3, 2, 3, 3).transpose(0, 2, 4, 5, 3, 1)  # OIHW -> OIHW2i2o
case("level3_layout_transform_oihw_to_oihw2i2o", "layout_transform(%a0, src_layout=\"OIHW\", dst_layout=\"OIHW2i2o\")", [kw], kw_blk)
nx, nw = f32(1, 6, 5, 5), f32(4, 6, 3, 3)
ny = conv2d_nchw(nx, nw, (1, 1), (1, 1, 1, 1), (1, 1), 1)
case("level2_conv2d_nhwc_hwio", "nn.conv2d(%a0, %a1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], data_layout=\"NHWC\", kernel_layout=\"HWIO\")",
     [nx.transpose(0, 2, 3, 1).copy(), nw.transpose(2, 3, 1, 0).copy()], ny.transpose(0, 2, 3, 1), atol=1e-5)
nx_c = nx.reshape(1, 3, 2, 5, 5).transpose(0, 1, 3, 4, 2)
nw_c = nw.reshape(2, 2, 3, 2, 3, 3).transpose(0, 2, 4, 5, 3, 1)
ny_c = ny.reshape(1, 2, 2, 5, 5).transpose(0, 1, 3, 4, 2)
case("level2_contrib_conv2d_nchwc", "nn.contrib_conv2d_NCHWc(%a0, %a1, padding=[1, 1, 1, 1], channels=4, kernel_size=[3, 3], "
     "data_layout=\"NCHW2c\", kernel_layout=\"OIHW2i2o\", out_layout=\"NCHW2c\")", [nx_c, nw_c], ny_c, atol=1e-5)
case("annotation_stop_fusion_identity", "annotation.stop_fusion(%a0)", [lt], lt)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases.json"), "w") as f:
    json.dump({"source": "TVM v0.18 tests/python/relay/test_op_level*.py, references computed by NumPy "
               + np.__version__, "cases": CASES}, f, separators=(",", ":"))
print(f"{len(CASES)} cases")
