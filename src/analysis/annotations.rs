//! User-annotation breakdown (HTA `get_gpu_user_annotation_breakdown`, SPEC §2.12): time per
//! user annotation (`record_function` ranges) and rank, on the GPU timeline
//! (`gpu_user_annotation` events) or, with `use_gpu_annotation=false`, on the CPU
//! (`user_annotation` events).
//!
//! Per rank the annotation events are aggregated by full name with
//! [`super::kernels::aggregate_by_name`] (HTA's `_aggr_gpu_kernel_time`): the top `num_kernels`
//! names within the `duration_ratio` quantile of cumulative time stay, the rest become
//! `others`; names containing one of the `allowlist_patterns` (comma-separated **plain
//! substrings** — HTA escapes its patterns, SPEC §5.12, so they never act as regexes; we keep
//! substring semantics in both modes) always stay. Nested annotations each count their own full
//! duration (no exclusive time).
//!
//! `--hta`: once names are folded, every statistic is taken over per-name sums (SPEC §5.5), and a
//! trace without the category gives no table (HTA returns None). Without `--hta`: true
//! statistics, a `count` column, exact durations, and an empty table with a note.

use std::collections::BTreeMap;

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::hta_frame::kept;
use super::kernels::{aggregate_by_name, Folding, NameStats, PIE_RANKS};
use crate::model::{EventId, Trace};
use crate::table::{Chart, Report};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "annotations",
    title: "User annotation breakdown",
    about: "Time per user annotation (GPU or CPU timeline) and rank",
    hta_api: "get_gpu_user_annotation_breakdown (SPEC §2.12)",
    group: Group::GpuTime,
    options: &[
        Opt {
            name: "use_gpu_annotation",
            kind: OptKind::Bool,
            default: "true",
            help: "Annotations on the GPU timeline (gpu_user_annotation); false: on the CPU (user_annotation)",
        },
        Opt {
            name: "duration_ratio",
            kind: OptKind::Float,
            default: "0.8",
            help: "Fold annotations whose cumulative time lies past this quantile of the cumulative times into \"others\" (0..1)",
        },
        Opt {
            name: "num_kernels",
            kind: OptKind::Int,
            default: "1000",
            help: "Keep at most this many annotations per rank; the rest become \"others\"",
        },
        Opt {
            name: "allowlist_patterns",
            kind: OptKind::Str,
            default: "",
            help: "Comma-separated substrings: annotations containing one are never folded into \"others\"",
        },
    ],
    run,
};

/// Annotations per rank shown in the per-annotation bar charts (HTA draws one per name).
const BAR_CHARTS: usize = 10;

/// Options of [`user_annotation_breakdown`].
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct AnnotationOptions {
    /// GPU annotations (`gpu_user_annotation`); else CPU ones (`user_annotation`). Default `true`.
    pub use_gpu_annotation: bool,
    /// Quantile of the cumulative times past which names are folded. Default 0.8.
    pub duration_ratio: f64,
    /// Names kept per rank before folding. Default 1000.
    pub num_kernels: i64,
    /// Substrings of names never folded. Default none.
    pub allowlist_patterns: Vec<String>,
}

impl Default for AnnotationOptions {
    fn default() -> Self {
        AnnotationOptions { use_gpu_annotation: true, duration_ratio: 0.8, num_kernels: 1000, allowlist_patterns: Vec::new() }
    }
}

impl AnnotationOptions {
    /// The event category analysed.
    pub fn category(&self) -> &'static str {
        if self.use_gpu_annotation {
            "gpu_user_annotation"
        } else {
            "user_annotation"
        }
    }
}

/// Splits `allowlist_patterns` text: comma-separated, surrounding blanks dropped, empty parts
/// ignored (`""` → none).
pub fn parse_patterns(s: &str) -> Vec<String> {
    s.split(',').map(str::trim).filter(|p| !p.is_empty()).map(String::from).collect()
}

/// Whether HTA's symbol table has `symbol`: some event of some rank (also one later dropped by the
/// last-step filter, §1.9) that HTA parses has it as category or name.
pub fn hta_has_symbol(trace: &Trace, symbol: &str) -> bool {
    trace.ranks.iter().any(|r| {
        let kept = kept(r);
        (0..r.events.len()).any(|e| kept(e) && (r.cat(e as EventId) == symbol || r.strings.get(r.events.name.get(e)) == symbol))
    })
}

/// Per selected rank (ascending) the aggregated annotations; `None` when the trace has no event
/// of the category (HTA returns None).
pub fn user_annotation_breakdown(ctx: &Context<'_>, opts: &AnnotationOptions) -> Option<Vec<(u32, Vec<NameStats>)>> {
    let cat = opts.category();
    if !hta_has_symbol(ctx.trace, cat) {
        return None;
    }
    let keep = |name: &str| opts.allowlist_patterns.iter().any(|p| name.contains(p.as_str()));
    let fold = Folding { num_kernels: opts.num_kernels, duration_ratio: opts.duration_ratio, keep: &keep };
    let out = ctx
        .ranks()
        .map(|(f, r)| {
            let events: Vec<(&str, i64)> = (0..f.len())
                .filter(|&i| r.strings.get(f.cat(r, i)) == cat)
                .map(|i| (r.strings.get(f.name(r, i)), f.dur_ns(r, i)))
                .collect();
            (f.rank, aggregate_by_name(&events, &fold, ctx.hta))
        })
        .collect();
    Some(out)
}

