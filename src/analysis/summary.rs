//! Where the time went, on one screen: the page's Overview dashboard and `kinetoscope summary`.
//! It answers "where did my time go?" and "which rank is slow?" from the other analyses' numbers
//! (exact ns, kinetoscope's default mode; there is no HTA counterpart):
//!
//! 1. `gpu_time_by_rank`: each rank's GPU span (first GPU operation's start to the last one's end)
//!    split into disjoint parts that add up to it: `compute` (some compute kernel runs: the
//!    `temporal` analysis' compute time), `communication` (a communication kernel runs and no
//!    compute kernel), `memory` (a memcpy/memset runs and nothing of the two before), `other`
//!    (other GPU work only) and `idle` (nothing runs: `temporal`'s idle time); `busy` = span − idle.
//!    Percentages (of the span here, in every table of their column's name) are rounded to 2
//!    decimals.
//! 2. `step_times`: every complete `ProfilerStep#N` of every rank (the steps of the `steps`
//!    analysis) with its duration and its difference from the rank's median step.
//! 3. `time_by_kernel_type`: GPU time per kernel class (the union of its operations' intervals,
//!    summed over ranks) and its share of the ranks' busy time (classes run at the same time, so
//!    the shares can add up to more than 100 %).
//! 4. `top_gpu_kernels`, `top_cpu_ops`: the `top` GPU kernels (kernels, memcpys, memsets) and CPU
//!    operators (`cpu_op`/`Operator` events) by total duration over the selected ranks, with
//!    calls, mean and share (of the GPU operations' total duration; of the CPU operators' total,
//!    which counts nested operators once each).
//! 5. `overlap_and_idle`: per rank, the communication time that overlaps computation (the
//!    `overlap` analysis) and the idle time between kernels by cause (the `idle` analysis with its
//!    defaults: host wait, kernel wait, other).
//! 6. With several ranks, `ranks`: step time (median step), busy %, communication time and idle %
//!    per rank, and `outliers`: the metrics on which the rank lies more than [`OUTLIER_MADS`]
//!    scaled median absolute deviations and more than 10 % from the median of the ranks.
//! 7. `headline` (first): the key figures the Overview shows on top, each with the analysis whose
//!    panel has the numbers behind it: GPU busy and idle (% of the summed GPU spans, 1 decimal),
//!    idle causes, the share of communication kernel time under compute (weighted by each rank's
//!    communication time), the median step and the slowest, with several ranks the outliers, and
//!    the performance patterns found (the `patterns` analysis with its defaults: how many
//!    pattern and GPU pairs fired, which where); with Recorder ranks, the share of their spans in
//!    traced calls, the bytes written and read and the conflicting accesses (the `io` analysis).
//! 8. With Recorder ranks, `io_files`: the `io` analysis' first 8 files (most bytes moved), and
//!    its I/O timeline chart after the other charts.

mod io;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::hta_frame::{hta_step_number, HtaFrame};
use super::idle::{idle_time, IdleCategory};
use super::intervals::covered_sorted;
use super::kernel_type::{typed_gpu_rows, KernelType};
use super::overlap::rank_overlap;
use super::patterns::{find_patterns, Pattern, Thresholds, Verdict};
use super::stats::{median, np_round};
use super::units::{ms, ms_f64, us, us_f64};
use crate::model::{Kind, RankTrace, StrId};
use crate::table::{Chart, Line, Report, Series};
use crate::table::{Table, Unit, Values};
use io::{io_figures, io_report};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "summary",
    title: "Where the time went",
    about: "GPU time per rank (busy, idle, compute, communication, memory), step times, top kernels and CPU operators, overlap, idle causes and outlier ranks, on one screen",
    hta_api: "",
    group: Group::GpuTime,
    options: &[Opt { name: "top", kind: OptKind::Int, default: "10", help: "How many GPU kernels and CPU operators to list" }],
    run,
};

/// A rank is an outlier on a metric when it lies more than this many scaled median absolute
/// deviations (MAD × 1.4826, the standard deviation of a normal distribution) and more than 10 %
/// from the median of the ranks.
pub const OUTLIER_MADS: f64 = 3.0;

