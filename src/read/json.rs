//! A reader for one complete JSON object (one trace event): yields its keys and values without
//! building a tree. Strings borrow from the input unless they contain escapes; numbers are
//! returned as their raw text (so times can be converted exactly); nested objects and arrays
//! are returned as raw byte spans to be read only if needed (`args`).

use std::borrow::Cow;

use memchr::{memchr2, memchr3};

mod gaps;

pub use gaps::{Gaps, END};
use gaps::{NONE, START};

/// A JSON value inside an event.
#[derive(Debug, Clone, PartialEq)]
pub enum JVal<'a> {
    /// A string (unescaped).
    Str(Cow<'a, str>),
    /// A number, as written.
    Num(&'a [u8]),
    /// `true`/`false`.
    Bool(bool),
    /// `null`.
    Null,
    /// A nested object, raw bytes including the braces.
    Object(&'a [u8]),
    /// A nested array, raw bytes including the brackets.
    Array(&'a [u8]),
}

impl JVal<'_> {
    /// Short type name for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            JVal::Str(_) => "a string",
            JVal::Num(_) => "a number",
            JVal::Bool(_) => "a boolean",
            JVal::Null => "null",
            JVal::Object(_) => "an object",
            JVal::Array(_) => "an array",
        }
    }

    /// Integer value of a number, or of a string holding a decimal integer.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            JVal::Num(t) => parse_int(t),
            JVal::Str(s) => parse_int(s.trim().as_bytes()),
            _ => None,
        }
    }

    /// Float value of a number (or numeric string).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            JVal::Num(t) => std::str::from_utf8(t).ok()?.parse().ok(),
            JVal::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    }
}

/// Parses a JSON integer; also accepts integral decimals like `12.0` and `1e3`.
pub fn parse_int(t: &[u8]) -> Option<i64> {
    let (neg, digits) = match t.first() {
        Some(b'-') => (true, &t[1..]),
        _ => (false, t),
    };
    if !digits.is_empty() && digits.len() <= 18 {
        // one pass, eight digits at a time; at most 18 digits fit an i64
        let (end, v) = crate::model::time::digits(digits, 0, 0);
        if end == digits.len() {
            return Some(if neg { -(v as i64) } else { v as i64 });
        }
    }
    let s = std::str::from_utf8(t).ok()?;
    if let Ok(v) = s.parse::<i64>() {
        return Some(v);
    }
    let f: f64 = s.parse().ok()?;
    (f.fract() == 0.0 && f.abs() < 9.0e18).then_some(f as i64)
}

/// Where and why an object could not be read (offset relative to the object start).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonError {
    /// Offset in the object's bytes.
    pub at: usize,
    /// What was expected there.
    pub expected: &'static str,
}

/// Bytes scanned a word at a time before handing a long span to `memchr`: JSON strings and the
/// gaps between tokens are mostly shorter, where `memchr`'s setup costs more than it saves.
const SHORT_SPAN: usize = 32;

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The high bit of every byte of `w` equal to `b`, possibly with false positives *above* the
/// first true one (a borrow only carries upward), so the lowest set bit is always exact.
#[inline(always)]
fn eq_mask(w: u64, b: u8) -> u64 {
    let x = w ^ (LO * b as u64);
    x.wrapping_sub(LO) & !x & HI
}

/// The 8 bytes at `i` as a little-endian word (byte `i` lowest).
#[inline(always)]
fn word(hay: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(hay[i..i + 8].try_into().unwrap_or([0; 8]))
}

/// Position of the first byte of `hay` for which `hit` (a word mask from [`eq_mask`]s) is set:
/// whole words first (SWAR, portable to wasm32), the tail bytewise, spans longer than
/// [`SHORT_SPAN`] by `long`.
#[inline(always)]
fn find_by(hay: &[u8], hit: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool, long: impl Fn(&[u8]) -> Option<usize>) -> Option<usize> {
    let short = hay.len().min(SHORT_SPAN);
    find_words(&hay[..short], hit, is).or_else(|| long(&hay[short..]).map(|k| k + short))
}

