//! The call graph of one rank (HTA's `CallGraph` over `CallStackGraph`s, SPEC §2.13 and §4):
//! per CPU thread a tree of events from their nesting in time, GPU kernels hung under the runtime
//! call that launched them, and per event the number and total duration of the kernels in its
//! subtree. Frequent kernel sequences build on it; so can anything that needs "what ran inside
//! this operator".
//!
//! Construction, per `(pid, tid)`:
//! 1. Nodes are the thread's CPU rows (`stream == -1`). Each row gives two endpoints, open at
//!    `ts` and close at `ts + dur`; endpoints are sorted ([`hta_order`] / [`super::endpoints::exact_order`]) and
//!    walked with a stack: an open becomes a child of the stack's top (or of the thread's root)
//!    and is pushed, a close pops. (The exact view walks the same way without making the
//!    endpoints: it sorts the opens and plays the closes due from a heap, `CallGraph::exact_stack`.)
//! 2. Kernels attach to their launch through `index_correlation`: a GPU row whose partner is a
//!    node of this thread becomes that node's child.
//! 3. Backward thread: when exactly one thread is "main" (has a `ProfilerStep#` row) and one is
//!    "bwd" (has an `autograd::` row), the bwd thread's top-level events move under the main
//!    thread's `## backward ##` annotations (or, without any, its `ProfilerStep#` rows) whose
//!    `[ts, end]` contains them.
//! 4. `depth` (top level 0), `num_kernels` and `kernel_dur_sum` (kernels in the subtree; a kernel
//!    counts itself) are computed from the thread roots.
//!
//! HTA 0.5.0 (`hta: true`) is reproduced bugs included: GPU threads are recognised by HTA's
//! heuristics (all streams > 0, or pid or tid 0) and every other thread is built; the endpoint
//! comparator is not transitive (a zero-duration event where one event ends and the next starts
//! makes the next a child of the previous; our order matches Python's usual result there, see
//! [`hta_order`]) and raises on a negative duration meeting a zero duration (§5.3); a close pops
//! whatever is on top; roots are shared by threads with equal `|tid|`; moving the bwd stack
//! deletes emptied roots and may then adopt the main thread's own top-level events. The exact
//! view (`hta: false`) builds every thread's CPU rows, orders endpoints as half-open intervals
//! `[ts, ts + dur)` (a total order), pops the closing event itself, leaves synchronisation
//! events (`cuda_sync`) out of the kernels (SPEC §5.4), and moves the bwd stack without deleting
//! anything.

use rustc_hash::{FxHashMap, FxHashSet};

use super::endpoints::{hta_order, Endpoint, EndpointError};
use super::hta_frame::{ByIndex, HtaFrame};
use crate::model::{IdValue, IntColumn, Kind, RankTrace};

/// No node.
const NONE: u32 = u32::MAX;

/// Options of [`CallGraph::build`].
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct CallGraphOptions {
    /// Reproduce HTA 0.5.0 (module docs). Default `false`.
    pub hta: bool,
}

impl CallGraphOptions {
    /// Options with `hta` set.
    pub fn new(hta: bool) -> CallGraphOptions {
        CallGraphOptions { hta }
    }
}

/// What HTA's construction raises on (only with `hta`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallGraphError(pub String);

impl std::fmt::Display for CallGraphError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CallGraphError {}

impl From<EndpointError> for CallGraphError {
    fn from(e: EndpointError) -> CallGraphError {
        CallGraphError(e.to_string())
    }
}

/// What a thread's stack is, from its event names (HTA's `_infer_stack_label`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StackLabel {
    /// Has a `ProfilerStep#…` row.
    Main,
    /// Has an `autograd::…` row (and no step).
    Bwd,
    /// Anything else.
    Other,
}

/// One thread's call stack.
#[derive(Debug, Clone)]
pub struct CallStack {
    /// pid (index into [`RankTrace::ids`]).
    pub pid: u32,
    /// tid (index into [`RankTrace::ids`]).
    pub tid: u32,
    /// Label.
    pub label: StackLabel,
    /// Every frame row of the thread (CPU and other), in frame order.
    pub rows: Vec<u32>,
    /// Node id of the thread's root (not an event).
    root: u32,
}

