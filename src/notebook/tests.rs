//! The exact evcxr blocks of every display (`UPDATE_EXPECT=1` re-blesses the snapshots), and
//! that evcxr's reader gets each rendering back whole.

use super::*;
use crate::instrument::ManualClock;
use crate::pass::{function_pass, module_pass, sequential, PassInfo, PassManager};
use crate::session::Session;
use crate::text::parse_module;
use expect_test::{expect, Expect};
use std::collections::BTreeMap;
use std::sync::Arc;

const PROGRAM: &str = r#"#[version = "0.0.5"]
def @main(%x: Tensor[(2, 2), float32]) {
  %0 = multiply(%x, 1f);
  add(%0, %x)
}
"#;

fn module() -> Module {
    parse_module(PROGRAM, "test.relay").unwrap()
}

fn check(value: &(impl NotebookDisplay + ?Sized), expect: Expect) {
    let blocks = evcxr_blocks(value);
    expect.assert_eq(&blocks);
    // evcxr's reader (evcxr/src/eval_context.rs) gets back exactly the rendering.
    let r = value.rendering();
    let mut want = BTreeMap::from([("text/plain".to_string(), trim_nl(&r.plain))]);
    if let Some(h) = r.html {
        want.insert("text/html".into(), trim_nl(&h));
    }
    assert_eq!(read_like_evcxr(&blocks), want);
}

fn trim_nl(s: &str) -> String {
    s.strip_suffix('\n').unwrap_or(s).to_string()
}

/// What evcxr does with a cell's standard output: content between the markers, line by
/// line, per MIME type; anything else is ordinary output (here: a test failure).
fn read_like_evcxr(out: &str) -> BTreeMap<String, String> {
    let mut by_mime = BTreeMap::new();
    let mut lines = out.lines();
    while let Some(line) = lines.next() {
        let mime = line
            .strip_prefix("EVCXR_BEGIN_CONTENT ")
            .unwrap_or_else(|| panic!("stray output line {line:?}"));
        let mut content = String::new();
        for line in lines.by_ref() {
            if line == "EVCXR_END_CONTENT" {
                break;
            }
            if !content.is_empty() {
                content.push('\n');
            }
            content.push_str(line);
        }
        by_mime.insert(mime.to_string(), content);
    }
    by_mime
}

#[test]
fn block_format() {
    let both = Rendering {
        plain: "one\ntwo\n".into(),
        ansi: Some("ignored".into()),
        html: Some("<b>one</b>".into()),
    };
    assert_eq!(
        evcxr_blocks(&both),
        "EVCXR_BEGIN_CONTENT text/plain\none\ntwo\nEVCXR_END_CONTENT\n\
         EVCXR_BEGIN_CONTENT text/html\n<b>one</b>\nEVCXR_END_CONTENT\n"
    );
    assert_eq!(
        evcxr_blocks(&Rendering::plain("(no differences)")),
        "EVCXR_BEGIN_CONTENT text/plain\n(no differences)\nEVCXR_END_CONTENT\n"
    );
    let mut into = Vec::new();
    write_evcxr(&mut into, &Rendering::plain("x")).unwrap();
    assert_eq!(into, evcxr_blocks(&Rendering::plain("x")).as_bytes());
}

#[test]
fn module_display() {
    check(
        &module(),
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            #[version = "0.0.5"]
            def @main(%x: Tensor[(2, 2), float32]) {
              %0 = multiply(%x, 1f);
              add(%0, %x)
            }
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <pre class="passlab-ir" style="font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4;white-space:pre;overflow-x:auto;text-align:left;margin:0;padding:4px 0">#[version = <span style="color:#067d17">&quot;0.0.5&quot;</span>]
            <span style="color:#4078f2;font-weight:bold">def</span> <span style="color:#a626a4;font-weight:bold">@main</span>(<span style="color:#0184bc">%x</span>: <span style="color:#50a14f">Tensor</span>[(<span style="color:#986801">2</span>, <span style="color:#986801">2</span>), <span style="color:#50a14f">float32</span>]) {
              <span style="color:#0184bc">%0</span> = <span style="font-weight:bold">multiply</span>(<span style="color:#0184bc">%x</span>, <span style="color:#986801">1f</span>);
              <span style="font-weight:bold">add</span>(<span style="color:#0184bc">%0</span>, <span style="color:#0184bc">%x</span>)
            }
            </pre>
            EVCXR_END_CONTENT
        "#]],
    );
}

