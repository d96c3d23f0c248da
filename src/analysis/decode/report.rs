//! The decode analysis' report: its tables (averages, distributions, steps, outliers, ranks), its
//! notes and its charts.

use rustc_hash::FxHashMap;

use super::stats::{DecodeStats, OpStat};
use super::steps::{StepKind, StepStat};
use super::{DecodeOptions, AVERAGES_TABLE};
use crate::analysis::names::plural;
use crate::analysis::stats::{quantile_sorted, std};
use crate::analysis::units::us;
use crate::table::{Chart, Line};
use crate::table::{Table, Unit, Values};

/// Each row's bubble: its average start minus the previous row's average end (first row: its
/// average start).
pub(super) fn bubbles(ops: &[OpStat]) -> Vec<f64> {
    ops.iter().enumerate().map(|(i, op)| op.bubble_after_us(i.checked_sub(1).map(|j| &ops[j]))).collect()
}

/// kernel_extractor's `stats` CSV: `operation_name, avg_start_time_us, avg_end_time_us,
/// avg_duration_us, bubble_time_us`.
pub fn averages_table(ops: &[OpStat]) -> Table {
    Table::new(AVERAGES_TABLE)
        .with("operation_name", Unit::None, Values::Str(ops.iter().map(|o| &o.name).collect()))
        .with("avg_start_time_us", Unit::Us, Values::Float(ops.iter().map(OpStat::avg_start_us).collect()))
        .with("avg_end_time_us", Unit::Us, Values::Float(ops.iter().map(OpStat::avg_end_us).collect()))
        .with("avg_duration_us", Unit::Us, Values::Float(ops.iter().map(OpStat::avg_duration_us).collect()))
        .with("bubble_time_us", Unit::Us, Values::Float(bubbles(ops)))
}

/// Per-operation distributions, for each group (rank or all ranks).
pub(super) fn op_table(name: &str, groups: &[(Option<u32>, &[OpStat])]) -> Table {
    let mut rank = Vec::new();
    let (mut op, mut occ, mut steps) = (Vec::new(), Vec::new(), Vec::new());
    let mut cols: [Vec<f64>; 8] = Default::default();
    for &(r, ops) in groups {
        let bubbles = bubbles(ops);
        for (i, o) in ops.iter().enumerate() {
            let d = o.durations_us();
            rank.push(r.map(i64::from).unwrap_or(-1));
            op.push(o.name.clone());
            occ.push(i64::from(o.occurrence));
            steps.push(o.steps() as i64);
            let vals = [
                o.avg_start_us(),
                o.avg_end_us(),
                o.avg_duration_us(),
                quantile_sorted(&d, 0.5),
                quantile_sorted(&d, 0.9),
                d.last().copied().unwrap_or(f64::NAN),
                std(&d),
                bubbles[i],
            ];
            for (c, v) in cols.iter_mut().zip(vals) {
                c.push(v);
            }
        }
    }
    let mut t = Table::new(name);
    if groups.iter().any(|g| g.0.is_some()) {
        t = t.with("rank", Unit::None, Values::Int(rank.into()));
    }
    t = t.with("operation_name", Unit::None, Values::Str(op.into())).with("occurrence", Unit::None, Values::Int(occ.into())).with(
        "steps",
        Unit::Count,
        Values::Int(steps.into()),
    );
    let names = [
        "avg_start_time_us",
        "avg_end_time_us",
        "avg_duration_us",
        "p50_duration_us",
        "p90_duration_us",
        "max_duration_us",
        "std_duration_us",
        "bubble_time_us",
    ];
    for (n, c) in names.iter().zip(cols) {
        t = t.with(n, Unit::Us, Values::Float(c));
    }
    t
}

