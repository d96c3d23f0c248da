//! Critical path of a step (HTA `critical_path_analysis` and `overlay_critical_path_analysis`,
//! SPEC §2.17–§2.18): what bounded the chosen annotation instance (or the whole rank): CPU
//! operators, kernel launches, GPU work, or synchronisation.
//!
//! One rank. The window ([`window`]) is an annotation's instances; the graph ([`graph`],
//! [`gpu`]) has a node at the start and at the end of every operator, runtime call and GPU
//! operation in it, and edges for nesting and order on each CPU thread, the span of each GPU
//! operation, launch delays, gaps between operations of a stream and synchronisations; its
//! longest path ([`longest`]) is the critical path; `charts` draws it. Tables (HTA mode: the
//! oracle's files):
//! * `critical_path_breakdown`: one row per path edge: the event its time belongs to
//!   (`event_idx`, `s_name`, `cat`, `pid`, `tid`, `stream`, `index`), `duration` µs, `type` and
//!   `bound_by` (`cpu_bound`, `gpu_compute_bound`, `gpu_communication_bound` for `^nccl.*Kernel`,
//!   `gpu_kernel_launch_overhead`, `gpu_kernel_kernel_overhead`, `""` for zero-weight
//!   dependencies). Without `--hta` in path order with the edge's `start` and `end`; with
//!   `--hta` in the oracle's row order.
//! * `critical_path_summary`: % of the path's length per `bound_by` (and µs without `--hta`).
//! * `critical_path_by_event`: time on the path per event name and `bound_by`, longest first.
//! * `critical_path_info`: rank, annotation, instances, window, graph size, path length, and the
//!   overlay's counts.
//! * `critical_path_graph_edges` (with `--hta`, or `--edges`): every edge in event terms.
//! * `critical_path_overlay_flows`: the flow arrows the overlay adds (path edges that are
//!   dependencies, launch delays and synchronisations).
//!
//! The overlay (`Report::traces`, `--overlay FILE` or `--out DIR`) is the rank's trace with
//! `args.critical = 1` on every event of the path and a flow arrow (`ph: s`/`f`, name
//! `critical_path`, cat = edge type, args `weight`, `critical`) per arrow row; with
//! `only_critical` (HTA's default) complete events off the path are left out, annotations and
//! Python frames kept.
//!
//! Fixed without `--hta` (SPEC §5.13 and the module docs of [`gpu`] and [`window`]): exact ns
//! times; instances in time order, CPU rows only; launches by correlation (HIP names,
//! `cuLaunchKernelEx`, CUDA graph launches); blocking HIP and driver calls; inferred
//! synchronisation on ranks without `cuda_sync` events; a same-stream wait left out instead of
//! failing; a rank without GPU work gets its CPU path; the breakdown reports the weights the
//! path was measured with (HTA reports a clamped negative weight unclamped, so its rows do not
//! sum to the path).

mod charts;
pub mod gpu;
pub mod graph;
pub mod longest;
pub mod window;

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::hta_frame::{ns_to_us_f64, HtaFrame};
use super::names::ShortNames;
use super::units::us;
use crate::model::{IntArg, Kind, RankTrace};
use crate::table::{FlowEvent, Marks, Report, ReportFile, Table, Texts, TraceOut, Unit, Values};
use charts::{bound_chart, timeline_chart};
use graph::{EdgeKind, Graph};
use window::{Instances, Window};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "critical_path",
    title: "Critical path",
    about: "What bounded a step: the longest chain of CPU work, launches, GPU work and synchronisation through one annotation instance of a rank",
    hta_api: "critical_path_analysis, overlay_critical_path_analysis (SPEC §2.17, §2.18)",
    group: Group::LaunchCpu,
    options: &[
        Opt { name: "rank", kind: OptKind::Str, default: "", help: "Rank to analyse (default: the first selected rank)" },
        Opt {
            name: "annotation",
            kind: OptKind::Str,
            default: "auto",
            help: "Annotation whose instances make the window (substring of the name, e.g. ProfilerStep); '' for the whole rank; auto: ProfilerStep if the rank has steps, else the whole rank",
        },
        Opt { name: "instance", kind: OptKind::Str, default: "0", help: "Instance of the annotation, from 0, or a range such as 0-3" },
        Opt {
            name: "only_critical",
            kind: OptKind::Bool,
            default: "true",
            help: "Overlay: leave out complete events off the path (annotations and Python frames stay)",
        },
        Opt { name: "edges", kind: OptKind::Bool, default: "false", help: "Also list every graph edge (always with --hta)" },
        Opt {
            name: "max_events",
            kind: OptKind::Int,
            default: "4000000",
            help: "Most events in the window: a larger graph is refused (about 200 bytes per event)",
        },
        Opt {
            name: "overlay",
            kind: OptKind::OutFile,
            default: "",
            help: "Write the overlaid trace (critical events flagged, flow arrows along the path) to FILE (.json, or gzip if .gz)",
        },
    ],
    run,
};

