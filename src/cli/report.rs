//! `kinetoscope report PATH... -o report.html`: the page's saved report from the command line (the
//! same Rust code: `page::Workspace::report_html`), for a CI job to attach.

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use kinetoscope::page::{View, Workspace};

/// Options of `report`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files or folders of per-rank traces.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long, value_name = "FILE.html", default_value = "report.html")]
    out: PathBuf,
    /// A panel to add after the Overview, as the page's link says it: `NAME` or
    /// `NAME?option=value&ranks=0-3&hta=1` (repeatable; in this order).
    #[arg(long, value_name = "NAME[?OPTIONS]")]
    panel: Vec<String>,
    /// Add every analysis with its default options (after the --panel ones).
    #[arg(long)]
    all: bool,
}

/// Runs `report`.
pub fn run(a: Args) -> Result<()> {
    let mut views = a.panel.iter().map(|p| view(p)).collect::<Result<Vec<_>>>()?;
    if a.all {
        for r in kinetoscope::analysis::registry::ANALYSES.iter().filter(|r| r.name != "summary") {
            if !views.iter().any(|v| v.analysis == r.name) {
                views.push(View { analysis: r.name.to_string(), ..View::default() });
            }
        }
    }
    let trace = super::input::read_trace(&a.paths)?;
    let mut w = Workspace::new(trace);
    let generated = format!("written by kinetoscope {} (kinetoscope report)", env!("CARGO_PKG_VERSION"));
    let (html, slots) = w.report_html(views, &generated);
    let file = kinetoscope::html::fill_slots(&html, &slots.charts);
    std::fs::write(&a.out, file).with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!("wrote {}", a.out.display());
    Ok(())
}

/// `NAME?option=value&ranks=0-3&hta=1` as a view.
fn view(spec: &str) -> Result<View> {
    let (name, query) = spec.split_once('?').unwrap_or((spec, ""));
    let Some(a) = kinetoscope::analysis::registry::find(name) else {
        bail!("--panel {spec}: no analysis '{name}' (kinetoscope --help lists them)");
    };
    let mut v = View { analysis: a.name.to_string(), ..View::default() };
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, value) = pair.split_once('=').unwrap_or((pair, "true"));
        match k {
            "ranks" => v.ranks = value.to_string(),
            "hta" => v.hta = matches!(value, "1" | "true"),
            _ if a.options.iter().any(|o| o.name == k) => v.given.push((k.to_string(), value.to_string())),
            _ => bail!(
                "--panel {spec}: '{k}' is not an option of {name} (options: {}; and ranks, hta)",
                a.options.iter().map(|o| o.name).collect::<Vec<_>>().join(", ")
            ),
        }
    }
    Ok(v)
}