/// One rank's GPU time, ns: disjoint parts of `span` (module docs, 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GpuTime {
    /// Rank.
    pub rank: u32,
    /// First GPU start to last GPU end.
    pub span: i64,
    /// A compute kernel runs.
    pub compute: i64,
    /// A communication kernel runs, no compute kernel.
    pub communication: i64,
    /// A memcpy/memset runs, no compute or communication kernel.
    pub memory: i64,
    /// Other GPU work only.
    pub other: i64,
    /// Nothing runs.
    pub idle: i64,
}

impl GpuTime {
    /// `span − idle`.
    pub fn busy(&self) -> i64 {
        self.span - self.idle
    }
}

/// The kernel classes, in the order of [`rank_gpu_time`]'s per-class times.
const CLASSES: [KernelType; 4] = [KernelType::Computation, KernelType::Communication, KernelType::Memory, KernelType::Other];

/// One rank's GPU time (`None` without GPU operations) from its GPU rows with their class, and the time
/// each class runs (the union of its rows' intervals; classes overlap), in [`CLASSES`] order.
fn rank_gpu_time(f: &HtaFrame, r: &RankTrace, typed: &[(usize, KernelType)]) -> (Option<GpuTime>, [i64; 4]) {
    // the intervals sorted once (mostly in order already, which the stable sort's runs exploit);
    // each union below is one pass over those it keeps
    let mut iv: Vec<(i64, i64, KernelType)> = typed.iter().map(|&(i, t)| (f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i), t)).collect();
    iv.sort_by_key(|&(s, e, _)| (s, e));
    let union = |keep: &dyn Fn(KernelType) -> bool| covered_sorted(iv.iter().filter(|x| keep(x.2)).map(|&(s, e, _)| (s, e)));
    let by_class = CLASSES.map(|c| union(&|t| t == c));
    let (Some(first), Some(last)) = (iv.first().map(|x| x.0), iv.iter().map(|x| x.1).max()) else { return (None, by_class) };
    let span = last - first;
    let busy = union(&|_| true);
    let c = by_class[0];
    let cc = union(&|t| matches!(t, KernelType::Computation | KernelType::Communication));
    let ccm = union(&|t| t != KernelType::Other);
    let g = GpuTime { rank: f.rank, span, compute: c, communication: cc - c, memory: ccm - cc, other: busy - ccm, idle: span - busy };
    (Some(g), by_class)
}

/// One complete profiler step of a rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepTime {
    /// Rank.
    pub rank: u32,
    /// `N` of `ProfilerStep#N`.
    pub step: i64,
    /// Duration, ns.
    pub duration: i64,
}

/// The complete profiler steps of the selected ranks, by rank then start.
pub fn step_times(ctx: &Context<'_>) -> Vec<StepTime> {
    let mut out = Vec::new();
    for (f, r) in ctx.ranks() {
        // each distinct name parsed once, not each CPU row's
        let step_of: Vec<Option<i64>> = r.strings.iter().map(hta_step_number).collect();
        let mut steps: Vec<(i64, StepTime)> = (0..f.len())
            .filter(|&i| f.stream(r, i) == -1)
            .filter_map(|i| {
                step_of
                    .get(f.name(r, i).0 as usize)
                    .copied()
                    .flatten()
                    .map(|n| (f.ts_ns(r, i), StepTime { rank: f.rank, step: n, duration: f.dur_ns(r, i) }))
            })
            .collect();
        steps.sort_by_key(|(ts, s)| (*ts, s.step));
        out.extend(steps.into_iter().map(|(_, s)| s));
    }
    out
}

/// Median of the values of `v` that are not NaN (NaN when none).
fn median_of(v: &[f64]) -> f64 {
    median(v.iter().copied().filter(|x| !x.is_nan()).collect())
}

/// Whether each value is an outlier among `v` ([`OUTLIER_MADS`]).
pub fn outliers(v: &[f64]) -> Vec<bool> {
    let m = median_of(v);
    let dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    let mad = median_of(&dev) * 1.4826;
    v.iter().map(|&x| !x.is_nan() && (x - m).abs() > OUTLIER_MADS * mad && (x - m).abs() > 0.1 * m.abs()).collect()
}

