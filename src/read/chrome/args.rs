//! The `args` of an event: the values the model keeps, read in the same pass as the event
//! ([`parse_args`]), and stored on its row once it is committed ([`ChromeSink::apply_args`]).
//! Spelling drift is absorbed here: `External id`/`external id`, `correlation`/`correlation_id`/
//! `correlation id` (Paddle)/`cid`, `bytes`/`size`, Paddle's `start_time`/`end_time`.

use super::ChromeSink;
use crate::error::WarningKind;
use crate::model::events::flags;
use crate::model::time::with_unit_to_ns;
use crate::model::{EventId, IntArg, Kind, Phase};
use crate::read::json::{Gaps, JVal, JsonError, ObjectReader};

/// The `args` the model keeps, read in the same pass as the event (see [`parse_args`]).
#[derive(Default)]
pub(super) struct ArgVals {
    pub(super) stream: i64,
    pub(super) correlation: i64,
    cid: i64,
    pub(super) external_id: i64,
    /// `flags::*_ALT_KEY` bits.
    pub(super) alt: u8,
    /// Sparse integer args, in file order (at most one per key we keep).
    ints: Vec<(IntArg, i64)>,
    /// `size` (a memcpy/memset's bytes under another name; applied only to those kinds).
    size: Option<i64>,
    /// Paddle `start_time`/`end_time`, ns (applied only to steps and GPU ops).
    paddle: (Option<i64>, Option<i64>),
    invalid_utf8: bool,
}

impl ArgVals {
    /// No args seen yet (ids -1).
    pub(super) fn new() -> ArgVals {
        ArgVals { stream: -1, correlation: -1, cid: -1, external_id: -1, ..ArgVals::default() }
    }
}

/// The codes of the `args` keys [`parse_args`] reads.
mod key {
    pub const STREAM: u8 = 0;
    pub const CORRELATION: u8 = 1;
    /// `correlation_id` or `correlation id`.
    pub const CORRELATION_ALT: u8 = 2;
    pub const CID: u8 = 3;
    pub const EXTERNAL_ID: u8 = 4;
    /// `external id` or `External ID`.
    pub const EXTERNAL_ID_ALT: u8 = 5;
    pub const SIZE: u8 = 6;
    pub const MEMORY_BW: u8 = 7;
    pub const START_TIME: u8 = 8;
    pub const END_TIME: u8 = 9;
    pub const BYTES: u8 = 10;
    pub const DEVICE: u8 = 11;
    pub const BEGIN_NS: u8 = 12;
    pub const END_NS: u8 = 13;
    pub const WAIT_ON_STREAM: u8 = 14;
    pub const WAIT_ON_EVENT_RECORD: u8 = 15;
    pub const RECORD_FUNCTION_ID: u8 = 16;
    /// A key the model does not keep.
    pub const OTHER: u8 = 17;

    /// The code of key `k`.
    pub fn of(k: &str) -> u8 {
        match k {
            "stream" | "stream-id" => STREAM,
            "correlation" => CORRELATION,
            // Paddle writes `correlation id` on its runtime calls and GPU operations
            "correlation_id" | "correlation id" => CORRELATION_ALT,
            "cid" => CID,
            "External id" => EXTERNAL_ID,
            "external id" | "External ID" => EXTERNAL_ID_ALT,
            "size" => SIZE,
            "memory bandwidth (GB/s)" => MEMORY_BW,
            "start_time" => START_TIME,
            "end_time" => END_TIME,
            "bytes" => BYTES,
            "device" => DEVICE,
            // rocprof v1 --hip-trace JSON: exact ns times beside the µs-truncated ts
            "BeginNs" => BEGIN_NS,
            "EndNs" => END_NS,
            "wait_on_stream" => WAIT_ON_STREAM,
            "wait_on_cuda_event_record_corr_id" => WAIT_ON_EVENT_RECORD,
            "Record function id" => RECORD_FUNCTION_ID,
            _ => OTHER,
        }
    }
}