fn run(ctx: &Context<'_>, p: &Params) -> Result<Report, AnalysisError> {
    let opts = AnnotationOptions {
        use_gpu_annotation: p.bool("use_gpu_annotation"),
        duration_ratio: p.float("duration_ratio"),
        num_kernels: p.int("num_kernels"),
        allowlist_patterns: parse_patterns(p.str("allowlist_patterns")),
    };
    if !(0.0..=1.0).contains(&opts.duration_ratio) {
        return fail(format!("duration_ratio must lie in [0, 1], found {} (HTA 0.5.0 raises ValueError)", opts.duration_ratio));
    }
    let mut report = Report::default();
    let name = format!("gpu_user_annotation_breakdown__{}", if opts.use_gpu_annotation { "gpu" } else { "cpu" });
    let Some(ranks) = user_annotation_breakdown(ctx, &opts) else {
        report.notes.push(format!("the trace has no {} events{}", opts.category(), if ctx.hta { ": HTA 0.5.0 returns None" } else { "" }));
        if !ctx.hta {
            report.tables.push(table(&name, &[], false));
        }
        return Ok(report);
    };
    report.tables.push(table(&name, &ranks, ctx.hta));
    report.charts = charts(&ranks, opts.use_gpu_annotation);
    if ranks.len() > PIE_RANKS {
        report.notes.push(format!("annotation pies are drawn for the first {PIE_RANKS} ranks only"));
    }
    Ok(report)
}

/// `name, sum (us), max (us), min (us), stddev, mean (us), rank` (+ `count` without `--hta`).
fn table(name: &str, ranks: &[(u32, Vec<NameStats>)], hta: bool) -> Table {
    let rows: Vec<(u32, &NameStats)> = ranks.iter().flat_map(|(r, v)| v.iter().map(move |s| (*r, s))).collect();
    let col = |f: fn(&NameStats) -> f64| Values::Float(rows.iter().map(|(_, s)| f(s)).collect());
    let mut t = Table::new(name)
        .with("name", Unit::None, Values::Str(rows.iter().map(|(_, s)| &s.name).collect()))
        .with("sum (us)", Unit::Us, col(|s| s.sum))
        .with("max (us)", Unit::Us, col(|s| s.max))
        .with("min (us)", Unit::Us, col(|s| s.min))
        .with("stddev", Unit::Us, col(|s| s.std))
        .with("mean (us)", Unit::Us, col(|s| s.mean))
        .with("rank", Unit::None, Values::Int(rows.iter().map(|(r, _)| i64::from(*r)).collect()));
    if hta {
        t.sort_canonical(&["rank", "name"]);
    } else {
        t = t.with("count", Unit::Count, Values::Int(rows.iter().map(|(_, s)| s.count as i64).collect()));
    }
    t
}

/// SPEC §6: a pie per rank; bars of the mean per rank (min/max whiskers) per annotation (the
/// longest ones over all ranks).
fn charts(ranks: &[(u32, Vec<NameStats>)], gpu: bool) -> Vec<Chart> {
    let side = if gpu { "GPU" } else { "CPU" };
    let mut charts: Vec<Chart> = ranks
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .take(PIE_RANKS)
        .map(|(r, v)| Chart::Pie {
            title: format!("User annotation distribution ({side}) on rank {r}"),
            slices: v.iter().map(|s| (s.name.clone(), s.sum)).collect(),
        })
        .collect();
    let mut totals: BTreeMap<&str, f64> = BTreeMap::new();
    for (_, v) in ranks {
        for s in v.iter().filter(|s| s.name != "others") {
            *totals.entry(&s.name).or_default() += s.sum;
        }
    }
    let mut top: Vec<(&str, f64)> = totals.into_iter().collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1));
    for (name, _) in top.into_iter().take(BAR_CHARTS) {
        let per_rank: Vec<(u32, &NameStats)> =
            ranks.iter().filter_map(|(r, v)| v.iter().find(|s| s.name == name).map(|s| (*r, s))).collect();
        charts.push(Chart::Bars {
            title: format!("User annotation ({side}) = {name}"),
            x_label: "rank".into(),
            y_label: "mean duration (µs)".into(),
            categories: per_rank.iter().map(|(r, _)| r.to_string()).collect(),
            values: per_rank.iter().map(|(_, s)| s.mean).collect(),
            errors: Some(per_rank.iter().map(|(_, s)| (s.min, s.max)).collect()),
        });
    }
    charts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_are_plain_substrings() {
        assert_eq!(parse_patterns(""), Vec::<String>::new());
        assert_eq!(parse_patterns("## forward, nccl:.*,,"), ["## forward", "nccl:.*"]);
    }
}
