//! Recorder HPC I/O traces (`kinetoscope::read::recorder`): every shared trace equals its
//! recorder2text output, hand-made folders in each binary layout, and damage.

use std::path::Path;

use kinetoscope::read::recorder::grammar::{parse_grammar, Grammar};
use kinetoscope::read::recorder::layout::{gotcha_ticks, parse_ug_map};
use kinetoscope::read::recorder::{decode, to_text, RecorderTrace};

use crate::{eqnice, util};

/// The folders under `../shared/traces/recorder/` that have a `_text/` oracle.
const TRACES: [&str; 3] = [
    "io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb",
    "io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb.interprocess_tid",
    "io_posix_mpiio_hdf5_4ranks.gotcha-a62d702",
];

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

/// The generated trace of testdata (scripts/bench/gen_recorder.py), with the real recorder2text's
/// output as its oracle: always here, corpus or not.
#[test]
fn generated_trace_equals_recorder2text() {
    let files = folder_files(&util::testdata("recorder/gen-4ranks"));
    assert_equals_oracle("gen-4ranks", &files, str::to_string);
}

#[test]
fn per_rank_pilgrim_trace_equals_recorder2text() {
    if util::skip_without_corpus() {
        return;
    }
    let files = folder_files(&util::shared(&format!("traces/recorder/{}", TRACES[0])));
    assert_equals_oracle(TRACES[0], &files, str::to_string);
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

/// The timestamp index the gotcha reader gives each call: its `rule_application` takes the
/// timestamp pointer by value, so every repetition of a sub-rule starts at the same timestamp and
/// the caller goes on from where it was before the sub-rule (tools/reader.c @ a62d702).
fn gotcha_reader_ts_indices(g: &Grammar, rule: i32, mut pos: usize, out: &mut Vec<usize>) {
    for s in &g.rules[&rule] {
        for _ in 0..s.exp {
            if s.val >= 0 {
                out.push(pos);
                pos += 1;
            } else {
                gotcha_reader_ts_indices(g, s.val, pos, out);
            }
        }
    }
}

/// The zlib blocks of a gotcha file, inflated, one by one.
fn gotcha_blocks(mut data: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    while !data.is_empty() {
        let size = u64::from_le_bytes(data[..8].try_into().unwrap()) as usize;
        out.push(miniz_oxide::inflate::decompress_to_vec_zlib(&data[16..16 + size]).expect("zlib"));
        data = &data[16 + size..];
    }
    out
}

/// A gotcha zlib block.
fn gotcha_block(data: &[u8]) -> Vec<u8> {
    let z = miniz_oxide::deflate::compress_to_vec_zlib(data, 6);
    let mut v = (z.len() as u64).to_le_bytes().to_vec();
    v.extend((data.len() as u64).to_le_bytes());
    v.extend(z);
    v
}

/// The gotcha trace's calls are right in order and content; its oracle's times come from the
/// gotcha reader's by-value timestamp pointer. Rewriting `recorder.ts` so that call k holds the
/// pair that reader used for it reproduces the oracle byte for byte.
#[test]
fn gotcha_trace_equals_recorder2text_with_its_timestamp_bug() {
    if util::skip_without_corpus() {
        return;
    }
    let t = TRACES[2];
    let files = folder_files(&util::shared(&format!("traces/recorder/{t}")));
    assert_equals_oracle(t, &files, without_times);
    let get = |name: &str| files.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("{name}")).1.clone();
    let (ug_ids, _) = parse_ug_map(&get("ug.mt"), 4).unwrap();
    let grammars: Vec<Grammar> = gotcha_blocks(&get("ug.cfg")).iter().map(|b| parse_grammar("ug.cfg", b).unwrap()).collect();
    let ticks = gotcha_ticks(&get("recorder.ts"), 4, true).unwrap();
    let mut sizes = Vec::new();
    let mut bodies = Vec::new();
    for (rank, pairs) in ticks.iter().enumerate() {
        let mut idx = Vec::new();
        gotcha_reader_ts_indices(&grammars[ug_ids[rank]], -1, 0, &mut idx);
        let raw: Vec<u8> = idx.iter().flat_map(|&i| [pairs[i].0, pairs[i].1]).flat_map(u32::to_le_bytes).collect();
        let block = gotcha_block(&raw);
        sizes.extend((block.len() as u64).to_le_bytes());
        bodies.extend(block);
    }
    sizes.extend(bodies);
    let rewritten: Vec<(String, Vec<u8>)> =
        files.iter().map(|(n, b)| (n.clone(), if n == "recorder.ts" { sizes.clone() } else { b.clone() })).collect();
    assert_equals_oracle(t, &rewritten, str::to_string);
}