/// [`find_by`] without a long search: words all the way, then the tail bytewise.
#[inline(always)]
fn find_words(hay: &[u8], hit: impl Fn(u64) -> u64, is: impl Fn(u8) -> bool) -> Option<usize> {
    let mut i = 0;
    while i + 8 <= hay.len() {
        let m = hit(word(hay, i));
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    hay[i..].iter().position(|&c| is(c)).map(|k| k + i)
}

/// Position of the first `a` or `b` in `hay`.
#[inline]
pub fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    find_by(hay, |w| eq_mask(w, a) | eq_mask(w, b), |c| c == a || c == b, |h| memchr2(a, b, h))
}

/// Like [`find2`] for three bytes.
#[inline]
pub fn find3(a: u8, b: u8, c: u8, hay: &[u8]) -> Option<usize> {
    find_by(hay, |w| eq_mask(w, a) | eq_mask(w, b) | eq_mask(w, c), |x| x == a || x == b || x == c, |h| memchr3(a, b, c, h))
}

/// End of a string body starting at `j` (after the opening quote): the closing quote's position,
/// and whether the body is plain (ASCII, no escapes: most keys and values), checked in the same
/// word-at-a-time pass. `None` if the string does not close within `b`.
#[inline(always)]
fn string_end(b: &[u8], mut j: usize) -> Option<(usize, bool)> {
    let mut high = 0u64;
    let mut escaped = false;
    loop {
        let from = j;
        let at = loop {
            if j - from >= SHORT_SPAN {
                // a long string: memchr's wide search, then its ASCII check
                let at = j + memchr2(b'"', b'\\', &b[j..])?;
                high |= u64::from(!b[j..at].is_ascii());
                break at;
            }
            if j + 8 > b.len() {
                let k = b[j..].iter().position(|&c| c == b'"' || c == b'\\')?;
                high |= b[j..j + k].iter().fold(0, |h, &c| h | (c & 0x80) as u64);
                break j + k;
            }
            let w = word(b, j);
            let m = eq_mask(w, b'"') | eq_mask(w, b'\\');
            if m != 0 {
                let k = (m.trailing_zeros() / 8) as usize;
                // only the bytes before the hit belong to the string
                high |= w & HI & ((1u64 << (k * 8)) - 1);
                break j + k;
            }
            high |= w & HI;
            j += 8;
        };
        if b[at] == b'"' {
            return Some((at, high == 0 && !escaped));
        }
        escaped = true;
        j = at + 2;
        if j > b.len() {
            return None;
        }
    }
}

/// Iterator over the entries of one JSON object.
pub struct ObjectReader<'a> {
    b: &'a [u8],
    i: usize,
    first: bool,
    done: bool,
    /// Set when a string had invalid UTF-8 (replaced).
    pub invalid_utf8: bool,
    /// Set when a stray comma was skipped.
    pub stray_comma: bool,
    /// The gap of [`Gaps`] read last by [`ObjectReader::next_code`] ([`START`] before the first).
    node: u16,
}

#[inline(always)]
fn ws(b: &[u8], i: usize) -> usize {
    // most tokens follow one another directly or after one space
    match b.get(i) {
        Some(&c) if c > b' ' => i,
        Some(b' ') if b.get(i + 1).is_some_and(|&c| c > b' ') => i + 1,
        _ => ws_run(b, i),
    }
}

/// [`ws`] past a longer run (a pretty-printed trace's line break and indent): the line break
/// first, then spaces a word at a time, so that a break and its indent take one pass.
#[inline(never)]
fn ws_run(b: &[u8], mut i: usize) -> usize {
    const SPACES: u64 = LO * b' ' as u64;
    loop {
        while let Some(b'\t' | b'\n' | b'\r') = b.get(i) {
            i += 1;
        }
        if i + 8 <= b.len() {
            let x = word(b, i) ^ SPACES;
            if x == 0 {
                i += 8;
                continue;
            }
            i += (x.trailing_zeros() / 8) as usize;
        } else {
            while b.get(i) == Some(&b' ') {
                i += 1;
            }
        }
        if !matches!(b.get(i), Some(b'\t' | b'\n' | b'\r')) {
            return i;
        }
    }
}

