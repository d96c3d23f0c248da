//! The trace model every reader produces and every analysis reads.
//!
//! A [`Trace`] is a list of [`RankTrace`]s (one per input file, or per process for formats that
//! split one process over several files). Each rank has its own string table, an id table for
//! pids/tids, a columnar [`EventTable`], the file's metadata, raw counts of what the file
//! contained, and the link columns, each computed on its first use ([`Links`]).

pub mod column;
pub mod events;
pub mod kind;
pub mod links;
pub mod strings;
pub mod time;
pub mod windows;

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use serde::Serialize;

use crate::error::Warnings;
pub use column::{IdColumn, IntColumn, RunColumn};
pub use events::{EventId, EventTable, IdValue, IntArg, NewEvent, NONE};
pub use kind::{Kind, Phase};
pub use links::Links;
pub use strings::{StrId, Strings};

/// The input format of a file, decided from its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Format {
    /// PyTorch profiler / Kineto Chrome-trace JSON (2020–today, CUDA, ROCm, MTIA).
    Kineto,
    /// PaddlePaddle profiler Chrome-trace JSON.
    Paddle,
    /// rocprof v1 `--hip-trace`/`--hsa-trace` JSON.
    RocprofV1Json,
    /// rocprof v1 `results.csv` kernel table (`--stats`, `--timestamp on`).
    RocprofV1Csv,
    /// rocprofv3 CSV trace (`kernel_trace.csv`, `memory_copy_trace.csv`, `*_api_trace.csv`).
    RocprofV3Csv,
    /// rocprofv3 JSON (`--output-format json`, `<pid>_results.json`).
    RocprofV3Json,
    /// Any other Chrome Trace Event Format JSON.
    ChromeTrace,
    /// A Recorder HPC I/O trace folder (`recorder.mt`, call signatures, grammars, timestamps).
    Recorder,
}

impl Format {
    /// Every format, in the order docs/formats.md lists them.
    pub const ALL: [Format; 8] = [
        Format::Kineto,
        Format::Paddle,
        Format::RocprofV1Json,
        Format::RocprofV1Csv,
        Format::RocprofV3Csv,
        Format::RocprofV3Json,
        Format::ChromeTrace,
        Format::Recorder,
    ];

    /// Stable spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Kineto => "kineto",
            Format::Paddle => "paddle",
            Format::RocprofV1Json => "rocprof_v1_json",
            Format::RocprofV1Csv => "rocprof_v1_csv",
            Format::RocprofV3Csv => "rocprof_v3_csv",
            Format::RocprofV3Json => "rocprof_v3_json",
            Format::ChromeTrace => "chrome_trace",
            Format::Recorder => "recorder",
        }
    }
}

/// `distributedInfo` of a Kineto trace.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct DistributedInfo {
    /// `rank`.
    pub rank: Option<i64>,
    /// `world_size`.
    pub world_size: Option<i64>,
    /// `backend` (`nccl`, `gloo`, `mtia:hccl,cpu:gloo`, ...).
    pub backend: Option<String>,
}

/// One entry of `deviceProperties` (Kineto) or `computeProperties` (older TensorBoard samples).
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct DeviceProperties {
    /// `id`.
    pub id: Option<i64>,
    /// `name` (e.g. "NVIDIA A100-SXM4-80GB", "AMD Radeon Graphics").
    pub name: Option<String>,
    /// `totalGlobalMem`, bytes.
    pub total_global_mem: Option<i64>,
    /// `computeMajor`.`computeMinor`.
    pub compute: Option<String>,
    /// `numSms`.
    pub num_sms: Option<i64>,
}

/// File-level metadata (top-level keys other than the events).
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct TraceMeta {
    /// `schemaVersion` as text.
    pub schema_version: Option<String>,
    /// `displayTimeUnit` (display only; times are µs regardless).
    pub display_time_unit: Option<String>,
    /// `baseTimeNanoseconds`: Unix time (ns) of ts = 0 in newer Kineto traces.
    pub base_time_ns: Option<i64>,
    /// `distributedInfo`.
    pub distributed: Option<DistributedInfo>,
    /// `deviceProperties`.
    pub devices: Vec<DeviceProperties>,
    /// `traceName`.
    pub trace_name: Option<String>,
    /// Every top-level key, in file order.
    pub top_level_keys: Vec<String>,
    /// Whether the file used the bare-array form (`[...]`) rather than `{"traceEvents": [...]}`.
    pub bare_array: bool,
    /// Whether the file was gzip-compressed, and how many gzip members it had.
    pub gzip_members: u32,
    /// Some event (of any phase, metadata included) had a non-integer or missing `ts`. HTA
    /// rounds every time to whole µs exactly when this holds (SPEC §1.2 step 3).
    pub ts_fractional_or_missing: bool,
}

/// What the file contained, counted while reading (before any filtering).
#[derive(Debug, Clone, Default, Serialize)]
pub struct EventCounts {
    /// Trace events read (empty `{}` placeholders not counted).
    pub events: u64,
    /// Empty `{}` placeholders seen.
    pub empty_placeholders: u64,
    /// Events per kind (every counted event has exactly one kind).
    pub kinds: BTreeMap<String, u64>,
    /// Events per raw `cat` (events without `cat` are not in this map).
    pub categories: BTreeMap<String, u64>,
    /// Events per `ph` letter (`"?"` when absent).
    pub phases: BTreeMap<String, u64>,
}

