//! ATen-op kernels and delays (HTA `get_aten_op_kernels_and_delay`, SPEC §2.10): for each ATen
//! operator instance that launches kernels, the sequence of kernels it launches; grouped by
//! (operator name, kernel sequence): how often the pair occurs, the mean delay from the operator's
//! start to its first launch call, and the mean delay from that call to its kernel's start.
//!
//! Per launch call (in row order):
//! 1. Its ATen op: the innermost `aten::*` event that encloses the call.
//!    * `--hta`: among all `aten::*` rows of the rank **on any thread** with `ts <= call.ts` and
//!      `ts + dur >= call.ts + call.dur`, the one with the largest `ts` (ties: the first row).
//!    * default: the innermost enclosing `aten::*` ancestor on the call's own thread in the
//!      rank's call graph (exact nesting, shared with the kernel sequences:
//!      [`Context::call_graph`]); an op on another thread that happens to span the call is not
//!      its op.
//! 2. Its kernel: the GPU rows launched by the call. HTA needs exactly one (`.item()`; a launch
//!    without a kernel, or with a GPU row repeated by loading §1.9, raises `ValueError`, SPEC
//!    §5.7). Without `--hta`, a call without a kernel is skipped and a call with several uses the
//!    earliest one; both are counted in the notes.
//! 3. Per op instance: `kernel_sequence` = kernel names joined by `" -> "` in launch order;
//!    the first launch's delays (`aten_op_delay = call.ts − op.ts`,
//!    `runtime_delay = kernel.ts − call.ts`, µs). HTA identifies an instance by (tid, name,
//!    start); without `--hta`, by its row.
//! 4. Per (op name, sequence): `occurrence_count`, `avg_aten_op_launch_delay`,
//!    `avg_runtime_delay` (means rounded to 3 decimals), sorted by `sort_by` descending.
//!
//! Launch calls: `--hta` names matching `(cuda.*LaunchKernel)|(cuLaunchKernel)|(^runFunction)`
//! at the start (no HIP launches); default [`super::launches::is_launch_name`] without memory
//! calls, one call per correlation.
//!
//! HTA 0.5.0 does not reset its statistics between ranks, so with several ranks in one call rank
//! k's table also holds the launches of the ranks before it (SPEC §5.7). The oracle calls it one
//! rank at a time, and `--hta` reproduces that: each rank is computed alone in both modes.

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::call_graph::CallGraph;
use super::hta_frame::HtaFrame;
use super::launches::{launch_calls, GpuOpsByCorrelation};
use super::stats::np_round;
use crate::model::{RankTrace, StrId};
use crate::table::Report;
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "aten_ops",
    title: "ATen op kernels and delays",
    about: "kernels launched by each ATen op, with the op→launch and launch→kernel delays",
    hta_api: "get_aten_op_kernels_and_delay (SPEC §2.10)",
    group: Group::LaunchCpu,
    options: &[Opt {
        name: "sort_by",
        kind: OptKind::Str,
        default: "occurrence_count",
        help: "comma-separated columns to sort by, descending (occurrence_count, avg_aten_op_launch_delay, avg_runtime_delay, aten_op_name, kernel_sequence)",
    }],
    run,
};

/// Output columns, in order.
pub const COLUMNS: [&str; 5] = ["aten_op_name", "kernel_sequence", "occurrence_count", "avg_aten_op_launch_delay", "avg_runtime_delay"];

/// One (ATen op name, kernel sequence) pair.
#[derive(Debug, Clone, PartialEq)]
pub struct AtenOpKernels {
    /// Operator name (`aten::addmm`).
    pub aten_op_name: String,
    /// Kernel names in launch order, joined by `" -> "`.
    pub kernel_sequence: String,
    /// Number of op instances with this sequence.
    pub occurrence_count: i64,
    /// Mean delay from the op's start to its first launch call, µs, rounded to 3 decimals.
    pub avg_aten_op_launch_delay: f64,
    /// Mean delay from the first launch call to its kernel's start, µs, rounded to 3 decimals.
    pub avg_runtime_delay: f64,
}