/// The call graph of one rank's frame. Rows are positions in the [`HtaFrame`] it was built from.
#[derive(Debug, Clone)]
pub struct CallGraph {
    /// Frame rows; node ids below are rows, ids from `rows` up are thread roots.
    rows: usize,
    parent: Vec<u32>,
    /// Each node's children while the graph is built (emptied by [`CallGraph::finish`]).
    children: Children,
    /// After the build, the live child rows of row `v`: `child_rows[child_start[v]..child_start[v + 1]]`
    /// (one flat list instead of a vector per node).
    child_start: Vec<u32>,
    child_rows: Vec<u32>,
    alive: Vec<bool>,
    kernel: Vec<bool>,
    /// Frame row → node (the first row of its `index`); empty when every row is its own node
    /// (no row repeats an `index`; HTA's frames repeat GPU rows, §1.9). Read with
    /// [`CallGraph::node_of`].
    node_of_row: Vec<u32>,
    /// Depth of each frame row: 0 at the top of a thread, −1 when the row is not in the graph.
    pub depth: Vec<i32>,
    /// Kernels in each row's subtree (a kernel row counts itself; 0 outside the graph).
    pub num_kernels: Vec<u32>,
    /// Total duration of those kernels, ns (0 when `num_kernels` is 0), 4 bytes a row
    /// ([`IntColumn`]: read with `get`; a sum of 2.1 s or more is kept aside).
    pub kernel_dur_sum: IntColumn,
    /// The threads with a stack, in `(pid, tid)` order.
    pub stacks: Vec<CallStack>,
}

/// Children lists while a graph is built. While the stacks are built a node becomes a child at
/// most once, and its parent stays the one it was added under: the added nodes in order (4 bytes
/// each) and `parent` hold every list. [`Children::lay_out`] then groups them by parent, stably,
/// before the backward stack is linked; the few lists that step rewrites are kept apart. (A
/// vector per node took 24 bytes a node plus an allocation per parent: 180 MB at 4 M rows.)
#[derive(Debug, Clone, Default)]
struct Children {
    /// Nodes in the order they were added as children (until laid out).
    added: Vec<u32>,
    /// Laid out: the children of node `v` are `flat[start[v]..start[v + 1]]`, in the order added.
    start: Vec<u32>,
    flat: Vec<u32>,
    /// Lists rewritten after the layout.
    changed: FxHashMap<u32, Vec<u32>>,
}

impl Children {
    /// Groups the added nodes by `parent` (of every node), keeping their order (a counting sort).
    fn lay_out(&mut self, parent: &[u32]) {
        let mut start = vec![0u32; parent.len() + 1];
        for &c in &self.added {
            start[parent[c as usize] as usize + 1] += 1;
        }
        for v in 0..parent.len() {
            start[v + 1] += start[v];
        }
        // each parent's cursor runs from its start to its end, then shifts back one place
        let mut flat = vec![0u32; self.added.len()];
        for &c in &self.added {
            let at = &mut start[parent[c as usize] as usize];
            flat[*at as usize] = c;
            *at += 1;
        }
        start.copy_within(0..parent.len(), 1);
        start[0] = 0;
        self.added = Vec::new();
        (self.start, self.flat) = (start, flat);
    }

    /// The children of node `v`, once laid out.
    fn of(&self, v: u32) -> &[u32] {
        match self.changed.get(&v) {
            Some(list) => list,
            None => &self.flat[self.start[v as usize] as usize..self.start[v as usize + 1] as usize],
        }
    }

    /// The children of node `v`, to rewrite.
    fn edit(&mut self, v: u32) -> &mut Vec<u32> {
        if !self.changed.contains_key(&v) {
            let list = self.of(v).to_vec();
            self.changed.insert(v, list);
        }
        self.changed.get_mut(&v).expect("inserted above")
    }
}

/// Sort key of a pid/tid value: integers (numerically) before strings (pandas' groupby order for
/// the integer ids of Kineto traces).
pub(crate) fn id_key(r: &RankTrace, i: u32) -> (u8, i64, String) {
    match r.ids.get(i) {
        Some(IdValue::Int(v)) => (0, *v, String::new()),
        Some(IdValue::Str(s)) => (1, 0, r.strings.get(*s).to_string()),
        None => (2, 0, String::new()),
    }
}

