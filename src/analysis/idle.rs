//! Idle time breakdown (HTA `get_idle_time_breakdown`, SPEC §2.4): per GPU stream, the gaps
//! between consecutive kernels (kernels, memcpy, memset; not synchronisation events) split by
//! cause:
//! * `host_wait`: the kernel's launching call started after the previous kernel had ended — the
//!   GPU waited for the host to enqueue work;
//! * `kernel_wait`: otherwise, a gap shorter than `consecutive_kernel_delay` (µs) — the usual
//!   delay between back-to-back kernels;
//! * `other`: the remaining gaps.
//!
//! Tables: `idle_time_breakdown` (`idle_time` µs per category, `idle_time_ratio` = share of the
//! stream's idle time) and `idle_time_interval_stats` (pandas `describe()` of the gaps, µs).
//!
//! With `--hta`, HTA 0.5.0's arithmetic (SPEC §5.8): the previous end is the end of the
//! previous kernel in start order, not the latest end so far, so a kernel that starts inside a
//! longer previous one yields a negative gap (counted as `kernel_wait`); a kernel whose
//! correlation has no partner (`index_correlation` 0) takes the start of event #0 as its launch
//! time; the first kernel of a stream is an `other` row without a gap; values are rounded to 2
//! decimals and only categories that occur are listed; a rank without kernels makes HTA raise.
//! Kernels starting at the same time keep their trace order (HTA's quicksort order there is
//! implementation-defined). Without `--hta`: the previous end is the latest end of all earlier
//! kernels, and a kernel starting before it overlaps and leaves no gap; the launch time is that
//! of the call with the kernel's correlation id, and a kernel without one is never `host_wait`; the first kernel has no gap; all three categories are
//! listed for every stream; values are exact (not rounded); a rank without kernels gets a note.

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::hta_frame::HtaFrame;
use super::stats::{np_round, Describe};
use super::units::us;
use crate::model::{Kind, RankTrace};
use crate::table::{Chart, Report, Series};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "idle",
    title: "Idle time breakdown",
    about: "GPU idle time between kernels per stream: waiting for the host, launch delay, other",
    hta_api: "get_idle_time_breakdown (SPEC §2.4)",
    group: Group::GpuTime,
    options: &[
        Opt { name: "streams", kind: OptKind::IntList, default: "", help: "Streams to analyse (default: every stream with kernels)" },
        Opt { name: "consecutive_kernel_delay", kind: OptKind::Float, default: "30", help: "Gaps shorter than this (µs) are kernel_wait" },
        Opt {
            name: "visualize_pctg",
            kind: OptKind::Bool,
            default: "true",
            help: "Chart shares of the stream's idle time (%) instead of µs",
        },
    ],
    run,
};

/// Idle-time categories, in HTA's order (`IdleTimeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum IdleCategory {
    /// The GPU waited for the host to launch the next kernel.
    HostWait = 0,
    /// A short gap between back-to-back kernels.
    KernelWait = 1,
    /// Any other gap.
    Other = 2,
}

impl IdleCategory {
    /// All categories in order.
    pub const ALL: [IdleCategory; 3] = [IdleCategory::HostWait, IdleCategory::KernelWait, IdleCategory::Other];

    /// HTA's name (`host_wait`, `kernel_wait`, `other`).
    pub fn as_str(self) -> &'static str {
        match self {
            IdleCategory::HostWait => "host_wait",
            IdleCategory::KernelWait => "kernel_wait",
            IdleCategory::Other => "other",
        }
    }
}

/// One stream's gaps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamIdle {
    /// Rank number.
    pub rank: u32,
    /// Stream.
    pub stream: i64,
    /// Kernels classified per category (HTA counts the first kernel, which has no gap, as
    /// `other`), by [`IdleCategory`] value.
    pub kernels: [usize; 3],
    /// Gaps per category, ns.
    pub gaps: [Vec<i64>; 3],
}

impl StreamIdle {
    /// Idle time of category `c`, ns.
    pub fn idle_ns(&self, c: IdleCategory) -> i64 {
        self.gaps[c as usize].iter().sum()
    }