/// Bytes of graph per event in the window (nodes, edges, maps), for the size limit's message.
const BYTES_PER_EVENT: u64 = 200;

/// The critical path of one rank's window.
#[derive(Debug, Clone)]
pub struct CriticalPath {
    /// Rank number.
    pub rank: u32,
    /// Position of the rank in the trace.
    pub pos: usize,
    /// Annotation used (after `auto`).
    pub annotation: String,
    /// Instances.
    pub instances: Instances,
    /// The window.
    pub window: Window,
    /// Frame rows in the window, in `index` order.
    pub rows: Vec<usize>,
    /// The graph.
    pub graph: Graph,
    /// Path edges, in order.
    pub path: Vec<u32>,
    /// GPU half statistics.
    pub gpu: gpu::GpuStats,
    /// Built in HTA mode.
    pub hta: bool,
}

impl CriticalPath {
    /// Length of the path, ns: the sum of the weights the breakdown reports (HTA: as built,
    /// negative ones included; else as measured).
    pub fn length(&self) -> i64 {
        self.path.iter().map(|&e| self.weight(e)).sum()
    }

    /// The weight the tables report for edge `e` (see [`CriticalPath::length`]).
    pub fn weight(&self, e: u32) -> i64 {
        let edge = &self.graph.edges[e as usize];
        if self.hta {
            edge.weight
        } else {
            edge.graph_weight
        }
    }

    /// Time between the path's events that no edge weighs, ns: the spans of its dependency and
    /// sync edges (a thread idle or in untraced code between two top-level events; a waiting
    /// call returning after the GPU work it waited for).
    pub fn untraced(&self) -> i64 {
        let g = &self.graph;
        self.path
            .iter()
            .map(|&e| &g.edges[e as usize])
            .filter(|e| matches!(e.kind, EdgeKind::Dependency | EdgeKind::Sync))
            .map(|e| (g.nodes[e.dst as usize].ts - g.nodes[e.src as usize].ts).max(0))
            .sum()
    }

    /// Events of the path (frame rows), each once, in path order.
    pub fn events(&self) -> Vec<u32> {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        let nodes = self
            .path
            .first()
            .map(|&e| self.graph.edges[e as usize].src)
            .into_iter()
            .chain(self.path.iter().map(|&e| self.graph.edges[e as usize].dst));
        for n in nodes {
            let row = self.graph.nodes[n as usize].row;
            if seen.insert(row) {
                out.push(row);
            }
        }
        out
    }
}

/// Which rows get nodes: operators, runtime and driver calls, and GPU operations (HTA: cats
/// `cpu_op`, `cuda_runtime`, `cuda_driver`, and GPU rows with `index_correlation >= 0`).
fn has_nodes(f: &HtaFrame, r: &RankTrace, i: usize, hta: bool) -> bool {
    if hta {
        return matches!(r.strings.get(f.cat(r, i)), "cpu_op" | "cuda_runtime" | "cuda_driver")
            || f.stream(r, i) != -1 && f.index_correlation(r, i) >= 0;
    }
    let kind = r.events.kind[f.row[i] as usize];
    if f.stream(r, i) == -1 {
        matches!(kind, Kind::CpuOp | Kind::Runtime | Kind::Driver | Kind::MtiaRuntime)
    } else {
        kind.is_device() && !matches!(kind, Kind::GpuUserAnnotation | Kind::CudaSync)
    }
}

