//! rocprof readers (AMD): rocprof v1 `results.csv` kernel tables, rocprofv3 CSV and JSON traces, the
//! post-processing of rocprof v1 `--hip-trace` JSON (read by the Chrome-trace reader), and the
//! merging of one process's rocprofv3 files into one rank.
//!
//! Supported tables, recognised by their header line only (never by file name):
//!
//! | table | written by | rows become |
//! |---|---|---|
//! | `results.csv` (`Index,KernelName,gpu-id,…,BeginNs,EndNs,…`) | rocprof v1 `--stats`/`--timestamp on` | [`Kind::Kernel`], see [`v1`] |
//! | `kernel_trace.csv` (`Kind,Agent_Id,Queue_Id,…,Kernel_Name,…`) | rocprofv3 `--kernel-trace` | [`Kind::Kernel`], see [`v3`] |
//! | `memory_copy_trace.csv` (`Kind,Direction,…`) | rocprofv3 `--memory-copy-trace` | [`Kind::Memcpy`] |
//! | `*_api_trace.csv` (`Domain,Function,Process_Id,…`) | rocprofv3 `--hip-trace`, `--hsa-trace`, `--marker-trace`, … | by `Domain` |
//! | `<pid>_results.json` (`{"rocprofiler-sdk-tool": [...]}`) | rocprofv3 `--output-format json` | the same rows, see [`v3_json`] (detected by its first key; buffered, not streamed) |
//!
//! Every row is one complete event (phase `X`); times are integer ns as written (no scaling).
//! Columns are found by name, so their order and extra columns do not matter. A row with the
//! wrong number of fields or an unreadable number is skipped with a counted
//! [`WarningKind::BadCsvRow`] (byte offset of the row). `counts.events` is the number of rows
//! kept. Tables we recognise but cannot use (statistics, counter collection, v1 tables without
//! timestamps, other rocprofv3 tables) are refused with an error naming the table.
//! What an unusable header, a skipped row or a skipped JSON record says is written in one place,
//! `error.rs` ([`HeaderError`], [`RowError`], and the JSON reader's `RecordError`).
//!
//! Sources: rocprof v1 `bin/tblextr.py` and `bin/sqlitedb.py` (ROCm/rocprofiler);
//! rocprofv3 `source/lib/output/generateCSV.cpp` (ROCm/rocprofiler-sdk).

mod error;
pub mod merge;
pub mod records;
pub mod v1;
pub mod v3;
pub mod v3_json;

use std::borrow::Cow;

use crate::error::{ReadError, WarningKind};
use crate::model::events::flags;
use crate::model::{Format, IdValue, IntArg, Kind, NewEvent, Phase, RankTrace, Strings};
use records::{Record, Splitter};

pub use error::{HeaderError, RowError};
pub use merge::merge_process_files;
pub use v1::classify_v1_json;

/// rocprof tables that are recognised from their header but hold no trace events.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsupported {
    /// `results.stats.csv`, `*_stats.csv` (`Name,Calls,TotalDurationNs,…`).
    Stats,
    /// rocprofv3 `counter_collection.csv` (`…,Counter_Name,Counter_Value`).
    Counters,
    /// rocprof v1 `results.csv` written without `--timestamp on` (no `BeginNs`/`EndNs`).
    V1NoTimestamps,
    /// rocprofv3 `agent_info.csv`.
    AgentInfo,
    /// Another rocprofv3 table with timestamps (`memory_allocation_trace`, `scratch_memory_trace`, …).
    V3Other,
}

impl Unsupported {
    /// What the table is, for the error message.
    pub fn describe(self) -> &'static str {
        match self {
            Unsupported::Stats => "a rocprof statistics table (Name,Calls,TotalDurationNs,…: results.stats.csv or *_stats.csv), which holds totals, not events",
            Unsupported::Counters => "a rocprofv3 counter_collection table (one row per dispatch and counter), which is not read yet",
            Unsupported::V1NoTimestamps => "a rocprof v1 results.csv without BeginNs/EndNs (profile again with --timestamp on)",
            Unsupported::AgentInfo => "a rocprofv3 agent_info table (agent properties, no events)",
            Unsupported::V3Other => "a rocprofv3 table other than kernel_trace, memory_copy_trace and *_api_trace (e.g. memory_allocation_trace, scratch_memory_trace), which is not read yet",
        }
    }
}

