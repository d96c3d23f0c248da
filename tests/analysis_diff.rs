//! Trace diff on the hand-made pair of `testdata/diff/` (every number worked out in
//! `testdata/README.md`): aten::dropout removed, gemm twice as slow, aten::add and its kernel new,
//! a third step, one more launch per step.

use kinetoscope::analysis::diff::{hta_tables, report, By, DiffOptions, LabeledTrace, Side};
use kinetoscope::table::Chart;
use kinetoscope::table::Report;
use kinetoscope::Trace;

use crate::{eqnice, util};

fn read(f: &str) -> Trace {
    let p = util::testdata(&format!("diff/{f}"));
    kinetoscope::read::read_all(&[(f, &util::bytes(&p)[..])]).expect("read")
}

fn diff(c: &Trace, t: &Trace, o: &DiffOptions) -> Report {
    let (c, t) = (Side::new("control", c, None).expect("control"), Side::new("test", t, None).expect("test"));
    report(&c, &t, o).expect("diff")
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

/// Per step: control has one complete step (the last is left out), test two.
#[test]
fn operators_ranked_by_time_change_per_step() {
    let (c, t) = (read("control.json"), read("test.json"));
    let r = diff(&c, &t, &DiffOptions::default());
    assert_eq!(r.tables[0].name, "diff_by_op");
    eqnice!(
        "name,control_time_us,test_time_us,diff_time_us,change_pct,control_count,test_count,control_mean_us,test_mean_us,change
ProfilerStep#*,1000.0,800.0,-200.0,-20.0,1.0,1.0,1000.0,800.0,unchanged
gemm,100.0,200.0,100.0,100.0,1.0,1.0,100.0,200.0,unchanged
aten::dropout,40.0,0.0,-40.0,-100.0,1.0,0.0,40.0,,deleted
aten::add,0.0,20.0,20.0,,0.0,1.0,,20.0,added
add_k,0.0,10.0,10.0,,0.0,1.0,,10.0,added
cudaLaunchKernel,15.0,20.0,5.0,33.33,2.0,3.0,7.5,6.666666666666667,increased
aten::mm,90.0,90.0,0.0,0.0,1.0,1.0,90.0,90.0,unchanged
aten::relu,40.0,40.0,0.0,0.0,1.0,1.0,40.0,40.0,unchanged
relu_k,20.0,20.0,0.0,0.0,1.0,1.0,20.0,20.0,unchanged
",
        csv(&r, "diff_by_op")
    );
    eqnice!(
        "step time 1.000 → 0.800 ms (-20.0 %); control (rank 0) vs test (rank 0); biggest gain: aten::dropout -40.0 µs; biggest loss: gemm +100.0 µs",
        r.notes[0]
    );
    assert_eq!(r.notes[1], "times and calls are per step: control 1 step, test 2 steps averaged");
}

/// HTA mode on the pair: the same classes in `ops_diff__all`, sorted by class then name.
#[test]
fn hta_ops_diff_classes() {
    let (c, t) = (read("control.json"), read("test.json"));
    let (c, t) =
        (LabeledTrace::new("control", &c, None, false).expect("control"), LabeledTrace::new("test", &t, None, false).expect("test"));
    let tables = hta_tables(&c, &t, (None, None));
    let ops = tables.iter().find(|t| t.name == "ops_diff__all").expect("ops_diff__all").to_csv();
    eqnice!(
        "change,name
added,add_k
added,aten::add
deleted,aten::dropout
increased,cudaLaunchKernel
unchanged,ProfilerStep#1
unchanged,aten::mm
unchanged,aten::relu
unchanged,gemm
unchanged,relu_k
",
        ops
    );
}

/// Every `*.json` of a testdata folder, as one run.
fn read_dir(rel: &str) -> Trace {
    let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(util::testdata(rel))
        .expect("folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.display().to_string(), util::bytes(&p)))
        .collect();
    files.sort();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    kinetoscope::read::read_all(&refs).expect("read")
}

fn side<'a>(label: &str, t: &'a Trace, ranks: &[i64]) -> Side<'a> {
    Side::new(label, t, Some(ranks)).expect("side")
}

