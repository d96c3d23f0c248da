//! `aten_ops` (HTA `get_aten_op_kernels_and_delay`) on `testdata/analysis/aten_ops*.json`:
//! every number worked out by hand in `testdata/README.md`.

use kinetoscope::analysis::api::{AnalysisError, Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::Report;

use crate::{eqnice, util};

fn report(file: &str, hta: bool, opts: &[(&str, &str)]) -> Result<Report, AnalysisError> {
    let trace = kinetoscope::read::read_all(&[(file, &util::bytes(&util::testdata(&format!("analysis/{file}"))))]).expect("read");
    let a = find("aten_ops").expect("registered");
    let ctx = Context::new(&trace, hta, None).expect("context");
    (a.run)(&ctx, &Params::new(a.options, opts.iter().copied())?)
}

fn table(r: &Report) -> String {
    assert_eq!(r.tables.len(), 1);
    assert_eq!(r.tables[0].name, "aten_op_kernels_and_delay__rank0");
    r.tables[0].to_csv()
}

/// Default: the launch on thread 2 belongs to no ATen op (the addmm spanning it runs on thread 1);
/// aten::mm, not aten::matmul, launches the gemm at 60 (both start at 50; mm is inside);
/// hipLaunchKernel is a launch; both addmm instances launch "gemm -> bias" (cuLaunchKernel then
/// cudaLaunchKernel in the second): op delays 5 and 5, runtime delays 15 and 7 → mean 11.
#[test]
fn default_attributes_launches_to_the_innermost_op_on_their_thread() {
    let r = report("aten_ops.json", false, &[]).expect("run");
    eqnice!(
        "aten_op_name,kernel_sequence,occurrence_count,avg_aten_op_launch_delay,avg_runtime_delay\n\
         aten::addmm,gemm -> bias,2,5.0,11.0\n\
         aten::mm,gemm,1,10.0,10.0\n\
         aten::relu,relu_k,1,5.0,6.0\n",
        table(&r)
    );
    let r = report("aten_ops.json", false, &[("sort_by", "avg_runtime_delay")]).expect("run");
    let csv = table(&r);
    let names: Vec<&str> = csv.lines().skip(1).map(|l| l.split(',').next().unwrap_or("")).collect();
    assert_eq!(names, ["aten::addmm", "aten::mm", "aten::relu"]);
    let r = report("aten_ops.json", false, &[("sort_by", "aten_op_name")]).expect("run");
    assert!(table(&r).lines().nth(1).unwrap_or("").starts_with("aten::relu,"));
    assert!(report("aten_ops.json", false, &[("sort_by", "count")]).unwrap_err().0.contains("unknown column 'count'"));
}

/// `--hta`: the deepest op is searched on every thread, so thread 2's launch (12 µs) joins the
/// first addmm (10–40 µs) and its sequence becomes "gemm -> bias -> side_k"; the tie at 50 µs
/// goes to the first row, aten::matmul; hipLaunchKernel is not a launch (SPEC §2.10).
#[test]
fn hta_searches_every_thread_and_breaks_ties_by_row() {
    let r = report("aten_ops.json", true, &[]).expect("run");
    eqnice!(
        "aten_op_name,kernel_sequence,occurrence_count,avg_aten_op_launch_delay,avg_runtime_delay\n\
         aten::addmm,gemm -> bias,1,5.0,7.0\n\
         aten::addmm,gemm -> bias -> side_k,1,5.0,15.0\n\
         aten::matmul,gemm,1,10.0,10.0\n",
        table(&r)
    );
}

/// A launch without a kernel and one with two GPU rows (SPEC §5.7): HTA raises on the first;
/// the default skips it, uses the earliest kernel of the second (k_b at 30: delays 20 and 10)
/// and says so. The driver call inside the third launch (its own correlation, no kernel) is part
/// of that launch, not a launch without a kernel.
#[test]
fn launches_without_exactly_one_kernel() {
    let err = report("aten_ops_bad_launches.json", true, &[]).unwrap_err();
    assert_eq!(err.0, "rank 0: launch \"cudaLaunchKernel\" (event index 1) has 0 GPU rows: HTA 0.5.0 raises ValueError: can only convert an array of size 1 to a Python scalar");
    let r = report("aten_ops_bad_launches.json", false, &[]).expect("run");
    eqnice!(
        "aten_op_name,kernel_sequence,occurrence_count,avg_aten_op_launch_delay,avg_runtime_delay\naten::add,k_b -> k_c,1,20.0,10.0\n",
        table(&r)
    );
    assert_eq!(
        r.notes,
        [
            "rank 0: 1 launch call(s) inside an ATen op have no GPU kernel in the trace and were skipped",
            "rank 0: 1 launch call(s) have several GPU rows; the earliest was used"
        ]
    );
}

/// No launch inside an ATen op: HTA's KeyError; the default returns an empty table and a note.
#[test]
fn no_launch_inside_an_op() {
    let err = report("cupti_triton.json", true, &[]).map(|_| ()).unwrap_err();
    assert_eq!(err.0, "rank 0: no kernel launch inside an ATen op: HTA 0.5.0 raises KeyError: 'thread_id'");
    let r = report("cupti_triton.json", false, &[]).expect("run");
    eqnice!("aten_op_name,kernel_sequence,occurrence_count,avg_aten_op_launch_delay,avg_runtime_delay\n", table(&r));
    assert_eq!(r.notes, ["rank 0: no kernel launch inside an ATen op"]);
}

/// A runtime launch and the driver call it makes share a correlation: HTA links the kernel to
/// the driver row (the last CPU partner), so the runtime call finds 0 kernels and HTA raises;
/// the default counts the pair once (aten::mm launches k1 at 110 and k2 at 130: delays 10, 15).
#[test]
fn runtime_and_driver_call_with_one_correlation() {
    let err = report("launch.json", true, &[]).map(|_| ()).unwrap_err();
    assert!(err.0.starts_with("rank 0: launch \"cudaLaunchKernel\" (event index 3) has 0 GPU rows"), "{}", err.0);
    let r = report("launch.json", false, &[]).expect("run");
    eqnice!(
        "aten_op_name,kernel_sequence,occurrence_count,avg_aten_op_launch_delay,avg_runtime_delay\naten::mm,k1 -> k2,1,10.0,15.0\n",
        table(&r)
    );
}
