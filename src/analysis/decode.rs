//! LLM decode-step statistics and time-range extraction: what kernel_extractor's `stats` and
//! `extract` compute, on every trace format with profiler steps and GPU operations.
//!
//! * GPU operations are the complete events of kind kernel, memcpy and memset (Paddle `Kernel`,
//!   `Memcpy`, `Memset`; Kineto `kernel`, `gpu_memcpy`, `gpu_memset`). Their times are Paddle's
//!   exact `args.start_time`/`args.end_time` when both are present, else `ts` and `ts + dur`.
//!   Steps likewise: Paddle `ProfileStep#N[xx ms]` with its args, Kineto `ProfilerStep#N`.
//! * [`extract`]: the operations with start ≥ range start and end ≤ range end, by start time.
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

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Opt, OptKind, Params};
use super::names::plural;
use super::stats::{quantile_sorted, std};
use super::units::us;
use crate::model::links::{find_steps, is_cpu_span};
use crate::model::time::decimal_scaled;
use crate::model::{EventId, IntArg, Kind, Phase, RankTrace, StrId, Trace};
use crate::table::{Chart, Line, Report};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "decode",
    title: "Decode steps",
    about: "per-operation timing of the average LLM decode step (averages, p50/p90/max, bubbles), per-step table, prefill vs decode",
    hta_api: "",
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

/// kernel_extractor's `extract` as an analysis (the page's tab; `kinetoscope gpu_ops`): the GPU
/// operations inside a time range, the table `kinetoscope extract` writes.
pub const EXTRACT_ANALYSIS: Analysis = Analysis {
    name: "gpu_ops",
    title: "GPU ops in a time range",
    about: "every GPU operation (kernel, memcpy, memset) inside a time range, by start time: the CSV of kinetoscope extract (kernel_extractor's extract)",
    hta_api: "",
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

/// kernel_extractor's default start kernel.
pub const DEFAULT_START_KERNEL: &str = "recover_decode_task";

/// Name of the table with kernel_extractor's `stats` columns (what `kinetoscope stats` writes).
pub const AVERAGES_TABLE: &str = "decode_op_averages";

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
fn times(r: &RankTrace, e: EventId) -> (i64, i64) {
    let args = &r.events.int_args;
    times_from(r, e, &args[args.partition_point(|a| a.0 < e)..])
}

/// [`times`] for rows asked in increasing order: the sparse args are by row, like the rows, so one
/// cursor over them serves instead of a binary search per row.
fn times_in_row_order(r: &RankTrace) -> impl FnMut(EventId) -> (i64, i64) + '_ {
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
        (Some(s), None) => (s, s + r.events.dur[e as usize].max(0)),
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
fn op_name(r: &RankTrace, e: EventId, keep_suffix: bool) -> std::borrow::Cow<'_, str> {
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

/// What a step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// Longer than `prefill_ms`.
    Prefill,
    /// A decode step whose operations are averaged.
    Decode,
    /// A decode step without the start kernel (skipped).
    NoStartKernel,
    /// Neither prefill nor inside `decode_ms`.
    Excluded,
}

impl StepKind {
    /// Spelling in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Prefill => "prefill",
            StepKind::Decode => "decode",
            StepKind::NoStartKernel => "no start kernel",
            StepKind::Excluded => "excluded",
        }
    }
}

/// One profiler step of one rank.
#[derive(Debug, Clone, PartialEq)]
pub struct StepStat {
    /// Rank.
    pub rank: u32,
    /// N of `ProfileStep#N` (with `step_name`: the occurrence, from 1).
    pub number: i32,
    /// Start and end, ns.
    pub start: i64,
    /// End, ns.
    pub end: i64,
    /// What it is.
    pub kind: StepKind,
    /// Where times are measured from (the start kernel's start, or the step start), ns.
    pub origin: i64,
    /// GPU operations counted (after the cut).
    pub ops: usize,
    /// Time at least one of them runs, ns.
    pub busy: i64,
    /// Idle time between `origin` and the last operation's end, ns.
    pub bubble: i64,
    /// Whether its operation sequence is the most common one (`None`: not a used decode step).
    pub same_sequence: Option<bool>,
    /// `slow`/`fast` when its duration lies outside the rank's Tukey fences over decode steps.
    pub outlier: Option<&'static str>,
}

/// One matched operation: (name, occurrence) over the steps where it occurs.
#[derive(Debug, Clone, PartialEq)]
pub struct OpStat {
    /// Name.
    pub name: String,
    /// 0-based occurrence of the name within the step.
    pub occurrence: u32,
    /// Relative starts, ns, one per step where it occurs.
    pub starts: Vec<i64>,
    /// Relative ends, ns.
    pub ends: Vec<i64>,
}