impl<'a> ObjectReader<'a> {
    /// Starts reading the object at the start of `b` (after whitespace). Bytes after the
    /// object's closing brace are never looked at, so `b` may be the rest of a buffer.
    pub fn new(b: &'a [u8]) -> Result<ObjectReader<'a>, JsonError> {
        let i = ws(b, 0);
        if b.get(i) != Some(&b'{') {
            return Err(JsonError { at: i, expected: "'{'" });
        }
        Ok(ObjectReader { b, i: i + 1, first: true, done: false, invalid_utf8: false, stray_comma: false, node: START })
    }

    /// Offset just after the last byte read (after the closing brace once `next_entry` has
    /// returned `Ok(None)`).
    pub fn position(&self) -> usize {
        self.i
    }

    /// The next key and value, `Ok(None)` after the closing brace.
    #[inline(always)]
    pub fn next_entry(&mut self) -> Result<Option<(Cow<'a, str>, JVal<'a>)>, JsonError> {
        match self.next_key()? {
            None => Ok(None),
            Some(k) => Ok(Some((k, self.next_value()?))),
        }
    }

    /// The next key, leaving the reader at its value (read it with [`ObjectReader::next_value`]
    /// or [`ObjectReader::nested_object`]); `Ok(None)` after the closing brace.
    #[inline(always)]
    pub fn next_key(&mut self) -> Result<Option<Cow<'a, str>>, JsonError> {
        if let Some(key) = self.short_key() {
            return Ok(Some(Cow::Borrowed(key)));
        }
        self.next_key_any()
    }

