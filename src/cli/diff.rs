//! `kinetoscope diff CONTROL [TEST]`: what changed between two runs, or between some ranks of one
//! run and its other ranks (`analysis::diff`). `--hta --out DIR` writes the oracle's
//! `compare_traces__*`, `ops_diff__*`, `ops_summary__*` and `iterations__*` files.

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use kinetoscope::analysis::api::Params;
use kinetoscope::analysis::diff::{choices, hta_report, other_ranks, report, side_frames, DiffOptions, Side, OPTIONS};

use super::output::{out_arg, plot_arg, ranks_of};
use super::subcommands::{given, option_arg};

/// The `diff` subcommand: the two runs, the options of a diff (`analysis::diff::OPTIONS`, the
/// page's Diff form: declared once), the ranks of each side, the mode and the outputs.
pub fn command() -> Command {
    let mut c = Command::new("diff")
        .about("What changed between two runs, per operator (HTA's TraceDiff)")
        .arg(
            Arg::new("control")
                .value_name("CONTROL")
                .required(true)
                .value_parser(clap::value_parser!(PathBuf))
                .help("The run before the change: a trace file or a folder of per-rank traces"),
        )
        .arg(
            Arg::new("test")
                .value_name("TEST")
                .value_parser(clap::value_parser!(PathBuf))
                .help("The run after it. Without it, --test-ranks of CONTROL are compared with its other ranks"),
        );
    for o in OPTIONS {
        let mut arg = option_arg(o);
        let values = choices(o.name);
        if !values.is_empty() {
            arg = arg.value_name(values.join("|")).value_parser(clap::builder::PossibleValuesParser::new(values));
        }
        if o.name == "test_iteration" {
            arg = arg.requires("iteration");
        }
        c = c.arg(arg);
    }
    c.arg(Arg::new("control_ranks").long("control-ranks").value_name("LIST").help(
        "Ranks of CONTROL compared, e.g. 0-3 (default: all; with one trace, all but --test-ranks). Several ranks: per key, the median over them",
    ))
    .arg(Arg::new("test_ranks").long("test-ranks").value_name("LIST").help("Ranks of TEST compared (default: all)"))
    .arg(Arg::new("hta").long("hta").action(ArgAction::SetTrue).help(
        "HTA 0.5.0's TraceDiff tables with the oracle's names (compare_traces__*, ops_diff__*, ops_summary__*, iterations__*): the first iteration of one rank per side, µs rounding included",
    ))
    .arg(Arg::new("csv").long("csv").action(ArgAction::SetTrue).conflicts_with("json").help("Print the main table as CSV"))
    .arg(
        Arg::new("json")
            .long("json")
            .action(ArgAction::SetTrue)
            .help("Print every table and the summary as JSON ({\"tables\": {name: [rows]}, \"notes\": [...]})"),
    )
    .arg(
        out_arg("Also write every table as DIR/<table>.csv"),
    )
    .arg(
        plot_arg("Write the charts (grouped bars control/test/difference) to an SVG or PNG file"),
    )
}

/// Runs `diff`.
pub fn run(m: &ArgMatches) -> Result<()> {
    let params = Params::new(OPTIONS, given(OPTIONS, m))?;
    let o = DiffOptions::from_params(&params)?;
    let hta = m.get_flag("hta");
    let control_path = m.get_one::<PathBuf>("control").context("missing CONTROL (a bug: clap requires it)")?;
    let test_path = m.get_one::<PathBuf>("test");
    // the two runs are read at the same time, each then gets its frames in its own thread
    let read = |p: &PathBuf| {
        super::input::read_trace(std::slice::from_ref(p)).map(|t| {
            let f = (!hta).then(|| side_frames(&t));
            (t, f)
        })
    };
    let (control, test) = std::thread::scope(|s| {
        let test = test_path.map(|p| s.spawn(move || read(p)));
        let control = read(control_path);
        let test = test.map(|h| h.join().unwrap_or_else(|_| Err(anyhow::anyhow!("reading the test trace failed (a bug)"))));
        (control, test)
    });
    let ((control_trace, control_frames), test) = (control?, test.transpose()?);
    let (test_trace, test_frames) = match test {
        Some((t, f)) => (Some(t), f),
        None => (None, None),
    };
    let mut control_ranks = ranks_of(m, "control_ranks", "--control-ranks")?;
    let test_ranks = ranks_of(m, "test_ranks", "--test-ranks")?;
    if test_trace.is_none() {
        let Some(t) = &test_ranks else {
            bail!("one trace given: say which of its ranks to compare with the others (--test-ranks 3), or give a TEST trace")
        };
        if control_ranks.is_none() {
            control_ranks = Some(other_ranks(&control_trace, t).map_err(|e| anyhow::anyhow!("{}: {e}", control_path.display()))?);
        }
    }
    let test_trace = test_trace.as_ref().unwrap_or(&control_trace);
    let mut report = if hta {
        hta_report(
            &control_trace,
            test_trace,
            control_ranks.as_deref(),
            test_ranks.as_deref(),
            (o.iteration, o.test_iteration.or(o.iteration)),
            o.device,
            o.short_names,
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .0
    } else {
        let control_frames = control_frames.context("frames of the control run (a bug)")?;
        // one run compared with itself: both sides start from its frames
        let test_frames = test_frames.unwrap_or_else(|| control_frames.clone());
        let control = Side::with_frames("control", &control_trace, control_ranks.as_deref(), control_frames)
            .map_err(|e| anyhow::anyhow!("{}: {e}", control_path.display()))?;
        let test = Side::with_frames("test", test_trace, test_ranks.as_deref(), test_frames)
            .map_err(|e| anyhow::anyhow!("{}: {e}", test_path.unwrap_or(control_path).display()))?;
        report(&control, &test, &o).map_err(|e| anyhow::anyhow!("{e}"))?
    };
    if let Some(dir) = m.get_one::<PathBuf>("out") {
        super::output::write_report(dir, &control_trace, &report)?;
    }
    if let Some(p) = m.get_one::<PathBuf>("plot") {
        super::output::write_plot(p, &report.charts)?;
    }
    let (csv, json) = (m.get_flag("csv"), m.get_flag("json"));
    if !json {
        // the main table only; --json and --out have them all
        report.tables.truncate(1);
    }
    super::output::print_report(&mut std::io::stdout().lock(), &report, csv, json)?;
    for n in &report.notes {
        eprintln!("{n}");
    }
    Ok(())
}