// ---- hand-made folders: a writer for each binary layout ----

/// Function names of the hand-made traces: ids 0–1 POSIX, 2 MPI-IO, 3 MPI, 4 HDF5.
const NAMES: [&str; 5] = ["open", "write", "MPI_File_open", "MPI_Barrier", "H5Fcreate"];

/// A call signature: (tid, func_id, depth, args).
pub(crate) type Sig<'a> = (u64, u8, u8, &'a [&'a str]);

/// `ints` as little-endian bytes.
pub(crate) fn le(ints: &[i32]) -> Vec<u8> {
    ints.iter().flat_map(|i| i.to_le_bytes()).collect()
}

/// A CST as `serialize_cst` writes it (entries in reverse terminal order, as a hash table may).
pub(crate) fn cst_bytes(sigs: &[Sig]) -> Vec<u8> {
    let mut out = le(&[sigs.len() as i32]);
    for (id, (tid, func, depth, args)) in sigs.iter().enumerate().rev() {
        let text: String = args.iter().map(|a| format!("{a} ")).collect();
        let mut key = tid.to_le_bytes().to_vec();
        key.extend([*func, *depth, args.len() as u8]);
        key.extend(le(&[text.len() as i32]));
        key.extend(text.as_bytes());
        out.extend(le(&[id as i32, 0, key.len() as i32, 1]));
        out.extend(key);
    }
    out
}

/// A grammar as `serialize_grammar` writes it.
pub(crate) fn cfg_bytes(rules: &[(i32, &[(i32, i32)])]) -> Vec<u8> {
    let mut ints = vec![rules.len() as i32];
    for (id, body) in rules {
        ints.extend([*id, body.len() as i32]);
        ints.extend(body.iter().flat_map(|&(v, e)| [v, e]));
    }
    le(&ints)
}

/// Timestamp pairs as raw `uint32_t`s.
pub(crate) fn ts_bytes(pairs: &[(u32, u32)]) -> Vec<u8> {
    pairs.iter().flat_map(|&(a, b)| [a, b]).flat_map(u32::to_le_bytes).collect()
}

/// `recorder.mt`: the layout's 40-byte header (start 1000 s, 1e-7 s ticks), then [`NAMES`].
pub(crate) fn mt_bytes(gotcha: bool, ranks: i32, interprocess: bool) -> Vec<u8> {
    let mut h = le(&[ranks]);
    if gotcha {
        h.extend([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);
        h.extend(1000f64.to_le_bytes());
        h.extend(1e-7f64.to_le_bytes());
        h.extend(le(&[262144]));
        h.extend([1, interprocess as u8, 0, 0]);
    } else {
        h.extend([0; 4]);
        h.extend(1000f64.to_le_bytes());
        h.extend(1e-7f64.to_le_bytes());
        h.extend(le(&[262144, 0, interprocess as i32, 0]));
    }
    for n in NAMES {
        h.extend(format!("{n}\n").as_bytes());
    }
    h
}

/// Decodes hand-made `files` and prints every rank.
fn texts(files: Vec<(&str, Vec<u8>)>) -> Vec<String> {
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    decode(&refs).unwrap_or_else(|e| panic!("{e}")).ranks.iter().map(to_text).collect()
}

/// Two signatures shared by the hand-made traces.
const OPEN: Sig = (0, 0, 0, &["/tmp/a", "577", "420"]);
/// A write inside an MPI-IO call (depth 1).
const WRITE: Sig = (0, 1, 1, &["/tmp/a", "%p", "4096"]);

#[test]
fn hand_made_pilgrim_per_rank() {
    let mpi: Sig = (0, 3, 0, &["MPI_COMM_WORLD"]);
    let h5: Sig = (0, 4, 0, &["/tmp/b.h5", "0", "0", "0"]);
    let files = vec![
        ("VERSION", b"2.5.0".to_vec()),
        ("recorder.mt", mt_bytes(false, 2, false)),
        ("0.cst", cst_bytes(&[OPEN, WRITE, mpi])),
        // -1 -> 0 (-2)^2 2 ; -2 -> 1
        ("0.cfg", cfg_bytes(&[(-1, &[(0, 1), (-2, 2), (2, 1)]), (-2, &[(1, 1)])])),
        ("0.ts", ts_bytes(&[(10, 25), (20, 21), (5, 9), (100, 100)])),
        ("1.cst", cst_bytes(&[h5])),
        ("1.cfg", cfg_bytes(&[(-1, &[(0, 1)])])),
        ("1.ts", ts_bytes(&[(7, 12345678)])),
        ("_text/0.txt", b"ignored".to_vec()),
    ];
    let t = texts(files);
    eqnice!(
        "0.0000010 0.0000025 open 0 0 ( /tmp/a 577 420 )\n\
         0.0000030 0.0000031 write 1 0 ( /tmp/a %p 4096 )\n\
         0.0000035 0.0000039 write 1 0 ( /tmp/a %p 4096 )\n\
         0.0000135 0.0000135 MPI_Barrier 0 2 ( MPI_COMM_WORLD )\n",
        t[0]
    );
    eqnice!("0.0000007 1.2345678 H5Fcreate 0 3 ( /tmp/b.h5 0 0 0 )\n", t[1]);
}

/// Recorder 2.4 writes the pilgrim files; 2.3 a 32-byte `recorder.mt` header (no
/// `interprocess_compression`) and per-rank tables whose entries have no rank and count
/// (`serialize_cst_local` at v2.3.3).
#[test]
fn hand_made_2_3_and_2_4_traces() {
    let files_of = |version: &[u8], mt: Vec<u8>, cst: Vec<u8>| {
        vec![
            ("VERSION", version.to_vec()),
            ("recorder.mt", mt),
            ("0.cst", cst),
            ("0.cfg", cfg_bytes(&[(-1, &[(0, 1), (1, 2)])])),
            ("0.ts", ts_bytes(&[(10, 25), (20, 21), (5, 9)])),
        ]
    };
    let want = "0.0000010 0.0000025 open 0 0 ( /tmp/a 577 420 )\n\
                0.0000030 0.0000031 write 1 0 ( /tmp/a %p 4096 )\n\
                0.0000035 0.0000039 write 1 0 ( /tmp/a %p 4096 )\n";
    let t = texts(files_of(b"2.4.0", mt_bytes(false, 1, false), cst_bytes(&[OPEN, WRITE])));
    eqnice!(want, t[0]);
    // 2.3: the header without its last 8 bytes (interprocess_compression and padding)
    let mut mt = mt_bytes(false, 1, false);
    mt.drain(32..40);
    let cst_2_3: Vec<u8> = {
        // each entry: terminal_id, key_len, key (no rank, no count)
        let full = cst_bytes(&[OPEN, WRITE]);
        let mut out = full[..4].to_vec();
        let mut at = 4;
        while at < full.len() {
            let int = |i: usize| i32::from_le_bytes(full[i..i + 4].try_into().unwrap());
            let key_len = int(at + 8) as usize;
            out.extend(&full[at..at + 4]);
            out.extend(&full[at + 8..at + 12]);
            out.extend(&full[at + 16..at + 16 + key_len]);
            at += 16 + key_len;
        }
        out
    };
    let t = texts(files_of(b"2.3.3", mt, cst_2_3));
    eqnice!(want, t[0]);
}

#[test]
fn hand_made_pilgrim_interprocess_with_thread_ids() {
    let mpiio: Sig = (140001, 2, 0, &["MPI_COMM_WORLD", "/tmp/a", "5", "MPI_INFO_NULL", "%p"]);
    let files = vec![
        ("VERSION", b"2.5.1".to_vec()),
        ("recorder.mt", mt_bytes(false, 3, true)),
        ("0.cst", cst_bytes(&[mpiio, OPEN])),
        ("ug.mt", le(&[0, 1, 0, 2])),
        ("0.cfg", cfg_bytes(&[(-1, &[(0, 1), (1, 1)])])),
        ("1.cfg", cfg_bytes(&[(-1, &[(1, 2)])])),
        ("0.ts", ts_bytes(&[(1, 2), (3, 4)])),
        ("1.ts", ts_bytes(&[(5, 6), (7, 8)])),
        ("2.ts", ts_bytes(&[(9, 10), (11, 12)])),
    ];
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let trace = decode(&refs).unwrap();
    assert_eq!(trace.ranks[0].records[0].call.tid, 140001);
    assert_eq!((trace.end_ticks(), trace.meta.flags.interprocess_compression), (21, true));
    let t: Vec<String> = trace.ranks.iter().map(to_text).collect();
    eqnice!("0.0000001 0.0000002 MPI_File_open 0 1 ( MPI_COMM_WORLD /tmp/a 5 MPI_INFO_NULL %p )\n0.0000004 0.0000005 open 0 0 ( /tmp/a 577 420 )\n", t[0]);
    eqnice!("0.0000005 0.0000006 open 0 0 ( /tmp/a 577 420 )\n0.0000012 0.0000013 open 0 0 ( /tmp/a 577 420 )\n", t[1]);
    eqnice!("0.0000009 0.0000010 MPI_File_open 0 1 ( MPI_COMM_WORLD /tmp/a 5 MPI_INFO_NULL %p )\n0.0000020 0.0000021 open 0 0 ( /tmp/a 577 420 )\n", t[2]);
}

/// `recorder.ts` of the gotcha layout: the ranks' byte counts, then their zlib blocks (rank 1's
/// timestamps in two blocks, as two buffer flushes write them).
fn gotcha_ts(ranks: &[Vec<Vec<(u32, u32)>>]) -> Vec<u8> {
    let bodies: Vec<Vec<u8>> = ranks.iter().map(|flushes| flushes.iter().flat_map(|f| gotcha_block(&ts_bytes(f))).collect()).collect();
    let mut out: Vec<u8> = bodies.iter().flat_map(|b| (b.len() as u64).to_le_bytes()).collect();
    out.extend(bodies.concat());
    out
}

#[test]
fn hand_made_gotcha_zlib_blocks() {
    let user: Sig = (0, 255, 0, &["1", "my_solver"]);
    let files = vec![
        ("VERSION", b"2.5.0".to_vec()),
        ("recorder.mt", mt_bytes(true, 2, true)),
        ("recorder.cst", gotcha_block(&cst_bytes(&[OPEN, WRITE, user]))),
        ("ug.mt", le(&[0, 1, 2])),
        ("ug.cfg", [gotcha_block(&cfg_bytes(&[(-1, &[(2, 1)])])), gotcha_block(&cfg_bytes(&[(-1, &[(0, 1), (1, 2)])]))].concat()),
        ("recorder.ts", gotcha_ts(&[vec![vec![(3, 30)]], vec![vec![(1, 2), (2, 2)], vec![(4, 6)]]])),
    ];
    let t = texts(files);
    eqnice!("0.0000003 0.0000030 my_solver 0 4 ( )\n", t[0]);
    eqnice!(
        "0.0000001 0.0000002 open 0 0 ( /tmp/a 577 420 )\n\
         0.0000003 0.0000003 write 1 0 ( /tmp/a %p 4096 )\n\
         0.0000007 0.0000009 write 1 0 ( /tmp/a %p 4096 )\n",
        t[1]
    );
}

// ---- what a folder that cannot be read says ----

/// The error message of decoding `files`.
fn error_of(files: &[(&str, &[u8])]) -> String {
    decode(files).map(|_| "decoded".to_string()).unwrap_or_else(|e| e.to_string())
}

#[test]
fn folders_that_are_not_read_say_why() {
    assert_eq!(
        error_of(&[("trace.json", b"{}"), ("_text/0.txt", b"")]),
        "not a Recorder trace: expected recorder.mt (with VERSION and the rank files) in the folder; found trace.json"
    );
    assert!(error_of(&[("0.mt", b"open 0\n"), ("0.itf", b"")])
        .starts_with("a pre-2.0 Recorder text trace (0.mt + 0.itf) is not read; this reader reads Recorder 2.3, 2.4 and 2.5"));
    let mt = mt_bytes(false, 2, false);
    assert_eq!(error_of(&[("recorder.mt", &mt)]), "VERSION: missing file (the Recorder version, written beside recorder.mt)");
    assert!(error_of(&[("recorder.mt", &mt), ("VERSION", b"2.2.1")]).starts_with("VERSION: unsupported Recorder version \"2.2.1\""));
    let cst = cst_bytes(&[OPEN]);
    let cfg = cfg_bytes(&[(-1, &[(0, 1)])]);
    let base: Vec<(&str, &[u8])> =
        vec![("recorder.mt", &mt), ("VERSION", b"2.5.0"), ("0.cst", &cst), ("0.cfg", &cfg), ("0.ts", &[0; 8]), ("1.cst", &cst)];
    assert_eq!(error_of(&base), "1.cfg: missing file (rank 1's grammar)");
    let mut more = base.clone();
    more.push(("1.cfg", &cfg));
    assert_eq!(error_of(&more), "1.ts: missing file (rank 1's timestamps)");
    more.push(("1.ts", &[]));
    assert_eq!(error_of(&more), "1.cfg: corrupt: the grammar expands to 1 calls but there are timestamps for only 0");
}

/// Every file of every shared trace cut at many lengths decodes or fails with an error; never a panic.
#[test]
fn truncated_shared_files_never_panic() {
    if util::skip_without_corpus() {
        return;
    }
    for t in TRACES {
        let files = folder_files(&util::shared(&format!("traces/recorder/{t}")));
        let mut errors = 0;
        for (i, (name, bytes)) in files.iter().enumerate() {
            if name.contains('/') {
                continue;
            }
            let step = (bytes.len() / 97).max(1);
            for cut in (0..bytes.len()).step_by(step) {
                let mut damaged = files.clone();
                damaged[i].1.truncate(cut);
                if decode_owned(&damaged).is_err() {
                    errors += 1;
                }
            }
        }
        assert!(errors > 100, "{t}: only {errors} truncations were errors");
    }
}

/// Into the model: one rank per Recorder rank, one complete event per recorder2text line with
/// its function as name, its layer as category and ` ( args )` as name suffix; on the per-rank
/// pilgrim trace (whose oracle times are right) every start and end is recorder2text's seconds
/// in ns. The CLI reads the folder as one trace.
#[test]
fn records_enter_the_model_as_recorder2text_prints_them() {
    if util::skip_without_corpus() {
        return;
    }
    for name in TRACES {
        let dir = util::shared(&format!("traces/recorder/{name}"));
        let files = folder_files(&dir);
        let trace = decode_owned(&files).expect("decodes");
        let ranks = kinetoscope::read::recorder::model::to_ranks(&trace, name, 1);
        assert_eq!(ranks.len(), trace.ranks.len());
        for r in &ranks {
            let text = oracle(&files, r.rank as usize);
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(r.events.len(), lines.len(), "{name} rank {}", r.rank);
            for (e, line) in lines.iter().enumerate() {
                // `start end func depth layer ( args )`
                let f: Vec<&str> = line.split(' ').collect();
                let got = r.full_name(e as u32);
                assert_eq!(got.split(' ').next(), Some(f[2]), "{name} rank {} line {e}", r.rank);
                let args = line.split_once(" ( ").map(|(_, a)| format!(" ( {a}")).unwrap_or_default();
                assert_eq!(&got[f[2].len()..], args, "{name} rank {} line {e}", r.rank);
                if name.ends_with("pilgrim-c1c3dcb") {
                    let ns = |s: &str| (s.parse::<f64>().unwrap() * 1e9).round() as i64;
                    assert_eq!(
                        (r.events.ts[e], r.events.ts[e] + r.events.dur.get(e)),
                        (ns(f[0]), ns(f[1])),
                        "{name} rank {} line {e}",
                        r.rank
                    );
                }
            }
        }
    }
}
