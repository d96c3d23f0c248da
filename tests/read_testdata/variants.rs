//! Each variant of the formats the readers accept, one fixture each.

use super::*;

pub(super) const OBJECT_FORM_ROWS: &str = "\
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
