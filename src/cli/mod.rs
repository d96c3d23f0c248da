//! Subcommands. Each lives in its own file and only wires options to the library.

mod info;
mod input;

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

/// Runs the command line.
pub fn run() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Command::Info(a) => info::run(a),
    }
}
