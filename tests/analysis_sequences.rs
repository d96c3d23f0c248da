//! Frequent CUDA kernel sequences and the call graph under them, on the hand-made traces
//! `testdata/analysis/sequences.json` and `sequences-rounding.json`. The `--hta` numbers were
//! also checked by running HTA 0.5.0 itself on these files.
//!
//! `sequences.json` (`[i]` = position in the event array = HTA's `index`; µs):
//! * main thread (pid 1, tid 1): ProfilerStep#1 [0] [0, 1000); aten::linear L1 [1] [10, 50)
//!   launching (corr 1–3, runtime [2]–[4]) gemm_a/bias_add/relu of 20/5/5; `## forward ##` [5]
//!   [50, 150); zero-length aten::empty [6] at 50; L2 [7] [70, 120) launching ([8]–[10], corr 4–6)
//!   gemm_a/bias_add/relu 20/5/5; L3 [11] [200, 240) launching ([12]–[15], corr 7–10) gemm_a 20,
//!   a cudaStreamWaitEvent → `Stream Wait Event` (cuda_sync) 1, bias_add 5, relu 5; aten::mm M1
//!   [16] [600, 630) launching ([17]–[19], corr 11–13) gemm_b/gemm_b/add_c 10/10/2.
//! * backward thread (tid 2): aten::mm M2 [20] [505, 545) launching ([21]–[23], corr 14–16)
//!   gemm_b/gemm_b/add_c 12/12/3; `autograd::engine::evaluate_function: MmBackward0` [24].
//! * kernels [25]–[40] on pid 0, stream 7; a `PyTorch Profiler (0)` span [41] (cat Trace).
//!
//! Call graph: tid 2 is the "bwd" stack (an `autograd::` name, no step), tid 1 "main"; without
//! `## backward ##` rows, M2 and [24] move under ProfilerStep#1 (depth 1). Exact view: at 50 L1
//! closes, then `## forward ##` opens, then aten::empty (half-open intervals): L2 is under
//! `## forward ##` at depth 2 and L1 has 3 kernels, 30 µs. HTA: at 50 its comparator is cyclic
//! (close < open < zero-length < close) and Python's sort puts `## forward ##`'s open before L1's
//! close, so `## forward ##` nests in L1, L1's close pops it, and L2 opens under L1: L1 has 6
//! kernels, 60 µs.
//!
//! `aten::linear`, default: the outermost calls L1, L2, L3 all give
//! `aten::linear|gemm_a|bias_add|relu` (the sync event is no kernel): count 3, GPU 3 × 30 = 90,
//! CPU 40 + 50 + 40 = 130. `--hta`: minimum depth 1 → L1 and L3:
//! `…|gemm_a|Stream Wait Event|bias_add|relu` 1, 20 + 1 + 5 + 5 = 31, 40 and
//! `…|gemm_a|bias_add|relu|gemm_a|bias_add|relu` 1, 60, 40 (oracle order: count, then pattern).
//! `aten::mm`, both modes: M1 and M2 at depth 1 (without the bwd move M2 would be alone at depth
//! 0): `aten::mm|gemm_b|gemm_b|add_c` 2, 22 + 27 = 49, 30 + 40 = 70.
//!
//! `sequences-rounding.json`: aten::linear [0] at 0.5 for 30 launching k1–k3 (3 each);
//! aten::view [4] at 40.7 for 0.2; aten::detach [5] at 41 for 0.5. HTA rounds [4] to ts 41, end
//! ⌊40.9⌋ = 40, dur −1, and [5] to ts 41, dur 0: its comparator raises (SPEC §5.3). Exact:
//! `aten::linear|k1|k2|k3` 1, GPU 9, CPU 30.

use kinetoscope::analysis::api::{Context, Params};
use kinetoscope::analysis::call_graph::{CallGraph, CallGraphOptions};
use kinetoscope::analysis::registry::find;
use kinetoscope::table::Report;
use kinetoscope::Trace;

use crate::util;

fn trace(file: &str) -> Trace {
    let bytes = util::bytes(&util::testdata(&format!("analysis/{file}")));
    kinetoscope::read::read_all(&[(file, &bytes[..])]).expect("reads")
}

fn run(file: &str, hta: bool, opts: &[(&str, &str)]) -> Result<Report, String> {
    run_traces(file, hta, opts, true)
}

/// [`run`], with `traces` telling whether the caller writes produced traces.
fn run_traces(file: &str, hta: bool, opts: &[(&str, &str)], traces: bool) -> Result<Report, String> {
    let t = trace(file);
    let mut ctx = Context::new(&t, hta, None).expect("context");
    ctx.traces = traces;
    let a = find("sequences").expect("registered");
    let params = Params::new(a.options, opts.iter().copied()).map_err(|e| e.0)?;
    (a.run)(&ctx, &params).map_err(|e| e.0)
}

