//! Content detection: which reader a file needs, from its first bytes only (never its name).
//!
//! * gzip is recognised earlier by its magic `1f 8b` (see `inflate`);
//! * `{"rocprofiler-sdk-tool"` → rocprofv3 JSON;
//! * `{`, `[` or `,` as the first non-blank byte → Chrome-trace JSON (Kineto, PaddlePaddle,
//!   rocprof v1); which flavor is decided after reading, from what the file contained;
//! * a CSV header line naming rocprof's columns → that rocprof table.

use super::chrome::FlavorHints;
use super::rocprof::CsvKind;
use super::scan::Shape;
use crate::error::{excerpt, ReadError};
use crate::model::Format;

/// What kind of content a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    /// Chrome-trace JSON.
    Json,
    /// A rocprof CSV table.
    Csv(CsvKind),
    /// rocprofv3 JSON (`{"rocprofiler-sdk-tool": [...]}`).
    RocprofV3Json,
}

/// Three-way answer of the detector.
#[derive(Debug)]
pub enum Detect {
    /// Decided.
    Yes(Content),
    /// Not a format we read; the error says what was expected.
    No(ReadError),
    /// Need more bytes.
    NeedMore,
}

/// Decides from the decompressed prefix; `at_end` means no more bytes will come.
pub fn detect(prefix: &[u8], at_end: bool) -> Detect {
    let mut i = 0;
    if prefix.starts_with(&[0xef, 0xbb, 0xbf]) {
        i = 3;
    }
    while i < prefix.len() && prefix[i].is_ascii_whitespace() {
        i += 1;
    }
    if i >= prefix.len() {
        return if at_end {
            Detect::No(ReadError::new(i as u64, "a trace (JSON or rocprof CSV)", "end of input (the file is empty or blank)"))
        } else {
            Detect::NeedMore
        };
    }
    match prefix[i] {
        b'{' => match super::rocprof::is_v3_json(&prefix[i + 1..], at_end) {
            None => return Detect::NeedMore,
            Some(true) => return Detect::Yes(Content::RocprofV3Json),
            Some(false) => return Detect::Yes(Content::Json),
        },
        b'[' | b',' => return Detect::Yes(Content::Json),
        _ => {}
    }
    let rest = &prefix[i..];
    let line_end = rest.iter().position(|&c| c == b'\n');
    let line = match line_end {
        Some(e) => &rest[..e],
        None if at_end => rest,
        None => return Detect::NeedMore,
    };
    let text = String::from_utf8_lossy(line);
    match CsvKind::from_header(text.trim_end_matches('\r')) {
        Some(k) => Detect::Yes(Content::Csv(k)),
        None => Detect::No(ReadError::new(
            i as u64,
            "a trace: JSON ('{' or '['), gzip, or a rocprof CSV header (kernel_trace, memory_copy_trace, *_api_trace, results.csv)",
            excerpt(line),
        )),
    }
}

/// The flavor of a Chrome-trace JSON file, from what it contained.
pub fn chrome_flavor(h: &FlavorHints, shape: Option<Shape>) -> Format {
    // rocprof v1 JSON has no Kineto categories: a string `ts` in a file with Kineto categories
    // is damage in a Kineto file, not a rocprof file
    if h.paddle {
        Format::Paddle
    } else if shape == Some(Shape::CommaList) || (h.string_times && !h.kineto) {
        Format::RocprofV1Json
    } else if h.kineto {
        Format::Kineto
    } else {
        Format::ChromeTrace
    }
}
