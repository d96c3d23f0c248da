//! HTA's view of a loaded trace: the per-rank DataFrame that `TraceAnalysis(...)` of
//! HolisticTraceAnalysis 0.5.0 keeps after loading (SPEC §1.2–§1.9), rebuilt from our model, and
//! its rendering in the oracle's `parsed_trace__rank{r}.csv` layout.
//!
//! Every HTA number starts here, so this reproduces HTA's arithmetic, bugs included:
//! 1. Rows: every event with a `dur` and a `cat`, except cat `Trace` (§1.2.5). `python_function`
//!    rows stay. Our `B` rows are not kept: HTA sees a `B` event without `dur` (the model cannot
//!    tell a `B` that also carried its own `dur`).
//! 2. Times, µs: if some event of the file had a non-integer or missing `ts`
//!    (`RankTrace::meta.ts_fractional_or_missing`), HTA rounds in float64: `end = ts + dur`,
//!    `ts = ceil(ts)`, `end = floor(end)`, `dur = end - ts` (§1.2.3; durations can become −1).
//!    The float64 values are derived from our exact ns as the correctly rounded double of
//!    `ns / 1000`, which equals Python's `float(text)` whenever the text had at most 3 decimals.
//!    Otherwise `ts` is the integer µs and `dur` the file's value. The `dur` column is float64
//!    when some element of the event array had no `dur` (or, when rounding, no `ts`), or, without
//!    rounding, a non-integer one; the renderer prints it accordingly.
//! 3. `index_correlation` (§1.5): CPU↔GPU partner by `correlation`, many-to-many merge, last
//!    assignment wins: a CPU row gets its last GPU partner in row order, a GPU row its last CPU
//!    partner.
//! 4. `iteration` (§1.6): rows with `stream < 0` get the number of the last `ProfilerStep#N` row
//!    (any category, row order) whose `[ts, ts + dur)` contains their `ts`, else −1; rows with
//!    `stream > 0` take the iteration of row `index_correlation` if it is > 0 (NaN if that row is
//!    not a `stream < 0` row), else −1; rows with `stream == 0` stay NaN (`None`).
//! 5. `end = ts + dur` before alignment, never updated (stale, absolute; §1.7).
//! 6. Alignment: `ts -= min_ts`, the smallest `ts` over all ranks (§1.8).
//! 7. `_filter_irrelevant_gpu_kernels` (§1.9), only when the global symbol table (every kept
//!    `cat` and `name` of every rank) has ≥ 2 symbols containing `ProfilerStep`: CPU rows (not
//!    [`gpu_kernel_rows`]) are kept if `ts <` the latest start of a CPU row named `*ProfilerStep*`
//!    (none → no CPU row kept); GPU rows are repeated once per kept CPU row with the same
//!    `correlation` (−1 matches −1). Result: GPU rows, then CPU rows, each in row order.
//!
//! With [`HtaFrameOptions::exact`] (kinetoscope's default, without `--hta`) the same steps run
//! with HTA's loading bugs (SPEC §5.2, §5.3, §5.9) fixed: times are the exact ns of the file (no
//! sub-µs rounding, so no −1 durations), `end` is aligned like `ts`, a GPU row is kept once (not
//! once per CPU row sharing its correlation; GPU rows without a correlation are kept when they
//! start before the last step), and a rank without steps keeps all its rows when other ranks
//! have steps. Analyses read the ns times [`HtaFrame::ts_ns`] / [`HtaFrame::dur_ns`], which
//! hold HTA's µs values × 1000 in HTA mode.
//!
//! Args HTA reads by their exact key only (`correlation`, `External id`, `bytes`, ...); the model
//! also accepts spelling variants (see `read/chrome.rs`), which is where a frame can differ from
//! HTA's.

mod iteration;
mod last_step;

use std::fmt::Write as _;

use crate::model::events::flags;
use crate::model::{EventId, IntArg, Phase, RankTrace, StrId, Trace};
use crate::table::python_float_repr;
use crate::table::render::csv_field;
use iteration::iteration;
use last_step::{last_step_filter, last_step_filter_exact, step_limit, ExactKept};

