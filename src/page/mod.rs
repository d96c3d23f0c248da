//! What the web page asks of the library, as plain Rust (compiled everywhere and tested natively;
//! `web.rs` only binds it to wasm). The page knows nothing about analyses: it lists them from
//! [`analyses_json`] (the registry), runs them through a [`Workspace`] in its Web Worker and shows
//! the JSON of [`Workspace::run_json`] as is.
//!
//! The JSON of a run:
//!
//! ```text
//! {"analysis": "temporal", "hta": false, "ranks": [0, 1], "params": {"name": "text"},
//!  "tables": [{"name": "temporal_breakdown", "rows": 2,
//!              "columns": [{"name": "rank", "unit": "none", "values": [0, 1]}, ...],
//!              "csv": "rank,...\n0,...\n"}],
//!  "charts": [<Chart>...], "notes": ["..."],
//!  "files": [{"name": "x.json.gz", "bytes": null}, {"name": "info.json", "bytes": 123}]}
//! ```
//!
//! Numbers are serde_json's text (the CLI's `--json` prints the same), `NaN` is `null`; `csv` is
//! [`Table::to_csv`] (what the CLI's `--csv` and `--out` write), so the page never formats a CSV.
//! A table of more than [`INLINE_CSV_CELLS`] cells comes without `csv`: the page asks for
//! `NAME.csv` ([`Workspace::file`]) when its CSV is downloaded or copied. The launch table of a
//! 1 GB trace is 100 MB of CSV: written into the JSON beside its values, it took the worker's
//! memory from 0.3 to 1.5 GB. A produced trace (`bytes` `null`) is written when asked for too.
//!
//! The Diff mode (two traces, or two rank sets of one) is [`diff_json`], in the same shape.

pub mod budget;
mod diff;
pub mod folders;
pub mod pool;
mod warm;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::api::{parse_int_list, select_ranks, AnalysisError, Context, Opt, Params};
use crate::analysis::hta_frame::HtaFrames;
use crate::analysis::registry;
use crate::model::Trace;
use crate::table::Table;
use crate::table::{Chart, ReportFile, TraceOut};

pub use diff::{diff, diff_json, diff_options_json, Diff};
pub use warm::{warm_analyses, warm_up};

/// One analysis as the page lists it (a tab with an options form).
#[derive(Debug, Serialize)]
struct AnalysisInfo {
    name: &'static str,
    title: &'static str,
    about: &'static str,
    hta_api: &'static str,
    /// The question the panel answers (the tab row it sits in).
    group: &'static str,
    options: &'static [Opt],
}

/// Every analysis of the registry, in order:
/// `[{name, title, about, hta_api, group, options: [{name, kind, default, help}]}]` (`group`: the
/// title of the question it answers, the analyses of a group next to each other).
pub fn analyses_json() -> String {
    let list: Vec<AnalysisInfo> = registry::ANALYSES
        .iter()
        .map(|a| AnalysisInfo {
            name: a.name,
            title: a.title,
            about: a.about,
            hta_api: a.hta_api,
            group: a.group.title(),
            options: a.options,
        })
        .collect();
    serde_json::to_string(&list).unwrap_or_else(|_| "[]".into())
}

/// Tables of at most this many cells (rows × columns, about 100 KB of CSV) carry their CSV in the
/// run's JSON; the CSV of a larger one is made when the page asks for it (module docs).
pub const INLINE_CSV_CELLS: usize = 10_000;

/// A table with its row count and CSV text (`None`: asked for apart, see [`INLINE_CSV_CELLS`]).
#[derive(Serialize)]
struct PageTable<'a> {
    #[serde(flatten)]
    table: &'a Table,
    rows: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    csv: Option<String>,
}

impl PageTable<'_> {
    /// `t` with its CSV, whatever its size.
    fn with_csv(t: &Table) -> PageTable<'_> {
        PageTable { table: t, rows: t.rows(), csv: Some(t.to_csv()) }
    }

    /// `t` with its CSV if it is small ([`INLINE_CSV_CELLS`]).
    fn of(t: &Table) -> PageTable<'_> {
        if inline_csv(t) {
            PageTable::with_csv(t)
        } else {
            PageTable { table: t, rows: t.rows(), csv: None }
        }
    }
}