/// One rank's result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AtenOpResult {
    /// The pairs, in no particular order.
    pub rows: Vec<AtenOpKernels>,
    /// Launch calls inside an ATen op whose kernel is missing (skipped; default mode).
    pub launches_without_kernel: usize,
    /// Launch calls inside an ATen op with several GPU rows (the earliest used; default mode).
    pub launches_with_several_kernels: usize,
}

/// One launch attributed to an op instance (HTA's mode): (instance, launch order, op delay,
/// runtime delay, kernel name), delays in µs.
type Attributed = (HtaInstance, usize, i64, i64, StrId);

/// HTA's op instance: (tid, name, start µs).
type HtaInstance = (u32, StrId, i64);

/// One launch attributed to an op instance (default mode), in launch order: (op row, kernel
/// name, op delay, runtime delay), delays in ns. 24 bytes: a quarter of a million launches take
/// 6 MB.
type RowLaunch = (u32, StrId, i64, i64);

/// Per (op name, kernel sequence): instances, summed op delays, summed runtime delays.
type Groups = FxHashMap<(StrId, Vec<StrId>), (i64, i64, i64)>;

/// `re.match(r"(cuda.*LaunchKernel)|(cuLaunchKernel)|(^runFunction)", name)`.
fn hta_is_launch(name: &str) -> bool {
    let cuda = name.strip_prefix("cuda").is_some_and(|rest| rest.split('\n').next().unwrap_or("").contains("LaunchKernel"));
    cuda || name.starts_with("cuLaunchKernel") || name.starts_with("runFunction")
}

/// The table of the rank at position `pos` (module docs); `Err` with HTA's failure in `--hta`
/// mode.
pub fn aten_op_kernels_and_delay(ctx: &Context<'_>, pos: usize) -> Result<AtenOpResult, String> {
    let (f, r, hta) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos], ctx.hta);
    let mut result = AtenOpResult::default();
    let groups = if hta {
        let attributed = hta_attribute(f, r)?;
        if attributed.is_empty() {
            return Err("no kernel launch inside an ATen op: HTA 0.5.0 raises KeyError: 'thread_id'".into());
        }
        hta_groups(attributed)
    } else {
        let graph = ctx.call_graph(pos);
        let graph = graph.as_ref().as_ref().map_err(|e| format!("call graph: {}", e.0))?;
        row_groups(exact_attribute(f, r, graph, &mut result), f, r)
    };
    // HTA's delays are whole µs (sums exact); default ns → µs
    let scale = if hta { 1.0 } else { 1000.0 };
    result.rows = groups
        .into_iter()
        .map(|((name, kernels), (n, a, b))| AtenOpKernels {
            aten_op_name: r.strings.get(name).to_string(),
            kernel_sequence: kernels.iter().map(|&k| r.strings.get(k)).collect::<Vec<_>>().join(" -> "),
            occurrence_count: n,
            avg_aten_op_launch_delay: np_round(a as f64 / n as f64 / scale, 3),
            avg_runtime_delay: np_round(b as f64 / n as f64 / scale, 3),
        })
        .collect();
    Ok(result)
}

/// HTA's instances grouped: per instance, the sequence of its kernels and the delays of its
/// first launch.
fn hta_groups(attributed: Vec<Attributed>) -> Groups {
    let mut instances: FxHashMap<HtaInstance, (usize, i64, i64, Vec<StrId>)> = FxHashMap::default();
    for (key, order, op_delay, rt_delay, kernel) in attributed {
        let e = instances.entry(key).or_insert((order, op_delay, rt_delay, Vec::new()));
        if order < e.0 {
            (e.0, e.1, e.2) = (order, op_delay, rt_delay);
        }
        e.3.push(kernel);
    }
    // names stay interned ids until the groups are known: one string per group, not per launch
    let mut groups = Groups::default();
    for ((_, name, _), (_, op_delay, rt_delay, kernels)) in instances {
        add_instance(&mut groups, name, kernels, op_delay, rt_delay);
    }
    groups
}

/// The default mode's launches grouped by op row (their order kept: an op's first launch
/// comes first, its kernels in launch order), then by (op name, kernel sequence).
fn row_groups(mut launches: Vec<RowLaunch>, f: &HtaFrame, r: &RankTrace) -> Groups {
    launches.sort_by_key(|l| l.0);
    let mut groups = Groups::default();
    for op in launches.chunk_by(|a, b| a.0 == b.0) {
        let (row, _, op_delay, rt_delay) = op[0];
        add_instance(&mut groups, f.name(r, row as usize), op.iter().map(|l| l.1).collect(), op_delay, rt_delay);
    }
    groups
}

