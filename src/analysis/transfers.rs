//! Host↔device transfers (`kinetoscope transfers`), for Kineto (CUDA, ROCm) and rocprof traces
//! alike. No HTA counterpart (HTA's `memory_bw` sums Kineto's bandwidth arg over time instead).
//!
//! Every GPU memory copy ([`crate::model::Kind::Memcpy`], complete) counts, on its device (see
//! [`super::devices`]). Its direction comes from its name ([`direction`]): Kineto's
//! `Memcpy HtoD (Pageable -> Device)`, rocprofv3's `Memcpy HtoD (Host -> Device)` (a
//! device-to-device copy between two agents is read as `Memcpy PtoP`), rocprof v1's
//! `CopyHostToDevice`.
//!
//! Tables:
//! * `transfers`: per direction over the selected ranks: copies, the copies whose byte count the
//!   trace gives, bytes, time (the sum of the copies' durations), busy time (the union of the
//!   direction's copies per device, summed over devices), and the achieved bandwidth: bytes over
//!   the time of the copies with bytes (GB/s, 10^9 bytes/s), with the distribution of the
//!   copies' own bandwidths (min, median, p90, max); GB/s rounded to 0.001 (1 MB/s).
//! * `transfers_per_device`: the same per rank and device.
//! * `overlap`: per rank and device, the union of the kernels (compute), the union of the copies,
//!   their intersection (copy time hidden under compute) and the copy time left exposed, then the
//!   sum over devices (`all`); the percentage rounded to 0.01. Unions, not sums of pairwise overlaps: two copies under one
//!   kernel count their common time once (the O(n·m) double count of scripts that add
//!   `min(end) - max(start)` over every (copy, kernel) pair counts it twice).
//!
//! Bytes: Kineto's `args.bytes`, rocprofv3 JSON's `bytes`. rocprofv3's `memory_copy_trace.csv`
//! and rocprof v1 write no byte counts: those copies have time but no bandwidth, and a note says
//! so.

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Params};
use super::devices::{device_ops, intersection, DeviceOps, Op};
use super::intervals::{covered, merge_intervals};
use super::stats::{np_round, quantile_sorted};
use crate::model::{IntArg, RankTrace};
use crate::table::{Chart, Report, Series, Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "transfers",
    title: "Transfers",
    about: "copies per direction (HtoD, DtoH, DtoD, peer): count, bytes, time, bandwidth, and how much of their time compute hides",
    hta_api: "",
    group: Group::Memory,
    options: &[],
    run,
};

/// Directions, in table order.
pub const DIRECTIONS: [&str; 6] = ["HtoD", "DtoH", "DtoD", "PtoP", "HtoH", "other"];

/// The direction of a copy called `name`: `HtoD`, `DtoH`, `DtoD`, `PtoP` (peer), `HtoH` or
/// `other`, from Kineto's and rocprofv3's `Memcpy XtoY …` names or rocprof v1's `CopyXToY`.
pub fn direction(name: &str) -> &'static str {
    if let Some(rest) = name.strip_prefix("Memcpy ") {
        for d in &DIRECTIONS[..5] {
            if rest.starts_with(d) {
                return d;
            }
        }
        return "other";
    }
    match name {
        "CopyHostToDevice" => "HtoD",
        "CopyDeviceToHost" => "DtoH",
        "CopyDeviceToDevice" => "DtoD",
        "CopyPeerToPeer" => "PtoP",
        "CopyHostToHost" => "HtoH",
        _ => "other",
    }
}

/// One copy: its time, bytes if known, and direction.
#[derive(Debug, Clone, Copy)]
struct Copy {
    op: Op,
    bytes: Option<i64>,
    direction: &'static str,
}

/// The copies of one direction (on one device, or summed over several), and what the table
/// says of them.
#[derive(Debug, Clone, Default)]
struct Flow {
    copies: usize,
    with_bytes: usize,
    bytes: i64,
    time_ns: i64,
    /// Time of the copies with bytes, ns.
    timed_ns: i64,
    busy_ns: i64,
    /// Bandwidth of each copy with bytes and a duration, GB/s, ascending.
    gbps: Vec<f64>,
}

impl Flow {
    /// Adds the copies `c` of one device (their union is the device's busy time).
    fn add(&mut self, c: &[Copy]) {
        self.copies += c.len();
        for x in c {
            self.time_ns += x.op.dur();
            if let Some(b) = x.bytes {
                self.with_bytes += 1;
                self.bytes += b;
                self.timed_ns += x.op.dur();
                if x.op.dur() > 0 {
                    self.gbps.push(b as f64 / x.op.dur() as f64);
                }
            }
        }
        self.busy_ns += covered(&merge_intervals(c.iter().map(|x| (x.op.start, x.op.end)).collect()));
        self.gbps.sort_by(f64::total_cmp);
    }

