//! Host↔device transfers (`kinetoscope transfers`). Work in progress.

use super::api::{Analysis, AnalysisError, Context, Group, Params};
use crate::table::Report;

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "transfers",
    title: "Transfers",
    about: "copies per direction (HtoD, DtoH, DtoD, peer): count, bytes, time, bandwidth, and how much of their time compute overlaps",
    hta_api: "",
    group: Group::Memory,
    options: &[],
    run,
};

fn run(_ctx: &Context<'_>, _: &Params) -> Result<Report, AnalysisError> {
    Ok(Report::default())
}
