//! The critical-path graph of one rank's window: nodes (the start and the end of each event that
//! takes part), typed and weighted edges between them, and the CPU half of the construction
//! (HTA's `CPGraph._construct_graph_from_call_stacks` over the old `hta.common.call_stack`
//! stacks). The GPU half is [`super::gpu`], the longest path [`super::longest`].
//!
//! Nodes and edges are added in HTA's order, because networkx's longest path breaks ties by
//! insertion order: a graph node exists once an edge touches it, successors and predecessors are
//! listed in edge order, and adding an edge that exists replaces its weight and type.

use rustc_hash::FxHashMap;

pub(crate) use super::super::call_graph::id_key;
use super::super::hta_frame::HtaFrame;
use crate::model::RankTrace;

/// No node / no row.
pub const NONE: u32 = u32::MAX;

/// Kind of an edge (HTA's `CPEdgeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// The span of an operator, runtime call or GPU operation (or of a part of one).
    Operator,
    /// Zero-weight order between consecutive top-level operators of a thread.
    Dependency,
    /// Launch call start → GPU operation start, when the GPU waited for the launch.
    LaunchDelay,
    /// Previous GPU operation's end → next one's start on a stream.
    KernelKernelDelay,
    /// Zero-weight synchronisation: a GPU operation's end → a waiting CPU call's end, or → a GPU
    /// operation on another stream that waited for it.
    Sync,
}

impl EdgeKind {
    /// HTA's name (`CPEdgeType.value`).
    pub fn hta_name(self) -> &'static str {
        match self {
            EdgeKind::Operator => "critical_path_operator",
            EdgeKind::Dependency => "critical_path_dependency",
            EdgeKind::LaunchDelay => "critical_path_kernel_launch_delay",
            EdgeKind::KernelKernelDelay => "critical_path_kernel_kernel_delay",
            EdgeKind::Sync => "critical_path_sync_dependency",
        }
    }

    /// Short name for the page and the charts.
    pub fn label(self) -> &'static str {
        match self {
            EdgeKind::Operator => "operator",
            EdgeKind::Dependency => "dependency",
            EdgeKind::LaunchDelay => "launch delay",
            EdgeKind::KernelKernelDelay => "kernel-kernel delay",
            EdgeKind::Sync => "sync",
        }
    }

    /// Every kind, in HTA's order.
    pub const ALL: [EdgeKind; 5] =
        [EdgeKind::Operator, EdgeKind::Dependency, EdgeKind::LaunchDelay, EdgeKind::KernelKernelDelay, EdgeKind::Sync];
}

/// A point in time: the start or the end of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// Frame row of the event.
    pub row: u32,
    /// Time, ns (frame clock).
    pub ts: i64,
    /// Start (else end) of the event.
    pub start: bool,
}

/// An edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// Source node.
    pub src: u32,
    /// Destination node.
    pub dst: u32,
    /// Weight as built (HTA's `CPEdge.weight`), ns: `dst.ts - src.ts`, or 0 for dependencies,
    /// synchronisation and blocking calls. May be negative.
    pub weight: i64,
    /// Weight the longest path uses: negative weights clamped to 0 (HTA clamps `<= -1` µs).
    pub graph_weight: i64,
    /// Kind.
    pub kind: EdgeKind,
    /// Frame row of the event the edge's time belongs to (operator and kernel-kernel edges).
    pub event: Option<u32>,
}

/// The graph.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    /// Nodes: the start of node-event `k` is node `2k`, its end `2k + 1`.
    pub nodes: Vec<Node>,
    /// Start node of each frame row ([`NONE`] for rows without nodes).
    pub node_of_row: Vec<u32>,
    /// Edges in insertion order (each `(src, dst)` once).
    pub edges: Vec<Edge>,
    /// Graph nodes (touched by an edge) in the order they joined the graph.
    pub order: Vec<u32>,
    in_graph: Vec<bool>,
    edge_at: FxHashMap<(u32, u32), u32>,
    /// Clamp threshold: weights `<= clamp_at` become 0 on the graph.
    clamp_at: i64,
}