/// Options of [`hta_frames`].
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HtaFrameOptions {
    /// `TraceAnalysis(include_last_profiler_step=...)`: keep CPU rows with `ts <=` the latest
    /// stale `end` of a step instead of `ts <` its latest start (with the stale absolute `end`
    /// this keeps every CPU row, as in HTA). Default is `false`.
    pub include_last_profiler_step: bool,
    /// kinetoscope's corrected view instead of HTA's (module docs). Default `false` (HTA's).
    pub exact: bool,
}

/// HTA's loaded DataFrames of a whole trace.
#[derive(Debug, Clone, Default)]
pub struct HtaFrames {
    /// `Trace.min_ts`: the smallest HTA `ts` over all ranks, µs on the files' clock (`None` when
    /// no rank has a row).
    pub min_ts_us: Option<i64>,
    /// Distinct symbols (kept `cat`s and `name`s of all ranks) containing `ProfilerStep`.
    pub profiler_step_symbols: usize,
    /// Whether `_filter_irrelevant_gpu_kernels` ran (`profiler_step_symbols >= 2`).
    pub filtered: bool,
    /// Built with [`HtaFrameOptions::exact`].
    pub exact: bool,
    /// One frame per rank, in the order of [`Trace::ranks`].
    pub ranks: Vec<HtaFrame>,
}

/// One rank's DataFrame in HTA's row order: the model row of each frame row, and the columns
/// HTA computes. Columns that are the model's own (`index`, `cat`, `name`, `pid`, `tid`,
/// `stream`, `correlation`, the args, and the times unless HTA rounds them) are read through
/// the model row by accessors taking the rank ([`HtaFrame::name`], [`HtaFrame::ts_ns`], ...),
/// not copied: 20 bytes a row (36 with HTA's rounded times) instead of 92.
#[derive(Debug, Clone, Default)]
pub struct HtaFrame {
    /// Rank number.
    pub rank: u32,
    /// HTA rounded this file's times to whole µs (§1.2.3).
    pub rounded: bool,
    /// HTA's `dur` (and so `end`) column is float64; else int.
    pub dur_is_float: bool,
    /// HTA's `iteration` column is float64 (some row of the file had NaN); else int.
    pub iteration_is_float: bool,
    /// The model row of each frame row (a GPU row repeated by §1.9 appears several times).
    pub row: Vec<EventId>,
    /// The exact times (kinetoscope's view, [`HtaFrameOptions::exact`]) instead of HTA's.
    pub exact: bool,
    /// HTA's rounded starts and durations, ns (aligned), when `rounded`; else empty, and
    /// [`HtaFrame::ts_ns`] / [`HtaFrame::dur_ns`] compute them from the model row.
    rounded_ts_ns: Vec<i64>,
    rounded_dur_ns: Vec<i64>,
    /// µs subtracted from `ts` by the alignment (§1.8; 0 before it): `ts` and `end`
    /// ([`HtaFrame::ts`], [`HtaFrame::end`]) are computed from the ns columns, not stored.
    pub ts_shift_us: i64,
    /// ns subtracted from [`HtaFrame::ts_ns`] by the alignment (0 before it).
    pub ts_shift_ns: i64,
    /// `end` is the aligned exact end (`exact` frames, once aligned) instead of HTA's stale one.
    pub end_exact: bool,
    /// The partner's `index` + 1 (read by [`HtaFrame::index_correlation`]); 0 for a row
    /// without one, whose `index_correlation` is `min(correlation, 0)`. 4 bytes a row.
    index_correlation: Vec<u32>,
    /// `iteration` ([`HtaFrame::iteration`]) as a position in `iteration_values`.
    iterations: Vec<u32>,
    /// The distinct values of `iteration` (a trace has few: its step numbers, −1, and
    /// [`NAN_ITERATION`] for HTA's NaN).
    iteration_values: Vec<i64>,
}

/// Row lookups by `index` (HTA's `.loc[label]`): the first frame row with each `index`.
pub struct ByIndex(Vec<u32>);

