//! Call stacks rebuilt from the time nesting of a trace's CPU events, for flame graphs and the
//! profile exports (folded stacks, pprof, speedscope).
//!
//! Per rank, process and thread, the CPU spans (complete events, and `B`/`E` pairs: Python
//! functions, CPU operators, user annotations, runtime and driver calls, …; not device rows,
//! flows, instants, counters, the whole-trace span) are swept in start order (longer first on a
//! tie) with a stack of open frames:
//!
//! - A span that starts inside the open frame and ends by its end is its child.
//! - A span that starts inside the open frame but ends after it (a *partial overlap*, which a
//!   well-formed trace never has) is cut at the frame's end; the rest becomes a span of its own
//!   from there, nested under whatever is open then (the frame's parent, usually). Each instant
//!   stays in exactly one innermost frame, so nothing is counted twice and nothing is lost.
//! - A `B` never closed by an `E` (*unclosed*) is closed at the end of its thread's last span.
//! - A span of zero duration counts as an event of its frame, with no time.
//!
//! A frame's *self time* is its duration minus its children's, never negative; the self times of
//! a thread add up to the union of its spans' intervals. GPU operations (kernels, memcpys,
//! memsets) are hung under the stack of the CPU call that launched them (correlation id), as GPU
//! time with their stream and device; one without a launching call (or whose launcher is outside
//! the time range) hangs under `(no launching CPU call)` of its rank.
//!
//! Everything is in exact ns; a `range` keeps the part of each span and GPU operation inside it.

mod folded;
pub mod pprof;
mod speedscope;

pub use folded::{folded, Measure};
pub use pprof::{pprof, pprof_bytes, PbProfile};
pub use speedscope::speedscope;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use rustc_hash::FxHashMap;

use crate::model::events::flags;
use crate::model::{EventId, Kind, Phase, RankTrace, Trace, NONE};

/// What to build a profile of.
#[derive(Debug, Clone)]
pub struct Options {
    /// Positions (in `trace.ranks`) of the ranks to include; empty: all.
    pub ranks: Vec<usize>,
    /// Keep only what lies in `[start, end)`, ns on the trace's clock.
    pub range: Option<(i64, i64)>,
    /// Whether to record each thread's [`Timeline`] (speedscope's evented profiles need them;
    /// the call tree does not: two marks of 16 bytes a span). Default: yes.
    pub timelines: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options { ranks: Vec::new(), range: None, timelines: true }
    }
}

/// One frame of the call tree (a node): the frame's name, its parent node, and what was measured
/// there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Node {
    /// Parent node (`NO_NODE` for a rank's root).
    pub parent: u32,
    /// Index of the frame's name in [`Profile::names`].
    pub name: u32,
    /// Rank it belongs to.
    pub rank: u32,
    /// CPU self time, ns.
    pub self_ns: i64,
    /// Spans (events) that were this frame.
    pub events: i64,
}

/// No parent.
pub const NO_NODE: u32 = u32::MAX;

/// GPU time launched from one stack: what kernels (memcpys, memsets) named `name` on `stream` of
/// `device` ran, launched from node `node`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuSample {
    /// The launching call's node.
    pub node: u32,
    /// Index of the GPU operation's name in [`Profile::names`].
    pub name: u32,
    /// Stream (`-1`: none).
    pub stream: i64,
    /// Device (`-1`: not given).
    pub device: i64,
    /// Summed duration, ns.
    pub ns: i64,
    /// Operations.
    pub count: i64,
}

/// One frame opened or closed on a thread's timeline (for evented profiles).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Time, ns.
    pub at: i64,
    /// The frame's name ([`Profile::names`]).
    pub name: u32,
    /// Opened (`true`) or closed.
    pub open: bool,
}

/// One thread's timeline: its frames opened and closed in time order, properly nested.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    /// Rank.
    pub rank: u32,
    /// The thread's node (its root frame: process and thread).
    pub node: u32,
    /// Opens and closes.
    pub marks: Vec<Mark>,
}

