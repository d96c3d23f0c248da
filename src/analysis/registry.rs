//! The list of analyses the CLI, the page and `analyze` offer, with their options. One entry per
//! analysis: the CLI builds a subcommand from it, the page a panel, `analyze` runs them all.
//!
//! Options are declared once ([`Opt`]) with HTA's default as text; values arrive as text from
//! the command line or the page ([`Params`]) and are checked here, so every front end reports a
//! bad value the same way.

use std::collections::BTreeMap;

use serde::Serialize;

use super::hta_frame::{hta_frames, HtaFrameOptions, HtaFrames};
use super::report::Report;
use crate::model::Trace;

/// What an analysis cannot do with the input or the options (a user error, not a bug).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalysisError(pub String);

impl std::fmt::Display for AnalysisError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for AnalysisError {}

/// Shorthand for an [`AnalysisError`] result.
pub fn fail<T>(msg: impl Into<String>) -> Result<T, AnalysisError> {
    Err(AnalysisError(msg.into()))
}

/// Type of an option's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OptKind {
    /// Integer.
    Int,
    /// Number.
    Float,
    /// `true`/`false`.
    Bool,
    /// Text.
    Str,
    /// Comma-separated integers (empty = all).
    IntList,
}

/// One option of an analysis.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Opt {
    /// Name, snake_case as in HTA (`duration_ratio`); the CLI spells it `--duration-ratio`.
    pub name: &'static str,
    /// Value type.
    pub kind: OptKind,
    /// Default value as text (HTA's default).
    pub default: &'static str,
    /// One-line help.
    pub help: &'static str,
}

/// Checked option values of one run: every declared option has a value (given or default).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Params {
    values: BTreeMap<&'static str, String>,
}

impl Params {
    /// Checks `given` (name → text) against `opts`: unknown names and unparsable values are
    /// errors; missing options take their default.
    pub fn new<'a>(opts: &[Opt], given: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Params, AnalysisError> {
        let mut values: BTreeMap<&'static str, String> = opts.iter().map(|o| (o.name, o.default.to_string())).collect();
        for (k, v) in given {
            let Some(o) = opts.iter().find(|o| o.name == k) else {
                let known: Vec<&str> = opts.iter().map(|o| o.name).collect();
                return fail(format!(
                    "unknown option '{k}' (options: {})",
                    if known.is_empty() { "none".into() } else { known.join(", ") }
                ));
            };
            check(o, v)?;
            values.insert(o.name, v.trim().to_string());
        }
        Ok(Params { values })
    }

    /// The defaults of `opts`.
    pub fn defaults(opts: &[Opt]) -> Params {
        Params { values: opts.iter().map(|o| (o.name, o.default.to_string())).collect() }
    }

    fn raw(&self, name: &str) -> &str {
        self.values.get(name).map(String::as_str).unwrap_or_else(|| panic!("option '{name}' is not declared"))
    }

    /// An integer option.
    pub fn int(&self, name: &str) -> i64 {
        parse_int(self.raw(name)).unwrap_or_default()
    }

    /// A number option.
    pub fn float(&self, name: &str) -> f64 {
        self.raw(name).parse().unwrap_or_default()
    }

    /// A boolean option.
    pub fn bool(&self, name: &str) -> bool {
        parse_bool(self.raw(name)).unwrap_or_default()
    }

    /// A text option.
    pub fn str(&self, name: &str) -> &str {
        self.raw(name)
    }

    /// An integer-list option (`None` when empty: "all").
    pub fn int_list(&self, name: &str) -> Option<Vec<i64>> {
        parse_int_list(self.raw(name)).ok().flatten()
    }

    /// The values as `(name, text)` pairs (for notes and JSON).
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (*k, v.as_str()))
    }
}

/// Integers, also written `1e9` (a whole number in float notation).
fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    s.parse().ok().or_else(|| s.parse::<f64>().ok().filter(|f| f.fract() == 0.0 && f.abs() < 9.2e18).map(|f| f as i64))
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.trim() {
        "true" | "1" | "yes" => Some(true),
        "false" | "0" | "no" => Some(false),
        _ => None,
    }
}

/// `"0,2-4"` → `[0, 2, 3, 4]`; `""`/`"all"` → `None`.
pub fn parse_int_list(s: &str) -> Result<Option<Vec<i64>>, AnalysisError> {
    let s = s.trim();
    if s.is_empty() || s == "all" {
        return Ok(None);
    }
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim) {
        let range = part.split_once('-').filter(|(a, _)| !a.is_empty());
        match range {
            Some((a, b)) => {
                let (Some(a), Some(b)) = (parse_int(a), parse_int(b)) else {
                    return fail(format!("expected a number or a range like 2-5, found '{part}'"));
                };
                if b < a || b - a > 1_000_000 {
                    return fail(format!("bad range '{part}'"));
                }
                out.extend(a..=b);
            }
            None => out.push(parse_int(part).ok_or_else(|| AnalysisError(format!("expected a number, found '{part}'")))?),
        }
    }
    Ok(Some(out))
}