#[test]
fn function_display() {
    let m = module();
    check(
        &m["main"],
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            fn (%x: Tensor[(2, 2), float32]) {
              %0 = multiply(%x, 1f);
              add(%0, %x)
            }
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <pre class="passlab-ir" style="font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4;white-space:pre;overflow-x:auto;text-align:left;margin:0;padding:4px 0"><span style="color:#4078f2;font-weight:bold">fn</span> (<span style="color:#0184bc">%x</span>: <span style="color:#50a14f">Tensor</span>[(<span style="color:#986801">2</span>, <span style="color:#986801">2</span>), <span style="color:#50a14f">float32</span>]) {
              <span style="color:#0184bc">%0</span> = <span style="font-weight:bold">multiply</span>(<span style="color:#0184bc">%x</span>, <span style="color:#986801">1f</span>);
              <span style="font-weight:bold">add</span>(<span style="color:#0184bc">%0</span>, <span style="color:#0184bc">%x</span>)
            }</pre>
            EVCXR_END_CONTENT
        "#]],
    );
}

fn pipeline() -> Pass {
    let pm = PassManager::new(crate::passes::registry());
    let simplify = function_pass(PassInfo::new("Simplify", 1), |_, f, _, _| Ok(f.clone()));
    let checked = module_pass(
        PassInfo::new("Checked", 0).required_passes(&["InferType"]),
        |m, _| Ok(m.clone()),
    );
    sequential(vec![
        simplify,
        sequential(vec![
            pm.pass("FoldConstant").unwrap(),
            pm.pass("EliminateCommonSubexpr").unwrap(),
        ]),
        checked,
    ])
}

#[test]
fn pass_display_is_the_tree_under_the_default_context() {
    check(
        &pipeline(),
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            sequential (sequential, opt_level 0)
            ├─ ✓ Simplify                   opt 1
            ├─ ✓ sequential                 opt 0
            │  ├─ ✓ FoldConstant            opt 2
            │  └─ ✗ EliminateCommonSubexpr  opt 3   requires InferType   skipped: opt_level 3 > context opt_level 2
            └─ ✓ Checked                    opt 0   requires InferType
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <pre style="font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4;white-space:pre;overflow-x:auto;text-align:left;margin:0;padding:4px 0">sequential (sequential, opt_level 0)
            ├─ ✓ Simplify                   opt 1
            ├─ ✓ sequential                 opt 0
            │  ├─ ✓ FoldConstant            opt 2
            │  └─ ✗ EliminateCommonSubexpr  opt 3   requires InferType   skipped: opt_level 3 &gt; context opt_level 2
            └─ ✓ Checked                    opt 0   requires InferType</pre>
            EVCXR_END_CONTENT
        "#]],
    );
}