/// What was repaired while rebuilding the stacks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Repairs {
    /// Spans that ended after the frame they started in (cut there; the rest nested on its own).
    pub partial_overlaps: u64,
    /// `B` events never closed (closed at the end of their thread's last span).
    pub unclosed: u64,
    /// GPU operations with no launching CPU call.
    pub unlaunched_gpu: u64,
}

/// A call tree with CPU self time and GPU time per stack.
#[derive(Debug, Clone, Default)]
pub struct Profile {
    /// Frame names (interned): node and sample `name` fields index this.
    pub names: Vec<String>,
    /// The call tree; a rank's root node is the rank (`rank N`), its children the threads.
    pub nodes: Vec<Node>,
    /// GPU time by launching stack, operation, stream and device.
    pub gpu: Vec<GpuSample>,
    /// Per thread, its frames opened and closed in time order.
    pub timelines: Vec<Timeline>,
    /// The ranks included, in order.
    pub ranks: Vec<u32>,
    /// What was repaired.
    pub repairs: Repairs,
    /// CPU spans swept.
    pub cpu_spans: u64,
}

impl Profile {
    /// The names of node `n`'s frames from its rank's root down to it.
    pub fn stack(&self, n: u32) -> Vec<&str> {
        let mut out = Vec::new();
        let mut at = n;
        while at != NO_NODE {
            let node = &self.nodes[at as usize];
            out.push(self.names[node.name as usize].as_str());
            at = node.parent;
        }
        out.reverse();
        out
    }

    /// Total CPU self time, ns.
    pub fn cpu_ns(&self) -> i64 {
        self.nodes.iter().map(|n| n.self_ns).sum()
    }

    /// Total GPU time, ns.
    pub fn gpu_ns(&self) -> i64 {
        self.gpu.iter().map(|g| g.ns).sum()
    }
}

/// Whether row `e` is a CPU span that takes part in stacks.
fn is_stack_span(r: &RankTrace, e: usize) -> bool {
    let ev = &r.events;
    let kind = ev.kind[e];
    matches!(ev.phase[e], Phase::Complete | Phase::Begin)
        && !kind.is_device()
        && !matches!(
            kind,
            Kind::GpuUserAnnotation | Kind::LaunchFlow | Kind::FwdBwdFlow | Kind::TraceSpan | Kind::CpuInstant | Kind::CudaProfilerRange
        )
}

/// Builds the profile of `trace` (module docs).
pub fn build(trace: &Trace, o: &Options) -> Profile {
    let mut b = Builder { timelines: o.timelines, ..Builder::default() };
    let positions: Vec<usize> = if o.ranks.is_empty() { (0..trace.ranks.len()).collect() } else { o.ranks.clone() };
    let (lo, hi) = o.range.unwrap_or((i64::MIN, i64::MAX));
    for p in positions {
        let r = &trace.ranks[p];
        b.p.ranks.push(r.rank);
        b.rank(r, lo, hi);
    }
    b.p
}

/// A span to place: `[start, end)`, its frame name, its row (`NONE` for the rest of a cut span).
type Span = (i64, i64, u32, EventId);

/// The rest of a cut span, ordered as the spans are (start, longer first): `(start, end, NONE, name)`
/// in a min-heap.
type Rest = Reverse<(i64, Reverse<i64>, EventId, u32)>;

#[derive(Default)]
struct Builder {
    p: Profile,
    names: FxHashMap<String, u32>,
    children: FxHashMap<(u32, u32), u32>,
    /// Whether to record the threads' timelines ([`Options::timelines`]).
    timelines: bool,
}

impl Builder {
    fn name(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.names.get(s) {
            return i;
        }
        let i = self.p.names.len() as u32;
        self.p.names.push(s.to_string());
        self.names.insert(s.to_string(), i);
        i
    }

    /// The name of row `e` of `r`, each distinct name of the rank looked up once (`memo`: one
    /// slot per string of the rank).
    fn event_name(&mut self, r: &RankTrace, e: EventId, memo: &mut [u32]) -> u32 {
        let s = r.events.name.get(e as usize);
        let slot = &mut memo[s.0 as usize];
        if *slot == NONE {
            *slot = self.name(r.strings.get(s));
        }
        *slot
    }

