//! `patterns` on the hand-made traces of testdata/patterns/ (one per pattern, each built so that
//! exactly its pattern fires; the numbers are worked out in testdata/README.md), on a rocprofv3
//! CSV set, and on every Kineto and rocprof trace of the corpus.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::Report;
use kinetoscope::Trace;

use crate::{eqnice, util};

/// Reads `testdata/patterns/<file>` for each of `files` (one trace).
fn load(files: &[&str]) -> Trace {
    util::read_testdata("patterns", files)
}

/// `patterns` on `t` with options `opts`.
fn run(t: &Trace, opts: &[(&str, &str)]) -> Result<Report, String> {
    let a = find("patterns").expect("registered");
    let ctx = Context::new(t, false, None).map_err(|e| e.0)?;
    let params = Params::new(a.options, opts.iter().copied()).map_err(|e| e.0)?;
    (a.run)(&ctx, &params).map_err(|e| e.0)
}

fn csv(r: &Report, name: &str) -> String {
    r.tables.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no table {name}")).to_csv()
}

const THRESHOLDS: &str = "thresholds: serialized_pct=5, short_kernel_us=10, launch_bound_pct=50, min_kernels=20, phase_merge_us=100, copy_busy_pct=80, min_phase_us=1000, long_gap_us=1000, max_evidence=1000";

const HEAD: &str = "pattern,rank,device,fired,measure,threshold,measure_unit,evidence_rows,summary\n";
const EVIDENCE_HEAD: &str = "pattern,rank,device,start_ns,end_ns,dur_ns,detail,value_ns\n";

/// Rows of the three patterns that do not fire on a one-device trace whose kernels are all at
/// least 10 µs long and whose copies never form a phase.
const NO_PHASE: &str =
    "memory_bound,0,0,no,0.0,1.0,phases,0,no phase of at least 1 ms where copies keep the device at least 80% busy and kernels less\n";
const NO_GAP: &str = "long_gaps,0,0,no,0.0,1.0,gaps,0,no gap of at least 1 ms without GPU work\n";

/// `launch_overhead` row without launch-bound kernels among `n`.
fn no_launch(device: i64, n: usize) -> String {
    format!("launch_overhead,0,{device},no,0.0,50.0,% of kernels,0,0 of {n} kernels (0%) are shorter than 10 µs and followed by a longer gap; 0 ns of gaps\n")
}

/// `serialized_execution` row without blocking calls on a device active for `span`.
fn no_blocking(span: &str) -> String {
    format!("serialized_execution,0,0,no,0.0,5.0,% of GPU span,0,\"the GPUs run no kernel for 0 ns during 0 blocking host calls (copies, memsets, synchronizations): 0.0% of the device's {span} active span\"\n")
}

#[test]
fn serialized_execution_alone() {
    let r = run(&load(&["serialized.json"]), &[]).unwrap();
    // span 10..800 µs; kernels 10..110, 240..540, 700..800. cudaMemcpy [20, 220): no kernel
    // after 110 → 110 µs; cudaDeviceSynchronize [235, 555.5): 5 + 15.5 µs. 130.5 / 790 = 16.5%.
    // cudaMemcpyAsync does not block.
    eqnice!(
        format!(
            "{HEAD}serialized_execution,0,0,yes,16.52,5.0,% of GPU span,2,\"the GPUs run no kernel for 130.5 µs during 2 blocking host calls (copies, memsets, synchronizations): 16.5% of the device's 790 µs active span\"\n{}{NO_PHASE}{NO_GAP}",
            no_launch(0, 3)
        ),
        csv(&r, "patterns")
    );
    eqnice!(
        format!(
            "{EVIDENCE_HEAD}serialized_execution,0,0,20000,220000,200000,cudaMemcpy,110000\n\
             serialized_execution,0,0,235000,555500,320500,cudaDeviceSynchronize,20500\n"
        ),
        csv(&r, "evidence")
    );
    assert_eq!(r.notes, [THRESHOLDS]);
}