/// `len` copies of `v` in a vector with room for `cap`.
fn filled<T: Clone>(v: T, len: usize, cap: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(cap.max(len));
    out.resize(len, v);
    out
}

fn is_int(r: &RankTrace, i: u32, v: i64) -> bool {
    matches!(r.ids.get(i), Some(IdValue::Int(x)) if *x == v)
}

impl CallGraph {
    /// Builds the call graph of frame `f` of rank `r` (module docs). `Err` only with
    /// `opts.hta`, where HTA 0.5.0 raises or never returns.
    pub fn build(f: &HtaFrame, r: &RankTrace, opts: CallGraphOptions) -> Result<CallGraph, CallGraphError> {
        let n = f.len();
        // threads in (pid, tid) order, rows in frame order
        let mut threads: FxHashMap<(u32, u32), Vec<u32>> = FxHashMap::default();
        for i in 0..n {
            threads.entry((f.pid(r, i), f.tid(r, i))).or_default().push(i as u32);
        }
        let mut keys: Vec<(u32, u32)> = threads.keys().copied().collect();
        keys.sort_by_cached_key(|&(p, t)| (id_key(r, p), id_key(r, t)));
        // room for the rows and one root per thread, so adding roots never regrows these
        let nodes = n + keys.len();
        let mut g = CallGraph {
            rows: n,
            parent: filled(NONE, n, nodes),
            children: Children { added: Vec::with_capacity(n), ..Default::default() },
            child_start: Vec::new(),
            child_rows: Vec::new(),
            alive: filled(false, n, nodes),
            kernel: filled(false, n, nodes),
            node_of_row: vec![NONE; n],
            // made by finish, after the per-node child vectors are gone
            depth: Vec::new(),
            num_kernels: Vec::new(),
            kernel_dur_sum: IntColumn::default(),
            stacks: Vec::new(),
        };
        let mut cdepth: Vec<i32> = filled(-1, n, nodes);
        let by_index = ByIndex::new(f, r);
        // indexes of rows that are not the first with theirs (HTA repeats GPU rows, §1.9)
        let mut repeated: FxHashSet<u32> = FxHashSet::default();
        for i in 0..n {
            let first = by_index.get(i64::from(f.index(r, i))).unwrap_or(i);
            g.node_of_row[i] = first as u32;
            if first != i {
                repeated.insert(f.index(r, i));
            }
        }
        let first = |index: i64| by_index.get(index);
        // per thread of the launch, the (kernel row, launch row) pairs of its kernels: one pass
        // over the rows, not a search of the kernels for each row of each thread
        let mut launched_by: FxHashMap<(u32, u32), Vec<(usize, usize)>> = FxHashMap::default();
        for i in 0..n {
            let is_kernel = if opts.hta {
                f.stream(r, i) > 0 && f.index_correlation(r, i) > 0
            } else {
                f.stream(r, i) != -1 && f.index_correlation(r, i) > 0 && r.events.kind[f.row[i] as usize] != Kind::CudaSync
            };
            if let (true, Some(l)) = (is_kernel, first(f.index_correlation(r, i))) {
                if opts.hta || f.stream(r, l) == -1 {
                    launched_by.entry((f.pid(r, l), f.tid(r, l))).or_default().push((i, l));
                }
            }
        }
        let mut root_of_key: FxHashMap<i64, u32> = FxHashMap::default();
        // the exact walk's rows on its stack (all false between threads)
        let mut on_stack = vec![false; if opts.hta { 0 } else { n }];
        for (pid, tid) in keys {
            let rows = threads.remove(&(pid, tid)).unwrap_or_default();
            let cpu: Vec<u32> = rows.iter().copied().filter(|&i| f.stream(r, i as usize) == -1).collect();
            let skip = if opts.hta {
                rows.iter().all(|&i| f.stream(r, i as usize) > 0) || is_int(r, pid, 0) || is_int(r, tid, 0)
            } else {
                cpu.is_empty()
            };
            if skip {
                continue;
            }
            let root = if opts.hta {
                // HTA: root index -abs(tid), shared by threads with the same |tid|
                let Some(IdValue::Int(t)) = r.ids.get(tid) else {
                    return Err(CallGraphError(format!(
                        "TypeError: bad operand type for abs(): 'str' (CPU thread tid '{}')",
                        r.id_text(tid)
                    )));
                };
                let key = -t.saturating_abs();
                *root_of_key.entry(key).or_insert_with(|| g.new_root(&mut cdepth))
            } else {
                g.new_root(&mut cdepth)
            };
            if opts.hta {
                // endpoints carry HTA's `index` (tie-breaks use it); CPU rows are never repeated,
                // so it maps back to one row
                let ends =
                    cpu.iter().map(|&i| i as usize).flat_map(|i| Endpoint::pair(i64::from(f.index(r, i)), f.ts_ns(r, i), f.dur_ns(r, i)));
                g.hta_stack(ends.collect(), root, &by_index, &mut cdepth)?;
            } else {
                g.exact_stack(f, r, &cpu, root, &mut on_stack, &mut cdepth);
            }
            // kernels launched from this thread, in frame order
            let mut links = launched_by.remove(&(pid, tid)).unwrap_or_default();
            links.sort_unstable();
            for (k, l) in links {
                if opts.hta && repeated.contains(&f.index(r, k)) {
                    return Err(CallGraphError(format!(
                        "ValueError: The truth value of a Series is ambiguous (kernel #{} is repeated in the frame, SPEC §5.9)",
                        f.index(r, k)
                    )));
                }
                g.add_edge(l as u32, k as u32, true, root, &mut cdepth);
            }
            let has = |pred: &dyn Fn(&str) -> bool| rows.iter().any(|&i| pred(r.strings.get(f.name(r, i as usize))));
            let label = if has(&|s| s.starts_with("ProfilerStep#")) {
                StackLabel::Main
            } else if has(&|s| s.contains("autograd::")) {
                StackLabel::Bwd
            } else {
                StackLabel::Other
            };
            g.stacks.push(CallStack { pid, tid, label, rows, root });
        }
        // the lookups go before the graph's own columns are made (at 1.2 M rows, 10 MB for
        // `by_index` alone)
        if repeated.is_empty() {
            g.node_of_row = Vec::new();
        }
        drop((by_index, launched_by, repeated, root_of_key, on_stack));
        g.children.lay_out(&g.parent);
        g.link_backward(f, r, opts.hta)?;
        g.finish(f, r, cdepth);
        Ok(g)
    }

