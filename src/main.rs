//! The `passlab` command line: the REPL (no arguments), `run` and `replay` scripts, and
//! `print` / `check` Relay files, `bench` passes on one, `gen` the generated benchmark models and
//! measure the `host`'s memory.

mod cli;

use clap::{Parser, Subcommand, ValueEnum};
use cli::repl::stdio;
use passlab::ir::well_formed;
use passlab::session::{replay, Session};
use passlab::text::{self, PrintOptions};
use std::io::IsTerminal;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "passlab",
    version,
    about = "TVM-style pass pipelines, interactively"
)]
struct Cli {
    /// When to colour output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, global = true)]
    color: ColorChoice,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// The generated models of `passlab gen` (`passlab::testgen`).
#[derive(Clone, Copy, ValueEnum)]
enum ModelKind {
    /// TVM's peer model (`shared/peers/tvm/model.py`, width 64): eight calls a layer.
    Peer,
    /// Conv blocks (conv2d, bias_add, relu, add, batch_norm and its projection): six ops a
    /// layer.
    Conv,
    /// An unrolled LSTM (one slice of the input a step, two dense layers, four gates, the
    /// new cell and hidden state; all hidden states concatenated): nineteen ops a step.
    Rnn,
    /// A let chain, one `add` a binding.
    Lets,
    /// A recurrent chain whose states are summed as it goes: three ops a step.
    Sum,
    /// Nested ifs using a value bound at the top: five ops a level.
    Ifs,
    /// A call chain of global functions: two ops a function.
    Globals,
    /// Function literals nested in one another, each called at once: two ops a level.
    Closures,
    /// Tuples nested in one another, then projected back out: two nodes a level.
    Tuples,
    /// Chains of globals marked `Inline=1` (one wrapping each call in an add, one on a global
    /// that is not marked, one called from every line of `@main`): five ops a level.
    Inline,
    /// Function literals nested in one another, none called: one literal a level.
    Fns,
    /// One function of many parameters, summed in a chain: one op a parameter.
    Params,
}

#[derive(Subcommand)]
enum Command {
    /// Import an ONNX model and write it as Relay text (to a file, atomically, or to stdout).
    Import {
        file: String,
        /// The file to write (stdout when absent).
        #[arg(short, long)]
        out: Option<String>,
        /// Keep initializers as parameters of @main instead of constants.
        #[arg(long)]
        no_freeze_params: bool,
        /// Leave out the `/* ty=... */` annotations.
        #[arg(long)]
        no_types: bool,
    },
    /// Parse a Relay file (or import an .onnx model) and print it back in TVM's conventions.
    Print {
        file: String,
        /// Leave out the `/* ty=... */` annotations.
        #[arg(long)]
        no_types: bool,
    },
    /// Parse a Relay file (or import an .onnx model) and check that it is well-formed.
    Check { file: String },
    /// Time passes on a Relay file or an .onnx model (median of --runs, with the fastest and
    /// slowest run) and the pass manager's cost per pass; for a model, its import too.
    Bench {
        file: String,
        /// A registered pass to time (repeatable).
        #[arg(long = "pass")]
        passes: Vec<String>,
        /// A registered pass applied once, untimed, before the timed ones (repeatable, in
        /// order): `--prepare SimplifyInference --prepare BackwardFoldScaleAxis --pass
        /// FoldConstant` times the fold of the scaled weights.
        #[arg(long = "prepare", value_name = "PASS")]
        prepare: Vec<String>,
        /// Time the passes on the module as read, without typing it first: a pass that needs
        /// types then types each function itself, as on an untyped module in a session.
        #[arg(long, conflicts_with = "prepare")]
        untyped: bool,
        /// Timed runs of each pass (the report gives their median, fastest and slowest).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..))]
        runs: u64,
        /// Also time a Sequential of this many no-op passes, without and with timing.
        #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
        overhead: Option<u64>,
        /// One JSON object with tvm_bench.py's keys.
        #[arg(long)]
        json: bool,
        /// Flush the caches (untimed) before every run, so each starts with the module in
        /// memory only.
        #[arg(long)]
        cold: bool,
        /// Also time a read-only walk over every node of the typed module (`walk` in the
        /// report): the floor under any pass that must read every node.
        #[arg(long)]
        walk: bool,
        /// Also time parsing the file's text (`parse` in the report).
        #[arg(long)]
        parse: bool,
        /// Also time printing the typed module with its types and metadata (`print` in the
        /// report, with the text's length).
        #[arg(long)]
        print: bool,
        /// Also time the --pass list as one Sequential, applied directly (`pipeline`) and as a
        /// statement in a session (`session`: `out = seq(m)`, the path the REPL, scripts and
        /// the kernel take, with its observer and run history).
        #[arg(long)]
        session: bool,
        /// Threads of a function pass (`passlab.num_threads`; 0: one per core). The default,
        /// 1, keeps every pass on one thread, as TVM runs them.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i64).range(0..=256))]
        threads: i64,
    },
    /// Measure how much cache this host leaves a process now: the latency of dependent random
    /// reads by working-set size (what decides a large model's pass times on a shared host).
    Host {
        /// The largest working set, in MiB (1 to 1024).
        #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u64).range(1..=1024))]
        max_mib: u64,
        /// One JSON object: `cached_bytes` and `latency_ns` by working set in bytes (and
        /// `walk_growth` with --growth).
        #[arg(long)]
        json: bool,
        /// Also time a read-only walk over N and 10 N nodes laid out in walk order, for three
        /// node sizes: the growth a pass reading every node gets from the memory system alone
        /// (the work grows 10x). N defaults to about a 10k-op model's node count.
        #[arg(long, value_name = "N", num_args = 0..=1, default_missing_value = "12500",
              value_parser = clap::value_parser!(u64).range(100..=10_000_000))]
        growth: Option<u64>,
    },
    /// Write a generated model of about OPS ops (the benchmarks' inputs), to a file
    /// (atomically) or to stdout.
    Gen {
        #[arg(value_enum)]
        model: ModelKind,
        /// How many ops: calls and projections, rounded up to whole layers.
        ops: usize,
        /// The file to write (stdout when absent).
        #[arg(short, long)]
        out: Option<String>,
    },
    /// Run a pipeline on a Relay file or an .onnx model and print the result (LLVM's `opt`):
    /// instrument output goes to stderr; exit 1 with the located error on failure.
    Opt(cli::opt::OptArgs),
    /// Run a .passlab script; exit 1 at the first error (or, with --keep-going, if any).
    ///
    /// Relative paths in the script (`load`, `save`, `tensor`, `save_tensor`, `DumpIR`)
    /// resolve against the script's folder, not the current directory; an error names the
    /// file that was tried.
    Run {
        file: String,
        /// Report each error and go on, like typing at the prompt.
        #[arg(long)]
        keep_going: bool,
    },
    /// Re-run transcripts and compare with their `#>` lines; show a diff and exit 1 on mismatch.
    Replay {
        #[arg(required = true)]
        files: Vec<String>,
        /// Rewrite the expected lines from a fresh run.
        #[arg(long)]
        bless: bool,
    },
}

