//! String interner: every name, category and string id in a rank is stored once.

use rustc_hash::FxHashMap;

/// Handle of an interned string; only meaningful with the [`Strings`] table that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

/// An append-only string table. `StrId(0)` is always the empty string.
///
/// Strings are found by a 64-bit hash of their bytes, then compared a word at a time
/// (`same_bytes`). A map keyed by the bytes kept a second copy of each string and compared
/// them with `memcmp`, a byte at a time in wasm (0.09 s of the helpers' parse of a 1 GB trace in
/// the page). Two strings with one hash (rare, but a trace could be made so) are kept apart in
/// `spill`.
#[derive(Debug, Clone)]
pub struct Strings {
    /// The first string of each hash.
    index: FxHashMap<u64, StrId>,
    /// Strings whose hash belongs to an earlier, different one.
    spill: FxHashMap<Box<str>, StrId>,
    values: Vec<Box<str>>,
}

impl Default for Strings {
    fn default() -> Self {
        let mut s = Strings { index: FxHashMap::default(), spill: FxHashMap::default(), values: Vec::new() };
        s.intern("");
        s
    }
}

/// The hash [`Strings`] files a string under (and `read::json`'s gaps their bytes).
pub(crate) fn text_hash(b: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(b);
    h.finish()
}

/// Whether `a` and `b` are the same bytes, compared eight at a time (no `memcmp` call: short
/// strings are the common case, and wasm's `memcmp` is a byte loop).
#[inline(always)]
pub(crate) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (wa, wb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ta, tb) = (wa.remainder(), wb.remainder());
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().unwrap_or([0; 8]));
    wa.zip(wb).all(|(x, y)| word(x) == word(y)) && ta.iter().zip(tb).all(|(x, y)| x == y)
}

impl Strings {
    /// The empty string's id.
    pub const EMPTY: StrId = StrId(0);

    /// Returns the id of `s`, adding it if new.
    pub fn intern(&mut self, s: &str) -> StrId {
        self.intern_hashed(s, text_hash(s.as_bytes()))
    }

    /// [`Strings::intern`] of `s`, whose hash is `h`.
    fn intern_hashed(&mut self, s: &str, h: u64) -> StrId {
        let first = self.index.get(&h).copied();
        if let Some(id) = first {
            if same_bytes(self.get(id).as_bytes(), s.as_bytes()) {
                return id;
            }
            if let Some(&id) = self.spill.get(s) {
                return id;
            }
        }
        let id = StrId(self.values.len() as u32);
        self.values.push(s.into());
        if first.is_some() {
            self.spill.insert(s.into(), id);
        } else {
            self.index.insert(h, id);
        }
        id
    }

    /// The text of `id`.
    pub fn get(&self, id: StrId) -> &str {
        self.values.get(id.0 as usize).map(|b| &**b).unwrap_or("")
    }

    /// Every string, by id.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.values.iter().map(|b| &**b)
    }

    /// Number of distinct strings.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether only the empty string is present.
    pub fn is_empty(&self) -> bool {
        self.values.len() <= 1
    }
}

/// Splits a trailing timing suffix `[<number> <unit>]` (unit `ns`, `us`, `ms` or `s`) off `name`,
/// as PaddlePaddle appends one to every event name (`matmul dygraph[1.169 ms]` →
/// `("matmul dygraph", Some("[1.169 ms]"))`). Names without one, or that are only a suffix, are
/// returned whole.
pub fn split_timing_suffix(name: &str) -> (&str, Option<&str>) {
    let whole = (name, None);
    let Some(body) = name.strip_suffix(']') else { return whole };
    let Some(open) = body.rfind('[') else { return whole };
    let Some((num, unit)) = body[open + 1..].split_once(' ') else { return whole };
    let numeric = num.bytes().all(|c| c.is_ascii_digit() || c == b'.') && num.bytes().any(|c| c.is_ascii_digit());
    if open > 0 && numeric && matches!(unit, "us" | "ms" | "ns" | "s") {
        (&name[..open], Some(&name[open..]))
    } else {
        whole
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timing_suffixes_split_off() {
        assert_eq!(split_timing_suffix("MEMCPY_DtoH[2.464 us]"), ("MEMCPY_DtoH", Some("[2.464 us]")));
        assert_eq!(split_timing_suffix("ProfileStep#3[9.197 ms]"), ("ProfileStep#3", Some("[9.197 ms]")));
        assert_eq!(split_timing_suffix("k[12 ns]"), ("k", Some("[12 ns]")));
        for whole in ["void f<float[4]>(int)", "a[b us]", "a[1.0 days]", "plain", "[1.0 us]", "[memory]", "a[. us]"] {
            assert_eq!(split_timing_suffix(whole), (whole, None));
        }
    }

    #[test]
    fn interns_once() {
        let mut s = Strings::default();
        let a = s.intern("aten::mm");
        assert_eq!(s.intern("aten::mm"), a);
        assert_eq!(s.get(a), "aten::mm");
        assert_eq!(s.get(Strings::EMPTY), "");
        assert_eq!(s.len(), 2);
    }

    #[test]
    fn strings_of_one_hash_stay_apart() {
        let mut s = Strings::default();
        let a = s.intern_hashed("aten::mm", 7);
        let b = s.intern_hashed("aten::bmm", 7);
        let c = s.intern_hashed("aten::addmm", 7);
        assert_eq!((s.get(a), s.get(b), s.get(c)), ("aten::mm", "aten::bmm", "aten::addmm"));
        assert_eq!([s.intern_hashed("aten::mm", 7), s.intern_hashed("aten::bmm", 7), s.intern_hashed("aten::addmm", 7)], [a, b, c]);
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn same_bytes_is_slice_equality() {
        let texts = ["", "a", "ab", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghijklmnop", "abcdefghijklmnopq", "void at::native::k<4>"];
        for x in texts {
            for y in texts {
                assert_eq!(same_bytes(x.as_bytes(), y.as_bytes()), x == y, "{x:?} {y:?}");
            }
            // one byte changed anywhere
            for i in 0..x.len() {
                let mut z = x.as_bytes().to_vec();
                z[i] ^= 1;
                assert!(!same_bytes(x.as_bytes(), &z), "{x:?} at {i}");
            }
        }
    }
}