    /// [`ObjectReader::next_key`] for what most keys are: after a comma (or first), plain ASCII
    /// without escapes, at most 15 bytes (two words read at once, no loop), then a colon.
    /// `None` (nothing changed) for anything else, which the general path reads.
    #[inline(always)]
    fn short_key(&mut self) -> Option<&'a str> {
        let b = self.b;
        let mut i = ws(b, self.i);
        if !self.first {
            if b.get(i) != Some(&b',') {
                return None;
            }
            i = ws(b, i + 1);
        }
        if self.done || b.get(i) != Some(&b'"') || i + 17 > b.len() {
            return None;
        }
        let (w0, w1) = (word(b, i + 1), word(b, i + 9));
        let (m0, m1) = (eq_mask(w0, b'"') | eq_mask(w0, b'\\'), eq_mask(w1, b'"') | eq_mask(w1, b'\\'));
        // the key's length: bytes before the first quote or backslash (in the first word or the second)
        let len = if m0 != 0 {
            (m0.trailing_zeros() / 8) as usize
        } else if m1 != 0 {
            8 + (m1.trailing_zeros() / 8) as usize
        } else {
            return None;
        };
        // every byte before it ASCII (no high bit below the hit)
        let high = if len < 8 { w0 & HI & ((1u64 << (len * 8)) - 1) } else { (w0 & HI) | (w1 & HI & ((1u64 << ((len - 8) * 8)) - 1)) };
        let end = i + 1 + len;
        if high != 0 || b[end] != b'"' {
            return None;
        }
        let colon = ws(b, end + 1);
        if b.get(colon) != Some(&b':') {
            return None;
        }
        self.first = false;
        self.i = ws(b, colon + 1);
        // SAFETY: the bytes of the key are all ASCII (checked above), and ASCII is valid UTF-8
        Some(unsafe { std::str::from_utf8_unchecked(&b[i + 1..end]) })
    }

    /// [`ObjectReader::next_key`] for any key, and the end of the object.
    fn next_key_any(&mut self) -> Result<Option<Cow<'a, str>>, JsonError> {
        if self.done {
            return Ok(None);
        }
        let b = self.b;
        let mut i = ws(b, self.i);
        if !self.first {
            match b.get(i) {
                Some(b',') => i = ws(b, i + 1),
                Some(b'}') => {
                    self.done = true;
                    self.i = i + 1;
                    return Ok(None);
                }
                _ => return Err(JsonError { at: i, expected: "',' or '}'" }),
            }
        }
        // tolerate stray commas (`{"a":1,,"b":2}`, `{"a":1,}`)
        while b.get(i) == Some(&b',') {
            self.stray_comma = true;
            i = ws(b, i + 1);
        }
        match b.get(i) {
            Some(b'}') => {
                if !self.first {
                    self.stray_comma = true;
                }
                self.done = true;
                self.i = i + 1;
                return Ok(None);
            }
            Some(b'"') => {}
            _ => return Err(JsonError { at: i, expected: "a key string" }),
        }
        self.first = false;
        let (key, after) = self.string(i)?;
        i = ws(b, after);
        if b.get(i) != Some(&b':') {
            return Err(JsonError { at: i, expected: "':'" });
        }
        self.i = ws(b, i + 1);
        Ok(Some(key))
    }

    /// [`ObjectReader::next_key`] as the caller's code for the key (`code_of`, below [`END`]),
    /// from the bytes alone where they are a gap of `gaps` that followed the previous one
    /// before: the same bytes between two values (separator, whitespace, the key as written,
    /// colon, whitespace) are the same key. Anything else is read by [`ObjectReader::next_key`]
    /// and learnt, unless reading it found a stray comma or invalid UTF-8 (which a gap would not
    /// report again) or the buffer ended in it. `Ok(None)` after the closing brace.
    #[inline(always)]
    pub fn next_code(&mut self, gaps: &mut Gaps, code_of: impl FnOnce(&str) -> u8) -> Result<Option<u8>, JsonError> {
        if self.done {
            return Ok(None);
        }
        if let Some((n, len, key)) = gaps.follow(self.b, self.i, self.node) {
            self.node = n;
            if key == END {
                self.i += len;
                self.done = true;
                return Ok(None);
            }
            // the gap ends after the colon and the whitespace that followed it then: more
            // whitespace may follow it here
            self.i = ws(self.b, self.i + len);
            self.first = false;
            return Ok(Some(key));
        }
        let start = self.i;
        let key = self.next_key()?;
        let code = key.as_deref().map_or(END, code_of);
        debug_assert!(key.is_none() || code != END, "a key's code is below END");
        // a key's gap ends at its value's first byte; one the buffer's end cut short (an
        // incomplete event read first, see `ScanSink::event_direct`) is not learnt
        let whole = key.is_none() || self.i < self.b.len();
        self.node =
            if self.stray_comma || self.invalid_utf8 || !whole { NONE } else { gaps.learn(self.node, &self.b[start..self.i], code) };
        Ok(key.map(|_| code))
    }

    /// The value after a key from [`ObjectReader::next_key`].
    #[inline(always)]
    pub fn next_value(&mut self) -> Result<JVal<'a>, JsonError> {
        let (val, after) = self.value(self.i)?;
        self.i = after;
        Ok(val)
    }

    /// A reader for the object value after a key (instead of [`ObjectReader::next_value`]), so
    /// it is read in the same pass; finish with [`ObjectReader::skip_nested_read`]. `None` if
    /// the value is not an object.
    pub fn nested_object(&self) -> Option<ObjectReader<'a>> {
        (self.b.get(self.i) == Some(&b'{')).then(|| ObjectReader::new(&self.b[self.i..]).ok()).flatten()
    }

    /// Continues after a nested object fully read by `sub` (from [`ObjectReader::nested_object`]);
    /// returns the nested object's bytes.
    pub fn skip_nested_read(&mut self, sub: &ObjectReader<'a>) -> &'a [u8] {
        let start = self.i;
        self.i += sub.position();
        &self.b[start..self.i]
    }

    #[inline(always)]
    fn string(&mut self, i: usize) -> Result<(Cow<'a, str>, usize), JsonError> {
        let b = self.b;
        let (j, plain) = string_end(b, i + 1).ok_or(JsonError { at: b.len(), expected: "'\"' closing a string" })?;
        let raw = &b[i + 1..j];
        let s = if plain {
            // SAFETY: `string_end` found only ASCII bytes, and every ASCII byte sequence is valid
            // UTF-8; this skips the slower general validation for the common case.
            Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(raw) })
        } else {
            match unescape(raw) {
                Ok(s) => s,
                Err(Unescape::BadEscape(k)) => return Err(JsonError { at: i + 1 + k, expected: "a valid escape sequence" }),
                Err(Unescape::Utf8(s)) => {
                    self.invalid_utf8 = true;
                    Cow::Owned(s)
                }
            }
        };
        Ok((s, j + 1))
    }

    #[inline(always)]
    fn value(&mut self, i: usize) -> Result<(JVal<'a>, usize), JsonError> {
        let b = self.b;
        match b.get(i) {
            Some(b'"') => {
                let (s, end) = self.string(i)?;
                Ok((JVal::Str(s), end))
            }
            Some(b'{') => {
                let end = skip_object(b, i).ok_or(JsonError { at: b.len(), expected: "'}' closing an object" })?;
                Ok((JVal::Object(&b[i..end]), end))
            }
            Some(b'[') => {
                let end = skip_array(b, i).map_err(|at| JsonError { at, expected: "']' closing an array" })?;
                Ok((JVal::Array(&b[i..end]), end))
            }
            Some(b'-' | b'0'..=b'9') => {
                let j = number_end(b, i + 1);
                Ok((JVal::Num(&b[i..j]), j))
            }
            Some(b't') if b[i..].starts_with(b"true") => Ok((JVal::Bool(true), i + 4)),
            Some(b'f') if b[i..].starts_with(b"false") => Ok((JVal::Bool(false), i + 5)),
            Some(b'n') if b[i..].starts_with(b"null") => Ok((JVal::Null, i + 4)),
            // Some writers emit NaN/Infinity; accept them as numbers
            Some(b'N') if b[i..].starts_with(b"NaN") => Ok((JVal::Num(&b[i..i + 3]), i + 3)),
            Some(b'I') if b[i..].starts_with(b"Infinity") => Ok((JVal::Num(&b[i..i + 8]), i + 8)),
            _ => Err(JsonError { at: i, expected: "a JSON value" }),
        }
    }
}

