//! Writes one rank as Chrome-trace JSON (`{"traceEvents": [...]}`), streamed event by event.
//!
//! Times are written from the exact ns as decimal µs (`1500` ns → `1.5`), so reading the output
//! back gives the same integers. Each row becomes one event with its phase, category, name,
//! pid/tid as the input spelled them, and `args` holding what the model keeps (stream,
//! correlation, External id, sparse integer args, counter samples); process and thread names
//! become `M` events. Spec: the Trace Event Format document linked from `read/chrome.rs`.

use std::io::{self, Write};

use crate::model::{IdValue, IntArg, Phase, RankTrace};

/// The args key an [`IntArg`] is written under.
fn int_arg_key(a: IntArg) -> &'static str {
    match a {
        IntArg::Bytes => "bytes",
        IntArg::Device => "device",
        IntArg::FlowId => "id",
        IntArg::WaitOnStream => "wait_on_stream",
        IntArg::WaitOnEventRecordCorrelation => "wait_on_cuda_event_record_corr_id",
        IntArg::RecordFunctionId => "Record function id",
        IntArg::PaddleStartNs => "start_time_ns",
        IntArg::PaddleEndNs => "end_time_ns",
        IntArg::HipStream => "hip_stream",
        IntArg::BeginNs => "BeginNs",
        IntArg::EndNs => "EndNs",
        IntArg::MemoryBwGbpsBits => "memory bandwidth (GB/s)",
    }
}

/// A pid/tid (index into [`RankTrace::ids`]) as JSON: a number or a quoted string, as the input
/// wrote it.
pub fn id_json(r: &RankTrace, i: u32) -> String {
    match r.ids.get(i) {
        Some(IdValue::Int(v)) => v.to_string(),
        Some(IdValue::Str(s)) => serde_json::Value::from(r.strings.get(*s)).to_string(),
        None => "0".to_string(),
    }
}

/// Writes `ns` as µs with up to 3 decimals, as [`crate::model::time::ns_to_us_string`] does,
/// without allocating.
fn write_us(out: &mut Vec<u8>, ns: i64) -> io::Result<()> {
    let sign = if ns < 0 { "-" } else { "" };
    let a = ns.unsigned_abs();
    let (int, frac) = (a / 1000, a % 1000);
    match frac {
        0 => write!(out, "{sign}{int}"),
        f if f % 100 == 0 => write!(out, "{sign}{int}.{}", f / 100),
        f if f % 10 == 0 => write!(out, "{sign}{int}.{:02}", f / 10),
        f => write!(out, "{sign}{int}.{f:03}"),
    }
}

/// Changes [`write_rank_edited`] makes to one event (an analysis marking events, as HTA's
/// overlaid traces do).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EventEdit {
    /// Name written instead of the event's own.
    pub name: Option<String>,
    /// Leave out the args the model keeps (`extra_args` are still written).
    pub drop_args: bool,
    /// Further `args` members: key and JSON value.
    pub extra_args: Vec<(String, serde_json::Value)>,
}

/// Writes `r` to `w`.
pub fn write_rank(r: &RankTrace, w: &mut impl Write) -> io::Result<()> {
    write_rank_full(r, &[], &|_| None, w)
}

/// Writes `r` to `w` with `extra` events (each one JSON object, e.g. counter events) appended
/// to `traceEvents`.
pub fn write_rank_with(r: &RankTrace, extra: &[String], w: &mut impl Write) -> io::Result<()> {
    write_rank_full(r, extra, &|_| None, w)
}

/// Writes `r` to `w`, applying `edit(row)` to each event row that has one.
pub fn write_rank_edited(r: &RankTrace, w: &mut impl Write, edit: &dyn Fn(u32) -> Option<EventEdit>) -> io::Result<()> {
    write_rank_full(r, &[], edit, w)
}

/// Writes `r` to `w`: each row edited by `edit(row)`, then the `extra` events.
pub fn write_rank_full(r: &RankTrace, extra: &[String], edit: &dyn Fn(u32) -> Option<EventEdit>, w: &mut impl Write) -> io::Result<()> {
    write_rank_kept(r, extra, edit, &|_| true, w)
}

/// Writes the rows of `r` that `keep(row)` (and every process and thread name), then the `extra`
/// events, to `w`.
pub fn write_rank_filtered(r: &RankTrace, extra: &[String], keep: &dyn Fn(u32) -> bool, w: &mut impl Write) -> io::Result<()> {
    write_rank_kept(r, extra, &|_| None, keep, w)
}

