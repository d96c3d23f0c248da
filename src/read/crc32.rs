//! The CRC-32 of gzip content (the inflater's check of a member, a content block's for the
//! check of a gzip file read in blocks). Natively zlib-rs's, which uses the carry-less multiply
//! of x86-64 and aarch64. wasm32 has none, and there zlib-rs falls back to its braid over 4-byte
//! words, table lookups. Here the CRC is folded forward with shifts and XORs instead, two 64-bit
//! words at a time in a WebAssembly SIMD register: 3× slicing by 16 bytes in V8 (Node 20: 6.1–6.4
//! against 2.0–2.1 GB/s on 64 MiB of a trace; docs/performance.md, thirty-first round).
//!
//! The folding is Chorba's idea (S. Russell, 2024, arXiv:2412.16398; zlib-ng has it). Gzip's
//! polynomial P divides Q = x^300 + x^155 + x^117 + x^89 + 1 (the test checks it). The CRC is
//! the message polynomial (its first bit the highest power) times x^32 modulo P, and modulo P
//! x^d = x^(d−300) Q + x^(d−145) + x^(d−183) + x^(d−211) + x^(d−300): a bit of the message may
//! be cleared and the bits 145, 183, 211 and 300 places further on flipped without changing the
//! CRC. Each word, once the flips of the words before it are in, is so moved wholly into the
//! words 2 to 5 after it (145 > 128 bits: two neighbouring words never touch each other), until
//! only the last few words are left; their CRC, from a zero register, byte by byte, is the
//! whole message's. A register that does not start at zero is the same as that value XORed into
//! the first four bytes.

/// `crc` (the CRC-32 of the bytes before, 0 for none) continued over `bytes`.
pub fn crc32(crc: u32, bytes: &[u8]) -> u32 {
    if cfg!(target_arch = "wasm32") {
        folded(crc, bytes)
    } else {
        zlib_rs::crc32::crc32(crc, bytes)
    }
}

/// The reflected CRC-32 polynomial (gzip's).
const POLY: u32 = 0xedb8_8320;

/// `TABLE[b]`: the CRC-32 register after the byte `b`.
static TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut b = 0;
    while b < 256 {
        let mut c = b as u32;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 1 != 0 { POLY ^ (c >> 1) } else { c >> 1 };
            bit += 1;
        }
        t[b] = c;
        b += 1;
    }
    t
};

/// The register `reg` (not inverted) continued over `bytes`, a byte at a time.
fn bytewise(reg: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(reg, |reg, &b| TABLE[((reg as u8) ^ b) as usize] ^ (reg >> 8))
}

/// Shorter content is not worth folding (its last 48–63 bytes go byte by byte anyway).
const FOLD_MIN: usize = 128;

/// The CRC-32, folded forward a pair of words (16 bytes) at a time (the module's comment).
fn folded(crc: u32, bytes: &[u8]) -> u32 {
    if bytes.len() < FOLD_MIN {
        return !bytewise(!crc, bytes);
    }
    // a pair's bits go at most 3 pairs on (the second word's 300 places: 2 words and 44 bits
    // past the pair after next): the last 3 pairs and the odd bytes after them are the rest
    let folded = bytes.len() / 16 - 3;
    // ahead[k]: the flips due in the k-th pair on
    let mut ahead = [Pair::new(u64::from(!crc), 0), Pair::ZERO, Pair::ZERO];
    for chunk in bytes[..16 * folded].as_chunks::<16>().0 {
        let v = Pair::load(chunk) ^ ahead[0];
        // each word's flips 145 and 183 places on (in the word 2 on), those spilling into the
        // word 3 on with 211, those spilling into the word 4 on with 300, and the last spill
        let two = v.shl(17) ^ v.shl(55);
        let three = v.shr(47) ^ v.shr(9) ^ v.shl(19);
        let four = v.shr(45) ^ v.shl(44);
        let five = v.shr(20);
        // to the pairs 1, 2 and 3 on: [w+2, w+3], [w+4, w+5], [w+6, -] of the pair [w, w+1]
        ahead =
            [ahead[1] ^ two ^ Pair::new(0, three.low()), ahead[2] ^ four ^ Pair::new(three.high(), five.low()), Pair::new(five.high(), 0)];
    }
    let mut rest = [0u8; 64];
    let rest = &mut rest[..bytes.len() - 16 * folded];
    rest.copy_from_slice(&bytes[16 * folded..]);
    // the flips still due go into the first 6 words of the rest
    let due = ahead.iter().flat_map(|pair| [pair.low(), pair.high()]);
    for (word, flips) in rest.chunks_exact_mut(8).zip(due) {
        for (b, f) in word.iter_mut().zip(flips.to_le_bytes()) {
            *b ^= f;
        }
    }
    !bytewise(0, rest)
}

