//! The overview of a trace: per rank, what the file is and what it contains. This is
//! `kinetoscope info --json` and the page's Overview panel (the same function serves both).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::error::Warning;
use crate::model::{DeviceProperties, DistributedInfo, EventId, IntArg, Kind, Trace};

/// The whole overview.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Overview {
    /// Trace events read over all ranks (empty `{}` placeholders not counted; for CSV formats,
    /// the number of records).
    pub events: u64,
    /// Input files, in rank order.
    pub files: Vec<String>,
    /// Per rank.
    pub ranks: Vec<RankOverview>,
    /// Every warning of every rank, and the multi-file ones.
    pub warnings: Vec<Warning>,
}

/// Time span of a rank, ns on the file's clock.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Span {
    /// Earliest start, ns.
    pub start: i64,
    /// Latest end, ns.
    pub end: i64,
    /// `end - start`, ns.
    pub duration: i64,
}

/// One rank.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RankOverview {
    /// Rank number.
    pub rank: u32,
    /// Input file(s).
    pub file: String,
    /// Detected format.
    pub format: String,
    /// Input size, bytes.
    pub bytes: u64,
    /// gzip members (0 = not compressed).
    pub gzip_members: u32,
    /// Events read (see [`Overview::events`]).
    pub events: u64,
    /// Rows kept in the model (metadata and `E` events are not rows).
    pub rows: usize,
    /// Events per kind.
    pub kinds: BTreeMap<String, u64>,
    /// Events per raw category.
    pub categories: BTreeMap<String, u64>,
    /// Events per phase letter.
    pub phases: BTreeMap<String, u64>,
    /// Version hints: `schemaVersion`, vocabulary (2020–21 `Operator`/`Runtime`/`Kernel` or newer
    /// `cpu_op`/`cuda_runtime`/`kernel`), ROCm/MTIA presence, `baseTimeNanoseconds`.
    pub version: BTreeMap<String, String>,
    /// `distributedInfo`.
    pub distributed: Option<DistributedInfo>,
    /// `deviceProperties`: the first [`MAX_DEVICE_PROPERTIES`].
    pub device_properties: Vec<DeviceProperties>,
    /// Entries of `deviceProperties` beyond those (a damaged or generated file: a page listing
    /// hundreds of thousands of devices would hang).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub device_properties_omitted: usize,
    /// Device ids seen on GPU events.
    pub devices: Vec<i64>,
    /// GPU streams seen (`args.stream` of device events).
    pub streams: Vec<i64>,
    /// Distinct (pid, tid) threads.
    pub threads: usize,
    /// Profiler steps found (numbers).
    pub steps: Vec<i32>,
    /// Time span of events with a timestamp.
    pub span_ns: Option<Span>,
    /// Warnings of this rank (count).
    pub warnings: u64,
}

