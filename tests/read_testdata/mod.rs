//! The hand-made traces of `testdata/` (each one variant or one kind of damage; see
//! `testdata/README.md` for how every expected number was worked out). Each fixture is read with
//! every chunk size of [`util::CHUNKS`] (all reads must be identical) and once more under the name
//! `unknown` (detection is by content, never by name), then checked against exact tables:
//! [`util::rows_table`] (every column of every row), [`util::links_table`], counts, metadata,
//! warning kinds with their counts and first byte offsets, and the exact text of fatal errors.

use std::collections::BTreeMap;

use kinetoscope::model::{Format, IntArg};
use kinetoscope::read::assemble;
use kinetoscope::{RankTrace, ReadError, Trace, WarningKind};

use crate::{eqnice, util};

/// Damage: recoverable (counted warnings with byte offsets) and fatal (errors naming the place).
mod damage;
/// How fields are read: exact times, pid/tid forms, args spellings, metadata, every phase, links.
mod fields;
/// Each variant of the formats: object or bare array, gzip members, the vocabularies of Kineto
/// over the years, ROCm, MTIA, PaddlePaddle, several ranks.
mod variants;

/// Reads `testdata/<rel>` (named `rel`) with every chunk size, checks the reads are identical and
/// that the name plays no part, and returns the assembled one-rank trace.
pub(super) fn load(rel: &str) -> Trace {
    let bytes = util::bytes(&util::testdata(rel));
    let first = util::read_chunked(rel, &bytes, 1 << 20).unwrap_or_else(|e| panic!("{e}"));
    for chunk in util::CHUNKS {
        let again = util::read_chunked(rel, &bytes, chunk).unwrap_or_else(|e| panic!("{rel} in {chunk}-byte chunks: {e}"));
        util::assert_same_read(&format!("{rel} in {chunk}-byte chunks"), &first, &again);
    }
    let unnamed = util::read_chunked("unknown", &bytes, 1 << 20).unwrap_or_else(|e| panic!("{rel} as 'unknown': {e}"));
    assert_eq!(unnamed.format, first.format, "{rel}: format depends on the name");
    eqnice!(util::rows_table(&first), util::rows_table(&unnamed));
    assemble(vec![first])
}

/// The fatal error of `testdata/<rel>`, the same for every chunk size.
pub(super) fn load_err(rel: &str) -> ReadError {
    let bytes = util::bytes(&util::testdata(rel));
    let first = util::read_chunked(rel, &bytes, 1 << 20).expect_err("a fatal error");
    for chunk in util::CHUNKS {
        let again = util::read_chunked(rel, &bytes, chunk).expect_err("a fatal error");
        assert_eq!(again, first, "{rel} in {chunk}-byte chunks");
    }
    first
}

/// `(kind, count, first offset)` of every warning, in the order first met.
pub(super) fn warnings(r: &RankTrace) -> Vec<(WarningKind, u64, u64)> {
    r.warnings.iter().map(|w| (w.kind, w.count, w.offset)).collect()
}

/// The details (first occurrence) of every warning.
pub(super) fn details(r: &RankTrace) -> Vec<String> {
    r.warnings.iter().map(|w| w.detail.clone()).collect()
}

pub(super) fn map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// `(events, placeholders, kinds, categories, phases)`.
pub(super) type Counts = (u64, u64, BTreeMap<String, u64>, BTreeMap<String, u64>, BTreeMap<String, u64>);

/// [`Counts`] of a rank (and checks `sum(kinds) == events`).
pub(super) fn counts(r: &RankTrace) -> Counts {
    let c = &r.counts;
    assert_eq!(c.kinds.values().sum::<u64>(), c.events, "sum(kinds) == events");
    (c.events, c.empty_placeholders, c.kinds.clone(), c.categories.clone(), c.phases.clone())
}

/// Process names `(pid, name)` and thread names `(pid, tid, name)`, ids shown as in the file.
pub(super) type Names = (Vec<(String, String)>, Vec<(String, String, String)>);

/// [`Names`] of a rank, sorted.
pub(super) fn names(r: &RankTrace) -> Names {
    let mut p: Vec<_> = r.process_names.iter().map(|(k, v)| (util::id_shown(r, *k), v.clone())).collect();
    let mut t: Vec<_> = r.thread_names.iter().map(|((a, b), v)| (util::id_shown(r, *a), util::id_shown(r, *b), v.clone())).collect();
    p.sort();
    t.sort();
    (p, t)
}

pub(super) fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

/// Every file in testdata/kineto and testdata/paddle has a test in this module.
#[test]
fn every_fixture_is_tested() {
    let mut files = Vec::new();
    for dir in ["kineto", "kineto/bad", "kineto/two-ranks", "paddle"] {
        for e in std::fs::read_dir(util::testdata(dir)).expect("testdata dir") {
            let p = e.expect("entry").path();
            if p.is_file() {
                files.push(format!("{dir}/{}", p.file_name().expect("name").to_string_lossy()));
            }
        }
    }
    files.sort();
    let source = [include_str!("variants.rs"), include_str!("fields.rs"), include_str!("damage.rs")].concat();
    let cli = include_str!("../cli.rs");
    let untested: Vec<_> = files
        .iter()
        .filter(|f| {
            let base = f.rsplit('/').next().unwrap_or(f);
            !source.contains(f.as_str()) && !source.contains(&format!("\"{base}\"")) && !cli.contains(f.as_str())
        })
        .collect();
    assert!(untested.is_empty(), "fixtures without a test: {untested:?}");
}

/// The overview lists at most 64 entries of `deviceProperties` and counts the rest (a file with
/// 100,000 of them made the page build a list of them all).
#[test]
fn overview_lists_a_bounded_number_of_devices() {
    let devices = (0..100).map(|i| format!(r#"{{"id": {i}, "name": "dev {i}"}}"#)).collect::<Vec<_>>().join(",");
    let doc = format!(
        r#"{{"deviceProperties": [{devices}], "traceEvents": [{{"ph": "X", "name": "a", "ts": 1, "dur": 1, "pid": 1, "tid": 1}}]}}"#
    );
    let t = kinetoscope::read::read_all(&[("d.json", doc.as_bytes())]).expect("reads");
    assert_eq!(t.ranks[0].meta.devices.len(), 100, "the model keeps them all");
    let o = kinetoscope::analysis::overview::overview(&t);
    let r = &o.ranks[0];
    assert_eq!((r.device_properties.len(), r.device_properties_omitted), (64, 36));
    assert_eq!(r.device_properties[63].name.as_deref(), Some("dev 63"));
}
