//! Subcommands. Each lives in its own file and only wires options to the library.

mod info;
mod input;

use clap::error::ErrorKind;
use clap::{Parser, Subcommand};

/// GPU/ML/HPC trace analyzer: PyTorch profiler (Kineto) JSON, PaddlePaddle, rocprof.
#[derive(Parser)]
#[command(name = "kinetoscope", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// What a trace is and contains: format, ranks, devices, time span, events per kind, warnings.
    Info(info::Args),
}

/// Runs the command line. `--help` and `--version` print to stdout and succeed; bad arguments
/// come back as a [`clap::Error`] inside the error, which the caller prints as is (exit code 1).
pub fn run() -> anyhow::Result<()> {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                // `print` writes these to stdout (with colors when it is a terminal).
                e.print()?;
                return Ok(());
            }
            _ => return Err(e.into()),
        },
    };
    match cli.command {
        Command::Info(a) => info::run(a),
    }
}