/// One row per step.
pub(super) fn steps_table(steps: &[StepStat]) -> Table {
    let f = |g: &dyn Fn(&StepStat) -> f64| Values::Float(steps.iter().map(g).collect());
    Table::new("decode_steps")
        .with("rank", Unit::None, Values::Int(steps.iter().map(|s| i64::from(s.rank)).collect()))
        .with("step", Unit::None, Values::Int(steps.iter().map(|s| i64::from(s.number)).collect()))
        .with("kind", Unit::None, Values::Str(steps.iter().map(|s| s.kind.as_str()).collect()))
        .with("start_time_us", Unit::Us, f(&|s| us(s.start)))
        .with("duration_us", Unit::Us, f(&|s| us(s.end - s.start)))
        .with("start_kernel_offset_us", Unit::Us, f(&|s| us(s.origin - s.start)))
        .with("gpu_ops", Unit::Count, Values::Int(steps.iter().map(|s| s.ops as i64).collect()))
        .with("gpu_busy_us", Unit::Us, f(&|s| us(s.busy)))
        .with("bubble_us", Unit::Us, f(&|s| us(s.bubble)))
        .with(
            "sequence",
            Unit::None,
            Values::Str(
                steps
                    .iter()
                    .map(|s| {
                        match s.same_sequence {
                            Some(true) => "most common",
                            Some(false) => "differs",
                            None => "",
                        }
                        .to_string()
                    })
                    .collect(),
            ),
        )
        .with("outlier", Unit::None, Values::Str(steps.iter().map(|s| s.outlier.unwrap_or("")).collect()))
}

/// The steps flagged slow or fast, with their rank's median decode step.
pub(super) fn outliers_table(steps: &[StepStat]) -> Table {
    let mut lengths: FxHashMap<u32, Vec<f64>> = FxHashMap::default();
    for t in steps.iter().filter(|t| matches!(t.kind, StepKind::Decode | StepKind::NoStartKernel)) {
        lengths.entry(t.rank).or_default().push(us(t.end - t.start));
    }
    let medians: FxHashMap<u32, f64> = lengths
        .into_iter()
        .map(|(r, mut d)| {
            d.sort_by(f64::total_cmp);
            (r, quantile_sorted(&d, 0.5))
        })
        .collect();
    let rows: Vec<(&StepStat, f64)> =
        steps.iter().filter(|s| s.outlier.is_some()).map(|s| (s, medians.get(&s.rank).copied().unwrap_or(f64::NAN))).collect();
    Table::new("decode_outlier_steps")
        .with("rank", Unit::None, Values::Int(rows.iter().map(|(s, _)| i64::from(s.rank)).collect()))
        .with("step", Unit::None, Values::Int(rows.iter().map(|(s, _)| i64::from(s.number)).collect()))
        .with("outlier", Unit::None, Values::Str(rows.iter().map(|(s, _)| s.outlier.unwrap_or("")).collect()))
        .with("duration_us", Unit::Us, Values::Float(rows.iter().map(|(s, _)| us(s.end - s.start)).collect()))
        .with("median_decode_step_us", Unit::Us, Values::Float(rows.iter().map(|r| r.1).collect()))
        .with("ratio_to_median", Unit::Ratio, Values::Float(rows.iter().map(|(s, m)| us(s.end - s.start) / m).collect()))
}

/// Per-rank step counts and decode-step times.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RankSummary {
    rank: u32,
    steps: usize,
    prefill: usize,
    decode: usize,
    no_start_kernel: usize,
    excluded: usize,
    differing: usize,
    outliers: usize,
    /// Durations of decode steps (used ones), µs, sorted.
    durations: Vec<f64>,
    busy: f64,
    bubble: f64,
    ops: f64,
}

