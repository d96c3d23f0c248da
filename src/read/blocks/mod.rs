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
//!    [`ChromeSink`](super::chrome::ChromeSink) as a sequential read: the first block from the start of the document, the
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
//! Files: [`split`] (cutting), [`parse`] (a helper's parse of a block or job), [`merge`]
//! (merging the results in file order), [`wire`] (the encodings of blocks, jobs and results).

mod crc;
mod merge;
mod parse;
mod split;
pub(crate) mod wire;

use std::collections::BTreeMap;

use super::scan::Shape;

pub use parse::{job_to_end, parse_block, parse_range, BlockError, BlockParse};
pub use wire::{block_seq, job_range, WireError, RANGE_JOB_BYTES};

/// The reading side of a split file: cuts the content into blocks (or the file into range
/// jobs; [`split`]), then merges their results ([`merge`]).
pub(super) struct Splitter {
    target: usize,
    /// Range jobs of a file of this many bytes instead of content blocks.
    ranges: Option<u64>,
    /// Content not yet in a block, from absolute offset `pending_at`, after room for the head
    /// of the block it will be ([`wire::BLOCK_HEAD`] bytes).
    pending: Vec<u8>,
    pending_at: u64,
    /// Buffers of merged blocks, for the next blocks.
    spares: Vec<Vec<u8>>,
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
    /// A gzip file's CRC-32s, checked here from the blocks' ([`crc`]).
    crc: Option<Box<crc::CrcCheck>>,
    /// The block whose result came without it and whose bytes the merge waits for.
    wanted: Option<u32>,
}

/// The smallest block the page cuts a file into ([`block_size`]): below it, each block's fixed
/// costs (a message, a read, a partial rank to merge) count.
pub const MIN_BLOCK: u64 = 8 << 20;
/// The largest ([`block_size`]): what a helper holds at once (two jobs' bytes in JavaScript,
/// one in its wasm memory) stays small beside the rank the reading worker builds.
pub const MAX_BLOCK: u64 = 32 << 20;
/// The largest block of a gzip file's content ([`block_size`]), which the reading worker inflates
/// and cuts itself: no read of a file slice favours large blocks there.
pub const MAX_INFLATED_BLOCK: u64 = 16 << 20;