impl OpStat {
    fn steps(&self) -> usize {
        self.starts.len()
    }
    fn sum(v: &[i64]) -> i128 {
        v.iter().map(|&x| i128::from(x)).sum()
    }
    /// Average start, µs.
    pub fn avg_start_us(&self) -> f64 {
        Self::sum(&self.starts) as f64 / (self.steps() as f64 * 1000.0)
    }
    /// Average end, µs.
    pub fn avg_end_us(&self) -> f64 {
        Self::sum(&self.ends) as f64 / (self.steps() as f64 * 1000.0)
    }
    /// Durations, µs, sorted.
    pub fn durations_us(&self) -> Vec<f64> {
        let mut d: Vec<f64> = self.starts.iter().zip(&self.ends).map(|(s, e)| us(e - s)).collect();
        d.sort_by(f64::total_cmp);
        d
    }
    /// Average duration, µs.
    pub fn avg_duration_us(&self) -> f64 {
        (Self::sum(&self.ends) - Self::sum(&self.starts)) as f64 / (self.steps() as f64 * 1000.0)
    }
    /// This row's average start minus `prev`'s average end, µs, exact up to one rounding.
    pub fn bubble_after_us(&self, prev: Option<&OpStat>) -> f64 {
        let Some(p) = prev else { return self.avg_start_us() };
        let (n, m) = (self.steps() as i128, p.steps() as i128);
        (Self::sum(&self.starts) * m - Self::sum(&p.ends) * n) as f64 / ((n * m) as f64 * 1000.0)
    }
}

/// The result of [`decode_stats`] for a set of ranks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecodeStats {
    /// Every step of every rank, in rank then start order.
    pub steps: Vec<StepStat>,
    /// Matched operations over every used decode step, by average start.
    pub ops: Vec<OpStat>,
    /// The same per rank (rank, ops), when more than one rank is selected.
    pub ops_by_rank: Vec<(u32, Vec<OpStat>)>,
    /// Without `by_launch`: GPU operations launched from a used decode step that do not start and
    /// end inside it (the GPU runs behind the CPU), so are not counted.
    pub launched_outside: usize,
    /// With `by_launch`: operations of used decode steps without a launching call in the trace,
    /// taken by the window rule instead.
    pub unlinked: usize,
}

/// Accumulates matched operations (name, occurrence) over steps.
#[derive(Default)]
struct OpAccumulator {
    index: FxHashMap<(u32, u32), usize>,
    ops: Vec<OpStat>,
}

impl OpAccumulator {
    /// Adds one step's operations: (name id in `names`, relative start, relative end) in time order.
    fn add_step(&mut self, ops: &[(u32, i64, i64)], names: &[String]) {
        let mut seen: FxHashMap<u32, u32> = FxHashMap::default();
        for &(id, s, e) in ops {
            let occ = seen.entry(id).or_insert(0);
            let key = (id, *occ);
            *occ += 1;
            let i = *self.index.entry(key).or_insert_with(|| {
                self.ops.push(OpStat { name: names[id as usize].clone(), occurrence: key.1, starts: Vec::new(), ends: Vec::new() });
                self.ops.len() - 1
            });
            self.ops[i].starts.push(s);
            self.ops[i].ends.push(e);
        }
    }

    /// The operations by average start (first-seen order at equal averages).
    fn finish(self) -> Vec<OpStat> {
        let mut ops = self.ops;
        ops.sort_by(|a, b| a.avg_start_us().total_cmp(&b.avg_start_us()));
        ops
    }
}

/// Operation names over all ranks (each rank has its own string table): an id per distinct name,
/// looked up by the rank's string ids so that a name is copied once, not once per operation.
#[derive(Default)]
struct OpNames {
    ids: FxHashMap<String, u32>,
    list: Vec<String>,
    /// (rank position, name id) → id, without `keep_suffix`.
    cache: FxHashMap<(usize, StrId), u32>,
}

impl OpNames {
    fn id(&mut self, pos: usize, r: &RankTrace, e: EventId, keep_suffix: bool) -> u32 {
        // with suffixes, names are (nearly) all different: no point caching by string id
        let key = (pos, r.events.name[e as usize]);
        if !keep_suffix {
            if let Some(&id) = self.cache.get(&key) {
                return id;
            }
        }
        let name = op_name(r, e, keep_suffix);
        let id = match self.ids.get(name.as_ref()) {
            Some(&id) => id,
            None => {
                let id = self.list.len() as u32;
                self.list.push(name.to_string());
                self.ids.insert(name.into_owned(), id);
                id
            }
        };
        if !keep_suffix {
            self.cache.insert(key, id);
        }
        id
    }
}