    /// Idle time of all categories, ns.
    pub fn total_ns(&self) -> i64 {
        IdleCategory::ALL.iter().map(|&c| self.idle_ns(c)).sum()
    }
}

/// The kernels HTA's idle analysis looks at: `stream != -1` and category one of kernel,
/// memcpy, memset, MTIA device op (HTA compares the raw category strings; without `--hta` the
/// category's kind, which also covers other spellings).
fn is_kernel(f: &HtaFrame, r: &RankTrace, i: usize, hta: bool) -> bool {
    if f.stream(r, i) == -1 {
        return false;
    }
    if hta {
        matches!(r.strings.get(f.cat(r, i)), "kernel" | "Kernel" | "gpu_memset" | "Memset" | "gpu_memcpy" | "Memcpy" | "mtia_ccp_events")
    } else {
        matches!(r.events.kind[f.row[i] as usize], Kind::Kernel | Kind::Memcpy | Kind::Memset | Kind::MtiaDeviceOp)
    }
}

/// Gaps of each stream of one rank (`streams`: these, in this order; `None`: every stream with
/// kernels in order of appearance) of the rank at position `pos`. `delay_ns` is
/// `consecutive_kernel_delay` in ns.
pub fn idle_time(ctx: &Context<'_>, pos: usize, streams: Option<&[i64]>, delay_ns: i64) -> Vec<StreamIdle> {
    let (f, r, hta) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos], ctx.hta);
    let kernels: Vec<usize> = (0..f.len()).filter(|&i| is_kernel(f, r, i, hta)).collect();
    let mut ts_of_index: rustc_hash::FxHashMap<i64, i64> = Default::default();
    if hta {
        for i in (0..f.len()).rev() {
            ts_of_index.insert(i64::from(f.index(r, i)), f.ts_ns(r, i));
        }
    }
    let launcher = (!hta).then(|| ctx.launchers(pos));
    // HTA joins `index_correlation` on the index label: −1 finds nothing, 0 (no partner) finds
    // event #0 if it is a row (§5.8). Without --hta: the launching call, if known.
    let launch_ts = |k: usize| match launcher {
        None => ts_of_index.get(&f.index_correlation(r, k)).copied(),
        Some(l) => l.get(k).map(|l| f.ts_ns(r, l)),
    };
    let all_streams: Vec<i64> = match streams {
        Some(s) => s.to_vec(),
        None => {
            let mut seen = Vec::new();
            for &k in &kernels {
                if !seen.contains(&f.stream(r, k)) {
                    seen.push(f.stream(r, k));
                }
            }
            seen
        }
    };
    all_streams
        .into_iter()
        .map(|stream| {
            let mut s: Vec<usize> = kernels.iter().copied().filter(|&k| f.stream(r, k) == stream).collect();
            s.sort_by_key(|&k| f.ts_ns(r, k));
            let mut out = StreamIdle { rank: f.rank, stream, ..Default::default() };
            let mut prev_end: Option<i64> = None;
            for k in s {
                let end = f.ts_ns(r, k) + f.dur_ns(r, k);
                let gap = prev_end.map(|p| f.ts_ns(r, k) - p);
                if !hta && gap.is_none_or(|g| g < 0) {
                    // first kernel, or a kernel overlapping an earlier one: no idle gap
                    prev_end = Some(prev_end.map_or(end, |p| p.max(end)));
                    continue;
                }
                let host_wait = launch_ts(k).zip(prev_end).is_some_and(|(l, p)| l > p);
                let c = if host_wait {
                    IdleCategory::HostWait
                } else if gap.is_some_and(|g| g < delay_ns) {
                    IdleCategory::KernelWait
                } else {
                    IdleCategory::Other
                };
                out.kernels[c as usize] += 1;
                out.gaps[c as usize].extend(gap);
                prev_end = Some(if hta { end } else { prev_end.map_or(end, |p| p.max(end)) });
            }
            out
        })
        .collect()
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let streams = params.int_list("streams");
    let delay_ns = (params.float("consecutive_kernel_delay") * 1000.0).round() as i64;
    let mut report = Report::default();
    let mut all: Vec<StreamIdle> = Vec::new();
    for &pos in &ctx.selected {
        let (f, r) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos]);
        let s = idle_time(ctx, pos, streams.as_deref(), delay_ns);
        if streams.is_none() && s.is_empty() {
            if ctx.hta {
                return fail(format!(
                    "rank {} has no kernels: HTA 0.5.0 raises ValueError (No objects to concatenate) here (run without --hta for a result)",
                    f.rank
                ));
            }
            report.notes.push(format!("rank {} has no kernels", f.rank));
        }
        for &stream in streams.iter().flatten() {
            if !(0..f.len()).any(|i| f.stream(r, i) == stream && is_kernel(f, r, i, ctx.hta)) {
                report.notes.push(format!("rank {}: stream {stream} has no kernels", f.rank));
            }
        }
        all.extend(s);
    }
    all.sort_by_key(|s| (s.rank, s.stream));
    let round = |x: f64| if ctx.hta { np_round(x, 2) } else { x };
    // (stream, category) rows: HTA lists the categories that occur, we list all three
    let rows: Vec<(&StreamIdle, IdleCategory)> = all
        .iter()
        .flat_map(|s| IdleCategory::ALL.into_iter().filter(move |&c| !ctx.hta || s.kernels[c as usize] > 0).map(move |c| (s, c)))
        .collect();
    let ratio = |s: &StreamIdle, c: IdleCategory| us(s.idle_ns(c)) / us(s.total_ns());
    report.tables.push(
        Table::new("idle_time_breakdown")
            .with("rank", Unit::None, Values::Int(rows.iter().map(|(s, _)| i64::from(s.rank)).collect()))
            .with("stream", Unit::None, Values::Int(rows.iter().map(|(s, _)| s.stream).collect()))
            .with("idle_category", Unit::None, Values::Str(rows.iter().map(|(_, c)| c.as_str()).collect()))
            .with("idle_time", Unit::Us, Values::Float(rows.iter().map(|(s, c)| round(us(s.idle_ns(*c)))).collect()))
            .with("idle_time_ratio", Unit::Ratio, Values::Float(rows.iter().map(|(s, c)| round(ratio(s, *c))).collect())),
    );
    let stats: Vec<[f64; 8]> = rows
        .iter()
        .map(|(s, c)| Describe::of(&s.gaps[*c as usize].iter().map(|&g| us(g)).collect::<Vec<_>>()).values().map(round))
        .collect();
    let mut t = Table::new("idle_time_interval_stats")
        .with("idle_category", Unit::None, Values::Str(rows.iter().map(|(_, c)| c.as_str()).collect()))
        .with("rank", Unit::None, Values::Int(rows.iter().map(|(s, _)| i64::from(s.rank)).collect()))
        .with("stream", Unit::None, Values::Int(rows.iter().map(|(s, _)| s.stream).collect()));
    for (k, stat) in Describe::STATS.iter().enumerate() {
        t = t.with(stat, if k == 0 { Unit::Count } else { Unit::Us }, Values::Float(stats.iter().map(|v| v[k]).collect()));
    }
    report.tables.push(t);
    let pctg = params.bool("visualize_pctg");
    let one_rank = ctx.selected.len() == 1;
    report.charts.push(Chart::StackedBars {
        title: "Idle time breakdown per stream".into(),
        x_label: "stream".into(),
        y_label: if pctg { "% of the stream's idle time".into() } else { "idle time (µs)".into() },
        categories: all
            .iter()
            .map(|s| if one_rank { format!("stream {}", s.stream) } else { format!("rank {} stream {}", s.rank, s.stream) })
            .collect(),
        series: IdleCategory::ALL
            .iter()
            .map(|&c| Series {
                name: c.as_str().into(),
                values: all
                    .iter()
                    .map(|s| if pctg { 100.0 * ratio(s, c) } else { us(s.idle_ns(c)) })
                    .map(|v| if v.is_finite() { v } else { 0.0 })
                    .collect(),
            })
            .collect(),
    });
    Ok(report)
}
