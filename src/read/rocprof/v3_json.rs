//! rocprofv3 JSON (`rocprofv3 --output-format json`, file `<pid>_results.json`).
//!
//! Layout, as `source/lib/output/generateJSON.cpp` (ROCm/rocprofiler-sdk) writes it and
//! `rocprofv3-schema.json` describes it:
//!
//! ```text
//! {"rocprofiler-sdk-tool": [            one element per process
//!   { "metadata": {"pid", "init_time", "fini_time", "config", "command"},
//!     "agents": [{"id": {"handle"}, "type", "node_id", "logical_node_id", "name", …}],
//!     "counters": [...],
//!     "strings": {"callback_records": [...],
//!                 "buffer_records": [{"kind": "HIP_RUNTIME_API", "operations": ["hipMalloc", …]}, …],
//!                 "marker_api": [{"key": <correlation id>, "value": <message>}], …},
//!     "code_objects": [...], "kernel_symbols": [{"kernel_id", "kernel_name",
//!                 "formatted_kernel_name", "demangled_kernel_name", "truncated_kernel_name", …}],
//!     "summary": [...], "callback_records": {...},
//!     "buffer_records": {"kernel_dispatch": [...], "hip_api": [...], "hsa_api": [...],
//!                 "marker_api": [...], "rccl_api": [...], "memory_copy": [...],
//!                 "memory_allocation": [...], "scratch_memory": [...], …} } ]}
//! ```
//!
//! A buffer record has `kind` and `operation` (indices: `strings.buffer_records[kind]` gives the
//! kind's name and its `operations`), `correlation_id` `{internal, external}`,
//! `start_timestamp`, `end_timestamp` (integer ns) and `thread_id`; a kernel dispatch also has
//! `dispatch_info` `{agent_id{handle}, queue_id{handle}, kernel_id, dispatch_id, …}`, a copy
//! `src_agent_id`/`dst_agent_id` `{handle}` and `bytes`; both may have `stream_id` `{handle}`.
//!
//! Mapping: exactly as the CSV reader ([`super::v3`]) maps the `kernel_trace.csv`,
//! `memory_copy_trace.csv` and `*_api_trace.csv` that rocprofv3 writes from the same records:
//! * `kernel_dispatch` → [`Kind::Kernel`], cat = the kind's name (`KERNEL_DISPATCH`), name =
//!   the kernel symbol's `formatted_kernel_name` (what `Kernel_Name` holds; else
//!   `demangled_kernel_name`, `kernel_name`, `truncated_kernel_name`, else `kernel <id>`),
//!   stream = `queue_id.handle`, [`IntArg::Device`] = the agent's `node_id` (the number in
//!   CSV's `Agent_Id`), [`IntArg::HipStream`] = `stream_id.handle`;
//! * `memory_copy` → [`Kind::Memcpy`], cat = `MEMORY_COPY`, name from the operation
//!   (`MEMORY_COPY_HOST_TO_DEVICE` → `Memcpy HtoD (Host -> Device)`, see [`super::v3::copy_event`]; a device-to-device copy between two agents is `Memcpy PtoP (Device -> Device)`),
//!   stream -1, [`IntArg::Device`] = the GPU side's agent, [`IntArg::HipStream`] as above, and
//!   [`IntArg::Bytes`] = `bytes` (not in the CSV);
//! * `*_api` tables (`hip_api`, `hsa_api`, `marker_api`, `rccl_api`, …) → kind by the kind's
//!   name ([`super::v3::domain_kind`]), cat = that name (`HIP_RUNTIME_API`), name = the
//!   operation's name; for markers the message from `strings.marker_api` (by internal
//!   correlation id) when there is one, as the CSV's `Function` column.
//!
//! Everywhere: correlation = `correlation_id.internal`, pid = `metadata.pid`, tid =
//! `thread_id`, phase `X`, times as written. Other tables (`memory_allocation`,
//! `scratch_memory`, `pc_sample_*`, counter collection) are not read, as in the CSV reader.
//! Rows keep file order (table by table); `index` counts records read across all tables.
//!
//! **Buffered, not streamed.** Unlike every other reader, this one keeps the whole
//! (decompressed) file in memory and reads it at the end: the records are nested three levels
//! deep, and they need lookup tables (`strings`, `agents`, `kernel_symbols`) that the format
//! does not promise to put first. The bytes are never turned into a tree: [`ObjectReader`] and
//! [`array_elements`] walk raw spans of the buffer, and only the small lookup tables are
//! copied out.
//!
//! Damage: a record that is not an object, is not valid JSON or lacks its times is skipped with
//! a counted [`WarningKind::MalformedEvent`] (byte offset of the record). A document without a
//! `rocprofiler-sdk-tool` array, or whose structure around the records cannot be read, is
//! refused with a [`ReadError`].

