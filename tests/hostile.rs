//! Hostile input for the text format: each class of input that once aborted the process,
//! overflowed the stack, took quadratic time or reported a wrong place, kept as a regression
//! case, and a seeded mutation fuzz of the `#[metadata]` section. Every case runs on a thread
//! with a 2 MiB stack (a stack overflow aborts the test binary: a failure nobody can miss) and
//! must give either a module or an error located inside the input.

mod common;

use base64::Engine;
use passlab::text::{parse_module, print_module, try_print_module_with, PrintOptions};

/// Runs `f` on a thread with a 2 MiB stack, as the REPL's and the kernel's workers have at
/// least.
fn small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    common::on_stack(2 << 20, f)
}

/// Parses `text`; on success prints the module back and drops everything (each step once
/// overflowed on some input); on failure renders the error, which must name a place inside
/// the text. Returns the rendered error, if any.
fn exercise(name: &str, text: String) -> Option<String> {
    let name = name.to_string();
    small_stack(move || match parse_module(&text, &name) {
        Ok(m) => {
            let _ = try_print_module_with(&m, PrintOptions::default());
            let _ = passlab::ir::well_formed::check_module(&m);
            drop(m);
            None
        }
        Err(e) => {
            assert!(
                e.span.lo as usize <= text.len(),
                "{name}: span past the end"
            );
            let r = e.render(&name, &text, false);
            assert!(r.starts_with("error: "), "{r}");
            assert!(r.contains(&format!("--> {name}:")), "{r}");
            Some(r)
        }
    })
}

fn header(body: &str) -> String {
    format!("#[version = \"0.0.5\"]\n{body}")
}

/// A `#[metadata]` section holding `blobs` as `b64ndarrays`, one constant each.
fn metadata(blobs: &[Vec<u8>]) -> String {
    let b64 = base64::engine::general_purpose::STANDARD;
    let n = blobs.len();
    let mut nodes = vec![
        serde_json::json!({"type_key": ""}),
        serde_json::json!({"type_key": "Map", "keys": ["relay.Constant"], "data": [2]}),
        serde_json::json!({"type_key": "Array", "data": (0..n).map(|i| i + 3).collect::<Vec<_>>()}),
    ];
    for i in 0..n {
        nodes.push(serde_json::json!({"type_key": "relay.Constant",
            "attrs": {"_checked_type_": "0", "data": i.to_string(), "span": "0"}}));
    }
    let v = serde_json::json!({"root": 1, "nodes": nodes,
        "b64ndarrays": blobs.iter().map(|b| b64.encode(b)).collect::<Vec<_>>(),
        "attrs": {"tvm_version": "0.18.0"}});
    serde_json::to_string_pretty(&v).unwrap()
}

/// A DLTensor blob as TVM's `SaveDLTensor` writes it.
fn blob(
    ndim: u32,
    code: u8,
    bits: u8,
    lanes: u16,
    shape: &[i64],
    nbytes: u64,
    data: &[u8],
) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(0xDD5E40F096B4A13Fu64.to_le_bytes());
    b.extend(0u64.to_le_bytes());
    b.extend(1u32.to_le_bytes());
    b.extend(0u32.to_le_bytes());
    b.extend(ndim.to_le_bytes());
    b.push(code);
    b.push(bits);
    b.extend(lanes.to_le_bytes());
    for d in shape {
        b.extend(d.to_le_bytes());
    }
    b.extend(nbytes.to_le_bytes());
    b.extend(data);
    b
}

fn with_constant(meta: String) -> String {
    header(&format!(
        "def @main() {{\n  meta[relay.Constant][0]\n}}\n#[metadata]\n{meta}\n"
    ))
}

#[test]
fn metadata_tensors_over_the_limits_are_errors() {
    let cases = [
        (blob(0xFFFF_FFF0, 2, 32, 1, &[], 0, &[]), "dimensions"),
        (blob(1, 2, 32, 1, &[2], 1 << 63, &[]), "bytes of data"),
        (blob(1, 2, 32, 1, &[-2], 0, &[]), "negative dimension"),
        (blob(2, 2, 32, 1, &[1 << 40, 1 << 40], 0, &[]), "elements"),
        (blob(1, 2, 32, 0, &[1], 4, &[0; 4]), "0 lanes"),
        (blob(1, 2, 32, 1, &[3], 12, &[0; 4]), "ends early"),
    ];
    for (b, want) in cases {
        let err = exercise("m.relay", with_constant(metadata(&[b]))).expect("an error");
        assert!(err.contains(want), "{err}");
        assert!(err.contains("--> m.relay:5:1"), "{err}");
    }
    // A well-formed one still loads.
    let ok = blob(1, 2, 32, 1, &[1], 4, &1f32.to_le_bytes());
    assert_eq!(exercise("m.relay", with_constant(metadata(&[ok]))), None);
}