/// The critical path of rank position `pos` (module docs). `Err` for an unknown annotation or
/// instance, a window over `max_events`, and where HTA 0.5.0 fails (with `hta`).
pub fn critical_path(
    ctx: &Context<'_>,
    pos: usize,
    annotation: &str,
    inst: Instances,
    max_events: usize,
) -> Result<CriticalPath, AnalysisError> {
    let hta = ctx.hta;
    let (f, r) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos]);
    let annotation = if annotation == "auto" {
        // each name tested once, not once per row until the first step
        let step: Vec<bool> = r.strings.iter().map(|s| s.contains("ProfilerStep")).collect();
        if (0..f.len()).any(|i| f.stream(r, i) == -1 && step[f.name(r, i).0 as usize]) {
            "ProfilerStep"
        } else {
            ""
        }
    } else {
        annotation
    };
    let w = window::window(f, r, annotation, inst, hta)?;
    let none = super::launches::Launchers::default();
    let launcher = if hta { &none } else { ctx.launchers(pos) };
    let rows = window::rows_in(f, r, w, hta, launcher);
    if rows.len() > max_events {
        return fail(format!(
            "the window of rank {} ({}) has {} events; its graph would take about {} MB, over the limit of {max_events} events (max_events): pick a shorter window (annotation, instance) or, on the command line, raise --max-events",
            f.rank,
            describe_window(annotation, inst),
            rows.len(),
            rows.len() as u64 * BYTES_PER_EVENT / 1_000_000
        ));
    }
    // HTA's queue-length series of the whole rank (its launch test; `None` in HTA when empty)
    let queue = if hta { super::queue::queue_points(ctx, pos).unwrap_or_default() } else { Vec::new() };
    if hta {
        hta_preconditions(f, r, &rows, &queue)?;
    }
    let node_rows: Vec<usize> = rows.iter().copied().filter(|&i| has_nodes(f, r, i, hta)).collect();
    let mut g = Graph::new(f, r, &node_rows, if hta { -1000 } else { -1 });
    let blocking = |i: usize| gpu::is_blocking(r.strings.get(f.name(r, i)), hta);
    graph::add_cpu_edges(&mut g, f, r, &rows, &blocking);
    let gpu = gpu::add_gpu_edges(&mut g, f, r, &rows, hta, launcher, &queue)
        .map_err(|e| AnalysisError(format!("rank {}: {e} (HTA 0.5.0 fails here; run without --hta)", f.rank)))?;
    if hta {
        let same_stream = g.edges.iter().find(|e| {
            let stream = |n: u32| f.stream(r, g.nodes[n as usize].row as usize);
            e.kind == EdgeKind::Sync && stream(e.src) != -1 && stream(e.src) == stream(e.dst)
        });
        if let Some(e) = same_stream {
            let idx = |n: u32| f.index(r, g.nodes[n as usize].row as usize);
            return fail(format!(
                "rank {}: ValueError: Graph is not valid: a synchronization edge between kernels #{} and #{} on the same stream (HTA 0.5.0 fails here; run without --hta)",
                f.rank,
                idx(e.src),
                idx(e.dst)
            ));
        }
    }
    let path = match longest::longest_path(&g) {
        Ok((path, _)) => path,
        Err(n) => {
            let row = g.nodes.get(n as usize).map_or(0, |x| x.row as usize);
            return fail(format!(
                "rank {}: the graph has a cycle through event #{} ({}): events overlap in a way time cannot order{}",
                f.rank,
                if row < f.len() { f.index(r, row) } else { 0 },
                r.strings.get(f.name(r, row)),
                if hta { " (HTA 0.5.0 raises ValueError: Graph is not valid)" } else { "" }
            ));
        }
    };
    if hta && path.is_empty() {
        return fail(format!(
            "rank {}: AssertionError: the critical path has fewer than 2 nodes (HTA 0.5.0 fails here; run without --hta)",
            f.rank
        ));
    }
    Ok(CriticalPath { rank: f.rank, pos, annotation: annotation.to_string(), instances: inst, window: w, rows, graph: g, path, gpu, hta })
}

/// Where HTA 0.5.0 fails before building anything: no launches in the rank (its queue-length
/// series is `None`), and a GPU row repeated by its step filter (SPEC §5.9) in the window.
fn hta_preconditions(f: &HtaFrame, r: &RankTrace, rows: &[usize], queue: &[super::queue::QueuePoint]) -> Result<(), AnalysisError> {
    if queue.is_empty() {
        return fail(format!(
            "rank {}: TypeError: 'NoneType' object is not subscriptable: no kernel launches HTA knows in the rank (HTA 0.5.0 fails here; run without --hta for the CPU path)",
            f.rank
        ));
    }
    let mut seen = rustc_hash::FxHashSet::default();
    if rows.iter().any(|&i| f.stream(r, i) > 0 && !seen.insert(f.index(r, i))) {
        return fail(format!(
            "rank {}: ValueError: cannot reindex on an axis with duplicate labels: a GPU event repeated by HTA's step filter (SPEC §5.9) is in the window (HTA 0.5.0 fails here; run without --hta)",
            f.rank
        ));
    }
    Ok(())
}

