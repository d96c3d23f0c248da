//! Writing traces out: Chrome Trace Event Format JSON (opens in Perfetto and chrome://tracing),
//! and the traces analyses produce ([`trace_out`]).
//! Later: pprof, folded stacks, speedscope.

pub mod chrome;
pub mod formats;
pub mod gzip;
pub mod trace_out;

pub use gzip::{gzip, GzipWriter};
pub use trace_out::{trace_files, trace_json, write_trace_json};
