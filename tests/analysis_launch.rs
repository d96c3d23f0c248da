//! `launch` (HTA `get_cuda_kernel_launch_stats`) on `testdata/analysis/launch.json`: every
//! number worked out by hand in `testdata/README.md`.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::{Chart, Report};

use crate::{eqnice, util};

/// Runs `launch` on the fixture with `opts`.
fn report(hta: bool, opts: &[(&str, &str)]) -> Report {
    let trace = kinetoscope::read::read_all(&[("launch.json", &util::bytes(&util::testdata("analysis/launch.json")))]).expect("read");
    let a = find("launch").expect("registered");
    let ctx = Context::new(&trace, hta, None).expect("context");
    (a.run)(&ctx, &Params::new(a.options, opts.iter().copied()).expect("options")).expect("run")
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

/// Default: the driver launch (Triton's cuLaunchKernel) and hipLaunchKernel count (SPEC §5.7),
/// the runtime call is the launcher of correlation 2 (its nested cuLaunchKernel is not counted
/// again), the synchronous cudaMemcpy is not a launch, delays are clipped at 0.
#[test]
fn default_counts_every_launch_once() {
    let r = report(false, &[]);
    eqnice!(
        "correlation,cpu_duration,gpu_duration,launch_delay,launch_name,gpu_name\n\
         1,10.0,5.0,5.0,cudaLaunchKernel,k1\n\
         2,60.0,20.0,0.0,cudaLaunchKernel,k2\n\
         3,8.0,4.0,112.0,cuLaunchKernel,triton_k\n\
         4,6.0,3.0,0.0,cudaMemcpyAsync,Memcpy HtoD (Pageable -> Device)\n\
         6,4.0,2.0,6.0,hipLaunchKernel,hip_k\n",
        csv(&r, "cuda_kernel_launch_stats__rank0")
    );
    // above a cutoff: 112 µs delay > 100, 60 µs call > 50; longest delay first, ts relative to 100 µs
    eqnice!(
        "correlation,outlier,ts,cpu_duration,gpu_duration,launch_delay,launch_name,gpu_name\n\
         3,launch_delay,100.0,8.0,4.0,112.0,cuLaunchKernel,triton_k\n\
         2,runtime,30.0,60.0,20.0,0.0,cudaLaunchKernel,k2\n",
        csv(&r, "cuda_kernel_launch_outliers__rank0")
    );
    assert_eq!(r.tables.len(), 2);
}

/// `--hta`: only cudaLaunchKernel(ExC) and the async memory calls; every CPU row with a selected
/// correlation joins, so correlation 2 appears for the runtime call (60 µs) and the driver call
/// it made (50 µs; 150 − 135 − 50 < 0 → 0); integer µs because every event has an integer `dur`.
#[test]
fn hta_ignores_driver_and_hip_launches() {
    let r = report(true, &[]);
    eqnice!(
        "correlation,cpu_duration,gpu_duration,launch_delay\n1,10,5,5\n2,50,20,0\n2,60,20,0\n4,6,3,0\n",
        csv(&r, "cuda_kernel_launch_stats__rank0")
    );
    assert_eq!(r.tables.len(), 1, "no outlier table in HTA mode");
}

#[test]
fn options_select_memory_calls_and_outliers() {
    let r = report(false, &[("include_memory_events", "false"), ("runtime_cutoff", "5")]);
    let t = csv(&r, "cuda_kernel_launch_stats__rank0");
    assert!(!t.contains("cudaMemcpyAsync"), "{t}");
    eqnice!(
        "correlation,outlier,ts,cpu_duration,gpu_duration,launch_delay,launch_name,gpu_name\n\
         3,\"runtime, launch_delay\",100.0,8.0,4.0,112.0,cuLaunchKernel,triton_k\n\
         1,runtime,10.0,10.0,5.0,5.0,cudaLaunchKernel,k1\n\
         2,runtime,30.0,60.0,20.0,0.0,cudaLaunchKernel,k2\n",
        csv(&r, "cuda_kernel_launch_outliers__rank0")
    );
    let r = report(true, &[("include_memory_events", "false")]);
    eqnice!(
        "correlation,cpu_duration,gpu_duration,launch_delay\n1,10,5,5\n2,50,20,0\n2,60,20,0\n",
        csv(&r, "cuda_kernel_launch_stats__rank0")
    );
}

/// HTA's three histograms: short kernels (call ≤ 50 µs and GPU op shorter than the call:
/// 10, 8, 6, 4 µs), runtime outliers (60 µs), launch-delay outliers (112 µs); never more bins
/// than values.
#[test]
fn charts_are_hta_histograms() {
    let r = report(false, &[]);
    let values: Vec<(String, usize, u64, f64, f64)> = r
        .charts
        .iter()
        .map(|c| match c {
            Chart::Histogram { title, bins, .. } => (
                title.clone(),
                bins.len(),
                bins.iter().map(|b| b.2).sum(),
                bins.first().map_or(f64::NAN, |b| b.0),
                bins.last().map_or(f64::NAN, |b| b.1),
            ),
            other => panic!("not a histogram: {other:?}"),
        })
        .collect();
    assert_eq!(
        values,
        vec![
            ("Short GPU kernels (gpu op duration < cpu op duration) on rank 0".to_string(), 4, 4, 4.0, 10.0),
            ("Runtime Event Duration Outliers (duration > 50 us) on rank 0".to_string(), 1, 1, 60.0, 61.0),
            ("Launch Delay Outliers (duration > 100 us) on rank 0".to_string(), 1, 1, 112.0, 113.0),
        ]
    );
}