fn describe_window(annotation: &str, inst: Instances) -> String {
    if annotation.is_empty() {
        "the whole rank".into()
    } else {
        format!("'{annotation}' instance {inst}")
    }
}

/// HTA's `bound_by` of a path edge.
fn bound_by(kind: EdgeKind, stream: Option<i64>, short_name: &str) -> &'static str {
    match kind {
        EdgeKind::KernelKernelDelay => "gpu_kernel_kernel_overhead",
        EdgeKind::LaunchDelay => "gpu_kernel_launch_overhead",
        EdgeKind::Dependency | EdgeKind::Sync => "",
        EdgeKind::Operator if stream.is_some_and(|s| s < 0) => "cpu_bound",
        EdgeKind::Operator if short_name.starts_with("nccl") && short_name[4..].contains("Kernel") => "gpu_communication_bound",
        EdgeKind::Operator => "gpu_compute_bound",
    }
}

/// The µs value of ns in a table: HTA's µs are whole, ours may have decimals.
fn us_col(v: impl Iterator<Item = i64>) -> Values {
    Values::Float(v.map(us).collect())
}

/// A µs value in JSON: an integer when whole.
fn json_us(v: f64) -> serde_json::Value {
    if v.fract() == 0.0 && v.abs() < 9e15 {
        serde_json::Value::from(v as i64)
    } else {
        serde_json::Value::from(v)
    }
}

/// ns as µs text for titles: whole µs, or one decimal below 100 µs.
fn fmt_us(ns: i64) -> String {
    if ns.abs() < 100_000 {
        format!("{:.1}", us(ns))
    } else {
        format!("{}", (ns as f64 / 1000.0).round() as i64)
    }
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let pos = match params.str("rank") {
        "" => *ctx.selected.first().ok_or_else(|| AnalysisError("no rank selected".into()))?,
        s => {
            let want: i64 = s.trim().parse().or_else(|_| fail(format!("option 'rank': expected a rank number, found '{s}'")))?;
            let have: Vec<String> = ctx.selected.iter().map(|&p| ctx.trace.ranks[p].rank.to_string()).collect();
            *ctx.selected
                .iter()
                .find(|&&p| i64::from(ctx.trace.ranks[p].rank) == want)
                .ok_or_else(|| AnalysisError(format!("option 'rank': rank {want} is not in the trace (ranks: {})", have.join(", "))))?
        }
    };
    let inst = Instances::parse(params.str("instance"))?;
    let max_events = usize::try_from(params.int("max_events")).unwrap_or(0);
    let cp = critical_path(ctx, pos, params.str("annotation"), inst, max_events)?;
    let (f, r) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos]);
    let mut report = Report::default();
    let rows = path_rows(&cp, f, r);
    let breakdown = breakdown_table(&cp, f, r, &rows);
    report.tables.push(summary_table(&cp, &rows));
    report.tables.push(by_event_table(&cp, &rows));
    let flows = flows(&cp, f, r);
    let overlay = overlay(&cp, f, r, &flows, params.bool("only_critical"));
    report.tables.push(info_table(&cp, &overlay));
    report.files.push(ReportFile { name: "critical_path_info.json".into(), bytes: info_json(&cp, &overlay).into_bytes() });
    if ctx.hta || params.bool("edges") {
        report.tables.push(edges_table(&cp, f, r));
    }
    report.tables.push(flows_table(&cp, f, r, &flows));
    report.charts.push(timeline_chart(&cp, f, r));
    report.charts.push(bound_chart(&cp, &rows));
    report.tables.insert(0, breakdown);
    report.traces.push(overlay.trace);
    if cp.gpu.unconnected > 0 {
        report.notes.push(format!(
            "{} GPU operation{} got no incoming edge (no launch, no previous operation on the stream)",
            cp.gpu.unconnected,
            if cp.gpu.unconnected == 1 { "" } else { "s" }
        ));
    }
    if cp.gpu.inferred_syncs > 0 {
        report.notes.push(format!(
            "rank {} has no cuda_sync events: {} synchronisation edge{} inferred from blocking calls (device, stream and event synchronisation, synchronous copies)",
            cp.rank,
            cp.gpu.inferred_syncs,
            if cp.gpu.inferred_syncs == 1 { "" } else { "s" }
        ));
    }
    if cp.gpu.same_stream_waits > 0 {
        report.notes.push(format!(
            "{} wait(s) between operations of one stream left out (stream order implies them; HTA rejects the graph)",
            cp.gpu.same_stream_waits
        ));
    }
    let (untraced, window) = (cp.untraced(), cp.window.end.saturating_sub(cp.window.start));
    if untraced > 0 && window < i64::MAX && untraced * 10 > window {
        report.notes.push(format!(
            "{} µs of the path lies between its events (untraced: a thread idle or in code the profiler did not record, or a waiting call returning late); the window is {} µs",
            fmt_us(untraced),
            fmt_us(window)
        ));
    }
    if cp.path.is_empty() {
        report.notes.push(format!("rank {}: the window has no operators or GPU work to build a path from", cp.rank));
    }
    Ok(report)
}

