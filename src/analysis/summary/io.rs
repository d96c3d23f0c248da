//! The summary's figures for Recorder ranks, from the `io` report: the share of the run in
//! traced calls, the bytes written and read, the conflicting accesses.

use super::Figure;
use crate::analysis::api::{Context, Params};
use crate::analysis::stats::np_round;
use crate::model::IntColumn;
use crate::table::{Report, Table, Values};

/// Megabytes (10^6 bytes), 1 decimal.
fn mb(bytes: i64) -> f64 {
    np_round(bytes as f64 / 1e6, 1)
}

/// The `io` report with its defaults, if the selected ranks hold a Recorder trace.
pub(super) fn io_report(ctx: &Context<'_>) -> Option<Report> {
    if !ctx.selected.iter().any(|&i| ctx.trace.ranks[i].format == Some(crate::model::Format::Recorder)) {
        return None;
    }
    let params = Params::new(crate::analysis::io::ANALYSIS.options, std::iter::empty()).ok()?;
    crate::analysis::io::ANALYSIS.report(ctx, &params).ok()
}

/// The integer column `col` of table `name` in `r`, if there is one.
fn int_column<'r>(r: &'r Report, name: &str, col: &str) -> Option<&'r IntColumn> {
    match r.tables.iter().find(|t| t.name == name).and_then(|t| t.column(col)).map(|c| &c.values) {
        Some(Values::Int(v)) => Some(v),
        _ => None,
    }
}

/// The integers of column `col` of table `name` in `r` (empty if missing).
fn ints(r: &Report, name: &str, col: &str) -> Vec<i64> {
    int_column(r, name, col).map_or_else(Vec::new, |v| v.iter().collect())
}

/// The I/O of Recorder ranks, from the `io` report `io`: the share of the run in traced calls,
/// the bytes written and read, the conflicting accesses.
pub(super) fn io_figures(io: &Report) -> Vec<Figure> {
    let (busy, span) = (ints(io, "io_ranks", "io_time_ns"), ints(io, "io_ranks", "span_ns"));
    let ranks = ints(io, "io_ranks", "rank");
    let share = |i: usize| if span[i] > 0 { 100.0 * busy[i] as f64 / span[i] as f64 } else { f64::NAN };
    let top = (0..ranks.len()).max_by(|&a, &b| share(a).total_cmp(&share(b)).then(ranks[b].cmp(&ranks[a])));
    let busiest = match top {
        Some(i) if ranks.len() > 1 => format!("; most: rank {} at {:.1} %", ranks[i], share(i)),
        _ => String::new(),
    };
    let files = io.tables.iter().find(|t| t.name == "files");
    let get = |c: &str, i: usize| int_column(io, "files", c).filter(|v| i < v.len()).map_or(0, |v| v.get(i));
    let moved = |i: usize| {
        crate::analysis::io::bytes_moved(
            get("bytes_read", i) + get("bytes_written", i),
            get("mpiio_bytes_read", i) + get("mpiio_bytes_written", i),
        )
    };
    // the files table is sorted by bytes moved: its first row is the busiest file
    let top_file = match files.and_then(|t| t.column("file")).map(|c| &c.values) {
        Some(Values::Str(names)) if !names.is_empty() && moved(0) > 0 => format!("; most: {} ({:.1} MB)", &names[0], mb(moved(0))),
        _ => String::new(),
    };
    let sum = |table: &str, col: &str| int_column(io, table, col).map_or(0, |v| v.iter().sum::<i64>());
    let pairs = sum("conflicts", "pairs");
    vec![
        Figure {
            figure: "Time in I/O calls",
            value: np_round(100.0 * busy.iter().sum::<i64>() as f64 / span.iter().sum::<i64>().max(1) as f64, 1),
            unit: "%",
            detail: format!("of the {} ranks' spans in traced calls (POSIX, MPI-IO, MPI, HDF5){busiest}", ranks.len()),
            panel: "io",
        },
        Figure {
            figure: "Bytes written",
            value: mb(sum("io_ranks", "bytes_written")),
            unit: "MB",
            detail: format!(
                "and {:.1} MB read by POSIX calls, {} files{top_file}",
                mb(sum("io_ranks", "bytes_read")),
                files.map_or(0, Table::rows)
            ),
            panel: "io",
        },
        Figure {
            figure: "Conflicting accesses",
            value: pairs as f64,
            unit: "",
            detail: if pairs == 0 {
                "no two ranks read and write the same bytes of a file".into()
            } else {
                format!(
                    "pairs of ranks writing bytes another reads or writes; {} while both had the file open",
                    sum("conflicts", "concurrent")
                )
            },
            panel: "io",
        },
    ]
}
