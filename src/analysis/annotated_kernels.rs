//! GPU kernels with their user annotation (HTA `get_gpu_kernels_with_user_annotations`, SPEC
//! §2.11): every GPU kernel of a rank, with the GPU user annotation (`gpu_user_annotation`
//! events, e.g. `ProfilerStep#3` or `## forward ##` on the GPU timeline) it runs under.
//!
//! 1. Kernels are HTA's `GPUKernelFilter` rows (§1.4: stream ≥ 0 and a correlation, or `Event
//!    Sync`/`Context Sync`), interval `[ts, ts + dur)`.
//! 2. An annotation applies to a kernel on the same pid and tid whose interval overlaps it
//!    (`k.ts < a.end and a.ts < k.end`). Of several, the shortest wins (HTA walks the annotations
//!    by duration, longest first, each overwriting the last); equally long ones: the later in
//!    the file.
//! 3. Names are shortened (§1.12) unless `shortern_names` is false (HTA's spelling).
//!
//! Without `--hta` the table also has `annotation_stack`: every overlapping annotation,
//! outermost (longest) to innermost, joined by `" > "` (the last one is `s_user_annotation`);
//! times are exact µs; a zero-length kernel inside an annotation (also at its very start) belongs
//! to it — HTA's interval test misses a zero-length kernel at an annotation's start. A trace
//! without GPU annotations gives the kernels with empty annotations and a note (HTA returns
//! None); durations below zero (HTA's sub-µs rounding, §5.3) do not occur, where HTA raises.

use super::annotations::hta_has_symbol;
use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::hta_frame::{gpu_kernel_rows, HtaFrame};
use super::names::shorten_name;
use crate::model::{RankTrace, StrId};
use crate::table::Report;
use crate::table::{Table, Texts, Unit, Values};
use rustc_hash::FxHashMap;

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "annotated_kernels",
    title: "Kernels with user annotations",
    about: "Every GPU kernel with the innermost GPU user annotation it runs under, per rank",
    hta_api: "get_gpu_kernels_with_user_annotations (SPEC §2.11)",
    group: Group::Kernels,
    options: &[
        Opt {
            name: "expand_names",
            kind: OptKind::Bool,
            default: "true",
            help: "Names instead of HTA's symbol ids (ids are not reproducible, so names are always given)",
        },
        Opt {
            name: "shortern_names",
            kind: OptKind::Bool,
            default: "true",
            help: "Shorten kernel and annotation names (drop templates and arguments); HTA's spelling",
        },
    ],
    run,
};

/// The category of GPU user annotations.
pub const GPU_ANNOTATION: &str = "gpu_user_annotation";

/// Separator of [`AnnotatedKernel::stack`] when rendered.
pub const STACK_SEPARATOR: &str = " > ";

/// One kernel with its annotations (positions are frame rows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotatedKernel {
    /// Frame row of the kernel.
    pub row: usize,
    /// Frame rows of the overlapping annotations, outermost (longest) first; the last one is the
    /// kernel's annotation (HTA's `user_annotation`). Empty: none.
    pub stack: Vec<usize>,
}

/// The kernels of one rank's frame with their annotations, in frame order. `Err` when HTA would
/// raise (`--hta` and an annotation or kernel with negative duration).
pub fn annotate_kernels(f: &HtaFrame, r: &RankTrace, hta: bool) -> Result<Vec<AnnotatedKernel>, AnalysisError> {
    let annotations: Vec<usize> = (0..f.len()).filter(|&i| r.strings.get(f.cat(r, i)) == GPU_ANNOTATION).collect();
    let gpu = gpu_kernel_rows(f, r);
    let kernels: Vec<usize> = (0..f.len()).filter(|&i| gpu[i]).collect();
    if hta {
        if let Some(&i) = annotations.iter().chain(&kernels).find(|&&i| f.dur(r, i) < 0.0) {
            return fail(format!(
                "rank {}: event #{} ({}) has duration {} µs after HTA's sub-µs rounding: HTA 0.5.0 raises ValueError (left side of interval must be <= right side)",
                f.rank,
                f.index(r, i),
                r.strings.get(f.name(r, i)),
                f.dur(r, i)
            ));
        }
    }
    // annotations per (pid, tid), sorted by start, with a max-end tree for the overlap query
    let mut groups: rustc_hash::FxHashMap<(u32, u32), Vec<usize>> = Default::default();
    for &a in &annotations {
        groups.entry((f.pid(r, a), f.tid(r, a))).or_default().push(a);
    }
    let trees: rustc_hash::FxHashMap<(u32, u32), MaxEndTree> = groups
        .into_iter()
        .map(|(k, mut v)| {
            v.sort_unstable_by_key(|&a| (f.ts_ns(r, a), a));
            (k, MaxEndTree::new(v.iter().map(|&a| (f.ts_ns(r, a), f.ts_ns(r, a) + f.dur_ns(r, a), a)).collect()))
        })
        .collect();
    let out = kernels
        .into_iter()
        .map(|k| {
            let (ts, end) = (f.ts_ns(r, k), f.ts_ns(r, k) + f.dur_ns(r, k));
            let mut stack = Vec::new();
            if let Some(tree) = trees.get(&(f.pid(r, k), f.tid(r, k))) {
                // HTA: a.start < k.end and a.end > k.ts; exact: a zero-length kernel also at a.start
                let start_below = if !hta && ts == end { end + 1 } else { end };
                tree.overlapping(start_below, ts, &mut stack);
            }
            // outermost first: longest, then earliest, then file order; HTA's winner (shortest,
            // among equal durations the later row) ends up last
            stack.sort_by_key(|&a| (std::cmp::Reverse(f.dur_ns(r, a)), f.ts_ns(r, a), a));
            if hta {
                // HTA only knows the winner: the shortest, ties → the later row
                let winner = stack.iter().copied().min_by_key(|&a| (f.dur_ns(r, a), std::cmp::Reverse(a)));
                stack = winner.into_iter().collect();
            }
            AnnotatedKernel { row: k, stack }
        })
        .collect();
    Ok(out)
}