/// Whether table `t` carries its CSV in a run's JSON.
fn inline_csv(t: &Table) -> bool {
    t.rows().saturating_mul(t.columns.len()) <= INLINE_CSV_CELLS
}

/// A produced file: name and size in bytes (the bytes come from [`Workspace::file`]); `null` for
/// a produced trace, made when it is asked for.
#[derive(Serialize)]
struct PageFile<'a> {
    name: &'a str,
    bytes: Option<usize>,
}

/// The JSON of one run (module docs).
#[derive(Serialize)]
struct PageReport<'a> {
    analysis: &'a str,
    hta: bool,
    ranks: Vec<u32>,
    params: BTreeMap<&'a str, &'a str>,
    tables: Vec<PageTable<'a>>,
    charts: &'a [Chart],
    notes: &'a [String],
    files: Vec<PageFile<'a>>,
}

/// A panel to put in the saved report: an analysis with its options (name, value as text; missing:
/// the default), ranks (`0,2-5`; empty: all) and mode.
#[derive(Debug, Clone, Default)]
pub struct View {
    /// The analysis' registry name.
    pub analysis: String,
    /// Options given.
    pub given: Vec<(String, String)>,
    /// Ranks.
    pub ranks: String,
    /// HTA mode.
    pub hta: bool,
}

/// One analysis run: its report, the ranks it ran on, its options.
struct Run {
    analysis: &'static str,
    report: crate::table::Report,
    ranks: Vec<u32>,
    params: Vec<(String, String)>,
}

/// The name of a trace's exports: its first file's name without `.json`/`.gz` (`trace` without).
fn export_stem(t: &Trace) -> String {
    let first = t.ranks.first().and_then(|r| r.files.first()).map(|f| crate::model::base_name(f).to_string());
    let mut stem = first.unwrap_or_else(|| "trace".into());
    for end in [".gz", ".json"] {
        if let Some(s) = stem.strip_suffix(end) {
            stem = s.to_string();
        }
    }
    stem
}

/// `value` as JSON, in a string allocated once at its size (measured by a first pass): grown by
/// doubling, the answer of a panel of a million rows held up to twice its size and, while it was
/// copied, three times, in a wasm memory that never shrinks.
fn json_sized(value: &impl Serialize) -> serde_json::Result<String> {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0 += b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    serde_json::to_writer(&mut count, value)?;
    let mut out = Vec::with_capacity(count.0);
    serde_json::to_writer(&mut out, value)?;
    // SAFETY: serde_json writes only valid UTF-8 (its own `to_string` relies on it the same way);
    // checking hundreds of MB again would cost a pass
    Ok(unsafe { String::from_utf8_unchecked(out) })
}

/// `{"html": ..., "charts": [...]}`.
fn html_json(html: &str, slots: &crate::html::Slots) -> Result<String, AnalysisError> {
    serde_json::to_string(&serde_json::json!({ "html": html, "charts": slots.charts }))
        .map_err(|e| AnalysisError(format!("could not write the HTML as JSON: {e}")))
}

/// A loaded trace and what runs on it keep: the frames of the last mode used (built once per
/// mode switch, not per run), and of each analysis' last run the files it produced, the traces
/// it produces (written when asked for: a gzip copy of a whole rank took the `counters` panel of
/// a 488 MB trace 5 s, downloaded or not) and its tables too large to carry their CSV
/// ([`INLINE_CSV_CELLS`]).
#[derive(Debug)]
pub struct Workspace {
    trace: Trace,
    frames: Option<HtaFrames>,
    frames_built: usize,
    files: BTreeMap<String, Vec<ReportFile>>,
    traces: BTreeMap<String, Vec<TraceOut>>,
    large_tables: BTreeMap<String, Vec<Table>>,
}

impl Workspace {
    /// A workspace over `trace`.
    pub fn new(trace: Trace) -> Workspace {
        Workspace { trace, frames: None, frames_built: 0, files: BTreeMap::new(), traces: BTreeMap::new(), large_tables: BTreeMap::new() }
    }

    /// The trace.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// How many times frames were built (once per switch between HTA and default mode).
    pub fn frames_built(&self) -> usize {
        self.frames_built
    }

