//! What every subcommand writes: each table as `DIR/<table>.csv` and each produced file (`--out`),
//! the charts as SVG or PNG (`--plot`), the tables as text, CSV or JSON on stdout; and the
//! arguments every subcommand spells the same way (`--ranks`, `--out`, `--plot`).

use std::io::Write;

use anyhow::{Context as _, Result};
use clap::{Arg, ArgMatches};
use kinetoscope::analysis::api::parse_int_list;
use kinetoscope::table::Report;
use kinetoscope::Trace;

/// Writes `charts` to `path`: PNG if it ends in `.png`, else SVG.
pub fn write_plot(path: &std::path::Path, charts: &[kinetoscope::table::Chart]) -> Result<()> {
    use kinetoscope::chart::draw::{charts_png, charts_svg};
    let png = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let bytes = if png { charts_png(charts) } else { charts_svg(charts).map(String::into_bytes) }.map_err(anyhow::Error::msg)?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Writes each table of `report` as `dir/<name>.csv` and the traces it produces (of `trace`,
/// written by `export::trace_files`) into `dir`.
pub fn write_report(dir: &std::path::Path, trace: &Trace, report: &Report) -> Result<usize> {
    Ok(write_tables(dir, report)? + write_traces(dir, trace, report)?)
}

/// The tables of `report` (`dir/<name>.csv`) and its ready-made files: what [`write_report`]
/// writes but the produced traces. Returns how many files.
pub fn write_tables(dir: &std::path::Path, report: &Report) -> Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for t in &report.tables {
        let p = dir.join(format!("{}.csv", t.name));
        write_csv_file(&p, t)?;
    }
    write_files(dir, &report.files)?;
    Ok(report.tables.len() + report.files.len())
}

/// The traces `report` produces (of `trace`, written by `export::trace_files`). Returns how many.
pub fn write_traces(dir: &std::path::Path, trace: &Trace, report: &Report) -> Result<usize> {
    let files = kinetoscope::export::trace_files(trace, report).context("writing a produced trace")?;
    write_files(dir, &files)?;
    Ok(files.len())
}

fn write_files(dir: &std::path::Path, files: &[kinetoscope::table::ReportFile]) -> Result<()> {
    for f in files {
        let p = dir.join(&f.name);
        std::fs::write(&p, &f.bytes).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(())
}

/// Writes `t` as CSV to `path`, streamed ([`kinetoscope::table::Table::write_csv`]).
pub fn write_csv_file(path: &std::path::Path, t: &kinetoscope::table::Table) -> Result<()> {
    let write = || -> std::io::Result<()> { t.write_csv(&mut std::fs::File::create(path)?) };
    write().with_context(|| format!("writing {}", path.display()))
}

/// Writes the trace `report` produces (its first) to `path`: gzip-compressed if the name ends
/// in `.gz`, else plain JSON; streamed, never whole in memory.
pub fn write_produced_trace(path: &std::path::Path, trace: &Trace, report: &Report) -> Result<()> {
    let out = report.traces.first().context("the analysis produced no trace to write")?;
    let gz = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("gz"));
    let write = || -> std::io::Result<()> {
        let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
        if gz {
            let mut g = kinetoscope::export::GzipWriter::with_level(file, kinetoscope::export::trace_out::TRACE_LEVEL);
            kinetoscope::export::write_trace_json(trace, out, &mut g)?;
            file = g.finish()?;
        } else {
            kinetoscope::export::write_trace_json(trace, out, &mut file)?;
        }
        file.flush()
    };
    write().with_context(|| format!("writing {}", path.display()))
}

/// Prints the tables of `report` as text, CSV or JSON.
pub fn print_report(out: &mut impl Write, report: &Report, csv: bool, json: bool) -> Result<()> {
    if json {
        // {notes, tables: {name: rows}}, keys sorted as a `serde_json::Map` keeps them; rows are
        // written as they are serialised, through a buffer (stdout flushes at every line)
        #[derive(serde::Serialize)]
        struct Json<'a> {
            notes: &'a [String],
            tables: std::collections::BTreeMap<&'a str, kinetoscope::table::JsonRows<'a>>,
        }
        let tables = report.tables.iter().map(|t| (t.name.as_str(), t.json_rows())).collect();
        let mut buf = std::io::BufWriter::with_capacity(1 << 16, &mut *out);
        serde_json::to_writer_pretty(&mut buf, &Json { notes: &report.notes, tables })?;
        writeln!(buf)?;
        buf.flush()?;
        return Ok(());
    }
    let several = report.tables.len() > 1;
    for (i, t) in report.tables.iter().enumerate() {
        if csv {
            if several {
                writeln!(out, "# {}", t.name)?;
            }
            t.write_csv(out)?;
        } else {
            if i > 0 {
                writeln!(out)?;
            }
            writeln!(out, "{}", t.name)?;
            out.write_all(t.to_text().as_bytes())?;
        }
    }
    Ok(())
}

/// `--ranks LIST` with `help`.
pub fn ranks_arg(help: &'static str) -> Arg {
    Arg::new("ranks").long("ranks").value_name("LIST").help(help)
}

/// The rank list given as argument `id` (`None`: not given, or `all`); a bad list is an error
/// that names `flag` (`--ranks: expected a number, found 'x'`).
pub fn ranks_of(m: &ArgMatches, id: &str, flag: &'static str) -> Result<Option<Vec<i64>>> {
    Ok(m.get_one::<String>(id).map(|s| parse_int_list(s)).transpose().context(flag)?.flatten())
}

/// `--out DIR` with `help`.
pub fn out_arg(help: &'static str) -> Arg {
    Arg::new("out").long("out").value_name("DIR").value_parser(clap::value_parser!(std::path::PathBuf)).help(help)
}

/// `--plot FILE.svg|FILE.png` with `help`.
pub fn plot_arg(help: &'static str) -> Arg {
    Arg::new("plot").long("plot").value_name("FILE.svg|FILE.png").value_parser(clap::value_parser!(std::path::PathBuf)).help(help)
}
