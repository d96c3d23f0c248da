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
    /// An analysis' option, e.g. `critical_path.annotation=ProfilerStep` (repeatable).
    #[arg(long = "option", value_name = "ANALYSIS.NAME=VALUE")]
    options: Vec<String>,
}

/// `--option ANALYSIS.NAME=VALUE` values: (analysis, option name, value), each checked against the
/// registry.
fn parse_options(given: &[String]) -> Result<Vec<(&'static str, &'static str, String)>> {
    given
        .iter()
        .map(|o| {
            let (key, value) = o.split_once('=').with_context(|| format!("--option {o}: expected ANALYSIS.NAME=VALUE"))?;
            let (analysis, name) = key.split_once('.').with_context(|| format!("--option {o}: expected ANALYSIS.NAME=VALUE"))?;
            let a =
                kinetoscope::analysis::registry::find(analysis).with_context(|| format!("--option {o}: no analysis called {analysis}"))?;
            let opt = a.options.iter().find(|x| x.name == name.replace('-', "_")).with_context(|| {
                let names: Vec<&str> = a.options.iter().map(|x| x.name).collect();
                format!("--option {o}: {} has no option {name} (options: {})", a.name, names.join(", "))
            })?;
            Ok((a.name, opt.name, value.to_string()))
        })
        .collect()
}

/// Runs `analyze`.
pub fn run(a: Args) -> Result<()> {
    let ranks = a.ranks.as_deref().map(parse_int_list).transpose()?.flatten();
    let trace = super::input::read_trace(&a.paths)?;
    let options = parse_options(&a.options)?;
    let ctx = Context::new(&trace, a.hta, ranks.as_deref())?;
    std::fs::create_dir_all(&a.out).with_context(|| format!("creating {}", a.out.display()))?;
    let mut status = String::from("analysis,status,tables,message\n");
    let (mut written, mut failed) = (0, 0);
    for mut step in hta_plan(&ctx) {
        let name = step.analysis.name;
        // a variant (a step with its own options) does not redraw the analysis' charts
        let variant = !step.params.is_empty();
        for (_, key, value) in options.iter().filter(|o| o.0 == name) {
            step.params.retain(|p| p.0 != *key);
            step.params.push((key, value.clone()));
        }
        match run_step(&ctx, &step) {
            Ok(report) => {
                written += super::output::write_report(&a.out, &trace, &report)?;
                if !a.no_charts && !report.charts.is_empty() && !variant {
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
