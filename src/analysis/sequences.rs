//! Frequent CUDA kernel sequences (HTA `get_frequent_cuda_kernel_sequences`, SPEC §2.13): the
//! sequences of kernels that calls of one CPU operator launch, how often each occurs and how long
//! its kernels and its operator calls take, plus a copy of the trace with the most frequent
//! sequences marked for Perfetto.
//!
//! Per rank, on the [`CallGraph`]:
//! 1. Candidates: events whose name contains `operator_name`.
//! 2. Roots: HTA keeps the candidates at the smallest depth among *all* candidates that launch at
//!    least `min_pattern_len` kernels (a candidate outside the graph has depth −1, which then
//!    leaves no root). Without `--hta`, roots are the outermost candidates (no candidate above
//!    them) in the graph that launch at least `min_pattern_len` kernels: one nested call is not
//!    counted twice, and calls at different depths all count.
//! 3. Per root: the pattern is the root's name followed by the names of the kernels below it in
//!    start order (ties by event index); `count` += 1, the GPU duration adds the kernels' total
//!    duration, the CPU duration adds the root's own duration.
//! 4. Patterns sorted by count (descending), then pattern text. The `top_k` first are charted and
//!    marked in the overlaid trace: each of their events (the roots, everything below them and
//!    their kernels) gets `args.Patterns = {pattern: count}`; with `compress_other_kernels`
//!    every other complete event loses its args and, when the trace has a `PyTorch Profiler`
//!    span to hold the table, its name is replaced by a symbol id (the span's args map ids to
//!    names), as HTA does.
//!
//! Differences without `--hta`: exact times (HTA's µs rounding gives −1 durations, on which it
//! raises, SPEC §5.3); the call graph's fixes (`call_graph` module docs; synchronisation events
//! are not kernels, §5.4); the root rule of step 2; every selected rank (HTA: one, default 0,
//! §5.11); patterns in HTA's returned order rather than the oracle's canonical order; an empty
//! result keeps its columns.

use rustc_hash::{FxHashMap, FxHashSet};

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::call_graph::CallGraph;
use super::hta_frame::HtaFrame;
use super::names::shorten_name;
use super::units::us;
use crate::model::events::flags;
use crate::model::{Phase, RankTrace, StrId};
use crate::table::{Chart, CompactNames, Marks, Report, TraceOut};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "sequences",
    title: "Frequent CUDA kernel sequences",
    about: "Kernel sequences an operator launches, by frequency, with a trace marking the top ones",
    hta_api: "get_frequent_cuda_kernel_sequences (SPEC §2.13)",
    group: Group::Kernels,
    options: &[
        Opt {
            name: "operator_name",
            kind: OptKind::Str,
            default: "",
            help: "CPU operator to look for, matched as a substring of event names (required), e.g. aten::linear",
        },
        Opt { name: "min_pattern_len", kind: OptKind::Int, default: "3", help: "Fewest kernels an operator call must launch to count" },
        Opt { name: "top_k", kind: OptKind::Int, default: "5", help: "Patterns to chart and mark in the overlaid trace" },
        Opt {
            name: "compress_other_kernels",
            kind: OptKind::Bool,
            default: "true",
            help: "In the overlaid trace, drop the args of events outside the top patterns and replace their names by symbol ids",
        },
        Opt {
            name: "rank",
            kind: OptKind::IntList,
            default: "",
            help: "Only these of the selected ranks (HTA analyses one rank, default 0)",
        },
    ],
    run,
};

/// Options of [`frequent_kernel_sequences`].
#[derive(Debug, Clone)]
pub struct SequenceOptions {
    /// Substring of the operator names to start from (HTA `operator_name`).
    pub operator_name: String,
    /// Fewest kernels below a root (HTA `min_pattern_len`, default 3).
    pub min_pattern_len: i64,
    /// Reproduce HTA 0.5.0 (module docs).
    pub hta: bool,
}

