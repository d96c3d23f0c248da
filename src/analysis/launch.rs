//! CUDA kernel launch statistics (HTA `get_cuda_kernel_launch_stats`, SPEC §2.9): for every
//! host call that enqueues GPU work, the call's duration, the GPU operation's duration and the
//! launch delay (time from the end of the call to the start of the GPU operation, never
//! negative), linked by correlation id.
//!
//! Launch calls:
//! * `--hta`: rows named `cudaLaunchKernel`, `cudaLaunchKernelExC`, MTIA's
//!   `runFunction - job_prep_and_submit_for_execution`, and with `include_memory_events`
//!   `cudaMemcpyAsync`, `cudaMemsetAsync`. Every CPU row (stream −1) whose correlation is one of
//!   theirs is joined with every GPU row (stream ≠ −1) of that correlation (a driver call sharing
//!   the id joins too; §1.9's repeated GPU rows repeat).
//! * default: [`super::launches::is_launch_name`], which adds the driver and HIP spellings HTA misses (SPEC §5.7:
//!   `cuLaunchKernel` from Triton, every ROCm launch), one launching call per correlation (the
//!   runtime call over a driver call it made), its GPU operations (not synchronisation events).
//!
//! The cutoffs only select what the charts (and, without `--hta`, the outlier table) show.

use rustc_hash::FxHashMap;

use super::api::{Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::hta_frame::HtaFrame;
use super::launches::{launch_calls, GpuOpsByCorrelation, MTIA_LAUNCH};
use super::units::us;
use crate::model::RankTrace;
use crate::table::{histogram_bins, Chart, Report};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "launch",
    title: "Kernel launch statistics",
    about: "CPU launch duration, GPU duration and launch delay of every kernel launch and async copy",
    hta_api: "get_cuda_kernel_launch_stats (SPEC §2.9)",
    group: Group::LaunchCpu,
    options: &[
        Opt {
            name: "runtime_cutoff",
            kind: OptKind::Float,
            default: "50",
            help: "launch calls longer than this (µs) are runtime outliers",
        },
        Opt {
            name: "launch_delay_cutoff", kind: OptKind::Float, default: "100", help: "launch delays longer than this (µs) are outliers"
        },
        Opt { name: "include_memory_events", kind: OptKind::Bool, default: "true", help: "also count async memcpy/memset calls" },
    ],
    run,
};

/// HTA's launch names (`cuda_kernel_analysis.py`), memory calls last.
const HTA_LAUNCHES: [&str; 3] = ["cudaLaunchKernel", "cudaLaunchKernelExC", MTIA_LAUNCH];
const HTA_MEMORY: [&str; 2] = ["cudaMemsetAsync", "cudaMemcpyAsync"];

/// One launch joined with one GPU operation.
#[derive(Debug, Clone, PartialEq)]
pub struct LaunchStat {
    /// Correlation id.
    pub correlation: i64,
    /// Frame row of the launching call.
    pub cpu_row: usize,
    /// Frame row of the GPU operation.
    pub gpu_row: usize,
    /// Duration of the launching call, µs.
    pub cpu_duration: f64,
    /// Duration of the GPU operation, µs.
    pub gpu_duration: f64,
    /// GPU start − call end, clipped at 0, µs.
    pub launch_delay: f64,
}

/// The launches of one rank's frame, in launch-row order (`hta`: HTA's selection and µs
/// arithmetic, see the module docs).
pub fn launch_stats(f: &HtaFrame, r: &RankTrace, hta: bool, include_memory: bool) -> Vec<LaunchStat> {
    if hta {
        hta_launch_stats(f, r, include_memory)
    } else {
        exact_launch_stats(f, r, include_memory)
    }
}

