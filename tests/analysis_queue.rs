//! Queue length, its summary and time blocked on a full queue (SPEC §2.5, §2.6) on
//! `testdata/analysis/queue.json`, default and `--hta`, numbers worked out by hand in
//! `testdata/README.md`.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::queue::{blocked_on_full_queue, queue_length};
use kinetoscope::analysis::registry::{find, hta_plan, run_step};
use kinetoscope::table::{Chart, Report};
use kinetoscope::Trace;

use crate::{eqnice, util};

fn fixture() -> Trace {
    kinetoscope::read::read_all(&[("queue.json", &util::bytes(&util::testdata("analysis/queue.json"))[..])]).expect("reads")
}

fn report(t: &Trace, hta: bool, opts: &[(&str, &str)]) -> Report {
    let a = find("queue").expect("registered");
    let ctx = Context::new(t, hta, None).expect("context");
    (a.run)(&ctx, &Params::new(a.options, opts.iter().copied()).expect("options")).expect("runs")
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

#[test]
fn default_counts_every_launched_operation() {
    let r = report(&fixture(), false, &[]);
    // stream 9: cudaGraphLaunch (event 10) enqueues g1 and g2 at 50, cuLaunchKernelEx k7 at 52;
    // HTA's name list has neither. At 15 on stream 8 the memset starts (−1) before the next
    // launch (+1). Times are µs after the first event (1000).
    eqnice!(
        "index,ts,pid,tid,stream,queue_length
0,0.0,0,7,7,1
2,2.0,0,7,7,2
4,4.0,0,7,7,3
1,10.0,0,7,7,2
3,20.0,0,7,7,1
5,30.0,0,7,7,0
6,5.0,0,8,8,1
7,15.0,0,8,8,0
8,15.0,0,8,8,1
9,40.0,0,8,8,0
10,50.0,0,9,9,1
10,50.0,0,9,9,2
13,52.0,0,9,9,3
11,60.0,0,9,9,2
12,65.0,0,9,9,1
14,70.0,0,9,9,0
",
        csv(&r, "queue_length_time_series__rank0")
    );
    eqnice!(
        "stream,ts,queue_length
7,0.0,1
7,2.0,2
7,4.0,3
7,10.0,2
7,20.0,1
7,30.0,0
8,5.0,1
8,15.0,1
8,40.0,0
9,50.0,2
9,52.0,3
9,60.0,2
9,65.0,1
9,70.0,0
",
        csv(&r, "queue_length_time_series_collapsed__rank0")
    );
    // summary of the collapsed values: stream 7 [1,2,3,2,1,0], 8 [1,1,0], 9 [2,3,2,1,0]
    let s = csv(&r, "queue_length_summary");
    let rows: Vec<Vec<f64>> = s.lines().skip(1).map(|l| l.split(',').map(|x| x.parse().unwrap_or(f64::NAN)).collect()).collect();
    assert_eq!(rows.len(), 3);
    let want = [
        [0.0, 7.0, 6.0, 1.5, (5.5f64 / 5.0).sqrt(), 0.0, 1.0, 1.5, 2.0, 3.0],
        [0.0, 8.0, 3.0, 2.0 / 3.0, (2.0f64 / 3.0 / 2.0).sqrt(), 0.0, 0.5, 1.0, 1.0, 1.0],
        [0.0, 9.0, 5.0, 1.6, (5.2f64 / 4.0).sqrt(), 0.0, 1.0, 2.0, 2.0, 3.0],
    ];
    for (got, want) in rows.iter().zip(want) {
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?} vs {want:?}");
        }
    }
    // nothing reaches 1024
    eqnice!("rank,stream,duration_at_max_queue_length,relative_duration_at_max_queue_length\n", csv(&r, "time_blocked_on_full_queue"));
}

