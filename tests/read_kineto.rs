//! Every Chrome-trace JSON file of the shared corpus (`../shared/traces`, see its MANIFEST.md),
//! read with `kinetoscope::read` and checked against an independent count made here with
//! `serde_json` (test-only; each event becomes one `serde_json::Value`, counted, compared with
//! the row the reader made of it, and dropped, so the 87 MB MTIA trace stays small in memory).
//!
//! Per file:
//! * `counts.events`, `counts.categories`, `counts.phases`, `counts.empty_placeholders` equal the
//!   serde count; `sum(counts.kinds) == counts.events`, and `counts.kinds` equals the kinds
//!   derived here from the categories with an explicit table ([`kind_of_cat`]);
//! * rows kept = events − metadata (`M`) − `E` events (no corpus event lacks `ts`), and equals the
//!   number hard-coded in [`corpus!`];
//! * every row matches its event: array index, phase, name, cat, pid/tid text, `ts`/`dur`
//!   (integers exactly ×1000, decimals within f64 precision), stream, correlation, External id,
//!   flow id, bytes, device; process/thread names from the `M` events;
//! * the first and last row `ts` are exact ns, hard-coded from the JSON text (the raw numbers are
//!   quoted in the comments; `x.yyy` µs = `xyyy` ns);
//! * no warnings; format and bare-array shape as the file is;
//! * re-read with the chunk sizes of [`util::chunks_for`]: identical counts and columns.
//!
//! Then the multi-rank folders (rank from `distributedInfo`, from the name, or the lowest free
//! one; SPEC §1.1) and the two JSON files under `hta/` that are not Chrome traces.

use std::collections::BTreeMap;
use std::path::PathBuf;

use kinetoscope::model::events::flags;
use kinetoscope::model::{Format, IntArg, Phase};
use kinetoscope::read::read_all;
use kinetoscope::{RankTrace, WarningKind};
use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::util;

/// `name: "path under ../shared/traces", rows, first row ts (ns), last row ts (ns);` → one test
/// per file, plus [`CORPUS`], the list of paths.
macro_rules! corpus {
    ($($name:ident: $path:literal, $rows:literal, $first:literal, $last:literal;)*) => {
        /// Paths (under `../shared/traces`) of every Chrome-trace file checked here.
        const CORPUS: &[&str] = &[$($path),*];
        $(
            #[test]
            fn $name() {
                if util::skip_without_corpus() {
                    return;
                }
                check_file($path, $rows, $first, $last);
            }
        )*
    };
}

