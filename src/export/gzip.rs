//! gzip encoding (RFC 1952) of a whole buffer: a 10-byte header (no name, mtime 0), a raw
//! deflate stream from `miniz_oxide`, then the CRC-32 and the length mod 2^32. The matching
//! decoder is `read::inflate`.

/// `data` gzip-compressed (deflate level 6, the gzip tool's default).
pub fn gzip(data: &[u8]) -> Vec<u8> {
    // ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=255 (unknown)
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];
    out.extend(miniz_oxide::deflate::compress_to_vec(data, 6));
    out.extend(crc32fast::hash(data).to_le_bytes());
    out.extend((data.len() as u32).to_le_bytes());
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
}