#[test]
fn pass_tree_under_a_context() {
    let ctx = PassContext::builder()
        .opt_level(3)
        .disabled_pass(["FoldConstant"])
        .build()
        .unwrap();
    check(
        &pipeline().under(&ctx),
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            sequential (sequential, opt_level 0)
            ├─ ✓ Simplify                   opt 1
            ├─ ✓ sequential                 opt 0
            │  ├─ ✗ FoldConstant            opt 2   skipped: in disabled_pass
            │  └─ ✓ EliminateCommonSubexpr  opt 3   requires InferType
            └─ ✓ Checked                    opt 0   requires InferType
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <pre style="font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4;white-space:pre;overflow-x:auto;text-align:left;margin:0;padding:4px 0">sequential (sequential, opt_level 0)
            ├─ ✓ Simplify                   opt 1
            ├─ ✓ sequential                 opt 0
            │  ├─ ✗ FoldConstant            opt 2   skipped: in disabled_pass
            │  └─ ✓ EliminateCommonSubexpr  opt 3   requires InferType
            └─ ✓ Checked                    opt 0   requires InferType</pre>
            EVCXR_END_CONTENT
        "#]],
    );
    assert_eq!(
        pipeline().under(&ctx).to_string(),
        pipeline().under(&ctx).rendering().plain
    );
}

#[test]
fn context_display() {
    let ctx = PassContext::builder()
        .opt_level(3)
        .required_pass(["InferType"])
        .instrument(Arc::new(PassTimingInstrument::new()))
        .build()
        .unwrap();
    check(
        &ctx,
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            ┌───────────────┬──────────────────────┐
            │ PassContext   ┆                      │
            ╞═══════════════╪══════════════════════╡
            │ opt_level     ┆ 3                    │
            │ required_pass ┆ InferType            │
            │ disabled_pass ┆ []                   │
            │ instruments   ┆ PassTimingInstrument │
            │ config        ┆ {}                   │
            └───────────────┴──────────────────────┘
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <table class="passlab" style="border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px"><thead><tr><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">PassContext</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left"></th></tr></thead><tbody><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">opt_level</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">3</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">required_pass</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">InferType</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">disabled_pass</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">[]</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">instruments</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">PassTimingInstrument</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">config</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">{}</td></tr></tbody></table>
            EVCXR_END_CONTENT
        "#]],
    );
}

/// A Sequential of two passes that take 100 us and 300 us on a manual clock, run under a
/// context holding `instrument`.
fn timed_run(clock: &ManualClock, instrument: crate::instrument::InstrumentRef) {
    let step = |name: &str, us: u64| {
        let clock = clock.clone();
        module_pass(PassInfo::new(name, 0), move |m, _| {
            clock.advance_us(us);
            Ok(m.clone())
        })
    };
    let seq = sequential(vec![step("Fast", 100), step("Slow", 300)]);
    let ctx = PassContext::builder()
        .instrument(instrument)
        .build()
        .unwrap();
    let mut pm = PassManager::new(crate::passes::registry());
    pm.with_context(&ctx, |pm| pm.run(&seq, &module())).unwrap();
}

