//! The CRC-32s of a gzip file read in blocks, checked on the reading side from the CRC-32 of each
//! content block, which whoever parses the block computes ([`super::parse_block`]). The reading
//! side then only inflates, cuts and merges: in the page's wasm, which has no carry-less
//! multiply, the CRC-32 of the content was a fifth of the reading worker's work, on the one
//! thread that all the helpers wait for (docs/performance.md, twenty-seventh round).
//!
//! `P(x)`, the CRC-32 of the content from its start to offset `x`, follows block by block in file
//! order: `P(end) = crc32_combine(P(base), crc, end − base)`. A member `[s, x)` has the CRC-32
//! `P(x) ^ crc32_combine(P(s), 0, x − s)` (the combination is linear in each CRC). A member that
//! ends inside a block (`cat a.gz b.gz`: rare) gets `P` there from the block's bytes up to it,
//! computed here.

use std::collections::VecDeque;

use zlib_rs::crc32::crc32_combine;

use crate::error::ReadError;
use crate::read::crc32::crc32;
use crate::read::inflate::{trailer_mismatch, MemberEnd};

/// The check of one file's members, fed the blocks as they are cut and merged and the members'
/// ends as the inflater reads their trailers.
#[derive(Default)]
pub(super) struct CrcCheck {
    /// Blocks cut and not merged yet: content offset and length.
    cuts: VecDeque<(u64, u64)>,
    /// Member boundaries past the merged blocks: the offset, and the member that ends there
    /// (`None`: the start of the member being read when the inflater handed over, nothing before
    /// it to check here).
    ends: VecDeque<(u64, Option<MemberEnd>)>,
    /// The end of the merged blocks and `P` there.
    merged: (u64, u32),
    /// Where the current member starts and `P` there.
    start: (u64, u32),
}

impl CrcCheck {
    /// A block `[base, base + len)` was cut.
    pub(super) fn cut(&mut self, base: u64, len: u64) {
        self.cuts.push_back((base, len));
    }

    /// A member boundary at content offset `at` (past every cut so far: the content after it
    /// comes later), with the member that ends there; checked at once if every block before it
    /// is merged.
    pub(super) fn boundary(&mut self, at: u64, end: Option<MemberEnd>) -> Result<(), ReadError> {
        if self.ends.is_empty() && at == self.merged.0 {
            return self.reached(at, self.merged.1, end);
        }
        self.ends.push_back((at, end));
        Ok(())
    }

    /// The next block in file order was merged: `crc`, its CRC-32 from its result; `content`,
    /// its bytes (needed only when a member ends inside it; `Ok(false)` when they are and are
    /// missing).
    pub(super) fn merged(&mut self, crc: u32, content: Option<&[u8]>) -> Result<bool, ReadError> {
        let Some((base, len)) = self.cuts.pop_front() else { return Ok(false) };
        let at_base = self.merged.1;
        let end = base + len;
        let at_end = crc32_combine(at_base, crc, len);
        // `P` at the last member end inside the block, continued from there to the next one (a
        // bgzip file has a member per 64 KiB: each end's CRC-32 from the block's start was the
        // block's bytes many times over)
        let (mut pos, mut at_pos) = (base, at_base);
        while let Some(&(x, member)) = self.ends.front().filter(|e| e.0 <= end) {
            let p = if x == end {
                at_end
            } else if x <= base {
                at_base
            } else {
                let Some(piece) = content.and_then(|c| c.get((pos - base) as usize..(x - base) as usize)) else { return Ok(false) };
                (pos, at_pos) = (x, crc32(at_pos, piece));
                at_pos
            };
            self.ends.pop_front();
            self.reached(x, p, member)?;
        }
        self.merged = (end, at_end);
        Ok(true)
    }

    /// Whether a member ends inside the next block to merge, so that [`CrcCheck::merged`] needs
    /// its bytes.
    pub(super) fn next_needs_content(&self) -> bool {
        match (self.cuts.front(), self.ends.front()) {
            (Some(&(base, len)), Some(&(x, _))) => base < x && x < base + len,
            _ => false,
        }
    }

    /// Whether every member boundary was reached by the merged blocks.
    pub(super) fn done(&self) -> bool {
        self.ends.is_empty()
    }