/// `critical_path_breakdown` (module docs).
fn breakdown_table(cp: &CriticalPath, f: &HtaFrame, r: &RankTrace, rows: &[PathRow]) -> Table {
    let g = &cp.graph;
    let n = cp.path.len();
    let (mut event_idx, mut duration, mut pid, mut tid, mut stream) =
        (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    let (mut start, mut end, mut cat) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
    for (&e, row) in cp.path.iter().zip(rows) {
        let edge = &g.edges[e as usize];
        let ev = edge.event.map(|x| x as usize);
        event_idx.push(ev.map_or(f64::NAN, |i| f64::from(f.index(r, i))));
        duration.push(row.weight);
        cat.push(ev.map(|i| f.cat(r, i)));
        pid.push(ev.map(|i| f.pid(r, i)));
        tid.push(ev.map(|i| f.tid(r, i)));
        stream.push(ev.map_or(f64::NAN, |i| f.stream(r, i) as f64));
        start.push(g.nodes[edge.src as usize].ts);
        end.push(g.nodes[edge.dst as usize].ts);
    }
    // the text columns made as tables keep them (each distinct value once), not a `String` a row
    let kind: Texts = cp.path.iter().map(|&e| g.edges[e as usize].kind.hta_name()).collect();
    let s_name: Texts = rows.iter().map(|row| row.name.as_str()).collect();
    let bound: Texts = rows.iter().map(|row| row.bound_by).collect();
    let s_cat = Texts::by_key(cat, |c| c.map_or("", |c| r.strings.get(c)));
    // each distinct id formatted once; a path step without an event has none
    let ids = |v: Vec<Option<u32>>| Values::Str(Texts::by_key(v, |i| i.map(|i| r.id_text(i)).unwrap_or_default()));
    let mut t = Table::new("critical_path_breakdown");
    if !cp.hta {
        t = t.with("step", Unit::None, Values::Int((0..n as i64).collect()));
    }
    t = t
        .with("event_idx", Unit::None, Values::Float(event_idx.clone()))
        .with("duration", Unit::Us, us_col(duration.into_iter()))
        .with("type", Unit::None, Values::Str(kind))
        .with("s_name", Unit::None, Values::Str(s_name))
        .with("pid", Unit::None, ids(pid))
        .with("tid", Unit::None, ids(tid))
        .with("stream", Unit::None, Values::Float(stream))
        .with("index", Unit::None, Values::Float(event_idx))
        .with("bound_by", Unit::None, Values::Str(bound))
        .with("s_cat", Unit::None, Values::Str(s_cat));
    if cp.hta {
        t.sort_canonical(&["event_idx", "type"]);
    } else {
        t = t.with("start", Unit::Us, us_col(start.into_iter())).with("end", Unit::Us, us_col(end.into_iter()));
    }
    t
}

/// One path edge as the summaries see it: what bounded it, its event's short name, its weight.
struct PathRow {
    bound_by: &'static str,
    name: String,
    weight: i64,
}

fn path_rows(cp: &CriticalPath, f: &HtaFrame, r: &RankTrace) -> Vec<PathRow> {
    let mut short = ShortNames::default();
    cp.path
        .iter()
        .map(|&e| {
            let edge = &cp.graph.edges[e as usize];
            let ev = edge.event.map(|x| x as usize);
            let name = ev.map(|i| short.get(r, f.name(r, i)).to_string()).unwrap_or_default();
            PathRow { bound_by: bound_by(edge.kind, ev.map(|i| f.stream(r, i)), &name), name, weight: cp.weight(e) }
        })
        .collect()
}

/// `critical_path_summary`: % of the path per `bound_by` (HTA's `summary()`), keys ascending.
fn summary_table(cp: &CriticalPath, rows: &[PathRow]) -> Table {
    let mut sums: std::collections::BTreeMap<&str, i64> = Default::default();
    for x in rows {
        *sums.entry(x.bound_by).or_default() += x.weight;
    }
    let total = cp.length() as f64;
    let mut t = Table::new("critical_path_summary").with("bound_by", Unit::None, Values::Str(sums.keys().collect())).with(
        "pct_of_critical_path",
        Unit::Percent,
        Values::Float(sums.values().map(|&v| v as f64 / total * 100.0).collect()),
    );
    if !cp.hta {
        t = t.with("duration", Unit::Us, us_col(sums.values().copied()));
    }
    t
}

/// `critical_path_by_event`: time on the path per event name and `bound_by`, longest first.
fn by_event_table(cp: &CriticalPath, rows: &[PathRow]) -> Table {
    let mut sums: FxHashMap<(&str, &str), (i64, i64)> = FxHashMap::default();
    for x in rows.iter().filter(|x| !x.name.is_empty()) {
        let s = sums.entry((x.name.as_str(), x.bound_by)).or_default();
        s.0 += x.weight;
        s.1 += 1;
    }
    let total = cp.length() as f64;
    type Row<'a> = ((&'a str, &'a str), (i64, i64));
    let mut rows: Vec<Row> = sums.into_iter().collect();
    rows.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then_with(|| a.0.cmp(&b.0)));
    Table::new("critical_path_by_event")
        .with("s_name", Unit::None, Values::Str(rows.iter().map(|r| r.0 .0).collect()))
        .with("bound_by", Unit::None, Values::Str(rows.iter().map(|r| r.0 .1).collect()))
        .with("duration", Unit::Us, us_col(rows.iter().map(|r| r.1 .0)))
        .with("edges", Unit::Count, Values::Int(rows.iter().map(|r| r.1 .1).collect()))
        .with("pct_of_critical_path", Unit::Percent, Values::Float(rows.iter().map(|r| r.1 .0 as f64 / total * 100.0).collect()))
}

