//! Reading one Chrome-trace file on several threads: the page's Web Workers (a wasm instance each,
//! no shared memory) split the work of a large file.
//!
//! 1. The reading side ([`super::FileReader::new_split`]) inflates the file and cuts its content
//!    into *blocks* of about `target` bytes without parsing it: each cut goes where the bytes look
//!    like the end of one event object and the start of the next (`}` `,` `{`), a guess.
//! 2. Any worker parses a block ([`parse_block`]) with the same scanner and [`ChromeSink`] as a
//!    sequential read: the first block from the start of the document, the others as if right
//!    after an element of the event array. It reports whether the block indeed ended right after
//!    an element (the cut was good) and returns the partial rank, encoded.
//! 3. The reading side merges the partial ranks in block order ([`Splitter::arrived`]): strings
//!    and ids are interned again, rows appended (element indexes shifted), tallies added, and `E`
//!    events whose `B` was in an earlier block are closed. A block is used only if the one
//!    before it ended cleanly, which makes its start a true element boundary; otherwise the cut
//!    was a bad guess (a `},{` inside a string or a nested array) and the two blocks are parsed
//!    again as one, here.
//!
//! The result is the rank a sequential read gives, row for row, string id for string id, warning
//! for warning (tested on every trace in `../shared` and `testdata/`, with blocks down to 1 byte).
//!
//! Encodings (little-endian, private to this module: both ends are this code):
//! * block: `seq u32, flags u8 (1 first, 2 last, 4 in an object), base offset u64, warnings
//!   (JSON, only on the last block: found at the end of the input before the scanner's end),
//!   content`;
//! * result: `seq u32, clean u8, error (JSON, empty if none), elements u32, shape u8, meta (JSON)`,
//!   then the partial rank ([`encode_partial`]).

use std::collections::BTreeMap;

use super::chrome::{ChromeSink, ChromeState, PendingEnd};
use super::scan::{ScanSink, Scanner, Shape};
use crate::error::{ReadError, Warning, WarningKind};
use crate::model::events::flags;
use crate::model::kind::{ALL_KINDS, ALL_PHASES};
use crate::model::{IdValue, IntArg, NewEvent, RankTrace, StrId, TraceMeta};

/// Document shapes as a result encodes them (by position).
const SHAPES: [Option<Shape>; 4] = [None, Some(Shape::Object), Some(Shape::BareArray), Some(Shape::CommaList)];

const FIRST: u8 = 1;
const LAST: u8 = 2;
const IN_OBJECT: u8 = 4;

/// Bytes after the target size searched for a cut before waiting for more input.
const WINDOW: usize = 256 << 10;

/// A block's header, decoded.
struct Header<'a> {
    seq: u32,
    flags: u8,
    base: u64,
    end_warnings: Vec<(WarningKind, u64, String)>,
    content: &'a [u8],
}

fn header(block: &[u8]) -> Result<Header<'_>, String> {
    let mut d = Dec { b: block, i: 0 };
    let seq = d.u32()?;
    let flags = d.u8()?;
    let base = d.u64()?;
    let w = d.bytes()?;
    let end_warnings = if w.is_empty() { Vec::new() } else { serde_json::from_slice(w).map_err(|e| e.to_string())? };
    Ok(Header { seq, flags, base, end_warnings, content: &block[d.i..] })
}

fn block_bytes(seq: u32, flags: u8, base: u64, end_warnings: &[(WarningKind, u64, String)], parts: &[&[u8]]) -> Vec<u8> {
    let w = if end_warnings.is_empty() { Vec::new() } else { serde_json::to_vec(end_warnings).unwrap_or_default() };
    let mut b = Vec::with_capacity(17 + w.len() + parts.iter().map(|p| p.len()).sum::<usize>());
    b.extend_from_slice(&seq.to_le_bytes());
    b.push(flags);
    b.extend_from_slice(&base.to_le_bytes());
    put_bytes(&mut b, &w);
    for p in parts {
        b.extend_from_slice(p);
    }
    b
}

