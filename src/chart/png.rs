//! A minimal PNG encoder for the CLI's chart images: 8-bit RGB, no filtering, one zlib stream
//! (miniz_oxide) — enough for flat-coloured charts, without pulling in an image crate.

/// PNG bytes of a `w`×`h` RGB image (`rgb.len() == w * h * 3`).
pub fn encode_rgb(w: u32, h: u32, rgb: &[u8]) -> Vec<u8> {
    let row = w as usize * 3;
    let mut raw = Vec::with_capacity((row + 1) * h as usize);
    for line in rgb.chunks(row.max(1)).take(h as usize) {
        raw.push(0); // filter type None
        raw.extend_from_slice(line);
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&w.to_be_bytes());
    ihdr.extend_from_slice(&h.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8 bits, RGB, deflate, no filter, no interlace
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &miniz_oxide::deflate::compress_to_vec_zlib(&raw, 6));
    chunk(&mut out, b"IEND", &[]);
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// Decodes what [`encode_rgb`] wrote (tests only): the RGB bytes.
#[cfg(test)]
pub fn decode_rgb_for_tests(png: &[u8]) -> Vec<u8> {
    let mut pos = 8;
    let (mut w, mut idat) = (0usize, Vec::new());
    while pos + 8 <= png.len() {
        let len = u32::from_be_bytes(png[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &png[pos + 4..pos + 8];
        let data = &png[pos + 8..pos + 8 + len];
        let crc = u32::from_be_bytes(png[pos + 8 + len..pos + 12 + len].try_into().unwrap());
        assert_eq!(crc, crc32fast::hash(&png[pos + 4..pos + 8 + len]), "chunk CRC");
        match kind {
            b"IHDR" => w = u32::from_be_bytes(data[..4].try_into().unwrap()) as usize,
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        pos += 12 + len;
    }
    let raw = miniz_oxide::inflate::decompress_to_vec_zlib(&idat).unwrap();
    raw.chunks(w * 3 + 1).flat_map(|l| l[1..].to_vec()).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn round_trip() {
        let rgb: Vec<u8> = (0..2 * 3 * 3).map(|i| i as u8).collect();
        let png = super::encode_rgb(3, 2, &rgb);
        assert_eq!(super::decode_rgb_for_tests(&png), rgb);
    }
}
