//! The helper's side: parsing one block or range job into an encoded result, with the same
//! scanner and [`ChromeSink`] as a sequential read.

use std::fmt;
use std::num::TryFromIntError;

use super::split::find_cut;
use super::wire::WireError;
use super::wire::{
    encode_partial, header, put_bytes, result_head, Header, CLEAN, CRC, EXACT, FIRST, IN_OBJECT, LAST, PAST_EVENTS, RANGE, SHAPES, UNCLEAN,
};
use crate::error::WarningKind;
use crate::model::{RankTrace, TraceMeta};
use crate::read::chrome::{ChromeSink, ChromeState};
use crate::read::scan::{ScanSink, Scanner};

/// Why a helper could not parse a block or job it was given: a bug on one side or the other,
/// never the trace's fault (a trace's damage is in the result, for the reading side). The
/// caller adds the file's name; `Display` writes the rest.
#[derive(Debug)]
pub enum BlockError {
    /// [`parse_block`] was given a range job.
    RangeJobAsBlock,
    /// [`parse_range`] was given a content block.
    BlockAsRangeJob,
    /// [`BlockParse::for_job`] was given something other than a range job to the end of the file.
    NotAJobToEnd,
    /// A range job longer than this machine's address space.
    RangeTooLong(TryFromIntError),
    /// The block or job does not decode.
    Wire(WireError),
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockError::RangeJobAsBlock => f.write_str("a range job given as a content block"),
            BlockError::BlockAsRangeJob => f.write_str("a content block given as a range job"),
            BlockError::NotAJobToEnd => f.write_str("not a range job that runs from a known start to the end of the file"),
            BlockError::RangeTooLong(e) => e.fmt(f),
            BlockError::Wire(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BlockError {}

impl From<WireError> for BlockError {
    fn from(e: WireError) -> BlockError {
        BlockError::Wire(e)
    }
}

/// Parses one content block of the file `file` (from its split reader) into an encoded result
/// for that reader's `add_partial`.
pub fn parse_block(file: &str, block: &[u8]) -> Result<Vec<u8>, BlockError> {
    let h = header(block)?;
    if h.flags & RANGE != 0 {
        return Err(BlockError::RangeJobAsBlock);
    }
    Ok(parse_content(file, &h, h.base, h.content, h.flags & LAST != 0))
}

/// Parses one range job of the file `file` (from its range reader, see [`job_range`](super::job_range)):
/// `bytes` are the file's bytes from the job's start, as far as the caller read
/// (`at_eof`: to the end of the file). `Ok(None)`: the block's end lies beyond `bytes`, read
/// further and call again. Otherwise the encoded result for the reader's `add_partial`.
///
/// The block's content starts at the first cut at or after the job's start (at the start
/// itself for the first block and exact jobs) and ends at the first cut at or after the job's
/// end; a search that reaches the end of the file makes the block run to the end (then it is
/// the last one: the document's end is checked), or, for the start, leaves it empty.
pub fn parse_range(file: &str, job: &[u8], bytes: &[u8], at_eof: bool) -> Result<Option<Vec<u8>>, BlockError> {
    let h = header(job)?;
    if h.flags & RANGE == 0 {
        return Err(BlockError::BlockAsRangeJob);
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
        let from = usize::try_from(h.end - h.base).map_err(BlockError::RangeTooLong)?;
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
    let mut out = result_head(seq, flags, CLEAN, start, 0, None);
    out.extend_from_slice(&0u32.to_le_bytes());
    out.push(0);
    put_bytes(&mut out, &serde_json::to_vec(&TraceMeta::default()).unwrap_or_default());
    encode_partial(&mut out, &RankTrace::default(), &ChromeState::default());
    out
}

/// Parses `content` (starting at absolute offset `base`) as the block `h`; `last`: the content
/// runs to the end of the file.
fn parse_content(file: &str, h: &Header, base: u64, content: &[u8], last: bool) -> Vec<u8> {
    let mut p = BlockParse::new(h.seq, h.flags, base, content.len());
    if h.flags & CRC != 0 {
        p.crc = crate::read::crc32::crc32(0, content);
    }
    p.push(file, content);
    p.result(file, last, &h.end_warnings)
}

/// The parse of one block, fed its content in pieces: as the first block from the start of the
/// document, any other as if right after an element of the event array.
pub struct BlockParse {
    pub(super) seq: u32,
    pub(super) flags: u8,
    base: u64,
    rank: RankTrace,
    st: ChromeState,
    scanner: Scanner,
    error: Option<(u64, String, String)>,
    /// The content's CRC-32, for a block that wants it ([`CRC`]).
    crc: u32,
}

impl BlockParse {
    pub(super) fn new(seq: u32, flags: u8, base: u64, size_hint: usize) -> BlockParse {
        let mut rank = RankTrace::default();
        rank.events.reserve(crate::read::rows_for(size_hint as u64));
        let scanner = if flags & FIRST != 0 { Scanner::default() } else { Scanner::after_element(base, flags & IN_OBJECT != 0) };
        BlockParse { seq, flags, base, rank, st: ChromeState { defer_ends: true, ..ChromeState::default() }, scanner, error: None, crc: 0 }
    }

    /// A range job that reads from its exact start to the end of the file ([`job_to_end`]),
    /// to be fed the file's bytes from the job's start in pieces, then [`BlockParse::finish`]ed.
    pub fn for_job(job: &[u8]) -> Result<BlockParse, BlockError> {
        let h = header(job)?;
        if !runs_to_end(&h) {
            return Err(BlockError::NotAJobToEnd);
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
    pub(super) fn at_element_end(&self) -> bool {
        self.error.is_some() || self.scanner.at_element_end()
    }

    /// The encoded result of a block that ran to the end of the file.
    pub fn finish(self, file: &str) -> Vec<u8> {
        self.result(file, true, &[])
    }

    /// The encoded result; `last`: the content ran to the end of the file (the document's end is
    /// checked, after the warnings found at the end of the input).
    pub(super) fn result(mut self, file: &str, last: bool, end_warnings: &[(WarningKind, u64, String)]) -> Vec<u8> {
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
        let mut out = result_head(self.seq, self.flags, clean, self.base, self.crc, self.error.as_ref());
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
