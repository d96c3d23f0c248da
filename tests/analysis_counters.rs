//! Trace with counters (SPEC §2.8) on `testdata/analysis/counters.json`: the counter table,
//! default and `--hta`, and the produced gzip trace read back with our own reader.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::counters::TimeSeries;
use kinetoscope::analysis::registry::find;
use kinetoscope::model::{Kind, Phase};
use kinetoscope::table::Report;
use kinetoscope::Trace;

use crate::{eqnice, util};

fn fixture() -> Trace {
    kinetoscope::read::read_all(&[("analysis/counters.json", &util::bytes(&util::testdata("analysis/counters.json"))[..])]).expect("reads")
}

fn report(t: &Trace, hta: bool, opts: &[(&str, &str)]) -> Report {
    let a = find("counters").expect("registered");
    let ctx = Context::new(t, hta, None).expect("context");
    (a.run)(&ctx, &Params::new(a.options, opts.iter().copied()).expect("options")).expect("runs")
}

#[test]
fn counter_table_default_and_hta() {
    let t = fixture();
    // default: exact times (the kernel starts at 1010.5 µs), queue first, then bandwidth
    eqnice!(
        "name,counter,pid,id,ts,value
Queue Length,Queue Length,0,7.0,1000.0,1.0
Queue Length,Queue Length,0,7.0,1010.5,0.0
Queue Length,Queue Length,0,7.0,1012.0,1.0
Queue Length,Queue Length,0,7.0,1020.0,0.0
Memcpy DtoD,Memcpy BW,0,,1020.0,3.5
Memcpy DtoD,Memcpy BW,0,,1024.0,0.0
",
        report(&t, false, &[]).tables[0].to_csv()
    );
    // HTA rounds the file's times (one is fractional): the kernel starts at ceil(1010.5) = 1011;
    // rows in the oracle's canonical order
    let r = report(&t, true, &[]);
    assert_eq!(r.tables[0].name, "trace_with_counters__rank0");
    eqnice!(
        "name,counter,pid,id,ts,value
Memcpy DtoD,Memcpy BW,0,,1020.0,3.5
Memcpy DtoD,Memcpy BW,0,,1024.0,0.0
Queue Length,Queue Length,0,7.0,1000.0,1.0
Queue Length,Queue Length,0,7.0,1011.0,0.0
Queue Length,Queue Length,0,7.0,1012.0,1.0
Queue Length,Queue Length,0,7.0,1020.0,0.0
",
        r.tables[0].to_csv()
    );
}

#[test]
fn produced_trace_reads_back_with_its_counters() {
    let t = fixture();
    let r = report(&t, false, &[]);
    // the analysis says what to add; export writes the file
    assert_eq!(r.traces.len(), 1);
    assert_eq!(r.traces[0].counters.len(), 6);
    let files = kinetoscope::export::trace_files(&t, &r).expect("writes");
    let f = &files[0];
    assert_eq!(f.name, "counters_with_counters.json.gz");
    assert_eq!(&f.bytes[..2], &[0x1f, 0x8b]);
    let back = kinetoscope::read::read_bytes(&f.name, &f.bytes, 7).expect("re-reads");
    let ev = &back.events;
    // the 4 original events, then the 6 counter events
    assert_eq!(ev.len(), 10);
    assert_eq!(
        (0..4).map(|e| back.name(e)).collect::<Vec<_>>(),
        ["cudaLaunchKernel", "k1", "Memcpy DtoD (Device -> Device)", "cudaMemcpyAsync"]
    );
    assert_eq!(ev.ts[1], 1_010_500);
    let counters: Vec<(String, i64, String, f64)> = ev
        .counters
        .iter()
        .map(|&(e, series, v)| {
            assert_eq!((ev.phase[e as usize], ev.kind[e as usize]), (Phase::Counter, Kind::Counter));
            (back.name(e).to_string(), ev.ts[e as usize], back.strings.get(series).to_string(), v)
        })
        .collect();
    let q = |ts: i64, v: f64| ("Queue Length".to_string(), ts, "Queue Length".to_string(), v);
    let bw = |ts: i64, v: f64| ("Memcpy DtoD".to_string(), ts, "Memcpy BW".to_string(), v);
    assert_eq!(
        counters,
        [q(1_000_000, 1.0), q(1_010_500, 0.0), q(1_012_000, 1.0), q(1_020_000, 0.0), bw(1_020_000, 3.5), bw(1_024_000, 0.0)]
    );
}

#[test]
fn options_select_series_and_name() {
    let t = fixture();
    let r = report(&t, true, &[("time_series", "memcpy_bandwidth"), ("output_suffix", "_bw")]);
    assert_eq!(r.tables[0].rows(), 2);
    assert_eq!(r.traces[0].name, "counters_bw.json.gz");
    assert_eq!(TimeSeries::parse("QUEUE_LENGTH").expect("parses"), TimeSeries { queue_length: true, memcpy_bandwidth: false });
    assert_eq!(TimeSeries::parse("").expect("parses"), TimeSeries { queue_length: true, memcpy_bandwidth: true });
    assert_eq!(
        TimeSeries::parse("QUEUE_LENGTH|BOGUS").unwrap_err().0,
        "option 'time_series': expected QUEUE_LENGTH and/or MEMCPY_BANDWIDTH, found 'BOGUS'"
    );
}

#[test]
fn no_counters_no_file() {
    let json = br#"{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}"#;
    let t = kinetoscope::read::read_all(&[("cpu.json", &json[..])]).expect("reads");
    let r = report(&t, false, &[]);
    assert!(r.tables.is_empty() && r.traces.is_empty());
    assert_eq!(r.notes, vec!["no rank has kernel launches or memory operations: no trace written"]);
}

#[test]
fn without_traces_the_table_is_the_same_and_the_trace_only_named() {
    // `analyze` without `--traces` drops produced traces: the samples are not kept for them
    let t = fixture();
    let a = find("counters").expect("registered");
    let mut ctx = Context::new(&t, false, None).expect("context");
    ctx.traces = false;
    let r = (a.run)(&ctx, &Params::new(a.options, []).expect("options")).expect("runs");
    assert_eq!(r.tables[0].to_csv(), report(&t, false, &[]).tables[0].to_csv());
    assert_eq!(r.traces.len(), 1);
    assert_eq!(r.traces[0].name, "counters_with_counters.json.gz");
    assert!(r.traces[0].counters.is_empty());
}