/// Calls and total duration per name.
type ByName = BTreeMap<String, (i64, i64)>;

/// `(name, calls, total ns)`, the `top` largest by total (ties by name).
fn top_of(by: ByName, top: usize) -> Vec<(String, i64, i64)> {
    let mut v: Vec<(String, i64, i64)> = by.into_iter().map(|(n, (c, t))| (n, c, t)).collect();
    v.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    v.truncate(top);
    v
}

/// `100 × part / whole`, rounded to 2 decimals as the tables show it (NaN when `whole` is 0).
fn pct(part: i64, whole: i64) -> f64 {
    if whole > 0 {
        np_round(100.0 * part as f64 / whole as f64, 2)
    } else {
        f64::NAN
    }
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    if ctx.hta {
        return fail("summary has no HTA 0.5.0 counterpart: run it without --hta");
    }
    let top = params.int("top");
    if top < 1 {
        return fail(format!("option 'top': expected a number of rows of at least 1, found {top}"));
    }
    let top = top as usize;
    let mut report = Report::default();
    // per rank, its GPU rows classified once: its GPU time, the time per class, the kernels and CPU operators
    let mut gpu: Vec<(u32, Option<GpuTime>)> = Vec::new();
    let mut by_class = [0i64; 4];
    let (mut kernels, mut ops): (ByName, ByName) = Default::default();
    let (mut gpu_total, mut cpu_total) = (0i64, 0i64);
    let mut kernel_type_of: BTreeMap<String, KernelType> = BTreeMap::new();
    // per rank, the communication time and the share of it that overlaps computation
    let mut overlap: BTreeMap<u32, (f64, f64)> = BTreeMap::new();
    for (f, r) in ctx.ranks() {
        let typed = typed_gpu_rows(f, r, false);
        let o = rank_overlap(f, r, &typed, false);
        overlap.insert(o.rank, (o.comm, o.pctg));
        let (g, classes) = rank_gpu_time(f, r, &typed);
        gpu.push((f.rank, g));
        for (sum, t) in by_class.iter_mut().zip(classes) {
            *sum += t;
        }
        // by the rank's string id first (no text per row), then by name across ranks
        let mut rank_kernels: FxHashMap<StrId, (i64, i64, KernelType)> = FxHashMap::default();
        for &(i, t) in &typed {
            let e = rank_kernels.entry(f.name(r, i)).or_insert((0, 0, t));
            e.0 += 1;
            e.1 += f.dur_ns(r, i);
            gpu_total += f.dur_ns(r, i);
        }
        for (id, (calls, total, t)) in rank_kernels {
            let name = r.strings.get(id);
            let e = kernels.entry(name.to_string()).or_default();
            e.0 += calls;
            e.1 += total;
            kernel_type_of.entry(name.to_string()).or_insert(t);
        }
        let mut rank_ops: FxHashMap<StrId, (i64, i64)> = FxHashMap::default();
        for i in (0..f.len()).filter(|&i| f.stream(r, i) == -1 && r.events.kind[f.row[i] as usize] == Kind::CpuOp) {
            let e = rank_ops.entry(f.name(r, i)).or_default();
            e.0 += 1;
            e.1 += f.dur_ns(r, i);
            cpu_total += f.dur_ns(r, i);
        }
        for (id, (calls, total)) in rank_ops {
            let e = ops.entry(r.strings.get(id).to_string()).or_default();
            e.0 += calls;
            e.1 += total;
        }
    }
    let recorder: Vec<u32> = ctx
        .selected
        .iter()
        .map(|&i| &ctx.trace.ranks[i])
        .filter(|r| r.format == Some(crate::model::Format::Recorder))
        .map(|r| r.rank)
        .collect();
    for (rank, g) in &gpu {
        if g.is_none() && !recorder.contains(rank) {
            report.notes.push(format!("rank {rank} has no GPU operations"));
        }
    }
    report.tables.push(gpu_table(&gpu));

    let steps = step_times(ctx);
    let mut step_median: BTreeMap<u32, f64> = BTreeMap::new();
    for (rank, _) in &gpu {
        let d: Vec<f64> = steps.iter().filter(|s| s.rank == *rank).map(|s| s.duration as f64).collect();
        if !d.is_empty() {
            step_median.insert(*rank, median_of(&d));
        }
    }
    report.tables.push(
        Table::new("step_times")
            .with("rank", Unit::None, Values::Int(steps.iter().map(|s| i64::from(s.rank)).collect()))
            .with("step", Unit::None, Values::Int(steps.iter().map(|s| s.step).collect()))
            .with("duration_us", Unit::Us, Values::Float(steps.iter().map(|s| us(s.duration)).collect()))
            .with(
                "vs_rank_median_pct",
                Unit::Percent,
                Values::Float(
                    steps
                        .iter()
                        .map(|s| step_median.get(&s.rank).map_or(f64::NAN, |m| np_round(100.0 * (s.duration as f64 - m) / m, 2)))
                        .collect(),
                ),
            ),
    );

    // kernel classes and the top GPU kernels / CPU operators over the selected ranks
    let busy_total: i64 = gpu.iter().filter_map(|(_, g)| g.map(|g| g.busy())).sum();
    let types: Vec<(KernelType, i64)> = CLASSES.into_iter().zip(by_class).filter(|(_, t)| *t > 0).collect();
    report.tables.push(
        Table::new("time_by_kernel_type")
            .with("kernel_type", Unit::None, Values::Str(types.iter().map(|(t, _)| t.as_str()).collect()))
            .with("time_us", Unit::Us, Values::Float(types.iter().map(|(_, t)| us(*t)).collect()))
            .with("share_of_busy_pct", Unit::Percent, Values::Float(types.iter().map(|(_, t)| pct(*t, busy_total)).collect())),
    );
    let top_kernels = top_of(kernels, top);
    report.tables.push(name_table("top_gpu_kernels", &top_kernels, gpu_total).with(
        "kernel_type",
        Unit::None,
        Values::Str(top_kernels.iter().map(|k| kernel_type_of[&k.0].as_str()).collect()),
    ));
    let top_ops = top_of(ops, top);
    report.tables.push(name_table("top_cpu_ops", &top_ops, cpu_total));

    // idle causes per rank (the overlap came with each rank's GPU rows above)
    let mut idle: BTreeMap<u32, [i64; 3]> = BTreeMap::new();
    for &pos in &ctx.selected {
        let e = idle.entry(ctx.frames().ranks[pos].rank).or_default();
        for s in idle_time(ctx, pos, None, 30_000) {
            for (k, c) in IdleCategory::ALL.into_iter().enumerate() {
                e[k] += s.idle_ns(c);
            }
        }
    }
    let ranks: Vec<u32> = gpu.iter().map(|(r, _)| *r).collect();
    let idle_col = |k: usize| Values::Float(ranks.iter().map(|r| idle.get(r).map_or(f64::NAN, |v| us(v[k]))).collect());
    report.tables.push(
        Table::new("overlap_and_idle")
            .with("rank", Unit::None, Values::Int(ranks.iter().map(|&r| i64::from(r)).collect()))
            .with("communication_us", Unit::Us, Values::Float(ranks.iter().map(|r| overlap.get(r).map_or(f64::NAN, |o| o.0)).collect()))
            .with(
                "comm_overlapped_pct",
                Unit::Percent,
                Values::Float(ranks.iter().map(|r| overlap.get(r).map_or(f64::NAN, |o| o.1)).collect()),
            )
            .with("idle_host_wait_us", Unit::Us, idle_col(0))
            .with("idle_kernel_wait_us", Unit::Us, idle_col(1))
            .with("idle_other_us", Unit::Us, idle_col(2)),
    );

    let mut outlier_ranks = Vec::new();
    if ranks.len() > 1 {
        let t = ranks_table(&gpu, &step_median, &overlap);
        if let Some(Values::Str(on)) = t.column("outlier_on").map(|c| &c.values) {
            outlier_ranks = ranks.iter().zip(on.iter()).filter(|(_, on)| !on.is_empty()).map(|(r, on)| (*r, on.to_string())).collect();
        }
        report.tables.push(t);
    }
    let (mut figures, notes) = headlines(&gpu, &steps, &step_median, &idle, &overlap, &outlier_ranks);
    figures.extend(patterns_figure(ctx));
    report.charts = charts(&gpu, &steps);
    if let Some(mut io) = io_report(ctx) {
        figures.extend(io_figures(&io));
        if let Some(files) = io.tables.iter().find(|t| t.name == "files") {
            report.tables.push(top_rows(files, "io_files", &["file", "ranks", "bytes_written", "bytes_read", "pattern"], 8));
        }
        // the I/O timeline (the io report's first chart)
        if !io.charts.is_empty() {
            report.charts.push(io.charts.swap_remove(0));
        }
    }
    report.tables.insert(0, headline_table(&figures));
    report.notes.extend(notes);
    Ok(report)
}

