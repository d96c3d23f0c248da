//! The statistics of the average decode step: operations matched across steps by (name,
//! occurrence within the step), their start, end and duration per step, and [`decode_stats`],
//! which computes them for the selected ranks.

use rustc_hash::FxHashMap;

use super::steps::{found_instead, in_window, launch_windows, step_windows, tukey, StepKind, StepStat};
use super::DecodeOptions;
use crate::analysis::api::{fail, AnalysisError};
use crate::analysis::gpu_ops::{gpu_ops, op_name, GpuOp};
use crate::analysis::names::plural;
use crate::analysis::units::us;
use crate::model::{EventId, RankTrace, StrId, Trace};

/// One matched operation: (name, occurrence) over the steps where it occurs.
#[derive(Debug, Clone, PartialEq)]
pub struct OpStat {
    /// Name.
    pub name: String,
    /// 0-based occurrence of the name within the step.
    pub occurrence: u32,
    /// Relative starts, ns, one per step where it occurs.
    pub starts: Vec<i64>,
    /// Relative ends, ns.
    pub ends: Vec<i64>,
}

impl OpStat {
    pub(super) fn steps(&self) -> usize {
        self.starts.len()
    }
    fn sum(v: &[i64]) -> i128 {
        v.iter().map(|&x| i128::from(x)).sum()
    }
    /// Average start, µs.
    pub fn avg_start_us(&self) -> f64 {
        Self::sum(&self.starts) as f64 / (self.steps() as f64 * 1000.0)
    }
    /// Average end, µs.
    pub fn avg_end_us(&self) -> f64 {
        Self::sum(&self.ends) as f64 / (self.steps() as f64 * 1000.0)
    }
    /// Durations, µs, sorted.
    pub fn durations_us(&self) -> Vec<f64> {
        let mut d: Vec<f64> = self.starts.iter().zip(&self.ends).map(|(s, e)| us(e - s)).collect();
        d.sort_by(f64::total_cmp);
        d
    }
    /// Average duration, µs.
    pub fn avg_duration_us(&self) -> f64 {
        (Self::sum(&self.ends) - Self::sum(&self.starts)) as f64 / (self.steps() as f64 * 1000.0)
    }
    /// This row's average start minus `prev`'s average end, µs, exact up to one rounding.
    pub fn bubble_after_us(&self, prev: Option<&OpStat>) -> f64 {
        let Some(p) = prev else { return self.avg_start_us() };
        let (n, m) = (self.steps() as i128, p.steps() as i128);
        (Self::sum(&self.starts) * m - Self::sum(&p.ends) * n) as f64 / ((n * m) as f64 * 1000.0)
    }
}

/// The result of [`decode_stats`] for a set of ranks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DecodeStats {
    /// Every step of every rank, in rank then start order.
    pub steps: Vec<StepStat>,
    /// Matched operations over every used decode step, by average start.
    pub ops: Vec<OpStat>,
    /// The same per rank (rank, ops), when more than one rank is selected.
    pub ops_by_rank: Vec<(u32, Vec<OpStat>)>,
    /// Without `by_launch`: GPU operations launched from a used decode step that do not start and
    /// end inside it (the GPU runs behind the CPU), so are not counted.
    pub launched_outside: usize,
    /// With `by_launch`: operations of used decode steps without a launching call in the trace,
    /// taken by the window rule instead.
    pub unlinked: usize,
}

/// Accumulates matched operations (name, occurrence) over steps.
#[derive(Default)]
pub(super) struct OpAccumulator {
    index: FxHashMap<(u32, u32), usize>,
    ops: Vec<OpStat>,
}

impl OpAccumulator {
    /// Adds one step's operations: (name id in `names`, relative start, relative end) in time order.
    fn add_step(&mut self, ops: &[(u32, i64, i64)], names: &[String]) {
        let mut seen: FxHashMap<u32, u32> = FxHashMap::default();
        for &(id, s, e) in ops {
            let occ = seen.entry(id).or_insert(0);
            let key = (id, *occ);
            *occ += 1;
            let i = *self.index.entry(key).or_insert_with(|| {
                self.ops.push(OpStat { name: names[id as usize].clone(), occurrence: key.1, starts: Vec::new(), ends: Vec::new() });
                self.ops.len() - 1
            });
            self.ops[i].starts.push(s);
            self.ops[i].ends.push(e);
        }
    }

    /// The operations by average start (first-seen order at equal averages).
    fn finish(self) -> Vec<OpStat> {
        let mut ops = self.ops;
        ops.sort_by(|a, b| a.avg_start_us().total_cmp(&b.avg_start_us()));
        ops
    }
}

/// Operation names over all ranks (each rank has its own string table): an id per distinct name,
/// looked up by the rank's string ids so that a name is copied once, not once per operation.
#[derive(Default)]
pub(super) struct OpNames {
    ids: FxHashMap<String, u32>,
    list: Vec<String>,
    /// (rank position, name id) → id, without `keep_suffix`.
    cache: FxHashMap<(usize, StrId), u32>,
}

