//! Potential stragglers (HTA `get_potential_stragglers` with the default
//! `find_stragglers_with_late_start_comm_kernels`, SPEC §2.15): ranks whose dominant
//! communication kernel starts late. Collectives end together, so the rank that starts them last
//! holds the others up.
//!
//! 1. Rows: every row of the selected ranks whose iteration is one of the steps (`profiler_steps`,
//!    default all of [`super::steps`]). `t_min` = their earliest start, `mean_iter_time` =
//!    (latest end − `t_min`) / number of steps.
//! 2. Long communication kernels: GPU rows of a step with `dur >= 0.01 · mean_iter_time` and a
//!    communication name; the last one (row order) per (rank, stream, iteration, name).
//!    `normalized_start_time = (ts − t_min) / mean_iter_time`, `duration = dur / mean_iter_time`.
//! 3. The metric kernel: the (stream, name) whose `duration` varies most across ranks (sample std
//!    per (stream, iteration, name), mean over iterations, largest; ties: first by stream, name).
//! 4. Per iteration, the ranks whose metric is at least the `num_candidates`-th largest are
//!    stragglers; over several iterations a rank's count is how often it was one. The result is
//!    the first `num_candidates` ranks by count (ties: lower rank first).
//!
//! `--hta` reproduces HTA 0.5.0 (SPEC §5.7): communication kernels are names starting with
//! `ncclKernel` (NCCL ≥ 2.19's `ncclDevKernel_*` is not found), GPU rows need `stream > 0` and
//! `iteration > 0`, and HTA raises when no kernel is found (ValueError), when no metric can be
//! computed (one rank: every std is NaN, TypeError), or when an iteration has fewer ranks than
//! `num_candidates` (IndexError). Without `--hta`: communication kernels are HTA's own
//! `^nccl.*Kernel` class (`ncclKernel_*`, `ncclDevKernel_*`, RCCL's names) and RCCL's
//! `mscclKernel*`; ROCm's stream 0 and step 0 count; with no spread across ranks (one rank) the
//! metric kernel is the one with the largest mean duration; an iteration with fewer ranks than
//! `num_candidates` marks all of them; no kernel or no step gives an empty result and a note. The
//! default report adds `straggler_metric`: the metric per rank and iteration.

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::kernel_type::{hta_kernel_type, KernelType};
use super::names::shorten_name;
use super::stats::{mean, std};
use super::units::us;
use crate::model::{Kind, StrId, NONE};
use crate::table::{Chart, Report, Series};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "stragglers",
    title: "Potential stragglers",
    about: "ranks whose dominant communication kernel starts late",
    hta_api: "get_potential_stragglers (SPEC §2.15)",
    group: Group::Communication,
    options: &[
        Opt { name: "profiler_steps", kind: OptKind::IntList, default: "", help: "steps to analyse (default: all)" },
        Opt { name: "num_candidates", kind: OptKind::Int, default: "2", help: "number of straggler ranks to report" },
    ],
    run,
};

/// The metric of one rank in one iteration (the metric kernel's last instance).
#[derive(Debug, Clone, PartialEq)]
pub struct RankMetric {
    /// Rank.
    pub rank: u32,
    /// Iteration (profiler step).
    pub iteration: i64,
    /// Start, µs (relative to the trace start).
    pub ts: f64,
    /// `(ts − t_min) / mean_iter_time`.
    pub normalized_start_time: f64,
    /// `dur / mean_iter_time`.
    pub duration: f64,
    /// Whether the rank is a straggler in this iteration.
    pub is_straggler: bool,
}

/// The whole result.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stragglers {
    /// Straggler ranks with how often each was one, most often first (at most `num_candidates`).
    pub ranks: Vec<(u32, i64)>,
    /// Stream and name of the metric kernel.
    pub kernel: Option<(i64, String)>,
    /// The metric per rank and iteration, by (iteration, rank).
    pub metric: Vec<RankMetric>,
    /// Why the result is empty or how it was reached (default mode).
    pub notes: Vec<String>,
}

/// One long communication kernel: rank, stream, iteration, name, ts µs, dur µs.
#[derive(Debug, Clone)]
struct Comm {
    rank: u32,
    stream: i64,
    iteration: i64,
    name: String,
    ts: f64,
    dur: f64,
}

/// Whether `name` is a communication kernel for straggler detection.
fn is_comm(name: &str, hta: bool) -> bool {
    if hta {
        name.starts_with("ncclKernel")
    } else {
        hta_kernel_type(name) == KernelType::Communication || name.starts_with("mscclKernel")
    }
}