/// Everything read from one rank.
#[derive(Debug, Clone, Default)]
pub struct RankTrace {
    /// Rank number (assigned by [`crate::read::assemble`]).
    pub rank: u32,
    /// Input file names (usually one).
    pub files: Vec<String>,
    /// Input size in bytes (as given, compressed if gzip).
    pub input_bytes: u64,
    /// Detected format.
    pub format: Option<Format>,
    /// File-level metadata.
    pub meta: TraceMeta,
    /// Interned strings of this rank.
    pub strings: Strings,
    /// Distinct pid/tid values; `EventTable::pid`/`tid` index into this.
    pub ids: IdTable,
    /// The events.
    pub events: EventTable,
    /// Process names from `process_name` metadata, by pid index.
    pub process_names: FxHashMap<u32, String>,
    /// Thread names from `thread_name` metadata, by (pid index, tid index).
    pub thread_names: FxHashMap<(u32, u32), String>,
    /// Raw counts of what the file contained.
    pub counts: EventCounts,
    /// Recoverable problems met while reading this rank.
    pub warnings: Warnings,
    /// Profiler steps (found by [`crate::read::assemble`]).
    pub steps: Vec<links::Step>,
    /// Link columns, each computed on first use (see [`Links`]).
    pub(crate) links: Links,
    /// Each row's CPU operator, computed on first use (see [`RankTrace::ops`]).
    pub(crate) ops: std::sync::OnceLock<Vec<EventId>>,
}

/// Distinct pid/tid values of a rank.
#[derive(Debug, Clone, Default)]
pub struct IdTable {
    index: FxHashMap<IdValue, u32>,
    values: Vec<IdValue>,
}

impl IdTable {
    /// Returns the index of `v`, adding it if new.
    pub fn intern(&mut self, v: IdValue) -> u32 {
        if let Some(&i) = self.index.get(&v) {
            return i;
        }
        let i = self.values.len() as u32;
        self.values.push(v.clone());
        self.index.insert(v, i);
        i
    }

    /// The value at index `i`.
    pub fn get(&self, i: u32) -> Option<&IdValue> {
        self.values.get(i as usize)
    }

    /// Every value, by index.
    pub fn values(&self) -> &[IdValue] {
        &self.values
    }

    /// Number of distinct values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether empty.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl RankTrace {
    /// Launch ↔ device work by correlation ([`Links`]' `launch`), computed once on the first call.
    pub fn launch_links(&self) -> &[EventId] {
        self.links.launch.get_or_init(|| links::launches(self))
    }

    /// Nesting on each thread ([`Links`]' `parent`), computed once on the first call.
    pub fn parent_links(&self) -> &[EventId] {
        self.links.parent.get_or_init(|| links::parents(self))
    }

    /// Step membership ([`Links`]' `step`), computed once on the first call.
    pub fn step_links(&self) -> &[i32] {
        self.links.step.get_or_init(|| links::steps(self, self.launch_links()))
    }

    /// Every link column, computed now if not yet (`analyze` builds them on a thread of their own
    /// before its analyses).
    pub fn compute_links(&self) {
        self.step_links();
        self.parent_links();
    }

    /// Launcher and device rows: the CPU operator with the same `External id`; `NONE` for the
    /// others. Computed once on the first call, apart from the [`Links`] (4 bytes a row that no
    /// analysis needs).
    pub fn ops(&self) -> &[EventId] {
        self.ops.get_or_init(|| links::ops(self))
    }

    /// Text of an id (pid/tid) as the file wrote it.
    pub fn id_text(&self, i: u32) -> String {
        match self.ids.get(i) {
            Some(IdValue::Int(v)) => v.to_string(),
            Some(IdValue::Str(s)) => self.strings.get(*s).to_string(),
            None => String::new(),
        }
    }

    /// Name of row `e`.
    pub fn name(&self, e: EventId) -> &str {
        self.strings.get(self.events.name.get(e as usize))
    }

    /// Name of row `e` as the file wrote it, with its timing suffix (see
    /// [`EventTable::name_suffix`]); a traced call with arguments as recorder2text prints it
    /// (`write ( /tmp/a %p 4096 )`, see [`EventTable::call_args`]).
    pub fn full_name(&self, e: EventId) -> std::borrow::Cow<'_, str> {
        if let Some(args) = self.events.call_args(e) {
            return format!("{} ( {} )", self.name(e), self.strings.get(args)).into();
        }
        match self.events.name_suffix(e) {
            Some(sfx) => format!("{}{sfx}", self.name(e)).into(),
            None => self.name(e).into(),
        }
    }

    /// The call arguments of row `e` (see [`EventTable::call_args`]): none for other events.
    pub fn call_args(&self, e: EventId) -> std::str::Split<'_, char> {
        let text = self.events.call_args(e).map_or("", |a| self.strings.get(a));
        let mut it = text.split(' ');
        if text.is_empty() {
            it.next();
        }
        it
    }

    /// Category of row `e`.
    pub fn cat(&self, e: EventId) -> &str {
        self.strings.get(self.events.cat.get(e as usize))
    }
}

/// The last component of a file path as the trace names it (`/` or `\` separated).
pub fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// A whole (possibly multi-rank) trace.
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Ranks sorted by rank number.
    pub ranks: Vec<RankTrace>,
    /// Problems that concern several files (duplicate ranks, ...).
    pub warnings: Warnings,
}
