//! One subcommand per analysis (`kinetoscope temporal PATH...`), built from the registry: the
//! common options (`--ranks`, `--hta`, `--csv`, `--json`, `--plot`) plus the analysis' own,
//! spelled with dashes (`--duration-ratio 0.8`). [`option_arg`] and [`given`] also build the
//! options of `stats`, `extract` and `diff` from their analyses' tables, so an option is
//! declared once ([`Opt`]) for the page and the command line.

use std::path::PathBuf;

use anyhow::Result;
use clap::{Arg, ArgAction, ArgMatches, Command};
use kinetoscope::analysis::api::{Analysis, Context, Opt, OptKind, Params};

use super::output::{out_arg, plot_arg, print_report, ranks_arg, ranks_of, write_plot, write_produced_trace, write_report};

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
        .arg(ranks_arg("Ranks to analyse, e.g. 0,2-5 (default: all)"))
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
            Arg::new("table")
                .long("table")
                .value_name("NAME")
                .help("Keep only the table called NAME, printed and written by --out (with --csv, that table's CSV alone: rocprof_stats --csv --table stats > stats.csv)"),
        )
        .arg(out_arg("Also write each table as DIR/<table>.csv and any produced file (e.g. a trace) into DIR"))
        .arg(plot_arg("Write the charts to an SVG or PNG file"));
    // every subcommand is snake_case, as the analyses and the page's panels are; the kebab-case
    // spelling is accepted too
    if a.name.contains('_') {
        c = c.alias(a.name.replace('_', "-"));
    }
    for o in a.options {
        c = c.arg(option_arg(o));
    }
    c
}

/// Runs analysis `a` with the parsed arguments `m`.
pub fn run(a: &'static Analysis, m: &ArgMatches) -> Result<()> {
    let paths: Vec<PathBuf> = m.get_many::<PathBuf>("paths").into_iter().flatten().cloned().collect();
    let ranks = ranks_of(m, "ranks", "--ranks")?;
    let params = Params::new(a.options, given(a.options, m))?;
    let trace = super::input::read_trace(&paths)?;
    let ctx = Context::new(&trace, m.get_flag("hta"), ranks.as_deref())?;
    let mut report = a.report(&ctx, &params)?;
    if let Some(name) = m.get_one::<String>("table") {
        if !report.tables.iter().any(|t| &t.name == name) {
            let names: Vec<&str> = report.tables.iter().map(|t| t.name.as_str()).collect();
            anyhow::bail!("--table {name}: {} has no such table (it has: {})", a.name, names.join(", "));
        }
        report.tables.retain(|t| &t.name == name);
    }
    if let Some(p) = m.get_one::<PathBuf>("plot") {
        write_plot(p, &report.charts)?;
    }
    if let Some(dir) = m.get_one::<PathBuf>("out") {
        write_report(dir, &trace, &report)?;
    }
    for o in a.options.iter().filter(|o| o.kind == OptKind::OutFile) {
        let path = params.str(o.name);
        if !path.is_empty() {
            write_produced_trace(std::path::Path::new(path), &trace, &report)?;
        }
    }
    let mut out = std::io::stdout().lock();
    print_report(&mut out, &report, m.get_flag("csv"), m.get_flag("json"))?;
    for n in &report.notes {
        eprintln!("note: {n}");
    }
    Ok(())
}

/// The command-line argument of option `o`: `--duration-ratio X`, its help with the default;
/// a boolean takes an optional value (`--keep-suffix` = `--keep-suffix true`).
pub fn option_arg(o: &'static Opt) -> Arg {
    let arg = Arg::new(o.name).long(o.name.replace('_', "-")).help(format!(
        "{} [default: {}]",
        o.help,
        match (o.default, o.kind) {
            ("", OptKind::IntList) => "all",
            ("", _) => "none",
            (d, _) => d,
        }
    ));
    match o.kind {
        OptKind::Bool => arg.value_name("BOOL").num_args(0..=1).default_missing_value("true"),
        OptKind::Int => arg.value_name("N"),
        OptKind::Float => arg.value_name("X"),
        OptKind::IntList => arg.value_name("LIST"),
        OptKind::Str => arg.value_name("TEXT"),
        OptKind::OutFile => arg.value_name("FILE"),
    }
}

/// The options of `opts` given on the command line, as `(name, text)` for [`Params::new`].
pub fn given<'m>(opts: &'static [Opt], m: &'m ArgMatches) -> Vec<(&'static str, &'m str)> {
    opts.iter().filter_map(|o| m.get_one::<String>(o.name).map(|v| (o.name, v.as_str()))).collect()
}
