//! The reading side's merging: results taken in any order, merged in file order; a block whose
//! cut was a bad guess is parsed again with the next one.

use std::fmt;

use super::parse::BlockParse;
use super::wire::{
    extend_coded, extend_ids, header, range_job, Dec, Le, WireError, CLEAN, EXACT, FIRST, IN_OBJECT, LAST, PAST_EVENTS, REDO,
    RESULT_CRC_AT, SHAPES,
};
use super::{Redo, Splitter};
use crate::error::{ReadError, Warning, WarningKind};
use crate::model::events::flags;
use crate::model::kind::{ALL_KINDS, ALL_PHASES};
use crate::model::{IdValue, IntArg, RankTrace, StrId, TraceMeta};
use crate::read::chrome::{ChromeState, PendingEnd};

impl Splitter {
    /// Takes the result of a block or job (from [`super::parse_block`] or [`super::parse_range`]; `block`: the
    /// content block, none for a range job) and merges every result now in turn into `rank`. A
    /// fatal error of a block whose start is known to be right is the file's error.
    pub(in crate::read) fn arrived(
        &mut self,
        rank: &mut RankTrace,
        st: &mut ChromeState,
        file: &str,
        result: Vec<u8>,
        block: Option<Vec<u8>>,
        content: u64,
    ) -> Result<(), ReadError> {
        self.arrived_inner(rank, st, file, result, block, content).map_err(|e| self.fail(e))
    }

    fn fail(&self, e: Fail) -> ReadError {
        match e {
            Fail::Read(e) => e,
            Fail::Damaged(why) => {
                ReadError::new(self.pending_at, "the result of parsing a block of this file", format!("a damaged one ({why})"))
            }
        }
    }

    /// Whether merging the next result (a content block's) needs its block's bytes: to parse
    /// them again (its cut, or an earlier one, was a bad guess) or for a gzip member that ends
    /// inside it.
    fn needs_block(&self, result: &[u8]) -> Result<bool, Fail> {
        if self.ranges.is_some() {
            return Ok(false);
        }
        let clean = Dec { b: result, i: 5 }.u8()?;
        Ok(clean != CLEAN || matches!(self.redo, Some(Redo::Live(_))) || self.crc.as_ref().is_some_and(|c| c.next_needs_content()))
    }

    /// The block whose bytes the merge waits for: its result came without it (the caller kept
    /// it) and it must be parsed again, or a gzip member ends inside it; hand it back with
    /// [`Splitter::block_back`].
    pub(in crate::read) fn wanted(&self) -> Option<u32> {
        self.wanted
    }

    /// Blocks merged so far: the caller may drop the blocks it kept of those.
    pub(in crate::read) fn merged(&self) -> u32 {
        self.next_merge
    }

    fn arrived_inner(
        &mut self,
        rank: &mut RankTrace,
        st: &mut ChromeState,
        file: &str,
        result: Vec<u8>,
        block: Option<Vec<u8>>,
        content: u64,
    ) -> Result<(), Fail> {
        let mut d = Dec { b: &result, i: 0 };
        let seq = d.u32()?;
        if d.u8()? & REDO == 0 && self.absorbed_from.is_some_and(|a| seq >= a) {
            return Ok(()); // the job that reads to the end of the file parses these bytes
        }
        if seq < self.next_merge || seq >= self.next_seq || self.waiting.contains_key(&seq) {
            return Err(Fail::Damaged(Damage::Unexpected(seq)));
        }
        self.waiting.insert(seq, (result, block));
        self.merge_waiting(rank, st, file, content)
    }

    /// Takes back a content block whose result came without it and that the merge wants
    /// ([`Splitter::wanted`]), and merges on.
    pub(in crate::read) fn block_back(
        &mut self,
        rank: &mut RankTrace,
        st: &mut ChromeState,
        file: &str,
        block: Vec<u8>,
        content: u64,
    ) -> Result<(), ReadError> {
        let r = match header(&block) {
            Ok(h) => match self.waiting.get_mut(&h.seq) {
                Some(w) if w.1.is_none() && self.wanted == Some(h.seq) => {
                    w.1 = Some(block);
                    self.wanted = None;
                    self.merge_waiting(rank, st, file, content)
                }
                _ => Err(Fail::Damaged(Damage::Unexpected(h.seq))),
            },
            Err(e) => Err(e.into()),
        };
        r.map_err(|e| self.fail(e))
    }

