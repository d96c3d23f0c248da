//! Recorder HPC I/O traces (`kinetoscope::read::recorder`): every shared trace equals its
//! recorder2text output, hand-made folders in each binary layout, and damage.

use std::path::Path;

use kinetoscope::read::recorder::{decode, to_text, RecorderTrace};

use crate::{eqnice, util};

/// The folders under `../shared/traces/recorder/` that have a `_text/` oracle.
const TRACES: [&str; 3] =
    ["io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb", "io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb.interprocess_tid", "io_posix_mpiio_hdf5_4ranks.gotcha-a62d702"];

/// Every file under `dir` as (name relative to `dir`, bytes).
fn folder_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    util::files_under(dir)
        .into_iter()
        .map(|p| (p.strip_prefix(dir).expect("under dir").to_string_lossy().replace('\\', "/"), util::bytes(&p)))
        .collect()
}

/// Decodes (name, bytes) pairs.
fn decode_owned(files: &[(String, Vec<u8>)]) -> Result<RecorderTrace, kinetoscope::read::recorder::RecorderError> {
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    decode(&refs)
}

/// The oracle text of `rank` in `files`.
fn oracle(files: &[(String, Vec<u8>)], rank: usize) -> String {
    let name = format!("_text/{rank}.txt");
    let (_, b) = files.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("no {name}"));
    String::from_utf8(b.clone()).expect("utf-8 oracle")
}

/// The first line where `want` and `got` differ, described; `None` when they are equal.
fn first_difference(want: &str, got: &str) -> Option<String> {
    if want == got {
        return None;
    }
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    let i = w.iter().zip(&g).position(|(a, b)| a != b).unwrap_or(w.len().min(g.len()));
    Some(format!("line {}:\nwant {:?}\ngot  {:?}\n({} vs {} lines)", i + 1, w.get(i), g.get(i), w.len(), g.len()))
}

/// `text` without the two time columns.
fn without_times(text: &str) -> String {
    text.lines().map(|l| l.splitn(3, ' ').nth(2).unwrap_or_default().to_string() + "\n").collect()
}

/// Panics unless every rank of `files` prints as its `_text/` oracle (`strip` compares without
/// the time columns).
fn assert_equals_oracle(what: &str, files: &[(String, Vec<u8>)], strip: fn(&str) -> String) {
    let trace = decode_owned(files).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(trace.ranks.len(), 4, "{what}: ranks");
    for r in &trace.ranks {
        assert_eq!(r.unused_timestamps, 0, "{what} rank {}: unused timestamps", r.rank);
        if let Some(d) = first_difference(&strip(&oracle(files, r.rank as usize)), &strip(&to_text(r))) {
            panic!("{what} rank {}: first difference at {d}", r.rank);
        }
    }
}

#[test]
fn per_rank_pilgrim_trace_equals_recorder2text() {
    if util::skip_without_corpus() {
        return;
    }
    let files = folder_files(&util::shared(&format!("traces/recorder/{}", TRACES[0])));
    assert_equals_oracle(TRACES[0], &files, str::to_string);
}

#[test]
fn gotcha_trace_equals_recorder2text() {
    if util::skip_without_corpus() {
        return;
    }
    let files = folder_files(&util::shared(&format!("traces/recorder/{}", TRACES[2])));
    assert_equals_oracle(TRACES[2], &files, str::to_string);
}

/// With interprocess compression the pilgrim reader shares rank 0's table, whose `rank` field
/// is 0, and opens `<that rank>.ts`, so recorder2text printed rank 0's timestamps for every rank
/// (`recorder_decode_records_core` in tools/reader.c @ c1c3dcb). We read `<rank>.ts`: rank 0 and
/// every column but the times equal the oracle, and with `0.ts` given as every rank's timestamps
/// the whole oracle is reproduced byte for byte.
#[test]
fn interprocess_pilgrim_trace_equals_recorder2text_with_its_timestamp_bug() {
    if util::skip_without_corpus() {
        return;
    }
    let t = TRACES[1];
    let files = folder_files(&util::shared(&format!("traces/recorder/{t}")));
    assert_equals_oracle(t, &files, without_times);
    let trace = decode_owned(&files).unwrap();
    eqnice!(oracle(&files, 0), to_text(&trace.ranks[0]));
    let zero_ts = files.iter().find(|(n, _)| n == "0.ts").expect("0.ts").1.clone();
    let as_recorder2text: Vec<(String, Vec<u8>)> =
        files.iter().map(|(n, b)| (n.clone(), if n.ends_with(".ts") { zero_ts.clone() } else { b.clone() })).collect();
    let trace = decode_owned(&as_recorder2text).unwrap();
    for r in &trace.ranks {
        let d = first_difference(&oracle(&files, r.rank as usize), &to_text(r));
        assert!(d.is_none(), "{t} rank {} with 0.ts: {}", r.rank, d.unwrap_or_default());
    }
    // rank 0 has 180 calls, the others fewer: the rest of 0.ts is left over
    let unused: Vec<usize> = trace.ranks.iter().map(|r| r.unused_timestamps).collect();
    assert_eq!(unused, vec![0, 11, 13, 13]);
}