fn main() -> ExitCode {
    passlab_alloc::configure();
    let cli = Cli::parse();
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
        }
    };
    colored::control::set_override(color);
    let Some(command) = cli.command else {
        let tty = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
        let color = match cli.color {
            ColorChoice::Auto => color && tty,
            _ => color,
        };
        return ExitCode::from(cli::repl::run(color) as u8);
    };
    match run(command, color) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            stdio::err(&format!("{msg}\n"));
            ExitCode::FAILURE
        }
    }
}

/// A session for a script: relative paths resolve next to the script, errors name it.
fn session_for(file: &str, color: bool) -> Session {
    let mut s = Session::new();
    s.set_color(color);
    s.set_html(false);
    s.set_source_name(
        std::path::Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.to_string())
            .as_str(),
    );
    if let Some(dir) = std::path::Path::new(file).parent() {
        if !dir.as_os_str().is_empty() {
            s.set_base_dir(dir);
        }
    }
    s
}

/// A text file, or the error naming it (and where its first invalid UTF-8 byte is).
fn read(file: &str) -> Result<String, String> {
    passlab::files::read_text(file.as_ref()).map_err(|e| format!("error: {}", e.message(file)))
}

fn load(file: &str, color: bool) -> Result<(passlab::ir::Module, String), String> {
    if passlab::onnx::is_onnx_path(file) {
        return import(file, &passlab::onnx::ImportOptions::default());
    }
    let src = read(file)?;
    let m = text::parse_module(&src, file).map_err(|e| e.render(file, &src, color))?;
    Ok((m, src))
}

