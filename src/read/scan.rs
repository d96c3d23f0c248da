//! Streaming scanner for Chrome-trace-shaped JSON: finds the top-level keys and, inside the
//! event array, one event object at a time. It never builds a tree: a complete event's bytes
//! are handed to the sink, which parses just that object (see `json.rs`).
//!
//! Accepted shapes (Trace Event Format and what profilers really write):
//! * object form `{"traceEvents": [ {...}, ... ], "otherKey": ...}` (keys in any order);
//! * bare array form `[ {...}, {...} ]`, whose closing `]` may be missing (allowed by the format);
//! * comma-led lists `,{...}\n,{...}` as rocprof v1 writes fragments.
//!
//! Input arrives in chunks of any size (down to 1 byte). Each chunk is scanned where it lies (the
//! "window"); only a partial value at its end is copied, into `carry`, and completed there from
//! the start of the next chunk, after which scanning moves back into that chunk. A value is
//! scanned only once (the scan state survives chunk boundaries). Offsets are absolute byte
//! positions in the (decompressed) stream.

use super::json::{find2, find3};

use crate::error::{excerpt, ReadError, WarningKind};

pub(crate) mod probe;

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
    /// `n` empty objects `{}` in a row (`{},{},…`), the first at `offset` with position `index`,
    /// each 3 bytes after the previous: placeholders, counted without parsing.
    fn empty_events(&mut self, offset: u64, index: u32, n: u32) {
        for k in 0..n {
            self.event(b"{}", offset + 3 * u64::from(k), index + k);
        }
    }
    /// An element of the event array that is not an object (`null`, `[]`, a number…), at
    /// `offset`: recoverable damage.
    fn non_object(&mut self, element: &[u8], offset: u64) {
        self.warn(WarningKind::NonObjectEvent, offset, format!("{} in the event array", excerpt(element)));
    }
    /// Whether the last element given ([`ScanSink::event`], [`ScanSink::event_direct`],
    /// [`ScanSink::non_object`]) left nothing that [`ScanSink::repeat_last`] cannot do again:
    /// no row, only counts and warnings.
    fn last_repeatable(&self) -> bool {
        false
    }
    /// `n` more elements, each the same bytes as the last one (asked only when
    /// [`ScanSink::last_repeatable`]): what reading each would do.
    fn repeat_last(&mut self, _n: u32) {}
    /// Recoverable damage.
    fn warn(&mut self, kind: WarningKind, offset: u64, detail: String);
}

/// The longest element, and the longest separator after it, that [`Scanner`] looks for copies
/// of ([`ScanSink::repeat_last`]).
const REPEAT_MOST: usize = 64;

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
    /// Unconsumed bytes of the previous chunks (a partial value), the window while it is not empty.
    carry: Vec<u8>,
    /// Absolute offset of the window's first byte.
    base: u64,
    /// Next byte to scan in the window (like every other position here).
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
    /// Started after an element ([`Scanner::after_element`]): the array is not empty.
    prior_elements: bool,
}

