//! Push-based gzip inflation: compressed chunks in, decompressed chunks out, never the whole
//! file in memory. Handles several concatenated gzip members (as `cat a.gz b.gz` or pigz
//! produce), checks each member's CRC-32 and length (or hands the check to a reader of blocks,
//! which gets each block's CRC-32 from its parser: [`GzipInflater::defer_crc`]), and reports a
//! corrupt stream with the compressed byte offset. A reader that keeps the content anyway (a
//! split reader's pending block) can lend its buffer, and the content is inflated straight into
//! it ([`Sink::buffer`]).
//!
//! Format: RFC 1952 (gzip member = header, raw DEFLATE, CRC32 + ISIZE trailer).
//!
//! The DEFLATE data and the CRC-32 are zlib-rs's (its safe [`zlib_rs::Inflate`]): in the page's
//! WebAssembly it inflates 2.5× as fast as miniz_oxide's streaming inflater, natively 1.8×
//! (docs/performance.md, nineteenth round); the headers, members and trailers are read here.

use zlib_rs::{Inflate, InflateError, InflateFlush, Status};

use crate::error::ReadError;

const OUT_CHUNK: usize = 256 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Header,
    Body,
    Trailer,
    /// Between members: zero padding or the next header.
    Between,
    /// Garbage after the last member; everything further is ignored.
    Ignoring,
}

/// Whether `prefix` starts like gzip (magic `1f 8b`).
pub fn is_gzip(prefix: &[u8]) -> bool {
    prefix.len() >= 2 && prefix[0] == 0x1f && prefix[1] == 0x8b
}

/// The content of a file of `size` bytes, at least, from its first bytes `head` (2 are enough)
/// and its last `tail` (4), and whether it is gzip. A gzip file's content is at least what its
/// trailer records (ISIZE: the last member's inflated size modulo 2^32) and at least its
/// compressed size; both are lower bounds (a file that inflates to more than 4 GiB can show
/// less). The page's memory estimate and both readers' choice to parse a file on every core
/// go by it.
pub fn content_at_least(size: u64, head: &[u8], tail: &[u8]) -> (u64, bool) {
    match (is_gzip(head), <[u8; 4]>::try_from(tail)) {
        (true, Ok(isize)) => (u64::from(u32::from_le_bytes(isize)).max(size), true),
        (true, Err(_)) => (size, true),
        (false, _) => (size, false),
    }
}

/// How much content a file of `size` bytes likely has, from the same bytes as
/// [`content_at_least`]: what the CLI chooses by whether to parse a file on every core; never a
/// limit. A gzip file whose trailer records no more than its compressed size has several
/// members (the trailer is the last one's: a bgzip file ends with an empty member, a
/// concatenation with its last part) or inflates past 4 GiB: its content is guessed at
/// [`GZIP_RATIO_GUESS`] times its size. Otherwise the trailer's size (one member, or a last
/// member larger than the file). The page chooses by [`content_at_least`]: split there, a bgzip
/// file of a 100 MB trace opened slower, every block going back to the reading worker for its
/// members' CRC-32s (docs/performance.md, thirtieth round).
pub fn content_guess(size: u64, head: &[u8], tail: &[u8]) -> u64 {
    match content_at_least(size, head, tail) {
        (at_least, true) if at_least == size => size.saturating_mul(GZIP_RATIO_GUESS),
        (at_least, _) => at_least,
    }
}

/// What [`content_guess`] takes a gzip file of several members to inflate to, per byte: less
/// than trace JSON does (the `.json.gz` traces of the shared corpus inflate 13–29 times, the
/// 100 MB benchmark trace in bgzip's 64 KiB members 12 times).
pub const GZIP_RATIO_GUESS: u64 = 8;

/// The end of a gzip member whose CRC-32 its reader checks itself ([`GzipInflater::defer_crc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberEnd {
    /// Where its content ends, as an offset in the content of all members.
    pub end: u64,
    /// The trailer's CRC-32 of the content.
    pub crc: u32,
    /// The trailer's length of the content (modulo 2^32).
    pub isize: u32,
    /// The trailer's offset in the file.
    pub at: u64,
}