/// `critical_path_graph_edges`: every edge in event terms.
fn edges_table(cp: &CriticalPath, f: &HtaFrame, r: &RankTrace) -> Table {
    let g = &cp.graph;
    let on_path: rustc_hash::FxHashSet<u32> = cp.path.iter().copied().collect();
    let node = |n: u32| g.nodes[n as usize];
    let b = |v: bool| if v { "True" } else { "False" }.to_string();
    let e = &g.edges;
    let mut t = Table::new("critical_path_graph_edges")
        .with("src_event", Unit::None, Values::Int(e.iter().map(|x| i64::from(f.index(r, node(x.src).row as usize))).collect()))
        .with("src_is_start", Unit::None, Values::Str(e.iter().map(|x| b(node(x.src).start)).collect()))
        .with("src_ts", Unit::Us, us_col(e.iter().map(|x| node(x.src).ts)))
        .with("dst_event", Unit::None, Values::Int(e.iter().map(|x| i64::from(f.index(r, node(x.dst).row as usize))).collect()))
        .with("dst_is_start", Unit::None, Values::Str(e.iter().map(|x| b(node(x.dst).start)).collect()))
        .with("dst_ts", Unit::Us, us_col(e.iter().map(|x| node(x.dst).ts)))
        .with("type", Unit::None, Values::Str(e.iter().map(|x| x.kind.hta_name()).collect()))
        .with("weight", Unit::Us, us_col(e.iter().map(|x| x.graph_weight)))
        .with(
            "attributed_event",
            Unit::None,
            Values::Float(e.iter().map(|x| x.event.map_or(f64::NAN, |i| f64::from(f.index(r, i as usize)))).collect()),
        )
        .with("on_critical_path", Unit::None, Values::Str((0..e.len() as u32).map(|i| b(on_path.contains(&i))).collect()));
    t.sort_canonical(&["src_ts"]);
    t
}

/// One flow arrow of the overlay: a path edge that is a dependency, launch delay or sync.
#[derive(Debug, Clone)]
struct Flow {
    edge: u32,
    /// (frame row, time µs as written) of each end.
    src: (usize, f64),
    dst: (usize, f64),
}

