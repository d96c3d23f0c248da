//! Errors and counted warnings of the read layer.
//!
//! A [`ReadError`] is fatal for one file: it names the file, the byte offset (in the
//! decompressed stream for gzip input, with the compressed offset where known) and what was
//! expected. Recoverable damage becomes a [`Warning`]: each kind is declared once in
//! [`WarningKind`] with a user-facing description, counted, and remembers where it first
//! happened.

use std::fmt;

use serde::Serialize;

/// A fatal problem reading one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    /// File name as given by the user.
    pub file: String,
    /// Byte offset where the problem was found: in the decompressed content for content
    /// errors, in the file itself for gzip errors (the message says "compressed byte").
    pub offset: u64,
    /// What the reader expected there.
    pub expected: String,
    /// What it found instead (short excerpt).
    pub found: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: byte {}: expected {}", self.file, self.offset, self.expected)?;
        if !self.found.is_empty() {
            write!(f, ", found {}", self.found)?;
        }
        Ok(())
    }
}

impl std::error::Error for ReadError {}

impl ReadError {
    /// A new error; `file` is filled in by the caller that knows it.
    pub fn new(offset: u64, expected: impl Into<String>, found: impl Into<String>) -> ReadError {
        ReadError { file: String::new(), offset, expected: expected.into(), found: found.into() }
    }

    /// Sets the file name.
    pub fn in_file(mut self, file: &str) -> ReadError {
        self.file = file.to_string();
        self
    }
}

/// Shows the start of `bytes` the way an error message should: printable, short, quoted.
pub fn excerpt(bytes: &[u8]) -> String {
    if bytes.is_empty() {
        return "end of input".to_string();
    }
    let take = &bytes[..bytes.len().min(40)];
    let text: String = String::from_utf8_lossy(take).chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let more = if bytes.len() > 40 { "…" } else { "" };
    if text.trim().is_empty() {
        // nothing printable (binary data): show the bytes themselves
        let hex: Vec<String> = take.iter().take(8).map(|b| format!("{b:02x}")).collect();
        return format!("bytes {}{}", hex.join(" "), if take.len() > 8 { " …" } else { "" });
    }
    format!("'{}{}'", text.trim_end(), more)
}

/// Every kind of recoverable damage the readers know, with its description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// The file ends inside an event; the complete events before it were kept.
    TruncatedTail,
    /// The gzip stream ends before its end marker; what was decompressed was kept.
    TruncatedGzip,
    /// The file ends before the event array / top-level object is closed.
    UnclosedArray,
    /// A comma with no value before it (`[,{...}`, `{...},,{...}`, `{...},]`).
    StrayComma,
    /// An event is not valid JSON; it was skipped.
    MalformedEvent,
    /// An element of the event array is not an object; it was skipped.
    NonObjectEvent,
    /// An event lacks a field its phase needs (e.g. `ts`); it was skipped.
    MissingField,
    /// A field has the wrong type (e.g. `"ts": true`); the event was skipped or the field ignored.
    IllTypedField,
    /// Bytes that are not UTF-8 inside a string; replaced with U+FFFD.
    InvalidUtf8,
    /// An `E` event with no open `B` on its thread.
    UnmatchedEnd,
    /// A `B` event never closed by an `E`; kept without a duration.
    UnclosedBegin,
    /// A negative `dur`; the event was kept with its duration set to 0.
    NegativeDuration,
    /// Non-whitespace bytes after the end of the JSON document; ignored.
    TrailingData,
    /// A top-level key whose value could not be read; ignored.
    BadMetadata,
    /// Two files claim the same rank; the later one got the next free rank.
    DuplicateRank,
    /// A CSV row with the wrong number of fields or unparsable numbers; skipped.
    BadCsvRow,
    /// gzip data followed by bytes that are not another gzip member; ignored.
    TrailingGarbageAfterGzip,
}

