//! rocprof v1 (`rocprof`, ROCm ≤ 6): the `results.csv` kernel table, and the kinds of the
//! `--hip-trace`/`--hsa-trace` JSON (`results.json`), which the Chrome-trace reader reads.
//!
//! # `results.csv`
//!
//! Written by `bin/tblextr.py` (`dump_csv`): one row per kernel dispatch, columns
//! `Index,KernelName,gpu-id,queue-id,queue-index,pid,tid,grd,wgr,lds,scr,…,DispatchNs,BeginNs,
//! EndNs,CompleteNs[,DurationNs]` plus any counters. Each row becomes a [`Kind::Kernel`] event:
//! category `KERNEL_DISPATCH` (the name rocprofv3 gives the same record; the table has no
//! category of its own), name = `KernelName` as written (`… [clone .kd]` kept), ts = `BeginNs`,
//! dur = `EndNs - BeginNs` (both already ns), stream = `queue-id`, [`IntArg::Device`] =
//! `gpu-id` (the HSA agent/node id, e.g. 8 for the first MI250X GCD), pid/tid = the dispatching
//! process/thread, correlation = `Index` (the dispatch index). `None` (written by tblextr for a
//! value it did not get) in an optional column means "absent".
//!
//! # `results.json`
//!
//! Written by `bin/sqlitedb.py`: `{ "traceEvents":[{}` then one comma-led event per line,
//! `],"otherData": {…}}`. Events have no `cat`; `ts`/`dur` are strings of whole µs
//! (`(BeginNs - START_NS)/1000`, a zero `dur` written as `"1"`); each section is a pseudo-process
//! named by a `process_name` metadata event: `Markers and Ranges` (pid 0), `COPY` (1),
//! `CPU HIP API` (2), `CPU HSA API` (3), `CPU KFD API` (4), `GPU<n>` (6+n),
//! `GPU Barriers<n>` (518+n); older versions wrote `HIP`, `HSA`, `KFD`, or prefixed the
//! section number (`"2 HIP"`). `args` repeat the database row as strings: `BeginNs`, `EndNs`
//! (exact ns), `pid`, `tid`, `Name`, `args`, `DurationNs`, and for GPU/copy rows `dev-id`,
//! `queue-id`, `stream-id`. Without tracing, rocprof writes only the `COPY` label line
//! (`,{"args":{"name":"COPY"},"ph":"M",...}`), a fragment that reads as zero events.

use super::records::Record;
use super::{check_len, int, opt_id, opt_int, Header, HeaderError, Row, RowCtx, RowError};
use crate::model::events::flags;
use crate::model::{IntArg, Kind, Phase, RankTrace};

/// Column layout of a `results.csv`.
pub struct Columns {
    n: usize,
    index: Option<usize>,
    name: usize,
    gpu: Option<usize>,
    queue: Option<usize>,
    pid: Option<usize>,
    tid: Option<usize>,
    begin: usize,
    end: usize,
}

impl Columns {
    /// From the header; the error says which column is missing.
    pub fn new(h: &Header) -> Result<Columns, HeaderError> {
        Ok(Columns {
            n: h.len(),
            index: h.col("Index"),
            name: h.need("KernelName")?,
            gpu: h.col("gpu-id"),
            queue: h.col("queue-id"),
            pid: h.col("pid"),
            tid: h.col("tid"),
            begin: h.need("BeginNs")?,
            end: h.need("EndNs")?,
        })
    }

    /// Adds one data row; the error describes why it was skipped.
    pub fn row(&self, rec: &Record<'_>, cx: &mut RowCtx<'_>) -> Result<(), RowError> {
        check_len(rec, self.n)?;
        let start = int(rec, self.begin, "BeginNs")?;
        let end = int(rec, self.end, "EndNs")?;
        let correlation = opt_int(rec, self.index, "Index")?.unwrap_or(-1);
        let stream = opt_int(rec, self.queue, "queue-id")?.unwrap_or(-1);
        let device = opt_int(rec, self.gpu, "gpu-id")?;
        let pid = opt_id(rec, self.pid, "pid")?;
        let tid = opt_id(rec, self.tid, "tid")?;
        let name = cx.text(rec, self.name);
        cx.add(Row {
            kind: Kind::Kernel,
            cat: "KERNEL_DISPATCH",
            name: &name,
            start,
            end,
            pid,
            tid,
            stream,
            correlation,
            args: [device.map(|d| (IntArg::Device, d)), None],
        });
        Ok(())
    }
}

