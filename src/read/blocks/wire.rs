//! The encodings of blocks, range jobs and results: both ends are this code (the reading side
//! and the helpers), so the format is private to [`super`] and has no version. (The cursor
//! [`Dec`], [`put_bytes`], [`put_event_columns`] and [`Le`] also serve the partial files of
//! [`crate::read::partial`], whose format is versioned.)
//!
//! All little-endian:
//! * content block: `seq u32, flags u8 (1 first, 2 last, 4 in an object, 64 its CRC-32
//!   wanted), base offset u64, warnings (JSON, only on the last block: found at the end of the
//!   input before the scanner's end), content`;
//! * range job: `seq u32, flags u8 (the above + 8 range, 16 exact start, 32 parses again),
//!   start u64, end u64`;
//! * result: `seq u32, flags u8 (the job's), clean u8 (0 no, 1 yes, 2 no and past the event
//!   array), start u64 (of the content parsed), crc u32 (of a content block's content, if
//!   wanted; else 0), error
//!   (JSON, empty if none), elements u32, shape u8, meta (JSON)`, then the partial rank
//!   ([`encode_partial`]; decoded by the merge, straight into the file's rank).

use std::fmt;

use crate::error::{Warning, WarningKind};
use crate::model::{IdValue, RankTrace};
use crate::read::chrome::ChromeState;
use crate::read::scan::Shape;

/// Why an encoded block, job, result or partial rank does not decode: a bug, or damage on the
/// way between the reading side and a helper; never the trace's fault. `Display` writes the
/// text the error shows.
#[derive(Debug)]
pub enum WireError {
    /// It ends before a value it announces.
    Truncated,
    /// A column whose length is not the number of rows.
    ColumnLengths,
    /// A range job of the wrong length, or whose end is before its start.
    DamagedRangeJob,
    /// Text that is not UTF-8.
    Utf8(std::str::Utf8Error),
    /// A part encoded as JSON (warnings, metadata, a block's error) that does not parse.
    Json(serde_json::Error),
    /// A string number past the partial rank's strings.
    StringOutOfRange(u32),
    /// An id number past the partial rank's ids.
    IdOutOfRange(u32),
    /// A phase number the model does not have.
    BadPhase,
    /// A kind number the model does not have.
    BadKind,
    /// A sparse argument number the model does not have.
    BadArg,
    /// A tally of kinds or phases longer than the model's.
    BadTally,
    /// Bytes after the end of a partial rank.
    TrailingBytes,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::Truncated => f.write_str("truncated"),
            WireError::ColumnLengths => f.write_str("columns of different lengths"),
            WireError::DamagedRangeJob => f.write_str("damaged range job"),
            WireError::Utf8(e) => e.fmt(f),
            WireError::Json(e) => e.fmt(f),
            WireError::StringOutOfRange(id) => write!(f, "string {id} out of range"),
            WireError::IdOutOfRange(id) => write!(f, "id {id} out of range"),
            WireError::BadPhase => f.write_str("bad phase"),
            WireError::BadKind => f.write_str("bad kind"),
            WireError::BadArg => f.write_str("bad arg"),
            WireError::BadTally => f.write_str("bad tally"),
            WireError::TrailingBytes => f.write_str("trailing bytes"),
        }
    }
}

impl std::error::Error for WireError {}

impl From<serde_json::Error> for WireError {
    fn from(e: serde_json::Error) -> WireError {
        WireError::Json(e)
    }
}

/// Document shapes as a result encodes them (by position).
pub(super) const SHAPES: [Option<Shape>; 4] = [None, Some(Shape::Object), Some(Shape::BareArray), Some(Shape::CommaList)];

/// A block's or job's flags: the file's first block, its last, and the document is an object.
pub(super) const FIRST: u8 = 1;
pub(super) const LAST: u8 = 2;
pub(super) const IN_OBJECT: u8 = 4;
/// A range job: the worker reads the bytes itself.
pub(super) const RANGE: u8 = 8;
/// A range job whose start is a known element boundary (no cut to search at the start).
pub(super) const EXACT: u8 = 16;
/// A range job that parses again what a block whose end was a bad guess left: its result takes
/// the place of the next block's own.
pub(super) const REDO: u8 = 32;
/// A content block whose content's CRC-32 goes in its result: the reading side checks a gzip
/// file's members from them ([`super::crc`]).
pub(super) const CRC: u8 = 64;

/// A result's `clean` byte: the block ended right after an element of the event array (or had
/// an error, or ended the file); ended elsewhere inside it; ended after the event array had
/// closed, where no more events can come.
pub(super) const CLEAN: u8 = 1;
pub(super) const UNCLEAN: u8 = 0;
pub(super) const PAST_EVENTS: u8 = 2;

