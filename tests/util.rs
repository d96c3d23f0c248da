//! Shared test helpers.
#![allow(dead_code)]

use std::path::PathBuf;

/// A xorshift64 generator from `seed`: each call gives a number below its argument (the
/// randomized tests' inputs, the same on every run).
pub fn xorshift(mut seed: u64) -> impl FnMut(u64) -> u64 {
    move |m| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    }
}

/// Repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `testdata/<rel>`.
pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

/// The corpus folder (`traces/` and `hta-oracle/`): `$KINETOSCOPE_SHARED`, else `../shared` beside
/// the checkout (where CI puts it).
pub fn shared_root() -> PathBuf {
    match std::env::var_os("KINETOSCOPE_SHARED") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => root().join("..").join("shared"),
    }
}

/// `<corpus>/<rel>`. Tests that read the corpus start with [`skip_without_corpus`].
pub fn shared(rel: &str) -> PathBuf {
    shared_root().join(rel)
}

/// True (the test should return at once) when the corpus is not there, after saying so: on
/// stderr, and as one line in the file `$KINETOSCOPE_SKIP_LOG` names (`scripts/test.sh` counts
/// them). With `KINETOSCOPE_REQUIRE_CORPUS=1` (CI) a missing corpus fails the test instead, so a
/// run can never pass by skipping.
pub fn skip_without_corpus() -> bool {
    let dir = shared_root();
    if dir.join("traces").is_dir() && dir.join("hta-oracle").is_dir() {
        return false;
    }
    let test = std::thread::current().name().unwrap_or("?").to_string();
    if std::env::var("KINETOSCOPE_REQUIRE_CORPUS").is_ok_and(|v| v == "1") {
        panic!("{test}: the corpus is required (KINETOSCOPE_REQUIRE_CORPUS=1) but {} has no traces/ and hta-oracle/", dir.display());
    }
    eprintln!("SKIPPED {test}: no corpus at {} (set KINETOSCOPE_SHARED)", dir.display());
    if let Some(log) = std::env::var_os("KINETOSCOPE_SKIP_LOG") {
        use std::io::Write;
        // one write of the whole line: tests run in parallel threads and append to one file
        if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(log) {
            let _ = f.write_all(format!("rust {test}\n").as_bytes());
        }
    }
    true
}