/// Imports an ONNX model; the text is its list of node names (what spans point into).
fn import(
    file: &str,
    opts: &passlab::onnx::ImportOptions,
) -> Result<(passlab::ir::Module, String), String> {
    let m = passlab::onnx::import_file(file.as_ref(), opts).map_err(|e| format!("error: {e}"))?;
    let src = m
        .source
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default();
    Ok((m, src))
}

fn run(cmd: Command, color: bool) -> Result<(), String> {
    match cmd {
        Command::Import {
            file,
            out,
            no_freeze_params,
            no_types,
        } => {
            let opts = passlab::onnx::ImportOptions {
                freeze_params: !no_freeze_params,
            };
            let (m, _) = import(&file, &opts)?;
            let popts = PrintOptions {
                types: !no_types,
                ..PrintOptions::default()
            };
            let text = text::try_print_module_with(&m, popts).map_err(|e| format!("error: {e}"))?;
            match out {
                Some(path) => passlab::files::write_atomic(path.as_ref(), text.as_bytes())
                    .map_err(|e| format!("error: cannot write {path}: {e}")),
                None => {
                    stdio::out(&text);
                    Ok(())
                }
            }
        }
        Command::Print { file, no_types } => {
            let (m, _) = load(&file, color)?;
            let opts = PrintOptions {
                types: !no_types,
                ..PrintOptions::default()
            };
            // Streamed: the text can be far larger than the module (deep nesting indents).
            use std::io::Write as _;
            let stdout = std::io::stdout();
            let mut lock = stdout.lock();
            let written = if color {
                let mut w = passlab::present::HighlightWriter::new(&mut lock);
                text::write_module(&m, opts, &mut w).and_then(|()| w.finish().map(drop))
            } else {
                let mut w = std::io::BufWriter::with_capacity(1 << 16, &mut lock);
                text::write_module(&m, opts, &mut w).and_then(|()| w.flush())
            };
            match written {
                Ok(()) => Ok(()),
                Err(e) => match e.get_ref().and_then(|e| e.downcast_ref::<text::TooLarge>()) {
                    Some(too_large) => Err(format!("error: {too_large}")),
                    None => stdio::fail(e),
                },
            }
        }
        Command::Opt(args) => {
            let (m, _) = load(&args.file, false)?;
            cli::opt::run(&args, m)
        }
        Command::Run { file, keep_going } => {
            let text = read(&file)?;
            let mut s = session_for(&file, color);
            // Output streams while a statement runs (a long pipeline's Trace lines).
            s.set_live(Some(std::sync::Arc::new(cli::repl::stdio::Terminal::new(
                color,
                s.interrupt_flag(),
            ))));
            let report = replay::run(&mut s, &text, keep_going, |t| {
                stdio::out(t);
            });
            if report.errors > 0 {
                return Err(format!("{file}: {} statement(s) failed", report.errors));
            }
            Ok(())
        }
        Command::Replay { files, bless } => {
            let mut failed = 0;
            for file in &files {
                let text = read(file)?;
                let mut s = session_for(file, false);
                if bless {
                    let fresh = replay::bless_until_stable(|| session_for(file, false), &text);
                    passlab::files::write_atomic(file.as_ref(), fresh.as_bytes())
                        .map_err(|e| format!("error: cannot write {file}: {e}"))?;
                    stdio::out(&format!("blessed {file}\n"));
                    continue;
                }
                match replay::replay(&mut s, &text) {
                    Ok(()) => stdio::out(&format!("ok {file}\n")),
                    Err(m) => {
                        failed += 1;
                        stdio::out(&format!(
                            "MISMATCH {file}:{}\n  {}\n{}\n",
                            m.line,
                            m.statement.replace('\n', "\n  "),
                            m.diff
                        ));
                    }
                }
            }
            if failed > 0 {
                return Err(format!("{failed} transcript(s) did not replay"));
            }
            Ok(())
        }
        Command::Bench {
            file,
            passes,
            prepare,
            untyped,
            runs,
            overhead,
            json,
            cold,
            walk,
            parse,
            print,
            session,
            threads,
        } => {
            let onnx = passlab::onnx::is_onnx_path(&file);
            if passes.is_empty() && overhead.is_none() && !walk && !parse && !print && !onnx {
                return Err("error: nothing to measure: give --pass NAME (repeatable), \
                            --overhead N, --walk, --parse or --print"
                    .to_string());
            }
            let (m, import_time, src) = if onnx {
                if parse {
                    return Err("error: --parse times reading Relay text; an ONNX file is \
                                imported instead (its time is reported as import)"
                        .to_string());
                }
                let opts = passlab::onnx::ImportOptions::default();
                let (m, t) = cli::bench::time_onnx_import(file.as_ref(), &opts, runs as usize)
                    .map_err(|e| format!("error: {e}"))?;
                (m, Some(t), None)
            } else {
                let (m, src) = load(&file, color)?;
                (m, None, Some(src))
            };
            let what = cli::bench::Timed {
                passes: &passes,
                prepare: &prepare,
                untyped,
                walk,
                parse: src.as_deref().filter(|_| parse).map(|s| (s, file.as_str())),
                print,
                session,
                threads,
            };
            let (runs, overhead) = (runs as usize, overhead.map(|n| n as usize));
            let mut report = cli::bench::bench(&m, what, runs, overhead, cold)
                .map_err(|e| format!("error: {e}"))?;
            if let Some(t) = import_time {
                report.passes.insert(0, t);
            }
            if json {
                stdio::out(&format!("{}\n", report.to_json()));
            } else {
                stdio::out(&report.to_text());
            }
            Ok(())
        }
        Command::Host {
            max_mib,
            json,
            growth,
        } => {
            let host = cli::bench::HostMemory::measure((max_mib as usize) << 20);
            let growth = growth.map(|n| cli::bench::WalkGrowth::measure(n as usize, 5));
            if json {
                let mut v = host.to_json_value();
                if let Some(g) = &growth {
                    v["walk_growth"] = g.to_json_value();
                }
                stdio::out(&format!("{v}\n"));
            } else {
                stdio::out(&host.to_text());
                if let Some(g) = &growth {
                    stdio::out(&g.to_text());
                }
            }
            Ok(())
        }
        Command::Gen { model, ops, out } => {
            let text = match model {
                ModelKind::Peer => passlab::testgen::peer_model(ops.div_ceil(8), 64),
                ModelKind::Conv => passlab::testgen::conv_model(ops.div_ceil(6)),
                ModelKind::Rnn => passlab::testgen::rnn_model(ops.div_ceil(19)),
                ModelKind::Lets => passlab::testgen::let_chain(ops),
                ModelKind::Sum => passlab::testgen::running_sum_model(ops.div_ceil(3)),
                ModelKind::Ifs => passlab::testgen::nested_if_model(ops.div_ceil(5)),
                ModelKind::Globals => passlab::testgen::globals_model(ops.div_ceil(2)),
                ModelKind::Closures => passlab::testgen::closures_model(ops.div_ceil(2)),
                ModelKind::Tuples => passlab::testgen::nested_tuple_model(ops.div_ceil(2)),
                ModelKind::Inline => passlab::testgen::inline_chains_model(ops.div_ceil(5)),
                ModelKind::Fns => passlab::testgen::nested_fn_model(ops),
                ModelKind::Params => passlab::testgen::params_model(ops),
            };
            match out {
                Some(path) => passlab::files::write_atomic(path.as_ref(), text.as_bytes())
                    .map_err(|e| format!("error: cannot write {path}: {e}")),
                None => {
                    stdio::out(&text);
                    Ok(())
                }
            }
        }
        Command::Check { file } => {
            let (m, src) = load(&file, color)?;
            if let Err(e) = well_formed::check_module(&m) {
                let d = passlab::diagnostic::Diagnostic::new(e.to_string(), e.span);
                return Err(d.render(&file, &src, color));
            }
            let nodes: usize = m
                .functions()
                .map(|(_, e)| passlab::ir::visit::count_nodes(e))
                .sum();
            stdio::out(&format!(
                "{file}: ok ({} function{}, {nodes} nodes, well-formed)\n",
                m.len(),
                if m.len() == 1 { "" } else { "s" }
            ));
            Ok(())
        }
    }
}

// mimalloc: IR nodes are many small, short-lived allocations; glibc's malloc spent up to a
// fifth of a pass's time consolidating free lists on 100k-node models. (Through our own
// GlobalAlloc: see src/alloc.rs for why not the `mimalloc` crate's.)
#[global_allocator]
static GLOBAL: passlab_alloc::MiMalloc = passlab_alloc::MiMalloc;
