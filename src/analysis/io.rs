//! HPC I/O of Recorder traces (`kinetoscope io`): recorder-viz's report as tables and charts.
//! No HTA counterpart.
//!
//! A Recorder call is an event of a rank read from a Recorder folder (`read::recorder::model`:
//! category = layer, name = function, call arguments). Tables:
//! * `functions`: per layer and function over the selected ranks: `calls`, `ranks` (how many
//!   called it), `time_ns` (sum of the calls' durations; a call made inside another traced call,
//!   such as the `write` under an `MPI_File_write_at`, counts for both functions).
//! * `ranks`: per rank: `calls`, `io_time_ns` (the union of its calls: nested calls count once),
//!   `span_ns` (first call's start to last call's end), `io_pct` (`io_time_ns` over it), the
//!   `files` it used and its `bytes_read` and `bytes_written`.
//! * `files`: per file, from the POSIX and stdio calls ([`posix`]; MPI-IO and HDF5 reach files
//!   through them), replayed per rank (`replay`): ranks, sessions (opens) and the most open at
//!   once, data (read/write) and metadata ops, bytes, times, the access pattern counts and the
//!   conflicts (`conflicts`), and the bytes MPI-IO calls asked for. Most bytes moved first
//!   (POSIX's or MPI-IO's, whichever is larger: MPI-IO reaches a file through POSIX calls, which
//!   Recorder traces too unless the MPI library bypasses them, as OpenMPI's `pwritev` does).
//! * `sizes`: per op (read, write) and request size: calls and bytes; `size_histogram`: calls per
//!   size bucket (Darshan's buckets).
//! * `conflicts`: per file, kind (WAW, RAW, WAR), first and second rank: overlapping byte ranges.
//!
//! Charts: the timeline (ranks × time by kind of call, `timeline`), the size histogram, and the
//! time per function.

mod conflicts;
pub mod mpiio;
pub mod posix;
mod replay;
mod timeline;

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::intervals::{covered, merge_intervals};
use super::stats::np_round;
use crate::model::strings::StrId;
use crate::model::{EventId, Format, Phase, RankTrace};
use crate::table::{Chart, Report, Series, Table, Unit, Values};
use replay::Replay;
use rustc_hash::FxHashMap;
use timeline::Grid;

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "io",
    title: "I/O report (Recorder)",
    about: "POSIX, MPI, MPI-IO and HDF5 calls of a Recorder trace: time per function and rank, per-file traffic and access patterns, request sizes, conflicting accesses, the timeline",
    hta_api: "",
    group: Group::Io,
    options: &[
        Opt { name: "timeline_bins", kind: OptKind::Int, default: "600", help: "Time cells per rank in the timeline (at most 20000)" },
        Opt {
            name: "max_lanes",
            kind: OptKind::Int,
            default: "256",
            help: "Most timeline lanes: past this many ranks a lane is a group of ranks (at most 4096)",
        },
        Opt {
            name: "max_conflict_pairs",
            kind: OptKind::Int,
            default: "10000000",
            help: "Most overlapping pairs of reads and writes looked at for conflicts (then the table says it stopped)",
        },
    ],
    run,
};

/// Darshan's request-size buckets: (label, upper bound, exclusive).
const SIZE_BUCKETS: [(&str, i64); 10] = [
    ("0–100", 100),
    ("100–1K", 1_000),
    ("1K–10K", 10_000),
    ("10K–100K", 100_000),
    ("100K–1M", 1_000_000),
    ("1M–4M", 4_000_000),
    ("4M–10M", 10_000_000),
    ("10M–100M", 100_000_000),
    ("100M–1G", 1_000_000_000),
    ("1G+", i64::MAX),
];