/// Intervals `[start, end)` sorted by start, with a segment tree of the maximum end, to list the
/// intervals with `start < below` and `end > above` in O((matches + 1) · log n).
struct MaxEndTree {
    items: Vec<(i64, i64, usize)>,
    max_end: Vec<i64>,
    size: usize,
}

impl MaxEndTree {
    fn new(items: Vec<(i64, i64, usize)>) -> MaxEndTree {
        let size = items.len().next_power_of_two().max(1);
        let mut max_end = vec![i64::MIN; 2 * size];
        for (j, it) in items.iter().enumerate() {
            max_end[size + j] = it.1;
        }
        for n in (1..size).rev() {
            max_end[n] = max_end[2 * n].max(max_end[2 * n + 1]);
        }
        MaxEndTree { items, max_end, size }
    }

    /// Pushes the payload of every interval with `start < below` and `end > above`.
    fn overlapping(&self, below: i64, above: i64, out: &mut Vec<usize>) {
        let prefix = self.items.partition_point(|it| it.0 < below);
        self.visit(1, 0, self.size, prefix, above, out);
    }

    fn visit(&self, node: usize, lo: usize, hi: usize, prefix: usize, above: i64, out: &mut Vec<usize>) {
        if lo >= prefix || self.max_end[node] <= above {
            return;
        }
        if hi - lo == 1 {
            out.push(self.items[lo].2);
            return;
        }
        let mid = (lo + hi) / 2;
        self.visit(2 * node, lo, mid, prefix, above, out);
        self.visit(2 * node + 1, mid, hi, prefix, above, out);
    }
}

fn run(ctx: &Context<'_>, p: &Params) -> Result<Report, AnalysisError> {
    let short = p.bool("shortern_names");
    let mut report = Report::default();
    if !p.bool("expand_names") {
        report.notes.push(
            "expand_names=false: HTA would give symbol ids, which depend on PYTHONHASHSEED (SPEC §5.1); names are given instead".into(),
        );
    }
    if !hta_has_symbol(ctx.trace, GPU_ANNOTATION) {
        if ctx.hta {
            report.notes.push("the trace has no gpu_user_annotation events: HTA 0.5.0 returns None".into());
            return Ok(report);
        }
        report.notes.push("the trace has no gpu_user_annotation events: no kernel is annotated".into());
    }
    let name = |s: &str| if short { shorten_name(s) } else { s.to_string() };
    let mut errors = Vec::new();
    for (f, r) in ctx.ranks() {
        let kernels = match annotate_kernels(f, r, ctx.hta) {
            Ok(k) => k,
            Err(e) => {
                errors.push(e.0);
                continue;
            }
        };
        let mut t = kernel_table(f, r, &kernels, ctx.hta, name);
        if ctx.hta {
            t.sort_canonical(&["index"]);
        }
        report.tables.push(t);
    }
    if report.tables.is_empty() && !errors.is_empty() {
        return fail(errors.join("; "));
    }
    report.notes.extend(errors);
    Ok(report)
}