fn gpu_table(gpu: &[(u32, Option<GpuTime>)]) -> Table {
    let col = |f: fn(&GpuTime) -> i64| Values::Float(gpu.iter().map(|(_, g)| g.as_ref().map_or(f64::NAN, |g| us(f(g)))).collect());
    let share =
        |f: fn(&GpuTime) -> i64| Values::Float(gpu.iter().map(|(_, g)| g.as_ref().map_or(f64::NAN, |g| pct(f(g), g.span))).collect());
    Table::new("gpu_time_by_rank")
        .with("rank", Unit::None, Values::Int(gpu.iter().map(|(r, _)| i64::from(*r)).collect()))
        .with("span_us", Unit::Us, col(|g| g.span))
        .with("busy_us", Unit::Us, col(GpuTime::busy))
        .with("compute_us", Unit::Us, col(|g| g.compute))
        .with("communication_us", Unit::Us, col(|g| g.communication))
        .with("memory_us", Unit::Us, col(|g| g.memory))
        .with("other_us", Unit::Us, col(|g| g.other))
        .with("idle_us", Unit::Us, col(|g| g.idle))
        .with("busy_pct", Unit::Percent, share(GpuTime::busy))
        .with("compute_pct", Unit::Percent, share(|g| g.compute))
        .with("communication_pct", Unit::Percent, share(|g| g.communication))
        .with("memory_pct", Unit::Percent, share(|g| g.memory))
        .with("other_pct", Unit::Percent, share(|g| g.other))
        .with("idle_pct", Unit::Percent, share(|g| g.idle))
}

