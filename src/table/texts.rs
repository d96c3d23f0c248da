//! A text column stored once per distinct value: the same few hundred kernel names repeated over
//! a million launches take a word list and a 4-byte code per row instead of a `String` per cell.

use rustc_hash::FxHashMap;

/// The values of a text column, dictionary-coded. Reads like a slice of `str` (`t[row]`,
/// [`Texts::iter`]); built by collecting strings, each distinct one stored once.
#[derive(Clone, Default)]
pub struct Texts {
    /// The distinct values, in order of first appearance.
    words: Vec<Box<str>>,
    /// Each row's index into `words`.
    codes: Vec<u32>,
}

impl Texts {
    /// Number of values.
    pub fn len(&self) -> usize {
        self.codes.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.codes.is_empty()
    }

    /// The value of row `row`, if there is one.
    pub fn get(&self, row: usize) -> Option<&str> {
        self.codes.get(row).map(|&c| &*self.words[c as usize])
    }

    /// The values, row by row.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone + '_ {
        self.codes.iter().map(|&c| &*self.words[c as usize])
    }

    /// Number of distinct values.
    pub fn distinct(&self) -> usize {
        self.words.len()
    }

    /// The distinct values, in the order [`Texts::code`] numbers them.
    pub fn words(&self) -> &[Box<str>] {
        &self.words
    }

    /// Row `row`'s position in [`Texts::words`].
    pub fn code(&self, row: usize) -> usize {
        self.codes[row] as usize
    }

    /// Rows whose values are `text(key)` of their `keys`, the text of each distinct key made once
    /// (a pid column of a million rows formats its few ids a few times, not a million).
    pub fn by_key<K, S>(keys: impl IntoIterator<Item = K>, mut text: impl FnMut(K) -> S) -> Texts
    where
        K: std::hash::Hash + Eq + Copy,
        S: Into<Box<str>>,
    {
        let keys = keys.into_iter();
        let mut codes = Vec::with_capacity(keys.size_hint().0);
        let mut words: Vec<Box<str>> = Vec::new();
        let mut seen: FxHashMap<K, u32> = FxHashMap::default();
        for k in keys {
            let code = *seen.entry(k).or_insert_with(|| {
                words.push(text(k).into());
                u32::try_from(words.len() - 1).expect("fewer than 2^32 distinct values in a column")
            });
            codes.push(code);
        }
        Texts { words, codes }
    }

    /// The values of rows `rows`, in that order (the distinct values are kept, not copied).
    pub fn select(self, rows: &[usize]) -> Texts {
        Texts { codes: rows.iter().map(|&r| self.codes[r]).collect(), words: self.words }
    }
}

impl std::ops::Index<usize> for Texts {
    type Output = str;

    fn index(&self, row: usize) -> &str {
        &self.words[self.codes[row] as usize]
    }
}

impl<S: AsRef<str>> FromIterator<S> for Texts {
    fn from_iter<I: IntoIterator<Item = S>>(values: I) -> Texts {
        let values = values.into_iter();
        let mut codes = Vec::with_capacity(values.size_hint().0);
        let mut seen: FxHashMap<Box<str>, u32> = FxHashMap::default();
        for v in values {
            let v = v.as_ref();
            let code = match seen.get(v) {
                Some(&c) => c,
                None => {
                    let c = u32::try_from(seen.len()).expect("fewer than 2^32 distinct values in a column");
                    seen.insert(v.into(), c);
                    c
                }
            };
            codes.push(code);
        }
        let mut words: Vec<Box<str>> = vec![Box::default(); seen.len()];
        for (w, c) in seen {
            words[c as usize] = w;
        }
        Texts { words, codes }
    }
}

impl From<Vec<String>> for Texts {
    fn from(v: Vec<String>) -> Texts {
        v.into_iter().collect()
    }
}

impl From<Vec<&str>> for Texts {
    fn from(v: Vec<&str>) -> Texts {
        v.into_iter().collect()
    }
}

impl<const N: usize> From<[&str; N]> for Texts {
    fn from(v: [&str; N]) -> Texts {
        v.into_iter().collect()
    }
}

/// Equal when the values are, row by row (however each side numbered its words).
impl PartialEq for Texts {
    fn eq(&self, other: &Texts) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for Texts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// A list of strings, as a `Vec<String>` serializes.
impl serde::Serialize for Texts {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[cfg(test)]
mod tests {
    use super::Texts;

    #[test]
    fn repeated_values_are_stored_once_and_read_back_in_order() {
        let t: Texts = ["gemm", "relu", "gemm", "", "relu", "gemm"].into_iter().collect();
        assert_eq!(t.len(), 6);
        assert_eq!(t.distinct(), 3);
        assert_eq!(t.iter().collect::<Vec<_>>(), ["gemm", "relu", "gemm", "", "relu", "gemm"]);
        assert_eq!(&t[3], "");
        assert_eq!(t.get(5), Some("gemm"));
        assert_eq!(t.get(6), None);
        let s = t.clone().select(&[4, 0, 0]);
        assert_eq!(s.iter().collect::<Vec<_>>(), ["relu", "gemm", "gemm"]);
        assert_eq!(serde_json::to_string(&s).expect("json"), r#"["relu","gemm","gemm"]"#);
    }

    #[test]
    fn by_key_makes_each_keys_text_once() {
        let mut made = Vec::new();
        let t = Texts::by_key([7u32, 3, 7, 7, 3, 9], |k| {
            made.push(k);
            format!("id{k}")
        });
        assert_eq!(made, [7, 3, 9]);
        assert_eq!(t.iter().collect::<Vec<_>>(), ["id7", "id3", "id7", "id7", "id3", "id9"]);
        assert_eq!(t.distinct(), 3);
        // two keys with the same text read the same as one
        assert_eq!(Texts::by_key([1, 2, 1], |_| "x"), Texts::from(["x", "x", "x"]));
    }

    #[test]
    fn equal_by_values_not_by_numbering() {
        let a: Texts = ["x", "y", "x"].into_iter().collect();
        let b = Texts::from(vec!["y".to_string(), "x".into(), "y".into(), "x".into()]).select(&[1, 0, 1]);
        assert_eq!(a, b);
        assert_ne!(a, Texts::from(vec!["x", "y"]));
        assert_eq!(format!("{a:?}"), r#"["x", "y", "x"]"#);
    }
}
