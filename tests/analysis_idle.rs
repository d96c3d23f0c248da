//! Idle time breakdown (SPEC §2.4) on `testdata/analysis/idle.json`, default and `--hta`, with
//! the numbers worked out by hand in `testdata/README.md`.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::idle::{idle_time, IdleCategory};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::{Chart, Report};
use kinetoscope::Trace;

use crate::{eqnice, util};

fn load(json: &[u8]) -> Trace {
    kinetoscope::read::read_all(&[("idle.json", json)]).expect("reads")
}

fn report(t: &Trace, hta: bool, opts: &[(&str, &str)]) -> Result<Report, String> {
    let a = find("idle").expect("registered");
    let ctx = Context::new(t, hta, None).map_err(|e| e.0)?;
    let params = Params::new(a.options, opts.iter().copied()).map_err(|e| e.0)?;
    (a.run)(&ctx, &params).map_err(|e| e.0)
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

fn fixture() -> Trace {
    load(&util::bytes(&util::testdata("analysis/idle.json")))
}

#[test]
fn default_uses_the_latest_end_and_known_launches() {
    let r = report(&fixture(), false, &[]).expect("runs");
    // stream 7: kB lies inside kA (no gap); kC 10 µs after kA's end → kernel_wait; kD has no
    // launch → 80 µs other; kE launched at 400 after kD ended at 310 → host_wait 110.
    // stream 9: one kernel, no gap. The Stream Sync inside kA is not a kernel.
    eqnice!(
        "rank,stream,idle_category,idle_time,idle_time_ratio
0,7,host_wait,110.0,0.55
0,7,kernel_wait,10.0,0.05
0,7,other,80.0,0.4
0,9,host_wait,0.0,
0,9,kernel_wait,0.0,
0,9,other,0.0,
",
        csv(&r, "idle_time_breakdown")
    );
    eqnice!(
        "idle_category,rank,stream,count,mean,std,min,25%,50%,75%,max
host_wait,0,7,1.0,110.0,,110.0,110.0,110.0,110.0,110.0
kernel_wait,0,7,1.0,10.0,,10.0,10.0,10.0,10.0,10.0
other,0,7,1.0,80.0,,80.0,80.0,80.0,80.0,80.0
host_wait,0,9,0.0,,,,,,,
kernel_wait,0,9,0.0,,,,,,,
other,0,9,0.0,,,,,,,
",
        csv(&r, "idle_time_interval_stats")
    );
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn hta_reproduces_previous_end_and_event_zero_quirks() {
    let r = report(&fixture(), true, &[]).expect("runs");
    // SPEC §5.8: kB's gap is 110 − 200 = −90 (kernel_wait); kC's previous end is kB's 130 → 80
    // other; kD (no launch, index_correlation 0) takes event #0 (late_op at 500) as its launch,
    // 500 > 220 → host_wait 80; kE host_wait 110. Total 180: 190/180 = 1.06, −90/180 = −0.5,
    // 80/180 = 0.44. kA and kF are `other` rows without a gap.
    eqnice!(
        "rank,stream,idle_category,idle_time,idle_time_ratio
0,7,host_wait,190.0,1.06
0,7,kernel_wait,-90.0,-0.5
0,7,other,80.0,0.44
0,9,other,0.0,
",
        csv(&r, "idle_time_breakdown")
    );
    // host_wait gaps 80, 110: std = sqrt(450) = 21.21
    eqnice!(
        "idle_category,rank,stream,count,mean,std,min,25%,50%,75%,max
host_wait,0,7,2.0,95.0,21.21,80.0,87.5,95.0,102.5,110.0
kernel_wait,0,7,1.0,-90.0,,-90.0,-90.0,-90.0,-90.0,-90.0
other,0,7,1.0,80.0,,80.0,80.0,80.0,80.0,80.0
other,0,9,0.0,,,,,,,
",
        csv(&r, "idle_time_interval_stats")
    );
}

#[test]
fn gaps_per_category_in_ns() {
    let t = fixture();
    for (hta, want) in [(false, [vec![110_000], vec![10_000], vec![80_000]]), (true, [vec![80_000, 110_000], vec![-90_000], vec![80_000]])]
    {
        let ctx = Context::new(&t, hta, None).expect("context");
        let s = idle_time(&ctx, 0, None, 30_000);
        assert_eq!(s.iter().map(|x| x.stream).collect::<Vec<_>>(), vec![7, 9]);
        assert_eq!(s[0].gaps, want, "hta {hta}");
        assert_eq!(s[0].total_ns(), if hta { 180_000 } else { 200_000 });
        assert_eq!(s[0].idle_ns(IdleCategory::HostWait), if hta { 190_000 } else { 110_000 });
        // HTA classifies kA (no gap) as other; we do not classify it
        assert_eq!(s[0].kernels, if hta { [2, 1, 2] } else { [1, 1, 1] });
    }
}

#[test]
fn options_streams_and_delay() {
    let t = fixture();
    // a 5 µs threshold makes kC's 10 µs gap `other`
    let r = report(&t, false, &[("consecutive_kernel_delay", "5"), ("streams", "7")]).expect("runs");
    eqnice!(
        "rank,stream,idle_category,idle_time,idle_time_ratio
0,7,host_wait,110.0,0.55
0,7,kernel_wait,0.0,0.0
0,7,other,90.0,0.45
",
        csv(&r, "idle_time_breakdown")
    );
    let r = report(&t, true, &[("streams", "9,3")]).expect("runs");
    eqnice!("rank,stream,idle_category,idle_time,idle_time_ratio\n0,9,other,0.0,\n", csv(&r, "idle_time_breakdown"));
    assert_eq!(r.notes, vec!["rank 0: stream 3 has no kernels"]);
}

#[test]
fn chart_shows_shares_per_stream() {
    let r = report(&fixture(), false, &[]).expect("runs");
    let Some(Chart::StackedBars { categories, series, .. }) = r.charts.first() else { panic!("{:?}", r.charts) };
    assert_eq!(categories, &["stream 7", "stream 9"]);
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["host_wait", "kernel_wait", "other"]);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(series[0].values[0], 55.0) && close(series[1].values[0], 5.0) && close(series[2].values[0], 40.0), "{series:?}");
    assert_eq!(series[0].values[1], 0.0);
    let r = report(&fixture(), false, &[("visualize_pctg", "false")]).expect("runs");
    let Some(Chart::StackedBars { series, .. }) = r.charts.first() else { panic!() };
    assert_eq!(series[0].values, [110.0, 0.0]);
}

#[test]
fn a_rank_without_kernels() {
    let t = load(br#"{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}"#);
    assert!(report(&t, true, &[]).unwrap_err().contains("HTA 0.5.0 raises ValueError"));
    let r = report(&t, false, &[]).expect("runs");
    assert_eq!(r.notes, vec!["rank 0 has no kernels"]);
    assert_eq!(csv(&r, "idle_time_breakdown"), "rank,stream,idle_category,idle_time,idle_time_ratio\n");
}