/// Steps of `r` as (number, start, end) in ns, by start: Paddle's exact `args` times when
/// present. The profiler steps, or with `step_name` the CPU-side complete events of that name,
/// numbered from 1 in time order; one that starts before the previous one has ended (nested,
/// or on another thread meanwhile) is not another step.
fn step_windows(r: &RankTrace, step_name: Option<&str>) -> Vec<(i32, i64, i64)> {
    let mut w: Vec<(i32, i64, i64)> = match step_name {
        None => find_steps(r)
            .into_iter()
            .map(|s| {
                let (start, end) = times(r, s.event);
                (s.number, start, end)
            })
            .collect(),
        Some(name) => {
            let mut spans: Vec<(i64, i64)> =
                (0..r.events.len() as EventId).filter(|&e| is_cpu_span(r, e) && r.name(e) == name).map(|e| times(r, e)).collect();
            spans.sort_unstable();
            let mut steps: Vec<(i32, i64, i64)> = Vec::new();
            for (start, end) in spans {
                if steps.last().is_none_or(|&(_, _, prev_end)| start >= prev_end) {
                    steps.push((steps.len() as i32 + 1, start, end));
                }
            }
            steps
        }
    };
    w.sort_by_key(|&(n, s, _)| (s, n));
    w
}

/// The index of the latest-starting window of `windows` (by start) whose half-open span
/// `[start, end)` contains `t`; `max_dur` is the longest window's duration.
fn window_at(windows: &[(i32, i64, i64)], max_dur: i64, t: i64) -> Option<usize> {
    let upto = windows.partition_point(|w| w.1 <= t);
    (0..upto).rev().take_while(|&i| windows[i].1 + max_dur > t).find(|&i| t < windows[i].2)
}

/// The window rule: whether `op` starts and ends inside the step window `(_, start, end)`.
fn in_window(op: &GpuOp, &(_, start, end): &(i32, i64, i64)) -> bool {
    op.start >= start && op.end <= end
}

/// Each operation's step by launch, as (index in `windows`, whether it has a launching call): the
/// window containing the start of the runtime call with its correlation id; an operation
/// without one goes to a window it starts and ends in.
fn launch_windows(r: &RankTrace, ops: &[GpuOp], windows: &[(i32, i64, i64)]) -> Vec<(Option<usize>, bool)> {
    if windows.is_empty() {
        return vec![(None, false); ops.len()];
    }
    let max_dur = windows.iter().map(|w| w.2 - w.1).max().unwrap_or(0);
    let mut times = times_in_row_order(r);
    let launch_start = crate::model::links::launchers_by(r, |e| times(e).0);
    ops.iter()
        .map(|op| {
            let c = r.events.correlation[op.event as usize];
            match launch_start.get(&c).filter(|_| c >= 0) {
                Some(&(_, t)) => (window_at(windows, max_dur, t), true),
                None => (window_at(windows, max_dur, op.start).filter(|&i| in_window(op, &windows[i])), false),
            }
        })
        .collect()
}

/// What a trace without steps has instead: its events, its `gpu` GPU operations and its most
/// frequent user annotations (the usual step markers of inference servers), over the selected
/// ranks.
fn found_instead(trace: &Trace, selected: &[usize], gpu: usize) -> String {
    let mut events = 0usize;
    let mut annotations: FxHashMap<&str, usize> = FxHashMap::default();
    for &p in selected {
        let r = &trace.ranks[p];
        events += r.events.len();
        for e in 0..r.events.len() as EventId {
            if r.events.kind[e as usize] == Kind::UserAnnotation && is_cpu_span(r, e) {
                *annotations.entry(r.name(e)).or_default() += 1;
            }
        }
    }
    let mut top: Vec<(&str, usize)> = annotations.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let listed: Vec<String> = top.iter().take(5).map(|(n, c)| format!("'{n}' ({c})")).collect();
    let mut found = format!("found {events} event{} ({gpu} GPU operation{}) and ", plural(events), plural(gpu));
    if listed.is_empty() {
        found += "no user annotation to use as steps";
    } else {
        found += &format!(
            "these user annotations, the most frequent first: {}; give one as step_name (--step-name) to use its occurrences as steps",
            listed.join(", ")
        );
    }
    found
}

/// Tukey fences: `slow`/`fast` per value outside [Q1 − 1.5 IQR, Q3 + 1.5 IQR] (numpy's linear
/// quartiles); nothing with fewer than 4 values.
fn tukey(values: &[i64]) -> Vec<Option<&'static str>> {
    if values.len() < 4 {
        return vec![None; values.len()];
    }
    let mut sorted: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    sorted.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile_sorted(&sorted, 0.25), quantile_sorted(&sorted, 0.75));
    let iqr = q3 - q1;
    values
        .iter()
        .map(|&v| {
            let v = v as f64;
            if v > q3 + 1.5 * iqr {
                Some("slow")
            } else if v < q1 - 1.5 * iqr {
                Some("fast")
            } else {
                None
            }
        })
        .collect()
}