impl OpNames {
    fn id(&mut self, pos: usize, r: &RankTrace, e: EventId, keep_suffix: bool) -> u32 {
        // with suffixes, names are (nearly) all different: no point caching by string id
        let key = (pos, r.events.name.get(e as usize));
        if !keep_suffix {
            if let Some(&id) = self.cache.get(&key) {
                return id;
            }
        }
        let name = op_name(r, e, keep_suffix);
        let id = match self.ids.get(name.as_ref()) {
            Some(&id) => id,
            None => {
                let id = self.list.len() as u32;
                self.list.push(name.to_string());
                self.ids.insert(name.into_owned(), id);
                id
            }
        };
        if !keep_suffix {
            self.cache.insert(key, id);
        }
        id
    }
}

/// A step's kind by its length (ns) alone: longer than `prefill_ms` is prefill, within `decode_ms`
/// decode (a decode step without the start kernel is told apart later), else excluded.
fn length_kind(dur: i64, o: &DecodeOptions) -> StepKind {
    let in_range = o.decode_ns.0.is_none_or(|l| dur >= l) && o.decode_ns.1.is_none_or(|h| dur <= h);
    if dur > o.prefill_ns {
        StepKind::Prefill
    } else if in_range {
        StepKind::Decode
    } else {
        StepKind::Excluded
    }
}

/// The error for steps of these lengths (ns), none of them a decode step: how many are prefill or
/// outside `decode_ms`, the shortest, and which option to set.
fn no_decode_step(lengths: &[i64], o: &DecodeOptions) -> AnalysisError {
    let shortest = lengths.iter().copied().min().unwrap_or(0);
    let n = lengths.len();
    let prefill = lengths.iter().filter(|&&d| length_kind(d, o) == StepKind::Prefill).count();
    let what = if o.step_name.is_some() { "step" } else { "profiler step" };
    let mut found = format!(
        "{prefill} of the {n} {what}{} {} prefill (> {:.3} ms)",
        plural(n),
        if prefill == 1 { "is" } else { "are" },
        us(o.prefill_ns) / 1000.0
    );
    if prefill < n {
        found += &format!(" and {} outside decode_ms", n - prefill);
    }
    AnalysisError(format!(
        "no decode step: {found}; the shortest takes {:.3} ms; set prefill_ms (--prefill-ms){} to count such steps as decode steps",
        us(shortest) / 1000.0,
        if prefill < n { " or decode_ms (--decode-ms)" } else { " above it" }
    ))
}