/// One kernel sequence and its occurrences.
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// Name of the operator at the root.
    pub root: StrId,
    /// Kernel names, in start order.
    pub kernels: Vec<StrId>,
    /// Occurrences.
    pub count: u64,
    /// Total duration of the kernels of all occurrences, ns.
    pub gpu_ns: i64,
    /// Total duration of the root operator calls, ns.
    pub cpu_ns: i64,
    /// Frame rows of every occurrence: roots, the events below them, their kernels (sorted).
    pub members: Vec<usize>,
}

impl Pattern {
    /// HTA's `pattern` text: the names joined with `|`.
    pub fn text(&self, r: &RankTrace) -> String {
        std::iter::once(self.root).chain(self.kernels.iter().copied()).map(|s| r.strings.get(s)).collect::<Vec<_>>().join("|")
    }
}

/// The kernel sequences of one rank's frame (module docs) from its call graph (built with
/// `opts.hta`), sorted by count (descending), then pattern text. `Err` where HTA 0.5.0 raises
/// (`--hta` only).
pub fn frequent_kernel_sequences(
    f: &HtaFrame,
    r: &RankTrace,
    graph: &CallGraph,
    opts: &SequenceOptions,
) -> Result<Vec<Pattern>, AnalysisError> {
    let op = opts.operator_name.as_str();
    // which names contain `op`, tested once per distinct name rather than once per row
    let name_matches: Vec<bool> = r.strings.iter().map(|n| n.contains(op)).collect();
    let named: Vec<usize> = (0..f.len()).filter(|&i| name_matches[f.name(r, i).0 as usize]).collect();
    let roots: Vec<usize> = if opts.hta {
        let min_depth = named.iter().map(|&i| graph.depth[i]).min();
        named
            .iter()
            .copied()
            .filter(|&i| Some(graph.depth[i]) == min_depth && i64::from(graph.num_kernels[i]) >= opts.min_pattern_len)
            .collect()
    } else {
        let candidate: FxHashSet<usize> = named.iter().copied().filter(|&i| graph.contains(i) && !graph.is_kernel(i)).collect();
        let outermost = |i: usize| {
            let mut at = graph.parent(i);
            for _ in 0..f.len() {
                match at {
                    Some(p) if candidate.contains(&p) => return false,
                    Some(p) => at = graph.parent(p),
                    None => return true,
                }
            }
            true
        };
        named
            .iter()
            .copied()
            .filter(|&i| candidate.contains(&i) && i64::from(graph.num_kernels[i]) >= opts.min_pattern_len && outermost(i))
            .collect()
    };
    let mut by_key: FxHashMap<(StrId, Vec<StrId>), Pattern> = FxHashMap::default();
    for root in roots {
        let members = if graph.is_kernel(root) {
            if graph.parent(root).is_none() {
                return fail(format!(
                    "ValueError: invalid node index -1 (kernel #{} has no launch; HTA 0.5.0 raises here)",
                    f.index(r, root)
                ));
            }
            vec![root]
        } else {
            if opts.hta && graph.stack_of(f.pid(r, root), f.tid(r, root)).is_none() {
                return fail(format!("StopIteration: no call stack for the thread of event #{} (HTA 0.5.0 raises here)", f.index(r, root)));
            }
            graph.descendants(root)
        };
        let mut kernels: Vec<usize> = members.iter().copied().filter(|&m| graph.is_kernel(m)).collect();
        kernels.sort_by_key(|&k| (f.ts_ns(r, k), f.index(r, k)));
        let key = (f.name(r, root), kernels.iter().map(|&k| f.name(r, k)).collect::<Vec<_>>());
        let p = by_key.entry(key.clone()).or_insert_with(|| Pattern {
            root: key.0,
            kernels: key.1,
            count: 0,
            gpu_ns: 0,
            cpu_ns: 0,
            members: Vec::new(),
        });
        p.count += 1;
        p.gpu_ns += graph.kernel_dur_sum.get(root);
        p.cpu_ns += f.dur_ns(r, root);
        p.members.extend(members);
    }
    let mut out: Vec<(String, Pattern)> = by_key
        .into_values()
        .map(|mut p| {
            p.members.sort_unstable();
            p.members.dedup();
            (p.text(r), p)
        })
        .collect();
    out.sort_by(|a, b| b.1.count.cmp(&a.1.count).then_with(|| a.0.cmp(&b.0)));
    Ok(out.into_iter().map(|(_, p)| p).collect())
}

