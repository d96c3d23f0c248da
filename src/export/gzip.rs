//! A minimal gzip encoder (RFC 1952): one member, no file name, mtime 0, deflate level 6 via
//! `miniz_oxide`, CRC-32 via `crc32fast`. For trace files we produce (overlaid traces).

/// `data` as a gzip file.
pub fn gzip(data: &[u8]) -> Vec<u8> {
    let body = miniz_oxide::deflate::compress_to_vec(data, 6);
    let mut out = Vec::with_capacity(body.len() + 18);
    // magic, CM = deflate, FLG = 0, MTIME = 0, XFL = 0, OS = 255 (unknown)
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255]);
    out.extend_from_slice(&body);
    out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_our_inflater() {
        let text = b"{\"traceEvents\": []}\n".repeat(100);
        let gz = gzip(&text);
        assert_eq!(&gz[..3], &[0x1f, 0x8b, 8]);
        let mut out = Vec::new();
        let mut g = crate::read::inflate::GzipInflater::default();
        g.push(&gz, &mut |d| {
            out.extend_from_slice(d);
            Ok(())
        })
        .expect("valid gzip");
        assert_eq!(out, text);
        // trailer: CRC-32 and length of the input
        assert_eq!(&gz[gz.len() - 4..], &(text.len() as u32).to_le_bytes());
    }
}