#[test]
fn timing_display() {
    let clock = ManualClock::new();
    let timing = Arc::new(PassTimingInstrument::with_clock(Arc::new(clock.clone())));
    check(
        &*timing,
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            (no passes timed yet)
            EVCXR_END_CONTENT
        "#]],
    );
    timed_run(&clock, timing.clone());
    check(
        &*timing,
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            ┌────────────┬────────┬────────┬───────┬──────────┐
            │ pass       ┆  total ┆   self ┆ % all ┆ % parent │
            ╞════════════╪════════╪════════╪═══════╪══════════╡
            │ sequential ┆ 400 us ┆   0 us ┆ 100.0 ┆    100.0 │
            │ ├─ Fast    ┆ 100 us ┆ 100 us ┆  25.0 ┆     25.0 │
            │ └─ Slow    ┆ 300 us ┆ 300 us ┆  75.0 ┆     75.0 │
            └────────────┴────────┴────────┴───────┴──────────┘
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <table class="passlab" style="border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px" data-passlab-sort="tree"><thead><tr><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">pass</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right">total</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right">self</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right">% all</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right">% parent</th></tr></thead><tbody><tr data-depth="0"><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">sequential</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="400">400 us</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="0">0 us</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="100">100.0</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="100">100.0</td></tr><tr data-depth="1"><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">    Fast</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="100">100 us</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="100">100 us</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="25">25.0</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="25">25.0</td></tr><tr data-depth="1"><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">    Slow</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="300">300 us</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="300">300 us</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="75">75.0</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="75">75.0</td></tr></tbody></table><script>(function(){var t=document.currentScript&&document.currentScript.previousElementSibling;if(!t||t.tagName!=="TABLE"||t.dataset.passlabSorted)return;t.dataset.passlabSorted="1";var hs=t.tHead.rows[0].cells,b=t.tBodies[0],tree=t.dataset.passlabSort==="tree",dir={};function key(r,c){var d=r.cells[c];if(!d)return"";return d.dataset.v!==undefined?parseFloat(d.dataset.v):d.textContent.trim().toLowerCase();}function cmp(c,s){return function(x,y){var a=key(x.r,c),b2=key(y.r,c);if(typeof a==="number"&&typeof b2==="number")return s*(a-b2)||x.i-y.i;a=String(a);b2=String(b2);return s*(a<b2?-1:a>b2?1:0)||x.i-y.i;};}function sortBy(c){var s=dir[c]=dir[c]===-1?1:(dir[c]===1?-1:(t.rows[1]&&t.rows[1].cells[c]&&t.rows[1].cells[c].dataset.v!==undefined?-1:1));var rows=Array.prototype.slice.call(b.rows),root={kids:[]},stack=[{d:-1,n:root}];rows.forEach(function(r,i){var d=tree?parseInt(r.dataset.depth||"0",10):0,n={r:r,i:i,kids:[]};while(stack.length>1&&stack[stack.length-1].d>=d)stack.pop();stack[stack.length-1].n.kids.push(n);stack.push({d:d,n:n});});var out=[];(function emit(n){n.kids.sort(cmp(c,s));n.kids.forEach(function(k){out.push(k.r);emit(k);});})(root);out.forEach(function(r){b.appendChild(r);});for(var j=0;j<hs.length;j++){hs[j].dataset.arrow="";hs[j].lastChild.textContent=j===c?(s>0?" ▲":" ▼"):"";}}for(var i=0;i<hs.length;i++){(function(c){var h=hs[c],m=document.createElement("span");h.appendChild(m);h.style.cursor="pointer";h.title="click to sort by "+h.firstChild.textContent;h.addEventListener("click",function(){sortBy(c);});})(i);}})();</script>
            EVCXR_END_CONTENT
        "#]],
    );
    // Through `dyn Instrument` (an InstrumentRef): its name, then the same table.
    let table = evcxr_blocks(&*timing);
    let any: crate::instrument::InstrumentRef = timing;
    let named = table
        .replacen("text/plain\n", "text/plain\nPassTimingInstrument\n", 1)
        .replacen(
            "text/html\n",
            &format!(
                "text/html\n<pre style=\"{}\">PassTimingInstrument</pre>",
                crate::present::highlight::IR_STYLE
            ),
            1,
        );
    assert_eq!(evcxr_blocks(&*any), named);
}

