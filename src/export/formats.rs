//! `kinetoscope export` and the page's export buttons: a trace's call stacks as pprof, folded
//! stacks or speedscope (`crate::profile`), or the trace itself as Chrome-trace JSON, filtered by
//! ranks, time range and categories. One function makes the bytes for both, so the page's
//! downloads are the CLI's files.

use crate::profile::{self, Measure, Options};
use crate::Trace;

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// pprof `profile.proto`, gzip-compressed.
    Pprof,
    /// Folded stacks (flamegraph.pl, inferno).
    Folded,
    /// speedscope JSON.
    Speedscope,
    /// Chrome-trace JSON (Perfetto, chrome://tracing), one file per rank.
    Chrome,
}

impl Format {
    /// Every format, as the CLI spells them.
    pub const ALL: [(&'static str, Format); 4] =
        [("pprof", Format::Pprof), ("folded", Format::Folded), ("speedscope", Format::Speedscope), ("chrome", Format::Chrome)];

    /// The format named `s`.
    pub fn parse(s: &str) -> Result<Format, String> {
        Format::ALL
            .iter()
            .find(|(n, _)| *n == s)
            .map(|(_, f)| *f)
            .ok_or_else(|| format!("unknown export format '{s}' (expected one of: {})", Format::ALL.map(|(n, _)| n).join(", ")))
    }

    /// The file name ending of the format.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Pprof => ".pb.gz",
            Format::Folded => ".folded",
            Format::Speedscope => ".speedscope.json",
            Format::Chrome => ".json",
        }
    }
}

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// Positions (in `trace.ranks`) of the ranks; empty: all.
    pub ranks: Vec<usize>,
    /// Keep only `[start, end)`, ns: the stacks' time inside it; the Chrome trace's events that
    /// overlap it.
    pub range: Option<(i64, i64)>,
    /// Folded stacks and speedscope: GPU time by launching stack (folded: instead of CPU self
    /// time; speedscope: as well).
    pub gpu: bool,
    /// Chrome trace: only events of these categories (empty: all).
    pub cats: Vec<String>,
    /// pprof, folded, speedscope: one file per rank (`stem.rankN.ext`) instead of one with the
    /// ranks as labels (pprof) or root frames (folded, speedscope).
    pub per_rank: bool,
    /// Chrome trace: add the counter tracks of the `counters` analysis (queue length and memory
    /// bandwidth per stream, HTA's `generate_trace_with_counters`), in the range.
    pub counters: bool,
    /// Chrome trace: mark the kernels of the top kernel sequences this operator launches (the
    /// `sequences` analysis' `Patterns` args, HTA's overlaid trace; names and args kept).
    pub patterns: Option<String>,
}

/// A file to write: its name (no folder) and its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutFile {
    /// File name: `stem` plus the format's ending (`stem.rank3.json` for a Chrome trace of
    /// several ranks).
    pub name: String,
    /// Content.
    pub bytes: Vec<u8>,
}