    /// Bytes over the time of the copies with bytes, GB/s (bytes per ns); NaN without either.
    fn bandwidth(&self) -> f64 {
        if self.with_bytes == 0 || self.timed_ns == 0 {
            f64::NAN
        } else {
            self.bytes as f64 / self.timed_ns as f64
        }
    }

    /// Quantile `q` of the copies' own bandwidths (NaN without any).
    fn quantile(&self, q: f64) -> f64 {
        quantile_sorted(&self.gbps, q)
    }
}

/// The copies of one device, with their direction and bytes.
fn copies(r: &RankTrace, d: &DeviceOps) -> Vec<Copy> {
    d.copies
        .iter()
        .map(|&op| Copy { op, bytes: r.events.int_arg(op.event, IntArg::Bytes), direction: direction(r.name(op.event)) })
        .collect()
}

/// Compute/copy overlap of one device (or a sum of devices), ns.
#[derive(Debug, Clone, Copy, Default)]
struct Overlap {
    kernel_ns: i64,
    copy_ns: i64,
    hidden_ns: i64,
}

impl Overlap {
    fn of(d: &DeviceOps) -> Overlap {
        let k = merge_intervals(d.kernels.iter().map(|o| (o.start, o.end)).collect());
        let c = merge_intervals(d.copies.iter().map(|o| (o.start, o.end)).collect());
        Overlap { kernel_ns: covered(&k), copy_ns: covered(&c), hidden_ns: intersection(&k, &c) }
    }

    fn add(&mut self, o: Overlap) {
        self.kernel_ns += o.kernel_ns;
        self.copy_ns += o.copy_ns;
        self.hidden_ns += o.hidden_ns;
    }
}

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    if ctx.hta {
        return fail("transfers has no HTA 0.5.0 counterpart: run it without --hta");
    }
    let mut total: BTreeMap<usize, Flow> = BTreeMap::new();
    let mut per_device: Vec<(u32, i64, usize, Flow)> = Vec::new();
    let mut overlaps: Vec<(String, String, Overlap)> = Vec::new();
    let mut all = Overlap::default();
    for &p in &ctx.selected {
        let r = &ctx.trace.ranks[p];
        for d in device_ops(r).iter().filter(|d| !d.copies.is_empty()) {
            let c = copies(r, d);
            for (k, dir) in DIRECTIONS.iter().enumerate() {
                let mine: Vec<Copy> = c.iter().filter(|x| x.direction == *dir).copied().collect();
                if mine.is_empty() {
                    continue;
                }
                total.entry(k).or_default().add(&mine);
                let mut f = Flow::default();
                f.add(&mine);
                per_device.push((r.rank, d.device, k, f));
            }
            let o = Overlap::of(d);
            all.add(o);
            overlaps.push((r.rank.to_string(), d.device.to_string(), o));
        }
    }
    let mut report = Report::default();
    if total.is_empty() {
        report.notes.push(
            "no GPU memory copies in the trace (rocprof: --memory-copy-trace or --sys-trace; Kineto: gpu_memcpy events, recorded with CUDA/HIP activities)"
                .into(),
        );
    }
    let unknown: usize = total.values().map(|f| f.copies - f.with_bytes).sum();
    if unknown > 0 {
        report.notes.push(format!(
            "{unknown} copies have no byte count (rocprofv3's memory_copy_trace.csv, rocprof v1 and Kineto's ROCm traces write none; rocprofv3's JSON output and Kineto's CUDA traces do): their time counts, their bandwidth is unknown"
        ));
    }
    if overlaps.len() > 1 {
        overlaps.push(("all".into(), "all".into(), all));
    }
    let total: Vec<(usize, Flow)> = total.into_iter().collect();
    report.tables.push(flow_table("transfers", None, &total));
    let keys: Vec<(u32, i64)> = per_device.iter().map(|x| (x.0, x.1)).collect();
    let flows: Vec<(usize, Flow)> = per_device.into_iter().map(|x| (x.2, x.3)).collect();
    report.tables.push(flow_table("transfers_per_device", Some(&keys), &flows));
    report.tables.push(overlap_table(&overlaps));
    report.charts.extend(charts(&total, &overlaps));
    Ok(report)
}

