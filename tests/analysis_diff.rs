//! Trace diff on the hand-made pair of `testdata/diff/` (every number worked out in
//! `testdata/README.md`): aten::dropout removed, gemm twice as slow, aten::add and its kernel new,
//! a third step, one more launch per step.

use kinetoscope::analysis::diff::{hta_tables, report, DiffOptions, LabeledTrace, Side};
use kinetoscope::analysis::report::Report;
use kinetoscope::Trace;

use crate::{eqnice, util};

fn read(f: &str) -> Trace {
    let p = util::testdata(&format!("diff/{f}"));
    kinetoscope::read::read_all(&[(f, &util::bytes(&p)[..])]).expect("read")
}

fn diff(c: &Trace, t: &Trace, o: &DiffOptions) -> Report {
    let (c, t) = (Side::new("control", c, None).expect("control"), Side::new("test", t, None).expect("test"));
    report(&c, &t, o).expect("diff")
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

/// Per step: control has one complete step (the last is left out), test two.
#[test]
fn operators_ranked_by_time_change_per_step() {
    let (c, t) = (read("control.json"), read("test.json"));
    let r = diff(&c, &t, &DiffOptions::default());
    assert_eq!(r.tables[0].name, "diff_by_op");
    eqnice!(
        "name,control_time_us,test_time_us,diff_time_us,change_pct,control_count,test_count,control_mean_us,test_mean_us,change
ProfilerStep#*,1000.0,800.0,-200.0,-20.0,1.0,1.0,1000.0,800.0,unchanged
gemm,100.0,200.0,100.0,100.0,1.0,1.0,100.0,200.0,unchanged
aten::dropout,40.0,0.0,-40.0,-100.0,1.0,0.0,40.0,,deleted
aten::add,0.0,20.0,20.0,,0.0,1.0,,20.0,added
add_k,0.0,10.0,10.0,,0.0,1.0,,10.0,added
cudaLaunchKernel,15.0,20.0,5.0,33.333333333333336,2.0,3.0,7.5,6.666666666666667,increased
aten::mm,90.0,90.0,0.0,0.0,1.0,1.0,90.0,90.0,unchanged
aten::relu,40.0,40.0,0.0,0.0,1.0,1.0,40.0,40.0,unchanged
relu_k,20.0,20.0,0.0,0.0,1.0,1.0,20.0,20.0,unchanged
",
        csv(&r, "diff_by_op")
    );
    eqnice!(
        "step time 1.000 → 0.800 ms (-20.0 %); control (rank 0) vs test (rank 0); biggest gain: aten::dropout -40.0 µs; biggest loss: gemm +100.0 µs",
        r.notes[0]
    );
    assert_eq!(r.notes[1], "times and calls are per step: control 1 steps, test 2 steps averaged");
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
