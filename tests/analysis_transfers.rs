//! `transfers` on `testdata/analysis/transfers.json` (two GPUs; numbers worked out by hand in
//! `testdata/README.md`) and on the hand-made rocprofv3 files of `testdata/rocprof/`.

use crate::analysis_kernels::{csv, run};
use crate::{eqnice, util};

#[test]
fn directions_bandwidth_and_overlap_as_unions() {
    let r = run("transfers.json", "transfers", false, &[]).expect("transfers");
    // HtoD: 4 MB in 40 µs (100 GB/s) and 1 MB in 20 µs (50 GB/s): 5 MB over 60 µs of copies;
    // their union (120–160 µs) is 40 µs. The PtoP copy has no byte count.
    eqnice!(
        "direction,copies,copies_with_bytes,bytes,time_ns,busy_ns,bandwidth_gbps,min_gbps,median_gbps,p90_gbps,max_gbps\n\
         HtoD,2,2,5000000,60000,40000,83.333,50.0,75.0,95.0,100.0\n\
         DtoH,1,1,500000,10000,10000,50.0,50.0,50.0,50.0,50.0\n\
         DtoD,1,1,6000000,60000,60000,100.0,100.0,100.0,100.0,100.0\n\
         PtoP,1,0,0,10000,10000,,,,,\n",
        csv(&r, "transfers")
    );
    eqnice!(
        "rank,device,direction,copies,copies_with_bytes,bytes,time_ns,busy_ns,bandwidth_gbps,min_gbps,median_gbps,p90_gbps,max_gbps\n\
         0,0,HtoD,2,2,5000000,60000,40000,83.333,50.0,75.0,95.0,100.0\n\
         0,0,DtoH,1,1,500000,10000,10000,50.0,50.0,50.0,50.0,50.0\n\
         0,1,DtoD,1,1,6000000,60000,60000,100.0,100.0,100.0,100.0,100.0\n\
         0,1,PtoP,1,0,0,10000,10000,,,,,\n",
        csv(&r, "transfers_per_device")
    );
    // GPU 0: kernels 100–250 µs (two overlapping kernels, 150 µs), copies 120–160 and 300–310:
    // 40 µs under compute, counted once although each HtoD copy overlaps both kernels (a
    // pairwise sum gives 80 µs); GPU 1: kernel 1000–1050, DtoD 1020–1080 (30 µs hidden), PtoP
    // 2000–2010
    eqnice!(
        "rank,device,compute_ns,copy_ns,copy_under_compute_ns,copy_exposed_ns,copy_under_compute_pct\n\
         0,0,150000,50000,40000,10000,80.0\n\
         0,1,50000,70000,30000,40000,42.86\n\
         all,all,200000,120000,70000,50000,58.33\n",
        csv(&r, "overlap")
    );
    assert_eq!(r.notes.len(), 1, "{:?}", r.notes);
    assert!(r.notes[0].starts_with("1 copies have no byte count"), "{}", r.notes[0]);
    let titles: Vec<&str> = r.charts.iter().map(|c| c.title()).collect();
    assert_eq!(titles, ["Achieved bandwidth per copy (median, min–max)", "Copy time under compute and exposed, per device"]);
}

/// rocprofv3 CSV: directions from `Direction` and the agents (agent 3 → 2 is a peer copy), each
/// copy on its GPU, no byte counts; the set's second process has no copies.
#[test]
fn rocprofv3_copies_per_gpu_without_bytes() {
    let trace = util::read_testdata(
        "rocprof/v3",
        &["4242_hip_api_trace.csv", "4242_kernel_trace.csv", "4242_memory_copy_trace.csv", "5151_kernel_trace.csv"],
    );
    let ctx = kinetoscope::analysis::api::Context::new(&trace, false, None).unwrap();
    let a = kinetoscope::analysis::registry::find("transfers").unwrap();
    let r = a.report(&ctx, &kinetoscope::analysis::api::Params::new(a.options, std::iter::empty()).unwrap()).unwrap();
    eqnice!(
        "rank,device,direction,copies,copies_with_bytes,bytes,time_ns,busy_ns,bandwidth_gbps,min_gbps,median_gbps,p90_gbps,max_gbps\n\
         0,-1,other,1,0,0,1,1,,,,,\n\
         0,2,HtoD,1,0,0,400,400,,,,,\n\
         0,2,DtoH,1,0,0,600,600,,,,,\n\
         0,3,PtoP,1,0,0,100,100,,,,,\n",
        csv(&r, "transfers_per_device")
    );
    assert!(r.notes[0].starts_with("4 copies have no byte count (rocprofv3's memory_copy_trace.csv"), "{:?}", r.notes);
}

/// A trace without copies says what records them.
#[test]
fn no_copies_is_said() {
    let r = run("aten_ops.json", "transfers", false, &[]).expect("transfers");
    assert!(r.notes[0].starts_with("no GPU memory copies in the trace"), "{:?}", r.notes);
    assert_eq!(csv(&r, "transfers").lines().count(), 1);
}
