//! Decode-step statistics and time-range extraction (kernel_extractor's `stats` and `extract`) on
//! the hand-made traces of `testdata/decode/` (every expected number is worked out in
//! `testdata/README.md`), the shared Paddle trace, and the `stats`/`extract` commands.

use std::process::Command;

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::decode::{decode_stats, DecodeOptions, ANALYSIS};
use kinetoscope::analysis::gpu_ops::{extract, parse_range, ANALYSIS as EXTRACT_ANALYSIS};
use kinetoscope::table::Report;
use kinetoscope::Trace;

use crate::{eqnice, util};

fn read(rel: &[&str]) -> Trace {
    let files: Vec<(String, Vec<u8>)> = rel.iter().map(|f| (f.to_string(), util::bytes(&util::testdata(&format!("decode/{f}"))))).collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    kinetoscope::read::read_all(&refs).expect("read")
}

fn run(trace: &Trace, opts: &[(&str, &str)]) -> Result<Report, String> {
    let params = Params::new(ANALYSIS.options, opts.iter().copied()).map_err(|e| e.0)?;
    let ctx = Context::new(trace, false, None).map_err(|e| e.0)?;
    (ANALYSIS.run)(&ctx, &params).map_err(|e| e.0)
}

fn table(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

/// kernel_extractor's columns. Decode steps 2, 3, 5 (10, 12, 9 ms) are cut at
/// recover_decode_task; step 4 lacks it, step 7 has no operation; steps 1 and 6 are prefill.
const AVERAGES: &str = "operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us
recover_decode_task,0.0,100.0,100.0,0.0
gemm,206.66666666666666,1206.6666666666667,1000.0,106.66666666666667
softmax,1250.0,1300.0,50.0,43.333333333333336
gemm,1366.6666666666667,1900.0,533.3333333333334,66.66666666666667
MEMCPY_DtoH,2000.0,2100.0,100.0,100.0
";

const OP_STATS: &str = "operation_name,occurrence,steps,avg_start_time_us,avg_end_time_us,avg_duration_us,p50_duration_us,p90_duration_us,max_duration_us,std_duration_us,bubble_time_us
recover_decode_task,0,3,0.0,100.0,100.0,100.0,100.0,100.0,0.0,0.0
gemm,0,3,206.66666666666666,1206.6666666666667,1000.0,1000.0,1000.0,1000.0,0.0,106.66666666666667
softmax,0,1,1250.0,1300.0,50.0,50.0,50.0,50.0,,43.333333333333336
gemm,1,3,1366.6666666666667,1900.0,533.3333333333334,500.0,580.0,600.0,57.735026918962575,66.66666666666667
MEMCPY_DtoH,0,3,2000.0,2100.0,100.0,100.0,100.0,100.0,0.0,100.0
";

const STEPS: &str = "rank,step,kind,start_time_us,duration_us,start_kernel_offset_us,gpu_ops,gpu_busy_us,bubble_us,sequence,outlier
0,1,prefill,0.0,40000.0,0.0,1,29000.0,1000.0,,
0,2,decode,50000.0,10000.0,500.0,4,1700.0,300.0,most common,
0,3,decode,70000.0,12000.0,200.0,4,1800.0,400.0,most common,
0,4,no start kernel,90000.0,11000.0,0.0,1,100.0,100.0,,
0,5,decode,110000.0,9000.0,0.0,5,1750.0,350.0,differs,
0,6,prefill,130000.0,31000.0,0.0,1,29000.0,1000.0,,
0,7,no start kernel,170000.0,25000.0,0.0,0,0.0,0.0,,slow
";

/// The Paddle trace (names with `[xx us]` suffixes, exact times in `args`, `ts` on another clock)
/// and the Kineto trace of the same timeline give the same tables.
#[test]
fn paddle_and_kineto_give_the_same_statistics() {
    for f in ["paddle-decode.json", "kineto-decode.json"] {
        let r = run(&read(&[f]), &[]).expect(f);
        let names: Vec<&str> = r.tables.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["decode_op_averages", "decode_op_stats", "decode_steps", "decode_outlier_steps", "decode_ranks"], "{f}");
        eqnice!(AVERAGES, table(&r, "decode_op_averages"));
        eqnice!(OP_STATS, table(&r, "decode_op_stats"));
        eqnice!(STEPS, table(&r, "decode_steps"));
        eqnice!(
            "rank,step,outlier,duration_us,median_decode_step_us,ratio_to_median\n0,7,slow,25000.0,11000.0,2.272727272727273\n",
            table(&r, "decode_outlier_steps")
        );
        eqnice!(
            "rank,steps,prefill_steps,decode_steps,no_start_kernel_steps,excluded_steps,sequence_differs_steps,outlier_steps,avg_decode_step_us,p50_decode_step_us,p90_decode_step_us,max_decode_step_us,avg_gpu_busy_us,avg_bubble_us,avg_gpu_ops
0,7,2,3,2,0,1,1,10333.333333333334,10000.0,11600.0,12000.0,1750.0,350.0,4.333333333333333
",
            table(&r, "decode_ranks")
        );
        assert!(r.notes[0].starts_with("rank 0: 7 steps, 2 prefill (> 30.000 ms), 3 decode steps averaged"), "{:?}", r.notes);
        assert!(r.notes[0].contains("2 skipped without 'recover_decode_task'"), "{:?}", r.notes);
        assert!(r.notes[0].contains("1 with another operation sequence"), "{:?}", r.notes);
    }
}