/// Every file under `dir`, at any depth, sorted.
pub fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let p = e.unwrap_or_else(|e| panic!("{}: {e}", d.display())).path();
            if p.is_dir() {
                stack.push(p);
            } else {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// Reads `testdata/<dir>/<name>` for each of `names` into one trace (the names as the files'
/// names, so a rocprofv3 process's tables merge as they do from a folder).
pub fn read_testdata(dir: &str, names: &[&str]) -> kinetoscope::Trace {
    let files: Vec<(String, Vec<u8>)> = names.iter().map(|n| (n.to_string(), bytes(&testdata(&format!("{dir}/{n}"))))).collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    kinetoscope::read::read_all(&refs).unwrap_or_else(|e| panic!("{dir} {names:?}: {e}"))
}

/// Reads a file fully.
pub fn bytes(p: &std::path::Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// gunzips if needed (test-only, whole file in memory).
pub fn gunzip_if_needed(b: Vec<u8>) -> Vec<u8> {
    if b.len() > 2 && b[0] == 0x1f && b[1] == 0x8b {
        miniz_oxide_gunzip(&b)
    } else {
        b
    }
}

fn miniz_oxide_gunzip(b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut g = kinetoscope::read::inflate::GzipInflater::default();
    g.push(b, &mut |d| {
        out.extend_from_slice(d);
        Ok(())
    })
    .expect("gzip");
    out
}

/// Chunk sizes every reader test sweeps (tiny chunks glue events across boundaries).
pub const CHUNKS: [usize; 4] = [1, 7, 4096, 1 << 20];

/// Asserts two texts are equal, printing both between rulers when not.
#[macro_export]
macro_rules! eqnice {
    ($expected:expr, $got:expr) => {{
        let (e, g) = (&$expected, &$got);
        if e != g {
            panic!("\nexpected:\n~~~\n{}\n~~~\ngot:\n~~~\n{}\n~~~\n", e, g);
        }
    }};
}

// ---- reader helpers (read_kineto, read_testdata, cli) ----

use kinetoscope::model::events::flags;
use kinetoscope::model::{IdValue, NONE};
use kinetoscope::{RankTrace, ReadError};

/// Chunk sizes of [`CHUNKS`] worth sweeping for an input of `len` bytes: 1-byte chunks only below
/// 300 KB and 7-byte chunks only below 3 MB (they are slow on the multi-MB files).
pub fn chunks_for(len: usize) -> Vec<usize> {
    CHUNKS
        .iter()
        .copied()
        .filter(|&c| match c {
            1 => len < 300_000,
            7 => len < 3_000_000,
            _ => true,
        })
        .collect()
}

/// Reads `bytes` as the file `name`, pushed in `chunk`-byte pieces.
pub fn read_chunked(name: &str, b: &[u8], chunk: usize) -> Result<RankTrace, ReadError> {
    kinetoscope::read::read_bytes(name, b, chunk)
}

/// A pid/tid as the file wrote it: integers bare, strings quoted (`13006` vs `"13006"`).
pub fn id_shown(r: &RankTrace, i: u32) -> String {
    match r.ids.get(i) {
        Some(IdValue::Int(v)) => v.to_string(),
        Some(IdValue::Str(s)) => format!("{:?}", r.strings.get(*s)),
        None => "?".to_string(),
    }
}

/// One line per row, every column: `#row [array index] phase kind "name" cat=.. ts=.. dur=..
/// pid=.. tid=..`, then only the optional columns that are set (stream, corr, ext, sparse args,
/// counter samples). `nocat` = no `cat`; no `dur=` = no duration flag.
pub fn rows_table(r: &RankTrace) -> String {
    use std::fmt::Write;
    let ev = &r.events;
    let mut out = String::new();
    for e in 0..ev.len() {
        let _ = write!(out, "#{e} [{}] {} {} {:?}", ev.index.get(e), ev.phase[e].as_str(), ev.kind[e].as_str(), r.full_name(e as u32));
        if ev.flags[e] & flags::HAS_CAT != 0 {
            let _ = write!(out, " cat={}", r.cat(e as u32));
        } else {
            out.push_str(" nocat");
        }
        let _ = write!(out, " ts={}", ev.ts[e]);
        if ev.flags[e] & flags::HAS_DUR != 0 {
            let _ = write!(out, " dur={}", ev.dur.get(e));
        } else {
            assert_eq!(ev.dur.get(e), 0, "row {e} has no duration flag but dur {}", ev.dur.get(e));
        }
        let _ = write!(out, " pid={} tid={}", id_shown(r, ev.pid.get(e)), id_shown(r, ev.tid.get(e)));
        for (label, v) in [("stream", ev.stream.get(e)), ("corr", ev.correlation.get(e)), ("ext", ev.external_id.get(e))] {
            if v != -1 {
                let _ = write!(out, " {label}={v}");
            }
        }
        for (_, arg, v) in ev.int_args.iter().filter(|a| a.0 == e as u32) {
            match arg {
                kinetoscope::model::IntArg::MemoryBwGbpsBits => write!(out, " MemoryBwGbps={}", f64::from_bits(*v as u64)),
                _ => write!(out, " {arg:?}={v}"),
            }
            .unwrap_or_default();
        }
        for (_, series, v) in ev.counters.iter().filter(|a| a.0 == e as u32) {
            let _ = write!(out, " C:{}={v}", r.strings.get(*series));
        }
        out.push('\n');
    }
    out
}

/// The link columns, one line per row that has any link: `#row launch=#k op=#k parent=#k step=N`.
pub fn links_table(r: &RankTrace) -> String {
    use std::fmt::Write;
    let (launch, parent, step, ops) = (r.launch_links(), r.parent_links(), r.step_links(), r.ops());
    let mut out = String::new();
    for (e, &op) in ops.iter().enumerate() {
        let mut line = String::new();
        for (label, v) in [("launch", launch[e]), ("op", op), ("parent", parent[e])] {
            if v != NONE {
                let _ = write!(line, " {label}=#{v}");
            }
        }
        if step[e] != -1 {
            let _ = write!(line, " step={}", step[e]);
        }
        if !line.is_empty() {
            let _ = writeln!(out, "#{e}{line}");
        }
    }
    out
}

/// `kind × count @offset` for every warning, in the order they were first met.
pub fn warnings_list(r: &RankTrace) -> Vec<String> {
    r.warnings.iter().map(|w| format!("{:?} x{} @{}: {}", w.kind, w.count, w.offset, w.detail)).collect()
}

/// Panics unless two reads of the same bytes are identical: every event column (strings compared
/// as text), sparse args, counters, ids, names, counts, warnings, metadata and format.
pub fn assert_same_read(what: &str, a: &RankTrace, b: &RankTrace) {
    let (ea, eb) = (&a.events, &b.events);
    assert_eq!(ea.len(), eb.len(), "{what}: rows");
    assert_eq!(ea.index, eb.index, "{what}: index");
    assert_eq!(ea.phase, eb.phase, "{what}: phase");
    assert_eq!(ea.kind, eb.kind, "{what}: kind");
    assert_eq!(ea.ts, eb.ts, "{what}: ts");
    assert_eq!(ea.dur, eb.dur, "{what}: dur");
    assert_eq!(ea.stream, eb.stream, "{what}: stream");
    assert_eq!(ea.correlation, eb.correlation, "{what}: correlation");
    assert_eq!(ea.external_id, eb.external_id, "{what}: external_id");
    assert_eq!(ea.flags, eb.flags, "{what}: flags");
    assert_eq!(ea.int_args, eb.int_args, "{what}: int_args");
    assert_eq!(ea.counters.len(), eb.counters.len(), "{what}: counters");
    for (x, y) in ea.counters.iter().zip(&eb.counters) {
        assert_eq!((x.0, a.strings.get(x.1), x.2.to_bits()), (y.0, b.strings.get(y.1), y.2.to_bits()), "{what}: counter");
    }
    for e in 0..ea.len() {
        let e = e as u32;
        assert_eq!(a.full_name(e), b.full_name(e), "{what}: name of row {e}");
        assert_eq!(a.cat(e), b.cat(e), "{what}: cat of row {e}");
        assert_eq!(id_shown(a, ea.pid.get(e as usize)), id_shown(b, eb.pid.get(e as usize)), "{what}: pid of row {e}");
        assert_eq!(id_shown(a, ea.tid.get(e as usize)), id_shown(b, eb.tid.get(e as usize)), "{what}: tid of row {e}");
    }
    assert_eq!(a.ids.len(), b.ids.len(), "{what}: ids");
    assert_eq!(a.strings.len(), b.strings.len(), "{what}: strings");
    let names = |r: &RankTrace| {
        let mut p: Vec<(String, String)> = r.process_names.iter().map(|(k, v)| (id_shown(r, *k), v.clone())).collect();
        let mut t: Vec<(String, String, String)> =
            r.thread_names.iter().map(|((p, t), v)| (id_shown(r, *p), id_shown(r, *t), v.clone())).collect();
        p.sort();
        t.sort();
        (p, t)
    };
    assert_eq!(names(a), names(b), "{what}: process/thread names");
    assert_eq!(a.counts.events, b.counts.events, "{what}: counts.events");
    assert_eq!(a.counts.empty_placeholders, b.counts.empty_placeholders, "{what}: counts.empty_placeholders");
    assert_eq!(a.counts.kinds, b.counts.kinds, "{what}: counts.kinds");
    assert_eq!(a.counts.categories, b.counts.categories, "{what}: counts.categories");
    assert_eq!(a.counts.phases, b.counts.phases, "{what}: counts.phases");
    assert_eq!(a.warnings, b.warnings, "{what}: warnings");
    assert_eq!(a.format, b.format, "{what}: format");
    let meta = |r: &RankTrace| format!("{:?}", r.meta);
    assert_eq!(meta(a), meta(b), "{what}: meta");
}

/// The trace of an oracle set (`../shared/hta-oracle/out/<set>`), loaded from the files its
/// `trace_meta.json` names, and HTA's `{rank: file}` map. `None` for sets without a Chrome trace.
pub fn oracle_trace(dir: &std::path::Path) -> Option<(kinetoscope::Trace, std::collections::BTreeMap<u32, String>, serde_json::Value)> {
    let set = dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    if !dir.join("trace_meta.json").exists() {
        return None;
    }
    let meta: serde_json::Value = serde_json::from_slice(&bytes(&dir.join("trace_meta.json"))).expect("trace_meta.json");
    let trace_dir = meta["trace_dir"].as_str().expect("trace_dir");
    let folder = shared("traces/hta").join(trace_dir.strip_prefix("data/").unwrap_or(trace_dir));
    let files: std::collections::BTreeMap<u32, String> = meta["trace_files"]
        .as_object()
        .expect("trace_files")
        .iter()
        .map(|(r, f)| (r.parse().expect("rank"), f.as_str().expect("file").to_string()))
        .collect();
    let ranks = files
        .values()
        .map(|f| kinetoscope::read::read_bytes(f, &bytes(&folder.join(f)), 1 << 20).unwrap_or_else(|e| panic!("{set}: {e}")))
        .collect();
    Some((kinetoscope::read::assemble(ranks), files, meta))
}

/// Runs the `kinetoscope` binary in `testdata/` with `args` (clap's messages without colors).
pub fn run_cli(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_kinetoscope"))
        .args(args)
        .current_dir(testdata(""))
        .env_remove("CLICOLOR_FORCE")
        .output()
        .expect("run kinetoscope")
}

/// A run's stderr as text.
pub fn stderr_of(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
