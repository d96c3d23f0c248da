//! Trace patterns the ROCm and CUDA performance guides teach (`kinetoscope patterns`), found per
//! GPU device of each rank, on Kineto (CUDA, ROCm) and rocprof traces alike, each with the
//! evidence a user can look up in the trace. No HTA counterpart; `--hta` changes nothing.
//!
//! 1. `serialized_execution` ([`serialized`]): the GPU idle while the host copies or
//!    synchronizes (blocking `cudaMemcpy`, `hipMemcpy`, `…Synchronize` calls).
//! 2. `launch_overhead` ([`launch_overhead`]): many short kernels with longer gaps between them.
//! 3. `memory_bound` ([`memory_bound`]): phases where copies keep the device busy, kernels not.
//! 4. `long_gaps` ([`long_gaps`]): stretches without any GPU work.
//!
//! A device's work is [`device_ops`] (kernels, copies, memsets by device). Each detector is a pure
//! function of a [`DeviceView`] and the [`Thresholds`] (the options) returning a [`Finding`].
//!
//! Tables: `patterns` (one row per rank, device and pattern: fired `yes`/`no`/`n/a`, the measure
//! compared with the threshold, rounded to 0.01, the evidence count found, a sentence) and `evidence` (one row per
//! call, kernel run, phase or gap, in pattern, rank, device, time order; at most `max_evidence`
//! rows per pattern and rank: the largest `value_ns`, with a note saying how many were left out).
//! Notes: the patterns that are n/a and why, and the thresholds used.

mod finding;
mod host;
pub mod launch_overhead;
pub mod long_gaps;
pub mod memory_bound;
pub mod serialized;

pub use finding::{Evidence, Finding, Pattern, Verdict};
pub use host::{is_blocking, HostCalls};

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::devices::{device_ops, DeviceOps};
use super::intervals::merge_intervals;
use super::stats::np_round;
use crate::model::RankTrace;
use crate::table::{Report, Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "patterns",
    title: "Performance patterns",
    about: "serialized execution, kernel-launch overhead, memory-bound phases and long gaps, each with its evidence",
    hta_api: "",
    group: Group::GpuTime,
    options: &[
        Opt {
            name: "serialized_pct",
            kind: OptKind::Float,
            default: "5",
            help: "serialized_execution fires when blocking host calls leave the GPU idle this % of its active span or more",
        },
        Opt { name: "short_kernel_us", kind: OptKind::Float, default: "10", help: "Kernels shorter than this (µs) can be launch bound" },
        Opt {
            name: "launch_bound_pct",
            kind: OptKind::Float,
            default: "50",
            help: "launch_overhead fires when this % of the device's kernels or more are launch bound",
        },
        Opt {
            name: "min_kernels",
            kind: OptKind::Int,
            default: "20",
            help: "launch_overhead needs at least this many launch-bound kernels",
        },
        Opt { name: "phase_merge_us", kind: OptKind::Float, default: "100", help: "Copies less than this (µs) apart belong to one phase" },
        Opt {
            name: "copy_busy_pct",
            kind: OptKind::Float,
            default: "80",
            help: "A memory-bound phase is busy with copies at least this % of its time",
        },
        Opt { name: "min_phase_us", kind: OptKind::Float, default: "1000", help: "A memory-bound phase lasts at least this (µs)" },
        Opt {
            name: "long_gap_us",
            kind: OptKind::Float,
            default: "1000",
            help: "Gaps without GPU work at least this long (µs) are long_gaps (and shorter ones can be launch overhead)",
        },
        Opt {
            name: "max_evidence",
            kind: OptKind::Int,
            default: "1000",
            help: "Most evidence rows per pattern and rank (the largest value_ns are kept)",
        },
    ],
    run,
};

/// The options in ns and numbers, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Thresholds {
    /// `serialized_pct`, %.
    pub serialized_pct: f64,
    /// `short_kernel_us`, ns.
    pub short_kernel_ns: i64,
    /// `launch_bound_pct`, %.
    pub launch_bound_pct: f64,
    /// `min_kernels`.
    pub min_kernels: usize,
    /// `phase_merge_us`, ns.
    pub phase_merge_ns: i64,
    /// `copy_busy_pct`, %.
    pub copy_busy_pct: f64,
    /// `min_phase_us`, ns.
    pub min_phase_ns: i64,
    /// `long_gap_us`, ns.
    pub long_gap_ns: i64,
    /// `max_evidence`.
    pub max_evidence: usize,
}

impl Thresholds {
    /// From checked options; negative values are errors.
    pub fn from_params(p: &Params) -> Result<Thresholds, AnalysisError> {
        for o in ANALYSIS.options {
            if p.float(o.name) < 0.0 {
                return fail(format!("option '{}': expected a number of at least 0, found {}", o.name, p.str(o.name)));
            }
        }
        let ns = |name| (p.float(name) * 1000.0).round() as i64;
        Ok(Thresholds {
            serialized_pct: p.float("serialized_pct"),
            short_kernel_ns: ns("short_kernel_us"),
            launch_bound_pct: p.float("launch_bound_pct"),
            min_kernels: p.int("min_kernels") as usize,
            phase_merge_ns: ns("phase_merge_us"),
            copy_busy_pct: p.float("copy_busy_pct"),
            min_phase_ns: ns("min_phase_us"),
            long_gap_ns: ns("long_gap_us"),
            max_evidence: p.int("max_evidence") as usize,
        })
    }
}