corpus! {
    // ts 4203669604595.407 (first, "autograd::engine::evaluate_function: MseLossBackward0"), 4203669613175.703 ("Record Window End")
    hta_amd_trace_mi250: "hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", 160, 4203669604595407, 4203669613175703;
    // 1666149715033200 ("ProfilerStep#552"), 1666149715364374 ("cudaLaunchKernel")
    hta_call_stack_backward_thread: "hta/call_stack/backward_thread.json", 7, 1666149715033200000, 1666149715364374000;
    // 1212075548353.304 ("gloo:all_reduce"), 1212076832503.044 ("Record Window End")
    hta_cpu_only_rank34: "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 18, 1212075548353304, 1212076832503044;
    // 1695835542514261 ("[param|cuda]"), 1695835585940062 ("Record Window End")
    hta_critical_path_alexnet: "hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz", 1370, 1695835542514261000, 1695835585940062000;
    // 1707417525509335 ("ProfilerStep#100"), 1707417525512622 ("Record Window End")
    hta_critical_path_event_sync: "hta/critical_path/cuda_event_sync/event_sync_trace.json.gz", 56, 1707417525509335000, 1707417525512622000;
    // 1712867402348256 ("aten::matmul"), 1712867402368330 ("Record Window End")
    hta_critical_path_event_sync_multi_stream: "hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz", 109, 1712867402348256000, 1712867402368330000;
    // 1694039968955744 ("[param|cuda]"), 1694040010536061 ("Record Window End")
    hta_critical_path_e2e_input: "hta/critical_path/end_to_end/simple_add/input/trace.json.gz", 1310, 1694039968955744000, 1694040010536061000;
    // 1694039968955744 ("[param|cuda]"), 1694040009779192 ("critical_path")
    hta_critical_path_e2e_output: "hta/critical_path/end_to_end/simple_add/output/overlaid_critical_path_trace.json.gz", 1694, 1694039968955744000, 1694040009779192000;
    // same bytes as the end_to_end input
    hta_critical_path_simple_add: "hta/critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz", 1310, 1694039968955744000, 1694040010536061000;
    // 1679055451546825 ("[param|cuda]"), 1679055463390908 ("Record Window End")
    hta_cupti_profiler: "hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz", 4189, 1679055451546825000, 1679055463390908000;
    // 1669783687464181 ("autograd::engine::evaluate_function: SumBackward0"), 1669783689181563 ("Record Window End")
    hta_df_index_resolver: "hta/df_index_resolver/df_index_resolver.json.gz", 216054, 1669783687464181000, 1669783689181563000;
    // 1661203462598738 ("aten::zeros"), 1661203462674279 ("aten::zero_")
    hta_distributed_info_not_found: "hta/distributed_info_unavailable/distributed_info_not_found.json.gz", 2467, 1661203462598738000, 1661203462674279000;
    // 1689360788493697 ("[param|cuda]"), 1689360808308238 ("Record Window End")
    hta_execution_trace_kineto_side: "hta/execution_trace/benchmark_simple_add_trace.json.gz", 77, 1689360788493697000, 1689360808308238000;
    hta_mixed_files_rank_non_gpu: "hta/mixed_files/rank_non_gpu.json.gz", 2467, 1661203462598738000, 1661203462674279000;
    // 3605057436108.407 ("autograd::engine::evaluate_function: SumBackward1"), 3605068349532.979 ("Record Window End")
    hta_mtia_rank0: "hta/mtia_trace_single_rank/mtia_rank_0.json.gz", 145693, 3605057436108407, 3605068349532979;
    // 4458676522690.655 ("autograd::engine::evaluate_function: DivBackward1"), 4458677117099.727 ("Record Window End")
    hta_nccl_parser_config: "hta/nccl_parser_config/nccl_data.json.gz", 40535, 4458676522690655, 4458677117099727;
    hta_rank_non_gpu: "hta/rank_non_gpu/rank_non_gpu.json.gz", 2467, 1661203462598738000, 1661203462674279000;
    hta_rank_unavailable: "hta/rank_unavailable/rank_not_found.json.gz", 2467, 1661203462598738000, 1661203462674279000;
    // 1682725898236567 ("autograd::engine::evaluate_function: MeanBackward0"), 1682725897226747 ("PyTorch Profiler (0)")
    hta_timeline_analysis_rank0: "hta/timeline_analysis/sampled_rank-0.json.gz", 4811, 1682725898236567000, 1682725897226747000;
    // 1661203462598738 ("aten::zeros"), 1661203463125562 ("Record Window End")
    hta_trace_diff_control: "hta/trace_diff/control/control.json.gz", 109081, 1661203462598738000, 1661203463125562000;
    // 1661938466265032 ("aten::zeros"), 1661938467056851 ("Record Window End")
    hta_trace_diff_test: "hta/trace_diff/test/test.json.gz", 105125, 1661938466265032000, 1661938467056851000;
    // 1665536373729077 (an elementwise_kernel), 1665536375821491 ("Record Window End")
    hta_trace_file_list_rank1: "hta/trace_file_list/inference_rank_1.json.gz", 22, 1665536373729077000, 1665536375821491000;
    hta_trace_filter_rank0: "hta/trace_filter/sampled_rank-0.json.gz", 4811, 1682725898236567000, 1682725897226747000;
    // 1682725898079484 ("ProfilerStep#551"), 1682725897227300 ("PyTorch Profiler (0)")
    hta_trace_filter_rank1: "hta/trace_filter/sampled_rank-1.json.gz", 4676, 1682725898079484000, 1682725897227300000;
    // 2413669096090.100 ("ProfilerStep#1"), 2413669097927.433 ("Record Window End")
    hta_triton_example: "hta/triton_example/triton_example.json.gz", 13, 2413669096090100, 2413669097927433;
    // 88511388202.765 ("op1"), 88511388203.055 ("Record Window End")
    kineto_docs_after_fix: "kineto/docs_traces/after_fix_trace.json", 15, 88511388202765, 88511388203055;
    // 88437691101.729 ("op1"), 88437691102.019 ("Record Window End")
    kineto_docs_before_fix: "kineto/docs_traces/before_fix_trace.json", 15, 88437691101729, 88437691102019;
    // bare array; 1606910596297023 ("aten::empty"), 1606910596288053 ("Iteration Start: PyTorch Profiler")
    kineto_tb_plugin_2020_12: "kineto/tb_plugin_2020-12_resnet50_num_workers_0/worker0.pt.trace.json.gz", 82256, 1606910596297023000, 1606910596288053000;
    // 1610366387140599 ("aten::empty"), 1610366392473637 ("Record Window End")
    kineto_tb_plugin_2021_01: "kineto/tb_plugin_2021-01_resnet50_autograd_api_num_workers_0/worker0.pt.trace.json.gz", 79691, 1610366387140599000, 1610366392473637000;
    // 1623212388426902 ("aten::empty"), 1623212389365930 ("Record Window End")
    kineto_tb_plugin_2021_06: "kineto/tb_plugin_2021-06_resnet50_num_workers_4/worker0.1623212756351.pt.trace.json.gz", 71404, 1623212388426902000, 1623212389365930000;
    // 1621401187223197 ("aten::empty"), 1621401187237108 ("Record Window End")
    kineto_tb_plugin_gpu_metrics: "kineto/tb_plugin_test/gpu_metrics_input.json", 320, 1621401187223197000, 1621401187237108000;
    // 1694128201435418 ("autograd::engine::evaluate_function: SumBackward1"), 1694128201442995 ("Record Window End")
    param_dlrm_worker0: "param/dlrm_8rank/worker0_step_12.1694128201545.pt.trace.json", 3248, 1694128201435418000, 1694128201442995000;
    param_dlrm_worker1: "param/dlrm_8rank/worker1_step_12.1694128201556.pt.trace.json", 3382, 1694128201435377000, 1694128201443445000;
    param_dlrm_worker2: "param/dlrm_8rank/worker2_step_12.1694128201554.pt.trace.json", 3226, 1694128201435447000, 1694128201442998000;
    param_dlrm_worker3: "param/dlrm_8rank/worker3_step_12.1694128201557.pt.trace.json", 3432, 1694128201435377000, 1694128201443587000;
    param_dlrm_worker4: "param/dlrm_8rank/worker4_step_12.1694128201547.pt.trace.json", 3268, 1694128201435423000, 1694128201444219000;
    param_dlrm_worker5: "param/dlrm_8rank/worker5_step_12.1694128201549.pt.trace.json", 3208, 1694128201435404000, 1694128201443809000;
    param_dlrm_worker6: "param/dlrm_8rank/worker6_step_12.1694128201553.pt.trace.json", 3230, 1694128201435447000, 1694128201443531000;
    param_dlrm_worker7: "param/dlrm_8rank/worker7_step_12.1694128201553.pt.trace.json", 3208, 1694128201435604000, 1694128201443499000;
    // 1689180448563241 ("autograd::engine::evaluate_function: NllLossBackward0"), 1689180449618265 ("Record Window End")
    param_linear_kineto: "param/linear_kineto.json.gz", 86823, 1689180448563241000, 1689180449618265000;
    // 1795388036039728 ("ProfileStep#2[9.197 ms]"), 1795388036067704 ("[memory]")
    paddle_mlp_adam: "paddle/paddle3.3.1_cpu_mlp_adam.paddle_trace.json", 848, 1795388036039728000, 1795388036067704000;
    // 1419247332972.313 ("ProfilerStep#6"), 1419247340892.366 ("Record Window End")
    tracelens_h100_bert: "tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz", 2491, 1419247332972313, 1419247340892366;
    // 6869181218001.421 ("hipGetDevicePropertiesR0600"), 6869181224115.277 ("Record Window End")
    tracelens_mi210_gpu_only: "tracelens/mi210/gpu_only_trace/gpu_only_trace.json.gz", 2389, 6869181218001421, 6869181224115277;
    // 2204338329788.649 ("ProfilerStep#6"), 2204338336389.168 ("Record Window End")
    tracelens_mi300_bert: "tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz", 2593, 2204338329788649, 2204338336389168;
    // 3545057397403.013 ("autograd::engine::evaluate_function: MseLossBackward0"), 3545057594437.838 ("Record Window End")
    tracelens_normalization: "tracelens/perf_model/normalization/normalization_layer_test.json.gz", 8440, 3545057397403013, 3545057594437838;
    // 3603029046213.755 ("TorchDynamo Cache Lookup"), 3603029059322.061 ("Record Window End")
    tracelens_torch_compile_triton: "tracelens/torch_compile_triton/trace.json.gz", 188, 3603029046213755, 3603029059322061;
    // 1435.900 ("open"), 27052.800 ("close")
    recorder_gotcha_chrome: "recorder/io_posix_mpiio_hdf5_4ranks.gotcha-a62d702/_chrome/timeline_0.json", 581, 1435900, 27052800;
    // 862.100 ("MPI_Comm_rank"), 24234.600 ("close")
    recorder_pilgrim_interprocess_chrome: "recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb.interprocess_tid/_chrome/timeline_0.json", 619, 862100, 24234600;
    // 556.900 ("MPI_Comm_rank"), 18522.800 ("close")
    recorder_pilgrim_chrome: "recorder/io_posix_mpiio_hdf5_4ranks.pilgrim-c1c3dcb/_chrome/timeline_0.json", 619, 556900, 18522800;
}