/// How many patterns HTA marks: `patterns_df[:top_k]`, with `top_k` capped at the count.
fn top_len(top_k: i64, n: usize) -> usize {
    if top_k < 0 {
        n.saturating_sub(top_k.unsigned_abs() as usize)
    } else {
        (top_k as usize).min(n)
    }
}

/// The table-name form of an operator name: runs of characters other than letters, digits and
/// `_` become one `_` (`aten::copy_` → `aten_copy_`), as the oracle's file names show.
pub fn op_slug(op: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in op.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
            gap = false;
        } else if !gap {
            out.push('_');
            gap = true;
        }
    }
    out
}

/// What the overlaid trace adds to the rank (module docs, step 4): the events of the first `top`
/// patterns marked with `Patterns = {pattern: count}`; with `compress` (`compress_other_kernels`),
/// HTA's compression of the other events (args dropped; names replaced by symbol ids when a
/// `PyTorch Profiler` span can hold the symbol table).
pub fn overlay(f: &HtaFrame, r: &RankTrace, top: &[Pattern], compress: bool) -> (Marks, Option<CompactNames>) {
    let ev = &r.events;
    let mut marks = Marks::new();
    for p in top {
        let text = p.text(r);
        for &m in &p.members {
            marks.entry(f.row[m]).or_default().push((text.clone(), serde_json::Value::from(p.count)));
        }
    }
    if !compress {
        return (marks, None);
    }
    // HTA's symbol table: the categories and names of the rows it loads
    let mut symbols: Vec<&str> = Vec::new();
    let need = flags::HAS_DUR | flags::HAS_CAT;
    for e in 0..ev.len() {
        if ev.flags[e] & need == need && ev.phase[e] != Phase::Begin && r.cat(e as u32) != "Trace" {
            symbols.push(r.cat(e as u32));
            symbols.push(r.name(e as u32));
        }
    }
    symbols.sort_unstable();
    symbols.dedup();
    (marks, Some(CompactNames { span: symbol_span(r), symbols: symbols.into_iter().map(str::to_string).collect() }))
}

/// The `PyTorch Profiler` span (pid `Spans`) that holds the compressed trace's symbol table.
fn symbol_span(r: &RankTrace) -> Option<u32> {
    // each name tested once, not once per event until the span
    let named: Vec<bool> = r.strings.iter().map(|s| s.contains("PyTorch Profiler")).collect();
    (0..r.events.len()).find(|&e| named[r.events.name.get(e).0 as usize] && r.id_text(r.events.pid.get(e)) == "Spans").map(|e| e as u32)
}

/// `overlaid_<file name>`, ending in `.gz` (HTA writes gzip whatever the name says).
fn overlaid_name(r: &RankTrace) -> String {
    let base = r.files.first().map(|p| crate::model::base_name(p).to_string()).unwrap_or_else(|| format!("rank{}.json", r.rank));
    if base.ends_with(".gz") {
        format!("overlaid_{base}")
    } else {
        format!("overlaid_{base}.gz")
    }
}

