//! One rank per process for rocprofv3 CSV output.
//!
//! rocprofv3 writes one CSV per table per process (`<dir>/<pid>_kernel_trace.csv`,
//! `<pid>_memory_copy_trace.csv`, `<pid>_hip_api_trace.csv`, …; `-o NAME` makes the prefix
//! `NAME`). Read one file at a time, they are separate [`RankTrace`]s; this module joins the
//! ones of one process.
//!
//! Rule, for ranks of format [`Format::RocprofV3Csv`] only:
//! 1. the *data pid* of a file is its rows' `Process_Id` when they all have the same one (API
//!    tables); kernel and copy tables have none;
//! 2. the *prefix* of a file is its name without the table suffix (`_kernel_trace.csv`, …,
//!    also `.gz`) and without the folder;
//! 3. a file's process is, first that applies: its data pid; its prefix when that is a number
//!    (`1234_kernel_trace.csv` → 1234); the one data pid of the other files with the same folder
//!    and prefix; else the prefix itself (names only);
//! 4. files in the same folder with the same process are merged, in the order given, into the
//!    first one: strings and pid/tid ids are re-interned, events appended (each keeps its
//!    file's row number as `index`), counts, warnings, files and sizes added up;
//! 5. rows without a pid (kernel and copy tables) get the process's pid when it is a number.
//!
//! Files of different folders are never merged (pids repeat across hosts: rocprofv3's default
//! output folder is `<hostname>/<pid>`). Files with rows of several pids are left alone.

use rustc_hash::FxHashMap;

use crate::model::{Format, IdValue, NewEvent, RankTrace, StrId, Strings};

/// Table names rocprofv3 puts after the prefix (`<prefix>_<table>.csv`).
const TABLES: &[&str] = &[
    "kernel_trace",
    "memory_copy_trace",
    "memory_allocation_trace",
    "scratch_memory_trace",
    "hip_api_trace",
    "hip_runtime_trace",
    "hip_compile_trace",
    "hsa_api_trace",
    "marker_api_trace",
    "rccl_api_trace",
    "rocdecode_api_trace",
    "rocjpeg_api_trace",
    "kfd_api_trace",
];

/// A file's process, as decided by the rule above.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Process {
    Pid(i64),
    Prefix(String),
}

/// Splits a path into (folder, prefix) if its name is `<prefix>_<table>.csv[.gz]`.
fn folder_and_prefix(path: &str) -> Option<(String, String)> {
    let cut = path.rfind(['/', '\\']).map(|i| i + 1).unwrap_or(0);
    let (dir, name) = path.split_at(cut);
    let name = name.strip_suffix(".gz").unwrap_or(name);
    let base = name.strip_suffix(".csv")?;
    for t in TABLES {
        if base == *t {
            return Some((dir.to_string(), String::new()));
        }
        if let Some(p) = base.strip_suffix(t).and_then(|p| p.strip_suffix('_')) {
            return Some((dir.to_string(), p.to_string()));
        }
    }
    None
}

/// The single integer pid of a rank's rows; `Err` when rows carry several pids.
fn data_pid(r: &RankTrace) -> Result<Option<i64>, ()> {
    let mut seen: Option<u32> = None;
    for p in r.events.pid.iter() {
        if matches!(r.ids.get(p), Some(IdValue::Str(s)) if *s == Strings::EMPTY) {
            continue;
        }
        match seen {
            None => seen = Some(p),
            Some(q) if q == p => {}
            Some(_) => return Err(()),
        }
    }
    match seen.and_then(|p| r.ids.get(p)) {
        None => Ok(None),
        Some(IdValue::Int(v)) => Ok(Some(*v)),
        Some(IdValue::Str(_)) => Err(()),
    }
}

/// Merges rocprofv3 CSV files of one process into one rank (see the module docs).
pub fn merge_process_files(ranks: &mut Vec<RankTrace>) {
    let info: Vec<Option<(String, String, Option<i64>)>> = ranks
        .iter()
        .map(|r| {
            if r.format != Some(Format::RocprofV3Csv) {
                return None;
            }
            let (dir, prefix) = folder_and_prefix(r.files.first()?)?;
            let pid = data_pid(r).ok()?;
            Some((dir, prefix, pid))
        })
        .collect();
    // data pids seen per (folder, prefix)
    let mut prefix_pids: FxHashMap<(&str, &str), Vec<i64>> = FxHashMap::default();
    for (dir, prefix, pid) in info.iter().flatten() {
        let v = prefix_pids.entry((dir.as_str(), prefix.as_str())).or_default();
        if let Some(p) = pid {
            if !v.contains(p) {
                v.push(*p);
            }
        }
    }
    let keys: Vec<Option<(String, Process)>> = info
        .iter()
        .map(|i| {
            let (dir, prefix, pid) = i.as_ref()?;
            let process = match (pid, prefix.parse::<i64>()) {
                (Some(p), _) => Process::Pid(*p),
                (None, Ok(p)) => Process::Pid(p),
                (None, Err(_)) => match prefix_pids.get(&(dir.as_str(), prefix.as_str())).map(Vec::as_slice) {
                    Some([p]) => Process::Pid(*p),
                    _ => Process::Prefix(prefix.clone()),
                },
            };
            Some((dir.clone(), process))
        })
        .collect();
    let mut out: Vec<RankTrace> = Vec::with_capacity(ranks.len());
    let mut slot: FxHashMap<(String, Process), usize> = FxHashMap::default();
    for (r, key) in ranks.drain(..).zip(keys) {
        match key {
            Some(k) => match slot.get(&k) {
                Some(&s) => append(&mut out[s], r),
                None => {
                    slot.insert(k, out.len());
                    out.push(r);
                }
            },
            None => out.push(r),
        }
    }
    for ((_, process), s) in slot {
        if let Process::Pid(p) = process {
            fill_missing_pid(&mut out[s], p);
        }
    }
    *ranks = out;
}