fn run(ctx: &Context<'_>, p: &Params) -> Result<Report, AnalysisError> {
    if ctx.hta {
        return fail("io has no HTA 0.5.0 counterpart: run it without --hta");
    }
    // the timeline's grid is lanes × bins cells: both are bounded
    for (name, most) in [("timeline_bins", 20_000), ("max_lanes", 4_096), ("max_conflict_pairs", i64::MAX)] {
        if !(1..=most).contains(&p.int(name)) {
            return fail(format!("{name} must be between 1 and {most}"));
        }
    }
    let ranks: Vec<&RankTrace> = ctx.selected.iter().map(|&i| &ctx.trace.ranks[i]).filter(|r| r.format == Some(Format::Recorder)).collect();
    let mut report = Report::default();
    if ranks.is_empty() {
        report
            .notes
            .push("no Recorder trace among the selected ranks: io reads the calls of a Recorder trace folder (kinetoscope io DIR)".into());
    }
    let spans: Vec<(i64, i64)> = ranks.iter().map(|r| call_span(r)).collect();
    let (t0, t1) = (spans.iter().map(|s| s.0).min().unwrap_or(0), spans.iter().map(|s| s.1).max().unwrap_or(0));
    let mut grid = Grid::new(t0, t1, ranks.len(), p.int("max_lanes") as usize, p.int("timeline_bins") as usize);
    let replay = Replay::run(&ranks, &mut grid);
    let (conflicts, stopped) = conflicts::conflicts(&replay.ops, &replay.sessions, p.int("max_conflict_pairs") as u64);
    if stopped {
        report.notes.push(format!(
            "conflicts: stopped after {} overlapping pairs of reads and writes (max_conflict_pairs); the counts are a lower bound",
            p.int("max_conflict_pairs")
        ));
    }
    let (functions, function_chart) = functions_table(&ranks);
    report.charts.push(function_chart);
    report.tables.push(functions);
    report.tables.push(ranks_table(&ranks, &spans, &replay));
    report.tables.push(files_table(&replay, &conflicts));
    let (sizes, histogram, histogram_chart) = size_tables(&replay);
    report.tables.push(sizes);
    report.charts.push(histogram_chart);
    report.tables.push(histogram);
    report.tables.push(conflicts_table(&replay, &conflicts));
    let numbers: Vec<u32> = ranks.iter().map(|r| r.rank).collect();
    report.charts.insert(0, grid.chart(&numbers));
    Ok(report)
}

/// The completed calls of a rank.
fn calls(r: &RankTrace) -> impl Iterator<Item = usize> + '_ {
    (0..r.events.len()).filter(|&e| r.events.phase[e] == Phase::Complete)
}

/// A rank's first call start and last call end (0, 0 without calls).
fn call_span(r: &RankTrace) -> (i64, i64) {
    let ev = &r.events;
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for e in calls(r) {
        lo = lo.min(ev.ts[e]);
        hi = hi.max(ev.end(e as EventId));
    }
    if lo > hi {
        (0, 0)
    } else {
        (lo, hi)
    }
}

/// Calls, ranks and time of one (layer, function).
#[derive(Debug, Default)]
struct Function {
    calls: i64,
    ranks: std::collections::BTreeSet<u32>,
    time_ns: i64,
}

/// The `functions` table, and the chart of the 20 functions with the most time (ms).
fn functions_table(ranks: &[&RankTrace]) -> (Table, Chart) {
    let mut functions: BTreeMap<(&str, &str), Function> = BTreeMap::new();
    for r in ranks {
        // per rank by interned ids first: a string compare per call would cost more than the rest
        let mut mine: FxHashMap<(StrId, StrId), (i64, i64)> = FxHashMap::default();
        for e in calls(r) {
            let c = mine.entry((r.events.cat.get(e), r.events.name.get(e))).or_default();
            (c.0, c.1) = (c.0 + 1, c.1 + r.events.dur.get(e));
        }
        for ((cat, name), (n, time)) in mine {
            let f = functions.entry((r.strings.get(cat), r.strings.get(name))).or_default();
            f.calls += n;
            f.ranks.insert(r.rank);
            f.time_ns += time;
        }
    }
    let rows: Vec<(&(&str, &str), &Function)> = functions.iter().collect();
    let mut top: Vec<&(&(&str, &str), &Function)> = rows.iter().collect();
    top.sort_by_key(|(_, f)| std::cmp::Reverse(f.time_ns));
    top.truncate(20);
    let chart = Chart::Bars {
        title: "Time per function (top 20; nested calls count for both)".into(),
        x_label: "function".into(),
        y_label: "time (ms)".into(),
        categories: top.iter().map(|(k, _)| k.1.to_string()).collect(),
        values: top.iter().map(|(_, f)| f.time_ns as f64 / 1e6).collect(),
        errors: None,
    };
    let table = Table::new("io_functions")
        .with("layer", Unit::None, Values::Str(rows.iter().map(|(k, _)| k.0).collect()))
        .with("function", Unit::None, Values::Str(rows.iter().map(|(k, _)| k.1).collect()))
        .with("calls", Unit::Count, Values::Int(rows.iter().map(|(_, f)| f.calls).collect()))
        .with("ranks", Unit::Count, Values::Int(rows.iter().map(|(_, f)| f.ranks.len() as i64).collect()))
        .with("time_ns", Unit::Ns, Values::Int(rows.iter().map(|(_, f)| f.time_ns).collect()));
    (table, chart)
}

