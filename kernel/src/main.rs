//! `passlab-kernel`: the Jupyter kernel for passlab (issue 7). The ZeroMQ transport and the
//! message handlers are not written yet; until then the binary says so and exits with an error
//! instead of pretending to be a kernel.

use std::process::ExitCode;

fn main() -> ExitCode {
    eprintln!(
        "passlab-kernel {}: the Jupyter kernel is not implemented yet (see issue 7); \
         use `passlab` for now",
        env!("CARGO_PKG_VERSION")
    );
    ExitCode::FAILURE
}