/// The overlay's arrows, in path order. Each end sits at its node's time on the trace's clock;
/// the end of a GPU event moves back by min(1 µs, its duration) so that viewers bind the arrow
/// to the event. HTA writes `int()` of its float µs.
fn flows(cp: &CriticalPath, f: &HtaFrame, r: &RankTrace) -> Vec<Flow> {
    let g = &cp.graph;
    let at = |n: u32| -> (usize, f64) {
        let node = g.nodes[n as usize];
        let row = node.row as usize;
        let e = f.row[row];
        let (ts, dur) = (r.events.ts[e as usize], r.events.dur.get(e as usize));
        let device = r.events.int_arg(e, IntArg::Device).is_some_and(|d| d >= 0);
        let t = if cp.hta {
            let (t, d) = (ns_to_us_f64(ts), ns_to_us_f64(dur));
            let v = if node.start { t } else { t + d - if device { d.min(1.0) } else { 0.0 } };
            v.trunc()
        } else {
            let v = if node.start { ts } else { ts + dur - if device { dur.min(1000) } else { 0 } };
            us(v)
        };
        (row, t)
    };
    cp.path
        .iter()
        .filter(|&&e| matches!(g.edges[e as usize].kind, EdgeKind::Dependency | EdgeKind::LaunchDelay | EdgeKind::Sync))
        .map(|&e| Flow { edge: e, src: at(g.edges[e as usize].src), dst: at(g.edges[e as usize].dst) })
        .collect()
}

/// `critical_path_overlay_flows`.
fn flows_table(cp: &CriticalPath, f: &HtaFrame, r: &RankTrace, flows: &[Flow]) -> Table {
    let ids = |sel: &dyn Fn(&Flow) -> usize, tid: bool| -> Values {
        Values::Str(Texts::by_key(flows.iter().map(|x| if tid { f.tid(r, sel(x)) } else { f.pid(r, sel(x)) }), |i| r.id_text(i)))
    };
    let mut t = Table::new("critical_path_overlay_flows")
        .with("cat", Unit::None, Values::Str(flows.iter().map(|x| cp.graph.edges[x.edge as usize].kind.hta_name()).collect()))
        .with("src_pid", Unit::None, ids(&|x| x.src.0, false))
        .with("src_tid", Unit::None, ids(&|x| x.src.0, true))
        .with("src_ts", Unit::Us, Values::Float(flows.iter().map(|x| x.src.1).collect()))
        .with("dst_pid", Unit::None, ids(&|x| x.dst.0, false))
        .with("dst_tid", Unit::None, ids(&|x| x.dst.0, true))
        .with("dst_ts", Unit::Us, Values::Float(flows.iter().map(|x| x.dst.1).collect()))
        .with("weight", Unit::Us, us_col(flows.iter().map(|x| cp.weight(x.edge))))
        .with("critical", Unit::None, Values::Str(flows.iter().map(|_| "True").collect()));
    if cp.hta {
        t.sort_canonical(&["src_ts"]);
    }
    t
}

/// The overlay trace and the counts HTA's file would have.
struct Overlay {
    trace: TraceOut,
    /// Events of the path that exist in the file (their `index`es), ascending.
    critical_indexes: Vec<u32>,
    /// Events in the input file's array (HTA's raw event count).
    raw_events: u64,
    /// Flow events written (2 per arrow).
    flow_events: usize,
}

fn overlay(cp: &CriticalPath, f: &HtaFrame, r: &RankTrace, flows: &[Flow], only_critical: bool) -> Overlay {
    let events = cp.events();
    let mut marks = Marks::new();
    let mut critical_indexes: Vec<u32> = Vec::with_capacity(events.len());
    for &row in &events {
        marks.insert(f.row[row as usize], vec![("critical".into(), serde_json::Value::from(1))]);
        critical_indexes.push(f.index(r, row as usize));
    }
    critical_indexes.sort_unstable();
    critical_indexes.dedup();
    let mut flow_events = Vec::with_capacity(flows.len() * 2);
    for (id, x) in flows.iter().enumerate() {
        for (start, (row, ts)) in [(true, x.src), (false, x.dst)] {
            flow_events.push(FlowEvent {
                id: id as u64,
                pid: f.pid(r, row),
                tid: f.tid(r, row),
                ts_us: ts,
                start,
                name: "critical_path".into(),
                cat: cp.graph.edges[x.edge as usize].kind.hta_name().into(),
                weight: us(cp.weight(x.edge)),
                critical: true,
            });
        }
    }
    let file = r.files.first().map(String::as_str).unwrap_or_default();
    let base = crate::model::base_name(file);
    // HTA's name (`overlaid_critical_path_<trace file>`), gzip as HTA writes it, so `.gz` is
    // added when the input's name lacks it
    let name = match base {
        "" => format!("overlaid_critical_path_rank{}.json.gz", r.rank),
        b if b.ends_with(".gz") => format!("overlaid_critical_path_{b}"),
        b => format!("overlaid_critical_path_{b}.gz"),
    };
    let n = flow_events.len();
    Overlay {
        trace: TraceOut { name, rank: cp.pos, args: marks, flows: flow_events, only_marked: only_critical, ..Default::default() },
        critical_indexes,
        raw_events: r.counts.events + r.counts.empty_placeholders,
        flow_events: n,
    }
}

