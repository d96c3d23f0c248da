//! gzip encoding (RFC 1952): a 10-byte header (no name, mtime 0), one raw deflate stream from
//! `miniz_oxide`, then the CRC-32 and the length mod 2^32. The matching decoder is
//! `read::inflate`.
//!
//! [`GzipWriter`] streams: it compresses its input in [`BLOCK`]-sized pieces, each on its own
//! (no dictionary shared across pieces, as `pigz` does) and ended by a sync flush, so the pieces'
//! deflate output concatenates into one valid stream and one gzip member that any gunzip reads.
//! Natively, `THREADS` pieces are compressed at once on scoped threads; in wasm one at a time.
//! Memory is a few pieces, whatever the size of the input.

use std::io::{self, Write};

use miniz_oxide::deflate::core::{compress_to_output, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus};

/// Input bytes per independently compressed piece: large enough that restarting the dictionary
/// costs under 0.1 % of the output, small enough that pieces spread over threads.
pub const BLOCK: usize = 2 << 20;

/// Pieces compressed at once natively (at most the machine's cores).
const THREADS: usize = 4;

/// The deflate level of [`gzip`] and [`GzipWriter::new`]: 6, the gzip tool's default.
pub const DEFAULT_LEVEL: u8 = 6;

/// `data` gzip-compressed (deflate level 6, the gzip tool's default).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut w = GzipWriter::new(Vec::with_capacity(data.len() / 8 + 64));
    let _ = w.write_all(data);
    w.finish().unwrap_or_default()
}

/// A [`Write`] that gzip-compresses what it is given into `W` (module docs). Call
/// [`GzipWriter::finish`] to write the trailer: dropping it leaves the member unfinished.
pub struct GzipWriter<W: Write> {
    out: W,
    level: u8,
    /// Input not yet compressed: up to `pieces × BLOCK` bytes.
    pending: Vec<u8>,
    pieces: usize,
    crc: crc32fast::Hasher,
    len: u64,
    started: bool,
}

impl<W: Write> GzipWriter<W> {
    /// A writer at [`DEFAULT_LEVEL`].
    pub fn new(out: W) -> GzipWriter<W> {
        GzipWriter::with_level(out, DEFAULT_LEVEL)
    }

    /// A writer at deflate `level` (1 fastest … 9 smallest).
    pub fn with_level(out: W, level: u8) -> GzipWriter<W> {
        let pieces =
            if cfg!(target_arch = "wasm32") { 1 } else { std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, THREADS) };
        GzipWriter { out, level, pending: Vec::new(), pieces, crc: crc32fast::Hasher::new(), len: 0, started: false }
    }

    /// Compresses what is pending, writes the trailer and returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.flush_pending(true)?;
        self.out.write_all(&self.crc.clone().finalize().to_le_bytes())?;
        self.out.write_all(&(self.len as u32).to_le_bytes())?;
        Ok(self.out)
    }

    /// Compresses the pending input (the last piece ends the stream when `last`) and writes it.
    fn flush_pending(&mut self, last: bool) -> io::Result<()> {
        if !self.started {
            // ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=255 (unknown)
            self.out.write_all(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255])?;
            self.started = true;
        }
        // the CRC over the whole pending input at once: per write it is slow for small writes
        self.crc.update(&self.pending);
        self.len += self.pending.len() as u64;
        let pieces: Vec<&[u8]> = if self.pending.is_empty() { vec![&[][..]] } else { self.pending.chunks(BLOCK).collect() };
        let n = pieces.len();
        let level = self.level;
        let compressed: Vec<Vec<u8>> = if n == 1 || cfg!(target_arch = "wasm32") {
            pieces.iter().enumerate().map(|(i, p)| deflate_piece(p, level, last && i + 1 == n)).collect()
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> =
                    pieces.iter().enumerate().map(|(i, p)| s.spawn(move || deflate_piece(p, level, last && i + 1 == n))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
            })
        };
        for c in compressed {
            self.out.write_all(&c)?;
        }
        self.pending.clear();
        Ok(())
    }
}

impl<W: Write> Write for GzipWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let room = self.pieces * BLOCK - self.pending.len();
        let take = buf.len().min(room);
        self.pending.extend_from_slice(&buf[..take]);
        if self.pending.len() == self.pieces * BLOCK {
            self.flush_pending(false)?;
        }
        Ok(take)
    }

    /// Does nothing: a piece is compressed when full, so that output does not depend on how
    /// the input was cut into writes.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One piece as raw deflate: a fresh dictionary, ended by a sync flush (byte-aligned, not
/// final) or, for the `last` piece, by the final block.
fn deflate_piece(piece: &[u8], level: u8, last: bool) -> Vec<u8> {
    let mut d = CompressorOxide::new(create_comp_flags_from_zip_params(i32::from(level), -15, 0));
    let mut out = Vec::with_capacity(piece.len() / 4 + 64);
    let flush = if last { TDEFLFlush::Finish } else { TDEFLFlush::Sync };
    let (status, _) = compress_to_output(&mut d, piece, flush, |b| {
        out.extend_from_slice(b);
        true
    });
    debug_assert!(matches!(status, TDEFLStatus::Done | TDEFLStatus::Okay), "{status:?}");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gunzip(b: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut g = crate::read::inflate::GzipInflater::default();
        g.push(b, &mut |d| {
            out.extend_from_slice(d);
            Ok(())
        })
        .expect("valid gzip");
        assert!(g.finish().expect("complete member"));
        out
    }

    #[test]
    fn round_trip() {
        let data: Vec<u8> = (0..100_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let z = gzip(&data);
        assert_eq!(&z[..3], &[0x1f, 0x8b, 8]);
        assert!(z.len() < data.len() / 2);
        assert_eq!(gunzip(&z), data);
        assert_eq!(gunzip(&gzip(b"")), b"");
        // trailer: CRC-32 of "hello" is 0x3610a686, length 5
        let h = gzip(b"hello");
        assert_eq!(&h[h.len() - 8..], &[0x86, 0xa6, 0x10, 0x36, 5, 0, 0, 0]);
    }

    #[test]
    fn many_pieces_make_one_member_whatever_the_writes() {
        // 5.5 pieces of text that compresses, written in odd-sized writes: one gzip member
        let data: Vec<u8> =
            (0..(BLOCK * 11 / 2) as u64).map(|i| b"{\"ts\": 12, \"name\": \"k\"},"[(i % 24) as usize] ^ (i / 997 % 3) as u8).collect();
        let mut w = GzipWriter::with_level(Vec::new(), 1);
        for part in data.chunks(777_777) {
            w.write_all(part).expect("in memory");
        }
        let z = w.finish().expect("in memory");
        assert!(z.len() < data.len() / 4, "{}", z.len());
        assert_eq!(gunzip(&z), data);
        // the same bytes whatever the writes, and the same as the one-call encoder
        let mut one = GzipWriter::new(Vec::new());
        one.write_all(&data).expect("in memory");
        assert_eq!(one.finish().expect("in memory"), gzip(&data));
        // a piece boundary exactly at the end: the final block is still written
        let exact = &data[..BLOCK * 2];
        assert_eq!(gunzip(&gzip(exact)), exact);
    }
}
