//! `critical_path` (HTA `critical_path_analysis`, SPEC §2.17–§2.18) on the hand-made traces of
//! `testdata/critical_path/`: every path worked out by hand in `testdata/README.md`, default mode
//! and `--hta`; the overlay; bad input. HTA's own outputs are compared in `golden_hta.rs`.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::{Report, Values};

use crate::util;

fn read(file: &str) -> kinetoscope::Trace {
    let path = util::testdata(&format!("critical_path/{file}"));
    kinetoscope::read::read_all(&[(file, &util::bytes(&path))]).expect("read")
}

fn run(trace: &kinetoscope::Trace, hta: bool, opts: &[(&str, &str)]) -> Result<Report, String> {
    let a = find("critical_path").expect("registered");
    let ctx = Context::new(trace, hta, None).expect("context");
    a.report(&ctx, &Params::new(a.options, opts.iter().copied()).expect("options")).map_err(|e| e.0)
}

fn report(file: &str, hta: bool) -> Report {
    run(&read(file), hta, &[]).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn column<'a>(r: &'a Report, table: &str, col: &str) -> &'a Values {
    let t = r.tables.iter().find(|t| t.name == table).unwrap_or_else(|| panic!("no table {table}"));
    &t.column(col).unwrap_or_else(|| panic!("no column {col}")).values
}

/// The path as `type:name:µs` per edge, in the breakdown's order (path order without `--hta`).
fn path(r: &Report) -> Vec<String> {
    let (Values::Str(kind), Values::Str(name), Values::Float(dur)) = (
        column(r, "critical_path_breakdown", "type"),
        column(r, "critical_path_breakdown", "s_name"),
        column(r, "critical_path_breakdown", "duration"),
    ) else {
        panic!("column types")
    };
    kind.iter().zip(name.iter()).zip(dur).map(|((k, n), d)| format!("{}:{n}:{d}", k.trim_start_matches("critical_path_"))).collect()
}

/// `bound_by` → µs of the path.
fn summary(r: &Report) -> Vec<(String, f64)> {
    let (Values::Str(k), Values::Float(d)) =
        (column(r, "critical_path_summary", "bound_by"), column(r, "critical_path_summary", "duration"))
    else {
        panic!("column types")
    };
    k.iter().map(str::to_string).zip(d.iter().copied()).filter(|x| !x.0.is_empty()).collect()
}