fn check(o: &Opt, v: &str) -> Result<(), AnalysisError> {
    let ok = match o.kind {
        OptKind::Int => parse_int(v).is_some(),
        OptKind::Float => v.trim().parse::<f64>().is_ok_and(f64::is_finite),
        OptKind::Bool => parse_bool(v).is_some(),
        OptKind::Str => true,
        OptKind::IntList => parse_int_list(v).is_ok(),
    };
    if ok {
        Ok(())
    } else {
        let what = match o.kind {
            OptKind::Int => "an integer",
            OptKind::Float => "a number",
            OptKind::Bool => "true or false",
            OptKind::Str => "text",
            OptKind::IntList => "comma-separated integers",
        };
        fail(format!("option '{}': expected {what}, found '{v}'", o.name))
    }
}

/// What every analysis reads: the trace, its frames (built once) and the selected ranks.
pub struct Context<'a> {
    /// The trace.
    pub trace: &'a Trace,
    /// The per-rank frames (HTA's or the corrected ones, see [`Context::hta`]), built on first
    /// use ([`Context::frames`]): analyses of the raw events (decode steps) never pay for them.
    frames: std::cell::OnceCell<HtaFrames>,
    /// Reproduce HTA 0.5.0 exactly, bugs included (`--hta`); else fix SPEC §5's bugs.
    pub hta: bool,
    /// Positions (in `trace.ranks` and `frames.ranks`) of the ranks to analyse, in rank order.
    pub selected: Vec<usize>,
}

