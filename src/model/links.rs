//! Index columns linking events, computed once after reading (see `Links`).

use std::collections::hash_map::Entry;

use rustc_hash::FxHashMap;
use serde::Serialize;

use super::events::{EventId, NONE};
use super::kind::{Kind, Phase};
use super::RankTrace;

/// A profiler step (Kineto `ProfilerStep#N`, Paddle `ProfileStep#N[12.3 ms]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Step {
    /// N.
    pub number: i32,
    /// The step's own row.
    pub event: EventId,
    /// Start, ns.
    pub ts: i64,
    /// Duration, ns.
    pub dur: i64,
}

/// Link columns of one rank; each has one entry per row of the event table and is computed once,
/// on its first use ([`RankTrace::launch_links`], [`RankTrace::parent_links`],
/// [`RankTrace::step_links`]): reading and the overview need none of them, the page's dashboard
/// only `launch`, and they cost 4 bytes a row each. The operator of each row
/// ([`RankTrace::ops`]) is computed apart.
#[derive(Debug, Clone, Default)]
pub struct Links {
    /// Device rows: the CPU row that launched them (same correlation id). Launcher rows (runtime,
    /// driver): the first device row they launched. `NONE` otherwise. (HTA: `index_correlation`.)
    pub(super) launch: std::sync::OnceLock<Vec<EventId>>,
    /// The innermost enclosing complete event on the same pid/tid. `NONE` at top level.
    pub(super) parent: std::sync::OnceLock<Vec<EventId>>,
    /// Profiler step number the row belongs to, -1 if none. CPU rows: the step whose window
    /// `[ts, ts+dur)` contains the row's start (the last such step in file order, as HTA); device
    /// rows: the step of their launcher.
    pub(super) step: std::sync::OnceLock<Vec<i32>>,
}

/// The step number in a name like `ProfilerStep#12` or `ProfileStep#3[9.197 ms]`.
pub fn step_number(name: &str) -> Option<i32> {
    let rest = name.strip_prefix("ProfilerStep").or_else(|| name.strip_prefix("ProfileStep"))?;
    let rest = rest.trim_start().strip_prefix('#')?.trim_start();
    let digits: &str = &rest[..rest.bytes().take_while(|c| c.is_ascii_digit()).count()];
    digits.parse().ok()
}

/// Whether row `e` of `r` is a complete event on the CPU side, what can mark a step: not a device
/// row, and not a `gpu_user_annotation` copy of a CPU-side marker.
pub fn is_cpu_span(r: &RankTrace, e: EventId) -> bool {
    let (ev, e) = (&r.events, e as usize);
    ev.phase[e] == Phase::Complete && !ev.kind[e].is_device() && ev.kind[e] != Kind::GpuUserAnnotation
}

/// The profiler steps of `r` (CPU-side `ProfilerStep#N` / `ProfileStep#N` complete events), in
/// file order.
pub fn find_steps(r: &RankTrace) -> Vec<Step> {
    let ev = &r.events;
    let mut steps = Vec::new();
    // each distinct name parsed once, not each CPU event's
    let step_of: Vec<Option<i32>> = r.strings.iter().map(step_number).collect();
    for e in 0..ev.len() {
        if !is_cpu_span(r, e as EventId) {
            continue;
        }
        if let Some(&Some(num)) = step_of.get(ev.name.get(e).0 as usize) {
            steps.push(Step { number: num, event: e as EventId, ts: ev.ts[e], dur: ev.dur.get(e) });
        }
    }
    steps
}

/// The launching call of each correlation id of `r`, as (its kind, `value(its row)`): the
/// complete runtime or driver row with that id, the runtime call when both carry it
/// (cudaLaunchKernel → cuLaunchKernel). `value` sees the candidate rows in row order.
pub fn launchers_by<T>(r: &RankTrace, mut value: impl FnMut(EventId) -> T) -> FxHashMap<i64, (Kind, T)> {
    let ev = &r.events;
    let mut launcher_of: FxHashMap<i64, (Kind, T)> = FxHashMap::default();
    for e in 0..ev.len() {
        let kind = ev.kind[e];
        if is_launch_call(r, e) {
            match launcher_of.entry(ev.correlation.get(e)) {
                Entry::Vacant(v) => {
                    v.insert((kind, value(e as EventId)));
                }
                Entry::Occupied(mut o) => {
                    if replaces(o.get().0, kind) {
                        o.insert((kind, value(e as EventId)));
                    }
                }
            }
        }
    }
    launcher_of
}

