//! The reading side's cutting: blocks of content cut where the bytes look like the end of one
//! event object and the start of the next (a guess, checked when the blocks are merged), or
//! range jobs planned from the file's size alone.

use std::collections::BTreeMap;

use super::wire::{block_bytes, put_block_head, range_job, BLOCK_HEAD, CRC, FIRST, IN_OBJECT, LAST};
use super::Splitter;
use crate::error::WarningKind;

/// Bytes after the target size searched for a cut before waiting for more input.
const WINDOW: usize = 256 << 10;

/// Buffers of merged blocks kept for the next blocks ([`Splitter::recycle`]).
const SPARES: usize = 4;

impl Splitter {
    /// Content blocks of about `target` bytes.
    pub(in crate::read) fn new(target: usize) -> Splitter {
        Splitter {
            target: target.max(1),
            ranges: None,
            pending: vec![0; BLOCK_HEAD],
            pending_at: 0,
            spares: Vec::new(),
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
            crc: None,
            wanted: None,
        }
    }

    /// The content is a gzip file's: its blocks' parsers compute their CRC-32s, from which the
    /// members' are checked here once the inflater hands them over ([`Splitter::member_boundary`]).
    pub(in crate::read) fn check_crc(&mut self) {
        self.crc = Some(Box::default());
    }

    /// Whether the members' CRC-32s are checked here ([`Splitter::check_crc`]).
    pub(in crate::read) fn checks_crc(&self) -> bool {
        self.crc.is_some()
    }

    /// A gzip member boundary at content offset `at` (no content after it has come yet), with
    /// the member that ends there (`None`: the start of the member the inflater was reading
    /// when it handed its CRC-32s over).
    pub(in crate::read) fn member_boundary(
        &mut self,
        at: u64,
        end: Option<crate::read::inflate::MemberEnd>,
    ) -> Result<(), crate::error::ReadError> {
        match &mut self.crc {
            Some(c) => c.boundary(at, end),
            None => Ok(()),
        }
    }

    /// Whether every member's CRC-32 handed over was checked (all blocks merged).
    pub(in crate::read) fn crc_done(&self) -> bool {
        self.crc.as_ref().is_none_or(|c| c.done())
    }

    /// Range jobs of about `target` bytes over an uncompressed file of `size` bytes.
    pub(in crate::read) fn new_ranges(target: usize, size: u64) -> Splitter {
        Splitter { ranges: Some(size), ..Splitter::new(target) }
    }

    /// Whether this splitter hands out range jobs.
    pub(in crate::read) fn reads_ranges(&self) -> bool {
        self.ranges.is_some()
    }

    /// Takes content bytes; closes blocks where it finds cuts. In range mode only the first
    /// bytes matter (whether the document is an object); then every job is ready.
    pub(in crate::read) fn content(&mut self, data: &[u8]) {
        if let Some(size) = self.ranges {
            if self.in_object.is_none() {
                self.in_object = first_byte(data).map(|c| c == b'{');
                if let Some(obj) = self.in_object {
                    self.plan_ranges(size, obj);
                }
            }
            return;
        }
        self.reserve(data.len());
        self.pending.extend_from_slice(data);
        self.appended();
    }

    /// At least `n` bytes of spare capacity in the pending block. Usually at most a block, the
    /// window searched for its cut and the bytes that came with it are pending (after the head
    /// of the block they will be): reserved once at that size, not doubled by a chunk that
    /// crosses it. A stretch without a cut (whitespace, one huge event) waits until it is twice
    /// a block ([`Splitter::appended`]): past that size the buffer grows as a `Vec` does. (It
    /// did not grow there: the inflater, lent a buffer without room, made no progress, and the
    /// rest of a gzip file was lost as if truncated.)
    fn reserve(&mut self, n: usize) {
        let len = self.pending.len();
        if self.pending.capacity() - len >= n {
            return;
        }
        let room = self.target.saturating_add(WINDOW).saturating_add(n).min(1 << 30) + BLOCK_HEAD;
        if len + n <= room {
            self.pending.reserve_exact(room - len);
        } else {
            self.pending.reserve(n);
        }
    }

    /// The pending block, with at least `min` bytes of spare capacity, for content to be
    /// appended to it directly (then [`Splitter::appended`]); `None` when the file is read in
    /// range jobs (its content is not kept).
    pub(in crate::read) fn buffer(&mut self, min: usize) -> Option<&mut Vec<u8>> {
        if self.ranges.is_some() {
            return None;
        }
        self.reserve(min);
        Some(&mut self.pending)
    }

