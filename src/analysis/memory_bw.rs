//! Memory bandwidth over time (HTA `get_memory_bw_time_series`, `get_memory_bw_summary`; SPEC
//! §2.7): per memory-operation type (`Memcpy HtoD`, `Memcpy DtoH`, `Memset`, ...), the sum of the
//! bandwidths Kineto reports (`args["memory bandwidth (GB/s)"]`, GB/s) of the operations running
//! at each moment, as a step function, and its statistics over the moments some copy runs.
//!
//! Each memcpy/memset on a GPU stream (kernel type MEMORY, SPEC §1.10) adds its bandwidth at its
//! start and removes it at its end. `row` numbers the change points as HTA does: starts `0..n`
//! in trace order, the matching ends `n..2n`. Points are ordered by time, then by `row` (HTA
//! uses quicksort, whose order at equal times cannot be reproduced; the value after all points
//! at one time, in the `*_collapsed` tables, does not depend on it).
//!
//! With `--hta` the running value is HTA's float cumulative sum in that order, so it keeps
//! residues such as 1e-13 GB/s after all copies ended, which then count as positive points in
//! the summary; a zero-length operation is stretched to 1 µs. Without `--hta` the running value
//! is an exact sum ([`ExactSum`]: integers in units of 2^-80 GB/s, so it is exactly 0 whenever
//! no copy runs), operations keep their exact ns times, and the summary describes the collapsed
//! series (one value per timestamp; transient values between points at the same time are
//! left out). Traces without the bandwidth arg (AMD) give 0 GB/s throughout, as in HTA.

use rustc_hash::FxHashMap;

use super::api::{Analysis, AnalysisError, Context, Group, Params};
use super::hta_frame::HtaFrame;
use super::kernel_type::{memory_kernel_type, row_kernel_type, KernelType};
use super::series::{collapse, downsample_max, id_column, ExactSum};
use super::stats::summary_table;
use super::stats::Describe;
use super::units::us;
use crate::model::RankTrace;
use crate::table::{Chart, Line, Report};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "memory_bw",
    title: "Memory bandwidth",
    about: "Memcpy/memset bandwidth (GB/s) over time per copy type, and its statistics",
    hta_api: "get_memory_bw_time_series, get_memory_bw_summary (SPEC §2.7)",
    group: Group::Memory,
    options: &[],
    run,
};

/// Most points drawn per line.
const CHART_POINTS: usize = 5000;

/// One change of a copy type's bandwidth.
#[derive(Debug, Clone, PartialEq)]
pub struct BwPoint {
    /// HTA's row label: `k` for the start of the k-th memory operation, `n + k` for its end.
    pub row: usize,
    /// Frame row of the operation.
    pub op: usize,
    /// Time, ns (frame clock).
    pub ts_ns: i64,
    /// Memory type (`Memcpy HtoD`, `Memset`, ...; SPEC §1.10).
    pub name: String,
    /// Bandwidth added (start) or removed (end), GB/s.
    pub delta: f64,
    /// Bandwidth after this point, GB/s.
    pub value: f64,
}

/// One rank's series: points grouped by memory type (ascending), time order within a type.
#[derive(Debug, Clone, Default)]
pub struct RankBw {
    /// Rank number.
    pub rank: u32,
    /// Position of the rank in the trace.
    pub pos: usize,
    /// Points.
    pub points: Vec<BwPoint>,
}

impl RankBw {
    /// The points of each memory type, types ascending.
    pub fn types(&self) -> impl Iterator<Item = (&str, &[BwPoint])> {
        self.points.chunk_by(|a, b| a.name == b.name).map(|c| (c[0].name.as_str(), c))
    }
}

/// The bandwidth series of one rank (empty without memory operations).
pub fn memory_bw_points(f: &HtaFrame, r: &RankTrace, hta: bool) -> Vec<BwPoint> {
    let mut memo = FxHashMap::default();
    let ops: Vec<usize> =
        (0..f.len()).filter(|&i| f.stream(r, i) != -1 && row_kernel_type(f, r, i, hta, &mut memo) == KernelType::Memory).collect();
    let n = ops.len();
    let mut points = Vec::with_capacity(2 * n);
    for (k, &i) in ops.iter().enumerate() {
        let name = memory_kernel_type(r.strings.get(f.name(r, i)));
        let bw = f.memory_bw_gbps(r, i);
        // HTA: "In case of 0 us duration events round it up to 1 us"
        let dur = if hta && f.dur_ns(r, i) == 0 { 1000 } else { f.dur_ns(r, i) };
        points.push(BwPoint { row: k, op: i, ts_ns: f.ts_ns(r, i), name: name.clone(), delta: bw, value: 0.0 });
        points.push(BwPoint { row: n + k, op: i, ts_ns: f.ts_ns(r, i) + dur, name, delta: -bw, value: 0.0 });
    }
    points.sort_by(|a, b| (&a.name, a.ts_ns, a.row).cmp(&(&b.name, b.ts_ns, b.row)));
    for group in points.chunk_by_mut(|a, b| a.name == b.name) {
        if hta {
            let mut sum = 0.0;
            for p in group {
                sum += p.delta;
                p.value = sum;
            }
        } else {
            let mut sum = ExactSum::default();
            for p in group {
                if p.delta >= 0.0 {
                    sum.add(p.delta);
                } else {
                    sum.sub(-p.delta);
                }
                p.value = sum.value();
            }
        }
    }
    points
}