/// The only table, as CSV.
fn csv(r: &Report) -> String {
    assert_eq!(r.tables.len(), 1, "{:?}", r.tables.iter().map(|t| &t.name).collect::<Vec<_>>());
    r.tables[0].to_csv()
}

const HEADER: &str = "pattern,count,GPU kernel duration (us),CPU op duration (us)\n";

#[test]
fn linear_default() {
    // L1, L2 (inside "## forward ##") and L3 are the outermost aten::linear calls; L3's
    // "Stream Wait Event" is not a kernel (SPEC §5.4). GPU 3 × (20 + 5 + 5), CPU 40 + 50 + 40.
    let r = run("sequences.json", false, &[("operator_name", "aten::linear")]).unwrap();
    assert_eq!(r.tables[0].name, "frequent_cuda_kernel_sequences__aten_linear__rank0");
    crate::eqnice!(format!("{HEADER}aten::linear|gemm_a|bias_add|relu,3,90.0,130.0\n"), csv(&r));
    assert!(r.notes.is_empty(), "{:?}", r.notes);
}

#[test]
fn linear_hta() {
    // HTA: "## forward ##" opens at 50 where L1 closes and the zero-length aten::empty lies, so
    // it nests in L1 and takes L2 with it (L1: 6 kernels, 60 µs); L2 (depth 2) is not at the
    // minimum depth; L3 counts the Stream Wait Event (20 + 1 + 5 + 5). Oracle order: count, pattern.
    let r = run("sequences.json", true, &[("operator_name", "aten::linear")]).unwrap();
    crate::eqnice!(
        format!("{HEADER}aten::linear|gemm_a|Stream Wait Event|bias_add|relu,1,31.0,40.0\naten::linear|gemm_a|bias_add|relu|gemm_a|bias_add|relu,1,60.0,40.0\n"),
        csv(&r)
    );
}

#[test]
fn mm_backward_thread_joins_the_main_thread() {
    // M2 (tid 2) moves under ProfilerStep#1 and is at depth 1 like M1: both count in both modes.
    // GPU 10 + 10 + 2 + 12 + 12 + 3, CPU 30 + 40.
    for hta in [false, true] {
        let r = run("sequences.json", hta, &[("operator_name", "aten::mm")]).unwrap();
        crate::eqnice!(format!("{HEADER}aten::mm|gemm_b|gemm_b|add_c,2,49.0,70.0\n"), csv(&r));
    }
}

#[test]
fn min_pattern_len() {
    // default: every aten::linear root has 3 kernels
    let r = run("sequences.json", false, &[("operator_name", "aten::linear"), ("min_pattern_len", "4")]).unwrap();
    crate::eqnice!(HEADER.to_string(), csv(&r));
    assert_eq!(r.notes, ["rank 0: no operator named like 'aten::linear' launches 4 or more kernels"]);
    assert!(r.traces.is_empty() && r.charts.is_empty());
    // HTA: L1 has 6, L3 4
    let r = run("sequences.json", true, &[("operator_name", "aten::linear"), ("min_pattern_len", "4")]).unwrap();
    assert_eq!(r.tables[0].rows(), 2);
    // HTA's empty DataFrame has no columns
    let r = run("sequences.json", true, &[("operator_name", "aten::mm"), ("min_pattern_len", "4")]).unwrap();
    crate::eqnice!("\n".to_string(), csv(&r));
}

#[test]
fn negative_duration_after_rounding() {
    // HTA rounds aten::view (40.7, 0.2) to ts 41 dur -1 and aten::detach (41, 0.5) to ts 41
    // dur 0: its comparator raises. Exact times: linear [0.5, 30.5) with k1..k3 (3 µs each).
    let err = run("sequences-rounding.json", true, &[("operator_name", "aten::linear")]).unwrap_err();
    assert!(err.starts_with("ValueError: Unexpected case: events #4 and #5"), "{err}");
    let r = run("sequences-rounding.json", false, &[("operator_name", "aten::linear")]).unwrap();
    crate::eqnice!(format!("{HEADER}aten::linear|k1|k2|k3,1,9.0,30.0\n"), csv(&r));
}

#[test]
fn operator_name_is_required_and_ranks_are_checked() {
    let err = run("sequences.json", false, &[]).unwrap_err();
    assert!(err.starts_with("option 'operator_name' is required"), "{err}");
    let err = run("sequences.json", false, &[("operator_name", "aten::mm"), ("rank", "3")]).unwrap_err();
    assert_eq!(err, "rank 3 is not among the selected ranks");
}

