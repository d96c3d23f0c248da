//! Elements of the event array that leave no row, done again without being read again: a run of
//! the same few bytes (`{"a":1},{"a":1},…`, `null,null,…`, as a gzip bomb inflates to) costs
//! what the scanner's comparison of the bytes costs ([`crate::read::scan`] finds the run, then
//! asks [`ChromeSink::repeat_last`]).
//!
//! An element that makes no row changes the rank only by counts and warnings (its strings and
//! ids are interned already, a `M` event's name is set already, the flags it sets are set); those
//! are what [`Repeat`] keeps. An element that makes or changes a row (an event, an `E` that
//! closes a `B`, one kept for a later block) is never repeated this way.

use super::ChromeSink;
use crate::error::WarningKind;
use crate::model::{Kind, StrId};

/// What an element that left no row did to the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read) enum Effect {
    /// An empty object (`{ }`): an empty placeholder.
    Placeholder,
    /// An event counted (its kind, category and phase letter) but not kept: a `M` event, or one
    /// without a `ts` or with one that is not a time.
    Counted { kind: Kind, cat: Option<StrId>, ph: u8 },
    /// Not an object: nothing but its warning.
    Warned,
}

/// The kinds of the warnings one element gave, in order (at most [`Warned::MOST`]; more and the
/// element is not repeated).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(in crate::read) struct Warned {
    kinds: [Option<WarningKind>; Warned::MOST],
    overflow: bool,
}

impl Warned {
    const MOST: usize = 4;

    pub(super) fn push(&mut self, kind: WarningKind) {
        match self.kinds.iter_mut().find(|k| k.is_none()) {
            Some(slot) => *slot = Some(kind),
            None => self.overflow = true,
        }
    }
}

/// What the last element did, to do again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::read) struct Repeat {
    effect: Effect,
    warned: Warned,
}

impl Repeat {
    /// The repeat of an element that did `effect` (`None`: it made or changed a row) and gave
    /// the warnings `warned`.
    pub(super) fn of(effect: Option<Effect>, warned: Warned) -> Option<Repeat> {
        effect.filter(|_| !warned.overflow).map(|effect| Repeat { effect, warned })
    }
}

impl ChromeSink<'_> {
    /// Reads one element with `read`, which says what it did (see [`ChromeSink::commit`]), and
    /// keeps that with the warnings it gave, for [`ChromeSink::repeat_last`].
    pub(super) fn recorded(&mut self, read: impl FnOnce(&mut Self) -> Option<Effect>) {
        self.st.warned = Warned::default();
        let effect = read(self);
        self.st.repeat = Repeat::of(effect, self.st.warned);
    }

    /// `n` more elements like the last one, which left no row (see [`Repeat`]): its counts and
    /// warnings `n` more times. Nothing if it made a row.
    pub(super) fn repeat_last(&mut self, n: u32) {
        let Some(r) = self.st.repeat else { return };
        let n64 = u64::from(n);
        match r.effect {
            Effect::Placeholder => self.rank.counts.empty_placeholders += n64,
            Effect::Counted { kind, cat, ph } => {
                self.rank.counts.events += n64;
                self.count(kind, cat, ph, n64);
            }
            Effect::Warned => {}
        }
        for kind in r.warned.kinds.into_iter().flatten() {
            self.rank.warnings.count_more(kind, self.file, n64);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::read::read_bytes;
    use crate::read::scan::probe::{copies_taken, without_copies};

    /// Runs of copies of elements that leave no row (and of some that make rows, which are read
    /// one by one), in chunks of every size around the runs, read as every element one by one
    /// reads: the same rank, warnings, counts and rows.
    #[test]
    fn copies_read_as_one_by_one() {
        let elements = [
            r#"{"a":1}"#,
            r#"{ }"#,
            "null",
            "[]",
            "17",
            r#""text""#,
            r#"{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "p"}}"#,
            r#"{"ph": "X", "name": "k", "cat": "kernel", "ts": "x", "pid": 1}"#,
            r#"{"ph": "X", "name": "k", "cat": "kernel", "ts": 5, "dur": 1, "pid": 1, "tid": 2}"#,
            r#"{"ph": "E", "pid": 1, "tid": 3, "ts": 9}"#,
            r#"{"ph": "B", "name": "b", "pid": 1, "tid": 3, "ts": 1}"#,
            r#"{"ph": "i", "name": 3, "ts": 2, "dur": -1, "pid": true}"#,
            r#"{"a": [1, 2], "ph": 4}"#,
        ];
        let seps = [",", ", ", ",\n  "];
        let mut doc = String::from(r#"{"traceEvents": ["#);
        for (k, e) in elements.iter().enumerate() {
            let sep = seps[k % seps.len()];
            for _ in 0..40 + k {
                doc.push_str(e);
                doc.push_str(sep);
            }
        }
        doc.push_str(r#"{"ph": "X", "name": "last", "ts": 1, "dur": 1}]}"#);
        let doc = doc.as_bytes();
        let want = without_copies(|| format!("{:?}", read_bytes("t.json", doc, 1 << 20).expect("reads")));
        assert!(want.contains("NonObjectEvent") && want.contains("MissingField") && want.contains("UnmatchedEnd"));
        for chunk in [1, 7, 64, 333, 4096, 1 << 20] {
            let before = copies_taken();
            let got = format!("{:?}", read_bytes("t.json", doc, chunk).expect("reads"));
            assert!(got == want, "chunks of {chunk} bytes: the read differs");
            // of the 9 runs of elements that leave no row, 40-50 elements each
            let taken = copies_taken() - before;
            if chunk >= 4096 {
                assert!(taken >= 9 * 35, "chunks of {chunk} bytes: {taken} copies taken");
            }
        }
    }
}