impl ByIndex {
    /// The lookup of frame `f` of rank `r`.
    pub fn new(f: &HtaFrame, r: &RankTrace) -> ByIndex {
        let mut first = vec![u32::MAX; (0..f.len()).map(|i| f.index(r, i)).max().map_or(0, |m| m as usize + 1)];
        for i in (0..f.len()).rev() {
            first[f.index(r, i) as usize] = i as u32;
        }
        ByIndex(first)
    }

    /// The first row with `index`, if any.
    pub fn get(&self, index: i64) -> Option<usize> {
        let row = *self.0.get(usize::try_from(index).ok()?)?;
        (row != u32::MAX).then_some(row as usize)
    }
}

/// `iterations` value of HTA's NaN (step numbers are never negative; −1 is "outside steps").
const NAN_ITERATION: i64 = i64::MIN;

/// Columns of the oracle's `parsed_trace__rank{r}.csv`, in order.
pub const CSV_COLUMNS: [&str; 17] = [
    "index",
    "s_cat",
    "s_name",
    "pid",
    "tid",
    "ts",
    "dur",
    "end",
    "stream",
    "correlation",
    "index_correlation",
    "iteration",
    "external_id",
    "bytes",
    "memory_bw_gbps",
    "wait_on_stream",
    "wait_on_cuda_event_record_corr_id",
];

/// Builds HTA's loaded DataFrame of every rank (module docs give the steps).
pub fn hta_frames(trace: &Trace, opts: &HtaFrameOptions) -> HtaFrames {
    // exact: what the filter needs of each rank (step 7) is made by the rank's correlation
    // pass, at one byte a row, instead of grouping its rows by correlation a second time
    let limit = opts.exact.then_some(opts.include_last_profiler_step);
    let (mut frames, kept): (Vec<HtaFrame>, Vec<Option<ExactKept>>) = trace.ranks.iter().map(|r| frame_of(r, opts.exact, limit)).unzip();
    let ranks = frames.iter().zip(&trace.ranks);
    let min_ts_ns = ranks.filter_map(|(f, r)| (0..f.len()).map(|i| f.ts_ns(r, i)).min()).min();
    // before the alignment `ts` is the floor of `ts_ns` in µs, which keeps the order
    let min_ts_us = min_ts_ns.map(|t| t.div_euclid(1000));
    for f in &mut frames {
        for t in &mut f.rounded_ts_ns {
            *t -= min_ts_ns.unwrap_or(0);
        }
        f.ts_shift_ns = min_ts_ns.unwrap_or(0);
        f.ts_shift_us = min_ts_us.unwrap_or(0);
        f.end_exact = opts.exact;
    }
    let mut symbols: Vec<&str> = Vec::new();
    for (f, r) in frames.iter().zip(&trace.ranks) {
        // each string the frame uses, tested once
        let mut used = vec![false; r.strings.len()];
        for &e in &f.row {
            used[r.events.cat.get(e as usize).0 as usize] = true;
            used[r.events.name.get(e as usize).0 as usize] = true;
        }
        symbols.extend(r.strings.iter().zip(used).filter(|(text, used)| *used && text.contains("ProfilerStep")).map(|(text, _)| text));
    }
    symbols.sort_unstable();
    symbols.dedup();
    let profiler_step_symbols = symbols.len();
    let filtered = profiler_step_symbols >= 2;
    if filtered {
        for ((f, r), kept) in frames.iter_mut().zip(&trace.ranks).zip(kept) {
            match kept {
                Some(k) => {
                    if let Some(keep) = last_step_filter_exact(f, r, &k) {
                        f.retain(&keep);
                    }
                }
                None => {
                    let order = last_step_filter(f, r, opts.include_last_profiler_step);
                    f.select(&order);
                }
            }
        }
    }
    HtaFrames { min_ts_us, profiler_step_symbols, filtered, exact: opts.exact, ranks: frames }
}

/// Whether HTA keeps a model row of `r` at all (§1.2.5): its cat and name are then symbols of
/// HTA's table even when the row is later filtered out (§1.9). For a pass over many rows: each
/// `cat` is tested once, not once per row.
pub fn kept(r: &RankTrace) -> impl Fn(usize) -> bool + '_ {
    let trace_cat: Vec<bool> = r.strings.iter().map(|s| s == "Trace").collect();
    let need = flags::HAS_DUR | flags::HAS_CAT;
    move |e| r.events.flags[e] & need == need && r.events.phase[e] != Phase::Begin && !trace_cat[r.events.cat.get(e).0 as usize]
}

