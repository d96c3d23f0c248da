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

/// Reads `testdata/<rel>` (named `rel`) with every chunk size, checks the reads are identical and
/// that the name plays no part, and returns the assembled one-rank trace.
fn load(rel: &str) -> Trace {
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
fn load_err(rel: &str) -> ReadError {
    let bytes = util::bytes(&util::testdata(rel));
    let first = util::read_chunked(rel, &bytes, 1 << 20).expect_err("a fatal error");
    for chunk in util::CHUNKS {
        let again = util::read_chunked(rel, &bytes, chunk).expect_err("a fatal error");
        assert_eq!(again, first, "{rel} in {chunk}-byte chunks");
    }
    first
}

/// `(kind, count, first offset)` of every warning, in the order first met.
fn warnings(r: &RankTrace) -> Vec<(WarningKind, u64, u64)> {
    r.warnings.iter().map(|w| (w.kind, w.count, w.offset)).collect()
}

/// The details (first occurrence) of every warning.
fn details(r: &RankTrace) -> Vec<String> {
    r.warnings.iter().map(|w| w.detail.clone()).collect()
}

fn map(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// `(events, placeholders, kinds, categories, phases)`.
type Counts = (u64, u64, BTreeMap<String, u64>, BTreeMap<String, u64>, BTreeMap<String, u64>);

/// [`Counts`] of a rank (and checks `sum(kinds) == events`).
fn counts(r: &RankTrace) -> Counts {
    let c = &r.counts;
    assert_eq!(c.kinds.values().sum::<u64>(), c.events, "sum(kinds) == events");
    (c.events, c.empty_placeholders, c.kinds.clone(), c.categories.clone(), c.phases.clone())
}

/// Process names `(pid, name)` and thread names `(pid, tid, name)`, ids shown as in the file.
type Names = (Vec<(String, String)>, Vec<(String, String, String)>);

/// [`Names`] of a rank, sorted.
fn names(r: &RankTrace) -> Names {
    let mut p: Vec<_> = r.process_names.iter().map(|(k, v)| (util::id_shown(r, *k), v.clone())).collect();
    let mut t: Vec<_> = r.thread_names.iter().map(|((a, b), v)| (util::id_shown(r, *a), util::id_shown(r, *b), v.clone())).collect();
    p.sort();
    t.sort();
    (p, t)
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

// ---------------------------------------------------------------------------------------------
// Variants
// ---------------------------------------------------------------------------------------------

const OBJECT_FORM_ROWS: &str = "\
#0 [0] X cpu_op \"aten::add\" cat=cpu_op ts=100000 dur=20000 pid=10 tid=11 ext=1
#1 [1] X runtime \"cudaLaunchKernel\" cat=cuda_runtime ts=105000 dur=5000 pid=10 tid=11 corr=7 ext=1
#2 [2] X kernel \"add_kernel\" cat=kernel ts=130000 dur=3000 pid=0 tid=7 stream=7 corr=7 ext=1 Device=0
";
const OBJECT_FORM_LINKS: &str = "\
#1 launch=#2 op=#0 parent=#0
#2 launch=#1 op=#0
";

fn check_object_form(rel: &str, gzip_members: u32) {
    let t = load(rel);
    let r = &t.ranks[0];
    eqnice!(OBJECT_FORM_ROWS, util::rows_table(r));
    eqnice!(OBJECT_FORM_LINKS, util::links_table(r));
    assert_eq!(r.format, Some(Format::Kineto));
    assert!(!r.meta.bare_array);
    assert_eq!(r.meta.gzip_members, gzip_members);
    assert_eq!(r.meta.top_level_keys, s(&["schemaVersion", "traceName"]));
    assert_eq!(r.meta.schema_version.as_deref(), Some("1"));
    assert_eq!(r.meta.trace_name.as_deref(), Some("object-form"));
    assert!(!r.meta.ts_fractional_or_missing);
    assert_eq!(
        counts(r),
        (
            3,
            0,
            map(&[("cpu_op", 1), ("kernel", 1), ("runtime", 1)]),
            map(&[("cpu_op", 1), ("cuda_runtime", 1), ("kernel", 1)]),
            map(&[("X", 3)])
        )
    );
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

#[test]
fn object_form() {
    check_object_form("kineto/object-form.json", 0);
}

#[test]
fn object_form_gzip() {
    check_object_form("kineto/object-form.json.gz", 1);
}

/// The JSON text is split inside the second event's name across two gzip members.
#[test]
fn object_form_two_gzip_members() {
    check_object_form("kineto/two-members.json.gz", 2);
}

const BARE_ROWS: &str = "\
#0 [0] X cpu_op \"a\" cat=cpu_op ts=1000 dur=1000 pid=1 tid=1
#1 [1] X cpu_op \"b\" cat=cpu_op ts=2000 dur=1000 pid=1 tid=1
";

/// `[...]`, `[...` and `[...,` are all complete traces (the format allows the missing `]`).
#[test]
fn bare_array_with_and_without_closing_bracket() {
    for rel in ["kineto/bare-array.json", "kineto/bare-array-unclosed.json", "kineto/bare-array-unclosed-comma.json"] {
        let t = load(rel);
        let r = &t.ranks[0];
        eqnice!(BARE_ROWS, util::rows_table(r));
        eqnice!("", util::links_table(r)); // b starts where a ends: not nested
        assert!(r.meta.bare_array, "{rel}");
        assert!(r.meta.top_level_keys.is_empty(), "{rel}");
        assert_eq!(r.format, Some(Format::Kineto), "{rel}");
        assert!(r.warnings.is_empty(), "{rel}: {:?}", util::warnings_list(r));
    }
}

/// 2020–21 Kineto: Operator/Runtime/Kernel/Memcpy/Memset, flow cat `async`, `external id` on GPU
/// events, string tids, `"Traces"` pid, bare array.
#[test]
fn vocabulary_2020() {
    let t = load("kineto/vocab-2020.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"ProfilerStep#1\" cat=Operator ts=1000000 dur=100000 pid=100 tid=\"200\" ext=1
#1 [1] X cpu_op \"aten::copy_\" cat=Operator ts=1010000 dur=50000 pid=100 tid=\"200\" ext=2
#2 [2] X runtime \"cudaMemcpyAsync\" cat=Runtime ts=1020000 dur=10000 pid=100 tid=\"200\" corr=5 ext=2
#3 [3] s launch_flow \"launch\" cat=async ts=1020000 pid=100 tid=200 FlowId=5
#4 [4] X memcpy \"Memcpy HtoD (Pageable -> Device)\" cat=Memcpy ts=1040000 dur=8000 pid=0 tid=\"stream 7\" stream=7 corr=5 ext=2 Device=0 Bytes=4096
#5 [5] f launch_flow \"launch\" cat=async ts=1040000 pid=0 tid=\"stream 7\" FlowId=5
#6 [6] X runtime \"cudaLaunchKernel\" cat=Runtime ts=1070000 dur=5000 pid=100 tid=\"200\" corr=6 ext=3
#7 [7] X cpu_op \"aten::relu\" cat=Operator ts=1065000 dur=20000 pid=100 tid=\"200\" ext=3
#8 [8] X kernel \"relu_kernel\" cat=Kernel ts=1080000 dur=4000 pid=0 tid=\"stream 7\" stream=7 corr=6 ext=3 Device=0
#9 [9] X memset \"Memset (Device)\" cat=Memset ts=1090000 dur=1000 pid=0 tid=\"stream 7\" stream=7 corr=7 ext=0 Device=0 Bytes=512
#10 [12] X trace_span \"PyTorch Profiler (0)\" cat=Trace ts=990000 dur=300000 pid=\"Traces\" tid=\"PyTorch Profiler\"
#11 [13] i instant \"Iteration Start: PyTorch Profiler\" nocat ts=990000 pid=\"Traces\" tid=\"Trace PyTorch Profiler\"
",
        util::rows_table(r)
    );
    eqnice!(
        "\
#0 step=1
#1 parent=#0 step=1
#2 launch=#4 op=#1 parent=#1 step=1
#3 step=1
#4 launch=#2 op=#1 step=1
#5 step=1
#6 launch=#8 op=#7 parent=#7 step=1
#7 parent=#0 step=1
#8 launch=#6 op=#7 step=1
",
        util::links_table(r)
    );
    assert_eq!(
        counts(r),
        (
            14,
            0,
            map(&[
                ("cpu_op", 3),
                ("instant", 1),
                ("kernel", 1),
                ("launch_flow", 2),
                ("memcpy", 1),
                ("memset", 1),
                ("metadata", 2),
                ("runtime", 2),
                ("trace_span", 1)
            ]),
            map(&[("Kernel", 1), ("Memcpy", 1), ("Memset", 1), ("Operator", 3), ("Runtime", 2), ("Trace", 1), ("async", 2)]),
            map(&[("M", 2), ("X", 9), ("f", 1), ("i", 1), ("s", 1)])
        )
    );
    assert_eq!(names(r), (vec![("100".into(), "python".into())], vec![("100".into(), "\"200\"".into(), "thread 200 (python)".into())]));
    assert_eq!(r.steps.iter().map(|s| (s.number, s.event, s.ts, s.dur)).collect::<Vec<_>>(), vec![(1, 0, 1000000, 100000)]);
    assert_eq!((r.format, r.meta.bare_array), (Some(Format::Kineto), true));
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// 2023+ Kineto vocabulary, with every link kind.
#[test]
fn vocabulary_new() {
    let t = load("kineto/vocab-new.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X user_annotation \"ProfilerStep#7\" cat=user_annotation ts=10000000 dur=1000000 pid=50 tid=50 ext=1
#1 [1] X python_function \"train.py(12): step\" cat=python_function ts=10010000 dur=900000 pid=50 tid=50
#2 [2] X cpu_op \"aten::mm\" cat=cpu_op ts=10100000 dur=200000 pid=50 tid=50 ext=2 RecordFunctionId=9
#3 [3] X runtime \"cudaLaunchKernel\" cat=cuda_runtime ts=10150000 dur=20000 pid=50 tid=50 corr=100 ext=2
#4 [4] s launch_flow \"ac2g\" cat=ac2g ts=10150000 pid=50 tid=50 FlowId=100
#5 [5] X kernel \"gemm\" cat=kernel ts=10400000 dur=50000 pid=0 tid=7 stream=7 corr=100 ext=2 Device=0
#6 [6] f launch_flow \"ac2g\" cat=ac2g ts=10400000 pid=0 tid=7 FlowId=100
#7 [7] X driver \"cuLaunchKernel\" cat=cuda_driver ts=10320000 dur=10000 pid=50 tid=50 corr=101 ext=3
#8 [8] X cpu_op \"triton_op\" cat=cpu_op ts=10310000 dur=40000 pid=50 tid=50 ext=3
#9 [9] X kernel \"triton_poi_fused\" cat=kernel ts=10460000 dur=5000 pid=0 tid=7 stream=7 corr=101 ext=3 Device=0
#10 [10] X runtime \"cudaMemcpyAsync\" cat=cuda_runtime ts=10360000 dur=15000 pid=50 tid=50 corr=102 ext=4
#11 [11] X cpu_op \"aten::copy_\" cat=cpu_op ts=10355000 dur=40000 pid=50 tid=50 ext=4
#12 [12] X memcpy \"Memcpy DtoH (Device -> Pinned)\" cat=gpu_memcpy ts=10470000 dur=2000 pid=0 tid=7 stream=7 corr=102 ext=4 Device=0 Bytes=8 MemoryBwGbps=0.004
#13 [13] X runtime \"cudaMemsetAsync\" cat=cuda_runtime ts=10390000 dur=3000 pid=50 tid=50 corr=103 ext=4
#14 [14] X memset \"Memset (Device)\" cat=gpu_memset ts=10480000 dur=1000 pid=0 tid=8 stream=8 corr=103 ext=4 Device=0 Bytes=64
#15 [15] X runtime \"cudaStreamSynchronize\" cat=cuda_runtime ts=10470000 dur=60000 pid=50 tid=50 corr=104
#16 [16] X cuda_sync \"Stream Sync\" cat=cuda_sync ts=10490000 dur=30000 pid=0 tid=7 stream=7 corr=104 Device=0
#17 [17] X gpu_user_annotation \"ProfilerStep#7\" cat=gpu_user_annotation ts=10400000 dur=120000 pid=0 tid=7 ext=1
#18 [18] X overhead \"Buffer Flush\" cat=overhead ts=11500000 dur=10000 pid=50 tid=50
#19 [21] X trace_span \"PyTorch Profiler (0)\" cat=Trace ts=9000000 dur=3000000 pid=\"Spans\" tid=\"PyTorch Profiler\"
#20 [22] i instant \"Iteration Start: PyTorch Profiler\" nocat ts=9000000 pid=\"Traces\" tid=\"Trace PyTorch Profiler\"
#21 [23] i instant \"Record Window End\" nocat ts=12000000 pid=\"\" tid=\"\"
",
        util::rows_table(r)
    );
    eqnice!(
        "\
#0 step=7
#1 parent=#0 step=7
#2 parent=#1 step=7
#3 launch=#5 op=#2 parent=#2 step=7
#4 step=7
#5 launch=#3 op=#2 parent=#17 step=7
#6 step=7
#7 launch=#9 op=#8 parent=#8 step=7
#8 parent=#1 step=7
#9 launch=#7 op=#8 parent=#17 step=7
#10 launch=#12 op=#11 parent=#11 step=7
#11 parent=#1 step=7
#12 launch=#10 op=#11 parent=#17 step=7
#13 launch=#14 op=#11 parent=#11 step=7
#14 launch=#13 op=#11 step=7
#15 launch=#16 parent=#1 step=7
#16 launch=#15 parent=#17 step=7
#17 step=7
",
        util::links_table(r)
    );
    assert_eq!(
        counts(r),
        (
            24,
            0,
            map(&[
                ("cpu_op", 3),
                ("cuda_sync", 1),
                ("driver", 1),
                ("gpu_user_annotation", 1),
                ("instant", 2),
                ("kernel", 2),
                ("launch_flow", 2),
                ("memcpy", 1),
                ("memset", 1),
                ("metadata", 2),
                ("overhead", 1),
                ("python_function", 1),
                ("runtime", 4),
                ("trace_span", 1),
                ("user_annotation", 1)
            ]),
            map(&[
                ("Trace", 1),
                ("ac2g", 2),
                ("cpu_op", 3),
                ("cuda_driver", 1),
                ("cuda_runtime", 4),
                ("cuda_sync", 1),
                ("gpu_memcpy", 1),
                ("gpu_memset", 1),
                ("gpu_user_annotation", 1),
                ("kernel", 2),
                ("overhead", 1),
                ("python_function", 1),
                ("user_annotation", 1)
            ]),
            map(&[("M", 2), ("X", 18), ("f", 1), ("i", 2), ("s", 1)])
        )
    );
    assert_eq!(names(r), (vec![("50".into(), "python3".into())], vec![("0".into(), "7".into(), "stream 7 ".into())]));
    assert_eq!(r.steps.iter().map(|s| (s.number, s.event)).collect::<Vec<_>>(), vec![(7, 0)]);
    assert_eq!(r.format, Some(Format::Kineto));
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// ROCm in Kineto vocabulary: hip* calls under cuda_runtime with `"stream": "0x0"` and `cid` (the
/// HIP API id) beside `correlation`, kernels and copies on stream 0, fractional µs.
#[test]
fn rocm() {
    let t = load("kineto/rocm.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"aten::copy_\" cat=cpu_op ts=100500 dur=60250 pid=597913 tid=597913 ext=8
#1 [1] X runtime \"hipMemcpyWithStream\" cat=cuda_runtime ts=101250 dur=40125 pid=597913 tid=597913 corr=117 ext=8
#2 [2] s launch_flow \"ac2g\" cat=ac2g ts=101250 pid=597913 tid=597913 FlowId=117
#3 [3] X memcpy \"Memcpy HtoD (Host -> Device)\" cat=gpu_memcpy ts=110500 dur=22441 pid=2 tid=0 stream=0 corr=117 ext=8 Device=2
#4 [4] f launch_flow \"ac2g\" cat=ac2g ts=110500 pid=2 tid=0 FlowId=117
#5 [5] X cpu_op \"aten::relu\" cat=cpu_op ts=170000 dur=10000 pid=597913 tid=597913 ext=9
#6 [6] X runtime \"hipLaunchKernel\" cat=cuda_runtime ts=171000 dur=5000 pid=597913 tid=597913 corr=119 ext=9
#7 [7] X kernel \"relu_kernel\" cat=kernel ts=180000 dur=2500 pid=2 tid=0 stream=0 corr=119 ext=9 Device=2
#8 [8] X runtime \"hipExtModuleLaunchKernel\" cat=cuda_runtime ts=190000 dur=4000 pid=597913 tid=597913 corr=120
#9 [9] X kernel \"triton_poi_fused_0\" cat=kernel ts=200000 dur=1000 pid=2 tid=0 stream=0 corr=120 Device=2
",
        util::rows_table(r)
    );
    eqnice!(
        "\
#1 launch=#3 op=#0 parent=#0
#3 launch=#1 op=#0
#6 launch=#7 op=#5 parent=#5
#7 launch=#6 op=#5
#8 launch=#9
#9 launch=#8
",
        util::links_table(r)
    );
    let d = &r.meta.devices;
    assert_eq!(d.len(), 1);
    assert_eq!(
        (d[0].id, d[0].name.as_deref(), d[0].total_global_mem, d[0].compute.as_deref(), d[0].num_sms),
        (Some(2), Some("AMD Radeon Graphics"), Some(68702699520), Some("9.0"), Some(104))
    );
    assert_eq!((r.format, r.meta.ts_fractional_or_missing), (Some(Format::Kineto), true));
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// Meta MTIA: mtia_runtime launches mtia_ccp_events by correlation; `size` on a device op is not
/// a memcpy size; nested `distributedInfo.pg_config`.
#[test]
fn mtia() {
    let t = load("kineto/mtia.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"aten::mm\" cat=cpu_op ts=1000000 dur=50000 pid=3100453 tid=3100453 ext=5
#1 [1] X mtia_runtime \"runFunction - job_prep_and_submit_for_execution\" cat=mtia_runtime ts=1010000 dur=20000 pid=3100453 tid=3100453 corr=18
#2 [2] s launch_flow \"ac2g\" cat=ac2g ts=1010000 pid=3100453 tid=3100453 FlowId=18
#3 [3] X mtia_device_op \"permute_2d_sparse_data-dtype_Int\" cat=mtia_ccp_events ts=1040000 dur=28500 pid=9 tid=408 stream=102 corr=18
#4 [4] f launch_flow \"ac2g\" cat=ac2g ts=1040000 pid=9 tid=408 FlowId=18
#5 [5] X mtia_device_op \"dma_request\" cat=mtia_ccp_events ts=1045000 dur=8136 pid=9 tid=801 stream=103
",
        util::rows_table(r)
    );
    eqnice!("#1 launch=#3 parent=#0\n#3 launch=#1\n", util::links_table(r));
    let d = r.meta.distributed.clone().expect("distributedInfo");
    assert_eq!((d.rank, d.world_size, d.backend.as_deref()), (Some(0), Some(1), Some("mtia:hccl,cpu:gloo")));
    assert!(r.meta.devices.is_empty());
    assert_eq!(names(r).0, vec![("9".to_string(), "MTIA 9".to_string())]);
    // every ts is an integer except the metadata event's `0.0`, which is enough for HTA to round
    assert!(r.meta.ts_fractional_or_missing);
    assert_eq!(r.format, Some(Format::Kineto));
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// Decimal µs to integer ns exactly from the text; sub-ns digits round to nearest, ties away from 0.
#[test]
fn fractional_microseconds_are_exact() {
    let t = load("kineto/time-fractional.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"epoch_us\" cat=cpu_op ts=1795388036039728123 dur=9197396 pid=1 tid=1
#1 [1] X cpu_op \"half_ns_tie\" cat=cpu_op ts=1 dur=0 pid=1 tid=2
#2 [2] X cpu_op \"sub_ns_digits\" cat=cpu_op ts=12346 dur=1001 pid=1 tid=2
#3 [3] X cpu_op \"exponent\" cat=cpu_op ts=1500000 dur=2 pid=1 tid=2
#4 [4] X cpu_op \"negative_ts\" cat=cpu_op ts=-3500 dur=1 pid=1 tid=2
#5 [5] X cpu_op \"f64_would_lose\" cat=cpu_op ts=4203669604595407 dur=340024 pid=1 tid=2
#6 [6] X cpu_op \"trailing_zeros\" cat=cpu_op ts=12000 dur=7100 pid=1 tid=2
",
        util::rows_table(r)
    );
    eqnice!("#2 parent=#6\n", util::links_table(r));
    // what a float parse would have given instead: the µs value is not representable
    assert_ne!((1795388036039728.123_f64 * 1000.0) as i64, 1795388036039728123);
    assert_eq!(r.meta.base_time_ns, Some(1735632360000000000));
    assert_eq!(r.meta.display_time_unit.as_deref(), Some("ms"));
    assert!(r.meta.ts_fractional_or_missing);
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// pid/tid: integers (negative too), strings, numeric strings (a different id from the number),
/// a number beyond i64 (kept as its text), missing.
#[test]
fn pid_tid_forms() {
    let t = load("kineto/ids.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"int_ids\" cat=cpu_op ts=1000 dur=1000 pid=13006 tid=13006
#1 [1] X cpu_op \"string_tid\" cat=cpu_op ts=2000 dur=1000 pid=13006 tid=\"13006(Python)\"
#2 [2] X cpu_op \"string_pid\" cat=cpu_op ts=3000 dur=1000 pid=\"Traces\" tid=\"PyTorch Profiler\"
#3 [3] X cpu_op \"negative\" cat=cpu_op ts=4000 dur=1000 pid=-1 tid=-42
#4 [4] X cpu_op \"numeric_strings\" cat=cpu_op ts=5000 dur=1000 pid=\"13006\" tid=\"7\"
#5 [5] X cpu_op \"beyond_i64\" cat=cpu_op ts=6000 dur=1000 pid=4093687616 tid=\"18446744073709551615\"
#6 [6] X cpu_op \"missing_ids\" cat=cpu_op ts=7000 dur=1000 pid=\"\" tid=\"\"
",
        util::rows_table(r)
    );
    // 13006, "13006(Python)", "Traces", "PyTorch Profiler", -1, -42, "13006", "7", 4093687616,
    // "18446744073709551615", ""
    assert_eq!(r.ids.len(), 11);
    assert_eq!(r.id_text(r.events.tid[5]), "18446744073709551615");
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// Arg spellings: `External id`/`external id`/`External ID`, `correlation`/`correlation_id`/`cid`
/// (`cid` only when there is no `correlation`, whatever the key order), `bytes`/`size` (`size`
/// only on memcpy/memset), numeric-string streams.
#[test]
fn args_key_drift() {
    let t = load("kineto/args-drift.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"aten::copy_\" cat=cpu_op ts=10000 dur=50000 pid=1 tid=1 ext=1
#1 [1] X runtime \"cudaMemcpyAsync\" cat=cuda_runtime ts=11000 dur=2000 pid=1 tid=1 corr=11 ext=1
#2 [2] X memcpy \"Memcpy HtoD (Pageable -> Device)\" cat=gpu_memcpy ts=20000 dur=1000 pid=0 tid=7 stream=7 corr=11 ext=1 Device=0 Bytes=4096
#3 [3] X runtime \"cudaMemsetAsync\" cat=cuda_runtime ts=14000 dur=2000 pid=1 tid=1 corr=12 ext=1
#4 [4] X memset \"Memset (Device)\" cat=gpu_memset ts=22000 dur=1000 pid=0 tid=7 stream=7 corr=12 Bytes=64
#5 [5] X runtime \"hipLaunchKernel\" cat=cuda_runtime ts=16000 dur=2000 pid=1 tid=1 corr=13
#6 [6] X runtime \"hipModuleLaunchKernel\" cat=cuda_runtime ts=18000 dur=2000 pid=1 tid=1 corr=14
#7 [7] X kernel \"k13\" cat=kernel ts=30000 dur=1000 pid=0 tid=0 stream=0 corr=13
#8 [8] X kernel \"k14\" cat=kernel ts=32000 dur=1000 pid=0 tid=0 stream=0 corr=14
#9 [9] X kernel \"k108\" cat=kernel ts=34000 dur=1000 pid=0 tid=0 stream=0 corr=108
",
        util::rows_table(r)
    );
    eqnice!(
        "\
#1 launch=#2 op=#0 parent=#0
#2 launch=#1 op=#0
#3 launch=#4 op=#0 parent=#0
#4 launch=#3
#5 launch=#7 parent=#0
#6 launch=#8 parent=#0
#7 launch=#5
#8 launch=#6
",
        util::links_table(r)
    );
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// Top-level keys and `M` events: distributedInfo (rank 3 → the rank), deviceProperties,
/// process/thread names; other metadata events (labels, sort indexes) are counted, not rows.
#[test]
fn metadata() {
    let t = load("kineto/metadata.json");
    let r = &t.ranks[0];
    eqnice!("#0 [8] X cpu_op \"aten::empty\" cat=cpu_op ts=10000 dur=1000 pid=77 tid=77\n", util::rows_table(r));
    assert_eq!(r.rank, 3);
    let d = r.meta.distributed.clone().expect("distributedInfo");
    assert_eq!((d.rank, d.world_size, d.backend.as_deref()), (Some(3), Some(8), Some("nccl")));
    let devices: Vec<_> = r.meta.devices.iter().map(|d| (d.id, d.name.clone(), d.total_global_mem, d.compute.clone(), d.num_sms)).collect();
    let a100 = || Some("NVIDIA A100-SXM4-80GB".to_string());
    assert_eq!(
        devices,
        vec![
            (Some(0), a100(), Some(85097971712), Some("8.0".to_string()), Some(108)),
            (Some(1), a100(), Some(85097971712), Some("8.0".to_string()), Some(108))
        ]
    );
    assert_eq!(r.meta.top_level_keys, s(&["schemaVersion", "deviceProperties", "distributedInfo", "record_shapes", "traceName"]));
    assert_eq!(r.meta.trace_name.as_deref(), Some("/tmp/libkineto_activities_77.json"));
    assert_eq!(
        names(r),
        (
            vec![("0".into(), "python3".into()), ("77".into(), "python3".into())],
            vec![("0".into(), "7".into(), "stream 7 ".into()), ("77".into(), "77".into(), "thread 77 (python3)".into())]
        )
    );
    assert_eq!(counts(r), (9, 0, map(&[("cpu_op", 1), ("metadata", 8)]), map(&[("cpu_op", 1)]), map(&[("M", 8), ("X", 1)])));
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// Every phase: M, X, B/E (paired per thread, nested), C (counter samples), i/I, s/t/f (ids,
/// also hex strings), b/e/n (async), P (other), X without cat.
#[test]
fn phases() {
    let t = load("kineto/phases.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [1] X cpu_op \"complete\" cat=cpu_op ts=100000 dur=50000 pid=1 tid=2
#1 [2] B user_annotation \"outer\" cat=user_annotation ts=110000 dur=35000 pid=1 tid=2
#2 [3] B user_annotation \"inner\" cat=user_annotation ts=120000 dur=10000 pid=1 tid=2
#3 [6] C counter \"queue\" nocat ts=105000 pid=1 tid=2 C:depth=3 C:bytes=1.5
#4 [7] i instant \"mark\" nocat ts=115000 pid=1 tid=2
#5 [8] i instant \"Mark\" nocat ts=116000 pid=1 tid=2
#6 [9] s fwdbwd_flow \"fwdbwd\" cat=fwdbwd ts=100000 pid=1 tid=2 FlowId=4
#7 [10] t flow \"step\" nocat ts=120000 pid=1 tid=2 FlowId=4
#8 [11] f fwdbwd_flow \"fwdbwd\" cat=fwdbwd ts=140000 pid=1 tid=3 FlowId=4
#9 [12] s flow \"hexflow\" nocat ts=101000 pid=1 tid=2 FlowId=31
#10 [13] b/e/n other \"req\" cat=async_thing ts=102000 pid=1 tid=2 FlowId=9
#11 [14] b/e/n other \"req\" cat=async_thing ts=148000 pid=1 tid=2 FlowId=9
#12 [15] b/e/n instant \"async_inst\" nocat ts=125000 pid=1 tid=2 FlowId=9
#13 [16] other other \"sample\" nocat ts=126000 pid=1 tid=2
#14 [17] X other \"no_cat\" nocat ts=127000 dur=1000 pid=1 tid=2
",
        util::rows_table(r)
    );
    eqnice!("#1 parent=#0\n#2 parent=#1\n#14 parent=#2\n", util::links_table(r));
    assert_eq!(
        counts(r),
        (
            18,
            0,
            map(&[
                ("counter", 1),
                ("cpu_op", 1),
                ("flow", 2),
                ("fwdbwd_flow", 2),
                ("instant", 3),
                ("metadata", 1),
                ("other", 5),
                ("user_annotation", 3)
            ]),
            map(&[("async_thing", 2), ("cpu_op", 1), ("fwdbwd", 2), ("user_annotation", 3)]),
            map(&[
                ("B", 2),
                ("C", 1),
                ("E", 2),
                ("I", 1),
                ("M", 1),
                ("P", 1),
                ("X", 2),
                ("b", 1),
                ("e", 1),
                ("f", 1),
                ("i", 1),
                ("n", 1),
                ("s", 2),
                ("t", 1)
            ])
        )
    );
    assert_eq!(names(r).1, vec![("1".into(), "2".into(), "worker".into())]);
    assert_eq!(r.format, Some(Format::Kineto)); // cat cpu_op
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// Link corner cases: runtime preferred over driver with the same correlation, first operator
/// of a repeated External id, device step from the launcher (not from its own time), no step
/// without launcher, gpu_user_annotation named like a step is not a step, overlapping steps (the
/// later one in file order wins).
#[test]
fn links() {
    let t = load("kineto/links.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X user_annotation \"ProfilerStep#1\" cat=user_annotation ts=0 dur=100000 pid=1 tid=1
#1 [1] X user_annotation \"ProfilerStep#2\" cat=user_annotation ts=100000 dur=100000 pid=1 tid=1
#2 [2] X cpu_op \"aten::linear\" cat=cpu_op ts=10000 dur=80000 pid=1 tid=1 ext=20
#3 [3] X cpu_op \"aten::linear\" cat=cpu_op ts=110000 dur=80000 pid=1 tid=1 ext=20
#4 [4] X driver \"cuLaunchKernel\" cat=cuda_driver ts=22000 dur=5000 pid=1 tid=1 corr=7 ext=20
#5 [5] X runtime \"cudaLaunchKernel\" cat=cuda_runtime ts=20000 dur=10000 pid=1 tid=1 corr=7 ext=20
#6 [6] X kernel \"k7\" cat=kernel ts=105000 dur=10000 pid=0 tid=7 stream=7 corr=7 ext=20
#7 [7] X kernel \"orphan\" cat=kernel ts=120000 dur=10000 pid=0 tid=7 stream=7 corr=99
#8 [8] X gpu_user_annotation \"ProfilerStep#2\" cat=gpu_user_annotation ts=100000 dur=50000 pid=0 tid=7
#9 [9] X user_annotation \"ProfilerStep#3\" cat=user_annotation ts=150000 dur=100000 pid=1 tid=2
#10 [10] X cpu_op \"late_op\" cat=cpu_op ts=160000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    eqnice!(
        "\
#0 step=1
#1 step=2
#2 parent=#0 step=1
#3 parent=#1 step=2
#4 op=#2 parent=#5 step=1
#5 launch=#6 op=#2 parent=#2 step=1
#6 launch=#5 op=#2 parent=#8 step=1
#7 parent=#8
#8 step=2
#9 step=3
#10 parent=#3 step=3
",
        util::links_table(r)
    );
    assert_eq!(
        r.steps.iter().map(|s| (s.number, s.event, s.ts, s.dur)).collect::<Vec<_>>(),
        vec![(1, 0, 0, 100000), (2, 1, 100000, 100000), (3, 9, 150000, 100000)]
    );
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// PaddlePaddle 3.x: `ProfileStep#N[12.3 ms]` steps, `[x us]` name suffixes split off (kept in
/// `full_name`),
/// `start_time`/`end_time` args in ns (the end on GPU ops and steps only), tids `"13006(Python)"`/`"13006(C++)"`, trailing `{}`.
#[test]
fn paddle() {
    let t = load("paddle/profile-steps.json");
    let r = &t.ranks[0];
    // analyses see names without Paddle's timing suffix; the file's text is `full_name`
    assert_eq!((r.name(3), &*r.full_name(3)), ("matmul kernel launch", "matmul kernel launch[12.3 us]"));
    assert_eq!((r.name(5), &*r.full_name(5)), ("[memory]", "[memory]"));
    eqnice!(
        "\
#0 [0] X profiler_step \"ProfileStep#2[12.3 ms]\" cat=ProfileStep ts=1795388036039728000 dur=12300500 pid=13006 tid=\"13006(Python)\" PaddleStartNs=0 PaddleEndNs=12300500
#1 [1] X framework_phase \"MLP[2.277 ms]\" cat=Forward ts=1795388036039948000 dur=2277136 pid=13006 tid=\"13006(Python)\" PaddleStartNs=220388
#2 [2] X cpu_op \"matmul dygraph[1.169 ms]\" cat=Operator ts=1795388036040095000 dur=1168638 pid=13006 tid=\"13006(C++)\" PaddleStartNs=367066
#3 [3] X kernel_launch \"matmul kernel launch[12.3 us]\" cat=DygraphKernelLaunch ts=1795388036040100000 dur=12300 pid=13006 tid=\"13006(C++)\" PaddleStartNs=372066
#4 [4] X cpu_op \"matmul infer_meta[1.234 us]\" cat=OperatorInner ts=1795388036040113500 dur=1234 pid=13006 tid=\"13006(C++)\" PaddleStartNs=1234567
#5 [5] i cpu_instant \"[memory]\" cat=Allocate ts=1795388036040200000 pid=13006 tid=\"13006(C++)\"
#6 [6] i cpu_instant \"[memory]\" cat=Free ts=1795388036041000000 pid=13006 tid=\"13006(C++)\"
#7 [7] X user_annotation \"relu pybind_imperative_func[26.639 us]\" cat=UserDefined ts=1795388036041400000 dur=26639 pid=13006 tid=\"13006(Python)\" PaddleStartNs=1672000
#8 [8] X profiler_step \"ProfileStep#3[5.867 ms]\" cat=ProfileStep ts=1795388036052100000 dur=5867000 pid=13006 tid=\"13006(Python)\" PaddleStartNs=12372000 PaddleEndNs=18239000
",
        util::rows_table(r)
    );
    eqnice!(
        "\
#0 step=2
#1 parent=#0 step=2
#2 step=2
#3 parent=#2 step=2
#4 parent=#2 step=2
#5 step=2
#6 step=2
#7 parent=#1 step=2
#8 step=3
",
        util::links_table(r)
    );
    assert_eq!(r.events.int_arg(0, IntArg::PaddleEndNs), Some(12_300_500)); // "12300.500 us"
    assert_eq!(r.events.int_arg(8, IntArg::PaddleStartNs), Some(12_372_000)); // "12372.000 us"
    assert_eq!(r.events.int_arg(4, IntArg::PaddleEndNs), None); // a CPU op: its start only
    assert_eq!(
        counts(r),
        (
            11,
            1,
            map(&[
                ("cpu_instant", 2),
                ("cpu_op", 2),
                ("framework_phase", 1),
                ("kernel_launch", 1),
                ("metadata", 2),
                ("profiler_step", 2),
                ("user_annotation", 1)
            ]),
            map(&[
                ("Allocate", 1),
                ("DygraphKernelLaunch", 1),
                ("Forward", 1),
                ("Free", 1),
                ("Operator", 1),
                ("OperatorInner", 1),
                ("ProfileStep", 2),
                ("UserDefined", 1)
            ]),
            map(&[("M", 2), ("X", 7), ("i", 2)])
        )
    );
    assert_eq!(
        names(r),
        (vec![("13006".into(), "Process 13006 (CPU)".into())], vec![("13006".into(), "\"13006(C++)\"".into(), "thread 13006:C++".into())])
    );
    assert_eq!(r.format, Some(Format::Paddle));
    assert_eq!(r.meta.top_level_keys, s(&["displayTimeUnit", "schemaVersion", "span_index", "ExtraInfo"]));
    assert_eq!(r.meta.schema_version.as_deref(), Some("1.0.2"));
    assert!(r.meta.ts_fractional_or_missing);
    assert!(r.warnings.is_empty(), "{:?}", util::warnings_list(r));
}

/// A folder of two ranks whose names say nothing: ranks from `distributedInfo` (b.json writes it
/// compactly, `"rank":0`, which HTA's text regex would miss, SPEC §1.1).
#[test]
fn two_ranks_from_distributed_info() {
    let read = |f: &str| {
        let rel = format!("kineto/two-ranks/{f}");
        util::read_chunked(&rel, &util::bytes(&util::testdata(&rel)), 7).unwrap_or_else(|e| panic!("{e}"))
    };
    let t = assemble(vec![read("a.json"), read("b.json")]);
    let got: Vec<_> = t.ranks.iter().map(|r| (r.rank, r.files[0].clone(), r.events.len())).collect();
    assert_eq!(got, vec![(0, "kineto/two-ranks/b.json".to_string(), 1), (1, "kineto/two-ranks/a.json".to_string(), 2)]);
    assert!(t.warnings.is_empty());
}

// ---------------------------------------------------------------------------------------------
// Damage: recoverable (warnings) and fatal (errors)
// ---------------------------------------------------------------------------------------------

const AB_ROWS: &str = "\
#0 [0] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [1] X cpu_op \"b\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
";

/// Cut inside the third event (which starts at byte 184): the two complete events are kept.
#[test]
fn truncated_tail() {
    let t = load("kineto/bad/truncated-tail.json");
    let r = &t.ranks[0];
    eqnice!(AB_ROWS, util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::TruncatedTail, 1, 184)]);
    assert_eq!(details(r), s(&["incomplete event at byte 184 dropped"]));
    assert_eq!(r.counts.events, 2);
}

/// The same text as truncated-tail.json, gzip-stored (no compression) and cut after compressed
/// byte 254 = 10 (gzip header) + 5 (stored-block header) + 239 (the JSON up to the cut).
#[test]
fn truncated_gzip() {
    let t = load("kineto/bad/truncated-gzip.json.gz");
    let r = &t.ranks[0];
    eqnice!(AB_ROWS, util::rows_table(r));
    // one for the gzip stream (compressed offset), one for the JSON event it cut
    assert_eq!(warnings(r), vec![(WarningKind::TruncatedGzip, 1, 254), (WarningKind::TruncatedTail, 1, 184)]);
    assert_eq!(details(r), s(&["at compressed byte 254", "incomplete event at byte 184 dropped"]));
    assert_eq!(r.meta.gzip_members, 1); // the member that was cut
}

/// object-form.json.gz with the first deflate byte's block type set to the reserved value 3.
#[test]
fn corrupt_gzip() {
    let e = load_err("kineto/bad/corrupt-gzip.json.gz");
    eqnice!(
        "kineto/bad/corrupt-gzip.json.gz: byte 28: expected valid gzip (deflate) data, found corrupt deflate data at compressed byte 28",
        e.to_string()
    );
}

/// object-form.json.gz followed by `garbage\n`: the trace is read, the garbage warned about.
#[test]
fn garbage_after_gzip() {
    let t = load("kineto/bad/garbage-after-gzip.json.gz");
    let r = &t.ranks[0];
    eqnice!(OBJECT_FORM_ROWS, util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::TrailingGarbageAfterGzip, 1, 264)]);
    assert_eq!(r.meta.gzip_members, 1);
}

/// `,}` inside event a (byte 18), `,]` closing the array (the `]` at 185), `,}` closing the
/// top-level object (the `}` at 206).
#[test]
fn trailing_comma() {
    let t = load("kineto/bad/trailing-comma.json");
    let r = &t.ranks[0];
    eqnice!(AB_ROWS, util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::StrayComma, 3, 18)]);
    assert_eq!(details(r), s(&["inside an event object"]));
    assert_eq!(r.meta.trace_name.as_deref(), Some("x"));
}

/// `[,` (17), `},,` (101), `"b",,` inside event b (103), a line starting with `,` after `},`
/// (187), `],,` in the top-level object (272).
#[test]
fn stray_commas() {
    let t = load("kineto/bad/stray-commas.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [1] X cpu_op \"b\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
#2 [2] X cpu_op \"c\" cat=cpu_op ts=30000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::StrayComma, 5, 17)]);
    assert_eq!(details(r), s(&["',' with no event before it"]));
    assert_eq!(r.meta.trace_name.as_deref(), Some("x"));
}

/// Times as strings (rocprof v1 writes them) are read exactly; a string that is not a number
/// drops its event. A Kineto file stays Kineto.
#[test]
fn ts_as_string() {
    let t = load("kineto/bad/ts-as-string.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"string_ts\" cat=cpu_op ts=1795388036039728123 dur=12500 pid=1 tid=1
#1 [1] X cpu_op \"number_ts\" cat=cpu_op ts=1795388036039740000 dur=1000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::IllTypedField, 1, 239)]);
    assert_eq!(details(r), s(&["\"ts\": \"soon\" is not a time in µs (NotANumber)"]));
    assert_eq!(r.counts.events, 3);
    assert_eq!(r.format, Some(Format::Kineto));
}

/// No `ts`: X and i events dropped (MissingField), M events need none; `"ts": null` is ill-typed.
#[test]
fn ts_missing() {
    let t = load("kineto/bad/ts-missing.json");
    let r = &t.ranks[0];
    eqnice!("#0 [0] X cpu_op \"has_ts\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1\n", util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::MissingField, 2, 106), (WarningKind::IllTypedField, 1, 311)]);
    assert_eq!(details(r), s(&["event \"no_ts\" (ph X) has no \"ts\"", "\"ts\" is null, expected a number"]));
    assert_eq!(
        counts(r),
        (5, 0, map(&[("cpu_op", 3), ("instant", 1), ("metadata", 1)]), map(&[("cpu_op", 3)]), map(&[("M", 1), ("X", 3), ("i", 1)]))
    );
    assert_eq!(names(r).0, vec![("1".to_string(), "p".to_string())]);
    assert!(r.meta.ts_fractional_or_missing);
}

/// Negative durations become 0 (still a duration); `-0.0004` µs rounds to 0 ns and is no damage.
#[test]
fn dur_negative() {
    let t = load("kineto/bad/dur-negative.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X kernel \"neg\" cat=kernel ts=100000 dur=0 pid=0 tid=7
#1 [1] X kernel \"neg_frac\" cat=kernel ts=110700 dur=0 pid=0 tid=7
#2 [2] X kernel \"zero\" cat=kernel ts=120000 dur=0 pid=0 tid=7
#3 [3] X kernel \"tiny\" cat=kernel ts=130000 dur=0 pid=0 tid=7
#4 [4] X kernel \"neg_sub_ns\" cat=kernel ts=140000 dur=0 pid=0 tid=7
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::NegativeDuration, 2, 18)]);
    assert_eq!(details(r), s(&["dur -3000 ns"]));
}

/// `"ts": true`, `"ts": {...}`, `"ts": 1e30` (out of range) drop the event; `"cat": 7` and
/// `"dur": false` are ignored on a kept event; a number as name and as `ph` are taken as they are.
#[test]
fn ill_typed_fields() {
    let t = load("kineto/bad/ill-typed-fields.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [2] X other \"cat_number\" nocat ts=10000 dur=5000 pid=1 tid=1
#1 [3] X cpu_op \"dur_bool\" cat=cpu_op ts=20000 pid=1 tid=1
#2 [5] X cpu_op \"42\" cat=cpu_op ts=30000 dur=1000 pid=1 tid=1
#3 [6] other cpu_op \"ph_number\" cat=cpu_op ts=40000 dur=1000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::IllTypedField, 6, 18)]);
    assert_eq!(details(r), s(&["\"ts\" is a boolean, expected a number"]));
    assert_eq!(counts(r), (7, 0, map(&[("cpu_op", 6), ("other", 1)]), map(&[("cpu_op", 6)]), map(&[("?", 1), ("X", 6)])));
}

/// Bytes 0xff/0xfe inside strings become U+FFFD: in a name (18), in args (108), after an escape
/// (307). A valid `\u00e9` escape is no damage.
#[test]
fn invalid_utf8() {
    let t = load("kineto/bad/invalid-utf8.json");
    let r = &t.ranks[0];
    let got: Vec<&str> = (0..4).map(|e| r.name(e)).collect();
    assert_eq!(got, vec!["bad\u{FFFD}name", "ok", "esc\u{e9}", "esc\n\u{FFFD}"]);
    assert_eq!(warnings(r), vec![(WarningKind::InvalidUtf8, 3, 18)]);
    assert_eq!(details(r), s(&["in an event"]));
}

/// `1`, `"text"`, `null`, `true` and a nested array in the event array are skipped; array
/// indexes still count them.
#[test]
fn non_object_elements() {
    let t = load("kineto/bad/non-object-elements.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [1] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [6] X cpu_op \"b\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::NonObjectEvent, 5, 18)]);
    assert_eq!(details(r), s(&["'1' in the event array"]));
    assert_eq!(r.counts.events, 2);
}

/// `{"ph": "X", "ts": 1,, }` is tolerated (a stray comma), `{"ph" "X"}` (no colon, at byte 137)
/// and a bad escape `\e` (at 184) are malformed and skipped; the events around them are kept.
#[test]
fn malformed_event() {
    let t = load("kineto/bad/malformed-event.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] X cpu_op \"before\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1
#1 [1] X other \"\" nocat ts=1000 pid=\"\" tid=\"\"
#2 [4] X cpu_op \"after\" cat=cpu_op ts=20000 dur=5000 pid=1 tid=1
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::StrayComma, 1, 106), (WarningKind::MalformedEvent, 2, 137)]);
    assert_eq!(details(r), s(&["inside an event object", "expected ':' at byte 137, found '\"X\"}'"]));
    assert_eq!(counts(r), (5, 0, map(&[("cpu_op", 2), ("other", 3)]), map(&[("cpu_op", 2)]), map(&[("?", 2), ("X", 3)])));
}

#[test]
fn empty_file() {
    eqnice!(
        "kineto/bad/empty.json: byte 0: expected a trace (JSON or rocprof CSV), found end of input (the file is empty)",
        load_err("kineto/bad/empty.json").to_string()
    );
}

/// ` \n\t\n`: 4 blank bytes.
#[test]
fn whitespace_only() {
    eqnice!(
        "kineto/bad/whitespace-only.json: byte 4: expected a trace (JSON or rocprof CSV), found end of input (the file is empty or blank)",
        load_err("kineto/bad/whitespace-only.json").to_string()
    );
}

#[test]
fn not_json() {
    eqnice!(
        "kineto/bad/not-json.json: byte 0: expected a trace: JSON ('{' or '['), gzip, or a rocprof CSV header (kernel_trace, memory_copy_trace, *_api_trace, results.csv), found 'hello'",
        load_err("kineto/bad/not-json.json").to_string()
    );
}

/// `{"foo": 1}` is JSON but no trace: the error points at its closing brace (byte 9).
#[test]
fn wrong_shape_object() {
    eqnice!(
        "kineto/bad/wrong-shape-object.json: byte 9: expected a \"traceEvents\" array (Chrome trace format), found end of the top-level object without one",
        load_err("kineto/bad/wrong-shape-object.json").to_string()
    );
}

#[test]
fn wrong_shape_number() {
    eqnice!(
        "kineto/bad/wrong-shape-number.json: byte 0: expected a trace: JSON ('{' or '['), gzip, or a rocprof CSV header (kernel_trace, memory_copy_trace, *_api_trace, results.csv), found '42'",
        load_err("kineto/bad/wrong-shape-number.json").to_string()
    );
}

/// Two `B` never closed (byte 18 on tid 1, byte 241 on tid 2): kept without duration.
#[test]
fn unclosed_begin() {
    let t = load("kineto/bad/unclosed-b.json");
    let r = &t.ranks[0];
    eqnice!(
        "\
#0 [0] B user_annotation \"open_forever\" cat=user_annotation ts=10000 pid=1 tid=1
#1 [1] B user_annotation \"closed\" cat=user_annotation ts=20000 dur=10000 pid=1 tid=1
#2 [3] B user_annotation \"other_thread\" cat=user_annotation ts=40000 pid=1 tid=2
",
        util::rows_table(r)
    );
    assert_eq!(warnings(r), vec![(WarningKind::UnclosedBegin, 2, 18)]);
    assert_eq!(details(r), s(&["'B' of \"open_forever\" has no 'E'"]));
}

/// `E` before any `B` (18), on a thread with no open `B` (116), and one more than the `B`s (202).
#[test]
fn unmatched_end() {
    let t = load("kineto/bad/unmatched-e.json");
    let r = &t.ranks[0];
    eqnice!("#0 [1] B other \"a\" nocat ts=10000 dur=10000 pid=1 tid=1\n", util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::UnmatchedEnd, 3, 18)]);
    assert_eq!(details(r), s(&["'E' of \"\""]));
    assert_eq!(r.counts.events, 5);
}

/// Text after the closing `}` (from byte 103) is ignored, including a second document.
#[test]
fn trailing_garbage() {
    let t = load("kineto/bad/trailing-garbage.json");
    let r = &t.ranks[0];
    eqnice!("#0 [0] X cpu_op \"a\" cat=cpu_op ts=10000 dur=5000 pid=1 tid=1\n", util::rows_table(r));
    assert_eq!(warnings(r), vec![(WarningKind::TrailingData, 1, 103)]);
    assert_eq!(details(r), s(&["'garbage after the end {\"traceEvents\": []…' after the end of the JSON document"]));
}

/// Every file in testdata/kineto and testdata/paddle has a test above.
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
    let source = include_str!("read_testdata.rs");
    let cli = include_str!("cli.rs");
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