/// A block's header, decoded.
pub(super) struct Header<'a> {
    pub(super) seq: u32,
    pub(super) flags: u8,
    pub(super) base: u64,
    /// A range job's end (0 for a content block).
    pub(super) end: u64,
    pub(super) end_warnings: Vec<(WarningKind, u64, String)>,
    pub(super) content: &'a [u8],
}

pub(super) fn header(block: &[u8]) -> Result<Header<'_>, WireError> {
    let mut d = Dec { b: block, i: 0 };
    let seq = d.u32()?;
    let flags = d.u8()?;
    let base = d.u64()?;
    if flags & RANGE != 0 {
        let end = d.u64()?;
        if d.i != block.len() || end < base {
            return Err(WireError::DamagedRangeJob);
        }
        return Ok(Header { seq, flags, base, end, end_warnings: Vec::new(), content: &[] });
    }
    let w = d.bytes()?;
    let end_warnings = if w.is_empty() { Vec::new() } else { serde_json::from_slice(w)? };
    Ok(Header { seq, flags, base, end: 0, end_warnings, content: &block[d.i..] })
}

/// A range job's length: its sequence number, flags, start and end.
pub const RANGE_JOB_BYTES: usize = 4 + 1 + 8 + 8;

pub(super) fn range_job(seq: u32, flags: u8, start: u64, end: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(RANGE_JOB_BYTES);
    b.extend_from_slice(&seq.to_le_bytes());
    b.push(flags | RANGE);
    b.extend_from_slice(&start.to_le_bytes());
    b.extend_from_slice(&end.to_le_bytes());
    b
}

/// A range job's byte range `[start, end)` in the file (`None` for a content block): the worker
/// reads from `start` to a little past `end`, where the block's last cut is searched. The first
/// [`RANGE_JOB_BYTES`] of a job are enough to tell.
pub fn job_range(job: &[u8]) -> Option<(u64, u64)> {
    header(job).ok().filter(|h| h.flags & RANGE != 0).map(|h| (h.base, h.end))
}

/// A content block's number (`None`: too short to hold one); only its first 4 bytes are read.
pub fn block_seq(block: &[u8]) -> Option<u32> {
    block.get(..4).map(u32::read_le)
}

pub(super) fn block_bytes(seq: u32, flags: u8, base: u64, end_warnings: &[(WarningKind, u64, String)], content: &[u8]) -> Vec<u8> {
    let w = if end_warnings.is_empty() { Vec::new() } else { serde_json::to_vec(end_warnings).unwrap_or_default() };
    let mut b = Vec::with_capacity(BLOCK_HEAD + w.len() + content.len());
    b.resize(BLOCK_HEAD, 0);
    put_block_head(&mut b, seq, flags, base, w.len() as u32);
    b.extend_from_slice(&w);
    b.extend_from_slice(content);
    b
}

/// The bytes of a content block's head, before its warnings (if any) and content: sequence
/// number, flags, base offset and the warnings' length.
pub(super) const BLOCK_HEAD: usize = 4 + 1 + 8 + 4;

/// Writes a content block's head into the first [`BLOCK_HEAD`] bytes of `head`: by
/// [`block_bytes`], and where a block is made in the buffer its content already is in.
pub(super) fn put_block_head(head: &mut [u8], seq: u32, flags: u8, base: u64, warnings_len: u32) {
    head[..4].copy_from_slice(&seq.to_le_bytes());
    head[4] = flags;
    head[5..13].copy_from_slice(&base.to_le_bytes());
    head[13..BLOCK_HEAD].copy_from_slice(&warnings_len.to_le_bytes());
}

/// Where a result's CRC-32 is: after its sequence number, flags, clean byte and start.
pub(super) const RESULT_CRC_AT: usize = 4 + 1 + 1 + 8;

pub(super) fn result_head(seq: u32, flags: u8, clean: u8, start: u64, crc: u32, error: Option<&(u64, String, String)>) -> Vec<u8> {
    let mut out = seq.to_le_bytes().to_vec();
    out.push(flags);
    out.push(clean);
    out.extend_from_slice(&start.to_le_bytes());
    out.extend_from_slice(&crc.to_le_bytes());
    put_bytes(&mut out, &error.map(|e| serde_json::to_vec(e).unwrap_or_default()).unwrap_or_default());
    out
}

pub(crate) fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// Appends a column of `n` values of `N` bytes each (little-endian) through [`put_column`].
fn put_fixed<const N: usize>(out: &mut Vec<u8>, n: usize, values: impl Iterator<Item = [u8; N]>) {
    put_column(out, n, N, |slots| {
        for (slot, v) in slots.chunks_exact_mut(N).zip(values) {
            slot.copy_from_slice(&v);
        }
    });
}