/// `diff/ranks/`: rank 2 (linear launches gemm_splitk 300 + reduce_k 20) against the median of
/// ranks 0 and 1 (gemm 200 / 220 + bias_k 10); every number worked out in testdata/README.md.
#[test]
fn a_rank_against_the_median_of_the_others() {
    let run = read_dir("diff/ranks");
    let (c, t) = (side("control", &run, &[0, 1]), side("test", &run, &[2]));
    let r = report(&c, &t, &DiffOptions { by: By::Kernel, ..DiffOptions::default() }).expect("diff");
    assert_eq!(r.tables[0].name, "diff_by_kernel");
    eqnice!(
        "name,control_time_us,test_time_us,diff_time_us,change_pct,control_count,test_count,control_mean_us,test_mean_us,change
gemm_splitk,0.0,300.0,300.0,,0.0,1.0,,300.0,added
gemm,210.0,0.0,-210.0,-100.0,1.0,0.0,210.0,,deleted
reduce_k,0.0,20.0,20.0,,0.0,1.0,,20.0,added
bias_k,10.0,0.0,-10.0,-100.0,1.0,0.0,10.0,,deleted
ncclKernel_AllReduce_RING,100.0,100.0,0.0,0.0,1.0,1.0,100.0,100.0,unchanged
",
        csv(&r, "diff_by_kernel")
    );
    eqnice!(
        "kernel_type,control_time_us,test_time_us,diff_time_us,change_pct,control_count,test_count,control_mean_us,test_mean_us,change
COMPUTATION,220.0,320.0,100.0,45.45,2.0,2.0,110.0,160.0,unchanged
COMMUNICATION,100.0,100.0,0.0,0.0,1.0,1.0,100.0,100.0,unchanged
",
        csv(&r, "diff_by_type")
    );
    eqnice!(
        "operator,change,control_kernels,test_kernels,control_calls,test_calls
aten::linear,different kernels,gemm | bias_k,gemm_splitk | reduce_k,4,2
",
        csv(&r, "diff_kernel_sequences")
    );
    eqnice!(
        "rank,control_comm_us,test_comm_us,control_overlap_pct,test_overlap_pct,diff_overlap_pct_points
median of ranks 0/1 vs rank 2,200.0,200.0,60.0,100.0,40.0
",
        csv(&r, "diff_overlap")
    );
    let temporal = csv(&r, "diff_temporal");
    assert!(temporal.ends_with("\nmedian of ranks 0/1 vs rank 2,1260.0,1320.0,58.73015873015873,51.515151515151516,34.920634920634924,48.484848484848484,6.34920634920635,0.0\n"), "{temporal}");
    eqnice!(
        "step,control_step,test_step,control_duration_us,test_duration_us,diff_duration_us,change_pct,control_gpu_busy_us,test_gpu_busy_us,control_kernels,test_kernels,change
1,ProfilerStep#1,ProfilerStep#1,1000.0,1000.0,0.0,0.0,260.0,320.0,3.0,3.0,
2,ProfilerStep#2,ProfilerStep#2,1000.0,1000.0,0.0,0.0,260.0,320.0,3.0,3.0,
",
        csv(&r, "diff_steps")
    );
    eqnice!(
        "annotation,control_time_us,test_time_us,diff_time_us,change_pct,control_count,test_count,control_mean_us,test_mean_us,change
forward,300.0,300.0,0.0,0.0,1.0,1.0,300.0,300.0,unchanged
",
        csv(&r, "diff_by_annotation")
    );
    eqnice!(
        "step time 1.000 → 1.000 ms (+0.0 %); control (2 ranks, median) vs test (rank 2); biggest gain (kernel): gemm -210.0 µs; biggest loss (kernel): gemm_splitk +300.0 µs",
        r.notes[0]
    );
    // control/test and difference bars of time and of calls
    let Chart::GroupedBars { categories, series, .. } = &r.charts[0] else { panic!("{:?}", r.charts[0]) };
    assert_eq!(categories[..2], ["gemm_splitk".to_string(), "gemm".into()]);
    assert_eq!(series.iter().map(|s| s.values[1]).collect::<Vec<_>>(), [210.0, 0.0, -210.0]);
    assert_eq!(r.charts.len(), 2);
    // the same ranks on both sides pair rank by rank
    let r = report(&side("control", &run, &[0, 1]), &side("test", &run, &[0, 1]), &DiffOptions::default()).expect("diff");
    assert_eq!(csv(&r, "diff_overlap").lines().skip(1).map(|l| l.split(',').next().unwrap_or_default()).collect::<Vec<_>>(), ["0", "1"]);
}

