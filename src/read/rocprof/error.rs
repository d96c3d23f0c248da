//! Why a rocprof table's header, a CSV row or a rocprofv3 JSON record could not be read: one
//! kind per cause, each `Display` writing the text users see. A header error is the file's
//! [`ReadError`](crate::error::ReadError) (made in one place, `on_record`); a row or record error
//! is the detail of a counted warning ([`WarningKind::BadCsvRow`](crate::error::WarningKind::BadCsvRow),
//! [`WarningKind::MalformedEvent`](crate::error::WarningKind::MalformedEvent)), and the row or
//! record is skipped.

use std::fmt;

use super::Unsupported;
use crate::read::json::JsonError;

/// Why a CSV table's header cannot be used: what the reader expected instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderError {
    /// A column the table's rows need is missing (its name).
    MissingColumn(&'static str),
    /// A table that is recognised but not read.
    Unsupported(Unsupported),
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HeaderError::MissingColumn(name) => write!(f, "a column \"{name}\" in the header"),
            HeaderError::Unsupported(u) => f.write_str(u.describe()),
        }
    }
}

impl std::error::Error for HeaderError {}

/// Why a CSV data row was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowError {
    /// The row has `fields` fields, the header `header`.
    FieldCount {
        /// Fields of the row.
        fields: usize,
        /// Columns of the header.
        header: usize,
    },
    /// An integer column holds something else.
    NotAnInteger {
        /// The column.
        col: &'static str,
        /// What it holds ([`crate::error::excerpt`]).
        found: String,
    },
    /// An agent column holds neither `Agent 1`, `GPU 0` nor a number.
    NotAnAgent {
        /// The column.
        col: &'static str,
        /// What it holds ([`crate::error::excerpt`]).
        found: String,
    },
}

impl fmt::Display for RowError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RowError::FieldCount { fields, header } => write!(f, "{fields} fields, the header has {header}"),
            RowError::NotAnInteger { col, found } => write!(f, "{col} {found} is not an integer"),
            RowError::NotAnAgent { col, found } => write!(f, "{col} {found} is not an agent (\"Agent 1\", \"GPU 0\" or 1)"),
        }
    }
}

impl std::error::Error for RowError {}

/// Why a rocprofv3 JSON buffer record was skipped. `found` fields are JSON type names
/// ([`JVal::type_name`](crate::read::json::JVal::type_name)).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// An element of a table that is not an object.
    NotAnObject(&'static str),
    /// The record is not valid JSON (offset in the record).
    Json(JsonError),
    /// A field that must be an integer is not.
    NotAnInteger {
        /// The field.
        field: &'static str,
        /// Its type.
        found: &'static str,
    },
    /// A field that must be a `{handle}` object (or null) is not.
    NotAHandle {
        /// The field.
        field: &'static str,
        /// Its type.
        found: &'static str,
    },
    /// `dispatch_info` is not an object (its type).
    DispatchInfo(&'static str),
    /// No `start_timestamp`.
    NoStart,
    /// No `end_timestamp`.
    NoEnd,
    /// A kernel dispatch without `dispatch_info.kernel_id`.
    NoKernelId,
    /// An API record whose `kind` (if any) names no entry of `strings.buffer_records`.
    UnknownKind(Option<i64>),
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::NotAnObject(found) => write!(f, "{found} instead of a record object"),
            RecordError::Json(e) => write!(f, "expected {} at record byte {}", e.expected, e.at),
            RecordError::NotAnInteger { field, found } => write!(f, "{field} is {found} and not an integer"),
            RecordError::NotAHandle { field, found } => write!(f, "{field} is {found} and not an object"),
            RecordError::DispatchInfo(found) => write!(f, "dispatch_info is {found}"),
            RecordError::NoStart => f.write_str("no start_timestamp"),
            RecordError::NoEnd => f.write_str("no end_timestamp"),
            RecordError::NoKernelId => f.write_str("no dispatch_info.kernel_id"),
            RecordError::UnknownKind(kind) => write!(f, "kind {kind:?} is not in strings.buffer_records"),
        }
    }
}

impl std::error::Error for RecordError {}

