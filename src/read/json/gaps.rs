//! The gaps between the values of JSON objects that repeat from one object to the next, so
//! that [`super::ObjectReader::next_code`] knows a key by comparing a few words.

/// The code [`super::ObjectReader::next_code`] gives the closing brace.
pub const END: u8 = u8::MAX;

/// The gap before an object's first key, in every [`Gaps`].
pub(super) const START: u16 = 0;

/// No gap: what follows is read from the bytes.
pub(super) const NONE: u16 = u16::MAX;

/// Longest gap kept, in words (`,\n      "est. achieved occupancy %": ` in a kernel's args is 39
/// bytes).
const GAP_WORDS: usize = 6;

/// Most gaps one table keeps: a file whose keys keep changing (counter series named in `args`)
/// stops learning there and reads its keys from the bytes.
const GAPS_MAX: usize = 256;

/// Slots of the table's index by gap bytes (open addressing, at most half full).
const INDEX_SLOTS: usize = 512;

/// One gap: the bytes from the end of a value (or the opening brace) to the start of the next
/// value, or through the closing brace.
#[derive(Clone)]
struct Gap {
    /// The bytes as little-endian words, zero past the end.
    words: [u64; GAP_WORDS],
    /// Per word, the bits of its bytes that belong to the gap.
    masks: [u64; GAP_WORDS],
    len: u8,
    /// The key's code, or [`END`].
    key: u8,
    /// The gaps seen after this one, the latest first ([`NONE`] where none).
    next: [u16; 2],
}

/// The gaps between values that objects of one kind (a file's events, their `args`) repeat
/// from one to the next, and which followed which: [`super::ObjectReader::next_code`] compares
/// a few words with them where reading a key byte by byte takes several passes. Learnt as
/// objects are read; what it holds decides only how a key is read, never what it is.
#[derive(Default)]
pub struct Gaps {
    gaps: Vec<Gap>,
    /// Gap index by bytes (`NONE` where empty), built with the first gap.
    index: Vec<u16>,
}

impl Gaps {
    /// The gap after gap `node` found at `b[i..]`: its index, length and key code.
    #[inline(always)]
    pub(super) fn follow(&self, b: &[u8], i: usize, node: u16) -> Option<(u16, usize, u8)> {
        let g = self.gaps.get(node as usize)?;
        for n in g.next {
            let Some(next) = self.gaps.get(n as usize) else { break };
            if next.is_at(b, i) {
                return Some((n, next.len as usize, next.key));
            }
        }
        None
    }

    /// Records that `bytes` (read as key `code`) followed gap `prev`; the gap's index, or
    /// [`NONE`] if it is too long or the table is full.
    #[cold]
    pub(super) fn learn(&mut self, prev: u16, bytes: &[u8], code: u8) -> u16 {
        if bytes.len() > GAP_WORDS * 8 {
            return NONE;
        }
        if self.gaps.is_empty() {
            self.gaps.push(Gap::new(&[], END));
            self.index = vec![NONE; INDEX_SLOTS];
        }
        let mut slot = crate::model::strings::text_hash(bytes) as usize % INDEX_SLOTS;
        let n = loop {
            match self.index[slot] {
                NONE if self.gaps.len() < GAPS_MAX => {
                    self.gaps.push(Gap::new(bytes, code));
                    let n = (self.gaps.len() - 1) as u16;
                    self.index[slot] = n;
                    break n;
                }
                NONE => return NONE,
                n if self.gaps[n as usize].is(bytes) => break n,
                _ => slot = (slot + 1) % INDEX_SLOTS,
            }
        };
        // the same bytes always read as the same key
        debug_assert_eq!(self.gaps[n as usize].key, code);
        if let Some(p) = self.gaps.get_mut(prev as usize) {
            if p.next[0] != n {
                p.next = [n, p.next[0]];
            }
        }
        n
    }
}

impl Gap {
    /// The gap of `bytes` (at most [`GAP_WORDS`] words), read as key `key`.
    fn new(bytes: &[u8], key: u8) -> Gap {
        let mut gap = Gap { words: [0; GAP_WORDS], masks: [0; GAP_WORDS], len: bytes.len() as u8, key, next: [NONE; 2] };
        for (k, chunk) in bytes.chunks(8).enumerate() {
            let mut w = [0; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            gap.words[k] = u64::from_le_bytes(w);
            gap.masks[k] = if chunk.len() == 8 { u64::MAX } else { (1u64 << (chunk.len() * 8)) - 1 };
        }
        gap
    }

    /// Whether the gap is `bytes`.
    fn is(&self, bytes: &[u8]) -> bool {
        bytes.len() == self.len as usize && self.is_at(bytes, 0)
    }

    /// Whether `b[i..]` starts with this gap: compared a word at a time where `b` has the
    /// words, byte by byte at its end.
    #[inline(always)]
    fn is_at(&self, b: &[u8], i: usize) -> bool {
        let len = self.len as usize;
        let Some(span) = b.get(i..i + len.next_multiple_of(8)) else {
            return b.get(i..i + len).is_some_and(|s| s.iter().enumerate().all(|(k, &c)| (self.words[k / 8] >> (k % 8 * 8)) as u8 == c));
        };
        let mut diff = 0;
        for ((chunk, w), m) in span.chunks_exact(8).zip(&self.words).zip(&self.masks) {
            diff |= (u64::from_le_bytes(chunk.try_into().unwrap_or_default()) ^ w) & m;
        }
        diff == 0
    }
}

#[cfg(test)]
mod tests {
    use super::super::{JVal, JsonError, ObjectReader};
    use super::*;