/// The `ranks` table (`spans`: each rank's [`call_span`]).
fn ranks_table(ranks: &[&RankTrace], spans: &[(i64, i64)], replay: &Replay) -> Table {
    let mut rows: Vec<(u32, i64, i64, i64)> = Vec::new();
    for (r, &(lo, hi)) in ranks.iter().zip(spans) {
        let ev = &r.events;
        let iv: Vec<(i64, i64)> = calls(r).map(|e| (ev.ts[e], ev.end(e as EventId))).collect();
        rows.push((r.rank, iv.len() as i64, covered(&merge_intervals(iv)), hi - lo));
    }
    let pct = |io: i64, span: i64| if span == 0 { f64::NAN } else { np_round(100.0 * io as f64 / span as f64, 2) };
    let totals = &replay.ranks;
    Table::new("io_ranks")
        .with("rank", Unit::None, Values::Int(rows.iter().map(|r| i64::from(r.0)).collect()))
        .with("calls", Unit::Count, Values::Int(rows.iter().map(|r| r.1).collect()))
        .with("io_time_ns", Unit::Ns, Values::Int(rows.iter().map(|r| r.2).collect()))
        .with("span_ns", Unit::Ns, Values::Int(rows.iter().map(|r| r.3).collect()))
        .with("io_pct", Unit::Percent, Values::Float(rows.iter().map(|r| pct(r.2, r.3)).collect()))
        .with("files", Unit::Count, Values::Int(totals.iter().map(|t| t.files).collect()))
        .with("bytes_read", Unit::Bytes, Values::Int(totals.iter().map(|t| t.bytes_read).collect()))
        .with("bytes_written", Unit::Bytes, Values::Int(totals.iter().map(|t| t.bytes_written).collect()))
}

/// Per file: its sessions, and the most of them open at once.
fn sessions_per_file(replay: &Replay) -> (Vec<i64>, Vec<i64>) {
    let mut count = vec![0i64; replay.names.len()];
    for s in &replay.sessions {
        count[s.file as usize] += 1;
    }
    let mut edges: Vec<(u32, i64, i64)> = replay.sessions.iter().flat_map(|s| [(s.file, s.start, 1), (s.file, s.end, -1)]).collect();
    // at equal times a close comes before an open: a session ending as another starts is not concurrent
    edges.sort_unstable();
    let mut most = vec![0i64; replay.names.len()];
    let mut open = 0i64;
    for (file, _, d) in edges {
        open += d;
        most[file as usize] = most[file as usize].max(open);
    }
    (count, most)
}

/// The bytes a file saw: POSIX's or MPI-IO's, whichever is larger (MPI-IO reaches a file through
/// POSIX calls, which Recorder traces too unless the MPI library bypasses them: not summed). The
/// `files` table is ordered by it; the Overview names its first file.
pub fn bytes_moved(posix: i64, mpiio: i64) -> i64 {
    posix.max(mpiio)
}

/// The `files` table.
fn files_table(replay: &Replay, conflicts: &conflicts::ByKey) -> Table {
    let mut conflicting = vec![0i64; replay.names.len()];
    for ((file, ..), c) in conflicts {
        conflicting[*file as usize] += c.pairs;
    }
    let (sessions, most) = sessions_per_file(replay);
    let f = &replay.files;
    let mut order: Vec<usize> = (0..f.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| {
            let bytes = bytes_moved(f[i].bytes_read + f[i].bytes_written, f[i].mpiio_bytes_read + f[i].mpiio_bytes_written);
            std::cmp::Reverse((bytes, f[i].data_ops + f[i].meta_ops + f[i].mpiio_ops))
        };
        key(a).cmp(&key(b)).then(replay.names[a].cmp(replay.names[b]))
    });
    let int = |get: &dyn Fn(usize) -> i64| Values::Int(order.iter().map(|&i| get(i)).collect());
    let pattern = |i: usize| {
        let [c, s, r] = f[i].pattern;
        match (c, s, r) {
            (0, 0, 0) => "",
            _ if r >= c.max(s) => "random",
            _ if s >= c => "sequential",
            _ => "consecutive",
        }
    };
    Table::new("files")
        .with("file", Unit::None, Values::Str(order.iter().map(|&i| replay.names[i]).collect()))
        .with("ranks", Unit::Count, int(&|i| f[i].ranks))
        .with("sessions", Unit::Count, int(&|i| sessions[i]))
        .with("max_open", Unit::Count, int(&|i| most[i]))
        .with("data_ops", Unit::Count, int(&|i| f[i].data_ops))
        .with("meta_ops", Unit::Count, int(&|i| f[i].meta_ops))
        .with("bytes_read", Unit::Bytes, int(&|i| f[i].bytes_read))
        .with("bytes_written", Unit::Bytes, int(&|i| f[i].bytes_written))
        .with("read_time_ns", Unit::Ns, int(&|i| f[i].read_ns))
        .with("write_time_ns", Unit::Ns, int(&|i| f[i].write_ns))
        .with("meta_time_ns", Unit::Ns, int(&|i| f[i].meta_ns))
        .with("mpiio_ops", Unit::Count, int(&|i| f[i].mpiio_ops))
        .with("mpiio_bytes_read", Unit::Bytes, int(&|i| f[i].mpiio_bytes_read))
        .with("mpiio_bytes_written", Unit::Bytes, int(&|i| f[i].mpiio_bytes_written))
        .with("consecutive", Unit::Count, int(&|i| f[i].pattern[0]))
        .with("sequential", Unit::Count, int(&|i| f[i].pattern[1]))
        .with("random", Unit::Count, int(&|i| f[i].pattern[2]))
        .with("pattern", Unit::None, Values::Str(order.iter().map(|&i| pattern(i)).collect()))
        .with("conflicts", Unit::Count, int(&|i| conflicting[i]))
}