fn add_instance(groups: &mut Groups, name: StrId, kernels: Vec<StrId>, op_delay: i64, rt_delay: i64) {
    let g = groups.entry((name, kernels)).or_default();
    g.0 += 1;
    g.1 += op_delay;
    g.2 += rt_delay;
}

/// HTA's attribution (µs): any-thread deepest op, exactly one kernel row per call.
fn hta_attribute(f: &HtaFrame, r: &RankTrace) -> Result<Vec<Attributed>, String> {
    let name = |i: usize| r.strings.get(f.name(r, i));
    let end = |i: usize| f.ts_ns(r, i) + f.dur_ns(r, i);
    // aten ops by (ts, row): the deepest op is found scanning back from the call's start
    let mut ops: Vec<usize> = (0..f.len()).filter(|&i| name(i).starts_with("aten::")).collect();
    // (stable: the rows come in runs already in order, which it merges)
    ops.sort_by_key(|&i| (f.ts_ns(r, i), i));
    let tree = EndTree::new(&ops.iter().map(|&o| end(o)).collect::<Vec<_>>());
    let mut kernels: FxHashMap<i64, Vec<usize>> = FxHashMap::default();
    for i in (0..f.len()).filter(|&i| f.stream(r, i) != -1) {
        kernels.entry(f.index_correlation(r, i)).or_default().push(i);
    }
    let mut out = Vec::new();
    for l in (0..f.len()).filter(|&i| hta_is_launch(name(i))) {
        let Some(op) = deepest_enclosing(&ops, &tree, f, r, l, end) else { continue };
        let ks = kernels.get(&i64::from(f.index(r, l))).map(Vec::as_slice).unwrap_or_default();
        let [k] = ks else {
            return Err(format!(
                "launch {:?} (event index {}) has {} GPU rows: HTA 0.5.0 raises ValueError: can only convert an array of size 1 to a Python scalar",
                name(l),
                f.index(r, l),
                ks.len()
            ));
        };
        out.push(((f.tid(r, op), f.name(r, op), f.ts(r, op)), l, f.ts(r, l) - f.ts(r, op), f.ts(r, *k) - f.ts(r, l), f.name(r, *k)));
    }
    Ok(out)
}

/// The latest end in each node of a segment tree over the ATen ops sorted by (ts, row): finds
/// the last op before a position whose end reaches a time in O(log n), so a launch outside every
/// op does not scan them all.
struct EndTree {
    size: usize,
    max_end: Vec<i64>,
}

impl EndTree {
    fn new(ends: &[i64]) -> EndTree {
        let size = ends.len().next_power_of_two();
        let mut max_end = vec![i64::MIN; 2 * size];
        max_end[size..size + ends.len()].copy_from_slice(ends);
        for n in (1..size).rev() {
            max_end[n] = max_end[2 * n].max(max_end[2 * n + 1]);
        }
        EndTree { size, max_end }
    }

    /// The last position `< hi` whose end is `>= t`.
    fn last_before(&self, hi: usize, t: i64) -> Option<usize> {
        self.find(1, 0, self.size, 0, hi, t, true)
    }

    /// The first position in `lo..hi` whose end is `>= t`.
    fn first_in(&self, lo: usize, hi: usize, t: i64) -> Option<usize> {
        self.find(1, 0, self.size, lo, hi, t, false)
    }

    #[allow(clippy::too_many_arguments)]
    fn find(&self, node: usize, nlo: usize, nhi: usize, lo: usize, hi: usize, t: i64, last: bool) -> Option<usize> {
        if nhi <= lo || hi <= nlo || self.max_end[node] < t {
            return None;
        }
        if nhi - nlo == 1 {
            return Some(nlo);
        }
        let mid = (nlo + nhi) / 2;
        let (a, b) = ((2 * node, nlo, mid), (2 * node + 1, mid, nhi));
        let (first, second) = if last { (b, a) } else { (a, b) };
        self.find(first.0, first.1, first.2, lo, hi, t, last).or_else(|| self.find(second.0, second.1, second.2, lo, hi, t, last))
    }
}