impl Default for Thresholds {
    /// The options' defaults.
    fn default() -> Thresholds {
        Thresholds::from_params(&Params::defaults(ANALYSIS.options)).expect("defaults are valid")
    }
}

/// What the detectors read about one device of a rank.
#[derive(Debug, Clone, Copy)]
pub struct DeviceView<'a> {
    /// The rank.
    pub rank: &'a RankTrace,
    /// The device's kernels, copies and memsets.
    pub ops: &'a DeviceOps,
    /// The rank's host API calls.
    pub host: &'a HostCalls,
    /// The union of the kernels of every device of the rank (merged intervals, ns).
    pub rank_kernels: &'a [(i64, i64)],
    /// The device's GPU-active span: first operation's start, last one's end (ns).
    pub span: (i64, i64),
}

/// The four findings of one device of one rank.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceFindings {
    /// Rank number.
    pub rank: u32,
    /// Device number.
    pub device: i64,
    /// One finding per pattern, in [`Pattern::ALL`] order.
    pub findings: [Finding; 4],
}

/// First start and last end of the device's operations.
fn gpu_span(d: &DeviceOps) -> (i64, i64) {
    let ops = || d.kernels.iter().chain(&d.copies).chain(&d.memsets);
    (ops().map(|o| o.start).min().unwrap_or(0), ops().map(|o| o.end).max().unwrap_or(0))
}

/// The patterns on every device of rank `r` (devices ascending).
pub fn find_patterns(r: &RankTrace, t: &Thresholds) -> Vec<DeviceFindings> {
    let devices = device_ops(r);
    let host = HostCalls::of(r);
    let rank_kernels = merge_intervals(devices.iter().flat_map(|d| d.kernels.iter().map(|k| (k.start, k.end))).collect());
    devices
        .iter()
        .map(|d| {
            let v = DeviceView { rank: r, ops: d, host: &host, rank_kernels: &rank_kernels, span: gpu_span(d) };
            let findings =
                [serialized::detect(&v, t), launch_overhead::detect(&v, t), memory_bound::detect(&v, t), long_gaps::detect(&v, t)];
            DeviceFindings { rank: r.rank, device: d.device, findings }
        })
        .collect()
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let t = Thresholds::from_params(params)?;
    let found: Vec<DeviceFindings> = ctx.selected.iter().flat_map(|&p| find_patterns(&ctx.trace.ranks[p], &t)).collect();
    let mut report = Report::default();
    if found.is_empty() {
        report.notes.push("no GPU operations (kernels, copies, memsets) in the trace: no pattern to look for".into());
    }
    report.notes.extend(not_applicable_notes(&found));
    let ranks: BTreeMap<u32, &RankTrace> = ctx.selected.iter().map(|&p| (ctx.trace.ranks[p].rank, &ctx.trace.ranks[p])).collect();
    let (evidence, left_out) = evidence_table(&found, t.max_evidence, &|rank| ranks[&rank]);
    report.tables.push(patterns_table(&found));
    report.tables.push(evidence);
    report.notes.extend(left_out);
    let used: Vec<String> = ANALYSIS.options.iter().map(|o| format!("{}={}", o.name, params.str(o.name))).collect();
    report.notes.push(format!("thresholds: {}", used.join(", ")));
    Ok(report)
}

/// Table `patterns`: one row per rank, device and pattern.
fn patterns_table(found: &[DeviceFindings]) -> Table {
    let rows: Vec<(&DeviceFindings, Pattern, &Finding)> =
        found.iter().flat_map(|d| Pattern::ALL.iter().zip(&d.findings).map(move |(&p, f)| (d, p, f))).collect();
    let text = |f: &dyn Fn(Pattern, &Finding) -> String| Values::Str(rows.iter().map(|(_, p, x)| f(*p, x)).collect());
    Table::new("patterns")
        .with("pattern", Unit::None, text(&|p, _| p.as_str().to_string()))
        .with("rank", Unit::None, Values::Int(rows.iter().map(|(d, ..)| i64::from(d.rank)).collect()))
        .with("device", Unit::None, Values::Int(rows.iter().map(|(d, ..)| d.device).collect()))
        .with("fired", Unit::None, text(&|_, f| f.verdict.as_str().to_string()))
        .with("measure", Unit::None, Values::Float(rows.iter().map(|(.., f)| np_round(f.measure, 2)).collect()))
        .with("threshold", Unit::None, Values::Float(rows.iter().map(|(.., f)| f.threshold).collect()))
        .with("measure_unit", Unit::None, text(&|p, _| p.measure_unit().to_string()))
        .with("evidence_rows", Unit::Count, Values::Int(rows.iter().map(|(.., f)| f.evidence.len() as i64).collect()))
        .with("summary", Unit::None, text(&|_, f| f.summary.clone()))
}