#[test]
fn call_graph_structure() {
    let t = trace("sequences.json");
    // frame rows are in file order here (one step symbol: no §1.9 filtering)
    for hta in [false, true] {
        let ctx = Context::new(&t, hta, None).unwrap();
        let f = &ctx.frames().ranks[0];
        let g = CallGraph::build(f, &t.ranks[0], CallGraphOptions::new(hta)).unwrap();
        let r = &t.ranks[0];
        let indices: Vec<u32> = (0..f.len()).map(|i| f.index(r, i)).collect();
        let row = |index: u32| indices.iter().position(|&i| i == index).unwrap();
        let parent = |index: u32| g.parent(row(index)).map(|p| indices[p]);
        // ProfilerStep#1 on top; the bwd thread's top-level events under it
        assert_eq!((parent(0), g.depth[row(0)]), (None, 0));
        assert_eq!((parent(20), g.depth[row(20)]), (Some(0), 1), "hta {hta}");
        assert_eq!(parent(24), Some(0));
        // kernels under their launches
        assert_eq!((parent(25), g.depth[row(25)], g.num_kernels[row(25)]), (Some(2), 3, 1));
        assert_eq!(g.num_kernels[row(16)], 3);
        assert_eq!(g.kernel_dur_sum.get(row(16)), 22_000);
        // the PyTorch Profiler span (cat Trace) is not a frame row at all
        assert!(!indices.contains(&41));
        if hta {
            assert_eq!(parent(5), Some(1));
            assert_eq!(parent(7), Some(1));
            assert_eq!((g.num_kernels[row(1)], g.kernel_dur_sum.get(row(1))), (6, 60_000));
            assert_eq!(parent(32), Some(13));
            assert_eq!(g.num_kernels[row(0)], 16);
        } else {
            assert_eq!(parent(5), Some(0));
            assert_eq!((parent(7), g.depth[row(7)]), (Some(5), 2));
            assert_eq!((g.num_kernels[row(1)], g.kernel_dur_sum.get(row(1))), (3, 30_000));
            assert!(!g.contains(row(32)), "Stream Wait Event is not a kernel");
            assert_eq!(g.num_kernels[row(0)], 15);
        }
        assert_eq!(g.stacks.len(), 2);
        let mut d = g.descendants(row(11));
        d.sort_unstable();
        let want: Vec<u32> = if hta { vec![11, 12, 13, 14, 15, 31, 32, 33, 34] } else { vec![11, 12, 13, 14, 15, 31, 33, 34] };
        assert_eq!(d.iter().map(|&i| indices[i]).collect::<Vec<_>>(), want);
    }
}

