//! Parse a Relay program, check it, and print it back with the library API.
//! Run: `cargo run --example print_corpus_file [FILE]`.

use passlab::ir::{module_equal, well_formed};
use passlab::text::{parse_module, print_module};

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/corpus/relay/collage_mnist.relay"
        )
        .to_string()
    });
    let text = std::fs::read_to_string(&path).expect("read the Relay file");
    let m = match parse_module(&text, &path) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("{}", e.render(&path, &text, false));
            std::process::exit(1);
        }
    };
    well_formed::check_module(&m).expect("well-formed");
    let printed = print_module(&m);
    print!("{printed}");
    let again = parse_module(&printed, "printed").expect("printed text parses");
    assert!(
        module_equal(&m, &again, true),
        "round trip is structurally equal"
    );
}
