//! Kernel launch queue length (HTA `get_queue_length_time_series`, `get_queue_length_summary`,
//! `get_time_spent_blocked_on_full_queue`; SPEC §2.5, §2.6): per GPU stream, the number of
//! operations the host has launched that have not started yet, as a step function over time,
//! its statistics, and how long it stayed at or above a limit (a full launch queue blocks the
//! host).
//!
//! The series has a +1 point at the start of each launching call and a −1 point at the start of
//! the GPU operation it launched; points are ordered by time, a −1 before a +1 at the same
//! time, then in HTA's concatenation order (launches, then GPU rows). HTA sorts with quicksort,
//! whose order of equal timestamps cannot be reproduced; this stable order matched HTA's
//! transient values at ties a little more often than the alternatives we tried. The value after
//! all points at one timestamp does not depend on the order (`*_collapsed` tables).
//!
//! Launches: with `--hta`, calls named as in HTA's list ([`HTA_LAUNCH_NAMES`]) that have a GPU
//! partner (`index_correlation > 0`), each counted once per GPU row of its correlation. Without
//! `--hta`, every kernel, memcpy and memset whose launching call is in the trace (the runtime or
//! driver call with its correlation id, [`super::api::Context::launchers`]), whatever the call's name: CUPTI gives a GPU activity the
//! correlation id of "the driver or runtime API activity record that launched" it, so the link
//! identifies the launch; HTA's name list misses e.g. `cuLaunchKernelEx` (added in HTA 0.6),
//! `cudaGraphLaunch` (one call enqueues every kernel of the graph), `cudaMemcpy`,
//! `cudaMemcpy2DAsync`, `hipModuleLaunchKernel`. Synchronisation events (`cuda_sync`) are not
//! queued work and are left out (SPEC §5.4).
//!
//! Other differences without `--hta`: times are exact ns (µs floats in the tables); the summary
//! describes the collapsed series (one value per timestamp, no transient values at ties); time
//! blocked on a full queue is reported for every stream (HTA keeps only the last stream of each
//! rank, SPEC §5.6) relative to the rank's span (first start to last end; HTA divides by the
//! span of start times).

use super::api::{Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::hta_frame::HtaFrame;
use super::stats::{summary_table, Describe};

use super::series::{collapse, downsample_max, id_column};
use crate::model::{Kind, RankTrace};
use crate::table::{Chart, Line, Report};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "queue",
    title: "Queue length",
    about: "Launched-but-not-started GPU operations per stream over time, their statistics and time at a full queue",
    hta_api: "get_queue_length_time_series, get_queue_length_summary, get_time_spent_blocked_on_full_queue (SPEC §2.5, §2.6)",
    group: Group::LaunchCpu,
    options: &[Opt {
        name: "max_queue_length",
        kind: OptKind::Int,
        default: "1024",
        help: "Queue length counted as full (time at or above it is reported)",
    }],
    run,
};

/// Launch calls HTA 0.5.0 counts (SPEC §2.5, §1.13).
pub const HTA_LAUNCH_NAMES: [&str; 11] = [
    "cudaLaunchKernel",
    "cudaLaunchKernelExC",
    "cuLaunchKernel",
    "cudaMemcpyAsync",
    "cudaMemsetAsync",
    "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipMemcpyAsync",
    "hipMemsetAsync",
    "hipMemcpyWithStream",
];

/// Most points drawn per line.
const CHART_POINTS: usize = 5000;

/// One change of a stream's queue length: 32 bytes (a series has two per GPU operation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuePoint {
    /// Time, ns (frame clock, see [`HtaFrame::ts_ns`]).
    pub ts_ns: i64,
    /// GPU stream.
    pub stream: i64,
    row: u32,
    gpu: u32,
    delta: i32,
    queue_length: i32,
}

impl QueuePoint {
    /// Frame row of the event: the launching call (+1) or the GPU operation (−1). Its `index`
    /// and `ts` are the point's.
    pub fn row(&self) -> usize {
        self.row as usize
    }

    /// Frame row of the GPU operation (the point's `pid`, `tid` and `stream`).
    pub fn gpu(&self) -> usize {
        self.gpu as usize
    }

    /// +1 (launch) or −1 (the operation starts).
    pub fn delta(&self) -> i64 {
        i64::from(self.delta)
    }

    /// Queue length after this point (a frame has fewer than 2³¹ rows).
    pub fn queue_length(&self) -> i64 {
        i64::from(self.queue_length)
    }
}

