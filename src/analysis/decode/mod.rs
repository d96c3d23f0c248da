//! LLM decode-step statistics: what kernel_extractor's `stats` computes, on every trace format
//! with profiler steps and GPU operations (its `extract` is [`super::gpu_ops`]).
//!
//! * GPU operations and their times are [`super::gpu_ops`]'s. Steps are timed likewise: Paddle
//!   `ProfileStep#N[xx ms]` with its args, Kineto `ProfilerStep#N`.
//! * [`decode_stats`]: steps longer than `prefill_ms` are prefill; the others are decode steps
//!   (optionally only those inside `decode_ms`). A step's operations are those that start and end
//!   inside it (with `by_launch`: those whose launching runtime call starts inside it, wherever
//!   they run; for a GPU behind the CPU). In a decode step the operations before the first one
//!   whose name contains the start kernel are cut, and times are measured from that operation's
//!   start (no start kernel: from the step start); a decode step without the start kernel is
//!   skipped. Operations are matched across steps by (name, occurrence index within the step);
//!   each row averages the start, end and duration of its matches and rows are sorted by average
//!   start. The bubble of a row is its average start minus the previous row's average end (first
//!   row: its average start).
//!
//! Names lose a trailing `[12.3 us]` timing suffix (Paddle writes one on every event) unless
//! `keep_suffix` is set. Averages are exact: sums are integer nanoseconds, divided once.
//!
//! Files: `steps.rs` (where the steps are, which operations belong to each), `stats.rs` (the
//! matched operations and [`decode_stats`]), `report.rs` (tables, notes, charts).

mod report;
mod stats;
mod steps;

pub use report::averages_table;
use report::{charts, notes, op_table, outliers_table, ranks_table, steps_table, RankSummary};
pub use stats::{decode_stats, DecodeStats, OpStat};
pub use steps::{StepKind, StepStat};

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use crate::model::time::decimal_scaled;
use crate::table::Report;

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "decode",
    title: "Decode steps",
    about: "per-operation timing of the average LLM decode step (averages, p50/p90/max, bubbles), per-step table, prefill vs decode",
    hta_api: "",
    group: Group::Steps,
    options: &[
        Opt { name: "start_kernel", kind: OptKind::Str, default: DEFAULT_START_KERNEL, help: "Cut each decode step at the first GPU operation whose name contains this text and measure from its start; none: measure from the step start" },
        Opt { name: "prefill_ms", kind: OptKind::Float, default: "30", help: "Steps longer than this (ms) are prefill and left out" },
        Opt { name: "decode_ms", kind: OptKind::Str, default: "", help: "Only steps whose duration lies in LO,HI (ms, either side may be empty) are decode steps; empty: every step that is not prefill" },
        Opt { name: "keep_suffix", kind: OptKind::Bool, default: "false", help: "Keep the [12.3 us] timing suffix of operation names" },
        Opt { name: "step_name", kind: OptKind::Str, default: "", help: "Use the CPU-side events with exactly this name (e.g. a user annotation such as execute_model) as the steps, numbered 1, 2, … in time order; empty: ProfilerStep#N / ProfileStep#N" },
        Opt { name: "by_launch", kind: OptKind::Bool, default: "false", help: "A step's GPU operations are those launched from it (same correlation id as a runtime call inside the step), wherever they run; false: those that start and end inside the step" },
    ],
    run,
};

/// kernel_extractor's default start kernel.
pub const DEFAULT_START_KERNEL: &str = "recover_decode_task";

/// Name of the table with kernel_extractor's `stats` columns (what `kinetoscope stats` writes).
pub const AVERAGES_TABLE: &str = "decode_op_averages";

