//! What an analysis cannot see in a rocprof trace, said once per analysis as a note: rocprof
//! tables hold GPU work and HIP/HSA/marker API calls, but never framework operators, GPU user
//! annotations, profiler steps or Kineto's bandwidth arg, and a kernel-only table has no host
//! side at all. [`notes`] names the missing column or trace option for the analysis being run
//! on a rocprof rank (`Analysis::report` adds them); on Kineto input it says nothing.

use super::api::Context;
use crate::model::{Format, Kind, RankTrace};

/// What an analysis needs that a rocprof trace may lack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    /// HIP runtime calls (launches, copies, synchronization).
    HostApi,
    /// Framework operators (`aten::*`, Kineto `cpu_op`).
    CpuOps,
    /// GPU user annotations (Kineto `gpu_user_annotation`).
    GpuAnnotations,
    /// Profiler steps (`ProfilerStep#N`).
    Steps,
    /// Kineto's per-copy `memory bandwidth (GB/s)` arg.
    BandwidthArg,
    /// CUPTI range-profiler counters.
    RangeCounters,
}

/// The needs of each analysis that has any (by registry name).
const NEEDS: &[(&str, &[Need])] = &[
    ("summary", &[Need::HostApi, Need::Steps]),
    ("idle", &[Need::HostApi]),
    ("annotations", &[Need::GpuAnnotations]),
    ("annotated_kernels", &[Need::GpuAnnotations]),
    ("sequences", &[Need::CpuOps]),
    ("cupti", &[Need::RangeCounters]),
    ("flame", &[Need::HostApi, Need::CpuOps]),
    ("launch", &[Need::HostApi]),
    ("aten_ops", &[Need::CpuOps]),
    ("queue", &[Need::HostApi]),
    ("stragglers", &[Need::Steps]),
    ("memory_bw", &[Need::BandwidthArg]),
    ("steps", &[Need::Steps]),
    ("decode", &[Need::Steps]),
    ("counters", &[Need::HostApi]),
];

/// Whether `r` was read from a rocprof table or rocprof's JSON.
fn is_rocprof(r: &RankTrace) -> bool {
    matches!(r.format, Some(Format::RocprofV1Csv | Format::RocprofV1Json | Format::RocprofV3Csv | Format::RocprofV3Json))
}

/// What a rocprof trace lacking `need` misses, or `None` when `r` has it.
fn missing(need: Need, r: &RankTrace) -> Option<&'static str> {
    match need {
        Need::HostApi if !r.events.kind.contains(&Kind::Runtime) => Some(
            "no HIP API calls, so nothing on the host side (launches, copies, synchronization): record them with rocprofv3 --hip-trace or --sys-trace (rocprof v1: --hip-trace; a results.csv kernel table has none)",
        ),
        Need::CpuOps => Some("no framework operators (aten::*): rocprof records HIP/HSA API calls, not PyTorch's; use a Kineto trace of the same run"),
        Need::GpuAnnotations => Some(
            "no GPU user annotations: rocprof's roctx ranges (--marker-trace) are CPU-side markers, not Kineto's gpu_user_annotation spans",
        ),
        Need::Steps => Some("no profiler steps (ProfilerStep#N): rocprof does not record PyTorch's step markers"),
        Need::BandwidthArg => {
            Some("no per-copy bandwidth arg (Kineto's \"memory bandwidth (GB/s)\"): see transfers for bandwidth from bytes and time")
        }
        Need::RangeCounters => Some("no CUPTI range-profiler counters: rocprof's counter_collection.csv is not read yet"),
        _ => None,
    }
}

/// Notes for analysis `name` run on `ctx`: one per missing need, for the rocprof ranks that
/// miss it (`rocprof input (rank 0): …`).
pub fn notes(name: &str, ctx: &Context<'_>) -> Vec<String> {
    let Some((_, needs)) = NEEDS.iter().find(|(n, _)| *n == name) else { return Vec::new() };
    let mut out = Vec::new();
    for &need in *needs {
        let mut ranks: Vec<u32> = Vec::new();
        let mut what = None;
        for &p in &ctx.selected {
            let r = &ctx.trace.ranks[p];
            if is_rocprof(r) {
                if let Some(m) = missing(need, r) {
                    ranks.push(r.rank);
                    what = Some(m);
                }
            }
        }
        if let Some(m) = what {
            let list: Vec<String> = ranks.iter().map(u32::to_string).collect();
            let s = if ranks.len() == 1 { "" } else { "s" };
            out.push(format!("rocprof input (rank{s} {}): {m}", list.join(", ")));
        }
    }
    out
}