/// The GPU behind the CPU: each decode step's MEMCPY_DtoH (and the prefill's gemm) runs past the
/// step that launched it. By the window rule (default) steps 2 and 3 lose it, and a note counts
/// the 2 operations; `by_launch` counts each with the step that launched it (same correlation
/// id), and the memset without a launching call by its window. Paddle (`correlation id`, times
/// from `args` for the runtime calls too) and Kineto give the same tables.
#[test]
fn operations_can_be_counted_by_launch() {
    let mut by_launch = None;
    for f in ["paddle-lagging.json", "kineto-lagging.json"] {
        let t = read(&[f]);
        let r = run(&t, &[]).expect(f);
        eqnice!(
            "operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us
recover_decode_task,0.0,100.0,100.0,0.0
gemm,200.0,6500.0,6300.0,100.0
MEMCPY_DtoH,7500.0,8000.0,500.0,1000.0
memset_unlinked,9500.0,9600.0,100.0,1500.0
",
            table(&r, "decode_op_averages")
        );
        eqnice!(
            "rank,step,kind,start_time_us,duration_us,start_kernel_offset_us,gpu_ops,gpu_busy_us,bubble_us,sequence,outlier
0,1,prefill,0.0,40000.0,0.0,0,0.0,0.0,,
0,2,decode,50000.0,10000.0,5000.0,2,3900.0,100.0,most common,
0,3,decode,60000.0,12000.0,1000.0,2,8900.0,100.0,most common,
0,4,decode,72000.0,12000.0,1500.0,4,7000.0,2600.0,differs,
",
            table(&r, "decode_steps")
        );
        let late = "2 GPU operations launched from decode steps ran past their step's end (the GPU behind the CPU) and are not counted; by_launch (--by-launch) counts operations with the step that launched them";
        assert!(r.notes.iter().any(|n| n == late), "{f}: {:?}", r.notes);

        let r = run(&t, &[("by_launch", "true")]).expect(f);
        eqnice!(
            "operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us
recover_decode_task,0.0,100.0,100.0,0.0
gemm,200.0,6500.0,6300.0,100.0
MEMCPY_DtoH,7333.333333333333,8500.0,1166.6666666666667,833.3333333333334
memset_unlinked,9500.0,9600.0,100.0,1000.0
",
            table(&r, "decode_op_averages")
        );
        eqnice!(
            "rank,step,kind,start_time_us,duration_us,start_kernel_offset_us,gpu_ops,gpu_busy_us,bubble_us,sequence,outlier
0,1,prefill,0.0,40000.0,0.0,1,44000.0,1000.0,,
0,2,decode,50000.0,10000.0,5000.0,3,4900.0,600.0,most common,
0,3,decode,60000.0,12000.0,1000.0,3,10900.0,1100.0,most common,
0,4,decode,72000.0,12000.0,1500.0,4,7000.0,2600.0,differs,
",
            table(&r, "decode_steps")
        );
        assert!(!r.notes.iter().any(|n| n == late), "{f}: {:?}", r.notes);
        let unlinked =
            "1 GPU operation of decode steps had no launching call in the trace and was counted in the step it started and ended in";
        assert!(r.notes.iter().any(|n| n == unlinked), "{f}: {:?}", r.notes);
        by_launch = Some(r);
    }
    // Paddle annotations as steps: placed by their `args` times, the clock of the GPU operations
    // (their `ts` is on another one), so the same steps and operations
    let text = String::from_utf8(util::bytes(&util::testdata("decode/paddle-lagging.json"))).expect("utf-8");
    let renamed: Vec<String> = text
        .lines()
        .map(|l| match l.find("\"ProfileStep#") {
            Some(i) => format!("{}\"execute_model{}", &l[..i], &l[i + l[i..].find('[').expect("suffix")..])
                .replace("\"cat\": \"ProfileStep\"", "\"cat\": \"UserDefined\""),
            None => l.to_string(),
        })
        .collect();
    let t = kinetoscope::read::read_all(&[("annotated.json", renamed.join("\n").as_bytes())]).expect("read");
    let r = run(&t, &[("by_launch", "true"), ("step_name", "execute_model")]).expect("runs");
    let by_launch = by_launch.expect("ran");
    for name in ["decode_op_averages", "decode_op_stats", "decode_steps"] {
        eqnice!(table(&by_launch, name), table(&r, name));
    }
}

