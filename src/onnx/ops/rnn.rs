//! Recurrent layers, unrolled over the sequence as TVM v0.18 unrolls them (`RNN`, `LSTM` and
//! `GRU` in onnx.py with `rnn_cell`, `lstm_cell` and `gru_cell` of `frontend/common.py`): the
//! input is split into its time steps, each step is a few dense layers and gates, and the
//! outputs are stacked. Weights come in ONNX's gate order and are reordered once per direction
//! (TVM rebuilds the concatenated LSTM weight, and GRU's split hidden weight, at every step;
//! with constant weights each folds to the same constant, so the results are equal).
//!
//! `sequence_lens` masks each step as ONNX defines it: at step `t`, a batch entry whose length
//! is `t` or less keeps its hidden state (and an LSTM's cell state) and outputs zeros
//! (`where(less(t, lens), ...)`; the reverse direction, walking from the last step, starts each
//! entry at its own last step). TVM v0.18 ignores `sequence_lens` for all three.
//!
//! Not converted: activations other than Sigmoid, Tanh, Relu, LeakyRelu, HardSigmoid and Elu.

use super::{input, opt_input, In};
use crate::ir::{AttrValue, Expr};
use crate::onnx::import::{CResult, ConvertError, Cx};

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Rnn,
    Lstm,
    Gru,
}

pub(super) fn convert(cx: &mut Cx, op: &str, inputs: &In) -> CResult<Vec<Expr>> {
    let kind = match op {
        "RNN" => Kind::Rnn,
        "LSTM" => Kind::Lstm,
        "GRU" => Kind::Gru,
        _ => return Err(ConvertError::Unsupported),
    };
    recurrent(cx, kind, inputs)
}

/// One activation by its ONNX name, with its alpha/beta when given.
#[derive(Clone)]
struct Act {
    name: String,
    alpha: Option<f64>,
    beta: Option<f64>,
}

impl Act {
    fn named(name: &str) -> Act {
        Act {
            name: name.into(),
            alpha: None,
            beta: None,
        }
    }

    fn apply(&self, cx: &Cx, x: Expr) -> CResult<Expr> {
        match self.name.as_str() {
            "Sigmoid" => cx.unary("sigmoid", x),
            "Tanh" => cx.unary("tanh", x),
            "Relu" => cx.unary("nn.relu", x),
            "LeakyRelu" => cx.op(
                "nn.leaky_relu",
                vec![x],
                &[("alpha", AttrValue::Float(self.alpha.unwrap_or(0.01)))],
            ),
            "HardSigmoid" => {
                let m = cx.binary("multiply", x, super::f32c(cx, self.alpha.unwrap_or(0.2)))?;
                let a = cx.binary("add", m, super::f32c(cx, self.beta.unwrap_or(0.5)))?;
                super::clip(cx, a, 0.0, 1.0)
            }
            "Elu" => {
                let alpha = self.alpha.unwrap_or(1.0);
                let e = cx.unary("exp", x.clone())?;
                let d = cx.binary("subtract", super::f32c(cx, 1.0), e)?;
                let r = cx.unary("nn.relu", d)?;
                let l = cx.binary("multiply", super::f32c(cx, -alpha), r)?;
                cx.binary("add", l, cx.unary("nn.relu", x)?)
            }
            other => Err(ConvertError::Invalid(format!(
                "activation `{other}` in a recurrent layer is not supported"
            ))),
        }
    }
}

/// The activations: `per_dir` a direction, from the `activations` attribute (taking an alpha
/// or beta from the lists for those that need one, in order, as TVM does) or the defaults.
fn activations(cx: &Cx, kind: Kind, dirs: usize) -> CResult<Vec<Act>> {
    let (per_dir, defaults): (usize, &[&str]) = match kind {
        Kind::Rnn => (1, &["Tanh"]),
        Kind::Lstm => (3, &["Sigmoid", "Tanh", "Tanh"]),
        Kind::Gru => (2, &["Sigmoid", "Tanh"]),
    };
    let Some(names) = cx.strings("activations")? else {
        return Ok((0..dirs)
            .flat_map(|_| defaults.iter().map(|n| Act::named(n)))
            .collect());
    };
    if names.len() != per_dir * dirs {
        return Err(ConvertError::Invalid(format!(
            "{} activations given, {} expected ({per_dir} a direction)",
            names.len(),
            per_dir * dirs
        )));
    }
    let alphas = cx.floats("activation_alpha")?.unwrap_or_default();
    let betas = cx.floats("activation_beta")?.unwrap_or_default();
    let (mut ai, mut bi) = (0, 0);
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        let mut a = Act::named(&n);
        let needs_alpha = matches!(n.as_str(), "LeakyRelu" | "HardSigmoid" | "Elu");
        if needs_alpha && ai < alphas.len() {
            a.alpha = Some(f64::from(alphas[ai]));
            ai += 1;
        }
        if n == "HardSigmoid" && bi < betas.len() {
            a.beta = Some(f64::from(betas[bi]));
            bi += 1;
        }
        out.push(a);
    }
    Ok(out)
}

