//! HPC I/O calls of Recorder traces (`kinetoscope io`): the first tables of recorder-viz's
//! report. No HTA counterpart.
//!
//! A Recorder call is an event of a rank read from a Recorder folder (`read::recorder::model`:
//! category = layer, name = function). Tables:
//! * `functions`: per layer and function over the selected ranks: `calls`, `ranks` (how many
//!   called it), `time_ns` (sum of the calls' durations; a call made inside another traced call,
//!   such as the `write` under an `MPI_File_write_at`, counts for both functions).
//! * `ranks`: per rank: `calls`, `io_time_ns` (the union of its calls: nested calls count once),
//!   `span_ns` (first call's start to last call's end) and `io_pct` (`io_time_ns` over it).
//!
//! Not yet here (issue 21): sizes, per-file access patterns, open/close conflicts, the timeline.

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Params};
use super::intervals::{covered, merge_intervals};
use super::stats::np_round;
use crate::model::{Format, Phase};
use crate::table::{Report, Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "io",
    title: "I/O calls (Recorder)",
    about: "POSIX, MPI, MPI-IO and HDF5 calls of a Recorder trace: calls and time per function, I/O time per rank",
    hta_api: "",
    group: Group::Io,
    options: &[],
    run,
};

/// Calls, ranks and time of one (layer, function).
#[derive(Debug, Default)]
struct Function {
    calls: i64,
    ranks: std::collections::BTreeSet<u32>,
    time_ns: i64,
}

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    if ctx.hta {
        return fail("io has no HTA 0.5.0 counterpart: run it without --hta");
    }
    let mut functions: BTreeMap<(&str, &str), Function> = BTreeMap::new();
    let mut ranks: Vec<(u32, i64, i64, i64)> = Vec::new();
    for &p in &ctx.selected {
        let r = &ctx.trace.ranks[p];
        if r.format != Some(Format::Recorder) {
            continue;
        }
        let ev = &r.events;
        let calls: Vec<usize> = (0..ev.len()).filter(|&e| ev.phase[e] == Phase::Complete).collect();
        for &e in &calls {
            let f = functions.entry((r.cat(e as u32), r.name(e as u32))).or_default();
            f.calls += 1;
            f.ranks.insert(r.rank);
            f.time_ns += ev.dur[e];
        }
        let spans: Vec<(i64, i64)> = calls.iter().map(|&e| (ev.ts[e], ev.ts[e] + ev.dur[e])).collect();
        let span = spans.iter().map(|s| s.1).max().unwrap_or(0) - spans.iter().map(|s| s.0).min().unwrap_or(0);
        ranks.push((r.rank, calls.len() as i64, covered(&merge_intervals(spans)), span));
    }
    let mut report = Report::default();
    if ranks.is_empty() {
        report
            .notes
            .push("no Recorder trace among the selected ranks: io reads the calls of a Recorder trace folder (kinetoscope io DIR)".into());
    }
    let rows: Vec<(&(&str, &str), &Function)> = functions.iter().collect();
    report.tables.push(
        Table::new("functions")
            .with("layer", Unit::None, Values::Str(rows.iter().map(|(k, _)| k.0.to_string()).collect()))
            .with("function", Unit::None, Values::Str(rows.iter().map(|(k, _)| k.1.to_string()).collect()))
            .with("calls", Unit::Count, Values::Int(rows.iter().map(|(_, f)| f.calls).collect()))
            .with("ranks", Unit::Count, Values::Int(rows.iter().map(|(_, f)| f.ranks.len() as i64).collect()))
            .with("time_ns", Unit::Ns, Values::Int(rows.iter().map(|(_, f)| f.time_ns).collect())),
    );
    let pct = |io: i64, span: i64| if span == 0 { f64::NAN } else { np_round(100.0 * io as f64 / span as f64, 2) };
    report.tables.push(
        Table::new("ranks")
            .with("rank", Unit::None, Values::Int(ranks.iter().map(|r| i64::from(r.0)).collect()))
            .with("calls", Unit::Count, Values::Int(ranks.iter().map(|r| r.1).collect()))
            .with("io_time_ns", Unit::Ns, Values::Int(ranks.iter().map(|r| r.2).collect()))
            .with("span_ns", Unit::Ns, Values::Int(ranks.iter().map(|r| r.3).collect()))
            .with("io_pct", Unit::Percent, Values::Float(ranks.iter().map(|r| pct(r.2, r.3)).collect())),
    );
    Ok(report)
}
