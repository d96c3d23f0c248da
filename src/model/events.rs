//! The per-rank event table: one `Vec` per field (struct of arrays), strings interned.
//!
//! Metadata events (`ph: M`) are not rows: they fill the rank's process/thread names instead.
//! Every other event the file contains is one row, in file order.

use super::column::{IdColumn, IntColumn, RunColumn};
use super::kind::{Kind, Phase};
use super::strings::StrId;

/// Row number inside one rank's [`EventTable`].
pub type EventId = u32;

/// "No row" in index columns.
pub const NONE: EventId = u32::MAX;

/// Bit flags per row.
pub mod flags {
    /// The event had a `dur` (or, for `B`, a matching `E` was found).
    pub const HAS_DUR: u8 = 1;
    /// The event had a `cat`.
    pub const HAS_CAT: u8 = 2;
    /// The event had a `ts`.
    pub const HAS_TS: u8 = 4;
    /// `external_id` came from a spelling other than `External id` (`external id`, `External ID`);
    /// HTA reads only `External id`.
    pub const EXTERNAL_ID_ALT_KEY: u8 = 8;
    /// `correlation` came from `cid`/`correlation_id` rather than `correlation`.
    pub const CORRELATION_ALT_KEY: u8 = 16;
    /// `bytes` came from `size` rather than `bytes`.
    pub const BYTES_ALT_KEY: u8 = 32;
}

/// A process or thread id as written in the trace: an integer (`13006`, `-1`) or a string
/// (`"13006(Python)"`, `"Traces"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IdValue {
    /// Integer id.
    Int(i64),
    /// String id (interned).
    Str(StrId),
}

/// Integer arguments kept sparsely (few events carry them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntArg {
    /// `args.bytes` (also spelled `size`): bytes moved by a memcpy/memset.
    Bytes,
    /// `args.device`: device index of a GPU event.
    Device,
    /// Flow/async `id` (numeric, or a hash of a string id).
    FlowId,
    /// `args.wait_on_stream` of a `Stream Wait Event`.
    WaitOnStream,
    /// `args.wait_on_cuda_event_record_corr_id`.
    WaitOnEventRecordCorrelation,
    /// `args["Record function id"]`.
    RecordFunctionId,
    /// Paddle `args.start_time` in ns (parsed from `"1234.567 us"`).
    PaddleStartNs,
    /// Paddle `args.end_time` in ns.
    PaddleEndNs,
    /// rocprofv3 `Stream_Id`: the HIP stream of a kernel or copy (`stream` holds the HSA queue).
    HipStream,
    /// rocprof v1 JSON `args.BeginNs`: the exact start, ns (`ts` there is truncated to µs).
    BeginNs,
    /// rocprof v1 JSON `args.EndNs`: the exact end, ns.
    EndNs,
    /// Kineto `args["memory bandwidth (GB/s)"]` of a memcpy/memset, stored as the bits of the
    /// f64 (`f64::to_bits`); read it with [`EventTable::memory_bw_gbps`].
    MemoryBwGbpsBits,
}

impl IntArg {
    /// Every argument, in declaration order (`arg as usize` indexes it).
    pub const ALL: [IntArg; 12] = [
        IntArg::Bytes,
        IntArg::Device,
        IntArg::FlowId,
        IntArg::WaitOnStream,
        IntArg::WaitOnEventRecordCorrelation,
        IntArg::RecordFunctionId,
        IntArg::PaddleStartNs,
        IntArg::PaddleEndNs,
        IntArg::HipStream,
        IntArg::BeginNs,
        IntArg::EndNs,
        IntArg::MemoryBwGbpsBits,
    ];
}

