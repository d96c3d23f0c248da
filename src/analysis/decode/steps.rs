//! Decode steps: where each step is, which GPU operations belong to it (its window, or by launch),
//! prefill or decode, and the outliers among them.

use rustc_hash::FxHashMap;

use crate::analysis::gpu_ops::{times, times_in_row_order, GpuOp};
use crate::analysis::names::plural;
use crate::analysis::stats::quantile_sorted;
use crate::model::links::{find_steps, is_cpu_span};
use crate::model::{EventId, Kind, RankTrace, Trace};

/// What a step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// Longer than `prefill_ms`.
    Prefill,
    /// A decode step whose operations are averaged.
    Decode,
    /// A decode step without the start kernel (skipped).
    NoStartKernel,
    /// Neither prefill nor inside `decode_ms`.
    Excluded,
}

impl StepKind {
    /// Spelling in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Prefill => "prefill",
            StepKind::Decode => "decode",
            StepKind::NoStartKernel => "no start kernel",
            StepKind::Excluded => "excluded",
        }
    }
}

/// One profiler step of one rank.
#[derive(Debug, Clone, PartialEq)]
pub struct StepStat {
    /// Rank.
    pub rank: u32,
    /// N of `ProfileStep#N` (with `step_name`: the occurrence, from 1).
    pub number: i32,
    /// Start and end, ns.
    pub start: i64,
    /// End, ns.
    pub end: i64,
    /// What it is.
    pub kind: StepKind,
    /// Where times are measured from (the start kernel's start, or the step start), ns.
    pub origin: i64,
    /// GPU operations counted (after the cut).
    pub ops: usize,
    /// Time at least one of them runs, ns.
    pub busy: i64,
    /// Idle time between `origin` and the last operation's end, ns.
    pub bubble: i64,
    /// Whether its operation sequence is the most common one (`None`: not a used decode step).
    pub same_sequence: Option<bool>,
    /// `slow`/`fast` when its duration lies outside the rank's Tukey fences over decode steps.
    pub outlier: Option<&'static str>,
}

/// Steps of `r` as (number, start, end) in ns, by start: Paddle's exact `args` times when
/// present. The profiler steps, or with `step_name` the CPU-side complete events of that name,
/// numbered from 1 in time order; one that starts before the previous one has ended (nested,
/// or on another thread meanwhile) is not another step.
pub(super) fn step_windows(r: &RankTrace, step_name: Option<&str>) -> Vec<(i32, i64, i64)> {
    let mut w: Vec<(i32, i64, i64)> = match step_name {
        None => find_steps(r)
            .into_iter()
            .map(|s| {
                let (start, end) = times(r, s.event);
                (s.number, start, end)
            })
            .collect(),
        Some(name) => {
            let mut spans: Vec<(i64, i64)> =
                (0..r.events.len() as EventId).filter(|&e| is_cpu_span(r, e) && r.name(e) == name).map(|e| times(r, e)).collect();
            spans.sort_unstable();
            let mut steps: Vec<(i32, i64, i64)> = Vec::new();
            for (start, end) in spans {
                if steps.last().is_none_or(|&(_, _, prev_end)| start >= prev_end) {
                    steps.push((steps.len() as i32 + 1, start, end));
                }
            }
            steps
        }
    };
    w.sort_by_key(|&(n, s, _)| (s, n));
    w
}

/// The index of the latest-starting window of `windows` (by start) whose half-open span
/// `[start, end)` contains `t`; `max_dur` is the longest window's duration.
pub(super) fn window_at(windows: &[(i32, i64, i64)], max_dur: i64, t: i64) -> Option<usize> {
    let upto = windows.partition_point(|w| w.1 <= t);
    (0..upto).rev().take_while(|&i| windows[i].1 + max_dur > t).find(|&i| t < windows[i].2)
}

/// The window rule: whether `op` starts and ends inside the step window `(_, start, end)`.
pub(super) fn in_window(op: &GpuOp, &(_, start, end): &(i32, i64, i64)) -> bool {
    op.start >= start && op.end <= end
}

/// Each operation's step by launch, as (index in `windows`, whether it has a launching call): the
/// window containing the start of the runtime call with its correlation id; an operation
/// without one goes to a window it starts and ends in.
pub(super) fn launch_windows(r: &RankTrace, ops: &[GpuOp], windows: &[(i32, i64, i64)]) -> Vec<(Option<usize>, bool)> {
    if windows.is_empty() {
        return vec![(None, false); ops.len()];
    }
    let max_dur = windows.iter().map(|w| w.2 - w.1).max().unwrap_or(0);
    let mut times = times_in_row_order(r);
    let launch_start = crate::model::links::launchers_by(r, |e| times(e).0);
    ops.iter()
        .map(|op| {
            let c = r.events.correlation.get(op.event as usize);
            match launch_start.get(&c).filter(|_| c >= 0) {
                Some(&(_, t)) => (window_at(windows, max_dur, t), true),
                None => (window_at(windows, max_dur, op.start).filter(|&i| in_window(op, &windows[i])), false),
            }
        })
        .collect()
}

/// What a trace without steps has instead: its events, its `gpu` GPU operations and its most
/// frequent user annotations (the usual step markers of inference servers), over the selected
/// ranks.
pub(super) fn found_instead(trace: &Trace, selected: &[usize], gpu: usize) -> String {
    let mut events = 0usize;
    let mut annotations: FxHashMap<&str, usize> = FxHashMap::default();
    for &p in selected {
        let r = &trace.ranks[p];
        events += r.events.len();
        for e in 0..r.events.len() as EventId {
            if r.events.kind[e as usize] == Kind::UserAnnotation && is_cpu_span(r, e) {
                *annotations.entry(r.name(e)).or_default() += 1;
            }
        }
    }
    let mut top: Vec<(&str, usize)> = annotations.into_iter().collect();
    top.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let listed: Vec<String> = top.iter().take(5).map(|(n, c)| format!("'{n}' ({c})")).collect();
    let mut found = format!("found {events} event{} ({gpu} GPU operation{}) and ", plural(events), plural(gpu));
    if listed.is_empty() {
        found += "no user annotation to use as steps";
    } else {
        found += &format!(
            "these user annotations, the most frequent first: {}; give one as step_name (--step-name) to use its occurrences as steps",
            listed.join(", ")
        );
    }
    found
}

/// Tukey fences: `slow`/`fast` per value outside [Q1 − 1.5 IQR, Q3 + 1.5 IQR] (numpy's linear
/// quartiles); nothing with fewer than 4 values.
pub(super) fn tukey(values: &[i64]) -> Vec<Option<&'static str>> {
    if values.len() < 4 {
        return vec![None; values.len()];
    }
    let mut sorted: Vec<f64> = values.iter().map(|&v| v as f64).collect();
    sorted.sort_by(f64::total_cmp);
    let (q1, q3) = (quantile_sorted(&sorted, 0.25), quantile_sorted(&sorted, 0.75));
    let iqr = q3 - q1;
    values
        .iter()
        .map(|&v| {
            let v = v as f64;
            if v > q3 + 1.5 * iqr {
                Some("slow")
            } else if v < q1 - 1.5 * iqr {
                Some("fast")
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tukey_fences() {
        assert_eq!(tukey(&[10, 11, 12, 13, 100]), vec![None, None, None, None, Some("slow")]);
        assert_eq!(tukey(&[10, 11, 12]), vec![None, None, None]);
    }
}
