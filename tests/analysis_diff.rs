//! Trace diff on the hand-made pair of `testdata/diff/` (every number worked out in
//! `testdata/README.md`): aten::dropout removed, gemm twice as slow, aten::add and its kernel new,
//! a third step, one more launch per step.

use kinetoscope::analysis::diff::{hta_tables, ranked_table, summary_line, Device, LabeledTrace};
use kinetoscope::Trace;

use crate::{eqnice, util};

fn read(f: &str) -> Trace {
    let p = util::testdata(&format!("diff/{f}"));
    kinetoscope::read::read_all(&[(f, &util::bytes(&p)[..])]).expect("read")
}

#[test]
fn operators_ranked_by_time_change() {
    let (c, t) = (read("control.json"), read("test.json"));
    let (c, t) = (LabeledTrace::new("control", &c, None, true).expect("control"), LabeledTrace::new("test", &t, None, true).expect("test"));
    assert_eq!((c.iterations(), t.iterations()), (vec![1, 2], vec![1, 2, 3]));
    eqnice!(
        "name,control_counts,control_total_duration,test_counts,test_total_duration,diff_counts,diff_duration,counts_change_categories,duration_change_pct,change
ProfilerStep#1,1.0,1000.0,1.0,800.0,0.0,-200.0,=,-20.0,unchanged
gemm,1.0,100.0,1.0,200.0,0.0,100.0,=,100.0,unchanged
aten::dropout,1.0,40.0,0.0,0.0,-1.0,-40.0,-,-100.0,deleted
aten::add,0.0,0.0,1.0,20.0,1.0,20.0,+,,added
add_k,0.0,0.0,1.0,10.0,1.0,10.0,+,,added
cudaLaunchKernel,2.0,15.0,3.0,20.0,1.0,5.0,+,33.333333333333336,increased
aten::mm,1.0,90.0,1.0,90.0,0.0,0.0,=,0.0,unchanged
aten::relu,1.0,40.0,1.0,40.0,0.0,0.0,=,0.0,unchanged
relu_k,1.0,20.0,1.0,20.0,0.0,0.0,=,0.0,unchanged
",
        ranked_table(&c, &t, Device::All, false).to_csv()
    );
    // GPU rows take the iteration of their launch
    let gpu = ranked_table(&c, &t, Device::Gpu, false).to_csv();
    let names: Vec<&str> = gpu.lines().skip(1).map(|l| l.split(',').next().unwrap_or_default()).collect();
    assert_eq!(names, ["gemm", "add_k", "relu_k"]);
    eqnice!(
        "step time 1.000 → 0.800 ms (-20.0 %; control iteration 1 rank 0 vs test iteration 1 rank 0); biggest gain: aten::dropout -40.0 µs; biggest loss: gemm +100.0 µs",
        summary_line(&c, &t)
    );
}

/// HTA mode on the pair: the same classes in `ops_diff__all`, sorted by class then name.
#[test]
fn hta_ops_diff_classes() {
    let (c, t) = (read("control.json"), read("test.json"));
    let (c, t) = (LabeledTrace::new("control", &c, None, false).expect("control"), LabeledTrace::new("test", &t, None, false).expect("test"));
    let tables = hta_tables(&c, &t);
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