/// kernel_extractor's `stats` and more over the selected ranks (module docs). Errors: no profiler
/// step, no decode step, a start kernel no decode step contains (saying what was found instead).
pub fn decode_stats(trace: &Trace, selected: &[usize], o: &DecodeOptions) -> Result<DecodeStats, AnalysisError> {
    let mut out = DecodeStats::default();
    let mut pooled = OpAccumulator::default();
    // global name ids (ranks have their own string tables), and each used step's name sequence
    let mut names = OpNames::default();
    let mut sequences: Vec<(usize, Vec<u32>)> = Vec::new(); // (index in out.steps, names)
    let mut first_ops: FxHashMap<String, usize> = FxHashMap::default(); // when the start kernel is missing
    let mut any_steps = false;
    let mut gpu_total = 0;
    for &p in selected {
        let r = &trace.ranks[p];
        let windows = step_windows(r, o.step_name.as_deref());
        any_steps |= !windows.is_empty();
        let ops = gpu_ops(r);
        gpu_total += ops.len();
        let launched = launch_windows(r, &ops, &windows);
        let mut members: Vec<Vec<&GpuOp>> = vec![Vec::new(); if o.by_launch { windows.len() } else { 0 }];
        if o.by_launch {
            for (op, &(w, _)) in ops.iter().zip(&launched) {
                if let Some(w) = w {
                    members[w].push(op);
                }
            }
        }
        let mut per_rank = OpAccumulator::default();
        let first_step = out.steps.len();
        for (w, &(number, start, end)) in windows.iter().enumerate() {
            let dur = end - start;
            let inside: Vec<&GpuOp> = if o.by_launch {
                std::mem::take(&mut members[w])
            } else {
                let lo = ops.partition_point(|op| op.start < start);
                ops[lo..].iter().take_while(|op| op.start <= end).filter(|op| in_window(op, &windows[w])).collect()
            };
            let in_range = o.decode_ns.0.is_none_or(|l| dur >= l) && o.decode_ns.1.is_none_or(|h| dur <= h);
            let mut kind = if dur > o.prefill_ns {
                StepKind::Prefill
            } else if in_range {
                StepKind::Decode
            } else {
                StepKind::Excluded
            };
            let mut cut = 0;
            if kind == StepKind::Decode {
                if let Some(k) = &o.start_kernel {
                    match inside.iter().position(|op| op_name(r, op.event, o.keep_suffix).contains(k.as_str())) {
                        Some(i) => cut = i,
                        None => {
                            kind = StepKind::NoStartKernel;
                            if let Some(op) = inside.first() {
                                *first_ops.entry(op_name(r, op.event, o.keep_suffix).to_string()).or_default() += 1;
                            }
                        }
                    }
                }
            }
            let used = &inside[cut..];
            let origin = if kind == StepKind::Decode && o.start_kernel.is_some() { used[0].start } else { start };
            let merged = super::intervals::merge_intervals(used.iter().map(|op| (op.start, op.end)).collect());
            let busy = super::intervals::covered(&merged);
            let last_end = used.iter().map(|op| op.end).max().unwrap_or(origin);
            out.steps.push(StepStat {
                rank: r.rank,
                number,
                start,
                end,
                kind,
                origin,
                ops: used.len(),
                busy,
                bubble: (last_end - origin - busy).max(0),
                same_sequence: None,
                outlier: None,
            });
            if kind == StepKind::Decode {
                let rows: Vec<(u32, i64, i64)> =
                    used.iter().map(|op| (names.id(p, r, op.event, o.keep_suffix), op.start - origin, op.end - origin)).collect();
                sequences.push((out.steps.len() - 1, rows.iter().map(|r| r.0).collect()));
                pooled.add_step(&rows, &names.list);
                per_rank.add_step(&rows, &names.list);
            }
        }
        // what the other rule would have counted in the used decode steps
        for (op, &(w, linked)) in ops.iter().zip(&launched) {
            let Some(w) = w else { continue };
            if out.steps[first_step + w].kind != StepKind::Decode {
                continue;
            }
            if o.by_launch {
                out.unlinked += usize::from(!linked);
            } else {
                out.launched_outside += usize::from(linked && !in_window(op, &windows[w]));
            }
        }
        // outliers among this rank's decode-length steps
        let decode: Vec<usize> =
            (first_step..out.steps.len()).filter(|&i| matches!(out.steps[i].kind, StepKind::Decode | StepKind::NoStartKernel)).collect();
        let flags = tukey(&decode.iter().map(|&i| out.steps[i].end - out.steps[i].start).collect::<Vec<_>>());
        for (&i, f) in decode.iter().zip(flags) {
            out.steps[i].outlier = f;
        }
        if selected.len() > 1 {
            out.ops_by_rank.push((r.rank, per_rank.finish()));
        }
    }
    if !any_steps {
        let found = found_instead(trace, selected, gpu_total);
        return fail(match &o.step_name {
            Some(name) => format!("no step: no CPU-side complete event is named '{name}'; {found}"),
            None => format!("no profiler step in the trace: expected ProfileStep#N (Paddle, cat ProfileStep) or ProfilerStep#N (PyTorch) events; {found}"),
        });
    }
    if !out.steps.iter().any(|s| matches!(s.kind, StepKind::Decode | StepKind::NoStartKernel)) {
        let shortest = out.steps.iter().map(|s| s.end - s.start).min().unwrap_or(0);
        let n = out.steps.len();
        let prefill = out.steps.iter().filter(|s| s.kind == StepKind::Prefill).count();
        let what = if o.step_name.is_some() { "step" } else { "profiler step" };
        let mut found = format!(
            "{prefill} of the {n} {what}{} {} prefill (> {:.3} ms)",
            plural(n),
            if prefill == 1 { "is" } else { "are" },
            us(o.prefill_ns) / 1000.0
        );
        if prefill < n {
            found += &format!(" and {} outside decode_ms", n - prefill);
        }
        return fail(format!(
            "no decode step: {found}; the shortest takes {:.3} ms; set prefill_ms (--prefill-ms){} to count such steps as decode steps",
            us(shortest) / 1000.0,
            if prefill < n { " or decode_ms (--decode-ms)" } else { " above it" }
        ));
    }
    if sequences.is_empty() {
        let k = o.start_kernel.as_deref().unwrap_or_default();
        let mut found: Vec<(String, usize)> = first_ops.into_iter().collect();
        found.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let listed: Vec<String> = found.iter().take(3).map(|(n, c)| format!("'{n}' ({c} step{})", plural(*c))).collect();
        let decode = out.steps.iter().filter(|s| s.kind == StepKind::NoStartKernel).count();
        return fail(format!(
            "start kernel '{k}' is in none of the {decode} decode steps; {}; give the name of the kernel that begins a decode step, or none to measure from the step start",
            if listed.is_empty() { "they have no GPU operation".to_string() } else { format!("their first GPU operations are {}", listed.join(", ")) }
        ));
    }
    // the most common operation sequence (the first one at equal counts)
    let mut counts: FxHashMap<&[u32], (usize, usize)> = FxHashMap::default();
    for (i, (_, seq)) in sequences.iter().enumerate() {
        counts.entry(seq.as_slice()).or_insert((0, i)).0 += 1;
    }
    let reference = counts.iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1))).map(|(s, _)| s.to_vec()).unwrap_or_default();
    for (i, seq) in &sequences {
        out.steps[*i].same_sequence = Some(*seq == reference);
    }
    out.ops = pooled.finish();
    Ok(out)
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