    fn new_root(&mut self, cdepth: &mut Vec<i32>) -> u32 {
        let id = self.parent.len() as u32;
        self.parent.push(NONE);
        self.alive.push(true);
        self.kernel.push(false);
        cdepth.push(-1);
        id
    }

    /// HTA's `_add_edge`: a node already in the graph keeps its parent; a parent not yet in the
    /// graph is created under `root` (without being `root`'s child, as HTA does).
    fn add_edge(&mut self, parent: u32, child: u32, kernel: bool, root: u32, cdepth: &mut [i32]) {
        if self.alive[child as usize] {
            return;
        }
        if !self.alive[parent as usize] {
            self.alive[parent as usize] = true;
            self.parent[parent as usize] = root;
            self.kernel[parent as usize] = kernel;
            cdepth[parent as usize] = 0;
        }
        self.children.added.push(child);
        self.alive[child as usize] = true;
        self.parent[child as usize] = parent;
        self.kernel[child as usize] = kernel;
        cdepth[child as usize] = cdepth[parent as usize] + 1;
    }

    /// Step 1 for one thread's CPU rows in HTA's mode, given as their endpoints ([`hta_order`]):
    /// an open becomes a child of the stack's top and is pushed, a close pops whatever is on top.
    /// `by_index` finds an `index`'s first frame row.
    fn hta_stack(&mut self, mut ends: Vec<Endpoint>, root: u32, by_index: &ByIndex, cdepth: &mut [i32]) -> Result<(), CallGraphError> {
        hta_order(&mut ends)?;
        let mut stack: Vec<u32> = Vec::new();
        for e in ends {
            let Some(row) = by_index.get(e.index) else { continue };
            let row = row as u32;
            if e.open {
                let parent = stack.last().copied().unwrap_or(root);
                self.add_edge(parent, row, false, root, cdepth);
                stack.push(row);
            } else {
                stack.pop();
            }
        }
        Ok(())
    }

