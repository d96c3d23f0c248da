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
    fn interns_once() {
        let mut s = Strings::default();
        let a = s.intern("aten::mm");
        assert_eq!(s.intern("aten::mm"), a);
        assert_eq!(s.get(a), "aten::mm");
        assert_eq!(s.get(Strings::EMPTY), "");
        assert_eq!(s.len(), 2);
    }
}