    /// Merges the waiting results in turn, as far as they go; stops at a content block's result
    /// that came without its block where the merge needs the block's bytes (the page keeps the
    /// blocks, which copying back into the reading worker's memory cost it ~0.3 s per GB), and
    /// says which ([`Splitter::wanted`]).
    fn merge_waiting(&mut self, rank: &mut RankTrace, st: &mut ChromeState, file: &str, content: u64) -> Result<(), Fail> {
        while let Some((result, block)) = self.waiting.remove(&self.next_merge) {
            if block.is_none() && self.needs_block(&result)? {
                self.waiting.insert(self.next_merge, (result, None));
                self.wanted = Some(self.next_merge);
                return Ok(());
            }
            if let Some(c) = &mut self.crc {
                let crc = Dec { b: &result, i: RESULT_CRC_AT }.u32()?;
                let content = match &block {
                    Some(b) => Some(header(b)?.content),
                    None => None,
                };
                if !c.merged(crc, content).map_err(Fail::Read)? {
                    return Err(Fail::Damaged(Damage::WithoutBlock));
                }
            }
            let (result, block) = match self.redo.take() {
                None => (result, block),
                Some(Redo::Live(mut live)) => {
                    // this block's content continues the parse of the blocks since the last clean end
                    let b = block.ok_or(Fail::Damaged(Damage::WithoutBlock))?;
                    let b = header(&b)?;
                    live.push(file, b.content);
                    self.reparsed += b.content.len() as u64;
                    let last = b.flags & LAST != 0;
                    if !last && !live.at_element_end() {
                        self.redo = Some(Redo::Live(live));
                        self.next_merge += 1;
                        continue;
                    }
                    live.seq = b.seq;
                    live.flags |= b.flags & LAST;
                    (live.result(file, last, &b.end_warnings), None)
                }
                Some(Redo::Range { start, flags, to_end }) => {
                    // a worker reads and parses again from that end through this block's range
                    // (or to the end of the file), in a job that takes this block's place
                    let this = Dec { b: &result, i: 4 }.u8()?;
                    let size = self.ranges.unwrap_or(0);
                    let (end, last) = if to_end { (size, LAST) } else { (self.range_end(self.next_merge, size), this & LAST) };
                    self.ready.push(range_job(self.next_merge, flags & (FIRST | IN_OBJECT) | EXACT | REDO | last, start, end));
                    if to_end {
                        let keep = self.next_merge;
                        self.absorbed_from = Some(keep + 1);
                        self.waiting.retain(|&s, _| s <= keep);
                    }
                    return Ok(());
                }
            };
            self.next_merge += 1;
            let mut d = Dec { b: &result, i: 4 };
            let flags = d.u8()?;
            let clean = d.u8()?;
            let start = d.u64()?;
            let _crc = d.u32()?;
            if clean != CLEAN {
                self.redo = Some(match block {
                    Some(b) => {
                        let h = header(&b)?;
                        let mut live = BlockParse::new(h.seq, h.flags, h.base, h.content.len());
                        live.push(file, h.content);
                        self.reparsed += h.content.len() as u64;
                        Redo::Live(Box::new(live))
                    }
                    None => Redo::Range { start, flags, to_end: clean == PAST_EVENTS || flags & REDO != 0 },
                });
                continue;
            }
            let error = d.bytes()?;
            if !error.is_empty() {
                let (offset, expected, found): (u64, String, String) = serde_json::from_slice(error).map_err(WireError::Json)?;
                return Err(Fail::Read(ReadError::new(offset, expected, found)));
            }
            let elements = d.u32()?;
            let shape = d.u8()?;
            if flags & FIRST != 0 {
                self.shape = SHAPES.get(shape as usize).copied().flatten();
            }
            let meta: TraceMeta = serde_json::from_slice(d.bytes()?).map_err(WireError::Json)?;
            merge_meta(&mut rank.meta, meta);
            let rows = expected_rows(rank.events.len(), start, content);
            merge(rank, st, file, &result[d.i..], self.elements, rows)?;
            self.elements += elements;
            if let Some(block) = block {
                self.recycle(block);
            }
            if flags & LAST != 0 {
                // a job that read to the end of the file: the blocks after it were in it
                self.next_merge = self.next_seq;
                self.waiting.clear();
            }
        }
        Ok(())
    }
}