/// End (exclusive) of the number whose text continues at `j`: its digits a word at a time (a
/// time in µs has 16), then what follows them (`.`, an exponent) byte by byte.
#[inline(always)]
fn number_end(b: &[u8], mut j: usize) -> usize {
    while j + 8 <= b.len() {
        let w = word(b, j);
        // per byte, the high bit of `ge0` is set if its low 7 bits are at least '0', that of
        // `gt9` if they are above '9' (no borrow or carry crosses a byte): a digit has the first,
        // not the second, and no high bit of its own
        let ge0 = (w | HI).wrapping_sub(LO * b'0' as u64);
        let gt9 = (w & !HI) + LO * (0x80 - b'9' as u64 - 1);
        let other = (!ge0 | gt9 | w) & HI;
        if other != 0 {
            j += (other.trailing_zeros() / 8) as usize;
            break;
        }
        j += 8;
    }
    while j < b.len() && matches!(b[j], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-') {
        j += 1;
    }
    j
}

/// End (exclusive) of the object starting at `i` (its `{`): where its braces balance, outside
/// strings. Brackets are not looked at, as the scanner does not look at them when it finds where
/// an event object ends (`read::scan`), so both see the same end, also in damaged input.
fn skip_object(b: &[u8], i: usize) -> Option<usize> {
    let mut depth = 0u32;
    let mut j = i;
    loop {
        let at = j + find3(b'"', b'{', b'}', &b[j..])?;
        j = match b[at] {
            b'"' => skip_string(b, at)?,
            b'{' => {
                depth += 1;
                at + 1
            }
            _ => {
                depth -= 1;
                if depth == 0 {
                    return Some(at + 1);
                }
                at + 1
            }
        };
    }
}

/// End (exclusive) of the array starting at `i` (its `[`), whose brackets and braces must nest
/// (its first 64 levels are checked); `Err(at)`: where it ends unclosed, at a closing
/// bracket or brace that does not match, or at the end of `b`.
///
/// Counting brackets alone, an array left open in a damaged event (`"ts": [1,`) ran past the
/// event's closing brace, over the events after it, to the `]` that closes the event array: the
/// event, read in place from the rest of the input, then swallowed them, while the same bytes
/// cut into blocks (a large file, the page) stopped at the block's end, so the two reads of one
/// file differed. Now such an array ends at the first brace it did not open, within the
/// event's braces, where the scanner ends the event.
fn skip_array(b: &[u8], i: usize) -> Result<usize, usize> {
    // bit k of `open`: whether level k (from 0, the array's own) is an array (1) or an object (0)
    let (mut depth, mut open) = (0u32, 0u64);
    let mut j = i;
    loop {
        let at = j + find_bracket(&b[j..]).ok_or(b.len())?;
        let c = b[at];
        j = at + 1;
        match c {
            b'"' => j = skip_string(b, at).ok_or(b.len())?,
            b'[' | b'{' => {
                if depth < 64 {
                    open = open & !(1 << depth) | u64::from(c == b'[') << depth;
                }
                depth += 1;
            }
            _ => {
                depth -= 1;
                if depth < 64 && (open >> depth & 1 == 1) != (c == b']') {
                    return Err(at);
                }
                if depth == 0 {
                    return Ok(j);
                }
            }
        }
    }
}