/// Among `ops` (sorted by (ts, row), `tree` over their ends), the one with the largest start
/// `<= l`'s start whose end is `>= l`'s end; of several with that start, the first row.
fn deepest_enclosing(ops: &[usize], tree: &EndTree, f: &HtaFrame, r: &RankTrace, l: usize, end: impl Fn(usize) -> i64) -> Option<usize> {
    let hi = ops.partition_point(|&o| f.ts_ns(r, o) <= f.ts_ns(r, l));
    let j = tree.last_before(hi, end(l))?;
    let lo = ops[..j].partition_point(|&o| f.ts_ns(r, o) < f.ts_ns(r, ops[j]));
    tree.first_in(lo, j + 1, end(l)).map(|p| ops[p])
}

/// kinetoscope's attribution (ns): same-thread innermost enclosing op in the rank's call graph,
/// kernels by correlation.
fn exact_attribute(f: &HtaFrame, r: &RankTrace, graph: &CallGraph, result: &mut AtenOpResult) -> Vec<RowLaunch> {
    let end = |i: usize| f.ts_ns(r, i) + f.dur_ns(r, i);
    // the enclosing events of `l` on its own thread (the graph hangs a backward thread's top
    // level under the main thread), innermost first
    let ancestors = |l: usize| {
        std::iter::successors(graph.parent(l), |&a| graph.parent(a))
            .take_while(move |&a| f.pid(r, a) == f.pid(r, l) && f.tid(r, a) == f.tid(r, l))
    };
    let kernels = GpuOpsByCorrelation::new(f, r);
    let aten: Vec<bool> = r.strings.iter().map(|s| s.starts_with("aten::")).collect();
    let mut launches = launch_calls(f, r, false);
    // (stable: the rows come in runs already in order, which it merges)
    launches.sort_by_key(|&l| (f.ts_ns(r, l), l));
    let mut out = Vec::new();
    for l in launches {
        let op = ancestors(l).find(|&a| aten[f.name(r, a).0 as usize] && f.ts_ns(r, a) <= f.ts_ns(r, l) && end(a) >= end(l));
        let Some(op) = op else { continue };
        let ks = kernels.get(f.correlation(r, l));
        let Some(k) = ks.clone().min_by_key(|&k| (f.ts_ns(r, k), k)) else {
            result.launches_without_kernel += 1;
            continue;
        };
        if ks.len() > 1 {
            result.launches_with_several_kernels += 1;
        }
        out.push((op as u32, f.name(r, k), f.ts_ns(r, l) - f.ts_ns(r, op), f.ts_ns(r, k) - f.ts_ns(r, l)));
    }
    out
}

/// Parses `sort_by` (comma-separated column names).
fn sort_columns(s: &str) -> Result<Vec<usize>, AnalysisError> {
    let mut cols = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match COLUMNS.iter().position(|c| *c == part) {
            Some(c) => cols.push(c),
            None => return fail(format!("option 'sort_by': unknown column '{part}' (columns: {})", COLUMNS.join(", "))),
        }
    }
    if cols.is_empty() {
        cols.push(2);
    }
    Ok(cols)
}

/// Orders rows by `cols` descending, then by name and sequence ascending.
fn sort_rows(rows: &mut [AtenOpKernels], cols: &[usize]) {
    let cmp_col = |a: &AtenOpKernels, b: &AtenOpKernels, c: usize| match c {
        0 => b.aten_op_name.cmp(&a.aten_op_name),
        1 => b.kernel_sequence.cmp(&a.kernel_sequence),
        2 => b.occurrence_count.cmp(&a.occurrence_count),
        3 => b.avg_aten_op_launch_delay.total_cmp(&a.avg_aten_op_launch_delay),
        _ => b.avg_runtime_delay.total_cmp(&a.avg_runtime_delay),
    };
    rows.sort_by(|a, b| {
        cols.iter()
            .map(|&c| cmp_col(a, b, c))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.aten_op_name.cmp(&b.aten_op_name))
            .then_with(|| a.kernel_sequence.cmp(&b.kernel_sequence))
    });
}

