//! The GPU half of the graph (HTA's `_construct_graph_from_kernels`): each GPU operation's span,
//! how it came to start (its launch, or the previous operation on its stream) and the
//! synchronisations between streams and with the CPU.
//!
//! GPU rows of the window are walked by start time (synchronisation events by their end):
//! * a synchronisation event (`cuda_sync`): `Stream Wait Event` makes the next operation launched
//!   on its stream after the `cudaStreamWaitEvent` wait for the operation launched before the
//!   matching `cudaEventRecord`; `Event Sync` links that operation's end to the
//!   `cudaEventSynchronize` call's end; `Stream Sync` links the stream's last operation, `Context
//!   Sync` every stream's last operation, to the waiting call's end.
//! * an operation: its span; a pending wait becomes a sync edge; then a launch-delay edge from
//!   its launch call when the GPU was waiting for the launch, else a kernel-kernel edge from the
//!   stream's previous operation.
//!
//! HTA 0.5.0 (`hta`) decides "the GPU was waiting for the launch" from the queue length (SPEC
//! §2.5) of the whole rank: the launch left exactly one operation queued and the operation's own
//! start left none, the stream's previous operation ended before the launch call started, and so
//! did a pending wait's source. Its launches are the calls it names (no `cuLaunchKernelEx`, no
//! `cudaGraphLaunch`), its events CUDA's.
//!
//! Without `hta`, an operation's launch is its launching call by correlation (any runtime or
//! driver call: HIP, `cuLaunchKernelEx`, `cudaGraphLaunch`, whose kernels all depend on the one
//! call), and the GPU waited for the launch when the stream's previous operation (and a pending
//! wait's source) ended before the call started; the queue-length test is dropped because it
//! also rejects a kernel whose successor was launched before it started, leaving the kernel
//! unconnected to its launch. HIP's event calls are recognised, a wait between operations of one
//! stream (implied by stream order) is left out instead of invalidating the graph, and on a rank
//! without `cuda_sync` events (HIP, or CUDA traced without them) every blocking call but the
//! asynchronous copies (device, stream and event synchronisation, synchronous copies) waits for
//! the GPU work that finished while it ran: a sync edge from the last operation of each stream ending inside a device
//! synchronisation, or from the last operation ending inside any other blocking call.

use rustc_hash::FxHashMap;

use super::super::hta_frame::{ByIndex, HtaFrame};
use super::super::launches::Launchers;
use super::super::queue::{QueuePoint, HTA_LAUNCH_NAMES};
use super::graph::{EdgeKind, Graph};
use crate::model::{Kind, RankTrace};

/// What building the GPU half found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GpuStats {
    /// GPU operations in the window.
    pub operations: usize,
    /// Operations that got neither a launch, a kernel-kernel nor a sync edge (HTA's "No edge was
    /// added" warning).
    pub unconnected: usize,
    /// Waits between operations of one stream left out (default mode).
    pub same_stream_waits: usize,
    /// Sync edges inferred for blocking calls on a rank without `cuda_sync` events.
    pub inferred_syncs: usize,
}

/// Why HTA 0.5.0 fails where it fails.
pub type GpuError = String;

/// Event calls recognised (HTA: CUDA's only).
fn is_event_record(name: &str, hta: bool) -> bool {
    name == "cudaEventRecord" || !hta && matches!(name, "cudaEventRecordWithFlags" | "hipEventRecord" | "hipEventRecordWithFlags")
}

fn is_stream_wait(name: &str, hta: bool) -> bool {
    name == "cudaStreamWaitEvent" || !hta && name == "hipStreamWaitEvent"
}