/// Columns of one rank's events. All times are integer nanoseconds on the file's own clock
/// (the µs `ts` of the file × 1000, exact).
#[derive(Debug, Default, Clone)]
pub struct EventTable {
    /// Position of the event in the file's event array (0-based, counting every element
    /// including metadata and empty `{}` placeholders). HTA calls this `index`. Stored as runs
    /// ([`RunColumn`]: read with `get`): it goes up by one from row to row except after a
    /// metadata event or a placeholder.
    pub index: RunColumn,
    /// Phase letter.
    pub phase: Vec<Phase>,
    /// Kind decided from the category.
    pub kind: Vec<Kind>,
    /// Raw category string. Like `name`, `pid` and `tid`, 2 bytes a row while the ids are
    /// below 65,536 ([`IdColumn`]: read with `get`).
    pub cat: IdColumn<StrId>,
    /// Event name.
    pub name: IdColumn<StrId>,
    /// Start, ns.
    pub ts: Vec<i64>,
    /// Duration, ns (0 when the event has none; see `flags`), 4 bytes a row ([`IntColumn`]:
    /// read with `get`).
    pub dur: IntColumn,
    /// Index into [`super::RankTrace::ids`] of the `pid`.
    pub pid: IdColumn<u32>,
    /// Index into [`super::RankTrace::ids`] of the `tid`.
    pub tid: IdColumn<u32>,
    /// `args.stream` (GPU stream/queue); -1 when absent or not an integer. Like the next two,
    /// 4 bytes a row ([`IntColumn`]: read with `get`).
    pub stream: IntColumn,
    /// `args.correlation` (CUDA/HIP correlation id); -1 when absent.
    pub correlation: IntColumn,
    /// `args["External id"]` (operator ↔ kernel link); -1 when absent.
    pub external_id: IntColumn,
    /// Bit set of [`flags`].
    pub flags: Vec<u8>,
    /// Sparse integer arguments, sorted by event id. Append with [`EventTable::push_int_arg`].
    pub int_args: Vec<(EventId, IntArg, i64)>,
    /// Counter samples of `ph: C` events: (event, series name, value).
    pub counters: Vec<(EventId, StrId, f64)>,
    /// Timing suffixes split off names at read time (`[1.169 ms]`, PaddlePaddle writes one on
    /// every event; see [`super::strings::split_timing_suffix`]): (event, suffix), by event. The
    /// `name` column holds the rest, so analyses group `matmul[1.2 us]` and `matmul[1.3 us]`
    /// together; [`super::RankTrace::full_name`] puts the suffix back. Entries are (event, start,
    /// end) of the suffix's text in [`EventTable::suffix_text`] (almost every suffix is different,
    /// so they are not interned).
    pub name_suffix: Vec<(EventId, u32, u32)>,
    /// The texts of [`EventTable::name_suffix`], one after the other.
    pub suffix_text: String,
    /// Numeric args of `cuda_profiler_range` events (the CUPTI range-profiler counters, e.g.
    /// `smsp__sass_thread_inst_executed_op_ffma_pred_on.sum`): (event, arg key, value), sorted
    /// by event. HTA turns every such key into a column (SPEC §1.2 step 7, §2.16).
    pub profiler_range_args: Vec<(EventId, StrId, f64)>,
    /// Arguments of a traced call (Recorder: `/tmp/a %p 4096` for a `write`), interned: the
    /// arguments as text separated by single spaces (Recorder writes a space inside an argument
    /// as `_`, so the split is exact). (event, text), by event. A trace repeats few distinct
    /// argument lists, so interning keeps them at 8 bytes an event.
    pub call_args: Vec<(EventId, StrId)>,
}

/// One event ready to be appended (the reader fills it, the table stores it).
#[derive(Debug, Clone)]
pub struct NewEvent {
    /// See [`EventTable::index`].
    pub index: u32,
    /// Phase.
    pub phase: Phase,
    /// Kind.
    pub kind: Kind,
    /// Category.
    pub cat: StrId,
    /// Name.
    pub name: StrId,
    /// Start, ns.
    pub ts: i64,
    /// Duration, ns.
    pub dur: i64,
    /// pid index.
    pub pid: u32,
    /// tid index.
    pub tid: u32,
    /// Stream or -1.
    pub stream: i64,
    /// Correlation or -1.
    pub correlation: i64,
    /// External id or -1.
    pub external_id: i64,
    /// Flags.
    pub flags: u8,
}