    /// Runs analysis `name` with options `given` (name, value as text; missing options take their
    /// defaults) on the ranks `ranks_text` (`0,2-5`; empty = all), in HTA mode or not: its report,
    /// the ranks it ran on and its options (every one, defaults included).
    fn run(&mut self, name: &str, given: &[(String, String)], ranks_text: &str, hta: bool) -> Result<Run, AnalysisError> {
        let a = registry::find(name).ok_or_else(|| AnalysisError(format!("unknown analysis '{name}'")))?;
        let params = Params::new(a.options, given.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        let ranks = parse_int_list(ranks_text).map_err(|e| AnalysisError(format!("ranks: {e}")))?;
        let selected = select_ranks(&self.trace, ranks.as_deref())?;

        // exact frames are the default mode's; the old mode's frames go before new ones are built
        let cached = self.frames.take().filter(|f| f.exact != hta);
        let had = cached.is_some();
        let ctx = Context::with_frames(&self.trace, cached, hta, selected);
        let result = a.report(&ctx, &params);
        let ranks: Vec<u32> = ctx.selected.iter().map(|&p| self.trace.ranks[p].rank).collect();
        self.frames = ctx.into_frames();
        if !had && self.frames.is_some() {
            self.frames_built += 1;
        }
        let params = params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Ok(Run { analysis: a.name, report: result?, ranks, params })
    }

    /// Runs analysis `name` with options `params_json` (a JSON object of option name → value as
    /// text, number or bool; missing options take their defaults), on the ranks `ranks_text`
    /// (`0,2-5`; empty = all), in HTA mode or not. Returns the run's JSON (module docs).
    pub fn run_json(&mut self, name: &str, params_json: &str, ranks_text: &str, hta: bool) -> Result<String, AnalysisError> {
        let run = match self.run(name, &option_texts(params_json)?, ranks_text, hta) {
            Ok(r) => r,
            Err(e) => {
                self.files.remove(name);
                self.traces.remove(name);
                self.large_tables.remove(name);
                return Err(e);
            }
        };
        let report = &run.report;
        // what `--out DIR` writes besides the tables: the produced traces, then the other files
        let traces = report.traces.iter().map(|t| PageFile { name: &t.name, bytes: None });
        let files = traces.chain(report.files.iter().map(|f| PageFile { name: &f.name, bytes: Some(f.bytes.len()) }));
        let json = json_sized(&PageReport {
            analysis: run.analysis,
            hta,
            ranks: run.ranks,
            params: run.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect(),
            tables: report.tables.iter().map(PageTable::of).collect(),
            charts: &report.charts,
            notes: &report.notes,
            files: files.collect(),
        })
        .map_err(|e| AnalysisError(format!("could not write the report as JSON: {e}")))?;
        self.files.insert(run.analysis.to_string(), run.report.files);
        self.traces.insert(run.analysis.to_string(), run.report.traces);
        let large: Vec<Table> = run.report.tables.into_iter().filter(|t| !inline_csv(t)).collect();
        self.large_tables.insert(run.analysis.to_string(), large);
        Ok(json)
    }

    /// The Overview's dashboard (`crate::html::dashboard` of the `summary` analysis on every rank)
    /// as JSON: `{"html": "...", "charts": [<Chart>...]}`; its cards link to `#tab=NAME`.
    pub fn dashboard_json(&mut self) -> Result<String, AnalysisError> {
        let run = self.run("summary", &[], "", false)?;
        let (html, slots) = crate::html::dashboard(&run.report, &|p| Some(format!("#tab={p}")));
        html_json(&html, &slots)
    }

    /// The saved report (`crate::html::document`) of the Overview and the panels `views_json`
    /// (`[{"analysis": name, "params": {name: value}, "ranks": "0-3", "hta": false}]`, those the user
    /// opened), made `generated` (a line), as JSON: `{"html": "...", "charts": [<Chart>...]}`; the
    /// page draws the charts into their slots (`fill_chart_slots`).
    pub fn report_json(&mut self, views_json: &str, generated: &str) -> Result<String, AnalysisError> {
        let bad = |why: String| AnalysisError(format!("views: {why}"));
        let views: Vec<serde_json::Value> = serde_json::from_str(views_json).map_err(|e| bad(e.to_string()))?;
        let mut wanted = Vec::new();
        for v in views {
            let analysis = v.get("analysis").and_then(|a| a.as_str()).ok_or_else(|| bad("a view without an analysis".into()))?.to_string();
            let given = option_texts(&v.get("params").map(|p| p.to_string()).unwrap_or_default())?;
            let ranks = v.get("ranks").and_then(|r| r.as_str()).unwrap_or("").to_string();
            let hta = v.get("hta").and_then(|h| h.as_bool()).unwrap_or(false);
            wanted.push(View { analysis, given, ranks, hta });
        }
        let (html, slots) = self.report_html(wanted, generated);
        html_json(&html, &slots)
    }

    /// The saved report of the Overview and the panels `views`, made `generated` (a line): its HTML
    /// with chart slots and its charts (`crate::html::fill_slots` makes it the file).
    pub fn report_html(&mut self, views: Vec<View>, generated: &str) -> (String, crate::html::Slots) {
        let sections: Vec<_> = views.into_iter().map(|v| self.section(&v.analysis, v.given, v.ranks, v.hta)).collect();
        let summary = self.run("summary", &[], "", false).ok().map(|r| r.report);
        let ov = crate::analysis::overview::overview(&self.trace);
        crate::html::document(&ov, summary.as_ref(), &sections, generated)
    }

    /// A panel of the saved report: analysis `analysis` run with the options `given` (those that differ
    /// from the defaults are listed).
    fn section(&mut self, analysis: &str, given: Vec<(String, String)>, ranks: String, hta: bool) -> crate::html::Section {
        let defaults = registry::find(analysis).map(|a| a.options).unwrap_or(&[]);
        let params = given.iter().filter(|(k, v)| defaults.iter().any(|o| o.name == k && o.default != v)).cloned().collect();
        let result = self.run(analysis, &given, &ranks, hta).map(|r| r.report).map_err(|e| e.0);
        crate::html::Section { analysis: analysis.to_string(), params, ranks, hta, result }
    }

    /// The export `format` (`pprof`, `folded`, `speedscope`, `chrome`: `export::formats`) of the
    /// ranks `ranks_text` with the flame panel's options `params_json` (`measure`: `gpu` for GPU
    /// time by launching stack, `range`: `START,END` µs), what `kinetoscope export FORMAT TRACE -o
    /// NAME [--gpu] [--range] [--ranks]` writes. A Chrome trace needs one rank.
    pub fn export(&self, format: &str, params_json: &str, ranks_text: &str) -> Result<crate::export::formats::OutFile, AnalysisError> {
        use crate::export::formats::{export, Format, Request};
        let format = Format::parse(format).map_err(AnalysisError)?;
        let given = option_texts(params_json)?;
        let get = |k: &str| given.iter().find(|(n, _)| n == k).map(|(_, v)| v.trim().to_string()).unwrap_or_default();
        let measure = get("measure");
        let gpu = crate::analysis::flame::measure(if measure.is_empty() { "cpu" } else { &measure })? == crate::profile::Measure::Gpu;
        let range = match get("range") {
            r if r.is_empty() => None,
            r => Some(crate::analysis::gpu_ops::parse_range(&r)?),
        };
        let ranks = parse_int_list(ranks_text).map_err(|e| AnalysisError(format!("ranks: {e}")))?;
        let ranks = select_ranks(&self.trace, ranks.as_deref())?;
        if format == Format::Chrome && ranks.len() > 1 {
            return Err(AnalysisError(
                "a Chrome trace is one rank: choose one in the ranks field (kinetoscope export chrome writes one file per rank)".into(),
            ));
        }
        let stem = export_stem(&self.trace);
        let mut files = export(&self.trace, format, &Request { ranks, range, gpu, ..Request::default() }, &stem).map_err(AnalysisError)?;
        Ok(files.remove(0))
    }

    /// The bytes of file `name` produced by the last run of `analysis` (a produced trace is
    /// written now, as `--traces` writes it), or the CSV `TABLE.csv` of a table of that run that
    /// came without it ([`INLINE_CSV_CELLS`]). `Err` if the trace could not be written.
    pub fn file(&self, analysis: &str, name: &str) -> Result<Option<std::borrow::Cow<'_, [u8]>>, AnalysisError> {
        if let Some(f) = self.files.get(analysis).and_then(|fs| fs.iter().find(|f| f.name == name)) {
            return Ok(Some(f.bytes.as_slice().into()));
        }
        if let Some(t) = self.traces.get(analysis).and_then(|ts| ts.iter().find(|t| t.name == name)) {
            let f =
                crate::export::trace_out::trace_file(&self.trace, t).map_err(|e| AnalysisError(format!("could not write {name}: {e}")))?;
            return Ok(Some(f.bytes.into()));
        }
        let table = name.strip_suffix(".csv").and_then(|table| self.large_tables.get(analysis)?.iter().find(|t| t.name == table));
        Ok(table.map(|t| t.to_csv().into_bytes().into()))
    }
}