/// The reading side of a split file: cuts the content into blocks, then merges their results.
pub(super) struct Splitter {
    target: usize,
    /// Content not yet in a block, from absolute offset `pending_at`.
    pending: Vec<u8>,
    pending_at: u64,
    /// How far `pending` was searched for a cut.
    searched: usize,
    /// Whether the document is an object (decided from its first byte).
    in_object: Option<bool>,
    next_seq: u32,
    ready: Vec<Vec<u8>>,
    /// Results that came before their turn: (result, block), by block number.
    waiting: BTreeMap<u32, (Vec<u8>, Vec<u8>)>,
    next_merge: u32,
    /// Blocks that did not end after an element, to parse again with the next one.
    redo: Option<Vec<u8>>,
    /// Elements of the event array in the blocks merged so far.
    elements: u32,
    /// The document's shape, from the first block.
    pub(super) shape: Option<Shape>,
    /// The last block was handed out.
    ended: bool,
}

impl Splitter {
    pub(super) fn new(target: usize) -> Splitter {
        Splitter {
            target: target.max(1),
            pending: Vec::new(),
            pending_at: 0,
            searched: 0,
            in_object: None,
            next_seq: 0,
            ready: Vec::new(),
            waiting: BTreeMap::new(),
            next_merge: 0,
            redo: None,
            elements: 0,
            shape: None,
            ended: false,
        }
    }

    /// Takes content bytes; closes blocks where it finds cuts.
    pub(super) fn content(&mut self, data: &[u8]) {
        if self.pending.capacity() == 0 {
            self.pending.reserve(self.target.saturating_add(WINDOW).min(1 << 30));
        }
        self.pending.extend_from_slice(data);
        if self.in_object.is_none() {
            let start = self.pending.strip_prefix(&[0xef, 0xbb, 0xbf]).unwrap_or(&self.pending);
            if let Some(&c) = start.iter().find(|c| !c.is_ascii_whitespace()) {
                self.in_object = Some(c == b'{');
            }
        }
        while self.pending.len() > self.target {
            let from = self.searched.max(self.target - 1);
            match find_cut(&self.pending[from..]) {
                Some(k) => {
                    let cut = from + k;
                    self.close(cut, 0, &[]);
                }
                None => {
                    // the last few bytes may be the start of a cut
                    self.searched = self.pending.len().saturating_sub(16).max(from);
                    break;
                }
            }
        }
    }

    fn close(&mut self, cut: usize, extra: u8, end_warnings: &[(WarningKind, u64, String)]) {
        let first = if self.next_seq == 0 { FIRST } else { 0 };
        let obj = if self.in_object == Some(true) { IN_OBJECT } else { 0 };
        let b = block_bytes(self.next_seq, first | obj | extra, self.pending_at, end_warnings, &[&self.pending[..cut]]);
        self.ready.push(b);
        self.next_seq += 1;
        self.pending.drain(..cut);
        self.pending_at += cut as u64;
        self.searched = 0;
    }

    /// Ends the input: the rest becomes the last block, which also carries the warnings found
    /// at the end of the input (they come after every event's, before the scanner's own end).
    pub(super) fn end(&mut self, end_warnings: &[(WarningKind, u64, String)]) {
        if !self.ended {
            self.ended = true;
            self.close(self.pending.len(), LAST, end_warnings);
            self.pending = Vec::new();
        }
    }

