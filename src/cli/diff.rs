//! `kinetoscope diff CONTROL [TEST]`: what changed between two runs, or between some ranks of one
//! run and its other ranks (`analysis::diff`). `--hta --out DIR` writes the oracle's
//! `compare_traces__*`, `ops_diff__*`, `ops_summary__*` and `iterations__*` files.

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use kinetoscope::analysis::api::parse_int_list;
use kinetoscope::analysis::decode::{start_kernel, step_name};
use kinetoscope::analysis::diff::{hta_report, other_ranks, report, side_frames, By, Device, DiffOptions, Side};

/// Options of `diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The run before the change: a trace file or a folder of per-rank traces.
    control: PathBuf,
    /// The run after it. Without it, --test-ranks of CONTROL are compared with its other ranks.
    test: Option<PathBuf>,
    /// The main comparison: operators, GPU kernels, kernel types, steps or user annotations.
    #[arg(long, value_name = "op|kernel|type|step|annotation", default_value = "op", value_parser = ["op", "kernel", "type", "step", "annotation"])]
    by: String,
    /// Ranks of CONTROL compared, e.g. 0-3 (default: all; with one trace, all but --test-ranks).
    /// Several ranks: per key, the median over them.
    #[arg(long, value_name = "LIST")]
    control_ranks: Option<String>,
    /// Ranks of TEST compared (default: all).
    #[arg(long, value_name = "LIST")]
    test_ranks: Option<String>,
    /// Compare this profiler step only (default: the average over every complete step; with
    /// --hta: the first step).
    #[arg(long, value_name = "N")]
    iteration: Option<i64>,
    /// The test run's step, when its number differs from --iteration's.
    #[arg(long, value_name = "M", requires = "iteration")]
    test_iteration: Option<i64>,
    /// Events `--by op` counts: all, cpu (stream −1) or gpu.
    #[arg(long, value_name = "all|cpu|gpu", default_value = "all", value_parser = ["all", "cpu", "gpu"])]
    device: String,
    /// Compare short names (templates and argument lists removed; HTA's use_short_name).
    #[arg(long)]
    short_names: bool,
    /// Decode steps (diff_decode) are cut at the first GPU operation containing this (none: at
    /// the step start).
    #[arg(long, value_name = "NAME", default_value = "recover_decode_task")]
    start_kernel: String,
    /// The steps of diff_decode are the CPU-side events with exactly this name (e.g. a user
    /// annotation such as execute_model), for traces without ProfilerStep#N.
    #[arg(long, value_name = "NAME")]
    step_name: Option<String>,
    /// diff_decode counts a step's GPU operations by launch (correlation id), not by its window.
    #[arg(long)]
    by_launch: bool,
    /// HTA 0.5.0's TraceDiff tables with the oracle's names (compare_traces__*, ops_diff__*,
    /// ops_summary__*, iterations__*): the first iteration of one rank per side, µs rounding
    /// included.
    #[arg(long)]
    hta: bool,
    /// Print the main table as CSV.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// Print every table and the summary as JSON ({"tables": {name: [rows]}, "notes": [...]}).
    #[arg(long)]
    json: bool,
    /// Also write every table as DIR/<table>.csv.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Write the charts (grouped bars control/test/difference) to an SVG or PNG file.
    #[arg(long, value_name = "FILE.svg|FILE.png")]
    plot: Option<PathBuf>,
}

fn ranks(text: &Option<String>, what: &str) -> Result<Option<Vec<i64>>> {
    match text {
        Some(t) => parse_int_list(t).map_err(|e| anyhow::anyhow!("{what}: {e}")),
        None => Ok(None),
    }
}

/// Runs `diff`.
pub fn run(a: Args) -> Result<()> {
    // the two runs are read at the same time, each then gets its frames in its own thread
    let read = |p: &PathBuf| {
        super::input::read_trace(std::slice::from_ref(p)).map(|t| {
            let f = (!a.hta).then(|| side_frames(&t));
            (t, f)
        })
    };
    let (control, test) = std::thread::scope(|s| {
        let test = a.test.as_ref().map(|p| s.spawn(move || read(p)));
        let control = read(&a.control);
        let test = test.map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("reading the test trace failed (a bug)"))));
        (control, test)
    });
    let ((control_trace, control_frames), test) = (control?, test.transpose()?);
    let (test_trace, test_frames) = match test {
        Some((t, f)) => (Some(t), f),
        None => (None, None),
    };
    let mut control_ranks = ranks(&a.control_ranks, "--control-ranks")?;
    let test_ranks = ranks(&a.test_ranks, "--test-ranks")?;
    if test_trace.is_none() {
        let Some(t) = &test_ranks else {
            bail!("one trace given: say which of its ranks to compare with the others (--test-ranks 3), or give a TEST trace")
        };
        if control_ranks.is_none() {
            control_ranks = Some(other_ranks(&control_trace, t).map_err(|e| anyhow::anyhow!("{}: {e}", a.control.display()))?);
        }
    }
    let test_trace = test_trace.as_ref().unwrap_or(&control_trace);
    // clap only lets through the names Device::parse knows
    let device = Device::parse(&a.device).unwrap_or(Device::All);
    let mut report = if a.hta {
        hta_report(
            &control_trace,
            test_trace,
            control_ranks.as_deref(),
            test_ranks.as_deref(),
            (a.iteration, a.test_iteration.or(a.iteration)),
            device,
            a.short_names,
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .0
    } else {
        let mut o = DiffOptions {
            by: By::parse(&a.by).unwrap_or(By::Op),
            device,
            short_names: a.short_names,
            iteration: a.iteration,
            test_iteration: a.test_iteration,
            ..Default::default()
        };
        o.decode.start_kernel = start_kernel(&a.start_kernel);
        o.decode.step_name = a.step_name.as_deref().and_then(step_name);
        o.decode.by_launch = a.by_launch;
        let control_frames = control_frames.context("frames of the control run (a bug)")?;
        // one run compared with itself: both sides start from its frames
        let test_frames = test_frames.unwrap_or_else(|| control_frames.clone());
        let control = Side::with_frames("control", &control_trace, control_ranks.as_deref(), control_frames)
            .map_err(|e| anyhow::anyhow!("{}: {e}", a.control.display()))?;
        let test = Side::with_frames("test", test_trace, test_ranks.as_deref(), test_frames)
            .map_err(|e| anyhow::anyhow!("{}: {e}", a.test.as_ref().unwrap_or(&a.control).display()))?;
        report(&control, &test, &o).map_err(|e| anyhow::anyhow!("{e}"))?
    };
    if let Some(dir) = &a.out {
        super::analysis::write_report(dir, &report)?;
    }
    if let Some(p) = &a.plot {
        super::analysis::write_plot(p, &report.charts)?;
    }
    if !a.json {
        // the main table only; --json and --out have them all
        report.tables.truncate(1);
    }
    super::analysis::print_report(&mut std::io::stdout().lock(), &report, a.csv, a.json)?;
    for n in &report.notes {
        eprintln!("{n}");
    }
    Ok(())
}