fn hta_launch_stats(f: &HtaFrame, r: &RankTrace, include_memory: bool) -> Vec<LaunchStat> {
    let wanted = |name: &str| HTA_LAUNCHES.contains(&name) || (include_memory && HTA_MEMORY.contains(&name));
    let ids: rustc_hash::FxHashSet<i64> =
        (0..f.len()).filter(|&i| wanted(r.strings.get(f.name(r, i)))).map(|i| f.correlation(r, i)).collect();
    let mut gpu: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
    for i in (0..f.len()).filter(|&i| f.stream(r, i) != -1 && ids.contains(&f.correlation(r, i))) {
        gpu.entry(f.correlation(r, i)).or_default().push(i);
    }
    let mut out = Vec::new();
    for c in (0..f.len()).filter(|&i| f.stream(r, i) == -1 && ids.contains(&f.correlation(r, i))) {
        for &g in gpu.get(&f.correlation(r, c)).map(Vec::as_slice).unwrap_or_default() {
            // pandas: (ts_y - ts_x) in int64, then - dur_x, then clip(lower=0)
            let delay = (f.ts(r, g) - f.ts(r, c)) as f64 - f.dur(r, c);
            out.push(LaunchStat {
                correlation: f.correlation(r, c),
                cpu_row: c,
                gpu_row: g,
                cpu_duration: f.dur(r, c),
                gpu_duration: f.dur(r, g),
                launch_delay: delay.max(0.0),
            });
        }
    }
    out
}

fn exact_launch_stats(f: &HtaFrame, r: &RankTrace, include_memory: bool) -> Vec<LaunchStat> {
    let gpu = GpuOpsByCorrelation::new(f, r);
    let mut out = Vec::new();
    for c in launch_calls(f, r, include_memory) {
        for g in gpu.get(f.correlation(r, c)) {
            let delay = (f.ts_ns(r, g) - f.ts_ns(r, c) - f.dur_ns(r, c)).max(0);
            out.push(LaunchStat {
                correlation: f.correlation(r, c),
                cpu_row: c,
                gpu_row: g,
                cpu_duration: us(f.dur_ns(r, c)),
                gpu_duration: us(f.dur_ns(r, g)),
                launch_delay: us(delay),
            });
        }
    }
    out
}

/// A cutoff as HTA prints it in titles (`50`, `12.5`).
fn show(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        x.to_string()
    }
}

/// The three histograms HTA draws per rank (SPEC §2.9, `visualize_cuda_launch_kernel_info`):
/// HTA asks plotly for at most 300 bins (automatic for the short kernels); here at most 300
/// (50) bins and never more bins than values.
pub fn charts(rank: u32, stats: &[LaunchStat], runtime_cutoff: f64, launch_delay_cutoff: f64) -> Vec<Chart> {
    let short: Vec<f64> =
        stats.iter().filter(|s| s.cpu_duration <= runtime_cutoff && s.gpu_duration < s.cpu_duration).map(|s| s.cpu_duration).collect();
    let runtime: Vec<f64> = stats.iter().filter(|s| s.cpu_duration > runtime_cutoff).map(|s| s.cpu_duration).collect();
    let delay: Vec<f64> = stats.iter().filter(|s| s.launch_delay > launch_delay_cutoff).map(|s| s.launch_delay).collect();
    let bins = |v: &[f64], max: usize| histogram_bins(v, v.len().clamp(1, max));
    vec![
        Chart::Histogram {
            title: format!("Short GPU kernels (gpu op duration < cpu op duration) on rank {rank}"),
            x_label: "Cuda Runtime Event Duration (us)".into(),
            bins: bins(&short, 50),
        },
        Chart::Histogram {
            title: format!("Runtime Event Duration Outliers (duration > {} us) on rank {rank}", show(runtime_cutoff)),
            x_label: "Cuda Runtime Event Duration (us)".into(),
            bins: bins(&runtime, 300),
        },
        Chart::Histogram {
            title: format!("Launch Delay Outliers (duration > {} us) on rank {rank}", show(launch_delay_cutoff)),
            x_label: "Launch Delay Duration (us)".into(),
            bins: bins(&delay, 300),
        },
    ]
}