/// Where [`GzipInflater::push_to`] puts what it inflates.
pub trait Sink {
    /// A buffer to inflate straight into, its spare capacity at least `min` bytes (the new
    /// bytes are appended, then [`Sink::appended`] is called), or `None`: the bytes come to
    /// [`Sink::content`] from the inflater's own buffer.
    fn buffer(&mut self, min: usize) -> Option<&mut Vec<u8>>;
    /// `n` bytes were appended to the buffer [`Sink::buffer`] lent.
    fn appended(&mut self, n: usize) -> Result<(), ReadError>;
    /// `data`, inflated into the inflater's own buffer.
    fn content(&mut self, data: &[u8]) -> Result<(), ReadError>;
}

/// A [`Sink`] of a function given each chunk.
struct Chunks<'a>(&'a mut dyn FnMut(&[u8]) -> Result<(), ReadError>);

impl Sink for Chunks<'_> {
    fn buffer(&mut self, _: usize) -> Option<&mut Vec<u8>> {
        None
    }

    fn appended(&mut self, _: usize) -> Result<(), ReadError> {
        Ok(()) // it lends none
    }

    fn content(&mut self, data: &[u8]) -> Result<(), ReadError> {
        (self.0)(data)
    }
}

/// A streaming gzip decoder.
pub struct GzipInflater {
    state: Inflate,
    stage: Stage,
    /// Bytes of a header or trailer split across input chunks.
    pending: Vec<u8>,
    out: Vec<u8>,
    /// CRC-32 of the member's data so far.
    crc: u32,
    member_len: u64,
    /// Bytes inflated so far, of all members.
    out_total: u64,
    /// Where the current member's content starts (or the next one's, between members).
    member_start: u64,
    /// The CRC-32s are the caller's to check: the ends of members are kept in `ends` instead.
    deferred: bool,
    ends: Vec<MemberEnd>,
    /// Compressed bytes consumed so far.
    consumed: u64,
    /// Members completed.
    pub members: u32,
    /// Set when bytes that are not gzip follow the last member.
    pub trailing_garbage_at: Option<u64>,
}

impl Default for GzipInflater {
    fn default() -> Self {
        GzipInflater {
            // raw DEFLATE (the gzip framing is read here), 32 KiB window
            state: Inflate::new(false, 15),
            stage: Stage::Header,
            pending: Vec::new(),
            out: vec![0; OUT_CHUNK],
            crc: 0,
            member_len: 0,
            out_total: 0,
            member_start: 0,
            deferred: false,
            ends: Vec::new(),
            consumed: 0,
            members: 0,
            trailing_garbage_at: None,
        }
    }
}

/// Length of a complete gzip header at the start of `b`, `Ok(None)` if more bytes are needed.
fn header_len(b: &[u8], at: u64) -> Result<Option<usize>, ReadError> {
    if b.len() < 10 {
        return Ok(None);
    }
    if b[0] != 0x1f || b[1] != 0x8b {
        return Err(ReadError::new(at, "a gzip member header (1f 8b)", crate::error::excerpt(&b[..2])));
    }
    if b[2] != 8 {
        return Err(ReadError::new(at + 2, "gzip compression method 8 (deflate)", format!("method {}", b[2])));
    }
    let flg = b[3];
    let mut i = 10;
    if flg & 0x04 != 0 {
        if b.len() < i + 2 {
            return Ok(None);
        }
        i += 2 + u16::from_le_bytes([b[i], b[i + 1]]) as usize;
    }
    for bit in [0x08u8, 0x10] {
        if flg & bit != 0 {
            match b.get(i..).and_then(|r| r.iter().position(|&c| c == 0)) {
                Some(p) => i += p + 1,
                None => return Ok(None),
            }
        }
    }
    if flg & 0x02 != 0 {
        i += 2;
    }
    Ok(if b.len() >= i { Some(i) } else { None })
}