/// The oracle's `overlay_critical_event_indices_sha1`: SHA-1 of the comma-joined positions of
/// the overlaid file's events with `args.critical` set: the path's events, then the flow
/// events appended after the file's own.
fn critical_sha1(o: &Overlay) -> String {
    let mut text: Vec<String> = o.critical_indexes.iter().map(|i| i.to_string()).collect();
    text.extend((0..o.flow_events as u64).map(|k| (o.raw_events + k).to_string()));
    sha1_smol::Sha1::from(text.join(",")).digest().to_string()
}

fn info_fields(cp: &CriticalPath, o: &Overlay) -> Vec<(&'static str, serde_json::Value)> {
    use serde_json::Value;
    let instance: Value = if cp.annotation.is_empty() {
        Value::Null
    } else if cp.instances.first == cp.instances.last {
        cp.instances.first.into()
    } else {
        Value::from(cp.instances.to_string())
    };
    vec![
        ("annotation", cp.annotation.clone().into()),
        ("critical_path_length", json_us(us(cp.length()))),
        ("instance_id", instance),
        ("n_critical_edges", cp.path.len().into()),
        ("n_critical_nodes", (cp.path.len() + usize::from(!cp.path.is_empty())).into()),
        ("n_edges", cp.graph.edges.len().into()),
        ("n_nodes", cp.graph.graph_nodes().into()),
        ("overlay_critical_event_indices_sha1", critical_sha1(o).into()),
        ("overlay_n_critical_events", (o.critical_indexes.len() + o.flow_events).into()),
        ("overlay_n_flow_events", o.flow_events.into()),
        ("rank", cp.rank.into()),
        ("success", true.into()),
        ("window_start", json_us(us(cp.window.start))),
        ("window_end", if cp.window.end == i64::MAX { Value::Null } else { json_us(us(cp.window.end)) }),
        ("window_events", cp.rows.len().into()),
        ("untraced_on_path", json_us(us(cp.untraced()))),
    ]
}

/// `critical_path_info.json` (the oracle's keys, plus the window).
fn info_json(cp: &CriticalPath, o: &Overlay) -> String {
    let m: serde_json::Map<String, serde_json::Value> = info_fields(cp, o).into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    serde_json::to_string_pretty(&m).unwrap_or_default()
}

/// `critical_path_info`: the same as a two-column table.
fn info_table(cp: &CriticalPath, o: &Overlay) -> Table {
    let fields = info_fields(cp, o);
    Table::new("critical_path_info").with("key", Unit::None, Values::Str(fields.iter().map(|f| f.0).collect())).with(
        "value",
        Unit::None,
        Values::Str(fields.iter().map(|f| f.1.as_str().map_or_else(|| f.1.to_string(), str::to_string)).collect()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bound_by_follows_hta() {
        assert_eq!(bound_by(EdgeKind::Operator, Some(-1), "aten::mm"), "cpu_bound");
        assert_eq!(bound_by(EdgeKind::Operator, Some(7), "ncclKernel_AllReduce"), "gpu_communication_bound");
        assert_eq!(bound_by(EdgeKind::Operator, Some(7), "ncclDevKernel_AllGather"), "gpu_communication_bound");
        assert_eq!(bound_by(EdgeKind::Operator, Some(7), "nccl_copy"), "gpu_compute_bound");
        assert_eq!(bound_by(EdgeKind::Operator, Some(0), "gemm"), "gpu_compute_bound");
        assert_eq!(bound_by(EdgeKind::Sync, None, ""), "");
        assert_eq!(bound_by(EdgeKind::LaunchDelay, None, ""), "gpu_kernel_launch_overhead");
    }

    #[test]
    fn instances_parse() {
        assert_eq!(Instances::parse("2").ok(), Some(Instances { first: 2, last: 2 }));
        assert_eq!(Instances::parse("0-3").ok(), Some(Instances { first: 0, last: 3 }));
        assert!(Instances::parse("3-1").is_err());
        assert!(Instances::parse("x").is_err());
    }
}