/// One rank's series: points grouped by stream (ascending), in time order within a stream.
#[derive(Debug, Clone, Default)]
pub struct RankQueue {
    /// Rank number.
    pub rank: u32,
    /// Position of the rank in the trace (`Context::selected` entry).
    pub pos: usize,
    /// Points (shared with the context, [`Context::queue_points`]).
    pub points: std::sync::Arc<Vec<QueuePoint>>,
}

impl RankQueue {
    /// The points of each stream, streams ascending.
    pub fn streams(&self) -> impl Iterator<Item = (i64, &[QueuePoint])> {
        self.points.chunk_by(|a, b| a.stream == b.stream).map(|c| (c[0].stream, c))
    }
}

/// Time one stream spent at or above the limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Blocked {
    /// Rank number.
    pub rank: u32,
    /// Stream.
    pub stream: i64,
    /// Time at or above the limit, ns.
    pub duration_ns: i64,
    /// The same relative to the rank's duration (see module docs).
    pub relative: f64,
}

/// The queue-length series of one rank (`hta`: HTA's launches and quirks; module docs), built
/// anew: analyses share one through [`Context::queue_points`]. `Err` where HTA 0.5.0 fails its
/// assertion that launches and GPU rows pair up one to one (two listed launch calls sharing a
/// correlation).
pub fn queue_points(ctx: &Context<'_>, pos: usize) -> Result<Vec<QueuePoint>, AnalysisError> {
    let (f, r, hta) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos], ctx.hta);
    let n = f.len();
    // (row, gpu row, delta) in HTA's concatenation order: launches, then GPU rows
    let mut ev: Vec<(usize, usize, i32)> = Vec::new();
    if hta {
        let mut gpu_by_corr: rustc_hash::FxHashMap<i64, Vec<usize>> = Default::default();
        for i in (0..n).filter(|&i| f.stream(r, i) != -1) {
            gpu_by_corr.entry(f.correlation(r, i)).or_default().push(i);
        }
        let launches: Vec<usize> =
            (0..n).filter(|&i| f.index_correlation(r, i) > 0 && HTA_LAUNCH_NAMES.contains(&r.strings.get(f.name(r, i)))).collect();
        let corrs: rustc_hash::FxHashSet<i64> = launches.iter().map(|&i| f.correlation(r, i)).collect();
        // HTA's left join keeps a launch without a GPU row (stream NaN, dropped later) but
        // counts it in its assertion
        let mut joined = 0;
        for &l in &launches {
            let gpu = gpu_by_corr.get(&f.correlation(r, l)).map(Vec::as_slice).unwrap_or_default();
            joined += gpu.len().max(1);
            ev.extend(gpu.iter().map(|&g| (l, g, 1)));
        }
        let plus = ev.len();
        ev.extend((0..n).filter(|&i| f.stream(r, i) != -1 && corrs.contains(&f.correlation(r, i))).map(|g| (g, g, -1)));
        if ev.len() - plus != joined {
            return super::api::fail(format!(
                "rank {}: {joined} launches but {} GPU operations share their correlations; HTA 0.5.0 fails its assertion here (run without --hta)",
                f.rank,
                ev.len() - plus
            ));
        }
    } else {
        let launcher = ctx.launchers(pos);
        let ops: Vec<(usize, usize)> = (0..n)
            .filter(|&i| f.stream(r, i) != -1 && is_queued_work(r.events.kind[f.row[i] as usize]))
            .filter_map(|g| launcher.get(g).map(|l| (l, g)))
            .collect();
        ev.extend(ops.iter().map(|&(l, g)| (l, g, 1)));
        ev.extend(ops.iter().map(|&(_, g)| (g, g, -1)));
    }
    let mut points: Vec<QueuePoint> = ev
        .into_iter()
        .enumerate()
        .map(|(at, (row, gpu, delta))| QueuePoint {
            row: row as u32,
            gpu: gpu as u32,
            delta,
            ts_ns: f.ts_ns(r, row),
            stream: f.stream(r, gpu),
            // until the sort, the point's place in the concatenation
            queue_length: at as i32,
        })
        .collect();
    // equal (stream, ts, delta) keep the concatenation order: sorted by it too
    points.sort_by_key(|p| (p.stream, p.ts_ns, p.delta, p.queue_length));
    let mut prev_stream = None;
    let mut q = 0;
    for p in &mut points {
        if prev_stream != Some(p.stream) {
            q = 0;
            prev_stream = Some(p.stream);
        }
        q += p.delta;
        p.queue_length = q;
    }
    Ok(points)
}