/// Two 64-bit words, the first of the message first: a WebAssembly SIMD register.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[derive(Clone, Copy)]
struct Pair(core::arch::wasm32::v128);

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
impl Pair {
    const ZERO: Pair = Pair(core::arch::wasm32::u64x2(0, 0));

    fn new(low: u64, high: u64) -> Pair {
        Pair(core::arch::wasm32::u64x2(low, high))
    }

    /// The 16 bytes `b`, little-endian words.
    fn load(b: &[u8; 16]) -> Pair {
        // SAFETY: `b` is 16 readable bytes; v128_load needs no alignment
        Pair(unsafe { core::arch::wasm32::v128_load(b.as_ptr().cast()) })
    }

    fn shl(self, n: u32) -> Pair {
        Pair(core::arch::wasm32::u64x2_shl(self.0, n))
    }

    fn shr(self, n: u32) -> Pair {
        Pair(core::arch::wasm32::u64x2_shr(self.0, n))
    }

    fn low(self) -> u64 {
        core::arch::wasm32::u64x2_extract_lane::<0>(self.0)
    }

    fn high(self) -> u64 {
        core::arch::wasm32::u64x2_extract_lane::<1>(self.0)
    }
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
impl core::ops::BitXor for Pair {
    type Output = Pair;

    fn bitxor(self, o: Pair) -> Pair {
        Pair(core::arch::wasm32::v128_xor(self.0, o.0))
    }
}

/// Two 64-bit words, the first of the message first (without WebAssembly SIMD: natively only
/// in the tests, which so check the folding against zlib-rs).
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
#[derive(Clone, Copy)]
struct Pair([u64; 2]);

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
impl Pair {
    const ZERO: Pair = Pair([0, 0]);

    fn new(low: u64, high: u64) -> Pair {
        Pair([low, high])
    }

    /// The 16 bytes `b`, little-endian words.
    fn load(b: &[u8; 16]) -> Pair {
        let both = u128::from_le_bytes(*b);
        Pair([both as u64, (both >> 64) as u64])
    }

    fn shl(self, n: u32) -> Pair {
        Pair(self.0.map(|w| w << n))
    }

    fn shr(self, n: u32) -> Pair {
        Pair(self.0.map(|w| w >> n))
    }

    fn low(self) -> u64 {
        self.0[0]
    }

    fn high(self) -> u64 {
        self.0[1]
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
impl core::ops::BitXor for Pair {
    type Output = Pair;

    fn bitxor(self, o: Pair) -> Pair {
        Pair([self.0[0] ^ o.0[0], self.0[1] ^ o.0[1]])
    }
}

#[cfg(test)]
mod tests {
    use super::{bytewise, folded, FOLD_MIN};

    #[test]
    fn the_folding_polynomial_is_a_multiple_of_gzips() {
        // Q = x^300 + x^155 + x^117 + x^89 + 1 modulo P = 0x1_04c1_1db7 (not reflected), bit by bit
        let mut q = [0u64; 5];
        for e in [300, 155, 117, 89, 0] {
            q[e / 64] |= 1 << (e % 64);
        }
        let bit = |q: &[u64; 5], e: usize| q[e / 64] >> (e % 64) & 1 != 0;
        for top in (32..=300).rev() {
            if bit(&q, top) {
                for e in (0..=32).filter(|e| 0x1_04c1_1db7u64 >> e & 1 != 0) {
                    q[(top - 32 + e) / 64] ^= 1 << ((top - 32 + e) % 64);
                }
            }
        }
        assert_eq!(q, [0; 5]);
    }

    #[test]
    fn folding_is_zlibs_crc32() {
        // every length around the folding's threshold and its 3 pairs of rest, at every
        // alignment, continued from other CRCs
        let bytes: Vec<u8> = (0..300_000u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        for start in 0..17 {
            for len in (0..FOLD_MIN + 200).chain([1000, 4097, 65_536, 65_541]) {
                let piece = &bytes[start..start + len];
                for crc in [0, 0xdead_beef, u32::MAX] {
                    assert_eq!(folded(crc, piece), zlib_rs::crc32::crc32(crc, piece), "start {start} len {len} crc {crc:x}");
                }
            }
        }
        assert_eq!(folded(0, &bytes), zlib_rs::crc32::crc32(0, &bytes));
        // a single bit anywhere changes it as it changes zlib's
        let mut flipped = bytes[..5000].to_vec();
        for at in [0, 7, 1234, 4990, 4999] {
            flipped[at] ^= 0x10;
            assert_eq!(folded(0, &flipped), zlib_rs::crc32::crc32(0, &flipped), "bit flipped at {at}");
            flipped[at] ^= 0x10;
        }
        assert_eq!(folded(0, b"123456789"), 0xcbf4_3926, "the CRC-32 check value");
        assert_eq!(!bytewise(!0, b"123456789"), 0xcbf4_3926);
    }
}