impl EventTable {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.ts.len()
    }

    /// Whether the table has no rows.
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }

    /// Reserves room for exactly `n` more rows in every column.
    pub fn reserve(&mut self, n: usize) {
        self.phase.reserve_exact(n);
        self.kind.reserve_exact(n);
        self.cat.reserve_exact(n);
        self.name.reserve_exact(n);
        self.ts.reserve_exact(n);
        self.dur.reserve_exact(n);
        self.pid.reserve_exact(n);
        self.tid.reserve_exact(n);
        self.stream.reserve_exact(n);
        self.correlation.reserve_exact(n);
        self.external_id.reserve_exact(n);
        self.flags.reserve_exact(n);
    }

    /// Appends a row and returns its id. Columns grow by a quarter at a time rather than
    /// doubling, which keeps peak memory close to what the rows need.
    pub fn push(&mut self, e: NewEvent) -> EventId {
        let id = self.ts.len() as EventId;
        if self.ts.len() == self.ts.capacity() {
            self.reserve((self.ts.len() / 4).max(1024));
        }
        self.index.push(e.index);
        self.phase.push(e.phase);
        self.kind.push(e.kind);
        self.cat.push(e.cat);
        self.name.push(e.name);
        self.ts.push(e.ts);
        self.dur.push(e.dur);
        self.pid.push(e.pid);
        self.tid.push(e.tid);
        self.stream.push(e.stream);
        self.correlation.push(e.correlation);
        self.external_id.push(e.external_id);
        self.flags.push(e.flags);
        id
    }

    /// Appends a sparse integer argument of row `e` (rows must be appended in order). Grows by a
    /// quarter at a time, like the columns.
    pub fn push_int_arg(&mut self, e: EventId, arg: IntArg, v: i64) {
        if self.int_args.len() == self.int_args.capacity() {
            self.int_args.reserve_exact((self.int_args.len() / 4).max(1024));
        }
        self.int_args.push((e, arg, v));
    }

    /// Releases unused capacity.
    pub fn shrink_to_fit(&mut self) {
        self.index.shrink_to_fit();
        self.phase.shrink_to_fit();
        self.kind.shrink_to_fit();
        self.cat.shrink_to_fit();
        self.name.shrink_to_fit();
        self.ts.shrink_to_fit();
        self.dur.shrink_to_fit();
        self.pid.shrink_to_fit();
        self.tid.shrink_to_fit();
        self.stream.shrink_to_fit();
        self.correlation.shrink_to_fit();
        self.external_id.shrink_to_fit();
        self.flags.shrink_to_fit();
        self.int_args.shrink_to_fit();
        self.counters.shrink_to_fit();
        self.name_suffix.shrink_to_fit();
        self.suffix_text.shrink_to_fit();
        self.profiler_range_args.shrink_to_fit();
        self.call_args.shrink_to_fit();
    }

    /// Whether row `e` has a duration.
    pub fn has_dur(&self, e: EventId) -> bool {
        self.flags[e as usize] & flags::HAS_DUR != 0
    }

    /// End time (ts + dur) of row `e`, ns.
    pub fn end(&self, e: EventId) -> i64 {
        self.ts[e as usize] + self.dur.get(e as usize)
    }

    /// Kineto's `memory bandwidth (GB/s)` of row `e`, if the file gave one.
    pub fn memory_bw_gbps(&self, e: EventId) -> Option<f64> {
        self.int_arg(e, IntArg::MemoryBwGbpsBits).map(|b| f64::from_bits(b as u64))
    }

    /// The timing suffix split off row `e`'s name, if any.
    pub fn name_suffix(&self, e: EventId) -> Option<&str> {
        let i = self.name_suffix.binary_search_by_key(&e, |s| s.0).ok()?;
        let (_, a, b) = self.name_suffix[i];
        self.suffix_text.get(a as usize..b as usize)
    }

    /// Appends the timing suffix of row `e` (rows in order).
    pub fn push_name_suffix(&mut self, e: EventId, suffix: &str) {
        let a = self.suffix_text.len() as u32;
        self.suffix_text.push_str(suffix);
        self.name_suffix.push((e, a, self.suffix_text.len() as u32));
    }

    /// The call arguments of row `e` (see [`EventTable::call_args`]), if any.
    pub fn call_args(&self, e: EventId) -> Option<StrId> {
        let i = self.call_args.binary_search_by_key(&e, |a| a.0).ok()?;
        Some(self.call_args[i].1)
    }

    /// Sparse integer argument `arg` of row `e`.
    pub fn int_arg(&self, e: EventId, arg: IntArg) -> Option<i64> {
        let start = self.int_args.partition_point(|a| a.0 < e);
        arg_of(&self.int_args[start..], e, arg)
    }

    /// The rows that have sparse integer argument `arg`, ascending.
    pub fn rows_with(&self, arg: IntArg) -> Vec<EventId> {
        self.int_args.iter().filter(|a| a.1 == arg).map(|a| a.0).collect()
    }

    /// A reader of the sparse integer arguments for a pass over rows in ascending order: it
    /// walks the list once, where [`EventTable::int_arg`] searches all of it for each row.
    pub fn int_args_in_order(&self) -> IntArgsInOrder<'_> {
        IntArgsInOrder { args: &self.int_args, at: 0 }
    }
}