/// Whether a CPU call waits for the GPU, so its span is not CPU work. HTA: CUDA's synchronise
/// calls, `cudaEventQuery` and `cudaMemcpy`/`cudaMemcpyAsync`. Without `hta`, also HIP's and the
/// driver's (`hipDeviceSynchronize`, `cuCtxSynchronize`, `cuStreamSynchronize`, ...) and every
/// `*Memcpy*` call of the runtime or driver that is not a launch of an asynchronous copy.
pub fn is_blocking(name: &str, hta: bool) -> bool {
    const HTA: [&str; 6] =
        ["cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventQuery", "cudaEventSynchronize", "cudaMemcpy", "cudaMemcpyAsync"];
    if HTA.contains(&name) {
        return true;
    }
    if hta {
        return false;
    }
    sync_kind(name).is_some()
        || (name.starts_with("hip") || name.starts_with("cu")) && name.contains("Memcpy") && !name.contains("Async")
        || matches!(name, "hipMemcpyAsync" | "hipMemcpyWithStream")
}

/// How a blocking synchronise call waits (default mode): `Some(true)` for the whole device,
/// `Some(false)` for a stream or an event.
fn sync_kind(name: &str) -> Option<bool> {
    let rest = name.strip_prefix("cuda").or_else(|| name.strip_prefix("hip")).or_else(|| name.strip_prefix("cu"))?;
    match rest {
        "DeviceSynchronize" | "CtxSynchronize" | "ThreadSynchronize" => Some(true),
        "StreamSynchronize" | "EventSynchronize" | "EventQuery" | "StreamQuery" => Some(false),
        _ => None,
    }
}