/// The analysis (module docs). `Err` only in `--hta` mode, where HTA raises.
pub fn potential_stragglers(ctx: &Context<'_>, profiler_steps: Option<&[i64]>, num_candidates: i64) -> Result<Stragglers, AnalysisError> {
    let hta = ctx.hta;
    let k = num_candidates.max(1) as usize;
    let mut out = Stragglers::default();
    let available: Vec<i64> = super::steps::profiler_steps(ctx).into_keys().collect();
    let valid: Vec<i64> = match profiler_steps {
        None => available.clone(),
        Some(req) => req.iter().copied().filter(|s| available.contains(s)).collect(),
    };
    if valid.is_empty() {
        let req = profiler_steps.map_or("None".to_string(), |r| format!("{r:?}"));
        let msg = format!("invalid value for argument: profiler_steps={req}; available profiler steps={available:?}");
        if hta {
            return fail(format!("{msg}: HTA 0.5.0 raises ValueError"));
        }
        out.notes.push(msg);
        return Ok(out);
    }
    // step 1: rows of the selected steps, times in µs as HTA holds them
    let mut iterations: Vec<i64> = Vec::new();
    let (mut t_min, mut max_end) = (f64::INFINITY, f64::NEG_INFINITY);
    // only the communication kernels are kept: every row counts for the iteration time
    let mut rows: Vec<(u32, i64, i64, &str, f64, f64)> = Vec::new(); // rank, stream, iteration, name, ts, dur
    for (f, r) in ctx.ranks() {
        let links = (!hta).then(|| (r.launch_links(), r.step_links()));
        let mut comm_name: FxHashMap<StrId, bool> = FxHashMap::default();
        for i in 0..f.len() {
            // HTA leaves ROCm's stream-0 GPU rows without an iteration; the model links them
            let it = match (f.iteration(i), links) {
                (Some(it), _) => it,
                (None, Some((launch, step))) if launch[f.row[i] as usize] != NONE => i64::from(step[f.row[i] as usize]),
                _ => continue,
            };
            if !valid.contains(&it) {
                continue;
            }
            let (ts, dur) = if hta { (f.ts(r, i) as f64, f.dur(r, i)) } else { (us(f.ts_ns(r, i)), us(f.dur_ns(r, i))) };
            t_min = t_min.min(ts);
            max_end = max_end.max(ts + dur);
            if it != -1 && !iterations.contains(&it) {
                iterations.push(it);
            }
            let stream = f.stream(r, i);
            let gpu = if hta { stream > 0 && it > 0 } else { stream >= 0 && it >= 0 && r.events.kind[f.row[i] as usize] != Kind::CudaSync };
            let name = r.strings.get(f.name(r, i));
            if gpu && *comm_name.entry(f.name(r, i)).or_insert_with(|| is_comm(name, hta)) {
                rows.push((f.rank, stream, it, name, ts, dur));
            }
        }
    }
    let mean_iter_time = (max_end - t_min) / iterations.len() as f64;
    let min_duration = mean_iter_time * 0.01;
    // step 2: the last long communication kernel per (rank, stream, iteration, name)
    let mut last: BTreeMap<(u32, i64, i64, String), Comm> = BTreeMap::new();
    for &(rank, stream, iteration, name, ts, dur) in &rows {
        if dur >= min_duration {
            last.insert((rank, stream, iteration, name.to_string()), Comm { rank, stream, iteration, name: name.to_string(), ts, dur });
        }
    }
    // step 3: the (stream, name) whose duration varies most across ranks
    let mut per_iter: BTreeMap<(i64, String, i64), Vec<f64>> = BTreeMap::new();
    for c in last.values() {
        per_iter.entry((c.stream, c.name.clone(), c.iteration)).or_default().push(c.dur / mean_iter_time);
    }
    let mut spread: BTreeMap<(i64, String), Vec<f64>> = BTreeMap::new();
    let mut size: BTreeMap<(i64, String), Vec<f64>> = BTreeMap::new();
    for ((stream, name, _), d) in &per_iter {
        let s = std(d);
        let e = spread.entry((stream.to_owned(), name.clone())).or_default();
        if !s.is_nan() {
            e.push(s);
        }
        size.entry((*stream, name.clone())).or_default().extend(d);
    }
    if spread.is_empty() {
        if hta {
            return fail("no ncclKernel* communication kernel in the selected steps: HTA 0.5.0 raises ValueError: attempt to get argmax of an empty sequence (run without --hta to also find ncclDevKernel* kernels)");
        }
        out.notes.push("no communication kernel longer than 1% of the mean iteration time in the selected steps".into());
        return Ok(out);
    }
    let best = |m: &BTreeMap<(i64, String), f64>| -> Option<(i64, String)> {
        let mut best: Option<(&(i64, String), f64)> = None;
        for (key, &v) in m.iter().filter(|(_, v)| !v.is_nan()) {
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((key, v));
            }
        }
        best.map(|(key, _)| key.clone())
    };
    let spread_mean: BTreeMap<(i64, String), f64> = spread.iter().map(|(key, v)| (key.clone(), mean(v))).collect();
    let kernel = match best(&spread_mean) {
        Some(key) => key,
        None if hta => return fail("no communication kernel runs on two ranks, so its spread across ranks is NaN: HTA 0.5.0 raises TypeError: cannot unpack non-iterable float object (run without --hta)"),
        None => {
            let size_mean: BTreeMap<(i64, String), f64> = size.iter().map(|(key, v)| (key.clone(), mean(v))).collect();
            out.notes.push("no communication kernel runs on two ranks of the same step: the metric kernel is the longest one on average".into());
            best(&size_mean).unwrap_or_else(|| (0, String::new()))
        }
    };
    // step 4: stragglers per iteration
    let mut cand: Vec<&Comm> = last.values().filter(|c| c.stream == kernel.0 && c.name == kernel.1).collect();
    cand.sort_by_key(|c| (c.iteration, c.rank));
    let mut by_iter: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for (j, c) in cand.iter().enumerate() {
        by_iter.entry(c.iteration).or_default().push(j);
    }
    let metric_of = |c: &Comm| (c.ts - t_min) / mean_iter_time;
    let mut flags = vec![false; cand.len()];
    for members in by_iter.values() {
        let mut m: Vec<f64> = members.iter().map(|&j| metric_of(cand[j])).collect();
        m.sort_by(|a, b| b.total_cmp(a));
        if m.len() < k && hta {
            return fail(format!("only {} rank(s) ran the metric kernel in an iteration, fewer than num_candidates = {k}: HTA 0.5.0 raises IndexError: list index out of range (run without --hta)", m.len()));
        }
        let threshold = m[k.min(m.len()) - 1];
        for &j in members {
            flags[j] = metric_of(cand[j]) >= threshold;
        }
    }
    let mut counts: BTreeMap<u32, i64> = BTreeMap::new();
    for (j, c) in cand.iter().enumerate() {
        *counts.entry(c.rank).or_default() += i64::from(flags[j]);
    }
    let mut ranked: Vec<(u32, i64)> = counts.into_iter().collect();
    ranked.sort_by_key(|&(rank, n)| (std::cmp::Reverse(n), rank));
    ranked.truncate(k);
    out.ranks = ranked;
    out.metric = cand
        .iter()
        .zip(&flags)
        .map(|(c, &s)| RankMetric {
            rank: c.rank,
            iteration: c.iteration,
            ts: c.ts,
            normalized_start_time: metric_of(c),
            duration: c.dur / mean_iter_time,
            is_straggler: s,
        })
        .collect();
    out.kernel = Some(kernel);
    Ok(out)
}