impl RankSummary {
    /// The summary of `rank` from its steps (`steps` may hold other ranks' too).
    pub(super) fn of(rank: u32, steps: &[StepStat]) -> RankSummary {
        let mine: Vec<&StepStat> = steps.iter().filter(|s| s.rank == rank).collect();
        let count = |k: StepKind| mine.iter().filter(|s| s.kind == k).count();
        let used: Vec<&&StepStat> = mine.iter().filter(|s| s.kind == StepKind::Decode).collect();
        let mut durations: Vec<f64> = used.iter().map(|s| us(s.end - s.start)).collect();
        durations.sort_by(f64::total_cmp);
        let avg = |g: &dyn Fn(&StepStat) -> f64| {
            if used.is_empty() {
                f64::NAN
            } else {
                used.iter().map(|s| g(s)).sum::<f64>() / used.len() as f64
            }
        };
        RankSummary {
            rank,
            steps: mine.len(),
            prefill: count(StepKind::Prefill),
            decode: used.len(),
            no_start_kernel: count(StepKind::NoStartKernel),
            excluded: count(StepKind::Excluded),
            differing: mine.iter().filter(|s| s.same_sequence == Some(false)).count(),
            outliers: mine.iter().filter(|s| s.outlier.is_some()).count(),
            busy: avg(&|s| us(s.busy)),
            bubble: avg(&|s| us(s.bubble)),
            ops: avg(&|s| s.ops as f64),
            durations,
        }
    }

    fn mean(&self) -> f64 {
        if self.durations.is_empty() {
            f64::NAN
        } else {
            self.durations.iter().sum::<f64>() / self.durations.len() as f64
        }
    }
}

pub(super) fn ranks_table(s: &[RankSummary]) -> Table {
    let int = |g: &dyn Fn(&RankSummary) -> usize| Values::Int(s.iter().map(|r| g(r) as i64).collect());
    let float = |g: &dyn Fn(&RankSummary) -> f64| Values::Float(s.iter().map(g).collect());
    Table::new("decode_ranks")
        .with("rank", Unit::None, Values::Int(s.iter().map(|r| i64::from(r.rank)).collect()))
        .with("steps", Unit::Count, int(&|r| r.steps))
        .with("prefill_steps", Unit::Count, int(&|r| r.prefill))
        .with("decode_steps", Unit::Count, int(&|r| r.decode))
        .with("no_start_kernel_steps", Unit::Count, int(&|r| r.no_start_kernel))
        .with("excluded_steps", Unit::Count, int(&|r| r.excluded))
        .with("sequence_differs_steps", Unit::Count, int(&|r| r.differing))
        .with("outlier_steps", Unit::Count, int(&|r| r.outliers))
        .with("avg_decode_step_us", Unit::Us, float(&|r| r.mean()))
        .with("p50_decode_step_us", Unit::Us, float(&|r| quantile_sorted(&r.durations, 0.5)))
        .with("p90_decode_step_us", Unit::Us, float(&|r| quantile_sorted(&r.durations, 0.9)))
        .with("max_decode_step_us", Unit::Us, float(&|r| r.durations.last().copied().unwrap_or(f64::NAN)))
        .with("avg_gpu_busy_us", Unit::Us, float(&|r| r.busy))
        .with("avg_bubble_us", Unit::Us, float(&|r| r.bubble))
        .with("avg_gpu_ops", Unit::Count, float(&|r| r.ops))
}