#[test]
fn metadata_attrs_that_refer_to_themselves_or_explode_are_errors() {
    let program = |nodes: serde_json::Value| {
        let meta = serde_json::json!({"root": 1, "nodes": nodes, "b64ndarrays": [],
            "attrs": {"tvm_version": "0.18.0"}});
        header(&format!(
            "def @main(%x: Tensor[(1, 3, 8, 8), float32], %w: Tensor[(4, 3, 3, 3), float32]) {{\n  nn.conv2d(%x, %w, meta[relay.attrs.Conv2DAttrs][0])\n}}\n#[metadata]\n{meta}\n"
        ))
    };
    let head = |first: serde_json::Value| {
        let mut v = vec![
            serde_json::json!({"type_key": ""}),
            serde_json::json!({"type_key": "Map", "keys": ["relay.attrs.Conv2DAttrs"], "data": [2]}),
            serde_json::json!({"type_key": "Array", "data": [3]}),
            serde_json::json!({"type_key": "relay.attrs.Conv2DAttrs", "attrs": {"strides": "4"}}),
        ];
        v.push(first);
        v
    };
    // An array containing itself four times.
    let cyclic = head(serde_json::json!({"type_key": "Array", "data": [4, 4, 4, 4]}));
    let err = exercise("c.relay", program(serde_json::Value::Array(cyclic))).expect("an error");
    assert!(err.contains("refers to itself"), "{err}");
    assert!(err.contains("--> c.relay:3:21"), "{err}");
    // No cycle, but each level refers to the next twice: 2^40 values.
    let mut nodes = head(serde_json::json!({"type_key": "Array", "data": [5, 5]}));
    for k in 5..45 {
        nodes.push(serde_json::json!({"type_key": "Array", "data": [k + 1, k + 1]}));
    }
    nodes
        .push(serde_json::json!({"type_key": "IntImm", "attrs": {"dtype": "int32", "value": "1"}}));
    let err = exercise("e.relay", program(serde_json::Value::Array(nodes))).expect("an error");
    assert!(err.contains("values"), "{err}");
}

#[test]
fn locations_after_a_metadata_section_are_right() {
    let (_, text) = common::corpus_files()
        .into_iter()
        .find(|(n, _)| n == "glenside_transformer.relay")
        .expect("the corpus transformer");
    let lines: Vec<&str> = text.lines().collect();
    let target = lines
        .iter()
        .position(|l| l.contains(" = add("))
        .expect("an add");
    let mut broken: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    broken[target] = broken[target].replacen(" = add(", " = ad(", 1);
    let err = exercise("t.relay", broken.join("\n")).expect("an error");
    let at = format!("--> t.relay:{}:", target + 1);
    assert!(err.contains(&at), "want {at}:\n{err}");
    // A span pointing into multi-byte text renders (it once panicked the renderer).
    let meta = metadata(&[]).replacen("\"0.18.0\"", &format!("\"{}\"", "é".repeat(500)), 1);
    let text = header(&format!(
        "def @main() {{\n  nn.conv2(1)\n}}\n#[metadata]\n{meta}\n"
    ));
    let err = exercise("u.relay", text).expect("an error");
    assert!(err.contains("--> u.relay:3:3"), "{err}");
}

#[test]
fn long_names_get_bounded_suggestions() {
    let near = format!("{}d", "nn.conv2".repeat(3750));
    for name in ["a".repeat(30_000), "nn.conv2".repeat(125_000), near] {
        let text = header(&format!(
            "def @main(%x: Tensor[(2), float32]) {{\n  {name}(%x)\n}}\n"
        ));
        let err = exercise("n.relay", text).expect("an error");
        assert!(
            err.contains("characters)"),
            "the message quotes a long name shortened"
        );
        assert!(err.lines().all(|l| l.chars().count() < 400), "{err}");
    }
    let mut vars = String::new();
    for i in 0..20_000 {
        vars.push_str(&format!("%{}{i}: int32, ", "v".repeat(200)));
    }
    let text = header(&format!(
        "def @main({vars}) {{\n  %{}0x\n}}\n",
        "v".repeat(200)
    ));
    exercise("v.relay", text).expect("an error");
}

