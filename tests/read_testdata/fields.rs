//! How fields are read: exact times, pid/tid forms, args spellings, metadata, phases, links.

use super::*;

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
    assert_eq!(r.id_text(r.events.tid.get(5)), "18446744073709551615");
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
