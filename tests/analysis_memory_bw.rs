//! Memory bandwidth series and summary (SPEC §2.7) on `testdata/analysis/memory_bw.json`,
//! default and `--hta`, numbers worked out by hand in `testdata/README.md`.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::memory_bw::{memory_bw, memory_bw_summary};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::{Chart, Report};
use kinetoscope::Trace;

use crate::{eqnice, util};

fn fixture() -> Trace {
    kinetoscope::read::read_all(&[("memory_bw.json", &util::bytes(&util::testdata("analysis/memory_bw.json"))[..])]).expect("reads")
}

fn report(t: &Trace, hta: bool) -> Report {
    let a = find("memory_bw").expect("registered");
    let ctx = Context::new(t, hta, None).expect("context");
    (a.run)(&ctx, &Params::defaults(a.options)).expect("runs")
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

#[test]
fn default_sums_exactly_and_keeps_zero_length_operations() {
    let r = report(&fixture(), false);
    // rows: starts 0..4 in trace order (HtoD 0.1, HtoD 0.2, Memset 5.0, DtoH 2.5), ends 4..8.
    // HtoD: 0.1, 0.1 + 0.2 (the double nearest the exact sum is 0.30000000000000004), then
    // exactly 0.2 and exactly 0. The 0-µs Memset starts and ends at 20.
    eqnice!(
        "row,ts,pid,name,memory_bw_gbps
3,30.0,0,Memcpy DtoH,2.5
7,40.0,0,Memcpy DtoH,0.0
0,0.0,0,Memcpy HtoD,0.1
1,2.0,0,Memcpy HtoD,0.30000000000000004
4,10.0,0,Memcpy HtoD,0.2
5,12.0,0,Memcpy HtoD,0.0
2,20.0,0,Memset,5.0
6,20.0,0,Memset,0.0
",
        csv(&r, "memory_bw_time_series__rank0")
    );
    eqnice!(
        "name,ts,memory_bw_gbps
Memcpy DtoH,30.0,2.5
Memcpy DtoH,40.0,0.0
Memcpy HtoD,0.0,0.1
Memcpy HtoD,2.0,0.30000000000000004
Memcpy HtoD,10.0,0.2
Memcpy HtoD,12.0,0.0
Memset,20.0,0.0
",
        csv(&r, "memory_bw_time_series_collapsed__rank0")
    );
    // positive collapsed values: DtoH [2.5]; HtoD [0.1, 0.3, 0.2] (mean 0.2, std 0.1); the
    // Memset never holds a bandwidth over time, so it has no row
    eqnice!(
        "rank,name,memory_bw_gbps_count,memory_bw_gbps_mean,memory_bw_gbps_std,memory_bw_gbps_min,memory_bw_gbps_25%,memory_bw_gbps_50%,memory_bw_gbps_75%,memory_bw_gbps_max
0,Memcpy DtoH,1.0,2.5,,2.5,2.5,2.5,2.5,2.5
0,Memcpy HtoD,3.0,0.20000000000000004,0.10000000000000003,0.1,0.15000000000000002,0.2,0.25,0.30000000000000004
",
        csv(&r, "memory_bw_summary")
    );
}

#[test]
fn hta_keeps_float_residues_and_stretches_zero_length() {
    let r = report(&fixture(), true);
    // float cumsum: ((0.1 + 0.2) − 0.1) − 0.2 = 2.7755575615628914e-17, a positive point; the
    // Memset lasts 1 µs (HTA: "round it up to 1 us")
    eqnice!(
        "row,ts,pid,name,memory_bw_gbps
3,30,0,Memcpy DtoH,2.5
7,40,0,Memcpy DtoH,0.0
0,0,0,Memcpy HtoD,0.1
1,2,0,Memcpy HtoD,0.30000000000000004
4,10,0,Memcpy HtoD,0.20000000000000004
5,12,0,Memcpy HtoD,2.7755575615628914e-17
2,20,0,Memset,5.0
6,21,0,Memset,0.0
",
        csv(&r, "memory_bw_time_series__rank0")
    );
    eqnice!(
        "rank,name,memory_bw_gbps_count,memory_bw_gbps_mean,memory_bw_gbps_std,memory_bw_gbps_min,memory_bw_gbps_25%,memory_bw_gbps_50%,memory_bw_gbps_75%,memory_bw_gbps_max
0,Memcpy DtoH,1.0,2.5,,2.5,2.5,2.5,2.5,2.5
0,Memcpy HtoD,4.0,0.15000000000000002,0.12909944487358058,2.7755575615628914e-17,0.07500000000000001,0.15000000000000002,0.22500000000000003,0.30000000000000004
0,Memset,1.0,5.0,,5.0,5.0,5.0,5.0,5.0
",
        csv(&r, "memory_bw_summary")
    );
}

#[test]
fn pure_functions() {
    let t = fixture();
    let ctx = Context::new(&t, false, None).expect("context");
    let b = memory_bw(&ctx);
    assert_eq!(b.len(), 1);
    let types: Vec<&str> = b[0].types().map(|(n, _)| n).collect();
    assert_eq!(types, ["Memcpy DtoH", "Memcpy HtoD", "Memset"]);
    // ns times: HtoD starts at 0 and 2000, ends at 10000 and 12000
    let htod: Vec<(usize, i64, f64)> = b[0].types().nth(1).expect("HtoD").1.iter().map(|p| (p.row, p.ts_ns, p.delta)).collect();
    assert_eq!(htod, [(0, 0, 0.1), (1, 2_000, 0.2), (4, 10_000, -0.1), (5, 12_000, -0.2)]);
    let s = memory_bw_summary(&b[0], false);
    assert_eq!(s.iter().map(|(n, d)| (n.as_str(), d.count)).collect::<Vec<_>>(), [("Memcpy DtoH", 1.0), ("Memcpy HtoD", 3.0)]);
}

#[test]
fn all_zero_bandwidth_gives_hta_an_index_only_summary() {
    // AMD traces have no bandwidth arg: every value is 0, HTA's summary is empty
    let json = br#"{"traceEvents": [
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Host -> Device)", "pid": 2, "tid": 0, "ts": 5, "dur": 3, "args": {"stream": 0, "correlation": 1}}
]}"#;
    let t = kinetoscope::read::read_all(&[("amd.json", &json[..])]).expect("reads");
    let r = report(&t, true);
    eqnice!(
        "index,memory_bw_gbps_count,memory_bw_gbps_mean,memory_bw_gbps_std,memory_bw_gbps_min,memory_bw_gbps_25%,memory_bw_gbps_50%,memory_bw_gbps_75%,memory_bw_gbps_max\n",
        csv(&r, "memory_bw_summary")
    );
    eqnice!("row,ts,pid,name,memory_bw_gbps\n0,0,2,Memcpy HtoD,0.0\n1,3,2,Memcpy HtoD,0.0\n", csv(&r, "memory_bw_time_series__rank0"));
    let r = report(&t, false);
    assert!(csv(&r, "memory_bw_summary").starts_with("rank,name,"));
    assert_eq!(r.notes, vec!["rank 0: every memory operation reports 0 GB/s (no bandwidth arg, e.g. AMD traces)"]);
}

#[test]
fn chart_is_a_step_line_per_type() {
    let r = report(&fixture(), false);
    let Some(Chart::Lines { lines, step, y_label, .. }) = r.charts.first() else { panic!("{:?}", r.charts) };
    assert!(step);
    assert_eq!(y_label, "GB/s");
    assert_eq!(lines[1].name, "Memcpy HtoD");
    assert_eq!(lines[1].points, [(0.0, 0.1), (2.0, 0.1 + 0.2), (10.0, 0.2), (12.0, 0.0)]);
}
