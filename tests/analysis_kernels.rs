//! `kernels` (HTA `get_gpu_kernel_breakdown`) on `testdata/analysis/kernels.json`, numbers worked
//! out by hand in `testdata/README.md`. Also holds the helpers the other `analysis_*` modules use.

use kinetoscope::analysis::api::{AnalysisError, Context, Params};
use kinetoscope::analysis::registry::{find, run_step, PlanStep};
use kinetoscope::table::{Chart, Report};

use crate::{eqnice, util};

/// Reads `bytes` (one rank, named `name`) and runs analysis `analysis` with `params`.
pub fn run_on(name: &str, bytes: &[u8], analysis: &str, hta: bool, params: &[(&'static str, &str)]) -> Result<Report, AnalysisError> {
    let rank = kinetoscope::read::read_bytes(name, bytes, 1 << 20).unwrap_or_else(|e| panic!("{name}: {e}"));
    let trace = kinetoscope::read::assemble(vec![rank]);
    let ctx = Context::new(&trace, hta, None).expect("context");
    let analysis = find(analysis).unwrap_or_else(|| panic!("no analysis {analysis}"));
    run_step(&ctx, &PlanStep { analysis, params: params.iter().map(|(k, v)| (*k, v.to_string())).collect(), rename: None })
}

/// [`run_on`] with `testdata/analysis/<file>`.
pub fn run(file: &str, analysis: &str, hta: bool, params: &[(&'static str, &str)]) -> Result<Report, AnalysisError> {
    let path = util::testdata(&format!("analysis/{file}"));
    run_on(file, &util::bytes(&path), analysis, hta, params)
}

/// The CSV of the table called `name`.
pub fn csv(report: &Report, name: &str) -> String {
    let names: Vec<&str> = report.tables.iter().map(|t| t.name.as_str()).collect();
    report.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name} in {names:?}")).to_csv()
}

fn kernels(hta: bool, params: &[(&'static str, &str)]) -> Report {
    run("kernels.json", "kernels", hta, params).expect("kernels")
}

#[test]
fn kernel_types_hta_truncates_counts_stream_wait_and_keeps_zero_states() {
    // HTA: Stream Wait Event [50,51) is COMPUTATION (§5.4); relu's 2.5 µs state truncates to 2;
    // at 42 relu starts before the memset ends: a zero-length COMPUTATION overlapping MEMORY
    eqnice!(
        "kernel_type,sum,percentage\n\
         COMMUNICATION,10,25.6\n\
         COMPUTATION,16,41.0\n\
         COMPUTATION overlapping COMMUNICATION,7,17.9\n\
         COMPUTATION overlapping MEMORY,0,0.0\n\
         MEMORY,6,15.4\n",
        csv(&kernels(true, &[]), "gpu_kernel_breakdown__kernel_type")
    );
    eqnice!(
        "kernel_type,sum,percentage\n\
         COMPUTATION,15.5,40.3\n\
         COMMUNICATION,10.0,26.0\n\
         COMPUTATION overlapping COMMUNICATION,7.0,18.2\n\
         MEMORY,6.0,15.6\n",
        csv(&kernels(false, &[]), "gpu_kernel_breakdown__kernel_type")
    );
}

#[test]
fn kernel_table_without_folding() {
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),kernel_type,rank\n\
         ncclKernel_AllReduce_RING_LL_Sum_float,17.0,17.0,17.0,0.0,17.0,COMMUNICATION,0\n\
         Stream Wait Event,1.0,1.0,1.0,0.0,1.0,COMPUTATION,0\n\
         gemm_a,20.0,10.0,10.0,0.0,10.0,COMPUTATION,0\n\
         gemm_b,3.0,3.0,3.0,0.0,3.0,COMPUTATION,0\n\
         relu,2.5,2.5,2.5,0.0,2.5,COMPUTATION,0\n\
         Memcpy HtoD (Pageable -> Device),4.0,4.0,4.0,0.0,4.0,MEMORY,0\n\
         Memset (Device),2.0,2.0,2.0,0.0,2.0,MEMORY,0\n",
        csv(&kernels(true, &[]), "gpu_kernel_breakdown__kernels")
    );
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),kernel_type,rank,count\n\
         gemm_a,20.0,10.0,10.0,0.0,10.0,COMPUTATION,0,2\n\
         gemm_b,3.0,3.0,3.0,0.0,3.0,COMPUTATION,0,1\n\
         relu,2.5,2.5,2.5,0.0,2.5,COMPUTATION,0,1\n\
         ncclKernel_AllReduce_RING_LL_Sum_float,17.0,17.0,17.0,0.0,17.0,COMMUNICATION,0,1\n\
         Memcpy HtoD (Pageable -> Device),4.0,4.0,4.0,0.0,4.0,MEMORY,0,1\n\
         Memset (Device),2.0,2.0,2.0,0.0,2.0,MEMORY,0,1\n",
        csv(&kernels(false, &[]), "gpu_kernel_breakdown__kernels")
    );
}

#[test]
fn folded_statistics_hta_over_sums_default_over_events() {
    // num_kernels 1: HTA (§5.5) gives gemm_a max = min = mean = its sum 20, and "others" the
    // statistics of the sums 3, 2.5, 1; we keep gemm_a's two 10 µs runs and give "others" the
    // statistics of gemm_b's and relu's runs (3, 2.5)
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),kernel_type,rank\n\
         ncclKernel_AllReduce_RING_LL_Sum_float,17.0,17.0,17.0,0.0,17.0,COMMUNICATION,0\n\
         gemm_a,20.0,20.0,20.0,0.0,20.0,COMPUTATION,0\n\
         others,6.5,3.0,1.0,1.0408329997330663,2.1666666666666665,COMPUTATION,0\n\
         Memcpy HtoD (Pageable -> Device),4.0,4.0,4.0,0.0,4.0,MEMORY,0\n\
         others,2.0,2.0,2.0,0.0,2.0,MEMORY,0\n",
        csv(&kernels(true, &[("num_kernels", "1")]), "gpu_kernel_breakdown__kernels")
    );
    eqnice!(
        "name,sum (us),max (us),min (us),stddev,mean (us),kernel_type,rank,count\n\
         gemm_a,20.0,10.0,10.0,0.0,10.0,COMPUTATION,0,2\n\
         others,5.5,3.0,2.5,0.3535533905932738,2.75,COMPUTATION,0,2\n\
         ncclKernel_AllReduce_RING_LL_Sum_float,17.0,17.0,17.0,0.0,17.0,COMMUNICATION,0,1\n\
         Memcpy HtoD (Pageable -> Device),4.0,4.0,4.0,0.0,4.0,MEMORY,0,1\n\
         others,2.0,2.0,2.0,0.0,2.0,MEMORY,0,1\n",
        csv(&kernels(false, &[("num_kernels", "1")]), "gpu_kernel_breakdown__kernels")
    );
}

