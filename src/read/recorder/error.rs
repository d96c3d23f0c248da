//! Why a Recorder trace folder could not be decoded: one kind per cause, each naming what was
//! expected, inside a [`RecorderError`] that adds the file and the byte offset.

use std::fmt;

/// A fatal problem with a Recorder trace folder: the file it is in, where in that file, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecorderError {
    /// The file, relative to the trace folder (`recorder.mt`, `2.cst`, `ug.cfg [block 1]`); empty
    /// when the problem is the folder as a whole.
    pub file: String,
    /// Byte offset in that file (in the inflated block for zlib files), when meaningful.
    pub offset: Option<u64>,
    /// What went wrong.
    pub kind: ErrorKind,
}

/// The cause of a [`RecorderError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ErrorKind {
    /// The folder has no `recorder.mt` (the names of the files it has, sorted).
    NotRecorder(Vec<String>),
    /// A pre-2.0 text trace (`0.mt` + `0.itf`), which this reader does not read.
    LegacyText,
    /// A file the layout needs is not in the folder (what it would hold).
    MissingFile(String),
    /// `VERSION` names a version this reader does not read (its text).
    UnsupportedVersion(String),
    /// The data ends inside a field (what was being read, bytes needed, bytes left).
    Truncated {
        /// The field or structure being read.
        what: &'static str,
        /// Bytes it needs.
        need: u64,
        /// Bytes left in the file.
        have: u64,
    },
    /// A value that the format does not allow (a sentence saying what was found and expected).
    Corrupt(String),
    /// A zlib block does not inflate (miniz_oxide's status) or inflates to another size.
    Zlib(String),
}

/// The versions this reader decodes, for messages.
pub const READ_VERSIONS: &str =
    "Recorder 2.3, 2.4 and 2.5 binary traces (VERSION 2.3.x, 2.4.x, 2.5.x: per-rank or merged .cst/.cfg/.ts files, and the 2.5 gotcha layout with zlib blocks and recorder.ts)";

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::NotRecorder(found) => write!(
                f,
                "not a Recorder trace: expected recorder.mt (with VERSION and the rank files) in the folder; found {}",
                if found.is_empty() { "no files".to_string() } else { found.join(", ") }
            ),
            ErrorKind::LegacyText => {
                write!(f, "a pre-2.0 Recorder text trace (0.mt + 0.itf) is not read; this reader reads {READ_VERSIONS}")
            }
            ErrorKind::MissingFile(what) => write!(f, "missing file ({what})"),
            ErrorKind::UnsupportedVersion(found) => write!(f, "unsupported Recorder version {found:?}; this reader reads {READ_VERSIONS}"),
            ErrorKind::Truncated { what, need, have } => {
                write!(f, "truncated: {what} needs {need} bytes but only {have} are left")
            }
            ErrorKind::Corrupt(msg) => write!(f, "corrupt: {msg}"),
            ErrorKind::Zlib(msg) => write!(f, "bad zlib block: {msg}"),
        }
    }
}

impl fmt::Display for RecorderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.file.is_empty(), self.offset) {
            (true, _) => write!(f, "{}", self.kind),
            (false, None) => write!(f, "{}: {}", self.file, self.kind),
            (false, Some(at)) => write!(f, "{} at byte {at}: {}", self.file, self.kind),
        }
    }
}

impl std::error::Error for RecorderError {}

impl RecorderError {
    /// An error in `file` at no particular offset.
    pub fn in_file(file: &str, kind: ErrorKind) -> Self {
        RecorderError { file: file.to_string(), offset: None, kind }
    }

    /// An error in `file` at byte `offset`.
    pub fn at(file: &str, offset: usize, kind: ErrorKind) -> Self {
        RecorderError { file: file.to_string(), offset: Some(offset as u64), kind }
    }

    /// `file` is needed but absent; `what` says what it holds.
    pub fn missing(file: &str, what: &str) -> Self {
        RecorderError::in_file(file, ErrorKind::MissingFile(what.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_file_offset_and_expectation() {
        let e = RecorderError::at("2.cst", 17, ErrorKind::Truncated { what: "a call signature key", need: 40, have: 3 });
        assert_eq!(e.to_string(), "2.cst at byte 17: truncated: a call signature key needs 40 bytes but only 3 are left");
        let e = RecorderError::missing("3.ts", "rank 3's timestamps");
        assert_eq!(e.to_string(), "3.ts: missing file (rank 3's timestamps)");
        let e = RecorderError::in_file("", ErrorKind::NotRecorder(vec!["a.json".into()]));
        assert_eq!(
            e.to_string(),
            "not a Recorder trace: expected recorder.mt (with VERSION and the rank files) in the folder; found a.json"
        );
    }
}
