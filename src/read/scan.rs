//! Streaming scanner for Chrome-trace-shaped JSON: finds the top-level keys and, inside the
//! event array, one event object at a time. It never builds a tree: a complete event's bytes
//! are handed to the sink, which parses just that object (see `json.rs`).
//!
//! Accepted shapes (Trace Event Format and what profilers really write):
//! * object form `{"traceEvents": [ {...}, ... ], "otherKey": ...}` (keys in any order);
//! * bare array form `[ {...}, {...} ]`, whose closing `]` may be missing (allowed by the format);
//! * comma-led lists `,{...}\n,{...}` as rocprof v1 writes fragments.
//!
//! Input arrives in chunks of any size (down to 1 byte); a partial event waits in `buf` and is
//! scanned only once (the scan state survives chunk boundaries). Offsets are absolute byte
//! positions in the (decompressed) stream.

use super::json::{find2, find3};

use crate::error::{excerpt, ReadError, WarningKind};

/// Receives what the scanner finds.
pub trait ScanSink {
    /// A top-level key other than `traceEvents`, with its raw JSON value.
    fn meta(&mut self, key: &str, value: &[u8], offset: u64);
    /// One object of the event array; `index` is its position in the array.
    fn event(&mut self, bytes: &[u8], offset: u64, index: u32);
    /// Fast path: try to read the event object at the start of `rest` (the remaining buffer)
    /// without a separate scan for its end. `Some(length)` if it was complete and valid; `None`
    /// to fall back to [`ScanSink::event`] once the object's end is found (incomplete or
    /// malformed input). Must have no effect when it returns `None`.
    fn event_direct(&mut self, _rest: &[u8], _offset: u64, _index: u32) -> Option<usize> {
        None
    }
    /// Recoverable damage.
    fn warn(&mut self, kind: WarningKind, offset: u64, detail: String);
}

/// Overall shape of the document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `{"traceEvents": [...]}`.
    Object,
    /// `[...]`.
    BareArray,
    /// `,{...},{...}` (rocprof v1 fragment).
    CommaList,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Start,
    /// In the top-level object, expecting a key, `,` or `}`.
    ObjKey,
    /// Key read, expecting `:`.
    ObjColon,
    /// Expecting the value of the current key.
    ObjValue,
    /// After a value, expecting `,` or `}`.
    ObjAfterValue,
    /// In the event array, expecting an element or `]`.
    ArrayElem,
    /// After an element, expecting `,` or `]`.
    ArrayAfterElem,
    /// The document is complete.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValKind {
    Object,
    Array,
    Str,
    Scalar,
}

/// Resumable scan of one JSON value.
#[derive(Debug, Clone, Copy)]
struct ValScan {
    start: usize,
    kind: ValKind,
    depth: u32,
    in_str: bool,
    /// Position in `buf` up to which the value has been scanned.
    pos: usize,
}

/// What a value scan is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Purpose {
    Key,
    MetaValue,
    Element,
}

/// The scanner. Feed it with [`Scanner::push`], end with [`Scanner::finish`].
pub struct Scanner {
    buf: Vec<u8>,
    /// Absolute offset of `buf[0]`.
    base: u64,
    pos: usize,
    state: State,
    shape: Option<Shape>,
    in_object: bool,
    saw_events: bool,
    val: Option<(ValScan, Purpose)>,
    key: String,
    key_offset: u64,
    element_index: u32,
    /// The previous array token was a separator (or the array start).
    after_sep: bool,
    /// Trailing data after the document was found; further input is dropped.
    ignoring: bool,
    /// The last top-level object token was a `,` (so a `}` now closes after a trailing comma).
    obj_comma: bool,
    /// [`Scanner::finish`] was called: no more input will come.
    ending: bool,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            buf: Vec::new(),
            base: 0,
            pos: 0,
            state: State::Start,
            shape: None,
            in_object: false,
            saw_events: false,
            val: None,
            key: String::new(),
            key_offset: 0,
            element_index: 0,
            after_sep: true,
            ignoring: false,
            obj_comma: false,
            ending: false,
        }
    }
}

