//! `overlap` (HTA `get_comm_comp_overlap`) on `testdata/analysis/overlap.json`, numbers worked out
//! by hand in `testdata/README.md`.

use kinetoscope::table::Chart;

use crate::analysis_kernels::{csv, run, run_on};
use crate::eqnice;

#[test]
fn hta_rounds_times_and_counts_stream_wait_as_compute() {
    // HTA: gemm#2 27.5 → ceil 28 (§5.3), Stream Wait Event [25,28) is compute (§5.4): the comm
    // kernel [10,30) overlaps [10,15) and [25,30): 10 of 20 µs
    let r = run("overlap.json", "overlap", true, &[]).expect("overlap");
    eqnice!("rank,comp_comm_overlap_pctg\n0,50.0\n", csv(&r, "comm_comp_overlap"));
    // exact: [10,15) and [27.5,30): 7.5 of 20 µs
    let r = run("overlap.json", "overlap", false, &[]).expect("overlap");
    eqnice!("rank,comp_comm_overlap_pctg,comm_time (us),overlap_time (us)\n0,37.5,20.0,7.5\n", csv(&r, "comm_comp_overlap"));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
    let Chart::Bars { categories, values, .. } = &r.charts[0] else { panic!("bars") };
    assert_eq!((categories.as_slice(), values.as_slice()), (["0".to_string()].as_slice(), [37.5].as_slice()));
}

#[test]
fn no_communication_kernels_is_nan() {
    let compute_only = br#"{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 1, "tid": 7, "ts": 1, "dur": 2, "args": {"stream": 7, "correlation": 1}}]}"#;
    let r = run_on("c.json", compute_only, "overlap", true, &[]).expect("overlap");
    eqnice!("rank,comp_comm_overlap_pctg\n0,\n", csv(&r, "comm_comp_overlap"));
    assert!(r.charts.is_empty() && r.notes.is_empty());
    let r = run_on("c.json", compute_only, "overlap", false, &[]).expect("overlap");
    eqnice!("rank,comp_comm_overlap_pctg,comm_time (us),overlap_time (us)\n0,,0.0,0.0\n", csv(&r, "comm_comp_overlap"));
    assert_eq!(r.notes, ["rank 0 has no communication kernels: no overlap percentage"]);
    assert!(r.charts.is_empty());
}