    /// The blocks closed since the last call, in order.
    pub(super) fn take_ready(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.ready)
    }

    /// Blocks handed out whose result has not arrived yet.
    pub(super) fn outstanding(&self) -> u32 {
        self.next_seq - self.next_merge - self.waiting.len() as u32
    }

    /// Takes the result of `block` (both from [`parse_block`]'s side) and merges every result now
    /// in turn into `rank`. A fatal error of a block whose start is known to be right is the
    /// file's error.
    pub(super) fn arrived(&mut self, rank: &mut RankTrace, st: &mut ChromeState, file: &str, result: Vec<u8>, block: Vec<u8>) -> Result<(), ReadError> {
        self.arrived_inner(rank, st, file, result, block).map_err(|e| match e {
            Fail::Read(e) => e,
            Fail::Damaged(why) => ReadError::new(self.pending_at, "the result of parsing a block of this file", format!("a damaged one ({why})")),
        })
    }

    fn arrived_inner(&mut self, rank: &mut RankTrace, st: &mut ChromeState, file: &str, result: Vec<u8>, block: Vec<u8>) -> Result<(), Fail> {
        let seq = header(&block)?.seq;
        self.waiting.insert(seq, (result, block));
        while let Some((result, block)) = self.waiting.remove(&self.next_merge) {
            self.next_merge += 1;
            let (result, block) = match self.redo.take() {
                None => (result, block),
                Some(before) => {
                    // the blocks since the last clean end, parsed again as one from that end
                    let (a, b) = (header(&before)?, header(&block)?);
                    let joined = block_bytes(b.seq, a.flags & (FIRST | IN_OBJECT) | b.flags & LAST, a.base, &b.end_warnings, &[a.content, b.content]);
                    (parse_block(file, &joined)?, joined)
                }
            };
            let mut d = Dec { b: &result, i: 4 };
            if d.u8()? == 0 {
                self.redo = Some(block);
                continue;
            }
            let error = d.bytes()?;
            if !error.is_empty() {
                let (offset, expected, found): (u64, String, String) = serde_json::from_slice(error)?;
                return Err(Fail::Read(ReadError::new(offset, expected, found)));
            }
            let elements = d.u32()?;
            let shape = d.u8()?;
            if header(&block)?.flags & FIRST != 0 {
                self.shape = SHAPES.get(shape as usize).copied().flatten();
            }
            let meta: TraceMeta = serde_json::from_slice(d.bytes()?)?;
            merge_meta(&mut rank.meta, meta);
            merge(rank, st, file, &result[d.i..], self.elements)?;
            self.elements += elements;
        }
        Ok(())
    }
}

/// Why merging stopped: the file's fatal error, or a result that does not decode (a bug).
enum Fail {
    Read(ReadError),
    Damaged(String),
}

impl From<String> for Fail {
    fn from(why: String) -> Fail {
        Fail::Damaged(why)
    }
}

impl From<serde_json::Error> for Fail {
    fn from(e: serde_json::Error) -> Fail {
        Fail::Damaged(e.to_string())
    }
}

/// Where a block may end in `b`: just after a `}` followed by `,` and `{` (whitespace between).
fn find_cut(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(k) = memchr::memchr(b'}', &b[i..]) {
        let at = i + k;
        let mut j = at + 1;
        let skip = |j: &mut usize| {
            while *j < b.len() && b[*j].is_ascii_whitespace() {
                *j += 1;
            }
        };
        skip(&mut j);
        if j < b.len() && b[j] == b',' {
            j += 1;
            skip(&mut j);
            if j < b.len() && b[j] == b'{' {
                return Some(at + 1);
            }
        }
        i = at + 1;
    }
    None
}

/// A block's top-level keys, into the file's metadata.
fn merge_meta(m: &mut TraceMeta, p: TraceMeta) {
    // a key seen later wins, as in a sequential read
    macro_rules! later {
        ($($f:ident),*) => { $( if p.$f.is_some() { m.$f = p.$f; } )* };
    }
    later!(schema_version, display_time_unit, base_time_ns, distributed, trace_name);
    m.devices.extend(p.devices);
    m.top_level_keys.extend(p.top_level_keys);
    m.ts_fractional_or_missing |= p.ts_fractional_or_missing;
}

/// Block number of an encoded block or result.
pub fn block_seq(block: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(block.get(..4)?.try_into().ok()?))
}

