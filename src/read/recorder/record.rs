//! A rank's records: the grammar's terminal sequence joined with the call signatures and the
//! timestamps, and the layer recorder2text prints for each call.
//!
//! Timestamps are pairs of `uint32_t` ticks per call (`write_record` in `lib/recorder-logger.c`):
//! the start and the end, both counted from the previous call's start (the first from the run's
//! start). Records keep absolute integer ticks since the run's start.

use std::sync::Arc;

use super::cst::Signature;
use super::error::{ErrorKind, RecorderError};

/// The function id of a user function (`RECORDER_USER_FUNCTION`), whose name is its second argument.
pub const USER_FUNCTION: u8 = 255;

/// The layer recorder2text prints after the depth (`recorder_get_func_type` in `tools/reader.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// `RECORDER_POSIX` (0): ids before the first name containing `MPI`.
    Posix = 0,
    /// `RECORDER_MPIIO` (1): MPI ids whose name starts with `MPI_File`.
    MpiIo = 1,
    /// `RECORDER_MPI` (2): other ids before the first name containing `H5`.
    Mpi = 2,
    /// `RECORDER_HDF5` (3): the rest.
    Hdf5 = 3,
    /// `RECORDER_FTRACE` (4): user functions (id 255).
    Ftrace = 4,
}

/// Where the function-name list changes layer: the first name containing `MPI` and the first
/// containing `H5` (-1 when absent), as the C reader computes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayerBounds {
    /// `mpi_start_idx`.
    pub mpi_start: i32,
    /// `hdf5_start_idx`.
    pub hdf5_start: i32,
}

impl LayerBounds {
    /// The bounds of a function-name list.
    pub fn of(names: &[String]) -> Self {
        let first = |pat: &str| names.iter().position(|n| n.contains(pat)).map_or(-1, |i| i as i32);
        LayerBounds { mpi_start: first("MPI"), hdf5_start: first("H5") }
    }

    /// The layer of a call to `func_id` named `name`, with the C reader's comparisons (a missing
    /// bound is -1, so nothing is below it).
    pub fn layer(&self, func_id: u8, name: &str) -> Layer {
        let id = i32::from(func_id);
        if id < self.mpi_start {
            Layer::Posix
        } else if id < self.hdf5_start {
            if name.starts_with("MPI_File") {
                Layer::MpiIo
            } else {
                Layer::Mpi
            }
        } else if func_id == USER_FUNCTION {
            Layer::Ftrace
        } else {
            Layer::Hdf5
        }
    }
}

/// One traced call: its times and its call, shared by every record of the same call signature
/// (a trace repeats few distinct calls many times, so records stay 24 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// Start, in ticks of [`RankRecords::time_resolution`] since the run's start.
    pub start: u64,
    /// End, in the same ticks.
    pub end: u64,
    /// What was called.
    pub call: Arc<Call>,
}

/// A distinct call: function, depth, layer, thread and arguments (a call signature, named).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Call {
    /// Index into the function names ([`USER_FUNCTION`] for user functions).
    pub func_id: u8,
    /// The function's name (a user function's second argument).
    pub func: String,
    /// Call depth: 0 for a call made by the application, 1 for one made inside another traced call.
    pub depth: u8,
    /// The layer recorder2text prints.
    pub layer: Layer,
    /// `pthread_t` of the caller; 0 when the trace does not record thread ids.
    pub tid: u64,
    /// Arguments as text, exactly as stored (`%p` for pointers, real paths for file names).
    pub args: Vec<String>,
}

/// One rank's records in call order.
#[derive(Debug, Clone, PartialEq)]
pub struct RankRecords {
    /// The rank.
    pub rank: u32,
    /// Seconds per tick (the run's `time_resolution`).
    pub time_resolution: f64,
    /// The calls.
    pub records: Vec<Record>,
    /// Timestamp pairs left over after the last call (0 in a consistent trace; the C reader
    /// ignores them too).
    pub unused_timestamps: usize,
}

/// The calls of a call-signature table, named and classified once, when first used (ranks that
/// share a table share its calls). It owns the table: a signature's arguments move into its call,
/// so they are held once.
#[derive(Debug)]
pub struct Calls {
    sigs: Vec<Signature>,
    made: Vec<Option<Arc<Call>>>,
}

impl Calls {
    /// The calls of `cst`, none made yet.
    pub fn new(cst: Vec<Signature>) -> Self {
        let made = vec![None; cst.len()];
        Calls { sigs: cst, made }
    }

    /// How many signatures the table has.
    pub fn len(&self) -> usize {
        self.made.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.made.is_empty()
    }

