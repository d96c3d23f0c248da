//! Reading one Chrome-trace file on several threads: the page's Web Workers (a wasm instance each,
//! no shared memory) split the work of a large file.
//!
//! 1. The reading side cuts the file into *blocks* of about `target` bytes without parsing it:
//!    each cut goes where the bytes look like the end of one event object and the start of the
//!    next (`}` `,` `{`), a guess. Two ways:
//!    * *content blocks* ([`super::FileReader::new_split`]): the reading side inflates the file
//!      and hands out the block's bytes;
//!    * *range jobs* ([`super::FileReader::new_ranges`], uncompressed files only): the reading
//!      side hands out only byte ranges `[k·target, (k+1)·target)`; the worker reads the bytes
//!      itself (in the page, `File.slice`) and finds both cuts: the first cut at or after each end
//!      of the range ([`parse_range`]). Neighbours find the same cut, since it depends only on
//!      the file's bytes from that offset on; so the reading side never touches the content.
//! 2. Any worker parses a block ([`parse_block`], [`parse_range`]) with the same scanner and
//!    [`ChromeSink`] as a sequential read: the first block from the start of the document, the
//!    others as if right after an element of the event array. It reports whether the block
//!    indeed ended right after an element (the cut was good) and returns the partial rank, encoded.
//! 3. The reading side merges the partial ranks in block order ([`Splitter::arrived`]): strings
//!    and ids are interned again, rows appended (element indexes shifted), tallies added, and `E`
//!    events whose `B` was in an earlier block are closed. A block is used only if the one
//!    before it ended cleanly, which makes its start a true element boundary; otherwise the cut
//!    was a bad guess (a `},{` inside a string or a nested array) and the two blocks are parsed
//!    again as one: here for content blocks (the parse continues with each next block until it
//!    ends cleanly, so each byte is parsed here at most once), by a worker for range jobs (a new
//!    job from the last clean end through the next block's range; to the end of the file, as a
//!    stream, when the event array has closed or that job failed too). A long stretch without
//!    events thus costs about twice its size, not its size times its number of blocks.
//!
//! The result is the rank a sequential read gives, row for row, string id for string id, warning
//! for warning (tested on every trace in `../shared` and `testdata/`, with blocks down to 1 byte).
//!
//! Encodings (little-endian, private to this module: both ends are this code):
//! * content block: `seq u32, flags u8 (1 first, 2 last, 4 in an object), base offset u64,
//!   warnings (JSON, only on the last block: found at the end of the input before the scanner's
//!   end), content`;
//! * range job: `seq u32, flags u8 (the above + 8 range, 16 exact start, 32 parses again),
//!   start u64, end u64`;
//! * result: `seq u32, flags u8 (the job's), clean u8 (0 no, 1 yes, 2 no and past the event
//!   array), start u64 (of the content parsed), error
//!   (JSON, empty if none), elements u32, shape u8, meta (JSON)`, then the partial rank
//!   ([`encode_partial`]).

use std::collections::BTreeMap;

use super::chrome::{ChromeSink, ChromeState, PendingEnd};
use super::scan::{ScanSink, Scanner, Shape};
use crate::error::{ReadError, Warning, WarningKind};
use crate::model::events::flags;
use crate::model::kind::{ALL_KINDS, ALL_PHASES};
use crate::model::{IdValue, IntArg, RankTrace, StrId, TraceMeta};

/// Document shapes as a result encodes them (by position).
const SHAPES: [Option<Shape>; 4] = [None, Some(Shape::Object), Some(Shape::BareArray), Some(Shape::CommaList)];

const FIRST: u8 = 1;
const LAST: u8 = 2;
const IN_OBJECT: u8 = 4;
/// A range job: the worker reads the bytes itself.
const RANGE: u8 = 8;
/// A range job whose start is a known element boundary (no cut to search at the start).
const EXACT: u8 = 16;
/// A range job that parses again what a block whose end was a bad guess left: its result takes
/// the place of the next block's own.
const REDO: u8 = 32;

/// A result's `clean` byte: the block ended right after an element of the event array (or had
/// an error, or ended the file); ended elsewhere inside it; ended after the event array had
/// closed, where no more events can come.
const CLEAN: u8 = 1;
const UNCLEAN: u8 = 0;
const PAST_EVENTS: u8 = 2;

/// Bytes after the target size searched for a cut before waiting for more input.
const WINDOW: usize = 256 << 10;

