//! CUPTI counters with operators (HTA `get_cupti_counter_data_with_operators`, SPEC §2.16): in
//! CUPTI range-profiler mode the PyTorch profiler writes one `cuda_profiler_range` event per
//! kernel with the hardware counters in its `args` (`smsp__sass_thread_inst_executed_op_ffma_pred_on.sum`,
//! ...). This table gives each such kernel the operators it ran under.
//!
//! 1. Range events sorted by `ts` are paired by position with the kernel launch calls sorted by
//!    `ts` (the events carry no correlation id; the profiler replays kernels in launch order). If
//!    the counts differ the rank is skipped (HTA logs an error and returns nothing for it).
//! 2. `op_stack`: the `cpu_op` events enclosing the launch call on its thread, outermost first
//!    ([`CallStacks`]); `top_level_op` / `bottom_level_op` its first and last entries.
//! 3. One column per counter (every numeric arg key of the rank's range events, sorted by name;
//!    −1 where an event lacks it).
//!
//! Launch calls: `--hta` rows whose category starts with `cuda_runtime` and name with
//! `cudaLaunchKernel`; default [`super::launches::launch_calls`] without memory calls (so also
//! `cuLaunchKernel`, which the range profiler counts as well). HTA raises (IndexError) when a
//! launch has no enclosing `cpu_op`; the default gives an empty stack.
//!
//! `--hta` writes HTA's whole row: every frame column, then HTA's `CallGraph` columns (`depth`
//! … `last_kernel_end`) with the values of a row that is not a call-stack node (Kineto writes
//! range events on pid 0 / tid 0, which `CallGraph` treats as a GPU thread), `index_runtime`,
//! the op columns and the counters. HTA also re-parents a backward thread's stack under the main
//! thread's `## backward ##` annotations; those are user annotations, not `cpu_op`s, so this
//! table does not need it and it is not done.

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Params};
use super::call_stack::CallStacks;
use super::hta_frame::HtaFrame;
use super::launches::launch_calls;
use super::units::us;
use crate::model::{EventId, Kind, RankTrace, StrId};
use crate::table::Report;
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "cupti",
    title: "CUPTI counters with operators",
    about: "CUPTI range-profiler counters of each kernel with the operators that launched it",
    hta_api: "get_cupti_counter_data_with_operators (SPEC §2.16)",
    group: Group::Kernels,
    options: &[],
    run,
};

const RANGE_CAT: &str = "cuda_profiler_range";

/// One profiled kernel.
#[derive(Debug, Clone, PartialEq)]
pub struct CuptiKernel {
    /// Frame row of the `cuda_profiler_range` event.
    pub range_row: usize,
    /// Frame row of the launch call paired with it.
    pub launch_row: usize,
    /// Names of the enclosing `cpu_op`s, outermost first.
    pub op_stack: Vec<String>,
}

/// Whether the row is a range-profiler event (HTA: the category text).
fn is_range(f: &HtaFrame, r: &RankTrace, i: usize, hta: bool) -> bool {
    if hta {
        r.strings.get(f.cat(r, i)) == RANGE_CAT
    } else {
        r.events.kind[f.row[i] as usize] == Kind::CudaProfilerRange
    }
}

/// The kernels of one rank with their op stacks; `Ok(None)` when the range events and launch
/// calls do not pair up (their counts, for the note), `Err` where HTA raises.
pub fn cupti_kernels(f: &HtaFrame, r: &RankTrace, hta: bool) -> Result<Result<Vec<CuptiKernel>, (usize, usize)>, String> {
    let by_ts = |v: &mut Vec<usize>| v.sort_by_key(|&i| (f.ts_ns(r, i), i));
    let mut ranges: Vec<usize> = (0..f.len()).filter(|&i| is_range(f, r, i, hta)).collect();
    by_ts(&mut ranges);
    let mut launches: Vec<usize> = if hta {
        (0..f.len())
            .filter(|&i| {
                r.strings.get(f.cat(r, i)).starts_with("cuda_runtime") && r.strings.get(f.name(r, i)).starts_with("cudaLaunchKernel")
            })
            .collect()
    } else {
        launch_calls(f, r, false)
    };
    by_ts(&mut launches);
    if ranges.len() != launches.len() {
        return Ok(Err((ranges.len(), launches.len())));
    }
    let stacks = CallStacks::build(f, r).map_err(|e| {
        format!("zero- and negative-length events meet at event index {}: HTA 0.5.0 raises ValueError building its call graph", e.index)
    })?;
    let is_op = |i: usize| if hta { r.strings.get(f.cat(r, i)) == "cpu_op" } else { r.events.kind[f.row[i] as usize] == Kind::CpuOp };
    let mut out = Vec::with_capacity(ranges.len());
    for (&range_row, &launch_row) in ranges.iter().zip(&launches) {
        let mut ops: Vec<usize> = stacks.ancestors(launch_row).filter(|&a| is_op(a)).collect();
        ops.reverse();
        // HTA sorts the stack by ts; ancestors already are, outermost first at equal times
        ops.sort_by_key(|&a| f.ts_ns(r, a));
        if ops.is_empty() && hta {
            return Err(format!(
                "launch at event index {} has no enclosing cpu_op: HTA 0.5.0 raises IndexError: list index out of range",
                f.index(r, launch_row)
            ));
        }
        out.push(CuptiKernel { range_row, launch_row, op_stack: ops.iter().map(|&a| r.strings.get(f.name(r, a)).to_string()).collect() });
    }
    Ok(Ok(out))
}