impl GzipInflater {
    /// Compressed bytes consumed so far.
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// From now on the caller checks each member's CRC-32 and length (a split reader, from the
    /// CRC-32 of each block that whoever parses it computes): the CRC-32 is no longer computed
    /// here, and each member's end waits in [`GzipInflater::take_ends`]. Returns where the current
    /// member's content starts (or the next one's): the members before it were checked here.
    pub fn defer_crc(&mut self) -> u64 {
        self.deferred = true;
        self.member_start
    }

    /// Whether the caller checks the CRC-32s ([`GzipInflater::defer_crc`]).
    pub fn crc_deferred(&self) -> bool {
        self.deferred
    }

    /// The ends of the members since the last call, when the caller checks the CRC-32s.
    pub fn take_ends(&mut self) -> Vec<MemberEnd> {
        std::mem::take(&mut self.ends)
    }

    /// Feeds compressed bytes; decompressed bytes go to `sink`.
    pub fn push(&mut self, input: &[u8], sink: &mut dyn FnMut(&[u8]) -> Result<(), ReadError>) -> Result<(), ReadError> {
        self.push_to(input, &mut Chunks(sink))
    }

    /// Feeds compressed bytes; decompressed bytes go to `sink`, inflated straight into the
    /// buffer it lends ([`Sink::buffer`]) if it lends one.
    pub fn push_to(&mut self, mut input: &[u8], sink: &mut dyn Sink) -> Result<(), ReadError> {
        while !input.is_empty() {
            match self.stage {
                Stage::Ignoring => {
                    self.consumed += input.len() as u64;
                    return Ok(());
                }
                Stage::Between => {
                    // zero padding is allowed between/after members
                    let zeros = input.iter().take_while(|&&c| c == 0).count();
                    self.consumed += zeros as u64;
                    input = &input[zeros..];
                    if input.is_empty() {
                        return Ok(());
                    }
                    if input[0] != 0x1f || (input.len() > 1 && input[1] != 0x8b) {
                        self.trailing_garbage_at = Some(self.consumed);
                        self.stage = Stage::Ignoring;
                        continue;
                    }
                    self.stage = Stage::Header;
                }
                Stage::Header => {
                    let start = self.pending.len();
                    self.pending.extend_from_slice(&input[..input.len().min(64 * 1024)]);
                    match header_len(&self.pending, self.consumed - start as u64)? {
                        None => {
                            let took = self.pending.len() - start;
                            self.consumed += took as u64;
                            input = &input[took..];
                        }
                        Some(h) => {
                            let took = h - start;
                            self.consumed += took as u64;
                            input = &input[took..];
                            self.pending.clear();
                            self.state.reset(false);
                            self.crc = 0;
                            self.member_len = 0;
                            self.stage = Stage::Body;
                        }
                    }
                }
                Stage::Body => {
                    let (status, read, wrote) = self.inflate(input, sink)?;
                    self.consumed += read as u64;
                    input = &input[read..];
                    match status {
                        Ok(Status::StreamEnd) => self.stage = Stage::Trailer,
                        Ok(Status::Ok) => {}
                        Ok(Status::BufError) if read == 0 && wrote == 0 => {
                            // input left and no progress: no room to inflate into (a sink that
                            // lent a full buffer). Never dropped silently: that input would be
                            // lost as if the file were truncated
                            return Err(ReadError::new(
                                self.consumed,
                                "room to inflate into (a bug in kinetoscope: please report it)",
                                format!("no progress at compressed byte {}", self.consumed),
                            ));
                        }
                        Ok(Status::BufError) => {}
                        Err(e) => {
                            let what = match e {
                                InflateError::DataError => "corrupt deflate data",
                                InflateError::NeedDict { .. } => "a deflate stream that needs a preset dictionary",
                                InflateError::StreamError | InflateError::MemError => "a deflate stream error",
                            };
                            return Err(ReadError::new(
                                self.consumed,
                                "valid gzip (deflate) data",
                                format!("{what} at compressed byte {}", self.consumed),
                            ));
                        }
                    }
                }
                Stage::Trailer => {
                    let need = 8 - self.pending.len();
                    let take = need.min(input.len());
                    self.pending.extend_from_slice(&input[..take]);
                    self.consumed += take as u64;
                    input = &input[take..];
                    if self.pending.len() == 8 {
                        let crc = u32::from_le_bytes([self.pending[0], self.pending[1], self.pending[2], self.pending[3]]);
                        let isize = u32::from_le_bytes([self.pending[4], self.pending[5], self.pending[6], self.pending[7]]);
                        let got = std::mem::take(&mut self.crc);
                        let at = self.consumed - 8;
                        if self.deferred {
                            self.ends.push(MemberEnd { end: self.out_total, crc, isize, at });
                        } else if got != crc || isize != self.member_len as u32 {
                            return Err(trailer_mismatch(at, crc, isize, got, self.member_len));
                        }
                        self.member_start = self.out_total;
                        self.pending.clear();
                        self.members += 1;
                        self.stage = Stage::Between;
                    }
                }
            }
        }
        // Drain output the decoder still holds (it may have more than one buffer's worth).
        if self.stage == Stage::Body {
            loop {
                let (status, _, wrote) = self.inflate(&[], sink)?;
                if wrote == 0 {
                    break;
                }
                if let Ok(Status::StreamEnd) = status {
                    self.stage = Stage::Trailer;
                    break;
                }
            }
        }
        Ok(())
    }

