//! Reading a file in blocks parsed elsewhere (the page's parse workers, `read::blocks`) gives the
//! same rank as reading it in one pass: every trace in `../shared/traces` and every fixture in
//! `testdata/` (damaged ones included), several block and chunk sizes, and block results merged
//! out of order.

use std::path::{Path, PathBuf};

use kinetoscope::read::{job_range, job_to_end, parse_block, parse_range, read_bytes, BlockParse, FileReader};
use kinetoscope::{RankTrace, ReadError};

use crate::{eqnice, util};

/// How the file is split, as the page's reading worker does it.
#[derive(Clone, Copy, Debug)]
enum Split {
    /// The reader gets every byte and hands out blocks of content.
    Content,
    /// The reader gets the first bytes only and hands out range jobs (for an uncompressed
    /// file); a worker reads the job's bytes to `margin` past its end, then twice as far each
    /// time `parse_range` asks for more.
    Ranges { margin: usize },
}

/// Reads `bytes` as a split reader would in the page: blocks or jobs of about `block` bytes
/// parsed by [`parse_block`] / [`parse_range`], their results handed back in reverse order
/// within each batch, some only after the results of one or three later batches (as results
/// come late in the page), until no job is left (a block parsed again is a new job). Every other
/// content block is kept here, as the page keeps them, its result handed back without it: the
/// block goes back only when the reader asks for it (`wanted_block`).
fn read_split(name: &str, bytes: &[u8], chunk: usize, block: usize, split: Split) -> Result<RankTrace, ReadError> {
    read_split_counted(name, bytes, chunk, block, split).map(|(rank, _)| rank)
}