    /// The child of `parent` named `name` (made if new).
    fn child(&mut self, parent: u32, name: u32, rank: u32) -> u32 {
        if let Some(&n) = self.children.get(&(parent, name)) {
            return n;
        }
        let n = self.p.nodes.len() as u32;
        self.p.nodes.push(Node { parent, name, rank, self_ns: 0, events: 0 });
        self.children.insert((parent, name), n);
        n
    }

    fn rank(&mut self, r: &RankTrace, lo: i64, hi: i64) {
        let ev = &r.events;
        let rank_name = self.name(&format!("rank {}", r.rank));
        let root = self.child(NO_NODE, rank_name, r.rank);
        // the spans of each thread, in row order
        let mut threads: FxHashMap<(u32, u32), Vec<EventId>> = FxHashMap::default();
        for e in 0..ev.len() {
            if is_stack_span(r, e) {
                threads.entry((ev.pid.get(e), ev.tid.get(e))).or_default().push(e as EventId);
            }
        }
        let mut keys: Vec<(u32, u32)> = threads.keys().copied().collect();
        keys.sort_by_key(|&(p, t)| (r.id_text(p), r.id_text(t), p, t));
        // each row's node (NONE: not placed); each string's name in the profile
        let mut node_of: Vec<u32> = vec![NONE; ev.len()];
        let mut names = vec![NONE; r.strings.len()];
        for key in keys {
            let rows = &threads[&key];
            let label = thread_label(r, key.0, key.1);
            let name = self.name(&label);
            let thread = self.child(root, name, r.rank);
            // an unclosed B ends with its thread's last span
            let last = rows.iter().map(|&e| e as usize).filter(|&e| closed(r, e)).map(|e| ev.end(e as EventId)).max().unwrap_or(i64::MIN);
            let mut spans: Vec<Span> = Vec::with_capacity(rows.len());
            for e in rows.iter().map(|&e| e as usize) {
                let (start, mut end) = (ev.ts[e], ev.end(e as EventId));
                if !closed(r, e) {
                    self.p.repairs.unclosed += 1;
                    end = last.max(start);
                }
                let (start, end) = (start.max(lo), end.min(hi));
                if start > end || (start == end && (start < lo || start >= hi)) {
                    continue;
                }
                let name = self.event_name(r, e as EventId, &mut names);
                spans.push((start, end, name, e as EventId));
            }
            self.p.cpu_spans += spans.len() as u64;
            self.sweep(r.rank, thread, spans, &mut node_of);
        }
        self.gpu(r, root, lo, hi, &node_of, &mut names);
    }