/// Without profiler steps (an inference server's trace), `step_name` makes the occurrences of an
/// annotation the steps: the Kineto timeline above with `execute_model` for `ProfilerStep#N`
/// gives the same tables (steps numbered 1-7); the nested `execute_model` inside the second
/// one is not a step. Without the option, the error lists the annotations found.
#[test]
fn an_annotation_can_mark_the_steps() {
    let t = read(&["kineto-annotated.json"]);
    let e = run(&t, &[]).unwrap_err();
    eqnice!(
        "no profiler step in the trace: expected ProfileStep#N (Paddle, cat ProfileStep) or ProfilerStep#N (PyTorch) events; found 28 events (18 GPU operations) and these user annotations, the most frequent first: 'execute_model' (8), 'sample' (2); give one as step_name (--step-name) to use its occurrences as steps",
        e
    );
    let r = run(&t, &[("step_name", "execute_model")]).expect("runs");
    eqnice!(AVERAGES, table(&r, "decode_op_averages"));
    eqnice!(OP_STATS, table(&r, "decode_op_stats"));
    eqnice!(STEPS, table(&r, "decode_steps"));
    assert!(
        r.notes.contains(&"steps are the CPU-side events named 'execute_model', numbered from 1 in time order".to_string()),
        "{:?}",
        r.notes
    );
    let e = run(&t, &[("step_name", "execute_model"), ("prefill_ms", "5")]).unwrap_err();
    assert!(e.starts_with("no decode step: 7 of the 7 steps are prefill (> 5.000 ms)"), "{e}");
    let e = run(&t, &[("step_name", "execute")]).unwrap_err();
    assert!(e.starts_with("no step: no CPU-side complete event is named 'execute'; found 28 events"), "{e}");
}

/// `none`: every decode step (2, 3, 4, 5, 7) from its start, warmup_copy included.
#[test]
fn without_start_kernel_times_are_from_the_step_start() {
    let r = run(&read(&["paddle-decode.json"]), &[("start_kernel", "none")]).expect("runs");
    eqnice!(
        "operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us
warmup_copy,100.0,200.0,100.0,100.0
recover_decode_task,233.33333333333334,333.3333333333333,100.0,33.333333333333336
gemm,355.0,1130.0,775.0,21.666666666666668
softmax,1250.0,1300.0,50.0,120.0
gemm,1600.0,2133.3333333333335,533.3333333333334,300.0
MEMCPY_DtoH,2233.3333333333335,2333.3333333333335,100.0,100.0
",
        table(&r, "decode_op_averages")
    );
}