#[test]
fn launch_overhead_alone() {
    let r = run(&load(&["launch_overhead.json"]), &[]).unwrap();
    // 25 kernels: 12 of 4 µs every 20 µs from 100, gemm 340..400, 12 of 4 µs every 20 µs from
    // 410 (the last ends at 634). Every short kernel but the last has a 16 µs gap after it: 23.
    // cudaStreamSynchronize [625, 640) clipped to the span's end 634, the last kernel from 630: 5 µs.
    eqnice!(
        format!(
            "{HEAD}serialized_execution,0,0,no,0.94,5.0,% of GPU span,1,\"the GPUs run no kernel for 5 µs during 1 blocking host call (copies, memsets, synchronizations): 0.9% of the device's 534 µs active span\"\n\
             launch_overhead,0,0,yes,92.0,50.0,% of kernels,2,23 of 25 kernels (92%) are shorter than 10 µs and followed by a longer gap; 368 µs of gaps\n\
             {NO_PHASE}{NO_GAP}"
        ),
        csv(&r, "patterns")
    );
    eqnice!(
        format!(
            "{EVIDENCE_HEAD}serialized_execution,0,0,625000,640000,15000,cudaStreamSynchronize,5000\n\
             launch_overhead,0,0,100000,324000,224000,\"12 kernels, 48 µs in kernels, 192 µs of gaps\",192000\n\
             launch_overhead,0,0,410000,614000,204000,\"11 kernels, 44 µs in kernels, 176 µs of gaps\",176000\n"
        ),
        csv(&r, "evidence")
    );
    // 23 launch-bound kernels: not enough when 24 are required
    let r = run(&load(&["launch_overhead.json"]), &[("min_kernels", "24")]).unwrap();
    assert!(csv(&r, "patterns").contains("\nlaunch_overhead,0,0,no,92.0,50.0,"), "{}", csv(&r, "patterns"));
}

#[test]
fn memory_bound_alone() {
    let r = run(&load(&["memory_bound.json"]), &[]).unwrap();
    // copies 1000..1400, 1450..1850, 1900..2300 (50 µs apart) form one 1.3 ms phase, 1.2 ms busy
    // (92%); relu 1500..1600 is its only kernel (7.7%); 120 MB in 1.2 ms = 100 GB/s. The copy at
    // 3000..3200 (700 µs later) is a phase of 200 µs: too short.
    eqnice!(
        format!(
            "{HEAD}{}{}memory_bound,0,0,yes,1.0,1.0,phases,1,1 phase of at least 1 ms where copies keep the device at least 80% busy and kernels less (1.3 ms in all)\n{NO_GAP}",
            no_blocking("3.1 ms"),
            no_launch(0, 3)
        ),
        csv(&r, "patterns")
    );
    eqnice!(
        format!("{EVIDENCE_HEAD}memory_bound,0,0,1000000,2300000,1300000,\"3 copies, 120000000 bytes at 100.0 GB/s; kernels busy 7.7%\",1200000\n"),
        csv(&r, "evidence")
    );
    // the phase is 92.3% busy: not at 95%
    let r = run(&load(&["memory_bound.json"]), &[("copy_busy_pct", "95")]).unwrap();
    assert!(csv(&r, "patterns").contains("\nmemory_bound,0,0,no,0.0,1.0,"), "{}", csv(&r, "patterns"));
}

