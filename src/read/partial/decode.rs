//! Reading a partial back into ranks. Every count, string id, id index, event number and enum
//! number is checked before it is used, so a damaged partial is an error naming the file, the
//! byte and what was expected there, never a panic later in an analysis. (Damage is also caught
//! by the content's CRC-32 before any of this runs; the checks matter for partials that a bug
//! or another program wrote.)

use std::fmt::Display;

use super::{PartialError, Place, MAGIC, VERSION};
use crate::error::Warning;
use crate::model::kind::{ALL_KINDS, ALL_PHASES};
use crate::model::{EventTable, Format, IdValue, IntArg, RankTrace, StrId};
use crate::read::blocks::wire::{Dec, Le};

/// The ranks stored in the partial file `file` whose bytes are `bytes`, in stored order.
pub fn decode(file: &str, bytes: &[u8]) -> Result<Vec<RankTrace>, PartialError> {
    let content = content(file, bytes)?;
    let mut c = Cur { d: Dec { b: &content, i: 0 }, file, place: Place::Content };
    let n = c.count("the number of ranks", 8)?;
    let mut ranks = Vec::with_capacity(n);
    for _ in 0..n {
        ranks.push(rank(&mut c)?);
    }
    if c.d.i != content.len() {
        return Err(c.fail(c.d.i, "the end of the content", format!("{} more bytes", content.len() - c.d.i)));
    }
    Ok(ranks)
}

/// The header checked and the content decompressed, its length and CRC-32 checked.
fn content(file: &str, bytes: &[u8]) -> Result<Vec<u8>, PartialError> {
    if !bytes.starts_with(MAGIC) {
        if !bytes.is_empty() && MAGIC.starts_with(bytes) {
            return Err(Cur::new(file, bytes).fail(bytes.len(), "the 20-byte start KINETOSCOPE-PARTIAL", "the end of the file"));
        }
        return Err(PartialError::NotPartial { file: file.to_string() });
    }
    let mut c = Cur::new(file, bytes);
    c.d.i = MAGIC.len();
    let version = c.num("the format version", Dec::u32)?;
    if version != VERSION {
        // the writer's version follows in version 1; read it if it looks like one
        let writer = c.d.text().ok().filter(|w| w.len() <= 64).map(str::to_string);
        return Err(PartialError::Version { file: file.to_string(), found: version, writer });
    }
    c.text("the writing kinetoscope's version")?;
    let at = c.d.i;
    let compressed = match c.num("the compression byte", Dec::u8)? {
        0 => false,
        1 => true,
        x => return Err(c.fail(at, "the compression byte 0 (none) or 1 (deflate)", x.to_string())),
    };
    let at = c.d.i;
    let len = c.num("the content's length", Dec::u64)?;
    let crc = c.num("the content's CRC-32", Dec::u32)?;
    let body = &bytes[c.d.i..];
    let content = if compressed { inflate(&c, body, len, at)? } else { body.to_vec() };
    if content.len() as u64 != len {
        return Err(c.fail(at, format!("a content of {len} bytes"), format!("{} bytes", content.len())));
    }
    let found = crc32fast::hash(&content);
    if found != crc {
        return Err(c.fail(at + 8, format!("the content's CRC-32 {crc:08x}"), format!("content whose CRC-32 is {found:08x}")));
    }
    Ok(content)
}

/// The deflated `body` (at the cursor) inflated into exactly `len` bytes (the header's length, at `len_at`).
fn inflate(c: &Cur, body: &[u8], len: u64, len_at: usize) -> Result<Vec<u8>, PartialError> {
    use miniz_oxide::inflate::core::{decompress, inflate_flags, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;
    // deflate expands at most 1032 times; a larger length is damage, not a reason to allocate it
    if len > (body.len() as u64).saturating_mul(1032).saturating_add(1024) {
        return Err(c.fail(len_at, format!("a content length possible for {} compressed bytes", body.len()), len.to_string()));
    }
    let mut out = vec![0u8; len as usize];
    let mut d = Box::<DecompressorOxide>::default();
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (status, used, written) = decompress(&mut d, body, &mut out, 0, flags);
    let at = c.d.i + used;
    match status {
        TINFLStatus::Done if used == body.len() && written == out.len() => Ok(out),
        TINFLStatus::Done if used < body.len() => Err(c.fail(at, "the end of the file after the compressed content", "more bytes")),
        TINFLStatus::Done => Err(c.fail(len_at, format!("a content of {len} bytes"), format!("{written} bytes"))),
        TINFLStatus::HasMoreOutput => Err(c.fail(len_at, format!("a content of {len} bytes"), "more")),
        TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
            Err(c.fail(at, "more compressed content", "the end of the file"))
        }
        _ => Err(c.fail(at, "deflate-compressed content", "data that does not inflate")),
    }
}