/// `name, calls, total_us, mean_us, share_pct` (share of `total`).
fn name_table(name: &str, rows: &[(String, i64, i64)], total: i64) -> Table {
    Table::new(name)
        .with("name", Unit::None, Values::Str(rows.iter().map(|r| &r.0).collect()))
        .with("calls", Unit::Count, Values::Int(rows.iter().map(|r| r.1).collect()))
        .with("total_us", Unit::Us, Values::Float(rows.iter().map(|r| us(r.2)).collect()))
        // to the ns: a mean of integer ns durations has no meaningful digits below that
        .with("mean_us", Unit::Us, Values::Float(rows.iter().map(|r| np_round(us(r.2) / r.1 as f64, 3)).collect()))
        .with("share_pct", Unit::Percent, Values::Float(rows.iter().map(|r| pct(r.2, total)).collect()))
}

/// The ranks × metrics table with the outliers named (module docs, 6).
fn ranks_table(gpu: &[(u32, Option<GpuTime>)], step_median: &BTreeMap<u32, f64>, overlap: &BTreeMap<u32, (f64, f64)>) -> Table {
    let ranks: Vec<u32> = gpu.iter().map(|(r, _)| *r).collect();
    let step: Vec<f64> = ranks.iter().map(|r| step_median.get(r).map_or(f64::NAN, |&d| us_f64(d))).collect();
    let busy: Vec<f64> = gpu.iter().map(|(_, g)| g.as_ref().map_or(f64::NAN, |g| pct(g.busy(), g.span))).collect();
    let comm: Vec<f64> = ranks.iter().map(|r| overlap.get(r).map_or(f64::NAN, |o| o.0)).collect();
    let idle: Vec<f64> = gpu.iter().map(|(_, g)| g.as_ref().map_or(f64::NAN, |g| pct(g.idle, g.span))).collect();
    let metrics = [("step time", &step), ("busy %", &busy), ("communication time", &comm), ("idle %", &idle)];
    let flags: Vec<Vec<bool>> = metrics.iter().map(|(_, v)| outliers(v)).collect();
    let named: Vec<String> = (0..ranks.len())
        .map(|i| metrics.iter().zip(&flags).filter(|(_, f)| f[i]).map(|((n, _), _)| *n).collect::<Vec<_>>().join(", "))
        .collect();
    Table::new("ranks")
        .with("rank", Unit::None, Values::Int(ranks.iter().map(|&r| i64::from(r)).collect()))
        .with("median_step_us", Unit::Us, Values::Float(step))
        .with("busy_pct", Unit::Percent, Values::Float(busy))
        .with("communication_us", Unit::Us, Values::Float(comm))
        .with("idle_pct", Unit::Percent, Values::Float(idle))
        .with("outlier_on", Unit::None, Values::Str(named.into()))
}

