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

/// Link columns of one rank; each has one entry per row of the event table. Computed once, on
/// first use ([`RankTrace::links`]): reading and the overview do not need them, and they cost
/// 16 bytes per row.
#[derive(Debug, Clone, Default)]
pub struct Links {
    /// Device rows: the CPU row that launched them (same correlation id). Launcher rows (runtime,
    /// driver): the first device row they launched. `NONE` otherwise. (HTA: `index_correlation`.)
    pub launch: Vec<EventId>,
    /// Launcher and device rows: the CPU operator with the same `External id`. `NONE` otherwise.
    pub op: Vec<EventId>,
    /// The innermost enclosing complete event on the same pid/tid. `NONE` at top level.
    pub parent: Vec<EventId>,
    /// Profiler step number the row belongs to, -1 if none. CPU rows: the step whose window
    /// `[ts, ts+dur)` contains the row's start (the last such step in file order, as HTA); device
    /// rows: the step of their launcher.
    pub step: Vec<i32>,
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
    for e in 0..ev.len() {
        if !is_cpu_span(r, e as EventId) {
            continue;
        }
        if let Some(num) = step_number(r.name(e as EventId)) {
            steps.push(Step { number: num, event: e as EventId, ts: ev.ts[e], dur: ev.dur[e] });
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
        if ev.correlation[e] >= 0 && kind.is_launcher() && ev.phase[e] == Phase::Complete {
            match launcher_of.entry(ev.correlation[e]) {
                Entry::Vacant(v) => {
                    v.insert((kind, value(e as EventId)));
                }
                Entry::Occupied(mut o) => {
                    if o.get().0 == Kind::Driver && kind == Kind::Runtime {
                        o.insert((kind, value(e as EventId)));
                    }
                }
            }
        }
    }
    launcher_of
}

/// Computes every link column of `r` (whose `steps` are already found).
pub fn compute(r: &RankTrace) -> Links {
    let ev = &r.events;
    let n = ev.len();
    let mut links = Links { launch: vec![NONE; n], op: vec![NONE; n], parent: vec![NONE; n], step: vec![-1; n] };

    // launch <-> device by correlation
    let launcher_of = launchers_by(r, |e| e);
    for e in 0..n {
        if ev.kind[e].is_device() && ev.correlation[e] >= 0 {
            if let Some(&(_, l)) = launcher_of.get(&ev.correlation[e]) {
                links.launch[e] = l;
                if links.launch[l as usize] == NONE {
                    links.launch[l as usize] = e as EventId;
                }
            }
        }
    }

    // operator <-> launches/kernels by External id
    let mut op_of: FxHashMap<i64, EventId> = FxHashMap::default();
    for e in 0..n {
        if ev.kind[e] == Kind::CpuOp && ev.external_id[e] >= 0 {
            op_of.entry(ev.external_id[e]).or_insert(e as EventId);
        }
    }
    for e in 0..n {
        if (ev.kind[e].is_device() || ev.kind[e].is_launcher()) && ev.external_id[e] >= 0 {
            if let Some(&o) = op_of.get(&ev.external_id[e]) {
                links.op[e] = o;
            }
        }
    }

    // nesting per (pid, tid), device work (and GPU annotations) apart from host calls: rocprof
    // writes kernels on the launching thread's pid/tid, and they must not nest under the launch
    let mut by_thread: FxHashMap<(bool, u32, u32), Vec<EventId>> = FxHashMap::default();
    for e in 0..n {
        if ev.has_dur(e as EventId) && matches!(ev.phase[e], Phase::Complete | Phase::Begin) {
            let device = ev.kind[e].is_device() || ev.kind[e] == Kind::GpuUserAnnotation;
            by_thread.entry((device, ev.pid[e], ev.tid[e])).or_default().push(e as EventId);
        }
    }
    for rows in by_thread.values_mut() {
        rows.sort_unstable_by_key(|&e| (ev.ts[e as usize], std::cmp::Reverse(ev.dur[e as usize]), e));
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
                links.parent[e as usize] = top;
            }
            stack.push(e);
        }
    }

    // step membership
    let steps = &r.steps;
    if !steps.is_empty() {
        // For each CPU row, the last step (in file order) whose window [ts, ts+dur) contains the
        // row's start. Steps are few and rarely overlap: scan them from the latest start back,
        // stopping once no earlier-starting step can still reach `ts`.
        let mut order: Vec<usize> = (0..steps.len()).collect();
        order.sort_by_key(|&i| steps[i].ts);
        let max_dur = steps.iter().map(|s| s.dur).max().unwrap_or(0);
        for e in 0..n {
            if ev.kind[e].is_device() {
                continue;
            }
            let ts = ev.ts[e];
            let upto = order.partition_point(|&i| steps[i].ts <= ts);
            let mut best: Option<usize> = None;
            for &i in order[..upto].iter().rev() {
                let s = &steps[i];
                if s.ts + max_dur <= ts {
                    break;
                }
                if ts < s.ts + s.dur && best.is_none_or(|b| i > b) {
                    best = Some(i);
                }
            }
            if let Some(b) = best {
                links.step[e] = steps[b].number;
            }
        }
        for e in 0..n {
            if ev.kind[e].is_device() {
                let l = links.launch[e];
                if l != NONE {
                    links.step[e] = links.step[l as usize];
                }
            }
        }
    }
    links
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