fn squeeze0(cx: &Cx, x: Expr) -> CResult<Expr> {
    cx.op("squeeze", vec![x], &[("axis", AttrValue::ints(&[0]))])
}

/// `split(x, n, axis)`'s parts.
fn split(cx: &Cx, x: Expr, n: usize, axis: i64) -> CResult<Vec<Expr>> {
    let t = cx.op(
        "split",
        vec![x],
        &[
            ("indices_or_sections", AttrValue::int(n as i64)),
            ("axis", AttrValue::int(axis)),
        ],
    )?;
    Ok((0..n).map(|i| cx.get(&t, i)).collect())
}

fn concat(cx: &Cx, xs: Vec<Expr>, axis: i64) -> CResult<Expr> {
    let t = cx.tuple(xs);
    cx.op("concatenate", vec![t], &[("axis", AttrValue::int(axis))])
}

fn stack(cx: &Cx, xs: Vec<Expr>, axis: i64) -> CResult<Expr> {
    let t = cx.tuple(xs);
    cx.op("stack", vec![t], &[("axis", AttrValue::int(axis))])
}

fn dense(cx: &Cx, x: Expr, w: Expr) -> CResult<Expr> {
    cx.op("nn.dense", vec![x, w], &[])
}

/// A gate-stacked weight (`[gates * hidden, ...]`, ONNX's order) in the cell's order.
fn reorder(cx: &Cx, w: Expr, kind: Kind) -> CResult<Expr> {
    match kind {
        Kind::Rnn => Ok(w),
        // ONNX i-o-f-c, the cell i-f-c-o.
        Kind::Lstm => {
            let p = split(cx, w, 4, 0)?;
            concat(
                cx,
                vec![p[0].clone(), p[2].clone(), p[3].clone(), p[1].clone()],
                0,
            )
        }
        // ONNX z-r-n, the cell r-z-n.
        Kind::Gru => {
            let p = split(cx, w, 3, 0)?;
            concat(cx, vec![p[1].clone(), p[0].clone(), p[2].clone()], 0)
        }
    }
}

/// One direction's weights and initial state.
struct Dir {
    h: Expr,
    c: Option<Expr>,
    w: Expr,
    r: Expr,
    b: Option<(Expr, Expr)>,
    peep: Option<(Expr, Expr, Expr)>,
}