impl Graph {
    /// A graph with a start and an end node for each of `rows` (frame rows, in order; a row
    /// listed twice gets the later nodes, as HTA's event → node maps keep the last).
    /// `clamp_at`: weights at or below it are 0 on the graph (`-1000` for HTA's `<= -1` µs, `-1`
    /// for "any negative").
    pub fn new(f: &HtaFrame, r: &RankTrace, rows: &[usize], clamp_at: i64) -> Graph {
        let mut g = Graph { node_of_row: vec![NONE; f.len()], clamp_at, ..Default::default() };
        for &i in rows {
            let id = g.nodes.len() as u32;
            g.nodes.push(Node { row: i as u32, ts: f.ts_ns(r, i), start: true });
            g.nodes.push(Node { row: i as u32, ts: f.ts_ns(r, i) + f.dur_ns(r, i), start: false });
            g.node_of_row[i] = id;
        }
        g.in_graph = vec![false; g.nodes.len()];
        g
    }

    /// `(start, end)` nodes of frame row `row`, if it has nodes.
    pub fn nodes_of(&self, row: usize) -> Option<(u32, u32)> {
        let s = *self.node_of_row.get(row)?;
        (s != NONE).then_some((s, s.wrapping_add(1)))
    }

    /// Adds edge `src → dst` (HTA's `_add_edge_helper`): weight `dst.ts - src.ts`, or 0 for
    /// dependencies, synchronisation and `zero`. An existing `(src, dst)` edge takes the new
    /// weight and kind. Returns the edge's position.
    pub fn add(&mut self, src: u32, dst: u32, kind: EdgeKind, zero: bool) -> usize {
        debug_assert_ne!(src, dst);
        let weight = if zero || matches!(kind, EdgeKind::Dependency | EdgeKind::Sync) {
            0
        } else {
            self.nodes[dst as usize].ts - self.nodes[src as usize].ts
        };
        let graph_weight = if weight <= self.clamp_at { 0 } else { weight };
        for n in [src, dst] {
            if !self.in_graph[n as usize] {
                self.in_graph[n as usize] = true;
                self.order.push(n);
            }
        }
        match self.edge_at.get(&(src, dst)) {
            Some(&e) => {
                let edge = &mut self.edges[e as usize];
                edge.weight = weight;
                edge.graph_weight = graph_weight;
                edge.kind = kind;
                e as usize
            }
            None => {
                self.edge_at.insert((src, dst), self.edges.len() as u32);
                self.edges.push(Edge { src, dst, weight, graph_weight, kind, event: None });
                self.edges.len() - 1
            }
        }
    }

    /// HTA's `_attribute_edge`: the event an operator or kernel-kernel edge's time belongs to:
    /// a kernel-kernel delay → the previous kernel; from a start → that event; end → end → the
    /// ending event; end → start → `src_parent` (the enclosing event of the source).
    pub fn attribute(&mut self, e: usize, src_parent: Option<u32>) {
        let edge = self.edges[e];
        let (src, dst) = (self.nodes[edge.src as usize], self.nodes[edge.dst as usize]);
        let event = match edge.kind {
            EdgeKind::KernelKernelDelay => Some(src.row),
            EdgeKind::Operator if src.start => Some(src.row),
            EdgeKind::Operator if !dst.start => Some(dst.row),
            EdgeKind::Operator => src_parent,
            _ => return,
        };
        self.edges[e].event = event;
    }

    /// Number of graph nodes (touched by an edge).
    pub fn graph_nodes(&self) -> usize {
        self.order.len()
    }
}

/// The CPU half (HTA's `_construct_graph_from_call_stacks`). `rows`: the window's frame rows in
/// order; `blocking(row)`: the event is a call that waits for the GPU (its span gets weight 0).
///
/// Per `(pid, tid)` in id order, threads whose rows all have `stream < 0` (the old call stack's
/// CPU device type; a thread with any `stream > 0` row is a GPU stream, one with `stream == 0`
/// rows is of unknown type and skipped, as in HTA) get a call stack: each row's start and end
/// sorted by time, at equal times ends before starts, of two starts the longer first (then by
/// index), of two ends the shorter first (then by reverse index); a start becomes a child of
/// the stack's top and is pushed, an end pops the top. A depth-first walk (children in start
/// order) then links node events: entering one adds an edge from the last node (or, at the top
/// level, a dependency from the previous top-level event's end), leaving one an edge to its end
/// (weight 0 for a blocking call). Events without nodes (annotations, Python frames) are
/// transparent.
pub fn add_cpu_edges(g: &mut Graph, f: &HtaFrame, r: &RankTrace, rows: &[usize], blocking: &dyn Fn(usize) -> bool) {
    let mut threads: FxHashMap<(u32, u32), Vec<usize>> = FxHashMap::default();
    for &i in rows {
        threads.entry((f.pid(r, i), f.tid(r, i))).or_default().push(i);
    }
    let mut keys: Vec<(u32, u32)> = threads.keys().copied().collect();
    keys.sort_by_cached_key(|&(p, t)| (id_key(r, p), id_key(r, t)));
    for k in keys {
        let thread = &threads[&k];
        if thread.iter().all(|&i| f.stream(r, i) < 0) {
            let tree = StackTree::build(f, r, thread);
            walk(g, &tree, blocking);
        }
    }
}