/// Which of `values` to keep: all if at most `max`, else the `max` largest (the earlier of equals).
fn keep_largest(values: &[i64], max: usize) -> Vec<bool> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(values[i]), i));
    let mut keep = vec![false; values.len()];
    for &i in order.iter().take(max) {
        keep[i] = true;
    }
    keep
}

/// Table `evidence` (pattern, rank, device, time order; at most `max` rows per pattern and rank)
/// and a note per pattern and rank with rows left out; `rank` gives a rank number's trace (the
/// detail texts name its events).
fn evidence_table<'a>(found: &[DeviceFindings], max: usize, rank: &dyn Fn(u32) -> &'a RankTrace) -> (Table, Vec<String>) {
    let mut rows: Vec<(Pattern, &DeviceFindings, &Evidence)> = Vec::new();
    let mut notes = Vec::new();
    for (i, &pattern) in Pattern::ALL.iter().enumerate() {
        for rank in found.chunk_by(|a, b| a.rank == b.rank) {
            let items: Vec<(&DeviceFindings, &Evidence)> =
                rank.iter().flat_map(|d| d.findings[i].evidence.iter().map(move |e| (d, e))).collect();
            let keep = keep_largest(&items.iter().map(|(_, e)| e.value).collect::<Vec<_>>(), max);
            if items.len() > max {
                notes.push(format!(
                    "{} on rank {}: {} of {} evidence rows left out (the {max} with the largest value_ns are listed)",
                    pattern.as_str(),
                    rank[0].rank,
                    items.len() - max,
                    items.len()
                ));
            }
            rows.extend(items.into_iter().zip(keep).filter(|(_, k)| *k).map(|((d, e), _)| (pattern, d, e)));
        }
    }
    let int = |f: &dyn Fn(&DeviceFindings, &Evidence) -> i64| Values::Int(rows.iter().map(|(_, d, e)| f(d, e)).collect());
    let table = Table::new("evidence")
        .with("pattern", Unit::None, Values::Str(rows.iter().map(|(p, ..)| p.as_str()).collect()))
        .with("rank", Unit::None, int(&|d, _| i64::from(d.rank)))
        .with("device", Unit::None, int(&|d, _| d.device))
        .with("start_ns", Unit::Ns, int(&|_, e| e.start))
        .with("end_ns", Unit::Ns, int(&|_, e| e.end))
        .with("dur_ns", Unit::Ns, int(&|_, e| e.end - e.start))
        .with("detail", Unit::None, Values::Str(rows.iter().map(|(_, d, e)| e.detail.text(rank(d.rank))).collect()))
        .with("value_ns", Unit::Ns, int(&|_, e| e.value));
    (table, notes)
}

/// One note per pattern and reason that is n/a somewhere: where, and why.
fn not_applicable_notes(found: &[DeviceFindings]) -> Vec<String> {
    let mut notes: Vec<(Pattern, &str, Vec<String>)> = Vec::new();
    for d in found {
        for (&p, f) in Pattern::ALL.iter().zip(&d.findings).filter(|(_, f)| f.verdict == Verdict::NotApplicable) {
            let place = format!("rank {} device {}", d.rank, d.device);
            match notes.iter_mut().find(|(q, why, _)| *q == p && *why == f.summary) {
                Some(n) => n.2.push(place),
                None => notes.push((p, &f.summary, vec![place])),
            }
        }
    }
    notes.sort_by_key(|n| n.0);
    notes.into_iter().map(|(p, why, places)| format!("{} is n/a on {}: {why}", p.as_str(), places.join(", "))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_values_are_kept_in_their_order() {
        assert_eq!(keep_largest(&[5, 9, 1, 9, 7], 3), [false, true, false, true, true]);
        assert_eq!(keep_largest(&[3, 3, 3], 2), [true, true, false]);
        assert_eq!(keep_largest(&[1], 5), [true]);
    }

    #[test]
    fn thresholds_in_ns_and_negative_ones_refused() {
        let t = Thresholds::default();
        assert_eq!((t.short_kernel_ns, t.phase_merge_ns, t.min_phase_ns, t.long_gap_ns), (10_000, 100_000, 1_000_000, 1_000_000));
        assert_eq!((t.serialized_pct, t.launch_bound_pct, t.copy_busy_pct, t.min_kernels, t.max_evidence), (5.0, 50.0, 80.0, 20, 1000));
        let p = Params::new(ANALYSIS.options, [("short_kernel_us", "2.5"), ("min_kernels", "3")]).unwrap();
        assert_eq!(Thresholds::from_params(&p).unwrap().short_kernel_ns, 2_500);
        let p = Params::new(ANALYSIS.options, [("long_gap_us", "-1")]).unwrap();
        assert_eq!(Thresholds::from_params(&p).unwrap_err().0, "option 'long_gap_us': expected a number of at least 0, found -1");
    }
}
