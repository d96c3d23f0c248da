//! Writing a partial: the header, then the content (compressed or not).
//!
//! Each rank in the content, in this order:
//! 1. `rank u32`, the input files (`u32` count, then each as `u32` length + UTF-8), `input_bytes
//!    u64`, the format (`u8`: 0 none, else 1 + its position in [`Format::ALL`]), the metadata
//!    ([`crate::model::TraceMeta`] as JSON, length-prefixed);
//! 2. the strings by id (count, then each length-prefixed; id 0 is the empty string), the ids by
//!    index (count, then a tag `u8`, 0 integer 1 string id, and an `i64`);
//! 3. the number of events, then the columns `index u32`, `phase u8` (position in
//!    [`ALL_PHASES`]), `kind u8` (position in [`ALL_KINDS`]), `cat u32`, `name u32`, `ts i64`,
//!    `dur i64`, `pid u32`, `tid u32`, `stream i64`, `correlation i64`, `external_id i64`,
//!    `flags u8`, each as its length (`u32`) then its values;
//! 4. the sparse columns, each a count then records: `int_args` (`event u32`, `arg u8` position in
//!    [`IntArg::ALL`], `value i64`), `counters` and `profiler_range_args` (`event u32`, `string
//!    u32`, `value f64`), `name_suffix` (`event u32`, `start u32`, `end u32`) followed by
//!    `suffix_text` (length-prefixed), `call_args` (`event u32`, `string u32`);
//! 5. process names (count, then `pid u32` + text) and thread names (count, then `pid u32`, `tid
//!    u32` + text), each sorted by key;
//! 6. counts: `events u64`, `empty_placeholders u64`, then the maps `kinds`, `categories`,
//!    `phases` (count, then key text + `u64`);
//! 7. the warnings as JSON (length-prefixed).
//!
//! [`ALL_KINDS`]: crate::model::kind::ALL_KINDS
//! [`ALL_PHASES`]: crate::model::kind::ALL_PHASES

use std::collections::BTreeMap;

use super::{MAGIC, VERSION, WRITER};
use crate::model::{EventTable, Format, IdValue, RankTrace};
use crate::read::blocks::wire::{put_bytes, put_event_columns};

/// How a partial's content is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// As is.
    None,
    /// Raw deflate at this level (1 fastest … 10 smallest).
    Deflate(u8),
}

/// The partial file of `ranks` (each input file's rank as read, before
/// [`crate::read::assemble`]).
pub fn encode(ranks: &[RankTrace], compression: Compression) -> Vec<u8> {
    let content = content(ranks);
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&VERSION.to_le_bytes());
    put_bytes(&mut out, WRITER.as_bytes());
    out.push(match compression {
        Compression::None => 0,
        Compression::Deflate(_) => 1,
    });
    out.extend_from_slice(&(content.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&content).to_le_bytes());
    match compression {
        Compression::None => out.extend_from_slice(&content),
        Compression::Deflate(level) => out.extend(miniz_oxide::deflate::compress_to_vec(&content, level)),
    }
    out
}

fn content(ranks: &[RankTrace]) -> Vec<u8> {
    let events: usize = ranks.iter().map(|r| r.events.len()).sum();
    let mut out = Vec::with_capacity(64 * events + 4096);
    put_u32(&mut out, ranks.len());
    for r in ranks {
        rank(&mut out, r);
    }
    out
}

fn put_u32(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

/// JSON of a value that always serializes (plain structs of strings and numbers).
fn json<T: serde::Serialize>(v: &T) -> Vec<u8> {
    serde_json::to_vec(v).unwrap_or_default()
}

fn rank(out: &mut Vec<u8>, r: &RankTrace) {
    out.extend_from_slice(&r.rank.to_le_bytes());
    put_u32(out, r.files.len());
    for f in &r.files {
        put_bytes(out, f.as_bytes());
    }
    out.extend_from_slice(&r.input_bytes.to_le_bytes());
    out.push(r.format.and_then(|f| Format::ALL.iter().position(|&x| x == f)).map_or(0, |i| i as u8 + 1));
    put_bytes(out, &json(&r.meta));
    put_u32(out, r.strings.len());
    for s in r.strings.iter() {
        put_bytes(out, s.as_bytes());
    }
    put_u32(out, r.ids.len());
    for v in r.ids.values() {
        let (tag, x) = match v {
            IdValue::Int(i) => (0u8, *i),
            IdValue::Str(s) => (1, i64::from(s.0)),
        };
        out.push(tag);
        out.extend_from_slice(&x.to_le_bytes());
    }
    columns(out, &r.events);
    sparse(out, &r.events);
    names(out, r);
    counts(out, r);
    let warnings: Vec<_> = r.warnings.iter().collect();
    put_bytes(out, &json(&warnings));
}

fn columns(out: &mut Vec<u8>, ev: &EventTable) {
    put_u32(out, ev.len());
    put_event_columns(out, ev);
}

fn sparse(out: &mut Vec<u8>, ev: &EventTable) {
    put_u32(out, ev.int_args.len());
    for &(e, a, v) in &ev.int_args {
        out.extend_from_slice(&e.to_le_bytes());
        out.push(a as u8);
        out.extend_from_slice(&v.to_le_bytes());
    }
    for col in [&ev.counters, &ev.profiler_range_args] {
        put_u32(out, col.len());
        for &(e, s, v) in col {
            out.extend_from_slice(&e.to_le_bytes());
            out.extend_from_slice(&s.0.to_le_bytes());
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    put_u32(out, ev.name_suffix.len());
    for &(e, a, b) in &ev.name_suffix {
        for x in [e, a, b] {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    put_bytes(out, ev.suffix_text.as_bytes());
    put_u32(out, ev.call_args.len());
    for &(e, s) in &ev.call_args {
        out.extend_from_slice(&e.to_le_bytes());
        out.extend_from_slice(&s.0.to_le_bytes());
    }
}

fn names(out: &mut Vec<u8>, r: &RankTrace) {
    let mut process: Vec<_> = r.process_names.iter().collect();
    process.sort_unstable_by_key(|(k, _)| **k);
    put_u32(out, process.len());
    for (&pid, name) in process {
        out.extend_from_slice(&pid.to_le_bytes());
        put_bytes(out, name.as_bytes());
    }
    let mut thread: Vec<_> = r.thread_names.iter().collect();
    thread.sort_unstable_by_key(|(k, _)| **k);
    put_u32(out, thread.len());
    for (&(pid, tid), name) in thread {
        out.extend_from_slice(&pid.to_le_bytes());
        out.extend_from_slice(&tid.to_le_bytes());
        put_bytes(out, name.as_bytes());
    }
}

fn counts(out: &mut Vec<u8>, r: &RankTrace) {
    let c = &r.counts;
    out.extend_from_slice(&c.events.to_le_bytes());
    out.extend_from_slice(&c.empty_placeholders.to_le_bytes());
    for map in [&c.kinds, &c.categories, &c.phases] {
        tally(out, map);
    }
}

fn tally(out: &mut Vec<u8>, map: &BTreeMap<String, u64>) {
    put_u32(out, map.len());
    for (k, v) in map {
        put_bytes(out, k.as_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
}
