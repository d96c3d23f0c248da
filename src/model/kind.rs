//! Event kinds: one enum decided once at read time from the category string (`cat`), for every
//! spelling Kineto (2020–2026), ROCm, MTIA, PaddlePaddle and rocprof use. The raw category is kept
//! separately for display.

use serde::Serialize;

/// What an event is, independent of how its profiler spelled the category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// CPU operator: Kineto `cpu_op`, old `Operator`; Paddle `Operator`, `OperatorInner`.
    CpuOp,
    /// CPU user annotation (`record_function`): `user_annotation`, Paddle `UserDefined`.
    UserAnnotation,
    /// User annotation projected onto a GPU stream: `gpu_user_annotation`.
    GpuUserAnnotation,
    /// Python stack frame: `python_function`.
    PythonFunction,
    /// CUDA/HIP runtime API call: `cuda_runtime`, old `Runtime`, Paddle `CudaRuntime`, rocprof
    /// `HIP_RUNTIME_API`.
    Runtime,
    /// CUDA driver API call: `cuda_driver`.
    Driver,
    /// GPU kernel: `kernel`, old `Kernel`, rocprof `KERNEL_DISPATCH`.
    Kernel,
    /// GPU memory copy: `gpu_memcpy`, old `Memcpy`, rocprof `MEMORY_COPY`.
    Memcpy,
    /// GPU memory set: `gpu_memset`, old `Memset`.
    Memset,
    /// CUDA synchronization (`cuda_sync`: Stream Sync, Event Sync, Context Sync, Stream Wait Event).
    CudaSync,
    /// CPU→GPU launch flow (`ac2g`, old `async`, `async_cpu_to_gpu`, `async_gpu`).
    LaunchFlow,
    /// Forward→backward flow (`fwdbwd`).
    FwdBwdFlow,
    /// Profiler step marker category (Paddle `ProfileStep`); Kineto steps are `ProfilerStep#N`
    /// events of another category and are found by name.
    ProfilerStep,
    /// The whole-trace span (`Trace`).
    TraceSpan,
    /// Profiler overhead (`overhead`).
    Overhead,
    /// CPU instant event (`cpu_instant_event`, e.g. `[memory]`), Paddle `Allocate`/`Free`.
    CpuInstant,
    /// MTIA runtime call (`mtia_runtime`).
    MtiaRuntime,
    /// MTIA device operation (`mtia_ccp_events`).
    MtiaDeviceOp,
    /// CUPTI range-profiler counters (`cuda_profiler_range`).
    CudaProfilerRange,
    /// HSA API call (rocprof `HSA_*_API`).
    HsaApi,
    /// Marker/ROCTX range (rocprof `MARKER_*`).
    Marker,
    /// Paddle framework phases (`Forward`, `Backward`, `Optimization`, `Dataloader`, ...).
    FrameworkPhase,
    /// Paddle `DygraphKernelLaunch`.
    KernelLaunch,
    /// Metadata event without a category (`ph: M`).
    Metadata,
    /// Counter event without a category (`ph: C`).
    Counter,
    /// Flow event without a category (`ph: s/t/f`).
    Flow,
    /// Instant event without a category (`ph: i/I`).
    Instant,
    /// Any other category (the raw string is kept).
    Other,
}