/// One key figure of the Overview: `figure` is `value` `unit` (`detail` says of what), computed by
/// the analysis `panel` (module docs, 7).
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    /// What it is ("GPU busy").
    pub figure: &'static str,
    /// Its value, rounded as shown.
    pub value: f64,
    /// `%` or `ms`.
    pub unit: &'static str,
    /// What it is made of, in words.
    pub detail: String,
    /// The analysis whose panel has the numbers behind it.
    pub panel: &'static str,
}

/// The key figures (busy share, idle causes, overlap, steps, outlier ranks) and their one-line
/// answers for the notes (module docs, 7).
fn headlines(
    gpu: &[(u32, Option<GpuTime>)],
    steps: &[StepTime],
    step_median: &BTreeMap<u32, f64>,
    idle: &BTreeMap<u32, [i64; 3]>,
    overlap: &BTreeMap<u32, (f64, f64)>,
    outlier_ranks: &[(u32, String)],
) -> (Vec<Figure>, Vec<String>) {
    let (mut figures, mut notes) = (Vec::new(), Vec::new());
    let sum = |f: fn(&GpuTime) -> i64| gpu.iter().filter_map(|(_, g)| g.as_ref().map(f)).sum::<i64>();
    let span = sum(|g| g.span);
    // idle time between kernels over all ranks by cause (host wait, kernel wait, other)
    let total: [i64; 3] = idle.values().fold([0; 3], |a, v| [a[0] + v[0], a[1] + v[1], a[2] + v[2]]);
    let all_idle: i64 = total.iter().sum();
    // a figure's value is its text with 1 decimal, as the notes write it
    let one = |part: i64, whole: i64| format!("{:.1}", pct(part, whole)).parse::<f64>().unwrap_or(f64::NAN);
    if span > 0 {
        let [busy, compute, comm, memory, other, idle_pct] =
            [sum(GpuTime::busy), sum(|g| g.compute), sum(|g| g.communication), sum(|g| g.memory), sum(|g| g.other), sum(|g| g.idle)]
                .map(|t| one(t, span));
        notes.push(format!(
            "GPU busy {busy:.1} % of its span (compute {compute:.1} %, communication {comm:.1} %, memory {memory:.1} %, other {other:.1} %), idle {idle_pct:.1} %"
        ));
        let ranks = gpu.iter().filter(|(_, g)| g.is_some()).count();
        let of = if ranks == 1 { "the GPU span".to_string() } else { format!("the GPU spans of {ranks} ranks") };
        figures.push(Figure {
            figure: "GPU busy",
            value: busy,
            unit: "%",
            detail: format!("compute {compute:.1} %, communication {comm:.1} %, memory {memory:.1} %, other {other:.1} % of {of}"),
            panel: "temporal",
        });
        figures.push(Figure {
            figure: "GPU idle",
            value: idle_pct,
            unit: "%",
            detail: if all_idle > 0 {
                let [host, kernel, other] = total.map(|t| one(t, all_idle));
                format!("between kernels: host wait {host:.1} %, kernel wait {kernel:.1} %, other {other:.1} % of it")
            } else {
                "no idle time between kernels".to_string()
            },
            panel: "idle",
        });
    }
    let comm_us: f64 = overlap.values().filter(|o| o.0 > 0.0).map(|o| o.0).sum();
    if comm_us > 0.0 {
        let under: f64 = overlap.values().filter(|o| o.0 > 0.0 && !o.1.is_nan()).map(|o| o.0 * o.1 / 100.0).sum();
        figures.push(Figure {
            figure: "Communication under compute",
            value: format!("{:.1}", 100.0 * under / comm_us).parse().unwrap_or(f64::NAN),
            unit: "%",
            detail: format!("of {:.3} ms communication kernel time runs while a compute kernel runs", comm_us / 1e3),
            panel: "overlap",
        });
    }
    if let Some(slowest) = steps.iter().max_by(|a, b| a.duration.cmp(&b.duration).then(b.rank.cmp(&a.rank)).then(b.step.cmp(&a.step))) {
        let all: Vec<f64> = steps.iter().map(|s| s.duration as f64).collect();
        let where_ = if step_median.len() > 1 { format!(" on rank {}", slowest.rank) } else { String::new() };
        let median_ms: f64 = format!("{:.3}", ms_f64(median_of(&all))).parse().unwrap_or(f64::NAN);
        let n = format!("{} step{}", steps.len(), if steps.len() == 1 { "" } else { "s" });
        notes.push(format!("{n}: median {median_ms:.3} ms, slowest ProfilerStep#{}{where_} {:.3} ms", slowest.step, ms(slowest.duration)));
        figures.push(Figure {
            figure: "Median step",
            value: median_ms,
            unit: "ms",
            detail: format!("of {n}; slowest: ProfilerStep#{}{where_}, {:.3} ms", slowest.step, ms(slowest.duration)),
            panel: "steps",
        });
    }
    if all_idle > 0 {
        notes.push(format!(
            "idle between kernels: host wait {:.1} %, kernel wait {:.1} %, other {:.1} %",
            pct(total[0], all_idle),
            pct(total[1], all_idle),
            pct(total[2], all_idle)
        ));
    }
    // ranks with neither GPU work nor steps (a Recorder trace) have nothing to compare
    if gpu.len() > 1 && (gpu.iter().any(|g| g.1.is_some()) || !steps.is_empty()) {
        figures.push(Figure {
            figure: "Outlier ranks",
            value: outlier_ranks.len() as f64,
            unit: "",
            detail: if outlier_ranks.is_empty() {
                format!("none of {} ranks is far from the others' median", gpu.len())
            } else {
                outlier_ranks.iter().map(|(r, on)| format!("rank {r}: {on}")).collect::<Vec<_>>().join("; ")
            },
            panel: "stragglers",
        });
    }
    (figures, notes)
}

