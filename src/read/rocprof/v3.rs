//! rocprofv3 (rocprofiler-sdk, ROCm ≥ 6.2) CSV traces: `kernel_trace.csv`,
//! `memory_copy_trace.csv` and the API traces (`hip_api_trace.csv`, `hsa_api_trace.csv`,
//! `marker_api_trace.csv`, `rccl_api_trace.csv`, …). One file per table per process
//! (`<pid>_kernel_trace.csv`); [`super::merge`] joins a process's files into one rank.
//!
//! Columns (found by name; others are ignored), as `generateCSV.cpp` writes them:
//! * kernel: `Kind,Agent_Id,Queue_Id,[Stream_Id,]Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,
//!   Correlation_Id,Start_Timestamp,End_Timestamp,` then `Private_Segment_Size,
//!   Group_Segment_Size` (6.2/6.3) or `LDS_Block_Size,Scratch_Size,VGPR_Count,
//!   Accum_VGPR_Count,SGPR_Count` (newer), then workgroup and grid sizes. `Agent_Id` is an
//!   integer (6.2/6.3) or `Agent 1` / `GPU 0` (`--agent-index` absolute, relative,
//!   type-relative).
//! * memory copy: `Kind,Direction,[Stream_Id,]Source_Agent_Id,Destination_Agent_Id,
//!   Correlation_Id,Start_Timestamp,End_Timestamp`.
//! * API: `Domain,Function,Process_Id,Thread_Id,Correlation_Id,Start_Timestamp,End_Timestamp`.
//!
//! Mapping: kernels → [`Kind::Kernel`] (cat = `Kind`, normally `KERNEL_DISPATCH`; name =
//! `Kernel_Name`; stream = `Queue_Id`, the HSA queue, as Kineto's ROCm traces use the queue as
//! stream; [`IntArg::Device`] = the agent number; [`IntArg::HipStream`] = `Stream_Id`; tid =
//! `Thread_Id`, the dispatching thread). Copies → [`Kind::Memcpy`] (cat = `Kind`, normally
//! `MEMORY_COPY`; name from `Direction` and the agents, see [`copy_event`] (a device-to-device copy between two agents is a peer copy, `Memcpy PtoP`); stream -1, copies run on DMA
//! engines, not queues; [`IntArg::Device`] = the GPU side's agent (destination of a
//! host-to-device copy, source of a copy from a device, none otherwise); [`IntArg::HipStream`] =
//! `Stream_Id`). API calls → kind by `Domain` (see [`domain_kind`]), cat = `Domain`, name =
//! `Function` (the message for roctx markers). Correlation = `Correlation_Id` everywhere (it
//! links a `hipLaunchKernel` to its kernel). Kernel and copy tables have no `Process_Id`; their
//! pid is filled in when the process's files are merged.

use super::records::Record;
use super::{agent, check_len, int, opt_id, opt_int, Header, HeaderError, Id, Row, RowCtx, RowError};
use crate::model::{IntArg, Kind};

/// The kind of an API trace row, from its `Domain`: `HIP_*` (runtime, compiler and their
/// `_EXT` variants) → runtime, `HSA_*` → hsa_api, `MARKER_*`/`ROCTX*` → marker, else
/// [`Kind::from_cat`] (`other` for `RCCL_API`, `ROCDECODE_API`, …).
pub fn domain_kind(domain: &str) -> Kind {
    match Kind::from_cat(domain) {
        Kind::Other if domain.starts_with("HIP_") => Kind::Runtime,
        Kind::Other if domain.starts_with("HSA_") => Kind::HsaApi,
        Kind::Other if domain.starts_with("MARKER_") || domain.starts_with("ROCTX") => Kind::Marker,
        k => k,
    }
}

