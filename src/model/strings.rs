//! String interner: every name, category and string id in a rank is stored once.

use rustc_hash::FxHashMap;

/// Handle of an interned string; only meaningful with the [`Strings`] table that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct StrId(pub u32);

/// An append-only string table. `StrId(0)` is always the empty string.
///
/// The index is keyed by the UTF-8 bytes, so [`Strings::intern_bytes`] finds a string seen
/// before without validating it again (names repeat millions of times in a trace; only the
/// first occurrence is checked).
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

    /// Returns the id of the string whose UTF-8 bytes are `raw`, adding it if new. Every key
    /// in the index is valid UTF-8, so a hit needs no validation. Bytes that are not UTF-8 are
    /// interned with U+FFFD replacements and reported as `Err(id)`.
    pub fn intern_bytes(&mut self, raw: &[u8]) -> Result<StrId, StrId> {
        if let Some(&id) = self.index.get(raw) {
            return Ok(id);
        }
        match std::str::from_utf8(raw) {
            Ok(s) => Ok(self.intern(s)),
            Err(_) => Err(self.intern(&String::from_utf8_lossy(raw))),
        }
    }

    /// Returns the id of `s` if it was interned.
    pub fn lookup(&self, s: &str) -> Option<StrId> {
        self.index.get(s.as_bytes()).copied()
    }

    /// The text of `id`.
    pub fn get(&self, id: StrId) -> &str {
        self.values.get(id.0 as usize).map(|b| &**b).unwrap_or("")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interns_once_and_replaces_invalid_utf8() {
        let mut s = Strings::default();
        let a = s.intern("aten::mm");
        assert_eq!(s.intern_bytes(b"aten::mm"), Ok(a));
        assert_eq!(s.get(a), "aten::mm");
        let bad = s.intern_bytes(b"k\xffx").unwrap_err();
        assert_eq!(s.get(bad), "k\u{fffd}x");
        assert_eq!(s.len(), 3);
    }
}