    /// Step 1 for one thread's CPU rows `cpu` in the exact view: the walk over their endpoints in
    /// [`super::endpoints::exact_order`] (an open becomes a child of the stack's top and is pushed; a close pops
    /// down to its own event if that is on the stack, else does nothing), without the endpoints.
    /// The opens are sorted alone (24 bytes a row, not two 32-byte endpoints); a close only
    /// matters before a later open, so the closes of the events opened so far wait in a heap
    /// (in `exact_order`'s close order) and those due are played before each open: at one time,
    /// closes come before non-zero opens, which come before zero-length events (each open and
    /// closed at once, so a leaf under the top). `on_stack` is all false before and after.
    fn exact_stack(&mut self, f: &HtaFrame, r: &RankTrace, cpu: &[u32], root: u32, on_stack: &mut [bool], cdepth: &mut [i32]) {
        // (ts, −dur for a non-zero duration else 0, index, row): exact_order's open key
        let mut opens: Vec<(i64, i64, u32, u32)> = cpu
            .iter()
            .map(|&i| {
                let dur = f.dur_ns(r, i as usize);
                (f.ts_ns(r, i as usize), if dur > 0 { -dur } else { 0 }, f.index(r, i as usize), i)
            })
            .collect();
        // a stable sort: in frame order the opens come in a few runs already in order, which it
        // finds and merges (a quicksort sorts them from scratch; every key is distinct)
        opens.sort();
        // closes of the pushed events: (time, dur, −index, row), smallest first
        let mut closes: std::collections::BinaryHeap<std::cmp::Reverse<(i64, i64, i64, u32)>> = Default::default();
        let mut stack: Vec<u32> = Vec::new();
        for (ts, neg_dur, index, row) in opens {
            while let Some(&std::cmp::Reverse((time, _, _, closing))) = closes.peek() {
                if time > ts {
                    break;
                }
                closes.pop();
                if on_stack[closing as usize] {
                    while let Some(top) = stack.pop() {
                        on_stack[top as usize] = false;
                        if top == closing {
                            break;
                        }
                    }
                }
            }
            let parent = stack.last().copied().unwrap_or(root);
            self.add_edge(parent, row, false, root, cdepth);
            if neg_dur < 0 {
                stack.push(row);
                on_stack[row as usize] = true;
                closes.push(std::cmp::Reverse((ts - neg_dur, -neg_dur, -i64::from(index), row)));
            }
        }
        // the closes left change no edge
        for top in stack {
            on_stack[top as usize] = false;
        }
    }