pub(super) fn notes(o: &DecodeOptions, stats: &DecodeStats, ranks: &[RankSummary]) -> Vec<String> {
    let mut notes = Vec::new();
    let ms = |us: f64| format!("{:.3}", us / 1000.0);
    for r in ranks {
        let mut line = format!(
            "rank {}: {} step{}, {} prefill (> {} ms), {} decode step{} averaged",
            r.rank,
            r.steps,
            plural(r.steps),
            r.prefill,
            ms(us(o.prefill_ns)),
            r.decode,
            plural(r.decode)
        );
        if !r.durations.is_empty() {
            line += &format!(
                " (avg {} ms, p50 {} ms, p90 {} ms)",
                ms(r.mean()),
                ms(quantile_sorted(&r.durations, 0.5)),
                ms(quantile_sorted(&r.durations, 0.9))
            );
        }
        if r.no_start_kernel > 0 {
            line += &format!("; {} skipped without '{}'", r.no_start_kernel, o.start_kernel.as_deref().unwrap_or_default());
        }
        if r.excluded > 0 {
            line += &format!("; {} outside decode_ms", r.excluded);
        }
        if r.differing > 0 {
            line += &format!("; {} with another operation sequence than the most common one", r.differing);
        }
        if r.outliers > 0 {
            line += &format!("; {} outlier step{}", r.outliers, plural(r.outliers));
        }
        notes.push(line);
    }
    if let Some(name) = &o.step_name {
        notes.push(format!("steps are the CPU-side events named '{name}', numbered from 1 in time order"));
    }
    match &o.start_kernel {
        Some(k) => notes.push(format!("times are relative to the first GPU operation containing '{k}' in each decode step")),
        None => notes.push("times are relative to each step's start".into()),
    }
    if o.by_launch {
        notes.push("a step's GPU operations are those launched from it (by correlation id), wherever they run".into());
        if stats.unlinked > 0 {
            let n = stats.unlinked;
            notes.push(format!(
                "{n} GPU operation{} of decode steps had no launching call in the trace and {} counted in the step {} started and ended in",
                plural(n),
                if n == 1 { "was" } else { "were" },
                if n == 1 { "it" } else { "they" }
            ));
        }
    } else if stats.launched_outside > 0 {
        let n = stats.launched_outside;
        notes.push(format!(
            "{n} GPU operation{} launched from decode steps ran past {} step's end (the GPU behind the CPU) and {} not counted; by_launch (--by-launch) counts operations with the step that launched them",
            plural(n),
            if n == 1 { "its" } else { "their" },
            if n == 1 { "is" } else { "are" }
        ));
    }
    if stats.ops.is_empty() {
        notes.push(format!(
            "no GPU operation (kernel, memcpy, memset) {} a decode step",
            if o.by_launch { "was launched from" } else { "starts and ends inside" }
        ));
    } else {
        notes.push(format!("{} operations matched by name and occurrence", stats.ops.len()));
    }
    notes
}

/// At most this many per-rank step charts.
pub(super) const MAX_STEP_CHARTS: usize = 4;

pub(super) fn charts(stats: &DecodeStats, ranks: &[RankSummary]) -> Vec<Chart> {
    let mut charts = Vec::new();
    let kinds = [StepKind::Prefill, StepKind::Decode, StepKind::NoStartKernel, StepKind::Excluded];
    for r in ranks.iter().take(MAX_STEP_CHARTS) {
        let mine: Vec<&StepStat> = stats.steps.iter().filter(|s| s.rank == r.rank).collect();
        let series: Vec<Line> = kinds
            .iter()
            .filter(|k| mine.iter().any(|s| s.kind == **k))
            .map(|&k| Line {
                name: k.as_str().into(),
                points: mine.iter().filter(|s| s.kind == k).map(|s| (f64::from(s.number), us(s.end - s.start) / 1000.0)).collect(),
            })
            .collect();
        charts.push(Chart::Columns {
            title: format!("Step durations on rank {}", r.rank),
            x_label: "step".into(),
            y_label: "duration (ms)".into(),
            series,
        });
    }
    if ranks.len() > 1 {
        charts.push(Chart::Bars {
            title: "Decode step time per rank (mean, min–max)".into(),
            x_label: "rank".into(),
            y_label: "step (ms)".into(),
            categories: ranks.iter().map(|r| r.rank.to_string()).collect(),
            values: ranks.iter().map(|r| r.mean() / 1000.0).collect(),
            errors: Some(
                ranks
                    .iter()
                    .map(|r| {
                        (
                            r.durations.first().copied().unwrap_or(f64::NAN) / 1000.0,
                            r.durations.last().copied().unwrap_or(f64::NAN) / 1000.0,
                        )
                    })
                    .collect(),
            ),
        });
    }
    charts.push(Chart::Waterfall {
        title: "Average decode step".into(),
        x_label: "time from the step's start kernel (µs)".into(),
        bars: stats.ops.iter().map(|o| (o.name.clone(), o.avg_start_us(), o.avg_end_us())).collect(),
    });
    charts
}