/// The step number of a name HTA treats as a profiler step: `re.match(r"ProfilerStep\s*#\s*(\d+)")`
/// on names starting with `ProfilerStep` (HTA raises on such a name without `#N`; we skip it).
pub fn hta_step_number(name: &str) -> Option<i64> {
    // the model also knows Paddle's `ProfileStep#N`; HTA only Kineto's spelling
    name.starts_with("ProfilerStep").then(|| crate::model::links::step_number(name)).flatten().map(i64::from)
}

/// Parses one file the way HTA's `parse_trace_file` does: steps 1–5 of the module docs, before
/// alignment and filtering (what TraceDiff's `LabeledTrace` keeps, SPEC §3). `exact`: the
/// corrected times of [`HtaFrameOptions::exact`].
pub fn parse_rank(r: &RankTrace, exact: bool) -> HtaFrame {
    frame_of(r, exact, None).0
}

/// [`parse_rank`], and with `filter_limit` (`Some(include_last_profiler_step)`, exact frames
/// only) what [`last_step_filter_exact`] needs of the rank, made in the correlation pass.
fn frame_of(r: &RankTrace, exact: bool, filter_limit: Option<bool>) -> (HtaFrame, Option<ExactKept>) {
    // a Recorder rank's calls are HPC I/O, no event HTA reads (no GPU work, operators or steps):
    // an empty frame, so HTA's analyses and the summary do not walk its millions of calls
    if r.format == Some(crate::model::Format::Recorder) {
        return (HtaFrame { rank: r.rank, ..Default::default() }, filter_limit.map(|_| ExactKept::default()));
    }
    let ev = &r.events;
    let rounded = r.meta.ts_fractional_or_missing && !exact;
    // the rows, and in the same pass what the `dur` column's type needs: it is int64 only if no
    // element of the event array lacks it (NaN) and, without rounding, every value is an
    // integer; with rounding, `end` is NaN (so `dur` float64) also for an element without `ts`
    // (such elements are not rows, so they count as lacking `dur`)
    let kept = kept(r);
    // nearly every event is a row: room for all at once (no copies as it grows), the rest given back after
    let (mut rows, mut with_dur, mut fractional) = (Vec::with_capacity(ev.len()), 0u64, false);
    for e in 0..ev.len() {
        if ev.has_dur(e as EventId) {
            with_dur += u64::from(ev.phase[e] != Phase::Begin);
            fractional = fractional || !rounded && ev.dur.get(e) % 1000 != 0;
        }
        if kept(e) {
            rows.push(e as EventId);
        }
    }
    rows.shrink_to_fit();
    let elements = r.counts.events + r.counts.empty_placeholders;
    let dur_is_float = with_dur < elements || fractional;
    // HTA's (ts, dur), µs, of model row e
    let times = |e: usize| {
        if rounded {
            let ts_f = ns_to_us_f64(ev.ts[e]);
            let end = (ts_f + ns_to_us_f64(ev.dur.get(e))).floor();
            let ts = ts_f.ceil();
            (ts as i64, end - ts)
        } else {
            (ev.ts[e].div_euclid(1000), ns_to_us_f64(ev.dur.get(e)))
        }
    };
    // only HTA's rounded times are stored (each column made in one pass over the rows, at its
    // size); the others are the model's
    let (rounded_ts_ns, rounded_dur_ns) = if rounded {
        (gather(&rows, |e| times(e).0 * 1000), gather(&rows, |e| times(e).1 as i64 * 1000))
    } else {
        (Vec::new(), Vec::new())
    };
    let mut f = HtaFrame { rank: r.rank, rounded, exact, dur_is_float, rounded_ts_ns, rounded_dur_ns, row: rows, ..Default::default() };
    let (partner, kept);
    (f.index_correlation, partner, kept) = index_correlation(&f, r, filter_limit);
    (f.iterations, f.iteration_values) = iteration(&f, r, exact, &partner);
    f.iteration_is_float = f.iteration_values.contains(&NAN_ITERATION);
    (f, kept)
}

