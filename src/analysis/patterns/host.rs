//! The host API calls of a rank (CUDA/HIP runtime and driver calls), which of them block the
//! host, and which one overlaps a time window the longest.

use std::cmp::Reverse;

use rustc_hash::FxHashMap;

use crate::analysis::devices::Op;
use crate::model::{EventId, Kind, Phase, RankTrace, StrId};

/// A rank's runtime and driver calls (complete events), by start.
#[derive(Debug, Clone, Default)]
pub struct HostCalls {
    /// The calls, in time order (start, then end).
    pub calls: Vec<Op>,
    /// The longest call's duration, ns (bounds the search in [`HostCalls::longest_overlap`]).
    longest: i64,
}

impl HostCalls {
    /// The runtime and driver calls of `r`.
    pub fn of(r: &RankTrace) -> HostCalls {
        let ev = &r.events;
        let mut calls: Vec<Op> = (0..ev.len())
            .filter(|&e| matches!(ev.kind[e], Kind::Runtime | Kind::Driver) && ev.phase[e] == Phase::Complete)
            .map(|e| Op { start: ev.ts[e], end: ev.ts[e] + ev.dur.get(e).max(0), event: e as EventId })
            .collect();
        // they mostly come in time order, which the stable sort's runs make cheap (the calls are
        // distinct, so the order is the one an unstable sort gives)
        calls.sort();
        let longest = calls.iter().map(Op::dur).max().unwrap_or(0);
        HostCalls { calls, longest }
    }

    /// Whether the rank has no host API calls (the trace was taken without them).
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// The calls that block the host until the GPU is done ([`is_blocking`]), in time order.
    /// Each distinct name is tested once.
    pub fn blocking<'a>(&'a self, r: &'a RankTrace) -> impl Iterator<Item = &'a Op> + 'a {
        let mut memo: FxHashMap<StrId, bool> = FxHashMap::default();
        self.calls.iter().filter(move |c| *memo.entry(r.events.name.get(c.event as usize)).or_insert_with(|| is_blocking(r.name(c.event))))
    }

    /// The call that overlaps `[start, end)` the longest (the earliest of equals), if any does.
    pub fn longest_overlap(&self, start: i64, end: i64) -> Option<EventId> {
        // a call starting before start - longest ends before start
        let lo = self.calls.partition_point(|c| c.start < start.saturating_sub(self.longest));
        let hi = self.calls.partition_point(|c| c.start < end);
        self.calls[lo..hi]
            .iter()
            .map(|c| (c.end.min(end) - c.start.max(start), c))
            .filter(|(overlap, _)| *overlap > 0)
            .max_by_key(|(overlap, c)| (*overlap, Reverse(c.start), Reverse(c.event)))
            .map(|(_, c)| c.event)
    }
}

/// Whether a runtime or driver call named `name` blocks the host: a copy or memset without
/// `Async` in its name (`cudaMemcpy`, `hipMemcpyDtoH`, `cudaMemset`, `cuMemcpyHtoD_v2`,
/// `hipMemcpyWithStream`) or any `…Synchronize` (`cudaDeviceSynchronize`, `hipStreamSynchronize`,
/// `cudaEventSynchronize`, `cuCtxSynchronize`).
pub fn is_blocking(name: &str) -> bool {
    name.contains("Synchronize") || ((name.contains("Memcpy") || name.contains("Memset")) && !name.contains("Async"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocking_calls_by_name() {
        for n in ["cudaMemcpy", "hipMemcpyDtoH", "cudaMemset", "hipMemcpyWithStream", "cudaStreamSynchronize", "cuCtxSynchronize"] {
            assert!(is_blocking(n), "{n}");
        }
        for n in ["cudaMemcpyAsync", "hipMemsetAsync", "cudaLaunchKernel", "hipStreamWaitEvent", "cudaEventRecord"] {
            assert!(!is_blocking(n), "{n}");
        }
    }

    #[test]
    fn longest_overlap_looks_back_as_far_as_the_longest_call() {
        let op = |start, end, event| Op { start, end, event };
        let h = HostCalls { calls: vec![op(0, 100, 0), op(50, 60, 1), op(90, 130, 2), op(200, 210, 3)], longest: 100 };
        assert_eq!(h.longest_overlap(95, 150), Some(2), "35 ns of call 2 against 5 of call 0");
        assert_eq!(h.longest_overlap(55, 58), Some(0), "3 ns each: the earliest");
        assert_eq!(h.longest_overlap(140, 200), None);
    }
}