/// The event name of a copy. The four directions get the names Kineto gives ROCm copies
/// (`Memcpy HtoD (Host -> Device)`, as in Kineto's `RoctracerActivityProfilerTest`), whose
/// first 11 characters are what HTA's memory-kernel classification looks at; any other
/// direction is kept as written.
pub fn copy_name(direction: &str) -> &str {
    match direction {
        "MEMORY_COPY_HOST_TO_DEVICE" => "Memcpy HtoD (Host -> Device)",
        "MEMORY_COPY_DEVICE_TO_HOST" => "Memcpy DtoH (Device -> Host)",
        "MEMORY_COPY_DEVICE_TO_DEVICE" => "Memcpy DtoD (Device -> Device)",
        "MEMORY_COPY_HOST_TO_HOST" => "Memcpy HtoH (Host -> Host)",
        other => other,
    }
}

/// Name and GPU of a copy from its direction and its source and destination agents. A
/// device-to-device copy between two different agents is a peer copy and gets Kineto's name for
/// one (`Memcpy PtoP (Device -> Device)`); otherwise the name is [`copy_name`]'s. The GPU is the
/// destination of a host-to-device copy and the source of a copy from a device (none otherwise).
pub fn copy_event(direction: &str, src: Option<i64>, dst: Option<i64>) -> (&str, Option<i64>) {
    let peer = direction == "MEMORY_COPY_DEVICE_TO_DEVICE" && matches!((src, dst), (Some(s), Some(d)) if s != d);
    let name = if peer { "Memcpy PtoP (Device -> Device)" } else { copy_name(direction) };
    let device = if direction.contains("HOST_TO_DEVICE") {
        dst
    } else if direction.contains("DEVICE_TO_") {
        src
    } else {
        None
    };
    (name, device)
}

/// Columns shared by the kernel and copy tables.
struct Common {
    n: usize,
    kind: Option<usize>,
    start: usize,
    end: usize,
    correlation: Option<usize>,
    stream: Option<usize>,
    pid: Option<usize>,
    tid: Option<usize>,
}

impl Common {
    fn new(h: &Header) -> Result<Common, HeaderError> {
        Ok(Common {
            n: h.len(),
            kind: h.col("Kind"),
            start: h.need("Start_Timestamp")?,
            end: h.need("End_Timestamp")?,
            correlation: h.col("Correlation_Id"),
            stream: h.col("Stream_Id"),
            pid: h.col("Process_Id"),
            tid: h.col("Thread_Id"),
        })
    }
}

/// Values of the shared columns of one row.
struct CommonRow<'r> {
    cat: Option<std::borrow::Cow<'r, str>>,
    start: i64,
    end: i64,
    correlation: i64,
    hip_stream: Option<i64>,
    pid: Id<'r>,
    tid: Id<'r>,
}

impl Common {
    fn read<'r>(&self, rec: &Record<'r>, cx: &mut RowCtx<'_>) -> Result<CommonRow<'r>, RowError> {
        check_len(rec, self.n)?;
        Ok(CommonRow {
            start: int(rec, self.start, "Start_Timestamp")?,
            end: int(rec, self.end, "End_Timestamp")?,
            correlation: opt_int(rec, self.correlation, "Correlation_Id")?.unwrap_or(-1),
            hip_stream: opt_int(rec, self.stream, "Stream_Id")?,
            pid: opt_id(rec, self.pid, "Process_Id")?,
            tid: opt_id(rec, self.tid, "Thread_Id")?,
            cat: self.kind.map(|i| cx.text(rec, i)).filter(|c| !c.is_empty()),
        })
    }
}

/// Column layout of a `kernel_trace.csv`.
pub struct KernelColumns {
    common: Common,
    name: usize,
    agent: Option<usize>,
    queue: Option<usize>,
}

impl KernelColumns {
    /// From the header; the error says which column is missing.
    pub fn new(h: &Header) -> Result<KernelColumns, HeaderError> {
        Ok(KernelColumns { common: Common::new(h)?, name: h.need("Kernel_Name")?, agent: h.col("Agent_Id"), queue: h.col("Queue_Id") })
    }