/// The kind every corpus category must get (the spec of `Kind::from_cat`, restated).
fn kind_of_cat(cat: &str) -> &'static str {
    match cat {
        "cpu_op" | "Operator" | "OperatorInner" => "cpu_op",
        "user_annotation" | "UserDefined" => "user_annotation",
        "gpu_user_annotation" => "gpu_user_annotation",
        "python_function" => "python_function",
        "cuda_runtime" | "Runtime" => "runtime",
        "cuda_driver" => "driver",
        "kernel" | "Kernel" => "kernel",
        "gpu_memcpy" | "Memcpy" => "memcpy",
        "gpu_memset" | "Memset" => "memset",
        "cuda_sync" => "cuda_sync",
        "ac2g" | "async" | "async_cpu_to_gpu" | "async_gpu" => "launch_flow",
        "fwdbwd" => "fwdbwd_flow",
        "ProfileStep" => "profiler_step",
        "Trace" => "trace_span",
        "cpu_instant_event" | "Allocate" | "Free" => "cpu_instant",
        "mtia_runtime" => "mtia_runtime",
        "mtia_ccp_events" => "mtia_device_op",
        "cuda_profiler_range" => "cuda_profiler_range",
        "Forward" | "Backward" | "Optimization" => "framework_phase",
        "DygraphKernelLaunch" => "kernel_launch",
        // HTA's overlay output and Recorder's I/O layers have no kind of their own
        "critical_path" | "POSIX" | "MPI" | "MPI I/O" | "HDF5" => "other",
        other => panic!("category {other:?} is new to the corpus: say here which kind it must get"),
    }
}