/// The files of `trace` in `format` (one, or one per rank for a Chrome trace of several), named
/// from `stem`; an error when there is nothing to export.
pub fn export(trace: &Trace, format: Format, r: &Request, stem: &str) -> Result<Vec<OutFile>, String> {
    let positions: Vec<usize> = if r.ranks.is_empty() { (0..trace.ranks.len()).collect() } else { r.ranks.clone() };
    if format == Format::Chrome {
        return positions
            .iter()
            .map(|&p| {
                let name = if positions.len() == 1 { format!("{stem}.json") } else { format!("{stem}.rank{}.json", trace.ranks[p].rank) };
                let mut bytes = Vec::new();
                write_chrome(trace, p, r, &mut bytes).map_err(|e| e.to_string())?;
                Ok(OutFile { name, bytes })
            })
            .collect();
    }
    if r.per_rank && positions.len() > 1 {
        let mut files = Vec::new();
        for &p in &positions {
            let one = Request { ranks: vec![p], per_rank: false, ..r.clone() };
            let mut f = export(trace, format, &one, &format!("{stem}.rank{}", trace.ranks[p].rank))?;
            files.append(&mut f);
        }
        return Ok(files);
    }
    let p = profile::build(trace, &Options { ranks: positions, range: r.range, timelines: format == Format::Speedscope });
    let (cpu, gpu) = (p.cpu_ns(), p.gpu_ns());
    let no_cpu = "the trace has no CPU spans (python functions, operators, annotations, runtime calls) to build call stacks from";
    let bytes = match format {
        Format::Pprof if cpu == 0 && gpu == 0 => return Err(format!("{no_cpu}, and no GPU operations: nothing to export")),
        Format::Pprof => profile::pprof_bytes(&p),
        Format::Folded if r.gpu && gpu == 0 => return Err("the trace has no GPU operations: no GPU time to export".into()),
        Format::Folded if !r.gpu && cpu == 0 => return Err(format!("{no_cpu}; --gpu exports the GPU time by launching stack")),
        Format::Folded => profile::folded(&p, if r.gpu { Measure::Gpu } else { Measure::Cpu }).into_bytes(),
        Format::Speedscope if cpu == 0 && !(r.gpu && gpu > 0) => {
            return Err(format!("{no_cpu}; --gpu exports the GPU time by launching stack"))
        }
        Format::Speedscope => profile::speedscope(&p, stem, r.gpu).into_bytes(),
        Format::Chrome => unreachable!("handled above"),
    };
    Ok(vec![OutFile { name: format!("{stem}{}", format.extension()), bytes }])
}

/// One rank (position `p` of `trace`) as Chrome-trace JSON to `w`: its events that overlap the
/// range and are of the categories, and with `counters` the counter tracks (the CLI streams it to
/// its file).
pub fn write_chrome(trace: &Trace, p: usize, r: &Request, w: &mut impl std::io::Write) -> std::io::Result<()> {
    let rank = &trace.ranks[p];
    let ev = &rank.events;
    let (lo, hi) = r.range.unwrap_or((i64::MIN, i64::MAX));
    let in_range = |start: i64, end: i64| r.range.is_none() || (start < hi && end >= lo);
    let keep = |e: u32| {
        let e = e as usize;
        in_range(ev.ts[e], ev.end(e as u32)) && (r.cats.is_empty() || r.cats.iter().any(|c| c == rank.cat(e as u32)))
    };
    let mut extra = Vec::new();
    if r.counters {
        let report = run_on_rank(trace, p, "counters", &[]).map_err(std::io::Error::other)?;
        for t in report.traces.iter().filter(|t| t.rank == p) {
            extra.extend(t.counters.iter().filter(|s| in_range(s.ts_ns, s.ts_ns)).map(|s| super::trace_out::counter_event(rank, s)));
        }
    }
    let mut marks = crate::table::Marks::new();
    if let Some(op) = &r.patterns {
        let given = [("operator_name", op.as_str()), ("compress_other_kernels", "false"), ("rank", "")];
        let report = run_on_rank(trace, p, "sequences", &given).map_err(|e| std::io::Error::other(format!("--patterns: {e}")))?;
        for t in report.traces.into_iter().filter(|t| t.rank == p) {
            marks.extend(t.marks);
        }
    }
    let edit = |e: u32| {
        marks.get(&e).map(|m| super::chrome::EventEdit {
            extra_args: vec![("Patterns".into(), serde_json::Value::Object(m.iter().cloned().collect()))],
            ..Default::default()
        })
    };
    super::chrome::write_rank_kept(rank, &extra, &edit, &keep, w)
}

/// The report of analysis `name` (default mode) on the rank at position `p` with the options
/// `given`, or its error's text.
fn run_on_rank(trace: &Trace, p: usize, name: &str, given: &[(&str, &str)]) -> Result<crate::table::Report, String> {
    let a = crate::analysis::registry::find(name).ok_or_else(|| format!("no analysis '{name}'"))?;
    let ctx = crate::analysis::api::Context::with_frames(trace, None, false, vec![p]);
    let params = crate::analysis::params::Params::new(a.options, given.iter().copied()).map_err(|e| e.0)?;
    (a.run)(&ctx, &params).map_err(|e| e.0)
}