    /// Adds one data row; the error describes why it was skipped.
    pub fn row(&self, rec: &Record<'_>, cx: &mut RowCtx<'_>) -> Result<(), RowError> {
        let c = self.common.read(rec, cx)?;
        let device = agent(rec, self.agent, "Agent_Id")?;
        let queue = opt_int(rec, self.queue, "Queue_Id")?.unwrap_or(-1);
        let name = cx.text(rec, self.name);
        cx.add(Row {
            kind: Kind::Kernel,
            cat: c.cat.as_deref().unwrap_or("KERNEL_DISPATCH"),
            name: &name,
            start: c.start,
            end: c.end,
            pid: c.pid,
            tid: c.tid,
            stream: queue,
            correlation: c.correlation,
            args: [device.map(|d| (IntArg::Device, d)), c.hip_stream.map(|s| (IntArg::HipStream, s))],
        });
        Ok(())
    }
}

/// Column layout of a `memory_copy_trace.csv`.
pub struct CopyColumns {
    common: Common,
    direction: usize,
    src: Option<usize>,
    dst: Option<usize>,
}

impl CopyColumns {
    /// From the header; the error says which column is missing.
    pub fn new(h: &Header) -> Result<CopyColumns, HeaderError> {
        Ok(CopyColumns {
            common: Common::new(h)?,
            direction: h.need("Direction")?,
            src: h.col("Source_Agent_Id"),
            dst: h.col("Destination_Agent_Id"),
        })
    }

    /// Adds one data row; the error describes why it was skipped.
    pub fn row(&self, rec: &Record<'_>, cx: &mut RowCtx<'_>) -> Result<(), RowError> {
        let c = self.common.read(rec, cx)?;
        let src = agent(rec, self.src, "Source_Agent_Id")?;
        let dst = agent(rec, self.dst, "Destination_Agent_Id")?;
        let direction = cx.text(rec, self.direction);
        let (name, device) = copy_event(&direction, src, dst);
        cx.add(Row {
            kind: Kind::Memcpy,
            cat: c.cat.as_deref().unwrap_or("MEMORY_COPY"),
            name,
            start: c.start,
            end: c.end,
            pid: c.pid,
            tid: c.tid,
            stream: -1,
            correlation: c.correlation,
            args: [device.map(|d| (IntArg::Device, d)), c.hip_stream.map(|s| (IntArg::HipStream, s))],
        });
        Ok(())
    }
}

/// Column layout of an API trace (`*_api_trace.csv`).
pub struct ApiColumns {
    common: Common,
    domain: usize,
    function: usize,
}

impl ApiColumns {
    /// From the header; the error says which column is missing.
    pub fn new(h: &Header) -> Result<ApiColumns, HeaderError> {
        Ok(ApiColumns { common: Common::new(h)?, domain: h.need("Domain")?, function: h.need("Function")? })
    }

    /// Adds one data row; the error describes why it was skipped.
    pub fn row(&self, rec: &Record<'_>, cx: &mut RowCtx<'_>) -> Result<(), RowError> {
        let c = self.common.read(rec, cx)?;
        let domain = cx.text(rec, self.domain);
        let function = cx.text(rec, self.function);
        cx.add(Row {
            kind: domain_kind(&domain),
            cat: &domain,
            name: &function,
            start: c.start,
            end: c.end,
            pid: c.pid,
            tid: c.tid,
            stream: -1,
            correlation: c.correlation,
            args: [None, None],
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn domains() {
        assert_eq!(domain_kind("HIP_RUNTIME_API"), Kind::Runtime);
        assert_eq!(domain_kind("HIP_COMPILER_API"), Kind::Runtime);
        assert_eq!(domain_kind("HSA_AMD_EXT_API"), Kind::HsaApi);
        assert_eq!(domain_kind("MARKER_CORE_API"), Kind::Marker);
        assert_eq!(domain_kind("RCCL_API"), Kind::Other);
    }
}