/// The kind of an event without `cat`, from its phase.
fn kind_of_phase(ph: Option<&str>) -> &'static str {
    match ph {
        Some("M") => "metadata",
        Some("C") => "counter",
        Some("s" | "t" | "f") => "flow",
        Some("i" | "I" | "n") => "instant",
        _ => "other",
    }
}

/// Integer value of an arg the way Kineto writes them (numbers, integral floats, numeric strings).
fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e18).map(|f| f as i64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Text of a pid/tid as written.
fn id_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

/// Whether `ns` is the µs value `v` in ns: exactly for integers, within f64 precision otherwise.
fn same_time(v: &Value, ns: i64) -> bool {
    if let Some(i) = v.as_i64() {
        return i128::from(ns) == i128::from(i) * 1000;
    }
    let us = match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    match us {
        Some(us) => (ns as f64 / 1000.0 - us).abs() <= us.abs() * 4.5e-16 + 1e-9,
        None => false,
    }
}

/// The independent count, compared row by row with `rank` while the events stream past.
struct Tally<'r> {
    rank: &'r RankTrace,
    /// Position in the event array (every element).
    index: u32,
    /// Next row of `rank`.
    row: usize,
    events: u64,
    placeholders: u64,
    non_objects: u64,
    metadata: u64,
    ends: u64,
    no_ts: u64,
    fractional_or_missing_ts: bool,
    categories: BTreeMap<String, u64>,
    phases: BTreeMap<String, u64>,
    kinds: BTreeMap<String, u64>,
    process_names: BTreeMap<String, String>,
    thread_names: BTreeMap<(String, String), String>,
    mismatches: Vec<String>,
}