    /// The merged content reached the boundary `at`, where `P` is `p`: the member that ends
    /// there is checked, the next one starts.
    fn reached(&mut self, at: u64, p: u32, end: Option<MemberEnd>) -> Result<(), ReadError> {
        if let Some(e) = end {
            let (s, at_start) = self.start;
            let got = p ^ crc32_combine(at_start, 0, at - s);
            if got != e.crc || e.isize != (at - s) as u32 {
                return Err(trailer_mismatch(e.at, e.crc, e.isize, got, at - s));
            }
        }
        self.start = (at, p);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::CrcCheck;
    use crate::read::inflate::MemberEnd;
    use zlib_rs::crc32::crc32;

    /// Members of every length cut into blocks of every length, a member's end at a block's
    /// start, inside it and at its end: each member is checked against its own CRC-32, and a
    /// wrong one is named with its trailer's offset.
    #[test]
    fn members_checked_from_the_blocks_crcs() {
        let content: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        for members in [
            vec![5000],
            vec![0, 5000],
            vec![1, 999, 4000],
            vec![2500, 2500, 0],
            vec![1000, 1000, 1000, 1000, 1000],
            vec![100; 50],
            [vec![0, 7, 0], vec![331; 15], vec![28]].concat(),
        ] {
            for block in [1usize, 7, 1000, 2500, 4999, 5000] {
                for wrong in [None, Some(members.len() - 1), Some(0)] {
                    let mut c = CrcCheck::default();
                    c.boundary(0, None).unwrap();
                    let mut member_at = 0;
                    let mut ends = Vec::new();
                    for (k, &n) in members.iter().enumerate() {
                        let crc = crc32(0, &content[member_at..member_at + n]) ^ u32::from(wrong == Some(k));
                        member_at += n;
                        ends.push(MemberEnd { end: member_at as u64, crc, isize: n as u32, at: 1000 + k as u64 });
                    }
                    let mut cuts: Vec<(usize, usize)> =
                        (0..content.len()).step_by(block).map(|b| (b, (b + block).min(content.len()))).collect();
                    cuts.reverse();
                    let mut failed = None;
                    let mut next_end = 0;
                    while let Some((b, e)) = cuts.pop().filter(|_| failed.is_none()) {
                        c.cut(b as u64, (e - b) as u64);
                        // the ends the inflater read before this block's bytes were all there
                        while failed.is_none() && next_end < ends.len() && ends[next_end].end < e as u64 {
                            failed = c.boundary(ends[next_end].end, Some(ends[next_end])).err();
                            next_end += 1;
                        }
                        if failed.is_none() {
                            failed = c.merged(crc32(0, &content[b..e]), Some(&content[b..e])).err();
                        }
                    }
                    while failed.is_none() && next_end < ends.len() {
                        failed = c.boundary(ends[next_end].end, Some(ends[next_end])).err();
                        next_end += 1;
                    }
                    match wrong {
                        None => assert!(failed.is_none() && c.done(), "{members:?} in blocks of {block}: {failed:?}"),
                        Some(k) => assert_eq!(failed.map(|e| e.offset), Some(1000 + k as u64), "{members:?} in blocks of {block}"),
                    }
                }
            }
        }
    }

    /// A member that ends inside a block needs the block's bytes.
    #[test]
    fn an_end_inside_a_block_needs_its_bytes() {
        let mut c = CrcCheck::default();
        c.boundary(0, None).unwrap();
        c.cut(0, 10);
        c.boundary(4, Some(MemberEnd { end: 4, crc: crc32(0, b"abcd"), isize: 4, at: 9 })).unwrap();
        assert!(!c.merged(crc32(0, b"abcdefghij"), None).unwrap());
        let mut c = CrcCheck::default();
        c.boundary(0, None).unwrap();
        c.cut(0, 10);
        c.boundary(4, Some(MemberEnd { end: 4, crc: crc32(0, b"abcd"), isize: 4, at: 9 })).unwrap();
        assert!(c.merged(crc32(0, b"abcdefghij"), Some(b"abcdefghij")).unwrap());
        assert!(c.done());
    }
}
