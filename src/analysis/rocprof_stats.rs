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
//!
//! Table `stats_per_gpu`: the `stats` columns per rank (a rocprofv3 process) and GPU
//! ([`super::devices::device_in_order`]), the percentage of that GPU's kernel time; rows by rank, GPU,
//! then as `stats`. `stats` itself is the total over every selected rank and GPU.

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Params};
use super::devices::device_in_order;
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
    let mut per_gpu: BTreeMap<(u32, i64), BTreeMap<&str, Vec<i64>>> = BTreeMap::new();
    for &p in &ctx.selected {
        let r = &ctx.trace.ranks[p];
        let ev = &r.events;
        let mut args = ev.int_args_in_order();
        for e in 0..ev.len() {
            if ev.kind[e] == Kind::Kernel && ev.phase[e] == Phase::Complete {
                let name = r.name(e as u32);
                by.entry(name).or_default().push(ev.dur.get(e));
                per_gpu.entry((r.rank, device_in_order(r, e as u32, &mut args))).or_default().entry(name).or_default().push(ev.dur.get(e));
            }
        }
    }
    let mut report = Report::default();
    if by.is_empty() {
        report
            .notes
            .push("no GPU kernels in the trace (rocprof: a kernel trace, --kernel-trace / --sys-trace; Kineto: kernel events)".into());
    }
    let rows = sorted(by);
    let mut stats = Table::new("stats");
    for (name, unit, values) in stats_columns(&rows) {
        stats = stats.with(name, unit, values);
    }
    stats.quote_text = true;
    report.tables.push(stats);
    let [name, calls, total, average, percent] = stats_columns(&rows).map(|c| c.2);
    let stat = |f: fn(&[i64]) -> f64| Values::Float(rows.iter().map(|r| f(&r.durs)).collect());
    report.tables.push(
        Table::new("stats_extended")
            .with("Name", Unit::None, name)
            .with("Calls", Unit::Count, calls)
            .with("TotalDurationNs", Unit::Ns, total)
            .with("AverageNs", Unit::Ns, average)
            .with("MinNs", Unit::Ns, Values::Int(rows.iter().map(|r| *r.durs.iter().min().unwrap_or(&0)).collect()))
            .with("MaxNs", Unit::Ns, Values::Int(rows.iter().map(|r| *r.durs.iter().max().unwrap_or(&0)).collect()))
            .with("MedianNs", Unit::Ns, stat(|d| median(d.iter().map(|&x| x as f64).collect())))
            .with("StdDevNs", Unit::Ns, stat(std_dev))
            .with("Percentage", Unit::Percent, percent),
    );
    let mut keys: Vec<(i64, i64)> = Vec::new();
    let mut gpu_rows: Vec<Row> = Vec::new();
    for ((rank, gpu), by) in per_gpu {
        let rows = sorted(by);
        keys.extend(std::iter::repeat_n((i64::from(rank), gpu), rows.len()));
        gpu_rows.extend(rows);
    }
    let mut t = Table::new("stats_per_gpu").with("rank", Unit::None, Values::Int(keys.iter().map(|k| k.0).collect())).with(
        "gpu",
        Unit::None,
        Values::Int(keys.iter().map(|k| k.1).collect()),
    );
    for (name, unit, values) in stats_columns(&gpu_rows) {
        t = t.with(name, unit, values);
    }
    report.tables.push(t);
    Ok(report)
}

/// One kernel name's durations, and the total its percentage is of.
struct Row<'a> {
    name: &'a str,
    durs: Vec<i64>,
    of: i64,
}

impl Row<'_> {
    fn total(&self) -> i64 {
        self.durs.iter().sum()
    }
}

/// Kernels with their durations, by total duration (longest first), ties by name; each a share
/// of all of them.
fn sorted(by: BTreeMap<&str, Vec<i64>>) -> Vec<Row<'_>> {
    let of: i64 = by.values().flatten().sum();
    let mut rows: Vec<Row> = by.into_iter().map(|(name, durs)| Row { name, durs, of }).collect();
    rows.sort_by(|a, b| b.total().cmp(&a.total()).then(a.name.cmp(b.name)));
    rows
}

/// rocprof's five columns of `rows`: name, calls, total, average (truncated), percentage.
fn stats_columns(rows: &[Row]) -> [(&'static str, Unit, Values); 5] {
    [
        ("Name", Unit::None, Values::Str(rows.iter().map(|r| r.name).collect())),
        ("Calls", Unit::Count, Values::Int(rows.iter().map(|r| r.durs.len() as i64).collect())),
        ("TotalDurationNs", Unit::Ns, Values::Int(rows.iter().map(Row::total).collect())),
        ("AverageNs", Unit::Ns, Values::Int(rows.iter().map(|r| r.total() / r.durs.len() as i64).collect())),
        ("Percentage", Unit::Percent, Values::Float(rows.iter().map(|r| 100.0 * r.total() as f64 / r.of as f64).collect())),
    ]
}

/// Population standard deviation of `d` (0 for one value).
fn std_dev(d: &[i64]) -> f64 {
    let n = d.len() as f64;
    let mean = d.iter().map(|&x| x as f64).sum::<f64>() / n;
    (d.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n).sqrt()
}