/// Scans a string body from `pos` (inside the string): `Ok(end)` just after the closing quote, or
/// `Err(resume)`, where to continue once more bytes arrive (an escape may be split by a chunk edge).
fn string_end(buf: &[u8], mut pos: usize) -> Result<usize, usize> {
    loop {
        let Some(i) = find2(b'"', b'\\', &buf[pos..]) else { return Err(buf.len()) };
        let at = pos + i;
        if buf[at] == b'"' {
            return Ok(at + 1);
        }
        if at + 1 >= buf.len() {
            return Err(at);
        }
        pos = at + 2;
    }
}

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl Scanner {
    /// The document shape, once known.
    pub fn shape(&self) -> Option<Shape> {
        self.shape
    }

    /// Whether to wait for more input before reporting what was found at `pos`: the excerpt in
    /// the message shows up to 40 bytes, and must not depend on how the input was chunked.
    fn wait_for_excerpt(&self) -> bool {
        !self.ending && self.buf.len() - self.pos <= 40
    }

    /// Absolute offset of the next unscanned byte.
    fn at(&self, i: usize) -> u64 {
        self.base + i as u64
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, chunk: &[u8], sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        if self.ignoring {
            self.base += chunk.len() as u64;
            return Ok(());
        }
        self.buf.extend_from_slice(chunk);
        self.run(sink)?;
        self.compact();
        Ok(())
    }

    /// Drops consumed bytes, keeping a partial value.
    fn compact(&mut self) {
        let keep = match &self.val {
            Some((v, _)) => v.start,
            None => self.pos,
        };
        if keep == 0 {
            return;
        }
        self.buf.drain(..keep);
        self.base += keep as u64;
        self.pos -= keep;
        if let Some((v, _)) = &mut self.val {
            v.start -= keep;
            v.pos -= keep;
        }
    }

    /// Ends the input. Warns about truncation; errors if no trace was found at all.
    pub fn finish(&mut self, sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        self.ending = true;
        self.run(sink)?;
        let mut truncated = false;
        if let Some((v, purpose)) = self.val.take() {
            let off = self.at(v.start);
            truncated = true;
            match purpose {
                Purpose::Element => sink.warn(WarningKind::TruncatedTail, off, format!("incomplete event at byte {off} dropped")),
                _ if self.saw_events => sink.warn(WarningKind::UnclosedArray, off, "file ends inside a top-level value".into()),
                _ => {}
            }
        }
        match self.state {
            State::Start => Err(ReadError::new(self.at(self.pos), "a JSON trace ('{' or '[')", "end of input (the file is empty)")),
            // a truncated event already says the file is cut; the open array follows from it
            State::ArrayElem | State::ArrayAfterElem if self.in_object && !truncated => {
                let off = self.at(self.pos);
                sink.warn(WarningKind::UnclosedArray, off, "file ends before ']' closes \"traceEvents\"".into());
                Ok(())
            }
            State::ArrayElem | State::ArrayAfterElem | State::Done => Ok(()),
            _ if !self.saw_events => Err(ReadError::new(
                self.at(self.pos),
                "a \"traceEvents\" array (Chrome trace format)",
                "end of the top-level object without one",
            )),
            _ => {
                let off = self.at(self.pos);
                sink.warn(WarningKind::UnclosedArray, off, "file ends before '}' closes the top-level object".into());
                Ok(())
            }
        }
    }

    fn run(&mut self, sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        loop {
            if let Some((v, purpose)) = self.val {
                match self.continue_value(v) {
                    Err(v) => {
                        self.val = Some((v, purpose));
                        return Ok(());
                    }
                    Ok(end) => {
                        self.val = None;
                        self.value_done(v.start, end, purpose, sink)?;
                        self.pos = end;
                        continue;
                    }
                }
            }
            // skip whitespace
            while self.pos < self.buf.len() && is_ws(self.buf[self.pos]) {
                self.pos += 1;
            }
            if self.pos >= self.buf.len() {
                return Ok(());
            }
            let c = self.buf[self.pos];
            let here = self.at(self.pos);
            match self.state {
                State::Start => {
                    // UTF-8 byte order mark
                    if self.buf[self.pos..].starts_with(&[0xef, 0xbb, 0xbf]) {
                        self.pos += 3;
                        continue;
                    }
                    if self.buf.len() - self.pos < 3 && self.buf[self.pos] == 0xef {
                        return Ok(());
                    }
                    match c {
                        b'{' => {
                            self.shape = Some(Shape::Object);
                            self.in_object = true;
                            self.state = State::ObjKey;
                        }
                        b'[' => {
                            self.shape = Some(Shape::BareArray);
                            self.saw_events = true;
                            self.state = State::ArrayElem;
                            self.after_sep = true;
                        }
                        b',' => {
                            self.shape = Some(Shape::CommaList);
                            self.saw_events = true;
                            self.state = State::ArrayElem;
                            self.after_sep = true;
                        }
                        _ if self.wait_for_excerpt() => return Ok(()),
                        _ => {
                            return Err(ReadError::new(here, "a JSON trace ('{' or '[')", excerpt(&self.buf[self.pos..])));
                        }
                    }
                    self.pos += 1;
                }
                State::ObjKey => match c {
                    b'"' => {
                        self.key_offset = here;
                        self.obj_comma = false;
                        self.start_value(ValKind::Str, Purpose::Key);
                    }
                    b'}' => {
                        self.no_events_at_end(here)?;
                        if self.obj_comma {
                            sink.warn(WarningKind::StrayComma, here, "trailing ',' before '}' of the top-level object".into());
                        }
                        self.pos += 1;
                        self.state = State::Done;
                    }
                    b',' => {
                        sink.warn(WarningKind::StrayComma, here, "extra ',' in the top-level object".into());
                        self.pos += 1;
                    }
                    _ if self.wait_for_excerpt() => return Ok(()),
                    _ => return Err(ReadError::new(here, "a key string or '}' in the top-level object", excerpt(&self.buf[self.pos..]))),
                },
                State::ObjColon => {
                    if c != b':' {
                        if self.wait_for_excerpt() {
                            return Ok(());
                        }
                        return Err(ReadError::new(here, format!("':' after the key \"{}\"", self.key), excerpt(&self.buf[self.pos..])));
                    }
                    self.pos += 1;
                    self.state = State::ObjValue;
                }
                State::ObjValue => {
                    if self.key == "traceEvents" && c == b'[' {
                        self.pos += 1;
                        self.saw_events = true;
                        self.state = State::ArrayElem;
                        self.after_sep = true;
                        continue;
                    }
                    let kind = match c {
                        b'{' => ValKind::Object,
                        b'[' => ValKind::Array,
                        b'"' => ValKind::Str,
                        b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => ValKind::Scalar,
                        _ if self.wait_for_excerpt() => return Ok(()),
                        _ => return Err(ReadError::new(here, format!("a JSON value for the key \"{}\"", self.key), excerpt(&self.buf[self.pos..]))),
                    };
                    self.start_value(kind, Purpose::MetaValue);
                }
                State::ObjAfterValue => match c {
                    b',' => {
                        self.pos += 1;
                        self.obj_comma = true;
                        self.state = State::ObjKey;
                    }
                    b'}' => {
                        self.no_events_at_end(here)?;
                        self.pos += 1;
                        self.state = State::Done;
                    }
                    _ if self.wait_for_excerpt() => return Ok(()),
                    _ => return Err(ReadError::new(here, "',' or '}' after a top-level value", excerpt(&self.buf[self.pos..]))),
                },
                State::ArrayElem | State::ArrayAfterElem => match c {
                    b',' => {
                        if self.after_sep {
                            sink.warn(WarningKind::StrayComma, here, "',' with no event before it".into());
                        }
                        self.after_sep = true;
                        self.state = State::ArrayElem;
                        self.pos += 1;
                    }
                    b']' => {
                        if self.after_sep && self.element_index > 0 {
                            sink.warn(WarningKind::StrayComma, here, "trailing ',' before ']'".into());
                        }
                        self.pos += 1;
                        self.state = if self.in_object { State::ObjAfterValue } else { State::Done };
                    }
                    b'{' => {
                        if let Some(len) = sink.event_direct(&self.buf[self.pos..], here, self.element_index) {
                            self.element_index += 1;
                            self.after_sep = false;
                            self.state = State::ArrayAfterElem;
                            self.pos += len;
                        } else {
                            self.start_value(ValKind::Object, Purpose::Element);
                        }
                    }
                    b'[' => self.start_value(ValKind::Array, Purpose::Element),
                    b'"' => self.start_value(ValKind::Str, Purpose::Element),
                    b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => self.start_value(ValKind::Scalar, Purpose::Element),
                    _ if self.wait_for_excerpt() => return Ok(()),
                    _ => return Err(ReadError::new(here, "an event object '{', ',' or ']'", excerpt(&self.buf[self.pos..]))),
                },
                State::Done => {
                    if self.wait_for_excerpt() {
                        return Ok(());
                    }
                    sink.warn(WarningKind::TrailingData, here, format!("{} after the end of the JSON document", excerpt(&self.buf[self.pos..])));
                    // ignore everything that follows
                    self.ignoring = true;
                    self.base += self.buf.len() as u64;
                    self.buf.clear();
                    self.pos = 0;
                    return Ok(());
                }
            }
        }
    }

    /// The top-level object ends at `here`: an error unless it had a `traceEvents` array (a JSON
    /// object without one, e.g. a PyTorch Execution Trace, is not an empty trace).
    fn no_events_at_end(&self, here: u64) -> Result<(), ReadError> {
        if self.saw_events {
            return Ok(());
        }
        Err(ReadError::new(here, "a \"traceEvents\" array (Chrome trace format)", "end of the top-level object without one"))
    }

    fn start_value(&mut self, kind: ValKind, purpose: Purpose) {
        let start = self.pos;
        let v = ValScan { start, kind, depth: 0, in_str: false, pos: start };
        self.val = Some((v, purpose));
    }

    /// Advances a value scan; `Ok(end)` (exclusive) when complete, `Err(state)` if more input
    /// is needed.
    fn continue_value(&self, mut v: ValScan) -> Result<usize, ValScan> {
        let buf = &self.buf;
        let (open, close) = match v.kind {
            ValKind::Object => (b'{', b'}'),
            ValKind::Array => (b'[', b']'),
            ValKind::Str => {
                // the opening quote is at v.start
                if v.pos == v.start {
                    v.pos += 1;
                }
                return match string_end(buf, v.pos) {
                    Ok(end) => Ok(end),
                    Err(resume) => {
                        v.pos = resume;
                        Err(v)
                    }
                };
            }
            ValKind::Scalar => {
                let mut i = v.pos;
                while i < buf.len() {
                    if matches!(buf[i], b',' | b'}' | b']') || is_ws(buf[i]) {
                        return Ok(i);
                    }
                    i += 1;
                }
                v.pos = i;
                return Err(v);
            }
        };
        loop {
            if v.in_str {
                match string_end(buf, v.pos) {
                    Ok(end) => {
                        v.in_str = false;
                        v.pos = end;
                    }
                    Err(resume) => {
                        v.pos = resume;
                        return Err(v);
                    }
                }
            } else {
                match find3(b'"', open, close, &buf[v.pos..]) {
                    None => {
                        v.pos = buf.len();
                        return Err(v);
                    }
                    Some(i) => {
                        let at = v.pos + i;
                        let c = buf[at];
                        v.pos = at + 1;
                        if c == b'"' {
                            v.in_str = true;
                        } else if c == open {
                            v.depth += 1;
                        } else {
                            v.depth -= 1;
                            if v.depth == 0 {
                                return Ok(at + 1);
                            }
                        }
                    }
                }
            }
        }
    }

    fn value_done(&mut self, start: usize, end: usize, purpose: Purpose, sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        let off = self.at(start);
        match purpose {
            Purpose::Key => {
                let raw = &self.buf[start + 1..end - 1];
                self.key = match crate::read::json::unescape(raw) {
                    Ok(k) => k.into_owned(),
                    Err(_) => String::from_utf8_lossy(raw).into_owned(),
                };
                self.state = State::ObjColon;
            }
            Purpose::MetaValue => {
                let key = std::mem::take(&mut self.key);
                sink.meta(&key, &self.buf[start..end], off);
                self.key = key;
                self.state = State::ObjAfterValue;
            }
            Purpose::Element => {
                let index = self.element_index;
                self.element_index += 1;
                if self.buf[start] == b'{' {
                    sink.event(&self.buf[start..end], off, index);
                } else {
                    sink.warn(WarningKind::NonObjectEvent, off, format!("{} in the event array", excerpt(&self.buf[start..end])));
                }
                self.after_sep = false;
                self.state = State::ArrayAfterElem;
            }
        }
        Ok(())
    }
}
