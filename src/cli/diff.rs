//! `kinetoscope diff CONTROL TEST`: what changed between two runs, per operator (HTA's TraceDiff,
//! `analysis::diff`). `--hta --out DIR` writes the oracle's `compare_traces__*`, `ops_diff__*`,
//! `ops_summary__*` and `iterations__*` files.

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use kinetoscope::analysis::diff::{hta_tables, ranked_table, summary_line, Device, LabeledTrace};
use kinetoscope::analysis::report::Report;

/// Options of `diff`.
#[derive(clap::Args)]
pub struct Args {
    /// The run before the change: a trace file or a folder of per-rank traces.
    control: PathBuf,
    /// The run after it.
    test: PathBuf,
    /// HTA 0.5.0's TraceDiff tables with the oracle's names (compare_traces__*, ops_diff__*,
    /// ops_summary__*, iterations__*), its µs rounding included.
    #[arg(long)]
    hta: bool,
    /// Rank of CONTROL to compare (default: the first).
    #[arg(long, value_name = "N")]
    control_rank: Option<u32>,
    /// Rank of TEST to compare (default: the first).
    #[arg(long, value_name = "N")]
    test_rank: Option<u32>,
    /// Operators counted: all, cpu (stream −1) or gpu.
    #[arg(long, value_name = "all|cpu|gpu", default_value = "all", value_parser = ["all", "cpu", "gpu"])]
    device: String,
    /// Compare short names (templates and argument lists removed; HTA's use_short_name).
    #[arg(long)]
    short_names: bool,
    /// Print CSV.
    #[arg(long, conflicts_with = "json")]
    csv: bool,
    /// Print the tables and the summary as JSON ({"tables": {name: rows}, "notes": [...]}).
    #[arg(long)]
    json: bool,
    /// Also write every table as DIR/<table>.csv.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

/// Runs `diff`.
pub fn run(a: Args) -> Result<()> {
    let control_trace = super::input::read_trace(std::slice::from_ref(&a.control))?;
    let test_trace = super::input::read_trace(std::slice::from_ref(&a.test))?;
    let side = |label: &str, t, rank: Option<u32>, path: &PathBuf| {
        LabeledTrace::new(label, t, rank, !a.hta).with_context(|| match rank {
            Some(r) => format!("{}: no rank {r}", path.display()),
            None => format!("{}: no rank with events", path.display()),
        })
    };
    let control = side("control", &control_trace, a.control_rank, &a.control)?;
    let test = side("test", &test_trace, a.test_rank, &a.test)?;
    let device = Device::ALL.into_iter().find(|d| d.as_str() == a.device).unwrap_or(Device::All);
    let mut report = Report::default();
    if a.hta {
        report.tables = hta_tables(&control, &test);
    } else {
        report.tables.push(ranked_table(&control, &test, device, a.short_names));
    }
    report.notes.push(summary_line(&control, &test));
    if let Some(dir) = &a.out {
        let mut all = report.clone();
        if !a.hta {
            all.tables = Device::ALL.into_iter().flat_map(|d| [false, true].map(|s| ranked_table(&control, &test, d, s))).collect();
        }
        super::analysis::write_report(dir, &all)?;
    }
    let shown = if a.hta && !a.csv && !a.json {
        // the oracle's tables are long; print the one asked for
        let want = format!("compare_traces__{}{}", device.as_str(), if a.short_names { "__short" } else { "" });
        Report { tables: report.tables.iter().filter(|t| t.name == want).cloned().collect(), ..report.clone() }
    } else {
        report.clone()
    };
    super::analysis::print_report(&mut std::io::stdout().lock(), &shown, a.csv, a.json)?;
    for n in &report.notes {
        eprintln!("{n}");
    }
    Ok(())
}