    /// Step 3: the bwd thread's top-level events under the main thread's annotations.
    fn link_backward(&mut self, f: &HtaFrame, r: &RankTrace, hta: bool) -> Result<(), CallGraphError> {
        let labelled: Vec<usize> = (0..self.stacks.len()).filter(|&s| self.stacks[s].label != StackLabel::Other).collect();
        let (bwd, main) = if hta {
            // HTA: exactly two stacks labelled main/bwd, sorted by label ("bwd" < "main")
            if labelled.len() != 2 {
                return Ok(());
            }
            let mut pair = labelled.clone();
            pair.sort_by_key(|&s| self.stacks[s].label != StackLabel::Bwd);
            (pair[0], pair[1])
        } else {
            let of = |l: StackLabel| labelled.iter().copied().filter(|&s| self.stacks[s].label == l).collect::<Vec<_>>();
            match (of(StackLabel::Bwd).as_slice(), of(StackLabel::Main).as_slice()) {
                ([b], [m]) => (*b, *m),
                _ => return Ok(()),
            }
        };
        let named = |prefix: &str| -> Vec<usize> {
            self.stacks[main].rows.iter().map(|&i| i as usize).filter(|&i| r.strings.get(f.name(r, i)).starts_with(prefix)).collect()
        };
        let mut parents = named("## backward ##");
        if parents.is_empty() {
            parents = named("ProfilerStep#");
        }
        let end = |i: usize| f.ts_ns(r, i) + f.dur_ns(r, i);
        let inside = |c: u32, a: usize| (c as usize) < f.len() && f.ts_ns(r, c as usize) >= f.ts_ns(r, a) && end(c as usize) <= end(a);
        let mut root = self.stacks[bwd].root;
        if !hta {
            let top: Vec<u32> = self.children.of(root).to_vec();
            let mut moved: FxHashSet<u32> = FxHashSet::default();
            for c in top {
                if let Some(&a) = parents.iter().find(|&&a| self.alive[a] && a != c as usize && inside(c, a)) {
                    self.parent[c as usize] = a as u32;
                    self.children.edit(a as u32).push(c);
                    moved.insert(c);
                }
            }
            self.children.edit(root).retain(|c| !moved.contains(c));
            return Ok(());
        }
        for a in parents {
            if !self.alive[a] {
                return Err(CallGraphError(format!("ValueError: {} not in the node map self.nodes", f.index(r, a))));
            }
            if root == NONE || !self.alive[root as usize] {
                return Err(CallGraphError(
                    "KeyError: the backward stack's root was deleted (CallStackGraph.update_parent_of_first_layer_nodes)".into(),
                ));
            }
            let have: FxHashSet<u32> = self.children.of(a as u32).iter().copied().collect();
            let mut valid: Vec<u32> =
                self.children.of(root).iter().copied().filter(|&c| inside(c, a) && self.alive[c as usize] && !have.contains(&c)).collect();
            valid.sort_unstable();
            valid.dedup();
            let mut old: Vec<u32> = valid.iter().map(|&v| self.parent[v as usize]).collect();
            old.sort_unstable();
            old.dedup();
            for &v in &valid {
                self.parent[v as usize] = a as u32;
            }
            self.children.edit(a as u32).extend(&valid);
            for p in old {
                if p == NONE {
                    continue;
                }
                self.children.edit(p).retain(|c| valid.binary_search(c).is_err());
                if self.children.of(p).is_empty() {
                    self.alive[p as usize] = false;
                }
            }
            if !self.alive[root as usize] {
                root = self.hta_get_root(a as u32)?;
                if let Some(s) = self.stacks.get_mut(bwd) {
                    s.root = root;
                }
            }
        }
        Ok(())
    }

    /// HTA's `CallStackGraph.get_root`: the first ancestor that is a root or not in the graph.
    fn hta_get_root(&self, node: u32) -> Result<u32, CallGraphError> {
        if !self.alive[node as usize] {
            return Ok(NONE);
        }
        let mut at = self.parent[node as usize];
        for _ in 0..=self.parent.len() {
            if at == NONE || at as usize >= self.rows || !self.alive[at as usize] {
                return Ok(at);
            }
            at = self.parent[at as usize];
        }
        Err(CallGraphError(
            "HTA 0.5.0 loops forever here (CallStackGraph.get_root after an event became its own parent while moving the backward stack)"
                .into(),
        ))
    }

