//! Recorder records into the model: one [`RankTrace`] per Recorder rank, each call a complete
//! CPU-side event (phase `X`, [`Kind::Other`]) with category = its layer (`POSIX`, `MPIIO`,
//! `MPI`, `HDF5`, `FTRACE`), name = the function, the arguments as its call arguments
//! ([`crate::model::EventTable::call_args`]: `full_name` prints ` ( a b c )` after the name, as
//! recorder2text does), pid = the rank, tid = the thread id (0 when the trace does not record
//! them). Times are ns since the run's start (`ticks × time_resolution`,
//! rounded to the ns); the run's start (seconds since the epoch) is the rank's base time.

use std::collections::HashMap;

use super::{Call, Layer, Metadata, RankRecords, RecorderTrace};
use crate::model::events::flags;
use crate::model::strings::StrId;
use crate::model::{Format, IdValue, Kind, NewEvent, Phase, RankTrace};

/// A call's interned strings and thread id.
#[derive(Clone, Copy)]
struct Interned {
    cat: StrId,
    name: StrId,
    args: Option<StrId>,
    tid: u32,
}

/// Every layer, in the order of its number.
const LAYERS: [Layer; 5] = [Layer::Posix, Layer::MpiIo, Layer::Mpi, Layer::Hdf5, Layer::Ftrace];

/// The category of a layer.
pub fn layer_name(l: Layer) -> &'static str {
    match l {
        Layer::Posix => "POSIX",
        Layer::MpiIo => "MPIIO",
        Layer::Mpi => "MPI",
        Layer::Hdf5 => "HDF5",
        Layer::Ftrace => "FTRACE",
    }
}

/// The ranks of a decoded trace read from `folder` (`input_bytes`: the folder's size, counted
/// on rank 0).
pub fn to_ranks(t: &RecorderTrace, folder: &str, input_bytes: u64) -> Vec<RankTrace> {
    t.ranks.iter().map(|r| model_rank(&t.meta, r, folder, input_bytes)).collect()
}

/// Decodes the Recorder folder `folder` from its `files` (as [`super::decode`]) straight into
/// ranks, one rank's records at a time (`input_bytes`: the folder's size, counted on rank 0).
pub fn read_ranks(files: &[(&str, &[u8])], folder: &str, input_bytes: u64) -> Result<Vec<RankTrace>, super::RecorderError> {
    let mut ranks = Vec::new();
    super::decode_each(files, |meta, r| {
        ranks.push(model_rank(meta, &r, folder, input_bytes));
        Ok(())
    })?;
    Ok(ranks)
}

/// Rank `r` of a trace with metadata `meta`, in the model.
fn model_rank(meta: &Metadata, r: &RankRecords, folder: &str, input_bytes: u64) -> RankTrace {
    let mut rank = to_rank(r, folder);
    rank.meta.base_time_ns = Some((meta.start_ts * 1e9).round() as i64);
    rank.meta.distributed =
        Some(crate::model::DistributedInfo { rank: Some(i64::from(r.rank)), world_size: Some(i64::from(meta.ranks)), backend: None });
    if r.rank == 0 {
        rank.input_bytes = input_bytes;
    }
    rank
}

/// One rank's records as events.
fn to_rank(r: &RankRecords, folder: &str) -> RankTrace {
    let mut rank = RankTrace { rank: r.rank, files: vec![folder.to_string()], format: Some(Format::Recorder), ..Default::default() };
    let ns = |ticks: u64| (ticks as f64 * r.time_resolution * 1e9).round() as i64;
    let pid = rank.ids.intern(IdValue::Int(i64::from(r.rank)));
    rank.process_names.insert(pid, format!("rank {}", r.rank));
    rank.events.reserve(r.records.len());
    // a call's strings are interned once: records of one signature share its call
    let mut interned: HashMap<*const Call, Interned> = HashMap::new();
    let mut per_layer = [0u64; LAYERS.len()];
    for (i, rec) in r.records.iter().enumerate() {
        let c = &*rec.call;
        let cat = layer_name(c.layer);
        let s = *interned.entry(c as *const Call).or_insert_with(|| Interned {
            cat: rank.strings.intern(cat),
            name: rank.strings.intern(&c.func),
            args: (!c.args.is_empty()).then(|| rank.strings.intern(&c.args.join(" "))),
            tid: rank.ids.intern(IdValue::Int(c.tid as i64)),
        });
        let (start, end) = (ns(rec.start), ns(rec.end));
        let e = rank.events.push(NewEvent {
            index: i as u32,
            phase: Phase::Complete,
            kind: Kind::Other,
            cat: s.cat,
            name: s.name,
            ts: start,
            dur: (end - start).max(0),
            pid,
            tid: s.tid,
            stream: -1,
            correlation: -1,
            external_id: -1,
            flags: flags::HAS_TS | flags::HAS_DUR | flags::HAS_CAT,
        });
        if let Some(args) = s.args {
            rank.events.call_args.push((e, args));
        }
        per_layer[c.layer as usize] += 1;
    }
    let n = r.records.len() as u64;
    let counts = &mut rank.counts;
    counts.events += n;
    if n > 0 {
        *counts.kinds.entry(Kind::Other.as_str().to_string()).or_default() += n;
        *counts.phases.entry("X".to_string()).or_default() += n;
    }
    for (l, &k) in LAYERS.iter().zip(&per_layer) {
        if k > 0 {
            *counts.categories.entry(layer_name(*l).to_string()).or_default() += k;
        }
    }
    rank
}
