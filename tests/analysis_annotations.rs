//! `annotations` (HTA `get_gpu_user_annotation_breakdown`) on `testdata/analysis/annotations.json`,
//! numbers worked out by hand in `testdata/README.md`.

use crate::analysis_kernels::{csv, run};
use crate::eqnice;

const GPU: &str = "gpu_user_annotation_breakdown__gpu";

fn table(hta: bool, params: &[(&'static str, &str)]) -> String {
    csv(&run("annotations.json", "annotations", hta, params).expect("annotations"), GPU)
}

#[test]
fn without_folding_both_modes_agree() {
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),rank\n\
         ## backward ##,50.0,50.0,50.0,0.0,50.0,0\n\
         ## forward ##,70.0,40.0,30.0,7.0710678118654755,35.0,0\n\
         nccl:all_reduce,6.0,3.0,1.0,1.0,2.0,0\n\
         opt,5.0,5.0,5.0,0.0,5.0,0\n",
        table(true, &[])
    );
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),rank,count\n\
         ## forward ##,70.0,40.0,30.0,7.0710678118654755,35.0,0,2\n\
         ## backward ##,50.0,50.0,50.0,0.0,50.0,0,1\n\
         nccl:all_reduce,6.0,3.0,1.0,1.0,2.0,0,3\n\
         opt,5.0,5.0,5.0,0.0,5.0,0,1\n",
        table(false, &[])
    );
}

#[test]
fn folded_statistics_hta_over_sums_default_over_events() {
    // cumsums 70, 120, 126, 131; 0.8 quantile 128; num_kernels 2 folds nccl:all_reduce and opt
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),rank\n\
         ## backward ##,50.0,50.0,50.0,0.0,50.0,0\n\
         ## forward ##,70.0,70.0,70.0,0.0,70.0,0\n\
         others,11.0,6.0,5.0,0.7071067811865476,5.5,0\n",
        table(true, &[("num_kernels", "2")])
    );
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),rank,count\n\
         ## forward ##,70.0,40.0,30.0,7.0710678118654755,35.0,0,2\n\
         ## backward ##,50.0,50.0,50.0,0.0,50.0,0,1\n\
         others,11.0,5.0,1.0,1.707825127659933,2.75,0,4\n",
        table(false, &[("num_kernels", "2")])
    );
}

#[test]
fn allowlist_patterns_are_substrings_not_regexes() {
    let folded = table(true, &[("num_kernels", "2")]);
    // "nccl:.*" is not a substring of any name (HTA escapes it, §5.12): nothing changes
    eqnice!(folded, table(true, &[("num_kernels", "2"), ("allowlist_patterns", "nccl:.*")]));
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),rank,count\n\
         ## forward ##,70.0,40.0,30.0,7.0710678118654755,35.0,0,2\n\
         ## backward ##,50.0,50.0,50.0,0.0,50.0,0,1\n\
         nccl:all_reduce,6.0,3.0,1.0,1.0,2.0,0,3\n\
         others,5.0,5.0,5.0,0.0,5.0,0,1\n",
        table(false, &[("num_kernels", "2"), ("allowlist_patterns", "all_red")])
    );
    // opt lies past the quantile and past num_kernels, but stays
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),rank\n\
         ## backward ##,50.0,50.0,50.0,0.0,50.0,0\n\
         ## forward ##,70.0,70.0,70.0,0.0,70.0,0\n\
         opt,5.0,5.0,5.0,0.0,5.0,0\n\
         others,6.0,6.0,6.0,0.0,6.0,0\n",
        table(true, &[("num_kernels", "2"), ("allowlist_patterns", " opt ,")])
    );
}

#[test]
fn cpu_annotations() {
    let r = run("annotations.json", "annotations", true, &[("use_gpu_annotation", "false")]).expect("cpu");
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),rank\n\
         ## backward ##,55.0,55.0,55.0,0.0,55.0,0\n\
         ## forward ##,45.0,45.0,45.0,0.0,45.0,0\n",
        csv(&r, "gpu_user_annotation_breakdown__cpu")
    );
}

#[test]
fn absent_category_hta_none_default_empty() {
    let r = run("kernels.json", "annotations", true, &[]).expect("hta");
    assert!(r.tables.is_empty());
    assert_eq!(r.notes, ["the trace has no gpu_user_annotation events: HTA 0.5.0 returns None"]);
    let r = run("kernels.json", "annotations", false, &[]).expect("default");
    eqnice!("name,sum (us),max (us),min (us),stddev,mean (us),rank,count\n", csv(&r, GPU));
    assert_eq!(r.notes, ["the trace has no gpu_user_annotation events"]);
}