#[test]
fn hta_counts_only_its_launch_names() {
    let r = report(&fixture(), true, &[]);
    eqnice!(
        "index,ts,pid,tid,stream,queue_length
0,0,0,7,7,1
2,2,0,7,7,2
4,4,0,7,7,3
1,10,0,7,7,2
3,20,0,7,7,1
5,30,0,7,7,0
6,5,0,8,8,1
7,15,0,8,8,0
8,15,0,8,8,1
9,40,0,8,8,0
",
        csv(&r, "queue_length_time_series__rank0")
    );
    // summary of every point: stream 8 [1,0,1,0] (HTA also counts the 0 between the two points at 15)
    eqnice!(
        "rank,stream,queue_length_count,queue_length_mean,queue_length_std,queue_length_min,queue_length_25%,queue_length_50%,queue_length_75%,queue_length_max
0,7,6.0,1.5,1.0488088481701516,0.0,1.0,1.5,2.0,3.0
0,8,4.0,0.5,0.5773502691896257,0.0,0.0,0.5,1.0,1.0
",
        csv(&r, "queue_length_summary")
    );
}

#[test]
fn blocked_time_per_stream() {
    let t = fixture();
    // max_queue_length 1: stream 7 holds ≥ 1 from 0 to 30, stream 8 from 5 to 15 and 15 to 40,
    // stream 9 from 50 to 70. Rank span: first start 0 to last end 75 (default); HTA divides by
    // the span of start times, 0 to 70, and keeps only the last stream (SPEC §5.6).
    let r = report(&t, false, &[("max_queue_length", "1")]);
    eqnice!(
        "rank,stream,duration_at_max_queue_length,relative_duration_at_max_queue_length
0,7,30.0,0.4
0,8,35.0,0.4666666666666667
0,9,20.0,0.26666666666666666
",
        csv(&r, "time_blocked_on_full_queue")
    );
    let r = report(&t, true, &[("max_queue_length", "1")]);
    eqnice!(
        "rank,stream,duration_at_max_queue_length,relative_duration_at_max_queue_length\n0,8,35.0,0.5\n",
        csv(&r, "time_blocked_on_full_queue")
    );
    // the pure function: max 3 is reached on stream 7 from 4 to 10 and on stream 9 from 52 to 60
    let ctx = Context::new(&t, false, None).expect("context");
    let q = queue_length(&ctx).expect("series");
    let b = blocked_on_full_queue(&q[0], &ctx.frames().ranks[0], &t.ranks[0], 3, false);
    assert_eq!(b.iter().map(|b| (b.stream, b.duration_ns)).collect::<Vec<_>>(), vec![(7, 6_000), (9, 8_000)]);
}

#[test]
fn hta_plan_adds_the_max8_variant() {
    let t = fixture();
    let ctx = Context::new(&t, true, None).expect("context");
    let step = hta_plan(&ctx).into_iter().find(|s| s.rename.is_some_and(|r| r.1 == "time_blocked_on_full_queue__max8")).expect("max8 step");
    let r = run_step(&ctx, &step).expect("runs");
    let names: Vec<&str> = r.tables.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["time_blocked_on_full_queue__max8"]);
}

#[test]
fn hta_assertion_on_two_listed_launches_per_correlation() {
    // cudaLaunchKernel and cuLaunchKernel (both in HTA's list) share correlation 1: HTA's
    // runtime-call join has 2 rows for 1 GPU row and its assertion fails
    let json = br#"{"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_driver", "name": "cuLaunchKernel", "pid": 1, "tid": 1, "ts": 1, "dur": 2, "args": {"correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"stream": 7, "correlation": 1}}
]}"#;
    let t = kinetoscope::read::read_all(&[("x.json", &json[..])]).expect("reads");
    let a = find("queue").expect("registered");
    let ctx = Context::new(&t, true, None).expect("context");
    let err = (a.run)(&ctx, &Params::defaults(a.options)).unwrap_err();
    assert!(err.0.contains("2 launches but 1 GPU operations"), "{}", err.0);
    // default: the runtime call is the launcher (the model prefers it over the driver call)
    let r = report(&t, false, &[]);
    eqnice!("index,ts,pid,tid,stream,queue_length\n0,0.0,0,7,7,1\n2,10.0,0,7,7,0\n", csv(&r, "queue_length_time_series__rank0"));
}

#[test]
fn chart_is_a_step_line_per_stream() {
    let r = report(&fixture(), false, &[]);
    let Some(Chart::Lines { lines, step, .. }) = r.charts.first() else { panic!("{:?}", r.charts) };
    assert!(step);
    assert_eq!(lines.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(), ["stream 7", "stream 8", "stream 9"]);
    assert_eq!(lines[1].points, [(5.0, 1.0), (15.0, 1.0), (40.0, 0.0)]);
}