/// What a v1 JSON section (pseudo-process) holds, from its `process_name`.
fn section_kind(label: &str) -> Option<(Kind, Option<i64>)> {
    // older rocprof prefixed the section number: "2 HIP"
    let l = match label.split_once(' ') {
        Some((n, rest)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => rest,
        _ => label,
    };
    if l.starts_with("GPU Barriers") {
        return None; // barrier packets: device waits, not kernels; left as `other`
    }
    if let Some(n) = l.strip_prefix("GPU") {
        return Some((Kind::Kernel, n.trim().parse().ok()));
    }
    let kind = if l == "COPY" {
        Kind::Memcpy
    } else if l.contains("HIP") {
        Kind::Runtime
    } else if l.contains("HSA") {
        Kind::HsaApi
    } else if l.contains("KFD") {
        Kind::Driver
    } else if l.contains("Markers") || l.contains("rocTX") || l.contains("ROCTX") {
        Kind::Marker
    } else {
        return None;
    };
    Some((kind, None))
}

/// rocprof v1 JSON has no categories: each complete event without a `cat` gets its kind from
/// the `process_name` of its pid (matched by the pid's text, as older files wrote event pids as
/// strings and label pids as numbers): `CPU HIP API`/`HIP` → runtime, `CPU HSA API` → hsa_api,
/// `CPU KFD API` → driver, `Markers and Ranges` → marker, `COPY` → memcpy, `GPU<n>` → kernel
/// with [`IntArg::Device`] n. `GPU Barriers<n>` and unknown sections stay `other`. Events with a
/// `cat` (the `DataFlow` flows) are left alone. `counts.kinds` is moved accordingly.
///
/// Times: `ts` is whole µs. When an event without `cat` carries [`IntArg::BeginNs`] and
/// [`IntArg::EndNs`] (the exact `args.BeginNs`/`args.EndNs`) and `BeginNs` agrees with `ts` to
/// the µs (the file was not rebased to a start time), ts/dur become the exact ns values.
pub fn classify_v1_json(rank: &mut RankTrace) {
    let mut sections: Vec<(String, (Kind, Option<i64>))> = Vec::new();
    for (&pid, label) in &rank.process_names {
        if let Some(k) = section_kind(label) {
            sections.push((rank.id_text(pid), k));
        }
    }
    let mut by_pid: rustc_hash::FxHashMap<u32, Option<(Kind, Option<i64>)>> = Default::default();
    let ev = &mut rank.events;
    let mut extra = Vec::new();
    for e in 0..ev.len() {
        if ev.flags[e] & flags::HAS_CAT != 0 || matches!(ev.phase[e], Phase::Metadata | Phase::FlowStart | Phase::FlowStep | Phase::FlowEnd)
        {
            continue;
        }
        exact_times(ev, e);
        let p = ev.pid.get(e);
        let sec = *by_pid.entry(p).or_insert_with(|| {
            let text = match rank.ids.get(p) {
                Some(crate::model::IdValue::Int(v)) => v.to_string(),
                Some(crate::model::IdValue::Str(s)) => rank.strings.get(*s).to_string(),
                None => String::new(),
            };
            sections.iter().find(|(t, _)| *t == text).map(|(_, k)| *k)
        });
        let Some((kind, device)) = sec else { continue };
        let old = ev.kind[e];
        if old != kind {
            ev.kind[e] = kind;
            let c = &mut rank.counts.kinds;
            if let Some(n) = c.get_mut(old.as_str()) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    c.remove(old.as_str());
                }
            }
            *c.entry(kind.as_str().to_string()).or_default() += 1;
        }
        if let Some(d) = device {
            if ev.int_arg(e as u32, IntArg::Device).is_none() {
                extra.push((e as u32, IntArg::Device, d));
            }
        }
    }
    if !extra.is_empty() {
        ev.int_args.extend(extra);
        ev.int_args.sort_by_key(|a| a.0);
    }
}

/// Replaces µs-truncated times by `args.BeginNs`/`EndNs` when they agree (see above).
fn exact_times(ev: &mut crate::model::EventTable, e: usize) {
    let id = e as u32;
    let (Some(b), Some(end)) = (ev.int_arg(id, IntArg::BeginNs), ev.int_arg(id, IntArg::EndNs)) else { return };
    if b.div_euclid(1000) * 1000 == ev.ts[e] && end >= b {
        ev.ts[e] = b;
        ev.dur.set(e, end - b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section_of(label: &str) -> Option<Kind> {
        section_kind(label).map(|k| k.0)
    }

    #[test]
    fn sections() {
        assert_eq!(section_of("CPU HIP API"), Some(Kind::Runtime));
        assert_eq!(section_of("2 HIP"), Some(Kind::Runtime));
        assert_eq!(section_of("CPU HSA API"), Some(Kind::HsaApi));
        assert_eq!(section_of("CPU KFD API"), Some(Kind::Driver));
        assert_eq!(section_of("COPY"), Some(Kind::Memcpy));
        assert_eq!(section_of("Markers and Ranges"), Some(Kind::Marker));
        assert_eq!(section_kind("GPU3"), Some((Kind::Kernel, Some(3))));
        assert_eq!(section_of("GPU Barriers0"), None);
        assert_eq!(section_of("python"), None);
    }
}