/// Each row's bubble: its average start minus the previous row's average end (first row: its
/// average start).
fn bubbles(ops: &[OpStat]) -> Vec<f64> {
    ops.iter().enumerate().map(|(i, op)| op.bubble_after_us(i.checked_sub(1).map(|j| &ops[j]))).collect()
}

/// kernel_extractor's `stats` CSV: `operation_name, avg_start_time_us, avg_end_time_us,
/// avg_duration_us, bubble_time_us`.
pub fn averages_table(ops: &[OpStat]) -> Table {
    Table::new(AVERAGES_TABLE)
        .with("operation_name", Unit::None, Values::Str(ops.iter().map(|o| o.name.clone()).collect()))
        .with("avg_start_time_us", Unit::Us, Values::Float(ops.iter().map(OpStat::avg_start_us).collect()))
        .with("avg_end_time_us", Unit::Us, Values::Float(ops.iter().map(OpStat::avg_end_us).collect()))
        .with("avg_duration_us", Unit::Us, Values::Float(ops.iter().map(OpStat::avg_duration_us).collect()))
        .with("bubble_time_us", Unit::Us, Values::Float(bubbles(ops)))
}

/// Per-operation distributions, for each group (rank or all ranks).
fn op_table(name: &str, groups: &[(Option<u32>, &[OpStat])]) -> Table {
    let mut rank = Vec::new();
    let (mut op, mut occ, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    let mut cols: [Vec<f64>; 8] = Default::default();
    for &(r, ops) in groups {
        let bubbles = bubbles(ops);
        for (i, o) in ops.iter().enumerate() {
            let d = o.durations_us();
            rank.push(r.map(i64::from).unwrap_or(-1));
            op.push(o.name.clone());
            occ.push(i64::from(o.occurrence));
            steps.push(o.steps() as i64);
            let vals = [
                o.avg_start_us(),
                o.avg_end_us(),
                o.avg_duration_us(),
                quantile_sorted(&d, 0.5),
                quantile_sorted(&d, 0.9),
                d.last().copied().unwrap_or(f64::NAN),
                std(&d),
                bubbles[i],
            ];
            for (c, v) in cols.iter_mut().zip(vals) {
                c.push(v);
            }
        }
    }
    let mut t = Table::new(name);
    if groups.iter().any(|g| g.0.is_some()) {
        t = t.with("rank", Unit::None, Values::Int(rank));
    }
    t = t.with("operation_name", Unit::None, Values::Str(op)).with("occurrence", Unit::None, Values::Int(occ)).with(
        "steps",
        Unit::Count,
        Values::Int(steps),
    );
    let names = [
        "avg_start_time_us",
        "avg_end_time_us",
        "avg_duration_us",
        "p50_duration_us",
        "p90_duration_us",
        "max_duration_us",
        "std_duration_us",
        "bubble_time_us",
    ];
    for (n, c) in names.iter().zip(cols) {
        t = t.with(n, Unit::Us, Values::Float(c));
    }
    t
}

/// One row per step.
fn steps_table(steps: &[StepStat]) -> Table {
    let f = |g: &dyn Fn(&StepStat) -> f64| Values::Float(steps.iter().map(g).collect());
    Table::new("decode_steps")
        .with("rank", Unit::None, Values::Int(steps.iter().map(|s| i64::from(s.rank)).collect()))
        .with("step", Unit::None, Values::Int(steps.iter().map(|s| i64::from(s.number)).collect()))
        .with("kind", Unit::None, Values::Str(steps.iter().map(|s| s.kind.as_str().to_string()).collect()))
        .with("start_time_us", Unit::Us, f(&|s| us(s.start)))
        .with("duration_us", Unit::Us, f(&|s| us(s.end - s.start)))
        .with("start_kernel_offset_us", Unit::Us, f(&|s| us(s.origin - s.start)))
        .with("gpu_ops", Unit::Count, Values::Int(steps.iter().map(|s| s.ops as i64).collect()))
        .with("gpu_busy_us", Unit::Us, f(&|s| us(s.busy)))
        .with("bubble_us", Unit::Us, f(&|s| us(s.bubble)))
        .with(
            "sequence",
            Unit::None,
            Values::Str(
                steps
                    .iter()
                    .map(|s| {
                        match s.same_sequence {
                            Some(true) => "most common",
                            Some(false) => "differs",
                            None => "",
                        }
                        .to_string()
                    })
                    .collect(),
            ),
        )
        .with("outlier", Unit::None, Values::Str(steps.iter().map(|s| s.outlier.unwrap_or("").to_string()).collect()))
}

/// The steps flagged slow or fast, with their rank's median decode step.
fn outliers_table(steps: &[StepStat]) -> Table {
    let mut lengths: FxHashMap<u32, Vec<f64>> = FxHashMap::default();
    for t in steps.iter().filter(|t| matches!(t.kind, StepKind::Decode | StepKind::NoStartKernel)) {
        lengths.entry(t.rank).or_default().push(us(t.end - t.start));
    }
    let medians: FxHashMap<u32, f64> = lengths
        .into_iter()
        .map(|(r, mut d)| {
            d.sort_by(f64::total_cmp);
            (r, quantile_sorted(&d, 0.5))
        })
        .collect();
    let rows: Vec<(&StepStat, f64)> =
        steps.iter().filter(|s| s.outlier.is_some()).map(|s| (s, medians.get(&s.rank).copied().unwrap_or(f64::NAN))).collect();
    Table::new("decode_outlier_steps")
        .with("rank", Unit::None, Values::Int(rows.iter().map(|(s, _)| i64::from(s.rank)).collect()))
        .with("step", Unit::None, Values::Int(rows.iter().map(|(s, _)| i64::from(s.number)).collect()))
        .with("outlier", Unit::None, Values::Str(rows.iter().map(|(s, _)| s.outlier.unwrap_or("").to_string()).collect()))
        .with("duration_us", Unit::Us, Values::Float(rows.iter().map(|(s, _)| us(s.end - s.start)).collect()))
        .with("median_decode_step_us", Unit::Us, Values::Float(rows.iter().map(|r| r.1).collect()))
        .with("ratio_to_median", Unit::Ratio, Values::Float(rows.iter().map(|(s, m)| us(s.end - s.start) / m).collect()))
}

/// Per-rank step counts and decode-step times.
#[derive(Debug, Clone, PartialEq)]
struct RankSummary {
    rank: u32,
    steps: usize,
    prefill: usize,
    decode: usize,
    no_start_kernel: usize,
    excluded: usize,
    differing: usize,
    outliers: usize,
    /// Durations of decode steps (used ones), µs, sorted.
    durations: Vec<f64>,
    busy: f64,
    bubble: f64,
    ops: f64,
}

impl RankSummary {
    /// The summary of `rank` from its steps (`steps` may hold other ranks' too).
    fn of(rank: u32, steps: &[StepStat]) -> RankSummary {
        let mine: Vec<&StepStat> = steps.iter().filter(|s| s.rank == rank).collect();
        let count = |k: StepKind| mine.iter().filter(|s| s.kind == k).count();
        let used: Vec<&&StepStat> = mine.iter().filter(|s| s.kind == StepKind::Decode).collect();
        let mut durations: Vec<f64> = used.iter().map(|s| us(s.end - s.start)).collect();
        durations.sort_by(f64::total_cmp);
        let avg = |g: &dyn Fn(&StepStat) -> f64| {
            if used.is_empty() {
                f64::NAN
            } else {
                used.iter().map(|s| g(s)).sum::<f64>() / used.len() as f64
            }
        };
        RankSummary {
            rank,
            steps: mine.len(),
            prefill: count(StepKind::Prefill),
            decode: used.len(),
            no_start_kernel: count(StepKind::NoStartKernel),
            excluded: count(StepKind::Excluded),
            differing: mine.iter().filter(|s| s.same_sequence == Some(false)).count(),
            outliers: mine.iter().filter(|s| s.outlier.is_some()).count(),
            busy: avg(&|s| us(s.busy)),
            bubble: avg(&|s| us(s.bubble)),
            ops: avg(&|s| s.ops as f64),
            durations,
        }
    }

    fn mean(&self) -> f64 {
        if self.durations.is_empty() {
            f64::NAN
        } else {
            self.durations.iter().sum::<f64>() / self.durations.len() as f64
        }
    }
}

fn ranks_table(s: &[RankSummary]) -> Table {
    let int = |g: &dyn Fn(&RankSummary) -> usize| Values::Int(s.iter().map(|r| g(r) as i64).collect());
    let float = |g: &dyn Fn(&RankSummary) -> f64| Values::Float(s.iter().map(g).collect());
    Table::new("decode_ranks")
        .with("rank", Unit::None, Values::Int(s.iter().map(|r| i64::from(r.rank)).collect()))
        .with("steps", Unit::Count, int(&|r| r.steps))
        .with("prefill_steps", Unit::Count, int(&|r| r.prefill))
        .with("decode_steps", Unit::Count, int(&|r| r.decode))
        .with("no_start_kernel_steps", Unit::Count, int(&|r| r.no_start_kernel))
        .with("excluded_steps", Unit::Count, int(&|r| r.excluded))
        .with("sequence_differs_steps", Unit::Count, int(&|r| r.differing))
        .with("outlier_steps", Unit::Count, int(&|r| r.outliers))
        .with("avg_decode_step_us", Unit::Us, float(&|r| r.mean()))
        .with("p50_decode_step_us", Unit::Us, float(&|r| quantile_sorted(&r.durations, 0.5)))
        .with("p90_decode_step_us", Unit::Us, float(&|r| quantile_sorted(&r.durations, 0.9)))
        .with("max_decode_step_us", Unit::Us, float(&|r| r.durations.last().copied().unwrap_or(f64::NAN)))
        .with("avg_gpu_busy_us", Unit::Us, float(&|r| r.busy))
        .with("avg_bubble_us", Unit::Us, float(&|r| r.bubble))
        .with("avg_gpu_ops", Unit::Count, float(&|r| r.ops))
}

fn notes(o: &DecodeOptions, stats: &DecodeStats, ranks: &[RankSummary]) -> Vec<String> {
    let mut notes = Vec::new();
    let ms = |us: f64| format!("{:.3}", us / 1000.0);
    for r in ranks {
        let mut line = format!(
            "rank {}: {} step{}, {} prefill (> {} ms), {} decode step{} averaged",
            r.rank,
            r.steps,
            plural(r.steps),
            r.prefill,
            ms(us(o.prefill_ns)),
            r.decode,
            plural(r.decode)
        );
        if !r.durations.is_empty() {
            line += &format!(
                " (avg {} ms, p50 {} ms, p90 {} ms)",
                ms(r.mean()),
                ms(quantile_sorted(&r.durations, 0.5)),
                ms(quantile_sorted(&r.durations, 0.9))
            );
        }
        if r.no_start_kernel > 0 {
            line += &format!("; {} skipped without '{}'", r.no_start_kernel, o.start_kernel.as_deref().unwrap_or_default());
        }
        if r.excluded > 0 {
            line += &format!("; {} outside decode_ms", r.excluded);
        }
        if r.differing > 0 {
            line += &format!("; {} with another operation sequence than the most common one", r.differing);
        }
        if r.outliers > 0 {
            line += &format!("; {} outlier step{}", r.outliers, plural(r.outliers));
        }
        notes.push(line);
    }
    if let Some(name) = &o.step_name {
        notes.push(format!("steps are the CPU-side events named '{name}', numbered from 1 in time order"));
    }
    match &o.start_kernel {
        Some(k) => notes.push(format!("times are relative to the first GPU operation containing '{k}' in each decode step")),
        None => notes.push("times are relative to each step's start".into()),
    }
    if o.by_launch {
        notes.push("a step's GPU operations are those launched from it (by correlation id), wherever they run".into());
        if stats.unlinked > 0 {
            let n = stats.unlinked;
            notes.push(format!(
                "{n} GPU operation{} of decode steps had no launching call in the trace and {} counted in the step {} started and ended in",
                plural(n),
                if n == 1 { "was" } else { "were" },
                if n == 1 { "it" } else { "they" }
            ));
        }
    } else if stats.launched_outside > 0 {
        let n = stats.launched_outside;
        notes.push(format!(
            "{n} GPU operation{} launched from decode steps ran past {} step's end (the GPU behind the CPU) and {} not counted; by_launch (--by-launch) counts operations with the step that launched them",
            plural(n),
            if n == 1 { "its" } else { "their" },
            if n == 1 { "is" } else { "are" }
        ));
    }
    if stats.ops.is_empty() {
        notes.push(format!(
            "no GPU operation (kernel, memcpy, memset) {} a decode step",
            if o.by_launch { "was launched from" } else { "starts and ends inside" }
        ));
    } else {
        notes.push(format!("{} operations matched by name and occurrence", stats.ops.len()));
    }
    notes
}

/// At most this many per-rank step charts.
const MAX_STEP_CHARTS: usize = 4;

fn charts(stats: &DecodeStats, ranks: &[RankSummary]) -> Vec<Chart> {
    let mut charts = Vec::new();
    let kinds = [StepKind::Prefill, StepKind::Decode, StepKind::NoStartKernel, StepKind::Excluded];
    for r in ranks.iter().take(MAX_STEP_CHARTS) {
        let mine: Vec<&StepStat> = stats.steps.iter().filter(|s| s.rank == r.rank).collect();
        let series: Vec<Line> = kinds
            .iter()
            .filter(|k| mine.iter().any(|s| s.kind == **k))
            .map(|&k| Line {
                name: k.as_str().into(),
                points: mine.iter().filter(|s| s.kind == k).map(|s| (f64::from(s.number), us(s.end - s.start) / 1000.0)).collect(),
            })
            .collect();
        charts.push(Chart::Columns {
            title: format!("Step durations on rank {}", r.rank),
            x_label: "step".into(),
            y_label: "duration (ms)".into(),
            series,
        });
    }
    if ranks.len() > 1 {
        charts.push(Chart::Bars {
            title: "Decode step time per rank (mean, min–max)".into(),
            x_label: "rank".into(),
            y_label: "step (ms)".into(),
            categories: ranks.iter().map(|r| r.rank.to_string()).collect(),
            values: ranks.iter().map(|r| r.mean() / 1000.0).collect(),
            errors: Some(
                ranks
                    .iter()
                    .map(|r| {
                        (
                            r.durations.first().copied().unwrap_or(f64::NAN) / 1000.0,
                            r.durations.last().copied().unwrap_or(f64::NAN) / 1000.0,
                        )
                    })
                    .collect(),
            ),
        });
    }
    charts.push(Chart::Waterfall {
        title: "Average decode step".into(),
        x_label: "time from the step's start kernel (µs)".into(),
        bars: stats.ops.iter().map(|o| (o.name.clone(), o.avg_start_us(), o.avg_end_us())).collect(),
    });
    charts
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

    #[test]
    fn bubble_is_exact() {
        let a = OpStat { name: "a".into(), occurrence: 0, starts: vec![0, 1], ends: vec![10, 11] };
        let b = OpStat { name: "b".into(), occurrence: 0, starts: vec![12, 13, 14], ends: vec![20, 20, 20] };
        assert_eq!(a.bubble_after_us(None), 0.0005);
        // 13 − 10.5 = 2.5 ns
        assert_eq!(b.bubble_after_us(Some(&a)), 0.0025);
    }

    #[test]
    fn tukey_fences() {
        assert_eq!(tukey(&[10, 11, 12, 13, 100]), vec![None, None, None, None, Some("slow")]);
        assert_eq!(tukey(&[10, 11, 12]), vec![None, None, None]);
    }
}