/// A column: `value` of each model row in `rows`, in one pass.
fn gather<T>(rows: &[EventId], value: impl Fn(usize) -> T) -> Vec<T> {
    rows.iter().map(|&e| value(e as usize)).collect()
}

/// `(correlation, row)` of the frame rows with a correlation (not −1), by correlation then row
/// (`links::keyed_rows`): its groups of equal correlations replace hash maps of a million entries.
fn by_correlation(f: &HtaFrame, r: &RankTrace) -> Vec<(i64, EventId)> {
    crate::model::links::keyed_rows(f.len(), |i| Some(f.correlation(r, i)).filter(|&c| c != -1))
}

/// `transform_correlation_to_index` (§1.5): each row's partner's `index` + 1 (0 for none: the
/// column as [`HtaFrame::index_correlation`] stores it), and the partner's row (`u32::MAX` for
/// none). With `filter_limit`, also what the exact filter needs ([`ExactKept`]), from the same
/// groups of rows by correlation.
fn index_correlation(f: &HtaFrame, r: &RankTrace, filter_limit: Option<bool>) -> (Vec<u32>, Vec<u32>, Option<ExactKept>) {
    // the partner's index + 1; 0: none
    let mut ic: Vec<u32> = vec![0; f.len()];
    let mut partner = vec![u32::MAX; f.len()];
    let gpu = gpu_kernel_rows(f, r);
    let limit = filter_limit.and_then(|include_last| step_limit(f, r, &gpu, include_last));
    let cpu_kept = |i: u32| !gpu[i as usize] && limit.is_some_and(|l| f.ts_ns(r, i as usize) < l);
    // GPU rows with a correlation that a kept CPU row has too
    let mut gpu_kept = vec![false; if limit.is_some() { f.len() } else { 0 }];
    // per correlation, the last CPU and the last GPU row (row order); each row takes the other side's
    for group in by_correlation(f, r).chunk_by(|a, b| a.0 == b.0) {
        let last = |side: bool| group.iter().rev().map(|&(_, i)| i).find(|&i| gpu[i as usize] == side);
        let (last_cpu, last_gpu) = (last(false), last(true));
        for &(_, i) in group {
            if let Some(j) = if gpu[i as usize] { last_cpu } else { last_gpu } {
                // an `index` is below the number of events, so + 1 fits
                ic[i as usize] = f.index(r, j as usize).saturating_add(1);
                partner[i as usize] = j;
            }
        }
        if limit.is_some() && group.iter().any(|&(_, i)| cpu_kept(i)) {
            for &(_, i) in group {
                gpu_kept[i as usize] = gpu[i as usize];
            }
        }
    }
    // a rank without steps keeps every row: no flags
    let kept =
        filter_limit.map(|_| ExactKept { limit, rows: gpu.iter().zip(&gpu_kept).map(|(&g, &k)| u8::from(g) | u8::from(k) << 1).collect() });
    (ic, partner, kept)
}

/// Per frame row, whether it is a GPU kernel: HTA's `GPUKernelFilter` (§1.4), `(stream >= 0 &
/// correlation >= 0) | name in {Event Sync, Context Sync}`. Names are tested once each, not
/// once per row.
pub fn gpu_kernel_rows(f: &HtaFrame, r: &RankTrace) -> Vec<bool> {
    let sync: Vec<bool> = r.strings.iter().map(|s| s == "Event Sync" || s == "Context Sync").collect();
    (0..f.len()).map(|i| (f.stream(r, i) >= 0 && f.correlation(r, i) >= 0) || sync[f.name(r, i).0 as usize]).collect()
}

