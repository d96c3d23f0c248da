//! Writes the traces analyses produce ([`TraceOut`]): the rank as kinetoscope read it
//! ([`super::chrome`]: every event the model keeps, exact times) with the analysis' additions,
//! gzip-compressed Chrome JSON (HTA writes gzip whatever the name says).
//!
//! * Counter samples become `{"ph": "C", "name", "pid", "ts", ["id": stream,] "args": {counter:
//!   value}}` events after the trace's own (HTA `generate_trace_with_counters`, SPEC §2.8).
//! * Marked rows get their marks as extra `args` members, name and args kept (HTA's `Patterns`,
//!   SPEC §2.13).
//! * With [`crate::table::CompactNames`], every other complete event loses its args and, when a span holds the
//!   symbol table, its name becomes its symbol index; the span's args become the table.

use std::io;

use super::chrome::{id_json, write_rank_kept, EventEdit};
use super::gzip::GzipWriter;
use crate::model::time::ns_to_us_string;
use crate::model::{Kind, Phase, RankTrace, Trace};
use crate::table::{CounterSample, FlowEvent, Report, ReportFile, TraceOut};

/// The files of every trace `report` produces, in order.
pub fn trace_files(trace: &Trace, report: &Report) -> io::Result<Vec<ReportFile>> {
    report.traces.iter().map(|t| trace_file(trace, t)).collect()
}

/// Deflate level of produced traces: 1, the fastest (`gzip -1`). They are copies of a whole
/// rank; level 1 writes them 2.5× faster than level 6 for files 1.5× larger.
pub const TRACE_LEVEL: u8 = 1;

/// The file of `out` (a rank of `trace` with its additions), gzip-compressed as it is written
/// (the JSON is never whole in memory), at [`TRACE_LEVEL`].
pub fn trace_file(trace: &Trace, out: &TraceOut) -> io::Result<ReportFile> {
    let mut gz = GzipWriter::with_level(Vec::new(), TRACE_LEVEL);
    write_trace_json(trace, out, &mut gz)?;
    Ok(ReportFile { name: out.name.clone(), bytes: gz.finish()? })
}

/// The JSON of `out` (a rank of `trace` with its additions).
pub fn trace_json(trace: &Trace, out: &TraceOut) -> io::Result<Vec<u8>> {
    let mut json = Vec::new();
    write_trace_json(trace, out, &mut json)?;
    Ok(json)
}

/// Writes the JSON of `out` (a rank of `trace` with its additions) to `w`.
pub fn write_trace_json(trace: &Trace, out: &TraceOut, w: &mut impl io::Write) -> io::Result<()> {
    let r = trace.ranks.get(out.rank).ok_or_else(|| io::Error::other(format!("no rank at position {}", out.rank)))?;
    let mut extra: Vec<String> = out.counters.iter().map(|s| counter_event(r, s)).collect();
    extra.extend(out.flows.iter().map(|x| flow_event(r, x)));
    let ev = &r.events;
    let rename = out.compact.as_ref().is_some_and(|c| c.span.is_some());
    // each name's symbol index, looked up once per string rather than once per event
    let symbol_of: Vec<Option<String>> = match &out.compact {
        Some(c) if rename => {
            r.strings.iter().map(|n| c.symbols.binary_search_by(|s| s.as_str().cmp(n)).ok().map(|i| i.to_string())).collect()
        }
        _ => Vec::new(),
    };
    let edit = |e: u32| -> Option<EventEdit> {
        if let Some(a) = out.args.get(&e) {
            return Some(EventEdit { extra_args: a.clone(), ..Default::default() });
        }
        if let Some(m) = out.marks.get(&e) {
            let patterns: serde_json::Map<String, serde_json::Value> = m.iter().cloned().collect();
            return Some(EventEdit { extra_args: vec![("Patterns".into(), serde_json::Value::Object(patterns))], ..Default::default() });
        }
        let compact = out.compact.as_ref()?;
        if Some(e) == compact.span {
            let table = compact.symbols.iter().enumerate().map(|(i, s)| (i.to_string(), serde_json::Value::from(s.as_str()))).collect();
            return Some(EventEdit { drop_args: true, extra_args: table, ..Default::default() });
        }
        if ev.phase[e as usize] != Phase::Complete {
            return None;
        }
        let id = if rename { symbol_of[ev.name.get(e as usize).0 as usize].clone() } else { None };
        Some(EventEdit { name: id, drop_args: true, extra_args: Vec::new() })
    };
    let keep = |e: u32| -> bool {
        !out.only_marked
            || ev.phase[e as usize] != Phase::Complete
            || out.args.contains_key(&e)
            || matches!(ev.kind[e as usize], Kind::UserAnnotation | Kind::PythonFunction)
    };
    write_rank_kept(r, &extra, &edit, &keep, w)
}

/// A flow event's JSON (HTA's `Trace.flow_event`).
fn flow_event(r: &RankTrace, x: &FlowEvent) -> String {
    let text = |t: &str| serde_json::Value::from(t).to_string();
    format!(
        "{{\"ph\": \"{}\", \"id\": {}, \"pid\": {}, \"tid\": {}, \"ts\": {}, \"cat\": {}, \"name\": {}, \"args\": {{\"weight\": {}, \"critical\": {}}}{}}}",
        if x.start { "s" } else { "f" },
        x.id,
        id_json(r, x.pid),
        id_json(r, x.tid),
        json_number(x.ts_us),
        text(&x.cat),
        text(&x.name),
        json_number(x.weight),
        x.critical,
        if x.start { "" } else { ", \"bp\": \"e\"" }
    )
}

/// A JSON number: integers without a fraction, others as the shortest round-trip decimal.
fn json_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        serde_json::Number::from_f64(v).map_or_else(|| "null".into(), |n| n.to_string())
    }
}

/// The Chrome counter event of `s`.
pub fn counter_event(r: &RankTrace, s: &CounterSample) -> String {
    let text = |t: &str| serde_json::Value::from(t).to_string();
    let id = s.id.map(|i| format!(", \"id\": {i}")).unwrap_or_default();
    format!(
        "{{\"ph\": \"C\", \"name\": {}, \"pid\": {}, \"ts\": {}{id}, \"args\": {{{}: {}}}}}",
        text(&s.name),
        id_json(r, s.pid),
        ns_to_us_string(s.ts_ns),
        text(s.counter),
        json_number(s.value)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers() {
        assert_eq!(json_number(3.0), "3");
        assert_eq!(json_number(-0.0), "0");
        assert_eq!(json_number(0.30000000000000004), "0.30000000000000004");
        assert_eq!(json_number(f64::NAN), "null");
        assert_eq!(json_number(1e300), "1e+300");
    }
}