#[test]
fn stats_display() {
    let stats = Arc::new(Stats::new());
    let simplify = function_pass(PassInfo::new("Simplify", 0), |_, f, _, _| {
        let body = f.as_function().unwrap().body.clone();
        let call = body.as_call().unwrap();
        // add(multiply(%x, 1f), %x) -> add(%x, %x)
        let x = call.args[1].clone();
        let new_body = Expr::call_op("add", vec![x.clone(), x]);
        Ok(crate::ir::mutate::rebuild_function(
            f,
            f.as_function().unwrap(),
            new_body,
        ))
    });
    let seq = sequential(vec![
        simplify,
        module_pass(PassInfo::new("Same", 0), |m, _| Ok(m.clone())),
    ]);
    let ctx = PassContext::builder()
        .instrument(stats.clone())
        .build()
        .unwrap();
    let mut pm = PassManager::new(crate::passes::registry());
    pm.with_context(&ctx, |pm| pm.run(&seq, &module())).unwrap();
    check(
        &*stats,
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            ┌────────────┬────────────┬───────┬─────────┐
            │ pass       ┆ kind       ┆ nodes ┆ changed │
            ╞════════════╪════════════╪═══════╪═════════╡
            │ sequential ┆ sequential ┆ 7 → 4 ┆ yes     │
            │   Simplify ┆ function   ┆ 7 → 4 ┆ yes     │
            │   Same     ┆ module     ┆ 4 → 4 ┆ no      │
            └────────────┴────────────┴───────┴─────────┘
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <table class="passlab" style="border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px" data-passlab-sort="tree"><thead><tr><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">pass</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">kind</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right">nodes</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">changed</th></tr></thead><tbody><tr data-depth="0"><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">sequential</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">sequential</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="4">7 → 4</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">yes</td></tr><tr data-depth="1"><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">  Simplify</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">function</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="4">7 → 4</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">yes</td></tr><tr data-depth="1"><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">  Same</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">module</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:right" data-v="4">4 → 4</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">no</td></tr></tbody></table><script>(function(){var t=document.currentScript&&document.currentScript.previousElementSibling;if(!t||t.tagName!=="TABLE"||t.dataset.passlabSorted)return;t.dataset.passlabSorted="1";var hs=t.tHead.rows[0].cells,b=t.tBodies[0],tree=t.dataset.passlabSort==="tree",dir={};function key(r,c){var d=r.cells[c];if(!d)return"";return d.dataset.v!==undefined?parseFloat(d.dataset.v):d.textContent.trim().toLowerCase();}function cmp(c,s){return function(x,y){var a=key(x.r,c),b2=key(y.r,c);if(typeof a==="number"&&typeof b2==="number")return s*(a-b2)||x.i-y.i;a=String(a);b2=String(b2);return s*(a<b2?-1:a>b2?1:0)||x.i-y.i;};}function sortBy(c){var s=dir[c]=dir[c]===-1?1:(dir[c]===1?-1:(t.rows[1]&&t.rows[1].cells[c]&&t.rows[1].cells[c].dataset.v!==undefined?-1:1));var rows=Array.prototype.slice.call(b.rows),root={kids:[]},stack=[{d:-1,n:root}];rows.forEach(function(r,i){var d=tree?parseInt(r.dataset.depth||"0",10):0,n={r:r,i:i,kids:[]};while(stack.length>1&&stack[stack.length-1].d>=d)stack.pop();stack[stack.length-1].n.kids.push(n);stack.push({d:d,n:n});});var out=[];(function emit(n){n.kids.sort(cmp(c,s));n.kids.forEach(function(k){out.push(k.r);emit(k);});})(root);out.forEach(function(r){b.appendChild(r);});for(var j=0;j<hs.length;j++){hs[j].dataset.arrow="";hs[j].lastChild.textContent=j===c?(s>0?" ▲":" ▼"):"";}}for(var i=0;i<hs.length;i++){(function(c){var h=hs[c],m=document.createElement("span");h.appendChild(m);h.style.cursor="pointer";h.title="click to sort by "+h.firstChild.textContent;h.addEventListener("click",function(){sortBy(c);});})(i);}})();</script>
            EVCXR_END_CONTENT
        "#]],
    );
}