/// A cursor over a partial's header or content whose errors name the file and the byte.
struct Cur<'a> {
    d: Dec<'a>,
    file: &'a str,
    place: Place,
}

impl<'a> Cur<'a> {
    fn new(file: &'a str, bytes: &'a [u8]) -> Cur<'a> {
        Cur { d: Dec { b: bytes, i: 0 }, file, place: Place::File }
    }

    fn fail(&self, at: usize, expected: impl Into<String>, found: impl Into<String>) -> PartialError {
        PartialError::Damaged {
            file: self.file.to_string(),
            offset: at as u64,
            place: self.place,
            expected: expected.into(),
            found: found.into(),
        }
    }

    fn end(&self) -> &'static str {
        match self.place {
            Place::File => "the end of the file",
            Place::Content => "the end of the content",
        }
    }

    fn num<T>(&mut self, what: &str, get: fn(&mut Dec<'a>) -> Result<T, crate::read::WireError>) -> Result<T, PartialError> {
        let at = self.d.i;
        get(&mut self.d).map_err(|_| self.fail(at, what, self.end()))
    }

    fn bytes(&mut self, what: &str) -> Result<&'a [u8], PartialError> {
        let at = self.d.i;
        self.d.bytes().map_err(|_| self.fail(at, format!("{what} (its length, then its bytes)"), self.end()))
    }

    fn text(&mut self, what: &str) -> Result<&'a str, PartialError> {
        let at = self.d.i;
        let b = self.bytes(what)?;
        std::str::from_utf8(b).map_err(|_| self.fail(at, format!("{what} as UTF-8"), "bytes that are not UTF-8"))
    }

    /// A count of records of at least `size` bytes each, checked against the bytes left.
    fn count(&mut self, what: &str, size: usize) -> Result<usize, PartialError> {
        let at = self.d.i;
        let n = self.num(what, Dec::u32)? as usize;
        let left = self.d.b.len() - self.d.i;
        if n.saturating_mul(size) > left {
            return Err(self.fail(at, format!("{what}, each of {size} bytes or more"), format!("{n}, with {left} bytes left")));
        }
        Ok(n)
    }

    /// A column of `n` values (its length, then the values), each mapped by `f`, which returns
    /// `None` for a value outside `valid`.
    fn column<T: Le + Display + Copy, U>(
        &mut self,
        what: &str,
        n: usize,
        valid: &str,
        f: impl Fn(T) -> Option<U>,
    ) -> Result<Vec<U>, PartialError> {
        let at = self.d.i;
        let len = self.num(&format!("the length of the {what} column"), Dec::u32)? as usize;
        if len != n {
            return Err(self.fail(at, format!("the {what} column's length {n} (one value per event)"), len.to_string()));
        }
        let (start, raw) = self.take(what, n, T::SIZE)?;
        let mut out = Vec::with_capacity(n);
        for (k, b) in raw.chunks_exact(T::SIZE).enumerate() {
            let v = T::read_le(b);
            out.push(f(v).ok_or_else(|| self.fail(start + k * T::SIZE, format!("{what}: {valid}"), v.to_string()))?);
        }
        Ok(out)
    }

    /// `n` records of `size` bytes: where they start and their bytes.
    fn take(&mut self, what: &str, n: usize, size: usize) -> Result<(usize, &'a [u8]), PartialError> {
        let start = self.d.i;
        let len = n.saturating_mul(size);
        let raw = self
            .d
            .b
            .get(start..start.saturating_add(len))
            .ok_or_else(|| self.fail(start, format!("{n} {what} values ({len} bytes)"), self.end()))?;
        self.d.i += len;
        Ok((start, raw))
    }

    /// A counted list of `size`-byte records: where they start and their bytes.
    fn records(&mut self, what: &str, size: usize) -> Result<(usize, &'a [u8]), PartialError> {
        let n = self.count(&format!("the number of {what}"), size)?;
        self.take(what, n, size)
    }
}

