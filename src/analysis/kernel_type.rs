//! HTA's kernel classes (SPEC §1.10): which GPU operations compute, communicate, copy or wait, and

//! the GPU rows of a rank with their class, as every kernel analysis reads them.

use rustc_hash::FxHashMap;

use super::hta_frame::HtaFrame;
use crate::model::{Kind, RankTrace, StrId};

/// HTA's kernel classes (§1.10), with their bit in HTA's overlap encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KernelType {
    /// Compute kernels (bit 1).
    Computation,
    /// NCCL/RCCL communication kernels (bit 2).
    Communication,
    /// Memcpy/memset (bit 4).
    Memory,
    /// Everything else (synchronisation).
    Other,
}

impl KernelType {
    /// HTA's upper-case name.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelType::Computation => "COMPUTATION",
            KernelType::Communication => "COMMUNICATION",
            KernelType::Memory => "MEMORY",
            KernelType::Other => "OTHER",
        }
    }

    /// HTA's bit for the overlap states (`COMPUTATION` 1, `COMMUNICATION` 2, `MEMORY` 4).
    pub fn bit(self) -> u8 {
        match self {
            KernelType::Computation => 1,
            KernelType::Communication => 2,
            KernelType::Memory => 4,
            KernelType::Other => 0,
        }
    }
}

/// `re.match(r"^nccl.*Kernel", name)`.
fn is_comm_name(name: &str) -> bool {
    name.strip_prefix("nccl").is_some_and(|rest| first_line(rest).contains("Kernel"))
}

/// The part of `s` a regex `.*` can cover (`.` does not match a line feed).
fn first_line(s: &str) -> &str {
    s.split('\n').next().unwrap_or("")
}

/// HTA's kernel type of a GPU event name (`get_kernel_type`, §1.10), regexes spelled out:
/// COMMUNICATION `^nccl.*Kernel`; MEMORY `^(Memcpy|Memset|dma)`; COMPUTATION unless the name
/// matches `^nccl.*Kernel`, contains `Memcpy`, starts with `Memset` or contains `Sync`; else
/// OTHER. (`Stream Wait Event` is therefore COMPUTATION in HTA.)
pub fn hta_kernel_type(name: &str) -> KernelType {
    if is_comm_name(name) {
        KernelType::Communication
    } else if name.starts_with("Memcpy") || name.starts_with("Memset") || name.starts_with("dma") {
        KernelType::Memory
    } else if !(first_line(name).contains("Memcpy") || name.starts_with("Memset") || first_line(name).contains("Sync")) {
        KernelType::Computation
    } else {
        KernelType::Other
    }
}

/// The kernel type of a GPU row: HTA's by name; without `--hta` a synchronisation event
/// (`cuda_sync`: `Stream Wait Event`, `Stream Sync`, ...) is always OTHER (SPEC §5.4).
pub fn kernel_type(name: &str, kind: Kind, hta: bool) -> KernelType {
    typed(kind, hta, || hta_kernel_type(name))
}

/// [`kernel_type`] of frame row `i`, HTA's name rule applied once per distinct name (`memo`
/// keeps the answers; one map per frame).
pub(crate) fn row_kernel_type(f: &HtaFrame, r: &RankTrace, i: usize, hta: bool, memo: &mut FxHashMap<StrId, KernelType>) -> KernelType {
    typed(r.events.kind[f.row[i] as usize], hta, || {
        *memo.entry(f.name(r, i)).or_insert_with(|| hta_kernel_type(r.strings.get(f.name(r, i))))
    })
}

/// The rule of [`kernel_type`], the type by name asked only when needed.
fn typed(kind: Kind, hta: bool, by_name: impl FnOnce() -> KernelType) -> KernelType {
    if !hta && kind == Kind::CudaSync {
        KernelType::Other
    } else {
        by_name()
    }
}

/// HTA's memory subtype (`get_memory_kernel_type`): `Memset`, `Memcpy Unknown` for names not
/// starting with `Memcpy`, else the first 11 characters (`Memcpy DtoH`, `Memcpy HtoD`, ...).
pub fn memory_kernel_type(name: &str) -> String {
    if name.starts_with("Memset") {
        "Memset".into()
    } else if !name.starts_with("Memcpy") {
        "Memcpy Unknown".into()
    } else {
        name.chars().take(11).collect()
    }
}

/// HTA's "GPU events" of a frame: rows with `stream != -1` (kernels, memcpy, memset and, in
/// HTA, `cuda_sync` events). Without `--hta`, synchronisation events are not GPU work and are
/// left out (SPEC §5.4: HTA counts a `Context Sync` as busy GPU time).
pub fn gpu_rows(f: &HtaFrame, r: &RankTrace, hta: bool) -> Vec<usize> {
    // room for every row at once (no copies as it grows; room never written costs address space only)
    let mut rows = Vec::with_capacity(f.len());
    rows.extend((0..f.len()).filter(|&i| f.stream(r, i) != -1 && (hta || r.events.kind[f.row[i] as usize] != Kind::CudaSync)));
    rows
}

/// GPU rows of `f` with their kernel type (shared with [`super::overlap`]).
pub(crate) fn typed_gpu_rows(f: &HtaFrame, r: &RankTrace, hta: bool) -> Vec<(usize, KernelType)> {
    let mut memo = FxHashMap::default();
    gpu_rows(f, r, hta).into_iter().map(|i| (i, row_kernel_type(f, r, i, hta, &mut memo))).collect()
}

/// `[ts, ts + dur)` as HTA holds it: µs floats (`ts` whole µs, `dur` as parsed or rounded).
pub(crate) fn hta_interval(f: &HtaFrame, r: &RankTrace, i: usize) -> (f64, f64) {
    let ts = f.ts(r, i) as f64;
    (ts, ts + f.dur(r, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_types_follow_hta_regexes() {
        use KernelType::*;
        assert_eq!(hta_kernel_type("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"), Communication);
        assert_eq!(hta_kernel_type("ncclKernel_SendRecv"), Communication);
        assert_eq!(hta_kernel_type("nccl:all_reduce"), Computation);
        assert_eq!(hta_kernel_type("Memcpy HtoD (Pageable -> Device)"), Memory);
        assert_eq!(hta_kernel_type("Memset (Device)"), Memory);
        assert_eq!(hta_kernel_type("dma_copy"), Memory);
        assert_eq!(hta_kernel_type("Stream Wait Event"), Computation);
        assert_eq!(hta_kernel_type("Context Sync"), Other);
        assert_eq!(hta_kernel_type("void at::native::MemcpyKernel"), Other);
        assert_eq!(hta_kernel_type("xMemset"), Computation);
        assert_eq!(hta_kernel_type("ampere_sgemm_128x64_nn"), Computation);
        assert_eq!(kernel_type("Stream Wait Event", Kind::CudaSync, false), Other);
        assert_eq!(kernel_type("Stream Wait Event", Kind::CudaSync, true), Computation);
    }

    #[test]
    fn memory_subtypes() {
        assert_eq!(memory_kernel_type("Memcpy HtoD (Pageable -> Device)"), "Memcpy HtoD");
        assert_eq!(memory_kernel_type("Memset (Device)"), "Memset");
        assert_eq!(memory_kernel_type("dma_x"), "Memcpy Unknown");
    }
}