#[test]
fn diff_display() {
    let before = module();
    let after = parse_module(
        "def @main(%x: Tensor[(2, 2), float32]) {\n  add(%x, %x)\n}\n",
        "after.relay",
    )
    .unwrap();
    check(
        &diff(&before, &after).labels("m", "out"),
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            --- m
            +++ out
            @@ -1,4 +1,3 @@
             def @main(%x: Tensor[(2, 2), float32]) {
            -  %0 = multiply(%x, 1f);
            -  add(%0, %x)
            +  add(%x, %x)
             }
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <div class="passlab-diff"><table class="passlab-diff" style="border-collapse:collapse;width:100%;table-layout:fixed;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4"><colgroup><col style="width:5ch"><col><col style="width:5ch"><col></colgroup><thead><tr><th colspan="2" style="text-align:left;overflow-wrap:anywhere">m</th><th colspan="2" style="text-align:left;overflow-wrap:anywhere">out</th></tr></thead><tbody><tr><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none">1</td><td style="padding:0 8px;text-align:left;vertical-align:top;"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left">def @main(%x: Tensor[(2, 2), float32]) {</pre></td><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none">1</td><td style="padding:0 8px;text-align:left;vertical-align:top;"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left">def @main(%x: Tensor[(2, 2), float32]) {</pre></td></tr><tr><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none">2</td><td style="padding:0 8px;text-align:left;vertical-align:top;background:#ffeef0"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left">  %0 = multiply(%x, 1f);</pre></td><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none"></td><td style="padding:0 8px;text-align:left;vertical-align:top;"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left"></pre></td></tr><tr><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none">3</td><td style="padding:0 8px;text-align:left;vertical-align:top;background:#ffeef0"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left">  add(<span style="background:#fdb8c0">%0</span>, %x)</pre></td><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none">2</td><td style="padding:0 8px;text-align:left;vertical-align:top;background:#e6ffed"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left">  add(<span style="background:#acf2bd">%x</span>, %x)</pre></td></tr><tr><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none">4</td><td style="padding:0 8px;text-align:left;vertical-align:top;"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left">}</pre></td><td style="color:#999;text-align:right;padding:0 6px 0 0;vertical-align:top;white-space:nowrap;user-select:none">3</td><td style="padding:0 8px;text-align:left;vertical-align:top;"><pre style="margin:0;padding:0 0 0 2ch;text-indent:-2ch;border:0;background:none;font:inherit;color:inherit;white-space:pre-wrap;word-break:normal;overflow-wrap:anywhere;text-align:left">}</pre></td></tr></tbody></table></div>
            EVCXR_END_CONTENT
        "#]],
    );
    check(
        &diff(&before, &before),
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            (no differences)
            EVCXR_END_CONTENT
        "#]],
    );
    assert!(diff(&before, &before).is_empty());
    assert!(!diff(&before, &after).is_empty());
    // Only @other: absent on both sides, so nothing differs.
    assert!(diff(&before, &after).function("other").is_empty());
    assert!(!diff(&before, &after).function("main").is_empty());
}

#[test]
fn session_outputs_display() {
    let mut s = Session::new();
    let out = s.execute("c = PassContext(opt_level=1)\nprint(\"hello\")\nc");
    check(
        &out,
        expect![[r#"
            EVCXR_BEGIN_CONTENT text/plain
            hello
            ┌───────────────┬────┐
            │ PassContext   ┆    │
            ╞═══════════════╪════╡
            │ opt_level     ┆ 1  │
            │ required_pass ┆ [] │
            │ disabled_pass ┆ [] │
            │ instruments   ┆ [] │
            │ config        ┆ {} │
            └───────────────┴────┘
            EVCXR_END_CONTENT
            EVCXR_BEGIN_CONTENT text/html
            <pre style="font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px;line-height:1.4;white-space:pre;overflow-x:auto;text-align:left;margin:0;padding:4px 0">hello
            </pre><table class="passlab" style="border-collapse:collapse;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'DejaVu Sans Mono',monospace;font-size:12px"><thead><tr><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">PassContext</th><th style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left"></th></tr></thead><tbody><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">opt_level</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">1</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">required_pass</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">[]</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">disabled_pass</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">[]</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">instruments</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">[]</td></tr><tr><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">config</td><td style="padding:1px 8px;white-space:pre;font-variant-numeric:tabular-nums;text-align:left">{}</td></tr></tbody></table>
            EVCXR_END_CONTENT
        "#]],
    );
}