fn run(ctx: &Context<'_>, p: &Params) -> Result<Report, AnalysisError> {
    let steps = p.int_list("profiler_steps");
    let res = potential_stragglers(ctx, steps.as_deref(), p.int("num_candidates"))?;
    let mut report = Report { notes: res.notes.clone(), ..Default::default() };
    let mut t =
        Table::new("potential_stragglers").with("rank", Unit::None, Values::Int(res.ranks.iter().map(|r| i64::from(r.0)).collect()));
    if ctx.hta {
        t.sort_canonical(&["rank"]);
    } else {
        t = t.with("count", Unit::Count, Values::Int(res.ranks.iter().map(|r| r.1).collect()));
    }
    report.tables.push(t);
    let Some((stream, name)) = &res.kernel else { return Ok(report) };
    let m = &res.metric;
    if !ctx.hta {
        report.tables.push(
            Table::new("straggler_metric")
                .with("iteration", Unit::None, Values::Int(m.iter().map(|x| x.iteration).collect()))
                .with("rank", Unit::None, Values::Int(m.iter().map(|x| i64::from(x.rank)).collect()))
                .with("stream", Unit::None, Values::Int(m.iter().map(|_| *stream).collect()))
                .with("kernel", Unit::None, Values::Str(m.iter().map(|_| &name).collect()))
                .with("ts", Unit::Us, Values::Float(m.iter().map(|x| x.ts).collect()))
                .with("normalized_start_time", Unit::Ratio, Values::Float(m.iter().map(|x| x.normalized_start_time).collect()))
                .with("duration", Unit::Ratio, Values::Float(m.iter().map(|x| x.duration).collect()))
                .with("is_straggler", Unit::None, Values::Str(m.iter().map(|x| if x.is_straggler { "Yes" } else { "No" }).collect())),
        );
        report.notes.push(format!("metric kernel: {} on stream {stream}", shorten_name(name)));
    }
    // HTA's bar of the metric per rank, red for stragglers, one facet per iteration
    let mut iters: Vec<i64> = m.iter().map(|x| x.iteration).collect();
    iters.dedup();
    for it in iters {
        let of_it: Vec<&RankMetric> = m.iter().filter(|x| x.iteration == it).collect();
        let pick = |s: bool| of_it.iter().map(|x| if x.is_straggler == s { x.normalized_start_time } else { 0.0 }).collect();
        report.charts.push(Chart::StackedBars {
            title: format!("Potential stragglers: normalized start time of {} (iteration {it})", shorten_name(name)),
            x_label: "rank".into(),
            y_label: "normalized start time".into(),
            categories: of_it.iter().map(|x| x.rank.to_string()).collect(),
            series: vec![
                Series { name: "straggler".into(), values: pick(true) },
                Series { name: "not a straggler".into(), values: pick(false) },
            ],
        });
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::is_comm;

    #[test]
    fn comm_names() {
        assert!(is_comm("ncclKernel_AllReduce_RING_LL_Sum_float", true));
        assert!(!is_comm("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", true));
        assert!(is_comm("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", false));
        assert!(is_comm("mscclKernel_Sum_float_LL", false));
        assert!(!is_comm("nccl:all_reduce", false));
    }
}
