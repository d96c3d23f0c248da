//! Communication/computation overlap (HTA `get_comm_comp_overlap`, SPEC §2.3): per rank, the
//! share of communication-kernel time during which a computation kernel also runs.
//!
//! Per rank the GPU events (rows with a stream) of type COMMUNICATION and COMPUTATION (§1.10)
//! are merged per type (§1.11); overlap = time both run; percentage = `round(100 × overlap /
//! communication time, 2)`, NaN when the rank has no communication kernel (HTA divides 0 by 0).
//!
//! `--hta` computes on HTA's µs floats and counts `Stream Wait Event` as computation. Without it:
//! exact ns, `cuda_sync` events are not kernels (SPEC §5.4), and the table also gives the
//! communication and overlap times.

use super::api::{Analysis, AnalysisError, Context, Group, Params};
use super::hta_frame::HtaFrame;
use super::intervals::merge_intervals;
use super::kernel_type::KernelType;
use super::kernel_type::{hta_interval, typed_gpu_rows};
use super::stats::np_round;
use super::units::us;
use crate::model::RankTrace;
use crate::table::{Chart, Report};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "overlap",
    title: "Communication/computation overlap",
    about: "Share of communication-kernel time that overlaps computation kernels, per rank",
    hta_api: "get_comm_comp_overlap (SPEC §2.3)",
    group: Group::Communication,
    options: &[],
    run,
};

/// One rank's overlap.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overlap {
    /// Rank.
    pub rank: u32,
    /// Time some communication kernel runs, µs.
    pub comm: f64,
    /// Part of it during which some computation kernel also runs, µs.
    pub overlap: f64,
    /// `round(100 × overlap / comm, 2)`; NaN without communication kernels.
    pub pctg: f64,
}

/// The overlap of each selected rank.
pub fn comm_comp_overlap(ctx: &Context<'_>) -> Vec<Overlap> {
    ctx.ranks().map(|(f, r)| rank_overlap(f, r, &typed_gpu_rows(f, r, ctx.hta), ctx.hta)).collect()
}

/// One rank's [`Overlap`], from its GPU rows with their kernel type (`typed_gpu_rows(f, r, hta)`,
/// which the summary has made already).
pub(crate) fn rank_overlap(f: &HtaFrame, r: &RankTrace, typed: &[(usize, KernelType)], hta: bool) -> Overlap {
    let rows_of = |t: KernelType| typed.iter().filter(move |(_, k)| *k == t).map(|(i, _)| *i);
    let (comm, overlap) = if hta {
        let comm = merge_intervals(rows_of(KernelType::Communication).map(|i| hta_interval(f, r, i)).collect());
        let comp = merge_intervals(rows_of(KernelType::Computation).map(|i| hta_interval(f, r, i)).collect());
        (comm.iter().map(|(s, e)| e - s).sum::<f64>(), overlap_time(&comm, &comp, |a, b| b - a))
    } else {
        let iv = |t| merge_intervals(rows_of(t).map(|i| (f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i))).collect());
        let (comm, comp) = (iv(KernelType::Communication), iv(KernelType::Computation));
        (us(comm.iter().map(|(s, e)| e - s).sum()), overlap_time(&comm, &comp, |a, b| us(b - a)))
    };
    // HTA: round(100 * (overlap / comm), 2); 0 / 0 is NaN
    let pctg = if comm == 0.0 { f64::NAN } else { np_round(100.0 * (overlap / comm), 2) };
    Overlap { rank: f.rank, comm, overlap, pctg }
}

/// HTA's sweep: comm events ±1, comp events ±2, sorted by time; every event after which the
/// running sum is 3 adds the time to the next event (`seg(from, to)`, µs). Zero-length states at
/// tied times add nothing, so the order of ties does not matter.
fn overlap_time<T: Copy + PartialOrd>(comm: &[(T, T)], comp: &[(T, T)], seg: impl Fn(T, T) -> f64) -> f64 {
    let mut events: Vec<(T, i32)> = Vec::with_capacity(2 * (comm.len() + comp.len()));
    for (iv, w) in [(comm, 1), (comp, 2)] {
        events.extend(iv.iter().map(|&(s, _)| (s, w)));
        events.extend(iv.iter().map(|&(_, e)| (e, -w)));
    }
    events.sort_by(|a, b| a.0.partial_cmp(&b.0).unwrap_or(std::cmp::Ordering::Equal));
    let mut running = 0;
    let mut total = 0.0;
    for (j, &(t, w)) in events.iter().enumerate() {
        running += w;
        if running == 3 {
            if let Some(&(next, _)) = events.get(j + 1) {
                total += seg(t, next);
            }
        }
    }
    total
}

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    let rows = comm_comp_overlap(ctx);
    let mut report = Report::default();
    if !ctx.hta {
        for o in rows.iter().filter(|o| o.pctg.is_nan()) {
            report.notes.push(format!("rank {} has no communication kernels: no overlap percentage", o.rank));
        }
    }
    let mut t = Table::new("comm_comp_overlap")
        .with("rank", Unit::None, Values::Int(rows.iter().map(|o| i64::from(o.rank)).collect()))
        .with("comp_comm_overlap_pctg", Unit::Percent, Values::Float(rows.iter().map(|o| o.pctg).collect()));
    if !ctx.hta {
        t = t.with("comm_time (us)", Unit::Us, Values::Float(rows.iter().map(|o| o.comm).collect())).with(
            "overlap_time (us)",
            Unit::Us,
            Values::Float(rows.iter().map(|o| o.overlap).collect()),
        );
    }
    report.tables.push(t);
    let shown: Vec<&Overlap> = rows.iter().filter(|o| !o.pctg.is_nan()).collect();
    if !shown.is_empty() {
        report.charts.push(Chart::Bars {
            title: "Computation-communication overlap".into(),
            x_label: "rank".into(),
            y_label: "% of communication time overlapped by computation".into(),
            categories: shown.iter().map(|o| o.rank.to_string()).collect(),
            values: shown.iter().map(|o| o.pctg).collect(),
            errors: None,
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlap_counts_time_both_run() {
        // comm [0,10) and [20,30); comp [5,25): overlap 5 + 5
        let got = overlap_time(&[(0i64, 10i64), (20, 30)], &[(5, 25)], |a, b| (b - a) as f64);
        assert_eq!(got, 10.0);
        // touching, not overlapping
        assert_eq!(overlap_time(&[(0i64, 10i64)], &[(10, 20)], |a, b| (b - a) as f64), 0.0);
        assert_eq!(overlap_time::<i64>(&[], &[(10, 20)], |a, b| (b - a) as f64), 0.0);
    }
}
