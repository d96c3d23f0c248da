//! `cupti` (HTA `get_cupti_counter_data_with_operators`) on `testdata/analysis/cupti*.json`:
//! every value worked out by hand in `testdata/README.md`.

use kinetoscope::analysis::api::{AnalysisError, Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::Report;

use crate::{eqnice, util};

fn report(file: &str, hta: bool) -> Result<Report, AnalysisError> {
    let trace = kinetoscope::read::read_all(&[(file, &util::bytes(&util::testdata(&format!("analysis/{file}"))))]).expect("read");
    let a = find("cupti").expect("registered");
    let ctx = Context::new(&trace, hta, None).expect("context");
    (a.run)(&ctx, &Params::defaults(a.options))
}

fn table(r: &Report) -> String {
    assert_eq!(r.tables.len(), 1);
    assert_eq!(r.tables[0].name, "cupti_counter_data_with_operators__rank0");
    r.tables[0].to_csv()
}

/// The range events sorted by ts (conv_k 6000, relu_k 6100) pair with the launches sorted by ts
/// (5010 under conv2d > convolution, 5205 under relu); the user annotation between is not a
/// cpu_op. Counters sorted by name, −1 where an event lacks one.
#[test]
fn default_pairs_kernels_with_launches() {
    let r = report("cupti.json", false).expect("run");
    eqnice!(
        "index,name,ts,dur,launch,index_runtime,op_stack,top_level_op,bottom_level_op,dram__throughput.pct,smsp__a.sum,smsp__b.sum\n\
         6,relu_k,1100.0,50.0,cudaLaunchKernel,5,\"[\"\"aten::relu\"\"]\",aten::relu,aten::relu,-1.0,3,-1\n\
         7,conv_k,1000.0,50.0,cudaLaunchKernel,3,\"[\"\"aten::conv2d\"\", \"\"aten::convolution\"\"]\",aten::conv2d,aten::convolution,12.5,2,7\n",
        table(&r)
    );
}

/// `--hta`: HTA's whole row (frame columns, the `CallGraph` columns of a non-node row, `end`
/// stale: absolute 6000 + 50).
#[test]
fn hta_writes_the_whole_row() {
    let r = report("cupti.json", true).expect("run");
    eqnice!(
        "index,cat,name,pid,tid,ts,dur,stream,correlation,bytes,memory_bw_gbps,wait_on_stream,wait_on_cuda_event_record_corr_id,input_dims,input_type,input_strides,external_id,index_correlation,iteration,end,depth,height,parent,num_kernels,kernel_dur_sum,kernel_span,first_kernel_start,last_kernel_end,index_runtime,op_stack,top_level_op,bottom_level_op,dram__throughput.pct,smsp__a.sum,smsp__b.sum\n\
         6,cuda_profiler_range,relu_k,0,0,1100,50,-1,-1,-1,0.0,-1,-1,-1,-1,-1,-1,-1,-1,6150,-1,-1,-1,0,0.0,0.0,-1.0,-1.0,5,\"[\"\"aten::relu\"\"]\",aten::relu,aten::relu,-1.0,3,-1\n\
         7,cuda_profiler_range,conv_k,0,0,1000,50,-1,-1,-1,0.0,-1,-1,-1,-1,-1,-1,-1,-1,6050,-1,-1,-1,0,0.0,0.0,-1.0,-1.0,3,\"[\"\"aten::conv2d\"\", \"\"aten::convolution\"\"]\",aten::conv2d,aten::convolution,12.5,2,7\n",
        table(&r)
    );
}

/// A Triton kernel launched with cuLaunchKernel: HTA counts only cudaLaunchKernel, finds 1 launch
/// for 2 range events and skips the rank; the default pairs both (the first launch has no
/// enclosing cpu_op: an empty stack).
#[test]
fn driver_launches_pair_too() {
    let r = report("cupti_triton.json", true).expect("run");
    assert!(r.tables.is_empty());
    assert_eq!(r.notes, ["rank 0: 2 range-profiler events but 1 kernel launch calls; they cannot be paired, rank skipped"]);
    let r = report("cupti_triton.json", false).expect("run");
    eqnice!(
        "index,name,ts,dur,launch,index_runtime,op_stack,top_level_op,bottom_level_op,smsp__a.sum\n\
         3,copy_k,990.0,50.0,cudaLaunchKernel,0,[],,,1\n\
         4,triton_k,1090.0,50.0,cuLaunchKernel,2,\"[\"\"triton_op\"\"]\",triton_op,triton_op,4\n",
        table(&r)
    );
}

/// A launch outside every cpu_op (aten::fill_ ends before it starts): HTA's IndexError; the
/// default gives an empty stack. Without range events there is no table in either mode.
#[test]
fn launch_without_operator() {
    let err = report("cupti_orphan.json", true).unwrap_err();
    assert_eq!(err.0, "rank 0: launch at event index 1 has no enclosing cpu_op: HTA 0.5.0 raises IndexError: list index out of range");
    let r = report("cupti_orphan.json", false).expect("run");
    eqnice!("index,name,ts,dur,launch,index_runtime,op_stack,top_level_op,bottom_level_op,smsp__a.sum\n2,fill_k,1000.0,50.0,cudaLaunchKernel,1,[],,,9\n", table(&r));
    for hta in [true, false] {
        let r = report("launch.json", hta).expect("run");
        assert!(r.tables.is_empty());
        assert_eq!(r.notes, ["no cuda_profiler_range events: the trace was not recorded in CUPTI range-profiler mode"]);
    }
}

/// The reader keeps every numeric arg of a `cuda_profiler_range` event (in file order) apart from
/// counter samples of `ph: C` events.
#[test]
fn reader_keeps_range_profiler_args() {
    let trace = kinetoscope::read::read_all(&[("cupti.json", &util::bytes(&util::testdata("analysis/cupti.json")))]).expect("read");
    let r = &trace.ranks[0];
    let args: Vec<(u32, &str, f64)> = r.events.profiler_range_args.iter().map(|&(e, k, v)| (e, r.strings.get(k), v)).collect();
    assert_eq!(args, [(6, "smsp__a.sum", 3.0), (7, "smsp__b.sum", 7.0), (7, "smsp__a.sum", 2.0), (7, "dram__throughput.pct", 12.5)]);
    assert!(r.events.counters.is_empty());
}