impl HtaFrame {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.row.len()
    }

    /// Whether the frame has no rows.
    pub fn is_empty(&self) -> bool {
        self.row.is_empty()
    }

    /// Start of row `i` of rank `r`'s frame, ns, relative to the earliest start of all ranks
    /// (once aligned): HTA's `ts` × 1000, or the exact start (`exact`).
    pub fn ts_ns(&self, r: &RankTrace, i: usize) -> i64 {
        if self.rounded {
            return self.rounded_ts_ns[i];
        }
        let t = r.events.ts[self.row[i] as usize];
        (if self.exact { t } else { t.div_euclid(1000) * 1000 }) - self.ts_shift_ns
    }

    /// Duration of row `i`, ns: HTA's `dur` × 1000 (exact for the file's decimals), or the exact
    /// duration.
    #[inline]
    pub fn dur_ns(&self, r: &RankTrace, i: usize) -> i64 {
        if self.rounded {
            self.rounded_dur_ns[i]
        } else {
            r.events.dur.get(self.row[i] as usize)
        }
    }

    /// `ts` of row `i`, µs, relative to [`HtaFrames::min_ts_us`] (floor of the exact time in
    /// `exact` frames): the start on the file's clock in whole µs, less the alignment.
    pub fn ts(&self, r: &RankTrace, i: usize) -> i64 {
        (self.ts_ns(r, i) + self.ts_shift_ns).div_euclid(1000) - self.ts_shift_us
    }

    /// `end` of row `i`, µs: HTA's `ts + dur` on the file's clock (stale, not aligned; §1.7), or,
    /// in aligned exact frames, the aligned exact end.
    pub fn end(&self, r: &RankTrace, i: usize) -> f64 {
        if self.end_exact {
            super::units::us(self.ts_ns(r, i) + self.dur_ns(r, i))
        } else {
            (self.ts(r, i) + self.ts_shift_us) as f64 + self.dur(r, i)
        }
    }

    /// `dur` of row `i`, µs: the float64 HTA holds (integral unless `dur_is_float` and not
    /// rounded), the correctly rounded `dur_ns / 1000`.
    pub fn dur(&self, r: &RankTrace, i: usize) -> f64 {
        ns_to_us_f64(self.dur_ns(r, i))
    }

    /// `index` of row `i` of rank `r`'s frame: the position of its event in the file's event array.
    #[inline]
    pub fn index(&self, r: &RankTrace, i: usize) -> u32 {
        r.events.index.get(self.row[i] as usize)
    }

    /// `cat` of row `i` (a string of `r`).
    pub fn cat(&self, r: &RankTrace, i: usize) -> StrId {
        r.events.cat.get(self.row[i] as usize)
    }

    /// `name` of row `i` (a string of `r`; the full name, not shortened).
    #[inline]
    pub fn name(&self, r: &RankTrace, i: usize) -> StrId {
        r.events.name.get(self.row[i] as usize)
    }

    /// `pid` of row `i`: an index into [`RankTrace::ids`], printed with [`RankTrace::id_text`].
    pub fn pid(&self, r: &RankTrace, i: usize) -> u32 {
        r.events.pid.get(self.row[i] as usize)
    }

    /// `tid` of row `i`: an index into [`RankTrace::ids`].
    pub fn tid(&self, r: &RankTrace, i: usize) -> u32 {
        r.events.tid.get(self.row[i] as usize)
    }

    /// `stream` of row `i` (−1 when absent or not an integer).
    #[inline]
    pub fn stream(&self, r: &RankTrace, i: usize) -> i64 {
        r.events.stream.get(self.row[i] as usize)
    }

    /// `correlation` of row `i` (−1 when absent). HTA reads only the exact key `correlation`
    /// (SPEC §1.2 step 7); our reader also accepts other spellings and flags them.
    #[inline]
    pub fn correlation(&self, r: &RankTrace, i: usize) -> i64 {
        let e = self.row[i] as usize;
        if r.events.flags[e] & flags::CORRELATION_ALT_KEY != 0 {
            -1
        } else {
            r.events.correlation.get(e)
        }
    }

    /// `iteration` of row `i`: its step number, −1 outside steps, `None` for HTA's NaN.
    pub fn iteration(&self, i: usize) -> Option<i64> {
        Some(self.iteration_values[self.iterations[i] as usize]).filter(|&it| it != NAN_ITERATION)
    }

    /// `index_correlation` of row `i`: the partner's `index`; without one `min(correlation,
    /// 0)`: −1 no correlation, 0 correlated but no partner.
    pub fn index_correlation(&self, r: &RankTrace, i: usize) -> i64 {
        match self.index_correlation[i] {
            0 => self.correlation(r, i).min(0),
            k => i64::from(k) - 1,
        }
    }

    /// `external_id` of row `i` of rank `r`'s frame (−1 when absent, or given under another key
    /// than HTA's `External id`). The args columns are read through the model row, not copied.
    pub fn external_id(&self, r: &RankTrace, i: usize) -> i64 {
        let e = self.row[i] as usize;
        if r.events.flags[e] & flags::EXTERNAL_ID_ALT_KEY != 0 {
            -1
        } else {
            r.events.external_id.get(e)
        }
    }

    /// `bytes` of row `i` (−1 when absent, or under another key than `bytes`).
    pub fn bytes(&self, r: &RankTrace, i: usize) -> i64 {
        let e = self.row[i];
        if r.events.flags[e as usize] & flags::BYTES_ALT_KEY != 0 {
            -1
        } else {
            r.events.int_arg(e, IntArg::Bytes).unwrap_or(-1)
        }
    }

    /// `memory_bw_gbps` of row `i`: `args["memory bandwidth (GB/s)"]`, HTA's default 0.0 when
    /// absent.
    pub fn memory_bw_gbps(&self, r: &RankTrace, i: usize) -> f64 {
        r.events.memory_bw_gbps(self.row[i]).unwrap_or(0.0)
    }

    /// `wait_on_stream` of row `i` (−1 when absent).
    pub fn wait_on_stream(&self, r: &RankTrace, i: usize) -> i64 {
        r.events.int_arg(self.row[i], IntArg::WaitOnStream).unwrap_or(-1)
    }

    /// `wait_on_cuda_event_record_corr_id` of row `i` (−1 when absent).
    pub fn wait_on_cuda_event_record_corr_id(&self, r: &RankTrace, i: usize) -> i64 {
        r.events.int_arg(self.row[i], IntArg::WaitOnEventRecordCorrelation).unwrap_or(-1)
    }

    /// Keeps rows `order` (repeats allowed), in that order, one column at a time (never two
    /// whole frames in memory).
    fn select(&mut self, order: &[usize]) {
        // rows kept in their order move down in place: no second set of columns
        let in_place = order.windows(2).all(|w| w[0] < w[1]);
        fn pick<T: Copy>(v: &mut Vec<T>, order: &[usize], in_place: bool) {
            if in_place {
                for (j, &i) in order.iter().enumerate() {
                    v[j] = v[i];
                }
                v.truncate(order.len());
            } else {
                *v = order.iter().map(|&i| v[i]).collect();
            }
        }
        pick(&mut self.row, order, in_place);
        if self.rounded {
            pick(&mut self.rounded_ts_ns, order, in_place);
            pick(&mut self.rounded_dur_ns, order, in_place);
        }
        pick(&mut self.index_correlation, order, in_place);
        pick(&mut self.iterations, order, in_place);
    }

    /// Keeps the rows `keep` flags, in their order, moved down in place (the exact filter).
    fn retain(&mut self, keep: &[bool]) {
        fn retain<T>(v: &mut Vec<T>, keep: &[bool]) {
            let mut i = 0;
            v.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
        retain(&mut self.row, keep);
        if self.rounded {
            retain(&mut self.rounded_ts_ns, keep);
            retain(&mut self.rounded_dur_ns, keep);
        }
        retain(&mut self.index_correlation, keep);
        retain(&mut self.iterations, keep);
    }
}