    /// Step 4: the children laid out flat, then depths, kernel counts and sums from the live roots.
    /// `depth` is each node's depth as the build set it (it becomes [`CallGraph::depth`]).
    fn finish(&mut self, f: &HtaFrame, r: &RankTrace, mut depth: Vec<i32>) {
        let total = self.parent.len();
        // every node's live children into one flat list (roots' too, for the walk below); the
        // build-time lists ([`Children`]) go before the walk's own columns are made
        let children = std::mem::take(&mut self.children);
        self.child_start = Vec::with_capacity(total + 1);
        self.child_start.push(0);
        for v in 0..total as u32 {
            self.child_rows.extend(children.of(v).iter().copied().filter(|&c| (c as usize) < self.rows && self.alive[c as usize]));
            self.child_start.push(self.child_rows.len() as u32);
        }
        drop(children);
        self.child_rows.shrink_to_fit();
        // per node (a row's node is its index's first row, never after it): filled by the walk,
        // then turned into per-row columns in place
        let mut seen = vec![false; total];
        let mut count = vec![0u32; self.rows];
        // 4 bytes a row from the start (a sum of 2.1 s or more is set aside)
        let mut sum: IntColumn = std::iter::repeat_n(0, self.rows).collect();
        for root in self.rows..total {
            if !self.alive[root] {
                continue;
            }
            // iterative DFS: depth on entry, kernel sums on exit (a root needs none)
            depth[root] = -1;
            seen[root] = true;
            let mut todo: Vec<(u32, bool)> = vec![(root as u32, false)];
            while let Some((v, done)) = todo.pop() {
                let v = v as usize;
                if done {
                    if v >= self.rows {
                        continue;
                    }
                    if self.kernel[v] {
                        count[v] = 1;
                        sum.set(v, f.dur_ns(r, v));
                    } else {
                        let mut s = 0;
                        for &c in self.child_rows_of(v) {
                            count[v] += count[c as usize];
                            s += sum.get(c as usize);
                        }
                        sum.set(v, s);
                    }
                    continue;
                }
                todo.push((v as u32, true));
                if self.kernel[v] {
                    continue;
                }
                for &c in self.child_rows_of(v).iter().rev() {
                    if !seen[c as usize] {
                        seen[c as usize] = true;
                        depth[c as usize] = depth[v] + 1;
                        todo.push((c, false));
                    }
                }
            }
        }
        drop(seen);
        for i in 0..self.rows {
            // node v <= i: when v < i, slot v already holds row v's values, which are node v's
            let v = self.node_of(i);
            let live = v != NONE && self.alive[v as usize];
            let v = v as usize;
            depth[i] = if live { depth[v] } else { -1 };
            let c = if live { count[v] } else { 0 };
            sum.set(i, if c > 0 { sum.get(v) } else { 0 });
            count[i] = c;
        }
        depth.truncate(self.rows);
        (self.depth, self.num_kernels, self.kernel_dur_sum) = (depth, count, sum);
    }

    /// The node of frame row `row` (below `rows`).
    fn node_of(&self, row: usize) -> u32 {
        self.node_of_row.get(row).map_or(row as u32, |&v| v)
    }

    /// Whether frame row `row` is in the graph.
    pub fn contains(&self, row: usize) -> bool {
        self.node(row).is_some()
    }

    fn node(&self, row: usize) -> Option<usize> {
        if row >= self.rows {
            return None;
        }
        let v = self.node_of(row);
        (v != NONE && self.alive[v as usize]).then_some(v as usize)
    }

    /// Whether frame row `row` is a kernel hung under its launch.
    pub fn is_kernel(&self, row: usize) -> bool {
        self.node(row).is_some_and(|v| self.kernel[v])
    }

    /// The parent event of `row` (`None` at the top of a thread or outside the graph).
    pub fn parent(&self, row: usize) -> Option<usize> {
        let p = self.parent[self.node(row)?] as usize;
        (p < self.rows).then_some(p)
    }

    /// The child events of `row` (CPU events and kernels), in insertion order.
    pub fn children(&self, row: usize) -> Vec<usize> {
        let Some(v) = self.node(row) else { return Vec::new() };
        self.child_rows_of(v).iter().map(|&c| c as usize).collect()
    }

    /// The live child rows of node `v`.
    fn child_rows_of(&self, v: usize) -> &[u32] {
        &self.child_rows[self.child_start[v] as usize..self.child_start[v + 1] as usize]
    }

    /// `row` and every event below it (kernels included), depth first; empty outside the graph.
    pub fn descendants(&self, row: usize) -> Vec<usize> {
        let Some(v) = self.node(row) else { return Vec::new() };
        let mut out = Vec::new();
        let mut seen: FxHashSet<usize> = FxHashSet::default();
        let mut todo = vec![v];
        while let Some(v) = todo.pop() {
            if !seen.insert(v) {
                continue;
            }
            out.push(v);
            todo.extend(self.child_rows_of(v).iter().rev().map(|&c| c as usize));
        }
        out
    }

    /// The stack of the thread `(pid, tid)`, if it has one.
    pub fn stack_of(&self, pid: u32, tid: u32) -> Option<&CallStack> {
        self.stacks.iter().find(|s| s.pid == pid && s.tid == tid)
    }
}