impl Tally<'_> {
    fn mismatch(&mut self, what: String) {
        if self.mismatches.len() < 20 {
            self.mismatches.push(what);
        }
    }

    fn event(&mut self, v: Value) {
        let index = self.index;
        self.index += 1;
        let Value::Object(o) = v else {
            self.non_objects += 1;
            return;
        };
        if o.is_empty() {
            self.placeholders += 1;
            return;
        }
        self.events += 1;
        let ph = o.get("ph").and_then(Value::as_str);
        *self.phases.entry(ph.unwrap_or("?").to_string()).or_default() += 1;
        let cat = o.get("cat").and_then(Value::as_str);
        if let Some(c) = cat {
            *self.categories.entry(c.to_string()).or_default() += 1;
        }
        let kind = match cat {
            Some(c) => kind_of_cat(c),
            None => kind_of_phase(ph),
        };
        *self.kinds.entry(kind.to_string()).or_default() += 1;
        if !o.get("ts").is_some_and(|t| t.is_i64() || t.is_u64()) {
            self.fractional_or_missing_ts = true;
        }
        let args = o.get("args").and_then(Value::as_object);
        match ph {
            Some("M") => {
                self.metadata += 1;
                let name = args.and_then(|a| a.get("name")).and_then(Value::as_str);
                let (pid, tid) = (id_text(o.get("pid")), id_text(o.get("tid")));
                match (o.get("name").and_then(Value::as_str), name) {
                    (Some("process_name"), Some(n)) => {
                        self.process_names.insert(pid, n.to_string());
                    }
                    (Some("thread_name"), Some(n)) => {
                        self.thread_names.insert((pid, tid), n.to_string());
                    }
                    _ => {}
                }
                return;
            }
            Some("E") => {
                self.ends += 1;
                return;
            }
            _ => {}
        }
        let Some(ts) = o.get("ts") else {
            self.no_ts += 1;
            return;
        };
        let e = self.row;
        self.row += 1;
        let r = self.rank;
        let ev = &r.events;
        if e >= ev.len() {
            self.mismatch(format!("event at array index {index} has no row (only {} rows)", ev.len()));
            return;
        }
        let name = match o.get("name") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => String::new(),
        };
        let ph_letter = ph.and_then(|p| p.bytes().next()).unwrap_or(b'?');
        let mut bad = Vec::new();
        if ev.index.get(e) != index {
            bad.push(format!("index {} != {index}", ev.index.get(e)));
        }
        if r.full_name(e as u32) != name {
            bad.push(format!("name {:?} != {name:?}", r.full_name(e as u32)));
        }
        if r.cat(e as u32) != cat.unwrap_or("") || (ev.flags[e] & flags::HAS_CAT != 0) != cat.is_some() {
            bad.push(format!("cat {:?} != {cat:?}", r.cat(e as u32)));
        }
        if ev.phase[e] != Phase::from_letter(ph_letter) {
            bad.push(format!("phase {:?} != {ph:?}", ev.phase[e]));
        }
        if ev.kind[e].as_str() != kind {
            bad.push(format!("kind {} != {kind}", ev.kind[e].as_str()));
        }
        if !same_time(ts, ev.ts[e]) {
            bad.push(format!("ts {} ns != {ts} µs", ev.ts[e]));
        }
        match o.get("dur") {
            Some(d) => {
                if !same_time(d, ev.dur.get(e)) || ev.flags[e] & flags::HAS_DUR == 0 {
                    bad.push(format!("dur {} ns != {d} µs", ev.dur.get(e)));
                }
            }
            None => {
                if ev.dur.get(e) != 0 || ev.flags[e] & flags::HAS_DUR != 0 {
                    bad.push(format!("dur {} but the event has none", ev.dur.get(e)));
                }
            }
        }
        let (pid, tid) = (id_text(o.get("pid")), id_text(o.get("tid")));
        if r.id_text(ev.pid.get(e)) != pid || r.id_text(ev.tid.get(e)) != tid {
            bad.push(format!("pid/tid {}/{} != {pid}/{tid}", r.id_text(ev.pid.get(e)), r.id_text(ev.tid.get(e))));
        }
        let arg = |keys: &[&str]| keys.iter().find_map(|k| args.and_then(|a| a.get(*k))).and_then(int_of);
        let stream = arg(&["stream"]).unwrap_or(-1);
        let corr = arg(&["correlation"]).or_else(|| arg(&["correlation_id"])).or_else(|| arg(&["cid"])).unwrap_or(-1);
        let ext = arg(&["External id", "external id", "External ID"]).unwrap_or(-1);
        if (ev.stream.get(e), ev.correlation.get(e), ev.external_id.get(e)) != (stream, corr, ext) {
            bad.push(format!(
                "stream/corr/ext {}/{}/{} != {stream}/{corr}/{ext}",
                ev.stream.get(e),
                ev.correlation.get(e),
                ev.external_id.get(e)
            ));
        }
        let bytes = arg(&["bytes"]).or_else(|| if matches!(kind, "memcpy" | "memset") { arg(&["size"]) } else { None });
        let flow = o.get("id").and_then(int_of);
        for (a, want) in [(IntArg::Bytes, bytes), (IntArg::Device, arg(&["device"])), (IntArg::FlowId, flow)] {
            if ev.int_arg(e as u32, a) != want {
                bad.push(format!("{a:?} {:?} != {want:?}", ev.int_arg(e as u32, a)));
            }
        }
        if !bad.is_empty() {
            self.mismatch(format!("row {e} (array index {index}, {name:?}): {}", bad.join("; ")));
        }
    }
}

/// Streams a whole document (object form or bare array) into a [`Tally`].
struct Doc<'a, 'r>(&'a mut Tally<'r>);
/// Streams the event array into a [`Tally`].
struct Events<'a, 'r>(&'a mut Tally<'r>);