/// The `sizes` and `size_histogram` tables, and the histogram's chart.
fn size_tables(replay: &Replay) -> (Table, Table, Chart) {
    let mut sizes: BTreeMap<(bool, i64), i64> = BTreeMap::new();
    let mut buckets = [[0i64; 2]; SIZE_BUCKETS.len()];
    for o in &replay.ops {
        *sizes.entry((o.write, o.bytes)).or_default() += 1;
        let b = SIZE_BUCKETS.iter().position(|&(_, hi)| o.bytes < hi).unwrap_or(SIZE_BUCKETS.len() - 1);
        buckets[b][o.write as usize] += 1;
    }
    let rows: Vec<(&(bool, i64), &i64)> = sizes.iter().collect();
    let sizes = Table::new("sizes")
        .with("op", Unit::None, Values::Str(rows.iter().map(|(k, _)| if k.0 { "write" } else { "read" }).collect()))
        .with("size", Unit::Bytes, Values::Int(rows.iter().map(|(k, _)| k.1).collect()))
        .with("calls", Unit::Count, Values::Int(rows.iter().map(|(_, n)| **n).collect()))
        .with("bytes", Unit::Bytes, Values::Int(rows.iter().map(|(k, n)| k.1 * **n).collect()));
    let histogram = Table::new("size_histogram")
        .with("size", Unit::None, Values::Str(SIZE_BUCKETS.iter().map(|b| b.0).collect()))
        .with("reads", Unit::Count, Values::Int(buckets.iter().map(|b| b[0]).collect()))
        .with("writes", Unit::Count, Values::Int(buckets.iter().map(|b| b[1]).collect()));
    let series = |name: &str, op: usize| Series { name: name.into(), values: buckets.iter().map(|b| b[op] as f64).collect() };
    let chart = Chart::GroupedBars {
        title: "Request sizes: reads and writes per size (bytes)".into(),
        x_label: "request size (bytes)".into(),
        y_label: "calls".into(),
        categories: SIZE_BUCKETS.iter().map(|b| b.0.to_string()).collect(),
        series: vec![series("reads", 0), series("writes", 1)],
    };
    (sizes, histogram, chart)
}

/// The `conflicts` table.
fn conflicts_table(replay: &Replay, conflicts: &conflicts::ByKey) -> Table {
    let mut rows: Vec<(&conflicts::Key, &conflicts::Conflict)> = conflicts.iter().collect();
    rows.sort_by(|a, b| replay.names[a.0 .0 as usize].cmp(replay.names[b.0 .0 as usize]).then(a.0.cmp(b.0)));
    let int = |get: &dyn Fn(&conflicts::Conflict) -> i64| Values::Int(rows.iter().map(|(_, c)| get(c)).collect());
    Table::new("conflicts")
        .with("file", Unit::None, Values::Str(rows.iter().map(|(k, _)| replay.names[k.0 as usize]).collect()))
        .with("kind", Unit::None, Values::Str(rows.iter().map(|(k, _)| k.1).collect()))
        .with("first_rank", Unit::None, Values::Int(rows.iter().map(|(k, _)| i64::from(k.2)).collect()))
        .with("second_rank", Unit::None, Values::Int(rows.iter().map(|(k, _)| i64::from(k.3)).collect()))
        .with("pairs", Unit::Count, int(&|c| c.pairs))
        .with("bytes", Unit::Bytes, int(&|c| c.bytes))
        .with("concurrent", Unit::Count, int(&|c| c.concurrent))
        .with("first_ns", Unit::Ns, int(&|c| c.first_ns))
}