impl Kind {
    /// Maps a category string. Matching is exact (categories are identifiers, not prose).
    pub fn from_cat(cat: &str) -> Kind {
        match cat {
            "cpu_op" | "Operator" | "OperatorInner" => Kind::CpuOp,
            "user_annotation" | "UserDefined" => Kind::UserAnnotation,
            "gpu_user_annotation" => Kind::GpuUserAnnotation,
            "python_function" | "PythonOp" | "PythonUserDefined" => Kind::PythonFunction,
            "cuda_runtime" | "Runtime" | "CudaRuntime" | "HIP_RUNTIME_API" | "HIP_RUNTIME_API_EXT" | "HIP_COMPILER_API" | "hip_api" => {
                Kind::Runtime
            }
            "cuda_driver" | "Driver" => Kind::Driver,
            "kernel" | "Kernel" | "KERNEL_DISPATCH" => Kind::Kernel,
            "gpu_memcpy" | "Memcpy" | "MEMORY_COPY" => Kind::Memcpy,
            "gpu_memset" | "Memset" => Kind::Memset,
            "cuda_sync" => Kind::CudaSync,
            "ac2g" | "async" | "async_cpu_to_gpu" | "async_gpu" => Kind::LaunchFlow,
            "fwdbwd" => Kind::FwdBwdFlow,
            "ProfileStep" => Kind::ProfilerStep,
            "Trace" => Kind::TraceSpan,
            "overhead" => Kind::Overhead,
            "cpu_instant_event" | "Allocate" | "Free" | "ReservedAllocate" | "ReservedFree" => Kind::CpuInstant,
            "mtia_runtime" => Kind::MtiaRuntime,
            "mtia_ccp_events" => Kind::MtiaDeviceOp,
            "cuda_profiler_range" => Kind::CudaProfilerRange,
            "HSA_CORE_API" | "HSA_AMD_EXT_API" | "HSA_IMAGE_EXT_API" | "HSA_FINALIZE_EXT_API" | "HSA_API" => Kind::HsaApi,
            "MARKER_CORE_API" | "MARKER_CONTROL_API" | "MARKER_NAME_API" | "MARKER_API" => Kind::Marker,
            "Forward" | "Backward" | "Optimization" | "Dataloader" | "Communication" => Kind::FrameworkPhase,
            "DygraphKernelLaunch" | "StaticKernelLaunch" => Kind::KernelLaunch,
            _ => Kind::Other,
        }
    }

    /// The kind of an event that has no `cat`, from its phase letter.
    pub fn from_phase_only(ph: u8) -> Kind {
        match ph {
            b'M' => Kind::Metadata,
            b'C' => Kind::Counter,
            b's' | b't' | b'f' => Kind::Flow,
            b'i' | b'I' | b'n' => Kind::Instant,
            _ => Kind::Other,
        }
    }

    /// The stable spelling used in JSON, CSV and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::CpuOp => "cpu_op",
            Kind::UserAnnotation => "user_annotation",
            Kind::GpuUserAnnotation => "gpu_user_annotation",
            Kind::PythonFunction => "python_function",
            Kind::Runtime => "runtime",
            Kind::Driver => "driver",
            Kind::Kernel => "kernel",
            Kind::Memcpy => "memcpy",
            Kind::Memset => "memset",
            Kind::CudaSync => "cuda_sync",
            Kind::LaunchFlow => "launch_flow",
            Kind::FwdBwdFlow => "fwdbwd_flow",
            Kind::ProfilerStep => "profiler_step",
            Kind::TraceSpan => "trace_span",
            Kind::Overhead => "overhead",
            Kind::CpuInstant => "cpu_instant",
            Kind::MtiaRuntime => "mtia_runtime",
            Kind::MtiaDeviceOp => "mtia_device_op",
            Kind::CudaProfilerRange => "cuda_profiler_range",
            Kind::HsaApi => "hsa_api",
            Kind::Marker => "marker",
            Kind::FrameworkPhase => "framework_phase",
            Kind::KernelLaunch => "kernel_launch",
            Kind::Metadata => "metadata",
            Kind::Counter => "counter",
            Kind::Flow => "flow",
            Kind::Instant => "instant",
            Kind::Other => "other",
        }
    }

    /// Work that runs on a GPU/accelerator queue (kernels, copies, sets, device syncs, MTIA ops).
    pub fn is_device(self) -> bool {
        matches!(self, Kind::Kernel | Kind::Memcpy | Kind::Memset | Kind::CudaSync | Kind::MtiaDeviceOp)
    }

    /// A host-side call that can launch device work and carries a correlation id.
    pub fn is_launcher(self) -> bool {
        matches!(self, Kind::Runtime | Kind::Driver | Kind::MtiaRuntime | Kind::KernelLaunch)
    }
}