/// The patterns (the `patterns` analysis with its defaults) that fired, over every device of the
/// selected ranks: how many (pattern, device) pairs, and which where; none without GPU work.
fn patterns_figure(ctx: &Context<'_>) -> Option<Figure> {
    let t = Thresholds::default();
    let mut devices = 0;
    let mut fired: BTreeMap<Pattern, Vec<String>> = BTreeMap::new();
    for &p in &ctx.selected {
        let r = &ctx.trace.ranks[p];
        for d in find_patterns(r, &t) {
            devices += 1;
            for (pattern, f) in Pattern::ALL.iter().zip(&d.findings) {
                if f.verdict == Verdict::Fired {
                    fired.entry(*pattern).or_default().push(format!("rank {} GPU {}", d.rank, d.device));
                }
            }
        }
    }
    if devices == 0 {
        return None;
    }
    let count: usize = fired.values().map(Vec::len).sum();
    let detail = if fired.is_empty() {
        "no serialized execution, launch overhead, memory-bound phase or long gap".to_string()
    } else {
        fired
            .iter()
            .map(|(p, at)| {
                let shown: Vec<&str> = at.iter().take(3).map(String::as_str).collect();
                let more = if at.len() > 3 { format!(" and {} more", at.len() - 3) } else { String::new() };
                format!("{} ({}{more})", p.as_str().replace('_', " "), shown.join(", "))
            })
            .collect::<Vec<_>>()
            .join("; ")
    };
    Some(Figure { figure: "Patterns found", value: count as f64, unit: "", detail, panel: "patterns" })
}