#[test]
fn long_gaps_alone() {
    let r = run(&load(&["long_gaps.json"]), &[]).unwrap();
    // bn ends at 1200, fc starts at 3700: 2.5 ms, cudaMalloc [1300, 2800) the longest host call
    // in it; softmax ends at 4800, loss starts at 5800: exactly 1 ms, the launch at 5790 in it;
    // fc → softmax is 999 µs: not a long gap (it is at long_gap_us=999, with softmax's launch at 4790).
    eqnice!(
        format!(
            "{HEAD}{}{}{NO_PHASE}long_gaps,0,0,yes,2.0,1.0,gaps,2,\"2 gaps of at least 1 ms without GPU work: 3.5 ms in all, the longest 2.5 ms\"\n",
            no_blocking("4.8 ms"),
            no_launch(0, 5)
        ),
        csv(&r, "patterns")
    );
    eqnice!(
        format!(
            "{EVIDENCE_HEAD}long_gaps,0,0,1200000,3700000,2500000,bn → fc; host: cudaMalloc,2500000\n\
             long_gaps,0,0,4800000,5800000,1000000,softmax → loss; host: cudaLaunchKernel,1000000\n"
        ),
        csv(&r, "evidence")
    );
    let r = run(&load(&["long_gaps.json"]), &[("long_gap_us", "999")]).unwrap();
    assert!(
        csv(&r, "evidence").contains("\nlong_gaps,0,0,3800000,4799000,999000,fc → softmax; host: cudaLaunchKernel,999000\n"),
        "{}",
        csv(&r, "evidence")
    );
}

/// `max_evidence` keeps the largest rows, still in time order, and says how many it left out;
/// `evidence_rows` counts them all.
#[test]
fn evidence_is_capped_per_pattern_and_rank() {
    let r = run(&load(&["long_gaps.json"]), &[("max_evidence", "1")]).unwrap();
    eqnice!(format!("{EVIDENCE_HEAD}long_gaps,0,0,1200000,3700000,2500000,bn → fc; host: cudaMalloc,2500000\n"), csv(&r, "evidence"));
    assert!(csv(&r, "patterns").contains("\nlong_gaps,0,0,yes,2.0,1.0,gaps,2,"));
    assert_eq!(r.notes[0], "long_gaps on rank 0: 1 of 2 evidence rows left out (the 1 with the largest value_ns are listed)");
    assert_eq!(
        run(&load(&["long_gaps.json"]), &[("long_gap_us", "-5")]).unwrap_err(),
        "option 'long_gap_us': expected a number of at least 0, found -5"
    );
}

/// The memory-bound trace as rocprofv3 CSV (device "Agent 2", ns, no copy sizes): the same phase,
/// bytes unknown; hipStreamSynchronize [2850, 2905) µs waits 5 µs after softmax ends at 2900.
/// Without the HIP API table, serialized_execution is n/a and a note says which option records it.
#[test]
fn rocprof_v3_csv_memory_bound() {
    let files = ["rocprof/77_kernel_trace.csv", "rocprof/77_memory_copy_trace.csv", "rocprof/77_hip_api_trace.csv"];
    let r = run(&load(&files), &[]).unwrap();
    eqnice!(
        format!(
            "{HEAD}serialized_execution,0,2,no,0.16,5.0,% of GPU span,1,\"the GPUs run no kernel for 5 µs during 1 blocking host call (copies, memsets, synchronizations): 0.2% of the device's 3.1 ms active span\"\n\
             {}memory_bound,0,2,yes,1.0,1.0,phases,1,1 phase of at least 1 ms where copies keep the device at least 80% busy and kernels less (1.3 ms in all)\n\
             long_gaps,0,2,no,0.0,1.0,gaps,0,no gap of at least 1 ms without GPU work\n",
            no_launch(2, 3)
        ),
        csv(&r, "patterns")
    );
    eqnice!(
        format!(
            "{EVIDENCE_HEAD}serialized_execution,0,2,2850000,2905000,55000,hipStreamSynchronize,5000\n\
             memory_bound,0,2,1000000,2300000,1300000,\"3 copies, bytes unknown; kernels busy 7.7%\",1200000\n"
        ),
        csv(&r, "evidence")
    );

    let r = run(&load(&files[..2]), &[]).unwrap();
    assert!(
        csv(&r, "patterns").starts_with(&format!("{HEAD}serialized_execution,0,2,n/a,,5.0,% of GPU span,0,")),
        "{}",
        csv(&r, "patterns")
    );
    assert_eq!(
        r.notes,
        [
            "serialized_execution is n/a on rank 0 device 2: no host API calls in the trace (rocprof: --hip-trace / --sys-trace; Kineto: the CUDA runtime activities, cuda_runtime events)",
            THRESHOLDS
        ]
    );
}