    /// The call of terminal `t` (below the table's size), named with `names` and `bounds`.
    fn get(&mut self, t: usize, names: &[String], bounds: LayerBounds) -> Result<Arc<Call>, String> {
        if let Some(c) = &self.made[t] {
            return Ok(c.clone());
        }
        let sig = &mut self.sigs[t];
        let func = function_name(sig, names)?;
        let layer = bounds.layer(sig.func_id, &func);
        let args = std::mem::take(&mut sig.args);
        let call = Arc::new(Call { func_id: sig.func_id, func, depth: sig.depth, layer, tid: sig.tid, args });
        self.made[t] = Some(call.clone());
        Ok(call)
    }
}

/// Builds the records of `terminals` (a grammar's expansion) from the calls of its signature
/// table and the (start, end) tick deltas `ticks`; `names` and `bounds` name and classify
/// functions. `file` names the grammar in errors.
pub fn build_records(
    file: &str,
    terminals: &[u32],
    calls: &mut Calls,
    ticks: &[(u32, u32)],
    names: &[String],
    bounds: LayerBounds,
) -> Result<(Vec<Record>, usize), RecorderError> {
    let mut records = Vec::with_capacity(terminals.len());
    let mut prev_start = 0u64;
    for (&t, &(d_start, d_end)) in terminals.iter().zip(ticks) {
        // terminal ids were checked against the table's size by the grammar expansion
        let call = calls.get(t as usize, names, bounds).map_err(|msg| RecorderError::in_file(file, ErrorKind::Corrupt(msg)))?;
        let (start, end) = (prev_start + u64::from(d_start), prev_start + u64::from(d_end));
        prev_start = start;
        records.push(Record { start, end, call });
    }
    Ok((records, ticks.len().saturating_sub(terminals.len())))
}

/// The name recorder2text prints for a signature's function.
fn function_name(sig: &Signature, names: &[String]) -> Result<String, String> {
    if sig.func_id == USER_FUNCTION {
        return sig
            .args
            .get(1)
            .cloned()
            .ok_or_else(|| format!("a user function (id 255) has {} arguments, expected its name as the second", sig.args.len()));
    }
    names
        .get(usize::from(sig.func_id))
        .cloned()
        .ok_or_else(|| format!("function id {} is not among recorder.mt's {} names", sig.func_id, names.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn layers_follow_the_c_reader() {
        let n = names(&["open", "write", "MPI_File_open", "MPI_Send", "H5Fopen"]);
        let b = LayerBounds::of(&n);
        assert_eq!(b, LayerBounds { mpi_start: 2, hdf5_start: 4 });
        let got: Vec<Layer> = (0..5u8).map(|i| b.layer(i, &n[i as usize])).collect();
        assert_eq!(got, vec![Layer::Posix, Layer::Posix, Layer::MpiIo, Layer::Mpi, Layer::Hdf5]);
        assert_eq!(b.layer(USER_FUNCTION, "my_func"), Layer::Ftrace);
        // no MPI names: mpi_start is -1, so ids below the first H5 name are MPI (as in C)
        let b = LayerBounds::of(&names(&["open", "H5Fopen"]));
        assert_eq!((b.layer(0, "open"), b.layer(1, "H5Fopen")), (Layer::Mpi, Layer::Hdf5));
    }

    #[test]
    fn ticks_count_from_the_previous_start() {
        let n = names(&["open", "write"]);
        let sig = |f: u8, args: &[&str]| Signature { tid: 0, func_id: f, depth: 0, args: names(args) };
        let cst = vec![sig(0, &["/a", "0"]), sig(1, &["/a", "%p", "8"]), sig(USER_FUNCTION, &["x", "main"])];
        let mut calls = Calls::new(cst);
        let (r, unused) =
            build_records("0.cfg", &[0, 1, 1, 2], &mut calls, &[(10, 15), (7, 9), (3, 4), (0, 1), (5, 5)], &n, LayerBounds::of(&n))
                .unwrap();
        let times: Vec<(u64, u64)> = r.iter().map(|r| (r.start, r.end)).collect();
        assert_eq!(times, vec![(10, 15), (17, 19), (20, 21), (20, 21)]);
        assert_eq!((r[3].call.func.as_str(), r[3].call.layer, unused), ("main", Layer::Ftrace, 1));
        assert!(Arc::ptr_eq(&r[1].call, &r[2].call), "records of one signature share its call");
    }

    #[test]
    fn unknown_function_ids_are_errors() {
        let cst = vec![Signature { tid: 0, func_id: 9, depth: 0, args: vec![] }];
        let e = build_records("0.cfg", &[0], &mut Calls::new(cst), &[(0, 0)], &names(&["open"]), LayerBounds::of(&[])).unwrap_err();
        assert_eq!(e.to_string(), "0.cfg: corrupt: function id 9 is not among recorder.mt's 1 names");
    }
}
