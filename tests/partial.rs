//! `analyze --partial` + `merge` write exactly what one `analyze` of all the files writes (every
//! file, byte for byte), on hand-made sets and on corpus sets; and every refusal's message.
//! The binary runs in `testdata/` so the file names it stores are the short relative ones.

use std::path::{Path, PathBuf};

use crate::{eqnice, util};

use util::run_cli as run;

use util::stderr_of as stderr;

/// Runs the binary and requires success.
fn ok(args: &[&str]) {
    let o = run(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
}

/// A fresh scratch folder for test `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kinetoscope-partial-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 path")
}

/// Asserts two output folders hold the same files with the same bytes.
fn assert_same_folders(a: &Path, b: &Path) {
    let names = |d: &Path| -> Vec<String> {
        util::files_under(d).iter().map(|f| f.strip_prefix(d).expect("under").to_string_lossy().to_string()).collect()
    };
    let (na, nb) = (names(a), names(b));
    eqnice!(na.join("\n"), nb.join("\n"));
    assert!(na.len() > 10, "too few outputs in {}: {na:?}", a.display());
    for n in &na {
        if util::bytes(&a.join(n)) != util::bytes(&b.join(n)) {
            panic!("{n} differs between {} and {}", a.display(), b.display());
        }
    }
}

/// `analyze PATHS --out A OPTIONS` against one partial per group of `chunks` merged in order
/// with `OPTIONS`: the same folder.
fn same_as_analyze(name: &str, paths: &[&str], chunks: &[&[&str]], options: &[&str]) {
    let dir = scratch(name);
    let whole = dir.join("whole");
    ok(&[&["analyze"], paths, &["--out", s(&whole)], options].concat());
    let mut merge = vec!["merge".to_string()];
    for (i, chunk) in chunks.iter().enumerate() {
        let part = dir.join(format!("part{i}.kpartial"));
        ok(&[&["analyze"], *chunk, &["--partial", s(&part)]].concat());
        merge.push(s(&part).to_string());
    }
    let merged = dir.join("merged");
    merge.extend(["--out".to_string(), s(&merged).to_string()]);
    merge.extend(options.iter().map(|o| o.to_string()));
    ok(&merge.iter().map(String::as_str).collect::<Vec<_>>());
    assert_same_folders(&whole, &merged);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `analyze PATHS --chunk K/N --partial` for every K, merged in order: the same folder as one
/// `analyze PATHS`.
fn chunks_same_as_analyze(name: &str, paths: &[&str], n: usize, options: &[&str]) {
    let dir = scratch(name);
    let whole = dir.join("whole");
    ok(&[&["analyze"], paths, &["--out", s(&whole)], options].concat());
    let parts: Vec<String> = (0..n).map(|k| s(&dir.join(format!("{k}.kpartial"))).to_string()).collect();
    for (k, part) in parts.iter().enumerate() {
        let chunk = format!("{k}/{n}");
        ok(&[&["analyze"], paths, &["--chunk", &chunk, "--partial", part]].concat());
    }
    let merged = dir.join("merged");
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    ok(&[&["merge"], &parts[..], &["--out", s(&merged)], options].concat());
    assert_same_folders(&whole, &merged);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Ranks from distributedInfo: one partial per file, and a folder in chunks.
#[test]
fn ranks_from_distributed_info() {
    let files = ["diff/ranks/rank0.json", "diff/ranks/rank1.json", "diff/ranks/rank2.json"];
    same_as_analyze("dist", &files, &[&files[..1], &files[1..2], &files[2..]], &[]);
    chunks_same_as_analyze("dist-chunks", &["diff/ranks"], 2, &["--hta"]);
}

/// Ranks from the file order (no distributedInfo, no rank in the names); every sparse column
/// (int args, counters, name suffixes, CUPTI range args) goes through a partial.
#[test]
fn ranks_from_file_order() {
    let files = [
        "analysis/kernels.json",
        "analysis/counters.json",
        "paddle/profile-steps.json",
        "analysis/cupti.json",
        "kineto/vocab-new.json",
        "analysis/memory_bw.json",
    ];
    same_as_analyze("order", &files, &[&files[..2], &files[2..3], &files[3..]], &[]);
    same_as_analyze(
        "order-options",
        &files,
        &[&files[..3], &files[3..]],
        &["--ranks", "1-3", "--no-charts", "--option", "patterns.long_gap_us=10"],
    );
}

/// A rocprofv3 CSV set whose process's tables are in two partials: merged into one rank at the
/// merge, as in one read.
#[test]
fn rocprof_v3_process_split_over_partials() {
    let dir = "rocprof/v3";
    let files = [
        "rocprof/v3/4242_hip_api_trace.csv",
        "rocprof/v3/4242_kernel_trace.csv",
        "rocprof/v3/4242_memory_copy_trace.csv",
        "rocprof/v3/5151_kernel_trace.csv",
    ];
    same_as_analyze("rocprof", &[dir], &[&files[..2], &files[2..]], &[]);
}

/// A Recorder folder is one unit; analyze reads Recorder folders first whatever their place, and
/// so does merge.
#[test]
fn recorder_folder_and_a_kineto_file() {
    let (kineto, recorder) = ("analysis/kernels.json", "recorder/gen-4ranks");
    same_as_analyze("recorder", &[kineto, recorder], &[&[kineto], &[recorder]], &[]);
}

/// Corpus: a two-rank Kineto set in 2 partials, default and --hta; a Recorder folder as one
/// partial.
#[test]
fn corpus_sets() {
    if util::skip_without_corpus() {
        return;
    }
    let set = util::shared("traces/hta/trace_filter");
    for options in [&[][..], &["--hta"][..]] {
        chunks_same_as_analyze("corpus-kineto", &[s(&set)], 2, options);
    }
    let recorder = util::shared("traces/recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb");
    chunks_same_as_analyze("corpus-recorder", &[s(&recorder)], 1, &[]);
}

/// Every refusal, with its message.
#[test]
fn refusals() {
    let dir = scratch("refusals");
    let p = |n: &str| s(&dir.join(n)).to_string();
    let out = p("out");
    let fails = |args: &[&str], message: &str| {
        let o = run(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(message), "{args:?}:\n{}\nshould contain\n{message}", stderr(&o));
    };
    let (a, b) = ("diff/ranks/rank0.json", "diff/ranks/rank1.json");
    ok(&["analyze", a, b, "--partial", &p("ab.kpartial")]);
    ok(&["analyze", b, "--partial", &p("b.kpartial")]);
    fails(
        &["merge", &p("ab.kpartial"), &p("b.kpartial"), "--out", &out],
        &format!("{b} is in two partials, {} and {}", p("ab.kpartial"), p("b.kpartial")),
    );
    fails(&["merge", &p("b.kpartial"), &p("b.kpartial"), "--out", &out], &format!("{} is given twice", p("b.kpartial")));
    // diff/ranks/rank0.json and analysis/stragglers/rank0.json both claim rank 0
    ok(&["analyze", "analysis/stragglers/rank0.json", "--partial", &p("s0.kpartial")]);
    fails(
        &["merge", &p("ab.kpartial"), &p("s0.kpartial"), "--out", &out],
        &format!("rank 0 is claimed by {a} in {} and by analysis/stragglers/rank0.json in {}", p("ab.kpartial"), p("s0.kpartial")),
    );
    // another format version, not a partial, truncated
    let mut bytes = util::bytes(&dir.join("b.kpartial"));
    bytes[20] = 2;
    std::fs::write(dir.join("v2.kpartial"), &bytes).expect("write");
    fails(
        &["merge", &p("v2.kpartial"), "--out", &out],
        &format!("kinetoscope: {}: partial format version 2 (written by kinetoscope {v}), this kinetoscope ({v}) reads version 1; write the partials and merge with the same kinetoscope version", p("v2.kpartial"), v = env!("CARGO_PKG_VERSION")),
    );
    fails(&["merge", a, "--out", &out], &format!("kinetoscope: {a}: not a kinetoscope partial"));
    bytes[20] = 1;
    std::fs::write(dir.join("cut.kpartial"), &bytes[..bytes.len() - 10]).expect("write");
    fails(&["merge", &p("cut.kpartial"), "--out", &out], &format!("kinetoscope: {}: byte ", p("cut.kpartial")));
    fails(&["merge", &p("cut.kpartial"), "--out", &out], "(the partial is truncated or damaged)");
    fails(&["merge", &p("missing.kpartial"), "--out", &out], &format!("kinetoscope: {}: cannot read", p("missing.kpartial")));
    // options: --out xor --partial; the analyses' options belong to merge
    fails(&["analyze", a, "--partial", &p("x"), "--out", &out], "error: the argument '--partial <FILE>' cannot be used with '--out <DIR>'");
    fails(&["analyze", a], "error: the following required arguments were not provided:\n  --out <DIR>");
    for option in [&["--hta"][..], &["--ranks", "0"], &["--no-charts"], &["--option", "patterns.long_gap_us=1"]] {
        let message = format!("kinetoscope: {} is an option of `kinetoscope merge`, not of `analyze --partial`", option[0]);
        fails(&[&["analyze", a, "--partial", &p("x")], option].concat(), &message);
    }
    fails(&["analyze", a, "--chunk", "0/2", "--out", &out], "error: the argument '--chunk <K/N>' cannot be used with '--out <DIR>'");
    fails(&["analyze", a, "--chunk", "2/2", "--partial", &p("x")], "expected K/N with 0 <= K < N");
    assert!(!dir.join("x").exists() && !dir.join("out").exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A chunk with no input (more chunks than files) is an empty partial; merging it changes nothing.
#[test]
fn empty_chunks() {
    chunks_same_as_analyze("empty-chunks", &["diff/ranks/rank0.json", "diff/ranks/rank1.json"], 3, &[]);
}
