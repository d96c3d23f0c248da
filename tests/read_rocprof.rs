//! rocprof readers: every real rocprof file in ../shared/traces/rocprof (rows counted and
//! compared one by one with an independent CSV parse), the hand-made files in
//! testdata/rocprof (exact values worked out by hand, see testdata/rocprof/README.md), chunk
//! sizes 1/7/4096/whole and detection without a file name for every file.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::{Path, PathBuf};

use kinetoscope::model::{Format, IdValue, IntArg, Kind, NewEvent, Phase, RankTrace, NONE};
use kinetoscope::read::{read_all, read_bytes};
use kinetoscope::WarningKind;

use crate::util::{self, bytes, shared, testdata, CHUNKS};

const DOCS: &str = "traces/rocprof/rocprofiler-sdk-docs";
const FD: &str = "traces/rocprof/hpctrainingexamples/finite-difference";
const SEISMIC: &str = "traces/rocprof/hpctrainingexamples/seismic-stencils_13-12-2023_15-20-58";

fn name_of(p: &Path) -> String {
    p.display().to_string()
}

/// Everything a reader produced except the file name, as text (for chunk-size comparisons).
fn fingerprint(r: &RankTrace) -> String {
    let ev = &r.events;
    let mut s = format!("{:?} {:?}\n", r.format, r.counts);
    for e in 0..ev.len() {
        let _ = writeln!(
            s,
            "{} {:?} {:?} {:?} {:?} {} {} {}/{} {} {} {} {}",
            ev.index.get(e),
            ev.phase[e],
            ev.kind[e],
            r.cat(e as u32),
            r.name(e as u32),
            ev.ts[e],
            ev.dur.get(e),
            r.id_text(ev.pid.get(e)),
            r.id_text(ev.tid.get(e)),
            ev.stream.get(e),
            ev.correlation.get(e),
            ev.external_id.get(e),
            ev.flags[e]
        );
    }
    let _ = writeln!(s, "{:?}", ev.int_args);
    let names: BTreeMap<String, &String> = r.process_names.iter().map(|(p, n)| (r.id_text(*p), n)).collect();
    let _ = writeln!(s, "{names:?}");
    for w in r.warnings.iter() {
        let _ = writeln!(s, "{:?} {} {} {}", w.kind, w.count, w.offset, w.detail);
    }
    s
}

/// Reads `p` with every chunk size and with a neutral name; all must agree. Returns the read.
fn read_swept(p: &Path) -> RankTrace {
    let b = bytes(p);
    let whole = read_bytes(&name_of(p), &b, 1 << 30).unwrap_or_else(|e| panic!("{e}"));
    let want = fingerprint(&whole);
    for chunk in CHUNKS {
        let r = read_bytes(&name_of(p), &b, chunk).unwrap_or_else(|e| panic!("chunk {chunk}: {e}"));
        crate::eqnice!(want, fingerprint(&r));
    }
    let anon = read_bytes("x", &b, 7).unwrap_or_else(|e| panic!("as x: {e}"));
    crate::eqnice!(want, fingerprint(&anon));
    whole
}

/// The error of reading `p` (every chunk size must give the same one).
fn read_error(p: &Path) -> String {
    let b = bytes(p);
    let errs: Vec<String> = [1, 7, 4096, 1 << 20]
        .iter()
        .map(|&c| match read_bytes("x", &b, c) {
            Ok(r) => panic!("{} read ({} events) but should be refused", p.display(), r.counts.events),
            Err(e) => format!("{}: {} | {}", e.offset, e.expected, e.found),
        })
        .collect();
    assert!(errs.iter().all(|e| *e == errs[0]), "{errs:?}");
    errs[0].clone()
}

fn arg(r: &RankTrace, e: usize, a: IntArg) -> Option<i64> {
    r.events.int_arg(e as u32, a)
}

fn kinds(r: &RankTrace) -> BTreeMap<String, u64> {
    r.counts.kinds.clone()
}

