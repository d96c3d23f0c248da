//! A trace an analysis produces: one rank of the input written back as Chrome-trace JSON with what
//! the analysis adds (counter tracks, marks on events, HTA's name compression). The analysis says
//! what to add; `crate::export::trace_files` writes the file (gzip-compressed, as HTA does).

use std::collections::BTreeMap;

/// One counter sample: a Chrome counter event (`ph: "C"`) appended to the trace.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterSample {
    /// Track name: `Queue Length` or a memory type (`Memcpy HtoD`).
    pub name: std::borrow::Cow<'static, str>,
    /// Args key of the value: `Queue Length` or `Memcpy BW`.
    pub counter: &'static str,
    /// pid of the GPU rows (index into `RankTrace::ids`).
    pub pid: u32,
    /// Stream of a queue-length track.
    pub id: Option<i64>,
    /// Time on the trace's own clock, ns.
    pub ts_ns: i64,
    /// Value (operations queued, or GB/s).
    pub value: f64,
}

/// HTA's `compress_other_kernels`: every complete event that is not marked loses its args, and,
/// when the trace has a `PyTorch Profiler` span to hold the table, its name is replaced by its
/// index in `symbols` (the span's args map indexes to names).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CompactNames {
    /// Row of the `PyTorch Profiler` span (pid `Spans`) that holds the symbol table, if any.
    pub span: Option<u32>,
    /// The symbols, sorted: categories and names of the rows HTA loads.
    pub symbols: Vec<String>,
}

/// Args added to events: row → `(key, JSON value)` pairs.
pub type Marks = BTreeMap<u32, Vec<(String, serde_json::Value)>>;

/// A flow event (`ph: "s"` / `"f"`) appended to the trace: one end of an arrow viewers draw
/// between two events (HTA's `Trace.flow_event`).
#[derive(Debug, Clone, PartialEq)]
pub struct FlowEvent {
    /// Arrow id (the two ends share it).
    pub id: u64,
    /// pid of the event the end binds to (index into `RankTrace::ids`).
    pub pid: u32,
    /// tid of that event.
    pub tid: u32,
    /// Time, µs on the trace's own clock, as written.
    pub ts_us: f64,
    /// Start (`s`) or finish (`f`, written with `"bp": "e"`: binds to the enclosing event).
    pub start: bool,
    /// Name.
    pub name: String,
    /// Category.
    pub cat: String,
    /// `args.weight`, µs.
    pub weight: f64,
    /// `args.critical`.
    pub critical: bool,
}

/// A trace to write: which rank, under which name, with what added.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TraceOut {
    /// File name, e.g. `rank0_with_counters.json.gz` or `overlaid_trace.json.gz`.
    pub name: String,
    /// Position of the rank in `Trace::ranks`.
    pub rank: usize,
    /// Counter events appended after the trace's events.
    pub counters: Vec<CounterSample>,
    /// Args added to events: row → `(key, JSON value)` pairs (HTA's `Patterns`).
    pub marks: Marks,
    /// Names of the other events compressed, as HTA does.
    pub compact: Option<CompactNames>,
    /// Members added to events' `args` themselves: row → `(key, JSON value)` (HTA's
    /// `args.critical = 1`).
    pub args: Marks,
    /// Flow events appended after the trace's events.
    pub flows: Vec<FlowEvent>,
    /// Keep only the complete events that [`TraceOut::args`] marks, and annotations and Python
    /// frames (HTA's `only_show_critical_events`); other phases stay.
    pub only_marked: bool,
}