/// Reads the args the model keeps from an `args` object into `a` (from [`ArgVals::new`]), in
/// place: events are many and these structs are moved a lot otherwise. `gaps`: those of the
/// file's `args` objects (only how keys are read, see [`Gaps`]).
pub(super) fn parse_args(r: &mut ObjectReader<'_>, a: &mut ArgVals, gaps: &mut Gaps) -> Result<(), JsonError> {
    while let Some(k) = r.next_code(gaps, key::of)? {
        let v = r.next_value()?;
        let int = || v.as_i64();
        match k {
            key::STREAM => a.stream = int().unwrap_or(-1),
            key::CORRELATION => a.correlation = int().unwrap_or(-1),
            key::CORRELATION_ALT => {
                a.correlation = int().unwrap_or(-1);
                a.alt |= flags::CORRELATION_ALT_KEY;
            }
            // `cid` is a correlation only when `correlation` is absent: ROCm Kineto traces carry
            // both, and there `cid` is the HIP API id (e.g. 107 on every hipLaunchKernel)
            key::CID => a.cid = int().unwrap_or(-1),
            key::EXTERNAL_ID => a.external_id = int().unwrap_or(-1),
            key::EXTERNAL_ID_ALT => {
                a.external_id = int().unwrap_or(-1);
                a.alt |= flags::EXTERNAL_ID_ALT_KEY;
            }
            key::SIZE => a.size = int(),
            key::MEMORY_BW => {
                if let Some(x) = v.as_f64() {
                    a.ints.push((IntArg::MemoryBwGbpsBits, x.to_bits() as i64));
                }
            }
            key::START_TIME | key::END_TIME => {
                if let JVal::Str(s) = &v {
                    let ns = with_unit_to_ns(s).ok();
                    if k == key::START_TIME {
                        a.paddle.0 = ns;
                    } else {
                        a.paddle.1 = ns;
                    }
                }
            }
            other => {
                let arg = match other {
                    key::BYTES => IntArg::Bytes,
                    key::DEVICE => IntArg::Device,
                    key::BEGIN_NS => IntArg::BeginNs,
                    key::END_NS => IntArg::EndNs,
                    key::WAIT_ON_STREAM => IntArg::WaitOnStream,
                    key::WAIT_ON_EVENT_RECORD => IntArg::WaitOnEventRecordCorrelation,
                    key::RECORD_FUNCTION_ID => IntArg::RecordFunctionId,
                    _ => continue,
                };
                if let Some(x) = int() {
                    a.ints.push((arg, x));
                }
            }
        }
    }
    if a.correlation == -1 && a.cid != -1 {
        a.correlation = a.cid;
        a.alt |= flags::CORRELATION_ALT_KEY;
    }
    a.invalid_utf8 = r.invalid_utf8;
    Ok(())
}

