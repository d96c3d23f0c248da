//! Profiler steps (HTA `get_profiler_steps`, SPEC §2.14): the iteration numbers of the
//! `ProfilerStep#N` events still in the loaded frames, over all selected ranks, sorted.
//!
//! Loading drops the last step (HTA's `_filter_irrelevant_gpu_kernels`, SPEC §1.9, because it is
//! usually cut short), so a trace with steps 3–7 reports 3–6. Any row whose name starts with
//! `ProfilerStep` counts, whatever its category (the `gpu_user_annotation` copy of a step too);
//! a name without `#N` counts as −1, which is never reported.

use std::collections::BTreeMap;

use super::api::{Analysis, AnalysisError, Context, Group, Params};
use super::hta_frame::hta_step_number;
use crate::table::Report;
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "steps",
    title: "Profiler steps",
    about: "the profiler steps (iterations) in the trace",
    hta_api: "get_profiler_steps (SPEC §2.14)",
    group: Group::Steps,
    options: &[],
    run,
};

/// Step numbers of the selected ranks, ascending, each with the ranks that have it.
pub fn profiler_steps(ctx: &Context<'_>) -> BTreeMap<i64, Vec<u32>> {
    let mut steps: BTreeMap<i64, Vec<u32>> = BTreeMap::new();
    for (f, r) in ctx.ranks() {
        for &e in &f.row {
            let text = r.name(e);
            if !text.starts_with("ProfilerStep") {
                continue;
            }
            if let Some(n) = hta_step_number(text) {
                let ranks = steps.entry(n).or_default();
                if !ranks.contains(&f.rank) {
                    ranks.push(f.rank);
                }
            }
        }
    }
    steps
}

fn run(ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    let steps = profiler_steps(ctx);
    let mut report = Report::default();
    let mut t = Table::new("profiler_steps").with("profiler_step", Unit::None, Values::Int(steps.keys().copied().collect()));
    if !ctx.hta {
        t = t.with("num_ranks", Unit::Count, Values::Int(steps.values().map(|r| r.len() as i64).collect()));
        if steps.is_empty() {
            report.notes.push("no ProfilerStep#N events (besides a last, incomplete one that loading drops)".into());
        }
    }
    report.tables.push(t);
    Ok(report)
}
