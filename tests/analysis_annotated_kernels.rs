//! `annotated_kernels` (HTA `get_gpu_kernels_with_user_annotations`) on
//! `testdata/analysis/annotated_kernels.json`, numbers worked out by hand in `testdata/README.md`.

use crate::analysis_kernels::{csv, run, run_on};
use crate::eqnice;

const TABLE: &str = "gpu_kernels_with_user_annotations__rank0";

#[test]
fn innermost_annotation_wins_hta() {
    // marker is zero-length at 50: HTA's interval test finds only "## step ##"
    eqnice!(
        "index,s_cat,s_name,stream,pid,tid,ts,dur,correlation,index_correlation,iteration,s_user_annotation\n\
         5,kernel,foo,7,1,7,5,5,1,0,-1,## forward ##\n\
         6,kernel,gemm,7,1,7,22,3,2,0,-1,twin\n\
         7,kernel,relu,7,1,7,45,10,3,0,-1,## backward ##\n\
         8,kernel,marker,7,1,7,50,0,4,0,-1,## step ##\n\
         9,gpu_memcpy,Memcpy DtoH (Device -> Pageable),7,1,7,60,2,5,0,-1,## backward ##\n\
         10,kernel,gemm,8,1,8,22,3,6,0,-1,\n\
         11,kernel,late,7,1,7,120,10,7,0,-1,\n",
        csv(&run("annotated_kernels.json", "annotated_kernels", true, &[]).expect("hta"), TABLE)
    );
}

#[test]
fn default_adds_the_stack_and_puts_zero_length_kernels_in_their_annotation() {
    eqnice!(
        "index,s_cat,s_name,stream,pid,tid,ts,dur,correlation,index_correlation,iteration,s_user_annotation,annotation_stack\n\
         5,kernel,foo,7,1,7,5.0,5.0,1,0,-1,## forward ##,## step ## > ## forward ##\n\
         6,kernel,gemm,7,1,7,22.0,3.0,2,0,-1,twin,## step ## > ## forward ## > fused > twin\n\
         7,kernel,relu,7,1,7,45.0,10.0,3,0,-1,## backward ##,## step ## > ## forward ## > ## backward ##\n\
         8,kernel,marker,7,1,7,50.0,0.0,4,0,-1,## backward ##,## step ## > ## backward ##\n\
         9,gpu_memcpy,Memcpy DtoH (Device -> Pageable),7,1,7,60.0,2.0,5,0,-1,## backward ##,## step ## > ## backward ##\n\
         10,kernel,gemm,8,1,8,22.0,3.0,6,0,-1,,\n\
         11,kernel,late,7,1,7,120.0,10.0,7,0,-1,,\n",
        csv(&run("annotated_kernels.json", "annotated_kernels", false, &[]).expect("default"), TABLE)
    );
}

#[test]
fn full_names_on_request() {
    let r = run("annotated_kernels.json", "annotated_kernels", true, &[("shortern_names", "false")]).expect("hta");
    let got = csv(&r, TABLE);
    assert_eq!(got.lines().nth(1), Some("5,kernel,void foo<int>(float),7,1,7,5,5,1,0,-1,## forward ##"));
}

#[test]
fn negative_durations_make_hta_raise() {
    // ts 10.7 dur 0.2: HTA rounds to ts 11, end 10, dur -1 (§5.3) and IntervalIndex raises
    let trace = br###"{"traceEvents": [
{"ph": "X", "cat": "gpu_user_annotation", "name": "## step ##", "pid": 1, "tid": 7, "ts": 1000, "dur": 100},
{"ph": "X", "cat": "kernel", "name": "tiny", "pid": 1, "tid": 7, "ts": 1010.7, "dur": 0.2, "args": {"stream": 7, "correlation": 1}}
]}"###;
    let e = run_on("neg.json", trace, "annotated_kernels", true, &[]).unwrap_err();
    assert_eq!(e.0, "rank 0: event #1 (tiny) has duration -1 µs after HTA's sub-µs rounding: HTA 0.5.0 raises ValueError (left side of interval must be <= right side)");
    let r = run_on("neg.json", trace, "annotated_kernels", false, &[]).expect("default");
    eqnice!(
        "index,s_cat,s_name,stream,pid,tid,ts,dur,correlation,index_correlation,iteration,s_user_annotation,annotation_stack\n\
         1,kernel,tiny,7,1,7,10.7,0.2,1,0,-1,## step ##,## step ##\n",
        csv(&r, TABLE)
    );
}

#[test]
fn no_gpu_annotations_hta_none_default_unannotated() {
    let r = run("kernels.json", "annotated_kernels", true, &[]).expect("hta");
    assert!(r.tables.is_empty());
    assert_eq!(r.notes, ["the trace has no gpu_user_annotation events: HTA 0.5.0 returns None"]);
    let r = run("kernels.json", "annotated_kernels", false, &[]).expect("default");
    let got = csv(&r, TABLE);
    assert_eq!(got.lines().count(), 9, "{got}");
    assert!(got.lines().skip(1).all(|l| l.ends_with(",,")), "{got}");
    assert_eq!(r.notes, ["the trace has no gpu_user_annotation events: no kernel is annotated"]);
}
