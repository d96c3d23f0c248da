//! The list of analyses the CLI, the page and `analyze` offer, in the page's order, and the plan
//! `analyze --hta` runs to write the oracle's files. Adding an analysis = one line in [`ANALYSES`]
//! (see docs/adding-an-analysis.md); what an analysis is lives in [`super::api`].

use super::api::{Analysis, AnalysisError, Context, Params};
use crate::table::Report;

/// Every analysis, in the order the page shows them: grouped by the question they answer
/// ([`super::api::Group`], in its order).
pub const ANALYSES: &[Analysis] = &[
    // GPU time: where the time went (the Overview dashboard), temporal breakdown, idle time,
    // user annotations (SPEC §2.1, §2.4, §2.12)
    super::summary::ANALYSIS,
    super::temporal::ANALYSIS,
    super::idle::ANALYSIS,
    super::patterns::ANALYSIS,
    super::annotations::ANALYSIS,
    // kernels: breakdown, with their annotations, frequent sequences, CUPTI counters (SPEC §2.2,
    // §2.11, §2.13, §2.16)
    super::kernels::ANALYSIS,
    super::annotated_kernels::ANALYSIS,
    super::sequences::ANALYSIS,
    super::cupti::ANALYSIS,
    super::rocprof_stats::ANALYSIS,
    // launch & CPU: launch statistics, ATen-op delays, queue length (SPEC §2.9, §2.10, §2.5–2.6)
    super::flame::ANALYSIS,
    super::launch::ANALYSIS,
    super::aten_ops::ANALYSIS,
    super::queue::ANALYSIS,
    super::critical_path::ANALYSIS,
    // communication: overlap, stragglers (SPEC §2.3, §2.15)
    super::overlap::ANALYSIS,
    super::stragglers::ANALYSIS,
    // memory bandwidth (SPEC §2.7)
    super::memory_bw::ANALYSIS,
    super::transfers::ANALYSIS,
    // steps and LLM decode steps; GPU operations in a time range (kernel_extractor's `stats` and
    // `extract`; no HTA counterpart)
    super::steps::ANALYSIS,
    super::decode::ANALYSIS,
    super::gpu_ops::ANALYSIS,
    // HPC I/O calls of Recorder traces (recorder-viz's report)
    super::io::ANALYSIS,
    // export: the trace with counter tracks (SPEC §2.8)
    super::counters::ANALYSIS,
];

/// The analysis called `name` (snake_case; the kebab-case spelling, `memory-bw`, is accepted).
pub fn find(name: &str) -> Option<&'static Analysis> {
    let name = name.replace('-', "_");
    ANALYSES.iter().find(|a| a.name == name)
}