fn map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// Rows of a CSV file parsed by the `csv` crate, as header-keyed maps.
fn csv_rows(p: &Path) -> Vec<BTreeMap<String, String>> {
    let mut rdr = csv::Reader::from_path(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let header: Vec<String> = rdr.headers().map(|h| h.iter().map(str::to_string).collect()).unwrap_or_default();
    rdr.records()
        .map(|r| {
            let r = r.unwrap_or_else(|e| panic!("{e}"));
            header.iter().cloned().zip(r.iter().map(str::to_string)).collect()
        })
        .collect()
}

fn num(row: &BTreeMap<String, String>, col: &str) -> i64 {
    row[col].trim().parse().unwrap_or_else(|e| panic!("{col}={:?}: {e}", row[col]))
}

// ---------------------------------------------------------------- real rocprof v1 results.csv

/// Every row equals the independent parse; sums per kernel equal results.stats.csv.
fn check_v1_results(dir: &str, rows: usize, first: (&str, i64, i64), last: (&str, i64, i64)) {
    let p = shared(&format!("{dir}/results.csv"));
    let r = read_swept(&p);
    let want = csv_rows(&p);
    assert_eq!(want.len(), rows);
    assert_eq!(r.format, Some(Format::RocprofV1Csv));
    assert_eq!(r.counts.events, rows as u64);
    assert_eq!(r.events.len(), rows);
    assert_eq!(kinds(&r), map(&[("kernel", rows as u64)]));
    assert_eq!(r.counts.categories, map(&[("KERNEL_DISPATCH", rows as u64)]));
    assert_eq!(r.counts.phases, map(&[("X", rows as u64)]));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    for (e, w) in want.iter().enumerate() {
        assert_eq!(r.name(e as u32), w["KernelName"], "row {e}");
        assert_eq!(r.events.ts[e], num(w, "BeginNs"), "row {e}");
        assert_eq!(r.events.dur.get(e), num(w, "EndNs") - num(w, "BeginNs"), "row {e}");
        assert_eq!(r.events.dur.get(e), num(w, "DurationNs"), "row {e}");
        assert_eq!(r.events.index.get(e), e as u32);
        assert_eq!(r.events.correlation.get(e), num(w, "Index"));
        assert_eq!(r.events.stream.get(e), num(w, "queue-id"));
        assert_eq!(arg(&r, e, IntArg::Device), Some(num(w, "gpu-id")));
        assert_eq!(r.id_text(r.events.pid.get(e)), w["pid"]);
        assert_eq!(r.id_text(r.events.tid.get(e)), w["tid"]);
        assert_eq!(r.cat(e as u32), "KERNEL_DISPATCH");
    }
    let n = rows - 1;
    assert_eq!((r.name(0), r.events.ts[0], r.events.dur.get(0)), first);
    assert_eq!((r.name(n as u32), r.events.ts[n], r.events.dur.get(n)), last);
    // results.stats.csv (written by rocprof from the same data): Calls and TotalDurationNs
    let mut sums: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for e in 0..rows {
        let s = sums.entry(r.name(e as u32)).or_default();
        s.0 += 1;
        s.1 += r.events.dur.get(e);
    }
    let stats = csv_rows(&shared(&format!("{dir}/results.stats.csv")));
    assert_eq!(stats.len(), sums.len());
    for s in &stats {
        assert_eq!(sums[s["Name"].as_str()], (num(s, "Calls"), num(s, "TotalDurationNs")), "{}", s["Name"]);
    }
}

#[test]
fn v1_results_finite_difference() {
    if util::skip_without_corpus() {
        return;
    }
    check_v1_results(
        FD,
        1004,
        ("void test_function_kernel<double>(double*, int, int, int, double, double, double) [clone .kd]", 1_915_914_098_849_134, 1_130_883),
        (
            "void laplacian_kernel<double>(double*, double const*, int, int, int, double, double, double, double) [clone .kd]",
            1_915_916_745_281_859,
            2_601_931,
        ),
    );
}

#[test]
fn v1_results_seismic_stencils() {
    if util::skip_without_corpus() {
        return;
    }
    check_v1_results(
        SEISMIC,
        1024,
        ("initialize_polynomial_kernel", 23_584_570_739_263, 11_538_752),
        ("max_absval_gpu_kernel", 23_586_154_766_507, 1_437_924),
    );
}

#[test]
fn v1_results_json_fragments_read_as_labels_only() {
    if util::skip_without_corpus() {
        return;
    }
    for (dir, labels) in [(FD, 1u64), (SEISMIC, 2)] {
        let p = shared(&format!("{dir}/results.json"));
        let r = read_swept(&p);
        assert_eq!(r.format, Some(Format::RocprofV1Json));
        assert_eq!(r.counts.events, labels, "{dir}: one metadata event per line");
        assert_eq!(kinds(&r), map(&[("metadata", labels)]));
        assert_eq!(r.events.len(), 0);
        assert_eq!(r.process_names.values().collect::<Vec<_>>(), vec!["COPY"]);
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    }
}

// ---------------------------------------------------------------- real rocprofv3 CSV (docs)

/// Every row of an API table equals the independent parse.
fn check_v3_api(file: &str, rows: usize, kind: Kind, first: (&str, i64, i64), last: (&str, i64, i64)) {
    let p = shared(&format!("{DOCS}/{file}"));
    let r = read_swept(&p);
    let want = csv_rows(&p);
    assert_eq!(want.len(), rows, "{file}");
    assert_eq!(r.format, Some(Format::RocprofV3Csv));
    assert_eq!(r.counts.events, rows as u64);
    assert_eq!(kinds(&r), map(&[(kind.as_str(), rows as u64)]));
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    for (e, w) in want.iter().enumerate() {
        assert_eq!(r.name(e as u32), w["Function"]);
        assert_eq!(r.cat(e as u32), w["Domain"]);
        assert_eq!(r.events.kind[e], kind);
        assert_eq!(r.events.ts[e], num(w, "Start_Timestamp"));
        assert_eq!(r.events.dur.get(e), num(w, "End_Timestamp") - num(w, "Start_Timestamp"));
        assert_eq!(r.events.correlation.get(e), num(w, "Correlation_Id"));
        assert_eq!(r.id_text(r.events.pid.get(e)), w["Process_Id"]);
        assert_eq!(r.id_text(r.events.tid.get(e)), w["Thread_Id"]);
        assert_eq!(r.events.stream.get(e), -1);
    }
    let n = rows - 1;
    assert_eq!((r.name(0), r.events.ts[0], r.events.dur.get(0)), first);
    assert_eq!((r.name(n as u32), r.events.ts[n], r.events.dur.get(n)), last);
}

#[test]
fn v3_api_traces() {
    if util::skip_without_corpus() {
        return;
    }
    check_v3_api(
        "hip_runtime_trace.csv",
        8,
        Kind::Runtime,
        ("hipGetDevicePropertiesR0600", 1_191_915_574_691_984, 113_092_027),
        ("hipFree", 1_191_916_562_790_923, 45_428),
    );
    check_v3_api(
        "hip_compile_trace.csv",
        4,
        Kind::Runtime,
        ("__hipRegisterFatBinary", 1_508_780_270_085_955, 10_840),
        ("__hipPopCallConfiguration", 1_508_780_613_901_714, 486),
    );
    check_v3_api(
        "hsa_api_trace.csv",
        10,
        Kind::HsaApi,
        ("hsa_system_get_major_extension_table", 1_507_843_974_724_237, 710),
        ("hsa_agent_get_info", 1_507_843_974_771_091, 446),
    );
    // no line end after the last row
    check_v3_api(
        "marker_api_trace.csv",
        5,
        Kind::Marker,
        ("before hipLaunchKernel", 1_520_113_899_312_225, 0),
        ("hipLaunchKernel range", 1_520_113_899_682_208, 1_813_674),
    );
}

#[test]
fn v3_kernel_trace_rocm_6_2_header() {
    if util::skip_without_corpus() {
        return;
    }
    let p = shared(&format!("{DOCS}/kernel_trace.csv"));
    let r = read_swept(&p);
    let want = csv_rows(&p);
    assert_eq!(want.len(), 7);
    assert_eq!(r.counts.events, 7);
    assert_eq!(kinds(&r), map(&[("kernel", 7)]));
    assert_eq!(r.counts.categories, map(&[("KERNEL_DISPATCH", 7)]));
    for (e, w) in want.iter().enumerate() {
        assert_eq!(r.name(e as u32), w["Kernel_Name"]);
        assert_eq!(r.events.ts[e], num(w, "Start_Timestamp"));
        assert_eq!(r.events.dur.get(e), num(w, "End_Timestamp") - num(w, "Start_Timestamp"));
        assert_eq!(r.events.correlation.get(e), num(w, "Correlation_Id"));
        assert_eq!(r.events.stream.get(e), num(w, "Queue_Id"));
        assert_eq!(arg(&r, e, IntArg::Device), Some(num(w, "Agent_Id")));
        assert_eq!(arg(&r, e, IntArg::HipStream), None);
        assert_eq!(r.id_text(r.events.tid.get(e)), w["Thread_Id"]);
        assert_eq!(r.id_text(r.events.pid.get(e)), "", "no Process_Id column");
    }
    assert_eq!(
        (r.name(0), r.events.ts[0], r.events.dur.get(0)),
        ("void addition_kernel<float>(float*, float const*, float const*, int, int)", 8_819_330_200_067_564, 48_744)
    );
    assert_eq!(
        (r.name(6), r.events.ts[6], r.events.dur.get(6)),
        ("multiply_kernel(float*, float const*, float const*, int, int)", 8_819_330_200_229_796, 139_563)
    );
}

#[test]
fn v3_memory_copy_trace() {
    if util::skip_without_corpus() {
        return;
    }
    let p = shared(&format!("{DOCS}/memory_copy_trace.csv"));
    let r = read_swept(&p);
    assert_eq!(csv_rows(&p).len(), 2);
    assert_eq!(r.counts.events, 2);
    assert_eq!(kinds(&r), map(&[("memcpy", 2)]));
    assert_eq!(r.counts.categories, map(&[("MEMORY_COPY", 2)]));
    assert_eq!((r.name(0), r.events.ts[0], r.events.dur.get(0)), ("Memcpy HtoD (Host -> Device)", 14_955_949_675_563, 563_880));
    assert_eq!((r.name(1), r.events.ts[1], r.events.dur.get(1)), ("Memcpy DtoH (Device -> Host)", 14_955_952_733_485, 581_800));
    assert_eq!((arg(&r, 0, IntArg::Device), arg(&r, 1, IntArg::Device)), (Some(1), Some(1)));
    assert_eq!(r.events.correlation.iter().collect::<Vec<i64>>()[..], [0, 0]);
    assert_eq!(r.events.stream.iter().collect::<Vec<i64>>()[..], [-1, -1]);
}

#[test]
fn tables_without_events_are_refused_by_header() {
    if util::skip_without_corpus() {
        return;
    }
    for (file, what) in [
        (format!("{DOCS}/counter_collection.csv"), "counter_collection"),
        (format!("{DOCS}/kernel_names.csv"), "counter_collection"),
        (format!("{DOCS}/hip_api_stats.csv"), "statistics table"),
        (format!("{FD}/results.stats.csv"), "statistics table"),
        (format!("{SEISMIC}/results.stats.csv"), "statistics table"),
    ] {
        let e = read_error(&shared(&file));
        assert!(e.starts_with("0: a rocprof trace table: v1 results.csv with timestamps, or rocprofv3"), "{file}: {e}");
        assert!(e.contains(what), "{file}: {e}");
    }
    for file in [
        format!("{FD}/results.db"),
        format!("{FD}/results.sysinfo.txt"),
        format!("{FD}/rocprof_input.txt"),
        format!("{SEISMIC}/rocprof_input.txt"),
    ] {
        let e = read_error(&shared(&file));
        assert!(e.contains("expected a trace") || e.starts_with("0: a trace"), "{file}: {e}");
    }
    // a v1 table without --timestamp on, and a v3 table we do not read
    let no_ts = b"\"Index\",\"KernelName\",\"gpu-id\",\"grd\"\n0,\"k\",8,64\n";
    let e = read_bytes("x", no_ts, 3).err().map(|e| e.found).unwrap_or_default();
    assert!(e.contains("--timestamp on"), "{e}");
    let alloc =
        b"\"Kind\",\"Operation\",\"Agent_Id\",\"Allocation_Size\",\"Address\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\"\n";
    let e = read_bytes("x", alloc, 1).err().map(|e| e.found).unwrap_or_default();
    assert!(e.contains("memory_allocation_trace"), "{e}");
}

/// A table recognised by its own columns but missing one its rows need is refused naming the
/// table, the column and the columns it has.
#[test]
fn tables_missing_a_column_say_which() {
    for (header, want) in [
        (
            &b"\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Dispatch_Id\",\"Kernel_Id\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"Grid_Size_X\"\n"[..],
            "0: a column \"Kernel_Name\" in the header of a rocprofv3 kernel_trace.csv | the columns Kind,Agent_Id,Queue_Id,Dispatch_Id,Kernel_Id,Correlation_Id,Start_Timestamp,End_Timestamp,Grid_Size_X",
        ),
        (
            b"Kind,Direction,Source_Agent_Id,Destination_Agent_Id,Correlation_Id,Start_Timestamp\n",
            "0: a column \"End_Timestamp\" in the header of a rocprofv3 memory_copy_trace.csv | the columns Kind,Direction,Source_Agent_Id,Destination_Agent_Id,Correlation_Id,Start_Timestamp",
        ),
        (b"Index,KernelName,gpu-id,BeginNs\n0,k,8,1\n", "0: a column \"EndNs\" in the header of a rocprof v1 results.csv | the columns Index,KernelName,gpu-id,BeginNs"),
    ] {
        let e = read_bytes("x", header, 4096).err().map(|e| format!("{}: {} | {}", e.offset, e.expected, e.found));
        assert_eq!(e.as_deref(), Some(want));
    }
}

/// The JSON schema of rocprofv3's JSON output is JSON without a `traceEvents` array.
#[test]
fn the_v3_json_schema_is_not_a_trace() {
    if util::skip_without_corpus() {
        return;
    }
    let e = read_error(&shared(&format!("{DOCS}/rocprofv3-schema.json")));
    assert!(e.contains("\"traceEvents\" array"), "{e}");
}

/// Every file under ../shared/traces/rocprof is covered by a test above.
#[test]
fn every_shared_rocprof_file_is_covered() {
    if util::skip_without_corpus() {
        return;
    }
    let root = shared("traces/rocprof");
    let files: Vec<PathBuf> =
        crate::util::files_under(&root).into_iter().map(|p| p.strip_prefix(&root).map(PathBuf::from).unwrap_or(p)).collect();
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(names.len(), 20, "{names:#?}");
}

// ---------------------------------------------------------------- hand-made: v1 results.csv

#[test]
fn handmade_v1_results() {
    let p = testdata("rocprof/v1_results.csv");
    let b = bytes(&p);
    assert!(b.ends_with(b"4400,250") && b.windows(2).any(|w| w == b"\r\n"), "CRLF, no final line end");
    let r = read_swept(&p);
    let row_at = |tag: &[u8]| b.windows(tag.len()).position(|w| w == tag).map(|i| i as u64 + 2);
    assert_eq!(r.counts.events, 4);
    assert_eq!(r.events.index.iter().collect::<Vec<_>>(), [0, 1, 3, 5]);
    let names: Vec<&str> = (0..4).map(|e| r.name(e)).collect();
    assert_eq!(
        names,
        ["void fill<float, 4>(float*, int) [clone .kd]", "say \"hi\", then copy.kd", "ends_before_it_begins.kd", "v1_last.kd"]
    );
    assert_eq!(r.events.ts[..], [1_000_000_000_000_200, 1_000_000_000_001_300, 1_000_000_000_002_500, 1_000_000_000_004_100]);
    assert_eq!(r.events.dur.iter().collect::<Vec<i64>>()[..], [1000, 0, 0, 250]);
    assert_eq!(r.events.stream.iter().collect::<Vec<i64>>()[..], [0, 1, 0, -1], "queue-id; None = absent");
    assert_eq!(r.events.correlation.iter().collect::<Vec<i64>>()[..], [0, 1, 3, 5]);
    let dev: Vec<Option<i64>> = (0..4).map(|e| arg(&r, e, IntArg::Device)).collect();
    assert_eq!(dev, [Some(8), Some(9), Some(8), Some(8)]);
    let tids: Vec<String> = (0..4).map(|e| r.id_text(r.events.tid.get(e))).collect();
    assert_eq!(tids, ["4243", "4243", "4244", "4243"]);
    assert_eq!(r.warnings.count(WarningKind::BadCsvRow), 2);
    assert_eq!(r.warnings.count(WarningKind::NegativeDuration), 1);
    let bad = r.warnings.iter().find(|w| w.kind == WarningKind::BadCsvRow).map(|w| (w.offset, w.detail.clone()));
    let short = row_at(b"\r\n2,\"short");
    assert_eq!(short, Some(536));
    assert_eq!(bad, Some((536, "data row 2 (byte 536): 6 fields, the header has 22".to_string())));
    let neg = r.warnings.iter().find(|w| w.kind == WarningKind::NegativeDuration).map(|w| w.offset);
    assert_eq!(neg, row_at(b"\r\n3,\"ends"));
}

// ---------------------------------------------------------------- hand-made: one v3 process

fn v3(file: &str) -> PathBuf {
    testdata(&format!("rocprof/v3/{file}"))
}

#[test]
fn handmade_v3_tables_one_by_one() {
    let k = read_swept(&v3("4242_kernel_trace.csv"));
    assert_eq!(k.counts.events, 3);
    assert_eq!(k.name(1), "say \"hi\", kernel");
    assert_eq!(k.events.stream.iter().collect::<Vec<i64>>()[..], [1, 2, 1], "Queue_Id");
    let hs: Vec<_> = (0..3).map(|e| (arg(&k, e, IntArg::Device), arg(&k, e, IntArg::HipStream))).collect();
    assert_eq!(hs, [(Some(2), Some(0)), (Some(2), Some(1)), (Some(3), Some(0))], "\"Agent 2\" → 2; Stream_Id");
    assert_eq!(k.events.dur.iter().collect::<Vec<i64>>()[..], [2500, 750, 0]);

    let c = read_swept(&v3("4242_memory_copy_trace.csv"));
    let names: Vec<&str> = (0..4).map(|e| c.name(e)).collect();
    assert_eq!(
        names,
        ["Memcpy HtoD (Host -> Device)", "Memcpy DtoH (Device -> Host)", "Memcpy PtoP (Device -> Device)", "MEMORY_COPY_NONE"]
    );
    let dev: Vec<_> = (0..4).map(|e| arg(&c, e, IntArg::Device)).collect();
    assert_eq!(dev, [Some(2), Some(2), Some(3), None], "the GPU side of each copy");
    assert_eq!(c.events.ts[3], 2_000_000_000_007_000, "last row without a line end");
    assert_eq!(c.events.dur.get(3), 1);

    let a = read_swept(&v3("4242_hip_api_trace.csv"));
    assert_eq!(a.counts.events, 5);
    assert_eq!(a.events.index.iter().collect::<Vec<_>>(), [0, 1, 2, 4, 5]);
    assert_eq!(a.counts.categories, map(&[("HIP_COMPILER_API", 1), ("HIP_RUNTIME_API", 4)]));
    let bad = a.warnings.iter().map(|w| (w.kind, w.count, w.detail.clone())).collect::<Vec<_>>();
    assert_eq!(bad, [(WarningKind::BadCsvRow, 1, "data row 3 (byte 353): 8 fields, the header has 7".to_string())]);

    let o = read_swept(&v3("5151_kernel_trace.csv"));
    assert_eq!(o.counts.events, 1);
    let bad = o.warnings.iter().map(|w| (w.count, w.offset, w.detail.clone())).collect::<Vec<_>>();
    assert_eq!(bad, [(1, 386, "data row 1 (byte 386): Start_Timestamp '30000000000x0500' is not an integer".to_string())]);
}

fn read_set(files: &[(String, Vec<u8>)]) -> kinetoscope::Trace {
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    read_all(&refs).unwrap_or_else(|e| panic!("{e}"))
}

fn set(names: &[&str]) -> Vec<(String, Vec<u8>)> {
    names.iter().map(|n| (name_of(&v3(n)), bytes(&v3(n)))).collect()
}

#[test]
fn handmade_v3_process_is_merged_into_one_rank() {
    let t = read_set(&set(&["4242_hip_api_trace.csv", "4242_kernel_trace.csv", "4242_memory_copy_trace.csv", "5151_kernel_trace.csv"]));
    assert_eq!(t.ranks.len(), 2);
    let r = &t.ranks[0];
    let files: Vec<&str> = r.files.iter().map(|f| f.rsplit('/').next().unwrap_or(f)).collect();
    assert_eq!(files, ["4242_hip_api_trace.csv", "4242_kernel_trace.csv", "4242_memory_copy_trace.csv"]);
    assert_eq!(r.counts.events, 12);
    assert_eq!(kinds(r), map(&[("kernel", 3), ("memcpy", 4), ("runtime", 5)]));
    assert_eq!(r.counts.categories, map(&[("HIP_COMPILER_API", 1), ("HIP_RUNTIME_API", 4), ("KERNEL_DISPATCH", 3), ("MEMORY_COPY", 4)]));
    assert_eq!(r.counts.phases, map(&[("X", 12)]));
    assert_eq!(r.events.index.iter().collect::<Vec<_>>(), [0, 1, 2, 4, 5, 0, 1, 2, 0, 1, 2, 3], "each file's row numbers");
    let pids: Vec<String> = (0..12).map(|e| r.id_text(r.events.pid.get(e))).collect();
    assert!(pids.iter().all(|p| p == "4242"), "kernel and copy rows get the process's pid: {pids:?}");
    let tids: Vec<String> = (0..12).map(|e| r.id_text(r.events.tid.get(e))).collect();
    assert_eq!(tids, ["4243", "4243", "4243", "4243", "4244", "4243", "4243", "4244", "", "", "", ""]);
    assert_eq!(
        r.events.ts[..],
        [
            2_000_000_000_000_100,
            2_000_000_000_000_960,
            2_000_000_000_000_980,
            2_000_000_000_001_200,
            2_000_000_000_001_400,
            2_000_000_000_001_000,
            2_000_000_000_002_000,
            2_000_000_000_004_000,
            2_000_000_000_000_500,
            2_000_000_000_005_000,
            2_000_000_000_006_000,
            2_000_000_000_007_000
        ]
    );
    assert_eq!(r.events.dur.iter().collect::<Vec<i64>>()[..], [850, 10, 120, 100, 2800, 2500, 750, 0, 400, 600, 100, 1]);
    assert_eq!(r.events.correlation.iter().collect::<Vec<i64>>()[..], [2, 1, 3, 5, 10, 3, 5, 8, 2, 6, 7, 9]);
    // hipMemcpyAsync ↔ HtoD copy, hipLaunchKernel ↔ kernel, by Correlation_Id
    let l = r.launch_links();
    assert_eq!((l[0], l[2], l[3], l[5], l[6], l[7], l[8]), (8, 5, 6, 2, 3, NONE, 0));
    assert_eq!(r.warnings.count(WarningKind::BadCsvRow), 1);
    assert_eq!(
        r.input_bytes,
        ["4242_hip_api_trace.csv", "4242_kernel_trace.csv", "4242_memory_copy_trace.csv"]
            .iter()
            .map(|n| bytes(&v3(n)).len() as u64)
            .sum::<u64>()
    );
    let o = &t.ranks[1];
    assert_eq!(
        (o.counts.events, o.id_text(o.events.pid.get(0)), o.id_text(o.events.tid.get(0))),
        (1, "5151".to_string(), "5152".to_string())
    );
    assert_eq!(o.warnings.count(WarningKind::BadCsvRow), 1);
}

#[test]
fn merge_rule_order_prefixes_and_folders() {
    // order does not matter: the first file given receives the others
    let t = read_set(&set(&["4242_memory_copy_trace.csv", "5151_kernel_trace.csv", "4242_kernel_trace.csv", "4242_hip_api_trace.csv"]));
    assert_eq!(t.ranks.iter().map(|r| r.counts.events).collect::<Vec<_>>(), [12, 1]);
    assert_eq!(t.ranks[0].name(0), "Memcpy HtoD (Host -> Device)");
    // a named prefix joins the data pid of its API table
    let named = |n: &str, f: &str| (format!("out/run_a_{n}"), bytes(&v3(f)));
    let t = read_set(&[named("kernel_trace.csv", "4242_kernel_trace.csv"), named("hip_api_trace.csv", "4242_hip_api_trace.csv")]);
    assert_eq!(t.ranks.len(), 1);
    assert!(t.ranks[0].events.pid.iter().all(|p| t.ranks[0].ids.get(p) == Some(&IdValue::Int(4242))));
    // other folders (hosts) and names without a table suffix are never merged
    let t = read_set(&[
        ("a/4242_kernel_trace.csv".into(), bytes(&v3("4242_kernel_trace.csv"))),
        ("b/4242_hip_api_trace.csv".into(), bytes(&v3("4242_hip_api_trace.csv"))),
        ("x".into(), bytes(&v3("4242_memory_copy_trace.csv"))),
        ("y".into(), bytes(&v3("4242_memory_copy_trace.csv"))),
    ]);
    assert_eq!(t.ranks.iter().map(|r| r.counts.events).collect::<Vec<_>>(), [3, 5, 4, 4]);
    // v1 tables are not merged
    let v1 = bytes(&testdata("rocprof/v1_results.csv"));
    let t = read_set(&[("d/1_kernel_trace.csv".into(), v1.clone()), ("d/1_hip_api_trace.csv".into(), v1)]);
    assert_eq!(t.ranks.len(), 2);
}

// ---------------------------------------------------------------- hand-made: v1 --hip-trace JSON

#[test]
fn handmade_v1_hip_trace_json() {
    let r = read_swept(&testdata("rocprof/v1_hip_trace.json"));
    assert_eq!(r.format, Some(Format::RocprofV1Json));
    assert_eq!(r.counts.events, 11);
    assert_eq!(r.counts.empty_placeholders, 1);
    assert_eq!(kinds(&r), map(&[("kernel", 1), ("memcpy", 1), ("metadata", 4), ("other", 3), ("runtime", 2)]));
    let mut labels: Vec<(String, &str)> = r.process_names.iter().map(|(p, n)| (r.id_text(*p), n.as_str())).collect();
    labels.sort();
    assert_eq!(labels, [("1".into(), "COPY"), ("2".into(), "CPU HIP API"), ("518".into(), "GPU Barriers0"), ("6".into(), "GPU0")]);
    let ev = &r.events;
    let rows: Vec<(u32, Kind, &str)> = (0..ev.len()).map(|e| (ev.index.get(e), ev.kind[e], r.name(e as u32))).collect();
    assert_eq!(
        rows,
        [
            (5, Kind::Runtime, "hipMemcpy"),
            (6, Kind::Memcpy, "CopyHostToDevice"),
            (7, Kind::Runtime, "hipLaunchKernel"),
            (8, Kind::Kernel, "void add<float>(float*, float const*, int)"),
            (9, Kind::Other, "<barrier packet>"),
            (10, Kind::Other, "dep"),
            (11, Kind::Other, "dep"),
        ]
    );
    assert_eq!(ev.phase[5..], [Phase::FlowStart, Phase::FlowStep]);
    assert_eq!(arg(&r, 3, IntArg::Device), Some(0), "GPU0");
    assert_eq!((0..7).filter(|&e| arg(&r, e, IntArg::Device).is_some()).count(), 1);
    // ts/dur: exact args.BeginNs/EndNs when the Chrome reader keeps them, else the µs strings
    let exact = arg(&r, 0, IntArg::BeginNs).is_some();
    let (ts, dur): (Vec<i64>, Vec<i64>) = if exact {
        (vec![1_000_250, 1_010_400, 1_050_100, 1_052_300, 1_056_000], vec![40_500, 20_500, 500, 3_500, 200])
    } else {
        (vec![1_000_000, 1_010_000, 1_050_000, 1_052_000, 1_056_000], vec![40_000, 20_000, 1_000, 3_000, 1_000])
    };
    assert_eq!(ev.ts[..5], ts[..]);
    assert_eq!(ev.dur.iter().take(5).collect::<Vec<i64>>(), dur[..]);
    assert_eq!(ev.ts[5..], [1_050_000, 1_052_000], "flows");
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
}

#[test]
fn v1_json_older_spelling_string_pids_and_numbered_labels() {
    let json = br#"{ "traceEvents":[{}
,{"args":{"name":"2 HIP"},"ph":"M","pid":2,"name":"process_name"}
,{"args":{"name":"6 GPU1"},"ph":"M","pid":7,"name":"process_name"}
,{"ph":"X","name":"hipFree","pid":"2","tid":"77","ts":"5","dur":"1",
  "args":{
    "BeginNs":"5001",
    "EndNs":"5002"
  }
}
,{"ph":"X","name":"k","pid":"7","tid":"0","ts":"6","dur":"2"}
]}
"#;
    let r = read_bytes("x", json, 5).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.format, Some(Format::RocprofV1Json));
    assert_eq!(r.events.kind[..], [Kind::Runtime, Kind::Kernel]);
    assert_eq!(arg(&r, 1, IntArg::Device), Some(1));
    assert_eq!(kinds(&r), map(&[("kernel", 1), ("metadata", 2), ("runtime", 1)]));
}

