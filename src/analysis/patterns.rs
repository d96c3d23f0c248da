//! Trace patterns the ROCm and CUDA performance guides teach (`kinetoscope patterns`): serialized
//! execution, kernel-launch overhead, memory-bound phases, long gaps. Work in progress.

use super::api::{Analysis, AnalysisError, Context, Group, Params};
use crate::table::Report;

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "patterns",
    title: "Performance patterns",
    about: "serialized execution, kernel-launch overhead, memory-bound phases and long gaps, each with its evidence",
    hta_api: "",
    group: Group::GpuTime,
    options: &[],
    run,
};

fn run(_ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    Ok(Report::default())
}
