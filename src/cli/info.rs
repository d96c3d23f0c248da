//! `kinetoscope info PATH...`: the overview of a trace.

use std::io::Write;
use std::path::PathBuf;

use anyhow::Result;
use kinetoscope::analysis::overview::{overview, Overview};

/// Options of `info`.
#[derive(clap::Args)]
pub struct Args {
    /// Trace files or folders of per-rank traces (.json, .json.gz, rocprof CSV; detected by content).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print events per kind per rank as CSV (`rank,kind,events`).
    #[arg(long)]
    csv: bool,
    /// Write an SVG chart of events per kind.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
}

/// Runs `info`.
pub fn run(a: Args) -> Result<()> {
    let trace = super::input::read_trace(&a.paths)?;
    let ov = overview(&trace);
    if let Some(p) = &a.plot {
        let mut svg = String::new();
        {
            let root = plotters::prelude::SVGBackend::with_string(&mut svg, (800, 480));
            use plotters::prelude::IntoDrawingArea;
            let style = kinetoscope::chart::draw::Style::LIGHT;
            kinetoscope::chart::kinds::draw_kinds(&root.into_drawing_area(), &ov, &style).map_err(anyhow::Error::msg)?;
        }
        std::fs::write(p, svg)?;
    }
    let mut out = std::io::stdout().lock();
    if a.json {
        serde_json::to_writer_pretty(&mut out, &ov)?;
        writeln!(out)?;
    } else if a.csv {
        out.write_all(kinetoscope::analysis::overview::kinds_table(&ov).to_csv().as_bytes())?;
    } else {
        print_text(&mut out, &ov)?;
    }
    Ok(())
}

fn thousands(n: u64) -> String {
    kinetoscope::html::group(n.min(i64::MAX as u64) as i64)
}

/// Step numbers as a list, or as a count and range when there are many (`--json` has them all).
fn steps_text(steps: &[i32]) -> String {
    if steps.len() <= 12 {
        return format!("{steps:?}");
    }
    let (lo, hi) = (steps.iter().min().copied().unwrap_or(0), steps.iter().max().copied().unwrap_or(0));
    format!("{} steps, #{lo} .. #{hi}", steps.len())
}

fn print_text(out: &mut impl Write, ov: &Overview) -> Result<()> {
    writeln!(out, "{} events in {} rank(s)", thousands(ov.events), ov.ranks.len())?;
    for r in &ov.ranks {
        writeln!(out)?;
        writeln!(
            out,
            "rank {}  {}  ({}, {} bytes{})",
            r.rank,
            r.file,
            r.format,
            thousands(r.bytes),
            if r.gzip_members > 0 { ", gzip" } else { "" }
        )?;
        for (k, v) in &r.version {
            writeln!(out, "  {k:<18} {v}")?;
        }
        if let Some(d) = &r.distributed {
            let or_unknown = |v: Option<i64>| v.map_or_else(|| "?".to_string(), |v| v.to_string());
            let backend = d.backend.as_deref().unwrap_or("?");
            writeln!(out, "  {:<18} rank {} of {}, backend {backend}", "distributed", or_unknown(d.rank), or_unknown(d.world_size))?;
        }
        for d in &r.device_properties {
            writeln!(out, "  {:<18} {} {}", "device", d.id.map(|i| i.to_string()).unwrap_or_default(), d.name.as_deref().unwrap_or("?"))?;
        }
        if r.device_properties_omitted > 0 {
            writeln!(out, "  {:<18} … and {} more in deviceProperties", "device", r.device_properties_omitted)?;
        }
        if !r.devices.is_empty() {
            writeln!(out, "  {:<18} {:?}", "devices used", r.devices)?;
        }
        if !r.streams.is_empty() {
            writeln!(out, "  {:<18} {:?}", "streams", r.streams)?;
        }
        if let Some(s) = &r.span_ns {
            writeln!(out, "  {:<18} {:.3} ms ({} .. {} ns)", "time span", kinetoscope::analysis::units::ms(s.duration), s.start, s.end)?;
        }
        if !r.steps.is_empty() {
            writeln!(out, "  {:<18} {}", "profiler steps", steps_text(&r.steps))?;
        }
        writeln!(out, "  {:<18} {}  (rows kept: {}, threads: {})", "events", thousands(r.events), thousands(r.rows as u64), r.threads)?;
        let mut kinds: Vec<_> = r.kinds.iter().collect();
        kinds.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (k, v) in kinds {
            writeln!(out, "    {k:<22} {:>12}", thousands(*v))?;
        }
    }
    if !ov.warnings.is_empty() {
        writeln!(out)?;
        writeln!(out, "warnings:")?;
        for w in &ov.warnings {
            writeln!(
                out,
                "  {} × {}: {} (first at byte {} of {}: {})",
                w.count,
                serde_json::to_value(w.kind)?.as_str().unwrap_or(""),
                w.message,
                w.offset,
                w.file,
                w.detail
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::steps_text;

    #[test]
    fn long_step_lists_are_summarised() {
        assert_eq!(steps_text(&[2, 3, 4]), "[2, 3, 4]");
        let many: Vec<i32> = (5..=40).collect();
        assert_eq!(steps_text(&many), "36 steps, #5 .. #40");
    }
}
