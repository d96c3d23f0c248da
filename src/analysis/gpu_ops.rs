//! kernel_extractor's `extract`: the GPU operations of a trace (kernels, memcpys, memsets) with
//! their exact times, and those inside a time range by start time (`kinetoscope extract`, the
//! page's "GPU ops in a time range" tab). Also the operations and times decode steps read.
//!
//! GPU operations are the complete events of kind kernel, memcpy and memset (Paddle `Kernel`,
//! `Memcpy`, `Memset`; Kineto `kernel`, `gpu_memcpy`, `gpu_memset`). Their times are Paddle's
//! exact `args.start_time`/`args.end_time` when both are present, else `ts` and `ts + dur`.
//! [`extract`] keeps the operations with start ≥ range start and end ≤ range end. Names lose a
//! trailing `[12.3 us]` timing suffix (Paddle writes one on every event) unless `keep_suffix`.

use crate::analysis::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use crate::analysis::units::us;
use crate::model::time::decimal_scaled;
use crate::model::{EventId, IntArg, Kind, Phase, RankTrace, Trace};
use crate::table::Report;
use crate::table::{Table, Unit, Values};

/// kernel_extractor's `extract` as an analysis (the page's tab; `kinetoscope gpu_ops`): the GPU
/// operations inside a time range, the table `kinetoscope extract` writes.
pub const ANALYSIS: Analysis = Analysis {
    name: "gpu_ops",
    title: "GPU ops in a time range",
    about: "every GPU operation (kernel, memcpy, memset) inside a time range, by start time: the CSV of kinetoscope extract (kernel_extractor's extract)",
    hta_api: "",
    group: Group::Steps,
    options: &[
        Opt { name: "range", kind: OptKind::Str, default: "", help: "START,END in µs on the trace's clock (PaddlePaddle's args times, else ts), e.g. 2684054.000,2687705.250; empty: the whole trace" },
        Opt { name: "keep_suffix", kind: OptKind::Bool, default: "false", help: "Keep the [12.3 us] timing suffix of operation names" },
    ],
    run: run_extract,
};

fn run_extract(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let text = params.str("range").trim();
    let range = if text.is_empty() { (i64::MIN, i64::MAX) } else { parse_range(text)? };
    let table = extract(ctx.trace, &ctx.selected, range, params.bool("keep_suffix"));
    let mut report = Report::default();
    if table.rows() == 0 {
        report.notes.push(if text.is_empty() {
            "no GPU operations (kernel, memcpy, memset) in the trace".to_string()
        } else {
            format!("no GPU operation lies inside {text} µs")
        });
    }
    report.tables.push(table);
    Ok(report)
}

/// A GPU operation with the times the step statistics use, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GpuOp {
    /// Its row.
    pub event: EventId,
    /// Start.
    pub start: i64,
    /// End.
    pub end: i64,
}

/// Paddle's exact `args` times of row `e` (its start and end, or its start and `dur`), else `ts`
/// and `ts + dur`.
pub(crate) fn times(r: &RankTrace, e: EventId) -> (i64, i64) {
    let args = &r.events.int_args;
    times_from(r, e, &args[args.partition_point(|a| a.0 < e)..])
}

/// [`times`] for rows asked in increasing order: the sparse args are by row, like the rows, so one
/// cursor over them serves instead of a binary search per row.
pub(crate) fn times_in_row_order(r: &RankTrace) -> impl FnMut(EventId) -> (i64, i64) + '_ {
    let args = &r.events.int_args;
    let mut k = 0;
    move |e| {
        while args.get(k).is_some_and(|a| a.0 < e) {
            k += 1;
        }
        times_from(r, e, &args[k..])
    }
}

/// [`times`], given the sparse args from row `e`'s first one on.
fn times_from(r: &RankTrace, e: EventId, args: &[(EventId, IntArg, i64)]) -> (i64, i64) {
    let arg = |which| args.iter().take_while(|a| a.0 == e).find(|a| a.1 == which).map(|a| a.2);
    match (arg(IntArg::PaddleStartNs), arg(IntArg::PaddleEndNs)) {
        (Some(s), Some(t)) => (s, t),
        (Some(s), None) => (s, s + r.events.dur.get(e as usize).max(0)),
        _ => (r.events.ts[e as usize], r.events.end(e)),
    }
}