/// `{"name": value}` → `(name, text)` pairs; `null` values are left out (= default).
fn option_texts(params_json: &str) -> Result<Vec<(String, String)>, AnalysisError> {
    if params_json.trim().is_empty() {
        return Ok(Vec::new());
    }
    let bad = |why: String| AnalysisError(format!("options: {why}"));
    let v: serde_json::Value = serde_json::from_str(params_json).map_err(|e| bad(e.to_string()))?;
    let serde_json::Value::Object(map) = v else { return Err(bad("expected a JSON object".into())) };
    let mut out = Vec::new();
    for (k, v) in map {
        let text = match v {
            serde_json::Value::Null => continue,
            serde_json::Value::String(s) => s,
            serde_json::Value::Bool(b) => b.to_string(),
            serde_json::Value::Number(n) => n.to_string(),
            other => return Err(bad(format!("option '{k}': expected text, a number or a bool, found {other}"))),
        };
        out.push((k, text));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::read_all;

    /// Two ranks; rank 0 has a compute kernel and a memcpy, rank 1 only a CPU op.
    fn trace() -> Trace {
        let r0 = br#"{"distributedInfo": {"rank": 0}, "traceEvents": [
            {"ph": "X", "cat": "kernel", "name": "gemm", "ts": 10, "dur": 5, "pid": 0, "tid": 7, "args": {"stream": 7, "correlation": 1}},
            {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD", "ts": 20, "dur": 2, "pid": 0, "tid": 7, "args": {"stream": 7, "correlation": 2}}]}"#;
        let r1 = br#"{"distributedInfo": {"rank": 1}, "traceEvents": [
            {"ph": "X", "cat": "cpu_op", "name": "aten::add", "ts": 1, "dur": 3, "pid": 1, "tid": 1}]}"#;
        read_all(&[("r0.json", &r0[..]), ("r1.json", &r1[..])]).unwrap()
    }

    #[test]
    fn analyses_list_the_registry_with_options() {
        let v: serde_json::Value = serde_json::from_str(&analyses_json()).unwrap();
        let list = v.as_array().unwrap();
        assert_eq!(list.len(), registry::ANALYSES.len());
        for (item, a) in list.iter().zip(registry::ANALYSES) {
            assert_eq!(item["name"], a.name);
            assert_eq!(item["title"], a.title);
            assert_eq!(item["group"], a.group.title());
            assert_eq!(item["options"].as_array().unwrap().len(), a.options.len());
            for (o, spec) in item["options"].as_array().unwrap().iter().zip(a.options) {
                assert_eq!(o["name"], spec.name);
                assert_eq!(o["default"], spec.default);
                assert!(o["kind"].is_string());
            }
        }
    }

    #[test]
    fn run_gives_tables_with_csv_charts_notes_and_selected_ranks() {
        let mut w = Workspace::new(trace());
        let v: serde_json::Value = serde_json::from_str(&w.run_json("temporal", "{}", "", false).unwrap()).unwrap();
        assert_eq!(v["analysis"], "temporal");
        assert_eq!(v["ranks"], serde_json::json!([0, 1]));
        let t = &v["tables"][0];
        assert_eq!(t["name"], "temporal_breakdown");
        assert_eq!(t["rows"], 2);
        assert_eq!(t["columns"][0]["name"], "rank");
        assert_eq!(t["columns"][0]["unit"], "none");
        assert_eq!(t["columns"][0]["values"], serde_json::json!([0, 1]));
        // rank 0: GPU from 10 to 22 us, busy 7 (compute 5), idle 5
        assert_eq!(t["columns"][1]["name"], "idle_time(us)");
        assert_eq!(t["columns"][1]["values"], serde_json::json!([5.0, 0.0]));
        // rank 1 has no GPU events: percentages are NaN -> null, in the table and in the chart
        assert_eq!(t["columns"][5]["values"][1], serde_json::Value::Null);
        assert_eq!(v["charts"][0]["series"][0]["values"][1], serde_json::Value::Null);
        assert_eq!(v["notes"], serde_json::json!(["rank 1 has no GPU events"]));
        assert_eq!(
            t["csv"],
            "rank,idle_time(us),compute_time(us),non_compute_time(us),kernel_time(us),idle_time_pctg,compute_time_pctg,non_compute_time_pctg\n\
             0,5.0,5.0,2.0,12.0,41.67,41.67,16.67\n1,0.0,0.0,0.0,0.0,,,\n"
        );
        assert_eq!(v["files"], serde_json::json!([]));

        let v: serde_json::Value = serde_json::from_str(&w.run_json("temporal", "", "1", false).unwrap()).unwrap();
        assert_eq!(v["ranks"], serde_json::json!([1]));
        assert_eq!(v["tables"][0]["rows"], 1);
    }

    #[test]
    fn produced_files_are_the_traces_then_the_other_files() {
        let mut w = Workspace::new(trace());
        let v: serde_json::Value = serde_json::from_str(&w.run_json("critical_path", "{}", "1", false).unwrap()).unwrap();
        let names: Vec<&str> = v["files"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
        assert_eq!(names.len(), 2, "{names:?}");
        assert!(names[0].starts_with("overlaid_critical_path_r1.json") && names[1] == "critical_path_info.json", "{names:?}");
        let info: serde_json::Value =
            serde_json::from_slice(&w.file("critical_path", "critical_path_info.json").unwrap().unwrap()).unwrap();
        assert_eq!(info["rank"], 1);
        // the trace is written when asked for (its size is not known before), as `--traces` writes it
        assert_eq!(v["files"][0]["bytes"], serde_json::Value::Null);
        assert!(v["files"][1]["bytes"].as_u64().unwrap() > 0);
        let report = w.run("critical_path", &[], "1", false).unwrap().report;
        let want = crate::export::trace_files(w.trace(), &report).unwrap();
        assert_eq!(w.file("critical_path", names[0]).unwrap().unwrap(), want[0].bytes.as_slice());
    }

    #[test]
    fn a_large_table_comes_without_csv_and_its_csv_is_a_file_of_the_run() {
        // 3,000 kernels: the launch table (a row per kernel) is past INLINE_CSV_CELLS, temporal's is not
        let kernels: Vec<String> = (0..3000)
            .map(|i| {
                format!(
                    r#"{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": {t}, "dur": 2, "pid": 0, "tid": 1, "args": {{"correlation": {i}}}}},
                    {{"ph": "X", "cat": "kernel", "name": "k{m}", "ts": {k}, "dur": 3, "pid": 0, "tid": 7, "args": {{"stream": 7, "correlation": {i}}}}}"#,
                    t = 10 * i,
                    k = 10 * i + 4,
                    m = i % 7
                )
            })
            .collect();
        let json = format!(r#"{{"traceEvents": [{}]}}"#, kernels.join(",\n"));
        let mut w = Workspace::new(read_all(&[("big.json", json.as_bytes())]).unwrap());
        let v: serde_json::Value = serde_json::from_str(&w.run_json("launch", "{}", "", false).unwrap()).unwrap();
        let stats = v["tables"].as_array().unwrap().iter().find(|t| t["rows"] == 3000).expect("a table of 3,000 launches");
        assert!(stats.get("csv").is_none(), "no CSV inline for {}", stats["name"]);
        let name = stats["name"].as_str().unwrap();
        let csv = String::from_utf8(w.file("launch", &format!("{name}.csv")).unwrap().unwrap().into_owned()).unwrap();
        let want = w.run("launch", &[], "", false).unwrap().report.tables.into_iter().find(|t| t.name == name).unwrap().to_csv();
        assert_eq!(csv, want);
        assert_eq!(csv.lines().count(), 3001);
        // a small table carries its CSV; a table of another analysis, or of no run, is no file
        let v: serde_json::Value = serde_json::from_str(&w.run_json("temporal", "{}", "", false).unwrap()).unwrap();
        assert!(v["tables"][0]["csv"].as_str().unwrap().starts_with("rank,"));
        assert!(w.file("temporal", &format!("{name}.csv")).unwrap().is_none());
        assert!(w.file("launch", "nope.csv").unwrap().is_none());
        // a failed run leaves nothing of the last one
        assert!(w.run_json("launch", "{}", "9", false).is_err());
        assert!(w.file("launch", &format!("{name}.csv")).unwrap().is_none());
    }

    #[test]
    fn frames_are_built_once_per_mode_switch() {
        let mut w = Workspace::new(trace());
        w.run_json("temporal", "{}", "", false).unwrap();
        w.run_json("temporal", "{}", "0", false).unwrap();
        assert_eq!(w.frames_built(), 1);
        // HTA mode raises on the rank without GPU events; the frames stay cached all the same
        let e = w.run_json("temporal", "{}", "", true).unwrap_err();
        assert!(e.0.contains("HTA 0.5.0 raises"), "{e}");
        let v: serde_json::Value = serde_json::from_str(&w.run_json("temporal", "{}", "0", true).unwrap()).unwrap();
        assert_eq!(v["hta"], true);
        assert_eq!(w.frames_built(), 2);
        w.run_json("temporal", "{}", "", false).unwrap();
        assert_eq!(w.frames_built(), 3);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let mut w = Workspace::new(trace());
        assert_eq!(w.run_json("nope", "{}", "", false).unwrap_err().0, "unknown analysis 'nope'");
        assert_eq!(w.run_json("temporal", "{}", "7", false).unwrap_err().0, "rank 7 is not in the trace (ranks: 0, 1)");
        assert!(w.run_json("temporal", "{}", "x", false).unwrap_err().0.starts_with("ranks: "));
        assert!(w.run_json("temporal", "[1]", "", false).unwrap_err().0.starts_with("options: "));
        assert!(w.run_json("temporal", r#"{"bogus": 1}"#, "", false).unwrap_err().0.starts_with("unknown option 'bogus'"));
        assert!(w.file("temporal", "x").unwrap().is_none());
    }

    #[test]
    fn option_values_become_text() {
        let got = option_texts(r#"{"a": "1e9", "b": 0.5, "c": true, "d": null}"#).unwrap();
        assert_eq!(got, vec![("a".into(), "1e9".into()), ("b".into(), "0.5".into()), ("c".into(), "true".into())]);
    }

    #[test]
    fn exports_are_the_cli_files() {
        let w = Workspace::new(trace());
        let f = w.export("folded", r#"{"measure": "gpu"}"#, "0").unwrap();
        assert_eq!(f.name, "r0.folded", "named after the first file");
        let want = crate::export::formats::export(
            w.trace(),
            crate::export::formats::Format::Folded,
            &crate::export::formats::Request { ranks: vec![0], gpu: true, ..Default::default() },
            "r0",
        )
        .unwrap();
        assert_eq!(f.bytes, want[0].bytes);
        assert_eq!(String::from_utf8(f.bytes).unwrap(), "(no launching CPU call);Memcpy HtoD 2000\n(no launching CPU call);gemm 5000\n");
        assert_eq!(
            w.export("chrome", "{}", "").unwrap_err().0,
            "a Chrome trace is one rank: choose one in the ranks field (kinetoscope export chrome writes one file per rank)"
        );
        assert_eq!(w.export("chrome", "{}", "1").unwrap().name, "r0.json");
        assert!(w.export("folded", "{}", "0").unwrap_err().0.starts_with("the trace has no CPU spans"));
        assert_eq!(
            w.export("svg", "{}", "").unwrap_err().0,
            "unknown export format 'svg' (expected one of: pprof, folded, speedscope, chrome)"
        );
    }
}