/// End (exclusive) of the string whose opening quote is at `at` ([`string_end`]); `None` if it
/// does not close within `b`.
fn skip_string(b: &[u8], at: usize) -> Option<usize> {
    string_end(b, at + 1).map(|(quote, _)| quote + 1)
}

/// Position of the first `"`, `[`, `]`, `{` or `}` in `hay`, a word at a time (`[` and `{`, `]`
/// and `}` differ only in the bit 0x20, so two masks find all four).
fn find_bracket(hay: &[u8]) -> Option<usize> {
    let hit = |w: u64| {
        let folded = w | (LO * 0x20); // `[` as `{`, `]` as `}`
        eq_mask(w, b'"') | eq_mask(folded, b'{') | eq_mask(folded, b'}')
    };
    find_words(hay, hit, |c| matches!(c, b'"' | b'[' | b']' | b'{' | b'}'))
}

/// Why a string could not be unescaped exactly.
#[derive(Debug)]
pub enum Unescape {
    /// A bad escape sequence at this offset in the raw string.
    BadEscape(usize),
    /// Invalid UTF-8; the lossy conversion is given.
    Utf8(String),
}

/// Resolves JSON escapes in the raw bytes between two quotes.
pub fn unescape(raw: &[u8]) -> Result<Cow<'_, str>, Unescape> {
    if memchr::memchr(b'\\', raw).is_none() {
        return match std::str::from_utf8(raw) {
            Ok(s) => Ok(Cow::Borrowed(s)),
            Err(_) => Err(Unescape::Utf8(String::from_utf8_lossy(raw).into_owned())),
        };
    }
    let mut out: Vec<u8> = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let e = *raw.get(i + 1).ok_or(Unescape::BadEscape(i))?;
        i += 2;
        let ch = match e {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hi = hex4(raw, i).ok_or(Unescape::BadEscape(i - 2))?;
                i += 4;
                let code = if (0xD800..0xDC00).contains(&hi) {
                    if raw.get(i) == Some(&b'\\') && raw.get(i + 1) == Some(&b'u') {
                        let lo = hex4(raw, i + 2).ok_or(Unescape::BadEscape(i))?;
                        if (0xDC00..0xE000).contains(&lo) {
                            i += 6;
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        } else {
                            0xFFFD
                        }
                    } else {
                        0xFFFD
                    }
                } else {
                    hi
                };
                char::from_u32(code).unwrap_or('\u{FFFD}')
            }
            _ => return Err(Unescape::BadEscape(i - 2)),
        };
        let mut tmp = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
    }
    match String::from_utf8(out) {
        Ok(s) => Ok(Cow::Owned(s)),
        Err(e) => Err(Unescape::Utf8(String::from_utf8_lossy(e.as_bytes()).into_owned())),
    }
}

fn hex4(raw: &[u8], i: usize) -> Option<u32> {
    let h = raw.get(i..i + 4)?;
    u32::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok()
}