/// Gives rows without a pid the process's pid.
fn fill_missing_pid(r: &mut RankTrace, pid: i64) {
    let Some(empty) = (0..r.ids.len() as u32).find(|&i| r.ids.get(i) == Some(&IdValue::Str(Strings::EMPTY))) else { return };
    if !r.events.pid.iter().any(|x| x == empty) {
        return;
    }
    let p = r.ids.intern(IdValue::Int(pid));
    for e in 0..r.events.len() {
        if r.events.pid.get(e) == empty {
            r.events.pid.set(e, p);
        }
    }
}

/// Appends `src` to `dst` (same process).
fn append(dst: &mut RankTrace, src: RankTrace) {
    let mut smap: Vec<Option<StrId>> = vec![None; src.strings.len()];
    let mut s = |id: StrId, dst: &mut RankTrace| -> StrId {
        if let Some(Some(x)) = smap.get(id.0 as usize) {
            return *x;
        }
        let x = dst.strings.intern(src.strings.get(id));
        if let Some(slot) = smap.get_mut(id.0 as usize) {
            *slot = Some(x);
        }
        x
    };
    let mut imap = Vec::with_capacity(src.ids.len());
    for i in 0..src.ids.len() as u32 {
        let v = match src.ids.get(i) {
            Some(IdValue::Int(v)) => IdValue::Int(*v),
            Some(IdValue::Str(id)) => IdValue::Str(s(*id, dst)),
            None => IdValue::Str(Strings::EMPTY),
        };
        imap.push(dst.ids.intern(v));
    }
    let id = |i: u32| imap.get(i as usize).copied().unwrap_or(0);
    let base = dst.events.len() as u32;
    let ev = &src.events;
    dst.events.reserve(ev.len());
    for e in 0..ev.len() {
        let (cat, name) = (s(ev.cat.get(e), dst), s(ev.name.get(e), dst));
        dst.events.push(NewEvent {
            index: ev.index.get(e),
            phase: ev.phase[e],
            kind: ev.kind[e],
            cat,
            name,
            ts: ev.ts[e],
            dur: ev.dur.get(e),
            pid: id(ev.pid.get(e)),
            tid: id(ev.tid.get(e)),
            stream: ev.stream.get(e),
            correlation: ev.correlation.get(e),
            external_id: ev.external_id.get(e),
            flags: ev.flags[e],
        });
    }
    dst.events.int_args.extend(ev.int_args.iter().map(|&(e, a, v)| (e + base, a, v)));
    for &(e, series, v) in &ev.counters {
        let series = s(series, dst);
        dst.events.counters.push((e + base, series, v));
    }
    for (p, n) in &src.process_names {
        dst.process_names.entry(id(*p)).or_insert_with(|| n.clone());
    }
    for ((p, t), n) in &src.thread_names {
        dst.thread_names.entry((id(*p), id(*t))).or_insert_with(|| n.clone());
    }
    let (c, o) = (&mut dst.counts, &src.counts);
    c.events += o.events;
    c.empty_placeholders += o.empty_placeholders;
    for (map, other) in [(&mut c.kinds, &o.kinds), (&mut c.categories, &o.categories), (&mut c.phases, &o.phases)] {
        for (k, v) in other {
            *map.entry(k.clone()).or_default() += v;
        }
    }
    dst.warnings.extend(&src.warnings);
    dst.files.extend(src.files.iter().cloned());
    dst.input_bytes += src.input_bytes;
    dst.meta.gzip_members += src.meta.gzip_members;
    dst.meta.ts_fractional_or_missing |= src.meta.ts_fractional_or_missing;
}

#[cfg(test)]
mod tests {
    use super::folder_and_prefix;

    #[test]
    fn prefixes() {
        let f = |p: &str| folder_and_prefix(p);
        assert_eq!(f("host/1234/1234_kernel_trace.csv"), Some(("host/1234/".into(), "1234".into())));
        assert_eq!(f("run_a_hip_api_trace.csv.gz"), Some(("".into(), "run_a".into())));
        assert_eq!(f("d\\kernel_trace.csv"), Some(("d\\".into(), "".into())));
        assert_eq!(f("results.csv"), None);
        assert_eq!(f("x_kernel_trace.json"), None);
    }
}