/// Counter columns of a rank: sorted keys, and each key's value per range event.
fn counters(r: &RankTrace) -> (Vec<StrId>, FxHashMap<(EventId, StrId), f64>) {
    let args = &r.events.profiler_range_args;
    let mut keys: Vec<StrId> = args.iter().map(|a| a.1).collect();
    keys.sort_unstable_by(|a, b| r.strings.get(*a).cmp(r.strings.get(*b)));
    keys.dedup();
    (keys, args.iter().map(|&(e, k, v)| ((e, k), v)).collect())
}

/// A Python `json.dumps` of a list of strings (`["a", "b"]`, non-ASCII as `\uXXXX`).
pub fn py_json_list(items: &[String]) -> String {
    let mut out = String::from("[");
    for (n, s) in items.iter().enumerate() {
        if n > 0 {
            out.push_str(", ");
        }
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                c if (c as u32) < 0x20 || (c as u32) > 0x7f => {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        out.push_str(&format!("\\u{unit:04x}"));
                    }
                }
                c => out.push(c),
            }
        }
        out.push('"');
    }
    out.push(']');
    out
}

/// Floats that are all whole numbers become an integer column (pandas' int64 for JSON integers).
fn int_or_float(v: Vec<f64>) -> Values {
    if v.iter().all(|x| x.fract() == 0.0 && x.abs() < 9.0e15) {
        Values::Int(v.into_iter().map(|x| x as i64).collect())
    } else {
        Values::Float(v)
    }
}

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    let mut report = Report::default();
    let any_range = ctx.frames().ranks.iter().zip(&ctx.trace.ranks).any(|(f, r)| (0..f.len()).any(|i| is_range(f, r, i, ctx.hta)));
    if !any_range {
        report.notes.push("no cuda_profiler_range events: the trace was not recorded in CUPTI range-profiler mode".into());
        return Ok(report);
    }
    for (f, r) in ctx.ranks() {
        let kernels = match cupti_kernels(f, r, ctx.hta) {
            Ok(Ok(k)) => k,
            Ok(Err((ranges, launches))) => {
                report.notes.push(format!(
                    "rank {}: {ranges} range-profiler events but {launches} kernel launch calls; they cannot be paired, rank skipped",
                    f.rank
                ));
                continue;
            }
            Err(msg) => return fail(format!("rank {}: {msg}", f.rank)),
        };
        report.tables.push(table(f, r, &kernels, ctx.hta));
    }
    Ok(report)
}