/// `decode_ms 10,11` keeps steps 2 and 4 (step 4 has no start kernel); `prefill_ms 9.5` leaves
/// only step 5.
#[test]
fn decode_range_and_prefill_threshold() {
    let t = read(&["paddle-decode.json"]);
    let r = run(&t, &[("decode_ms", "10,11")]).expect("runs");
    eqnice!(
        "operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us
recover_decode_task,0.0,100.0,100.0,0.0
gemm,200.0,1200.0,1000.0,100.0
gemm,1300.0,1800.0,500.0,100.0
MEMCPY_DtoH,1900.0,2000.0,100.0,100.0
",
        table(&r, "decode_op_averages")
    );
    let kinds: Vec<String> =
        table(&r, "decode_steps").lines().skip(1).map(|l| l.split(',').nth(2).unwrap_or_default().to_string()).collect();
    assert_eq!(kinds, ["prefill", "decode", "excluded", "no start kernel", "excluded", "prefill", "excluded"]);
    let r = run(&t, &[("decode_ms", ",11"), ("prefill_ms", "9.5")]).expect("runs");
    eqnice!(
        "operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us
recover_decode_task,0.0,100.0,100.0,0.0
gemm,200.0,1200.0,1000.0,100.0
softmax,1250.0,1300.0,50.0,50.0
gemm,1400.0,1900.0,500.0,100.0
MEMCPY_DtoH,2000.0,2100.0,100.0,100.0
",
        table(&r, "decode_op_averages")
    );
}

/// With `keep_suffix` names keep Paddle's `[xx us]`, so gemms of different durations no longer
/// match each other.
#[test]
fn keep_suffix_keeps_names_whole() {
    let r = run(&read(&["paddle-decode.json"]), &[("keep_suffix", "true")]).expect("runs");
    let csv = table(&r, "decode_op_stats");
    let rows: Vec<&str> =
        csv.lines().skip(1).map(|l| l.rsplit_once("]\",").or_else(|| l.split_once(',')).map(|p| p.0).unwrap_or(l)).collect();
    assert!(rows[0].starts_with("recover_decode_task[100.000 us]"), "{csv}");
    assert!(csv.contains("gemm[500.000 us],0,2,"), "{csv}");
    assert!(csv.contains("gemm[600.000 us],0,1,"), "{csv}");
}

