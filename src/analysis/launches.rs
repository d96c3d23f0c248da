//! Which CPU call launched which GPU operation, on a rank's frame: the calls that enqueue GPU work
//! (kernel launches of CUDA, the CUDA driver, HIP and MTIA; async copies and memsets), each launch
//! with its GPU operations by correlation id, and each GPU operation's launching call. Shared by
//! the launch statistics, the ATen-op delays, the CUPTI counters, the queue and idle time.

use rustc_hash::FxHashMap;

use super::hta_frame::HtaFrame;
use crate::model::{Kind, RankTrace};

/// MTIA's launch call (one of HTA's launch names).
pub const MTIA_LAUNCH: &str = "runFunction - job_prep_and_submit_for_execution";

/// The frame row of each frame row's launching call (the model's launch link: the runtime or
/// driver call with the same correlation id), `None` when there is none or it is not in the
/// frame. Unlike HTA's `index_correlation`, this does not confuse "no partner" (0) with a
/// partner that is event #0. Built once per rank by [`super::api::Context::launchers`].
#[derive(Debug, Default)]
pub struct Launchers(Vec<u32>);

impl Launchers {
    /// The launching calls of frame `f`'s rows.
    pub fn new(f: &HtaFrame, r: &RankTrace) -> Launchers {
        // model row -> its first frame row (`u32::MAX`: not in the frame)
        let mut frame_row = vec![u32::MAX; r.events.len()];
        for i in (0..f.len()).rev() {
            frame_row[f.row[i] as usize] = i as u32;
        }
        let launch = r.launch_links();
        Launchers(
            (0..f.len())
                .map(|i| {
                    let e = f.row[i] as usize;
                    if !r.events.kind[e].is_device() {
                        return u32::MAX;
                    }
                    match launch.get(e) {
                        Some(&l) if l != crate::model::NONE => frame_row.get(l as usize).copied().unwrap_or(u32::MAX),
                        _ => u32::MAX,
                    }
                })
                .collect(),
        )
    }

    /// The frame row of row `i`'s launching call.
    pub fn get(&self, i: usize) -> Option<usize> {
        let l = *self.0.get(i)?;
        (l != u32::MAX).then_some(l as usize)
    }
}

/// Prefixes of kernel-launch calls: CUDA runtime (`cudaLaunchKernel`, `cudaLaunchKernelExC`,
/// `cudaLaunchCooperativeKernel…`), CUDA driver (`cuLaunchKernel`, `cuLaunchKernelEx`, used by
/// Triton and other JIT launchers), HIP (`hipLaunchKernel`, `hipExtLaunchKernel`,
/// `hipModuleLaunchKernel`, `hipExtModuleLaunchKernel`, cooperative variants).
const KERNEL_LAUNCH_PREFIXES: [&str; 9] = [
    "cudaLaunchKernel",
    "cudaLaunchCooperativeKernel",
    "cuLaunchKernel",
    "cuLaunchCooperativeKernel",
    "hipLaunchKernel",
    "hipExtLaunchKernel",
    "hipModuleLaunchKernel",
    "hipExtModuleLaunchKernel",
    "hipLaunchCooperativeKernel",
];

/// Whether `name` is a call that enqueues one GPU operation and returns (kinetoscope's list, used
/// without `--hta`): the kernel launches of `KERNEL_LAUNCH_PREFIXES` and MTIA's
/// `runFunction - job_prep_and_submit_for_execution`; with `memory`, asynchronous copies and
/// sets of the CUDA runtime, the CUDA driver and HIP (`cudaMemcpyAsync`, `cudaMemcpy2DAsync`,
/// `cudaMemsetAsync`, `cuMemcpyHtoDAsync_v2`, `cuMemsetD32Async`, `hipMemcpyAsync`,
/// `hipMemsetAsync`, `hipMemcpyDtoHAsync`, ... and `hipMemcpyWithStream`).
///
/// Not launches: synchronous copies (`cudaMemcpy`: the call waits for the copy, so there is no
/// launch delay to measure) and graph launches (`cudaGraphLaunch`: one call, many kernels).
pub fn is_launch_name(name: &str, memory: bool) -> bool {
    if KERNEL_LAUNCH_PREFIXES.iter().any(|p| name.starts_with(p)) || name == MTIA_LAUNCH {
        return true;
    }
    memory
        && ((["cudaMemcpy", "cudaMemset", "cuMemcpy", "cuMemset", "hipMemcpy", "hipMemset"].iter().any(|p| name.starts_with(p))
            && name.contains("Async"))
            || name == "hipMemcpyWithStream")
}