fn recurrent(cx: &Cx, kind: Kind, inputs: &In) -> CResult<Vec<Expr>> {
    let mut x = input(inputs, 0)?;
    let w = input(inputs, 1)?;
    let r = input(inputs, 2)?;
    let b = opt_input(inputs, 3);
    let lens = opt_input(inputs, 4);
    let layout = if cx.opset >= 14 {
        cx.int("layout", 0)?
    } else {
        0
    };
    let dirs = cx.shape(&w)?[0] as usize;
    if !(1..=2).contains(&dirs) {
        return Err(ConvertError::Invalid(
            "num_directions must be 1 or 2".into(),
        ));
    }
    let batch_first = |cx: &Cx, e: Expr| {
        cx.op(
            "transpose",
            vec![e],
            &[("axes", AttrValue::ints(&[1, 0, 2]))],
        )
    };
    if layout == 1 {
        x = batch_first(cx, x)?;
    }
    let h0 = match opt_input(inputs, 5) {
        Some(h) if layout == 1 => batch_first(cx, h)?,
        Some(h) => h,
        None => {
            let dt = cx.dtype(&w)?;
            let hidden = *cx.shape(&r)?.last().unwrap_or(&0);
            let batch = cx.shape(&x)?[1];
            cx.op(
                "zeros",
                vec![],
                &[
                    ("shape", AttrValue::ints(&[dirs as i64, batch, hidden])),
                    ("dtype", AttrValue::str(&dt.to_string())),
                ],
            )?
        }
    };
    let steps = cx.shape(&x)?[0] as usize;
    let xs = split(cx, x, steps, 0)?
        .into_iter()
        .map(|s| squeeze0(cx, s))
        .collect::<CResult<Vec<_>>>()?;
    let hs = split(cx, h0, dirs, 0)?;
    let ws = split(cx, w, dirs, 0)?;
    let rs = split(cx, r, dirs, 0)?;
    let bs = match b {
        Some(b) => Some(split(cx, b, dirs, 0)?),
        None => None,
    };
    let cs = if kind == Kind::Lstm {
        Some(match opt_input(inputs, 6) {
            Some(c) => {
                let c = if layout == 1 { batch_first(cx, c)? } else { c };
                split(cx, c, dirs, 0)?
            }
            None => hs
                .iter()
                .map(|h| cx.unary("zeros_like", h.clone()))
                .collect::<CResult<Vec<_>>>()?,
        })
    } else {
        None
    };
    let peeps = match (kind, opt_input(inputs, 7)) {
        (Kind::Lstm, Some(p)) => {
            let p3 = split(cx, p, 3, 1)?;
            Some((
                split(cx, p3[0].clone(), dirs, 0)?,
                split(cx, p3[2].clone(), dirs, 0)?,
                split(cx, p3[1].clone(), dirs, 0)?,
            ))
        }
        _ => None,
    };
    let acts = activations(cx, kind, dirs)?;
    let per_dir = acts.len() / dirs;
    let mut results = Vec::new();
    for d in 0..dirs {
        let bias = match &bs {
            Some(bs) => {
                let halves = split(cx, bs[d].clone(), 2, -1)?;
                Some((
                    reorder(cx, squeeze0(cx, halves[0].clone())?, kind)?,
                    reorder(cx, squeeze0(cx, halves[1].clone())?, kind)?,
                ))
            }
            None => None,
        };
        let dir = Dir {
            h: squeeze0(cx, hs[d].clone())?,
            c: match &cs {
                Some(cs) => Some(squeeze0(cx, cs[d].clone())?),
                None => None,
            },
            w: reorder(cx, squeeze0(cx, ws[d].clone())?, kind)?,
            r: reorder(cx, squeeze0(cx, rs[d].clone())?, kind)?,
            b: bias,
            peep: match &peeps {
                Some((pi, pf, po)) => Some((
                    squeeze0(cx, pi[d].clone())?,
                    squeeze0(cx, pf[d].clone())?,
                    squeeze0(cx, po[d].clone())?,
                )),
                None => None,
            },
        };
        let a = &acts[d * per_dir..(d + 1) * per_dir];
        results.push(match kind {
            Kind::Rnn => rnn_cell(cx, &xs, dir, a, d == 1, lens.as_ref())?,
            Kind::Lstm => lstm_cell(cx, &xs, dir, a, d == 1, lens.as_ref())?,
            Kind::Gru => {
                let before_reset = cx.int("linear_before_reset", 0)?;
                gru_cell(cx, &xs, dir, a, d == 1, before_reset, lens.as_ref())?
            }
        });
    }
    // Outputs: Y (steps, dirs, batch, hidden), then the last H (and C) (dirs, batch, hidden).
    let (y, last): (Expr, Vec<Expr>) = if dirs == 2 {
        let (fw, rev) = (&results[0], &results[1]);
        let steps_out = (0..steps)
            .map(|i| stack(cx, vec![fw.0[i].clone(), rev.0[steps - 1 - i].clone()], 0))
            .collect::<CResult<Vec<_>>>()?;
        let y = stack(cx, steps_out, 0)?;
        let last = (0..fw.1.len())
            .map(|k| stack(cx, vec![fw.1[k].clone(), rev.1[k].clone()], 0))
            .collect::<CResult<Vec<_>>>()?;
        (y, last)
    } else {
        let (outs, finals) = results.pop().expect("one direction");
        let y = stack(cx, outs, 0)?;
        let y = cx.op("expand_dims", vec![y], &[("axis", AttrValue::int(1))])?;
        let last = finals
            .into_iter()
            .map(|f| cx.op("expand_dims", vec![f], &[("axis", AttrValue::int(0))]))
            .collect::<CResult<Vec<_>>>()?;
        (y, last)
    };
    let mut out = Vec::with_capacity(3);
    if layout == 1 {
        out.push(cx.op(
            "transpose",
            vec![y],
            &[("axes", AttrValue::ints(&[2, 0, 1, 3]))],
        )?);
        for l in last {
            out.push(batch_first(cx, l)?);
        }
    } else {
        out.push(y);
        out.extend(last);
    }
    Ok(out)
}

