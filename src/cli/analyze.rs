//! `kinetoscope analyze PATH... --out DIR [--hta]`: every analysis, each table as `DIR/<name>.csv`
//! and each analysis' charts as `DIR/<analysis>.svg`. With `--hta` the files are HTA 0.5.0's, named
//! and laid out as in `../shared/hta-oracle/out/<set>/` so they compare one to one; an analysis
//! HTA would fail on is listed in `DIR/_status.csv` instead of written.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use kinetoscope::analysis::api::{parse_int_list, Context};
use kinetoscope::analysis::registry::{hta_plan, run_step};

/// Options of `analyze`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files or folders of per-rank traces.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Folder to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Reproduce HTA 0.5.0 exactly, including its documented bugs, with the oracle's file names.
    #[arg(long)]
    hta: bool,
    /// Ranks to analyse, e.g. 0,2-5 (default: all).
    #[arg(long, value_name = "LIST")]
    ranks: Option<String>,
    /// Do not write SVG charts.
    #[arg(long)]
    no_charts: bool,
}

/// Runs `analyze`.
pub fn run(a: Args) -> Result<()> {
    let ranks = a.ranks.as_deref().map(parse_int_list).transpose()?.flatten();
    let trace = super::input::read_trace(&a.paths)?;
    let ctx = Context::new(&trace, a.hta, ranks.as_deref())?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut status = String::from("analysis,status,tables,message\n");
    let (mut written, mut failed) = (0, 0);
    for step in hta_plan(&ctx) {
        let name = step.analysis.name;
        match run_step(&ctx, &step) {
            Ok(report) => {
                written += super::output::write_report(&a.out, &trace, &report)?;
                if !a.no_charts && !report.charts.is_empty() && step.params.is_empty() {
                    let svg = kinetoscope::chart::draw::charts_svg(&report.charts).map_err(anyhow::Error::msg)?;
                    std::fs::write(a.out.join(format!("{name}.svg")), svg)?;
                }
                let _ = writeln!(status, "{name},ok,{},{}", report.tables.len(), csv_text(&report.notes.join("; ")));
            }
            Err(e) => {
                failed += 1;
                let _ = writeln!(status, "{name},error,0,{}", csv_text(&e.0));
            }
        }
    }
    std::fs::write(a.out.join("_status.csv"), status)?;
    eprintln!("wrote {written} files to {} ({failed} analyses not applicable, see _status.csv)", a.out.display());
    Ok(())
}

fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