impl<'de> DeserializeSeed<'de> for Doc<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Doc<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a Chrome trace (object or array)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<(), A::Error> {
        while let Some(k) = m.next_key::<String>()? {
            if k == "traceEvents" {
                m.next_value_seed(Events(&mut *self.0))?;
            } else {
                m.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, s: A) -> Result<(), A::Error> {
        Events(self.0).visit_seq(s)
    }
}

impl<'de> DeserializeSeed<'de> for Events<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Events<'_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("the event array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut s: A) -> Result<(), A::Error> {
        while let Some(v) = s.next_element::<Value>()? {
            self.0.event(v);
        }
        Ok(())
    }
}

fn trace_path(rel: &str) -> PathBuf {
    util::shared("traces").join(rel)
}

/// All checks of one corpus file (see the module doc).
fn check_file(rel: &str, rows: usize, first_ts: i64, last_ts: i64) {
    let raw = util::bytes(&trace_path(rel));
    let content = util::gunzip_if_needed(raw.clone());
    let r = util::read_chunked(rel, &raw, 1 << 20).unwrap_or_else(|e| panic!("{e}"));

    let mut t = Tally {
        rank: &r,
        index: 0,
        row: 0,
        events: 0,
        placeholders: 0,
        non_objects: 0,
        metadata: 0,
        ends: 0,
        no_ts: 0,
        fractional_or_missing_ts: false,
        categories: BTreeMap::new(),
        phases: BTreeMap::new(),
        kinds: BTreeMap::new(),
        process_names: BTreeMap::new(),
        thread_names: BTreeMap::new(),
        mismatches: Vec::new(),
    };
    let mut de = serde_json::Deserializer::from_slice(&content);
    Doc(&mut t).deserialize(&mut de).unwrap_or_else(|e| panic!("{rel}: serde_json: {e}"));
    de.end().unwrap_or_else(|e| panic!("{rel}: serde_json: {e}"));

    assert!(t.mismatches.is_empty(), "{rel}: rows differ from the JSON:\n{}", t.mismatches.join("\n"));
    assert_eq!((t.non_objects, t.no_ts), (0, 0), "{rel}: the corpus has only object events, all with ts");
    assert_eq!(r.counts.events, t.events, "{rel}: events");
    assert_eq!(r.counts.empty_placeholders, t.placeholders, "{rel}: empty placeholders");
    assert_eq!(r.counts.categories, t.categories, "{rel}: categories");
    assert_eq!(r.counts.phases, t.phases, "{rel}: phases");
    assert_eq!(r.counts.kinds.values().sum::<u64>(), r.counts.events, "{rel}: sum(kinds) == events");
    assert_eq!(r.counts.kinds, t.kinds, "{rel}: kinds");
    assert_eq!(r.events.len() as u64, t.events - t.metadata - t.ends, "{rel}: rows = events - M - E");
    assert_eq!(r.events.len(), t.row, "{rel}: rows compared");
    assert_eq!(r.events.len(), rows, "{rel}: rows");
    assert_eq!((r.events.ts[0], r.events.ts[rows - 1]), (first_ts, last_ts), "{rel}: first and last ts (ns)");
    let process_names: BTreeMap<String, String> = r.process_names.iter().map(|(p, n)| (r.id_text(*p), n.clone())).collect();
    let thread_names: BTreeMap<(String, String), String> =
        r.thread_names.iter().map(|((p, t), n)| ((r.id_text(*p), r.id_text(*t)), n.clone())).collect();
    assert_eq!(process_names, t.process_names, "{rel}: process names");
    assert_eq!(thread_names, t.thread_names, "{rel}: thread names");
    assert_eq!(r.meta.ts_fractional_or_missing, t.fractional_or_missing_ts, "{rel}: ts_fractional_or_missing");

    assert!(r.warnings.is_empty(), "{rel}: warnings {:?}", util::warnings_list(&r));
    let bare = content.iter().find(|c| !c.is_ascii_whitespace()) == Some(&b'[');
    assert_eq!(r.meta.bare_array, bare, "{rel}: bare array");
    assert_eq!(r.meta.gzip_members, u32::from(raw.starts_with(&[0x1f, 0x8b])), "{rel}: gzip members");
    let format = match rel.split('/').next() {
        Some("paddle") => Format::Paddle,
        Some("recorder") => Format::ChromeTrace,
        _ => Format::Kineto,
    };
    assert_eq!(r.format, Some(format), "{rel}: format");

    for chunk in util::chunks_for(raw.len()) {
        if chunk == 1 << 20 {
            continue;
        }
        let again = util::read_chunked(rel, &raw, chunk).unwrap_or_else(|e| panic!("{rel} in {chunk}-byte chunks: {e}"));
        util::assert_same_read(&format!("{rel} in {chunk}-byte chunks"), &r, &again);
    }
}