/// How large the blocks of a file of `content` bytes are when `workers` workers parse it: an
/// eighth of each worker's share, so that the last blocks, parsed while other workers may be
/// idle, are a small part of the whole; at least [`MIN_BLOCK`], at most [`MAX_BLOCK`] (range
/// jobs of an uncompressed file) or [`MAX_INFLATED_BLOCK`] (`inflated`: blocks of a gzip file's
/// content), whole MiB. Larger range jobs cost a browser less to read: two Chromium workers read
/// a 1 GB file with `File.slice().arrayBuffer()` for 2.9–3.5 CPU-seconds in 32 MiB slices,
/// 4.1–4.5 in 8 MiB ones (docs/performance.md, seventeenth round). A gzip file's blocks are
/// copied out of the reading worker instead: in 16 MiB blocks the page's 1 GB `.json.gz` showed
/// its Overview sooner than in 32 MiB ones in 6 rounds of 6, with 150 MiB less renderer memory
/// (thirty-second round).
pub fn block_size(content: u64, workers: usize, inflated: bool) -> u64 {
    let share = content / (8 * workers.max(1) as u64);
    share.clamp(MIN_BLOCK, if inflated { MAX_INFLATED_BLOCK } else { MAX_BLOCK }) >> 20 << 20
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

#[cfg(test)]
mod tests {
    use super::{block_size, parse_block, parse_range, BlockParse, MAX_BLOCK, MAX_INFLATED_BLOCK, MIN_BLOCK};
    use crate::read::FileReader;

    const DOC: &[u8] = br#"{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "name": "b", "ts": 3, "dur": 1}]}"#;

    /// A split reader of `DOC` with 1-byte blocks (two blocks), its input ended.
    fn split() -> FileReader {
        let mut r = FileReader::new_split("t.json", None, 1);
        r.push(DOC).unwrap();
        r.end_input().unwrap();
        r
    }

    /// A content block is made in the buffer its bytes were pending in, with the head
    /// `block_bytes` writes; a block given back after its merge becomes the next pending buffer,
    /// so the block after next is made in it.
    #[test]
    fn blocks_are_cut_where_they_wait_and_merged_ones_come_back() {
        let mut s = super::Splitter::new(64);
        let push_events = |s: &mut super::Splitter, from: usize, n: usize| {
            for i in from..from + n {
                s.content(format!(r#"{{"ph": "X", "name": "e{i}", "ts": {i}, "dur": 1}}, "#).as_bytes());
            }
        };
        s.content(br#"{"traceEvents": ["#);
        push_events(&mut s, 0, 12);
        let blocks = s.take_ready();
        assert!(blocks.len() >= 3, "{} blocks", blocks.len());
        let mut base = 0;
        for (k, b) in blocks.iter().enumerate() {
            let h = super::wire::header(b).unwrap();
            assert_eq!((h.seq, h.base), (k as u32, base));
            assert_eq!(*b, super::wire::block_bytes(h.seq, h.flags, h.base, &[], h.content));
            // the buffer the bytes waited in: room for a block and the window searched after it
            assert!(b.capacity() > 64 + (128 << 10), "capacity {}", b.capacity());
            base += h.content.len() as u64;
        }
        let first = blocks[0].as_ptr();
        s.recycle(blocks.into_iter().next().unwrap());
        let mut made = Vec::new();
        for i in 0.. {
            push_events(&mut s, 100 + i, 1);
            made.extend(s.take_ready());
            if made.len() >= 2 {
                break;
            }
        }
        assert_eq!(made[1].as_ptr(), first);
        let h = super::wire::header(&made[1]).unwrap();
        assert!(h.content.starts_with(b", {\"ph\"") && h.content.ends_with(b"}"), "{:?}", String::from_utf8_lossy(h.content));
    }

    #[test]
    fn blocks_are_an_eighth_of_a_share_within_bounds() {
        const MIB: u64 = 1 << 20;
        for inflated in [false, true] {
            // a 100 MB file over 2 helpers: 6 MiB shares, the smallest block
            assert_eq!(block_size(100_000_000, 2, inflated), MIN_BLOCK);
            // 200 MiB over 2: 12.5 MiB, whole MiB down
            assert_eq!(block_size(200 * MIB, 2, inflated), 12 * MIB);
            // nothing to read, the smallest
            assert_eq!(block_size(0, 4, inflated), MIN_BLOCK);
        }
        // 1 GB over 2: the largest; over 6, an eighth of 1/6
        assert_eq!(block_size(1_030_000_000, 2, false), MAX_BLOCK);
        assert_eq!(block_size(1_030_000_000, 6, false), 20 * MIB);
        // a gzip file's content: at most 16 MiB
        assert_eq!(block_size(1_030_000_000, 2, true), MAX_INFLATED_BLOCK);
        assert_eq!(block_size(1_030_000_000, 6, true), MAX_INFLATED_BLOCK);
        // no workers counted as one
        assert_eq!(block_size(256 * MIB, 0, false), MAX_BLOCK);
    }

    /// The texts of the errors for blocks, jobs and results that are not what they should be
    /// (the page shows them; they were strings before they had kinds).
    #[test]
    fn error_texts() {
        let block = split().take_blocks().remove(0);
        let mut r = FileReader::new_ranges("t.json", DOC.len() as u64, 1 << 20);
        r.push(DOC).unwrap();
        let job = r.take_blocks().remove(0);
        let mut long_job = job.clone();
        long_job.push(0);
        let mut bad_json = block[..13].to_vec();
        bad_json.extend_from_slice(&3u32.to_le_bytes());
        bad_json.extend_from_slice(b"[x]");
        let helper = [
            (parse_block("t.json", &job).unwrap_err().to_string(), "a range job given as a content block"),
            (parse_range("t.json", &block, b"", true).unwrap_err().to_string(), "a content block given as a range job"),
            (BlockParse::for_job(&block).err().unwrap().to_string(), "not a range job that runs from a known start to the end of the file"),
            (parse_block("t.json", &block[..3]).unwrap_err().to_string(), "truncated"),
            (parse_range("t.json", &long_job, b"", true).unwrap_err().to_string(), "damaged range job"),
            (parse_block("t.json", &bad_json).unwrap_err().to_string(), "expected value at line 1 column 2"),
        ];
        for (got, want) in helper {
            assert_eq!(got, want);
        }
        let damaged =
            |why: &str| format!("t.json: byte 107: expected the result of parsing a block of this file, found a damaged one ({why})");
        let mut r = split();
        let blocks = r.take_blocks();
        let mut unexpected = parse_block("t.json", &blocks[0]).unwrap();
        unexpected[0] = 7;
        assert_eq!(r.add_partial(unexpected, None).unwrap_err().to_string(), damaged("a result for block 7, not expected"));
        assert_eq!(r.add_partial(vec![0; 5], None).unwrap_err().to_string(), damaged("truncated"));
        let mut r = split();
        let blocks = r.take_blocks();
        let mut longer = parse_block("t.json", &blocks[0]).unwrap();
        longer.push(9);
        assert_eq!(r.add_partial(longer, Some(blocks[0].clone())).unwrap_err().to_string(), damaged("trailing bytes"));
    }
}