impl ChromeSink<'_> {
    /// Stores what `args` held on row `e` besides the link columns (which go into the row itself):
    /// sparse args and counter samples.
    pub(super) fn apply_args(&mut self, e: EventId, kind: Kind, phase: Phase, a: &ArgVals, raw: &[u8], offset: u64) {
        let ev = &mut self.rank.events;
        for &(arg, v) in &a.ints {
            ev.push_int_arg(e, arg, v);
        }
        if let (Some(size), true) = (a.size, matches!(kind, Kind::Memcpy | Kind::Memset)) {
            ev.push_int_arg(e, IntArg::Bytes, size);
            ev.flags[e as usize] |= flags::BYTES_ALT_KEY;
        }
        // Paddle: exact times on the profiler's clock (`args.start_time`, from the profiler's
        // start) where `ts` is on the host's, truncated to the µs: what kernel_extractor reads
        // for GPU ops and steps, and what places a runtime call or an annotation among them. The
        // end is kept for GPU ops and steps only; other events' `dur` is exact, so it is
        // `start + dur` there.
        if let Some(ns) = a.paddle.0 {
            ev.push_int_arg(e, IntArg::PaddleStartNs, ns);
        }
        if let (Some(ns), true) = (a.paddle.1, kind.is_device() || kind == Kind::ProfilerStep) {
            ev.push_int_arg(e, IntArg::PaddleEndNs, ns);
        }
        if phase == Phase::Counter || kind == Kind::CudaProfilerRange {
            // counter samples (every numeric arg is a series) and CUPTI range-profiler counters:
            // rare events, so read the args again
            if let Ok(mut r) = ObjectReader::new(raw) {
                while let Ok(Some((k, v))) = r.next_entry() {
                    if let Some(x) = v.as_f64() {
                        let key = self.rank.strings.intern(&k);
                        let ev = &mut self.rank.events;
                        if phase == Phase::Counter {
                            ev.counters.push((e, key, x))
                        } else {
                            ev.profiler_range_args.push((e, key, x))
                        }
                    }
                }
            }
        }
        if a.invalid_utf8 {
            self.warn(WarningKind::InvalidUtf8, offset, |_| "in \"args\"".into());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> ArgVals {
        let mut a = ArgVals::new();
        parse_args(&mut ObjectReader::new(json.as_bytes()).unwrap(), &mut a, &mut Gaps::default()).unwrap();
        a
    }

    #[test]
    fn every_kept_key_is_read() {
        // every key the model keeps, among others it does not
        let a = read(
            r#"{"Ev Idx": 1, "stream": 7, "grid": [1, 1, 1], "correlation": 11, "External id": 5, "size": 64,
                "bytes": 32, "device": 1, "BeginNs": 100, "EndNs": 200, "wait_on_stream": 3,
                "wait_on_cuda_event_record_corr_id": 9, "Record function id": 4, "memory bandwidth (GB/s)": 1.5,
                "start_time": "10 us", "end_time": "20 us", "registers per thread": 32}"#,
        );
        assert_eq!((a.stream, a.correlation, a.external_id, a.size, a.alt), (7, 11, 5, Some(64), 0));
        assert_eq!(a.paddle, (Some(10_000), Some(20_000)));
        let want = [
            (IntArg::Bytes, 32),
            (IntArg::Device, 1),
            (IntArg::BeginNs, 100),
            (IntArg::EndNs, 200),
            (IntArg::WaitOnStream, 3),
            (IntArg::WaitOnEventRecordCorrelation, 9),
            (IntArg::RecordFunctionId, 4),
            (IntArg::MemoryBwGbpsBits, 1.5f64.to_bits() as i64),
        ];
        assert_eq!(a.ints, want);
    }

    #[test]
    fn other_spellings_and_escaped_keys() {
        let a = read(r#"{"stream-id": 2, "correlation id": 8, "external id": 6}"#);
        assert_eq!((a.stream, a.correlation, a.external_id), (2, 8, 6));
        assert_eq!(a.alt, flags::CORRELATION_ALT_KEY | flags::EXTERNAL_ID_ALT_KEY);
        assert_eq!(read(r#"{"correlation_id": 4, "External ID": 3}"#).correlation, 4);
        // `cid` only without `correlation`
        assert_eq!(read(r#"{"cid": 5}"#).correlation, 5);
        assert_eq!(read(r#"{"cid": 5, "correlation": 3}"#).correlation, 3);
        // a key with escapes is its unescaped text
        assert_eq!(read(r#"{"st\u0072eam": 4, "dev\u0069ce": 2}"#).stream, 4);
        assert_eq!(read(r#"{"dev\u0069ce": 2}"#).ints, [(IntArg::Device, 2)]);
        // "stream\u0000" is not "stream"
        assert_eq!(read(r#"{"stream\u0000": 4}"#).stream, -1);
    }
}