impl From<JsonError> for RecordError {
    fn from(e: JsonError) -> RecordError {
        RecordError::Json(e)
    }
}

#[cfg(test)]
mod tests {
    use crate::read::read_bytes;

    /// The file's error, or the detail of its first warning.
    fn outcome(name: &str, doc: &str) -> String {
        match read_bytes(name, doc.as_bytes(), 7) {
            Err(e) => e.to_string(),
            Ok(r) => r.warnings.iter().next().map(|w| w.detail.clone()).unwrap_or_default(),
        }
    }

    /// Every kind's text, through the readers (as they were when the kinds were strings).
    #[test]
    fn texts() {
        let kernels = "Kind,Agent_Id,Queue_Id,Thread_Id,Dispatch_Id,Kernel_Id,Kernel_Name,Correlation_Id,Start_Timestamp,End_Timestamp\n";
        let csv = [
            ("KERNEL_DISPATCH,1,2,3\n", "data row 0 (byte 112): 4 fields, the header has 10"),
            ("KERNEL_DISPATCH,1,2,3,4,5,k,6,x1,9\n", "data row 0 (byte 112): Start_Timestamp 'x1' is not an integer"),
            (
                "KERNEL_DISPATCH,Agent x,2,3,4,5,k,6,1,9\n",
                "data row 0 (byte 112): Agent_Id 'Agent x' is not an agent (\"Agent 1\", \"GPU 0\" or 1)",
            ),
            ("KERNEL_DISPATCH,1,q,3,4,5,k,6,1,9\n", "data row 0 (byte 112): Queue_Id 'q' is not an integer"),
        ];
        for (row, want) in csv {
            assert_eq!(outcome("k.csv", &format!("{kernels}{row}")), want);
        }
        assert_eq!(
            outcome("v1.csv", "Index,KernelName,gpu-id,queue-id,pid,tid,BeginNs,EndNs\n1,k,x,1,2,3,4,5\n"),
            "data row 0 (byte 55): gpu-id 'x' is not an integer"
        );
        // the header line is recognised with its quotes trimmed, the header record is not
        assert_eq!(
            outcome("m.csv", "Kind, \"Kernel_Name\",Start_Timestamp,End_Timestamp\nk,1,2,3\n"),
            "m.csv: byte 0: expected a column \"Kernel_Name\" in the header of a rocprofv3 kernel_trace.csv, found the columns Kind,\"Kernel_Name\",Start_Timestamp,End_Timestamp"
        );
        let records = [
            ("kernel_dispatch", "5", "kernel_dispatch record 0 (byte 169): a number instead of a record object"),
            ("kernel_dispatch", r#"{"start_timestamp": "x"}"#, "start_timestamp is a string and not an integer"),
            ("kernel_dispatch", r#"{"stream_id": 5}"#, "stream_id is a number and not an object"),
            ("kernel_dispatch", r#"{"dispatch_info": 5}"#, "dispatch_info is a number"),
            ("kernel_dispatch", r#"{"dispatch_info": {"kernel_id": 1 x}}"#, "expected ',' or '}' at record byte 16"),
            ("kernel_dispatch", r#"{}"#, "no start_timestamp"),
            ("kernel_dispatch", r#"{"start_timestamp": 1}"#, "no end_timestamp"),
            ("kernel_dispatch", r#"{"start_timestamp": 1, "end_timestamp": 2}"#, "no dispatch_info.kernel_id"),
            ("hip_api", r#"{"start_timestamp": 1, "end_timestamp": 2, "kind": 7}"#, "kind Some(7) is not in strings.buffer_records"),
        ];
        for (table, rec, want) in records {
            let doc = format!(
                r#"{{"rocprofiler-sdk-tool": [{{"metadata": {{"pid": 1}}, "strings": {{"buffer_records": [{{"kind": "KERNEL_DISPATCH", "operations": []}}]}}, "buffer_records": {{"{table}": [{rec}]}}}}]}}"#
            );
            let got = outcome("r.json", &doc);
            assert!(got.starts_with(&format!("{table} record 0 (byte ")) && got.ends_with(want), "{got}");
        }
    }
}