impl<'a> Context<'a> {
    /// Frames of `trace`; `ranks` selects rank numbers (`None`: all). Unknown ranks are errors.
    pub fn new(trace: &'a Trace, hta: bool, ranks: Option<&[i64]>) -> Result<Context<'a>, AnalysisError> {
        let selected = select_ranks(trace, ranks)?;
        Ok(Context::with_frames(trace, None, hta, selected))
    }

    /// A context over already-selected rank positions, reusing `frames` when given (they must
    /// be of the same mode: exact frames for the default mode, HTA's for `hta`).
    pub fn with_frames(trace: &'a Trace, frames: Option<HtaFrames>, hta: bool, selected: Vec<usize>) -> Context<'a> {
        let cell = std::cell::OnceCell::new();
        if let Some(f) = frames {
            debug_assert_eq!(f.exact, !hta, "frames of the other mode");
            let _ = cell.set(f);
        }
        Context { trace, frames: cell, hta, selected }
    }

    /// The frames, built now if no analysis needed them before.
    pub fn frames(&self) -> &HtaFrames {
        self.frames.get_or_init(|| hta_frames(self.trace, &HtaFrameOptions { exact: !self.hta, ..Default::default() }))
    }

    /// The frames if they were built (to keep them for the next run).
    pub fn into_frames(self) -> Option<HtaFrames> {
        self.frames.into_inner()
    }

    /// `(frame, rank trace)` of each selected rank, in rank order.
    pub fn ranks(&self) -> impl Iterator<Item = (&super::hta_frame::HtaFrame, &'a crate::model::RankTrace)> + '_ {
        self.selected.iter().map(|&p| (&self.frames().ranks[p], &self.trace.ranks[p]))
    }
}

/// Positions (in `trace.ranks`) of the rank numbers `ranks` (`None`: all), in rank order,
/// without duplicates. A rank the trace does not have is an error naming the ones it has.
pub fn select_ranks(trace: &Trace, ranks: Option<&[i64]>) -> Result<Vec<usize>, AnalysisError> {
    let Some(want) = ranks else { return Ok((0..trace.ranks.len()).collect()) };
    let mut sel = Vec::new();
    for &w in want {
        match trace.ranks.iter().position(|r| i64::from(r.rank) == w) {
            Some(p) if !sel.contains(&p) => sel.push(p),
            Some(_) => {}
            None => {
                let have: Vec<String> = trace.ranks.iter().map(|r| r.rank.to_string()).collect();
                return fail(format!("rank {w} is not in the trace (ranks: {})", have.join(", ")));
            }
        }
    }
    sel.sort_unstable();
    Ok(sel)
}

/// One analysis.
#[derive(Clone, Copy)]
pub struct Analysis {
    /// CLI subcommand and page panel id (`temporal`).
    pub name: &'static str,
    /// Title (`Temporal breakdown`).
    pub title: &'static str,
    /// One-line description (CLI help).
    pub about: &'static str,
    /// The HTA API it matches (`get_temporal_breakdown`, SPEC §2.1).
    pub hta_api: &'static str,
    /// Options with HTA's defaults.
    pub options: &'static [Opt],
    /// Runs it.
    pub run: fn(&Context<'_>, &Params) -> Result<Report, AnalysisError>,
}

impl std::fmt::Debug for Analysis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analysis").field("name", &self.name).finish_non_exhaustive()
    }
}

/// Every analysis, in the order the page shows them.
pub const ANALYSES: &[Analysis] = &[
    super::temporal::ANALYSIS,
    // kernel breakdown, overlap, user annotations (SPEC §2.2, §2.3, §2.11, §2.12)
    super::kernels::ANALYSIS,
    super::overlap::ANALYSIS,
    super::annotations::ANALYSIS,
    super::annotated_kernels::ANALYSIS,
    // idle time, queue length, memory bandwidth, trace with counters (SPEC §2.4–§2.8)
    super::idle::ANALYSIS,
    super::queue::ANALYSIS,
    super::memory_bw::ANALYSIS,
    super::counters::ANALYSIS,
    // launch statistics, ATen-op delays, steps, stragglers, CUPTI counters (helper-c)
    super::launch::ANALYSIS,
    super::aten_ops::ANALYSIS,
    super::steps::ANALYSIS,
    super::stragglers::ANALYSIS,
    super::cupti::ANALYSIS,
    // frequent CUDA kernel sequences (SPEC §2.13)
    super::sequences::ANALYSIS,
    // LLM decode steps and GPU operations in a time range (kernel_extractor's `stats` and
    // `extract`; no HTA counterpart)
    super::decode::ANALYSIS,
    super::decode::EXTRACT_ANALYSIS,
];

/// The analysis called `name`.
pub fn find(name: &str) -> Option<&'static Analysis> {
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
    // rank; HTA ran on the first rank only
    if let Some(&first) = ctx.selected.first() {
        let (f, r) = (&ctx.frames().ranks[first], &ctx.trace.ranks[first]);
        let present = |op: &&&str| f.name.iter().any(|&s| r.strings.get(s).contains(**op));
        for op in ["aten::linear", "aten::conv2d", "aten::addmm", "aten::copy_"].iter().filter(present).take(2) {
            let mut params = vec![("operator_name", op.to_string())];
            if ctx.hta {
                params.push(("rank", f.rank.to_string()));
            }
            plan.push(PlanStep { analysis: &super::sequences::ANALYSIS, params, rename: None });
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

/// Runs one plan step: the analysis' report with renamed tables. A step with a rename is a
/// variant run: it keeps only the renamed tables (and no produced files), so the tables the
/// default run already wrote are not written twice.
pub fn run_step(ctx: &Context<'_>, step: &PlanStep) -> Result<Report, AnalysisError> {
    let params = Params::new(step.analysis.options, step.params.iter().map(|(k, v)| (*k, v.as_str())))?;
    let mut report = (step.analysis.run)(ctx, &params)?;
    if let Some((from, to)) = step.rename {
        report.tables.retain(|t| t.name.starts_with(from));
        report.files.clear();
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

    const OPTS: &[Opt] = &[
        Opt { name: "num_kernels", kind: OptKind::Int, default: "10", help: "" },
        Opt { name: "duration_ratio", kind: OptKind::Float, default: "0.8", help: "" },
        Opt { name: "streams", kind: OptKind::IntList, default: "", help: "" },
    ];

    #[test]
    fn params_take_defaults_and_check_values() {
        let p = Params::new(OPTS, [("num_kernels", "1e9")]).unwrap();
        assert_eq!(p.int("num_kernels"), 1_000_000_000);
        assert_eq!(p.float("duration_ratio"), 0.8);
        assert_eq!(p.int_list("streams"), None);
        let p = Params::new(OPTS, [("streams", "7, 20-22")]).unwrap();
        assert_eq!(p.int_list("streams"), Some(vec![7, 20, 21, 22]));
        assert_eq!(Params::new(OPTS, [("duration_ratio", "x")]).unwrap_err().0, "option 'duration_ratio': expected a number, found 'x'");
        assert!(Params::new(OPTS, [("bogus", "1")]).unwrap_err().0.starts_with("unknown option 'bogus'"));
    }
}