/// Whether row `e` of `r` is a call that can be a correlation id's launcher: a complete runtime
/// or driver call with the id.
fn is_launch_call(r: &RankTrace, e: usize) -> bool {
    let ev = &r.events;
    ev.correlation.get(e) >= 0 && ev.kind[e].is_launcher() && ev.phase[e] == Phase::Complete
}

/// Whether a later launch call of kind `candidate` with the same id replaces the launcher found so
/// far, of kind `current`: the runtime call is preferred to the driver call it made.
fn replaces(current: Kind, candidate: Kind) -> bool {
    current == Kind::Driver && candidate == Kind::Runtime
}

/// `(key, row)` of the rows `0..n` that `key` gives a key, sorted by key then row. The keys
/// (correlations) mostly grow with the row already, which the stable sort's runs make cheap; a
/// join of two such lists, or their groups of equal keys, replaces a hash map of millions of
/// entries. Used for model rows here and for frame rows by `hta_frame`.
pub(crate) fn keyed_rows(n: usize, key: impl Fn(usize) -> Option<i64>) -> Vec<(i64, EventId)> {
    let mut v: Vec<(i64, EventId)> = (0..n).filter_map(|e| key(e).map(|k| (k, e as EventId))).collect();
    v.sort_by_key(|&(k, _)| k);
    v
}

/// The groups of equal keys of a [`keyed_rows`] list: `(key, rows in row order)`.
fn groups(v: &[(i64, EventId)]) -> impl Iterator<Item = (i64, &[(i64, EventId)])> {
    v.chunk_by(|a, b| a.0 == b.0).map(|g| (g[0].0, g))
}

/// The `launch` column of `r` ([`Links`]): device rows to their launcher by correlation
/// ([`launchers_by`]'s choice: the first launch call with the id, replaced in row order as
/// [`replaces`] says), each launcher to the first device row it launched.
pub(super) fn launches(r: &RankTrace) -> Vec<EventId> {
    let ev = &r.events;
    let n = ev.len();
    let mut launch = vec![NONE; n];
    let launchers = keyed_rows(n, |e| is_launch_call(r, e).then_some(ev.correlation.get(e)));
    let devices = keyed_rows(n, |e| (ev.kind[e].is_device() && ev.correlation.get(e) >= 0).then_some(ev.correlation.get(e)));
    let mut devices = groups(&devices).peekable();
    for (corr, group) in groups(&launchers) {
        let kind = |e: EventId| ev.kind[e as usize];
        let l = group[1..].iter().fold(group[0].1, |l, &(_, e)| if replaces(kind(l), kind(e)) { e } else { l });
        while devices.next_if(|(c, _)| *c < corr).is_some() {}
        if let Some((_, rows)) = devices.next_if(|(c, _)| *c == corr) {
            for &(_, d) in rows {
                launch[d as usize] = l;
            }
            launch[l as usize] = rows[0].1;
        }
    }
    launch
}

/// Launcher and device rows: the first CPU operator with their `External id`; `NONE` for the
/// others (see [`RankTrace::ops`], computed apart from [`Links`]: no analysis needs it). PyTorch
/// numbers operators from 1 up: when the ids are that dense, a vector indexed by id; else a hash
/// map.
pub fn ops(r: &RankTrace) -> Vec<EventId> {
    let ev = &r.events;
    let n = ev.len();
    let mut op = vec![NONE; n];
    let is_op = |e: usize| ev.kind[e] == Kind::CpuOp && ev.external_id.get(e) >= 0;
    let (mut count, mut min, mut max) = (0usize, i64::MAX, i64::MIN);
    for e in (0..n).filter(|&e| is_op(e)) {
        (count, min, max) = (count + 1, min.min(ev.external_id.get(e)), max.max(ev.external_id.get(e)));
    }
    if count == 0 {
        return op;
    }
    let linked = |e: usize| (ev.kind[e].is_device() || ev.kind[e].is_launcher()) && ev.external_id.get(e) >= 0;
    if ((max - min) as u64) < 4 * count as u64 {
        let mut first = vec![NONE; (max - min) as usize + 1];
        for e in (0..n).filter(|&e| is_op(e)) {
            let slot = &mut first[(ev.external_id.get(e) - min) as usize];
            if *slot == NONE {
                *slot = e as EventId;
            }
        }
        for (e, op) in op.iter_mut().enumerate() {
            if linked(e) && (min..=max).contains(&ev.external_id.get(e)) {
                *op = first[(ev.external_id.get(e) - min) as usize];
            }
        }
        return op;
    }
    let mut op_of: FxHashMap<i64, EventId> = FxHashMap::default();
    op_of.reserve(count);
    for e in (0..n).filter(|&e| is_op(e)) {
        op_of.entry(ev.external_id.get(e)).or_insert(e as EventId);
    }
    for (e, op) in op.iter_mut().enumerate() {
        if linked(e) {
            if let Some(&o) = op_of.get(&ev.external_id.get(e)) {
                *op = o;
            }
        }
    }
    op
}