/// A block's header, decoded.
struct Header<'a> {
    seq: u32,
    flags: u8,
    base: u64,
    /// A range job's end (0 for a content block).
    end: u64,
    end_warnings: Vec<(WarningKind, u64, String)>,
    content: &'a [u8],
}

fn header(block: &[u8]) -> Result<Header<'_>, String> {
    let mut d = Dec { b: block, i: 0 };
    let seq = d.u32()?;
    let flags = d.u8()?;
    let base = d.u64()?;
    if flags & RANGE != 0 {
        let end = d.u64()?;
        if d.i != block.len() || end < base {
            return Err("damaged range job".into());
        }
        return Ok(Header { seq, flags, base, end, end_warnings: Vec::new(), content: &[] });
    }
    let w = d.bytes()?;
    let end_warnings = if w.is_empty() { Vec::new() } else { serde_json::from_slice(w).map_err(|e| e.to_string())? };
    Ok(Header { seq, flags, base, end: 0, end_warnings, content: &block[d.i..] })
}

fn range_job(seq: u32, flags: u8, start: u64, end: u64) -> Vec<u8> {
    let mut b = Vec::with_capacity(21);
    b.extend_from_slice(&seq.to_le_bytes());
    b.push(flags | RANGE);
    b.extend_from_slice(&start.to_le_bytes());
    b.extend_from_slice(&end.to_le_bytes());
    b
}

/// A range job's byte range `[start, end)` in the file (`None` for a content block): the worker
/// reads from `start` to a little past `end`, where the block's last cut is searched.
pub fn job_range(job: &[u8]) -> Option<(u64, u64)> {
    header(job).ok().filter(|h| h.flags & RANGE != 0).map(|h| (h.base, h.end))
}

fn block_bytes(seq: u32, flags: u8, base: u64, end_warnings: &[(WarningKind, u64, String)], content: &[u8]) -> Vec<u8> {
    let w = if end_warnings.is_empty() { Vec::new() } else { serde_json::to_vec(end_warnings).unwrap_or_default() };
    let mut b = Vec::with_capacity(17 + w.len() + content.len());
    b.extend_from_slice(&seq.to_le_bytes());
    b.push(flags);
    b.extend_from_slice(&base.to_le_bytes());
    put_bytes(&mut b, &w);
    b.extend_from_slice(content);
    b
}

/// The reading side of a split file: cuts the content into blocks (or the file into range
/// jobs), then merges their results.
pub(super) struct Splitter {
    target: usize,
    /// Range jobs of a file of this many bytes instead of content blocks.
    ranges: Option<u64>,
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
    waiting: BTreeMap<u32, (Vec<u8>, Option<Vec<u8>>)>,
    next_merge: u32,
    /// What the last used block left unfinished, to parse again with the next one.
    redo: Option<Redo>,
    /// Range jobs from this one on are parsed by the job that reads to the end of the file:
    /// their own results are dropped.
    absorbed_from: Option<u32>,
    /// Content bytes parsed again here (content blocks whose cut was a bad guess).
    pub(super) reparsed: u64,
    /// Elements of the event array in the blocks merged so far.
    elements: u32,
    /// The document's shape, from the first block.
    pub(super) shape: Option<Shape>,
    /// The last block was handed out.
    ended: bool,
}

/// What did not end after an element. Content blocks: the parse here of the blocks since the
/// last clean end, continued with each next block until it ends cleanly (each byte is parsed
/// here once). Range jobs: where the content began and its flags; the next job reads from there
/// through the next block's range, or to the end of the file once that failed too or the event
/// array has closed (a long stretch without events: no job reads it twice).
enum Redo {
    Live(Box<BlockParse>),
    Range { start: u64, flags: u8, to_end: bool },
}

impl Splitter {
    /// Content blocks of about `target` bytes.
    pub(super) fn new(target: usize) -> Splitter {
        Splitter {
            target: target.max(1),
            ranges: None,
            pending: Vec::new(),
            pending_at: 0,
            searched: 0,
            in_object: None,
            next_seq: 0,
            ready: Vec::new(),
            waiting: BTreeMap::new(),
            next_merge: 0,
            redo: None,
            absorbed_from: None,
            reparsed: 0,
            elements: 0,
            shape: None,
            ended: false,
        }
    }

    /// Range jobs of about `target` bytes over an uncompressed file of `size` bytes.
    pub(super) fn new_ranges(target: usize, size: u64) -> Splitter {
        Splitter { ranges: Some(size), ..Splitter::new(target) }
    }