/// Adds the GPU half to `g`. `rows`: the window's frame rows, in order; `launcher`: each row's
/// launching call (default mode; empty with `hta`); `queue`: HTA's queue-length series of the
/// whole rank (with `hta`; empty otherwise). `Err` where HTA 0.5.0 raises (only with `hta`).
pub fn add_gpu_edges(
    g: &mut Graph,
    f: &HtaFrame,
    r: &RankTrace,
    rows: &[usize],
    hta: bool,
    launcher: &Launchers,
    queue: &[QueuePoint],
) -> Result<GpuStats, GpuError> {
    let name = |i: usize| r.strings.get(f.name(r, i));
    let is_sync_row =
        |i: usize| if hta { r.strings.get(f.cat(r, i)) == "cuda_sync" } else { r.events.kind[f.row[i] as usize] == Kind::CudaSync };
    let by_index = ByIndex::new(f, r);
    // the launching call of a GPU row (HTA: the row `index_correlation` names)
    let launch_of = |i: usize| -> Option<usize> {
        if hta {
            by_index.get(f.index_correlation(r, i))
        } else {
            launcher.get(i)
        }
    };
    // nodes by index (the last row of an index, as HTA's event → node map)
    let mut node_by_index: FxHashMap<i64, (u32, u32)> = FxHashMap::default();
    for &i in rows {
        if let Some(n) = g.nodes_of(i) {
            node_by_index.insert(i64::from(f.index(r, i)), n);
        }
    }
    let nodes_of_launch = |g: &Graph, i: usize| -> Option<(u32, u32)> {
        if hta {
            node_by_index.get(&f.index_correlation(r, i)).copied()
        } else {
            launcher.get(i).and_then(|l| g.nodes_of(l))
        }
    };

    // GPU rows of the window, sync events by their end (each row's key made once, not at each
    // comparison; of equal keys, the earlier row first)
    let mut ops: Vec<usize> = rows
        .iter()
        .copied()
        .filter(|&i| {
            if hta {
                (f.stream(r, i) != -1 || matches!(name(i), "Event Sync" | "Context Sync")) && f.index_correlation(r, i) >= 0
            } else {
                let kind = r.events.kind[f.row[i] as usize];
                kind.is_device() && kind != Kind::GpuUserAnnotation && launcher.get(i).is_some()
            }
        })
        .collect();
    ops.sort_by_cached_key(|&i| if is_sync_row(i) { f.ts_ns(r, i) + f.dur_ns(r, i) } else { f.ts_ns(r, i) });

    // HTA's queue length at each event index (the whole rank)
    let queue: FxHashMap<i64, i64> = queue.iter().map(|p| (i64::from(f.index(r, p.row())), p.queue_length())).collect();
    let events = EventMatches::new(f, r, hta, &by_index, launcher);

    let mut stats = GpuStats::default();
    let mut last_node: FxHashMap<i64, u32> = FxHashMap::default();
    let mut streams_seen: Vec<i64> = Vec::new();
    // destination kernel index → source kernel index
    let mut kernel_sync: FxHashMap<i64, i64> = FxHashMap::default();
    for &i in &ops {
        if is_sync_row(i) {
            let wait_end = |g: &Graph| nodes_of_launch(g, i).map(|(_, end)| end);
            match name(i) {
                n @ ("Stream Wait Event" | "Event Sync") => {
                    let Some(&src_kernel) = events.recorded.get(&f.wait_on_cuda_event_record_corr_id(r, i)) else { continue };
                    if n == "Stream Wait Event" {
                        let call = launch_of(i).map(|c| i64::from(f.index(r, c)));
                        let Some(&dest) = call.and_then(|c| events.waiting.get(&c)) else { continue };
                        kernel_sync.insert(dest, src_kernel);
                    } else if let (Some(&(_, src_end)), Some(end)) = (node_by_index.get(&src_kernel), wait_end(g)) {
                        g.add(src_end, end, EdgeKind::Sync, false);
                    }
                }
                "Stream Sync" | "Context Sync" => {
                    let Some(end) = wait_end(g) else { continue };
                    let srcs: Vec<u32> = if name(i) == "Context Sync" {
                        streams_seen.iter().map(|s| last_node[s]).collect()
                    } else {
                        last_node.get(&f.stream(r, i)).copied().into_iter().collect()
                    };
                    for src in srcs {
                        g.add(src, end, EdgeKind::Sync, false);
                    }
                }
                other if hta => return Err(format!("AssertionError: unexpected synchronization event '{other}'")),
                _ => {}
            }
            continue;
        }
        stats.operations += 1;
        let Some((start, end)) = g.nodes_of(i) else { continue };
        let stream = f.stream(r, i);
        let e = g.add(start, end, EdgeKind::Operator, false);
        g.attribute(e, None);
        let mut edge_added = false;
        let mut sync_end: Option<u32> = None;
        if let Some(src) = kernel_sync.remove(&i64::from(f.index(r, i))) {
            if let Some(&(src_start, src_end)) = node_by_index.get(&src) {
                let same_stream = f.stream(r, g.nodes[src_start as usize].row as usize) == stream;
                if !hta && same_stream {
                    stats.same_stream_waits += 1;
                } else {
                    g.add(src_end, start, EdgeKind::Sync, false);
                    sync_end = Some(src_end);
                    edge_added = true;
                }
            }
        }
        let last = last_node.get(&stream).copied();
        let ts = |n: u32| g.nodes[n as usize].ts;
        let launch = launch_of(i).map(|l| (l, f.ts_ns(r, l)));
        let queue_ok = !hta || {
            let q = |idx: i64| queue.get(&idx).copied();
            q(f.index_correlation(r, i)) == Some(1) && q(i64::from(f.index(r, i))) == Some(0)
        };
        let waited_for_launch =
            launch.is_some_and(|(_, lts)| queue_ok && last.is_none_or(|n| ts(n) < lts) && sync_end.is_none_or(|n| ts(n) < lts));
        if waited_for_launch {
            match nodes_of_launch(g, i) {
                Some((launch_start, _)) => {
                    g.add(launch_start, start, EdgeKind::LaunchDelay, false);
                    edge_added = true;
                }
                None if hta => {
                    return Err(format!(
                        "AssertionError: Could not find runtime index = {}, current kernel stream = {stream}, name = {}, correlation = {}",
                        f.index_correlation(r, i),
                        name(i),
                        f.correlation(r, i)
                    ))
                }
                None => {}
            }
        } else if let Some(prev) = last.filter(|&n| sync_end.is_none_or(|s| ts(s) < ts(n))) {
            let e = g.add(prev, start, EdgeKind::KernelKernelDelay, false);
            g.attribute(e, None);
            edge_added = true;
        }
        if !edge_added {
            stats.unconnected += 1;
        }
        if last_node.insert(stream, end).is_none() {
            streams_seen.push(stream);
        }
    }
    if !hta && !rows.iter().any(|&i| is_sync_row(i)) {
        stats.inferred_syncs = infer_syncs(g, f, r, rows, &ops);
    }
    Ok(stats)
}