/// Steps: the n-th against the n-th, `--iteration`, and a step one side lacks.
#[test]
fn steps_and_one_iteration() {
    let (c, t) = (read("control.json"), read("test.json"));
    let r = diff(&c, &t, &DiffOptions { by: By::Step, ..DiffOptions::default() });
    eqnice!(
        "step,control_step,test_step,control_duration_us,test_duration_us,diff_duration_us,change_pct,control_gpu_busy_us,test_gpu_busy_us,control_kernels,test_kernels,change
1,ProfilerStep#1,ProfilerStep#1,1000.0,800.0,-200.0,-20.0,120.0,230.0,2.0,3.0,
2,,ProfilerStep#2,,800.0,,,,230.0,,3.0,added
",
        r.tables[0].to_csv()
    );
    let Chart::GroupedBars { categories, .. } = &r.charts[0] else { panic!() };
    assert_eq!(categories, &["1", "2"]);
    // iteration 1 of each: one step, nothing averaged
    let r = diff(&c, &t, &DiffOptions { iteration: Some(1), by: By::Kernel, ..DiffOptions::default() });
    assert!(csv(&r, "diff_by_kernel").contains("\ngemm,100.0,200.0,100.0,100.0,1.0,1.0,100.0,200.0,unchanged\n"));
    assert_eq!(r.notes[1], "times and calls are per step 1: control 1 step, test 2 steps (one compared)");
    let (cs, ts) = (Side::new("control", &c, None).expect("c"), Side::new("test", &t, None).expect("t"));
    let e = report(&cs, &ts, &DiffOptions { iteration: Some(2), ..DiffOptions::default() }).unwrap_err();
    assert_eq!(e.0, "control: rank 0 has no complete step 2 (steps: 1)");
    assert_eq!(Side::new("test", &t, Some(&[4])).err().map(|e| e.0).as_deref(), Some("test: rank 4 is not in the trace (ranks: 0)"));
}

/// Decode steps: `diff/two-ranks` of the decode testdata, rank 0 against rank 1 (whose step #2
/// DtoH lasts 400 instead of 100): DtoH 100 → 200 µs on average, the rest equal.
#[test]
fn decode_steps_compared_per_operation() {
    let run = read_dir("decode/two-ranks");
    let r = report(&side("control", &run, &[0]), &side("test", &run, &[1]), &DiffOptions::default()).expect("diff");
    let t = csv(&r, "diff_decode");
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], "operation_name,occurrence,control_avg_duration_us,test_avg_duration_us,diff_duration_us,control_bubble_us,test_bubble_us,diff_bubble_us,control_avg_start_us,test_avg_start_us");
    assert_eq!(lines.len(), 6, "{t}");
    assert_eq!(lines[5], "MEMCPY_DtoH,0,100.0,200.0,100.0,100.0,100.0,0.0,2000.0,2000.0");
    assert!(lines[1].starts_with("recover_decode_task,0,100.0,100.0,0.0,"), "{t}");
    assert!(r.notes.iter().any(|n| n.starts_with("decode step ")), "{:?}", r.notes);
    // a training trace has no decode steps with the start kernel: no table, no note
    let (c, t) = (read("control.json"), read("test.json"));
    let r = diff(&c, &t, &DiffOptions::default());
    assert!(r.tables.iter().all(|t| t.name != "diff_decode"));
    assert!(!r.notes.iter().any(|n| n.contains("decode")), "{:?}", r.notes);
}