/// Options of [`decode_stats`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeOptions {
    /// Cut each decode step at the first operation whose name contains this (`None`: no cut).
    pub start_kernel: Option<String>,
    /// Steps longer than this (ns) are prefill.
    pub prefill_ns: i64,
    /// Decode steps are those with a duration in this range (ns, inclusive); `None`: all others.
    pub decode_ns: (Option<i64>, Option<i64>),
    /// Keep names' timing suffix.
    pub keep_suffix: bool,
    /// Steps are the CPU-side events with this name (`None`: the profiler steps).
    pub step_name: Option<String>,
    /// A step's operations are those launched from it, not those inside its window.
    pub by_launch: bool,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            start_kernel: Some(DEFAULT_START_KERNEL.into()),
            prefill_ns: 30_000_000,
            decode_ns: (None, None),
            keep_suffix: false,
            step_name: None,
            by_launch: false,
        }
    }
}

/// The start kernel an option's text names: `None` for empty or `none` (measure from the step
/// start), else the trimmed text.
pub fn start_kernel(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty() && !t.eq_ignore_ascii_case("none")).then(|| t.to_string())
}

/// The step name an option's text gives: `None` for empty (the profiler steps), else the
/// trimmed text.
pub fn step_name(text: &str) -> Option<String> {
    Some(text.trim()).filter(|n| !n.is_empty()).map(str::to_string)
}

impl DecodeOptions {
    /// From the registry's option values.
    pub fn from_params(p: &Params) -> Result<DecodeOptions, AnalysisError> {
        let start = p.str("start_kernel").trim();
        let ms = |s: &str, what: &str| {
            decimal_scaled(s.trim().as_bytes(), 6).map_err(|_| AnalysisError(format!("{what}: expected milliseconds, found '{s}'")))
        };
        let prefill_ns = ms(p.str("prefill_ms"), "prefill_ms")?;
        let range = p.str("decode_ms").trim();
        let decode_ns = if range.is_empty() {
            (None, None)
        } else {
            let (a, b) = range
                .split_once(',')
                .ok_or_else(|| AnalysisError(format!("decode_ms: expected LO,HI in ms (e.g. 10,20), found '{range}'")))?;
            let side = |s: &str| if s.trim().is_empty() { Ok(None) } else { ms(s, "decode_ms").map(Some) };
            let (lo, hi) = (side(a)?, side(b)?);
            if let (Some(l), Some(h)) = (lo, hi) {
                if l > h {
                    return fail(format!("decode_ms: {} is more than {} (expected LO,HI with LO ≤ HI)", a.trim(), b.trim()));
                }
            }
            (lo, hi)
        };
        Ok(DecodeOptions {
            start_kernel: start_kernel(start),
            prefill_ns,
            decode_ns,
            keep_suffix: p.bool("keep_suffix"),
            step_name: step_name(p.str("step_name")),
            by_launch: p.bool("by_launch"),
        })
    }
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let o = DecodeOptions::from_params(params)?;
    let stats = decode_stats(ctx.trace, &ctx.selected, &o)?;
    let mut report = Report::default();
    report.tables.push(averages_table(&stats.ops));
    report.tables.push(op_table("decode_op_stats", &[(None, &stats.ops)]));
    if !stats.ops_by_rank.is_empty() {
        let by_rank: Vec<(Option<u32>, &[OpStat])> = stats.ops_by_rank.iter().map(|(r, v)| (Some(*r), v.as_slice())).collect();
        report.tables.push(op_table("decode_op_stats_by_rank", &by_rank));
    }
    report.tables.push(steps_table(&stats.steps));
    report.tables.push(outliers_table(&stats.steps));
    let ranks: Vec<u32> = ctx.selected.iter().map(|&p| ctx.trace.ranks[p].rank).collect();
    // each rank's steps are contiguous in `stats.steps` (one pass, not one per rank: 1000s of ranks)
    let mut spans: FxHashMap<u32, std::ops::Range<usize>> = FxHashMap::default();
    for (i, st) in stats.steps.iter().enumerate() {
        spans.entry(st.rank).and_modify(|r| r.end = i + 1).or_insert(i..i + 1);
    }
    let summaries: Vec<RankSummary> =
        ranks.iter().map(|&r| RankSummary::of(r, &stats.steps[spans.get(&r).cloned().unwrap_or(0..0)])).collect();
    report.tables.push(ranks_table(&summaries));
    report.notes = notes(&o, &stats, &summaries);
    report.charts = charts(&stats, &summaries);
    Ok(report)
}
