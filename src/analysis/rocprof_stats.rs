//! Kernel statistics in rocprof's `stats.csv` form (`kinetoscope rocprof_stats`, alias
//! `rocprof-stats`), for rocprof and Kineto traces alike. No HTA counterpart.
//!
//! Table `stats`: `Name,Calls,TotalDurationNs,AverageNs,Percentage` as rocprof v1 writes it
//! (`tblextr.py`): one row per kernel name over the selected ranks, integer ns, the average
//! truncated (`total // calls`), the percentage `100.0 * total / all kernels' total` written as
//! Python's float repr, rows by total duration, longest first (ties by name), the header and the
//! names quoted. Its CSV is byte for byte rocprof's where the trace is a rocprof v1 `results.csv`
//! (tests/analysis_rocprof_stats.rs). Names are the trace's kernel names: rocprof v1's
//! `KernelName`, rocprofv3's `kernel_symbols` names (read::rocprof), Kineto's event names.
//!
//! Table `stats_extended`: the same with min, max, median and the population standard deviation.

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Params};
use super::stats::median;
use crate::model::{Kind, Phase};
use crate::table::{Report, Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "rocprof_stats",
    title: "Kernel statistics (rocprof stats.csv)",
    about: "calls, total, average and share of every kernel, as rocprof's stats.csv, with min, max, median and standard deviation",
    hta_api: "",
    group: Group::Kernels,
    options: &[],
    run,
};

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    if ctx.hta {
        return fail("rocprof_stats has no HTA 0.5.0 counterpart: run it without --hta");
    }
    let mut by: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for &p in &ctx.selected {
        let r = &ctx.trace.ranks[p];
        let ev = &r.events;
        for e in 0..ev.len() {
            if ev.kind[e] == Kind::Kernel && ev.phase[e] == Phase::Complete {
                by.entry(r.name(e as u32)).or_default().push(ev.dur[e]);
            }
        }
    }
    let mut report = Report::default();
    if by.is_empty() {
        report
            .notes
            .push("no GPU kernels in the trace (rocprof: a kernel trace, --kernel-trace / --sys-trace; Kineto: kernel events)".into());
    }
    let all: i64 = by.values().flatten().sum();
    let mut rows: Vec<(&str, Vec<i64>)> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1.iter().sum::<i64>().cmp(&a.1.iter().sum::<i64>()).then(a.0.cmp(b.0)));
    let name = || Values::Str(rows.iter().map(|r| r.0.to_string()).collect());
    let calls = || Values::Int(rows.iter().map(|r| r.1.len() as i64).collect());
    let total = || Values::Int(rows.iter().map(|r| r.1.iter().sum()).collect());
    let average = || Values::Int(rows.iter().map(|r| r.1.iter().sum::<i64>() / r.1.len() as i64).collect());
    let percent = || Values::Float(rows.iter().map(|r| 100.0 * r.1.iter().sum::<i64>() as f64 / all as f64).collect());
    let mut stats = Table::new("stats")
        .with("Name", Unit::None, name())
        .with("Calls", Unit::Count, calls())
        .with("TotalDurationNs", Unit::Ns, total())
        .with("AverageNs", Unit::Ns, average())
        .with("Percentage", Unit::Percent, percent());
    stats.quote_text = true;
    report.tables.push(stats);
    let stat = |f: fn(&[i64]) -> f64| Values::Float(rows.iter().map(|r| f(&r.1)).collect());
    report.tables.push(
        Table::new("stats_extended")
            .with("Name", Unit::None, name())
            .with("Calls", Unit::Count, calls())
            .with("TotalDurationNs", Unit::Ns, total())
            .with("AverageNs", Unit::Ns, average())
            .with("MinNs", Unit::Ns, Values::Int(rows.iter().map(|r| *r.1.iter().min().unwrap_or(&0)).collect()))
            .with("MaxNs", Unit::Ns, Values::Int(rows.iter().map(|r| *r.1.iter().max().unwrap_or(&0)).collect()))
            .with("MedianNs", Unit::Ns, stat(|d| median(d.iter().map(|&x| x as f64).collect())))
            .with("StdDevNs", Unit::Ns, stat(std_dev))
            .with("Percentage", Unit::Percent, percent()),
    );
    Ok(report)
}

/// Population standard deviation of `d` (0 for one value).
fn std_dev(d: &[i64]) -> f64 {
    let n = d.len() as f64;
    let mean = d.iter().map(|&x| x as f64).sum::<f64>() / n;
    (d.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n).sqrt()
}