/// The first `n` rows of `t`'s columns `cols`, as table `name`.
fn top_rows(t: &Table, name: &str, cols: &[&str], n: usize) -> Table {
    let mut out = Table::new(name);
    for c in cols.iter().filter_map(|c| t.column(c)) {
        let values = match &c.values {
            Values::Str(v) => Values::Str(v.iter().take(n).collect()),
            Values::Int(v) => Values::Int(v.iter().take(n).collect()),
            Values::Float(v) => Values::Float(v.iter().take(n).copied().collect()),
        };
        out = out.with(&c.name, c.unit, values);
    }
    out
}

/// The key figures as a table.
fn headline_table(figures: &[Figure]) -> Table {
    let text = |f: fn(&Figure) -> String| Values::Str(figures.iter().map(f).collect());
    Table::new("headline")
        .with("figure", Unit::None, text(|f| f.figure.to_string()))
        .with("value", Unit::None, Values::Float(figures.iter().map(|f| f.value).collect()))
        .with("unit", Unit::None, text(|f| f.unit.to_string()))
        .with("detail", Unit::None, text(|f| f.detail.clone()))
        .with("panel", Unit::None, text(|f| f.panel.to_string()))
}

/// One disjoint part of [`GpuTime`].
type Part = fn(&GpuTime) -> i64;

fn charts(gpu: &[(u32, Option<GpuTime>)], steps: &[StepTime]) -> Vec<Chart> {
    let parts: [(&str, Part); 5] = [
        ("compute", |g| g.compute),
        ("communication", |g| g.communication),
        ("memory", |g| g.memory),
        ("other", |g| g.other),
        ("idle", |g| g.idle),
    ];
    let mut charts = vec![Chart::StackedBars {
        title: "GPU time by rank".into(),
        x_label: "rank".into(),
        y_label: "% of the GPU span".into(),
        categories: gpu.iter().map(|(r, _)| format!("rank {r}")).collect(),
        series: parts
            .iter()
            .map(|(name, f)| Series {
                name: name.to_string(),
                values: gpu.iter().map(|(_, g)| g.as_ref().map_or(0.0, |g| pct(f(g), g.span))).collect(),
            })
            .collect(),
    }];
    // a line needs two steps: with at most one step per rank the step table says it all
    let most = gpu.iter().map(|(r, _)| steps.iter().filter(|s| s.rank == *r).count()).max().unwrap_or(0);
    if most >= 2 {
        let ranks: Vec<u32> = gpu.iter().map(|(r, _)| *r).filter(|r| steps.iter().any(|s| s.rank == *r)).collect();
        charts.push(Chart::Lines {
            title: "Step time".into(),
            x_label: "step".into(),
            y_label: "ms".into(),
            lines: ranks
                .iter()
                .map(|&r| Line {
                    name: format!("rank {r}"),
                    points: steps.iter().filter(|s| s.rank == r).map(|s| (s.step as f64, ms(s.duration))).collect(),
                })
                .collect(),
            step: false,
        });
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outliers_need_three_mads_and_ten_percent() {
        assert_eq!(outliers(&[100.0, 101.0, 99.0, 100.0, 150.0]), [false, false, false, false, true]);
        // far in MADs but within 10 % of the median
        assert_eq!(outliers(&[100.0, 100.0, 100.0, 100.5, 105.0]), [false; 5]);
        // two ranks: the median is between them, never an outlier
        assert_eq!(outliers(&[100.0, 1000.0]), [false, false]);
        assert_eq!(outliers(&[f64::NAN, 100.0, 100.0, 100.0, 300.0]), [false, false, false, false, true]);
    }
}