/// `step_name`: a trace without profiler steps has decode steps to compare when an annotation
/// marks them (`decode/kineto-annotated.json` against itself: every difference 0).
#[test]
fn decode_steps_marked_by_an_annotation() {
    let p = util::testdata("decode/kineto-annotated.json");
    let t = kinetoscope::read::read_all(&[("a.json", &util::bytes(&p)[..])]).expect("read");
    assert!(diff(&t, &t, &DiffOptions::default()).tables.iter().all(|x| x.name != "diff_decode"), "no profiler step: no decode table");
    let mut o = DiffOptions::default();
    o.decode.step_name = Some("execute_model".into());
    let r = diff(&t, &t, &o);
    let lines: Vec<String> = csv(&r, "diff_decode").lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 6, "{lines:?}");
    assert_eq!(lines[1], "recover_decode_task,0,100.0,100.0,0.0,0.0,0.0,0.0,0.0,0.0");
}

/// Iteration selection: control step 1 against test step 2, in both modes, and a step a side
/// lacks.
#[test]
fn iterations_chosen_per_side() {
    let (c, t) = (read("control.json"), read("test.json"));
    let r = diff(&c, &t, &DiffOptions { by: By::Kernel, iteration: Some(1), test_iteration: Some(2), ..DiffOptions::default() });
    assert!(csv(&r, "diff_by_kernel").contains("\ngemm,100.0,200.0,100.0,100.0,1.0,1.0,100.0,200.0,unchanged\n"));
    assert_eq!(r.notes[1], "times and calls are per step (control 1, test 2): control 1 step, test 2 steps (one compared)");
    assert!(r.notes[0].starts_with("step time 1.000 → 0.800 ms (-20.0 %)"), "{}", r.notes[0]);

    // HTA: ops_summary__test of iteration 2 (its rows start at 800 µs), the summary names both
    let (report, _, _) =
        kinetoscope::analysis::diff::hta_report(&c, &t, None, None, (Some(1), Some(2)), kinetoscope::analysis::diff::Device::All, false)
            .expect("hta");
    let test = report.tables.iter().find(|x| x.name == "ops_summary__test").expect("ops_summary__test").to_csv();
    assert!(test.contains("ProfilerStep#2,") && !test.contains("ProfilerStep#1,"), "{test}");
    assert!(report.notes[0].contains("control iteration 1 rank 0 vs test iteration 2 rank 0"), "{}", report.notes[0]);
    let e = kinetoscope::analysis::diff::hta_report(&c, &t, None, None, (Some(3), None), kinetoscope::analysis::diff::Device::All, false)
        .unwrap_err();
    assert_eq!(e.0, "control: rank 0 has no iteration 3 (iterations: 1, 2)");
}

/// One side without profiler steps: both sides are whole-trace totals (not per step on one side
/// and whole on the other).
#[test]
fn a_side_without_steps_makes_both_whole_traces() {
    let c = read("control.json");
    let text = String::from_utf8(util::bytes(&util::testdata("diff/test.json"))).expect("utf-8");
    let no_steps: String = text.lines().filter(|l| !l.contains("ProfilerStep#")).collect::<Vec<_>>().join("\n");
    let t = kinetoscope::read::read_all(&[("test.json", no_steps.as_bytes())]).expect("read");
    let r = diff(&c, &t, &DiffOptions { by: By::Kernel, ..DiffOptions::default() });
    // control: step 1 (its last step is left out); test: its three gemm of 200 µs
    assert!(
        csv(&r, "diff_by_kernel").contains("\ngemm,100.0,600.0,500.0,500.0,1.0,3.0,100.0,200.0,increased\n"),
        "{}",
        csv(&r, "diff_by_kernel")
    );
    assert_eq!(r.notes[1], "a side has no complete ProfilerStep: times and calls are whole-trace totals");
    assert!(r.notes[0].starts_with("no ProfilerStep on one side: whole traces compared"), "{}", r.notes[0]);
}
