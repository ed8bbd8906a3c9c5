//! The `passlab` command line: `print` and `check` Relay files (more commands arrive with the
//! session engine and the REPL).

use clap::{Parser, Subcommand, ValueEnum};
use passlab::ir::well_formed;
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
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a Relay file and print it back in TVM's conventions.
    Print {
        file: String,
        /// Leave out the `/* ty=... */` annotations.
        #[arg(long)]
        no_types: bool,
    },
    /// Parse a Relay file and check that it is well-formed.
    Check { file: String },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let color = match cli.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
        }
    };
    colored::control::set_override(color);
    match run(cli.command, color) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}

fn load(file: &str, color: bool) -> Result<(passlab::ir::Module, String), String> {
    let src =
        std::fs::read_to_string(file).map_err(|e| format!("error: cannot read {file}: {e}"))?;
    let m = text::parse_module(&src, file).map_err(|e| e.render(file, &src, color))?;
    Ok((m, src))
}

fn run(cmd: Command, color: bool) -> Result<(), String> {
    match cmd {
        Command::Print { file, no_types } => {
            let (m, _) = load(&file, color)?;
            let opts = PrintOptions {
                types: !no_types,
                ..PrintOptions::default()
            };
            let out = text::print_module_with(&m, opts);
            if color {
                print!("{}", text::highlight(&out));
            } else {
                print!("{out}");
            }
            Ok(())
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
            println!(
                "{file}: ok ({} function{}, {nodes} nodes, well-formed)",
                m.len(),
                if m.len() == 1 { "" } else { "s" }
            );
            Ok(())
        }
    }
}