/// GPU work that sits in a stream's queue: kernels, copies, memsets (not synchronisation).
fn is_queued_work(kind: Kind) -> bool {
    matches!(kind, Kind::Kernel | Kind::Memcpy | Kind::Memset | Kind::MtiaDeviceOp)
}

/// The series of every selected rank that has launches (ranks without are left out, as HTA
/// does).
pub fn queue_length(ctx: &Context<'_>) -> Result<Vec<RankQueue>, AnalysisError> {
    let mut out = Vec::new();
    for &pos in &ctx.selected {
        let f = &ctx.frames().ranks[pos];
        let points = ctx.queue_points(pos)?;
        if !points.is_empty() {
            out.push(RankQueue { rank: f.rank, pos, points });
        }
    }
    Ok(out)
}

/// `describe()` of each stream's queue length: over every point (`hta`) or over the collapsed
/// series (module docs).
pub fn queue_length_summary(q: &RankQueue, hta: bool) -> Vec<(i64, Describe)> {
    q.streams()
        .map(|(s, pts)| {
            let values: Vec<f64> = if hta {
                pts.iter().map(|p| p.queue_length() as f64).collect()
            } else {
                collapse(pts.iter().map(|p| (p.ts_ns, p.queue_length()))).into_iter().map(|(_, v)| v as f64).collect()
            };
            (s, Describe::of(&values))
        })
        .collect()
}

/// Time each stream of `q` spent with at least `max_queue_length` operations queued (a point's
/// value holds until the next point of its stream). HTA (`hta`) keeps only the last stream with
/// such time (SPEC §5.6) and divides by the span of the rank's start times.
pub fn blocked_on_full_queue(q: &RankQueue, f: &HtaFrame, r: &RankTrace, max_queue_length: i64, hta: bool) -> Vec<Blocked> {
    let starts = || (0..f.len()).map(|i| f.ts_ns(r, i));
    let span = if hta {
        let (lo, hi) = (starts().min(), starts().max());
        lo.zip(hi).map_or(0, |(lo, hi)| hi - lo)
    } else {
        let lo = starts().min();
        let hi = (0..f.len()).map(|i| f.ts_ns(r, i) + f.dur_ns(r, i)).max();
        lo.zip(hi).map_or(0, |(lo, hi)| hi - lo)
    };
    let mut out: Vec<Blocked> = Vec::new();
    for (stream, pts) in q.streams() {
        let full: Vec<usize> = (0..pts.len()).filter(|&i| pts[i].queue_length() >= max_queue_length).collect();
        if full.is_empty() {
            continue;
        }
        let duration_ns: i64 = full.iter().filter_map(|&i| pts.get(i + 1).map(|n| n.ts_ns - pts[i].ts_ns)).sum();
        // HTA: µs float / µs integer span
        let relative = super::units::us(duration_ns) / super::units::us(span);
        if hta {
            out.clear();
        }
        out.push(Blocked { rank: q.rank, stream, duration_ns, relative });
    }
    out
}

/// Whether HTA's `get_time_spent_blocked_on_full_queue` raises on this series: with several
/// streams it aligns a boolean mask by event index, which fails when a stream repeats an index
/// (a GPU row duplicated by SPEC §5.9 and its launch).
fn hta_blocked_raises(q: &RankQueue, f: &HtaFrame, r: &RankTrace) -> bool {
    if q.streams().nth(1).is_none() {
        return false;
    }
    q.streams().any(|(_, pts)| {
        let mut idx: Vec<u32> = pts.iter().map(|p| f.index(r, p.row())).collect();
        idx.sort_unstable();
        idx.windows(2).any(|w| w[0] == w[1])
    })
}

/// `ns` as the µs the tables show: HTA's integer µs, or exact µs as a float.
fn ts_values(ns: Vec<i64>, hta: bool) -> Values {
    if hta {
        Values::Int(ns.into_iter().map(|t| t.div_euclid(1000)).collect())
    } else {
        Values::Float(ns.into_iter().map(super::units::us).collect())
    }
}