/// Renders `f` (of rank `r`) as the oracle's `parsed_trace__rank{r}.csv`: header
/// [`CSV_COLUMNS`], rows sorted by `index` (repeated rows are identical), numbers printed as
/// pandas `to_csv` prints HTA's dtypes (float64 as Python `repr`, NaN and unknown values empty).
pub fn render_csv(f: &HtaFrame, r: &RankTrace) -> String {
    let mut order: Vec<usize> = (0..f.len()).collect();
    order.sort_by_key(|&i| f.index(r, i));
    let mut out = CSV_COLUMNS.join(",");
    out.push('\n');
    let num = |x: f64, float: bool| if float { python_float_repr(x) } else { format!("{}", x as i64) };
    for i in order {
        let it = match f.iteration(i) {
            Some(v) if f.iteration_is_float => python_float_repr(v as f64),
            Some(v) => v.to_string(),
            None => String::new(),
        };
        let bw = python_float_repr(f.memory_bw_gbps(r, i));
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            f.index(r, i),
            csv_field(r.strings.get(f.cat(r, i))),
            csv_field(r.strings.get(f.name(r, i))),
            csv_field(&r.id_text(f.pid(r, i))),
            csv_field(&r.id_text(f.tid(r, i))),
            f.ts(r, i),
            num(f.dur(r, i), f.dur_is_float),
            num(f.end(r, i), f.dur_is_float),
            f.stream(r, i),
            f.correlation(r, i),
            f.index_correlation(r, i),
            it,
            f.external_id(r, i),
            f.bytes(r, i),
            bw,
            f.wait_on_stream(r, i),
            f.wait_on_cuda_event_record_corr_id(r, i),
        );
    }
    out
}