#[test]
fn memory_kernels_can_be_left_out() {
    let r = kernels(false, &[("include_memory_kernels", "false")]);
    eqnice!(
        "kernel_type,sum,percentage\n\
         COMPUTATION,15.5,47.7\n\
         COMMUNICATION,10.0,30.8\n\
         COMPUTATION overlapping COMMUNICATION,7.0,21.5\n",
        csv(&r, "gpu_kernel_breakdown__kernel_type")
    );
    assert!(!csv(&r, "gpu_kernel_breakdown__kernels").contains("MEMORY"));
}

#[test]
fn charts_pie_per_type_and_rank_and_bars_per_top_kernel() {
    // the analysis draws a bar (mean, min/max whiskers) per top kernel; with one rank each is a
    // single bar whose three numbers the table has, so the output (run_step) leaves them out
    let r = kernels(false, &[]);
    let titles: Vec<&str> = r.charts.iter().map(Chart::title).collect();
    assert_eq!(
        titles,
        [
            "Kernel type percentage across all ranks",
            "Kernel type \"COMPUTATION\" - kernel distribution on rank 0",
            "Kernel type \"COMMUNICATION\" - kernel distribution on rank 0",
            "Kernel type \"MEMORY\" - kernel distribution on rank 0",
        ]
    );
    let bytes = util::bytes(&util::testdata("analysis/kernels.json"));
    let trace = kinetoscope::read::assemble(vec![kinetoscope::read::read_bytes("kernels.json", &bytes, 1 << 20).expect("reads")]);
    let a = find("kernels").expect("registered");
    let all = (a.run)(&Context::new(&trace, false, None).expect("context"), &Params::defaults(a.options)).expect("runs");
    let titles: Vec<&str> = all.charts.iter().map(Chart::title).collect();
    assert_eq!(titles.len(), 10, "{titles:?}");
    assert_eq!(titles[2], "Kernel type \"COMPUTATION\" - gemm_a");
    let Chart::Bars { values, errors, .. } = &all.charts[2] else { panic!("bars") };
    assert_eq!((values.as_slice(), errors.as_deref()), ([10.0].as_slice(), Some([(10.0, 10.0)].as_slice())));
    assert!(!all.charts[2].is_informative());
}

#[test]
fn duration_ratio_outside_0_1_is_an_error() {
    let e = run("kernels.json", "kernels", false, &[("duration_ratio", "1.5")]).unwrap_err();
    assert_eq!(e.0, "duration_ratio must lie in [0, 1], found 1.5 (HTA 0.5.0 raises ValueError)");
}

#[test]
fn trace_without_gpu_events_gives_empty_tables() {
    let cpu_only = br#"{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}"#;
    let r = run_on("cpu.json", cpu_only, "kernels", true, &[]).expect("kernels");
    eqnice!("kernel_type,sum,percentage\n", csv(&r, "gpu_kernel_breakdown__kernel_type"));
    eqnice!("name,sum (us),max (us),min (us),stddev,mean (us),kernel_type,rank\n", csv(&r, "gpu_kernel_breakdown__kernels"));
    let r = run_on("cpu.json", cpu_only, "kernels", false, &[]).expect("kernels");
    assert_eq!(r.notes, ["no GPU kernels in the selected ranks"]);
}