thread_local! {
    /// Kept blocks that this thread's split reads handed back when the reader wanted them.
    static WANTED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// [`read_split`], also returning how many content bytes were parsed in all: by the workers
/// (every byte a job or block was given, each time) and again by the reader itself.
fn read_split_counted(name: &str, bytes: &[u8], chunk: usize, block: usize, split: Split) -> Result<(RankTrace, u64), ReadError> {
    let mut r = match split {
        Split::Content => FileReader::new_split(name, Some(bytes.len() as u64), block),
        Split::Ranges { .. } => FileReader::new_ranges(name, bytes.len() as u64, block),
    };
    let margin = match split {
        Split::Ranges { margin } => margin,
        Split::Content => 1,
    };
    let mut work = 0u64;
    // results held back: (the round after which they come, result, block)
    let mut held: Vec<(u32, Vec<u8>, Option<Vec<u8>>)> = Vec::new();
    let mut round = 0u32;
    let mut kept = std::collections::BTreeMap::new();
    let mut add = |r: &mut FileReader, result: Vec<u8>, block: Option<Vec<u8>>| -> Result<(), ReadError> {
        let seq = block.as_deref().and_then(kinetoscope::read::block_seq);
        match (block, seq) {
            (Some(b), Some(seq)) if seq % 2 == 1 => {
                kept.insert(seq, b);
                r.add_partial(result, None)?;
            }
            (block, _) => r.add_partial(result, block)?,
        }
        while let Some(w) = r.wanted_block() {
            r.add_block(kept.remove(&w).expect("a wanted block was kept"))?;
            WANTED.with(|c| c.set(c.get() + 1));
        }
        kept.retain(|&seq, _| seq >= r.blocks_merged());
        Ok(())
    };
    let mut run = |r: &mut FileReader| -> Result<(), ReadError> {
        loop {
            let jobs = r.take_blocks();
            if jobs.is_empty() && held.is_empty() {
                return Ok(());
            }
            round += 1;
            let mut parsed: Vec<(Vec<u8>, Option<Vec<u8>>)> = jobs
                .into_iter()
                .map(|b| match job_range(&b) {
                    Some(range) => (parse_job(name, &b, range, bytes, margin, &mut work), None),
                    None => {
                        work += b.len() as u64;
                        (parse_block(name, &b).expect("block parses"), Some(b))
                    }
                })
                .collect();
            parsed.reverse();
            let (late, later): (Vec<_>, Vec<_>) = std::mem::take(&mut held).into_iter().partition(|h| h.0 <= round);
            held = later;
            for (k, (result, block)) in parsed.into_iter().enumerate() {
                match k % 5 {
                    3 => held.push((round + 1, result, block)),
                    4 => held.push((round + 3, result, block)),
                    _ => add(r, result, block)?,
                }
            }
            for (_, result, block) in late {
                add(r, result, block)?;
            }
        }
    };
    for c in bytes.chunks(chunk.max(1)) {
        if r.reads_ranges() {
            break;
        }
        r.push(c)?;
        run(&mut r)?;
    }
    r.end_input()?;
    run(&mut r)?;
    let again = r.bytes_reparsed();
    Ok((r.finish()?, work + again))
}

/// What a helper worker does with a range job: reads from its start to `margin` past its end,
/// further while [`parse_range`] asks for more; a job to the end of the file is streamed
/// through a [`BlockParse`] in pieces. Adds the bytes it parsed to `work`.
fn parse_job(name: &str, job: &[u8], (start, end): (u64, u64), bytes: &[u8], margin: usize, work: &mut u64) -> Vec<u8> {
    let (start, end) = (start as usize, end as usize);
    if job_to_end(job) {
        let mut p = BlockParse::for_job(job).expect("a job to the end");
        for piece in bytes[start..].chunks(margin.max(4093)) {
            p.push(name, piece);
        }
        *work += (bytes.len() - start) as u64;
        return p.finish(name);
    }
    let mut stop = (end + margin).min(bytes.len());
    loop {
        if let Some(result) = parse_range(name, job, &bytes[start..stop], stop == bytes.len()).expect("job parses") {
            *work += (stop - start) as u64; // a call that asks for more only looks for its cuts
            return result;
        }
        assert!(stop < bytes.len(), "parse_range asked for more bytes at the end of the file");
        stop = (stop + (stop - start).max(margin)).min(bytes.len());
    }
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
    let pr = |r: &RankTrace| {
        r.events.profiler_range_args.iter().map(|x| (x.0, r.strings.get(x.1).to_string(), x.2.to_bits())).collect::<Vec<_>>()
    };
    assert_eq!(pr(a), pr(b), "{what}: profiler range args");
}

/// Compares the split read with the one-pass read of every file under `dir` (errors too), with
/// content blocks and with range jobs.
fn check_dir(dir: &Path, blocks: &[usize]) -> usize {
    let files: Vec<_> = util::files_under(dir)
        .into_iter()
        .filter(|p| {
            let p = p.to_string_lossy();
            p.ends_with(".json") || p.ends_with(".json.gz")
        })
        .collect();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().to_string();
        let bytes = util::bytes(f);
        let whole = read_bytes(&name, &bytes, 1 << 20);
        for &block in blocks {
            let ways = [
                (Split::Content, 1 << 20),
                (Split::Content, 4093),
                (Split::Ranges { margin: 1 }, 4093),
                (Split::Ranges { margin: 64 << 10 }, 1 << 20),
            ];
            for (split, chunk) in ways {
                let what = format!("{} in {block}-byte blocks, {split:?}, {chunk}-byte chunks", f.display());
                match (&whole, read_split(&name, &bytes, chunk, block, split)) {
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
    if util::skip_without_corpus() {
        return;
    }
    let dir = util::shared("traces");
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
    // a cut between the two events, the rest closed as a block (no cut in twice the 1-byte
    // block size), and the empty last block
    assert_eq!(blocks.len(), 3, "cut between the two events");
    for b in &blocks[1..] {
        r.add_partial(parse_block("t.json", b).unwrap(), Some(b.clone())).unwrap();
    }
    let err = r.finish().expect_err("block 0 never came back");
    assert!(err.to_string().contains("1 missing"), "{err}");
}

#[test]
fn range_jobs_whose_cut_was_a_bad_guess_are_parsed_again_as_one() {
    // `},{` inside a name, inside args (an array of objects) and in a top-level array after the
    // events: every such cut ends its block inside a value, so the block is parsed again with
    // the next one, in a new job
    let doc = br#"{"traceEvents": [
  {"ph": "X", "name": "a},{b", "ts": 1, "dur": 2, "args": {"shapes": [{"n": 1},{"n": 2}, {"n": 3}]}},
  {"ph": "B", "name": "open", "ts": 2, "pid": 1, "tid": 1},
  {"ph": "X", "name": "c", "ts": 3, "dur": 1, "args": {"x": [{}, {}]}},
  {"ph": "E", "ts": 9, "pid": 1, "tid": 1}
], "deviceProperties": [{"id": 0},{"id": 1}, {"id": 2}]}"#;
    let whole = read_bytes("t.json", doc, 1 << 20).expect("reads");
    assert_eq!(whole.events.len(), 3, "the B/E pair is one row");
    for block in 1..doc.len() + 1 {
        for margin in [1, 5, 1000] {
            let split = read_split("t.json", doc, 4096, block, Split::Ranges { margin }).expect("reads");
            assert_identical(&format!("{block}-byte ranges, margin {margin}"), &whole, &split);
        }
    }
}

#[test]
fn a_range_reader_needs_only_the_first_bytes_and_covers_the_file_with_jobs() {
    let doc = br#"  {"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "name": "b", "ts": 3, "dur": 1}]}"#;
    let mut r = FileReader::new_ranges("t.json", doc.len() as u64, 40);
    r.push(&doc[..1]).unwrap();
    assert!(!r.reads_ranges(), "whitespace only: the format is not known yet");
    r.push(&doc[1..20]).unwrap();
    assert!(r.reads_ranges());
    let ranges: Vec<(u64, u64)> = r.take_blocks().iter().map(|j| job_range(j).expect("a range job")).collect();
    assert_eq!(ranges, [(0, 40), (40, 80), (80, doc.len() as u64)]);

    // a compressed file is read as blocks of content
    let gz = util::bytes(&util::testdata("kineto/object-form.json.gz"));
    let mut r = FileReader::new_ranges("t.json.gz", gz.len() as u64, 40);
    r.push(&gz).unwrap();
    assert!(!r.reads_ranges());
}

#[test]
fn long_stretches_without_events_are_parsed_again_once_not_once_per_block() {
    // 100 KB of objects before the event array and after it: every cut there is a bad guess.
    // Parsing the stretch again from its start with each next block would cost ~100 times
    // the file here; the reader continues where it stopped, or a job reads to the end.
    let objects = |n: usize| (0..n).map(|i| format!(r#"{{"id": {i}, "name": "device {i}"}}"#)).collect::<Vec<_>>().join(",");
    let events = (0..2000)
        .map(|i| format!(r#"{{"ph": "X", "name": "k{}", "ts": {}, "dur": 5, "pid": 0, "tid": 7}}"#, i % 7, i * 10))
        .collect::<Vec<_>>()
        .join(",\n");
    let docs = [
        ("prefix", format!(r#"{{"deviceProperties": [{}], "traceEvents": [{events}]}}"#, objects(3000))),
        ("suffix", format!(r#"{{"traceEvents": [{events}], "samples": [{}], "displayTimeUnit": "ns"}}"#, objects(3000))),
        ("both", format!(r#"{{"deviceProperties": [{}], "traceEvents": [{events}], "samples": [{}]}}"#, objects(3000), objects(3000))),
    ];
    for (what, doc) in &docs {
        let doc = doc.as_bytes();
        let whole = read_bytes("t.json", doc, 1 << 20).expect("reads");
        assert_eq!(whole.events.len(), 2000);
        for split in [Split::Content, Split::Ranges { margin: 1 }, Split::Ranges { margin: 300 }] {
            let (rank, work) = read_split_counted("t.json", doc, 4093, 2000, split).expect("reads");
            assert_identical(&format!("{what}, {split:?}"), &whole, &rank);
            let ratio = work as f64 / doc.len() as f64;
            assert!(ratio < 4.0, "{what}, {split:?}: {work} bytes parsed for a {}-byte file ({ratio:.1}x)", doc.len());
        }
    }
}

/// Documents with stretches where no block can be cut, each with what it shows: `spaces` bytes
/// of whitespace between events, one event with a name of `name` bytes, and the whitespace before
/// and after the event array.
fn uncut_docs(spaces: usize, name: usize) -> [(&'static str, String); 3] {
    let events = |from: usize| {
        (from..from + 300)
            .map(|i| format!(r#"{{"ph": "X", "name": "k{}", "ts": {}, "dur": 5, "pid": 0, "tid": 7}}"#, i % 7, i * 10))
            .collect::<Vec<_>>()
            .join(",")
    };
    let spaces = " ".repeat(spaces);
    let huge = format!(r#"{{"ph": "X", "name": "{}", "ts": 1, "dur": 1, "pid": 0, "tid": 7}}"#, "x".repeat(name));
    [
        ("whitespace between events", format!(r#"{{"traceEvents": [{},{spaces}{}]}}"#, events(0), events(300))),
        ("one huge event", format!(r#"{{"traceEvents": [{},{huge},{}]}}"#, events(0), events(300))),
        ("whitespace before and after", format!(r#"{{{spaces}"traceEvents": [{}]{spaces}}}"#, events(0))),
    ]
}

/// Stretches where no block can be cut (`},{` never occurs: whitespace between events, one
/// event with a huge string, whitespace before the event array and after it): the reader still
/// hands out blocks of about two block sizes at most, never the whole stretch at once (a gzip
/// file of 431 MB of whitespace was one 431 MB block, 831 MiB of memory), and the split read is
/// the one-pass read.
#[test]
fn stretches_without_cuts_go_out_in_bounded_blocks() {
    let (chunk, block) = (4093, 2000);
    for (what, doc) in &uncut_docs(400_000, 300_000) {
        let doc = doc.as_bytes();
        let whole = read_bytes("t.json", doc, 1 << 20).expect("reads");
        assert_identical(what, &whole, &read_split("t.json", doc, chunk, block, Split::Content).expect("reads"));
        let mut r = FileReader::new_split("t.json", Some(doc.len() as u64), block);
        let mut largest = 0;
        for c in doc.chunks(chunk) {
            r.push(c).expect("reads");
            for b in r.take_blocks() {
                largest = largest.max(b.len());
                let result = parse_block("t.json", &b).expect("block parses");
                r.add_partial(result, Some(b)).expect("merges");
            }
        }
        // two blocks and the chunk that crossed that, plus a block's header; or, once, what the
        // format's detection held while it read past leading whitespace (at most 64 KiB)
        assert!(largest <= 2 * block + chunk + (64 << 10) + 64, "{what}: a block of {largest} bytes");
    }
}

/// The same stretches in a gzip file, with blocks as large as the CLI's and the page's (more than
/// the room a pending block is first given, its size and a search window): the content is
/// inflated straight into the pending block, which must grow while no cut is found. It did
/// not: the inflater was lent a full buffer, made no progress, and the rest of the file was
/// dropped as a truncated gzip (a gzip of 64 MiB of whitespace read as 0 events).
#[test]
fn gzip_stretches_without_cuts_longer_than_a_block_are_read_whole() {
    for (what, doc) in &uncut_docs(3_000_000, 3_000_000) {
        let (gz, _) = gzip_members(doc.as_bytes(), &[0, doc.len()]);
        let whole = read_bytes("t.json.gz", &gz, 1 << 20).expect("reads");
        assert_eq!(whole.warnings, Default::default(), "{what}");
        for block in [1 << 20, 2 << 20] {
            let split = read_split("t.json.gz", &gz, 128 << 10, block, Split::Content).expect("reads");
            assert_identical(&format!("{what}, {block}-byte blocks"), &whole, &split);
        }
    }
}

/// Documents made to trip the cuts: `},{` inside names, arrays of objects inside args, before
/// and after the event array, `B`/`E` pairs, truncation anywhere. Every split read (content
/// blocks and range jobs, block sizes from 1 byte, several margins) gives the one-pass read,
/// error for error.
#[test]
fn generated_documents_with_misleading_cuts_read_in_blocks_as_in_one_pass() {
    let mut next = util::xorshift(0x2545_f491_4f6c_dd1du64);
    let wanted_before = WANTED.with(|c| c.get());
    for doc_no in 0..40 {
        let objects = |n: u64, k: u64| {
            (0..n).map(|i| format!(r#"{{"id": {i}, "v": [{{"a": {k}}},{{"b": "x}},{{y"}}]}}"#)).collect::<Vec<_>>().join(",")
        };
        let mut events = Vec::new();
        for i in 0..(5 + next(40)) {
            let name = if next(4) == 0 { "tricky},{name".to_string() } else { format!("k{}", next(5)) };
            events.push(match next(6) {
                0 => format!(r#"{{"ph": "B", "name": "{name}", "ts": {}, "pid": 1, "tid": 1}}"#, i * 10),
                1 => format!(r#"{{"ph": "E", "ts": {}, "pid": 1, "tid": 1}}"#, i * 10 + 5),
                2 => format!(r#"{{"ph": "X", "cat": "kernel", "name": "{name}", "ts": {}, "dur": 3, "pid": 0, "tid": 7, "args": {{"shapes": [{}]}}}}"#, i * 10, objects(next(4), i)),
                _ => format!(r#"{{"ph": "X", "name": "{name}", "ts": {}, "dur": 2, "pid": 1, "tid": 1}}"#, i * 10),
            });
        }
        let before = if next(2) == 0 { format!(r#""deviceProperties": [{}], "#, objects(next(30), 1)) } else { String::new() };
        let after =
            if next(2) == 0 { format!(r#", "samples": [{}], "displayTimeUnit": "ns""#, objects(next(30), 2)) } else { String::new() };
        let mut doc = format!(r#"{{{before}"traceEvents": [{}]{after}}}"#, events.join(",\n")).into_bytes();
        if next(4) == 0 {
            doc.truncate(doc.len() - 1 - next(doc.len() as u64 / 2) as usize);
        }
        let whole = read_bytes("g.json", &doc, 1 << 20);
        for _ in 0..6 {
            let block = 1 + next(300) as usize;
            let split = match next(3) {
                0 => Split::Content,
                1 => Split::Ranges { margin: 1 + next(50) as usize },
                _ => Split::Ranges { margin: 64 << 10 },
            };
            let what = format!("document {doc_no} ({} bytes) in {block}-byte blocks, {split:?}", doc.len());
            match (&whole, read_split("g.json", &doc, 1 + next(5000) as usize, block, split)) {
                (Ok(a), Ok(b)) => assert_identical(&what, a, &b),
                (Err(a), Err(b)) => assert_eq!(a, &b, "{what}: error"),
                (a, b) => panic!("{what}: one-pass {:?} but split {:?}", a.as_ref().err(), b.err()),
            }
        }
    }
    // blocks whose cut was a bad guess were kept, and handed back when the reader wanted them
    assert!(WANTED.with(|c| c.get()) > wanted_before, "no kept block was wanted back");
}

/// `doc` damaged in one of the ways a differential fuzz run found divergences with: cut short,
/// bytes overwritten by JSON punctuation, a stretch deleted, a stretch copied elsewhere, a
/// number or a string replaced by a value of another type. Up to four damages.
fn damaged(doc: &[u8], next: &mut impl FnMut(u64) -> u64) -> Vec<u8> {
    const PUNCT: &[u8] = b"{}[],:\"\\ \n0-.e";
    const VALUES: [&str; 8] = ["[", "{", "]", "}", "[1, {", "\"", "null", "1e400"];
    let mut d = doc.to_vec();
    for _ in 0..1 + next(4) {
        if d.is_empty() {
            break;
        }
        let at = next(d.len() as u64) as usize;
        let len = 1 + next(60) as usize;
        match next(5) {
            0 => d.truncate(at),
            1 => d[at] = PUNCT[next(PUNCT.len() as u64) as usize],
            2 => drop(d.drain(at..(at + len).min(d.len()))),
            3 => {
                let piece = d[at..(at + len).min(d.len())].to_vec();
                let to = next(d.len() as u64) as usize;
                d.splice(to..to, piece);
            }
            _ => {
                let v = VALUES[next(VALUES.len() as u64) as usize];
                d.splice(at..at, v.bytes());
            }
        }
    }
    d
}

/// The fixtures, damaged at random (a fixed seed) a few hundred times: each read in blocks and
/// range jobs of several sizes gives the one-pass read, error for error. A run of this kind (on
/// the corpus too) found an event with an array left open read differently in one pass and in
/// blocks (`json::skip_array`, 2026-12-08).
#[test]
fn damaged_fixtures_read_in_blocks_as_in_one_pass() {
    let mut next = util::xorshift(0x9e37_79b9_7f4a_7c15);
    let files: Vec<_> = util::files_under(&util::testdata("")).into_iter().filter(|p| p.to_string_lossy().ends_with(".json")).collect();
    assert!(files.len() > 20, "only {} fixtures", files.len());
    for f in &files {
        let doc = util::bytes(f);
        for round in 0..6 {
            let d = damaged(&doc, &mut next);
            let whole = read_bytes("d.json", &d, 1 << 20);
            for block in [1 + next(40) as usize, 64 + next(2000) as usize] {
                let split = if next(2) == 0 { Split::Content } else { Split::Ranges { margin: 1 + next(100) as usize } };
                let what = format!("{} damaged ({round}), in {block}-byte blocks, {split:?}", f.display());
                match (&whole, read_split("d.json", &d, 1 + next(3000) as usize, block, split)) {
                    (Ok(a), Ok(b)) => assert_identical(&what, a, &b),
                    (Err(a), Err(b)) => assert_eq!(a, &b, "{what}: error"),
                    (a, b) => panic!("{what}: one-pass {:?} but split {:?}", a.as_ref().err(), b.err()),
                }
            }
        }
    }
}

/// `data` as gzip members cut at the offsets `cuts` (from 0 to its length; one member between
/// each two), and where each member's trailer is.
fn gzip_members(data: &[u8], cuts: &[usize]) -> (Vec<u8>, Vec<usize>) {
    let (mut out, mut trailers) = (Vec::new(), Vec::new());
    for w in cuts.windows(2) {
        let part = &data[w[0]..w[1]];
        out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
        out.extend(miniz_oxide::deflate::compress_to_vec(part, 6));
        trailers.push(out.len());
        let mut h = crc32fast::Hasher::new();
        h.update(part);
        out.extend_from_slice(&h.finalize().to_le_bytes());
        out.extend_from_slice(&(part.len() as u32).to_le_bytes());
    }
    (out, trailers)
}

/// A gzip file's members are checked from the CRC-32s of the blocks when it is read in blocks
/// (`read::blocks::crc`): members that end inside a block, at its start, at its end, an empty
/// one; every block and chunk size gives the one-pass read, and a member's wrong CRC-32 or
/// length the one-pass read's error.
#[test]
fn gzip_members_read_in_blocks_are_checked_as_in_one_pass() {
    let mut doc = Vec::new();
    for name in ["links.json", "phases.json", "rocm.json"] {
        doc = util::bytes(&util::testdata(&format!("kineto/{name}")));
        if doc.len() > 1400 {
            break;
        }
    }
    let n = doc.len();
    for cuts in [vec![0, n], vec![0, n / 3, n / 3, 2 * n / 3 + 5, n], vec![0, 1, 2, n - 1, n]] {
        let (gz, trailers) = gzip_members(&doc, &cuts);
        let whole = read_bytes("t.json.gz", &gz, 1 << 20).expect("reads");
        assert_eq!(whole.meta.gzip_members, trailers.len() as u32);
        for block in [1, 7, 64, 300, 1 << 20] {
            for chunk in [1, 13, 4096, 1 << 20] {
                let wanted_before = WANTED.with(|c| c.get());
                let split = read_split("t.json.gz", &gz, chunk, block, Split::Content).expect("split read");
                if block == 300 && cuts[1] == n / 3 && chunk <= 13 {
                    // a member that ends inside a kept block: its bytes are wanted for the CRC-32
                    // (a chunk that holds the whole file is inflated, and its members checked, by
                    // the inflater before the reader knows it reads JSON in blocks)
                    assert!(WANTED.with(|c| c.get()) > wanted_before, "members {cuts:?}, chunk {chunk}: no block wanted");
                }
                assert_identical(&format!("members {cuts:?}, {block}-byte blocks, {chunk}-byte chunks"), &whole, &split);
            }
        }
        for (k, &t) in trailers.iter().enumerate() {
            for field in [0, 4] {
                let mut bad = gz.clone();
                bad[t + field] ^= 1;
                let want = read_bytes("t.json.gz", &bad, 1 << 20).expect_err("a wrong trailer");
                assert_eq!(want.offset, t as u64);
                for block in [1, 64, 1 << 20] {
                    for chunk in [5, 1 << 20] {
                        let got = read_split("t.json.gz", &bad, chunk, block, Split::Content).expect_err("a wrong trailer");
                        assert_eq!(got, want, "member {k} of {cuts:?}, field {field}, {block}-byte blocks, {chunk}-byte chunks");
                    }
                }
            }
        }
    }
}

/// The CLI parses a file read alone in blocks on every core (`src/cli/input.rs`): what it reads
/// is what one reader reads, on every hand-made Kineto trace (damaged ones included: the same
/// warnings, or the same error) and the corpus' Kineto traces. The partial file holds every
/// field of the read rank, so its bytes compare the whole read.
#[test]
fn cli_split_read_is_the_whole_read() {
    let mut files: Vec<PathBuf> =
        ["kineto", "analysis", "paddle", "rocprof"].iter().flat_map(|d| util::files_under(&util::testdata(d))).collect();
    let corpus = !util::skip_without_corpus();
    if corpus {
        files.extend(util::files_under(&util::shared("traces/kineto")));
    }
    assert!(files.len() > 40, "{} files", files.len());
    let dir = std::env::temp_dir().join(format!("kinetoscope-split-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let mut split_files = 0;
    for (i, f) in files.iter().enumerate() {
        let read = |split: bool| {
            let out = dir.join(format!("{i}-{split}.kpartial"));
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kinetoscope"));
            cmd.args(["analyze", f.to_str().expect("UTF-8 path"), "--partial", out.to_str().expect("UTF-8 path")]);
            // small blocks: a hand-made file is cut many times
            cmd.env("KINETOSCOPE_SPLIT_FROM", if split { "0" } else { "99999999999999" }).env("KINETOSCOPE_SPLIT_BLOCK", "997");
            let o = cmd.output().expect("run kinetoscope");
            let stderr = String::from_utf8_lossy(&o.stderr).replace(out.to_str().expect("UTF-8 path"), "OUT");
            (o.status.code(), stderr, std::fs::read(&out).ok())
        };
        let (whole, split) = (read(false), read(true));
        eqnice!(format!("{:?} {}", whole.0, whole.1), format!("{:?} {}", split.0, split.1));
        assert!(whole.2 == split.2, "{}: the split read differs from the whole read", f.display());
        split_files += usize::from(whole.2.is_some());
    }
    assert!(split_files > 30, "{split_files} files read");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Gzip files of the few bytes a gzip bomb repeats (whitespace, `{},`, `{ },`, `{"a":1},`,
/// `null,`; 6 MiB of content each, then one event), read by the CLI whole and in its own blocks
/// (2 MiB, larger than the room a pending block is first given): the same rank, with every
/// element counted.
#[test]
fn cli_reads_gzip_bombs_whole_and_in_its_blocks() {
    let dir = std::env::temp_dir().join(format!("kinetoscope-bombs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let units: [(&str, &str); 5] = [
        ("   ", "1 events in 1 rank(s)"),
        ("{},", "1 events in 1 rank(s)"),
        ("{ },", "1 events in 1 rank(s)"),
        (r#"{"a":1},"#, "786,433 events in 1 rank(s)"),
        ("null,", "1 events in 1 rank(s)"),
    ];
    for (k, (unit, first_line)) in units.iter().enumerate() {
        let mut json = b"{\"traceEvents\": [".to_vec();
        json.extend(unit.as_bytes().repeat((6 << 20) / unit.len()));
        json.extend_from_slice(br#"{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1, "dur": 2}]}"#);
        let gz = dir.join(format!("bomb{k}.json.gz"));
        std::fs::write(&gz, kinetoscope::export::gzip(&json)).expect("write");
        let read = |split: bool, args: &[&str]| {
            let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_kinetoscope"));
            cmd.args(args).env("KINETOSCOPE_SPLIT_FROM", if split { "0" } else { "99999999999999" });
            let o = cmd.output().expect("run kinetoscope");
            assert!(o.status.success(), "{unit:?}: {}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8_lossy(&o.stdout).into_owned()
        };
        let p = gz.to_str().expect("UTF-8 path");
        for split in [false, true] {
            let info = read(split, &["info", p]);
            assert!(info.starts_with(first_line), "{unit:?}, split {split}: {info}");
            assert!(!info.contains("truncated"), "{unit:?}, split {split}: {info}");
        }
        let partial = |split: bool| {
            let out = dir.join(format!("bomb{k}-{split}.kpartial"));
            read(split, &["analyze", p, "--partial", out.to_str().expect("UTF-8 path")]);
            std::fs::read(&out).expect("partial written")
        };
        assert!(partial(false) == partial(true), "{unit:?}: the split read differs from the whole read");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn names_and_threads_past_65536_read_whole_and_in_blocks() {
    // 70,000 distinct names and tids: the model's id columns start at 2 bytes a row and widen at
    // the first id past 65,535, in one pass and when blocks are merged
    let n = 70_000;
    let events: Vec<String> = (0..n)
        .map(|i| format!(r#"{{"ph": "X", "cat": "cpu_op", "name": "op{i}", "ts": {i}, "dur": 1, "pid": 1, "tid": {}}}"#, i + 100))
        .collect();
    let doc = format!(r#"{{"traceEvents": [{}]}}"#, events.join(",")).into_bytes();
    let whole = read_bytes("ids.json", &doc, 1 << 20).unwrap();
    let ev = &whole.events;
    assert_eq!(ev.len(), n);
    for e in [0, 65_533, 65_534, 65_535, n - 1] {
        assert_eq!(whole.strings.get(ev.name.get(e)), format!("op{e}"));
        assert_eq!(whole.id_text(ev.tid.get(e)), (e + 100).to_string());
        assert_eq!(whole.id_text(ev.pid.get(e)), "1");
    }
    for split in [Split::Content, Split::Ranges { margin: 4096 }] {
        let what = format!("{split:?}");
        assert_identical(&what, &whole, &read_split("ids.json", &doc, 1 << 16, 256 << 10, split).unwrap());
    }
}