/// Default mode, rank without `cuda_sync` events: sync edges into blocking calls (module docs).
fn infer_syncs(g: &mut Graph, f: &HtaFrame, r: &RankTrace, rows: &[usize], ops: &[usize]) -> usize {
    // per stream: (end time, end node) of its operations, by end
    let mut by_stream: FxHashMap<i64, Vec<(i64, u32)>> = FxHashMap::default();
    for &i in ops {
        if let Some((_, end)) = g.nodes_of(i) {
            by_stream.entry(f.stream(r, i)).or_default().push((g.nodes[end as usize].ts, end));
        }
    }
    let mut streams: Vec<i64> = by_stream.keys().copied().collect();
    streams.sort_unstable();
    for v in by_stream.values_mut() {
        // stable: a stream's operations come nearly in order, which it finds
        v.sort();
    }
    // the last operation of a stream ending in [from, to]
    let last_in = |s: i64, from: i64, to: i64| -> Option<(i64, u32)> {
        let v = &by_stream[&s];
        let k = v.partition_point(|&(t, _)| t <= to);
        k.checked_sub(1).map(|k| v[k]).filter(|&(t, _)| t >= from)
    };
    let mut added = 0;
    for &i in rows {
        let name = r.strings.get(f.name(r, i));
        // an asynchronous copy's call (blocking for the span's weight, as HTA counts it) is not
        // taken to wait for other work
        if f.stream(r, i) != -1 || !is_blocking(name, false) || name.contains("Async") {
            continue;
        }
        let Some((_, end)) = g.nodes_of(i) else { continue };
        let (from, to) = (f.ts_ns(r, i), f.ts_ns(r, i) + f.dur_ns(r, i));
        let found: Vec<(i64, u32)> = streams.iter().filter_map(|&s| last_in(s, from, to)).collect();
        let srcs: Vec<u32> = if sync_kind(name) == Some(true) {
            found.iter().map(|&(_, n)| n).collect()
        } else {
            found.iter().copied().max_by_key(|&(t, _)| t).map(|(_, n)| n).into_iter().collect()
        };
        for src in srcs {
            g.add(src, end, EdgeKind::Sync, false);
            added += 1;
        }
    }
    added
}

/// CUDA event bookkeeping (HTA's `_get_cuda_event_record_df` and
/// `_get_cuda_stream_wait_event_df`): the operation launched last before each `cudaEventRecord`
/// on the recorded stream, and the one launched first after each `cudaStreamWaitEvent` on its
/// thread and stream.
struct EventMatches {
    /// Record call's correlation → `index` of the GPU operation it records.
    recorded: FxHashMap<i64, i64>,
    /// Wait call's `index` → `index` of the GPU operation that waits.
    waiting: FxHashMap<i64, i64>,
}