/// Errors say what was found instead.
#[test]
fn errors_name_what_was_found() {
    let t = read(&["paddle-decode.json"]);
    let e = run(&t, &[("start_kernel", "flash_decode")]).unwrap_err();
    eqnice!(
        "start kernel 'flash_decode' is in none of the 5 decode steps; their first GPU operations are 'recover_decode_task' (2 steps), 'gemm' (1 step), 'warmup_copy' (1 step); give the name of the kernel that begins a decode step, or none to measure from the step start",
        e
    );
    let e = run(&t, &[("prefill_ms", "5")]).unwrap_err();
    eqnice!("no decode step: 7 of the 7 profiler steps are prefill (> 5.000 ms); the shortest takes 9.000 ms; set prefill_ms (--prefill-ms) above it to count such steps as decode steps", e);
    let e = run(&t, &[("decode_ms", "1,2")]).unwrap_err();
    eqnice!("no decode step: 2 of the 7 profiler steps are prefill (> 30.000 ms) and 5 outside decode_ms; the shortest takes 9.000 ms; set prefill_ms (--prefill-ms) or decode_ms (--decode-ms) to count such steps as decode steps", e);
    let e = run(&t, &[("decode_ms", "20,10")]).unwrap_err();
    eqnice!("decode_ms: 20 is more than 10 (expected LO,HI with LO ≤ HI)", e);
    let e = run(&t, &[("decode_ms", "abc")]).unwrap_err();
    eqnice!("decode_ms: expected LO,HI in ms (e.g. 10,20), found 'abc'", e);
    let no_steps =
        kinetoscope::read::read_all(&[("k.json", &br#"[{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"pid":0,"tid":7}]"#[..])])
            .expect("read");
    let e = run(&no_steps, &[]).unwrap_err();
    eqnice!("no profiler step in the trace: expected ProfileStep#N (Paddle, cat ProfileStep) or ProfilerStep#N (PyTorch) events; found 1 event (1 GPU operation) and no user annotation to use as steps", e);
}

/// Two ranks: per rank, then pooled over both (rank 1's first MEMCPY_DtoH takes 400 µs).
#[test]
fn ranks_then_across_ranks() {
    let t = read(&["two-ranks/rank0.json", "two-ranks/rank1.json"]);
    let r = run(&t, &[]).expect("runs");
    let pooled = table(&r, "decode_op_averages");
    assert!(pooled.ends_with("MEMCPY_DtoH,2000.0,2150.0,150.0,100.0\n"), "{pooled}");
    let by_rank = table(&r, "decode_op_stats_by_rank");
    assert!(by_rank.contains("\n0,MEMCPY_DtoH,0,3,2000.0,2100.0,100.0,100.0,100.0,100.0,0.0,100.0\n"), "{by_rank}");
    assert!(by_rank.contains("\n1,MEMCPY_DtoH,0,3,2000.0,2200.0,200.0,100.0,340.0,400.0,173.20508075688772,100.0\n"), "{by_rank}");
    eqnice!(
        "rank,steps,prefill_steps,decode_steps,no_start_kernel_steps,excluded_steps,sequence_differs_steps,outlier_steps,avg_decode_step_us,p50_decode_step_us,p90_decode_step_us,max_decode_step_us,avg_gpu_busy_us,avg_bubble_us,avg_gpu_ops
0,7,2,3,2,0,1,1,10333.333333333334,10000.0,11600.0,12000.0,1750.0,350.0,4.333333333333333
1,7,2,3,2,0,1,1,10333.333333333334,10000.0,11600.0,12000.0,1850.0,350.0,4.333333333333333
",
        table(&r, "decode_ranks")
    );
    // one step chart per rank, the per-rank bars, the waterfall
    let titles: Vec<&str> = r.charts.iter().map(|c| c.title()).collect();
    assert_eq!(
        titles,
        ["Step durations on rank 0", "Step durations on rank 1", "Decode step time per rank (mean, min–max)", "Average decode step"]
    );
}

/// `extract`: start ≥ range start and end ≤ range end, by start, on Paddle's `args` clock (the
/// file's `ts` are on another one); MEMCPY_DtoH ends at 52500 > 52450.
#[test]
fn extract_keeps_operations_inside_the_range() {
    let expected = "kernel_name,start_time_us,end_time_us,duration_us
warmup_copy,50100.0,50200.0,100.0
recover_decode_task,50500.0,50600.0,100.0
gemm,50700.0,51700.0,1000.0
gemm,51800.0,52300.0,500.0
";
    let range = parse_range("50000,52450").expect("range");
    for f in ["paddle-decode.json", "kineto-decode.json"] {
        eqnice!(expected, extract(&read(&[f]), &[0], range, false).to_csv());
    }
    let kept = extract(&read(&["paddle-decode.json"]), &[0], range, true).to_csv();
    assert!(kept.contains("\ngemm[500.000 us],51800.0,52300.0,500.0\n"), "{kept}");
    // several ranks: a rank column, rows by start then rank
    let two = extract(&read(&["two-ranks/rank0.json", "two-ranks/rank1.json"]), &[0, 1], parse_range("52300,52800").expect("range"), false)
        .to_csv();
    eqnice!("rank,kernel_name,start_time_us,end_time_us,duration_us\n0,MEMCPY_DtoH,52400.0,52500.0,100.0\n1,MEMCPY_DtoH,52400.0,52800.0,400.0\n", two);
}

/// `gpu_ops`, the page's tab for `extract`: the same table for a range; no range is the whole
/// trace; a bad range is `extract`'s error; an empty result says why.
#[test]
fn gpu_ops_analysis_is_extract() {
    let run = |trace: &Trace, opts: &[(&str, &str)]| -> Result<Report, String> {
        let params = Params::new(EXTRACT_ANALYSIS.options, opts.iter().copied()).map_err(|e| e.0)?;
        let ctx = Context::new(trace, false, None).map_err(|e| e.0)?;
        (EXTRACT_ANALYSIS.run)(&ctx, &params).map_err(|e| e.0)
    };
    let trace = read(&["paddle-decode.json"]);
    let got = run(&trace, &[("range", "50000,52450"), ("keep_suffix", "true")]).expect("runs");
    eqnice!(extract(&trace, &[0], parse_range("50000,52450").expect("range"), true).to_csv(), table(&got, "extract"));
    let all = run(&trace, &[]).expect("runs");
    eqnice!(extract(&trace, &[0], (i64::MIN, i64::MAX), false).to_csv(), table(&all, "extract"));
    assert_eq!(all.tables[0].rows(), 18, "every GPU operation of the trace");
    assert_eq!(
        run(&trace, &[("range", "5,3")]).err().as_deref(),
        Some("time range: start 5 is after end 3 (expected START,END with START ≤ END)")
    );
    let none = run(&trace, &[("range", "1,2")]).expect("runs");
    assert_eq!((none.tables[0].rows(), none.notes.clone()), (0, vec!["no GPU operation lies inside 1,2 µs".to_string()]));
}

/// The shared PaddlePaddle 3.3.1 trace (CPU only): 4 steps whose exact `args` durations match
/// the `[xx ms]` suffix of their names; no GPU operation, which the error and the note say.
#[test]
fn shared_paddle_trace() {
    if util::skip_without_corpus() {
        return;
    }
    let path = util::shared("traces/paddle/paddle3.3.1_cpu_mlp_adam.paddle_trace.json");
    let trace = kinetoscope::read::read_all(&[("paddle.json", &util::bytes(&path)[..])]).expect("read");
    let e = run(&trace, &[]).unwrap_err();
    assert!(e.starts_with("start kernel 'recover_decode_task' is in none of the 4 decode steps; they have no GPU operation"), "{e}");
    let r = run(&trace, &[("start_kernel", "none")]).expect("runs");
    assert_eq!(table(&r, "decode_op_averages"), "operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us\n");
    assert!(r.notes.iter().any(|n| n.starts_with("no GPU operation")), "{:?}", r.notes);
    let stats = decode_stats(&trace, &[0], &DecodeOptions { start_kernel: None, ..DecodeOptions::default() }).expect("stats");
    let rank = &trace.ranks[0];
    let names: Vec<String> =
        (0..rank.events.len()).map(|e| rank.full_name(e as u32).to_string()).filter(|n| n.starts_with("ProfileStep#")).collect();
    assert_eq!(stats.steps.len(), 4);
    for (s, name) in stats.steps.iter().zip(&names) {
        let ms = (s.end - s.start) as f64 / 1e6;
        assert_eq!(name, &format!("ProfileStep#{}[{ms:.3} ms]", s.number), "step {} lasts {ms} ms", s.number);
    }
}

// ---- the commands ----

fn cli(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_kinetoscope")).args(args).current_dir(util::testdata("decode")).output().expect("run kinetoscope")
}

fn tmp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("kinetoscope-decode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

/// `stats IN OUT [start_kernel] [decode_max_ms]` writes kernel_extractor's CSV; `--out` every
/// table.
#[test]
fn stats_command_writes_the_csv() {
    let out = tmp("stats.csv");
    let o = cli(&["stats", "paddle-decode.json", out.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    eqnice!(AVERAGES, std::fs::read_to_string(&out).expect("written"));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("5 operations written to"), "{stdout}");
    // positional start kernel and decode_max_ms, --out
    let dir = tmp("all");
    let o = cli(&["stats", "paddle-decode.json", out.to_str().expect("utf-8"), "none", "9.5", "--out", dir.to_str().expect("utf-8")]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(&out).expect("written");
    assert!(
        csv.starts_with("operation_name,avg_start_time_us,avg_end_time_us,avg_duration_us,bubble_time_us\nrecover_decode_task,0.0,100.0,"),
        "{csv}"
    );
    for t in ["decode_op_averages", "decode_op_stats", "decode_steps", "decode_outlier_steps", "decode_ranks"] {
        assert!(dir.join(format!("{t}.csv")).is_file(), "{t}");
    }
    // --step-name: an annotation marks the steps
    let o = cli(&["stats", "kineto-annotated.json", out.to_str().expect("utf-8"), "--step-name", "execute_model"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    eqnice!(AVERAGES, std::fs::read_to_string(&out).expect("written"));
    // the output may not be the input
    let o = cli(&["stats", "paddle-decode.json", "paddle-decode.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is the input trace"));
}

#[test]
fn extract_command_and_its_errors() {
    let out = tmp("extract.csv");
    let o = cli(&["extract", "kineto-decode.json", out.to_str().expect("utf-8"), "50000,52450"]);
    assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    let csv = std::fs::read_to_string(&out).expect("written");
    assert!(csv.starts_with("kernel_name,start_time_us,end_time_us,duration_us\nwarmup_copy,50100.0,50200.0,100.0\n"), "{csv}");
    assert_eq!(csv.lines().count(), 5);
    for (range, msg) in [
        ("5,3", "kinetoscope: time range: start 5 is after end 3 (expected START,END with START ≤ END)\n"),
        ("abc", "kinetoscope: time range: expected START,END in µs (e.g. 2684054.000,2687705.250), found 'abc'\n"),
    ] {
        let o = cli(&["extract", "kineto-decode.json", out.to_str().expect("utf-8"), range]);
        assert_eq!(o.status.code(), Some(1));
        eqnice!(msg, String::from_utf8_lossy(&o.stderr));
    }
    let o = cli(&["stats", "kineto-decode.json", out.to_str().expect("utf-8"), "flash_decode"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("their first GPU operations are 'recover_decode_task' (2 steps)"));
}

/// A real training trace (TensorBoard plugin's ResNet-50, 6 profiler steps), whose GPU runs behind
/// its CPU: by the window rule 5 of the 6 steps have another operation sequence and 1586
/// operations launched from a step run past its end; by launch every step has the same 1543
/// operations, those HTA puts in the step's iteration (the link columns: a GPU row's step is its
/// launcher's).
#[test]
fn shared_training_trace_by_launch() {
    if util::skip_without_corpus() {
        return;
    }
    let path = util::shared("traces/kineto/tb_plugin_2021-06_resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz");
    let trace = kinetoscope::read::read_all(&[("worker0.pt.trace.json.gz", &util::bytes(&path)[..])]).expect("read");
    let base = [("start_kernel", "none"), ("prefill_ms", "1000")];
    let r = run(&trace, &base).expect("runs");
    assert!(r.notes[0].ends_with("6 decode steps averaged (avg 139.692 ms, p50 126.548 ms, p90 172.513 ms); 5 with another operation sequence than the most common one"), "{:?}", r.notes);
    assert!(
        r.notes.iter().any(|n| n.starts_with("1586 GPU operations launched from decode steps ran past their step's end")),
        "{:?}",
        r.notes
    );

    let stats = decode_stats(
        &trace,
        &[0],
        &DecodeOptions { start_kernel: None, prefill_ns: 1_000_000_000, by_launch: true, ..DecodeOptions::default() },
    )
    .expect("stats");
    let rank = &trace.ranks[0];
    let step = rank.step_links();
    for s in &stats.steps {
        let hta = (0..rank.events.len())
            .filter(|&e| {
                step[e] == s.number
                    && matches!(
                        rank.events.kind[e],
                        kinetoscope::model::Kind::Kernel | kinetoscope::model::Kind::Memcpy | kinetoscope::model::Kind::Memset
                    )
            })
            .count();
        assert_eq!((s.number, s.ops, s.same_sequence), (s.number, hta, Some(true)));
        assert_eq!(s.ops, 1543);
    }
    assert_eq!(stats.unlinked, 0);
}

/// `stats --by-launch` writes the by-launch averages; `diff --by-launch` compares decode steps
/// the same way (diff_decode), and without it by the window rule.
#[test]
fn by_launch_in_stats_and_diff_commands() {
    let csv = tmp("lagging.csv");
    let out = cli(&["stats", "kineto-lagging.json", csv.to_str().expect("utf-8"), "--by-launch"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let written = std::fs::read_to_string(&csv).expect("csv");
    assert!(written.contains("\nMEMCPY_DtoH,7333.333333333333,8500.0,1166.6666666666667,833.3333333333334\n"), "{written}");
    for (flag, dtoh) in [(Some("--by-launch"), "1166.6666666666667,1166.6666666666667"), (None, "500.0,500.0")] {
        let dir = tmp(&format!("diff-{}", flag.is_some()));
        let mut args = vec!["diff", "kineto-lagging.json", "paddle-lagging.json", "--out", dir.to_str().expect("utf-8")];
        args.extend(flag);
        let out = cli(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let table = std::fs::read_to_string(dir.join("diff_decode.csv")).expect("diff_decode.csv");
        assert!(table.contains(&format!("\nMEMCPY_DtoH,0,{dtoh},0.0,")), "{flag:?}: {table}");
    }
}