use std::borrow::Cow;

use rustc_hash::FxHashMap;

use super::error::RecordError;
use super::v3::{copy_event, domain_kind};
use super::{Id, Row, RowCtx};
use crate::error::{ReadError, WarningKind};
use crate::model::{IntArg, Kind, RankTrace};
use crate::read::json::{array_elements, parse_int, JVal, JsonError, ObjectReader};

/// Buffers a rocprofv3 JSON file and reads it at the end (see the module docs).
#[derive(Default)]
pub struct V3JsonReader {
    buf: Vec<u8>,
}

/// What the top level must hold.
const EXPECTED_TOP: &str = "a rocprofv3 JSON document {\"rocprofiler-sdk-tool\": [...]}";

impl V3JsonReader {
    /// Keeps decompressed bytes (any chunk size).
    pub fn push(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    /// Reads the buffered document into `rank`.
    pub fn finish(&mut self, rank: &mut RankTrace, file: &str) -> Result<(), ReadError> {
        let buf = std::mem::take(&mut self.buf);
        let r = read_document(&buf, rank, file);
        rank.events.int_args.sort_by_key(|a| a.0);
        r
    }
}

/// Offset of `sub` (a slice of `base`) in `base`.
fn offset_in(base: &[u8], sub: &[u8]) -> u64 {
    (sub.as_ptr() as usize).saturating_sub(base.as_ptr() as usize) as u64
}

fn json_err(base: &[u8], span: &[u8], e: JsonError, what: &str) -> ReadError {
    let at = offset_in(base, span) + e.at as u64;
    let found = crate::error::excerpt(base.get(at as usize..).unwrap_or_default());
    ReadError::new(at, format!("{} ({what})", e.expected), found)
}

fn read_document(buf: &[u8], rank: &mut RankTrace, file: &str) -> Result<(), ReadError> {
    let start = if buf.starts_with(&[0xef, 0xbb, 0xbf]) { 3 } else { 0 };
    let doc = &buf[start..];
    let mut top = ObjectReader::new(doc).map_err(|e| json_err(buf, doc, e, "the top-level object"))?;
    let mut processes = None;
    loop {
        let entry = top.next_entry().map_err(|e| json_err(buf, doc, e, "the top-level object"))?;
        let Some((key, val)) = entry else { break };
        rank.meta.top_level_keys.push(key.to_string());
        if key == "rocprofiler-sdk-tool" && processes.is_none() {
            match val {
                JVal::Array(a) => processes = Some(a),
                other => {
                    return Err(ReadError::new(start as u64, "\"rocprofiler-sdk-tool\" to be an array of processes", other.type_name()))
                }
            }
        }
    }
    let Some(processes) = processes else {
        return Err(ReadError::new(start as u64, EXPECTED_TOP, "no \"rocprofiler-sdk-tool\" key"));
    };
    let elements = array_elements(processes).map_err(|e| json_err(buf, processes, e, "the \"rocprofiler-sdk-tool\" array"))?;
    let mut index = 0u32;
    for el in elements {
        match el {
            JVal::Object(p) => read_process(buf, p, rank, file, &mut index)?,
            other => {
                return Err(ReadError::new(
                    offset_in(buf, processes),
                    "\"rocprofiler-sdk-tool\" elements to be objects (one per process)",
                    other.type_name(),
                ))
            }
        }
    }
    Ok(())
}

/// Lookup tables of one process.
#[derive(Default)]
struct Tables {
    pid: Option<i64>,
    /// `strings.buffer_records`: kind name and operation names, by kind index.
    kinds: Vec<(String, Vec<String>)>,
    /// agent handle → node id.
    agents: FxHashMap<i64, i64>,
    /// kernel id → name.
    kernels: FxHashMap<i64, String>,
    /// correlation id → roctx message.
    markers: FxHashMap<i64, String>,
}

fn num(v: &JVal<'_>) -> Option<i64> {
    match v {
        JVal::Num(n) => parse_int(n),
        _ => None,
    }
}

/// `key` of a raw object (first occurrence), as an integer.
fn obj_int(raw: &[u8], key: &str) -> Option<i64> {
    let mut r = ObjectReader::new(raw).ok()?;
    while let Ok(Some((k, v))) = r.next_entry() {
        if k == key {
            return num(&v);
        }
    }
    None
}

fn str_of(v: JVal<'_>) -> Option<String> {
    match v {
        JVal::Str(s) => Some(s.into_owned()),
        _ => None,
    }
}

fn read_process(buf: &[u8], p: &[u8], rank: &mut RankTrace, file: &str, index: &mut u32) -> Result<(), ReadError> {
    let what = "a rocprofv3 process object";
    let mut r = ObjectReader::new(p).map_err(|e| json_err(buf, p, e, what))?;
    let mut t = Tables::default();
    let mut records: Option<&[u8]> = None;
    while let Some((key, val)) = r.next_entry().map_err(|e| json_err(buf, p, e, what))? {
        match (&*key, val) {
            ("metadata", JVal::Object(m)) => t.pid = obj_int(m, "pid"),
            ("agents", JVal::Array(a)) => t.agents = agents(a),
            ("strings", JVal::Object(s)) => strings(s, &mut t),
            ("kernel_symbols", JVal::Array(a)) => t.kernels = kernel_symbols(a),
            ("buffer_records", JVal::Object(b)) => records = Some(b),
            _ => {}
        }
    }
    let Some(records) = records else { return Ok(()) };
    let what = "the \"buffer_records\" object";
    let mut r = ObjectReader::new(records).map_err(|e| json_err(buf, records, e, what))?;
    while let Some((key, val)) = r.next_entry().map_err(|e| json_err(buf, records, e, what))? {
        let table = match &*key {
            "kernel_dispatch" => Table::Kernel,
            "memory_copy" => Table::Copy,
            k if k.ends_with("_api") => Table::Api,
            _ => continue,
        };
        let JVal::Array(a) = val else { continue };
        let els = array_elements(a).map_err(|e| json_err(buf, a, e, "a buffer_records table"))?;
        for el in els {
            let i = *index;
            *index = index.saturating_add(1);
            let (offset, res) = match el {
                JVal::Object(o) => (offset_in(buf, o), record(o, table, &t, rank, file, offset_in(buf, o), i)),
                other => (offset_in(buf, a), Err(RecordError::NotAnObject(other.type_name()))),
            };
            if let Err(detail) = res {
                rank.warnings.add(WarningKind::MalformedEvent, file, offset, || format!("{key} record {i} (byte {offset}): {detail}"));
            }
        }
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Table {
    Kernel,
    Copy,
    Api,
}

fn agents(a: &[u8]) -> FxHashMap<i64, i64> {
    let mut out = FxHashMap::default();
    for el in array_elements(a).unwrap_or_default() {
        let JVal::Object(o) = el else { continue };
        let Ok(mut r) = ObjectReader::new(o) else { continue };
        let (mut handle, mut node) = (None, None);
        while let Ok(Some((k, v))) = r.next_entry() {
            match (&*k, v) {
                ("id", JVal::Object(id)) => handle = obj_int(id, "handle"),
                ("node_id", v) => node = num(&v),
                _ => {}
            }
        }
        if let (Some(h), Some(n)) = (handle, node) {
            out.insert(h, n);
        }
    }
    out
}

fn strings(s: &[u8], t: &mut Tables) {
    let Ok(mut r) = ObjectReader::new(s) else { return };
    while let Ok(Some((k, v))) = r.next_entry() {
        match (&*k, v) {
            ("buffer_records", JVal::Array(a)) => {
                for el in array_elements(a).unwrap_or_default() {
                    let (mut kind, mut ops) = (String::new(), Vec::new());
                    if let JVal::Object(o) = el {
                        if let Ok(mut kr) = ObjectReader::new(o) {
                            while let Ok(Some((k, v))) = kr.next_entry() {
                                match (&*k, v) {
                                    ("kind", v) => kind = str_of(v).unwrap_or_default(),
                                    ("operations", JVal::Array(ops_raw)) => {
                                        ops = array_elements(ops_raw)
                                            .unwrap_or_default()
                                            .into_iter()
                                            .map(|o| str_of(o).unwrap_or_default())
                                            .collect()
                                    }
                                    _ => {}
                                }
                            }
                        }
                    }
                    // keep the position even for a damaged entry: the index is the kind number
                    t.kinds.push((kind, ops));
                }
            }
            ("marker_api", JVal::Array(a)) => {
                for el in array_elements(a).unwrap_or_default() {
                    let JVal::Object(o) = el else { continue };
                    let Ok(mut mr) = ObjectReader::new(o) else { continue };
                    let (mut key, mut value) = (None, None);
                    while let Ok(Some((k, v))) = mr.next_entry() {
                        match &*k {
                            "key" => key = num(&v),
                            "value" => value = str_of(v),
                            _ => {}
                        }
                    }
                    if let (Some(k), Some(v)) = (key, value) {
                        t.markers.entry(k).or_insert(v);
                    }
                }
            }
            _ => {}
        }
    }
}

fn kernel_symbols(a: &[u8]) -> FxHashMap<i64, String> {
    let mut out = FxHashMap::default();
    for el in array_elements(a).unwrap_or_default() {
        let JVal::Object(o) = el else { continue };
        let Ok(mut r) = ObjectReader::new(o) else { continue };
        let mut id = None;
        // by preference: formatted, demangled, mangled, truncated
        let mut names: [Option<String>; 4] = Default::default();
        while let Ok(Some((k, v))) = r.next_entry() {
            let slot = match &*k {
                "kernel_id" => {
                    id = num(&v);
                    continue;
                }
                "formatted_kernel_name" => 0,
                "demangled_kernel_name" => 1,
                "kernel_name" => 2,
                "truncated_kernel_name" => 3,
                _ => continue,
            };
            names[slot] = str_of(v).filter(|s| !s.is_empty());
        }
        if let (Some(id), Some(name)) = (id, names.into_iter().flatten().next()) {
            out.entry(id).or_insert(name);
        }
    }
    out
}

/// Fields of one buffer record.
#[derive(Default)]
struct Rec {
    kind: Option<i64>,
    operation: Option<i64>,
    start: Option<i64>,
    end: Option<i64>,
    correlation: Option<i64>,
    tid: Option<i64>,
    stream: Option<i64>,
    kernel_id: Option<i64>,
    agent: Option<i64>,
    queue: Option<i64>,
    src: Option<i64>,
    dst: Option<i64>,
    bytes: Option<i64>,
}

fn int_field(v: &JVal<'_>, name: &'static str) -> Result<i64, RecordError> {
    num(v).ok_or_else(|| RecordError::NotAnInteger { field: name, found: v.type_name() })
}

fn handle(v: &JVal<'_>, name: &'static str) -> Result<Option<i64>, RecordError> {
    match v {
        JVal::Object(o) => Ok(obj_int(o, "handle")),
        JVal::Null => Ok(None),
        other => Err(RecordError::NotAHandle { field: name, found: other.type_name() }),
    }
}

fn parse_record(o: &[u8]) -> Result<Rec, RecordError> {
    let mut r = ObjectReader::new(o)?;
    let mut rec = Rec::default();
    while let Some((k, v)) = r.next_entry()? {
        match &*k {
            "kind" => rec.kind = Some(int_field(&v, "kind")?),
            "operation" => rec.operation = Some(int_field(&v, "operation")?),
            "start_timestamp" => rec.start = Some(int_field(&v, "start_timestamp")?),
            "end_timestamp" => rec.end = Some(int_field(&v, "end_timestamp")?),
            "thread_id" => rec.tid = Some(int_field(&v, "thread_id")?),
            "bytes" => rec.bytes = num(&v),
            "correlation_id" => match v {
                JVal::Object(c) => rec.correlation = obj_int(c, "internal"),
                other => rec.correlation = num(&other),
            },
            "stream_id" => rec.stream = handle(&v, "stream_id")?,
            "src_agent_id" => rec.src = handle(&v, "src_agent_id")?,
            "dst_agent_id" => rec.dst = handle(&v, "dst_agent_id")?,
            "dispatch_info" => {
                let JVal::Object(d) = v else { return Err(RecordError::DispatchInfo(v.type_name())) };
                let mut dr = ObjectReader::new(d)?;
                while let Some((k, v)) = dr.next_entry()? {
                    match &*k {
                        "kernel_id" => rec.kernel_id = Some(int_field(&v, "kernel_id")?),
                        "agent_id" => rec.agent = handle(&v, "agent_id")?,
                        "queue_id" => rec.queue = handle(&v, "queue_id")?,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(rec)
}

fn record(o: &[u8], table: Table, t: &Tables, rank: &mut RankTrace, file: &str, offset: u64, index: u32) -> Result<(), RecordError> {
    let rec = parse_record(o)?;
    let start = rec.start.ok_or(RecordError::NoStart)?;
    let end = rec.end.ok_or(RecordError::NoEnd)?;
    let kind_names = rec.kind.and_then(|k| usize::try_from(k).ok()).and_then(|k| t.kinds.get(k));
    let kind_name = kind_names.map(|k| k.0.as_str()).filter(|s| !s.is_empty());
    let op_name = || -> Cow<'_, str> {
        match (kind_names, rec.operation) {
            (Some((_, ops)), Some(op)) if op >= 0 && (op as usize) < ops.len() => Cow::Borrowed(ops[op as usize].as_str()),
            (_, Some(op)) => Cow::Owned(format!("operation {op}")),
            _ => Cow::Borrowed(""),
        }
    };
    let node = |h: Option<i64>| h.and_then(|h| t.agents.get(&h).copied());
    let pid = t.pid.map(Id::Int).unwrap_or(Id::Missing);
    let tid = rec.tid.map(Id::Int).unwrap_or(Id::Missing);
    let correlation = rec.correlation.unwrap_or(-1);
    let hip_stream = rec.stream.map(|s| (IntArg::HipStream, s));
    let mut cx = RowCtx { rank, file, offset, index };
    match table {
        Table::Kernel => {
            let kernel_id = rec.kernel_id.ok_or(RecordError::NoKernelId)?;
            let name: Cow<'_, str> = match t.kernels.get(&kernel_id) {
                Some(n) => Cow::Borrowed(n.as_str()),
                None => Cow::Owned(format!("kernel {kernel_id}")),
            };
            cx.add(Row {
                kind: Kind::Kernel,
                cat: kind_name.unwrap_or("KERNEL_DISPATCH"),
                name: &name,
                start,
                end,
                pid,
                tid,
                stream: rec.queue.unwrap_or(-1),
                correlation,
                args: [node(rec.agent).map(|d| (IntArg::Device, d)), hip_stream],
            });
        }
        Table::Copy => {
            let direction = op_name();
            let (name, device) = copy_event(&direction, node(rec.src), node(rec.dst));
            cx.add(Row {
                kind: Kind::Memcpy,
                cat: kind_name.unwrap_or("MEMORY_COPY"),
                name,
                start,
                end,
                pid,
                tid,
                stream: -1,
                correlation,
                args: [device.map(|d| (IntArg::Device, d)), hip_stream],
            });
            if let Some(b) = rec.bytes {
                let e = (cx.rank.events.len() - 1) as u32;
                cx.rank.events.push_int_arg(e, IntArg::Bytes, b);
            }
        }
        Table::Api => {
            let domain = kind_name.ok_or(RecordError::UnknownKind(rec.kind))?;
            let kind = domain_kind(domain);
            let op = op_name();
            let message = if kind == Kind::Marker { rec.correlation.and_then(|c| t.markers.get(&c)) } else { None };
            let name = message.map(String::as_str).unwrap_or(&op);
            cx.add(Row { kind, cat: domain, name, start, end, pid, tid, stream: -1, correlation, args: [None, None] });
        }
    }
    Ok(())
}
