//! Subcommands. Each lives in its own file and only wires options to the library. The analysis
//! subcommands (`temporal`, `kernels`, ...) are built from `analysis::registry::ANALYSES`.

mod analyze;
mod decode;
mod diff;
mod export;
mod info;
mod input;
mod merge;
mod output;
mod report;
mod subcommands;

use clap::error::ErrorKind;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

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
    /// Runs every analysis and writes each table as CSV (and the charts as SVG) into a folder.
    Analyze(analyze::Args),
    /// Merges partial files (`analyze --partial`) and writes exactly what `analyze` of all their files writes.
    Merge(merge::Args),
    /// Call stacks as pprof, folded stacks or speedscope; or the trace filtered as Chrome-trace JSON.
    Export(export::Args),
    /// Writes the page's saved report: one self-contained HTML file (Overview, panels, trace facts; no trace data).
    Report(report::Args),
}

/// Runs the command line. `--help` and `--version` print to stdout and succeed; bad arguments
/// come back as a [`clap::Error`] inside the error, which the caller prints as is (exit code 1).
pub fn run() -> anyhow::Result<()> {
    let mut cmd = Cli::command().subcommand(decode::stats_command()).subcommand(decode::extract_command()).subcommand(diff::command());
    for a in kinetoscope::analysis::registry::ANALYSES {
        cmd = cmd.subcommand(subcommands::command(a));
    }
    cmd = cmd.arg(
        clap::Arg::new("max_inflated")
            .long("max-inflated")
            .global(true)
            .value_name("SIZE")
            .help("Stop reading a gzip file whose content inflates past SIZE (16G, 500M, bytes; default 16G)"),
    );
    let matches = match cmd.try_get_matches() {
        Ok(m) => m,
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                // `print` writes these to stdout (with colors when it is a terminal).
                e.print()?;
                return Ok(());
            }
            _ => return Err(e.into()),
        },
    };
    if let Some(size) = matches.subcommand().and_then(|(_, sub)| sub.get_one::<String>("max_inflated")) {
        input::set_max_inflated(size)?;
    }
    match matches.subcommand() {
        Some(("stats", sub)) => return decode::run_stats(sub),
        Some(("extract", sub)) => return decode::run_extract(sub),
        Some(("diff", sub)) => return diff::run(sub),
        Some((name, sub)) => {
            if let Some(a) = kinetoscope::analysis::registry::find(name) {
                return subcommands::run(a, sub);
            }
        }
        None => {}
    }
    match Cli::from_arg_matches(&matches)?.command {
        Command::Info(a) => info::run(a),
        Command::Analyze(a) => analyze::run(a),
        Command::Merge(a) => merge::run(a),
        Command::Report(a) => report::run(a),
        Command::Export(a) => export::run(a),
    }
}
