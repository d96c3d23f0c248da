//! `kinetoscope stats` and `kinetoscope extract`: kernel_extractor's two commands, with its
//! positional arguments and CSV files, on every format (`analysis::decode`). `stats` runs the
//! `decode` analysis of the registry and writes its `decode_op_averages` table; `--out DIR`
//! writes every table of it. Their options are the `decode` and `gpu_ops` analyses' tables.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use clap::{Arg, ArgMatches, Command};
use kinetoscope::analysis::api::{select_ranks, Context, Params};
use kinetoscope::analysis::decode::{self, AVERAGES_TABLE};
use kinetoscope::analysis::gpu_ops::{self, extract, parse_range};
use kinetoscope::analysis::units::us;
use kinetoscope::table::Table;

use super::output::{out_arg, plot_arg, ranks_arg, ranks_of};
use super::subcommands::{given, option_arg};

/// The `stats` subcommand: kernel_extractor's positional arguments, then the options of the
/// `decode` analysis (its table: declared once for the page and here).
pub fn stats_command() -> Command {
    let opts = decode::ANALYSIS.options;
    let start = opts.iter().find(|o| o.name == "start_kernel").expect("decode has a start_kernel option");
    let mut c = Command::new("stats")
        .about("Per-operation timing of the average LLM decode step into a CSV (kernel_extractor's `stats`)")
        .arg(input_arg())
        .arg(
            Arg::new("csv")
                .value_name("CSV")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf))
                .help("CSV to write: operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us"),
        )
        .arg(Arg::new("start_kernel").value_name("START_KERNEL").default_value(start.default).help(start.help))
        .arg(Arg::new("decode_max_ms").value_name("DECODE_MAX_MS").help("Steps longer than this (ms) are prefill (same as --prefill-ms)"));
    for o in opts.iter().filter(|o| o.name != "start_kernel") {
        let arg = option_arg(o);
        c = c.arg(if o.name == "prefill_ms" { arg.conflicts_with("decode_max_ms") } else { arg });
    }
    c.arg(ranks_arg("Ranks to analyse, e.g. 0,2-5 (default: all)"))
        .arg(out_arg("Also write every table (per-operation distributions, per step, per rank, outliers) as DIR/<table>.csv"))
        .arg(plot_arg("Write the charts (step durations, average decode step) to an SVG or PNG file"))
}

/// The `extract` subcommand: kernel_extractor's positional arguments, then the options of the
/// `gpu_ops` analysis but its range (here the third argument).
pub fn extract_command() -> Command {
    let opts = gpu_ops::ANALYSIS.options;
    let range = opts.iter().find(|o| o.name == "range").expect("gpu_ops has a range option");
    let mut c = Command::new("extract")
        .about("GPU operations inside a time range into a CSV (kernel_extractor's `extract`)")
        .arg(input_arg())
        .arg(Arg::new("csv").value_name("CSV").required(true).value_parser(clap::value_parser!(PathBuf)).help(
            "CSV to write: kernel_name,start_time_us,end_time_us,duration_us (with a leading rank column when there are several ranks)",
        ))
        .arg(Arg::new("range").value_name("RANGE").required(true).allow_hyphen_values(true).help(range.help));
    for o in opts.iter().filter(|o| o.name != "range") {
        c = c.arg(option_arg(o));
    }
    c.arg(ranks_arg("Ranks to extract from, e.g. 0,2-5 (default: all)"))
}

fn input_arg() -> Arg {
    Arg::new("input")
        .value_name("INPUT")
        .required(true)
        .value_parser(clap::value_parser!(PathBuf))
        .help("Trace file, or a folder of per-rank traces (PaddlePaddle, PyTorch/Kineto, ...)")
}

fn path<'m>(m: &'m ArgMatches, name: &str) -> Result<&'m PathBuf> {
    m.get_one::<PathBuf>(name).with_context(|| format!("missing {name} (a bug: clap requires it)"))
}

/// Refuses to write the output over the input (nothing the user gave us is modified).
fn check_output(input: &Path, csv: &Path) -> Result<()> {
    if let (Ok(a), Ok(b)) = (input.canonicalize(), csv.canonicalize()) {
        if a == b {
            bail!("the output CSV {} is the input trace; give another file name", csv.display());
        }
    }
    Ok(())
}

fn write_csv(path: &Path, t: &Table) -> Result<()> {
    super::output::write_csv_file(path, t)
}

/// The first rows of `t` as text.
fn preview(t: &Table, rows: usize) -> String {
    let mut head = t.clone();
    head.select_rows(&(0..t.rows().min(rows)).collect::<Vec<_>>());
    head.to_text()
}

/// Runs `stats`.
pub fn run_stats(m: &ArgMatches) -> Result<()> {
    let (input, csv) = (path(m, "input")?, path(m, "csv")?);
    check_output(input, csv)?;
    let ranks = ranks_of(m, "ranks", "--ranks")?;
    let analysis = &decode::ANALYSIS;
    let mut given = given(analysis.options, m);
    given.extend(m.get_one::<String>("start_kernel").map(|k| ("start_kernel", k.as_str())));
    if !given.iter().any(|(k, _)| *k == "prefill_ms") {
        given.extend(m.get_one::<String>("decode_max_ms").map(|ms| ("prefill_ms", ms.as_str())));
    }
    let params = Params::new(analysis.options, given)?;
    let trace = super::input::read_trace(std::slice::from_ref(input))?;
    let ctx = Context::new(&trace, false, ranks.as_deref())?;
    let report = analysis.report(&ctx, &params)?;
    let averages = report.tables.iter().find(|t| t.name == AVERAGES_TABLE).context("no averages table")?;
    write_csv(csv, averages)?;
    if let Some(dir) = m.get_one::<PathBuf>("out") {
        super::output::write_report(dir, &trace, &report)?;
    }
    if let Some(p) = m.get_one::<PathBuf>("plot") {
        super::output::write_plot(p, &report.charts)?;
    }
    for n in &report.notes {
        println!("{n}");
    }
    println!("{} operations written to {}", averages.rows(), csv.display());
    print!("{}", preview(averages, 10));
    Ok(())
}

/// Runs `extract`.
pub fn run_extract(m: &ArgMatches) -> Result<()> {
    let (input, csv) = (path(m, "input")?, path(m, "csv")?);
    check_output(input, csv)?;
    let range = parse_range(m.get_one::<String>("range").map(String::as_str).unwrap_or_default())?;
    let params = Params::new(gpu_ops::ANALYSIS.options, given(gpu_ops::ANALYSIS.options, m))?;
    let ranks = ranks_of(m, "ranks", "--ranks")?;
    let trace = super::input::read_trace(std::slice::from_ref(input))?;
    let selected = select_ranks(&trace, ranks.as_deref())?;
    let t = extract(&trace, &selected, range, params.bool("keep_suffix"));
    write_csv(csv, &t)?;
    println!("{} GPU operations between {} and {} µs written to {}", t.rows(), us(range.0), us(range.1), csv.display());
    print!("{}", preview(&t, 10));
    Ok(())
}