/// Appends a column of `n` values of `size` bytes each: its length (`u32`), then the values,
/// which `write` puts into the room made for them at once (the columns' own `write_le`: a
/// push per value checked the room each time, and the compact columns' iterators went a value
/// at a time).
fn put_column(out: &mut Vec<u8>, n: usize, size: usize, write: impl FnOnce(&mut [u8])) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
    let start = out.len();
    out.resize(start + n * size, 0);
    write(&mut out[start..]);
}

/// The 13 lengths of [`put_event_columns`], in bytes.
const EVENT_COLUMNS_BYTES: usize = 13 * 4;
/// A row's values in [`put_event_columns`]: index, phase, kind, cat, name, ts, dur, pid, tid,
/// stream, correlation, external id, flags.
const EVENT_ROW_BYTES: usize = 4 + 1 + 1 + 4 + 4 + 8 + 8 + 4 + 4 + 8 + 8 + 8 + 1;
/// Room for the lengths and small fields after the event columns (sparse columns, names,
/// counts, tallies, flags, warnings, open and pending events: a few hundred bytes beyond their
/// records).
const SPARSE_LENGTHS_BYTES: usize = 4 << 10;

/// The dense event columns, each with its length: index, phase, kind, cat, name, ts, dur, pid,
/// tid, stream, correlation, external id, flags (the partial-rank wire and partial files).
pub(crate) fn put_event_columns(out: &mut Vec<u8>, ev: &crate::model::events::EventTable) {
    // room for all at once (a value at a time grew the buffer ~20 times a column): 13 lengths,
    // then a row's values (index, phase, kind, cat, name, ts, dur, pid, tid, stream,
    // correlation, external id, flags)
    out.reserve(EVENT_COLUMNS_BYTES + ev.ts.len() * EVENT_ROW_BYTES);
    put_column(out, ev.index.len(), 4, |b| ev.index.write_le(b));
    put_fixed(out, ev.phase.len(), ev.phase.iter().map(|&p| [p as u8]));
    put_fixed(out, ev.kind.len(), ev.kind.iter().map(|&k| [k as u8]));
    put_column(out, ev.cat.len(), 4, |b| ev.cat.write_le(b));
    put_column(out, ev.name.len(), 4, |b| ev.name.write_le(b));
    put_fixed(out, ev.ts.len(), ev.ts.iter().map(|t| t.to_le_bytes()));
    put_column(out, ev.dur.len(), 8, |b| ev.dur.write_le(b));
    put_column(out, ev.pid.len(), 4, |b| ev.pid.write_le(b));
    put_column(out, ev.tid.len(), 4, |b| ev.tid.write_le(b));
    for c in [&ev.stream, &ev.correlation, &ev.external_id] {
        put_column(out, c.len(), 8, |b| c.write_le(b));
    }
    put_bytes(out, &ev.flags);
}

/// Partial rank: strings, ids, event columns, sparse columns, names, counts, tallies, flags,
/// warnings, open `B` events and pending `E` events, in that order.
pub(super) fn encode_partial(out: &mut Vec<u8>, rank: &RankTrace, st: &ChromeState) {
    // room for the strings, ids, event columns and sparse columns at once: growing the buffer
    // copies it, and in wasm (no remapping `realloc`) each block's result was copied once more
    let ev = &rank.events;
    out.reserve(
        4 + rank.strings.iter().map(|s| s.len() + 4).sum::<usize>()
            + 4
            + rank.ids.values().len() * 9
            + EVENT_COLUMNS_BYTES
            + ev.ts.len() * EVENT_ROW_BYTES
            + SPARSE_LENGTHS_BYTES
            + ev.int_args.len() * 13
            + (ev.counters.len() + ev.profiler_range_args.len()) * 16
            + ev.name_suffix.len() * 12
            + ev.suffix_text.len(),
    );
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
    put_event_columns(out, ev);
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
    for tally in [&st.counts.kinds[..], &st.counts.cats, &st.counts.phases] {
        put_fixed(out, tally.len(), tally.iter().map(|k| k.to_le_bytes()));
    }
    let h = &st.hints;
    out.push(
        u8::from(h.paddle) | u8::from(h.string_times) << 1 | u8::from(h.kineto) << 2 | u8::from(rank.meta.ts_fractional_or_missing) << 3,
    );
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
pub(crate) struct Dec<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) i: usize,
}

macro_rules! get_num {
    ($name:ident, $t:ty) => {
        pub(crate) fn $name(&mut self) -> Result<$t, WireError> {
            const N: usize = std::mem::size_of::<$t>();
            let s = self.b.get(self.i..self.i + N).ok_or(WireError::Truncated)?;
            self.i += N;
            Ok(<$t>::from_le_bytes(s.try_into().map_err(|_| WireError::Truncated)?))
        }
    };
}