/// The exact-ns upgrade of `classify_v1_json`, on a rank built by hand (the Chrome reader
/// decides whether it keeps `args.BeginNs`/`EndNs`).
#[test]
fn v1_json_exact_times_from_args() {
    let mut r = RankTrace::default();
    let pid = r.ids.intern(IdValue::Int(2));
    let other_pid = r.ids.intern(IdValue::Int(9));
    r.process_names.insert(pid, "CPU HIP API".into());
    let name = r.strings.intern("hipMalloc");
    let add = |r: &mut RankTrace, ts: i64, dur: i64, p: u32, begin: i64, end: i64| {
        let e = r.events.push(NewEvent {
            index: 0,
            phase: Phase::Complete,
            kind: Kind::Other,
            cat: Default::default(),
            name,
            ts,
            dur,
            pid: p,
            tid: p,
            stream: -1,
            correlation: -1,
            external_id: -1,
            flags: kinetoscope::model::events::flags::HAS_TS | kinetoscope::model::events::flags::HAS_DUR,
        });
        r.events.int_args.push((e, IntArg::BeginNs, begin));
        r.events.int_args.push((e, IntArg::EndNs, end));
        *r.counts.kinds.entry("other".into()).or_default() += 1;
    };
    add(&mut r, 1_000_000, 5_000, pid, 1_000_250, 1_005_999); // agrees to the µs: upgraded
    add(&mut r, 2_000_000, 1_000, pid, 9_002_000, 9_003_000); // rebased file: kept
    add(&mut r, 3_000_000, 1_000, other_pid, 3_000_400, 3_000_900); // unknown section: times only
    kinetoscope::read::rocprof::classify_v1_json(&mut r);
    assert_eq!(r.events.ts[..], [1_000_250, 2_000_000, 3_000_400]);
    assert_eq!(r.events.dur.iter().collect::<Vec<i64>>()[..], [5_749, 1_000, 500]);
    assert_eq!(r.events.kind[..], [Kind::Runtime, Kind::Runtime, Kind::Other]);
    assert_eq!(kinds(&r), map(&[("other", 1), ("runtime", 2)]));
}