    /// One call of the DEFLATE decoder on `input`, into the buffer `sink` lends (appended to it)
    /// or into `out`, the new bytes counted into the member's CRC-32 and length and given to
    /// `sink`: the decoder's status, the bytes it read and the bytes it wrote.
    fn inflate(&mut self, input: &[u8], sink: &mut dyn Sink) -> Result<(Result<Status, InflateError>, usize, usize), ReadError> {
        let (read, wrote) = (self.state.total_in(), self.state.total_out());
        let lent = sink.buffer(OUT_CHUNK);
        let status = match lent {
            Some(buf) => {
                let had = buf.len();
                let room = buf.capacity() - had;
                let status =
                    self.state.decompress_uninit(input, &mut buf.spare_capacity_mut()[..room.min(OUT_CHUNK)], InflateFlush::NoFlush);
                let n = (self.state.total_out() - wrote) as usize;
                // SAFETY: the decoder initialized the first `n` bytes of the spare capacity it was
                // given (it reports what it wrote through `total_out`)
                unsafe { buf.set_len(had + n) };
                if n > 0 {
                    self.count(&buf[had..]);
                    sink.appended(n)?;
                }
                status
            }
            None => {
                let mut out = std::mem::take(&mut self.out);
                let status = self.state.decompress(input, &mut out, InflateFlush::NoFlush);
                let n = (self.state.total_out() - wrote) as usize;
                let given = if n > 0 {
                    self.count(&out[..n]);
                    sink.content(&out[..n])
                } else {
                    Ok(())
                };
                self.out = out;
                given?;
                status
            }
        };
        Ok((status, (self.state.total_in() - read) as usize, (self.state.total_out() - wrote) as usize))
    }

    /// `data`, just inflated, into the member's CRC-32 and length.
    fn count(&mut self, data: &[u8]) {
        if !self.deferred {
            self.crc = crate::read::crc32::crc32(self.crc, data);
        }
        self.member_len += data.len() as u64;
        self.out_total += data.len() as u64;
    }

    /// Ends the stream. `Ok(true)` when the data ended cleanly, `Ok(false)` when it was cut
    /// inside a member (the caller warns: what was decompressed is kept).
    pub fn finish(&mut self) -> Result<bool, ReadError> {
        match self.stage {
            Stage::Between | Stage::Ignoring => Ok(true),
            Stage::Header if self.pending.is_empty() && self.members > 0 => Ok(true),
            Stage::Header if self.members == 0 => Err(ReadError::new(self.consumed, "a complete gzip header", "end of input")),
            _ => Ok(false),
        }
    }
}