/// The series of every selected rank that has memory operations.
pub fn memory_bw(ctx: &Context<'_>) -> Vec<RankBw> {
    ctx.selected
        .iter()
        .map(|&pos| RankBw {
            rank: ctx.frames().ranks[pos].rank,
            pos,
            points: memory_bw_points(&ctx.frames().ranks[pos], &ctx.trace.ranks[pos], ctx.hta),
        })
        .filter(|b| !b.points.is_empty())
        .collect()
}

/// `describe()` of each memory type's positive bandwidth values: every point (`hta`) or the
/// collapsed series. Types without a positive value are left out.
pub fn memory_bw_summary(b: &RankBw, hta: bool) -> Vec<(String, Describe)> {
    b.types()
        .filter_map(|(name, pts)| {
            let values: Vec<f64> = if hta {
                pts.iter().map(|p| p.value).collect()
            } else {
                collapse(pts.iter().map(|p| (p.ts_ns, p.value))).into_iter().map(|(_, v)| v).collect()
            };
            let positive: Vec<f64> = values.into_iter().filter(|&v| v > 0.0).collect();
            (!positive.is_empty()).then(|| (name.to_string(), Describe::of(&positive)))
        })
        .collect()
}

/// µs column of `ns`: HTA's dtype (integers unless its `dur` column is float) or exact floats.
fn ts_values(ns: Vec<i64>, f: &HtaFrame, hta: bool) -> Values {
    if hta && !f.dur_is_float {
        Values::Int(ns.into_iter().map(|t| t.div_euclid(1000)).collect())
    } else {
        Values::Float(ns.into_iter().map(us).collect())
    }
}

fn series_tables(b: &RankBw, f: &HtaFrame, r: &RankTrace, hta: bool) -> [Table; 2] {
    let p = &b.points;
    let mut all = Table::new(&format!("memory_bw_time_series__rank{}", b.rank))
        .with("row", Unit::None, Values::Int(p.iter().map(|p| p.row as i64).collect()))
        .with("ts", Unit::Us, ts_values(p.iter().map(|p| p.ts_ns).collect(), f, hta))
        .with("pid", Unit::None, id_column(r, p.iter().map(|p| f.pid(r, p.op))))
        .with("name", Unit::None, Values::Str(p.iter().map(|p| &p.name).collect()))
        .with("memory_bw_gbps", Unit::None, Values::Float(p.iter().map(|p| p.value).collect()));
    if hta {
        all.sort_canonical(&["name", "ts"]);
    }
    let c: Vec<(&str, i64, f64)> = b
        .types()
        .flat_map(|(name, pts)| collapse(pts.iter().map(|p| (p.ts_ns, p.value))).into_iter().map(move |(t, v)| (name, t, v)))
        .collect();
    let collapsed = Table::new(&format!("memory_bw_time_series_collapsed__rank{}", b.rank))
        .with("name", Unit::None, Values::Str(c.iter().map(|x| x.0).collect()))
        .with("ts", Unit::Us, ts_values(c.iter().map(|x| x.1).collect(), f, hta))
        .with("memory_bw_gbps", Unit::None, Values::Float(c.iter().map(|x| x.2).collect()));
    [all, collapsed]
}

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    let series = memory_bw(ctx);
    let mut report = Report::default();
    let (mut ranks, mut names, mut stats) = (Vec::new(), Vec::new(), Vec::new());
    let mut lines = Vec::new();
    for b in &series {
        let (f, r) = (&ctx.frames().ranks[b.pos], &ctx.trace.ranks[b.pos]);
        report.tables.extend(series_tables(b, f, r, ctx.hta));
        for (name, d) in memory_bw_summary(b, ctx.hta) {
            ranks.push(i64::from(b.rank));
            names.push(name);
            stats.push(d);
        }
        for (name, pts) in b.types() {
            let c: Vec<(f64, f64)> = collapse(pts.iter().map(|p| (p.ts_ns, p.value))).into_iter().map(|(t, v)| (us(t), v)).collect();
            let label = if ctx.selected.len() > 1 { format!("rank {} {name}", b.rank) } else { name.to_string() };
            lines.push(Line { name: label, points: downsample_max(&c, CHART_POINTS) });
        }
    }
    for &pos in &ctx.selected {
        if !series.iter().any(|b| b.pos == pos) {
            report.notes.push(format!("rank {} has no memcpy/memset on a GPU stream", ctx.frames().ranks[pos].rank));
        }
    }
    if !series.is_empty() {
        let mut t = summary_table("memory_bw_summary", ranks, "name", Values::Str(names.into()), "memory_bw_gbps", &stats);
        if t.rows() == 0 && ctx.hta {
            // pandas: describe() of an empty groupby has no (rank, name) index; the oracle writes
            // it as a column called `index`
            t.columns.drain(0..2);
            t.columns.insert(0, crate::table::Column { name: "index".into(), unit: Unit::None, values: Values::Int(Default::default()) });
        }
        t.sort_canonical(&["rank", "name"]);
        report.tables.push(t);
    }
    for b in series.iter().filter(|b| b.points.iter().all(|p| p.delta == 0.0)) {
        report.notes.push(format!("rank {}: every memory operation reports 0 GB/s (no bandwidth arg, e.g. AMD traces)", b.rank));
    }
    if !lines.is_empty() {
        report.charts.push(Chart::Lines {
            title: "Memory bandwidth".into(),
            x_label: "time (µs)".into(),
            y_label: "GB/s".into(),
            lines,
            step: true,
        });
    }
    Ok(report)
}