impl Default for Scanner {
    fn default() -> Self {
        Scanner {
            carry: Vec::new(),
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
            prior_elements: false,
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

/// Bytes of a chunk added to `carry` at a time while completing a partial value: a few events'
/// worth, so the rest of the chunk is mostly scanned where it lies.
const CARRY_PIECE: usize = 4096;

fn is_ws(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r')
}

impl Scanner {
    /// The document shape, once known.
    pub fn shape(&self) -> Option<Shape> {
        self.shape
    }

    /// A scanner starting inside the event array, right after an element that ends at absolute
    /// offset `base` (a block of a file read in parts, `super::blocks`); `in_object`: the array
    /// is the value of `traceEvents` (not a bare array). Element indexes count from 0.
    pub fn after_element(base: u64, in_object: bool) -> Scanner {
        Scanner {
            base,
            state: State::ArrayAfterElem,
            shape: Some(if in_object { Shape::Object } else { Shape::BareArray }),
            in_object,
            saw_events: true,
            key: "traceEvents".to_string(),
            after_sep: false,
            prior_elements: true,
            ..Scanner::default()
        }
    }

    /// Whether everything pushed so far ends right after an element of the event array (nothing
    /// partial is waiting).
    pub fn at_element_end(&self) -> bool {
        self.state == State::ArrayAfterElem && self.val.is_none() && self.carry.is_empty() && !self.ignoring
    }

    /// Whether the event array has been read to its end (what follows holds no events).
    pub fn past_events(&self) -> bool {
        self.saw_events && !matches!(self.state, State::ArrayElem | State::ArrayAfterElem)
    }

    /// Elements of the event array seen so far.
    pub fn elements(&self) -> u32 {
        self.element_index
    }

    /// Whether to wait for more input before reporting what was found at `pos`: the excerpt in
    /// the message shows up to 40 bytes, and must not depend on how the input was chunked.
    fn wait_for_excerpt(&self, data: &[u8]) -> bool {
        !self.ending && data.len() - self.pos <= 40
    }

    /// Absolute offset of the next unscanned byte.
    fn at(&self, i: usize) -> u64 {
        self.base + i as u64
    }

    /// Feeds the next chunk.
    pub fn push(&mut self, chunk: &[u8], sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        let mut rest = chunk;
        // complete a partial value from the previous chunks, a piece of this chunk at a time, until
        // what remains unconsumed lies in this chunk alone
        while !self.carry.is_empty() && !rest.is_empty() {
            let old = self.carry.len();
            let piece = rest.len().min(CARRY_PIECE);
            self.carry.extend_from_slice(&rest[..piece]);
            let carry = std::mem::take(&mut self.carry);
            let r = self.run(&carry, sink);
            self.carry = carry;
            r?;
            if self.ignoring {
                // `run` counted the window; what follows in the chunk is counted below
                self.carry.clear();
                rest = &rest[piece..];
                break;
            }
            let keep = self.keep();
            if keep >= old {
                // `carry[keep..]` is `rest[keep - old..piece]`: continue in the chunk itself
                self.rebase(keep);
                self.carry.clear();
                rest = &rest[keep - old..];
                break;
            }
            self.compact();
            rest = &rest[piece..];
        }
        if self.ignoring {
            self.base += rest.len() as u64;
            return Ok(());
        }
        if self.carry.is_empty() && !rest.is_empty() {
            self.run(rest, sink)?;
            if self.ignoring {
                return Ok(());
            }
            let keep = self.keep();
            self.carry.extend_from_slice(&rest[keep..]);
            self.rebase(keep);
        }
        Ok(())
    }

    /// Window position of the first byte still needed: a partial value's start, or the next byte.
    fn keep(&self) -> usize {
        match &self.val {
            Some((v, _)) => v.start,
            None => self.pos,
        }
    }

    /// Moves the window start forward by `by` bytes (positions follow).
    fn rebase(&mut self, by: usize) {
        self.base += by as u64;
        self.pos -= by;
        if let Some((v, _)) = &mut self.val {
            v.start -= by;
            v.pos -= by;
        }
    }

    /// Drops the consumed bytes of `carry`, keeping a partial value.
    fn compact(&mut self) {
        let keep = self.keep();
        if keep > 0 {
            self.carry.drain(..keep);
            self.rebase(keep);
        }
    }

    /// Ends the input. Warns about truncation; errors if no trace was found at all.
    pub fn finish(&mut self, sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        self.ending = true;
        let carry = std::mem::take(&mut self.carry);
        let r = self.run(&carry, sink);
        self.carry = carry;
        r?;
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

    /// Scans the window `data` from `pos` as far as it goes.
    fn run(&mut self, data: &[u8], sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        loop {
            if let Some((v, purpose)) = self.val {
                match Self::continue_value(data, v) {
                    Err(v) => {
                        self.val = Some((v, purpose));
                        return Ok(());
                    }
                    Ok(end) => {
                        self.val = None;
                        self.value_done(data, v.start, end, purpose, sink)?;
                        self.pos = end;
                        if purpose == Purpose::Element {
                            self.pos = self.copies(data, v.start, end, sink);
                        }
                        continue;
                    }
                }
            }
            // skip whitespace
            while self.pos < data.len() && is_ws(data[self.pos]) {
                self.pos += 1;
            }
            if self.pos >= data.len() {
                return Ok(());
            }
            let c = data[self.pos];
            let here = self.at(self.pos);
            match self.state {
                State::Start => {
                    // UTF-8 byte order mark
                    if data[self.pos..].starts_with(&[0xef, 0xbb, 0xbf]) {
                        self.pos += 3;
                        continue;
                    }
                    if data.len() - self.pos < 3 && data[self.pos] == 0xef {
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
                        _ if self.wait_for_excerpt(data) => return Ok(()),
                        _ => {
                            return Err(ReadError::new(here, "a JSON trace ('{' or '[')", excerpt(&data[self.pos..])));
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
                    _ if self.wait_for_excerpt(data) => return Ok(()),
                    _ => return Err(ReadError::new(here, "a key string or '}' in the top-level object", excerpt(&data[self.pos..]))),
                },
                State::ObjColon => {
                    if c != b':' {
                        if self.wait_for_excerpt(data) {
                            return Ok(());
                        }
                        return Err(ReadError::new(here, format!("':' after the key \"{}\"", self.key), excerpt(&data[self.pos..])));
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
                        _ if self.wait_for_excerpt(data) => return Ok(()),
                        _ => {
                            return Err(ReadError::new(
                                here,
                                format!("a JSON value for the key \"{}\"", self.key),
                                excerpt(&data[self.pos..]),
                            ))
                        }
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
                    _ if self.wait_for_excerpt(data) => return Ok(()),
                    _ => return Err(ReadError::new(here, "',' or '}' after a top-level value", excerpt(&data[self.pos..]))),
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
                        if self.after_sep && (self.element_index > 0 || self.prior_elements) {
                            sink.warn(WarningKind::StrayComma, here, "trailing ',' before ']'".into());
                        }
                        self.pos += 1;
                        self.state = if self.in_object { State::ObjAfterValue } else { State::Done };
                    }
                    b'{' if data.get(self.pos + 1) == Some(&b'}') => {
                        // `{}` placeholders, and whole runs of `{},{},…` (an inflated gzip bomb
                        // of them reads at the speed of whitespace)
                        let mut n = 1u32;
                        self.pos += 2;
                        while n < u32::MAX && data[self.pos..].starts_with(b",{}") {
                            n += 1;
                            self.pos += 3;
                        }
                        sink.empty_events(here, self.element_index, n);
                        self.element_index = self.element_index.saturating_add(n);
                        self.after_sep = false;
                        self.state = State::ArrayAfterElem;
                    }
                    b'{' => {
                        if let Some(len) = sink.event_direct(&data[self.pos..], here, self.element_index) {
                            self.element_index += 1;
                            self.after_sep = false;
                            self.state = State::ArrayAfterElem;
                            self.pos = self.copies(data, self.pos, self.pos + len, sink);
                        } else {
                            self.start_value(ValKind::Object, Purpose::Element);
                        }
                    }
                    b'[' => self.start_value(ValKind::Array, Purpose::Element),
                    b'"' => self.start_value(ValKind::Str, Purpose::Element),
                    b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => self.start_value(ValKind::Scalar, Purpose::Element),
                    _ if self.wait_for_excerpt(data) => return Ok(()),
                    _ => return Err(ReadError::new(here, "an event object '{', ',' or ']'", excerpt(&data[self.pos..]))),
                },
                State::Done => {
                    if self.wait_for_excerpt(data) {
                        return Ok(());
                    }
                    sink.warn(
                        WarningKind::TrailingData,
                        here,
                        format!("{} after the end of the JSON document", excerpt(&data[self.pos..])),
                    );
                    // ignore everything that follows
                    self.ignoring = true;
                    self.base += data.len() as u64;
                    self.pos = 0;
                    return Ok(());
                }
            }
        }
    }

    /// After the element `data[start..end]`: the copies of it that follow in `data`, each after
    /// the same separator (a comma and the same whitespace), given to the sink at once
    /// ([`ScanSink::repeat_last`]) when the element left no row (a gzip bomb of `{"a":1},` or
    /// `null,` reads at close to the speed of whitespace). Returns where scanning goes on: after
    /// the last whole copy, or `end`.
    fn copies(&mut self, data: &[u8], start: usize, end: usize, sink: &mut dyn ScanSink) -> usize {
        let len = end - start;
        if len > REPEAT_MOST || data.get(end) != Some(&b',') || !sink.last_repeatable() || probe::no_copies() {
            return end;
        }
        let mut next = end + 1;
        while next < data.len() && next - end <= REPEAT_MOST && is_ws(data[next]) {
            next += 1;
        }
        // one copy: the separator and the element's bytes
        let unit = next - end + len;
        if data.len() < end + unit || data[next..next + len] != data[start..end] {
            return end;
        }
        let unit = &data[end..end + unit];
        let (mut n, most, mut at) = (0u32, u32::MAX - self.element_index, end);
        while n < most && data[at..].starts_with(unit) {
            n += 1;
            at += unit.len();
        }
        sink.repeat_last(n);
        probe::copied(n);
        self.element_index += n;
        at
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
    fn continue_value(buf: &[u8], mut v: ValScan) -> Result<usize, ValScan> {
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

    fn value_done(&mut self, data: &[u8], start: usize, end: usize, purpose: Purpose, sink: &mut dyn ScanSink) -> Result<(), ReadError> {
        let off = self.at(start);
        match purpose {
            Purpose::Key => {
                let raw = &data[start + 1..end - 1];
                self.key = match crate::read::json::unescape(raw) {
                    Ok(k) => k.into_owned(),
                    Err(_) => String::from_utf8_lossy(raw).into_owned(),
                };
                self.state = State::ObjColon;
            }
            Purpose::MetaValue => {
                let key = std::mem::take(&mut self.key);
                sink.meta(&key, &data[start..end], off);
                self.key = key;
                self.state = State::ObjAfterValue;
            }
            Purpose::Element => {
                let index = self.element_index;
                self.element_index += 1;
                if data[start] == b'{' {
                    sink.event(&data[start..end], off, index);
                } else {
                    sink.non_object(&data[start..end], off);
                }
                self.after_sep = false;
                self.state = State::ArrayAfterElem;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what the scanner reports; `direct` also takes the `event_direct` fast path.
    #[derive(Default, PartialEq, Debug)]
    struct Log {
        direct: bool,
        seen: Vec<String>,
    }

    impl ScanSink for Log {
        fn meta(&mut self, key: &str, value: &[u8], offset: u64) {
            self.seen.push(format!("meta {key} {offset} {}", String::from_utf8_lossy(value)));
        }
        fn event(&mut self, bytes: &[u8], offset: u64, index: u32) {
            self.seen.push(format!("event {index} {offset} {}", String::from_utf8_lossy(bytes)));
        }
        fn event_direct(&mut self, rest: &[u8], offset: u64, index: u32) -> Option<usize> {
            if !self.direct {
                return None;
            }
            let mut r = crate::read::json::ObjectReader::new(rest).ok()?;
            while r.next_entry().ok()?.is_some() {}
            self.event(&rest[..r.position()], offset, index);
            Some(r.position())
        }
        fn warn(&mut self, kind: WarningKind, offset: u64, detail: String) {
            self.seen.push(format!("warn {kind:?} {offset} {detail}"));
        }
    }

    fn scan(doc: &[u8], chunk: usize, direct: bool) -> (Vec<String>, Result<(), ReadError>) {
        let mut s = Scanner::default();
        let mut log = Log { direct, ..Log::default() };
        let mut r = Ok(());
        for c in doc.chunks(chunk) {
            r = s.push(c, &mut log);
            if r.is_err() {
                break;
            }
        }
        if r.is_ok() {
            r = s.finish(&mut log);
        }
        (log.seen, r)
    }

    /// Events split across chunks of every size around `CARRY_PIECE` (one event longer than it,
    /// a stray comma, a long top-level value, trailing data) are reported as from one chunk.
    #[test]
    fn chunking_does_not_change_what_is_found() {
        let long = "x".repeat(3 * CARRY_PIECE);
        let mut doc = String::from("{\"a\": 1, \"traceEvents\": [");
        for i in 0..200 {
            doc += &format!("{{\"name\": \"e{i}\", \"ts\": {i}.5, \"args\": {{\"k\": [{i}, \"]\\\"\"]}}}},\n  ");
            if i == 77 {
                doc += &format!("{{\"name\": \"{long}\"}}, ,");
            }
            if i == 120 {
                // placeholders: a run (counted at once when in one chunk), spaced ones
                doc += &"{},".repeat(50);
                doc += "{} , { },";
            }
        }
        doc += &format!("{{}}], \"meta\": {{\"s\": \"{long}\"}}}} trailing");
        for direct in [false, true] {
            let whole = scan(doc.as_bytes(), doc.len(), direct);
            assert!(whole.1.is_ok() && whole.0.len() > 200, "{whole:?}");
            for chunk in [1, 3, 40, 41, 999, CARRY_PIECE - 1, CARRY_PIECE, CARRY_PIECE + 1, 2 * CARRY_PIECE + 7, 20_000] {
                assert_eq!(scan(doc.as_bytes(), chunk, direct), whole, "chunk {chunk} direct {direct}");
            }
        }
        // truncated inside an event, and an error after a long valid prefix
        let cut = &doc.as_bytes()[..doc.find("e150").unwrap()];
        let bad = format!("{}x", &doc[..doc.find("{\"name\": \"e150").unwrap()]);
        for d in [cut, bad.as_bytes()] {
            let whole = scan(d, d.len(), true);
            for chunk in [1, 41, CARRY_PIECE + 1, 10_000] {
                assert_eq!(scan(d, chunk, true), whole, "chunk {chunk}");
            }
        }
    }
}