/// Elements of a raw JSON array (as returned in [`JVal::Array`]).
pub fn array_elements(raw: &[u8]) -> Result<Vec<JVal<'_>>, JsonError> {
    let mut i = ws(raw, 0);
    if raw.get(i) != Some(&b'[') {
        return Err(JsonError { at: i, expected: "'['" });
    }
    // Reuse the object reader's value parser on the same bytes.
    let mut r = ObjectReader { b: raw, i: 0, first: true, done: false, invalid_utf8: false, stray_comma: false, node: START };
    let mut out = Vec::new();
    i = ws(raw, i + 1);
    if raw.get(i) == Some(&b']') {
        return Ok(out);
    }
    loop {
        let (v, after) = r.value(i)?;
        out.push(v);
        i = ws(raw, after);
        match raw.get(i) {
            Some(b',') => i = ws(raw, i + 1),
            Some(b']') => return Ok(out),
            _ => return Err(JsonError { at: i, expected: "',' or ']'" }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(s: &str) -> Result<Vec<(String, JVal<'_>)>, JsonError> {
        let mut r = ObjectReader::new(s.as_bytes())?;
        let mut v = Vec::new();
        while let Some((k, val)) = r.next_entry()? {
            v.push((k.into_owned(), val));
        }
        Ok(v)
    }

    #[test]
    fn reads_event() {
        let e = entries(r#"{"ph":"X","name":"a\"b\u00e9","ts":12.5,"args":{"x":[1,{"y":"}"}]},"ok":true,"n":null}"#).unwrap();
        assert_eq!(e[0], ("ph".into(), JVal::Str("X".into())));
        assert_eq!(e[1].1, JVal::Str("a\"bé".into()));
        assert_eq!(e[2].1, JVal::Num(b"12.5"));
        assert_eq!(e[3].1, JVal::Object(br#"{"x":[1,{"y":"}"}]}"#));
        assert_eq!(e[4].1, JVal::Bool(true));
        assert_eq!(e[5].1, JVal::Null);
    }

    #[test]
    fn errors_and_tolerance() {
        assert_eq!(entries(r#"{"a" 1}"#).unwrap_err().expected, "':'");
        assert_eq!(entries(r#"{"a":1 "b":2}"#).unwrap_err().expected, "',' or '}'");
        assert!(entries(r#"{"a":"\q"}"#).is_err());
        let mut r = ObjectReader::new(br#"{"a":1,,"b":2,}"#).unwrap();
        while r.next_entry().unwrap().is_some() {}
        assert!(r.stray_comma);
        assert_eq!(unescape(br"\ud83d\ude00").unwrap(), "😀");
    }

    #[test]
    fn arrays_end_where_their_brackets_and_braces_nest() {
        // padded so that the brackets fall in every byte of a word and past the word loop
        for pad in ["", "1,", "1,2,3,4,5,6,7,", &"9,".repeat(40)] {
            for (inner, ok) in [
                ("[]", true),
                ("[{\"a\": [1, {\"b\": \"]}[\"}]}, \"x\\\"]\"]", true),
                ("[[1, 2], [3]]", true),
                ("[1, 2}", false),
                ("[{\"a\": 1]", false),
                ("[{\"a\": [1}]", false),
            ] {
                let array = format!("[{pad}{}", &inner[1..]);
                let text = format!("{array}, \"next\": 1}}, {{\"ts\": 2}}]");
                let got = skip_array(text.as_bytes(), 0);
                if ok {
                    assert_eq!(got, Ok(array.len()), "{text}");
                } else {
                    // stops at the first closer that does not match, never past the enclosing brace
                    let at = got.expect_err(&text);
                    assert!(at < array.len() && matches!(text.as_bytes()[at], b']' | b'}'), "{text}: {at}");
                }
            }
        }
        // unclosed to the end of the input, and deeper than the 64 levels whose kinds are checked
        assert_eq!(skip_array(b"[1, [2", 0), Err(6));
        let deep = format!("{}{}", "[".repeat(70), "]".repeat(70));
        assert_eq!(skip_array(deep.as_bytes(), 0), Ok(140));
        // an event whose `ts` array is left open ends at its own brace, as the scanner ends it
        let e = entries(r#"{"ts": [20, "dur": 5, "args": {"x": [1]}}, {"ts": 3}]"#).unwrap_err();
        assert_eq!((e.at, e.expected), (40, "']' closing an array"));
    }

    #[test]
    fn strings_plain_escaped_and_not_ascii() {
        for pad in 0..80 {
            let p = "p".repeat(pad);
            for (body, want) in [("", true), ("abc", true), ("a\\\"b", false), ("é", false), ("\\\\", false)] {
                let text = format!("\"{p}{body}\" tail é");
                let end = text.len() - " tail é".len() - 1;
                assert_eq!(string_end(text.as_bytes(), 1), Some((end, want)), "{text}");
            }
            assert_eq!(string_end(format!("\"{p}é").as_bytes(), 1), None);
            assert_eq!(string_end(format!("\"{p}\\").as_bytes(), 1), None);
        }
        let e = entries(r#"{"k\u00e9":"v\u00e9", "x":"ÿ"}"#).unwrap();
        assert_eq!((e[0].0.as_str(), &e[0].1), ("ké", &JVal::Str("vé".into())));
        assert_eq!(e[1].1, JVal::Str("ÿ".into()));
    }

    #[test]
    fn keys_of_every_length_near_the_word_edges() {
        // the short-key path (up to 15 bytes, two words) and the general one must agree: keys of
        // every length, plain or not, with and without spaces, and close to the buffer's end
        for len in 0..24 {
            for body in ["k".repeat(len), format!("{}é", "k".repeat(len)), format!("{}\\n", "k".repeat(len))] {
                let want: String = body.replace("\\n", "\n");
                for (sep, colon) in [("", ":"), (" ", " : "), ("\n  ", "\n:\t")] {
                    // a long value after it: the short-key path has its two words to read
                    let text = format!("{{\"a\":1,{sep}\"{body}\"{colon}2, \"z\": \"{}\"}}", "x".repeat(20));
                    let e = entries(&text).unwrap();
                    assert_eq!(e[1], (want.clone(), JVal::Num(b"2")), "{text}");
                    assert_eq!(e[2].0, "z");
                    // the key last in the buffer: nothing after its value's digit but the brace
                    assert_eq!(entries(&format!("{{\"{body}\":3}}")).unwrap()[0].0, want);
                }
            }
        }
        assert_eq!(entries(r#"{"abcdefgh":1 "b":2}"#).unwrap_err().expected, "',' or '}'");
        assert_eq!(entries(r#"{"abc" "x"}"#).unwrap_err().expected, "':'");
    }

    #[test]
    fn numbers_end_where_a_plain_scan_ends() {
        // every byte value after runs of digits of every length around the word edges
        let plain = |b: &[u8]| b.iter().position(|c| !matches!(c, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')).unwrap_or(b.len());
        for len in 0..20 {
            for c in 0..=255u8 {
                for tail in [&b""[..], b"1x   ", b"123456789"] {
                    let mut b = vec![b'7'; len];
                    b.push(c);
                    b.extend_from_slice(tail);
                    assert_eq!(number_end(&b, 0), plain(&b), "{b:?}");
                }
            }
        }
    }

    #[test]
    fn skips_whitespace_runs_of_every_length() {
        // spaces with line breaks, tabs and returns at every place, around the word edges, with
        // a token after them or the end of the buffer
        for len in 0..40_usize {
            for odd in [None, Some(0), Some(len / 2), Some(len.saturating_sub(1))] {
                for other in [b'\n', b'\t', b'\r'] {
                    let mut b = vec![b' '; len];
                    if let Some(k) = odd.filter(|&k| k < len) {
                        b[k] = other;
                    }
                    assert_eq!(ws(&b, 0), len, "{b:?}");
                    b.push(b'"');
                    b.extend_from_slice(b"   ");
                    assert_eq!(ws(&b, 0), len, "{b:?}");
                    assert_eq!(ws(&b, len + 1), len + 4, "{b:?}");
                }
            }
        }
        // line breaks of two bytes, and several in a row, before an indent
        for run in ["\r\n    ", "\n\n  ", "\r\n\r\n\t        ", "\n", "\t\t\n \n  \t", " \n        \n        "] {
            let b = format!("{run}\"k\"");
            assert_eq!(ws(b.as_bytes(), 0), run.len(), "{run:?}");
        }
    }

    #[test]
    fn finds_first_of_two_or_three_bytes() {
        // every length and position around the word and SHORT_SPAN edges, against a plain search
        for len in 0..80 {
            for at in 0..=len {
                let mut hay = vec![b'x'; len];
                if at < len {
                    hay[at] = b'"';
                }
                if at + 1 < len {
                    hay[at + 1] = b'\\';
                }
                let want = (at < len).then_some(at);
                assert_eq!(find2(b'"', b'\\', &hay), want, "len {len} at {at}");
                assert_eq!(find3(b'{', b'}', b'"', &hay), want, "len {len} at {at}");
            }
        }
        // bytes that differ from the target by a borrow pattern must not match
        assert_eq!(find2(b'"', b'\\', b"\x21\x23\x01\x00\xa2\x22zzzz"), Some(5));
    }
}