/// Devices listed per rank; real traces have a few (one per GPU of the node).
pub const MAX_DEVICE_PROPERTIES: usize = 64;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Builds the overview.
pub fn overview(trace: &Trace) -> Overview {
    let mut warnings: Vec<Warning> = trace.warnings.iter().cloned().collect();
    let mut ranks = Vec::new();
    for r in &trace.ranks {
        let ev = &r.events;
        let mut devices = BTreeSet::new();
        let mut streams = BTreeSet::new();
        let mut threads = BTreeSet::new();
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        // a thread's (and a stream's) events come in runs: the set is asked only when the value
        // changes (with the step parsing below: the page's `finish` of a 1 GB trace 74 → 49 ms)
        let (mut thread, mut stream) = (None, None);
        for e in 0..ev.len() {
            let t = (ev.pid.get(e), ev.tid.get(e));
            if thread != Some(t) {
                threads.insert(t);
                thread = Some(t);
            }
            lo = lo.min(ev.ts[e]);
            hi = hi.max(ev.end(e as EventId));
            if ev.kind[e].is_device() {
                let s = ev.stream.get(e);
                if s >= 0 && stream != Some(s) {
                    streams.insert(s);
                    stream = Some(s);
                }
            }
        }
        for &(e, arg, v) in &ev.int_args {
            if arg == IntArg::Device && ev.kind[e as usize].is_device() {
                devices.insert(v);
            }
        }
        let mut version = BTreeMap::new();
        if let Some(v) = &r.meta.schema_version {
            version.insert("schema_version".into(), v.clone());
        }
        let cats = &r.counts.categories;
        let old = ["Operator", "Runtime", "Kernel"].iter().any(|c| cats.contains_key(*c));
        let new = ["cpu_op", "cuda_runtime", "kernel"].iter().any(|c| cats.contains_key(*c));
        if (old || new) && r.format == Some(crate::model::Format::Kineto) {
            let v = if old && !new { "2020-21 (Operator/Runtime/Kernel)" } else { "2021+ (cpu_op/cuda_runtime/kernel)" };
            version.insert("vocabulary".into(), v.into());
        }
        // each distinct name tested once, not each runtime event's
        let hip_name: Vec<bool> = r.strings.iter().map(|s| s.starts_with("hip")).collect();
        let hip =
            r.events.kind.iter().zip(r.events.name.iter()).any(|(k, n)| *k == Kind::Runtime && hip_name.get(n.0 as usize) == Some(&true));
        if hip {
            version.insert("runtime".into(), "ROCm/HIP".into());
        }
        if cats.contains_key("mtia_ccp_events") || cats.contains_key("mtia_runtime") {
            version.insert("accelerator".into(), "MTIA".into());
        }
        if let Some(b) = r.meta.base_time_ns {
            version.insert("base_time_ns".into(), b.to_string());
        }
        if let Some(u) = &r.meta.display_time_unit {
            version.insert("display_time_unit".into(), u.clone());
        }
        if r.meta.bare_array {
            version.insert("shape".into(), "bare array".into());
        }
        warnings.extend(r.warnings.iter().cloned());
        ranks.push(RankOverview {
            rank: r.rank,
            file: r.files.join(", "),
            format: r.format.map(|f| f.as_str()).unwrap_or("unknown").to_string(),
            bytes: r.input_bytes,
            gzip_members: r.meta.gzip_members,
            events: r.counts.events,
            rows: ev.len(),
            kinds: r.counts.kinds.clone(),
            categories: r.counts.categories.clone(),
            phases: r.counts.phases.clone(),
            version,
            distributed: r.meta.distributed.clone(),
            device_properties: r.meta.devices.iter().take(MAX_DEVICE_PROPERTIES).cloned().collect(),
            device_properties_omitted: r.meta.devices.len().saturating_sub(MAX_DEVICE_PROPERTIES),
            devices: devices.into_iter().collect(),
            streams: streams.into_iter().collect(),
            threads: threads.len(),
            steps: r.steps.iter().map(|s| s.number).collect(),
            span_ns: (lo <= hi).then(|| Span { start: lo, end: hi, duration: hi - lo }),
            warnings: r.warnings.iter().map(|w| w.count).sum(),
        });
    }
    Overview { events: ranks.iter().map(|r| r.events).sum(), files: ranks.iter().map(|r| r.file.clone()).collect(), ranks, warnings }
}

/// Events per kind per rank (`info --csv`): columns `rank`, `kind`, `events`; ranks in order,
/// kinds by name.
pub fn kinds_table(ov: &Overview) -> crate::table::Table {
    use crate::table::{Table, Unit, Values};
    let (mut ranks, mut kinds, mut counts) = (Vec::new(), Vec::new(), Vec::new());
    for r in &ov.ranks {
        for (k, n) in &r.kinds {
            ranks.push(i64::from(r.rank));
            kinds.push(k.clone());
            counts.push(*n as i64);
        }
    }
    Table::new("kinds").with("rank", Unit::None, Values::Int(ranks.into())).with("kind", Unit::None, Values::Str(kinds.into())).with(
        "events",
        Unit::Count,
        Values::Int(counts.into()),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn kinds_table_per_rank() {
        let a = br#"{"distributedInfo": {"rank": 1}, "traceEvents": [{"ph":"X","cat":"kernel","name":"k","ts":1,"dur":1,"pid":0,"tid":7},
            {"ph":"X","cat":"Kernel","name":"k","ts":3,"dur":1,"pid":0,"tid":7}]}"#;
        let b = br#"[{"ph":"X","cat":"cpu_op","name":"op","ts":0,"dur":9,"pid":1,"tid":1}, {"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}}]"#;
        let trace = crate::read::read_all(&[("a.json", &a[..]), ("b.json", &b[..])]).expect("reads");
        let t = super::kinds_table(&super::overview(&trace));
        assert_eq!(t.to_csv(), "rank,kind,events\n0,cpu_op,1\n0,metadata,1\n1,kernel,2\n");
    }
}