/// The float64 Python gets from `json.loads` of a µs time whose exact value is `ns` / 1000: the
/// double nearest to `ns / 1000` (ties to even), computed exactly in integers.
pub fn ns_to_us_f64(ns: i64) -> f64 {
    // up to 2^53 both operands are exact doubles, and IEEE division rounds its exact quotient to
    // the nearest double, ties to even: the answer (every duration, and times up to 104 days)
    if ns.unsigned_abs() <= 1 << 53 {
        return ns as f64 / 1000.0;
    }
    let a = u128::from(ns.unsigned_abs());
    let guess = (ns.unsigned_abs() as f64) / 1000.0;
    let candidates = [f64::from_bits(guess.to_bits().saturating_sub(1)), guess, f64::from_bits(guess.to_bits() + 1)];
    let parts = candidates.map(mantissa_exponent);
    let k = parts.iter().map(|&(_, e)| -e).max().unwrap_or(0).max(0) as u32;
    let target = a << k;
    let mut best = 0;
    let mut best_diff = u128::MAX;
    for (j, &(m, e)) in parts.iter().enumerate() {
        let scaled = (u128::from(m) * 1000) << (e + k as i32) as u32;
        let diff = scaled.abs_diff(target);
        if diff < best_diff || (diff == best_diff && m % 2 == 0) {
            best = j;
            best_diff = diff;
        }
    }
    if ns < 0 {
        -candidates[best]
    } else {
        candidates[best]
    }
}

/// `(m, e)` with `x = m · 2^e` for a positive finite double.
fn mantissa_exponent(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1u64 << 52) - 1);
    if exp == 0 {
        (frac, -1074)
    } else {
        (frac | (1u64 << 52), exp - 1075)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_values_match_python() {
        // float("4203669603438.301") etc., as Python parses them
        assert_eq!(ns_to_us_f64(4_203_669_603_438_301), 4203669603438.301);
        assert_eq!(ns_to_us_f64(1_500), 1.5);
        assert_eq!(ns_to_us_f64(-2_000), -2.0);
        assert_eq!(ns_to_us_f64(1), 0.001);
        // halfway between two doubles (ulp 0.25 here): ties to even mantissa
        assert_eq!(ns_to_us_f64(1_682_725_898_236_567_125), 1682725898236567.0);
        assert_eq!(ns_to_us_f64(1_682_725_898_236_567_375), 1682725898236567.5);
        assert_eq!(ns_to_us_f64(1_682_725_898_236_567_100), 1682725898236567.0);
    }

    #[test]
    fn step_numbers() {
        assert_eq!(hta_step_number("ProfilerStep#12"), Some(12));
        assert_eq!(hta_step_number("ProfilerStep # 3x"), Some(3));
        assert_eq!(hta_step_number("ProfilerStep"), None);
        assert_eq!(hta_step_number("ProfileStep#2"), None);
    }
}