/// Every kind, in declaration order (for tallies indexed by `kind as usize`).
pub const ALL_KINDS: [Kind; 28] = [
    Kind::CpuOp,
    Kind::UserAnnotation,
    Kind::GpuUserAnnotation,
    Kind::PythonFunction,
    Kind::Runtime,
    Kind::Driver,
    Kind::Kernel,
    Kind::Memcpy,
    Kind::Memset,
    Kind::CudaSync,
    Kind::LaunchFlow,
    Kind::FwdBwdFlow,
    Kind::ProfilerStep,
    Kind::TraceSpan,
    Kind::Overhead,
    Kind::CpuInstant,
    Kind::MtiaRuntime,
    Kind::MtiaDeviceOp,
    Kind::CudaProfilerRange,
    Kind::HsaApi,
    Kind::Marker,
    Kind::FrameworkPhase,
    Kind::KernelLaunch,
    Kind::Metadata,
    Kind::Counter,
    Kind::Flow,
    Kind::Instant,
    Kind::Other,
];

/// Every phase, in declaration order (`phase as usize` indexes it).
pub const ALL_PHASES: [Phase; 11] = [
    Phase::Complete,
    Phase::Begin,
    Phase::End,
    Phase::Instant,
    Phase::Counter,
    Phase::Metadata,
    Phase::FlowStart,
    Phase::FlowStep,
    Phase::FlowEnd,
    Phase::Async,
    Phase::Other,
];

/// The trace-event phase (`ph`), as in the Chrome Trace Event Format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Phase {
    /// `X`: complete event with `dur`.
    Complete,
    /// `B`: begin of a duration event.
    Begin,
    /// `E`: end of a duration event.
    End,
    /// `i`/`I`: instant event.
    Instant,
    /// `C`: counter event.
    Counter,
    /// `M`: metadata.
    Metadata,
    /// `s`: flow start.
    FlowStart,
    /// `t`: flow step.
    FlowStep,
    /// `f`: flow end.
    FlowEnd,
    /// `b`/`e`/`n`: async (nestable) begin/end/instant.
    Async,
    /// Anything else (`P` samples, `O`/`N`/`D` objects, `R` marks, ...).
    Other,
}

impl Phase {
    /// Maps the `ph` letter.
    pub fn from_letter(ph: u8) -> Phase {
        match ph {
            b'X' => Phase::Complete,
            b'B' => Phase::Begin,
            b'E' => Phase::End,
            b'i' | b'I' => Phase::Instant,
            b'C' => Phase::Counter,
            b'M' => Phase::Metadata,
            b's' => Phase::FlowStart,
            b't' => Phase::FlowStep,
            b'f' => Phase::FlowEnd,
            b'b' | b'e' | b'n' => Phase::Async,
            _ => Phase::Other,
        }
    }

    /// The phase letter as the format spells it (first spelling for shared phases).
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Complete => "X",
            Phase::Begin => "B",
            Phase::End => "E",
            Phase::Instant => "i",
            Phase::Counter => "C",
            Phase::Metadata => "M",
            Phase::FlowStart => "s",
            Phase::FlowStep => "t",
            Phase::FlowEnd => "f",
            Phase::Async => "b/e/n",
            Phase::Other => "other",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_are_in_declaration_order() {
        assert!(ALL_KINDS.iter().enumerate().all(|(i, &k)| k as usize == i));
        assert!(ALL_PHASES.iter().enumerate().all(|(i, &p)| p as usize == i));
    }

    #[test]
    fn old_and_new_spellings_agree() {
        for (old, new) in [
            ("Operator", "cpu_op"),
            ("Runtime", "cuda_runtime"),
            ("Kernel", "kernel"),
            ("Memcpy", "gpu_memcpy"),
            ("Memset", "gpu_memset"),
            ("async", "ac2g"),
        ] {
            assert_eq!(Kind::from_cat(old), Kind::from_cat(new), "{old} vs {new}");
        }
        assert_eq!(Kind::from_cat("async_cpu_to_gpu"), Kind::LaunchFlow);
        assert_eq!(Kind::from_cat("something_new"), Kind::Other);
        assert!(Kind::from_cat("mtia_ccp_events").is_device());
    }
}