/// Types, attribute arrays and values nested 100,000 deep: parsed, printed, checked and
/// dropped on a 2 MiB stack, or refused with a located error (attribute values, past
/// `limits::MAX_ATTR_DEPTH`).
#[test]
fn deep_nesting_parses_prints_and_drops() {
    const N: usize = 100_000;
    let t = "Tensor[(2), float32]";
    let types = [
        format!("{}{t}{}", "(".repeat(N), ",)".repeat(N)),
        format!("{}{t}{}", "(".repeat(N), ")".repeat(N)),
        format!("{}{t}{}", "fn (".repeat(N), ") -> int32".repeat(N)),
    ];
    for ty in types {
        let text = header(&format!("def @main(%x: {ty}) {{\n  %x\n}}\n"));
        assert_eq!(exercise("t.relay", text.clone()), None);
        small_stack(move || {
            let m = parse_module(&text, "t.relay").unwrap();
            let typed = passlab::passes::infer_type::infer_module(&m).expect("types");
            let printed = print_module(&typed);
            let back = parse_module(&printed, "t.relay").unwrap();
            assert!(passlab::ir::module_equal(&typed, &back, false));
        });
    }
    let attrs = format!("{}1{}", "[".repeat(N), "]".repeat(N));
    let text = header(&format!(
        "def @main(%x: Tensor[(1, 3, 8, 8), float32]) {{\n  nn.max_pool2d(%x, pool_size={attrs})\n}}\n"
    ));
    let err = exercise("a.relay", text).expect("an error");
    assert!(err.contains("nested more than 64 deep"), "{err}");
    let tuple = format!("{}0{}", "(".repeat(N), ",)".repeat(N));
    assert_eq!(
        exercise(
            "v.relay",
            header(&format!("def @main() {{\n  {tuple}\n}}\n"))
        ),
        None
    );
}

/// Function literals nested n deep in every position, printed and parsed back; a module whose
/// text would pass the printer's limit is refused, not built.
#[test]
fn nested_scopes_print_back() {
    let n = 3000;
    let tails = format!("{}0{}", "fn () {\n".repeat(n), "}\n".repeat(n));
    let lets = format!("{}0{}", "let %f = fn () {\n".repeat(n), "\n}; %f".repeat(n));
    for body in [tails, lets] {
        let text = header(&format!("def @main() {{\n{body}\n}}\n"));
        small_stack(move || {
            let m = parse_module(&text, "f.relay").unwrap();
            let printed = print_module(&m);
            let back = parse_module(&printed, "f.relay").unwrap();
            assert!(passlab::ir::module_equal(&m, &back, false));
        });
    }
    let closures = passlab::testgen::closures_model(n);
    small_stack(move || {
        let m = parse_module(&closures, "c.relay").unwrap();
        let back = parse_module(&print_module(&m), "c.relay").unwrap();
        assert!(passlab::ir::module_equal(&m, &back, false));
    });
    // 40,000 nested ifs print about 1.6 GB (indentation): over the limit, an error.
    let n = 40_000;
    let ifs = format!("{}0{}", "if (%c) {\n".repeat(n), "} else { 1 }\n".repeat(n));
    let text = header(&format!("def @main(%c: bool) {{\n{ifs}}}\n"));
    small_stack(move || {
        let m = parse_module(&text, "i.relay").unwrap();
        let err = try_print_module_with(&m, PrintOptions::default()).unwrap_err();
        assert!(err.to_string().contains("MiB"));
    });
}

/// A string attribute holding the printer's internal chunk mark still prints as written.
#[test]
fn program_text_that_looks_like_a_chunk_mark_prints_as_written() {
    let text = header(
        "def @main(%x: Tensor[(2), float32]) {\n  %0 = fn (%y: Tensor[(2), float32], Name=\"a\u{0}0\u{0}b\") { %y };\n  %0(%x)\n}\n",
    );
    let m = parse_module(&text, "k.relay").unwrap();
    let printed = print_module(&m);
    assert!(printed.contains("a\u{0}0\u{0}b"), "{printed}");
    let back = parse_module(&printed, "k.relay").unwrap();
    assert!(passlab::ir::module_equal(&m, &back, false));
}

