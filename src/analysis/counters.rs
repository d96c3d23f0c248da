//! Trace with counter tracks (HTA `generate_trace_with_counters`, SPEC §2.8): each rank's trace
//! written again with the queue-length series (§2.5, one track per stream) and the memory
//! bandwidth series (§2.7, one track per memory type) as Chrome counter events (`ph: "C"`), so
//! Perfetto or chrome://tracing draw them under the GPU's rows.
//!
//! Produced traces (`Report::traces`, written by `export::trace_out`):
//! `<trace file stem><output_suffix>.json.gz` per rank with counters, gzip-compressed Chrome
//! JSON. HTA copies the original JSON untouched; we write the rank as kinetoscope read it (every
//! event the model keeps, exact times) and append the counter events. Table `trace_with_counters__rank{r}` lists the counter events:
//! `name` (track), `counter` (args key), `pid`, `id` (stream of a queue track), `ts` (absolute
//! µs, the trace's own clock) and `value`.
//!
//! Counter events: queue length → `{"ph": "C", "name": "Queue Length", "pid", "ts", "id":
//! stream, "args": {"Queue Length": n}}`; bandwidth → `{"ph": "C", "name": "<memory type>",
//! "pid", "ts", "args": {"Memcpy BW": GB/s}}`. With `--hta` the series and times are HTA's (µs,
//! rounded where HTA rounds); without, the corrected series of the two analyses.

use super::api::{fail, Analysis, AnalysisError, Context, Group, Opt, OptKind, Params};
use super::memory_bw::{memory_bw_points, BwPoint};
use super::queue::QueuePoint;
use super::series::id_column;
use super::units::us;
use crate::model::RankTrace;
use crate::table::{CounterSample, Report, TraceOut};
use crate::table::{Table, Unit, Values};

/// Registry entry.
pub const ANALYSIS: Analysis = Analysis {
    name: "counters",
    title: "Trace with counters",
    about: "Write each rank's trace with queue-length and memory-bandwidth counter tracks (gzip Chrome JSON for Perfetto)",
    hta_api: "generate_trace_with_counters (SPEC §2.8)",
    group: Group::Export,
    options: &[
        Opt {
            name: "time_series",
            kind: OptKind::Str,
            default: "QUEUE_LENGTH|MEMCPY_BANDWIDTH",
            help: "Counters to add: QUEUE_LENGTH, MEMCPY_BANDWIDTH or both joined by |",
        },
        Opt { name: "output_suffix", kind: OptKind::Str, default: "_with_counters", help: "Added to the trace file's name" },
    ],
    run,
};

/// Which series to add (HTA's `TimeSeriesTypes` flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeSeries {
    /// `QUEUE_LENGTH`.
    pub queue_length: bool,
    /// `MEMCPY_BANDWIDTH`.
    pub memcpy_bandwidth: bool,
}

impl TimeSeries {
    /// Parses `QUEUE_LENGTH|MEMCPY_BANDWIDTH` (either, or both joined by `|` or `,`; case does
    /// not matter; empty means both, as HTA's `None`).
    pub fn parse(s: &str) -> Result<TimeSeries, AnalysisError> {
        let mut t = TimeSeries { queue_length: false, memcpy_bandwidth: false };
        for part in s.split(['|', ',']).map(str::trim).filter(|p| !p.is_empty()) {
            match part.to_ascii_uppercase().as_str() {
                "QUEUE_LENGTH" => t.queue_length = true,
                "MEMCPY_BANDWIDTH" => t.memcpy_bandwidth = true,
                _ => return fail(format!("option 'time_series': expected QUEUE_LENGTH and/or MEMCPY_BANDWIDTH, found '{part}'")),
            }
        }
        if !t.queue_length && !t.memcpy_bandwidth {
            t = TimeSeries { queue_length: true, memcpy_bandwidth: true };
        }
        Ok(t)
    }
}

/// ns to add to a frame time ([`super::hta_frame::HtaFrame::ts_ns`]) for the trace's own clock:
/// HTA's `min_ts` (µs) with `--hta`, else the exact offset between the model and the frames.
fn clock_offset_ns(ctx: &Context<'_>) -> i64 {
    if ctx.hta {
        return ctx.frames().min_ts_us.unwrap_or(0) * 1000;
    }
    ctx.frames()
        .ranks
        .iter()
        .zip(&ctx.trace.ranks)
        .find_map(|(f, r)| f.row.first().map(|&e| r.events.ts[e as usize] - f.ts_ns(r, 0)))
        .unwrap_or(0)
}

/// One rank's counter series, in HTA's order: queue length by stream, then bandwidth by memory
/// type.
struct RankSeries {
    /// Position of the rank in the trace.
    pos: usize,
    queue: std::sync::Arc<Vec<QueuePoint>>,
    bw: Vec<BwPoint>,
    /// The trace's own clock minus the frame clock, ns.
    offset: i64,
}