fn rank(c: &mut Cur) -> Result<RankTrace, PartialError> {
    let mut r = RankTrace { rank: c.num("a rank number", Dec::u32)?, ..Default::default() };
    for _ in 0..c.count("the number of input files", 4)? {
        r.files.push(c.text("an input file name")?.to_string());
    }
    r.input_bytes = c.num("the input size", Dec::u64)?;
    let at = c.d.i;
    r.format = match c.num("the format", Dec::u8)? {
        0 => None,
        k => Some(
            *Format::ALL
                .get(k as usize - 1)
                .ok_or_else(|| c.fail(at, format!("a format number up to {}", Format::ALL.len()), k.to_string()))?,
        ),
    };
    let at = c.d.i;
    r.meta =
        serde_json::from_slice(c.bytes("the file's metadata")?).map_err(|e| c.fail(at, "the file's metadata as JSON", e.to_string()))?;
    strings(c, &mut r)?;
    ids(c, &mut r)?;
    r.events = columns(c, r.strings.len(), r.ids.len())?;
    sparse(c, &mut r.events, r.strings.len())?;
    names(c, &mut r)?;
    counts(c, &mut r)?;
    let at = c.d.i;
    let warnings: Vec<Warning> =
        serde_json::from_slice(c.bytes("the warnings")?).map_err(|e| c.fail(at, "the warnings as JSON", e.to_string()))?;
    for w in &warnings {
        r.warnings.add_counted(w);
    }
    Ok(r)
}

fn strings(c: &mut Cur, r: &mut RankTrace) -> Result<(), PartialError> {
    for k in 0..c.count("the number of strings", 4)? {
        let at = c.d.i;
        let s = c.text("a string")?;
        if r.strings.intern(s).0 as usize != k {
            let expected = if k == 0 { "the empty string (string 0)" } else { "a string not stored before (each is stored once)" };
            return Err(c.fail(at, expected, format!("{s:?}")));
        }
    }
    Ok(())
}

fn ids(c: &mut Cur, r: &mut RankTrace) -> Result<(), PartialError> {
    let strings = r.strings.len() as i64;
    for k in 0..c.count("the number of pid/tid values", 9)? {
        let at = c.d.i;
        let (tag, v) = (c.num("a pid/tid tag", Dec::u8)?, c.num("a pid/tid value", Dec::i64)?);
        let id = match tag {
            0 => IdValue::Int(v),
            1 if (0..strings).contains(&v) => IdValue::Str(StrId(v as u32)),
            _ => {
                return Err(c.fail(
                    at,
                    format!("a pid/tid: tag 0 and an integer, or tag 1 and a string below {strings}"),
                    format!("tag {tag}, {v}"),
                ))
            }
        };
        if r.ids.intern(id) as usize != k {
            return Err(c.fail(at, "a pid/tid not stored before (each is stored once)", format!("tag {tag}, {v}")));
        }
    }
    Ok(())
}

fn columns(c: &mut Cur, strings: usize, ids: usize) -> Result<EventTable, PartialError> {
    // 63 bytes of columns per event
    let n = c.count("the number of events", 63)?;
    let string = |s: u32| ((s as usize) < strings).then_some(StrId(s));
    let id = |i: u32| ((i as usize) < ids).then_some(i);
    let (below_strings, below_ids) = (format!("a string number below {strings}"), format!("an id number below {ids}"));
    Ok(EventTable {
        index: c.column::<u32, u32>("index", n, "", Some)?.into_iter().collect(),
        phase: c.column("phase", n, "a phase number below 11", |p: u8| ALL_PHASES.get(p as usize).copied())?,
        kind: c.column("kind", n, "a kind number below 28", |k: u8| ALL_KINDS.get(k as usize).copied())?,
        cat: c.column("cat", n, &below_strings, string)?.into_iter().collect(),
        name: c.column("name", n, &below_strings, string)?.into_iter().collect(),
        ts: c.column("ts", n, "", Some)?,
        dur: c.column::<i64, i64>("dur", n, "", Some)?.into_iter().collect(),
        pid: c.column("pid", n, &below_ids, id)?.into_iter().collect(),
        tid: c.column("tid", n, &below_ids, id)?.into_iter().collect(),
        stream: c.column::<i64, i64>("stream", n, "", Some)?.into_iter().collect(),
        correlation: c.column::<i64, i64>("correlation", n, "", Some)?.into_iter().collect(),
        external_id: c.column::<i64, i64>("external_id", n, "", Some)?.into_iter().collect(),
        flags: c.column("flags", n, "", Some)?,
        ..Default::default()
    })
}