/// What the reader accepts, for error messages.
pub const SUPPORTED_TABLES: &str =
    "a rocprof trace table: v1 results.csv with timestamps, or rocprofv3 kernel_trace.csv, memory_copy_trace.csv, *_api_trace.csv";

/// Which rocprof CSV table a header line announces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CsvKind {
    /// rocprof v1 `results.csv` (`Index,KernelName,gpu-id,...,BeginNs,EndNs,...`).
    V1Results,
    /// rocprofv3 `kernel_trace.csv`.
    V3Kernel,
    /// rocprofv3 `memory_copy_trace.csv`.
    V3MemoryCopy,
    /// rocprofv3 API traces (`hip_api_trace.csv`, `hsa_api_trace.csv`, `marker_api_trace.csv`, ...).
    V3Api,
    /// A rocprof table we recognise but do not read; the reader refuses it with a clear error.
    Unsupported(Unsupported),
}

impl CsvKind {
    /// Recognises a header line (comma-separated column names, optionally quoted).
    pub fn from_header(line: &str) -> Option<CsvKind> {
        let cols: Vec<&str> = line.split(',').map(|c| c.trim().trim_matches('"')).collect();
        let has = |c: &str| cols.contains(&c);
        let times = has("Start_Timestamp") && has("End_Timestamp");
        // a table is recognised by the columns only it has; one missing a column its rows need
        // (a time, a name) is then refused naming that column
        Some(if has("KernelName") && (has("BeginNs") || has("EndNs")) {
            CsvKind::V1Results
        } else if has("Counter_Name") && has("Counter_Value") {
            CsvKind::Unsupported(Unsupported::Counters)
        } else if has("Kernel_Name") && (times || has("Dispatch_Id")) || has("Dispatch_Id") && has("Kernel_Id") && has("Grid_Size_X") {
            CsvKind::V3Kernel
        } else if has("Direction") && (times || has("Source_Agent_Id")) {
            CsvKind::V3MemoryCopy
        } else if has("Domain") && has("Function") && (times || has("Correlation_Id")) {
            CsvKind::V3Api
        } else if has("Name") && has("Calls") && has("TotalDurationNs") {
            CsvKind::Unsupported(Unsupported::Stats)
        } else if has("Index") && has("KernelName") {
            CsvKind::Unsupported(Unsupported::V1NoTimestamps)
        } else if has("Node_Id") && has("Agent_Type") {
            CsvKind::Unsupported(Unsupported::AgentInfo)
        } else if times && (has("Kind") || has("Correlation_Id")) {
            CsvKind::Unsupported(Unsupported::V3Other)
        } else {
            return None;
        })
    }

    /// What the table is, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            CsvKind::V1Results => "rocprof v1 results.csv",
            CsvKind::V3Kernel => "rocprofv3 kernel_trace.csv",
            CsvKind::V3MemoryCopy => "rocprofv3 memory_copy_trace.csv",
            CsvKind::V3Api => "rocprofv3 *_api_trace.csv",
            CsvKind::Unsupported(u) => u.describe(),
        }
    }

    /// The model format this table is read as.
    pub fn format(self) -> Format {
        match self {
            CsvKind::V1Results | CsvKind::Unsupported(Unsupported::V1NoTimestamps | Unsupported::Stats) => Format::RocprofV1Csv,
            _ => Format::RocprofV3Csv,
        }
    }
}

/// Whether the bytes after a JSON document's opening `{` start rocprofv3's
/// `{"rocprofiler-sdk-tool": [...]}`; `None` while too few bytes are known. For `detect`.
pub fn is_v3_json(after_brace: &[u8], at_end: bool) -> Option<bool> {
    const KEY: &[u8] = b"\"rocprofiler-sdk-tool\"";
    let Some(i) = after_brace.iter().position(|c| !c.is_ascii_whitespace()) else {
        return if at_end { Some(false) } else { None };
    };
    let rest = &after_brace[i..];
    if rest.len() < KEY.len() && KEY.starts_with(rest) && !at_end {
        return None;
    }
    Some(rest.starts_with(KEY))
}