/// kernel_extractor's `stats` and more over the selected ranks (module docs). Errors: no profiler
/// step, no decode step, a start kernel no decode step contains (saying what was found instead).
pub fn decode_stats(trace: &Trace, selected: &[usize], o: &DecodeOptions) -> Result<DecodeStats, AnalysisError> {
    let mut out = DecodeStats::default();
    let mut pooled = OpAccumulator::default();
    // global name ids (ranks have their own string tables), and each used step's name sequence
    let mut names = OpNames::default();
    let mut sequences: Vec<(usize, Vec<u32>)> = Vec::new(); // (index in out.steps, names)
    let mut first_ops: FxHashMap<String, usize> = FxHashMap::default(); // when the start kernel is missing
    let mut gpu_total = 0;
    // the steps' lengths alone tell a trace without any decode step (a training run): it fails
    // before its GPU operations are gathered and assigned to steps
    let all_windows: Vec<Vec<(i32, i64, i64)>> = selected.iter().map(|&p| step_windows(&trace.ranks[p], o.step_name.as_deref())).collect();
    let lengths: Vec<i64> = all_windows.iter().flatten().map(|&(_, start, end)| end - start).collect();
    if !lengths.is_empty() && !lengths.iter().any(|&d| length_kind(d, o) == StepKind::Decode) {
        return Err(no_decode_step(&lengths, o));
    }
    for (&p, windows) in selected.iter().zip(all_windows) {
        let r = &trace.ranks[p];
        let ops = gpu_ops(r);
        gpu_total += ops.len();
        let launched = launch_windows(r, &ops, &windows);
        let mut members: Vec<Vec<&GpuOp>> = vec![Vec::new(); if o.by_launch { windows.len() } else { 0 }];
        if o.by_launch {
            for (op, &(w, _)) in ops.iter().zip(&launched) {
                if let Some(w) = w {
                    members[w].push(op);
                }
            }
        }
        let mut per_rank = OpAccumulator::default();
        let first_step = out.steps.len();
        for (w, &(number, start, end)) in windows.iter().enumerate() {
            let inside: Vec<&GpuOp> = if o.by_launch {
                std::mem::take(&mut members[w])
            } else {
                let lo = ops.partition_point(|op| op.start < start);
                ops[lo..].iter().take_while(|op| op.start <= end).filter(|op| in_window(op, &windows[w])).collect()
            };
            let mut kind = length_kind(end - start, o);
            let mut cut = 0;
            if kind == StepKind::Decode {
                if let Some(k) = &o.start_kernel {
                    match inside.iter().position(|op| op_name(r, op.event, o.keep_suffix).contains(k.as_str())) {
                        Some(i) => cut = i,
                        None => {
                            kind = StepKind::NoStartKernel;
                            if let Some(op) = inside.first() {
                                *first_ops.entry(op_name(r, op.event, o.keep_suffix).to_string()).or_default() += 1;
                            }
                        }
                    }
                }
            }
            let used = &inside[cut..];
            let origin = if kind == StepKind::Decode && o.start_kernel.is_some() { used[0].start } else { start };
            let merged = crate::analysis::intervals::merge_intervals(used.iter().map(|op| (op.start, op.end)).collect());
            let busy = crate::analysis::intervals::covered(&merged);
            let last_end = used.iter().map(|op| op.end).max().unwrap_or(origin);
            out.steps.push(StepStat {
                rank: r.rank,
                number,
                start,
                end,
                kind,
                origin,
                ops: used.len(),
                busy,
                bubble: (last_end - origin - busy).max(0),
                same_sequence: None,
                outlier: None,
            });
            if kind == StepKind::Decode {
                let rows: Vec<(u32, i64, i64)> =
                    used.iter().map(|op| (names.id(p, r, op.event, o.keep_suffix), op.start - origin, op.end - origin)).collect();
                sequences.push((out.steps.len() - 1, rows.iter().map(|r| r.0).collect()));
                pooled.add_step(&rows, &names.list);
                per_rank.add_step(&rows, &names.list);
            }
        }
        // what the other rule would have counted in the used decode steps
        for (op, &(w, linked)) in ops.iter().zip(&launched) {
            let Some(w) = w else { continue };
            if out.steps[first_step + w].kind != StepKind::Decode {
                continue;
            }
            if o.by_launch {
                out.unlinked += usize::from(!linked);
            } else {
                out.launched_outside += usize::from(linked && !in_window(op, &windows[w]));
            }
        }
        // outliers among this rank's decode-length steps
        let decode: Vec<usize> =
            (first_step..out.steps.len()).filter(|&i| matches!(out.steps[i].kind, StepKind::Decode | StepKind::NoStartKernel)).collect();
        let flags = tukey(&decode.iter().map(|&i| out.steps[i].end - out.steps[i].start).collect::<Vec<_>>());
        for (&i, f) in decode.iter().zip(flags) {
            out.steps[i].outlier = f;
        }
        if selected.len() > 1 {
            out.ops_by_rank.push((r.rank, per_rank.finish()));
        }
    }
    if lengths.is_empty() {
        let found = found_instead(trace, selected, gpu_total);
        return fail(match &o.step_name {
            Some(name) => format!("no step: no CPU-side complete event is named '{name}'; {found}"),
            None => format!("no profiler step in the trace: expected ProfileStep#N (Paddle, cat ProfileStep) or ProfilerStep#N (PyTorch) events; {found}"),
        });
    }
    if sequences.is_empty() {
        let k = o.start_kernel.as_deref().unwrap_or_default();
        let mut found: Vec<(String, usize)> = first_ops.into_iter().collect();
        found.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let listed: Vec<String> = found.iter().take(3).map(|(n, c)| format!("'{n}' ({c} step{})", plural(*c))).collect();
        let decode = out.steps.iter().filter(|s| s.kind == StepKind::NoStartKernel).count();
        return fail(format!(
            "start kernel '{k}' is in none of the {decode} decode steps; {}; give the name of the kernel that begins a decode step, or none to measure from the step start",
            if listed.is_empty() { "they have no GPU operation".to_string() } else { format!("their first GPU operations are {}", listed.join(", ")) }
        ));
    }
    // the most common operation sequence (the first one at equal counts)
    let mut counts: FxHashMap<&[u32], (usize, usize)> = FxHashMap::default();
    for (i, (_, seq)) in sequences.iter().enumerate() {
        counts.entry(seq.as_slice()).or_insert((0, i)).0 += 1;
    }
    let reference = counts.iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1))).map(|(s, _)| s.to_vec()).unwrap_or_default();
    for (i, seq) in &sequences {
        out.steps[*i].same_sequence = Some(*seq == reference);
    }
    out.ops = pooled.finish();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bubble_is_exact() {
        let a = OpStat { name: "a".into(), occurrence: 0, starts: vec![0, 1], ends: vec![10, 11] };
        let b = OpStat { name: "b".into(), occurrence: 0, starts: vec![12, 13, 14], ends: vec![20, 20, 20] };
        assert_eq!(a.bubble_after_us(None), 0.0005);
        // 13 − 10.5 = 2.5 ns
        assert_eq!(b.bubble_after_us(Some(&a)), 0.0025);
    }
}
