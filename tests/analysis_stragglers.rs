//! `stragglers` (HTA `get_potential_stragglers`) on the two ranks of
//! `testdata/analysis/stragglers/`: every number worked out by hand in `testdata/README.md`.

use kinetoscope::analysis::api::{AnalysisError, Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::{Chart, Report};

use crate::{eqnice, util};

fn report(hta: bool, ranks: Option<&[i64]>, opts: &[(&str, &str)]) -> Result<Report, AnalysisError> {
    let dir = util::testdata("analysis/stragglers");
    let files: Vec<(String, Vec<u8>)> = ["rank0.json", "rank1.json"].iter().map(|f| (f.to_string(), util::bytes(&dir.join(f)))).collect();
    let refs: Vec<(&str, &[u8])> = files.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    let trace = kinetoscope::read::read_all(&refs).expect("read");
    let a = find("stragglers").expect("registered");
    let ctx = Context::new(&trace, hta, ranks)?;
    (a.run)(&ctx, &Params::new(a.options, opts.iter().copied())?)
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

const DEV: &str = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)";

/// Default: the ncclDevKernel on stream 20 is the metric kernel (durations 0.3/0.2 and 0.4/0.5
/// of the 1000 µs mean iteration: std 0.0707 in both steps; the ncclKernel on stream 21 lasts
/// 0.05 on both ranks: std 0). Rank 1 starts it last in both steps (0.6 > 0.5, 1.45 > 1.4).
#[test]
fn default_finds_nccl_dev_kernels() {
    let r = report(false, None, &[("num_candidates", "1")]).expect("run");
    eqnice!("rank,count\n1,2\n", csv(&r, "potential_stragglers"));
    eqnice!(
        format!(
            "iteration,rank,stream,kernel,ts,normalized_start_time,duration,is_straggler\n\
             1,0,20,{DEV},500.0,0.5,0.3,No\n\
             1,1,20,{DEV},600.0,0.6,0.2,Yes\n\
             2,0,20,{DEV},1400.0,1.4,0.4,No\n\
             2,1,20,{DEV},1450.0,1.45,0.5,Yes\n"
        ),
        csv(&r, "straggler_metric")
    );
    // one bar chart per step, stragglers in their own series
    let Chart::StackedBars { categories, series, .. } = &r.charts[1] else { panic!("{:?}", r.charts) };
    assert_eq!(r.charts.len(), 2);
    assert_eq!(categories, &["0", "1"]);
    assert_eq!((series[0].values.clone(), series[1].values.clone()), (vec![0.0, 1.45], vec![1.4, 0.0]));
    // with 2 candidates both ranks are at or above the 2nd largest metric in both steps
    let r = report(false, None, &[]).expect("run");
    eqnice!("rank,count\n0,2\n1,2\n", csv(&r, "potential_stragglers"));
}

/// `--hta` knows only `ncclKernel*` (SPEC §5.7): the metric kernel is the SendRecv on stream 21,
/// which rank 1 starts last in step 1 (0.25 > 0.2) and rank 0 in step 2 (1.2 > 1.15): one count
/// each, the tie goes to rank 0.
#[test]
fn hta_knows_only_nccl_kernel_names() {
    let r = report(true, None, &[("num_candidates", "1")]).expect("run");
    eqnice!("rank\n0\n", csv(&r, "potential_stragglers"));
    assert_eq!(r.tables.len(), 1);
    let r = report(true, None, &[]).expect("run");
    eqnice!("rank\n0\n1\n", csv(&r, "potential_stragglers"));
}

/// Step 2 alone: t_min = 1000, mean iteration 1000 µs; default: rank 1 at 0.45 vs 0.4; HTA:
/// rank 0 at 0.2 vs 0.15.
#[test]
fn selected_steps() {
    let r = report(false, None, &[("profiler_steps", "2"), ("num_candidates", "1")]).expect("run");
    eqnice!("rank,count\n1,1\n", csv(&r, "potential_stragglers"));
    assert!(csv(&r, "straggler_metric").contains(",1450.0,0.45,0.5,Yes\n"));
    let r = report(true, None, &[("profiler_steps", "2"), ("num_candidates", "1")]).expect("run");
    eqnice!("rank\n0\n", csv(&r, "potential_stragglers"));
    let err = report(true, None, &[("profiler_steps", "7")]).unwrap_err();
    assert_eq!(err.0, "invalid value for argument: profiler_steps=[7]; available profiler steps=[1, 2]: HTA 0.5.0 raises ValueError");
    let r = report(false, None, &[("profiler_steps", "7")]).expect("run");
    assert_eq!(r.tables[0].rows(), 0);
    assert_eq!(r.notes, ["invalid value for argument: profiler_steps=[7]; available profiler steps=[1, 2]"]);
}

/// One rank: no spread across ranks. HTA raises (TypeError); the default takes the longest
/// communication kernel on average (the ncclDevKernel: 0.35 vs 0.05) and the only rank.
#[test]
fn one_rank() {
    let err = report(true, Some(&[0]), &[]).unwrap_err();
    assert!(err.0.contains("HTA 0.5.0 raises TypeError: cannot unpack non-iterable float object"), "{}", err.0);
    let r = report(false, Some(&[0]), &[]).expect("run");
    eqnice!("rank,count\n0,2\n", csv(&r, "potential_stragglers"));
    assert_eq!(r.notes[0], "no communication kernel runs on two ranks of the same step: the metric kernel is the longest one on average");
    assert_eq!(csv(&r, "straggler_metric").lines().count(), 3);
}

/// No communication kernel at all (two steps with a compute kernel): HTA's empty argmax
/// (ValueError); the default gives an empty result and a note. `num_candidates` < 1 counts as 1.
#[test]
fn no_communication_kernel() {
    let text = br#"{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 10, "dur": 10},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 3, "dur": 5, "args": {"stream": 7, "correlation": 1}}
]}"#;
    let trace = kinetoscope::read::read_all(&[("inline.json", text.as_slice())]).expect("read");
    let a = find("stragglers").expect("registered");
    let ctx = Context::new(&trace, true, None).expect("context");
    let err = (a.run)(&ctx, &Params::defaults(a.options)).unwrap_err();
    assert!(err.0.contains("HTA 0.5.0 raises ValueError: attempt to get argmax of an empty sequence"), "{}", err.0);
    let ctx = Context::new(&trace, false, None).expect("context");
    let r = (a.run)(&ctx, &Params::defaults(a.options)).expect("run");
    assert_eq!((r.tables.len(), r.tables[0].rows()), (1, 0));
    assert_eq!(r.notes, ["no communication kernel longer than 1% of the mean iteration time in the selected steps"]);
    let r = report(true, None, &[("num_candidates", "0")]).expect("run");
    eqnice!("rank\n0\n", csv(&r, "potential_stragglers"));
}