/// One run of `analyze --hta`: an analysis with the options the oracle used, and how its table
/// names change (`from` prefix → `to` prefix) for the oracle's file names.
#[derive(Debug, Clone)]
pub struct PlanStep {
    /// The analysis.
    pub analysis: &'static Analysis,
    /// Options (name, value).
    pub params: Vec<(&'static str, String)>,
    /// Table-name prefix replacement.
    pub rename: Option<(&'static str, &'static str)>,
}

/// What `analyze --hta` runs to write the oracle's files (`../shared/hta-oracle/README.md`): every
/// analysis with defaults, plus the oracle's extra variants.
pub fn hta_plan(ctx: &Context<'_>) -> Vec<PlanStep> {
    // analyses that run with defaults (those needing options get their steps below); those
    // without an HTA counterpart (decode steps) only outside HTA mode; not `gpu_ops`, a table of
    // every GPU operation of the trace unless given a time range
    let mut plan: Vec<PlanStep> = ANALYSES
        .iter()
        .filter(|a| !(["sequences", "gpu_ops"].contains(&a.name) || ctx.hta && a.hta_api.is_empty()))
        .map(|a| PlanStep { analysis: a, params: Vec::new(), rename: None })
        .collect();
    // frequent kernel sequences: the first two of these operators that name a row of the first
    // rank; HTA ran on the first rank only. They come right after `aten_ops`, which builds the
    // call graph they walk, so that it is freed early (`uses_call_graph`)
    let mut at = plan.iter().position(|s| s.analysis.name == super::aten_ops::ANALYSIS.name).map_or(plan.len(), |p| p + 1);
    if let Some(&first) = ctx.selected.first() {
        let (f, r) = (&ctx.frames().ranks[first], &ctx.trace.ranks[first]);
        // the names the frame uses, each tested once (not once per row and operator)
        let mut used = vec![false; r.strings.len()];
        for &e in &f.row {
            used[r.events.name.get(e as usize).0 as usize] = true;
        }
        let present = |op: &&&str| r.strings.iter().zip(&used).any(|(s, &u)| u && s.contains(**op));
        for op in ["aten::linear", "aten::conv2d", "aten::addmm", "aten::copy_"].iter().filter(present).take(2) {
            let mut params = vec![("operator_name", op.to_string())];
            if ctx.hta {
                params.push(("rank", f.rank.to_string()));
            }
            plan.insert(at, PlanStep { analysis: &super::sequences::ANALYSIS, params, rename: None });
            at += 1;
        }
    }
    // kernel breakdown without folding (`gpu_kernel_breakdown_all__*`) and the CPU-side user
    // annotation breakdown (`gpu_user_annotation_breakdown__cpu`)
    plan.push(PlanStep {
        analysis: &super::kernels::ANALYSIS,
        params: vec![("num_kernels", "1e9".into()), ("duration_ratio", "1.0".into())],
        rename: Some(("gpu_kernel_breakdown__", "gpu_kernel_breakdown_all__")),
    });
    plan.push(PlanStep { analysis: &super::annotations::ANALYSIS, params: vec![("use_gpu_annotation", "false".into())], rename: None });
    // queue length: the oracle also ran get_time_spent_blocked_on_full_queue(series, 8)
    plan.push(PlanStep {
        analysis: &super::queue::ANALYSIS,
        params: vec![("max_queue_length", "8".into())],
        rename: Some(("time_blocked_on_full_queue", "time_blocked_on_full_queue__max8")),
    });
    plan
}

/// Whether `step` asks for the ranks' call graphs ([`Context::call_graph`]): `sequences`, and
/// `aten_ops` outside HTA mode (which reproduces HTA with its own call stacks). With
/// [`Context::expect_call_graph_uses`] set to the count of such steps, a graph is freed after its
/// last one.
pub fn uses_call_graph(step: &PlanStep, hta: bool) -> bool {
    step.analysis.name == super::sequences::ANALYSIS.name || !hta && step.analysis.name == super::aten_ops::ANALYSIS.name
}

/// Whether `step` asks for every selected rank's queue-length series
/// ([`Context::queue_points`]): `queue` and `counters` (its queue-length track; HTA's critical
/// path builds its own, for one rank). With [`Context::expect_queue_uses`] set to the count of
/// such steps, a series is freed after its last one.
pub fn uses_queue_points(step: &PlanStep) -> bool {
    let name = step.analysis.name;
    name == super::queue::ANALYSIS.name || name == super::counters::ANALYSIS.name
}

/// Runs one plan step: the analysis' report with renamed tables. A step with a rename is a
/// variant run: it keeps only the renamed tables (and no produced files), so the tables the
/// default run already wrote are not written twice.
pub fn run_step(ctx: &Context<'_>, step: &PlanStep) -> Result<Report, AnalysisError> {
    let mut params = Params::new(step.analysis.options, step.params.iter().map(|(k, v)| (*k, v.as_str())))?;
    if let Some((from, _)) = step.rename {
        params = params.keeping_only(from);
    }
    let mut report = step.analysis.report(ctx, &params)?;
    if let Some((from, to)) = step.rename {
        report.tables.retain(|t| t.name.starts_with(from));
        report.traces.clear();
        for t in &mut report.tables {
            if let Some(rest) = t.name.strip_prefix(from) {
                t.name = format!("{to}{rest}");
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::api::Group;

    #[test]
    fn analyses_are_listed_by_group_in_group_order() {
        let order =
            [Group::GpuTime, Group::Kernels, Group::LaunchCpu, Group::Communication, Group::Memory, Group::Steps, Group::Io, Group::Export];
        let ranks: Vec<usize> = ANALYSES.iter().map(|a| order.iter().position(|g| *g == a.group).expect("known group")).collect();
        assert!(ranks.windows(2).all(|w| w[0] <= w[1]), "{:?}", ANALYSES.iter().map(|a| (a.name, a.group)).collect::<Vec<_>>());
        let names: Vec<&str> = ANALYSES.iter().map(|a| a.name).collect();
        assert_eq!(names.len(), 24);
        assert_eq!(find("memory-bw").map(|a| a.name), Some("memory_bw"));
    }
}
