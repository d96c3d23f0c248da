//! Temporal breakdown (HTA `get_temporal_breakdown`, SPEC §2.1): per rank, how the GPU's time
//! from its first to its last event splits into idle, compute and non-compute (communication,
//! memory) time. Compute overlapping communication counts as compute.
//!
//! GPU events are the rows with a stream (HTA also counts `cuda_sync` events as busy time; without
//! `--hta` they are not GPU work, SPEC §5.4). A rank without GPU events makes HTA raise; we report
//! zero times and no percentages for it.

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Params};
use super::intervals::{covered, merge_intervals};
use super::kernel_type::{gpu_rows, row_kernel_type, KernelType};
use super::stats::np_round;
use super::units::us;
use crate::table::{Chart, Report, Series};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "temporal",
    title: "Temporal breakdown",
    about: "GPU idle / compute / non-compute time per rank",
    hta_api: "get_temporal_breakdown (SPEC §2.1)",
    group: Group::GpuTime,
    options: &[],
    run,
};

/// One rank's breakdown, ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Temporal {
    /// Rank.
    pub rank: u32,
    /// Time between GPU events (first start to last end, minus busy time).
    pub idle: i64,
    /// Time some compute kernel runs.
    pub compute: i64,
    /// Busy time without a compute kernel.
    pub non_compute: i64,
    /// First GPU start to last GPU end.
    pub kernel_time: i64,
}

/// The breakdown of each selected rank (`None` for a rank without GPU events).
pub fn temporal_breakdown(ctx: &Context<'_>) -> Vec<(u32, Option<Temporal>)> {
    ctx.ranks()
        .map(|(f, r)| {
            let g = gpu_rows(f, r, ctx.hta);
            let all = merge_intervals(g.iter().map(|&i| (f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i))).collect());
            let (Some(first), Some(last)) = (all.first(), all.last()) else { return (f.rank, None) };
            let kernel_time = last.1 - first.0;
            let idle = kernel_time - covered(&all);
            let mut memo = FxHashMap::default();
            let compute_rows = g.iter().filter(|&&i| row_kernel_type(f, r, i, ctx.hta, &mut memo) == KernelType::Computation);
            let compute = covered(&merge_intervals(compute_rows.map(|&i| (f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i))).collect()));
            (f.rank, Some(Temporal { rank: f.rank, idle, compute, non_compute: kernel_time - compute - idle, kernel_time }))
        })
        .collect()
}

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    let rows = temporal_breakdown(ctx);
    let mut report = Report::default();
    if ctx.hta {
        if let Some((rank, _)) = rows.iter().find(|(_, t)| t.is_none()) {
            return fail(format!("rank {rank} has no GPU events: HTA 0.5.0 raises IndexError here (run without --hta for a result)"));
        }
    }
    for (rank, t) in &rows {
        if t.is_none() {
            report.notes.push(format!("rank {rank} has no GPU events"));
        }
    }
    let col = |f: fn(&Temporal) -> i64| Values::Float(rows.iter().map(|(_, t)| t.as_ref().map_or(0.0, |t| us(f(t)))).collect());
    // HTA: round(100 * x / kernel_time, 2) on µs floats
    let pct = |f: fn(&Temporal) -> i64| -> Vec<f64> {
        rows.iter().map(|(_, t)| t.as_ref().map_or(f64::NAN, |t| np_round(100.0 * us(f(t)) / us(t.kernel_time), 2))).collect()
    };
    let (idle_p, compute_p, non_p) = (pct(|t| t.idle), pct(|t| t.compute), pct(|t| t.non_compute));
    report.tables.push(
        Table::new("temporal_breakdown")
            .with("rank", Unit::None, Values::Int(rows.iter().map(|(r, _)| i64::from(*r)).collect()))
            .with("idle_time(us)", Unit::Us, col(|t| t.idle))
            .with("compute_time(us)", Unit::Us, col(|t| t.compute))
            .with("non_compute_time(us)", Unit::Us, col(|t| t.non_compute))
            .with("kernel_time(us)", Unit::Us, col(|t| t.kernel_time))
            .with("idle_time_pctg", Unit::Percent, Values::Float(idle_p.clone()))
            .with("compute_time_pctg", Unit::Percent, Values::Float(compute_p.clone()))
            .with("non_compute_time_pctg", Unit::Percent, Values::Float(non_p.clone())),
    );
    report.charts.push(Chart::StackedBars {
        title: "Temporal breakdown across ranks".into(),
        x_label: "rank".into(),
        y_label: "% of GPU time".into(),
        categories: rows.iter().map(|(r, _)| r.to_string()).collect(),
        series: vec![
            Series { name: "idle".into(), values: idle_p },
            Series { name: "compute".into(), values: compute_p },
            Series { name: "non-compute".into(), values: non_p },
        ],
    });
    Ok(report)
}