/// The list above is every Chrome-trace JSON of the selected folders: nothing is skipped silently.
#[test]
fn corpus_list_is_complete() {
    if util::skip_without_corpus() {
        return;
    }
    let root = util::shared("traces");
    let mut found = Vec::new();
    for p in util::files_under(&root) {
        let rel = p.strip_prefix(&root).expect("under root").to_string_lossy().replace('\\', "/");
        let top = rel.split('/').next().unwrap_or_default();
        let wanted = match top {
            "hta" => (rel.ends_with(".json") || rel.ends_with(".json.gz")) && !rel.starts_with("hta/memory_analysis/"),
            "kineto" | "param" => rel.ends_with(".json") || rel.ends_with(".json.gz"),
            "paddle" => rel.ends_with(".json"),
            "tracelens" => rel.ends_with(".json.gz"),
            "recorder" => rel.ends_with("/_chrome/timeline_0.json"),
            _ => false,
        };
        if wanted && rel != "hta/execution_trace/benchmark_simple_add_et.json.gz" {
            found.push(rel);
        }
    }
    found.sort();
    let mut listed: Vec<String> = CORPUS.iter().map(|s| s.to_string()).collect();
    listed.sort();
    assert_eq!(listed, found);
}

/// A PyTorch Execution Trace (`{"schema", "pid", "time", "start_ts", "nodes", "finish_ts"}`) is
/// JSON but not a Chrome trace: a clear error at its closing brace (byte 18370 of the 18371
/// decompressed bytes), not an empty trace.
#[test]
fn execution_trace_is_a_clear_error() {
    if util::skip_without_corpus() {
        return;
    }
    let rel = "hta/execution_trace/benchmark_simple_add_et.json.gz";
    let raw = util::bytes(&trace_path(rel));
    for chunk in util::chunks_for(raw.len()) {
        let e = util::read_chunked(rel, &raw, chunk).expect_err("an Execution Trace is not a Chrome trace");
        crate::eqnice!(
            "hta/execution_trace/benchmark_simple_add_et.json.gz: byte 18370: expected a \"traceEvents\" array (Chrome trace format), found end of the top-level object without one",
            e.to_string()
        );
    }
}

fn read_ranks(files: &[&str]) -> kinetoscope::Trace {
    let bytes: Vec<(String, Vec<u8>)> = files.iter().map(|f| (f.to_string(), util::bytes(&trace_path(f)))).collect();
    let refs: Vec<(&str, &[u8])> = bytes.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect();
    read_all(&refs).unwrap_or_else(|e| panic!("{e}"))
}

/// `(rank, file, distributedInfo rank, world size, backend)`.
type RankRow = (u32, String, Option<i64>, Option<i64>, Option<String>);

/// [`RankRow`] of every rank, in rank order.
fn rank_table(t: &kinetoscope::Trace) -> Vec<RankRow> {
    t.ranks
        .iter()
        .map(|r| {
            let d = r.meta.distributed.clone().unwrap_or_default();
            (r.rank, r.files.join(","), d.rank, d.world_size, d.backend)
        })
        .collect()
}

/// param's DLRM run: 8 files, ranks from `distributedInfo` (given in reverse order, the ranks
/// are the same).
#[test]
fn dlrm_8rank_ranks_from_distributed_info() {
    if util::skip_without_corpus() {
        return;
    }
    let dir = "param/dlrm_8rank";
    let mut files: Vec<String> = std::fs::read_dir(trace_path(dir))
        .expect("dlrm_8rank")
        .map(|e| format!("{dir}/{}", e.expect("entry").file_name().to_string_lossy()))
        .collect();
    files.sort();
    files.reverse();
    let refs: Vec<&str> = files.iter().map(String::as_str).collect();
    let t = read_ranks(&refs);
    let got = rank_table(&t);
    let want: Vec<_> = (0..8u32)
        .map(|r| {
            let file = files.iter().find(|f| f.starts_with(&format!("{dir}/worker{r}_"))).expect("worker file").clone();
            (r, file, Some(i64::from(r)), Some(8), Some("nccl".to_string()))
        })
        .collect();
    assert_eq!(got, want);
    assert!(t.warnings.is_empty(), "{:?}", t.warnings);
}