/// Per step outputs, and the final states (H, then C for an LSTM).
type CellOut = (Vec<Expr>, Vec<Expr>);

fn order(xs: &[Expr], backwards: bool) -> Vec<Expr> {
    if backwards {
        xs.iter().rev().cloned().collect()
    } else {
        xs.to_vec()
    }
}

/// The step indices in the order a direction walks them.
fn steps(n: usize, backwards: bool) -> Vec<usize> {
    if backwards {
        (0..n).rev().collect()
    } else {
        (0..n).collect()
    }
}

/// Step `t`'s mask of the batch entries still running (`t < lens`), as a column.
fn live(cx: &Cx, t: usize, lens: &Expr) -> CResult<Expr> {
    let dt = cx.dtype(lens)?;
    let live = cx.binary("less", cx.scalar(t as f64, dt), lens.clone())?;
    cx.op("expand_dims", vec![live], &[("axis", AttrValue::int(1))])
}

/// A step's output and next state: `next` for the running entries; for the ended ones
/// zeros and the previous state.
fn masked(cx: &Cx, live: Option<&Expr>, next: Expr, prev: Expr) -> CResult<(Expr, Expr)> {
    match live {
        Some(live) => {
            let zeros = cx.unary("zeros_like", next.clone())?;
            let out = cx.op("where", vec![live.clone(), next.clone(), zeros], &[])?;
            Ok((out, cx.op("where", vec![live.clone(), next, prev], &[])?))
        }
        None => Ok((next.clone(), next)),
    }
}

fn rnn_cell(
    cx: &Cx,
    xs: &[Expr],
    d: Dir,
    act: &[Act],
    backwards: bool,
    lens: Option<&Expr>,
) -> CResult<CellOut> {
    let mut h = d.h;
    let mut outs = Vec::with_capacity(xs.len());
    for (t, x) in steps(xs.len(), backwards)
        .into_iter()
        .zip(order(xs, backwards))
    {
        let live = lens.map(|l| live(cx, t, l)).transpose()?;
        let mut xw = dense(cx, x, d.w.clone())?;
        let mut hw = dense(cx, h.clone(), d.r.clone())?;
        if let Some((bi, bh)) = &d.b {
            xw = cx.binary("add", xw, bi.clone())?;
            hw = cx.binary("add", hw, bh.clone())?;
        }
        let next = act[0].apply(cx, cx.binary("add", xw, hw)?)?;
        let (out, state) = masked(cx, live.as_ref(), next, h)?;
        h = state;
        outs.push(out);
    }
    Ok((outs, vec![h]))
}

fn lstm_cell(
    cx: &Cx,
    xs: &[Expr],
    d: Dir,
    act: &[Act],
    backwards: bool,
    lens: Option<&Expr>,
) -> CResult<CellOut> {
    let (mut h, mut c) = (d.h, d.c.expect("an LSTM has a cell state"));
    let cat_w = concat(cx, vec![d.w, d.r], 1)?;
    let mut outs = Vec::with_capacity(xs.len());
    for (t, x) in steps(xs.len(), backwards)
        .into_iter()
        .zip(order(xs, backwards))
    {
        let live = lens.map(|l| live(cx, t, l)).transpose()?;
        let step = concat(cx, vec![x, h.clone()], 1)?;
        let mut gates = dense(cx, step, cat_w.clone())?;
        if let Some((bi, bh)) = &d.b {
            gates = cx.binary("add", gates, bi.clone())?;
            gates = cx.binary("add", gates, bh.clone())?;
        }
        let g = split(cx, gates, 4, -1)?;
        let (mut i, mut f) = (g[0].clone(), g[1].clone());
        if let Some((pi, pf, _)) = &d.peep {
            i = cx.binary("add", i, cx.binary("multiply", pi.clone(), c.clone())?)?;
            f = cx.binary("add", f, cx.binary("multiply", pf.clone(), c.clone())?)?;
        }
        let i = act[0].apply(cx, i)?;
        let f = act[0].apply(cx, f)?;
        let cell = act[1].apply(cx, g[2].clone())?;
        let c_next = cx.binary(
            "add",
            cx.binary("multiply", f, c.clone())?,
            cx.binary("multiply", i, cell)?,
        )?;
        let mut o = g[3].clone();
        if let Some((_, _, po)) = &d.peep {
            o = cx.binary("add", o, cx.binary("multiply", po.clone(), c_next.clone())?)?;
        }
        let o = act[0].apply(cx, o)?;
        let h_next = cx.binary("multiply", o, act[2].apply(cx, c_next.clone())?)?;
        let (out, state) = masked(cx, live.as_ref(), h_next, h)?;
        h = state;
        c = masked(cx, live.as_ref(), c_next, c)?.1;
        outs.push(out);
    }
    Ok((outs, vec![h, c]))
}