impl RankSeries {
    /// The samples as the counter events of the produced trace.
    fn samples(&self, ctx: &Context<'_>) -> Vec<CounterSample> {
        let (f, r) = (&ctx.frames().ranks[self.pos], &ctx.trace.ranks[self.pos]);
        let mut samples = Vec::with_capacity(self.queue.len() + self.bw.len());
        samples.extend(self.queue.iter().map(|p| CounterSample {
            name: "Queue Length".into(), // static: no copy per sample
            counter: "Queue Length",
            pid: f.pid(r, p.gpu()),
            id: Some(p.stream),
            ts_ns: p.ts_ns + self.offset,
            value: p.queue_length() as f64,
        }));
        samples.extend(self.bw.iter().map(|p| CounterSample {
            name: p.name.clone().into(),
            counter: "Memcpy BW",
            pid: f.pid(r, p.op),
            id: None,
            ts_ns: p.ts_ns + self.offset,
            value: p.value,
        }));
        samples
    }

    /// The table of the samples, made from the series column by column (without the samples'
    /// 80 bytes each).
    fn table(&self, ctx: &Context<'_>) -> Table {
        let (f, r) = (&ctx.frames().ranks[self.pos], &ctx.trace.ranks[self.pos]);
        let (q, bw, offset) = (&self.queue, &self.bw, self.offset);
        let ts = q.iter().map(|p| p.ts_ns).chain(bw.iter().map(|p| p.ts_ns));
        Table::new(&format!("trace_with_counters__rank{}", r.rank))
            .with("name", Unit::None, Values::Str(q.iter().map(|_| "Queue Length").chain(bw.iter().map(|p| p.name.as_str())).collect()))
            .with("counter", Unit::None, Values::Str(q.iter().map(|_| "Queue Length").chain(bw.iter().map(|_| "Memcpy BW")).collect()))
            .with("pid", Unit::None, id_column(r, q.iter().map(|p| f.pid(r, p.gpu())).chain(bw.iter().map(|p| f.pid(r, p.op)))))
            .with("id", Unit::None, Values::Float(q.iter().map(|p| p.stream as f64).chain(bw.iter().map(|_| f64::NAN)).collect()))
            .with("ts", Unit::Us, Values::Float(ts.map(|t| us(t + offset)).collect()))
            .with("value", Unit::None, Values::Float(q.iter().map(|p| p.queue_length() as f64).chain(bw.iter().map(|p| p.value)).collect()))
    }
}

/// The counter series of each selected rank (ranks without any are left out).
fn rank_series(ctx: &Context<'_>, series: TimeSeries) -> Result<Vec<RankSeries>, AnalysisError> {
    let offset = clock_offset_ns(ctx);
    let mut out = Vec::new();
    for &pos in &ctx.selected {
        let (f, r) = (&ctx.frames().ranks[pos], &ctx.trace.ranks[pos]);
        let queue = if series.queue_length { ctx.queue_points(pos)? } else { Default::default() };
        let bw = if series.memcpy_bandwidth { memory_bw_points(f, r, ctx.hta) } else { Vec::new() };
        if !queue.is_empty() || !bw.is_empty() {
            out.push(RankSeries { pos, queue, bw, offset });
        }
    }
    Ok(out)
}

/// File name of a rank's output: the trace file's name without folders and without
/// `.json.gz`/`.json`/`.gz`, then `suffix`, then `.json.gz` (HTA: `path.replace(".json",
/// suffix + ".json")`, gzip-compressed whatever the name says).
pub fn output_name(r: &RankTrace, suffix: &str) -> String {
    let file = r.files.first().map(String::as_str).unwrap_or_default();
    let base = crate::model::base_name(file);
    let stem = [".json.gz", ".json", ".gz"].iter().find_map(|e| base.strip_suffix(e)).unwrap_or(base);
    let stem = if stem.is_empty() { format!("rank{}", r.rank) } else { stem.to_string() };
    format!("{stem}{suffix}.json.gz")
}

fn run(ctx: &Context<'_>, params: &Params) -> Result<Report, AnalysisError> {
    let series = TimeSeries::parse(params.str("time_series"))?;
    let suffix = match params.str("output_suffix") {
        "" => "_with_counters",
        s => s,
    };
    let mut report = Report::default();
    for rank in rank_series(ctx, series)? {
        let (pos, r) = (rank.pos, &ctx.trace.ranks[rank.pos]);
        let mut t = rank.table(ctx);
        if ctx.hta {
            t.sort_canonical(&["name", "counter", "pid", "id", "ts", "value"]);
        }
        report.tables.push(t);
        let mut name = output_name(r, suffix);
        if report.traces.iter().any(|t| t.name == name) {
            name = format!("rank{}_{name}", r.rank);
        }
        // the samples are the table's rows again: made only if the trace will be written
        let counters = if ctx.traces { rank.samples(ctx) } else { Vec::new() };
        report.traces.push(TraceOut { name, rank: pos, counters, ..Default::default() });
    }
    if report.traces.is_empty() {
        report.notes.push("no rank has kernel launches or memory operations: no trace written".into());
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_names_follow_the_trace_file() {
        let named = |file: &str| RankTrace { rank: 3, files: vec![file.to_string()], ..Default::default() };
        assert_eq!(output_name(&named("../traces/rank-0.json.gz"), "_with_counters"), "rank-0_with_counters.json.gz");
        assert_eq!(output_name(&named("C:\\t\\a.pt.trace.json"), "_x"), "a.pt.trace_x.json.gz");
        assert_eq!(output_name(&named("b.gz"), "_x"), "b_x.json.gz");
        assert_eq!(output_name(&named(""), "_x"), "rank3_x.json.gz");
    }
}