/// The per-rank tables of a series: all points, and the collapsed series.
fn series_tables(q: &RankQueue, f: &HtaFrame, r: &RankTrace, hta: bool) -> [Table; 2] {
    let p = &q.points;
    let mut all = Table::new(&format!("queue_length_time_series__rank{}", q.rank))
        .with("index", Unit::None, Values::Int(p.iter().map(|p| i64::from(f.index(r, p.row()))).collect()))
        .with("ts", Unit::Us, ts_values(p.iter().map(|p| p.ts_ns).collect(), hta))
        .with("pid", Unit::None, id_column(r, p.iter().map(|p| f.pid(r, p.gpu()))))
        .with("tid", Unit::None, id_column(r, p.iter().map(|p| f.tid(r, p.gpu()))))
        .with("stream", Unit::None, Values::Int(p.iter().map(|p| p.stream).collect()))
        .with("queue_length", Unit::Count, Values::Int(p.iter().map(|p| p.queue_length()).collect()));
    if hta {
        all.sort_canonical(&["stream", "ts"]);
    }
    let c: Vec<(i64, i64, i64)> = q
        .streams()
        .flat_map(|(s, pts)| collapse(pts.iter().map(|p| (p.ts_ns, p.queue_length()))).into_iter().map(move |(t, v)| (s, t, v)))
        .collect();
    let collapsed = Table::new(&format!("queue_length_time_series_collapsed__rank{}", q.rank))
        .with("stream", Unit::None, Values::Int(c.iter().map(|x| x.0).collect()))
        .with("ts", Unit::Us, ts_values(c.iter().map(|x| x.1).collect(), hta))
        .with("queue_length", Unit::Count, Values::Int(c.iter().map(|x| x.2).collect()));
    [all, collapsed]
}

fn blocked_table(rows: &[Blocked]) -> Table {
    let dur = Values::Float(rows.iter().map(|b| super::units::us(b.duration_ns)).collect());
    Table::new("time_blocked_on_full_queue")
        .with("rank", Unit::None, Values::Int(rows.iter().map(|b| i64::from(b.rank)).collect()))
        .with("stream", Unit::None, Values::Int(rows.iter().map(|b| b.stream).collect()))
        .with("duration_at_max_queue_length", Unit::Us, dur)
        .with("relative_duration_at_max_queue_length", Unit::Ratio, Values::Float(rows.iter().map(|b| b.relative).collect()))
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let max_queue_length = params.int("max_queue_length");
    let series = queue_length(ctx)?;
    let mut report = Report::default();
    let (mut s_ranks, mut s_streams, mut s_stats) = (Vec::new(), Vec::new(), Vec::new());
    let mut blocked = Vec::new();
    let mut lines = Vec::new();
    let mut blocked_raises = false;
    for q in &series {
        let (f, r) = (&ctx.frames().ranks[q.pos], &ctx.trace.ranks[q.pos]);
        if params.wants(&format!("queue_length_time_series__rank{}", q.rank)) {
            report.tables.extend(series_tables(q, f, r, ctx.hta));
        }
        for (stream, d) in queue_length_summary(q, ctx.hta) {
            s_ranks.push(i64::from(q.rank));
            s_streams.push(stream);
            s_stats.push(d);
        }
        if ctx.hta && hta_blocked_raises(q, f, r) {
            blocked_raises = true;
            report.notes.push(format!("rank {}: HTA 0.5.0 raises IndexError in get_time_spent_blocked_on_full_queue (a GPU row repeated by its last-step filter); no time_blocked_on_full_queue table", q.rank));
        } else {
            blocked.extend(blocked_on_full_queue(q, f, r, max_queue_length, ctx.hta));
        }
        for (stream, pts) in q.streams().filter(|_| params.wants_charts()) {
            let c: Vec<(f64, f64)> = collapse(pts.iter().map(|p| (p.ts_ns, p.queue_length())))
                .into_iter()
                .map(|(t, v)| (super::units::us(t), v as f64))
                .collect();
            let name = if ctx.selected.len() > 1 { format!("rank {} stream {stream}", q.rank) } else { format!("stream {stream}") };
            lines.push(Line { name, points: downsample_max(&c, CHART_POINTS) });
        }
    }
    for &pos in &ctx.selected {
        if !series.iter().any(|q| q.pos == pos) {
            report.notes.push(format!("rank {} has no kernel launches", ctx.frames().ranks[pos].rank));
        }
    }
    if !s_stats.is_empty() {
        let mut t = summary_table("queue_length_summary", s_ranks, "stream", Values::Int(s_streams.into()), "queue_length", &s_stats);
        if ctx.hta {
            t.sort_canonical(&["rank", "stream"]);
        }
        report.tables.push(t);
    }
    if !blocked_raises {
        report.tables.push(blocked_table(&blocked));
    }
    if !lines.is_empty() {
        report.charts.push(Chart::Lines {
            title: "Queue length per stream".into(),
            x_label: "time (µs)".into(),
            y_label: "operations queued".into(),
            lines,
            step: true,
        });
    }
    Ok(report)
}
