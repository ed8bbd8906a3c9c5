//! Every corpus program parses (the references and ADT programs too), is well-formed, and
//! round-trips: parse(print(m)) == m structurally, and printing is idempotent.

mod common;

use passlab::ir::{module_equal, module_hash, well_formed};
use passlab::text::{parse_module, print_module, print_module_with, PrintOptions};

#[test]
fn every_corpus_file_round_trips() {
    let mut checked = 0;
    for (name, text) in common::corpus_files() {
        let parsed = parse_module(&text, &name);
        let m = parsed.unwrap_or_else(|e| panic!("{}", e.render(&name, &text, false)));
        well_formed::check_module(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        let printed = print_module(&m);
        let again = parse_module(&printed, "printed").unwrap_or_else(|e| {
            panic!(
                "{name} printed does not parse:\n{}",
                e.render("printed", &printed, false)
            )
        });
        assert!(
            module_equal(&m, &again, true),
            "{name}: print/parse is not structurally equal"
        );
        assert_eq!(
            module_hash(&m, true),
            module_hash(&again, true),
            "{name}: hash differs"
        );
        assert_eq!(
            printed,
            print_module(&again),
            "{name}: printing is not idempotent"
        );
        // Without type comments and metadata header variations it must round-trip too.
        let plain = print_module_with(
            &m,
            PrintOptions {
                types: false,
                ..Default::default()
            },
        );
        let plain_again = parse_module(&plain, "plain").expect("plain print parses");
        assert!(
            module_equal(&m, &plain_again, true),
            "{name}: plain print differs"
        );
        checked += 1;
    }
    assert_eq!(checked, 30);
}

#[test]
fn printer_reproduces_tvm_numbering_and_names() {
    // TVM's own output (typed FuseOps dump): the printer must reproduce its structure exactly,
    // modulo the type comments that only InferType can fill in.
    let dir = common::corpus_dir();
    for file in [
        "pass_infra_example.input.relay",
        "pass_infra_example.fuse_opt0.relay",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).unwrap();
        let m = parse_module(&text, file).unwrap();
        let printed = print_module_with(
            &m,
            PrintOptions {
                types: false,
                header: false,
                metadata: false,
            },
        );
        let expected: String = text
            .lines()
            .filter(|l| !l.starts_with("//"))
            .map(strip_type_comments)
            .collect::<Vec<_>>()
            .join("\n");
        let printed: Vec<String> = printed.lines().map(strip_type_comments).collect();
        assert_eq!(printed.join("\n").trim_end(), expected.trim_end(), "{file}");
    }
}

fn strip_type_comments(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(" /* ty=") {
        out.push_str(&rest[..i]);
        let after = &rest[i..];
        let end = after.find("*/").map(|e| e + 2).unwrap_or(after.len());
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn metadata_constants_keep_their_data() {
    // The transformer's call attributes come from its #[metadata] section.
    let dir = common::corpus_dir();
    let text = std::fs::read_to_string(dir.join("glenside_transformer.relay")).unwrap();
    let m = parse_module(&text, "t").unwrap();
    let printed = print_module(&m);
    assert!(
        printed.contains("nn.batch_matmul(%"),
        "batch_matmul calls are printed"
    );
    assert!(
        printed.contains("transpose_b=True"),
        "meta attrs were resolved into fields"
    );
    assert_eq!(m.type_defs.len(), 12);
    // A tensor constant goes through the metadata section and back with its data.
    let src = "#[version = \"0.0.5\"]\ndef @main(%x: Tensor[(2, 3), float32]) { add(%x, meta[relay.Constant][0]) }\n#[metadata]\n{\"root\": 1, \"nodes\": [{\"type_key\": \"\"}, {\"type_key\": \"Map\", \"keys\": [\"relay.Constant\"], \"data\": [2]}, {\"type_key\": \"Array\", \"data\": [3]}, {\"type_key\": \"relay.Constant\", \"attrs\": {\"data\": \"0\"}}], \"b64ndarrays\": [\"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQACAAAAAAAAAAMAAAAAAAAAGAAAAAAAAAAAAIA/AAAAQAAAQEAAAIBAAACgQAAAwEA=\"]}";
    let m = parse_module(src, "c").unwrap();
    let f = m.get_function("main").unwrap();
    let call = f.body.as_call().unwrap();
    let c = call.args[1].as_constant().unwrap();
    assert_eq!(
        c.data.as_ref().unwrap().to_f64_vec(),
        vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    let printed = print_module(&m);
    assert!(printed.contains("#[metadata]"));
    let back = parse_module(&printed, "p").unwrap();
    assert!(module_equal(&m, &back, true));
}

/// InferType marks its output as fully typed so that the passes needing types skip their
/// check: the mark must be true of every function of every corpus program it types.
#[test]
fn infer_types_mark_of_fully_typed_functions_holds_on_the_corpus() {
    let mut marked = 0;
    for (name, text) in common::corpus_files() {
        let Ok(m) = parse_module(&text, &name) else {
            continue;
        };
        let Ok(typed) = passlab::passes::infer_type::infer_module(&m) else {
            continue;
        };
        for (g, f) in typed.functions() {
            assert!(typed.known_typed(f), "{name} @{}: not marked", g.name());
            assert!(
                passlab::passes::typed::fully_typed(f),
                "{name} @{}: marked typed, but a node has no type",
                g.name()
            );
            marked += 1;
        }
        // Not a mark on the input, nor one a partial inference could make.
        assert!(m.functions().all(|(_, f)| !m.known_typed(f)), "{name}");
        let (partial, _) = passlab::passes::infer_type::infer_module_partial(&m).unwrap();
        assert!(partial.functions().all(|(_, f)| !partial.known_typed(f)));
    }
    assert!(marked >= 20, "only {marked} functions typed");
}