/// Every Kineto and rocprof trace of the corpus: `patterns` runs, and its tables agree with
/// themselves (four rows per device in pattern order, the verdict is the measure against the
/// threshold, the evidence rows are counted right and lie within their intervals).
#[test]
fn patterns_on_every_corpus_trace() {
    if util::skip_without_corpus() {
        return;
    }
    let mut checked = 0;
    for dir in ["traces/hta", "traces/kineto", "traces/param", "traces/tracelens", "traces/rocprof"] {
        for path in util::files_under(&util::shared(dir)) {
            let n = path.to_string_lossy().to_string();
            let rocprof_table = n.ends_with("results.csv") || n.ends_with("_trace.csv");
            if !(n.ends_with(".json") || n.ends_with(".json.gz") || rocprof_table) {
                continue;
            }
            let bytes = util::bytes(&path);
            let Ok(t) = kinetoscope::read::read_all(&[(n.as_str(), bytes.as_slice())]) else { continue };
            let r = run(&t, &[]).unwrap_or_else(|e| panic!("{n}: {e}"));
            check_consistent(&n, &r);
            checked += 1;
        }
    }
    assert!(checked >= 40, "only {checked} corpus traces read: the Kineto JSON and rocprof CSV tables of the corpus should");
}

/// The rows of table `name` as CSV records.
fn records(r: &Report, name: &str) -> Vec<csv::StringRecord> {
    csv::Reader::from_reader(csv(r, name).as_bytes()).records().map(|x| x.expect("csv")).collect()
}

fn check_consistent(n: &str, r: &Report) {
    let patterns = records(r, "patterns");
    let evidence = records(r, "evidence");
    let order = ["serialized_execution", "launch_overhead", "memory_bound", "long_gaps"];
    assert_eq!(patterns.len() % 4, 0, "{n}");
    for (i, p) in patterns.iter().enumerate() {
        assert_eq!(&p[0], order[i % 4], "{n}: row {i}");
        let rows = evidence.iter().filter(|e| (&e[0], &e[1], &e[2]) == (&p[0], &p[1], &p[2])).count();
        let capped = r.notes.iter().any(|x| x.starts_with(&format!("{} on rank {}:", &p[0], &p[1])));
        assert!(rows == p[7].parse::<usize>().unwrap() || capped, "{n}: {p:?} has {rows} evidence rows");
        if &p[3] == "n/a" {
            continue;
        }
        let (measure, threshold): (f64, f64) = (p[4].parse().unwrap(), p[5].parse().unwrap());
        let reached = measure >= threshold;
        match &p[0] {
            "launch_overhead" => assert!(reached || &p[3] == "no", "{n}: {p:?}"),
            _ => assert_eq!(&p[3], if reached { "yes" } else { "no" }, "{n}: {p:?}"),
        }
        if &p[0] == "serialized_execution" {
            assert!((0.0..=100.0).contains(&measure), "{n}: {p:?}");
        }
    }
    for e in &evidence {
        let (start, end, dur, value): (i64, i64, i64, i64) =
            (e[3].parse().unwrap(), e[4].parse().unwrap(), e[5].parse().unwrap(), e[7].parse().unwrap());
        assert_eq!(end - start, dur, "{n}: {e:?}");
        assert!(value > 0, "{n}: {e:?}");
        match &e[0] {
            "long_gaps" => assert_eq!(value, dur, "{n}: {e:?}"),
            "launch_overhead" => {}
            _ => assert!(value <= dur, "{n}: {e:?}"),
        }
    }
}
