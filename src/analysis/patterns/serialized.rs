//! `serialized_execution`: the GPU idle while the host copies or synchronizes.
//!
//! 1. The blocking host calls of the rank ([`super::host::is_blocking`]), each clipped to the
//!    device's GPU-active span (first GPU operation's start to last one's end).
//! 2. Per call, the part of the clipped call during which no kernel runs on any device of the rank
//!    (the union of the rank's kernels): the GPU waits on the host. Calls with such a part are
//!    the evidence (call start, end and name; `value` = the idle part).
//! 3. Fires when the idle parts add up to `serialized_pct` % of the span or more. A rank without
//!    any host API call cannot show the pattern (not applicable).

use super::finding::{percent, Detail, Evidence, Finding};
use super::{DeviceView, Thresholds};
use crate::analysis::intervals::covered_within;
use crate::analysis::names::plural;
use crate::analysis::units::duration_text;

/// Why the pattern is n/a without host calls, and which trace option records them.
pub const NO_HOST_CALLS: &str =
    "no host API calls in the trace (rocprof: --hip-trace / --sys-trace; Kineto: the CUDA runtime activities, cuda_runtime events)";

/// The pattern on one device.
pub fn detect(v: &DeviceView<'_>, t: &Thresholds) -> Finding {
    if v.host.is_empty() {
        return Finding::not_applicable(t.serialized_pct, NO_HOST_CALLS);
    }
    let (lo, hi) = v.span;
    let evidence: Vec<Evidence> = v
        .host
        .blocking(v.rank)
        .filter_map(|c| {
            let (s, e) = (c.start.max(lo), c.end.min(hi));
            let idle = (e - s).max(0) - covered_within(v.rank_kernels, s, e);
            (idle > 0).then_some(Evidence { start: c.start, end: c.end, detail: Detail::Call(c.event), value: idle })
        })
        .collect();
    let idle: i64 = evidence.iter().map(|e| e.value).sum();
    let pct = percent(idle, hi - lo);
    let n = evidence.len();
    let summary = format!(
        "the GPUs run no kernel for {} during {n} blocking host call{} (copies, memsets, synchronizations): {pct:.1}% of the device's {} active span",
        duration_text(idle),
        plural(n),
        duration_text(hi - lo)
    );
    Finding::judged(pct >= t.serialized_pct, pct, t.serialized_pct, evidence, summary)
}