/// The exact view's stack walk (opens sorted alone, closes played from a heap) gives every CPU
/// event the parent the plain walk over all endpoints in `exact_order` gives: random threads on
/// a coarse grid (ties, zero and overlapping durations, events that close inside another).
#[test]
fn exact_call_graph_matches_the_endpoint_walk() {
    use kinetoscope::analysis::endpoints::{exact_order, Endpoint};
    let mut next = util::xorshift(0x9e37_79b9_7f4a_7c15u64);
    for round in 0..300 {
        let n = 1 + next(12);
        let events: Vec<String> = (0..n)
            .map(|i| {
                let (ts, dur) = (next(6), if next(4) == 0 { 0 } else { next(5) });
                format!(r#"{{"ph":"X","cat":"cpu_op","name":"op{i}","pid":1,"tid":1,"ts":{ts},"dur":{dur}}}"#)
            })
            .collect();
        let json = format!(r#"{{"traceEvents":[{}]}}"#, events.join(","));
        let t = kinetoscope::read::read_all(&[("random.json", json.as_bytes())]).expect("reads");
        let ctx = Context::new(&t, false, None).unwrap();
        let (f, r) = (&ctx.frames().ranks[0], &t.ranks[0]);
        let g = CallGraph::build(f, r, CallGraphOptions::new(false)).unwrap();
        // the walk over both ends of every event
        let mut ends: Vec<Endpoint> =
            (0..f.len()).flat_map(|i| Endpoint::pair(i64::from(f.index(r, i)), f.ts_ns(r, i), f.dur_ns(r, i))).collect();
        exact_order(&mut ends);
        let row = |index: i64| (0..f.len()).find(|&i| i64::from(f.index(r, i)) == index).unwrap();
        let (mut want, mut stack): (Vec<Option<usize>>, Vec<usize>) = (vec![None; f.len()], Vec::new());
        for e in ends {
            let i = row(e.index);
            if e.open {
                want[i] = stack.last().copied();
                stack.push(i);
            } else if let Some(at) = stack.iter().position(|&s| s == i) {
                stack.truncate(at);
            }
        }
        let got: Vec<Option<usize>> = (0..f.len()).map(|i| g.parent(i)).collect();
        assert_eq!(got, want, "round {round}: {json}");
    }
}

/// `traceEvents` of a produced gzip trace, via our gunzip.
fn events(bytes: &[u8]) -> Vec<serde_json::Value> {
    let json: serde_json::Value = serde_json::from_slice(&util::gunzip_if_needed(bytes.to_vec())).expect("JSON");
    json["traceEvents"].as_array().expect("traceEvents").clone()
}

#[test]
fn without_traces_no_marks_and_the_same_table() {
    let opts = [("operator_name", "aten::linear"), ("top_k", "1")];
    let (with, without) = (run("sequences.json", false, &opts).unwrap(), run_traces("sequences.json", false, &opts, false).unwrap());
    assert_eq!(without.tables, with.tables);
    assert_eq!(without.notes, with.notes);
    assert!(!with.traces[0].marks.is_empty() && with.traces[0].compact.is_some());
    assert!(without.traces[0].marks.is_empty() && without.traces[0].compact.is_none());
}

#[test]
fn overlaid_trace_marks_the_top_patterns() {
    let r = run("sequences.json", false, &[("operator_name", "aten::linear"), ("top_k", "1")]).unwrap();
    let original = trace("sequences.json");
    let files = kinetoscope::export::trace_files(&original, &r).expect("writes");
    assert_eq!(files.len(), 1);
    assert_eq!(files[0].name, "overlaid_sequences.json.gz");
    // our reader takes it back: same events, and the marked events keep their names
    let back = kinetoscope::read::read_bytes("overlaid_sequences.json.gz", &files[0].bytes, 4096).expect("re-reads");
    assert_eq!(back.events.len(), original.ranks[0].events.len());
    let ev = events(&files[0].bytes);
    assert_eq!(ev.len(), 42);
    // marked: the three aten::linear calls, their 10 runtime calls (incl. cudaStreamWaitEvent)
    // and their 9 kernels (not the Stream Wait Event)
    let marked: Vec<usize> = (0..ev.len()).filter(|&i| ev[i]["args"]["Patterns"].is_object()).collect();
    let want: Vec<usize> = [1, 2, 3, 4, 7, 8, 9, 10, 11, 12, 13, 14, 15, 25, 26, 27, 28, 29, 30, 31, 33, 34].into();
    assert_eq!(marked, want);
    assert_eq!(ev[1]["args"]["Patterns"], serde_json::json!({"aten::linear|gemm_a|bias_add|relu": 3}));
    assert_eq!(ev[25]["name"], "gemm_a");
    assert_eq!(ev[25]["args"]["stream"], 7);
    // others: args dropped, names replaced by ids the span's args resolve
    let table = &ev[41]["args"];
    assert_eq!(ev[41]["name"], "PyTorch Profiler (0)");
    for (i, name) in [(5, "## forward ##"), (32, "Stream Wait Event"), (16, "aten::mm")] {
        let id = ev[i]["name"].as_str().unwrap();
        assert_eq!(table[id], name, "event {i}");
        assert!(ev[i].get("args").is_none(), "event {i}: {}", ev[i]);
    }
    // without compression the other events are untouched
    let r = run("sequences.json", false, &[("operator_name", "aten::linear"), ("compress_other_kernels", "false")]).unwrap();
    let ev = events(&kinetoscope::export::trace_files(&original, &r).expect("writes")[0].bytes);
    assert_eq!(ev[32]["name"], "Stream Wait Event");
    assert_eq!(ev[32]["args"], serde_json::json!({"stream": 7, "correlation": 8}));
    assert!(ev[41].get("args").is_none());
}

#[test]
fn chart_counts_the_top_patterns() {
    let r = run("sequences.json", true, &[("operator_name", "aten::linear"), ("top_k", "1")]).unwrap();
    let kinetoscope::table::Chart::Bars { title, categories, values, .. } = &r.charts[0] else { panic!("{:?}", r.charts) };
    assert_eq!(title, "Top 1 frequent patterns for rank 0");
    // HTA's order (count desc, pattern asc): the Stream Wait Event pattern first
    assert_eq!(categories, &["0: aten::linear → gemm_a → Stream Wait Event → bias_add → relu"]);
    assert_eq!(values, &[1.0]);
}