impl EventMatches {
    fn new(f: &HtaFrame, r: &RankTrace, hta: bool, by_index: &ByIndex, launcher: &Launchers) -> EventMatches {
        let name = |i: usize| r.strings.get(f.name(r, i));
        let n = f.len();
        let mut m = EventMatches { recorded: FxHashMap::default(), waiting: FxHashMap::default() };
        if !(0..n).any(|i| is_event_record(name(i), hta) || is_stream_wait(name(i), hta)) {
            return m;
        }
        // launches: (launch row, GPU row), by launch time; the position is HTA's launch_id.
        // HTA: its launch calls and the row their `index_correlation` names; else every GPU
        // operation with its launching call.
        let mut launches: Vec<(usize, usize)> = if hta {
            (0..n)
                .filter(|&i| f.index_correlation(r, i) > 0 && HTA_LAUNCH_NAMES.contains(&name(i)))
                .filter_map(|l| {
                    by_index
                        .get(f.index_correlation(r, l))
                        .filter(|&k| f.stream(r, k) != -1 && f.index_correlation(r, k) > 0)
                        .map(|k| (l, k))
                })
                .collect()
        } else {
            (0..n)
                .filter(|&k| f.stream(r, k) != -1 && r.events.kind[f.row[k] as usize] != Kind::CudaSync)
                .filter_map(|k| launcher.get(k).map(|l| (l, k)))
                .collect()
        };
        launches.sort_by_key(|&(l, k)| (f.ts_ns(r, l), if hta { 0 } else { f.ts_ns(r, k) }));
        // launches per (gpu, stream) and per (pid, tid, stream), in launch order
        let mut per_stream: FxHashMap<(u32, i64), Vec<usize>> = FxHashMap::default();
        let mut per_thread: FxHashMap<(u32, u32, i64), Vec<usize>> = FxHashMap::default();
        for (id, &(l, k)) in launches.iter().enumerate() {
            per_stream.entry((f.pid(r, k), f.stream(r, k))).or_default().push(id);
            per_thread.entry((f.pid(r, l), f.tid(r, l), f.stream(r, k))).or_default().push(id);
        }
        let launch_ts = |id: usize| f.ts_ns(r, launches[id].0);
        let kernel_index = |id: usize| -> i64 {
            let (l, k) = launches[id];
            if hta {
                f.index_correlation(r, l)
            } else {
                i64::from(f.index(r, k))
            }
        };
        // the recorded (stream, gpu) of each record correlation, from the sync events waiting on it
        let mut stream_of_record: FxHashMap<i64, (i64, u32)> = FxHashMap::default();
        // the rows with a `wait_on_stream` (the few sync events), found in the sparse arguments:
        // a search of all of them for each row was 2.6 % of `analyze`'s CPU time
        let waiting = r.events.rows_with(crate::model::IntArg::WaitOnStream);
        for i in (0..n).filter(|&i| !waiting.is_empty() && waiting.binary_search(&f.row[i]).is_ok()) {
            let wait = f.wait_on_stream(r, i);
            if wait > -1 {
                stream_of_record.entry(f.wait_on_cuda_event_record_corr_id(r, i)).or_insert((wait, f.pid(r, i)));
            }
        }
        for i in (0..n).filter(|&i| is_event_record(name(i), hta)) {
            let Some(&(stream, gpu)) = stream_of_record.get(&f.correlation(r, i)) else { continue };
            let Some(ids) = per_stream.get(&(gpu, stream)) else { continue };
            // the last launch at or before the record (a launch at the same time sorts first)
            let k = ids.partition_point(|&id| launch_ts(id) <= f.ts_ns(r, i));
            if let Some(k) = k.checked_sub(1) {
                m.recorded.insert(f.correlation(r, i), kernel_index(ids[k]));
            }
        }
        // the GPU-side `Stream Wait Event` row of each wait call gives the waiting stream
        let mut wait_row: FxHashMap<usize, usize> = FxHashMap::default();
        for w in (0..n).filter(|&w| f.stream(r, w) != -1 && name(w) == "Stream Wait Event") {
            let call = if hta { by_index.get(f.index_correlation(r, w)) } else { launcher.get(w) };
            if let Some(c) = call {
                wait_row.entry(c).or_insert(w);
            }
        }
        for i in (0..n).filter(|&i| is_stream_wait(name(i), hta)) {
            let w = if hta {
                (f.index_correlation(r, i) > 0).then(|| by_index.get(f.index_correlation(r, i))).flatten()
            } else {
                wait_row.get(&i).copied()
            };
            let Some(w) = w.filter(|&w| f.stream(r, w) != -1) else { continue };
            let Some(ids) = per_thread.get(&(f.pid(r, i), f.tid(r, i), f.stream(r, w))) else { continue };
            // the first launch after the wait call (one at the same time sorts before it)
            let k = ids.partition_point(|&id| launch_ts(id) <= f.ts_ns(r, i));
            if let Some(&id) = ids.get(k) {
                m.waiting.insert(i64::from(f.index(r, i)), kernel_index(id));
            }
        }
        m
    }
}