/// HTA's trace_filter folder: two sampled ranks of a 128-rank job.
#[test]
fn trace_filter_ranks_0_and_1() {
    if util::skip_without_corpus() {
        return;
    }
    let t = read_ranks(&["hta/trace_filter/sampled_rank-1.json.gz", "hta/trace_filter/sampled_rank-0.json.gz"]);
    assert_eq!(
        rank_table(&t),
        vec![
            (0, "hta/trace_filter/sampled_rank-0.json.gz".into(), Some(0), Some(128), Some("nccl".into())),
            (1, "hta/trace_filter/sampled_rank-1.json.gz".into(), Some(1), Some(128), Some("nccl".into())),
        ]
    );
    assert_eq!((t.ranks[0].events.len(), t.ranks[1].events.len()), (4811, 4676));
}

/// `distributedInfo` without `rank` and no number in the name: the lowest free rank (0 alone; 1
/// when another file claims 0, whatever the order).
#[test]
fn rank_unavailable_gets_lowest_free_rank() {
    if util::skip_without_corpus() {
        return;
    }
    let alone = read_ranks(&["hta/rank_unavailable/rank_not_found.json.gz"]);
    assert_eq!(rank_table(&alone), vec![(0, "hta/rank_unavailable/rank_not_found.json.gz".into(), None, None, Some("nccl".into()))]);
    let with_rank0 = read_ranks(&["hta/rank_unavailable/rank_not_found.json.gz", "hta/trace_filter/sampled_rank-0.json.gz"]);
    assert_eq!(
        rank_table(&with_rank0),
        vec![
            (0, "hta/trace_filter/sampled_rank-0.json.gz".into(), Some(0), Some(128), Some("nccl".into())),
            (1, "hta/rank_unavailable/rank_not_found.json.gz".into(), None, None, Some("nccl".into())),
        ]
    );
    assert!(with_rank0.warnings.is_empty());
}

/// The CPU-only trace says rank 34 of 300 (gloo); the rank comes from `distributedInfo`, not
/// from the `rank-34` in its name (a neutral name gives the same rank).
#[test]
fn cpu_only_is_rank_34() {
    if util::skip_without_corpus() {
        return;
    }
    let rel = "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz";
    let t = read_ranks(&[rel]);
    assert_eq!(rank_table(&t), vec![(34, rel.to_string(), Some(34), Some(300), Some("gloo".into()))]);
    let renamed = read_all(&[("cpu_only.json.gz", &util::bytes(&trace_path(rel))[..])]).expect("read");
    assert_eq!(renamed.ranks[0].rank, 34);
}

/// Two files claiming rank 0: both kept, the later one gets rank 1 and a DuplicateRank warning.
#[test]
fn duplicate_rank_is_warned() {
    if util::skip_without_corpus() {
        return;
    }
    let t = read_ranks(&["hta/rank_non_gpu/rank_non_gpu.json.gz", "hta/mixed_files/rank_non_gpu.json.gz"]);
    assert_eq!(
        rank_table(&t),
        vec![
            (0, "hta/rank_non_gpu/rank_non_gpu.json.gz".into(), Some(0), None, None),
            (1, "hta/mixed_files/rank_non_gpu.json.gz".into(), Some(0), None, None),
        ]
    );
    assert_eq!(t.warnings.count(WarningKind::DuplicateRank), 1);
    let w = t.warnings.iter().next().expect("warning");
    assert_eq!((w.file.as_str(), w.detail.as_str()), ("hta/mixed_files/rank_non_gpu.json.gz", "rank 0 is already taken by another file"));
}

/// Links on a real trace, checked against facts visible in the JSON: in the alexnet critical-path
/// trace every kernel/memcpy/memset has a launcher with its correlation id, and every launcher
/// that launched something points back to a device row with the same id.
#[test]
fn alexnet_links_follow_correlation() {
    if util::skip_without_corpus() {
        return;
    }
    let t = read_ranks(&["hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz"]);
    let r = &t.ranks[0];
    let ev = &r.events;
    let mut device = 0;
    for e in 0..ev.len() {
        if ev.kind[e].is_device() && ev.correlation.get(e) >= 0 {
            device += 1;
            let l = r.launch_links()[e];
            assert_ne!(l, kinetoscope::model::NONE, "row {e} {:?} has no launcher", r.name(e as u32));
            assert_eq!(ev.correlation.get(l as usize), ev.correlation.get(e));
            assert!(ev.kind[l as usize].is_launcher());
            let back = r.launch_links()[l as usize];
            assert_ne!(back, kinetoscope::model::NONE, "launcher row {l} has no device row");
            assert_eq!(ev.correlation.get(back as usize), ev.correlation.get(e));
        }
    }
    // kernel 79 + gpu_memcpy 16 + gpu_memset 3 + cuda_sync 41 (MANIFEST), all with a correlation
    // that a cuda_runtime/cuda_driver X event carries (counted with python's json module)
    assert_eq!(device, 79 + 16 + 3 + 41);
}
