//! Garbled input never panics: truncations, deleted and duplicated tokens of every corpus
//! program give errors with a location (or, rarely, still-valid programs).

mod common;

use passlab::text::parse_module;

/// Token boundaries: starts of runs of identifier characters or single punctuation.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'%' || b[i] == b'@' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
            while i < b.len() && !b[i].is_ascii() {
                i += 1;
            }
        }
        out.push((start, i));
    }
    out
}

fn check(name: &str, text: &str) {
    let result = std::panic::catch_unwind(|| parse_module(text, name));
    let parsed =
        result.unwrap_or_else(|_| panic!("parser panicked on a mutation of {name}:\n{text}"));
    if let Err(e) = parsed {
        assert!(
            e.span.lo as usize <= text.len(),
            "{name}: span out of range"
        );
        let rendered = e.render(name, text, false);
        assert!(rendered.starts_with("error: "), "{rendered}");
        assert!(rendered.contains(&format!("--> {name}:")), "{rendered}");
        assert!(rendered.contains('^'), "{rendered}");
    }
}

#[test]
fn mutations_of_the_corpus_give_located_errors() {
    let mut rng = common::Rng(0x9E3779B97F4A7C15);
    let mut cases = 0;
    for (name, text) in common::corpus_files() {
        let toks = tokens(&text);
        // Truncations at token boundaries.
        for _ in 0..40 {
            let (s, _) = toks[rng.below(toks.len())];
            check(&name, &text[..s]);
            cases += 1;
        }
        // Deleted and duplicated tokens.
        for _ in 0..60 {
            let (s, e) = toks[rng.below(toks.len())];
            let deleted = format!("{}{}", &text[..s], &text[e..]);
            check(&name, &deleted);
            let dup = format!("{}{}{}", &text[..e], &text[s..e], &text[e..]);
            check(&name, &dup);
            cases += 2;
        }
    }
    assert!(cases > 4000);
}

#[test]
fn specific_errors_point_at_the_problem() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "def @main(%x) { nn.conv2 (%x) }",
            "unknown op `nn.conv2`",
            "did you mean `nn.conv2d`?",
        ),
        ("def @main(%x) { add(%y, %x) }", "unbound variable %y", "^^"),
        ("def @main(%x) { add(%x, %x }", "expected", "1:28"),
        ("def @main(%x) { %0 }", "%0 is not bound", "1:17"),
        ("def @main() { 2147483648i32 }", "out of range", "1:15"),
        (
            "def @main(%x) { nn.dense(%x, %x) }",
            "needs the attribute `units`",
            "1:17",
        ),
        (
            "def @main(%x) { nn.relu(%x, alpha=1) }",
            "`nn.relu` takes no attributes",
            "1:29",
        ),
        (
            "def @main(%x) { nn.leaky_relu(%x, alpah=1) }",
            "has no attribute `alpah`",
            "did you mean `alpha`?",
        ),
        (
            "def @main(%x) { @f(%x) }",
            "unknown global function @f",
            "1:17",
        ),
        (
            "def @main(%x: Tensor[(1, 2), float33]) { %x }",
            "unknown dtype `float33`",
            "1:30",
        ),
        ("/* never closed", "unterminated block comment", "1:1"),
        (
            "#[version = \"0.0.4\"]",
            "unsupported text format version",
            "1:1",
        ),
    ];
    for (src, msg, loc) in cases {
        let err = parse_module(src, "t").expect_err(src);
        let rendered = err.render("t", src, false);
        assert!(rendered.contains(msg), "{src}\n{rendered}");
        assert!(rendered.contains(loc), "{src}\n{rendered}");
    }
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = common::Rng(42);
    let alphabet = b"%@()[]{},;:=.-+*/<>!? \n\tabcdefnlt0123456789_\"#";
    for _ in 0..3000 {
        let len = rng.below(60);
        let s: String = (0..len)
            .map(|_| alphabet[rng.below(alphabet.len())] as char)
            .collect();
        check("random", &s);
    }
}