    /// Content was appended to the pending block: blocks are cut from it.
    pub(in crate::read) fn appended(&mut self) {
        if self.in_object.is_none() {
            self.in_object = first_byte(&self.pending[BLOCK_HEAD..]).map(|c| c == b'{');
        }
        while self.pending_len() > self.target {
            let from = self.searched.max(self.target - 1);
            match find_cut(&self.pending[BLOCK_HEAD + from..]) {
                Some(k) => {
                    let cut = from + k;
                    self.close(cut, 0, &[]);
                }
                None if self.pending_len() >= self.target.saturating_mul(2) => {
                    // no cut in twice a block (whitespace, one huge event, bytes before or after
                    // the event array): the pending bytes go out as a block all the same, a guess
                    // the merge checks like any other cut (a block whose parse did not end after
                    // an element is parsed again with the next), so that what waits here stays
                    // under two blocks whatever the content (it was the whole stretch: a gzip file
                    // of 431 MB of whitespace took 831 MiB)
                    let cut = self.pending_len();
                    self.close(cut, 0, &[]);
                }
                None => {
                    // the last few bytes may be the start of a cut
                    self.searched = self.pending_len().saturating_sub(16).max(from);
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
    pub(super) fn range_end(&self, k: u32, size: u64) -> u64 {
        (u64::from(k) + 1).saturating_mul(self.target as u64).min(size)
    }

    /// Content bytes pending.
    fn pending_len(&self) -> usize {
        self.pending.len() - BLOCK_HEAD
    }

    /// Makes the first `cut` pending bytes a block. Without warnings, the block is the pending
    /// buffer itself, its head written in front of the content, and the bytes after the cut go
    /// to a spare buffer that becomes the pending one: no block's content is copied, and the
    /// buffers of merged blocks come back ([`Splitter::recycle`]) instead of new memory for
    /// each block (`info` of the 100 MB trace's gzip file: a peak of 43 MiB, not 48).
    fn close(&mut self, cut: usize, extra: u8, end_warnings: &[(WarningKind, u64, String)]) {
        let first = if self.next_seq == 0 { FIRST } else { 0 };
        let obj = if self.in_object == Some(true) { IN_OBJECT } else { 0 };
        let extra = match &mut self.crc {
            Some(c) => {
                c.cut(self.pending_at, cut as u64);
                extra | CRC
            }
            None => extra,
        };
        let b = if end_warnings.is_empty() {
            let mut rest = self.spares.pop().unwrap_or_default();
            rest.clear();
            rest.resize(BLOCK_HEAD, 0);
            rest.extend_from_slice(&self.pending[BLOCK_HEAD + cut..]);
            let mut b = std::mem::replace(&mut self.pending, rest);
            b.truncate(BLOCK_HEAD + cut);
            put_block_head(&mut b, self.next_seq, first | obj | extra, self.pending_at, 0);
            b
        } else {
            let b = block_bytes(self.next_seq, first | obj | extra, self.pending_at, end_warnings, &self.pending[BLOCK_HEAD..][..cut]);
            self.pending.drain(BLOCK_HEAD..BLOCK_HEAD + cut);
            b
        };
        self.ready.push(b);
        self.next_seq += 1;
        self.pending_at += cut as u64;
        self.searched = 0;
    }

    /// Keeps the buffer of a block that was merged, for a later block (at most [`SPARES`]).
    pub(super) fn recycle(&mut self, block: Vec<u8>) {
        if !self.ended && self.spares.len() < SPARES {
            self.spares.push(block);
        }
    }

    /// Ends the input: the rest becomes the last block, which also carries the warnings found
    /// at the end of the input (they come after every event's, before the scanner's own end).
    /// Range jobs were all made at the start (an uncompressed file has no such warnings).
    pub(in crate::read) fn end(&mut self, end_warnings: &[(WarningKind, u64, String)]) {
        if !self.ended {
            self.ended = true;
            self.close(self.pending_len(), LAST, end_warnings);
            self.pending = vec![0; BLOCK_HEAD];
            self.spares = Vec::new();
        }
    }

    /// The blocks or jobs made since the last call, in order.
    pub(in crate::read) fn take_ready(&mut self) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.ready)
    }

    /// Blocks handed out whose result has not arrived yet.
    pub(in crate::read) fn outstanding(&self) -> u32 {
        self.next_seq - self.next_merge - self.waiting.len() as u32
    }

    /// Blocks handed out and not merged yet (arrived or not).
    pub(in crate::read) fn unmerged(&self) -> u32 {
        self.next_seq - self.next_merge
    }
}

/// The first byte of a document that is not whitespace (after a UTF-8 byte order mark).
fn first_byte(b: &[u8]) -> Option<u8> {
    let b = b.strip_prefix(&[0xef, 0xbb, 0xbf]).unwrap_or(b);
    b.iter().copied().find(|c| !c.is_ascii_whitespace())
}

/// Where a block may end in `b`: just after a `}` followed by `,` and `{` (whitespace between).
pub(super) fn find_cut(b: &[u8]) -> Option<usize> {
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