    /// What `next_code` gives for one object, with the reader's flags and where it stopped.
    type Coded<'a> = (Vec<(u8, JVal<'a>)>, Result<usize, JsonError>, bool, bool);

    fn code_of(k: &str) -> u8 {
        (k.len() as u8).wrapping_mul(31).wrapping_add(k.bytes().fold(0u8, |h, c| h.wrapping_mul(7) ^ c)) % 200
    }

    fn by_code<'a>(b: &'a [u8], mut gaps: Option<&mut Gaps>) -> Coded<'a> {
        let mut r = match ObjectReader::new(b) {
            Ok(r) => r,
            Err(e) => return (Vec::new(), Err(e), false, false),
        };
        let mut got = Vec::new();
        let end = loop {
            let key = match gaps.as_deref_mut() {
                Some(g) => r.next_code(g, code_of),
                None => r.next_key().map(|k| k.map(|k| code_of(&k))),
            };
            match key {
                Ok(Some(k)) => match r.next_value() {
                    Ok(v) => got.push((k, v)),
                    Err(e) => break Err(e),
                },
                Ok(None) => break Ok(r.position()),
                Err(e) => break Err(e),
            }
        };
        (got, end, r.stray_comma, r.invalid_utf8)
    }

    #[test]
    fn keys_read_by_their_gaps_are_the_keys_read_from_the_bytes() {
        // objects of a few layouts with whitespace, keys, values and damage drawn at random
        // (escaped keys, keys past a gap's length, stray commas, invalid UTF-8, truncation): a
        // table of gaps shared by all of them must give what reading each alone gives
        let keys: [&[u8]; 12] = [
            b"ph",
            b"ts",
            b"dur",
            b"name",
            br"n\u0061me",
            b"External id",
            "é".as_bytes(),
            b"\xff\xfe",
            b"est. achieved occupancy % of all the warps",
            b"est. achieved occupancy % of all the warpsX",
            b"",
            b"a b",
        ];
        let seps: [&[u8]; 5] = [b",", b", ", b",\n    ", b" ,", b",,"];
        let values: [&[u8]; 7] = [b"1", b"-12.5e3", b"\"X\"", b"{\"a\": [1, \"}\"]}", b"[1, 2]", b"null", b"\"\\u00e9\""];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut objects: Vec<Vec<u8>> = Vec::new();
        for _ in 0..3000 {
            let layout = next(4);
            let mut o = b"{".to_vec();
            if next(2) == 0 {
                o.extend_from_slice(b"\n    ");
            }
            for k in 0..3 + layout * 2 {
                if k > 0 {
                    o.extend_from_slice(seps[if next(20) == 0 { next(seps.len()) } else { layout % 3 }]);
                }
                let key = if next(10) == 0 { keys[next(keys.len())] } else { keys[(k + layout) % 7] };
                o.push(b'"');
                o.extend_from_slice(key);
                let colons: [&[u8]; 4] = [b"\": ", b"\" : ", b"\":", b"\":  \n"];
                o.extend_from_slice(colons[if next(10) == 0 { next(colons.len()) } else { layout % 2 }]);
                o.extend_from_slice(values[if next(8) == 0 { next(values.len()) } else { k % 3 }]);
            }
            o.extend_from_slice([b"}".as_slice(), b"\n  }", b",}", b" }"][if next(15) == 0 { next(4) } else { layout % 2 }]);
            if next(12) == 0 {
                o.truncate(next(o.len() + 1));
            }
            objects.push(o);
        }
        let mut gaps = Gaps::default();
        for pass in 0..2 {
            for o in &objects {
                assert_eq!(by_code(o, Some(&mut gaps)), by_code(o, None), "pass {pass}: {}", String::from_utf8_lossy(o));
            }
            if pass == 0 {
                assert!(gaps.gaps.len() > 20, "the gaps were learnt");
            }
        }
        // the same bytes inside a longer buffer (whole words to compare) and at its very end
        for o in objects.iter().take(200) {
            let mut longer = o.clone();
            longer.extend_from_slice(&[b' '; 64]);
            assert_eq!(by_code(&longer, Some(&mut gaps)), by_code(&longer, None));
        }
    }
}