/// The error of a gzip trailer (at file offset `at`) that does not match its member's data: the
/// trailer's CRC-32 and length, the data's.
pub fn trailer_mismatch(at: u64, crc: u32, isize: u32, got: u32, len: u64) -> ReadError {
    ReadError::new(
        at,
        "a gzip trailer matching the data (CRC-32 and length)",
        format!("CRC {crc:08x}/length {isize}, data has CRC {got:08x}/length {}", len as u32),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use miniz_oxide::deflate::compress_to_vec;

    #[test]
    fn content_of_gzip_is_at_least_its_trailer_and_its_size() {
        let isize = (3u32 << 30).to_le_bytes();
        assert_eq!(content_at_least(100 << 20, &[0x1f, 0x8b], &isize), (3 << 30, true));
        // the trailer wrapped (more than 4 GiB) or is the last of several members: at least the size
        assert_eq!(content_at_least(100 << 20, &[0x1f, 0x8b, 8], &[1, 0, 0, 0]), (100 << 20, true));
        assert_eq!(content_at_least(10, &[0x1f, 0x8b], &[1, 2]), (10, true));
        assert_eq!(content_at_least(10, b"{\"", &isize), (10, false));
        assert_eq!(content_at_least(0, &[], &[]), (0, false));
    }

    #[test]
    fn content_guess_takes_several_members_at_a_ratio() {
        use super::content_guess;
        let gz = [0x1f, 0x8b];
        // one member: its trailer's size
        assert_eq!(content_guess(8 << 20, &gz, &(100u32 << 20).to_le_bytes()), 100 << 20);
        // a bgzip file ends with an empty member; a concatenation with a small last part
        assert_eq!(content_guess(9 << 20, &gz, &0u32.to_le_bytes()), 72 << 20);
        assert_eq!(content_guess(9 << 20, &gz, &(9u32 << 20).to_le_bytes()), 72 << 20);
        // no trailer to read
        assert_eq!(content_guess(10, &gz, &[1, 2]), 80);
        // not gzip: its size
        assert_eq!(content_guess(10 << 20, b"{\"", &0u32.to_le_bytes()), 10 << 20);
        assert_eq!(content_guess(u64::MAX, &gz, &0u32.to_le_bytes()), u64::MAX);
    }

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut v = vec![0x1f, 0x8b, 8, 0x08, 0, 0, 0, 0, 0, 3];
        v.extend_from_slice(b"name.json\0");
        v.extend(compress_to_vec(data, 6));
        let mut h = crc32fast::Hasher::new();
        h.update(data);
        v.extend(h.finalize().to_le_bytes());
        v.extend((data.len() as u32).to_le_bytes());
        v
    }

    fn inflate_all(input: &[u8], chunk: usize) -> Result<(Vec<u8>, bool, u32), ReadError> {
        let mut g = GzipInflater::default();
        let mut out = Vec::new();
        for c in input.chunks(chunk) {
            g.push(c, &mut |d| {
                out.extend_from_slice(d);
                Ok(())
            })?;
        }
        let clean = g.finish()?;
        Ok((out, clean, g.members))
    }

    #[test]
    fn members_and_chunk_sizes() {
        let a: Vec<u8> = (0..300_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let mut two = gzip(&a);
        two.extend(gzip(b"second member"));
        let mut want = a.clone();
        want.extend_from_slice(b"second member");
        for chunk in [1, 7, 4096, usize::MAX] {
            let (out, clean, members) = inflate_all(&two, chunk.min(two.len())).unwrap();
            assert_eq!(out, want);
            assert!(clean);
            assert_eq!(members, 2);
        }
    }

    #[test]
    fn truncated_and_corrupt() {
        let g = gzip(b"{\"traceEvents\": []}");
        let (out, clean, _) = inflate_all(&g[..g.len() - 12], 5).unwrap();
        assert!(!clean);
        assert!(b"{\"traceEvents\": []}".starts_with(&out));
        let mut bad = g.clone();
        let n = bad.len();
        bad[n - 6] ^= 0xff; // length field
        assert!(inflate_all(&bad, 3).is_err());
        let mut garbage = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3];
        garbage.extend_from_slice(&[0xff; 40]);
        let e = inflate_all(&garbage, 40).unwrap_err();
        assert!(e.expected.contains("gzip"), "{e}");
    }
}