fn gru_cell(
    cx: &Cx,
    xs: &[Expr],
    d: Dir,
    act: &[Act],
    backwards: bool,
    linear_before_reset: i64,
    lens: Option<&Expr>,
) -> CResult<CellOut> {
    let mut h = d.h;
    let mut outs = Vec::with_capacity(xs.len());
    let w_h = if linear_before_reset == 0 {
        Some(split(cx, d.r.clone(), 3, 0)?)
    } else {
        None
    };
    let b_parts = match &d.b {
        Some((bi, bh)) if linear_before_reset == 0 => {
            Some((split(cx, bi.clone(), 3, -1)?, split(cx, bh.clone(), 3, -1)?))
        }
        _ => None,
    };
    for (t, x) in steps(xs.len(), backwards)
        .into_iter()
        .zip(order(xs, backwards))
    {
        let live = lens.map(|l| live(cx, t, l)).transpose()?;
        let mut xw = dense(cx, x, d.w.clone())?;
        let (z, n);
        if let Some(wh) = &w_h {
            let i = split(cx, xw, 3, 1)?;
            let mut rg = cx.binary("add", i[0].clone(), dense(cx, h.clone(), wh[0].clone())?)?;
            let mut zg = cx.binary("add", i[1].clone(), dense(cx, h.clone(), wh[1].clone())?)?;
            let mut i_n = i[2].clone();
            let h_n;
            if let Some((bi, bh)) = &b_parts {
                rg = cx.binary("add", rg, cx.binary("add", bi[0].clone(), bh[0].clone())?)?;
                rg = act[0].apply(cx, rg)?;
                zg = cx.binary("add", zg, cx.binary("add", bi[1].clone(), bh[1].clone())?)?;
                i_n = cx.binary("add", i_n, bi[2].clone())?;
                let rh = cx.binary("multiply", rg.clone(), h.clone())?;
                h_n = cx.binary("add", dense(cx, rh, wh[2].clone())?, bh[2].clone())?;
            } else {
                rg = act[0].apply(cx, rg)?;
                let rh = cx.binary("multiply", rg.clone(), h.clone())?;
                h_n = dense(cx, rh, wh[2].clone())?;
            }
            z = act[0].apply(cx, zg)?;
            n = act[1].apply(cx, cx.binary("add", i_n, h_n)?)?;
        } else {
            let mut hw = dense(cx, h.clone(), d.r.clone())?;
            if let Some((bi, bh)) = &d.b {
                xw = cx.binary("add", xw, bi.clone())?;
                hw = cx.binary("add", hw, bh.clone())?;
            }
            let i = split(cx, xw, 3, -1)?;
            let hh = split(cx, hw, 3, -1)?;
            let r = act[0].apply(cx, cx.binary("add", i[0].clone(), hh[0].clone())?)?;
            z = act[0].apply(cx, cx.binary("add", i[1].clone(), hh[1].clone())?)?;
            let rn = cx.binary("multiply", r, hh[2].clone())?;
            n = act[1].apply(cx, cx.binary("add", i[2].clone(), rn)?)?;
        }
        let diff = cx.binary("subtract", h.clone(), n.clone())?;
        let next = cx.binary("add", cx.binary("multiply", diff, z)?, n)?;
        let (out, state) = masked(cx, live.as_ref(), next, h)?;
        h = state;
        outs.push(out);
    }
    Ok((outs, vec![h]))
}