/// kinetoscope's launching calls of a frame, in row order: CPU rows (stream −1) named as
/// [`is_launch_name`] says, one per correlation id (the first in row order, but a runtime call
/// over the driver call it makes with the same id: `cudaLaunchKernel` → `cuLaunchKernel`); calls
/// without a correlation id are all kept. A driver call made inside a runtime launch call (the
/// runtime call encloses it on its thread) is part of that launch, whatever its id.
pub fn launch_calls(f: &HtaFrame, r: &RankTrace, include_memory: bool) -> Vec<usize> {
    let kind = |i: usize| r.events.kind[f.row[i] as usize];
    let parent = r.parent_links();
    let inside_runtime_launch = |i: usize| {
        let p = parent[f.row[i] as usize];
        p != crate::model::NONE && r.events.kind[p as usize] == Kind::Runtime && is_launch_name(r.name(p), include_memory)
    };
    // the test once per name, not once per row
    let launch_name: Vec<bool> = r.strings.iter().map(|s| is_launch_name(s, include_memory)).collect();
    let mut launcher: FxHashMap<i64, usize> = FxHashMap::default();
    let mut calls = Vec::new();
    for i in 0..f.len() {
        if f.stream(r, i) != -1 || !launch_name[f.name(r, i).0 as usize] {
            continue;
        }
        if kind(i) == Kind::Driver && inside_runtime_launch(i) {
            continue;
        }
        if f.correlation(r, i) < 0 {
            calls.push(i);
            continue;
        }
        let slot = launcher.entry(f.correlation(r, i)).or_insert(i);
        if kind(*slot) == Kind::Driver && kind(i) != Kind::Driver {
            *slot = i;
        }
    }
    calls.extend(launcher.into_values());
    calls.sort_unstable();
    calls
}

/// The GPU operations of a frame (stream ≠ −1, not synchronisation events) by correlation id:
/// `(correlation, row)` pairs sorted, looked up by binary search.
pub struct GpuOpsByCorrelation(Vec<(i64, usize)>);

impl GpuOpsByCorrelation {
    /// The GPU operations of frame `f`.
    pub fn new(f: &HtaFrame, r: &RankTrace) -> GpuOpsByCorrelation {
        let mut v: Vec<(i64, usize)> = (0..f.len())
            .filter(|&i| f.stream(r, i) != -1 && f.correlation(r, i) >= 0 && r.events.kind[f.row[i] as usize] != Kind::CudaSync)
            .map(|i| (f.correlation(r, i), i))
            .collect();
        // stable: correlation ids come in runs already in order, which it merges
        v.sort();
        GpuOpsByCorrelation(v)
    }

    /// The rows with correlation id `c`, in row order.
    pub fn get(&self, c: i64) -> impl ExactSizeIterator<Item = usize> + Clone + '_ {
        let lo = self.0.partition_point(|p| p.0 < c);
        let hi = lo + self.0[lo..].partition_point(|p| p.0 == c);
        self.0[lo..hi].iter().map(|p| p.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_names() {
        for n in [
            "cudaLaunchKernel",
            "cudaLaunchKernelExC",
            "cuLaunchKernel",
            "cuLaunchKernelEx",
            "hipLaunchKernel",
            "hipExtModuleLaunchKernel",
            "hipModuleLaunchKernel",
            "runFunction - job_prep_and_submit_for_execution",
        ] {
            assert!(is_launch_name(n, false), "{n}");
        }
        for n in [
            "cudaMemcpyAsync",
            "cudaMemsetAsync",
            "cudaMemcpy2DAsync",
            "cuMemcpyHtoDAsync_v2",
            "hipMemcpyAsync",
            "hipMemsetAsync",
            "hipMemcpyWithStream",
        ] {
            assert!(!is_launch_name(n, false) && is_launch_name(n, true), "{n}");
        }
        for n in ["cudaMemcpy", "cudaGraphLaunch", "cudaStreamSynchronize", "hipMemcpy", "aten::mm"] {
            assert!(!is_launch_name(n, true), "{n}");
        }
    }
}