impl<'a> Dec<'a> {
    get_num!(u8, u8);
    get_num!(u32, u32);
    get_num!(u64, u64);
    get_num!(i64, i64);
    get_num!(f64, f64);

    pub(crate) fn bytes(&mut self) -> Result<&'a [u8], WireError> {
        let n = self.u32()? as usize;
        let s = self.b.get(self.i..self.i + n).ok_or(WireError::Truncated)?;
        self.i += n;
        Ok(s)
    }

    pub(crate) fn text(&mut self) -> Result<&'a str, WireError> {
        std::str::from_utf8(self.bytes()?).map_err(WireError::Utf8)
    }

    /// The bytes of a column of `n` values of `T` (its length, which must be `n`, then the
    /// values), for the merge's extends ([`extend_coded`], [`extend_ids`]).
    pub(crate) fn raw(&mut self, n: usize, size: usize) -> Result<&'a [u8], WireError> {
        if self.u32()? as usize != n {
            return Err(WireError::ColumnLengths);
        }
        let len = n.checked_mul(size).ok_or(WireError::Truncated)?;
        let s = self.b.get(self.i..self.i + len).ok_or(WireError::Truncated)?;
        self.i += len;
        Ok(s)
    }

    /// A column of records of `size` bytes: their number and their bytes.
    pub(crate) fn records(&mut self, size: usize) -> Result<(usize, &'a [u8]), WireError> {
        let n = Dec { b: self.b, i: self.i }.u32()? as usize;
        Ok((n, self.raw(n, size)?))
    }

    /// A column of `u32`s/`i64`s/`u8`s/`u64`s: its length, then the values.
    pub(crate) fn col<T>(&mut self, get: impl Fn(&mut Self) -> Result<T, WireError>) -> Result<Vec<T>, WireError> {
        let n = self.u32()? as usize;
        if n > self.b.len() {
            return Err(WireError::Truncated);
        }
        (0..n).map(|_| get(self)).collect()
    }
}

/// A number as a partial rank encodes it (little-endian).
pub(crate) trait Le: Sized {
    const SIZE: usize;
    /// The number in `b` (exactly [`Le::SIZE`] bytes).
    fn read_le(b: &[u8]) -> Self;
}

macro_rules! le {
    ($($t:ty),*) => {$(
        impl Le for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn read_le(b: &[u8]) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                <$t>::from_le_bytes(a)
            }
        }
    )*};
}
le!(u8, u32, u64, i64, f64);

/// Appends the ids of a raw column of `u32`s ([`Dec::raw`]) to `col`, each the entry of `table` it
/// numbers (`out_of_range`: the error of a number past the table).
pub(crate) fn extend_ids<U: crate::model::column::Id>(
    col: &mut crate::model::IdColumn<U>,
    raw: &[u8],
    table: &[U],
    out_of_range: fn(u32) -> WireError,
) -> Result<(), WireError> {
    // checked, then mapped, then appended at once: the range and the column's width are each
    // checked once for all rows, not at each one
    let codes = raw.chunks_exact(4).map(u32::read_le);
    if let Some(i) = codes.clone().max().filter(|&i| i as usize >= table.len()) {
        return Err(out_of_range(codes.clone().find(|&c| c as usize >= table.len()).unwrap_or(i)));
    }
    let ids: Vec<u32> = codes.map(|i| table[i as usize].to_u32()).collect();
    col.extend_from_u32s(&ids);
    Ok(())
}

/// Appends the values a raw column of one-byte codes ([`Dec::raw`]) names in `table`: the codes
/// checked once for all rows (`bad` if one is past the table), then mapped.
pub(crate) fn extend_coded<U: Copy>(col: &mut Vec<U>, raw: &[u8], table: &[U], bad: WireError) -> Result<(), WireError> {
    if raw.iter().any(|&c| c as usize >= table.len()) {
        return Err(bad);
    }
    col.extend(raw.iter().map(|&c| table[c as usize]));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_mapped_through_their_table_and_checked_against_it() {
        let raw: Vec<u8> = [2u32, 0, 1].iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut col: crate::model::IdColumn<u32> = Default::default();
        extend_ids(&mut col, &raw, &[10u32, 70_000, 30], WireError::IdOutOfRange).unwrap();
        assert_eq!(col.iter().collect::<Vec<_>>(), [30, 10, 70_000]);
        // the first code past the table is named, not the largest
        let raw: Vec<u8> = [0u32, 5, 9].iter().flat_map(|v| v.to_le_bytes()).collect();
        let e = extend_ids(&mut col, &raw, &[1u32, 2], WireError::IdOutOfRange).unwrap_err();
        assert!(matches!(e, WireError::IdOutOfRange(5)), "{e}");
        assert_eq!(col.len(), 3);
    }
}