/// Writes the rows of `r` that `keep(row)`, each edited by `edit(row)`, then the `extra` events.
pub fn write_rank_kept(
    r: &RankTrace,
    extra: &[String],
    edit: &dyn Fn(u32) -> Option<EventEdit>,
    keep: &dyn Fn(u32) -> bool,
    w: &mut impl Write,
) -> io::Result<()> {
    let ev = &r.events;
    let s = |t: &str| serde_json::Value::from(t).to_string();
    write!(w, "{{")?;
    if let Some(d) = &r.meta.distributed {
        writeln!(w, "\"distributedInfo\": {},", serde_json::to_string(d).map_err(io::Error::other)?)?;
    }
    write!(w, "\"traceEvents\": [")?;
    let mut first = true;
    let mut sep = |w: &mut dyn Write| -> io::Result<()> {
        let text = if first { "\n" } else { ",\n" };
        first = false;
        w.write_all(text.as_bytes())
    };
    let mut names: Vec<_> = r.process_names.iter().map(|(p, n)| (*p, None, n)).collect();
    names.extend(r.thread_names.iter().map(|((p, t), n)| (*p, Some(*t), n)));
    names.sort_by_key(|(p, t, _)| (*p, *t));
    for (p, t, n) in names {
        sep(w)?;
        let (what, tid) = match t {
            None => ("process_name", String::new()),
            Some(t) => ("thread_name", format!(", \"tid\": {}", id_json(r, t))),
        };
        write!(w, "{{\"ph\": \"M\", \"name\": \"{what}\", \"pid\": {}{tid}, \"args\": {{\"name\": {}}}}}", id_json(r, p), s(n))?;
    }
    // each string and pid/tid as JSON once, and each event built in one reused buffer
    let quoted: Vec<String> = r.strings.iter().map(s).collect();
    let ids: Vec<String> = (0..r.ids.len() as u32).map(|i| id_json(r, i)).collect();
    let mut line: Vec<u8> = Vec::with_capacity(512);
    let mut args: Vec<u8> = Vec::with_capacity(256);
    let mut int_args = ev.int_args.iter().peekable();
    let mut counters = ev.counters.iter().peekable();
    for e in 0..ev.len() {
        if !keep(e as u32) {
            // its sparse args and counter samples are passed over with it
            while int_args.next_if(|a| a.0 as usize == e).is_some() {}
            while counters.next_if(|c| c.0 as usize == e).is_some() {}
            continue;
        }
        sep(w)?;
        line.clear();
        args.clear();
        let ph = match ev.phase[e] {
            Phase::Async | Phase::Other => "i",
            p => p.as_str(),
        };
        let change = edit(e as u32).unwrap_or_default();
        write!(line, "{{\"ph\": \"{ph}\", \"name\": ")?;
        match &change.name {
            Some(n) => line.extend_from_slice(s(n).as_bytes()),
            None => match r.full_name(e as u32) {
                std::borrow::Cow::Borrowed(_) => line.extend_from_slice(quoted[ev.name.get(e).0 as usize].as_bytes()),
                std::borrow::Cow::Owned(n) => line.extend_from_slice(s(&n).as_bytes()),
            },
        }
        if ev.flags[e] & crate::model::events::flags::HAS_CAT != 0 {
            write!(line, ", \"cat\": {}", quoted[ev.cat.get(e).0 as usize])?;
        }
        write!(line, ", \"pid\": {}, \"tid\": {}, \"ts\": ", ids[ev.pid.get(e) as usize], ids[ev.tid.get(e) as usize])?;
        write_us(&mut line, ev.ts[e])?;
        if ev.has_dur(e as u32) && ev.phase[e] != Phase::Begin {
            line.extend_from_slice(b", \"dur\": ");
            write_us(&mut line, ev.dur.get(e))?;
        }
        let arg_sep = |args: &mut Vec<u8>| {
            if !args.is_empty() {
                args.extend_from_slice(b", ");
            }
        };
        for (k, v) in [("stream", ev.stream.get(e)), ("correlation", ev.correlation.get(e)), ("External id", ev.external_id.get(e))] {
            if v != -1 {
                arg_sep(&mut args);
                write!(args, "\"{k}\": {v}")?;
            }
        }
        while let Some(&&(row, arg, v)) = int_args.peek() {
            if row as usize != e {
                break;
            }
            int_args.next();
            if arg == IntArg::FlowId {
                write!(line, ", \"id\": {v}")?;
                continue;
            }
            arg_sep(&mut args);
            if arg == IntArg::MemoryBwGbpsBits {
                let bw = serde_json::Number::from_f64(f64::from_bits(v as u64)).map(|n| n.to_string()).unwrap_or("null".into());
                write!(args, "\"{}\": {bw}", int_arg_key(arg))?;
            } else {
                write!(args, "\"{}\": {v}", int_arg_key(arg))?;
            }
        }
        while let Some(&&(row, series, v)) = counters.peek() {
            if row as usize != e {
                break;
            }
            counters.next();
            arg_sep(&mut args);
            let value = serde_json::Number::from_f64(v).map(|n| n.to_string()).unwrap_or("null".into());
            write!(args, "{}: {value}", quoted[series.0 as usize])?;
        }
        if change.drop_args {
            args.clear();
        }
        for (k, v) in &change.extra_args {
            arg_sep(&mut args);
            write!(args, "{}: {v}", s(k))?;
        }
        if !args.is_empty() {
            line.extend_from_slice(b", \"args\": {");
            line.extend_from_slice(&args);
            line.push(b'}');
        }
        line.push(b'}');
        w.write_all(&line)?;
    }
    for e in extra {
        sep(w)?;
        w.write_all(e.as_bytes())?;
    }
    writeln!(w, "\n]}}")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn microseconds_as_the_model_writes_them() {
        for ns in [0, 1, 10, 100, 120, 123, 1000, 1001, 1010, 1100, 999_999, -1, -1500, 1_795_388_036_039_728_123] {
            let mut b = Vec::new();
            write_us(&mut b, ns).expect("in memory");
            assert_eq!(String::from_utf8(b).expect("ascii"), crate::model::time::ns_to_us_string(ns), "{ns}");
        }
    }

    /// Export, re-import: the same rows, names, links and sparse args.
    #[test]
    fn round_trip() {
        let json = br#"{"distributedInfo": {"rank": 2, "world_size": 4}, "traceEvents": [
            {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "python"}},
            {"ph": "X", "cat": "cpu_op", "name": "aten::mm \"q\"", "pid": 1, "tid": "1(Py)", "ts": 1795388036039728.123, "dur": 5.5, "args": {"External id": 7}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": "1(Py)", "ts": 1795388036039729, "dur": 1, "args": {"External id": 7, "correlation": 9}},
            {"ph": "s", "cat": "ac2g", "name": "ac2g", "id": 9, "pid": 1, "tid": "1(Py)", "ts": 1795388036039729},
            {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 1795388036039740.0005, "dur": 3, "args": {"stream": 7, "correlation": 9, "device": 0, "External id": 7}},
            {"ph": "C", "name": "mem", "pid": 1, "ts": 1795388036039741, "args": {"bytes": 4096.5}}
        ]}"#;
        let a = crate::read::read_all(&[("a.json", &json[..])]).expect("reads");
        let mut out = Vec::new();
        write_rank(&a.ranks[0], &mut out).expect("writes");
        let b = crate::read::read_all(&[("b.json", &out[..])]).expect("re-reads");
        let (ra, rb) = (&a.ranks[0], &b.ranks[0]);
        assert_eq!(rb.rank, 2);
        assert_eq!(ra.events.len(), rb.events.len());
        for e in 0..ra.events.len() as u32 {
            assert_eq!(ra.name(e), rb.name(e));
            assert_eq!(ra.cat(e), rb.cat(e));
            assert_eq!(ra.id_text(ra.events.tid.get(e as usize)), rb.id_text(rb.events.tid.get(e as usize)));
        }
        assert_eq!(ra.events.ts, rb.events.ts);
        assert_eq!(ra.events.dur, rb.events.dur);
        assert_eq!(ra.events.kind, rb.events.kind);
        assert_eq!(ra.events.phase, rb.events.phase);
        assert_eq!(ra.events.stream, rb.events.stream);
        assert_eq!(ra.events.correlation, rb.events.correlation);
        assert_eq!(ra.events.external_id, rb.events.external_id);
        assert_eq!(ra.events.int_args, rb.events.int_args);
        assert_eq!(ra.events.counters, rb.events.counters);
        assert_eq!(rb.process_names.values().collect::<Vec<_>>(), vec!["python"]);
        assert_eq!(ra.launch_links(), rb.launch_links());
    }
}