/// The `parent` column of `r` ([`Links`]): nesting per (pid, tid), device work (and GPU
/// annotations) apart from host calls: rocprof writes kernels on the launching thread's pid/tid,
/// and they must not nest under the launch.
pub(super) fn parents(r: &RankTrace) -> Vec<EventId> {
    let ev = &r.events;
    let mut parent = vec![NONE; ev.len()];
    // rows of one thread mostly follow each other: the previous row's thread is tried first
    let mut thread_of: FxHashMap<(bool, u32, u32), usize> = FxHashMap::default();
    let mut threads: Vec<Vec<EventId>> = Vec::new();
    let mut last: Option<((bool, u32, u32), usize)> = None;
    for e in 0..ev.len() {
        if ev.has_dur(e as EventId) && matches!(ev.phase[e], Phase::Complete | Phase::Begin) {
            let device = ev.kind[e].is_device() || ev.kind[e] == Kind::GpuUserAnnotation;
            let key = (device, ev.pid.get(e), ev.tid.get(e));
            let t = match last {
                Some((k, t)) if k == key => t,
                _ => *thread_of.entry(key).or_insert_with(|| {
                    threads.push(Vec::new());
                    threads.len() - 1
                }),
            };
            last = Some((key, t));
            threads[t].push(e as EventId);
        }
    }
    for rows in &mut threads {
        // by start, longer first, then row (the rows are in row order and the sort is stable);
        // a thread's rows are usually in that order already
        let key = |e: EventId| (ev.ts[e as usize], std::cmp::Reverse(ev.dur.get(e as usize)));
        if !rows.is_sorted_by_key(|&e| key(e)) {
            rows.sort_by_key(|&e| key(e));
        }
        let mut stack: Vec<EventId> = Vec::new();
        for &e in rows.iter() {
            let ts = ev.ts[e as usize];
            while let Some(&top) = stack.last() {
                if ts < ev.end(top) {
                    break;
                }
                stack.pop();
            }
            if let Some(&top) = stack.last() {
                parent[e as usize] = top;
            }
            stack.push(e);
        }
    }
    parent
}

/// The `step` column of `r` ([`Links`]; `r.steps` already found), from its `launch` column: for
/// each CPU row, the last step (in file order) whose window `[ts, ts+dur)` contains the row's
/// start; device rows take their launcher's.
pub(super) fn steps(r: &RankTrace, launch: &[EventId]) -> Vec<i32> {
    let (ev, steps) = (&r.events, &r.steps);
    let mut step = vec![-1; ev.len()];
    if steps.is_empty() {
        return step;
    }
    let windows: Vec<(i64, i64, i32)> = steps.iter().map(|s| (s.ts, s.ts + s.dur, s.number)).collect();
    let mut windows = super::windows::Windows::new(&windows);
    for (e, step) in step.iter_mut().enumerate() {
        if !ev.kind[e].is_device() {
            *step = windows.at(ev.ts[e]).unwrap_or(-1);
        }
    }
    for e in 0..ev.len() {
        if ev.kind[e].is_device() {
            let l = launch[e];
            if l != NONE {
                step[e] = step[l as usize];
            }
        }
    }
    step
}

#[cfg(test)]
mod tests {
    use super::step_number;

    #[test]
    fn step_names() {
        assert_eq!(step_number("ProfilerStep#12"), Some(12));
        assert_eq!(step_number("ProfilerStep # 3"), Some(3));
        assert_eq!(step_number("ProfileStep#2[9.197 ms]"), Some(2));
        assert_eq!(step_number("ProfilerStep"), None);
        assert_eq!(step_number("aten::add"), None);
    }
}