/// A chart label for a pattern: its index, root and shortened kernel names, at most 80 chars.
fn label(i: usize, p: &Pattern, r: &RankTrace) -> String {
    let kernels: Vec<String> = p.kernels.iter().map(|&k| shorten_name(r.strings.get(k))).collect();
    let text = format!("{i}: {} → {}", r.strings.get(p.root), kernels.join(" → "));
    if text.chars().count() > 80 {
        text.chars().take(79).collect::<String>() + "…"
    } else {
        text
    }
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let op = params.str("operator_name").to_string();
    if op.is_empty() {
        return fail(
            "option 'operator_name' is required: the CPU operator whose kernel sequences to find, e.g. --operator-name aten::linear",
        );
    }
    let opts = SequenceOptions { operator_name: op.clone(), min_pattern_len: params.int("min_pattern_len"), hta: ctx.hta };
    let only = params.int_list("rank");
    if let Some(want) = &only {
        if let Some(w) = want.iter().find(|&&w| !ctx.ranks().any(|(f, _)| i64::from(f.rank) == w)) {
            return fail(format!("rank {w} is not among the selected ranks"));
        }
    }
    let top_k = params.int("top_k");
    let compress = params.bool("compress_other_kernels");
    let mut report = Report::default();
    for &pos in &ctx.selected {
        let (f, r) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos]);
        if !only.as_ref().is_none_or(|w| w.contains(&i64::from(f.rank))) {
            continue;
        }
        let graph = ctx.call_graph(pos);
        let graph =
            graph.as_ref().as_ref().map_err(|e| AnalysisError(format!("{e} (HTA 0.5.0 raises here; run without --hta for a result)")))?;
        let patterns = frequent_kernel_sequences(f, r, graph, &opts)?;
        let name = format!("frequent_cuda_kernel_sequences__{}__rank{}", op_slug(&op), f.rank);
        if patterns.is_empty() {
            report.notes.push(format!("rank {}: no operator named like '{op}' launches {} or more kernels", f.rank, opts.min_pattern_len));
            // HTA returns an empty DataFrame (no columns)
            report.tables.push(if ctx.hta { Table::new(&name) } else { table(&name, &[], r) });
            continue;
        }
        let mut t = table(&name, &patterns, r);
        if ctx.hta {
            t.sort_canonical(&["count"]);
        }
        report.tables.push(t);
        let top = &patterns[..top_len(top_k, patterns.len())];
        // the marks repeat a pattern's text on each of its rows: made only for a trace to write
        let (marks, compact) = if ctx.traces { overlay(f, r, top, compress) } else { (Marks::new(), None) };
        if compress && compact.as_ref().map_or_else(|| symbol_span(r), |c| c.span).is_none() {
            report.notes.push(format!("rank {}: the trace has no 'PyTorch Profiler' span to hold a symbol table, so names in the overlaid trace are not compressed", f.rank));
        }
        report.traces.push(TraceOut { name: overlaid_name(r), rank: pos, marks, compact, ..Default::default() });
        report.charts.push(Chart::Bars {
            title: format!("Top {} frequent patterns for rank {}", top.len(), f.rank),
            x_label: "pattern".into(),
            y_label: "count".into(),
            categories: top.iter().enumerate().map(|(i, p)| label(i, p, r)).collect(),
            values: top.iter().map(|p| p.count as f64).collect(),
            errors: None,
        });
    }
    Ok(report)
}

/// The result table (HTA's columns).
fn table(name: &str, patterns: &[Pattern], r: &RankTrace) -> Table {
    Table::new(name)
        .with("pattern", Unit::None, Values::Str(patterns.iter().map(|p| p.text(r)).collect()))
        .with("count", Unit::Count, Values::Int(patterns.iter().map(|p| p.count as i64).collect()))
        .with("GPU kernel duration (us)", Unit::Us, Values::Float(patterns.iter().map(|p| us(p.gpu_ns)).collect()))
        .with("CPU op duration (us)", Unit::Us, Values::Float(patterns.iter().map(|p| us(p.cpu_ns)).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_match_the_oracle_file_names() {
        assert_eq!(op_slug("aten::linear"), "aten_linear");
        assert_eq!(op_slug("aten::copy_"), "aten_copy_");
        assert_eq!(op_slug("## fwd ##"), "_fwd_");
    }

    #[test]
    fn top_k_slices_like_python() {
        assert_eq!(top_len(5, 3), 3);
        assert_eq!(top_len(2, 3), 2);
        assert_eq!(top_len(0, 3), 0);
        assert_eq!(top_len(-1, 3), 2);
        assert_eq!(top_len(-9, 3), 0);
    }
}