/// The column names of a table, from its header record.
pub struct Header {
    names: Vec<String>,
}

impl Header {
    fn new(rec: &Record<'_>) -> Header {
        let names = (0..rec.len()).map(|i| String::from_utf8_lossy(rec.field(i).unwrap_or_default()).trim().to_string()).collect();
        Header { names }
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no columns.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The column names for a message (`the columns A,B,…`, cut after 200 characters).
    fn listed(&self) -> String {
        let all = self.names.join(",");
        match all.char_indices().nth(200) {
            Some((i, _)) => format!("the columns {}…", &all[..i]),
            None => format!("the columns {all}"),
        }
    }

    /// Index of an optional column.
    pub fn col(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Index of a required column.
    pub fn need(&self, name: &'static str) -> Result<usize, HeaderError> {
        self.col(name).ok_or(HeaderError::MissingColumn(name))
    }
}

/// A table's column layout, decided from its header.
enum Table {
    V1(v1::Columns),
    Kernel(v3::KernelColumns),
    Copy(v3::CopyColumns),
    Api(v3::ApiColumns),
}

/// Push-based CSV reader for the rocprof tables.
pub struct CsvReader {
    kind: CsvKind,
    split: Splitter,
    table: Option<Table>,
    next_row: u32,
}

impl CsvReader {
    /// A reader for `kind`.
    pub fn new(kind: CsvKind) -> CsvReader {
        CsvReader { kind, split: Splitter::default(), table: None, next_row: 0 }
    }

    /// Feeds decompressed bytes (any chunk size).
    pub fn push(&mut self, data: &[u8], rank: &mut RankTrace, file: &str) -> Result<(), ReadError> {
        if let CsvKind::Unsupported(u) = self.kind {
            return Err(ReadError::new(0, SUPPORTED_TABLES, u.describe()));
        }
        let CsvReader { kind, split, table, next_row } = self;
        split.push(data, &mut |rec| on_record(*kind, table, next_row, rec, rank, file))
    }

    /// Ends the table (a last row without a line end is read here).
    pub fn finish(&mut self, rank: &mut RankTrace, file: &str) -> Result<(), ReadError> {
        if let CsvKind::Unsupported(u) = self.kind {
            return Err(ReadError::new(0, SUPPORTED_TABLES, u.describe()));
        }
        let CsvReader { kind, split, table, next_row } = self;
        split.finish(&mut |rec| on_record(*kind, table, next_row, rec, rank, file))?;
        rank.events.int_args.sort_by_key(|a| a.0);
        Ok(())
    }
}

fn on_record(
    kind: CsvKind,
    table: &mut Option<Table>,
    next_row: &mut u32,
    rec: Record<'_>,
    rank: &mut RankTrace,
    file: &str,
) -> Result<(), ReadError> {
    let Some(t) = table else {
        let h = Header::new(&rec);
        let cols = match kind {
            CsvKind::V1Results => v1::Columns::new(&h).map(Table::V1),
            CsvKind::V3Kernel => v3::KernelColumns::new(&h).map(Table::Kernel),
            CsvKind::V3MemoryCopy => v3::CopyColumns::new(&h).map(Table::Copy),
            CsvKind::V3Api => v3::ApiColumns::new(&h).map(Table::Api),
            CsvKind::Unsupported(u) => Err(HeaderError::Unsupported(u)),
        };
        // the one place a header's error becomes the file's: what the table is and lacks, and
        // the columns it has
        *table = Some(cols.map_err(|e| match e {
            HeaderError::MissingColumn(_) => ReadError::new(rec.offset, format!("{e} of a {}", kind.describe()), h.listed()),
            _ => ReadError::new(rec.offset, e.to_string(), crate::error::excerpt(rec.field(0).unwrap_or_default())),
        })?);
        return Ok(());
    };
    let index = *next_row;
    *next_row = next_row.saturating_add(1);
    let mut row = RowCtx { rank, file, offset: rec.offset, index };
    let r = match t {
        Table::V1(c) => c.row(&rec, &mut row),
        Table::Kernel(c) => c.row(&rec, &mut row),
        Table::Copy(c) => c.row(&rec, &mut row),
        Table::Api(c) => c.row(&rec, &mut row),
    };
    if let Err(detail) = r {
        rank.warnings.add(WarningKind::BadCsvRow, file, rec.offset, || format!("data row {index} (byte {}): {detail}", rec.offset));
    }
    Ok(())
}

/// Where a row is being added.
pub struct RowCtx<'a> {
    /// The rank.
    pub rank: &'a mut RankTrace,
    /// File name for warnings.
    pub file: &'a str,
    /// Byte offset of the row.
    pub offset: u64,
    /// 0-based data row number (header excluded, skipped rows counted): the event's `index`.
    pub index: u32,
}

/// A pid or tid as found in a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id<'a> {
    /// An integer.
    Int(i64),
    /// Text as written.
    Text(&'a str),
    /// No such column (or an empty field).
    Missing,
}

/// One row ready to become an event.
pub struct Row<'a> {
    /// Kind.
    pub kind: Kind,
    /// Raw category.
    pub cat: &'a str,
    /// Name.
    pub name: &'a str,
    /// Start, ns.
    pub start: i64,
    /// End, ns.
    pub end: i64,
    /// Process.
    pub pid: Id<'a>,
    /// Thread.
    pub tid: Id<'a>,
    /// Queue/stream or -1.
    pub stream: i64,
    /// Correlation id or -1.
    pub correlation: i64,
    /// Sparse integer arguments.
    pub args: [Option<(IntArg, i64)>; 2],
}

