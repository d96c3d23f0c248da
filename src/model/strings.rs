//! String interner: every name, category and string id in a rank is stored once.

use rustc_hash::FxHashMap;

/// Handle of an interned string; only meaningful with the [`Strings`] table that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

/// An append-only string table. `StrId(0)` is always the empty string.
#[derive(Debug, Clone)]
pub struct Strings {
    index: FxHashMap<Box<[u8]>, StrId>,
    values: Vec<Box<str>>,
}

impl Default for Strings {
    fn default() -> Self {
        let mut s = Strings { index: FxHashMap::default(), values: Vec::new() };
        s.intern("");
        s
    }
}

impl Strings {
    /// The empty string's id.
    pub const EMPTY: StrId = StrId(0);

    /// Returns the id of `s`, adding it if new.
    pub fn intern(&mut self, s: &str) -> StrId {
        if let Some(&id) = self.index.get(s.as_bytes()) {
            return id;
        }
        let id = StrId(self.values.len() as u32);
        self.values.push(s.into());
        self.index.insert(s.as_bytes().into(), id);
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
}