/// `gpu_kernels_with_user_annotations__rank{r}`: `index, s_cat, s_name, stream, pid, tid, ts, dur,
/// correlation, index_correlation, iteration, s_user_annotation` (+ `annotation_stack` without
/// `--hta`). HTA's times are its µs (`ts` whole); ours exact µs.
fn kernel_table(f: &HtaFrame, r: &RankTrace, kernels: &[AnnotatedKernel], hta: bool, name: impl Fn(&str) -> String) -> Table {
    let rows: Vec<usize> = kernels.iter().map(|k| k.row).collect();
    let ints = |v: &dyn Fn(usize) -> i64| Values::Int(rows.iter().map(|&i| v(i)).collect());
    // each distinct name is named (shortened) once, not once per kernel
    let mut named: FxHashMap<StrId, String> = FxHashMap::default();
    let ids =
        rows.iter().flat_map(|&i| [f.cat(r, i), f.name(r, i)]).chain(kernels.iter().flat_map(|k| k.stack.iter().map(|&a| f.name(r, a))));
    for id in ids {
        named.entry(id).or_insert_with(|| name(r.strings.get(id)));
    }
    let name_of = |id: StrId| named[&id].as_str();
    // by the string id, not by the text: a kernel's long name hashed once, not once per row
    let texts = |col: &dyn Fn(usize) -> StrId| Values::Str(Texts::by_key(rows.iter().map(|&i| col(i)), name_of));
    let (ts, dur) = if hta {
        let dur = if f.dur_is_float {
            Values::Float(rows.iter().map(|&i| f.dur(r, i)).collect())
        } else {
            Values::Int(rows.iter().map(|&i| f.dur(r, i) as i64).collect())
        };
        (Values::Int(rows.iter().map(|&i| f.ts(r, i)).collect()), dur)
    } else {
        (
            Values::Float(rows.iter().map(|&i| super::units::us(f.ts_ns(r, i))).collect()),
            Values::Float(rows.iter().map(|&i| super::units::us(f.dur_ns(r, i))).collect()),
        )
    };
    let iteration = if f.iteration_is_float {
        Values::Float(rows.iter().map(|&i| f.iteration(i).map_or(f64::NAN, |v| v as f64)).collect())
    } else {
        Values::Int(rows.iter().map(|&i| f.iteration(i).unwrap_or(-1)).collect())
    };
    let annotation = |k: &AnnotatedKernel| k.stack.last().map(|&a| f.name(r, a));
    let mut t = Table::new(&format!("gpu_kernels_with_user_annotations__rank{}", f.rank))
        .with("index", Unit::None, Values::Int(rows.iter().map(|&i| i64::from(f.index(r, i))).collect()))
        .with("s_cat", Unit::None, texts(&|i| f.cat(r, i)))
        .with("s_name", Unit::None, texts(&|i| f.name(r, i)))
        .with("stream", Unit::None, ints(&|i| f.stream(r, i)))
        .with("pid", Unit::None, Values::Str(Texts::by_key(rows.iter().map(|&i| f.pid(r, i)), |p| r.id_text(p))))
        .with("tid", Unit::None, Values::Str(Texts::by_key(rows.iter().map(|&i| f.tid(r, i)), |t| r.id_text(t))))
        .with("ts", Unit::Us, ts)
        .with("dur", Unit::Us, dur)
        .with("correlation", Unit::None, ints(&|i| f.correlation(r, i)))
        .with("index_correlation", Unit::None, ints(&|i| f.index_correlation(r, i)))
        .with("iteration", Unit::None, iteration)
        .with("s_user_annotation", Unit::None, Values::Str(Texts::by_key(kernels.iter().map(annotation), |a| a.map_or("", name_of))));
    if !hta {
        let stack = |k: &AnnotatedKernel| k.stack.iter().map(|&a| name_of(f.name(r, a))).collect::<Vec<_>>().join(STACK_SEPARATOR);
        t = t.with("annotation_stack", Unit::None, Values::Str(kernels.iter().map(stack).collect()));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_end_tree_lists_overlaps() {
        // [0,100) [10,20) [30,40) [50,60)
        let t = MaxEndTree::new(vec![(0, 100, 0), (10, 20, 1), (30, 40, 2), (50, 60, 3)]);
        let q = |below, above| {
            let mut v = Vec::new();
            t.overlapping(below, above, &mut v);
            v
        };
        assert_eq!(q(36, 35), [0, 2]); // kernel [35, 36)
        assert_eq!(q(21, 20), [0]); // [20, 21): [10,20) ended at 20
        assert_eq!(q(10, 9), [0]); // [9, 10): [10,20) starts at its end
        assert_eq!(q(200, 150), Vec::<usize>::new());
        assert_eq!(q(1000, -1), [0, 1, 2, 3]);
        let empty = MaxEndTree::new(Vec::new());
        let mut v = Vec::new();
        empty.overlapping(10, 0, &mut v);
        assert!(v.is_empty());
    }
}
