//! One subcommand per analysis (`kinetoscope temporal PATH...`), built from the registry: the
//! common options (`--ranks`, `--hta`, `--csv`, `--json`, `--plot`) plus the analysis' own,
//! spelled with dashes (`--duration-ratio 0.8`).

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use clap::{Arg, ArgAction, ArgMatches, Command};
use kinetoscope::analysis::api::{parse_int_list, Analysis, Context, OptKind, Params};
use kinetoscope::table::Report;

/// The subcommand of `a`.
pub fn command(a: &'static Analysis) -> Command {
    let mut c = Command::new(a.name)
        .about(a.about)
        .long_about(if a.hta_api.is_empty() {
            format!("{}.", a.about)
        } else {
            format!("{}.\nMatches HolisticTraceAnalysis {}.", a.about, a.hta_api)
        })
        .arg(
            Arg::new("paths")
                .required(true)
                .num_args(1..)
                .value_parser(clap::value_parser!(PathBuf))
                .help("Trace files or folders of per-rank traces"),
        )
        .arg(Arg::new("ranks").long("ranks").value_name("LIST").help("Ranks to analyse, e.g. 0,2-5 (default: all)"))
        .arg(Arg::new("hta").long("hta").action(ArgAction::SetTrue).help("Reproduce HTA 0.5.0 exactly, including its documented bugs"))
        .arg(
            Arg::new("csv")
                .long("csv")
                .action(ArgAction::SetTrue)
                .conflicts_with("json")
                .help("Print CSV (several tables: each after a '# name' line)"),
        )
        .arg(Arg::new("json").long("json").action(ArgAction::SetTrue).help("Print JSON: {tables: {name: [rows]}, notes}"))
        .arg(
            Arg::new("out")
                .long("out")
                .value_name("DIR")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Also write each table as DIR/<table>.csv and any produced file (e.g. a trace) into DIR"),
        )
        .arg(
            Arg::new("plot")
                .long("plot")
                .value_name("FILE.svg|FILE.png")
                .value_parser(clap::value_parser!(PathBuf))
                .help("Write the charts to an SVG or PNG file"),
        );
    for o in a.options {
        let long = o.name.replace('_', "-");
        let mut arg = Arg::new(o.name).long(long).help(format!(
            "{} [default: {}]",
            o.help,
            match (o.default, o.kind) {
                ("", OptKind::IntList) => "all",
                ("", _) => "none",
                (d, _) => d,
            }
        ));
        arg = match o.kind {
            OptKind::Bool => arg.value_name("BOOL").num_args(0..=1).default_missing_value("true"),
            OptKind::Int => arg.value_name("N"),
            OptKind::Float => arg.value_name("X"),
            OptKind::IntList => arg.value_name("LIST"),
            OptKind::Str => arg.value_name("TEXT"),
        };
        c = c.arg(arg);
    }
    c
}

/// Runs analysis `a` with the parsed arguments `m`.
pub fn run(a: &'static Analysis, m: &ArgMatches) -> Result<()> {
    let paths: Vec<PathBuf> = m.get_many::<PathBuf>("paths").into_iter().flatten().cloned().collect();
    let ranks = match m.get_one::<String>("ranks") {
        Some(s) => parse_int_list(s).context("--ranks")?,
        None => None,
    };
    let given: Vec<(&str, &str)> = a.options.iter().filter_map(|o| m.get_one::<String>(o.name).map(|v| (o.name, v.as_str()))).collect();
    let params = Params::new(a.options, given)?;
    let trace = super::input::read_trace(&paths)?;
    let ctx = Context::new(&trace, m.get_flag("hta"), ranks.as_deref())?;
    let report = (a.run)(&ctx, &params)?;
    if let Some(p) = m.get_one::<PathBuf>("plot") {
        write_plot(p, &report.charts)?;
    }
    if let Some(dir) = m.get_one::<PathBuf>("out") {
        write_report(dir, &report)?;
    }
    let mut out = std::io::stdout().lock();
    print_report(&mut out, &report, m.get_flag("csv"), m.get_flag("json"))?;
    for n in &report.notes {
        eprintln!("note: {n}");
    }
    Ok(())
}

/// Writes `charts` to `path`: PNG if it ends in `.png`, else SVG.
pub fn write_plot(path: &std::path::Path, charts: &[kinetoscope::table::Chart]) -> Result<()> {
    use kinetoscope::chart::draw::{charts_png, charts_svg};
    let png = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"));
    let bytes = if png { charts_png(charts) } else { charts_svg(charts).map(String::into_bytes) }.map_err(anyhow::Error::msg)?;
    std::fs::write(path, bytes).with_context(|| format!("writing {}", path.display()))
}

/// Writes each table of `report` as `dir/<name>.csv` and each produced file into `dir`.
pub fn write_report(dir: &std::path::Path, report: &Report) -> Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for t in &report.tables {
        let p = dir.join(format!("{}.csv", t.name));
        std::fs::write(&p, t.to_csv()).with_context(|| format!("writing {}", p.display()))?;
    }
    for f in &report.files {
        let p = dir.join(&f.name);
        std::fs::write(&p, &f.bytes).with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(report.tables.len() + report.files.len())
}

/// Prints the tables of `report` as text, CSV or JSON.
pub fn print_report(out: &mut impl Write, report: &Report, csv: bool, json: bool) -> Result<()> {
    if json {
        let tables: serde_json::Map<String, serde_json::Value> = report.tables.iter().map(|t| (t.name.clone(), t.to_json_rows())).collect();
        serde_json::to_writer_pretty(&mut *out, &serde_json::json!({ "tables": tables, "notes": report.notes }))?;
        writeln!(out)?;
        return Ok(());
    }
    let several = report.tables.len() > 1;
    for (i, t) in report.tables.iter().enumerate() {
        if csv {
            if several {
                writeln!(out, "# {}", t.name)?;
            }
            out.write_all(t.to_csv().as_bytes())?;
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