/// See [`EventTable::int_args_in_order`].
pub struct IntArgsInOrder<'a> {
    args: &'a [(EventId, IntArg, i64)],
    at: usize,
}

impl IntArgsInOrder<'_> {
    /// Sparse integer argument `arg` of row `e`; rows must come in ascending order (a row
    /// before the last one asked finds nothing).
    pub fn get(&mut self, e: EventId, arg: IntArg) -> Option<i64> {
        while self.args.get(self.at).is_some_and(|a| a.0 < e) {
            self.at += 1;
        }
        arg_of(&self.args[self.at..], e, arg)
    }
}

/// Argument `arg` of row `e` in `args`, sorted sparse arguments from the first of row `e` or later.
fn arg_of(args: &[(EventId, IntArg, i64)], e: EventId, arg: IntArg) -> Option<i64> {
    args.iter().take_while(|a| a.0 == e).find(|a| a.1 == arg).map(|a| a.2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_args_in_order_answer_as_int_arg_does() {
        let mut t = EventTable::default();
        // rows 1 and 4 have arguments (row 4 two), the others none; row 9 is past the list
        t.push_int_arg(1, IntArg::Device, 3);
        t.push_int_arg(4, IntArg::Bytes, 64);
        t.push_int_arg(4, IntArg::Device, 5);
        for arg in [IntArg::Device, IntArg::Bytes, IntArg::WaitOnStream] {
            let mut walk = t.int_args_in_order();
            for e in 0..10 {
                assert_eq!(walk.get(e, arg), t.int_arg(e, arg), "row {e}, {arg:?}");
            }
        }
        // asking the same row twice, or skipping rows, is fine
        let mut walk = t.int_args_in_order();
        assert_eq!(walk.get(4, IntArg::Bytes), Some(64));
        assert_eq!(walk.get(4, IntArg::Device), Some(5));
        assert_eq!(walk.get(9, IntArg::Device), None);
        // the rows with an argument, ascending; none with one no row has
        assert_eq!(t.rows_with(IntArg::Device), vec![1, 4]);
        assert_eq!(t.rows_with(IntArg::Bytes), vec![4]);
        assert_eq!(t.rows_with(IntArg::WaitOnStream), Vec::<EventId>::new());
    }
}
