//! `passlab-kernel`: the Jupyter kernel for passlab. The same session engine as the terminal
//! REPL, behind the Jupyter messaging protocol 5.3 over ZeroMQ.
//!
//! ```text
//! passlab-kernel install [--user | --sys-prefix | --prefix DIR]   # write the kernelspec
//! passlab-kernel --connection-file FILE                           # run (Jupyter does this)
//! ```
//!
//! Map: [`wire`] (framing, signing, replay protection), [`connection`] (the connection file),
//! [`server`] (sockets and their tasks), [`kernel`] (request dispatch), [`execute`] (cells to
//! iopub messages), [`requests`] (kernel_info, complete, inspect, is_complete), [`history`],
//! [`worker`] (the session's thread), [`install`] (the kernelspec), [`parent`] (exit when the
//! parent process dies).

mod connection;
mod execute;
#[cfg(test)]
mod fuzz;
mod history;
mod install;
mod kernel;
mod log;
mod parent;
mod requests;
mod server;
mod wire;
mod worker;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "passlab-kernel",
    version,
    about = "The Jupyter kernel for passlab",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// The connection file Jupyter wrote (ports and key).
    #[arg(long = "connection-file", short = 'f', value_name = "FILE")]
    connection_file: Option<PathBuf>,
    /// The connection file, positionally.
    #[arg(value_name = "CONNECTION_FILE")]
    positional: Option<PathBuf>,
}

#[derive(Subcommand)]
enum Command {
    /// Install the kernelspec so Jupyter lists "passlab" (default: for this user).
    Install {
        /// Into the user's Jupyter data directory (the default).
        #[arg(long, conflicts_with_all = ["sys_prefix", "prefix"])]
        user: bool,
        /// Into the active Python environment (virtualenv or conda).
        #[arg(long, conflicts_with = "prefix")]
        sys_prefix: bool,
        /// Into DIR/share/jupyter/kernels.
        #[arg(long, value_name = "DIR")]
        prefix: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Install {
            sys_prefix, prefix, ..
        }) => {
            let target = match (sys_prefix, prefix) {
                (_, Some(p)) => install::Target::Prefix(p),
                (true, None) => install::Target::SysPrefix,
                (false, None) => install::Target::User,
            };
            match install::install(&target) {
                Ok(dir) => {
                    println!("installed the passlab kernelspec in {}", dir.display());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::FAILURE
                }
            }
        }
        None => {
            let Some(file) = cli.connection_file.or(cli.positional) else {
                eprintln!(
                    "error: no connection file: Jupyter starts the kernel with \
                     `--connection-file FILE`; run `passlab-kernel install` to register it"
                );
                return ExitCode::from(2);
            };
            let conn = match connection::ConnectionInfo::read(&file) {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            parent::watch_from_env();
            ExitCode::from(server::run(conn) as u8)
        }
    }
}
