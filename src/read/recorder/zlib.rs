//! The gotcha layout's zlib blocks (`recorder_write_zlib` in `lib/recorder-utils.c`):
//!
//! | type | field |
//! |---|---|
//! | size_t | compressed_size |
//! | size_t | decompressed_size |
//! | compressed_size bytes | a zlib stream (RFC 1950) |
//!
//! A file may hold several blocks back to back (`ug.cfg` has one per unique grammar; a rank's
//! timestamps get one per buffer flush).

use miniz_oxide::inflate::decompress_to_vec_zlib_with_limit;

use super::bytes::Bytes;
use super::error::{ErrorKind, RecorderError};

/// Reads the block at `b`'s position and inflates it.
pub fn read_block(b: &mut Bytes) -> Result<Vec<u8>, RecorderError> {
    let at = b.pos();
    let compressed = b.u64("a zlib block's compressed size")?;
    let expected = b.u64("a zlib block's decompressed size")?;
    let len = usize::try_from(compressed).unwrap_or(usize::MAX);
    let stream = b.take(len, "a zlib block's compressed bytes")?;
    let limit = usize::try_from(expected).unwrap_or(usize::MAX);
    let out = decompress_to_vec_zlib_with_limit(stream, limit)
        .map_err(|e| b.error(ErrorKind::Zlib(format!("the block at byte {at} does not inflate ({:?})", e.status))))?;
    if out.len() as u64 != expected {
        let msg = format!("the block at byte {at} inflates to {} bytes, its header says {expected}", out.len());
        return Err(b.error(ErrorKind::Zlib(msg)));
    }
    Ok(out)
}

/// Inflates every block of `data` (the file named `file`) and joins them.
pub fn read_all_blocks(file: &str, data: &[u8]) -> Result<Vec<u8>, RecorderError> {
    let mut b = Bytes::new(file, data);
    let mut out = Vec::new();
    while b.remaining() > 0 {
        out.extend(read_block(&mut b)?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block as `recorder_write_zlib` writes it.
    pub fn block(data: &[u8]) -> Vec<u8> {
        let z = miniz_oxide::deflate::compress_to_vec_zlib(data, 6);
        let mut v = (z.len() as u64).to_le_bytes().to_vec();
        v.extend((data.len() as u64).to_le_bytes());
        v.extend(z);
        v
    }

    #[test]
    fn blocks_in_a_row_are_joined() {
        let mut f = block(b"hello ");
        f.extend(block(b"world"));
        assert_eq!(read_all_blocks("ug.cfg", &f).unwrap(), b"hello world");
        let mut b = Bytes::new("ug.cfg", &f);
        assert_eq!(read_block(&mut b).unwrap(), b"hello ");
        assert_eq!(read_block(&mut b).unwrap(), b"world");
    }

    #[test]
    fn size_mismatch_and_garbage_are_errors() {
        let mut f = block(b"abc");
        f[8] = 4; // claims 4 decompressed bytes
        let e = read_all_blocks("recorder.cst", &f).unwrap_err().to_string();
        assert_eq!(
            e,
            format!("recorder.cst at byte {}: bad zlib block: the block at byte 0 inflates to 3 bytes, its header says 4", f.len())
        );
        let mut f = block(b"abc");
        f[16] ^= 0xff; // break the zlib header
        let e = read_all_blocks("recorder.cst", &f).unwrap_err().to_string();
        assert!(e.starts_with("recorder.cst at byte"), "{e}");
        assert!(e.contains("bad zlib block: the block at byte 0 does not inflate"), "{e}");
        let e = read_all_blocks("recorder.cst", &f[..10]).unwrap_err().to_string();
        assert_eq!(e, "recorder.cst at byte 8: truncated: a zlib block's decompressed size needs 8 bytes but only 2 are left");
    }
}