    /// Whether this splitter hands out range jobs.
    pub(super) fn reads_ranges(&self) -> bool {
        self.ranges.is_some()
    }

    /// Takes content bytes; closes blocks where it finds cuts. In range mode only the first
    /// bytes matter (whether the document is an object); then every job is ready.
    pub(super) fn content(&mut self, data: &[u8]) {
        if let Some(size) = self.ranges {
            if self.in_object.is_none() {
                self.in_object = first_byte(data).map(|c| c == b'{');
                if let Some(obj) = self.in_object {
                    self.plan_ranges(size, obj);
                }
            }
            return;
        }
        if self.pending.capacity() == 0 {
            self.pending.reserve(self.target.saturating_add(WINDOW).min(1 << 30));
        }
        self.pending.extend_from_slice(data);
        if self.in_object.is_none() {
            self.in_object = first_byte(&self.pending).map(|c| c == b'{');
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

    /// Every range job of the file: `[k·target, (k+1)·target)`, the last one to the end.
    fn plan_ranges(&mut self, size: u64, in_object: bool) {
        let target = self.target as u64;
        let n = size.div_ceil(target).max(1);
        let obj = if in_object { IN_OBJECT } else { 0 };
        for k in 0..n {
            let first = if k == 0 { FIRST } else { 0 };
            let last = if k + 1 == n { LAST } else { 0 };
            self.ready.push(range_job(k as u32, first | last | obj, k * target, self.range_end(k as u32, size)));
        }
        self.next_seq = n as u32;
        self.ended = true;
    }

    /// Where range job `k` of a file of `size` bytes ends.
    fn range_end(&self, k: u32, size: u64) -> u64 {
        (u64::from(k) + 1).saturating_mul(self.target as u64).min(size)
    }

    fn close(&mut self, cut: usize, extra: u8, end_warnings: &[(WarningKind, u64, String)]) {
        let first = if self.next_seq == 0 { FIRST } else { 0 };
        let obj = if self.in_object == Some(true) { IN_OBJECT } else { 0 };
        let b = block_bytes(self.next_seq, first | obj | extra, self.pending_at, end_warnings, &self.pending[..cut]);
        self.ready.push(b);
        self.next_seq += 1;
        self.pending.drain(..cut);
        self.pending_at += cut as u64;
        self.searched = 0;
    }

    /// Ends the input: the rest becomes the last block, which also carries the warnings found
    /// at the end of the input (they come after every event's, before the scanner's own end).
    /// Range jobs were all made at the start (an uncompressed file has no such warnings).
    pub(super) fn end(&mut self, end_warnings: &[(WarningKind, u64, String)]) {
        if !self.ended {
            self.ended = true;
            self.close(self.pending.len(), LAST, end_warnings);
            self.pending = Vec::new();
        }
    }

    /// The blocks or jobs made since the last call, in order.
    pub(super) fn take_ready(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.ready)
    }

    /// Blocks handed out whose result has not arrived yet.
    pub(super) fn outstanding(&self) -> u32 {
        self.next_seq - self.next_merge - self.waiting.len() as u32
    }

    /// Takes the result of a block or job (from [`parse_block`] or [`parse_range`]; `block`: the
    /// content block, none for a range job) and merges every result now in turn into `rank`. A
    /// fatal error of a block whose start is known to be right is the file's error.
    pub(super) fn arrived(
        &mut self,
        rank: &mut RankTrace,
        st: &mut ChromeState,
        file: &str,
        result: Vec<u8>,
        block: Option<Vec<u8>>,
    ) -> Result<(), ReadError> {
        self.arrived_inner(rank, st, file, result, block).map_err(|e| match e {
            Fail::Read(e) => e,
            Fail::Damaged(why) => {
                ReadError::new(self.pending_at, "the result of parsing a block of this file", format!("a damaged one ({why})"))
            }
        })
    }

    fn arrived_inner(
        &mut self,
        rank: &mut RankTrace,
        st: &mut ChromeState,
        file: &str,
        result: Vec<u8>,
        block: Option<Vec<u8>>,
    ) -> Result<(), Fail> {
        let mut d = Dec { b: &result, i: 0 };
        let seq = d.u32()?;
        if d.u8()? & REDO == 0 && self.absorbed_from.is_some_and(|a| seq >= a) {
            return Ok(()); // the job that reads to the end of the file parses these bytes
        }
        if seq < self.next_merge || seq >= self.next_seq || self.waiting.contains_key(&seq) {
            return Err(Fail::Damaged(format!("a result for block {seq}, not expected")));
        }
        self.waiting.insert(seq, (result, block));
        while let Some((result, block)) = self.waiting.remove(&self.next_merge) {
            let (result, block) = match self.redo.take() {
                None => (result, block),
                Some(Redo::Live(mut live)) => {
                    // this block's content continues the parse of the blocks since the last clean end
                    let b = block.ok_or_else(|| Fail::Damaged("a content block's result without its block".into()))?;
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
                let (offset, expected, found): (u64, String, String) = serde_json::from_slice(error)?;
                return Err(Fail::Read(ReadError::new(offset, expected, found)));
            }
            let elements = d.u32()?;
            let shape = d.u8()?;
            if flags & FIRST != 0 {
                self.shape = SHAPES.get(shape as usize).copied().flatten();
            }
            let meta: TraceMeta = serde_json::from_slice(d.bytes()?)?;
            merge_meta(&mut rank.meta, meta);
            merge(rank, st, file, &result[d.i..], self.elements)?;
            self.elements += elements;
            if flags & LAST != 0 {
                // a job that read to the end of the file: the blocks after it were in it
                self.next_merge = self.next_seq;
                self.waiting.clear();
            }
        }
        Ok(())
    }
}

/// The first byte of a document that is not whitespace (after a UTF-8 byte order mark).
fn first_byte(b: &[u8]) -> Option<u8> {
    let b = b.strip_prefix(&[0xef, 0xbb, 0xbf]).unwrap_or(b);
    b.iter().copied().find(|c| !c.is_ascii_whitespace())
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

/// Parses one content block of the file `file` (from its split reader) into an encoded result
/// for that reader's `add_partial`.
pub fn parse_block(file: &str, block: &[u8]) -> Result<Vec<u8>, String> {
    let h = header(block)?;
    if h.flags & RANGE != 0 {
        return Err("a range job given as a content block".into());
    }
    Ok(parse_content(file, &h, h.base, h.content, h.flags & LAST != 0))
}

/// Parses one range job of the file `file` (from its range reader, see [`job_range`]):
/// `bytes` are the file's bytes from the job's start, as far as the caller read
/// (`at_eof`: to the end of the file). `Ok(None)`: the block's end lies beyond `bytes`, read
/// further and call again. Otherwise the encoded result for the reader's `add_partial`.
///
/// The block's content starts at the first cut at or after the job's start (at the start
/// itself for the first block and exact jobs) and ends at the first cut at or after the job's
/// end; a search that reaches the end of the file makes the block run to the end (then it is
/// the last one: the document's end is checked), or, for the start, leaves it empty.
pub fn parse_range(file: &str, job: &[u8], bytes: &[u8], at_eof: bool) -> Result<Option<Vec<u8>>, String> {
    let h = header(job)?;
    if h.flags & RANGE == 0 {
        return Err("a content block given as a range job".into());
    }
    let begin = if h.flags & (FIRST | EXACT) != 0 {
        0
    } else {
        match find_cut(bytes) {
            Some(c) => c,
            None if at_eof => bytes.len(),
            None => return Ok(None),
        }
    };
    let (stop, last) = if h.flags & LAST != 0 {
        if !at_eof {
            return Ok(None);
        }
        (bytes.len(), true)
    } else {
        // from the job's end, not from `begin`: when the start's cut lies past the end, the
        // end's cut is that same cut (an empty block), as the next job finds it
        let from = usize::try_from(h.end - h.base).map_err(|e| e.to_string())?;
        match bytes.get(from..).and_then(find_cut) {
            Some(c) => (from + c, false),
            None if at_eof => (bytes.len(), true),
            None => return Ok(None),
        }
    };
    if begin == bytes.len() && h.flags & (FIRST | EXACT) == 0 {
        // no cut after the start: the block before ran to the end of the file; nothing here
        return Ok(Some(void_result(h.seq, h.flags, h.base + begin as u64)));
    }
    Ok(Some(parse_content(file, &h, h.base + begin as u64, &bytes[begin..stop], last)))
}

/// The result of a block with no content of its own.
fn void_result(seq: u32, flags: u8, start: u64) -> Vec<u8> {
    let mut out = result_head(seq, flags, CLEAN, start, None);
    out.extend_from_slice(&0u32.to_le_bytes());
    out.push(0);
    put_bytes(&mut out, &serde_json::to_vec(&TraceMeta::default()).unwrap_or_default());
    encode_partial(&mut out, &RankTrace::default(), &ChromeState::default());
    out
}

fn result_head(seq: u32, flags: u8, clean: u8, start: u64, error: Option<&(u64, String, String)>) -> Vec<u8> {
    let mut out = seq.to_le_bytes().to_vec();
    out.push(flags);
    out.push(clean);
    out.extend_from_slice(&start.to_le_bytes());
    put_bytes(&mut out, &error.map(|e| serde_json::to_vec(e).unwrap_or_default()).unwrap_or_default());
    out
}

/// Parses `content` (starting at absolute offset `base`) as the block `h`; `last`: the content
/// runs to the end of the file.
fn parse_content(file: &str, h: &Header, base: u64, content: &[u8], last: bool) -> Vec<u8> {
    let mut p = BlockParse::new(h.seq, h.flags, base, content.len());
    p.push(file, content);
    p.result(file, last, &h.end_warnings)
}

/// The parse of one block, fed its content in pieces: as the first block from the start of the
/// document, any other as if right after an element of the event array.
pub struct BlockParse {
    seq: u32,
    flags: u8,
    base: u64,
    rank: RankTrace,
    st: ChromeState,
    scanner: Scanner,
    error: Option<(u64, String, String)>,
}

impl BlockParse {
    fn new(seq: u32, flags: u8, base: u64, size_hint: usize) -> BlockParse {
        let mut rank = RankTrace::default();
        // as `FileReader::new` does: Kineto and Paddle write 240-340 bytes of JSON per event
        rank.events.reserve(size_hint / 300);
        let scanner = if flags & FIRST != 0 { Scanner::default() } else { Scanner::after_element(base, flags & IN_OBJECT != 0) };
        BlockParse { seq, flags, base, rank, st: ChromeState { defer_ends: true, ..ChromeState::default() }, scanner, error: None }
    }

    /// A range job that reads from its exact start to the end of the file ([`job_to_end`]),
    /// to be fed the file's bytes from the job's start in pieces, then [`BlockParse::finish`]ed.
    pub fn for_job(job: &[u8]) -> Result<BlockParse, String> {
        let h = header(job)?;
        if !runs_to_end(&h) {
            return Err("not a range job that runs from a known start to the end of the file".into());
        }
        Ok(BlockParse::new(h.seq, h.flags, h.base, 0))
    }

    /// Parses the next piece of the block's content (nothing after an error).
    pub fn push(&mut self, file: &str, content: &[u8]) {
        if self.error.is_none() {
            let mut sink = ChromeSink { st: &mut self.st, rank: &mut self.rank, file };
            if let Err(e) = self.scanner.push(content, &mut sink) {
                self.error = Some((e.offset, e.expected, e.found));
            }
        }
    }

    /// Whether the content so far ends right after an element of the event array (or had an
    /// error): the next block can start there.
    fn at_element_end(&self) -> bool {
        self.error.is_some() || self.scanner.at_element_end()
    }

    /// The encoded result of a block that ran to the end of the file.
    pub fn finish(self, file: &str) -> Vec<u8> {
        self.result(file, true, &[])
    }

    /// The encoded result; `last`: the content ran to the end of the file (the document's end is
    /// checked, after the warnings found at the end of the input).
    fn result(mut self, file: &str, last: bool, end_warnings: &[(WarningKind, u64, String)]) -> Vec<u8> {
        if last && self.error.is_none() {
            let mut sink = ChromeSink { st: &mut self.st, rank: &mut self.rank, file };
            for (kind, offset, detail) in end_warnings {
                ScanSink::warn(&mut sink, *kind, *offset, detail.clone());
            }
            if let Err(e) = self.scanner.finish(&mut sink) {
                self.error = Some((e.offset, e.expected, e.found));
            }
        }
        let clean = if self.error.is_some() || last || self.scanner.at_element_end() {
            CLEAN
        } else if self.scanner.past_events() {
            PAST_EVENTS
        } else {
            UNCLEAN
        };
        let mut out = result_head(self.seq, self.flags, clean, self.base, self.error.as_ref());
        out.extend_from_slice(&self.scanner.elements().to_le_bytes());
        out.push(SHAPES.iter().position(|&x| x == self.scanner.shape()).unwrap_or(0) as u8);
        put_bytes(&mut out, &serde_json::to_vec(&self.rank.meta).unwrap_or_default());
        encode_partial(&mut out, &self.rank, &self.st);
        out
    }
}

/// Whether a range job reads from a known start to the end of the file: one that parses again
/// a stretch whose cuts were bad guesses (long, perhaps: see [`BlockParse::for_job`]).
pub fn job_to_end(job: &[u8]) -> bool {
    header(job).is_ok_and(|h| runs_to_end(&h))
}

/// A range job from a known start (the first block, or an exact one) to the end of the file.
fn runs_to_end(h: &Header) -> bool {
    h.flags & RANGE != 0 && h.flags & (FIRST | EXACT) != 0 && h.flags & LAST != 0
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

    /// The bytes of a column of `n` values of `T` (its length, which must be `n`, then the
    /// values), for [`extend`].
    fn raw(&mut self, n: usize, size: usize) -> Result<&'a [u8], String> {
        if self.u32()? as usize != n {
            return Err("columns of different lengths".into());
        }
        let len = n.checked_mul(size).ok_or("truncated")?;
        let s = self.b.get(self.i..self.i + len).ok_or("truncated")?;
        self.i += len;
        Ok(s)
    }

    /// A column of records of `size` bytes: their number and their bytes.
    fn records(&mut self, size: usize) -> Result<(usize, &'a [u8]), String> {
        let n = Dec { b: self.b, i: self.i }.u32()? as usize;
        Ok((n, self.raw(n, size)?))
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

/// A number as a partial rank encodes it (little-endian).
trait Le: Sized {
    const SIZE: usize;
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
le!(u8, u32, i64);

/// Appends the values of a raw column ([`Dec::raw`]) to `col`, each mapped by `f`.
fn extend<T: Le, U>(col: &mut Vec<U>, raw: &[u8], f: impl Fn(T) -> Result<U, String>) -> Result<(), String> {
    col.reserve(raw.len() / T::SIZE);
    for c in raw.chunks_exact(T::SIZE) {
        col.push(f(T::read_le(c))?);
    }
    Ok(())
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
    // the event columns, decoded straight into the rank's (a block has ~100k rows; this is
    // most of the merging time)
    let base = rank.events.ts.len() as u32;
    let ev = &mut rank.events;
    let n = Dec { b: d.b, i: d.i }.u32()? as usize;
    if ev.ts.capacity() - ev.ts.len() < n {
        // as `EventTable::push` grows: by a quarter, not by doubling
        ev.reserve(n.max(ev.ts.len() / 4).min(d.b.len()));
    }
    extend(&mut ev.index, d.raw(n, 4)?, |i: u32| Ok(i + elements_before))?;
    extend(&mut ev.phase, d.raw(n, 1)?, |p: u8| ALL_PHASES.get(p as usize).copied().ok_or_else(|| "bad phase".to_string()))?;
    extend(&mut ev.kind, d.raw(n, 1)?, |k: u8| ALL_KINDS.get(k as usize).copied().ok_or_else(|| "bad kind".to_string()))?;
    extend(&mut ev.cat, d.raw(n, 4)?, s)?;
    extend(&mut ev.name, d.raw(n, 4)?, s)?;
    ev.ts.extend(d.raw(n, 8)?.chunks_exact(8).map(i64::read_le));
    ev.dur.extend(d.raw(n, 8)?.chunks_exact(8).map(i64::read_le));
    extend(&mut ev.pid, d.raw(n, 4)?, id)?;
    extend(&mut ev.tid, d.raw(n, 4)?, id)?;
    ev.stream.extend(d.raw(n, 8)?.chunks_exact(8).map(i64::read_le));
    ev.correlation.extend(d.raw(n, 8)?.chunks_exact(8).map(i64::read_le));
    ev.external_id.extend(d.raw(n, 8)?.chunks_exact(8).map(i64::read_le));
    ev.flags.extend(d.raw(n, 1)?.chunks_exact(1).map(u8::read_le));
    let (n, raw) = d.records(13)?;
    if ev.int_args.capacity() - ev.int_args.len() < n {
        ev.int_args.reserve_exact(n.max(ev.int_args.len() / 4));
    }
    for r in raw.chunks_exact(13) {
        let arg = *IntArg::ALL.get(r[4] as usize).ok_or("bad arg")?;
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