/// Parses one block of the file `file` (from its split reader) into an encoded result for that
/// reader's `add_partial`.
pub fn parse_block(file: &str, block: &[u8]) -> Result<Vec<u8>, String> {
    let h = header(block)?;
    let mut rank = RankTrace::default();
    let mut st = ChromeState { defer_ends: true, ..ChromeState::default() };
    let mut scanner = if h.flags & FIRST != 0 { Scanner::default() } else { Scanner::after_element(h.base, h.flags & IN_OBJECT != 0) };
    let mut error = None;
    {
        let mut sink = ChromeSink { st: &mut st, rank: &mut rank, file };
        let mut r = scanner.push(h.content, &mut sink);
        if r.is_ok() && h.flags & LAST != 0 {
            for (kind, offset, detail) in h.end_warnings {
                ScanSink::warn(&mut sink, kind, offset, detail);
            }
            r = scanner.finish(&mut sink);
        }
        if let Err(e) = r {
            error = Some((e.offset, e.expected, e.found));
        }
    }
    let clean = error.is_some() || h.flags & LAST != 0 || scanner.at_element_end();
    let mut out = h.seq.to_le_bytes().to_vec();
    out.push(u8::from(clean));
    put_bytes(&mut out, &error.map(|e| serde_json::to_vec(&e).unwrap_or_default()).unwrap_or_default());
    out.extend_from_slice(&scanner.elements().to_le_bytes());
    out.push(SHAPES.iter().position(|&x| x == scanner.shape()).unwrap_or(0) as u8);
    put_bytes(&mut out, &serde_json::to_vec(&rank.meta).map_err(|e| e.to_string())?);
    encode_partial(&mut out, &rank, &st);
    Ok(out)
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

macro_rules! put_col {
    ($out:expr, $col:expr) => {{
        $out.extend_from_slice(&($col.len() as u32).to_le_bytes());
        for x in $col.iter() {
            $out.extend_from_slice(&x.to_le_bytes());
        }
    }};
}

/// Partial rank: strings, ids, event columns, sparse columns, names, counts, tallies, flags,
/// warnings, open `B` events and pending `E` events, in that order.
fn encode_partial(out: &mut Vec<u8>, rank: &RankTrace, st: &ChromeState) {
    out.extend_from_slice(&(rank.strings.len() as u32).to_le_bytes());
    for s in rank.strings.iter() {
        put_bytes(out, s.as_bytes());
    }
    let ids = rank.ids.values();
    out.extend_from_slice(&(ids.len() as u32).to_le_bytes());
    for v in ids {
        match v {
            IdValue::Int(i) => {
                out.push(0);
                out.extend_from_slice(&i.to_le_bytes());
            }
            IdValue::Str(s) => {
                out.push(1);
                out.extend_from_slice(&i64::from(s.0).to_le_bytes());
            }
        }
    }
    let ev = &rank.events;
    put_col!(out, ev.index);
    put_col!(out, ev.phase.iter().map(|&p| p as u8).collect::<Vec<u8>>());
    put_col!(out, ev.kind.iter().map(|&k| k as u8).collect::<Vec<u8>>());
    put_col!(out, ev.cat.iter().map(|s| s.0).collect::<Vec<u32>>());
    put_col!(out, ev.name.iter().map(|s| s.0).collect::<Vec<u32>>());
    put_col!(out, ev.ts);
    put_col!(out, ev.dur);
    put_col!(out, ev.pid);
    put_col!(out, ev.tid);
    put_col!(out, ev.stream);
    put_col!(out, ev.correlation);
    put_col!(out, ev.external_id);
    put_col!(out, ev.flags);
    out.extend_from_slice(&(ev.int_args.len() as u32).to_le_bytes());
    for &(e, a, v) in &ev.int_args {
        out.extend_from_slice(&e.to_le_bytes());
        out.push(a as u8);
        out.extend_from_slice(&v.to_le_bytes());
    }
    for col in [&ev.counters, &ev.profiler_range_args] {
        out.extend_from_slice(&(col.len() as u32).to_le_bytes());
        for &(e, k, v) in col {
            out.extend_from_slice(&e.to_le_bytes());
            out.extend_from_slice(&k.0.to_le_bytes());
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    out.extend_from_slice(&(ev.name_suffix.len() as u32).to_le_bytes());
    for &(e, a, b) in &ev.name_suffix {
        for x in [e, a, b] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    put_bytes(out, ev.suffix_text.as_bytes());
    out.extend_from_slice(&(rank.process_names.len() as u32).to_le_bytes());
    for (&pid, name) in &rank.process_names {
        out.extend_from_slice(&pid.to_le_bytes());
        put_bytes(out, name.as_bytes());
    }
    out.extend_from_slice(&(rank.thread_names.len() as u32).to_le_bytes());
    for (&(pid, tid), name) in &rank.thread_names {
        out.extend_from_slice(&pid.to_le_bytes());
        out.extend_from_slice(&tid.to_le_bytes());
        put_bytes(out, name.as_bytes());
    }
    out.extend_from_slice(&rank.counts.events.to_le_bytes());
    out.extend_from_slice(&rank.counts.empty_placeholders.to_le_bytes());
    put_col!(out, st.counts.kinds);
    put_col!(out, st.counts.cats);
    put_col!(out, st.counts.phases);
    let h = &st.hints;
    out.push(u8::from(h.paddle) | u8::from(h.string_times) << 1 | u8::from(h.kineto) << 2 | u8::from(rank.meta.ts_fractional_or_missing) << 3);
    let warnings: Vec<&Warning> = rank.warnings.iter().collect();
    put_bytes(out, serde_json::to_string(&warnings).unwrap_or_default().as_bytes());
    // open `B`s per thread, oldest first; threads in a fixed order
    let mut open: Vec<_> = st.open.iter().filter(|(_, v)| !v.is_empty()).collect();
    open.sort_by_key(|(k, _)| **k);
    out.extend_from_slice(&(open.len() as u32).to_le_bytes());
    for (&(pid, tid), stack) in open {
        out.extend_from_slice(&pid.to_le_bytes());
        out.extend_from_slice(&tid.to_le_bytes());
        out.extend_from_slice(&(stack.len() as u32).to_le_bytes());
        for &(e, off) in stack {
            out.extend_from_slice(&e.to_le_bytes());
            out.extend_from_slice(&off.to_le_bytes());
        }
    }
    out.extend_from_slice(&(st.pending_ends.len() as u32).to_le_bytes());
    for p in &st.pending_ends {
        out.extend_from_slice(&p.pid.to_le_bytes());
        out.extend_from_slice(&p.tid.to_le_bytes());
        out.extend_from_slice(&p.ts.to_le_bytes());
        out.extend_from_slice(&p.offset.to_le_bytes());
        out.extend_from_slice(&p.name.0.to_le_bytes());
        out.extend_from_slice(&(p.warnings_before as u32).to_le_bytes());
    }
}

/// Cursor over an encoded block or partial rank; running past the end is an error.
struct Dec<'a> {
    b: &'a [u8],
    i: usize,
}

macro_rules! get_num {
    ($name:ident, $t:ty) => {
        fn $name(&mut self) -> Result<$t, String> {
            const N: usize = std::mem::size_of::<$t>();
            let s = self.b.get(self.i..self.i + N).ok_or("truncated")?;
            self.i += N;
            Ok(<$t>::from_le_bytes(s.try_into().map_err(|_| "truncated")?))
        }
    };
}

impl<'a> Dec<'a> {
    get_num!(u8, u8);
    get_num!(u32, u32);
    get_num!(u64, u64);
    get_num!(i64, i64);
    get_num!(f64, f64);

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let n = self.u32()? as usize;
        let s = self.b.get(self.i..self.i + n).ok_or("truncated")?;
        self.i += n;
        Ok(s)
    }

    fn text(&mut self) -> Result<&'a str, String> {
        std::str::from_utf8(self.bytes()?).map_err(|e| e.to_string())
    }

    /// A column of `u32`s/`i64`s/`u8`s/`u64`s: its length, then the values.
    fn col<T>(&mut self, get: impl Fn(&mut Self) -> Result<T, String>) -> Result<Vec<T>, String> {
        let n = self.u32()? as usize;
        if n > self.b.len() {
            return Err("truncated".into());
        }
        (0..n).map(|_| get(self)).collect()
    }
}

/// Merges an encoded partial rank into `rank`, as if its events had been read right after the
/// rank's (`elements_before`: elements of the event array before the block).
fn merge(rank: &mut RankTrace, st: &mut ChromeState, file: &str, partial: &[u8], elements_before: u32) -> Result<(), String> {
    let mut d = Dec { b: partial, i: 0 };
    let strs: Vec<StrId> = d.col(Dec::text)?.into_iter().map(|s| rank.strings.intern(s)).collect();
    let s = |id: u32| strs.get(id as usize).copied().ok_or_else(|| format!("string {id} out of range"));
    let id_vals = d.col(|d| Ok((d.u8()?, d.i64()?)))?;
    let mut ids = Vec::with_capacity(id_vals.len());
    for (tag, v) in id_vals {
        let v = if tag == 0 { IdValue::Int(v) } else { IdValue::Str(s(v as u32)?) };
        ids.push(rank.ids.intern(v));
    }
    let id = |i: u32| ids.get(i as usize).copied().ok_or_else(|| format!("id {i} out of range"));
    let index = d.col(Dec::u32)?;
    let phase = d.col(Dec::u8)?;
    let kind = d.col(Dec::u8)?;
    let cat = d.col(Dec::u32)?;
    let name = d.col(Dec::u32)?;
    let ts = d.col(Dec::i64)?;
    let dur = d.col(Dec::i64)?;
    let pid = d.col(Dec::u32)?;
    let tid = d.col(Dec::u32)?;
    let stream = d.col(Dec::i64)?;
    let correlation = d.col(Dec::i64)?;
    let external_id = d.col(Dec::i64)?;
    let fl = d.col(Dec::u8)?;
    let n = index.len();
    if [phase.len(), kind.len(), cat.len(), name.len(), ts.len(), dur.len(), pid.len(), tid.len(), stream.len(), correlation.len(), external_id.len(), fl.len()].iter().any(|&l| l != n) {
        return Err("columns of different lengths".into());
    }
    let base = rank.events.ts.len() as u32;
    for r in 0..n {
        rank.events.push(NewEvent {
            index: index[r] + elements_before,
            phase: *ALL_PHASES.get(phase[r] as usize).ok_or("bad phase")?,
            kind: *ALL_KINDS.get(kind[r] as usize).ok_or("bad kind")?,
            cat: s(cat[r])?,
            name: s(name[r])?,
            ts: ts[r],
            dur: dur[r],
            pid: id(pid[r])?,
            tid: id(tid[r])?,
            stream: stream[r],
            correlation: correlation[r],
            external_id: external_id[r],
            flags: fl[r],
        });
    }
    let ev = &mut rank.events;
    for (e, a, v) in d.col(|d| Ok((d.u32()?, d.u8()?, d.i64()?)))? {
        ev.push_int_arg(e + base, *IntArg::ALL.get(a as usize).ok_or("bad arg")?, v);
    }
    for (e, k, v) in d.col(|d| Ok((d.u32()?, d.u32()?, d.f64()?)))? {
        ev.counters.push((e + base, s(k)?, v));
    }
    for (e, k, v) in d.col(|d| Ok((d.u32()?, d.u32()?, d.f64()?)))? {
        ev.profiler_range_args.push((e + base, s(k)?, v));
    }
    let sfx = d.col(|d| Ok((d.u32()?, d.u32()?, d.u32()?)))?;
    let text_base = ev.suffix_text.len() as u32;
    ev.suffix_text.push_str(d.text()?);
    ev.name_suffix.extend(sfx.into_iter().map(|(e, a, b)| (e + base, a + text_base, b + text_base)));
    for (p, name) in d.col(|d| Ok((d.u32()?, d.text()?)))? {
        rank.process_names.insert(id(p)?, name.to_string());
    }
    for (p, t, name) in d.col(|d| Ok((d.u32()?, d.u32()?, d.text()?)))? {
        rank.thread_names.insert((id(p)?, id(t)?), name.to_string());
    }
    rank.counts.events += d.u64()?;
    rank.counts.empty_placeholders += d.u64()?;
    let c = &mut st.counts;
    for (i, k) in d.col(Dec::u64)?.into_iter().enumerate() {
        *c.kinds.get_mut(i).ok_or("bad tally")? += k;
    }
    for (i, k) in d.col(Dec::u64)?.into_iter().enumerate() {
        if k > 0 {
            let at = s(i as u32)?.0 as usize;
            if c.cats.len() <= at {
                c.cats.resize(at + 1, 0);
            }
            c.cats[at] += k;
        }
    }
    for (i, k) in d.col(Dec::u64)?.into_iter().enumerate() {
        *c.phases.get_mut(i).ok_or("bad tally")? += k;
    }
    let bits = d.u8()?;
    st.hints.paddle |= bits & 1 != 0;
    st.hints.string_times |= bits & 2 != 0;
    st.hints.kineto |= bits & 4 != 0;
    rank.meta.ts_fractional_or_missing |= bits & 8 != 0;
    let warnings: Vec<Warning> = serde_json::from_slice(d.bytes()?).map_err(|e| e.to_string())?;
    let open = d.col(|d| Ok((d.u32()?, d.u32()?, d.col(|d| Ok((d.u32()?, d.u64()?)))?)))?;
    let pending = d.col(|d| {
        let (pid, tid, ts, offset, name, before) = (d.u32()?, d.u32()?, d.i64()?, d.u64()?, d.u32()?, d.u32()?);
        Ok(PendingEnd { pid, tid, ts, offset, name: StrId(name), warnings_before: before as usize })
    })?;
    if d.i != partial.len() {
        return Err("trailing bytes".into());
    }
    // `E`s that close a `B` of an earlier block, each where its warning (if unmatched) would
    // have gone among the block's warnings
    let mut pending = pending.into_iter().peekable();
    for i in 0..=warnings.len() {
        while let Some(p) = pending.next_if(|p| p.warnings_before <= i) {
            close_end(rank, st, file, PendingEnd { pid: id(p.pid)?, tid: id(p.tid)?, name: s(p.name.0)?, ..p });
        }
        if let Some(w) = warnings.get(i) {
            rank.warnings.add_counted(w);
        }
    }
    for (p, t, stack) in open {
        let into = st.open.entry((id(p)?, id(t)?)).or_default();
        into.extend(stack.into_iter().map(|(e, off)| (e + base, off)));
    }
    Ok(())
}

/// An `E` (ids already of `rank`) read after every event of `rank`: closes the thread's open `B`,
/// or is reported as a sequential read would.
fn close_end(rank: &mut RankTrace, st: &mut ChromeState, file: &str, p: PendingEnd) {
    match st.open.get_mut(&(p.pid, p.tid)).and_then(|s| s.pop()) {
        Some((b, _)) => {
            let ev = &mut rank.events;
            ev.dur[b as usize] = (p.ts - ev.ts[b as usize]).max(0);
            ev.flags[b as usize] |= flags::HAS_DUR;
        }
        None => {
            let detail = format!("'E' of \"{}\"", rank.strings.get(p.name));
            rank.warnings.add(WarningKind::UnmatchedEnd, file, p.offset, || detail);
        }
    }
}
