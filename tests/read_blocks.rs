//! Reading a file in blocks parsed elsewhere (the page's parse workers, `read::blocks`) gives the
//! same rank as reading it in one pass: every trace in `../shared/traces` and every fixture in
//! `testdata/` (damaged ones included), several block and chunk sizes, and block results merged
//! out of order.

use std::path::Path;

use kinetoscope::read::{parse_block, read_bytes, FileReader};
use kinetoscope::{RankTrace, ReadError};

use crate::util;

/// Reads `bytes` as a split reader would in the page: blocks of about `block` bytes parsed by
/// [`parse_block`], their results handed back in reverse order within each batch.
fn read_split(name: &str, bytes: &[u8], chunk: usize, block: usize) -> Result<RankTrace, ReadError> {
    let mut r = FileReader::new_split(name, Some(bytes.len() as u64), block);
    let run = |r: &mut FileReader| -> Result<(), ReadError> {
        let mut parsed: Vec<(Vec<u8>, Vec<u8>)> = r.take_blocks().into_iter().map(|b| (parse_block(name, &b).expect("block parses"), b)).collect();
        parsed.reverse();
        for (result, block) in parsed {
            r.add_partial(result, block)?;
        }
        Ok(())
    };
    for c in bytes.chunks(chunk.max(1)) {
        r.push(c)?;
        run(&mut r)?;
    }
    r.end_input()?;
    run(&mut r)?;
    r.finish()
}

/// Beyond `util::assert_same_read`: the same string and id tables (same ids), name suffixes and
/// range-profiler args.
fn assert_identical(what: &str, a: &RankTrace, b: &RankTrace) {
    util::assert_same_read(what, a, b);
    assert!(a.strings.iter().eq(b.strings.iter()), "{what}: string ids");
    assert_eq!(a.ids.values(), b.ids.values(), "{what}: id table");
    assert_eq!(a.events.name, b.events.name, "{what}: name ids");
    assert_eq!(a.events.cat, b.events.cat, "{what}: cat ids");
    assert_eq!(a.events.pid, b.events.pid, "{what}: pid ids");
    assert_eq!(a.events.name_suffix, b.events.name_suffix, "{what}: name suffixes");
    assert_eq!(a.events.suffix_text, b.events.suffix_text, "{what}: suffix text");
    let pr = |r: &RankTrace| r.events.profiler_range_args.iter().map(|x| (x.0, r.strings.get(x.1).to_string(), x.2.to_bits())).collect::<Vec<_>>();
    assert_eq!(pr(a), pr(b), "{what}: profiler range args");
}

/// Compares the split read with the one-pass read of every file under `dir` (errors too).
fn check_dir(dir: &Path, blocks: &[usize]) -> usize {
    let files: Vec<_> = util::files_under(dir).into_iter().filter(|p| {
        let p = p.to_string_lossy();
        p.ends_with(".json") || p.ends_with(".json.gz")
    }).collect();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let bytes = util::bytes(f);
        let whole = read_bytes(&name, &bytes, 1 << 20);
        for &block in blocks {
            for chunk in [1 << 20, 4093] {
                let what = format!("{} in {block}-byte blocks, {chunk}-byte chunks", f.display());
                match (&whole, read_split(&name, &bytes, chunk, block)) {
                    (Ok(a), Ok(b)) => assert_identical(&what, a, &b),
                    (Err(a), Err(b)) => assert_eq!(a, &b, "{what}: error"),
                    (a, b) => panic!("{what}: one-pass {:?} but split {:?}", a.as_ref().err(), b.err()),
                }
            }
        }
    }
    files.len()
}

#[test]
fn testdata_fixtures_read_in_blocks_as_in_one_pass() {
    // one event per block too: every `B`/`E` pair and every warning crosses a block boundary
    let n = check_dir(&util::testdata(""), &[1, 700, 1 << 20]);
    assert!(n > 20, "only {n} fixtures");
}

#[test]
fn shared_traces_read_in_blocks_as_in_one_pass() {
    let dir = util::shared("traces");
    if !dir.exists() {
        eprintln!("SKIP: {} not found", dir.display());
        return;
    }
    let n = check_dir(&dir, &[64 << 10, 4 << 20]);
    assert!(n > 20, "only {n} traces");
}

#[test]
fn a_missing_block_result_is_an_error_not_a_silent_loss() {
    let bytes = br#"{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "name": "b", "ts": 3, "dur": 1}]}"#;
    let mut r = FileReader::new_split("t.json", None, 1);
    r.push(bytes).unwrap();
    r.end_input().unwrap();
    let blocks = r.take_blocks();
    assert_eq!(blocks.len(), 2, "cut between the two events");
    r.add_partial(parse_block("t.json", &blocks[1]).unwrap(), blocks[1].clone()).unwrap();
    let err = r.finish().expect_err("block 0 never came back");
    assert!(err.to_string().contains("1 missing"), "{err}");
}