impl WarningKind {
    /// What happened, for users.
    pub fn description(self) -> &'static str {
        match self {
            WarningKind::TruncatedTail => "the file ends inside an event (truncated); complete events before it were kept",
            WarningKind::TruncatedGzip => "the gzip data ends early (truncated download or copy?); what was decompressed was kept",
            WarningKind::UnclosedArray => "the file ends before the event array or top-level object is closed",
            WarningKind::StrayComma => "stray comma with no value before it; ignored",
            WarningKind::MalformedEvent => "an event is not valid JSON; it was skipped",
            WarningKind::NonObjectEvent => "an element of the event array is not an object; it was skipped",
            WarningKind::MissingField => "an event lacks a field its phase needs; it was skipped",
            WarningKind::IllTypedField => "a field has the wrong type; the event was skipped or the field ignored",
            WarningKind::InvalidUtf8 => "invalid UTF-8 inside a string; replaced with U+FFFD",
            WarningKind::UnmatchedEnd => "an 'E' event with no open 'B' event on its thread; ignored",
            WarningKind::UnclosedBegin => "a 'B' event never closed by an 'E' event; kept without duration",
            WarningKind::NegativeDuration => "negative duration; set to 0",
            WarningKind::TrailingData => "data after the end of the JSON document; ignored",
            WarningKind::BadMetadata => "a top-level metadata value could not be read; ignored",
            WarningKind::DuplicateRank => "two files claim the same rank; the later file got the next free rank",
            WarningKind::BadCsvRow => "a CSV row could not be read; skipped",
            WarningKind::TrailingGarbageAfterGzip => "bytes after the last gzip member that are not gzip; ignored",
        }
    }
}

/// One kind of warning, counted, with where it first happened.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Warning {
    /// Which damage.
    pub kind: WarningKind,
    /// How many times it happened.
    pub count: u64,
    /// File of the first occurrence.
    pub file: String,
    /// Byte offset of the first occurrence.
    pub offset: u64,
    /// Detail of the first occurrence (which field, what was found).
    pub detail: String,
    /// [`WarningKind::description`].
    pub message: String,
}

/// Counted warnings, one entry per kind (and file).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct Warnings {
    entries: Vec<Warning>,
}

impl Warnings {
    /// Records one occurrence.
    pub fn add(&mut self, kind: WarningKind, file: &str, offset: u64, detail: impl FnOnce() -> String) {
        if let Some(w) = self.entries.iter_mut().find(|w| w.kind == kind && w.file == file) {
            w.count += 1;
            return;
        }
        self.entries.push(Warning {
            kind,
            count: 1,
            file: file.to_string(),
            offset,
            detail: detail(),
            message: kind.description().to_string(),
        });
    }

    /// Adds all of `other`.
    pub fn extend(&mut self, other: &Warnings) {
        for w in &other.entries {
            self.add_counted(w);
        }
    }

    /// `n` more occurrences of a kind already recorded for `file` (nothing if it is not).
    pub fn count_more(&mut self, kind: WarningKind, file: &str, n: u64) {
        if let Some(w) = self.entries.iter_mut().find(|w| w.kind == kind && w.file == file) {
            w.count += n;
        }
    }

    /// Adds `w.count` occurrences of `w` (its detail if the kind is new here).
    pub fn add_counted(&mut self, w: &Warning) {
        match self.entries.iter_mut().find(|x| x.kind == w.kind && x.file == w.file) {
            Some(x) => x.count += w.count,
            None => self.entries.push(w.clone()),
        }
    }

    /// Sets the file name on entries that have none (readers learn it late).
    pub fn set_file(&mut self, file: &str) {
        for w in &mut self.entries {
            if w.file.is_empty() {
                w.file = file.to_string();
            }
        }
    }

    /// Count of one kind over all files.
    pub fn count(&self, kind: WarningKind) -> u64 {
        self.entries.iter().filter(|w| w.kind == kind).map(|w| w.count).sum()
    }

    /// All entries.
    pub fn iter(&self) -> impl Iterator<Item = &Warning> {
        self.entries.iter()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::excerpt;

    #[test]
    fn excerpts_text_and_binary() {
        assert_eq!(excerpt(b"hello\nworld"), "'hello world'");
        assert_eq!(excerpt(b""), "end of input");
        assert_eq!(excerpt(&[0x1f]), "bytes 1f");
        assert_eq!(excerpt(&[0u8; 12]), "bytes 00 00 00 00 00 00 00 00 …");
    }
}