    /// Places a thread's spans into the tree (module docs) and records its timeline.
    fn sweep(&mut self, rank: u32, thread: u32, mut spans: Vec<Span>, node_of: &mut [u32]) {
        spans.sort_by_key(|&(s, e, _, row)| (s, Reverse(e), row));
        // the rest of cut spans, by the same order
        let mut rest: BinaryHeap<Rest> = BinaryHeap::new();
        // open frames: (start, end, node, children's time)
        let mut open: Vec<(i64, i64, u32, i64)> = Vec::new();
        let mut marks = Vec::new();
        let mut next = spans.into_iter().peekable();
        loop {
            let from_rest = match (next.peek(), rest.peek()) {
                (None, None) => break,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(&(s, e, _, row)), Some(Reverse((rs, re, rrow, _)))) => (*rs, *re, *rrow) < (s, Reverse(e), row),
            };
            let (start, mut end, name, row) = if from_rest {
                let Reverse((s, Reverse(e), row, name)) = rest.pop().expect("peeked");
                (s, e, name, row)
            } else {
                next.next().expect("peeked")
            };
            self.close_until(start, &mut open, &mut marks);
            if let Some(&(_, top_end, _, _)) = open.last() {
                if end > top_end {
                    if row != NONE {
                        self.p.repairs.partial_overlaps += 1;
                    }
                    rest.push(Reverse((top_end, Reverse(end), NONE, name)));
                    end = top_end;
                }
            }
            let parent = open.last().map_or(thread, |o| o.2);
            let node = self.child(parent, name, rank);
            if row != NONE {
                self.p.nodes[node as usize].events += 1;
                node_of[row as usize] = node;
            }
            if end > start {
                open.push((start, end, node, 0));
                if self.timelines {
                    marks.push(Mark { at: start, name, open: true });
                }
            }
        }
        self.close_until(i64::MAX, &mut open, &mut marks);
        if !marks.is_empty() {
            self.p.timelines.push(Timeline { rank, node: thread, marks });
        }
    }

    /// Closes the open frames that end at or before `t`: their self time is theirs less their
    /// children's.
    fn close_until(&mut self, t: i64, open: &mut Vec<(i64, i64, u32, i64)>, marks: &mut Vec<Mark>) {
        while let Some(&(start, end, node, children)) = open.last() {
            if end > t {
                break;
            }
            open.pop();
            let dur = end - start;
            self.p.nodes[node as usize].self_ns += (dur - children).max(0);
            if let Some(parent) = open.last_mut() {
                parent.3 += dur;
            }
            if self.timelines {
                marks.push(Mark { at: end, name: self.p.nodes[node as usize].name, open: false });
            }
        }
    }

    /// GPU operations under their launching call's node.
    fn gpu(&mut self, r: &RankTrace, root: u32, lo: i64, hi: i64, node_of: &[u32], names: &mut [u32]) {
        let ev = &r.events;
        let launch = r.launch_links();
        let mut at: FxHashMap<(u32, u32, i64, i64), usize> = FxHashMap::default();
        let mut orphan = None;
        for (e, &launcher) in launch.iter().enumerate() {
            if !matches!(ev.kind[e], Kind::Kernel | Kind::Memcpy | Kind::Memset | Kind::MtiaDeviceOp) || ev.phase[e] != Phase::Complete {
                continue;
            }
            let (start, end) = (ev.ts[e].max(lo), ev.end(e as EventId).min(hi));
            if start > end || (start == end && (ev.ts[e] < lo || ev.ts[e] >= hi)) {
                continue;
            }
            let node = match node_of.get(launcher as usize).copied().filter(|&n| n != NONE) {
                Some(n) => n,
                None => {
                    self.p.repairs.unlaunched_gpu += 1;
                    *orphan.get_or_insert_with(|| {
                        let name = self.name("(no launching CPU call)");
                        self.child(root, name, r.rank)
                    })
                }
            };
            let name = self.event_name(r, e as EventId, names);
            let device = ev.int_arg(e as EventId, crate::model::IntArg::Device).unwrap_or(-1);
            let key = (node, name, ev.stream.get(e), device);
            let i = *at.entry(key).or_insert_with(|| {
                self.p.gpu.push(GpuSample { node, name, stream: ev.stream.get(e), device, ns: 0, count: 0 });
                self.p.gpu.len() - 1
            });
            self.p.gpu[i].ns += end - start;
            self.p.gpu[i].count += 1;
        }
    }
}

/// Whether row `e` has an end: a complete event, or a `B` closed by an `E`.
fn closed(r: &RankTrace, e: usize) -> bool {
    r.events.phase[e] == Phase::Complete || r.events.flags[e] & flags::HAS_DUR != 0
}

/// A thread's root frame: its process and thread, with their names when the trace gives them
/// (`python 4242 / thread 4242 (MainThread)`).
fn thread_label(r: &RankTrace, pid: u32, tid: u32) -> String {
    let named = |name: Option<&String>, id: String| match name {
        Some(n) if !n.is_empty() && *n != id => format!("{id} ({n})"),
        _ => id,
    };
    format!(
        "process {} / thread {}",
        named(r.process_names.get(&pid), r.id_text(pid)),
        named(r.thread_names.get(&(pid, tid)), r.id_text(tid))
    )
}