/// The rows a file is expected to hold once `rows` came from the content before offset `start`
/// of `content` bytes (0 when unknown), with a 3 % margin; 0 when there is nothing to go by.
fn expected_rows(rows: usize, start: u64, content: u64) -> usize {
    if start == 0 || content <= start {
        return 0;
    }
    let rows = rows as u128 * u128::from(content) / u128::from(start);
    usize::try_from(rows + rows / 32).unwrap_or(usize::MAX)
}

/// Why merging stopped: the file's fatal error, or a result that cannot be used (a bug).
enum Fail {
    Read(ReadError),
    Damaged(Damage),
}

/// A result that cannot be used; `Display` writes what the file's error says of it.
enum Damage {
    /// A result for a block that was not handed out, or came already.
    Unexpected(u32),
    /// A content block's result came without its block, which must be parsed again.
    WithoutBlock,
    /// The result does not decode.
    Wire(WireError),
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Damage::Unexpected(seq) => write!(f, "a result for block {seq}, not expected"),
            Damage::WithoutBlock => f.write_str("a content block's result without its block"),
            Damage::Wire(e) => e.fmt(f),
        }
    }
}

impl From<WireError> for Fail {
    fn from(e: WireError) -> Fail {
        Fail::Damaged(Damage::Wire(e))
    }
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

/// Merges an encoded partial rank into `rank`, as if its events had been read right after the
/// rank's (`elements_before`: elements of the event array before the block).
fn merge(
    rank: &mut RankTrace,
    st: &mut ChromeState,
    file: &str,
    partial: &[u8],
    elements_before: u32,
    expected_rows: usize,
) -> Result<(), WireError> {
    let mut d = Dec { b: partial, i: 0 };
    let strs: Vec<StrId> = d.col(Dec::text)?.into_iter().map(|s| rank.strings.intern(s)).collect();
    let s = |id: u32| strs.get(id as usize).copied().ok_or(WireError::StringOutOfRange(id));
    let id_vals = d.col(|d| Ok((d.u8()?, d.i64()?)))?;
    let mut ids = Vec::with_capacity(id_vals.len());
    for (tag, v) in id_vals {
        let v = if tag == 0 { IdValue::Int(v) } else { IdValue::Str(s(v as u32)?) };
        ids.push(rank.ids.intern(v));
    }
    let id = |i: u32| ids.get(i as usize).copied().ok_or(WireError::IdOutOfRange(i));
    // the event columns, decoded straight into the rank's (a block has ~100k rows; this is
    // most of the merging time)
    let base = rank.events.ts.len() as u32;
    let ev = &mut rank.events;
    let n = Dec { b: d.b, i: d.i }.u32()? as usize;
    if ev.ts.capacity() - ev.ts.len() < n {
        // as `EventTable::push` grows, by a quarter (not by doubling), or at once to the rows
        // the file is expected to hold (at most 16 times as many as now, should the first
        // blocks mislead): growing copies every column, and in wasm, where `realloc` cannot
        // remap pages, a 1 GB `.json.gz` grown by quarters copied its columns ~4 times over,
        // 0.17 s of the reading worker. Room reserved but never written costs address space
        // only (its pages are not touched).
        let len = ev.ts.len();
        let to_expected = expected_rows.saturating_sub(len).min(len.max(n).saturating_mul(16));
        ev.reserve(n.max(len / 4).min(d.b.len()).max(to_expected));
    }
    ev.index.extend(d.raw(n, 4)?.chunks_exact(4).map(|b| u32::read_le(b) + elements_before));
    extend_coded(&mut ev.phase, d.raw(n, 1)?, &ALL_PHASES, WireError::BadPhase)?;
    extend_coded(&mut ev.kind, d.raw(n, 1)?, &ALL_KINDS, WireError::BadKind)?;
    extend_ids(&mut ev.cat, d.raw(n, 4)?, &strs, WireError::StringOutOfRange)?;
    extend_ids(&mut ev.name, d.raw(n, 4)?, &strs, WireError::StringOutOfRange)?;
    ev.ts.extend(d.raw(n, 8)?.chunks_exact(8).map(i64::read_le));
    ev.dur.extend_le(d.raw(n, 8)?);
    extend_ids(&mut ev.pid, d.raw(n, 4)?, &ids, WireError::IdOutOfRange)?;
    extend_ids(&mut ev.tid, d.raw(n, 4)?, &ids, WireError::IdOutOfRange)?;
    ev.stream.extend_le(d.raw(n, 8)?);
    ev.correlation.extend_le(d.raw(n, 8)?);
    ev.external_id.extend_le(d.raw(n, 8)?);
    ev.flags.extend(d.raw(n, 1)?.chunks_exact(1).map(u8::read_le));
    let (n, raw) = d.records(13)?;
    if ev.int_args.capacity() - ev.int_args.len() < n {
        ev.int_args.reserve_exact(n.max(ev.int_args.len() / 4));
    }
    for r in raw.chunks_exact(13) {
        let arg = *IntArg::ALL.get(r[4] as usize).ok_or(WireError::BadArg)?;
        ev.int_args.push((u32::read_le(&r[..4]) + base, arg, i64::read_le(&r[5..])));
    }
    for (e, k, v) in d.col(|d| Ok((d.u32()?, d.u32()?, d.f64()?)))? {
        ev.counters.push((e + base, s(k)?, v));
    }
    for (e, k, v) in d.col(|d| Ok((d.u32()?, d.u32()?, d.f64()?)))? {
        ev.profiler_range_args.push((e + base, s(k)?, v));
    }
    let (_, sfx) = d.records(12)?;
    let text_base = ev.suffix_text.len() as u32;
    ev.suffix_text.push_str(d.text()?);
    ev.name_suffix.extend(
        sfx.chunks_exact(12).map(|r| (u32::read_le(&r[..4]) + base, u32::read_le(&r[4..8]) + text_base, u32::read_le(&r[8..]) + text_base)),
    );
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
        *c.kinds.get_mut(i).ok_or(WireError::BadTally)? += k;
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
        *c.phases.get_mut(i).ok_or(WireError::BadTally)? += k;
    }
    let bits = d.u8()?;
    st.hints.paddle |= bits & 1 != 0;
    st.hints.string_times |= bits & 2 != 0;
    st.hints.kineto |= bits & 4 != 0;
    rank.meta.ts_fractional_or_missing |= bits & 8 != 0;
    let warnings: Vec<Warning> = serde_json::from_slice(d.bytes()?)?;
    let open = d.col(|d| Ok((d.u32()?, d.u32()?, d.col(|d| Ok((d.u32()?, d.u64()?)))?)))?;
    let pending = d.col(|d| {
        let (pid, tid, ts, offset, name, before) = (d.u32()?, d.u32()?, d.i64()?, d.u64()?, d.u32()?, d.u32()?);
        Ok(PendingEnd { pid, tid, ts, offset, name: StrId(name), warnings_before: before as usize })
    })?;
    if d.i != partial.len() {
        return Err(WireError::TrailingBytes);
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
            ev.dur.set(b as usize, (p.ts - ev.ts[b as usize]).max(0));
            ev.flags[b as usize] |= flags::HAS_DUR;
        }
        None => {
            let detail = format!("'E' of \"{}\"", rank.strings.get(p.name));
            rank.warnings.add(WarningKind::UnmatchedEnd, file, p.offset, || detail);
        }
    }
}