fn info(r: &Report, key: &str) -> String {
    let (Values::Str(k), Values::Str(v)) = (column(r, "critical_path_info", "key"), column(r, "critical_path_info", "value")) else {
        panic!("column types")
    };
    v[k.iter().position(|x| x == key).unwrap_or_else(|| panic!("no {key}"))].to_string()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn pairs(v: &[(&str, f64)]) -> Vec<(String, f64)> {
    v.iter().map(|(k, d)| (k.to_string(), *d)).collect()
}

/// A (10 µs to L) → L (5) → A's rest (35) → B (30): 80 µs of CPU; the kernel's branch (launch
/// 10 + kernel 5) ends at 35 µs, off the path.
#[test]
fn cpu_bound() {
    let r = report("cpu_bound.json", false);
    assert_eq!(path(&r), s(&["operator:A:10", "operator:cudaLaunchKernel:5", "operator:A:35", "dependency::0", "operator:B:30"]));
    assert_eq!(summary(&r), pairs(&[("cpu_bound", 80.0)]));
    assert_eq!(info(&r, "critical_path_length"), "80");
    assert_eq!(info(&r, "annotation"), "ProfilerStep", "auto picks the step");
    // HTA: same path, rows in its canonical order
    assert_eq!(info(&report("cpu_bound.json", true), "critical_path_length"), "80");
}

/// K1 (100 µs) runs while cudaDeviceSynchronize waits. Without cuda_sync events HTA has no sync
/// edge, so its path stops at K1's end (110 µs) and misses B; the default infers the sync
/// (K1 ends inside the call) and continues to B: 2 + 8 + 100 + 10 = 120 µs.
#[test]
fn gpu_bound_with_inferred_sync() {
    let r = report("gpu_bound.json", false);
    assert_eq!(
        path(&r),
        s(&["operator:A:2", "kernel_launch_delay::8", "operator:K1:100", "sync_dependency::0", "dependency::0", "operator:B:10"])
    );
    assert_eq!(summary(&r), pairs(&[("cpu_bound", 12.0), ("gpu_compute_bound", 100.0), ("gpu_kernel_launch_overhead", 8.0)]));
    assert!(r.notes.iter().any(|n| n.contains("1 synchronisation edge inferred")), "{:?}", r.notes);
    let h = report("gpu_bound.json", true);
    assert_eq!(info(&h, "critical_path_length"), "110");
    assert!(!path(&h).iter().any(|e| e.contains(":B:")));
}

/// Two launches queue K1 and K2. HTA's queue test rejects K1's launch edge (K2 was queued when
/// K1 started), leaving K1 unconnected and the path on the CPU (14 µs). The default: the GPU
/// waited 15 µs for L1, then K1, a 2 µs gap, K2 (26 µs, 58% launch delay).
#[test]
fn launch_bound() {
    let r = report("launch_bound.json", false);
    assert_eq!(path(&r), s(&["operator:A:5", "kernel_launch_delay::15", "operator:K1:2", "kernel_kernel_delay:K1:2", "operator:K2:2"]));
    assert_eq!(
        summary(&r),
        pairs(&[("cpu_bound", 5.0), ("gpu_compute_bound", 4.0), ("gpu_kernel_kernel_overhead", 2.0), ("gpu_kernel_launch_overhead", 15.0)])
    );
    let h = report("launch_bound.json", true);
    assert_eq!(info(&h, "critical_path_length"), "14");
    assert!(h.notes.iter().any(|n| n.contains("1 GPU operation got no incoming edge")), "{:?}", h.notes);
}

/// cudaStreamSynchronize with its `Stream Sync` event: K1's end → the call's end, then B.
/// Both modes: 2 + 4 + 54 + 5 = 65 µs.
#[test]
fn sync_bound() {
    for hta in [false, true] {
        let r = report("sync_bound.json", hta);
        assert_eq!(info(&r, "critical_path_length"), "65", "hta {hta}");
        let p = path(&r);
        assert!(p.contains(&"sync_dependency::0".to_string()) && p.contains(&"operator:K1:54".to_string()), "{p:?}");
    }
    let r = report("sync_bound.json", false);
    assert_eq!(
        path(&r),
        s(&["operator:A:2", "kernel_launch_delay::4", "operator:K1:54", "sync_dependency::0", "dependency::0", "operator:B:5"])
    );
}

/// cudaEventRecord after L1 (stream 7), cudaStreamWaitEvent before L2 (stream 9): K2 waits for
/// K1 (sync edge K1 → K2), then Context Sync. 1 + 8 + 40 + 9 = 58 µs in both modes.
#[test]
fn two_streams_with_an_event_wait() {
    for hta in [false, true] {
        let r = report("two_streams_event_wait.json", hta);
        assert_eq!(info(&r, "critical_path_length"), "58", "hta {hta}");
    }
    let r = report("two_streams_event_wait.json", false);
    assert_eq!(path(&r), s(&["operator:A:1", "kernel_launch_delay::8", "operator:K1:40", "sync_dependency::0", "operator:K2:9"]));
    // the overlay's arrows: the launch and the cross-stream sync
    let Values::Str(cat) = column(&r, "critical_path_overlay_flows", "cat") else { panic!() };
    assert_eq!(cat.iter().collect::<Vec<_>>(), ["critical_path_kernel_launch_delay", "critical_path_sync_dependency"]);
}

/// HIP: stream 0, hipMemcpyWithStream (a synchronous copy) and hipDeviceSynchronize. HTA counts
/// both calls as CPU work (63 µs, 100% CPU); the default treats them as waits and infers the
/// copy's sync: 2 + 4 + 34 + 2 + 6 + 5 = 53 µs.
#[test]
fn amd() {
    let r = report("amd.json", false);
    assert_eq!(
        path(&r),
        s(&[
            "operator:A:2",
            "kernel_launch_delay::4",
            "operator:K1:34",
            "kernel_kernel_delay:K1:2",
            "operator:Memcpy HtoD (Host -> Device):6",
            "sync_dependency::0",
            "dependency::0",
            "operator:hipDeviceSynchronize:0",
            "dependency::0",
            "operator:B:5",
        ])
    );
    assert_eq!(
        summary(&r),
        pairs(&[("cpu_bound", 7.0), ("gpu_compute_bound", 40.0), ("gpu_kernel_kernel_overhead", 2.0), ("gpu_kernel_launch_overhead", 4.0)])
    );
    let h = report("amd.json", true);
    assert_eq!(info(&h, "critical_path_length"), "63");
    let Values::Str(bound) = column(&h, "critical_path_breakdown", "bound_by") else { panic!() };
    assert!(bound.iter().all(|b| b == "cpu_bound" || b.is_empty()));
}

/// cudaGraphLaunch enqueues Ka and Kb. HTA keeps only Kb (the launch's last kernel) and joins it
/// to K0 with a 17 µs "kernel-kernel gap"; the default: the graph's launch delay (5), Ka (10),
/// the 1 µs gap, Kb (9). Both 30 µs, told differently.
#[test]
fn cuda_graph() {
    let r = report("cuda_graph.json", false);
    assert_eq!(
        path(&r),
        s(&[
            "operator:A:1",
            "operator:cudaLaunchKernel:1",
            "operator:A:3",
            "kernel_launch_delay::5",
            "operator:Ka:10",
            "kernel_kernel_delay:Ka:1",
            "operator:Kb:9",
        ])
    );
    let h = report("cuda_graph.json", true);
    assert_eq!(info(&h, "critical_path_length"), "30");
    assert!(path(&h).contains(&"kernel_kernel_delay:K0:17".to_string()), "{:?}", path(&h));
    assert!(!path(&h).iter().any(|e| e.contains(":Ka:")), "HTA drops Ka");
}

/// The overlay: path events get `args.critical = 1`, each arrow a `s`/`f` pair; with
/// `only_critical` the events off the path (the off-path kernel K) are left out.
#[test]
fn overlay_marks_the_path() {
    let trace = read("cpu_bound.json");
    for (only, has_k) in [(true, false), (false, true)] {
        let r = run(&trace, false, &[("only_critical", if only { "true" } else { "false" })]).expect("runs");
        let json = kinetoscope::export::trace_json(&trace, &r.traces[0]).expect("writes");
        let v: serde_json::Value = serde_json::from_slice(&json).expect("valid JSON");
        let events = v["traceEvents"].as_array().expect("events");
        let critical: Vec<&str> = events.iter().filter(|e| e["args"]["critical"] == 1).map(|e| e["name"].as_str().unwrap_or("")).collect();
        assert_eq!(critical, ["A", "cudaLaunchKernel", "B"]);
        let flows: Vec<&str> = events.iter().filter_map(|e| e["ph"].as_str().filter(|p| *p == "s" || *p == "f")).collect();
        assert_eq!(flows, ["s", "f"], "one dependency arrow A → B");
        assert_eq!(events.iter().any(|e| e["name"] == "K"), has_k);
        assert!(events.iter().any(|e| e["name"] == "ProfilerStep#1"), "annotations stay");
    }
    assert_eq!(run(&trace, false, &[]).expect("runs").traces[0].name, "overlaid_critical_path_cpu_bound.json.gz");
}

#[test]
fn bad_input_is_explained() {
    let trace = read("cpu_bound.json");
    let e = run(&trace, false, &[("annotation", "forward")]).expect_err("unknown annotation");
    assert!(e.contains("annotation 'forward' is not in rank 0") && e.contains("'ProfilerStep' (1)"), "{e}");
    let e = run(&trace, false, &[("instance", "3")]).expect_err("no such instance");
    assert!(e.contains("rank 0 has 1 instance (0 to 0)"), "{e}");
    let e = run(&trace, false, &[("max_events", "3")]).expect_err("too large");
    assert!(e.contains("has 5 events") && e.contains("max_events"), "{e}");
    let e = run(&trace, false, &[("rank", "4")]).expect_err("no such rank");
    assert!(e.contains("rank 4 is not in the trace (ranks: 0)"), "{e}");
}

/// A rank without GPU work: HTA fails (its queue series is None); the default gives the CPU path.
#[test]
fn cpu_only_rank_gets_its_cpu_path() {
    let json = br#"{"traceEvents": [
        {"ph": "X", "cat": "cpu_op", "name": "A", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
        {"ph": "X", "cat": "cpu_op", "name": "B", "pid": 1, "tid": 1, "ts": 12, "dur": 5}]}"#;
    let trace = kinetoscope::read::read_all(&[("cpu.json", &json[..])]).expect("read");
    let r = run(&trace, false, &[]).expect("CPU path");
    assert_eq!(path(&r), s(&["operator:A:10", "dependency::0", "operator:B:5"]));
    let e = run(&trace, true, &[]).expect_err("HTA fails");
    assert!(e.contains("TypeError") && e.contains("run without --hta"), "{e}");
}