fn run(ctx: &Context<'_>, p: &Params) -> Result<Report, AnalysisError> {
    let cols = sort_columns(p.str("sort_by"))?;
    let mut report = Report::default();
    for &pos in &ctx.selected {
        let f = &ctx.frames().ranks[pos];
        let mut res = match aten_op_kernels_and_delay(ctx, pos) {
            Ok(res) => res,
            Err(msg) => return fail(format!("rank {}: {msg}", f.rank)),
        };
        sort_rows(&mut res.rows, &cols);
        let rows = &res.rows;
        let mut t = Table::new(&format!("aten_op_kernels_and_delay__rank{}", f.rank))
            .with(COLUMNS[0], Unit::None, Values::Str(rows.iter().map(|x| &x.aten_op_name).collect()))
            .with(COLUMNS[1], Unit::None, Values::Str(rows.iter().map(|x| &x.kernel_sequence).collect()))
            .with(COLUMNS[2], Unit::Count, Values::Int(rows.iter().map(|x| x.occurrence_count).collect()))
            .with(COLUMNS[3], Unit::Us, Values::Float(rows.iter().map(|x| x.avg_aten_op_launch_delay).collect()))
            .with(COLUMNS[4], Unit::Us, Values::Float(rows.iter().map(|x| x.avg_runtime_delay).collect()));
        if ctx.hta {
            // the oracle's canonical order (HTA's own order is its sort_by, quicksort)
            t.sort_canonical(&["aten_op_name", "kernel_sequence"]);
        }
        report.tables.push(t);
        if rows.is_empty() && res.launches_without_kernel == 0 {
            report.notes.push(format!("rank {}: no kernel launch inside an ATen op", f.rank));
        }
        if res.launches_without_kernel > 0 {
            report.notes.push(format!(
                "rank {}: {} launch call(s) inside an ATen op have no GPU kernel in the trace and were skipped",
                f.rank, res.launches_without_kernel
            ));
        }
        if res.launches_with_several_kernels > 0 {
            report.notes.push(format!(
                "rank {}: {} launch call(s) have several GPU rows; the earliest was used",
                f.rank, res.launches_with_several_kernels
            ));
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hta_launch_regex() {
        assert!(hta_is_launch("cudaLaunchKernel"));
        assert!(hta_is_launch("cudaLaunchKernelExC"));
        assert!(hta_is_launch("cuLaunchKernelEx"));
        assert!(hta_is_launch("runFunction - job_prep_and_submit_for_execution"));
        assert!(!hta_is_launch("hipLaunchKernel"));
        assert!(!hta_is_launch("cudaMemcpyAsync"));
        assert!(!hta_is_launch("cuda\nLaunchKernel"));
    }

    #[test]
    fn end_tree_finds_last_and_first_reaching() {
        let t = EndTree::new(&[50, 10, 40, 30, 45]);
        assert_eq!(t.last_before(5, 40), Some(4));
        assert_eq!(t.last_before(4, 40), Some(2));
        assert_eq!(t.last_before(2, 40), Some(0));
        assert_eq!(t.last_before(5, 60), None);
        assert_eq!(t.first_in(1, 5, 35), Some(2));
        assert_eq!(t.first_in(3, 4, 35), None);
        assert_eq!(EndTree::new(&[]).last_before(0, 0), None);
    }

    #[test]
    fn sort_by_parses_and_orders() {
        assert_eq!(sort_columns("avg_runtime_delay, occurrence_count").unwrap(), vec![4, 2]);
        assert!(sort_columns("bogus").unwrap_err().0.contains("unknown column 'bogus'"));
        let row = |n: &str, c, d| AtenOpKernels {
            aten_op_name: n.into(),
            kernel_sequence: "k".into(),
            occurrence_count: c,
            avg_aten_op_launch_delay: d,
            avg_runtime_delay: 0.0,
        };
        let mut rows = vec![row("b", 1, 5.0), row("a", 2, 1.0), row("c", 2, 1.0)];
        sort_rows(&mut rows, &[2]);
        let names: Vec<&str> = rows.iter().map(|r| r.aten_op_name.as_str()).collect();
        assert_eq!(names, ["a", "c", "b"]);
        sort_rows(&mut rows, &[3]);
        assert_eq!(rows[0].aten_op_name, "b");
    }
}