/// Mutations of the corpus's metadata sections: numbers in the JSON replaced by extreme ones,
/// node indices pointed elsewhere (cycles included), blob header fields and bytes changed.
/// No mutation may panic, abort or overflow; errors are located.
#[test]
fn metadata_mutation_fuzz() {
    let extremes = [
        "0",
        "1",
        "2",
        "3",
        "4",
        "-1",
        "4294967295",
        "18446744073709551615",
        "99999999999999999999",
    ];
    let b64 = base64::engine::general_purpose::STANDARD;
    let mut rng = common::Rng(0x2545F4914F6CDD1D);
    let mut cases = 0;
    for (name, text) in common::corpus_files() {
        let Some(at) = text.find("#[metadata]") else {
            continue;
        };
        let json = &text[at + "#[metadata]".len()..];
        for _ in 0..150 {
            let mut m = json.to_string();
            match rng.below(3) {
                0 => {
                    // A quoted or bare number replaced.
                    let digits: Vec<usize> = m
                        .char_indices()
                        .filter(|(i, c)| {
                            c.is_ascii_digit() && !m[..*i].ends_with(|d: char| d.is_ascii_digit())
                        })
                        .map(|(i, _)| i)
                        .collect();
                    if let Some(&s) = digits.get(rng.below(digits.len())) {
                        let e = s + m[s..]
                            .find(|c: char| !c.is_ascii_digit())
                            .unwrap_or(m.len() - s);
                        m.replace_range(s..e, extremes[rng.below(extremes.len())]);
                    }
                }
                1 => {
                    // A blob's header or data bytes changed.
                    let quoted: Vec<(usize, usize)> = m
                        .match_indices("\"P6G0")
                        .map(|(s, _)| (s + 1, s + 1 + m[s + 1..].find('"').unwrap()))
                        .collect();
                    if let Some(&(s, e)) = quoted.get(rng.below(quoted.len())) {
                        let mut bytes = b64.decode(&m[s..e]).unwrap_or_default();
                        for _ in 0..1 + rng.below(3) {
                            let k = rng.below(bytes.len().min(64));
                            if k < bytes.len() {
                                bytes[k] = rng.next() as u8;
                            }
                        }
                        m.replace_range(s..e, &b64.encode(&bytes));
                    }
                }
                _ => {
                    // Truncated.
                    let mut cut = rng.below(m.len());
                    while !m.is_char_boundary(cut) {
                        cut -= 1;
                    }
                    m.truncate(cut);
                }
            }
            exercise(&name, format!("{}#[metadata]{m}", &text[..at]));
            cases += 1;
        }
    }
    assert!(cases >= 300, "{cases}");
}

/// Shapes that make a naive parser or printer quadratic, at a size where quadratic
/// work would take minutes (a name shadowed 100,000 times, 100,000 parameters or attributes):
/// parsed and printed back whole.
#[test]
fn wide_shapes_parse_and_print_in_linear_time() {
    const N: usize = 100_000;
    let params: Vec<String> = (0..N).map(|i| format!("%p{i}: int32")).collect();
    let attrs: String = (0..N).map(|i| format!(", a{i}=1")).collect();
    let cases = [
        format!(
            "def @main(%x: int32) {{\n{}%x\n}}\n",
            "let %x = add(%x, 1);\n".repeat(N)
        ),
        format!("def @main({}) {{\n  %p0\n}}\n", params.join(", ")),
        format!("def @main(%x: Tensor[(1), float32]) {{\n  %x\n}}\ndef @f(%y{attrs}) {{ %y }}\n"),
    ];
    for body in cases {
        let text = header(&body);
        small_stack(move || {
            let m = parse_module(&text, "w.relay").unwrap();
            let back = parse_module(&print_module(&m), "w.relay").unwrap();
            assert!(passlab::ir::module_equal(&m, &back, false));
        });
    }
    // The duplicate check that made attributes quadratic still finds duplicates.
    let text = header("def @f(%y, a=1, b=2, a=3) { %y }\n");
    let err = exercise("d.relay", text).expect("an error");
    assert!(err.contains("attribute `a` is given twice"), "{err}");
}

/// No type rule makes a tensor type with a negative extent or an element count past `i64`,
/// whatever the attributes ask for: InferType reports the call instead.
#[test]
fn type_rules_refuse_impossible_shapes() {
    for newshape in [
        "[9223372036854775807, 9223372036854775807]",
        "[4611686018427387904, 4]",
    ] {
        let text = header(&format!(
            "def @main(%x: Tensor[(2, 3), float32]) {{\n  reshape(%x, newshape={newshape})\n}}\n"
        ));
        let m = parse_module(&text, "r.relay").unwrap();
        let err = passlab::passes::infer_type::infer_module(&m).unwrap_err();
        assert!(err.to_string().contains("2^63"), "{err}");
    }
}