/// `cupti_counter_data_with_operators__rank{r}` (HTA's full row with `--hta`, module docs).
fn table(f: &HtaFrame, r: &RankTrace, kernels: &[CuptiKernel], hta: bool) -> Table {
    let ints = |g: &dyn Fn(usize) -> i64| Values::Int(kernels.iter().map(|k| g(k.range_row)).collect());
    let strs = |g: &dyn Fn(&CuptiKernel) -> String| Values::Str(kernels.iter().map(g).collect());
    let name = |i: usize| r.strings.get(f.name(r, i)).to_string();
    let mut t = Table::new(&format!("cupti_counter_data_with_operators__rank{}", f.rank));
    if hta {
        let num = |g: &dyn Fn(usize) -> f64| -> Values {
            let v: Vec<f64> = kernels.iter().map(|k| g(k.range_row)).collect();
            if f.dur_is_float {
                Values::Float(v)
            } else {
                Values::Int(v.into_iter().map(|x| x as i64).collect())
            }
        };
        let consts = |x: f64| Values::Float(vec![x; kernels.len()]);
        let iteration = if f.iteration_is_float || kernels.iter().any(|k| f.iteration(k.range_row).is_none()) {
            Values::Float(kernels.iter().map(|k| f.iteration(k.range_row).map_or(f64::NAN, |v| v as f64)).collect())
        } else {
            ints(&|i| f.iteration(i).unwrap_or(-1))
        };
        t = t
            .with("index", Unit::None, ints(&|i| i64::from(f.index(r, i))))
            .with("cat", Unit::None, strs(&|k| r.strings.get(f.cat(r, k.range_row)).to_string()))
            .with("name", Unit::None, strs(&|k| name(k.range_row)))
            .with("pid", Unit::None, strs(&|k| r.id_text(f.pid(r, k.range_row))))
            .with("tid", Unit::None, strs(&|k| r.id_text(f.tid(r, k.range_row))))
            .with("ts", Unit::Us, ints(&|i| f.ts(r, i)))
            .with("dur", Unit::Us, num(&|i| f.dur(r, i)))
            .with("stream", Unit::None, ints(&|i| f.stream(r, i)))
            .with("correlation", Unit::None, ints(&|i| f.correlation(r, i)))
            .with("bytes", Unit::Bytes, ints(&|i| f.bytes(r, i)))
            .with("memory_bw_gbps", Unit::None, Values::Float(kernels.iter().map(|k| f.memory_bw_gbps(r, k.range_row)).collect()))
            .with("wait_on_stream", Unit::None, ints(&|i| f.wait_on_stream(r, i)))
            .with("wait_on_cuda_event_record_corr_id", Unit::None, ints(&|i| f.wait_on_cuda_event_record_corr_id(r, i)))
            // HTA's defaults for args the range events do not carry (the model does not keep them)
            .with("input_dims", Unit::None, strs(&|_| "-1".into()))
            .with("input_type", Unit::None, strs(&|_| "-1".into()))
            .with("input_strides", Unit::None, strs(&|_| "-1".into()))
            .with("external_id", Unit::None, ints(&|i| f.external_id(r, i)))
            .with("index_correlation", Unit::None, ints(&|i| f.index_correlation(r, i)))
            .with("iteration", Unit::None, iteration)
            .with("end", Unit::Us, num(&|i| f.end(r, i)))
            .with("depth", Unit::None, ints(&|_| -1))
            .with("height", Unit::None, ints(&|_| -1))
            .with("parent", Unit::None, ints(&|_| -1))
            .with("num_kernels", Unit::Count, ints(&|_| 0))
            .with("kernel_dur_sum", Unit::Us, consts(0.0))
            .with("kernel_span", Unit::Us, consts(0.0))
            .with("first_kernel_start", Unit::Us, consts(-1.0))
            .with("last_kernel_end", Unit::Us, consts(-1.0));
    } else {
        t = t
            .with("index", Unit::None, ints(&|i| i64::from(f.index(r, i))))
            .with("name", Unit::None, strs(&|k| name(k.range_row)))
            .with("ts", Unit::Us, Values::Float(kernels.iter().map(|k| us(f.ts_ns(r, k.range_row))).collect()))
            .with("dur", Unit::Us, Values::Float(kernels.iter().map(|k| us(f.dur_ns(r, k.range_row))).collect()))
            .with("launch", Unit::None, strs(&|k| name(k.launch_row)));
    }
    t = t
        .with("index_runtime", Unit::None, Values::Int(kernels.iter().map(|k| i64::from(f.index(r, k.launch_row))).collect()))
        .with("op_stack", Unit::None, strs(&|k| py_json_list(&k.op_stack)))
        .with("top_level_op", Unit::None, strs(&|k| k.op_stack.first().cloned().unwrap_or_default()))
        .with("bottom_level_op", Unit::None, strs(&|k| k.op_stack.last().cloned().unwrap_or_default()));
    let (keys, values) = counters(r);
    for key in keys {
        let v: Vec<f64> = kernels.iter().map(|k| values.get(&(f.row[k.range_row], key)).copied().unwrap_or(-1.0)).collect();
        t = t.with(r.strings.get(key), Unit::Count, int_or_float(v));
    }
    t.sort_canonical(&["index"]);
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_lists_like_python() {
        assert_eq!(py_json_list(&["aten::conv2d".into(), "aten::add_".into()]), r#"["aten::conv2d", "aten::add_"]"#);
        assert_eq!(py_json_list(&[]), "[]");
        assert_eq!(py_json_list(&["é\"\\\n".into(), "😀".into()]), r#"["\u00e9\"\\\n", "\ud83d\ude00"]"#);
    }

    #[test]
    fn counter_dtypes() {
        assert_eq!(int_or_float(vec![1.0, -1.0]), Values::Int(vec![1, -1].into()));
        assert_eq!(int_or_float(vec![1.5, -1.0]), Values::Float(vec![1.5, -1.0]));
    }
}