/// A thread's call tree: children of each position in `rows`, and of the root.
struct StackTree {
    rows: Vec<usize>,
    parent: Vec<u32>,
    children: Vec<Vec<u32>>,
    roots: Vec<u32>,
}

impl StackTree {
    fn build(f: &HtaFrame, r: &RankTrace, rows: &[usize]) -> StackTree {
        // (time, 0 = end / 1 = start, tiebreak, position)
        let mut points: Vec<(i64, u8, i64, i64, u32)> = Vec::with_capacity(rows.len() * 2);
        for (p, &i) in rows.iter().enumerate() {
            let (ts, dur, idx) = (f.ts_ns(r, i), f.dur_ns(r, i).max(0), i64::from(f.index(r, i)));
            points.push((ts, 1, -dur, idx, p as u32));
            points.push((ts + dur, 0, dur, -idx, p as u32));
        }
        // stable: the points come nearly in order (a row's start, then its end, rows by time),
        // in runs it finds and merges
        points.sort();
        let mut t =
            StackTree { rows: rows.to_vec(), parent: vec![NONE; rows.len()], children: vec![Vec::new(); rows.len()], roots: Vec::new() };
        let mut stack: Vec<u32> = Vec::new();
        for &(_, kind, _, _, p) in &points {
            if kind == 1 {
                match stack.last() {
                    Some(&top) => {
                        t.children[top as usize].push(p);
                        t.parent[p as usize] = top;
                    }
                    None => t.roots.push(p),
                }
                stack.push(p);
            } else {
                stack.pop();
            }
        }
        t
    }
}

/// The depth-first walk of HTA's `_construct_graph_from_call_stack`.
fn walk(g: &mut Graph, t: &StackTree, blocking: &dyn Fn(usize) -> bool) {
    let mut last_node: Option<u32> = None;
    let mut last_top: Option<u32> = None;
    let mut depth = 0usize;
    let mut last_parent: Option<u32> = None;
    let parent_row = |p: u32| -> Option<u32> {
        let q = t.parent[p as usize];
        (q != NONE).then(|| t.rows[q as usize] as u32)
    };
    let enter = |g: &mut Graph,
                 p: u32,
                 last_node: &mut Option<u32>,
                 last_top: &mut Option<u32>,
                 depth: &mut usize,
                 last_parent: &mut Option<u32>| {
        let Some((start, _)) = g.nodes_of(t.rows[p as usize]) else { return };
        if *depth == 0 {
            if let Some(prev) = *last_top {
                g.add(prev, start, EdgeKind::Dependency, false);
            }
        }
        *depth += 1;
        if let Some(last) = *last_node {
            let e = g.add(last, start, EdgeKind::Operator, false);
            g.attribute(e, *last_parent);
        }
        *last_node = Some(start);
        *last_parent = parent_row(p);
    };
    let exit = |g: &mut Graph,
                p: u32,
                last_node: &mut Option<u32>,
                last_top: &mut Option<u32>,
                depth: &mut usize,
                last_parent: &mut Option<u32>| {
        let row = t.rows[p as usize];
        let Some((_, end)) = g.nodes_of(row) else { return };
        *depth -= 1;
        if let Some(last) = *last_node {
            let e = g.add(last, end, EdgeKind::Operator, blocking(row));
            g.attribute(e, *last_parent);
        }
        if *depth == 0 {
            *last_node = None;
            *last_top = Some(end);
        } else {
            *last_node = Some(end);
            *last_parent = parent_row(p);
        }
    };
    // iterative DFS: (position, next child)
    let mut stack: Vec<(u32, usize)> = Vec::new();
    for &root in &t.roots {
        enter(g, root, &mut last_node, &mut last_top, &mut depth, &mut last_parent);
        stack.push((root, 0));
        while let Some(&mut (p, ref mut next)) = stack.last_mut() {
            if let Some(&c) = t.children[p as usize].get(*next) {
                *next += 1;
                enter(g, c, &mut last_node, &mut last_top, &mut depth, &mut last_parent);
                stack.push((c, 0));
            } else {
                stack.pop();
                exit(g, p, &mut last_node, &mut last_top, &mut depth, &mut last_parent);
            }
        }
    }
}