/// A table of flows, one row per (key,) direction.
fn flow_table(name: &str, keys: Option<&[(u32, i64)]>, rows: &[(usize, Flow)]) -> Table {
    let mut t = Table::new(name);
    if let Some(k) = keys {
        t = t.with("rank", Unit::None, Values::Int(k.iter().map(|x| i64::from(x.0)).collect())).with(
            "device",
            Unit::None,
            Values::Int(k.iter().map(|x| x.1).collect()),
        );
    }
    let int = |f: &dyn Fn(&Flow) -> i64| Values::Int(rows.iter().map(|(_, x)| f(x)).collect());
    let float = |f: &dyn Fn(&Flow) -> f64| Values::Float(rows.iter().map(|(_, x)| np_round(f(x), 3)).collect());
    t.with("direction", Unit::None, Values::Str(rows.iter().map(|(k, _)| DIRECTIONS[*k]).collect()))
        .with("copies", Unit::Count, int(&|f| f.copies as i64))
        .with("copies_with_bytes", Unit::Count, int(&|f| f.with_bytes as i64))
        .with("bytes", Unit::Bytes, int(&|f| f.bytes))
        .with("time_ns", Unit::Ns, int(&|f| f.time_ns))
        .with("busy_ns", Unit::Ns, int(&|f| f.busy_ns))
        .with("bandwidth_gbps", Unit::GbPerS, float(&Flow::bandwidth))
        .with("min_gbps", Unit::GbPerS, float(&|f| f.quantile(0.0)))
        .with("median_gbps", Unit::GbPerS, float(&|f| f.quantile(0.5)))
        .with("p90_gbps", Unit::GbPerS, float(&|f| f.quantile(0.9)))
        .with("max_gbps", Unit::GbPerS, float(&|f| f.quantile(1.0)))
}

/// The `overlap` table.
fn overlap_table(rows: &[(String, String, Overlap)]) -> Table {
    let int = |f: &dyn Fn(&Overlap) -> i64| Values::Int(rows.iter().map(|x| f(&x.2)).collect());
    let pct = |o: &Overlap| if o.copy_ns == 0 { f64::NAN } else { 100.0 * o.hidden_ns as f64 / o.copy_ns as f64 };
    Table::new("overlap")
        .with("rank", Unit::None, Values::Str(rows.iter().map(|x| &x.0).collect()))
        .with("device", Unit::None, Values::Str(rows.iter().map(|x| &x.1).collect()))
        .with("compute_ns", Unit::Ns, int(&|o| o.kernel_ns))
        .with("copy_ns", Unit::Ns, int(&|o| o.copy_ns))
        .with("copy_under_compute_ns", Unit::Ns, int(&|o| o.hidden_ns))
        .with("copy_exposed_ns", Unit::Ns, int(&|o| o.copy_ns - o.hidden_ns))
        .with("copy_under_compute_pct", Unit::Percent, Values::Float(rows.iter().map(|x| np_round(pct(&x.2), 2)).collect()))
}

/// Bandwidth per direction (median, whiskers min–max) and copy time hidden or exposed per device.
fn charts(total: &[(usize, Flow)], overlaps: &[(String, String, Overlap)]) -> Vec<Chart> {
    let mut charts = Vec::new();
    let timed: Vec<&(usize, Flow)> = total.iter().filter(|(_, f)| !f.gbps.is_empty()).collect();
    if !timed.is_empty() {
        charts.push(Chart::Bars {
            title: "Achieved bandwidth per copy (median, min–max)".into(),
            x_label: "direction".into(),
            y_label: "GB/s".into(),
            categories: timed.iter().map(|(k, _)| DIRECTIONS[*k].to_string()).collect(),
            values: timed.iter().map(|(_, f)| f.quantile(0.5)).collect(),
            errors: Some(timed.iter().map(|(_, f)| (f.quantile(0.0), f.quantile(1.0))).collect()),
        });
    }
    let devices: Vec<&(String, String, Overlap)> = overlaps.iter().filter(|x| x.0 != "all").collect();
    if !devices.is_empty() {
        // ms, or µs when every bar is shorter than a millisecond
        let (unit, scale) = if devices.iter().all(|x| x.2.copy_ns < 1_000_000) { ("µs", 1e3) } else { ("ms", 1e6) };
        let time = |f: &dyn Fn(&Overlap) -> i64| devices.iter().map(|x| f(&x.2) as f64 / scale).collect();
        let gpu = |d: &str| if d == "-1" { "host".to_string() } else { format!("GPU {d}") };
        charts.push(Chart::StackedBars {
            title: "Copy time under compute and exposed, per device".into(),
            x_label: "rank / device".into(),
            y_label: unit.into(),
            categories: devices.iter().map(|x| format!("rank {} · {}", x.0, gpu(&x.1))).collect(),
            series: vec![
                Series { name: "under compute".into(), values: time(&|o| o.hidden_ns) },
                Series { name: "exposed".into(), values: time(&|o| o.copy_ns - o.hidden_ns) },
            ],
        });
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_from_every_spelling() {
        assert_eq!(direction("Memcpy HtoD (Pageable -> Device)"), "HtoD");
        assert_eq!(direction("Memcpy DtoH (Device -> Pinned)"), "DtoH");
        assert_eq!(direction("Memcpy DtoD (Device -> Device)"), "DtoD");
        assert_eq!(direction("Memcpy PtoP (Device -> Device)"), "PtoP");
        assert_eq!(direction("Memcpy HtoH (Host -> Host)"), "HtoH");
        assert_eq!(direction("CopyHostToDevice"), "HtoD");
        assert_eq!(direction("CopyDeviceToHost"), "DtoH");
        assert_eq!(direction("MEMORY_COPY_NONE"), "other");
        assert_eq!(direction("Memcpy Unknown"), "other");
    }
}
