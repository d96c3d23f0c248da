//! `kinetoscope stats` and `kinetoscope extract`: kernel_extractor's two commands, with its
//! positional arguments and CSV files, on every format (`analysis::decode`). `stats` runs the
//! `decode` analysis of the registry and writes its `decode_op_averages` table; `--out DIR`
//! writes every table of it.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use kinetoscope::analysis::api::{parse_int_list, select_ranks, Context, Params};
use kinetoscope::analysis::decode::{AVERAGES_TABLE, DEFAULT_START_KERNEL};
use kinetoscope::analysis::gpu_ops::{extract, parse_range};
use kinetoscope::table::Table;

/// Options of `stats`.
#[derive(clap::Args)]
pub struct StatsArgs {
    /// Trace file, or a folder of per-rank traces (PaddlePaddle, PyTorch/Kineto, ...).
    input: PathBuf,
    /// CSV to write: operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us.
    csv: PathBuf,
    /// Cut each decode step at the first GPU operation whose name contains this; `none`: measure
    /// from the step start.
    #[arg(default_value = DEFAULT_START_KERNEL)]
    start_kernel: String,
    /// Steps longer than this (ms) are prefill (same as --prefill-ms).
    decode_max_ms: Option<String>,
    /// Steps longer than this (ms) are prefill and left out.
    #[arg(long, value_name = "MS", conflicts_with = "decode_max_ms")]
    prefill_ms: Option<String>,
    /// Only steps whose duration (ms) lies in LO,HI are decode steps (either side may be empty).
    #[arg(long, value_name = "LO,HI")]
    decode_ms: Option<String>,
    /// Keep the `[12.3 us]` timing suffix of operation names.
    #[arg(long)]
    keep_suffix: bool,
    /// Use the CPU-side events with exactly this name (e.g. a user annotation such as
    /// execute_model) as the steps, for traces without ProfilerStep#N / ProfileStep#N.
    #[arg(long, value_name = "NAME")]
    step_name: Option<String>,
    /// A step's GPU operations are those launched from it (by correlation id), wherever they run,
    /// not those that start and end inside it: for traces whose GPU runs behind the CPU.
    #[arg(long)]
    by_launch: bool,
    /// Ranks to analyse, e.g. 0,2-5 (default: all).
    #[arg(long, value_name = "LIST")]
    ranks: Option<String>,
    /// Also write every table (per-operation distributions, per step, per rank, outliers) as
    /// DIR/<table>.csv.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write the charts (step durations, average decode step) to an SVG or PNG file.
    #[arg(long, value_name = "FILE.svg|FILE.png")]
    plot: Option<PathBuf>,
}

/// Options of `extract`.
#[derive(clap::Args)]
pub struct ExtractArgs {
    /// Trace file, or a folder of per-rank traces.
    input: PathBuf,
    /// CSV to write: kernel_name,start_time_us,end_time_us,duration_us (with a leading rank column
    /// when there are several ranks).
    csv: PathBuf,
    /// START,END in µs, on the trace's clock (Paddle: args.start_time; else ts), e.g.
    /// 2684054.000,2687705.250.
    #[arg(allow_hyphen_values = true)]
    range: String,
    /// Keep the `[12.3 us]` timing suffix of operation names.
    #[arg(long)]
    keep_suffix: bool,
    /// Ranks to extract from, e.g. 0,2-5 (default: all).
    #[arg(long, value_name = "LIST")]
    ranks: Option<String>,
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
    std::fs::write(path, t.to_csv()).with_context(|| format!("writing {}", path.display()))
}

/// The first rows of `t` as text.
fn preview(t: &Table, rows: usize) -> String {
    let mut head = t.clone();
    head.select_rows(&(0..t.rows().min(rows)).collect::<Vec<_>>());
    head.to_text()
}

/// Runs `stats`.
pub fn run_stats(a: StatsArgs) -> Result<()> {
    check_output(&a.input, &a.csv)?;
    let ranks = a.ranks.as_deref().map(parse_int_list).transpose().context("--ranks")?.flatten();
    let flag = |b: bool| if b { "true" } else { "false" };
    let mut given = vec![("start_kernel", a.start_kernel.as_str()), ("keep_suffix", flag(a.keep_suffix)), ("by_launch", flag(a.by_launch))];
    if let Some(ms) = a.prefill_ms.as_deref().or(a.decode_max_ms.as_deref()) {
        given.push(("prefill_ms", ms));
    }
    if let Some(r) = &a.decode_ms {
        given.push(("decode_ms", r.as_str()));
    }
    if let Some(n) = &a.step_name {
        given.push(("step_name", n.as_str()));
    }
    let analysis = &kinetoscope::analysis::decode::ANALYSIS;
    let params = Params::new(analysis.options, given)?;
    let trace = super::input::read_trace(std::slice::from_ref(&a.input))?;
    let ctx = Context::new(&trace, false, ranks.as_deref())?;
    let report = (analysis.run)(&ctx, &params)?;
    let averages = report.tables.iter().find(|t| t.name == AVERAGES_TABLE).context("no averages table")?;
    write_csv(&a.csv, averages)?;
    if let Some(dir) = &a.out {
        super::analysis::write_report(dir, &report)?;
    }
    if let Some(p) = &a.plot {
        super::analysis::write_plot(p, &report.charts)?;
    }
    for n in &report.notes {
        println!("{n}");
    }
    println!("{} operations written to {}", averages.rows(), a.csv.display());
    print!("{}", preview(averages, 10));
    Ok(())
}

/// Runs `extract`.
pub fn run_extract(a: ExtractArgs) -> Result<()> {
    check_output(&a.input, &a.csv)?;
    let range = parse_range(&a.range)?;
    let ranks = a.ranks.as_deref().map(parse_int_list).transpose().context("--ranks")?.flatten();
    let trace = super::input::read_trace(std::slice::from_ref(&a.input))?;
    let selected = select_ranks(&trace, ranks.as_deref())?;
    let t = extract(&trace, &selected, range, a.keep_suffix);
    write_csv(&a.csv, &t)?;
    println!(
        "{} GPU operations between {} and {} µs written to {}",
        t.rows(),
        range.0 as f64 / 1000.0,
        range.1 as f64 / 1000.0,
        a.csv.display()
    );
    print!("{}", preview(&t, 10));
    Ok(())
}
