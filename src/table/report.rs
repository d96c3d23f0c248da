//! What an analysis returns: tables, the charts to draw from them ([`super::chart`]), notes and
//! produced files. Reports are serialisable because the page computes them in a Web Worker and
//! draws them on the main thread.

use serde::Serialize;

use super::{Chart, Table, TraceOut};

/// The result of one analysis run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    /// Result tables. Names are file stems (`temporal_breakdown`, `queue_length_time_series__rank0`);
    /// in HTA mode they are the oracle's file names.
    pub tables: Vec<Table>,
    /// Charts, in display order.
    pub charts: Vec<Chart>,
    /// Remarks for the user (an empty result's reason, a rank skipped and why).
    pub notes: Vec<String>,
    /// Traces the analysis produces besides tables (a trace with counter tracks, a trace with
    /// patterns marked): what to add to which rank. `crate::export::trace_files` writes them;
    /// `--out DIR` saves them and the page offers them as downloads. Not part of the JSON form.
    #[serde(skip)]
    pub traces: Vec<TraceOut>,
    /// Other files the analysis produces (name, content), written by `--out` (e.g. HTA's
    /// `critical_path_info.json`). Not part of the JSON form.
    #[serde(skip)]
    pub files: Vec<ReportFile>,
}

impl Report {
    /// Drops the charts that would show nothing the tables do not ([`Chart::is_informative`]):
    /// done once where a report leaves for output (`Analysis::report`, the diff), so neither the
    /// page nor the CLI's `--plot` gets an empty box or a lone bar with whiskers.
    pub fn drop_uninformative_charts(&mut self) {
        self.charts.retain(Chart::is_informative);
    }
}

/// A produced file (name without folder, content): a written [`TraceOut`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReportFile {
    /// File name, e.g. `rank0_with_counters.json.gz`.
    pub name: String,
    /// Content.
    pub bytes: Vec<u8>,
}