/// The sparse columns; every event number below the events', every string number below the strings'.
fn sparse(c: &mut Cur, ev: &mut EventTable, strings: usize) -> Result<(), PartialError> {
    let n = ev.len();
    let bad = |c: &Cur, at: usize, what: &str, found: String| {
        c.fail(at, format!("{what}: an event below {n}, a string below {strings}, a known argument number"), found)
    };
    let (start, raw) = c.records("int_args", 13)?;
    for (k, b) in raw.chunks_exact(13).enumerate() {
        let (e, a, v) = (u32::read_le(&b[..4]), b[4], i64::read_le(&b[5..]));
        let arg = IntArg::ALL.get(a as usize).filter(|_| (e as usize) < n);
        ev.int_args.push((e, *arg.ok_or_else(|| bad(c, start + 13 * k, "int_args", format!("event {e}, argument {a}")))?, v));
    }
    for (what, col) in [("counters", &mut ev.counters), ("profiler_range_args", &mut ev.profiler_range_args)] {
        let (start, raw) = c.records(what, 16)?;
        for (k, b) in raw.chunks_exact(16).enumerate() {
            let (e, s, v) = (u32::read_le(&b[..4]), u32::read_le(&b[4..8]), f64::read_le(&b[8..]));
            if e as usize >= n || s as usize >= strings {
                return Err(bad(c, start + 16 * k, what, format!("event {e}, string {s}")));
            }
            col.push((e, StrId(s), v));
        }
    }
    let (start, raw) = c.records("name_suffix", 12)?;
    let suffixes: Vec<(u32, u32, u32)> =
        raw.chunks_exact(12).map(|b| (u32::read_le(&b[..4]), u32::read_le(&b[4..8]), u32::read_le(&b[8..]))).collect();
    ev.suffix_text = c.text("the name suffixes' text")?.to_string();
    for (k, &(e, a, b)) in suffixes.iter().enumerate() {
        if e as usize >= n || a > b || ev.suffix_text.get(a as usize..b as usize).is_none() {
            return Err(c.fail(
                start + 12 * k,
                format!("name_suffix: an event below {n} and a range of the suffix text"),
                format!("event {e}, {a}..{b}"),
            ));
        }
    }
    ev.name_suffix = suffixes;
    let (start, raw) = c.records("call_args", 8)?;
    for (k, b) in raw.chunks_exact(8).enumerate() {
        let (e, s) = (u32::read_le(&b[..4]), u32::read_le(&b[4..]));
        if e as usize >= n || s as usize >= strings {
            return Err(bad(c, start + 8 * k, "call_args", format!("event {e}, string {s}")));
        }
        ev.call_args.push((e, StrId(s)));
    }
    Ok(())
}

fn names(c: &mut Cur, r: &mut RankTrace) -> Result<(), PartialError> {
    let ids = r.ids.len() as u32;
    let id = |c: &mut Cur, what: &str| {
        let at = c.d.i;
        let i = c.num(what, Dec::u32)?;
        if i < ids {
            Ok(i)
        } else {
            Err(c.fail(at, format!("{what} below {ids}"), i.to_string()))
        }
    };
    for _ in 0..c.count("the number of process names", 8)? {
        let pid = id(c, "a process name's pid")?;
        r.process_names.insert(pid, c.text("a process name")?.to_string());
    }
    for _ in 0..c.count("the number of thread names", 12)? {
        let key = (id(c, "a thread name's pid")?, id(c, "a thread name's tid")?);
        r.thread_names.insert(key, c.text("a thread name")?.to_string());
    }
    Ok(())
}

fn counts(c: &mut Cur, r: &mut RankTrace) -> Result<(), PartialError> {
    let k = &mut r.counts;
    k.events = c.num("the number of events read", Dec::u64)?;
    k.empty_placeholders = c.num("the number of empty placeholders", Dec::u64)?;
    for (what, map) in [("kinds", &mut k.kinds), ("categories", &mut k.categories), ("phases", &mut k.phases)] {
        for _ in 0..c.count(&format!("the number of {what} counted"), 12)? {
            let key = c.text(&format!("a name of the {what} counted"))?.to_string();
            map.insert(key, c.num("a count", Dec::u64)?);
        }
    }
    Ok(())
}