fn run(ctx: &Context<'_>, p: &Params) -> Result<Report, AnalysisError> {
    let (runtime_cutoff, delay_cutoff) = (p.float("runtime_cutoff"), p.float("launch_delay_cutoff"));
    let include_memory = p.bool("include_memory_events");
    let mut report = Report::default();
    for (f, r) in ctx.ranks() {
        let stats = launch_stats(f, r, ctx.hta, include_memory);
        let name = |i: usize| r.strings.get(f.name(r, i));
        // HTA keeps pandas' dtypes: int µs when the trace's `dur` column is integral
        let col = |g: fn(&LaunchStat) -> f64| {
            if ctx.hta && !f.dur_is_float {
                Values::Int(stats.iter().map(|s| g(s) as i64).collect())
            } else {
                Values::Float(stats.iter().map(g).collect())
            }
        };
        let mut t = Table::new(&format!("cuda_kernel_launch_stats__rank{}", f.rank))
            .with("correlation", Unit::None, Values::Int(stats.iter().map(|s| s.correlation).collect()))
            .with("cpu_duration", Unit::Us, col(|s| s.cpu_duration))
            .with("gpu_duration", Unit::Us, col(|s| s.gpu_duration))
            .with("launch_delay", Unit::Us, col(|s| s.launch_delay));
        if !ctx.hta {
            t = t.with("launch_name", Unit::None, Values::Str(stats.iter().map(|s| name(s.cpu_row)).collect())).with(
                "gpu_name",
                Unit::None,
                Values::Str(stats.iter().map(|s| name(s.gpu_row)).collect()),
            );
        }
        t.sort_canonical(&["correlation"]);
        report.tables.push(t);
        if !ctx.hta {
            report.tables.push(outliers(f, r, &stats, runtime_cutoff, delay_cutoff));
            if stats.is_empty() {
                report.notes.push(format!("rank {}: no kernel launches or async memory calls with a GPU operation", f.rank));
            }
        }
        report.charts.extend(charts(f.rank, &stats, runtime_cutoff, delay_cutoff));
    }
    Ok(report)
}

/// `cuda_kernel_launch_outliers__rank{r}`: the launches above either cutoff, longest delay
/// first (what HTA's outlier histograms count, as a list).
fn outliers(f: &HtaFrame, r: &RankTrace, stats: &[LaunchStat], runtime_cutoff: f64, delay_cutoff: f64) -> Table {
    let mut rows: Vec<&LaunchStat> = stats.iter().filter(|s| s.cpu_duration > runtime_cutoff || s.launch_delay > delay_cutoff).collect();
    rows.sort_by(|a, b| {
        b.launch_delay.total_cmp(&a.launch_delay).then(b.cpu_duration.total_cmp(&a.cpu_duration)).then(a.correlation.cmp(&b.correlation))
    });
    let reason = |s: &LaunchStat| match (s.cpu_duration > runtime_cutoff, s.launch_delay > delay_cutoff) {
        (true, true) => "runtime, launch_delay",
        (true, false) => "runtime",
        _ => "launch_delay",
    };
    let name = |i: usize| r.strings.get(f.name(r, i));
    Table::new(&format!("cuda_kernel_launch_outliers__rank{}", f.rank))
        .with("correlation", Unit::None, Values::Int(rows.iter().map(|s| s.correlation).collect()))
        .with("outlier", Unit::None, Values::Str(rows.iter().map(|s| reason(s)).collect()))
        .with("ts", Unit::Us, Values::Float(rows.iter().map(|s| us(f.ts_ns(r, s.cpu_row))).collect()))
        .with("cpu_duration", Unit::Us, Values::Float(rows.iter().map(|s| s.cpu_duration).collect()))
        .with("gpu_duration", Unit::Us, Values::Float(rows.iter().map(|s| s.gpu_duration).collect()))
        .with("launch_delay", Unit::Us, Values::Float(rows.iter().map(|s| s.launch_delay).collect()))
        .with("launch_name", Unit::None, Values::Str(rows.iter().map(|s| name(s.cpu_row)).collect()))
        .with("gpu_name", Unit::None, Values::Str(rows.iter().map(|s| name(s.gpu_row)).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cutoffs_print_like_python() {
        assert_eq!(show(50.0), "50");
        assert_eq!(show(12.5), "12.5");
    }
}