/// The GPU operations of `r` (complete kernel, memcpy and memset events), by start time (file
/// order at equal starts).
pub fn gpu_ops(r: &RankTrace) -> Vec<GpuOp> {
    let ev = &r.events;
    let mut times = times_in_row_order(r);
    let mut ops = Vec::new();
    for e in 0..ev.len() {
        if ev.phase[e] != Phase::Complete || !matches!(ev.kind[e], Kind::Kernel | Kind::Memcpy | Kind::Memset) {
            continue;
        }
        let id = e as EventId;
        let (start, end) = times(id);
        ops.push(GpuOp { event: id, start, end });
    }
    ops.sort_by_key(|o| o.start);
    ops
}

/// The name an operation is reported and matched under: the reader has split Paddle's timing
/// suffix off (`model::strings::split_timing_suffix`); `keep_suffix` puts it back.
pub(crate) fn op_name(r: &RankTrace, e: EventId, keep_suffix: bool) -> std::borrow::Cow<'_, str> {
    if keep_suffix {
        r.full_name(e)
    } else {
        r.name(e).into()
    }
}

/// Parses `extract`'s range `START,END` (µs, decimals allowed) into ns.
pub fn parse_range(text: &str) -> Result<(i64, i64), AnalysisError> {
    let bad = || AnalysisError(format!("time range: expected START,END in µs (e.g. 2684054.000,2687705.250), found '{text}'"));
    let (a, b) = text.split_once(',').ok_or_else(bad)?;
    let num = |s: &str| decimal_scaled(s.trim().as_bytes(), 3).map_err(|_| bad());
    let (lo, hi) = (num(a)?, num(b)?);
    if lo > hi {
        return fail(format!("time range: start {} is after end {} (expected START,END with START ≤ END)", a.trim(), b.trim()));
    }
    Ok((lo, hi))
}

/// kernel_extractor's `extract`: the GPU operations of the selected ranks that start at or after
/// `lo` and end at or before `hi` (ns), sorted by start. Columns `kernel_name, start_time_us,
/// end_time_us, duration_us`, with a leading `rank` column when the trace has several ranks.
pub fn extract(trace: &Trace, selected: &[usize], (lo, hi): (i64, i64), keep_suffix: bool) -> Table {
    let mut rows: Vec<(i64, u32, usize, GpuOp)> = Vec::new();
    for &p in selected {
        let r = &trace.ranks[p];
        rows.extend(gpu_ops(r).into_iter().filter(|o| o.start >= lo && o.end <= hi).map(|o| (o.start, r.rank, p, o)));
    }
    rows.sort_by_key(|&(start, rank, _, o)| (start, rank, o.event));
    let name = |&(_, _, p, o): &(i64, u32, usize, GpuOp)| op_name(&trace.ranks[p], o.event, keep_suffix).to_string();
    let mut t = Table::new("extract");
    if trace.ranks.len() > 1 {
        t = t.with("rank", Unit::None, Values::Int(rows.iter().map(|r| i64::from(r.1)).collect()));
    }
    t.with("kernel_name", Unit::None, Values::Str(rows.iter().map(name).collect()))
        .with("start_time_us", Unit::Us, Values::Float(rows.iter().map(|r| us(r.3.start)).collect()))
        .with("end_time_us", Unit::Us, Values::Float(rows.iter().map(|r| us(r.3.end)).collect()))
        .with("duration_us", Unit::Us, Values::Float(rows.iter().map(|r| us(r.3.end - r.3.start)).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_checked() {
        assert_eq!(parse_range("2684054.000,2687705.250"), Ok((2_684_054_000, 2_687_705_250)));
        assert_eq!(parse_range(" 3 , 3 "), Ok((3000, 3000)));
        let e = parse_range("5,3").unwrap_err().0;
        assert!(e.contains("start 5 is after end 3"), "{e}");
        let e = parse_range("abc").unwrap_err().0;
        assert!(e.contains("found 'abc'"), "{e}");
        assert!(parse_range("1,x").is_err());
    }
}