impl RowCtx<'_> {
    /// Appends `row` as a complete event and counts it.
    pub fn add(&mut self, row: Row<'_>) {
        let rank = &mut *self.rank;
        let mut dur = row.end - row.start;
        if dur < 0 {
            let (file, offset) = (self.file, self.offset);
            rank.warnings.add(WarningKind::NegativeDuration, file, offset, || {
                format!("data row {}: end {} < start {}", self.index, row.end, row.start)
            });
            dur = 0;
        }
        let cat = rank.strings.intern(row.cat);
        let name = rank.strings.intern(row.name);
        let pid = intern_id(rank, row.pid);
        let tid = intern_id(rank, row.tid);
        let e = rank.events.push(NewEvent {
            index: self.index,
            phase: Phase::Complete,
            kind: row.kind,
            cat,
            name,
            ts: row.start,
            dur,
            pid,
            tid,
            stream: row.stream,
            correlation: row.correlation,
            external_id: -1,
            flags: flags::HAS_TS | flags::HAS_DUR | flags::HAS_CAT,
        });
        for (arg, v) in row.args.into_iter().flatten() {
            rank.events.push_int_arg(e, arg, v);
        }
        let c = &mut rank.counts;
        c.events += 1;
        *c.kinds.entry(row.kind.as_str().to_string()).or_default() += 1;
        match c.categories.get_mut(row.cat) {
            Some(n) => *n += 1,
            None => {
                c.categories.insert(row.cat.to_string(), 1);
            }
        }
        *c.phases.entry("X".to_string()).or_default() += 1;
    }

    /// Field `i` as text (invalid UTF-8 replaced, with a warning).
    pub fn text<'r>(&mut self, rec: &Record<'r>, i: usize) -> Cow<'r, str> {
        let b = rec.field(i).unwrap_or_default();
        match std::str::from_utf8(b) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => {
                let (file, offset, index) = (self.file, self.offset, self.index);
                self.rank.warnings.add(WarningKind::InvalidUtf8, file, offset, || format!("in data row {index}"));
                Cow::Owned(String::from_utf8_lossy(b).into_owned())
            }
        }
    }
}