/// The frames of a flame graph of `p` (`crate::table::Chart::Flame`), values in µs: CPU self time
/// by stack, or GPU time by launching stack with the GPU operations as leaves. The roots are the
/// threads (the ranks, with several). Children come by total, largest first; frames narrower
/// than `min_share` of the whole are left out with their callees (the tables have them all).
pub fn flame_frames(p: &Profile, measure: Measure, min_share: f64) -> Vec<crate::table::FlameFrame> {
    let n = p.nodes.len();
    let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
    for (i, node) in p.nodes.iter().enumerate() {
        if node.parent != NO_NODE {
            children[node.parent as usize].push(i as u32);
        }
    }
    // own value of each node, and the GPU leaves under it (name, ns)
    let mut own: Vec<i64> = vec![0; n];
    let mut leaves: Vec<Vec<(u32, i64)>> = vec![Vec::new(); n];
    match measure {
        Measure::Cpu => own.iter_mut().zip(&p.nodes).for_each(|(o, node)| *o = node.self_ns),
        Measure::Gpu => {
            for g in &p.gpu {
                let l = &mut leaves[g.node as usize];
                match l.iter_mut().find(|x| x.0 == g.name) {
                    Some(x) => x.1 += g.ns,
                    None => l.push((g.name, g.ns)),
                }
            }
        }
    }
    // totals, children after parents in `nodes`: sum from the last node back
    let mut total: Vec<i64> = (0..n).map(|i| own[i] + leaves[i].iter().map(|l| l.1).sum::<i64>()).collect();
    for i in (0..n).rev() {
        let parent = p.nodes[i].parent;
        if parent != NO_NODE {
            total[parent as usize] += total[i];
        }
    }
    let one_rank = p.ranks.len() <= 1;
    let roots: Vec<u32> = (0..n as u32)
        .filter(|&i| {
            let parent = p.nodes[i as usize].parent;
            if one_rank {
                parent != NO_NODE && p.nodes[parent as usize].parent == NO_NODE
            } else {
                parent == NO_NODE
            }
        })
        .collect();
    let grand: i64 = roots.iter().map(|&r| total[r as usize]).sum();
    let min = (grand as f64 * min_share).max(1.0);
    let by_total = |v: &mut Vec<u32>| {
        v.sort_by(|a, b| {
            total[*b as usize]
                .cmp(&total[*a as usize])
                .then(p.names[p.nodes[*a as usize].name as usize].cmp(&p.names[p.nodes[*b as usize].name as usize]))
        })
    };
    let mut out = Vec::new();
    let mut roots = roots;
    by_total(&mut roots);
    let mut start = 0i64;
    for r in roots {
        if (total[r as usize] as f64) < min {
            continue;
        }
        place(p, r, 0, start, &children, &own, &leaves, &total, min, &by_total, &mut out);
        start += total[r as usize];
    }
    out
}

/// Adds node `node`'s frame at `depth` from `start` (ns), then its children and GPU leaves.
#[allow(clippy::too_many_arguments)]
fn place(
    p: &Profile,
    node: u32,
    depth: u32,
    start: i64,
    children: &[Vec<u32>],
    own: &[i64],
    leaves: &[Vec<(u32, i64)>],
    total: &[i64],
    min: f64,
    by_total: &dyn Fn(&mut Vec<u32>),
    out: &mut Vec<crate::table::FlameFrame>,
) {
    let us = |ns: i64| ns as f64 / 1e3;
    let i = node as usize;
    out.push(crate::table::FlameFrame {
        name: p.names[p.nodes[i].name as usize].clone(),
        depth,
        start: us(start),
        total: us(total[i]),
        self_value: us(own[i]),
    });
    // callees from the frame's start, its own time after them
    let mut at = start;
    let mut kids = children[i].clone();
    by_total(&mut kids);
    for k in kids {
        if (total[k as usize] as f64) >= min {
            place(p, k, depth + 1, at, children, own, leaves, total, min, by_total, out);
        }
        at += total[k as usize];
    }
    let mut ls = leaves[i].clone();
    ls.sort_by(|a, b| b.1.cmp(&a.1).then(p.names[a.0 as usize].cmp(&p.names[b.0 as usize])));
    for (name, ns) in ls {
        if ns as f64 >= min {
            out.push(crate::table::FlameFrame {
                name: p.names[name as usize].clone(),
                depth: depth + 1,
                start: us(at),
                total: us(ns),
                self_value: us(ns),
            });
        }
        at += ns;
    }
}