fn intern_id(rank: &mut RankTrace, id: Id<'_>) -> u32 {
    let v = match id {
        Id::Int(i) => IdValue::Int(i),
        Id::Text(s) => IdValue::Str(rank.strings.intern(s)),
        Id::Missing => IdValue::Str(Strings::EMPTY),
    };
    rank.ids.intern(v)
}

/// Checks the field count of a data row.
pub fn check_len(rec: &Record<'_>, header_len: usize) -> Result<(), RowError> {
    if rec.len() == header_len {
        Ok(())
    } else {
        Err(RowError::FieldCount { fields: rec.len(), header: header_len })
    }
}

fn trimmed<'a>(rec: &Record<'a>, i: usize) -> &'a [u8] {
    rec.field(i).unwrap_or_default().trim_ascii()
}

fn parse_i64(b: &[u8]) -> Option<i64> {
    std::str::from_utf8(b).ok()?.parse().ok()
}

/// A required integer column.
pub fn int(rec: &Record<'_>, i: usize, col: &'static str) -> Result<i64, RowError> {
    let b = trimmed(rec, i);
    parse_i64(b).ok_or_else(|| RowError::NotAnInteger { col, found: crate::error::excerpt(b) })
}

/// An optional integer column: absent, empty or `None` (rocprof v1's placeholder) give `None`.
pub fn opt_int(rec: &Record<'_>, i: Option<usize>, col: &'static str) -> Result<Option<i64>, RowError> {
    let Some(i) = i else { return Ok(None) };
    let b = trimmed(rec, i);
    if b.is_empty() || b == b"None" {
        return Ok(None);
    }
    int(rec, i, col).map(Some)
}

/// An optional pid/tid column.
pub fn opt_id<'a>(rec: &Record<'a>, i: Option<usize>, col: &'static str) -> Result<Id<'a>, RowError> {
    Ok(match opt_int(rec, i, col)? {
        Some(v) => Id::Int(v),
        None => Id::Missing,
    })
}

/// An agent column: `1` (ROCm 6.2/6.3), `Agent 1` (absolute/relative index) or `GPU 0`
/// (type-relative index) give the number.
pub fn agent(rec: &Record<'_>, i: Option<usize>, col: &'static str) -> Result<Option<i64>, RowError> {
    let Some(i) = i else { return Ok(None) };
    let b = trimmed(rec, i);
    if b.is_empty() {
        return Ok(None);
    }
    let digits = b.iter().rev().take_while(|c| c.is_ascii_digit()).count();
    let (label, num) = b.split_at(b.len() - digits);
    let label_ok = label.is_empty() || (label.ends_with(b" ") && label.trim_ascii().iter().all(|c| c.is_ascii_alphabetic()));
    match parse_i64(num) {
        Some(v) if label_ok => Ok(Some(v)),
        _ => Err(RowError::NotAnAgent { col, found: crate::error::excerpt(b) }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers() {
        let k = |h: &str| CsvKind::from_header(h);
        assert_eq!(k("\"Kind\",\"Agent_Id\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\""), Some(CsvKind::V3Kernel));
        assert_eq!(k("Index,KernelName,gpu-id,BeginNs,EndNs"), Some(CsvKind::V1Results));
        assert_eq!(k("Index,KernelName,gpu-id,grd"), Some(CsvKind::Unsupported(Unsupported::V1NoTimestamps)));
        assert_eq!(
            k("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\""),
            Some(CsvKind::Unsupported(Unsupported::Stats))
        );
        assert_eq!(
            k("\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\""),
            Some(CsvKind::Unsupported(Unsupported::V3Other))
        );
        assert_eq!(k("a,b,c"), None);
    }

    #[test]
    fn v3_json_sniff() {
        assert_eq!(is_v3_json(b" \n\"rocprofiler-sdk-tool\": [", false), Some(true));
        assert_eq!(is_v3_json(b"\"rocprof", false), None);
        assert_eq!(is_v3_json(b"\"rocprof", true), Some(false));
        assert_eq!(is_v3_json(b"\"traceEvents\": [", false), Some(false));
        assert_eq!(is_v3_json(b"  ", false), None);
    }
}
